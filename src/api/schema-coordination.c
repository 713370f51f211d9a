/* schema-coordination.c: coordination.k8s.io/v1 Lease: a named, timed claim that one holder
 * renews (a node's heartbeat in kube-node-lease, a controller's leadership). Field names,
 * protobuf numbers and Go declarations follow k8s.io/api coordination/v1 types.go and
 * generated.proto (release-1.33): every spec field is a pointer with omitempty. */
#include "api/schemas.h"

/* coordination/v1 LeaseSpec */
/* clang-format off */
static const struct schema_field lease_spec_fields[] = {
        { "holderIdentity", &schema_string, 1, SCHEMA_GO_POINTER },
        { "leaseDurationSeconds", &schema_int32, 2, SCHEMA_GO_POINTER },
        { "acquireTime", &schema_micro_time, 3, SCHEMA_GO_POINTER },
        { "renewTime", &schema_micro_time, 4, SCHEMA_GO_POINTER },
        { "leaseTransitions", &schema_int32, 5, SCHEMA_GO_POINTER },
        { "strategy", &schema_string, 6, SCHEMA_GO_POINTER },
        { "preferredHolder", &schema_string, 7, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_lease_spec = SCHEMA_STRUCT("LeaseSpec", lease_spec_fields);

/* coordination/v1 Lease */
/* clang-format off */
static const struct schema_field lease_fields[] = {
        { "kind", &schema_string, 0, 0 },
        { "apiVersion", &schema_string, 0, 0 },
        { "metadata", &schema_object_meta, 1, SCHEMA_GO_VALUE },
        { "spec", &schema_lease_spec, 2, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_lease = SCHEMA_STRUCT("Lease", lease_fields);
