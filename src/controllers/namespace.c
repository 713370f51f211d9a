/* namespace.c: the namespace controller: the pure decisions (which namespaces to empty, which
 * collections discovery says can be deleted) and the pass that empties a terminating namespace,
 * finalizes it and deletes it. Everything goes through the API, so the content's own rules hold
 * (pods end gracefully on their node, claims wait for their protection finalizer). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/json.h"
#include "controllers/controller-loop.h"
#include "controllers/namespace.h"

/* A terminating namespace is looked at again this often while its content goes. */
#define PASS_PERIOD_MS 1000
#define BACKOFF_MIN_MS 1000
#define BACKOFF_MAX_MS (60 * 1000)

struct namespace_controller {
        struct controller_loop loop;
        json_t *backoff; /* namespace name -> controller_backoff entry */
};

bool namespace_needs_emptying(const json_t *ns)
{
        return json_path(ns, "metadata.deletionTimestamp") &&
               json_array_has_string(json_path(ns, "spec.finalizers"), NAMESPACE_FINALIZER);
}

void namespace_deletable_collections(const json_t *resource_list, const char *prefix,
                                     const char *ns, json_t *out)
{
        size_t i;
        json_t *r;

        json_array_foreach(json_object_get(resource_list, "resources"), i, r) {
                const char *name = json_path_string_or_empty(r, "name");
                const json_t *verbs = json_object_get(r, "verbs");
                bool collection = json_array_has_string(verbs, "deletecollection");

                if (!*name || strchr(name, '/') || !json_is_true(json_object_get(r, "namespaced")))
                        continue;
                /* K8S: deletable means "delete"; without deletecollection it is listed and
                 * deleted item by item */
                if (!collection && !(json_array_has_string(verbs, "delete") &&
                                     json_array_has_string(verbs, "list")))
                        continue;
                cleanup_free char *path = xasprintf("%s/namespaces/%s/%s", prefix, ns, name);

                json_array_append_new(
                        out, json_pack("{s:s, s:b}", "path", path, "collection", collection));
        }
}

struct deletable_collections {
        const char *ns;
        json_t *out;
};

static void add_deletable_collections(void *ctx, const json_t *list, const char *prefix,
                                      const char *group)
{
        struct deletable_collections *d = ctx;

        (void) group;
        namespace_deletable_collections(list, prefix, d->ns, d->out);
}

/* K8S: ServerPreferredNamespacedResources: the core group and each group's preferred version. */
static int discover_collections(struct api_client *c, const char *ns, json_t **ret,
                                struct error **reterr)
{
        cleanup_json json_t *out = json_array();
        struct deletable_collections d = { ns, out };
        int r = api_client_preferred_resources(c, add_deletable_collections, &d, reterr);

        if (r < 0)
                return r;
        *ret = TAKE_PTR(out);
        return 0;
}

/* Deletes what is left in one collection; returns how many objects it still holds (each on its
 * way out: graceful pods, finalizers), or -errno. */
static int empty_collection(struct api_client *c, const json_t *coll, struct error **reterr)
{
        const char *path = json_path_string_or_empty(coll, "path");
        cleanup_json json_t *list = NULL;
        long status = 0;
        size_t i;
        json_t *item;
        int r;

        if (json_is_true(json_object_get(coll, "collection"))) {
                r = api_client_request(c, "DELETE", path, NULL, NULL, 0, &status, NULL, reterr);
                if (r < 0)
                        return r;
                if (status != 200)
                        return error_set(reterr, EIO, "DELETE %s: HTTP %ld", path, status);
        }
        r = api_client_get_json(c, path, &list, reterr);
        if (r < 0)
                return r;
        if (!json_is_true(json_object_get(coll, "collection"))) {
                json_array_foreach(json_object_get(list, "items"), i, item) {
                        cleanup_free char *one = xasprintf(
                                "%s/%s", path, json_path_string_or_empty(item, "metadata.name"));

                        r = api_client_request(c, "DELETE", one, NULL, NULL, 0, &status, NULL,
                                               reterr);
                        if (r < 0)
                                return r;
                }
        }
        return (int) json_array_size(json_object_get(list, "items"));
}

