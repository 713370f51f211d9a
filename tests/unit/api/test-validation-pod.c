/* test-validation-pod.c: pod defaults (v1 defaults.go 1.33), QoS classes (qos_test cases),
 * create validation and update immutability, each against upstream's exact strings. */
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

#define LABEL_MSG                                                                         \
 "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', " \
 "and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', " \
 "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
#define UPDATE_MSG                                                                         \
 "spec: Forbidden: pod updates may not change fields other than "                          \
 "`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`," \
 "`spec.tolerations` (only additions to existing tolerations),"                            \
 "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously "     \
 "negative)"

/* ---- defaults ---- */

static void test_defaults_full(void **state)
{
        json_t *pod = jparse("{'metadata': {'name': 'a', 'namespace': 'd'}, 'spec': {'containers': "
                             "[{'name': 'c', 'image': 'nginx', 'ports': [{'containerPort': 80}]}], "
                             "'volumes': [{'name': 'v'}, {'name': 'm', 'emptyDir': {'medium': "
                             "'Memory'}}, {'name': 's', 'secret': {'secretName': 'x'}}]}}");
        json_t *again;
        (void) state;

        pod_set_defaults(pod);
        assert_json(NULL, pod,
                    "{'metadata': {'name': 'a', 'namespace': 'd'}, 'spec': {"
                    "'containers': [{'name': 'c', 'image': 'nginx', 'imagePullPolicy': 'Always', "
                    "'terminationMessagePath': '/dev/termination-log', "
                    "'terminationMessagePolicy': 'File', "
                    "'ports': [{'containerPort': 80, 'protocol': 'TCP'}]}], "
                    "'volumes': [{'name': 'v', 'emptyDir': {}}, {'name': 'm', 'emptyDir': "
                    "{'medium': 'Memory'}}, {'name': 's', 'secret': {'secretName': 'x', "
                    "'defaultMode': 420}}], "
                    "'restartPolicy': 'Always', 'dnsPolicy': 'ClusterFirst', "
                    "'schedulerName': 'default-scheduler', 'terminationGracePeriodSeconds': 30, "
                    "'securityContext': {}, 'enableServiceLinks': true, 'priority': 0, "
                    "'preemptionPolicy': 'PreemptLowerPriority'}, "
                    "'status': {'phase': 'Pending', 'qosClass': 'BestEffort'}}");
        /* idempotent */
        again = json_deep_copy(pod);
        pod_set_defaults(again);
        assert_true(json_equal(pod, again));
        json_decref(again);
        json_decref(pod);
}

static void test_defaults_resources(void **state)
{
        json_t *pod = jparse(
                "{'spec': {'containers': [{'name': 'c', 'image': 'x', 'resources': {'limits': "
                "{'cpu': '1', 'memory': '1Gi'}, 'requests': {'cpu': '500m'}}}, {'name': 'd', "
                "'image': 'x', 'resources': {'requests': {'cpu': '100n', 'memory': '1.5'}, "
                "'limits': {'cpu': '1000000n'}}}], 'initContainers': [{'name': 'i', 'image': 'x', "
                "'resources': {'limits': {'memory': '64Mi'}}}]}}");
        (void) state;

        pod_set_defaults(pod);
        assert_json(NULL, json_path(pod, "spec.containers"),
                    "[{'name': 'c', 'image': 'x', 'imagePullPolicy': 'Always', "
                    "'terminationMessagePath': '/dev/termination-log', "
                    "'terminationMessagePolicy': 'File', 'resources': {'limits': {'cpu': '1', "
                    "'memory': '1Gi'}, 'requests': {'cpu': '500m', 'memory': '1Gi'}}}, "
                    "{'name': 'd', 'image': 'x', 'imagePullPolicy': 'Always', "
                    "'terminationMessagePath': '/dev/termination-log', "
                    "'terminationMessagePolicy': 'File', 'resources': {'requests': {'cpu': '1m', "
                    "'memory': '1.5'}, 'limits': {'cpu': '1m'}}}]");
        assert_json(NULL,
                    json_object_get(json_array_get(json_path(pod, "spec.initContainers"), 0),
                                    "resources"),
                    "{'limits': {'memory': '64Mi'}, 'requests': {'memory': '64Mi'}}");
        /* c is Burstable (requests below limits) */
        assert_string_equal(json_string_value(json_path(pod, "status.qosClass")), "Burstable");
        /* no resizePolicy is defaulted in 1.33 (kubernetes#128920) */
        assert_null(json_object_get(json_array_get(json_path(pod, "spec.containers"), 0),
                                    "resizePolicy"));
        json_decref(pod);
}

static void test_defaults_image_pull_policy(void **state)
{
        static const struct {
                const char *image;
                const char *policy;
        } cases[] = {
                { "nginx", "Always" },
                { "nginx:latest", "Always" },
                { "nginx:1.25", "IfNotPresent" },
                { "docker.io/library/nginx", "Always" },
                { "localhost:5000/app", "Always" },
                { "localhost:5000/app:v2", "IfNotPresent" },
                { "registry.example.com/team/app:latest", "Always" },
                { "nginx@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
                  "IfNotPresent" },
                { "nginx:latest@sha256:0123456789abcdef0123456789abcdef0123456789abcdef01234567"
                  "89abcdef",
                  "Always" },
                { "Nginx", "IfNotPresent" }, /* does not parse: upstream keeps the tag empty */
                { "", "IfNotPresent" },
        };
        (void) state;

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                json_t *pod = jparse("{'spec': {'containers': [{'name': 'c'}]}}");
                json_t *c = json_array_get(json_path(pod, "spec.containers"), 0);
                json_object_set_new(c, "image", json_string(cases[i].image));
                pod_set_defaults(pod);
                if (strcmp(json_string_value(json_object_get(c, "imagePullPolicy")),
                           cases[i].policy) != 0)
                        fail_msg("image %s: got %s want %s", cases[i].image,
                                 json_string_value(json_object_get(c, "imagePullPolicy")),
                                 cases[i].policy);
                json_decref(pod);
        }
}

