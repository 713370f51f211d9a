/* test-pv-provisioner.c: the provisioner's pure decisions: the next step for a claim (the PV
 * controller's syncUnboundClaim/syncBoundClaim for provisioned claims, WaitForFirstConsumer
 * until the scheduler's selected-node, its events, and when a failure gives the node back), for a
 * volume (syncVolume's release and reclaim, external-provisioner's
 * shouldDelete and finalizer), what it refuses, the volume it builds, its file names. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api/local-volume.h"
#include "base/json.h"
#include "client/informer.h"
#include "controllers/pv-provisioner.h"

#define UID "7f00-aa"

static json_t *load(const char *text)
{
        json_error_t e;
        json_t *v = json_loads(text, 0, &e);

        if (!v)
                fail_msg("bad JSON: %s: %s", e.text, text);
        return v;
}

static void test_class_fstype(void **state)
{
        cleanup_json json_t *none = load("{}");
        cleanup_json json_t *xfs = load("{\"parameters\":{\"fsType\":\"xfs\"}}");
        cleanup_json json_t *csi = load(
                "{\"parameters\":{\"fsType\":\"xfs\",\"csi.storage.k8s.io/fstype\":\"btrfs\"}}");

        assert_string_equal(pv_class_fstype(none), "ext4");
        assert_string_equal(pv_class_fstype(NULL), "ext4");
        assert_string_equal(pv_class_fstype(xfs), "xfs");
        assert_string_equal(pv_class_fstype(csi), "btrfs");
}

/* The claim "c" in "default" (uid UID) of class "loop" asking 300Mi; extra is merged in. */
static json_t *claim(const char *extra)
{
        json_t *c = load("{\"kind\":\"PersistentVolumeClaim\",\"metadata\":{\"name\":\"c\","
                         "\"namespace\":\"default\",\"uid\":\"" UID "\"},"
                         "\"spec\":{\"storageClassName\":\"loop\",\"accessModes\":"
                         "[\"ReadWriteOnce\"],\"resources\":{\"requests\":{\"storage\":"
                         "\"300Mi\"}},\"volumeMode\":\"Filesystem\"},"
                         "\"status\":{\"phase\":\"Pending\"}}");
        cleanup_json json_t *e = load(extra);
        const char *key;
        json_t *v;

        json_object_foreach(e, key, v) {
                if (json_is_object(v) && json_is_object(json_object_get(c, key)))
                        json_object_update(json_object_get(c, key), v);
                else
                        json_object_set(c, key, v);
        }
        return c;
}

static json_t *sc(const char *provisioner, const char *mode)
{
        return json_pack("{s:{s:s}, s:s, s:s, s:s, s:{s:s}}", "metadata", "name", "loop",
                         "provisioner", provisioner, "volumeBindingMode", mode, "reclaimPolicy",
                         "Delete", "parameters", "fsType", "xfs");
}

/* The volume the provisioner made for the claim, in phase. */
static json_t *own_volume(const char *phase)
{
        cleanup_json json_t *c = claim("{}");
        cleanup_json json_t *s = sc(PV_LOCAL_LOOP_PROVISIONER, "Immediate");
        json_t *pv = pv_build_volume(c, s, 314572800, NULL);

        json_object_set_new(pv, "status", json_pack("{s:s}", "phase", phase));
        return pv;
}

#define ANN_PROV                                                                \
 "\"metadata\":{\"annotations\":{\"volume.kubernetes.io/storage-provisioner\":" \
 "\"flexlet.io/local-loop\"}}"
#define BOUND_CLAIM                                                               \
 "{\"metadata\":{\"annotations\":{\"pv.kubernetes.io/bind-completed\":\"yes\"}}," \
 "\"spec\":{\"volumeName\":\"pvc-" UID "\"},\"status\":{\"phase\":\"Bound\","     \
 "\"capacity\":{\"storage\":\"300Mi\"}}}"

