/* test-schema.c: the kind schemas and the schema walker against upstream behaviour. Expected
 * messages follow sigs.k8s.io/json (Go encoding/json's UnmarshalTypeError and the strict
 * decoder's field paths), resource.Quantity and time.Parse as kube-apiserver prints them;
 * merge keys and list types follow the k8s.io/api struct tags (kubectl-wire.md §5.2). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/schema.h"
#include "api/schemas.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/quantity.h"

static json_t *parse(const char *text)
{
        json_error_t jerr;
        json_t *v = json_loads(text, 0, &jerr);

        if (!v)
                fail_msg("bad test JSON: %s at %d: %s", jerr.text, jerr.position, text);
        return v;
}

/* Runs schema_check on a copy of text; returns its result, the message or unknown lines. */
struct outcome {
        int r;
        char *message;
        char *unknown;
        json_t *value;
};

static struct outcome check(const struct schema *s, const char *text)
{
        struct outcome o = { 0 };
        struct error *err = NULL;
        struct strbuf unknown;

        strbuf_init(&unknown);
        o.value = parse(text);
        o.r = schema_check(s, o.value, "", &unknown, &err);
        o.message = err ? xstrdup(err->message) : NULL;
        o.unknown = strbuf_detach(&unknown);
        error_free(err);
        return o;
}

static void outcome_release(struct outcome *o)
{
        free(o->message);
        free(o->unknown);
        json_decref(o->value);
}

static void assert_json_eq(const json_t *got, const char *want_text)
{
        json_t *want = parse(want_text);

        if (!json_equal(got, want)) {
                cleanup_free char *g = json_dump_compact(got);
                cleanup_free char *w = json_dump_compact(want);
                json_decref(want);
                fail_msg("got  %s\nwant %s", g, w);
        }
        json_decref(want);
}

/* ---- a realistic pod passes unchanged ---- */

