/* test-client.c: the API client (client.h) against an in-process libmicrohttpd server on a
 * random loopback port that answers canned responses: status and JSON, what the client sends
 * (method, headers, token, body), keep-alive reuse, bad and oversized bodies, transport
 * errors, idle timeouts, watch streams split at every kind of byte boundary, and HTTPS with
 * the CA made by the apiserver's pki module. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <ftw.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apiserver/pki.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/strbuf.h"
#include "base/timeutil.h"
#include "client/client.h"

/* ---- the canned server ---- */

struct server {
        struct MHD_Daemon *d;
        unsigned port;
        char url[64];
};

struct conn_state {
        struct strbuf body;
};

/* A response body served piece by piece: sizes cycle through `pieces`, with a pause between
 * pieces so that the client sees them in separate reads. */
struct piecewise {
        const char *data;
        size_t len;
        const size_t *pieces;
        size_t n_pieces;
        size_t next;
        useconds_t pause_us;
};

static const size_t odd_pieces[] = { 1, 2, 3, 5, 8, 13, 21, 4, 7 };

/* Every kind of boundary: multi-byte UTF-8, an escaped newline inside a string, CRLF, a blank
 * heartbeat line, an ERROR event with a Status. */
static const char watch_script[] =
        "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a-\xe6\x97\xa5\xe6\x9c\xac\"}}}\n"
        "\n"
        "{\"type\":\"MODIFIED\",\"object\":{\"metadata\":{\"name\":\"b\"},"
        "\"data\":{\"x\":\"two\\nlines\"}}}\r\n"
        "   \n"
        "{\"type\":\"DELETED\",\"object\":{\"metadata\":{\"name\":\"c\"}}}\n"
        "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"code\":410,"
        "\"reason\":\"Expired\"}}\n";

static ssize_t piecewise_read(void *cls, uint64_t pos, char *buf, size_t max)
{
        struct piecewise *p = cls;
        size_t n;

        if (pos >= p->len)
                return MHD_CONTENT_READER_END_OF_STREAM;
        n = p->n_pieces ? p->pieces[p->next++ % p->n_pieces] : p->len;
        if (n > p->len - pos)
                n = p->len - (size_t) pos;
        if (n > max)
                n = max;
        if (p->pause_us && pos > 0)
                usleep(p->pause_us);
        memcpy(buf, p->data + pos, n);
        return (ssize_t) n;
}

/* A body of `left` bytes of spaces inside brackets, produced lazily. */
struct filler {
        uint64_t total;
};

static ssize_t filler_read(void *cls, uint64_t pos, char *buf, size_t max)
{
        struct filler *f = cls;
        size_t n;

        if (pos >= f->total)
                return MHD_CONTENT_READER_END_OF_STREAM;
        n = f->total - pos < max ? (size_t) (f->total - pos) : max;
        memset(buf, ' ', n);
        if (pos == 0)
                buf[0] = '[';
        return (ssize_t) n;
}

/* Sends nothing for up to two seconds, then ends. */
static ssize_t stall_read(void *cls, uint64_t pos, char *buf, size_t max)
{
        int64_t *until = cls;

        if (time_monotonic_ms() >= *until)
                return MHD_CONTENT_READER_END_OF_STREAM;
        usleep(20000);
        return 0;
}

static struct MHD_Response *text_response(const char *text)
{
        return MHD_create_response_from_buffer(strlen(text), (void *) text, MHD_RESPMEM_MUST_COPY);
}

static struct MHD_Response *piecewise_response(const char *data, size_t len, const size_t *pieces,
                                               size_t n_pieces, useconds_t pause_us)
{
        struct piecewise *p = xcalloc(1, sizeof(*p));

        *p = (struct piecewise){ .data = data,
                                 .len = len,
                                 .pieces = pieces,
                                 .n_pieces = n_pieces,
                                 .pause_us = pause_us };
        return MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, piecewise_read, p, free);
}

