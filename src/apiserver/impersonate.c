/* impersonate.c: the Impersonate-* headers read into what they ask for, each thing checked with
 * the `impersonate` verb, and the user acted as (impersonate.h). Writing the 403 and the audit
 * record is api.c's. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/field-error.h"
#include "api/validation.h"
#include "apiserver/authn.h"
#include "apiserver/impersonate.h"
#include "base/alloc.h"
#include "base/strbuf.h"
#include "base/utf8.h"
#include "http/http.h"

/* K8S: k8s.io/api authentication/v1 types.go */
#define HEADER_USER         "Impersonate-User"
#define HEADER_GROUP        "Impersonate-Group"
#define HEADER_UID          "Impersonate-Uid"
#define HEADER_EXTRA_PREFIX "Impersonate-Extra-"
#define AUTHENTICATION_V1   "authentication.k8s.io/v1"

/* K8S: serviceaccount.ServiceAccountUsernamePrefix and MakeGroupNames */
#define SA_USER_PREFIX  "system:serviceaccount:"
#define SA_GROUP_ALL    "system:serviceaccounts"
#define SA_GROUP_PREFIX "system:serviceaccounts:"

static void add(struct impersonation *imp, enum impersonate_kind kind, const char *ns,
                const char *name, const char *key)
{
        imp->items = xrealloc(imp->items, (imp->n + 1) * sizeof(*imp->items));
        imp->items[imp->n++] = (struct impersonate_request){
                .kind = kind,
                .ns = xstrdup(ns),
                .name = xstrdup(name),
                .extra_key = xstrdup(key),
        };
}

void impersonation_release(struct impersonation *imp)
{
        for (size_t i = 0; i < imp->n; i++) {
                free(imp->items[i].ns);
                free(imp->items[i].name);
                free(imp->items[i].extra_key);
        }
        free(imp->items);
        *imp = (struct impersonation){ 0 };
}

/* K8S: serviceaccount.SplitUsername: system:serviceaccount:NS:NAME with NS a DNS-1123 label and
 * NAME a DNS-1123 subdomain; ret_ns and ret_name are malloc'd on success. */
static bool split_sa_username(const char *user, char **ret_ns, char **ret_name)
{
        const char *rest, *colon;
        cleanup_free char *ns = NULL, *name = NULL;
        struct field_error_list errs;
        bool ok;

        if (strncmp(user, SA_USER_PREFIX, strlen(SA_USER_PREFIX)) != 0)
                return false;
        rest = user + strlen(SA_USER_PREFIX);
        colon = strchr(rest, ':');
        if (!colon || strchr(colon + 1, ':'))
                return false;
        ns = xstrndup(rest, (size_t) (colon - rest));
        name = xstrdup(colon + 1);
        field_error_list_init(&errs);
        ok = validate_dns1123_label(ns, "", &errs) == 0 &&
             validate_dns1123_subdomain(name, "", &errs) == 0;
        field_error_list_release(&errs);
        if (!ok)
                return false;
        *ret_ns = TAKE_PTR(ns);
        *ret_name = TAKE_PTR(name);
        return true;
}

/* K8S: unescapeExtraKey: the lower-cased key %-unescaped (url.PathUnescape), or kept as it is
 * when an escape is malformed. An escaped NUL, which a C string cannot hold, counts as
 * malformed. Caller frees. */
static char *extra_key(const char *name)
{
        char *key = xstrdup(name + strlen(HEADER_EXTRA_PREFIX));

        for (char *p = key; *p; p++)
                if (*p >= 'A' && *p <= 'Z')
                        *p = (char) (*p - 'A' + 'a');
        (void) http_unescape_strict(key);
        return key;
}

/* Go's %v of one ObjectReference: {Kind Namespace Name UID APIVersion ResourceVersion
 * FieldPath}. */
