/* util.c: the runtime's low-level helpers: string arrays,
 * path resolution inside a root (openat2 RESOLVE_IN_ROOT), process identity by pid and start
 * time (pidfds), the detached helper launch and its notify pipe, and CRI timestamps.
 * Nothing here knows about containers. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "base/timeutil.h"
#include "node/runtime/runtime-internal.h"

extern char **environ;

/* ------------------------------------------------------------------ strv */

size_t rt_strv_length(const char *const *v)
{
        size_t n = 0;

        while (v && v[n])
                n++;
        return n;
}

char **rt_strv_copy(const char *const *v)
{
        size_t n = rt_strv_length(v);
        char **r = xcalloc(n + 1, sizeof(*r));

        for (size_t i = 0; i < n; i++)
                r[i] = xstrdup(v[i]);
        return r;
}

char **rt_strv_free(char **v)
{
        for (size_t i = 0; v && v[i]; i++)
                free(v[i]);
        free(v);
        return NULL;
}

void rt_strv_push(char ***v, size_t *n, char *s)
{
        *v = xrealloc(*v, (*n + 2) * sizeof(**v));
        (*v)[(*n)++] = s;
        (*v)[*n] = NULL;
}

/* ------------------------------------------------------------------ files */

int rt_open_resolved(int dirfd, const char *path, int flags, uint64_t resolve)
{
        struct open_how how = {
                .flags = (uint64_t) (flags | O_CLOEXEC),
                .resolve = resolve,
        };
        long fd;

        while (*path == '/')
                path++;
        if (!*path)
                path = ".";
        do {
                fd = syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
        } while (fd < 0 && errno == EAGAIN);
        return fd < 0 ? -errno : (int) fd;
}

int rt_open_in_root(int rootfd, const char *path, int flags)
{
        return rt_open_resolved(rootfd, path, flags, RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS);
}

/* Creates the one missing component comp in the resolved parent cur, then opens it as a path
 * below dirfd (prefix) resolved the same way, and sets its mode (the umask took bits from it).
 * The mode goes to what the resolution finds, never to a path: a component swapped for a
 * symbolic link in between is still resolved inside. -ENOENT when it vanished again. */
