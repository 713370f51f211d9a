/* node-lifecycle.c: the node lifecycle and taint eviction controllers (node-lifecycle.h): the
 * pure decisions (which taints a node should carry, which conditions turn Unknown, how long a
 * pod may stay on a tainted node) and the pass that applies them: node health from the leases
 * and heartbeats seen, zone states, the rate-limited NoExecute tainting, marking pods not Ready
 * and deleting the pods the taints evict. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/json.h"
#include "base/timeutil.h"
#include "client/event.h"
#include "controllers/controller-loop.h"
#include "controllers/node-lifecycle.h"
#include "controllers/relevance.h"

/* K8S: the node lifecycle controller's event source (EventSource{Component: "node-controller"})
 * and the taint eviction controller's ("taint-eviction-controller"). */
#define NODE_EVENT_COMPONENT  "node-controller"
#define EVICT_EVENT_COMPONENT "taint-eviction-controller"
/* K8S: --node-eviction-rate (nodes per second per zone whose NoExecute taints may be added),
 * --unhealthy-zone-threshold, --large-cluster-size-threshold, --secondary-node-eviction-rate. */
#define EVICTION_LIMITER_QPS         0.1
#define SECONDARY_EVICTION_QPS       0.01
#define UNHEALTHY_ZONE_THRESHOLD     0.55
#define LARGE_CLUSTER_SIZE_THRESHOLD 50
/* K8S: labelNodeDisruptionExclusion */
#define LABEL_EXCLUDE_DISRUPTION "node.kubernetes.io/exclude-disruption"

enum { COL_NODES, COL_LEASES, COL_PODS };

struct node_lifecycle_controller {
        struct controller_loop loop;
        struct node_lifecycle_options opts;
        /* node name -> {"heartbeat", "renew", "probe" (ms), "ready"}: upstream's nodeHealthMap,
         * the times are this process's monotonic clock, so skew between machines does not
         * matter */
        json_t *health;
        /* zone -> {"tokens", "at" (ms)}: a token bucket per zone for adding NoExecute taints */
        json_t *limiters;
        /* "ns/name" -> {"since" (ms), "uid"}: pods whose eviction is counted down */
        json_t *evictions;
        bool all_fully_disrupted;
};

/* ---- the pure decisions ---- */

static const char *str_field(const json_t *o, const char *key)
{
        return json_string_value(json_object_get(o, key)) ?: "";
}

static const json_t *condition(const json_t *node, const char *type)
{
        size_t i;
        json_t *c;

        json_array_foreach(json_path(node, "status.conditions"), i, c) {
                if (streq(str_field(c, "type"), type))
                        return c;
        }
        return NULL;
}

static const char *condition_status(const json_t *node, const char *type)
{
        const json_t *c = condition(node, type);

        return c ? str_field(c, "status") : NULL;
}

static const json_t *find_taint(const json_t *taints, const char *key, const char *effect);

/* K8S: nodeConditionToTaintKeyStatusMap, the unschedulable taint, and the NoExecute
 * templates: whether the node wants key with effect, given what the NoExecute pass allows. */
static bool wants_taint(const json_t *node, const char *key, const char *effect,
                        enum no_execute_tainting no_execute)
{
        const char *ready = condition_status(node, "Ready");
        bool no_sched = streq(effect, "NoSchedule");

