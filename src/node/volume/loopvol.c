/* loopvol.c: file-backed loop volumes: the sparse file and its mkfs, the loop device found by
 * the file's inode and bound through loop-control, mount(2), the three layers of an expansion
 * (file, device, filesystem with its tool), superblock reading for sizes, and removal. It does
 * not decide when any of that happens (the provisioner, the expander and the agent do), nor
 * keep any state of its own: the kernel and the file are the state. */
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/btrfs.h>
#include <linux/fs.h>
#include <linux/loop.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "base/spawn.h"
#include "base/strbuf.h"
#include "node/volume/loopvol.h"
#include "node/volume/volume-internal.h"

/* Tool output kept for a message: the last this many bytes of each stream. */
#define TOOL_OUTPUT_MAX 8192
/* The longest tool output put into a message (longer output keeps its start and its end). */
#define TOOL_WORDS_MAX 1024
/* Loop devices tried when another process takes each free one first. */
#define ATTACH_ATTEMPTS 16
/* Devices bound to one file loopvol_detach clears at most. */
#define DETACH_MAX 64

/* The tools run with this PATH and nothing else from our environment. */
#define TOOL_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
static const char *const tool_dirs[] = {
        "/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin",
};

static const char *const fstype_names[LOOPVOL_FS_MAX] = {
        [LOOPVOL_FS_EXT4] = "ext4",
        [LOOPVOL_FS_XFS] = "xfs",
        [LOOPVOL_FS_BTRFS] = "btrfs",
};

/* XFS_IOC_FSGEOMETRY_V1 (xfs_fs.h, part of the kernel ABI; xfslibs-dev is not a dependency). */
struct xfs_geom_v1 {
        uint32_t blocksize;
        uint32_t rtextsize;
        uint32_t agblocks;
        uint32_t agcount;
        uint32_t logblocks;
        uint32_t sectsize;
        uint32_t inodesize;
        uint32_t imaxpct;
        uint64_t datablocks;
        uint64_t rtblocks;
        uint64_t rtextents;
        uint64_t logstart;
        unsigned char uuid[16];
        uint32_t sunit;
        uint32_t swidth;
        int32_t version;
        uint32_t flags;
        uint32_t logsectsize;
        uint32_t rtsectsize;
        uint32_t dirblocksize;
};
_Static_assert(sizeof(struct xfs_geom_v1) == 112, "xfs_fsop_geom_v1 is 112 bytes");
#define XFS_IOC_FSGEOMETRY_V1 _IOR('X', 100, struct xfs_geom_v1)
/* xfs_growfs drops a last allocation group smaller than this many blocks (XFS_MIN_AG_BLOCKS). */
#define XFS_MIN_AG_BLOCKS 64

const char *loopvol_fstype_to_string(enum loopvol_fstype t)
{
        if ((unsigned) t >= LOOPVOL_FS_MAX)
                return NULL;
        return fstype_names[t];
}

int loopvol_fstype_from_string(const char *s, enum loopvol_fstype *ret)
{
        for (size_t i = 0; s && i < LOOPVOL_FS_MAX; i++) {
                if (streq(s, fstype_names[i])) {
                        *ret = (enum loopvol_fstype) i;
                        return 0;
                }
        }
        return -EINVAL;
}

/* Rounds a requested size up to LOOPVOL_SIZE_ALIGN; -EINVAL when out of range. */
static int align_size(int64_t size, int64_t *ret)
{
        if (size <= 0 || size > LOOPVOL_SIZE_MAX)
                return -EINVAL;
        *ret = (size + LOOPVOL_SIZE_ALIGN - 1) / LOOPVOL_SIZE_ALIGN * LOOPVOL_SIZE_ALIGN;
        return 0;
}

/* --- running the filesystem tools --- */

struct tool {
        const char *name;
        const char *package;
};

static const struct tool tools[] = {
        { "mkfs.ext4", "e2fsprogs" }, { "e2fsck", "e2fsprogs" },    { "resize2fs", "e2fsprogs" },
        { "mkfs.xfs", "xfsprogs" },   { "xfs_growfs", "xfsprogs" }, { "mkfs.btrfs", "btrfs-progs" },
        { "btrfs", "btrfs-progs" },
};

static const char *tool_package(const char *name)
{
        for (size_t i = 0; i < ARRAY_SIZE(tools); i++) {
                if (streq(tools[i].name, name))
                        return tools[i].package;
        }
        return "?";
}

static char *tool_find(const char *name)
{
        for (size_t i = 0; i < ARRAY_SIZE(tool_dirs); i++) {
                char *p = xasprintf("%s/%s", tool_dirs[i], name);

                if (access(p, X_OK) == 0)
                        return p;
                free(p);
        }
        return NULL;
}

/* The tool's words on one line: its non-blank lines, trimmed, joined by "; ", up to a line
 * starting "Usage:" (mkfs.xfs follows its cause with two screens of usage). Longer than
 * TOOL_WORDS_MAX: its start and its end, where tools say what failed and why. */
static char *tool_words(const char *text)
{
        struct strbuf sb;
        const char *p = text;

        strbuf_init(&sb);
        while (*p) {
                const char *eol = strchrnul(p, '\n');
                const char *a = p, *b = eol;

                while (a < b && (*a == ' ' || *a == '\t' || *a == '\r'))
                        a++;
                while (b > a && (b[-1] == ' ' || b[-1] == '\t' || b[-1] == '\r'))
                        b--;
                if (sb.len && (size_t) (b - a) >= strlen("Usage:") &&
                    memcmp(a, "Usage:", strlen("Usage:")) == 0)
                        break;
                if (b > a) {
                        if (sb.len)
                                strbuf_addstr(&sb, "; ");
                        strbuf_add(&sb, a, (size_t) (b - a));
                }
                p = *eol ? eol + 1 : eol;
        }
        if (sb.len > TOOL_WORDS_MAX) {
                char *cut = xasprintf("%.*s ... %s", TOOL_WORDS_MAX / 2, sb.buf,
                                      sb.buf + sb.len - TOOL_WORDS_MAX / 2);

                strbuf_release(&sb);
                return cut;
        }
        return strbuf_detach(&sb);
}

