/* test-relevance.c: the controllers' informer predicates: which changes of a pod (or a scale)
 * wake which passes. Each row patches one pod (a JSON merge patch: arrays are replaced whole)
 * and says whether each predicate calls it relevant: the steps of an in-place resize wake none
 * of them but the workloads' on the resources the containers run with, and every field a pass
 * decides from wakes it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "api/patch.h"
#include "base/json.h"
#include "client/informer.h"
#include "controllers/relevance.h"
#include "unit/json-literal.h"

/* A running pod of a ReplicaSet, on a node, with a claim, Ready, mid-resize. */
static const char base_pod[] =
        "{'kind': 'Pod', 'apiVersion': 'v1',"
        " 'metadata': {'name': 'p', 'namespace': 'ns', 'uid': 'u1', 'resourceVersion': '10',"
        "  'generation': 2, 'labels': {'app': 'a'}, 'annotations': {'x': 'y'},"
        "  'finalizers': ['f'],"
        "  'ownerReferences': [{'apiVersion': 'apps/v1', 'kind': 'ReplicaSet', 'name': 'rs',"
        "   'uid': 'o1', 'controller': true}]},"
        " 'spec': {'nodeName': 'n1', 'tolerations': [],"
        "  'volumes': [{'name': 'v', 'persistentVolumeClaim': {'claimName': 'c'}}],"
        "  'containers': [{'name': 'c', 'image': 'i',"
        "   'resources': {'requests': {'cpu': '100m'}, 'limits': {'cpu': '200m'}}}]},"
        " 'status': {'phase': 'Running', 'observedGeneration': 2,"
        "  'conditions': [{'type': 'Ready', 'status': 'True',"
        "   'lastTransitionTime': '2026-11-27T10:00:00Z'}],"
        "  'containerStatuses': [{'name': 'c', 'ready': true, 'restartCount': 0,"
        "   'state': {'running': {'startedAt': '2026-11-27T10:00:00Z'}},"
        "   'allocatedResources': {'cpu': '100m'},"
        "   'resources': {'requests': {'cpu': '100m'}, 'limits': {'cpu': '200m'}}}]}}";

enum { OWNERSHIP, PLACEMENT, JOB, DISRUPTION, WORKLOAD, SCHEDULING, N_PREDICATES };

static const informer_relevant_fn predicates[N_PREDICATES] = {
        [OWNERSHIP] = relevance_ownership,   [PLACEMENT] = relevance_pod_placement,
        [JOB] = relevance_pod_job,           [DISRUPTION] = relevance_pod_disruption,
        [WORKLOAD] = relevance_pod_workload, [SCHEDULING] = relevance_pod_scheduling,
};

static const char *const predicate_names[N_PREDICATES] = {
        "ownership", "placement", "job", "disruption", "workload", "scheduling"
};

