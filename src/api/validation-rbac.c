/* validation-rbac.c: defaulting and validation of RBAC's Role, ClusterRole, RoleBinding and
 * ClusterRoleBinding as kube-apiserver 1.33 does them (K8S: pkg/apis/rbac/v1/defaults.go,
 * pkg/apis/rbac/validation/validation.go), with upstream's field paths and messages. What the
 * rules grant and who may write them (escalation) is the API server's (apiserver/rbac*.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/selector.h"
#include "api/validation-internal.h"
#include "api/validation.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/strbuf.h"

#define RBAC_GROUP "rbac.authorization.k8s.io"

static const char *str(const json_t *o, const char *key)
{
        const char *s = vj_str(o, key);
        return s ? s : "";
}

/* Go's %#v of a []string, as field.Invalid prints one: []string{"a", "b"}. */
static char *render_strings(const json_t *l)
{
        struct strbuf sb;
        size_t i;
        json_t *v;

        strbuf_init(&sb);
        strbuf_addstr(&sb, "[]string{");
        json_array_foreach(l, i, v) {
                cleanup_free char *q = field_value_quote(json_string_value(v) ?: "");
                strbuf_addf(&sb, "%s%s", i ? ", " : "", q);
        }
        strbuf_addch(&sb, '}');
        return strbuf_detach(&sb);
}

void rbac_set_defaults(json_t *obj)
{
        json_t *ref = json_object_get(obj, "roleRef");
        json_t *subjects = json_object_get(obj, "subjects");
        size_t i;
        json_t *s;

        /* K8S: SetDefaults_RoleBinding, SetDefaults_ClusterRoleBinding */
        if (json_is_object(ref) && !str(ref, "apiGroup")[0])
                json_object_set_new(ref, "apiGroup", json_string(RBAC_GROUP));
        /* K8S: SetDefaults_Subject: User and Group are RBAC's, ServiceAccount the core group */
        json_array_foreach(subjects, i, s) {
                const char *kind = str(s, "kind");

                if (!json_is_object(s) || str(s, "apiGroup")[0])
                        continue;
                if (streq(kind, "User") || streq(kind, "Group"))
                        json_object_set_new(s, "apiGroup", json_string(RBAC_GROUP));
        }
}

/* K8S: ValidatePolicyRule */
static void validate_policy_rule(const json_t *rule, bool namespaced, const char *path,
                                 struct field_error_list *errs)
{
        const json_t *urls = vj_arr(rule, "nonResourceURLs");
        cleanup_free char *verbs = xasprintf("%s.verbs", path);

        if (json_array_size(vj_arr(rule, "verbs")) == 0)
                verr_raw(errs, FIELD_ERROR_REQUIRED, verbs, NULL,
                         "verbs must contain at least one value");
        if (json_array_size(urls) > 0) {
                cleanup_free char *p = xasprintf("%s.nonResourceURLs", path);
                cleanup_free char *v = render_strings(urls);

                if (namespaced)
                        verr_raw(errs, FIELD_ERROR_INVALID, p, v,
                                 "namespaced rules cannot apply to non-resource URLs");
                if (json_array_size(vj_arr(rule, "apiGroups")) > 0 ||
                    json_array_size(vj_arr(rule, "resources")) > 0 ||
                    json_array_size(vj_arr(rule, "resourceNames")) > 0)
                        verr_raw(errs, FIELD_ERROR_INVALID, p, v,
                                 "rules cannot apply to both regular resources and non-resource "
                                 "URLs");
                return;
        }
        if (json_array_size(vj_arr(rule, "apiGroups")) == 0) {
                cleanup_free char *p = xasprintf("%s.apiGroups", path);
                verr_raw(errs, FIELD_ERROR_REQUIRED, p, NULL,
                         "resource rules must supply at least one api group");
        }
        if (json_array_size(vj_arr(rule, "resources")) == 0) {
                cleanup_free char *p = xasprintf("%s.resources", path);
                verr_raw(errs, FIELD_ERROR_REQUIRED, p, NULL,
                         "resource rules must supply at least one resource");
        }
}

size_t validate_rbac_role(const json_t *role, bool cluster, struct field_error_list *errs)
{
        size_t before = errs->n, i;
        json_t *rule;
        const json_t *agg = vj_obj(role, "aggregationRule");

        validate_object_meta_create_named(role, !cluster, OBJECT_NAME_PATH_SEGMENT, errs);
        json_array_foreach(vj_arr(role, "rules"), i, rule) {
                cleanup_free char *p = xasprintf("rules[%zu]", i);
                validate_policy_rule(rule, !cluster, p, errs);
        }
        /* K8S: ValidateClusterRole: an aggregationRule needs a selector, each a valid one */
        if (cluster && agg) {
                const json_t *sels = vj_arr(agg, "clusterRoleSelectors");
                json_t *sel;

                if (json_array_size(sels) == 0)
                        verr_raw(errs, FIELD_ERROR_REQUIRED, "aggregationRule.clusterRoleSelectors",
                                 NULL,
                                 "at least one clusterRoleSelector required if aggregationRule is "
                                 "non-nil");
                json_array_foreach(sels, i, sel) {
                        cleanup_free char *p =
                                xasprintf("aggregationRule.clusterRoleSelectors[%zu]", i);
                        size_t n = errs->n;

                        v_validate_label_selector(sel, p, errs);
                        if (errs->n == n && label_selector_object_matches(sel, NULL) < 0)
                                verr_str(errs, FIELD_ERROR_INVALID, p, "null",
                                         "invalid label selector.");
                }
        }
        return errs->n - before;
}

