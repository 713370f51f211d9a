/* volume-binding.h: the scheduler's VolumeBinding plugin as pure decisions over a pod's
 * persistentVolumeClaim (and ephemeral) volumes, given the claims, volumes and classes of the
 * cluster: PreFilter (every claim exists, none is being deleted or Lost, none is an unbound
 * Immediate claim), Filter (a node the bound volumes' node affinity allows; for unbound
 * WaitForFirstConsumer claims the selected node if one is set, else a node the class can
 * provision on), the claims PreBind annotates with volume.kubernetes.io/selected-node, and the
 * check PreBind waits on (every such claim bound, its selected node kept). K8S:
 * pkg/scheduler/framework/plugins/volumebinding (volume_binding.go, binder.go). Static volumes
 * are not matched to unbound claims: flexlet does not bind them (docs/storage.md). */
#ifndef FLEXLET_CONTROLLERS_VOLUME_BINDING_H
#define FLEXLET_CONTROLLERS_VOLUME_BINDING_H

#include <jansson.h>
#include <stdbool.h>

/* The objects the decisions read, borrowed: maps keyed as informer_key() keys them. */
struct vb_objects {
        const json_t *claims;  /* "<namespace>/<name>" -> PersistentVolumeClaim */
        const json_t *volumes; /* "<name>" -> PersistentVolume */
        const json_t *classes; /* "<name>" -> StorageClass */
};

/* Filter failures, one bit each; their texts are upstream's ConflictReasons. */
enum vb_conflict {
        VB_NODE_CONFLICT = 1 << 0, /* "node(s) had volume node affinity conflict" */
        VB_BIND_CONFLICT = 1 << 1, /* "node(s) didn't find available persistent volumes to
                                      bind" */
        VB_PV_NOT_EXIST = 1 << 2,  /* "node(s) unavailable due to one or more pvc(s) bound to
                                      non-existent pv(s)" */
        VB_CONFLICT_ALL = (1 << 3) - 1,
};
/* The text of one bit of enum vb_conflict; NULL for anything else. */
const char *vb_conflict_to_string(unsigned bit);

/* K8S: the claim name of a pod volume: persistentVolumeClaim.claimName, or "<pod>-<volume>"
 * for an ephemeral volume (ephemeral.VolumeClaimName) into *ret_ephemeral. NULL (caller frees
 * otherwise) for any other volume. */
char *vb_volume_claim_name(const json_t *pod, const json_t *volume, bool *ret_ephemeral);

/* K8S: isPVCFullyBound: spec.volumeName set and the pv.kubernetes.io/bind-completed
 * annotation present. */
bool vb_claim_fully_bound(const json_t *claim);

/* PreFilter. NULL when the pod may be filtered; else upstream's reason (caller frees), in the
 * order of the pod's volumes:
 *   persistentvolumeclaim "x" not found
 *   waiting for ephemeral volume controller to create the persistentvolumeclaim "x"
 *   persistentvolumeclaim "x" bound to non-existent persistentvolume "pv"   (phase Lost)
 *   persistentvolumeclaim "x" is being deleted
 *   PVC ns/x was not created for pod ns/p (pod is not owner)                (ephemeral)
 *   pod has unbound immediate PersistentVolumeClaims
 * K8S: an unbound claim is Immediate when it has no class, its class does not exist, or the
 * class's volumeBindingMode is not WaitForFirstConsumer; a claim with spec.volumeName but not
 * fully bound (pre-bound) counts as Immediate too. */
char *volume_binding_prefilter(const json_t *pod, const struct vb_objects *o);

/* Filter, for a pod PreFilter let through: 0 when node fits the pod's claims, else the
 * enum vb_conflict bits. Bound claims: their volume must exist (VB_PV_NOT_EXIST) and its node
 * affinity hold (VB_NODE_CONFLICT). Unbound WaitForFirstConsumer claims: a selected-node
 * annotation naming another node (VB_BIND_CONFLICT, without looking further); otherwise the
 * class must name a provisioner (not kubernetes.io/no-provisioner) whose allowedTopologies the
 * node satisfies (VB_BIND_CONFLICT). */
unsigned volume_binding_filter(const json_t *pod, const json_t *node, const struct vb_objects *o);

/* The names of the pod's claims PreBind must have provisioned on the chosen node: its unbound
 * WaitForFirstConsumer claims (K8S: PodVolumes.DynamicProvisions). A new array (empty when
 * every claim is bound: the pod is bound at once). */
json_t *volume_binding_claims_to_provision(const json_t *pod, const struct vb_objects *o);

/* K8S checkBindings for the claims PreBind annotated on node_name (node NULL when that Node is
 * gone): claims maps each claim name (in the pod's namespace) to the resourceVersion the
 * scheduler's write gave it (informer_object_version; 0 when it wrote nothing); a claim older than
 * that has not come back through the watch yet and is waited for. Returns 1 when every one is fully
 * bound, 0 while it waits, -1 with *ret_error (caller frees; upstream's words after "binding
 * volumes: ") when scheduling must be retried: the node is gone, a claim is gone, a claim's
 * selected-node is no longer node_name (the provisioner gave up), or its volume's node affinity
 * excludes the node. */
int volume_binding_check(const json_t *pod, const char *node_name, const json_t *node,
                         const json_t *claims, const struct vb_objects *o, char **ret_error);

#endif
