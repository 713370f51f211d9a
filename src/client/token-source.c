/* token-source.c: service accounts' tokens, got and refreshed with the controller manager's
 * credentials by one thread for all of them (see token-source.h). It makes the accounts and asks
 * for tokens; it does not decide which account a component runs as (cmd/ does). */
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

struct api_token_refresher {
        struct api_client *client; /* the manager's; only the thread uses it */
        pthread_mutex_t lock;
        pthread_cond_t wake;              /* a source was added, or stop */
        pthread_cond_t idle;              /* busy went back to NULL */
        struct api_token_source *sources; /* under lock */
        struct api_token_source *busy;    /* under lock: the one the thread works on */
        bool stop;                        /* under lock */
        pthread_t thread;
};

struct api_token_source {
        struct api_token_refresher *refresher;
        struct api_token_source *next; /* under the refresher's lock */
        int64_t due_ms;                /* under the refresher's lock: its next request */
        char *ns, *name, *user;
        pthread_mutex_t lock;
        pthread_cond_t got;        /* a first token came, or the first attempt failed */
        char *token;               /* under lock; NULL until the first one came */
        struct error *first_error; /* under lock: why the first token has not come */
        char *uid;          /* the account's, when the token was issued; the thread's alone */
        int64_t refresh_at; /* when to ask for the next token; the thread's alone */
};