static const struct {
        const char *what;
        const char *patch;
        /* ownership, placement, job, disruption, workload, scheduling */
        bool relevant[N_PREDICATES];
} cases[] = {
        { "nothing but the version",
          "{'metadata': {'resourceVersion': '11'}}",
          { 0, 0, 0, 0, 0, 0 } },
        /* an in-place resize, step by step */
        { "resize: the spec's resources",
          "{'metadata': {'generation': 3}, 'spec': {'containers': [{'name': 'c', 'image': 'i',"
          " 'resources': {'requests': {'cpu': '300m'}, 'limits': {'cpu': '400m'}}}]}}",
          { 0, 0, 0, 0, 0, 1 } },
        { "resize: in progress",
          "{'status': {'resize': 'InProgress', 'observedGeneration': 3, 'conditions': ["
          " {'type': 'Ready', 'status': 'True', 'lastTransitionTime': '2026-11-27T10:00:00Z'},"
          " {'type': 'PodResizeInProgress', 'status': 'True', 'observedGeneration': 3}]}}",
          { 0, 0, 0, 0, 0, 0 } },
        { "resize: allocated",
          "{'status': {'containerStatuses': [{'name': 'c', 'ready': true, 'restartCount': 0,"
          " 'state': {'running': {'startedAt': '2026-11-27T10:00:00Z'}},"
          " 'allocatedResources': {'cpu': '300m'},"
          " 'resources': {'requests': {'cpu': '100m'}, 'limits': {'cpu': '200m'}}}]}}",
          { 0, 0, 0, 0, 0, 1 } },
        { "resize: running with the new resources",
          "{'status': {'containerStatuses': [{'name': 'c', 'ready': true, 'restartCount': 0,"
          " 'state': {'running': {'startedAt': '2026-11-27T10:00:00Z'}},"
          " 'allocatedResources': {'cpu': '100m'},"
          " 'resources': {'requests': {'cpu': '300m'}, 'limits': {'cpu': '400m'}}}]}}",
          { 0, 0, 0, 0, 1, 0 } },
        /* what the passes decide from */
        { "ownerReferences", "{'metadata': {'ownerReferences': []}}", { 1, 0, 1, 1, 1, 1 } },
        { "finalizers", "{'metadata': {'finalizers': null}}", { 1, 0, 1, 0, 1, 1 } },
        { "deletion",
          "{'metadata': {'deletionTimestamp': '2026-11-27T11:00:00Z',"
          " 'deletionGracePeriodSeconds': 30}}",
          { 1, 1, 1, 1, 1, 1 } },
        { "grace period only",
          "{'metadata': {'deletionGracePeriodSeconds': 0}}",
          { 0, 1, 0, 0, 1, 1 } },
        { "labels", "{'metadata': {'labels': {'app': 'b'}}}", { 0, 0, 1, 1, 1, 1 } },
        { "annotations", "{'metadata': {'annotations': {'x': 'z'}}}", { 0, 0, 1, 0, 1, 1 } },
        { "nodeName", "{'spec': {'nodeName': 'n2'}}", { 0, 1, 0, 0, 1, 1 } },
        { "tolerations",
          "{'spec': {'tolerations': [{'operator': 'Exists'}]}}",
          { 0, 1, 0, 0, 1, 1 } },
        { "volumes", "{'spec': {'volumes': []}}", { 0, 1, 0, 0, 1, 1 } },
        { "the containers' image",
          "{'spec': {'containers': [{'name': 'c', 'image': 'j',"
          " 'resources': {'requests': {'cpu': '100m'}, 'limits': {'cpu': '200m'}}}]}}",
          { 0, 0, 0, 0, 1, 1 } },
        { "phase", "{'status': {'phase': 'Succeeded'}}", { 0, 1, 1, 0, 1, 1 } },
        { "not Ready",
          "{'status': {'conditions': [{'type': 'Ready', 'status': 'False',"
          " 'lastTransitionTime': '2026-11-27T11:00:00Z'}]}}",
          { 0, 0, 1, 1, 1, 0 } },
        { "Ready again later (its transition time)",
          "{'status': {'conditions': [{'type': 'Ready', 'status': 'True',"
          " 'lastTransitionTime': '2026-11-27T11:00:00Z'}]}}",
          { 0, 0, 1, 0, 1, 0 } },
        { "a restart",
          "{'status': {'containerStatuses': [{'name': 'c', 'ready': true, 'restartCount': 1,"
          " 'state': {'running': {'startedAt': '2026-11-27T10:00:00Z'}},"
          " 'allocatedResources': {'cpu': '100m'},"
          " 'resources': {'requests': {'cpu': '100m'}, 'limits': {'cpu': '200m'}}}]}}",
          { 0, 0, 1, 0, 1, 0 } },
        { "a container's exit",
          "{'status': {'containerStatuses': [{'name': 'c', 'ready': false, 'restartCount': 0,"
          " 'state': {'terminated': {'exitCode': 3}},"
          " 'allocatedResources': {'cpu': '100m'},"
          " 'resources': {'requests': {'cpu': '100m'}, 'limits': {'cpu': '200m'}}}]}}",
          { 0, 0, 1, 0, 1, 0 } },
        { "an init container's status",
          "{'status': {'initContainerStatuses': [{'name': 'i'}]}}",
          { 0, 0, 1, 0, 1, 1 } },
        { "a pod IP", "{'status': {'podIP': '10.0.0.9'}}", { 0, 0, 0, 0, 1, 1 } },
};

static void test_pod_changes(void **state)
{
        json_t *old = J(base_pod);

        (void) state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                json_t *patch = J(cases[i].patch), *new = NULL;

                assert_int_equal(patch_merge(old, patch, &new, NULL), 0);
                for (size_t p = 0; p < N_PREDICATES; p++) {
                        bool got = predicates[p](old, new);

                        if (got != cases[i].relevant[p])
                                fail_msg("%s: %s says %s", cases[i].what, predicate_names[p],
                                         got ? "relevant" : "irrelevant");
                }
                json_decref(patch);
                json_decref(new);
        }
        json_decref(old);
}

