/* job.c: the Job controller and the TTL-after-finished controller (job.h): the pure plan for
 * one Job from its pods (job_plan, job_ttl_left) and the passes that carry it out through the
 * API: status writes, pod creation and deletion, finalizer removal, events. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/job-index.h"
#include "api/job.h"
#include "api/owner.h"
#include "api/selector.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/timeutil.h"
#include "client/event.h"
#include "controllers/controller-loop.h"
#include "controllers/job.h"
#include "controllers/relevance.h"

#define PASS_PERIOD_MS 10000
/* K8S: job_controller.go DefaultJobPodFailureBackOff and MaxJobPodFailureBackOff */
#define FAILURE_BACKOFF_S     10
#define FAILURE_BACKOFF_MAX_S 600
#define EVENT_COMPONENT       "job-controller"

/* K8S: batch/v1 JobConditionType and the reasons and messages the controller writes. */
#define REASON_BACKOFF     "BackoffLimitExceeded"
#define MESSAGE_BACKOFF    "Job has reached the specified backoff limit"
#define REASON_DEADLINE    "DeadlineExceeded"
#define MESSAGE_DEADLINE   "Job was active longer than specified deadline"
#define REASON_POLICY      "PodFailurePolicy"
#define REASON_COMPLETIONS "CompletionsReached"
#define MESSAGE_COMPLETE   "Reached expected number of succeeded pods"
/* K8S: the Indexed Job's reasons (batch/v1 JobReasonMaxFailedIndexesExceeded,
 * JobReasonFailedIndexes, JobReasonSuccessPolicy) and their messages */
#define REASON_MAX_FAILED_INDEXES  "MaxFailedIndexesExceeded"
#define MESSAGE_MAX_FAILED_INDEXES "Job has exceeded the specified maximal number of failed indexes"
#define REASON_FAILED_INDEXES      "FailedIndexes"
#define MESSAGE_FAILED_INDEXES     "Job has failed indexes"
#define REASON_SUCCESS_POLICY      "SuccessPolicy"

enum { COL_JOBS, COL_PODS };

/* ---- the plan (pure) ---- */

static const json_t *condition(const json_t *status, const char *type)
{
        size_t i;
        json_t *c;

        json_array_foreach(json_object_get(status, "conditions"), i, c) {
                if (streq(json_path_string_or_empty(c, "type"), type) &&
                    streq(json_path_string_or_empty(c, "status"), "True"))
                        return c;
        }
        return NULL;
}

/* Sets condition type to status with reason and message, keeping lastTransitionTime when the
 * status does not change (K8S: ensureJobConditionStatus). */
static void set_condition(json_t *status, const char *type, const char *st, const char *reason,
                          const char *message, const char *now)
{
        json_t *conds = json_object_get(status, "conditions");
        size_t i;
        json_t *c;

        if (!json_is_array(conds)) {
                conds = json_array();
                json_object_set_new(status, "conditions", conds);
        }
        json_array_foreach(conds, i, c) {
                if (!streq(json_path_string_or_empty(c, "type"), type))
                        continue;
                if (!streq(json_path_string_or_empty(c, "status"), st)) {
                        json_object_set_new(c, "status", json_string(st));
                        json_object_set_new(c, "lastTransitionTime", json_string(now));
                }
                json_object_set_new(c, "lastProbeTime", json_string(now));
                json_object_set_new(c, "reason", json_string(reason));
                json_object_set_new(c, "message", json_string(message));
                return;
        }
        json_array_append_new(conds,
                              json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "type", type, "status",
                                        st, "lastProbeTime", now, "lastTransitionTime", now,
                                        "reason", reason, "message", message));
}

static bool has_finalizer(const json_t *pod)
{
        return json_array_has_string(json_path(pod, "metadata.finalizers"), JOB_TRACKING_FINALIZER);
}

static bool pod_ready(const json_t *pod)
{
        size_t i;
        json_t *c;

        json_array_foreach(json_path(pod, "status.conditions"), i, c) {
                if (streq(json_path_string_or_empty(c, "type"), "Ready"))
                        return streq(json_path_string_or_empty(c, "status"), "True");
        }
        return false;
}

/* K8S: pod_failure_policy.go matchOnExitCodes: the first terminated container (app containers,
 * then init containers) with a non-zero exit code the requirement selects. */
static const json_t *match_exit_codes(const json_t *pod, const json_t *req)
{
        const char *lists[] = { "status.containerStatuses", "status.initContainerStatuses" };
        const char *op = json_path_string_or_empty(req, "operator");
        const char *name = json_path_string(req, "containerName");
        size_t i, j;
        json_t *cs, *v;

        for (size_t l = 0; l < 2; l++) {
                json_array_foreach(json_path(pod, lists[l]), i, cs) {
                        const json_t *code = json_path(cs, "state.terminated.exitCode");
                        bool in = false;

                        if (!json_is_integer(code) || json_integer_value(code) == 0 ||
                            (name && !streq(name, json_path_string_or_empty(cs, "name"))))
                                continue;
                        json_array_foreach(json_object_get(req, "values"), j, v)
                                in |= json_integer_value(v) == json_integer_value(code);
                        if ((streq(op, "In") && in) || (streq(op, "NotIn") && !in))
                                return cs;
                }
        }
        return NULL;
}

/* K8S: matchPodFailurePolicy: the action of the first rule a failed pod matches (NULL: none,
 * the default Count), and for FailJob the message the Job's condition carries. */
