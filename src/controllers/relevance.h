/* relevance.h: which changes of an object the controllers' passes decide from: the predicates
 * of their informers (informer_options.relevant), so that a change none of a pass's decisions
 * reads (a pod's resources and status during a resize, a lease's renewal) wakes no pass. Each
 * says what the passes it serves read; a change of any of it is relevant (a superset: a change
 * missed costs a pass up to its period). An add and a delete are always relevant.
 *
 * K8S: upstream's controllers filter in their informers' update handlers (the garbage
 * collector's graph builder enqueues an update only when ownerReferences, finalizers or the
 * deletion changed; the taint eviction controller's podUpdated only when nodeName or
 * tolerations did). */
#ifndef FLEXLET_CONTROLLERS_RELEVANCE_H
#define FLEXLET_CONTROLLERS_RELEVANCE_H

#include <jansson.h>
#include <stdbool.h>

/* The garbage collector's, for every collection: metadata.ownerReferences, finalizers and
 * deletionTimestamp (its graph and plan; uid, name, namespace, kind and apiVersion do not
 * change). */
bool relevance_ownership(const json_t *old, const json_t *new);

/* For pods, where one runs, what it mounts and whether it is going: spec.nodeName, volumes and
 * tolerations, status.phase, metadata.deletionTimestamp and deletionGracePeriodSeconds. The
 * node lifecycle controller (taint eviction: nodeName, tolerations, deletion; the pods it marks
 * not Ready are those of a node that stopped being Ready, a node's change), storage protection
 * (nodeName, volumes, deletion and its grace period) and the pv provisioner (nodeName,
 * volumes, phase). */
bool relevance_pod_placement(const json_t *old, const json_t *new);

/* For pods, the Job controller's: metadata.labels, annotations (completion index, failure
 * count), finalizers (tracking), ownerReferences and deletionTimestamp; status.phase; the
 * conditions (Ready, and any for podFailurePolicy's onPodConditions: a resize's conditions only
 * for a Failed pod, the one such rules are matched against); the name, restartCount and state
 * (exit codes) of the container and init container statuses. */
bool relevance_pod_job(const json_t *old, const json_t *new);

/* For pods, the disruption controller's: metadata.labels (its budgets' selectors),
 * ownerReferences (the controllers' scales) and deletionTimestamp, and whether the pod is
 * Ready. */
bool relevance_pod_disruption(const json_t *old, const json_t *new);

/* For pods, the workload controllers' (ReplicaSet, Deployment, StatefulSet, DaemonSet), which
 * read a pod's metadata, placement, phase, readiness, restarts and the resources its
 * containers run with (status.containerStatuses[].resources, their resize reports) through
 * many helpers: every change but the rest of an in-place resize's is relevant. A resize's:
 * metadata.resourceVersion, generation and managedFields, spec.containers[].resources and
 * spec.initContainers[].resources (they read the template, not the pod's spec), status.resize,
 * observedGeneration, the PodResizePending and PodResizeInProgress conditions and the
 * containers' allocatedResources. */
bool relevance_pod_workload(const json_t *old, const json_t *new);

/* For pods, the scheduler's: every change of a pod not bound (on either side) is relevant, it
 * may be scheduled; of a bound pod, every change but those of metadata.resourceVersion,
 * generation and managedFields, status.conditions, resize and observedGeneration, and the
 * container statuses' members other than their names and allocatedResources (what a bound
 * pod holds on its node is the larger of its spec's requests and what is allocated; its
 * readiness, its containers' states and the resources they run with are not read). */
bool relevance_pod_scheduling(const json_t *old, const json_t *new);

/* For ReplicaSets and Deployments, the disruption controller's scale finders': spec.replicas
 * and metadata.ownerReferences (a ReplicaSet's controlling Deployment). */
bool relevance_scale(const json_t *old, const json_t *new);

#endif
