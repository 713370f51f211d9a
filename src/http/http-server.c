/* http-server.c: the HTTP layer, the only file that includes libmicrohttpd. It collects a
 * request (headers, query, body up to the cap), hands it to the handler and writes the
 * response back, streaming it when the handler returned a stream. What a request means is
 * the handler's business. It also keeps the server from being exhausted: the connection limits,
 * the handshake, head and idle deadlines (a sweeper thread), and the parking of quiet streams off
 * the worker pool (the same thread wakes them). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/timeutil.h"
#include "base/utf8.h"
#include "http/http-server.h"

#define STREAM_BLOCK_SIZE (16 * 1024)
/* The sweeper's period: deadlines are enforced within this of their time. */
#define SWEEP_MS 200
/* A parked stream is read again after this even if its wake descriptor stays quiet. */
#define STREAM_REPOLL_MS 1000
#define STREAM_POLL_MS   100 /* a stream without a wake descriptor */

/* Where a connection is in its life, for the deadlines. */
enum conn_phase {
        PHASE_HANDSHAKE, /* TLS handshake under way: tls_handshake deadline */
        PHASE_HEAD,      /* request head arriving: request_head deadline */
        PHASE_BUSY,      /* head complete: body, handler, response, stream */
        PHASE_IDLE,      /* keep-alive between requests: idle + request_head deadline */
        PHASE_CLOSING,   /* shut down by the sweeper, waiting for the library to close it */
};

/* One accepted connection (the library's socket context). Under h->lock. */
struct conn_state {
        struct http_server *h;
        struct MHD_Connection *conn;
        int fd;
        enum conn_phase phase;
        int64_t since_ms; /* when the phase began */
        struct conn_state *prev, *next;
        /* Parked on a quiet stream: the connection is suspended, its wake descriptor and
         * socket are in h->epfd. */
        bool parked;
        int wake_fd; /* -1: none */
        int64_t parked_ms;
        int64_t repoll_ms;
        /* The client certificate last verified on this connection (DER) and when it expires:
         * a request presenting the same bytes before then is not verified again. */
        unsigned char *client_der;
        size_t client_der_len;
        time_t client_not_after;
};

struct http_server {
        struct MHD_Daemon *daemon;
        http_handler_fn handler;
        void *ud;
        size_t max_body;
        char *cert_pem;
        char *key_pem;
        char *client_ca_pem;
        gnutls_x509_trust_list_t client_trust; /* NULL: client certificates are not asked for */
        int64_t handshake_ms, head_ms, idle_ms;
        pthread_mutex_t lock;
        struct conn_state *conns;
        bool stopping;
        int epfd;    /* parked streams' wake descriptors and sockets, and stop_fd */
        int stop_fd; /* eventfd: tells the sweeper to end */
        pthread_t sweeper;
        bool sweeper_running;
        /* upgraded connections whose run() has not returned (http_upgrade), under lock */
        struct upgrade_ctx *upgrades;
        pthread_cond_t upgrades_cond; /* signalled when one ends */
};

/* One upgraded connection, from its 101 to the end of its run(). The library's own upgrade
 * support (MHD_create_response_for_upgrade) relays a TLS connection through buffers carved from
 * what is left of the connection's memory pool, which in libmicrohttpd 0.9.75 is nothing: its
 * 8-byte emergency buffer moved 20 MiB in minutes, 4 bytes a TLS record. So the server takes the
 * connection over instead: it suspends it (the library leaves a suspended connection alone),
 * writes the 101 itself and relays between the TLS session and a local socket pair in 16 KiB
 * records on a thread of its own; once the session ends, it resumes the connection, which the
 * handler then closes. */
struct upgrade_ctx {
        struct http_server *h;
        struct http_upgrade up;
        struct MHD_Connection *conn;
        int fd;               /* the client's socket */
        gnutls_session_t tls; /* NULL: plain HTTP */
        struct strbuf head;   /* the 101's head */
        int app[2];           /* TLS: the socket pair; app[0] is run()'s */
        struct upgrade_ctx *prev, *next;
};

struct request_ctx {
        bool upgraded; /* handed over (upgrade_start): the next call ends the connection */
        struct strbuf body;
        bool too_large;
        struct http_pending pending; /* the handler's answer still to come */
};

/* Every query parameter of a request: none is dropped, so none can be silently ignored (a
 * dryRun=All past a fixed cap once made a real create). Their number is bounded by the request
 * line, which the HTTP library caps. */
struct query_collect {
        struct http_query_param *params;
        size_t n, alloc;
        const char *malformed;
};

/* A stream being sent. */
struct stream_ctx {
        struct http_stream st;
        struct http_server *h;
        struct MHD_Connection *conn;
        struct conn_state *cs;
        int client_fd;
};

static struct conn_state *conn_state_of(struct MHD_Connection *conn)
{
        const union MHD_ConnectionInfo *ci =
                MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

        return ci ? ci->socket_context : NULL;
}

/* Moves a connection to another phase (NULL-safe: a connection the server never saw start). */
static void conn_enter(struct http_server *h, struct conn_state *cs, enum conn_phase phase)
{
        if (!cs)
                return;
        pthread_mutex_lock(&h->lock);
        if (cs->phase != PHASE_CLOSING) {
                cs->phase = phase;
                cs->since_ms = time_monotonic_ms();
        }
        pthread_mutex_unlock(&h->lock);
}