/* Runs argv (argv[0] a tool's name, looked up in TOOL_PATH) with stdin on /dev/null, LC_ALL=C,
 * the default signal mask and dispositions, and no descriptor but 0-2. On return *ret_exit is
 * its exit status (128 + the signal if it was killed) and *ret_words its stderr, or its stdout
 * when stderr said nothing, on one line. -errno only when it could not run. */
static int tool_run(const char *const *argv, int *ret_exit, char **ret_words, struct error **reterr)
{
        static char *const envp[] = { "PATH=" TOOL_PATH, "LC_ALL=C", NULL };
        static const struct spawn_options options = { .output_max = TOOL_OUTPUT_MAX,
                                                      .keep_tail = true };
        cleanup_free char *path = tool_find(argv[0]);
        struct spawn_result o;
        int r;

        if (!path)
                return error_set(reterr, ENOENT, "\"%s\" not found in %s (install %s)", argv[0],
                                 TOOL_PATH, tool_package(argv[0]));
        r = spawn_run(path, (char *const *) argv, envp, &options, &o, reterr);
        if (r == 0) {
                *ret_exit = o.status;
                *ret_words = tool_words(o.err.len ? o.err.buf : o.out.buf);
        }
        strbuf_release(&o.out);
        strbuf_release(&o.err);
        return r;
}

/* Runs argv; exit 0 (or <= ok_max) is success. Otherwise -EIO with "<what>: <tool> exited
 * with status N: <words>". */
static int tool_check(const char *const *argv, int ok_max, const char *what, struct error **reterr)
{
        cleanup_free char *words = NULL;
        int code, r;

        r = tool_run(argv, &code, &words, reterr);
        if (r < 0)
                return error_wrap(reterr, "%s", what);
        if (code > ok_max)
                return error_set(reterr, EIO, "%s: %s exited with status %d: %s", what, argv[0],
                                 code, words);
        return 0;
}

/* --- superblocks --- */

struct fs_geometry {
        enum loopvol_fstype fstype;
        int64_t bytes;
        int64_t slack;
};

static uint16_t get_le16(const unsigned char *p)
{
        uint16_t v;

        memcpy(&v, p, sizeof(v));
        return le16toh(v);
}

static uint32_t get_le32(const unsigned char *p)
{
        uint32_t v;

        memcpy(&v, p, sizeof(v));
        return le32toh(v);
}

static uint64_t get_le64(const unsigned char *p)
{
        uint64_t v;

        memcpy(&v, p, sizeof(v));
        return le64toh(v);
}

static uint32_t get_be32(const unsigned char *p)
{
        uint32_t v;

        memcpy(&v, p, sizeof(v));
        return be32toh(v);
}

static uint64_t get_be64(const unsigned char *p)
{
        uint64_t v;

        memcpy(&v, p, sizeof(v));
        return be64toh(v);
}

#define EXT4_SB_OFFSET      1024
#define EXT4_MAGIC          0xEF53
#define EXT4_INCOMPAT_64BIT 0x80
#define XFS_MAGIC           0x58465342 /* "XFSB" */
#define BTRFS_SB_OFFSET     65536
#define BTRFS_MAGIC_STR     "_BHRfS_M"
#define SB_READ_SIZE        4096

/* ext4 (Documentation/filesystems/ext4/super.rst): little-endian fields of the superblock at
 * byte 1024. The slack is what resize2fs's adjust_superblock may leave: a last group with fewer
 * than its overhead (backup superblock and descriptors, reserved GDT blocks, two bitmaps, the
 * inode table) plus 50 blocks is dropped. */
static bool parse_ext4(const unsigned char *sb, struct fs_geometry *g)
{
        uint32_t log = get_le32(sb + 0x18), per_group = get_le32(sb + 0x20);
        uint32_t first = get_le32(sb + 0x14), ipg = get_le32(sb + 0x28);
        uint32_t incompat = get_le32(sb + 0x60), rev = get_le32(sb + 0x4C);
        uint64_t blocks = get_le32(sb + 0x04), bs, groups, desc_size = 32, inode_size = 128;
        uint64_t overhead;

        if (get_le16(sb + 0x38) != EXT4_MAGIC || log > 6 || per_group == 0)
                return false;
        bs = (uint64_t) 1024 << log;
        if (incompat & EXT4_INCOMPAT_64BIT) {
                blocks |= (uint64_t) get_le32(sb + 0x150) << 32;
                if (get_le16(sb + 0xFE) >= 32)
                        desc_size = get_le16(sb + 0xFE);
        }
        if (rev >= 1 && get_le16(sb + 0x58) >= 128)
                inode_size = get_le16(sb + 0x58);
        if (blocks <= first || blocks > (uint64_t) LOOPVOL_SIZE_MAX / bs)
                return false;
        groups = (blocks - first + per_group - 1) / per_group;
        overhead = 1 + (groups * desc_size + bs - 1) / bs + get_le16(sb + 0xCE) + 2 +
                   ((uint64_t) ipg * inode_size + bs - 1) / bs + 50;
        g->fstype = LOOPVOL_FS_EXT4;
        g->bytes = (int64_t) (blocks * bs);
        g->slack = (int64_t) (overhead * bs);
        return true;
}

/* xfs (xfs_format.h): big-endian, magic at 0, sb_blocksize at 4, sb_dblocks at 8. */
static bool parse_xfs(const unsigned char *sb, struct fs_geometry *g)
{
        uint32_t bs = get_be32(sb + 4);
        uint64_t blocks = get_be64(sb + 8);

        if (get_be32(sb) != XFS_MAGIC || bs < 512 || bs > 65536 ||
            blocks > (uint64_t) LOOPVOL_SIZE_MAX / bs)
                return false;
        g->fstype = LOOPVOL_FS_XFS;
        g->bytes = (int64_t) (blocks * bs);
        g->slack = (int64_t) XFS_MIN_AG_BLOCKS * bs;
        return true;
}

/* btrfs (btrfs_tree.h, struct btrfs_super_block at 64 KiB): magic at 0x40, total_bytes at
 * 0x70, sectorsize at 0x90, little-endian. */
