/* supervisor.c: the helper processes' entry point and the container supervisor: one process
 * per container, outside the container's cgroups, that creates the container process (the
 * pod's pid/ipc/uts/net namespaces, a private mount namespace over an overlay of the image, /proc,
 * a minimal /dev, a read-only /sys, the volumes, pivot_root, cgroups, env, exec), copies its
 * stdout/stderr (or its terminal) into the CRI log and to attach sessions (attach.c), keeps its
 * stdin, and records its start and exit in the state dir. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/utf8.h"
#include "node/runtime/runtime-internal.h"

struct supervisor {
        const char *state_dir;
        int dfd;
        struct rt_spec_holder h;
        const struct runtime_container_spec *spec;
        char *hostname;
        pid_t sandbox_pid;
        int notify_fd;
        struct rt_seccomp_bpf seccomp; /* the compiled filter, read before the fork */
        /* K8S KEP-127: the sandbox's user namespace when it is not the host's, else -1; the
         * host ID its 0 maps to */
        int userns_fd;
        uint32_t userns_base;
        /* a page shared with the container's child until its exec: how long its setup took,
         * and the confinement's share of it (recorded in started.json; node-bench reads them) */
        struct setup_timing *timing;
        /* K8S terminationMessagePath: the state dir's termination-log, open read-write; -1 */
        int term_fd;
};

/* CLOCK_MONOTONIC ns; written by the child only, read by the supervisor after the exec */
struct setup_timing {
        int64_t total_ns;   /* fork to just before execve */
        int64_t confine_ns; /* the confinement steps (confine.c, the /sys remount) */
};

