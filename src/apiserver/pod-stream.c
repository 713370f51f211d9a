/* pod-stream.c: pods/exec, pods/attach and pods/portforward as kube-apiserver serves them
 * (pkg/registry/core/pod/rest/subresources.go and strategy.go
 * ExecLocation/AttachLocation/PortForwardLocation, apimachinery's UpgradeAwareHandler): the
 * options checked, the container chosen, the pod's kubelet found, and the upgraded connection
 * proxied to the kubelet's /exec, /attach or /portForward byte for byte (TLS verified against
 * the kubelet CA, the kubelet bearer token, as pods/log). kubectl's port-forward WebSocket,
 * which tunnels SPDY/3.1 frames in its binary messages, is unwrapped here as apiserver's
 * streamtunnel.go does: the kubelet is asked for a plain SPDY upgrade, and the messages'
 * payloads become its byte stream. What a session means is the kubelet's business
 * (node/kubelet-stream.c, node/kubelet-portforward.c). */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "apiserver/apiserver-internal.h"
#include "apiserver/authz.h"
#include "apiserver/kubelet-client.h"
#include "apiserver/status.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/timeutil.h"
#include "client/client.h"
#include "http/websocket.h"
#include "store/store.h"

/* the kubelet's response head, and the body of a refusal, read at most */
#define HEAD_MAX 16384
#define BODY_MAX 50000
/* a kubelet that does not answer the upgrade within this is given up on */
#define KUBELET_UPGRADE_TIMEOUT_MS 60000
#define RELAY_CHUNK                (32 * 1024)

/* One proxied upgrade, shared by the handler's pending answer, the connecting thread and the
 * relay. */
struct stream_proxy {
        pthread_mutex_t lock;
        int wake_fd; /* eventfd: the connecting thread is done */
        pthread_t thread;
        bool thread_started;
        bool handed_over; /* the relay owns it: the pending answer's free leaves it */
        /* set before the thread starts */
        struct api_client_options co;
        char *server_url;
        char *request; /* the request head to the kubelet */
        /* the thread's results (read once it is done) */
        bool done;
        int result;
        char *error;
        struct api_client *conn;
        long status;
        char *upgrade, *accept, *protocol, *content_type, *stream_protocol;
        /* port-forward's WebSocket tunnel: the client's key; the relay unwraps the messages */
        bool tunnel;
        char *ws_key;
        struct strbuf head_rest; /* bytes past the head: the body, or the first frames */
        int64_t deadline_ms;
};

static void proxy_free(struct stream_proxy *x)
{
        if (!x)
                return;
        if (x->thread_started)
                (void) pthread_join(x->thread, NULL);
        api_client_free(x->conn);
        pthread_mutex_destroy(&x->lock);
        if (x->wake_fd >= 0)
                close(x->wake_fd);
        free(x->server_url);
        free(x->request);
        free(x->error);
        free(x->upgrade);
        free(x->accept);
        free(x->protocol);
        free(x->content_type);
        free(x->stream_protocol);
        free(x->ws_key);
        strbuf_release(&x->head_rest);
        free(x);
}

/* The value of header name in the head's lines (after the status line), malloc'd, or NULL. */
static char *head_value(const char *head, const char *name)
{
        size_t n = strlen(name);

        for (const char *l = strstr(head, "\r\n"); l && l[2]; l = strstr(l + 2, "\r\n")) {
                const char *line = l + 2, *end = strstr(line, "\r\n");

                if (!end)
                        break;
                if ((size_t) (end - line) > n && strncasecmp(line, name, n) == 0 &&
                    line[n] == ':') {
                        const char *v = line + n + 1;
                        while (*v == ' ' || *v == '\t')
                                v++;
                        return xstrndup(v, (size_t) (end - v));
                }
        }
        return NULL;
}

