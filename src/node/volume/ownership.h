/* ownership.h: fsGroup ownership of a pod's volumes, as the kubelet's SetVolumeOwnership
 * (pkg/volume/volume_linux.go) applies it to the volumes that support ownership management
 * (emptyDir on disk and in memory, claims; never hostPath): every file and directory gets group
 * fsGroup (owner unchanged), read and write for the group (read only for a read-only volume),
 * and directories also the group's search bit and setgid, so what a container creates later
 * inherits the group.
 *
 * The tree below the volume's directory belongs to the pod and is hostile: the walk holds a
 * directory fd at each level and opens each entry from it with openat2 RESOLVE_BENEATH |
 * RESOLVE_NO_SYMLINKS | RESOLVE_NO_XDEV and O_PATH | O_NOFOLLOW, so a symbolic link is changed
 * itself (its group) and never followed, nothing is reached by a path walked again, and the walk
 * stays on the volume's filesystem (a mount point inside is skipped). It is bounded to
 * VOLUME_OWNERSHIP_MAX_DEPTH levels below the volume. Children are changed before their
 * directory and the volume's root last, so a walk that was interrupted is redone by
 * OnRootMismatch. Safe to call from several threads for different volumes. */
#ifndef FLEXLET_NODE_VOLUME_OWNERSHIP_H
#define FLEXLET_NODE_VOLUME_OWNERSHIP_H

#include <stdbool.h>
#include <sys/types.h>

#include "base/error.h"

/* Directory levels below the volume's root the walk descends; deeper is -ELOOP. */
#define VOLUME_OWNERSHIP_MAX_DEPTH 128

/* K8S v1.PodFSGroupChangePolicy */
enum volume_fsgroup_policy {
        VOLUME_FSGROUP_ALWAYS,           /* "Always" (also when unset): walk every time */
        VOLUME_FSGROUP_ON_ROOT_MISMATCH, /* "OnRootMismatch": skip when the root already fits */
        VOLUME_FSGROUP_POLICY_MAX,
};

/* "Always", "OnRootMismatch"; NULL if out of range. */
const char *volume_fsgroup_policy_to_string(enum volume_fsgroup_policy p);
/* Inverse of volume_fsgroup_policy_to_string; NULL is "Always"; -EINVAL for anything else. */
int volume_fsgroup_policy_from_string(const char *s, enum volume_fsgroup_policy *ret);

/* K8S requiresPermissionChange: whether the volume's root at dir lacks group gid, the group's
 * rw (r for read_only) and x bits, or setgid. A root that cannot be looked at needs the walk. */
bool volume_ownership_needed(const char *dir, gid_t gid, bool read_only);

/* K8S SetVolumeOwnership: with VOLUME_FSGROUP_ON_ROOT_MISMATCH returns 0 without a change when
 * volume_ownership_needed says no; otherwise walks the volume at dir (an absolute path the agent
 * owns, a directory and not a symbolic link, else -ENOTDIR) and returns 1. Every entry is
 * changed even when one fails; the first failure is then returned, with
 * `set fsGroup ownership of "<dir>": "<entry>": <cause>` in *reterr. Entries that vanish while
 * the walk runs are skipped. */
int volume_ownership_set(const char *dir, gid_t gid, enum volume_fsgroup_policy policy,
                         bool read_only, struct error **reterr);

#endif