        if (streq(key, TAINT_NODE_UNSCHEDULABLE))
                return no_sched && json_is_true(json_path(node, "spec.unschedulable"));
        if (streq(key, TAINT_NODE_NOT_READY) || streq(key, TAINT_NODE_UNREACHABLE)) {
                const char *want = streq(key, TAINT_NODE_NOT_READY) ? "False" : "Unknown";
                bool cond = ready && streq(ready, want);

                const json_t *taints = json_path(node, "spec.taints");

                if (no_sched)
                        return cond;
                if (!cond || no_execute == NO_EXECUTE_CLEAR)
                        return false;
                /* K8S: a not-ready taint becomes unreachable (and back) at once, whatever the
                 * rate limiter says; a node that has neither waits for it */
                return no_execute == NO_EXECUTE_ADD ||
                       find_taint(taints, TAINT_NODE_NOT_READY, "NoExecute") ||
                       find_taint(taints, TAINT_NODE_UNREACHABLE, "NoExecute");
        }
        if (!no_sched)
                return false;
        if (streq(key, TAINT_NODE_MEMORY_PRESSURE))
                return streq(condition_status(node, "MemoryPressure") ?: "", "True");
        if (streq(key, TAINT_NODE_DISK_PRESSURE))
                return streq(condition_status(node, "DiskPressure") ?: "", "True");
        if (streq(key, TAINT_NODE_PID_PRESSURE))
                return streq(condition_status(node, "PIDPressure") ?: "", "True");
        if (streq(key, TAINT_NODE_NETWORK_UNAVAILABLE))
                return streq(condition_status(node, "NetworkUnavailable") ?: "", "True");
        return false;
}

static const struct {
        const char *key, *effect;
} managed_taints[] = {
        { TAINT_NODE_UNSCHEDULABLE, "NoSchedule" },
        { TAINT_NODE_NOT_READY, "NoSchedule" },
        { TAINT_NODE_UNREACHABLE, "NoSchedule" },
        { TAINT_NODE_MEMORY_PRESSURE, "NoSchedule" },
        { TAINT_NODE_DISK_PRESSURE, "NoSchedule" },
        { TAINT_NODE_PID_PRESSURE, "NoSchedule" },
        { TAINT_NODE_NETWORK_UNAVAILABLE, "NoSchedule" },
        { TAINT_NODE_NOT_READY, "NoExecute" },
        { TAINT_NODE_UNREACHABLE, "NoExecute" },
};

static bool is_managed(const json_t *t)
{
        for (size_t i = 0; i < ARRAY_SIZE(managed_taints); i++)
                if (streq(str_field(t, "key"), managed_taints[i].key) &&
                    streq(str_field(t, "effect"), managed_taints[i].effect))
                        return true;
        return false;
}

static const json_t *find_taint(const json_t *taints, const char *key, const char *effect)
{
        size_t i;
        json_t *t;

        json_array_foreach(taints, i, t) {
                if (streq(str_field(t, "key"), key) && streq(str_field(t, "effect"), effect))
                        return t;
        }
        return NULL;
}

json_t *node_lifecycle_taints(const json_t *node, enum no_execute_tainting no_execute,
                              const char *now)
{
        const json_t *taints = json_path(node, "spec.taints");
        json_t *out = json_array(), *t;
        bool changed = false;
        size_t i;

        json_array_foreach(taints, i, t) {
                if (!is_managed(t))
                        json_array_append(out, t);
        }
        for (size_t k = 0; k < ARRAY_SIZE(managed_taints); k++) {
                const char *key = managed_taints[k].key, *effect = managed_taints[k].effect;
                const json_t *have = find_taint(taints, key, effect);
                bool want = wants_taint(node, key, effect, no_execute);

                if (have && want) {
                        json_array_append(out, (json_t *) have);
                } else if (want) {
                        json_t *nt = json_pack("{s:s, s:s}", "key", key, "effect", effect);

                        /* K8S: SwapNodeControllerTaint stamps timeAdded; the unschedulable
                         * template (UnschedulableTaintTemplate) is written without one */
                        if (!streq(key, TAINT_NODE_UNSCHEDULABLE))
                                json_object_set_new(nt, "timeAdded", json_string(now));
                        json_array_append_new(out, nt);
                        changed = true;
                } else if (have) {
                        changed = true;
                }
        }
        if (!changed) {
                json_decref(out);
                return NULL;
        }
        return out;
}