static bool parse_btrfs(const unsigned char *sb, struct fs_geometry *g)
{
        uint64_t total = get_le64(sb + 0x70);
        uint32_t sector = get_le32(sb + 0x90);

        if (memcmp(sb + 0x40, BTRFS_MAGIC_STR, 8) != 0 || sector < 512 || sector > 65536 ||
            total > (uint64_t) LOOPVOL_SIZE_MAX)
                return false;
        g->fstype = LOOPVOL_FS_BTRFS;
        g->bytes = (int64_t) total;
        g->slack = sector;
        return true;
}

/* Reads SB_READ_SIZE bytes at off into the aligned buf; a short read (a small file) leaves the
 * rest zero. */
static int read_block(int fd, off_t off, unsigned char *buf)
{
        size_t got = 0;

        memset(buf, 0, SB_READ_SIZE);
        while (got < SB_READ_SIZE) {
                ssize_t n = pread(fd, buf + got, SB_READ_SIZE - got, off + (off_t) got);

                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0)
                        break;
                got += (size_t) n;
        }
        return 0;
}

/* Which filesystem path (a file or a device) holds, from its superblocks. With direct, the
 * device is read with O_DIRECT: what is on disk, not in a page cache a filesystem writing
 * through its own buffers (xfs) may have left stale. 0 found, -EMEDIUMTYPE nothing known. */
static int probe_path(const char *path, bool direct, struct fs_geometry *ret)
{
        cleanup_close int fd = -1;
        unsigned char *buf = NULL;
        int r;

        fd = open(path, O_RDONLY | O_CLOEXEC | (direct ? O_DIRECT : 0));
        if (fd < 0)
                return -errno;
        if (posix_memalign((void **) &buf, SB_READ_SIZE, SB_READ_SIZE) != 0)
                abort();
        r = read_block(fd, 0, buf);
        if (r >= 0) {
                if (parse_ext4(buf + EXT4_SB_OFFSET, ret) || parse_xfs(buf, ret))
                        goto out;
                r = read_block(fd, BTRFS_SB_OFFSET, buf);
                if (r >= 0 && parse_btrfs(buf, ret))
                        goto out;
                if (r >= 0)
                        r = -EMEDIUMTYPE;
        }
out:
        free(buf);
        return r;
}

/* The size of the filesystem mounted at mount_point, from the kernel's live view. ext4 has no
 * geometry ioctl, but its superblock buffer lives in the block device's page cache, so a
 * buffered read of the device sees what an online resize just wrote. */
