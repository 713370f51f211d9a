/* token-manager.c: the node's cache of service account tokens (token-manager.h): the refresh
 * rule as a pure function, the cache as a JSON object under one lock. Asking the API is the
 * fetch callback's (the agent's client); writing the files is the AtomicWriter's. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "base/alloc.h"
#include "base/json.h"
#include "node/token-manager.h"

struct token_manager {
        pthread_mutex_t lock;
        /* key -> {"token", "expiration" (unix s), "seconds" (asked), "pod" (uid)} */
        json_t *cache;
        token_fetch_fn fetch;
        void *ud;
};

bool token_requires_refresh(time_t now, time_t expiration, int64_t expiration_seconds, int jitter_s)
{
        time_t issued = expiration - (time_t) expiration_seconds;

        if (now > issued + TOKEN_MAX_TTL_S - jitter_s)
                return true;
        /* K8S: within 20 % of the TTL (and the jitter) of the expiration */
        return now > expiration - (time_t) (expiration_seconds * 20 / 100) - jitter_s;
}

/* K8S: rand.Float64() * maxJitter, whole seconds */
static int jitter(void)
{
        unsigned char b = 0;

        if (getrandom(&b, 1, 0) != 1)
                return 0;
        return b % TOKEN_MAX_JITTER_S;
}

/* K8S keyFunc: name, namespace, audiences, expirationSeconds and the bound object. */
static char *key_of(const struct token_request *req)
{
        return xasprintf("%s/%s/%s/%lld/%s", req->ns, req->service_account,
                         req->audience ? req->audience : "", (long long) req->expiration_seconds,
                         req->pod_uid);
}

struct token_manager *token_manager_new(token_fetch_fn fetch, void *ud)
{
        struct token_manager *m = xcalloc(1, sizeof(*m));

        pthread_mutex_init(&m->lock, NULL);
        m->cache = json_object();
        m->fetch = fetch;
        m->ud = ud;
        return m;
}

struct token_manager *token_manager_free(struct token_manager *m)
{
        if (!m)
                return NULL;
        json_decref(m->cache);
        pthread_mutex_destroy(&m->lock);
        free(m);
        return NULL;
}

int token_manager_get(struct token_manager *m, const struct token_request *req, time_t now,
                      char **ret_token, struct error **reterr)
{
        cleanup_free char *key = key_of(req);
        cleanup_error struct error *err = NULL;
        cleanup_free char *token = NULL;
        cleanup_json json_t *cached = NULL;
        time_t exp = 0, cached_exp = 0;
        int r;

        pthread_mutex_lock(&m->lock);
        cached = json_incref(json_object_get(m->cache, key));
        pthread_mutex_unlock(&m->lock);
        if (cached) {
                cached_exp = (time_t) json_integer_value(json_object_get(cached, "expiration"));
                if (!token_requires_refresh(now, cached_exp,
                                            json_integer_value(json_object_get(cached, "seconds")),
                                            jitter())) {
                        *ret_token = xstrdup(json_string_value(json_object_get(cached, "token")));
                        return 0;
                }
        }
        /* the request goes out without the lock: a slow server holds up no other caller */
        r = m->fetch(m->ud, req, &token, &exp, &err);
        if (r < 0) {
                const char *why = err ? err->message : strerror(-r);

                if (!cached)
                        return error_set(reterr, -r, "failed to fetch token: %s", why);
                if (now > cached_exp)
                        return error_set(reterr, -r, "token %s expired and refresh failed: %s", key,
                                         why);
                /* K8S: "Couldn't update token": the old one serves until it expires */
                *ret_token = xstrdup(json_string_value(json_object_get(cached, "token")));
                return 0;
        }
        pthread_mutex_lock(&m->lock);
        json_object_set_new(m->cache, key,
                            json_pack("{s:s, s:I, s:I, s:s}", "token", token, "expiration",
                                      (json_int_t) exp, "seconds",
                                      (json_int_t) req->expiration_seconds, "pod", req->pod_uid));
        pthread_mutex_unlock(&m->lock);
        *ret_token = TAKE_PTR(token);
        return 0;
}

void token_manager_forget_pod(struct token_manager *m, const char *pod_uid)
{
        const char *key;
        json_t *v, *tmp;

        if (!m || !pod_uid)
                return;
        pthread_mutex_lock(&m->lock);
        json_object_foreach_safe(m->cache, tmp, key, v)
        {
                if (streq(json_string_value(json_object_get(v, "pod")) ?: "", pod_uid))
                        json_object_del(m->cache, key);
        }
        pthread_mutex_unlock(&m->lock);
}

void token_manager_collect(struct token_manager *m, time_t now)
{
        const char *key;
        json_t *v, *tmp;

        if (!m)
                return;
        pthread_mutex_lock(&m->lock);
        json_object_foreach_safe(m->cache, tmp, key, v)
        {
                if (now > (time_t) json_integer_value(json_object_get(v, "expiration")))
                        json_object_del(m->cache, key);
        }
        pthread_mutex_unlock(&m->lock);
}

size_t token_manager_size(struct token_manager *m)
{
        size_t n;

        pthread_mutex_lock(&m->lock);
        n = json_object_size(m->cache);
        pthread_mutex_unlock(&m->lock);
        return n;
}
