/* kubelet-stream.c: exec and attach sessions of the kubelet endpoint: the WebSocket handshake
 * and channel protocol (kubelet-stream.h), the relay between the client's channels and the
 * process's stdio or terminal, and the final Status. Starting the process in the container is
 * the runtime's (runtime_exec_start); the frames are http/websocket.c's. One thread per session
 * (the HTTP server's upgrade thread), blocking on poll over its few descriptors. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <termios.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/json.h"
#include "base/strbuf.h"
#include "base/timeutil.h"
#include "http/websocket.h"
#include "node/kubelet-stream.h"
#include "node/runtime/runtime.h"

/* K8S remotecommand channel ids */
enum { CH_STDIN = 0, CH_STDOUT = 1, CH_STDERR = 2, CH_ERROR = 3, CH_RESIZE = 4, CH_CLOSE = 255 };

/* The largest message a client may send (stdin arrives in pieces of at most 32 KiB from
 * client-go); anything larger ends the session with 1009. */
#define WS_MAX_MESSAGE (1024 * 1024)
#define IO_CHUNK       (32 * 1024)
/* after the process exited, output still arriving is relayed until this much silence (a
 * background child may hold the pipe open for ever) */
#define DRAIN_QUIET_MS 300

struct session {
        enum kubelet_stream_kind kind;
        char *state_dir;
        char **argv;
        bool in, out, err, tty;
        bool v5;
        int fd; /* the upgraded connection */
        struct ws_reader rd;
        bool client_gone;
};

static void session_free(void *ctx)
{
        struct session *s = ctx;

        if (!s)
                return;
        free(s->state_dir);
        for (size_t i = 0; s->argv && s->argv[i]; i++)
                free(s->argv[i]);
        free(s->argv);
        ws_reader_release(&s->rd);
        free(s);
}

/* ------------------------------------------------------------------ frames */

static int send_all(int fd, const char *buf, size_t n)
{
        while (n) {
                ssize_t w = send(fd, buf, n, MSG_NOSIGNAL);
                if (w < 0 && errno == EINTR)
                        continue;
                if (w <= 0)
                        return -EPIPE;
                buf += w;
                n -= (size_t) w;
        }
        return 0;
}

static int send_frame(struct session *s, enum ws_opcode op, const void *data, size_t len)
{
        struct strbuf sb;
        int r;

        if (s->client_gone)
                return -EPIPE;
        strbuf_init(&sb);
        ws_frame_append(&sb, op, data, len, NULL);
        r = send_all(s->fd, sb.buf, sb.len);
        strbuf_release(&sb);
        if (r < 0)
                s->client_gone = true;
        return r;
}

/* One channel message: the channel's byte, then the data. */
static int send_channel(struct session *s, int ch, const void *data, size_t len)
{
        cleanup_free char *buf = xmalloc(len + 1);

        buf[0] = (char) ch;
        if (len)
                memcpy(buf + 1, data, len);
        return send_frame(s, WS_OP_BINARY, buf, len + 1);
}

static void send_close(struct session *s, unsigned code)
{
        unsigned char b[2] = { (unsigned char) (code >> 8), (unsigned char) code };

        (void) send_frame(s, WS_OP_CLOSE, b, 2);
}

/* ------------------------------------------------------------------ statuses */

static char *join_argv(const char *const *argv)
{
        struct strbuf sb;

        strbuf_init(&sb);
        for (size_t i = 0; argv && argv[i]; i++) {
                if (i)
                        strbuf_addch(&sb, ' ');
                strbuf_addstr(&sb, argv[i]);
        }
        return strbuf_detach(&sb);
}

