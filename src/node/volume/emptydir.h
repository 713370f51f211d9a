/* emptydir.h: emptyDir volumes on this host: a directory for medium "" (disk) and a tmpfs for
 * medium "Memory", sized by KEP-1967 and resized in place by KEP-6030 (a remount that keeps the
 * files). Also the measurements the agent reports and evicts on: a tmpfs's size and usage, a
 * disk emptyDir's usage as the kubelet's du measures it.
 *
 * Paths are absolute and belong to the agent (DATA_DIR/pods/<uid>/volumes/...); they are
 * trusted up to the volume's own directory, and nothing below it is: the walks never follow a
 * symlink and never leave the volume's filesystem. Every function is safe to call from several
 * threads at once for different paths. Errors come back as -errno with a message in *reterr
 * reading "<action> emptyDir volume "<path>"...: <cause>"; the agent prefixes the volume name. */
#ifndef FLEXLET_NODE_VOLUME_EMPTYDIR_H
#define FLEXLET_NODE_VOLUME_EMPTYDIR_H

#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"

enum emptydir_medium {
        EMPTYDIR_MEDIUM_DISK,   /* emptyDir.medium "" (StorageMediumDefault) */
        EMPTYDIR_MEDIUM_MEMORY, /* emptyDir.medium "Memory": tmpfs */
        EMPTYDIR_MEDIUM_MAX,
};

/* "" and "Memory" (v1.StorageMedium); NULL if out of range. */
const char *emptydir_medium_to_string(enum emptydir_medium m);
/* Inverse of emptydir_medium_to_string; NULL means "". -EOPNOTSUPP for the HugePages media
 * ("HugePages", "HugePages-<size>"), which flexlet does not run, -EINVAL for anything else. */
int emptydir_medium_from_string(const char *s, enum emptydir_medium *ret);

/* K8S (KEP-1967, calculateEmptyDirMemorySize): the size of a memory emptyDir is
 * min(node allocatable memory, pod memory limit, emptyDir.sizeLimit), where the pod limit counts
 * only if 0 < limit <= node allocatable and the sizeLimit only if 0 < sizeLimit <= the running
 * minimum. So a zero (or negative) sizeLimit is ignored, as upstream's "PodLocalLimit" case
 * shows, and so is a sizeLimit above the pod limit. pod_memory_limit_bytes is -1 when the pod
 * has no memory limit (some container lacks one; ResourceConfigForPod leaves it unset then).
 * size_limit is the emptyDir.sizeLimit quantity string or NULL; the comparison is exact (upstream
 * compares Quantities) and a fractional sizeLimit rounds up to whole bytes as Value() does. An
 * unparsable size_limit is ignored like an absent one: the API server validates it, so only a
 * corrupt object gets here. The result is node_allocatable_bytes itself when nothing smaller
 * applies; a result <= 0 means "no size= option" (the kernel's default, half of RAM), as
 * upstream's generateTmpfsMountOptions. */
int64_t emptydir_memory_size(int64_t node_allocatable_bytes, int64_t pod_memory_limit_bytes,
                             const char *size_limit);

/* Makes the volume at path ready; idempotent.
 *  DISK: mkdir -p (missing parents too) with mode 0777, then chmod 0777 if the umask took bits
 *        away, as the kubelet's setupDir.
 *  MEMORY: the same directory, then mount(2) "tmpfs" with MS_NOSUID|MS_NODEV and data
 *        "size=<size_bytes>,mode=0777" (just "mode=0777" when size_bytes <= 0, leaving the
 *        kernel's default of half of RAM, as upstream). If a tmpfs is
 *        already mounted exactly at path (per /proc/self/mountinfo), nothing is mounted: when its
 *        size differs from size_bytes (rounded up to the tmpfs block size, as the kernel does) it
 *        is resized with emptydir_resize (KEP-6030; a shrink below usage fails as there), and
 *        when size_bytes <= 0 any size is accepted. Another filesystem mounted exactly at path is
 *        refused with -EBUSY rather than hidden under a tmpfs.
 * The final component must be a directory, not a symlink (-ENOTDIR). */