json_t *node_lifecycle_unknown_conditions(const json_t *node, const char *now)
{
        static const char *const types[] = { "Ready", "MemoryPressure", "DiskPressure",
                                             "PIDPressure" };
        json_t *conds = json_deep_copy(json_path(node, "status.conditions"));
        bool changed = false;

        if (!json_is_array(conds)) {
                json_decref(conds);
                conds = json_array();
        }
        for (size_t i = 0; i < ARRAY_SIZE(types); i++) {
                json_t *c = NULL;
                size_t j;
                json_t *it;

                json_array_foreach(conds, j, it) {
                        if (streq(str_field(it, "type"), types[i]))
                                c = it;
                }
                if (!c) {
                        json_array_append_new(
                                conds,
                                json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "type", types[i],
                                          "status", "Unknown", "reason", "NodeStatusNeverUpdated",
                                          "message", "Kubelet never posted node status.",
                                          "lastHeartbeatTime",
                                          json_path_string(node, "metadata.creationTimestamp")
                                                  ?: now,
                                          "lastTransitionTime", now));
                        changed = true;
                } else if (!streq(str_field(c, "status"), "Unknown")) {
                        json_object_set_new(c, "status", json_string("Unknown"));
                        json_object_set_new(c, "reason", json_string("NodeStatusUnknown"));
                        json_object_set_new(c, "message",
                                            json_string("Kubelet stopped posting node status."));
                        json_object_set_new(c, "lastTransitionTime", json_string(now));
                        changed = true;
                }
        }
        if (!changed) {
                json_decref(conds);
                return NULL;
        }
        return conds;
}

long long taint_eviction_seconds(const json_t *taints, const json_t *tolerations)
{
        long long min = -1;
        size_t i;
        json_t *taint;

        json_array_foreach(taints, i, taint) {
                /* K8S: GetMatchingTolerations takes the first toleration per taint */
                const json_t *tol, *secs;

                if (!streq(str_field(taint, "effect"), "NoExecute"))
                        continue;
                tol = taint_toleration(taint, tolerations);
                if (!tol)
                        return 0;
                /* K8S: getMinTolerationTime over the matching tolerations: one without
                 * tolerationSeconds tolerates forever, one of 0 or less not at all */
                secs = json_object_get(tol, "tolerationSeconds");
                if (json_is_integer(secs)) {
                        long long s = json_integer_value(secs);

                        if (s < 0)
                                s = 0;
                        if (min < 0 || s < min)
                                min = s;
                }
        }
        return min;
}

/* ---- the pass ---- */

static void now_rfc3339(char buf[static 32])
{
        time_format_rfc3339(time(NULL), buf);
}

static int64_t num(const json_t *o, const char *key)
{
        return json_integer_value(json_object_get(o, key));
}

/* K8S: tryUpdateNodeHealth: the probe time moves whenever the Ready heartbeat or the lease's
 * renewTime changes; past the grace period (the startup grace period is the same here) the
 * conditions go Unknown. Returns the Ready status after the pass ("" for none). */
static const char *update_node_health(struct node_lifecycle_controller *x, const char *name,
                                      json_t *node, int64_t now_ms)
{
        const json_t *ready = condition(node, "Ready");
        const char *heartbeat = ready ? str_field(ready, "lastHeartbeatTime") : "";
        cleanup_free char *lease_key = xasprintf("kube-node-lease/%s", name);
        cleanup_json json_t *lease = informer_get(x->loop.watch, COL_LEASES, lease_key);
        const char *renew = json_path_string(lease, "spec.renewTime") ?: "";
        json_t *h = json_object_get(x->health, name);
        if (!h) {
                h = json_pack("{s:s, s:s, s:I}", "heartbeat", heartbeat, "renew", renew, "probe",
                              (json_int_t) now_ms);
                json_object_set_new(x->health, name, h);
        } else {
                if (!streq(str_field(h, "heartbeat"), heartbeat)) {
                        json_object_set_new(h, "heartbeat", json_string(heartbeat));
                        json_object_set_new(h, "probe", json_integer(now_ms));
                }
                /* K8S: "Always update the probe time if node lease is renewed" */
                if (*renew && strcmp(renew, str_field(h, "renew")) > 0) {
                        json_object_set_new(h, "renew", json_string(renew));
                        json_object_set_new(h, "probe", json_integer(now_ms));
                }
        }
        if (now_ms > num(h, "probe") + x->opts.grace_period_ms) {
                char now[32];
                cleanup_json json_t *conds = NULL;

                now_rfc3339(now);
                conds = node_lifecycle_unknown_conditions(node, now);
                if (conds) {
                        cleanup_json json_t *patch = NULL, *answer = NULL;
                        cleanup_free char *path = xasprintf("/api/v1/nodes/%s/status", name);
                        cleanup_free char *text = NULL;
                        long status = 0;

                        /* the resourceVersion makes a write race with the kubelet's heartbeat
                         * fail (409); the next pass looks again */
                        patch = json_pack("{s:{s:s}, s:{s:O}}", "metadata", "resourceVersion",
                                          json_path_string(node, "metadata.resourceVersion") ?: "",
                                          "status", "conditions", conds);
                        text = json_dump_compact(patch);
                        if (api_client_request(x->loop.client, "PATCH", path,
                                               "application/merge-patch+json", text, strlen(text),
                                               &status, &answer, NULL) == 0 &&
                            status == 200 && answer) {
                                informer_store(x->loop.watch, COL_NODES, answer);
                                return "Unknown";
                        }
                }
        }
        return condition_status(node, "Ready") ?: "";
}

