/* store-etcd.c: the etcd backend, as kube-apiserver's etcd3 storage keeps objects
 * (k8s.io/apiserver/pkg/storage/etcd3: store.go, watcher.go, compact.go, lease_manager.go),
 * spoken over etcd's gRPC API (the messages of etcd-rpc.h, over http/h2-client.h's HTTP/2: with
 * TLS by ALPN, without by prior knowledge), as kube-apiserver's clientv3 does.
 *
 * Keys are /registry/<resource>/<namespace>/<name> (cluster-scoped: /registry/<resource>/<name>),
 * values the object's JSON without metadata.resourceVersion, which is the key's mod_revision,
 * stamped on every read. Creates, updates and deletes are transactions on create_revision and
 * mod_revision. One etcd watch of the whole /registry/ prefix feeds the shared
 * watch cache, so every watcher of this store, and the writes of every other apiserver on the
 * same etcd, go through one stream; a write returns once that stream has delivered it. Also
 * here: periodic compaction (the compact_rev_key CAS) and a lease manager for objects with a
 * TTL. Not here: the public API (store.c) and the watchers' queues (watch-cache.c). */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/json.h"
#include "base/strbuf.h"
#include "base/timeutil.h"
#include "http/grpc.h"
#include "http/h2-client.h"
#include "store/etcd-rpc.h"
#include "store/store-internal.h"

#define REGISTRY_PREFIX "/registry/"
/* K8S: compact.go's compactRevKey, the key apiservers CAS to agree on who compacts */
#define COMPACT_REV_KEY "compact_rev_key"
/* K8S: store.go pages a list through etcd (the reflector's default page is 500) */
#define LIST_PAGE          500
#define REQUEST_TIMEOUT_MS 15000
#define CONNECT_TIMEOUT_MS 5000
/* How long a transient etcd answer (no leader, leader changed, unavailable) is retried. */
#define RETRY_MS 15000
/* How long a write waits for the watch stream to deliver it into the watch cache. */
#define FEED_WAIT_MS 10000
/* How long the feed waits for this store's unanswered writes to learn their revisions before it
 * decodes an event one of them may have written (feed_left_to_own_write). */
#define OWN_WRITE_WAIT_MS 100
/* A response larger than this is refused: a page of LIST_PAGE objects at the object size cap
 * is bounded by etcd's own response limit, but a hostile endpoint is not. */
#define MAX_RESPONSE_BYTES ((size_t) 2 * 1024 * 1024 * 1024 - 1)
/* A watch message is one response of events; etcd sends at most its max request size per
 * event, so a message longer than this is a broken stream. */
#define MAX_WATCH_MESSAGE_BYTES ((size_t) 256 * 1024 * 1024)

/* K8S: lease_manager.go: a lease is reused for objects written within 5% of their TTL (at most
 * 60 s), and granted for TTL plus that reuse period. */
#define LEASE_REUSE_PERCENT 5
#define LEASE_REUSE_MAX_S   60

struct ttl_rule {
        char *resource;
        unsigned seconds;
        int64_t lease_id;         /* 0: none granted yet */
        int64_t lease_expires_ms; /* monotonic */
        unsigned lease_ttl;
};

struct store_etcd {
        struct store_backend base;
        char **endpoints; /* "http(s)://host:port" without a trailing slash */
        size_t n_endpoints;
        unsigned current; /* index of the endpoint in use; atomic */
        char *cafile, *certfile, *keyfile;
        struct h2_options tls; /* the three above */
        unsigned compaction_interval_ms;

        pthread_mutex_t pool_lock;
        struct handle **pool; /* idle handles, their connections kept alive */
        size_t pool_len, pool_cap;

        /* The watch feed. */
        pthread_mutex_t feed_lock;
        pthread_cond_t feed_cond;     /* the watch was created, or stopping */
        pthread_cond_t own_cond;      /* an own write changed (the feed waits on one) */
        pthread_cond_t stop_cond;     /* stopping (stop_wait) */
        pthread_condattr_t cond_attr; /* every condition here waits on CLOCK_MONOTONIC */
        uint64_t feed_rv;             /* newest revision published into the cache */
        bool feed_created, stopping;
        bool no_retries; /* store_stop_retrying was called; atomic */
        int stop_fd;     /* an eventfd, readable once stopping: ends the watch stream at once */
        /* this store's writes under way (struct own_write); under feed_lock */
        struct own_write *own_writes;
        uint64_t own_tickets; /* the last ticket handed to one */
        uint64_t own_passed;  /* the feed no longer waits for those up to this ticket */
        pthread_t feed_thread, compact_thread;
        bool feed_started, compact_started;

        pthread_mutex_t ttl_lock;
        struct ttl_rule *ttl;
        size_t n_ttl;
};

/* --- requests --- */

/* A kept connection to one endpoint, for one caller at a time. */
struct handle {
        struct h2_conn *conn; /* NULL: none yet, or it failed */
        /* e->current when its connection was made: a connection made before a failover is
         * not reused (its member may be the one that failed) */
        unsigned current;
};

/* An answer: its bytes and what they decode to (whose keys and values point into them). */
struct reply {
        struct h2_answer h;
        struct etcd_answer a;
};

static void reply_release(struct reply *r)
{
        etcd_answer_release(&r->a);
        h2_answer_release(&r->h);
}

#define cleanup_reply __attribute__((cleanup(reply_release)))

static struct handle *handle_get(struct store_etcd *e)
{
        struct handle *h = NULL;

        pthread_mutex_lock(&e->pool_lock);
        if (e->pool_len > 0)
                h = e->pool[--e->pool_len];
        pthread_mutex_unlock(&e->pool_lock);
        if (!h)
                h = xcalloc(1, sizeof(*h));
        return h;
}

static void handle_put(struct store_etcd *e, struct handle *h)
{
        pthread_mutex_lock(&e->pool_lock);
        if (e->pool_len == e->pool_cap) {
                e->pool_cap = e->pool_cap ? e->pool_cap * 2 : 8;
                e->pool = xrealloc(e->pool, e->pool_cap * sizeof(*e->pool));
        }
        e->pool[e->pool_len++] = h;
        pthread_mutex_unlock(&e->pool_lock);
}

/* The endpoint at cur (the value of e->current the caller used) failed: move every caller on
 * to the next, unless another already did. */
static void endpoint_failed(struct store_etcd *e, unsigned cur)
{
        (void) __atomic_compare_exchange_n(&e->current, &cur, cur + 1, false, __ATOMIC_RELAXED,
                                           __ATOMIC_RELAXED);
}

/* gRPC status codes (google.golang.org/grpc/codes) etcd answers with. */
enum {
        GRPC_OK = 0,
        GRPC_INVALID_ARGUMENT = 3,
        GRPC_NOT_FOUND = 5,
        GRPC_RESOURCE_EXHAUSTED = 8,
        GRPC_OUT_OF_RANGE = 11,
        GRPC_UNAVAILABLE = 14,
};

/* etcd answers that mean "not now, ask again" (rpctypes: ErrNoLeader, ErrLeaderChanged,
 * ErrTimeout..., gRPC Unavailable). */
static bool etcd_transient(const char *msg, int code)
{
        return code == GRPC_UNAVAILABLE || strstr(msg, "no leader") ||
               strstr(msg, "leader changed") || strstr(msg, "not capable") ||
               strstr(msg, "timed out");
}

/* The -errno of an etcd error answer (rpctypes' messages): -ERANGE when the revision asked for
 * was compacted, -E2BIG when etcd (or gRPC's message limit) refuses the size, -ENOENT for a
 * lease that is gone, -EIO otherwise. */
