/* attach.c: the container's own stdio for attach sessions (K8S CRI Attach, containerd's
 * ContainerIO.Attach): the frames of the attach socket, the supervisor's side (the socket's
 * server, fed the container's output and writing its stdin and terminal size) and the
 * agent's (connect, hello). What a session does with the client (WebSocket channels) is the
 * kubelet endpoint's (node/kubelet-stream.c); the container's pipes and terminal are made by
 * the supervisor (supervisor.c). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "base/strbuf.h"
#include "node/runtime/runtime-internal.h"

#define FRAME_HEADER 5
/* how long the supervisor tries to hand the last output to slow sessions once the container
 * has exited */
#define FINISH_FLUSH_MS 1000

/* ------------------------------------------------------------------ frames */

void runtime_attach_frame_append(struct strbuf *out, enum runtime_attach_frame type,
                                 const void *data, size_t len)
{
        const char *p = data;

        do {
                size_t n = len > RUNTIME_ATTACH_FRAME_MAX ? RUNTIME_ATTACH_FRAME_MAX : len;
                char h[FRAME_HEADER] = { (char) type, (char) (n >> 24), (char) (n >> 16),
                                         (char) (n >> 8), (char) n };

                strbuf_add(out, h, sizeof(h));
                if (n) { /* data may be NULL for an empty frame */
                        strbuf_add(out, p, n);
                        p += n;
                        len -= n;
                }
        } while (len);
}

int runtime_attach_frame_next(const struct strbuf *in, uint8_t *ret_type, const char **ret_data,
                              size_t *ret_len, size_t *ret_used)
{
        const unsigned char *h = (const unsigned char *) in->buf;
        size_t n;

        if (in->len < FRAME_HEADER)
                return 0;
        if (h[0] > RUNTIME_ATTACH_STDIN_END)
                return -EPROTO;
        n = (size_t) h[1] << 24 | (size_t) h[2] << 16 | (size_t) h[3] << 8 | h[4];
        /* refused from the header, before anything is buffered for it */
        if (n > RUNTIME_ATTACH_FRAME_MAX)
                return -EPROTO;
        if (in->len - FRAME_HEADER < n)
                return 0;
        *ret_type = h[0];
        *ret_data = in->buf + FRAME_HEADER;
        *ret_len = n;
        *ret_used = FRAME_HEADER + n;
        return 1;
}

static void drop_front(struct strbuf *sb, size_t n)
{
        memmove(sb->buf, sb->buf + n, sb->len - n);
        sb->len -= n;
        sb->buf[sb->len] = '\0';
}

/* ------------------------------------------------------------------ the agent's side */

int runtime_container_io(const char *state_dir, struct runtime_container_io *ret,
                         struct error **reterr)
{
        cleanup_close int dfd = open(state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        json_t *j = NULL;
        int r;

        if (dfd < 0)
                return error_set(reterr, errno, "open \"%s\": %s", state_dir, strerror(errno));
        r = fs_read_json_at(dfd, RT_SPEC_FILE, &j);
        if (r < 0)
                return error_set(reterr, -r, "read %s: %s", RT_SPEC_FILE, strerror(-r));
        ret->stdin_open = json_is_true(json_object_get(j, "stdin"));
        ret->stdin_once = json_is_true(json_object_get(j, "stdinOnce"));
        ret->tty = json_is_true(json_object_get(j, "tty"));
        json_decref(j);
        return 0;
}

/* A unix socket address for name in the directory dfd: through /proc/self/fd, so a state dir
 * deeper than sun_path's 108 bytes still works and nothing is walked again by path. */
static void socket_addr(int dfd, struct sockaddr_un *a)
{
        memset(a, 0, sizeof(*a));
        a->sun_family = AF_UNIX;
        (void) snprintf(a->sun_path, sizeof(a->sun_path), "/proc/self/fd/%d/%s", dfd,
                        RUNTIME_ATTACH_SOCKET);
}

int runtime_attach_connect(const char *state_dir, bool want_stdin, int *ret_fd,
                           struct error **reterr)
{
        cleanup_close int dfd = open(state_dir, O_PATH | O_DIRECTORY | O_CLOEXEC), fd = -1;
        struct sockaddr_un a;
        struct strbuf hello;
        char flag = want_stdin ? 1 : 0;
        ssize_t w;

