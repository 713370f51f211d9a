/* test-http-server.c: the HTTP server (http-server.h) on a random loopback port, spoken to
 * over raw sockets so every byte is visible: what the handler receives (method, path, query,
 * headers, body, the oversized-body flag), what goes back (status, content type, Warning
 * headers, a chunked stream read to its end), a stream freed when its client hangs up while
 * it has nothing to say, listen address errors, and HTTPS with the cluster's certificate. And
 * the limits: a request head trickled in byte by byte is cut at its deadline, a silent connection
 * too, a client address past its connection limit is closed at once while another address is
 * served, and a quiet stream is read again as soon as its wake descriptor fires. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <ftw.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "apiserver/pki.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/strbuf.h"
#include "base/timeutil.h"
#include "client/client.h"
#include "http/http-server.h"

/* ---- a raw client ---- */

static int dial(unsigned port)
{
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t) port) };
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

        assert_true(fd >= 0);
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        assert_int_equal(connect(fd, (struct sockaddr *) &a, sizeof(a)), 0);
        return fd;
}

static void send_all(int fd, const char *buf, size_t n)
{
        while (n > 0) {
                ssize_t w = send(fd, buf, n, MSG_NOSIGNAL);
                assert_true(w > 0);
                buf += w;
                n -= (size_t) w;
        }
}

struct reply {
        int status;
        struct strbuf head; /* status line and headers, as received */
        struct strbuf body; /* de-chunked */
};

static void reply_release(struct reply *r)
{
        strbuf_release(&r->head);
        strbuf_release(&r->body);
}

/* Decodes a chunked body; fails the test on bad framing. */
static void dechunk(const char *p, size_t n, struct strbuf *out)
{
        const char *end = p + n;

        for (;;) {
                char *q;
                unsigned long len = strtoul(p, &q, 16);

                assert_true(q + 2 <= end && q[0] == '\r' && q[1] == '\n');
                p = q + 2;
                if (len == 0)
                        return;
                assert_true(p + len + 2 <= end);
                strbuf_add(out, p, len);
                p += len + 2;
        }
}

/* Sends raw (which should say "Connection: close") and reads the reply to the end. */
static void request(unsigned port, const char *raw, size_t raw_len, struct reply *r)
{
        int fd = dial(port);
        struct strbuf all;
        char buf[4096], *sep;
        ssize_t n;

        strbuf_init(&all);
        strbuf_init(&r->head);
        strbuf_init(&r->body);
        send_all(fd, raw, raw_len);
        while ((n = recv(fd, buf, sizeof(buf), 0)) > 0)
                strbuf_add(&all, buf, (size_t) n);
        close(fd);
        sep = strstr(all.buf, "\r\n\r\n");
        assert_non_null(sep);
        strbuf_add(&r->head, all.buf, (size_t) (sep - all.buf) + 2);
        assert_int_equal(sscanf(all.buf, "HTTP/1.1 %d ", &r->status), 1);
        if (strcasestr(r->head.buf, "Transfer-Encoding: chunked"))
                dechunk(sep + 4, all.len - (size_t) (sep + 4 - all.buf), &r->body);
        else
                strbuf_add(&r->body, sep + 4, all.len - (size_t) (sep + 4 - all.buf));
        strbuf_release(&all);
}

static void get(unsigned port, const char *target, struct reply *r)
{
        cleanup_free char *raw =
                xasprintf("GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", target);

        request(port, raw, strlen(raw), r);
}

/* ---- handlers ---- */

/* What the echo handler saw, as JSON. */
static void echo_handler(void *ud, const struct http_request *req, struct http_response *resp)
{
        json_t *q, *o;

        if (req->malformed) {
                http_response_text(resp, 400, req->malformed);
                return;
        }
        q = json_array();
        for (size_t i = 0; i < req->n_query; i++)
                json_array_append_new(q,
                                      json_pack("[s,s]", req->query[i].key, req->query[i].value));
        o = json_pack("{s:s, s:s, s:o, s:s?, s:s?, s:s?, s:s#, s:b, s:s?}", "method", req->method,
                      "path", req->path, "query", q, "accept", req->accept, "contentType",
                      req->content_type, "authorization", req->authorization, "body",
                      req->body ? req->body : "", (int) req->body_len, "tooLarge",
                      req->body_too_large, "x", http_request_query(req, "x"));
        http_response_json(resp, 201, o);
        http_response_add_warning(resp, "first \"quoted\" \\ warning");
        http_response_add_warning(resp, "second");
        http_response_add_warning(resp, "second"); /* deduplicated */
        json_decref(o);
}

