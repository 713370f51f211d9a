/* schema-meta.c: the schemas every kind shares. The leaves (strings, integers, quantities,
 * times), meta/v1 ObjectMeta, ListMeta, TypeMeta, OwnerReference, ManagedFieldsEntry and
 * LabelSelector, and the core/v1 types more than one kind uses (ResourceRequirements,
 * ResourceList, ObjectReference, ConditionStatus, TaintEffect). Field names, list strategies and
 * merge keys follow the k8s.io/apimachinery and k8s.io/api struct tags; schema.c walks them. */
#include "api/schemas.h"

/* ---- leaves ---- */

const struct schema schema_any = { .kind = SCHEMA_ANY, .go_type = "interface {}" };
const struct schema schema_string = { .kind = SCHEMA_STRING };
const struct schema schema_int32 = { .kind = SCHEMA_INTEGER, .go_type = "int32" };
const struct schema schema_int64 = { .kind = SCHEMA_INTEGER, .go_type = "int64" };
const struct schema schema_float64 = { .kind = SCHEMA_NUMBER, .go_type = "float64" };
const struct schema schema_bool = { .kind = SCHEMA_BOOLEAN };
const struct schema schema_quantity = { .kind = SCHEMA_QUANTITY };
const struct schema schema_int_or_string = { .kind = SCHEMA_INT_OR_STRING };
const struct schema schema_time = { .kind = SCHEMA_TIME };
const struct schema schema_micro_time = { .kind = SCHEMA_TIME, .go_type = SCHEMA_GO_MICRO_TIME };
const struct schema schema_uid = { .kind = SCHEMA_STRING, .go_type = "types.UID" };
const struct schema schema_bytes = { .kind = SCHEMA_STRING, .go_type = SCHEMA_GO_BYTES };
const struct schema schema_string_map = { .kind = SCHEMA_MAP, .items = &schema_string };
const struct schema schema_string_list = {
        .kind = SCHEMA_LIST,
        .items = &schema_string,
        .list_type = SCHEMA_LIST_ATOMIC,
};

/* ---- shared types ---- */

