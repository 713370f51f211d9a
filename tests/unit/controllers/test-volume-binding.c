/* test-volume-binding.c: the VolumeBinding plugin's decisions against upstream's
 * volume_binding_test.go and binder_test.go cases: PreFilter's reasons in the order of the pod's
 * volumes, Filter's ConflictReasons per node (bound volume affinity, missing volume, a claim
 * selected for another node, a class that cannot provision, allowedTopologies), the claims
 * PreBind annotates, the binding check PreBind waits on, and the FitError messages the
 * scheduler builds from them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "controllers/scheduler.h"
#include "controllers/volume-binding.h"

static json_t *load(const char *text)
{
        json_error_t e;
        json_t *v = json_loads(text, 0, &e);

        if (!v)
                fail_msg("bad JSON: %s: %s", e.text, text);
        return v;
}

/* n1 in zone a, n2 in zone b, both Ready with 4 cpu. */
static const char *nodes_json =
        "[{\"metadata\":{\"name\":\"n1\",\"labels\":{\"kubernetes.io/hostname\":\"n1\","
        "\"zone\":\"a\"}},\"status\":{\"allocatable\":{\"cpu\":\"4\",\"memory\":\"4Gi\","
        "\"pods\":\"110\"},\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}},"
        "{\"metadata\":{\"name\":\"n2\",\"labels\":{\"kubernetes.io/hostname\":\"n2\","
        "\"zone\":\"b\"}},\"status\":{\"allocatable\":{\"cpu\":\"4\",\"memory\":\"4Gi\","
        "\"pods\":\"110\"},\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}]";

static const char *classes_json =
        "{\"wffc\":{\"metadata\":{\"name\":\"wffc\"},\"provisioner\":\"flexlet.io/local-loop\","
        "\"volumeBindingMode\":\"WaitForFirstConsumer\"},"
        "\"imm\":{\"metadata\":{\"name\":\"imm\"},\"provisioner\":\"flexlet.io/local-loop\","
        "\"volumeBindingMode\":\"Immediate\"},"
        "\"static\":{\"metadata\":{\"name\":\"static\"},\"provisioner\":"
        "\"kubernetes.io/no-provisioner\",\"volumeBindingMode\":\"WaitForFirstConsumer\"},"
        "\"zoned\":{\"metadata\":{\"name\":\"zoned\"},\"provisioner\":\"flexlet.io/local-loop\","
        "\"volumeBindingMode\":\"WaitForFirstConsumer\",\"allowedTopologies\":["
        "{\"matchLabelExpressions\":[{\"key\":\"zone\",\"values\":[\"b\"]}]}]}}";

#define BOUND_ANN "\"annotations\":{\"pv.kubernetes.io/bind-completed\":\"yes\"}"
#define CLAIM(name, rv, meta, spec)                                                     \
 "\"default/" name "\":{\"metadata\":{\"name\":\"" name "\",\"namespace\":\"default\"," \
 "\"resourceVersion\":\"" rv "\"" meta "},\"spec\":{" spec "}"

