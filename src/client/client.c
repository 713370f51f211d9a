/* client.c: the API client over libcurl: one easy handle per client so requests reuse a
 * keep-alive connection, whole-body requests decoded as JSON, watch streams split into events
 * line by line as bytes arrive, and raw streamed GETs (container logs). It does not retry, relist
 * or interpret Kubernetes semantics; callers decide what a status or an event means. */
#include <assert.h>
#include <curl/curl.h>
#include <errno.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gnutls/gnutls.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/strbuf.h"
#include "base/timeutil.h"
#include "client/client.h"
#include "client/token-source.h"
#include "http/curl-setup.h"

/* A non-200 answer to a watch carries a Status; more than this of it is not worth reading. */
#define WATCH_ERROR_BODY_MAX (64 * 1024)

struct api_client {
        CURL *curl;
        char **servers;    /* the server URLs, each without a trailing '/' */
        size_t n_servers;  /* at least one */
        size_t current;    /* the one requests go to; moves on when it stops answering */
        char *server_url;  /* servers[current] */
        char *auth_header; /* "Authorization: Bearer ..." or NULL */
        struct api_token_source *token_source; /* borrowed; NULL: auth_header */
        const struct api_loopback *loopback;   /* borrowed; NULL: requests over HTTP */
        gnutls_datum_t loopback_cert;          /* with loopback: the client certificate, DER */
        long idle_timeout_ms;
        atomic_bool cancelled; /* api_client_cancel(): every transfer ends, now and later */
        pthread_mutex_t sock_lock;
        curl_socket_t sock; /* the connection's socket, or CURL_SOCKET_BAD; under sock_lock */
        char errbuf[CURL_ERROR_SIZE];
};

/* One request's or one watch's state, shared by the libcurl callbacks. */
struct transfer {
        struct strbuf body;
        size_t cap;
        bool too_big;
        int64_t last_activity_ms;
        curl_off_t last_ulnow;
        long idle_timeout_ms;
        bool idle_expired;
        bool cancelled;
        const atomic_bool *cancel; /* the client's flag */

        /* watch only */
        CURL *curl;
        bool watch;
        long status;    /* 0 until the first body bytes arrive */
        size_t scanned; /* body[0, scanned) holds no '\n' */
        api_client_watch_fn on_event;
        void *ud;
        const char *what;
        size_t n_events;
        int stop;          /* callback's non-zero return */
        struct error *err; /* a malformed event */

        /* streamed GET only */
        const struct api_client_stream_ops *ops;
        bool status_sent;
        bool no_idle_timeout;
        int64_t last_idle_ms;
};

struct api_client *api_client_free(struct api_client *c)
{
        if (!c)
                return NULL;
        if (c->curl)
                curl_easy_cleanup(c->curl); /* closes the connection through close_socket */
        pthread_mutex_destroy(&c->sock_lock);
        for (size_t i = 0; i < c->n_servers; i++)
                free(c->servers[i]);
        free(c->servers);
        free(c->auth_header);
        gnutls_free(c->loopback_cert.data);
        free(c);
        return NULL;
}

/* A streamed GET's status, told once when the headers are complete (1xx answers skipped).
 * Returns non-zero when the callback stopped the transfer. */
static int stream_status(struct transfer *t)
{
        long status = 0;
        int r;

        if (t->status_sent)
                return 0;
        (void) curl_easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &status);
        if (status < 200)
                return 0;
        t->status_sent = true;
        r = t->ops->status(t->ud, status);
        if (r != 0)
                t->stop = r;
        return r;
}

static size_t header_cb(char *data, size_t size, size_t n, void *ud)
{
        struct transfer *t = ud;
        size_t len = size * n;

        t->last_activity_ms = time_monotonic_ms();
        /* the blank line after the headers */
        if (t->ops &&
            ((len == 2 && data[0] == '\r' && data[1] == '\n') || (len == 1 && data[0] == '\n')))
                if (stream_status(t) != 0)
                        return 0;
        return len;
}

/* Fails the transfer when nothing moved for idle_timeout_ms. libcurl calls this at least about
 * once a second while a transfer waits. */
