/* test-validation-resize.c: the pods/resize subresource: dropNonResizeUpdates and
 * ValidatePodResize (upstream-behavior.md §A.1, scenarios S1-S7, with 1.34+ memory-decrease
 * semantics) and KEP-6030's emptyDir sizeLimit rules, with exact messages. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/validation.h"
#include "base/alloc.h"
#include "base/json.h"

#include "pod-fixtures.h"

/* The stored pod of the black-box scenarios: c1 requests 1 CPU / 1Gi, running on a node that
 * reports resources, default (NotRequired) resize policies; plus KEP-6030 volumes. */
static const char *stored_pod =
        "{'apiVersion': 'v1', 'kind': 'Pod', 'metadata': {'name': 'web', 'namespace': 'default', "
        "'uid': 'u1', 'resourceVersion': '7', 'creationTimestamp': '2025-01-01T00:00:00Z', "
        "'labels': {'app': 'web'}}, 'spec': {'nodeName': 'node1', 'containers': [{'name': 'c1', "
        "'image': 'busybox:1.36', 'resources': {'requests': {'cpu': '1', 'memory': '1Gi'}, "
        "'limits': {'memory': '2Gi'}}}], 'volumes': [{'name': 'cache', 'emptyDir': {'medium': "
        "'Memory', 'sizeLimit': '100Mi'}}, {'name': 'scratch', 'emptyDir': {'sizeLimit': "
        "'1Gi'}}]}, 'status': {'phase': 'Running', 'containerStatuses': [{'name': 'c1', "
        "'state': {'running': {}}, 'resources': {'requests': {'cpu': '1', 'memory': '1Gi'}}}]}}";

static json_t *make_stored(const struct edit *edits)
{
        json_t *pod = jparse(stored_pod);

        apply(pod, edits);
        pod_set_defaults(pod);
        return pod;
}

#define GUARANTEED \
 "{'requests': {'cpu': '1', 'memory': '1Gi'}, 'limits': {'cpu': '1', 'memory': '1Gi'}}"
#define NOT_MUTABLE           "spec: Forbidden: only cpu and memory resources are mutable"
#define MEM_VOLUME_ADD_REMOVE "Forbidden: memory-backed emptyDir volumes cannot be added or removed"

struct resize_case {
        const char *name;
        struct edit old_edits[3];
        struct edit edits[3];
        const char *want[3];
};

