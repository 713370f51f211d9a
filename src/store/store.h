/* store.h: the storage interface every backend implements (SQLite, the default; etcd).
 *
 * Objects are JSON (jansson) keyed by (resource, namespace, name); cluster-scoped objects use
 * namespace "" (NULL is accepted as ""). One global 64-bit resourceVersion orders every write; a
 * write stamps metadata.resourceVersion (a decimal string) into the object. Writes are durable
 * when they return. Watches replay history from a resourceVersion out of an in-memory window and
 * then deliver live events; a watch from a version older than the window fails with -ERANGE (the
 * caller answers 410 Expired). Selectors are not the store's business: callers filter.
 *
 * On etcd the resourceVersion is etcd's revision (global to the etcd cluster, so versions of one
 * store skip the revisions others write), the watch history is fed by one etcd watch, writes of
 * other stores on the same etcd show up in watches too, and the history also ends at etcd's
 * compaction. "A second open fails with -EBUSY" is SQLite's alone: many stores share an etcd.
 *
 * Threads: every function may be called from any thread at the same time, except store_close,
 * which must be the last call on the store (watchers may still be waiting in store_watch_next:
 * they wake with -ECANCELED and must still be stopped). One store owns a database at a time:
 * a second open of the same path fails with -EBUSY until the first is closed.
 *
 * Errors: -ENOENT not found, -EEXIST already exists, -ESTALE resourceVersion precondition failed
 * (409 Conflict), -ERANGE watch version too old, -E2BIG object larger than
 * STORE_MAX_OBJECT_BYTES, -EINVAL bad arguments (not a JSON object, empty resource or name),
 * other -errno for I/O (with *reterr). */
#ifndef FLEXLET_STORE_STORE_H
#define FLEXLET_STORE_STORE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include "base/error.h"

/* K8S: the apiserver refuses request bodies over 3 MiB (MaxRequestBodyBytes); the store refuses
 * any object whose stored JSON is larger, so nothing stored can be unservable. */
#define STORE_MAX_OBJECT_BYTES (3 * 1024 * 1024)

/* Defaults for struct store_options. */
#define STORE_WATCH_WINDOW_DEFAULT 10000 /* events of history kept for watch replay */
#define STORE_WATCH_QUEUE_DEFAULT  1024  /* live events a watcher may leave unread */
/* memory the history's decoded objects hold (json_memory_size), and a watcher may leave
 * unread */
#define STORE_WATCH_WINDOW_BYTES_DEFAULT (64 * 1024 * 1024)
/* K8S: the cacher's eventFreshDuration (75 s) and the least capacity its watch cache shrinks to
 * (100 events): history older than that goes, so an idle server does not keep every version
 * since its start (a watch resumed from before it is 410 Gone and lists again, as upstream) */
#define STORE_WATCH_FRESH_MS            75000
#define STORE_WATCH_FRESH_MIN           100
#define STORE_WATCH_QUEUE_BYTES_DEFAULT (16 * 1024 * 1024)
#define STORE_BUSY_TIMEOUT_DEFAULT      5000 /* ms SQLite waits on a locked database */

struct store;

struct store_options {
        size_t watch_window;       /* 0: STORE_WATCH_WINDOW_DEFAULT */
        size_t watch_window_bytes; /* 0: STORE_WATCH_WINDOW_BYTES_DEFAULT */
        size_t watch_queue;        /* 0: STORE_WATCH_QUEUE_DEFAULT */
        size_t watch_queue_bytes;  /* 0: STORE_WATCH_QUEUE_BYTES_DEFAULT */
        int busy_timeout_ms;       /* 0: STORE_BUSY_TIMEOUT_DEFAULT */
};

enum store_event_type {
        STORE_EVENT_ADDED,
        STORE_EVENT_MODIFIED,
        STORE_EVENT_DELETED,
        STORE_EVENT_TYPE_MAX,
};
const char *store_event_type_to_string(enum store_event_type t); /* "ADDED" ... */
/* The type named s ("ADDED", ...), or -EINVAL. */
int store_event_type_from_string(const char *s);

struct wc_event;
struct store_event {
        enum store_event_type type;
        uint64_t rv;
        /* a reference to the new state, or the last state for DELETED (stamped with the
         * deletion's resourceVersion), shared with every other watcher and the cache (a replay
         * of a version the history keeps as JSON alone is decoded for its reader): read it,
         * never modify it (a copy to change) */
        json_t *object;
        /* object's compact JSON (json_dump_compact), made once per change for all watchers, or
         * NULL (a watcher's initial ADDEDs); valid until store_event_release */
        const char *json;
        size_t json_len;
        struct wc_event *held; /* the cache's event the two point into */
};
/* Drops the event's references and clears *ev; NULL-safe. */
void store_event_release(struct store_event *ev);