static int xferinfo_cb(void *ud, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                       curl_off_t ulnow)
{
        struct transfer *t = ud;
        int64_t now = time_monotonic_ms();

        if (atomic_load(t->cancel)) {
                t->cancelled = true;
                return 1;
        }
        if (ulnow != t->last_ulnow) {
                t->last_ulnow = ulnow;
                t->last_activity_ms = now;
        }
        if (t->ops && t->ops->idle && now - t->last_idle_ms >= 1000) {
                int r;

                t->last_idle_ms = now;
                r = t->ops->idle(t->ud);
                if (r != 0) {
                        t->stop = r;
                        return 1;
                }
        }
        if (!t->no_idle_timeout && now - t->last_activity_ms > t->idle_timeout_ms) {
                t->idle_expired = true;
                return 1;
        }
        return 0;
}

static size_t body_cb(char *data, size_t size, size_t n, void *ud)
{
        struct transfer *t = ud;
        size_t len = size * n;

        t->last_activity_ms = time_monotonic_ms();
        if (len > t->cap - t->body.len) {
                t->too_big = true;
                return 0;
        }
        strbuf_add(&t->body, data, len);
        return len;
}

/* libcurl opens and closes the client's connection through these, so that api_client_cancel()
 * knows the socket to shut down (and never one already closed and reused). */
static curl_socket_t open_socket(void *ud, curlsocktype purpose, struct curl_sockaddr *addr)
{
        struct api_client *c = ud;
        curl_socket_t fd;

        (void) purpose;
        fd = socket(addr->family, addr->socktype | SOCK_CLOEXEC, addr->protocol);
        if (fd < 0)
                return CURL_SOCKET_BAD;
        pthread_mutex_lock(&c->sock_lock);
        c->sock = fd;
        if (atomic_load(&c->cancelled))
                (void) shutdown(fd, SHUT_RDWR);
        pthread_mutex_unlock(&c->sock_lock);
        return fd;
}

static int close_socket(void *ud, curl_socket_t fd)
{
        struct api_client *c = ud;

        pthread_mutex_lock(&c->sock_lock);
        if (c->sock == fd)
                c->sock = CURL_SOCKET_BAD;
        (void) close(fd);
        pthread_mutex_unlock(&c->sock_lock);
        return 0;
}

/* The first certificate of a PEM file, as DER: what a loopback request presents. Read once:
 * the clients of the server's own components keep their certificates for the process's life. */
static int loopback_cert(const char *file, gnutls_datum_t *ret, struct error **reterr)
{
        cleanup_free char *pem = NULL;
        gnutls_datum_t in;
        size_t len = 0;
        int r = fs_read_file_at(AT_FDCWD, file, 1024 * 1024, &pem, &len);

        if (r < 0)
                return error_set(reterr, -r, "api client: certificate \"%s\": %s", file,
                                 strerror(-r));
        in = (gnutls_datum_t){ .data = (unsigned char *) pem, .size = (unsigned) len };
        if (gnutls_pem_base64_decode2("CERTIFICATE", &in, ret) < 0)
                return error_set(reterr, EINVAL,
                                 "api client: certificate \"%s\": no PEM certificate", file);
        return 0;
}

int api_client_new(const struct api_client_options *o, struct api_client **ret,
                   struct error **reterr)
{
        cleanup_api_client struct api_client *c = NULL;
        const char *url;
        size_t len;

        if (!o || !o->server_url || !*o->server_url)
                return error_set(reterr, EINVAL, "api client: no server URL");
        for (url = o->server_url;; url += len + 1) {
                len = strcspn(url, ",");
                if (strncasecmp(url, "https://", 8) != 0 && strncasecmp(url, "http://", 7) != 0)
                        return error_set(reterr, EINVAL,
                                         "api client: server URL \"%.*s\": expected http:// or "
                                         "https://",
                                         (int) len, url);
                if (!url[len])
                        break;
        }
        if (o->idle_timeout_ms < 0)
                return error_set(reterr, EINVAL, "api client: negative idle timeout");
        if (o->ca_file && !o->insecure_skip_verify) {
                int fd = open(o->ca_file, O_RDONLY | O_CLOEXEC);
                if (fd < 0)
                        return error_set(reterr, errno, "api client: CA file \"%s\": %s",
                                         o->ca_file, strerror(errno));
                (void) close(fd);
        }
        if (http_curl_setup(reterr) < 0)
                return -EIO;