static void add_reference(struct strbuf *sb, const struct impersonate_request *r)
{
        static const char *const kinds[IMPERSONATE_KIND_MAX] = {
                [IMPERSONATE_USER] = "User",   [IMPERSONATE_SERVICE_ACCOUNT] = "ServiceAccount",
                [IMPERSONATE_GROUP] = "Group", [IMPERSONATE_USER_EXTRA] = "UserExtra",
                [IMPERSONATE_UID] = "UID",
        };
        bool v1 = r->kind == IMPERSONATE_USER_EXTRA || r->kind == IMPERSONATE_UID;

        strbuf_addf(sb, "{%s %s %s  %s  %s}", kinds[r->kind], r->ns, r->name,
                    v1 ? AUTHENTICATION_V1 : "", r->extra_key);
}

static bool header_is(const struct http_header *h, const char *name)
{
        return strcasecmp(h->name, name) == 0;
}

int impersonation_parse(const struct http_header *h, size_t n, struct impersonation *ret,
                        struct error **reterr)
{
        struct impersonation imp = { 0 };
        const char *user = NULL, *uid = NULL;
        bool has_extra = false;
        size_t plen = strlen(HEADER_EXTRA_PREFIX);

        *ret = imp;
        for (size_t i = 0; i < n; i++)
                if (!utf8_valid(h[i].value, strlen(h[i].value)) ||
                    !utf8_valid(h[i].name, strlen(h[i].name)))
                        return error_set(reterr, EILSEQ, "the %s header is not valid UTF-8",
                                         h[i].name);
        /* K8S: headers.Get: the first value of each */
        for (size_t i = 0; i < n; i++) {
                if (!user && header_is(&h[i], HEADER_USER))
                        user = h[i].value;
                if (!uid && header_is(&h[i], HEADER_UID))
                        uid = h[i].value;
        }
        if (user && user[0]) {
                cleanup_free char *ns = NULL, *name = NULL;

                if (split_sa_username(user, &ns, &name))
                        add(&imp, IMPERSONATE_SERVICE_ACCOUNT, ns, name, "");
                else
                        add(&imp, IMPERSONATE_USER, "", user, "");
        }
        for (size_t i = 0; i < n; i++)
                if (header_is(&h[i], HEADER_GROUP)) {
                        imp.groups_specified = true;
                        add(&imp, IMPERSONATE_GROUP, "", h[i].value, "");
                }
        for (size_t i = 0; i < n; i++)
                if (strlen(h[i].name) >= plen &&
                    strncasecmp(h[i].name, HEADER_EXTRA_PREFIX, plen) == 0) {
                        cleanup_free char *key = extra_key(h[i].name);

                        has_extra = true;
                        add(&imp, IMPERSONATE_USER_EXTRA, "", h[i].value, key);
                }
        if (uid && uid[0])
                add(&imp, IMPERSONATE_UID, "", uid, "");
        if ((imp.groups_specified || has_extra || (uid && uid[0])) && !(user && user[0])) {
                struct strbuf sb;

                strbuf_init(&sb);
                strbuf_addch(&sb, '[');
                for (size_t i = 0; i < imp.n; i++) {
                        if (i)
                                strbuf_addch(&sb, ' ');
                        add_reference(&sb, &imp.items[i]);
                }
                strbuf_addch(&sb, ']');
                error_set(reterr, EINVAL, "requested %s without impersonating a user", sb.buf);
                strbuf_release(&sb);
                impersonation_release(&imp);
                return -EINVAL;
        }
        *ret = imp;
        return 0;
}

void impersonation_attributes(const struct impersonate_request *r,
                              const struct authn_user *requestor, struct authz_attributes *ret)
{
        static const char *const resources[IMPERSONATE_KIND_MAX] = {
                [IMPERSONATE_USER] = "users",   [IMPERSONATE_SERVICE_ACCOUNT] = "serviceaccounts",
                [IMPERSONATE_GROUP] = "groups", [IMPERSONATE_USER_EXTRA] = "userextras",
                [IMPERSONATE_UID] = "uids",
        };
        bool v1 = r->kind == IMPERSONATE_USER_EXTRA || r->kind == IMPERSONATE_UID;

        /* K8S: actingAsAttributes: the reference's group and version, a userextra's key as
         * the subresource */
        *ret = (struct authz_attributes){
                .user = requestor,
                .verb = "impersonate",
                .resource_request = true,
                .api_group = v1 ? "authentication.k8s.io" : "",
                .api_version = v1 ? "v1" : "",
                .resource = resources[r->kind],
                .subresource = r->extra_key,
                .ns = r->ns,
                .name = r->name,
                .path = "",
                .field_selector = "",
        };
}

