/* jws.h: JSON Web Tokens signed with ES256 (RFC 7515 compact form, RFC 7518 §3.4: ECDSA P-256
 * with SHA-256, the signature the 64 bytes of R and S), made and checked with GnuTLS, as the
 * service account tokens kube-apiserver issues (its signing key may be RSA or ECDSA; flexlet's
 * is ECDSA P-256 like the rest of its PKI).
 *
 * Verification trusts nothing of the token before the signature checks: the header must say
 * {"alg":"ES256"} (anything else, "none" and HMAC included, is refused before any key is used)
 * and, when it names a "kid", the signer's. */
#ifndef FLEXLET_APISERVER_JWS_H
#define FLEXLET_APISERVER_JWS_H

#include <jansson.h>
#include <stddef.h>

#include "base/error.h"
#include "base/macro.h"

struct jws_signer;

/* Loads an ECDSA P-256 private key (PEM, PKCS#8). -EINVAL when it is not one. */
int jws_signer_new(const char *key_pem, struct jws_signer **ret, struct error **reterr);
struct jws_signer *jws_signer_free(struct jws_signer *s);
DEFINE_CLEANUP(struct jws_signer, jws_signer_free, jws_signer)
#define cleanup_jws_signer cleanup_of(jws_signer_free)

/* The key id: base64url of the SHA-256 of the public key's DER (SubjectPublicKeyInfo), as
 * kube-apiserver's keyIDFromPublicKey. Borrowed. */
const char *jws_signer_kid(const struct jws_signer *s);

/* header.claims.signature with header {"alg":"ES256","kid":...}; caller frees. NULL only if the
 * key cannot sign (out of memory in GnuTLS). */
char *jws_sign(const struct jws_signer *s, const json_t *claims);

/* Checks token's form, header and signature and returns its claims (a new reference). -EINVAL
 * for a token that is not three base64url segments of JSON objects, names another algorithm or
 * key, or whose signature does not verify, with why in *reterr. Times and audiences are the
 * caller's to check. */
int jws_verify(const struct jws_signer *s, const char *token, json_t **ret_claims,
               struct error **reterr);

#endif