        c = xcalloc(1, sizeof(*c));
        pthread_mutex_init(&c->sock_lock, NULL);
        c->sock = CURL_SOCKET_BAD;
        for (url = o->server_url;; url += strcspn(url, ",") + 1) {
                len = strcspn(url, ",");
                while (len > 0 && url[len - 1] == '/')
                        len--;
                c->servers = xrealloc(c->servers, (c->n_servers + 1) * sizeof(*c->servers));
                c->servers[c->n_servers++] = xstrndup(url, len);
                if (!url[strcspn(url, ",")])
                        break;
        }
        c->server_url = c->servers[0];
        if (o->token)
                c->auth_header = xasprintf("Authorization: Bearer %s", o->token);
        c->token_source = o->token_source;
        c->loopback = o->loopback;
        if (c->loopback && o->cert_file && o->key_file) {
                int r = loopback_cert(o->cert_file, &c->loopback_cert, reterr);
                if (r < 0)
                        return r;
        }
        c->idle_timeout_ms =
                o->idle_timeout_ms ? o->idle_timeout_ms : API_CLIENT_DEFAULT_IDLE_TIMEOUT;
        c->curl = curl_easy_init();
        if (!c->curl)
                return error_set(reterr, ENOMEM, "api client: cannot create a libcurl handle");

        /* Options that hold for every transfer of this handle. Failures of setopt here can
         * only be an unknown option (a libcurl built without it) and surface at perform. */
        (void) curl_easy_setopt(c->curl, CURLOPT_NOSIGNAL, 1L);
        (void) curl_easy_setopt(c->curl, CURLOPT_ERRORBUFFER, c->errbuf);
        (void) curl_easy_setopt(c->curl, CURLOPT_PROTOCOLS_STR, "http,https");
        (void) curl_easy_setopt(c->curl, CURLOPT_CONNECTTIMEOUT_MS,
                                (long) API_CLIENT_CONNECT_TIMEOUT_MS);
        (void) curl_easy_setopt(c->curl, CURLOPT_TCP_NODELAY, 1L);
        (void) curl_easy_setopt(c->curl, CURLOPT_TCP_KEEPALIVE, 1L);
        (void) curl_easy_setopt(c->curl, CURLOPT_SSL_VERIFYPEER, o->insecure_skip_verify ? 0L : 1L);
        (void) curl_easy_setopt(c->curl, CURLOPT_SSL_VERIFYHOST, o->insecure_skip_verify ? 0L : 2L);
        if (o->ca_file && !o->insecure_skip_verify) {
                /* Trust this CA alone. Without clearing CAPATH, libcurl with GnuTLS also loads
                 * every certificate under /etc/ssl/certs on each new connection. */
                (void) curl_easy_setopt(c->curl, CURLOPT_CAINFO, o->ca_file);
                (void) curl_easy_setopt(c->curl, CURLOPT_CAPATH, NULL);
        }
        if (o->cert_file && o->key_file) {
                (void) curl_easy_setopt(c->curl, CURLOPT_SSLCERT, o->cert_file);
                (void) curl_easy_setopt(c->curl, CURLOPT_SSLCERTTYPE, "PEM");
                (void) curl_easy_setopt(c->curl, CURLOPT_SSLKEY, o->key_file);
                (void) curl_easy_setopt(c->curl, CURLOPT_SSLKEYTYPE, "PEM");
        }
        (void) curl_easy_setopt(c->curl, CURLOPT_USERAGENT, API_CLIENT_USER_AGENT);
        (void) curl_easy_setopt(c->curl, CURLOPT_NOPROGRESS, 0L);
        (void) curl_easy_setopt(c->curl, CURLOPT_XFERINFOFUNCTION, xferinfo_cb);
        (void) curl_easy_setopt(c->curl, CURLOPT_HEADERFUNCTION, header_cb);
        (void) curl_easy_setopt(c->curl, CURLOPT_OPENSOCKETFUNCTION, open_socket);
        (void) curl_easy_setopt(c->curl, CURLOPT_OPENSOCKETDATA, c);
        (void) curl_easy_setopt(c->curl, CURLOPT_CLOSESOCKETFUNCTION, close_socket);
        (void) curl_easy_setopt(c->curl, CURLOPT_CLOSESOCKETDATA, c);
        *ret = TAKE_PTR(c);
        return 0;
}

/* Headers of one request: Accept, the token, no "Expect: 100-continue" (it costs a round trip
 * on every body over 1 KiB), and the body's type. */
static struct curl_slist *request_headers(const struct api_client *c, const char *content_type)
{
        struct curl_slist *h = NULL;

        h = curl_slist_append(h, "Accept: application/json");
        h = curl_slist_append(h, "Expect:");
        if (c->token_source) {
                cleanup_free char *token = api_token_source_token(c->token_source);
                cleanup_free char *header = xasprintf("Authorization: Bearer %s", token);

                h = curl_slist_append(h, header);
                explicit_bzero(header, strlen(header));
                explicit_bzero(token, strlen(token));
        } else if (c->auth_header) {
                h = curl_slist_append(h, c->auth_header);
        }
        if (content_type) {
                cleanup_free char *ct = xasprintf("Content-Type: %s", content_type);
                h = curl_slist_append(h, ct);
        }
        if (!h)
                abort(); /* allocation failure, as xmalloc */
        return h;
}