static const char *failure_policy_action(const json_t *job, const json_t *pod, char **ret_message)
{
        const char *ns = json_path_string_or_empty(pod, "metadata.namespace");
        const char *name = json_path_string_or_empty(pod, "metadata.name");
        size_t i, j, k;
        json_t *rule, *pat, *c;

        *ret_message = NULL;
        json_array_foreach(json_path(job, "spec.podFailurePolicy.rules"), i, rule) {
                const char *action = json_path_string_or_empty(rule, "action");
                const json_t *req = json_object_get(rule, "onExitCodes");

                /* K8S: a rule with an action the controller does not know is skipped */
                if (!streq(action, "FailJob") && !streq(action, "Ignore") &&
                    !streq(action, "Count"))
                        continue;
                if (json_is_object(req)) {
                        const json_t *cs = match_exit_codes(pod, req);

                        if (cs) {
                                *ret_message = xasprintf(
                                        "Container %s for pod %s/%s failed with exit code %lld "
                                        "matching %s rule at index %zu",
                                        json_path_string_or_empty(cs, "name"), ns, name,
                                        (long long) json_integer_value(
                                                json_path(cs, "state.terminated.exitCode")),
                                        action, i);
                                return action;
                        }
                        continue;
                }
                json_array_foreach(json_object_get(rule, "onPodConditions"), j, pat) {
                        json_array_foreach(json_path(pod, "status.conditions"), k, c) {
                                if (streq(json_path_string_or_empty(c, "type"),
                                          json_path_string_or_empty(pat, "type")) &&
                                    streq(json_path_string_or_empty(c, "status"),
                                          json_path_string_or_empty(pat, "status"))) {
                                        *ret_message = xasprintf(
                                                "Pod %s/%s has condition %s matching %s rule at "
                                                "index %zu",
                                                ns, name, json_path_string_or_empty(c, "type"),
                                                action, i);
                                        return action;
                                }
                        }
                }
        }
        return NULL;
}

static int restart_count(const json_t *pod)
{
        const char *lists[] = { "status.containerStatuses", "status.initContainerStatuses" };
        int n = 0;
        size_t i;
        json_t *cs;

        for (size_t l = 0; l < 2; l++)
                json_array_foreach(json_path(pod, lists[l]), i, cs)
                        n += (int) json_integer_value(json_object_get(cs, "restartCount"));
        return n;
}

static void event(json_t *plan, const char *type, const char *reason, const char *message)
{
        json_array_append_new(
                json_object_get(plan, "events"),
                json_pack("{s:s, s:s, s:s}", "type", type, "reason", reason, "message", message));
}

static long long spec_int(const json_t *job, const char *key, long long dflt)
{
        const json_t *v = json_object_get(json_object_get(job, "spec"), key);

        return json_is_integer(v) ? json_integer_value(v) : dflt;
}

/* K8S: getCompletionIndex: the pod's index from its annotation (else its label), -1 when it
 * has none or it is not below completions. */
static int pod_index(const json_t *pod, long long completions)
{
        const char *s = json_string_value(
                json_object_get(json_path(pod, "metadata.annotations"), JOB_COMPLETION_INDEX_KEY));
        char *end;
        long v;

        if (!s)
                s = json_string_value(json_object_get(json_path(pod, "metadata.labels"),
                                                      JOB_COMPLETION_INDEX_KEY));
        if (!s || !*s || *s < '0' || *s > '9')
                return -1;
        v = strtol(s, &end, 10);
        if (*end || v < 0 || v >= completions || v > 1000000000)
                return -1;
        return (int) v;
}

static long long annotation_int(const json_t *pod, const char *key)
{
        const char *s =
                json_string_value(json_object_get(json_path(pod, "metadata.annotations"), key));

        return s ? strtoll(s, NULL, 10) : 0;
}

/* K8S: firstPendingIndexes: up to n of the lowest indexes neither done, failed nor active, each
 * as [index, failure count its new pod carries]. */
static json_t *pending_indexes(const struct job_index_set *done, const struct job_index_set *failed,
                               const struct job_index_set *active, long long completions,
                               long long n, const json_t *index_failures)
{
        json_t *out = json_array();

        for (long long i = 0; i < completions && (long long) json_array_size(out) < n; i++) {
                char k[24];

                if (job_index_set_contains(done, (int) i) ||
                    job_index_set_contains(failed, (int) i) ||
                    job_index_set_contains(active, (int) i))
                        continue;
                (void) snprintf(k, sizeof(k), "%lld", i);
                json_array_append_new(
                        out, json_pack("[I, I]", (json_int_t) i,
                                       json_integer_value(json_object_get(index_failures, k))));
        }
        return out;
}

/* K8S: matchSuccessPolicy: the first rule whose succeededIndexes (all of them, or
 * succeededCount of them) or succeededCount of all indexes succeeded; -1 when none. */
static int success_policy_match(const json_t *job, const struct job_index_set *done,
                                long long completions)
{
        size_t i;
        json_t *rule;

        json_array_foreach(json_path(job, "spec.successPolicy.rules"), i, rule) {
                const json_t *idx = json_object_get(rule, "succeededIndexes");
                const json_t *count = json_object_get(rule, "succeededCount");
                long long have = 0, want;

                if (json_is_string(idx)) {
                        struct job_index_set want_set;

                        job_index_set_parse(json_string_value(idx), (int) completions, &want_set);
                        for (size_t k = 0; k < want_set.n; k++)
                                for (int n = want_set.items[k].first; n <= want_set.items[k].last;
                                     n++)
                                        have += job_index_set_contains(done, n);
                        want = json_is_integer(count) ? json_integer_value(count)
                                                      : job_index_set_count(&want_set);
                        job_index_set_release(&want_set);
                } else if (json_is_integer(count)) {
                        have = job_index_set_count(done);
                        want = json_integer_value(count);
                } else {
                        continue;
                }
                if (have >= want)
                        return (int) i;
        }
        return -1;
}