static enum MHD_Result collect_query(void *cls, enum MHD_ValueKind kind, const char *key,
                                     size_t key_size, const char *value, size_t value_size)
{
        struct query_collect *q = cls;

        if (!value)
                value = "";
        if (!q->malformed && (!utf8_valid(key, key_size) || !utf8_valid(value, value_size)))
                q->malformed = "a query parameter is not valid UTF-8";
        if (q->n == q->alloc) {
                q->alloc = q->alloc ? 2 * q->alloc : 16;
                q->params = xrealloc(q->params, q->alloc * sizeof(*q->params));
        }
        q->params[q->n].key = key;
        q->params[q->n].value = value;
        q->n++;
        return MHD_YES;
}

struct header_collect {
        struct http_header *headers;
        size_t n, alloc;
};

/* Gathers the Impersonate-* headers (http.h). */
static enum MHD_Result collect_impersonate(void *cls, enum MHD_ValueKind kind, const char *key,
                                           size_t key_size, const char *value, size_t value_size)
{
        struct header_collect *c = cls;
        size_t plen = strlen(HTTP_IMPERSONATE_PREFIX);

        if (key_size < plen || strncasecmp(key, HTTP_IMPERSONATE_PREFIX, plen) != 0)
                return MHD_YES;
        if (c->n == c->alloc) {
                c->alloc = c->alloc ? 2 * c->alloc : 8;
                c->headers = xrealloc(c->headers, c->alloc * sizeof(*c->headers));
        }
        c->headers[c->n].name = key;
        c->headers[c->n].value = value ? value : "";
        c->n++;
        return MHD_YES;
}

/* The HTTP library's unescape step, for the path and each query key and value. */
static size_t unescape(void *cls, struct MHD_Connection *conn, char *s)
{
        return http_unescape(s);
}

/* True when the peer closed its side or the socket failed. A peer that only sent more data
 * (a pipelined request) is not a hang-up. */
static bool client_gone(int fd)
{
        struct pollfd p = { .fd = fd, .events = POLLRDHUP };

        if (fd < 0)
                return false;
        return poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL));
}

/* Called with h->lock held, on a suspended connection: watch for its wake-up (wake_fd(ctx), when
 * given, becoming readable). */
static void conn_park(struct http_server *h, struct conn_state *cs, int (*wake_fd)(void *ctx),
                      void *ctx)
{
        struct epoll_event ev = { .events = EPOLLIN, .data.ptr = cs };
        int64_t now = time_monotonic_ms();

        cs->parked = true;
        cs->parked_ms = now;
        cs->wake_fd = wake_fd ? wake_fd(ctx) : -1;
        cs->repoll_ms = cs->wake_fd >= 0 ? STREAM_REPOLL_MS : STREAM_POLL_MS;
        if (cs->wake_fd >= 0 && epoll_ctl(h->epfd, EPOLL_CTL_ADD, cs->wake_fd, &ev) < 0) {
                cs->wake_fd = -1;
                cs->repoll_ms = STREAM_POLL_MS;
        }
        /* The library does not watch a suspended connection's socket: notice a hang-up here
         * (only a hang-up: a pipelined request waits its turn). */
        ev.events = EPOLLRDHUP;
        (void) epoll_ctl(h->epfd, EPOLL_CTL_ADD, cs->fd, &ev);
}

/* Called with h->lock held: hands a parked connection back to the pool. */
static void conn_unpark(struct http_server *h, struct conn_state *cs)
{
        if (!cs->parked)
                return;
        if (cs->wake_fd >= 0)
                (void) epoll_ctl(h->epfd, EPOLL_CTL_DEL, cs->wake_fd, NULL);
        (void) epoll_ctl(h->epfd, EPOLL_CTL_DEL, cs->fd, NULL);
        cs->parked = false;
        cs->wake_fd = -1;
        MHD_resume_connection(cs->conn);
}

static ssize_t stream_reader(void *cls, uint64_t pos, char *buf, size_t max)
{
        struct stream_ctx *sc = cls;
        struct http_server *h = sc->h;
        ssize_t n;

        /* A stream with nothing to say sends no bytes, so a write would never fail; look at
         * the socket instead, or a follow of a quiet log would hold its producer forever. */
        if (client_gone(sc->client_fd))
                return MHD_CONTENT_READER_END_WITH_ERROR;
        n = sc->st.read(sc->st.ctx, buf, max);
        if (n != 0)
                return n < 0 ? MHD_CONTENT_READER_END_OF_STREAM : n;
        if (!sc->cs)
                return 0; /* cannot happen: every connection has its state */
        /* Nothing yet: off the pool until the stream or the client wakes it (the library asks
         * for exactly this: a reader returning 0 suspends its connection). The wake descriptor
         * is level-triggered, so a wake-up between read() and here is not lost. */
        pthread_mutex_lock(&h->lock);
        if (h->stopping) {
                /* cut, not ended: a follow must not look as if its log had ended, and a
                 * watcher re-watches either way */
                pthread_mutex_unlock(&h->lock);
                return MHD_CONTENT_READER_END_WITH_ERROR;
        }
        MHD_suspend_connection(sc->conn);
        conn_park(h, sc->cs, sc->st.wake_fd, sc->st.ctx);
        pthread_mutex_unlock(&h->lock);
        return 0;
}

static void stream_free(void *cls)
{
        struct stream_ctx *sc = cls;

        sc->st.free(sc->st.ctx);
        free(sc);
}

/* Called with h->lock held. Ends a connection that missed a deadline: shutting its socket down
 * makes the library see the end and close it (the socket stays open until the library's
 * close notification, which takes h->lock, so this never reaches another connection's fd). */
static void conn_cut(struct conn_state *cs)
{
        (void) shutdown(cs->fd, SHUT_RDWR);
        cs->phase = PHASE_CLOSING;
}

