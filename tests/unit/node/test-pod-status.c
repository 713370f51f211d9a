/* test-pod-status.c: the kubelet's phase and condition rules over observations. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "base/json.h"
#include "node/pod-status.h"

static const char *cond(const json_t *st, const char *type, const char *field)
{
        size_t i;
        json_t *c;

        json_array_foreach(json_object_get(st, "conditions"), i, c) {
                if (streq(json_string_value(json_object_get(c, "type")), type))
                        return json_string_value(json_object_get(c, field));
        }
        return NULL;
}

static json_t *pod(const char *restart_policy, bool with_init)
{
        json_t *p = json_pack("{s:{s:s, s:[{s:s, s:s}]}}", "spec", "restartPolicy", restart_policy,
                              "containers", "name", "c1", "image", "busybox");
        if (with_init)
                json_object_set_new(json_object_get(p, "spec"), "initContainers",
                                    json_pack("[{s:s, s:s}]", "name", "init", "image", "busybox"));
        return p;
}

struct phase_case {
        const char *restart_policy;
        enum container_phase phase;
        int exit_code;
        const char *want_phase;
        const char *want_ready;
        const char *want_ready_reason;
};

static void test_phase_table(void **state)
{
        static const struct phase_case cases[] = {
                { "Always", CONTAINER_RUNNING, 0, "Running", "True", NULL },
                { "Always", CONTAINER_WAITING, 0, "Pending", "False", "ContainersNotReady" },
                { "Never", CONTAINER_TERMINATED, 0, "Succeeded", "False", "PodCompleted" },
                { "Never", CONTAINER_TERMINATED, 1, "Failed", "False", "PodCompleted" },
                { "OnFailure", CONTAINER_TERMINATED, 0, "Succeeded", "False", "PodCompleted" },
                { "OnFailure", CONTAINER_TERMINATED, 2, "Running", "False", "ContainersNotReady" },
                { "Always", CONTAINER_TERMINATED, 0, "Running", "False", "ContainersNotReady" },
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                cleanup_json json_t *p = pod(cases[i].restart_policy, false);
                struct container_observation c = { .name = "c1",
                                                   .phase = cases[i].phase,
                                                   .container_id = "flexlet://x",
                                                   .current = { .exit_code = cases[i].exit_code } };
                struct pod_observation o = { .sandbox_ready = true,
                                             .containers = &c,
                                             .n_containers = 1 };
                cleanup_json json_t *st = pod_status_build(p, &o, NULL, 1000);

                assert_string_equal(json_string_value(json_object_get(st, "phase")),
                                    cases[i].want_phase);
                assert_string_equal(cond(st, "Ready", "status"), cases[i].want_ready);
                if (cases[i].want_ready_reason)
                        assert_string_equal(cond(st, "Ready", "reason"),
                                            cases[i].want_ready_reason);
        }
}

static void test_init_pending(void **state)
{
        cleanup_json json_t *p = pod("Always", true);
        struct container_observation init = { .name = "init",
                                              .phase = CONTAINER_RUNNING,
                                              .container_id = "flexlet://i" };
        struct container_observation c = { .name = "c1",
                                           .phase = CONTAINER_WAITING,
                                           .waiting_reason = "PodInitializing" };
        struct pod_observation o = { .sandbox_ready = true,
                                     .init = &init,
                                     .n_init = 1,
                                     .containers = &c,
                                     .n_containers = 1,
                                     .host_ip = "10.0.0.1",
                                     .pod_ip = "10.88.0.7" };
        cleanup_json json_t *st = pod_status_build(p, &o, NULL, 1000);

        assert_string_equal(json_string_value(json_object_get(st, "phase")), "Pending");
        assert_string_equal(cond(st, "Initialized", "status"), "False");
        assert_string_equal(cond(st, "Initialized", "message"),
                            "containers with incomplete status: [init]");
        assert_string_equal(cond(st, "Ready", "message"), "containers with unready status: [c1]");
        assert_string_equal(
                json_path_string(json_array_get(json_object_get(st, "containerStatuses"), 0),
                                 "state.waiting.reason"),
                "PodInitializing");
        assert_string_equal(json_string_value(json_object_get(st, "hostIP")), "10.0.0.1");
        assert_string_equal(json_string_value(json_object_get(st, "podIP")), "10.88.0.7");
        assert_string_equal(
                json_path_string(json_array_get(json_object_get(st, "podIPs"), 0), "ip"),
                "10.88.0.7");
        /* no IP (yet): none reported, unless one was before */
        o.pod_ip = NULL;
        {
                cleanup_json json_t *st2 = pod_status_build(p, &o, NULL, 1000);
                cleanup_json json_t *st3 = NULL;
                assert_null(json_object_get(st2, "podIP"));
                st3 = pod_status_build(p, &o, st, 1001);
                assert_string_equal(json_string_value(json_object_get(st3, "podIP")), "10.88.0.7");
        }
}

