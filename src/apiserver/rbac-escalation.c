/* rbac-escalation.c: who may write Roles, ClusterRoles and their bindings, as upstream's RBAC
 * registries decide it (K8S: pkg/registry/rbac/{role,clusterrole,rolebinding,
 * clusterrolebinding}/policybased/storage.go, pkg/registry/rbac/escalation_check.go,
 * pkg/registry/rbac/validation/rule.go ConfirmNoEscalation): nobody grants what they do not
 * hold, unless they may `escalate` the role or `bind` the role a binding names. The strategies
 * of strategy-rbac.c call these. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apiserver/authn.h"
#include "apiserver/authz.h"
#include "apiserver/rbac.h"
#include "apiserver/resources.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/strbuf.h"
#include "base/utf8.h"
#include "store/store.h"

#define RBAC_GROUP "rbac.authorization.k8s.io"

/* K8S: EscalationAllowed: system:masters may write anything */
static bool privileged(const struct authn_user *u)
{
        for (size_t i = 0; u && u->groups && u->groups[i]; i++)
                if (streq(u->groups[i], AUTHN_GROUP_MASTERS))
                        return true;
        return false;
}

/* Whether the chain allows user verb on RBAC's resource (name, in ns). */
static bool authorized(const struct write_check *c, const char *verb, const char *group,
                       const char *resource, const char *name)
{
        struct authz_attributes a = { .user = c->user,
                                      .verb = verb,
                                      .resource_request = true,
                                      .api_group = group,
                                      .api_version = "*",
                                      .resource = resource,
                                      .subresource = "",
                                      .ns = c->ns,
                                      .name = name,
                                      .path = "" };
        cleanup_free char *reason = NULL;

        return authz_authorize(c->authz, &a, &reason) == AUTHZ_ALLOW;
}

/* K8S: rbacregistry.IsOnlyMutatingGCFields: old with new's ownerReferences and finalizers is
 * new (server-set fields aside). */
static bool only_gc_fields(const json_t *obj, const json_t *old)
{
        cleanup_json json_t *a = json_deep_copy(old);
        cleanup_json json_t *b = json_deep_copy(obj);
        json_t *ma = json_object_ensure(a, "metadata"), *mb = json_object_ensure(b, "metadata");
        static const char *const gc[] = { "ownerReferences", "finalizers" };
        static const char *const server[] = { "resourceVersion", "managedFields", "generation" };

        for (size_t i = 0; i < ARRAY_SIZE(gc); i++) {
                json_t *v = json_object_get(mb, gc[i]);
                if (v)
                        json_object_set(ma, gc[i], v);
                else
                        json_object_del(ma, gc[i]);
        }
        for (size_t i = 0; i < ARRAY_SIZE(server); i++) {
                json_object_del(ma, server[i]);
                json_object_del(mb, server[i]);
        }
        return json_equal(a, b);
}

struct collect {
        json_t *rules;
        json_t *errors; /* distinct messages */
};

static bool collect_rule(void *ud, const struct rbac_rule_source *src, const json_t *rule,
                         const char *err)
{
        struct collect *c = ud;
        size_t i;
        json_t *e;

        if (rule) {
                json_array_append(c->rules, (json_t *) rule);
                return true;
        }
        json_array_foreach(c->errors, i, e)
                if (streq(json_string_value(e), err))
                        return true;
        json_array_append_new(c->errors, json_string(err));
        return true;
}

/* Go's %q of a []string. */
static void add_go_strings(struct strbuf *sb, char **list)
{
        strbuf_addch(sb, '[');
        for (size_t i = 0; list && list[i]; i++) {
                if (i)
                        strbuf_addch(sb, ' ');
                utf8_go_quote(sb, list[i], strlen(list[i]));
        }
        strbuf_addch(sb, ']');
}

static int compare_strings(const void *a, const void *b)
{
        return strcmp(*(char *const *) a, *(char *const *) b);
}

/* K8S: ConfirmNoEscalation: the rules c->user holds in c->ns must cover rules; -EPERM with
 * upstream's message listing what is missing (compacted, sorted, each once). */
static int confirm_no_escalation(const struct write_check *c, const json_t *rules,
                                 struct error **reterr)
{
        struct collect held = { .rules = json_array(), .errors = json_array() };
        cleanup_json json_t *missing = NULL, *compact = NULL;
        char **lines = NULL;
        size_t n = 0, i;
        json_t *rule;
        struct strbuf sb;
        int r = 0;

