/* schema-namespace.c: core/v1 Namespace: spec.finalizers (atomic, unlike
 * metadata.finalizers), status.phase and status.conditions merged by type. Field names follow
 * k8s.io/api core/v1. */
#include "api/schemas.h"

static const struct schema schema_finalizer_name = SCHEMA_NAMED(SCHEMA_STRING, "v1.FinalizerName");

/* core/v1 NamespaceSpec */
/* clang-format off */
static const struct schema_field namespace_spec_fields[] = {
        { "finalizers", SCHEMA_ATOMIC_LIST(&schema_finalizer_name), 1, SCHEMA_GO_VALUE },
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
        { "type", &schema_namespace_condition_type, 1, SCHEMA_GO_ALWAYS },
        { "status", &schema_condition_status, 2, SCHEMA_GO_ALWAYS },
        { "lastTransitionTime", &schema_time, 4, SCHEMA_GO_VALUE },
        { "reason", &schema_string, 5, SCHEMA_GO_VALUE },
        { "message", &schema_string, 6, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_namespace_condition =
        SCHEMA_STRUCT("NamespaceCondition", namespace_condition_fields);

/* core/v1 NamespaceStatus */
/* clang-format off */
static const struct schema_field namespace_status_fields[] = {
        { "phase", &schema_namespace_phase, 1, SCHEMA_GO_VALUE },
        { "conditions", SCHEMA_MAP_LIST(&schema_namespace_condition, "type"), 2, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_namespace_status =
        SCHEMA_STRUCT("NamespaceStatus", namespace_status_fields);

/* core/v1 Namespace */
/* clang-format off */
static const struct schema_field namespace_fields[] = {
        { "kind", &schema_string, 0, 0 }, /* TypeMeta: the envelope carries it */
        { "apiVersion", &schema_string, 0, 0 }, /* TypeMeta: the envelope carries it */
        { "metadata", &schema_object_meta, 1, SCHEMA_GO_VALUE },
        { "spec", &schema_namespace_spec, 2, SCHEMA_GO_VALUE },
        { "status", &schema_namespace_status, 3, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_namespace = SCHEMA_STRUCT("Namespace", namespace_fields);