static int etcd_errno(const char *msg, int code)
{
        if (strstr(msg, "required revision has been compacted"))
                return -ERANGE;
        if (strstr(msg, "request is too large") ||
            (code == GRPC_RESOURCE_EXHAUSTED && strstr(msg, "larger than max")))
                return -E2BIG;
        if (strstr(msg, "requested lease not found"))
                return -ENOENT;
        return -EIO;
}

/* Sends req (one framed message) to method m on the current endpoint, failing over to the next
 * on a connection error (a read or idempotent request: on any; a write: only when it was never
 * sent). *ret (reply_release after, also on failure) is the decoded answer. Errors: etcd_errno's,
 * with *reterr. */
static int etcd_call(struct store_etcd *e, enum etcd_method m, const struct strbuf *req,
                     bool idempotent, struct reply *ret, struct error **reterr)
{
        const char *path = etcd_rpc_path(m);
        int64_t deadline = time_monotonic_ms() + RETRY_MS;
        cleanup_free char *last_error = NULL;
        int r = -EIO;

        *ret = (struct reply){ 0 };
        h2_answer_init(&ret->h);
        for (size_t tries = 0;; tries++) {
                unsigned cur = __atomic_load_n(&e->current, __ATOMIC_RELAXED);
                unsigned idx = cur % e->n_endpoints;
                struct handle *h = handle_get(e);
                struct error *err = NULL;
                bool unsent, connected = true, lasting = false;
                const uint8_t *msg;
                size_t len, used;
                int c = 0;

                if (h->conn && (h->current != cur || !h2_usable(h->conn))) {
                        h2_close(h->conn);
                        h->conn = NULL;
                }
                if (!h->conn) {
                        c = h2_connect(e->endpoints[idx], &e->tls, CONNECT_TIMEOUT_MS, &h->conn,
                                       &err);
                        connected = c == 0;
                        /* a failed handshake (no or a wrong client certificate) does not heal */
                        lasting = c == -EPROTO;
                        h->current = cur;
                }
                if (c == 0)
                        c = h2_call(h->conn, path, req->buf, req->len, MAX_RESPONSE_BYTES,
                                    REQUEST_TIMEOUT_MS, &ret->h, &err);
                if (c < 0 && c != -E2BIG && h->conn) {
                        h2_close(h->conn);
                        h->conn = NULL;
                }
                handle_put(e, h);

                if (c < 0) {
                        free(last_error);
                        last_error = xasprintf("%s: %s", e->endpoints[idx],
                                               err ? err->message : strerror(-c));
                        error_free(err);
                        if (c == -E2BIG) {
                                r = error_set(reterr, EIO, "etcd %s: response too large", path);
                                break;
                        }
                        /* nothing reached a server: a connection that could not be made, or
                         * one the server let go of before the request */
                        unsent = !connected || c == -ENOTCONN;
                        if (!idempotent && !unsent) {
                                r = error_set(reterr, EIO, "etcd %s: %s", path, last_error);
                                break;
                        }
                        /* K8S (clientv3's balancer): on a connection error, the next endpoint */
                        endpoint_failed(e, cur);
                        /* A refused connection may be a member still starting: keep trying
                         * for a while. A failed handshake does not heal: once every endpoint
                         * said so, give up. */
                        if (tries + 1 >= e->n_endpoints &&
                            (time_monotonic_ms() > deadline || lasting ||
                             __atomic_load_n(&e->no_retries, __ATOMIC_ACQUIRE))) {
                                r = error_set(reterr, EIO, "etcd %s: no endpoint answers: %s", path,
                                              last_error);
                                break;
                        }
                        if (tries + 1 >= e->n_endpoints)
                                (void) nanosleep(&(struct timespec){ 0, 100 * 1000 * 1000 }, NULL);
                        continue;
                }
                if (ret->h.status.code != GRPC_OK) {
                        const char *msg_text = ret->h.status.message;

                        if (ret->h.status.code < 0) {
                                r = error_set(reterr, EIO, "etcd %s: %s: not a gRPC answer", path,
                                              e->endpoints[idx]);
                                break;
                        }
                        if (etcd_transient(msg_text, ret->h.status.code) &&
                            time_monotonic_ms() < deadline &&
                            !__atomic_load_n(&e->no_retries, __ATOMIC_ACQUIRE)) {
                                endpoint_failed(e, cur);
                                (void) nanosleep(&(struct timespec){ 0, 100 * 1000 * 1000 }, NULL);
                                continue;
                        }
                        r = etcd_errno(msg_text, ret->h.status.code);
                        r = error_set(reterr, -r, "etcd %s: %s", path,
                                      *msg_text ? msg_text : "error");
                        break;
                }
                /* a unary answer: exactly one message */
                if (grpc_frame_read((const uint8_t *) ret->h.body.buf, ret->h.body.len,
                                    MAX_RESPONSE_BYTES, &msg, &len, &used) != 1 ||
                    used != ret->h.body.len || etcd_rpc_answer(m, msg, len, &ret->a) < 0) {
                        r = error_set(reterr, EIO, "etcd %s: %s: malformed answer", path,
                                      e->endpoints[idx]);
                        break;
                }
                r = 0;
                break;
        }
        return r;
}

/* --- keys and values --- */

static char *key_of(const char *resource, const char *ns, const char *name)
{
        if (!*ns)
                return xasprintf(REGISTRY_PREFIX "%s/%s", resource, name);
        return xasprintf(REGISTRY_PREFIX "%s/%s/%s", resource, ns, name);
}

/* The end of the range of every key starting with prefix (etcd's GetPrefixRangeEnd: the prefix
 * with its last byte below 0xff incremented), NUL-terminated, its length in *ret_len. */
static char *prefix_end(const char *prefix, size_t *ret_len)
{
        size_t n = strlen(prefix);
        char *end = xstrdup(prefix);

        while (n > 0 && (unsigned char) end[n - 1] == 0xff)
                n--;
        if (n == 0) {
                *ret_len = 1;
                end[0] = '\0';
                return end;
        }
        end[n - 1] = (char) ((unsigned char) end[n - 1] + 1);
        end[n] = '\0';
        *ret_len = n;
        return end;
}

static uint64_t answer_rev(const struct etcd_answer *a)
{
        return a->revision > 0 ? (uint64_t) a->revision : 0;
}

/* A kv's value as an object stamped with its mod_revision (or with rv when non-zero). */
static int kv_object(const struct etcd_kv *kv, const char *resource, const char *name, uint64_t rv,
                     json_t **ret, struct error **reterr)
{
        json_t *o;
        int r = store_object_decode((const char *) kv->value, kv->value_len, resource, name, &o,
                                    reterr);

        if (r < 0)
                return r;
        store_object_stamp(o, rv ? rv : (uint64_t) kv->mod_revision, NULL);
        *ret = o;
        return 0;
}

/* A kv's key as a string, or NULL when it holds a NUL byte (no key of this store does). */
static char *kv_key(const struct etcd_kv *kv)
{
        char *key;

        if (memchr(kv->key, '\0', kv->key_len))
                return NULL;
        key = xmalloc(kv->key_len + 1);
        memcpy(key, kv->key, kv->key_len);
        key[kv->key_len] = '\0';
        return key;
}

/* obj's JSON as stored: everything but metadata.resourceVersion (K8S: the etcd3 store's
 * versioner clears it; the revision is the key's). */
