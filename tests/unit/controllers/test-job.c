/* test-job.c: the Job controller's plan for one Job from its pods: how many pods to create
 * (parallelism, completions, failure backoff), the counting of finished pods through
 * uncountedTerminatedPods and the tracking finalizer, the conditions 1.32 writes
 * (SuccessCriteriaMet then Complete, FailureTarget then Failed for BackoffLimitExceeded,
 * DeadlineExceeded and a FailJob rule), Ignore rules, a finished or deleted Job's pods, and the
 * TTL-after-finished arithmetic; the job defaults and generated selector. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "api/job.h"
#include "base/alloc.h"
#include "base/json.h"
#include "controllers/job.h"

/* 2026-01-01T00:00:00Z */
#define NOW 1767225600

static json_t *job(const char *spec_extra, const char *status)
{
        json_t *j = json_pack("{s:s, s:s, s:{s:s, s:s, s:s}, s:{s:{s:{s:s}}}}", "apiVersion",
                              "batch/v1", "kind", "Job", "metadata", "name", "j", "namespace",
                              "default", "uid", "ju", "spec", "template", "spec", "restartPolicy",
                              "Never");
        json_t *extra = json_loads(spec_extra, 0, NULL);

        assert_non_null(extra);
        json_object_update(json_object_get(j, "spec"), extra);
        json_decref(extra);
        job_set_defaults(j);
        if (status)
                json_object_set_new(j, "status", json_loads(status, 0, NULL));
        return j;
}

/* A pod of the Job: phase, tracked (finalizer), deleting, and an exit code for Failed pods. */
static json_t *pod(const char *uid, const char *phase, bool tracked, bool deleting, int exit_code)
{
        json_t *p = json_pack("{s:{s:s, s:s, s:s}, s:{s:s}}", "metadata", "name", uid, "namespace",
                              "default", "uid", uid, "status", "phase", phase);

        if (tracked)
                json_object_set_new(json_object_get(p, "metadata"), "finalizers",
                                    json_pack("[s]", JOB_TRACKING_FINALIZER));
        if (deleting)
                json_object_set_new(json_object_get(p, "metadata"), "deletionTimestamp",
                                    json_string("2026-01-01T00:00:00Z"));
        if (exit_code)
                json_object_set_new(json_object_get(p, "status"), "containerStatuses",
                                    json_pack("[{s:s, s:{s:{s:i}}}]", "name", "c", "state",
                                              "terminated", "exitCode", exit_code));
        return p;
}

static const char *cond_types(const json_t *status, char *buf, size_t n)
{
        size_t i;
        json_t *c;

        buf[0] = '\0';
        json_array_foreach(json_object_get(status, "conditions"), i, c) {
                if (i)
                        strncat(buf, " ", n - strlen(buf) - 1);
                strncat(buf, json_path_string_or_empty(c, "type"), n - strlen(buf) - 1);
                strncat(buf, "/", n - strlen(buf) - 1);
                strncat(buf, json_path_string_or_empty(c, "reason"), n - strlen(buf) - 1);
        }
        return buf;
}

static long long plan_int(const json_t *plan, const char *key)
{
        return json_integer_value(json_object_get(plan, key));
}

static void test_defaults_and_selector(void **state)
{
        json_t *j = json_pack("{s:{s:s, s:s}, s:{s:{s:{s:s}}}}", "metadata", "name", "pi", "uid",
                              "u1", "spec", "template", "spec", "restartPolicy", "Never");

        (void) state;
        job_set_defaults(j);
        job_generate_selector(j);
        job_set_defaults(j);
        assert_int_equal(json_integer_value(json_path(j, "spec.completions")), 1);
        assert_int_equal(json_integer_value(json_path(j, "spec.parallelism")), 1);
        assert_int_equal(json_integer_value(json_path(j, "spec.backoffLimit")), 6);
        assert_string_equal(json_path_string(j, "spec.completionMode"), "NonIndexed");
        assert_string_equal(json_path_string(j, "spec.podReplacementPolicy"),
                            "TerminatingOrFailed");
        assert_string_equal(
                json_string_value(json_object_get(json_path(j, "spec.selector.matchLabels"),
                                                  JOB_CONTROLLER_UID_LABEL)),
                "u1");
        assert_string_equal(json_string_value(json_object_get(
                                    json_path(j, "spec.template.metadata.labels"), "job-name")),
                            "pi");
        assert_string_equal(json_string_value(json_object_get(json_path(j, "metadata.labels"),
                                                              JOB_CONTROLLER_UID_LABEL)),
                            "u1");
        json_decref(j);
}

