/* emptydir.c: emptyDir volumes on the host: the KEP-1967 size rule, the directory or tmpfs
 * behind a volume, its KEP-6030 remount, its measurements, its removal, and the mountinfo reader
 * those need. It does not decide when any of that happens (the pod worker does), nor the order
 * of a volume resize against the pod's cgroups (KEP-6030: the caller shrinks volumes before
 * cgroups and grows them after). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/quantity.h"
#include "base/strbuf.h"
#include "node/volume/emptydir.h"
#include "node/volume/volume-internal.h"

/* K8S: the kubelet makes emptyDir directories 0777 (defaultPerm in empty_dir.go). */
#define EMPTYDIR_PERM 0777
/* Levels emptydir_teardown descends before moving a subtree up to the volume's top. */
#define TEARDOWN_MAX_DEPTH 64
/* Passes over the volume's top emptydir_teardown makes at most (each one after a move). */
#define TEARDOWN_MAX_PASSES 100000
/* Unmounts of stacked tmpfs mounts at one path emptydir_teardown makes at most. */
#define TEARDOWN_MAX_UNMOUNTS 16

static const char *const medium_names[EMPTYDIR_MEDIUM_MAX] = {
        [EMPTYDIR_MEDIUM_DISK] = "",
        [EMPTYDIR_MEDIUM_MEMORY] = "Memory",
};

const char *emptydir_medium_to_string(enum emptydir_medium m)
{
        if ((unsigned) m >= EMPTYDIR_MEDIUM_MAX)
                return NULL;
        return medium_names[m];
}

int emptydir_medium_from_string(const char *s, enum emptydir_medium *ret)
{
        if (!s)
                s = "";
        for (size_t i = 0; i < EMPTYDIR_MEDIUM_MAX; i++) {
                if (streq(s, medium_names[i])) {
                        *ret = (enum emptydir_medium) i;
                        return 0;
                }
        }
        /* K8S: v1.StorageMediumHugePages and "HugePages-<size>" (IsHugePageMedium). */
        if (streq(s, "HugePages") || strncmp(s, "HugePages-", strlen("HugePages-")) == 0)
                return -EOPNOTSUPP;
        return -EINVAL;
}

int64_t emptydir_memory_size(int64_t node_allocatable_bytes, int64_t pod_memory_limit_bytes,
                             const char *size_limit)
{
        /* K8S (KEP-1967): the size defaults to node allocatable: pods cannot use more memory
         * than all pods together. */
        int64_t size = node_allocatable_bytes;
        struct quantity limit, current;
        int64_t v;

        /* K8S: the pod's cgroup memory limit counts when 0 < limit <= size. */
        if (pod_memory_limit_bytes > 0 && pod_memory_limit_bytes <= size)
                size = pod_memory_limit_bytes;
        /* K8S: emptyDir.sizeLimit counts when 0 < sizeLimit <= size, compared exactly. */
        if (!size_limit || quantity_parse(size_limit, &limit, NULL) < 0)
                return size;
        if (limit.negative || quantity_is_zero(&limit))
                return size;
        quantity_from_int64(size, QUANTITY_BINARY_SI, &current);
        if (quantity_cmp(&limit, &current) > 0)
                return size;
        /* Value() rounds a fraction up; it stays <= size, an integer. */
        if (quantity_value(&limit, &v) < 0)
                return size;
        return v;
}

/* ---- mountinfo ---- */

void emptydir_mountinfo_release(struct emptydir_mountinfo *m)
{
        if (!m)
                return;
        free(m->root);
        free(m->mount_point);
        free(m->mount_options);
        free(m->fstype);
        free(m->source);
        free(m->super_options);
        memset(m, 0, sizeof(*m));
}

static bool is_octal(char c)
{
        return c >= '0' && c <= '7';
}

int emptydir_mountinfo_unescape(const char *s, size_t len, char **ret)
{
        cleanup_free char *out = xmalloc(len + 1);
        size_t n = 0;

        for (size_t i = 0; i < len; i++) {
                unsigned int v;

                if (s[i] != '\\') {
                        if (s[i] == '\0')
                                return -EINVAL;
                        out[n++] = s[i];
                        continue;
                }
                if (len - i < 4 || !is_octal(s[i + 1]) || !is_octal(s[i + 2]) ||
                    !is_octal(s[i + 3]))
                        return -EINVAL;
                v = (unsigned int) (s[i + 1] - '0') * 64 + (unsigned int) (s[i + 2] - '0') * 8 +
                    (unsigned int) (s[i + 3] - '0');
                if (v == 0 || v > 255)
                        return -EINVAL;
                out[n++] = (char) v;
                i += 3;
        }
        out[n] = '\0';
        *ret = TAKE_PTR(out);
        return 0;
}