static const char
        *claims_json =
                "{" CLAIM("bound-n1", "10", "," BOUND_ANN, "\"storageClassName\":\"wffc\",\"volumeName\":\"pv-n1\"") "}," CLAIM(
                        "bound-gone",
                        "10", "," BOUND_ANN, "\"volumeName\":\"pv-gone\"") "}," CLAIM("imm", "10",
                                                                                      "",
                                                                                      "\"storageClassName\":\"imm\"") "}," CLAIM("noclass", "10", "", "\"storageClassName\":\"\"") "}," CLAIM("ghostclass", "10", "", "\"storageClassName\":\"nope\"") "}," CLAIM("prebound", "10", "", "\"storageClassName\":\"wffc\",\"volumeName\":\"pv-n1\"") "}," CLAIM("wffc", "10", "", "\"storageClassName\":\"wffc\"") "}," CLAIM("sel-n2",
                                                                                                                                                                                                                                                                                                                                                                                                                           "10",
                                                                                                                                                                                                                                                                                                                                                                                                                           ",\"annotations\":{\"volume.kubernetes.io/selected-node\":\"n2\"}", "\"storageClassName\":\"wffc\"") "}," CLAIM("sel-n1-bound",
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                           "12",
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                           ",\"annotations\":{\"volume.kubernetes.io/selected-node\":\"n1\","
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                           "\"pv.kubernetes.io/bind-completed\":\"yes\"}",
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                           "\"storageClassName\":\"wffc\",\"volumeName\":\"pv-n1\"") "}," CLAIM("sel-n2-volume-gone",
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                "12",
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                ",\"annotations\":{\"volume.kubernetes.io/selected-node\":\"n2\","
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                "\"pv.kubernetes.io/bind-completed\":\"yes\"}",
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                "\"storageClassName\":\"wffc\",\"volumeName\":\"pv-later\"") "}," CLAIM("static",
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                        "10",
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                        "", "\"storageClassName\":\"static\"") "}," CLAIM("zoned", "10", "", "\"storageClassName\":\"zoned\"") "}," CLAIM("deleting",
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                          "10",
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                          ",\"deletionTimestamp\":\"2026-01-01T00:00:00Z\"",
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                          "\"storageClassName\":\"wffc\"") "}," CLAIM("lost",
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      "10",
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      "",
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      "\"storageClassName\":\"wffc\",\"volumeName\":\"pv-x\"") ",\"status\":{\"phase\":\"Lost\"}}," CLAIM("p-owned",
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                          "10",
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                          ",\"ownerReferences\":[{\"kind\":\"Pod\",\"name\":\"p\",\"uid\":\"pod-uid\","
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                          "\"controller\":true}]",
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                          "\"storageClassName\":\"wffc\"") "}," CLAIM("p-other",
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      "10",
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      ",\"ownerReferences\":[{\"kind\":\"Pod\",\"name\":\"q\",\"uid\":\"other\","
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      "\"controller\":true}]",
                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                      "\"storageClassName\":\"wffc\"") "}}";

static const char *volumes_json =
        "{\"pv-n1\":{\"metadata\":{\"name\":\"pv-n1\"},\"spec\":{\"nodeAffinity\":{\"required\":"
        "{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"kubernetes.io/hostname\","
        "\"operator\":\"In\",\"values\":[\"n1\"]}]}]}}}}}";

struct fixture {
        json_t *nodes, *claims, *volumes, *classes;
        struct vb_objects o;
};

static int setup(void **state)
{
        struct fixture *f = calloc(1, sizeof(*f));

        f->nodes = load(nodes_json);
        f->claims = load(claims_json);
        f->volumes = load(volumes_json);
        f->classes = load(classes_json);
        f->o = (struct vb_objects){ .claims = f->claims,
                                    .volumes = f->volumes,
                                    .classes = f->classes };
        *state = f;
        return 0;
}

static int teardown(void **state)
{
        struct fixture *f = *state;

        json_decref(f->nodes);
        json_decref(f->claims);
        json_decref(f->volumes);
        json_decref(f->classes);
        free(f);
        return 0;
}

/* Pod "p" (uid pod-uid) in "default" asking 1 cpu, whose volumes use the comma-separated
 * claims; "eph:<name>" is an ephemeral volume named <name>. */
static json_t *pod_using(const char *claims)
{
        json_t *pod = load("{\"metadata\":{\"name\":\"p\",\"namespace\":\"default\",\"uid\":"
                           "\"pod-uid\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":"
                           "{\"requests\":{\"cpu\":\"1\"}}}],\"volumes\":[{\"name\":\"scratch\","
                           "\"emptyDir\":{}}]}}");
        json_t *vols = json_path(pod, "spec.volumes");
        char *copy = strdup(claims), *save = NULL;

        for (char *c = strtok_r(copy, ",", &save); c; c = strtok_r(NULL, ",", &save)) {
                if (strncmp(c, "eph:", 4) == 0)
                        json_array_append_new(vols,
                                              json_pack("{s:s, s:{}}", "name", c + 4, "ephemeral"));
                else
                        json_array_append_new(vols,
                                              json_pack("{s:s, s:{s:s}}", "name", c,
                                                        "persistentVolumeClaim", "claimName", c));
        }
        free(copy);
        return pod;
}

