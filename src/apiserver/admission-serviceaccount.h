/* admission-serviceaccount.h: the ServiceAccount admission plugin on pod creation (K8S:
 * plugin/pkg/admission/serviceaccount, 1.33): a pod without spec.serviceAccountName gets
 * "default" (mutating), and a pod naming a ServiceAccount that does not exist is refused
 * (validating). Token automount, which upstream's plugin also does, is not done: flexlet has no
 * service account tokens yet (docs/api.md). Mirror pods are left alone, as upstream. */
#ifndef FLEXLET_APISERVER_ADMISSION_SERVICEACCOUNT_H
#define FLEXLET_APISERVER_ADMISSION_SERVICEACCOUNT_H

#include <jansson.h>

#include "apiserver/resources.h"
#include "base/error.h"

struct store;

/* K8S: the v1 conversion of the deprecated spec.serviceAccount: read as serviceAccountName when
 * that is empty, written back as a copy of serviceAccountName (removed when that is empty). */
void pod_service_account_convert(json_t *pod);

/* K8S: Admit on a create of the pod itself: spec.serviceAccountName from the deprecated
 * spec.serviceAccount when only that is set (the v1 conversion), else "default" when empty;
 * spec.serviceAccount then mirrors spec.serviceAccountName (as the v1 conversion writes it).
 * Pure; returns 0. */
int pod_service_account_default(json_t *pod);

/* The pod strategy's hooks. admit: pod_service_account_default on creates of the pod itself.
 * admit_validate: the named ServiceAccount must exist in the pod's namespace; else -EPERM and
 * "error looking up service account NS/NAME: serviceaccount \"NAME\" not found". Like
 * upstream's, the lookup of "default" is tried up to 10 times, 100-200 ms apart, since the
 * controller creates it just after its namespace. */
int pod_admit(struct store *store, enum api_subresource sub, json_t *pod, const json_t *old,
              struct error **reterr);
int pod_admit_validate(struct store *store, enum api_subresource sub, const json_t *pod,
                       const json_t *old, struct error **reterr);

#endif
