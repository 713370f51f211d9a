/* store-etcd.c: the etcd backend, as kube-apiserver's etcd3 storage keeps objects
 * (k8s.io/apiserver/pkg/storage/etcd3: store.go, watcher.go, compact.go, lease_manager.go),
 * spoken over etcd's JSON gateway (/v3/kv/..., /v3/watch, /v3/lease/grant; the messages of
 * api/etcdserverpb/rpc.proto with grpc-gateway's JSON mapping: bytes base64, int64 as strings).
 *
 * Keys are /registry/<resource>/<namespace>/<name> (cluster-scoped: /registry/<resource>/<name>),
 * values the object's JSON without metadata.resourceVersion, which is the key's mod_revision,
 * stamped on every read. Creates, updates and deletes are transactions on create_revision and
 * mod_revision. One etcd watch of the whole /registry/ prefix feeds the shared
 * watch cache, so every watcher of this store, and the writes of every other apiserver on the
 * same etcd, go through one stream; a write returns once that stream has delivered it. Also
 * here: periodic compaction (the compact_rev_key CAS) and a lease manager for objects with a
 * TTL. Not here: the public API (store.c) and the watchers' queues (watch-cache.c). */
#include <curl/curl.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/base64.h"
#include "base/json.h"
#include "base/strbuf.h"
#include "base/timeutil.h"
#include "http/curl-setup.h"
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
/* A response larger than this is refused: a page of LIST_PAGE objects at the object size cap,
 * base64 encoded, is bounded by etcd's own response limit, but a hostile endpoint is not. */
#define MAX_RESPONSE_BYTES ((size_t) 2 * 1024 * 1024 * 1024 - 1)
/* A watch message is one response of events; etcd sends at most its max request size per
 * event, so a line longer than this is a broken stream. */
#define MAX_WATCH_LINE_BYTES ((size_t) 256 * 1024 * 1024)

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
        unsigned compaction_interval_ms;

        pthread_mutex_t pool_lock;
        CURL **pool; /* idle handles, their connections kept alive */
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
        int feed_fd;     /* the watch stream's socket, -1 when none; under feed_lock */
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

struct reply {
        struct strbuf body;
        bool too_big;
};

static size_t reply_write(char *data, size_t size, size_t n, void *ud)
{
        struct reply *r = ud;

        if (r->body.len + size * n > MAX_RESPONSE_BYTES) {
                r->too_big = true;
                return 0;
        }
        strbuf_add(&r->body, data, size * n);
        return size * n;
}

static CURL *handle_get(struct store_etcd *e)
{
        CURL *h = NULL;

        pthread_mutex_lock(&e->pool_lock);
        if (e->pool_len > 0)
                h = e->pool[--e->pool_len];
        pthread_mutex_unlock(&e->pool_lock);
        if (!h)
                h = curl_easy_init();
        if (!h)
                abort();
        return h;
}

static void handle_put(struct store_etcd *e, CURL *h)
{
        pthread_mutex_lock(&e->pool_lock);
        if (e->pool_len == e->pool_cap) {
                e->pool_cap = e->pool_cap ? e->pool_cap * 2 : 8;
                e->pool = xrealloc(e->pool, e->pool_cap * sizeof(*e->pool));
        }
        e->pool[e->pool_len++] = h;
        pthread_mutex_unlock(&e->pool_lock);
}

/* The options every request shares: TLS material, no signals, loopback-friendly timeouts. */
static void handle_setup(struct store_etcd *e, CURL *h, const char *url, const char *body,
                         struct curl_slist *headers)
{
        curl_easy_reset(h);
        (void) curl_easy_setopt(h, CURLOPT_URL, url);
        (void) curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
        (void) curl_easy_setopt(h, CURLOPT_POST, 1L);
        (void) curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
        (void) curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, (long) strlen(body));
        (void) curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
        (void) curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long) CONNECT_TIMEOUT_MS);
        (void) curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
        (void) curl_easy_setopt(h, CURLOPT_TCP_NODELAY, 1L);
        if (e->cafile)
                (void) curl_easy_setopt(h, CURLOPT_CAINFO, e->cafile);
        if (e->certfile)
                (void) curl_easy_setopt(h, CURLOPT_SSLCERT, e->certfile);
        if (e->keyfile)
                (void) curl_easy_setopt(h, CURLOPT_SSLKEY, e->keyfile);
}

/* The endpoint at cur (the value of e->current the caller used) failed: move every caller on
 * to the next, unless another already did. */
