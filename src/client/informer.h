/* informer.h: a component's in-memory view of API collections (K8S: an informer's store):
 * one thread per collection lists it, then watches from the list's resourceVersion, again
 * whenever the watch ends. Controllers decide from snapshots of it; the node agent reads claims
 * and volumes from it instead of asking the server for each pod on each pass. The lists and
 * watches go over HTTP, or, for a component in the API server's own process, through a feed
 * (struct informer_feed) straight from the server's watch cache.
 *
 * Objects in the cache are never modified once stored (jansson's reference counts are atomic),
 * so snapshots and lookups share them. */
#ifndef FLEXLET_CLIENT_INFORMER_H
#define FLEXLET_CLIENT_INFORMER_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "client/client.h"

#define INFORMER_MAX_COLLECTIONS 32

/* What a feed hands an informer collection. The objects are shared with the feed's source and
 * every other reader: they are read and referenced, never modified. */
struct informer_feed_handler {
        /* The collection's items (a JSON array): they replace everything it held. */
        void (*list)(void *ud, const json_t *items);
        /* One change after the list: type "ADDED", "MODIFIED" or "DELETED" (object: its last
         * state, stamped with the deletion's resourceVersion). A non-zero return ends the
         * watch (list_watch returns 0). */
        int (*event)(void *ud, const char *type, json_t *object);
        void *ud;
};

/* An in-process source of lists and watches (K8S: kube-apiserver's loopback client, minus the
 * wire): api_client_options.feed. */
struct informer_feed {
        /* Lists path (a collection's path and query as the server routes them:
         * "/api/v1/namespaces/NS/pods?labelSelector=...", URL-escaped), hands the items to
         * h->list, then watches from the list's resourceVersion and hands each matching change
         * to h->event, until cancel_fd is readable or h->event says stop (0), or the watch is
         * cancelled (-ECANCELED: the watcher fell behind or the source is ending its watches;
         * list again), or an error (-ENOENT a path the server does not route, -EINVAL a bad
         * selector, other -errno; with *reterr). Never wakes while nothing changes. Any thread;
         * blocks the caller's. */
        int (*list_watch)(const struct informer_feed *feed, const char *path, int cancel_fd,
                          const struct informer_feed_handler *h, struct error **reterr);
        void *ud;
};

struct informer;

/* Whether a change of one object in a collection is news to its reader: old is the cached
 * object it replaces (NULL: an add), new the object that replaces it (NULL: a delete). Called
 * under the informers' one lock for every event: it compares a few members, allocates nothing
 * and calls nothing of the informer's. */
typedef bool (*informer_relevant_fn)(const json_t *old, const json_t *new);

struct informer_options {
        /* collection paths ("/api/v1/persistentvolumeclaims", ...), NULL-terminated, at most
         * INFORMER_MAX_COLLECTIONS; index i is collection i below */
        const char *const *paths;
        /* NULL, or parallel to paths, as many entries as paths has before its NULL (an array
         * of ARRAY_SIZE(paths) - 1): which changes of collection i wake informer_wait (a NULL
         * entry: every change, as without the array). The cache takes every change whatever
         * they say (the next wait's reader sees it); a list always wakes (K8S: an informer's
         * UpdateFunc filtering, as the garbage collector's graph builder does). */
        const informer_relevant_fn *relevant;
};

/* Reads each collection as client_options->list_watch_as (when set) or client_options lists
 * and watches it: through their feed when they have one (the credentials then do not matter:
 * one collection per feed and path), else over HTTP, where a watch ends every minute and the
 * collection is listed again; a fed collection is listed again only when its watch fails or is
 * cancelled. K8S: as a SharedInformerFactory, the informers of one process share one
 * cache, one thread and one watch per identity and collection (a controller manager's
 * controllers, each with its own informer, hold one copy of the pods between them); the
 * collection's thread starts with its first informer and ends with its last. The options and
 * client options are copied. */
int informer_start(const struct api_client_options *client_options,
                   const struct informer_options *o, struct informer **ret, struct error **reterr);
/* What ended an informer_wait. */
enum informer_wake {
        INFORMER_STOPPED,   /* the informer was stopped */
        INFORMER_TIMED_OUT, /* timeout_ms passed without a relevant change */
        INFORMER_CHANGED,   /* a relevant change (or a list) came since the last wait */
};

/* Waits until a collection changed relevantly (informer_options.relevant) since the last call,
 * timeout_ms passed, or the cache was stopped. */
enum informer_wake informer_wait(struct informer *w, long timeout_ms);
/* Whether every collection has been listed at least once (decisions need the whole picture). */
bool informer_synced(struct informer *w);
/* A snapshot of collection i as {"<namespace>/<name>" or "<name>": object}: a new object owned
 * by the caller whose values are shared and must not be modified. */
json_t *informer_snapshot(struct informer *w, size_t i);
/* The object under key in collection i, a new reference (not to be modified), or NULL. */
json_t *informer_get(struct informer *w, size_t i, const char *key);
/* Stores an object this component just wrote (the server's answer) so it reads it before its
 * watch event comes; an object older than the cached one (by resourceVersion) is ignored. obj
 * is copied. */
void informer_store(struct informer *w, size_t i, const json_t *obj);
/* Takes one more reference (informer_start returns one). */
void informer_ref(struct informer *w);
/* Stops and wakes informer_wait, then drops one reference (the last frees). The collections w
 * was the last subscriber of end (their transfers are cancelled) and their threads are joined
 * before it returns: once every informer on a feed is stopped, nothing uses the feed. NULL-safe;
 * not from a callback of a feed. */
void informer_stop(struct informer *w);

/* "<namespace>/<name>" for namespaced objects, "<name>" otherwise (caller frees). */
char *informer_key(const json_t *obj);
/* metadata.resourceVersion as a number (decimal here: the store's revision), to order two
 * versions of one object; 0 when absent or not decimal. */
unsigned long long informer_object_version(const json_t *obj);

#endif
