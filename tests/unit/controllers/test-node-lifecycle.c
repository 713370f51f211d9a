/* test-node-lifecycle.c: the node lifecycle controller's pure decisions: the taints a node
 * should carry (unschedulable, the condition taints, the NoExecute taints under the rate
 * limiter and full disruption, timeAdded kept), the conditions that turn Unknown after the
 * grace period, and how long the taint eviction controller lets a pod stay. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "base/alloc.h"
#include "base/json.h"
#include "controllers/node-lifecycle.h"

#define NOW "2026-11-26T08:00:00Z"

static json_t *parse(const char *text)
{
        json_t *v = json_loads(text, 0, NULL);

        assert_non_null(v);
        return v;
}

static void assert_json(const json_t *v, const char *want)
{
        cleanup_free char *got = json_dump_compact(v);

        assert_string_equal(got, want);
}

/* K8S: doNoScheduleTaintingPass: the unschedulable taint follows spec.unschedulable, other
 * taints stay in order. */
static void test_unschedulable_taint(void **state)
{
        cleanup_json json_t *cordoned = parse(
                "{\"spec\":{\"unschedulable\":true,\"taints\":[{\"key\":\"k\",\"effect\":\"NoExecute\"}]}}");
        cleanup_json json_t *tainted =
                parse("{\"spec\":{\"unschedulable\":true,\"taints\":[{\"key\":\"node.kubernetes.io/"
                      "unschedulable\",\"effect\":\"NoSchedule\"}]}}");
        cleanup_json json_t *uncordoned = parse(
                "{\"spec\":{\"taints\":[{\"key\":\"k\",\"effect\":\"NoExecute\"},{\"key\":\"node."
                "kubernetes.io/unschedulable\",\"effect\":\"NoSchedule\"}]}}");
        cleanup_json json_t *plain = parse("{\"spec\":{}}");
        cleanup_json json_t *a = node_lifecycle_taints(cordoned, NO_EXECUTE_ADD, NOW);
        cleanup_json json_t *b = node_lifecycle_taints(uncordoned, NO_EXECUTE_ADD, NOW);

        (void) state;
        assert_json(a, "[{\"key\":\"k\",\"effect\":\"NoExecute\"},{\"key\":\"node.kubernetes.io/"
                       "unschedulable\",\"effect\":\"NoSchedule\"}]");
        assert_json(b, "[{\"key\":\"k\",\"effect\":\"NoExecute\"}]");
        assert_null(node_lifecycle_taints(tainted, NO_EXECUTE_ADD, NOW));
        assert_null(node_lifecycle_taints(plain, NO_EXECUTE_ADD, NOW));
}

/* Ready Unknown: unreachable NoSchedule and NoExecute with timeAdded; held by the rate
 * limiter: the NoSchedule one only; fully disrupted: the NoExecute one comes off. */
static void test_unreachable_taints(void **state)
{
        cleanup_json json_t *node =
                parse("{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"Unknown\"},"
                      "{\"type\":\"MemoryPressure\",\"status\":\"Unknown\"}]}}");
        cleanup_json json_t *added = node_lifecycle_taints(node, NO_EXECUTE_ADD, NOW);
        cleanup_json json_t *held = node_lifecycle_taints(node, NO_EXECUTE_HOLD, NOW);
        cleanup_json json_t *cleared = NULL, *again = NULL;

        (void) state;
        assert_json(added, "[{\"key\":\"node.kubernetes.io/unreachable\",\"effect\":\"NoSchedule\","
                           "\"timeAdded\":\"" NOW "\"},{\"key\":\"node.kubernetes.io/"
                           "unreachable\",\"effect\":\"NoExecute\",\"timeAdded\":\"" NOW "\"}]");
        assert_json(held, "[{\"key\":\"node.kubernetes.io/unreachable\",\"effect\":\"NoSchedule\","
                          "\"timeAdded\":\"" NOW "\"}]");
        json_object_set_new(node, "spec", json_pack("{s:O}", "taints", added));
        /* nothing to change, whatever the limiter says: the taint it has stays */
        assert_null(node_lifecycle_taints(node, NO_EXECUTE_ADD, "later"));
        assert_null(node_lifecycle_taints(node, NO_EXECUTE_HOLD, "later"));
        cleared = node_lifecycle_taints(node, NO_EXECUTE_CLEAR, "later");
        assert_json(cleared, "[{\"key\":\"node.kubernetes.io/unreachable\",\"effect\":"
                             "\"NoSchedule\",\"timeAdded\":\"" NOW "\"}]");
        /* Ready again: both go */
        json_object_set_new(json_array_get(json_path(node, "status.conditions"), 0), "status",
                            json_string("True"));
        again = node_lifecycle_taints(node, NO_EXECUTE_HOLD, "later");
        assert_json(again, "[]");
}

/* K8S: a NoExecute not-ready taint is swapped for unreachable at once, even when the limiter
 * holds new ones back; pressure conditions give their NoSchedule taints. */
