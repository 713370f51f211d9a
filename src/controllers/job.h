/* job.h: the Job controller and the TTL-after-finished controller (K8S: pkg/controller/job,
 * pkg/controller/ttlafterfinished), NonIndexed and Indexed Jobs (an Indexed Job's pods carry
 * their completion index in an annotation, a label, their hostname and JOB_COMPLETION_INDEX;
 * completedIndexes and failedIndexes in status; backoffLimitPerIndex, maxFailedIndexes and
 * successPolicy as 1.32).
 *
 * The Job controller keeps min(parallelism, completions - succeeded) pods running from the
 * template, each owned by the Job (controller, blockOwnerDeletion) and carrying the
 * batch.kubernetes.io/job-tracking finalizer until it is counted: a finished pod's uid goes to
 * status.uncountedTerminatedPods, its finalizer comes off, then the counters take it, so no
 * pod is counted twice or lost across a restart. A failed pod is matched against the pod
 * failure policy (FailJob, Ignore, Count) and counts against backoffLimit; a new pod after
 * failures waits 10 s doubling per failure up to 10 min. The Job ends as 1.32 ends it: first
 * the FailureTarget (BackoffLimitExceeded, DeadlineExceeded, PodFailurePolicy) or
 * SuccessCriteriaMet (CompletionsReached) condition, its active pods deleted, then Failed or
 * Complete (with completionTime) once no pod is left running or terminating. Suspended Jobs
 * have their pods deleted. A Job managed by another controller (spec.managedBy) is left alone;
 * pods whose Job is gone or being deleted lose their finalizer.
 *
 * The TTL controller deletes a finished Job (Foreground, so its pods go first)
 * ttlSecondsAfterFinished after its Complete or Failed condition. */
#ifndef FLEXLET_CONTROLLERS_JOB_H
#define FLEXLET_CONTROLLERS_JOB_H

#include <jansson.h>
#include <time.h>

#include "base/error.h"
#include "client/client.h"

/* The controller's memory of a Job's failures since its last success (K8S: backoffRecord). */
struct job_backoff {
        int failures;
        time_t last_failure;
};

/* The plan for one Job given the pods it owns (array) at now: a new object
 *   {"interim": status or absent, "status": status or absent (unchanged),
 *    "removeFinalizers": [pod...], "delete": [pod...], "create": n (NonIndexed),
 *    "createIndexes": [[index, failure count]...] (Indexed), "requeueMs": ms,
 *    "newSucceeded": n, "newFailed": n, "events": [{type, reason, message}...]}
 * interim (the uids of newly finished pods in uncountedTerminatedPods) is written before the
 * finalizers come off, status after. */
json_t *job_plan(const json_t *job, const json_t *pods, time_t now, const struct job_backoff *b);

/* K8S: ttlafterfinished timeLeft: *ret_left the seconds until a finished Job with
 * ttlSecondsAfterFinished expires (<= 0: it has), from its Complete or Failed condition's
 * lastTransitionTime; -ENOENT for a Job that is not finished or has no TTL. */
int job_ttl_left(const json_t *job, time_t now, long long *ret_left);

struct job_controller;

/* Starts the Job controller with o and the TTL-after-finished controller with ttl_o (NULL: o;
 * K8S: two controllers, job-controller and ttl-after-finished-controller, each with its own
 * service account). */
int job_controller_start(const struct api_client_options *o, const struct api_client_options *ttl_o,
                         struct job_controller **ret, struct error **reterr);
/* Stops them; NULL-safe, returns NULL. */
struct job_controller *job_controller_stop(struct job_controller *x);

#endif
