/* satoken.h: bound service account tokens, as kube-apiserver issues and checks them
 * (pkg/serviceaccount: claims.go, jwt.go; the TokenRequest REST storage).
 *
 * A token is a JWS (jws.h) whose claims are upstream's: iss (SATOKEN_ISSUER, kubeadm's
 * --service-account-issuer), aud (the requested audiences, default the issuer, which is also
 * the API server's own audience), sub system:serviceaccount:NS:NAME, iat, nbf, exp, jti, and the
 * private kubernetes.io claim naming the namespace, the service account (name, uid) and the
 * object it is bound to (a Pod or a Secret: name, uid). It authenticates while it is within its
 * times (60 s leeway, as upstream), names the API server among its audiences, and its service
 * account and bound object still exist with the same uids (the object not being deleted). */
#ifndef FLEXLET_APISERVER_SATOKEN_H
#define FLEXLET_APISERVER_SATOKEN_H

#include <jansson.h>
#include <stdint.h>
#include <time.h>

#include "apiserver/authn.h"
#include "apiserver/jws.h"
#include "base/error.h"

struct store;

#define SATOKEN_ISSUER "https://kubernetes.default.svc.cluster.local"
/* K8S: TokenRequest's default and minimum expirationSeconds, and the maximum (2^32 s). */
#define SATOKEN_DEFAULT_SECONDS 3600
#define SATOKEN_MIN_SECONDS     600
#define SATOKEN_MAX_SECONDS     ((int64_t) 1 << 32)
/* K8S: serviceaccount.WarnOnlyBoundTokenExpirationSeconds (the kube-api-access volume's) and
 * ExpirationExtensionSeconds (a year): a pod-bound token asked for with the first is issued
 * for the second, with the private claim kubernetes.io.warnafter at the first (TokenRequest). */
#define SATOKEN_WARN_ONLY_SECONDS 3607
#define SATOKEN_EXTENSION_SECONDS ((int64_t) 365 * 24 * 60 * 60)

/* What a token is bound to (kind "Pod" or "Secret"), or kind NULL for nothing. */
struct satoken_binding {
        const char *kind, *name, *uid;
};

/* The claims of a token for service account ns/name (uid sa_uid) for audiences (a JSON array of
 * strings; NULL: the issuer), valid from now for seconds, bound to b (may be NULL). */
json_t *satoken_claims(const char *ns, const char *name, const char *sa_uid,
                       const json_t *audiences, const struct satoken_binding *b, time_t now,
                       int64_t seconds);

/* What an authentication was decided from (token-cache.h): the uids of the account and of the
 * bound pod or secret (NULL: none), malloc'd, and the Unix second until which the token holds
 * (its exp with the leeway, or sooner the bound object's deletionTimestamp). */
struct satoken_refs {
        char *sa_uid, *pod_uid, *secret_uid;
        int64_t valid_until;
};
void satoken_refs_release(struct satoken_refs *r);

/* Checks token (signature, times at now, audience, and the service account and bound object in
 * store) and returns its user: 0, with *ret_refs filled when not NULL (the caller releases
 * it), or -EACCES with why in *reterr (tokens that are not ours: -ENOENT, so other
 * authenticators may be tried). */
int satoken_authenticate(const struct jws_signer *signer, struct store *store, const char *token,
                         time_t now, struct authn_user **ret, struct satoken_refs *ret_refs,
                         struct error **reterr);

#endif
