/* exeseal.c: the agent runs from a sealed view of its own binary, runc's defence against
 * CVE-2019-5736. Every flexlet process a container can reach (the pod's pid 1, a container's
 * process between fork and exec, the agent itself for a hostPID pod) is this binary, and
 * /proc/PID/exe of each reopens the host's file: a container with CAP_SYS_PTRACE could keep an
 * O_PATH fd to it and write it once nothing executes it (the kernel's ETXTBSY holds only while
 * it runs). `flexlet serve` re-executes itself once, at its start, from a read-only overlayfs
 * mount of the binary's folder that no mount table holds; every helper it starts runs
 * /proc/self/exe and so the same file, where a write fails with EROFS. Where overlayfs cannot be
 * used, a sealed memfd copy. The helpers run flexlet-helper instead when the binary's folder
 * holds one (the small static binary the Makefile builds beside it, issue 16: every helper
 * shares its pages): the same overlay (or a memfd copy of its own) seals it, and the agent keeps
 * an fd of it to exec (rt_helper_exec). Not here: which processes are spawned (util.c,
 * sandbox.c). */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/alloc.h"
#include "node/runtime/runtime-internal.h"

/* set across the re-exec, so a seal that does not hold is an error and not a loop */
#define EXESEAL_ENV "FLEXLET_EXE_SEALED"
/* the number of the sealed helper's fd, inherited across the re-exec */
#define HELPER_FD_ENV "FLEXLET_HELPER_FD"
/* the helper binary's name, in the folder of flexlet's own */
#define HELPER_NAME "flexlet-helper"

/* the sealed helper binary the agent's helpers run, or -1: they run /proc/self/exe. Set once,
 * before any thread, by runtime_exe_reexec_sealed; read between fork and exec. */
static int helper_fd = -1;

int runtime_exe_sealed(int fd)
{
        struct statfs sfs;
        int seals;

        if (fstatfs(fd, &sfs) < 0)
                return -errno;
        /* our own overlay: read-only for good (no upper layer, a mount no one can remount) */
        if ((unsigned long) sfs.f_type == OVERLAYFS_SUPER_MAGIC && (sfs.f_flags & ST_RDONLY))
                return 1;
        seals = fcntl(fd, F_GET_SEALS);
        if (seals >= 0 && (seals & (F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)) ==
                                  (F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL))
                return 1;
        return 0;
}

/* An empty read-only tmpfs attached nowhere: overlayfs wants two lower layers when it has no
 * upper one (its "at least 2 lowerdir are needed while upperdir nonexistent"). */
static int empty_layer(void)
{
        int fs, mnt = -1;

        fs = fsopen("tmpfs", FSOPEN_CLOEXEC);
        if (fs < 0)
                return -1;
        if (fsconfig(fs, FSCONFIG_SET_STRING, "mode", "0555", 0) == 0 &&
            fsconfig(fs, FSCONFIG_SET_STRING, "size", "4k", 0) == 0 &&
            fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) == 0)
                mnt = fsmount(fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_RDONLY);
        close(fs);
        return mnt;
}

/* runc >= 1.2 (libcontainer/exeseal, "a private overlayfs mount", its memfd-bind README): an
 * overlayfs with the binary's folder as a lower layer and no upper one is read-only; made with
 * fsopen/fsmount it is attached nowhere, so no one can remount it read-write, and it costs no
 * copy. */