static void test_prefilter(void **state)
{
        static const struct {
                const char *claims;
                const char *want; /* NULL: passes */
        } cases[] = {
                { "", NULL },
                { "bound-n1", NULL },
                { "wffc", NULL },
                { "sel-n2", NULL },
                { "missing", "persistentvolumeclaim \"missing\" not found" },
                { "deleting", "persistentvolumeclaim \"deleting\" is being deleted" },
                { "lost", "persistentvolumeclaim \"lost\" bound to non-existent persistentvolume "
                          "\"pv-x\"" },
                { "imm", "pod has unbound immediate PersistentVolumeClaims" },
                /* K8S IsDelayBindingMode: no class or a missing class is Immediate */
                { "noclass", "pod has unbound immediate PersistentVolumeClaims" },
                { "ghostclass", "pod has unbound immediate PersistentVolumeClaims" },
                /* K8S GetPodVolumeClaims: a pre-bound claim counts as unbound immediate */
                { "prebound", "pod has unbound immediate PersistentVolumeClaims" },
                /* podHasPVCs runs over every volume before the claims are classified */
                { "imm,missing", "persistentvolumeclaim \"missing\" not found" },
                { "wffc,deleting,missing", "persistentvolumeclaim \"deleting\" is being deleted" },
                /* generic ephemeral volumes: "<pod>-<volume>", owned by the pod */
                { "eph:owned", NULL },
                { "eph:gone",
                  "waiting for ephemeral volume controller to create the persistentvolumeclaim "
                  "\"p-gone\"" },
                { "eph:other", "PVC default/p-other was not created for pod default/p (pod is not "
                               "owner)" },
        };
        struct fixture *f = *state;

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                cleanup_json json_t *pod = pod_using(cases[i].claims);
                char *got = volume_binding_prefilter(pod, &f->o);

                print_message("# %s\n", cases[i].claims);
                if (cases[i].want)
                        assert_string_equal(got ?: "(null)", cases[i].want);
                else
                        assert_null(got);
                free(got);
        }
}

static void test_filter(void **state)
{
        static const struct {
                const char *claims;
                unsigned n1, n2;
        } cases[] = {
                { "", 0, 0 },
                { "bound-n1", 0, VB_NODE_CONFLICT },
                { "bound-gone", VB_PV_NOT_EXIST, VB_PV_NOT_EXIST },
                /* dynamic provisioning: any node */
                { "wffc", 0, 0 },
                { "sel-n2", VB_BIND_CONFLICT, 0 },
                { "static", VB_BIND_CONFLICT, VB_BIND_CONFLICT },
                { "zoned", VB_BIND_CONFLICT, 0 },
                { "bound-n1,sel-n2", VB_BIND_CONFLICT, VB_NODE_CONFLICT },
                { "bound-n1,static", VB_BIND_CONFLICT, VB_NODE_CONFLICT | VB_BIND_CONFLICT },
                { "bound-gone,bound-n1", VB_PV_NOT_EXIST, VB_PV_NOT_EXIST },
        };
        struct fixture *f = *state;
        const json_t *n1 = json_array_get(f->nodes, 0), *n2 = json_array_get(f->nodes, 1);

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                cleanup_json json_t *pod = pod_using(cases[i].claims);

                print_message("# %s\n", cases[i].claims);
                assert_int_equal(volume_binding_filter(pod, n1, &f->o), cases[i].n1);
                assert_int_equal(volume_binding_filter(pod, n2, &f->o), cases[i].n2);
        }
        assert_string_equal(vb_conflict_to_string(VB_NODE_CONFLICT),
                            "node(s) had volume node affinity conflict");
        assert_string_equal(vb_conflict_to_string(VB_BIND_CONFLICT),
                            "node(s) didn't find available persistent volumes to bind");
        assert_string_equal(
                vb_conflict_to_string(VB_PV_NOT_EXIST),
                "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)");
        assert_null(vb_conflict_to_string(VB_NODE_CONFLICT | VB_BIND_CONFLICT));
}