static int64_t mono_ns(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ------------------------------------------------------------------ the container process */

/* Go's error words are lower case ("no such file or directory"); so are upstream's messages. */
static const char *errstr(int e, char buf[static 128])
{
        (void) snprintf(buf, 128, "%s", strerror(e));
        if (buf[0] >= 'A' && buf[0] <= 'Z')
                buf[0] = (char) (buf[0] - 'A' + 'a');
        return buf;
}

/* Tells the supervisor why the container could not start, and ends the child. */
_noreturn_ _printf_(2, 3) static void child_fail(int errfd, const char *fmt, ...)
{
        char msg[2048];
        va_list ap;
        int n;

        va_start(ap, fmt);
        n = vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        if (n < 0)
                n = 0;
        if ((size_t) n >= sizeof(msg))
                n = sizeof(msg) - 1;
        (void) write(errfd, msg, (size_t) n);
        _exit(127);
}

/* OCI process.oomScoreAdj, written by the process itself before exec (as runc's init does);
 * its children inherit it. The kernel refuses a value below the process's current one without
 * CAP_SYS_RESOURCE (EACCES: __set_oom_adj in fs/proc/base.c); the process then keeps its own,
 * the nearest it may have, as containerd does with restrict_oom_score_adj (a node running
 * without that capability, like this project's CI container). Anything else fails the start. */
static void set_oom_score_adj(int errfd, int adj)
{
        char value[16], e[128];
        int fd, n, err = 0;

        n = snprintf(value, sizeof(value), "%d", adj);
        fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
        if (fd < 0 || write(fd, value, (size_t) n) != n)
                err = errno;
        if (fd >= 0)
                close(fd);
        if (err && err != EACCES)
                child_fail(errfd, "write /proc/self/oom_score_adj: %s", errstr(err, e));
}

static void fd_path(int fd, char buf[static 32])
{
        (void) snprintf(buf, 32, "/proc/self/fd/%d", fd);
}

/* Mounts onto target inside the root (created as a dir, or as a file when is_file). */
static int mount_in_root(int rootfd, const char *target, bool is_file, const char *source,
                         const char *fstype, unsigned long flags, const char *data)
{
        char p[32];
        int fd = rt_create_in_root(rootfd, target, is_file), r = 0;

        if (fd < 0)
                return fd;
        fd_path(fd, p);
        if (mount(source, p, fstype, flags, data) < 0)
                r = -errno;
        close(fd);
        return r;
}

/* Makes the mount at target read-only, keeping its nosuid/nodev/noexec/atime flags. */
static int remount_ro(int rootfd, const char *target, unsigned long extra)
{
        static const struct {
                unsigned long st, ms;
        } map[] = { { ST_NOSUID, MS_NOSUID },         { ST_NODEV, MS_NODEV },
                    { ST_NOEXEC, MS_NOEXEC },         { ST_NOATIME, MS_NOATIME },
                    { ST_NODIRATIME, MS_NODIRATIME }, { ST_RELATIME, MS_RELATIME } };
        struct statvfs sv;
        unsigned long flags = MS_BIND | MS_REMOUNT | MS_RDONLY | extra;
        char p[32];
        int fd = rt_open_in_root(rootfd, target, O_PATH), r = 0;

        if (fd < 0)
                return fd;
        if (fstatvfs(fd, &sv) == 0)
                for (size_t i = 0; i < ARRAY_SIZE(map); i++)
                        if (sv.f_flag & map[i].st)
                                flags |= map[i].ms;
        fd_path(fd, p);
        if (mount(NULL, p, NULL, flags, NULL) < 0)
                r = -errno;
        close(fd);
        return r;
}

static size_t path_depth(const char *p)
{
        size_t n = 0;
        bool in = false;

        for (; *p; p++) {
                if (*p == '/')
                        in = false;
                else if (!in) {
                        in = true;
                        n++;
                }
        }
        return n;
}

static bool same_path(const char *a, const char *b)
{
        /* compares component by component, ignoring repeated and trailing slashes */
        for (;;) {
                while (*a == '/')
                        a++;
                while (*b == '/')
                        b++;
                if (!*a || !*b)
                        return !*a && !*b;
                while (*a && *a != '/' && *a == *b) {
                        a++;
                        b++;
                }
                if ((*a && *a != '/') || (*b && *b != '/'))
                        return false;
        }
}

static int by_depth(const void *x, const void *y)
{
        const struct runtime_mount *const *a = x, *const *b = y;
        size_t da = path_depth((*a)->target), db = path_depth((*b)->target);

        if (da != db)
                return da < db ? -1 : 1;
        return *a < *b ? -1 : (*a > *b); /* stable: keep the spec's order */
}

/* The mount options of a tmpfs or devpts the supervisor mounts for the container: in a user
 * namespace of the pod's own, owned by the pod's root (its tty group for devpts: gid_offset 5),
 * as they would be had the pod's root mounted them. */
static const char *id_options(char buf[static 128], const struct supervisor *sv, const char *base,
                              unsigned gid_offset)
{
        if (sv->userns_fd < 0)
                return base;
        if (gid_offset)
                (void) snprintf(buf, 128, "%s,gid=%u", base, sv->userns_base + gid_offset);
        else
                (void) snprintf(buf, 128, "%s,uid=%u,gid=%u", base, sv->userns_base,
                                sv->userns_base);
        return buf;
}

static void setup_dev(int rootfd, const struct supervisor *sv, int errfd)
{
        const struct runtime_container_spec *s = sv->spec;
        static const char *const devices[] = { "null", "zero", "full", "random", "urandom", "tty" };
        static const struct {
                const char *target, *link;
        } links[] = { { "dev/fd", "/proc/self/fd" },       { "dev/stdin", "/proc/self/fd/0" },
                      { "dev/stdout", "/proc/self/fd/1" }, { "dev/stderr", "/proc/self/fd/2" },
                      { "dev/ptmx", "pts/ptmx" },          { "dev/core", "/proc/kcore" } };
        char e[128];
        bool shm_volume = false;
        int r, devfd;

        char opts[128];
        r = mount_in_root(rootfd, "dev", false, "tmpfs", "tmpfs", MS_NOSUID | MS_STRICTATIME,
                          id_options(opts, sv, "mode=755,size=65536k", 0));
        if (r < 0)
                child_fail(errfd, "mount /dev: %s", errstr(-r, e));
        for (size_t i = 0; i < ARRAY_SIZE(devices); i++) {
                char target[32], source[32];

                (void) snprintf(target, sizeof(target), "dev/%s", devices[i]);
                (void) snprintf(source, sizeof(source), "/dev/%s", devices[i]);
                r = mount_in_root(rootfd, target, true, source, NULL, MS_BIND, NULL);
                if (r < 0)
                        child_fail(errfd, "bind %s: %s", source, errstr(-r, e));
        }
        devfd = rt_open_in_root(rootfd, "dev", O_PATH | O_DIRECTORY);
        if (devfd < 0)
                child_fail(errfd, "open /dev: %s", errstr(-devfd, e));
        for (size_t i = 0; i < ARRAY_SIZE(links); i++)
                if (symlinkat(links[i].link, devfd, links[i].target + 4) < 0 && errno != EEXIST)
                        child_fail(errfd, "symlink /%s: %s", links[i].target, errstr(errno, e));
        close(devfd);
        r = mount_in_root(rootfd, "dev/pts", false, "devpts", "devpts", MS_NOSUID | MS_NOEXEC,
                          sv->userns_fd < 0
                                  ? "newinstance,ptmxmode=0666,mode=0620,gid=5"
                                  : id_options(opts, sv, "newinstance,ptmxmode=0666,mode=0620", 5));
        if (r < 0)
                child_fail(errfd, "mount /dev/pts: %s", errstr(-r, e));
        for (size_t i = 0; i < s->n_mounts; i++)
                shm_volume |= same_path(s->mounts[i].target, "/dev/shm");
        if (!shm_volume) {
                /* K8S: a container's /dev/shm is 64 MiB unless a volume is mounted there */
                r = mount_in_root(rootfd, "dev/shm", false, "shm", "tmpfs",
                                  MS_NOSUID | MS_NODEV | MS_NOEXEC,
                                  id_options(opts, sv, "mode=1777,size=65536k", 0));
                if (r < 0)
                        child_fail(errfd, "mount /dev/shm: %s", errstr(-r, e));
        }
}

/* Attaches a bind mount of the source fd (recursive, as containerd binds volumes) at target,
 * created inside the root: open_tree clones what the fd is, so no host path is walked again,
 * and the read-only flag is set on the clone before move_mount attaches it, so it cannot miss
 * (a remount by path would find whatever a pod swapped in at target meanwhile). -EPERM for a
 * target that resolves into the container's /proc. */
static int bind_volume(int rootfd, int srcfd, const struct runtime_mount *m, bool is_file,
                       int userns_fd)
{
        cleanup_close int tfd = -1, mfd = -1;
        struct statfs sf;

        tfd = rt_create_in_root(rootfd, m->target, is_file);
        if (tfd < 0)
                return tfd;
        /* runc's checkProcMount: a volume over a file of /proc could stand in for the kernel's */
        if (fstatfs(tfd, &sf) < 0)
                return -errno;
        if (sf.f_type == PROC_SUPER_MAGIC)
                return -EPERM;
        mfd = open_tree(srcfd, "",
                        OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | AT_RECURSIVE);
        if (mfd < 0)
                return -errno;
        /* K8S KEP-127: the volume's files as the host has them, host 0 being the pod's root (the
         * agent checked that the filesystem allows it: runtime_userns_check_volume) */
        if (userns_fd >= 0) {
                int r = rt_userns_idmap(mfd, userns_fd);
                if (r < 0)
                        return r;
        }
        if (m->read_only) {
                /* K8S: readOnly makes the volume's own mount read-only, not its submounts */
                struct mount_attr attr = { .attr_set = MOUNT_ATTR_RDONLY };
                if (mount_setattr(mfd, "", AT_EMPTY_PATH, &attr, sizeof(attr)) < 0)
                        return -errno;
        }
        if (move_mount(mfd, "", tfd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
                return -errno;
        return 0;
}

static void setup_volumes(int rootfd, const struct supervisor *sv, int errfd)
{
        const struct runtime_container_spec *s = sv->spec;
        cleanup_free const struct runtime_mount **order = xcalloc(s->n_mounts + 1, sizeof(*order));
        char e[128];

        /* parents before children, whatever order the pod lists them in (as containerd) */
        for (size_t i = 0; i < s->n_mounts; i++)
                order[i] = &s->mounts[i];
        qsort(order, s->n_mounts, sizeof(*order), by_depth);
        for (size_t i = 0; i < s->n_mounts; i++) {
                const struct runtime_mount *m = order[i];
                struct error *err = NULL;
                struct stat st;
                int fd, r;

                /* the volume's fd, or its subPath's resolved inside it: what gets mounted */
                fd = rt_mount_source_open(m, &err);
                if (fd < 0)
                        child_fail(errfd, "mount volume at \"%s\": %s", m->target, err->message);
                if (fstat(fd, &st) < 0)
                        child_fail(errfd, "mount volume at \"%s\": stat its source: %s", m->target,
                                   errstr(errno, e));
                r = bind_volume(rootfd, fd, m, !S_ISDIR(st.st_mode), sv->userns_fd);
                if (r == -EPERM)
                        child_fail(errfd,
                                   "check proc-safety of %s mount: \"%s\" cannot be mounted "
                                   "because it is inside /proc",
                                   m->target, m->target);
                if (r < 0)
                        child_fail(errfd, "mount volume \"%s\"%s%s at \"%s\": %s", m->source,
                                   m->sub_path && *m->sub_path ? " subPath " : "",
                                   m->sub_path && *m->sub_path ? m->sub_path : "", m->target,
                                   errstr(-r, e));
                close(fd);
        }
}

/* K8S (kuberuntime_container.go makeMounts): the termination message file, a host file of the
 * container's own, is bind-mounted at terminationMessagePath after the volumes. The target is
 * made inside the root (openat2 RESOLVE_IN_ROOT: a link the image or a volume put there
 * resolves inside the container, never to the host); the mount is cloned from the file in the
 * container's own state dir, checked to be the one the supervisor reads. */
static void setup_termination_log(int rootfd, const struct supervisor *sv, int errfd)
{
        const char *path = sv->spec->termination_message_path;
        cleanup_close int tfd = -1, mfd = -1, sfd = -1;
        cleanup_free char *src = NULL;
        struct stat a, b;
        struct statfs sf;
        char e[128];

        if (sv->term_fd < 0)
                return;
        /* runc: "mount destination ... not absolute" */
        if (path[0] != '/')
                child_fail(errfd, "mount destination %s not absolute", path);
        tfd = rt_create_in_root(rootfd, path, true);
        if (tfd < 0)
                child_fail(errfd, "create the termination message file at \"%s\": %s", path,
                           errstr(-tfd, e));
        if (fstatfs(tfd, &sf) == 0 && sf.f_type == PROC_SUPER_MAGIC)
                child_fail(errfd,
                           "check proc-safety of %s mount: \"%s\" cannot be mounted because it "
                           "is inside /proc",
                           path, path);
        /* open_tree clones only a mount of this mount namespace: the file again, from here,
         * and it must be the one the supervisor holds */
        src = xasprintf("%s/" RT_TERMINATION_LOG_FILE, sv->state_dir);
        sfd = open(src, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        if (sfd < 0 || fstat(sfd, &a) < 0 || fstat(sv->term_fd, &b) < 0 || a.st_dev != b.st_dev ||
            a.st_ino != b.st_ino)
                child_fail(errfd, "open the termination message file \"%s\": %s", src,
                           sfd < 0 ? errstr(errno, e) : "not the supervisor's");
        mfd = open_tree(sfd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
        if (mfd < 0 ||
            move_mount(mfd, "", tfd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
                child_fail(errfd, "mount the termination message file at \"%s\": %s", path,
                           errstr(errno, e));
}

char *rt_passwd_home(uid_t uid)
{
        FILE *f = fopen("/etc/passwd", "re");
        char *line = NULL, *home = NULL;
        size_t cap = 0;

        if (!f)
                return NULL;
        while (!home && getline(&line, &cap, f) > 0) {
                char *fields[7] = { 0 }, *p = line;
                size_t n = 0;

                line[strcspn(line, "\n")] = '\0';
                while (n < 7) {
                        fields[n++] = p;
                        p = strchr(p, ':');
                        if (!p)
                                break;
                        *p++ = '\0';
                }
                if (n >= 6 && fields[2] && strtoul(fields[2], NULL, 10) == uid && *fields[2])
                        home = xstrdup(fields[5]);
        }
        free(line);
        fclose(f);
        return home;
}

/* mkdir -p of the working dir in the container's root (after pivot_root). Made by the host's
 * root, so in a pod with a user namespace each folder made is given to the pod's root, as
 * runc, which makes it inside the namespace, leaves it. */
static int make_workdir(const char *wd, const struct supervisor *sv)
{
        cleanup_free char *path = xstrdup(wd);

        for (char *p = path + 1;; p++) {
                char c = *p;

                if (c != '/' && c != '\0')
                        continue;
                *p = '\0';
                if (mkdir(path, 0755) == 0) {
                        if (sv->userns_fd >= 0 &&
                            lchown(path, sv->userns_base, sv->userns_base) < 0)
                                return -errno;
                } else if (errno != EEXIST) {
                        return -errno;
                }
                *p = c;
                if (!c)
                        return 0;
        }
}

/* Go's exec.LookPath, the way runc finds argv[0]: as given when it holds a '/', else the first
 * executable regular file along $PATH. Sets *ret (caller frees) or fails the child. */
static char *look_path(const char *file, const char *path, int errfd)
{
        char e[128];
        struct stat st;

        if (strchr(file, '/')) {
                if (stat(file, &st) < 0)
                        child_fail(errfd, "exec: \"%s\": stat %s: %s", file, file,
                                   errstr(errno, e));
                if (S_ISDIR(st.st_mode) || !(st.st_mode & 0111))
                        child_fail(errfd, "exec: \"%s\": permission denied", file);
                return xstrdup(file);
        }
        if (*file) {
                cleanup_free char *copy = xstrdup(path ? path : "");

                /* strtok would drop empty elements, which mean "." */
                for (char *dir = copy, *next; dir; dir = next) {
                        char *candidate;

                        next = strchr(dir, ':');
                        if (next)
                                *next++ = '\0';
                        candidate = xasprintf("%s/%s", *dir ? dir : ".", file);
                        if (stat(candidate, &st) == 0 && !S_ISDIR(st.st_mode) &&
                            (st.st_mode & 0111))
                                return candidate;
                        free(candidate);
                }
        }
        child_fail(errfd, "exec: \"%s\": executable file not found in $PATH", file);
}

static const char *env_value(char **env, const char *name)
{
        size_t n = strlen(name);

        for (size_t i = 0; env[i]; i++)
                if (strncmp(env[i], name, n) == 0 && env[i][n] == '=')
                        return env[i] + n + 1;
        return NULL;
}

/* K8S/containerd: the container's own cgroups at /sys/fs/cgroup, so a process inside reads its
 * limits (`cat /sys/fs/cgroup/memory.max` after a resize), read-only unless privileged. On v2 the
 * container has a cgroup namespace of its own rooted at its cgroup (runc's default on v2) and
 * cgroup2 is mounted there; on v1 (no namespace, as runc there) a tmpfs holds each hierarchy's
 * container cgroup bind-mounted under the hierarchy's name. After the cgroups are joined and
 * /sys is mounted. */
static void setup_cgroupfs(int rootfd, const struct supervisor *sv, int errfd)
{
        const struct runtime_container_spec *s = sv->spec;
        unsigned long ro = s->security.privileged ? 0 : MS_RDONLY;
        char e[128];
        int r;

        if (!s->cgroup_procs || !s->cgroup_procs[0])
                return;
        if (access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0) {
                if (unshare(CLONE_NEWCGROUP) < 0)
                        child_fail(errfd, "unshare the cgroup namespace: %s", errstr(errno, e));
                r = mount_in_root(rootfd, "sys/fs/cgroup", false, "cgroup", "cgroup2",
                                  MS_NOSUID | MS_NODEV | MS_NOEXEC | ro, NULL);
                if (r < 0)
                        child_fail(errfd, "mount /sys/fs/cgroup: %s", errstr(-r, e));
                return;
        }
        r = mount_in_root(rootfd, "sys/fs/cgroup", false, "tmpfs", "tmpfs",
                          MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=755,size=64k");
        if (r < 0)
                child_fail(errfd, "mount /sys/fs/cgroup: %s", errstr(-r, e));
        for (size_t i = 0; s->cgroup_procs[i]; i++) {
                const char *p = s->cgroup_procs[i], *rest;
                cleanup_free char *dir = NULL, *name = NULL, *target = NULL;
                const char *slash;

                if (strncmp(p, "/sys/fs/cgroup/", 15) != 0)
                        continue;
                rest = p + 15;
                slash = strchr(rest, '/');
                if (!slash || slash == rest)
                        continue;
                name = xstrndup(rest, (size_t) (slash - rest));
                dir = xstrndup(p, strlen(p) - strlen("/cgroup.procs"));
                target = xasprintf("sys/fs/cgroup/%s", name);
                r = mount_in_root(rootfd, target, false, dir, NULL, MS_BIND, NULL);
                if (r == 0 && ro)
                        r = remount_ro(rootfd, target, MS_NOSUID | MS_NODEV | MS_NOEXEC);
                if (r < 0)
                        child_fail(errfd, "mount /%s: %s", target, errstr(-r, e));
        }
        r = remount_ro(rootfd, "sys/fs/cgroup", MS_NOSUID | MS_NODEV | MS_NOEXEC);
        if (r < 0)
                child_fail(errfd, "mount /sys/fs/cgroup read-only: %s", errstr(-r, e));
}

/* Closes every fd above stderr but those the child still needs (keep: n of them, -1 for none):
 * what the supervisor holds (its state dir, the log, namespace and pid fds) would otherwise
 * reach the host through /proc/self/fd/N, e.g. as a workingDir (runc's CVE-2024-21626). */
static void close_all_but(int *keep, size_t n)
{
        unsigned from = 3;

        for (size_t i = 0; i < n; i++) /* sort them */
                for (size_t j = i + 1; j < n; j++)
                        if (keep[j] < keep[i]) {
                                int t = keep[i];
                                keep[i] = keep[j];
                                keep[j] = t;
                        }
        for (size_t i = 0; i < n; i++) {
                if (keep[i] < (int) from)
                        continue;
                if ((unsigned) keep[i] > from)
                        (void) close_range(from, (unsigned) keep[i] - 1, 0);
                from = (unsigned) keep[i] + 1;
        }
        (void) close_range(from, ~0U, 0);
}

/* K8S tty: the container's terminal, made in its own devpts once the root is the container's
 * (as runc's console socket): the master goes to the supervisor over ptysock, the slave is
 * the process's user's (as runc gives it). Returns the slave. */
static int make_terminal(const struct supervisor *sv, int ptysock, int errfd)
{
        char msg[512];
        int master, slave;

        if (rt_pty_open(&master, &slave, msg, sizeof(msg)) < 0)
                child_fail(errfd, "%s", msg);
        (void) fchown(slave, sv->spec->uid + sv->userns_base, (gid_t) -1);
        rt_send_fd(ptysock, "PTY", master);
        close(master);
        close(ptysock);
        return slave;
}

/* in_fd: the stdin pipe's read end (stdin without tty), else -1; ptysock: where the terminal's
 * master goes (tty), else -1 */
_noreturn_ static void container_child(struct supervisor *sv, int outfd, int errpipe_out, int errfd,
                                       int in_fd, int ptysock)
{
        const struct runtime_container_spec *s = sv->spec;
        struct rt_env pod_env;
        char **argv = NULL, **envp, *exe;
        cleanup_free char *overlay = NULL, *rootfs = NULL, *home = NULL;
        struct error *err = NULL;
        struct rt_confine confine;
        const char *wd;
        sigset_t none;
        char e[128];
        int rootfd, r, null = -1, slave = -1;
        int64_t t_start = mono_ns(), t0, confine_ns = 0;

        /* a clean slate: the supervisor's blocked and ignored signals are not the process's */
        sigemptyset(&none);
        (void) sigprocmask(SIG_SETMASK, &none, NULL);
        for (int sig = 1; sig < NSIG; sig++)
                if (sig != SIGKILL && sig != SIGSTOP)
                        (void) signal(sig, SIG_DFL);
        (void) setsid();

        /* cgroups first, while the host's /sys/fs/cgroup is in sight */
        for (size_t i = 0; s->cgroup_procs && s->cgroup_procs[i]; i++) {
                int fd = open(s->cgroup_procs[i], O_WRONLY | O_CLOEXEC);
                if (fd < 0 || write(fd, "0", 1) != 1)
                        child_fail(errfd, "join cgroup \"%s\": %s", s->cgroup_procs[i],
                                   errstr(errno, e));
                close(fd);
        }
        if (s->oom_score_adj_set)
                set_oom_score_adj(errfd, s->oom_score_adj);

        if (unshare(CLONE_NEWNS) < 0)
                child_fail(errfd, "unshare the mount namespace: %s", errstr(errno, e));
        if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
                child_fail(errfd, "make mounts private: %s", errstr(errno, e));
        rootfs = xasprintf("%s/rootfs", s->state_dir);
        {
                const char *single[2] = { s->rootfs, NULL };
                const char *const *layers = s->image_lowerdirs ? s->image_lowerdirs : single;
                struct strbuf lower;

                strbuf_init(&lower);
                for (size_t i = 0; layers[i]; i++) {
                        if (i)
                                strbuf_addch(&lower, ':');
                        if (sv->userns_fd < 0) {
                                strbuf_addstr(&lower, layers[i]);
                                continue;
                        }
                        /* K8S KEP-127: the image's files, owned by host 0, are the pod's
                         * root's: each lower layer is an idmapped clone of the image's
                         * (attached in this mount namespace only); the upper layer stores what
                         * the pod writes with its host IDs (its folder was given to the pod's
                         * root) */
                        cleanup_free char *dir = i ? xasprintf("%s/lower-%zu", s->state_dir, i)
                                                   : xasprintf("%s/lower", s->state_dir);
                        if (i && mkdir(dir, 0755) < 0 && errno != EEXIST)
                                child_fail(errfd, "create \"%s\": %s", dir, errstr(errno, e));
                        r = rt_userns_bind_idmapped(layers[i], dir, sv->userns_fd);
                        if (r < 0)
                                child_fail(errfd,
                                           "mount the image \"%s\" idmapped for the pod's user "
                                           "namespace: %s",
                                           layers[i], errstr(-r, e));
                        strbuf_addstr(&lower, dir);
                }
                overlay = xasprintf("lowerdir=%s,upperdir=%s/upper,workdir=%s/work", lower.buf,
                                    s->state_dir, s->state_dir);
                strbuf_release(&lower);
        }
        if (mount("overlay", rootfs, "overlay", 0, overlay) < 0)
                child_fail(errfd, "mount the image \"%s\" (overlay): %s", s->rootfs,
                           errstr(errno, e));
        rootfd = open(rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (rootfd < 0)
                child_fail(errfd, "open \"%s\": %s", rootfs, errstr(errno, e));

        r = mount_in_root(rootfd, "proc", false, "proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
                          NULL);
        if (r < 0)
                child_fail(errfd, "mount /proc: %s", errstr(-r, e));
        setup_dev(rootfd, sv, errfd);
        t0 = mono_ns();
        if (rt_confine_devices(rootfd, &s->security, &err) < 0)
                child_fail(errfd, "%s", err->message);
        confine_ns += mono_ns() - t0;
        r = mount_in_root(rootfd, "sys", false, "/sys", NULL, MS_BIND, NULL);
        /* K8S: a privileged container's /sys is writable */
        t0 = mono_ns();
        if (r == 0 && !s->security.privileged)
                r = remount_ro(rootfd, "sys", MS_NOSUID | MS_NODEV | MS_NOEXEC);
        confine_ns += mono_ns() - t0;
        if (r < 0)
                child_fail(errfd, "mount /sys: %s", errstr(-r, e));
        setup_cgroupfs(rootfd, sv, errfd);
        setup_volumes(rootfd, sv, errfd);
        setup_termination_log(rootfd, sv, errfd);
        /* the sysctls through the host's /proc (still in sight) before /proc/sys turns
         * read-only; then the masked and read-only paths over everything mounted */
        t0 = mono_ns();
        if (rt_confine_sysctls(&s->security, &err) < 0 ||
            rt_confine_paths(rootfd, &s->security, &err) < 0)
                child_fail(errfd, "%s", err->message);
        confine_ns += mono_ns() - t0;

        /* pivot_root(".", "."): the old root ends up under the new one; detach it */
        if (fchdir(rootfd) < 0)
                child_fail(errfd, "chdir to the root: %s", errstr(errno, e));
        if (syscall(SYS_pivot_root, ".", ".") < 0)
                child_fail(errfd, "pivot_root: %s", errstr(errno, e));
        if (umount2(".", MNT_DETACH) < 0)
                child_fail(errfd, "detach the host's root: %s", errstr(errno, e));
        if (chdir("/") < 0)
                child_fail(errfd, "chdir /: %s", errstr(errno, e));
        close(rootfd);
        if (ptysock >= 0)
                slave = make_terminal(sv, ptysock, errfd);
        close_all_but((int[]){ outfd, errpipe_out, errfd, sv->userns_fd, in_fd, slave }, 6);

        /* env and argv */
        rt_pod_env(s, &pod_env);
        home = rt_passwd_home(s->uid);
        envp = rt_process_env(s, &pod_env, sv->hostname, home);
        if (slave >= 0)
                envp = rt_env_default_term(envp);
        if (rt_process_argv(s, &pod_env, &argv, &err) < 0)
                child_fail(errfd, "%s", err->message);
        rt_env_release(&pod_env);

        /* K8S: workingDir, else the image's, else "/"; runc makes it when missing */
        wd = s->working_dir && *s->working_dir               ? s->working_dir
             : s->image_working_dir && *s->image_working_dir ? s->image_working_dir
                                                             : "/";
        if (wd[0] != '/')
                child_fail(errfd, "cwd property must be an absolute path: \"%s\"", wd);
        if (chdir(wd) < 0) {
                if (errno == ENOENT && make_workdir(wd, sv) == 0 && chdir(wd) == 0)
                        ;
                else
                        child_fail(errfd, "chdir to cwd (\"%s\") set in config.json failed: %s", wd,
                                   errstr(errno, e));
        }
        /* runc: a cwd that a magic link took outside the root has no path from it */
        {
                char cwd[4096];
                if (!getcwd(cwd, sizeof(cwd)) || cwd[0] != '/')
                        child_fail(errfd, "current working directory is outside of container mount "
                                          "namespace root -- possible container breakout detected");
        }
        /* runc: the working dir is made before the root turns read-only */
        t0 = mono_ns();
        if (rt_confine_root_readonly(&s->security, &err) < 0)
                child_fail(errfd, "%s", err->message);
        confine_ns += mono_ns() - t0;
        exe = look_path(argv[0], env_value(envp, "PATH"), errfd);
        t0 = mono_ns();
        if (rt_confine_prepare(s, &sv->seccomp, &confine, &err) < 0)
                child_fail(errfd, "%s", err->message);
        confine_ns += mono_ns() - t0;

        if (slave >= 0) {
                /* the terminal is stdin, stdout, stderr and the controlling terminal (the child
                 * leads its own session) */
                if (ioctl(slave, TIOCSCTTY, 0) < 0 || dup2(slave, 0) < 0 || dup2(slave, 1) < 0 ||
                    dup2(slave, 2) < 0)
                        child_fail(errfd, "set up the terminal: %s", errstr(errno, e));
        } else {
                if (in_fd < 0)
                        null = open("/dev/null", O_RDONLY | O_CLOEXEC);
                if ((in_fd < 0 && null < 0) || dup2(in_fd >= 0 ? in_fd : null, 0) < 0 ||
                    dup2(outfd, 1) < 0 || dup2(errpipe_out, 2) < 0)
                        child_fail(errfd, "set up stdio: %s", errstr(errno, e));
        }
        /* nothing but stdio crosses exec; errfd closes there, which tells the supervisor */
        (void) close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
        /* K8S KEP-127: into the pod's user namespace last, once every mount is made by the
         * host's root in this mount namespace (which stays the host's: the pod's root cannot
         * mount over or unmount what confines it); the user, groups and capabilities below are
         * then the namespace's */
        if (sv->userns_fd >= 0) {
                if (setns(sv->userns_fd, CLONE_NEWUSER) < 0)
                        child_fail(errfd, "join the pod's user namespace: %s", errstr(errno, e));
                close(sv->userns_fd);
        }
        /* user, groups, capabilities, no_new_privs, seccomp: the last steps before exec */
        t0 = mono_ns();
        if (rt_confine_finish(&confine, &err) < 0)
                child_fail(errfd, "%s", err->message);
        if (sv->timing) {
                int64_t t1 = mono_ns();
                sv->timing->confine_ns = confine_ns + (t1 - t0);
                sv->timing->total_ns = t1 - t_start;
        }
        execve(exe, argv, envp);
        if (errno == EACCES)
                child_fail(errfd, "exec: \"%s\": permission denied", argv[0]);
        child_fail(errfd, "exec: \"%s\": %s", argv[0], errstr(errno, e));
}

/* ------------------------------------------------------------------ the supervisor */

static void add_time(json_t *o, const char *key, const struct timespec *ts)
{
        char t[40];

        rt_time_format(ts, t);
        json_object_set_new(o, key, json_string(t));
}

static int write_exit(struct supervisor *sv, int exit_code, int sig, int wait_status,
                      const struct timespec *started, const char *reason, const char *message)
{
        struct timespec now;
        json_t *o = json_object();
        int r;

        rt_now(&now);
        json_object_set_new(o, "exitCode", json_integer(exit_code));
        json_object_set_new(o, "signal", json_integer(sig));
        json_object_set_new(o, "waitStatus", json_integer(wait_status));
        add_time(o, "startedAt", started);
        add_time(o, "finishedAt", &now);
        if (reason)
                json_object_set_new(o, "reason", json_string(reason));
        if (message)
                json_object_set_new(o, "message", json_string(message));
        r = fs_write_json_atomic(sv->dfd, RT_EXIT_FILE, o);
        json_decref(o);
        return r;
}

/* K8S: a failure before exec is an exit with reason StartError and exit code 128, its start
 * time the zero time. */
static int record_start_error(struct supervisor *sv, const char *message)
{
        struct timespec zero = { 0 };

        return write_exit(sv, RT_START_ERROR_EXIT_CODE, 0, -1, &zero, "StartError", message);
}

/* K8S: a container's processes do not outlive its main process. What is left in the
 * container's own cgroups is killed (never the pod's init). */
static void kill_leftovers(struct supervisor *sv)
{
        for (int round = 0; round < 100; round++) {
                bool any = false;

                for (size_t i = 0; sv->spec->cgroup_procs && sv->spec->cgroup_procs[i]; i++) {
                        FILE *f = fopen(sv->spec->cgroup_procs[i], "re");
                        long pid;

                        if (!f)
                                continue;
                        while (fscanf(f, "%ld", &pid) == 1) {
                                if (pid <= 1 || pid == getpid() || pid == sv->sandbox_pid)
                                        continue;
                                any = true;
                                (void) kill((pid_t) pid, SIGKILL);
                        }
                        fclose(f);
                }
                if (!any)
                        return;
                (void) usleep(10000);
        }
}

/* What the container wrote: into the log, then to the attach sessions. A terminal's master
 * reads EIO once the last process holding the terminal left: its end. */
static void pump(struct rt_log_writer *w, struct rt_attach_server *srv, int *fd, enum rt_stream s,
                 bool drain)
{
        char buf[65536];

        for (;;) {
                ssize_t n = read(*fd, buf, sizeof(buf));
                if (n < 0 && errno == EINTR)
                        continue;
                if (n > 0) {
                        (void) rt_log_writer_feed(w, s, buf, (size_t) n);
                        rt_attach_server_output(srv, s, buf, (size_t) n);
                        if (drain)
                                continue;
                        return;
                }
                if (n < 0 && errno == EAGAIN)
                        return;
                /* EOF or an error: this stream is over */
                (void) rt_log_writer_flush(w, s);
                close(*fd);
                *fd = -1;
                return;
        }
}

/* Keeps the last max bytes written to it (the kubelet's circbuf). */
struct tail_buf {
        char *buf;
        size_t len, max;
};

static int tail_write(void *ud, const char *p, size_t n)
{
        struct tail_buf *t = ud;

        if (n >= t->max) {
                memcpy(t->buf, p + n - t->max, t->max);
                t->len = t->max;
                return 0;
        }
        if (t->len + n > t->max) {
                size_t drop = t->len + n - t->max;
                memmove(t->buf, t->buf + drop, t->len - drop);
                t->len -= drop;
        }
        memcpy(t->buf + t->len, p, n);
        t->len += n;
        return 0;
}

/* K8S kuberuntime_container.go getTerminationMessage: the file's last
 * RUNTIME_TERMINATION_MESSAGE_MAX bytes (tail.ReadAtMost), read through the supervisor's own fd
 * (what the container did at its path cannot redirect it); with FallbackToLogsOnError, an empty
 * file and a non-zero exit code, readLastStringFromContainerLogs: the log's last
 * RUNTIME_TERMINATION_LOG_LINES lines as `kubectl logs` shows them, their last
 * RUNTIME_TERMINATION_LOG_MAX bytes. NULL when there is nothing. */
static char *termination_message_raw(struct supervisor *sv, int exit_code)
{
        char *buf = NULL;
        struct stat st;

        if (sv->term_fd >= 0 && fstat(sv->term_fd, &st) == 0 && S_ISREG(st.st_mode) &&
            st.st_size > 0) {
                off_t off = st.st_size > RUNTIME_TERMINATION_MESSAGE_MAX
                                    ? st.st_size - RUNTIME_TERMINATION_MESSAGE_MAX
                                    : 0;
                size_t want = (size_t) (st.st_size - off), got = 0;

                buf = xmalloc(want + 1);
                while (got < want) {
                        ssize_t n = pread(sv->term_fd, buf + got, want - got, off + (off_t) got);
                        if (n < 0 && errno == EINTR)
                                continue;
                        if (n <= 0)
                                break;
                        got += (size_t) n;
                }
                buf[got] = '\0';
                if (got > 0)
                        return buf;
                free(buf);
                buf = NULL;
        }
        if (sv->spec->termination_message_fallback && exit_code != 0) {
                struct runtime_log_options o = RUNTIME_LOG_OPTIONS_INIT;
                struct tail_buf t = { .buf = xmalloc(RUNTIME_TERMINATION_LOG_MAX + 1),
                                      .max = RUNTIME_TERMINATION_LOG_MAX };
                cleanup_free char *log_path = xasprintf("%s/" RT_LOG_FILE, sv->state_dir);
                struct error *err = NULL;

                o.tail_lines = RUNTIME_TERMINATION_LOG_LINES;
                if (runtime_log_read(log_path, &o, tail_write, &t, &err) < 0) {
                        /* K8S: the kubelet's words for it */
                        free(t.buf);
                        buf = xasprintf("Error on reading termination message from logs: %s",
                                        err ? err->message : "unknown error");
                        error_free(err);
                        return buf;
                }
                t.buf[t.len] = '\0';
                return t.buf;
        }
        return NULL;
}

/* The message as the status carries it: a C string (up to a NUL the container wrote), valid
 * UTF-8 (what is not, U+FFFD, as Go's JSON encoding has it). */
static char *termination_message(struct supervisor *sv, int exit_code)
{
        cleanup_free char *raw = termination_message_raw(sv, exit_code);
        struct strbuf sb;

        if (!raw || !*raw)
                return NULL;
        strbuf_init(&sb);
        utf8_append_valid(&sb, raw, strlen(raw));
        return strbuf_detach(&sb);
}

static int supervise(struct supervisor *sv, struct error **reterr)
{
        const struct runtime_container_spec *s = sv->spec;
        int out[2] = { -1, -1 }, err[2] = { -1, -1 }, ep[2] = { -1, -1 };
        int in[2] = { -1, -1 }, ptys[2] = { -1, -1 }, pty = -1;
        cleanup_close int logfd = -1, sfd = -1, pidfd = -1, own_pidns = -1;
        struct rt_attach_server srv;
        struct rt_log_writer w;
        struct timespec started;
        uint64_t sandbox_ticks, ticks;
        char msg[2048];
        sigset_t chld;
        pid_t child;
        ssize_t n;
        int status = 0, r;
        json_t *rec;

        r = rt_sandbox_read_state(s->sandbox_dir, &sv->sandbox_pid, &sandbox_ticks, &sv->hostname);
        if (r >= 0)
                pidfd = rt_pidfd_open_checked(sv->sandbox_pid, sandbox_ticks);
        if (r < 0 || pidfd < 0) {
                (void) snprintf(msg, sizeof(msg), "the pod sandbox \"%s\" is not running",
                                s->sandbox_dir);
                r = record_start_error(sv, msg);
                goto start_failed;
        }
        r = rt_userns_of_pid(sv->sandbox_pid, pidfd, &sv->userns_fd, &sv->userns_base);
        if (r < 0) {
                (void) snprintf(msg, sizeof(msg), "the pod sandbox's user namespace: %s",
                                strerror(-r));
                r = record_start_error(sv, msg);
                goto start_failed;
        }
        if ((mkdirat(sv->dfd, "upper", 0755) < 0 && errno != EEXIST) ||
            (mkdirat(sv->dfd, "work", 0700) < 0 && errno != EEXIST) ||
            (mkdirat(sv->dfd, "rootfs", 0755) < 0 && errno != EEXIST) ||
            (sv->userns_fd >= 0 && mkdirat(sv->dfd, "lower", 0755) < 0 && errno != EEXIST))
                return error_set(reterr, errno, "create the container's dirs: %s", strerror(errno));
        /* the overlay's root is its upper layer's folder: the pod's root's (containerd chowns
         * the snapshot's upper dir to the remapped root) */
        if (sv->userns_fd >= 0 &&
            fchownat(sv->dfd, "upper", sv->userns_base, sv->userns_base, AT_SYMLINK_NOFOLLOW) < 0)
                return error_set(reterr, errno,
                                 "give the container's upper layer to the pod's "
                                 "root: %s",
                                 strerror(errno));
        logfd = openat(sv->dfd, RT_LOG_FILE, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
        if (logfd < 0)
                return error_set(reterr, errno, "open the log: %s", strerror(errno));
        /* K8S: the kubelet creates the file and chmods it 0666 whatever the umask, so that the
         * container's user, whoever it is, can write it */
        if (s->termination_message_path && *s->termination_message_path) {
                sv->term_fd = openat(sv->dfd, RT_TERMINATION_LOG_FILE,
                                     O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
                if (sv->term_fd < 0 || fchmod(sv->term_fd, 0666) < 0)
                        return error_set(reterr, errno, "create the termination message file: %s",
                                         strerror(errno));
        }
        if (pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0 || pipe2(ep, O_CLOEXEC) < 0)
                return error_set(reterr, errno, "pipe: %s", strerror(errno));
        /* K8S stdin/tty: the stdin pipe, or the socket the terminal's master comes back on */
        if ((s->tty && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ptys) < 0) ||
            (!s->tty && s->stdin_open && pipe2(in, O_CLOEXEC) < 0))
                return error_set(reterr, errno, "stdin: %s", strerror(errno));
        /* join the pod: our children are born in its pid namespace */
        own_pidns = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
        if (own_pidns < 0)
                return error_set(reterr, errno, "open our pid namespace: %s", strerror(errno));
        /* K8S hostPID/hostIPC: the container stays in the host's namespace; the sandbox's
         * network namespace is the host's for a hostNetwork pod, so joining it changes nothing
         * then */
        if (setns(pidfd, (s->security.host_pid ? 0 : CLONE_NEWPID) |
                                 (s->security.host_ipc ? 0 : CLONE_NEWIPC) | CLONE_NEWUTS |
                                 CLONE_NEWNET) < 0) {
                (void) snprintf(msg, sizeof(msg), "join the pod's namespaces: %s", strerror(errno));
                r = record_start_error(sv, msg);
                goto start_failed;
        }
        sigemptyset(&chld);
        sigaddset(&chld, SIGCHLD);
        (void) sigprocmask(SIG_BLOCK, &chld, NULL);
        sfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
        if (sfd < 0)
                return error_set(reterr, errno, "signalfd: %s", strerror(errno));
        sv->timing = mmap(NULL, sizeof(*sv->timing), PROT_READ | PROT_WRITE,
                          MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (sv->timing == MAP_FAILED)
                sv->timing = NULL; /* the timings are for the benchmark: the start goes on */
        child = fork();
        if (child < 0) {
                (void) snprintf(msg, sizeof(msg), "fork the container process: %s",
                                strerror(errno));
                r = record_start_error(sv, msg);
                goto start_failed;
        }
        if (child == 0) {
                close(out[0]);
                close(err[0]);
                close(ep[0]);
                if (in[1] >= 0)
                        close(in[1]);
                if (ptys[0] >= 0)
                        close(ptys[0]);
                container_child(sv, out[1], err[1], ep[1], in[0], ptys[1]);
        }
        for (int *fd = (int[]){ in[0], ptys[1] }, i = 0; i < 2; i++)
                if (fd[i] >= 0)
                        close(fd[i]);
        /* back to our own pid namespace for children: a process whose children would land in
         * another one cannot make threads (the sanitizers' leak checker needs one at exit) */
        if (setns(own_pidns, CLONE_NEWPID) < 0) {
                int e = errno;
                (void) kill(child, SIGKILL);
                return error_set(reterr, e, "return to our pid namespace: %s", strerror(e));
        }
        close(out[1]);
        close(err[1]);
        close(ep[1]);
        /* the exec closes the error pipe; words on it mean the child failed before */
        do {
                n = read(ep[0], msg, sizeof(msg) - 1);
        } while (n < 0 && errno == EINTR);
        close(ep[0]);
        if (n > 0) {
                msg[n] = '\0';
                while (waitpid(child, &status, 0) < 0 && errno == EINTR)
                        ;
                close(out[0]);
                close(err[0]);
                for (int *fd = (int[]){ in[1], ptys[0] }, i = 0; i < 2; i++)
                        if (fd[i] >= 0)
                                close(fd[i]);
                r = record_start_error(sv, msg);
                goto start_failed;
        }
        if (ptys[0] >= 0) {
                char word[8];

                /* sent before the exec, so it is there now */
                (void) fcntl(ptys[0], F_SETFL, O_NONBLOCK);
                (void) rt_recv_fd(ptys[0], word, sizeof(word), &pty);
                close(ptys[0]);
                if (pty < 0) {
                        (void) kill(child, SIGKILL);
                        while (waitpid(child, &status, 0) < 0 && errno == EINTR)
                                ;
                        return error_set(reterr, EIO, "the container's terminal did not come back");
                }
                (void) fcntl(pty, F_SETFL, O_NONBLOCK);
        }
        rt_now(&started);
        r = rt_proc_start_time(child, &ticks, NULL);
        rec = json_object();
        json_object_set_new(rec, "pid", json_integer(child));
        json_object_set_new(rec, "startTime", json_integer(r < 0 ? 0 : (json_int_t) ticks));
        add_time(rec, "startedAt", &started);
        if (sv->timing && sv->timing->total_ns > 0) {
                json_object_set_new(rec, "setupNs", json_integer(sv->timing->total_ns));
                json_object_set_new(rec, "confineNs", json_integer(sv->timing->confine_ns));
        }
        if (sv->timing) {
                (void) munmap(sv->timing, sizeof(*sv->timing));
                sv->timing = NULL;
        }
        r = fs_write_json_atomic(sv->dfd, RT_STARTED_FILE, rec);
        json_decref(rec);
        if (r < 0) {
                /* a container the agent could not see would run unsupervised: stop it */
                (void) kill(child, SIGKILL);
                while (waitpid(child, &status, 0) < 0 && errno == EINTR)
                        ;
                close(out[0]);
                close(err[0]);
                return error_set(reterr, -r, "record the start: %s", strerror(-r));
        }
        (void) snprintf(msg, sizeof(msg), "%d", (int) child);
        rt_notify(&sv->notify_fd, 0, msg);

        /* K8S attach: sessions with the container's stdio; without the socket the container
         * still runs (its output is logged), attach falls back to following the log */
        rt_attach_server_init(&srv);
        srv.stdin_fd = s->tty ? (s->stdin_open ? pty : -1) : in[1];
        srv.pty_fd = pty;
        srv.stdin_once = s->stdin_once;
        srv.tty = s->tty;
        if (srv.stdin_fd >= 0)
                (void) fcntl(srv.stdin_fd, F_SETFL, O_NONBLOCK);
        (void) rt_attach_server_listen(&srv, sv->dfd);
        rt_log_writer_init(&w, logfd);
        for (;;) {
                struct pollfd pfd[4 + RT_ATTACH_CLIENTS_MAX + 2] = {
                        { .fd = sfd, .events = POLLIN },
                        { .fd = out[0], .events = POLLIN },
                        { .fd = err[0], .events = POLLIN },
                        { .fd = pty, .events = POLLIN },
                };
                size_t na = rt_attach_server_pollfds(&srv, pfd + 4);
                struct signalfd_siginfo si;
                pid_t w_pid;

                if (poll(pfd, 4 + na, -1) < 0 && errno != EINTR)
                        break;
                if (pfd[1].revents)
                        pump(&w, &srv, &out[0], RT_STDOUT, false);
                if (pfd[2].revents)
                        pump(&w, &srv, &err[0], RT_STDERR, false);
                if (pfd[3].revents) {
                        pump(&w, &srv, &pty, RT_STDOUT, false);
                        if (pty < 0) /* the terminal is gone: nothing to write or resize */
                                srv.pty_fd = srv.stdin_fd = -1;
                }
                rt_attach_server_handle(&srv, pfd + 4, na);
                while (read(sfd, &si, sizeof(si)) > 0)
                        ;
                w_pid = waitpid(child, &status, WNOHANG);
                if (w_pid == child || (w_pid < 0 && errno == ECHILD))
                        break;
        }
        kill_leftovers(sv);
        /* what the process wrote before it ended is in the pipes: take it, without waiting for
         * an EOF that a process outside the cgroups could hold back */
        for (int i = 0; i < 3; i++) {
                int *fd = i == 0 ? &out[0] : i == 1 ? &err[0] : &pty;
                enum rt_stream st = i == 1 ? RT_STDERR : RT_STDOUT;
                if (*fd < 0)
                        continue;
                (void) fcntl(*fd, F_SETFL, O_NONBLOCK);
                pump(&w, &srv, fd, st, true);
                (void) rt_log_writer_flush(&w, st);
                if (*fd >= 0)
                        close(*fd);
                *fd = -1;
        }
        if (s->tty)
                srv.pty_fd = srv.stdin_fd = -1;
        rt_log_writer_release(&w);
        rt_attach_server_finish(&srv);
        {
                int code = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
                cleanup_free char *tmsg = termination_message(sv, code);

                r = write_exit(sv, code, WIFSIGNALED(status) ? WTERMSIG(status) : 0, status,
                               &started, NULL, tmsg && *tmsg ? tmsg : NULL);
        }
        if (r < 0)
                return error_set(reterr, -r, "record the exit: %s", strerror(-r));
        return 0;

start_failed:
        if (r < 0)
                return error_set(reterr, -r, "record the start error \"%s\": %s", msg,
                                 strerror(-r));
        rt_notify(&sv->notify_fd, 0, "exited");
        return 0;
}

int rt_seccomp_read_file(int dfd, struct rt_seccomp_bpf *ret, struct error **reterr)
{
        char *buf = NULL;
        size_t len = 0;
        uint32_t flags;
        int r = fs_read_file_at(dfd, RT_SECCOMP_FILE, RT_STATE_FILE_MAX, &buf, &len);

        *ret = (struct rt_seccomp_bpf){ 0 };
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return error_set(reterr, -r, "read %s: %s", RT_SECCOMP_FILE, strerror(-r));
        if (len < 4 + 8 || (len - 4) % 8) {
                free(buf);
                return error_set(reterr, EINVAL, "%s is malformed", RT_SECCOMP_FILE);
        }
        memcpy(&flags, buf, 4);
        ret->flags = flags;
        ret->len = len - 4;
        ret->prog = xmalloc(ret->len);
        memcpy(ret->prog, buf + 4, ret->len);
        free(buf);
        return 0;
}

/* The filter runtime_container_start compiled (none when the file is absent). */
static int read_seccomp(struct supervisor *sv, struct error **reterr)
{
        int r = rt_seccomp_read_file(sv->dfd, &sv->seccomp, reterr);

        if (r < 0)
                error_wrap(reterr, "supervisor");
        return r;
}

int rt_supervisor_serve(const char *state_dir, int notify_fd, struct error **reterr)
{
        struct supervisor sv = { .state_dir = state_dir,
                                 .dfd = -1,
                                 .notify_fd = notify_fd,
                                 .userns_fd = -1,
                                 .term_fd = -1 };
        json_t *j = NULL, *me;
        uint64_t ticks = 0;
        int r;

        sv.dfd = open(state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (sv.dfd < 0) {
                r = error_set(reterr, errno, "supervisor: open \"%s\": %s", state_dir,
                              strerror(errno));
                goto out;
        }
        me = json_object();
        (void) rt_proc_start_time(getpid(), &ticks, NULL);
        json_object_set_new(me, "pid", json_integer(getpid()));
        json_object_set_new(me, "startTime", json_integer((json_int_t) ticks));
        r = fs_write_json_atomic(sv.dfd, RT_SUPERVISOR_FILE, me);
        json_decref(me);
        if (r < 0) {
                r = error_set(reterr, -r, "supervisor: write %s: %s", RT_SUPERVISOR_FILE,
                              strerror(-r));
                goto out;
        }
        r = fs_read_json_at(sv.dfd, RT_SPEC_FILE, &j);
        if (r < 0) {
                r = error_set(reterr, -r, "supervisor: read %s: %s", RT_SPEC_FILE, strerror(-r));
                goto out;
        }
        r = rt_spec_from_json(j, &sv.h, reterr);
        json_decref(j);
        if (r < 0) {
                error_wrap(reterr, "supervisor");
                goto out;
        }
        sv.spec = &sv.h.spec;
        r = read_seccomp(&sv, reterr);
        if (r >= 0)
                r = supervise(&sv, reterr);
        if (r < 0)
                error_wrap(reterr, "supervisor \"%s\"", state_dir);
out:
        if (r < 0) {
                const char *why = reterr && *reterr ? (*reterr)->message : strerror(-r);
                /* recorded as the container's start error, the agent learns it from the state
                 * dir like any other; only a failure to record it is the launch's failure */
                if (sv.dfd >= 0 && faccessat(sv.dfd, RT_EXIT_FILE, F_OK, 0) < 0 &&
                    faccessat(sv.dfd, RT_STARTED_FILE, F_OK, 0) < 0 &&
                    record_start_error(&sv, why) == 0)
                        rt_notify(&sv.notify_fd, 0, "exited");
                else
                        rt_notify(&sv.notify_fd, r, why);
        } else {
                rt_notify(&sv.notify_fd, 0, "exited");
        }
        rt_spec_holder_release(&sv.h);
        free(sv.seccomp.prog);
        free(sv.hostname);
        if (sv.userns_fd >= 0)
                close(sv.userns_fd);
        if (sv.dfd >= 0)
                close(sv.dfd);
        return r < 0 ? 1 : 0;
}

/* ------------------------------------------------------------------ entry point */

int runtime_helper_main(int argc, char **argv, struct error **reterr)
{
        const char *dir = NULL;
        bool sandbox = false, detach = false;
        int notify_fd = -1;
        sigset_t none;

        /* K8S exec: `supervise --exec DIR --ctl-fd N [--tty] -- ARGV...` (exec.c) */
        if (argc > 1 && streq(argv[1], "--exec"))
                return rt_exec_helper_main(argc, argv, reterr);
        for (int i = 1; i < argc; i++) {
                if (streq(argv[i], "--notify-fd") && i + 1 < argc) {
                        char *end;
                        long v = strtol(argv[++i], &end, 10);
                        if (*end || v < 3 || v > 1024) {
                                error_set(reterr, EINVAL, "supervise: bad --notify-fd \"%s\"",
                                          argv[i]);
                                return 2;
                        }
                        notify_fd = (int) v;
                } else if (streq(argv[i], "--sandbox")) {
                        sandbox = true;
                } else if (streq(argv[i], "--detach")) {
                        detach = true;
                } else if (argv[i][0] != '-' && !dir) {
                        dir = argv[i];
                } else {
                        error_set(reterr, EINVAL, "supervise: unexpected argument \"%s\"", argv[i]);
                        return 2;
                }
        }
        if (!dir || dir[0] != '/') {
                error_set(
                        reterr, EINVAL,
                        "usage: supervise [--detach] [--notify-fd N] [--sandbox] ABSOLUTE-STATE-DIR");
                return 2;
        }
        /* whatever the launcher ignored or blocked, we start clean */
        for (int sig = 1; sig < NSIG; sig++)
                if (sig != SIGKILL && sig != SIGSTOP)
                        (void) signal(sig, SIG_DFL);
        sigemptyset(&none);
        (void) sigprocmask(SIG_SETMASK, &none, NULL);
        (void) signal(SIGPIPE, SIG_IGN);
        (void) signal(SIGHUP, SIG_IGN);
        /* rt_spawn_helper's launch: out of the agent's session and off its children (the
         * first process exits, which the agent waits for; the second goes on under init) */
        if (detach) {
                pid_t child;

                (void) setsid();
                child = fork();
                if (child < 0) {
                        error_set(reterr, errno, "supervise: fork: %s", strerror(errno));
                        return 1;
                }
                if (child > 0)
                        _exit(0);
        }
        if (notify_fd >= 0)
                (void) fcntl(notify_fd, F_SETFD, FD_CLOEXEC);
        if (chdir("/") < 0) {
                error_set(reterr, errno, "supervise: chdir /: %s", strerror(errno));
                return 1;
        }
        umask(022);
        if (sandbox)
                return rt_sandbox_serve(dir, notify_fd, reterr);
        return rt_supervisor_serve(dir, notify_fd, reterr);
}