static const char realistic_pod[] =
        "{\"apiVersion\":\"v1\",\"kind\":\"Pod\","
        "\"metadata\":{\"name\":\"web\",\"namespace\":\"default\",\"uid\":\"0b1c\","
        " \"resourceVersion\":\"42\",\"generation\":1,"
        " \"creationTimestamp\":\"2025-01-01T00:00:00Z\","
        " \"labels\":{\"app\":\"web\",\"tier\":\"front\"},"
        " \"annotations\":{\"kubectl.kubernetes.io/last-applied-configuration\":\"{}\"},"
        " \"ownerReferences\":[{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\","
        "   \"name\":\"web-7d\",\"uid\":\"9f\",\"controller\":true,\"blockOwnerDeletion\":true}],"
        " \"finalizers\":[\"example.com/keep\"],"
        " \"managedFields\":[{\"manager\":\"kubectl\",\"operation\":\"Update\","
        "   \"apiVersion\":\"v1\",\"time\":\"2025-01-01T00:00:00Z\",\"fieldsType\":\"FieldsV1\","
        "   \"fieldsV1\":{\"f:spec\":{\"f:containers\":{}}}}]},"
        "\"spec\":{"
        " \"initContainers\":[{\"name\":\"init\",\"image\":\"busybox\","
        "   \"command\":[\"sh\",\"-c\",\"true\"],\"restartPolicy\":\"Always\"}],"
        " \"containers\":[{\"name\":\"app\",\"image\":\"nginx:1.27\","
        "   \"imagePullPolicy\":\"IfNotPresent\",\"args\":[\"--port\",\"8080\"],"
        "   \"workingDir\":\"/srv\","
        "   \"ports\":[{\"name\":\"http\",\"containerPort\":8080,\"protocol\":\"TCP\"}],"
        "   \"envFrom\":[{\"configMapRef\":{\"name\":\"cfg\",\"optional\":true}},"
        "              {\"prefix\":\"S_\",\"secretRef\":{\"name\":\"sec\"}}],"
        "   \"env\":[{\"name\":\"A\",\"value\":\"1\"},"
        "     {\"name\":\"NODE\",\"valueFrom\":{\"fieldRef\":{\"apiVersion\":\"v1\","
        "       \"fieldPath\":\"spec.nodeName\"}}},"
        "     {\"name\":\"PW\",\"valueFrom\":{\"secretKeyRef\":{\"name\":\"sec\",\"key\":\"pw\"}}},"
        "     {\"name\":\"MEM\",\"valueFrom\":{\"resourceFieldRef\":{\"containerName\":\"app\","
        "       \"resource\":\"limits.memory\",\"divisor\":\"1Mi\"}}}],"
        "   \"resources\":{\"limits\":{\"cpu\":\"500m\",\"memory\":\"128Mi\"},"
        "     \"requests\":{\"cpu\":\"250m\",\"memory\":\"64Mi\"}},"
        "   \"resizePolicy\":[{\"resourceName\":\"cpu\",\"restartPolicy\":\"NotRequired\"},"
        "     {\"resourceName\":\"memory\",\"restartPolicy\":\"RestartContainer\"}],"
        "   \"volumeMounts\":[{\"name\":\"shm\",\"mountPath\":\"/dev/shm\"},"
        "     {\"name\":\"cfg\",\"mountPath\":\"/etc/cfg\",\"readOnly\":true,\"subPath\":\"a\","
        "      \"mountPropagation\":\"None\"}],"
        "   \"livenessProbe\":{\"httpGet\":{\"path\":\"/healthz\",\"port\":8080,"
        "       \"scheme\":\"HTTP\",\"httpHeaders\":[{\"name\":\"X\",\"value\":\"y\"}]},"
        "     \"initialDelaySeconds\":3,\"periodSeconds\":10,\"timeoutSeconds\":1,"
        "     \"successThreshold\":1,\"failureThreshold\":3},"
        "   \"readinessProbe\":{\"tcpSocket\":{\"port\":\"http\"}},"
        "   \"startupProbe\":{\"exec\":{\"command\":[\"cat\",\"/tmp/ok\"]}},"
        "   \"lifecycle\":{\"preStop\":{\"exec\":{\"command\":[\"sleep\",\"5\"]}},"
        "     \"postStart\":{\"sleep\":{\"seconds\":1}}},"
        "   \"terminationMessagePath\":\"/dev/termination-log\","
        "   \"terminationMessagePolicy\":\"File\","
        "   \"securityContext\":{\"runAsNonRoot\":true,\"runAsUser\":1000,"
        "     \"allowPrivilegeEscalation\":false,\"readOnlyRootFilesystem\":true,"
        "     \"capabilities\":{\"drop\":[\"ALL\"],\"add\":[\"NET_BIND_SERVICE\"]},"
        "     \"seccompProfile\":{\"type\":\"RuntimeDefault\"}},"
        "   \"stdin\":false,\"tty\":false}],"
        " \"volumes\":[{\"name\":\"shm\",\"emptyDir\":{\"medium\":\"Memory\","
        "     \"sizeLimit\":\"64Mi\"}},"
        "   {\"name\":\"cfg\",\"configMap\":{\"name\":\"cfg\",\"defaultMode\":420,"
        "     \"items\":[{\"key\":\"a\",\"path\":\"a.conf\"}]}},"
        "   {\"name\":\"data\",\"persistentVolumeClaim\":{\"claimName\":\"data\","
        "     \"readOnly\":false}},"
        "   {\"name\":\"host\",\"hostPath\":{\"path\":\"/var/log\",\"type\":\"Directory\"}},"
        "   {\"name\":\"sec\",\"secret\":{\"secretName\":\"sec\",\"optional\":false}},"
        "   {\"name\":\"info\",\"downwardAPI\":{\"items\":[{\"path\":\"labels\","
        "     \"fieldRef\":{\"fieldPath\":\"metadata.labels\"}}]}},"
        "   {\"name\":\"token\",\"projected\":{\"sources\":[{\"serviceAccountToken\":"
        "     {\"path\":\"token\",\"expirationSeconds\":3600,\"audience\":\"api\"}},"
        "     {\"configMap\":{\"name\":\"kube-root-ca.crt\",\"items\":[{\"key\":\"ca.crt\","
        "       \"path\":\"ca.crt\"}]}}],\"defaultMode\":420}}],"
        " \"restartPolicy\":\"Always\",\"terminationGracePeriodSeconds\":30,"
        " \"activeDeadlineSeconds\":600,\"dnsPolicy\":\"ClusterFirst\","
        " \"nodeSelector\":{\"disk\":\"ssd\"},\"serviceAccountName\":\"default\","
        " \"serviceAccount\":\"default\",\"automountServiceAccountToken\":false,"
        " \"nodeName\":\"node1\",\"hostNetwork\":false,\"shareProcessNamespace\":true,"
        " \"securityContext\":{\"fsGroup\":2000,\"runAsGroup\":3000,"
        "   \"supplementalGroups\":[4000],\"sysctls\":[{\"name\":\"net.core.somaxconn\","
        "   \"value\":\"1024\"}]},"
        " \"imagePullSecrets\":[{\"name\":\"regcred\"}],\"hostname\":\"web\","
        " \"subdomain\":\"svc\","
        " \"affinity\":{\"nodeAffinity\":{\"requiredDuringSchedulingIgnoredDuringExecution\":"
        "   {\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"zone\","
        "   \"operator\":\"In\",\"values\":[\"a\",\"b\"]}]}]}},"
        "   \"podAntiAffinity\":{\"preferredDuringSchedulingIgnoredDuringExecution\":"
        "   [{\"weight\":100,\"podAffinityTerm\":{\"labelSelector\":{\"matchLabels\":"
        "   {\"app\":\"web\"}},\"topologyKey\":\"kubernetes.io/hostname\"}}]}},"
        " \"schedulerName\":\"default-scheduler\","
        " \"tolerations\":[{\"key\":\"node.kubernetes.io/not-ready\",\"operator\":\"Exists\","
        "   \"effect\":\"NoExecute\",\"tolerationSeconds\":300}],"
        " \"hostAliases\":[{\"ip\":\"10.0.0.1\",\"hostnames\":[\"db\"]}],"
        " \"priorityClassName\":\"high\",\"priority\":1000,"
        " \"dnsConfig\":{\"nameservers\":[\"1.1.1.1\"],\"options\":[{\"name\":\"ndots\","
        "   \"value\":\"2\"}]},"
        " \"readinessGates\":[{\"conditionType\":\"example.com/ready\"}],"
        " \"runtimeClassName\":\"runc\",\"enableServiceLinks\":true,"
        " \"preemptionPolicy\":\"PreemptLowerPriority\",\"overhead\":{\"cpu\":\"10m\"},"
        " \"topologySpreadConstraints\":[{\"maxSkew\":1,\"topologyKey\":\"zone\","
        "   \"whenUnsatisfiable\":\"DoNotSchedule\",\"labelSelector\":{\"matchExpressions\":"
        "   [{\"key\":\"app\",\"operator\":\"In\",\"values\":[\"web\"]}]}}],"
        " \"setHostnameAsFQDN\":false,\"os\":{\"name\":\"linux\"},\"hostUsers\":true,"
        " \"schedulingGates\":[{\"name\":\"example.com/gate\"}],"
        " \"resources\":{\"limits\":{\"cpu\":\"1\",\"memory\":\"256Mi\"}}},"
        "\"status\":{\"phase\":\"Running\",\"qosClass\":\"Burstable\","
        " \"observedGeneration\":1,"
        " \"conditions\":[{\"type\":\"Ready\",\"status\":\"True\",\"observedGeneration\":1,"
        "   \"lastProbeTime\":null,\"lastTransitionTime\":\"2025-01-01T00:00:05Z\"}],"
        " \"hostIP\":\"10.0.0.2\",\"hostIPs\":[{\"ip\":\"10.0.0.2\"}],"
        " \"podIP\":\"10.244.0.5\",\"podIPs\":[{\"ip\":\"10.244.0.5\"}],"
        " \"startTime\":\"2025-01-01T00:00:01Z\","
        " \"containerStatuses\":[{\"name\":\"app\",\"ready\":true,\"restartCount\":0,"
        "   \"started\":true,\"image\":\"nginx:1.27\",\"imageID\":\"docker.io/nginx@sha256:1\","
        "   \"containerID\":\"containerd://abc\","
        "   \"state\":{\"running\":{\"startedAt\":\"2025-01-01T00:00:02Z\"}},"
        "   \"lastState\":{\"terminated\":{\"exitCode\":137,\"reason\":\"OOMKilled\","
        "     \"startedAt\":\"2024-12-31T23:00:00Z\",\"finishedAt\":\"2025-01-01T00:00:00Z\"}},"
        "   \"allocatedResources\":{\"cpu\":\"250m\",\"memory\":\"64Mi\"},"
        "   \"resources\":{\"limits\":{\"cpu\":\"500m\",\"memory\":\"128Mi\"},"
        "     \"requests\":{\"cpu\":\"250m\",\"memory\":\"64Mi\"}},"
        "   \"volumeMounts\":[{\"name\":\"shm\",\"mountPath\":\"/dev/shm\","
        "     \"volumeStatus\":{\"emptyDir\":{\"sizeLimit\":\"64Mi\"}}}],"
        "   \"user\":{\"linux\":{\"uid\":1000,\"gid\":3000,\"supplementalGroups\":[3000,4000]}},"
        "   \"allocatedResourcesStatus\":[{\"name\":\"claim:gpu\",\"resources\":"
        "     [{\"resourceID\":\"gpu-0\",\"health\":\"Healthy\"}]}],"
        "   \"stopSignal\":\"SIGTERM\"}],"
        " \"resize\":\"InProgress\"}}";