/* What the client sent, as JSON. */
static struct MHD_Response *echo_response(struct MHD_Connection *conn, const char *method,
                                          const struct strbuf *body)
{
        const union MHD_ConnectionInfo *ci =
                MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        const struct sockaddr_in *peer = (const struct sockaddr_in *) ci->client_addr;
        const char *ct = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Type");
        const char *auth = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Authorization");
        const char *accept = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Accept");
        const char *q = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "q");
        cleanup_json json_t *o = json_object();
        cleanup_free char *text = NULL;

        json_object_set_new(o, "method", json_string(method));
        json_object_set_new(o, "contentType", ct ? json_string(ct) : json_null());
        json_object_set_new(o, "authorization", auth ? json_string(auth) : json_null());
        json_object_set_new(o, "accept", accept ? json_string(accept) : json_null());
        json_object_set_new(o, "q", q ? json_string(q) : json_null());
        json_object_set_new(o, "body", json_stringn(body->buf, body->len));
        json_object_set_new(o, "clientPort", json_integer(ntohs(peer->sin_port)));
        text = json_dump_compact(o);
        return text_response(text);
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *conn, const char *url,
                               const char *method, const char *version, const char *upload_data,
                               size_t *upload_data_size, void **con_cls)
{
        static const char big_line_events_fmt[] =
                "{\"type\":\"ADDED\",\"object\":{\"s\":\"%s\"}}\n";
        struct conn_state *cs = *con_cls;
        struct MHD_Response *resp;
        unsigned status = 200;
        const char *ctype = "application/json";
        enum MHD_Result ret;

        if (!cs) {
                cs = xcalloc(1, sizeof(*cs));
                strbuf_init(&cs->body);
                *con_cls = cs;
                return MHD_YES;
        }
        if (*upload_data_size) {
                strbuf_add(&cs->body, upload_data, *upload_data_size);
                *upload_data_size = 0;
                return MHD_YES;
        }

        if (streq(url, "/json")) {
                resp = text_response("{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p1\"},"
                                     "\"spec\":{\"n\":[1,2,3]}}");
        } else if (streq(url, "/echo")) {
                resp = echo_response(conn, method, &cs->body);
        } else if (streq(url, "/status404")) {
                status = 404;
                resp = text_response("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":"
                                     "\"Failure\",\"message\":\"pods \\\"x\\\" not found\","
                                     "\"reason\":\"NotFound\",\"code\":404}");
        } else if (streq(url, "/badjson")) {
                resp = text_response("{\"kind\": oops");
        } else if (streq(url, "/empty")) {
                status = 204;
                resp = text_response("");
        } else if (streq(url, "/text")) {
                ctype = "text/plain";
                resp = text_response("ok");
        } else if (streq(url, "/big")) {
                struct filler *f = xmalloc(sizeof(*f));
                f->total = (uint64_t) API_CLIENT_MAX_RESPONSE_BYTES + 1;
                resp = MHD_create_response_from_callback(f->total, 64 * 1024, filler_read, f, free);
        } else if (streq(url, "/stall")) {
                int64_t *until = xmalloc(sizeof(*until));
                *until = time_monotonic_ms() + 2000;
                resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 1024, stall_read, until,
                                                         free);
        } else if (streq(url, "/watch")) {
                resp = piecewise_response(watch_script, sizeof(watch_script) - 1, odd_pieces,
                                          ARRAY_SIZE(odd_pieces), 1000);
        } else if (streq(url, "/watch-whole")) {
                resp = piecewise_response(watch_script, sizeof(watch_script) - 1, NULL, 0, 0);
        } else if (streq(url, "/watch-large")) {
                /* Three events of 300 KiB each, far larger than one network read. */
                static char *large;
                static size_t large_len;
                if (!large) {
                        struct strbuf sb;
                        cleanup_free char *s = xmalloc(300 * 1024 + 1);
                        memset(s, 'x', 300 * 1024);
                        s[300 * 1024] = '\0';
                        strbuf_init(&sb);
                        for (int i = 0; i < 3; i++)
                                strbuf_addf(&sb, big_line_events_fmt, s);
                        large_len = sb.len;
                        large = strbuf_detach(&sb);
                }
                resp = piecewise_response(large, large_len, NULL, 0, 0);
        } else if (streq(url, "/watch-huge-line")) {
                struct filler *f = xmalloc(sizeof(*f));
                f->total = (uint64_t) API_CLIENT_MAX_EVENT_BYTES + 2;
                resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 64 * 1024, filler_read,
                                                         f, free);
        } else if (streq(url, "/watch-bad")) {
                resp = text_response("{\"type\":\"ADDED\",\"object\":{}}\n{not json}\n"
                                     "{\"type\":\"ADDED\",\"object\":{}}\n");
        } else if (streq(url, "/watch-notevent")) {
                resp = text_response("{\"type\":\"ADDED\",\"object\":{}}\n"
                                     "{\"type\":\"ADDED\",\"object\":\"pod\"}\n");
        } else if (streq(url, "/watch-truncated")) {
                resp = text_response("{\"type\":\"ADDED\",\"object\":{}}\n{\"type\":\"ADD");
        } else if (streq(url, "/watch-noeol")) {
                resp = text_response("{\"type\":\"ADDED\",\"object\":{}}\n"
                                     "{\"type\":\"DELETED\",\"object\":{\"k\":1}}");
        } else if (streq(url, "/watch-forbidden")) {
                status = 403;
                resp = text_response("{\"kind\":\"Status\",\"status\":\"Failure\",\"message\":"
                                     "\"pods is forbidden: User \\\"x\\\" cannot watch\","
                                     "\"reason\":\"Forbidden\",\"code\":403}");
        } else if (streq(url, "/watch-gone")) {
                status = 410;
                resp = text_response("{\"kind\":\"Status\",\"message\":\"too old resource "
                                     "version: 1 (5)\",\"reason\":\"Expired\",\"code\":410}");
        } else if (streq(url, "/watch-many")) {
                resp = text_response("{\"type\":\"ADDED\",\"object\":{\"i\":1}}\n"
                                     "{\"type\":\"ADDED\",\"object\":{\"i\":2}}\n"
                                     "{\"type\":\"ADDED\",\"object\":{\"i\":3}}\n"
                                     "{\"type\":\"ADDED\",\"object\":{\"i\":4}}\n");
        } else {
                status = 404;
                resp = text_response("{\"kind\":\"Status\",\"code\":404}");
        }
        (void) MHD_add_response_header(resp, "Content-Type", ctype);
        ret = MHD_queue_response(conn, status, resp);
        MHD_destroy_response(resp);
        return ret;
}

