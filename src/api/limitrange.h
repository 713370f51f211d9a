/* limitrange.h: core/v1 LimitRange, its defaults and validation (api/validation-limitrange.c),
 * and the LimitRanger admission plugin's decisions over one LimitRange (api/limitranger.c):
 * which container defaults a pod gets and which min, max and ratio bounds a pod or a claim
 * breaks. Pure functions over JSON objects; reading the namespace's LimitRanges and turning a
 * refusal into a 403 is apiserver/admission-limitranger.c's job. Objects are borrowed. */
#ifndef FLEXLET_API_LIMITRANGE_H
#define FLEXLET_API_LIMITRANGE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "api/field-error.h"

/* K8S: the limit types upstream knows (core.LimitTypePod, Container, PersistentVolumeClaim). */
#define LIMIT_TYPE_POD       "Pod"
#define LIMIT_TYPE_CONTAINER "Container"
#define LIMIT_TYPE_PVC       "PersistentVolumeClaim"

/* K8S: limitRangerAnnotation, the note on a pod the plugin gave defaults to. */
#define LIMIT_RANGER_ANNOTATION "kubernetes.io/limit-ranger"

/* K8S: SetDefaults_LimitRangeItem, on every write: for each Container item, a resource with a
 * max but no default gets the max as default, one with a default but no defaultRequest gets
 * the default as defaultRequest, and one with a min but still no defaultRequest gets the min.
 * Items of other types are left alone. */
void limit_range_set_defaults(json_t *lr);

/* K8S: ValidateLimitRange (object metadata on create included): each item's type qualified
 * and, unqualified, a standard one, not repeated; resource names valid for the type; no default
 * or defaultRequest on a Pod item; a PVC item with a storage min or max; per resource
 * min <= defaultRequest <= default <= max, min <= max, a ratio >= 1 and <= max/min, and
 * default == defaultRequest for resources that cannot overcommit. Returns the errors added. */
size_t validate_limit_range(const json_t *lr, struct field_error_list *errs);
/* The update: ValidateObjectMetaUpdate and ValidateLimitRange of the new object. */
size_t validate_limit_range_update(const json_t *new_lr, const json_t *old_lr,
                                   struct field_error_list *errs);

/* K8S: PodMutateLimitFunc: the Container item's default (limits) and defaultRequest
 * (requests) fill each container's and init container's resources where the resource is
 * absent. With annotate, a pod that got any default is annotated LIMIT_RANGER_ANNOTATION:
 * "LimitRanger plugin set: cpu, memory request for container c; cpu limit for init container
 * i" (names sorted, containers in order), replacing an earlier value. Returns whether any
 * default was set. */
bool limit_range_pod_defaults(json_t *pod, const json_t *lr, bool annotate);

/* K8S: PodValidateLimitFunc and PersistentVolumeClaimValidateLimitFunc: appends to msgs (a JSON
 * array) one string per bound broken, upstream's exact words:
 *  - Container items, for each container and init container: "minimum cpu usage per Container
 *    is 100m, but request is 50m" (or "... No request is specified", "..., but limit is X"),
 *    "maximum memory usage per Container is 1Gi, but limit is 2Gi" (or "... No limit is
 *    specified", "..., but request is X"), "cpu max limit to request ratio per Container is 2,
 *    but provided ratio is 4.000000" (or "but no request/limit is specified or ... is 0");
 *  - Pod items, the same over the pod's aggregate requests and limits (sidecars and init
 *    containers as PodRequests counts them, pod-level cpu and memory overriding);
 *  - PersistentVolumeClaim items over spec.resources.requests: the minimum as above with no
 *    limit, "maximum storage usage per PersistentVolumeClaim is 1Gi, but request is 2Gi" (or
 *    "... No request is specified").
 * Comparisons are at milli precision unless a value exceeds int64 millis, as upstream's
 * requestLimitEnforcedValues. Returns how many it appended. */
size_t limit_range_pod_check(const json_t *pod, const json_t *lr, json_t *msgs);
size_t limit_range_pvc_check(const json_t *pvc, const json_t *lr, json_t *msgs);

/* K8S: utilerrors.NewAggregate(errs).Error(): NULL for none, the one message as it is, several
 * as "[a, b]" with repeated messages listed once. Caller frees. */
char *limit_range_aggregate(const json_t *msgs);

#endif