static int value_of(json_t *obj, const char *resource, const char *name, char **ret, size_t *len,
                    struct error **reterr)
{
        json_t *md = json_object_get(obj, "metadata");
        json_t *rv = json_incref(json_object_get(md, "resourceVersion"));
        int r;

        if (rv)
                json_object_del(md, "resourceVersion");
        r = store_object_encode(obj, resource, name, ret, len, reterr);
        if (rv)
                json_object_set_new(md, "resourceVersion", rv);
        return r;
}

/* A range of one key, or of [key, range_end), into *ret. */
static int range_call(struct store_etcd *e, const struct etcd_range *rq, struct reply *ret,
                      struct error **reterr)
{
        struct strbuf req;
        int r;

        strbuf_init(&req);
        etcd_rpc_range(&req, rq);
        r = etcd_call(e, ETCD_RANGE, &req, true, ret, reterr);
        strbuf_release(&req);
        return r;
}

/* The current revision of the etcd cluster (a count of /registry/, which reads no value). */
static int current_revision(struct store_etcd *e, uint64_t *ret, struct error **reterr)
{
        size_t end_len;
        cleanup_free char *end = prefix_end(REGISTRY_PREFIX, &end_len);
        cleanup_reply struct reply rep;
        int r = range_call(e,
                           &(struct etcd_range){ .key = REGISTRY_PREFIX,
                                                 .key_len = strlen(REGISTRY_PREFIX),
                                                 .range_end = end,
                                                 .range_end_len = end_len,
                                                 .count_only = true },
                           &rep, reterr);

        if (r >= 0)
                *ret = answer_rev(&rep.a);
        return r;
}

/* --- the watch feed: one etcd watch of /registry/ into the watch cache --- */

/* A write of this store's own, from just before its txn is sent until the write is published
 * or refused. The feed, given an event at a revision one of these may hold, waits to learn
 * which rather than decode, intern and encode an object the writer already has
 * (feed_left_to_own_write). Listed in e->own_writes under feed_lock. */
struct own_write {
        struct own_write *next;
        struct store_etcd *e; /* NULL once it left the list */
        uint64_t ticket;      /* in the order writes began */
        uint64_t rv;          /* the txn's revision; 0 while it is unanswered */
        /* signalled when the revision below rv is published (its turn) or the store stops:
         * one waiter each, so a publish wakes the one write it lets go, not every writer */
        pthread_cond_t turn;
};

#define cleanup_own_write __attribute__((cleanup(own_write_end)))

static void own_write_begin(struct store_etcd *e, struct own_write *w)
{
        pthread_mutex_lock(&e->feed_lock);
        *w = (struct own_write){ .next = e->own_writes, .e = e, .ticket = ++e->own_tickets };
        if (pthread_cond_init(&w->turn, &e->cond_attr) != 0)
                abort();
        e->own_writes = w;
        pthread_mutex_unlock(&e->feed_lock);
}

/* Under feed_lock. */
static void own_write_unlist(struct own_write *w)
{
        struct own_write **p = &w->e->own_writes;

        while (*p != w)
                p = &(*p)->next;
        *p = w->next;
        /* only the feed waits on this: not the writers waiting for their turn, nor the
         * compactor */
        pthread_cond_signal(&w->e->own_cond);
        pthread_cond_destroy(&w->turn);
        w->e = NULL;
}

/* Wakes the writes that may go on after feed_rv moved or the store began stopping: the one
 * whose turn it is, any whose revision the feed published, or all of them. Under feed_lock. */
static void own_writes_wake(struct store_etcd *e)
{
        for (struct own_write *w = e->own_writes; w; w = w->next)
                if (e->stopping || (w->rv && w->rv <= e->feed_rv + 1))
                        pthread_cond_signal(&w->turn);
}

/* Ends a write that was refused or failed (the cleanup of every own_write). */
static void own_write_end(struct own_write *w)
{
        struct store_etcd *e = w->e;

        if (!e)
                return;
        pthread_mutex_lock(&e->feed_lock);
        own_write_unlist(w);
        pthread_mutex_unlock(&e->feed_lock);
}

/* Publishes write w, answered with revision rv, into the cache (obj taken over) and ends it,
 * keeping revision order with what the feed delivers: once every revision below rv is
 * published (by the feed, or by other writers of this store doing the same), the write goes in
 * directly and the feed skips it when the watch delivers it; when the feed already delivered it,
 * nothing is left to do. So a write returns after its watchers have it (the contract of
 * store-internal.h) without waiting for the watch stream's round trip when nothing else was
 * written in between (K8S: kube-apiserver's writes do not wait for the cacher at all; flexlet
 * keeps the stronger order because its own callers and tests read their writes from watches).
 * Bounded: a write is durable whether or not a watch saw it; one that was not published in
 * FEED_WAIT_MS (the watch stream is down) is left to the feed. */
static void feed_publish_own(struct own_write *w, enum store_event_type type, const char *resource,
                             const char *ns, uint64_t rv, json_t *obj)
{
        struct store_etcd *e = w->e;
        struct timespec until = time_after_ms(CLOCK_MONOTONIC, FEED_WAIT_MS);
        cleanup_free char *json = NULL;

        /* the feed may be waiting to learn whose rv is */
        pthread_mutex_lock(&e->feed_lock);
        w->rv = rv;
        pthread_cond_signal(&e->own_cond);
        pthread_mutex_unlock(&e->feed_lock);
        /* encoded outside the lock the feed waits on */
        json = json_dump_compact(obj);
        pthread_mutex_lock(&e->feed_lock);
        while (e->feed_rv + 1 < rv && !e->stopping)
                if (pthread_cond_timedwait(&w->turn, &e->feed_lock, &until) == ETIMEDOUT)
                        break;
        if (e->feed_rv + 1 == rv && !e->stopping) {
                watch_cache_publish(e->base.cache, type, resource, ns, rv, obj, TAKE_PTR(json));
                obj = NULL;
                e->feed_rv = rv;
                own_writes_wake(e);
        }
        own_write_unlist(w);
        pthread_mutex_unlock(&e->feed_lock);
        json_decref(obj);
}

/* Whether a write of this store's own publishes the event at rv, so the feed has nothing to do
 * for it. A write that knows rv as its revision publishes it: the feed waits for that, having
 * closed the gap below rv (the watch delivered every /registry/ revision below it, so the
 * writer need not wait for one written outside /registry/). A write that began before now and
 * is unanswered may be the one: the feed waits to learn, at most OWN_WRITE_WAIT_MS, and past it
 * waits no more for those (it decodes the event; their writers find it published). Under
 * feed_lock. */
static bool feed_left_to_own_write(struct store_etcd *e, uint64_t rv)
{
        struct timespec until = time_after_ms(CLOCK_MONOTONIC, OWN_WRITE_WAIT_MS);
        uint64_t began_before = e->own_tickets;

        if (e->feed_rv + 1 < rv) {
                e->feed_rv = rv - 1;
                own_writes_wake(e);
        }
        while (e->feed_rv < rv && !e->stopping) {
                bool holder = false, unanswered = false;

                for (const struct own_write *w = e->own_writes; w; w = w->next) {
                        holder |= w->rv == rv;
                        unanswered |=
                                !w->rv && w->ticket > e->own_passed && w->ticket <= began_before;
                }
                if (!holder && !unanswered)
                        break;
                if (holder)
                        /* it publishes now that the gap below is closed, or it ends */
                        pthread_cond_wait(&e->own_cond, &e->feed_lock);
                else if (pthread_cond_timedwait(&e->own_cond, &e->feed_lock, &until) == ETIMEDOUT)
                        e->own_passed = began_before;
        }
        return e->feed_rv >= rv;
}