static void *connect_main(void *arg)
{
        struct stream_proxy *x = arg;
        cleanup_error struct error *err = NULL;
        struct api_client *c = NULL;
        struct strbuf in;
        char *head_end = NULL;
        int r;

        strbuf_init(&in);
        x->co.server_url = x->server_url;
        r = api_client_new(&x->co, &c, &err);
        if (r >= 0)
                r = api_client_connect_raw(c, &err);
        if (r >= 0 && api_client_raw_send(c, x->request, strlen(x->request)) < 0)
                r = error_set(&err, EPIPE, "send the request: the connection failed");
        /* the head */
        while (r >= 0 && !head_end) {
                char buf[4096];
                ssize_t n = api_client_raw_recv(c, buf, sizeof(buf));

                if (n == -EAGAIN) {
                        struct pollfd p = { .fd = api_client_raw_fd(c), .events = POLLIN };
                        int64_t left = x->deadline_ms - time_monotonic_ms();
                        if (left <= 0) {
                                r = error_set(&err, ETIMEDOUT,
                                              "net/http: timeout awaiting response headers");
                                break;
                        }
                        (void) poll(&p, 1, (int) (left < 1000 ? left : 1000));
                        continue;
                }
                if (n <= 0) {
                        r = error_set(&err, EIO, "the kubelet closed the connection");
                        break;
                }
                strbuf_add(&in, buf, (size_t) n);
                head_end = strstr(in.buf, "\r\n\r\n");
                if (!head_end && in.len > HEAD_MAX)
                        r = error_set(&err, EIO, "the kubelet's response head is too long");
        }
        if (r >= 0) {
                size_t head_len = (size_t) (head_end - in.buf) + 4;
                cleanup_free char *head = xstrndup(in.buf, head_len);
                cleanup_free char *len_s = NULL;
                long status = 0;

                if (sscanf(head, "HTTP/1.%*d %ld", &status) != 1)
                        r = error_set(&err, EIO, "the kubelet's answer is not HTTP");
                x->status = status;
                x->upgrade = head_value(head, "Upgrade");
                x->accept = head_value(head, "Sec-WebSocket-Accept");
                x->protocol = head_value(head, "Sec-WebSocket-Protocol");
                x->content_type = head_value(head, "Content-Type");
                x->stream_protocol = head_value(head, "X-Stream-Protocol-Version");
                strbuf_add(&x->head_rest, in.buf + head_len, in.len - head_len);
                len_s = head_value(head, "Content-Length");
                /* a refusal's body, as far as it goes */
                while (r >= 0 && status != 101 && x->head_rest.len < BODY_MAX &&
                       (!len_s || x->head_rest.len < strtoul(len_s, NULL, 10))) {
                        char buf[4096];
                        ssize_t n = api_client_raw_recv(c, buf, sizeof(buf));

                        if (n == -EAGAIN) {
                                struct pollfd p = { .fd = api_client_raw_fd(c), .events = POLLIN };
                                if (time_monotonic_ms() >= x->deadline_ms)
                                        break;
                                (void) poll(&p, 1, 1000);
                                continue;
                        }
                        if (n <= 0)
                                break;
                        strbuf_add(&x->head_rest, buf, (size_t) n);
                }
        }
        strbuf_release(&in);
        pthread_mutex_lock(&x->lock);
        x->result = r;
        if (r < 0) {
                x->error =
                        xasprintf("error dialing backend: %s", err ? err->message : strerror(-r));
                api_client_free(c);
        } else {
                x->conn = c;
        }
        x->done = true;
        (void) eventfd_write(x->wake_fd, 1);
        pthread_mutex_unlock(&x->lock);
        return NULL;
}

/* ------------------------------------------------------------------ the relay */

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

/* Byte for byte, both ways, until either side ends (K8S UpgradeAwareHandler's two copies). */
static void relay_run(void *ctx, int fd, const char *extra, size_t extra_len)
{
        struct stream_proxy *x = ctx;
        int kfd = api_client_raw_fd(x->conn);
        char buf[RELAY_CHUNK];

        if ((x->head_rest.len && send_all(fd, x->head_rest.buf, x->head_rest.len) < 0) ||
            (extra_len && api_client_raw_send(x->conn, extra, extra_len) < 0))
                return;
        for (;;) {
                struct pollfd p[2] = { { .fd = fd, .events = POLLIN },
                                       { .fd = kfd, .events = POLLIN } };
                ssize_t n;

                if (poll(p, 2, -1) < 0) {
                        if (errno == EINTR)
                                continue;
                        return;
                }
                if (p[0].revents) {
                        n = recv(fd, buf, sizeof(buf), 0);
                        if (n < 0 && errno == EINTR)
                                continue;
                        if (n <= 0 || api_client_raw_send(x->conn, buf, (size_t) n) < 0)
                                return;
                }
                if (p[1].revents) {
                        /* TLS may hold more than the socket shows: read until it has none */
                        while ((n = api_client_raw_recv(x->conn, buf, sizeof(buf))) > 0)
                                if (send_all(fd, buf, (size_t) n) < 0)
                                        return;
                        if (n != -EAGAIN)
                                return;
                }
        }
}

