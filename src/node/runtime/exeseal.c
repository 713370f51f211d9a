/* exeseal.c: the agent runs from a sealed view of its own binary, runc's defence against
 * CVE-2019-5736. Every flexlet process a container can reach (the pod's pid 1, a container's
 * process between fork and exec, the agent itself for a hostPID pod) is this binary, and
 * /proc/PID/exe of each reopens the host's file: a container with CAP_SYS_PTRACE could keep an
 * O_PATH fd to it and write it once nothing executes it (the kernel's ETXTBSY holds only while
 * it runs). `flexlet serve` re-executes itself once, at its start, from a read-only overlayfs
 * mount of the binary's folder that no mount table holds; every helper it starts runs
 * /proc/self/exe and so the same file, where a write fails with EROFS. Where overlayfs cannot be
 * used, a sealed memfd copy. Not here: which processes are spawned (util.c, sandbox.c). */
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
static int seal_overlay(int exe_fd, int *ret_fd, struct error **reterr)
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
        close(mnt);
        if (fd < 0)
                return error_set(reterr, e, "open \"%s\" in its overlay: %s", link, strerror(e));
        /* the file there must be the one we run (not replaced since): same inode and size */
        if (fstat(exe_fd, &want) < 0 || fstat(fd, &got) < 0 || !S_ISREG(got.st_mode) ||
            got.st_ino != want.st_ino || got.st_size != want.st_size ||
            got.st_mtim.tv_sec != want.st_mtim.tv_sec ||
            got.st_mtim.tv_nsec != want.st_mtim.tv_nsec) {
                close(fd);
                return error_set(reterr, ESTALE, "\"%s\" is not the running binary any more", link);
        }
        *ret_fd = fd;
        return 0;
}

/* runc < 1.2 and its fallback: a memfd copy, sealed against writes and resizes. */
static int seal_memfd(int exe_fd, int *ret_fd, struct error **reterr)
{
        struct stat st;
        off_t off = 0;
        int fd, e;

        fd = memfd_create("flexlet", MFD_CLOEXEC | MFD_ALLOW_SEALING);
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
        return error_set(reterr, e, "copy the binary into a sealed memfd: %s", strerror(e));
}

int runtime_exe_seal_open(int *ret_fd, const char **ret_how, struct error **reterr)
{
        cleanup_error struct error *ovl_err = NULL;
        cleanup_close int exe = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
        int r;

        if (exe < 0)
                return error_set(reterr, errno, "seal the binary: open /proc/self/exe: %s",
                                 strerror(errno));
        r = seal_overlay(exe, ret_fd, &ovl_err);
        if (r >= 0) {
                if (ret_how)
                        *ret_how = "overlayfs";
                return 0;
        }
        r = seal_memfd(exe, ret_fd, reterr);
        if (r < 0)
                return error_wrap(reterr, "seal the binary (%s, then)", ovl_err->message);
        if (ret_how)
                *ret_how = "memfd";
        return 0;
}

int runtime_exe_reexec_sealed(char **argv, struct error **reterr)
{
        cleanup_close int exe = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
        const char *how;
        int r, fd;

        if (exe < 0)
                return error_set(reterr, errno, "seal the binary: open /proc/self/exe: %s",
                                 strerror(errno));
        r = runtime_exe_sealed(exe);
        if (r < 0)
                return error_set(reterr, -r, "seal the binary: %s", strerror(-r));
        if (r > 0) {
                (void) unsetenv(EXESEAL_ENV);
                return 0;
        }
        if (getenv(EXESEAL_ENV))
                return error_set(reterr, EIO,
                                 "seal the binary: re-executed from its sealed copy, yet "
                                 "/proc/self/exe is not sealed");
        r = runtime_exe_seal_open(&fd, &how, reterr);
        if (r < 0)
                return r;
        if (setenv(EXESEAL_ENV, how, 1) < 0) {
                close(fd);
                return error_set(reterr, errno, "seal the binary: setenv: %s", strerror(errno));
        }
        /* the fd is close-on-exec: an ELF binary runs from it all the same */
        syscall(SYS_execveat, fd, "", argv, environ, AT_EMPTY_PATH);
        r = errno;
        close(fd);
        (void) unsetenv(EXESEAL_ENV);
        return error_set(reterr, r, "seal the binary: execute its sealed copy (%s): %s", how,
                         strerror(r));
}
