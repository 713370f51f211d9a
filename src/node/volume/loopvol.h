/* loopvol.h: file-backed block volumes on this node, the building block of flexlet's local
 * persistent volumes: a sparse file formatted ext4, xfs or btrfs, attached to a loop device,
 * mounted, grown in place (file, then device, then filesystem: online where the kernel allows it,
 * offline otherwise), measured, and removed. It knows nothing of claims, PVs or pods.
 *
 * A volume is named by the absolute path of its backing file. The loop device is never
 * remembered: every call finds it again from the file's inode (/sys/block/loop*, then
 * LOOP_GET_STATUS64), so a caller that crashed between any two steps calls the same functions
 * again and they pick up where the kernel is ("level-based"). Devices are attached without
 * LO_FLAGS_AUTOCLEAR on purpose: an attached volume must survive the agent (and the time between
 * attach and mount, and the offline tools, each of which would be the "last close" that
 * autoclear tears the device down on); re-attaching finds the existing device instead of binding
 * a second one, and loopvol_remove detaches whatever is left.
 *
 * Root only (loop-control, mount(2)). The filesystem tools (e2fsprogs, xfsprogs, btrfs-progs)
 * run as child processes, without a shell, with LC_ALL=C and a fixed PATH; their output is kept
 * for error messages only. Calls for different volumes may run concurrently; calls for one
 * volume must be serialized by the caller (attach also takes flock(2) on the file, so two
 * attaches never bind two devices).
 *
 * Errors: -errno, with *reterr reading "<action> volume "<file>"[ on "<device>"]: <cause>", the
 * cause in the kernel's words (strerror) or the tool's (its stderr, else its stdout, on one
 * line). */
#ifndef FLEXLET_NODE_VOLUME_LOOPVOL_H
#define FLEXLET_NODE_VOLUME_LOOPVOL_H

#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"

enum loopvol_fstype {
        LOOPVOL_FS_EXT4,
        LOOPVOL_FS_XFS,
        LOOPVOL_FS_BTRFS,
        LOOPVOL_FS_MAX,
};

/* "ext4", "xfs", "btrfs" (StorageClass parameters.fsType); NULL if out of range. */
const char *loopvol_fstype_to_string(enum loopvol_fstype t);
/* Inverse of loopvol_fstype_to_string (exact, case-sensitive); -EINVAL for anything else. */
int loopvol_fstype_from_string(const char *s, enum loopvol_fstype *ret);

/* Sizes are rounded up to this (a page, the filesystems' block size, a multiple of the loop
 * device's 512-byte sectors), so a volume is never smaller than asked. */
#define LOOPVOL_SIZE_ALIGN 4096
/* The largest volume: 16 TiB. */
#define LOOPVOL_SIZE_MAX ((int64_t) 1 << 44)

/* Creates the backing file of size_bytes (rounded up to LOOPVOL_SIZE_ALIGN) as a sparse file
 * (ftruncate) and formats it with fstype (mkfs.ext4 -q -F -m 0, mkfs.xfs -q -f,
 * mkfs.btrfs -q -f). The missing parents of file are made (0700). The file is built as
 * "<file>.tmp" and renamed into place once formatted and synced, so a crash never leaves a
 * half-formatted file under the final name. Idempotent: when file already holds an fstype
 * filesystem, nothing is done and 0 is returned (whatever its size: it may have grown).
 *  -EINVAL  fstype out of range, size_bytes <= 0 or > LOOPVOL_SIZE_MAX;
 *  -EEXIST  file exists but holds another filesystem or none;
 *  -EIO     mkfs failed (its words in the message, e.g. a size too small for xfs);
 *  -ENOENT  the mkfs tool is not installed. */
int loopvol_create(const char *file, int64_t size_bytes, enum loopvol_fstype fstype,
                   struct error **reterr);

