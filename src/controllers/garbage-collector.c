/* garbage-collector.c: the garbage collector (garbage-collector.h): the graph of owners and
 * dependents and the plan over it (pure), and the pass that confirms absent owners with the
 * server and carries the plan out through the API. Which resources it watches comes from
 * discovery, so it holds no list of kinds. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/owner.h"
#include "base/alloc.h"
#include "base/json.h"
#include "controllers/controller-loop.h"
#include "controllers/garbage-collector.h"
#include "controllers/relevance.h"

/* Besides every change of a watched object: a failed action is tried again within this. */
#define PASS_PERIOD_MS 5000

/* ---- the graph and the plan (pure) ---- */

static const char *meta_string(const json_t *obj, const char *key)
{
        return json_string_value(json_object_get(json_object_get(obj, "metadata"), key)) ?: "";
}

static bool has_finalizer(const json_t *obj, const char *f)
{
        return json_array_has_string(json_path(obj, "metadata.finalizers"), f);
}

static bool being_deleted(const json_t *obj)
{
        return json_path(obj, "metadata.deletionTimestamp") != NULL;
}

/* K8S: node.isDeletingDependents: being deleted with the Foreground policy. */
static bool deleting_dependents(const json_t *obj)
{
        return being_deleted(obj) && has_finalizer(obj, GC_FINALIZER_FOREGROUND);
}

/* The group of an apiVersion, compared without allocating: "apps/v1" and "apps/v2" agree. */
static bool same_group(const char *a, const char *b)
{
        const char *sa = strchr(a, '/'), *sb = strchr(b, '/');
        size_t la = sa ? (size_t) (sa - a) : 0, lb = sb ? (size_t) (sb - b) : 0;

        return la == lb && strncmp(a, b, la) == 0;
}

/* The item ref names, or -1 when the graph does not hold it: the uid must be there, and the
 * object under it must be of the kind, group and name the reference says and, for a namespaced
 * owner, in the dependent's namespace (K8S: an ownerReference names an owner in its
 * dependent's namespace or a cluster-scoped one). */
static long owner_index(const struct gc_item *items, const json_t *by_uid, const json_t *dependent,
                        const json_t *ref)
{
        const json_t *idx =
                json_object_get(by_uid, json_string_value(json_object_get(ref, "uid")) ?: "");
        const json_t *owner;
        const char *ns;

        if (!idx)
                return -1;
        owner = items[json_integer_value(idx)].obj;
        ns = meta_string(owner, "namespace");
        if (!streq(json_string_value(json_object_get(owner, "kind")) ?: "",
                   json_string_value(json_object_get(ref, "kind")) ?: "") ||
            !same_group(json_string_value(json_object_get(owner, "apiVersion")) ?: "",
                        json_string_value(json_object_get(ref, "apiVersion")) ?: "") ||
            !streq(meta_string(owner, "name"),
                   json_string_value(json_object_get(ref, "name")) ?: "") ||
            (*ns && !streq(ns, meta_string(dependent, "namespace"))))
                return -1;
        return (long) json_integer_value(idx);
}

/* The references of the dependents to owner uid, as [[item, ref]...] (borrowed from deps). */
static const json_t *dependents_of(const json_t *deps, const char *uid)
{
        return json_object_get(deps, uid);
}

static json_t *action(const char *verb, size_t item)
{
        return json_pack("{s:s, s:I}", "verb", verb, "item", (json_int_t) item);
}

/* K8S: attemptToDeleteItem's classification (classifyReferences) and decision for an object
 * not being deleted that has owners. */
static void plan_dependent(const struct gc_item *items, size_t i, const json_t *by_uid,
                           const json_t *deps, json_t *plan)
{
        const json_t *obj = items[i].obj;
        cleanup_json json_t *absent = json_array(), *remove = json_array();
        size_t j, solid = 0, waiting = 0;
        json_t *ref, *a;
        const char *policy;

        json_array_foreach(json_path(obj, "metadata.ownerReferences"), j, ref) {
                long o = owner_index(items, by_uid, obj, ref);
                json_t *uid = json_object_get(ref, "uid");

                if (o < 0) {
                        json_array_append(absent, ref);
                        json_array_append(remove, uid);
                } else if (deleting_dependents(items[o].obj)) {
                        waiting++;
                        json_array_append(remove, uid);
                } else {
                        solid++;
                }
        }
        if (solid) {
                /* K8S: the dangling and waiting references go, the object stays */
                if (!json_array_size(remove))
                        return;
                a = action("removeOwnerReferences", i);
                json_object_set(a, "uids", remove);
                json_object_set(a, "absent", absent);
                json_array_append_new(plan, a);
                return;
        }
        if (waiting && json_array_size(dependents_of(deps, meta_string(obj, "uid"))))
                /* K8S: an owner waits for it, and it has dependents of its own: they go first */
                policy = "Foreground";
        else if (has_finalizer(obj, GC_FINALIZER_ORPHAN))
                policy = "Orphan";
        else if (has_finalizer(obj, GC_FINALIZER_FOREGROUND))
                policy = "Foreground";
        else
                policy = "Background";
        a = action("delete", i);
        json_object_set_new(a, "propagationPolicy", json_string(policy));
        json_object_set(a, "absent", absent);
        json_array_append_new(plan, a);
}

