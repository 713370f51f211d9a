/* authn.h: who a request comes from, as kube-apiserver's authenticators decide it.
 *
 * In upstream's order (k8s.io/apiserver pkg/authentication/request/union): a client certificate
 * the HTTP server verified against the cluster CA (x509: the subject's CN is the user name, each
 * O a group, a certificate without a CN authenticates nobody), then a bearer token (the
 * `Authorization: Bearer` header: the admin token of DATA_DIR/pki, a line of the static token
 * file, K8S --token-auth-file, or a service account token, satoken.h). A bearer token that matches nothing is refused even when nothing
 * else was offered; a request with no credential at all is anonymous, which flexlet refuses
 * (kube-apiserver with --anonymous-auth=false): both are 401. Every authenticated user is also
 * in the group system:authenticated (upstream's AuthenticatedGroupAdder). */
#ifndef FLEXLET_APISERVER_AUTHN_H
#define FLEXLET_APISERVER_AUTHN_H

#include <jansson.h>
#include <stddef.h>

#include "base/error.h"
#include "base/macro.h"
#include "http/http.h"

struct pki;
struct jws_signer;
struct store;

/* K8S: k8s.io/apiserver pkg/authentication/user */
#define AUTHN_GROUP_AUTHENTICATED "system:authenticated"
#define AUTHN_GROUP_MASTERS       "system:masters"

/* user.Info: name, uid ("" when none) and groups. */
struct authn_user {
        char *name;
        char *uid;
        char **groups; /* NULL-terminated */
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
#define cleanup_authn cleanup_of(authn_free)

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

/* authentication/v1 UserInfo of u: {"username", "uid" (when set), "groups"}. */
json_t *authn_user_info_json(const struct authn_user *u);

/* K8S: the SelfSubjectReview REST storage: the answer to a create of one by user (the request's
 * own content is not read back). */
json_t *authn_self_subject_review(const json_t *obj, const struct authn_user *user);

#endif