static void test_realistic_pod_unchanged(void **state)
{
        struct outcome o = check(&schema_pod, realistic_pod);
        json_t *want = parse(realistic_pod);

        assert_int_equal(o.r, 0);
        assert_null(o.message);
        assert_string_equal(o.unknown, "");
        /* K8S: a null optional field is dropped, as Go leaves it zero and omitempty drops it. */
        json_object_del(json_array_get(json_path(want, "status.conditions"), 0), "lastProbeTime");
        assert_true(json_equal(o.value, want));
        json_decref(want);
        outcome_release(&o);
}

static void test_realistic_node_event_namespace(void **state)
{
        static const struct {
                const struct schema *s;
                const char *text;
        } cases[] = {
                { &schema_node,
                  "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"node1\","
                  "\"labels\":{\"kubernetes.io/hostname\":\"node1\"}},"
                  "\"spec\":{\"podCIDR\":\"10.244.0.0/24\",\"podCIDRs\":[\"10.244.0.0/24\"],"
                  "\"providerID\":\"flexlet://node1\",\"unschedulable\":true,"
                  "\"taints\":[{\"key\":\"node.kubernetes.io/unschedulable\","
                  "\"effect\":\"NoSchedule\",\"timeAdded\":\"2025-01-01T00:00:00Z\"}]},"
                  "\"status\":{\"capacity\":{\"cpu\":\"4\",\"memory\":\"8Gi\",\"pods\":\"110\"},"
                  "\"allocatable\":{\"cpu\":\"3800m\",\"memory\":\"7Gi\",\"pods\":\"110\"},"
                  "\"phase\":\"Running\",\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\","
                  "\"lastHeartbeatTime\":\"2025-01-01T00:00:00Z\","
                  "\"lastTransitionTime\":\"2025-01-01T00:00:00Z\",\"reason\":\"KubeletReady\","
                  "\"message\":\"ready\"}],\"addresses\":[{\"type\":\"InternalIP\","
                  "\"address\":\"10.0.0.2\"},{\"type\":\"Hostname\",\"address\":\"node1\"}],"
                  "\"daemonEndpoints\":{\"kubeletEndpoint\":{\"Port\":10250}},"
                  "\"nodeInfo\":{\"machineID\":\"m\",\"systemUUID\":\"s\",\"bootID\":\"b\","
                  "\"kernelVersion\":\"6.1\",\"osImage\":\"Debian\",\"containerRuntimeVersion\":"
                  "\"flexlet://0.1\",\"kubeletVersion\":\"v1.33.0\",\"kubeProxyVersion\":\"\","
                  "\"operatingSystem\":\"linux\",\"architecture\":\"amd64\",\"swap\":"
                  "{\"capacity\":0}},\"images\":[{\"names\":[\"nginx:1.27\"],"
                  "\"sizeBytes\":1000}],\"volumesInUse\":[\"kubernetes.io/csi/x\"],"
                  "\"volumesAttached\":[{\"name\":\"kubernetes.io/csi/x\",\"devicePath\":\"\"}],"
                  "\"runtimeHandlers\":[{\"name\":\"runc\",\"features\":"
                  "{\"recursiveReadOnlyMounts\":true,\"userNamespaces\":false}}],"
                  "\"features\":{\"supplementalGroupsPolicy\":true}}}" },
                { &schema_event,
                  "{\"apiVersion\":\"v1\",\"kind\":\"Event\",\"metadata\":{\"name\":\"web.1\","
                  "\"namespace\":\"default\"},\"involvedObject\":{\"kind\":\"Pod\","
                  "\"namespace\":\"default\",\"name\":\"web\",\"uid\":\"0b1c\",\"apiVersion\":\"v1\","
                  "\"resourceVersion\":\"42\",\"fieldPath\":\"spec.containers{app}\"},"
                  "\"reason\":\"Started\",\"message\":\"Started container app\","
                  "\"source\":{\"component\":\"kubelet\",\"host\":\"node1\"},"
                  "\"firstTimestamp\":\"2025-01-01T00:00:00Z\","
                  "\"lastTimestamp\":\"2025-01-01T00:00:09Z\",\"count\":3,\"type\":\"Normal\","
                  "\"eventTime\":\"2025-01-01T00:00:00.123456Z\","
                  "\"series\":{\"count\":2,\"lastObservedTime\":\"2025-01-01T00:00:09.000000Z\"},"
                  "\"action\":\"Start\",\"related\":{\"kind\":\"Node\",\"name\":\"node1\"},"
                  "\"reportingComponent\":\"kubelet\",\"reportingInstance\":\"node1\"}" },
                { &schema_namespace,
                  "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"dev\","
                  "\"labels\":{\"kubernetes.io/metadata.name\":\"dev\"}},"
                  "\"spec\":{\"finalizers\":[\"kubernetes\"]},\"status\":{\"phase\":"
                  "\"Terminating\",\"conditions\":[{\"type\":\"NamespaceDeletionContentFailure\","
                  "\"status\":\"False\",\"lastTransitionTime\":\"2025-01-01T00:00:00Z\","
                  "\"reason\":\"ContentDeleted\",\"message\":\"All content successfully "
                  "deleted\"}]}}" },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                struct outcome o = check(cases[i].s, cases[i].text);
                if (o.r != 0 || *o.unknown)
                        fail_msg("case %zu: r=%d message=%s unknown=%s", i, o.r,
                                 o.message ? o.message : "", o.unknown);
                assert_json_eq(o.value, cases[i].text);
                outcome_release(&o);
        }
}

/* ---- unknown fields ---- */

