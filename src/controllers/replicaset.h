/* replicaset.h: the ReplicaSet controller (K8S: pkg/controller/replicaset,
 * ReplicaSetController): keeps as many active pods as each ReplicaSet's spec.replicas asks,
 * created from its template with generateName "<rs>-" and an ownerReference (controller,
 * blockOwnerDeletion), deleting the least valuable first; adopts orphan pods its selector
 * matches and releases owned pods that stop matching; writes the status (replicas,
 * fullyLabeledReplicas, readyReplicas, availableReplicas after minReadySeconds,
 * observedGeneration). Expectations: a ReplicaSet whose creates or deletes the informer has
 * not yet shown is not managed again until they show (or EXPECTATIONS_TIMEOUT passes), so a
 * burst of events cannot over-create, as upstream's ControllerExpectations.
 *
 * Nothing here compares a pod's spec with the template: a pod resized in place
 * (pods/resize) stays the ReplicaSet's like any other. Deleting a ReplicaSet's pods with it is
 * the garbage collector's. */
#ifndef FLEXLET_CONTROLLERS_REPLICASET_H
#define FLEXLET_CONTROLLERS_REPLICASET_H

#include <jansson.h>
#include <stdbool.h>
#include <time.h>

#include "base/error.h"
#include "client/client.h"

/* K8S: FilterActivePods: not Succeeded, not Failed, not being deleted. */
bool replicaset_pod_active(const json_t *pod);

/* The status rs should have given its active owned pods (a JSON array) at now: a new object.
 * *ret_recheck_s is set to the seconds until a Ready pod becomes available (minReadySeconds),
 * 0 when none waits. */
json_t *replicaset_status(const json_t *rs, const json_t *pods, time_t now, long *ret_recheck_s);

/* K8S: getPodsToDelete's order (ActivePodsWithRanks, simplified to one node): sorts pods (a
 * JSON array) in place so the ones to delete first come first: unscheduled before scheduled,
 * Pending before Unknown before Running, not Ready before Ready, lower
 * controller.kubernetes.io/pod-deletion-cost first, Ready for less time first, more restarts
 * first, newer first. */
void replicaset_rank_for_deletion(json_t *pods);

struct replicaset_controller;

int replicaset_controller_start(const struct api_client_options *o,
                                struct replicaset_controller **ret, struct error **reterr);
/* NULL-safe, returns NULL. */
struct replicaset_controller *replicaset_controller_stop(struct replicaset_controller *x);

#endif