/* Splits "/registry/<resource>/[<ns>/]<name>" into its parts (in place in key). */
static bool key_split(char *key, const char **resource, const char **ns, const char **name)
{
        char *p, *q;

        if (strncmp(key, REGISTRY_PREFIX, strlen(REGISTRY_PREFIX)) != 0)
                return false;
        p = key + strlen(REGISTRY_PREFIX);
        q = strchr(p, '/');
        if (!q || q == p || !q[1])
                return false;
        *q++ = '\0';
        *resource = p;
        p = strchr(q, '/');
        if (!p) {
                *ns = "";
                *name = q;
                return true;
        }
        *p++ = '\0';
        if (!*p || strchr(p, '/') || p == q + 1)
                return false;
        *ns = q;
        *name = p;
        return true;
}

struct feed {
        struct store_etcd *e;
        struct strbuf pending; /* the stream's bytes not yet a whole message */
        uint64_t next_rev;     /* the revision the next (re)connection starts from */
        uint64_t compacted;    /* set when etcd cancelled the watch: history lost */
        bool broken, created;  /* the stream said something this code cannot follow */
};

/* The state the DELETE event at rv removed: the key's kv at rv - 1 (K8S: watcher.go's DELETED
 * carries it; etcd3's watcher asks for prev_kv, this feed does not: nearly every event is a
 * write of this store's own whose writer has the object, and every message would carry each
 * value twice for the rare delete made elsewhere). 0 with *ret, the range's answer, or -errno
 * (-ERANGE: rv - 1 was compacted). */
static int feed_deleted_state(struct store_etcd *e, const struct etcd_kv *kv, uint64_t rv,
                              struct reply *ret)
{
        return range_call(e,
                          &(struct etcd_range){ .key = kv->key,
                                                .key_len = kv->key_len,
                                                .revision = (int64_t) (rv - 1) },
                          ret, NULL);
}

static void feed_event(struct feed *f, const struct etcd_event *ev)
{
        struct store_etcd *e = f->e;
        const struct etcd_kv *kv = &ev->kv;
        bool deleted = ev->type == ETCD_EVENT_DELETE;
        uint64_t rv = kv->mod_revision > 0 ? (uint64_t) kv->mod_revision : 0;
        const char *resource, *ns, *name;
        cleanup_free char *key = NULL, *json = NULL;
        cleanup_reply struct reply prev = { 0 };
        json_t *obj = NULL;
        bool published;

        if (rv == 0)
                return;
        if (rv >= f->next_rev)
                f->next_rev = rv + 1;
        /* a second op of one multi-key txn (the cache orders by revision), or a write of this
         * store's own that feed_publish_own already published */
        if (rv <= __atomic_load_n(&e->feed_rv, __ATOMIC_ACQUIRE))
                return;
        pthread_mutex_lock(&e->feed_lock);
        published = feed_left_to_own_write(e, rv);
        pthread_mutex_unlock(&e->feed_lock);
        if (published)
                return;
        key = kv_key(kv);
        if (key) {
                const struct etcd_kv *state = kv;

                if (deleted) {
                        int r = feed_deleted_state(e, kv, rv, &prev);

                        if (r == -ERANGE) {
                                /* history is gone below rv: the watchers re-list (feed_run) */
                                f->compacted = rv - 1;
                                return;
                        }
                        if (r < 0) {
                                /* etcd did not answer: this event again from a new stream */
                                f->next_rev = rv;
                                f->broken = true;
                                return;
                        }
                        state = prev.a.n_kvs ? &prev.a.kvs[0] : NULL;
                }
                if (state && key_split(key, &resource, &ns, &name))
                        /* K8S (watcher.go): DELETED carries the previous state at the
                         * deletion's revision */
                        (void) kv_object(state, resource, name, deleted ? rv : 0, &obj, NULL);
        }
        if (obj) {
                /* outside the lock own writes wait on */
                json_t *decoded = obj;

                obj = watch_cache_intern(e->base.cache, decoded);
                json_decref(decoded);
                json = json_dump_compact(obj);
        }
        pthread_mutex_lock(&e->feed_lock);
        /* checked again under the lock, where feed_publish_own publishes */
        if (rv > e->feed_rv) {
                if (obj)
                        watch_cache_publish(e->base.cache,
                                            deleted ? STORE_EVENT_DELETED
                                            : kv->create_revision == (int64_t) rv
                                                    ? STORE_EVENT_ADDED
                                                    : STORE_EVENT_MODIFIED,
                                            resource, ns, rv, obj, TAKE_PTR(json));
                obj = NULL; /* taken over */
                e->feed_rv = rv;
                own_writes_wake(e);
        }
        pthread_mutex_unlock(&e->feed_lock);
        json_decref(obj);
}

static void feed_message(struct feed *f, const uint8_t *msg, size_t len)
{
        struct etcd_answer a;

        if (etcd_rpc_answer(ETCD_WATCH, msg, len, &a) < 0) {
                f->broken = true;
                etcd_answer_release(&a);
                return;
        }
        if (a.created && !f->created) {
                f->created = true;
                pthread_mutex_lock(&f->e->feed_lock);
                f->e->feed_created = true;
                pthread_cond_broadcast(&f->e->feed_cond);
                pthread_mutex_unlock(&f->e->feed_lock);
        }
        if (a.compact_revision > 0)
                f->compacted = (uint64_t) a.compact_revision;
        else if (a.canceled)
                f->broken = true;
        for (size_t i = 0; i < a.n_events && !f->compacted && !f->broken; i++)
                feed_event(f, &a.events[i]);
        etcd_answer_release(&a);
}

/* The stream's bytes: each whole gRPC message is one WatchResponse. */
/* The stream's bytes as they arrive (h2_data_fn): each whole message to feed_message; false
 * (the stream ends) once it cannot be followed. */
static bool feed_data(void *ud, const uint8_t *data, size_t total)
{
        struct feed *f = ud;
        size_t at = 0;
        const uint8_t *msg;
        size_t len, used;
        int k;

        strbuf_add(&f->pending, (const char *) data, total);
        while ((k = grpc_frame_read((const uint8_t *) f->pending.buf + at, f->pending.len - at,
                                    MAX_WATCH_MESSAGE_BYTES, &msg, &len, &used)) == 1) {
                feed_message(f, msg, len);
                at += used;
                if (f->compacted || f->broken)
                        return false;
        }
        if (k < 0) {
                f->broken = true;
                return false;
        }
        memmove(f->pending.buf, f->pending.buf + at, f->pending.len - at + 1);
        f->pending.len -= at;
        return true;
}

/* A watch stream silent this long gets a PING, and is taken for dead when silent as long again
 * (a member that vanished without closing its connections). K8S: clientv3's keepalive time
 * (kube-apiserver's DialKeepAliveTime, 30 s), which etcd's keepalive enforcement (its
 * --grpc-keepalive-min-time, 5 s by default) allows. */
#define FEED_IDLE_MS 30000

