/* validation-quota.c: ResourceQuota validation as kube-apiserver 1.33 does it
 * (pkg/apis/core/validation ValidateResourceQuota, ValidateResourceQuotaUpdate,
 * ValidateResourceQuotaStatusUpdate and their helpers), with upstream's paths and messages.
 * What a quota charges and admits lives in api/quota.c. */
#include <string.h>

#include "api/validation-internal.h"
#include "api/validation.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/strbuf.h"

/* K8S: helper.IsStandardQuotaResourceName (standardQuotaResources and hugepages) */
static bool is_standard_quota_resource(const char *name)
{
        static const char *const standard[] = {
                "cpu",
                "memory",
                "ephemeral-storage",
                "requests.cpu",
                "requests.memory",
                "requests.storage",
                "requests.ephemeral-storage",
                "limits.cpu",
                "limits.memory",
                "limits.ephemeral-storage",
                "pods",
                "services",
                "replicationcontrollers",
                "resourcequotas",
                "secrets",
                "persistentvolumeclaims",
                "configmaps",
                "services.nodeports",
                "services.loadbalancers",
                NULL,
        };

        for (size_t i = 0; standard[i]; i++)
                if (streq(name, standard[i]))
                        return true;
        return strncmp(name, "hugepages-", strlen("hugepages-")) == 0 ||
               strncmp(name, "requests.hugepages-", strlen("requests.hugepages-")) == 0;
}

/* K8S: helper.IsStandardResourceQuotaScope (VolumeAttributesClass is behind a gate flexlet does
 * not serve) */
static bool is_standard_scope(const char *scope)
{
        static const char *const scopes[] = { "Terminating",
                                              "NotTerminating",
                                              "BestEffort",
                                              "NotBestEffort",
                                              "PriorityClass",
                                              "CrossNamespacePodAffinity",
                                              NULL };

        for (size_t i = 0; scopes[i]; i++)
                if (streq(scope, scopes[i]))
                        return true;
        return false;
}

/* K8S: helper.IsResourceQuotaScopeValidForResource */
static bool scope_valid_for_resource(const char *scope, const char *name)
{
        static const char *const compute[] = { "cpu",    "limits.cpu",   "limits.memory",
                                               "memory", "requests.cpu", "requests.memory",
                                               NULL };
        bool pods = streq(name, "pods"), comp = false;

        for (size_t i = 0; compute[i]; i++)
                comp |= streq(name, compute[i]);
        if (streq(scope, "BestEffort"))
                return pods;
        if (is_standard_scope(scope))
                return pods || comp;
        return true;
}

/* K8S: ValidateResourceQuotaResourceName + ValidateResourceQuantityValue for every entry of a
 * resource list at path */
static void validate_quota_list(const json_t *list, const char *path, struct field_error_list *errs)
{
        const char *name;
        json_t *v;

        json_object_foreach((json_t *) list, name, v) {
                cleanup_free char *fp = xasprintf("%s[%s]", path, name);
                struct quantity q;

                if (v_validate_resource_name(name, fp, errs) == 0 && !strchr(name, '/') &&
                    !is_standard_quota_resource(name))
                        verr_str(errs, FIELD_ERROR_INVALID, fp, name,
                                 "must be a standard resource for quota");
                if (vq_parse(v, &q) == 0)
                        v_validate_quantity_value(name, &q, fp, errs);
        }
}

/* Go's %#v of a []core.ResourceQuotaScope. Caller frees. */
static char *render_scopes(const json_t *scopes)
{
        struct strbuf sb;
        size_t i;
        json_t *v;

        strbuf_init(&sb);
        if (!json_array_size(scopes)) {
                strbuf_addstr(&sb, "[]core.ResourceQuotaScope(nil)");
                return strbuf_detach(&sb);
        }
        strbuf_addstr(&sb, "[]core.ResourceQuotaScope{");
        json_array_foreach((json_t *) scopes, i, v) {
                strbuf_addf(&sb, "%s\"%s\"", i ? ", " : "", json_string_value(v) ?: "");
        }
        strbuf_addch(&sb, '}');
        return strbuf_detach(&sb);
}