json_t *job_plan(const json_t *job, const json_t *pods, time_t now, const struct job_backoff *b)
{
        json_t *plan = json_pack("{s:[], s:[], s:i, s:i, s:i, s:[]}", "removeFinalizers", "delete",
                                 "create", 0, "newSucceeded", 0, "newFailed", 0, "events");
        json_t *removals = json_object_get(plan, "removeFinalizers");
        json_t *deletions = json_object_get(plan, "delete");
        const json_t *old_status = json_object_get(job, "status");
        cleanup_json json_t *status =
                json_is_object(old_status) ? json_deep_copy(old_status) : json_object();
        cleanup_json json_t *unc_s = NULL, *unc_f = NULL, *new_s = json_array(),
                            *new_f = json_array(), *active = json_array();
        cleanup_free char *fail_message = NULL;
        const char *rp = json_path_string_or_empty(job, "spec.template.spec.restartPolicy");
        const char *managed = json_path_string(job, "spec.managedBy");
        bool only_failed =
                streq(json_path_string_or_empty(job, "spec.podReplacementPolicy"), "Failed");
        bool suspended = json_is_true(json_path(job, "spec.suspend"));
        long long parallelism = spec_int(job, "parallelism", 1);
        long long backoff_limit = spec_int(job, "backoffLimit", JOB_DEFAULT_BACKOFF_LIMIT);
        const json_t *completions = json_path(job, "spec.completions");
        long long succeeded, failed, terminating = 0, ready = 0, restarts = 0, want, have;
        const json_t *target;
        bool indexed = streq(json_path_string_or_empty(job, "spec.completionMode"), "Indexed");
        long long n_completions = json_integer_value(completions);
        const json_t *bpi = json_path(job, "spec.backoffLimitPerIndex");
        struct job_index_set done = { 0 }, failed_idx = { 0 }, active_idx = { 0 };
        cleanup_json json_t *index_failures = json_object();
        char ts[32];
        size_t i;
        json_t *pod;

        time_format_rfc3339(now, ts);
        /* K8S: a Job another controller manages is not ours */
        if (managed && !streq(managed, JOB_CONTROLLER_NAME))
                return plan;
        /* K8S: a Job on its way out (or finished) keeps no pod from going */
        if (json_path(job, "metadata.deletionTimestamp") || job_finished(job)) {
                json_array_foreach(pods, i, pod) {
                        if (has_finalizer(pod))
                                json_array_append(removals, pod);
                }
                return plan;
        }
        unc_s = json_is_array(json_path(status, "uncountedTerminatedPods.succeeded"))
                        ? json_deep_copy(json_path(status, "uncountedTerminatedPods.succeeded"))
                        : json_array();
        unc_f = json_is_array(json_path(status, "uncountedTerminatedPods.failed"))
                        ? json_deep_copy(json_path(status, "uncountedTerminatedPods.failed"))
                        : json_array();

        if (indexed) {
                job_index_set_parse(json_path_string(status, "completedIndexes"),
                                    (int) n_completions, &done);
                job_index_set_parse(json_path_string(status, "failedIndexes"), (int) n_completions,
                                    &failed_idx);
        }
        json_array_foreach(pods, i, pod) {
                const char *phase = json_path_string_or_empty(pod, "status.phase");
                const char *uid = json_path_string_or_empty(pod, "metadata.uid");
                bool deleting = json_path(pod, "metadata.deletionTimestamp") != NULL;
                bool fin = has_finalizer(pod);
                int idx = indexed ? pod_index(pod, n_completions) : -1;

                if (indexed && streq(phase, "Succeeded") && idx >= 0 &&
                    !job_index_set_contains(&failed_idx, idx))
                        job_index_set_add(&done, idx);
                /* K8S: backoffLimitPerIndex: a failed pod's index has failed once more than
                 * the count its pod carried; past the limit (or at a FailIndex rule) the
                 * index fails */
                if (indexed && json_is_integer(bpi) && idx >= 0 && streq(phase, "Failed")) {
                        cleanup_free char *k = xasprintf("%d", idx);
                        cleanup_free char *msg = NULL;
                        const char *action = failure_policy_action(job, pod, &msg);
                        long long count = annotation_int(pod, JOB_INDEX_FAILURE_COUNT_KEY) +
                                          (action && streq(action, "Ignore") ? 0 : 1);

                        if (count > json_integer_value(json_object_get(index_failures, k)))
                                json_object_set_new(index_failures, k, json_integer(count));
                        if ((count > json_integer_value(bpi) ||
                             (action && streq(action, "FailIndex"))) &&
                            !job_index_set_contains(&done, idx))
                                job_index_set_add(&failed_idx, idx);
                }

                if (streq(phase, "Succeeded")) {
                        if (fin && !json_array_has_string(unc_s, uid))
                                json_array_append_new(new_s, json_string(uid));
                        if (fin)
                                json_array_append(removals, pod);
                        continue;
                }
                /* K8S: isPodFailed: a deleted pod counts as failed unless only Failed pods
                 * are replaced */
                if (streq(phase, "Failed") || (!only_failed && deleting)) {
                        if (fin && !json_array_has_string(unc_f, uid)) {
                                cleanup_free char *msg = NULL;
                                const char *action = streq(phase, "Failed")
                                                             ? failure_policy_action(job, pod, &msg)
                                                             : NULL;

                                if (action && streq(action, "FailJob") && !fail_message)
                                        fail_message = TAKE_PTR(msg);
                                if (!action || !streq(action, "Ignore"))
                                        json_array_append_new(new_f, json_string(uid));
                        }
                        if (fin)
                                json_array_append(removals, pod);
                        if (deleting && !streq(phase, "Failed"))
                                terminating++;
                        continue;
                }
                if (deleting) {
                        terminating++;
                        continue;
                }
                /* K8S: an Indexed Job's pod without a valid index, of an index that is done
                 * or failed, or a second one of an index, is deleted */
                if (indexed && (idx < 0 || job_index_set_contains(&done, idx) ||
                                job_index_set_contains(&failed_idx, idx) ||
                                job_index_set_contains(&active_idx, idx))) {
                        json_array_append(deletions, pod);
                        continue;
                }
                if (indexed)
                        job_index_set_add(&active_idx, idx);
                json_array_append(active, pod);
                ready += pod_ready(pod);
                restarts += restart_count(pod);
        }
        json_object_set_new(plan, "newSucceeded",
                            json_integer((json_int_t) json_array_size(new_s)));
        json_object_set_new(plan, "newFailed", json_integer((json_int_t) json_array_size(new_f)));
        succeeded = json_integer_value(json_object_get(status, "succeeded")) +
                    (long long) (json_array_size(unc_s) + json_array_size(new_s));
        /* K8S: an Indexed Job's succeeded count is the number of its completed indexes */
        if (indexed)
                succeeded = job_index_set_count(&done);
        failed = json_integer_value(json_object_get(status, "failed")) +
                 (long long) (json_array_size(unc_f) + json_array_size(new_f));
        if (json_array_size(new_s) || json_array_size(new_f)) {
                json_t *interim = json_deep_copy(status);
                json_t *unc = json_object_ensure(interim, "uncountedTerminatedPods");

                json_array_extend(unc_s, new_s);
                json_array_extend(unc_f, new_f);
                json_object_set(unc, "succeeded", unc_s);
                json_object_set(unc, "failed", unc_f);
                if (!json_array_size(unc_s))
                        json_object_del(unc, "succeeded");
                if (!json_array_size(unc_f))
                        json_object_del(unc, "failed");
                json_object_set_new(plan, "interim", interim);
        }

        /* K8S: startTime is set when the Job first runs unsuspended, removed on suspension */
        if (suspended) {
                json_object_del(status, "startTime");
                if (!condition(status, "Suspended")) {
                        set_condition(status, "Suspended", "True", "JobSuspended", "Job suspended",
                                      ts);
                        event(plan, "Normal", "Suspended", "Job suspended");
                }
        } else {
                if (!json_object_get(status, "startTime"))
                        json_object_set_new(status, "startTime", json_string(ts));
                if (condition(status, "Suspended")) {
                        set_condition(status, "Suspended", "False", "JobResumed", "Job resumed",
                                      ts);
                        event(plan, "Normal", "Resumed", "Job resumed");
                }
        }

        target = condition(status, "FailureTarget");
        if (!target && !condition(status, "SuccessCriteriaMet") && !suspended) {
                time_t start = 0;
                long long deadline = spec_int(job, "activeDeadlineSeconds", -1);
                bool over_restarts =
                        streq(rp, "OnFailure") &&
                        (backoff_limit == 0 ? restarts > 0 : restarts >= backoff_limit);

                (void) time_parse_rfc3339(json_path_string_or_empty(status, "startTime"), &start);
                if (fail_message)
                        set_condition(status, "FailureTarget", "True", REASON_POLICY, fail_message,
                                      ts);
                else if (failed > backoff_limit || over_restarts)
                        set_condition(status, "FailureTarget", "True", REASON_BACKOFF,
                                      MESSAGE_BACKOFF, ts);
                else if (indexed && json_is_integer(bpi) &&
                         json_is_integer(json_path(job, "spec.maxFailedIndexes")) &&
                         job_index_set_count(&failed_idx) >
                                 json_integer_value(json_path(job, "spec.maxFailedIndexes")))
                        set_condition(status, "FailureTarget", "True", REASON_MAX_FAILED_INDEXES,
                                      MESSAGE_MAX_FAILED_INDEXES, ts);
                else if (indexed && job_index_set_count(&failed_idx) > 0 &&
                         job_index_set_count(&failed_idx) + job_index_set_count(&done) >=
                                 n_completions)
                        set_condition(status, "FailureTarget", "True", REASON_FAILED_INDEXES,
                                      MESSAGE_FAILED_INDEXES, ts);
                else if (deadline >= 0 && start && now - start >= deadline)
                        set_condition(status, "FailureTarget", "True", REASON_DEADLINE,
                                      MESSAGE_DEADLINE, ts);
                else if (indexed && success_policy_match(job, &done, n_completions) >= 0) {
                        cleanup_free char *m =
                                xasprintf("Matched rules at index %d",
                                          success_policy_match(job, &done, n_completions));
                        set_condition(status, "SuccessCriteriaMet", "True", REASON_SUCCESS_POLICY,
                                      m, ts);
                } else if (json_is_integer(completions)
                                   ? succeeded >= json_integer_value(completions)
                                   : succeeded > 0 && json_array_size(active) == 0)
                        set_condition(status, "SuccessCriteriaMet", "True", REASON_COMPLETIONS,
                                      MESSAGE_COMPLETE, ts);
                else if (deadline >= 0 && start)
                        json_object_set_new(
                                plan, "requeueMs",
                                json_integer((json_int_t) (start + deadline - now) * 1000));
        }
        target = condition(status, "FailureTarget");
        if (target || condition(status, "SuccessCriteriaMet") || suspended) {
                /* K8S: a Job that is done (or suspended) deletes its active pods, and ends only
                 * once none is left running or terminating */
                json_array_extend(deletions, active);
                if (!suspended && json_array_size(active) == 0 && terminating == 0 &&
                    !json_array_size(removals)) {
                        if (target) {
                                const char *reason = json_path_string_or_empty(target, "reason");
                                const char *msg = json_path_string_or_empty(target, "message");

                                set_condition(status, "Failed", "True", reason, msg, ts);
                                event(plan, "Warning", reason, msg);
                        } else {
                                const json_t *met = condition(status, "SuccessCriteriaMet");

                                /* K8S: Complete takes SuccessCriteriaMet's reason and message */
                                set_condition(status, "Complete", "True",
                                              met ? json_path_string_or_empty(met, "reason")
                                                  : REASON_COMPLETIONS,
                                              met ? json_path_string_or_empty(met, "message")
                                                  : MESSAGE_COMPLETE,
                                              ts);
                                json_object_set_new(status, "completionTime", json_string(ts));
                                event(plan, "Normal", "Completed", "Job completed");
                        }
                }
                json_object_set_new(status, "active", json_integer(0));
                json_object_set_new(status, "ready", json_integer(0));
        } else {
                want = json_is_integer(completions) ? json_integer_value(completions) - succeeded
                                                    : (succeeded > 0 ? 0 : parallelism);
                if (want > parallelism)
                        want = parallelism;
                if (want < 0)
                        want = 0;
                have = (long long) json_array_size(active) + (only_failed ? terminating : 0);
                if (have < want) {
                        /* K8S: backoff_utils.go: 10 s doubling per failure since the last
                         * success, up to the maximum */
                        long long delay = 0;

                        if (b && b->failures > 0 && !json_array_size(new_s)) {
                                delay = FAILURE_BACKOFF_S;
                                for (int k = 1; k < b->failures && delay < FAILURE_BACKOFF_MAX_S;
                                     k++)
                                        delay *= 2;
                                if (delay > FAILURE_BACKOFF_MAX_S)
                                        delay = FAILURE_BACKOFF_MAX_S;
                                delay = b->last_failure + delay - now;
                        }
                        if (json_array_size(new_f) && delay <= 0)
                                delay = FAILURE_BACKOFF_S;
                        if (delay > 0)
                                json_object_set_new(plan, "requeueMs",
                                                    json_integer((json_int_t) delay * 1000));
                        else if (!indexed)
                                json_object_set_new(plan, "create",
                                                    json_integer((json_int_t) (want - have)));
                        else
                                json_object_set_new(plan, "createIndexes",
                                                    pending_indexes(&done, &failed_idx, &active_idx,
                                                                    n_completions,
                                                                    parallelism - have,
                                                                    index_failures));
                } else if ((long long) json_array_size(active) > want) {
                        for (long long k = want; k < (long long) json_array_size(active); k++)
                                json_array_append(deletions, json_array_get(active, (size_t) k));
                }
                json_object_set_new(status, "active",
                                    json_integer((json_int_t) json_array_size(active)));
                json_object_set_new(status, "ready", json_integer((json_int_t) ready));
        }
        json_object_set_new(status, "succeeded", json_integer((json_int_t) succeeded));
        json_object_set_new(status, "failed", json_integer((json_int_t) failed));
        if (indexed) {
                char *d = job_index_set_format(&done);

                json_object_set_new(status, "completedIndexes", json_string(d));
                free(d);
                if (!job_index_set_count(&done))
                        json_object_del(status, "completedIndexes");
                /* K8S: failedIndexes is set (possibly "") exactly with backoffLimitPerIndex */
                if (json_is_integer(bpi)) {
                        d = job_index_set_format(&failed_idx);
                        json_object_set_new(status, "failedIndexes", json_string(d));
                        free(d);
                }
        }
        job_index_set_release(&done);
        job_index_set_release(&failed_idx);
        job_index_set_release(&active_idx);
        json_object_set_new(status, "terminating", json_integer((json_int_t) terminating));
        json_object_set_new(status, "uncountedTerminatedPods", json_object());
        if (!succeeded)
                json_object_del(status, "succeeded");
        if (!failed)
                json_object_del(status, "failed");
        if (!json_integer_value(json_object_get(status, "active")))
                json_object_del(status, "active");
        if (!json_is_object(old_status) || !json_equal(status, old_status) ||
            json_object_get(plan, "interim"))
                json_object_set(plan, "status", status);
        return plan;
}

