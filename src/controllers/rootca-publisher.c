/* rootca-publisher.c: the root CA publisher (see rootca-publisher.h): the pure decision (which
 * namespaces lack the ConfigMap or hold a changed one) and the pass that writes them through the
 * API. The CA is given at start; rotating it is not flexlet's yet. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/json.h"
#include "controllers/controller-loop.h"
#include "controllers/rootca-publisher.h"

/* K8S: the publisher's informers resync; a missed event costs at most this */
#define PASS_PERIOD_MS 30000
#define BACKOFF_MIN_MS 1000
#define BACKOFF_MAX_MS (60 * 1000)

enum { COL_NAMESPACES, COL_CONFIG_MAPS };

struct rootca_publisher {
        struct controller_loop loop;
        char *ca_pem;
        json_t *backoff; /* namespace -> controller_backoff entry */
};

/* Whether cm is as the publisher writes it: data exactly {ca.crt}, the annotation not empty
 * (binaryData is not looked at, as upstream). */
static bool config_map_right(const json_t *cm, const char *ca_pem)
{
        const json_t *data = json_object_get(cm, "data");
        const char *desc = json_string_value(json_object_get(json_path(cm, "metadata.annotations"),
                                                             ROOTCA_DESCRIPTION_ANNOTATION));

        /* K8S: reflect.DeepEqual(cm.Data, data) && len(annotation) > 0 */
        return json_object_size(data) == 1 &&
               streq(json_string_value(json_object_get(data, "ca.crt")) ?: "", ca_pem) && desc &&
               *desc;
}

json_t *rootca_publisher_plan(const json_t *namespaces, const json_t *config_maps,
                              const char *ca_pem)
{
        json_t *out = json_array();
        const char *key;
        json_t *ns;

        json_object_foreach((json_t *) namespaces, key, ns) {
                const char *name = json_path_string_or_empty(ns, "metadata.name");
                cleanup_free char *cm_key = NULL;
                const json_t *cm;
                json_t *obj, *meta, *ann;

                if (!*name || json_path(ns, "metadata.deletionTimestamp"))
                        continue;
                cm_key = xasprintf("%s/%s", name, ROOTCA_CONFIG_MAP_NAME);
                cm = json_object_get(config_maps, cm_key);
                if (cm && json_path(cm, "metadata.deletionTimestamp"))
                        continue;
                if (cm && config_map_right(cm, ca_pem))
                        continue;
                if (!cm) {
                        obj = json_pack("{s:s, s:s, s:{s:s, s:s, s:{s:s}}, s:{s:s}}", "apiVersion",
                                        "v1", "kind", "ConfigMap", "metadata", "name",
                                        ROOTCA_CONFIG_MAP_NAME, "namespace", name, "annotations",
                                        ROOTCA_DESCRIPTION_ANNOTATION, ROOTCA_DESCRIPTION, "data",
                                        "ca.crt", ca_pem);
                } else {
                        /* K8S: a copy with the data and the one annotation put back */
                        obj = json_deep_copy(cm);
                        json_object_set_new(obj, "data", json_pack("{s:s}", "ca.crt", ca_pem));
                        meta = json_object_ensure(obj, "metadata");
                        ann = json_object_get(meta, "annotations");
                        if (!json_is_object(ann)) {
                                ann = json_object();
                                json_object_set_new(meta, "annotations", ann);
                        }
                        json_object_set_new(ann, ROOTCA_DESCRIPTION_ANNOTATION,
                                            json_string(ROOTCA_DESCRIPTION));
                }
                json_array_append_new(out, json_pack("{s:s, s:b, s:o}", "namespace", name, "create",
                                                     !cm, "object", obj));
        }
        return out;
}

static int write_one(struct api_client *c, const json_t *w, struct error **reterr)
{
        const char *ns = json_string_value(json_object_get(w, "namespace"));
        bool create = json_is_true(json_object_get(w, "create"));
        cleanup_free char *path = create ? xasprintf("/api/v1/namespaces/%s/configmaps", ns)
                                         : xasprintf("/api/v1/namespaces/%s/configmaps/%s", ns,
                                                     ROOTCA_CONFIG_MAP_NAME);
        cleanup_free char *text = json_dump_compact(json_object_get(w, "object"));
        long status = 0;
        int r;

        r = api_client_request(c, create ? "POST" : "PUT", path, NULL, text, strlen(text), &status,
                               NULL, reterr);
        if (r < 0)
                return r;
        /* K8S: a create in a namespace gone or terminating (404, 403) is not retried; 409: made
         * or changed meanwhile, the event it caused brings the next pass */
        if (status == 200 || status == 201 || status == 409 ||
            (create && (status == 404 || status == 403)))
                return 0;
        return error_set(reterr, EIO, "%s %s: HTTP %ld", create ? "POST" : "PUT", path, status);
}

static void rootca_publisher_pass(void *ctx)
{
        struct rootca_publisher *x = ctx;
        cleanup_json json_t *namespaces = informer_snapshot(x->loop.watch, COL_NAMESPACES);
        cleanup_json json_t *maps = informer_snapshot(x->loop.watch, COL_CONFIG_MAPS);
        cleanup_json json_t *plan = rootca_publisher_plan(namespaces, maps, x->ca_pem);
        const char *key;
        size_t i;
        json_t *w, *tmp;

        json_array_foreach(plan, i, w) {
                const char *ns = json_string_value(json_object_get(w, "namespace"));
                cleanup_error struct error *err = NULL;

                if (controller_backoff_waiting(x->backoff, ns, NULL))
                        continue;
                if (write_one(x->loop.client, w, &err) < 0)
                        controller_backoff_failed(x->backoff, ns, NULL, BACKOFF_MIN_MS,
                                                  BACKOFF_MAX_MS);
                else
                        json_object_del(x->backoff, ns);
        }
        json_object_foreach_safe(x->backoff, tmp, key, w)
        {
                if (!json_object_get(namespaces, key))
                        json_object_del(x->backoff, key);
        }
}

static void rootca_publisher_release(void *ctx)
{
        struct rootca_publisher *x = ctx;

        json_decref(x->backoff);
        free(x->ca_pem);
        free(x);
}

int rootca_publisher_start(const struct api_client_options *o, const char *ca_pem,
                           struct rootca_publisher **ret, struct error **reterr)
{
        /* the ConfigMaps of this one name only: the informer holds no other */
        static const char *const paths[] = {
                [COL_NAMESPACES] = "/api/v1/namespaces",
                [COL_CONFIG_MAPS] =
                        "/api/v1/configmaps?fieldSelector=metadata.name%3D" ROOTCA_CONFIG_MAP_NAME,
                NULL
        };
        const struct controller_loop_def def = { .name = "root-ca-publish",
                                                 .paths = paths,
                                                 .period_ms = PASS_PERIOD_MS,
                                                 .pass = rootca_publisher_pass,
                                                 .release = rootca_publisher_release };
        struct rootca_publisher *x = xcalloc(1, sizeof(*x));
        int r;

        x->ca_pem = xstrdup(ca_pem);
        x->backoff = json_object();
        r = controller_loop_start(o, &def, x, &x->loop, reterr);
        if (r < 0) {
                rootca_publisher_release(x);
                return r;
        }
        *ret = x;
        return 0;
}

struct rootca_publisher *rootca_publisher_stop(struct rootca_publisher *x)
{
        if (x)
                controller_loop_stop(&x->loop);
        return NULL;
}
