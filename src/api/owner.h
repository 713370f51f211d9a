/* owner.h: ownerReferences and the garbage collector's finalizers, as the API server (delete
 * with a propagation policy), the garbage collector and the workload controllers read them.
 * Pure functions over objects; nothing here talks to a store or a server. */
#ifndef FLEXLET_API_OWNER_H
#define FLEXLET_API_OWNER_H

#include <jansson.h>
#include <stdbool.h>

/* K8S: metav1.FinalizerOrphanDependents and FinalizerDeleteDependents: an owner being deleted
 * with the Orphan policy waits for its dependents to lose their references to it; one deleted
 * with the Foreground policy waits for its blocking dependents to be gone. */
#define GC_FINALIZER_ORPHAN     "orphan"
#define GC_FINALIZER_FOREGROUND "foregroundDeletion"

/* K8S: metav1.GetControllerOf: obj's ownerReference with controller: true (borrowed), or NULL. */
const json_t *owner_controller_of(const json_t *obj);
/* Whether obj has an ownerReference to the object whose uid is given. */
bool owner_references_uid(const json_t *obj, const char *uid);
/* "apps/v1" -> "apps", "v1" -> "": the group of an apiVersion (caller frees). */
char *owner_api_group(const char *api_version);

#endif