#define PODS_JSON                                                                           \
 "[{\"metadata\":{\"name\":\"elsewhere\",\"namespace\":\"other\"},\"spec\":{\"nodeName\":"  \
 "\"n9\",\"volumes\":[{\"name\":\"v\",\"persistentVolumeClaim\":{\"claimName\":\"c\"}}]}}," \
 "{\"metadata\":{\"name\":\"done\",\"namespace\":\"default\"},\"spec\":{\"nodeName\":"      \
 "\"n8\",\"volumes\":[{\"name\":\"v\",\"persistentVolumeClaim\":{\"claimName\":\"c\"}}]},"  \
 "\"status\":{\"phase\":\"Succeeded\"}},"                                                   \
 "{\"metadata\":{\"name\":\"pending\",\"namespace\":\"default\"},\"spec\":{"                \
 "\"volumes\":[{\"name\":\"v\",\"persistentVolumeClaim\":{\"claimName\":\"c\"}}]}}]"

#define SCHEDULED_POD_JSON                                                              \
 "[{\"metadata\":{\"name\":\"user\",\"namespace\":\"default\"},\"spec\":{\"nodeName\":" \
 "\"n1\",\"volumes\":[{\"name\":\"scratch\",\"emptyDir\":{}},{\"name\":\"v\","          \
 "\"persistentVolumeClaim\":{\"claimName\":\"c\"}}]}}]"

struct claim_case {
        const char *name;
        const char *claim;       /* merged into claim() */
        const char *provisioner; /* NULL: the class does not exist */
        const char *mode;
        const char *volume; /* NULL: none; else the phase of own_volume() */
        enum pv_claim_step want;
};

static const struct claim_case claim_cases[] = {
        /* K8S syncUnboundClaim, dynamic provisioning */
        { "Immediate, not annotated: annotate (setClaimProvisioner)", "{}",
          PV_LOCAL_LOOP_PROVISIONER, "Immediate", NULL, PV_CLAIM_ANNOTATE },
        { "Immediate, annotated: provision", "{" ANN_PROV "}", PV_LOCAL_LOOP_PROVISIONER,
          "Immediate", NULL, PV_CLAIM_PROVISION },
        { "another provisioner: annotate for it", "{}", "ebs.csi.aws.com", "Immediate", NULL,
          PV_CLAIM_EXTERNAL },
        { "another provisioner, annotated for it: its business",
          "{\"metadata\":{\"annotations\":{\"volume.kubernetes.io/storage-provisioner\":"
          "\"ebs.csi.aws.com\"}}}",
          "ebs.csi.aws.com", "Immediate", NULL, PV_CLAIM_NOTHING },
        { "kubernetes.io/no-provisioner, Immediate: static only", "{}", PV_NO_PROVISIONER,
          "Immediate", NULL, PV_CLAIM_NOTHING },
        { "kubernetes.io/no-provisioner, WaitForFirstConsumer: wait", "{}", PV_NO_PROVISIONER,
          "WaitForFirstConsumer", NULL, PV_CLAIM_WAIT_CONSUMER },
        { "class missing: ProvisioningFailed", "{}", NULL, NULL, NULL, PV_CLAIM_CLASS_MISSING },
        { "no class (\"\"): waits for a static volume", "{\"spec\":{\"storageClassName\":\"\"}}",
          PV_LOCAL_LOOP_PROVISIONER, "Immediate", NULL, PV_CLAIM_NOTHING },
        { "being deleted: nothing",
          "{\"metadata\":{\"deletionTimestamp\":\"2026-01-01T00:00:00Z\"}}",
          PV_LOCAL_LOOP_PROVISIONER, "Immediate", NULL, PV_CLAIM_NOTHING },
        /* WaitForFirstConsumer: IsDelayBindingProvisioning, the scheduler's selected-node */
        { "WFFC, no selected node: wait (a pod bound by hand does not count)", "{}",
          PV_LOCAL_LOOP_PROVISIONER, "WaitForFirstConsumer", NULL, PV_CLAIM_WAIT_CONSUMER },
        { "WFFC, node selected: annotate",
          "{\"metadata\":{\"annotations\":{\"volume.kubernetes.io/selected-node\":\"n1\"}}}",
          PV_LOCAL_LOOP_PROVISIONER, "WaitForFirstConsumer", NULL, PV_CLAIM_ANNOTATE },
        { "WFFC, node selected, annotated: provision",
          "{\"metadata\":{\"annotations\":{\"volume.kubernetes.io/selected-node\":\"n1\","
          "\"volume.kubernetes.io/storage-provisioner\":\"flexlet.io/local-loop\"}}}",
          PV_LOCAL_LOOP_PROVISIONER, "WaitForFirstConsumer", NULL, PV_CLAIM_PROVISION },
        /* binding */
        { "its volume exists (crash before binding): bind", "{" ANN_PROV "}",
          PV_LOCAL_LOOP_PROVISIONER, "Immediate", "Pending", PV_CLAIM_BIND },
        { "volumeName set, claim Pending: finish binding",
          "{\"spec\":{\"volumeName\":\"pvc-" UID "\"}}", PV_LOCAL_LOOP_PROVISIONER, "Immediate",
          "Bound", PV_CLAIM_BIND },
        { "bound, volume not Bound yet: bind", BOUND_CLAIM, PV_LOCAL_LOOP_PROVISIONER, "Immediate",
          "Available", PV_CLAIM_BIND },
        { "bound both ways: nothing", BOUND_CLAIM, PV_LOCAL_LOOP_PROVISIONER, "Immediate", "Bound",
          PV_CLAIM_NOTHING },
        /* K8S syncBoundClaim: "Bound claim has lost its PersistentVolume" */
        { "bound, volume gone: Lost", BOUND_CLAIM, PV_LOCAL_LOOP_PROVISIONER, "Immediate", NULL,
          PV_CLAIM_LOST },
        { "asks for a volume that does not exist: stays Pending",
          "{\"spec\":{\"volumeName\":\"pv-x\"}}", PV_LOCAL_LOOP_PROVISIONER, "Immediate", NULL,
          PV_CLAIM_NOTHING },
};

