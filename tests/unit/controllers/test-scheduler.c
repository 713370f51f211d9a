/* test-scheduler.c: requests as the scheduler counts them (init containers, sidecars,
 * allocated resources of a pending resize) and the node choice with upstream's FitError
 * message. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "base/json.h"
#include "controllers/scheduler.h"

static json_t *load(const char *text)
{
        json_t *v = json_loads(text, 0, NULL);
        assert_non_null(v);
        return v;
}

static void test_requests(void **state)
{
        /* containers 100m+200m; init 500m alone; sidecar 50m before an init of 100m */
        cleanup_json json_t *pod = load(
                "{\"spec\":{\"containers\":[{\"name\":\"a\",\"resources\":{\"requests\":{\"cpu\":\"100m\",\"memory\":\"1Gi\"}}},"
                "{\"name\":\"b\",\"resources\":{\"requests\":{\"cpu\":\"200m\"}}}],"
                "\"initContainers\":[{\"name\":\"i1\",\"resources\":{\"requests\":{\"cpu\":\"500m\",\"memory\":\"64Mi\"}}},"
                "{\"name\":\"s\",\"restartPolicy\":\"Always\",\"resources\":{\"requests\":{\"cpu\":\"50m\",\"memory\":\"2Gi\"}}},"
                "{\"name\":\"i2\",\"resources\":{\"requests\":{\"cpu\":\"100m\"}}}]}}");
        int64_t cpu = 0, mem = 0;

        assert_int_equal(scheduler_pod_requests(pod, &cpu, &mem), 0);
        /* sum = 100+200+50 = 350m, 1Gi+2Gi; init max = max(500, 50+100) = 500m */
        assert_int_equal(cpu, 500);
        assert_int_equal(mem, 3LL << 30);
}

static void test_pending_resize_counts_the_larger(void **state)
{
        /* KEP-1287: desired 1 cpu, allocated 2 cpu (a decrease not yet actuated) -> 2 */
        cleanup_json json_t *pod = load(
                "{\"spec\":{\"containers\":[{\"name\":\"a\",\"resources\":{\"requests\":{\"cpu\":\"1\",\"memory\":\"1Gi\"}}}]},"
                "\"status\":{\"containerStatuses\":[{\"name\":\"a\",\"allocatedResources\":{\"cpu\":\"2\",\"memory\":\"512Mi\"}}]}}");
        int64_t cpu = 0, mem = 0;

        assert_int_equal(scheduler_pod_requests(pod, &cpu, &mem), 0);
        assert_int_equal(cpu, 2000);
        assert_int_equal(mem, 1LL << 30);
}

static const char *nodes_json =
        "[{\"metadata\":{\"name\":\"n1\",\"labels\":{\"disk\":\"ssd\"}},\"status\":{\"allocatable\":{\"cpu\":\"4\",\"memory\":\"4Gi\",\"pods\":\"110\"},"
        "\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}]";

static json_t *pod_asking(const char *cpu, const char *mem)
{
        json_t *p = json_pack("{s:{s:s, s:s}, s:{s:[{s:s, s:{s:{s:s, s:s}}}]}}", "metadata", "name",
                              "p", "namespace", "default", "spec", "containers", "name", "c",
                              "resources", "requests", "cpu", cpu, "memory", mem);
        assert_non_null(p);
        return p;
}

static void test_pick(void **state)
{
        cleanup_json json_t *nodes = load(nodes_json);
        cleanup_json json_t *bound = load(
                "[{\"spec\":{\"nodeName\":\"n1\",\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"3\",\"memory\":\"1Gi\"}}}]}}]");
        cleanup_json json_t *fits = pod_asking("1", "1Gi");
        cleanup_json json_t *too_big = pod_asking("2", "1Gi");
        cleanup_json json_t *empty = json_array();
        char *msg = NULL;

        assert_string_equal(scheduler_pick_node(fits, nodes, bound, &msg), "n1");
        assert_null(scheduler_pick_node(too_big, nodes, bound, &msg));
        assert_string_equal(
                msg,
                "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.");
        free(msg);
        msg = NULL;
        assert_null(scheduler_pick_node(fits, empty, bound, &msg));
        assert_string_equal(msg, "no nodes available to schedule pods");
        free(msg);
        msg = NULL;
        json_object_set_new(json_object_get(fits, "spec"), "nodeSelector",
                            json_pack("{s:s}", "disk", "hdd"));
        assert_null(scheduler_pick_node(fits, nodes, empty, &msg));
        assert_string_equal(
                msg,
                "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.");
        free(msg);
}

/* K8S: TaintToleration and NodeUnschedulable: an untolerated NoSchedule or NoExecute taint
 * filters a node out with one reason per taint; PreferNoSchedule does not; a toleration lets
 * the pod in; a node whose Ready is Unknown reads as the unreachable taint. */
static void test_taints(void **state)
{
        cleanup_json json_t *nodes = load(
                "[{\"metadata\":{\"name\":\"a\"},\"spec\":{\"taints\":[{\"key\":\"dedicated\","
                "\"value\":\"db\",\"effect\":\"NoSchedule\"}]},\"status\":{\"allocatable\":{"
                "\"cpu\":\"4\",\"memory\":\"4Gi\"},\"conditions\":[{\"type\":\"Ready\","
                "\"status\":\"True\"}]}},{\"metadata\":{\"name\":\"b\"},\"spec\":{\"taints\":[{"
                "\"key\":\"soft\",\"effect\":\"PreferNoSchedule\"},{\"key\":\"gpu\","
                "\"effect\":\"NoExecute\"}]},\"status\":{\"allocatable\":{\"cpu\":\"4\","
                "\"memory\":\"4Gi\"},\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}},"
                "{\"metadata\":{\"name\":\"c\"},\"status\":{\"allocatable\":{\"cpu\":\"4\","
                "\"memory\":\"4Gi\"},\"conditions\":[{\"type\":\"Ready\",\"status\":"
                "\"Unknown\"}]}}]");
        cleanup_json json_t *empty = json_array();
        cleanup_json json_t *pod = pod_asking("1", "1Gi");
        char *msg = NULL;

        (void) state;
        assert_null(scheduler_pick_node(pod, nodes, empty, &msg));
        assert_string_equal(
                msg,
                "0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: db}, 1 node(s) "
                "had untolerated taint {gpu: }, 1 node(s) had untolerated taint "
                "{node.kubernetes.io/unreachable: }. preemption: 0/3 nodes are available: 3 "
                "Preemption is not helpful for scheduling.");
        free(msg);
        msg = NULL;
        json_object_set_new(json_object_get(pod, "spec"), "tolerations",
                            json_pack("[{s:s, s:s, s:s}]", "key", "gpu", "operator", "Exists",
                                      "effect", "NoExecute"));
        assert_string_equal(scheduler_pick_node(pod, nodes, empty, &msg), "b");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_requests),
                cmocka_unit_test(test_pending_resize_counts_the_larger),
                cmocka_unit_test(test_pick),
                cmocka_unit_test(test_taints),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