static void test_swap_and_pressure(void **state)
{
        cleanup_json json_t *node =
                parse("{\"spec\":{\"taints\":[{\"key\":\"node.kubernetes.io/not-ready\",\"effect\":"
                      "\"NoExecute\",\"timeAdded\":\"t0\"}]},\"status\":{\"conditions\":[{\"type\":"
                      "\"Ready\",\"status\":\"Unknown\"},{\"type\":\"DiskPressure\",\"status\":"
                      "\"True\"}]}}");
        cleanup_json json_t *t = node_lifecycle_taints(node, NO_EXECUTE_HOLD, NOW);

        (void) state;
        assert_json(t, "[{\"key\":\"node.kubernetes.io/unreachable\",\"effect\":\"NoSchedule\","
                       "\"timeAdded\":\"" NOW "\"},{\"key\":\"node.kubernetes.io/disk-pressure\","
                       "\"effect\":\"NoSchedule\",\"timeAdded\":\"" NOW "\"},{\"key\":\"node."
                       "kubernetes.io/unreachable\",\"effect\":\"NoExecute\",\"timeAdded\":\"" NOW
                       "\"}]");
}

/* K8S: tryUpdateNodeHealth: the four conditions turn Unknown with upstream's reasons; one
 * never posted is added as NodeStatusNeverUpdated; nothing when all are Unknown already. */
static void test_unknown_conditions(void **state)
{
        cleanup_json json_t *node = parse(
                "{\"metadata\":{\"creationTimestamp\":\"t0\"},\"status\":{\"conditions\":[{"
                "\"type\":\"Ready\",\"status\":\"True\",\"reason\":\"KubeletReady\","
                "\"lastHeartbeatTime\":\"t1\"},{\"type\":\"MemoryPressure\",\"status\":"
                "\"False\"},{\"type\":\"DiskPressure\",\"status\":\"False\"},{\"type\":"
                "\"PIDPressure\",\"status\":\"Unknown\",\"reason\":\"NodeStatusUnknown\"}]}}");
        cleanup_json json_t *c = node_lifecycle_unknown_conditions(node, NOW);
        cleanup_json json_t *fresh = parse("{\"metadata\":{\"creationTimestamp\":\"t0\"}}");
        cleanup_json json_t *never = node_lifecycle_unknown_conditions(fresh, NOW);

        (void) state;
        assert_json(json_array_get(c, 0),
                    "{\"type\":\"Ready\",\"status\":\"Unknown\",\"reason\":\"NodeStatusUnknown\","
                    "\"lastHeartbeatTime\":\"t1\",\"message\":\"Kubelet stopped posting node "
                    "status.\",\"lastTransitionTime\":\"" NOW "\"}");
        /* the one already Unknown keeps its transition time */
        assert_null(json_object_get(json_array_get(c, 3), "lastTransitionTime"));
        assert_int_equal(json_array_size(never), 4);
        assert_json(json_array_get(never, 0),
                    "{\"type\":\"Ready\",\"status\":\"Unknown\",\"reason\":"
                    "\"NodeStatusNeverUpdated\",\"message\":\"Kubelet never posted node "
                    "status.\",\"lastHeartbeatTime\":\"t0\",\"lastTransitionTime\":\"" NOW "\"}");
        json_object_set_new(fresh, "status", json_pack("{s:O}", "conditions", never));
        assert_null(node_lifecycle_unknown_conditions(fresh, NOW));
}

/* K8S: getMinTolerationTime over GetMatchingTolerations. */
static void test_eviction_seconds(void **state)
{
        cleanup_json json_t *taints =
                parse("[{\"key\":\"node.kubernetes.io/unreachable\",\"effect\":\"NoExecute\"},"
                      "{\"key\":\"dedicated\",\"value\":\"db\",\"effect\":\"NoSchedule\"}]");
        cleanup_json json_t *none = json_array();
        cleanup_json json_t *forever = parse("[{\"operator\":\"Exists\"}]");
        cleanup_json json_t *ten =
                parse("[{\"key\":\"node.kubernetes.io/unreachable\",\"operator\":\"Exists\","
                      "\"effect\":\"NoExecute\",\"tolerationSeconds\":10}]");
        cleanup_json json_t *zero =
                parse("[{\"key\":\"node.kubernetes.io/unreachable\",\"operator\":\"Exists\","
                      "\"effect\":\"NoExecute\",\"tolerationSeconds\":-5}]");
        cleanup_json json_t *other =
                parse("[{\"key\":\"node.kubernetes.io/not-ready\",\"operator\":\"Exists\","
                      "\"effect\":\"NoExecute\",\"tolerationSeconds\":300}]");
        cleanup_json json_t *schedule_only =
                parse("[{\"key\":\"dedicated\",\"value\":\"db\",\"effect\":\"NoSchedule\"}]");

        (void) state;
        assert_int_equal(taint_eviction_seconds(taints, none), 0);
        assert_int_equal(taint_eviction_seconds(taints, forever), -1);
        assert_int_equal(taint_eviction_seconds(taints, ten), 10);
        assert_int_equal(taint_eviction_seconds(taints, zero), 0);
        assert_int_equal(taint_eviction_seconds(taints, other), 0);
        assert_int_equal(taint_eviction_seconds(schedule_only, none), -1);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_unschedulable_taint),
                cmocka_unit_test(test_unreachable_taints),
                cmocka_unit_test(test_swap_and_pressure),
                cmocka_unit_test(test_unknown_conditions),
                cmocka_unit_test(test_eviction_seconds),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
