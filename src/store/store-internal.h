/* store-internal.h: what store.c, the backends (store-sqlite.c; store-etcd.c later) and the
 * watch cache share. Nothing outside src/store/ includes it.
 *
 * store.c owns the public API: it checks arguments, dispatches to a backend through
 * struct store_backend_ops, and owns the watch cache. A backend owns persistence and the
 * resourceVersion counter, and publishes every committed change into the watch cache. */
#ifndef FLEXLET_STORE_STORE_INTERNAL_H
#define FLEXLET_STORE_STORE_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"
#include "store/store.h"

struct watch_cache;
struct store_backend;

/* Every function is called with arguments store.c has checked: resource and name non-empty, ns
 * non-NULL ("" for cluster-scoped) except for list where NULL means every namespace, obj a JSON
 * object. Return values and errors are those of the matching store_* function in store.h. */
struct store_backend_ops {
        const char *name;
        /* Frees the backend. Called once, after the watch cache is shut down. */
        void (*free)(struct store_backend *b);
        uint64_t (*current_rv)(struct store_backend *b);
        int (*get)(struct store_backend *b, const char *resource, const char *ns, const char *name,
                   json_t **ret_obj, struct error **reterr);
        int (*list)(struct store_backend *b, const char *resource, const char *ns,
                    json_t **ret_items, uint64_t *ret_rv, struct error **reterr);
        int (*create)(struct store_backend *b, const char *resource, const char *ns,
                      const char *name, json_t *obj, struct error **reterr);
        /* known (NULL: none) is the object as the caller read it at expected_rv (non-zero
         * then): a backend may trust it instead of reading the stored object again. On
         * -ESTALE, *ret_current (if non-NULL) gets the stored object it read (store.h). */
        int (*update)(struct store_backend *b, const char *resource, const char *ns,
                      const char *name, json_t *obj, uint64_t expected_rv, const json_t *known,
                      json_t **ret_current, struct error **reterr);
        int (*delete)(struct store_backend *b, const char *resource, const char *ns,
                      const char *name, uint64_t expected_rv, json_t **ret_last,
                      struct error **reterr);
        /* Optional (NULL: the backend keeps objects until deleted): objects of resource
         * written from now on expire seconds after their last write. */
        int (*set_ttl)(struct store_backend *b, const char *resource, unsigned seconds);
        /* Optional (NULL: the backend never retries): store_stop_retrying. */
        void (*stop_retrying)(struct store_backend *b);
};

/* The head of every backend's own struct. */
struct store_backend {
        const struct store_backend_ops *ops;
        /* Set by store.c before the first write. The backend publishes each committed change
         * with watch_cache_publish, in increasing resourceVersion order, before the write
         * returns to its caller (etcd: bounded, see feed_publish_own in store-etcd.c). */
        struct watch_cache *cache;
};

/* Assembles a store from an opened backend (taken over, freed on failure too). */
int store_new(struct store_backend *b, const struct store_options *o, struct store **ret,
              struct error **reterr);
/* Opens the SQLite backend (store-sqlite.c). */
int store_sqlite_open(const char *path, const struct store_options *o, struct store_backend **ret,
                      struct error **reterr);

/* Opens the etcd backend (store-etcd.c): checks the endpoints and reads the current revision,
 * where the watch history starts. */
int store_etcd_open(const struct store_etcd_options *eo, struct store_backend **ret,
                    struct error **reterr);
/* Once the backend has its cache: starts the watch that feeds it (and returns once etcd
 * accepted it) and the compactor. */
int store_etcd_start(struct store_backend *b, struct error **reterr);

/* --- helpers every backend uses (store.c) --- */

/* Remembers obj's metadata.resourceVersion (or its absence) so a failed write can put obj back
 * as the caller gave it. */
struct store_stamp_saved {
        json_t *metadata; /* the "metadata" value before, when it was not an object */
        json_t *rv;       /* metadata.resourceVersion before */
        bool had_metadata_object;
};
/* Sets obj's metadata.resourceVersion to rv as a decimal string, saving what was there (saved
 * may be NULL when nothing needs restoring). */
void store_object_stamp(json_t *obj, uint64_t rv, struct store_stamp_saved *saved);
/* Puts back what store_object_stamp saved, and forgets it. */
void store_object_unstamp(json_t *obj, struct store_stamp_saved *saved);
/* Forgets what store_object_stamp saved, keeping the stamp. */
void store_stamp_saved_release(struct store_stamp_saved *saved);
/* obj's metadata.resourceVersion, 0 when absent or malformed. */
uint64_t store_object_rv(const json_t *obj);
/* Serialises obj compactly into *ret_json (caller frees); -E2BIG past STORE_MAX_OBJECT_BYTES. */
int store_object_encode(const json_t *obj, const char *resource, const char *name, char **ret_json,
                        size_t *ret_len, struct error **reterr);
/* Parses what store_object_encode wrote; -EIO when it is not a JSON object. */
int store_object_decode(const char *json, size_t len, const char *resource, const char *name,
                        json_t **ret_obj, struct error **reterr);

