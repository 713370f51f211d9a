/* test-scheduler-score.c: the default profile's scores over fake nodes: LeastAllocated (with the
 * non-zero defaults for a pod without requests) and BalancedAllocation (skipped for a BestEffort
 * pod), TaintToleration's PreferNoSchedule, NodeAffinity's preferred terms and its required
 * terms as a filter, a pending resize counted at the larger of desired and allocated, the
 * weighted total, and ties broken at random. */
#include "unit/controllers/scheduler-fixtures.h"

static int64_t score(const json_t *scores, const char *node, const char *plugin)
{
        const json_t *v = json_object_get(json_object_get(scores, node), plugin);

        assert_non_null(v);
        return json_integer_value(v);
}

static void test_resources(void **state)
{
        cleanup_json json_t *nodes = json_array(), *pods = json_array(), *scores = json_object();
        struct scheduler_cluster cl = { .nodes = nodes, .pods = pods, .ret_scores = scores };
        cleanup_json json_t *p = fx_pod(NULL, "in", NULL, NULL, "1", "2Gi");
        cleanup_json json_t *besteffort = fx_pod(NULL, "be", NULL, NULL, NULL, NULL);
        char *msg = NULL;

        (void) state;
        fx_node(nodes, "n1", "a", "4", "8Gi");
        fx_node(nodes, "n2", "a", "4", "8Gi");
        fx_pod(pods, "used", "n2", NULL, "2", "1Gi");
        assert_string_equal(fx_schedule(p, &cl, &msg), "n1");
        free(msg);
        /* K8S LeastAllocated: n1 cpu 75, memory 75; n2 cpu (4-3)/4 = 25, memory (8-3)/8 = 62 */
        assert_int_equal(score(scores, "n1", "NodeResourcesFit"), 75);
        assert_int_equal(score(scores, "n2", "NodeResourcesFit"), 43);
        /* K8S BalancedAllocation: n1 0.25 and 0.25: 100; n2 0.75 and 0.375: 100 * (1 - 0.1875) */
        assert_int_equal(score(scores, "n1", "NodeResourcesBalancedAllocation"), 100);
        assert_int_equal(score(scores, "n2", "NodeResourcesBalancedAllocation"), 81);
        /* weighted: TaintToleration 3 * 100, the rest 0 (nothing to score) */
        assert_int_equal(score(scores, "n1", "total"), 300 + 75 + 100);
        assert_int_equal(score(scores, "n2", "total"), 300 + 43 + 81);
        assert_int_equal(score(scores, "n1", "PodTopologySpread"), 0);
        assert_int_equal(score(scores, "n1", "InterPodAffinity"), 0);

        /* K8S GetNonzeroRequests: no requests count 100m and 200Mi for LeastAllocated, and a
         * BestEffort pod is not scored by BalancedAllocation */
        json_array_clear(pods);
        fx_pod(pods, "be1", "n2", NULL, NULL, NULL);
        json_object_clear(scores);
        assert_string_equal(fx_schedule(besteffort, &cl, &msg), "n1");
        free(msg);
        assert_int_equal(score(scores, "n1", "NodeResourcesFit"), 97); /* 97.5, 97.5 */
        assert_int_equal(score(scores, "n2", "NodeResourcesFit"), 95); /* 95, 95.1 */
        assert_int_equal(score(scores, "n1", "NodeResourcesBalancedAllocation"), 0);
        assert_int_equal(score(scores, "n2", "NodeResourcesBalancedAllocation"), 0);
}

