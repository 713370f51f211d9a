/* admission-limitranger.h: the LimitRanger admission plugin (K8S: plugin/pkg/admission/
 * limitranger, 1.33), first of the default plugins after NamespaceLifecycle. It reads the
 * request's namespace's LimitRanges from the store and applies api/limitrange.h's decisions:
 *  - pods, on create and on pods/resize (KEP-1287: InPlacePodVerticalScaling is on): the
 *    mutating half fills container defaults (the annotation only on create: a resize keeps the
 *    stored metadata, as podResizeStrategy does), the validating half checks min, max and
 *    maxLimitRequestRatio of Container and Pod items. Other pod updates and subresources are
 *    not the plugin's (containers cannot be added or changed there);
 *  - persistentvolumeclaims, on create and on every update of the claim itself (an expansion
 *    included): the storage min and max of PersistentVolumeClaim items.
 * An object whose stored version is being deleted is let through. A bound broken refuses the
 * request with -EPERM and upstream's message (403 `<plural> "<name>" is forbidden: ...`); the
 * LimitRanges are checked one by one and the first that refuses answers. */
#ifndef FLEXLET_APISERVER_ADMISSION_LIMITRANGER_H
#define FLEXLET_APISERVER_ADMISSION_LIMITRANGER_H

#include <jansson.h>

#include "apiserver/resources.h"
#include "base/error.h"

struct store;

/* Mutating, for the pod strategy's admit: the defaults. On create the pod's status.qosClass is
 * recomputed afterwards (upstream computes it after admission, flexlet's prepare_create ran
 * before). A store failure is -EPERM "unable to CREATE /v1, Resource=pods at this time because
 * there was an error enforcing limit ranges", as upstream's lister error. */
int limit_ranger_pod_admit(struct store *store, enum api_subresource sub, json_t *pod,
                           const json_t *old, struct error **reterr);
/* Validating, for the pod strategy's admit_validate: the bounds. */
int limit_ranger_pod_validate(struct store *store, enum api_subresource sub, const json_t *pod,
                              const json_t *old, struct error **reterr);
/* Validating, for the claim strategy's admit_validate: the storage bounds. */
int limit_ranger_pvc_validate(struct store *store, enum api_subresource sub, const json_t *pvc,
                              const json_t *old, struct error **reterr);

#endif