int emptydir_setup(const char *path, enum emptydir_medium medium, int64_t size_bytes,
                   struct error **reterr);

/* KEP-6030: resizes the tmpfs mounted at path to new_size_bytes by MS_REMOUNT with the data
 * "size=<bytes>" only (other tmpfs options stay; the mount's nosuid/nodev/noexec/ro flags are
 * kept); the files stay. Errors:
 *  -EINVAL  new_size_bytes <= 0 ("addition or removal of size limit is not supported").
 *  -ENOENT  no tmpfs is mounted at path ("volume is not yet mounted"): retry after setup.
 *  -ENOSPC  the new size is below what the files use; the message is exactly
 *           `resize emptyDir volume "<path>" to <N> bytes: <M> bytes in use`. Usage is checked
 *           (statfs) before the remount; when files grow between that check and the remount the
 *           kernel refuses with EINVAL ("Too small size for current use"), which is reported the
 *           same way after a fresh statfs.
 *  other    the remount's own errno. */
int emptydir_resize(const char *path, int64_t new_size_bytes, struct error **reterr);

/* The size and usage of the tmpfs mounted at path, from statfs: f_blocks * f_frsize and
 * (f_blocks - f_bfree) * f_frsize. -ENOENT when no tmpfs is mounted exactly at path (a parent's
 * tmpfs does not count). A tmpfs mounted without size= has the kernel's default size, half of
 * RAM; one mounted with size=0 has no limit and keeps no block count: both are 0 then. */
int emptydir_size(const char *path, int64_t *ret_size_bytes, int64_t *ret_used_bytes,
                  struct error **reterr);

/* Most entries and directory levels emptydir_disk_usage looks at. */
#define EMPTYDIR_DU_MAX_ENTRIES (1 << 22)
#define EMPTYDIR_DU_MAX_DEPTH   256

/* The disk usage of the tree at path as the kubelet's du (`du -x -s -B 1`) measures it for
 * eviction: st_blocks * 512 of the directory and everything below it, an inode with several
 * hard links counted once, symlinks counted as themselves and never followed, mount points below
 * path skipped with their contents. Returns 0 with the total, or 1 when the walk stopped at
 * EMPTYDIR_DU_MAX_ENTRIES entries or EMPTYDIR_DU_MAX_DEPTH levels: *ret_bytes is then a lower
 * bound (still enough to evict on). Entries that vanish during the walk are skipped. */
int emptydir_disk_usage(const char *path, int64_t *ret_bytes, struct error **reterr);

/* Removes the volume at path; idempotent (a missing path is success).
 * Unmounts every tmpfs stacked exactly at path with umount2(UMOUNT_NOFOLLOW). When the unmount
 * fails with EBUSY (a process still holds a file or its cwd there), it is retried once after
 * 100ms and then detached with MNT_DETACH: the mount leaves the tree at once and the kernel frees
 * it when the last user goes, which is what a pod being torn down needs (its processes are
 * already dead or dying). A mount below the tmpfs also makes the unmount busy and is detached
 * with it. A different filesystem mounted exactly at path is left alone (-EBUSY).
 * Then removes the directory and everything in it (a disk emptyDir's files) with
 * openat/unlinkat(AT_REMOVEDIR): symlinks are removed, never followed; a mount point found
 * below path is not entered nor unmounted, it makes the call fail with -EBUSY after everything
 * else is gone. Any depth works: subtrees deeper than 64 levels are first moved up. */
int emptydir_teardown(const char *path, struct error **reterr);

/* Whether a tmpfs is mounted exactly at path (not merely below a tmpfs mounted higher up). */
bool emptydir_is_tmpfs_mount(const char *path);

#endif
