/* authn.h: who a request comes from, as kube-apiserver's authenticators decide it.
 *
 * In upstream's order (k8s.io/apiserver pkg/authentication/request/union): a client certificate
 * the HTTP server verified against the cluster CA (x509: the subject's CN is the user name, each
 * O a group, a certificate without a CN authenticates nobody), then a bearer token (the
 * `Authorization: Bearer` header: the admin token of DATA_DIR/pki, a line of the static token
 * file, K8S --token-auth-file, a service account token, satoken.h, and last a bootstrap token,
 * K8S plugin/pkg/auth/authenticator/token/bootstrap, read from its Secret in the store). A
 * bearer token that matches nothing is refused even when nothing else was offered; a request
 * with no credential at all is anonymous, which flexlet refuses (kube-apiserver with
 * --anonymous-auth=false): both are 401. Every authenticated user is also in the group
 * system:authenticated (upstream's AuthenticatedGroupAdder). */
#ifndef FLEXLET_APISERVER_AUTHN_H
#define FLEXLET_APISERVER_AUTHN_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "base/error.h"
#include "base/macro.h"
#include "http/http.h"

struct pki;
struct jws_signer;
struct store;
struct review_context;

/* K8S: k8s.io/apiserver pkg/authentication/user */
#define AUTHN_GROUP_AUTHENTICATED   "system:authenticated"
#define AUTHN_GROUP_MASTERS         "system:masters"
#define AUTHN_GROUP_UNAUTHENTICATED "system:unauthenticated"
#define AUTHN_USER_ANONYMOUS        "system:anonymous"
/* K8S: user.APIServerUser, the loopback client's user */
#define AUTHN_USER_APISERVER "system:apiserver"

/* K8S: k8s.io/cluster-bootstrap token/api */
#define BOOTSTRAP_TOKEN_SECRET_PREFIX "bootstrap-token-"
#define BOOTSTRAP_TOKEN_SECRET_TYPE   "bootstrap.kubernetes.io/token"
#define BOOTSTRAP_TOKEN_NAMESPACE     "kube-system"
#define BOOTSTRAP_USER_PREFIX         "system:bootstrap:"
#define BOOTSTRAP_DEFAULT_GROUP       "system:bootstrappers"
#define BOOTSTRAP_TOKEN_ID_LEN        6
#define BOOTSTRAP_TOKEN_SECRET_LEN    16

/* user.Info: name, uid ("" when none), groups and extra. */
struct authn_user {
        char *name;
        char *uid;
        char **groups; /* NULL-terminated */
        /* map[string][]string as a JSON object of string arrays (owned), NULL for none: only
         * impersonation (impersonate.h) sets it */
        json_t *extra;
};

/* One line of a static token file. */
struct authn_token_entry {
        unsigned char digest[32]; /* SHA-256 of the token: compared without early exit */
        struct authn_user user;
};

struct authn;

/* Reads the static token file at token_file (NULL: none) and keeps pki (for the admin token),
 * sa_signer and store (for service account tokens, satoken.h), all borrowed and each may be
 * NULL. -EINVAL with upstream's words for a file that does not parse, -errno when it cannot be
 * read. */
int authn_new(const struct pki *pki, const char *token_file, const struct jws_signer *sa_signer,
              struct store *store, struct authn **ret, struct error **reterr);
struct authn *authn_free(struct authn *a);
DEFINE_CLEANUP(struct authn, authn_free, authn)

/* K8S: kube-apiserver's loopback client credential: a bearer token made at authn_new (32
 * random bytes, hex), known to this process only, that authenticates as system:apiserver in
 * system:masters (a uid random per start). The server's own requests use it (the bootstrap
 * namespaces, in cmd/); no component or person does. Borrowed. */
const char *authn_loopback_token(const struct authn *a);
#define cleanup_authn cleanup_of(authn_free)

/* K8S: cluster-bootstrap token/util ParseToken: whether token is `[a-z0-9]{6}.[a-z0-9]{16}`;
 * when it is, its id and secret are copied out (NUL-terminated). */