size_t validate_rbac_role_update(const json_t *new_role, const json_t *old_role, bool cluster,
                                 struct field_error_list *errs)
{
        size_t before = errs->n;

        validate_rbac_role(new_role, cluster, errs);
        validate_object_meta_update(new_role, old_role, errs);
        return errs->n - before;
}

/* K8S: ValidateRoleBindingSubject */
static void validate_subject(const json_t *s, bool namespaced, const char *path,
                             struct field_error_list *errs)
{
        static const char *const kinds[] = { "ServiceAccount", "User", "Group", NULL };
        static const char *const rbac_group[] = { RBAC_GROUP, NULL };
        static const char *const core_group[] = { "", NULL };
        const char *kind = str(s, "kind"), *name = str(s, "name"), *group = str(s, "apiGroup");
        cleanup_free char *pname = xasprintf("%s.name", path);
        cleanup_free char *pgroup = xasprintf("%s.apiGroup", path);

        if (!name[0])
                verr_raw(errs, FIELD_ERROR_REQUIRED, pname, NULL, "");
        if (streq(kind, "ServiceAccount")) {
                if (name[0])
                        validate_dns1123_subdomain(name, pname, errs);
                if (group[0])
                        verr_not_supported(errs, pgroup, group, core_group);
                if (!namespaced && !str(s, "namespace")[0]) {
                        cleanup_free char *p = xasprintf("%s.namespace", path);
                        verr_raw(errs, FIELD_ERROR_REQUIRED, p, NULL, "");
                }
        } else if (streq(kind, "User") || streq(kind, "Group")) {
                if (!streq(group, RBAC_GROUP))
                        verr_not_supported(errs, pgroup, group, rbac_group);
        } else {
                cleanup_free char *p = xasprintf("%s.kind", path);
                verr_not_supported(errs, p, kind, kinds);
        }
}

size_t validate_rbac_binding(const json_t *b, bool cluster, struct field_error_list *errs)
{
        static const char *const rbac_group[] = { RBAC_GROUP, NULL };
        static const char *const role_kinds[] = { "Role", "ClusterRole", NULL };
        static const char *const cluster_kinds[] = { "ClusterRole", NULL };
        size_t before = errs->n, i;
        const json_t *ref = vj_obj(b, "roleRef");
        const char *group = str(ref, "apiGroup"), *kind = str(ref, "kind"),
                   *name = str(ref, "name");
        json_t *s;

        validate_object_meta_create_named(b, !cluster, OBJECT_NAME_PATH_SEGMENT, errs);
        if (!streq(group, RBAC_GROUP))
                verr_not_supported(errs, "roleRef.apiGroup", group, rbac_group);
        if (cluster ? !streq(kind, "ClusterRole")
                    : !streq(kind, "Role") && !streq(kind, "ClusterRole"))
                verr_not_supported(errs, "roleRef.kind", kind,
                                   cluster ? cluster_kinds : role_kinds);
        if (!name[0]) {
                verr_raw(errs, FIELD_ERROR_REQUIRED, "roleRef.name", NULL, "");
        } else {
                /* K8S: ValidateRBACName is path.IsValidPathSegmentName; run it through the
                 * metadata rule with a throwaway object so the messages are the same */
                json_t *tmp = json_pack("{s:{s:s}}", "metadata", "name", name);
                struct field_error_list e;

                field_error_list_init(&e);
                validate_object_meta_create_named(tmp, false, OBJECT_NAME_PATH_SEGMENT, &e);
                for (size_t k = 0; k < e.n; k++)
                        if (streq(e.items[k].field, "metadata.name"))
                                verr_str(errs, FIELD_ERROR_INVALID, "roleRef.name", name,
                                         e.items[k].detail);
                field_error_list_release(&e);
                json_decref(tmp);
        }
        json_array_foreach(vj_arr(b, "subjects"), i, s) {
                cleanup_free char *p = xasprintf("subjects[%zu]", i);
                validate_subject(s, !cluster, p, errs);
        }
        return errs->n - before;
}

size_t validate_rbac_binding_update(const json_t *new_b, const json_t *old_b, bool cluster,
                                    struct field_error_list *errs)
{
        size_t before = errs->n;
        const json_t *nref = vj_obj(new_b, "roleRef"), *oref = vj_obj(old_b, "roleRef");

        validate_rbac_binding(new_b, cluster, errs);
        validate_object_meta_update(new_b, old_b, errs);
        if (!streq(str(nref, "apiGroup"), str(oref, "apiGroup")) ||
            !streq(str(nref, "kind"), str(oref, "kind")) ||
            !streq(str(nref, "name"), str(oref, "name"))) {
                cleanup_free char *g = field_value_quote(str(nref, "apiGroup"));
                cleanup_free char *k = field_value_quote(str(nref, "kind"));
                cleanup_free char *n = field_value_quote(str(nref, "name"));
                /* K8S: the value is the internal rbac.RoleRef, printed with %#v */
                cleanup_free char *v =
                        xasprintf("rbac.RoleRef{APIGroup:%s, Kind:%s, Name:%s}", g, k, n);

                verr_raw(errs, FIELD_ERROR_INVALID, "roleRef", v, "cannot change roleRef");
        }
        return errs->n - before;
}