static const struct resize_case resize_cases[] = {
        /* S1 */
        { "valid increase",
          { { 0 } },
          { { "spec.containers[0].resources.requests.cpu", "'1500m'" } },
          { NULL } },
        /* S2 */
        { "qos change",
          { { "spec.containers[0].resources", GUARANTEED } },
          { { "spec.containers[0].resources.requests.cpu", "'500m'" } },
          { "spec: Invalid value: \"Guaranteed\": Pod QOS Class may not change as a result of "
            "resizing",
            NULL } },
        { "guaranteed stays guaranteed",
          { { "spec.containers[0].resources", GUARANTEED } },
          { { "spec.containers[0].resources",
              "{'requests': {'cpu': '2', 'memory': '2Gi'}, 'limits': {'cpu': '2', 'memory': "
              "'2Gi'}}" } },
          { NULL } },
        { "best effort gains requests",
          { { "spec.containers[0].resources", "{}" } },
          { { "spec.containers[0].resources", "{'requests': {'cpu': '100m'}}" } },
          { "spec: Invalid value: \"BestEffort\": Pod QOS Class may not change as a result of "
            "resizing",
            NULL } },
        /* S3 */
        { "limit removed",
          { { 0 } },
          { { "spec.containers[0].resources.limits", NULL } },
          { "spec.containers[0].resources.limits: Forbidden: resource limits cannot be removed",
            NULL } },
        { "request removed",
          { { 0 } },
          { { "spec.containers[0].resources.requests.cpu", NULL } },
          { "spec.containers[0].resources.requests: Forbidden: resource requests cannot be "
            "removed",
            NULL } },
        /* S4 */
        { "ephemeral-storage",
          { { 0 } },
          { { "spec.containers[0].resources.requests.ephemeral-storage", "'1Gi'" } },
          { NOT_MUTABLE, NULL } },
        /* S5 */
        { "non-sidecar init container",
          { { "spec.initContainers[0]",
              "{'name': 'init', 'image': 'x', 'resources': {'requests': {'cpu': '100m'}}}" } },
          { { "spec.initContainers[0].resources.requests.cpu", "'200m'" } },
          { "spec: Forbidden: resources for non-sidecar init containers are immutable", NULL } },
        { "sidecar cpu",
          { { "spec.initContainers[0]", "{'name': 'side', 'image': 'x', 'restartPolicy': "
                                        "'Always', 'resources': {'requests': {'cpu': '100m'}, "
                                        "'limits': {'cpu': '500m'}}}" } },
          { { "spec.initContainers[0].resources.requests.cpu", "'200m'" } },
          { NULL } },
        { "sidecar ephemeral-storage",
          { { "spec.initContainers[0]", "{'name': 'side', 'image': 'x', 'restartPolicy': "
                                        "'Always', 'resources': {'requests': {'cpu': '100m'}}}" } },
          { { "spec.initContainers[0].resources.requests.ephemeral-storage", "'1Gi'" } },
          { "spec: Forbidden: only cpu and memory resources for sidecar containers are mutable",
            NULL } },
        { "sidecar limit removed",
          { { "spec.initContainers[0]", "{'name': 'side', 'image': 'x', 'restartPolicy': "
                                        "'Always', 'resources': {'requests': {'cpu': '100m'}, "
                                        "'limits': {'cpu': '500m'}}}" } },
          { { "spec.initContainers[0].resources.limits", NULL } },
          { "spec.initContainers[0].resources.limits: Forbidden: resource limits cannot be removed",
            NULL } },
        /* S6 */
        { "pod-level resources",
          { { "spec.resources", "{'limits': {'cpu': '4'}}" } },
          { { "spec.containers[0].resources.requests.cpu", "'2'" } },
          { "Forbidden: pods with pod-level resources cannot be resized", NULL } },
        { "static pod",
          { { "metadata.annotations", "{'kubernetes.io/config.mirror': 'abc'}" } },
          { { "spec.containers[0].resources.requests.cpu", "'2'" } },
          { "Forbidden: static pods cannot be resized", NULL } },
        { "windows pod",
          { { "spec.os", "{'name': 'windows'}" } },
          { { "spec.containers[0].resources.requests.cpu", "'2'" } },
          { "Forbidden: windows pods cannot be resized", NULL } },
        /* a request removed where a limit exists is defaulted back from the limit */
        { "memory request removed",
          { { 0 } },
          { { "spec.containers[0].resources.requests.memory", NULL } },
          { NULL } },
        /* S7, 1.34+: memory limits may decrease with NotRequired (kubernetes#133012) */
        { "memory limit decrease",
          { { 0 } },
          { { "spec.containers[0].resources.limits.memory", "'1Gi'" } },
          { NULL } },
        { "cpu limit added",
          { { 0 } },
          { { "spec.containers[0].resources.limits.cpu", "'2'" } },
          { NULL } },
        { "node without resize support",
          { { "status.containerStatuses[0].resources", NULL } },
          { { "spec.containers[0].resources.requests.cpu", "'2'" } },
          { "spec: Forbidden: Pod running on node without support for resize", NULL } },
        { "no running container",
          { { "status.containerStatuses[0]", "{'name': 'c1', 'state': "
                                             "{'waiting': {}}}" } },
          { { "spec.containers[0].resources.requests.cpu", "'2'" } },
          { NULL } },
        { "resizePolicy is immutable",
          { { 0 } },
          { { "spec.containers[0].resizePolicy",
              "[{'resourceName': 'cpu', 'restartPolicy': 'RestartContainer'}]" } },
          { NOT_MUTABLE, NULL } },
        /* K8S 1.34: validatePodResizeContainerOrdering */
        { "rename",
          { { 0 } },
          { { "spec.containers[0].name", "'c2'" } },
          { "spec.containers[0].name: Forbidden: containers may not be renamed or reordered on "
            "resize",
            NULL } },
        { "container added",
          { { 0 } },
          { { "spec.containers[1]", "{'name': 'c2', 'image': 'busybox'}" } },
          { "spec.containers: Forbidden: containers may not be added or removed on resize",
            NULL } },
        { "other fields are dropped",
          { { 0 } },
          { { "spec.containers[0].image", "'busybox:1.37'" },
            { "spec.restartPolicy", "'Never'" },
            { "metadata.labels", "{'app': 'other'}" } },
          { NULL } },
        { "invalid new resources",
          { { 0 } },
          { { "spec.containers[0].resources.requests.cpu", "'3'" },
            { "spec.containers[0].resources.limits.cpu", "'2'" } },
          { "spec.containers[0].resources.requests: Invalid value: \"3\": must be less than or "
            "equal to cpu limit of 2",
            NULL } },
        /* KEP-6030 */
        { "memory emptyDir grows",
          { { 0 } },
          { { "spec.volumes[0].emptyDir.sizeLimit", "'200Mi'" } },
          { NULL } },
        { "memory emptyDir and memory limit together",
          { { 0 } },
          { { "spec.volumes[0].emptyDir.sizeLimit", "'50Mi'" },
            { "spec.containers[0].resources.limits.memory", "'4Gi'" } },
          { NULL } },
        { "same size spelled in bytes",
          { { 0 } },
          { { "spec.volumes[0].emptyDir.sizeLimit", "'104857600'" } },
          { NULL } },
        { "disk emptyDir",
          { { 0 } },
          { { "spec.volumes[1].emptyDir.sizeLimit", "'2Gi'" } },
          { "spec.volumes[1].emptyDir.sizeLimit: Forbidden: only sizeLimit of memory-backed "
            "(medium: Memory) emptyDir volumes is mutable",
            NULL } },
        { "sizeLimit removed",
          { { 0 } },
          { { "spec.volumes[0].emptyDir.sizeLimit", NULL } },
          { "spec.volumes[0].emptyDir.sizeLimit: Forbidden: emptyDir sizeLimit cannot be removed",
            NULL } },
        { "sizeLimit added",
          { { "spec.volumes[0].emptyDir", "{'medium': 'Memory'}" } },
          { { "spec.volumes[0].emptyDir.sizeLimit", "'64Mi'" } },
          { "spec.volumes[0].emptyDir.sizeLimit: Forbidden: emptyDir sizeLimit cannot be added",
            NULL } },
        { "memory emptyDir added",
          { { 0 } },
          { { "spec.volumes[2]", "{'name': 'more', 'emptyDir': {'medium': 'Memory'}}" } },
          { "spec.volumes[2]: " MEM_VOLUME_ADD_REMOVE, NULL } },
        { "memory emptyDir removed",
          { { 0 } },
          { { "spec.volumes[0]", NULL } },
          { "spec.volumes[0]: " MEM_VOLUME_ADD_REMOVE, NULL } },
        { "disk emptyDir added",
          { { 0 } },
          { { "spec.volumes[2]", "{'name': 'more', 'emptyDir': {}}" } },
          { NOT_MUTABLE, NULL } },
};