/* Called with h->lock held: enforces the deadlines and re-reads parked streams. */
static void sweep(struct http_server *h, int64_t now)
{
        for (struct conn_state *cs = h->conns; cs; cs = cs->next) {
                int64_t age = now - cs->since_ms;

                if (cs->parked) {
                        if (now - cs->parked_ms >= cs->repoll_ms)
                                conn_unpark(h, cs);
                        continue;
                }
                switch (cs->phase) {
                case PHASE_HANDSHAKE:
                        if (age >= h->handshake_ms)
                                conn_cut(cs);
                        break;
                case PHASE_HEAD:
                        if (age >= h->head_ms)
                                conn_cut(cs);
                        break;
                case PHASE_IDLE:
                        /* The first byte of the next request is not seen from here: a keep-alive
                         * connection has the idle timeout, then the head timeout. */
                        if (age >= h->idle_ms + h->head_ms)
                                conn_cut(cs);
                        break;
                case PHASE_BUSY:
                case PHASE_CLOSING:
                        break;
                }
        }
}

static void *sweeper_main(void *arg)
{
        struct http_server *h = arg;
        int64_t last_sweep = 0;

        (void) pthread_setname_np(pthread_self(), "http-sweeper");
        for (;;) {
                struct epoll_event evs[64];
                int n = epoll_wait(h->epfd, evs, (int) ARRAY_SIZE(evs), SWEEP_MS);
                int64_t now;

                pthread_mutex_lock(&h->lock);
                if (h->stopping) {
                        pthread_mutex_unlock(&h->lock);
                        return NULL;
                }
                /* Every event's connection is still parked or was just unparked in this batch:
                 * only this thread unparks (or stop, which ends it), and a connection is freed
                 * only after it was unparked and closed, which needs h->lock. */
                for (int i = 0; i < n; i++)
                        if (evs[i].data.ptr)
                                conn_unpark(h, evs[i].data.ptr);
                now = time_monotonic_ms();
                if (now - last_sweep >= SWEEP_MS) {
                        sweep(h, now);
                        last_sweep = now;
                }
                pthread_mutex_unlock(&h->lock);
        }
}

/* GnuTLS calls this after each handshake message; the client's Finished ends the handshake,
 * and the request head's deadline starts. */
static int handshake_hook(gnutls_session_t session, unsigned int htype, unsigned when,
                          unsigned int incoming, const gnutls_datum_t *msg)
{
        struct MHD_Connection *conn = gnutls_session_get_ptr(session);
        struct conn_state *cs = conn && incoming ? conn_state_of(conn) : NULL;

        (void) htype;
        (void) when;
        (void) msg;
        if (cs) {
                pthread_mutex_lock(&cs->h->lock);
                if (cs->phase == PHASE_HANDSHAKE) {
                        cs->phase = PHASE_HEAD;
                        cs->since_ms = time_monotonic_ms();
                }
                pthread_mutex_unlock(&cs->h->lock);
        }
        return 0;
}

/* The library's connection notifications: every accepted connection gets its state and its
 * deadlines. */
static void notify_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
                              enum MHD_ConnectionNotificationCode toe)
{
        struct http_server *h = cls;
        struct conn_state *cs = *socket_context;

        if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
                const union MHD_ConnectionInfo *fd =
                        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
                const union MHD_ConnectionInfo *tls =
                        h->cert_pem
                                ? MHD_get_connection_info(conn, MHD_CONNECTION_INFO_GNUTLS_SESSION)
                                : NULL;

                cs = xcalloc(1, sizeof(*cs));
                cs->h = h;
                cs->conn = conn;
                cs->fd = fd ? fd->connect_fd : -1;
                cs->wake_fd = -1;
                cs->phase = tls && tls->tls_session ? PHASE_HANDSHAKE : PHASE_HEAD;
                cs->since_ms = time_monotonic_ms();
                if (tls && tls->tls_session)
                        gnutls_handshake_set_hook_function(tls->tls_session,
                                                           GNUTLS_HANDSHAKE_FINISHED,
                                                           GNUTLS_HOOK_POST, handshake_hook);
                pthread_mutex_lock(&h->lock);
                cs->next = h->conns;
                if (cs->next)
                        cs->next->prev = cs;
                h->conns = cs;
                pthread_mutex_unlock(&h->lock);
                *socket_context = cs;
                return;
        }
        if (!cs)
                return;
        pthread_mutex_lock(&h->lock);
        if (cs->parked) {
                /* not expected: the library closes a connection only once resumed */
                if (cs->wake_fd >= 0)
                        (void) epoll_ctl(h->epfd, EPOLL_CTL_DEL, cs->wake_fd, NULL);
                (void) epoll_ctl(h->epfd, EPOLL_CTL_DEL, cs->fd, NULL);
        }
        if (cs->prev)
                cs->prev->next = cs->next;
        else
                h->conns = cs->next;
        if (cs->next)
                cs->next->prev = cs->prev;
        pthread_mutex_unlock(&h->lock);
        free(cs->client_der);
        free(cs);
        *socket_context = NULL;
}

/* One Warning header per recorded warning (http_warning_headers: escaping and truncation). */
static void add_warnings(struct MHD_Response *mr, const struct strbuf *warnings)
{
        struct strbuf values;

        strbuf_init(&values);
        (void) http_warning_headers(warnings, &values);
        for (char *line = values.buf, *nl; (nl = strchr(line, '\n')); line = nl + 1) {
                *nl = '\0';
                (void) MHD_add_response_header(mr, "Warning", line);
        }
        strbuf_release(&values);
}

/* Adds the response's own header lines ("Name: value\n" each). */
static void add_headers(struct MHD_Response *mr, const struct strbuf *headers)
{
        cleanup_free char *copy = xstrndup(headers->buf ? headers->buf : "", headers->len);

        for (char *line = copy, *nl; (nl = strchr(line, '\n')); line = nl + 1) {
                char *colon = strchr(line, ':');

                *nl = '\0';
                if (!colon)
                        continue;
                *colon = '\0';
                (void) MHD_add_response_header(mr, line, colon[1] == ' ' ? colon + 2 : colon + 1);
        }
}