static int seal_overlay(int exe_fd, int *ret_fd, int *ret_helper_fd, struct error **reterr)
{
        cleanup_free char *dir_buf = NULL, *base_buf = NULL;
        cleanup_close int empty = -1;
        struct stat want, got;
        int fs = -1, mnt = -1, fd, e;
        char link[PATH_MAX], empty_path[64];
        ssize_t n;

        n = readlink("/proc/self/exe", link, sizeof(link) - 1);
        if (n <= 0)
                return error_set(reterr, errno ? errno : EINVAL, "read /proc/self/exe: %s",
                                 strerror(errno ? errno : EINVAL));
        link[n] = '\0';
        dir_buf = xstrdup(link);
        base_buf = xstrdup(link);
        empty = empty_layer();
        if (empty < 0)
                return error_set(reterr, errno, "an empty tmpfs: %s", strerror(errno));
        (void) snprintf(empty_path, sizeof(empty_path), "/proc/self/fd/%d", empty);
        fs = fsopen("overlay", FSOPEN_CLOEXEC);
        if (fs < 0 || fsconfig(fs, FSCONFIG_SET_STRING, "lowerdir+", dirname(dir_buf), 0) < 0 ||
            fsconfig(fs, FSCONFIG_SET_STRING, "lowerdir+", empty_path, 0) < 0 ||
            fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0 ||
            (mnt = fsmount(fs, FSMOUNT_CLOEXEC,
                           MOUNT_ATTR_RDONLY | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOSUID)) < 0) {
                e = errno;
                if (fs >= 0)
                        close(fs);
                return error_set(reterr, e, "overlay of \"%s\": %s", dir_buf, strerror(e));
        }
        close(fs);
        fd = openat(mnt, basename(base_buf), O_PATH | O_CLOEXEC | O_NOFOLLOW);
        e = errno;
        if (fd >= 0 && ret_helper_fd) {
                /* absent: the helpers run this binary; anything else is the caller's error */
                *ret_helper_fd = openat(mnt, HELPER_NAME, O_PATH | O_CLOEXEC | O_NOFOLLOW);
                if (*ret_helper_fd < 0 && errno != ENOENT) {
                        e = errno;
                        close(fd);
                        close(mnt);
                        return error_set(reterr, e, "open \"%s\" in the overlay of \"%s\": %s",
                                         HELPER_NAME, dir_buf, strerror(e));
                }
        }
        close(mnt);
        if (fd < 0)
                return error_set(reterr, e, "open \"%s\" in its overlay: %s", link, strerror(e));
        /* the file there must be the one we run (not replaced since): same inode and size */
        if (fstat(exe_fd, &want) < 0 || fstat(fd, &got) < 0 || !S_ISREG(got.st_mode) ||
            got.st_ino != want.st_ino || got.st_size != want.st_size ||
            got.st_mtim.tv_sec != want.st_mtim.tv_sec ||
            got.st_mtim.tv_nsec != want.st_mtim.tv_nsec) {
                close(fd);
                if (ret_helper_fd && *ret_helper_fd >= 0) {
                        close(*ret_helper_fd);
                        *ret_helper_fd = -1;
                }
                return error_set(reterr, ESTALE, "\"%s\" is not the running binary any more", link);
        }
        *ret_fd = fd;
        return 0;
}

/* runc < 1.2 and its fallback: a memfd copy, sealed against writes and resizes. */
static int seal_memfd(int exe_fd, const char *name, int *ret_fd, struct error **reterr)
{
        struct stat st;
        off_t off = 0;
        int fd, e;

        fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
        if (fd < 0)
                return error_set(reterr, errno, "memfd_create: %s", strerror(errno));
        if (fstat(exe_fd, &st) < 0)
                goto fail;
        while (off < st.st_size) {
                ssize_t n = sendfile(fd, exe_fd, &off, (size_t) (st.st_size - off));
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0) {
                        if (n == 0)
                                errno = EIO;
                        goto fail;
                }
        }
        if (fchmod(fd, 0555) < 0 ||
            fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0)
                goto fail;
        *ret_fd = fd;
        return 0;
fail:
        e = errno;
        close(fd);
        return error_set(reterr, e, "copy \"%s\" into a sealed memfd: %s", name, strerror(e));
}

/* The memfd copy of HELPER_NAME beside the binary at exe_link, or -1 in *ret_fd when there is
 * none. */
