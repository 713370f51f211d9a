/* watch-cache.c: the in-memory watch history every backend shares: a ring of the most recent
 * events, the watchers fed from it (store_watch_next/store_watch_stop live here), and the
 * object indexes that serve store_get_cached/store_list_cached (the current objects of a
 * resource, kept from the same events once store.c primed them with a list).
 * It never touches storage: backends publish committed changes into it, store.c starts
 * watches on it. Publishing never waits for a watcher; a watcher that does not keep up is
 * cancelled instead. */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/json-intern.h"
#include "base/json.h"
#include "base/macro.h"
#include "base/timeutil.h"
#include "store/store-internal.h"

/* One change, shared by reference between the ring, the watchers' queues and the events
 * store_watch_next hands out. Its object and JSON are never modified once published; refs is
 * atomic so readers can drop theirs unlocked. */
struct wc_event {
        unsigned refs;
        enum store_event_type type;
        uint64_t rv;
        int64_t at_ms;       /* published then (monotonic) */
        size_t bytes;        /* the memory it, its object and its JSON hold (json_memory_size) */
        size_t object_bytes; /* of which the object's; 0 once it was let go (ring_trim) */
        /* NULL once let go: the ring then keeps the JSON alone, and a replay decodes it */
        json_t *object;
        /* the object's compact JSON, made once for every watcher that sends JSON (K8S: the
         * cacher's cachingObject, one serialization per event); NULL for a watcher's synthetic
         * ADDEDs, which are its alone */
        char *json;
        size_t json_len;
        const char *ns;  /* points into key */
        char resource[]; /* "resource\0ns\0" */
};

/* The current objects of one resource (K8S: the cacher's store, an informer's indexer): primed
 * from a list at from_rv, then kept by every published event with a greater rv. Its objects are
 * shared with the events that brought them and never modified. */
struct wc_index {
        struct wc_index *next;
        uint64_t from_rv;
        json_t *objects; /* namespace ("" for cluster-scoped) -> name -> object */
        char resource[];
};

struct watch_cache {
        pthread_mutex_t lock;
        unsigned refs; /* the store's and one per watcher; under lock */
        bool closed;
        struct watch_cache_limits limits;
        struct wc_event **ring; /* limits.window slots; head is the oldest of count */
        size_t head, count;
        size_t ring_bytes; /* of the count events in the ring */
        uint64_t start_rv; /* every event with rv > start_rv is in the ring */
        uint64_t last_rv;  /* newest published, or start_rv */
        struct store_watch *watchers;
        struct wc_index *indexes;
        /* every published object is made of its values (watch_cache_intern): the objects of
         * the ring, the indexes and the watchers' queues share what they have in common */
        struct json_interner *interner;
};

struct store_watch {
        struct watch_cache *cache;
        struct store_watch *prev, *next; /* in cache->watchers, under cache->lock */
        char *resource;
        char *ns; /* NULL: every namespace */
        uint64_t from_rv;
        pthread_cond_t cond;
        struct wc_event **q; /* circular, q_cap slots, grows */
        size_t q_cap, q_head, q_len;
        size_t backlog;    /* queued at start (synthetic or replayed) and still unread: these do
                            * not count against the queue limits, only live events do */
        size_t live_bytes; /* of the unread live events */
        bool cancelled;
        int wake_fd; /* eventfd signalled on every push and on cancel; -1 until asked for */
        store_watch_wants_fn wants; /* NULL: every event */
};

static struct wc_event *wc_event_new(enum store_event_type type, const char *resource,
                                     const char *ns, uint64_t rv, json_t *obj, char *json,
                                     size_t object_bytes, size_t bytes)
{
        size_t rl = strlen(resource), nl = strlen(ns);
        struct wc_event *e = xmalloc(sizeof(*e) + rl + nl + 2);

        e->refs = 1;
        e->type = type;
        e->rv = rv;
        e->at_ms = time_monotonic_ms();
        e->bytes = bytes;
        e->object_bytes = object_bytes;
        e->object = obj;
        e->json = json;
        e->json_len = json ? strlen(json) : 0;
        memcpy(e->resource, resource, rl + 1);
        memcpy(e->resource + rl + 1, ns, nl + 1);
        e->ns = e->resource + rl + 1;
        return e;
}

