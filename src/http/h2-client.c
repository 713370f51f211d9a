/* h2-client.c: the blocking HTTP/2 client connection of h2-client.h. The socket is non-blocking
 * and every wait is a poll with the call's deadline; nghttp2 encodes and decodes frames in
 * memory (nghttp2_session_mem_send / mem_recv), and this file moves the bytes, through GnuTLS
 * when the url is https. */
#include "http/h2-client.h"

#include <errno.h>
#include <fcntl.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <nghttp2/nghttp2.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/net.h"
#include "base/timeutil.h"

/* The receive windows the client offers (stream and connection): a 16 MiB answer flows without
 * waiting for a WINDOW_UPDATE, and nghttp2 tops the window up as the data is consumed. */
#define H2_WINDOW  (1 << 24)
#define READ_CHUNK 16384

struct h2_conn {
        int fd;
        gnutls_session_t tls; /* NULL without TLS */
        gnutls_certificate_credentials_t cred;
        nghttp2_session *session;
        char *authority;  /* HOST:PORT */
        char *user_agent; /* or NULL */
        bool https;
        bool broken;        /* a failure: no further calls */
        bool goaway;        /* the server is going away: no further calls */
        int32_t last_id;    /* the GOAWAY's last stream id */
        int32_t stream;     /* the call in flight, or 0 */
        bool closed;        /* that stream ended */
        uint32_t rst_error; /* its RST_STREAM code, or 0 */
        /* the request's body, handed to nghttp2 as it asks */
        const uint8_t *up;
        size_t up_len, up_off;
        /* where its answer goes */
        struct h2_answer *ans;
        size_t max_body;
        h2_data_fn on_data;
        void *ud;
        struct grpc_status *status;
        bool stopped; /* on_data said stop */
};

void h2_answer_init(struct h2_answer *a)
{
        *a = (struct h2_answer){ .status = GRPC_STATUS_INIT };
        strbuf_init(&a->body);
}

void h2_answer_release(struct h2_answer *a)
{
        strbuf_release(&a->body);
}

static int remaining_ms(int64_t deadline)
{
        int64_t left = deadline - time_monotonic_ms();

        return left < 0 ? 0 : left > INT32_MAX ? INT32_MAX : (int) left;
}

/* Waits until fd is ready for events (or extra_fd, when >= 0, is readable) or the deadline
 * passes: 1 ready, 2 extra_fd, 0 timed out, -errno. */
static int wait_fd(int fd, short events, int extra_fd, int64_t deadline)
{
        struct pollfd p[2] = { { .fd = fd, .events = events },
                               { .fd = extra_fd, .events = POLLIN } };

        for (;;) {
                int r = poll(p, extra_fd >= 0 ? 2 : 1, deadline < 0 ? -1 : remaining_ms(deadline));

                if (r < 0 && errno == EINTR)
                        continue;
                if (r < 0)
                        return -errno;
                if (r == 0)
                        return 0;
                if (extra_fd >= 0 && p[1].revents)
                        return 2;
                return 1;
        }
}

/* ---- bytes ---- */

/* Writes what the socket takes of buf without waiting: bytes written, -EAGAIN when it takes
 * nothing now, -errno on failure. */
static ssize_t write_some(struct h2_conn *c, const uint8_t *buf, size_t len)
{
        ssize_t n;

        if (c->tls) {
                n = gnutls_record_send(c->tls, buf, len);
                if (n == GNUTLS_E_AGAIN || n == GNUTLS_E_INTERRUPTED)
                        return -EAGAIN;
                return n < 0 ? -ECONNRESET : n;
        }
        do
                n = send(c->fd, buf, len, MSG_NOSIGNAL);
        while (n < 0 && errno == EINTR);
        return n < 0 ? -errno : n;
}

/* Writes all of buf before the deadline: 0, or -errno with *ret_sent the bytes that left. */
static int write_all(struct h2_conn *c, const uint8_t *buf, size_t len, int64_t deadline,
                     size_t *ret_sent)
{
        size_t off = 0;
        int r = 0;

        while (off < len) {
                ssize_t n = write_some(c, buf + off, len - off);

                if (n == -EAGAIN) {
                        int w = wait_fd(c->fd, POLLOUT, -1, deadline);

                        if (w <= 0) {
                                r = w == 0 ? -ETIMEDOUT : w;
                                break;
                        }
                        continue;
                }
                if (n < 0) {
                        r = (int) n;
                        break;
                }
                off += (size_t) n;
        }
        *ret_sent = off;
        return r;
}