struct counting_stream {
        atomic_int reads;
        atomic_int frees;
        int pieces; /* -1: never ends, never produces */
};

static ssize_t counting_read(void *ctx, char *buf, size_t max)
{
        struct counting_stream *c = ctx;
        int n = atomic_fetch_add(&c->reads, 1);

        if (c->pieces < 0) {
                usleep(50000);
                return 0;
        }
        if (n >= c->pieces)
                return -1;
        if (n % 2 == 1)
                return 0; /* nothing ready this time */
        return snprintf(buf, max, "piece %d\n", n);
}

static void counting_free(void *ctx)
{
        struct counting_stream *c = ctx;

        atomic_fetch_add(&c->frees, 1);
}

static struct counting_stream the_stream;

static void stream_handler(void *ud, const struct http_request *req, struct http_response *resp)
{
        resp->status = 200;
        resp->content_type = "text/plain";
        resp->stream = (struct http_stream){ .read = counting_read,
                                             .free = counting_free,
                                             .ctx = &the_stream };
}

static struct http_server *start(http_handler_fn handler, size_t max_body, unsigned *ret_port)
{
        struct http_server_options o = { .listen = "127.0.0.1:0",
                                         .handler = handler,
                                         .max_body_bytes = max_body };
        cleanup_error struct error *err = NULL;
        struct http_server *h = NULL;

        if (http_server_start(&o, &h, &err) < 0)
                fail_msg("http_server_start: %s", err->message);
        *ret_port = http_server_port(h);
        assert_true(*ret_port > 0);
        return h;
}

/* ---- tests ---- */

static void test_request_reaches_handler(void **state)
{
        unsigned port;
        struct http_server *h = start(echo_handler, 0, &port);
        static const char raw[] =
                "POST /a/b%20c?x=1&flag&y=two%2Fthree&x=2 HTTP/1.1\r\nHost: x\r\n"
                "Accept: application/json\r\nContent-Type: text/plain\r\n"
                "Authorization: Bearer tok\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello";
        struct reply r;
        cleanup_json json_t *j = NULL;

        request(port, raw, strlen(raw), &r);
        assert_int_equal(r.status, 201);
        assert_non_null(strstr(r.head.buf, "Content-Type: application/json\r\n"));
        assert_non_null(
                strstr(r.head.buf, "Warning: 299 - \"first \\\"quoted\\\" \\\\ warning\"\r\n"));
        assert_non_null(strstr(r.head.buf, "Warning: 299 - \"second\"\r\n"));
        assert_null(strstr(strstr(r.head.buf, "\"second\"") + 8, "\"second\""));
        j = json_loads(r.body.buf, 0, NULL);
        assert_non_null(j);
        assert_string_equal(json_path_string(j, "method"), "POST");
        assert_string_equal(json_path_string(j, "path"), "/a/b c");
        assert_string_equal(json_path_string(j, "accept"), "application/json");
        assert_string_equal(json_path_string(j, "contentType"), "text/plain");
        assert_string_equal(json_path_string(j, "authorization"), "Bearer tok");
        assert_string_equal(json_path_string(j, "body"), "hello");
        assert_false(json_is_true(json_object_get(j, "tooLarge")));
        /* the first x wins; a key without '=' reads as "" */
        assert_string_equal(json_path_string(j, "x"), "1");
        {
                cleanup_free char *q = json_dump_compact(json_object_get(j, "query"));
                assert_string_equal(q, "[[\"x\",\"1\"],[\"flag\",\"\"],"
                                       "[\"y\",\"two/three\"],[\"x\",\"2\"]]");
        }
        reply_release(&r);
        http_server_stop(h);
}

/* Every parameter reaches the handler, however many; an escaped NUL or invalid UTF-8 in the
 * path or a parameter marks the request malformed instead of cutting a string short. */
