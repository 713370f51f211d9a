/* authz.c: the authorization chain: a request's attributes (upstream's RequestInfoFactory),
 * one PolicyRule's match (RuleAllows), the table of --authorization-mode modes and the chain
 * that asks them in order, and the 403 a refusal is. What RBAC's roles and bindings grant is
 * authz-rbac.c's; routing and the handlers are api.c's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "apiserver/authn.h"
#include "apiserver/authz.h"
#include "apiserver/rbac.h"
#include "apiserver/authz-node.h"
#include "apiserver/status.h"
#include "base/alloc.h"
#include "base/strbuf.h"
#include "base/utf8.h"

/* ---- request attributes ---- */

/* K8S: requestinfo.go specialVerbs, specialVerbsNoSubresources, namespaceSubresources */
static bool special_verb(const char *s)
{
        return streq(s, "proxy") || streq(s, "watch");
}

static bool namespace_subresource(const char *s)
{
        return streq(s, "status") || streq(s, "finalize");
}

/* K8S: path.IsValidPathSegmentName: not "." nor "..", no "/" nor "%". */
static bool valid_path_segment_name(const char *s)
{
        return !streq(s, ".") && !streq(s, "..") && !strchr(s, '/') && !strchr(s, '%');
}

/* The value a fieldSelector requires of metadata.name (`metadata.name=N` or `==N`), unescaped
 * into out (room for strlen(sel) + 1), or NULL (K8S: fields.Selector.RequiresExactMatch after
 * fields.ParseSelector; a selector that does not parse names nothing). */
static const char *selector_name(const char *sel, char *out)
{
        const char *p = sel;
        const char *found = NULL;

        while (*p) {
                const char *term = p;
                size_t klen;
                bool exact;
                char *o = out;

                /* a term ends at an unescaped ',' */
                while (*p && *p != ',') {
                        if (*p == '\\' && p[1])
                                p++;
                        p++;
                }
                klen = strcspn(term, "!=,");
                exact = term[klen] == '='; /* "=" or "==", not "!=" */
                if (exact && klen == strlen("metadata.name") &&
                    strncmp(term, "metadata.name", klen) == 0 && !found) {
                        const char *v = term + klen + 1;

                        if (*v == '=')
                                v++;
                        for (; v < p; v++) {
                                if (*v == '\\') {
                                        if (++v >= p)
                                                return NULL;
                                        if (*v != ',' && *v != '=' && *v != '\\')
                                                return NULL;
                                } else if (*v == '=') {
                                        return NULL;
                                }
                                *o++ = *v;
                        }
                        *o = '\0';
                        found = out;
                }
                if (*p == ',')
                        p++;
        }
        return found;
}

static bool watch_requested(const struct http_request *req)
{
        const char *w = http_request_query(req, "watch");

        /* what api.c serves as a watch */
        return w && (streq(w, "true") || streq(w, "1"));
}

static const char *method_verb(const char *m)
{
        /* K8S: requestinfo.go maps the method to the verb of a resource request */
        if (streq(m, "POST"))
                return "create";
        if (streq(m, "GET") || streq(m, "HEAD"))
                return "get";
        if (streq(m, "PUT"))
                return "update";
        if (streq(m, "PATCH"))
                return "patch";
        if (streq(m, "DELETE"))
                return "delete";
        return "";
}

/* The lowercase method (K8S: a non-resource request's verb is strings.ToLower(req.Method)). */
static const char *lower_method(const char *m)
{
        static const char *const known[] = { "get",  "post",    "put",   "patch",  "delete",
                                             "head", "options", "trace", "connect" };

        for (size_t i = 0; i < ARRAY_SIZE(known); i++)
                if (strcasecmp(m, known[i]) == 0)
                        return known[i];
        return "";
}

int authz_attributes_from_request(const struct http_request *req, const struct authn_user *user,
                                  struct authz_attributes *ret, char **ret_storage,
                                  struct error **reterr)
{
        const char *sel = http_request_query(req, "fieldSelector");
        size_t plen = strlen(req->path), slen = sel ? strlen(sel) : 0;
        cleanup_free char *buf = xmalloc(plen + 1 + slen + 1);
        char *parts[16] = { NULL };
        size_t n = 0, i = 0;
        char *p, *end;
        struct authz_attributes a = {
                .user = user,
                .verb = lower_method(req->method),
                .resource_request = false,
                .api_group = "",
                .api_version = "",
                .resource = "",
                .subresource = "",
                .ns = "",
                .name = "",
                .path = req->path,
                .field_selector = sel ?: "",
        };