static struct wc_event *wc_event_ref(struct wc_event *e)
{
        __atomic_add_fetch(&e->refs, 1, __ATOMIC_RELAXED);
        return e;
}

static void wc_event_unref(struct wc_event *e)
{
        if (!e || __atomic_sub_fetch(&e->refs, 1, __ATOMIC_ACQ_REL) > 0)
                return;
        json_decref(e->object);
        free(e->json);
        free(e);
}

void store_event_release(struct store_event *ev)
{
        if (!ev)
                return;
        json_decref(ev->object);
        wc_event_unref(ev->held);
        *ev = (struct store_event){ 0 };
}

/* Called with the cache locked (or unshared): forgets every index; they are primed again on
 * their next use. */
static void indexes_drop(struct watch_cache *c)
{
        while (c->indexes) {
                struct wc_index *x = c->indexes;

                c->indexes = x->next;
                json_decref(x->objects);
                free(x);
        }
}

/* Called with the cache locked. */
static struct wc_index *index_find(struct watch_cache *c, const char *resource)
{
        for (struct wc_index *x = c->indexes; x; x = x->next)
                if (streq(x->resource, resource))
                        return x;
        return NULL;
}

/* Called with the cache locked: obj (a reference taken over; NULL: gone) is now what
 * resource's index holds under ns/name. */
static void index_put(struct wc_index *x, const char *ns, const char *name, json_t *obj)
{
        json_t *names = json_object_get(x->objects, ns);

        if (!obj) {
                if (names && json_object_del(names, name) == 0 && json_object_size(names) == 0)
                        json_object_del(x->objects, ns);
                return;
        }
        if (!names) {
                names = json_object();
                if (!names || json_object_set_new(x->objects, ns, names) < 0)
                        abort();
        }
        if (json_object_set_new(names, name, obj) < 0)
                abort();
}

/* The event's object, a new reference: its own, or decoded from its JSON once the ring let the
 * object go (NULL only when out of memory). */
static json_t *event_object(const struct wc_event *e)
{
        return e->object ? json_incref(e->object) : json_loadb(e->json, e->json_len, 0, NULL);
}

/* Called with the cache locked: what the index holds under obj's namespace and name (borrowed),
 * or NULL. */
static const json_t *index_current(const struct wc_index *x, const char *ns, const json_t *obj)
{
        const char *name =
                json_string_value(json_object_get(json_object_get(obj, "metadata"), "name"));

        return name ? json_object_get(json_object_get(x->objects, ns), name) : NULL;
}

/* Called with the cache locked: e brings the index up to e->rv. */
static void index_apply(struct wc_index *x, const struct wc_event *e)
{
        cleanup_json json_t *obj = NULL;
        const char *name;

        if (e->rv <= x->from_rv)
                return;
        obj = event_object(e);
        name = json_string_value(json_object_get(json_object_get(obj, "metadata"), "name"));
        if (name)
                index_put(x, e->ns, name, e->type == STORE_EVENT_DELETED ? NULL : json_incref(obj));
}

struct watch_cache *watch_cache_new(const struct watch_cache_limits *limits, uint64_t start_rv)
{
        struct watch_cache *c = xcalloc(1, sizeof(*c));

        assert(limits->window > 0 && limits->window_bytes > 0 && limits->queue_max > 0 &&
               limits->queue_bytes > 0);
        if (pthread_mutex_init(&c->lock, NULL) != 0)
                abort();
        c->refs = 1;
        c->limits = *limits;
        c->ring = xcalloc(limits->window, sizeof(*c->ring));
        c->start_rv = start_rv;
        c->last_rv = start_rv;
        c->interner = json_interner_new();
        return c;
}

struct watch_cache *watch_cache_unref(struct watch_cache *c)
{
        unsigned left;

