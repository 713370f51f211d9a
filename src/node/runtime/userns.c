/* userns.c: the runtime's user namespaces (K8S KEP-127, hostUsers: false). The sandbox's side:
 * a new user namespace whose uid_map and gid_map a helper child, still in the host's namespace,
 * writes for it, before the pod's other namespaces are made (so they are owned by it). The
 * container's side: finding the sandbox's namespace, and idmapped mounts (mount_setattr
 * MOUNT_ATTR_IDMAP on an open_tree clone) through which host files owned by 0 are 0 inside.
 * The agent's side: a probe that a volume can be idmapped before a container is started on it.
 * Which range a pod gets is the node's (src/node/userns.c). */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/alloc.h"
#include "node/runtime/runtime-internal.h"

#ifndef TMPFS_MAGIC
# define TMPFS_MAGIC 0x01021994
#endif

static int write_file(const char *path, const char *text)
{
        int fd = open(path, O_WRONLY | O_CLOEXEC), r = 0;
        size_t len = strlen(text);

        if (fd < 0)
                return -errno;
        if (write(fd, text, len) != (ssize_t) len)
                r = errno ? -errno : -EIO;
        close(fd);
        return r;
}

int rt_userns_unshare(uint32_t base, uint32_t length, char *err, size_t errlen)
{
        int go[2], done[2];
        pid_t self = getpid(), child;
        char c = 0, why[256] = "";
        int status, r = 0;
        ssize_t n;

        if (pipe2(go, O_CLOEXEC) < 0)
                return snprintf(err, errlen, "pipe: %s", strerror(errno)), -errno;
        if (pipe2(done, O_CLOEXEC) < 0) {
                r = -errno;
                close(go[0]);
                close(go[1]);
                return snprintf(err, errlen, "pipe: %s", strerror(-r)), r;
        }
        child = fork();
        if (child < 0) {
                r = -errno;
                (void) snprintf(err, errlen, "fork: %s", strerror(-r));
                goto out;
        }
        if (child == 0) {
                /* runc's nsexec: the parent of the new namespace, in the host's, writes its
                 * maps. setgroups stays "allow" (runc writes "deny" only when rootless), so the
                 * container's supplementary groups can be set inside */
                char path[64], map[64], msg[256];
                int e;

                close(go[1]);
                close(done[0]);
                if (read(go[0], &c, 1) != 1)
                        _exit(1);
                (void) snprintf(map, sizeof(map), "0 %u %u\n", base, length);
                (void) snprintf(path, sizeof(path), "/proc/%d/uid_map", (int) self);
                e = write_file(path, map);
                if (e == 0) {
                        (void) snprintf(path, sizeof(path), "/proc/%d/gid_map", (int) self);
                        e = write_file(path, map);
                }
                if (e < 0) {
                        (void) snprintf(msg, sizeof(msg), "write %s: %s", path, strerror(-e));
                        (void) write(done[1], msg, strlen(msg));
                        _exit(1);
                }
                _exit(0);
        }
        close(go[0]);
        go[0] = -1;
        close(done[1]);
        done[1] = -1;
        if (unshare(CLONE_NEWUSER) < 0) {
                r = -errno;
                (void) snprintf(err, errlen, "unshare the user namespace: %s", strerror(-r));
                (void) kill(child, SIGKILL);
                (void) waitpid(child, NULL, 0);
                goto out;
        }
        if (write(go[1], &c, 1) != 1)
                r = -EIO;
        n = read(done[0], why, sizeof(why) - 1);
        while (waitpid(child, &status, 0) < 0 && errno == EINTR)
                ;
        if (r == 0 && (n > 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)) {
                why[n > 0 ? n : 0] = '\0';
                r = -EPERM;
                (void) snprintf(err, errlen, "map the user namespace's IDs: %s",
                                *why ? why : "the helper failed");
                goto out;
        }
        /* root of the new namespace: host ID base */
        if (r == 0 && (setresgid(0, 0, 0) < 0 || setresuid(0, 0, 0) < 0)) {
                r = -errno;
                (void) snprintf(err, errlen, "become root of the user namespace: %s", strerror(-r));
        }
out:
        for (int i = 0; i < 2; i++) {
                if (go[i] >= 0)
                        close(go[i]);
                if (done[i] >= 0)
                        close(done[i]);
        }
        return r;
}