        /* K8S: splitPath: the path without its leading and trailing slashes, split at each
         * slash (empty parts kept) */
        memcpy(buf, req->path, plen + 1);
        p = buf;
        while (*p == '/')
                p++;
        end = p + strlen(p);
        while (end > p && end[-1] == '/')
                *--end = '\0';
        if (*p) {
                for (;;) {
                        char *slash = strchr(p, '/');

                        if (n == ARRAY_SIZE(parts)) {
                                /* deeper than anything served: a resource request names its
                                 * first parts, the rest are not interpreted (K8S: Parts) */
                                break;
                        }
                        parts[n++] = p;
                        if (!slash)
                                break;
                        *slash = '\0';
                        p = slash + 1;
                }
        }
        /* K8S: fewer than three parts, or another prefix than api and apis: non-resource */
        if (n < 3 || !(streq(parts[0], "api") || streq(parts[0], "apis")))
                goto done;
        i = 1;
        if (streq(parts[0], "apis")) {
                if (n - i < 3)
                        goto done;
                a.api_group = parts[i++];
        }
        a.resource_request = true;
        a.api_version = parts[i++];
        if (special_verb(parts[i])) {
                if (n - i < 2)
                        return error_set(reterr, EINVAL,
                                         "unable to determine kind and namespace from url, %s",
                                         req->path);
                a.verb = parts[i++];
        } else {
                a.verb = method_verb(req->method);
        }
        if (streq(parts[i], "namespaces")) {
                if (n - i > 1) {
                        a.ns = parts[i + 1];
                        if (n - i > 2 && !namespace_subresource(parts[i + 2]))
                                i += 2;
                }
        }
        /* parts[i..] are resource/name/subresource/... */
        if (n - i >= 3 && !streq(a.verb, "proxy"))
                a.subresource = parts[i + 2];
        if (n - i >= 2)
                a.name = parts[i + 1];
        if (n - i >= 1)
                a.resource = parts[i];
        /* K8S: a get without a name is a list or a watch; a fieldSelector pinning metadata.name
         * names the object */
        if (!a.name[0] && streq(a.verb, "get")) {
                const char *name;

                a.verb = watch_requested(req) ? "watch" : "list";
                name = sel ? selector_name(sel, buf + plen + 1) : NULL;
                if (name && name[0] && valid_path_segment_name(name))
                        a.name = name;
        }
        if (!a.name[0] && streq(a.verb, "delete"))
                a.verb = "deletecollection";
done:
        *ret = a;
        *ret_storage = TAKE_PTR(buf);
        return 0;
}

/* ---- RuleAllows ---- */

/* Whether the rule's list key holds "*" (when star) or s. */
static bool list_has(const json_t *rule, const char *key, const char *s, bool star)
{
        const json_t *l = json_object_get(rule, key);
        size_t i;
        const json_t *v;

        json_array_foreach(l, i, v) {
                const char *e = json_string_value(v);

                if (!e)
                        continue;
                if ((star && streq(e, "*")) || streq(e, s))
                        return true;
        }
        return false;
}

/* K8S: ResourceMatches: "*", the exact resource or resource/subresource, or "*" + "/sub". */
static bool resource_matches(const json_t *rule, const char *resource, const char *subresource)
{
        const json_t *l = json_object_get(rule, "resources");
        size_t i, rlen = strlen(resource), slen = strlen(subresource);
        const json_t *v;

        json_array_foreach(l, i, v) {
                const char *e = json_string_value(v);
                size_t elen;

                if (!e)
                        continue;
                elen = strlen(e);
                if (streq(e, "*"))
                        return true;
                if (!slen) {
                        if (streq(e, resource))
                                return true;
                        continue;
                }
                if (elen == rlen + 1 + slen && strncmp(e, resource, rlen) == 0 && e[rlen] == '/' &&
                    streq(e + rlen + 1, subresource))
                        return true;
                if (elen == slen + 2 && e[0] == '*' && e[1] == '/' && streq(e + 2, subresource))
                        return true;
        }
        return false;
}

/* K8S: ResourceNameMatches: no resourceNames is any name. */
static bool resource_name_matches(const json_t *rule, const char *name)
{
        const json_t *l = json_object_get(rule, "resourceNames");

        if (!json_is_array(l) || json_array_size(l) == 0)
                return true;
        return list_has(rule, "resourceNames", name, false);
}

