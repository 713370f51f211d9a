/* test-scheduler-spread.c: the PodTopologySpread plugin over fake nodes in three zones:
 * DoNotSchedule by zone (maxSkew against the emptiest zone) with upstream's messages, a node
 * without the key, nodeAffinityPolicy and nodeTaintsPolicy, minDomains, matchLabelKeys, the
 * ScheduleAnyway score, and the system default constraints over a ReplicaSet's selector. */
#include "unit/controllers/scheduler-fixtures.h"

struct fx {
        json_t *nodes, *pods;
};

static int setup(void **state)
{
        struct fx *f = xcalloc(1, sizeof(*f));

        /* n1 in zone a, n2 in b, n3 in c; two web pods in a, one in b */
        f->nodes = json_array();
        f->pods = json_array();
        fx_node(f->nodes, "n1", "a", "4", "8Gi");
        fx_node(f->nodes, "n2", "b", "4", "8Gi");
        fx_node(f->nodes, "n3", "c", "4", "8Gi");
        fx_pod(f->pods, "w1", "n1", "{\"app\":\"web\"}", "100m", "64Mi");
        fx_pod(f->pods, "w2", "n1", "{\"app\":\"web\"}", "100m", "64Mi");
        fx_pod(f->pods, "w3", "n2", "{\"app\":\"web\"}", "100m", "64Mi");
        *state = f;
        return 0;
}

static int teardown(void **state)
{
        struct fx *f = *state;

        json_decref(f->nodes);
        json_decref(f->pods);
        free(f);
        return 0;
}

/* A web pod spread by zone with maxSkew 1; extra (JSON members, may be "") added to the
 * constraint. */
static json_t *spread_pod(const char *when, const char *extra)
{
        json_t *p = fx_pod(NULL, "in", NULL, "{\"app\":\"web\",\"rev\":\"2\"}", "100m", "64Mi");
        cleanup_free char *c = xasprintf(
                "[{\"maxSkew\":1,\"topologyKey\":\"topology.kubernetes.io/zone\","
                "\"whenUnsatisfiable\":\"%s\",\"labelSelector\":{\"matchLabels\":{\"app\":"
                "\"web\"}}%s%s}]",
                when, *extra ? "," : "", extra);

        fx_set(p, "spec.topologySpreadConstraints", c);
        return p;
}

static void test_do_not_schedule(void **state)
{
        struct fx *f = *state;
        struct scheduler_cluster cl = { .nodes = f->nodes, .pods = f->pods };
        cleanup_json json_t *p = spread_pod("DoNotSchedule", "");
        char *msg = NULL;

        /* zone c has none: a (2) and b (1) would be too far ahead */
        assert_string_equal(fx_schedule(p, &cl, &msg), "n3");
        free(msg);
        /* n3 cordoned: its zone still counts as the emptiest */
        fx_set(json_array_get(f->nodes, 2), "spec.unschedulable", "true");
        assert_null(fx_schedule(p, &cl, &msg));
        assert_string_equal(msg, "0/3 nodes are available: 1 node(s) were unschedulable, 2 "
                                 "node(s) didn't match pod topology spread constraints. "
                                 "preemption: 0/3 nodes are available: 2 No preemption victims "
                                 "found for incoming pod, 1 Preemption is not helpful for "
                                 "scheduling.");
        free(msg);
        /* a node without the zone label */
        json_object_del(json_path(json_array_get(f->nodes, 1), "metadata.labels"),
                        "topology.kubernetes.io/zone");
        assert_null(fx_schedule(p, &cl, &msg));
        assert_string_equal(msg, "0/3 nodes are available: 1 node(s) didn't match pod topology "
                                 "spread constraints, 1 node(s) didn't match pod topology spread "
                                 "constraints (missing required label), 1 node(s) were "
                                 "unschedulable. preemption: 0/3 nodes are available: 1 No "
                                 "preemption victims found for incoming pod, 2 Preemption is not "
                                 "helpful for scheduling.");
        free(msg);
}