static void test_claim_next(void **state)
{
        for (size_t i = 0; i < sizeof(claim_cases) / sizeof(claim_cases[0]); i++) {
                const struct claim_case *t = &claim_cases[i];
                cleanup_json json_t *c = claim(t->claim);
                cleanup_json json_t *s = t->provisioner ? sc(t->provisioner, t->mode) : NULL;
                cleanup_json json_t *pv = t->volume ? own_volume(t->volume) : NULL;
                enum pv_claim_step got;

                print_message("# %s\n", t->name);
                got = pv_claim_next(c, s, pv);
                assert_string_equal(pv_claim_step_to_string(got), pv_claim_step_to_string(t->want));
        }
}

/* K8S syncBoundClaim: a Lost claim whose hand-made volume comes back naming its uid is bound
 * again; one naming no uid (misbound upstream) and a claim not Lost are left alone. */
static void test_lost_claim_volume_back(void **state)
{
        static const struct {
                const char *claim_ref_uid, *phase;
                enum pv_claim_step want;
        } cases[] = {
                { "\"uid\":\"" UID "\"", "Lost", PV_CLAIM_BIND },
                { "\"uid\":\"\"", "Lost", PV_CLAIM_NOTHING },
                { "\"uid\":\"other\"", "Lost", PV_CLAIM_NOTHING },
                { "\"uid\":\"" UID "\"", "Bound", PV_CLAIM_NOTHING },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                cleanup_free char *extra = NULL, *vol = NULL;
                cleanup_json json_t *c = NULL, *pv = NULL;

                assert_true(asprintf(&extra,
                                     "{\"metadata\":{\"annotations\":{\"pv.kubernetes.io/"
                                     "bind-completed\":\"yes\"}},\"spec\":{\"storageClassName\":"
                                     "\"\",\"volumeName\":\"pv-hand\"},\"status\":{\"phase\":"
                                     "\"%s\"}}",
                                     cases[i].phase) > 0);
                assert_true(asprintf(&vol,
                                     "{\"metadata\":{\"name\":\"pv-hand\"},\"spec\":{"
                                     "\"hostPath\":{\"path\":\"/tmp/x\"},\"claimRef\":{"
                                     "\"namespace\":\"default\",\"name\":\"c\",%s}},"
                                     "\"status\":{\"phase\":\"Available\"}}",
                                     cases[i].claim_ref_uid) > 0);
                c = claim(extra);
                pv = load(vol);
                assert_string_equal(pv_claim_step_to_string(pv_claim_next(c, NULL, pv)),
                                    pv_claim_step_to_string(cases[i].want));
        }
}