/* Parses a resourceVersion as the store writes it: a decimal uint64 without sign, spaces or
 * leading zeros ("0" itself is accepted). Returns 0, or -EINVAL. */
int store_rv_parse(const char *s, uint64_t *ret_rv);

/* Opens (creating if needed) the SQLite store at path: WAL journal, synchronous=FULL (a write
 * is on disk when it returns), busy timeout. Beside path live SQLite's "-wal" and "-shm" and
 * the owner lock "-lock". The watch window starts empty at the current resourceVersion. */
int store_open_sqlite(const char *path, struct store **ret, struct error **reterr);
/* The same with options (NULL: defaults). */
int store_open_sqlite_with(const char *path, const struct store_options *o, struct store **ret,
                           struct error **reterr);
/* How to reach etcd. */
struct store_etcd_options {
        const char *endpoints; /* "http(s)://host:port,...": the first answering is used, the
                                * next on a connection error */
        const char *cafile, *certfile, *keyfile; /* TLS: trusted CA, client certificate and key
                                                  * (PEM files), each NULL for none */
        /* K8S: --etcd-compaction-interval (5m): how often the revisions older than one
         * interval are compacted away; 0 never. */
        unsigned compaction_interval_ms;
};
#define STORE_ETCD_COMPACTION_INTERVAL_DEFAULT_MS (5 * 60 * 1000)

/* Opens the store on etcd (objects under /registry/, see store-etcd.c): checks that an endpoint
 * answers, starts the watch that feeds the history. Errors: -EINVAL bad endpoints, -EIO or
 * -ETIMEDOUT when no endpoint answers, with *reterr. */
int store_open_etcd(const struct store_etcd_options *eo, const struct store_options *o,
                    struct store **ret, struct error **reterr);

/* Objects of resource written from now on expire seconds after their last write (K8S: the
 * apiserver's --event-ttl for events): on etcd through leases, which delete them (watchers see
 * DELETED). -EOPNOTSUPP where the backend keeps objects until deleted (SQLite: as ever). */
int store_set_ttl(struct store *s, const char *resource, unsigned seconds);

/* Closes; wakes every watcher with -ECANCELED. NULL-safe, returns NULL. */
struct store *store_close(struct store *s);
/* Ends every watch, now and to come, with -ECANCELED; reads and writes go on. For a server
 * that is stopping: its watch streams end at once instead of at their next heartbeat. */
void store_end_watches(struct store *s);
/* From now on a request that finds no store member answering fails at once (-EIO) instead of
 * trying again for the retry window (etcd: 15 s, for a member that is restarting); requests
 * that are answered are unchanged. For a server that is stopping: each of its last writes (a
 * Lease released, a follower's read) would otherwise wait out the window with its store gone. */
void store_stop_retrying(struct store *s);

/* Drops the watch history older than STORE_WATCH_FRESH_MS (beyond STORE_WATCH_FRESH_MIN
 * events) and lets go of the values the watch cache interned that no object holds any more
 * (the parts of versions and objects gone): a server calls it every few seconds
 * (cmd_wait_signal's release). Returns how many values went. */
size_t store_release_unused(struct store *s);

/* The newest resourceVersion written. */
uint64_t store_current_rv(struct store *s);

/* *ret_obj is a new reference. */
int store_get(struct store *s, const char *resource, const char *ns, const char *name,
              json_t **ret_obj, struct error **reterr);
/* All objects of resource in ns (NULL: every namespace), ordered by namespace then name (byte
 * order). *ret_items is a new JSON array; *ret_rv the resourceVersion the list is consistent
 * at. */
int store_list(struct store *s, const char *resource, const char *ns, json_t **ret_items,
               uint64_t *ret_rv, struct error **reterr);
/* The server's own reads from memory (K8S: informers' listers, the cacher's GuaranteedUpdate
 * starting from its cached copy): the same answers as store_get and store_list, from an index of
 * resource's current objects that the watch history keeps, primed by one store_list on the
 * first cached read of resource. The index holds every write of this store before the write
 * returns; on etcd, other stores' writes arrive with the watch (a short lag), so a cached read
 * may be stale: callers use it only where upstream reads a cache (admission's namespace,
 * service account, limit ranges and quotas; the object an update starts from, whose staleness
 * the update's resourceVersion compare catches). A client's GET or LIST without a
 * resourceVersion stays a quorum read: store_get and store_list. Both backends serve these the
 * same way (the index lives in the shared watch history); after the history was reset (etcd
 * lost events to compaction) the next cached read lists again. */
int store_get_cached(struct store *s, const char *resource, const char *ns, const char *name,
                     json_t **ret_obj, struct error **reterr);
int store_list_cached(struct store *s, const char *resource, const char *ns, json_t **ret_items,
                      uint64_t *ret_rv, struct error **reterr);
