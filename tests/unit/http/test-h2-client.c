/* test-h2-client.c: the blocking HTTP/2 client of http/h2-client.h against an HTTP/2 server the
 * test runs in a thread (nghttp2's server session over a loopback socket, with prior knowledge
 * or through TLS with ALPN "h2"), its behaviour chosen per test: unary calls echoed back, one
 * after another on a connection (one past the server's flow-control window, the user-agent
 * asked for), and a path the server does not know; a trailers-only answer with a
 * percent-encoded grpc-message; an answer past max_body and the call after it; GOAWAY before any
 * call, below the call and above it; REFUSED_STREAM; a server that hangs up after reading the
 * request, one that resets the connection right after a whole answer, and one that never
 * answers; h2_connect's url and connection errors; a server stream read to its end, ended whole
 * before a reset, cancelled through cancel_fd (after a keep-alive PING) and by its on_data, and a
 * dead server found by its missing PING answer; and TLS: the right CA, a server gone before the
 * client closes (no SIGPIPE), another CA, a server without "h2". */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <ftw.h>
#include <gnutls/gnutls.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <nghttp2/nghttp2.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "apiserver/pki.h"
#include "base/alloc.h"
#include "base/error.h"
#include "base/strbuf.h"
#include "base/timeutil.h"
#include "http/grpc.h"
#include "http/h2-client.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* How long the test waits for the server, and the server for the test: generous, never the
 * measure of a result. */
#define WAIT_MS 10000
/* The method the echoing server knows; any other path gets grpc-status 12 (UNIMPLEMENTED). */
#define ECHO_PATH "/test.Echo/Call"
/* What MODE_BIG_FIRST answers its first call with, and the max_body that call is given. */
#define BIG_ANSWER (256 * 1024)
#define MAX_BODY   1024
/* A request past the server's flow-control window. */
#define BIG_REQUEST (200 * 1000)
/* MODE_STREAM's answer: this many gRPC frames, one every few milliseconds. */
#define STREAM_PIECES  5
#define PIECE_EVERY_MS 20

/* ---- the server ---- */

enum mode {
        MODE_ECHO,          /* every call answered with its own body, then grpc-status 0 */
        MODE_TRAILERS_ONLY, /* HEADERS with grpc-status 14 and "no%20leader", END_STREAM */
        MODE_BIG_FIRST,     /* the first call gets BIG_ANSWER bytes, the others are echoed */
        MODE_GOAWAY,        /* GOAWAY (last stream 0) as soon as the connection opens */
        MODE_GOAWAY_BELOW,  /* the request read, GOAWAY below it (last stream 0), no answer */
        MODE_GOAWAY_ABOVE,  /* the request read, GOAWAY at it (last stream its id), echoed */
        MODE_REFUSE_FIRST,  /* the first stream reset with REFUSED_STREAM, the others echoed */
        MODE_CLOSE,         /* the request read, the connection closed without an answer */
        MODE_ANSWER_RESET,  /* the request echoed with a PING, then the connection reset */
        MODE_SILENT,        /* the request read, never answered, nor the client's PINGs */
        MODE_STREAM,        /* HEADERS, STREAM_PIECES pieces over time, then grpc-status 0 */
        MODE_HOLD,          /* HEADERS and the first piece, then the stream stays open */
};

/* One request stream on the server: a slot of server.streams. */
struct sstream {
        int32_t id; /* 0: a free slot */
        char path[64];
        char user_agent[32];
        bool post, grpc_type, te_trailers, scheme_ok, authority_ok;
        struct strbuf req;  /* the request's DATA */
        struct strbuf resp; /* the answer's DATA, handed to nghttp2 up to avail */
        size_t off, avail;
        bool finished;           /* resp is whole: the trailers follow it */
        const char *grpc_status; /* for the trailers */
};

struct server {
        enum mode mode;
        bool tls, alpn;
        gnutls_certificate_credentials_t cred;
        int lfd;
        char *url;
        char authority[32];
        pthread_t thread;
        bool running;
        /* the connection: the server thread's alone */
        int fd;
        gnutls_session_t ses;
        nghttp2_session *h2;
        struct sstream streams[8];
        struct sstream *streaming; /* MODE_STREAM's stream, given pieces over time */
        int pieces;
        int64_t next_piece;
        bool hang_up;
        int kill_fd;  /* an eventfd: once readable, the server hangs up */
        int answered; /* requests answered so far */
        /* what it saw: under lock while the thread runs, read directly after the join */
        pthread_mutex_t lock;
        int requests;       /* requests read whole */
        int bad_requests;   /* of them, ones without POST, application/grpc, te, scheme... */
        int headers_frames; /* HEADERS frames, even ones nghttp2 ignores */
        int pings;          /* PINGs from the client (not ACKs) */
        int goaway_sent;
        int handshakes;      /* TLS handshakes completed */
        char user_agent[32]; /* the last request's user-agent, "" without */
};

static struct server srv;

static void note(struct server *s, int *count)
{
        pthread_mutex_lock(&s->lock);
        (*count)++;
        pthread_mutex_unlock(&s->lock);
}

/* Waits until *count (one of srv's counters) reaches want: false when it did not in WAIT_MS. */
static bool server_wait(struct server *s, const int *count, int want)
{
        int64_t end = time_monotonic_ms() + WAIT_MS;

        for (;;) {
                int n;

                pthread_mutex_lock(&s->lock);
                n = *count;
                pthread_mutex_unlock(&s->lock);
                if (n >= want)
                        return true;
                if (time_monotonic_ms() >= end)
                        return false;
                usleep(2000);
        }
}

/* MODE_STREAM's i-th piece: a gRPC frame, the third one large enough to take several DATA
 * frames. */
static void stream_piece(int i, struct strbuf *sb)
{
        size_t at = grpc_frame_begin(sb), n = i == 2 ? 40000 : 10 + (size_t) i;

        for (size_t k = 0; k < n; k++)
                strbuf_addch(sb, (char) ((size_t) i * 31 + k));
        grpc_frame_end(sb, at);
}

static void framed(struct strbuf *sb, const char *msg, size_t len)
{
        size_t at = grpc_frame_begin(sb);

        strbuf_add(sb, msg, len);
        grpc_frame_end(sb, at);
}