/* The largest message kubectl's tunnel may send (it writes one per SPDY frame write) */
#define TUNNEL_MAX_MESSAGE (1024 * 1024)

static int send_ws(int fd, enum ws_opcode op, const void *data, size_t len)
{
        struct strbuf sb;
        int r;

        strbuf_init(&sb);
        ws_frame_append(&sb, op, data, len, NULL);
        r = send_all(fd, sb.buf, sb.len);
        strbuf_release(&sb);
        return r;
}

static void send_ws_close(int fd, unsigned code)
{
        unsigned char b[2] = { (unsigned char) (code >> 8), (unsigned char) code };

        (void) send_ws(fd, WS_OP_CLOSE, b, 2);
}

/* K8S streamtunnel.go with client-go's TunnelingConnection: the client's binary messages are
 * the kubelet's byte stream, and what the kubelet sends goes back as binary messages. */
static void tunnel_run(void *ctx, int fd, const char *extra, size_t extra_len)
{
        struct stream_proxy *x = ctx;
        int kfd = api_client_raw_fd(x->conn);
        char buf[RELAY_CHUNK];
        struct ws_reader rd;

        ws_reader_init(&rd, true, TUNNEL_MAX_MESSAGE);
        if (extra_len)
                ws_reader_push(&rd, extra, extra_len);
        if (x->head_rest.len && send_ws(fd, WS_OP_BINARY, x->head_rest.buf, x->head_rest.len) < 0)
                goto out;
        for (;;) {
                struct pollfd p[2] = { { .fd = fd, .events = POLLIN },
                                       { .fd = kfd, .events = POLLIN } };
                struct ws_message m;
                unsigned code = 0;
                ssize_t n;
                int r;

                if (poll(p, 2, -1) < 0) {
                        if (errno == EINTR)
                                continue;
                        break;
                }
                if (p[0].revents) {
                        n = recv(fd, buf, sizeof(buf), 0);
                        if (n < 0 && errno == EINTR)
                                continue;
                        if (n <= 0)
                                break;
                        ws_reader_push(&rd, buf, (size_t) n);
                        while ((r = ws_reader_next(&rd, &m, &code)) == 1) {
                                if (m.opcode == WS_OP_BINARY) {
                                        if (m.len &&
                                            api_client_raw_send(x->conn, (const char *) m.data,
                                                                m.len) < 0)
                                                goto out;
                                } else if (m.opcode == WS_OP_PING) {
                                        (void) send_ws(fd, WS_OP_PONG, m.data, m.len);
                                } else if (m.opcode == WS_OP_CLOSE) {
                                        send_ws_close(fd, WS_CLOSE_NORMAL);
                                        goto out;
                                } else if (m.opcode == WS_OP_TEXT) {
                                        /* the tunnel carries binary messages only */
                                        send_ws_close(fd, WS_CLOSE_PROTOCOL_ERROR);
                                        goto out;
                                }
                        }
                        if (r < 0) {
                                send_ws_close(fd, code);
                                goto out;
                        }
                }
                if (p[1].revents) {
                        while ((n = api_client_raw_recv(x->conn, buf, sizeof(buf))) > 0)
                                if (send_ws(fd, WS_OP_BINARY, buf, (size_t) n) < 0)
                                        goto out;
                        if (n != -EAGAIN) {
                                /* the kubelet ended the session: a normal close, as
                                 * TunnelingConnection.Close */
                                send_ws_close(fd, WS_CLOSE_NORMAL);
                                break;
                        }
                }
        }
out:
        ws_reader_release(&rd);
}