static void completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                      enum MHD_RequestTerminationCode toe)
{
        struct conn_state *cs = *con_cls;

        if (cs) {
                strbuf_release(&cs->body);
                free(cs);
                *con_cls = NULL;
        }
}

static struct server *server_start(const char *cert_pem, const char *key_pem)
{
        struct server *s = xcalloc(1, sizeof(*s));
        struct sockaddr_in sin = { .sin_family = AF_INET,
                                   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD;
        const union MHD_DaemonInfo *info;

        if (cert_pem) {
                flags |= MHD_USE_TLS;
                s->d = MHD_start_daemon(flags, 0, NULL, NULL, handler, NULL, MHD_OPTION_SOCK_ADDR,
                                        &sin, MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
                                        MHD_OPTION_HTTPS_MEM_CERT, cert_pem,
                                        MHD_OPTION_HTTPS_MEM_KEY, key_pem, MHD_OPTION_END);
        } else {
                s->d = MHD_start_daemon(flags, 0, NULL, NULL, handler, NULL, MHD_OPTION_SOCK_ADDR,
                                        &sin, MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
                                        MHD_OPTION_END);
        }
        assert_non_null(s->d);
        info = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT);
        assert_non_null(info);
        s->port = info->port;
        (void) snprintf(s->url, sizeof(s->url), "%s://127.0.0.1:%u", cert_pem ? "https" : "http",
                        s->port);
        return s;
}

static void server_stop(struct server *s)
{
        MHD_stop_daemon(s->d);
        free(s);
}

static struct api_client *client_for(const char *url, const char *ca_file, const char *token,
                                     long idle_ms)
{
        struct api_client_options o = {
                .server_url = url, .ca_file = ca_file, .token = token, .idle_timeout_ms = idle_ms
        };
        cleanup_error struct error *err = NULL;
        struct api_client *c = NULL;

        if (api_client_new(&o, &c, &err) < 0)
                fail_msg("api_client_new: %s", err->message);
        return c;
}

static int group_setup(void **state)
{
        *state = server_start(NULL, NULL);
        return 0;
}

static int group_teardown(void **state)
{
        server_stop(*state);
        return 0;
}

/* ---- plain requests ---- */

static void test_get_json(void **state)
{
        struct server *s = *state;
        cleanup_api_client struct api_client *c = client_for(s->url, NULL, NULL, 0);
        cleanup_error struct error *err = NULL;
        cleanup_json json_t *j = NULL;
        long status = 0;

        assert_int_equal(api_client_request(c, "GET", "/json", NULL, NULL, 0, &status, &j, &err),
                         0);
        assert_int_equal(status, 200);
        assert_string_equal(json_path_string(j, "kind"), "Pod");
        assert_string_equal(json_path_string(j, "metadata.name"), "p1");
        assert_int_equal(json_array_size(json_path(j, "spec.n")), 3);
}