/* K8S: NonResourceURLMatches: "*", the path, or a prefix ending in "*". */
static bool non_resource_url_matches(const json_t *rule, const char *path)
{
        const json_t *l = json_object_get(rule, "nonResourceURLs");
        size_t i;
        const json_t *v;

        json_array_foreach(l, i, v) {
                const char *e = json_string_value(v);
                size_t elen;

                if (!e)
                        continue;
                if (streq(e, "*") || streq(e, path))
                        return true;
                elen = strlen(e);
                if (elen && e[elen - 1] == '*') {
                        /* strings.TrimRight(ruleURL, "*"): every trailing star */
                        while (elen && e[elen - 1] == '*')
                                elen--;
                        if (strncmp(path, e, elen) == 0)
                                return true;
                }
        }
        return false;
}

bool authz_rule_allows(const json_t *rule, const struct authz_attributes *a)
{
        if (!list_has(rule, "verbs", a->verb, true))
                return false;
        if (!a->resource_request)
                return non_resource_url_matches(rule, a->path);
        return list_has(rule, "apiGroups", a->api_group, true) &&
               resource_matches(rule, a->resource, a->subresource) &&
               resource_name_matches(rule, a->name);
}

/* ---- the modes ---- */

/* K8S: authorizerfactory NewAlwaysAllowAuthorizer */
static enum authz_decision always_allow(void *self, const struct authz_attributes *a,
                                        char **ret_reason)
{
        return AUTHZ_ALLOW;
}

/* K8S: authorizerfactory NewAlwaysDenyAuthorizer: no opinion, with this reason */
static enum authz_decision always_deny(void *self, const struct authz_attributes *a,
                                       char **ret_reason)
{
        *ret_reason = xstrdup("Everything is forbidden.");
        return AUTHZ_NO_OPINION;
}

/* K8S: alwaysAllowAuthorizer.RulesFor: everything */
static void always_allow_rules(void *self, const struct authn_user *user, const char *ns,
                               struct authz_rules *out)
{
        json_array_append_new(out->resource_rules, json_pack("{s:[s], s:[s], s:[s]}", "verbs", "*",
                                                             "apiGroups", "*", "resources", "*"));
        json_array_append_new(out->non_resource_rules,
                              json_pack("{s:[s], s:[s]}", "verbs", "*", "nonResourceURLs", "*"));
}

/* K8S: alwaysDenyAuthorizer.RulesFor: nothing, and the list is incomplete */
static void always_deny_rules(void *self, const struct authn_user *user, const char *ns,
                              struct authz_rules *out)
{
        out->incomplete = true;
}

static int stateless_new(const struct authz_context *ctx, void **ret, struct error **reterr)
{
        *ret = NULL;
        return 0;
}

static void stateless_free(void *self)
{
}

static const struct authz_mode modes[] = {
        { "AlwaysAllow", stateless_new, always_allow, always_allow_rules, stateless_free },
        { "AlwaysDeny", stateless_new, always_deny, always_deny_rules, stateless_free },
        { "RBAC", authz_rbac_new, authz_rbac_authorize, authz_rbac_rules_for, authz_rbac_free },
        { "Node", authz_node_new, authz_node_authorize, authz_node_rules_for, authz_node_free },
};

/* K8S: pkg/kubeapiserver/authorizer/modes: the modes upstream has and flexlet does not */
static const char *const unavailable_modes[] = { "ABAC", "Webhook" };

/* ---- the chain ---- */

struct authz_link {
        const struct authz_mode *mode;
        void *self;
};

struct authz {
        struct authz_link *links;
        size_t n;
};

/* K8S: authorizerfactory NewPrivilegedGroups(user.SystemPrivilegedGroup), first in the chain */
static bool privileged(const struct authn_user *u)
{
        for (size_t i = 0; u && u->groups && u->groups[i]; i++)
                if (streq(u->groups[i], AUTHN_GROUP_MASTERS))
                        return true;
        return false;
}

struct authz *authz_free(struct authz *z)
{
        if (!z)
                return NULL;
        for (size_t i = 0; i < z->n; i++)
                z->links[i].mode->free(z->links[i].self);
        free(z->links);
        free(z);
        return NULL;
}

static const struct authz_mode *mode_by_name(const char *name)
{
        for (size_t i = 0; i < ARRAY_SIZE(modes); i++)
                if (streq(modes[i].name, name))
                        return &modes[i];
        return NULL;
}

