/* schema-namespace.c: core/v1 Namespace: spec.finalizers (atomic, unlike
 * metadata.finalizers), status.phase and status.conditions merged by type. Field names follow
 * k8s.io/api core/v1. */
#include "api/schemas.h"

static const struct schema schema_finalizer_name = SCHEMA_NAMED(SCHEMA_STRING, "v1.FinalizerName");

/* core/v1 NamespaceSpec */
/* clang-format off */
static const struct schema_field namespace_spec_fields[] = {
        { "finalizers", SCHEMA_ATOMIC_LIST(&schema_finalizer_name), 0, 0 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_namespace_spec =
        SCHEMA_STRUCT("NamespaceSpec", namespace_spec_fields);

static const struct schema schema_namespace_phase =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.NamespacePhase");

static const struct schema schema_namespace_condition_type =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.NamespaceConditionType");

/* core/v1 NamespaceCondition */
/* clang-format off */
static const struct schema_field namespace_condition_fields[] = {
        { "type", &schema_namespace_condition_type, 0, 0 },
        { "status", &schema_condition_status, 0, 0 },
        { "lastTransitionTime", &schema_time, 0, 0 },
        { "reason", &schema_string, 0, 0 },
        { "message", &schema_string, 0, 0 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_namespace_condition =
        SCHEMA_STRUCT("NamespaceCondition", namespace_condition_fields);

/* core/v1 NamespaceStatus */
/* clang-format off */
static const struct schema_field namespace_status_fields[] = {
        { "phase", &schema_namespace_phase, 0, 0 },
        { "conditions", SCHEMA_MAP_LIST(&schema_namespace_condition, "type"), 0, 0 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_namespace_status =
        SCHEMA_STRUCT("NamespaceStatus", namespace_status_fields);

/* core/v1 Namespace */
/* clang-format off */
static const struct schema_field namespace_fields[] = {
        { "kind", &schema_string, 0, 0 },
        { "apiVersion", &schema_string, 0, 0 },
        { "metadata", &schema_object_meta, 0, 0 },
        { "spec", &schema_namespace_spec, 0, 0 },
        { "status", &schema_namespace_status, 0, 0 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_namespace = SCHEMA_STRUCT("Namespace", namespace_fields);