static void test_unknown_fields_reported_and_removed(void **state)
{
        struct outcome o = check(
                &schema_pod,
                "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"foo\":1,"
                "\"metadata\":{\"name\":\"x\",\"ownerReferences\":[{\"uid\":\"u\",\"bad\":true}],"
                " \"labels\":{\"keep\":\"me\"}},"
                "\"spec\":{\"bar\":{\"deep\":1},\"containers\":["
                " {\"name\":\"a\",\"image\":\"i\"},"
                " {\"name\":\"b\",\"image\":\"i\",\"foo\":\"x\","
                "  \"resources\":{\"limits\":{\"cpu\":\"1\"},\"limitz\":{}},"
                "  \"livenessProbe\":{\"httpGet\":{\"port\":80,\"hots\":\"h\"}}}],"
                " \"volumes\":[{\"name\":\"v\",\"emptyDir\":{\"sizeLimit\":\"1Gi\",\"medum\":\"M\"}}]},"
                "\"status\":{\"containerStatuses\":[{\"name\":\"b\",\"volumeMounts\":[{"
                " \"mountPath\":\"/m\",\"volumeStatus\":{\"emptyDir\":{\"size\":\"1\"}}}]}]}}");

        assert_int_equal(o.r, 0);
        /* K8S: strict decoding paths: dotted field names, [i] for list elements. */
        assert_string_equal(o.unknown,
                            "unknown field \"foo\"\n"
                            "unknown field \"metadata.ownerReferences[0].bad\"\n"
                            "unknown field \"spec.bar\"\n"
                            "unknown field \"spec.containers[1].foo\"\n"
                            "unknown field \"spec.containers[1].resources.limitz\"\n"
                            "unknown field \"spec.containers[1].livenessProbe.httpGet.hots\"\n"
                            "unknown field \"spec.volumes[0].emptyDir.medum\"\n"
                            "unknown field "
                            "\"status.containerStatuses[0].volumeMounts[0].volumeStatus.emptyDir."
                            "size\"\n");
        assert_json_eq(o.value,
                       "{\"apiVersion\":\"v1\",\"kind\":\"Pod\","
                       "\"metadata\":{\"name\":\"x\",\"ownerReferences\":[{\"uid\":\"u\"}],"
                       " \"labels\":{\"keep\":\"me\"}},"
                       "\"spec\":{\"containers\":["
                       " {\"name\":\"a\",\"image\":\"i\"},"
                       " {\"name\":\"b\",\"image\":\"i\","
                       "  \"resources\":{\"limits\":{\"cpu\":\"1\"}},"
                       "  \"livenessProbe\":{\"httpGet\":{\"port\":80}}}],"
                       " \"volumes\":[{\"name\":\"v\",\"emptyDir\":{\"sizeLimit\":\"1Gi\"}}]},"
                       "\"status\":{\"containerStatuses\":[{\"name\":\"b\",\"volumeMounts\":[{"
                       " \"mountPath\":\"/m\",\"volumeStatus\":{\"emptyDir\":{}}}]}]}}");
        outcome_release(&o);
}

static void test_unknown_field_path_prefix_and_quoting(void **state)
{
        struct strbuf unknown;
        struct error *err = NULL;
        json_t *v = parse("{\"a\\\"b\":1,\"t\\tab\":2,\"image\":\"x\"}");

        strbuf_init(&unknown);
        /* K8S: the path is strconv.Quote'd; a caller's prefix leads it. */
        assert_int_equal(schema_check(schema_items(schema_field(schema_field(&schema_pod, "spec"),
                                                                "containers")),
                                      v, "spec.containers[2]", &unknown, &err),
                         0);
        assert_string_equal(unknown.buf, "unknown field \"spec.containers[2].a\\\"b\"\n"
                                         "unknown field \"spec.containers[2].t\\tab\"\n");
        assert_json_eq(v, "{\"image\":\"x\"}");
        strbuf_release(&unknown);
        json_decref(v);
}

static void test_unknown_fields_capped(void **state)
{
        json_t *v = json_object();
        struct strbuf unknown;
        struct error *err = NULL;
        size_t lines = 0;

        for (int i = 0; i < 150; i++) {
                char key[16];
                snprintf(key, sizeof(key), "f%d", i);
                json_object_set_new(v, key, json_integer(i));
        }
        strbuf_init(&unknown);
        assert_int_equal(schema_check(&schema_namespace, v, "", &unknown, &err), 0);
        for (const char *p = unknown.buf; (p = strchr(p, '\n')); p++)
                lines++;
        /* K8S: sigs.k8s.io/json stops collecting strict errors at 100; all are removed. */
        assert_int_equal(lines, SCHEMA_MAX_UNKNOWN);
        assert_int_equal(json_object_size(v), 0);
        strbuf_release(&unknown);
        json_decref(v);
}

/* ---- type errors ---- */

struct error_case {
        const struct schema *s;
        const char *in;
        const char *message;
};

#define POD_C(c) "{\"spec\":{\"containers\":[{\"name\":\"a\"},{" c "}]}}"

