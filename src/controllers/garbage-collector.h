/* garbage-collector.h: the garbage collector (K8S: pkg/controller/garbagecollector): deletes
 * the objects whose owners are all gone, and carries out the Foreground and Orphan propagation
 * policies the API server marks an owner with (registry.c, the "foregroundDeletion" and "orphan"
 * finalizers).
 *
 * It watches every resource discovery says can be listed, watched and deleted (events aside, as
 * upstream ignores them), so a kind added to the API server's resource table is collected
 * without a change here. Each pass builds the graph of owners and dependents from the
 * ownerReferences of what it has seen, keyed by uid, and plans (gc_plan, a pure function):
 *
 * - an object not being deleted whose owners are all gone, or waiting for their dependents, is
 *   deleted, with the policy its own GC finalizer names (Background by default, Foreground when
 *   it has dependents of its own and an owner waits for them: K8S attemptToDeleteItem);
 * - one with an owner still there loses its references to the gone and waiting ones;
 * - an owner marked "foregroundDeletion" loses that finalizer once no dependent that blocks it
 *   (blockOwnerDeletion: true) is left; the API server then removes it;
 * - an owner marked "orphan" first has its references taken off every dependent, then loses the
 *   finalizer (K8S: attemptToOrphanWorker).
 *
 * An owner the graph does not hold is not taken as gone on the graph's word (the cache may lag
 * a create): before acting, the pass reads it from the server, and it is gone only when it is
 * absent or has another uid (K8S: isDangling). */
#ifndef FLEXLET_CONTROLLERS_GARBAGE_COLLECTOR_H
#define FLEXLET_CONTROLLERS_GARBAGE_COLLECTOR_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "client/client.h"

/* One object the graph holds; obj is borrowed for the call. */
struct gc_item {
        const json_t *obj;
        size_t resource; /* the caller's index of the object's resource, handed back in plans */
};

/* The plan for the objects given: a new array of actions, each an object
 *   {"verb": "delete", "item": i, "propagationPolicy": "Background"|"Foreground"|"Orphan",
 *    "absent": [ownerReference...]}
 *   {"verb": "removeOwnerReferences", "item": i, "uids": [uid...], "absent": [ownerReference...]}
 *   {"verb": "removeFinalizer", "item": i, "finalizer": "orphan"|"foregroundDeletion"}
 * where item indexes items, and absent lists the ownerReferences the graph did not find, to be
 * confirmed gone from the server before the action is taken (an action whose absent owner
 * turns out to exist is skipped). */
json_t *gc_plan(const struct gc_item *items, size_t n);

struct garbage_collector;

/* Discovers the resources, starts the informers over them and the pass thread. */
int garbage_collector_start(const struct api_client_options *o, struct garbage_collector **ret,
                            struct error **reterr);
/* Stops it; NULL-safe, returns NULL. */
struct garbage_collector *garbage_collector_stop(struct garbage_collector *x);

#endif