bool authn_bootstrap_token_parse(const char *token, char id[static BOOTSTRAP_TOKEN_ID_LEN + 1],
                                 char secret[static BOOTSTRAP_TOKEN_SECRET_LEN + 1]);

/* K8S: cluster-bootstrap secret HasExpired: whether the Secret's data "expiration" (RFC 3339) is
 * before now; none is never, one that does not parse is expired. */
bool authn_bootstrap_secret_expired(const json_t *secret, time_t now);

/* The user the bootstrap token id.secret names, given its Secret (the object the store holds
 * as kube-system/bootstrap-token-<id>; NULL when there is none) at time now: 0 with *ret, or
 * -EACCES when the Secret is missing, being deleted, of another type, its token-id or
 * token-secret (compared in constant time) differ, it has expired, its
 * usage-bootstrap-authentication is not "true", or an auth-extra-groups entry does not match
 * `system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]`. The user is system:bootstrap:<id> in
 * system:bootstrappers and the extra groups (sorted, without duplicates, as upstream's set) and
 * system:authenticated. */
int authn_bootstrap_user(const char *id, const char *secret_text, const json_t *secret, time_t now,
                         struct authn_user **ret);

/* Parses the text of a static token file (path names it in messages) as upstream's tokenfile
 * NewCSV: CSV records (Go's encoding/csv: quoted fields, "" for a quote) of token, user name,
 * uid and an optional comma-separated group list; records with an empty token are skipped; a
 * later record for the same token replaces an earlier one. -EINVAL with upstream's message
 * ("token file '...' must have at least 3 columns (token, user name, user uid), found N", or
 * the CSV parse error). */
int authn_token_file_parse(const char *path, const char *text, size_t len,
                           struct authn_token_entry **ret, size_t *ret_n, struct error **reterr);
void authn_token_entries_free(struct authn_token_entry *e, size_t n);

/* The user a client certificate (DER, already verified) names: CN and O's; -EACCES when it
 * has no CN, -EINVAL when it does not parse. */
int authn_user_from_cert(const unsigned char *der, size_t len, struct authn_user **ret);

/* Authenticates req: 0 with *ret (caller frees), or -EACCES (401 Unauthorized). */
int authn_request(const struct authn *a, const struct http_request *req, struct authn_user **ret);

/* A user with the given name and groups (NULL-terminated, may be NULL), system:authenticated
 * added. */
struct authn_user *authn_user_new(const char *name, const char *uid, const char *const *groups);
struct authn_user *authn_user_free(struct authn_user *u);
DEFINE_CLEANUP(struct authn_user, authn_user_free, authn_user)
#define cleanup_authn_user cleanup_of(authn_user_free)

/* authentication/v1 UserInfo of u: {"username", "uid" (when set), "groups", "extra" (when
 * set)}. */
json_t *authn_user_info_json(const struct authn_user *u);

/* The review hooks of resources.h. c->authn: the server's authenticators (NULL: none
 * configured). */

/* K8S: the SelfSubjectReview REST storage: the answer to a create of one by c->user (the
 * request's own content is not read back). Always 0. */
int authn_self_subject_review(const struct review_context *c, const json_t *obj, json_t **ret,
                              struct error **reterr);

/* K8S: the TokenReview REST storage (pkg/registry/authentication/tokenreview): obj's spec.token
 * is authenticated as the bearer token of a request that carries nothing else, by the same
 * authenticators; the answer is obj with status {authenticated, user, error, audiences} as
 * upstream: a token no authenticator takes is {"user": {}, "error": "invalid bearer token"}
 * (bearertoken's default error). flexlet's authenticators are all audience-agnostic and it has
 * no --api-audiences, so, as upstream's audience-agnostic wrapper with no API audiences, a
 * review naming spec.audiences authenticates no token, and an authenticated answer names no
 * audiences. -EINVAL (400) "token is required for TokenReview in authentication" without a
 * token. With c->authn == NULL (a server without authentication) obj comes back as it was, as
 * upstream's without a token authenticator. */
int authn_token_review(const struct review_context *c, const json_t *obj, json_t **ret,
                       struct error **reterr);

#endif
