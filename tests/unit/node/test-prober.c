/* test-prober.c: the container prober: a probe's port (a number or a named container port),
 * the gRPC health check's request and answer bytes, and the prober's threads against real
 * sockets on loopback: a tcpSocket readiness probe turns ready once its thresholds are met,
 * a liveness probe on a closed port gives the kill verdict after failureThreshold attempts with
 * the kubelet's words, liveness waits for the startup probe, an exec probe without a command is
 * a prober error, and forgotten runs stop being probed; prober_probe_total counts attempts by
 * result (not errors), prober_probe_duration_seconds times successes, and a forgotten pod's
 * series go. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/json.h"
#include "base/metrics.h"
#include "base/strbuf.h"
#include "base/timeutil.h"
#include "node/node-metrics.h"
#include "node/prober.h"

/* The probes of run `run` of container c of pod-1 (default/web). */
static void probe(struct prober *p, int run, const json_t *spec, const char *run_dir,
                  time_t started_at, struct probe_verdict *v)
{
        const struct probe_run r = {
                .pod_uid = "pod-1", .ns = "default", .pod = "web", .container = "c", .run = run
        };

        prober_container(p, &r, spec, "127.0.0.1", run_dir, started_at, v);
}

/* The value of prober_probe_total for (type, result) of pod-1's container c, 0 if none. */
static double probe_count(const struct node_metrics *m, const char *type, const char *result)
{
        double v = 0;

        (void) metrics_get(
                m->probe_total,
                (const char *const[]){ type, result, "c", "web", "default", "pod-1", NULL }, &v);
        return v;
}

static void test_port(void **state)
{
        json_t *c = json_pack("{s:[{s:s,s:i},{s:s,s:i}]}", "ports", "name", "web", "containerPort",
                              8080, "name", "bad", "containerPort", 70000);
        json_t *h;

        h = json_pack("{s:i}", "port", 9000);
        assert_int_equal(probe_port(h, c), 9000);
        json_decref(h);
        h = json_pack("{s:s}", "port", "web");
        assert_int_equal(probe_port(h, c), 8080);
        json_decref(h);
        h = json_pack("{s:s}", "port", "nope");
        assert_int_equal(probe_port(h, c), -EINVAL);
        json_decref(h);
        h = json_pack("{s:s}", "port", "bad"); /* a named port out of range is no port */
        assert_int_equal(probe_port(h, c), -EINVAL);
        json_decref(h);
        h = json_pack("{s:i}", "port", 0);
        assert_int_equal(probe_port(h, c), -EINVAL);
        json_decref(h);
        h = json_object();
        assert_int_equal(probe_port(h, c), -EINVAL);
        json_decref(h);
        json_decref(c);
}

static void test_grpc_bytes(void **state)
{
        unsigned char buf[64];
        static const unsigned char empty[] = { 0, 0, 0, 0, 0 };
        static const unsigned char ab[] = { 0, 0, 0, 0, 4, 0x0a, 2, 'a', 'b' };
        static const unsigned char serving[] = { 0, 0, 0, 0, 2, 0x08, 1 };
        static const unsigned char not_serving[] = { 0, 0, 0, 0, 2, 0x08, 2 };
        static const unsigned char unknown[] = { 0, 0, 0, 0, 0 }; /* proto3: status absent */
        static const unsigned char compressed[] = { 1, 0, 0, 0, 2, 0x08, 1 };
        static const unsigned char short_frame[] = { 0, 0, 0, 0, 9, 0x08, 1 };
        static const unsigned char bad_varint[] = { 0, 0, 0, 0, 2, 0x08, 0x80 };

        assert_int_equal(probe_grpc_request("", buf, sizeof(buf)), 5);
        assert_memory_equal(buf, empty, 5);
        assert_int_equal(probe_grpc_request("ab", buf, sizeof(buf)), 9);
        assert_memory_equal(buf, ab, 9);
        assert_int_equal(probe_grpc_request("ab", buf, 8), 0); /* does not fit */

        assert_int_equal(probe_grpc_status(serving, sizeof(serving)), 1);
        assert_int_equal(probe_grpc_status(not_serving, sizeof(not_serving)), 2);
        assert_int_equal(probe_grpc_status(unknown, sizeof(unknown)), 0);
        assert_int_equal(probe_grpc_status(compressed, sizeof(compressed)), -EINVAL);
        assert_int_equal(probe_grpc_status(short_frame, sizeof(short_frame)), -EINVAL);
        assert_int_equal(probe_grpc_status(bad_varint, sizeof(bad_varint)), -EINVAL);
        assert_int_equal(probe_grpc_status(serving, 3), -EINVAL);
}