/* The account's uid: 0 with *ret (malloc'd), -ENOENT when there is none. */
static int account_uid(struct api_token_source *s, char **ret, struct error **reterr)
{
        cleanup_free char *path =
                xasprintf("/api/v1/namespaces/%s/serviceaccounts/%s", s->ns, s->name);
        cleanup_json json_t *answer = NULL;
        long status = 0;
        int r;

        r = api_client_request(s->refresher->client, "GET", path, NULL, NULL, 0, &status, &answer,
                               reterr);
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
        r = api_client_request(s->refresher->client, "POST", coll, "application/json", body,
                               strlen(body), &status, &answer, reterr);
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
        r = api_client_request(s->refresher->client, "POST", path, "application/json", body,
                               sizeof(body) - 1, &status, &answer, reterr);
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

/* One turn of the thread for s, unlocked: a look at the account while the token is fresh, else
 * a new token; sets when s is next due. */
static int64_t refresh_one(struct api_token_source *s)
{
        int64_t now = time_monotonic_ms();
        struct error *err = NULL;
        char *fresh = NULL;
        int r;

        if (s->token && now < s->refresh_at && account_unchanged(s))
                goto next;
        r = request_token(s, &fresh, &err);
        pthread_mutex_lock(&s->lock);
        if (r < 0) {
                if (!s->token) {
                        error_free(s->first_error);
                        s->first_error = TAKE_PTR(err);
                }
                s->refresh_at = time_monotonic_ms() + TOKEN_RETRY_S * 1000L;
        } else {
                if (s->token) {
                        explicit_bzero(s->token, strlen(s->token));
                        free(s->token);
                }
                s->token = fresh;
                /* K8S: clientbuilder refreshes with 20% of the token's life left */
                s->refresh_at = time_monotonic_ms() + API_TOKEN_SOURCE_SECONDS * 800L;
        }
        pthread_cond_broadcast(&s->got);
        pthread_mutex_unlock(&s->lock);
        error_free(err);
        now = time_monotonic_ms();
next:
        return s->refresh_at - now < ACCOUNT_CHECK_S * 1000L ? s->refresh_at
                                                             : now + ACCOUNT_CHECK_S * 1000L;
}

static void *refresh_main(void *arg)
{
        struct api_token_refresher *rf = arg;

        (void) pthread_setname_np(pthread_self(), "token-refresh");
        pthread_mutex_lock(&rf->lock);
        while (!rf->stop) {
                struct api_token_source *next = NULL;
                int64_t now = time_monotonic_ms(), due;

                for (struct api_token_source *s = rf->sources; s; s = s->next)
                        if (!next || s->due_ms < next->due_ms)
                                next = s;
                if (!next || next->due_ms > now) {
                        long wait_ms = next ? (long) (next->due_ms - now) : ACCOUNT_CHECK_S * 1000L;
                        struct timespec deadline = time_after_ms(CLOCK_REALTIME, wait_ms);

                        (void) pthread_cond_timedwait(&rf->wake, &rf->lock, &deadline);
                        continue;
                }
                rf->busy = next;
                pthread_mutex_unlock(&rf->lock);
                due = refresh_one(next);
                pthread_mutex_lock(&rf->lock);
                next->due_ms = due;
                rf->busy = NULL;
                pthread_cond_broadcast(&rf->idle);
        }
        pthread_mutex_unlock(&rf->lock);
        return NULL;
}

int api_token_refresher_start(const struct api_client_options *manager,
                              struct api_token_refresher **ret, struct error **reterr)
{
        struct api_token_refresher *rf = xcalloc(1, sizeof(*rf));
        int r = api_client_new(manager, &rf->client, reterr);

        if (r < 0) {
                free(rf);
                return r;
        }
        pthread_mutex_init(&rf->lock, NULL);
        pthread_cond_init(&rf->wake, NULL);
        pthread_cond_init(&rf->idle, NULL);
        if (pthread_create(&rf->thread, NULL, refresh_main, rf) != 0)
                abort(); /* only when the process is out of resources */
        *ret = rf;
        return 0;
}

static void source_free(struct api_token_source *s)
{
        if (s->token) {
                explicit_bzero(s->token, strlen(s->token));
                free(s->token);
        }
        error_free(s->first_error);
        pthread_mutex_destroy(&s->lock);
        pthread_cond_destroy(&s->got);
        free(s->uid);
        free(s->ns);
        free(s->name);
        free(s->user);
        free(s);
}

struct api_token_refresher *api_token_refresher_stop(struct api_token_refresher *rf)
{
        if (!rf)
                return NULL;
        pthread_mutex_lock(&rf->lock);
        rf->stop = true;
        pthread_cond_signal(&rf->wake);
        pthread_mutex_unlock(&rf->lock);
        api_client_cancel(rf->client);
        (void) pthread_join(rf->thread, NULL);
        while (rf->sources) {
                struct api_token_source *s = rf->sources;

                rf->sources = s->next;
                source_free(s);
        }
        api_client_free(rf->client);
        pthread_mutex_destroy(&rf->lock);
        pthread_cond_destroy(&rf->wake);
        pthread_cond_destroy(&rf->idle);
        free(rf);
        return NULL;
}

struct api_token_source *api_token_source_start(struct api_token_refresher *rf, const char *ns,
                                                const char *name)
{
        struct api_token_source *s = xcalloc(1, sizeof(*s));

        pthread_mutex_init(&s->lock, NULL);
        pthread_cond_init(&s->got, NULL);
        s->refresher = rf;
        s->ns = xstrdup(ns);
        s->name = xstrdup(name);
        s->user = xasprintf("system:serviceaccount:%s:%s", ns, name);
        /* the first token is asked for at once */
        s->refresh_at = s->due_ms = time_monotonic_ms();
        pthread_mutex_lock(&rf->lock);
        s->next = rf->sources;
        rf->sources = s;
        pthread_cond_signal(&rf->wake);
        pthread_mutex_unlock(&rf->lock);
        return s;
}

int api_token_source_wait(struct api_token_source *s, long timeout_ms, struct error **reterr)
{
        struct timespec deadline = time_after_ms(CLOCK_REALTIME, timeout_ms);
        int r = 0;

        pthread_mutex_lock(&s->lock);
        while (!s->token && !s->first_error &&
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
        struct api_token_refresher *rf;

        if (!s)
                return NULL;
        rf = s->refresher;
        pthread_mutex_lock(&rf->lock);
        for (struct api_token_source **p = &rf->sources; *p; p = &(*p)->next)
                if (*p == s) {
                        *p = s->next;
                        break;
                }
        while (rf->busy == s)
                pthread_cond_wait(&rf->idle, &rf->lock);
        pthread_mutex_unlock(&rf->lock);
        source_free(s);
        return NULL;
}