/* Go's %#v of a *core.ScopeSelector. Caller frees. */
static char *render_selector(const json_t *sel)
{
        struct strbuf sb;
        size_t i, j;
        json_t *r, *v;

        strbuf_init(&sb);
        strbuf_addstr(&sb, "&core.ScopeSelector{MatchExpressions:[]core."
                           "ScopedResourceSelectorRequirement{");
        json_array_foreach(json_object_get(sel, "matchExpressions"), i, r) {
                const json_t *values = json_object_get(r, "values");
                strbuf_addf(&sb,
                            "%score.ScopedResourceSelectorRequirement{ScopeName:\"%s\", "
                            "Operator:\"%s\", Values:",
                            i ? ", " : "", json_path_string_or_empty(r, "scopeName"),
                            json_path_string_or_empty(r, "operator"));
                if (!json_array_size(values)) {
                        strbuf_addstr(&sb, "[]string(nil)}");
                        continue;
                }
                strbuf_addstr(&sb, "[]string{");
                json_array_foreach((json_t *) values, j, v) {
                        strbuf_addf(&sb, "%s\"%s\"", j ? ", " : "", json_string_value(v) ?: "");
                }
                strbuf_addstr(&sb, "}}");
        }
        strbuf_addstr(&sb, "}}");
        return strbuf_detach(&sb);
}

static bool has_both(const json_t *seen, const char *a, const char *b)
{
        return json_object_get(seen, a) && json_object_get(seen, b);
}

/* K8S: validateResourceQuotaScopes */
static void validate_scopes(const json_t *spec, struct field_error_list *errs)
{
        const json_t *scopes = json_object_get(spec, "scopes");
        const json_t *hard = json_object_get(spec, "hard");
        cleanup_json json_t *seen = json_object();
        cleanup_free char *rendered = NULL;
        size_t i;
        json_t *v;

        if (!json_array_size(scopes))
                return;
        rendered = render_scopes(scopes);
        json_array_foreach((json_t *) scopes, i, v) {
                const char *scope = json_string_value(v) ?: "";
                const char *name;
                json_t *q;

                if (!is_standard_scope(scope))
                        verr_raw(errs, FIELD_ERROR_INVALID, "spec.scopes", rendered,
                                 "unsupported scope");
                json_object_foreach((json_t *) hard, name, q) {
                        if (is_standard_quota_resource(name) &&
                            !scope_valid_for_resource(scope, name))
                                verr_raw(errs, FIELD_ERROR_INVALID, "spec.scopes", rendered,
                                         "unsupported scope applied to resource");
                }
                json_object_set_new(seen, scope, json_true());
        }
        if (has_both(seen, "BestEffort", "NotBestEffort"))
                verr_raw(errs, FIELD_ERROR_INVALID, "spec.scopes", rendered, "conflicting scopes");
        if (has_both(seen, "Terminating", "NotTerminating"))
                verr_raw(errs, FIELD_ERROR_INVALID, "spec.scopes", rendered, "conflicting scopes");
}

