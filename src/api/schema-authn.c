/* schema-authn.c: authentication.k8s.io/v1 SelfSubjectReview, the answer to "who am I" (`kubectl
 * auth whoami`). Field names, protobuf numbers and Go declarations follow k8s.io/api
 * authentication/v1 types.go and generated.proto (release-1.33). UserInfo.extra is not listed:
 * no authenticator flexlet has sets it. */
#include "api/schemas.h"

/* authentication/v1 UserInfo */
/* clang-format off */
static const struct schema_field user_info_fields[] = {
        { "username", &schema_string, 1, SCHEMA_GO_VALUE },
        { "uid", &schema_string, 2, SCHEMA_GO_VALUE },
        { "groups", &schema_string_list, 3, SCHEMA_GO_VALUE },
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