static void endpoint_failed(struct store_etcd *e, unsigned cur)
{
        (void) __atomic_compare_exchange_n(&e->current, &cur, cur + 1, false, __ATOMIC_RELAXED,
                                           __ATOMIC_RELAXED);
}

/* A connection-level failure: the next endpoint may answer. */
static bool curl_failover(CURLcode c)
{
        switch (c) {
        case CURLE_COULDNT_CONNECT:
        case CURLE_COULDNT_RESOLVE_HOST:
        case CURLE_OPERATION_TIMEDOUT:
        case CURLE_SEND_ERROR:
        case CURLE_RECV_ERROR:
        case CURLE_GOT_NOTHING:
        case CURLE_SSL_CONNECT_ERROR:
        case CURLE_PARTIAL_FILE:
                return true;
        default:
                return false;
        }
}

/* Only a request that never reached a server is safe to send again unconditionally: a write
 * cut off after it was sent may have been applied (clientv3 retries mutations only then). */
static bool curl_unsent(CURLcode c)
{
        return c == CURLE_COULDNT_CONNECT || c == CURLE_COULDNT_RESOLVE_HOST ||
               c == CURLE_SSL_CONNECT_ERROR;
}

/* etcd answers that mean "not now, ask again" (rpctypes: ErrNoLeader, ErrLeaderChanged,
 * ErrTimeout..., gRPC Unavailable = 14). */
static bool etcd_transient(const char *msg, int64_t code)
{
        return code == 14 || (msg && (strstr(msg, "no leader") || strstr(msg, "leader changed") ||
                                      strstr(msg, "not capable") || strstr(msg, "timed out")));
}

/* Sends body to path on the current endpoint, failing over to the next on a connection error
 * (a read or idempotent request: on any; a write: only when it was never sent). *ret is the
 * JSON answer. Errors: -ERANGE when the revision asked for was compacted, -E2BIG when etcd
 * refuses the size, -ENOENT for a lease that is gone, -EIO otherwise, with *reterr. */
static int etcd_call(struct store_etcd *e, const char *path, const json_t *req, bool idempotent,
                     json_t **ret, struct error **reterr)
{
        cleanup_free char *body = json_dumps(req, JSON_COMPACT);
        struct curl_slist *headers = curl_slist_append(NULL, "Content-Type: application/json");
        int64_t deadline = time_monotonic_ms() + RETRY_MS;
        cleanup_free char *last_error = NULL;
        int r = -EIO;

        if (!body || !headers)
                abort();
        for (size_t tries = 0;; tries++) {
                unsigned cur = __atomic_load_n(&e->current, __ATOMIC_RELAXED);
                unsigned idx = cur % e->n_endpoints;
                cleanup_free char *url = xasprintf("%s%s", e->endpoints[idx], path);
                struct reply rep = { 0 };
                CURL *h = handle_get(e);
                CURLcode c;
                long status = 0;

                strbuf_init(&rep.body);
                handle_setup(e, h, url, body, headers);
                (void) curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long) REQUEST_TIMEOUT_MS);
                (void) curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, reply_write);
                (void) curl_easy_setopt(h, CURLOPT_WRITEDATA, &rep);
                c = curl_easy_perform(h);
                if (c == CURLE_OK)
                        (void) curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
                handle_put(e, h);

                if (c != CURLE_OK) {
                        free(last_error);
                        last_error = xasprintf("%s: %s", e->endpoints[idx], curl_easy_strerror(c));
                        strbuf_release(&rep.body);
                        if (rep.too_big) {
                                r = error_set(reterr, EIO, "etcd %s: response too large", path);
                                break;
                        }
                        if (!curl_failover(c) || (!idempotent && !curl_unsent(c))) {
                                r = error_set(reterr, EIO, "etcd %s: %s", path, last_error);
                                break;
                        }
                        /* K8S (clientv3's balancer): on a connection error, the next endpoint */
                        endpoint_failed(e, cur);
                        /* A refused connection may be a member still starting: keep trying
                         * for a while. A failed handshake (no or a wrong client certificate)
                         * does not heal: once every endpoint said so, give up. */
                        if (tries + 1 >= e->n_endpoints &&
                            (time_monotonic_ms() > deadline || c == CURLE_SSL_CONNECT_ERROR ||
                             __atomic_load_n(&e->no_retries, __ATOMIC_ACQUIRE))) {
                                r = error_set(reterr, EIO, "etcd %s: no endpoint answers: %s", path,
                                              last_error);
                                break;
                        }
                        if (tries + 1 >= e->n_endpoints)
                                (void) nanosleep(&(struct timespec){ 0, 100 * 1000 * 1000 }, NULL);
                        continue;
                }
                {
                        json_error_t jerr;
                        json_t *ans = json_loadb(rep.body.buf, rep.body.len, 0, &jerr);
                        const char *msg;
                        int64_t code;

                        strbuf_release(&rep.body);
                        if (!json_is_object(ans)) {
                                json_decref(ans);
                                r = error_set(reterr, EIO, "etcd %s: %s: answer is not JSON (%ld)",
                                              path, e->endpoints[idx], status);
                                break;
                        }
                        if (status == 200) {
                                *ret = ans;
                                r = 0;
                                break;
                        }
                        msg = json_string_value(json_object_get(ans, "message"));
                        if (!msg)
                                msg = json_string_value(json_object_get(ans, "error"));
                        code = json_integer_value(json_object_get(ans, "code"));
                        if (etcd_transient(msg, code) && time_monotonic_ms() < deadline &&
                            !__atomic_load_n(&e->no_retries, __ATOMIC_ACQUIRE)) {
                                json_decref(ans);
                                endpoint_failed(e, cur);
                                (void) nanosleep(&(struct timespec){ 0, 100 * 1000 * 1000 }, NULL);
                                continue;
                        }
                        if (msg && strstr(msg, "required revision has been compacted"))
                                r = -ERANGE;
                        else if (msg && strstr(msg, "request is too large"))
                                r = -E2BIG;
                        else if (msg && strstr(msg, "requested lease not found"))
                                r = -ENOENT;
                        else
                                r = -EIO;
                        r = error_set(reterr, -r, "etcd %s: %s", path, msg ? msg : "error");
                        json_decref(ans);
                        break;
                }
        }
        curl_slist_free_all(headers);
        return r;
}