static void test_resize(void **state)
{
        (void) state;

        for (size_t i = 0; i < ARRAY_SIZE(resize_cases); i++) {
                const struct resize_case *tc = &resize_cases[i];
                json_t *old = make_stored(tc->old_edits);
                json_t *req = json_deep_copy(old);
                json_t *neu;
                struct field_error_list l;

                apply(req, tc->edits);
                pod_set_defaults(req); /* the request body is decoded with defaults */
                neu = pod_drop_non_resize_updates(req, old);
                field_error_list_init(&l);
                size_t n = validate_pod_resize(neu, old, &l);
                assert_int_equal(n, l.n);
                assert_errors(tc->name, &l, tc->want);
                field_error_list_release(&l);
                json_decref(old);
                json_decref(req);
                json_decref(neu);
        }
}

/* The aggregate message the API server sends for S3 (one cause). */
static void test_resize_status_message(void **state)
{
        json_t *old = make_stored(NULL);
        json_t *req = json_deep_copy(old);
        json_t *neu;
        struct field_error_list l;
        char *msg;
        (void) state;

        jset(req, "spec.containers[0].resources.limits", NULL);
        neu = pod_drop_non_resize_updates(req, old);
        field_error_list_init(&l);
        validate_pod_resize(neu, old, &l);
        msg = field_error_list_string(&l);
        assert_string_equal(msg, "spec.containers[0].resources.limits: Forbidden: resource limits "
                                 "cannot be removed");
        free(msg);
        field_error_list_release(&l);
        json_decref(old);
        json_decref(req);
        json_decref(neu);
}

/* ---- dropNonResizeUpdates (K8S: strategy_test.go TestPodResizePrepareForUpdate) ---- */