static struct sstream *stream_of(struct server *s, int32_t id)
{
        for (size_t i = 0; id && i < N_ELEMS(s->streams); i++)
                if (s->streams[i].id == id)
                        return &s->streams[i];
        return NULL;
}

static void stream_free(struct server *s, struct sstream *st)
{
        if (s->streaming == st)
                s->streaming = NULL;
        strbuf_release(&st->req);
        strbuf_release(&st->resp);
        st->id = 0;
}

/* Writes all of buf: 0, or -1 once the client is gone. */
static int srv_write(struct server *s, const uint8_t *buf, size_t len)
{
        while (len) {
                ssize_t n;

                if (s->ses) {
                        n = gnutls_record_send(s->ses, buf, len);
                        if (n == GNUTLS_E_INTERRUPTED)
                                continue;
                } else {
                        n = send(s->fd, buf, len, MSG_NOSIGNAL);
                        if (n < 0 && errno == EINTR)
                                continue;
                }
                if (n <= 0)
                        return -1;
                buf += n;
                len -= (size_t) n;
        }
        return 0;
}

/* Sends what nghttp2 queued: 0, or -1 once the client is gone. */
static int srv_flush(struct server *s)
{
        for (;;) {
                const uint8_t *data;
                ssize_t n = nghttp2_session_mem_send(s->h2, &data);

                if (n < 0)
                        return -1;
                if (n == 0)
                        return 0;
                if (srv_write(s, data, (size_t) n) < 0)
                        return -1;
        }
}

/* Reads what comes within timeout_ms: the bytes read, 0 when none came, -1 at the end (or
 * when told to hang up). */
static ssize_t srv_read(struct server *s, uint8_t *buf, size_t len, int timeout_ms)
{
        ssize_t n;

        if (!s->ses || gnutls_record_check_pending(s->ses) == 0) {
                struct pollfd p[2] = { { .fd = s->fd, .events = POLLIN },
                                       { .fd = s->kill_fd, .events = POLLIN } };
                int r;

                do
                        r = poll(p, 2, timeout_ms);
                while (r < 0 && errno == EINTR);
                if (r <= 0 || p[1].revents)
                        return r == 0 ? 0 : -1;
        }
        if (s->ses) {
                do
                        n = gnutls_record_recv(s->ses, buf, len);
                while (n == GNUTLS_E_INTERRUPTED);
                if (n == GNUTLS_E_AGAIN) /* a TLS message that carried no data */
                        return 0;
        } else {
                do
                        n = recv(s->fd, buf, len, 0);
                while (n < 0 && errno == EINTR);
        }
        return n > 0 ? n : -1;
}

static nghttp2_nv nv(const char *name, const char *value)
{
        return (nghttp2_nv){ (uint8_t *) name, (uint8_t *) value, strlen(name), strlen(value),
                             NGHTTP2_NV_FLAG_NONE };
}

/* The answer's DATA as far as it is there (the rest deferred), then its trailers. */
static ssize_t srv_read_answer(nghttp2_session *h2, int32_t id, uint8_t *buf, size_t len,
                               uint32_t *flags, nghttp2_data_source *src, void *ud)
{
        struct sstream *st = src->ptr;
        size_t n = st->avail - st->off;

        if (n == 0 && !st->finished)
                return NGHTTP2_ERR_DEFERRED;
        if (n > len)
                n = len;
        memcpy(buf, st->resp.buf + st->off, n);
        st->off += n;
        if (st->finished && st->off == st->resp.len) {
                nghttp2_nv trailers[] = { nv("grpc-status", st->grpc_status) };

                *flags |= NGHTTP2_DATA_FLAG_EOF | NGHTTP2_DATA_FLAG_NO_END_STREAM;
                if (nghttp2_submit_trailer(h2, id, trailers, N_ELEMS(trailers)) != 0)
                        return NGHTTP2_ERR_CALLBACK_FAILURE;
        }
        return (ssize_t) n;
}

/* HEADERS, then st->resp as it comes, then the trailers. */
static int submit_answer(struct server *s, struct sstream *st)
{
        nghttp2_nv hdr[] = { nv(":status", "200"), nv("content-type", "application/grpc") };
        nghttp2_data_provider dp = { .source.ptr = st, .read_callback = srv_read_answer };

        return nghttp2_submit_response(s->h2, st->id, hdr, N_ELEMS(hdr), &dp) == 0
                       ? 0
                       : NGHTTP2_ERR_CALLBACK_FAILURE;
}

/* The request's body back, grpc-status 0; grpc-status 12 and no body for another path. */
static int answer_echo(struct server *s, struct sstream *st)
{
        if (strcmp(st->path, ECHO_PATH) == 0) {
                strbuf_add(&st->resp, st->req.buf, st->req.len);
                st->grpc_status = "0";
        } else {
                st->grpc_status = "12";
        }
        st->avail = st->resp.len;
        st->finished = true;
        return submit_answer(s, st);
}

static void give_piece(struct server *s)
{
        struct sstream *st = s->streaming;

        stream_piece(s->pieces++, &st->resp);
        st->avail = st->resp.len;
        if (s->pieces == STREAM_PIECES) {
                st->finished = true;
                st->grpc_status = "0";
        }
        (void) nghttp2_session_resume_data(s->h2, st->id);
        s->next_piece = time_monotonic_ms() + PIECE_EVERY_MS;
}