int authz_new(const char *list, const struct authz_context *ctx, struct authz **ret,
              struct error **reterr)
{
        cleanup_free char *copy = xstrdup(list);
        cleanup_authz struct authz *z = xcalloc(1, sizeof(*z));
        char *save = NULL;
        int r;

        /* K8S: pkg/kubeapiserver/options/authorization.go Validate */
        for (char *m = strtok_r(copy, ",", &save); m; m = strtok_r(NULL, ",", &save)) {
                const struct authz_mode *mode = mode_by_name(m);

                for (size_t i = 0; i < ARRAY_SIZE(unavailable_modes); i++)
                        if (streq(m, unavailable_modes[i]))
                                return error_set(reterr, EINVAL,
                                                 "authorization-mode \"%s\" is not available in "
                                                 "flexlet",
                                                 m);
                if (!mode)
                        return error_set(reterr, EINVAL,
                                         "authorization-mode \"%s\" is not a valid mode", m);
                for (size_t i = 0; i < z->n; i++)
                        if (z->links[i].mode == mode)
                                return error_set(reterr, EINVAL,
                                                 "authorization-mode \"%s\" has mode specified "
                                                 "more than once",
                                                 list);
                z->links = xrealloc(z->links, (z->n + 1) * sizeof(*z->links));
                z->links[z->n].mode = mode;
                z->links[z->n].self = NULL;
                r = mode->new (ctx, &z->links[z->n].self, reterr);
                if (r < 0)
                        return error_wrap(reterr, "authorization-mode \"%s\"", m);
                z->n++;
        }
        if (z->n == 0)
                return error_set(reterr, EINVAL, "at least one authorization-mode must be passed");
        *ret = TAKE_PTR(z);
        return 0;
}

enum authz_decision authz_authorize(const struct authz *z, const struct authz_attributes *a,
                                    char **ret_reason)
{
        struct strbuf reasons;

        *ret_reason = NULL;
        if (!z || privileged(a->user))
                return AUTHZ_ALLOW;
        strbuf_init(&reasons);
        for (size_t i = 0; i < z->n; i++) {
                char *reason = NULL;
                enum authz_decision d = z->links[i].mode->authorize(z->links[i].self, a, &reason);

                /* K8S: union.go: the deciding authorizer's reason alone; all reasons, one a
                 * line, when none decides */
                if (d != AUTHZ_NO_OPINION) {
                        strbuf_release(&reasons);
                        *ret_reason = reason;
                        return d;
                }
                if (reason && reason[0]) {
                        if (reasons.len)
                                strbuf_addch(&reasons, '\n');
                        strbuf_addstr(&reasons, reason);
                }
                free(reason);
        }
        if (reasons.len)
                *ret_reason = strbuf_detach(&reasons);
        else
                strbuf_release(&reasons);
        return AUTHZ_NO_OPINION;
}

/* ---- the rules a user holds ---- */

void authz_rules_init(struct authz_rules *r)
{
        *r = (struct authz_rules){ .resource_rules = json_array(),
                                   .non_resource_rules = json_array() };
}

void authz_rules_release(struct authz_rules *r)
{
        json_decref(r->resource_rules);
        json_decref(r->non_resource_rules);
        for (size_t i = 0; i < r->n_errors; i++)
                free(r->errors[i]);
        free(r->errors);
        *r = (struct authz_rules){ 0 };
}

void authz_rules_add_error(struct authz_rules *r, const char *msg)
{
        for (size_t i = 0; i < r->n_errors; i++)
                if (streq(r->errors[i], msg))
                        return;
        r->errors = xrealloc(r->errors, (r->n_errors + 1) * sizeof(*r->errors));
        r->errors[r->n_errors++] = xstrdup(msg);
}

char *authz_rules_error_string(const struct authz_rules *r)
{
        struct strbuf sb;

        if (r->n_errors == 1)
                return xstrdup(r->errors[0]);
        strbuf_init(&sb);
        if (r->n_errors > 1) {
                strbuf_addch(&sb, '[');
                for (size_t i = 0; i < r->n_errors; i++)
                        strbuf_addf(&sb, "%s%s", i ? ", " : "", r->errors[i]);
                strbuf_addch(&sb, ']');
        }
        return strbuf_detach(&sb);
}

/* A copy of rule's list key, an empty array when it is missing or not an array of strings
 * (the decoder let through only arrays of strings). */
static json_t *string_list(const json_t *rule, const char *key)
{
        const json_t *l = json_object_get(rule, key);
        json_t *out = json_array();
        size_t i;
        const json_t *v;

        json_array_foreach(l, i, v)
                if (json_is_string(v))
                        json_array_append_new(out, json_string(json_string_value(v)));
        return out;
}

