/* test-pv-expander.c: the volume expander's pure decisions: external-resizer's expandAndRecover
 * table (TestExpandAndRecover) and KEP-1790's recovery (S25, S26), resuming after a crash from
 * the file's size, pvcNeedResize, the error classes, MergeResizeConditionsOfPVC and the claim
 * status of each transition. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/json.h"
#include "controllers/pv-provisioner.h"
#include "controllers/volume-expander.h"

#define NS  "default"
#define UID "2b3c"

/* A bound claim of class "loop": request spec, status capacity status, allocatedResources
 * allocated and allocatedResourceStatuses[storage] rs (NULL or "": absent). */
static json_t *claim(const char *spec, const char *status, const char *allocated, const char *rs)
{
        json_t *c = json_pack("{s:s, s:{s:s, s:s, s:s}, s:{s:s, s:s, s:{s:{s:s}}}, "
                              "s:{s:s, s:{s:s}}}",
                              "kind", "PersistentVolumeClaim", "metadata", "name", "claim01",
                              "namespace", NS, "uid", UID, "spec", "storageClassName", "loop",
                              "volumeName", "pvc-" UID, "resources", "requests", "storage", spec,
                              "status", "phase", "Bound", "capacity", "storage", status);
        json_t *st = json_object_get(c, "status");

        if (allocated && *allocated)
                json_object_set_new(st, "allocatedResources",
                                    json_pack("{s:s}", "storage", allocated));
        if (rs && *rs)
                json_object_set_new(st, "allocatedResourceStatuses",
                                    json_pack("{s:s}", "storage", rs));
        return c;
}

/* A local-loop volume of capacity, bound to the claim above. */
static json_t *volume(const char *capacity)
{
        return json_pack("{s:s, s:{s:s}, s:{s:{s:s}, s:{s:s, s:s, s:s}, s:{s:s, s:s}}}", "kind",
                         "PersistentVolume", "metadata", "name", "pvc-" UID, "spec", "capacity",
                         "storage", capacity, "claimRef", "namespace", NS, "name", "claim01", "uid",
                         UID, "csi", "driver", PV_LOCAL_LOOP_DRIVER, "volumeHandle", "pvc-" UID);
}

static json_t *class(bool expandable)
{
        return json_pack("{s:{s:s}, s:s, s:b}", "metadata", "name", "loop", "provisioner",
                         PV_LOCAL_LOOP_PROVISIONER, "allowVolumeExpansion", expandable);
}

struct plan_case {
        const char *name;
        const char *spec, *status, *allocated, *rs, *pv;
        bool final_error, slow;
        int64_t file_bytes;
        /* expected */
        enum volume_expand_step step;
        const char *size;
        bool mark;
};

/* K8S external-resizer pkg/controller/expand_and_recover_test.go TestExpandAndRecover, with
 * createPV(n) = n Gi and the resizer supporting both controller and node expansion (the rows
 * that disable one do not apply to local-loop volumes); "call" there is GROW here, and the
 * expected allocatedResources is size. Then KEP-1790's S25/S26 and flexlet's crash cases. */