static void test_query_complete_and_malformed_flagged(void **state)
{
        unsigned port;
        struct http_server *h = start(echo_handler, 0, &port);
        static const char *const malformed[] = {
                "GET /pods/victim%00not-victim HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                "GET /pods/%ff HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                "GET /pods?a=b%00c HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                "GET /pods?a%c0%80=b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        };
        struct strbuf raw;
        struct reply r;
        cleanup_json json_t *j = NULL;

        (void) state;
        strbuf_init(&raw);
        strbuf_addstr(&raw, "GET /p?");
        for (int i = 1; i <= 200; i++)
                strbuf_addf(&raw, "k%d=%d&", i, i);
        strbuf_addstr(&raw, "x=last HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        request(port, raw.buf, raw.len, &r);
        assert_int_equal(r.status, 201);
        j = json_loads(r.body.buf, 0, NULL);
        assert_int_equal(json_array_size(json_object_get(j, "query")), 201);
        assert_string_equal(json_path_string(j, "x"), "last");
        reply_release(&r);
        strbuf_release(&raw);
        for (size_t i = 0; i < sizeof(malformed) / sizeof(malformed[0]); i++) {
                request(port, malformed[i], strlen(malformed[i]), &r);
                assert_int_equal(r.status, 400);
                assert_non_null(strstr(r.body.buf, "not valid UTF-8"));
                reply_release(&r);
        }
        http_server_stop(h);
}

static void test_body_over_cap_is_flagged(void **state)
{
        unsigned port;
        struct http_server *h = start(echo_handler, 16, &port);
        struct reply r;
        cleanup_json json_t *j = NULL;
        static const char exact[] = "PUT / HTTP/1.1\r\nHost: x\r\nContent-Length: 16\r\n"
                                    "Connection: close\r\n\r\n0123456789abcdef";
        static const char over[] = "PUT / HTTP/1.1\r\nHost: x\r\nContent-Length: 17\r\n"
                                   "Connection: close\r\n\r\n0123456789abcdefg";

        request(port, exact, strlen(exact), &r);
        j = json_loads(r.body.buf, 0, NULL);
        assert_string_equal(json_path_string(j, "body"), "0123456789abcdef");
        assert_false(json_is_true(json_object_get(j, "tooLarge")));
        json_decref(TAKE_PTR(j));
        reply_release(&r);

        request(port, over, strlen(over), &r);
        j = json_loads(r.body.buf, 0, NULL);
        assert_string_equal(json_path_string(j, "body"), "");
        assert_true(json_is_true(json_object_get(j, "tooLarge")));
        reply_release(&r);
        http_server_stop(h);
}

static void test_stream_is_sent_chunked_to_its_end(void **state)
{
        unsigned port;
        struct http_server *h;
        struct reply r;

        the_stream = (struct counting_stream){ .pieces = 7 };
        h = start(stream_handler, 0, &port);
        get(port, "/s", &r);
        assert_int_equal(r.status, 200);
        assert_non_null(strcasestr(r.head.buf, "Transfer-Encoding: chunked"));
        assert_non_null(strstr(r.head.buf, "Content-Type: text/plain\r\n"));
        assert_string_equal(r.body.buf, "piece 0\npiece 2\npiece 4\npiece 6\n");
        reply_release(&r);
        http_server_stop(h);
        assert_int_equal(atomic_load(&the_stream.frees), 1);
}

static void test_stream_freed_when_client_hangs_up(void **state)
{
        static const char raw[] = "GET /quiet HTTP/1.1\r\nHost: x\r\n\r\n";
        unsigned port;
        struct http_server *h;
        char buf[512];
        int64_t deadline;
        int fd;

        the_stream = (struct counting_stream){ .pieces = -1 };
        h = start(stream_handler, 0, &port);
        fd = dial(port);
        send_all(fd, raw, strlen(raw));
        assert_true(recv(fd, buf, sizeof(buf), 0) > 0); /* the headers */
        usleep(200000);
        assert_int_equal(atomic_load(&the_stream.frees), 0);
        close(fd);
        deadline = time_monotonic_ms() + 3000;
        while (atomic_load(&the_stream.frees) == 0 && time_monotonic_ms() < deadline)
                usleep(10000);
        /* freed while the server runs, not only at its shutdown */
        assert_int_equal(atomic_load(&the_stream.frees), 1);
        http_server_stop(h);
        assert_int_equal(atomic_load(&the_stream.frees), 1);
}

static void test_stop_frees_running_streams(void **state)
{
        static const char raw[] = "GET /quiet HTTP/1.1\r\nHost: x\r\n\r\n";
        unsigned port;
        struct http_server *h;
        char buf[512];
        int fd;

        the_stream = (struct counting_stream){ .pieces = -1 };
        h = start(stream_handler, 0, &port);
        fd = dial(port);
        send_all(fd, raw, strlen(raw));
        assert_true(recv(fd, buf, sizeof(buf), 0) > 0);
        http_server_stop(h);
        assert_int_equal(atomic_load(&the_stream.frees), 1);
        close(fd);
}

static void test_listen_errors(void **state)
{
        static const struct {
                const char *listen;
                int want;
        } cases[] = {
                { "127.0.0.1", -EINVAL },       { "127.0.0.1:x", -EINVAL },
                { "127.0.0.1:70000", -EINVAL }, { "127.0.0.1:", -EINVAL },
                { "[::1:80", -EINVAL },         { "[zz]:80", -EINVAL },
                { "example.com:80", -EINVAL },  { "999.1.1.1:80", -EINVAL },
        };
        unsigned port;
        struct http_server *h = start(echo_handler, 0, &port), *h2 = NULL;
        cleanup_free char *taken = xasprintf("127.0.0.1:%u", port);

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                struct http_server_options o = { .listen = cases[i].listen,
                                                 .handler = echo_handler };
                cleanup_error struct error *err = NULL;

                assert_int_equal(http_server_start(&o, &h2, &err), cases[i].want);
                assert_non_null(err);
                assert_non_null(strstr(err->message, cases[i].listen));
        }
        {
                struct http_server_options o = { .listen = taken, .handler = echo_handler };
                cleanup_error struct error *err = NULL;

                assert_int_equal(http_server_start(&o, &h2, &err), -EADDRINUSE);
                assert_non_null(strstr(err->message, taken));
        }
        {
                struct http_server_options o = { .listen = "127.0.0.1:0" };
                assert_int_equal(http_server_start(&o, &h2, NULL), -EINVAL);
        }
        {
                struct http_server_options o = { .listen = "127.0.0.1:0",
                                                 .handler = echo_handler,
                                                 .cert_pem = "x" };
                assert_int_equal(http_server_start(&o, &h2, NULL), -EINVAL);
        }
        assert_null(h2);
        http_server_stop(h);
        assert_null(http_server_stop(NULL));
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
        return remove(path);
}