/* Reads what is there into buf without waiting: bytes read, 0 at EOF, -EAGAIN when nothing
 * is, -errno on failure. */
static ssize_t read_some(struct h2_conn *c, uint8_t *buf, size_t len)
{
        ssize_t n;

        if (c->tls) {
                n = gnutls_record_recv(c->tls, buf, len);
                if (n == GNUTLS_E_AGAIN || n == GNUTLS_E_INTERRUPTED)
                        return -EAGAIN;
                if (n == GNUTLS_E_PREMATURE_TERMINATION)
                        return 0;
                return n < 0 ? -ECONNRESET : n;
        }
        do
                n = recv(c->fd, buf, len, 0);
        while (n < 0 && errno == EINTR);
        return n < 0 ? -errno : n;
}

/* Whether bytes wait in GnuTLS's buffer, which poll cannot see. */
static bool tls_pending(struct h2_conn *c)
{
        return c->tls && gnutls_record_check_pending(c->tls) > 0;
}

/* Sends whatever nghttp2 has queued, in one write. */
static int flush(struct h2_conn *c, int64_t deadline, size_t *ret_sent)
{
        struct strbuf out;
        size_t sent = 0;
        int r = 0;

        strbuf_init(&out);
        for (;;) {
                const uint8_t *data;
                ssize_t n = nghttp2_session_mem_send(c->session, &data);

                if (n < 0) {
                        r = -EPROTO;
                        break;
                }
                if (n == 0)
                        break;
                strbuf_add(&out, (const char *) data, (size_t) n);
        }
        if (r == 0 && out.len)
                r = write_all(c, (const uint8_t *) out.buf, out.len, deadline, &sent);
        if (ret_sent)
                *ret_sent = sent;
        strbuf_release(&out);
        return r;
}

/* Reads once (what is there; waiting up to the deadline, or for cancel_fd, when nothing is),
 * feeds it to nghttp2 and sends what that queued. 1 after progress, 0 timed out, 2 cancel_fd,
 * -ECONNRESET at EOF or a failed read, -EPROTO for bad frames. */
static int pump(struct h2_conn *c, int cancel_fd, int64_t deadline)
{
        uint8_t buf[READ_CHUNK];
        ssize_t n;

        for (;;) {
                n = read_some(c, buf, sizeof(buf));
                if (n != -EAGAIN)
                        break;
                if (!tls_pending(c)) {
                        int w;

                        if (deadline >= 0 && remaining_ms(deadline) == 0)
                                return 0; /* a look without waiting (h2_usable) */
                        w = wait_fd(c->fd, POLLIN, cancel_fd, deadline);

                        if (w != 1)
                                return w;
                }
        }
        if (n <= 0) /* the server closed the connection, or it failed */
                return -ECONNRESET;
        if (nghttp2_session_mem_recv(c->session, buf, (size_t) n) < 0)
                return -EPROTO;
        n = flush(c, deadline, NULL);
        return n < 0 ? (int) n : 1;
}

/* ---- nghttp2's callbacks ---- */

static ssize_t read_body(nghttp2_session *s, int32_t id, uint8_t *buf, size_t len, uint32_t *flags,
                         nghttp2_data_source *src, void *ud)
{
        struct h2_conn *c = ud;
        size_t n = c->up_len - c->up_off;

        (void) s, (void) id, (void) src;
        if (n > len)
                n = len;
        memcpy(buf, c->up + c->up_off, n);
        c->up_off += n;
        if (c->up_off == c->up_len)
                *flags |= NGHTTP2_DATA_FLAG_EOF;
        return (ssize_t) n;
}