/* A decimal number without sign that fits in max. */
static int parse_uint(const char *s, unsigned long max, unsigned long *ret)
{
        char *end;
        unsigned long v;

        if (*s < '0' || *s > '9')
                return -EINVAL;
        errno = 0;
        v = strtoul(s, &end, 10);
        if (errno || *end || v > max)
                return -EINVAL;
        *ret = v;
        return 0;
}

/* Fields of a mountinfo line before and after the " - " separator. */
#define MOUNTINFO_FIXED_FIELDS 6
#define MOUNTINFO_TAIL_FIELDS  3

int emptydir_mountinfo_parse_line(const char *line, struct emptydir_mountinfo *ret)
{
        cleanup_free char *copy = xstrdup(line);
        struct emptydir_mountinfo m = { 0 };
        char *fields[MOUNTINFO_FIXED_FIELDS], *tail[MOUNTINFO_TAIL_FIELDS];
        char *save = NULL, *tok, *colon;
        unsigned long id, parent, major, minor;
        size_t len = strlen(copy), nfixed = 0, ntail = 0;
        bool after_dash = false;
        int r;

        if (len > 0 && copy[len - 1] == '\n')
                copy[--len] = '\0';
        /* The kernel separates fields by one space and escapes spaces inside them. */
        for (tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
                if (nfixed < MOUNTINFO_FIXED_FIELDS) {
                        fields[nfixed++] = tok;
                } else if (!after_dash) {
                        /* Optional fields ("shared:1", "master:2") up to the "-". */
                        if (streq(tok, "-"))
                                after_dash = true;
                } else if (ntail < MOUNTINFO_TAIL_FIELDS) {
                        tail[ntail++] = tok;
                } else {
                        return -EINVAL;
                }
        }
        if (nfixed < MOUNTINFO_FIXED_FIELDS || !after_dash || ntail < MOUNTINFO_TAIL_FIELDS)
                return -EINVAL;
        colon = strchr(fields[2], ':');
        if (!colon)
                return -EINVAL;
        *colon = '\0';
        if (parse_uint(fields[0], INT_MAX, &id) < 0 ||
            parse_uint(fields[1], INT_MAX, &parent) < 0 ||
            parse_uint(fields[2], UINT_MAX, &major) < 0 ||
            parse_uint(colon + 1, UINT_MAX, &minor) < 0)
                return -EINVAL;
        m.mount_id = (int) id;
        m.parent_id = (int) parent;
        m.major = (unsigned int) major;
        m.minor = (unsigned int) minor;
        if ((r = emptydir_mountinfo_unescape(fields[3], strlen(fields[3]), &m.root)) < 0 ||
            (r = emptydir_mountinfo_unescape(fields[4], strlen(fields[4]), &m.mount_point)) < 0 ||
            (r = emptydir_mountinfo_unescape(fields[5], strlen(fields[5]), &m.mount_options)) < 0 ||
            (r = emptydir_mountinfo_unescape(tail[0], strlen(tail[0]), &m.fstype)) < 0 ||
            (r = emptydir_mountinfo_unescape(tail[1], strlen(tail[1]), &m.source)) < 0 ||
            (r = emptydir_mountinfo_unescape(tail[2], strlen(tail[2]), &m.super_options)) < 0) {
                emptydir_mountinfo_release(&m);
                return r;
        }
        *ret = m;
        return 0;
}

int emptydir_mountinfo_find(FILE *f, const char *mount_point, int mount_id,
                            struct emptydir_mountinfo *ret)
{
        cleanup_free char *line = NULL;
        size_t cap = 0;
        ssize_t n;
        struct emptydir_mountinfo found = { 0 };
        bool have = false;

        while ((n = getline(&line, &cap, f)) >= 0) {
                struct emptydir_mountinfo m = { 0 };

                if (n > EMPTYDIR_MOUNTINFO_MAX_LINE)
                        continue;
                if (emptydir_mountinfo_parse_line(line, &m) < 0)
                        continue;
                if (mount_id >= 0) {
                        if (m.mount_id != mount_id) {
                                emptydir_mountinfo_release(&m);
                                continue;
                        }
                        /* The path's own mount: a mount point only if it sits right here. */
                        if (!streq(m.mount_point, mount_point)) {
                                emptydir_mountinfo_release(&m);
                                return -ENOENT;
                        }
                        *ret = m;
                        return 0;
                }
                if (!streq(m.mount_point, mount_point)) {
                        emptydir_mountinfo_release(&m);
                        continue;
                }
                emptydir_mountinfo_release(&found);
                found = m;
                have = true;
        }
        if (!have)
                return -ENOENT;
        *ret = found;
        return 0;
}

/* The mount sitting exactly at path (the top one when several are stacked). -ENOENT when path
 * is not a mount point, or another -errno when path cannot be looked at. */