static void *feed_run(void *p)
{
        struct store_etcd *e = p;
        struct feed f = { .e = e };
        size_t end_len;
        cleanup_free char *end = prefix_end(REGISTRY_PREFIX, &end_len);

        (void) pthread_setname_np(pthread_self(), "etcd-feed");
        strbuf_init(&f.pending);
        f.next_rev = e->feed_rv + 1;
        while (!__atomic_load_n(&e->stopping, __ATOMIC_ACQUIRE)) {
                unsigned cur = __atomic_load_n(&e->current, __ATOMIC_RELAXED);
                unsigned idx = cur % e->n_endpoints;
                struct grpc_status status;
                struct h2_conn *conn = NULL;
                struct strbuf body;
                int c;

                /* one create request, then the request stream ends: etcd keeps the watch
                 * (its recvLoop ends, the send loop goes on) */
                strbuf_init(&body);
                etcd_rpc_watch_create(&body, REGISTRY_PREFIX, end, (int64_t) f.next_rev);
                f.created = false;
                f.broken = false;
                f.compacted = 0;
                strbuf_reset(&f.pending);
                /* the stream's connection is its own */
                c = h2_connect(e->endpoints[idx], &e->tls, CONNECT_TIMEOUT_MS, &conn, NULL);
                if (c == 0)
                        c = h2_stream(conn, etcd_rpc_path(ETCD_WATCH), body.buf, body.len,
                                      e->stop_fd, FEED_IDLE_MS, feed_data, &f, &status, NULL);
                h2_close(conn);
                strbuf_release(&body);
                if (__atomic_load_n(&e->stopping, __ATOMIC_ACQUIRE))
                        break;
                if (f.compacted) {
                        /* Events were compacted away before this stream got them: watchers
                         * cannot be told what they missed, so they end and re-list, and the
                         * history starts again at the current revision (K8S: the cacher
                         * re-lists and its watchers get 410 then). */
                        uint64_t now;

                        if (current_revision(e, &now, NULL) == 0) {
                                /* under feed_lock: feed_publish_own must not
                                 * publish below the new start */
                                pthread_mutex_lock(&e->feed_lock);
                                watch_cache_reset(e->base.cache, now);
                                if (now > e->feed_rv)
                                        e->feed_rv = now;
                                own_writes_wake(e);
                                pthread_mutex_unlock(&e->feed_lock);
                                f.next_rev = now + 1;
                        }
                        continue;
                }
                if (c != 0 || f.broken || !f.created)
                        endpoint_failed(e, cur);
                (void) nanosleep(&(struct timespec){ 0, 100 * 1000 * 1000 }, NULL);
        }
        strbuf_release(&f.pending);
        return NULL;
}

/* --- compaction --- */

/* Sleeps up to ms; false once the store is stopping. */
static bool stop_wait(struct store_etcd *e, unsigned ms)
{
        struct timespec until = time_after_ms(CLOCK_MONOTONIC, ms);
        bool go;

        pthread_mutex_lock(&e->feed_lock);
        while (!e->stopping)
                if (pthread_cond_timedwait(&e->stop_cond, &e->feed_lock, &until) == ETIMEDOUT)
                        break;
        go = !e->stopping;
        pthread_mutex_unlock(&e->feed_lock);
        return go;
}

/* K8S (compact.go): every interval, CAS compact_rev_key on the version this apiserver last saw
 * it at; who wins writes the revision current one interval ago and compacts to it, so several
 * apiservers compact once per interval between them. A loser learns the winner's revision. */
static void compact_once(struct store_etcd *e, int64_t *version, uint64_t *rev)
{
        cleanup_reply struct reply ans = { 0 };
        cleanup_free char *val = xasprintf("%" PRIu64, *rev);
        struct strbuf req;
        uint64_t compact_to = *rev;
        int r;

        strbuf_init(&req);
        etcd_rpc_txn(&req, &(struct etcd_txn){ .key = COMPACT_REV_KEY,
                                               .target = ETCD_COMPARE_VERSION,
                                               .equals = *version,
                                               .value = val,
                                               .value_len = strlen(val) });
        r = etcd_call(e, ETCD_TXN, &req, false, &ans, NULL);
        strbuf_release(&req);
        if (r < 0)
                return;
        if (!ans.a.succeeded) {
                const struct etcd_kv *kv = ans.a.n_kvs ? &ans.a.kvs[0] : NULL;
                char v[32] = "";

                if (kv && kv->value_len < sizeof(v))
                        memcpy(v, kv->value, kv->value_len);
                *version = kv ? kv->version : 0;
                *rev = answer_rev(&ans.a);
                /* the winner compacted (or is compacting) to the value it wrote */
                if (strtoull(v, NULL, 10) > 0)
                        watch_cache_compact(e->base.cache, strtoull(v, NULL, 10));
                return;
        }
        ++*version;
        *rev = answer_rev(&ans.a);
        if (compact_to == 0)
                return; /* K8S: no compaction at bootstrap */
        {
                cleanup_reply struct reply cans = { 0 };

                strbuf_init(&req);
                etcd_rpc_compact(&req, (int64_t) compact_to);
                r = etcd_call(e, ETCD_COMPACT, &req, true, &cans, NULL);
                strbuf_release(&req);
                /* -ERANGE: someone compacted further already; the cache follows either way */
                if (r == 0 || r == -ERANGE)
                        watch_cache_compact(e->base.cache, compact_to);
        }
}

static void *compact_run(void *p)
{
        struct store_etcd *e = p;
        int64_t version = 0;
        uint64_t rev = 0;

        (void) pthread_setname_np(pthread_self(), "etcd-compact");
        while (stop_wait(e, e->compaction_interval_ms))
                compact_once(e, &version, &rev);
        return NULL;
}

/* --- leases --- */

static const struct ttl_rule *ttl_find(struct store_etcd *e, const char *resource)
{
        for (size_t i = 0; i < e->n_ttl; i++)
                if (streq(e->ttl[i].resource, resource))
                        return &e->ttl[i];
        return NULL;
}

/* The lease for an object of resource, 0 when it has no TTL. K8S: lease_manager.go's GetLease:
 * reuse the previous lease while it outlives the object's TTL by no more than the reuse
 * period, else grant one for TTL + reuse period. */
static int lease_for(struct store_etcd *e, const char *resource, bool fresh, int64_t *ret,
                     struct error **reterr)
{
        struct ttl_rule *t;
        int64_t now = time_monotonic_ms();
        unsigned reuse, ttl;
        cleanup_reply struct reply ans = { 0 };
        struct strbuf req;
        int r;

        pthread_mutex_lock(&e->ttl_lock);
        t = (struct ttl_rule *) ttl_find(e, resource);
        if (!t) {
                pthread_mutex_unlock(&e->ttl_lock);
                *ret = 0;
                return 0;
        }
        reuse = t->seconds * LEASE_REUSE_PERCENT / 100;
        if (reuse > LEASE_REUSE_MAX_S)
                reuse = LEASE_REUSE_MAX_S;
        /* valid: it outlives the object's TTL; sufficient: by no more than the reuse period */
        if (!fresh && t->lease_id && now + (int64_t) t->seconds * 1000 < t->lease_expires_ms &&
            now + (int64_t) (t->seconds + reuse) * 1000 > t->lease_expires_ms) {
                *ret = t->lease_id;
                pthread_mutex_unlock(&e->ttl_lock);
                return 0;
        }
        ttl = t->seconds + reuse;
        pthread_mutex_unlock(&e->ttl_lock);