/* A request was read whole: answers it as the mode says. */
static int answer(struct server *s, struct sstream *st)
{
        const nghttp2_nv trailers_only[] = {
                nv(":status", "200"),
                nv("content-type", "application/grpc"),
                nv("grpc-status", "14"),
                nv("grpc-message", "no%20leader"),
        };
        int nth = s->answered++;
        size_t at;

        pthread_mutex_lock(&s->lock);
        s->requests++;
        if (!st->post || !st->grpc_type || !st->te_trailers || !st->scheme_ok || !st->authority_ok)
                s->bad_requests++;
        memcpy(s->user_agent, st->user_agent, sizeof(s->user_agent));
        pthread_mutex_unlock(&s->lock);
        switch (s->mode) {
        case MODE_ECHO:
                return answer_echo(s, st);
        case MODE_TRAILERS_ONLY:
                return nghttp2_submit_response(s->h2, st->id, trailers_only, N_ELEMS(trailers_only),
                                               NULL) == 0
                               ? 0
                               : NGHTTP2_ERR_CALLBACK_FAILURE;
        case MODE_BIG_FIRST:
                if (nth > 0)
                        return answer_echo(s, st);
                at = grpc_frame_begin(&st->resp);
                while (st->resp.len < BIG_ANSWER)
                        strbuf_addch(&st->resp, 'x');
                grpc_frame_end(&st->resp, at);
                st->avail = st->resp.len;
                st->finished = true;
                st->grpc_status = "0";
                return submit_answer(s, st);
        case MODE_GOAWAY_BELOW:
        case MODE_GOAWAY_ABOVE:
                if (nghttp2_submit_goaway(s->h2, NGHTTP2_FLAG_NONE,
                                          s->mode == MODE_GOAWAY_ABOVE ? st->id : 0,
                                          NGHTTP2_NO_ERROR, NULL, 0) != 0)
                        return NGHTTP2_ERR_CALLBACK_FAILURE;
                return s->mode == MODE_GOAWAY_ABOVE ? answer_echo(s, st) : 0;
        case MODE_REFUSE_FIRST:
                if (nth > 0)
                        return answer_echo(s, st);
                return nghttp2_submit_rst_stream(s->h2, NGHTTP2_FLAG_NONE, st->id,
                                                 NGHTTP2_REFUSED_STREAM) == 0
                               ? 0
                               : NGHTTP2_ERR_CALLBACK_FAILURE;
        case MODE_CLOSE:
                s->hang_up = true;
                return 0;
        case MODE_ANSWER_RESET:
                s->hang_up = true;
                if (nghttp2_submit_ping(s->h2, NGHTTP2_FLAG_NONE, NULL) != 0)
                        return NGHTTP2_ERR_CALLBACK_FAILURE;
                return answer_echo(s, st);
        case MODE_STREAM:
                s->streaming = st;
                s->pieces = 0;
                s->next_piece = time_monotonic_ms() + PIECE_EVERY_MS;
                return submit_answer(s, st);
        case MODE_HOLD:
                stream_piece(0, &st->resp);
                st->avail = st->resp.len;
                return submit_answer(s, st);
        case MODE_GOAWAY:
        case MODE_SILENT:
                break;
        }
        return 0;
}

static int srv_on_begin_frame(nghttp2_session *h2, const nghttp2_frame_hd *hd, void *ud)
{
        struct server *s = ud;

        if (hd->type == NGHTTP2_HEADERS)
                note(s, &s->headers_frames);
        return 0;
}

static int srv_on_begin_headers(nghttp2_session *h2, const nghttp2_frame *f, void *ud)
{
        struct server *s = ud;

        if (f->hd.type != NGHTTP2_HEADERS || f->headers.cat != NGHTTP2_HCAT_REQUEST)
                return 0;
        for (size_t i = 0; i < N_ELEMS(s->streams); i++) {
                struct sstream *st = &s->streams[i];

                if (st->id)
                        continue;
                *st = (struct sstream){ .id = f->hd.stream_id };
                strbuf_init(&st->req);
                strbuf_init(&st->resp);
                return 0;
        }
        return NGHTTP2_ERR_CALLBACK_FAILURE;
}

static bool header_is(const uint8_t *name, size_t name_len, const uint8_t *value, size_t value_len,
                      const char *want_name, const char *want_value)
{
        return name_len == strlen(want_name) && memcmp(name, want_name, name_len) == 0 &&
               value_len == strlen(want_value) && memcmp(value, want_value, value_len) == 0;
}

static int srv_on_header(nghttp2_session *h2, const nghttp2_frame *f, const uint8_t *name,
                         size_t name_len, const uint8_t *value, size_t value_len, uint8_t flags,
                         void *ud)
{
        struct server *s = ud;
        struct sstream *st = stream_of(s, f->hd.stream_id);

        if (!st)
                return 0;
        if (name_len == 5 && memcmp(name, ":path", 5) == 0)
                snprintf(st->path, sizeof(st->path), "%.*s", (int) value_len, (const char *) value);
        if (name_len == 10 && memcmp(name, "user-agent", 10) == 0)
                snprintf(st->user_agent, sizeof(st->user_agent), "%.*s", (int) value_len,
                         (const char *) value);
        st->post |= header_is(name, name_len, value, value_len, ":method", "POST");
        st->grpc_type |=
                header_is(name, name_len, value, value_len, "content-type", "application/grpc");
        st->te_trailers |= header_is(name, name_len, value, value_len, "te", "trailers");
        st->scheme_ok |=
                header_is(name, name_len, value, value_len, ":scheme", s->tls ? "https" : "http");
        st->authority_ok |= header_is(name, name_len, value, value_len, ":authority", s->authority);
        return 0;
}

static int srv_on_data(nghttp2_session *h2, uint8_t flags, int32_t id, const uint8_t *data,
                       size_t len, void *ud)
{
        struct sstream *st = stream_of(ud, id);

        if (st)
                strbuf_add(&st->req, data, len);
        return 0;
}

static int srv_on_frame(nghttp2_session *h2, const nghttp2_frame *f, void *ud)
{
        struct server *s = ud;
        struct sstream *st;

        if (f->hd.type == NGHTTP2_PING && !(f->hd.flags & NGHTTP2_FLAG_ACK))
                note(s, &s->pings);
        if ((f->hd.type == NGHTTP2_HEADERS || f->hd.type == NGHTTP2_DATA) &&
            (f->hd.flags & NGHTTP2_FLAG_END_STREAM) && (st = stream_of(s, f->hd.stream_id)))
                return answer(s, st);
        return 0;
}

static int srv_on_close(nghttp2_session *h2, int32_t id, uint32_t error, void *ud)
{
        struct server *s = ud;
        struct sstream *st = stream_of(s, id);

        if (st)
                stream_free(s, st);
        return 0;
}

static int tls_accept(struct server *s)
{
        const gnutls_datum_t h2 = { (unsigned char *) "h2", 2 };
        int r;

        if (gnutls_init(&s->ses, GNUTLS_SERVER | GNUTLS_NO_SIGNAL) < 0)
                return -1;
        (void) gnutls_set_default_priority(s->ses);
        (void) gnutls_credentials_set(s->ses, GNUTLS_CRD_CERTIFICATE, s->cred);
        if (s->alpn)
                (void) gnutls_alpn_set_protocols(s->ses, &h2, 1, 0);
        gnutls_transport_set_int(s->ses, s->fd);
        gnutls_handshake_set_timeout(s->ses, WAIT_MS);
        do
                r = gnutls_handshake(s->ses);
        while (r < 0 && !gnutls_error_is_fatal(r));
        if (r < 0)
                return -1;
        note(s, &s->handshakes);
        return 0;
}