int job_ttl_left(const json_t *job, time_t now, long long *ret_left)
{
        const json_t *ttl = json_path(job, "spec.ttlSecondsAfterFinished");
        const json_t *c = condition(json_object_get(job, "status"), "Complete");
        time_t finished;

        if (!c)
                c = condition(json_object_get(job, "status"), "Failed");
        if (!json_is_integer(ttl) || !c ||
            time_parse_rfc3339(json_path_string_or_empty(c, "lastTransitionTime"), &finished) < 0)
                return -ENOENT;
        *ret_left = (long long) finished + json_integer_value(ttl) - (long long) now;
        return 0;
}

/* ---- the controller ---- */

struct ttl_controller {
        struct controller_loop loop;
};

struct job_controller {
        struct controller_loop loop;
        json_t *backoff;            /* job uid -> [failures, last failure] */
        json_t *untracked;          /* pod uid -> true: finalizer removed, cache may lag */
        struct ttl_controller *ttl; /* the TTL-after-finished controller beside it */
};

static char *job_path(const json_t *job, const char *suffix)
{
        return xasprintf("/apis/batch/v1/namespaces/%s/jobs/%s%s",
                         json_path_string_or_empty(job, "metadata.namespace"),
                         json_path_string_or_empty(job, "metadata.name"), suffix);
}