static void test_type_errors(void **state)
{
        const struct error_case cases[] = {
                { &schema_pod, POD_C("\"name\":1"),
                  "json: cannot unmarshal number into Go struct field Container.spec.containers.name "
                  "of type string" },
                { &schema_pod, "{\"metadata\":{\"labels\":{\"a\":1}}}",
                  "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of "
                  "type string" },
                { &schema_pod, "{\"spec\":\"x\"}",
                  "json: cannot unmarshal string into Go struct field Pod.spec of type v1.PodSpec" },
                { &schema_pod, "{\"spec\":{\"containers\":{}}}",
                  "json: cannot unmarshal object into Go struct field PodSpec.spec.containers of type "
                  "[]v1.Container" },
                { &schema_pod, "{\"spec\":{\"restartPolicy\":1}}",
                  "json: cannot unmarshal number into Go struct field PodSpec.spec.restartPolicy of "
                  "type v1.RestartPolicy" },
                { &schema_pod, "{\"spec\":{\"terminationGracePeriodSeconds\":1.5}}",
                  "json: cannot unmarshal number 1.5 into Go struct field "
                  "PodSpec.spec.terminationGracePeriodSeconds of type int64" },
                { &schema_pod, "{\"spec\":{\"priority\":3000000000}}",
                  "json: cannot unmarshal number 3000000000 into Go struct field "
                  "PodSpec.spec.priority of type int32" },
                { &schema_pod, "{\"spec\":{\"hostNetwork\":\"true\"}}",
                  "json: cannot unmarshal string into Go struct field PodSpec.spec.hostNetwork of "
                  "type bool" },
                { &schema_pod, "{\"spec\":{\"nodeSelector\":[]}}",
                  "json: cannot unmarshal array into Go struct field PodSpec.spec.nodeSelector of "
                  "type map[string]string" },
                { &schema_pod, POD_C("\"resources\":{\"limits\":[]}"),
                  "json: cannot unmarshal array into Go struct field "
                  "ResourceRequirements.spec.containers.resources.limits of type v1.ResourceList" },
                { &schema_pod, POD_C("\"command\":\"sh\""),
                  "json: cannot unmarshal string into Go struct field Container.spec.containers.command "
                  "of type []string" },
                { &schema_pod, "{\"metadata\":{\"uid\":true}}",
                  "json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.uid of type "
                  "types.UID" },
                /* K8S 1.33: fields promoted from inline-embedded structs (VolumeSource,
                 * ProbeHandler, LocalObjectReference, TypeMeta) are named like the outer's own. */
                { &schema_pod, "{\"spec\":{\"volumes\":[{\"name\":\"v\",\"emptyDir\":\"x\"}]}}",
                  "json: cannot unmarshal string into Go struct field "
                  "Volume.spec.volumes.emptyDir of type v1.EmptyDirVolumeSource" },
                { &schema_pod,
                  "{\"spec\":{\"volumes\":[{\"name\":\"v\",\"emptyDir\":{\"medium\":1}}]}}",
                  "json: cannot unmarshal number into Go struct field "
                  "EmptyDirVolumeSource.spec.volumes.emptyDir.medium of type "
                  "v1.StorageMedium" },
                { &schema_pod, POD_C("\"envFrom\":[{\"configMapRef\":{\"name\":2}}]"),
                  "json: cannot unmarshal number into Go struct field "
                  "ConfigMapEnvSource.spec.containers.envFrom.configMapRef.name "
                  "of type string" },
                { &schema_pod, "{\"kind\":7}",
                  "json: cannot unmarshal number into Go struct field Pod.kind of type "
                  "string" },
                /* K8S: IntOrString.UnmarshalJSON unmarshals non-strings into an int32. */
                { &schema_pod, POD_C("\"livenessProbe\":{\"httpGet\":{\"port\":true}}"),
                  "json: cannot unmarshal bool into Go struct field "
                  "HTTPGetAction.spec.containers.livenessProbe.httpGet.port of type "
                  "int32" },
                { &schema_pod, POD_C("\"livenessProbe\":{\"tcpSocket\":{\"port\":80.5}}"),
                  "json: cannot unmarshal number 80.5 into Go struct field "
                  "TCPSocketAction.spec.containers.livenessProbe.tcpSocket.port of "
                  "type int32" },
                /* K8S: Quantity.UnmarshalJSON → ParseQuantity's error, without context. */
                { &schema_pod, POD_C("\"resources\":{\"limits\":{\"cpu\":\"abc\"}}"),
                  QUANTITY_REGEXP_MESSAGE },
                { &schema_pod, POD_C("\"resources\":{\"requests\":{\"memory\":true}}"),
                  QUANTITY_REGEXP_MESSAGE },
                { &schema_pod, POD_C("\"resources\":{\"requests\":{\"memory\":{}}}"),
                  QUANTITY_REGEXP_MESSAGE },
                { &schema_pod, POD_C("\"resources\":{\"requests\":{\"memory\":\"\"}}"),
                  QUANTITY_REGEXP_MESSAGE },
                /* K8S: metav1.Time: json.Unmarshal into a string, then time.Parse(RFC3339). */
                { &schema_pod, "{\"metadata\":{\"creationTimestamp\":5}}",
                  "json: cannot unmarshal number into Go struct field "
                  "ObjectMeta.metadata.creationTimestamp of type string" },
                { &schema_pod, "{\"metadata\":{\"creationTimestamp\":\"yesterday\"}}",
                  "parsing time \"yesterday\" as \"2006-01-02T15:04:05Z07:00\": cannot parse "
                  "\"yesterday\" as \"2006\"" },
                { &schema_pod, "{\"metadata\":{\"creationTimestamp\":\"2025-01-01\"}}",
                  "parsing time \"2025-01-01\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"\" "
                  "as \"T\"" },
                { &schema_pod, "{\"metadata\":{\"creationTimestamp\":\"2025-1-01T00:00:00Z\"}}",
                  "parsing time \"2025-1-01T00:00:00Z\" as \"2006-01-02T15:04:05Z07:00\": cannot "
                  "parse \"1-01T00:00:00Z\" as \"01\"" },
                { &schema_pod, "{\"metadata\":{\"creationTimestamp\":\"2025-13-01T00:00:00Z\"}}",
                  "parsing time \"2025-13-01T00:00:00Z\": month out of range" },
                { &schema_pod, "{\"metadata\":{\"creationTimestamp\":\"2025-02-29T00:00:00Z\"}}",
                  "parsing time \"2025-02-29T00:00:00Z\": day out of range" },
                { &schema_pod, "{\"metadata\":{\"creationTimestamp\":\"2025-01-01T24:00:00Z\"}}",
                  "parsing time \"2025-01-01T24:00:00Z\": hour out of range" },
                { &schema_pod, "{\"metadata\":{\"creationTimestamp\":\"2025-01-01T00:00:00\"}}",
                  "parsing time \"2025-01-01T00:00:00\" as \"2006-01-02T15:04:05Z07:00\": cannot "
                  "parse \"\" as \"Z07:00\"" },
                { &schema_pod, "{\"metadata\":{\"creationTimestamp\":\"2025-01-01T00:00:00Zz\"}}",
                  "parsing time \"2025-01-01T00:00:00Zz\": extra text: \"z\"" },
                { &schema_pod, "{\"metadata\":{\"creationTimestamp\":\"2025-01-01 00:00:00Z\"}}",
                  "parsing time \"2025-01-01 00:00:00Z\" as \"2006-01-02T15:04:05Z07:00\": cannot "
                  "parse \" 00:00:00Z\" as \"T\"" },
                /* K8S: MicroTime needs exactly six fractional digits (RFC3339Micro). */
                { &schema_event, "{\"eventTime\":\"2025-01-01T00:00:00Z\"}",
                  "parsing time \"2025-01-01T00:00:00Z\" as \"2006-01-02T15:04:05.000000Z07:00\": "
                  "cannot parse \"Z\" as \".000000\"" },
                /* The root value. */
                { &schema_pod, "[]", "json: cannot unmarshal array into Go value of type v1.Pod" },
                /* K8S: Go keeps the first plain type error and decodes on... */
                { &schema_pod, "{\"spec\":{\"hostname\":1,\"hostPID\":\"x\"}}",
                  "json: cannot unmarshal number into Go struct field PodSpec.spec.hostname of type "
                  "string" },
                /* ...but an error from an UnmarshalJSON method ends the decode and wins. */
                { &schema_pod, "{\"spec\":{\"hostname\":1,\"overhead\":{\"cpu\":\"x\"}}}",
                  QUANTITY_REGEXP_MESSAGE },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                struct outcome o = check(cases[i].s, cases[i].in);
                if (o.r != -EINVAL || !o.message || strcmp(o.message, cases[i].message) != 0)
                        fail_msg("case %zu %s: r=%d\n got  %s\n want %s", i, cases[i].in, o.r,
                                 o.message ? o.message : "(none)", cases[i].message);
                outcome_release(&o);
        }
}

