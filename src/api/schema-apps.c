/* schema-apps.c: apps/v1 ReplicaSet and Deployment, core/v1 PodTemplateSpec (their pod
 * template) and autoscaling/v1 Scale (their scale subresource's body). Field names, protobuf
 * numbers and Go declarations follow k8s.io/api apps/v1, core/v1 and autoscaling/v1 types.go
 * and generated.proto. */
#include "api/schemas.h"

/* apps/v1 ReplicaSetSpec: `template` is omitempty here, not in DeploymentSpec. */
/* clang-format off */
static const struct schema_field rs_spec_fields[] = {
        { "replicas", &schema_int32, 1, SCHEMA_GO_POINTER },
        { "minReadySeconds", &schema_int32, 4, SCHEMA_GO_VALUE },
        { "selector", &schema_label_selector, 2, SCHEMA_GO_POINTER },
        { "template", &schema_pod_template_spec, 3, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_rs_spec = SCHEMA_STRUCT("ReplicaSetSpec", rs_spec_fields);

/* apps/v1 ReplicaSetCondition, DaemonSetCondition, StatefulSetCondition (schemas.h) */
/* clang-format off */
const struct schema_field schema_apps_condition_fields[] = {
        { "type", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "status", &schema_condition_status, 2, SCHEMA_GO_ALWAYS },
        { "lastTransitionTime", &schema_time, 3, SCHEMA_GO_VALUE },
        { "reason", &schema_string, 4, SCHEMA_GO_VALUE },
        { "message", &schema_string, 5, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_rs_condition =
        SCHEMA_STRUCT("ReplicaSetCondition", schema_apps_condition_fields);

/* apps/v1 ReplicaSetStatus */
/* clang-format off */
static const struct schema_field rs_status_fields[] = {
        { "replicas", &schema_int32, 1, SCHEMA_GO_ALWAYS },
        { "fullyLabeledReplicas", &schema_int32, 2, SCHEMA_GO_VALUE },
        { "readyReplicas", &schema_int32, 4, SCHEMA_GO_VALUE },
        { "availableReplicas", &schema_int32, 5, SCHEMA_GO_VALUE },
        { "terminatingReplicas", &schema_int32, 7, SCHEMA_GO_POINTER },
        { "observedGeneration", &schema_int64, 3, SCHEMA_GO_VALUE },
        { "conditions", SCHEMA_MAP_LIST(&schema_rs_condition, "type"), 6, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_rs_status = SCHEMA_STRUCT("ReplicaSetStatus", rs_status_fields);

/* apps/v1 ReplicaSet */
/* clang-format off */
static const struct schema_field rs_fields[] = {
        SCHEMA_SPEC_STATUS_FIELDS(&schema_rs_spec, &schema_rs_status),
};
/* clang-format on */
const struct schema schema_replica_set = SCHEMA_STRUCT("ReplicaSet", rs_fields);

/* apps/v1 RollingUpdateDeployment */
/* clang-format off */
static const struct schema_field rolling_update_fields[] = {
        { "maxUnavailable", &schema_int_or_string, 1, SCHEMA_GO_POINTER },
        { "maxSurge", &schema_int_or_string, 2, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_rolling_update =
        SCHEMA_STRUCT("RollingUpdateDeployment", rolling_update_fields);

static const struct schema schema_deployment_strategy_type =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.DeploymentStrategyType");

/* apps/v1 DeploymentStrategy */
/* clang-format off */
static const struct schema_field strategy_fields[] = {
        { "type", &schema_deployment_strategy_type, 1, SCHEMA_GO_VALUE },
        { "rollingUpdate", &schema_rolling_update, 2, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_deployment_strategy =
        SCHEMA_STRUCT("DeploymentStrategy", strategy_fields);

/* apps/v1 DeploymentSpec: strategy is patchStrategy=retainKeys; the one-of is small enough that
 * a merge keeps what a kubectl edit means (set type Recreate and drop rollingUpdate). */
/* clang-format off */
static const struct schema_field deployment_spec_fields[] = {
        { "replicas", &schema_int32, 1, SCHEMA_GO_POINTER },
        { "selector", &schema_label_selector, 2, SCHEMA_GO_POINTER },
        { "template", &schema_pod_template_spec, 3, SCHEMA_GO_ALWAYS },
        { "strategy", &schema_deployment_strategy, 4, SCHEMA_GO_VALUE },
        { "minReadySeconds", &schema_int32, 5, SCHEMA_GO_VALUE },
        { "revisionHistoryLimit", &schema_int32, 6, SCHEMA_GO_POINTER },
        { "paused", &schema_bool, 7, SCHEMA_GO_VALUE },
        { "progressDeadlineSeconds", &schema_int32, 9, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_deployment_spec =
        SCHEMA_STRUCT("DeploymentSpec", deployment_spec_fields);

/* apps/v1 DeploymentCondition */
/* clang-format off */
static const struct schema_field deployment_condition_fields[] = {
        { "type", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "status", &schema_condition_status, 2, SCHEMA_GO_ALWAYS },
        { "lastUpdateTime", &schema_time, 6, SCHEMA_GO_VALUE },
        { "lastTransitionTime", &schema_time, 7, SCHEMA_GO_VALUE },
        { "reason", &schema_string, 4, SCHEMA_GO_VALUE },
        { "message", &schema_string, 5, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_deployment_condition =
        SCHEMA_STRUCT("DeploymentCondition", deployment_condition_fields);

/* apps/v1 DeploymentStatus */
/* clang-format off */
static const struct schema_field deployment_status_fields[] = {
        { "observedGeneration", &schema_int64, 1, SCHEMA_GO_VALUE },
        { "replicas", &schema_int32, 2, SCHEMA_GO_VALUE },
        { "updatedReplicas", &schema_int32, 3, SCHEMA_GO_VALUE },
        { "readyReplicas", &schema_int32, 7, SCHEMA_GO_VALUE },
        { "availableReplicas", &schema_int32, 4, SCHEMA_GO_VALUE },
        { "unavailableReplicas", &schema_int32, 5, SCHEMA_GO_VALUE },
        { "terminatingReplicas", &schema_int32, 9, SCHEMA_GO_POINTER },
        { "conditions", SCHEMA_MAP_LIST(&schema_deployment_condition, "type"), 6, SCHEMA_GO_VALUE },
        { "collisionCount", &schema_int32, 8, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_deployment_status =
        SCHEMA_STRUCT("DeploymentStatus", deployment_status_fields);

/* apps/v1 Deployment */
/* clang-format off */
static const struct schema_field deployment_fields[] = {
        SCHEMA_SPEC_STATUS_FIELDS(&schema_deployment_spec, &schema_deployment_status),
};
/* clang-format on */
const struct schema schema_deployment = SCHEMA_STRUCT("Deployment", deployment_fields);

/* autoscaling/v1 ScaleSpec, ScaleStatus, Scale */
/* clang-format off */
static const struct schema_field scale_spec_fields[] = {
        { "replicas", &schema_int32, 1, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
static const struct schema_field scale_status_fields[] = {
        { "replicas", &schema_int32, 1, SCHEMA_GO_ALWAYS },
        { "selector", &schema_string, 2, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_scale_spec = SCHEMA_STRUCT("ScaleSpec", scale_spec_fields);
static const struct schema schema_scale_status = SCHEMA_STRUCT("ScaleStatus", scale_status_fields);
/* clang-format off */
static const struct schema_field scale_fields[] = {
        SCHEMA_SPEC_STATUS_FIELDS(&schema_scale_spec, &schema_scale_status),
};
/* clang-format on */
const struct schema schema_scale = SCHEMA_STRUCT("Scale", scale_fields);

/* apps/v1 RollingUpdateDaemonSet (the fields of RollingUpdateDeployment, numbered alike),
 * DaemonSetUpdateStrategy */
static const struct schema schema_ds_rolling_update =
        SCHEMA_STRUCT("RollingUpdateDaemonSet", rolling_update_fields);
static const struct schema schema_ds_strategy_type =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.DaemonSetUpdateStrategyType");
/* clang-format off */
static const struct schema_field ds_strategy_fields[] = {
        { "type", &schema_ds_strategy_type, 1, SCHEMA_GO_VALUE },
        { "rollingUpdate", &schema_ds_rolling_update, 2, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_ds_strategy =
        SCHEMA_STRUCT("DaemonSetUpdateStrategy", ds_strategy_fields);

/* apps/v1 DaemonSetSpec (field 5, templateGeneration, is reserved since extensions/v1beta1) */
/* clang-format off */
static const struct schema_field ds_spec_fields[] = {
        { "selector", &schema_label_selector, 1, SCHEMA_GO_POINTER },
        { "template", &schema_pod_template_spec, 2, SCHEMA_GO_ALWAYS },
        { "updateStrategy", &schema_ds_strategy, 3, SCHEMA_GO_VALUE },
        { "minReadySeconds", &schema_int32, 4, SCHEMA_GO_VALUE },
        { "revisionHistoryLimit", &schema_int32, 6, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_ds_spec = SCHEMA_STRUCT("DaemonSetSpec", ds_spec_fields);

/* apps/v1 DaemonSetCondition */
static const struct schema schema_ds_condition =
        SCHEMA_STRUCT("DaemonSetCondition", schema_apps_condition_fields);

/* apps/v1 DaemonSetStatus: the first four counts are not omitempty */
/* clang-format off */
static const struct schema_field ds_status_fields[] = {
        { "currentNumberScheduled", &schema_int32, 1, SCHEMA_GO_ALWAYS },
        { "numberMisscheduled", &schema_int32, 2, SCHEMA_GO_ALWAYS },
        { "desiredNumberScheduled", &schema_int32, 3, SCHEMA_GO_ALWAYS },
        { "numberReady", &schema_int32, 4, SCHEMA_GO_ALWAYS },
        { "observedGeneration", &schema_int64, 5, SCHEMA_GO_VALUE },
        { "updatedNumberScheduled", &schema_int32, 6, SCHEMA_GO_VALUE },
        { "numberAvailable", &schema_int32, 7, SCHEMA_GO_VALUE },
        { "numberUnavailable", &schema_int32, 8, SCHEMA_GO_VALUE },
        { "collisionCount", &schema_int32, 9, SCHEMA_GO_POINTER },
        { "conditions", SCHEMA_MAP_LIST(&schema_ds_condition, "type"), 10, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_ds_status = SCHEMA_STRUCT("DaemonSetStatus", ds_status_fields);

/* apps/v1 DaemonSet */
/* clang-format off */
static const struct schema_field ds_fields[] = {
        SCHEMA_SPEC_STATUS_FIELDS(&schema_ds_spec, &schema_ds_status),
};
/* clang-format on */
const struct schema schema_daemon_set = SCHEMA_STRUCT("DaemonSet", ds_fields);