/* An add and a delete wake every pass. */
static void test_add_delete(void **state)
{
        json_t *pod = J(base_pod);

        (void) state;
        for (size_t p = 0; p < N_PREDICATES; p++) {
                assert_true(predicates[p](NULL, pod));
                assert_true(predicates[p](pod, NULL));
        }
        assert_true(relevance_scale(NULL, pod));
        assert_true(relevance_scale(pod, NULL));
        json_decref(pod);
}

/* The Job controller matches a Failed pod's conditions against podFailurePolicy's rules,
 * whatever their type: there a resize's condition is relevant too. */
static void test_job_failed_pod_conditions(void **state)
{
        json_t *old = J("{'status': {'phase': 'Failed', 'conditions': []}}");
        json_t *new = J("{'status': {'phase': 'Failed', 'conditions':"
                        " [{'type': 'PodResizePending', 'status': 'True'}]}}");
        json_t *running_old = J("{'status': {'phase': 'Running', 'conditions': []}}");
        json_t *running_new = J("{'status': {'phase': 'Running', 'conditions':"
                                " [{'type': 'PodResizePending', 'status': 'True'}]}}");

        (void) state;
        assert_true(relevance_pod_job(old, new));
        assert_false(relevance_pod_job(running_old, running_new));
        json_decref(old);
        json_decref(new);
        json_decref(running_old);
        json_decref(running_new);
}

/* The scheduler reads everything of a pod not bound yet: a change of its conditions (the
 * scheduler's own PodScheduled) is relevant there, not on a bound pod. */
static void test_scheduling_pending_pod(void **state)
{
        json_t *old = J("{'spec': {'schedulerName': 'default-scheduler'}, 'status': {}}");
        json_t *new = J("{'spec': {'schedulerName': 'default-scheduler'}, 'status':"
                        " {'conditions': [{'type': 'PodScheduled', 'status': 'False'}]}}");
        json_t *bound_old = J("{'spec': {'nodeName': 'n1'}, 'status': {}}");
        json_t *bound_new = J("{'spec': {'nodeName': 'n1'}, 'status':"
                              " {'conditions': [{'type': 'Ready', 'status': 'True'}]}}");
        json_t *binding = J("{'spec': {'nodeName': 'n1'}, 'status': {}}");

        (void) state;
        assert_true(relevance_pod_scheduling(old, new));
        assert_false(relevance_pod_scheduling(bound_old, bound_new));
        assert_true(relevance_pod_scheduling(old, binding));
        json_decref(old);
        json_decref(new);
        json_decref(bound_old);
        json_decref(bound_new);
        json_decref(binding);
}

/* A scale's replicas and its controller are what the disruption controller reads of it; its
 * status is not. */
static void test_scale(void **state)
{
        json_t *rs = J("{'metadata': {'name': 'rs', 'ownerReferences': []},"
                       " 'spec': {'replicas': 2}, 'status': {'readyReplicas': 1}}");
        json_t *status = J("{'metadata': {'name': 'rs', 'ownerReferences': []},"
                           " 'spec': {'replicas': 2}, 'status': {'readyReplicas': 2}}");
        json_t *scaled = J("{'metadata': {'name': 'rs', 'ownerReferences': []},"
                           " 'spec': {'replicas': 3}, 'status': {'readyReplicas': 1}}");
        json_t *adopted = J("{'metadata': {'name': 'rs', 'ownerReferences': [{'uid': 'd'}]},"
                            " 'spec': {'replicas': 2}, 'status': {'readyReplicas': 1}}");

        (void) state;
        assert_false(relevance_scale(rs, status));
        assert_true(relevance_scale(rs, scaled));
        assert_true(relevance_scale(rs, adopted));
        json_decref(rs);
        json_decref(status);
        json_decref(scaled);
        json_decref(adopted);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_pod_changes),
                cmocka_unit_test(test_add_delete),
                cmocka_unit_test(test_job_failed_pod_conditions),
                cmocka_unit_test(test_scheduling_pending_pod),
                cmocka_unit_test(test_scale),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
