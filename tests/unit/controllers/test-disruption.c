/* test-disruption.c: the disruption controller's arithmetic (expectedPods, desiredHealthy,
 * currentHealthy, disruptionsAllowed), its DisruptionAllowed condition and failSafe, the expiry
 * of disruptedPods and the selection of pods by a budget. Table-driven where the rule is a
 * table. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "api/pdb.h"
#include "base/alloc.h"
#include "base/json.h"
#include "controllers/disruption.h"

/* 2026-01-01T00:00:00Z */
#define NOW 1767225600

static json_t *pod(const char *name, bool ready, bool deleting, bool owned)
{
        json_t *p = json_pack("{s:{s:s, s:s, s:{s:s}}, s:{s:s, s:[{s:s, s:s}]}}", "metadata",
                              "name", name, "namespace", "default", "labels", "app", "web",
                              "status", "phase", "Running", "conditions", "type", "Ready", "status",
                              ready ? "True" : "False");

        if (deleting)
                json_object_set_new(json_object_get(p, "metadata"), "deletionTimestamp",
                                    json_string("2026-01-01T00:00:00Z"));
        if (owned)
                json_object_set_new(json_object_get(p, "metadata"), "ownerReferences",
                                    json_pack("[{s:s, s:s, s:s, s:s, s:b}]", "apiVersion",
                                              "apps/v1", "kind", "ReplicaSet", "name", "rs", "uid",
                                              "u1", "controller", 1));
        return p;
}

/* A budget from a spec fragment ("\"minAvailable\":1"), generation 1, empty status. */
static json_t *budget(const char *spec)
{
        cleanup_free char *text = xasprintf(
                "{\"metadata\":{\"name\":\"b\",\"namespace\":\"default\",\"generation\":1},"
                "\"spec\":{\"selector\":{\"matchLabels\":{\"app\":\"web\"}}%s%s},"
                "\"status\":{\"disruptionsAllowed\":0,\"currentHealthy\":0,"
                "\"desiredHealthy\":0,\"expectedPods\":0}}",
                *spec ? "," : "", spec);
        json_t *b = json_loads(text, 0, NULL);

        assert_non_null(b);
        return b;
}

static long long st(const json_t *pdb, const char *key)
{
        return json_integer_value(json_path(json_object_get(pdb, "status"), key));
}

static const char *cond(const json_t *pdb, const char *key)
{
        return json_string_value(
                json_object_get(json_array_get(json_path(pdb, "status.conditions"), 0), key));
}

/* K8S: getExpectedPodCount and updatePdbStatus over bare pods (three Ready, one not Ready,
 * one being deleted): an integer minAvailable counts pods, a percentage or maxUnavailable the
 * controllers' scale, which bare pods lack. */
static void test_arithmetic(void **state)
{
        static const struct {
                const char *spec;
                int expected, desired, current, allowed;
                const char *cond_status, *reason;
        } cases[] = {
                { "\"minAvailable\":1", 5, 1, 3, 2, "True", PDB_REASON_SUFFICIENT_PODS },
                { "\"minAvailable\":3", 5, 3, 3, 0, "False", PDB_REASON_INSUFFICIENT_PODS },
                { "\"minAvailable\":4", 5, 4, 3, 0, "False", PDB_REASON_INSUFFICIENT_PODS },
                { "\"minAvailable\":0", 5, 0, 3, 3, "True", PDB_REASON_SUFFICIENT_PODS },
                { "\"minAvailable\":\"50%\"", 0, 0, 3, 0, "False", PDB_REASON_INSUFFICIENT_PODS },
                { "\"maxUnavailable\":1", 0, 0, 3, 0, "False", PDB_REASON_INSUFFICIENT_PODS },
                { "\"maxUnavailable\":\"100%\"", 0, 0, 3, 0, "False",
                  PDB_REASON_INSUFFICIENT_PODS },
                { "", 0, 0, 3, 0, "False", PDB_REASON_INSUFFICIENT_PODS },
        };
        cleanup_json json_t *pods =
                json_pack("[o, o, o, o, o]", pod("a", true, false, false),
                          pod("b", true, false, false), pod("c", true, false, false),
                          pod("d", false, false, false), pod("e", true, true, false));

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                cleanup_json json_t *pdb = budget(cases[i].spec);
                cleanup_json json_t *next = disruption_next(pdb, pods, NOW);

                print_message("case %zu: %s\n", i, cases[i].spec);
                assert_non_null(next);
                assert_int_equal(st(next, "expectedPods"), cases[i].expected);
                assert_int_equal(st(next, "desiredHealthy"), cases[i].desired);
                assert_int_equal(st(next, "currentHealthy"), cases[i].current);
                assert_int_equal(st(next, "disruptionsAllowed"), cases[i].allowed);
                assert_int_equal(st(next, "observedGeneration"), 1);
                assert_string_equal(cond(next, "type"), PDB_CONDITION_DISRUPTION_ALLOWED);
                assert_string_equal(cond(next, "status"), cases[i].cond_status);
                assert_string_equal(cond(next, "reason"), cases[i].reason);
                assert_string_equal(cond(next, "lastTransitionTime"), "2026-01-01T00:00:00Z");
                /* the status written is up to date: the next pass writes nothing */
                assert_null(disruption_next(next, pods, NOW + 1));
        }
}

