/* test-pod-resources.c: PodRequests/PodLimits, ResourceConfigForPod, per-container cgroup values
 * and the cpu conversions against upstream's own test tables (component-helpers
 * helpers_test.go, pkg/kubelet/cm helpers_linux_test.go) and scenario S18. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>

#include "api/pod-resources.h"
#include "base/json.h"

#define Mi (INT64_C(1024) * 1024)
#define Gi (INT64_C(1024) * Mi)

static json_t *load(const char *text)
{
        json_error_t err;
        json_t *v = json_loads(text, 0, &err);

        if (!v)
                fail_msg("bad test JSON: %s: %s", err.text, text);
        return v;
}

/* ---- PodRequests / PodLimits ---- */

struct req_case {
        const char *name;
        const char *pod;
        int want_r;
        int64_t cpu, mem;
};

static void test_pod_requests(void **state)
{
        static const struct req_case cases[] = {
                /* K8S: TestPodRequestsAndLimitsWithoutOverhead "two container no overhead" */
                { "two containers",
                  "{\"spec\":{\"containers\":[{\"name\":\"a\",\"resources\":{\"requests\":{\"cpu\":\"1\","
                  "\"memory\":\"5\"}}},{\"name\":\"b\",\"resources\":{\"requests\":{\"cpu\":\"4\","
                  "\"memory\":\"12\"}}}]}}",
                  0, 5000, 17 },
                /* K8S: TestPodResourceRequests "pod overhead included" */
                { "overhead included",
                  "{\"spec\":{\"overhead\":{\"cpu\":\"1\",\"memory\":\"1Gi\"},"
                  "\"initContainers\":[{\"name\":\"i\",\"resources\":{\"requests\":{\"cpu\":\"2\"}}}],"
                  "\"containers\":[{\"name\":\"a\",\"resources\":{\"requests\":{\"cpu\":\"2\"}}},"
                  "{\"name\":\"b\",\"resources\":{\"requests\":{\"cpu\":\"3\"}}}]}}",
                  0, 6000, Gi },
                /* K8S: "two container with overhead, massive init" (overhead counted here) */
                { "massive init",
                  "{\"spec\":{\"overhead\":{\"cpu\":\"3\",\"memory\":\"8\"},"
                  "\"containers\":[{\"name\":\"a\",\"resources\":{\"requests\":{\"cpu\":\"1\",\"memory\":\"5\"}}},"
                  "{\"name\":\"b\",\"resources\":{\"requests\":{\"cpu\":\"4\",\"memory\":\"12\"}}}],"
                  "\"initContainers\":[{\"name\":\"s\",\"resources\":{\"requests\":{\"cpu\":\"1\",\"memory\":\"5\"}}},"
                  "{\"name\":\"big\",\"resources\":{\"requests\":{\"cpu\":\"40\",\"memory\":\"120\"}}}]}}",
                  0, 43000, 128 },
                /* K8S (KEP-753): an init container after a sidecar needs its own request plus the
                 * sidecar's: max(1+1, 1, 2+1) = 3 */
                { "init after sidecar",
                  "{\"spec\":{\"initContainers\":["
                  "{\"name\":\"i1\",\"resources\":{\"requests\":{\"cpu\":\"1\"}}},"
                  "{\"name\":\"sc\",\"restartPolicy\":\"Always\",\"resources\":{\"requests\":{\"cpu\":\"1\"}}},"
                  "{\"name\":\"i2\",\"resources\":{\"requests\":{\"cpu\":\"2\"}}}],"
                  "\"containers\":[{\"name\":\"a\",\"resources\":{\"requests\":{\"cpu\":\"1\"}}}]}}",
                  0, 3000, 0 },
                /* the sidecar adds to the containers: 2 + 1 beats the init's 1 + 1 */
                { "sidecar adds to containers",
                  "{\"spec\":{\"initContainers\":["
                  "{\"name\":\"sc\",\"restartPolicy\":\"Always\",\"resources\":{\"requests\":{\"cpu\":\"1\",\"memory\":\"1Gi\"}}},"
                  "{\"name\":\"i\",\"resources\":{\"requests\":{\"cpu\":\"1\",\"memory\":\"2Gi\"}}}],"
                  "\"containers\":[{\"name\":\"a\",\"resources\":{\"requests\":{\"cpu\":\"2\",\"memory\":\"1Gi\"}}}]}}",
                  0, 3000, 3 * Gi },
                /* exact sums: upstream adds quantities and rounds once (500u+500u = 1m, not 2m) */
                { "exact sum",
                  "{\"spec\":{\"containers\":[{\"name\":\"a\",\"resources\":{\"requests\":{\"cpu\":\"500u\","
                  "\"memory\":\"1.5\"}}},{\"name\":\"b\",\"resources\":{\"requests\":{\"cpu\":\"500u\","
                  "\"memory\":\"1.5\"}}}]}}",
                  0, 1, 3 },
                /* K8S: "burstable-with-pod-and-container-level-requests": pod-level wins */
                { "pod-level requests",
                  "{\"spec\":{\"resources\":{\"requests\":{\"cpu\":\"100m\",\"memory\":\"100Mi\"}},"
                  "\"containers\":[{\"name\":\"a\",\"resources\":{\"requests\":{\"cpu\":\"10m\",\"memory\":\"50Mi\"}}}]}}",
                  0, 100, 100 * Mi },
                /* pod-level cpu only: memory still comes from the containers */
                { "pod-level cpu only",
                  "{\"spec\":{\"resources\":{\"requests\":{\"cpu\":\"1\"}},"
                  "\"containers\":[{\"name\":\"a\",\"resources\":{\"requests\":{\"cpu\":\"10m\",\"memory\":\"50Mi\"}}}]}}",
                  0, 1000, 50 * Mi },
                /* pod-level requests with only other resources do not count */
                { "pod-level other resource",
                  "{\"spec\":{\"resources\":{\"requests\":{\"example.com/gpu\":\"1\"}},"
                  "\"containers\":[{\"name\":\"a\",\"resources\":{\"requests\":{\"cpu\":\"10m\"}}}]}}",
                  0, 10, 0 },
                { "JSON numbers",
                  "{\"spec\":{\"containers\":[{\"name\":\"a\",\"resources\":{\"requests\":{\"cpu\":2,"
                  "\"memory\":1024}}},{\"name\":\"b\",\"resources\":{\"requests\":{\"cpu\":0.5}}}]}}",
                  0, 2500, 1024 },
                { "no containers", "{\"spec\":{}}", 0, 0, 0 },
                { "bad quantity",
                  "{\"spec\":{\"containers\":[{\"name\":\"a\",\"resources\":{\"requests\":{\"cpu\":\"abc\"}}}]}}",
                  -EINVAL, 0, 0 },
                { "overflow",
                  "{\"spec\":{\"containers\":[{\"name\":\"a\",\"resources\":{\"requests\":{\"memory\":\"5Ei\"}}},"
                  "{\"name\":\"b\",\"resources\":{\"requests\":{\"memory\":\"5Ei\"}}}]}}",
                  -ERANGE, 0, 0 },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                cleanup_json json_t *pod = load(cases[i].pod);
                int64_t cpu = -7, mem = -7;
                int r = pod_requests(pod, &cpu, &mem);

                if (r != cases[i].want_r)
                        fail_msg("%s: r=%d, want %d", cases[i].name, r, cases[i].want_r);
                if (r < 0) {
                        /* outputs untouched on failure */
                        assert_int_equal(cpu, -7);
                        assert_int_equal(mem, -7);
                        continue;
                }
                if (cpu != cases[i].cpu || mem != cases[i].mem)
                        fail_msg("%s: got %lld/%lld, want %lld/%lld", cases[i].name,
                                 (long long) cpu, (long long) mem, (long long) cases[i].cpu,
                                 (long long) cases[i].mem);
        }
}