/* An owner being deleted with the Orphan or the Foreground policy (K8S: attemptToOrphanWorker,
 * processDeletingDependentsItem). */
static void plan_owner(const struct gc_item *items, size_t i, const json_t *deps, json_t *plan)
{
        const json_t *obj = items[i].obj;
        const json_t *mine = dependents_of(deps, meta_string(obj, "uid"));
        size_t j;
        json_t *d, *a;

        if (has_finalizer(obj, GC_FINALIZER_ORPHAN)) {
                json_array_foreach(mine, j, d) {
                        a = action("removeOwnerReferences",
                                   (size_t) json_integer_value(json_array_get(d, 0)));
                        json_object_set_new(a, "uids", json_pack("[s]", meta_string(obj, "uid")));
                        json_object_set_new(a, "absent", json_array());
                        json_array_append_new(plan, a);
                }
                if (!json_array_size(mine)) {
                        a = action("removeFinalizer", i);
                        json_object_set_new(a, "finalizer", json_string(GC_FINALIZER_ORPHAN));
                        json_array_append_new(plan, a);
                }
                return;
        }
        if (!has_finalizer(obj, GC_FINALIZER_FOREGROUND))
                return;
        /* K8S: blockingDependents: the dependents whose reference has blockOwnerDeletion */
        json_array_foreach(mine, j, d) {
                if (json_is_true(json_object_get(json_array_get(d, 1), "blockOwnerDeletion")))
                        return;
        }
        a = action("removeFinalizer", i);
        json_object_set_new(a, "finalizer", json_string(GC_FINALIZER_FOREGROUND));
        json_array_append_new(plan, a);
}

json_t *gc_plan(const struct gc_item *items, size_t n)
{
        cleanup_json json_t *by_uid = json_object(), *deps = json_object();
        json_t *plan = json_array(), *ref;
        size_t i, j;

        for (i = 0; i < n; i++) {
                const char *uid = meta_string(items[i].obj, "uid");

                if (*uid)
                        json_object_set_new(by_uid, uid, json_integer((json_int_t) i));
        }
        /* K8S: the graph links a dependent to its owner by the owner's uid alone */
        for (i = 0; i < n; i++) {
                json_array_foreach(json_path(items[i].obj, "metadata.ownerReferences"), j, ref) {
                        const char *uid = json_string_value(json_object_get(ref, "uid"));
                        json_t *list;

                        if (!uid || !*uid)
                                continue;
                        list = json_object_get(deps, uid);
                        if (!list) {
                                list = json_array();
                                json_object_set_new(deps, uid, list);
                        }
                        json_array_append_new(list, json_pack("[I, O]", (json_int_t) i, ref));
                }
        }
        for (i = 0; i < n; i++) {
                const json_t *obj = items[i].obj;

                if (being_deleted(obj))
                        /* K8S: an object on its way out is not collected, but an owner waiting
                         * for its dependents or for their orphaning is seen through */
                        plan_owner(items, i, deps, plan);
                else if (json_array_size(json_path(obj, "metadata.ownerReferences")))
                        plan_dependent(items, i, by_uid, deps, plan);
        }
        return plan;
}

/* ---- the controller ---- */

struct gc_resource {
        char *prefix; /* "/api/v1", "/apis/batch/v1" */
        char *group;
        char *plural;
        char *kind;
        bool namespaced;
};

struct garbage_collector {
        struct controller_loop loop;
        struct gc_resource *resources;
        size_t n_resources;
};

/* K8S: GetDeletableResources (verbs delete, list and watch), less the ignored events. */
static void add_resources(void *ctx, const json_t *list, const char *prefix, const char *group)
{
        struct garbage_collector *x = ctx;
        size_t i;
        json_t *r;

        json_array_foreach(json_object_get(list, "resources"), i, r) {
                const char *name = json_path_string_or_empty(r, "name");
                const json_t *verbs = json_object_get(r, "verbs");
                struct gc_resource *g;

                if (!*name || strchr(name, '/') || streq(name, "events") ||
                    !json_array_has_string(verbs, "delete") ||
                    !json_array_has_string(verbs, "list") || !json_array_has_string(verbs, "watch"))
                        continue;
                x->resources = xrealloc(x->resources, (x->n_resources + 1) * sizeof(*x->resources));
                g = &x->resources[x->n_resources++];
                g->prefix = xstrdup(prefix);
                g->group = xstrdup(group);
                g->plural = xstrdup(name);
                g->kind = xstrdup(json_path_string_or_empty(r, "kind"));
                g->namespaced = json_is_true(json_object_get(r, "namespaced"));
        }
}