/* K8S: GetScaledValueFromIntOrPercent rounds up; getExpectedScale fails for a pod whose
 * controller no finder knows. */
static void test_expected(void **state)
{
        cleanup_error struct error *err = NULL;
        cleanup_json json_t *bare =
                json_pack("[o, o, o]", pod("a", true, false, false), pod("b", true, false, false),
                          pod("c", true, false, false));
        cleanup_json json_t *owned =
                json_pack("[o, o]", pod("a", true, false, false), pod("r", true, false, true));
        cleanup_json json_t *pct = budget("\"minAvailable\":\"34%\"");
        cleanup_json json_t *next = NULL;
        int expected = -1, desired = -1, unmanaged = -1;

        assert_int_equal(disruption_expected(pct, bare, &expected, &desired, &unmanaged, &err), 0);
        assert_int_equal(expected, 0);
        assert_int_equal(desired, 0);
        assert_int_equal(unmanaged, 3);
        assert_int_equal(disruption_expected(pct, owned, &expected, &desired, &unmanaged, &err),
                         -EINVAL);
        assert_string_equal(err->message, "found no controllers for pod \"r\"");
        /* K8S: failSafe: disruptionsAllowed 0, DisruptionAllowed False/SyncFailed, the error */
        next = disruption_next(pct, owned, NOW);
        assert_non_null(next);
        assert_int_equal(st(next, "disruptionsAllowed"), 0);
        assert_string_equal(cond(next, "status"), "False");
        assert_string_equal(cond(next, "reason"), PDB_REASON_SYNC_FAILED);
        assert_string_equal(cond(next, "message"), "found no controllers for pod \"r\"");
        assert_null(disruption_next(next, owned, NOW + 5));
}

/* K8S: the finders: pods of a ReplicaSet count its spec.replicas; pods of a ReplicaSet a
 * Deployment controls count the Deployment's, once however many ReplicaSets it has. */
static void test_finders(void **state)
{
        cleanup_error struct error *err = NULL;
        cleanup_json json_t *rss =
                json_pack("{s:{s:{s:s, s:[{s:s, s:s, s:b}]}, s:{s:i}}, s:{s:{s:s}, s:{s:i}}}",
                          "default/rs", "metadata", "uid", "u1", "ownerReferences", "kind",
                          "Deployment", "uid", "d1", "controller", 1, "spec", "replicas", 3,
                          "default/solo", "metadata", "uid", "u2", "spec", "replicas", 2);
        cleanup_json json_t *ds = json_pack("{s:{s:{s:s}, s:{s:i}}}", "default/web", "metadata",
                                            "uid", "d1", "spec", "replicas", 4);
        cleanup_json json_t *scales = disruption_scales(rss, ds);
        cleanup_json json_t *owned =
                json_pack("[o, o, o]", pod("a", true, false, true), pod("r", true, false, true),
                          pod("s", true, false, false));
        cleanup_json json_t *pct = budget("\"maxUnavailable\":\"50%\"");
        cleanup_json json_t *next = NULL;
        int expected = -1, desired = -1, unmanaged = -1;

        (void) state;
        assert_string_equal(json_path_string(json_object_get(scales, "u1"), "uid"), "d1");
        assert_int_equal(json_integer_value(json_path(json_object_get(scales, "u2"), "scale")), 2);
        assert_int_equal(disruption_expected_scaled(pct, owned, scales, &expected, &desired,
                                                    &unmanaged, &err),
                         0);
        /* the Deployment's 4, counted once for both of its pods; 50% of 4 may be unavailable */
        assert_int_equal(expected, 4);
        assert_int_equal(desired, 2);
        assert_int_equal(unmanaged, 1);
        next = disruption_next_scaled(pct, owned, scales, NOW);
        assert_non_null(next);
        assert_int_equal(st(next, "expectedPods"), 4);
        assert_int_equal(st(next, "disruptionsAllowed"), 1);
}

/* K8S: buildDisruptedPodMap and countHealthyPods: an evicted pod does not count as healthy
 * until DeletionTimeout has passed, then its entry goes; entries of pods gone or being deleted
 * go at once. */