static void test_https(void **state)
{
        static const char *const ips[] = { "127.0.0.1", NULL };
        char dir[] = "/tmp/flexlet-test-http-XXXXXX";
        cleanup_free char *data = NULL, *ca = NULL, *url = NULL;
        cleanup_pki struct pki *p = NULL;
        cleanup_error struct error *err = NULL;
        struct http_server *h = NULL;
        unsigned port;

        assert_non_null(mkdtemp(dir));
        data = xasprintf("%s/data", dir);
        ca = xasprintf("%s/pki/ca.crt", data);
        {
                struct pki_options po = { .data_dir = data,
                                          .ip_addresses = ips,
                                          .server_url = "https://127.0.0.1:1" };
                if (pki_ensure(&po, &p, &err) < 0)
                        fail_msg("pki_ensure: %s", err->message);
        }
        {
                struct http_server_options o = { .listen = "127.0.0.1:0",
                                                 .handler = echo_handler,
                                                 .cert_pem = pki_server_cert_pem(p),
                                                 .key_pem = pki_server_key_pem(p) };
                if (http_server_start(&o, &h, &err) < 0)
                        fail_msg("%s", err->message);
        }
        port = http_server_port(h);
        url = xasprintf("https://127.0.0.1:%u", port);
        {
                struct api_client_options co = { .server_url = url, .ca_file = ca };
                cleanup_api_client struct api_client *c = NULL;
                cleanup_json json_t *j = NULL;
                long status = 0;

                assert_int_equal(api_client_new(&co, &c, NULL), 0);
                if (api_client_request(c, "GET", "/tls?x=y", NULL, NULL, 0, &status, &j, &err) < 0)
                        fail_msg("%s", err->message);
                assert_int_equal(status, 201);
                assert_string_equal(json_path_string(j, "path"), "/tls");
                assert_string_equal(json_path_string(j, "x"), "y");
        }
        {
                /* plain HTTP to a TLS port gets no HTTP answer */
                struct api_client_options co = { .server_url = url + 0 };
                cleanup_free char *plain = xasprintf("http://127.0.0.1:%u", port);
                cleanup_api_client struct api_client *c = NULL;
                long status = 0;

                co.server_url = plain;
                assert_int_equal(api_client_new(&co, &c, NULL), 0);
                assert_true(api_client_request(c, "GET", "/", NULL, NULL, 0, &status, NULL, NULL) <
                                    0 ||
                            status != 201);
        }
        http_server_stop(h);
        nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void test_response_helpers(void **state)
{
        struct http_response r;
        struct http_query_param q[] = { { "a", "1" }, { "b", NULL }, { "a", "2" } };
        struct http_request req = { .query = q, .n_query = ARRAY_SIZE(q) };
        json_t *o = json_pack("{s:i}", "n", 1);

        assert_string_equal(http_request_query(&req, "a"), "1");
        assert_string_equal(http_request_query(&req, "b"), "");
        assert_null(http_request_query(&req, "c"));

        http_response_init(&r);
        assert_int_equal(r.status, 0);
        assert_string_equal(r.content_type, "application/json");
        http_response_json(&r, 202, o);
        assert_int_equal(r.status, 202);
        assert_string_equal(r.body.buf, "{\"n\":1}");
        http_response_text(&r, 404, "gone");
        assert_int_equal(r.status, 404);
        assert_string_equal(r.content_type, "text/plain; charset=utf-8");
        assert_string_equal(r.body.buf, "gone");
        the_stream = (struct counting_stream){ .pieces = 0 };
        r.stream = (struct http_stream){ .read = counting_read,
                                         .free = counting_free,
                                         .ctx = &the_stream };
        http_response_release(&r);
        assert_int_equal(atomic_load(&the_stream.frees), 1);
        assert_null(r.stream.free);
        json_decref(o);
}

/* ---- limits ---- */

static void ok_handler(void *ud, const struct http_request *req, struct http_response *resp)
{
        http_response_text(resp, 200, "ok");
}

static struct http_server *start_with(const struct http_server_options *base, unsigned *ret_port)
{
        struct http_server_options o = *base;
        cleanup_error struct error *err = NULL;
        struct http_server *h = NULL;

        o.listen = "127.0.0.1:0";
        if (!o.handler)
                o.handler = ok_handler;
        if (http_server_start(&o, &h, &err) < 0)
                fail_msg("http_server_start: %s", err->message);
        *ret_port = http_server_port(h);
        return h;
}

/* A connection from src (an address of 127/8). */
static int dial_from(unsigned port, const char *src)
{
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t) port) };
        struct sockaddr_in b = { .sin_family = AF_INET };
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

        assert_true(fd >= 0);
        assert_int_equal(inet_pton(AF_INET, src, &b.sin_addr), 1);
        assert_int_equal(bind(fd, (struct sockaddr *) &b, sizeof(b)), 0);
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        assert_int_equal(connect(fd, (struct sockaddr *) &a, sizeof(a)), 0);
        return fd;
}