static int probe_mounted(const char *device, const char *mount_point, struct fs_geometry *ret)
{
        cleanup_close int fd = -1;
        struct fs_geometry g;
        int r;

        r = probe_path(device, false, &g);
        if (r < 0)
                return r;
        if (g.fstype == LOOPVOL_FS_EXT4) {
                *ret = g;
                return 0;
        }
        fd = open(mount_point, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        if (g.fstype == LOOPVOL_FS_XFS) {
                struct xfs_geom_v1 geo = { 0 };

                if (ioctl(fd, XFS_IOC_FSGEOMETRY_V1, &geo) < 0)
                        return -errno;
                g.bytes = (int64_t) (geo.datablocks * geo.blocksize);
                g.slack = (int64_t) XFS_MIN_AG_BLOCKS * geo.blocksize;
        } else {
                struct btrfs_ioctl_fs_info_args fi = { 0 };
                int64_t total = 0;

                if (ioctl(fd, BTRFS_IOC_FS_INFO, &fi) < 0)
                        return -errno;
                for (uint64_t id = 1; id <= fi.max_id && id < 4096; id++) {
                        struct btrfs_ioctl_dev_info_args di = { .devid = id };

                        if (ioctl(fd, BTRFS_IOC_DEV_INFO, &di) < 0) {
                                if (errno == ENODEV)
                                        continue;
                                return -errno;
                        }
                        total += (int64_t) di.total_bytes;
                }
                g.bytes = total;
                g.slack = fi.sectorsize;
        }
        *ret = g;
        return 0;
}

/* --- loop devices --- */

/* The first loop device bound to the file st describes, and how many are (when ret_count). */
static int device_of(const struct stat *st, char **ret_device, unsigned *ret_count)
{
        DIR *d = opendir("/sys/block");
        struct dirent *de;
        char *found = NULL;
        unsigned count = 0;

        if (!d)
                return -errno;
        while ((de = readdir(d))) {
                struct loop_info64 info;
                char sys[PATH_MAX], dev[PATH_MAX];
                cleanup_close int fd = -1;
                unsigned n;
                char tail;

                if (sscanf(de->d_name, "loop%u%c", &n, &tail) != 1)
                        continue;
                /* only bound devices have a loop/ folder: don't open the idle ones */
                (void) snprintf(sys, sizeof(sys), "/sys/block/%s/loop", de->d_name);
                if (access(sys, F_OK) < 0)
                        continue;
                (void) snprintf(dev, sizeof(dev), "/dev/%s", de->d_name);
                fd = open(dev, O_RDONLY | O_CLOEXEC);
                if (fd < 0)
                        continue;
                /* ENXIO: cleared since; the path in backing_file may name another file now, the
                 * inode is what counts */
                if (ioctl(fd, LOOP_GET_STATUS64, &info) < 0)
                        continue;
                if (info.lo_inode != st->st_ino || info.lo_device != st->st_dev)
                        continue;
                count++;
                if (!found)
                        found = xstrdup(dev);
        }
        closedir(d);
        if (ret_count)
                *ret_count = count;
        if (!found) {
                *ret_device = NULL;
                return 0;
        }
        *ret_device = found;
        return 1;
}

static int stat_file(const char *file, const char *action, struct stat *st, struct error **reterr)
{
        if (stat(file, st) < 0)
                return error_set(reterr, errno, "%s volume \"%s\": %s", action, file,
                                 strerror(errno));
        if (!S_ISREG(st->st_mode))
                return error_set(reterr, EINVAL, "%s volume \"%s\": not a regular file", action,
                                 file);
        return 0;
}

static int find_device(const char *file, const char *action, char **ret_device,
                       struct error **reterr)
{
        struct stat st;
        int r;

        r = stat_file(file, action, &st, reterr);
        if (r < 0)
                return r;
        r = device_of(&st, ret_device, NULL);
        if (r < 0)
                return error_set(reterr, -r, "%s volume \"%s\": list loop devices: %s", action,
                                 file, strerror(-r));
        return r;
}

int loopvol_find_device(const char *file, char **ret_device, struct error **reterr)
{
        return find_device(file, "find device of", ret_device, reterr);
}

static int attach(const char *file, bool legacy, char **ret_device, struct error **reterr)
{
        cleanup_close int ffd = -1, lock = -1, ctl = -1;
        struct loop_info64 info = { 0 };
        struct stat st;
        char *existing = NULL;
        int r;

        r = stat_file(file, "attach", &st, reterr);
        if (r < 0)
                return r;
        ffd = open(file, O_RDWR | O_CLOEXEC);
        if (ffd < 0)
                return error_set(reterr, errno, "attach volume \"%s\": %s", file, strerror(errno));
        if (fstat(ffd, &st) < 0)
                return error_set(reterr, errno, "attach volume \"%s\": %s", file, strerror(errno));
        if (!S_ISREG(st.st_mode))
                return error_set(reterr, EINVAL, "attach volume \"%s\": not a regular file", file);
        /* two attaches of one file must not both see "not attached" and bind two devices.
         * The lock is taken through an open file of its own: the device keeps a reference to
         * ffd's, which would hold the lock for as long as the volume stays attached */
        lock = open(file, O_RDONLY | O_CLOEXEC);
        if (lock < 0)
                return error_set(reterr, errno, "attach volume \"%s\": %s", file, strerror(errno));
        while (flock(lock, LOCK_EX) < 0) {
                if (errno != EINTR)
                        return error_set(reterr, errno, "attach volume \"%s\": flock: %s", file,
                                         strerror(errno));
        }
        r = device_of(&st, &existing, NULL);
        if (r < 0)
                return error_set(reterr, -r, "attach volume \"%s\": list loop devices: %s", file,
                                 strerror(-r));
        if (r > 0) {
                *ret_device = existing;
                return 0;
        }

        ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
        if (ctl < 0)
                return error_set(reterr, errno,
                                 "attach volume \"%s\": open \"/dev/loop-control\": %s", file,
                                 strerror(errno));
        (void) snprintf((char *) info.lo_file_name, sizeof(info.lo_file_name), "%s", file);
        for (int attempt = 0; attempt < ATTACH_ATTEMPTS; attempt++) {
                cleanup_close int lfd = -1;
                char dev[64];
                int n = ioctl(ctl, LOOP_CTL_GET_FREE);

                if (n < 0)
                        return error_set(reterr, errno,
                                         "attach volume \"%s\": LOOP_CTL_GET_FREE: %s", file,
                                         strerror(errno));
                (void) snprintf(dev, sizeof(dev), "/dev/loop%d", n);
                lfd = open(dev, O_RDWR | O_CLOEXEC);
                if (lfd < 0)
                        return error_set(reterr, errno, "attach volume \"%s\": open \"%s\": %s",
                                         file, dev, strerror(errno));
                if (!legacy) {
                        struct loop_config cfg = { .fd = (uint32_t) ffd, .info = info };

                        if (ioctl(lfd, LOOP_CONFIGURE, &cfg) == 0) {
                                *ret_device = xstrdup(dev);
                                return 1;
                        }
                        if (errno == EBUSY)
                                continue; /* taken since GET_FREE */
                        /* kernels before 5.8 don't know LOOP_CONFIGURE */
                        if (errno != EINVAL && errno != ENOTTY)
                                return error_set(reterr, errno,
                                                 "attach volume \"%s\": LOOP_CONFIGURE \"%s\": %s",
                                                 file, dev, strerror(errno));
                }
                if (ioctl(lfd, LOOP_SET_FD, ffd) < 0) {
                        if (errno == EBUSY)
                                continue;
                        return error_set(reterr, errno,
                                         "attach volume \"%s\": LOOP_SET_FD \"%s\": %s", file, dev,
                                         strerror(errno));
                }
                if (ioctl(lfd, LOOP_SET_STATUS64, &info) < 0) {
                        int e = errno;

                        (void) ioctl(lfd, LOOP_CLR_FD, 0);
                        return error_set(reterr, e,
                                         "attach volume \"%s\": LOOP_SET_STATUS64 \"%s\": %s", file,
                                         dev, strerror(e));
                }
                *ret_device = xstrdup(dev);
                return 1;
        }
        return error_set(reterr, EBUSY,
                         "attach volume \"%s\": every free loop device was taken by someone "
                         "else %d times",
                         file, ATTACH_ATTEMPTS);
}

int loopvol_attach(const char *file, char **ret_device, struct error **reterr)
{
        return attach(file, false, ret_device, reterr);
}

int loopvol_attach_legacy(const char *file, char **ret_device, struct error **reterr)
{
        return attach(file, true, ret_device, reterr);
}

int loopvol_detach(const char *file, struct error **reterr)
{
        struct stat st;

        if (stat(file, &st) < 0) {
                if (errno == ENOENT)
                        return 0;
                return error_set(reterr, errno, "detach volume \"%s\": %s", file, strerror(errno));
        }
        for (int i = 0; i < DETACH_MAX; i++) {
                cleanup_free char *dev = NULL;
                cleanup_close int fd = -1;
                struct loop_info64 info;
                int r = device_of(&st, &dev, NULL);

                if (r < 0)
                        return error_set(reterr, -r, "detach volume \"%s\": list loop devices: %s",
                                         file, strerror(-r));
                if (r == 0)
                        return 0;
                /* O_EXCL on a block device fails with EBUSY while a filesystem has it mounted:
                 * without it LOOP_CLR_FD on a busy device would only mark it for autoclear */
                fd = open(dev, O_RDONLY | O_EXCL | O_CLOEXEC);
                if (fd < 0 && errno == EBUSY)
                        return error_set(reterr, EBUSY,
                                         "detach volume \"%s\" from \"%s\": the device is in use "
                                         "(mounted, or open for a filesystem tool)",
                                         file, dev);
                if (fd < 0)
                        return error_set(reterr, errno, "detach volume \"%s\": open \"%s\": %s",
                                         file, dev, strerror(errno));
                if (ioctl(fd, LOOP_GET_STATUS64, &info) < 0 || info.lo_inode != st.st_ino ||
                    info.lo_device != st.st_dev)
                        continue; /* cleared or rebound since we looked */
                if (ioctl(fd, LOOP_CLR_FD, 0) < 0 && errno != ENXIO)
                        return error_set(reterr, errno,
                                         "detach volume \"%s\" from \"%s\": LOOP_CLR_FD: %s", file,
                                         dev, strerror(errno));
                /* the kernel clears the device at our close, the last one */
        }
        return error_set(reterr, EBUSY, "detach volume \"%s\": still bound after %d detaches", file,
                         DETACH_MAX);
}

static int device_size(const char *dev, int64_t *ret)
{
        cleanup_close int fd = open(dev, O_RDONLY | O_CLOEXEC);
        uint64_t size;

        if (fd < 0)
                return -errno;
        if (ioctl(fd, BLKGETSIZE64, &size) < 0)
                return -errno;
        *ret = (int64_t) size;
        return 0;
}

/* --- mounts --- */

/* The mount of device (by its source path, or by its device number: btrfs shows an anonymous
 * one) in this mount namespace, other than at skip: 1 and its mount point, 0 none. */
static int mount_of(const char *device, const char *skip, char **ret_mount_point)
{
        FILE *f = fopen("/proc/self/mountinfo", "re");
        char *line = NULL;
        size_t cap = 0;
        struct stat st;
        bool have_rdev;

        if (!f)
                return -errno;
        have_rdev = stat(device, &st) == 0 && S_ISBLK(st.st_mode);
        *ret_mount_point = NULL;
        while (getline(&line, &cap, f) >= 0) {
                struct emptydir_mountinfo m = { 0 };
                bool ours;

                if (emptydir_mountinfo_parse_line(line, &m) < 0)
                        continue;
                ours = streq(m.source, device) ||
                       (have_rdev && m.major == major(st.st_rdev) && m.minor == minor(st.st_rdev));
                if (ours && !(skip && streq(m.mount_point, skip))) {
                        *ret_mount_point = TAKE_PTR(m.mount_point);
                        emptydir_mountinfo_release(&m);
                        break;
                }
                emptydir_mountinfo_release(&m);
        }
        free(line);
        fclose(f);
        return *ret_mount_point ? 1 : 0;
}

/* What is mounted exactly at path: 1 with *ret filled (release it), 0 nothing. */
static int mount_at(const char *path, struct emptydir_mountinfo *ret)
{
        FILE *f = fopen("/proc/self/mountinfo", "re");
        int r;

        if (!f)
                return -errno;
        r = emptydir_mountinfo_find(f, path, -1, ret);
        fclose(f);
        if (r == -ENOENT)
                return 0;
        return r < 0 ? r : 1;
}

int loopvol_mount(const char *file, const char *target, enum loopvol_fstype fstype,
                  struct error **reterr)
{
        cleanup_free char *dev = NULL;
        struct emptydir_mountinfo m = { 0 };
        struct fs_geometry g;
        struct stat st;
        int r;

        if ((unsigned) fstype >= LOOPVOL_FS_MAX)
                return error_set(reterr, EINVAL, "mount volume \"%s\": unknown fsType %d", file,
                                 (int) fstype);
        r = find_device(file, "mount", &dev, reterr);
        if (r < 0)
                return r;
        if (r == 0)
                return error_set(reterr, ENXIO, "mount volume \"%s\" at \"%s\": not attached", file,
                                 target);
        r = probe_path(dev, false, &g);
        if (r == -EMEDIUMTYPE)
                return error_set(reterr, EINVAL,
                                 "mount volume \"%s\" at \"%s\": \"%s\" holds no filesystem", file,
                                 target, dev);
        if (r < 0)
                return error_set(reterr, -r, "mount volume \"%s\" at \"%s\": read \"%s\": %s", file,
                                 target, dev, strerror(-r));
        if (g.fstype != fstype)
                return error_set(reterr, EINVAL,
                                 "mount volume \"%s\" at \"%s\": it holds \"%s\", not \"%s\"", file,
                                 target, fstype_names[g.fstype], fstype_names[fstype]);
        r = fs_mkdir_p(target, 0750);
        if (r < 0)
                return error_set(reterr, -r, "mount volume \"%s\": make \"%s\": %s", file, target,
                                 strerror(-r));
        r = mount_at(target, &m);
        if (r < 0)
                return error_set(reterr, -r, "mount volume \"%s\" at \"%s\": read mountinfo: %s",
                                 file, target, strerror(-r));
        if (r > 0) {
                bool same = streq(m.source, dev) ||
                            (stat(dev, &st) == 0 && m.major == major(st.st_rdev) &&
                             m.minor == minor(st.st_rdev));

                if (!same)
                        r = error_set(reterr, EBUSY,
                                      "mount volume \"%s\" at \"%s\": \"%s\" (%s) is mounted there",
                                      file, target, m.source, m.fstype);
                else
                        r = 0;
                emptydir_mountinfo_release(&m);
                return r;
        }
        if (mount(dev, target, fstype_names[fstype], MS_NODEV | MS_NOSUID, NULL) < 0)
                return error_set(reterr, errno, "mount volume \"%s\" (%s on \"%s\") at \"%s\": %s",
                                 file, fstype_names[fstype], dev, target, strerror(errno));
        return 0;
}

int loopvol_unmount(const char *target, bool force, struct error **reterr)
{
        struct emptydir_mountinfo m = { 0 };
        int r = mount_at(target, &m);

        if (r < 0)
                return error_set(reterr, -r, "unmount \"%s\": read mountinfo: %s", target,
                                 strerror(-r));
        if (r == 0)
                return 0;
        emptydir_mountinfo_release(&m);
        if (umount2(target, UMOUNT_NOFOLLOW) == 0)
                return 0;
        if (errno == EBUSY && force) {
                if (umount2(target, UMOUNT_NOFOLLOW | MNT_DETACH) == 0)
                        return 0;
        }
        if (errno == EBUSY)
                return error_set(reterr, EBUSY,
                                 "unmount \"%s\": %s (a process has a file or its working "
                                 "directory there)",
                                 target, strerror(EBUSY));
        return error_set(reterr, errno, "unmount \"%s\": %s", target, strerror(errno));
}

/* --- growing --- */

int loopvol_grow_device(const char *file, int64_t new_size_bytes, struct error **reterr)
{
        cleanup_free char *dev = NULL;
        cleanup_close int lfd = -1;
        int64_t want, have;
        struct stat st;
        int r;

        if (align_size(new_size_bytes, &want) < 0)
                return error_set(reterr, EINVAL, "grow volume \"%s\": invalid size %" PRId64, file,
                                 new_size_bytes);
        r = stat_file(file, "grow", &st, reterr);
        if (r < 0)
                return r;
        if (st.st_size > want)
                return error_set(reterr, EINVAL,
                                 "grow volume \"%s\" to %" PRId64 " bytes: it has %" PRId64
                                 " bytes, and volumes never shrink",
                                 file, want, (int64_t) st.st_size);
        if (st.st_size < want) {
                cleanup_close int fd = open(file, O_WRONLY | O_CLOEXEC);

                if (fd < 0)
                        return error_set(reterr, errno, "grow volume \"%s\": %s", file,
                                         strerror(errno));
                if (ftruncate(fd, want) < 0 || fsync(fd) < 0)
                        return error_set(reterr, errno,
                                         "grow volume \"%s\" to %" PRId64 " bytes: %s", file, want,
                                         strerror(errno));
        }
        r = find_device(file, "grow", &dev, reterr);
        if (r <= 0)
                return r;
        r = device_size(dev, &have);
        if (r < 0)
                return error_set(reterr, -r, "grow volume \"%s\": size of \"%s\": %s", file, dev,
                                 strerror(-r));
        if (have >= want)
                return 0;
        /* opened read-only: the kernel may refuse to open a mounted device for writing
         * (BLK_DEV_WRITE_MOUNTED); the loop ioctls need CAP_SYS_ADMIN then, which we have */
        lfd = open(dev, O_RDONLY | O_CLOEXEC);
        if (lfd < 0)
                return error_set(reterr, errno, "grow volume \"%s\": open \"%s\": %s", file, dev,
                                 strerror(errno));
        if (ioctl(lfd, LOOP_SET_CAPACITY, 0) < 0)
                return error_set(reterr, errno,
                                 "grow volume \"%s\" on \"%s\": LOOP_SET_CAPACITY: %s", file, dev,
                                 strerror(errno));
        r = device_size(dev, &have);
        if (r < 0)
                return error_set(reterr, -r, "grow volume \"%s\": size of \"%s\": %s", file, dev,
                                 strerror(-r));
        if (have < want)
                return error_set(reterr, EIO,
                                 "grow volume \"%s\": \"%s\" has %" PRId64
                                 " bytes after LOOP_SET_CAPACITY, not %" PRId64,
                                 file, dev, have, want);
        return 0;
}

/* The sizes of the volume whose loop device is dev (or NULL) mounted at mount_point (or NULL). */
static int geometry(const char *file, const char *dev, const char *mount_point,
                    struct fs_geometry *ret)
{
        if (mount_point)
                return probe_mounted(dev, mount_point, ret);
        if (dev)
                return probe_path(dev, true, ret);
        return probe_path(file, false, ret);
}

/* Whether the geometry g leaves more than its slack of a device of size bytes. */
static bool short_of(const struct fs_geometry *g, int64_t size)
{
        return size - g->bytes > g->slack;
}

static int grow_online(const char *file, const char *dev, const char *mount_point,
                       enum loopvol_fstype fstype, struct error **reterr)
{
        cleanup_free char *words = NULL;
        cleanup_free char *what = NULL;
        int code;

        what = xasprintf("grow %s filesystem of volume \"%s\" on \"%s\" mounted at \"%s\"",
                         fstype_names[fstype], file, dev, mount_point);
        if (fstype == LOOPVOL_FS_XFS) {
                const char *argv[] = { "xfs_growfs", "-d", mount_point, NULL };

                return tool_check(argv, 0, what, reterr);
        }
        if (fstype == LOOPVOL_FS_BTRFS) {
                const char *argv[] = { "btrfs", "filesystem", "resize", "max", mount_point, NULL };

                return tool_check(argv, 0, what, reterr);
        }
        {
                const char *argv[] = { "resize2fs", dev, NULL };
                int r = tool_run(argv, &code, &words, reterr);

                if (r < 0)
                        return error_wrap(reterr, "%s", what);
        }
        if (code == 0)
                return 0;
        /* resize2fs's words for EXT4_IOC_RESIZE_FS failing with EPERM (no CAP_SYS_RESOURCE)
         * or ENOTTY, and for a filesystem it cannot grow online (LC_ALL=C: stable text) */
        if (strstr(words, "Permission denied to resize filesystem") ||
            strstr(words, "Kernel does not support online resizing") ||
            strstr(words, "does not support online resizing"))
                return error_set(reterr, EOPNOTSUPP,
                                 "%s: the kernel refuses to grow it online: resize2fs exited with "
                                 "status %d: %s",
                                 what, code, words);
        return error_set(reterr, EIO, "%s: resize2fs exited with status %d: %s", what, code, words);
}

static int grow_offline(const char *file, const char *dev, enum loopvol_fstype fstype,
                        const char *tmp_mount, struct error **reterr)
{
        cleanup_free char *what = xasprintf("grow %s filesystem of volume \"%s\" on \"%s\" offline",
                                            fstype_names[fstype], file, dev);
        int r;

        if (fstype == LOOPVOL_FS_EXT4) {
                const char *fsck[] = { "e2fsck", "-f", "-p", dev, NULL };
                const char *resize[] = { "resize2fs", dev, NULL };

                /* e2fsck: 0 clean, 1 errors corrected; 4 and up need a person */
                r = tool_check(fsck, 1, what, reterr);
                if (r < 0)
                        return r;
                return tool_check(resize, 0, what, reterr);
        }
        /* xfs and btrfs grow only mounted: a private mount point beside the file, unmounted
         * again whatever happens; a crash leaves it mounted, and the next call reuses it */
        if (mkdir(tmp_mount, 0700) < 0 && errno != EEXIST)
                return error_set(reterr, errno, "%s: make \"%s\": %s", what, tmp_mount,
                                 strerror(errno));
        {
                struct emptydir_mountinfo m = { 0 };

                r = mount_at(tmp_mount, &m);
                if (r > 0)
                        emptydir_mountinfo_release(&m);
        }
        if (r == 0 && mount(dev, tmp_mount, fstype_names[fstype], MS_NODEV | MS_NOSUID | MS_NOEXEC,
                            NULL) < 0) {
                r = error_set(reterr, errno, "%s: mount at \"%s\": %s", what, tmp_mount,
                              strerror(errno));
                (void) rmdir(tmp_mount);
                return r;
        }
        r = grow_online(file, dev, tmp_mount, fstype, reterr);
        if (umount2(tmp_mount, UMOUNT_NOFOLLOW) < 0 && r >= 0)
                return error_set(reterr, errno, "%s: unmount \"%s\": %s", what, tmp_mount,
                                 strerror(errno));
        (void) rmdir(tmp_mount);
        return r;
}

int loopvol_grow_fs(const char *file, struct error **reterr)
{
        cleanup_free char *dev = NULL, *mp = NULL, *tmp_mount = NULL;
        struct fs_geometry g, after;
        int64_t size;
        int r, result;

        r = find_device(file, "grow filesystem of", &dev, reterr);
        if (r < 0)
                return r;
        if (r == 0)
                return error_set(reterr, ENXIO, "grow filesystem of volume \"%s\": not attached",
                                 file);
        tmp_mount = xasprintf("%s.grow", file);
        r = device_size(dev, &size);
        if (r < 0)
                return error_set(reterr, -r, "grow filesystem of volume \"%s\": size of \"%s\": %s",
                                 file, dev, strerror(-r));
        r = mount_of(dev, tmp_mount, &mp);
        if (r < 0)
                return error_set(reterr, -r, "grow filesystem of volume \"%s\": read mountinfo: %s",
                                 file, strerror(-r));
        if (mp) {
                /* a grow mount a crash left behind is not needed now that the volume is in use */
                (void) umount2(tmp_mount, UMOUNT_NOFOLLOW);
                (void) rmdir(tmp_mount);
        }
        r = geometry(file, dev, mp, &g);
        if (r == -EMEDIUMTYPE)
                return error_set(reterr, EMEDIUMTYPE,
                                 "grow filesystem of volume \"%s\": \"%s\" holds no ext4, xfs or "
                                 "btrfs filesystem",
                                 file, dev);
        if (r < 0)
                return error_set(reterr, -r, "grow filesystem of volume \"%s\" on \"%s\": %s", file,
                                 dev, strerror(-r));
        if (g.bytes >= size)
                return LOOPVOL_GROW_NONE;
        if (mp) {
                r = grow_online(file, dev, mp, g.fstype, reterr);
                result = LOOPVOL_GROW_ONLINE;
        } else {
                r = grow_offline(file, dev, g.fstype, tmp_mount, reterr);
                result = LOOPVOL_GROW_OFFLINE;
        }
        if (r < 0)
                return r;
        r = geometry(file, dev, mp, &after);
        if (r < 0)
                return error_set(reterr, -r,
                                 "grow filesystem of volume \"%s\" on \"%s\": read it back: %s",
                                 file, dev, strerror(-r));
        if (short_of(&after, size))
                return error_set(reterr, EIO,
                                 "grow filesystem of volume \"%s\" on \"%s\": the tool succeeded "
                                 "but the filesystem has %" PRId64 " of %" PRId64 " bytes",
                                 file, dev, after.bytes, size);
        /* a tail below the slack the tool left alone: nothing was grown */
        return after.bytes > g.bytes ? result : LOOPVOL_GROW_NONE;
}

int loopvol_grow(const char *file, int64_t new_size_bytes, struct error **reterr)
{
        cleanup_free char *dev = NULL;
        int r;

        r = loopvol_grow_device(file, new_size_bytes, reterr);
        if (r < 0)
                return r;
        r = find_device(file, "grow", &dev, reterr);
        if (r <= 0)
                return r;
        return loopvol_grow_fs(file, reterr);
}

/* --- measurements --- */

int loopvol_stats(const char *mount_point, struct loopvol_stats *ret, struct error **reterr)
{
        struct emptydir_mountinfo m = { 0 };
        struct statfs s;
        int r = mount_at(mount_point, &m);

        if (r < 0)
                return error_set(reterr, -r, "statfs \"%s\": read mountinfo: %s", mount_point,
                                 strerror(-r));
        if (r == 0)
                return error_set(reterr, ENOENT, "statfs \"%s\": nothing is mounted there",
                                 mount_point);
        emptydir_mountinfo_release(&m);
        if (statfs(mount_point, &s) < 0)
                return error_set(reterr, errno, "statfs \"%s\": %s", mount_point, strerror(errno));
        /* K8S pkg/volume/util/fs.FsInfo: every byte count is blocks times f_bsize */
        ret->capacity_bytes = (int64_t) s.f_blocks * s.f_bsize;
        ret->available_bytes = (int64_t) s.f_bavail * s.f_bsize;
        ret->used_bytes = ((int64_t) s.f_blocks - (int64_t) s.f_bfree) * s.f_bsize;
        ret->inodes = (int64_t) s.f_files;
        ret->inodes_free = (int64_t) s.f_ffree;
        ret->inodes_used = (int64_t) s.f_files - (int64_t) s.f_ffree;
        return 0;
}

int loopvol_sizes(const char *file, struct loopvol_sizes *ret, struct error **reterr)
{
        cleanup_free char *dev = NULL, *mp = NULL;
        struct loopvol_sizes s = { .device_bytes = -1 };
        struct fs_geometry g;
        struct stat st;
        int r;

        r = stat_file(file, "measure", &st, reterr);
        if (r < 0)
                return r;
        s.file_bytes = st.st_size;
        r = find_device(file, "measure", &dev, reterr);
        if (r < 0)
                return r;
        if (dev) {
                r = device_size(dev, &s.device_bytes);
                if (r < 0)
                        return error_set(reterr, -r, "measure volume \"%s\": size of \"%s\": %s",
                                         file, dev, strerror(-r));
                r = mount_of(dev, NULL, &mp);
                if (r < 0)
                        return error_set(reterr, -r, "measure volume \"%s\": read mountinfo: %s",
                                         file, strerror(-r));
        }
        r = geometry(file, dev, mp, &g);
        if (r == -EMEDIUMTYPE)
                return error_set(reterr, EMEDIUMTYPE,
                                 "measure volume \"%s\": no ext4, xfs or btrfs filesystem in it",
                                 file);
        if (r < 0)
                return error_set(reterr, -r, "measure volume \"%s\": read its filesystem: %s", file,
                                 strerror(-r));
        s.fstype = g.fstype;
        s.fs_bytes = g.bytes;
        s.fs_slack_bytes = g.slack;
        s.mounted = mp != NULL;
        *ret = s;
        return 0;
}

bool loopvol_fs_grow_pending(const struct loopvol_sizes *s)
{
        int64_t size = s->device_bytes >= 0 ? s->device_bytes : s->file_bytes;

        return size - s->fs_bytes > s->fs_slack_bytes;
}

/* --- create and remove --- */

static int fsync_parent(const char *file)
{
        cleanup_free char *dir = xstrdup(file);
        char *slash = strrchr(dir, '/');
        cleanup_close int fd = -1;

        if (!slash)
                return 0;
        if (slash == dir)
                slash[1] = '\0';
        else
                *slash = '\0';
        fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0 || fsync(fd) < 0)
                return -errno;
        return 0;
}