/* Waits until fd is ready for events (POLLIN or POLLOUT). false when the connection failed. */
static bool wait_fd(int fd, short events)
{
        struct pollfd p = { .fd = fd, .events = events };

        for (;;) {
                int n = poll(&p, 1, -1);
                if (n < 0 && errno == EINTR)
                        continue;
                return n > 0 && !(p.revents & (POLLERR | POLLNVAL));
        }
}

/* Writes all n bytes to the client, through TLS or not; false when the connection failed. */
static bool client_send(struct upgrade_ctx *u, const char *buf, size_t n)
{
        while (n) {
                ssize_t w = u->tls ? gnutls_record_send(u->tls, buf, n)
                                   : send(u->fd, buf, n, MSG_NOSIGNAL);

                if (u->tls && (w == GNUTLS_E_AGAIN || w == GNUTLS_E_INTERRUPTED)) {
                        if (!wait_fd(u->fd, POLLOUT))
                                return false;
                        continue;
                }
                if (!u->tls && w < 0 && (errno == EAGAIN || errno == EINTR)) {
                        if (!wait_fd(u->fd, POLLOUT))
                                return false;
                        continue;
                }
                if (w <= 0)
                        return false;
                buf += w;
                n -= (size_t) w;
        }
        return true;
}

static void *upgrade_run_main(void *arg)
{
        struct upgrade_ctx *u = arg;

        u->up.run(u->up.ctx, u->app[0], NULL, 0);
        /* the end of the session: the relay sees the socket pair close */
        (void) shutdown(u->app[0], SHUT_RDWR);
        return NULL;
}

/* TLS: relays between the client's TLS session and the socket pair until either ends. */
static void upgrade_relay(struct upgrade_ctx *u)
{
        char buf[16384];

        for (;;) {
                struct pollfd p[2] = { { .fd = u->fd, .events = POLLIN },
                                       { .fd = u->app[1], .events = POLLIN } };
                ssize_t n;

                /* decrypted bytes the socket no longer shows first */
                if (gnutls_record_check_pending(u->tls) == 0 && poll(p, 2, -1) < 0) {
                        if (errno == EINTR)
                                continue;
                        return;
                }
                if (gnutls_record_check_pending(u->tls) > 0 || p[0].revents) {
                        n = gnutls_record_recv(u->tls, buf, sizeof(buf));
                        if (n == GNUTLS_E_AGAIN || n == GNUTLS_E_INTERRUPTED)
                                continue;
                        if (n <= 0)
                                return;
                        for (ssize_t off = 0; off < n;) {
                                ssize_t w = send(u->app[1], buf + off, (size_t) (n - off),
                                                 MSG_NOSIGNAL);
                                if (w < 0 && errno == EINTR)
                                        continue;
                                if (w <= 0)
                                        return;
                                off += w;
                        }
                }
                if (p[1].revents) {
                        n = recv(u->app[1], buf, sizeof(buf), 0);
                        if (n < 0 && errno == EINTR)
                                continue;
                        if (n <= 0 || !client_send(u, buf, (size_t) n))
                                return;
                }
        }
}

static void *upgrade_main(void *arg)
{
        struct upgrade_ctx *u = arg;
        struct http_server *h = u->h;

        (void) pthread_setname_np(pthread_self(), "http-upgrade");
        if (client_send(u, u->head.buf, u->head.len)) {
                if (!u->tls) {
                        int fl = fcntl(u->fd, F_GETFL);

                        /* run() reads and writes blocking */
                        if (fl >= 0)
                                (void) fcntl(u->fd, F_SETFL, fl & ~O_NONBLOCK);
                        u->up.run(u->up.ctx, u->fd, NULL, 0);
                } else if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, u->app) == 0) {
                        pthread_t t;

                        if (pthread_create(&t, NULL, upgrade_run_main, u) == 0) {
                                upgrade_relay(u);
                                /* run() sees the end and returns */
                                (void) shutdown(u->app[1], SHUT_RDWR);
                                (void) pthread_join(t, NULL);
                        }
                        close(u->app[0]);
                        close(u->app[1]);
                }
        }
        if (u->up.free)
                u->up.free(u->up.ctx);
        strbuf_release(&u->head);
        /* the handler, called again once resumed, ends the connection */
        (void) shutdown(u->fd, SHUT_RDWR);
        pthread_mutex_lock(&h->lock);
        if (u->prev)
                u->prev->next = u->next;
        else
                h->upgrades = u->next;
        if (u->next)
                u->next->prev = u->prev;
        MHD_resume_connection(u->conn);
        pthread_cond_broadcast(&h->upgrades_cond);
        pthread_mutex_unlock(&h->lock);
        free(u);
        return NULL;
}

/* Hands the connection over to resp->upgrade (see struct upgrade_ctx): MHD_YES once the session
 * thread runs, MHD_NO (the connection is closed) when it cannot. */
static enum MHD_Result upgrade_start(struct http_server *h, struct MHD_Connection *conn,
                                     struct request_ctx *ctx, struct http_response *resp)
{
        const union MHD_ConnectionInfo *fd =
                MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
        const union MHD_ConnectionInfo *tls =
                h->cert_pem ? MHD_get_connection_info(conn, MHD_CONNECTION_INFO_GNUTLS_SESSION)
                            : NULL;
        struct upgrade_ctx *u;
        pthread_attr_t attr;
        pthread_t t;
        int r;