/* meta/v1 OwnerReference */
/* clang-format off */
static const struct schema_field owner_reference_fields[] = {
        { "apiVersion", &schema_string, 5, SCHEMA_GO_ALWAYS },
        { "kind", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "name", &schema_string, 3, SCHEMA_GO_ALWAYS },
        { "uid", &schema_uid, 4, SCHEMA_GO_ALWAYS },
        { "controller", &schema_bool, 6, SCHEMA_GO_POINTER },
        { "blockOwnerDeletion", &schema_bool, 7, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_owner_reference =
        SCHEMA_STRUCT("OwnerReference", owner_reference_fields);

const struct schema schema_managed_fields_operation_type =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.ManagedFieldsOperationType");

/* meta/v1 ManagedFieldsEntry */
/* clang-format off */
static const struct schema_field managed_fields_entry_fields[] = {
        { "manager", &schema_string, 1, SCHEMA_GO_VALUE },
        { "operation", &schema_managed_fields_operation_type, 2, SCHEMA_GO_VALUE },
        { "apiVersion", &schema_string, 3, SCHEMA_GO_VALUE },
        { "time", &schema_time, 4, SCHEMA_GO_POINTER },
        { "fieldsType", &schema_string, 6, SCHEMA_GO_VALUE },
        { "fieldsV1", &schema_any, 7, SCHEMA_GO_POINTER },
        { "subresource", &schema_string, 8, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_managed_fields_entry =
        SCHEMA_STRUCT("ManagedFieldsEntry", managed_fields_entry_fields);

/* meta/v1 ObjectMeta */
/* clang-format off */
static const struct schema_field object_meta_fields[] = {
        { "name", &schema_string, 1, SCHEMA_GO_VALUE },
        { "generateName", &schema_string, 2, SCHEMA_GO_VALUE },
        { "namespace", &schema_string, 3, SCHEMA_GO_VALUE },
        { "selfLink", &schema_string, 4, SCHEMA_GO_VALUE },
        { "uid", &schema_uid, 5, SCHEMA_GO_VALUE },
        { "resourceVersion", &schema_string, 6, SCHEMA_GO_VALUE },
        { "generation", &schema_int64, 7, SCHEMA_GO_VALUE },
        { "creationTimestamp", &schema_time, 8, SCHEMA_GO_VALUE },
        { "deletionTimestamp", &schema_time, 9, SCHEMA_GO_POINTER },
        { "deletionGracePeriodSeconds", &schema_int64, 10, SCHEMA_GO_POINTER },
        { "labels", &schema_string_map, 11, SCHEMA_GO_VALUE },
        { "annotations", &schema_string_map, 12, SCHEMA_GO_VALUE },
        { "ownerReferences", SCHEMA_MAP_LIST(&schema_owner_reference, "uid"), 13, SCHEMA_GO_VALUE },
        { "finalizers", SCHEMA_SET_LIST(&schema_string), 14, SCHEMA_GO_VALUE },
        { "managedFields", SCHEMA_ATOMIC_LIST(&schema_managed_fields_entry), 17, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_object_meta = SCHEMA_STRUCT("ObjectMeta", object_meta_fields);

/* meta/v1 ShardInfo */
/* clang-format off */
static const struct schema_field shard_info_fields[] = {
        { "selector", &schema_string, 1, SCHEMA_GO_ALWAYS },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_shard_info = SCHEMA_STRUCT("ShardInfo", shard_info_fields);

/* meta/v1 ListMeta */
/* clang-format off */
static const struct schema_field list_meta_fields[] = {
        { "selfLink", &schema_string, 1, SCHEMA_GO_VALUE },
        { "resourceVersion", &schema_string, 2, SCHEMA_GO_VALUE },
        { "continue", &schema_string, 3, SCHEMA_GO_VALUE },
        { "remainingItemCount", &schema_int64, 4, SCHEMA_GO_POINTER },
        { "shardInfo", &schema_shard_info, 5, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_list_meta = SCHEMA_STRUCT("ListMeta", list_meta_fields);

/* meta/v1 TypeMeta */
/* clang-format off */
static const struct schema_field type_meta_fields[] = {
        { "kind", &schema_string, 1, SCHEMA_GO_VALUE },
        { "apiVersion", &schema_string, 2, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_type_meta = SCHEMA_STRUCT("TypeMeta", type_meta_fields);

/* core/v1 ObjectReference */
/* clang-format off */
static const struct schema_field object_reference_fields[] = {
        { "kind", &schema_string, 1, SCHEMA_GO_VALUE },
        { "namespace", &schema_string, 2, SCHEMA_GO_VALUE },
        { "name", &schema_string, 3, SCHEMA_GO_VALUE },
        { "uid", &schema_uid, 4, SCHEMA_GO_VALUE },
        { "apiVersion", &schema_string, 5, SCHEMA_GO_VALUE },
        { "resourceVersion", &schema_string, 6, SCHEMA_GO_VALUE },
        { "fieldPath", &schema_string, 7, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_object_reference =
        SCHEMA_STRUCT("ObjectReference", object_reference_fields);

const struct schema schema_resource_list = {
        .kind = SCHEMA_MAP,
        .go_type = "v1.ResourceList",
        .items = &schema_quantity,
};

/* core/v1 ResourceClaim */
/* clang-format off */
static const struct schema_field resource_claim_fields[] = {
        { "name", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "request", &schema_string, 2, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_resource_claim = SCHEMA_STRUCT("ResourceClaim", resource_claim_fields);

/* core/v1 ResourceRequirements */
/* clang-format off */
static const struct schema_field resource_requirements_fields[] = {
        { "limits", &schema_resource_list, 1, SCHEMA_GO_VALUE },
        { "requests", &schema_resource_list, 2, SCHEMA_GO_VALUE },
        { "claims", SCHEMA_ATOMIC_LIST(&schema_resource_claim), 3, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_resource_requirements =
        SCHEMA_STRUCT("ResourceRequirements", resource_requirements_fields);

const struct schema schema_label_selector_operator =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.LabelSelectorOperator");

/* meta/v1 LabelSelectorRequirement */
/* clang-format off */
static const struct schema_field label_selector_requirement_fields[] = {
        { "key", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "operator", &schema_label_selector_operator, 2, SCHEMA_GO_ALWAYS },
        { "values", &schema_string_list, 3, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_label_selector_requirement =
        SCHEMA_STRUCT("LabelSelectorRequirement", label_selector_requirement_fields);

/* meta/v1 LabelSelector */
/* clang-format off */
static const struct schema_field label_selector_fields[] = {
        { "matchLabels", &schema_string_map, 1, SCHEMA_GO_VALUE },
        { "matchExpressions", SCHEMA_ATOMIC_LIST(&schema_label_selector_requirement), 2, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_label_selector = SCHEMA_STRUCT("LabelSelector", label_selector_fields);

const struct schema schema_taint_effect = SCHEMA_NAMED(SCHEMA_STRING, "v1.TaintEffect");

const struct schema schema_condition_status = SCHEMA_NAMED(SCHEMA_STRING, "v1.ConditionStatus");