/* ---- rewriting: quantities, times, nulls ---- */

struct rewrite_case {
        const struct schema *s;
        const char *in;
        const char *want;
};

static void test_rewrites(void **state)
{
        const struct rewrite_case cases[] = {
                /* K8S: numeric quantities are stored as Quantity.String(). */
                { &schema_pod, POD_C("\"resources\":{\"limits\":{\"cpu\":1,\"memory\":134217728}}"),
                  POD_C("\"resources\":{\"limits\":{\"cpu\":\"1\",\"memory\":\"134217728\"}}") },
                { &schema_pod, POD_C("\"resources\":{\"requests\":{\"cpu\":0.5}}"),
                  POD_C("\"resources\":{\"requests\":{\"cpu\":\"500m\"}}") },
                { &schema_pod, POD_C("\"resources\":{\"requests\":{\"cpu\":\"0.5\"}}"),
                  POD_C("\"resources\":{\"requests\":{\"cpu\":\"500m\"}}") },
                { &schema_pod, POD_C("\"resources\":{\"requests\":{\"cpu\":\" 250m \"}}"),
                  POD_C("\"resources\":{\"requests\":{\"cpu\":\"250m\"}}") },
                { &schema_node, "{\"status\":{\"capacity\":{\"cpu\":4,\"pods\":110}}}",
                  "{\"status\":{\"capacity\":{\"cpu\":\"4\",\"pods\":\"110\"}}}" },
                { &schema_pod,
                  "{\"spec\":{\"volumes\":[{\"name\":\"v\",\"emptyDir\":{\"sizeLimit\":0.5}}]}}",
                  "{\"spec\":{\"volumes\":[{\"name\":\"v\",\"emptyDir\":{\"sizeLimit\":\"500m\"}}]}}" },
                /* K8S: times are stored as t.UTC() in RFC 3339, seconds only for Time. */
                { &schema_pod,
                  "{\"metadata\":{\"creationTimestamp\":\"2025-01-01T01:30:00+01:30\"}}",
                  "{\"metadata\":{\"creationTimestamp\":\"2025-01-01T00:00:00Z\"}}" },
                { &schema_pod,
                  "{\"metadata\":{\"creationTimestamp\":\"2025-01-01T00:00:00.999Z\"}}",
                  "{\"metadata\":{\"creationTimestamp\":\"2025-01-01T00:00:00Z\"}}" },
                { &schema_pod,
                  "{\"metadata\":{\"creationTimestamp\":\"2024-12-31T23:00:00-01:00\"}}",
                  "{\"metadata\":{\"creationTimestamp\":\"2025-01-01T00:00:00Z\"}}" },
                { &schema_pod, "{\"metadata\":{\"creationTimestamp\":\"2024-02-29T1:02:03Z\"}}",
                  "{\"metadata\":{\"creationTimestamp\":\"2024-02-29T01:02:03Z\"}}" },
                { &schema_event, "{\"eventTime\":\"2025-01-01T01:00:00.123456+02:00\"}",
                  "{\"eventTime\":\"2024-12-31T23:00:00.123456Z\"}" },
                /* K8S: null fields are dropped; null map values and list elements become the
                 * item's zero value. */
                { &schema_pod,
                  "{\"metadata\":{\"name\":null,\"labels\":{\"a\":null,\"b\":\"c\"},"
                  "\"finalizers\":[null,\"x\"]},\"spec\":null,\"status\":{\"phase\":null}}",
                  "{\"metadata\":{\"labels\":{\"a\":\"\",\"b\":\"c\"},\"finalizers\":[\"\",\"x\"]},"
                  "\"status\":{}}" },
                { &schema_pod, POD_C("\"resources\":{\"limits\":{\"cpu\":null}}"),
                  POD_C("\"resources\":{\"limits\":{\"cpu\":\"0\"}}") },
                /* ANY keeps whatever it holds. */
                { &schema_pod,
                  "{\"metadata\":{\"managedFields\":[{\"fieldsV1\":{\"f:x\":null,\"k\":[1]}}]}}",
                  "{\"metadata\":{\"managedFields\":[{\"fieldsV1\":{\"f:x\":null,\"k\":[1]}}]}}" },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                struct outcome o = check(cases[i].s, cases[i].in);
                if (o.r != 0 || *o.unknown)
                        fail_msg("case %zu: r=%d message=%s unknown=%s", i, o.r,
                                 o.message ? o.message : "", o.unknown);
                assert_json_eq(o.value, cases[i].want);
                outcome_release(&o);
        }
}

static void test_null_root_and_no_unknown_buffer(void **state)
{
        struct error *err = NULL;
        json_t *v = json_null();
        json_t *obj = parse("{\"foo\":1,\"spec\":{}}");

        assert_int_equal(schema_check(&schema_pod, v, "", NULL, &err), 0);
        /* Unknown fields are still removed when the caller does not want the list. */
        assert_int_equal(schema_check(&schema_pod, obj, "", NULL, &err), 0);
        assert_json_eq(obj, "{\"spec\":{}}");
        assert_int_equal(schema_check(&schema_pod, NULL, "", NULL, NULL), -EINVAL);
        json_decref(v);
        json_decref(obj);
}

/* A schema that contains itself: the walk must stop at SCHEMA_MAX_DEPTH. */
static const struct schema recursive;
static const struct schema_field recursive_fields[] = {
        { "child", &recursive, 0, 0 },
        SCHEMA_FIELDS_END,
};
static const struct schema recursive = SCHEMA_STRUCT("Node", recursive_fields);

static void test_depth_cap(void **state)
{
        json_t *root = json_object(), *cur = root;
        struct error *err = NULL;

        for (int i = 0; i < SCHEMA_MAX_DEPTH + 5; i++) {
                json_t *next = json_object();
                json_object_set_new(cur, "child", next);
                cur = next;
        }
        assert_int_equal(schema_check(&recursive, root, "", NULL, &err), -EINVAL);
        assert_non_null(err);
        assert_string_equal(err->message, "json: exceeded max depth");
        error_free(err);
        json_decref(root);

        root = parse("{\"child\":{\"child\":{}}}");
        assert_int_equal(schema_check(&recursive, root, "", NULL, NULL), 0);
        json_decref(root);
}