static int on_header(nghttp2_session *s, const nghttp2_frame *frame, const uint8_t *name,
                     size_t name_len, const uint8_t *value, size_t value_len, uint8_t flags,
                     void *ud)
{
        struct h2_conn *c = ud;
        struct grpc_status *st = c->ans ? &c->ans->status : c->status;

        (void) s, (void) flags;
        if (frame->hd.stream_id != c->stream)
                return 0;
        if (name_len == 7 && memcmp(name, ":status", 7) == 0) {
                if (c->ans)
                        c->ans->http_status = atoi((const char *) value);
                return 0;
        }
        if (st)
                grpc_status_field(st, (const char *) name, name_len, (const char *) value,
                                  value_len);
        return 0;
}

static int on_data_chunk(nghttp2_session *s, uint8_t flags, int32_t id, const uint8_t *data,
                         size_t len, void *ud)
{
        struct h2_conn *c = ud;

        (void) flags;
        if (id != c->stream)
                return 0;
        if (c->on_data) {
                if (!c->stopped && !c->on_data(c->ud, data, len))
                        c->stopped = true;
                return 0;
        }
        if (c->ans->too_big || c->ans->body.len + len > c->max_body) {
                /* the rest is not wanted: the stream ends here, the connection stays */
                if (!c->ans->too_big)
                        (void) nghttp2_submit_rst_stream(s, NGHTTP2_FLAG_NONE, id, NGHTTP2_CANCEL);
                c->ans->too_big = true;
                return 0;
        }
        strbuf_add(&c->ans->body, (const char *) data, len);
        return 0;
}

static int on_stream_close(nghttp2_session *s, int32_t id, uint32_t error, void *ud)
{
        struct h2_conn *c = ud;

        (void) s;
        if (id == c->stream) {
                c->closed = true;
                c->rst_error = error;
        }
        return 0;
}

static int on_frame(nghttp2_session *s, const nghttp2_frame *frame, void *ud)
{
        struct h2_conn *c = ud;

        (void) s;
        if (frame->hd.type == NGHTTP2_GOAWAY) {
                c->goaway = true;
                c->last_id = frame->goaway.last_stream_id;
        }
        return 0;
}

/* ---- the connection ---- */

/* Splits "http[s]://HOST:PORT" into c->https, *host and *port. */
static int parse_url(struct h2_conn *c, const char *url, char **ret_host, char **ret_port,
                     struct error **reterr)
{
        const char *hp, *colon;

        if (strncmp(url, "http://", 7) == 0) {
                hp = url + 7;
        } else if (strncmp(url, "https://", 8) == 0) {
                hp = url + 8;
                c->https = true;
        } else {
                return error_set(reterr, EINVAL, "\"%s\": not an http or https url", url);
        }
        if (*hp == '[') {
                const char *end = strchr(hp, ']');

                if (!end || end[1] != ':')
                        return error_set(reterr, EINVAL, "\"%s\": no port", url);
                *ret_host = xstrndup(hp + 1, (size_t) (end - hp - 1));
                colon = end + 1;
        } else {
                colon = strrchr(hp, ':');
                if (!colon)
                        return error_set(reterr, EINVAL, "\"%s\": no port", url);
                *ret_host = xstrndup(hp, (size_t) (colon - hp));
        }
        if (!colon[1] || strspn(colon + 1, "0123456789") != strlen(colon + 1)) {
                free(*ret_host);
                *ret_host = NULL;
                return error_set(reterr, EINVAL, "\"%s\": no port, or a path after it", url);
        }
        *ret_port = xstrdup(colon + 1);
        c->authority = xstrdup(hp);
        return 0;
}

static int tcp_connect(struct h2_conn *c, const char *host, const char *port, int64_t deadline,
                       struct error **reterr)
{
        struct net_dial_failure why;
        int one = 1;
        int fd = net_dial(host, port, remaining_ms(deadline), &why);

        if (fd == -EHOSTUNREACH && why.gai_error)
                return error_set(reterr, EHOSTUNREACH, "resolve %s: %s", host,
                                 gai_strerror(why.gai_error));
        if (fd < 0)
                return error_set(reterr, -fd, "connect to %s: %s", c->authority, strerror(-fd));
        (void) setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        c->fd = fd;
        return 0;
}