static void test_defaults_misc(void **state)
{
        json_t *pod = jparse(
                "{'spec': {'hostNetwork': true, 'priorityClassName': 'high', 'containers': "
                "[{'name': 'c', 'image': 'x:1', 'imagePullPolicy': 'Never', 'ports': "
                "[{'containerPort': 8080, 'protocol': 'UDP'}], 'livenessProbe': {'httpGet': "
                "{'port': 8080}}, 'env': [{'name': 'N', 'valueFrom': {'fieldRef': {'fieldPath': "
                "'metadata.name'}}}]}], 'volumes': [{'name': 'h', 'hostPath': {'path': '/tmp'}}], "
                "'resources': {'limits': {'cpu': '2', 'memory': '1Gi'}}}, 'status': {'phase': "
                "'Running', 'qosClass': 'Guaranteed'}}");
        json_t *c;
        (void) state;

        pod_set_defaults(pod);
        c = json_array_get(json_path(pod, "spec.containers"), 0);
        assert_string_equal(json_string_value(json_object_get(c, "imagePullPolicy")), "Never");
        assert_json(NULL, json_object_get(c, "ports"),
                    "[{'containerPort': 8080, 'protocol': 'UDP', 'hostPort': 8080}]");
        assert_json(NULL, json_object_get(c, "livenessProbe"),
                    "{'httpGet': {'port': 8080, 'path': '/', 'scheme': 'HTTP'}, "
                    "'timeoutSeconds': 1, 'periodSeconds': 10, 'successThreshold': 1, "
                    "'failureThreshold': 3}");
        assert_json(NULL,
                    json_path(json_array_get(json_object_get(c, "env"), 0), "valueFrom.fieldRef"),
                    "{'fieldPath': 'metadata.name', 'apiVersion': 'v1'}");
        assert_json(NULL, json_array_get(json_path(pod, "spec.volumes"), 0),
                    "{'name': 'h', 'hostPath': {'path': '/tmp', 'type': ''}}");
        /* a PriorityClass is the admission plugin's business: no priority here */
        assert_null(json_path(pod, "spec.priority"));
        assert_null(json_path(pod, "spec.preemptionPolicy"));
        /* K8S: defaultPodRequests: pod-level requests follow pod-level limits */
        assert_json(NULL, json_path(pod, "spec.resources"),
                    "{'limits': {'cpu': '2', 'memory': '1Gi'}, 'requests': {'cpu': '2', "
                    "'memory': '1Gi'}}");
        /* status already set is left alone */
        assert_json(NULL, json_path(pod, "status"),
                    "{'phase': 'Running', 'qosClass': 'Guaranteed'}");
        pod_prepare_for_create(pod);
        assert_json(NULL, json_path(pod, "status"),
                    "{'phase': 'Pending', 'qosClass': 'Guaranteed'}");
        assert_int_equal(json_integer_value(json_path(pod, "metadata.generation")), 1);
        json_decref(pod);
}

/* ---- QoS (K8S: pkg/apis/core/helper/qos/qos_test.go TestComputePodQOS cases) ---- */

#define C(res) "{'name': 'c', 'image': 'x', 'resources': " res "}"
#define GUAR(cpu, mem)                                                           \
 "{'requests': {'cpu': '" cpu "', 'memory': '" mem "'}, 'limits': {'cpu': '" cpu \
 "', 'memory': '" mem "'}}"

static void test_qos(void **state)
{
        static const struct {
                const char *name;
                const char *spec;
                const char *want;
        } cases[] = {
                { "best-effort", "{'containers': [" C("{}") "]}", "BestEffort" },
                { "best-effort-zero", "{'containers': [" C("{'requests': {'cpu': '0'}}") "]}",
                  "BestEffort" },
                { "best-effort-hugepages",
                  "{'containers': [" C("{'requests': {'hugepages-2Mi': '2Mi'}, 'limits': "
                                       "{'hugepages-2Mi': '2Mi'}}") "]}",
                  "BestEffort" },
                { "best-effort-ephemeral",
                  "{'containers': [" C("{'requests': {'ephemeral-storage': '1Gi'}}") "]}",
                  "BestEffort" },
                { "guaranteed", "{'containers': [" C(GUAR("100m", "100Mi")) "]}", "Guaranteed" },
                { "guaranteed-two",
                  "{'containers': [" C(GUAR("100m", "100Mi")) ", " C(GUAR("1", "1Gi")) "]}",
                  "Guaranteed" },
                { "guaranteed-equal-values",
                  "{'containers': [" C("{'requests': {'cpu': '1', 'memory': '1Gi'}, 'limits': "
                                       "{'cpu': '1000m', 'memory': '1024Mi'}}") "]}",
                  "Guaranteed" },
                { "guaranteed-hugepages",
                  "{'containers': [" C("{'requests': {'cpu': '1', 'memory': '1Gi', "
                                       "'hugepages-2Mi': '2Mi'}, 'limits': {'cpu': '1', 'memory': "
                                       "'1Gi', 'hugepages-2Mi': '2Mi'}}") "]}",
                  "Guaranteed" },
                { "guaranteed-with-init",
                  "{'containers': [" C(GUAR("100m", "100Mi")) "], 'initContainers': [" C(
                          GUAR("200m", "200Mi")) "]}",
                  "Guaranteed" },
                { "burstable-init-best-effort",
                  "{'containers': [" C(GUAR("100m", "100Mi")) "], 'initContainers': [" C("{}") "]}",
                  "Burstable" },
                { "burstable-mixed", "{'containers': [" C(GUAR("100m", "100Mi")) ", " C("{}") "]}",
                  "Burstable" },
                { "burstable-requests-only",
                  "{'containers': [" C("{'requests': {'cpu': '100m'}}") "]}", "Burstable" },
                { "burstable-limits-only-cpu",
                  "{'containers': [" C("{'limits': {'cpu': '100m'}, 'requests': {'cpu': "
                                       "'100m'}}") "]}",
                  "Burstable" },
                { "burstable-higher-limit",
                  "{'containers': [" C("{'requests': {'cpu': '100m', 'memory': '100Mi'}, "
                                       "'limits': {'cpu': '200m', 'memory': '100Mi'}}") "]}",
                  "Burstable" },
                { "burstable-limits-without-requests",
                  "{'containers': [" C("{'limits': {'cpu': '1', 'memory': '1Gi'}}") "]}",
                  "Burstable" },
                { "burstable-hugepages",
                  "{'containers': [" C("{'requests': {'cpu': '1', 'hugepages-2Mi': '2Mi'}, "
                                       "'limits': {'hugepages-2Mi': '2Mi'}}") "]}",
                  "Burstable" },
                { "pod-level-guaranteed",
                  "{'resources': {'requests': {'cpu': '1', 'memory': '1Gi'}, 'limits': {'cpu': "
                  "'1', 'memory': '1Gi'}}, 'containers': [" C("{}") "]}",
                  "Guaranteed" },
                { "pod-level-burstable",
                  "{'resources': {'requests': {'cpu': '1'}}, 'containers': [" C(
                          GUAR("1", "1Gi")) "]}",
                  "Burstable" },
                { "pod-level-limits-cpu-only",
                  "{'resources': {'requests': {'cpu': '1'}, 'limits': {'cpu': '1'}}, "
                  "'containers': [" C("{}") "]}",
                  "Burstable" },
        };
        (void) state;

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                json_t *pod = json_object();
                json_object_set_new(pod, "spec", jparse(cases[i].spec));
                if (strcmp(pod_qos_class(pod), cases[i].want) != 0)
                        fail_msg("%s: got %s want %s", cases[i].name, pod_qos_class(pod),
                                 cases[i].want);
                json_decref(pod);
        }
}

