/* validation-scheduling.c: a pod spec's scheduling constraints as kube-apiserver validates them
 * (K8S: pkg/apis/core/validation validateAffinity and validateTopologySpreadConstraints, with
 * upstream's field paths and messages): node affinity (required terms, preferred weights and
 * terms), pod affinity and anti-affinity terms (selectors, namespaces, topologyKey,
 * matchLabelKeys and mismatchLabelKeys), and topology spread constraints (maxSkew,
 * topologyKey, whenUnsatisfiable, the {topologyKey, whenUnsatisfiable} pairs, minDomains, the
 * node inclusion policies, matchLabelKeys, labelSelector). Not the scheduling itself. */
#include <stdio.h>
#include <stdlib.h>

#include "api/validation-internal.h"
#include "api/validation.h"
#include "base/alloc.h"
#include "base/json.h"

#define NOT_POSITIVE_MSG "must be greater than zero" /* K8S isNotPositiveErrorMsg */

static void validate_weight(const json_t *obj, const char *path, struct field_error_list *errs)
{
        json_int_t w = json_integer_value(json_object_get(obj, "weight"));
        cleanup_free char *p = xasprintf("%s.weight", path);

        if (w <= 0 || w > 100)
                verr_int(errs, FIELD_ERROR_INVALID, p, w, "must be in the range 1-100");
}

/* K8S validateLabelKeys: only beside a labelSelector, each a label name. */
static void validate_label_keys(const json_t *keys, const json_t *selector, const char *path,
                                struct field_error_list *errs)
{
        size_t i;
        json_t *k;

        if (!json_array_size(keys))
                return;
        if (!json_is_object(selector)) {
                verr_raw(errs, FIELD_ERROR_FORBIDDEN, path, NULL,
                         "must not be specified when labelSelector is not set");
                return;
        }
        json_array_foreach(keys, i, k) {
                cleanup_free char *p = xasprintf("%s[%zu]", path, i);
                validate_qualified_name(json_string_value(k) ?: "", p, errs);
        }
}

/* K8S validatePodAffinityTerm. */
static void validate_pod_affinity_term(const json_t *term, const char *path,
                                       struct field_error_list *errs)
{
        const json_t *selector = json_object_get(term, "labelSelector");
        const json_t *match = json_object_get(term, "matchLabelKeys");
        const json_t *mismatch = json_object_get(term, "mismatchLabelKeys");
        const char *key = json_string_value(json_object_get(term, "topologyKey")) ?: "";
        cleanup_free char *p_sel = xasprintf("%s.labelSelector", path);
        cleanup_free char *p_nssel = xasprintf("%s.namespaceSelector", path);
        cleanup_free char *p_ns = xasprintf("%s.namespace", path); /* K8S: singular */
        cleanup_free char *p_match = xasprintf("%s.matchLabelKeys", path);
        cleanup_free char *p_mismatch = xasprintf("%s.mismatchLabelKeys", path);
        cleanup_free char *p_key = xasprintf("%s.topologyKey", path);
        size_t i;
        json_t *v;

        if (json_is_object(selector))
                v_validate_label_selector(selector, p_sel, errs);
        if (json_is_object(json_object_get(term, "namespaceSelector")))
                v_validate_label_selector(json_object_get(term, "namespaceSelector"), p_nssel,
                                          errs);
        /* K8S: ValidateNamespaceName's messages as Invalid(namespace, name, msg) */
        json_array_foreach(json_object_get(term, "namespaces"), i, v) {
                validate_dns1123_label(json_string_value(v) ?: "", p_ns, errs);
        }
        validate_label_keys(match, selector, p_match, errs);
        validate_label_keys(mismatch, selector, p_mismatch, errs);
        json_array_foreach(match, i, v) {
                cleanup_free char *p = xasprintf("%s[%zu]", p_match, i);

                if (json_is_string(v) && json_array_has_string(mismatch, json_string_value(v)))
                        verr_str(errs, FIELD_ERROR_INVALID, p, json_string_value(v),
                                 "exists in both matchLabelKeys and mismatchLabelKeys");
        }
        if (!*key)
                verr_raw(errs, FIELD_ERROR_REQUIRED, p_key, NULL, "can not be empty");
        validate_qualified_name(key, p_key, errs);
}