/* K8S emitEventForUnboundDelayBindingClaim: which pods the claim waits for */
static void test_claim_wait_event(void **state)
{
        static const struct {
                const char *pods;
                const char *reason, *message;
        } cases[] = {
                { "[]", "WaitForFirstConsumer",
                  "waiting for first consumer to be created before binding" },
                /* another namespace, finished, scheduled: none counts; "pending" does */
                { PODS_JSON, "WaitForPodScheduled", "waiting for pod pending to be scheduled" },
                { SCHEDULED_POD_JSON, "WaitForFirstConsumer",
                  "waiting for first consumer to be created before binding" },
                { "[{\"metadata\":{\"name\":\"a\",\"namespace\":\"default\"},\"spec\":{"
                  "\"volumes\":[{\"name\":\"v\",\"persistentVolumeClaim\":{\"claimName\":"
                  "\"c\"}}]}},{\"metadata\":{\"name\":\"b\",\"namespace\":\"default\"},"
                  "\"spec\":{\"volumes\":[{\"name\":\"x\",\"persistentVolumeClaim\":{"
                  "\"claimName\":\"c\"}}]}}]",
                  "WaitForPodScheduled", "waiting for pods a,b to be scheduled" },
        };
        cleanup_json json_t *c = claim("{}");

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                cleanup_json json_t *pods = load(cases[i].pods);
                const char *reason = NULL;
                char *msg = pv_claim_wait_event(c, pods, &reason);

                assert_string_equal(reason, cases[i].reason);
                assert_string_equal(msg, cases[i].message);
                free(msg);
        }
}

/* external-provisioner's checkError: ResourceExhausted (with topology and a selected node) gives
 * the node back; any other failure (a missing mkfs is ENOENT) is retried where it is */
static void test_provisioning_reschedules(void **state)
{
        cleanup_json json_t *selected = claim(
                "{\"metadata\":{\"annotations\":{\"volume.kubernetes.io/selected-node\":\"n1\"}}}");
        cleanup_json json_t *plain = claim("{}");

        assert_false(pv_provisioning_reschedules(selected, ENOENT));
        assert_true(pv_provisioning_reschedules(selected, ENOSPC));
        assert_true(pv_provisioning_reschedules(selected, EDQUOT));
        assert_false(pv_provisioning_reschedules(selected, EINVAL));
        assert_false(pv_provisioning_reschedules(selected, EIO));
        assert_false(pv_provisioning_reschedules(plain, ENOSPC));
        assert_false(pv_provisioning_reschedules(plain, EDQUOT));
}

