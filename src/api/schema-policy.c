/* schema-policy.c: policy/v1 PodDisruptionBudget and Eviction, and the meta/v1 DeleteOptions an
 * Eviction carries: how many pods of a set may be down at once, and the request to take one down
 * within that budget. Field names, protobuf numbers and Go declarations follow k8s.io/api
 * policy/v1 and k8s.io/apimachinery meta/v1 types.go and generated.proto (release-1.33). */
#include "api/schemas.h"

/* meta/v1 Condition: every field but observedGeneration is declared without omitempty. */
/* clang-format off */
static const struct schema_field condition_fields[] = {
        { "type", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "status", &schema_condition_status, 2, SCHEMA_GO_ALWAYS },
        { "observedGeneration", &schema_int64, 3, SCHEMA_GO_VALUE },
        { "lastTransitionTime", &schema_time, 4, SCHEMA_GO_ALWAYS },
        { "reason", &schema_string, 5, SCHEMA_GO_ALWAYS },
        { "message", &schema_string, 6, SCHEMA_GO_ALWAYS },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_condition = SCHEMA_STRUCT("Condition", condition_fields);

static const struct schema schema_unhealthy_pod_eviction_policy =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.UnhealthyPodEvictionPolicyType");

/* policy/v1 PodDisruptionBudgetSpec */
/* clang-format off */
static const struct schema_field pdb_spec_fields[] = {
        { "minAvailable", &schema_int_or_string, 1, SCHEMA_GO_POINTER },
        { "selector", &schema_label_selector, 2, SCHEMA_GO_POINTER },
        { "maxUnavailable", &schema_int_or_string, 3, SCHEMA_GO_POINTER },
        { "unhealthyPodEvictionPolicy", &schema_unhealthy_pod_eviction_policy, 4,
          SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_pdb_spec =
        SCHEMA_STRUCT("PodDisruptionBudgetSpec", pdb_spec_fields);

/* policy/v1 PodDisruptionBudgetStatus: conditions is a map list on type
 * (patchStrategy=merge, patchMergeKey=type). */
/* clang-format off */
static const struct schema_field pdb_status_fields[] = {
        { "observedGeneration", &schema_int64, 1, SCHEMA_GO_VALUE },
        { "disruptedPods", SCHEMA_MAP_OF(&schema_time), 2, SCHEMA_GO_VALUE },
        { "disruptionsAllowed", &schema_int32, 3, SCHEMA_GO_ALWAYS },
        { "currentHealthy", &schema_int32, 4, SCHEMA_GO_ALWAYS },
        { "desiredHealthy", &schema_int32, 5, SCHEMA_GO_ALWAYS },
        { "expectedPods", &schema_int32, 6, SCHEMA_GO_ALWAYS },
        { "conditions", SCHEMA_MAP_LIST(&schema_condition, "type"), 7, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_pdb_status =
        SCHEMA_STRUCT("PodDisruptionBudgetStatus", pdb_status_fields);

/* policy/v1 PodDisruptionBudget */
/* clang-format off */
static const struct schema_field pdb_fields[] = {
        { "kind", &schema_string, 0, 0 },
        { "apiVersion", &schema_string, 0, 0 },
        { "metadata", &schema_object_meta, 1, SCHEMA_GO_VALUE },
        { "spec", &schema_pdb_spec, 2, SCHEMA_GO_VALUE },
        { "status", &schema_pdb_status, 3, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_pod_disruption_budget = SCHEMA_STRUCT("PodDisruptionBudget", pdb_fields);

/* meta/v1 Preconditions */
/* clang-format off */
static const struct schema_field preconditions_fields[] = {
        { "uid", &schema_uid, 1, SCHEMA_GO_POINTER },
        { "resourceVersion", &schema_string, 2, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_preconditions =
        SCHEMA_STRUCT("Preconditions", preconditions_fields);

static const struct schema schema_deletion_propagation =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.DeletionPropagation");

/* meta/v1 DeleteOptions */
/* clang-format off */
static const struct schema_field delete_options_fields[] = {
        { "kind", &schema_string, 0, 0 },
        { "apiVersion", &schema_string, 0, 0 },
        { "gracePeriodSeconds", &schema_int64, 1, SCHEMA_GO_POINTER },
        { "preconditions", &schema_preconditions, 2, SCHEMA_GO_POINTER },
        { "orphanDependents", &schema_bool, 3, SCHEMA_GO_POINTER },
        { "propagationPolicy", &schema_deletion_propagation, 4, SCHEMA_GO_POINTER },
        { "dryRun", SCHEMA_ATOMIC_LIST(&schema_string), 5, SCHEMA_GO_VALUE },
        { "ignoreStoreReadErrorWithClusterBreakingPotential", &schema_bool, 6,
          SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_delete_options = SCHEMA_STRUCT("DeleteOptions", delete_options_fields);

/* policy/v1 Eviction (v1beta1's has the same fields and numbers) */
/* clang-format off */
static const struct schema_field eviction_fields[] = {
        { "kind", &schema_string, 0, 0 },
        { "apiVersion", &schema_string, 0, 0 },
        { "metadata", &schema_object_meta, 1, SCHEMA_GO_VALUE },
        { "deleteOptions", &schema_delete_options, 2, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_eviction = SCHEMA_STRUCT("Eviction", eviction_fields);