/* Whether the server closes fd within ms (EOF or reset); what it sends first is dropped. */
static bool closed_within(int fd, int ms)
{
        int64_t end = time_monotonic_ms() + ms;

        for (;;) {
                int64_t left = end - time_monotonic_ms();
                struct pollfd p = { .fd = fd, .events = POLLIN };
                char buf[512];
                ssize_t n;

                if (left <= 0 || poll(&p, 1, (int) left) <= 0)
                        return false;
                n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
                if (n == 0 || (n < 0 && errno != EAGAIN))
                        return true;
        }
}

static void test_slow_head_is_cut_at_its_deadline(void **state)
{
        struct http_server_options o = { .request_head_timeout_ms = 400, .idle_timeout_s = 60 };
        static const char head[] = "GET / HTTP/1.1\r\nHost: x\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaa";
        unsigned port;
        struct http_server *h = start_with(&o, &port);
        /* before the connect: the server's deadline runs from its accept, which comes after, so
         * however late this process is scheduled the cut is 400 ms or more after t0 */
        int64_t t0 = time_monotonic_ms();
        int slow = dial(port), silent = dial(port);
        size_t sent = 0;
        struct reply r;

        /* a byte every 50 ms: activity all along, so only a deadline on the head ends it */
        while (sent < sizeof(head) - 1 && !closed_within(slow, 50)) {
                (void) send(slow, head + sent, 1, MSG_NOSIGNAL);
                sent++;
        }
        assert_true(sent < sizeof(head) - 1);
        assert_true(time_monotonic_ms() - t0 >= 350);
        /* a connection that never says a word is cut too */
        assert_true(closed_within(silent, 5000));
        /* and a client that sends its head at once is served meanwhile and after */
        get(port, "/", &r);
        assert_int_equal(r.status, 200);
        reply_release(&r);
        close(slow);
        close(silent);
        http_server_stop(h);
}