        if (c->rbac)
                rbac_visit_rules(c->rbac, c->user, c->ns, collect_rule, &held);
        if (rbac_rules_cover(held.rules, rules, &missing))
                goto out;
        compact = rbac_rules_compact(missing);
        lines = xcalloc(json_array_size(compact) + 1, sizeof(*lines));
        json_array_foreach(compact, i, rule) {
                char *line = rbac_rule_compact_string(rule);
                bool seen = false;

                for (size_t k = 0; k < n && !seen; k++)
                        seen = streq(lines[k], line);
                if (seen)
                        free(line);
                else
                        lines[n++] = line;
        }
        qsort(lines, n, sizeof(*lines), compare_strings);
        strbuf_init(&sb);
        strbuf_addstr(&sb, "user ");
        utf8_go_quote(&sb, c->user->name, strlen(c->user->name));
        strbuf_addstr(&sb, " (groups=");
        add_go_strings(&sb, c->user->groups);
        strbuf_addstr(&sb, ") is attempting to grant RBAC permissions not currently held:");
        for (i = 0; i < n; i++) {
                strbuf_addf(&sb, "\n%s", lines[i]);
                free(lines[i]);
        }
        free(lines);
        /* K8S: "; resolution errors: %v" of a one-element []error holding the aggregate */
        if (json_array_size(held.errors)) {
                json_t *e;

                strbuf_addstr(&sb, "; resolution errors: [");
                if (json_array_size(held.errors) > 1)
                        strbuf_addch(&sb, '[');
                json_array_foreach(held.errors, i, e)
                        strbuf_addf(&sb, "%s%s", i ? ", " : "", json_string_value(e));
                if (json_array_size(held.errors) > 1)
                        strbuf_addch(&sb, ']');
                strbuf_addch(&sb, ']');
        }
        r = error_set(reterr, EPERM, "%s", sb.buf);
        strbuf_release(&sb);
out:
        json_decref(held.rules);
        json_decref(held.errors);
        return r;
}

/* K8S: the role storages' Create and Update */
int rbac_authorize_role_write(const struct write_check *c, const json_t *obj, const json_t *old,
                              struct error **reterr)
{
        bool cluster = !c->res->namespaced;
        int r;

        if (privileged(c->user) || (old && only_gc_fields(obj, old)))
                return 0;
        /* K8S: RoleEscalationAuthorized: `escalate` on the role (by the URL's name) */
        if (authorized(c, "escalate", RBAC_GROUP, c->res->plural, c->name))
                return 0;
        r = confirm_no_escalation(c, json_object_get(obj, "rules"), reterr);
        if (r < 0 || !cluster || !json_is_object(json_object_get(obj, "aggregationRule")))
                return r;
        /* K8S: an aggregationRule can gather anything: it needs * on everything */
        {
                cleanup_json json_t *all = json_pack("[{s:[s], s:[s], s:[s]}, {s:[s], s:[s]}]",
                                                     "verbs", "*", "apiGroups", "*", "resources",
                                                     "*", "verbs", "*", "nonResourceURLs", "*");
                cleanup_error struct error *err = NULL;

                if (confirm_no_escalation(c, all, &err) < 0)
                        return error_set(reterr, EPERM,
                                         "must have cluster-admin privileges to use the "
                                         "aggregationRule");
        }
        return 0;
}

/* K8S: the binding storages' Create and Update */
int rbac_authorize_binding_write(const struct write_check *c, const json_t *obj, const json_t *old,
                                 struct error **reterr)
{
        const json_t *ref = json_object_get(obj, "roleRef");
        const char *kind = json_path_string_or_empty(ref, "kind");
        const char *group = json_path_string_or_empty(ref, "apiGroup");
        const char *name = json_path_string_or_empty(ref, "name");
        const char *resource = streq(kind, "ClusterRole") ? "clusterroles"
                               : streq(kind, "Role")      ? "roles"
                                                          : NULL;
        cleanup_json json_t *role = NULL;
        int r;

        if (privileged(c->user) || (old && only_gc_fields(obj, old)))
                return 0;
        /* K8S: BindingAuthorized: `bind` on the role named, in the binding's namespace */
        if (resource && authorized(c, "bind", group, resource, name))
                return 0;
        /* K8S: GetRoleReferenceRules through the registry: an unknown kind is an error, a
         * missing role its NotFound */
        if (!resource)
                return error_set(reterr, EINVAL, "unsupported role reference kind: \"%s\"", kind);
        r = store_get(c->store, resource, streq(kind, "Role") ? c->ns : "", name, &role, NULL);
        if (r == -ENOENT)
                return error_set(reterr, ENOENT, "%s.%s \"%s\" not found", resource, RBAC_GROUP,
                                 name);
        if (r < 0)
                return error_set(reterr, -r, "%s \"%s\": %s", resource, name, strerror(-r));
        return confirm_no_escalation(c, json_object_get(role, "rules"), reterr);
}