/* ---- lookups: merge keys and list types (§5.2) ---- */

/* Follows dotted field names; "[]" steps into a list's items. */
static const struct schema *schema_at(const struct schema *s, const char *path)
{
        char *copy = xstrdup(path), *save = NULL;

        for (char *tok = strtok_r(copy, ".", &save); tok && s; tok = strtok_r(NULL, ".", &save))
                s = streq(tok, "[]") ? schema_items(s) : schema_field(s, tok);
        free(copy);
        return s;
}

struct list_case {
        const struct schema *kind;
        const char *path;
        enum schema_list_type type;
        const char *merge_key;
        bool retain_keys;
};

static void test_list_types_and_merge_keys(void **state)
{
        const struct list_case cases[] = {
                { &schema_pod, "spec.containers", SCHEMA_LIST_MAP, "name", false },
                { &schema_pod, "spec.initContainers", SCHEMA_LIST_MAP, "name", false },
                { &schema_pod, "spec.ephemeralContainers", SCHEMA_LIST_MAP, "name", false },
                { &schema_pod, "spec.volumes", SCHEMA_LIST_MAP, "name", true },
                { &schema_pod, "spec.resourceClaims", SCHEMA_LIST_MAP, "name", true },
                { &schema_pod, "spec.imagePullSecrets", SCHEMA_LIST_MAP, "name", false },
                { &schema_pod, "spec.schedulingGates", SCHEMA_LIST_MAP, "name", false },
                { &schema_pod, "spec.hostAliases", SCHEMA_LIST_MAP, "ip", false },
                { &schema_pod, "spec.topologySpreadConstraints", SCHEMA_LIST_MAP, "topologyKey",
                  false },
                { &schema_pod, "spec.containers.[].env", SCHEMA_LIST_MAP, "name", false },
                { &schema_pod, "spec.containers.[].volumeMounts", SCHEMA_LIST_MAP, "mountPath",
                  false },
                { &schema_pod, "spec.containers.[].volumeDevices", SCHEMA_LIST_MAP, "devicePath",
                  false },
                { &schema_pod, "spec.containers.[].ports", SCHEMA_LIST_MAP, "containerPort",
                  false },
                { &schema_pod, "spec.containers.[].command", SCHEMA_LIST_ATOMIC, NULL, false },
                { &schema_pod, "spec.containers.[].args", SCHEMA_LIST_ATOMIC, NULL, false },
                { &schema_pod, "spec.containers.[].envFrom", SCHEMA_LIST_ATOMIC, NULL, false },
                { &schema_pod, "spec.containers.[].resizePolicy", SCHEMA_LIST_ATOMIC, NULL, false },
                { &schema_pod, "spec.containers.[].resources.claims", SCHEMA_LIST_ATOMIC, NULL,
                  false },
                { &schema_pod, "spec.tolerations", SCHEMA_LIST_ATOMIC, NULL, false },
                { &schema_pod, "spec.readinessGates", SCHEMA_LIST_ATOMIC, NULL, false },
                { &schema_pod, "status.conditions", SCHEMA_LIST_MAP, "type", false },
                { &schema_pod, "status.podIPs", SCHEMA_LIST_MAP, "ip", false },
                { &schema_pod, "status.hostIPs", SCHEMA_LIST_MAP, "ip", false },
                { &schema_pod, "metadata.finalizers", SCHEMA_LIST_SET, NULL, false },
                { &schema_pod, "metadata.ownerReferences", SCHEMA_LIST_MAP, "uid", false },
                { &schema_pod, "metadata.managedFields", SCHEMA_LIST_ATOMIC, NULL, false },
                { &schema_node, "status.conditions", SCHEMA_LIST_MAP, "type", false },
                { &schema_node, "status.addresses", SCHEMA_LIST_MAP, "type", false },
                { &schema_node, "spec.podCIDRs", SCHEMA_LIST_SET, NULL, false },
                { &schema_node, "spec.taints", SCHEMA_LIST_ATOMIC, NULL, false },
                { &schema_namespace, "spec.finalizers", SCHEMA_LIST_ATOMIC, NULL, false },
                { &schema_namespace, "status.conditions", SCHEMA_LIST_MAP, "type", false },
                { &schema_namespace, "metadata.finalizers", SCHEMA_LIST_SET, NULL, false },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                const struct schema *s = schema_at(cases[i].kind, cases[i].path);
                if (!s || s->kind != SCHEMA_LIST)
                        fail_msg("%s: not a list", cases[i].path);
                if (s->list_type != cases[i].type)
                        fail_msg("%s: list type %d, want %d", cases[i].path, s->list_type,
                                 cases[i].type);
                if (cases[i].merge_key)
                        assert_string_equal(s->merge_key, cases[i].merge_key);
                else
                        assert_null(s->merge_key);
                if (s->retain_keys != cases[i].retain_keys)
                        fail_msg("%s: retain_keys %d", cases[i].path, s->retain_keys);
        }
}

struct kind_case {
        const struct schema *kind;
        const char *path;
        enum schema_kind want;
        const char *go_type;
};