static void test_node_affinity_policy(void **state)
{
        struct fx *f = *state;
        struct scheduler_cluster cl = { .nodes = f->nodes, .pods = f->pods };
        cleanup_json json_t *honor = spread_pod("DoNotSchedule", "");
        cleanup_json json_t *ignore =
                spread_pod("DoNotSchedule", "\"nodeAffinityPolicy\":\"Ignore\"");
        char *msg = NULL;

        /* the pods wants disk=ssd, which n3 lacks: with Honor zone c does not count, so b (1)
         * is the emptiest and n2 is fine */
        fx_set(json_array_get(f->nodes, 0), "metadata.labels.disk", "\"ssd\"");
        fx_set(json_array_get(f->nodes, 1), "metadata.labels.disk", "\"ssd\"");
        fx_set(honor, "spec.nodeSelector", "{\"disk\":\"ssd\"}");
        fx_set(ignore, "spec.nodeSelector", "{\"disk\":\"ssd\"}");
        assert_string_equal(fx_schedule(honor, &cl, &msg), "n2");
        free(msg);
        assert_null(fx_schedule(ignore, &cl, &msg));
        assert_string_equal(msg, "0/3 nodes are available: 1 node(s) didn't match Pod's node "
                                 "affinity/selector, 2 node(s) didn't match pod topology spread "
                                 "constraints. preemption: 0/3 nodes are available: 2 No "
                                 "preemption victims found for incoming pod, 1 Preemption is not "
                                 "helpful for scheduling.");
        free(msg);
}

static void test_node_taints_policy(void **state)
{
        struct fx *f = *state;
        struct scheduler_cluster cl = { .nodes = f->nodes, .pods = f->pods };
        cleanup_json json_t *ignore = spread_pod("DoNotSchedule", "");
        cleanup_json json_t *honor = spread_pod("DoNotSchedule", "\"nodeTaintsPolicy\":\"Honor\"");
        char *msg = NULL;

        fx_set(json_array_get(f->nodes, 2), "spec.taints",
               "[{\"key\":\"dedicated\",\"value\":\"gpu\",\"effect\":\"NoSchedule\"}]");
        assert_string_equal(fx_schedule(honor, &cl, &msg), "n2");
        free(msg);
        assert_null(fx_schedule(ignore, &cl, &msg));
        assert_string_equal(msg, "0/3 nodes are available: 1 node(s) had untolerated taint "
                                 "{dedicated: gpu}, 2 node(s) didn't match pod topology spread "
                                 "constraints. preemption: 0/3 nodes are available: 2 No "
                                 "preemption victims found for incoming pod, 1 Preemption is not "
                                 "helpful for scheduling.");
        free(msg);
}

static void test_min_domains(void **state)
{
        struct fx *f = *state;
        struct scheduler_cluster cl = { .nodes = f->nodes, .pods = f->pods };
        cleanup_json json_t *p = spread_pod("DoNotSchedule", "\"minDomains\":4");
        char *msg = NULL;

        /* zone c filled to 1: every zone has 1 or more, so without minDomains n2 or n3 fits;
         * with 4 domains wanted and 3 present the minimum counts as 0 */
        fx_pod(f->pods, "w4", "n3", "{\"app\":\"web\"}", "100m", "64Mi");
        assert_null(fx_schedule(p, &cl, &msg));
        assert_string_equal(msg, "0/3 nodes are available: 3 node(s) didn't match pod topology "
                                 "spread constraints. preemption: 0/3 nodes are available: 3 No "
                                 "preemption victims found for incoming pod.");
        free(msg);
        fx_set(json_array_get(json_path(p, "spec.topologySpreadConstraints"), 0), "minDomains",
               "3");
        assert_string_not_equal(fx_schedule(p, &cl, &msg), "n1");
        free(msg);
}

static void test_match_label_keys(void **state)
{
        struct fx *f = *state;
        struct scheduler_cluster cl = { .nodes = f->nodes, .pods = f->pods };
        cleanup_json json_t *p = spread_pod("DoNotSchedule", "\"matchLabelKeys\":[\"rev\"]");
        char *msg = NULL;

        /* only rev=2 pods count: two in zone c, one in b, none in a */
        fx_pod(f->pods, "r1", "n3", "{\"app\":\"web\",\"rev\":\"2\"}", "100m", "64Mi");
        fx_pod(f->pods, "r2", "n3", "{\"app\":\"web\",\"rev\":\"2\"}", "100m", "64Mi");
        fx_pod(f->pods, "r3", "n2", "{\"app\":\"web\",\"rev\":\"2\"}", "100m", "64Mi");
        assert_string_equal(fx_schedule(p, &cl, &msg), "n1");
        free(msg);
}

