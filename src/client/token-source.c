/* token-source.c: a service account's token, got and refreshed with the controller manager's
 * credentials (see token-source.h). It makes the account and asks for tokens; it does not
 * decide which account a component runs as (cmd/ does). */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/alloc.h"
#include "base/json.h"
#include "base/timeutil.h"
#include "client/token-source.h"

/* Seconds between two attempts after a failed refresh. */
#define TOKEN_RETRY_S 10
/* Seconds between two looks at the account: a token of a deleted (or remade) account
 * authenticates nobody, so a new one is asked for as soon as this tells. */
#define ACCOUNT_CHECK_S 30

struct api_token_source {
        struct api_client *client; /* the manager's; only the refresh thread uses it */
        char *ns, *name, *user;
        pthread_mutex_t lock;
        pthread_cond_t wake;
        pthread_cond_t got;        /* a first token came, or the first attempt failed */
        char *token;               /* under lock; NULL until the first one came */
        struct error *first_error; /* under lock: why the first token has not come */
        char *uid; /* the account's, when the token was issued; refresh thread only */
        bool stop; /* under lock */
        pthread_t thread;
        bool started;
};

/* The account's uid: 0 with *ret (malloc'd), -ENOENT when there is none. */
static int account_uid(struct api_token_source *s, char **ret, struct error **reterr)
{
        cleanup_free char *path =
                xasprintf("/api/v1/namespaces/%s/serviceaccounts/%s", s->ns, s->name);
        cleanup_json json_t *answer = NULL;
        long status = 0;
        int r;

        r = api_client_request(s->client, "GET", path, NULL, NULL, 0, &status, &answer, reterr);
        if (r < 0)
                return r;
        if (status == 404)
                return -ENOENT;
        if (status != 200 || !json_path_string(answer, "metadata.uid"))
                return error_set(reterr, EIO, "GET %s: HTTP %ld", path, status);
        *ret = xstrdup(json_path_string(answer, "metadata.uid"));
        return 0;
}

/* K8S: clientbuilder getOrCreateServiceAccount: the account exists afterwards; *ret its uid. */
static int ensure_account(struct api_token_source *s, char **ret, struct error **reterr)
{
        cleanup_free char *coll = xasprintf("/api/v1/namespaces/%s/serviceaccounts", s->ns);
        cleanup_free char *body = NULL;
        cleanup_json json_t *answer = NULL;
        long status = 0;
        int r;

        r = account_uid(s, ret, reterr);
        if (r != -ENOENT)
                return r;
        body = xasprintf("{\"apiVersion\":\"v1\",\"kind\":\"ServiceAccount\","
                         "\"metadata\":{\"name\":\"%s\",\"namespace\":\"%s\"}}",
                         s->name, s->ns);
        r = api_client_request(s->client, "POST", coll, "application/json", body, strlen(body),
                               &status, &answer, reterr);
        if (r < 0)
                return r;
        if (status == 201 && json_path_string(answer, "metadata.uid")) {
                *ret = xstrdup(json_path_string(answer, "metadata.uid"));
                return 0;
        }
        if (status != 409)
                return error_set(reterr, EIO, "POST %s: HTTP %ld: %s", coll, status,
                                 json_path_string_or_empty(answer, "message"));
        return account_uid(s, ret, reterr);
}

/* A new token for the account: 0 with *ret (malloc'd) and s->uid the account's. */
static int request_token(struct api_token_source *s, char **ret, struct error **reterr)
{
        cleanup_free char *uid = NULL;
        static const char body[] =
                "{\"apiVersion\":\"authentication.k8s.io/v1\","
                "\"kind\":\"TokenRequest\",\"spec\":{\"expirationSeconds\":3600}}";
        cleanup_free char *path =
                xasprintf("/api/v1/namespaces/%s/serviceaccounts/%s/token", s->ns, s->name);
        cleanup_json json_t *answer = NULL;
        const char *token;
        long status = 0;
        int r;

        _Static_assert(API_TOKEN_SOURCE_SECONDS == 3600, "the request body says 3600");
        r = ensure_account(s, &uid, reterr);
        if (r < 0)
                return error_wrap(reterr, "service account \"%s/%s\"", s->ns, s->name);
        r = api_client_request(s->client, "POST", path, "application/json", body, sizeof(body) - 1,
                               &status, &answer, reterr);
        if (r < 0)
                return error_wrap(reterr, "token for \"%s/%s\"", s->ns, s->name);
        token = json_path_string(answer, "status.token");
        if (status != 201 || !token || !*token)
                return error_set(reterr, EIO, "token for \"%s/%s\": HTTP %ld: %s", s->ns, s->name,
                                 status, json_path_string_or_empty(answer, "message"));
        *ret = xstrdup(token);
        free(s->uid);
        s->uid = TAKE_PTR(uid);
        return 0;
}

/* Whether the account the token names is still there with the same uid (a failure to ask
 * says yes: the token is kept until the server can tell). */