        if (!c)
                return NULL;
        pthread_mutex_lock(&c->lock);
        left = --c->refs;
        pthread_mutex_unlock(&c->lock);
        if (left > 0)
                return NULL;
        assert(!c->watchers);
        indexes_drop(c);
        for (size_t i = 0; i < c->count; i++)
                wc_event_unref(c->ring[(c->head + i) % c->limits.window]);
        free(c->ring);
        json_interner_free(c->interner);
        pthread_mutex_destroy(&c->lock);
        free(c);
        return NULL;
}

/* Called with the cache locked. */
static void watcher_drain(struct store_watch *w)
{
        while (w->q_len > 0) {
                wc_event_unref(w->q[w->q_head]);
                w->q_head = (w->q_head + 1) % w->q_cap;
                w->q_len--;
        }
        w->backlog = 0;
        w->live_bytes = 0;
}

/* Called with the cache locked: wakes a poller of the watcher's descriptor. */
static void watcher_wake(struct store_watch *w)
{
        if (w->wake_fd >= 0)
                (void) eventfd_write(w->wake_fd, 1);
}

/* Called with the cache locked. */
static void watcher_cancel(struct store_watch *w)
{
        w->cancelled = true;
        watcher_drain(w);
        pthread_cond_signal(&w->cond);
        watcher_wake(w);
}

/* Called with the cache locked (or before the watcher is visible). Takes e over. */
static void watcher_push(struct store_watch *w, struct wc_event *e)
{
        if (w->q_len == w->q_cap) {
                size_t cap = w->q_cap ? w->q_cap * 2 : 16;
                struct wc_event **q = xmalloc(cap * sizeof(*q));

                for (size_t i = 0; i < w->q_len; i++)
                        q[i] = w->q[(w->q_head + i) % w->q_cap];
                free(w->q);
                w->q = q;
                w->q_cap = cap;
                w->q_head = 0;
        }
        w->q[(w->q_head + w->q_len) % w->q_cap] = e;
        w->q_len++;
}

static bool watcher_matches(const struct store_watch *w, const struct wc_event *e)
{
        return streq(w->resource, e->resource) && (!w->ns || streq(w->ns, e->ns));
}

void watch_cache_shutdown(struct watch_cache *c)
{
        pthread_mutex_lock(&c->lock);
        c->closed = true;
        for (struct store_watch *w = c->watchers; w; w = w->next)
                watcher_cancel(w);
        indexes_drop(c);
        pthread_mutex_unlock(&c->lock);
}

/* The sanitizer build (make test-asan, FLEXLET_CHECKS) checks that no reader modified an event's
 * object, which every watcher, the index and the server's cached reads share: it still equals
 * its JSON when the ring lets it go. Too costly for the plain build. */
static void check_unmodified(const struct wc_event *e)
{
#ifdef FLEXLET_CHECKS
        cleanup_json json_t *was = NULL;

        if (!e->object || !e->json)
                return;
        was = json_loadb(e->json, e->json_len, 0, NULL);
        if (was && !json_equal(was, e->object)) {
                (void) fprintf(stderr,
                               "watch cache: a reader modified the shared object of %s %s "
                               "version %" PRIu64 "\n",
                               e->resource, e->ns, e->rv);
                abort();
        }
#else
        (void) e;
#endif
}

/* Called with the cache locked: drops the oldest event; the window then starts after it. */
static void ring_drop_oldest(struct watch_cache *c)
{
        struct wc_event *old = c->ring[c->head];

        check_unmodified(old);
        c->start_rv = old->rv;
        c->ring_bytes -= old->bytes;
        wc_event_unref(old);
        c->head = (c->head + 1) % c->limits.window;
        c->count--;
}

/* Called with the cache locked: drops the events older than the limits' fresh_ms at now_ms,
 * keeping fresh_min. */