static void test_pod_limits(void **state)
{
        /* K8S: TestPodRequestsAndLimits "req-some-lim-and-overhead": overhead only on non-zero
         * limits: cpu 2 + 5, memory stays unlimited */
        cleanup_json json_t *p1 = load(
                "{\"spec\":{\"overhead\":{\"cpu\":\"5\",\"memory\":\"5\"},\"containers\":[{\"name\":\"a\","
                "\"resources\":{\"requests\":{\"cpu\":\"1\",\"memory\":\"10\"},\"limits\":{\"cpu\":\"2\"}}}]}}");
        /* "all-req-lim-and-overhead" */
        cleanup_json json_t *p2 = load(
                "{\"spec\":{\"overhead\":{\"cpu\":\"5\",\"memory\":\"5\"},\"containers\":[{\"name\":\"a\","
                "\"resources\":{\"limits\":{\"cpu\":\"2\",\"memory\":\"12\"}}}]}}");
        /* "massive init": limits max(2+8, 80) */
        cleanup_json json_t *p3 = load(
                "{\"spec\":{\"containers\":[{\"name\":\"a\",\"resources\":{\"limits\":{\"cpu\":\"2\",\"memory\":\"10\"}}},"
                "{\"name\":\"b\",\"resources\":{\"limits\":{\"cpu\":\"8\",\"memory\":\"24\"}}}],"
                "\"initContainers\":[{\"name\":\"big\",\"resources\":{\"limits\":{\"cpu\":\"80\",\"memory\":\"240\"}}}]}}");
        int64_t cpu, mem;

        assert_int_equal(pod_limits(p1, NULL, &cpu, &mem), 0);
        assert_int_equal(cpu, 7000);
        assert_int_equal(mem, 0);
        assert_int_equal(pod_limits(p2, NULL, &cpu, &mem), 0);
        assert_int_equal(cpu, 7000);
        assert_int_equal(mem, 17);
        assert_int_equal(pod_limits(p3, NULL, &cpu, &mem), 0);
        assert_int_equal(cpu, 80000);
        assert_int_equal(mem, 240);
}