static void test_claim_ignores_volumes_made_by_hand(void **state)
{
        /* a volume annotated as ours but named by hand, pre-bound without a uid */
        cleanup_json json_t *c = claim("{\"spec\":{\"volumeName\":\"pv-data\"}}");
        cleanup_json json_t *s = sc(PV_LOCAL_LOOP_PROVISIONER, "Immediate");
        cleanup_json json_t *pv =
                load("{\"metadata\":{\"name\":\"pv-data\",\"annotations\":{\"pv.kubernetes.io/"
                     "provisioned-by\":\"flexlet.io/local-loop\"}},\"spec\":{\"claimRef\":{"
                     "\"namespace\":\"default\",\"name\":\"c\"},\"csi\":{\"driver\":"
                     "\"local-loop.flexlet.io\",\"volumeHandle\":\"pvc-data\"},"
                     "\"persistentVolumeReclaimPolicy\":\"Delete\"}}");

        assert_int_equal(pv_claim_next(c, s, pv), PV_CLAIM_NOTHING);
        assert_int_equal(pv_volume_next(pv, NULL), PV_VOLUME_NOTHING);
}

static void test_refusal(void **state)
{
        static const struct {
                const char *claim;
                const char *fstype;
                const char *want; /* substring of the refusal, NULL: accepted */
        } cases[] = {
                { "{}", "xfs", NULL },
                { "{\"spec\":{\"accessModes\":[\"ReadWriteOncePod\"]}}", "ext4", NULL },
                { "{\"spec\":{\"accessModes\":[\"ReadWriteOnce\",\"ReadWriteMany\"]}}", "ext4",
                  "access mode ReadWriteMany is not supported by flexlet.io/local-loop" },
                { "{\"spec\":{\"accessModes\":[\"ReadOnlyMany\"]}}", "ext4",
                  "access mode ReadOnlyMany" },
                { "{\"spec\":{\"volumeMode\":\"Block\"}}", "ext4", "volumeMode Block" },
                { "{\"spec\":{\"dataSource\":{\"kind\":\"PersistentVolumeClaim\",\"name\":\"x\"}}}",
                  "ext4", "data sources are not supported" },
                { "{}", "zfs", "fsType \"zfs\" is not supported by flexlet.io/local-loop" },
                { "{\"spec\":{\"resources\":{\"requests\":{\"storage\":\"17Ti\"}}}}", "ext4",
                  "more than the largest volume, 16Ti" },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                cleanup_json json_t *c = claim(cases[i].claim);
                cleanup_json json_t *s =
                        json_pack("{s:{s:s}}", "parameters", "fsType", cases[i].fstype);
                int64_t bytes = -1;
                char *why = pv_claim_refusal(c, s, &bytes);

                if (!cases[i].want) {
                        assert_null(why);
                        assert_int_equal(bytes, 314572800);
                } else {
                        assert_non_null(why);
                        if (!strstr(why, cases[i].want))
                                fail_msg("refusal \"%s\" lacks \"%s\"", why, cases[i].want);
                }
                free(why);
        }
}

/* the node a built volume lives on, and the size its node's file will have */
static void test_pinned_and_rounded(void **state)
{
        cleanup_json json_t *c = claim("{}");
        cleanup_json json_t *s = load("{\"metadata\":{\"name\":\"x\"}}");
        cleanup_json json_t *on_n1 = pv_build_volume(c, s, 314572800, "n1");
        cleanup_json json_t *nowhere = pv_build_volume(c, s, 314572800, NULL);
        cleanup_json json_t *two = load(
                "{\"spec\":{\"nodeAffinity\":{\"required\":{\"nodeSelectorTerms\":[{"
                "\"matchExpressions\":[{\"key\":\"kubernetes.io/hostname\",\"operator\":\"In\","
                "\"values\":[\"n1\",\"n2\"]}]}]}}}}");

        assert_true(local_volume_pinned_to(on_n1, "n1"));
        assert_false(local_volume_pinned_to(on_n1, "n2"));
        assert_false(local_volume_pinned_to(nowhere, "n1"));
        assert_false(local_volume_pinned_to(two, "n1")); /* not this node alone */
        assert_int_equal(pv_round_up(1000000000), 1000001536);
        assert_int_equal(pv_round_up(314572800), 314572800);
        assert_int_equal(pv_round_up(1), 4096);
}

