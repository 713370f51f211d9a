/* storage-protection.h: upstream's PVC protection and PV protection controllers
 * (kube-controller-manager's pvc-protection-controller and pv-protection-controller) as one API
 * client. The StorageObjectInUseProtection admission plugin gives every new claim and volume its
 * finalizer; a deleted one then only gets metadata.deletionTimestamp, and this controller removes
 * the finalizer (so the API server removes the object) once no scheduled pod uses the claim, or
 * the volume is no longer Bound. It also gives the finalizer to objects made before the plugin.
 * Like upstream it records no events.
 *
 * Level-based: every pass (on a watch event of claims, volumes or pods, and every 2 s) decides
 * each object afresh from the cache; before a claim is let go, the pods of its namespace are
 * listed from the server too (the cache may not have seen a new pod yet). A write that meets a
 * newer object (409) is decided again on the next pass. */
#ifndef FLEXLET_CONTROLLERS_STORAGE_PROTECTION_H
#define FLEXLET_CONTROLLERS_STORAGE_PROTECTION_H

#include <jansson.h>
#include <stdbool.h>

#include "base/error.h"
#include "client/client.h"

/* K8S podUsesPVC (pvcprotection): pod uses pvc when both are in one namespace, the pod is
 * scheduled (spec.nodeName; the kubelet never starts a pod whose claim is being deleted, so an
 * unscheduled one never will), and either a persistentVolumeClaim volume names the claim,
 * whatever the pod's phase (a finished pod's volumes may not be torn down yet), or an ephemeral
 * volume's claim "<pod>-<volume>" is pvc, which the pod controls (ownerReferences), while the pod
 * is not shut down (deleted with a zero grace period). */
bool storage_protection_pod_uses_claim(const json_t *pod, const json_t *pvc);

/* The first pod of pods (a JSON array, or an object whose values are pods) that uses pvc; NULL
 * when none does. Borrowed from pods. */
const json_t *storage_protection_claim_user(const json_t *pvc, const json_t *pods);

/* What the controller does next for a claim or a volume. */
enum storage_protection_step {
        STORAGE_PROTECTION_NOTHING, /* not being deleted and protected, or not ours to hold */
        STORAGE_PROTECTION_ADD,     /* K8S NeedToAddFinalizer: not being deleted, no finalizer */
        STORAGE_PROTECTION_KEEP,    /* being deleted, still in use: the finalizer stays */
        STORAGE_PROTECTION_REMOVE,  /* being deleted, unused: remove the finalizer */
        STORAGE_PROTECTION_STEP_MAX,
};
/* "Nothing", "Add", "Keep", "Remove"; NULL out of range. */
const char *storage_protection_step_to_string(enum storage_protection_step s);

/* K8S processPVC (IsDeletionCandidate, isBeingUsed, NeedToAddFinalizer) for pvc given pods as
 * storage_protection_claim_user takes them. */
enum storage_protection_step storage_protection_claim_next(const json_t *pvc, const json_t *pods);
/* K8S processPV: a volume is in use while its status.phase is Bound. */
enum storage_protection_step storage_protection_volume_next(const json_t *pv);

/* A deep copy of obj with finalizer appended to metadata.finalizers (add), or with every
 * occurrence of it removed (!add; K8S slice.RemoveString). New reference. */
json_t *storage_protection_set_finalizer(const json_t *obj, const char *finalizer, bool add);

struct storage_protection;

/* Starts the controller (a watch of claims, volumes and pods, and a pass thread). */
int storage_protection_start(const struct api_client_options *o, struct storage_protection **ret,
                             struct error **reterr);
/* Stops it (the pass thread ends after the step it is in and frees it); NULL-safe, returns
 * NULL. */
struct storage_protection *storage_protection_stop(struct storage_protection *x);

#endif