static int tls_start(struct h2_conn *c, const char *host, const struct h2_options *opts,
                     int64_t deadline, struct error **reterr)
{
        const gnutls_datum_t h2 = { (unsigned char *) "h2", 2 };
        gnutls_datum_t chosen = { 0 };
        int r;

        if (gnutls_certificate_allocate_credentials(&c->cred) < 0)
                abort();
        r = opts && opts->ca_file ? gnutls_certificate_set_x509_trust_file(c->cred, opts->ca_file,
                                                                           GNUTLS_X509_FMT_PEM)
                                  : gnutls_certificate_set_x509_system_trust(c->cred);
        if (r < 0)
                return error_set(reterr, EPROTO, "TLS to %s: the CA file %s: %s", c->authority,
                                 opts && opts->ca_file ? opts->ca_file : "(the system's)",
                                 gnutls_strerror(r));
        if (opts && opts->cert_file) {
                r = gnutls_certificate_set_x509_key_file(c->cred, opts->cert_file,
                                                         opts->key_file ?: opts->cert_file,
                                                         GNUTLS_X509_FMT_PEM);
                if (r < 0)
                        return error_set(reterr, EPROTO, "TLS to %s: the client certificate %s: %s",
                                         c->authority, opts->cert_file, gnutls_strerror(r));
        }
        /* GNUTLS_NO_SIGNAL: MSG_NOSIGNAL on its writes, as write_all's own send() has: a peer
         * gone costs an error (EPIPE), not the process (SIGPIPE) */
        if (gnutls_init(&c->tls, GNUTLS_CLIENT | GNUTLS_NONBLOCK | GNUTLS_NO_SIGNAL) < 0)
                abort();
        (void) gnutls_set_default_priority(c->tls);
        (void) gnutls_credentials_set(c->tls, GNUTLS_CRD_CERTIFICATE, c->cred);
        /* SNI for a name, not an address (RFC 6066) */
        if (strspn(host, "0123456789.:") != strlen(host))
                (void) gnutls_server_name_set(c->tls, GNUTLS_NAME_DNS, host, strlen(host));
        gnutls_session_set_verify_cert(c->tls, host, 0);
        (void) gnutls_alpn_set_protocols(c->tls, &h2, 1, GNUTLS_ALPN_MANDATORY);
        gnutls_transport_set_int(c->tls, c->fd);
        for (;;) {
                int w;

                r = gnutls_handshake(c->tls);
                if (r >= 0)
                        break;
                if (gnutls_error_is_fatal(r))
                        return error_set(reterr, EPROTO, "TLS to %s: %s", c->authority,
                                         gnutls_strerror(r));
                w = wait_fd(c->fd, gnutls_record_get_direction(c->tls) ? POLLOUT : POLLIN, -1,
                            deadline);
                if (w <= 0)
                        return error_set(reterr, w == 0 ? ETIMEDOUT : -w,
                                         "TLS to %s: the handshake %s", c->authority,
                                         w == 0 ? "timed out" : strerror(-w));
        }
        if (gnutls_alpn_get_selected_protocol(c->tls, &chosen) < 0 || chosen.size != 2 ||
            memcmp(chosen.data, "h2", 2) != 0)
                return error_set(reterr, EPROTO, "TLS to %s: the server does not speak HTTP/2",
                                 c->authority);
        return 0;
}

int h2_connect(const char *url, const struct h2_options *opts, int timeout_ms, struct h2_conn **ret,
               struct error **reterr)
{
        const nghttp2_settings_entry settings[] = {
                { NGHTTP2_SETTINGS_ENABLE_PUSH, 0 },
                { NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, H2_WINDOW },
        };
        int64_t deadline = time_monotonic_ms() + timeout_ms;
        struct h2_conn *c = xcalloc(1, sizeof(*c));
        nghttp2_session_callbacks *cb;
        char *host = NULL, *port = NULL;
        int r;