        if (!fd || (h->cert_pem && (!tls || !tls->tls_session)))
                return MHD_NO;
        u = xcalloc(1, sizeof(*u));
        u->h = h;
        u->conn = conn;
        u->fd = fd->connect_fd;
        u->tls = h->cert_pem ? tls->tls_session : NULL;
        u->app[0] = u->app[1] = -1;
        u->up = resp->upgrade;
        resp->upgrade = (struct http_upgrade){ 0 };
        strbuf_init(&u->head);
        strbuf_addstr(&u->head, "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\n");
        for (const char *l = resp->headers.buf, *nl; l && (nl = strchr(l, '\n')); l = nl + 1) {
                strbuf_add(&u->head, l, (size_t) (nl - l));
                strbuf_addstr(&u->head, "\r\n");
        }
        if (resp->audit_id)
                strbuf_addf(&u->head, "Audit-Id: %s\r\n", resp->audit_id);
        strbuf_addstr(&u->head, "\r\n");
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        pthread_mutex_lock(&h->lock);
        r = h->stopping ? -1 : 0;
        if (r == 0) {
                ctx->upgraded = true;
                MHD_suspend_connection(conn);
                u->next = h->upgrades;
                if (u->next)
                        u->next->prev = u;
                h->upgrades = u;
                r = pthread_create(&t, &attr, upgrade_main, u);
                if (r != 0) {
                        h->upgrades = u->next;
                        if (u->next)
                                u->next->prev = NULL;
                        MHD_resume_connection(conn);
                }
        }
        pthread_mutex_unlock(&h->lock);
        pthread_attr_destroy(&attr);
        if (r != 0) {
                if (u->up.free)
                        u->up.free(u->up.ctx);
                strbuf_release(&u->head);
                free(u);
                return MHD_NO;
        }
        return MHD_YES;
}

static enum MHD_Result send_response(struct http_server *h, struct MHD_Connection *conn,
                                     struct request_ctx *ctx, struct http_response *resp)
{
        struct MHD_Response *mr;
        enum MHD_Result ret;

        if (resp->upgrade.run)
                return upgrade_start(h, conn, ctx, resp);
        if (resp->stream.read) {
                const union MHD_ConnectionInfo *ci =
                        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
                struct stream_ctx *sc = xmalloc(sizeof(*sc));

                sc->st = resp->stream;
                sc->h = h;
                sc->conn = conn;
                sc->cs = conn_state_of(conn);
                sc->client_fd = ci ? ci->connect_fd : -1;
                resp->stream = (struct http_stream){ 0 };
                mr = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, STREAM_BLOCK_SIZE,
                                                       stream_reader, sc, stream_free);
                if (!mr) {
                        stream_free(sc);
                        return MHD_NO;
                }
        } else {
                size_t len = resp->body.len;
                char *body = strbuf_detach(&resp->body);
                strbuf_init(&resp->body);
                mr = MHD_create_response_from_buffer_with_free_callback(len, body, free);
                if (!mr) {
                        free(body);
                        return MHD_NO;
                }
        }
        (void) MHD_add_response_header(mr, "Content-Type", resp->content_type);
        (void) MHD_add_response_header(mr, "Cache-Control", "no-cache, private");
        add_warnings(mr, &resp->warnings);
        add_headers(mr, &resp->headers);
        if (resp->etag)
                (void) MHD_add_response_header(mr, "ETag", resp->etag);
        if (resp->audit_id)
                (void) MHD_add_response_header(mr, "Audit-Id", resp->audit_id);
        if (resp->retry_after_s) {
                char v[16];

                (void) snprintf(v, sizeof(v), "%u", resp->retry_after_s);
                (void) MHD_add_response_header(mr, "Retry-After", v);
        }
        ret = MHD_queue_response(conn, resp->status ? resp->status : 500, mr);
        MHD_destroy_response(mr);
        return ret;
}

static void pending_free(struct request_ctx *ctx)
{
        if (ctx->pending.free)
                ctx->pending.free(ctx->pending.ctx);
        ctx->pending = (struct http_pending){ 0 };
}

/* A response the handler left pending: sent when ready, else the connection is parked until the
 * pending's wake descriptor fires (the library calls the handler again once resumed). */
static enum MHD_Result serve_pending(struct http_server *h, struct MHD_Connection *conn,
                                     struct request_ctx *ctx)
{
        const union MHD_ConnectionInfo *ci =
                MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
        struct conn_state *cs = conn_state_of(conn);
        struct http_response resp;
        enum MHD_Result ret;

        if (client_gone(ci ? ci->connect_fd : -1)) {
                pending_free(ctx);
                return MHD_NO;
        }
        http_response_init(&resp);
        if (ctx->pending.poll(ctx->pending.ctx, &resp)) {
                pending_free(ctx);
                ret = send_response(h, conn, ctx, &resp);
                http_response_release(&resp);
                return ret;
        }
        http_response_release(&resp);
        pthread_mutex_lock(&h->lock);
        if (h->stopping || !cs) {
                pthread_mutex_unlock(&h->lock);
                pending_free(ctx);
                return MHD_NO;
        }
        MHD_suspend_connection(conn);
        conn_park(h, cs, ctx->pending.wake_fd, ctx->pending.ctx);
        pthread_mutex_unlock(&h->lock);
        return MHD_YES;
}

/* Chains longer than this are not verified (Go's verifier has no bound; a client CA signs the
 * leaf directly or through a few intermediates). */
#define MAX_CLIENT_CHAIN 8

/* The client certificate of conn's TLS session when it is valid under the client CA for client
 * authentication (signature chain, validity period, extended key usage), else NULL. */
