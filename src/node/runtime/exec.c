/* exec.c: a process started in a running container (K8S exec, runc exec): the agent's side
 * (runtime_exec_start: the helper spawned with the process's stdio and a control socket) and
 * the helper's (`supervise --exec`: join the container, make the terminal, fork, confine, exec,
 * report the exit). What the process gets is the container's own confinement, through the same
 * functions the supervisor uses (confine.c, env.c); how its stdio reaches a client is the
 * kubelet endpoint's business (node/kubelet-stream.c).
 *
 * The control socket (SOCK_SEQPACKET, one message per record) carries, helper to agent: "PTY"
 * with the terminal's master fd (SCM_RIGHTS), then "STARTED" or "ERR <message>", then
 * "EXIT <code>". Its closing on the agent's side tells the helper to kill the process. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "node/runtime/runtime-internal.h"

#define CTL_MSG_MAX 4096
/* how long the agent waits for the helper to start the process */
#define EXEC_START_TIMEOUT_MS 30000

/* ------------------------------------------------------------------ the helper */

_printf_(2, 3) static int helper_fail(int ctl, const char *fmt, ...)
{
        char msg[CTL_MSG_MAX - 8];
        cleanup_free char *line = NULL;
        va_list ap;

        va_start(ap, fmt);
        (void) vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        line = xasprintf("ERR %s", msg);
        rt_send_fd(ctl, line, -1);
        return 1;
}

/* Go's error words are lower case, as the supervisor's */
static const char *errword(int e)
{
        static char buf[128];

        (void) snprintf(buf, sizeof(buf), "%s", strerror(e));
        if (buf[0] >= 'A' && buf[0] <= 'Z')
                buf[0] = (char) (buf[0] - 'A' + 'a');
        return buf;
}

/* The process: session, terminal, environment, working dir, confinement, exec. Reports a
 * failure on errfd and exits 127. */
_noreturn_ static void exec_child(const struct runtime_container_spec *s,
                                  const struct rt_seccomp_bpf *bpf, const char *hostname,
                                  int userns_fd, int slave, char **argv, int errfd)
{
        struct rt_env pod_env;
        struct rt_confine confine;
        struct error *err = NULL;
        cleanup_free char *home = NULL;
        char **envp;
        const char *wd;
        sigset_t none;
        char msg[2048];

        sigemptyset(&none);
        (void) sigprocmask(SIG_SETMASK, &none, NULL);
        for (int sig = 1; sig < NSIG; sig++)
                if (sig != SIGKILL && sig != SIGSTOP)
                        (void) signal(sig, SIG_DFL);
        (void) setsid();
        if (slave >= 0) {
                if (ioctl(slave, TIOCSCTTY, 0) < 0 || dup2(slave, 0) < 0 || dup2(slave, 1) < 0 ||
                    dup2(slave, 2) < 0) {
                        (void) snprintf(msg, sizeof(msg), "set up the terminal: %s",
                                        errword(errno));
                        goto fail;
                }
        }
        if (s->oom_score_adj_set) {
                int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
                if (fd >= 0) {
                        (void) dprintf(fd, "%d", s->oom_score_adj);
                        close(fd);
                }
        }
        rt_pod_env(s, &pod_env);
        home = rt_passwd_home(s->uid);
        envp = rt_process_env(s, &pod_env, hostname, home);
        rt_env_release(&pod_env);
        if (slave >= 0)
                envp = rt_env_default_term(envp);
        wd = s->working_dir && *s->working_dir               ? s->working_dir
             : s->image_working_dir && *s->image_working_dir ? s->image_working_dir
                                                             : "/";
        if (chdir(wd) < 0) {
                (void) snprintf(msg, sizeof(msg), "chdir to cwd (\"%s\"): %s", wd, errword(errno));
                goto fail;
        }
        {
                char cwd[4096];
                if (!getcwd(cwd, sizeof(cwd)) || cwd[0] != '/') {
                        (void) snprintf(msg, sizeof(msg),
                                        "current working directory is outside of container "
                                        "mount namespace root -- possible container breakout "
                                        "detected");
                        goto fail;
                }
        }
        if (rt_confine_prepare(s, bpf, &confine, &err) < 0) {
                (void) snprintf(msg, sizeof(msg), "%s", err->message);
                goto fail;
        }
        /* nothing but stdio crosses exec; errfd closes there, which tells the helper */
        (void) close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
        if (userns_fd >= 0 && setns(userns_fd, CLONE_NEWUSER) < 0) {
                (void) snprintf(msg, sizeof(msg), "join the pod's user namespace: %s",
                                errword(errno));
                goto fail;
        }
        if (rt_confine_finish(&confine, &err) < 0) {
                (void) snprintf(msg, sizeof(msg), "%s", err->message);
                goto fail;
        }
        /* execvp looks PATH up in environ: the container's */
        environ = envp;
        if (strchr(argv[0], '/'))
                execve(argv[0], argv, envp);
        else
                execvp(argv[0], argv);
        if (errno == ENOENT && !strchr(argv[0], '/'))
                (void) snprintf(msg, sizeof(msg),
                                "exec: \"%s\": executable file not found in $PATH", argv[0]);
        else
                (void) snprintf(msg, sizeof(msg), "exec: \"%s\": %s", argv[0], errword(errno));
fail:
        (void) write(errfd, msg, strlen(msg));
        _exit(127);
}