        c->fd = -1;
        r = parse_url(c, url, &host, &port, reterr);
        if (r >= 0)
                r = tcp_connect(c, host, port, deadline, reterr);
        if (r >= 0 && c->https)
                r = tls_start(c, host, opts, deadline, reterr);
        if (opts && opts->user_agent)
                c->user_agent = xstrdup(opts->user_agent);
        free(host);
        free(port);
        if (r < 0) {
                h2_close(c);
                return r;
        }
        if (nghttp2_session_callbacks_new(&cb) != 0)
                abort();
        nghttp2_session_callbacks_set_on_header_callback(cb, on_header);
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, on_data_chunk);
        nghttp2_session_callbacks_set_on_stream_close_callback(cb, on_stream_close);
        nghttp2_session_callbacks_set_on_frame_recv_callback(cb, on_frame);
        r = nghttp2_session_client_new(&c->session, cb, c);
        nghttp2_session_callbacks_del(cb);
        if (r != 0)
                abort();
        (void) nghttp2_submit_settings(c->session, NGHTTP2_FLAG_NONE, settings,
                                       sizeof(settings) / sizeof(settings[0]));
        (void) nghttp2_session_set_local_window_size(c->session, NGHTTP2_FLAG_NONE, 0, H2_WINDOW);
        /* the preface and SETTINGS go out with the first call */
        *ret = c;
        return 0;
}

void h2_close(struct h2_conn *c)
{
        if (!c)
                return;
        if (c->session && !c->broken) {
                (void) nghttp2_session_terminate_session(c->session, NGHTTP2_NO_ERROR);
                (void) flush(c, time_monotonic_ms() + 100, NULL);
        }
        if (c->tls) {
                if (!c->broken)
                        (void) gnutls_bye(c->tls, GNUTLS_SHUT_WR);
                gnutls_deinit(c->tls);
        }
        if (c->cred)
                gnutls_certificate_free_credentials(c->cred);
        if (c->session)
                nghttp2_session_del(c->session);
        if (c->fd >= 0)
                close(c->fd);
        free(c->authority);
        free(c->user_agent);
        free(c);
}

bool h2_usable(struct h2_conn *c)
{
        /* whatever came while the connection sat idle: a GOAWAY, a PING, or its close */
        while (!c->broken && !c->goaway) {
                int r = pump(c, -1, time_monotonic_ms());

                if (r == 0)
                        break;
                if (r < 0)
                        c->broken = true;
        }
        return !c->broken && !c->goaway;
}

/* Submits the request and writes it out. -ENOTCONN when none of it left. */
static int send_request(struct h2_conn *c, const char *path, const void *body, size_t len,
                        int64_t deadline, struct error **reterr)
{
        const char *scheme = c->https ? "https" : "http";
        nghttp2_nv hdr[] = {
#define NV(n, v, vl) { (uint8_t *) (n), (uint8_t *) (v), sizeof(n) - 1, (vl), NGHTTP2_NV_FLAG_NONE }
                NV(":method", "POST", 4),
                NV(":scheme", scheme, strlen(scheme)),
                NV(":path", path, strlen(path)),
                NV(":authority", c->authority, strlen(c->authority)),
                NV("content-type", "application/grpc", 16),
                NV("te", "trailers", 8),
                NV("user-agent", c->user_agent, c->user_agent ? strlen(c->user_agent) : 0),
#undef NV
        };
        nghttp2_data_provider dp = { .read_callback = read_body };
        size_t sent = 0;
        int r;

        if (!h2_usable(c))
                return error_set(reterr, ENOTCONN, "%s: the connection is closed", c->authority);
        c->up = body;
        c->up_len = len;
        c->up_off = 0;
        c->closed = false;
        c->rst_error = 0;
        c->stopped = false;
        c->stream = nghttp2_submit_request(c->session, NULL, hdr,
                                           sizeof(hdr) / sizeof(hdr[0]) - !c->user_agent, &dp, c);
        if (c->stream < 0) {
                c->stream = 0;
                return error_set(reterr, ENOTCONN, "%s: no stream can be opened", c->authority);
        }
        r = flush(c, deadline, &sent);
        if (r < 0) {
                c->broken = true;
                return error_set(reterr, sent ? -r : ENOTCONN, "%s: send: %s", c->authority,
                                 strerror(-r));
        }
        return 0;
}

/* Why the stream in flight ended without an answer: -ENOTCONN when the server let it go
 * unprocessed (REFUSED_STREAM, or a GOAWAY below it), else -ECONNRESET. */