        if (dfd < 0)
                return error_set(reterr, errno, "attach: open \"%s\": %s", state_dir,
                                 strerror(errno));
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return error_set(reterr, errno, "attach: socket: %s", strerror(errno));
        socket_addr(dfd, &a);
        if (connect(fd, (struct sockaddr *) &a, sizeof(a)) < 0) {
                int e = errno == ECONNREFUSED ? ENOENT : errno;
                return error_set(reterr, e, "attach: connect to the container's supervisor: %s",
                                 strerror(errno));
        }
        strbuf_init(&hello);
        runtime_attach_frame_append(&hello, RUNTIME_ATTACH_HELLO, &flag, 1);
        w = send(fd, hello.buf, hello.len, MSG_NOSIGNAL);
        strbuf_release(&hello);
        if (w != FRAME_HEADER + 1)
                return error_set(reterr, EPIPE, "attach: the supervisor went away");
        *ret_fd = TAKE_FD(fd);
        return 0;
}

/* ------------------------------------------------------------------ the supervisor's side */

void rt_attach_server_init(struct rt_attach_server *srv)
{
        *srv = (struct rt_attach_server){ .listen_fd = -1, .stdin_fd = -1, .pty_fd = -1 };
        strbuf_init(&srv->stdin_pending);
}

int rt_attach_server_listen(struct rt_attach_server *srv, int dfd)
{
        struct sockaddr_un a;
        int fd;

        (void) unlinkat(dfd, RUNTIME_ATTACH_SOCKET, 0);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
                return -errno;
        socket_addr(dfd, &a);
        if (bind(fd, (struct sockaddr *) &a, sizeof(a)) < 0 ||
            fchmodat(dfd, RUNTIME_ATTACH_SOCKET, 0600, 0) < 0 ||
            listen(fd, RT_ATTACH_CLIENTS_MAX) < 0) {
                int e = errno;
                close(fd);
                (void) unlinkat(dfd, RUNTIME_ATTACH_SOCKET, 0);
                return -e;
        }
        srv->listen_fd = fd;
        srv->dfd = dfd;
        return 0;
}

static void client_drop(struct rt_attach_server *srv, size_t i)
{
        struct rt_attach_client *c = &srv->clients[i];

        close(c->fd);
        strbuf_release(&c->in);
        strbuf_release(&c->out);
        srv->clients[i] = srv->clients[--srv->n_clients];
}

/* containerd: a session's stdin ended. stdinOnce without a terminal closes the container's
 * stdin (once what was sent is written); otherwise the session ends. */
static bool stdin_ended(struct rt_attach_server *srv, struct rt_attach_client *c)
{
        if (!c->want_stdin || c->stdin_done)
                return false;
        c->stdin_done = true;
        if (srv->stdin_once && !srv->tty) {
                srv->stdin_closing = true;
                return false;
        }
        return true;
}

static void resize(struct rt_attach_server *srv, const char *p, size_t len)
{
        const unsigned char *u = (const unsigned char *) p;
        struct winsize ws = { 0 };

        if (srv->pty_fd < 0 || len != 4)
                return;
        ws.ws_col = (unsigned short) (u[0] << 8 | u[1]);
        ws.ws_row = (unsigned short) (u[2] << 8 | u[3]);
        if (ws.ws_col && ws.ws_row)
                (void) ioctl(srv->pty_fd, TIOCSWINSZ, &ws);
}

/* Reads what client i sent and acts on its frames. false: drop it. */
static bool client_read(struct rt_attach_server *srv, struct rt_attach_client *c)
{
        char buf[16384];
        ssize_t n = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT);
        const char *data;
        size_t len, used;
        uint8_t type;
        int r;

        if (n < 0 && (errno == EINTR || errno == EAGAIN))
                return true;
        if (n <= 0) {
                (void) stdin_ended(srv, c);
                return false;
        }
        strbuf_add(&c->in, buf, (size_t) n);
        while ((r = runtime_attach_frame_next(&c->in, &type, &data, &len, &used)) == 1) {
                bool keep = true;

                if (!c->hello) {
                        /* the first frame says who the session is */
                        if (type != RUNTIME_ATTACH_HELLO || len != 1)
                                return false;
                        c->hello = true;
                        c->want_stdin = data[0] == 1;
                } else if (type == RUNTIME_ATTACH_STDIN) {
                        if (c->want_stdin && !c->stdin_done && srv->stdin_fd >= 0 &&
                            !srv->stdin_closing)
                                strbuf_add(&srv->stdin_pending, data, len);
                } else if (type == RUNTIME_ATTACH_RESIZE) {
                        resize(srv, data, len);
                } else if (type == RUNTIME_ATTACH_STDIN_END) {
                        keep = !stdin_ended(srv, c);
                }
                drop_front(&c->in, used);
                if (!keep)
                        return false;
        }
        return r == 0;
}

/* Writes what the container's stdin takes now; closes it when asked and all is written. */
static void stdin_flush(struct rt_attach_server *srv)
{
        while (srv->stdin_pending.len && srv->stdin_fd >= 0) {
                ssize_t w = write(srv->stdin_fd, srv->stdin_pending.buf, srv->stdin_pending.len);
                if (w < 0 && errno == EINTR)
                        continue;
                if (w < 0 && errno == EAGAIN)
                        return;
                if (w <= 0) {
                        /* the process closed its stdin: what comes is dropped */
                        strbuf_reset(&srv->stdin_pending);
                        break;
                }
                drop_front(&srv->stdin_pending, (size_t) w);
        }
        if (srv->stdin_closing && !srv->stdin_pending.len && srv->stdin_fd >= 0 && !srv->tty) {
                close(srv->stdin_fd);
                srv->stdin_fd = -1;
        }
}