/* --- keys and values --- */

static char *key_of(const char *resource, const char *ns, const char *name)
{
        if (!*ns)
                return xasprintf(REGISTRY_PREFIX "%s/%s", resource, name);
        return xasprintf(REGISTRY_PREFIX "%s/%s/%s", resource, ns, name);
}

/* A key's bytes as the gateway wants them. */
static json_t *b64(const char *s, size_t n)
{
        char *enc = base64_encode(s, n);
        json_t *j = json_string(enc);

        free(enc);
        return j;
}

static json_t *b64s(const char *s)
{
        return b64(s, strlen(s));
}

/* The end of the range of every key starting with prefix (etcd's GetPrefixRangeEnd: the prefix
 * with its last byte below 0xff incremented). */
static json_t *prefix_end(const char *prefix)
{
        size_t n = strlen(prefix);
        cleanup_free char *end = xstrdup(prefix);

        while (n > 0 && (unsigned char) end[n - 1] == 0xff)
                n--;
        if (n == 0)
                return b64("\0", 1);
        end[n - 1] = (char) ((unsigned char) end[n - 1] + 1);
        return b64(end, n);
}

/* An int64 the gateway sent as a decimal string (or, from an older gateway, a number). */
static int64_t j_int(const json_t *o, const char *key)
{
        const json_t *v = json_object_get(o, key);

        if (json_is_integer(v))
                return json_integer_value(v);
        if (json_is_string(v))
                return strtoll(json_string_value(v), NULL, 10);
        return 0;
}

static uint64_t header_rev(const json_t *ans)
{
        int64_t r = j_int(json_object_get(ans, "header"), "revision");

        return r > 0 ? (uint64_t) r : 0;
}

static char *b64_field(const json_t *o, const char *key, size_t *ret_len)
{
        const char *s = json_string_value(json_object_get(o, key));
        char *out = NULL;

        if (!s) {
                *ret_len = 0;
                return xstrdup("");
        }
        if (base64_decode(s, strlen(s), &out, ret_len, NULL) < 0)
                return NULL;
        return out;
}

/* A kv's value as an object stamped with its mod_revision (or with rv when non-zero). */
static int kv_object(const json_t *kv, const char *resource, const char *name, uint64_t rv,
                     json_t **ret, struct error **reterr)
{
        size_t len;
        cleanup_free char *value = b64_field(kv, "value", &len);
        json_t *o;
        int r;

        if (!value)
                return error_set(reterr, EIO, "reading %s \"%s\": etcd value is not base64",
                                 resource, name);
        r = store_object_decode(value, len, resource, name, &o, reterr);
        if (r < 0)
                return r;
        store_object_stamp(o, rv ? rv : (uint64_t) j_int(kv, "mod_revision"), NULL);
        *ret = o;
        return 0;
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
        struct strbuf line;
        uint64_t next_rev;    /* the revision the next (re)connection starts from */
        uint64_t compacted;   /* set when etcd cancelled the watch: history lost */
        bool broken, created; /* the stream said something this code cannot follow */
};