static void test_parallelism(void **state)
{
        json_t *j = job("{\"completions\":3,\"parallelism\":2}", NULL);
        json_t *pods = json_array(), *plan;
        char buf[256];

        (void) state;
        plan = job_plan(j, pods, NOW, NULL);
        assert_int_equal(plan_int(plan, "create"), 2);
        assert_non_null(json_path(plan, "status.startTime"));
        json_decref(plan);

        /* one done: its uid goes to uncounted first, then the finalizer, then the counter */
        json_array_append_new(pods, pod("a", "Succeeded", true, false, 0));
        json_array_append_new(pods, pod("b", "Running", true, false, 0));
        plan = job_plan(j, pods, NOW, NULL);
        assert_string_equal(
                json_string_value(json_array_get(
                        json_path(plan, "interim.uncountedTerminatedPods.succeeded"), 0)),
                "a");
        assert_int_equal(json_array_size(json_object_get(plan, "removeFinalizers")), 1);
        assert_int_equal(json_integer_value(json_path(plan, "status.succeeded")), 1);
        assert_int_equal(plan_int(plan, "create"), 1);
        json_decref(plan);

        /* three counted: SuccessCriteriaMet, then Complete once nothing runs */
        json_decref(j);
        j = job("{\"completions\":3,\"parallelism\":2}", "{\"succeeded\":3}");
        json_array_clear(pods);
        json_array_append_new(pods, pod("d", "Running", true, false, 0));
        plan = job_plan(j, pods, NOW, NULL);
        assert_string_equal(cond_types(json_object_get(plan, "status"), buf, sizeof(buf)),
                            "SuccessCriteriaMet/CompletionsReached");
        assert_int_equal(json_array_size(json_object_get(plan, "delete")), 1);
        json_decref(plan);
        json_array_clear(pods);
        plan = job_plan(j, pods, NOW, NULL);
        assert_string_equal(cond_types(json_object_get(plan, "status"), buf, sizeof(buf)),
                            "SuccessCriteriaMet/CompletionsReached Complete/CompletionsReached");
        assert_non_null(json_path(plan, "status.completionTime"));
        json_decref(plan);
        json_decref(pods);
        json_decref(j);
}

static void test_failures(void **state)
{
        json_t *j = job("{\"backoffLimit\":1}", "{\"failed\":1}");
        json_t *pods = json_array(), *plan;
        struct job_backoff b = { .failures = 1, .last_failure = NOW - 4 };
        char buf[256];

        (void) state;
        /* the second attempt waits out the 10 s backoff */
        plan = job_plan(j, pods, NOW, &b);
        assert_int_equal(plan_int(plan, "create"), 0);
        assert_int_equal(plan_int(plan, "requeueMs"), 6000);
        json_decref(plan);
        b.last_failure = NOW - 10;
        plan = job_plan(j, pods, NOW, &b);
        assert_int_equal(plan_int(plan, "create"), 1);
        json_decref(plan);
        /* failed > backoffLimit: FailureTarget, then Failed */
        json_array_append_new(pods, pod("f", "Failed", true, false, 3));
        plan = job_plan(j, pods, NOW, &b);
        assert_string_equal(cond_types(json_object_get(plan, "status"), buf, sizeof(buf)),
                            "FailureTarget/BackoffLimitExceeded");
        json_decref(plan);
        json_decref(j);
        j = job("{\"backoffLimit\":1}",
                "{\"failed\":2,\"conditions\":[{\"type\":\"FailureTarget\",\"status\":\"True\","
                "\"reason\":\"BackoffLimitExceeded\",\"message\":\"m\"}]}");
        json_array_clear(pods);
        plan = job_plan(j, pods, NOW, &b);
        assert_string_equal(cond_types(json_object_get(plan, "status"), buf, sizeof(buf)),
                            "FailureTarget/BackoffLimitExceeded Failed/BackoffLimitExceeded");
        json_decref(plan);
        json_decref(j);

        /* activeDeadlineSeconds */
        j = job("{\"activeDeadlineSeconds\":5}", "{\"startTime\":\"2025-12-31T23:59:50Z\"}");
        json_array_append_new(pods, pod("r", "Running", true, false, 0));
        plan = job_plan(j, pods, NOW, NULL);
        assert_string_equal(cond_types(json_object_get(plan, "status"), buf, sizeof(buf)),
                            "FailureTarget/DeadlineExceeded");
        assert_int_equal(json_array_size(json_object_get(plan, "delete")), 1);
        json_decref(plan);
        json_decref(j);
        json_decref(pods);
}