static char *pod_path(const json_t *pod)
{
        return xasprintf("/api/v1/namespaces/%s/pods/%s",
                         json_path_string_or_empty(pod, "metadata.namespace"),
                         json_path_string_or_empty(pod, "metadata.name"));
}

/* PUT jobs/NAME/status with status on job's version: the new Job, or NULL (a conflict waits
 * for the pass the change triggers). */
static json_t *write_status(struct job_controller *x, const json_t *job, const json_t *status)
{
        cleanup_json json_t *body = json_deep_copy(job);
        cleanup_free char *path = job_path(job, "/status");
        cleanup_free char *text = NULL;
        cleanup_error struct error *err = NULL;
        json_t *answer = NULL;
        long code = 0;

        json_object_set(body, "status", (json_t *) status);
        text = json_dump_compact(body);
        if (api_client_request(x->loop.client, "PUT", path, "application/json", text, strlen(text),
                               &code, &answer, &err) < 0 ||
            code != 200) {
                json_decref(answer);
                return NULL;
        }
        informer_store(x->loop.watch, COL_JOBS, answer);
        return answer;
}

/* A merge patch of the pod's finalizers without the tracking one, on the version seen. The
 * pod is remembered as untracked until the cache shows it so: a pass that read the Job's new
 * counters with the pod still tracked would count it twice (K8S: the controller's finalizer
 * expectations). */
