/* schema-config.c: core/v1 ConfigMap, Secret and ServiceAccount: what pods read their
 * configuration and identity from; and core/v1 LimitRange, the namespace's resource bounds. Field
 * names, protobuf numbers and Go declarations follow k8s.io/api core/v1 types.go and
 * generated.proto (release-1.33). The values of ConfigMap.binaryData and Secret.data are Go []byte:
 * base64 strings on the JSON wire. */
#include "api/schemas.h"

static const struct schema schema_secret_type = SCHEMA_NAMED(SCHEMA_STRING, "v1.SecretType");

/* core/v1 ConfigMap */
/* clang-format off */
static const struct schema_field config_map_fields[] = {
        { "kind", &schema_string, 0, 0 },
        { "apiVersion", &schema_string, 0, 0 },
        { "metadata", &schema_object_meta, 1, SCHEMA_GO_VALUE },
        { "immutable", &schema_bool, 4, SCHEMA_GO_POINTER },
        { "data", &schema_string_map, 2, SCHEMA_GO_VALUE },
        { "binaryData", SCHEMA_MAP_OF(&schema_bytes), 3, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_config_map = SCHEMA_STRUCT("ConfigMap", config_map_fields);

/* core/v1 Secret */
/* clang-format off */
static const struct schema_field secret_fields[] = {
        { "kind", &schema_string, 0, 0 },
        { "apiVersion", &schema_string, 0, 0 },
        { "metadata", &schema_object_meta, 1, SCHEMA_GO_VALUE },
        { "immutable", &schema_bool, 5, SCHEMA_GO_POINTER },
        { "data", SCHEMA_MAP_OF(&schema_bytes), 2, SCHEMA_GO_VALUE },
        { "stringData", &schema_string_map, 4, SCHEMA_GO_VALUE },
        { "type", &schema_secret_type, 3, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_secret = SCHEMA_STRUCT("Secret", secret_fields);

/* core/v1 LocalObjectReference */
/* clang-format off */
static const struct schema_field local_object_reference_fields[] = {
        { "name", &schema_string, 1, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_local_object_reference =
        SCHEMA_STRUCT("LocalObjectReference", local_object_reference_fields);

/* core/v1 ServiceAccount: secrets is patchStrategy=merge on name, imagePullSecrets atomic. */
/* clang-format off */
static const struct schema_field service_account_fields[] = {
        { "kind", &schema_string, 0, 0 },
        { "apiVersion", &schema_string, 0, 0 },
        { "metadata", &schema_object_meta, 1, SCHEMA_GO_VALUE },
        { "secrets", SCHEMA_MAP_LIST(&schema_object_reference, "name"), 2, SCHEMA_GO_VALUE },
        { "imagePullSecrets", SCHEMA_ATOMIC_LIST(&schema_local_object_reference), 3,
          SCHEMA_GO_VALUE },
        { "automountServiceAccountToken", &schema_bool, 4, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_service_account =
        SCHEMA_STRUCT("ServiceAccount", service_account_fields);

/* core/v1 LimitRange: a namespace's per-container, per-pod and per-claim resource bounds and
 * container defaults (spec.limits is atomic: no patchStrategy upstream). */
static const struct schema schema_limit_type = SCHEMA_NAMED(SCHEMA_STRING, "v1.LimitType");

/* clang-format off */
static const struct schema_field limit_range_item_fields[] = {
        { "type", &schema_limit_type, 1, SCHEMA_GO_VALUE },
        { "max", &schema_resource_list, 2, SCHEMA_GO_VALUE },
        { "min", &schema_resource_list, 3, SCHEMA_GO_VALUE },
        { "default", &schema_resource_list, 4, SCHEMA_GO_VALUE },
        { "defaultRequest", &schema_resource_list, 5, SCHEMA_GO_VALUE },
        { "maxLimitRequestRatio", &schema_resource_list, 6, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
static const struct schema schema_limit_range_item =
        SCHEMA_STRUCT("LimitRangeItem", limit_range_item_fields);
static const struct schema_field limit_range_spec_fields[] = {
        { "limits", SCHEMA_ATOMIC_LIST(&schema_limit_range_item), 1, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
static const struct schema schema_limit_range_spec =
        SCHEMA_STRUCT("LimitRangeSpec", limit_range_spec_fields);
static const struct schema_field limit_range_fields[] = {
        { "kind", &schema_string, 0, 0 },
        { "apiVersion", &schema_string, 0, 0 },
        { "metadata", &schema_object_meta, 1, SCHEMA_GO_VALUE },
        { "spec", &schema_limit_range_spec, 2, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_limit_range = SCHEMA_STRUCT("LimitRange", limit_range_fields);