/* Once the client's kernel has everything sent (acknowledged it), has close() reset the
 * connection (SO_LINGER 0): the RST is there before the client reads what came ahead of it. */
static void reset_when_delivered(struct server *s)
{
        const struct linger now = { .l_onoff = 1, .l_linger = 0 };
        int64_t end = time_monotonic_ms() + WAIT_MS;

        for (;;) {
                struct tcp_info ti;
                socklen_t len = sizeof(ti);

                if (getsockopt(s->fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0 ||
                    ti.tcpi_unacked == 0 || time_monotonic_ms() >= end)
                        break;
                usleep(100);
        }
        (void) setsockopt(s->fd, SOL_SOCKET, SO_LINGER, &now, sizeof(now));
}

/* Speaks HTTP/2 on the accepted connection until the client hangs up, the mode says to, or it
 * has been silent for WAIT_MS. */
static void serve(struct server *s)
{
        const nghttp2_settings_entry settings[] = { { NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS,
                                                      100 } };
        int64_t idle_until = time_monotonic_ms() + WAIT_MS;
        nghttp2_session_callbacks *cb;
        nghttp2_option *opt;
        uint8_t buf[16384];

        if (nghttp2_session_callbacks_new(&cb) != 0 || nghttp2_option_new(&opt) != 0)
                abort();
        nghttp2_session_callbacks_set_on_begin_frame_callback(cb, srv_on_begin_frame);
        nghttp2_session_callbacks_set_on_begin_headers_callback(cb, srv_on_begin_headers);
        nghttp2_session_callbacks_set_on_header_callback(cb, srv_on_header);
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, srv_on_data);
        nghttp2_session_callbacks_set_on_frame_recv_callback(cb, srv_on_frame);
        nghttp2_session_callbacks_set_on_stream_close_callback(cb, srv_on_close);
        if (s->mode == MODE_SILENT)
                nghttp2_option_set_no_auto_ping_ack(opt, 1);
        if (nghttp2_session_server_new2(&s->h2, cb, s, opt) != 0)
                abort();
        nghttp2_session_callbacks_del(cb);
        nghttp2_option_del(opt);
        (void) nghttp2_submit_settings(s->h2, NGHTTP2_FLAG_NONE, settings, N_ELEMS(settings));
        if (s->mode == MODE_GOAWAY) {
                (void) nghttp2_submit_goaway(s->h2, NGHTTP2_FLAG_NONE, 0, NGHTTP2_NO_ERROR, NULL,
                                             0);
                if (srv_flush(s) < 0)
                        return;
                note(s, &s->goaway_sent);
        }
        for (;;) {
                bool piece_due;
                int64_t now, wake;
                ssize_t n;

                if (srv_flush(s) < 0)
                        return;
                if (s->hang_up) {
                        if (s->mode == MODE_ANSWER_RESET)
                                reset_when_delivered(s);
                        return;
                }
                now = time_monotonic_ms();
                piece_due = s->streaming && s->pieces < STREAM_PIECES;
                if (piece_due && now >= s->next_piece) {
                        give_piece(s);
                        continue;
                }
                wake = piece_due && s->next_piece < idle_until ? s->next_piece : idle_until;
                n = srv_read(s, buf, sizeof(buf), wake > now ? (int) (wake - now) : 0);
                if (n < 0)
                        return;
                if (n == 0) {
                        if (time_monotonic_ms() >= idle_until)
                                return;
                        continue;
                }
                idle_until = time_monotonic_ms() + WAIT_MS;
                if (nghttp2_session_mem_recv(s->h2, buf, (size_t) n) < 0)
                        return;
        }
}

