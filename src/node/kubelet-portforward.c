/* kubelet-portforward.c: port-forward sessions of the kubelet endpoint (kubelet-portforward.h):
 * the SPDY/3.1 handshake, pairing each forwarded connection's error and data streams, the
 * connection made inside the pod's network namespace, and the copying. The frames and the
 * stream bookkeeping are http/spdy.c's. One thread per session (the HTTP server's upgrade
 * thread) polls the client and every forwarded connection; nothing it does blocks but the short
 * connect in the pod's namespace. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/timeutil.h"
#include "http/spdy.h"
#include "node/kubelet-portforward.h"
#include "node/runtime/runtime.h"

#define PROTOCOL "portforward.k8s.io"
/* the largest frame a client may send (spdystream writes data in 32 KiB pieces) */
#define MAX_FRAME (1024 * 1024)
#define IO_CHUNK  (32 * 1024)
/* what is held for a slow side before the other is no longer read */
#define BUFFER_LIMIT (1024 * 1024)
/* K8S cri/streaming DefaultConfig.StreamCreationTimeout */
#define STREAM_CREATION_TIMEOUT_MS 30000
/* containerd: after one direction ends, the other gets this long */
#define HALF_CLOSE_GRACE_MS 1000
/* containerd dialTimeout */
#define DIAL_TIMEOUT_S 5

struct forward {
        char *request_id;
        uint32_t data_id, error_id; /* 0: not yet (or the error stream was reset) */
        unsigned port;
        int fd; /* the connection in the pod; -1 before it is made */
        struct strbuf to_pod;
        bool client_fin; /* the client closed its half of the data stream */
        bool shut_wr;    /* ... and the pod's socket was shut down for writing */
        bool pod_eof;    /* the pod closed its side: our half of the data stream is closed */
        bool started;
        bool done;
        int64_t created_ms, half_closed_ms;
};

struct session {
        char *sandbox_dir, *pod_id, *netns_path;
        int fd;
        struct spdy_session sp;
        struct forward **fw;
        size_t n_fw;
        bool client_gone;
};

static void session_free(void *ctx)
{
        struct session *s = ctx;

        if (!s)
                return;
        for (size_t i = 0; i < s->n_fw; i++) {
                if (s->fw[i]->fd >= 0)
                        close(s->fw[i]->fd);
                strbuf_release(&s->fw[i]->to_pod);
                free(s->fw[i]->request_id);
                free(s->fw[i]);
        }
        free(s->fw);
        spdy_session_release(&s->sp);
        free(s->sandbox_dir);
        free(s->pod_id);
        free(s->netns_path);
        free(s);
}

/* ------------------------------------------------------------------ the connection in the pod */

struct dial {
        int nsfd;
        unsigned port;
        int fd;
        int err4, err6, err_ns;
};

static int dial_one(int family, unsigned port, int *ret_err)
{
        struct timeval tv = { .tv_sec = DIAL_TIMEOUT_S };
        struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_port = htons((uint16_t) port) };
        struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons((uint16_t) port) };
        int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);

        if (fd < 0) {
                *ret_err = errno;
                return -1;
        }
        a4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        a6.sin6_addr = in6addr_loopback;
        /* a connect that blocks is bounded by the send timeout */
        (void) setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
        if ((family == AF_INET ? connect(fd, (struct sockaddr *) &a4, sizeof(a4))
                               : connect(fd, (struct sockaddr *) &a6, sizeof(a6))) < 0) {
                *ret_err = errno == EINPROGRESS ? ETIMEDOUT : errno;
                close(fd);
                return -1;
        }
        return fd;
}

/* A thread of its own enters the pod's network namespace (setns moves only the calling thread),
 * makes the socket there and ends; the socket stays in that namespace wherever it is used. */
static void *dial_main(void *arg)
{
        struct dial *d = arg;

        if (setns(d->nsfd, CLONE_NEWNET) < 0) {
                d->err_ns = errno;
                return NULL;
        }
        /* containerd dialLocalhost: IPv4 first, then IPv6 */
        d->fd = dial_one(AF_INET, d->port, &d->err4);
        if (d->fd < 0)
                d->fd = dial_one(AF_INET6, d->port, &d->err6);
        return NULL;
}