static void test_qos_stored(void **state)
{
        json_t *pod = jparse("{'spec': {'containers': [" C("{}") "]}, 'status': {'qosClass': "
                                                                 "'Guaranteed'}}");
        (void) state;

        assert_string_equal(pod_qos_class(pod), "BestEffort");
        assert_string_equal(pod_qos_class_stored(pod), "Guaranteed");
        json_object_del(json_object_get(pod, "status"), "qosClass");
        assert_string_equal(pod_qos_class_stored(pod), "BestEffort");
        json_decref(pod);
}

/* ---- create ---- */

static const char *base_pod =
        "{'apiVersion': 'v1', 'kind': 'Pod', 'metadata': {'name': 'web', 'namespace': 'default'}, "
        "'spec': {'containers': [{'name': 'c1', 'image': 'busybox:1.36', 'resources': "
        "{'requests': {'cpu': '500m', 'memory': '64Mi'}, 'limits': {'cpu': '1', 'memory': "
        "'128Mi'}}}], 'volumes': [{'name': 'data', 'emptyDir': {}}]}}";

struct create_case {
        const char *name;
        struct edit pre[4];  /* before pod_set_defaults */
        struct edit post[2]; /* after */
        const char *want[5];
};

static const struct create_case create_cases[] = {
        { "valid", { { 0 } }, { { 0 } }, { NULL } },
        { "topology spread fields",
          { { "spec.topologySpreadConstraints",
              "[{'maxSkew': 0, 'topologyKey': '', 'whenUnsatisfiable': 'Sometimes',"
              " 'nodeTaintsPolicy': 'Maybe'}]" } },
          { { 0 } },
          { "spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than "
            "zero",
            "spec.topologySpreadConstraints[0].topologyKey: Required value: can not be empty",
            "spec.topologySpreadConstraints[0].whenUnsatisfiable: Unsupported value: "
            "\"Sometimes\": supported values: \"DoNotSchedule\", \"ScheduleAnyway\"",
            "spec.topologySpreadConstraints[0].nodeTaintsPolicy: Unsupported value: \"Maybe\": "
            "supported values: \"Honor\", \"Ignore\"",
            NULL } },
        { "topology spread pairs, minDomains, matchLabelKeys",
          { { "spec.topologySpreadConstraints",
              "[{'maxSkew': 1, 'topologyKey': 'zone', 'whenUnsatisfiable': 'ScheduleAnyway',"
              " 'minDomains': 2, 'matchLabelKeys': ['app'],"
              " 'labelSelector': {'matchLabels': {'app': 'web'}}},"
              " {'maxSkew': 1, 'topologyKey': 'zone', 'whenUnsatisfiable': 'ScheduleAnyway',"
              " 'matchLabelKeys': ['rev']}]" } },
          { { 0 } },
          { "spec.topologySpreadConstraints[0].{topologyKey, whenUnsatisfiable}: Duplicate "
            "value: \"{zone, ScheduleAnyway}\"",
            "spec.topologySpreadConstraints[0].minDomains: Invalid value: 2: can only use "
            "minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway",
            "spec.topologySpreadConstraints[0].matchLabelKeys[0]: Invalid value: \"app\": "
            "exists in both matchLabelKeys and labelSelector",
            "spec.topologySpreadConstraints[1].matchLabelKeys: Forbidden: must not be specified "
            "when labelSelector is not set" } },
        { "affinity fields",
          { { "spec.affinity",
              "{'nodeAffinity': {'requiredDuringSchedulingIgnoredDuringExecution':"
              " {'nodeSelectorTerms': []}, 'preferredDuringSchedulingIgnoredDuringExecution':"
              " [{'weight': 0, 'preference': {'matchExpressions': [{'key': 'a',"
              " 'operator': 'In'}]}}]},"
              " 'podAntiAffinity': {'requiredDuringSchedulingIgnoredDuringExecution':"
              " [{'labelSelector': {}, 'topologyKey': 'zone', 'matchLabelKeys': ['x'],"
              " 'mismatchLabelKeys': ['x']}]}}" } },
          { { 0 } },
          { "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
            "nodeSelectorTerms: Required value: must have at least one node selector term",
            "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]."
            "weight: Invalid value: 0: must be in the range 1-100",
            "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]."
            "preference.matchExpressions[0].values: Required value: must be specified when "
            "`operator` is 'In' or 'NotIn'",
            "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]."
            "matchLabelKeys[0]: Invalid value: \"x\": exists in both matchLabelKeys and "
            "mismatchLabelKeys" } },
        { "no containers",
          { { "spec.containers", "[]" } },
          { { 0 } },
          { "spec.containers: Required value", NULL } },
        { "duplicate container",
          { { "spec.containers[1]", "{'name': 'c1', 'image': 'x'}" } },
          { { 0 } },
          { "spec.containers[1].name: Duplicate value: \"c1\"", NULL } },
        { "init shares a name",
          { { "spec.initContainers[0]", "{'name': 'c1', 'image': 'x'}" } },
          { { 0 } },
          { "spec.initContainers[0].name: Duplicate value: \"c1\"", NULL } },
        { "container name",
          { { "spec.containers[0].name", "'C_1'" } },
          { { 0 } },
          { "spec.containers[0].name: Invalid value: \"C_1\": " LABEL_MSG, NULL } },
        { "image required",
          { { "spec.containers[0].image", NULL } },
          { { 0 } },
          { "spec.containers[0].image: Required value", NULL } },
        { "image whitespace",
          { { "spec.containers[0].image", "' busybox'" } },
          { { 0 } },
          { "spec.containers[0].image: Invalid value: \" busybox\": must not have leading or "
            "trailing whitespace",
            NULL } },
        { "cpu request above limit",
          { { "spec.containers[0].resources",
              "{'requests': {'cpu': '2'}, 'limits': {'cpu': '1'}}" } },
          { { 0 } },
          { "spec.containers[0].resources.requests: Invalid value: \"2\": must be less than or "
            "equal to cpu limit of 1",
            NULL } },
        { "memory request above limit",
          { { "spec.containers[0].resources.requests.memory", "'256Mi'" } },
          { { 0 } },
          { "spec.containers[0].resources.requests: Invalid value: \"256Mi\": must be less than "
            "or equal to memory limit of 128Mi",
            NULL } },
        { "unknown resource",
          { { "spec.containers[0].resources", "{'requests': {'foo': '1'}}" } },
          { { 0 } },
          { "spec.containers[0].resources.requests[foo]: Invalid value: \"foo\": must be a "
            "standard resource type or fully qualified",
            "spec.containers[0].resources.requests[foo]: Invalid value: \"foo\": must be a "
            "standard resource for containers",
            NULL } },
        { "quota resource",
          { { "spec.containers[0].resources", "{'requests': {'pods': '1'}}" } },
          { { 0 } },
          { "spec.containers[0].resources.requests[pods]: Invalid value: \"pods\": must be a "
            "standard resource for containers",
            NULL } },
        { "negative",
          { { "spec.containers[0].resources", "{'limits': {'memory': '-1'}}" } },
          { { 0 } },
          { "spec.containers[0].resources.limits[memory]: Invalid value: \"-1\": must be greater "
            "than or equal to 0",
            "spec.containers[0].resources.requests[memory]: Invalid value: \"-1\": must be "
            "greater than or equal to 0",
            NULL } },
        { "extended resource not equal",
          { { "spec.containers[0].resources",
              "{'requests': {'example.com/gpu': '1'}, 'limits': {'example.com/gpu': '2'}}" } },
          { { 0 } },
          { "spec.containers[0].resources.requests: Invalid value: \"1\": must be equal to "
            "example.com/gpu limit of 2",
            NULL } },
        { "extended resource without limit",
          { { "spec.containers[0].resources", "{'requests': {'example.com/gpu': '1'}}" } },
          { { 0 } },
          { "spec.containers[0].resources.limits: Required value: Limit must be set for non "
            "overcommitable resources",
            NULL } },
        { "extended resource not integer",
          { { "spec.containers[0].resources", "{'limits': {'example.com/gpu': '500m'}}" } },
          { { 0 } },
          { "spec.containers[0].resources.limits[example.com/gpu]: Invalid value: \"500m\": must "
            "be an integer",
            "spec.containers[0].resources.requests[example.com/gpu]: Invalid value: \"500m\": "
            "must be an integer",
            NULL } },
        { "hugepages alone",
          { { "spec.containers[0].resources", "{'limits': {'hugepages-2Mi': '4Mi'}}" } },
          { { 0 } },
          { "spec.containers[0].resources: Forbidden: HugePages require cpu or memory", NULL } },
        { "hugepages not a multiple",
          { { "spec.containers[0].resources",
              "{'limits': {'hugepages-2Mi': '3Mi', 'memory': '1Gi'}}" } },
          { { 0 } },
          { "spec.containers[0].resources.limits[hugepages-2Mi]: Invalid value: \"3Mi\": 3Mi is "
            "not positive integer multiple of hugepages-2Mi",
            "spec.containers[0].resources.requests[hugepages-2Mi]: Invalid value: \"3Mi\": 3Mi is "
            "not positive integer multiple of hugepages-2Mi",
            NULL } },
        { "duplicate volume",
          { { "spec.volumes[1]", "{'name': 'data', 'emptyDir': {}}" } },
          { { 0 } },
          { "spec.volumes[1].name: Duplicate value: \"data\"", NULL } },
        { "volume name",
          { { "spec.volumes[0].name", "'Data'" } },
          { { 0 } },
          { "spec.volumes[0].name: Invalid value: \"Data\": " LABEL_MSG, NULL } },
        { "two volume types",
          { { "spec.volumes[0].persistentVolumeClaim", "{'claimName': 'pvc'}" } },
          { { 0 } },
          { "spec.volumes[0].persistentVolumeClaim: Forbidden: may not specify more than 1 "
            "volume type",
            NULL } },
        { "downwardAPI spelled as upstream does",
          { { "spec.volumes[0].downwardAPI", "{}" } },
          { { 0 } },
          { "spec.volumes[0].downwarAPI: Forbidden: may not specify more than 1 volume type",
            NULL } },
        { "no volume type",
          { { 0 } },
          { { "spec.volumes[0].emptyDir", NULL } },
          { "spec.volumes[0]: Required value: must specify a volume type", NULL } },
        { "claimName required",
          { { "spec.volumes[0]",
              "{'name': 'data', 'persistentVolumeClaim': {'readOnly': true}}" } },
          { { 0 } },
          { "spec.volumes[0].persistentVolumeClaim.claimName: Required value", NULL } },
        { "emptyDir sizeLimit negative",
          { { "spec.volumes[0].emptyDir.sizeLimit", "'-1Mi'" } },
          { { 0 } },
          { "spec.volumes[0].emptyDir.sizeLimit: Forbidden: SizeLimit field must be a valid "
            "resource quantity",
            NULL } },
        { "emptyDir sizeLimit zero",
          { { "spec.volumes[0].emptyDir.sizeLimit", "'0'" } },
          { { 0 } },
          { NULL } },
        { "memory emptyDir",
          { { "spec.volumes[0].emptyDir", "{'medium': 'Memory', 'sizeLimit': "
                                          "'1Gi'}" } },
          { { 0 } },
          { NULL } },
        { "mount of an unknown volume",
          { { "spec.containers[0].volumeMounts", "[{'name': 'nope', 'mountPath': '/x'}]" } },
          { { 0 } },
          { "spec.containers[0].volumeMounts[0].name: Not found: \"nope\"", NULL } },
        { "mount of an invalid volume",
          { { "spec.volumes[0].name", "'Data'" },
            { "spec.containers[0].volumeMounts", "[{'name': 'Data', 'mountPath': '/x'}]" } },
          { { 0 } },
          { "spec.volumes[0].name: Invalid value: \"Data\": " LABEL_MSG,
            "spec.containers[0].volumeMounts[0].name: Not found: \"Data\"", NULL } },
        { "mountPath required",
          { { "spec.containers[0].volumeMounts", "[{'name': 'data'}]" } },
          { { 0 } },
          { "spec.containers[0].volumeMounts[0].mountPath: Required value", NULL } },
        { "mountPath unique",
          { { "spec.containers[0].volumeMounts",
              "[{'name': 'data', 'mountPath': '/data'}, {'name': 'data', 'mountPath': "
              "'/data'}]" } },
          { { 0 } },
          { "spec.containers[0].volumeMounts[1].mountPath: Invalid value: \"/data\": must be "
            "unique",
            NULL } },
        { "subPath",
          { { "spec.containers[0].volumeMounts",
              "[{'name': 'data', 'mountPath': '/a', 'subPath': '/x'}, {'name': 'data', "
              "'mountPath': '/b', 'subPath': 'a/../../x'}]" } },
          { { 0 } },
          { "spec.containers[0].volumeMounts.subPath: Invalid value: \"/x\": must be a relative "
            "path",
            "spec.containers[0].volumeMounts.subPath: Invalid value: \"a/../../x\": must not "
            "contain '..'",
            NULL } },
        { "restartPolicy",
          { { "spec.restartPolicy", "'Sometimes'" } },
          { { 0 } },
          { "spec.restartPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", "
            "\"OnFailure\", \"Never\"",
            NULL } },
        { "dnsPolicy",
          { { "spec.dnsPolicy", "'Cluster'" } },
          { { 0 } },
          { "spec.dnsPolicy: Unsupported value: \"Cluster\": supported values: "
            "\"ClusterFirstWithHostNet\", \"ClusterFirst\", \"Default\", \"None\"",
            NULL } },
        { "init container restartPolicy",
          { { "spec.initContainers[0]",
              "{'name': 'i', 'image': 'x', 'restartPolicy': 'OnFailure'}" } },
          { { 0 } },
          { "spec.initContainers[0].restartPolicy: Unsupported value: \"OnFailure\": supported "
            "values: \"Always\"",
            NULL } },
        { "sidecar",
          { { "spec.initContainers[0]",
              "{'name': 'side', 'image': 'x', 'restartPolicy': 'Always', "
              "'livenessProbe': {'exec': {'command': ['true']}}, 'resizePolicy': "
              "[{'resourceName': 'cpu', 'restartPolicy': 'NotRequired'}]}" } },
          { { 0 } },
          { NULL } },
        { "regular container restartPolicy",
          { { "spec.containers[0].restartPolicy", "'Always'" } },
          { { 0 } },
          { "spec.containers[0].restartPolicy: Forbidden: may not be set for non-init containers",
            NULL } },
        { "init container probe",
          { { "spec.initContainers[0]",
              "{'name': 'i', 'image': 'x', 'livenessProbe': {'exec': {'command': ['true']}}}" } },
          { { 0 } },
          { "spec.initContainers[0].livenessProbe: Forbidden: may not be set for init containers "
            "without restartPolicy=Always",
            NULL } },
        { "probe handler",
          { { "spec.containers[0].readinessProbe", "{'periodSeconds': 5}" } },
          { { 0 } },
          { "spec.containers[0].readinessProbe: Required value: must specify a handler type",
            NULL } },
        { "resizePolicy resource",
          { { "spec.containers[0].resizePolicy",
              "[{'resourceName': 'storage', 'restartPolicy': 'NotRequired'}]" } },
          { { 0 } },
          { "spec.containers[0].resizePolicy: Unsupported value: \"storage\": supported values: "
            "\"cpu\", \"memory\"",
            NULL } },
        { "resizePolicy value",
          { { "spec.containers[0].resizePolicy",
              "[{'resourceName': 'memory', 'restartPolicy': 'Sometimes'}]" } },
          { { 0 } },
          { "spec.containers[0].resizePolicy: Unsupported value: \"Sometimes\": supported "
            "values: \"NotRequired\", \"RestartContainer\"",
            NULL } },
        { "resizePolicy duplicate",
          { { "spec.containers[0].resizePolicy",
              "[{'resourceName': 'cpu', 'restartPolicy': 'NotRequired'}, {'resourceName': 'cpu', "
              "'restartPolicy': 'RestartContainer'}]" } },
          { { 0 } },
          { "spec.containers[0].resizePolicy[1]: Duplicate value: \"cpu\"", NULL } },
        { "resizePolicy with restartPolicy Never",
          { { "spec.restartPolicy", "'Never'" },
            { "spec.containers[0].resizePolicy",
              "[{'resourceName': 'cpu', 'restartPolicy': 'NotRequired'}, {'resourceName': "
              "'memory', 'restartPolicy': 'RestartContainer'}]" } },
          { { 0 } },
          { "spec.containers[0].resizePolicy: Invalid value: \"RestartContainer\": must be "
            "'NotRequired' when `restartPolicy` is 'Never'",
            NULL } },
        { "imagePullPolicy",
          { { "spec.containers[0].imagePullPolicy", "'Sometimes'" } },
          { { 0 } },
          { "spec.containers[0].imagePullPolicy: Unsupported value: \"Sometimes\": supported "
            "values: \"Always\", \"IfNotPresent\", \"Never\"",
            NULL } },
        { "terminationMessagePolicy",
          { { "spec.containers[0].terminationMessagePolicy", "'X'" } },
          { { 0 } },
          { "spec.containers[0].terminationMessagePolicy: Unsupported value: \"X\": supported "
            "values: \"File\", \"FallbackToLogsOnError\"",
            NULL } },
        { "activeDeadlineSeconds",
          { { "spec.activeDeadlineSeconds", "0" } },
          { { 0 } },
          { "spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, "
            "inclusive",
            NULL } },
        /* upstream does not reject a negative grace period (it only warns) */
        { "negative grace period",
          { { "spec.terminationGracePeriodSeconds", "-1" } },
          { { 0 } },
          { NULL } },
        { "grace period required",
          { { 0 } },
          { { "spec.terminationGracePeriodSeconds", NULL } },
          { "spec.terminationGracePeriodSeconds: Required value", NULL } },
        { "ports",
          { { "spec.containers[0].ports",
              "[{'containerPort': 0}, {'containerPort': 70000, 'protocol': 'HTTP'}, {'name': "
              "'-http', 'containerPort': 80}]" } },
          { { 0 } },
          { "spec.containers[0].ports[0].containerPort: Required value",
            "spec.containers[0].ports[1].containerPort: Invalid value: 70000: must be between 1 "
            "and 65535, inclusive",
            "spec.containers[0].ports[1].protocol: Unsupported value: \"HTTP\": supported values: "
            "\"SCTP\", \"TCP\", \"UDP\"",
            "spec.containers[0].ports[2].name: Invalid value: \"-http\": must not begin or end "
            "with a hyphen" } },
        { "host port conflict",
          { { "spec.containers[0].ports", "[{'containerPort': 80, 'hostPort': 80}]" },
            { "spec.containers[1]", "{'name': 'c2', 'image': 'x', 'ports': [{'containerPort': 81, "
                                    "'hostPort': 80}]}" } },
          { { 0 } },
          { "spec.containers[1].ports[0].hostPort: Duplicate value: \"TCP//80\"", NULL } },
        /* K8S: validateHostUsers (upstream spells the last two paths HostPID, HostIPC) */
        { "user namespace with host namespaces",
          { { "spec.hostUsers", "false" },
            { "spec.hostNetwork", "true" },
            { "spec.hostPID", "true" },
            { "spec.hostIPC", "true" } },
          { { 0 } },
          { "spec.hostNetwork: Forbidden: when `pod.Spec.HostUsers` is false",
            "spec.HostPID: Forbidden: when `pod.Spec.HostUsers` is false",
            "spec.HostIPC: Forbidden: when `pod.Spec.HostUsers` is false", NULL } },
        { "procMount",
          { { "spec.containers[0].securityContext", "{'procMount': 'Unmasked'}" },
            { "spec.initContainers[0]",
              "{'name': 'i', 'image': 'x', 'securityContext': {'procMount': 'Open'}}" } },
          { { 0 } },
          { "spec.initContainers[0].securityContext.procMount: Unsupported value: \"Open\": "
            "supported values: \"Default\", \"Unmasked\"",
            "spec.containers[0].securityContext.procMount: Invalid value: \"Unmasked\": "
            "`hostUsers` must be false to use `Unmasked`",
            NULL } },
        { "procMount Unmasked with hostUsers false",
          { { "spec.hostUsers", "false" },
            { "spec.containers[0].securityContext", "{'procMount': 'Unmasked'}" } },
          { { 0 } },
          { NULL } },
        { "env name",
          { { "spec.containers[0].env", "[{'name': 'A=B'}, {'name': ''}]" } },
          { { 0 } },
          { "spec.containers[0].env[0].name: Invalid value: \"A=B\": a valid environment "
            "variable name must consist only of printable ASCII characters other than '='",
            "spec.containers[0].env[1].name: Required value", NULL } },
        { "mirror pod without node",
          { { "metadata.annotations", "{'kubernetes.io/config.mirror': 'abc'}" } },
          { { 0 } },
          { "metadata.annotations[kubernetes.io/config.mirror]: Invalid value: \"abc\": must set "
            "spec.nodeName if mirror pod annotation is set",
            NULL } },
        { "deletion cost",
          { { "metadata.annotations", "{'controller.kubernetes.io/pod-deletion-cost': '012'}" } },
          { { 0 } },
          { "metadata.annotations[controller.kubernetes.io/pod-deletion-cost]: Invalid value: "
            "\"012\": must be a 32bit integer",
            NULL } },
        { "ephemeral containers",
          { { "spec.ephemeralContainers", "[{'name': 'dbg', 'image': 'busybox'}]" } },
          { { 0 } },
          { "spec.ephemeralContainers: Forbidden: cannot be set on create", NULL } },
        { "toleration without key",
          { { "spec.tolerations", "[{'operator': 'Equal', 'value': 'x'}]" } },
          { { 0 } },
          { "spec.tolerations[0].operator: Invalid value: \"Equal\": operator must be Exists when "
            "`key` is empty, which means \"match all values and all keys\"",
            NULL } },
        { "toleration seconds",
          { { "spec.tolerations", "[{'key': 'k', 'operator': 'Exists', "
                                  "'tolerationSeconds': 5}]" } },
          { { 0 } },
          { "spec.tolerations[0].effect: Invalid value: \"\": effect must be 'NoExecute' when "
            "`tolerationSeconds` is set",
            NULL } },
        { "pod-level limit below a container's",
          { { "spec.resources", "{'limits': {'cpu': '800m'}}" } },
          { { 0 } },
          { "spec.resources.containers[0][cpu].limits: Invalid value: \"1\": must be less than "
            "or equal to pod limits of 800m",
            NULL } },
        { "pod-level requests below the containers'",
          { { "spec.resources", "{'requests': {'cpu': '100m'}}" } },
          { { 0 } },
          { "spec.resources.requests[cpu]: Invalid value: \"100m\": must be greater than or equal "
            "to aggregate container requests of 500m",
            "spec.resources.requests[memory]: Invalid value: \"0\": must be greater than or "
            "equal to aggregate container requests of 64Mi",
            NULL } },
        { "pod-level resource name",
          { { "spec.resources", "{'requests': {'cpu': '1', 'memory': '1Gi', "
                                "'ephemeral-storage': '1Gi'}}" } },
          { { 0 } },
          { "spec.resources.requests[ephemeral-storage]: Unsupported value: "
            "\"ephemeral-storage\": supported values: \"cpu\", \"memory\"",
            NULL } },
        { "volume items paths (K8S ValidateLocalNonReservedPath)",
          { { "spec.volumes",
              "[{'name': 'a', 'configMap': {'name': 'cm', 'items': [{'key': 'k', "
              "'path': '../x'}, {'key': 'k', 'path': '..data'}]}}, {'name': 'b', 'projected': "
              "{'sources': [{'secret': {'name': 's', 'items': [{'key': 'k', 'path': '/abs', "
              "'mode': 512}]}}]}}]" } },
          { { 0 } },
          { "spec.volumes[0].configMap.items[0].path: Invalid value: \"../x\": must not "
            "contain '..'",
            "spec.volumes[0].configMap.items[1].path: Invalid value: \"..data\": must not "
            "start with '..'",
            "spec.volumes[1].projected.sources[0].secret.items[0].path: Invalid value: "
            "\"/abs\": must be a relative path",
            "spec.volumes[1].projected.sources[0].secret.items[0].mode: Invalid value: 512: "
            "must be a number between 0 and 0777 (octal), both inclusive",
            NULL } },
        { "metadata",
          { { "metadata.name", NULL }, { "metadata.namespace", NULL } },
          { { 0 } },
          { "metadata.name: Required value: name or generateName is required",
            "metadata.namespace: Required value", NULL } },
};

