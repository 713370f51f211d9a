/* schema-authn.c: authentication.k8s.io/v1 SelfSubjectReview, the answer to "who am I" (`kubectl
 * auth whoami`), and TokenReview, "whom does this token name". Field names, protobuf numbers and Go
 * declarations follow k8s.io/api authentication/v1 types.go and generated.proto (release-1.33).
 * UserInfo.extra is map[string]ExtraValue, a message {repeated string items = 1} in protobuf (a
 * pb_wrapped list): impersonation (Impersonate-Extra-*) sets it. */
#include "api/schemas.h"

/* authentication/v1 ExtraValue and map[string]ExtraValue */
static const struct schema schema_extra_value = {
        .kind = SCHEMA_LIST,
        .go_type = "v1.ExtraValue",
        .items = &schema_string,
        .pb_wrapped = true,
};
static const struct schema schema_user_extra = {
        .kind = SCHEMA_MAP,
        .go_type = "map[string]v1.ExtraValue",
        .items = &schema_extra_value,
};

/* authentication/v1 UserInfo */
/* clang-format off */
static const struct schema_field user_info_fields[] = {
        { "username", &schema_string, 1, SCHEMA_GO_VALUE },
        { "uid", &schema_string, 2, SCHEMA_GO_VALUE },
        { "groups", &schema_string_list, 3, SCHEMA_GO_VALUE },
        { "extra", &schema_user_extra, 4, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_user_info = SCHEMA_STRUCT("UserInfo", user_info_fields);

/* authentication/v1 SelfSubjectReviewStatus */
/* clang-format off */
static const struct schema_field self_subject_review_status_fields[] = {
        { "userInfo", &schema_user_info, 1, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_self_subject_review_status =
        SCHEMA_STRUCT("SelfSubjectReviewStatus", self_subject_review_status_fields);

/* authentication/v1 SelfSubjectReview */
/* clang-format off */
static const struct schema_field self_subject_review_fields[] = {
        { "kind", &schema_string, 0, 0 },
        { "apiVersion", &schema_string, 0, 0 },
        { "metadata", &schema_object_meta, 1, SCHEMA_GO_VALUE },
        { "status", &schema_self_subject_review_status, 2, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_self_subject_review =
        SCHEMA_STRUCT("SelfSubjectReview", self_subject_review_fields);

/* authentication/v1 BoundObjectReference */
/* clang-format off */
static const struct schema_field bound_object_reference_fields[] = {
        { "kind", &schema_string, 1, SCHEMA_GO_VALUE },
        { "apiVersion", &schema_string, 2, SCHEMA_GO_VALUE },
        { "name", &schema_string, 3, SCHEMA_GO_VALUE },
        { "uid", &schema_string, 4, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_bound_object_reference =
        SCHEMA_STRUCT("BoundObjectReference", bound_object_reference_fields);

/* authentication/v1 TokenRequestSpec: no omitempty on any field (json:"audiences" etc.) */
/* clang-format off */
static const struct schema_field token_request_spec_fields[] = {
        { "audiences", &schema_string_list, 1, SCHEMA_GO_ALWAYS },
        { "expirationSeconds", &schema_int64, 4, SCHEMA_GO_POINTER },
        { "boundObjectRef", &schema_bound_object_reference, 3, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_token_request_spec =
        SCHEMA_STRUCT("TokenRequestSpec", token_request_spec_fields);

/* authentication/v1 TokenRequestStatus */
/* clang-format off */
static const struct schema_field token_request_status_fields[] = {
        { "token", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "expirationTimestamp", &schema_time, 2, SCHEMA_GO_ALWAYS },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_token_request_status =
        SCHEMA_STRUCT("TokenRequestStatus", token_request_status_fields);

/* authentication/v1 TokenRequest: the serviceaccounts/token subresource's object */
/* clang-format off */
static const struct schema_field token_request_fields[] = {
        { "kind", &schema_string, 0, 0 },
        { "apiVersion", &schema_string, 0, 0 },
        { "metadata", &schema_object_meta, 1, SCHEMA_GO_VALUE },
        { "spec", &schema_token_request_spec, 2, SCHEMA_GO_ALWAYS },
        { "status", &schema_token_request_status, 3, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_token_request = SCHEMA_STRUCT("TokenRequest", token_request_fields);
/* authentication/v1 TokenReviewSpec */
/* clang-format off */
static const struct schema_field token_review_spec_fields[] = {
        { "token", &schema_string, 1, SCHEMA_GO_VALUE },
        { "audiences", &schema_string_list, 2, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_token_review_spec =
        SCHEMA_STRUCT("TokenReviewSpec", token_review_spec_fields);

/* authentication/v1 TokenReviewStatus */
/* clang-format off */
static const struct schema_field token_review_status_fields[] = {
        { "authenticated", &schema_bool, 1, SCHEMA_GO_VALUE },
        { "user", &schema_user_info, 2, SCHEMA_GO_VALUE },
        { "error", &schema_string, 3, SCHEMA_GO_VALUE },
        { "audiences", &schema_string_list, 4, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_token_review_status =
        SCHEMA_STRUCT("TokenReviewStatus", token_review_status_fields);

/* authentication/v1 TokenReview */
/* clang-format off */
static const struct schema_field token_review_fields[] = {
        { "kind", &schema_string, 0, 0 },
        { "apiVersion", &schema_string, 0, 0 },
        { "metadata", &schema_object_meta, 1, SCHEMA_GO_VALUE },
        { "spec", &schema_token_review_spec, 2, SCHEMA_GO_VALUE },
        { "status", &schema_token_review_status, 3, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_token_review = SCHEMA_STRUCT("TokenReview", token_review_fields);