static void ring_drop_stale(struct watch_cache *c, int64_t now_ms)
{
        if (c->limits.fresh_ms <= 0)
                return;
        while (c->count > c->limits.fresh_min &&
               now_ms - c->ring[c->head]->at_ms > c->limits.fresh_ms)
                ring_drop_oldest(c);
}

/* Called with the cache locked, after each publish: the event RING_TRIM_LAG places behind the
 * newest lets its decoded object go unless a reader holds it (refs are taken under the lock
 * only, so one reference is the ring's alone), keeping its JSON: most of the history is
 * versions that newer ones replaced, each ~10 times its JSON decoded, read again only by a
 * watch that starts below them (store_watch_next decodes for it). The current version of an
 * indexed object stays decoded in the index. Returns the object to release once unlocked. */
#define RING_TRIM_LAG 16
static json_t *ring_trim(struct watch_cache *c)
{
        struct wc_event *t;
        json_t *obj;

        if (c->count <= RING_TRIM_LAG)
                return NULL;
        t = c->ring[(c->head + c->count - 1 - RING_TRIM_LAG) % c->limits.window];
        if (!t->object || !t->json || __atomic_load_n(&t->refs, __ATOMIC_ACQUIRE) != 1)
                return NULL;
        check_unmodified(t);
        obj = t->object;
        t->object = NULL;
        t->bytes -= t->object_bytes;
        c->ring_bytes -= t->object_bytes;
        t->object_bytes = 0;
        return obj;
}

void watch_cache_publish(struct watch_cache *c, enum store_event_type type, const char *resource,
                         const char *ns, uint64_t rv, json_t *obj, char *json)
{
        struct wc_event *e;
        struct wc_index *x;
        size_t object_bytes;
        json_t *let_go, *before = NULL;

        if (!json)
                json = json_dump_compact(obj);
        object_bytes = json_memory_size(obj);
        e = wc_event_new(type, resource, ns, rv, obj, json, object_bytes,
                         object_bytes + sizeof(*e) + malloc_usable_size(json));

        pthread_mutex_lock(&c->lock);
        if (c->closed) {
                pthread_mutex_unlock(&c->lock);
                wc_event_unref(e);
                return;
        }
        assert(rv > c->last_rv);
        /* Room for e: by count, and by the memory the events hold (large objects written
         * often once grew the history to gigabytes; small ones take ~10 times their JSON
         * decoded); the newest event stays whatever its size. */
        while (c->count > 0 &&
               (c->count == c->limits.window || c->ring_bytes + e->bytes > c->limits.window_bytes))
                ring_drop_oldest(c);
        c->ring[(c->head + c->count) % c->limits.window] = e;
        c->count++;
        c->ring_bytes += e->bytes;
        c->last_rv = rv;
        ring_drop_stale(c, e->at_ms);
        x = index_find(c, resource);
        if (x) {
                if (type != STORE_EVENT_ADDED)
                        before = json_incref((json_t *) index_current(x, ns, obj));
                index_apply(x, e);
        }

        for (struct store_watch *w = c->watchers; w; w = w->next) {
                if (w->cancelled || rv <= w->from_rv || !watcher_matches(w, e))
                        continue;
                if (w->wants && !w->wants(type, before, obj))
                        continue;
                if (w->q_len - w->backlog >= c->limits.queue_max ||
                    (w->live_bytes > 0 && w->live_bytes + e->bytes > c->limits.queue_bytes)) {
                        /* Never make writers wait on a slow reader: it re-lists instead. */
                        watcher_cancel(w);
                        continue;
                }
                w->live_bytes += e->bytes;
                watcher_push(w, wc_event_ref(e));
                pthread_cond_signal(&w->cond);
                watcher_wake(w);
        }
        let_go = ring_trim(c);
        pthread_mutex_unlock(&c->lock);
        json_decref(let_go);
        json_decref(before);
}

/* Called with the cache locked: drops the events up to rv; no watch may start below it. */
static void ring_drop_through(struct watch_cache *c, uint64_t rv)
{
        while (c->count > 0 && c->ring[c->head]->rv <= rv)
                ring_drop_oldest(c);
        /* last_rv stays: the backend may still publish events up to rv it has not yet */
        if (rv > c->start_rv)
                c->start_rv = rv;
}

