/* disruption.h: the disruption controller (K8S: pkg/controller/disruption,
 * DisruptionController): keeps every PodDisruptionBudget's status, which the eviction
 * subresource reads and decrements, true to the pods its selector picks: expectedPods,
 * currentHealthy (Ready pods not being deleted nor just evicted), desiredHealthy,
 * disruptionsAllowed, the DisruptionAllowed condition, and disruptedPods without the entries
 * the eviction handler added more than PDB_DELETION_TIMEOUT_S ago.
 *
 * As upstream: an integer minAvailable counts the pods themselves; a percentage or
 * maxUnavailable counts the scale of the pods' controllers as upstream's finders know them (a
 * ReplicaSet's spec.replicas, or the Deployment's that controls it), which bare pods do not
 * have (expectedPods 0, so no disruption is allowed); a pod whose controller no finder knows
 * (a Job, say) fails the sync ("found no controllers for pod ..."), which sets
 * disruptionsAllowed 0 and DisruptionAllowed False/SyncFailed. The events upstream's sync
 * records (NoPods, UnmanagedPods, CalculateExpectedPodCountFailed) are
 * recorded when a new status is written. */
#ifndef FLEXLET_CONTROLLERS_DISRUPTION_H
#define FLEXLET_CONTROLLERS_DISRUPTION_H

#include <jansson.h>
#include <time.h>

#include "base/error.h"
#include "client/client.h"

/* The controllers upstream's finders know, from snapshots of ReplicaSets and Deployments
 * ({"ns/name": object}): {"<ReplicaSet uid>": {"uid": <the controller counted>, "scale": n}},
 * the counted controller being the ReplicaSet or the Deployment that controls it. New object. */
json_t *disruption_scales(const json_t *replicasets, const json_t *deployments);
/* disruption_expected and disruption_next with the finders' scales (NULL: none known). */
int disruption_expected_scaled(const json_t *pdb, const json_t *pods, const json_t *scales,
                               int *ret_expected, int *ret_desired, int *ret_unmanaged,
                               struct error **reterr);
json_t *disruption_next_scaled(const json_t *pdb, const json_t *pods, const json_t *scales,
                               time_t now);

/* K8S: getExpectedPodCount over the pods the budget selects (a JSON array): *ret_expected and
 * *ret_desired, and *ret_unmanaged the number of pods without a controller. -EINVAL with
 * upstream's message ("found no controllers for pod \"p\"", "invalid type: string is not a
 * percentage", ...) when the budget cannot be computed. */
int disruption_expected(const json_t *pdb, const json_t *pods, int *ret_expected, int *ret_desired,
                        int *ret_unmanaged, struct error **reterr);

/* The status the budget should have at now given the pods it selects: a new PDB object (a copy
 * of pdb with that status) to write through the status subresource, or NULL when pdb's status
 * is already up to date (K8S: trySync, updatePdbStatus, and failSafe when the budget cannot be
 * computed). */
json_t *disruption_next(const json_t *pdb, const json_t *pods, time_t now);

/* The pods of the snapshot (values of {"ns/name": pod}) in pdb's namespace that its selector
 * picks: a new array (K8S: getPodsForPdb; a missing selector picks none). -EINVAL when the
 * selector is not valid. */
int disruption_pods_for(const json_t *pdb, const json_t *pods, json_t **ret);

/* Go's %v of a *metav1.LabelSelector (its generated String(): matchLabels sorted by key), as
 * the UnmanagedPods event prints it; "nil" for none. Caller frees. */
char *disruption_selector_string(const json_t *sel);

struct disruption_controller;

/* Starts the controller (an informer over budgets and pods, and a pass thread). */
int disruption_controller_start(const struct api_client_options *o,
                                struct disruption_controller **ret, struct error **reterr);
/* Stops it; NULL-safe, returns NULL. */
struct disruption_controller *disruption_controller_stop(struct disruption_controller *x);

#endif