/* K8S: MarkPodsNotReady: the Ready condition of every pod on the node set False, with the
 * NodeNotReady event. */
static void mark_pods_not_ready(struct node_lifecycle_controller *x, const char *node_name,
                                const json_t *pods)
{
        const char *key;
        json_t *pod;

        json_object_foreach((json_t *) pods, key, pod) {
                cleanup_json json_t *conds = NULL, *patch = NULL, *answer = NULL;
                cleanup_free char *path = NULL, *text = NULL;
                long status = 0;
                char now[32];
                size_t i;
                json_t *c;
                bool found = false;

                if (!streq(json_path_string(pod, "spec.nodeName") ?: "", node_name))
                        continue;
                conds = json_deep_copy(json_path(pod, "status.conditions"));
                json_array_foreach(conds, i, c) {
                        if (streq(str_field(c, "type"), "Ready") &&
                            !streq(str_field(c, "status"), "False")) {
                                now_rfc3339(now);
                                json_object_set_new(c, "status", json_string("False"));
                                json_object_set_new(c, "lastTransitionTime", json_string(now));
                                found = true;
                        }
                }
                if (!found)
                        continue;
                patch = json_pack("{s:{s:s}, s:{s:O}}", "metadata", "resourceVersion",
                                  json_path_string(pod, "metadata.resourceVersion") ?: "", "status",
                                  "conditions", conds);
                path = xasprintf("/api/v1/namespaces/%s/pods/%s/status",
                                 json_path_string(pod, "metadata.namespace") ?: "",
                                 json_path_string(pod, "metadata.name") ?: "");
                text = json_dump_compact(patch);
                if (api_client_request(x->loop.client, "PATCH", path,
                                       "application/merge-patch+json", text, strlen(text), &status,
                                       &answer, NULL) == 0 &&
                    status == 200)
                        (void) api_client_event(x->loop.client, pod, "Warning", "NodeNotReady",
                                                "Node is not ready", NODE_EVENT_COMPONENT, NULL,
                                                NULL);
        }
}

/* K8S: zone key: region and zone labels (GetZoneKey). */
static char *zone_of(const json_t *node)
{
        const json_t *labels = json_path(node, "metadata.labels");

        return xasprintf("%s:\x1f:%s", str_field(labels, "topology.kubernetes.io/region"),
                         str_field(labels, "topology.kubernetes.io/zone"));
}

enum zone_state { ZONE_NORMAL, ZONE_PARTIAL, ZONE_FULL };

/* K8S: ComputeZoneState */
static enum zone_state zone_state(int ready, int not_ready)
{
        if (ready == 0 && not_ready > 0)
                return ZONE_FULL;
        if (not_ready > 2 && (double) not_ready / (ready + not_ready) >= UNHEALTHY_ZONE_THRESHOLD)
                return ZONE_PARTIAL;
        return ZONE_NORMAL;
}