/* Go's words for an errno: strerror with its first letter lower case. */
static char *go_strerror(int e)
{
        char *s = xstrdup(strerror(e));

        if (s[0] >= 'A' && s[0] <= 'Z')
                s[0] = (char) (s[0] - 'A' + 'a');
        return s;
}

/* The connected socket, or -1 with *ret_msg (upstream's words, malloc'd). */
static int dial_in_pod(struct session *s, unsigned port, char **ret_msg)
{
        cleanup_error struct error *err = NULL;
        struct dial d = { .nsfd = -1, .port = port, .fd = -1 };
        pthread_t th;
        int r = runtime_sandbox_netns_fd(s->sandbox_dir, &d.nsfd, &err);

        if (r < 0) {
                *ret_msg = xasprintf("error forwarding port %u to pod %s, uid : failed to execute "
                                     "portforward in network namespace \"%s\": %s",
                                     port, s->pod_id, s->netns_path, err->message);
                return -1;
        }
        if (pthread_create(&th, NULL, dial_main, &d) != 0) {
                close(d.nsfd);
                *ret_msg = xasprintf("error forwarding port %u to pod %s, uid : cannot start a "
                                     "thread",
                                     port, s->pod_id);
                return -1;
        }
        (void) pthread_join(th, NULL);
        close(d.nsfd);
        if (d.fd >= 0)
                return d.fd;
        if (d.err_ns) {
                cleanup_free char *e = go_strerror(d.err_ns);
                *ret_msg = xasprintf("error forwarding port %u to pod %s, uid : failed to execute "
                                     "portforward in network namespace \"%s\": setns: %s",
                                     port, s->pod_id, s->netns_path, e);
        } else {
                cleanup_free char *e4 = go_strerror(d.err4);
                cleanup_free char *e6 = go_strerror(d.err6);
                *ret_msg = xasprintf(
                        "error forwarding port %u to pod %s, uid : failed to execute portforward "
                        "in network namespace \"%s\": IPv4: dial tcp4 127.0.0.1:%u: connect: %s "
                        "IPv6: dial tcp6 [::1]:%u: connect: %s",
                        port, s->pod_id, s->netns_path, port, e4, port, e6);
        }
        return -1;
}

/* ------------------------------------------------------------------ forwards */

static struct forward *forward_by_stream(struct session *s, uint32_t id)
{
        for (size_t i = 0; i < s->n_fw; i++)
                if (s->fw[i]->data_id == id || s->fw[i]->error_id == id)
                        return s->fw[i];
        return NULL;
}

static struct forward *forward_by_request(struct session *s, const char *request_id)
{
        struct forward *f;

        for (size_t i = 0; i < s->n_fw; i++)
                if (streq(s->fw[i]->request_id, request_id))
                        return s->fw[i];
        f = xcalloc(1, sizeof(*f));
        f->request_id = xstrdup(request_id);
        f->fd = -1;
        f->created_ms = time_monotonic_ms();
        strbuf_init(&f->to_pod);
        s->fw = xrealloc(s->fw, (s->n_fw + 1) * sizeof(*s->fw));
        s->fw[s->n_fw++] = f;
        return f;
}

/* Ends the forward: the error text (if any) on its error stream, FIN on both streams. */
static void forward_finish(struct session *s, struct forward *f, const char *error)
{
        if (f->error_id && error)
                spdy_session_data(&s->sp, f->error_id, error, strlen(error), false);
        if (f->data_id)
                spdy_session_data(&s->sp, f->data_id, NULL, 0, true);
        if (f->error_id)
                spdy_session_data(&s->sp, f->error_id, NULL, 0, true);
        if (f->fd >= 0) {
                close(f->fd);
                f->fd = -1;
        }
        f->done = true;
}

static void forwards_reap(struct session *s)
{
        size_t j = 0;

        for (size_t i = 0; i < s->n_fw; i++) {
                struct forward *f = s->fw[i];

                if (!f->done) {
                        s->fw[j++] = f;
                        continue;
                }
                strbuf_release(&f->to_pod);
                free(f->request_id);
                free(f);
        }
        s->n_fw = j;
}