int loopvol_create(const char *file, int64_t size_bytes, enum loopvol_fstype fstype,
                   struct error **reterr)
{
        cleanup_free char *tmp = NULL, *dir = NULL;
        cleanup_close int fd = -1;
        struct fs_geometry g;
        int64_t size;
        char *slash;
        int r;

        if ((unsigned) fstype >= LOOPVOL_FS_MAX)
                return error_set(reterr, EINVAL, "create volume \"%s\": unknown fsType %d", file,
                                 (int) fstype);
        if (align_size(size_bytes, &size) < 0)
                return error_set(reterr, EINVAL,
                                 "create volume \"%s\": invalid size %" PRId64 " (1 to %" PRId64
                                 " bytes)",
                                 file, size_bytes, LOOPVOL_SIZE_MAX);
        r = probe_path(file, false, &g);
        if (r == 0 && g.fstype == fstype)
                return 0;
        if (r == 0)
                return error_set(reterr, EEXIST,
                                 "create volume \"%s\": it holds \"%s\", not \"%s\"", file,
                                 fstype_names[g.fstype], fstype_names[fstype]);
        if (r == -EMEDIUMTYPE)
                return error_set(reterr, EEXIST,
                                 "create volume \"%s\": the file exists and holds no filesystem",
                                 file);
        if (r != -ENOENT)
                return error_set(reterr, -r, "create volume \"%s\": %s", file, strerror(-r));