static void test_build_volume(void **state)
{
        cleanup_json json_t *c =
                claim("{\"metadata\":{\"resourceVersion\":\"42\"},\"spec\":{\"accessModes\":"
                      "[\"ReadWriteOncePod\"]}}");
        cleanup_json json_t *s =
                load("{\"metadata\":{\"name\":\"fast\"},\"provisioner\":\"flexlet.io/local-loop\","
                     "\"reclaimPolicy\":\"Retain\",\"parameters\":{\"fsType\":\"btrfs\"},"
                     "\"mountOptions\":[\"discard\"]}");
        cleanup_json json_t *bare = load("{\"metadata\":{\"name\":\"plain\"}}");
        cleanup_json json_t *pv = pv_build_volume(c, s, 314572800, "n1");
        cleanup_json json_t *odd = pv_build_volume(c, bare, 1000001536, NULL);
        cleanup_json json_t *want = load(
                "{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolume\",\"metadata\":{\"name\":"
                "\"pvc-" UID "\",\"annotations\":{\"pv.kubernetes.io/provisioned-by\":"
                "\"flexlet.io/local-loop\"},\"finalizers\":[\"external-provisioner.volume."
                "kubernetes.io/finalizer\"]},\"spec\":{\"accessModes\":[\"ReadWriteOncePod\"],"
                "\"capacity\":{\"storage\":\"300Mi\"},\"claimRef\":{\"apiVersion\":\"v1\","
                "\"kind\":\"PersistentVolumeClaim\",\"namespace\":\"default\",\"name\":\"c\","
                "\"uid\":\"" UID "\",\"resourceVersion\":\"42\"},\"csi\":{\"driver\":"
                "\"local-loop.flexlet.io\",\"volumeHandle\":\"pvc-" UID "\",\"fsType\":"
                "\"btrfs\"},\"persistentVolumeReclaimPolicy\":\"Retain\",\"storageClassName\":"
                "\"fast\",\"volumeMode\":\"Filesystem\",\"mountOptions\":[\"discard\"],"
                "\"nodeAffinity\":{\"required\":{\"nodeSelectorTerms\":[{\"matchExpressions\":"
                "[{\"key\":\"kubernetes.io/hostname\",\"operator\":\"In\",\"values\":[\"n1\"]}]}"
                "]}}}}");

        if (!json_equal(pv, want)) {
                char *got = json_dumps(pv, JSON_SORT_KEYS);
                fail_msg("built %s", got);
        }
        /* K8S: NewQuantity(bytes, BinarySI); the class's defaults: Delete, ext4 */
        assert_string_equal(json_path_string(odd, "spec.capacity.storage"), "976564Ki");
        assert_string_equal(json_path_string(odd, "spec.persistentVolumeReclaimPolicy"), "Delete");
        assert_string_equal(json_path_string(odd, "spec.csi.fsType"), "ext4");
        assert_null(json_path(odd, "spec.nodeAffinity"));
        assert_null(json_path(odd, "spec.mountOptions"));
}

struct volume_case {
        const char *name;
        const char *phase;
        const char *policy;
        const char *claim; /* NULL: gone; else merged into claim() */
        bool deleted;      /* deletionTimestamp set */
        bool finalizer;    /* keep the provisioner's finalizer */
        enum pv_volume_step want;
};

/* K8S pv_controller_test.go "Unit test set 4" for the rows a provisioned volume meets, and
 * external-provisioner's shouldDelete / HonorPVReclaimPolicy. */