/* store_get_cached without the copy: *ret_obj is a new reference to the index's own object,
 * the one its watch events carry, shared with every reader: read it, never modify it. For the
 * server's updates, which only read the object they start from. */
int store_get_shared(struct store *s, const char *resource, const char *ns, const char *name,
                     json_t **ret_obj, struct error **reterr);
/* store_list_cached without the copies: the items are the index's own objects, the very
 * references its watch events carry (struct store_event), shared with every reader: read them,
 * never modify them. For a reader in the server's process that keeps what it lists (K8S: an
 * informer fed from the cacher): one copy of each object for all. */
int store_list_shared(struct store *s, const char *resource, const char *ns, json_t **ret_items,
                      uint64_t *ret_rv, struct error **reterr);
/* Creates; stamps obj's metadata.resourceVersion (obj is left as it was on failure). */
int store_create(struct store *s, const char *resource, const char *ns, const char *name,
                 json_t *obj, struct error **reterr);
/* Replaces. expected_rv 0 = unconditional, else -ESTALE unless it equals the stored version.
 * When obj equals the stored object (ignoring metadata.resourceVersion) nothing is written,
 * the version does not move, and obj is stamped with the stored version: returns 0 then, 1
 * when written. */
int store_update(struct store *s, const char *resource, const char *ns, const char *name,
                 json_t *obj, uint64_t expected_rv, struct error **reterr);
/* store_update of obj over old, the object as the caller read it (from store_get or a watch;
 * not changed since): expected_rv is old's metadata.resourceVersion (-EINVAL when it has none).
 * The same answers as store_update; a backend may use old instead of reading the stored object
 * again (etcd: one transaction instead of a read and a transaction, K8S: GuaranteedUpdate with
 * the watch cache's copy; a lost race is -ESTALE all the same, and obj equal to old is confirmed
 * against the store before nothing is written). */
/* On -ESTALE, *ret_current (if non-NULL) gets the stored object the write lost to, as the
 * failed write read it (etcd: the txn's else branch; K8S: GuaranteedUpdate retries from it),
 * a new reference; left alone on success and on other errors. */
int store_update_from(struct store *s, const char *resource, const char *ns, const char *name,
                      json_t *obj, const json_t *old, json_t **ret_current, struct error **reterr);
/* Deletes. expected_rv as for update. *ret_last (if non-NULL) gets the deleted object stamped
 * with the deletion's version. */
int store_delete(struct store *s, const char *resource, const char *ns, const char *name,
                 uint64_t expected_rv, json_t **ret_last, struct error **reterr);

struct store_watch;
/* Watches resource in ns (NULL: all namespaces). from_rv 0: first a synthetic ADDED for every
 * current object (ordered as store_list, each with its own version as rv), then live events,
 * with nothing lost or repeated between. from_rv > 0: every event with rv > from_rv, then live;
 * -ERANGE when from_rv predates the history window (message "too old resource version: N (M)",
 * M the oldest version a watch may start from). A from_rv ahead of the store is accepted and
 * delivers events with rv > from_rv. */
int store_watch_start(struct store *s, const char *resource, const char *ns, uint64_t from_rv,
                      struct store_watch **ret, struct error **reterr);
/* Which live events a watcher wants: the event's type, its object, and the object the key held
 * before it when the store keeps the resource's current objects (NULL otherwise, and for
 * ADDED). Called as events are published, under the watch history's lock: it must be cheap
 * and must not call the store. */
typedef bool (*store_watch_wants_fn)(enum store_event_type type, const json_t *before,
                                     const json_t *obj);
/* From now on w gets only the live events wants accepts; the rest neither queue nor wake it
 * (what was queued before stays). For a follower that acts on few of a resource's changes. */
void store_watch_filter(struct store_watch *w, store_watch_wants_fn wants);
/* Waits up to timeout_ms (-1 forever) for the next event: 1 with *ret filled (caller releases
 * it), 0 on timeout, -ECANCELED once the store is closing or the watcher fell too far behind
 * (more than the queue size of unread live events: the client must re-list), -ENOMEM when an
 * old event's object (kept as its JSON alone) cannot be decoded. After the
 * synthetic ADDEDs, events come in strictly increasing rv. One thread at a time per watcher. */
int store_watch_next(struct store_watch *w, int timeout_ms, struct store_event *ret);
/* A descriptor (an eventfd the watcher owns; do not close it) that is readable whenever
 * store_watch_next(w, 0, ...) would not answer 0: an event is queued or the watch was
 * cancelled. It is cleared by the store_watch_next call that finds the queue empty, so a poller
 * that reads until 0 and then waits on it misses nothing. -errno when no eventfd can be made. */
int store_watch_fd(struct store_watch *w);
/* Stops and frees; NULL-safe, returns NULL. Valid after store_close. */
struct store_watch *store_watch_stop(struct store_watch *w);

#endif