struct sent_case {
        const char *method;
        const char *path;
        const char *content_type; /* given */
        const char *body;         /* NULL: none */
        const char *want_ct;      /* what the server sees */
        const char *want_q;
};

static void test_what_is_sent(void **state)
{
        static const struct sent_case cases[] = {
                { "GET", "/echo", NULL, NULL, NULL, NULL },
                { "GET", "/echo?q=a%20b&x=1", NULL, NULL, NULL, "a b" },
                { "POST", "/echo", NULL, "{\"a\":1}", "application/json", NULL },
                { "PUT", "/echo", "application/json", "{\"b\":2}", "application/json", NULL },
                { "PATCH", "/echo", "application/strategic-merge-patch+json",
                  "{\"spec\":{\"containers\":[{\"name\":\"c\"}]}}",
                  "application/strategic-merge-patch+json", NULL },
                { "PATCH", "/echo", "application/json-patch+json", "[]",
                  "application/json-patch+json", NULL },
                { "DELETE", "/echo", NULL, NULL, NULL, NULL },
                { "DELETE", "/echo", NULL, "{\"propagationPolicy\":\"Background\"}",
                  "application/json", NULL },
                { "POST", "/echo", "application/json", "", "application/json", NULL },
                /* After a body-carrying request, a GET on the same handle has no body. */
                { "GET", "/echo", NULL, NULL, NULL, NULL },
        };
        struct server *s = *state;
        cleanup_api_client struct api_client *c = client_for(s->url, NULL, "s3cret", 0);

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                const struct sent_case *tc = &cases[i];
                cleanup_error struct error *err = NULL;
                cleanup_json json_t *j = NULL;
                long status = 0;
                int r = api_client_request(c, tc->method, tc->path, tc->content_type, tc->body,
                                           tc->body ? strlen(tc->body) : 0, &status, &j, &err);

                if (r < 0)
                        fail_msg("case %zu: %s", i, err->message);
                assert_int_equal(status, 200);
                assert_string_equal(json_path_string(j, "method"), tc->method);
                assert_string_equal(json_path_string(j, "authorization"), "Bearer s3cret");
                assert_string_equal(json_path_string(j, "accept"), "application/json");
                assert_string_equal(json_path_string(j, "body"), tc->body ? tc->body : "");
                if (tc->want_ct)
                        assert_string_equal(json_path_string(j, "contentType"), tc->want_ct);
                else
                        assert_true(json_is_null(json_object_get(j, "contentType")));
                if (tc->want_q)
                        assert_string_equal(json_path_string(j, "q"), tc->want_q);
        }
}

/* The body is sent as exactly body_len bytes, not up to a NUL. */
static void test_body_length_respected(void **state)
{
        struct server *s = *state;
        cleanup_api_client struct api_client *c = client_for(s->url, NULL, NULL, 0);
        cleanup_json json_t *j = NULL;
        const char body[] = "{\"a\":1}TRAILING";

        assert_int_equal(api_client_request(c, "POST", "/echo", NULL, body, 7, NULL, &j, NULL), 0);
        assert_string_equal(json_path_string(j, "body"), "{\"a\":1}");
        assert_true(json_is_null(json_object_get(j, "authorization")));
}

static void test_keep_alive_reuses_connection(void **state)
{
        struct server *s = *state;
        cleanup_api_client struct api_client *c = client_for(s->url, NULL, NULL, 0);
        json_int_t first = -1;

        for (int i = 0; i < 5; i++) {
                cleanup_json json_t *j = NULL;
                const char *m = i % 2 ? "PATCH" : "GET";
                const char *body = i % 2 ? "{}" : NULL;

                assert_int_equal(
                        api_client_request(c, m, "/echo", NULL, body, body ? 2 : 0, NULL, &j, NULL),
                        0);
                if (i == 0)
                        first = json_integer_value(json_object_get(j, "clientPort"));
                else
                        assert_int_equal(json_integer_value(json_object_get(j, "clientPort")),
                                         first);
        }
        assert_true(first > 0);
}

static void test_status_is_not_an_error(void **state)
{
        struct server *s = *state;
        cleanup_api_client struct api_client *c = client_for(s->url, NULL, NULL, 0);
        cleanup_json json_t *j = NULL;
        long status = 0;

        assert_int_equal(
                api_client_request(c, "GET", "/status404", NULL, NULL, 0, &status, &j, NULL), 0);
        assert_int_equal(status, 404);
        assert_string_equal(json_path_string(j, "reason"), "NotFound");
        assert_string_equal(json_path_string(j, "message"), "pods \"x\" not found");
}