/* The loop device bound to file ("/dev/loopN", owned by the caller): 1 and *ret_device when
 * found, 0 and *ret_device = NULL when the file is not attached, -errno when file cannot be
 * stat'ed (-ENOENT when it is missing). */
int loopvol_find_device(const char *file, char **ret_device, struct error **reterr);

/* Attaches file to a loop device and returns its path in *ret_device (owned by the caller).
 * When a device is already bound to file (attached before a crash), that one is returned and
 * nothing is bound: 0; a newly bound device: 1. Binds with LOOP_CTL_GET_FREE then LOOP_CONFIGURE
 * (Linux 5.8), falling back to LOOP_SET_FD + LOOP_SET_STATUS64 on older kernels; a device taken
 * by someone else between the two steps is skipped for the next free one. The device is
 * read-write, without autoclear, partition scan or direct I/O.
 *  -ENOENT  file is missing; -EINVAL  file is not a regular file. */
int loopvol_attach(const char *file, char **ret_device, struct error **reterr);
/* loopvol_attach without LOOP_CONFIGURE: what it does on kernels older than 5.8 (for tests). */
int loopvol_attach_legacy(const char *file, char **ret_device, struct error **reterr);

/* Detaches every loop device bound to file (LOOP_CLR_FD). Not attached, or file missing: 0.
 *  -EBUSY  a device is in use: mounted, or held open exclusively (the device is opened with
 *          O_EXCL first, which a mounted block device refuses). Nothing is detached lazily. */
int loopvol_detach(const char *file, struct error **reterr);

/* Mounts the attached volume at target with mount(2): fstype, MS_NODEV | MS_NOSUID. target and
 * its missing parents are made (0750). Idempotent: the volume already mounted exactly at target
 * is success.
 *  -ENXIO   file is not attached (loopvol_attach first);
 *  -EINVAL  the device holds another filesystem than fstype, or none ("holds "xfs", not "ext4"");
 *  -EBUSY   another filesystem is mounted exactly at target;
 *  other    mount(2)'s errno. */
int loopvol_mount(const char *file, const char *target, enum loopvol_fstype fstype,
                  struct error **reterr);

/* Unmounts what is mounted exactly at target (umount2 with UMOUNT_NOFOLLOW). Nothing mounted
 * there: 0. When the kernel refuses with EBUSY (a process has a file, or its working
 * directory, open there) the call fails with -EBUSY and the kernel's words, unless force: then
 * the mount is detached lazily (MNT_DETACH): it leaves the tree at once, and the device stays
 * busy (loopvol_detach refuses) until the last user goes. */
int loopvol_unmount(const char *target, bool force, struct error **reterr);

/* Controller side of an expansion: extends the backing file to new_size_bytes (rounded up to
 * LOOPVOL_SIZE_ALIGN; sparse, fsync'ed), then, if the volume is attached, makes the device
 * follow (LOOP_SET_CAPACITY) and checks its new size. The filesystem is not touched.
 * Idempotent: a file already that large is success (and a device that lags behind it, from a
 * crash between the two steps, is still brought up to it).
 *  -EINVAL  new_size_bytes below the file's size (never shrinks), <= 0 or > LOOPVOL_SIZE_MAX;
 *  -ENOENT  file is missing. */
int loopvol_grow_device(const char *file, int64_t new_size_bytes, struct error **reterr);

/* Results of loopvol_grow_fs (>= 0). */
enum loopvol_grow_result {
        LOOPVOL_GROW_NONE = 0,    /* the filesystem already filled the device */
        LOOPVOL_GROW_ONLINE = 1,  /* grown while mounted */
        LOOPVOL_GROW_OFFLINE = 2, /* grown unmounted */
};