static void test_create(void **state)
{
        (void) state;

        for (size_t i = 0; i < ARRAY_SIZE(create_cases); i++) {
                const struct create_case *tc = &create_cases[i];
                json_t *pod = jparse(base_pod);
                struct field_error_list l;

                apply(pod, tc->pre);
                pod_set_defaults(pod);
                apply(pod, tc->post);
                field_error_list_init(&l);
                size_t n = validate_pod_create(pod, &l);
                assert_int_equal(n, l.n);
                assert_errors(tc->name, &l, tc->want);
                field_error_list_release(&l);
                json_decref(pod);
        }
}

/* ---- update ---- */

struct update_case {
        const char *name;
        struct edit old_edits[2]; /* to the stored pod, before the copy */
        struct edit edits[3];     /* to the new pod */
        const char *want[3];
};

static const struct update_case update_cases[] = {
        { "nothing", { { 0 } }, { { 0 } }, { NULL } },
        { "image and labels",
          { { 0 } },
          { { "spec.containers[0].image", "'busybox:1.37'" }, { "metadata.labels", "{'a': 'b'}" } },
          { NULL } },
        { "restartPolicy",
          { { 0 } },
          { { "spec.restartPolicy", "'Never'" } },
          { UPDATE_MSG "\n- spec.restartPolicy: \"Always\"\n+ spec.restartPolicy: \"Never\"",
            NULL } },
        { "resources through a plain update",
          { { 0 } },
          { { "spec.containers[0].resources.requests.cpu", "'600m'" } },
          { UPDATE_MSG "\n- spec.containers[0].resources.requests.cpu: \"500m\"\n"
                       "+ spec.containers[0].resources.requests.cpu: \"600m\"",
            NULL } },
        { "memory emptyDir sizeLimit through a plain update",
          { { "spec.volumes[0].emptyDir", "{'medium': 'Memory', 'sizeLimit': '100Mi'}" } },
          { { "spec.volumes[0].emptyDir.sizeLimit", "'200Mi'" } },
          { UPDATE_MSG "\n- spec.volumes[0].emptyDir.sizeLimit: \"100Mi\"\n"
                       "+ spec.volumes[0].emptyDir.sizeLimit: \"200Mi\"",
            NULL } },
        { "same quantity spelled differently",
          { { 0 } },
          { { "spec.containers[0].resources.limits.cpu", "'1000m'" } },
          { NULL } },
        { "container added",
          { { 0 } },
          { { "spec.containers[1]", "{'name': 'c2', 'image': 'x', 'imagePullPolicy': 'Always', "
                                    "'terminationMessagePolicy': 'File'}" } },
          { "spec.containers: Forbidden: pod updates may not add or remove containers", NULL } },
        { "image removed",
          { { 0 } },
          { { "spec.containers[0].image", "''" } },
          { "spec.containers[0].image: Required value", "spec.containers[0].image: Required value",
            NULL } },
        { "activeDeadlineSeconds set",
          { { 0 } },
          { { "spec.activeDeadlineSeconds", "30" } },
          { NULL } },
        { "activeDeadlineSeconds raised",
          { { "spec.activeDeadlineSeconds", "10" } },
          { { "spec.activeDeadlineSeconds", "20" } },
          { "spec.activeDeadlineSeconds: Invalid value: 20: must be less than or equal to "
            "previous value",
            NULL } },
        { "activeDeadlineSeconds lowered",
          { { "spec.activeDeadlineSeconds", "10" } },
          { { "spec.activeDeadlineSeconds", "5" } },
          { NULL } },
        { "activeDeadlineSeconds cleared",
          { { "spec.activeDeadlineSeconds", "10" } },
          { { "spec.activeDeadlineSeconds", NULL } },
          { "spec.activeDeadlineSeconds: Invalid value: \"null\": must not update from a positive "
            "integer to nil value",
            NULL } },
        { "toleration added",
          { { "spec.tolerations", "[{'key': 'a', 'operator': 'Exists'}]" } },
          { { "spec.tolerations[1]", "{'key': 'b', 'operator': 'Exists'}" } },
          { NULL } },
        { "toleration seconds changed",
          { { "spec.tolerations", "[{'key': 'a', 'operator': 'Exists', 'effect': 'NoExecute', "
                                  "'tolerationSeconds': 10}]" } },
          { { "spec.tolerations[0].tolerationSeconds", "20" } },
          { NULL } },
        { "toleration modified",
          { { "spec.tolerations", "[{'key': 'a', 'operator': 'Exists'}]" } },
          { { "spec.tolerations[0].key", "'b'" } },
          { "spec.tolerations: Forbidden: existing toleration can not be modified except its "
            "tolerationSeconds",
            NULL } },
        { "negative grace period set to 1",
          { { "spec.terminationGracePeriodSeconds", "-5" } },
          { { "spec.terminationGracePeriodSeconds", "1" } },
          { NULL } },
        { "grace period changed",
          { { 0 } },
          { { "spec.terminationGracePeriodSeconds", "5" } },
          { UPDATE_MSG "\n- spec.terminationGracePeriodSeconds: 30\n"
                       "+ spec.terminationGracePeriodSeconds: 5",
            NULL } },
        { "scheduling gate removed",
          { { "spec.schedulingGates", "[{'name': 'example.com/a'}]" } },
          { { "spec.schedulingGates", "[]" } },
          { NULL } },
        { "scheduling gate added",
          { { 0 } },
          { { "spec.schedulingGates", "[{'name': 'example.com/a'}]" } },
          { "spec.schedulingGates[0].name: Forbidden: only deletion is allowed, but found new "
            "scheduling gate 'example.com/a'",
            NULL } },
        { "name changed",
          { { 0 } },
          { { "metadata.name", "'other'" } },
          { "metadata.name: Invalid value: \"other\": field is immutable", NULL } },
        { "mirror annotation added",
          { { "spec.nodeName", "'node1'" } },
          { { "metadata.annotations", "{'kubernetes.io/config.mirror': 'x'}" } },
          { "metadata.annotations[kubernetes.io/config.mirror]: Forbidden: may not add mirror pod "
            "annotation",
            NULL } },
};

