/* schema-quota.c: core/v1 ResourceQuota, the aggregate limits of a namespace (what the quota
 * admission checks and the quota controller keeps status.used of). Field names, protobuf numbers
 * and Go declarations follow k8s.io/api core/v1 types.go and generated.proto (release-1.33). */
#include "api/schemas.h"

static const struct schema schema_resource_quota_scope =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.ResourceQuotaScope");
static const struct schema schema_scope_selector_operator =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.ScopeSelectorOperator");

/* core/v1 ScopedResourceSelectorRequirement: values is +listType=atomic */
/* clang-format off */
static const struct schema_field scoped_resource_selector_requirement_fields[] = {
        { "scopeName", &schema_resource_quota_scope, 1, SCHEMA_GO_VALUE },
        { "operator", &schema_scope_selector_operator, 2, SCHEMA_GO_VALUE },
        { "values", SCHEMA_ATOMIC_LIST(&schema_string), 3, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_scoped_resource_selector_requirement = SCHEMA_STRUCT(
        "ScopedResourceSelectorRequirement", scoped_resource_selector_requirement_fields);

/* core/v1 ScopeSelector: matchExpressions is +listType=atomic */
/* clang-format off */
static const struct schema_field scope_selector_fields[] = {
        { "matchExpressions", SCHEMA_ATOMIC_LIST(&schema_scoped_resource_selector_requirement), 1,
          SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_scope_selector =
        SCHEMA_STRUCT("ScopeSelector", scope_selector_fields);

/* core/v1 ResourceQuotaSpec: scopes is +listType=atomic, scopeSelector a pointer */
/* clang-format off */
static const struct schema_field resource_quota_spec_fields[] = {
        { "hard", &schema_resource_list, 1, SCHEMA_GO_VALUE },
        { "scopes", SCHEMA_ATOMIC_LIST(&schema_resource_quota_scope), 2, SCHEMA_GO_VALUE },
        { "scopeSelector", &schema_scope_selector, 3, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_resource_quota_spec =
        SCHEMA_STRUCT("ResourceQuotaSpec", resource_quota_spec_fields);

/* core/v1 ResourceQuotaStatus */
/* clang-format off */
static const struct schema_field resource_quota_status_fields[] = {
        { "hard", &schema_resource_list, 1, SCHEMA_GO_VALUE },
        { "used", &schema_resource_list, 2, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_resource_quota_status =
        SCHEMA_STRUCT("ResourceQuotaStatus", resource_quota_status_fields);

/* core/v1 ResourceQuota */
/* clang-format off */
static const struct schema_field resource_quota_fields[] = {
        { "kind", &schema_string, 0, 0 },
        { "apiVersion", &schema_string, 0, 0 },
        { "metadata", &schema_object_meta, 1, SCHEMA_GO_VALUE },
        { "spec", &schema_resource_quota_spec, 2, SCHEMA_GO_VALUE },
        { "status", &schema_resource_quota_status, 3, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_resource_quota = SCHEMA_STRUCT("ResourceQuota", resource_quota_fields);