static void test_overlay(void **state)
{
        cleanup_json json_t *pod = load(
                "{\"spec\":{\"containers\":["
                "{\"name\":\"c1\",\"resources\":{\"requests\":{\"cpu\":\"1\",\"memory\":\"1Gi\"},"
                "\"limits\":{\"cpu\":\"1\",\"memory\":\"1Gi\"}}},"
                "{\"name\":\"c2\",\"resources\":{\"requests\":{\"cpu\":\"250m\",\"memory\":\"256Mi\"},"
                "\"limits\":{\"cpu\":\"250m\",\"memory\":\"256Mi\"}}}]},"
                "\"status\":{\"qosClass\":\"Guaranteed\"}}");
        /* allocated (checkpoint): c1 at 500m/512Mi both ways; c2 only its requests overridden */
        cleanup_json json_t *alloc = load(
                "{\"c1\":{\"requests\":{\"cpu\":\"500m\",\"memory\":\"512Mi\"},"
                "\"limits\":{\"cpu\":\"500m\",\"memory\":\"512Mi\"}},"
                "\"c2\":{\"requests\":{\"cpu\":\"100m\"}},\"gone\":{\"requests\":{\"cpu\":\"9\"}}}");
        struct pod_resources_overlay ov = { .containers = alloc };
        struct pod_cgroup_config c;
        int64_t cpu, mem;

        /* c2's "requests" replaces its whole list: its memory request is gone */
        assert_int_equal(pod_requests_overlay(pod, &ov, &cpu, &mem), 0);
        assert_int_equal(cpu, 600);
        assert_int_equal(mem, 512 * Mi);
        assert_int_equal(pod_requests(pod, &cpu, &mem), 0);
        assert_int_equal(cpu, 1250);
        assert_int_equal(mem, 1280 * Mi);
        assert_int_equal(pod_limits(pod, &ov, &cpu, &mem), 0);
        assert_int_equal(cpu, 750);
        assert_int_equal(mem, 768 * Mi);

        /* ResourceConfigForPod over the allocated pod: the class is the stored one */
        assert_int_equal(pod_cgroup_config(pod, &ov, true, &c), 0);
        assert_int_equal(c.cpu_shares, 614); /* 600m */
        assert_int_equal(c.cpu_quota_us, 75000);
        assert_int_equal(c.memory_limit_bytes, 768 * Mi);

        assert_int_equal(container_cgroup_config(pod, "c1", &ov, true, &c), 0);
        assert_int_equal(c.cpu_shares, 512);
        assert_int_equal(c.cpu_quota_us, 50000);
        assert_int_equal(c.memory_limit_bytes, 512 * Mi);
        assert_int_equal(container_cgroup_config(pod, "c2", &ov, true, &c), 0);
        assert_int_equal(c.cpu_shares, 102);
        assert_int_equal(c.cpu_quota_us, 25000);
        assert_int_equal(c.memory_limit_bytes, 256 * Mi);
        assert_int_equal(container_cgroup_config(pod, "nope", &ov, true, &c), -ENOENT);

        /* a pod-level overlay replaces spec.resources */
        {
                cleanup_json json_t *pl = load("{\"requests\":{\"cpu\":\"2\"}}");
                struct pod_resources_overlay pov = { .pod = pl };
                assert_int_equal(pod_requests_overlay(pod, &pov, &cpu, &mem), 0);
                assert_int_equal(cpu, 2000);
                assert_int_equal(mem, 1280 * Mi);
        }
}

/* ---- ResourceConfigForPod ---- */

struct cfg_case {
        const char *name;
        const char *pod;
        bool enforce;
        int64_t shares, quota, memory;
};

#define RR(req_cpu, req_mem, lim_cpu, lim_mem) \
 "{\"requests\":{" req_cpu req_mem "},\"limits\":{" lim_cpu lim_mem "}}"
#define CPU(v)        "\"cpu\":\"" v "\","
#define MEM(v)        "\"memory\":\"" v "\""
#define NONE          ""
#define CTR(name, rr) "{\"name\":\"" name "\",\"resources\":" rr "}"

