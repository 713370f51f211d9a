/* validation-coordination.c: validation of Leases as kube-apiserver 1.33 does it (K8S:
 * pkg/apis/coordination/validation ValidateLease, ValidateLeaseSpec, ValidateLeaseUpdate). The
 * object arrives checked by schema_check: the spec's integers are JSON integers when present. */
#include "api/validation-internal.h"
#include "api/validation.h"

static void validate_lease_spec(const json_t *lease, struct field_error_list *errs)
{
        const json_t *spec = vj_obj(lease, "spec");
        const json_t *duration = json_object_get(spec, "leaseDurationSeconds");
        const json_t *transitions = json_object_get(spec, "leaseTransitions");

        /* K8S: field.Invalid of the *int32 prints the number it points to */
        if (json_is_integer(duration) && json_integer_value(duration) <= 0)
                verr_int(errs, FIELD_ERROR_INVALID, "spec.leaseDurationSeconds",
                         (long long) json_integer_value(duration), "must be greater than 0");
        if (json_is_integer(transitions) && json_integer_value(transitions) < 0)
                verr_int(errs, FIELD_ERROR_INVALID, "spec.leaseTransitions",
                         (long long) json_integer_value(transitions),
                         "must be greater than or equal to 0");
}

size_t validate_lease(const json_t *lease, struct field_error_list *errs)
{
        size_t before = errs->n;

        (void) validate_object_meta_create(lease, true, errs);
        validate_lease_spec(lease, errs);
        return errs->n - before;
}

size_t validate_lease_update(const json_t *new_lease, const json_t *old_lease,
                             struct field_error_list *errs)
{
        size_t before = errs->n;

        (void) validate_object_meta_update(new_lease, old_lease, errs);
        validate_lease_spec(new_lease, errs);
        return errs->n - before;
}