/* K8S: validateScopedResourceSelectorRequirement */
static void validate_scope_selector(const json_t *spec, struct field_error_list *errs)
{
        static const char *const path = "spec.scopeSelector.matchExpressions";
        const json_t *sel = json_object_get(spec, "scopeSelector");
        const json_t *hard = json_object_get(spec, "hard");
        cleanup_json json_t *seen = json_object();
        cleanup_free char *rendered = NULL;
        size_t i;
        json_t *r;

        if (!sel)
                return;
        rendered = render_selector(sel);
        json_array_foreach(json_object_get(sel, "matchExpressions"), i, r) {
                const char *scope = json_path_string_or_empty(r, "scopeName");
                const char *op = json_path_string_or_empty(r, "operator");
                size_t nvalues = json_array_size(json_object_get(r, "values"));
                const char *name;
                json_t *q;

                if (!is_standard_scope(scope))
                        verr_str(errs, FIELD_ERROR_INVALID,
                                 "spec.scopeSelector.matchExpressions.scopeName", scope,
                                 "unsupported scope");
                json_object_foreach((json_t *) hard, name, q) {
                        if (is_standard_quota_resource(name) &&
                            !scope_valid_for_resource(scope, name))
                                verr_raw(errs, FIELD_ERROR_INVALID, path, rendered,
                                         "unsupported scope applied to resource");
                }
                if ((streq(scope, "BestEffort") || streq(scope, "NotBestEffort") ||
                     streq(scope, "Terminating") || streq(scope, "NotTerminating") ||
                     streq(scope, "CrossNamespacePodAffinity")) &&
                    !streq(op, "Exists"))
                        verr_str(errs, FIELD_ERROR_INVALID,
                                 "spec.scopeSelector.matchExpressions.operator", op,
                                 "must be 'Exist' when scope is any of "
                                 "ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, "
                                 "ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or "
                                 "ResourceQuotaScopeCrossNamespacePodAffinity");
                if (streq(op, "In") || streq(op, "NotIn")) {
                        if (!nvalues)
                                verr_raw(errs, FIELD_ERROR_REQUIRED,
                                         "spec.scopeSelector.matchExpressions.values", NULL,
                                         "must be at least one value when `operator` is 'In' or "
                                         "'NotIn' for scope selector");
                } else if (streq(op, "Exists") || streq(op, "DoesNotExist")) {
                        if (nvalues) {
                                cleanup_free char *vals = vj_render(json_object_get(r, "values"));
                                verr_raw(errs, FIELD_ERROR_INVALID,
                                         "spec.scopeSelector.matchExpressions.values", vals,
                                         "must be no value when `operator` is 'Exist' or "
                                         "'DoesNotExist' for scope selector");
                        }
                } else {
                        verr_str(errs, FIELD_ERROR_INVALID,
                                 "spec.scopeSelector.matchExpressions.operator", op,
                                 "not a valid selector operator");
                }
                json_object_set_new(seen, scope, json_true());
        }
        if (has_both(seen, "BestEffort", "NotBestEffort"))
                verr_raw(errs, FIELD_ERROR_INVALID, path, rendered, "conflicting scopes");
        if (has_both(seen, "Terminating", "NotTerminating"))
                verr_raw(errs, FIELD_ERROR_INVALID, path, rendered, "conflicting scopes");
}

static void validate_spec_and_status(const json_t *rq, struct field_error_list *errs)
{
        const json_t *spec = json_object_get(rq, "spec");

        validate_quota_list(json_object_get(spec, "hard"), "spec.hard", errs);
        validate_scopes(spec, errs);
        validate_scope_selector(spec, errs);
        validate_quota_list(json_path(rq, "status.hard"), "status.hard", errs);
        validate_quota_list(json_path(rq, "status.used"), "status.used", errs);
}

size_t validate_resource_quota(const json_t *rq, struct field_error_list *errs)
{
        size_t before = errs->n;

        (void) validate_object_meta_create(rq, true, errs);
        validate_spec_and_status(rq, errs);
        return errs->n - before;
}

/* The scopes as a set: {scope: true}. */
static json_t *scope_set(const json_t *rq)
{
        json_t *set = json_object();
        size_t i;
        json_t *v;

        json_array_foreach(json_path(rq, "spec.scopes"), i, v) {
                if (json_is_string(v))
                        json_object_set_new(set, json_string_value(v), json_true());
        }
        return set;
}

size_t validate_resource_quota_update(const json_t *new_rq, const json_t *old_rq,
                                      struct field_error_list *errs)
{
        cleanup_json json_t *a = scope_set(new_rq), *b = scope_set(old_rq);
        size_t before = errs->n;

        (void) validate_object_meta_update(new_rq, old_rq, errs);
        validate_spec_and_status(new_rq, errs);
        /* K8S: the scopes cannot change */
        if (!json_equal(a, b)) {
                cleanup_free char *rendered = render_scopes(json_path(new_rq, "spec.scopes"));
                verr_raw(errs, FIELD_ERROR_INVALID, "spec.scopes", rendered, "field is immutable");
        }
        return errs->n - before;
}

size_t validate_resource_quota_status_update(const json_t *new_rq, const json_t *old_rq,
                                             struct field_error_list *errs)
{
        size_t before = errs->n;

        (void) validate_object_meta_update(new_rq, old_rq, errs);
        validate_quota_list(json_path(new_rq, "status.hard"), "status.hard", errs);
        validate_quota_list(json_path(new_rq, "status.used"), "status.used", errs);
        return errs->n - before;
}