void api_client_cancel(struct api_client *c)
{
        atomic_store(&c->cancelled, true);
        /* A transfer waiting for bytes (a quiet watch) would see the flag only at libcurl's
         * next progress call, up to a second later: end its connection now. */
        pthread_mutex_lock(&c->sock_lock);
        if (c->sock != CURL_SOCKET_BAD)
                (void) shutdown(c->sock, SHUT_RDWR);
        pthread_mutex_unlock(&c->sock_lock);
}

static void transfer_init(struct transfer *t, const struct api_client *c, size_t cap)
{
        *t = (struct transfer){ .cap = cap,
                                .idle_timeout_ms = c->idle_timeout_ms,
                                .cancel = &c->cancelled };
        strbuf_init(&t->body);
        t->last_activity_ms = time_monotonic_ms();
}

static void transfer_release(struct transfer *t)
{
        strbuf_release(&t->body);
        t->err = error_free(t->err);
}

/* Turns a failed curl_easy_perform() into -errno and a message. */
static int transfer_error(struct api_client *c, const struct transfer *t, CURLcode cc,
                          const char *what, struct error **reterr)
{
        const char *detail = c->errbuf[0] ? c->errbuf : curl_easy_strerror(cc);
        long os_errno = 0;
        int errnum;

        if (t->cancelled)
                return error_set(reterr, ECANCELED, "%s: the client was cancelled", what);
        if (t->idle_expired)
                return error_set(reterr, ETIMEDOUT, "%s: no data from the server for %ld ms", what,
                                 t->idle_timeout_ms);
        if (t->too_big)
                return error_set(reterr, EFBIG, "%s: %s exceeds %zu bytes", what,
                                 t->watch ? "watch event" : "response body", t->cap);
        switch (cc) {
        case CURLE_COULDNT_CONNECT:
                (void) curl_easy_getinfo(c->curl, CURLINFO_OS_ERRNO, &os_errno);
                errnum = os_errno > 0 ? (int) os_errno : ECONNREFUSED;
                break;
        case CURLE_COULDNT_RESOLVE_HOST:
                errnum = EHOSTUNREACH;
                break;
        case CURLE_OPERATION_TIMEDOUT:
                errnum = ETIMEDOUT;
                break;
        case CURLE_URL_MALFORMAT:
                errnum = EINVAL;
                break;
        case CURLE_OUT_OF_MEMORY:
                errnum = ENOMEM;
                break;
        case CURLE_SSL_CONNECT_ERROR:
        case CURLE_PEER_FAILED_VERIFICATION:
        case CURLE_SSL_CERTPROBLEM:
        case CURLE_SSL_CIPHER:
        case CURLE_SSL_CACERT_BADFILE:
        case CURLE_SSL_ISSUER_ERROR:
        case CURLE_SSL_INVALIDCERTSTATUS:
        case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
        case CURLE_USE_SSL_FAILED:
                errnum = EPROTO;
                break;
        default:
                errnum = EIO;
                break;
        }
        return error_set(reterr, errnum, "%s: %s", what, detail);
}

/* Whether a transfer error means the server stopped answering (nothing listens, the host is
 * gone, it fell silent): the next request then goes to the next server of the list. */
static bool server_unreachable(int errnum)
{
        return errnum == ECONNREFUSED || errnum == ETIMEDOUT || errnum == EHOSTUNREACH ||
               errnum == ENETUNREACH || errnum == ECONNRESET;
}

/* Moves to the next server after a failure of the current one (a no-op with one server).
 * Returns true when there is another to try. */
static bool fail_over(struct api_client *c, int errnum)
{
        if (c->n_servers < 2 || !server_unreachable(errnum))
                return false;
        c->current = (c->current + 1) % c->n_servers;
        c->server_url = c->servers[c->current];
        return true;
}

static CURLcode perform(struct api_client *c, struct transfer *t, const char *path,
                        struct curl_slist *headers, curl_write_callback write_cb)
{
        cleanup_free char *url = xasprintf("%s%s", c->server_url, path);