/* The state the DELETE event at rv removed: the key's kv at rv - 1 (K8S: watcher.go's DELETED
 * carries it; etcd3's watcher asks for prev_kv, this feed does not: nearly every event is a
 * write of this store's own whose writer has the object, and etcd's gateway would encode every
 * value twice into each message for the rare delete made elsewhere). 0 with *ret_ans, the
 * range's answer, or -errno (-ERANGE: rv - 1 was compacted). */
static int feed_deleted_state(struct store_etcd *e, const char *key, size_t len, uint64_t rv,
                              json_t **ret_ans)
{
        cleanup_json json_t *req =
                json_pack("{s:o, s:I}", "key", b64(key, len), "revision", (json_int_t) (rv - 1));

        return etcd_call(e, "/v3/kv/range", req, true, ret_ans, NULL);
}

static void feed_event(struct feed *f, const json_t *ev)
{
        struct store_etcd *e = f->e;
        const char *type = json_string_value(json_object_get(ev, "type"));
        const json_t *kv = json_object_get(ev, "kv");
        bool deleted = type && streq(type, "DELETE");
        uint64_t rv = (uint64_t) j_int(kv, "mod_revision");
        const char *resource, *ns, *name;
        cleanup_free char *key = NULL, *json = NULL;
        cleanup_json json_t *prev = NULL;
        json_t *obj = NULL;
        size_t len;
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
        key = b64_field(kv, "key", &len);
        if (key && strlen(key) == len) {
                const json_t *state = kv;

                if (deleted) {
                        int r = feed_deleted_state(e, key, len, rv, &prev);

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
                        state = json_array_get(json_object_get(prev, "kvs"), 0);
                }
                if (key_split(key, &resource, &ns, &name))
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
                                            : j_int(kv, "create_revision") == (int64_t) rv
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

static void feed_message(struct feed *f, const char *s, size_t n)
{
        cleanup_json json_t *msg = json_loadb(s, n, 0, NULL);
        const json_t *res = json_object_get(msg, "result");
        const json_t *events = json_object_get(res, "events");
        size_t i;
        const json_t *ev;

        if (!res) {
                f->broken = true;
                return;
        }
        if (json_is_true(json_object_get(res, "created")) && !f->created) {
                f->created = true;
                pthread_mutex_lock(&f->e->feed_lock);
                f->e->feed_created = true;
                pthread_cond_broadcast(&f->e->feed_cond);
                pthread_mutex_unlock(&f->e->feed_lock);
        }
        if (j_int(res, "compact_revision") > 0) {
                f->compacted = (uint64_t) j_int(res, "compact_revision");
                return;
        }
        if (json_is_true(json_object_get(res, "canceled"))) {
                f->broken = true;
                return;
        }
        json_array_foreach(events, i, ev) {
                feed_event(f, ev);
                if (f->compacted || f->broken)
                        return;
        }
}

static size_t feed_write(char *data, size_t size, size_t n, void *ud)
{
        struct feed *f = ud;
        size_t total = size * n, start = 0;

        /* grpc-gateway streams one JSON message per line. */
        for (size_t i = 0; i < total; i++) {
                if (data[i] != '\n')
                        continue;
                strbuf_add(&f->line, data + start, i - start);
                if (f->line.len > 0)
                        feed_message(f, f->line.buf, f->line.len);
                strbuf_reset(&f->line);
                start = i + 1;
                if (f->compacted || f->broken)
                        return 0;
        }
        strbuf_add(&f->line, data + start, total - start);
        if (f->line.len > MAX_WATCH_LINE_BYTES)
                return 0;
        return total;
}

static int feed_progress(void *ud, curl_off_t a, curl_off_t b, curl_off_t c, curl_off_t d)
{
        struct feed *f = ud;

        (void) a, (void) b, (void) c, (void) d;
        return __atomic_load_n(&f->e->stopping, __ATOMIC_ACQUIRE) ? 1 : 0;
}

/* Remembers the stream's socket so closing the store can cut it at once (libcurl would notice
 * the stop flag only at its next progress call, up to a second later). */
static curl_socket_t feed_open_socket(void *ud, curlsocktype purpose, struct curl_sockaddr *a)
{
        struct store_etcd *e = ud;
        curl_socket_t fd = socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);

        (void) purpose;
        pthread_mutex_lock(&e->feed_lock);
        if (e->stopping && fd >= 0) {
                (void) close(fd);
                fd = CURL_SOCKET_BAD;
        }
        e->feed_fd = fd;
        pthread_mutex_unlock(&e->feed_lock);
        return fd;
}

static int feed_close_socket(void *ud, curl_socket_t fd)
{
        struct store_etcd *e = ud;

        pthread_mutex_lock(&e->feed_lock);
        if (e->feed_fd == fd)
                e->feed_fd = -1;
        pthread_mutex_unlock(&e->feed_lock);
        return close(fd);
}

static void *feed_run(void *p)
{
        struct store_etcd *e = p;
        struct feed f = { .e = e };
        struct curl_slist *headers = curl_slist_append(NULL, "Content-Type: application/json");
        CURL *h = curl_easy_init();

        (void) pthread_setname_np(pthread_self(), "etcd-feed");
        if (!h || !headers)
                abort();
        strbuf_init(&f.line);
        f.next_rev = e->feed_rv + 1;
        while (!__atomic_load_n(&e->stopping, __ATOMIC_ACQUIRE)) {
                unsigned cur = __atomic_load_n(&e->current, __ATOMIC_RELAXED);
                unsigned idx = cur % e->n_endpoints;
                cleanup_free char *url = xasprintf("%s/v3/watch", e->endpoints[idx]);
                cleanup_json json_t *req =
                        json_pack("{s:{s:o, s:o, s:I}}", "create_request", "key",
                                  b64s(REGISTRY_PREFIX), "range_end", prefix_end(REGISTRY_PREFIX),
                                  "start_revision", (json_int_t) f.next_rev);
                cleanup_free char *body = json_dumps(req, JSON_COMPACT);
                CURLcode c;

                f.created = false;
                f.broken = false;
                f.compacted = 0;
                strbuf_reset(&f.line);
                handle_setup(e, h, url, body, headers);
                (void) curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, feed_write);
                (void) curl_easy_setopt(h, CURLOPT_WRITEDATA, &f);
                (void) curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
                (void) curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, feed_progress);
                (void) curl_easy_setopt(h, CURLOPT_XFERINFODATA, &f);
                (void) curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, feed_open_socket);
                (void) curl_easy_setopt(h, CURLOPT_OPENSOCKETDATA, e);
                (void) curl_easy_setopt(h, CURLOPT_CLOSESOCKETFUNCTION, feed_close_socket);
                (void) curl_easy_setopt(h, CURLOPT_CLOSESOCKETDATA, e);
                /* the stream's connection is its own, never reused by another request */
                (void) curl_easy_setopt(h, CURLOPT_FORBID_REUSE, 1L);
                /* a dead member is noticed within a minute even without a RST */
                (void) curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
                (void) curl_easy_setopt(h, CURLOPT_TCP_KEEPIDLE, 10L);
                (void) curl_easy_setopt(h, CURLOPT_TCP_KEEPINTVL, 5L);
                c = curl_easy_perform(h);
                if (__atomic_load_n(&e->stopping, __ATOMIC_ACQUIRE))
                        break;
                if (f.compacted) {
                        /* Events were compacted away before this stream got them: watchers
                         * cannot be told what they missed, so they end and re-list, and the
                         * history starts again at the current revision (K8S: the cacher
                         * re-lists and its watchers get 410 then). */
                        cleanup_json json_t *ans = NULL;
                        cleanup_json json_t *rq = json_pack("{s:o, s:b}", "key",
                                                            b64s(REGISTRY_PREFIX), "count_only", 1);

                        if (etcd_call(e, "/v3/kv/range", rq, true, &ans, NULL) == 0) {
                                uint64_t now = header_rev(ans);

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
                if (c != CURLE_OK || f.broken || !f.created)
                        endpoint_failed(e, cur);
                (void) nanosleep(&(struct timespec){ 0, 100 * 1000 * 1000 }, NULL);
        }
        strbuf_release(&f.line);
        curl_easy_cleanup(h);
        curl_slist_free_all(headers);
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
        cleanup_json json_t *ans = NULL;
        cleanup_free char *val = xasprintf("%" PRIu64, *rev);
        cleanup_json json_t *req = json_pack(
                "{s:[{s:o, s:s, s:s, s:I}], s:[{s:{s:o, s:o}}], s:[{s:{s:o}}]}", "compare", "key",
                b64s(COMPACT_REV_KEY), "result", "EQUAL", "target", "VERSION", "version",
                (json_int_t) *version, "success", "request_put", "key", b64s(COMPACT_REV_KEY),
                "value", b64s(val), "failure", "request_range", "key", b64s(COMPACT_REV_KEY));
        uint64_t compact_to = *rev;

        if (etcd_call(e, "/v3/kv/txn", req, false, &ans, NULL) < 0)
                return;
        if (!json_is_true(json_object_get(ans, "succeeded"))) {
                const json_t *kv = json_array_get(
                        json_object_get(
                                json_object_get(
                                        json_array_get(json_object_get(ans, "responses"), 0),
                                        "response_range"),
                                "kvs"),
                        0);
                size_t len;
                cleanup_free char *v = b64_field(kv, "value", &len);

                *version = j_int(kv, "version");
                *rev = header_rev(ans);
                /* the winner compacted (or is compacting) to the value it wrote */
                if (v && strtoull(v, NULL, 10) > 0)
                        watch_cache_compact(e->base.cache, strtoull(v, NULL, 10));
                return;
        }
        ++*version;
        *rev = header_rev(ans);
        if (compact_to == 0)
                return; /* K8S: no compaction at bootstrap */
        {
                cleanup_json json_t *creq = json_pack("{s:I}", "revision", (json_int_t) compact_to);
                cleanup_json json_t *cans = NULL;
                int r = etcd_call(e, "/v3/kv/compaction", creq, true, &cans, NULL);

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
        cleanup_json json_t *req = NULL, *ans = NULL;
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

        req = json_pack("{s:I}", "TTL", (json_int_t) ttl);
        r = etcd_call(e, "/v3/lease/grant", req, false, &ans, reterr);
        if (r < 0)
                return r;
        pthread_mutex_lock(&e->ttl_lock);
        t = (struct ttl_rule *) ttl_find(e, resource);
        t->lease_id = j_int(ans, "ID");
        /* etcd may grant longer than asked (its minimum TTL) */
        t->lease_ttl = j_int(ans, "TTL") > (int64_t) ttl ? (unsigned) j_int(ans, "TTL") : ttl;
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

/* The current kv of key, or NULL (not found). */
static int kv_get(struct store_etcd *e, const char *key, json_t **ret_kv, struct error **reterr)
{
        cleanup_json json_t *req = json_pack("{s:o}", "key", b64s(key));
        cleanup_json json_t *ans = NULL;
        int r = etcd_call(e, "/v3/kv/range", req, true, &ans, reterr);

        if (r < 0)
                return r;
        *ret_kv = json_incref(json_array_get(json_object_get(ans, "kvs"), 0));
        return 0;
}

static int etcd_get(struct store_backend *b, const char *resource, const char *ns, const char *name,
                    json_t **ret_obj, struct error **reterr)
{
        struct store_etcd *e = etcd_of(b);
        cleanup_free char *key = key_of(resource, ns, name);
        cleanup_json json_t *kv = NULL;
        int r = check_names(resource, ns, name, reterr);

        if (r >= 0)
                r = kv_get(e, key, &kv, reterr);
        if (r < 0)
                return r;
        if (!kv)
                return store_error_not_found(reterr, resource, name);
        return kv_object(kv, resource, name, 0, ret_obj, reterr);
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
        size_t from_len = strlen(from);
        struct listed *got = NULL;
        size_t n = 0, cap = 0;
        uint64_t rev = 0;
        int r = check_names(resource, ns, NULL, reterr);

        if (r < 0)
                return r;
        /* K8S (store.go GetList): pages of `limit` at one revision, the next page from the last
         * key plus a zero byte, until etcd says there is no more. */
        for (;;) {
                cleanup_json json_t *req = json_pack(
                        "{s:o, s:o, s:i, s:I}", "key", b64(from, from_len), "range_end",
                        prefix_end(prefix), "limit", LIST_PAGE, "revision", (json_int_t) rev);
                cleanup_json json_t *ans = NULL;
                const json_t *kvs, *kv;
                size_t i;

                r = etcd_call(e, "/v3/kv/range", req, true, &ans, reterr);
                if (r < 0)
                        goto out;
                if (!rev)
                        rev = header_rev(ans);
                kvs = json_object_get(ans, "kvs");
                json_array_foreach(kvs, i, kv) {
                        size_t len;
                        cleanup_free char *key = b64_field(kv, "key", &len);
                        const char *kr, *kns, *kname;
                        json_t *o;

                        if (!key || strlen(key) != len)
                                continue;
                        free(from);
                        from = xmalloc(len + 1);
                        memcpy(from, key, len);
                        from[len] = '\0';
                        from_len = len + 1; /* the key and a zero byte: the next key after it */
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
                if (!json_is_true(json_object_get(ans, "more")) || json_array_size(kvs) == 0)
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

/* One txn: if compare then put key=value (with lease), else read key. */
static int txn_put(struct store_etcd *e, const char *key, json_t *compare, const char *value,
                   size_t len, int64_t lease, json_t **ret, struct error **reterr)
{
        json_t *put = json_pack("{s:o, s:o}", "key", b64s(key), "value", b64(value, len));
        cleanup_json json_t *req = NULL;

        if (lease)
                json_object_set_new(put, "lease", json_integer(lease));
        req = json_pack("{s:[o], s:[{s:o}], s:[{s:{s:o}}]}", "compare", compare, "success",
                        "request_put", put, "failure", "request_range", "key", b64s(key));
        return etcd_call(e, "/v3/kv/txn", req, false, ret, reterr);
}

static const json_t *txn_range_kv(const json_t *ans)
{
        return json_array_get(
                json_object_get(
                        json_object_get(json_array_get(json_object_get(ans, "responses"), 0),
                                        "response_range"),
                        "kvs"),
                0);
}

/* A put with the resource's lease; a lease that expired under it is granted anew once (the
 * put was refused then, so sending it again is safe). Takes compare over. */
static int put_leased(struct store_etcd *e, const char *resource, const char *key, json_t *compare,
                      const char *value, size_t len, json_t **ret, struct error **reterr)
{
        int64_t lease;
        int r = lease_for(e, resource, false, &lease, reterr);

        if (r >= 0)
                r = txn_put(e, key, json_incref(compare), value, len, lease, ret, reterr);
        if (r == -ENOENT && lease) {
                if (reterr)
                        *reterr = error_free(*reterr);
                r = lease_for(e, resource, true, &lease, reterr);
                if (r >= 0)
                        r = txn_put(e, key, json_incref(compare), value, len, lease, ret, reterr);
        }
        json_decref(compare);
        return r;
}

static int etcd_create(struct store_backend *b, const char *resource, const char *ns,
                       const char *name, json_t *obj, struct error **reterr)
{
        struct store_etcd *e = etcd_of(b);
        cleanup_free char *key = key_of(resource, ns, name), *value = NULL;
        cleanup_json json_t *ans = NULL;
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
        r = put_leased(e, resource, key,
                       json_pack("{s:o, s:s, s:s, s:i}", "key", b64s(key), "result", "EQUAL",
                                 "target", "CREATE", "create_revision", 0),
                       value, len, &ans, reterr);
        if (r == -E2BIG)
                return error_set(reterr, E2BIG, "storing %s \"%s\": etcd refuses its size",
                                 resource, name);
        if (r < 0)
                return r;
        if (!json_is_true(json_object_get(ans, "succeeded")))
                return store_error_exists(reterr, resource, name);
        rv = header_rev(ans);
        store_object_stamp(obj, rv, NULL);
        feed_publish_own(&w, STORE_EVENT_ADDED, resource, ns, rv,
                         watch_cache_intern(e->base.cache, obj));
        return 0;
}

/* The compare-and-swap of obj over the version old_rv: 1 written, 0 lost the race with *ret_kv
 * the key's current kv (NULL: gone), or -errno. */
static int update_cas(struct store_etcd *e, const char *resource, const char *ns, const char *name,
                      const char *key, json_t *obj, uint64_t old_rv, const char *value, size_t len,
                      json_t **ret_kv, struct error **reterr)
{
        cleanup_json json_t *ans = NULL;
        cleanup_own_write struct own_write w = { 0 };
        uint64_t rv;
        int r;

        own_write_begin(e, &w);
        /* K8S (store.go GuaranteedUpdate): the txn compares mod_revision; its else branch reads
         * the key, so a lost race costs no extra round trip */
        r = put_leased(e, resource, key,
                       json_pack("{s:o, s:s, s:s, s:I}", "key", b64s(key), "result", "EQUAL",
                                 "target", "MOD", "mod_revision", (json_int_t) old_rv),
                       value, len, &ans, reterr);
        if (r == -E2BIG)
                return error_set(reterr, E2BIG, "storing %s \"%s\": etcd refuses its size",
                                 resource, name);
        if (r < 0)
                return r;
        if (!json_is_true(json_object_get(ans, "succeeded"))) {
                *ret_kv = json_incref((json_t *) txn_range_kv(ans));
                return 0;
        }
        rv = header_rev(ans);
        store_object_stamp(obj, rv, NULL);
        feed_publish_own(&w, STORE_EVENT_MODIFIED, resource, ns, rv,
                         watch_cache_intern(e->base.cache, obj));
        return 1;
}

/* The -ESTALE of an update that lost to kv, the key's current state: *ret_current (if
 * non-NULL) gets kv's object, from which the caller retries without reading again. */
static int update_lost(const json_t *kv, const char *resource, const char *name,
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
        cleanup_json json_t *kv = NULL;
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
                                       &kv, reterr);
                        if (r != 0)
                                return r;
                        if (!kv)
                                return store_error_not_found(reterr, resource, name);
                        return update_lost(kv, resource, name, ret_current, reterr);
                }
        }
        r = kv_get(e, key, &kv, reterr);
        if (r < 0)
                return r;
        /* K8S (store.go GuaranteedUpdate): read, compare, CAS on mod_revision; a lost race
         * retries with the state the failed txn read, unless the caller named a version. */
        for (;;) {
                cleanup_json json_t *old = NULL;
                uint64_t old_rv;

                if (!kv)
                        return store_error_not_found(reterr, resource, name);
                old_rv = (uint64_t) j_int(kv, "mod_revision");
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
                json_decref(kv);
                kv = NULL;
                r = update_cas(e, resource, ns, name, key, obj, old_rv, value, len, &kv, reterr);
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
        cleanup_json json_t *ans = NULL, *req = NULL, *last = NULL;
        cleanup_own_write struct own_write w = { 0 };
        const json_t *prev;
        uint64_t rv;
        int r = check_names(resource, ns, name, reterr);

        if (r < 0)
                return r;
        own_write_begin(e, &w);
        if (expected_rv) {
                /* K8S (store.go Delete): the precondition is the txn's compare */
                req = json_pack("{s:[{s:o, s:s, s:s, s:I}], s:[{s:{s:o, s:b}}], s:[{s:{s:o}}]}",
                                "compare", "key", b64s(key), "result", "EQUAL", "target", "MOD",
                                "mod_revision", (json_int_t) expected_rv, "success",
                                "request_delete_range", "key", b64s(key), "prev_kv", 1, "failure",
                                "request_range", "key", b64s(key));
                r = etcd_call(e, "/v3/kv/txn", req, false, &ans, reterr);
                if (r < 0)
                        return r;
                if (!json_is_true(json_object_get(ans, "succeeded"))) {
                        const json_t *kv = txn_range_kv(ans);

                        if (!kv)
                                return store_error_not_found(reterr, resource, name);
                        return store_error_precondition(reterr, resource, name, expected_rv,
                                                        (uint64_t) j_int(kv, "mod_revision"));
                }
                prev = json_array_get(
                        json_object_get(
                                json_object_get(
                                        json_array_get(json_object_get(ans, "responses"), 0),
                                        "response_delete_range"),
                                "prev_kvs"),
                        0);
        } else {
                req = json_pack("{s:o, s:b}", "key", b64s(key), "prev_kv", 1);
                r = etcd_call(e, "/v3/kv/deleterange", req, false, &ans, reterr);
                if (r < 0)
                        return r;
                prev = json_array_get(json_object_get(ans, "prev_kvs"), 0);
        }
        if (!prev)
                return store_error_not_found(reterr, resource, name);
        rv = header_rev(ans);
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
        if (e->feed_fd >= 0)
                (void) shutdown(e->feed_fd, SHUT_RDWR);
        pthread_mutex_unlock(&e->feed_lock);
        if (e->feed_started)
                (void) pthread_join(e->feed_thread, NULL);
        if (e->compact_started)
                (void) pthread_join(e->compact_thread, NULL);
        for (size_t i = 0; i < e->pool_len; i++)
                curl_easy_cleanup(e->pool[i]);
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
        cleanup_json json_t *req = NULL, *ans = NULL;
        int r;

        r = http_curl_setup(reterr);
        if (r < 0)
                return r;
        e = xcalloc(1, sizeof(*e));
        e->base.ops = &etcd_ops;
        e->feed_fd = -1;
        e->compaction_interval_ms = eo->compaction_interval_ms;
        e->cafile = eo->cafile ? xstrdup(eo->cafile) : NULL;
        e->certfile = eo->certfile ? xstrdup(eo->certfile) : NULL;
        e->keyfile = eo->keyfile ? xstrdup(eo->keyfile) : NULL;
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
        req = json_pack("{s:o, s:b}", "key", b64s(REGISTRY_PREFIX), "count_only", 1);
        r = etcd_call(e, "/v3/kv/range", req, true, &ans, reterr);
        if (r < 0) {
                (void) error_wrap(reterr, "opening store on etcd");
                goto fail;
        }
        e->feed_rv = header_rev(ans);
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