static void test_drop_keeps_only_resize_fields(void **state)
{
        json_t *old = make_stored((const struct edit[]){
                { "spec.initContainers[0]", "{'name': 'init', 'image': 'x', 'resources': {}}" },
                { NULL, NULL } });
        json_t *req = json_deep_copy(old);
        json_t *out, *want;
        (void) state;

        jset(req, "metadata.labels", "{'app': 'changed'}");
        jset(req, "metadata.annotations", "{'a': 'b'}");
        jset(req, "metadata.generation", "9");
        jset(req, "metadata.resourceVersion", "'8'");
        jset(req, "spec.containers[0].image", "'busybox:1.37'");
        jset(req, "spec.containers[0].resources", "{'requests': {'cpu': '2', 'memory': '1Gi'}}");
        jset(req, "spec.containers[0].resizePolicy",
             "[{'resourceName': 'memory', 'restartPolicy': 'RestartContainer'}]");
        jset(req, "spec.initContainers[0].resources", "{'requests': {'cpu': '1'}}");
        jset(req, "spec.restartPolicy", "'Never'");
        jset(req, "spec.volumes[0].emptyDir", "{'medium': 'Memory', 'sizeLimit': '300Mi'}");
        jset(req, "spec.volumes[1].emptyDir", "{'medium': 'Memory', 'sizeLimit': '2Gi'}");
        jset(req, "status.phase", "'Failed'");

        out = pod_drop_non_resize_updates(req, old);
        want = json_deep_copy(old);
        /* metadata: the request's, except what ResetObjectMetaForStatus keeps */
        jset(want, "metadata.resourceVersion", "'8'");
        jset(want, "spec.containers[0].resources", "{'requests': {'cpu': '2', 'memory': '1Gi'}}");
        jset(want, "spec.containers[0].resizePolicy",
             "[{'resourceName': 'memory', 'restartPolicy': 'RestartContainer'}]");
        jset(want, "spec.initContainers[0].resources", "{'requests': {'cpu': '1'}}");
        /* KEP-6030: sizeLimit survives, the medium does not */
        jset(want, "spec.volumes[0].emptyDir.sizeLimit", "'300Mi'");
        jset(want, "spec.volumes[1].emptyDir.sizeLimit", "'2Gi'");
        assert_json_equal(NULL, out, want);
        json_decref(want);
        json_decref(out);
        json_decref(req);
        json_decref(old);
}

static void test_drop_passes_structure_changes(void **state)
{
        json_t *old = make_stored(NULL);
        json_t *req, *out;
        (void) state;

        /* a container added: the request comes back unchanged */
        req = json_deep_copy(old);
        jset(req, "spec.containers[1]", "{'name': 'c2', 'image': 'x'}");
        jset(req, "metadata.labels", "{'app': 'changed'}");
        out = pod_drop_non_resize_updates(req, old);
        assert_true(json_equal(out, req));
        json_decref(out);
        json_decref(req);

        /* a container renamed: that list is the request's, the rest is reset */
        req = json_deep_copy(old);
        jset(req, "spec.containers[0].name", "'other'");
        jset(req, "spec.restartPolicy", "'Never'");
        out = pod_drop_non_resize_updates(req, old);
        assert_json("rename", json_path(out, "spec.containers"),
                    "[{'name': 'other', 'image': 'busybox:1.36', 'imagePullPolicy': "
                    "'IfNotPresent', 'terminationMessagePath': '/dev/termination-log', "
                    "'terminationMessagePolicy': 'File', 'resources': {'requests': {'cpu': '1', "
                    "'memory': '1Gi'}, 'limits': {'memory': '2Gi'}}}]");
        assert_json("rename", json_path(out, "spec.restartPolicy"), "'Always'");
        json_decref(out);
        json_decref(req);

        /* a volume removed: the request's volume list is kept for validation to reject */
        req = json_deep_copy(old);
        jset(req, "spec.volumes[0]", NULL);
        out = pod_drop_non_resize_updates(req, old);
        assert_json("volume removed", json_path(out, "spec.volumes"),
                    "[{'name': 'scratch', 'emptyDir': {'sizeLimit': '1Gi'}}]");
        json_decref(out);
        json_decref(req);
        json_decref(old);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_resize),
                cmocka_unit_test(test_resize_status_message),
                cmocka_unit_test(test_drop_keeps_only_resize_fields),
                cmocka_unit_test(test_drop_passes_structure_changes),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