static void test_per_client_limit(void **state)
{
        struct http_server_options o = { .max_connections_per_client = 2 };
        unsigned port;
        struct http_server *h = start_with(&o, &port);
        int fds[3] = { dial_from(port, "127.0.0.2"), dial_from(port, "127.0.0.2"),
                       dial_from(port, "127.0.0.2") };
        int closed = -1;
        struct reply r;

        /* one of the three from one address is closed at once and the other two are kept;
         * which one depends on the order the pool's threads count their accepts in */
        for (int round = 0; round < 100 && closed < 0; round++)
                for (int i = 0; i < 3 && closed < 0; i++)
                        if (closed_within(fds[i], 20))
                                closed = i;
        assert_true(closed >= 0);
        for (int i = 0; i < 3; i++)
                if (i != closed)
                        assert_false(closed_within(fds[i], 200));
        /* another address is served */
        get(port, "/", &r);
        assert_int_equal(r.status, 200);
        reply_release(&r);
        for (int i = 0; i < 3; i++)
                close(fds[i]);
        http_server_stop(h);
}

/* A stream that has something to say only once its producer wrote to the eventfd. */
struct woken_stream {
        int efd;
        atomic_int reads;
        atomic_bool ready;
        bool sent;
};

static ssize_t woken_read(void *ctx, char *buf, size_t max)
{
        struct woken_stream *w = ctx;
        eventfd_t v;

        atomic_fetch_add(&w->reads, 1);
        if (w->sent)
                return -1;
        (void) eventfd_read(w->efd, &v);
        if (!atomic_load(&w->ready))
                return 0;
        w->sent = true;
        return snprintf(buf, max, "woken\n");
}

static void woken_free(void *ctx)
{
}

static int woken_fd(void *ctx)
{
        return ((struct woken_stream *) ctx)->efd;
}

static struct woken_stream the_woken;

static void woken_handler(void *ud, const struct http_request *req, struct http_response *resp)
{
        resp->status = 200;
        resp->content_type = "text/plain";
        resp->stream = (struct http_stream){
                .read = woken_read, .free = woken_free, .ctx = &the_woken, .wake_fd = woken_fd
        };
}

static void *wake_later(void *arg)
{
        struct woken_stream *w = arg;

        usleep(300000);
        atomic_store(&w->ready, true);
        (void) eventfd_write(w->efd, 1);
        return NULL;
}

static void test_quiet_stream_waits_for_its_descriptor(void **state)
{
        struct http_server_options o = { .handler = woken_handler };
        unsigned port;
        struct http_server *h;
        pthread_t t;
        struct reply r;

        the_woken = (struct woken_stream){ .efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK) };
        assert_true(the_woken.efd >= 0);
        h = start_with(&o, &port);
        assert_int_equal(pthread_create(&t, NULL, wake_later, &the_woken), 0);
        get(port, "/", &r);
        assert_int_equal(r.status, 200);
        assert_string_equal(r.body.buf, "woken\n");
        /* parked, not polled: a handful of reads, not one per loop turn */
        assert_true(atomic_load(&the_woken.reads) < 10);
        reply_release(&r);
        (void) pthread_join(t, NULL);
        http_server_stop(h);
        close(the_woken.efd);
}