static void relay_free(void *ctx)
{
        proxy_free(ctx);
}

/* ------------------------------------------------------------------ the pending answer */

static int pending_wake_fd(void *ctx)
{
        struct stream_proxy *x = ctx;

        return x->wake_fd;
}

static void pending_free(void *ctx)
{
        struct stream_proxy *x = ctx;

        if (!x->handed_over)
                proxy_free(x);
}

static bool pending_poll(void *ctx, struct http_response *resp)
{
        struct stream_proxy *x = ctx;
        bool done;

        pthread_mutex_lock(&x->lock);
        done = x->done;
        pthread_mutex_unlock(&x->lock);
        if (!done)
                return false;
        (void) pthread_join(x->thread, NULL);
        x->thread_started = false;
        if (x->result < 0) {
                status_respond(resp, EIO, x->error, NULL);
                return true;
        }
        if (x->status != 101) {
                /* K8S UpgradeAwareHandler: the backend's refusal goes back as it came */
                resp->status = (unsigned) x->status;
                resp->content_type = "text/plain; charset=utf-8";
                strbuf_add(&resp->body, x->head_rest.buf, x->head_rest.len);
                return true;
        }
        resp->status = 101;
        if (x->tunnel) {
                cleanup_free char *proto = NULL;
                char accept[29];

                /* K8S tunnelingWebsocketUpgraderConn.InitializeWrite */
                if (!x->upgrade || !strcasestr(x->upgrade, "spdy/3.1")) {
                        resp->content_type = "text/plain; charset=utf-8";
                        resp->status = 500;
                        strbuf_addstr(&resp->body, "unable to upgrade: missing upgrade headers "
                                                   "in response\n");
                        return true;
                }
                ws_accept_key(x->ws_key, accept);
                http_response_add_header(resp, "Upgrade", "websocket");
                http_response_add_header(resp, "Sec-WebSocket-Accept", accept);
                if (x->stream_protocol && *x->stream_protocol) {
                        proto = xasprintf("SPDY/3.1+%s", x->stream_protocol);
                        http_response_add_header(resp, "Sec-WebSocket-Protocol", proto);
                }
                x->handed_over = true;
                resp->upgrade =
                        (struct http_upgrade){ .run = tunnel_run, .free = relay_free, .ctx = x };
                return true;
        }
        http_response_add_header(resp, "Upgrade", x->upgrade ? x->upgrade : "websocket");
        if (x->stream_protocol)
                http_response_add_header(resp, "X-Stream-Protocol-Version", x->stream_protocol);
        if (x->accept)
                http_response_add_header(resp, "Sec-WebSocket-Accept", x->accept);
        if (x->protocol)
                http_response_add_header(resp, "Sec-WebSocket-Protocol", x->protocol);
        /* the relay owns the proxy from here on; the pending's free must not free it */
        x->handed_over = true;
        resp->upgrade = (struct http_upgrade){ .run = relay_run, .free = relay_free, .ctx = x };
        return true;
}

/* ------------------------------------------------------------------ the request */

static bool query_bool(const struct http_request *req, const char *key)
{
        const char *v = http_request_query(req, key);

        return v && !streq(v, "0") && strcasecmp(v, "false") != 0;
}