static void validate_pod_affinity(const json_t *pa, const char *path, struct field_error_list *errs)
{
        size_t i;
        json_t *t;

        json_array_foreach(json_object_get(pa, "requiredDuringSchedulingIgnoredDuringExecution"), i,
                           t) {
                cleanup_free char *p = xasprintf(
                        "%s.requiredDuringSchedulingIgnoredDuringExecution[%zu]", path, i);
                validate_pod_affinity_term(t, p, errs);
        }
        json_array_foreach(json_object_get(pa, "preferredDuringSchedulingIgnoredDuringExecution"),
                           i, t) {
                cleanup_free char *p = xasprintf(
                        "%s.preferredDuringSchedulingIgnoredDuringExecution[%zu]", path, i);
                cleanup_free char *pt = xasprintf("%s.podAffinityTerm", p);

                validate_weight(t, p, errs);
                validate_pod_affinity_term(json_object_get(t, "podAffinityTerm"), pt, errs);
        }
}

void v_validate_affinity(const json_t *spec, struct field_error_list *errs)
{
        const json_t *affinity = json_object_get(spec, "affinity");
        const json_t *na = json_object_get(affinity, "nodeAffinity");
        const json_t *required =
                json_object_get(na, "requiredDuringSchedulingIgnoredDuringExecution");
        size_t i;
        json_t *t;

        if (json_is_object(required)) {
                if (!json_array_size(json_object_get(required, "nodeSelectorTerms")))
                        verr_raw(errs, FIELD_ERROR_REQUIRED,
                                 "spec.affinity.nodeAffinity."
                                 "requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms",
                                 NULL, "must have at least one node selector term");
                json_array_foreach(json_object_get(required, "nodeSelectorTerms"), i, t) {
                        cleanup_free char *p = xasprintf(
                                "spec.affinity.nodeAffinity."
                                "requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[%zu]",
                                i);
                        v_validate_node_selector_term(t, p, errs);
                }
        }
        json_array_foreach(json_object_get(na, "preferredDuringSchedulingIgnoredDuringExecution"),
                           i, t) {
                cleanup_free char *p = xasprintf(
                        "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[%zu]",
                        i);
                cleanup_free char *pp = xasprintf("%s.preference", p);

                validate_weight(t, p, errs);
                v_validate_node_selector_term(json_object_get(t, "preference"), pp, errs);
        }
        if (json_is_object(json_object_get(affinity, "podAffinity")))
                validate_pod_affinity(json_object_get(affinity, "podAffinity"),
                                      "spec.affinity.podAffinity", errs);
        if (json_is_object(json_object_get(affinity, "podAntiAffinity")))
                validate_pod_affinity(json_object_get(affinity, "podAntiAffinity"),
                                      "spec.affinity.podAntiAffinity", errs);
}

