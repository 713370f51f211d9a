/* test-client-stream.c: api_client_get_stream against flexlet's own HTTP server on a random
 * loopback port: the status told once and before any body (also when the body is late or
 * empty), the body as it arrives, error statuses with their bodies, callbacks that stop the
 * transfer (and the server noticing), no idle timeout for a quiet stream, a connection that
 * breaks mid-body, and the client's reuse afterwards. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/strbuf.h"
#include "base/timeutil.h"
#include "client/client.h"
#include "http/http-server.h"

/* ---- the server: /text/N/PAUSE_MS streams N lines with a pause before each ---- */

struct lines {
        int n, next;
        int pause_ms;
};

static atomic_int streams_freed;

static ssize_t lines_read(void *ctx, char *buf, size_t max)
{
        struct lines *l = ctx;

        if (l->n < 0) { /* quiet forever */
                usleep(100000);
                return 0;
        }
        if (l->next >= l->n)
                return -1;
        if (l->pause_ms)
                usleep((useconds_t) l->pause_ms * 1000);
        return snprintf(buf, max, "line %d\n", l->next++);
}

static void lines_free(void *ctx)
{
        free(ctx);
        atomic_fetch_add(&streams_freed, 1);
}

static void handler(void *ud, const struct http_request *req, struct http_response *resp)
{
        struct lines *l;
        int n, pause;

        if (streq(req->path, "/missing")) {
                http_response_text(resp, 404, "pod \"p\" does not exist");
                return;
        }
        if (streq(req->path, "/empty")) {
                http_response_text(resp, 204, "");
                return;
        }
        if (sscanf(req->path, "/text/%d/%d", &n, &pause) != 2) {
                http_response_text(resp, 400, "bad path");
                return;
        }
        l = xcalloc(1, sizeof(*l));
        l->n = n;
        l->pause_ms = pause;
        resp->status = 200;
        resp->content_type = "text/plain";
        resp->stream = (struct http_stream){ .read = lines_read, .free = lines_free, .ctx = l };
}

static struct http_server *server;
static char url[64];

static int setup(void **state)
{
        struct http_server_options o = { .listen = "127.0.0.1:0", .handler = handler };

        if (http_server_start(&o, &server, NULL) < 0)
                return -1;
        snprintf(url, sizeof(url), "http://127.0.0.1:%u", http_server_port(server));
        return 0;
}

static int teardown(void **state)
{
        http_server_stop(server);
        return 0;
}

/* ---- the receiver ---- */

struct sink {
        long status;
        int n_status;
        bool data_before_status;
        int64_t status_at_ms;
        struct strbuf body;
        int stop_data_with; /* returned by data() once the body holds a '\n' */
        int idle_calls;
        int stop_idle_after; /* 0: never */
};

static int on_status(void *ud, long status)
{
        struct sink *s = ud;

        s->status = status;
        s->n_status++;
        s->status_at_ms = time_monotonic_ms();
        return 0;
}

static int on_data(void *ud, const char *buf, size_t n)
{
        struct sink *s = ud;

        if (s->n_status == 0)
                s->data_before_status = true;
        strbuf_add(&s->body, buf, n);
        if (s->stop_data_with && strchr(s->body.buf, '\n'))
                return s->stop_data_with;
        return 0;
}

static int on_idle(void *ud)
{
        struct sink *s = ud;

        s->idle_calls++;
        return s->stop_idle_after && s->idle_calls >= s->stop_idle_after ? 1 : 0;
}

static const struct api_client_stream_ops ops = {
        .status = on_status,
        .data = on_data,
        .idle = on_idle,
};

static struct api_client *client(long idle_timeout_ms)
{
        struct api_client_options o = { .server_url = url, .idle_timeout_ms = idle_timeout_ms };
        struct api_client *c = NULL;

        assert_int_equal(api_client_new(&o, &c, NULL), 0);
        return c;
}

static void sink_init(struct sink *s)
{
        *s = (struct sink){ 0 };
        strbuf_init(&s->body);
}

/* ---- tests ---- */