static const unsigned char *client_cert(struct http_server *h, struct MHD_Connection *conn,
                                        size_t *ret_len)
{
        struct conn_state *cs = conn_state_of(conn);
        const union MHD_ConnectionInfo *tls;
        const gnutls_datum_t *peers;
        gnutls_x509_crt_t chain[MAX_CLIENT_CHAIN];
        gnutls_typed_vdata_st purpose = { .type = GNUTLS_DT_KEY_PURPOSE_OID,
                                          .data = (unsigned char *) GNUTLS_KP_TLS_WWW_CLIENT };
        unsigned n = 0, imported = 0, status = 1;
        int gr = -1;

        if (!h->client_trust || !cs)
                return NULL;
        tls = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_GNUTLS_SESSION);
        peers = tls && tls->tls_session ? gnutls_certificate_get_peers(tls->tls_session, &n) : NULL;
        if (!peers || n == 0 || n > MAX_CLIENT_CHAIN)
                return NULL;
        if (cs->client_der && cs->client_der_len == peers[0].size &&
            memcmp(cs->client_der, peers[0].data, peers[0].size) == 0 &&
            time(NULL) < cs->client_not_after) {
                *ret_len = cs->client_der_len;
                return cs->client_der;
        }
        for (; imported < n; imported++) {
                if (gnutls_x509_crt_init(&chain[imported]) < 0)
                        break;
                if (gnutls_x509_crt_import(chain[imported], &peers[imported], GNUTLS_X509_FMT_DER) <
                    0) {
                        gnutls_x509_crt_deinit(chain[imported]);
                        break;
                }
        }
        if (imported == n)
                gr = gnutls_x509_trust_list_verify_crt2(h->client_trust, chain, n, &purpose, 1, 0,
                                                        &status, NULL);
        free(cs->client_der);
        cs->client_der = NULL;
        if (gr >= 0 && status == 0) {
                cs->client_der = xmalloc(peers[0].size);
                memcpy(cs->client_der, peers[0].data, peers[0].size);
                cs->client_der_len = peers[0].size;
                cs->client_not_after = gnutls_x509_crt_get_expiration_time(chain[0]);
        }
        for (unsigned i = 0; i < imported; i++)
                gnutls_x509_crt_deinit(chain[i]);
        *ret_len = cs->client_der_len;
        return cs->client_der;
}

/* The peer's address as text, "" when unknown. */
static void peer_address(struct MHD_Connection *conn, char *buf, size_t size)
{
        const union MHD_ConnectionInfo *ci =
                MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        const struct sockaddr *sa = ci ? ci->client_addr : NULL;

        buf[0] = '\0';
        if (sa && sa->sa_family == AF_INET)
                (void) inet_ntop(AF_INET, &((const struct sockaddr_in *) sa)->sin_addr, buf,
                                 (socklen_t) size);
        else if (sa && sa->sa_family == AF_INET6)
                (void) inet_ntop(AF_INET6, &((const struct sockaddr_in6 *) sa)->sin6_addr, buf,
                                 (socklen_t) size);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url,
                              const char *method, const char *version, const char *upload_data,
                              size_t *upload_data_size, void **con_cls)
{
        struct http_server *h = cls;
        struct request_ctx *ctx = *con_cls;
        struct query_collect q = { .params = NULL };
        struct header_collect imp = { .headers = NULL };
        struct http_request req;
        struct http_response resp;
        const unsigned char *client_der;
        size_t client_len = 0;
        char peer[INET6_ADDRSTRLEN];
        enum MHD_Result ret;

        if (!ctx) {
                /* a request allocates through its thread's cache, emptied when it completes
                 * (base/alloc.h) */
                alloc_work_begin();
                /* the head is complete: no more head deadline */
                conn_enter(h, conn_state_of(conn), PHASE_BUSY);
                ctx = xcalloc(1, sizeof(*ctx));
                strbuf_init(&ctx->body);
                *con_cls = ctx;
                return MHD_YES;
        }
        if (*upload_data_size) {
                if (ctx->too_large || ctx->body.len + *upload_data_size > h->max_body) {
                        ctx->too_large = true;
                        strbuf_release(&ctx->body);
                        strbuf_init(&ctx->body);
                } else {
                        strbuf_add(&ctx->body, upload_data, *upload_data_size);
                }
                *upload_data_size = 0;
                return MHD_YES;
        }
        if (ctx->upgraded)
                return MHD_NO; /* resumed after its session: close */
        if (ctx->pending.poll)
                return serve_pending(h, conn, ctx);

        (void) MHD_get_connection_values_n(conn, MHD_GET_ARGUMENT_KIND, collect_query, &q);
        (void) MHD_get_connection_values_n(conn, MHD_HEADER_KIND, collect_impersonate, &imp);
        if (!utf8_valid(url, strlen(url)))
                q.malformed = "the path is not valid UTF-8";
        client_der = client_cert(h, conn, &client_len);
        peer_address(conn, peer, sizeof(peer));
        req = (struct http_request){
                .method = method,
                .path = url,
                .query = q.params,
                .n_query = q.n,
                .malformed = q.malformed,
                .accept = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Accept"),
                .content_type = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Type"),
                .authorization =
                        MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Authorization"),
                .if_none_match =
                        MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "If-None-Match"),
                .client_cert_der = client_der,
                .client_cert_len = client_len,
                .body = ctx->body.buf,
                .body_len = ctx->body.len,
                .body_too_large = ctx->too_large,
                .remote_addr = peer[0] ? peer : NULL,
                .user_agent = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "User-Agent"),
                .forwarded_for =
                        MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "X-Forwarded-For"),
                .real_ip = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "X-Real-Ip"),
                .audit_id = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Audit-ID"),
                .impersonate = imp.headers,
                .n_impersonate = imp.n,
                .lib_conn = conn,
        };
        http_response_init(&resp);
        h->handler(h->ud, &req, &resp);
        free(q.params);
        free(imp.headers);
        if (resp.pending.poll) {
                ctx->pending = resp.pending;
                resp.pending = (struct http_pending){ 0 };
                http_response_release(&resp);
                return serve_pending(h, conn, ctx);
        }
        ret = send_response(h, conn, ctx, &resp);
        http_response_release(&resp);
        return ret;
}

