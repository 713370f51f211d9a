/* token-manager.h: the kubelet's service account token manager (K8S:
 * pkg/kubelet/token/token_manager.go): the tokens the node's projected serviceAccountToken
 * volumes hold, one per (namespace, account, audience, expirationSeconds, pod), fetched through
 * a TokenRequest bound to the pod and kept until they need a refresh: once 80 % of their time
 * to live has passed, or 24 h, less a random jitter of up to 10 s so many pods do not ask at
 * once. A failed refresh keeps serving the old token while it is still valid. Dropped when the
 * pod goes, or when expired (the periodic collection). One lock: any thread may call. */
#ifndef FLEXLET_NODE_TOKEN_MANAGER_H
#define FLEXLET_NODE_TOKEN_MANAGER_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "base/error.h"

/* K8S: maxTTL, maxJitter */
#define TOKEN_MAX_TTL_S    (24 * 60 * 60)
#define TOKEN_MAX_JITTER_S 10

/* What a token is asked for (all borrowed). audience NULL or "": the API server's. */
struct token_request {
        const char *ns, *service_account, *audience;
        int64_t expiration_seconds;
        const char *pod_name, *pod_uid;
};

/* Performs the TokenRequest (POST serviceaccounts/NAME/token, bound to the Pod): the token
 * (malloc'd) and its status.expirationTimestamp, or an error with the server's message. */
typedef int (*token_fetch_fn)(void *ud, const struct token_request *req, char **ret_token,
                              time_t *ret_expiration, struct error **reterr);

/* K8S requiresRefresh: whether a token that expires at expiration, asked for with
 * expiration_seconds, is to be fetched again at now with this jitter (0..TOKEN_MAX_JITTER_S):
 * past its issue time + TOKEN_MAX_TTL_S - jitter, or past expiration - 20 % of
 * expiration_seconds - jitter. Pure. */
bool token_requires_refresh(time_t now, time_t expiration, int64_t expiration_seconds,
                            int jitter_s);

struct token_manager;

struct token_manager *token_manager_new(token_fetch_fn fetch, void *ud);
struct token_manager *token_manager_free(struct token_manager *m);

/* K8S GetServiceAccountToken: the cached token for req when it needs no refresh, else a
 * fetched one (cached). A failed fetch: -errno with "failed to fetch token: <cause>" when none
 * was cached, "token <key> expired and refresh failed: <cause>" when the cached one has expired;
 * otherwise the cached token. *ret_token malloc'd. */
int token_manager_get(struct token_manager *m, const struct token_request *req, time_t now,
                      char **ret_token, struct error **reterr);

/* K8S DeleteServiceAccountToken: forgets every token bound to the pod. */
void token_manager_forget_pod(struct token_manager *m, const char *pod_uid);

/* K8S cleanup: forgets the tokens expired at now. */
void token_manager_collect(struct token_manager *m, time_t now);

/* How many tokens are cached (tests). */
size_t token_manager_size(struct token_manager *m);

#endif
