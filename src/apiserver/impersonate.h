/* impersonate.h: acting as another user through the Impersonate-* headers, as kube-apiserver's
 * impersonation filter does it (K8S: k8s.io/apiserver pkg/endpoints/filters/impersonation.go,
 * after authentication and audit, before authorization; `kubectl --as`, `--as-group`,
 * `--as-uid`, `--as-user-extra`).
 *
 * The headers ask for a user (Impersonate-User; system:serviceaccount:NS:NAME names a service
 * account), groups (Impersonate-Group, once per group), a uid (Impersonate-Uid) and extra values
 * (Impersonate-Extra-KEY, KEY lower-cased and %-unescaped). Groups, extras or a uid without a
 * user are refused. Each thing asked for is checked on its own, in order, by the authorization
 * chain with the verb `impersonate`: users, groups (API group ""), serviceaccounts (in their
 * namespace), uids and userextras/KEY (authentication.k8s.io); the first refusal is upstream's
 * 403 (`users "x" is forbidden: User "y" cannot impersonate resource "users" in API group ""
 * at the cluster scope`). The user then acted as has the groups asked for (for a service account
 * without any: system:serviceaccounts and system:serviceaccounts:NS), and system:authenticated
 * unless system:authenticated or system:unauthenticated is among them (system:unauthenticated
 * for system:anonymous).
 *
 * Pure functions of their inputs; any thread. */
#ifndef FLEXLET_APISERVER_IMPERSONATE_H
#define FLEXLET_APISERVER_IMPERSONATE_H

#include <stdbool.h>
#include <stddef.h>

#include "apiserver/authz.h"
#include "base/error.h"
#include "http/http.h"

struct authn_user;

/* K8S: the kinds of buildImpersonationRequests' ObjectReferences. */
enum impersonate_kind {
        IMPERSONATE_USER,
        IMPERSONATE_SERVICE_ACCOUNT,
        IMPERSONATE_GROUP,
        IMPERSONATE_USER_EXTRA,
        IMPERSONATE_UID,
        IMPERSONATE_KIND_MAX,
};

/* One thing asked for. Strings owned. */
struct impersonate_request {
        enum impersonate_kind kind;
        char *ns;        /* a service account's namespace, else "" */
        char *name;      /* the user, account, group, uid, or the extra's value */
        char *extra_key; /* IMPERSONATE_USER_EXTRA: the key, else "" */
};

struct impersonation {
        struct impersonate_request *items; /* in upstream's order: user, groups, extras, uid */
        size_t n;
        bool groups_specified; /* an Impersonate-Group header came */
};

/* Reads the headers (h, n: the request's Impersonate-* headers) into *ret (n 0: none asked
 * for). -EINVAL with upstream's message, `requested [{Group  g    }] without impersonating a
 * user` (Go's %v of the ObjectReferences), when groups, extras or a uid come without a user;
 * *ret is then left empty. */
int impersonation_parse(const struct http_header *h, size_t n, struct impersonation *ret,
                        struct error **reterr);
void impersonation_release(struct impersonation *imp);

/* The attributes of the check of r for requestor (strings borrowed from r). */
void impersonation_attributes(const struct impersonate_request *r,
                              const struct authn_user *requestor, struct authz_attributes *ret);

/* Asks z (NULL: everything allowed) about each request in order: 0 when all are allowed, else
 * -EPERM with *ret_refused the index of the first refused and *ret_reason (malloc'd, may be
 * NULL) the chain's reason. */
int impersonation_authorize(const struct authz *z, const struct authn_user *requestor,
                            const struct impersonation *imp, size_t *ret_refused,
                            char **ret_reason);

/* The user imp acts as (caller frees); imp must hold a user (impersonation_parse made sure). */
struct authn_user *impersonation_user(const struct impersonation *imp);

#endif
