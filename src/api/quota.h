/* quota.h: ResourceQuota arithmetic as kube-apiserver 1.33 does it, with no I/O: what an object
 * charges (K8S: pkg/quota/v1/evaluator/core pods.go PodUsageFunc, persistent_volume_claims.go,
 * apiserver's generic object count evaluator), which quotas it falls under (scopes and
 * scopeSelector), the checks of the ResourceQuota admission plugin with its messages
 * (apiserver/pkg/admission/plugin/resourcequota controller.go checkRequest) and what the quota
 * controller computes as status.used.
 *
 * A resource list is a JSON object {name: quantity string}; every list this module returns is
 * new, its quantities in upstream's canonical String() form. Objects are borrowed v1 JSON as
 * stored. An object's resource is named by its API group ("" for core) and plural. Quantities
 * that do not parse count as zero (validation refused them before they were stored). */
#ifndef FLEXLET_API_QUOTA_H
#define FLEXLET_API_QUOTA_H

#include <jansson.h>
#include <stdbool.h>
#include <time.h>

#include "base/error.h"

/* K8S: the suffix of the per-class claim resources ("gold.storageclass.storage.k8s.io/"). */
#define QUOTA_STORAGE_CLASS_SUFFIX ".storageclass.storage.k8s.io/"

/* K8S: install.DefaultIgnoredResources: events are never counted. */
bool quota_resource_ignored(const char *group, const char *plural);

/* K8S: evaluator.Handles: whether an admission of obj (old NULL on create) through sub ("" or
 * "resize", "status", ...) can change what it charges: a create of any object; an update of a
 * pod through "resize", or of a pod whose Terminating scope flips; an update of a claim itself. */
bool quota_handles(const char *group, const char *plural, const char *sub, const json_t *obj,
                   const json_t *old);

/* K8S: evaluator.MatchingResources: whether the quota resource name counts objects of this
 * resource: pods (pods, count/pods, cpu, memory, ephemeral-storage and their requests. and
 * limits. forms, hugepages, requests.<extended>), claims (persistentvolumeclaims,
 * count/persistentvolumeclaims, requests.storage and their per-class forms), and any other kind
 * through count/<plural>[.<group>] (and the legacy configmaps, secrets, resourcequotas). */
bool quota_resource_tracks(const char *group, const char *plural, const char *name);

/* K8S: evaluator.Usage: what obj charges. A pod: count/pods always; pods, cpu, memory and
 * ephemeral-storage (requests. and limits.) unless it is terminal or past its deletion grace at
 * now; its requests and limits as PodRequests/PodLimits with status resources
 * (InPlacePodVerticalScaling): each container counts at the larger of its spec, its
 * status.resources and its allocatedResources (only status when the resize is Infeasible).
 * A claim: its count, and requests.storage at the larger of its request and
 * status.allocatedResources (RecoverVolumeExpansionFailure), both also per storage class. Any
 * other kind: its count. */
json_t *quota_usage(const char *group, const char *plural, const json_t *obj, time_t now);

/* K8S: evaluator.Matches: whether quota (its status.hard) tracks a resource of obj's kind and
 * every scope of spec.scopes and spec.scopeSelector matches obj (Terminating, NotTerminating,
 * BestEffort, NotBestEffort, PriorityClass, CrossNamespacePodAffinity; only pods match a
 * scope). */
bool quota_matches(const json_t *quota, const char *group, const char *plural, const json_t *obj);

/* K8S: podEvaluator.Constraints: NULL, or "must specify requests.cpu for: c1; ..." naming each
 * cpu or memory resource of hard (a quota's status.hard) that a container of pod sets neither
 * as a request nor a limit. A pod with pod-level resources is not checked. Caller frees. */
char *quota_pod_constraints(const json_t *pod, const json_t *hard);

/* K8S: checkRequest for one quota: the admission of obj (old: NULL on create, the stored object
 * on update) against quota, delta being what the request adds (quota_usage of obj less that of
 * old, never negative, zeros removed). Returns 0 with *ret_used the quota's new status.used, or
 * NULL when the quota does not apply or does not change; -EPERM with upstream's message:
 * "failed quota: NAME: must specify ...", "status unknown for quota: NAME, resources: ..." or
 * "exceeded quota: NAME, requested: requests.cpu=500m, used: requests.cpu=1, limited:
 * requests.cpu=1" (names sorted, only the exceeded ones). */
int quota_check(const json_t *quota, const char *group, const char *plural, const json_t *obj,
                const json_t *delta, json_t **ret_used, struct error **reterr);

/* The delta a request charges: quota_usage(obj) less quota_usage(old) (old may be NULL), every
 * value at least zero, zeros left out (K8S: SubtractWithNonNegativeResult, RemoveZeros). */
json_t *quota_delta(const char *group, const char *plural, const json_t *obj, const json_t *old,
                    time_t now);

/* ---- resource lists ---- */

/* a + b, per name (names of either). */
json_t *quota_list_add(const json_t *a, const json_t *b);
/* K8S: quota.Equals: the same names with equal values. */
bool quota_list_equal(const json_t *a, const json_t *b);
/* K8S: prettyPrint: "name=value,..." sorted by name. Caller frees. */
char *quota_list_pretty(const json_t *l);

/* One collection of objects the controller counts: objects is {key: object} (an informer
 * snapshot) of every namespace. */
struct quota_collection {
        const char *group;
        const char *plural;
        const json_t *objects;
};

/* K8S: the quota controller's CalculateUsage: the status.used quota should carry: for every
 * name of spec.hard, the sum of quota_usage over the objects in quota's namespace that match its
 * scopes, among the collections that track that name; "0" for a name no collection tracks
 * (services and other kinds flexlet does not serve). */
json_t *quota_used_compute(const json_t *quota, const struct quota_collection *cols, size_t n,
                           time_t now);

#endif