void watch_cache_compact(struct watch_cache *c, uint64_t rv)
{
        if (rv == 0)
                return;
        pthread_mutex_lock(&c->lock);
        /* etcd keeps revision rv itself: a watch from rv - 1 (events after it) still works */
        ring_drop_through(c, rv - 1);
        pthread_mutex_unlock(&c->lock);
}

void watch_cache_reset(struct watch_cache *c, uint64_t rv)
{
        pthread_mutex_lock(&c->lock);
        for (struct store_watch *w = c->watchers; w; w = w->next)
                watcher_cancel(w);
        ring_drop_through(c, UINT64_MAX);
        /* the indexes missed the lost events too */
        indexes_drop(c);
        c->start_rv = rv;
        c->last_rv = rv;
        pthread_mutex_unlock(&c->lock);
}

uint64_t watch_cache_oldest_rv(struct watch_cache *c)
{
        uint64_t rv;

        pthread_mutex_lock(&c->lock);
        rv = c->start_rv;
        pthread_mutex_unlock(&c->lock);
        return rv;
}

static struct store_watch *watcher_free(struct store_watch *w)
{
        watcher_drain(w);
        free(w->q);
        free(w->resource);
        free(w->ns);
        if (w->wake_fd >= 0)
                (void) close(w->wake_fd);
        pthread_cond_destroy(&w->cond);
        free(w);
        return NULL;
}

int watch_cache_watch(struct watch_cache *c, const char *resource, const char *ns, uint64_t from_rv,
                      json_t *initial, struct store_watch **ret, struct error **reterr)
{
        struct store_watch *w = xcalloc(1, sizeof(*w));
        pthread_condattr_t attr;
        size_t i;
        json_t *item;

        w->cache = c;
        w->wake_fd = -1;
        w->resource = xstrdup(resource);
        w->ns = ns ? xstrdup(ns) : NULL;
        w->from_rv = from_rv;
        if (pthread_condattr_init(&attr) != 0 ||
            pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) != 0 ||
            pthread_cond_init(&w->cond, &attr) != 0)
                abort();
        pthread_condattr_destroy(&attr);

        /* Synthetic ADDEDs are the watcher's alone; build them before taking the lock. */
        json_array_foreach(initial, i, item) {
                const char *item_ns = json_string_value(
                        json_object_get(json_object_get(item, "metadata"), "namespace"));

                watcher_push(w, wc_event_new(STORE_EVENT_ADDED, resource, item_ns ? item_ns : "",
                                             store_object_rv(item), json_incref(item), NULL, 0, 0));
        }
        json_decref(initial);

        pthread_mutex_lock(&c->lock);
        if (c->closed) {
                pthread_mutex_unlock(&c->lock);
                watcher_free(w);
                return error_set(reterr, ECANCELED, "watching %s: the store is closing", resource);
        }
        if (from_rv < c->start_rv) {
                uint64_t oldest = c->start_rv;

                pthread_mutex_unlock(&c->lock);
                watcher_free(w);
                /* K8S: watch from a version older than the cache → 410 Gone, reason Expired */
                return error_set(reterr, ERANGE,
                                 "too old resource version: %" PRIu64 " (%" PRIu64 ")", from_rv,
                                 oldest);
        }
        for (i = 0; i < c->count; i++) {
                struct wc_event *e = c->ring[(c->head + i) % c->limits.window];

                if (e->rv > from_rv && watcher_matches(w, e))
                        watcher_push(w, wc_event_ref(e));
        }
        w->backlog = w->q_len;
        w->next = c->watchers;
        if (w->next)
                w->next->prev = w;
        c->watchers = w;
        c->refs++;
        pthread_mutex_unlock(&c->lock);
        *ret = w;
        return 0;
}

