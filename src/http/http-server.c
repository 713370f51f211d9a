/* http-server.c: the HTTP layer, the only file that includes libmicrohttpd. It collects a
 * request (headers, query, body up to the cap), hands it to the handler and writes the
 * response back, streaming it when the handler returned a stream. What a request means is
 * the handler's business. */
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "base/alloc.h"
#include "base/utf8.h"
#include "http/http-server.h"

/* Idle keep-alive connections are closed after this; watch streams send a heartbeat far more
 * often, so they are never idle. */
#define CONNECTION_TIMEOUT_S 300
#define MAX_CONNECTIONS      1024
#define STREAM_BLOCK_SIZE    (16 * 1024)

struct http_server {
        struct MHD_Daemon *daemon;
        http_handler_fn handler;
        void *ud;
        size_t max_body;
        char *cert_pem;
        char *key_pem;
};

struct request_ctx {
        struct strbuf body;
        bool too_large;
};

/* Every query parameter of a request: none is dropped, so none can be silently ignored (a
 * dryRun=All past a fixed cap once made a real create). Their number is bounded by the request
 * line, which the HTTP library caps. */
struct query_collect {
        struct http_query_param *params;
        size_t n, alloc;
        const char *malformed;
};

/* A stream being sent, and the client's socket to notice a hang-up between reads. */
struct stream_ctx {
        struct http_stream st;
        int client_fd;
};

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

static int hex_digit(char c)
{
        if (c >= '0' && c <= '9')
                return c - '0';
        c = (char) (c | 0x20);
        return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The HTTP library's unescape step, for the path and each query key and value: percent
 * escapes decoded in place (a malformed one is kept as written, as the library does). An
 * escaped NUL becomes the overlong pair 0xC0 0x80, which is never valid UTF-8: a NUL would cut
 * the C string short (`pods/victim%00x` was a DELETE of pod "victim"), and this way the request
 * arrives whole and is refused as not UTF-8. */
static size_t unescape(void *cls, struct MHD_Connection *conn, char *s)
{
        char *w = s;

        for (const char *r = s; *r;) {
                int hi = r[0] == '%' ? hex_digit(r[1]) : -1, lo = hi >= 0 ? hex_digit(r[2]) : -1;

                if (lo < 0) {
                        *w++ = *r++;
                        continue;
                }
                if (hi == 0 && lo == 0) {
                        *w++ = (char) 0xC0;
                        *w++ = (char) 0x80;
                } else {
                        *w++ = (char) (hi << 4 | lo);
                }
                r += 3;
        }
        *w = '\0';
        return (size_t) (w - s);
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

static ssize_t stream_reader(void *cls, uint64_t pos, char *buf, size_t max)
{
        struct stream_ctx *sc = cls;
        ssize_t n;

        /* A stream with nothing to say sends no bytes, so a write would never fail; look at
         * the socket instead, or a follow of a quiet log would hold its producer forever. */
        if (client_gone(sc->client_fd))
                return MHD_CONTENT_READER_END_WITH_ERROR;
        n = sc->st.read(sc->st.ctx, buf, max);
        return n < 0 ? MHD_CONTENT_READER_END_OF_STREAM : n;
}

static void stream_free(void *cls)
{
        struct stream_ctx *sc = cls;

        sc->st.free(sc->st.ctx);
        free(sc);
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

static enum MHD_Result send_response(struct MHD_Connection *conn, struct http_response *resp)
{
        struct MHD_Response *mr;
        enum MHD_Result ret;

        if (resp->stream.read) {
                const union MHD_ConnectionInfo *ci =
                        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
                struct stream_ctx *sc = xmalloc(sizeof(*sc));

                sc->st = resp->stream;
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
        ret = MHD_queue_response(conn, resp->status ? resp->status : 500, mr);
        MHD_destroy_response(mr);
        return ret;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url,
                              const char *method, const char *version, const char *upload_data,
                              size_t *upload_data_size, void **con_cls)
{
        struct http_server *h = cls;
        struct request_ctx *ctx = *con_cls;
        struct query_collect q = { .params = NULL };
        struct http_request req;
        struct http_response resp;
        enum MHD_Result ret;

        if (!ctx) {
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

        (void) MHD_get_connection_values_n(conn, MHD_GET_ARGUMENT_KIND, collect_query, &q);
        if (!utf8_valid(url, strlen(url)))
                q.malformed = "the path is not valid UTF-8";
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
                .body = ctx->body.buf,
                .body_len = ctx->body.len,
                .body_too_large = ctx->too_large,
        };
        http_response_init(&resp);
        h->handler(h->ud, &req, &resp);
        ret = send_response(conn, &resp);
        http_response_release(&resp);
        free(q.params);
        return ret;
}

static void request_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                              enum MHD_RequestTerminationCode toe)
{
        struct request_ctx *ctx = *con_cls;

        if (!ctx)
                return;
        strbuf_release(&ctx->body);
        free(ctx);
        *con_cls = NULL;
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
        free(h->cert_pem);
        free(h->key_pem);
        free(h);
}

int http_server_start(const struct http_server_options *o, struct http_server **ret,
                      struct error **reterr)
{
        struct sockaddr_storage ss;
        socklen_t sslen;
        unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD;
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
        if (ss.ss_family == AF_INET6)
                flags |= MHD_USE_IPv6;
        if (o->cert_pem)
                flags |= MHD_USE_TLS;
        h = xcalloc(1, sizeof(*h));
        h->handler = o->handler;
        h->ud = o->ud;
        h->max_body = o->max_body_bytes ? o->max_body_bytes : HTTP_SERVER_DEFAULT_MAX_BODY;
        if (o->cert_pem) {
                h->cert_pem = xstrdup(o->cert_pem);
                h->key_pem = xstrdup(o->key_pem);
                h->daemon = MHD_start_daemon(
                        flags, 0, NULL, NULL, handle, h, MHD_OPTION_SOCK_ADDR, &ss,
                        MHD_OPTION_HTTPS_MEM_KEY, h->key_pem, MHD_OPTION_HTTPS_MEM_CERT,
                        h->cert_pem, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned) CONNECTION_TIMEOUT_S,
                        MHD_OPTION_CONNECTION_LIMIT, (unsigned) MAX_CONNECTIONS,
                        MHD_OPTION_NOTIFY_COMPLETED, request_completed, h,
                        MHD_OPTION_UNESCAPE_CALLBACK, unescape, NULL, MHD_OPTION_END);
        } else {
                h->daemon = MHD_start_daemon(
                        flags, 0, NULL, NULL, handle, h, MHD_OPTION_SOCK_ADDR, &ss,
                        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned) CONNECTION_TIMEOUT_S,
                        MHD_OPTION_CONNECTION_LIMIT, (unsigned) MAX_CONNECTIONS,
                        MHD_OPTION_NOTIFY_COMPLETED, request_completed, h,
                        MHD_OPTION_UNESCAPE_CALLBACK, unescape, NULL, MHD_OPTION_END);
        }
        if (!h->daemon) {
                server_free(h);
                return error_set(
                        reterr, EADDRINUSE,
                        "listen on \"%s\": cannot start the HTTP server (address in use or not available)",
                        o->listen);
        }
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
        if (h) {
                MHD_stop_daemon(h->daemon);
                server_free(h);
        }
        return NULL;
}