static void test_empty_and_ignored_bodies(void **state)
{
        struct server *s = *state;
        cleanup_api_client struct api_client *c = client_for(s->url, NULL, NULL, 0);
        json_t *j = json_true(); /* a singleton: overwriting it leaks nothing */
        long status = 0;

        /* Empty body: success with NULL JSON. */
        assert_int_equal(
                api_client_request(c, "DELETE", "/empty", NULL, NULL, 0, &status, &j, NULL), 0);
        assert_int_equal(status, 204);
        assert_null(j);
        /* Non-JSON body that the caller does not want decoded. */
        assert_int_equal(api_client_request(c, "GET", "/text", NULL, NULL, 0, &status, NULL, NULL),
                         0);
        assert_int_equal(status, 200);
        assert_int_equal(
                api_client_request(c, "GET", "/badjson", NULL, NULL, 0, &status, NULL, NULL), 0);
}

static void test_bad_json(void **state)
{
        struct server *s = *state;
        cleanup_api_client struct api_client *c = client_for(s->url, NULL, NULL, 0);
        cleanup_error struct error *err = NULL;
        json_t *j = NULL;
        long status = 12345;

        assert_int_equal(api_client_request(c, "GET", "/badjson", NULL, NULL, 0, &status, &j, &err),
                         -EBADMSG);
        assert_null(j);
        assert_int_equal(status, 12345); /* untouched on failure */
        assert_int_equal(err->errnum, EBADMSG);
        assert_non_null(strstr(err->message, "request \"GET /badjson\": invalid JSON"));
        error_free(TAKE_PTR(err));
        assert_int_equal(api_client_request(c, "GET", "/text", NULL, NULL, 0, NULL, &j, &err),
                         -EBADMSG);
        /* The client still works afterwards. */
        assert_int_equal(api_client_request(c, "GET", "/json", NULL, NULL, 0, &status, &j, NULL),
                         0);
        assert_int_equal(status, 200);
        json_decref(j);
}

static void test_response_over_cap(void **state)
{
        struct server *s = *state;
        cleanup_api_client struct api_client *c = client_for(s->url, NULL, NULL, 0);
        cleanup_error struct error *err = NULL;
        json_t *j = NULL;

        assert_int_equal(api_client_request(c, "GET", "/big", NULL, NULL, 0, NULL, &j, &err),
                         -EFBIG);
        assert_null(j);
        assert_non_null(strstr(err->message, "response body exceeds 67108864 bytes"));
}

static void test_idle_timeout(void **state)
{
        struct server *s = *state;
        cleanup_api_client struct api_client *c = client_for(s->url, NULL, NULL, 300);
        cleanup_error struct error *err = NULL;
        int64_t t0 = time_monotonic_ms();

        assert_int_equal(api_client_request(c, "GET", "/stall", NULL, NULL, 0, NULL, NULL, &err),
                         -ETIMEDOUT);
        assert_non_null(strstr(err->message, "no data from the server for 300 ms"));
        /* Well before the server would have ended the response on its own (2 s). */
        assert_true(time_monotonic_ms() - t0 < 1800);
}

struct cancel_call {
        struct api_client *c;
        int r;
};

static void *stalled_request_main(void *arg)
{
        struct cancel_call *call = arg;

        call->r = api_client_request(call->c, "GET", "/stall", NULL, NULL, 0, NULL, NULL, NULL);
        return NULL;
}

/* api_client_cancel from another thread ends a request waiting on the server (which would
 * answer 200 after its stall) with -ECANCELED, and every later request on that client. */
static void test_cancel(void **state)
{
        struct server *s = *state;
        cleanup_api_client struct api_client *c = client_for(s->url, NULL, NULL, 60000);
        cleanup_error struct error *err = NULL;
        struct cancel_call call = { .c = c };
        pthread_t th;

        assert_int_equal(pthread_create(&th, NULL, stalled_request_main, &call), 0);
        usleep(200 * 1000);
        api_client_cancel(c);
        assert_int_equal(pthread_join(th, NULL), 0);
        assert_int_equal(call.r, -ECANCELED);
        assert_int_equal(api_client_request(c, "GET", "/json", NULL, NULL, 0, NULL, NULL, &err),
                         -ECANCELED);
        assert_non_null(strstr(err->message, "the client was cancelled"));
}

