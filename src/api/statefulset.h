/* statefulset.h: the identity rules of a StatefulSet's pods and claims, shared by the StatefulSet
 * controller and its unit tests: ordinal names (`<set>-<ordinal>`), the labels and hostname a
 * member carries, the claims of its volumeClaimTemplates (`<template>-<set>-<ordinal>`), the
 * ControllerRevision a template is recorded in, and the claims' ownerReferences under the
 * persistentVolumeClaimRetentionPolicy. Pure functions over plain JSON; nothing here reads the
 * store or the clock.
 *
 * K8S: pkg/controller/statefulset/stateful_set_utils.go (getParentNameAndOrdinal, getPodName,
 * getPersistentVolumeClaimName, identityMatches, storageMatches, newStatefulSetPod, getPatch,
 * updateClaimOwnerRefForSetAndPod), pkg/controller/history (ControllerRevisionName). */
#ifndef FLEXLET_API_STATEFULSET_H
#define FLEXLET_API_STATEFULSET_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

/* K8S: apps/v1 StatefulSetPodNameLabel, PodIndexLabel, StatefulSetRevisionLabel
 * (ControllerRevisionHashLabelKey). */
#define STS_POD_NAME_LABEL  "statefulset.kubernetes.io/pod-name"
#define STS_POD_INDEX_LABEL "apps.kubernetes.io/pod-index"
#define STS_REVISION_LABEL  "controller-revision-hash"

/* K8S: getParentNameAndOrdinal: name is `<parent>-<digits>` (the last dash); 0 with *ret_parent
 * (caller frees) and *ret_ordinal, -EINVAL for any other name or an ordinal beyond int32. */
int statefulset_parse_pod_name(const char *name, char **ret_parent, int *ret_ordinal);
/* The ordinal of pod (by its name) when it is a member of sts (its parent name is the set's),
 * else -1. */
int statefulset_pod_ordinal(const json_t *sts, const json_t *pod);
/* K8S: getStartOrdinal (spec.ordinals.start, 0 when unset) and whether ordinal lies within
 * [start, start + replicas). */
int statefulset_start_ordinal(const json_t *sts);
bool statefulset_ordinal_in_range(const json_t *sts, int ordinal);

/* `<set>-<ordinal>` and `<template>-<set>-<ordinal>`; caller frees. */
char *statefulset_pod_name(const char *set, int ordinal);
char *statefulset_claim_name(const char *tmpl, const char *set, int ordinal);

/* K8S: identityMatches: name, namespace and the pod-name label are the member's; storageMatches:
 * each claim template's volume names the ordinal's claim. */
bool statefulset_identity_matches(const json_t *sts, const json_t *pod);
bool statefulset_storage_matches(const json_t *sts, const json_t *pod);

/* K8S: getPersistentVolumeClaims: the claims of ordinal, an object from template name to a new
 * claim (the template with the claim's name, the set's namespace, the selector's matchLabels
 * added to its labels; no status). */
json_t *statefulset_claims(const json_t *sts, int ordinal);

/* K8S: newStatefulSetPod + setPodRevision: the pod of ordinal built from tmpl (a
 * PodTemplateSpec: the set's, or one a revision holds): the template's labels, annotations,
 * finalizers and spec, the name, the set's namespace, a controller reference to the set, the
 * pod-name, pod-index and controller-revision-hash labels, hostname the pod's name and
 * subdomain the set's serviceName, and one persistentVolumeClaim volume per claim template
 * (replacing a template volume of the same name). A new object. */
json_t *statefulset_new_pod(const json_t *sts, const json_t *tmpl, int ordinal,
                            const char *revision);

/* K8S: getPatch: a revision's data, the strategic merge patch
 * {"spec":{"template":{..., "$patch":"replace"}}} that restores the set's template (what kubectl
 * rollout undo applies). A new object. */
json_t *statefulset_revision_data(const json_t *sts);
/* The template a revision's data holds (without the "$patch" directive), a new object; NULL when
 * the data holds none. */
json_t *statefulset_revision_template(const json_t *data);
/* K8S: ControllerRevisionName(set, HashControllerRevision(data, collisionCount)): `<set>-<hash>`
 * with the set's name cut to 223 bytes. The hash is workload_template_hash's over the data (see
 * workload.h for how it differs from upstream's). Caller frees. */
char *statefulset_revision_name(const char *set, const json_t *data,
                                const int32_t *collision_count);

/* K8S: updateClaimOwnerRefForSetAndPod (StatefulSetAutoDeletePVC, on since 1.32): the
 * ownerReferences claim should carry for the pod of its ordinal, given the set's retention
 * policy: Retain/Retain none of the set's or the pod's; WhenDeleted Delete a controller reference
 * to the set; WhenScaled Delete a controller reference to the pod once the pod's ordinal is out
 * of range (scaled down), the set's otherwise when WhenDeleted is Delete too. References to other
 * owners are kept. A claim holding a stale reference (the set's or pod's name, another uid) is
 * left as it is; one with another controller loses only the set's and pod's references. pod
 * must carry its uid. A new array. */
json_t *statefulset_claim_owner_refs(const json_t *claim, const json_t *sts, const json_t *pod);

#endif