const char *http_request_header(const struct http_request *r, const char *name)
{
        if (!r->lib_conn)
                return NULL;
        return MHD_lookup_connection_value((struct MHD_Connection *) r->lib_conn, MHD_HEADER_KIND,
                                           name);
}

static void request_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                              enum MHD_RequestTerminationCode toe)
{
        struct http_server *h = cls;
        struct request_ctx *ctx = *con_cls;

        /* waiting for the next request of a keep-alive connection */
        conn_enter(h, conn_state_of(conn), PHASE_IDLE);
        if (!ctx)
                return;
        pending_free(ctx);
        strbuf_release(&ctx->body);
        free(ctx);
        *con_cls = NULL;
        alloc_work_end();
}

/* Parses "HOST:PORT" / "[V6]:PORT" into a socket address. */
static int parse_listen(const char *listen, struct sockaddr_storage *ss, socklen_t *len,
                        struct error **reterr)
{
        cleanup_free char *host = NULL;
        const char *colon;
        char *end;
        long port;

        if (listen[0] == '[') {
                const char *close = strchr(listen, ']');
                if (!close || close[1] != ':')
                        return error_set(reterr, EINVAL,
                                         "listen address \"%s\": expected [HOST]:PORT", listen);
                host = xstrndup(listen + 1, (size_t) (close - listen - 1));
                colon = close + 1;
        } else {
                colon = strrchr(listen, ':');
                if (!colon)
                        return error_set(reterr, EINVAL,
                                         "listen address \"%s\": expected HOST:PORT", listen);
                host = xstrndup(listen, (size_t) (colon - listen));
        }
        port = strtol(colon + 1, &end, 10);
        if (*end || port < 0 || port > 65535 || colon[1] == '\0')
                return error_set(reterr, EINVAL, "listen address \"%s\": bad port", listen);
        memset(ss, 0, sizeof(*ss));
        if (!*host || streq(host, "0.0.0.0")) {
                struct sockaddr_in *in = (struct sockaddr_in *) ss;
                in->sin_family = AF_INET;
                in->sin_port = htons((uint16_t) port);
                in->sin_addr.s_addr = htonl(INADDR_ANY);
                *len = sizeof(*in);
                return 0;
        }
        if (strchr(host, ':')) {
                struct sockaddr_in6 *in6 = (struct sockaddr_in6 *) ss;
                in6->sin6_family = AF_INET6;
                in6->sin6_port = htons((uint16_t) port);
                if (inet_pton(AF_INET6, host, &in6->sin6_addr) != 1)
                        return error_set(reterr, EINVAL, "listen address \"%s\": bad IPv6 address",
                                         listen);
                *len = sizeof(*in6);
                return 0;
        }
        {
                struct sockaddr_in *in = (struct sockaddr_in *) ss;
                in->sin_family = AF_INET;
                in->sin_port = htons((uint16_t) port);
                if (streq(host, "localhost"))
                        in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
                else if (inet_pton(AF_INET, host, &in->sin_addr) != 1)
                        return error_set(
                                reterr, EINVAL,
                                "listen address \"%s\": bad IPv4 address (use an IP address)",
                                listen);
                *len = sizeof(*in);
        }
        return 0;
}

static void server_free(struct http_server *h)
{
        if (h->epfd >= 0)
                (void) close(h->epfd);
        if (h->stop_fd >= 0)
                (void) close(h->stop_fd);
        pthread_mutex_destroy(&h->lock);
        pthread_cond_destroy(&h->upgrades_cond);
        free(h->cert_pem);
        free(h->key_pem);
        free(h->client_ca_pem);
        if (h->client_trust)
                gnutls_x509_trust_list_deinit(h->client_trust, 1);
        free(h);
}

static unsigned default_workers(void)
{
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        long n = cpus > 0 ? 4 * cpus : 8;

        return (unsigned) (n < 4 ? 4 : n > 32 ? 32 : n);
}

int http_server_start(const struct http_server_options *o, struct http_server **ret,
                      struct error **reterr)
{
        struct sockaddr_storage ss;
        socklen_t sslen;
        /* An epoll event loop on each of a pool of threads; quiet streams are suspended. */
        unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME;
        unsigned workers = o->worker_threads ? o->worker_threads : default_workers();
        unsigned max_conns =
                o->max_connections ? o->max_connections : HTTP_SERVER_DEFAULT_MAX_CONNECTIONS;
        unsigned per_client = o->max_connections_per_client
                                      ? o->max_connections_per_client
                                      : HTTP_SERVER_DEFAULT_MAX_CONNECTIONS_PER_CLIENT;
        unsigned idle_s =
                o->idle_timeout_s ? o->idle_timeout_s : HTTP_SERVER_DEFAULT_IDLE_TIMEOUT_S;
        struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
        struct MHD_OptionItem opts[16];
        size_t n = 0;
        struct http_server *h;
        int r;