        dir = xstrdup(file);
        slash = strrchr(dir, '/');
        if (slash && slash != dir) {
                *slash = '\0';
                r = fs_mkdir_p(dir, 0700);
                if (r < 0)
                        return error_set(reterr, -r, "create volume \"%s\": make \"%s\": %s", file,
                                         dir, strerror(-r));
        }
        tmp = xasprintf("%s.tmp", file);
        fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0)
                return error_set(reterr, errno, "create volume \"%s\": create \"%s\": %s", file,
                                 tmp, strerror(errno));
        /* sparse: blocks are allocated as the filesystem writes them */
        if (ftruncate(fd, size) < 0) {
                r = error_set(reterr, errno, "create volume \"%s\": size %" PRId64 ": %s", file,
                              size, strerror(errno));
                goto fail;
        }
        {
                cleanup_free char *what =
                        xasprintf("create volume \"%s\": format %s", file, fstype_names[fstype]);
                const char *ext4[] = { "mkfs.ext4", "-q", "-F", "-m", "0", tmp, NULL };
                const char *xfs[] = { "mkfs.xfs", "-q", "-f", tmp, NULL };
                const char *btrfs[] = { "mkfs.btrfs", "-q", "-f", tmp, NULL };
                const char *const *argv = fstype == LOOPVOL_FS_EXT4  ? ext4
                                          : fstype == LOOPVOL_FS_XFS ? xfs
                                                                     : btrfs;

                /* K8S mount-utils formats ext4 with "-F -m0": no blocks reserved for root in
                 * a volume a pod owns */
                r = tool_check(argv, 0, what, reterr);
                if (r < 0)
                        goto fail;
        }
        if (fsync(fd) < 0) {
                r = error_set(reterr, errno, "create volume \"%s\": fsync: %s", file,
                              strerror(errno));
                goto fail;
        }
        if (rename(tmp, file) < 0) {
                r = error_set(reterr, errno, "create volume \"%s\": rename \"%s\": %s", file, tmp,
                              strerror(errno));
                goto fail;
        }
        r = fsync_parent(file);
        if (r < 0)
                return error_set(reterr, -r, "create volume \"%s\": fsync its folder: %s", file,
                                 strerror(-r));
        return 0;