int store_watch_next(struct store_watch *w, int timeout_ms, struct store_event *ret)
{
        struct watch_cache *c = w->cache;
        struct timespec deadline;
        struct wc_event *e;

        if (timeout_ms > 0)
                deadline = time_after_ms(CLOCK_MONOTONIC, timeout_ms);

        pthread_mutex_lock(&c->lock);
        for (;;) {
                int r;

                if (w->cancelled) {
                        pthread_mutex_unlock(&c->lock);
                        return -ECANCELED;
                }
                if (w->q_len > 0)
                        break;
                if (timeout_ms == 0) {
                        eventfd_t drained;

                        /* nothing queued: the descriptor goes quiet until the next push */
                        if (w->wake_fd >= 0)
                                (void) eventfd_read(w->wake_fd, &drained);
                        pthread_mutex_unlock(&c->lock);
                        return 0;
                }
                if (timeout_ms < 0)
                        r = pthread_cond_wait(&w->cond, &c->lock);
                else
                        r = pthread_cond_timedwait(&w->cond, &c->lock, &deadline);
                if (r == ETIMEDOUT && !w->cancelled && w->q_len == 0) {
                        pthread_mutex_unlock(&c->lock);
                        return 0;
                }
        }
        e = w->q[w->q_head];
        w->q_head = (w->q_head + 1) % w->q_cap;
        w->q_len--;
        if (w->backlog > 0)
                w->backlog--;
        else
                w->live_bytes -= e->bytes;
        pthread_mutex_unlock(&c->lock);

        ret->type = e->type;
        ret->rv = e->rv;
        /* shared, never copied: every reader only reads (store.h); an event the ring let go
         * of (a replay of an old version) is decoded for this reader. The queue's reference
         * keeps ring_trim away while this reads. */
        ret->object = event_object(e);
        if (!ret->object) {
                wc_event_unref(e);
                *ret = (struct store_event){ 0 };
                return -ENOMEM;
        }
        ret->json = e->json;
        ret->json_len = e->json_len;
        ret->held = e; /* the queue's reference, now the event's */
        return 1;
}

void store_watch_filter(struct store_watch *w, store_watch_wants_fn wants)
{
        pthread_mutex_lock(&w->cache->lock);
        w->wants = wants;
        pthread_mutex_unlock(&w->cache->lock);
}

int store_watch_fd(struct store_watch *w)
{
        struct watch_cache *c = w->cache;
        int fd;

        pthread_mutex_lock(&c->lock);
        if (w->wake_fd < 0) {
                w->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
                if (w->wake_fd >= 0 && (w->q_len > 0 || w->cancelled))
                        watcher_wake(w);
        }
        fd = w->wake_fd >= 0 ? w->wake_fd : -errno;
        pthread_mutex_unlock(&c->lock);
        return fd;
}

struct store_watch *store_watch_stop(struct store_watch *w)
{
        struct watch_cache *c;

        if (!w)
                return NULL;
        c = w->cache;
        pthread_mutex_lock(&c->lock);
        if (w->prev)
                w->prev->next = w->next;
        else
                c->watchers = w->next;
        if (w->next)
                w->next->prev = w->prev;
        watcher_drain(w);
        pthread_mutex_unlock(&c->lock);
        watcher_free(w);
        watch_cache_unref(c);
        return NULL;
}

json_t *watch_cache_intern(struct watch_cache *c, const json_t *obj)
{
        return json_intern(c->interner, obj);
}

size_t watch_cache_release_unused(struct watch_cache *c)
{
        /* the history a quiet store would otherwise keep until its next write */
        pthread_mutex_lock(&c->lock);
        ring_drop_stale(c, time_monotonic_ms());
        pthread_mutex_unlock(&c->lock);
        return json_interner_release(c->interner);
}

