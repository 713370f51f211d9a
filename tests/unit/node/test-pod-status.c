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
                                     .host_ip = "10.0.0.1" };
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
        assert_string_equal(json_string_value(json_object_get(st, "podIP")), "10.0.0.1");
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

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_phase_table),
                cmocka_unit_test(test_init_pending),
                cmocka_unit_test(test_transition_time_kept),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
