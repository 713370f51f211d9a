/* schema-certificates.c: certificates.k8s.io/v1 CertificateSigningRequest, a request for an
 * x509 certificate from a named signer (a kubelet's client and serving certificates). Field
 * names, protobuf numbers and Go declarations follow k8s.io/api certificates/v1 types.go and
 * generated.proto (release-1.33). spec.extra is not listed: no authenticator flexlet has sets
 * a user's extra, so the server never writes it and a client may not. */
#include "api/schemas.h"

/* certificates/v1 CertificateSigningRequestSpec: request and signerName without omitempty */
/* clang-format off */
static const struct schema_field csr_spec_fields[] = {
        { "request", &schema_bytes, 1, SCHEMA_GO_ALWAYS },
        { "signerName", &schema_string, 7, SCHEMA_GO_ALWAYS },
        { "expirationSeconds", &schema_int32, 8, SCHEMA_GO_POINTER },
        { "usages", &schema_string_list, 5, SCHEMA_GO_VALUE },
        { "username", &schema_string, 2, SCHEMA_GO_VALUE },
        { "uid", &schema_string, 3, SCHEMA_GO_VALUE },
        { "groups", &schema_string_list, 4, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_csr_spec =
        SCHEMA_STRUCT("CertificateSigningRequestSpec", csr_spec_fields);

/* certificates/v1 CertificateSigningRequestCondition: type and status without omitempty */
/* clang-format off */
static const struct schema_field csr_condition_fields[] = {
        { "type", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "status", &schema_string, 6, SCHEMA_GO_ALWAYS },
        { "reason", &schema_string, 2, SCHEMA_GO_VALUE },
        { "message", &schema_string, 3, SCHEMA_GO_VALUE },
        { "lastUpdateTime", &schema_time, 4, SCHEMA_GO_VALUE },
        { "lastTransitionTime", &schema_time, 5, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_csr_condition =
        SCHEMA_STRUCT("CertificateSigningRequestCondition", csr_condition_fields);

/* certificates/v1 CertificateSigningRequestStatus */
/* clang-format off */
static const struct schema_field csr_status_fields[] = {
        /* K8S: +listType=map but no patchStrategy: a strategic merge patch replaces it */
        { "conditions", SCHEMA_ATOMIC_LIST(&schema_csr_condition), 1, SCHEMA_GO_VALUE },
        { "certificate", &schema_bytes, 2, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_csr_status =
        SCHEMA_STRUCT("CertificateSigningRequestStatus", csr_status_fields);

/* certificates/v1 CertificateSigningRequest */
/* clang-format off */
static const struct schema_field csr_fields[] = {
        { "kind", &schema_string, 0, 0 },
        { "apiVersion", &schema_string, 0, 0 },
        { "metadata", &schema_object_meta, 1, SCHEMA_GO_VALUE },
        { "spec", &schema_csr_spec, 2, SCHEMA_GO_VALUE },
        { "status", &schema_csr_status, 3, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_certificate_signing_request =
        SCHEMA_STRUCT("CertificateSigningRequest", csr_fields);
