/* test-scheduler-affinity.c: the InterPodAffinity plugin over fake nodes in zones: required
 * anti-affinity one pod per hostname (and upstream's message once every node has one), the
 * existing pods' anti-affinity against the incoming pod (symmetry), required affinity by zone
 * (and the first pod of a group that attracts itself), a node without the topology key,
 * namespaces and namespaceSelector, and the preferred terms' scores both ways. */
#include "unit/controllers/scheduler-fixtures.h"

#define WEB_ANTI_HOST                                       \
 "[{\"labelSelector\":{\"matchLabels\":{\"app\":\"web\"}}," \
 "\"topologyKey\":\"kubernetes.io/hostname\"}]"

struct fx {
        json_t *nodes, *pods;
};

static int setup(void **state)
{
        struct fx *f = xcalloc(1, sizeof(*f));

        /* zone a: n1, n2; zone b: n3 */
        f->nodes = json_array();
        f->pods = json_array();
        fx_node(f->nodes, "n1", "a", "4", "8Gi");
        fx_node(f->nodes, "n2", "a", "4", "8Gi");
        fx_node(f->nodes, "n3", "b", "4", "8Gi");
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

static json_t *web_pod(const char *name, const char *node, bool anti)
{
        json_t *p = fx_pod(NULL, name, node, "{\"app\":\"web\"}", "100m", "128Mi");

        if (anti)
                fx_set(p, "spec.affinity",
                       "{\"podAntiAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":" WEB_ANTI_HOST
                       "}}");
        return p;
}

static void test_anti_affinity_one_per_node(void **state)
{
        struct fx *f = *state;
        struct scheduler_cluster cl = { .nodes = f->nodes, .pods = f->pods };
        const char *names[] = { "w1", "w2", "w3" };
        char *msg = NULL;

        /* each replica goes where no other is, until none is left */
        for (size_t i = 0; i < 3; i++) {
                cleanup_json json_t *p = web_pod(names[i], NULL, true);
                const char *node = fx_schedule(p, &cl, &msg);

                assert_non_null(node);
                assert_string_equal(msg, "");
                free(msg);
                for (size_t j = 0; j < json_array_size(f->pods); j++)
                        assert_string_not_equal(
                                json_path_string(json_array_get(f->pods, j), "spec.nodeName"),
                                node);
                json_array_append_new(f->pods, web_pod(names[i], node, true));
        }
        {
                cleanup_json json_t *p = web_pod("w4", NULL, true);
                assert_null(fx_schedule(p, &cl, &msg));
                assert_string_equal(
                        msg,
                        "0/3 nodes are available: 3 node(s) didn't match pod anti-affinity rules. "
                        "preemption: 0/3 nodes are available: 3 No preemption victims found for "
                        "incoming pod.");
                free(msg);
        }
}

static void test_existing_anti_affinity(void **state)
{
        struct fx *f = *state;
        struct scheduler_cluster cl = { .nodes = f->nodes, .pods = f->pods };
        cleanup_json json_t *incoming = fx_pod(NULL, "in", NULL, "{\"app\":\"web\"}", "1", "1Gi");
        char *msg = NULL;

        /* a pod on n1 refuses app=web on its host; n2 and n3 are cordoned */
        json_array_append_new(f->pods, web_pod("guard", "n1", true));
        json_object_set_new(json_object_get(json_array_get(f->pods, 0), "metadata"), "labels",
                            json_pack("{s:s}", "app", "guard"));
        fx_set(json_array_get(f->nodes, 1), "spec.unschedulable", "true");
        fx_set(json_array_get(f->nodes, 2), "spec.unschedulable", "true");
        assert_null(fx_schedule(incoming, &cl, &msg));
        assert_string_equal(
                msg,
                "0/3 nodes are available: 1 node(s) didn't satisfy existing pods anti-affinity "
                "rules, 2 node(s) were unschedulable. preemption: 0/3 nodes are available: 1 "
                "No preemption victims found for incoming pod, 2 Preemption is not helpful "
                "for scheduling.");
        free(msg);
        /* a pod the term does not select is welcome */
        json_object_set_new(json_object_get(incoming, "metadata"), "labels",
                            json_pack("{s:s}", "app", "db"));
        assert_string_equal(fx_schedule(incoming, &cl, &msg), "n1");
        free(msg);
}

static void test_affinity_by_zone(void **state)
{
        struct fx *f = *state;
        struct scheduler_cluster cl = { .nodes = f->nodes, .pods = f->pods };
        cleanup_json json_t *p = fx_pod(NULL, "app", NULL, "{\"app\":\"front\"}", "100m", "64Mi");
        char *msg = NULL;

        fx_set(p, "spec.affinity",
               "{\"podAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":[{"
               "\"labelSelector\":{\"matchLabels\":{\"app\":\"db\"}},"
               "\"topologyKey\":\"topology.kubernetes.io/zone\"}]}}");
        /* no db pod anywhere, and the pod is not one itself */
        assert_null(fx_schedule(p, &cl, &msg));
        assert_string_equal(msg, "0/3 nodes are available: 3 node(s) didn't match pod affinity "
                                 "rules. preemption: 0/3 nodes are available: 3 Preemption is "
                                 "not helpful for scheduling.");
        free(msg);
        /* a db pod in zone b: only n3 */
        fx_pod(f->pods, "db", "n3", "{\"app\":\"db\"}", "3", "1Gi");
        assert_string_equal(fx_schedule(p, &cl, &msg), "n3");
        free(msg);
        /* in zone a now: n1 or n2, whichever */
        json_object_set_new(json_object_get(json_array_get(f->pods, 0), "spec"), "nodeName",
                            json_string("n2"));
        assert_string_not_equal(fx_schedule(p, &cl, &msg), "n3");
        free(msg);
}

static void test_affinity_first_of_group(void **state)
{
        struct fx *f = *state;
        struct scheduler_cluster cl = { .nodes = f->nodes, .pods = f->pods };
        cleanup_json json_t *p = fx_pod(NULL, "db", NULL, "{\"app\":\"db\"}", "100m", "64Mi");
        char *msg = NULL;

        /* K8S: a pod matching its own affinity term may start the group where no pod matches,
         * but only on nodes with the topology key */
        fx_set(p, "spec.affinity",
               "{\"podAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":[{"
               "\"labelSelector\":{\"matchLabels\":{\"app\":\"db\"}},"
               "\"topologyKey\":\"rack\"}]}}");
        assert_null(fx_schedule(p, &cl, &msg));
        assert_string_equal(msg, "0/3 nodes are available: 3 node(s) didn't match pod affinity "
                                 "rules. preemption: 0/3 nodes are available: 3 Preemption is "
                                 "not helpful for scheduling.");
        free(msg);
        fx_set(json_array_get(f->nodes, 1), "metadata.labels.rack", "\"r1\"");
        assert_string_equal(fx_schedule(p, &cl, &msg), "n2");
        free(msg);
}

static void test_namespaces(void **state)
{
        struct fx *f = *state;
        cleanup_json json_t *namespaces =
                fx_json("{\"other\":{\"metadata\":{\"name\":\"other\",\"labels\":{\"team\":"
                        "\"x\"}}},\"default\":{\"metadata\":{\"name\":\"default\"}}}");
        struct scheduler_cluster cl = { .nodes = f->nodes,
                                        .pods = f->pods,
                                        .namespaces = namespaces };
        cleanup_json json_t *p = web_pod("in", NULL, true);
        char *msg = NULL;

        /* web pods of namespace "other" on n1 and n2; n3 is cordoned */
        fx_pod(f->pods, "o1", "n1", "{\"app\":\"web\"}", NULL, NULL);
        fx_pod(f->pods, "o2", "n2", "{\"app\":\"web\"}", NULL, NULL);
        for (size_t i = 0; i < 2; i++)
                fx_set(json_array_get(f->pods, i), "metadata.namespace", "\"other\"");
        fx_set(json_array_get(f->nodes, 2), "spec.unschedulable", "true");
        /* a term without namespaces is about the pod's own namespace */
        assert_non_null(fx_schedule(p, &cl, &msg));
        free(msg);
        /* named */
        fx_set(json_array_get(json_path(p, "spec.affinity.podAntiAffinity."
                                           "requiredDuringSchedulingIgnoredDuringExecution"),
                              0),
               "namespaces", "[\"other\"]");
        assert_null(fx_schedule(p, &cl, &msg));
        free(msg);
        /* by namespaceSelector: team=x is "other" */
        fx_set(json_array_get(json_path(p, "spec.affinity.podAntiAffinity."
                                           "requiredDuringSchedulingIgnoredDuringExecution"),
                              0),
               "namespaces", "[]");
        fx_set(json_array_get(json_path(p, "spec.affinity.podAntiAffinity."
                                           "requiredDuringSchedulingIgnoredDuringExecution"),
                              0),
               "namespaceSelector", "{\"matchLabels\":{\"team\":\"x\"}}");
        assert_null(fx_schedule(p, &cl, &msg));
        assert_string_equal(msg, "0/3 nodes are available: 1 node(s) were unschedulable, 2 node(s) "
                                 "didn't match pod anti-affinity rules. preemption: 0/3 nodes are "
                                 "available: 2 No preemption victims found for incoming pod, 1 "
                                 "Preemption is not helpful for scheduling.");
        free(msg);
        fx_set(json_array_get(json_path(p, "spec.affinity.podAntiAffinity."
                                           "requiredDuringSchedulingIgnoredDuringExecution"),
                              0),
               "namespaceSelector", "{\"matchLabels\":{\"team\":\"y\"}}");
        assert_non_null(fx_schedule(p, &cl, &msg));
        free(msg);
        /* {} selects every namespace */
        fx_set(json_array_get(json_path(p, "spec.affinity.podAntiAffinity."
                                           "requiredDuringSchedulingIgnoredDuringExecution"),
                              0),
               "namespaceSelector", "{}");
        assert_null(fx_schedule(p, &cl, &msg));
        free(msg);
}

static void test_preferred_scores(void **state)
{
        struct fx *f = *state;
        cleanup_json json_t *scores = json_object();
        struct scheduler_cluster cl = { .nodes = f->nodes, .pods = f->pods, .ret_scores = scores };
        cleanup_json json_t *p = fx_pod(NULL, "in", NULL, "{\"app\":\"web\"}", "100m", "64Mi");
        char *msg = NULL;

        /* web pods on n1 and n2: preferring to be away from them (weight 100, by host) */
        fx_pod(f->pods, "w1", "n1", "{\"app\":\"web\"}", "100m", "64Mi");
        fx_pod(f->pods, "w2", "n2", "{\"app\":\"web\"}", "100m", "64Mi");
        fx_set(p, "spec.affinity",
               "{\"podAntiAffinity\":{\"preferredDuringSchedulingIgnoredDuringExecution\":[{"
               "\"weight\":100,\"podAffinityTerm\":{\"labelSelector\":{\"matchLabels\":{"
               "\"app\":\"web\"}},\"topologyKey\":\"kubernetes.io/hostname\"}}]}}");
        assert_string_equal(fx_schedule(p, &cl, &msg), "n3");
        free(msg);
        assert_int_equal(json_integer_value(json_path(scores, "n3.InterPodAffinity")), 100);
        assert_int_equal(json_integer_value(json_path(scores, "n1.InterPodAffinity")), 0);
        /* preferring to be near a cache pod in zone a, weight 50 against the hosts' 100: the
         * sum per node is n1 -100+50, n2 -100+50, n3 0 */
        fx_pod(f->pods, "cache", "n2", "{\"app\":\"cache\"}", "100m", "64Mi");
        fx_set(p, "spec.affinity.podAffinity",
               "{\"preferredDuringSchedulingIgnoredDuringExecution\":[{\"weight\":50,"
               "\"podAffinityTerm\":{\"labelSelector\":{\"matchLabels\":{\"app\":\"cache\"}},"
               "\"topologyKey\":\"topology.kubernetes.io/zone\"}}]}");
        json_object_clear(scores);
        assert_string_equal(fx_schedule(p, &cl, &msg), "n3");
        free(msg);
        assert_int_equal(json_integer_value(json_path(scores, "n1.InterPodAffinity")), 0);
        assert_int_equal(json_integer_value(json_path(scores, "n3.InterPodAffinity")), 100);
        /* the symmetric side: an existing pod's preferred affinity for app=web draws it */
        json_object_del(json_object_get(p, "spec"), "affinity");
        fx_set(json_array_get(f->pods, 2), "spec.affinity",
               "{\"podAffinity\":{\"preferredDuringSchedulingIgnoredDuringExecution\":[{"
               "\"weight\":80,\"podAffinityTerm\":{\"labelSelector\":{\"matchLabels\":{"
               "\"app\":\"web\"}},\"topologyKey\":\"kubernetes.io/hostname\"}}]}}");
        json_object_clear(scores);
        assert_string_equal(fx_schedule(p, &cl, &msg), "n2");
        free(msg);
        assert_int_equal(json_integer_value(json_path(scores, "n2.InterPodAffinity")), 100);
        assert_int_equal(json_integer_value(json_path(scores, "n1.InterPodAffinity")), 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_anti_affinity_one_per_node, setup, teardown),
                cmocka_unit_test_setup_teardown(test_existing_anti_affinity, setup, teardown),
                cmocka_unit_test_setup_teardown(test_affinity_by_zone, setup, teardown),
                cmocka_unit_test_setup_teardown(test_affinity_first_of_group, setup, teardown),
                cmocka_unit_test_setup_teardown(test_namespaces, setup, teardown),
                cmocka_unit_test_setup_teardown(test_preferred_scores, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