/* ---- the prober against loopback */

static pthread_mutex_t wake_lock = PTHREAD_MUTEX_INITIALIZER;
static int wakes;

static void on_wake(void *ud, const char *uid)
{
        (void) ud;
        assert_string_equal(uid, "pod-1");
        pthread_mutex_lock(&wake_lock);
        wakes++;
        pthread_mutex_unlock(&wake_lock);
}

/* A listening loopback socket; its port in *ret_port. */
static int listener(int *ret_port)
{
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        socklen_t len = sizeof(a);
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

        assert_true(fd >= 0);
        assert_int_equal(bind(fd, (struct sockaddr *) &a, sizeof(a)), 0);
        assert_int_equal(listen(fd, 64), 0);
        assert_int_equal(getsockname(fd, (struct sockaddr *) &a, &len), 0);
        *ret_port = ntohs(a.sin_port);
        return fd;
}

/* A port nothing listens on (bound then closed). */
static int closed_port(void)
{
        int port, fd = listener(&port);
        close(fd);
        return port;
}

/* Asks until pred holds on the verdict, up to 10 s (the prober's threads run on their own). */
static void wait_verdict(struct prober *p, const json_t *spec, int run,
                         bool (*pred)(const struct probe_verdict *), struct probe_verdict *v,
                         char **events, size_t *n_events)
{
        int64_t deadline = time_monotonic_ms() + 10000;

        for (;;) {
                probe(p, run, spec, NULL, time(NULL) - 100, v);
                for (size_t i = 0; i < v->n_unhealthy; i++) {
                        if (events && *n_events < 16)
                                events[(*n_events)++] = v->unhealthy[i];
                        else
                                free(v->unhealthy[i]);
                }
                if (pred(v) || time_monotonic_ms() > deadline)
                        return;
                usleep(20000);
        }
}

static bool is_ready(const struct probe_verdict *v)
{
        return v->ready;
}

static bool is_killed(const struct probe_verdict *v)
{
        return v->kill_for != PROBE_TYPE_MAX;
}

static void test_readiness_and_liveness(void **state)
{
        struct metrics_registry *reg = metrics_registry_new();
        struct node_metrics m;
        struct strbuf text;
        struct prober *p = NULL;
        struct probe_verdict v;
        char *events[16];
        size_t n = 0;
        int port, fd = listener(&port), dead = closed_port();
        json_t *spec;
        cleanup_free char *want = NULL;

        assert_int_equal(node_metrics_register(reg, "node-1", &m, NULL), 0);
        assert_int_equal(prober_new(2, on_wake, NULL, &m, &p, NULL), 0);
        spec = json_pack("{s:s, s:{s:{s:i}, s:i, s:i}}", "name", "c", "readinessProbe", "tcpSocket",
                         "port", port, "periodSeconds", 1, "successThreshold", 2);
        /* readiness starts as failure: not ready before the first attempts */
        probe(p, 0, spec, NULL, time(NULL) - 100, &v);
        assert_true(v.started);
        assert_false(v.ready);
        assert_int_equal(v.kill_for, PROBE_TYPE_MAX);
        wait_verdict(p, spec, 0, is_ready, &v, NULL, NULL);
        assert_true(v.ready);
        assert_true(probe_count(&m, "Readiness", "successful") >= 2);
        assert_true(probe_count(&m, "Readiness", "failed") == 0);
        json_decref(spec);

        /* liveness on a closed port: failureThreshold 2 gives the kill verdict, after
         * "Liveness probe failed" events in Go's words */
        spec = json_pack("{s:s, s:{s:{s:i}, s:i, s:i, s:i}}", "name", "c", "livenessProbe",
                         "tcpSocket", "port", dead, "periodSeconds", 1, "failureThreshold", 2,
                         "terminationGracePeriodSeconds", 5);
        probe(p, 1, spec, NULL, time(NULL) - 100, &v);
        assert_true(v.ready); /* no readiness probe: ready */
        assert_int_equal(v.kill_for, PROBE_TYPE_MAX);
        wait_verdict(p, spec, 1, is_killed, &v, events, &n);
        assert_int_equal(v.kill_for, PROBE_LIVENESS);
        assert_int_equal(v.kill_grace_s, 5);
        assert_true(n >= 1);
        want = xasprintf(
                "Liveness probe failed: dial tcp 127.0.0.1:%d: connect: connection refused", dead);
        assert_string_equal(events[0], want);
        for (size_t i = 0; i < n; i++)
                free(events[i]);
        assert_true(probe_count(&m, "Liveness", "failed") >= 2);
        assert_true(probe_count(&m, "Liveness", "successful") == 0);
        pthread_mutex_lock(&wake_lock);
        assert_true(wakes > 0);
        pthread_mutex_unlock(&wake_lock);
        json_decref(spec);
        /* successes are timed; a forgotten pod's series go with it */
        strbuf_init(&text);
        assert_int_equal(metrics_render(reg, &text, NULL), 0);
        assert_non_null(strstr(text.buf, "prober_probe_duration_seconds_count{container=\"c\","
                                         "namespace=\"default\",pod=\"web\","
                                         "probe_type=\"Readiness\"} "));
        assert_non_null(strstr(text.buf, "prober_probe_total{container=\"c\","
                                         "namespace=\"default\",pod=\"web\",pod_uid=\"pod-1\","
                                         "probe_type=\"Liveness\",result=\"failed\"} "));
        strbuf_release(&text);
        prober_forget_pod(p, "pod-1");
        strbuf_init(&text);
        assert_int_equal(metrics_render(reg, &text, NULL), 0);
        assert_null(strstr(text.buf, "prober_probe"));
        strbuf_release(&text);
        prober_free(p);
        metrics_registry_free(reg);
        close(fd);
}