static int remove_tracking_finalizer(struct job_controller *x, const json_t *pod)
{
        cleanup_json json_t *left = json_array(), *patch = NULL, *answer = NULL;
        cleanup_free char *path = pod_path(pod), *text = NULL;
        cleanup_error struct error *err = NULL;
        long code = 0;
        size_t i;
        json_t *f;

        json_array_foreach(json_path(pod, "metadata.finalizers"), i, f) {
                if (!streq(json_string_value(f) ?: "", JOB_TRACKING_FINALIZER))
                        json_array_append(left, f);
        }
        patch = json_pack("{s:{s:s, s:O}}", "metadata", "resourceVersion",
                          json_path_string_or_empty(pod, "metadata.resourceVersion"), "finalizers",
                          json_array_size(left) ? left : json_null());
        text = json_dump_compact(patch);
        if (api_client_request(x->loop.client, "PATCH", path, "application/merge-patch+json", text,
                               strlen(text), &code, &answer, &err) < 0)
                return -EIO;
        if (code == 409)
                controller_loop_pass_within(&x->loop, CONTROLLER_CONFLICT_RETRY_MS);
        if (code != 200 && code != 404)
                return -EAGAIN;
        json_object_set_new(x->untracked, json_path_string_or_empty(pod, "metadata.uid"),
                            json_true());
        /* a pod this write removed is not put back (its DELETED event may be in already) */
        if (code == 200 && answer && json_array_size(json_path(answer, "metadata.finalizers")))
                informer_store(x->loop.watch, COL_PODS, answer);
        return 0;
}

/* K8S: GetPodFromTemplate: the template's labels, annotations and spec, named after the Job,
 * owned by it and tracked by its finalizer. */
/* K8S: addCompletionIndexEnvVariables: JOB_COMPLETION_INDEX from the index annotation, in every
 * container and init container that does not set it. */
static void add_index_env(json_t *spec)
{
        static const char *const lists[] = { "containers", "initContainers" };

        for (size_t l = 0; l < 2; l++) {
                size_t i, j;
                json_t *c, *e;

                json_array_foreach(json_object_get(spec, lists[l]), i, c) {
                        json_t *env = json_object_get(c, "env");
                        bool have = false;

                        if (!json_is_array(env)) {
                                env = json_array();
                                json_object_set_new(c, "env", env);
                        }
                        json_array_foreach(env, j, e) {
                                have |= streq(json_path_string_or_empty(e, "name"),
                                              JOB_COMPLETION_INDEX_ENV_VAR);
                        }
                        if (!have)
                                json_array_append_new(
                                        env,
                                        json_pack("{s:s, s:{s:{s:s}}}", "name",
                                                  JOB_COMPLETION_INDEX_ENV_VAR, "valueFrom",
                                                  "fieldRef", "fieldPath",
                                                  "metadata.annotations['" JOB_COMPLETION_INDEX_KEY
                                                  "']"));
                }
        }
}

/* Creates one pod of job; index < 0 for a NonIndexed Job, else the completion index and the
 * failure count its pod carries (K8S: podGenerateNameWithIndex, addCompletionIndexAnnotation,
 * addCompletionIndexLabel, the hostname "<job>-<index>", addIndexFailureCountAnnotation). */
static void create_pod(struct job_controller *x, const json_t *job, long long index,
                       long long failures)
{
        const json_t *tmpl = json_path(job, "spec.template");
        const char *job_name = json_path_string_or_empty(job, "metadata.name");
        cleanup_free char *idx = index >= 0 ? xasprintf("%lld", index) : NULL;
        cleanup_free char *prefix =
                idx ? xasprintf("%.*s-%s-", (int) (61 - (int) strlen(idx)), job_name, idx)
                    : xasprintf("%.57s-", job_name);
        cleanup_free char *path = xasprintf("/api/v1/namespaces/%s/pods",
                                            json_path_string_or_empty(job, "metadata.namespace"));
        cleanup_json json_t *pod = json_pack(
                "{s:s, s:s, s:{s:s, s:s, s:[{s:s, s:s, s:s, s:s, s:b, s:b}], s:[s]}, s:O}",
                "apiVersion", "v1", "kind", "Pod", "metadata", "generateName", prefix, "namespace",
                json_path_string_or_empty(job, "metadata.namespace"), "ownerReferences",
                "apiVersion", "batch/v1", "kind", "Job", "name",
                json_path_string_or_empty(job, "metadata.name"), "uid",
                json_path_string_or_empty(job, "metadata.uid"), "controller", 1,
                "blockOwnerDeletion", 1, "finalizers", JOB_TRACKING_FINALIZER, "spec",
                json_object_get(tmpl, "spec") ?: json_null());
        cleanup_free char *text = NULL;
        cleanup_error struct error *err = NULL;
        cleanup_json json_t *answer = NULL;
        long code = 0;
        json_t *meta = json_object_get(pod, "metadata");

        if (json_path(tmpl, "metadata.labels"))
                json_object_set_new(meta, "labels",
                                    json_deep_copy(json_path(tmpl, "metadata.labels")));
        if (json_path(tmpl, "metadata.annotations"))
                json_object_set_new(meta, "annotations",
                                    json_deep_copy(json_path(tmpl, "metadata.annotations")));
        if (idx) {
                json_t *spec = json_deep_copy(json_object_get(pod, "spec"));
                cleanup_free char *host = xasprintf("%s-%s", job_name, idx);

                json_object_set_new(json_object_ensure(meta, "annotations"),
                                    JOB_COMPLETION_INDEX_KEY, json_string(idx));
                json_object_set_new(json_object_ensure(meta, "labels"), JOB_COMPLETION_INDEX_KEY,
                                    json_string(idx));
                if (json_is_integer(json_path(job, "spec.backoffLimitPerIndex"))) {
                        cleanup_free char *f = xasprintf("%lld", failures);
                        json_object_set_new(json_object_get(meta, "annotations"),
                                            JOB_INDEX_FAILURE_COUNT_KEY, json_string(f));
                }
                json_object_set_new(spec, "hostname", json_string(host));
                add_index_env(spec);
                json_object_set_new(pod, "spec", spec);
        }
        text = json_dump_compact(pod);
        if (api_client_request(x->loop.client, "POST", path, "application/json", text, strlen(text),
                               &code, &answer, &err) == 0 &&
            code == 201 && answer) {
                cleanup_free char *msg = xasprintf(
                        "Created pod: %s", json_path_string_or_empty(answer, "metadata.name"));

                informer_store(x->loop.watch, COL_PODS, answer);
                (void) api_client_event(x->loop.client, job, "Normal", "SuccessfulCreate", msg,
                                        EVENT_COMPONENT, NULL, NULL);
        } else if (answer) {
                cleanup_free char *msg = xasprintf("Error creating: %s",
                                                   json_path_string_or_empty(answer, "message"));

                (void) api_client_event(x->loop.client, job, "Warning", "FailedCreate", msg,
                                        EVENT_COMPONENT, NULL, NULL);
        }
}