static void test_transition_time_kept(void **state)
{
        cleanup_json json_t *p = pod("Always", false);
        struct container_observation c = { .name = "c1",
                                           .phase = CONTAINER_RUNNING,
                                           .started_at = 500,
                                           .container_id = "flexlet://x" };
        struct pod_observation o = { .sandbox_ready = true, .containers = &c, .n_containers = 1 };
        cleanup_json json_t *first = pod_status_build(p, &o, NULL, 1000);
        cleanup_json json_t *second = pod_status_build(p, &o, first, 2000);

        assert_string_equal(cond(second, "Ready", "lastTransitionTime"),
                            cond(first, "Ready", "lastTransitionTime"));
        assert_string_equal(
                json_path_string(json_array_get(json_object_get(second, "containerStatuses"), 0),
                                 "state.running.startedAt"),
                "1970-01-01T00:08:20Z");
}

/* K8S: convertContainerStatusResources: the allocated lists with the kernel's cpu request, cpu
 * limit and memory limit; minimum values on both sides keep the allocated text. */
static void test_container_resources(void **state)
{
        static const struct {
                const char *requests, *limits;
                struct pod_cgroup_config actual;
                const char *want;
        } cases[] = {
                { "{\"cpu\":\"500m\",\"memory\":\"64Mi\"}",
                  "{\"cpu\":\"1\",\"memory\":\"256Mi\"}",
                  { 512, 100000, 100000, 268435456 },
                  "{\"limits\": {\"cpu\": \"1\", \"memory\": \"256Mi\"}, \"requests\": {\"cpu\": "
                  "\"500m\", \"memory\": \"64Mi\"}}" },
                /* the kernel has other values than the spec (a resize under way): the kernel's */
                { "{\"cpu\":\"500m\"}",
                  "{\"cpu\":\"1\",\"memory\":\"256Mi\"}",
                  { 1024, 150000, 100000, 536870912 },
                  "{\"limits\": {\"cpu\": \"1500m\", \"memory\": \"512Mi\"}, \"requests\": "
                  "{\"cpu\": \"1\"}}" },
                /* 1m requests: 2 shares read back as 2m, both at the minimum: kept */
                { "{\"cpu\":\"1m\"}",
                  NULL,
                  { 2, -1, 100000, -1 },
                  "{\"requests\": {\"cpu\": \"1m\"}}" },
                /* no cpu limit in the spec: the quota is not reported */
                { "{\"memory\":\"64Mi\"}",
                  "{\"memory\":\"64Mi\"}",
                  { 2, -1, 100000, 67108864 },
                  "{\"limits\": {\"memory\": \"64Mi\"}, \"requests\": {\"memory\": \"64Mi\"}}" },
                { NULL, NULL, { 2, -1, 100000, -1 }, NULL },
        };
        (void) state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                cleanup_json json_t *req =
                        cases[i].requests ? json_loads(cases[i].requests, 0, NULL) : NULL;
                cleanup_json json_t *lim =
                        cases[i].limits ? json_loads(cases[i].limits, 0, NULL) : NULL;
                cleanup_json json_t *got =
                        pod_status_container_resources(req, lim, &cases[i].actual);
                cleanup_free char *text = got ? json_dumps(got, JSON_SORT_KEYS) : NULL;

                if (!cases[i].want) {
                        assert_null(got);
                        continue;
                }
                assert_non_null(text);
                assert_string_equal(text, cases[i].want);
        }
}

/* cgroup v2: the container's cpu.weight is the runtime's conversion of the allocated shares
 * (100m: 102 shares, weight 17); its inverse reads fewer millicores, yet the allocated request
 * is reported, as upstream does. A weight that is not its conversion reports the kernel's. */
