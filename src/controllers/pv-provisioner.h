/* pv-provisioner.h: the local provisioner "flexlet.io/local-loop" with the part of upstream's
 * PersistentVolume controller that serves it, as an API client (list + watch of claims, volumes,
 * classes and pods). A claim whose class names this provisioner gets a PersistentVolume
 * "pvc-<claim uid>" pinned to the claim's node (its nodeAffinity), backed by a sparse file
 * DATA_DIR/volumes/pvc-<claim uid>.img of that node formatted with the class's
 * parameters.fsType, bound both ways. The file is made through the pv_driver when the node is
 * the one in this process, else by that node before the first mount (node/volume/nodevol.h);
 * WaitForFirstConsumer claims wait until the scheduler names their node
 * (volume.kubernetes.io/selected-node), and give the node back when it cannot hold them (the
 * annotation removed: the scheduler picks again); reclaimPolicy Delete has the node remove the
 * file, then the volume is deleted, once the claim is gone; Retain leaves it Released.
 * docs/storage.md is the user's and the node's view. */
#ifndef FLEXLET_CONTROLLERS_PV_PROVISIONER_H
#define FLEXLET_CONTROLLERS_PV_PROVISIONER_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"
#include "client/client.h"

/* The provisioner's name (StorageClass provisioner, the provisioned-by annotation). */
#define PV_LOCAL_LOOP_PROVISIONER "flexlet.io/local-loop"
/* The CSI driver name of its volumes (PV spec.csi.driver, the resizer's name). K8S: a CSI driver
 * name is a DNS-1123 subdomain (ValidateCSIDriverName), so it cannot be the provisioner's name,
 * which has a '/'. */
#define PV_LOCAL_LOOP_DRIVER "local-loop.flexlet.io"

/* K8S: the annotations and finalizer of upstream's PV controller (pkg/controller/volume/
 * persistentvolume/util) and external-provisioner. */
#define PV_ANN_BIND_COMPLETED             "pv.kubernetes.io/bind-completed"
#define PV_ANN_BOUND_BY_CONTROLLER        "pv.kubernetes.io/bound-by-controller"
#define PV_ANN_PROVISIONED_BY             "pv.kubernetes.io/provisioned-by"
#define PV_ANN_SELECTED_NODE              "volume.kubernetes.io/selected-node"
#define PV_ANN_STORAGE_PROVISIONER        "volume.kubernetes.io/storage-provisioner"
#define PV_ANN_BETA_STORAGE_PROVISIONER   "volume.beta.kubernetes.io/storage-provisioner"
#define PV_FINALIZER_EXTERNAL_PROVISIONER "external-provisioner.volume.kubernetes.io/finalizer"
#define PV_NO_PROVISIONER                 "kubernetes.io/no-provisioner"
/* flexlet: the node named by its value made the volume's backing file (nodevol.h) */
#define PV_ANN_PROVISIONED_ON "local-loop.flexlet.io/provisioned-on"

/* The largest volume (16Ti), and the unit its size is rounded up to (a page; loopvol.h). */
#define PV_LOCAL_LOOP_SIZE_MAX   ((int64_t) 1 << 44)
#define PV_LOCAL_LOOP_SIZE_ALIGN 4096

/* ---- pure helpers and decisions (tested without a server) ---- */

/* bytes rounded up to PV_LOCAL_LOOP_SIZE_ALIGN: the size the node's file will have. */
int64_t pv_round_up(int64_t bytes);

/* K8S (external-provisioner): the class's filesystem: parameters "csi.storage.k8s.io/fstype",
 * else "fsType", else "ext4". Borrowed from sc, or the literal. */
const char *pv_class_fstype(const json_t *sc);

/* What the provisioner does next for a claim. */
enum pv_claim_step {
        PV_CLAIM_NOTHING,       /* not ours, being deleted, or bound and settled */
        PV_CLAIM_CLASS_MISSING, /* Warning ProvisioningFailed: storageclass... "x" not found */
        PV_CLAIM_EXTERNAL,      /* another provisioner: annotate it, ExternalProvisioning */
        PV_CLAIM_WAIT_CONSUMER, /* WaitForFirstConsumer, no selected-node yet */
        PV_CLAIM_ANNOTATE,      /* ours: annotate the provisioner, ExternalProvisioning */
        PV_CLAIM_PROVISION,     /* ours: make the file and the PV */
        PV_CLAIM_BIND,          /* its PV exists: bind the claim, phases Bound */
        PV_CLAIM_LOST,          /* bound, but its volume is gone: phase Lost, ClaimLost */
        PV_CLAIM_STEP_MAX,
};
/* "Nothing", "ClassMissing", ... for logs and tests; NULL out of range. */
const char *pv_claim_step_to_string(enum pv_claim_step s);