static void delete_pod(struct job_controller *x, const json_t *job, const json_t *pod)
{
        cleanup_free char *path = pod_path(pod);
        cleanup_error struct error *err = NULL;
        long code = 0;

        if (json_path(pod, "metadata.deletionTimestamp"))
                return;
        if (api_client_request(x->loop.client, "DELETE", path, NULL, NULL, 0, &code, NULL, &err) ==
                    0 &&
            code == 200) {
                cleanup_free char *msg = xasprintf("Deleted pod: %s",
                                                   json_path_string_or_empty(pod, "metadata.name"));

                (void) api_client_event(x->loop.client, job, "Normal", "SuccessfulDelete", msg,
                                        EVENT_COMPONENT, NULL, NULL);
        }
}

static void note_backoff(struct job_controller *x, const char *uid, const json_t *plan, time_t now,
                         struct job_backoff *b)
{
        json_t *rec = json_object_get(x->backoff, uid);

        b->failures = (int) json_integer_value(json_array_get(rec, 0));
        b->last_failure = (time_t) json_integer_value(json_array_get(rec, 1));
        if (!plan)
                return;
        if (json_integer_value(json_object_get(plan, "newSucceeded")) > 0) {
                json_object_del(x->backoff, uid);
                return;
        }
        if (json_integer_value(json_object_get(plan, "newFailed")) > 0)
                json_object_set_new(
                        x->backoff, uid,
                        json_pack("[I, I]",
                                  (json_int_t) (b->failures + json_integer_value(json_object_get(
                                                                      plan, "newFailed"))),
                                  (json_int_t) now));
}

static void sync_job(struct job_controller *x, const json_t *job, const json_t *pods, time_t now)
{
        const char *uid = json_path_string_or_empty(job, "metadata.uid");
        struct job_backoff b;
        cleanup_json json_t *plan = NULL, *written = NULL;
        const json_t *cur = job;
        bool removed_all = true;
        size_t i;
        json_t *v;
        long long requeue;

        note_backoff(x, uid, NULL, now, &b);
        plan = job_plan(job, pods, now, &b);
        if (json_object_get(plan, "interim")) {
                written = write_status(x, job, json_object_get(plan, "interim"));
                if (!written)
                        return;
                cur = written;
                note_backoff(x, uid, plan, now, &b);
        }
        json_array_foreach(json_object_get(plan, "removeFinalizers"), i, v)
                removed_all &= remove_tracking_finalizer(x, v) == 0;
        if (removed_all && json_object_get(plan, "status")) {
                json_t *again = write_status(x, cur, json_object_get(plan, "status"));

                if (!again)
                        return;
                json_decref(again); /* write_status stored it in the cache */
                json_array_foreach(json_object_get(plan, "events"), i, v)
                        (void) api_client_event(x->loop.client, job,
                                                json_path_string_or_empty(v, "type"),
                                                json_path_string_or_empty(v, "reason"),
                                                json_path_string_or_empty(v, "message"),
                                                EVENT_COMPONENT, NULL, NULL);
        }
        json_array_foreach(json_object_get(plan, "delete"), i, v)
                delete_pod(x, job, v);
        for (json_int_t n = json_integer_value(json_object_get(plan, "create")); n > 0; n--)
                create_pod(x, job, -1, 0);
        json_array_foreach(json_object_get(plan, "createIndexes"), i, v)
                create_pod(x, job, json_integer_value(json_array_get(v, 0)),
                           json_integer_value(json_array_get(v, 1)));
        requeue = json_integer_value(json_object_get(plan, "requeueMs"));
        if (requeue > 0)
                controller_loop_pass_within(&x->loop, (long) requeue + 100);
}

/* K8S: syncOrphanPod: a tracked pod whose Job is gone (or is not its controller any more)
 * loses the finalizer. */
static bool orphaned(const json_t *pod, const json_t *jobs)
{
        const json_t *ref = owner_controller_of(pod);
        cleanup_free char *key = NULL;
        const json_t *job;

        if (!ref || !streq(json_path_string_or_empty(ref, "kind"), "Job") ||
            strncmp(json_path_string_or_empty(ref, "apiVersion"), "batch/", 6) != 0)
                return true;
        key = xasprintf("%s/%s", json_path_string_or_empty(pod, "metadata.namespace"),
                        json_path_string_or_empty(ref, "name"));
        job = json_object_get(jobs, key);
        return !job || !streq(json_path_string_or_empty(job, "metadata.uid"),
                              json_path_string_or_empty(ref, "uid"));
}