static int mount_at(const char *path, struct emptydir_mountinfo *ret)
{
        cleanup_free char *canon = NULL;
        struct statx stx = { 0 };
        int mount_id = -1, r;
        FILE *f;

        /* mountinfo shows resolved paths: "a//b/../c" and symlinked parents must match too. */
        canon = realpath(path, NULL);
        if (!canon)
                return -errno;
        if (statx(AT_FDCWD, canon, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, STATX_MNT_ID, &stx) ==
                    0 &&
            (stx.stx_mask & STATX_MNT_ID) && stx.stx_mnt_id <= INT_MAX)
                mount_id = (int) stx.stx_mnt_id;
        f = fopen("/proc/self/mountinfo", "re");
        if (!f)
                return -errno;
        r = emptydir_mountinfo_find(f, canon, mount_id, ret);
        fclose(f);
        return r;
}

bool emptydir_is_tmpfs_mount(const char *path)
{
        struct emptydir_mountinfo m = { 0 };
        bool tmpfs;

        if (!path || mount_at(path, &m) < 0)
                return false;
        tmpfs = m.fstype && streq(m.fstype, "tmpfs");
        emptydir_mountinfo_release(&m);
        return tmpfs;
}

/* ---- sizes ---- */

static int64_t mul_capped(uint64_t a, uint64_t b)
{
        uint64_t p;

        if (__builtin_mul_overflow(a, b, &p) || p > INT64_MAX)
                return INT64_MAX;
        return (int64_t) p;
}

/* v rounded up to a multiple of block, as the kernel rounds tmpfs's size= to pages. */
static int64_t round_up(int64_t v, int64_t block)
{
        int64_t q;

        if (v <= 0 || block <= 0)
                return v;
        q = v / block + (v % block != 0);
        return mul_capped((uint64_t) q, (uint64_t) block);
}

struct tmpfs_usage {
        int64_t size;  /* bytes; 0 when mounted without size= */
        int64_t used;  /* bytes */
        int64_t block; /* f_frsize */
};

static int tmpfs_statfs(const char *path, struct tmpfs_usage *ret)
{
        struct statfs st;

        if (statfs(path, &st) < 0)
                return -errno;
        if (st.f_type != TMPFS_MAGIC)
                return -ENOENT;
        ret->block = st.f_frsize > 0 ? (int64_t) st.f_frsize : (int64_t) st.f_bsize;
        ret->size = mul_capped(st.f_blocks, (uint64_t) ret->block);
        ret->used = st.f_blocks >= st.f_bfree
                            ? mul_capped(st.f_blocks - st.f_bfree, (uint64_t) ret->block)
                            : 0;
        return 0;
}

/* 0 when a tmpfs is mounted exactly at path, -ENOENT when nothing is, -EBUSY (with *ret_fstype
 * set, owned) when another filesystem is. */
static int tmpfs_mount_state(const char *path, char **ret_fstype)
{
        struct emptydir_mountinfo m = { 0 };
        int r;

        r = mount_at(path, &m);
        if (r < 0)
                return r;
        if (!m.fstype || !streq(m.fstype, "tmpfs")) {
                *ret_fstype = m.fstype ? TAKE_PTR(m.fstype) : xstrdup("");
                emptydir_mountinfo_release(&m);
                return -EBUSY;
        }
        emptydir_mountinfo_release(&m);
        return 0;
}

/* 0 when path is the root of a mount, -ENOENT when it is not, -EOPNOTSUPP when the kernel
 * cannot tell (no STATX_ATTR_MOUNT_ROOT), -errno otherwise. */
static int mount_root(const char *path)
{
        struct statx stx = { 0 };

        if (statx(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, STATX_TYPE, &stx) < 0)
                return -errno;
        if (!(stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT))
                return -EOPNOTSUPP;
        return (stx.stx_attributes & STATX_ATTR_MOUNT_ROOT) ? 0 : -ENOENT;
}

/* ---- setup ---- */

/* mkdir -p path with EMPTYDIR_PERM, then the final directory chmod'ed to exactly that. */
static int setup_dir(const char *path, struct error **reterr)
{
        cleanup_free char *p = xstrdup(path);
        cleanup_close int fd = -1;
        struct stat st;

        for (char *s = p + 1;; s++) {
                char c = *s;

                if (c != '/' && c != '\0')
                        continue;
                *s = '\0';
                if (mkdir(p, EMPTYDIR_PERM) < 0 && errno != EEXIST)
                        return error_set(reterr, errno,
                                         "set up emptyDir volume \"%s\": mkdir \"%s\": %s", path, p,
                                         strerror(errno));
                *s = c;
                if (c == '\0')
                        break;
        }
        fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
                int e = errno == ELOOP ? ENOTDIR : errno;
                return error_set(reterr, e, "set up emptyDir volume \"%s\": %s", path,
                                 e == ENOTDIR ? "not a directory" : strerror(e));
        }
        if (fstat(fd, &st) < 0)
                return error_set(reterr, errno, "set up emptyDir volume \"%s\": %s", path,
                                 strerror(errno));
        /* K8S: setupDir chmods when a umask took bits away, rather than touching the umask of a
         * multithreaded process. */
        if ((st.st_mode & 0777) != EMPTYDIR_PERM && fchmod(fd, EMPTYDIR_PERM) < 0)
                return error_set(reterr, errno, "set up emptyDir volume \"%s\": chmod: %s", path,
                                 strerror(errno));
        return 0;
}