static int seal_memfd_helper(const char *exe_link, int *ret_fd, struct error **reterr)
{
        cleanup_free char *dir_buf = xstrdup(exe_link);
        cleanup_close int dir = open(dirname(dir_buf), O_PATH | O_DIRECTORY | O_CLOEXEC);
        cleanup_close int helper = -1;

        *ret_fd = -1;
        if (dir < 0)
                return error_set(reterr, errno, "open the folder of \"%s\": %s", exe_link,
                                 strerror(errno));
        helper = openat(dir, HELPER_NAME, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (helper < 0 && errno == ENOENT)
                return 0;
        if (helper < 0)
                return error_set(reterr, errno, "open \"%s\" beside \"%s\": %s", HELPER_NAME,
                                 exe_link, strerror(errno));
        return seal_memfd(helper, HELPER_NAME, ret_fd, reterr);
}

/* The sealed views of this binary and, when ret_helper_fd, of the helper beside it (-1 when
 * there is none). */
static int seal_open(int *ret_fd, int *ret_helper_fd, const char **ret_how, struct error **reterr)
{
        cleanup_error struct error *ovl_err = NULL;
        cleanup_close int exe = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
        char link[PATH_MAX];
        ssize_t n;
        int r;

        if (ret_helper_fd)
                *ret_helper_fd = -1;
        if (exe < 0)
                return error_set(reterr, errno, "seal the binary: open /proc/self/exe: %s",
                                 strerror(errno));
        r = seal_overlay(exe, ret_fd, ret_helper_fd, &ovl_err);
        if (r >= 0) {
                if (ret_how)
                        *ret_how = "overlayfs";
                return 0;
        }
        r = seal_memfd(exe, "flexlet", ret_fd, reterr);
        if (r < 0)
                return error_wrap(reterr, "seal the binary (%s, then)", ovl_err->message);
        if (ret_helper_fd) {
                n = readlink("/proc/self/exe", link, sizeof(link) - 1);
                if (n <= 0)
                        r = error_set(reterr, errno ? errno : EINVAL,
                                      "seal the helper: read /proc/self/exe: %s",
                                      strerror(errno ? errno : EINVAL));
                else {
                        link[n] = '\0';
                        r = seal_memfd_helper(link, ret_helper_fd, reterr);
                }
                if (r < 0) {
                        close(*ret_fd);
                        return error_wrap(reterr, "seal the helper");
                }
        }
        if (ret_how)
                *ret_how = "memfd";
        return 0;
}

int runtime_exe_seal_open(int *ret_fd, const char **ret_how, struct error **reterr)
{
        return seal_open(ret_fd, NULL, ret_how, reterr);
}

/* In the sealed process: takes the helper's fd the sealing process left (HELPER_FD_ENV), once
 * it proves sealed too; above fd 3, which the spawners write over between fork and exec. */
static int helper_adopt(struct error **reterr)
{
        const char *v = getenv(HELPER_FD_ENV);
        struct stat st;
        char *end;
        long fd;
        int r;

        if (!v)
                return 0;
        errno = 0;
        fd = strtol(v, &end, 10);
        if (errno || *end || end == v || fd < 3 || fd > 1 << 20)
                return error_set(reterr, EINVAL, "seal the helper: bad %s \"%s\"", HELPER_FD_ENV,
                                 v);
        (void) unsetenv(HELPER_FD_ENV);
        if (fstat((int) fd, &st) < 0 || !S_ISREG(st.st_mode))
                return error_set(reterr, EBADF, "seal the helper: fd %ld is not its binary", fd);
        r = runtime_exe_sealed((int) fd);
        if (r <= 0)
                return error_set(reterr, r < 0 ? -r : EIO, "seal the helper: fd %ld is not sealed",
                                 fd);
        helper_fd = fcntl((int) fd, F_DUPFD_CLOEXEC, 4);
        if (helper_fd < 0)
                return error_set(reterr, errno, "seal the helper: dup: %s", strerror(errno));
        close((int) fd);
        return 0;
}

void rt_helper_exec(char *const *argv)
{
        if (helper_fd >= 0)
                syscall(SYS_execveat, helper_fd, "", argv, environ, AT_EMPTY_PATH);
        else
                execve("/proc/self/exe", argv, environ);
}

bool runtime_helper_binary(void)
{
        return helper_fd >= 0;
}

int runtime_exe_reexec_sealed(char **argv, struct error **reterr)
{
        cleanup_close int exe = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
        const char *how;
        int r, fd, helper = -1;
        char num[16];

        if (exe < 0)
                return error_set(reterr, errno, "seal the binary: open /proc/self/exe: %s",
                                 strerror(errno));
        r = runtime_exe_sealed(exe);
        if (r < 0)
                return error_set(reterr, -r, "seal the binary: %s", strerror(-r));
        if (r > 0) {
                (void) unsetenv(EXESEAL_ENV);
                return helper_adopt(reterr);
        }
        if (getenv(EXESEAL_ENV))
                return error_set(reterr, EIO,
                                 "seal the binary: re-executed from its sealed copy, yet "
                                 "/proc/self/exe is not sealed");
        r = seal_open(&fd, &helper, &how, reterr);
        if (r < 0)
                return r;
        /* the helper's fd lives on across the exec (the sealed process adopts it) */
        (void) snprintf(num, sizeof(num), "%d", helper);
        if (setenv(EXESEAL_ENV, how, 1) < 0 ||
            (helper >= 0 && (fcntl(helper, F_SETFD, 0) < 0 || setenv(HELPER_FD_ENV, num, 1) < 0))) {
                r = errno;
                close(fd);
                if (helper >= 0)
                        close(helper);
                (void) unsetenv(EXESEAL_ENV);
                return error_set(reterr, r, "seal the binary: pass it on: %s", strerror(r));
        }
        /* the fd is close-on-exec: an ELF binary runs from it all the same */
        syscall(SYS_execveat, fd, "", argv, environ, AT_EMPTY_PATH);
        r = errno;
        close(fd);
        if (helper >= 0)
                close(helper);
        (void) unsetenv(EXESEAL_ENV);
        (void) unsetenv(HELPER_FD_ENV);
        return error_set(reterr, r, "seal the binary: execute its sealed copy (%s): %s", how,
                         strerror(r));
}