static const struct gc_resource *resource_for(const struct garbage_collector *x,
                                              const char *api_version, const char *kind)
{
        cleanup_free char *group = owner_api_group(api_version);

        for (size_t i = 0; i < x->n_resources; i++)
                if (streq(x->resources[i].group, group) && streq(x->resources[i].kind, kind))
                        return &x->resources[i];
        return NULL;
}

static char *object_path(const struct gc_resource *g, const char *ns, const char *name)
{
        if (g->namespaced)
                return xasprintf("%s/namespaces/%s/%s/%s", g->prefix, ns, g->plural, name);
        return xasprintf("%s/%s/%s", g->prefix, g->plural, name);
}

/* K8S: isDangling: whether every owner the graph did not hold is gone from the server (404,
 * or another object under its name: another uid). 1 when they all are, 0 when one is there,
 * -errno when one cannot be read (a kind discovery does not know, a namespaced owner of a
 * cluster-scoped object, a failed request): the action waits. */
static int owners_gone(struct garbage_collector *x, const json_t *dependent, const json_t *absent)
{
        size_t i;
        json_t *ref;

        json_array_foreach(absent, i, ref) {
                const struct gc_resource *g =
                        resource_for(x, json_path_string_or_empty(ref, "apiVersion"),
                                     json_path_string_or_empty(ref, "kind"));
                cleanup_error struct error *err = NULL;
                cleanup_json json_t *owner = NULL;
                cleanup_free char *path = NULL;
                const char *ns = json_path_string_or_empty(dependent, "metadata.namespace");
                long status = 0;

                if (!g || (g->namespaced && !*ns))
                        return -ENOENT;
                path = object_path(g, ns, json_path_string_or_empty(ref, "name"));
                if (api_client_request(x->loop.client, "GET", path, NULL, NULL, 0, &status, &owner,
                                       &err) < 0)
                        return -EIO;
                if (status == 404)
                        continue;
                if (status != 200)
                        return -EIO;
                if (streq(json_path_string_or_empty(owner, "metadata.uid"),
                          json_path_string_or_empty(ref, "uid")))
                        return 0;
        }
        return 1;
}

/* A merge patch of one metadata list (ownerReferences or finalizers) to what is left of it, on
 * the version the plan saw (a resourceVersion precondition: a conflict has the next pass come
 * soon, by when the cache holds the newer version). */
static void patch_metadata_list(struct garbage_collector *x, const struct gc_resource *g,
                                const json_t *obj, const char *key, json_t *left)
{
        cleanup_free char *path =
                object_path(g, json_path_string_or_empty(obj, "metadata.namespace"),
                            json_path_string_or_empty(obj, "metadata.name"));
        cleanup_json json_t *patch =
                json_pack("{s:{s:s, s:o}}", "metadata", "resourceVersion",
                          json_path_string_or_empty(obj, "metadata.resourceVersion"), key,
                          json_array_size(left) ? json_incref(left) : json_null());
        cleanup_free char *text = json_dump_compact(patch);
        cleanup_error struct error *err = NULL;
        long status = 0;

        if (api_client_request(x->loop.client, "PATCH", path, "application/merge-patch+json", text,
                               strlen(text), &status, NULL, &err) == 0 &&
            status == 409)
                controller_loop_pass_within(&x->loop, CONTROLLER_CONFLICT_RETRY_MS);
}