static void test_pod_cgroup_config(void **state)
{
        /* K8S: TestResourceConfigForPod (pkg/kubelet/cm/helpers_linux_test.go) with the default
         * period, plus S18 and the sidecar and overhead rules */
        static const struct cfg_case cases[] = {
                { "besteffort", "{\"spec\":{\"containers\":[" CTR("a", "{}") "]}}", true, 2, -1,
                  -1 },
                { "burstable-no-limits",
                  "{\"spec\":{\"containers\":[" CTR("a",
                                                    RR(CPU("100m"), MEM("100Mi"), NONE, "")) "]}}",
                  true, 102, -1, -1 },
                { "burstable-with-limits",
                  "{\"spec\":{\"containers\":[" CTR(
                          "a", RR(CPU("100m"), MEM("100Mi"), CPU("200m"), MEM("200Mi"))) "]}}",
                  true, 102, 20000, 200 * Mi },
                { "burstable-with-limits-no-cpu-enforcement",
                  "{\"spec\":{\"containers\":[" CTR(
                          "a", RR(CPU("100m"), MEM("100Mi"), CPU("200m"), MEM("200Mi"))) "]}}",
                  false, 102, -1, 200 * Mi },
                { "burstable-partial-limits",
                  "{\"spec\":{\"containers\":[" CTR(
                          "a", RR(CPU("100m"), MEM("100Mi"), CPU("200m"),
                                  MEM("200Mi"))) "," CTR("b", RR(CPU("100m"), MEM("100Mi"), NONE,
                                                                 "")) "]}}",
                  true, 204, -1, -1 },
                { "guaranteed",
                  "{\"spec\":{\"containers\":[" CTR(
                          "a", RR(CPU("100m"), MEM("100Mi"), CPU("100m"), MEM("100Mi"))) "]}}",
                  true, 102, 10000, 100 * Mi },
                { "guaranteed-no-cpu-enforcement",
                  "{\"spec\":{\"containers\":[" CTR(
                          "a", RR(CPU("100m"), MEM("100Mi"), CPU("100m"), MEM("100Mi"))) "]}}",
                  false, 102, -1, 100 * Mi },
                { "burstable-partial-limits-with-init-containers",
                  "{\"spec\":{\"containers\":[" CTR(
                          "a",
                          RR(CPU("100m"), MEM("100m"), CPU("100m"),
                             MEM("100Mi"))) "," CTR("b",
                                                    RR(CPU("100m"), MEM("100m"), NONE,
                                                       "")) "],"
                                                            "\"initContainers\":[" CTR(
                                                                    "i1",
                                                                    RR(CPU("100m"), MEM("100m"),
                                                                       CPU("100m"),
                                                                       MEM("100Mi"))) "," CTR("i2",
                                                                                              RR(CPU("100m"),
                                                                                                 MEM("100m"),
                                                                                                 NONE,
                                                                                                 "")) "]}}",
                  true, 204, -1, -1 },
                { "besteffort-with-pod-level-resources-enabled",
                  "{\"spec\":{\"resources\":{\"requests\":{},\"limits\":{}},\"containers\":[" CTR(
                          "a", "{}") "]}}",
                  true, 2, -1, -1 },
                { "burstable-with-pod-level-requests",
                  "{\"spec\":{\"resources\":{\"requests\":{\"cpu\":\"100m\",\"memory\":\"100Mi\"}},"
                  "\"containers\":[{\"name\":\"a\"}]}}",
                  true, 102, -1, -1 },
                { "burstable-with-pod-and-container-level-requests",
                  "{\"spec\":{\"resources\":{\"requests\":{\"cpu\":\"100m\",\"memory\":\"100Mi\"}},"
                  "\"containers\":[" CTR("a", RR(CPU("10m"), MEM("50Mi"), NONE, "")) "]}}",
                  true, 102, -1, -1 },
                { "burstable-with-pod-level-resources",
                  "{\"spec\":{\"resources\":" RR(
                          CPU("100m"), MEM("100Mi"), CPU("200m"),
                          MEM("200Mi")) ","
                                        "\"containers\":[{\"name\":\"a\"}]}}",
                  true, 102, 20000, 200 * Mi },
                { "burstable-with-pod-and-container-level-resources",
                  "{\"spec\":{\"resources\":" RR(
                          CPU("100m"), MEM("100Mi"), CPU("200m"),
                          MEM("200Mi")) ","
                                        "\"containers\":[" CTR("a",
                                                               RR(CPU("10m"), MEM("50Mi"),
                                                                  CPU("50m"), MEM("100Mi"))) "]}}",
                  true, 102, 20000, 200 * Mi },
                { "burstable-with-partial-pod-level-resources-limits",
                  "{\"spec\":{\"resources\":{\"requests\":{\"cpu\":\"200m\",\"memory\":\"300Mi\"}},"
                  "\"containers\":[" CTR(
                          "a", RR(CPU("200m"), MEM("200Mi"), CPU("200m"), MEM("200Mi"))) "]}}",
                  true, 204, 20000, 200 * Mi },
                { "guaranteed-with-pod-level-resources",
                  "{\"spec\":{\"resources\":" RR(
                          CPU("100m"), MEM("100Mi"), CPU("100m"),
                          MEM("100Mi")) ","
                                        "\"containers\":[{\"name\":\"a\"}]}}",
                  true, 102, 10000, 100 * Mi },
                { "guaranteed-pod-level-resources-with-init-containers",
                  "{\"spec\":{\"resources\":" RR(
                          CPU("100m"), MEM("100Mi"), CPU("100m"),
                          MEM("100Mi")) ","
                                        "\"containers\":[" CTR(
                                                "a",
                                                RR(CPU("10m"), MEM("50Mi"), CPU("50m"),
                                                   MEM("50Mi"))) "],"
                                                                 "\"initContainers\":[" CTR(
                                                                         "i",
                                                                         RR(CPU("10m"), MEM("50Mi"),
                                                                            CPU("50m"),
                                                                            MEM("50Mi"))) "]}}",
                  true, 102, 10000, 100 * Mi },
                /* S18: Guaranteed 500m/256Mi; after the resize, 1 CPU */
                { "S18 500m",
                  "{\"spec\":{\"containers\":[" CTR(
                          "a", RR(CPU("500m"), MEM("256Mi"), CPU("500m"), MEM("256Mi"))) "]}}",
                  true, 512, 50000, 268435456 },
                { "S18 1 CPU",
                  "{\"spec\":{\"containers\":[" CTR(
                          "a", RR(CPU("1"), MEM("256Mi"), CPU("1"), MEM("256Mi"))) "]}}",
                  true, 1024, 100000, 268435456 },
                /* an init container after a sidecar inherits the sidecar's limits: declared */
                { "init after limited sidecar",
                  "{\"spec\":{\"initContainers\":[{\"name\":\"sc\",\"restartPolicy\":\"Always\",\"resources\":" RR(
                          CPU("100m"), MEM("100Mi"), CPU("200m"),
                          MEM("200Mi")) "},"
                                        "{\"name\":\"i\"}],"
                                        "\"containers\":[" CTR("a",
                                                               RR(CPU("100m"), MEM("100Mi"),
                                                                  CPU("200m"), MEM("200Mi"))) "]}}",
                  true, 204, 40000, 400 * Mi },
                /* before the sidecar it has no limits of its own: undeclared */
                { "init before limited sidecar",
                  "{\"spec\":{\"initContainers\":[{\"name\":\"i\"},{\"name\":\"sc\",\"restartPolicy\":\"Always\",\"resources\":" RR(
                          CPU("100m"), MEM("100Mi"), CPU("200m"),
                          MEM("200Mi")) "}],"
                                        "\"containers\":[" CTR("a",
                                                               RR(CPU("100m"), MEM("100Mi"),
                                                                  CPU("200m"), MEM("200Mi"))) "]}}",
                  true, 204, -1, -1 },
                /* overhead adds to requests and to the (non-zero) limits */
                { "guaranteed with overhead",
                  "{\"spec\":{\"overhead\":{\"cpu\":\"100m\",\"memory\":\"10Mi\"},\"containers\":[" CTR(
                          "a", RR(CPU("100m"), MEM("100Mi"), CPU("100m"), MEM("100Mi"))) "]}}",
                  true, 204, 20000, 110 * Mi },
                /* a limit of 0 counts as undeclared (res.Cpu().IsZero()) */
                { "zero cpu limit",
                  "{\"spec\":{\"containers\":[" CTR(
                          "a", RR(CPU("100m"), MEM("100Mi"), CPU("0"), MEM("200Mi"))) "]}}",
                  true, 102, -1, 200 * Mi },
                /* a tiny limit is floored at the kernel's 1ms quota */
                { "tiny cpu limit",
                  "{\"spec\":{\"containers\":[" CTR(
                          "a", RR(CPU("1m"), MEM("100Mi"), CPU("1m"), MEM("100Mi"))) "]}}",
                  true, 2, 1000, 100 * Mi },
                /* GetPodQOS: status.qosClass decides when present */
                { "stored class",
                  "{\"spec\":{\"containers\":[" CTR(
                          "a", RR(CPU("100m"), MEM("100Mi"), CPU("100m"),
                                  MEM("100Mi"))) "]},"
                                                 "\"status\":{\"qosClass\":\"BestEffort\"}}",
                  true, 2, -1, -1 },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                cleanup_json json_t *pod = load(cases[i].pod);
                struct pod_cgroup_config c = { 0 };
                int r = pod_cgroup_config(pod, NULL, cases[i].enforce, &c);

                if (r < 0)
                        fail_msg("%s: r=%d", cases[i].name, r);
                if (c.cpu_shares != cases[i].shares || c.cpu_quota_us != cases[i].quota ||
                    c.cpu_period_us != 100000 || c.memory_limit_bytes != cases[i].memory)
                        fail_msg("%s: got shares %lld quota %lld period %lld memory %lld, want "
                                 "%lld %lld 100000 %lld",
                                 cases[i].name, (long long) c.cpu_shares,
                                 (long long) c.cpu_quota_us, (long long) c.cpu_period_us,
                                 (long long) c.memory_limit_bytes, (long long) cases[i].shares,
                                 (long long) cases[i].quota, (long long) cases[i].memory);
                /* S18: the pod cgroup's v2 weight uses the kubelet's linear formula */
                if (streq(cases[i].name, "S18 500m"))
                        assert_int_equal(cpu_shares_to_weight(c.cpu_shares), 20);
                if (streq(cases[i].name, "S18 1 CPU"))
                        assert_int_equal(cpu_shares_to_weight(c.cpu_shares), 39);
        }
}