static void test_pod_failure_policy(void **state)
{
        json_t *j = job(
                "{\"podFailurePolicy\":{\"rules\":["
                "{\"action\":\"Ignore\",\"onExitCodes\":{\"operator\":\"In\",\"values\":[7]}},"
                "{\"action\":\"FailJob\",\"onExitCodes\":{\"operator\":\"In\",\"values\":[42]}}]}}",
                NULL);
        json_t *pods = json_array(), *plan;
        char buf[256];

        (void) state;
        assert_string_equal(json_path_string(j, "spec.podReplacementPolicy"), "Failed");
        json_array_append_new(pods, pod("i", "Failed", true, false, 7));
        plan = job_plan(j, pods, NOW, NULL);
        assert_int_equal(plan_int(plan, "newFailed"), 0);
        assert_int_equal(json_array_size(json_object_get(plan, "removeFinalizers")), 1);
        assert_int_equal(plan_int(plan, "create"), 1);
        json_decref(plan);
        json_array_clear(pods);
        json_array_append_new(pods, pod("x", "Failed", true, false, 42));
        plan = job_plan(j, pods, NOW, NULL);
        assert_string_equal(cond_types(json_object_get(plan, "status"), buf, sizeof(buf)),
                            "FailureTarget/PodFailurePolicy");
        assert_string_equal(
                json_string_value(json_object_get(
                        json_array_get(json_path(plan, "status.conditions"), 0), "message")),
                "Container c for pod default/x failed with exit code 42 matching FailJob rule at "
                "index 1");
        json_decref(plan);
        json_decref(pods);
        json_decref(j);
}

static void test_finished_and_ttl(void **state)
{
        json_t *j = job("{\"ttlSecondsAfterFinished\":30}",
                        "{\"conditions\":[{\"type\":\"Complete\",\"status\":\"True\","
                        "\"lastTransitionTime\":\"2025-12-31T23:59:50Z\"}]}");
        json_t *pods = json_array(), *plan;
        long long left = 0;

        (void) state;
        json_array_append_new(pods, pod("s", "Succeeded", true, false, 0));
        plan = job_plan(j, pods, NOW, NULL);
        assert_int_equal(json_array_size(json_object_get(plan, "removeFinalizers")), 1);
        assert_null(json_object_get(plan, "status"));
        assert_int_equal(plan_int(plan, "create"), 0);
        json_decref(plan);
        assert_int_equal(job_ttl_left(j, NOW, &left), 0);
        assert_int_equal(left, 20);
        json_object_del(json_object_get(j, "spec"), "ttlSecondsAfterFinished");
        assert_int_equal(job_ttl_left(j, NOW, &left), -ENOENT);
        json_decref(pods);
        json_decref(j);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_defaults_and_selector),
                cmocka_unit_test(test_parallelism),
                cmocka_unit_test(test_failures),
                cmocka_unit_test(test_pod_failure_policy),
                cmocka_unit_test(test_finished_and_ttl),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