static void forward_start(struct session *s, struct forward *f)
{
        cleanup_free char *msg = NULL;
        int fl;

        f->started = true;
        f->fd = dial_in_pod(s, f->port, &msg);
        if (f->fd < 0) {
                forward_finish(s, f, msg);
                return;
        }
        fl = fcntl(f->fd, F_GETFL);
        if (fl >= 0)
                (void) fcntl(f->fd, F_SETFL, fl | O_NONBLOCK);
}

static const char *event_header(const struct spdy_event *ev, const char *name)
{
        for (size_t i = 0; i < ev->n_headers; i++)
                if (streq(ev->headers[i].name, name))
                        return ev->headers[i].value;
        return NULL;
}

/* K8S httpStreamReceived, then the handler's pairing (run/requestID/add). */
static void new_stream(struct session *s, const struct spdy_event *ev)
{
        const char *port_s = event_header(ev, "port");
        const char *type = event_header(ev, "streamtype");
        const char *rid = event_header(ev, "requestid");
        char derived[16];
        struct forward *f;
        unsigned long port;
        char *end;
        bool data;

        errno = 0;
        port = port_s ? strtoul(port_s, &end, 10) : 0;
        if (!port_s || !*port_s || errno || *end || port < 1 || port > 65535 || !type ||
            (!streq(type, "error") && !streq(type, "data"))) {
                spdy_session_reset(&s->sp, ev->stream_id, SPDY_CANCEL);
                return;
        }
        data = streq(type, "data");
        spdy_session_reply(&s->sp, ev->stream_id);
        if (!rid || !*rid) {
                /* K8S requestID(): an old client's error stream is N, its data stream N+2 */
                (void) snprintf(derived, sizeof(derived), "%u",
                                data ? ev->stream_id - 2 : ev->stream_id);
                rid = derived;
        }
        f = forward_by_request(s, rid);
        if ((data && f->data_id) || (!data && f->error_id) || f->started) {
                cleanup_free char *msg =
                        xasprintf("error processing stream for request %s: %s stream already "
                                  "assigned",
                                  rid, type);
                if (f->error_id && !f->done)
                        spdy_session_data(&s->sp, f->error_id, msg, strlen(msg), false);
                spdy_session_reset(&s->sp, ev->stream_id, SPDY_CANCEL);
                return;
        }
        if (data) {
                f->data_id = ev->stream_id;
                f->port = (unsigned) port;
        } else {
                f->error_id = ev->stream_id;
        }
        if (f->data_id && f->error_id)
                forward_start(s, f);
}

static void client_event(struct session *s, const struct spdy_event *ev)
{
        struct forward *f;

        switch (ev->kind) {
        case SPDY_EV_STREAM:
                new_stream(s, ev);
                return;
        case SPDY_EV_DATA:
                f = forward_by_stream(s, ev->stream_id);
                if (!f || f->done || ev->stream_id != f->data_id) {
                        /* the error stream carries nothing from the client */
                        spdy_session_consumed(&s->sp, ev->stream_id, ev->len);
                        return;
                }
                if (f->fd >= 0)
                        strbuf_add(&f->to_pod, ev->data, ev->len);
                else
                        spdy_session_consumed(&s->sp, ev->stream_id, ev->len);
                if (ev->fin)
                        f->client_fin = true;
                return;
        case SPDY_EV_RESET:
                f = forward_by_stream(s, ev->stream_id);
                if (!f || f->done)
                        return;
                if (ev->stream_id == f->error_id) {
                        f->error_id = 0;
                        return;
                }
                f->data_id = 0;
                forward_finish(s, f, NULL);
                return;
        case SPDY_EV_GOAWAY:
                s->client_gone = true;
                return;
        case SPDY_EV_NONE:
        default:
                return;
        }
}

/* ------------------------------------------------------------------ the loop */

static bool flush_out(struct session *s)
{
        while (s->sp.out.len) {
                ssize_t w = send(s->fd, s->sp.out.buf, s->sp.out.len, MSG_NOSIGNAL);

                if (w < 0 && errno == EINTR)
                        continue;
                if (w < 0 && errno == EAGAIN)
                        return true;
                if (w <= 0)
                        return false;
                memmove(s->sp.out.buf, s->sp.out.buf + w, s->sp.out.len - (size_t) w);
                s->sp.out.len -= (size_t) w;
        }
        return true;
}

