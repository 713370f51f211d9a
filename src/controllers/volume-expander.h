/* volume-expander.h: the control-plane half of growing a flexlet.io/local-loop volume, as an API
 * client: upstream's expand controller (the ExternalExpanding event) and external-resizer with
 * KEP-1790's recovery (expandAndRecover). When a bound claim asks for more than its
 * status.capacity, it records the size in status.allocatedResources with
 * ControllerResizeInProgress and the Resizing condition, grows the backing file and its loop
 * device (through the pv_driver, for the node in this process; a volume of another node is grown
 * by that node once handed over), sets the PersistentVolume's spec.capacity, and hands over to
 * the node with NodeResizePending and FileSystemResizePending (docs/storage.md: the hand-off).
 *
 * Level-based: every pass (on a watch event, and every 2 s for missed ones) decides each claim
 * afresh from the claim, its volume, its class and the file's size, so a controller killed
 * between any two steps resumes where the objects and the file say. Expansions run one at a
 * time in the pass thread: never two operations on one volume. */
#ifndef FLEXLET_CONTROLLERS_VOLUME_EXPANDER_H
#define FLEXLET_CONTROLLERS_VOLUME_EXPANDER_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"
#include "client/client.h"

/* K8S: v1.ClaimResourceStatus values (KEP-1790), status.allocatedResourceStatuses[storage]. */
#define PVC_CONTROLLER_RESIZE_IN_PROGRESS "ControllerResizeInProgress"
#define PVC_CONTROLLER_RESIZE_INFEASIBLE  "ControllerResizeInfeasible"
#define PVC_NODE_RESIZE_PENDING           "NodeResizePending"
#define PVC_NODE_RESIZE_IN_PROGRESS       "NodeResizeInProgress"
#define PVC_NODE_RESIZE_INFEASIBLE        "NodeResizeInfeasible"

/* K8S: v1.PersistentVolumeClaimConditionType values of a resize (knownResizeConditions). */
#define PVC_COND_RESIZING                   "Resizing"
#define PVC_COND_FILE_SYSTEM_RESIZE_PENDING "FileSystemResizePending"
#define PVC_COND_CONTROLLER_RESIZE_ERROR    "ControllerResizeError"
#define PVC_COND_NODE_RESIZE_ERROR          "NodeResizeError"

/* K8S (external-resizer markForPendingNodeExpansion): FileSystemResizePending's message. */
#define PVC_FS_RESIZE_PENDING_MESSAGE \
 "Waiting for user to (re-)start a pod to finish file system resize of volume on node."

/* How long a claim whose expansion was infeasible waits before the same size is tried again
 * (external-resizer's slow set); a changed request is tried at once. */
#define VOLUME_EXPANDER_SLOW_RETRY_MS (5 * 60 * 1000)

/* K8S pvcNeedResize: the claim is Bound, names its volume, and requests more storage than
 * status.capacity says it has. */
bool volume_expander_claim_needs_resize(const json_t *pvc);

struct volume_expand_input {
        const json_t *pvc; /* the claim */
        const json_t *pv;  /* the volume spec.volumeName names */
        const json_t *sc;  /* the claim's class, NULL when it does not exist */
        /* the backing file's size now (crash safety: a file grown before a crash counts), -1
         * when unknown */
        int64_t file_bytes;
        /* this process saw the last expansion of the claim end in a final error (upstream's
         * finalErrorPVCs) */
        bool final_error;
        /* the last expansion was infeasible and its slow retry has not come yet */
        bool slow;
};

enum volume_expand_step {
        VOLUME_EXPAND_NOTHING, /* nothing to do (not ours, not bound to the claim, the class
                                * forbids it, or the node's turn) */
        VOLUME_EXPAND_GROW,    /* grow the volume to plan.grow_to bytes */
        VOLUME_EXPAND_WAIT,    /* infeasible at this size: wait for the slow retry */
        VOLUME_EXPAND_STEP_MAX,
};
const char *volume_expand_step_to_string(enum volume_expand_step s);

