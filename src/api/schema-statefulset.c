/* schema-statefulset.c: apps/v1 StatefulSet and ControllerRevision (the StatefulSet's revision
 * history). Field names, protobuf numbers and Go declarations follow k8s.io/api apps/v1 types.go
 * and generated.proto; the claim templates are core/v1 PersistentVolumeClaims. */
#include "api/schemas.h"

static const struct schema schema_sts_pod_management_policy =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.PodManagementPolicyType");
static const struct schema schema_sts_update_strategy_type =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.StatefulSetUpdateStrategyType");
static const struct schema schema_sts_retention_type =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.PersistentVolumeClaimRetentionPolicyType");

/* apps/v1 RollingUpdateStatefulSetStrategy */
/* clang-format off */
static const struct schema_field sts_rolling_update_fields[] = {
        { "partition", &schema_int32, 1, SCHEMA_GO_POINTER },
        { "maxUnavailable", &schema_int_or_string, 2, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_sts_rolling_update =
        SCHEMA_STRUCT("RollingUpdateStatefulSetStrategy", sts_rolling_update_fields);

/* apps/v1 StatefulSetUpdateStrategy */
/* clang-format off */
static const struct schema_field sts_update_strategy_fields[] = {
        { "type", &schema_sts_update_strategy_type, 1, SCHEMA_GO_VALUE },
        { "rollingUpdate", &schema_sts_rolling_update, 2, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_sts_update_strategy =
        SCHEMA_STRUCT("StatefulSetUpdateStrategy", sts_update_strategy_fields);

/* apps/v1 StatefulSetPersistentVolumeClaimRetentionPolicy */
/* clang-format off */
static const struct schema_field sts_retention_fields[] = {
        { "whenDeleted", &schema_sts_retention_type, 1, SCHEMA_GO_VALUE },
        { "whenScaled", &schema_sts_retention_type, 2, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_sts_retention =
        SCHEMA_STRUCT("StatefulSetPersistentVolumeClaimRetentionPolicy", sts_retention_fields);

/* apps/v1 StatefulSetOrdinals */
/* clang-format off */
static const struct schema_field sts_ordinals_fields[] = {
        { "start", &schema_int32, 1, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_sts_ordinals =
        SCHEMA_STRUCT("StatefulSetOrdinals", sts_ordinals_fields);

/* apps/v1 StatefulSetSpec: volumeClaimTemplates is +listType=atomic. */
/* clang-format off */
static const struct schema_field sts_spec_fields[] = {
        { "replicas", &schema_int32, 1, SCHEMA_GO_POINTER },
        { "selector", &schema_label_selector, 2, SCHEMA_GO_POINTER },
        { "template", &schema_pod_template_spec, 3, SCHEMA_GO_ALWAYS },
        { "volumeClaimTemplates", SCHEMA_ATOMIC_LIST(&schema_persistent_volume_claim), 4,
          SCHEMA_GO_VALUE },
        { "serviceName", &schema_string, 5, SCHEMA_GO_VALUE },
        { "podManagementPolicy", &schema_sts_pod_management_policy, 6, SCHEMA_GO_VALUE },
        { "updateStrategy", &schema_sts_update_strategy, 7, SCHEMA_GO_VALUE },
        { "revisionHistoryLimit", &schema_int32, 8, SCHEMA_GO_POINTER },
        { "minReadySeconds", &schema_int32, 9, SCHEMA_GO_VALUE },
        { "persistentVolumeClaimRetentionPolicy", &schema_sts_retention, 10, SCHEMA_GO_POINTER },
        { "ordinals", &schema_sts_ordinals, 11, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_sts_spec = SCHEMA_STRUCT("StatefulSetSpec", sts_spec_fields);

/* apps/v1 StatefulSetCondition (the fields of the other apps/v1 conditions, schemas.h) */
static const struct schema schema_sts_condition =
        SCHEMA_STRUCT("StatefulSetCondition", schema_apps_condition_fields);

/* apps/v1 StatefulSetStatus */
/* clang-format off */
static const struct schema_field sts_status_fields[] = {
        { "observedGeneration", &schema_int64, 1, SCHEMA_GO_VALUE },
        { "replicas", &schema_int32, 2, SCHEMA_GO_ALWAYS },
        { "readyReplicas", &schema_int32, 3, SCHEMA_GO_VALUE },
        { "currentReplicas", &schema_int32, 4, SCHEMA_GO_VALUE },
        { "updatedReplicas", &schema_int32, 5, SCHEMA_GO_VALUE },
        { "currentRevision", &schema_string, 6, SCHEMA_GO_VALUE },
        { "updateRevision", &schema_string, 7, SCHEMA_GO_VALUE },
        { "collisionCount", &schema_int32, 9, SCHEMA_GO_POINTER },
        { "conditions", SCHEMA_MAP_LIST(&schema_sts_condition, "type"), 10, SCHEMA_GO_VALUE },
        { "availableReplicas", &schema_int32, 11, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_sts_status =
        SCHEMA_STRUCT("StatefulSetStatus", sts_status_fields);

/* apps/v1 StatefulSet */
/* clang-format off */
static const struct schema_field sts_fields[] = {
        SCHEMA_SPEC_STATUS_FIELDS(&schema_sts_spec, &schema_sts_status),
};
/* clang-format on */
const struct schema schema_stateful_set = SCHEMA_STRUCT("StatefulSet", sts_fields);

/* apps/v1 ControllerRevision: data is a runtime.RawExtension, whose protobuf form (bytes raw =
 * 1, the JSON text) is the one schema_any has. */
/* clang-format off */
static const struct schema_field controller_revision_fields[] = {
        { "kind", &schema_string, 0, 0 },
        { "apiVersion", &schema_string, 0, 0 },
        { "metadata", &schema_object_meta, 1, SCHEMA_GO_VALUE },
        { "data", &schema_any, 2, SCHEMA_GO_VALUE },
        { "revision", &schema_int64, 3, SCHEMA_GO_ALWAYS },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_controller_revision =
        SCHEMA_STRUCT("ControllerRevision", controller_revision_fields);