        strbuf_init(&req);
        etcd_rpc_lease_grant(&req, ttl);
        r = etcd_call(e, ETCD_LEASE_GRANT, &req, false, &ans, reterr);
        strbuf_release(&req);
        if (r < 0)
                return r;
        if (ans.a.lease_error_len)
                return error_set(reterr, EIO, "etcd lease grant: %.*s", (int) ans.a.lease_error_len,
                                 (const char *) ans.a.lease_error);
        if (!ans.a.lease_id)
                return error_set(reterr, EIO, "etcd lease grant: no lease granted");
        pthread_mutex_lock(&e->ttl_lock);
        t = (struct ttl_rule *) ttl_find(e, resource);
        t->lease_id = ans.a.lease_id;
        /* etcd may grant longer than asked (its minimum TTL) */
        t->lease_ttl = ans.a.lease_ttl > (int64_t) ttl ? (unsigned) ans.a.lease_ttl : ttl;
        t->lease_expires_ms = now + (int64_t) t->lease_ttl * 1000;
        *ret = t->lease_id;
        pthread_mutex_unlock(&e->ttl_lock);
        return 0;
}

/* --- operations --- */

static struct store_etcd *etcd_of(struct store_backend *b)
{
        return (struct store_etcd *) b;
}

static uint64_t etcd_current_rv(struct store_backend *b)
{
        struct store_etcd *e = etcd_of(b);
        uint64_t rv;

        pthread_mutex_lock(&e->feed_lock);
        rv = e->feed_rv;
        pthread_mutex_unlock(&e->feed_lock);
        return rv;
}

static int check_names(const char *resource, const char *ns, const char *name,
                       struct error **reterr)
{
        /* A '/' would let one key stand for another. */
        if (strchr(resource, '/') || (ns && strchr(ns, '/')) || (name && strchr(name, '/')))
                return error_set(reterr, EINVAL, "%s \"%s\": a key part may not contain '/'",
                                 resource, name ? name : "");
        return 0;
}

/* The current kv of key into *ret: ret->a.kvs[0], or none (not found). */
static int kv_get(struct store_etcd *e, const char *key, struct reply *ret, struct error **reterr)
{
        return range_call(e, &(struct etcd_range){ .key = key, .key_len = strlen(key) }, ret,
                          reterr);
}

static int etcd_get(struct store_backend *b, const char *resource, const char *ns, const char *name,
                    json_t **ret_obj, struct error **reterr)
{
        struct store_etcd *e = etcd_of(b);
        cleanup_free char *key = key_of(resource, ns, name);
        cleanup_reply struct reply rep = { 0 };
        int r = check_names(resource, ns, name, reterr);

        if (r >= 0)
                r = kv_get(e, key, &rep, reterr);
        if (r < 0)
                return r;
        if (!rep.a.n_kvs)
                return store_error_not_found(reterr, resource, name);
        return kv_object(&rep.a.kvs[0], resource, name, 0, ret_obj, reterr);
}

struct listed {
        char *ns, *name;
        json_t *obj;
};

static int listed_cmp(const void *a, const void *b)
{
        const struct listed *x = a, *y = b;
        int c = strcmp(x->ns, y->ns);

        return c ? c : strcmp(x->name, y->name);
}

static int etcd_list(struct store_backend *b, const char *resource, const char *ns,
                     json_t **ret_items, uint64_t *ret_rv, struct error **reterr)
{
        struct store_etcd *e = etcd_of(b);
        cleanup_free char *prefix = ns && *ns ? xasprintf(REGISTRY_PREFIX "%s/%s/", resource, ns)
                                              : xasprintf(REGISTRY_PREFIX "%s/", resource);
        cleanup_free char *from = xstrdup(prefix);
        size_t from_len = strlen(from), end_len;
        cleanup_free char *end = prefix_end(prefix, &end_len);
        struct listed *got = NULL;
        size_t n = 0, cap = 0;
        uint64_t rev = 0;
        int r = check_names(resource, ns, NULL, reterr);

        if (r < 0)
                return r;
        /* K8S (store.go GetList): pages of `limit` at one revision, the next page from the last
         * key plus a zero byte, until etcd says there is no more. */
        for (;;) {
                cleanup_reply struct reply ans = { 0 };

                r = range_call(e,
                               &(struct etcd_range){ .key = from,
                                                     .key_len = from_len,
                                                     .range_end = end,
                                                     .range_end_len = end_len,
                                                     .limit = LIST_PAGE,
                                                     .revision = (int64_t) rev },
                               &ans, reterr);
                if (r < 0)
                        goto out;
                if (!rev)
                        rev = answer_rev(&ans.a);
                for (size_t i = 0; i < ans.a.n_kvs; i++) {
                        const struct etcd_kv *kv = &ans.a.kvs[i];
                        cleanup_free char *key = kv_key(kv);
                        const char *kr, *kns, *kname;
                        json_t *o;

                        if (!key)
                                continue;
                        free(from);
                        from = xmalloc(kv->key_len + 1);
                        memcpy(from, kv->key, kv->key_len);
                        from[kv->key_len] = '\0';
                        /* the key and a zero byte: the next key after it */
                        from_len = kv->key_len + 1;
                        if (!key_split(key, &kr, &kns, &kname) || (ns && !streq(kns, ns)))
                                continue;
                        r = kv_object(kv, resource, kname, 0, &o, reterr);
                        if (r < 0)
                                goto out;
                        if (n == cap) {
                                cap = cap ? cap * 2 : 64;
                                got = xrealloc(got, cap * sizeof(*got));
                        }
                        got[n++] = (struct listed){ xstrdup(kns), xstrdup(kname), o };
                }
                if (!ans.a.more || ans.a.n_kvs == 0)
                        break;
        }
        /* store.h's order is namespace then name; keys sort "a-b/x" before "a/x" */
        if (!ns && n > 1)
                qsort(got, n, sizeof(*got), listed_cmp);
        {
                json_t *items = json_array();

                for (size_t i = 0; i < n; i++)
                        json_array_append(items, got[i].obj);
                *ret_items = items;
                *ret_rv = rev;
        }
out:
        for (size_t i = 0; i < n; i++) {
                free(got[i].ns);
                free(got[i].name);
                json_decref(got[i].obj);
        }
        free(got);
        return r;
}

/* One txn (etcd-rpc.h's shape) into *ret. */
static int txn_call(struct store_etcd *e, const struct etcd_txn *t, struct reply *ret,
                    struct error **reterr)
{
        struct strbuf req;
        int r;

        strbuf_init(&req);
        etcd_rpc_txn(&req, t);
        r = etcd_call(e, ETCD_TXN, &req, false, ret, reterr);
        strbuf_release(&req);
        return r;
}

/* A put txn with the resource's lease; a lease that expired under it is granted anew once (the
 * put was refused then, so sending it again is safe). */
static int put_leased(struct store_etcd *e, const char *resource, struct etcd_txn *t,
                      struct reply *ret, struct error **reterr)
{
        int r = lease_for(e, resource, false, &t->lease, reterr);

        if (r >= 0)
                r = txn_call(e, t, ret, reterr);
        if (r == -ENOENT && t->lease) {
                if (reterr)
                        *reterr = error_free(*reterr);
                reply_release(ret);
                r = lease_for(e, resource, true, &t->lease, reterr);
                if (r >= 0)
                        r = txn_call(e, t, ret, reterr);
        }
        return r;
}