char *kubelet_stream_exit_status(const char *const *argv, int code)
{
        cleanup_json json_t *st = NULL;
        cleanup_free char *cmd = NULL, *msg = NULL;
        char n[16];

        if (code == 0)
                return xstrdup("{\"metadata\":{},\"status\":\"Success\"}");
        /* K8S remotecommand: reason NonZeroExitCode, the code as the ExitCode cause; the
         * message is containerd's exit error's */
        cmd = join_argv(argv);
        msg = xasprintf("command terminated with non-zero exit code: error executing command "
                        "[%s], exit code %d",
                        cmd, code);
        (void) snprintf(n, sizeof(n), "%d", code);
        st = json_pack("{s:{}, s:s, s:s, s:s, s:{s:[{s:s, s:s}]}}", "metadata", "status", "Failure",
                       "message", msg, "reason", "NonZeroExitCode", "details", "causes", "reason",
                       "ExitCode", "message", n);
        return json_dump_compact(st);
}

/* K8S: apierrors.NewInternalError(err) as the kubelet writes a failed exec */
static char *internal_status(const char *cause)
{
        cleanup_json json_t *st = NULL;
        cleanup_free char *msg = xasprintf("Internal error occurred: %s", cause);

        st = json_pack("{s:{}, s:s, s:s, s:s, s:{s:[{s:s}]}, s:i}", "metadata", "status", "Failure",
                       "message", msg, "reason", "InternalError", "details", "causes", "message",
                       cause, "code", 500);
        return json_dump_compact(st);
}

static void finish(struct session *s, const char *status)
{
        (void) send_channel(s, CH_ERROR, status, strlen(status));
        send_close(s, WS_CLOSE_NORMAL);
        (void) shutdown(s->fd, SHUT_WR);
}

/* ------------------------------------------------------------------ the client's messages */

struct relay {
        int stdin_fd;          /* ours: the process's stdin (pipe or terminal); -1 closed */
        struct strbuf pending; /* stdin not yet written (framed: frames for the supervisor) */
        int pty_fd;            /* the terminal, for resizes; -1 */
        bool stdin_closing;    /* close stdin once pending is written */
        /* attach: what the client sends becomes frames for the container's supervisor
         * (runtime.h "attach") in pending, written to stdin_fd (the attach socket) */
        bool framed;
};

/* K8S remotecommand TerminalSize {"Width":W,"Height":H}: anything else, or a size outside
 * 1..65535, is ignored (the client is hostile until checked) */
static void resize(struct relay *x, const uint8_t *data, size_t len)
{
        cleanup_json json_t *j = json_loadb((const char *) data, len, 0, NULL);
        json_t *jw = json_object_get(j, "Width"), *jh = json_object_get(j, "Height");
        json_int_t w = json_integer_value(jw), h = json_integer_value(jh);
        struct winsize ws = { 0 };

        if (!json_is_integer(jw) || !json_is_integer(jh) || w <= 0 || h <= 0 || w > 65535 ||
            h > 65535)
                return;
        if (x->framed) {
                char b[4] = { (char) (w >> 8), (char) w, (char) (h >> 8), (char) h };
                runtime_attach_frame_append(&x->pending, RUNTIME_ATTACH_RESIZE, b, 4);
                return;
        }
        if (x->pty_fd < 0)
                return;
        ws.ws_col = (unsigned short) w;
        ws.ws_row = (unsigned short) h;
        (void) ioctl(x->pty_fd, TIOCSWINSZ, &ws);
}

/* Reads what the client sent and acts on each complete message. -1 when the session is over
 * (the client closed, left or broke the protocol). */
static int client_messages(struct session *s, struct relay *x);

static int client_input(struct session *s, struct relay *x)
{
        char buf[IO_CHUNK];
        ssize_t n;

        n = recv(s->fd, buf, sizeof(buf), 0);
        if (n < 0 && errno == EINTR)
                return 0;
        if (n <= 0) {
                s->client_gone = true;
                return -1;
        }
        ws_reader_push(&s->rd, buf, (size_t) n);
        return client_messages(s, x);
}

/* Acts on each complete message the reader holds (also those that came with the handshake,
 * before the session started: a client may send its stdin at once). -1 when the session is
 * over. */
