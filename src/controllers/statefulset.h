/* statefulset.h: the StatefulSet controller (K8S: pkg/controller/statefulset,
 * StatefulSetController and defaultStatefulSetControl): per StatefulSet, pods with stable names
 * `<set>-<ordinal>` (hostname the name, subdomain the serviceName, the pod-name, pod-index and
 * controller-revision-hash labels), the claims of its volumeClaimTemplates created before each
 * pod and owned as persistentVolumeClaimRetentionPolicy says, the template history in
 * ControllerRevisions, and the status.
 *
 * OrderedReady creates ordinals in increasing order, each once the ones below are Running and
 * Ready (and available for minReadySeconds), and deletes from the highest ordinal, one at a
 * time; Parallel creates and deletes at once. RollingUpdate replaces pods whose revision is not
 * the update revision from the highest ordinal down to the partition, one at a time, waiting for
 * each to be Ready again; OnDelete leaves replacing to the user. Failed or Succeeded pods are
 * deleted and created again. Pods and revisions are adopted and released by the selector as the
 * ReplicaSet controller does (pods only when their name makes them members).
 *
 * A pod's revision is the hash of the set's template, never of the pod: a pod resized in place
 * (pods/resize) is not replaced. Deleting a set's pods and (Delete policies) claims with it is
 * the garbage collector's, through the ownerReferences written here. */
#ifndef FLEXLET_CONTROLLERS_STATEFULSET_H
#define FLEXLET_CONTROLLERS_STATEFULSET_H

#include "base/error.h"
#include "client/client.h"

struct statefulset_controller;

int statefulset_controller_start(const struct api_client_options *o,
                                 struct statefulset_controller **ret, struct error **reterr);
/* NULL-safe, returns NULL. */
struct statefulset_controller *statefulset_controller_stop(struct statefulset_controller *x);

#endif