static int etcd_create(struct store_backend *b, const char *resource, const char *ns,
                       const char *name, json_t *obj, struct error **reterr)
{
        struct store_etcd *e = etcd_of(b);
        cleanup_free char *key = key_of(resource, ns, name), *value = NULL;
        cleanup_reply struct reply ans = { 0 };
        cleanup_own_write struct own_write w = { 0 };
        size_t len;
        uint64_t rv;
        int r = check_names(resource, ns, name, reterr);

        if (r >= 0)
                r = value_of(obj, resource, name, &value, &len, reterr);
        if (r < 0)
                return r;
        own_write_begin(e, &w);
        /* K8S (store.go Create): the key must not exist, create_revision == 0 */
        r = put_leased(e, resource,
                       &(struct etcd_txn){ .key = key,
                                           .target = ETCD_COMPARE_CREATE,
                                           .equals = 0,
                                           .value = value,
                                           .value_len = len },
                       &ans, reterr);
        if (r == -E2BIG)
                return error_set(reterr, E2BIG, "storing %s \"%s\": etcd refuses its size",
                                 resource, name);
        if (r < 0)
                return r;
        if (!ans.a.succeeded)
                return store_error_exists(reterr, resource, name);
        rv = answer_rev(&ans.a);
        store_object_stamp(obj, rv, NULL);
        feed_publish_own(&w, STORE_EVENT_ADDED, resource, ns, rv,
                         watch_cache_intern(e->base.cache, obj));
        return 0;
}

/* The compare-and-swap of obj over the version old_rv: 1 written, 0 lost the race with *lost
 * holding the key's current kv (lost->a.kvs[0]; none: gone), or -errno. */
static int update_cas(struct store_etcd *e, const char *resource, const char *ns, const char *name,
                      const char *key, json_t *obj, uint64_t old_rv, const char *value, size_t len,
                      struct reply *lost, struct error **reterr)
{
        cleanup_reply struct reply ans = { 0 };
        cleanup_own_write struct own_write w = { 0 };
        uint64_t rv;
        int r;

        own_write_begin(e, &w);
        /* K8S (store.go GuaranteedUpdate): the txn compares mod_revision; its else branch reads
         * the key, so a lost race costs no extra round trip */
        r = put_leased(e, resource,
                       &(struct etcd_txn){ .key = key,
                                           .target = ETCD_COMPARE_MOD,
                                           .equals = (int64_t) old_rv,
                                           .value = value,
                                           .value_len = len },
                       &ans, reterr);
        if (r == -E2BIG)
                return error_set(reterr, E2BIG, "storing %s \"%s\": etcd refuses its size",
                                 resource, name);
        if (r < 0)
                return r;
        if (!ans.a.succeeded) {
                reply_release(lost);
                *lost = ans;
                ans = (struct reply){ 0 };
                return 0;
        }
        rv = answer_rev(&ans.a);
        store_object_stamp(obj, rv, NULL);
        feed_publish_own(&w, STORE_EVENT_MODIFIED, resource, ns, rv,
                         watch_cache_intern(e->base.cache, obj));
        return 1;
}

/* The -ESTALE of an update that lost to kv, the key's current state: *ret_current (if
 * non-NULL) gets kv's object, from which the caller retries without reading again. */
static int update_lost(const struct etcd_kv *kv, const char *resource, const char *name,
                       json_t **ret_current, struct error **reterr)
{
        json_t *cur;

        if (ret_current && kv_object(kv, resource, name, 0, &cur, NULL) == 0)
                *ret_current = cur;
        return store_error_conflict(reterr, resource, name);
}

static int etcd_update(struct store_backend *b, const char *resource, const char *ns,
                       const char *name, json_t *obj, uint64_t expected_rv, const json_t *known,
                       json_t **ret_current, struct error **reterr)
{
        struct store_etcd *e = etcd_of(b);
        cleanup_free char *key = key_of(resource, ns, name), *value = NULL;
        cleanup_reply struct reply cur = { 0 };
        struct store_stamp_saved saved;
        size_t len = 0;
        int r = check_names(resource, ns, name, reterr);

        if (r < 0)
                return r;
        if (known && expected_rv) {
                /* K8S (store.go GuaranteedUpdate with the cacher's cachedExistingObject): the
                 * caller read the object at expected_rv, so no read before the write; only an
                 * unchanged object is confirmed against etcd (upstream re-reads then too), as a
                 * write that changes nothing must not be made. */
                bool same;

                store_object_stamp(obj, expected_rv, &saved);
                same = json_equal(obj, known);
                store_object_unstamp(obj, &saved);
                if (!same) {
                        r = value_of(obj, resource, name, &value, &len, reterr);
                        if (r < 0)
                                return r;
                        r = update_cas(e, resource, ns, name, key, obj, expected_rv, value, len,
                                       &cur, reterr);
                        if (r != 0)
                                return r;
                        if (!cur.a.n_kvs)
                                return store_error_not_found(reterr, resource, name);
                        return update_lost(&cur.a.kvs[0], resource, name, ret_current, reterr);
                }
        }
        r = kv_get(e, key, &cur, reterr);
        if (r < 0)
                return r;
        /* K8S (store.go GuaranteedUpdate): read, compare, CAS on mod_revision; a lost race
         * retries with the state the failed txn read, unless the caller named a version. */
        for (;;) {
                cleanup_json json_t *old = NULL;
                const struct etcd_kv *kv = cur.a.n_kvs ? &cur.a.kvs[0] : NULL;
                uint64_t old_rv;

                if (!kv)
                        return store_error_not_found(reterr, resource, name);
                old_rv = (uint64_t) kv->mod_revision;
                if (expected_rv && expected_rv != old_rv)
                        return update_lost(kv, resource, name, ret_current, reterr);
                r = kv_object(kv, resource, name, 0, &old, reterr);
                if (r < 0)
                        return r;
                /* K8S: an update that changes nothing writes nothing (store.h) */
                store_object_stamp(obj, old_rv, &saved);
                if (json_equal(obj, old)) {
                        store_stamp_saved_release(&saved);
                        return 0;
                }
                store_object_unstamp(obj, &saved);
                if (!value) {
                        r = value_of(obj, resource, name, &value, &len, reterr);
                        if (r < 0)
                                return r;
                }
                r = update_cas(e, resource, ns, name, key, obj, old_rv, value, len, &cur, reterr);
                if (r != 0)
                        return r;
        }
}

static int etcd_delete(struct store_backend *b, const char *resource, const char *ns,
                       const char *name, uint64_t expected_rv, json_t **ret_last,
                       struct error **reterr)
{
        struct store_etcd *e = etcd_of(b);
        cleanup_free char *key = key_of(resource, ns, name);
        cleanup_reply struct reply ans = { 0 };
        cleanup_json json_t *last = NULL;
        cleanup_own_write struct own_write w = { 0 };
        const struct etcd_kv *prev;
        uint64_t rv;
        int r = check_names(resource, ns, name, reterr);

        if (r < 0)
                return r;
        own_write_begin(e, &w);
        if (expected_rv) {
                /* K8S (store.go Delete): the precondition is the txn's compare */
                r = txn_call(e,
                             &(struct etcd_txn){ .key = key,
                                                 .target = ETCD_COMPARE_MOD,
                                                 .equals = (int64_t) expected_rv },
                             &ans, reterr);
                if (r < 0)
                        return r;
                if (!ans.a.succeeded) {
                        if (!ans.a.n_kvs)
                                return store_error_not_found(reterr, resource, name);
                        return store_error_precondition(reterr, resource, name, expected_rv,
                                                        (uint64_t) ans.a.kvs[0].mod_revision);
                }
        } else {
                struct strbuf req;

                strbuf_init(&req);
                etcd_rpc_delete(&req, key);
                r = etcd_call(e, ETCD_DELETE_RANGE, &req, false, &ans, reterr);
                strbuf_release(&req);
                if (r < 0)
                        return r;
        }
        /* the delete's prev_kvs, in a txn or not */
        prev = ans.a.n_kvs ? &ans.a.kvs[0] : NULL;
        if (!prev)
                return store_error_not_found(reterr, resource, name);
        rv = answer_rev(&ans.a);
        /* deleted whatever the stored value held; it is unreadable only to ret_last (the feed
         * skips an unreadable value too) */
        r = kv_object(prev, resource, name, rv, &last, ret_last ? reterr : NULL);
        if (r < 0 && ret_last)
                return r;
        if (r < 0)
                return 0;
        if (ret_last)
                *ret_last = json_deep_copy(last);
        feed_publish_own(&w, STORE_EVENT_DELETED, resource, ns, rv,
                         watch_cache_intern(e->base.cache, last));
        return 0;
}