/* Node side of an expansion: grows the filesystem of the attached volume to fill its device.
 *  Mounted (anywhere in this mount namespace): online. ext4: resize2fs <device>; xfs:
 *    xfs_growfs -d <mount point>; btrfs: btrfs filesystem resize max <mount point>.
 *  Not mounted: offline. ext4: e2fsck -f -p <device> (exit 0 or 1 is clean) then resize2fs
 *    <device>; xfs and btrfs only grow mounted, so the volume is mounted on "<file>.grow"
 *    (made 0700, and reused when a crash left it mounted), grown as above and unmounted.
 * Returns a loopvol_grow_result; when the filesystem already fills the device no tool runs.
 * After success loopvol_sizes says no growth is pending.
 *  -EOPNOTSUPP  the kernel refuses to grow this mounted filesystem (ext4 needs CAP_SYS_RESOURCE
 *               for EXT4_IOC_RESIZE_FS, or a kernel without online resize); the message carries
 *               resize2fs's words. K8S: the caller reports FileSystemResizePending and grows
 *               offline (unmount, loopvol_grow_fs, mount) at the next mount.
 *  -ENXIO       not attached;  -EMEDIUMTYPE  no ext4/xfs/btrfs on the device;
 *  -EIO         the tool failed (its words), or reported success and left the filesystem short. */
int loopvol_grow_fs(const char *file, struct error **reterr);

/* loopvol_grow_device then, when the volume is attached, loopvol_grow_fs; returns the latter's
 * result (LOOPVOL_GROW_NONE when not attached). */
int loopvol_grow(const char *file, int64_t new_size_bytes, struct error **reterr);

/* The filesystem mounted at mount_point as the kubelet reports it (kubelet_volume_stats_*;
 * K8S pkg/volume/util/fs.FsInfo): statfs's f_blocks, f_bavail and f_blocks - f_bfree times
 * f_bsize, and f_files, f_ffree, f_files - f_ffree. */
struct loopvol_stats {
        int64_t capacity_bytes;
        int64_t available_bytes;
        int64_t used_bytes;
        int64_t inodes;
        int64_t inodes_free;
        int64_t inodes_used;
};
/* -ENOENT when nothing is mounted exactly at mount_point (statfs would measure the parent). */
int loopvol_stats(const char *mount_point, struct loopvol_stats *ret, struct error **reterr);

/* What the volume's layers say about its size, to tell after a crash where an expansion
 * stopped: the file grown but not the device, or the device but not the filesystem. */
struct loopvol_sizes {
        enum loopvol_fstype fstype;
        int64_t file_bytes;     /* the backing file's st_size */
        int64_t device_bytes;   /* BLKGETSIZE64 of its loop device; -1 when not attached */
        int64_t fs_bytes;       /* the filesystem's own size: ext4 blocks count x block size,
                                 * xfs data blocks x block size, btrfs total_bytes; read from
                                 * the mounted filesystem (ioctl, or the superblock through the
                                 * device's page cache for ext4) when mounted, from the
                                 * superblock on disk otherwise */
        int64_t fs_slack_bytes; /* the largest tail of a device its grow tool may leave unused
                                 * (ext4: the overhead of a block group plus 50 blocks, as
                                 * resize2fs drops a smaller last group; xfs: 64 blocks, its
                                 * smallest allocation group; btrfs: one sector) */
        bool mounted;           /* the device is mounted somewhere */
};
/* -ENOENT file missing; -EMEDIUMTYPE no ext4/xfs/btrfs in it. */
int loopvol_sizes(const char *file, struct loopvol_sizes *ret, struct error **reterr);
/* Whether the filesystem is short of its device (of the file when not attached) by more than
 * fs_slack_bytes: a growth its tool still has to make. False after loopvol_grow_fs succeeds. */
bool loopvol_fs_grow_pending(const struct loopvol_sizes *s);

/* Removes the volume: unmounts a "<file>.grow" left mounted by a crash, detaches every device
 * bound to file, deletes the file and a "<file>.tmp" left by a crashed create. Missing: 0.
 *  -EBUSY  the volume is still mounted (loopvol_unmount first); the file is kept. */
int loopvol_remove(const char *file, struct error **reterr);

#endif