static void test_taint_toleration(void **state)
{
        cleanup_json json_t *nodes = json_array(), *pods = json_array(), *scores = json_object();
        struct scheduler_cluster cl = { .nodes = nodes, .pods = pods, .ret_scores = scores };
        cleanup_json json_t *p = fx_pod(NULL, "in", NULL, NULL, "1", "1Gi");
        char *msg = NULL;

        (void) state;
        fx_set(fx_node(nodes, "n1", "a", "4", "8Gi"), "spec.taints",
               "[{\"key\":\"spot\",\"effect\":\"PreferNoSchedule\"},"
               "{\"key\":\"slow\",\"effect\":\"PreferNoSchedule\"}]");
        fx_set(fx_node(nodes, "n2", "a", "4", "8Gi"), "spec.taints",
               "[{\"key\":\"spot\",\"effect\":\"PreferNoSchedule\"}]");
        fx_node(nodes, "n3", "a", "4", "8Gi");
        assert_string_equal(fx_schedule(p, &cl, &msg), "n3");
        free(msg);
        /* K8S: untolerated PreferNoSchedule taints counted, reversed: n1 2 -> 0, n2 1 -> 50 */
        assert_int_equal(score(scores, "n1", "TaintToleration"), 0);
        assert_int_equal(score(scores, "n2", "TaintToleration"), 50);
        assert_int_equal(score(scores, "n3", "TaintToleration"), 100);
        /* a toleration with effect PreferNoSchedule (or none) counts; NoSchedule does not */
        fx_set(p, "spec.tolerations",
               "[{\"key\":\"spot\",\"operator\":\"Exists\",\"effect\":\"PreferNoSchedule\"},"
               "{\"key\":\"slow\",\"operator\":\"Exists\",\"effect\":\"NoSchedule\"}]");
        json_object_clear(scores);
        fx_schedule(p, &cl, &msg);
        free(msg);
        assert_int_equal(score(scores, "n1", "TaintToleration"), 0);
        assert_int_equal(score(scores, "n2", "TaintToleration"), 100);
}

static void test_node_affinity(void **state)
{
        cleanup_json json_t *nodes = json_array(), *pods = json_array(), *scores = json_object();
        struct scheduler_cluster cl = { .nodes = nodes, .pods = pods, .ret_scores = scores };
        cleanup_json json_t *p = fx_pod(NULL, "in", NULL, NULL, "1", "1Gi");
        char *msg = NULL;

        (void) state;
        fx_node(nodes, "n1", "a", "4", "8Gi");
        fx_set(fx_node(nodes, "n2", "a", "4", "8Gi"), "metadata.labels.disk", "\"ssd\"");
        fx_node(nodes, "n3", "b", "4", "8Gi");
        fx_set(p, "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution",
               "[{\"weight\":10,\"preference\":{\"matchExpressions\":[{\"key\":"
               "\"topology.kubernetes.io/zone\",\"operator\":\"In\",\"values\":[\"a\"]}]}},"
               "{\"weight\":50,\"preference\":{\"matchExpressions\":[{\"key\":\"disk\","
               "\"operator\":\"Exists\"}]}},{\"weight\":90,\"preference\":{}}]");
        assert_string_equal(fx_schedule(p, &cl, &msg), "n2");
        free(msg);
        /* K8S: the weights of the matching terms (an empty term matches nothing), scaled to
         * the best: n1 10 -> 16, n2 60 -> 100, n3 0 */
        assert_int_equal(score(scores, "n1", "NodeAffinity"), 16);
        assert_int_equal(score(scores, "n2", "NodeAffinity"), 100);
        assert_int_equal(score(scores, "n3", "NodeAffinity"), 0);
        /* required terms filter, ORed, each ANDing its requirements; with nodeSelector */
        fx_set(p, "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution",
               "{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":"
               "\"topology.kubernetes.io/zone\",\"operator\":\"NotIn\",\"values\":[\"a\"]}]},"
               "{\"matchFields\":[{\"key\":\"metadata.name\",\"operator\":\"In\",\"values\":"
               "[\"n1\"]}]}]}");
        json_object_clear(scores);
        assert_string_not_equal(fx_schedule(p, &cl, &msg), "n2");
        free(msg);
        assert_null(json_object_get(scores, "n2"));
        fx_set(p, "spec.nodeSelector", "{\"disk\":\"ssd\"}");
        assert_null(fx_schedule(p, &cl, &msg));
        assert_string_equal(msg, "0/3 nodes are available: 3 node(s) didn't match Pod's node "
                                 "affinity/selector. preemption: 0/3 nodes are available: 3 "
                                 "Preemption is not helpful for scheduling.");
        free(msg);
}