static void job_pass(void *ctx)
{
        struct job_controller *x = ctx;
        cleanup_json json_t *jobs = informer_snapshot(x->loop.watch, COL_JOBS);
        cleanup_json json_t *pods = informer_snapshot(x->loop.watch, COL_PODS);
        cleanup_json json_t *owned = json_object();
        time_t now = time(NULL);
        const char *key;
        json_t *obj, *list;

        /* the pods of each Job: those it controls (K8S: getPodsForJob; a Job's selector holds
         * its own uid, so adopting orphans would find none of another's) */
        /* K8S: finalizer expectations: a pod whose finalizer this controller removed is seen
         * without it until the cache catches up */
        {
                void *tmp;
                json_t *seen;

                json_object_foreach_safe(x->untracked, tmp, key, seen)
                {
                        bool tracked = false;
                        const char *k2;
                        json_t *p;

                        json_object_foreach(pods, k2, p) {
                                if (streq(json_path_string_or_empty(p, "metadata.uid"), key))
                                        tracked = has_finalizer(p);
                        }
                        if (!tracked)
                                json_object_del(x->untracked, key);
                }
                json_object_foreach(pods, key, obj) {
                        if (has_finalizer(obj) &&
                            json_object_get(x->untracked,
                                            json_path_string_or_empty(obj, "metadata.uid"))) {
                                json_t *copy = json_deep_copy(obj);

                                json_object_del(json_object_get(copy, "metadata"), "finalizers");
                                json_object_set_new(pods, key, copy);
                        }
                }
        }
        json_object_foreach(pods, key, obj) {
                const json_t *ref = owner_controller_of(obj);

                if (has_finalizer(obj) && orphaned(obj, jobs)) {
                        (void) remove_tracking_finalizer(x, obj);
                        continue;
                }
                if (!ref || !streq(json_path_string_or_empty(ref, "kind"), "Job"))
                        continue;
                list = json_object_get(owned, json_path_string_or_empty(ref, "uid"));
                if (!list) {
                        list = json_array();
                        json_object_set_new(owned, json_path_string_or_empty(ref, "uid"), list);
                }
                json_array_append(list, obj);
        }
        json_object_foreach(jobs, key, obj) {
                cleanup_json json_t *none = json_array();
                const json_t *mine =
                        json_object_get(owned, json_path_string_or_empty(obj, "metadata.uid"));

                sync_job(x, obj, mine ? mine : none, now);
        }
        /* forget the backoff of Jobs that are gone */
        {
                void *tmp;

                json_object_foreach_safe(x->backoff, tmp, key, obj)
                {
                        bool found = false;
                        const char *k2;
                        json_t *j;

                        json_object_foreach(jobs, k2, j)
                                found |= streq(json_path_string_or_empty(j, "metadata.uid"), key);
                        if (!found)
                                json_object_del(x->backoff, key);
                }
        }
}

/* ---- TTL after finished ---- */

static void ttl_pass(void *ctx)
{
        struct ttl_controller *x = ctx;
        cleanup_json json_t *jobs = informer_snapshot(x->loop.watch, 0);
        time_t now = time(NULL);
        const char *key;
        json_t *job;

        json_object_foreach(jobs, key, job) {
                long long left = 0;

                if (job_ttl_left(job, now, &left) < 0 ||
                    json_path(job, "metadata.deletionTimestamp"))
                        continue;
                if (left <= 0) {
                        /* K8S: ttlafterfinished processJob: deleted in the foreground, with the
                         * uid as precondition */
                        cleanup_free char *path = job_path(job, "");
                        cleanup_json json_t *opts = json_pack(
                                "{s:s, s:s, s:s, s:{s:s}}", "kind", "DeleteOptions", "apiVersion",
                                "v1", "propagationPolicy", "Foreground", "preconditions", "uid",
                                json_path_string_or_empty(job, "metadata.uid"));
                        cleanup_free char *text = json_dump_compact(opts);
                        cleanup_error struct error *err = NULL;
                        long code = 0;

                        (void) api_client_request(x->loop.client, "DELETE", path, NULL, text,
                                                  strlen(text), &code, NULL, &err);
                } else {
                        controller_loop_pass_within(&x->loop, (long) (left * 1000 + 100));
                }
        }
}

static void ttl_release(void *ctx)
{
        free(ctx);
}

/* ---- both ---- */

static void job_release(void *ctx)
{
        struct job_controller *x = ctx;

        json_decref(x->backoff);
        json_decref(x->untracked);
        free(x);
}

int job_controller_start(const struct api_client_options *o, const struct api_client_options *ttl_o,
                         struct job_controller **ret, struct error **reterr)
{
        static const char *const paths[] = {
                [COL_JOBS] = "/apis/batch/v1/jobs", [COL_PODS] = "/api/v1/pods", NULL
        };
        static const informer_relevant_fn relevant[ARRAY_SIZE(paths) - 1] = {
                [COL_PODS] = relevance_pod_job
        };
        static const char *const ttl_paths[] = { "/apis/batch/v1/jobs", NULL };
        const struct controller_loop_def def = { .name = "job",
                                                 .paths = paths,
                                                 .relevant = relevant,
                                                 .period_ms = PASS_PERIOD_MS,
                                                 .pass = job_pass,
                                                 .release = job_release };
        const struct controller_loop_def ttl_def = { .name = "ttl-after-fin",
                                                     .paths = ttl_paths,
                                                     .period_ms = PASS_PERIOD_MS,
                                                     .pass = ttl_pass,
                                                     .release = ttl_release };
        struct job_controller *x = xcalloc(1, sizeof(*x));
        struct ttl_controller *t = xcalloc(1, sizeof(*t));
        int r;

        x->backoff = json_object();
        x->untracked = json_object();
        r = controller_loop_start(o, &def, x, &x->loop, reterr);
        if (r < 0) {
                job_release(x);
                free(t);
                return r;
        }
        r = controller_loop_start(ttl_o ? ttl_o : o, &ttl_def, t, &t->loop, reterr);
        if (r < 0) {
                controller_loop_stop(&x->loop);
                free(t);
                return r;
        }
        x->ttl = t;
        *ret = x;
        return 0;
}

struct job_controller *job_controller_stop(struct job_controller *x)
{
        if (x) {
                controller_loop_stop(&x->ttl->loop);
                controller_loop_stop(&x->loop);
        }
        return NULL;
}
