/* spawn.c: spawn_run, the one way the node runs a helper program (see spawn.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/spawn.h"
#include "base/timeutil.h"

static void close_pair(int p[2])
{
        for (int i = 0; i < 2; i++)
                if (p[i] >= 0) {
                        close(p[i]);
                        p[i] = -1;
                }
}

static void keep(struct strbuf *sb, const char *data, size_t len, const struct spawn_options *o)
{
        if (!o->output_max) {
                strbuf_add(sb, data, len);
        } else if (o->keep_tail) {
                strbuf_add(sb, data, len);
                /* trimmed in batches, so a chatty tool costs one move per output_max bytes */
                if (sb->len > 2 * o->output_max) {
                        size_t drop = sb->len - o->output_max;

                        memmove(sb->buf, sb->buf + drop, sb->len - drop + 1);
                        sb->len -= drop;
                }
        } else if (sb->len <= o->output_max) {
                size_t room = o->output_max + 1 - sb->len;

                strbuf_add(sb, data, len < room ? len : room);
        }
}

/* Feeds stdin and drains stdout and stderr until both close, or the deadline passes (then the
 * child is killed and true returned). Closes the three descriptors. */
static bool pump(pid_t pid, int in, int out, int err, const struct spawn_options *o,
                 struct spawn_result *ret)
{
        struct pollfd pfd[3] = { { .fd = in, .events = POLLOUT },
                                 { .fd = out, .events = POLLIN },
                                 { .fd = err, .events = POLLIN } };
        struct strbuf *sinks[3] = { NULL, &ret->out, &ret->err };
        int64_t deadline = o->timeout_ms > 0 ? time_monotonic_ms() + o->timeout_ms : 0;
        size_t in_off = 0;
        bool timed_out = false;
        char buf[8192];

        if (in >= 0)
                (void) fcntl(in, F_SETFL, O_NONBLOCK);
        while (pfd[1].fd >= 0 || pfd[2].fd >= 0) {
                int wait_ms = -1;

                if (deadline) {
                        int64_t left = deadline - time_monotonic_ms();

                        if (left <= 0) {
                                timed_out = true;
                                (void) kill(pid, SIGKILL);
                                break;
                        }
                        wait_ms = left > INT_MAX ? INT_MAX : (int) left;
                }
                if (poll(pfd, 3, wait_ms) < 0) {
                        if (errno == EINTR)
                                continue;
                        break;
                }
                if (pfd[0].fd >= 0 && pfd[0].revents) {
                        ssize_t n = write(pfd[0].fd, o->input + in_off, o->input_len - in_off);

                        if (n > 0)
                                in_off += (size_t) n;
                        if ((n < 0 && errno != EAGAIN && errno != EINTR) ||
                            in_off == o->input_len) {
                                close(pfd[0].fd);
                                pfd[0].fd = -1;
                        }
                }
                for (int i = 1; i < 3; i++) {
                        ssize_t n;

                        if (pfd[i].fd < 0 || !pfd[i].revents)
                                continue;
                        n = read(pfd[i].fd, buf, sizeof(buf));
                        if (n < 0 && (errno == EINTR || errno == EAGAIN))
                                continue;
                        if (n <= 0) {
                                close(pfd[i].fd);
                                pfd[i].fd = -1;
                                continue;
                        }
                        keep(sinks[i], buf, (size_t) n, o);
                }
        }
        for (int i = 0; i < 3; i++)
                if (pfd[i].fd >= 0)
                        close(pfd[i].fd);
        return timed_out;
}

int spawn_run(const char *path, char *const *argv, char *const *envp, const struct spawn_options *o,
              struct spawn_result *ret, struct error **reterr)
{
        int in[2] = { -1, -1 }, out[2] = { -1, -1 }, err[2] = { -1, -1 };
        posix_spawn_file_actions_t fa;
        posix_spawnattr_t attr;
        sigset_t none, all;
        bool timed_out;
        pid_t pid;
        int r, status;

        strbuf_init(&ret->out);
        strbuf_init(&ret->err);
        ret->status = 0;
        if ((o->input && pipe2(in, O_CLOEXEC) < 0) || pipe2(out, O_CLOEXEC) < 0 ||
            pipe2(err, O_CLOEXEC) < 0) {
                r = errno;
                close_pair(in);
                close_pair(out);
                return error_set(reterr, r, "run \"%s\": pipe: %s", path, strerror(r));
        }
        posix_spawn_file_actions_init(&fa);
        if (o->input)
                posix_spawn_file_actions_adddup2(&fa, in[0], 0);
        else
                posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_adddup2(&fa, out[1], 1);
        posix_spawn_file_actions_adddup2(&fa, err[1], 2);
        posix_spawn_file_actions_addclosefrom_np(&fa, 3);
        posix_spawnattr_init(&attr);
        sigemptyset(&none);
        sigfillset(&all);
        posix_spawnattr_setsigmask(&attr, &none);
        posix_spawnattr_setsigdefault(&attr, &all);
        posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
        r = posix_spawn(&pid, path, &fa, &attr, argv, envp);
        posix_spawn_file_actions_destroy(&fa);
        posix_spawnattr_destroy(&attr);
        if (in[0] >= 0)
                close(in[0]);
        close(out[1]);
        close(err[1]);
        if (r != 0) {
                if (in[1] >= 0)
                        close(in[1]);
                close(out[0]);
                close(err[0]);
                return error_set(reterr, r, "run \"%s\": %s", path, strerror(r));
        }
        timed_out = pump(pid, in[1], out[0], err[0], o, ret);
        while (waitpid(pid, &status, 0) < 0) {
                if (errno != EINTR) {
                        r = errno;
                        return error_set(reterr, r, "run \"%s\": waitpid: %s", path, strerror(r));
                }
        }
        if (timed_out)
                return error_set(reterr, ETIMEDOUT, "no answer within %d s", o->timeout_ms / 1000);
        ret->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        return 0;
}