/* Accepts one connection and serves it. */
static void *server_main(void *arg)
{
        struct server *s = arg;
        struct pollfd p[2] = { { .fd = s->lfd, .events = POLLIN },
                               { .fd = s->kill_fd, .events = POLLIN } };
        struct timeval tv = { .tv_sec = WAIT_MS / 1000 };

        if (poll(p, 2, WAIT_MS) <= 0 || !p[0].revents)
                return NULL;
        s->fd = accept4(s->lfd, NULL, NULL, SOCK_CLOEXEC);
        if (s->fd < 0)
                return NULL;
        /* the blocking writes and TLS reads give up too, should the test not read */
        (void) setsockopt(s->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        (void) setsockopt(s->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
        if (!s->tls || tls_accept(s) == 0)
                serve(s);
        for (size_t i = 0; i < N_ELEMS(s->streams); i++)
                if (s->streams[i].id)
                        stream_free(s, &s->streams[i]);
        if (s->h2)
                nghttp2_session_del(s->h2);
        s->h2 = NULL;
        if (s->ses)
                gnutls_deinit(s->ses);
        s->ses = NULL;
        close(s->fd);
        s->fd = -1;
        return NULL;
}

/* Starts srv on a loopback port: with TLS when p (its serving certificate; alpn: whether it
 * offers "h2"). */
static void server_start(enum mode mode, const struct pki *p, bool alpn)
{
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        socklen_t len = sizeof(a);

        srv = (struct server){ .mode = mode, .tls = p != NULL, .alpn = alpn, .fd = -1 };
        pthread_mutex_init(&srv.lock, NULL);
        srv.kill_fd = eventfd(0, EFD_CLOEXEC);
        assert_true(srv.kill_fd >= 0);
        srv.lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        assert_true(srv.lfd >= 0);
        assert_int_equal(bind(srv.lfd, (struct sockaddr *) &a, sizeof(a)), 0);
        assert_int_equal(listen(srv.lfd, 4), 0);
        assert_int_equal(getsockname(srv.lfd, (struct sockaddr *) &a, &len), 0);
        snprintf(srv.authority, sizeof(srv.authority), "127.0.0.1:%u", ntohs(a.sin_port));
        srv.url = xasprintf("%s://%s", p ? "https" : "http", srv.authority);
        if (p) {
                gnutls_datum_t cert = { (unsigned char *) pki_server_cert_pem(p),
                                        (unsigned) strlen(pki_server_cert_pem(p)) };
                gnutls_datum_t key = { (unsigned char *) pki_server_key_pem(p),
                                       (unsigned) strlen(pki_server_key_pem(p)) };

                assert_int_equal(gnutls_certificate_allocate_credentials(&srv.cred), 0);
                assert_int_equal(gnutls_certificate_set_x509_key_mem(srv.cred, &cert, &key,
                                                                     GNUTLS_X509_FMT_PEM),
                                 0);
        }
        assert_int_equal(pthread_create(&srv.thread, NULL, server_main, &srv), 0);
        srv.running = true;
}

/* Joins the server thread (once the client is gone it ends) and frees what it held. */
static void server_stop(void)
{
        if (!srv.running)
                return;
        pthread_join(srv.thread, NULL);
        srv.running = false;
        close(srv.lfd);
        close(srv.kill_fd);
        free(srv.url);
        srv.url = NULL;
        if (srv.cred)
                gnutls_certificate_free_credentials(srv.cred);
        srv.cred = NULL;
        pthread_mutex_destroy(&srv.lock);
}

/* Has the server close its connection (abruptly: what the client sent may go unread) now. */
static void server_hang_up(void)
{
        const uint64_t one = 1;

        if (write(srv.kill_fd, &one, sizeof(one)) != sizeof(one))
                abort();
}

/* After a test, and after one that failed half way: the server stops at once. */
static int teardown(void **state)
{
        if (srv.running)
                server_hang_up();
        server_stop();
        return 0;
}

/* ---- the client's side ---- */

static struct h2_conn *connect_ok(const char *url, const struct h2_options *opts)
{
        cleanup_error struct error *err = NULL;
        struct h2_conn *c = NULL;

        if (h2_connect(url, opts, WAIT_MS, &c, &err) < 0)
                fail_msg("h2_connect %s: %s", url, err->message);
        assert_non_null(c);
        return c;
}

/* An echoed call of msg[0..len) on c. */
static void call_echo_n(struct h2_conn *c, const char *msg, size_t len)
{
        cleanup_error struct error *err = NULL;
        struct h2_answer ans;
        struct strbuf req;
        int r;

        strbuf_init(&req);
        framed(&req, msg, len);
        h2_answer_init(&ans);
        r = h2_call(c, ECHO_PATH, req.buf, req.len, 1 << 20, WAIT_MS, &ans, &err);
        if (r < 0)
                fail_msg("h2_call: %s", err->message);
        assert_int_equal(r, 0);
        assert_int_equal(ans.http_status, 200);
        assert_int_equal(ans.status.code, 0);
        assert_false(ans.too_big);
        assert_int_equal(ans.body.len, req.len);
        assert_memory_equal(ans.body.buf, req.buf, req.len);
        h2_answer_release(&ans);
        strbuf_release(&req);
}

static void call_echo(struct h2_conn *c, const char *msg)
{
        call_echo_n(c, msg, strlen(msg));
}

/* An echo call that fails with -errnum, its error saying so. */
static void call_fails(struct h2_conn *c, int errnum)
{
        cleanup_error struct error *err = NULL;
        struct h2_answer ans;

        h2_answer_init(&ans);
        assert_int_equal(h2_call(c, ECHO_PATH, "\0\0\0\0\0", 5, 1 << 20, WAIT_MS, &ans, &err),
                         -errnum);
        assert_non_null(err);
        assert_int_equal(err->errnum, errnum);
        h2_answer_release(&ans);
}

/* Whether h2_usable(c) turns false within WAIT_MS, as what the server sent last arrives. */
static bool becomes_unusable(struct h2_conn *c)
{
        int64_t end = time_monotonic_ms() + WAIT_MS;

        while (h2_usable(c)) {
                if (time_monotonic_ms() >= end)
                        return false;
                usleep(2000);
        }
        return true;
}

/* What a stream's on_data was given. */
struct collected {
        struct strbuf got;
        int calls;
        bool stop; /* answer false */
};

static bool collect(void *ud, const uint8_t *data, size_t len)
{
        struct collected *c = ud;

        c->calls++;
        strbuf_add(&c->got, data, len);
        return !c->stop;
}

/* ---- unary calls ---- */

/* Calls on one connection each get their own answer (the body echoed: the server got it and
 * the path), one of them larger than the server's window, with the user-agent asked for; a path the
 * server does not know is still a whole answer, its status 12. */
static void test_unary(void **state)
{
        const struct h2_options opts = { .user_agent = "flexlet-test/1" };
        cleanup_error struct error *err = NULL;
        char *big;
        struct h2_conn *c;
        struct h2_answer ans;
        struct strbuf req;

        server_start(MODE_ECHO, NULL, false);
        c = connect_ok(srv.url, &opts);
        call_echo(c, "hello");
        call_echo(c, "a second call, with a longer message than the first");
        /* past the server's flow-control window (65535): the rest goes as it opens */
        big = xmalloc(BIG_REQUEST);
        for (size_t i = 0; i < BIG_REQUEST; i++)
                big[i] = (char) (i * 7);
        call_echo_n(c, big, BIG_REQUEST);
        free(big);

        strbuf_init(&req);
        framed(&req, "x", 1);
        h2_answer_init(&ans);
        assert_int_equal(
                h2_call(c, "/test.Echo/Other", req.buf, req.len, 1 << 20, WAIT_MS, &ans, &err), 0);
        assert_int_equal(ans.http_status, 200);
        assert_int_equal(ans.status.code, 12);
        assert_int_equal(ans.body.len, 0);
        assert_true(h2_usable(c));
        h2_answer_release(&ans);
        strbuf_release(&req);
        h2_close(c);
        server_stop();
        assert_int_equal(srv.requests, 4);
        assert_int_equal(srv.bad_requests, 0);
        assert_string_equal(srv.user_agent, "flexlet-test/1");
}

/* grpc-status and a percent-encoded grpc-message in the answer's only HEADERS. */
static void test_trailers_only(void **state)
{
        cleanup_error struct error *err = NULL;
        struct h2_conn *c;
        struct h2_answer ans;

        server_start(MODE_TRAILERS_ONLY, NULL, false);
        c = connect_ok(srv.url, NULL);
        h2_answer_init(&ans);
        assert_int_equal(h2_call(c, ECHO_PATH, "\0\0\0\0\0", 5, 1 << 20, WAIT_MS, &ans, &err), 0);
        assert_null(err);
        assert_int_equal(ans.http_status, 200);
        assert_int_equal(ans.status.code, 14);
        assert_string_equal(ans.status.message, "no leader");
        assert_int_equal(ans.body.len, 0);
        assert_true(h2_usable(c));
        h2_answer_release(&ans);
        h2_close(c);
        server_stop();
        assert_int_equal(srv.requests, 1);
}

/* An answer past max_body: -E2BIG, the stream cancelled, and the connection goes on (the rest
 * of that answer passed over). */
static void test_answer_too_big(void **state)
{
        cleanup_error struct error *err = NULL;
        struct h2_conn *c;
        struct h2_answer ans;

        server_start(MODE_BIG_FIRST, NULL, false);
        c = connect_ok(srv.url, NULL);
        h2_answer_init(&ans);
        assert_int_equal(h2_call(c, ECHO_PATH, "\0\0\0\0\0", 5, MAX_BODY, WAIT_MS, &ans, &err),
                         -E2BIG);
        assert_true(ans.too_big);
        assert_true(ans.body.len <= MAX_BODY);
        assert_non_null(err);
        assert_int_equal(err->errnum, E2BIG);
        h2_answer_release(&ans);

        assert_true(h2_usable(c));
        call_echo(c, "after the big one");
        h2_close(c);
        server_stop();
        assert_int_equal(srv.requests, 2);
}

/* ---- the connection lost ---- */

/* A GOAWAY that came while the connection sat idle: not usable, and a call is -ENOTCONN
 * without anything sent. */
static void test_goaway_before_call(void **state)
{
        struct h2_conn *c;

        server_start(MODE_GOAWAY, NULL, false);
        c = connect_ok(srv.url, NULL);
        assert_true(server_wait(&srv, &srv.goaway_sent, 1));
        assert_true(becomes_unusable(c));

        call_fails(c, ENOTCONN);
        h2_close(c);
        server_stop();
        assert_int_equal(srv.headers_frames, 0);
}

/* A GOAWAY in answer to the call that leaves it out (last stream 0): it went unprocessed,
 * -ENOTCONN, and the connection takes no more calls. */
static void test_goaway_below_call(void **state)
{
        struct h2_conn *c;

        server_start(MODE_GOAWAY_BELOW, NULL, false);
        c = connect_ok(srv.url, NULL);
        call_fails(c, ENOTCONN);
        assert_false(h2_usable(c));
        h2_close(c);
        server_stop();
        assert_int_equal(srv.requests, 1);
}

/* A GOAWAY that still takes the call in (last stream its id): the answer comes whole, then
 * the connection takes no more calls (-ENOTCONN, nothing sent). */
static void test_goaway_after_call(void **state)
{
        struct h2_conn *c;

        server_start(MODE_GOAWAY_ABOVE, NULL, false);
        c = connect_ok(srv.url, NULL);
        call_echo(c, "the last call");
        assert_false(h2_usable(c));
        call_fails(c, ENOTCONN);
        h2_close(c);
        server_stop();
        assert_int_equal(srv.requests, 1);
        assert_int_equal(srv.headers_frames, 1);
}

/* REFUSED_STREAM: the call never reached the server (-ENOTCONN); the connection stays. */
static void test_refused_stream(void **state)
{
        struct h2_conn *c;

        server_start(MODE_REFUSE_FIRST, NULL, false);
        c = connect_ok(srv.url, NULL);
        call_fails(c, ENOTCONN);

        assert_true(h2_usable(c));
        call_echo(c, "after the refused one");
        h2_close(c);
        server_stop();
        assert_int_equal(srv.requests, 2);
}

/* The server read the request and hung up: -ECONNRESET (its outcome unknown), and the
 * connection is done. */
static void test_hang_up_after_request(void **state)
{
        struct h2_conn *c;

        server_start(MODE_CLOSE, NULL, false);
        c = connect_ok(srv.url, NULL);
        call_fails(c, ECONNRESET);
        assert_false(h2_usable(c));
        h2_close(c);
        server_stop();
        assert_int_equal(srv.requests, 1);
}

/* The answer came whole, with a PING, and then the connection was reset, before the client
 * could answer the PING: the call succeeded (0, the answer), the connection is done. */
static void test_answer_then_reset(void **state)
{
        struct h2_conn *c;

        server_start(MODE_ANSWER_RESET, NULL, false);
        c = connect_ok(srv.url, NULL);
        call_echo(c, "answered, then reset");
        assert_true(becomes_unusable(c));
        h2_close(c);
        server_stop();
        assert_int_equal(srv.requests, 1);
}

/* No answer within the call's timeout: -ETIMEDOUT, and the connection is done. */
static void test_call_timeout(void **state)
{
        cleanup_error struct error *err = NULL;
        struct h2_conn *c;
        struct h2_answer ans;

        server_start(MODE_SILENT, NULL, false);
        c = connect_ok(srv.url, NULL);
        h2_answer_init(&ans);
        assert_int_equal(h2_call(c, ECHO_PATH, "\0\0\0\0\0", 5, 1 << 20, 200, &ans, &err),
                         -ETIMEDOUT);
        assert_non_null(err);
        assert_int_equal(err->errnum, ETIMEDOUT);
        assert_false(h2_usable(c));
        h2_answer_release(&ans);
        h2_close(c);
        server_stop();
        assert_int_equal(srv.requests, 1);
}

/* ---- h2_connect ---- */

/* A url that is not http[s]://HOST:PORT is -EINVAL, its error naming it, and no connection;
 * a port nobody listens on is -ECONNREFUSED. */
static void test_connect_errors(void **state)
{
        static const char *const bad[] = {
                "ftp://x:1",       "http://host-without-port",
                "http://h:1/path", "http://h:",
                "https://[::1]",   "localhost:80",
        };
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        socklen_t len = sizeof(a);
        char *url;
        int fd;

        for (size_t i = 0; i < N_ELEMS(bad); i++) {
                cleanup_error struct error *err = NULL;
                struct h2_conn *c = NULL;

                if (h2_connect(bad[i], NULL, WAIT_MS, &c, &err) != -EINVAL)
                        fail_msg("h2_connect %s: not -EINVAL", bad[i]);
                assert_null(c);
                assert_non_null(err);
                assert_int_equal(err->errnum, EINVAL);
                assert_non_null(strstr(err->message, bad[i]));
        }

        /* a port bound, nobody listening on it */
        fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        assert_true(fd >= 0);
        assert_int_equal(bind(fd, (struct sockaddr *) &a, sizeof(a)), 0);
        assert_int_equal(getsockname(fd, (struct sockaddr *) &a, &len), 0);
        url = xasprintf("http://127.0.0.1:%u", ntohs(a.sin_port));
        {
                cleanup_error struct error *err = NULL;
                struct h2_conn *c = NULL;

                assert_int_equal(h2_connect(url, NULL, WAIT_MS, &c, &err), -ECONNREFUSED);
                assert_null(c);
                assert_non_null(err);
                assert_int_equal(err->errnum, ECONNREFUSED);
        }
        free(url);
        close(fd);
}

/* ---- h2_stream ---- */

/* Pieces over time, then the trailers: on_data sees every byte in order, the status is 0. */
static void test_stream_to_end(void **state)
{
        cleanup_error struct error *err = NULL;
        struct collected col = { .calls = 0 };
        struct grpc_status st;
        struct strbuf want;
        struct h2_conn *c;
        int r;

        strbuf_init(&want);
        for (int i = 0; i < STREAM_PIECES; i++)
                stream_piece(i, &want);
        strbuf_init(&col.got);
        server_start(MODE_STREAM, NULL, false);
        c = connect_ok(srv.url, NULL);
        r = h2_stream(c, "/test.Watch/Watch", "\0\0\0\0\0", 5, -1, WAIT_MS, collect, &col, &st,
                      &err);
        if (r < 0)
                fail_msg("h2_stream: %s", err->message);
        assert_int_equal(r, 0);
        assert_int_equal(st.code, 0);
        assert_true(col.calls >= STREAM_PIECES);
        assert_int_equal(col.got.len, want.len);
        assert_memory_equal(col.got.buf, want.buf, want.len);
        h2_close(c);
        server_stop();
        assert_int_equal(srv.requests, 1);
        assert_int_equal(srv.bad_requests, 0);
        strbuf_release(&col.got);
        strbuf_release(&want);
}

/* The same for a stream: it ended whole (0, its status), the connection reset after it. */
static void test_stream_then_reset(void **state)
{
        cleanup_error struct error *err = NULL;
        struct collected col = { .calls = 0 };
        struct grpc_status st;
        struct strbuf req;
        struct h2_conn *c;
        int r;

        strbuf_init(&req);
        framed(&req, "streamed, then reset", 20);
        strbuf_init(&col.got);
        server_start(MODE_ANSWER_RESET, NULL, false);
        c = connect_ok(srv.url, NULL);
        r = h2_stream(c, ECHO_PATH, req.buf, req.len, -1, WAIT_MS, collect, &col, &st, &err);
        if (r < 0)
                fail_msg("h2_stream: %s", err->message);
        assert_int_equal(st.code, 0);
        assert_int_equal(col.got.len, req.len);
        assert_memory_equal(col.got.buf, req.buf, req.len);
        assert_true(becomes_unusable(c));
        h2_close(c);
        server_stop();
        strbuf_release(&col.got);
        strbuf_release(&req);
}

/* Writes the eventfd once the server has had a PING. */
static void *cancel_after_ping(void *arg)
{
        const uint64_t one = 1;

        (void) server_wait(&srv, &srv.pings, 1);
        if (write(*(int *) arg, &one, sizeof(one)) != sizeof(one))
                abort();
        return NULL;
}

/* A stream the server keeps open: a quiet spell brings a PING (answered, so the stream goes
 * on), then cancel_fd ends it: -ECANCELED. */
static void test_stream_cancel_fd(void **state)
{
        cleanup_error struct error *err = NULL;
        struct collected col = { .calls = 0 };
        struct grpc_status st;
        struct strbuf want;
        struct h2_conn *c;
        pthread_t canceller;
        int efd;

        strbuf_init(&want);
        stream_piece(0, &want);
        strbuf_init(&col.got);
        efd = eventfd(0, EFD_CLOEXEC);
        assert_true(efd >= 0);
        server_start(MODE_HOLD, NULL, false);
        c = connect_ok(srv.url, NULL);
        assert_int_equal(pthread_create(&canceller, NULL, cancel_after_ping, &efd), 0);
        assert_int_equal(h2_stream(c, "/test.Watch/Watch", "\0\0\0\0\0", 5, efd, 300, collect, &col,
                                   &st, &err),
                         -ECANCELED);
        assert_non_null(err);
        assert_int_equal(err->errnum, ECANCELED);
        pthread_join(canceller, NULL);
        /* the piece came before the PING, the PING before the cancel */
        assert_int_equal(col.got.len, want.len);
        assert_memory_equal(col.got.buf, want.buf, want.len);
        assert_false(h2_usable(c));
        h2_close(c);
        server_stop();
        assert_true(srv.pings >= 1);
        close(efd);
        strbuf_release(&col.got);
        strbuf_release(&want);
}

/* on_data says stop: -ECANCELED, and on_data is not called again. */
static void test_stream_stopped_by_on_data(void **state)
{
        cleanup_error struct error *err = NULL;
        struct collected col = { .stop = true };
        struct grpc_status st;
        struct h2_conn *c;

        strbuf_init(&col.got);
        server_start(MODE_HOLD, NULL, false);
        c = connect_ok(srv.url, NULL);
        assert_int_equal(h2_stream(c, "/test.Watch/Watch", "\0\0\0\0\0", 5, -1, WAIT_MS, collect,
                                   &col, &st, &err),
                         -ECANCELED);
        assert_non_null(err);
        assert_int_equal(err->errnum, ECANCELED);
        assert_int_equal(col.calls, 1);
        assert_false(h2_usable(c));
        h2_close(c);
        server_stop();
        strbuf_release(&col.got);
}

/* A server that answers neither the call nor the PING of a quiet spell: -ETIMEDOUT. */
static void test_stream_dead_server(void **state)
{
        cleanup_error struct error *err = NULL;
        struct collected col = { .calls = 0 };
        struct grpc_status st;
        struct h2_conn *c;

        strbuf_init(&col.got);
        server_start(MODE_SILENT, NULL, false);
        c = connect_ok(srv.url, NULL);
        assert_int_equal(h2_stream(c, "/test.Watch/Watch", "\0\0\0\0\0", 5, -1, 100, collect, &col,
                                   &st, &err),
                         -ETIMEDOUT);
        assert_non_null(err);
        assert_int_equal(err->errnum, ETIMEDOUT);
        assert_int_equal(col.calls, 0);
        assert_false(h2_usable(c));
        h2_close(c);
        server_stop();
        assert_true(srv.pings >= 1);
        strbuf_release(&col.got);
}

/* ---- TLS ---- */

/* Two CAs, each with a serving certificate for 127.0.0.1, made once for the TLS tests. */
static struct {
        char root[64];
        struct pki *p, *other;
        char *ca, *other_ca;
} certs;

static struct pki *make_pki(const char *dir)
{
        static const char *const ips[] = { "127.0.0.1", NULL };
        struct pki_options o = { .data_dir = dir,
                                 .ip_addresses = ips,
                                 .server_url = "https://127.0.0.1:1" };
        cleanup_error struct error *err = NULL;
        struct pki *p = NULL;

        if (pki_ensure(&o, &p, &err) < 0) {
                fprintf(stderr, "pki_ensure: %s\n", err->message);
                return NULL;
        }
        return p;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
        return remove(path);
}

static int group_setup(void **state)
{
        cleanup_free char *a = NULL, *b = NULL;

        snprintf(certs.root, sizeof(certs.root), "/tmp/flexlet-test-h2-XXXXXX");
        if (!mkdtemp(certs.root))
                return -1;
        a = xasprintf("%s/a", certs.root);
        b = xasprintf("%s/b", certs.root);
        certs.p = make_pki(a);
        certs.other = make_pki(b);
        certs.ca = xasprintf("%s/pki/ca.crt", a);
        certs.other_ca = xasprintf("%s/pki/ca.crt", b);
        return certs.p && certs.other ? 0 : -1;
}

static int group_teardown(void **state)
{
        pki_free(certs.p);
        pki_free(certs.other);
        free(certs.ca);
        free(certs.other_ca);
        (void) nftw(certs.root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        return 0;
}

/* https with the CA that signed the server's certificate: calls go through. */
static void test_tls(void **state)
{
        struct h2_options opts = { .ca_file = certs.ca };
        struct h2_conn *c;

        server_start(MODE_ECHO, certs.p, true);
        c = connect_ok(srv.url, &opts);
        call_echo(c, "over TLS");
        call_echo(c, "over TLS again");
        h2_close(c);
        server_stop();
        assert_int_equal(srv.handshakes, 1);
        assert_int_equal(srv.requests, 2);
        assert_int_equal(srv.bad_requests, 0);
        assert_string_equal(srv.user_agent, "");
}

/* The server hung up after the answer, and the client did not notice before closing: its
 * GOAWAY and TLS close_notify, written to a socket the peer has closed, cost the process no
 * SIGPIPE. */
static void test_tls_close_after_hang_up(void **state)
{
        struct h2_options opts = { .ca_file = certs.ca };
        struct h2_conn *c;

        server_start(MODE_ECHO, certs.p, true);
        c = connect_ok(srv.url, &opts);
        call_echo(c, "the last one");
        server_hang_up();
        server_stop();
        h2_close(c);
        assert_int_equal(srv.requests, 1);
}

/* A certificate another CA signed: -EPROTO, no session. */
static void test_tls_other_ca(void **state)
{
        cleanup_error struct error *err = NULL;
        struct h2_options opts = { .ca_file = certs.other_ca };
        struct h2_conn *c = NULL;

        server_start(MODE_ECHO, certs.p, true);
        assert_int_equal(h2_connect(srv.url, &opts, WAIT_MS, &c, &err), -EPROTO);
        assert_null(c);
        assert_non_null(err);
        assert_int_equal(err->errnum, EPROTO);
        server_stop();
        assert_int_equal(srv.handshakes, 0);
        assert_int_equal(srv.requests, 0);
}

/* A TLS server that does not offer "h2" by ALPN: -EPROTO. */
static void test_tls_no_alpn(void **state)
{
        cleanup_error struct error *err = NULL;
        struct h2_options opts = { .ca_file = certs.ca };
        struct h2_conn *c = NULL;

        server_start(MODE_ECHO, certs.p, false);
        assert_int_equal(h2_connect(srv.url, &opts, WAIT_MS, &c, &err), -EPROTO);
        assert_null(c);
        assert_non_null(err);
        assert_int_equal(err->errnum, EPROTO);
        server_stop();
        assert_int_equal(srv.requests, 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(test_unary, teardown),
                cmocka_unit_test_teardown(test_trailers_only, teardown),
                cmocka_unit_test_teardown(test_answer_too_big, teardown),
                cmocka_unit_test_teardown(test_goaway_before_call, teardown),
                cmocka_unit_test_teardown(test_goaway_below_call, teardown),
                cmocka_unit_test_teardown(test_goaway_after_call, teardown),
                cmocka_unit_test_teardown(test_refused_stream, teardown),
                cmocka_unit_test_teardown(test_hang_up_after_request, teardown),
                cmocka_unit_test_teardown(test_answer_then_reset, teardown),
                cmocka_unit_test_teardown(test_call_timeout, teardown),
                cmocka_unit_test(test_connect_errors),
                cmocka_unit_test_teardown(test_stream_to_end, teardown),
                cmocka_unit_test_teardown(test_stream_then_reset, teardown),
                cmocka_unit_test_teardown(test_stream_cancel_fd, teardown),
                cmocka_unit_test_teardown(test_stream_stopped_by_on_data, teardown),
                cmocka_unit_test_teardown(test_stream_dead_server, teardown),
                cmocka_unit_test_teardown(test_tls, teardown),
                cmocka_unit_test_teardown(test_tls_close_after_hang_up, teardown),
                cmocka_unit_test_teardown(test_tls_other_ca, teardown),
                cmocka_unit_test_teardown(test_tls_no_alpn, teardown),
        };

        return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