        c->errbuf[0] = '\0';
        (void) curl_easy_setopt(c->curl, CURLOPT_URL, url);
        (void) curl_easy_setopt(c->curl, CURLOPT_HTTPHEADER, headers);
        (void) curl_easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, write_cb);
        (void) curl_easy_setopt(c->curl, CURLOPT_WRITEDATA, t);
        (void) curl_easy_setopt(c->curl, CURLOPT_HEADERDATA, t);
        (void) curl_easy_setopt(c->curl, CURLOPT_XFERINFODATA, t);
        return curl_easy_perform(c->curl);
}

/* The JSON in buf[0, len): NULL for an empty or all-whitespace body. */
static int decode_body(const char *buf, size_t len, const char *what, json_t **ret,
                       struct error **reterr)
{
        json_error_t jerr;
        json_t *v;
        size_t i;

        for (i = 0; i < len; i++)
                if (!strchr(" \t\r\n", buf[i]))
                        break;
        if (i == len) {
                *ret = NULL;
                return 0;
        }
        v = json_loadb(buf, len, 0, &jerr);
        if (!v)
                return error_set(reterr, EBADMSG, "%s: invalid JSON in the response: %s", what,
                                 jerr.text);
        *ret = v;
        return 0;
}

/* api_client_request through the client's loopback, with the credentials it would send. */
static int loopback_request(struct api_client *c, const char *method, const char *path_and_query,
                            const char *content_type, const char *body, size_t body_len,
                            long *ret_status, json_t **ret_json, struct error **reterr)
{
        cleanup_free char *token = NULL, *authorization = NULL;
        struct api_loopback_request req = {
                .method = method,
                .path_and_query = path_and_query,
                .content_type = body ? content_type : NULL,
                .body = body,
                .body_len = body ? body_len : 0,
                .client_cert_der = c->loopback_cert.data,
                .client_cert_len = c->loopback_cert.size,
                .user_agent = API_CLIENT_USER_AGENT,
        };
        long status = 0;
        int r;

        if (c->token_source) {
                token = api_token_source_token(c->token_source);
                authorization = xasprintf("Bearer %s", token);
        } else if (c->auth_header) {
                authorization = xstrdup(c->auth_header + strlen("Authorization: "));
        }
        req.authorization = authorization;
        r = c->loopback->request(c->loopback->ud, &req, &status, ret_json, reterr);
        if (token)
                explicit_bzero(token, strlen(token));
        if (authorization)
                explicit_bzero(authorization, strlen(authorization));
        if (r >= 0 && ret_status)
                *ret_status = status;
        return r;
}

int api_client_request(struct api_client *c, const char *method, const char *path_and_query,
                       const char *content_type, const char *body, size_t body_len,
                       long *ret_status, json_t **ret_json, struct error **reterr)
{
        cleanup_free char *what = NULL;
        struct curl_slist *headers;
        struct transfer t;
        const char *custom;
        bool head;
        long status = 0;
        CURLcode cc;
        int r = 0;

        if (!method || !*method || !path_and_query || path_and_query[0] != '/')
                return error_set(reterr, EINVAL, "request \"%s %s\": the path must start with '/'",
                                 method ?: "", path_and_query ?: "");
        what = xasprintf("request \"%s %s\"", method, path_and_query);
        if (atomic_load(&c->cancelled))
                return error_set(reterr, ECANCELED, "%s: the client was cancelled", what);
        head = streq(method, "HEAD");
        if (body && !content_type)
                content_type = "application/json";
        if (c->loopback)
                return loopback_request(c, method, path_and_query, content_type, body, body_len,
                                        ret_status, ret_json, reterr);

        /* The handle keeps options across transfers: set every one that differs per method. */
        if (body) {
                (void) curl_easy_setopt(c->curl, CURLOPT_POSTFIELDSIZE_LARGE,
                                        (curl_off_t) body_len);
                (void) curl_easy_setopt(c->curl, CURLOPT_POSTFIELDS, body);
        } else {
                (void) curl_easy_setopt(c->curl, CURLOPT_HTTPGET, 1L);
        }
        /* After HTTPGET, which clears it. */
        (void) curl_easy_setopt(c->curl, CURLOPT_NOBODY, head ? 1L : 0L);
        custom = (head || (!body && streq(method, "GET")) || (body && streq(method, "POST")))
                         ? NULL
                         : method;
        (void) curl_easy_setopt(c->curl, CURLOPT_CUSTOMREQUEST, custom);

        headers = request_headers(c, content_type);
        /* A server that refused the connection saw nothing of the request: it goes to the
         * next one at once, each tried once. */
        for (size_t tries = 0;; tries++) {
                transfer_init(&t, c, API_CLIENT_MAX_RESPONSE_BYTES);
                cc = perform(c, &t, path_and_query, headers, body_cb);
                if (cc != CURLE_COULDNT_CONNECT || tries + 1 >= c->n_servers || t.cancelled ||
                    atomic_load(&c->cancelled))
                        break;
                (void) fail_over(c, ECONNREFUSED);
                transfer_release(&t);
        }
        curl_slist_free_all(headers);
        if (cc != CURLE_OK) {
                r = transfer_error(c, &t, cc, what, reterr);
                (void) fail_over(c, -r);
                goto out;
        }
        (void) curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &status);
        if (ret_json) {
                r = decode_body(t.body.buf, t.body.len, what, ret_json, reterr);
                if (r < 0)
                        goto out;
        }
        if (ret_status)
                *ret_status = status;