int rt_userns_of_pid(pid_t pid, int pidfd, int *ret_fd, uint32_t *ret_base)
{
        char path[64], line[128];
        struct stat ours, theirs;
        unsigned long inside, outside, length;
        FILE *f;
        int fd;

        (void) snprintf(path, sizeof(path), "/proc/%d/ns/user", (int) pid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        if (fstat(fd, &theirs) < 0 || stat("/proc/self/ns/user", &ours) < 0) {
                int e = -errno;
                close(fd);
                return e;
        }
        if (theirs.st_ino == ours.st_ino && theirs.st_dev == ours.st_dev) {
                close(fd);
                *ret_fd = -1;
                *ret_base = 0;
                return 0;
        }
        (void) snprintf(path, sizeof(path), "/proc/%d/uid_map", (int) pid);
        f = fopen(path, "re");
        if (!f || !fgets(line, sizeof(line), f) ||
            sscanf(line, "%lu %lu %lu", &inside, &outside, &length) != 3 || inside != 0 ||
            outside == 0 || outside > UINT32_MAX) {
                if (f)
                        fclose(f);
                close(fd);
                return -EBADMSG;
        }
        fclose(f);
        /* still the process that was started: the pid was not reused while we read */
        if (rt_pidfd_wait(pidfd, 0) != 0) {
                close(fd);
                return -ESRCH;
        }
        *ret_fd = fd;
        *ret_base = (uint32_t) outside;
        return 0;
}

int rt_userns_idmap(int mntfd, int userns_fd)
{
        struct mount_attr attr = { .attr_set = MOUNT_ATTR_IDMAP,
                                   .userns_fd = (uint64_t) userns_fd };

        if (mount_setattr(mntfd, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof(attr)) < 0)
                return -errno;
        return 0;
}

int rt_userns_bind_idmapped(const char *source, const char *target, int userns_fd)
{
        int mfd, tfd = -1, r = 0;

        mfd = open_tree(AT_FDCWD, source, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
        if (mfd < 0)
                return -errno;
        r = rt_userns_idmap(mfd, userns_fd);
        if (r == 0) {
                tfd = open(target, O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
                if (tfd < 0)
                        r = -errno;
        }
        if (r == 0 &&
            move_mount(mfd, "", tfd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
                r = -errno;
        if (tfd >= 0)
                close(tfd);
        close(mfd);
        return r;
}

/* Linux >= major.minor */
static bool kernel_at_least(int major, int minor)
{
        struct utsname u;
        int a = 0, b = 0;

        if (uname(&u) < 0 || sscanf(u.release, "%d.%d", &a, &b) != 2)
                return false;
        return a > major || (a == major && b >= minor);
}

int runtime_userns_check_volume(const char *sandbox_dir, const char *path, struct error **reterr)
{
        cleanup_close int pidfd = -1, userns_fd = -1, src = -1, mfd = -1;
        struct statfs sf;
        pid_t pid;
        uint64_t ticks;
        uint32_t base;
        int r;

        r = rt_sandbox_read_state(sandbox_dir, &pid, &ticks, NULL);
        if (r < 0)
                return error_set(reterr, -r, "the pod sandbox is not running");
        pidfd = rt_pidfd_open_checked(pid, ticks);
        if (pidfd < 0)
                return error_set(reterr, -pidfd, "the pod sandbox is not running");
        r = rt_userns_of_pid(pid, pidfd, &userns_fd, &base);
        if (r < 0)
                return error_set(reterr, -r, "the pod sandbox's user namespace: %s", strerror(-r));
        if (userns_fd < 0)
                return 0; /* the host's: nothing to map */
        /* the volume's own folder (the agent made it; a subPath is resolved by the runtime in
         * the clone of this very mount, so the same filesystem decides) */
        src = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (src < 0)
                return error_set(reterr, errno, "open \"%s\": %s", path, strerror(errno));
        mfd = open_tree(src, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
        if (mfd < 0)
                return error_set(reterr, errno, "clone the mount of \"%s\": %s", path,
                                 strerror(errno));
        r = rt_userns_idmap(mfd, userns_fd);
        if (r == 0)
                return 0;
        if (fstatfs(src, &sf) == 0 && sf.f_type == TMPFS_MAGIC && !kernel_at_least(6, 3))
                return error_set(reterr, -r,
                                 "an idmapped mount of the memory volume for the pod's user "
                                 "namespace needs Linux >= 6.3 (tmpfs idmapping): %s",
                                 strerror(-r));
        return error_set(reterr, -r,
                         "the volume's filesystem (type 0x%lx) cannot be idmapped for the pod's "
                         "user namespace: %s",
                         fstatfs(src, &sf) == 0 ? (unsigned long) sf.f_type : 0UL, strerror(-r));
}