/* Whether the zone's token bucket (burst 1) lets one more node have NoExecute taints added. */
static bool limiter_take(struct node_lifecycle_controller *x, const char *zone, double qps,
                         int64_t now_ms)
{
        json_t *b = json_object_get(x->limiters, zone);
        double tokens;

        if (qps <= 0)
                return false;
        if (!b) {
                b = json_pack("{s:f, s:I}", "tokens", 1.0, "at", (json_int_t) now_ms);
                json_object_set_new(x->limiters, zone, b);
        }
        tokens = json_real_value(json_object_get(b, "tokens")) +
                 (double) (now_ms - num(b, "at")) / 1000.0 * qps;
        if (tokens > 1.0)
                tokens = 1.0;
        json_object_set_new(b, "at", json_integer(now_ms));
        if (tokens < 1.0) {
                json_object_set_new(b, "tokens", json_real(tokens));
                return false;
        }
        json_object_set_new(b, "tokens", json_real(tokens - 1.0));
        return true;
}

static void write_taints(struct node_lifecycle_controller *x, const char *name, const json_t *node,
                         json_t *taints)
{
        cleanup_json json_t *patch = NULL, *answer = NULL;
        cleanup_free char *path = xasprintf("/api/v1/nodes/%s", name), *text = NULL;
        long status = 0;

        /* the resourceVersion makes the patch fail (409) if the node changed since it was
         * read; its next event brings another pass */
        patch = json_pack("{s:{s:s}, s:{s:O}}", "metadata", "resourceVersion",
                          json_path_string(node, "metadata.resourceVersion") ?: "", "spec",
                          "taints", taints);
        if (json_array_size(taints) == 0)
                json_object_set_new(json_object_get(patch, "spec"), "taints", json_null());
        text = json_dump_compact(patch);
        if (api_client_request(x->loop.client, "PATCH", path, "application/merge-patch+json", text,
                               strlen(text), &status, &answer, NULL) == 0 &&
            status == 200 && answer)
                informer_store(x->loop.watch, COL_NODES, answer);
}

/* K8S: addConditionAndDeletePod: the DisruptionTarget condition, then the delete. */
static void evict_pod(struct node_lifecycle_controller *x, const json_t *pod)
{
        const char *ns = json_path_string(pod, "metadata.namespace") ?: "";
        const char *name = json_path_string(pod, "metadata.name") ?: "";
        cleanup_free char *path = xasprintf("/api/v1/namespaces/%s/pods/%s", ns, name);
        cleanup_free char *spath = xasprintf("%s/status", path), *text = NULL, *msg = NULL;
        cleanup_free char *precondition = NULL;
        cleanup_json json_t *patch = NULL, *answer = NULL, *answer2 = NULL;
        long status = 0;
        char now[32];

        msg = xasprintf("Marking for deletion Pod %s/%s", ns, name);
        (void) api_client_event(x->loop.client, pod, "Normal", "TaintManagerEviction", msg,
                                EVICT_EVENT_COMPONENT, NULL, NULL);
        now_rfc3339(now);
        patch = json_pack("{s:{s:[{s:s, s:s, s:s, s:s, s:s}]}}", "status", "conditions", "type",
                          "DisruptionTarget", "status", "True", "reason", "DeletionByTaintManager",
                          "message", "Taint manager: deleting due to NoExecute taint",
                          "lastTransitionTime", now);
        text = json_dump_compact(patch);
        (void) api_client_request(x->loop.client, "PATCH", spath,
                                  "application/strategic-merge-patch+json", text, strlen(text),
                                  &status, &answer, NULL);
        /* the pod it decided about, not one of the same name made since */
        precondition = xasprintf("{\"kind\":\"DeleteOptions\",\"apiVersion\":\"v1\","
                                 "\"preconditions\":{\"uid\":\"%s\"}}",
                                 json_path_string(pod, "metadata.uid") ?: "");
        (void) api_client_request(x->loop.client, "DELETE", path, "application/json", precondition,
                                  strlen(precondition), &status, &answer2, NULL);
}

