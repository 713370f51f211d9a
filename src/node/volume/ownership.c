/* ownership.c: the fsGroup walk over a volume (K8S SetVolumeOwnership), done over a tree the pod
 * controls: by directory fd, never following a symbolic link, never leaving the volume's
 * filesystem, bounded in depth. It does not decide which volumes get it or when (the pod worker
 * does), nor how fsGroup reaches the containers' groups (pod-security.c). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/alloc.h"
#include "node/volume/ownership.h"

/* K8S volume_linux.go: rwMask 0660, roMask 0440, execMask 0110 (directories only), and setgid on
 * directories */
#define RW_MASK   0660
#define RO_MASK   0440
#define EXEC_MASK 0110

static const char *const policy_names[VOLUME_FSGROUP_POLICY_MAX] = {
        [VOLUME_FSGROUP_ALWAYS] = "Always",
        [VOLUME_FSGROUP_ON_ROOT_MISMATCH] = "OnRootMismatch",
};

const char *volume_fsgroup_policy_to_string(enum volume_fsgroup_policy p)
{
        return p < VOLUME_FSGROUP_POLICY_MAX ? policy_names[p] : NULL;
}

int volume_fsgroup_policy_from_string(const char *s, enum volume_fsgroup_policy *ret)
{
        if (!s) {
                *ret = VOLUME_FSGROUP_ALWAYS;
                return 0;
        }
        for (int p = 0; p < VOLUME_FSGROUP_POLICY_MAX; p++)
                if (streq(s, policy_names[p])) {
                        *ret = (enum volume_fsgroup_policy) p;
                        return 0;
                }
        return -EINVAL;
}

static bool root_fits(const struct stat *st, gid_t gid, bool read_only)
{
        mode_t want = (read_only ? RO_MASK : RW_MASK) | EXEC_MASK;

        /* K8S requiresPermissionChange: group, a directory, the bits a superset, setgid */
        return st->st_gid == gid && S_ISDIR(st->st_mode) && (st->st_mode & want) == want &&
               (st->st_mode & S_ISGID);
}

bool volume_ownership_needed(const char *dir, gid_t gid, bool read_only)
{
        struct stat st;

        if (lstat(dir, &st) < 0)
                return true;
        return !root_fits(&st, gid, read_only);
}

struct walk {
        gid_t gid;
        mode_t mask;
        int first_error; /* -errno of the first failure, 0 */
        char *failed;    /* the entry that failed first (owned) */
};

static void walk_fail(struct walk *w, const char *name, int r)
{
        if (w->first_error)
                return;
        w->first_error = r;
        w->failed = xstrdup(name);
}

/* Changes the object fd refers to (O_PATH or a directory opened for reading), whose stat is st.
 * K8S changeFilePermission: Lchown(-1, fsGroup) of anything, a symbolic link included; then, but
 * not for a symbolic link (a chmod would pass through to its target), the old mode with the
 * masks added. */
static int change(int fd, const struct stat *st, const struct walk *w)
{
        char proc[64];
        mode_t mode = st->st_mode & 07777;

        /* what already fits is left as it is (the same result, fewer writes on a re-walk) */
        if (st->st_gid != w->gid &&
            fchownat(fd, "", (uid_t) -1, w->gid, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0)
                return -errno;
        if (S_ISLNK(st->st_mode))
                return 0;
        mode |= w->mask;
        if (S_ISDIR(st->st_mode))
                mode |= S_ISGID | EXEC_MASK;
        if (mode == (st->st_mode & 07777) && st->st_gid == w->gid)
                return 0;
        /* an O_PATH fd has no fchmod; its /proc/self/fd link names this very inode (not a path
         * walked again: the fd was checked not to be a symbolic link) */
        snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
        return chmod(proc, mode) < 0 ? -errno : 0;
}

static int open_entry(int dirfd, const char *name)
{
        struct open_how how = {
                .flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
                .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_XDEV,
        };
        int fd = (int) syscall(SYS_openat2, dirfd, name, &how, sizeof(how));

        return fd < 0 ? -errno : fd;
}

/* Changes every entry below the directory dirfd (which the call takes and closes), deepest
 * first, depth levels below the volume's root. */
static void walk_dir(struct walk *w, int dirfd, unsigned depth)
{
        DIR *d = fdopendir(dirfd);
        struct dirent *e;

        if (!d) {
                walk_fail(w, ".", -errno);
                close(dirfd);
                return;
        }
        while ((errno = 0, e = readdir(d))) {
                cleanup_close int fd = -1;
                struct stat st;
                int r;

                if (streq(e->d_name, ".") || streq(e->d_name, ".."))
                        continue;
                fd = open_entry(dirfd, e->d_name);
                /* gone meanwhile, or a mount point (not the volume's to own) */
                if (fd == -ENOENT || fd == -EXDEV)
                        continue;
                if (fd < 0) {
                        walk_fail(w, e->d_name, fd);
                        continue;
                }
                if (fstat(fd, &st) < 0) {
                        walk_fail(w, e->d_name, -errno);
                        continue;
                }
                if (S_ISDIR(st.st_mode)) {
                        int sub;

                        if (depth + 1 > VOLUME_OWNERSHIP_MAX_DEPTH) {
                                walk_fail(w, e->d_name, -ELOOP);
                                continue;
                        }
                        /* "." of the O_PATH fd: the directory just checked, nothing else */
                        sub = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                        if (sub < 0) {
                                walk_fail(w, e->d_name, -errno);
                                continue;
                        }
                        walk_dir(w, sub, depth + 1);
                }
                if ((r = change(fd, &st, w)) < 0)
                        walk_fail(w, e->d_name, r);
        }
        if (errno)
                walk_fail(w, ".", -errno);
        closedir(d);
}

int volume_ownership_set(const char *dir, gid_t gid, enum volume_fsgroup_policy policy,
                         bool read_only, struct error **reterr)
{
        struct walk w = { .gid = gid, .mask = read_only ? RO_MASK : RW_MASK };
        cleanup_close int root = -1;
        struct stat st;
        int r;

        if (policy == VOLUME_FSGROUP_ON_ROOT_MISMATCH &&
            !volume_ownership_needed(dir, gid, read_only))
                return 0;
        root = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (root < 0) {
                r = errno == ELOOP ? ENOTDIR : errno;
                return error_set(reterr, r, "set fsGroup ownership of \"%s\": %s", dir,
                                 strerror(r));
        }
        if (fstat(root, &st) < 0)
                return error_set(reterr, errno, "set fsGroup ownership of \"%s\": %s", dir,
                                 strerror(errno));
        r = dup(root);
        if (r < 0)
                return error_set(reterr, errno, "set fsGroup ownership of \"%s\": %s", dir,
                                 strerror(errno));
        walk_dir(&w, r, 0);
        /* the root last: an interrupted walk leaves it unchanged for OnRootMismatch to redo */
        if ((r = change(root, &st, &w)) < 0)
                walk_fail(&w, ".", r);
        if (w.first_error) {
                r = w.first_error;
                error_set(reterr, -r, "set fsGroup ownership of \"%s\": \"%s\": %s", dir, w.failed,
                          strerror(-r));
                free(w.failed);
                return r;
        }
        return 1;
}
