/* validation-policy.c: validation of PodDisruptionBudgets as kube-apiserver 1.33 does it
 * (K8S: pkg/apis/policy/validation ValidatePodDisruptionBudget(Spec), ...StatusUpdate,
 * pkg/apis/apps/validation ValidatePositiveIntOrPercent and IsNotMoreThan100Percent). The
 * object arrives checked by schema_check: minAvailable and maxUnavailable are a JSON integer or
 * string when present. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/validation-internal.h"
#include "api/validation.h"
#include "base/alloc.h"
#include "base/json.h"

/* K8S: validation.IsValidPercent's RegexError(percentErrMsg, "[0-9]+%", "1%", "93%") */
#define PERCENT_MESSAGE                                                             \
 "a valid percent string must be a numeric string followed by an ending '%' (e.g. " \
 "'1%',  or '93%', regex used for validation is '[0-9]+%')"

/* Go's %#v of an intstr.IntOrString value, which field.Invalid prints for it (String() has a
 * pointer receiver, so the value is printed raw): intstr.IntOrString{Type:1, IntVal:0,
 * StrVal:"50"}. */
static char *render_int_or_string(const json_t *v)
{
        cleanup_free char *q = NULL;

        if (json_is_integer(v))
                return xasprintf("intstr.IntOrString{Type:0, IntVal:%lld, StrVal:\"\"}",
                                 (long long) json_integer_value(v));
        q = field_value_quote(json_string_value(v) ?: "");
        return xasprintf("intstr.IntOrString{Type:1, IntVal:0, StrVal:%s}", q);
}

static bool is_percent(const char *s)
{
        size_t n = strlen(s), digits = strspn(s, "0123456789");

        return n >= 2 && digits == n - 1 && s[n - 1] == '%';
}

/* K8S: ValidatePositiveIntOrPercent, then IsNotMoreThan100Percent. */
void v_validate_int_or_percent(const json_t *v, const char *field, struct field_error_list *errs)
{
        cleanup_free char *rendered = render_int_or_string(v);

        if (json_is_integer(v)) {
                if (json_integer_value(v) < 0)
                        verr_int(errs, FIELD_ERROR_INVALID, field,
                                 (long long) json_integer_value(v),
                                 "must be greater than or equal to 0");
                return;
        }
        if (!is_percent(json_string_value(v))) {
                verr_raw(errs, FIELD_ERROR_INVALID, field, rendered, PERCENT_MESSAGE);
                return;
        }
        /* K8S: getPercentValue: Atoi of the digits; an overflowing one is not a percent */
        if (strtoll(json_string_value(v), NULL, 10) > 100 && strlen(json_string_value(v)) <= 19)
                verr_raw(errs, FIELD_ERROR_INVALID, field, rendered,
                         "must not be greater than 100%");
}

size_t validate_pdb(const json_t *pdb, bool meta, struct field_error_list *errs)
{
        static const char *const policies[] = { "AlwaysAllow", "IfHealthyBudget", NULL };
        size_t before = errs->n;
        const json_t *spec = vj_obj(pdb, "spec");
        const json_t *min = json_object_get(spec, "minAvailable");
        const json_t *max = json_object_get(spec, "maxUnavailable");
        const json_t *policy = json_object_get(spec, "unhealthyPodEvictionPolicy");

        if (json_is_null(min))
                min = NULL;
        if (json_is_null(max))
                max = NULL;
        if (min && max) {
                /* K8S: field.Invalid(fldPath, spec, ...): Go prints the internal struct with
                 * %#v, pointers as addresses; flexlet shows the spec as JSON instead */
                cleanup_free char *rendered = vj_render(spec);
                verr_raw(errs, FIELD_ERROR_INVALID, "spec", rendered,
                         "minAvailable and maxUnavailable cannot be both set");
        }
        if (min)
                v_validate_int_or_percent(min, "spec.minAvailable", errs);
        if (max)
                v_validate_int_or_percent(max, "spec.maxUnavailable", errs);
        v_validate_label_selector(vj_obj(spec, "selector"), "spec.selector", errs);
        if (json_is_string(policy)) {
                const char *p = json_string_value(policy);

                if (!streq(p, policies[0]) && !streq(p, policies[1]))
                        verr_not_supported(errs, "spec.unhealthyPodEvictionPolicy", p, policies);
        }
        /* K8S: the generic registry checks metadata after the kind's own rules (BeforeCreate) */
        if (meta)
                (void) validate_object_meta_create(pdb, true, errs);
        return errs->n - before;
}

size_t validate_pdb_update(const json_t *new_pdb, const json_t *old_pdb,
                           struct field_error_list *errs)
{
        size_t before = errs->n;

        (void) validate_object_meta_update(new_pdb, old_pdb, errs);
        (void) validate_pdb(new_pdb, false, errs);
        return errs->n - before;
}

size_t validate_pdb_status_update(const json_t *new_pdb, const json_t *old_pdb,
                                  struct field_error_list *errs)
{
        static const char *const fields[] = { "disruptionsAllowed", "currentHealthy",
                                              "desiredHealthy", "expectedPods" };
        const json_t *status = vj_obj(new_pdb, "status");
        size_t before = errs->n;

        (void) validate_object_meta_update(new_pdb, old_pdb, errs);
        for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
                const json_t *v = json_object_get(status, fields[i]);
                cleanup_free char *path = xasprintf("status.%s", fields[i]);

                if (json_is_integer(v) && json_integer_value(v) < 0)
                        verr_int(errs, FIELD_ERROR_INVALID, path, (long long) json_integer_value(v),
                                 "must be greater than or equal to 0");
        }
        return errs->n - before;
}