static void test_pod_memory_limit(void **state)
{
        /* K8S (KEP-1967, S21): the pod memory limit sizes memory-backed emptyDirs */
        static const struct {
                const char *pod;
                int64_t want;
        } cases[] = {
                { "{\"spec\":{\"containers\":[" CTR("a", RR(NONE, "", NONE, MEM("10Gi"))) "]}}",
                  10 * Gi },
                { "{\"spec\":{\"containers\":[" CTR("a", RR(NONE, MEM("1Gi"), NONE, "")) "]}}",
                  -1 },
                { "{\"spec\":{\"containers\":[" CTR("a", RR(NONE, "", NONE, MEM("1Gi"))) "," CTR(
                          "b", "{}") "]}}",
                  -1 },
                { "{\"spec\":{\"containers\":[" CTR("a", RR(NONE, "", NONE, MEM("1Gi"))) "," CTR(
                          "b", RR(NONE, "", NONE, MEM("512Mi"))) "]}}",
                  1536 * Mi },
                { "{\"spec\":{\"containers\":[" CTR("a", "{}") "]}}", -1 },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                cleanup_json json_t *pod = load(cases[i].pod);
                int64_t v = 0;
                assert_int_equal(pod_memory_limit(pod, NULL, &v), 0);
                if (v != cases[i].want)
                        fail_msg("case %zu: got %lld, want %lld", i, (long long) v,
                                 (long long) cases[i].want);
        }
}