void v_validate_topology_spread(const json_t *spec, struct field_error_list *errs)
{
        static const char *const actions[] = { "DoNotSchedule", "ScheduleAnyway", NULL };
        static const char *const policies[] = { "Honor", "Ignore", NULL };
        static const char *const policy_fields[] = { "nodeAffinityPolicy", "nodeTaintsPolicy" };
        const json_t *constraints = json_object_get(spec, "topologySpreadConstraints");
        size_t i, j;
        json_t *c, *other;

        json_array_foreach(constraints, i, c) {
                cleanup_free char *path = xasprintf("spec.topologySpreadConstraints[%zu]", i);
                cleanup_free char *p_skew = xasprintf("%s.maxSkew", path);
                cleanup_free char *p_key = xasprintf("%s.topologyKey", path);
                cleanup_free char *p_when = xasprintf("%s.whenUnsatisfiable", path);
                cleanup_free char *p_pair = xasprintf("%s.{topologyKey, whenUnsatisfiable}", path);
                cleanup_free char *p_min = xasprintf("%s.minDomains", path);
                cleanup_free char *p_keys = xasprintf("%s.matchLabelKeys", path);
                cleanup_free char *p_sel = xasprintf("%s.labelSelector", path);
                const char *key = json_string_value(json_object_get(c, "topologyKey")) ?: "";
                const char *when = json_string_value(json_object_get(c, "whenUnsatisfiable")) ?: "";
                const json_t *min = json_object_get(c, "minDomains");
                const json_t *selector = json_object_get(c, "labelSelector");
                json_int_t skew = json_integer_value(json_object_get(c, "maxSkew"));
                json_t *k;

                if (skew <= 0)
                        verr_int(errs, FIELD_ERROR_INVALID, p_skew, skew, NOT_POSITIVE_MSG);
                if (!*key)
                        verr_raw(errs, FIELD_ERROR_REQUIRED, p_key, NULL, "can not be empty");
                if (!streq(when, actions[0]) && !streq(when, actions[1]))
                        verr_not_supported(errs, p_when, when, actions);
                /* K8S ValidateSpreadConstraintNotRepeat: one constraint per pair */
                for (j = i + 1; j < json_array_size(constraints); j++) {
                        other = json_array_get(constraints, j);
                        if (streq(key, json_path_string_or_empty(other, "topologyKey")) &&
                            streq(when, json_path_string_or_empty(other, "whenUnsatisfiable"))) {
                                cleanup_free char *pair = xasprintf("{%s, %s}", key, when);
                                verr_str(errs, FIELD_ERROR_DUPLICATE, p_pair, pair, "");
                                break;
                        }
                }
                /* K8S validateMinDomains */
                if (min && !json_is_null(min)) {
                        if (json_integer_value(min) <= 0)
                                verr_int(errs, FIELD_ERROR_INVALID, p_min, json_integer_value(min),
                                         NOT_POSITIVE_MSG);
                        if (!streq(when, "DoNotSchedule")) {
                                cleanup_free char *why = xasprintf(
                                        "can only use minDomains if whenUnsatisfiable=DoNotSchedule, not %s",
                                        when);
                                verr_int(errs, FIELD_ERROR_INVALID, p_min, json_integer_value(min),
                                         why);
                        }
                }
                for (j = 0; j < ARRAY_SIZE(policy_fields); j++) {
                        const json_t *v = json_object_get(c, policy_fields[j]);
                        cleanup_free char *p = xasprintf("%s.%s", path, policy_fields[j]);

                        if (json_is_string(v) && !streq(json_string_value(v), policies[0]) &&
                            !streq(json_string_value(v), policies[1]))
                                verr_not_supported(errs, p, json_string_value(v), policies);
                }
                /* K8S validateMatchLabelKeysInTopologySpread */
                if (json_array_size(json_object_get(c, "matchLabelKeys")) &&
                    !json_is_object(selector))
                        verr_raw(errs, FIELD_ERROR_FORBIDDEN, p_keys, NULL,
                                 "must not be specified when labelSelector is not set");
                json_array_foreach(json_object_get(c, "matchLabelKeys"), j, k) {
                        cleanup_free char *p = xasprintf("%s[%zu]", p_keys, j);
                        const char *name = json_string_value(k) ?: "";
                        size_t e;
                        json_t *expr;
                        bool in_selector = json_object_get(json_object_get(selector, "matchLabels"),
                                                           name) != NULL;

                        validate_qualified_name(name, p, errs);
                        json_array_foreach(json_object_get(selector, "matchExpressions"), e, expr) {
                                in_selector |= streq(json_path_string_or_empty(expr, "key"), name);
                        }
                        if (in_selector)
                                verr_str(errs, FIELD_ERROR_INVALID, p, name,
                                         "exists in both matchLabelKeys and labelSelector");
                }
                if (json_is_object(selector))
                        v_validate_label_selector(selector, p_sel, errs);
        }
}