static const struct plan_case plan_cases[] = {
        { "spec > pv, no status: expand to spec", "2G", "1G", "", "", "1Gi", false, false, -1,
          VOLUME_EXPAND_GROW, "2G", true },
        { "spec = pv, no status: expand to spec (nothing recorded)", "1G", "1G", "", "", "1Gi",
          false, false, -1, VOLUME_EXPAND_GROW, "1G", true },
        { "spec > pv, controller infeasible at 10G: recover to the lowered 5G", "5G", "3G", "10G",
          PVC_CONTROLLER_RESIZE_INFEASIBLE, "3Gi", false, false, -1, VOLUME_EXPAND_GROW, "5G",
          true },
        { "pv >= spec, node infeasible at 10G: expand again at allocated", "5G", "3G", "10G",
          PVC_NODE_RESIZE_INFEASIBLE, "10Gi", false, false, -1, VOLUME_EXPAND_GROW, "10G", false },
        { "pv = spec, node resize pending: the node's turn", "1G", "1G", "1G",
          PVC_NODE_RESIZE_PENDING, "1Gi", false, false, -1, VOLUME_EXPAND_NOTHING, NULL, false },
        { "pv >= spec, node infeasible at 2G: expand again at allocated", "2G", "1G", "2G",
          PVC_NODE_RESIZE_INFEASIBLE, "2Gi", false, false, -1, VOLUME_EXPAND_GROW, "2G", false },
        { "spec > pv, node pending at 3G: let it finish", "10G", "1G", "3G",
          PVC_NODE_RESIZE_PENDING, "3Gi", false, false, -1, VOLUME_EXPAND_NOTHING, NULL, false },
        { "spec > pv, node in progress at 3G: let it finish", "10G", "1G", "3G",
          PVC_NODE_RESIZE_IN_PROGRESS, "3Gi", false, false, -1, VOLUME_EXPAND_NOTHING, NULL,
          false },
        { "spec > pv, node pending at 3G, pv below it: expand to allocated", "10G", "1G", "3G",
          PVC_NODE_RESIZE_PENDING, "1Gi", false, false, -1, VOLUME_EXPAND_GROW, "3G", false },
        /* S25: ControllerResizeInProgress without a final error keeps 10G; with one, the
         * lowered request wins */
        { "S25 controller in progress, uncertain: keep allocated", "5G", "3G", "10G",
          PVC_CONTROLLER_RESIZE_IN_PROGRESS, "3Gi", false, false, -1, VOLUME_EXPAND_GROW, "10G",
          false },
        { "S25 controller in progress after a final error: the request", "5G", "3G", "10G",
          PVC_CONTROLLER_RESIZE_IN_PROGRESS, "3Gi", true, false, -1, VOLUME_EXPAND_GROW, "5G",
          true },
        /* S26: infeasible at the same size waits for the slow retry; a new size goes at once */
        { "S26 infeasible, same size, slow retry pending: wait", "20Ti", "300Mi", "20Ti",
          PVC_CONTROLLER_RESIZE_INFEASIBLE, "300Mi", true, true, -1, VOLUME_EXPAND_WAIT, "20Ti",
          false },
        { "S26 infeasible, same size, slow retry due: try again", "20Ti", "300Mi", "20Ti",
          PVC_CONTROLLER_RESIZE_INFEASIBLE, "300Mi", true, false, -1, VOLUME_EXPAND_GROW, "20Ti",
          false },
        { "S26 infeasible, lowered request: at once", "900Mi", "300Mi", "20Ti",
          PVC_CONTROLLER_RESIZE_INFEASIBLE, "300Mi", true, true, -1, VOLUME_EXPAND_GROW, "900Mi",
          true },
        /* crash after the file grew, before the PV: resume at allocated, status unchanged */
        { "crash after growing: resume", "900Mi", "300Mi", "900Mi",
          PVC_CONTROLLER_RESIZE_IN_PROGRESS, "300Mi", false, false, 943718400, VOLUME_EXPAND_GROW,
          "900Mi", false },
        /* crash after the PV, before NodeResizePending: pv >= spec, resume to hand over */
        { "crash after the PV: hand over", "900Mi", "300Mi", "900Mi",
          PVC_CONTROLLER_RESIZE_IN_PROGRESS, "900Mi", false, false, 943718400, VOLUME_EXPAND_GROW,
          "900Mi", false },
        { "pv >= spec, FileSystemResizePending without status: nothing", "1G", "1G", "", "", "1Gi",
          false, false, -1, VOLUME_EXPAND_NOTHING, NULL, false },
};

static void test_plan_table(void **state)
{
        cleanup_json json_t *sc = class(true);

        for (size_t i = 0; i < sizeof(plan_cases) / sizeof(plan_cases[0]); i++) {
                const struct plan_case *t = &plan_cases[i];
                cleanup_json json_t *pvc = claim(t->spec, t->status, t->allocated, t->rs);
                cleanup_json json_t *pv = volume(t->pv);
                struct volume_expand_input in = { .pvc = pvc,
                                                  .pv = pv,
                                                  .sc = sc,
                                                  .file_bytes = t->file_bytes,
                                                  .final_error = t->final_error,
                                                  .slow = t->slow };
                struct volume_expand_plan plan;

                if (strstr(t->name, "FileSystemResizePending"))
                        json_object_set_new(json_object_get(pvc, "status"), "conditions",
                                            json_pack("[{s:s, s:s}]", "type",
                                                      PVC_COND_FILE_SYSTEM_RESIZE_PENDING, "status",
                                                      "True"));
                print_message("# %s\n", t->name);
                assert_int_equal(volume_expander_plan(&in, &plan), 0);
                assert_string_equal(volume_expand_step_to_string(plan.step),
                                    volume_expand_step_to_string(t->step));
                if (t->size)
                        assert_string_equal(plan.size, t->size);
                if (t->step == VOLUME_EXPAND_GROW)
                        assert_int_equal(plan.mark, t->mark);
        }
}

