/* token-cache.c: service account token answers kept for TOKEN_CACHE_TTL_MS, forgotten as soon
 * as the store deletes what they were decided from (see token-cache.h). It decides nothing
 * about tokens itself: satoken.c does, and authn.c asks here first. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "apiserver/token-cache.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/timeutil.h"
#include "store/store.h"

/* Slots looked at for one digest, from the one it hashes to. */
#define PROBE 4

enum followed { F_SERVICEACCOUNTS, F_PODS, F_SECRETS, F_MAX };
static const char *const followed_resource[F_MAX] = { "serviceaccounts", "pods", "secrets" };

struct slot {
        bool used;
        unsigned char digest[32];
        struct authn_user *user;
        char *uids[F_MAX];   /* the account's, the bound pod's, the bound secret's (or NULL) */
        int64_t expires_ms;  /* monotonic */
        int64_t valid_until; /* Unix seconds */
};

struct token_cache {
        struct store *store;
        pthread_rwlock_t lock;
        struct slot *slots;               /* TOKEN_CACHE_SLOTS, under lock */
        uint64_t epoch;                   /* under lock: bumped by every change that forgets */
        struct store_watch *watch[F_MAX]; /* the thread's */
        int stop_fd;
        pthread_t thread;
        bool started;
};

static void slot_clear(struct slot *s)
{
        authn_user_free(s->user);
        for (int i = 0; i < F_MAX; i++)
                free(s->uids[i]);
        *s = (struct slot){ 0 };
}

/* Forgets the answers naming uid (NULL: every answer). Under the write lock. */
static void forget(struct token_cache *c, const char *uid)
{
        c->epoch++;
        for (size_t i = 0; i < TOKEN_CACHE_SLOTS; i++) {
                struct slot *s = &c->slots[i];
                bool hit = !uid;

                if (!s->used)
                        continue;
                for (int k = 0; k < F_MAX && !hit; k++)
                        hit = s->uids[k] && streq(s->uids[k], uid);
                if (hit)
                        slot_clear(s);
        }
}

/* What drain acts on: an object gone or marked for deletion (every other change of a pod, a
 * secret or a service account, such as a pod's status, neither queues nor wakes the follower). */
static bool removal(enum store_event_type type, const json_t *before, const json_t *obj)
{
        (void) before;
        return type == STORE_EVENT_DELETED ||
               json_object_get(json_object_get(obj, "metadata"), "deletionTimestamp");
}

static int watch_from_now(struct token_cache *c, enum followed f, struct error **reterr)
{
        int r;

        c->watch[f] = store_watch_stop(c->watch[f]);
        r = store_watch_start(c->store, followed_resource[f], NULL, store_current_rv(c->store),
                              &c->watch[f], reterr);
        if (r >= 0)
                store_watch_filter(c->watch[f], removal);
        return r;
}

/* Applies the events ready on f's watch: 0, or -ECANCELED when it ended. */
static int drain(struct token_cache *c, enum followed f)
{
        struct store_event ev;
        int r;

        while ((r = store_watch_next(c->watch[f], 0, &ev)) > 0) {
                const char *uid = json_path_string(ev.object, "metadata.uid");

                /* K8S: what satoken's liveness check refuses: gone, or marked for deletion */
                if (uid && (ev.type == STORE_EVENT_DELETED ||
                            json_path(ev.object, "metadata.deletionTimestamp"))) {
                        (void) pthread_rwlock_wrlock(&c->lock);
                        forget(c, uid);
                        (void) pthread_rwlock_unlock(&c->lock);
                }
                store_event_release(&ev);
        }
        return r;
}

static void *follow(void *arg)
{
        struct token_cache *c = arg;
        struct pollfd p[F_MAX + 1];
        int backoff_ms = -1;

        (void) pthread_setname_np(pthread_self(), "token-follow");
        for (;;) {
                p[F_MAX] = (struct pollfd){ .fd = c->stop_fd, .events = POLLIN };
                for (int f = 0; f < F_MAX; f++)
                        p[f] = (struct pollfd){ .fd = c->watch[f] ? store_watch_fd(c->watch[f])
                                                                  : -1,
                                                .events = POLLIN };
                if (poll(p, F_MAX + 1, backoff_ms) < 0 && errno != EINTR)
                        break;
                if (p[F_MAX].revents)
                        break;
                backoff_ms = -1;
                for (int f = 0; f < F_MAX; f++) {
                        if (c->watch[f] && drain(c, (enum followed) f) == 0)
                                continue;
                        /* the watch ended (fell behind, or the store is closing): what was
                         * missed is unknown, so everything goes; then follow again from now */
                        (void) pthread_rwlock_wrlock(&c->lock);
                        forget(c, NULL);
                        (void) pthread_rwlock_unlock(&c->lock);
                        if (watch_from_now(c, (enum followed) f, NULL) < 0)
                                backoff_ms = 1000;
                }
        }
        return NULL;
}