static int free_port(void)
{
        struct sockaddr_in sin = { .sin_family = AF_INET,
                                   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        socklen_t len = sizeof(sin);
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

        assert_true(fd >= 0);
        assert_int_equal(bind(fd, (struct sockaddr *) &sin, sizeof(sin)), 0);
        assert_int_equal(getsockname(fd, (struct sockaddr *) &sin, &len), 0);
        close(fd);
        return ntohs(sin.sin_port);
}

static void test_connection_refused(void **state)
{
        char url[64];
        cleanup_api_client struct api_client *c = NULL;
        cleanup_error struct error *err = NULL;
        long status = 7;

        (void) snprintf(url, sizeof(url), "http://127.0.0.1:%d/", free_port());
        c = client_for(url, NULL, NULL, 0);
        assert_int_equal(api_client_request(c, "GET", "/json", NULL, NULL, 0, &status, NULL, &err),
                         -ECONNREFUSED);
        assert_int_equal(status, 7);
        assert_non_null(strstr(err->message, "request \"GET /json\": "));
}

struct new_case {
        const char *url;
        const char *ca_file;
        long idle;
        int want;
};

static void test_invalid_arguments(void **state)
{
        static const struct new_case cases[] = {
                { NULL, NULL, 0, -EINVAL },
                { "ftp://127.0.0.1:1", NULL, 0, -EINVAL },
                { "127.0.0.1:6443", NULL, 0, -EINVAL },
                { "https://127.0.0.1:6443", "/nonexistent/ca.crt", 0, -ENOENT },
                { "https://127.0.0.1:6443", NULL, -1, -EINVAL },
                { "HTTPS://127.0.0.1:6443", NULL, 0, 0 },
        };
        struct server *s = *state;
        cleanup_api_client struct api_client *c = client_for(s->url, NULL, NULL, 0);
        cleanup_error struct error *err = NULL;

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                struct api_client_options o = { .server_url = cases[i].url,
                                                .ca_file = cases[i].ca_file,
                                                .idle_timeout_ms = cases[i].idle };
                struct api_client *made = NULL;
                cleanup_error struct error *e = NULL;

                assert_int_equal(api_client_new(&o, &made, &e), cases[i].want);
                if (cases[i].want < 0) {
                        assert_null(made);
                        assert_non_null(e);
                        assert_int_equal(e->errnum, -cases[i].want);
                }
                api_client_free(made);
        }
        assert_int_equal(api_client_new(NULL, &(struct api_client *){ NULL }, NULL), -EINVAL);
        assert_int_equal(api_client_request(c, "GET", "json", NULL, NULL, 0, NULL, NULL, &err),
                         -EINVAL);
        assert_non_null(strstr(err->message, "the path must start with '/'"));
        assert_int_equal(api_client_watch(c, "watch", NULL, NULL, NULL), -EINVAL);
        assert_null(api_client_free(NULL));
}

/* ---- watch ---- */

struct seen {
        char types[16][16];
        json_t *objects[16];
        size_t n;
        size_t stop_after; /* 0: never */
        int stop_with;
};

static int record(void *ud, const char *type, json_t *object)
{
        struct seen *s = ud;

        assert_true(s->n < ARRAY_SIZE(s->objects));
        (void) snprintf(s->types[s->n], sizeof(s->types[0]), "%s", type);
        s->objects[s->n++] = json_incref(object);
        if (s->stop_after && s->n == s->stop_after)
                return s->stop_with;
        return 0;
}

static void seen_release(struct seen *s)
{
        for (size_t i = 0; i < s->n; i++)
                json_decref(s->objects[i]);
        s->n = 0;
}

static void check_script_events(struct seen *seen)
{
        assert_int_equal(seen->n, 4);
        assert_string_equal(seen->types[0], "ADDED");
        assert_string_equal(json_path_string(seen->objects[0], "metadata.name"),
                            "a-\xe6\x97\xa5\xe6\x9c\xac");
        assert_string_equal(seen->types[1], "MODIFIED");
        assert_string_equal(json_path_string(seen->objects[1], "data.x"), "two\nlines");
        assert_string_equal(seen->types[2], "DELETED");
        assert_string_equal(json_path_string(seen->objects[2], "metadata.name"), "c");
        assert_string_equal(seen->types[3], "ERROR");
        assert_int_equal(json_integer_value(json_object_get(seen->objects[3], "code")), 410);
}