/* ---- per container ---- */

static void test_container_config(void **state)
{
        /* K8S: kuberuntime calculateLinuxResources */
        static const struct {
                const char *requests, *limits;
                bool enforce;
                int64_t shares, quota, memory;
        } cases[] = {
                { "{\"cpu\":\"100m\",\"memory\":\"64Mi\"}",
                  "{\"cpu\":\"200m\",\"memory\":\"128Mi\"}", true, 102, 20000, 128 * Mi },
                /* the request defaults to the limit when it has no cpu entry */
                { NULL, "{\"cpu\":\"500m\"}", true, 512, 50000, -1 },
                { "{\"memory\":\"1Gi\"}", "{\"cpu\":\"2\"}", true, 2048, 200000, -1 },
                /* an explicit request of 0 is a request: MinShares */
                { "{\"cpu\":\"0\"}", "{\"cpu\":\"1\"}", true, 2, 100000, -1 },
                { NULL, NULL, true, 2, -1, -1 },
                { "{}", "{}", true, 2, -1, -1 },
                { NULL, "{\"cpu\":\"1m\"}", true, 2, 1000, -1 },
                { "{\"cpu\":\"1\"}", "{\"cpu\":\"1\",\"memory\":\"1Gi\"}", false, 1024, -1, Gi },
                { "{\"cpu\":\"300\"}", NULL, true, 262144, -1, -1 },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                cleanup_json json_t *req = cases[i].requests ? load(cases[i].requests) : NULL;
                cleanup_json json_t *lim = cases[i].limits ? load(cases[i].limits) : NULL;
                struct pod_cgroup_config c;

                assert_int_equal(container_resources_cgroup_config(req, lim, cases[i].enforce, &c),
                                 0);
                if (c.cpu_shares != cases[i].shares || c.cpu_quota_us != cases[i].quota ||
                    c.cpu_period_us != 100000 || c.memory_limit_bytes != cases[i].memory)
                        fail_msg("case %zu: got %lld %lld %lld %lld", i, (long long) c.cpu_shares,
                                 (long long) c.cpu_quota_us, (long long) c.cpu_period_us,
                                 (long long) c.memory_limit_bytes);
        }
}

static void test_container_config_init(void **state)
{
        cleanup_json json_t *pod = load("{\"spec\":{\"initContainers\":[" CTR(
                "sc", RR(CPU("250m"), MEM("64Mi"), CPU("250m"),
                         MEM("64Mi"))) "],"
                                       "\"containers\":[" CTR("a", "{}") "]}}");
        struct pod_cgroup_config c;

        assert_int_equal(container_cgroup_config(pod, "sc", NULL, true, &c), 0);
        assert_int_equal(c.cpu_shares, 256);
        assert_int_equal(c.cpu_quota_us, 25000);
        assert_int_equal(c.memory_limit_bytes, 64 * Mi);
        assert_int_equal(container_cgroup_config(pod, "a", NULL, true, &c), 0);
        assert_int_equal(c.cpu_shares, 2);
        assert_int_equal(c.cpu_quota_us, -1);
        assert_int_equal(c.memory_limit_bytes, -1);
}

/* ---- conversions ---- */