/* The messages upstream writes for each outcome (K8S: apimachinery's StatusError texts). */
int store_error_not_found(struct error **reterr, const char *resource, const char *name);
int store_error_exists(struct error **reterr, const char *resource, const char *name);
int store_error_conflict(struct error **reterr, const char *resource, const char *name);
int store_error_precondition(struct error **reterr, const char *resource, const char *name,
                             uint64_t expected_rv, uint64_t stored_rv);

/* --- the watch cache (watch-cache.c) ---
 *
 * A ring of the most recent events shared by every backend, and the watchers fed from it. All
 * state sits under one mutex; publishing never blocks on a watcher: a watcher whose queue of
 * unread live events is full is cancelled. Event objects are immutable once published and
 * shared by reference between the ring and the watchers' queues; each delivery hands the reader
 * its own copy. The cache is reference counted: the store holds one reference and each watcher
 * another, so a watcher outlives store_close safely. */

/* How much the cache may hold. The history keeps at most window events and window_bytes of
 * the memory their decoded objects hold (json_memory_size: about 10 times a pod's stored
 * JSON; the oldest go first; the newest is kept whatever its size); a watcher may leave at
 * most queue_max live events and queue_bytes of them unread, or it is cancelled (the
 * client re-lists, as upstream's watch cache closes a watcher that falls behind). Every field
 * is >= 1. */
struct watch_cache_limits {
        size_t window, window_bytes;
        size_t queue_max, queue_bytes;
        /* events older than fresh_ms are dropped while more than fresh_min are kept (0: no
         * time bound) */
        int64_t fresh_ms;
        size_t fresh_min;
};
/* start_rv: the store's current version (the window is empty and complete from there). */
struct watch_cache *watch_cache_new(const struct watch_cache_limits *limits, uint64_t start_rv);
/* Drops a reference; frees on the last. NULL-safe, returns NULL. */
struct watch_cache *watch_cache_unref(struct watch_cache *c);
/* Cancels every watcher and refuses new ones; later publishes are dropped. */
void watch_cache_shutdown(struct watch_cache *c);
/* Records a committed change and fans it out. Takes obj and json over (they must not be
 * touched again): obj is one watch_cache_intern made; json is obj's compact JSON when the
 * backend has it (the text it stored), or NULL to have it made here. rv must exceed every rv
 * published before. */
void watch_cache_publish(struct watch_cache *c, enum store_event_type type, const char *resource,
                         const char *ns, uint64_t rv, json_t *obj, char *json);
/* The object to publish for obj, a write's own (only read here): an equal copy made of the
 * cache's interned values (base/json-intern.h), sharing every part equal to a part of an object
 * published before and still held (a pod's spec with its ReplicaSet's other pods, an update's
 * unchanged parts with the version before). A new reference, never to be modified. */
json_t *watch_cache_intern(struct watch_cache *c, const json_t *obj);
/* Drops the history older than the limits' fresh_ms, then lets go of the interned values no
 * object holds any more; how many. Call it periodically (store_release_unused). */
size_t watch_cache_release_unused(struct watch_cache *c);
/* Starts a watcher of resource in ns (NULL: all): first a synthetic ADDED for each object of
 * initial (a JSON array taken over, or NULL), then every retained event with rv > from_rv,
 * then live events with rv > from_rv. -ERANGE when events after from_rv were already dropped
 * from the window; -ECANCELED after shutdown. */
int watch_cache_watch(struct watch_cache *c, const char *resource, const char *ns, uint64_t from_rv,
                      json_t *initial, struct store_watch **ret, struct error **reterr);
/* The storage compacted away every revision below rv: a watch may start from rv - 1 at the
 * oldest (it asks for the events after it), older history is dropped. */
void watch_cache_compact(struct watch_cache *c, uint64_t rv);
/* History was lost (the backend's feed fell below a compaction): every watcher is cancelled
 * (it re-lists), the history empties and starts again, complete, at rv. */
void watch_cache_reset(struct watch_cache *c, uint64_t rv);
/* The oldest from_rv a watch may start from now (every event after it is retained). */
uint64_t watch_cache_oldest_rv(struct watch_cache *c);
/* Makes items (a JSON array of every object of resource, listed at list_rv; taken over) the
 * object index of resource, which every event published from then on keeps current, unless
 * resource has one already; the retained events after list_rv are applied first. -ERANGE when
 * events after list_rv were already dropped (list again), -ECANCELED after shutdown. Indexes
 * are dropped with the history by watch_cache_reset. */
int watch_cache_index(struct watch_cache *c, const char *resource, json_t *items, uint64_t list_rv);
/* From resource's index: *ret_obj ns/name, a copy (copy: the caller's to change) or the
 * index's own shared reference (!copy: never to be modified). -ENOENT when the index does not
 * hold it, -ENODATA when resource has no index. */
int watch_cache_get(struct watch_cache *c, const char *resource, const char *ns, const char *name,
                    bool copy, json_t **ret_obj);
/* From resource's index: its objects in ns (NULL: all), ordered as store_list, copies (copy)
 * or the index's own shared references (!copy: never to be modified), and *ret_rv (if
 * non-NULL) the newest version published. -ENODATA when resource has no index. */
int watch_cache_list(struct watch_cache *c, const char *resource, const char *ns, bool copy,
                     json_t **ret_items, uint64_t *ret_rv);

#endif