static void test_watch_split_at_odd_boundaries(void **state)
{
        static const char *const paths[] = { "/watch", "/watch-whole" };
        struct server *s = *state;
        cleanup_api_client struct api_client *c = client_for(s->url, NULL, "tok", 0);

        for (size_t i = 0; i < ARRAY_SIZE(paths); i++) {
                struct seen seen = { .n = 0 };
                cleanup_error struct error *err = NULL;
                int r = api_client_watch(c, paths[i], record, &seen, &err);

                if (r != 0)
                        fail_msg("%s: %d %s", paths[i], r, err ? err->message : "");
                check_script_events(&seen);
                seen_release(&seen);
        }
}

static void test_watch_large_events(void **state)
{
        struct server *s = *state;
        cleanup_api_client struct api_client *c = client_for(s->url, NULL, NULL, 0);
        struct seen seen = { .n = 0 };

        assert_int_equal(api_client_watch(c, "/watch-large", record, &seen, NULL), 0);
        assert_int_equal(seen.n, 3);
        for (size_t i = 0; i < seen.n; i++)
                assert_int_equal(strlen(json_path_string(seen.objects[i], "s")), 300 * 1024);
        seen_release(&seen);
}

static void test_watch_stopped_by_callback(void **state)
{
        struct server *s = *state;
        cleanup_api_client struct api_client *c = client_for(s->url, NULL, NULL, 0);
        struct seen seen = { .stop_after = 2, .stop_with = 7 };
        cleanup_error struct error *err = NULL;
        cleanup_json json_t *j = NULL;
        long status = 0;

        assert_int_equal(api_client_watch(c, "/watch-many", record, &seen, &err), 7);
        assert_null(err);
        assert_int_equal(seen.n, 2);
        assert_int_equal(json_integer_value(json_object_get(seen.objects[1], "i")), 2);
        seen_release(&seen);

        /* A negative return is an error, reported as the handler's. */
        seen = (struct seen){ .stop_after = 3, .stop_with = -ECANCELED };
        assert_int_equal(api_client_watch(c, "/watch-many", record, &seen, &err), -ECANCELED);
        assert_int_equal(seen.n, 3);
        assert_non_null(strstr(err->message, "watch \"/watch-many\": event handler: "));
        seen_release(&seen);

        /* The same client goes on with plain requests. */
        assert_int_equal(api_client_request(c, "GET", "/json", NULL, NULL, 0, &status, &j, NULL),
                         0);
        assert_int_equal(status, 200);
}

struct watch_err_case {
        const char *path;
        int want;
        size_t events_before;
        const char *msg;
};

static void test_watch_errors(void **state)
{
        static const struct watch_err_case cases[] = {
                { "/watch-bad", -EBADMSG, 1, "watch \"/watch-bad\": event 2: invalid JSON" },
                { "/watch-notevent", -EBADMSG, 1,
                  "event 2: expected {\"type\": string, \"object\": object}" },
                { "/watch-truncated", -EPROTO, 1, "the stream ended inside an event" },
                { "/watch-forbidden", -EACCES, 0,
                  "status 403: pods is forbidden: User \"x\" cannot watch" },
                { "/watch-gone", -ESTALE, 0, "status 410: too old resource version: 1 (5)" },
                { "/nowhere", -ENOENT, 0, "status 404: no Status message" },
                { "/watch-huge-line", -EFBIG, 0, "watch event exceeds 16777216 bytes" },
        };
        struct server *s = *state;
        cleanup_api_client struct api_client *c = client_for(s->url, NULL, NULL, 0);

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                struct seen seen = { .n = 0 };
                cleanup_error struct error *err = NULL;
                int r = api_client_watch(c, cases[i].path, record, &seen, &err);

                if (r != cases[i].want)
                        fail_msg("%s: got %d (%s), want %d", cases[i].path, r,
                                 err ? err->message : "", cases[i].want);
                assert_int_equal(seen.n, cases[i].events_before);
                assert_non_null(err);
                if (!strstr(err->message, cases[i].msg))
                        fail_msg("%s: message \"%s\" lacks \"%s\"", cases[i].path, err->message,
                                 cases[i].msg);
                seen_release(&seen);
        }
}

static void test_watch_last_event_without_newline(void **state)
{
        struct server *s = *state;
        cleanup_api_client struct api_client *c = client_for(s->url, NULL, NULL, 0);
        struct seen seen = { .n = 0 };

        assert_int_equal(api_client_watch(c, "/watch-noeol", record, &seen, NULL), 0);
        assert_int_equal(seen.n, 2);
        assert_string_equal(seen.types[1], "DELETED");
        assert_int_equal(json_integer_value(json_object_get(seen.objects[1], "k")), 1);
        seen_release(&seen);
}