static void busy_handler(void *ud, const struct http_request *req, struct http_response *resp)
{
        http_response_text(resp, 429, "busy");
        resp->retry_after_s = 1;
}

static void test_retry_after_header(void **state)
{
        struct http_server_options o = { .handler = busy_handler };
        unsigned port;
        struct http_server *h = start_with(&o, &port);
        struct reply r;

        get(port, "/", &r);
        assert_int_equal(r.status, 429);
        assert_non_null(strcasestr(r.head.buf, "\r\nRetry-After: 1\r\n"));
        reply_release(&r);
        http_server_stop(h);
}

/* A response that is ready once the eventfd was written. */
struct later {
        int efd;
        atomic_int polls;
        atomic_int frees;
        atomic_bool ready;
};

static struct later the_later;

static bool later_poll(void *ctx, struct http_response *resp)
{
        struct later *l = ctx;
        eventfd_t v;

        atomic_fetch_add(&l->polls, 1);
        (void) eventfd_read(l->efd, &v);
        if (!atomic_load(&l->ready))
                return false;
        http_response_text(resp, 202, "later");
        return true;
}

static void later_free(void *ctx)
{
        atomic_fetch_add(&((struct later *) ctx)->frees, 1);
}

static int later_fd(void *ctx)
{
        return ((struct later *) ctx)->efd;
}

static void later_handler(void *ud, const struct http_request *req, struct http_response *resp)
{
        resp->pending = (struct http_pending){
                .poll = later_poll, .free = later_free, .ctx = &the_later, .wake_fd = later_fd
        };
}

static void *ready_later(void *arg)
{
        struct later *l = arg;

        usleep(300000);
        atomic_store(&l->ready, true);
        (void) eventfd_write(l->efd, 1);
        return NULL;
}

static void test_pending_response(void **state)
{
        struct http_server_options o = { .handler = later_handler };
        unsigned port;
        struct http_server *h;
        pthread_t t;
        struct reply r;
        int fd, polls;
        int64_t deadline;

        the_later = (struct later){ .efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK) };
        assert_true(the_later.efd >= 0);
        h = start_with(&o, &port);
        assert_int_equal(pthread_create(&t, NULL, ready_later, &the_later), 0);
        get(port, "/", &r);
        assert_int_equal(r.status, 202);
        assert_string_equal(r.body.buf, "later");
        /* parked meanwhile, not polled in a loop */
        assert_true(atomic_load(&the_later.polls) < 10);
        assert_int_equal(atomic_load(&the_later.frees), 1);
        reply_release(&r);
        (void) pthread_join(t, NULL);

        /* a client that leaves before the answer: the pending is freed, nothing is sent */
        atomic_store(&the_later.ready, false);
        polls = atomic_load(&the_later.polls);
        fd = dial(port);
        send_all(fd, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", 27);
        deadline = time_monotonic_ms() + 5000;
        while (atomic_load(&the_later.polls) == polls && time_monotonic_ms() < deadline)
                usleep(10000);
        assert_true(atomic_load(&the_later.polls) > polls);
        close(fd);
        while (atomic_load(&the_later.frees) < 2 && time_monotonic_ms() < deadline)
                usleep(10000);
        assert_int_equal(atomic_load(&the_later.frees), 2);
        http_server_stop(h);
        close(the_later.efd);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_request_reaches_handler),
                cmocka_unit_test(test_query_complete_and_malformed_flagged),
                cmocka_unit_test(test_body_over_cap_is_flagged),
                cmocka_unit_test(test_stream_is_sent_chunked_to_its_end),
                cmocka_unit_test(test_stream_freed_when_client_hangs_up),
                cmocka_unit_test(test_stop_frees_running_streams),
                cmocka_unit_test(test_listen_errors),
                cmocka_unit_test(test_https),
                cmocka_unit_test(test_response_helpers),
                cmocka_unit_test(test_slow_head_is_cut_at_its_deadline),
                cmocka_unit_test(test_per_client_limit),
                cmocka_unit_test(test_quiet_stream_waits_for_its_descriptor),
                cmocka_unit_test(test_pending_response),
                cmocka_unit_test(test_retry_after_header),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