static void test_conversions(void **state)
{
        static const int64_t shares[][2] = {
                { -5, 2 },
                { 0, 2 },
                { 1, 2 },
                { 2, 2 },
                { 100, 102 },
                { 500, 512 },
                { 1000, 1024 },
                { 262144000, 262144 },
                { 300000000, 262144 },
                { INT64_MAX, 262144 },
        };
        /* K8S: TestMilliCPUToQuota */
        static const int64_t quota[][2] = {
                { 0, 0 },       { 5, 1000 },    { 9, 1000 },      { 10, 1000 },
                { 200, 20000 }, { 500, 50000 }, { 1000, 100000 }, { 1500, 150000 },
        };
        static const int64_t to_milli[][2] = {
                { 0, 0 },     { 1, 0 },       { 2, 2 },           { 102, 100 },
                { 512, 500 }, { 1024, 1000 }, { 262144, 256000 },
        };
        /* K8S (KEP-2254): linear, as the kubelet writes pod cgroups */
        static const int64_t weight[][2] = {
                { 0, 1 },     { 2, 1 },          { 512, 20 },       { 1024, 39 },
                { 2048, 79 }, { 262144, 10000 }, { 999999, 10000 },
        };
        static const int64_t weight_back[][2] = {
                { 0, 2 }, { 1, 2 }, { 20, 500 }, { 39, 998 }, { 100, 2597 }, { 10000, 262144 },
        };
        /* runc#4785 / crun: values computed by the runtimes' Go code */
        static const int64_t oci[][2] = {
                { 0, 0 },         { 1, 1 },          { 2, 1 },          { 3, 2 },
                { 10, 4 },        { 20, 6 },         { 51, 11 },        { 100, 17 },
                { 102, 17 },      { 205, 29 },       { 256, 35 },       { 512, 59 },
                { 1024, 100 },    { 2048, 174 },     { 4096, 303 },     { 10240, 639 },
                { 102400, 4429 }, { 262143, 10000 }, { 262144, 10000 }, { 500000, 10000 },
        };
        static const int64_t oci_back[][2] = {
                { 1, 2 },         { 2, 3 },          { 3, 6 },        { 10, 44 },
                { 39, 295 },      { 100, 1012 },     { 1000, 17594 }, { 5000, 117894 },
                { 9999, 262085 }, { 10000, 262115 },
        };

        for (size_t i = 0; i < ARRAY_SIZE(shares); i++)
                assert_int_equal(cpu_milli_to_shares(shares[i][0]), shares[i][1]);
        for (size_t i = 0; i < ARRAY_SIZE(quota); i++)
                assert_int_equal(cpu_milli_to_quota(quota[i][0], 100000), quota[i][1]);
        for (size_t i = 0; i < ARRAY_SIZE(to_milli); i++)
                assert_int_equal(cpu_shares_to_milli(to_milli[i][0]), to_milli[i][1]);
        for (size_t i = 0; i < ARRAY_SIZE(weight); i++)
                assert_int_equal(cpu_shares_to_weight(weight[i][0]), weight[i][1]);
        for (size_t i = 0; i < ARRAY_SIZE(weight_back); i++)
                assert_int_equal(cpu_weight_to_shares(weight_back[i][0]), weight_back[i][1]);
        for (size_t i = 0; i < ARRAY_SIZE(oci); i++) {
                if (cpu_shares_to_weight_oci(oci[i][0]) != oci[i][1])
                        fail_msg("oci(%lld) = %lld, want %lld", (long long) oci[i][0],
                                 (long long) cpu_shares_to_weight_oci(oci[i][0]),
                                 (long long) oci[i][1]);
        }
        for (size_t i = 0; i < ARRAY_SIZE(oci_back); i++)
                assert_int_equal(cpu_weight_to_shares_oci(oci_back[i][0]), oci_back[i][1]);

        assert_int_equal(cpu_milli_to_quota(250, 50000), 12500);
        assert_int_equal(cpu_quota_to_milli(-1, 100000), 0);
        assert_int_equal(cpu_quota_to_milli(50000, 100000), 500);
        assert_int_equal(cpu_quota_to_milli(1000, 100000), 10);
        assert_int_equal(cpu_quota_to_milli(150000, 100000), 1500);
        assert_int_equal(cpu_quota_to_milli(1000, 0), 0);
}

/* The quadratic conversion over its whole domain, against sums of the values the runtimes'
 * float64 Go code gives for shares 0..262150 (the runtimes round with math.Ceil, so a single
 * ulp of difference anywhere would move a sum). */
static void test_oci_weight_whole_domain(void **state)
{
        uint64_t sum = 0, weighted = 0;
        int64_t prev = 0;

        for (int64_t s = 0; s <= 262150; s++) {
                int64_t w = cpu_shares_to_weight_oci(s);
                assert_true(w >= prev); /* monotonic, so the inverse's search is sound */
                prev = w;
                sum += (uint64_t) w;
                weighted += (uint64_t) w * (uint64_t) (s % 1009 + 1);
        }
        assert_int_equal(sum, 1405438461);
        assert_int_equal(weighted, 709819594437ULL);
}

/* ---- GetContainerOOMScoreAdjust (pkg/kubelet/qos/policy.go) ---- */