int emptydir_setup(const char *path, enum emptydir_medium medium, int64_t size_bytes,
                   struct error **reterr)
{
        cleanup_free char *fstype = NULL;
        cleanup_free char *data = NULL;
        struct tmpfs_usage u = { 0 };
        int r;

        if (!path || path[0] != '/')
                return error_set(reterr, EINVAL,
                                 "set up emptyDir volume \"%s\": path is not absolute",
                                 path ? path : "");
        if ((unsigned) medium >= EMPTYDIR_MEDIUM_MAX)
                return error_set(reterr, EINVAL,
                                 "set up emptyDir volume \"%s\": unknown storage medium", path);
        r = setup_dir(path, reterr);
        if (r < 0 || medium == EMPTYDIR_MEDIUM_DISK)
                return r;

        r = tmpfs_mount_state(path, &fstype);
        if (r == -EBUSY)
                return error_set(
                        reterr, EBUSY,
                        "set up emptyDir volume \"%s\": a \"%s\" filesystem is already mounted there",
                        path, fstype);
        if (r == 0) {
                /* Idempotent; a different size is a KEP-6030 resize. */
                if (size_bytes <= 0)
                        return 0;
                r = tmpfs_statfs(path, &u);
                if (r < 0)
                        return error_set(reterr, -r, "set up emptyDir volume \"%s\": statfs: %s",
                                         path, strerror(-r));
                if (u.size == round_up(size_bytes, u.block))
                        return 0;
                return emptydir_resize(path, size_bytes, reterr);
        }
        if (r != -ENOENT)
                return error_set(reterr, -r, "set up emptyDir volume \"%s\": %s", path,
                                 strerror(-r));

        /* K8S: generateTmpfsMountOptions passes size= only when the size is > 0 (else the
         * kernel's default, half of RAM, applies). */
        if (size_bytes > 0)
                data = xasprintf("size=%" PRId64 ",mode=0777", size_bytes);
        else
                data = xstrdup("mode=0777");
        if (mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, data) < 0)
                return error_set(reterr, errno, "set up emptyDir volume \"%s\": mount tmpfs: %s",
                                 path, strerror(errno));
        return 0;
}

/* ---- resize ---- */

/* The per-mount flags a remount must repeat, or it clears them. The atime flags are left out:
 * a remount that names none keeps the mount's own. */
static unsigned long kept_mount_flags(const char *path)
{
        struct statvfs sv;
        unsigned long flags = 0;

        if (statvfs(path, &sv) < 0)
                return MS_NOSUID | MS_NODEV;
        if (sv.f_flag & ST_RDONLY)
                flags |= MS_RDONLY;
        if (sv.f_flag & ST_NOSUID)
                flags |= MS_NOSUID;
        if (sv.f_flag & ST_NODEV)
                flags |= MS_NODEV;
        if (sv.f_flag & ST_NOEXEC)
                flags |= MS_NOEXEC;
        return flags;
}

