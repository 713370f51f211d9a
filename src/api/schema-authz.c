/* schema-authz.c: authorization.k8s.io/v1 SubjectAccessReview, SelfSubjectAccessReview,
 * LocalSubjectAccessReview ("may this user do that": `kubectl auth can-i`) and
 * SelfSubjectRulesReview ("what may I do here": `kubectl auth can-i --list`). Field names,
 * protobuf numbers and Go declarations follow k8s.io/api authorization/v1 types.go and
 * generated.proto (master of 2026-07-24; the numbers never change once released).
 *
 * SubjectAccessReviewSpec.extra is map[string]ExtraValue, each ExtraValue a []string in JSON and a
 * message {repeated string items = 1} in protobuf (a pb_wrapped list). */
#include "api/schemas.h"

/* meta/v1 FieldSelectorRequirement */
/* clang-format off */
static const struct schema_field field_selector_requirement_fields[] = {
        { "key", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "operator", &schema_string, 2, SCHEMA_GO_ALWAYS },
        { "values", &schema_string_list, 3, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_field_selector_requirement =
        SCHEMA_STRUCT("FieldSelectorRequirement", field_selector_requirement_fields);

/* authorization/v1 FieldSelectorAttributes */
/* clang-format off */
static const struct schema_field field_selector_attributes_fields[] = {
        { "rawSelector", &schema_string, 1, SCHEMA_GO_VALUE },
        { "requirements", SCHEMA_ATOMIC_LIST(&schema_field_selector_requirement), 2, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_field_selector_attributes =
        SCHEMA_STRUCT("FieldSelectorAttributes", field_selector_attributes_fields);

/* authorization/v1 LabelSelectorAttributes */
/* clang-format off */
static const struct schema_field label_selector_attributes_fields[] = {
        { "rawSelector", &schema_string, 1, SCHEMA_GO_VALUE },
        { "requirements", SCHEMA_ATOMIC_LIST(&schema_label_selector_requirement), 2, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_label_selector_attributes =
        SCHEMA_STRUCT("LabelSelectorAttributes", label_selector_attributes_fields);

/* authorization/v1 ResourceAttributes */
/* clang-format off */
static const struct schema_field resource_attributes_fields[] = {
        { "namespace", &schema_string, 1, SCHEMA_GO_VALUE },
        { "verb", &schema_string, 2, SCHEMA_GO_VALUE },
        { "group", &schema_string, 3, SCHEMA_GO_VALUE },
        { "version", &schema_string, 4, SCHEMA_GO_VALUE },
        { "resource", &schema_string, 5, SCHEMA_GO_VALUE },
        { "subresource", &schema_string, 6, SCHEMA_GO_VALUE },
        { "name", &schema_string, 7, SCHEMA_GO_VALUE },
        { "fieldSelector", &schema_field_selector_attributes, 8, SCHEMA_GO_POINTER },
        { "labelSelector", &schema_label_selector_attributes, 9, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_resource_attributes =
        SCHEMA_STRUCT("ResourceAttributes", resource_attributes_fields);

/* authorization/v1 NonResourceAttributes */
/* clang-format off */
static const struct schema_field non_resource_attributes_fields[] = {
        { "path", &schema_string, 1, SCHEMA_GO_VALUE },
        { "verb", &schema_string, 2, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_non_resource_attributes =
        SCHEMA_STRUCT("NonResourceAttributes", non_resource_attributes_fields);

/* map[string]ExtraValue (ExtraValue: []string, a message of its items in protobuf) */
static const struct schema schema_extra_value = {
        .kind = SCHEMA_LIST,
        .go_type = "v1.ExtraValue",
        .items = &schema_string,
        .pb_wrapped = true,
};
static const struct schema schema_extra = {
        .kind = SCHEMA_MAP,
        .go_type = "map[string]v1.ExtraValue",
        .items = &schema_extra_value,
};

/* authorization/v1 SubjectAccessReviewSpec */
/* clang-format off */
static const struct schema_field subject_access_review_spec_fields[] = {
        { "resourceAttributes", &schema_resource_attributes, 1, SCHEMA_GO_POINTER },
        { "nonResourceAttributes", &schema_non_resource_attributes, 2, SCHEMA_GO_POINTER },
        { "user", &schema_string, 3, SCHEMA_GO_VALUE },
        { "groups", &schema_string_list, 4, SCHEMA_GO_VALUE },
        { "extra", &schema_extra, 5, SCHEMA_GO_VALUE },
        { "uid", &schema_string, 6, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_subject_access_review_spec =
        SCHEMA_STRUCT("SubjectAccessReviewSpec", subject_access_review_spec_fields);

/* authorization/v1 SelfSubjectAccessReviewSpec */
/* clang-format off */
static const struct schema_field self_subject_access_review_spec_fields[] = {
        { "resourceAttributes", &schema_resource_attributes, 1, SCHEMA_GO_POINTER },
        { "nonResourceAttributes", &schema_non_resource_attributes, 2, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_self_subject_access_review_spec =
        SCHEMA_STRUCT("SelfSubjectAccessReviewSpec", self_subject_access_review_spec_fields);

/* authorization/v1 SubjectAccessReviewStatus: allowed has no omitempty */
/* clang-format off */
static const struct schema_field subject_access_review_status_fields[] = {
        { "allowed", &schema_bool, 1, SCHEMA_GO_ALWAYS },
        { "denied", &schema_bool, 4, SCHEMA_GO_VALUE },
        { "reason", &schema_string, 2, SCHEMA_GO_VALUE },
        { "evaluationError", &schema_string, 3, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_subject_access_review_status =
        SCHEMA_STRUCT("SubjectAccessReviewStatus", subject_access_review_status_fields);

/* authorization/v1 SubjectAccessReview and LocalSubjectAccessReview: the same shape */
/* clang-format off */
static const struct schema_field subject_access_review_fields[] = {
        { "kind", &schema_string, 0, 0 },
        { "apiVersion", &schema_string, 0, 0 },
        { "metadata", &schema_object_meta, 1, SCHEMA_GO_VALUE },
        { "spec", &schema_subject_access_review_spec, 2, SCHEMA_GO_ALWAYS },
        { "status", &schema_subject_access_review_status, 3, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_subject_access_review =
        SCHEMA_STRUCT("SubjectAccessReview", subject_access_review_fields);
const struct schema schema_local_subject_access_review =
        SCHEMA_STRUCT("LocalSubjectAccessReview", subject_access_review_fields);

/* authorization/v1 SelfSubjectAccessReview */
/* clang-format off */
static const struct schema_field self_subject_access_review_fields[] = {
        { "kind", &schema_string, 0, 0 },
        { "apiVersion", &schema_string, 0, 0 },
        { "metadata", &schema_object_meta, 1, SCHEMA_GO_VALUE },
        { "spec", &schema_self_subject_access_review_spec, 2, SCHEMA_GO_ALWAYS },
        { "status", &schema_subject_access_review_status, 3, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_self_subject_access_review =
        SCHEMA_STRUCT("SelfSubjectAccessReview", self_subject_access_review_fields);

/* authorization/v1 SelfSubjectRulesReviewSpec */
/* clang-format off */
static const struct schema_field self_subject_rules_review_spec_fields[] = {
        { "namespace", &schema_string, 1, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_self_subject_rules_review_spec =
        SCHEMA_STRUCT("SelfSubjectRulesReviewSpec", self_subject_rules_review_spec_fields);

/* authorization/v1 ResourceRule: verbs has no omitempty */
/* clang-format off */
static const struct schema_field resource_rule_fields[] = {
        { "verbs", &schema_string_list, 1, SCHEMA_GO_ALWAYS },
        { "apiGroups", &schema_string_list, 2, SCHEMA_GO_VALUE },
        { "resources", &schema_string_list, 3, SCHEMA_GO_VALUE },
        { "resourceNames", &schema_string_list, 4, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_resource_rule =
        SCHEMA_STRUCT("ResourceRule", resource_rule_fields);

/* authorization/v1 NonResourceRule */
/* clang-format off */
static const struct schema_field non_resource_rule_fields[] = {
        { "verbs", &schema_string_list, 1, SCHEMA_GO_ALWAYS },
        { "nonResourceURLs", &schema_string_list, 2, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_non_resource_rule =
        SCHEMA_STRUCT("NonResourceRule", non_resource_rule_fields);

/* authorization/v1 SubjectRulesReviewStatus: only evaluationError has omitempty */
/* clang-format off */
static const struct schema_field subject_rules_review_status_fields[] = {
        { "resourceRules", SCHEMA_ATOMIC_LIST(&schema_resource_rule), 1, SCHEMA_GO_ALWAYS },
        { "nonResourceRules", SCHEMA_ATOMIC_LIST(&schema_non_resource_rule), 2, SCHEMA_GO_ALWAYS },
        { "incomplete", &schema_bool, 3, SCHEMA_GO_ALWAYS },
        { "evaluationError", &schema_string, 4, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_subject_rules_review_status =
        SCHEMA_STRUCT("SubjectRulesReviewStatus", subject_rules_review_status_fields);

/* authorization/v1 SelfSubjectRulesReview */
/* clang-format off */
static const struct schema_field self_subject_rules_review_fields[] = {
        { "kind", &schema_string, 0, 0 },
        { "apiVersion", &schema_string, 0, 0 },
        { "metadata", &schema_object_meta, 1, SCHEMA_GO_VALUE },
        { "spec", &schema_self_subject_rules_review_spec, 2, SCHEMA_GO_ALWAYS },
        { "status", &schema_subject_rules_review_status, 3, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_self_subject_rules_review =
        SCHEMA_STRUCT("SelfSubjectRulesReview", self_subject_rules_review_fields);
