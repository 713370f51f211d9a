/* schema-batch.c: batch/v1 Job: a pod template run to a number of completions. Field names,
 * protobuf numbers and Go declarations follow k8s.io/api batch/v1 types.go and generated.proto
 * (release-1.32). */
#include "api/schemas.h"

/* batch/v1 PodFailurePolicyOnExitCodesRequirement */
/* clang-format off */
static const struct schema_field on_exit_codes_fields[] = {
        { "containerName", &schema_string, 1, SCHEMA_GO_POINTER },
        { "operator", &schema_string, 2, SCHEMA_GO_ALWAYS },
        { "values", SCHEMA_SET_LIST(&schema_int32), 3, SCHEMA_GO_ALWAYS },
        SCHEMA_FIELDS_END,
};
/* batch/v1 PodFailurePolicyOnPodConditionsPattern */
static const struct schema_field on_pod_conditions_fields[] = {
        { "type", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "status", &schema_condition_status, 2, SCHEMA_GO_ALWAYS },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_on_exit_codes =
        SCHEMA_STRUCT("PodFailurePolicyOnExitCodesRequirement", on_exit_codes_fields);
static const struct schema schema_on_pod_conditions =
        SCHEMA_STRUCT("PodFailurePolicyOnPodConditionsPattern", on_pod_conditions_fields);

/* batch/v1 PodFailurePolicyRule and PodFailurePolicy (rules and patterns: listType=atomic) */
/* clang-format off */
static const struct schema_field pod_failure_rule_fields[] = {
        { "action", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "onExitCodes", &schema_on_exit_codes, 2, SCHEMA_GO_POINTER },
        { "onPodConditions", SCHEMA_ATOMIC_LIST(&schema_on_pod_conditions), 3, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_pod_failure_rule =
        SCHEMA_STRUCT("PodFailurePolicyRule", pod_failure_rule_fields);
/* clang-format off */
static const struct schema_field pod_failure_policy_fields[] = {
        { "rules", SCHEMA_ATOMIC_LIST(&schema_pod_failure_rule), 1, SCHEMA_GO_ALWAYS },
        SCHEMA_FIELDS_END,
};
/* batch/v1 SuccessPolicyRule and SuccessPolicy */
static const struct schema_field success_rule_fields[] = {
        { "succeededIndexes", &schema_string, 1, SCHEMA_GO_POINTER },
        { "succeededCount", &schema_int32, 2, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_pod_failure_policy =
        SCHEMA_STRUCT("PodFailurePolicy", pod_failure_policy_fields);
static const struct schema schema_success_rule =
        SCHEMA_STRUCT("SuccessPolicyRule", success_rule_fields);
/* clang-format off */
static const struct schema_field success_policy_fields[] = {
        { "rules", SCHEMA_ATOMIC_LIST(&schema_success_rule), 1, SCHEMA_GO_ALWAYS },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_success_policy =
        SCHEMA_STRUCT("SuccessPolicy", success_policy_fields);

/* batch/v1 JobSpec */
/* clang-format off */
static const struct schema_field job_spec_fields[] = {
        { "parallelism", &schema_int32, 1, SCHEMA_GO_POINTER },
        { "completions", &schema_int32, 2, SCHEMA_GO_POINTER },
        { "activeDeadlineSeconds", &schema_int64, 3, SCHEMA_GO_POINTER },
        { "podFailurePolicy", &schema_pod_failure_policy, 11, SCHEMA_GO_POINTER },
        { "successPolicy", &schema_success_policy, 16, SCHEMA_GO_POINTER },
        { "backoffLimit", &schema_int32, 7, SCHEMA_GO_POINTER },
        { "backoffLimitPerIndex", &schema_int32, 12, SCHEMA_GO_POINTER },
        { "maxFailedIndexes", &schema_int32, 13, SCHEMA_GO_POINTER },
        { "selector", &schema_label_selector, 4, SCHEMA_GO_POINTER },
        { "manualSelector", &schema_bool, 5, SCHEMA_GO_POINTER },
        { "template", &schema_pod_template_spec, 6, SCHEMA_GO_ALWAYS },
        { "ttlSecondsAfterFinished", &schema_int32, 8, SCHEMA_GO_POINTER },
        { "completionMode", &schema_string, 9, SCHEMA_GO_POINTER },
        { "suspend", &schema_bool, 10, SCHEMA_GO_POINTER },
        { "podReplacementPolicy", &schema_string, 14, SCHEMA_GO_POINTER },
        { "managedBy", &schema_string, 15, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* batch/v1 JobCondition */
static const struct schema_field job_condition_fields[] = {
        { "type", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "status", &schema_condition_status, 2, SCHEMA_GO_ALWAYS },
        { "lastProbeTime", &schema_time, 3, SCHEMA_GO_VALUE },
        { "lastTransitionTime", &schema_time, 4, SCHEMA_GO_VALUE },
        { "reason", &schema_string, 5, SCHEMA_GO_VALUE },
        { "message", &schema_string, 6, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* batch/v1 UncountedTerminatedPods */
static const struct schema_field uncounted_fields[] = {
        { "succeeded", SCHEMA_SET_LIST(&schema_uid), 1, SCHEMA_GO_VALUE },
        { "failed", SCHEMA_SET_LIST(&schema_uid), 2, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_job_spec = SCHEMA_STRUCT("JobSpec", job_spec_fields);
static const struct schema schema_job_condition =
        SCHEMA_STRUCT("JobCondition", job_condition_fields);
static const struct schema schema_uncounted =
        SCHEMA_STRUCT("UncountedTerminatedPods", uncounted_fields);

/* batch/v1 JobStatus: conditions patchStrategy=merge on type (listType=atomic for apply) */
/* clang-format off */
static const struct schema_field job_status_fields[] = {
        { "conditions", SCHEMA_MAP_LIST(&schema_job_condition, "type"), 1, SCHEMA_GO_VALUE },
        { "startTime", &schema_time, 2, SCHEMA_GO_POINTER },
        { "completionTime", &schema_time, 3, SCHEMA_GO_POINTER },
        { "active", &schema_int32, 4, SCHEMA_GO_VALUE },
        { "succeeded", &schema_int32, 5, SCHEMA_GO_VALUE },
        { "failed", &schema_int32, 6, SCHEMA_GO_VALUE },
        { "terminating", &schema_int32, 11, SCHEMA_GO_POINTER },
        { "completedIndexes", &schema_string, 7, SCHEMA_GO_VALUE },
        { "failedIndexes", &schema_string, 10, SCHEMA_GO_POINTER },
        { "uncountedTerminatedPods", &schema_uncounted, 8, SCHEMA_GO_POINTER },
        { "ready", &schema_int32, 9, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_job_status = SCHEMA_STRUCT("JobStatus", job_status_fields);

/* batch/v1 Job */
/* clang-format off */
static const struct schema_field job_fields[] = {
        { "kind", &schema_string, 0, 0 },
        { "apiVersion", &schema_string, 0, 0 },
        { "metadata", &schema_object_meta, 1, SCHEMA_GO_VALUE },
        { "spec", &schema_job_spec, 2, SCHEMA_GO_VALUE },
        { "status", &schema_job_status, 3, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_job = SCHEMA_STRUCT("Job", job_fields);