int emptydir_resize(const char *path, int64_t new_size_bytes, struct error **reterr)
{
        cleanup_free char *fstype = NULL;
        cleanup_free char *data = NULL;
        struct tmpfs_usage u = { 0 };
        int r, e;

        if (!path || path[0] != '/')
                return error_set(reterr, EINVAL,
                                 "resize emptyDir volume \"%s\": path is not absolute",
                                 path ? path : "");
        /* K8S: ResizeEphemeralVolume refuses a nil or zero size. */
        if (new_size_bytes <= 0)
                return error_set(
                        reterr, EINVAL,
                        "resize emptyDir volume \"%s\": addition or removal of size limit is not supported",
                        path);
        /* The agent measures every Memory volume at every sync: statx's mount-root attribute
         * (Linux >= 5.8) answers "is something mounted exactly here" without reading
         * mountinfo; statfs then says whether it is a tmpfs. */
        r = mount_root(path);
        if (r == 0)
                r = tmpfs_statfs(path, &u);
        else if (r == -EOPNOTSUPP)
                r = tmpfs_mount_state(path, &fstype);
        if (r == 0 && !u.block)
                r = tmpfs_statfs(path, &u);
        if (r == -ENOENT || r == -EBUSY)
                return error_set(reterr, ENOENT,
                                 "resize emptyDir volume \"%s\": volume is not yet mounted", path);
        if (r < 0)
                return error_set(reterr, -r, "resize emptyDir volume \"%s\": %s", path,
                                 strerror(-r));
        /* KEP-6030: a shrink below usage cannot be done; say how much is in use. A tmpfs mounted
         * without size= counts no blocks, so only the kernel can tell then. */
        if (u.size > 0 && round_up(new_size_bytes, u.block) < u.used)
                return error_set(reterr, ENOSPC,
                                 "resize emptyDir volume \"%s\" to %" PRId64 " bytes: %" PRId64
                                 " bytes in use",
                                 path, new_size_bytes, u.used);

        data = xasprintf("size=%" PRId64, new_size_bytes);
        if (mount("tmpfs", path, "tmpfs", MS_REMOUNT | kept_mount_flags(path), data) == 0)
                return 0;
        e = errno;
        /* The kernel says EINVAL ("Too small size for current use") when files grew since the
         * check above. */
        if (e == EINVAL && tmpfs_statfs(path, &u) == 0 && u.size > 0 &&
            round_up(new_size_bytes, u.block) < u.used)
                return error_set(reterr, ENOSPC,
                                 "resize emptyDir volume \"%s\" to %" PRId64 " bytes: %" PRId64
                                 " bytes in use",
                                 path, new_size_bytes, u.used);
        return error_set(reterr, e,
                         "resize emptyDir volume \"%s\" to %" PRId64 " bytes: remount: %s", path,
                         new_size_bytes, strerror(e));
}

int emptydir_size(const char *path, int64_t *ret_size_bytes, int64_t *ret_used_bytes,
                  struct error **reterr)
{
        cleanup_free char *fstype = NULL;
        struct tmpfs_usage u = { 0 };
        int r;

        if (!path)
                return error_set(reterr, EINVAL, "measure emptyDir volume \"\": no path");
        /* The agent measures every Memory volume at every sync: statx's mount-root attribute
         * (Linux >= 5.8) answers "is something mounted exactly here" without reading
         * mountinfo; statfs then says whether it is a tmpfs. */
        r = mount_root(path);
        if (r == 0)
                r = tmpfs_statfs(path, &u);
        else if (r == -EOPNOTSUPP)
                r = tmpfs_mount_state(path, &fstype);
        if (r == 0 && !u.block)
                r = tmpfs_statfs(path, &u);
        if (r == -ENOENT || r == -EBUSY)
                return error_set(reterr, ENOENT,
                                 "measure emptyDir volume \"%s\": no tmpfs is mounted there", path);
        if (r < 0)
                return error_set(reterr, -r, "measure emptyDir volume \"%s\": %s", path,
                                 strerror(-r));
        *ret_size_bytes = u.size;
        *ret_used_bytes = u.used;
        return 0;
}

/* ---- walks ---- */

#define WALK_STATX_MASK (STATX_TYPE | STATX_INO | STATX_NLINK | STATX_BLOCKS | STATX_MNT_ID)

/* The mount a walk stays on. */
struct walk_fs {
        dev_t dev;
        uint64_t mnt_id;
        bool have_mnt_id;
};

static int walk_fs_init(int fd, struct walk_fs *ret)
{
        struct statx stx = { 0 };

        if (statx(fd, "", AT_EMPTY_PATH, WALK_STATX_MASK, &stx) < 0)
                return -errno;
        ret->dev = makedev(stx.stx_dev_major, stx.stx_dev_minor);
        ret->have_mnt_id = (stx.stx_mask & STATX_MNT_ID) != 0;
        ret->mnt_id = stx.stx_mnt_id;
        return 0;
}

/* Whether the entry stx describes is another mount: another device, another mount id, or the
 * root of a mount (a bind mount of a directory of this very filesystem). */