out:
        transfer_release(&t);
        return r;
}

/* One line of a watch stream (without its '\n'): skipped when blank, else an event handed to
 * the callback. Returns 0 to go on, non-zero to stop (t->stop or t->err says why). */
static int watch_line(struct transfer *t, const char *line, size_t len)
{
        cleanup_json json_t *ev = NULL;
        json_error_t jerr;
        json_t *type, *object;
        size_t i;
        int r;

        for (i = 0; i < len; i++)
                if (!strchr(" \t\r", line[i]))
                        break;
        if (i == len)
                return 0; /* heartbeat */
        t->n_events++;
        ev = json_loadb(line, len, 0, &jerr);
        if (!ev) {
                (void) error_set(&t->err, EBADMSG, "%s: event %zu: invalid JSON: %s", t->what,
                                 t->n_events, jerr.text);
                return 1;
        }
        type = json_object_get(ev, "type");
        object = json_object_get(ev, "object");
        if (!json_is_string(type) || !json_is_object(object)) {
                (void) error_set(&t->err, EBADMSG,
                                 "%s: event %zu: expected {\"type\": string, \"object\": object}",
                                 t->what, t->n_events);
                return 1;
        }
        r = t->on_event(t->ud, json_string_value(type), object);
        if (r != 0) {
                t->stop = r;
                return 1;
        }
        return 0;
}

/* Appends what arrived and hands every complete line to watch_line(); a partial line waits in
 * t->body for the rest. */
static size_t watch_cb(char *data, size_t size, size_t n, void *ud)
{
        struct transfer *t = ud;
        size_t len = size * n, start = 0;
        char *nl;

        t->last_activity_ms = time_monotonic_ms();
        if (t->status == 0)
                (void) curl_easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &t->status);
        if (t->status != 200) {
                /* An error answer: keep the start of its Status for the message. */
                size_t room = WATCH_ERROR_BODY_MAX - t->body.len;
                strbuf_add(&t->body, data, len < room ? len : room);
                return len;
        }
        /* t->body holds at most cap bytes of a partial line before this; libcurl hands over
         * at most CURL_MAX_WRITE_SIZE bytes per call, so memory stays bounded. */
        strbuf_add(&t->body, data, len);
        while ((nl = memchr(t->body.buf + t->scanned, '\n', t->body.len - t->scanned))) {
                size_t end = (size_t) (nl - t->body.buf);
                if (watch_line(t, t->body.buf + start, end - start))
                        return 0;
                start = end + 1;
                t->scanned = start;
        }
        if (start > 0) {
                t->body.len -= start;
                memmove(t->body.buf, t->body.buf + start, t->body.len);
                t->body.buf[t->body.len] = '\0';
        }
        t->scanned = t->body.len;
        if (t->body.len > t->cap) {
                t->too_big = true;
                return 0;
        }
        return len;
}

static int watch_status_error(const struct transfer *t, long status, struct error **reterr)
{
        cleanup_json json_t *st = json_loadb(t->body.buf, t->body.len, 0, NULL);
        const char *msg = json_path_string(st, "message");
        int errnum;

        switch (status) {
        case 400:
        case 422:
                errnum = EINVAL;
                break;
        case 401:
        case 403:
                errnum = EACCES;
                break;
        case 404:
                errnum = ENOENT;
                break;
        case 410:
                errnum = ESTALE;
                break;
        case 429:
                errnum = EAGAIN;
                break;
        default:
                errnum = EIO;
                break;
        }
        return error_set(reterr, errnum, "%s: status %ld: %s", t->what, status,
                         msg ?: "no Status message");
}