static int lost(struct h2_conn *c, const char *path, int r, struct error **reterr)
{
        bool unprocessed =
                c->rst_error == NGHTTP2_REFUSED_STREAM || (c->goaway && c->last_id < c->stream);

        c->broken = c->broken || r != 0 || !c->closed;
        if (unprocessed)
                return error_set(reterr, ENOTCONN, "%s%s: refused unprocessed", c->authority, path);
        if (r == -ETIMEDOUT)
                return error_set(reterr, ETIMEDOUT, "%s%s: no answer in time", c->authority, path);
        if (r == -EPROTO)
                return error_set(reterr, EPROTO, "%s%s: a bad HTTP/2 frame", c->authority, path);
        if (c->rst_error)
                return error_set(reterr, ECONNRESET, "%s%s: stream reset (HTTP/2 error %u)",
                                 c->authority, path, c->rst_error);
        return error_set(reterr, ECONNRESET, "%s%s: the connection closed", c->authority, path);
}

int h2_call(struct h2_conn *c, const char *path, const void *body, size_t len, size_t max_body,
            int timeout_ms, struct h2_answer *ans, struct error **reterr)
{
        int64_t deadline = time_monotonic_ms() + timeout_ms;
        int r;

        strbuf_reset(&ans->body);
        ans->status = (struct grpc_status) GRPC_STATUS_INIT;
        ans->http_status = 0;
        ans->too_big = false;
        c->ans = ans;
        c->max_body = max_body;
        c->on_data = NULL;
        r = send_request(c, path, body, len, deadline, reterr);
        while (r == 0 && !c->closed) {
                r = pump(c, -1, deadline);
                r = r == 1 ? 0 : r == 0 ? -ETIMEDOUT : r;
        }
        c->ans = NULL;
        if (r < 0 && r != -ENOTCONN && c->closed && !c->rst_error && ans->http_status) {
                /* the answer came whole; what failed after it (answering the PING or SETTINGS
                 * that came with it, to a server that hung up) is the connection's */
                c->broken = true;
                r = 0;
        }
        if (r == 0 && ans->too_big) {
                c->stream = 0;
                return error_set(reterr, E2BIG, "%s%s: the answer is larger than %zu bytes",
                                 c->authority, path, max_body);
        }
        if (r == -ENOTCONN || (r == 0 && c->closed && !c->rst_error && ans->http_status)) {
                c->stream = 0;
                return r;
        }
        r = lost(c, path, r, reterr);
        c->stream = 0;
        return r;
}

int h2_stream(struct h2_conn *c, const char *path, const void *body, size_t len, int cancel_fd,
              int idle_timeout_ms, h2_data_fn on_data, void *ud, struct grpc_status *status,
              struct error **reterr)
{
        bool pinged = false;
        int r;

        *status = (struct grpc_status) GRPC_STATUS_INIT;
        c->ans = NULL;
        c->on_data = on_data;
        c->ud = ud;
        c->status = status;
        r = send_request(c, path, body, len, time_monotonic_ms() + idle_timeout_ms, reterr);
        while (r == 0 && !c->closed && !c->stopped) {
                r = pump(c, cancel_fd, time_monotonic_ms() + idle_timeout_ms);
                if (r == 1) {
                        pinged = false;
                        r = 0;
                } else if (r == 2) {
                        r = -ECANCELED;
                } else if (r == 0 && !pinged) {
                        /* silence: is the server still there? */
                        pinged = true;
                        (void) nghttp2_submit_ping(c->session, NGHTTP2_FLAG_NONE, NULL);
                        r = flush(c, time_monotonic_ms() + idle_timeout_ms, NULL);
                } else if (r == 0) {
                        r = -ETIMEDOUT;
                }
        }
        c->on_data = NULL;
        c->status = NULL;
        if (r < 0 && r != -ENOTCONN && r != -ECANCELED && c->closed && !c->rst_error &&
            !c->stopped) {
                /* the stream ended whole; a failure after it is the connection's (h2_call) */
                c->broken = true;
                r = 0;
        }
        if (r == -ECANCELED || c->stopped) {
                c->broken = true;
                c->stream = 0;
                return error_set(reterr, ECANCELED, "%s%s: cancelled", c->authority, path);
        }
        if (r == -ENOTCONN || (r == 0 && c->closed && !c->rst_error)) {
                c->stream = 0;
                return r;
        }
        r = lost(c, path, r, reterr);
        c->stream = 0;
        return r;
}