/* K8S: the taint eviction controller's processPodOnNode for every pod on a node. */
static void evict_pass(struct node_lifecycle_controller *x, const json_t *nodes, const json_t *pods,
                       int64_t now_ms)
{
        cleanup_json json_t *seen = json_object();
        const char *key;
        json_t *pod, *sched;
        void *tmp;

        json_object_foreach((json_t *) pods, key, pod) {
                const char *node_name = json_path_string(pod, "spec.nodeName");
                const json_t *node = node_name ? json_object_get(nodes, node_name) : NULL;
                long long secs;

                if (!node || json_path(pod, "metadata.deletionTimestamp"))
                        continue;
                secs = taint_eviction_seconds(json_path(node, "spec.taints"),
                                              json_path(pod, "spec.tolerations"));
                if (secs < 0)
                        continue;
                json_object_set_new(seen, key, json_true());
                sched = json_object_get(x->evictions, key);
                if (!sched ||
                    !streq(str_field(sched, "uid"), json_path_string(pod, "metadata.uid") ?: "")) {
                        sched = json_pack("{s:I, s:s}", "since", (json_int_t) now_ms, "uid",
                                          json_path_string(pod, "metadata.uid") ?: "");
                        json_object_set_new(x->evictions, key, sched);
                }
                if (now_ms >= num(sched, "since") + secs * 1000) {
                        evict_pod(x, pod);
                        json_object_del(x->evictions, key);
                } else {
                        controller_loop_pass_within(
                                &x->loop, (long) (num(sched, "since") + secs * 1000 - now_ms));
                }
        }
        /* K8S: cancelWorkWithEvent when the taints are gone or the pod is */
        json_object_foreach_safe(x->evictions, tmp, key, sched)
        {
                if (json_object_get(seen, key))
                        continue;
                pod = json_object_get((json_t *) pods, key);
                if (pod && !json_path(pod, "metadata.deletionTimestamp")) {
                        cleanup_free char *msg = xasprintf("Cancelling deletion of Pod %s", key);

                        (void) api_client_event(x->loop.client, pod, "Normal",
                                                "TaintManagerEviction", msg, EVICT_EVENT_COMPONENT,
                                                NULL, NULL);
                }
                json_object_del(x->evictions, key);
        }
}