static void test_startup_gates_and_exec_errors(void **state)
{
        struct prober *p = NULL;
        struct probe_verdict v;
        char *events[16];
        size_t n = 0;
        int dead = closed_port();
        json_t *spec;

        assert_int_equal(prober_new(1, NULL, NULL, NULL, &p, NULL), 0);
        /* the startup probe never succeeds: liveness (which would fail at once) never runs, the
         * container is not started, and the startup probe itself gives the kill verdict */
        spec = json_pack("{s:s, s:{s:{s:i}, s:i, s:i}, s:{s:{s:i}, s:i, s:i}}", "name", "c",
                         "startupProbe", "tcpSocket", "port", dead, "periodSeconds", 1,
                         "failureThreshold", 2, "livenessProbe", "tcpSocket", "port", dead,
                         "periodSeconds", 1, "failureThreshold", 1);
        wait_verdict(p, spec, 0, is_killed, &v, events, &n);
        assert_int_equal(v.kill_for, PROBE_STARTUP);
        assert_false(v.started);
        assert_false(v.ready);
        for (size_t i = 0; i < n; i++) {
                assert_non_null(strstr(events[i], "Startup probe failed: "));
                free(events[i]);
        }
        json_decref(spec);

        /* an exec probe without a command: a prober error, and readiness keeps its initial
         * result (running commands in containers is tests/e2e/test-probes.sh's) */
        n = 0;
        spec = json_pack("{s:s, s:{s:{s:[]}, s:i}}", "name", "c", "readinessProbe", "exec",
                         "command", "periodSeconds", 1);
        {
                int64_t deadline = time_monotonic_ms() + 5000;
                while (n == 0 && time_monotonic_ms() < deadline) {
                        probe(p, 1, spec, "/nonexistent/run", time(NULL), &v);
                        for (size_t i = 0; i < v.n_unhealthy; i++)
                                events[n++] = v.unhealthy[i];
                        usleep(20000);
                }
        }
        assert_true(n >= 1);
        assert_string_equal(events[0], "Readiness probe errored: exec probe without a command");
        assert_false(v.ready);
        for (size_t i = 0; i < n; i++)
                free(events[i]);
        json_decref(spec);

        /* a pass that does not name run 1 forgets it; forgetting the pod forgets the rest */
        prober_pod_begin(p, "pod-1");
        prober_pod_end(p, "pod-1");
        prober_forget_pod(p, "pod-1");
        prober_free(p);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_port),
                cmocka_unit_test(test_grpc_bytes),
                cmocka_unit_test(test_readiness_and_liveness),
                cmocka_unit_test(test_startup_gates_and_exec_errors),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