static void test_plan_sizes(void **state)
{
        cleanup_json json_t *sc = class(true);
        cleanup_json json_t *pvc = claim("900Mi", "300Mi", "", "");
        cleanup_json json_t *pv = volume("300Mi");
        struct volume_expand_input in = { .pvc = pvc, .pv = pv, .sc = sc, .file_bytes = 314572800 };
        struct volume_expand_plan plan;

        assert_int_equal(volume_expander_plan(&in, &plan), 0);
        assert_int_equal(plan.size_bytes, 943718400);
        assert_int_equal(plan.grow_to, 943718400);
        /* a file a crash left larger than the size (a failed larger expansion, then a lowered
         * request): never shrink, the file's size becomes the capacity */
        in.file_bytes = 2147483648;
        assert_int_equal(volume_expander_plan(&in, &plan), 0);
        assert_int_equal(plan.size_bytes, 943718400);
        assert_int_equal(plan.grow_to, 2147483648);
}

static void test_plan_not_ours(void **state)
{
        cleanup_json json_t *sc = class(true), *fixed = class(false);
        cleanup_json json_t *pvc = claim("2Gi", "1Gi", "", "");
        cleanup_json json_t *pv = volume("1Gi");
        cleanup_json json_t *other = json_deep_copy(pv), *rebound = json_deep_copy(pv);
        cleanup_json json_t *elsewhere = json_deep_copy(pv);
        struct volume_expand_input in = { .pvc = pvc, .pv = pv, .sc = sc, .file_bytes = -1 };
        struct volume_expand_plan plan;

        assert_int_equal(volume_expander_plan(&in, &plan), 0);
        assert_int_equal(plan.step, VOLUME_EXPAND_GROW);
        /* another CSI driver's volume: another resizer's (CanSupport) */
        json_object_set_new(json_path(other, "spec.csi"), "driver", json_string("ebs.csi.aws.com"));
        in.pv = other;
        assert_int_equal(volume_expander_plan(&in, &plan), 0);
        assert_int_equal(plan.step, VOLUME_EXPAND_NOTHING);
        /* "Persistent volume is not bound to PVC being updated": another uid, namespace */
        json_object_set_new(json_path(rebound, "spec.claimRef"), "uid", json_string("old"));
        in.pv = rebound;
        assert_int_equal(volume_expander_plan(&in, &plan), 0);
        assert_int_equal(plan.step, VOLUME_EXPAND_NOTHING);
        json_object_set_new(json_path(elsewhere, "spec.claimRef"), "namespace", json_string("x"));
        in.pv = elsewhere;
        assert_int_equal(volume_expander_plan(&in, &plan), 0);
        assert_int_equal(plan.step, VOLUME_EXPAND_NOTHING);
        /* a class that does not (any more) allow expansion, or none */
        in.pv = pv;
        in.sc = fixed;
        assert_int_equal(volume_expander_plan(&in, &plan), 0);
        assert_int_equal(plan.step, VOLUME_EXPAND_NOTHING);
        in.sc = NULL;
        assert_int_equal(volume_expander_plan(&in, &plan), 0);
        assert_int_equal(plan.step, VOLUME_EXPAND_NOTHING);
}