/* Decides for claim given its class (NULL: the class it names does not exist) and the volume
 * named by spec.volumeName or else "pvc-<uid>" (NULL: none). K8S: syncUnboundClaim and
 * syncBoundClaim of the PV controller, restricted to dynamically provisioned claims; a claim
 * without a class waits for a static volume, which this controller does not bind. A
 * WaitForFirstConsumer claim is provisioned only once it carries volume.kubernetes.io/
 * selected-node (IsDelayBindingProvisioning): the scheduler writes it in PreBind. */
enum pv_claim_step pv_claim_next(const json_t *claim, const json_t *sc, const json_t *pv);

/* The event a PV_CLAIM_WAIT_CONSUMER claim gets, given the cluster's pods (a JSON array):
 * K8S emitEventForUnboundDelayBindingClaim: "WaitForFirstConsumer" "waiting for first consumer
 * to be created before binding" while no live unscheduled pod of its namespace uses it, else
 * "WaitForPodScheduled" "waiting for pod p to be scheduled" ("waiting for pods p,q to be
 * scheduled"). *ret_reason is a literal; the message is the caller's to free. */
char *pv_claim_wait_event(const json_t *claim, const json_t *pods, const char **ret_reason);

/* K8S (external-provisioner's checkError and provisionVolumeErrorHandling): whether a failure
 * of making the volume (loopvol_create's errnum) gives the claim's node back to the scheduler
 * (removing volume.kubernetes.io/selected-node): only for a claim that has one, and only when
 * another node might do: ENOSPC and EDQUOT, the CSI ResourceExhausted of a driver with topology.
 * Every other failure is retried on the same node after a back-off. (A selected Node that does
 * not exist is always given back, before anything is made.) */
bool pv_provisioning_reschedules(const json_t *claim, int errnum);

/* Why the provisioner refuses a claim of its class before making anything (NULL when it does
 * not; caller frees): an access mode other than ReadWriteOnce/ReadWriteOncePod, volumeMode
 * Block, a data source, a size it cannot hold, an unknown fsType. *ret_bytes is the request. */
char *pv_claim_refusal(const json_t *claim, const json_t *sc, int64_t *ret_bytes);

/* The PersistentVolume external-provisioner would create for claim of class sc backed by a
 * volume of capacity_bytes: name "pvc-<uid>", provisioned-by annotation, the provisioner's
 * finalizer, claimRef, class, reclaim policy, access modes, volume mode, mount options,
 * capacity (BinarySI), csi {driver PV_LOCAL_LOOP_DRIVER, volumeHandle = name, fsType}, and
 * node affinity to node
 * (kubernetes.io/hostname) when node is not NULL. New reference. */
json_t *pv_build_volume(const json_t *claim, const json_t *sc, int64_t capacity_bytes,
                        const char *node);

/* What the provisioner does next for one of its volumes. */
enum pv_volume_step {
        PV_VOLUME_NOTHING,
        PV_VOLUME_BOUND,    /* its claim is bound to it: phase Bound */
        PV_VOLUME_RELEASE,  /* its claim is gone: phase Released */
        PV_VOLUME_DELETE,   /* Released with reclaimPolicy Delete: remove the file, the PV */
        PV_VOLUME_FINALIZE, /* deleted by someone: remove the file (Delete), drop the finalizer */
        PV_VOLUME_STEP_MAX,
};
const char *pv_volume_step_to_string(enum pv_volume_step s);
/* Decides for pv (one this provisioner made) given the claim its claimRef names (NULL: none).
 * K8S: syncVolume and external-provisioner's shouldDelete. */
enum pv_volume_step pv_volume_next(const json_t *pv, const json_t *claim);

/* ---- the controller ---- */

struct pv_provisioner;
struct pv_driver;

/* Starts the provisioner. driver (copied; NULL: none) reaches the files of the node in this
 * process, where Immediate claims' volumes go; the volumes of other nodes are made, and every
 * volume's file removed, by their node. */
int pv_provisioner_start(const struct api_client_options *o, const struct pv_driver *driver,
                         struct pv_provisioner **ret, struct error **reterr);
/* Stops it (the pass thread ends after the step it is in); NULL-safe, returns NULL. */
struct pv_provisioner *pv_provisioner_stop(struct pv_provisioner *p);

#endif