static int create_one(int dirfd, int cur, const char *comp, const char *prefix, bool is_file,
                      mode_t mode, uint64_t resolve)
{
        bool created = false;
        int fd;

        if (is_file) {
                fd = openat(cur, comp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
                if (fd >= 0) {
                        created = true;
                        (void) fchmod(fd, mode);
                        close(fd);
                } else if (errno != EEXIST) {
                        return -errno;
                }
        } else if (mkdirat(cur, comp, mode) == 0) {
                created = true;
        } else if (errno != EEXIST) {
                return -errno;
        }
        if (created && !is_file) {
                fd = rt_open_resolved(dirfd, prefix, O_RDONLY | O_DIRECTORY, resolve);
                if (fd >= 0) {
                        (void) fchmod(fd, mode);
                        close(fd);
                }
        }
        return rt_open_resolved(dirfd, prefix, O_PATH | (is_file ? 0 : O_DIRECTORY), resolve);
}

int rt_create_resolved(int dirfd, const char *path, bool is_file, mode_t mode, uint64_t resolve)
{
        cleanup_free char *p = xstrdup(path);
        struct strbuf prefix;
        char *save = NULL, *comp, *next;
        int cur, r = 0;

        strbuf_init(&prefix);
        cur = rt_open_resolved(dirfd, ".", O_PATH | O_DIRECTORY, resolve);
        if (cur < 0) {
                strbuf_release(&prefix);
                return cur;
        }
        comp = strtok_r(p, "/", &save);
        while (comp) {
                bool last;
                int fd;

                next = strtok_r(NULL, "/", &save);
                last = next == NULL;
                if (prefix.len)
                        strbuf_addch(&prefix, '/');
                strbuf_addstr(&prefix, comp);
                fd = rt_open_resolved(dirfd, prefix.buf,
                                      O_PATH | (last && is_file ? 0 : O_DIRECTORY), resolve);
                /* cur is the resolved parent: create the one missing component there */
                if (fd == -ENOENT)
                        fd = create_one(dirfd, cur, comp, prefix.buf, last && is_file,
                                        last && is_file ? (mode & 0666) : mode, resolve);
                if (fd < 0) {
                        r = fd;
                        break;
                }
                close(cur);
                cur = fd;
                comp = next;
        }
        strbuf_release(&prefix);
        if (r < 0) {
                close(cur);
                return r;
        }
        return cur;
}

int rt_create_in_root(int rootfd, const char *path, bool is_file)
{
        return rt_create_resolved(rootfd, path, is_file, is_file ? 0644 : 0755,
                                  RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS);
}

/* ------------------------------------------------------------------ processes */

/* task->flags' PF_EXITING (include/linux/sched.h): set as the process enters its exit */
#define PF_EXITING 0x00000004

int rt_proc_start_time(pid_t pid, uint64_t *ret_ticks, bool *ret_ended)
{
        char path[64], buf[1024];
        cleanup_close int fd = -1;
        ssize_t n;
        char *p, *save = NULL, *tok;
        int field = 2;

        if (pid <= 0)
                return -ESRCH;
        (void) snprintf(path, sizeof(path), "/proc/%d/stat", (int) pid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return errno == ENOENT ? -ESRCH : -errno;
        n = read(fd, buf, sizeof(buf) - 1);
        if (n <= 0)
                return n < 0 ? (errno == ESRCH ? -ESRCH : -errno) : -EIO;
        buf[n] = '\0';
        /* the command name may hold spaces and parentheses: the fields start after the last ')' */
        p = strrchr(buf, ')');
        if (!p)
                return -EIO;
        for (tok = strtok_r(p + 1, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
                field++;
                /* proc(5): state is field 3, flags field 9 */
                if (field == 3 && ret_ended)
                        *ret_ended = tok[0] == 'Z' || tok[0] == 'X';
                if (field == 9 && ret_ended)
                        *ret_ended = *ret_ended || (strtoul(tok, NULL, 10) & PF_EXITING);
                if (field == 22) {
                        char *end;
                        errno = 0;
                        *ret_ticks = strtoull(tok, &end, 10);
                        return errno || *end ? -EIO : 0;
                }
        }
        return -EIO;
}

/* A pidfd of pid when it is still the process that started at start_ticks (in any state),
 * with *ret_ended as rt_proc_start_time's; -ESRCH otherwise. */
static int pidfd_open_identified(pid_t pid, uint64_t start_ticks, bool *ret_ended)
{
        uint64_t ticks;
        long fd;
        int r;

        if (pid <= 0)
                return -ESRCH;
        fd = syscall(SYS_pidfd_open, pid, 0);
        if (fd < 0)
                return errno == ESRCH ? -ESRCH : -errno;
        /* the pidfd was taken first: if the pid still shows the recorded start time now, the
         * pidfd is that process and no later one that reused the number */
        r = rt_proc_start_time(pid, &ticks, ret_ended);
        if (r < 0 || ticks != start_ticks) {
                close((int) fd);
                return r < 0 && r != -ESRCH ? r : -ESRCH;
        }
        return (int) fd;
}

int rt_pidfd_open_checked(pid_t pid, uint64_t start_ticks)
{
        bool ended = false;
        int fd = pidfd_open_identified(pid, start_ticks, &ended);

        /* A zombie has ended, only its parent's wait is missing; so has a process in its exit.
         * A pod's pid 1 killed stays in its exit until the namespace's last process is reaped,
         * and a container started meanwhile would fail to fork in the dying namespace. */
        if (fd >= 0 && ended) {
                close(fd);
                return -ESRCH;
        }
        return fd;
}

int rt_pidfd_open_to_wait(pid_t pid, uint64_t start_ticks)
{
        bool ended = false;

        return pidfd_open_identified(pid, start_ticks, &ended);
}

int rt_pidfd_send_signal(int pidfd, int sig)
{
        if (syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0) < 0)
                return -errno;
        return 0;
}

int rt_pidfd_wait(int pidfd, int timeout_ms)
{
        struct pollfd pfd = { .fd = pidfd, .events = POLLIN };
        int64_t deadline = time_monotonic_ms() + timeout_ms;

        for (;;) {
                int64_t left = deadline - time_monotonic_ms();
                int r = poll(&pfd, 1, left > 0 ? (int) left : 0);

                if (r > 0)
                        return 1;
                if (r == 0)
                        return 0;
                if (errno != EINTR)
                        return -errno;
        }
}

/* What the child of rt_clone_helper needs: it shares the agent's memory until its exec, so
 * everything is prepared before. */
struct helper_child {
        char *const *argv;
        const int *fds; /* what the child's 0-3 are to be */
};

/* The clone's child, on its own stack, in the agent's memory until the exec (the agent's thread
 * waits meanwhile): system calls only (no allocation, no lock), every signal blocked (the
 * helper resets its signals and mask first thing). */
static int helper_child_main(void *arg)
{
        const struct helper_child *c = arg;
        int high[4];

        /* each first above 0-3, so that no dup2 below writes over one still to be placed */
        for (int i = 0; i < 4; i++)
                if ((high[i] = fcntl(c->fds[i], F_DUPFD, 4)) < 0)
                        _exit(126);
        for (int i = 0; i < 4; i++)
                if (dup2(high[i], i) < 0)
                        _exit(126);
        /* close-on-exec, not closed: the sealed helper binary's fd is among them */
        (void) close_range(4, ~0U, CLOSE_RANGE_CLOEXEC);
        rt_helper_exec(c->argv);
        _exit(127);
}

#define HELPER_CHILD_STACK (64 * 1024)

pid_t rt_clone_helper(const char *const *argv, const int fds[4], struct error **reterr)
{
        cleanup_free char *stack = xmalloc(HELPER_CHILD_STACK);
        struct helper_child c = { .argv = (char *const *) argv, .fds = fds };
        sigset_t all, old;
        pid_t child;
        int e;

        /* A child sharing the agent's memory until it execs (as glibc's posix_spawn makes one),
         * so the agent's page tables are not copied for it: a fork costs in proportion to the
         * agent's memory, holds its memory map locked meanwhile (every other thread's page
         * fault waits), and it took two per helper, two helpers per pod and one per exec
         * probe. Signals stay blocked until the exec: a handler must not run on the agent's
         * memory from the child. */
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        child = clone(helper_child_main, stack + HELPER_CHILD_STACK,
                      CLONE_VM | CLONE_VFORK | SIGCHLD, &c);
        e = errno;
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (child < 0)
                return error_set(reterr, e, "starting the helper: clone: %s", strerror(e));
        return child;
}

int rt_spawn_helper(const char *const *args, int *ret_notify_fd, struct error **reterr)
{
        size_t n = rt_strv_length(args);
        cleanup_free const char **argv = xcalloc(n + 6, sizeof(*argv));
        int p[2], null, status;
        pid_t child;

        argv[0] = "flexlet";
        argv[1] = "supervise";
        argv[2] = "--detach";
        argv[3] = "--notify-fd";
        argv[4] = "3";
        for (size_t i = 0; i < n; i++)
                argv[5 + i] = args[i];
        if (pipe2(p, O_CLOEXEC) < 0)
                return error_set(reterr, errno, "start helper: pipe: %s", strerror(errno));
        null = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (null < 0) {
                int e = errno;

                close(p[0]);
                close(p[1]);
                return error_set(reterr, e, "start helper: /dev/null: %s", strerror(e));
        }
        /* stdio on /dev/null, the notify pipe's write end as fd 3. The helper leaves the
         * agent's session itself (--detach: setsid, then a fork of its own small process whose
         * parent exits at once), so it belongs to no one but init and lives on when the agent
         * dies; this waits for that first process to exit. */
        child = rt_clone_helper(argv, (const int[]){ null, null, null, p[1] }, reterr);
        close(null);
        close(p[1]);
        if (child < 0) {
                close(p[0]);
                return (int) child;
        }
        while (waitpid(child, &status, 0) < 0 && errno == EINTR)
                ;
        *ret_notify_fd = p[0];
        return 0;
}

int rt_read_notify(int fd, int timeout_ms, char **ret_payload, struct error **reterr)
{
        char buf[4096];
        size_t len = 0;
        int64_t deadline = time_monotonic_ms() + timeout_ms;
        char *end;
        long e;

        for (;;) {
                struct pollfd pfd = { .fd = fd, .events = POLLIN };
                int64_t left = deadline - time_monotonic_ms();
                ssize_t n;
                int r;

                if (left <= 0)
                        return error_set(reterr, ETIMEDOUT,
                                         "helper process: no answer within %d ms", timeout_ms);
                r = poll(&pfd, 1, (int) left);
                if (r < 0 && errno == EINTR)
                        continue;
                if (r < 0)
                        return error_set(reterr, errno, "helper process: poll: %s",
                                         strerror(errno));
                if (r == 0)
                        continue;
                n = read(fd, buf + len, sizeof(buf) - 1 - len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return error_set(reterr, errno, "helper process: read: %s",
                                         strerror(errno));
                if (n == 0 || len + (size_t) n >= sizeof(buf) - 1) {
                        len += (size_t) n;
                        break;
                }
                len += (size_t) n;
        }
        buf[len] = '\0';
        if (len > 0 && buf[len - 1] == '\n')
                buf[--len] = '\0';
        if (strncmp(buf, "OK", 2) == 0 && (buf[2] == '\0' || buf[2] == ' ')) {
                if (ret_payload)
                        *ret_payload = xstrdup(buf[2] ? buf + 3 : "");
                return 0;
        }
        if (strncmp(buf, "ERR ", 4) == 0) {
                e = strtol(buf + 4, &end, 10);
                if (e <= 0 || *end != ' ')
                        e = EIO;
                return error_set(reterr, (int) e, "%s", *end == ' ' ? end + 1 : buf + 4);
        }
        if (len == 0)
                return error_set(
                        reterr, EIO,
                        "helper process ended without a word (is this binary able to run `supervise`?)");
        return error_set(reterr, EIO, "helper process: unexpected answer \"%s\"", buf);
}

void rt_notify(int *fd, int err, const char *msg)
{
        char *line;

        if (*fd < 0)
                return;
        if (err == 0)
                line = xasprintf("OK%s%s\n", msg && *msg ? " " : "", msg ? msg : "");
        else
                line = xasprintf("ERR %d %s\n", err < 0 ? -err : err, msg ? msg : strerror(err));
        (void) fs_write_all(*fd, line, strlen(line));
        free(line);
        close(*fd);
        *fd = -1;
}

/* ------------------------------------------------------------------ time */

void rt_time_format(const struct timespec *ts, char buf[static 40])
{
        struct tm tm;
        char head[32];

        gmtime_r(&ts->tv_sec, &tm);
        (void) strftime(head, sizeof(head), "%Y-%m-%dT%H:%M:%S", &tm);
        (void) snprintf(buf, 40, "%.20s.%09ldZ", head, (long) ts->tv_nsec);
}

int rt_time_parse(const char *s, size_t len, struct timespec *ret)
{
        char buf[64];
        const char *dot;
        long nsec = 0;
        time_t sec;

        if (len == 0 || len >= sizeof(buf))
                return -EINVAL;
        memcpy(buf, s, len);
        buf[len] = '\0';
        if (time_parse_rfc3339(buf, &sec) < 0)
                return -EINVAL;
        dot = strchr(buf, '.');
        if (dot) {
                long scale = 100000000;
                for (const char *p = dot + 1; *p >= '0' && *p <= '9'; p++) {
                        nsec += (*p - '0') * scale;
                        scale /= 10;
                }
        }
        ret->tv_sec = sec;
        ret->tv_nsec = nsec;
        return 0;
}

void rt_now(struct timespec *ret)
{
        clock_gettime(CLOCK_REALTIME, ret);
}

/* ------------------------------------------------------------------ terminals and fd passing */

#ifndef TIOCGPTPEER
# define TIOCGPTPEER _IO('T', 0x41)
#endif

/* Go's error words are lower case */
static const char *lower_strerror(int e, char buf[static 128])
{
        (void) snprintf(buf, 128, "%s", strerror(e));
        if (buf[0] >= 'A' && buf[0] <= 'Z')
                buf[0] = (char) (buf[0] - 'A' + 'a');
        return buf;
}

int rt_pty_open(int *ret_master, int *ret_slave, char *err, size_t errlen)
{
        int rootfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        int m, s, unlock = 0;
        struct stat st;
        char e[128];

        if (rootfd < 0) {
                (void) snprintf(err, errlen, "open the container's root: %s",
                                lower_strerror(errno, e));
                return -1;
        }
        /* the pod controls its /dev: only the real multiplexer of a devpts will do */
        m = rt_open_in_root(rootfd, "/dev/pts/ptmx", O_RDWR | O_NOCTTY | O_NONBLOCK);
        close(rootfd);
        if (m < 0) {
                (void) snprintf(err, errlen, "open /dev/pts/ptmx: %s", lower_strerror(-m, e));
                return -1;
        }
        if (fstat(m, &st) < 0 || !S_ISCHR(st.st_mode) || major(st.st_rdev) != 5 ||
            minor(st.st_rdev) != 2) {
                close(m);
                (void) snprintf(err, errlen, "/dev/pts/ptmx is not a terminal multiplexer");
                return -1;
        }
        if (ioctl(m, TIOCSPTLCK, &unlock) < 0 ||
            (s = ioctl(m, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0) {
                (void) snprintf(err, errlen, "open the terminal: %s", lower_strerror(errno, e));
                close(m);
                return -1;
        }
        (void) fcntl(m, F_SETFL, fcntl(m, F_GETFL) & ~O_NONBLOCK);
        *ret_master = m;
        *ret_slave = s;
        return 0;
}

void rt_send_fd(int sock, const char *msg, int pass_fd)
{
        struct iovec iov = { .iov_base = (void *) msg, .iov_len = strlen(msg) };
        union {
                char buf[CMSG_SPACE(sizeof(int))];
                struct cmsghdr align;
        } u;
        struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

        if (pass_fd >= 0) {
                struct cmsghdr *c;

                memset(&u, 0, sizeof(u));
                mh.msg_control = u.buf;
                mh.msg_controllen = sizeof(u.buf);
                c = CMSG_FIRSTHDR(&mh);
                c->cmsg_level = SOL_SOCKET;
                c->cmsg_type = SCM_RIGHTS;
                c->cmsg_len = CMSG_LEN(sizeof(int));
                memcpy(CMSG_DATA(c), &pass_fd, sizeof(int));
        }
        (void) sendmsg(sock, &mh, MSG_NOSIGNAL);
}

ssize_t rt_recv_fd(int sock, char *buf, size_t size, int *ret_fd)
{
        union {
                char b[CMSG_SPACE(sizeof(int))];
                struct cmsghdr align;
        } u;
        struct iovec iov = { .iov_base = buf, .iov_len = size - 1 };
        struct msghdr mh = {
                .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.b, .msg_controllen = sizeof(u.b)
        };
        ssize_t n;

        do
                n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return -errno;
        buf[n] = '\0';
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
                if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
                        int passed;
                        memcpy(&passed, CMSG_DATA(c), sizeof(int));
                        if (*ret_fd < 0)
                                *ret_fd = passed;
                        else
                                close(passed);
                }
        return n;
}