static void test_needs_resize(void **state)
{
        cleanup_json json_t *grow = claim("2Gi", "1Gi", "", "");
        cleanup_json json_t *same = claim("1024Mi", "1Gi", "", "");
        cleanup_json json_t *rounded = claim("1G", "976564Ki", "", ""); /* 1000001536 bytes */
        cleanup_json json_t *pending = claim("2Gi", "1Gi", "", "");
        cleanup_json json_t *unnamed = claim("2Gi", "1Gi", "", "");

        assert_true(volume_expander_claim_needs_resize(grow));
        assert_false(volume_expander_claim_needs_resize(same));
        assert_false(volume_expander_claim_needs_resize(rounded));
        json_object_set_new(json_object_get(pending, "status"), "phase", json_string("Pending"));
        assert_false(volume_expander_claim_needs_resize(pending));
        json_object_del(json_object_get(unnamed, "spec"), "volumeName");
        assert_false(volume_expander_claim_needs_resize(unnamed));
}

static void test_classify(void **state)
{
        static const struct {
                int errnum;
                enum volume_expand_error kind;
        } cases[] = {
                { EINVAL, VOLUME_EXPAND_ERROR_INFEASIBLE },   /* InvalidArgument */
                { ERANGE, VOLUME_EXPAND_ERROR_INFEASIBLE },   /* OutOfRange */
                { ENOENT, VOLUME_EXPAND_ERROR_INFEASIBLE },   /* NotFound */
                { EAGAIN, VOLUME_EXPAND_ERROR_TRANSIENT },    /* Unavailable */
                { ETIMEDOUT, VOLUME_EXPAND_ERROR_TRANSIENT }, /* DeadlineExceeded */
                { ENOSPC, VOLUME_EXPAND_ERROR_TRANSIENT },    /* ResourceExhausted */
                { EBUSY, VOLUME_EXPAND_ERROR_TRANSIENT },     /* Aborted */
                { EIO, VOLUME_EXPAND_ERROR_FINAL },           /* Internal */
                { EPERM, VOLUME_EXPAND_ERROR_FINAL },         /* PermissionDenied */
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
                assert_int_equal(volume_expander_classify(cases[i].errnum), cases[i].kind);
}

static json_t *load(const char *text)
{
        json_t *v = json_loads(text, 0, NULL);
        assert_non_null(v);
        return v;
}

static void test_merge_conditions(void **state)
{
        cleanup_json json_t *old =
                load("[{\"type\":\"Other\",\"status\":\"True\"},"
                     "{\"type\":\"Resizing\",\"status\":\"True\",\"lastTransitionTime\":\"t0\"},"
                     "{\"type\":\"ControllerResizeError\",\"status\":\"True\",\"message\":\"m\"}]");
        cleanup_json json_t *add =
                load("[{\"type\":\"Resizing\",\"status\":\"True\",\"lastTransitionTime\":\"t1\"},"
                     "{\"type\":\"FileSystemResizePending\",\"status\":\"True\"}]");
        cleanup_json json_t *dropped = volume_expander_merge_conditions(old, add, false);
        cleanup_json json_t *kept = volume_expander_merge_conditions(old, add, true);
        cleanup_json json_t *none = json_array();
        cleanup_json json_t *cleared = volume_expander_merge_conditions(old, none, false);
        cleanup_json json_t *from_nothing = volume_expander_merge_conditions(NULL, add, false);
        cleanup_json json_t *want_dropped =
                load("[{\"type\":\"Other\",\"status\":\"True\"},"
                     "{\"type\":\"Resizing\",\"status\":\"True\",\"lastTransitionTime\":\"t1\"},"
                     "{\"type\":\"FileSystemResizePending\",\"status\":\"True\"}]");
        cleanup_json json_t *want_kept =
                load("[{\"type\":\"Other\",\"status\":\"True\"},"
                     "{\"type\":\"Resizing\",\"status\":\"True\",\"lastTransitionTime\":\"t1\"},"
                     "{\"type\":\"ControllerResizeError\",\"status\":\"True\",\"message\":\"m\"},"
                     "{\"type\":\"FileSystemResizePending\",\"status\":\"True\"}]");
        cleanup_json json_t *want_cleared = load("[{\"type\":\"Other\",\"status\":\"True\"}]");

        assert_true(json_equal(dropped, want_dropped));
        assert_true(json_equal(kept, want_kept));
        assert_true(json_equal(cleared, want_cleared));
        assert_int_equal(json_array_size(from_nothing), 2);
}

static const char *cond_field(const json_t *pvc, const char *type, const char *field)
{
        size_t i;
        json_t *c;

        json_array_foreach(json_path(pvc, "status.conditions"), i, c) {
                if (streq(json_string_value(json_object_get(c, "type")) ?: "", type))
                        return json_string_value(json_object_get(c, field)) ?: "";
        }
        return NULL;
}

static void test_transitions(void **state)
{
        const char *now = "2026-11-21T10:00:00Z";
        cleanup_json json_t *pvc =
                claim("900Mi", "300Mi", "20Ti", PVC_CONTROLLER_RESIZE_INFEASIBLE);
        cleanup_json json_t *failed = NULL, *marked = NULL, *pending = NULL, *again = NULL,
                            *infeasible = NULL;

        json_object_set_new(json_object_get(pvc, "status"), "conditions",
                            load("[{\"type\":\"ControllerResizeError\",\"status\":\"True\","
                                 "\"message\":\"failed to expand pvc with x\"}]"));
        /* markControllerResizeInProgress with updateStatus: old resize conditions go */
        marked = volume_expander_mark_in_progress(pvc, "900Mi", true, now);
        assert_string_equal(json_path_string(marked, "status.allocatedResources.storage"), "900Mi");
        assert_string_equal(json_path_string(marked, "status.allocatedResourceStatuses.storage"),
                            PVC_CONTROLLER_RESIZE_IN_PROGRESS);
        assert_int_equal(json_array_size(json_path(marked, "status.conditions")), 1);
        assert_string_equal(cond_field(marked, PVC_COND_RESIZING, "status"), "True");
        assert_string_equal(cond_field(marked, PVC_COND_RESIZING, "lastTransitionTime"), now);
        assert_true(json_is_null(json_object_get(
                json_array_get(json_path(marked, "status.conditions"), 0), "lastProbeTime")));
        /* the claim given is not changed */
        assert_string_equal(json_path_string(pvc, "status.allocatedResources.storage"), "20Ti");

        /* without updateStatus: the status map and old conditions stay */
        again = volume_expander_mark_in_progress(pvc, "20Ti", false, now);
        assert_string_equal(json_path_string(again, "status.allocatedResourceStatuses.storage"),
                            PVC_CONTROLLER_RESIZE_INFEASIBLE);
        assert_non_null(cond_field(again, PVC_COND_CONTROLLER_RESIZE_ERROR, "message"));
        assert_non_null(cond_field(again, PVC_COND_RESIZING, "status"));

        /* markForPendingNodeExpansion: Resizing kept, FileSystemResizePending added */
        pending = volume_expander_mark_node_pending(marked, now);
        assert_string_equal(json_path_string(pending, "status.allocatedResourceStatuses.storage"),
                            PVC_NODE_RESIZE_PENDING);
        assert_string_equal(cond_field(pending, PVC_COND_FILE_SYSTEM_RESIZE_PENDING, "message"),
                            "Waiting for user to (re-)start a pod to finish file system resize "
                            "of volume on node.");
        assert_non_null(cond_field(pending, PVC_COND_RESIZING, "status"));
        assert_string_equal(json_path_string(pending, "status.capacity.storage"), "300Mi");

        /* failures: the condition, and the status only when infeasible */
        failed = volume_expander_mark_failed(marked, "disk on fire", false, now);
        assert_string_equal(cond_field(failed, PVC_COND_CONTROLLER_RESIZE_ERROR, "message"),
                            "failed to expand pvc with disk on fire");
        assert_string_equal(json_path_string(failed, "status.allocatedResourceStatuses.storage"),
                            PVC_CONTROLLER_RESIZE_IN_PROGRESS);
        infeasible = volume_expander_mark_failed(marked, "too big", true, now);
        assert_string_equal(
                json_path_string(infeasible, "status.allocatedResourceStatuses.storage"),
                PVC_CONTROLLER_RESIZE_INFEASIBLE);
        assert_non_null(cond_field(infeasible, PVC_COND_RESIZING, "status"));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_plan_table),    cmocka_unit_test(test_plan_sizes),
                cmocka_unit_test(test_plan_not_ours), cmocka_unit_test(test_needs_resize),
                cmocka_unit_test(test_classify),      cmocka_unit_test(test_merge_conditions),
                cmocka_unit_test(test_transitions),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