static void test_update(void **state)
{
        (void) state;

        for (size_t i = 0; i < ARRAY_SIZE(update_cases); i++) {
                const struct update_case *tc = &update_cases[i];
                json_t *old = jparse(base_pod);
                json_t *neu;
                struct field_error_list l;

                jset(old, "metadata.uid", "'u1'");
                jset(old, "metadata.resourceVersion", "'7'");
                jset(old, "metadata.creationTimestamp", "'2025-01-01T00:00:00Z'");
                apply(old, tc->old_edits);
                pod_set_defaults(old);
                pod_prepare_for_create(old);
                neu = json_deep_copy(old);
                apply(neu, tc->edits);
                pod_set_defaults(neu);
                field_error_list_init(&l);
                validate_pod_update(neu, old, &l);
                assert_errors(tc->name, &l, tc->want);
                field_error_list_release(&l);
                json_decref(old);
                json_decref(neu);
        }
}

static void test_spec_changed(void **state)
{
        json_t *old = jparse(base_pod);
        json_t *neu;
        (void) state;

        pod_set_defaults(old);
        neu = json_deep_copy(old);
        assert_false(pod_spec_changed(neu, old));
        jset(neu, "metadata.labels", "{'x': 'y'}");
        jset(neu, "status.phase", "'Running'");
        assert_false(pod_spec_changed(neu, old));
        jset(neu, "spec.containers[0].resources.limits.memory", "'134217728'");
        assert_false(pod_spec_changed(neu, old)); /* 128Mi, spelled in bytes */
        jset(neu, "spec.containers[0].resources.limits.memory", "'256Mi'");
        assert_true(pod_spec_changed(neu, old));
        json_decref(old);
        json_decref(neu);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_defaults_full),
                cmocka_unit_test(test_defaults_resources),
                cmocka_unit_test(test_defaults_image_pull_policy),
                cmocka_unit_test(test_defaults_misc),
                cmocka_unit_test(test_qos),
                cmocka_unit_test(test_qos_stored),
                cmocka_unit_test(test_create),
                cmocka_unit_test(test_update),
                cmocka_unit_test(test_spec_changed),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