/* The namespace without its finalizer, as the body of namespaces/finalize. */
static json_t *without_finalizer(const json_t *ns)
{
        json_t *out = json_deep_copy(ns), *kept = json_array();
        size_t i;
        json_t *f;

        json_array_foreach(json_path(ns, "spec.finalizers"), i, f) {
                if (!streq(json_string_value(f) ?: "", NAMESPACE_FINALIZER))
                        json_array_append(kept, f);
        }
        json_object_set_new(json_object_ensure(out, "spec"), "finalizers", kept);
        return out;
}

/* One step for a terminating namespace: 1 when it is finalized and deleted, 0 when content is
 * still going, -errno on failure. */
static int empty_namespace(struct api_client *c, const json_t *ns, struct error **reterr)
{
        const char *name = json_path_string_or_empty(ns, "metadata.name");
        cleanup_json json_t *colls = NULL, *finalized = NULL;
        cleanup_free char *body = NULL, *path = NULL;
        long status = 0;
        size_t i, left = 0;
        json_t *coll;
        int r;

        r = discover_collections(c, name, &colls, reterr);
        if (r < 0)
                return r;
        json_array_foreach(colls, i, coll) {
                r = empty_collection(c, coll, reterr);
                if (r < 0)
                        return r;
                left += (size_t) r;
        }
        if (left)
                return 0;
        finalized = without_finalizer(ns);
        body = json_dumps(finalized, JSON_COMPACT);
        path = xasprintf("/api/v1/namespaces/%s/finalize", name);
        r = api_client_request(c, "PUT", path, NULL, body, strlen(body), &status, NULL, reterr);
        if (r < 0)
                return r;
        if (status != 200)
                return error_set(reterr, EIO, "PUT %s: HTTP %ld", path, status);
        free(path);
        path = xasprintf("/api/v1/namespaces/%s", name);
        r = api_client_request(c, "DELETE", path, NULL, NULL, 0, &status, NULL, reterr);
        if (r < 0)
                return r;
        /* 404: gone already, as wanted */
        if (status != 200 && status != 404)
                return error_set(reterr, EIO, "DELETE %s: HTTP %ld", path, status);
        return 1;
}

static void namespace_pass(void *ctx)
{
        struct namespace_controller *x = ctx;
        cleanup_json json_t *namespaces = informer_snapshot(x->loop.watch, 0);
        const char *key;
        json_t *ns, *tmp;

        json_object_foreach(namespaces, key, ns) {
                const char *name = json_path_string_or_empty(ns, "metadata.name");
                cleanup_error struct error *err = NULL;

                if (!namespace_needs_emptying(ns) ||
                    controller_backoff_waiting(x->backoff, name, NULL))
                        continue;
                if (empty_namespace(x->loop.client, ns, &err) < 0)
                        controller_backoff_failed(x->backoff, name, NULL, BACKOFF_MIN_MS,
                                                  BACKOFF_MAX_MS);
                else
                        json_object_del(x->backoff, name);
        }
        /* the informer keys a cluster-scoped object by its name */
        json_object_foreach_safe(x->backoff, tmp, key, ns)
        {
                if (!json_object_get(namespaces, key))
                        json_object_del(x->backoff, key);
        }
}

static void namespace_controller_release(void *ctx)
{
        struct namespace_controller *x = ctx;

        json_decref(x->backoff);
        free(x);
}

int namespace_controller_start(const struct api_client_options *o,
                               struct namespace_controller **ret, struct error **reterr)
{
        static const char *const paths[] = { "/api/v1/namespaces", NULL };
        const struct controller_loop_def def = { .name = "namespace",
                                                 .paths = paths,
                                                 .period_ms = PASS_PERIOD_MS,
                                                 .pass = namespace_pass,
                                                 .release = namespace_controller_release };
        struct namespace_controller *x = xcalloc(1, sizeof(*x));
        int r;

        x->backoff = json_object();
        r = controller_loop_start(o, &def, x, &x->loop, reterr);
        if (r < 0) {
                namespace_controller_release(x);
                return r;
        }
        *ret = x;
        return 0;
}

struct namespace_controller *namespace_controller_stop(struct namespace_controller *x)
{
        /* the pass thread ends after the pass it is in and frees the controller */
        if (x)
                controller_loop_stop(&x->loop);
        return NULL;
}
