/* node-lifecycle.c: keeps the unschedulable NoSchedule taint of every node in step with
 * spec.unschedulable (what `kubectl cordon` sets): the pure decision, and the pass that patches
 * the node's spec.taints, guarded by its resourceVersion. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/json.h"
#include "controllers/controller-loop.h"
#include "controllers/node-lifecycle.h"

#define PASS_PERIOD_MS 30000

struct node_lifecycle_controller {
        struct controller_loop loop;
};

static bool is_unschedulable_taint(const json_t *t)
{
        return streq(json_string_value(json_object_get(t, "key")) ?: "",
                     TAINT_NODE_UNSCHEDULABLE) &&
               streq(json_string_value(json_object_get(t, "effect")) ?: "", "NoSchedule");
}

json_t *node_lifecycle_taints(const json_t *node)
{
        const json_t *taints = json_path(node, "spec.taints");
        bool want = json_is_true(json_path(node, "spec.unschedulable")), have = false;
        json_t *out, *t;
        size_t i;

        json_array_foreach(taints, i, t)
                have |= is_unschedulable_taint(t);
        if (want == have)
                return NULL;
        out = json_array();
        json_array_foreach(taints, i, t) {
                if (!is_unschedulable_taint(t))
                        json_array_append(out, t);
        }
        /* K8S: UnschedulableTaintTemplate: no value, no timeAdded */
        if (want)
                json_array_append_new(out, json_pack("{s:s, s:s}", "key", TAINT_NODE_UNSCHEDULABLE,
                                                     "effect", "NoSchedule"));
        return out;
}

static void node_lifecycle_pass(void *ctx)
{
        struct node_lifecycle_controller *x = ctx;
        cleanup_json json_t *nodes = informer_snapshot(x->loop.watch, 0);
        const char *key;
        json_t *node;

        json_object_foreach(nodes, key, node) {
                cleanup_json json_t *taints = node_lifecycle_taints(node), *patch = NULL;
                cleanup_json json_t *answer = NULL;
                cleanup_error struct error *err = NULL;
                cleanup_free char *path = NULL, *text = NULL;
                long status = 0;

                if (!taints)
                        continue;
                /* the resourceVersion makes the patch fail (409) if the node changed since it
                 * was read; its next event brings another pass */
                patch = json_pack("{s:{s:s}, s:{s:O}}", "metadata", "resourceVersion",
                                  json_path_string(node, "metadata.resourceVersion") ?: "", "spec",
                                  "taints", taints);
                if (json_array_size(taints) == 0)
                        json_object_set_new(json_object_get(patch, "spec"), "taints", json_null());
                path = xasprintf("/api/v1/nodes/%s", key);
                text = json_dump_compact(patch);
                if (api_client_request(x->loop.client, "PATCH", path,
                                       "application/merge-patch+json", text, strlen(text), &status,
                                       &answer, &err) == 0 &&
                    status == 200 && answer)
                        informer_store(x->loop.watch, 0, answer);
        }
}

static void node_lifecycle_release(void *ctx)
{
        free(ctx);
}

int node_lifecycle_controller_start(const struct api_client_options *o,
                                    struct node_lifecycle_controller **ret, struct error **reterr)
{
        static const char *const paths[] = { "/api/v1/nodes", NULL };
        const struct controller_loop_def def = { .paths = paths,
                                                 .period_ms = PASS_PERIOD_MS,
                                                 .pass = node_lifecycle_pass,
                                                 .release = node_lifecycle_release };
        struct node_lifecycle_controller *x = xcalloc(1, sizeof(*x));
        int r;

        r = controller_loop_start(o, &def, x, &x->loop, reterr);
        if (r < 0) {
                node_lifecycle_release(x);
                return r;
        }
        *ret = x;
        return 0;
}

struct node_lifecycle_controller *
node_lifecycle_controller_stop(struct node_lifecycle_controller *x)
{
        if (x)
                controller_loop_stop(&x->loop);
        return NULL;
}