/* KEP-1287: a pod with a pending resize holds the larger of desired and allocated. */
static void test_pending_resize(void **state)
{
        cleanup_json json_t *nodes = json_array(), *pods = json_array();
        struct scheduler_cluster cl = { .nodes = nodes, .pods = pods };
        cleanup_json json_t *p = fx_pod(NULL, "in", NULL, NULL, "2", "1Gi");
        json_t *resizing;
        char *msg = NULL;

        (void) state;
        fx_node(nodes, "n1", "a", "4", "8Gi");
        resizing = fx_pod(pods, "r", "n1", NULL, "1", "1Gi");
        /* desired 1, allocated 3 (a decrease not yet actuated) */
        fx_set(resizing, "status.containerStatuses",
               "[{\"name\":\"c\",\"allocatedResources\":{\"cpu\":\"3\",\"memory\":\"1Gi\"}}]");
        assert_null(fx_schedule(p, &cl, &msg));
        assert_string_equal(msg, "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 "
                                 "nodes are available: 1 No preemption victims found for "
                                 "incoming pod.");
        free(msg);
        /* desired 3, allocated 1 (an increase not yet admitted) */
        fx_set(resizing, "spec.containers",
               "[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"3\"}}}]");
        fx_set(resizing, "status.containerStatuses",
               "[{\"name\":\"c\",\"allocatedResources\":{\"cpu\":\"1\",\"memory\":\"1Gi\"}}]");
        assert_null(fx_schedule(p, &cl, &msg));
        free(msg);
        /* settled at 1 */
        fx_set(resizing, "spec.containers",
               "[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"1\"}}}]");
        assert_string_equal(fx_schedule(p, &cl, &msg), "n1");
        free(msg);
}

/* A pass's cache: the same decision; the requests of a pod it has seen are not computed again
 * (so a pod changed under it would still count as first seen: the cache lives for one
 * snapshot). */
static void test_cache(void **state)
{
        cleanup_json json_t *nodes = json_array(), *pods = json_array();
        struct scheduler_cache *cache = scheduler_cache_new();
        struct scheduler_cluster cl = { .nodes = nodes, .pods = pods, .cache = cache };
        cleanup_json json_t *p = fx_pod(NULL, "in", NULL, NULL, "2", "1Gi");
        json_t *placed;
        char *msg = NULL;

        (void) state;
        fx_node(nodes, "n1", "a", "4", "8Gi");
        placed = fx_pod(pods, "r", "n1", NULL, "3", "1Gi");
        assert_null(fx_schedule(p, &cl, &msg));
        free(msg);
        assert_null(fx_schedule(p, &cl, &msg));
        free(msg);
        fx_set(placed, "spec.containers",
               "[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"1\"}}}]");
        assert_null(fx_schedule(p, &cl, &msg)); /* still 3 cpu: cached */
        free(msg);
        cl.cache = NULL;
        assert_string_equal(fx_schedule(p, &cl, &msg), "n1");
        free(msg);
        scheduler_cache_free(cache);
}

static void test_ties(void **state)
{
        cleanup_json json_t *nodes = json_array(), *pods = json_array(), *scores = json_object();
        struct scheduler_cluster cl = { .nodes = nodes, .pods = pods };
        cleanup_json json_t *p = fx_pod(NULL, "in", NULL, NULL, "1", "1Gi");
        uint64_t rng = 42;
        bool seen[3] = { false };
        char *msg = NULL;

        (void) state;
        fx_node(nodes, "n1", "a", "4", "8Gi");
        fx_node(nodes, "n2", "a", "4", "8Gi");
        fx_node(nodes, "n3", "a", "4", "8Gi");
        /* without a random state the first of the best */
        assert_string_equal(fx_schedule(p, &cl, &msg), "n1");
        free(msg);
        /* K8S selectHost: each of the best in turn, at random */
        cl.rng = &rng;
        for (int i = 0; i < 64; i++) {
                const char *n = fx_schedule(p, &cl, &msg);
                free(msg);
                seen[n[1] - '1'] = true;
        }
        assert_true(seen[0] && seen[1] && seen[2]);
        /* one feasible node is taken without scoring */
        fx_set(json_array_get(nodes, 1), "spec.unschedulable", "true");
        fx_set(json_array_get(nodes, 2), "spec.unschedulable", "true");
        cl.ret_scores = scores;
        assert_string_equal(fx_schedule(p, &cl, &msg), "n1");
        free(msg);
        assert_int_equal(json_object_size(scores), 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_resources),     cmocka_unit_test(test_taint_toleration),
                cmocka_unit_test(test_node_affinity), cmocka_unit_test(test_pending_resize),
                cmocka_unit_test(test_ties),          cmocka_unit_test(test_cache),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