struct volume_expand_plan {
        enum volume_expand_step step;
        /* GROW and WAIT: the size to reach, as the claim wrote it (borrowed from in->pvc): it
         * goes to status.allocatedResources[storage] */
        const char *size;
        int64_t size_bytes;
        /* GROW: what the file must reach: size_bytes, or the file's size when a crash left it
         * larger (volumes never shrink); the volume's new capacity is what the file then has */
        int64_t grow_to;
        /* GROW: set ControllerResizeInProgress (and drop the old resize conditions); false when
         * allocatedResources already holds size (upstream's updateStatus) */
        bool mark;
};

/* K8S: external-resizer's expandAndRecover (RecoverVolumeExpansionFailure, GA in 1.34) for a
 * claim that needs a resize: chooses the size from the volume's capacity, the request,
 * allocatedResources and allocatedResourceStatuses[storage]. Also NOTHING unless the volume is
 * a local-loop volume bound to this claim (claimRef namespace and uid) and the class allows
 * expansion. -EINVAL when a size does not parse. */
int volume_expander_plan(const struct volume_expand_input *in, struct volume_expand_plan *ret);

/* How a failed expansion counts (external-resizer's IsFinalError / IsResizeInfeasibleError
 * with errno standing for the gRPC code). */
enum volume_expand_error {
        VOLUME_EXPAND_ERROR_TRANSIENT,  /* may still be under way: retried, status kept */
        VOLUME_EXPAND_ERROR_FINAL,      /* ControllerResizeError condition */
        VOLUME_EXPAND_ERROR_INFEASIBLE, /* and ControllerResizeInfeasible, slow retry */
};
/* EINVAL, ERANGE, EFBIG, EOVERFLOW (InvalidArgument, OutOfRange) and ENOENT (NotFound):
 * infeasible; EAGAIN, EINTR, EBUSY, ETIMEDOUT, ENOSPC, EDQUOT (Unavailable, DeadlineExceeded,
 * Aborted, ResourceExhausted): transient; anything else: final. errnum is positive. */
enum volume_expand_error volume_expander_classify(int errnum);

/* K8S MergeResizeConditionsOfPVC: conditions of a type that is not a resize condition stay; an
 * old resize condition is replaced by a new one of its type, or dropped unless keep_old; new
 * conditions left over are appended. old and add are arrays (old may be NULL). New array. */
json_t *volume_expander_merge_conditions(const json_t *old, const json_t *add, bool keep_old);

/* The claim's status after each transition, as a modified deep copy of pvc (the caller PUTs it
 * to /status). now is an RFC 3339 time for lastTransitionTime. */
/* markControllerResizeInProgress: Resizing (old resize conditions dropped when mark, kept
 * otherwise), allocatedResourceStatuses[storage] = ControllerResizeInProgress when mark,
 * allocatedResources[storage] = size. */
json_t *volume_expander_mark_in_progress(const json_t *pvc, const char *size, bool mark,
                                         const char *now);
/* markForPendingNodeExpansion: FileSystemResizePending with its message (old resize conditions
 * kept), allocatedResourceStatuses[storage] = NodeResizePending. */
json_t *volume_expander_mark_node_pending(const json_t *pvc, const char *now);
/* markControllerExpansionInfeasible / markControllerExpansionFailedCondition:
 * ControllerResizeError "failed to expand pvc with <message>" (old resize conditions kept), and
 * allocatedResourceStatuses[storage] = ControllerResizeInfeasible when infeasible. */
json_t *volume_expander_mark_failed(const json_t *pvc, const char *message, bool infeasible,
                                    const char *now);

struct volume_expander;
struct pv_driver;

/* Starts the expander; driver (copied; NULL: none) grows the files of the node in this process
 * (and records storage_operation_duration_seconds{operation_name="expand_volume"}); the volumes
 * of other nodes are grown by their node once handed over. */
int volume_expander_start(const struct api_client_options *o, const struct pv_driver *driver,
                          struct volume_expander **ret, struct error **reterr);
/* Stops it (the pass thread ends after the step it is in); NULL-safe, returns NULL. */
struct volume_expander *volume_expander_stop(struct volume_expander *x);

#endif
