/* pdb.h: the PodDisruptionBudget rules the eviction handler and the disruption controller
 * share (K8S: k8s.io/component-helpers/apps/poddisruptionbudget and apimachinery's
 * meta.SetStatusCondition): the DisruptionAllowed condition, and what counts as a Ready pod.
 * Objects are jansson values the caller owns; nothing here allocates beyond them. */
#ifndef FLEXLET_API_PDB_H
#define FLEXLET_API_PDB_H

#include <jansson.h>
#include <stdbool.h>

/* K8S: policy.DisruptionAllowedCondition and its reasons. */
#define PDB_CONDITION_DISRUPTION_ALLOWED "DisruptionAllowed"
#define PDB_REASON_SYNC_FAILED           "SyncFailed"
#define PDB_REASON_SUFFICIENT_PODS       "SufficientPods"
#define PDB_REASON_INSUFFICIENT_PODS     "InsufficientPods"
/* K8S: the disruption controller's DeletionTimeout: an evicted pod still there after this long
 * is dropped from status.disruptedPods (and counts as healthy again). */
#define PDB_DELETION_TIMEOUT_S 120
/* K8S: eviction.go MaxDisruptedPodSize. */
#define PDB_MAX_DISRUPTED_PODS 2000

/* K8S: meta.SetStatusCondition on status.conditions (status must be an object): the condition
 * of this type gets status, reason, message and observedGeneration; its lastTransitionTime
 * becomes now (RFC 3339) when it is new or its status changes. */
void pdb_set_condition(json_t *status, const char *type, const char *cond_status,
                       const char *reason, const char *message, long long observed_generation,
                       const char *now);
/* K8S: UpdateDisruptionAllowedCondition: True/SufficientPods when status.disruptionsAllowed > 0,
 * else False/InsufficientPods, at status.observedGeneration. pdb must have a status object. */
void pdb_update_disruption_allowed(json_t *pdb, const char *now);
/* K8S: ConditionsAreUpToDate: the condition is there, the status observed the pdb's generation,
 * and the condition agrees with disruptionsAllowed. */
bool pdb_conditions_up_to_date(const json_t *pdb);
/* K8S: podutil.IsPodReady: the pod's Ready condition is True. */
bool pdb_pod_ready(const json_t *pod);

#endif