static void test_body_arrives_after_status(void **state)
{
        cleanup_api_client struct api_client *c = client(0);
        cleanup_error struct error *err = NULL;
        struct sink s;

        sink_init(&s);
        assert_int_equal(api_client_get_stream(c, "/text/5/20", &ops, &s, &err), 0);
        assert_int_equal(s.status, 200);
        assert_int_equal(s.n_status, 1);
        assert_false(s.data_before_status);
        assert_string_equal(s.body.buf, "line 0\nline 1\nline 2\nline 3\nline 4\n");
        strbuf_release(&s.body);
}

static void test_status_before_a_late_body(void **state)
{
        cleanup_api_client struct api_client *c = client(0);
        struct sink s;
        int64_t t0 = time_monotonic_ms();

        sink_init(&s);
        /* the first line comes after 1.5 s; the headers at once */
        assert_int_equal(api_client_get_stream(c, "/text/1/1500", &ops, &s, NULL), 0);
        assert_int_equal(s.status, 200);
        assert_true(s.status_at_ms - t0 < 1000);
        assert_true(time_monotonic_ms() - t0 >= 1500);
        assert_string_equal(s.body.buf, "line 0\n");
        strbuf_release(&s.body);
}

static void test_error_status_and_body(void **state)
{
        cleanup_api_client struct api_client *c = client(0);
        struct sink s;

        sink_init(&s);
        assert_int_equal(api_client_get_stream(c, "/missing", &ops, &s, NULL), 0);
        assert_int_equal(s.status, 404);
        assert_int_equal(s.n_status, 1);
        assert_string_equal(s.body.buf, "pod \"p\" does not exist");
        strbuf_release(&s.body);

        sink_init(&s);
        assert_int_equal(api_client_get_stream(c, "/empty", &ops, &s, NULL), 0);
        assert_int_equal(s.status, 204);
        assert_int_equal(s.n_status, 1);
        assert_int_equal(s.body.len, 0);
        strbuf_release(&s.body);
}

static void test_callbacks_stop_the_transfer(void **state)
{
        cleanup_api_client struct api_client *c = client(0);
        cleanup_error struct error *err = NULL;
        struct sink s;
        int freed = atomic_load(&streams_freed);
        int64_t deadline;

        sink_init(&s);
        s.stop_data_with = 7;
        assert_int_equal(api_client_get_stream(c, "/text/1000/10", &ops, &s, &err), 7);
        assert_null(err);
        assert_string_equal(s.body.buf, "line 0\n");
        strbuf_release(&s.body);

        sink_init(&s);
        s.stop_data_with = -ECANCELED;
        assert_int_equal(api_client_get_stream(c, "/text/1000/10", &ops, &s, &err), -ECANCELED);
        assert_non_null(err);
        assert_non_null(strstr(err->message, "request \"GET /text/1000/10\""));
        strbuf_release(&s.body);

        /* the server saw both clients go and freed both streams */
        deadline = time_monotonic_ms() + 3000;
        while (atomic_load(&streams_freed) < freed + 2 && time_monotonic_ms() < deadline)
                usleep(10000);
        assert_int_equal(atomic_load(&streams_freed), freed + 2);

        /* and the client works again */
        sink_init(&s);
        assert_int_equal(api_client_get_stream(c, "/text/2/0", &ops, &s, NULL), 0);
        assert_string_equal(s.body.buf, "line 0\nline 1\n");
        strbuf_release(&s.body);
}

static void test_idle_gives_up_on_a_quiet_stream(void **state)
{
        cleanup_api_client struct api_client *c = client(0);
        struct sink s;
        int freed = atomic_load(&streams_freed);
        int64_t t0 = time_monotonic_ms(), deadline;

        sink_init(&s);
        s.stop_idle_after = 2;
        assert_int_equal(api_client_get_stream(c, "/text/-1/0", &ops, &s, NULL), 1);
        assert_int_equal(s.status, 200);
        assert_int_equal(s.idle_calls, 2);
        assert_true(time_monotonic_ms() - t0 < 4000);
        strbuf_release(&s.body);
        deadline = time_monotonic_ms() + 3000;
        while (atomic_load(&streams_freed) < freed + 1 && time_monotonic_ms() < deadline)
                usleep(10000);
        assert_int_equal(atomic_load(&streams_freed), freed + 1);
}