static void test_claims_to_provision(void **state)
{
        struct fixture *f = *state;
        cleanup_json json_t *mixed = pod_using("bound-n1,wffc,sel-n2,eph:owned");
        cleanup_json json_t *bound = pod_using("bound-n1");
        cleanup_json json_t *got = volume_binding_claims_to_provision(mixed, &f->o);
        cleanup_json json_t *none = volume_binding_claims_to_provision(bound, &f->o);
        cleanup_json json_t *want = load("[\"wffc\",\"sel-n2\",\"p-owned\"]");

        assert_true(json_equal(got, want));
        assert_int_equal(json_array_size(none), 0);
}

static void test_check(void **state)
{
        static const struct {
                const char *claims; /* {name: version of the scheduler's write} */
                const char *node;
                int want;
                const char *error;
        } cases[] = {
                /* selected, not bound yet: wait */
                { "{\"sel-n2\":0}", "n2", 0, NULL },
                { "{\"sel-n2\":10}", "n2", 0, NULL },
                /* our write has not come back yet: wait, even without the annotation */
                { "{\"wffc\":11}", "n1", 0, NULL },
                /* K8S: the provisioner removed selected-node (or another node is named) */
                { "{\"wffc\":10}", "n1", -1, "provisioning failed for PVC \"wffc\"" },
                { "{\"sel-n2\":0}", "n1", -1, "provisioning failed for PVC \"sel-n2\"" },
                { "{\"gone\":0}", "n1", -1,
                  "failed to check provisioning pvc: could not find v1.PersistentVolumeClaim "
                  "\"default/gone\"" },
                /* bound, on a volume of that node */
                { "{\"sel-n1-bound\":12}", "n1", 1, NULL },
                /* bound to a volume not seen yet: wait */
                { "{\"sel-n2-volume-gone\":0}", "n2", 0, NULL },
                /* one bound, one waiting */
                { "{\"sel-n1-bound\":0,\"wffc\":11}", "n1", 0, NULL },
                { "{\"x\":0}", "n9", -1, "failed to get node \"n9\": node \"n9\" not found" },
        };
        struct fixture *f = *state;
        cleanup_json json_t *pod = pod_using("wffc");

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                cleanup_json json_t *claims = load(cases[i].claims);
                const json_t *node = streq(cases[i].node, "n1")   ? json_array_get(f->nodes, 0)
                                     : streq(cases[i].node, "n2") ? json_array_get(f->nodes, 1)
                                                                  : NULL;
                char *error = NULL;
                int r = volume_binding_check(pod, cases[i].node, node, claims, &f->o, &error);

                print_message("# %s on %s\n", cases[i].claims, cases[i].node);
                assert_int_equal(r, cases[i].want);
                if (cases[i].error)
                        assert_string_equal(error ?: "(null)", cases[i].error);
                else
                        assert_null(error);
                free(error);
        }
}

/* A claim bound to pv-n1 whose selected node is n2: the volume's affinity decides. */
static void test_check_affinity(void **state)
{
        struct fixture *f = *state;
        cleanup_json json_t *pod = pod_using("moved");
        cleanup_json json_t *claims = load("{\"moved\":0}");
        char *error = NULL;

        json_object_set_new(
                f->claims, "default/moved",
                load("{\"metadata\":{\"name\":\"moved\",\"namespace\":\"default\",\"annotations\":"
                     "{\"volume.kubernetes.io/selected-node\":\"n2\",\"pv.kubernetes.io/"
                     "bind-completed\":\"yes\"}},\"spec\":{\"volumeName\":\"pv-n1\"}}"));
        assert_int_equal(
                volume_binding_check(pod, "n2", json_array_get(f->nodes, 1), claims, &f->o, &error),
                -1);
        assert_string_equal(error, "pv \"pv-n1\" node affinity doesn't match node \"n2\": no "
                                   "matching NodeSelectorTerms");
        free(error);
}

