/* schema-rbac.c: rbac.authorization.k8s.io/v1 Role, ClusterRole (with its aggregationRule),
 * RoleBinding and ClusterRoleBinding, and the PolicyRule, Subject and RoleRef they are made of.
 * Field names, protobuf numbers and Go declarations follow k8s.io/api rbac/v1 types.go and
 * generated.proto (release-1.33). Every list is +listType=atomic (no patch strategy). */
#include "api/schemas.h"

/* rbac/v1 PolicyRule: verbs is declared without omitempty */
/* clang-format off */
static const struct schema_field policy_rule_fields[] = {
        { "verbs", SCHEMA_ATOMIC_LIST(&schema_string), 1, SCHEMA_GO_VALUE },
        { "apiGroups", SCHEMA_ATOMIC_LIST(&schema_string), 2, SCHEMA_GO_VALUE },
        { "resources", SCHEMA_ATOMIC_LIST(&schema_string), 3, SCHEMA_GO_VALUE },
        { "resourceNames", SCHEMA_ATOMIC_LIST(&schema_string), 4, SCHEMA_GO_VALUE },
        { "nonResourceURLs", SCHEMA_ATOMIC_LIST(&schema_string), 5, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_policy_rule = SCHEMA_STRUCT("PolicyRule", policy_rule_fields);

/* rbac/v1 Subject: kind and name without omitempty */
/* clang-format off */
static const struct schema_field subject_fields[] = {
        { "kind", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "apiGroup", &schema_string, 2, SCHEMA_GO_VALUE },
        { "name", &schema_string, 3, SCHEMA_GO_ALWAYS },
        { "namespace", &schema_string, 4, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_subject = SCHEMA_STRUCT("Subject", subject_fields);

/* rbac/v1 RoleRef: every field without omitempty */
/* clang-format off */
static const struct schema_field role_ref_fields[] = {
        { "apiGroup", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "kind", &schema_string, 2, SCHEMA_GO_ALWAYS },
        { "name", &schema_string, 3, SCHEMA_GO_ALWAYS },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_role_ref = SCHEMA_STRUCT("RoleRef", role_ref_fields);

/* rbac/v1 AggregationRule */
/* clang-format off */
static const struct schema_field aggregation_rule_fields[] = {
        { "clusterRoleSelectors", SCHEMA_ATOMIC_LIST(&schema_label_selector), 1,
          SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_aggregation_rule =
        SCHEMA_STRUCT("AggregationRule", aggregation_rule_fields);

/* rbac/v1 Role */
/* clang-format off */
static const struct schema_field role_fields[] = {
        { "kind", &schema_string, 0, 0 },
        { "apiVersion", &schema_string, 0, 0 },
        { "metadata", &schema_object_meta, 1, SCHEMA_GO_VALUE },
        { "rules", SCHEMA_ATOMIC_LIST(&schema_policy_rule), 2, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_role = SCHEMA_STRUCT("Role", role_fields);

/* rbac/v1 ClusterRole */
/* clang-format off */
static const struct schema_field cluster_role_fields[] = {
        { "kind", &schema_string, 0, 0 },
        { "apiVersion", &schema_string, 0, 0 },
        { "metadata", &schema_object_meta, 1, SCHEMA_GO_VALUE },
        { "rules", SCHEMA_ATOMIC_LIST(&schema_policy_rule), 2, SCHEMA_GO_VALUE },
        { "aggregationRule", &schema_aggregation_rule, 3, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_cluster_role = SCHEMA_STRUCT("ClusterRole", cluster_role_fields);

/* rbac/v1 RoleBinding and ClusterRoleBinding (the same fields) */
/* clang-format off */
static const struct schema_field binding_fields[] = {
        { "kind", &schema_string, 0, 0 },
        { "apiVersion", &schema_string, 0, 0 },
        { "metadata", &schema_object_meta, 1, SCHEMA_GO_VALUE },
        { "subjects", SCHEMA_ATOMIC_LIST(&schema_subject), 2, SCHEMA_GO_VALUE },
        { "roleRef", &schema_role_ref, 3, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_role_binding = SCHEMA_STRUCT("RoleBinding", binding_fields);
const struct schema schema_cluster_role_binding =
        SCHEMA_STRUCT("ClusterRoleBinding", binding_fields);