static void client_input(struct session *s)
{
        char buf[64 * 1024];
        struct spdy_event ev;
        const char *why = NULL;
        ssize_t n = recv(s->fd, buf, sizeof(buf), 0);
        int r;

        if (n < 0 && (errno == EINTR || errno == EAGAIN))
                return;
        if (n <= 0) {
                s->client_gone = true;
                return;
        }
        spdy_session_push(&s->sp, buf, (size_t) n);
        while ((r = spdy_session_next(&s->sp, &ev, &why)) == 1)
                client_event(s, &ev);
        if (r < 0) {
                (void) flush_out(s);
                s->client_gone = true;
        }
}

static void pod_output(struct session *s, struct forward *f)
{
        char buf[IO_CHUNK];
        ssize_t n = recv(f->fd, buf, sizeof(buf), 0);

        if (n < 0 && (errno == EINTR || errno == EAGAIN))
                return;
        if (n <= 0) {
                /* the pod closed (or reset) its side: our half of the data stream ends */
                f->pod_eof = true;
                spdy_session_data(&s->sp, f->data_id, NULL, 0, true);
                if (!f->half_closed_ms)
                        f->half_closed_ms = time_monotonic_ms();
                return;
        }
        spdy_session_data(&s->sp, f->data_id, buf, (size_t) n, false);
}

static void pod_input(struct session *s, struct forward *f)
{
        while (f->to_pod.len) {
                ssize_t w = send(f->fd, f->to_pod.buf, f->to_pod.len, MSG_NOSIGNAL);

                if (w < 0 && errno == EINTR)
                        continue;
                if (w < 0 && errno == EAGAIN)
                        return;
                if (w <= 0) {
                        forward_finish(s, f, NULL);
                        return;
                }
                spdy_session_consumed(&s->sp, f->data_id, (size_t) w);
                memmove(f->to_pod.buf, f->to_pod.buf + w, f->to_pod.len - (size_t) w);
                f->to_pod.len -= (size_t) w;
        }
}

/* What is due without I/O: the half close, the grace after it, streams that never paired. */
static void forward_tick(struct session *s, struct forward *f, int64_t now)
{
        if (f->done)
                return;
        if (!f->started) {
                if (now - f->created_ms >= STREAM_CREATION_TIMEOUT_MS) {
                        cleanup_free char *msg =
                                xasprintf("(conn=%p, request=%s) timed out waiting for streams",
                                          (void *) s, f->request_id);
                        forward_finish(s, f, msg);
                }
                return;
        }
        if (f->client_fin && !f->to_pod.len && !f->shut_wr && f->fd >= 0) {
                (void) shutdown(f->fd, SHUT_WR);
                f->shut_wr = true;
                if (!f->half_closed_ms)
                        f->half_closed_ms = now;
        }
        if ((f->pod_eof && f->shut_wr) ||
            (f->half_closed_ms && now - f->half_closed_ms >= HALF_CLOSE_GRACE_MS))
                forward_finish(s, f, NULL);
}