int impersonation_authorize(const struct authz *z, const struct authn_user *requestor,
                            const struct impersonation *imp, size_t *ret_refused, char **ret_reason)
{
        *ret_reason = NULL;
        for (size_t i = 0; i < imp->n; i++) {
                struct authz_attributes a;
                char *reason = NULL;

                impersonation_attributes(&imp->items[i], requestor, &a);
                if (authz_authorize(z, &a, &reason) != AUTHZ_ALLOW) {
                        *ret_refused = i;
                        *ret_reason = reason;
                        return -EPERM;
                }
                free(reason);
        }
        return 0;
}

static void add_group(struct authn_user *u, size_t *n, const char *g)
{
        u->groups = xrealloc(u->groups, (*n + 2) * sizeof(*u->groups));
        u->groups[(*n)++] = xstrdup(g);
        u->groups[*n] = NULL;
}

static bool has_group(const struct authn_user *u, const char *g)
{
        for (size_t i = 0; u->groups && u->groups[i]; i++)
                if (streq(u->groups[i], g))
                        return true;
        return false;
}

struct authn_user *impersonation_user(const struct impersonation *imp)
{
        struct authn_user *u = xcalloc(1, sizeof(*u));
        size_t n = 0;

        u->uid = xstrdup("");
        u->groups = xcalloc(1, sizeof(*u->groups));
        for (size_t i = 0; i < imp->n; i++) {
                const struct impersonate_request *r = &imp->items[i];
                json_t *values;

                switch (r->kind) {
                case IMPERSONATE_SERVICE_ACCOUNT:
                        free(u->name);
                        u->name = xasprintf(SA_USER_PREFIX "%s:%s", r->ns, r->name);
                        if (!imp->groups_specified) {
                                cleanup_free char *g = xasprintf(SA_GROUP_PREFIX "%s", r->ns);

                                add_group(u, &n, SA_GROUP_ALL);
                                add_group(u, &n, g);
                        }
                        break;
                case IMPERSONATE_USER:
                        free(u->name);
                        u->name = xstrdup(r->name);
                        break;
                case IMPERSONATE_GROUP:
                        add_group(u, &n, r->name);
                        break;
                case IMPERSONATE_USER_EXTRA:
                        if (!u->extra)
                                u->extra = json_object();
                        values = json_object_get(u->extra, r->extra_key);
                        if (!values) {
                                values = json_array();
                                json_object_set_new(u->extra, r->extra_key, values);
                        }
                        json_array_append_new(values, json_string(r->name));
                        break;
                case IMPERSONATE_UID:
                        free(u->uid);
                        u->uid = xstrdup(r->name);
                        break;
                case IMPERSONATE_KIND_MAX:
                        break;
                }
        }
        if (!u->name)
                u->name = xstrdup("");
        /* K8S: system:authenticated unless it or system:unauthenticated was asked for;
         * system:unauthenticated for the anonymous user */
        if (!streq(u->name, AUTHN_USER_ANONYMOUS)) {
                if (!has_group(u, AUTHN_GROUP_AUTHENTICATED) &&
                    !has_group(u, AUTHN_GROUP_UNAUTHENTICATED))
                        add_group(u, &n, AUTHN_GROUP_AUTHENTICATED);
        } else if (!has_group(u, AUTHN_GROUP_UNAUTHENTICATED)) {
                add_group(u, &n, AUTHN_GROUP_UNAUTHENTICATED);
        }
        return u;
}
