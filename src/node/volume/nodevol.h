/* nodevol.h: the owning node's part of flexlet's node-local volumes (flexlet.io/local-loop,
 * docs/storage.md "Volumes on their node"). The provisioner and the expander only write API
 * objects; the node a PersistentVolume is pinned to (its required nodeAffinity
 * kubernetes.io/hostname In [node], as upstream's node-local CSI drivers with topology pin
 * theirs) keeps the backing file DATA_DIR/volumes/<volumeHandle>.img:
 *  - makes and formats it before a pod of the node mounts the claim, when the provisioner could
 *    not (the volume is on another machine than the controllers), and records that in the
 *    volume (annotation NODEVOL_ANN_PROVISIONED_ON: its name), so a restart is idempotent and
 *    a file lost later is refused rather than made again empty;
 *  - grows it with the filesystem when its claim is handed over (pod-claims.c, loopvol_grow);
 *  - removes it once the volume is Released (or deleted) with reclaimPolicy Delete, then drops
 *    the provisioner's finalizer, after which the provisioner deletes the volume object.
 * The node's identity may read and update only volumes pinned to it, and update only that
 * annotation and that finalizer (authz-node.c, admission-noderestriction.c).
 *
 * Also the functions `flexlet serve` gives its controllers for the volumes of its own node
 * (nodevol_local_*): the controllers reach files only through them (controllers/pv-driver.h). */
#ifndef FLEXLET_NODE_VOLUME_NODEVOL_H
#define FLEXLET_NODE_VOLUME_NODEVOL_H

#include <jansson.h>
#include <stdint.h>

#include "base/error.h"

struct api_client;
struct metric;

/* The annotation recording that the node named by its value made the backing file. */
#define NODEVOL_ANN_PROVISIONED_ON "local-loop.flexlet.io/provisioned-on"
/* The provisioner's finalizer the node drops once it removed the file. */
#define NODEVOL_FINALIZER "external-provisioner.volume.kubernetes.io/finalizer"
/* The CSI driver name of the volumes. */
#define NODEVOL_DRIVER "local-loop.flexlet.io"

struct nodevol;

/* A node's volume keeper: node and data_dir copied; client (borrowed, must outlive it, used
 * from one thread at a time) is the node's API client. */
struct nodevol *nodevol_new(const char *node, const char *data_dir, struct api_client *client);
void nodevol_free(struct nodevol *nv);

/* Before a pod mounts the claim bound to pv: when pv is a local-loop volume pinned to this node
 * whose file is missing and that no node recorded, makes the file (capacity, fsType) and records
 * it; a file recorded and missing is refused (-EIO: its data is lost). A volume pinned to
 * another node: -EINVAL. Anything else: 0 untouched. *ret_pv (may be NULL) gets the volume as
 * the server answered the record (NULL when none was written). */
int nodevol_ensure(struct nodevol *nv, const json_t *pv, json_t **ret_pv, struct error **reterr);

/* One pass over the node's volume files: each whose volume (read with GET) is pinned to this
 * node, recorded by it, has reclaimPolicy Delete and is Released or Failed (or deleted and not
 * Bound) is removed (loopvol_remove: refused while mounted), then the provisioner's finalizer is
 * dropped. Failures are logged and retried at the next pass. */
void nodevol_sweep(struct nodevol *nv);

/* ---- serve's own node, called by its controllers (controllers/pv-driver.h) ---- */

/* loopvol_create of "<data_dir>/volumes/<handle>.img" with fstype ("ext4", "xfs", "btrfs"),
 * then its size in *ret_file_bytes. */
int nodevol_local_create(const char *data_dir, const char *handle, int64_t bytes,
                         const char *fstype, int64_t *ret_file_bytes, struct error **reterr);
/* loopvol_grow_device to bytes, then the file's size in *ret_file_bytes; recorded in ops
 * (NULL: not) as storage_operation_duration_seconds{operation_name="expand_volume"}. */
int nodevol_local_grow(const char *data_dir, const char *handle, int64_t bytes, struct metric *ops,
                       int64_t *ret_file_bytes, struct error **reterr);
/* The file's size; -ENOENT when missing. */
int nodevol_local_file_bytes(const char *data_dir, const char *handle, int64_t *ret);
/* Removes files "pvc-*.img" (and ".img.tmp") of data_dir/volumes whose handle is not a key of
 * handles and whose "pvc-<uid>" uid is not a key of uids, older than age_s seconds. */
void nodevol_local_sweep_orphans(const char *data_dir, const json_t *handles, const json_t *uids,
                                 int age_s);

#endif