static void session_run(void *ctx, int fd, const char *extra, size_t extra_len)
{
        struct session *s = ctx;
        int fl = fcntl(fd, F_GETFL);

        s->fd = fd;
        if (fl >= 0)
                (void) fcntl(fd, F_SETFL, fl | O_NONBLOCK);
        if (extra_len)
                spdy_session_push(&s->sp, extra, extra_len);
        while (!s->client_gone) {
                size_t n = 1 + s->n_fw, np = 0, held = 0;
                cleanup_free struct pollfd *p = xcalloc(n, sizeof(*p));
                cleanup_free struct forward **who = xcalloc(n, sizeof(*who));
                int64_t now;

                for (size_t i = 0; i < s->n_fw; i++)
                        held += s->fw[i]->to_pod.len;
                p[np++] = (struct pollfd){ .fd = fd,
                                           .events = (short) ((held < BUFFER_LIMIT ? POLLIN : 0) |
                                                              (s->sp.out.len ? POLLOUT : 0)) };
                for (size_t i = 0; i < s->n_fw; i++) {
                        struct forward *f = s->fw[i];
                        short ev = 0;

                        if (f->fd < 0 || f->done)
                                continue;
                        if (!f->pod_eof && s->sp.out.len < BUFFER_LIMIT)
                                ev |= POLLIN;
                        if (f->to_pod.len)
                                ev |= POLLOUT;
                        who[np] = f;
                        p[np++] = (struct pollfd){ .fd = f->fd, .events = ev };
                }
                if (poll(p, (nfds_t) np, s->n_fw ? 250 : -1) < 0 && errno != EINTR)
                        break;
                if (p[0].revents & POLLOUT && !flush_out(s))
                        break;
                if (p[0].revents & (POLLIN | POLLHUP | POLLERR))
                        client_input(s);
                for (size_t i = 1; i < np; i++) {
                        struct forward *f = who[i];

                        if (f->done)
                                continue;
                        if (p[i].revents & POLLOUT)
                                pod_input(s, f);
                        if (!f->done && !f->pod_eof && p[i].revents & (POLLIN | POLLHUP | POLLERR))
                                pod_output(s, f);
                }
                now = time_monotonic_ms();
                for (size_t i = 0; i < s->n_fw; i++) {
                        struct forward *f = s->fw[i];

                        if (!f->done && f->fd >= 0 && f->to_pod.len)
                                pod_input(s, f);
                        forward_tick(s, f, now);
                }
                forwards_reap(s);
                if (!flush_out(s))
                        break;
        }
        /* K8S: the connection's end closes every stream; the client sees the socket go */
        for (size_t i = 0; i < s->n_fw; i++)
                if (!s->fw[i]->done)
                        forward_finish(s, s->fw[i], NULL);
        spdy_session_goaway(&s->sp, SPDY_GOAWAY_OK);
        (void) flush_out(s);
        (void) shutdown(fd, SHUT_WR);
}

/* ------------------------------------------------------------------ the handshake */

void kubelet_portforward_serve(const struct kubelet_portforward_target *t,
                               const struct http_request *req, struct http_response *resp)
{
        const char *upgrade = http_request_header(req, "Upgrade");
        const char *connection = http_request_header(req, "Connection");
        const char *proto = http_request_header(req, "X-Stream-Protocol-Version");
        struct session *s;

        if (upgrade && strcasecmp(upgrade, "websocket") == 0) {
                http_response_text(resp, 400,
                                   "port-forward over WebSockets is not served by this kubelet: "
                                   "use SPDY/3.1 (the API server unwraps kubectl's tunnel)");
                return;
        }
        /* K8S httpstream.Handshake */
        if (!proto || !*proto) {
                http_response_text(resp, 400,
                                   "unable to upgrade: X-Stream-Protocol-Version is required");
                return;
        }
        if (!http_header_list_has(proto, PROTOCOL)) {
                cleanup_free char *msg = xasprintf("unable to upgrade: unable to negotiate "
                                                   "protocol: client supports [%s], server "
                                                   "accepts [" PROTOCOL "]",
                                                   proto);
                http_response_add_header(resp, "X-Accepted-Stream-Protocol-Versions", PROTOCOL);
                http_response_text(resp, 403, msg);
                return;
        }
        /* K8S spdy responseUpgrader.UpgradeResponse */
        if (!http_header_list_has(connection, "upgrade") || !upgrade ||
            !strcasestr(upgrade, "spdy/3.1")) {
                http_response_text(resp, 400,
                                   "unable to upgrade: missing upgrade headers in request");
                return;
        }
        s = xcalloc(1, sizeof(*s));
        s->fd = -1;
        s->sandbox_dir = xstrdup(t->sandbox_dir);
        s->pod_id = xstrdup(t->pod_id);
        s->netns_path = xstrdup(t->netns_path);
        spdy_session_init(&s->sp, MAX_FRAME);
        resp->status = 101;
        http_response_add_header(resp, "Upgrade", "SPDY/3.1");
        http_response_add_header(resp, "X-Stream-Protocol-Version", PROTOCOL);
        resp->upgrade = (struct http_upgrade){ .run = session_run, .free = session_free, .ctx = s };
}