static const struct volume_case volume_cases[] = {
        { "claim bound to it, volume Pending: Bound", "Pending", "Delete",
          "{\"spec\":{\"volumeName\":\"pvc-" UID "\"}}", false, true, PV_VOLUME_BOUND },
        { "claim bound to it, volume Bound: nothing", "Bound", "Delete",
          "{\"spec\":{\"volumeName\":\"pvc-" UID "\"}}", false, true, PV_VOLUME_NOTHING },
        { "claim not bound yet: the claim's pass binds", "Pending", "Delete", "{}", false, true,
          PV_VOLUME_NOTHING },
        { "claim gone, Bound: Released", "Bound", "Delete", NULL, false, true, PV_VOLUME_RELEASE },
        { "claim gone, Retain, Bound: Released", "Bound", "Retain", NULL, false, true,
          PV_VOLUME_RELEASE },
        { "Released, Delete: delete", "Released", "Delete", NULL, false, true, PV_VOLUME_DELETE },
        { "Failed, Delete: delete (Failed stays)", "Failed", "Delete", NULL, false, true,
          PV_VOLUME_DELETE },
        { "Released, Retain: kept", "Released", "Retain", NULL, false, true, PV_VOLUME_NOTHING },
        { "claim recreated under the same name: Released", "Bound", "Delete",
          "{\"metadata\":{\"uid\":\"new\"}}", false, true, PV_VOLUME_RELEASE },
        { "claim bound elsewhere, Delete: Released", "Bound", "Delete",
          "{\"spec\":{\"volumeName\":\"pvc-other\"}}", false, true, PV_VOLUME_RELEASE },
        { "claim bound elsewhere, Retain: kept", "Bound", "Retain",
          "{\"spec\":{\"volumeName\":\"pvc-other\"}}", false, true, PV_VOLUME_NOTHING },
        { "deleted while its claim uses it: kept", "Bound", "Delete",
          "{\"spec\":{\"volumeName\":\"pvc-" UID "\"}}", true, true, PV_VOLUME_NOTHING },
        { "deleted, Bound, claim gone: Released first", "Bound", "Delete", NULL, true, true,
          PV_VOLUME_RELEASE },
        { "deleted, Released, with the finalizer: finalize", "Released", "Delete", NULL, true, true,
          PV_VOLUME_FINALIZE },
        { "deleted, Released, Retain: finalize (the file stays)", "Released", "Retain", NULL, true,
          true, PV_VOLUME_FINALIZE },
        { "deleted without it: nothing", "Released", "Delete", NULL, true, false,
          PV_VOLUME_NOTHING },
};

static void test_volume_next(void **state)
{
        for (size_t i = 0; i < sizeof(volume_cases) / sizeof(volume_cases[0]); i++) {
                const struct volume_case *t = &volume_cases[i];
                cleanup_json json_t *pv = own_volume(t->phase);
                cleanup_json json_t *c = t->claim ? claim(t->claim) : NULL;
                enum pv_volume_step got;

                print_message("# %s\n", t->name);
                json_object_set_new(json_object_get(pv, "spec"), "persistentVolumeReclaimPolicy",
                                    json_string(t->policy));
                if (t->deleted)
                        json_object_set_new(json_object_get(pv, "metadata"), "deletionTimestamp",
                                            json_string("2026-01-01T00:00:00Z"));
                if (!t->finalizer)
                        json_object_del(json_object_get(pv, "metadata"), "finalizers");
                got = pv_volume_next(pv, c);
                assert_string_equal(pv_volume_step_to_string(got),
                                    pv_volume_step_to_string(t->want));
        }
}

static void test_object_key(void **state)
{
        cleanup_json json_t *c = claim("{}");
        cleanup_json json_t *pv = own_volume("Bound");
        char *a = informer_key(c), *b = informer_key(pv);

        assert_string_equal(a, "default/c");
        assert_string_equal(b, "pvc-" UID);
        free(a);
        free(b);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_class_fstype),
                cmocka_unit_test(test_claim_next),
                cmocka_unit_test(test_lost_claim_volume_back),
                cmocka_unit_test(test_claim_wait_event),
                cmocka_unit_test(test_provisioning_reschedules),
                cmocka_unit_test(test_claim_ignores_volumes_made_by_hand),
                cmocka_unit_test(test_refusal),
                cmocka_unit_test(test_pinned_and_rounded),
                cmocka_unit_test(test_build_volume),
                cmocka_unit_test(test_volume_next),
                cmocka_unit_test(test_object_key),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
