/* token-cache.h: the results of service account token authentication kept for a short while,
 * so that a client sending the same token again is not verified again (the ES256 signature,
 * the claims, the account and bound object read from the store) on every request. K8S:
 * kube-apiserver wraps its token authenticators in pkg/authentication/token/cache with
 * --token-success-cache-ttl 10s and no failure caching (BuiltInAuthenticationOptions).
 *
 * Unlike upstream's plain TTL, a cached answer never outlives what it was decided from: a
 * thread follows the store's service accounts, pods and secrets and forgets every answer naming
 * the uid of one that is deleted or marked for deletion; an answer decided while such a change
 * was on its way is not kept (an epoch counts the changes), and one that lost track of the
 * store (its watch fell behind or ended) forgets everything. So a deleted account's token is
 * refused as soon as the deletion is seen, as without the cache.
 *
 * Keys are the SHA-256 of the token (the token itself is not kept). Threads: every function
 * may be called from any thread at once. */
#ifndef FLEXLET_APISERVER_TOKEN_CACHE_H
#define FLEXLET_APISERVER_TOKEN_CACHE_H

#include <stdint.h>
#include <time.h>

#include "apiserver/authn.h"
#include "base/error.h"
#include "base/macro.h"

struct store;

/* K8S: TokenSuccessCacheTTL */
#define TOKEN_CACHE_TTL_MS 10000
/* Answers kept at most; past it the oldest of a probe's slots gives way. */
#define TOKEN_CACHE_SLOTS 4096

/* What an answer was decided from: the uids of the objects that must still be there (NULL:
 * none), and the token's own end (its exp plus the validator's leeway, Unix seconds). */
struct token_cache_refs {
        const char *sa_uid, *pod_uid, *secret_uid;
        int64_t valid_until;
};

struct token_cache;

/* Starts following store (borrowed; it must outlive the cache). -errno with *reterr when the
 * store cannot be watched. */
int token_cache_new(struct store *store, struct token_cache **ret, struct error **reterr);
struct token_cache *token_cache_free(struct token_cache *c);
DEFINE_CLEANUP(struct token_cache, token_cache_free, token_cache)

/* The epoch to give token_cache_put for an answer about to be decided. */
uint64_t token_cache_epoch(struct token_cache *c);
/* The cached user for digest (a copy the caller frees), or NULL. */
struct authn_user *token_cache_get(struct token_cache *c, const unsigned char digest[32]);
/* Keeps user (copied) for digest for TOKEN_CACHE_TTL_MS at most (less when the token ends
 * sooner), unless the store changed an account, pod or secret since epoch. */
void token_cache_put(struct token_cache *c, const unsigned char digest[32], uint64_t epoch,
                     const struct authn_user *user, const struct token_cache_refs *refs);

#endif