/* The helper: joins the container, starts the process, reports. */
static int exec_helper(const char *state_dir, bool tty, char **argv, int ctl)
{
        struct rt_spec_holder h = { 0 };
        struct rt_seccomp_bpf bpf = { 0 };
        cleanup_error struct error *err = NULL;
        cleanup_free char *hostname = NULL;
        cleanup_close int dfd = -1, pidfd = -1, userns_fd = -1, master = -1, slave = -1,
                          child_fd = -1;
        json_t *j = NULL, *started = NULL;
        pid_t pid, sandbox_pid, child;
        uint64_t sandbox_ticks;
        uint32_t userns_base = 0;
        int errpipe[2], status, r, code;
        char msg[CTL_MSG_MAX];
        ssize_t n;

        dfd = open(state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return helper_fail(ctl, "open \"%s\": %s", state_dir, errword(errno));
        if (fs_read_json_at(dfd, RT_STARTED_FILE, &started) < 0 ||
            !json_is_integer(json_object_get(started, "pid")) ||
            !json_is_integer(json_object_get(started, "startTime")) ||
            faccessat(dfd, RT_EXIT_FILE, F_OK, 0) == 0) {
                json_decref(started);
                return helper_fail(ctl, "container is not running");
        }
        pid = (pid_t) json_integer_value(json_object_get(started, "pid"));
        pidfd = rt_pidfd_open_checked(
                pid, (uint64_t) json_integer_value(json_object_get(started, "startTime")));
        json_decref(started);
        if (pidfd < 0)
                return helper_fail(ctl, "container is not running");
        r = fs_read_json_at(dfd, RT_SPEC_FILE, &j);
        if (r < 0)
                return helper_fail(ctl, "read %s: %s", RT_SPEC_FILE, errword(-r));
        r = rt_spec_from_json(j, &h, &err);
        json_decref(j);
        if (r < 0)
                return helper_fail(ctl, "%s", err->message);
        r = rt_seccomp_read_file(dfd, &bpf, &err);
        if (r < 0) {
                rt_spec_holder_release(&h);
                return helper_fail(ctl, "%s", err->message);
        }
        r = rt_sandbox_read_state(h.spec.sandbox_dir, &sandbox_pid, &sandbox_ticks, &hostname);
        if (r >= 0)
                r = rt_userns_of_pid(pid, pidfd, &userns_fd, &userns_base);
        if (r < 0) {
                code = helper_fail(ctl, "the pod's sandbox: %s", errword(-r));
                goto out;
        }
        /* the container's cgroups, while the host's /sys/fs/cgroup is in sight */
        for (size_t i = 0; h.spec.cgroup_procs && h.spec.cgroup_procs[i]; i++) {
                int fd = open(h.spec.cgroup_procs[i], O_WRONLY | O_CLOEXEC);
                if (fd < 0 || write(fd, "0", 1) != 1) {
                        int e = errno;
                        if (fd >= 0)
                                close(fd);
                        code = helper_fail(ctl, "join cgroup \"%s\": %s", h.spec.cgroup_procs[i],
                                           errword(e));
                        goto out;
                }
                close(fd);
        }
        /* every namespace of the container's process but its user namespace, which the process
         * joins last (the mount namespace belongs to the host's root) */
        if (setns(pidfd, CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWNET | CLONE_NEWPID |
                                 CLONE_NEWCGROUP) < 0) {
                code = helper_fail(ctl, "join the container's namespaces: %s", errword(errno));
                goto out;
        }
        if (tty) {
                if (rt_pty_open(&master, &slave, msg, sizeof(msg)) < 0) {
                        code = helper_fail(ctl, "%s", msg);
                        goto out;
                }
                /* the process's user owns its terminal, as runc's console */
                (void) fchown(slave, h.spec.uid + userns_base, (gid_t) -1);
                rt_send_fd(ctl, "PTY", master);
        }
        if (pipe2(errpipe, O_CLOEXEC) < 0) {
                code = helper_fail(ctl, "pipe: %s", errword(errno));
                goto out;
        }
        child = fork();
        if (child < 0) {
                code = helper_fail(ctl, "fork: %s", errword(errno));
                goto out;
        }
        if (child == 0) {
                close(errpipe[0]);
                close(ctl);
                exec_child(&h.spec, &bpf, hostname, userns_fd, slave, argv, errpipe[1]);
        }
        close(errpipe[1]);
        if (slave >= 0) {
                close(slave);
                slave = -1;
        }
        n = read(errpipe[0], msg, sizeof(msg) - 1);
        close(errpipe[0]);
        if (n > 0) {
                msg[n] = '\0';
                while (waitpid(child, &status, 0) < 0 && errno == EINTR)
                        ;
                code = helper_fail(ctl, "%s", msg);
                goto out;
        }
        rt_send_fd(ctl, "STARTED", -1);
        child_fd = (int) syscall(SYS_pidfd_open, child, 0);
        for (;;) {
                struct pollfd p[2] = { { .fd = ctl, .events = POLLIN },
                                       { .fd = child_fd, .events = POLLIN } };

                if (poll(p, child_fd >= 0 ? 2 : 1, child_fd >= 0 ? -1 : 100) < 0 && errno != EINTR)
                        break;
                if (p[0].revents & (POLLIN | POLLHUP | POLLERR)) {
                        /* the agent is gone or asks: the process goes too */
                        (void) kill(child, SIGKILL);
                        break;
                }
                if (child_fd < 0 ? waitpid(child, &status, WNOHANG) == child
                                 : (p[1].revents & POLLIN) != 0) {
                        if (child_fd < 0)
                                goto reaped;
                        break;
                }
        }
        while (waitpid(child, &status, 0) < 0 && errno == EINTR)
                ;
reaped:
        /* K8S: a process killed by a signal exits 128 + the signal, as runc reports it */
        code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        (void) snprintf(msg, sizeof(msg), "EXIT %d", code);
        rt_send_fd(ctl, msg, -1);
        code = 0;
out:
        rt_spec_holder_release(&h);
        free(bpf.prog);
        return code;
}

int rt_exec_helper_main(int argc, char **argv, struct error **reterr)
{
        const char *dir = NULL;
        bool tty = false;
        sigset_t none;
        int ctl = -1, i;

        for (i = 1; i < argc; i++) {
                if (streq(argv[i], "--exec") && i + 1 < argc) {
                        dir = argv[++i];
                } else if (streq(argv[i], "--ctl-fd") && i + 1 < argc) {
                        char *end;
                        long v = strtol(argv[++i], &end, 10);
                        if (*end || v < 3 || v > 1024) {
                                error_set(reterr, EINVAL, "supervise: bad --ctl-fd \"%s\"",
                                          argv[i]);
                                return 2;
                        }
                        ctl = (int) v;
                } else if (streq(argv[i], "--tty")) {
                        tty = true;
                } else if (streq(argv[i], "--")) {
                        i++;
                        break;
                } else {
                        error_set(reterr, EINVAL, "supervise: unexpected argument \"%s\"", argv[i]);
                        return 2;
                }
        }
        if (!dir || dir[0] != '/' || ctl < 0 || i >= argc || !argv[i][0]) {
                error_set(reterr, EINVAL,
                          "usage: supervise --exec STATE-DIR --ctl-fd N [--tty] -- COMMAND...");
                return 2;
        }
        (void) fcntl(ctl, F_SETFD, FD_CLOEXEC);
        /* rt_clone_helper starts it with every signal blocked */
        sigemptyset(&none);
        (void) sigprocmask(SIG_SETMASK, &none, NULL);
        (void) signal(SIGPIPE, SIG_IGN);
        return exec_helper(dir, tty, argv + i, ctl);
}

/* ------------------------------------------------------------------ the agent's side */

int runtime_exec_start(const struct runtime_exec_spec *s, struct runtime_exec *ret,
                       struct error **reterr)
{
        size_t n = rt_strv_length(s->argv);
        cleanup_free const char **argv = NULL;
        int sp[2], null = -1, fds[3] = { s->stdin_fd, s->stdout_fd, s->stderr_fd };
        struct runtime_exec e = { .helper = -1, .ctl_fd = -1, .pty_fd = -1 };
        size_t a = 0;
        char msg[CTL_MSG_MAX];
        int r = 0;

        if (n == 0 || !s->argv[0][0])
                return error_set(reterr, EINVAL, "exec: no command");
        argv = xcalloc(n + 10, sizeof(*argv));
        argv[a++] = "flexlet";
        argv[a++] = "supervise";
        argv[a++] = "--exec";
        argv[a++] = s->state_dir;
        argv[a++] = "--ctl-fd";
        argv[a++] = "3";
        if (s->tty)
                argv[a++] = "--tty";
        argv[a++] = "--";
        for (size_t i = 0; i < n; i++)
                argv[a++] = s->argv[i];
        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0)
                return error_set(reterr, errno, "exec: socketpair: %s", strerror(errno));
        /* the child's stdio: the caller's, or /dev/null (a terminal comes back instead) */
        for (int i = 0; i < 3 && r == 0; i++) {
                if (!s->tty && fds[i] >= 0)
                        continue;
                if (null < 0 && (null = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0)
                        r = -errno;
                fds[i] = null;
        }
        e.helper =
                r < 0 ? r
                      : rt_clone_helper(argv, (const int[]){ fds[0], fds[1], fds[2], sp[1] }, NULL);
        if (null >= 0)
                close(null);
        close(sp[1]);
        if (e.helper < 0) {
                close(sp[0]);
                return error_set(reterr, -e.helper, "exec: %s", strerror(-e.helper));
        }
        e.ctl_fd = sp[0];
        for (;;) {
                struct pollfd p = { .fd = e.ctl_fd, .events = POLLIN };
                ssize_t got;

                if (poll(&p, 1, EXEC_START_TIMEOUT_MS) == 0) {
                        r = error_set(reterr, ETIMEDOUT, "exec: the process did not start in time");
                        break;
                }
                got = rt_recv_fd(e.ctl_fd, msg, sizeof(msg), &e.pty_fd);
                if (got <= 0) {
                        r = error_set(reterr, EIO, "exec: the helper ended without a word");
                        break;
                }
                if (streq(msg, "PTY"))
                        continue;
                if (streq(msg, "STARTED")) {
                        if (s->tty && e.pty_fd < 0) {
                                r = error_set(reterr, EIO, "exec: no terminal came back");
                                break;
                        }
                        *ret = e;
                        return 0;
                }
                if (strncmp(msg, "ERR ", 4) == 0) {
                        int code = streq(msg + 4, "container is not running") ? ESRCH : ENOEXEC;
                        r = error_set(reterr, code, "%s", msg + 4);
                        break;
                }
                r = error_set(reterr, EIO, "exec: unexpected message from the helper");
                break;
        }
        runtime_exec_release(&e);
        return r;
}

int runtime_exec_wait(struct runtime_exec *e, int *ret_exit_code, struct error **reterr)
{
        char msg[CTL_MSG_MAX];
        int extra = -1;

        for (;;) {
                ssize_t got = rt_recv_fd(e->ctl_fd, msg, sizeof(msg), &extra);
                int code;

                if (extra >= 0) {
                        close(extra);
                        extra = -1;
                }
                if (got <= 0)
                        return error_set(reterr, EIO, "exec: the helper ended without a word");
                if (sscanf(msg, "EXIT %d", &code) == 1) {
                        *ret_exit_code = code;
                        return 0;
                }
        }
}

void runtime_exec_release(struct runtime_exec *e)
{
        if (e->ctl_fd >= 0)
                close(e->ctl_fd); /* the helper kills the process if it still runs */
        e->ctl_fd = -1;
        if (e->pty_fd >= 0)
                close(e->pty_fd);
        e->pty_fd = -1;
        if (e->helper > 0) {
                int status;
                while (waitpid(e->helper, &status, 0) < 0 && errno == EINTR)
                        ;
        }
        e->helper = -1;
}