int token_cache_new(struct store *store, struct token_cache **ret, struct error **reterr)
{
        struct token_cache *c = xcalloc(1, sizeof(*c));
        int r = 0;

        c->store = store;
        c->stop_fd = -1;
        c->slots = xcalloc(TOKEN_CACHE_SLOTS, sizeof(*c->slots));
        (void) pthread_rwlock_init(&c->lock, NULL);
        for (int f = 0; f < F_MAX && r >= 0; f++)
                r = watch_from_now(c, (enum followed) f, reterr);
        if (r >= 0) {
                c->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
                if (c->stop_fd < 0)
                        r = error_set(reterr, errno, "token cache: eventfd: %s", strerror(errno));
        }
        if (r >= 0 && pthread_create(&c->thread, NULL, follow, c) != 0)
                r = error_set(reterr, EAGAIN, "token cache: cannot start its thread");
        if (r < 0) {
                token_cache_free(c);
                return r;
        }
        c->started = true;
        *ret = c;
        return 0;
}

struct token_cache *token_cache_free(struct token_cache *c)
{
        if (!c)
                return NULL;
        if (c->started) {
                (void) eventfd_write(c->stop_fd, 1);
                (void) pthread_join(c->thread, NULL);
        }
        if (c->stop_fd >= 0)
                (void) close(c->stop_fd);
        for (int f = 0; f < F_MAX; f++)
                store_watch_stop(c->watch[f]);
        for (size_t i = 0; i < TOKEN_CACHE_SLOTS; i++)
                slot_clear(&c->slots[i]);
        free(c->slots);
        (void) pthread_rwlock_destroy(&c->lock);
        free(c);
        return NULL;
}

static size_t home(const unsigned char digest[32])
{
        size_t h = 0;

        for (int i = 0; i < 4; i++)
                h = h << 8 | digest[i];
        return h % TOKEN_CACHE_SLOTS;
}

uint64_t token_cache_epoch(struct token_cache *c)
{
        uint64_t e;

        (void) pthread_rwlock_rdlock(&c->lock);
        e = c->epoch;
        (void) pthread_rwlock_unlock(&c->lock);
        return e;
}

struct authn_user *token_cache_get(struct token_cache *c, const unsigned char digest[32])
{
        struct authn_user *u = NULL;
        int64_t now_ms = time_monotonic_ms();
        time_t now = time(NULL);
        size_t h = home(digest);

        (void) pthread_rwlock_rdlock(&c->lock);
        for (size_t i = 0; i < PROBE; i++) {
                const struct slot *s = &c->slots[(h + i) % TOKEN_CACHE_SLOTS];

                /* digests of tokens are not secret, and an equal one is the same token */
                if (s->used && memcmp(s->digest, digest, 32) == 0) {
                        if (now_ms < s->expires_ms && (int64_t) now < s->valid_until)
                                u = authn_user_new(s->user->name, s->user->uid,
                                                   (const char *const *) s->user->groups);
                        break;
                }
        }
        (void) pthread_rwlock_unlock(&c->lock);
        return u;
}

void token_cache_put(struct token_cache *c, const unsigned char digest[32], uint64_t epoch,
                     const struct authn_user *user, const struct token_cache_refs *refs)
{
        const char *uids[F_MAX] = { refs->sa_uid, refs->pod_uid, refs->secret_uid };
        int64_t now_ms = time_monotonic_ms();
        size_t h = home(digest);
        struct slot *victim = NULL;

        (void) pthread_rwlock_wrlock(&c->lock);
        if (epoch != c->epoch) {
                /* an account, pod or secret went while this answer was being decided */
                (void) pthread_rwlock_unlock(&c->lock);
                return;
        }
        for (size_t i = 0; i < PROBE; i++) {
                struct slot *s = &c->slots[(h + i) % TOKEN_CACHE_SLOTS];

                if (!s->used || memcmp(s->digest, digest, 32) == 0 || s->expires_ms <= now_ms) {
                        victim = s;
                        break;
                }
                if (!victim || s->expires_ms < victim->expires_ms)
                        victim = s;
        }
        slot_clear(victim);
        victim->used = true;
        memcpy(victim->digest, digest, 32);
        victim->user = authn_user_new(user->name, user->uid, (const char *const *) user->groups);
        for (int f = 0; f < F_MAX; f++)
                victim->uids[f] = uids[f] ? xstrdup(uids[f]) : NULL;
        victim->expires_ms = now_ms + TOKEN_CACHE_TTL_MS;
        victim->valid_until = refs->valid_until;
        (void) pthread_rwlock_unlock(&c->lock);
}