static int client_messages(struct session *s, struct relay *x)
{
        struct ws_message m;
        unsigned code = 0;
        int r;

        while ((r = ws_reader_next(&s->rd, &m, &code)) == 1) {
                switch (m.opcode) {
                case WS_OP_CLOSE:
                        send_close(s, WS_CLOSE_NORMAL);
                        s->client_gone = true;
                        return -1;
                case WS_OP_PING:
                        (void) send_frame(s, WS_OP_PONG, m.data, m.len);
                        break;
                case WS_OP_PONG:
                case WS_OP_TEXT:
                case WS_OP_CONTINUATION:
                        break;
                case WS_OP_BINARY:
                        if (m.len == 0)
                                break;
                        if (m.data[0] == CH_STDIN && x->stdin_fd >= 0 && !x->stdin_closing &&
                            s->in) {
                                if (x->framed)
                                        runtime_attach_frame_append(&x->pending,
                                                                    RUNTIME_ATTACH_STDIN,
                                                                    m.data + 1, m.len - 1);
                                else
                                        strbuf_add(&x->pending, m.data + 1, m.len - 1);
                        } else if (m.data[0] == CH_RESIZE) {
                                resize(x, m.data + 1, m.len - 1);
                        } else if (m.data[0] == CH_CLOSE && s->v5 && m.len >= 2 &&
                                   m.data[1] == CH_STDIN && !x->stdin_closing) {
                                x->stdin_closing = true;
                                if (x->framed)
                                        runtime_attach_frame_append(
                                                &x->pending, RUNTIME_ATTACH_STDIN_END, NULL, 0);
                        }
                        break;
                }
        }
        if (r < 0) {
                send_close(s, code);
                s->client_gone = true;
                return -1;
        }
        return 0;
}

/* Writes what stdin can take now. */
static void flush_stdin(struct relay *x, bool tty)
{
        while (x->pending.len && x->stdin_fd >= 0) {
                ssize_t w = write(x->stdin_fd, x->pending.buf, x->pending.len);
                if (w < 0 && errno == EINTR)
                        continue;
                if (w < 0 && errno == EAGAIN)
                        return;
                if (w <= 0) {
                        /* the process closed its stdin: what the client sends is dropped */
                        strbuf_reset(&x->pending);
                        if (!tty)
                                close(x->stdin_fd);
                        x->stdin_fd = -1;
                        return;
                }
                memmove(x->pending.buf, x->pending.buf + w, x->pending.len - (size_t) w);
                x->pending.len -= (size_t) w;
        }
        if (x->stdin_closing && x->stdin_fd >= 0 && !x->pending.len) {
                if (tty) {
                        /* a terminal's end of input is its EOF character */
                        (void) write(x->stdin_fd, "\x04", 1);
                } else {
                        close(x->stdin_fd);
                }
                x->stdin_fd = -1;
        }
}

/* ------------------------------------------------------------------ exec */