static void test_oom_score_adj(void **state)
{
        static const struct {
                const char *what, *pod, *name;
                int want;
        } cases[] = {
                { "Guaranteed",
                  "{\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"limits\":"
                  "{\"cpu\":\"1\",\"memory\":\"1Gi\"},\"requests\":{\"cpu\":\"1\","
                  "\"memory\":\"1Gi\"}}}]}}",
                  "c", -997 },
                { "BestEffort", "{\"spec\":{\"containers\":[{\"name\":\"c\"}]}}", "c", 1000 },
                { "Burstable: 1000 - 1000*1Gi/4Gi",
                  "{\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":"
                  "{\"memory\":\"1Gi\"}}}]}}",
                  "c", 750 },
                { "Burstable without a memory request: below BestEffort",
                  "{\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":"
                  "{\"cpu\":\"100m\"}}}]}}",
                  "c", 999 },
                { "Burstable asking for the whole machine: above Guaranteed",
                  "{\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":"
                  "{\"memory\":\"4Gi\"}}}]}}",
                  "c", 3 },
                { "node-critical",
                  "{\"spec\":{\"priorityClassName\":\"system-node-critical\","
                  "\"priority\":2000001000,\"containers\":[{\"name\":\"c\"}]}}",
                  "c", -997 },
                { "system-node-critical without a critical priority is not critical",
                  "{\"spec\":{\"priorityClassName\":\"system-node-critical\","
                  "\"containers\":[{\"name\":\"c\"}]}}",
                  "c", 1000 },
                { "a sidecar scores no lower than the smallest regular container",
                  "{\"spec\":{\"initContainers\":[{\"name\":\"s\",\"restartPolicy\":\"Always\","
                  "\"resources\":{\"requests\":{\"memory\":\"100Mi\"}}}],"
                  "\"containers\":[{\"name\":\"a\",\"resources\":{\"requests\":"
                  "{\"memory\":\"1Gi\"}}},{\"name\":\"b\",\"resources\":{\"requests\":"
                  "{\"memory\":\"2Gi\"}}}]}}",
                  "s", 750 },
                { "the larger regular container",
                  "{\"spec\":{\"initContainers\":[{\"name\":\"s\",\"restartPolicy\":\"Always\","
                  "\"resources\":{\"requests\":{\"memory\":\"100Mi\"}}}],"
                  "\"containers\":[{\"name\":\"a\",\"resources\":{\"requests\":"
                  "{\"memory\":\"1Gi\"}}},{\"name\":\"b\",\"resources\":{\"requests\":"
                  "{\"memory\":\"2Gi\"}}}]}}",
                  "b", 500 },
                { "a plain init container: its own request (100Mi: 1000 - 24)",
                  "{\"spec\":{\"initContainers\":[{\"name\":\"i\",\"resources\":{\"requests\":"
                  "{\"memory\":\"100Mi\"}}}],\"containers\":[{\"name\":\"a\",\"resources\":"
                  "{\"requests\":{\"memory\":\"1Gi\"}}}]}}",
                  "i", 976 },
                { "pod-level: (2Gi - 512Mi)/2 more for each container: 512Mi+768Mi",
                  "{\"spec\":{\"resources\":{\"requests\":{\"memory\":\"2Gi\"}},"
                  "\"containers\":[{\"name\":\"a\",\"resources\":{\"requests\":"
                  "{\"memory\":\"512Mi\"}}},{\"name\":\"b\"}]}}",
                  "a", 688 },
                { "pod-level: 768Mi for the container asking none",
                  "{\"spec\":{\"resources\":{\"requests\":{\"memory\":\"2Gi\"}},"
                  "\"containers\":[{\"name\":\"a\",\"resources\":{\"requests\":"
                  "{\"memory\":\"512Mi\"}}},{\"name\":\"b\"}]}}",
                  "b", 813 },
        };
        json_t *pod;
        int adj;

        (void) state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                pod = load(cases[i].pod);
                adj = 12345;
                if (container_oom_score_adj(pod, cases[i].name, 4 * Gi, &adj) != 0 ||
                    adj != cases[i].want)
                        fail_msg("%s: got %d, want %d", cases[i].what, adj, cases[i].want);
                json_decref(pod);
        }
        pod = load(cases[0].pod);
        assert_int_equal(container_oom_score_adj(pod, "nope", 4 * Gi, &adj), -ENOENT);
        assert_int_equal(container_oom_score_adj(pod, "c", 0, &adj), -EINVAL);
        json_decref(pod);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_pod_requests),
                cmocka_unit_test(test_pod_limits),
                cmocka_unit_test(test_overlay),
                cmocka_unit_test(test_pod_cgroup_config),
                cmocka_unit_test(test_pod_memory_limit),
                cmocka_unit_test(test_container_config),
                cmocka_unit_test(test_container_config_init),
                cmocka_unit_test(test_conversions),
                cmocka_unit_test(test_oci_weight_whole_domain),
                cmocka_unit_test(test_oom_score_adj),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