static void test_watch_idle_timeout(void **state)
{
        struct server *s = *state;
        cleanup_api_client struct api_client *c = client_for(s->url, NULL, NULL, 300);
        cleanup_error struct error *err = NULL;
        struct seen seen = { .n = 0 };

        assert_int_equal(api_client_watch(c, "/stall", record, &seen, &err), -ETIMEDOUT);
        assert_int_equal(seen.n, 0);
        assert_non_null(strstr(err->message, "watch \"/stall\": no data"));
}

/* ---- HTTPS with the cluster's CA ---- */

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
        return remove(path);
}

static struct pki *make_pki(const char *dir)
{
        static const char *const ips[] = { "127.0.0.1", NULL };
        struct pki_options o = { .data_dir = dir,
                                 .ip_addresses = ips,
                                 .server_url = "https://127.0.0.1:6443" };
        cleanup_error struct error *err = NULL;
        struct pki *p = NULL;

        if (pki_ensure(&o, &p, &err) < 0)
                fail_msg("pki_ensure: %s", err->message);
        return p;
}

static void test_https_with_cluster_ca(void **state)
{
        char root[] = "/tmp/flexlet-test-client-XXXXXX";
        cleanup_free char *dir = NULL, *other_dir = NULL, *ca = NULL, *other_ca = NULL;
        cleanup_pki struct pki *p = NULL, *other = NULL;
        struct server *s;

        assert_non_null(mkdtemp(root));
        dir = xasprintf("%s/a", root);
        other_dir = xasprintf("%s/b", root);
        p = make_pki(dir);
        other = make_pki(other_dir);
        ca = xasprintf("%s/pki/ca.crt", dir);
        other_ca = xasprintf("%s/pki/ca.crt", other_dir);
        s = server_start(pki_server_cert_pem(p), pki_server_key_pem(p));

        {
                cleanup_api_client struct api_client *c =
                        client_for(s->url, ca, pki_admin_token(p), 0);
                cleanup_json json_t *j = NULL;
                cleanup_error struct error *err = NULL;
                cleanup_free char *want = xasprintf("Bearer %s", pki_admin_token(p));
                long status = 0;
                json_int_t port;

                if (api_client_request(c, "GET", "/echo", NULL, NULL, 0, &status, &j, &err) < 0)
                        fail_msg("%s", err->message);
                assert_int_equal(status, 200);
                assert_string_equal(json_path_string(j, "authorization"), want);
                port = json_integer_value(json_object_get(j, "clientPort"));
                json_decref(TAKE_PTR(j));
                /* Keep-alive over TLS too. */
                assert_int_equal(
                        api_client_request(c, "GET", "/echo", NULL, NULL, 0, &status, &j, NULL), 0);
                assert_int_equal(json_integer_value(json_object_get(j, "clientPort")), port);
        }
        {
                /* A CA that did not sign the server's certificate, and the system's. */
                const char *cas[] = { other_ca, NULL };
                for (size_t i = 0; i < ARRAY_SIZE(cas); i++) {
                        cleanup_api_client struct api_client *c =
                                client_for(s->url, cas[i], NULL, 0);
                        cleanup_error struct error *err = NULL;

                        assert_int_equal(api_client_request(c, "GET", "/json", NULL, NULL, 0, NULL,
                                                            NULL, &err),
                                         -EPROTO);
                        assert_non_null(err);
                }
        }
        server_stop(s);
        nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_get_json),
                cmocka_unit_test(test_what_is_sent),
                cmocka_unit_test(test_body_length_respected),
                cmocka_unit_test(test_keep_alive_reuses_connection),
                cmocka_unit_test(test_status_is_not_an_error),
                cmocka_unit_test(test_empty_and_ignored_bodies),
                cmocka_unit_test(test_bad_json),
                cmocka_unit_test(test_response_over_cap),
                cmocka_unit_test(test_idle_timeout),
                cmocka_unit_test(test_cancel),
                cmocka_unit_test(test_connection_refused),
                cmocka_unit_test(test_invalid_arguments),
                cmocka_unit_test(test_watch_split_at_odd_boundaries),
                cmocka_unit_test(test_watch_large_events),
                cmocka_unit_test(test_watch_stopped_by_callback),
                cmocka_unit_test(test_watch_errors),
                cmocka_unit_test(test_watch_last_event_without_newline),
                cmocka_unit_test(test_watch_idle_timeout),
                cmocka_unit_test(test_https_with_cluster_ca),
        };

        return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