static void test_schedule_anyway_scores(void **state)
{
        struct fx *f = *state;
        cleanup_json json_t *scores = json_object();
        struct scheduler_cluster cl = { .nodes = f->nodes, .pods = f->pods, .ret_scores = scores };
        cleanup_json json_t *p = spread_pod("ScheduleAnyway", "");
        char *msg = NULL;

        /* K8S: per node count * log(zones of the feasible nodes + 2) + maxSkew - 1, rounded;
         * normalized 100 * (max + min - s) / max. n3 cordoned: a 2*log(4) = 3, b 1:
         * a 100*(3+1-3)/3 = 33, b 100 */
        fx_set(json_array_get(f->nodes, 2), "spec.unschedulable", "true");
        assert_string_equal(fx_schedule(p, &cl, &msg), "n2");
        free(msg);
        assert_int_equal(json_integer_value(json_path(scores, "n1.PodTopologySpread")), 33);
        assert_int_equal(json_integer_value(json_path(scores, "n2.PodTopologySpread")), 100);
        /* all three: a 2*log(5) = 3, b 2, c 0: a 0, b 100*(3+0-2)/3 = 33, c 100 */
        json_object_del(json_array_get(f->nodes, 2), "spec");
        json_object_clear(scores);
        assert_string_equal(fx_schedule(p, &cl, &msg), "n3");
        free(msg);
        assert_int_equal(json_integer_value(json_path(scores, "n1.PodTopologySpread")), 0);
        assert_int_equal(json_integer_value(json_path(scores, "n2.PodTopologySpread")), 33);
        assert_int_equal(json_integer_value(json_path(scores, "n3.PodTopologySpread")), 100);
}

static void test_system_defaults(void **state)
{
        struct fx *f = *state;
        cleanup_json json_t *scores = json_object();
        cleanup_json json_t *rs = fx_json(
                "{\"default/web\":{\"metadata\":{\"name\":\"web\",\"namespace\":\"default\"},"
                "\"spec\":{\"selector\":{\"matchLabels\":{\"app\":\"web\"}}}}}");
        struct scheduler_cluster cl = { .nodes = f->nodes, .pods = f->pods, .ret_scores = scores };
        cleanup_json json_t *p = fx_pod(NULL, "in", NULL, "{\"app\":\"web\"}", "100m", "64Mi");
        char *msg = NULL;

        fx_set(p, "metadata.ownerReferences",
               "[{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\",\"name\":\"web\","
               "\"uid\":\"u\",\"controller\":true}]");
        /* without the ReplicaSet known there is no default selector: no spreading score */
        fx_schedule(p, &cl, &msg);
        free(msg);
        assert_int_equal(json_integer_value(json_path(scores, "n1.PodTopologySpread")), 0);
        assert_int_equal(json_integer_value(json_path(scores, "n3.PodTopologySpread")), 0);
        /* with it: hostname maxSkew 3 (log(5) per pod) and zone maxSkew 5 (log(5) per pod):
         * n1 2*1.609+2 + 2*1.609+4 = 12.4 -> 12, n2 1.609+2+1.609+4 = 9.2 -> 9, n3 2+4 = 6;
         * normalized: n1 100*(12+6-12)/12 = 50, n2 75, n3 100 */
        cl.replicasets = rs;
        json_object_clear(scores);
        assert_string_equal(fx_schedule(p, &cl, &msg), "n3");
        free(msg);
        assert_int_equal(json_integer_value(json_path(scores, "n1.PodTopologySpread")), 50);
        assert_int_equal(json_integer_value(json_path(scores, "n2.PodTopologySpread")), 75);
        assert_int_equal(json_integer_value(json_path(scores, "n3.PodTopologySpread")), 100);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_do_not_schedule, setup, teardown),
                cmocka_unit_test_setup_teardown(test_node_affinity_policy, setup, teardown),
                cmocka_unit_test_setup_teardown(test_node_taints_policy, setup, teardown),
                cmocka_unit_test_setup_teardown(test_min_domains, setup, teardown),
                cmocka_unit_test_setup_teardown(test_match_label_keys, setup, teardown),
                cmocka_unit_test_setup_teardown(test_schedule_anyway_scores, setup, teardown),
                cmocka_unit_test_setup_teardown(test_system_defaults, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