static bool account_unchanged(struct api_token_source *s)
{
        cleanup_free char *uid = NULL;
        int r = account_uid(s, &uid, NULL);

        return r == -ENOENT ? false : r < 0 || streq(uid, s->uid);
}

static void *refresh_main(void *arg)
{
        struct api_token_source *s = arg;
        /* K8S: clientbuilder refreshes with 20% of the token's life left; the first token is
         * asked for at once */
        int64_t refresh_at = time_monotonic_ms();
        long wait_ms;

        (void) pthread_setname_np(pthread_self(), "token-refresh");
        pthread_mutex_lock(&s->lock);
        for (;;) {
                struct timespec deadline;
                char *fresh = NULL;
                int64_t now = time_monotonic_ms();
                int r;

                wait_ms = refresh_at - now < ACCOUNT_CHECK_S * 1000L ? (long) (refresh_at - now)
                                                                     : ACCOUNT_CHECK_S * 1000L;
                deadline = time_after_ms(CLOCK_REALTIME, wait_ms > 0 ? wait_ms : 0);
                while (!s->stop && pthread_cond_timedwait(&s->wake, &s->lock, &deadline) == 0)
                        ;
                if (s->stop)
                        break;
                pthread_mutex_unlock(&s->lock);
                if (s->token && time_monotonic_ms() < refresh_at && account_unchanged(s)) {
                        pthread_mutex_lock(&s->lock);
                        continue;
                }
                {
                        struct error *err = NULL;

                        r = request_token(s, &fresh, &err);
                        pthread_mutex_lock(&s->lock);
                        if (r < 0 && !s->token) {
                                error_free(s->first_error);
                                s->first_error = err;
                                err = NULL;
                        }
                        error_free(err);
                }
                if (r < 0) {
                        refresh_at = time_monotonic_ms() + TOKEN_RETRY_S * 1000L;
                        pthread_cond_broadcast(&s->got);
                        continue;
                }
                if (s->token) {
                        explicit_bzero(s->token, strlen(s->token));
                        free(s->token);
                }
                s->token = fresh;
                pthread_cond_broadcast(&s->got);
                refresh_at = time_monotonic_ms() + API_TOKEN_SOURCE_SECONDS * 800L;
        }
        pthread_mutex_unlock(&s->lock);
        return NULL;
}

int api_token_source_start(const struct api_client_options *manager, const char *ns,
                           const char *name, struct api_token_source **ret, struct error **reterr)
{
        struct api_token_source *s = xcalloc(1, sizeof(*s));
        int r;

        pthread_mutex_init(&s->lock, NULL);
        pthread_cond_init(&s->wake, NULL);
        pthread_cond_init(&s->got, NULL);
        s->ns = xstrdup(ns);
        s->name = xstrdup(name);
        s->user = xasprintf("system:serviceaccount:%s:%s", ns, name);
        r = api_client_new(manager, &s->client, reterr);
        if (r < 0) {
                api_token_source_stop(s);
                return r;
        }
        if (pthread_create(&s->thread, NULL, refresh_main, s) != 0)
                abort(); /* only when the process is out of resources */
        s->started = true;
        *ret = s;
        return 0;
}

int api_token_source_wait(struct api_token_source *s, long timeout_ms, struct error **reterr)
{
        struct timespec deadline = time_after_ms(CLOCK_REALTIME, timeout_ms);
        int r = 0;

        pthread_mutex_lock(&s->lock);
        while (!s->token && !s->first_error && !s->stop &&
               pthread_cond_timedwait(&s->got, &s->lock, &deadline) == 0)
                ;
        if (!s->token)
                r = s->first_error
                            ? error_set(reterr, s->first_error->errnum, "%s",
                                        s->first_error->message)
                            : error_set(reterr, ETIMEDOUT, "no token for \"%s/%s\" within %ld ms",
                                        s->ns, s->name, timeout_ms);
        pthread_mutex_unlock(&s->lock);
        return r;
}

char *api_token_source_token(struct api_token_source *s)
{
        char *t;

        pthread_mutex_lock(&s->lock);
        t = xstrdup(s->token ? s->token : "");
        pthread_mutex_unlock(&s->lock);
        return t;
}

const char *api_token_source_user(const struct api_token_source *s)
{
        return s->user;
}

struct api_token_source *api_token_source_stop(struct api_token_source *s)
{
        if (!s)
                return NULL;
        if (s->started) {
                pthread_mutex_lock(&s->lock);
                s->stop = true;
                pthread_cond_signal(&s->wake);
                pthread_mutex_unlock(&s->lock);
                api_client_cancel(s->client);
                (void) pthread_join(s->thread, NULL);
        }
        if (s->token) {
                explicit_bzero(s->token, strlen(s->token));
                free(s->token);
        }
        api_client_free(s->client);
        error_free(s->first_error);
        pthread_mutex_destroy(&s->lock);
        pthread_cond_destroy(&s->wake);
        pthread_cond_destroy(&s->got);
        free(s->uid);
        free(s->ns);
        free(s->name);
        free(s->user);
        free(s);
        return NULL;
}
