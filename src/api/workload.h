/* workload.h: the arithmetic ReplicaSets and Deployments share between the API server's
 * validation and their controllers: the pod-template-hash, maxSurge/maxUnavailable as numbers
 * of pods, and a pod's availability. Pure functions over plain data; nothing here reads the
 * store or the clock (callers pass now).
 *
 * K8S: pkg/controller/controller_utils.go ComputeHash, pkg/controller/deployment/util
 * (ResolveFenceposts, MaxUnavailable, MaxSurge, NewRSNewReplicas), apimachinery
 * intstr.GetScaledValueFromIntOrPercent, podutil.IsPodAvailable. */
#ifndef FLEXLET_API_WORKLOAD_H
#define FLEXLET_API_WORKLOAD_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* The label and annotations the Deployment controller writes (K8S: apps/v1
 * DefaultDeploymentUniqueLabelKey, deployment util's annotation keys). */
#define POD_TEMPLATE_HASH_LABEL     "pod-template-hash"
#define REVISION_ANNOTATION         "deployment.kubernetes.io/revision"
#define REVISION_HISTORY_ANNOTATION "deployment.kubernetes.io/revision-history"
#define DESIRED_REPLICAS_ANNOTATION "deployment.kubernetes.io/desired-replicas"
#define MAX_REPLICAS_ANNOTATION     "deployment.kubernetes.io/max-replicas"
#define CHANGE_CAUSE_ANNOTATION     "kubernetes.io/change-cause"

/* The pod-template-hash of a template (a PodTemplateSpec object) and an optional collision
 * count (NULL: none), as the 10-or-fewer character string upstream puts in the label and the
 * ReplicaSet's name: FNV-32a over the template, then the count as 8 little-endian bytes, the
 * 32-bit sum in decimal, each digit mapped through rand.SafeEncodeString's alphabet.
 * Upstream hashes the Go struct as spew prints it; flexlet hashes the template's canonical JSON
 * (keys sorted, compact), so the value differs from kube-controller-manager's for the same
 * template but has the same properties: stable across restarts, changed by any template
 * change. Caller frees. */
char *workload_template_hash(const json_t *tmpl, const int32_t *collision_count);

/* K8S: intstr.GetScaledValueFromIntOrPercent: v an integer (taken as is) or "N%" (N percent of
 * total, rounded up when round_up, else down). 0 with *ret, or -EINVAL for anything else. */
int workload_scaled_value(const json_t *v, int total, bool round_up, int *ret);

/* K8S: ResolveFenceposts: maxSurge rounded up, maxUnavailable rounded down, of desired; both 0
 * makes maxUnavailable 1 (so a rollout can proceed). -EINVAL when either does not parse. */
int workload_resolve_fenceposts(const json_t *max_surge, const json_t *max_unavailable, int desired,
                                int *ret_surge, int *ret_unavailable);

/* K8S: podutil.IsPodAvailable: the pod is Ready, and has been for min_ready_seconds by now
 * (the Ready condition's lastTransitionTime); a pod being deleted is not counted by callers. */
bool workload_pod_ready(const json_t *pod);
bool workload_pod_available(const json_t *pod, int min_ready_seconds, time_t now);

/* Issue 12: how a pod's running containers differ from its template after an in-place resize:
 * for each container the node reports resources for (status.containerStatuses[].resources),
 * each of requests/limits cpu/memory whose quantity differs from the template's container, as
 * "c requests.cpu 60m (template 50m)", joined by ", "; NULL when none differs. Caller frees. */
char *workload_pod_resize_diff(const json_t *tmpl, const json_t *pod);

#endif