int watch_cache_index(struct watch_cache *c, const char *resource, json_t *items, uint64_t list_rv)
{
        size_t rl = strlen(resource), i;
        struct wc_index *x;
        json_t *item;
        int r = 0;

        /* made of the interner's values, as published objects are (outside the lock) */
        json_array_foreach(items, i, item)
                (void) json_array_set_new(items, i, json_intern(c->interner, item));
        pthread_mutex_lock(&c->lock);
        if (c->closed)
                r = -ECANCELED;
        else if (list_rv < c->start_rv)
                r = -ERANGE; /* events after the list are gone from the ring */
        if (r < 0 || index_find(c, resource))
                goto out;
        x = xmalloc(sizeof(*x) + rl + 1);
        memcpy(x->resource, resource, rl + 1);
        x->from_rv = list_rv;
        x->objects = json_object();
        if (!x->objects)
                abort();
        json_array_foreach(items, i, item) {
                const json_t *meta = json_object_get(item, "metadata");
                const char *name = json_string_value(json_object_get(meta, "name"));
                const char *ns = json_string_value(json_object_get(meta, "namespace"));

                if (name)
                        index_put(x, ns ? ns : "", name, json_incref(item));
        }
        /* what was published after the list and before now */
        for (size_t k = 0; k < c->count; k++) {
                const struct wc_event *e = c->ring[(c->head + k) % c->limits.window];

                if (streq(e->resource, resource))
                        index_apply(x, e);
        }
        x->next = c->indexes;
        c->indexes = x;
out:
        pthread_mutex_unlock(&c->lock);
        json_decref(items);
        return r;
}

int watch_cache_get(struct watch_cache *c, const char *resource, const char *ns, const char *name,
                    bool copy, json_t **ret_obj)
{
        cleanup_json json_t *obj = NULL;
        struct wc_index *x;

        pthread_mutex_lock(&c->lock);
        x = index_find(c, resource);
        if (x)
                obj = json_incref(json_object_get(json_object_get(x->objects, ns), name));
        pthread_mutex_unlock(&c->lock);
        if (!x)
                return -ENODATA;
        if (!obj)
                return -ENOENT;
        if (!copy) {
                *ret_obj = TAKE_PTR(obj);
                return 0;
        }
        /* the shared object stays as published: the caller gets its own */
        *ret_obj = json_deep_copy(obj);
        if (!*ret_obj)
                abort();
        return 0;
}

struct listed {
        const char *ns, *name;
        json_t *obj;
};

static int listed_cmp(const void *a, const void *b)
{
        const struct listed *x = a, *y = b;
        int r = strcmp(x->ns, y->ns);

        return r ? r : strcmp(x->name, y->name);
}

int watch_cache_list(struct watch_cache *c, const char *resource, const char *ns, bool copy,
                     json_t **ret_items, uint64_t *ret_rv)
{
        cleanup_free struct listed *l = NULL;
        size_t n = 0, cap = 0;
        struct wc_index *x;
        const char *nk, *k;
        json_t *names, *obj, *items;
        uint64_t rv;

        pthread_mutex_lock(&c->lock);
        x = index_find(c, resource);
        if (!x) {
                pthread_mutex_unlock(&c->lock);
                return -ENODATA;
        }
        rv = c->last_rv;
        json_object_foreach(x->objects, nk, names) {
                if (ns && !streq(ns, nk))
                        continue;
                json_object_foreach(names, k, obj) {
                        if (n == cap) {
                                cap = cap ? 2 * cap : 16;
                                l = xrealloc(l, cap * sizeof(*l));
                        }
                        /* the keys live as long as the objects hold them: references */
                        l[n++] = (struct listed){ .ns = nk, .name = k, .obj = json_incref(obj) };
                }
        }
        /* sorted under the lock, where the keys are alive; copied outside it */
        if (n > 1)
                qsort(l, n, sizeof(*l), listed_cmp);
        pthread_mutex_unlock(&c->lock);
        items = json_array();
        if (!items)
                abort();
        for (size_t i = 0; i < n; i++) {
                if (json_array_append_new(items, copy ? json_deep_copy(l[i].obj) : l[i].obj) < 0)
                        abort();
                if (copy)
                        json_decref(l[i].obj);
        }
        *ret_items = items;
        if (ret_rv)
                *ret_rv = rv;
        return 0;
}
