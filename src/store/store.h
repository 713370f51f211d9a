/* store.h: the storage interface every backend implements (SQLite now, etcd later).
 *
 * Objects are JSON (jansson) keyed by (resource, namespace, name); cluster-scoped objects use
 * namespace "". One global 64-bit resourceVersion orders every write; a write stamps
 * metadata.resourceVersion (a decimal string) into the object. Writes are durable when they
 * return. Watches replay history from a resourceVersion out of an in-memory window and then
 * deliver live events; a watch from a version older than the window fails with -ERANGE (the
 * caller answers 410 Expired). Selectors are not the store's business: callers filter.
 *
 * Errors: -ENOENT not found, -EEXIST already exists, -ESTALE resourceVersion precondition failed
 * (409 Conflict), -ERANGE watch version too old, other -errno for I/O (with *reterr). */
#ifndef FLEXLET_STORE_STORE_H
#define FLEXLET_STORE_STORE_H

#include <jansson.h>
#include <stdint.h>
#include "base/error.h"

struct store;

enum store_event_type {
        STORE_EVENT_ADDED,
        STORE_EVENT_MODIFIED,
        STORE_EVENT_DELETED,
        STORE_EVENT_TYPE_MAX,
};
const char *store_event_type_to_string(enum store_event_type t); /* "ADDED" ... */

struct store_event {
        enum store_event_type type;
        uint64_t rv;
        json_t *object; /* owned by the event: new state, or last state for DELETED (stamped
                         * with the deletion's resourceVersion) */
};
void store_event_release(struct store_event *ev);

/* Opens (creating if needed) the SQLite store at path (WAL, synchronous=FULL). */
int store_open_sqlite(const char *path, struct store **ret, struct error **reterr);
struct store *store_close(struct store *s);

/* The newest resourceVersion written. */
uint64_t store_current_rv(struct store *s);

/* *ret_obj is a new reference. */
int store_get(struct store *s, const char *resource, const char *ns, const char *name,
              json_t **ret_obj, struct error **reterr);
/* All objects of resource in ns (NULL: every namespace), ordered by namespace then name.
 * *ret_items is a new JSON array; *ret_rv the resourceVersion the list is consistent at. */
int store_list(struct store *s, const char *resource, const char *ns, json_t **ret_items,
               uint64_t *ret_rv, struct error **reterr);
/* Creates; stamps obj's metadata.resourceVersion. */
int store_create(struct store *s, const char *resource, const char *ns, const char *name,
                 json_t *obj, struct error **reterr);
/* Replaces. expected_rv 0 = unconditional, else -ESTALE unless it equals the stored version.
 * When obj equals the stored object (ignoring metadata.resourceVersion) nothing is written,
 * the version does not move, and obj is stamped with the stored version: returns 0 then, 1
 * when written. */
int store_update(struct store *s, const char *resource, const char *ns, const char *name,
                 json_t *obj, uint64_t expected_rv, struct error **reterr);
/* Deletes. expected_rv as for update. *ret_last (if non-NULL) gets the deleted object stamped
 * with the deletion's version. */
int store_delete(struct store *s, const char *resource, const char *ns, const char *name,
                 uint64_t expected_rv, json_t **ret_last, struct error **reterr);

struct store_watch;
/* Watches resource in ns (NULL: all namespaces). from_rv 0: first a synthetic ADDED for every
 * current object, then live events, with nothing lost between. from_rv > 0: every event with
 * rv > from_rv, then live; -ERANGE when from_rv predates the history window. */
int store_watch_start(struct store *s, const char *resource, const char *ns, uint64_t from_rv,
                      struct store_watch **ret, struct error **reterr);
/* Waits up to timeout_ms (-1 forever) for the next event: 1 with *ret filled, 0 on timeout,
 * -ECANCELED once the store is closing or the watcher fell too far behind (the client must
 * re-list). */
int store_watch_next(struct store_watch *w, int timeout_ms, struct store_event *ret);
struct store_watch *store_watch_stop(struct store_watch *w);

#endif