static void etcd_free(struct store_backend *b)
{
        struct store_etcd *e = etcd_of(b);

        pthread_mutex_lock(&e->feed_lock);
        __atomic_store_n(&e->stopping, true, __ATOMIC_RELEASE);
        pthread_cond_broadcast(&e->feed_cond);
        own_writes_wake(e);
        pthread_cond_broadcast(&e->own_cond);
        pthread_cond_broadcast(&e->stop_cond);
        (void) eventfd_write(e->stop_fd, 1);
        pthread_mutex_unlock(&e->feed_lock);
        if (e->feed_started)
                (void) pthread_join(e->feed_thread, NULL);
        if (e->compact_started)
                (void) pthread_join(e->compact_thread, NULL);
        for (size_t i = 0; i < e->pool_len; i++) {
                h2_close(e->pool[i]->conn);
                free(e->pool[i]);
        }
        (void) close(e->stop_fd);
        free(e->pool);
        for (size_t i = 0; i < e->n_endpoints; i++)
                free(e->endpoints[i]);
        free(e->endpoints);
        for (size_t i = 0; i < e->n_ttl; i++)
                free(e->ttl[i].resource);
        free(e->ttl);
        free(e->cafile);
        free(e->certfile);
        free(e->keyfile);
        pthread_mutex_destroy(&e->pool_lock);
        pthread_mutex_destroy(&e->feed_lock);
        pthread_cond_destroy(&e->feed_cond);
        pthread_cond_destroy(&e->own_cond);
        pthread_cond_destroy(&e->stop_cond);
        pthread_condattr_destroy(&e->cond_attr);
        pthread_mutex_destroy(&e->ttl_lock);
        free(e);
}

static int etcd_set_ttl(struct store_backend *b, const char *resource, unsigned seconds)
{
        struct store_etcd *e = etcd_of(b);
        struct ttl_rule *t;

        pthread_mutex_lock(&e->ttl_lock);
        t = (struct ttl_rule *) ttl_find(e, resource);
        if (!t) {
                e->ttl = xrealloc(e->ttl, (e->n_ttl + 1) * sizeof(*e->ttl));
                t = &e->ttl[e->n_ttl++];
                *t = (struct ttl_rule){ .resource = xstrdup(resource) };
        }
        t->seconds = seconds;
        t->lease_id = 0;
        pthread_mutex_unlock(&e->ttl_lock);
        return 0;
}

static void etcd_stop_retrying(struct store_backend *b)
{
        __atomic_store_n(&etcd_of(b)->no_retries, true, __ATOMIC_RELEASE);
}

static const struct store_backend_ops etcd_ops = {
        .name = "etcd",
        .free = etcd_free,
        .current_rv = etcd_current_rv,
        .get = etcd_get,
        .list = etcd_list,
        .create = etcd_create,
        .update = etcd_update,
        .delete = etcd_delete,
        .set_ttl = etcd_set_ttl,
        .stop_retrying = etcd_stop_retrying,
};

/* --- opening --- */

static int parse_endpoints(struct store_etcd *e, const char *list, struct error **reterr)
{
        cleanup_free char *copy = xstrdup(list);
        char *save = NULL;

        for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                size_t n = strlen(t);

                if (strncmp(t, "http://", 7) != 0 && strncmp(t, "https://", 8) != 0)
                        return error_set(reterr, EINVAL,
                                         "--etcd-endpoints: \"%s\": want http:// or https://", t);
                while (n > 0 && t[n - 1] == '/')
                        t[--n] = '\0';
                e->endpoints = xrealloc(e->endpoints, (e->n_endpoints + 1) * sizeof(char *));
                e->endpoints[e->n_endpoints++] = xstrdup(t);
        }
        if (e->n_endpoints == 0)
                return error_set(reterr, EINVAL, "--etcd-endpoints: no endpoint given");
        return 0;
}

int store_etcd_open(const struct store_etcd_options *eo, struct store_backend **ret,
                    struct error **reterr)
{
        struct store_etcd *e;
        int r;

        e = xcalloc(1, sizeof(*e));
        e->base.ops = &etcd_ops;
        e->stop_fd = eventfd(0, EFD_CLOEXEC);
        if (e->stop_fd < 0)
                abort();
        e->compaction_interval_ms = eo->compaction_interval_ms;
        e->cafile = eo->cafile ? xstrdup(eo->cafile) : NULL;
        e->certfile = eo->certfile ? xstrdup(eo->certfile) : NULL;
        e->keyfile = eo->keyfile ? xstrdup(eo->keyfile) : NULL;
        e->tls = (struct h2_options){ .ca_file = e->cafile,
                                      .cert_file = e->certfile,
                                      .key_file = e->keyfile };
        if (pthread_mutex_init(&e->pool_lock, NULL) != 0 ||
            pthread_mutex_init(&e->feed_lock, NULL) != 0 ||
            pthread_mutex_init(&e->ttl_lock, NULL) != 0)
                abort();
        if (pthread_condattr_init(&e->cond_attr) != 0 ||
            pthread_condattr_setclock(&e->cond_attr, CLOCK_MONOTONIC) != 0 ||
            pthread_cond_init(&e->feed_cond, &e->cond_attr) != 0 ||
            pthread_cond_init(&e->own_cond, &e->cond_attr) != 0 ||
            pthread_cond_init(&e->stop_cond, &e->cond_attr) != 0)
                abort();
        r = parse_endpoints(e, eo->endpoints ? eo->endpoints : "", reterr);
        if (r < 0)
                goto fail;
        /* The current revision: the watch history starts here. */
        r = current_revision(e, &e->feed_rv, reterr);
        if (r < 0) {
                (void) error_wrap(reterr, "opening store on etcd");
                goto fail;
        }
        *ret = &e->base;
        return 0;
fail:
        etcd_free(&e->base);
        return r;
}

int store_etcd_start(struct store_backend *b, struct error **reterr)
{
        struct store_etcd *e = etcd_of(b);
        struct timespec until = time_after_ms(CLOCK_MONOTONIC, RETRY_MS);
        bool created;

        if (pthread_create(&e->feed_thread, NULL, feed_run, e) != 0)
                return error_set(reterr, EAGAIN, "opening store on etcd: cannot start a thread");
        e->feed_started = true;
        /* Writes must not land before the watch that publishes them exists. */
        pthread_mutex_lock(&e->feed_lock);
        while (!e->feed_created)
                if (pthread_cond_timedwait(&e->feed_cond, &e->feed_lock, &until) == ETIMEDOUT)
                        break;
        created = e->feed_created;
        pthread_mutex_unlock(&e->feed_lock);
        if (!created)
                return error_set(reterr, ETIMEDOUT,
                                 "opening store on etcd: no endpoint accepts a watch");
        if (e->compaction_interval_ms > 0) {
                if (pthread_create(&e->compact_thread, NULL, compact_run, e) != 0)
                        return error_set(reterr, EAGAIN,
                                         "opening store on etcd: cannot start a thread");
                e->compact_started = true;
        }
        return 0;
}
