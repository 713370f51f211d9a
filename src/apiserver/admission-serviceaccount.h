/* admission-serviceaccount.h: the ServiceAccount admission plugin on pod creation (K8S:
 * plugin/pkg/admission/serviceaccount, 1.33): a pod without spec.serviceAccountName gets
 * "default", a pod naming a ServiceAccount that does not exist is refused, and unless the pod
 * (or else its account) says automountServiceAccountToken: false, every container and init
 * container mounts the projected kube-api-access-<5 random> volume (the token, the cluster CA,
 * the namespace) read-only at /var/run/secrets/kubernetes.io/serviceaccount. Mirror pods are
 * left alone, as upstream. */
#ifndef FLEXLET_APISERVER_ADMISSION_SERVICEACCOUNT_H
#define FLEXLET_APISERVER_ADMISSION_SERVICEACCOUNT_H

#include <jansson.h>
#include <stdbool.h>

#include "apiserver/resources.h"
#include "base/error.h"

struct store;

/* K8S: DefaultAPITokenMountPath, ServiceAccountVolumeName + "-" */
#define SA_TOKEN_MOUNT_PATH    "/var/run/secrets/kubernetes.io/serviceaccount"
#define SA_TOKEN_VOLUME_PREFIX "kube-api-access-"
/* K8S: serviceaccount.WarnOnlyBoundTokenExpirationSeconds (1 h 7 s, so a token of this volume is
 * told from one asked for by hand), ProjectedVolumeSourceDefaultMode (0644) */
#define SA_TOKEN_VOLUME_EXPIRATION_SECONDS 3607
#define SA_TOKEN_VOLUME_MODE               0644
/* K8S: rootcacertpublisher's RootCACertConfigMapName: the ConfigMap whose ca.crt the volume
 * projects (controllers/rootca-publisher.h keeps it in every namespace) */
#define ROOT_CA_CONFIG_MAP "kube-root-ca.crt"

/* K8S: the v1 conversion of the deprecated spec.serviceAccount: read as serviceAccountName when
 * that is empty, written back as a copy of serviceAccountName (removed when that is empty). */
void pod_service_account_convert(json_t *pod);

/* K8S: Admit on a create of the pod itself: spec.serviceAccountName from the deprecated
 * spec.serviceAccount when only that is set (the v1 conversion), else "default" when empty;
 * spec.serviceAccount then mirrors spec.serviceAccountName (as the v1 conversion writes it).
 * Pure; returns 0. */
int pod_service_account_default(json_t *pod);

/* K8S shouldAutomount: the pod's spec.automountServiceAccountToken when set, else the
 * account's (sa, a ServiceAccount), else true. */
bool pod_service_account_automount(const json_t *pod, const json_t *sa);

/* K8S mountServiceAccountToken: every init container and container without a mount at
 * SA_TOKEN_MOUNT_PATH gets {name, readOnly: true, mountPath: SA_TOKEN_MOUNT_PATH}; the volume
 * is the pod's first one named SA_TOKEN_VOLUME_PREFIX*, or else new_volume, added (as
 * TokenVolumeSource: defaultMode 0644, a serviceAccountToken at "token" for 3607 s, the
 * kube-root-ca.crt ConfigMap's ca.crt, the downward API's metadata.namespace at "namespace")
 * only when a container mounts it. Pure. */
void pod_service_account_mount(json_t *pod, const char *new_volume);

/* The pod strategy's hooks, on creates of the pod itself. admit: pod_service_account_default,
 * then the account is looked up (refused as below) and, when pod_service_account_automount
 * says so, pod_service_account_mount with a generated kube-api-access-XXXXX name; a pod without
 * imagePullSecrets gets the account's. admit_validate: the named ServiceAccount must exist in
 * the pod's namespace. Refusal: -EPERM and "error looking up service account NS/NAME:
 * serviceaccount \"NAME\" not found". Like upstream's, the lookup of "default" is tried up to
 * 10 times, 100-200 ms apart, since the controller creates it just after its namespace. */
int pod_admit(struct store *store, enum api_subresource sub, json_t *pod, const json_t *old,
              struct error **reterr);
int pod_admit_validate(struct store *store, enum api_subresource sub, const json_t *pod,
                       const json_t *old, struct error **reterr);

#endif