/* The scheduler's decision and upstream's FitError text. */
static void test_pick_node(void **state)
{
        static const struct {
                const char *claims;
                const char *want_node; /* NULL: none */
                const char *message;
        } cases[] = {
                /* the volume pins the pod, though both nodes are idle */
                { "bound-n1", "n1", NULL },
                { "sel-n2", "n2", NULL },
                { "zoned", "n2", NULL },
                { "imm", NULL,
                  "0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims. "
                  "preemption: 0/2 nodes are available: 2 Preemption is not helpful for "
                  "scheduling." },
                { "missing", NULL,
                  "0/2 nodes are available: persistentvolumeclaim \"missing\" not found. "
                  "preemption: 0/2 nodes are available: 2 Preemption is not helpful for "
                  "scheduling." },
                /* reasons as "<count> <reason>" strings, sorted */
                { "bound-n1,static", NULL,
                  "0/2 nodes are available: 1 node(s) had volume node affinity conflict, 2 "
                  "node(s) didn't find available persistent volumes to bind. preemption: 0/2 "
                  "nodes are available: 2 Preemption is not helpful for scheduling." },
                { "bound-gone", NULL,
                  "0/2 nodes are available: 2 node(s) unavailable due to one or more pvc(s) "
                  "bound to non-existent pv(s). preemption: 0/2 nodes are available: 2 "
                  "Preemption is not helpful for scheduling." },
        };
        struct fixture *f = *state;
        cleanup_json json_t *none = json_array();

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                cleanup_json json_t *pod = pod_using(cases[i].claims);
                char *msg = NULL;
                const char *got = scheduler_pick_node_volumes(pod, f->nodes, none, &f->o, &msg);

                print_message("# %s\n", cases[i].claims);
                if (cases[i].want_node) {
                        assert_string_equal(got ?: "(null)", cases[i].want_node);
                } else {
                        assert_null(got);
                        assert_string_equal(msg, cases[i].message);
                }
                free(msg);
        }
}

/* Resources are filtered before volumes: a full node says "Insufficient cpu" (preemption might
 * help there), the other its volume conflict; and no node at all comes before PreFilter. */
static void test_pick_node_order(void **state)
{
        struct fixture *f = *state;
        cleanup_json json_t *pod = pod_using("bound-n1,missing");
        cleanup_json json_t *pinned = pod_using("bound-n1");
        cleanup_json json_t *busy = load(
                "[{\"spec\":{\"nodeName\":\"n1\",\"containers\":[{\"name\":\"c\",\"resources\":"
                "{\"requests\":{\"cpu\":\"3500m\"}}}]}}]");
        cleanup_json json_t *empty = json_array();
        char *msg = NULL;

        assert_null(scheduler_pick_node_volumes(pod, empty, empty, &f->o, &msg));
        assert_string_equal(msg, "no nodes available to schedule pods");
        free(msg);
        msg = NULL;
        assert_null(scheduler_pick_node_volumes(pinned, f->nodes, busy, &f->o, &msg));
        assert_string_equal(msg, "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had "
                                 "volume node affinity conflict. preemption: 0/2 nodes are "
                                 "available: 1 No preemption victims found for incoming pod, 1 "
                                 "Preemption is not helpful for scheduling.");
        free(msg);
        msg = NULL;
        /* without the volume objects the claims are not looked at */
        assert_string_equal(scheduler_pick_node(pinned, f->nodes, busy, &msg), "n2");
        assert_null(msg);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_prefilter, setup, teardown),
                cmocka_unit_test_setup_teardown(test_filter, setup, teardown),
                cmocka_unit_test_setup_teardown(test_claims_to_provision, setup, teardown),
                cmocka_unit_test_setup_teardown(test_check, setup, teardown),
                cmocka_unit_test_setup_teardown(test_check_affinity, setup, teardown),
                cmocka_unit_test_setup_teardown(test_pick_node, setup, teardown),
                cmocka_unit_test_setup_teardown(test_pick_node_order, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