void authz_rules_add_policy_rule(struct authz_rules *r, const json_t *rule)
{
        if (json_array_size(json_object_get(rule, "resources")) > 0) {
                json_t *rr = json_object();

                /* K8S: ResourceRule: verbs always, the rest omitted when empty */
                json_object_set_new(rr, "verbs", string_list(rule, "verbs"));
                static const char *const keys[] = { "apiGroups", "resources", "resourceNames" };
                for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
                        json_t *l = string_list(rule, keys[i]);

                        if (json_array_size(l))
                                json_object_set_new(rr, keys[i], l);
                        else
                                json_decref(l);
                }
                json_array_append_new(r->resource_rules, rr);
        }
        if (json_array_size(json_object_get(rule, "nonResourceURLs")) > 0)
                json_array_append_new(r->non_resource_rules,
                                      json_pack("{s:o, s:o}", "verbs", string_list(rule, "verbs"),
                                                "nonResourceURLs",
                                                string_list(rule, "nonResourceURLs")));
}

void authz_rules_for(const struct authz *z, const struct authn_user *user, const char *ns,
                     struct authz_rules *ret)
{
        authz_rules_init(ret);
        if (!z) {
                always_allow_rules(NULL, user, ns, ret);
                return;
        }
        /* K8S: union.go unionAuthzRulesHandler.RulesFor: every resolver, in order */
        for (size_t i = 0; i < z->n; i++)
                if (z->links[i].mode->rules_for)
                        z->links[i].mode->rules_for(z->links[i].self, user, ns, ret);
}

/* ---- the refusal ---- */

static void add_quoted(struct strbuf *sb, const char *s)
{
        utf8_go_quote(sb, s, strlen(s));
}

char *authz_forbidden_message(const struct authz_attributes *a)
{
        struct strbuf sb;

        strbuf_init(&sb);
        strbuf_addstr(&sb, "User ");
        add_quoted(&sb, a->user && a->user->name ? a->user->name : "");
        strbuf_addf(&sb, " cannot %s ", a->verb);
        if (!a->resource_request) {
                strbuf_addstr(&sb, "path ");
                add_quoted(&sb, a->path);
                return strbuf_detach(&sb);
        }
        strbuf_addstr(&sb, "resource ");
        if (a->subresource[0]) {
                cleanup_free char *res = xasprintf("%s/%s", a->resource, a->subresource);
                add_quoted(&sb, res);
        } else {
                add_quoted(&sb, a->resource);
        }
        strbuf_addstr(&sb, " in API group ");
        add_quoted(&sb, a->api_group);
        if (a->ns[0]) {
                strbuf_addstr(&sb, " in the namespace ");
                add_quoted(&sb, a->ns);
        } else {
                strbuf_addstr(&sb, " at the cluster scope");
        }
        return strbuf_detach(&sb);
}

void authz_respond_forbidden(struct http_response *resp, const struct authz_attributes *a,
                             const char *reason)
{
        cleanup_free char *why = authz_forbidden_message(a);
        /* K8S: NewForbidden(GroupResource{group, resource}, name, err); GroupResource.String()
         * is "resource.group", or the resource alone in the core group */
        const char *res = a->resource_request ? a->resource : "";
        const char *group = a->resource_request ? a->api_group : "";
        const char *name = a->resource_request ? a->name : "";
        json_t *details = json_object();
        struct strbuf sb;

        strbuf_init(&sb);
        if (!res[0] && !group[0]) {
                strbuf_addstr(&sb, "forbidden: ");
        } else {
                strbuf_addstr(&sb, res);
                if (group[0])
                        strbuf_addf(&sb, ".%s", group);
                if (name[0]) {
                        strbuf_addch(&sb, ' ');
                        add_quoted(&sb, name);
                }
                strbuf_addstr(&sb, " is forbidden: ");
        }
        strbuf_addstr(&sb, why);
        if (reason && reason[0])
                strbuf_addf(&sb, ": %s", reason);
        /* metav1.StatusDetails: name, group, kind, each left out when empty */
        if (name[0])
                json_object_set_new(details, "name", json_string(name));
        if (group[0])
                json_object_set_new(details, "group", json_string(group));
        if (res[0])
                json_object_set_new(details, "kind", json_string(res));
        status_respond(resp, EPERM, sb.buf, details);
        strbuf_release(&sb);
}