static bool walk_fs_crossed(const struct walk_fs *fs, const struct statx *stx)
{
        if (makedev(stx->stx_dev_major, stx->stx_dev_minor) != fs->dev)
                return true;
        if (fs->have_mnt_id && (stx->stx_mask & STATX_MNT_ID) && stx->stx_mnt_id != fs->mnt_id)
                return true;
        return (stx->stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
               (stx->stx_attributes & STATX_ATTR_MOUNT_ROOT);
}

static int walk_statx(int dfd, const char *name, struct statx *ret)
{
        if (statx(dfd, name, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, WALK_STATX_MASK, ret) < 0)
                return -errno;
        return 0;
}

/* Opens the directory dfd/name that stx described, making sure it is still that directory and
 * still on fs (it may have been swapped for a symlink or a mount since). */
static int walk_open_dir(int dfd, const char *name, const struct statx *stx,
                         const struct walk_fs *fs)
{
        cleanup_close int fd = -1;
        struct statx now;

        fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return -errno;
        if (statx(fd, "", AT_EMPTY_PATH, WALK_STATX_MASK, &now) < 0)
                return -errno;
        if (now.stx_ino != stx->stx_ino || walk_fs_crossed(fs, &now))
                return -ESTALE;
        return TAKE_FD(fd);
}

/* Inode numbers already counted (hard links): open addressing, 0 stored apart. */
struct ino_set {
        uint64_t *slots;
        size_t cap; /* power of two, or 0 */
        size_t n;
        bool has_zero;
};

static size_t ino_hash(uint64_t v, size_t cap)
{
        v ^= v >> 33;
        v *= 0xff51afd7ed558ccdULL;
        v ^= v >> 33;
        return (size_t) v & (cap - 1);
}

/* Adds v; returns true if it was new. */
static bool ino_set_add(struct ino_set *s, uint64_t v)
{
        size_t i;

        if (v == 0) {
                bool added = !s->has_zero;
                s->has_zero = true;
                return added;
        }
        if ((s->n + 1) * 2 > s->cap) {
                size_t ncap = s->cap ? s->cap * 2 : 64;
                uint64_t *slots = xcalloc(ncap, sizeof(*slots));

                for (size_t j = 0; j < s->cap; j++) {
                        if (!s->slots[j])
                                continue;
                        for (i = ino_hash(s->slots[j], ncap); slots[i]; i = (i + 1) & (ncap - 1))
                                ;
                        slots[i] = s->slots[j];
                }
                free(s->slots);
                s->slots = slots;
                s->cap = ncap;
        }
        for (i = ino_hash(v, s->cap); s->slots[i]; i = (i + 1) & (s->cap - 1)) {
                if (s->slots[i] == v)
                        return false;
        }
        s->slots[i] = v;
        s->n++;
        return true;
}

struct du_walk {
        struct walk_fs fs;
        struct ino_set seen;
        int64_t bytes;
        size_t entries;
        bool truncated;
        struct strbuf rel; /* the path being walked, relative to the volume (for messages) */
};

static void du_add(struct du_walk *w, const struct statx *stx)
{
        /* K8S (fs.DiskUsage): an inode with several links is counted once. */
        if (!S_ISDIR(stx->stx_mode) && stx->stx_nlink > 1 && !ino_set_add(&w->seen, stx->stx_ino))
                return;
        w->bytes = mul_capped(stx->stx_blocks, 512) > INT64_MAX - w->bytes
                           ? INT64_MAX
                           : w->bytes + mul_capped(stx->stx_blocks, 512);
}

static int du_dir(struct du_walk *w, int dfd, int depth)
{
        DIR *d;
        struct dirent *de;
        int fd, r = 0;

        fd = fcntl(dfd, F_DUPFD_CLOEXEC, 3);
        if (fd < 0)
                return -errno;
        d = fdopendir(fd);
        if (!d) {
                r = -errno;
                close(fd);
                return r;
        }
        rewinddir(d);
        for (;;) {
                struct statx stx = { 0 };
                size_t mark;
                int cfd;

                errno = 0;
                de = readdir(d);
                if (!de) {
                        if (errno)
                                r = -errno;
                        break;
                }
                if (streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                if (w->entries >= EMPTYDIR_DU_MAX_ENTRIES) {
                        w->truncated = true;
                        break;
                }
                w->entries++;
                r = walk_statx(dfd, de->d_name, &stx);
                if (r == -ENOENT) { /* deleted after the directory was read */
                        r = 0;
                        continue;
                }
                mark = w->rel.len;
                if (w->rel.len)
                        strbuf_addch(&w->rel, '/');
                strbuf_addstr(&w->rel, de->d_name);
                if (r < 0)
                        break;
                /* K8S: the kubelet does not descend into other devices; nor do we into any
                 * other mount. */
                if (walk_fs_crossed(&w->fs, &stx)) {
                        w->rel.len = mark;
                        w->rel.buf[mark] = '\0';
                        continue;
                }
                du_add(w, &stx);
                if (S_ISDIR(stx.stx_mode)) {
                        if (depth + 1 >= EMPTYDIR_DU_MAX_DEPTH) {
                                w->truncated = true;
                        } else {
                                cfd = walk_open_dir(dfd, de->d_name, &stx, &w->fs);
                                if (cfd >= 0) {
                                        r = du_dir(w, cfd, depth + 1);
                                        close(cfd);
                                } else if (cfd != -ENOENT && cfd != -ENOTDIR && cfd != -ELOOP &&
                                           cfd != -ESTALE) {
                                        r = cfd;
                                }
                                if (r < 0)
                                        break;
                        }
                }
                w->rel.len = mark;
                w->rel.buf[mark] = '\0';
        }
        closedir(d);
        return r;
}

int emptydir_disk_usage(const char *path, int64_t *ret_bytes, struct error **reterr)
{
        cleanup_close int fd = -1;
        struct du_walk w = { 0 };
        struct statx stx = { 0 };
        int r;

        if (!path)
                return error_set(reterr, EINVAL,
                                 "measure disk usage of emptyDir volume \"\": no path");
        fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
        if (fd < 0)
                return error_set(reterr, errno, "measure disk usage of emptyDir volume \"%s\": %s",
                                 path, strerror(errno));
        r = walk_fs_init(fd, &w.fs);
        if (r == 0 && statx(fd, "", AT_EMPTY_PATH, WALK_STATX_MASK, &stx) < 0)
                r = -errno;
        if (r < 0)
                return error_set(reterr, -r, "measure disk usage of emptyDir volume \"%s\": %s",
                                 path, strerror(-r));
        strbuf_init(&w.rel);
        du_add(&w, &stx); /* the directory itself, as du */
        r = du_dir(&w, fd, 0);
        if (r < 0)
                r = error_set(reterr, -r,
                              "measure disk usage of emptyDir volume \"%s\": \"%s\": %s", path,
                              w.rel.buf, strerror(-r));
        strbuf_release(&w.rel);
        free(w.seen.slots);
        if (r < 0)
                return r;
        *ret_bytes = w.bytes;
        return w.truncated ? 1 : 0;
}

/* ---- teardown ---- */

struct rm_walk {
        struct walk_fs fs;
        int top_fd;          /* the volume's directory */
        unsigned long moved; /* subtrees moved to the top (names them) */
        bool moved_this_pass;
        struct strbuf rel; /* the path being removed, relative to the volume */
        int err;           /* first failure: -errno, message in msg */
        char *msg;
};

static void rm_fail(struct rm_walk *w, int r, const char *cause)
{
        if (w->err)
                return;
        w->err = r;
        w->msg = w->rel.len ? xasprintf("\"%s\": %s", w->rel.buf, cause) : xstrdup(cause);
}

/* Moves dfd/name (a directory too deep to enter) to the volume's top under a fresh name. */
static void rm_move_up(struct rm_walk *w, int dfd, const char *name)
{
        for (int tries = 0; tries < 1000; tries++) {
                char fresh[64];

                (void) snprintf(fresh, sizeof(fresh), ".emptydir-deep-%lu", w->moved++);
                if (renameat2(dfd, name, w->top_fd, fresh, RENAME_NOREPLACE) == 0) {
                        w->moved_this_pass = true;
                        return;
                }
                if (errno == ENOENT)
                        return;
                if (errno != EEXIST) {
                        rm_fail(w, -errno, strerror(errno));
                        return;
                }
        }
        rm_fail(w, -EEXIST, "no free name to move a deep directory to");
}

static void rm_dir(struct rm_walk *w, int dfd, int depth)
{
        DIR *d;
        struct dirent *de;
        int fd;

        fd = fcntl(dfd, F_DUPFD_CLOEXEC, 3);
        if (fd < 0) {
                rm_fail(w, -errno, strerror(errno));
                return;
        }
        d = fdopendir(fd);
        if (!d) {
                rm_fail(w, -errno, strerror(errno));
                close(fd);
                return;
        }
        /* The dup shares dfd's offset, which an earlier pass left at the end. */
        rewinddir(d);
        for (;;) {
                struct statx stx = { 0 };
                size_t mark;
                int r;

                errno = 0;
                de = readdir(d);
                if (!de) {
                        if (errno)
                                rm_fail(w, -errno, strerror(errno));
                        break;
                }
                if (streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                mark = w->rel.len;
                if (w->rel.len)
                        strbuf_addch(&w->rel, '/');
                strbuf_addstr(&w->rel, de->d_name);
                r = walk_statx(dfd, de->d_name, &stx);
                if (r < 0) {
                        if (r != -ENOENT)
                                rm_fail(w, r, strerror(-r));
                } else if (walk_fs_crossed(&w->fs, &stx)) {
                        /* Never into, nor under, another mount. */
                        rm_fail(w, -EBUSY, "is a mount point");
                } else if (!S_ISDIR(stx.stx_mode)) {
                        /* A symlink goes as itself (unlinkat never follows). */
                        if (unlinkat(dfd, de->d_name, 0) < 0 && errno != ENOENT)
                                rm_fail(w, -errno,
                                        errno == EBUSY ? "is a mount point" : strerror(errno));
                } else if (depth + 1 >= TEARDOWN_MAX_DEPTH) {
                        rm_move_up(w, dfd, de->d_name);
                } else {
                        int cfd = walk_open_dir(dfd, de->d_name, &stx, &w->fs);

                        if (cfd >= 0) {
                                rm_dir(w, cfd, depth + 1);
                                close(cfd);
                        } else if (cfd == -ESTALE) {
                                rm_fail(w, -EBUSY, "changed while being removed");
                        } else if (cfd != -ENOENT) {
                                rm_fail(w, cfd, strerror(-cfd));
                        }
                        if (unlinkat(dfd, de->d_name, AT_REMOVEDIR) < 0 && errno != ENOENT &&
                            !(errno == ENOTEMPTY && w->err))
                                rm_fail(w, -errno,
                                        errno == EBUSY ? "is a mount point" : strerror(errno));
                }
                w->rel.len = mark;
                w->rel.buf[mark] = '\0';
        }
        closedir(d);
}

static int unmount_tmpfs(const char *path, struct error **reterr)
{
        for (int i = 0; i < TEARDOWN_MAX_UNMOUNTS; i++) {
                cleanup_free char *fstype = NULL;
                int r = tmpfs_mount_state(path, &fstype);

                if (r == -ENOENT)
                        return 0;
                if (r == -EBUSY)
                        return error_set(
                                reterr, EBUSY,
                                "tear down emptyDir volume \"%s\": a \"%s\" filesystem is mounted there",
                                path, fstype);
                if (r < 0)
                        return error_set(reterr, -r, "tear down emptyDir volume \"%s\": %s", path,
                                         strerror(-r));
                if (umount2(path, UMOUNT_NOFOLLOW) == 0 || errno == EINVAL)
                        continue;
                if (errno == EBUSY) {
                        /* Give a process that is exiting a moment, then detach: the mount
                         * leaves the tree now and goes when its last user does. */
                        struct timespec ts = { .tv_sec = 0, .tv_nsec = 100 * 1000 * 1000 };

                        (void) nanosleep(&ts, NULL);
                        if (umount2(path, UMOUNT_NOFOLLOW) == 0 || errno == EINVAL)
                                continue;
                        if (errno == EBUSY && umount2(path, UMOUNT_NOFOLLOW | MNT_DETACH) == 0)
                                continue;
                }
                return error_set(reterr, errno, "tear down emptyDir volume \"%s\": unmount: %s",
                                 path, strerror(errno));
        }
        return error_set(reterr, EBUSY,
                         "tear down emptyDir volume \"%s\": more than %d mounts stacked there",
                         path, TEARDOWN_MAX_UNMOUNTS);
}

int emptydir_teardown(const char *path, struct error **reterr)
{
        struct rm_walk w = { .top_fd = -1 };
        struct stat st;
        int r, passes = 0;

        if (!path || path[0] != '/')
                return error_set(reterr, EINVAL,
                                 "tear down emptyDir volume \"%s\": path is not absolute",
                                 path ? path : "");
        if (lstat(path, &st) < 0) {
                if (errno == ENOENT)
                        return 0;
                return error_set(reterr, errno, "tear down emptyDir volume \"%s\": %s", path,
                                 strerror(errno));
        }
        if (!S_ISDIR(st.st_mode)) {
                /* Not ours to follow: remove the symlink or file itself. */
                if (unlink(path) < 0 && errno != ENOENT)
                        return error_set(reterr, errno, "tear down emptyDir volume \"%s\": %s",
                                         path, strerror(errno));
                return 0;
        }
        r = unmount_tmpfs(path, reterr);
        if (r < 0)
                return r;

        w.top_fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
        if (w.top_fd < 0) {
                if (errno == ENOENT)
                        return 0;
                return error_set(reterr, errno, "tear down emptyDir volume \"%s\": %s", path,
                                 strerror(errno));
        }
        r = walk_fs_init(w.top_fd, &w.fs);
        if (r < 0) {
                close(w.top_fd);
                return error_set(reterr, -r, "tear down emptyDir volume \"%s\": %s", path,
                                 strerror(-r));
        }
        strbuf_init(&w.rel);
        do {
                w.moved_this_pass = false;
                rm_dir(&w, w.top_fd, 0);
        } while (w.moved_this_pass && ++passes < TEARDOWN_MAX_PASSES);
        close(w.top_fd);
        strbuf_release(&w.rel);
        if (!w.err && w.moved_this_pass)
                rm_fail(&w, -ELOOP, "the tree keeps growing");
        if (w.err) {
                r = error_set(reterr, -w.err, "tear down emptyDir volume \"%s\": %s", path, w.msg);
                free(w.msg);
                return r;
        }
        if (rmdir(path) < 0 && errno != ENOENT)
                return error_set(reterr, errno, "tear down emptyDir volume \"%s\": %s", path,
                                 strerror(errno));
        return 0;
}