/* The result of a watch that watch_line() stopped: the callback's value or a bad event. */
static int watch_stopped(struct transfer *t, struct error **reterr)
{
        if (t->stop > 0)
                return t->stop;
        if (t->stop < 0)
                return error_set(reterr, -t->stop, "%s: event handler: %s", t->what,
                                 strerror(-t->stop));
        assert(t->err);
        if (reterr) {
                error_free(*reterr);
                *reterr = TAKE_PTR(t->err);
                return -(*reterr)->errnum;
        }
        return -t->err->errnum;
}

int api_client_watch(struct api_client *c, const char *path_and_query, api_client_watch_fn on_event,
                     void *ud, struct error **reterr)
{
        cleanup_free char *what = NULL;
        struct curl_slist *headers;
        struct transfer t;
        long status = 0;
        CURLcode cc;
        int r = 0;

        if (!path_and_query || path_and_query[0] != '/' || !on_event)
                return error_set(reterr, EINVAL, "watch \"%s\": the path must start with '/'",
                                 path_and_query ?: "");
        what = xasprintf("watch \"%s\"", path_and_query);
        if (atomic_load(&c->cancelled))
                return error_set(reterr, ECANCELED, "%s: the client was cancelled", what);

        (void) curl_easy_setopt(c->curl, CURLOPT_HTTPGET, 1L);
        (void) curl_easy_setopt(c->curl, CURLOPT_NOBODY, 0L);
        (void) curl_easy_setopt(c->curl, CURLOPT_CUSTOMREQUEST, NULL);

        transfer_init(&t, c, API_CLIENT_MAX_EVENT_BYTES);
        t.watch = true;
        t.curl = c->curl;
        t.on_event = on_event;
        t.ud = ud;
        t.what = what;
        headers = request_headers(c, NULL);
        cc = perform(c, &t, path_and_query, headers, watch_cb);
        curl_slist_free_all(headers);

        if (t.stop || t.err) {
                r = watch_stopped(&t, reterr);
                goto out;
        }
        if (cc != CURLE_OK) {
                r = transfer_error(c, &t, cc, what, reterr);
                (void) fail_over(c, -r);
                goto out;
        }
        (void) curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &status);
        if (status != 200) {
                r = watch_status_error(&t, status, reterr);
                goto out;
        }
        /* The stream ended: a last event without its '\n' still counts; a partial JSON
         * document is an event cut short. */
        if (t.body.len > 0) {
                cleanup_json json_t *last = NULL;
                bool blank = strspn(t.body.buf, " \t\r") == t.body.len;

                if (!blank && !(last = json_loadb(t.body.buf, t.body.len, 0, NULL))) {
                        r = error_set(reterr, EPROTO, "%s: the stream ended inside an event", what);
                        goto out;
                }
                if (watch_line(&t, t.body.buf, t.body.len))
                        r = watch_stopped(&t, reterr);
        }
out:
        transfer_release(&t);
        return r;
}

/* A streamed GET's body piece: straight to the caller. */
static size_t stream_cb(char *data, size_t size, size_t n, void *ud)
{
        struct transfer *t = ud;
        size_t len = size * n;
        int r;

        t->last_activity_ms = time_monotonic_ms();
        if (stream_status(t) != 0)
                return 0;
        r = t->ops->data(t->ud, data, len);
        if (r != 0) {
                t->stop = r;
                return 0;
        }
        return len;
}

int api_client_get_stream(struct api_client *c, const char *path_and_query,
                          const struct api_client_stream_ops *ops, void *ud, struct error **reterr)
{
        cleanup_free char *what = NULL;
        struct curl_slist *headers;
        struct transfer t;
        CURLcode cc;
        int r = 0;

        if (!path_and_query || path_and_query[0] != '/' || !ops || !ops->status || !ops->data)
                return error_set(reterr, EINVAL, "request \"GET %s\": the path must start with '/'",
                                 path_and_query ?: "");
        what = xasprintf("request \"GET %s\"", path_and_query);
        if (atomic_load(&c->cancelled))
                return error_set(reterr, ECANCELED, "%s: the client was cancelled", what);

        (void) curl_easy_setopt(c->curl, CURLOPT_HTTPGET, 1L);
        (void) curl_easy_setopt(c->curl, CURLOPT_NOBODY, 0L);
        (void) curl_easy_setopt(c->curl, CURLOPT_CUSTOMREQUEST, NULL);

        transfer_init(&t, c, 0);
        t.curl = c->curl;
        t.ops = ops;
        t.ud = ud;
        t.no_idle_timeout = true;
        t.last_idle_ms = time_monotonic_ms();
        headers = request_headers(c, NULL);
        cc = perform(c, &t, path_and_query, headers, stream_cb);
        curl_slist_free_all(headers);

        if (t.stop > 0) {
                r = t.stop;
        } else if (t.stop < 0) {
                r = error_set(reterr, -t.stop, "%s: %s", what, strerror(-t.stop));
        } else if (cc != CURLE_OK) {
                r = transfer_error(c, &t, cc, what, reterr);
                (void) fail_over(c, -r);
        } else if (stream_status(&t) != 0) {
                /* a status never told (no header block seen): told now, and it stopped us */
                r = t.stop > 0 ? t.stop
                               : error_set(reterr, -t.stop, "%s: %s", what, strerror(-t.stop));
        }
        transfer_release(&t);
        return r;
}