static void run_action(struct garbage_collector *x, const struct gc_item *items, const json_t *act)
{
        const struct gc_item *it = &items[json_integer_value(json_object_get(act, "item"))];
        const struct gc_resource *g = &x->resources[it->resource];
        const char *verb = json_path_string_or_empty(act, "verb");
        const json_t *absent = json_object_get(act, "absent");
        cleanup_json json_t *left = json_array();
        size_t i;
        json_t *v;

        if (json_array_size(absent) && owners_gone(x, it->obj, absent) != 1)
                return;
        if (streq(verb, "delete")) {
                cleanup_free char *path =
                        object_path(g, json_path_string_or_empty(it->obj, "metadata.namespace"),
                                    json_path_string_or_empty(it->obj, "metadata.name"));
                /* K8S: deleteObject: with a uid precondition, so a new object of the same
                 * name is not taken for the one the plan saw */
                cleanup_json json_t *opts = json_pack(
                        "{s:s, s:s, s:s, s:{s:s}}", "kind", "DeleteOptions", "apiVersion", "v1",
                        "propagationPolicy", json_path_string_or_empty(act, "propagationPolicy"),
                        "preconditions", "uid", json_path_string_or_empty(it->obj, "metadata.uid"));
                cleanup_free char *text = json_dump_compact(opts);
                cleanup_error struct error *err = NULL;
                long status = 0;

                (void) api_client_request(x->loop.client, "DELETE", path, NULL, text, strlen(text),
                                          &status, NULL, &err);
        } else if (streq(verb, "removeOwnerReferences")) {
                json_array_foreach(json_path(it->obj, "metadata.ownerReferences"), i, v) {
                        const char *uid = json_path_string_or_empty(v, "uid");
                        bool drop = false;
                        size_t k;
                        json_t *u;

                        json_array_foreach(json_object_get(act, "uids"), k, u)
                                drop |= streq(json_string_value(u) ?: "", uid);
                        if (!drop)
                                json_array_append(left, v);
                }
                patch_metadata_list(x, g, it->obj, "ownerReferences", left);
        } else if (streq(verb, "removeFinalizer")) {
                const char *f = json_path_string_or_empty(act, "finalizer");

                json_array_foreach(json_path(it->obj, "metadata.finalizers"), i, v) {
                        if (!streq(json_string_value(v) ?: "", f))
                                json_array_append(left, v);
                }
                patch_metadata_list(x, g, it->obj, "finalizers", left);
        }
}

static void gc_pass(void *ctx)
{
        struct garbage_collector *x = ctx;
        cleanup_json json_t *snaps = json_array(), *plan = NULL;
        cleanup_free struct gc_item *items = NULL;
        size_t n = 0, cap = 0, i;
        const char *key;
        json_t *obj, *act;

        for (i = 0; i < x->n_resources; i++) {
                json_t *snap = informer_snapshot(x->loop.watch, i);

                json_array_append_new(snaps, snap);
                json_object_foreach(snap, key, obj) {
                        if (n == cap) {
                                cap = cap ? 2 * cap : 64;
                                items = xrealloc(items, cap * sizeof(*items));
                        }
                        items[n++] = (struct gc_item){ .obj = obj, .resource = i };
                }
        }
        plan = gc_plan(items, n);
        json_array_foreach(plan, i, act)
                run_action(x, items, act);
}

static void gc_release(void *ctx)
{
        struct garbage_collector *x = ctx;

        for (size_t i = 0; i < x->n_resources; i++) {
                free(x->resources[i].prefix);
                free(x->resources[i].group);
                free(x->resources[i].plural);
                free(x->resources[i].kind);
        }
        free(x->resources);
        free(x);
}

int garbage_collector_start(const struct api_client_options *o, struct garbage_collector **ret,
                            struct error **reterr)
{
        struct garbage_collector *x = xcalloc(1, sizeof(*x));
        struct api_client *c = NULL;
        cleanup_free const char **paths = NULL;
        cleanup_free informer_relevant_fn *relevant = NULL;
        int r;

        r = api_client_new(o, &c, reterr);
        if (r < 0) {
                gc_release(x);
                return r;
        }
        /* K8S: the preferred version of every group, as the collector's discovery reads them */
        r = api_client_preferred_resources(c, add_resources, x, reterr);
        api_client_free(c);
        if (r < 0) {
                gc_release(x);
                return error_wrap(reterr, "garbage collector: discovery");
        }
        paths = xcalloc(x->n_resources + 1, sizeof(*paths));
        relevant = xcalloc(x->n_resources + 1, sizeof(*relevant));
        for (size_t i = 0; i < x->n_resources; i++) {
                paths[i] = xasprintf("%s/%s", x->resources[i].prefix, x->resources[i].plural);
                /* the graph is made of ownerReferences, finalizers and deletions alone */
                relevant[i] = relevance_ownership;
        }
        {
                const struct controller_loop_def def = { .name = "garbage-collect",
                                                         .paths = paths,
                                                         .relevant = relevant,
                                                         .period_ms = PASS_PERIOD_MS,
                                                         .pass = gc_pass,
                                                         .release = gc_release };

                r = controller_loop_start(o, &def, x, &x->loop, reterr);
        }
        for (size_t i = 0; i < x->n_resources; i++)
                free((char *) paths[i]);
        if (r < 0) {
                gc_release(x);
                return r;
        }
        *ret = x;
        return 0;
}

struct garbage_collector *garbage_collector_stop(struct garbage_collector *x)
{
        if (x)
                controller_loop_stop(&x->loop);
        return NULL;
}
