/* sandbox.c: the pod sandbox, both sides. The agent's: start it (a detached helper process),
 * find it again from its state file, stop it. The helper's: unshare the pod's pid, ipc and uts
 * namespaces (and net unless the pod uses the host's), set the hostname, and fork the pod's pid 1,
 * which joins the pod's cgroups, reaps orphans and waits to be killed (what the "pause" container
 * does elsewhere). */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "base/json.h"
#include "node/runtime/runtime-internal.h"

#define SANDBOX_START_TIMEOUT_MS 10000
#define SANDBOX_STOP_TIMEOUT_MS  10000

char *runtime_sandbox_dir(const char *data_dir, const char *pod_uid)
{
        return xasprintf("%s/pods/%s/sandbox", data_dir, pod_uid);
}

int rt_sandbox_read_state(const char *state_dir, pid_t *ret_pid, uint64_t *ret_ticks,
                          char **ret_hostname)
{
        cleanup_close int dfd = open(state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        json_t *j = NULL, *pid, *ticks;
        int r;

        if (dfd < 0)
                return -errno;
        r = fs_read_json_at(dfd, RT_SANDBOX_STATE_FILE, &j);
        if (r < 0)
                return r;
        pid = json_object_get(j, "pid");
        ticks = json_object_get(j, "startTime");
        if (!json_is_integer(pid) || !json_is_integer(ticks) || json_integer_value(pid) <= 0) {
                json_decref(j);
                return -EBADMSG;
        }
        *ret_pid = (pid_t) json_integer_value(pid);
        *ret_ticks = (uint64_t) json_integer_value(ticks);
        if (ret_hostname)
                *ret_hostname = xstrdup(json_string_value(json_object_get(j, "hostname")) ?: "");
        json_decref(j);
        return 0;
}

int runtime_sandbox_running(const char *state_dir, pid_t *ret_pid)
{
        pid_t pid;
        uint64_t ticks;
        int fd, r;

        r = rt_sandbox_read_state(state_dir, &pid, &ticks, NULL);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        fd = rt_pidfd_open_checked(pid, ticks);
        if (fd == -ESRCH)
                return 0;
        if (fd < 0)
                return fd;
        close(fd);
        if (ret_pid)
                *ret_pid = pid;
        return 1;
}

int runtime_sandbox_exit_fd(const char *state_dir)
{
        pid_t pid;
        uint64_t ticks;
        int r = rt_sandbox_read_state(state_dir, &pid, &ticks, NULL);

        if (r == -ENOENT)
                return -ESRCH;
        if (r < 0)
                return r;
        return rt_pidfd_open_checked(pid, ticks);
}

int runtime_sandbox_start(const struct runtime_sandbox_spec *s, pid_t *ret_pid,
                          struct error **reterr)
{
        cleanup_close int dfd = -1, notify = -1;
        cleanup_free char *payload = NULL;
        json_t *spec, *procs;
        const char *args[3];
        char *end;
        long pid;
        int r;

        if (!s->state_dir || s->state_dir[0] != '/')
                return error_set(reterr, EINVAL,
                                 "start the pod sandbox: the state dir must be an absolute path");
        if (!s->hostname || !*s->hostname || strlen(s->hostname) > 64)
                return error_set(reterr, EINVAL, "start the pod sandbox: bad hostname \"%s\"",
                                 s->hostname ? s->hostname : "");
        r = runtime_sandbox_running(s->state_dir, ret_pid);
        if (r > 0)
                return 0;
        if ((r = fs_mkdir_p(s->state_dir, 0755)) < 0)
                return error_set(reterr, -r, "start the pod sandbox: create \"%s\": %s",
                                 s->state_dir, strerror(-r));
        dfd = open(s->state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return error_set(reterr, errno, "start the pod sandbox: open \"%s\": %s",
                                 s->state_dir, strerror(errno));
        spec = json_object();
        json_object_set_new(spec, "hostname", json_string(s->hostname));
        procs = json_array();
        for (size_t i = 0; s->cgroup_procs && s->cgroup_procs[i]; i++)
                json_array_append_new(procs, json_string(s->cgroup_procs[i]));
        json_object_set_new(spec, "cgroupProcs", procs);
        json_object_set_new(spec, "network", json_boolean(s->own_network));
        if (s->userns_base)
                json_object_set_new(spec, "usernsBase", json_integer(s->userns_base));
        r = fs_write_json_atomic(dfd, RT_SANDBOX_SPEC_FILE, spec);
        json_decref(spec);
        if (r < 0)
                return error_set(reterr, -r, "start the pod sandbox: write its spec: %s",
                                 strerror(-r));
        (void) unlinkat(dfd, RT_SANDBOX_STATE_FILE, 0);
        args[0] = "--sandbox";
        args[1] = s->state_dir;
        args[2] = NULL;
        r = rt_spawn_helper(args, &notify, reterr);
        if (r < 0)
                return error_wrap(reterr, "start the pod sandbox");
        r = rt_read_notify(notify, SANDBOX_START_TIMEOUT_MS, &payload, reterr);
        if (r < 0)
                return error_wrap(reterr, "start the pod sandbox");
        pid = strtol(payload, &end, 10);
        if (pid <= 0 || *end)
                return error_set(reterr, EIO, "start the pod sandbox: unexpected answer \"%s\"",
                                 payload);
        if (ret_pid)
                *ret_pid = (pid_t) pid;
        return 0;
}

int runtime_sandbox_netns_fd(const char *state_dir, int *ret_fd, struct error **reterr)
{
        cleanup_close int pidfd = -1;
        pid_t pid;
        uint64_t ticks;
        char path[64];
        int fd, r;

        r = rt_sandbox_read_state(state_dir, &pid, &ticks, NULL);
        if (r == -ENOENT)
                return error_set(reterr, ESRCH, "the pod sandbox is not running");
        if (r < 0)
                return error_set(reterr, -r, "read the pod sandbox's state: %s", strerror(-r));
        pidfd = rt_pidfd_open_checked(pid, ticks);
        if (pidfd < 0)
                return error_set(reterr, -pidfd, "the pod sandbox is not running");
        (void) snprintf(path, sizeof(path), "/proc/%d/ns/net", (int) pid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return error_set(reterr, errno, "open %s: %s", path, strerror(errno));
        /* still the same process once the file is open: the pid was not reused meanwhile */
        if (rt_pidfd_wait(pidfd, 0) != 0) {
                close(fd);
                return error_set(reterr, ESRCH, "the pod sandbox is not running");
        }
        *ret_fd = fd;
        return 0;
}

int runtime_sandbox_stop(const char *state_dir, struct error **reterr)
{
        pid_t pid;
        uint64_t ticks;
        int fd, r;

        r = rt_sandbox_read_state(state_dir, &pid, &ticks, NULL);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return error_set(reterr, -r, "stop the pod sandbox: read \"%s/%s\": %s", state_dir,
                                 RT_SANDBOX_STATE_FILE, strerror(-r));
        /* one in its exit is waited for too: it holds the pod's namespaces until it is gone */
        fd = rt_pidfd_open_to_wait(pid, ticks);
        if (fd == -ESRCH)
                return 0;
        if (fd < 0)
                return error_set(reterr, -fd, "stop the pod sandbox: %s", strerror(-fd));
        /* the pid namespace's init: when it dies the kernel kills every process of the pod */
        r = rt_pidfd_send_signal(fd, SIGKILL);
        if (r < 0 && r != -ESRCH) {
                close(fd);
                return error_set(reterr, -r, "stop the pod sandbox: kill %d: %s", (int) pid,
                                 strerror(-r));
        }
        r = rt_pidfd_wait(fd, SANDBOX_STOP_TIMEOUT_MS);
        close(fd);
        if (r == 0)
                return error_set(reterr, ETIMEDOUT,
                                 "stop the pod sandbox: process %d still there after %d ms",
                                 (int) pid, SANDBOX_STOP_TIMEOUT_MS);
        return r < 0 ? error_set(reterr, -r, "stop the pod sandbox: %s", strerror(-r)) : 0;
}

/* ------------------------------------------------------------------ the helper's side */

static int join_cgroups(const json_t *procs, char *err, size_t errlen)
{
        size_t i;
        json_t *v;

        json_array_foreach(procs, i, v) {
                const char *path = json_string_value(v);
                int fd;

                if (!path)
                        continue;
                fd = open(path, O_WRONLY | O_CLOEXEC);
                if (fd < 0 || write(fd, "0", 1) != 1) {
                        int e = errno;
                        if (fd >= 0)
                                close(fd);
                        (void) snprintf(err, errlen, "join cgroup \"%s\": %s", path, strerror(e));
                        return -e;
                }
                close(fd);
        }
        return 0;
}

/* The pod's pid 1 is in every container's sight (/proc/1/root, /proc/1/cwd): with the host's
 * root as its own, any container read and wrote the host's files through it. Its root becomes
 * an empty read-only tmpfs that no mount table holds (a detached fsmount: ".." from its top
 * stays there), as the pause container elsewhere lives in an image of its own. Made before the
 * pod's namespaces (a pod in a user namespace of its own could not mount it), entered by the
 * init. */
static int empty_root_mount(int *ret_fd, char *err, size_t errlen)
{
        int fs, mnt = -1, e = 0;

        fs = fsopen("tmpfs", FSOPEN_CLOEXEC);
        if (fs < 0 || fsconfig(fs, FSCONFIG_SET_STRING, "mode", "0555", 0) < 0 ||
            fsconfig(fs, FSCONFIG_SET_STRING, "size", "4k", 0) < 0 ||
            fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0 ||
            (mnt = fsmount(fs, FSMOUNT_CLOEXEC,
                           MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
                                   MOUNT_ATTR_NOEXEC)) < 0)
                e = errno;
        if (fs >= 0)
                close(fs);
        if (e) {
                (void) snprintf(err, errlen, "give the pod's init an empty root: %s", strerror(e));
                return -e;
        }
        *ret_fd = mnt;
        return 0;
}

static int enter_root(int mnt, char *err, size_t errlen)
{
        if (fchdir(mnt) < 0 || chroot(".") < 0 || chdir("/") < 0) {
                int e = errno;
                (void) snprintf(err, errlen, "give the pod's init an empty root: %s", strerror(e));
                return -e;
        }
        return 0;
}

/* K8S: the pause container runs with oom_score_adj -998 (qos.PodInfraOOMAdj), so a pod over
 * its memory limit loses a container's process, which reports OOMKilled, and not its pid 1,
 * whose death takes every container down with a plain SIGKILL. Inherited over fork; lowering
 * it needs the host's CAP_SYS_RESOURCE, so a pod in a user namespace has it set before. */
static void pause_oom_score_adj(void)
{
        int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);

        if (fd >= 0) {
                (void) write(fd, "-998", 4);
                close(fd);
        }
}

static void noop_handler(int sig)
{
        (void) sig;
}

/* The pod's pid 1. Never returns. */
_noreturn_ static void sandbox_init(int ready_fd, const json_t *procs, int root_mnt)
{
        char err[512];
        sigset_t set;
        struct sigaction sa = { .sa_handler = noop_handler };
        int sig;

        (void) setsid();
        (void) prctl(PR_SET_NAME, "pause", 0, 0, 0);
        pause_oom_score_adj();
        if (join_cgroups(procs, err, sizeof(err)) < 0 ||
            enter_root(root_mnt, err, sizeof(err)) < 0) {
                (void) write(ready_fd, err, strlen(err));
                _exit(1);
        }
        /* keep only the ready pipe: the agent reads its notify pipe until every copy closes */
        if (ready_fd > 3)
                (void) close_range(3, (unsigned) ready_fd - 1, 0);
        (void) close_range((unsigned) ready_fd + 1, ~0U, 0);
        /* pid 1 drops signals it has no handler for: install them, then take them in turn */
        sigemptyset(&set);
        sigaddset(&set, SIGCHLD);
        sigaddset(&set, SIGTERM);
        sigaddset(&set, SIGINT);
        (void) sigprocmask(SIG_BLOCK, &set, NULL);
        (void) sigaction(SIGCHLD, &sa, NULL);
        (void) sigaction(SIGTERM, &sa, NULL);
        (void) sigaction(SIGINT, &sa, NULL);
        close(ready_fd);
        for (;;) {
                if (sigwait(&set, &sig) != 0)
                        continue;
                if (sig == SIGTERM || sig == SIGINT)
                        _exit(0);
                while (waitpid(-1, NULL, WNOHANG) > 0)
                        ;
        }
}

/* The pod's pid, ipc, uts (and net) namespaces, and its hostname. -errno, msg why. */
static int unshare_pod(const json_t *spec, const char *hostname, char *msg, size_t len)
{
        if (unshare(CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS |
                    (json_is_true(json_object_get(spec, "network")) ? CLONE_NEWNET : 0)) < 0) {
                (void) snprintf(msg, len, "unshare the pod's namespaces: %s", strerror(errno));
                return -errno;
        }
        if (sethostname(hostname, strlen(hostname)) < 0) {
                int e = errno;
                (void) snprintf(msg, len, "set the hostname \"%s\": %s", hostname, strerror(e));
                errno = e;
                return -e;
        }
        return 0;
}

/* K8S KEP-127: a pod in a user namespace of its own. An intermediate child makes it and the
 * pod's other namespaces (owned by it, runc's order) and forks the init; the helper stays in
 * the host's namespaces (once in the pod's user namespace it could not return to the host's
 * pid namespace, which its later threads need). *ret_init: the init's host pid. */
static int start_in_userns(uint32_t base, const json_t *spec, const char *hostname, int root_mnt,
                           int ready_fd, pid_t *ret_init, char *msg, size_t len)
{
        int q[2], status;
        char answer[512];
        pid_t mid, init;
        ssize_t n;

        if (pipe2(q, O_CLOEXEC) < 0) {
                (void) snprintf(msg, len, "pipe: %s", strerror(errno));
                return -errno;
        }
        mid = fork();
        if (mid < 0) {
                int e = errno;
                close(q[0]);
                close(q[1]);
                (void) snprintf(msg, len, "fork: %s", strerror(e));
                return -e;
        }
        if (mid == 0) {
                close(q[0]);
                if (rt_userns_unshare(base, RUNTIME_USERNS_LENGTH, answer + 1, sizeof(answer) - 1) <
                            0 ||
                    unshare_pod(spec, hostname, answer + 1, sizeof(answer) - 1) < 0) {
                        answer[0] = 'E';
                        (void) write(q[1], answer, strlen(answer));
                        _exit(1);
                }
                init = fork();
                if (init < 0) {
                        (void) snprintf(answer, sizeof(answer), "Efork the pod's init: %s",
                                        strerror(errno));
                        (void) write(q[1], answer, strlen(answer));
                        _exit(1);
                }
                if (init == 0) {
                        close(q[1]);
                        sandbox_init(ready_fd, NULL, root_mnt);
                }
                /* fork answers with the pid in our own (the host's) pid namespace */
                (void) snprintf(answer, sizeof(answer), "P%d", (int) init);
                (void) write(q[1], answer, strlen(answer));
                _exit(0);
        }
        close(q[1]);
        n = read(q[0], answer, sizeof(answer) - 1);
        close(q[0]);
        while (waitpid(mid, &status, 0) < 0 && errno == EINTR)
                ;
        answer[n > 0 ? n : 0] = '\0';
        if (answer[0] == 'P' && (init = (pid_t) strtol(answer + 1, NULL, 10)) > 0) {
                *ret_init = init;
                return 0;
        }
        (void) snprintf(msg, len, "%s",
                        answer[0] == 'E' ? answer + 1
                                         : "the pod's user namespace could not be made");
        return -EIO;
}

int rt_sandbox_serve(const char *state_dir, int notify_fd, struct error **reterr)
{
        cleanup_close int dfd = -1, own_pidns = -1, root_mnt = -1;
        json_t *spec = NULL, *state, *procs, *userns;
        const char *hostname;
        char msg[512];
        int p[2] = { -1, -1 };
        uint64_t ticks;
        pid_t child = 0;
        ssize_t n;
        int r;

        dfd = open(state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0) {
                r = error_set(reterr, errno, "sandbox: open \"%s\": %s", state_dir,
                              strerror(errno));
                goto fail;
        }
        r = fs_read_json_at(dfd, RT_SANDBOX_SPEC_FILE, &spec);
        if (r < 0) {
                r = error_set(reterr, -r, "sandbox: read its spec: %s", strerror(-r));
                goto fail;
        }
        hostname = json_string_value(json_object_get(spec, "hostname"));
        if (!hostname) {
                r = error_set(reterr, EINVAL, "sandbox: the spec has no hostname");
                goto fail;
        }
        own_pidns = open("/proc/self/ns/pid", O_RDONLY | O_CLOEXEC);
        if (own_pidns < 0) {
                r = error_set(reterr, errno, "sandbox: open our pid namespace: %s",
                              strerror(errno));
                goto fail;
        }
        if (empty_root_mount(&root_mnt, msg, sizeof(msg)) < 0) {
                r = error_set(reterr, EIO, "sandbox: %s", msg);
                goto fail;
        }
        procs = json_object_get(spec, "cgroupProcs");
        userns = json_object_get(spec, "usernsBase");
        if (userns) {
                /* K8S KEP-127: the user namespace first, so the pod's other namespaces are
                 * owned by it (runc's order). What needs the host's privileges is done before:
                 * the cgroups joined (the init inherits them), the init's oom_score_adj */
                json_int_t base = json_integer_value(userns);

                if (!json_is_integer(userns) || base <= 0 ||
                    base > (json_int_t) UINT32_MAX - RUNTIME_USERNS_LENGTH) {
                        r = error_set(reterr, EINVAL, "sandbox: bad usernsBase in its spec");
                        goto fail;
                }
                if (join_cgroups(procs, msg, sizeof(msg)) < 0) {
                        r = error_set(reterr, EIO, "sandbox: %s", msg);
                        goto fail;
                }
                pause_oom_score_adj();
                if (pipe2(p, O_CLOEXEC) < 0) {
                        r = error_set(reterr, errno, "sandbox: pipe: %s", strerror(errno));
                        goto fail;
                }
                r = start_in_userns((uint32_t) base, spec, hostname, root_mnt, p[1], &child, msg,
                                    sizeof(msg));
                if (r < 0) {
                        r = error_set(reterr, -r, "sandbox: %s", msg);
                        goto fail;
                }
                goto started;
        }
        if (unshare_pod(spec, hostname, msg, sizeof(msg)) < 0) {
                r = error_set(reterr, errno, "sandbox: %s", msg);
                goto fail;
        }
        if (pipe2(p, O_CLOEXEC) < 0) {
                r = error_set(reterr, errno, "sandbox: pipe: %s", strerror(errno));
                goto fail;
        }
        child = fork();
        if (child < 0) {
                r = error_set(reterr, errno, "sandbox: fork the pod's init: %s", strerror(errno));
                goto fail;
        }
        if (child == 0) {
                close(p[0]);
                sandbox_init(p[1], procs, root_mnt);
        }
        /* our later children (none) and threads (the sanitizers' leak checker) need our pid
         * namespace back */
        if (setns(own_pidns, CLONE_NEWPID) < 0) {
                r = error_set(reterr, errno, "sandbox: return to our pid namespace: %s",
                              strerror(errno));
                (void) kill(child, SIGKILL);
                goto fail;
        }
started:
        close(p[1]);
        p[1] = -1;
        /* EOF: the init is ready; words: why it is not */
        n = read(p[0], msg, sizeof(msg) - 1);
        close(p[0]);
        p[0] = -1;
        if (n > 0) {
                msg[n] = '\0';
                (void) waitpid(child, NULL, 0);
                r = error_set(reterr, EIO, "sandbox: %s", msg);
                goto fail;
        }
        r = rt_proc_start_time(child, &ticks, NULL);
        if (r < 0) {
                r = error_set(reterr, -r, "sandbox: the pod's init is gone: %s", strerror(-r));
                goto fail;
        }
        state = json_object();
        json_object_set_new(state, "pid", json_integer(child));
        json_object_set_new(state, "startTime", json_integer((json_int_t) ticks));
        json_object_set_new(state, "hostname", json_string(hostname));
        r = fs_write_json_atomic(dfd, RT_SANDBOX_STATE_FILE, state);
        json_decref(state);
        if (r < 0) {
                (void) kill(child, SIGKILL);
                r = error_set(reterr, -r, "sandbox: write its state: %s", strerror(-r));
                goto fail;
        }
        json_decref(spec);
        (void) snprintf(msg, sizeof(msg), "%d", (int) child);
        rt_notify(&notify_fd, 0, msg);
        return 0;
fail:
        if (p[0] >= 0)
                close(p[0]);
        if (p[1] >= 0)
                close(p[1]);
        json_decref(spec);
        rt_notify(&notify_fd, r, reterr && *reterr ? (*reterr)->message : NULL);
        return 1;
}