static void test_field_kinds(void **state)
{
        const struct kind_case cases[] = {
                { &schema_pod, "spec", SCHEMA_OBJECT, "PodSpec" },
                { &schema_pod, "metadata", SCHEMA_OBJECT, "ObjectMeta" },
                { &schema_pod, "metadata.labels", SCHEMA_MAP, NULL },
                { &schema_pod, "metadata.labels.[]", SCHEMA_STRING, NULL },
                { &schema_pod, "metadata.creationTimestamp", SCHEMA_TIME, NULL },
                { &schema_pod, "spec.containers.[]", SCHEMA_OBJECT, "Container" },
                { &schema_pod, "spec.containers.[].resources.limits", SCHEMA_MAP,
                  "v1.ResourceList" },
                { &schema_pod, "spec.containers.[].resources.limits.[]", SCHEMA_QUANTITY, NULL },
                { &schema_pod, "spec.containers.[].livenessProbe.httpGet.port",
                  SCHEMA_INT_OR_STRING, NULL },
                { &schema_pod, "spec.containers.[].livenessProbe.periodSeconds", SCHEMA_INTEGER,
                  "int32" },
                { &schema_pod, "spec.volumes.[].emptyDir.sizeLimit", SCHEMA_QUANTITY, NULL },
                { &schema_pod, "spec.containers.[].env.[].valueFrom", SCHEMA_OBJECT,
                  "EnvVarSource" },
                { &schema_pod, "spec.terminationGracePeriodSeconds", SCHEMA_INTEGER, "int64" },
                { &schema_pod, "status.containerStatuses.[].allocatedResources.[]", SCHEMA_QUANTITY,
                  NULL },
                { &schema_pod,
                  "status.containerStatuses.[].volumeMounts.[].volumeStatus.emptyDir.sizeLimit",
                  SCHEMA_QUANTITY, NULL },
                { &schema_pod, "metadata.managedFields.[].fieldsV1", SCHEMA_ANY, "interface {}" },
                { &schema_event, "eventTime", SCHEMA_TIME, SCHEMA_GO_MICRO_TIME },
                { &schema_event, "involvedObject", SCHEMA_OBJECT, "ObjectReference" },
                { &schema_event, "source.component", SCHEMA_STRING, NULL },
                { &schema_event, "apiVersion", SCHEMA_STRING, NULL },
                { &schema_node, "status.capacity.[]", SCHEMA_QUANTITY, NULL },
                { &schema_node, "status.nodeInfo", SCHEMA_OBJECT, "NodeSystemInfo" },
                { &schema_namespace, "status.phase", SCHEMA_STRING, "v1.NamespacePhase" },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                const struct schema *s = schema_at(cases[i].kind, cases[i].path);
                if (!s)
                        fail_msg("%s: missing", cases[i].path);
                if (s->kind != cases[i].want)
                        fail_msg("%s: kind %d, want %d", cases[i].path, s->kind, cases[i].want);
                if (cases[i].go_type)
                        assert_string_equal(s->go_type, cases[i].go_type);
                else
                        assert_null(s->go_type);
        }
        /* Lookups that must miss. */
        assert_null(schema_field(&schema_pod, "Spec"));
        assert_null(schema_field(&schema_pod, "foo"));
        assert_null(schema_field(&schema_string, "x"));
        assert_null(schema_field(NULL, "x"));
        assert_null(schema_items(&schema_pod));
        assert_null(schema_items(NULL));
        assert_null(schema_at(&schema_pod, "spec.containers.name"));
}

static void test_schema_for_kind(void **state)
{
        assert_ptr_equal(schema_for_kind("Pod"), &schema_pod);
        assert_ptr_equal(schema_for_kind("Node"), &schema_node);
        assert_ptr_equal(schema_for_kind("Event"), &schema_event);
        assert_ptr_equal(schema_for_kind("Namespace"), &schema_namespace);
        assert_null(schema_for_kind("pod"));
        assert_null(schema_for_kind("Service"));
        assert_null(schema_for_kind(""));
        assert_null(schema_for_kind(NULL));
}

static void test_field_validation(void **state)
{
        static const struct {
                const char *in;
                int r;
                enum field_validation want;
        } cases[] = {
                { "Strict", 0, FIELD_VALIDATION_STRICT },
                { "Warn", 0, FIELD_VALIDATION_WARN },
                { "Ignore", 0, FIELD_VALIDATION_IGNORE },
                /* K8S: absent or empty means the server default, Warn. */
                { "", 0, FIELD_VALIDATION_WARN },
                { NULL, 0, FIELD_VALIDATION_WARN },
                /* K8S: the values are case-sensitive. */
                { "strict", -EINVAL, 0 },
                { "STRICT", -EINVAL, 0 },
                { "Strict ", -EINVAL, 0 },
                { "true", -EINVAL, 0 },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                enum field_validation v = FIELD_VALIDATION_MAX;
                assert_int_equal(field_validation_from_string(cases[i].in, &v), cases[i].r);
                if (cases[i].r == 0)
                        assert_int_equal(v, cases[i].want);
                else
                        assert_int_equal(v, FIELD_VALIDATION_MAX);
        }
        assert_string_equal(field_validation_to_string(FIELD_VALIDATION_STRICT), "Strict");
        assert_string_equal(field_validation_to_string(FIELD_VALIDATION_WARN), "Warn");
        assert_string_equal(field_validation_to_string(FIELD_VALIDATION_IGNORE), "Ignore");
        assert_null(field_validation_to_string(FIELD_VALIDATION_MAX));
}

/* Every object schema reachable from a kind has a Go name and a terminated, duplicate-free
 * field table; every list has items. */
static void walk_tables(const struct schema *s, int depth)
{
        assert_true(depth < 40);
        if (!s)
                fail_msg("NULL schema");
        if (s->kind == SCHEMA_OBJECT) {
                assert_non_null(s->go_type);
                assert_non_null(s->fields);
                for (const struct schema_field *f = s->fields; f->name; f++) {
                        for (const struct schema_field *g = f + 1; g->name; g++)
                                if (streq(f->name, g->name))
                                        fail_msg("%s: field %s twice", s->go_type, f->name);
                        walk_tables(f->schema, depth + 1);
                }
        } else if (s->kind == SCHEMA_LIST || s->kind == SCHEMA_MAP) {
                assert_non_null(s->items);
                if (s->kind == SCHEMA_LIST && s->list_type == SCHEMA_LIST_MAP)
                        assert_non_null(schema_field(s->items, s->merge_key));
                walk_tables(s->items, depth + 1);
        }
}

static void test_tables_well_formed(void **state)
{
        const struct schema *kinds[] = { &schema_pod, &schema_node, &schema_event,
                                         &schema_namespace, &schema_list_meta };

        for (size_t i = 0; i < ARRAY_SIZE(kinds); i++)
                walk_tables(kinds[i], 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_realistic_pod_unchanged),
                cmocka_unit_test(test_realistic_node_event_namespace),
                cmocka_unit_test(test_unknown_fields_reported_and_removed),
                cmocka_unit_test(test_unknown_field_path_prefix_and_quoting),
                cmocka_unit_test(test_unknown_fields_capped),
                cmocka_unit_test(test_type_errors),
                cmocka_unit_test(test_rewrites),
                cmocka_unit_test(test_null_root_and_no_unknown_buffer),
                cmocka_unit_test(test_depth_cap),
                cmocka_unit_test(test_list_types_and_merge_keys),
                cmocka_unit_test(test_field_kinds),
                cmocka_unit_test(test_schema_for_kind),
                cmocka_unit_test(test_field_validation),
                cmocka_unit_test(test_tables_well_formed),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