static void node_lifecycle_pass(void *ctx)
{
        struct node_lifecycle_controller *x = ctx;
        cleanup_json json_t *nodes = informer_snapshot(x->loop.watch, COL_NODES);
        cleanup_json json_t *pods = informer_snapshot(x->loop.watch, COL_PODS);
        cleanup_json json_t *readiness = json_object(), *zones = json_object();
        int64_t now_ms = time_monotonic_ms();
        bool all_full = true, any_zone = false;
        const char *key;
        json_t *node, *z;
        void *tmp;
        char now[32];

        /* node health, and the pods of nodes that just stopped being Ready */
        json_object_foreach(nodes, key, node) {
                json_t *h;
                const char *before, *after = update_node_health(x, key, node, now_ms);

                h = json_object_get(x->health, key);
                before = json_string_value(json_object_get(h, "ready"));
                if (before && streq(before, "True") && !streq(after, "True"))
                        mark_pods_not_ready(x, key, pods);
                json_object_set_new(h, "ready", json_string(after));
                json_object_set_new(readiness, key, json_string(after));
        }
        json_object_foreach_safe(x->health, tmp, key, z)
        {
                if (!json_object_get(nodes, key))
                        json_object_del(x->health, key);
        }
        /* K8S: handleDisruption: the zones' states from their nodes' Ready conditions */
        json_object_foreach(nodes, key, node) {
                cleanup_free char *zone = NULL;
                bool ready = streq(json_string_value(json_object_get(readiness, key)), "True");

                if (json_object_get(json_path(node, "metadata.labels"), LABEL_EXCLUDE_DISRUPTION))
                        continue;
                zone = zone_of(node);
                z = json_object_get(zones, zone);
                if (!z) {
                        z = json_pack("{s:i, s:i}", "ready", 0, "not_ready", 0);
                        json_object_set_new(zones, zone, z);
                }
                json_object_set_new(z, ready ? "ready" : "not_ready",
                                    json_integer(num(z, ready ? "ready" : "not_ready") + 1));
        }
        json_object_foreach(zones, key, z) {
                enum zone_state st = zone_state((int) num(z, "ready"), (int) num(z, "not_ready"));

                any_zone = true;
                all_full &= st == ZONE_FULL;
                json_object_set_new(z, "state", json_integer(st));
        }
        all_full &= any_zone;
        if (x->all_fully_disrupted && !all_full) {
                /* K8S: leaving full disruption, every node is given a fresh grace period */
                json_object_foreach(x->health, key, z)
                        json_object_set_new(z, "probe", json_integer(now_ms));
        }
        x->all_fully_disrupted = all_full;

        now_rfc3339(now);
        json_object_foreach(nodes, key, node) {
                cleanup_free char *zone = zone_of(node);
                const json_t *zs = json_object_get(zones, zone);
                enum no_execute_tainting mode = NO_EXECUTE_HOLD;
                cleanup_json json_t *taints = NULL;

                if (all_full) {
                        mode = NO_EXECUTE_CLEAR;
                } else {
                        enum zone_state st = zs ? (enum zone_state) num(zs, "state") : ZONE_NORMAL;
                        double qps = EVICTION_LIMITER_QPS;
                        cleanup_json json_t *probe =
                                node_lifecycle_taints(node, NO_EXECUTE_ADD, now);
                        cleanup_json json_t *held =
                                node_lifecycle_taints(node, NO_EXECUTE_HOLD, now);
                        bool adds = probe && (!held || !json_equal(probe, held));

                        /* K8S: setLimiterInZone: a partially disrupted zone of a small cluster
                         * stops adding NoExecute taints */
                        if (st == ZONE_PARTIAL)
                                qps = num(zs, "ready") + num(zs, "not_ready") >
                                                      LARGE_CLUSTER_SIZE_THRESHOLD
                                              ? SECONDARY_EVICTION_QPS
                                              : 0;
                        /* a taint the limiter holds back is tried at the next monitor pass */
                        if (adds && limiter_take(x, zone, qps, now_ms))
                                mode = NO_EXECUTE_ADD;
                }
                taints = node_lifecycle_taints(node, mode, now);
                if (taints)
                        write_taints(x, key, node, taints);
        }
        json_decref(nodes);
        nodes = informer_snapshot(x->loop.watch, COL_NODES);
        evict_pass(x, nodes, pods, now_ms);
        controller_loop_pass_within(&x->loop, x->opts.monitor_period_ms);
}

static void node_lifecycle_release(void *ctx)
{
        struct node_lifecycle_controller *x = ctx;

        json_decref(x->health);
        json_decref(x->limiters);
        json_decref(x->evictions);
        free(x);
}

int node_lifecycle_controller_start(const struct api_client_options *o,
                                    const struct node_lifecycle_options *nlo,
                                    struct node_lifecycle_controller **ret, struct error **reterr)
{
        static const char *const paths[] = {
                [COL_NODES] = "/api/v1/nodes",
                [COL_LEASES] = "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases",
                [COL_PODS] = "/api/v1/pods",
                NULL,
        };
        struct node_lifecycle_controller *x = xcalloc(1, sizeof(*x));
        static const informer_relevant_fn relevant[ARRAY_SIZE(paths) - 1] = {
                [COL_PODS] = relevance_pod_placement
        };
        struct controller_loop_def def = { .name = "node-lifecycle",
                                           .paths = paths,
                                           .relevant = relevant,
                                           .pass = node_lifecycle_pass,
                                           .release = node_lifecycle_release };
        int r;

        if (nlo)
                x->opts = *nlo;
        if (!x->opts.monitor_period_ms)
                x->opts.monitor_period_ms = NODE_MONITOR_PERIOD_MS_DEFAULT;
        if (!x->opts.grace_period_ms)
                x->opts.grace_period_ms = NODE_MONITOR_GRACE_PERIOD_MS_DEFAULT;
        def.period_ms = x->opts.monitor_period_ms;
        x->health = json_object();
        x->limiters = json_object();
        x->evictions = json_object();
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
