/* job.h: batch/v1 Job's names, defaults and validation (api/validation-batch.c), which the API
 * server's strategy and the Job controller share. Pure functions over JSON objects. */
#ifndef FLEXLET_API_JOB_H
#define FLEXLET_API_JOB_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "api/field-error.h"

/* K8S: batch/v1 types.go: the labels a Job's pods carry (the legacy ones too) and the
 * finalizer by which the controller tracks them until counted. */
#define JOB_NAME_LABEL            "batch.kubernetes.io/job-name"
#define JOB_LEGACY_NAME_LABEL     "job-name"
#define JOB_CONTROLLER_UID_LABEL  "batch.kubernetes.io/controller-uid"
#define JOB_LEGACY_CONTROLLER_UID "controller-uid"
#define JOB_TRACKING_FINALIZER    "batch.kubernetes.io/job-tracking"
#define JOB_CONTROLLER_NAME       "kubernetes.io/job-controller"
#define JOB_DEFAULT_BACKOFF_LIMIT 6

/* K8S: SetDefaults_Job (batch/v1 defaults.go) and the template's SetDefaults_PodSpec. */
void job_set_defaults(json_t *job);
/* K8S: jobStrategy.PrepareForCreate's generateSelector: unless spec.manualSelector, the
 * template gets the job-name and controller-uid labels (both spellings, where not set) and the
 * selector matchLabels batch.kubernetes.io/controller-uid = the Job's uid. Call once the uid
 * is set. */
void job_generate_selector(json_t *job);

/* K8S: ValidateJob (meta: with the object's metadata, as on create), ValidateJobUpdate (the
 * selector, template, completionMode and podFailurePolicy immutable) and
 * ValidateJobUpdateStatus. Errors with upstream's paths and messages. */
size_t validate_job(const json_t *job, bool meta, struct field_error_list *errs);
size_t validate_job_update(const json_t *new_job, const json_t *old_job,
                           struct field_error_list *errs);
size_t validate_job_status_update(const json_t *new_job, const json_t *old_job,
                                  struct field_error_list *errs);

/* Whether the Job has a condition of type with status "True". */
bool job_has_condition(const json_t *job, const char *type);
/* K8S: IsJobFinished: a Complete or Failed condition that is True. */
bool job_finished(const json_t *job);

#endif