static bool client_write(struct rt_attach_client *c)
{
        while (c->out.len) {
                ssize_t w = send(c->fd, c->out.buf, c->out.len, MSG_DONTWAIT | MSG_NOSIGNAL);
                if (w < 0 && errno == EINTR)
                        continue;
                if (w < 0 && errno == EAGAIN)
                        return true;
                if (w <= 0)
                        return false;
                drop_front(&c->out, (size_t) w);
        }
        return true;
}

size_t rt_attach_server_pollfds(struct rt_attach_server *srv, struct pollfd *p)
{
        size_t n = 0;
        /* no new stdin while the container is behind reading it (backpressure) */
        short in = srv->stdin_pending.len ? 0 : POLLIN;

        if (srv->listen_fd >= 0)
                p[n++] = (struct pollfd){ .fd = srv->listen_fd, .events = POLLIN };
        for (size_t i = 0; i < srv->n_clients; i++)
                p[n++] = (struct pollfd){ .fd = srv->clients[i].fd,
                                          .events = (short) (in | (srv->clients[i].out.len ? POLLOUT
                                                                                           : 0)) };
        if (srv->stdin_pending.len && srv->stdin_fd >= 0)
                p[n++] = (struct pollfd){ .fd = srv->stdin_fd, .events = POLLOUT };
        return n;
}

/* The sessions are found by fd, not by position: the output written since the poll may have
 * dropped some (and moved others). New ones are accepted last, so none is taken for another. */
void rt_attach_server_handle(struct rt_attach_server *srv, const struct pollfd *p, size_t n)
{
        bool accept_ready = false;

        for (size_t k = 0; k < n; k++) {
                struct rt_attach_client *c = NULL;
                size_t i;

                if (!p[k].revents)
                        continue;
                if (p[k].fd == srv->listen_fd) {
                        accept_ready = true;
                        continue;
                }
                for (i = 0; i < srv->n_clients && !c; i++)
                        if (srv->clients[i].fd == p[k].fd)
                                c = &srv->clients[i];
                if (!c)
                        continue; /* the container's stdin, or a session dropped meanwhile */
                if (((p[k].revents & (POLLIN | POLLHUP | POLLERR)) && !client_read(srv, c)) ||
                    ((p[k].revents & POLLOUT) && !client_write(c)))
                        client_drop(srv, i - 1);
        }
        stdin_flush(srv);
        if (accept_ready) {
                int fd;

                while ((fd = accept4(srv->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK)) >=
                       0) {
                        if (srv->n_clients >= RT_ATTACH_CLIENTS_MAX) {
                                close(fd); /* more sessions than anyone needs at once */
                                continue;
                        }
                        srv->clients[srv->n_clients] = (struct rt_attach_client){ .fd = fd };
                        strbuf_init(&srv->clients[srv->n_clients].in);
                        strbuf_init(&srv->clients[srv->n_clients].out);
                        srv->n_clients++;
                }
        }
}

void rt_attach_server_output(struct rt_attach_server *srv, enum rt_stream s, const char *buf,
                             size_t n)
{
        for (size_t i = srv->n_clients; i-- > 0;) {
                struct rt_attach_client *c = &srv->clients[i];

                if (!c->hello)
                        continue;
                runtime_attach_frame_append(
                        &c->out, s == RT_STDOUT ? RUNTIME_ATTACH_STDOUT : RUNTIME_ATTACH_STDERR,
                        buf, n);
                /* a session that cannot keep up is dropped: the container is never held back */
                if (!client_write(c) || c->out.len > RUNTIME_ATTACH_QUEUE_MAX)
                        client_drop(srv, i);
        }
}

void rt_attach_server_finish(struct rt_attach_server *srv)
{
        int waited = 0;

        if (srv->listen_fd >= 0) {
                close(srv->listen_fd);
                srv->listen_fd = -1;
                (void) unlinkat(srv->dfd, RUNTIME_ATTACH_SOCKET, 0);
        }
        /* the last output to the sessions still there, a little while at most */
        while (waited < FINISH_FLUSH_MS) {
                struct pollfd p[RT_ATTACH_CLIENTS_MAX];
                size_t np = 0;

                for (size_t i = srv->n_clients; i-- > 0;)
                        if (!client_write(&srv->clients[i]))
                                client_drop(srv, i);
                for (size_t i = 0; i < srv->n_clients; i++)
                        if (srv->clients[i].out.len)
                                p[np++] = (struct pollfd){ .fd = srv->clients[i].fd,
                                                           .events = POLLOUT };
                if (!np)
                        break;
                (void) poll(p, np, 50);
                waited += 50;
        }
        while (srv->n_clients)
                client_drop(srv, srv->n_clients - 1);
        if (srv->stdin_fd >= 0 && srv->stdin_fd != srv->pty_fd)
                close(srv->stdin_fd);
        srv->stdin_fd = -1;
        strbuf_release(&srv->stdin_pending);
}