int api_client_get_json(struct api_client *c, const char *path_and_query, json_t **ret,
                        struct error **reterr)
{
        long status = 0;
        int r = api_client_request(c, "GET", path_and_query, NULL, NULL, 0, &status, ret, reterr);

        if (r < 0)
                return r;
        if (status != 200) {
                json_decref(*ret);
                *ret = NULL;
                return error_set(reterr, EIO, "GET %s: HTTP %ld", path_and_query, status);
        }
        return 0;
}

int api_client_preferred_resources(struct api_client *c, api_client_resource_list_fn each,
                                   void *ctx, struct error **reterr)
{
        cleanup_json json_t *core = NULL, *groups = NULL;
        size_t i;
        json_t *g;
        int r;

        r = api_client_get_json(c, "/api/v1", &core, reterr);
        if (r < 0)
                return r;
        each(ctx, core, "/api/v1", "");
        r = api_client_get_json(c, "/apis", &groups, reterr);
        if (r < 0)
                return r;
        json_array_foreach(json_object_get(groups, "groups"), i, g) {
                const char *gv = json_path_string_or_empty(g, "preferredVersion.groupVersion");
                cleanup_free char *prefix = xasprintf("/apis/%s", gv);
                cleanup_json json_t *list = NULL;

                if (!*gv)
                        continue;
                r = api_client_get_json(c, prefix, &list, reterr);
                if (r < 0)
                        return r;
                each(ctx, list, prefix, json_path_string_or_empty(g, "name"));
        }
        return 0;
}

/* ------------------------------------------------------------------ raw connections */

int api_client_connect_raw(struct api_client *c, struct error **reterr)
{
        struct transfer t;
        CURLcode cc;
        int r = 0;

        transfer_init(&t, c, 0);
        (void) curl_easy_setopt(c->curl, CURLOPT_URL, c->server_url);
        (void) curl_easy_setopt(c->curl, CURLOPT_CONNECT_ONLY, 1L);
        (void) curl_easy_setopt(c->curl, CURLOPT_XFERINFODATA, &t);
        c->errbuf[0] = '\0';
        cc = curl_easy_perform(c->curl);
        if (cc != CURLE_OK)
                r = transfer_error(c, &t, cc, "connect", reterr);
        transfer_release(&t);
        return r;
}

int api_client_raw_fd(struct api_client *c)
{
        curl_socket_t fd = CURL_SOCKET_BAD;

        if (curl_easy_getinfo(c->curl, CURLINFO_ACTIVESOCKET, &fd) != CURLE_OK)
                return -1;
        return fd == CURL_SOCKET_BAD ? -1 : (int) fd;
}

int api_client_raw_send(struct api_client *c, const void *buf, size_t n)
{
        const char *p = buf;

        while (n) {
                size_t sent = 0;
                CURLcode cc = curl_easy_send(c->curl, p, n, &sent);

                if (cc == CURLE_AGAIN) {
                        struct pollfd pf = { .fd = api_client_raw_fd(c), .events = POLLOUT };
                        if (pf.fd < 0 || poll(&pf, 1, 1000) < 0)
                                return -EPIPE;
                        continue;
                }
                if (cc != CURLE_OK)
                        return -EPIPE;
                p += sent;
                n -= sent;
        }
        return 0;
}

ssize_t api_client_raw_recv(struct api_client *c, void *buf, size_t n)
{
        size_t got = 0;
        CURLcode cc = curl_easy_recv(c->curl, buf, n, &got);

        if (cc == CURLE_AGAIN)
                return -EAGAIN;
        if (cc != CURLE_OK)
                return -EIO;
        return (ssize_t) got;
}