static void test_container_resources_v2_weight(void **state)
{
        cleanup_json json_t *req = json_loads("{\"cpu\":\"100m\"}", 0, NULL);
        struct pod_cgroup_config a = { .cpu_quota_us = -1,
                                       .cpu_period_us = 100000,
                                       .memory_limit_bytes = -1 };
        int64_t w = cpu_shares_to_weight_oci(cpu_milli_to_shares(100));

        (void) state;
        assert_int_not_equal(cpu_shares_to_milli(cpu_weight_to_shares_oci(w)), 100);
        a.cpu_shares = pod_status_cpu_shares_from_weight(req, w);
        {
                cleanup_json json_t *got = pod_status_container_resources(req, NULL, &a);
                assert_string_equal(json_path_string(got, "requests.cpu"), "100m");
        }
        /* the kernel holds another weight (1 cpu's, 100, a resize under way): its own value,
         * read back through the inverse (1013 shares, 989m) */
        a.cpu_shares = pod_status_cpu_shares_from_weight(
                req, cpu_shares_to_weight_oci(cpu_milli_to_shares(1000)));
        {
                cleanup_json json_t *got = pod_status_container_resources(req, NULL, &a);
                assert_string_equal(json_path_string(got, "requests.cpu"), "989m");
        }
        /* no cpu request at all: the inverse */
        assert_int_equal(pod_status_cpu_shares_from_weight(NULL, 100),
                         cpu_weight_to_shares_oci(100));
}

/* K8S: an evicted pod is Failed with reason Evicted, the message, and DisruptionTarget. */
static void test_evicted(void **state)
{
        cleanup_json json_t *p = pod("Always", false);
        struct container_observation c = { .name = "c1", .phase = CONTAINER_RUNNING };
        struct pod_observation o = { .sandbox_ready = true,
                                     .containers = &c,
                                     .n_containers = 1,
                                     .evicted_message = "Usage of EmptyDir volume \"v\" exceeds "
                                                        "the limit \"1Mi\". " };
        cleanup_json json_t *st = pod_status_build(p, &o, NULL, 1000);

        (void) state;
        assert_string_equal(json_string_value(json_object_get(st, "phase")), "Failed");
        assert_string_equal(json_string_value(json_object_get(st, "reason")), "Evicted");
        assert_string_equal(json_string_value(json_object_get(st, "message")), o.evicted_message);
        assert_string_equal(cond(st, "DisruptionTarget", "status"), "True");
        assert_string_equal(cond(st, "DisruptionTarget", "reason"), "TerminationByKubelet");
        assert_string_equal(cond(st, "Ready", "status"), "False");
}

/* K8S status manager normalizeStatus: each terminated message is cut to
 * MaxPodTerminationMessageLogLength (12 KiB) over the number of containers and init containers,
 * its start kept, in state and lastState; a character cut in two reads as U+FFFD, as Go's JSON
 * encoding writes it. */
static void test_termination_message_split(void **state)
{
        cleanup_json json_t *p = pod("Never", true);
        char big[8000];
        struct container_observation init = { .name = "init",
                                              .phase = CONTAINER_TERMINATED,
                                              .current = { .message = "short" } };
        struct container_observation c = { .name = "c1", .phase = CONTAINER_TERMINATED };
        const char *msg, *last;

        (void) state;
        memset(big, 'x', sizeof(big) - 1);
        big[sizeof(big) - 1] = '\0';
        /* "é" (2 bytes) across the cut at 6144 = 12288 / 2 */
        memcpy(big + 6143, "\xc3\xa9", 2);
        c.current.message = big;
        c.has_last = true;
        c.last.message = big;
        struct pod_observation o = { .sandbox_ready = true,
                                     .init = &init,
                                     .n_init = 1,
                                     .containers = &c,
                                     .n_containers = 1 };
        cleanup_json json_t *st = pod_status_build(p, &o, NULL, 1000);

        msg = json_string_value(json_object_get(
                json_object_get(
                        json_object_get(json_array_get(json_object_get(st, "containerStatuses"), 0),
                                        "state"),
                        "terminated"),
                "message"));
        last = json_string_value(json_object_get(
                json_object_get(
                        json_object_get(json_array_get(json_object_get(st, "containerStatuses"), 0),
                                        "lastState"),
                        "terminated"),
                "message"));
        assert_non_null(msg);
        assert_int_equal(strlen(msg), 6143 + 3);
        assert_memory_equal(msg + 6143, "\xef\xbf\xbd", 3);
        assert_string_equal(msg, last);
        assert_string_equal(
                json_string_value(json_object_get(
                        json_object_get(
                                json_object_get(
                                        json_array_get(json_object_get(st, "initContainerStatuses"),
                                                       0),
                                        "state"),
                                "terminated"),
                        "message")),
                "short");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_phase_table),
                cmocka_unit_test(test_init_pending),
                cmocka_unit_test(test_transition_time_kept),
                cmocka_unit_test(test_container_resources),
                cmocka_unit_test(test_container_resources_v2_weight),
                cmocka_unit_test(test_evicted),
                cmocka_unit_test(test_termination_message_split),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