/* url.QueryEscape */
static void add_escaped(struct strbuf *sb, const char *s)
{
        for (const unsigned char *p = (const unsigned char *) s; *p; p++) {
                if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                    (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' || *p == '.' || *p == '~')
                        strbuf_addch(sb, (char) *p);
                else if (*p == ' ')
                        strbuf_addch(sb, '+');
                else
                        strbuf_addf(sb, "%%%02X", *p);
        }
}

/* A header value fit to pass on: no line break (the library gives none, but be sure). */
static bool header_clean(const char *v)
{
        return v && !strpbrk(v, "\r\n");
}

/* The request to the kubelet: the path with the streaming parameters (K8S streamParams), the
 * client's WebSocket handshake and the kubelet token. NULL when the handshake cannot pass. */
static char *kubelet_request(const struct http_request *req, const char *sub, const char *ns,
                             const char *pod, const char *container, const char *hostport,
                             const char *token)
{
        static const char *const flags[] = { "stdin", "stdout", "stderr", "tty" };
        static const char *const copied[] = { "Connection", "Upgrade", "Sec-WebSocket-Key",
                                              "Sec-WebSocket-Version", "Sec-WebSocket-Protocol" };
        struct strbuf sb;
        char sep = '?';

        strbuf_init(&sb);
        strbuf_addf(&sb, "%s /%s/", req->method, sub);
        add_escaped(&sb, ns);
        strbuf_addch(&sb, '/');
        add_escaped(&sb, pod);
        strbuf_addch(&sb, '/');
        add_escaped(&sb, container);
        for (size_t i = 0; i < req->n_query; i++)
                if (streq(req->query[i].key, "command")) {
                        strbuf_addf(&sb, "%ccommand=", sep);
                        add_escaped(&sb, req->query[i].value);
                        sep = '&';
                }
        for (size_t i = 0; i < ARRAY_SIZE(flags); i++)
                if (query_bool(req, flags[i])) {
                        strbuf_addf(&sb, "%c%s=true", sep, flags[i]);
                        sep = '&';
                }
        strbuf_addf(&sb, " HTTP/1.1\r\nHost: %s\r\n", hostport);
        if (token)
                strbuf_addf(&sb, "Authorization: Bearer %s\r\n", token);
        for (size_t i = 0; i < ARRAY_SIZE(copied); i++) {
                const char *v = http_request_header(req, copied[i]);
                if (!v)
                        continue;
                if (!header_clean(v)) {
                        strbuf_release(&sb);
                        return NULL;
                }
                strbuf_addf(&sb, "%s: %s\r\n", copied[i], v);
        }
        strbuf_addstr(&sb, "\r\n");
        return strbuf_detach(&sb);
}

/* K8S AuthorizePodWebsocketUpgradeCreatePermission (kube-apiserver 1.35, beta and on by
 * default; the feature-gate page in kubernetes/website): a WebSocket upgrade is a GET, which
 * RBAC sees as `get`, while the SPDY upgrade is a POST (`create`); the upgrade must also be
 * allowed to `create` the subresource. True when allowed, else the 403 is written. */
static bool authorize_create(struct apiserver *s, const struct api_target *t,
                             const struct http_request *req, struct http_response *resp)
{
        cleanup_free char *reason = NULL;
        struct authz_attributes a = { .user = t->user,
                                      .verb = "create",
                                      .resource_request = true,
                                      .api_group = "",
                                      .api_version = "v1",
                                      .resource = "pods",
                                      .subresource = api_subresource_name(t->sub),
                                      .ns = t->ns ? t->ns : "",
                                      .name = t->name ? t->name : "",
                                      .path = req->path,
                                      .field_selector = "" };

        if (!t->user || authz_authorize(s->opts.authz, &a, &reason) == AUTHZ_ALLOW)
                return true;
        authz_respond_forbidden(resp, &a, reason);
        return false;
}

static struct stream_proxy *proxy_new(struct apiserver *s, char *server_url)
{
        struct stream_proxy *x = xcalloc(1, sizeof(*x));

        pthread_mutex_init(&x->lock, NULL);
        strbuf_init(&x->head_rest);
        x->server_url = server_url;
        /* the kubelet CA, the token and the API server's client certificate, as pods/log: a
         * node joined with `flexlet node` knows the servers by the certificate only (K8S
         * --kubelet-client-certificate, one transport for logs, exec, attach, port-forward) */
        x->co = kubelet_client_options(s, false);
        x->deadline_ms = time_monotonic_ms() + KUBELET_UPGRADE_TIMEOUT_MS;
        x->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        return x;
}

/* Starts connecting to the kubelet with x->request; the answer is pending until it is done. */
static void proxy_start(struct stream_proxy *x, struct http_response *resp)
{
        if (!x->request || x->wake_fd < 0) {
                proxy_free(x);
                status_respond(resp, EINVAL, "websocket: bad handshake", NULL);
                return;
        }
        if (pthread_create(&x->thread, NULL, connect_main, x) != 0) {
                proxy_free(x);
                status_respond(resp, EIO, "cannot start the proxy", NULL);
                return;
        }
        x->thread_started = true;
        resp->pending = (struct http_pending){
                .poll = pending_poll, .free = pending_free, .ctx = x, .wake_fd = pending_wake_fd
        };
}

/* K8S streamtunnel.go spdyProtocolsFromWebsocketProtocols: the offered WebSocket protocols
 * "SPDY/3.1+<p>" whose <p> ends in ".k8s.io", as "<p>, <p>..."; NULL when there is none. */
static char *tunnel_protocols(const char *offered)
{
        static const char prefix[] = "SPDY/3.1+", suffix[] = ".k8s.io";
        struct strbuf sb;

        strbuf_init(&sb);
        for (const char *p = offered; p && *p;) {
                size_t n;

                while (*p == ' ' || *p == ',')
                        p++;
                n = strcspn(p, ", ");
                if (n > strlen(prefix) + strlen(suffix) &&
                    strncmp(p, prefix, strlen(prefix)) == 0 &&
                    strncmp(p + n - strlen(suffix), suffix, strlen(suffix)) == 0) {
                        if (sb.len)
                                strbuf_addstr(&sb, ", ");
                        strbuf_add(&sb, p + strlen(prefix), n - strlen(prefix));
                }
                p += n;
        }
        if (!sb.len) {
                strbuf_release(&sb);
                return NULL;
        }
        return strbuf_detach(&sb);
}

/* K8S PortForwardLocation, then the kubelet's /portForward/NS/POD asked for a SPDY/3.1 upgrade:
 * the client's own (a POST with Upgrade: SPDY/3.1, kubectl up to 1.30 and the fallback) or, for
 * kubectl's WebSocket tunnel, the one createSPDYRequest makes from it. */
static void portforward_handle(struct apiserver *s, const struct api_target *t,
                               const struct http_request *req, struct http_response *resp)
{
        cleanup_error struct error *err = NULL;
        cleanup_json json_t *pod = NULL;
        cleanup_free char *url = NULL, *msg = NULL, *protocols = NULL;
        const char *upgrade = http_request_header(req, "Upgrade");
        const char *key = http_request_header(req, "Sec-WebSocket-Key");
        bool tunnel = upgrade && strcasecmp(upgrade, "websocket") == 0;
        const char *node;
        struct stream_proxy *x;
        struct strbuf sb;
        int r;

        if (tunnel) {
                protocols = tunnel_protocols(http_request_header(req, "Sec-WebSocket-Protocol"));
                if (!protocols) {
                        http_response_text(resp, 400,
                                           "unable to upgrade: no tunneling spdy protocols "
                                           "provided\n");
                        return;
                }
                if (!key || !*key || !header_clean(key)) {
                        status_respond(resp, EINVAL, "websocket: bad handshake", NULL);
                        return;
                }
        } else {
                const char *v = http_request_header(req, "X-Stream-Protocol-Version");

                if (v && !header_clean(v)) {
                        status_respond(resp, EINVAL, "bad X-Stream-Protocol-Version", NULL);
                        return;
                }
                protocols = v ? xstrdup(v) : NULL;
        }
        r = store_get(s->store, t->res->plural, t->ns, t->name, &pod, &err);
        if (r == -ENOENT) {
                status_not_found(resp, t->res, t->name);
                return;
        }
        if (r < 0) {
                status_respond(resp, r, err ? err->message : strerror(-r), NULL);
                return;
        }
        node = json_path_string(pod, "spec.nodeName");
        if (!node || !*node) {
                msg = xasprintf("pod %s does not have a host assigned", t->name);
                status_respond(resp, EINVAL, msg, NULL);
                return;
        }
        url = pod_kubelet_url(s, node, resp);
        if (!url)
                return;
        x = proxy_new(s, TAKE_PTR(url));
        x->tunnel = tunnel;
        x->ws_key = tunnel ? xstrdup(key) : NULL;
        strbuf_init(&sb);
        strbuf_addstr(&sb, "POST /portForward/");
        add_escaped(&sb, t->ns);
        strbuf_addch(&sb, '/');
        add_escaped(&sb, t->name);
        strbuf_addf(&sb, " HTTP/1.1\r\nHost: %s\r\n", x->server_url + strlen("https://"));
        if (s->opts.kubelet_token)
                strbuf_addf(&sb, "Authorization: Bearer %s\r\n", s->opts.kubelet_token);
        strbuf_addstr(&sb, "Connection: Upgrade\r\n");
        if (tunnel) {
                strbuf_addstr(&sb, "Upgrade: SPDY/3.1\r\n");
        } else {
                const char *v = upgrade && header_clean(upgrade) ? upgrade : "";
                strbuf_addf(&sb, "Upgrade: %s\r\n", v);
        }
        if (protocols)
                strbuf_addf(&sb, "X-Stream-Protocol-Version: %s\r\n", protocols);
        strbuf_addstr(&sb, "Content-Length: 0\r\n\r\n");
        x->request = strbuf_detach(&sb);
        proxy_start(x, resp);
}

void pod_stream_handle(struct apiserver *s, const struct api_target *t,
                       const struct http_request *req, struct http_response *resp)
{
        cleanup_error struct error *err = NULL;
        cleanup_json json_t *pod = NULL;
        const char *sub = t->sub == API_SUB_EXEC ? "exec" : "attach";
        const char *container, *node, *phase, *upgrade;
        cleanup_free char *url = NULL, *msg = NULL;
        struct stream_proxy *x;
        int r;

        if (!streq(req->method, "GET") && !streq(req->method, "POST")) {
                status_respond(resp, EOPNOTSUPP,
                               "the server does not allow this method on the requested resource",
                               NULL);
                return;
        }
        if (streq(req->method, "GET") && !authorize_create(s, t, req, resp))
                return;
        if (t->sub == API_SUB_PORTFORWARD) {
                portforward_handle(s, t, req, resp);
                return;
        }
        /* K8S remotecommand NewOptions, checked before the pod is looked at */
        if (!query_bool(req, "stdin") && !query_bool(req, "stdout") && !query_bool(req, "stderr")) {
                status_respond(resp, EINVAL, "you must specify at least 1 of stdin, stdout, stderr",
                               NULL);
                return;
        }
        r = store_get(s->store, t->res->plural, t->ns, t->name, &pod, &err);
        if (r == -ENOENT) {
                status_not_found(resp, t->res, t->name);
                return;
        }
        if (r < 0) {
                status_respond(resp, r, err ? err->message : strerror(-r), NULL);
                return;
        }
        container = pod_choose_container(pod, http_request_query(req, "container"), t->name, resp);
        if (!container)
                return;
        phase = json_path_string(pod, "status.phase");
        if (phase && (streq(phase, "Succeeded") || streq(phase, "Failed"))) {
                /* K8S subresources.go */
                msg = t->sub == API_SUB_EXEC
                              ? xasprintf("cannot exec into a container in a completed pod; "
                                          "current phase is %s",
                                          phase)
                              : xasprintf("cannot attach to a container in a completed pod; "
                                          "current phase is %s",
                                          phase);
                status_respond(resp, EINVAL, msg, NULL);
                return;
        }
        node = json_path_string(pod, "spec.nodeName");
        if (!node || !*node) {
                msg = xasprintf("pod %s does not have a host assigned", t->name);
                status_respond(resp, EINVAL, msg, NULL);
                return;
        }
        upgrade = http_request_header(req, "Upgrade");
        if (!upgrade || strcasecmp(upgrade, "websocket") != 0) {
                /* K8S: kubectl 1.32 tries WebSockets first and falls back to SPDY only when
                 * the upgrade fails; flexlet proxies WebSockets only */
                status_respond(resp, EINVAL,
                               "unable to upgrade connection: only WebSocket streaming "
                               "(v5.channel.k8s.io, v4.channel.k8s.io) is supported, not SPDY",
                               NULL);
                return;
        }
        url = pod_kubelet_url(s, node, resp);
        if (!url)
                return;
        x = proxy_new(s, TAKE_PTR(url));
        x->request = kubelet_request(req, sub, t->ns, t->name, container,
                                     x->server_url + strlen("https://"), s->opts.kubelet_token);
        proxy_start(x, resp);
}