static void test_disrupted_pods(void **state)
{
        cleanup_json json_t *pods =
                json_pack("[o, o, o]", pod("a", true, false, false), pod("b", true, false, false),
                          pod("c", true, true, false));
        cleanup_json json_t *pdb = budget("\"minAvailable\":1");
        cleanup_json json_t *soon = NULL, *late = NULL;

        json_object_set_new(json_object_get(pdb, "status"), "disruptedPods",
                            json_pack("{s:s, s:s, s:s}", "a", "2026-01-01T00:00:00Z", "c",
                                      "2026-01-01T00:00:00Z", "gone", "2026-01-01T00:00:00Z"));
        soon = disruption_next(pdb, pods, NOW + 60);
        assert_non_null(soon);
        assert_int_equal(st(soon, "currentHealthy"), 1);
        assert_int_equal(st(soon, "disruptionsAllowed"), 0);
        assert_int_equal(json_object_size(json_path(soon, "status.disruptedPods")), 1);
        assert_non_null(json_path(soon, "status.disruptedPods.a"));
        late = disruption_next(soon, pods, NOW + PDB_DELETION_TIMEOUT_S + 1);
        assert_non_null(late);
        assert_null(json_path(late, "status.disruptedPods"));
        assert_int_equal(st(late, "currentHealthy"), 2);
        assert_int_equal(st(late, "disruptionsAllowed"), 1);
        assert_string_equal(cond(late, "reason"), PDB_REASON_SUFFICIENT_PODS);
}

/* A spec change is a new generation: the status is written again to observe it. */
static void test_generation(void **state)
{
        cleanup_json json_t *pods = json_pack("[o]", pod("a", true, false, false));
        cleanup_json json_t *pdb = budget("\"minAvailable\":1");
        cleanup_json json_t *next = disruption_next(pdb, pods, NOW);

        assert_non_null(next);
        assert_null(disruption_next(next, pods, NOW));
        json_object_set_new(json_object_get(next, "metadata"), "generation", json_integer(2));
        json_decref(pdb);
        pdb = disruption_next(next, pods, NOW);
        assert_non_null(pdb);
        assert_int_equal(st(pdb, "observedGeneration"), 2);
        assert_int_equal(json_integer_value(json_object_get(
                                 json_array_get(json_path(pdb, "status.conditions"), 0),
                                 "observedGeneration")),
                         2);
}

/* K8S: getPodsForPdb: the budget's namespace and selector; a missing selector picks none, an
 * empty one every pod of the namespace. */
static void test_pods_for(void **state)
{
        cleanup_json json_t *snapshot = json_object();
        cleanup_json json_t *pdb = budget("\"minAvailable\":1");
        cleanup_json json_t *picked = NULL;
        json_t *other = pod("x", true, false, false);

        json_object_set_new(snapshot, "default/a", pod("a", true, false, false));
        json_object_set_new(json_path(other, "metadata.labels"), "app", json_string("db"));
        json_object_set_new(snapshot, "default/x", other);
        other = pod("o", true, false, false);
        json_object_set_new(json_object_get(other, "metadata"), "namespace", json_string("kube"));
        json_object_set_new(snapshot, "kube/o", other);

        assert_int_equal(disruption_pods_for(pdb, snapshot, &picked), 0);
        assert_int_equal(json_array_size(picked), 1);
        assert_string_equal(json_path_string(json_array_get(picked, 0), "metadata.name"), "a");
        json_decref(picked);
        json_object_set_new(json_object_get(pdb, "spec"), "selector", json_object());
        assert_int_equal(disruption_pods_for(pdb, snapshot, &picked), 0);
        assert_int_equal(json_array_size(picked), 2);
        json_decref(picked);
        json_object_del(json_object_get(pdb, "spec"), "selector");
        assert_int_equal(disruption_pods_for(pdb, snapshot, &picked), 0);
        assert_int_equal(json_array_size(picked), 0);
        json_decref(picked);
        json_object_set_new(json_object_get(pdb, "spec"), "selector",
                            json_pack("{s:[{s:s, s:s}]}", "matchExpressions", "key", "app",
                                      "operator", "Bogus"));
        picked = NULL;
        assert_int_equal(disruption_pods_for(pdb, snapshot, &picked), -EINVAL);
        assert_null(picked);
}

/* Go's %v of a *metav1.LabelSelector, as the UnmanagedPods event prints it. */
static void test_selector_string(void **state)
{
        cleanup_json json_t *sel = json_loads(
                "{\"matchLabels\":{\"tier\":\"front\",\"app\":\"web\"},\"matchExpressions\":"
                "[{\"key\":\"zone\",\"operator\":\"In\",\"values\":[\"a\",\"b\"]}]}",
                0, NULL);
        cleanup_free char *s = disruption_selector_string(sel);
        cleanup_free char *none = disruption_selector_string(NULL);

        assert_string_equal(s, "&LabelSelector{MatchLabels:map[string]string{app: web,tier: "
                               "front,},MatchExpressions:[]LabelSelectorRequirement{"
                               "LabelSelectorRequirement{Key:zone,Operator:In,Values:[a b],},},}");
        assert_string_equal(none, "nil");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_arithmetic),      cmocka_unit_test(test_expected),
                cmocka_unit_test(test_finders),         cmocka_unit_test(test_disrupted_pods),
                cmocka_unit_test(test_generation),      cmocka_unit_test(test_pods_for),
                cmocka_unit_test(test_selector_string),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