static void set_nonblock(int fd)
{
        int fl = fcntl(fd, F_GETFL);

        if (fl >= 0)
                (void) fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static void run_exec(struct session *s)
{
        cleanup_error struct error *err = NULL;
        struct runtime_exec e = { .helper = -1, .ctl_fd = -1, .pty_fd = -1 };
        struct relay x = { .stdin_fd = -1, .pty_fd = -1 };
        int in[2] = { -1, -1 }, out[2] = { -1, -1 }, errp[2] = { -1, -1 };
        int outs[2] = { -1, -1 }; /* ours: stdout (or the terminal) and stderr */
        struct runtime_exec_spec spec = { .state_dir = s->state_dir,
                                          .argv = (const char *const *) s->argv,
                                          .tty = s->tty,
                                          .stdin_fd = -1,
                                          .stdout_fd = -1,
                                          .stderr_fd = -1 };
        bool exited = false;
        int64_t quiet_since = 0;
        int code = -1, r;
        char buf[IO_CHUNK];

        strbuf_init(&x.pending);
        if (!s->tty) {
                if ((s->in && pipe2(in, O_CLOEXEC) < 0) || (s->out && pipe2(out, O_CLOEXEC) < 0) ||
                    (s->err && pipe2(errp, O_CLOEXEC) < 0)) {
                        cleanup_free char *st = internal_status(strerror(errno));
                        finish(s, st);
                        goto out;
                }
                spec.stdin_fd = in[0];
                spec.stdout_fd = out[1];
                spec.stderr_fd = errp[1];
        }
        r = runtime_exec_start(&spec, &e, &err);
        /* the process has its own copies */
        for (int *fd = (int[]){ in[0], out[1], errp[1] }, i = 0; i < 3; i++)
                if (fd[i] >= 0)
                        close(fd[i]);
        in[0] = out[1] = errp[1] = -1;
        if (r < 0) {
                cleanup_free char *cause = xasprintf(
                        "error executing command in container: failed to exec in container: %s",
                        err->message);
                cleanup_free char *st = internal_status(cause);
                finish(s, st);
                goto out;
        }
        if (s->tty) {
                x.stdin_fd = s->in ? e.pty_fd : -1;
                x.pty_fd = e.pty_fd;
                outs[0] = e.pty_fd;
                set_nonblock(e.pty_fd);
        } else {
                x.stdin_fd = in[1];
                outs[0] = out[0];
                outs[1] = errp[0];
                in[1] = out[0] = errp[0] = -1;
                if (x.stdin_fd >= 0)
                        set_nonblock(x.stdin_fd);
        }
        /* K8S: an empty message on the lowest writable channel says the session is up */
        (void) send_channel(s, s->out ? CH_STDOUT : s->err ? CH_STDERR : CH_ERROR, NULL, 0);
        if (client_messages(s, &x) < 0)
                goto out_kill;

        for (;;) {
                struct pollfd p[4];
                int np = 0, ic = -1, io[2] = { -1, -1 }, is = -1, ictl = -1;
                bool outputs_open = outs[0] >= 0 || outs[1] >= 0;

                if (exited &&
                    (!outputs_open || time_monotonic_ms() - quiet_since >= DRAIN_QUIET_MS))
                        break;
                /* no new client input while stdin is behind (backpressure) */
                if (!s->client_gone && !x.pending.len) {
                        ic = np;
                        p[np++] = (struct pollfd){ .fd = s->fd, .events = POLLIN };
                }
                for (int i = 0; i < 2; i++)
                        if (outs[i] >= 0) {
                                io[i] = np;
                                p[np++] = (struct pollfd){ .fd = outs[i], .events = POLLIN };
                        }
                if (x.pending.len && x.stdin_fd >= 0 && (!s->tty || outs[0] != x.stdin_fd)) {
                        is = np;
                        p[np++] = (struct pollfd){ .fd = x.stdin_fd, .events = POLLOUT };
                }
                if (!exited) {
                        ictl = np;
                        p[np++] = (struct pollfd){ .fd = e.ctl_fd, .events = POLLIN };
                }
                if (poll(p, (nfds_t) np, exited || (s->tty && x.pending.len) ? 50 : -1) < 0) {
                        if (errno == EINTR)
                                continue;
                        break;
                }
                if (ic >= 0 && p[ic].revents && client_input(s, &x) < 0)
                        break; /* the client is gone: the process goes with the session */
                flush_stdin(&x, s->tty);
                for (int i = 0; i < 2; i++) {
                        ssize_t n;

                        if (io[i] < 0 || !p[io[i]].revents)
                                continue;
                        n = read(outs[i], buf, sizeof(buf));
                        if (n < 0 && (errno == EINTR || errno == EAGAIN))
                                continue;
                        if (n <= 0) {
                                /* EOF, or EIO from a terminal whose processes all left */
                                if (!s->tty)
                                        close(outs[i]);
                                outs[i] = -1;
                                continue;
                        }
                        quiet_since = time_monotonic_ms();
                        if (send_channel(s, i == 0 ? CH_STDOUT : CH_STDERR, buf, (size_t) n) < 0)
                                goto out_kill;
                }
                (void) is;
                if (ictl >= 0 && p[ictl].revents) {
                        cleanup_error struct error *werr = NULL;

                        if (runtime_exec_wait(&e, &code, &werr) < 0)
                                code = -1;
                        exited = true;
                        quiet_since = time_monotonic_ms();
                }
        }
        if (exited && !s->client_gone) {
                cleanup_free char *st =
                        code >= 0 ? kubelet_stream_exit_status((const char *const *) s->argv, code)
                                  : internal_status("error executing command in container: the "
                                                    "process's exit was not recorded");
                finish(s, st);
        }
out_kill:
        if (!s->tty)
                for (int i = 0; i < 2; i++)
                        if (outs[i] >= 0)
                                close(outs[i]);
        if (!s->tty && x.stdin_fd >= 0)
                close(x.stdin_fd);
        runtime_exec_release(&e);
out:
        for (int *fd = (int[]){ in[1], out[0], errp[0] }, i = 0; i < 3; i++)
                if (fd[i] >= 0)
                        close(fd[i]);
        strbuf_release(&x.pending);
}

/* ------------------------------------------------------------------ attach */

static int attach_write(void *ud, const char *buf, size_t n)
{
        struct session *s = ud;

        return send_channel(s, CH_STDOUT, buf, n) < 0 ? -EPIPE : 0;
}

/* About once a second while the log is quiet: has the client closed? */
static int attach_idle(void *ud)
{
        struct session *s = ud;
        struct relay x = { .stdin_fd = -1, .pty_fd = -1 };
        struct pollfd p = { .fd = s->fd, .events = POLLIN };
        int r = 0;

        strbuf_init(&x.pending);
        while (!s->client_gone && poll(&p, 1, 0) > 0)
                if (client_input(s, &x) < 0)
                        r = 1;
        strbuf_release(&x.pending);
        return s->client_gone ? 1 : r;
}

/* The log followed from now on: for a container whose supervisor serves no attach socket
 * (started by an older flexlet), output only. */
static void run_attach_log(struct session *s)
{
        struct runtime_log_options o = RUNTIME_LOG_OPTIONS_INIT;
        cleanup_free char *log_path = runtime_container_log_path(s->state_dir);
        cleanup_error struct error *err = NULL;

        (void) send_channel(s, CH_STDOUT, NULL, 0);
        o.tail_lines = 0; /* from now on */
        o.follow = true;
        o.state_dir = s->state_dir;
        o.idle = attach_idle;
        if (runtime_log_read(log_path, &o, attach_write, s, &err) < 0 && !s->client_gone) {
                cleanup_free char *cause = xasprintf("error attaching to container: %s",
                                                     err ? err->message : "the log ended");
                cleanup_free char *st = internal_status(cause);
                finish(s, st);
                return;
        }
        if (!s->client_gone)
                finish(s, "{\"metadata\":{},\"status\":\"Success\"}");
}

/* Writes the frames for the supervisor that the socket takes now. false: it is gone. */
static bool flush_frames(struct relay *x)
{
        while (x->pending.len) {
                ssize_t w = send(x->stdin_fd, x->pending.buf, x->pending.len,
                                 MSG_DONTWAIT | MSG_NOSIGNAL);
                if (w < 0 && errno == EINTR)
                        continue;
                if (w < 0 && errno == EAGAIN)
                        return true;
                if (w <= 0)
                        return false;
                memmove(x->pending.buf, x->pending.buf + w, x->pending.len - (size_t) w);
                x->pending.len -= (size_t) w;
        }
        return true;
}

/* K8S containerd ContainerIO.Attach: the session relays the container's own stdio through its
 * supervisor (runtime.h "attach") until the container ends (Success) or the client goes. */
static void run_attach(struct session *s)
{
        cleanup_error struct error *err = NULL;
        struct relay x = { .stdin_fd = -1, .pty_fd = -1, .framed = true };
        struct strbuf in;
        int fd = -1, r;

        r = runtime_attach_connect(s->state_dir, s->in, &fd, &err);
        if (r == -ENOENT) {
                run_attach_log(s);
                return;
        }
        if (r < 0) {
                cleanup_free char *cause =
                        xasprintf("error attaching to container: %s", err->message);
                cleanup_free char *st = internal_status(cause);
                finish(s, st);
                return;
        }
        strbuf_init(&x.pending);
        strbuf_init(&in);
        x.stdin_fd = fd;
        (void) send_channel(s, CH_STDOUT, NULL, 0);
        if (client_messages(s, &x) < 0)
                goto out;
        for (;;) {
                struct pollfd p[2];
                int np = 0, ic = -1;
                char buf[IO_CHUNK];
                const char *data;
                size_t len, used;
                uint8_t type;
                ssize_t n;

                /* no new client input while the supervisor is behind (backpressure) */
                if (!x.pending.len) {
                        ic = np;
                        p[np++] = (struct pollfd){ .fd = s->fd, .events = POLLIN };
                }
                p[np++] = (struct pollfd){
                        .fd = fd, .events = (short) (POLLIN | (x.pending.len ? POLLOUT : 0))
                };
                if (poll(p, (nfds_t) np, -1) < 0) {
                        if (errno == EINTR)
                                continue;
                        break;
                }
                if (ic >= 0 && p[ic].revents && client_input(s, &x) < 0)
                        break; /* the client is gone: the container stays */
                if (!flush_frames(&x))
                        break;
                if (!p[np - 1].revents)
                        continue;
                n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
                if (n < 0 && (errno == EINTR || errno == EAGAIN))
                        continue;
                if (n <= 0) {
                        /* the container has ended (or the supervisor dropped us) */
                        finish(s, "{\"metadata\":{},\"status\":\"Success\"}");
                        break;
                }
                strbuf_add(&in, buf, (size_t) n);
                while ((r = runtime_attach_frame_next(&in, &type, &data, &len, &used)) == 1) {
                        int ch = type == RUNTIME_ATTACH_STDERR ? CH_STDERR : CH_STDOUT;

                        if (((ch == CH_STDOUT && s->out) || (ch == CH_STDERR && s->err)) && len &&
                            send_channel(s, ch, data, len) < 0)
                                goto out;
                        memmove(in.buf, in.buf + used, in.len - used);
                        in.len -= used;
                }
                if (r < 0)
                        break;
        }
out:
        close(fd);
        strbuf_release(&in);
        strbuf_release(&x.pending);
}

static void session_run(void *ctx, int fd, const char *extra, size_t extra_len)
{
        struct session *s = ctx;

        s->fd = fd;
        if (extra_len)
                ws_reader_push(&s->rd, extra, extra_len);
        if (s->kind == KUBELET_STREAM_EXEC)
                run_exec(s);
        else
                run_attach(s);
}

/* ------------------------------------------------------------------ the handshake */

/* K8S apimachinery Convert_Slice_string_To_bool, as remotecommand reads its flags */
static bool query_bool(const struct http_request *req, const char *key)
{
        const char *v = http_request_query(req, key);

        return v && !streq(v, "0") && strcasecmp(v, "false") != 0;
}

/* The protocol chosen from the client's list, in the client's order (NULL: none we speak). */
static const char *choose_protocol(const char *offered)
{
        static const char *const ours[] = { "v5.channel.k8s.io", "v4.channel.k8s.io" };

        for (const char *p = offered; p && *p;) {
                size_t n;

                while (*p == ' ' || *p == ',')
                        p++;
                n = strcspn(p, ", ");
                for (size_t i = 0; i < ARRAY_SIZE(ours); i++)
                        if (n == strlen(ours[i]) && strncmp(p, ours[i], n) == 0)
                                return ours[i];
                p += n;
        }
        return NULL;
}

void kubelet_stream_serve(enum kubelet_stream_kind kind, const char *state_dir,
                          const struct http_request *req, struct http_response *resp)
{
        const char *upgrade = http_request_header(req, "Upgrade");
        const char *key = http_request_header(req, "Sec-WebSocket-Key");
        const char *version = http_request_header(req, "Sec-WebSocket-Version");
        const char *proto;
        struct session *s;
        size_t n_cmd = 0;
        char accept[29];

        if (!upgrade || strcasecmp(upgrade, "websocket") != 0) {
                /* K8S: kubectl falls back to SPDY when the WebSocket upgrade fails; this
                 * runtime speaks WebSockets only */
                http_response_text(resp, 400,
                                   "unable to upgrade connection: only WebSocket streaming "
                                   "(v5.channel.k8s.io, v4.channel.k8s.io) is supported, not "
                                   "SPDY");
                return;
        }
        if (!key || !*key || !version || !streq(version, "13") ||
            !http_header_list_has(http_request_header(req, "Connection"), "upgrade")) {
                http_response_text(resp, 400, "websocket: bad handshake");
                return;
        }
        proto = choose_protocol(http_request_header(req, "Sec-WebSocket-Protocol"));
        if (!proto) {
                http_response_text(resp, 400,
                                   "websocket: none of the offered subprotocols is supported "
                                   "(v5.channel.k8s.io, v4.channel.k8s.io)");
                return;
        }
        s = xcalloc(1, sizeof(*s));
        s->kind = kind;
        s->in = query_bool(req, "stdin");
        s->out = query_bool(req, "stdout");
        s->err = query_bool(req, "stderr");
        s->tty = query_bool(req, "tty");
        s->v5 = streq(proto, "v5.channel.k8s.io");
        s->fd = -1;
        ws_reader_init(&s->rd, true, WS_MAX_MESSAGE);
        /* K8S remotecommand NewOptions */
        if (!s->in && !s->out && !s->err) {
                session_free(s);
                http_response_text(resp, 400,
                                   "you must specify at least 1 of stdin, stdout, stderr");
                return;
        }
        if (s->tty)
                s->err = false; /* a terminal has one output */
        if (kind == KUBELET_STREAM_ATTACH) {
                struct runtime_container_io io = { 0 };
                cleanup_error struct error *err = NULL;

                /* K8S kubelet GetAttach: the terminal is the container's setting, whatever the
                 * client asked ("whether the process is running in a TTY cannot be changed
                 * after it has started"); a terminal has one output */
                (void) runtime_container_io(state_dir, &io, &err);
                s->tty = io.tty;
                if (s->tty)
                        s->err = false;
        }
        s->argv = xcalloc(req->n_query + 1, sizeof(*s->argv));
        for (size_t i = 0; i < req->n_query; i++)
                if (streq(req->query[i].key, "command"))
                        s->argv[n_cmd++] = xstrdup(req->query[i].value);
        if (kind == KUBELET_STREAM_EXEC && (n_cmd == 0 || !s->argv[0][0])) {
                session_free(s);
                http_response_text(resp, 400,
                                   "you must specify at least one command for the "
                                   "container");
                return;
        }
        s->state_dir = xstrdup(state_dir);
        ws_accept_key(key, accept);
        resp->status = 101;
        http_response_add_header(resp, "Upgrade", "websocket");
        http_response_add_header(resp, "Sec-WebSocket-Accept", accept);
        http_response_add_header(resp, "Sec-WebSocket-Protocol", proto);
        resp->upgrade = (struct http_upgrade){ .run = session_run, .free = session_free, .ctx = s };
}