        if (!o->handler)
                return error_set(reterr, EINVAL, "http server: no handler");
        if (!o->listen)
                return error_set(reterr, EINVAL, "http server: no listen address");
        if (!o->cert_pem != !o->key_pem)
                return error_set(
                        reterr, EINVAL,
                        "http server: a certificate needs its key and a key its certificate");
        r = parse_listen(o->listen, &ss, &sslen, reterr);
        if (r < 0)
                return r;
        /* the library splits the connection limit among the pool's threads */
        if (workers > max_conns)
                workers = max_conns;
        if (ss.ss_family == AF_INET6)
                flags |= MHD_USE_IPv6;
        if (o->cert_pem)
                flags |= MHD_USE_TLS;
        h = xcalloc(1, sizeof(*h));
        h->epfd = -1;
        h->stop_fd = -1;
        if (pthread_mutex_init(&h->lock, NULL) != 0 ||
            pthread_cond_init(&h->upgrades_cond, NULL) != 0)
                abort();
        h->handler = o->handler;
        h->ud = o->ud;
        h->max_body = o->max_body_bytes ? o->max_body_bytes : HTTP_SERVER_DEFAULT_MAX_BODY;
        h->handshake_ms = o->tls_handshake_timeout_ms
                                  ? o->tls_handshake_timeout_ms
                                  : HTTP_SERVER_DEFAULT_TLS_HANDSHAKE_TIMEOUT_MS;
        h->head_ms = o->request_head_timeout_ms ? o->request_head_timeout_ms
                                                : HTTP_SERVER_DEFAULT_REQUEST_HEAD_TIMEOUT_MS;
        h->idle_ms = (int64_t) idle_s * 1000;
        h->epfd = epoll_create1(EPOLL_CLOEXEC);
        h->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (h->epfd < 0 || h->stop_fd < 0 ||
            epoll_ctl(h->epfd, EPOLL_CTL_ADD, h->stop_fd, &ev) < 0) {
                r = errno;
                server_free(h);
                return error_set(reterr, r, "http server: epoll: %s", strerror(r));
        }

        opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_SOCK_ADDR, 0, &ss };
        opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_THREAD_POOL_SIZE, workers, NULL };
        /* the library's own timeout is one of inactivity: the idle timeout, also in the middle
         * of a request; the sweeper enforces the deadlines that trickled bytes do not reset */
        opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_TIMEOUT, idle_s, NULL };
        opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_LIMIT, max_conns, NULL };
        /* the request head must fit the connection's memory pool (see
         * HTTP_SERVER_CONNECTION_MEMORY) */
        opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_CONNECTION_MEMORY_LIMIT,
                                             HTTP_SERVER_CONNECTION_MEMORY, NULL };
        opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_client, NULL };
        opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_NOTIFY_COMPLETED,
                                             (intptr_t) request_completed, h };
        opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_NOTIFY_CONNECTION,
                                             (intptr_t) notify_connection, h };
        opts[n++] =
                (struct MHD_OptionItem){ MHD_OPTION_UNESCAPE_CALLBACK, (intptr_t) unescape, NULL };
        if (o->cert_pem) {
                h->cert_pem = xstrdup(o->cert_pem);
                h->key_pem = xstrdup(o->key_pem);
                opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_KEY, 0, h->key_pem };
                opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_CERT, 0, h->cert_pem };
        }
        if (o->cert_pem && o->client_ca_pem) {
                gnutls_datum_t ca = { .data = (unsigned char *) o->client_ca_pem,
                                      .size = (unsigned) strlen(o->client_ca_pem) };

                h->client_ca_pem = xstrdup(o->client_ca_pem);
                if (gnutls_x509_trust_list_init(&h->client_trust, 0) < 0 ||
                    gnutls_x509_trust_list_add_trust_mem(h->client_trust, &ca, NULL,
                                                         GNUTLS_X509_FMT_PEM, 0, 0) <= 0) {
                        server_free(h);
                        return error_set(reterr, EINVAL,
                                         "http server: the client CA is not a PEM certificate");
                }
                /* the library asks for (never requires) a certificate of this CA */
                opts[n++] =
                        (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_TRUST, 0, h->client_ca_pem };
        }
        opts[n++] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
        h->daemon = MHD_start_daemon(flags, 0, NULL, NULL, handle, h, MHD_OPTION_ARRAY, opts,
                                     MHD_OPTION_END);
        if (!h->daemon) {
                server_free(h);
                return error_set(
                        reterr, EADDRINUSE,
                        "listen on \"%s\": cannot start the HTTP server (address in use or not available)",
                        o->listen);
        }
        r = pthread_create(&h->sweeper, NULL, sweeper_main, h);
        if (r != 0) {
                MHD_stop_daemon(h->daemon);
                server_free(h);
                return error_set(reterr, r, "http server: start the sweeper: %s", strerror(r));
        }
        h->sweeper_running = true;
        *ret = h;
        return 0;
}

unsigned http_server_port(const struct http_server *h)
{
        const union MHD_DaemonInfo *info =
                MHD_get_daemon_info(h->daemon, MHD_DAEMON_INFO_BIND_PORT);

        return info ? info->port : 0;
}

struct http_server *http_server_stop(struct http_server *h)
{
        if (!h)
                return NULL;
        /* The library must not stop with suspended connections: hand every parked stream back
         * (its next read ends it) and let none park again. */
        pthread_mutex_lock(&h->lock);
        h->stopping = true;
        for (struct conn_state *cs = h->conns; cs; cs = cs->next)
                conn_unpark(h, cs);
        /* nor with upgraded ones: end every session (its reads see the end) and wait for it */
        for (struct upgrade_ctx *u = h->upgrades; u; u = u->next)
                (void) shutdown(u->fd, SHUT_RDWR);
        while (h->upgrades)
                pthread_cond_wait(&h->upgrades_cond, &h->lock);
        pthread_mutex_unlock(&h->lock);
        if (h->sweeper_running) {
                (void) eventfd_write(h->stop_fd, 1);
                (void) pthread_join(h->sweeper, NULL);
        }
        MHD_stop_daemon(h->daemon);
        server_free(h);
        return NULL;
}