fail:
        (void) unlink(tmp);
        return r;
}

int loopvol_remove(const char *file, struct error **reterr)
{
        cleanup_free char *tmp_mount = xasprintf("%s.grow", file);
        cleanup_free char *tmp = xasprintf("%s.tmp", file);
        struct emptydir_mountinfo m = { 0 };
        int r;

        r = mount_at(tmp_mount, &m);
        if (r > 0) {
                emptydir_mountinfo_release(&m);
                if (umount2(tmp_mount, UMOUNT_NOFOLLOW) < 0)
                        return error_set(reterr, errno, "remove volume \"%s\": unmount \"%s\": %s",
                                         file, tmp_mount, strerror(errno));
        }
        if (rmdir(tmp_mount) < 0 && errno != ENOENT)
                return error_set(reterr, errno, "remove volume \"%s\": remove \"%s\": %s", file,
                                 tmp_mount, strerror(errno));
        r = loopvol_detach(file, reterr);
        if (r < 0)
                return error_wrap(reterr, "remove volume \"%s\"", file);
        if (unlink(file) < 0 && errno != ENOENT)
                return error_set(reterr, errno, "remove volume \"%s\": %s", file, strerror(errno));
        if (unlink(tmp) < 0 && errno != ENOENT)
                return error_set(reterr, errno, "remove volume \"%s\": remove \"%s\": %s", file,
                                 tmp, strerror(errno));
        r = fsync_parent(file);
        if (r < 0 && r != -ENOENT)
                return error_set(reterr, -r, "remove volume \"%s\": fsync its folder: %s", file,
                                 strerror(-r));
        return 0;
}