static void test_no_idle_timeout(void **state)
{
        /* a request would time out after 300 ms of silence; a stream does not */
        cleanup_api_client struct api_client *c = client(300);
        struct sink s;

        sink_init(&s);
        assert_int_equal(api_client_get_stream(c, "/text/2/800", &ops, &s, NULL), 0);
        assert_string_equal(s.body.buf, "line 0\nline 1\n");
        assert_true(s.idle_calls >= 1);
        strbuf_release(&s.body);
}

/* A raw server that sends one chunk of a chunked body and hangs up. */
static void *broken_server(void *arg)
{
        int lfd = *(int *) arg, fd;
        char buf[1024];
        static const char reply[] = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
                                    "Content-Type: text/plain\r\n\r\n5\r\nhello\r\n";

        fd = accept(lfd, NULL, NULL);
        if (fd < 0)
                return NULL;
        (void) recv(fd, buf, sizeof(buf), 0);
        (void) send(fd, reply, sizeof(reply) - 1, MSG_NOSIGNAL);
        usleep(100000);
        close(fd);
        return NULL;
}

static void test_broken_body_is_an_error(void **state)
{
        struct sockaddr_in a = { .sin_family = AF_INET };
        socklen_t alen = sizeof(a);
        int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        cleanup_free char *u = NULL;
        cleanup_api_client struct api_client *c = NULL;
        cleanup_error struct error *err = NULL;
        struct api_client_options o = { 0 };
        pthread_t th;
        struct sink s;

        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        assert_int_equal(bind(lfd, (struct sockaddr *) &a, sizeof(a)), 0);
        assert_int_equal(listen(lfd, 1), 0);
        assert_int_equal(getsockname(lfd, (struct sockaddr *) &a, &alen), 0);
        u = xasprintf("http://127.0.0.1:%u", ntohs(a.sin_port));
        o.server_url = u;
        assert_int_equal(api_client_new(&o, &c, NULL), 0);
        assert_int_equal(pthread_create(&th, NULL, broken_server, &lfd), 0);

        sink_init(&s);
        assert_int_equal(api_client_get_stream(c, "/x", &ops, &s, &err), -EIO);
        assert_non_null(err);
        assert_int_equal(s.status, 200);
        assert_string_equal(s.body.buf, "hello");
        strbuf_release(&s.body);
        pthread_join(th, NULL);
        close(lfd);
}

static void test_bad_calls(void **state)
{
        cleanup_api_client struct api_client *c = client(0);
        struct api_client_stream_ops no_data = { .status = on_status };
        cleanup_error struct error *err = NULL;
        struct sink s;

        sink_init(&s);
        assert_int_equal(api_client_get_stream(c, "x", &ops, &s, NULL), -EINVAL);
        assert_int_equal(api_client_get_stream(c, NULL, &ops, &s, NULL), -EINVAL);
        assert_int_equal(api_client_get_stream(c, "/x", &no_data, &s, NULL), -EINVAL);
        assert_int_equal(s.n_status, 0);
        {
                struct api_client_options o = { .server_url = "http://127.0.0.1:1" };
                cleanup_api_client struct api_client *refused = NULL;

                assert_int_equal(api_client_new(&o, &refused, NULL), 0);
                assert_int_equal(api_client_get_stream(refused, "/x", &ops, &s, &err),
                                 -ECONNREFUSED);
                assert_non_null(strstr(err->message, "request \"GET /x\""));
        }
        assert_int_equal(s.n_status, 0);
        strbuf_release(&s.body);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_body_arrives_after_status),
                cmocka_unit_test(test_status_before_a_late_body),
                cmocka_unit_test(test_error_status_and_body),
                cmocka_unit_test(test_callbacks_stop_the_transfer),
                cmocka_unit_test(test_idle_gives_up_on_a_quiet_stream),
                cmocka_unit_test(test_no_idle_timeout),
                cmocka_unit_test(test_broken_body_is_an_error),
                cmocka_unit_test(test_bad_calls),
        };

        return cmocka_run_group_tests(tests, setup, teardown);
}
