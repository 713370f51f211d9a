/* test-status-sender.c: the node agent's status sender (node/status-sender.h) against an
 * in-process libmicrohttpd server that records every request and can hold one pod's status
 * PATCH: a held pod does not hold up another's status, events wait while a status is being
 * sent, the latest status wins, a pod's statuses are never reordered, the status handed in is
 * not changed by sending it, repeated events are counted into one, a 503 is retried, the final
 * delete follows the status and the events, stopping with a write that never gets an answer
 * ends, the pods' statuses go out before events queued with them, the version a status
 * write answered is known as the sender's own (the watch's echo of it), and events go no
 * faster than their rate limit. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/json.h"
#include "base/strbuf.h"
#include "client/client.h"
#include "node/status-sender.h"

/* ---- the recording server ---- */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static json_t *seen;        /* [{"method", "url", "body"}] in the order answered */
static bool hold_a;         /* PATCHes of pod "a" wait while set */
static bool hold_forever;   /* PATCHes of pod "d" wait until the end of the test */
static unsigned fail_c = 1; /* how many PATCHes of pod "c" get a 503 first */
static unsigned rv_counter = 100;
static unsigned a_arrived; /* PATCHes of pod "a" that reached the server */

struct conn_state {
        struct strbuf body;
};

static enum MHD_Result handler(void *cls, struct MHD_Connection *conn, const char *url,
                               const char *method, const char *version, const char *upload_data,
                               size_t *upload_data_size, void **con_cls)
{
        struct conn_state *cs = *con_cls;
        struct MHD_Response *resp;
        unsigned status = 200;
        cleanup_free char *text = NULL;
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
        pthread_mutex_lock(&lock);
        if (streq(method, "PATCH") && strstr(url, "/pods/a/")) {
                a_arrived++;
                pthread_cond_broadcast(&changed);
        }
        if (streq(method, "PATCH") && strstr(url, "/pods/a/"))
                while (hold_a)
                        pthread_cond_wait(&changed, &lock);
        if (streq(method, "PATCH") && strstr(url, "/pods/d/"))
                while (hold_forever)
                        pthread_cond_wait(&changed, &lock);
        if (streq(method, "PATCH") && strstr(url, "/pods/c/") && fail_c) {
                fail_c--;
                status = 503;
        }
        json_array_append_new(seen, json_pack("{s:s, s:s, s:s, s:i, s:i}", "method", method, "url",
                                              url, "body", cs->body.buf ?: "", "code", (int) status,
                                              "rv", (int) rv_counter));
        pthread_cond_broadcast(&changed);
        text = xasprintf("{\"metadata\":{\"resourceVersion\":\"%u\"}}", rv_counter++);
        pthread_mutex_unlock(&lock);
        if (streq(method, "POST"))
                status = 201;
        resp = MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_COPY);
        (void) MHD_add_response_header(resp, "Content-Type", "application/json");
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

/* Starts the recording server on a loopback port; its URL goes to url. */
static struct MHD_Daemon *recording_server(char *url, size_t size)
{
        struct sockaddr_in sin = { .sin_family = AF_INET,
                                   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        struct MHD_Daemon *d;

        seen = json_array();
        d = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD, 0,
                             NULL, NULL, handler, NULL, MHD_OPTION_SOCK_ADDR, &sin,
                             MHD_OPTION_NOTIFY_COMPLETED, completed, NULL, MHD_OPTION_END);
        assert_non_null(d);
        (void) snprintf(url, size, "http://127.0.0.1:%u",
                        MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT)->port);
        return d;
}

/* Waits (up to 20 s: the test's patience, not a timing it checks) until pred holds. */
static bool wait_for(bool (*pred)(void))
{
        struct timespec until;
        bool ok;

        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 20;
        pthread_mutex_lock(&lock);
        while (!(ok = pred()) && pthread_cond_timedwait(&changed, &lock, &until) == 0)
                ;
        pthread_mutex_unlock(&lock);
        return ok;
}

/* Under lock: the bodies' status.phase of the answered PATCHes of pod NAME, space-separated. */
static char *phases_of(const char *name)
{
        struct strbuf sb;
        cleanup_free char *needle = xasprintf("/pods/%s/status", name);
        size_t i;
        json_t *r;

        strbuf_init(&sb);
        json_array_foreach(seen, i, r) {
                cleanup_json json_t *body = NULL;
                if (!strstr(json_string_value(json_object_get(r, "url")), needle))
                        continue;
                body = json_loads(json_string_value(json_object_get(r, "body")), 0, NULL);
                strbuf_addf(&sb, "%s%s", sb.len ? " " : "",
                            json_path_string(body, "status.phase") ?: "?");
        }
        return strbuf_detach(&sb);
}

static size_t count_of(const char *method, const char *url_part)
{
        size_t i, n = 0;
        json_t *r;

        json_array_foreach(seen, i, r)
                n += streq(json_string_value(json_object_get(r, "method")), method) &&
                     strstr(json_string_value(json_object_get(r, "url")), url_part);
        return n;
}

static json_t *pod(const char *name)
{
        return json_pack("{s:s, s:s, s:{s:s, s:s, s:s, s:s}}", "apiVersion", "v1", "kind", "Pod",
                         "metadata", "name", name, "namespace", "ns", "uid", name,
                         "resourceVersion", "1");
}

static json_t *status(const char *phase)
{
        return json_pack("{s:s}", "phase", phase);
}

static bool b_sent(void)
{
        return count_of("PATCH", "/pods/b/status") == 1;
}
static bool a_first_arrived(void)
{
        return a_arrived == 1;
}
/* Under lock: the counts of the Events posted about pod NAME, added up. */
static json_int_t events_about(const char *name)
{
        json_int_t n = 0;
        size_t i;
        json_t *r;

        json_array_foreach(seen, i, r) {
                cleanup_json json_t *body = NULL;
                if (!streq(json_string_value(json_object_get(r, "method")), "POST"))
                        continue;
                body = json_loads(json_string_value(json_object_get(r, "body")), 0, NULL);
                if (streq(json_path_string(body, "involvedObject.name") ?: "", name))
                        n += json_integer_value(json_object_get(body, "count"));
        }
        return n;
}

static bool g_event_sent(void)
{
        return events_about("g") == 1;
}
static bool a_done(void)
{
        return count_of("PATCH", "/pods/a/status") == 2 && events_about("a") == 3;
}
static bool c_done(void)
{
        return count_of("PATCH", "/pods/c/status") == 2 && count_of("DELETE", "/pods/c") == 1;
}

static void test_sender(void **state)
{
        struct MHD_Daemon *d;
        char url[64];
        struct api_client_options copts = { 0 };
        struct status_sender *s = NULL;
        cleanup_json json_t *a = pod("a"), *b = pod("b"), *c = pod("c"), *dd = pod("d");
        cleanup_json json_t *g = pod("g");
        cleanup_json json_t *latest = NULL;
        cleanup_free char *a_phases = NULL, *c_phases = NULL;
        size_t i;
        json_t *r;

        hold_a = true;
        d = recording_server(url, sizeof(url));
        copts.server_url = url;
        assert_int_equal(status_sender_start(&copts, 4, "kubelet", "n1", &(struct event_rate){ 0 },
                                             &s, NULL),
                         0);

        /* pod a's first PATCH is held in the server; what follows for a queues behind it */
        status_sender_status(s, a, status("Pending"));
        assert_true(wait_for(a_first_arrived));
        status_sender_status(s, a, status("Running"));
        status_sender_status(s, a, status("Succeeded"));
        for (int k = 0; k < 3; k++)
                status_sender_event(s, a, a, "Normal", "Started", "Started container c");
        latest = status_sender_latest(s, a);
        assert_string_equal(json_string_value(json_object_get(latest, "phase")), "Succeeded");
        /* events wait while a status is being sent (statuses first), though threads are free:
         * neither a's nor another pod's go out while a's is held */
        status_sender_event(s, g, g, "Normal", "Pulled", "Container image pulled");

        /* another pod is not held up by a */
        status_sender_status(s, b, status("Running"));
        assert_true(wait_for(b_sent));
        {
                cleanup_json json_t *b_latest = status_sender_latest(s, b);
                cleanup_json json_t *want = status("Running");
                cleanup_json json_t *body = NULL;

                /* the PATCH removes the deprecated status.resize; the status handed in, which
                 * the pod's next step is compared with, stays as it was (else every status
                 * would differ from the next and go out twice) */
                pthread_mutex_lock(&lock);
                json_array_foreach(seen, i, r)
                        if (strstr(json_string_value(json_object_get(r, "url")), "/pods/b/"))
                                body = json_loads(json_string_value(json_object_get(r, "body")), 0,
                                                  NULL);
                pthread_mutex_unlock(&lock);
                assert_true(json_is_null(json_path(body, "status.resize")));
                assert_true(json_equal(b_latest, want));
                pthread_mutex_lock(&lock);
                assert_int_equal(events_about("a") + events_about("g"), 0);
                pthread_mutex_unlock(&lock);
        }
        {
                /* the version b's PATCH answered is the sender's own write; another is not */
                cleanup_json json_t *echo = pod("b"), *older = pod("b"), *other = pod("zz");
                cleanup_free char *rv = NULL;
                bool wrote = false;

                pthread_mutex_lock(&lock);
                json_array_foreach(seen, i, r)
                        if (strstr(json_string_value(json_object_get(r, "url")), "/pods/b/"))
                                rv = xasprintf("%lld", (long long) json_integer_value(
                                                               json_object_get(r, "rv")));
                pthread_mutex_unlock(&lock);
                json_object_set_new(json_object_get(echo, "metadata"), "resourceVersion",
                                    json_string(rv));
                json_object_set_new(json_object_get(other, "metadata"), "resourceVersion",
                                    json_string(rv));
                /* the answer reaches the sender after the server recorded the request */
                for (int k = 0; k < 2000 && !(wrote = status_sender_wrote(s, echo)); k++)
                        (void) usleep(10 * 1000);
                assert_true(wrote);
                assert_false(status_sender_wrote(s, older));
                assert_false(status_sender_wrote(s, other));
        }

        pthread_mutex_lock(&lock);
        hold_a = false;
        pthread_cond_broadcast(&changed);
        pthread_mutex_unlock(&lock);
        assert_true(wait_for(a_done));
        assert_true(wait_for(g_event_sent));
        pthread_mutex_lock(&lock);
        a_phases = phases_of("a");
        /* the latest wins (Running was replaced before it went out), in order */
        assert_string_equal(a_phases, "Pending Succeeded");
        pthread_mutex_unlock(&lock);

        /* a 503 is retried; the delete goes after the status that finally went through and
         * after the event handed in before it */
        status_sender_status(s, c, status("Failed"));
        status_sender_event(s, c, c, "Normal", "Killing", "Stopping container c");
        status_sender_delete(s, c);
        assert_true(wait_for(c_done));
        pthread_mutex_lock(&lock);
        c_phases = phases_of("c");
        assert_string_equal(c_phases, "Failed Failed");
        assert_int_equal(events_about("c"), 1);
        {
                json_t *last = json_array_get(seen, json_array_size(seen) - 1);
                assert_string_equal(json_string_value(json_object_get(last, "method")), "DELETE");
        }
        pthread_mutex_unlock(&lock);

        /* a PATCH that never gets an answer: stopping still ends (its request is cancelled) */
        pthread_mutex_lock(&lock);
        hold_forever = true;
        pthread_mutex_unlock(&lock);
        status_sender_status(s, dd, status("Running"));
        s = status_sender_stop(s, 200);
        assert_null(s);

        pthread_mutex_lock(&lock);
        hold_forever = false;
        pthread_cond_broadcast(&changed);
        pthread_mutex_unlock(&lock);
        MHD_stop_daemon(d);
        json_decref(seen);
}

static bool f_events_sent(void)
{
        return count_of("POST", "/events") == 1;
}

/* With one sender thread busy on pod a, pod e's status and three equal events and pod f's status
 * are handed in: the statuses go out first (e, then f), e's events after them, as one Event
 * counted 3 (K8S: the correlator's aggregation). */
static void test_statuses_first(void **state)
{
        struct MHD_Daemon *d;
        char url[64];
        struct api_client_options copts = { 0 };
        struct status_sender *s = NULL;
        cleanup_json json_t *a = pod("a"), *e = pod("e"), *f = pod("f");
        const char *want[] = { "/pods/a/status", "/pods/e/status", "/pods/f/status", "/events" };

        hold_a = true;
        a_arrived = 0;
        d = recording_server(url, sizeof(url));
        copts.server_url = url;
        assert_int_equal(status_sender_start(&copts, 1, "kubelet", "n1", &(struct event_rate){ 0 },
                                             &s, NULL),
                         0);

        status_sender_status(s, a, status("Running"));
        assert_true(wait_for(a_first_arrived));
        status_sender_status(s, e, status("Running"));
        for (int k = 0; k < 3; k++)
                status_sender_event(s, e, e, "Normal", "Started", "Started container c");
        status_sender_status(s, f, status("Running"));
        pthread_mutex_lock(&lock);
        hold_a = false;
        pthread_cond_broadcast(&changed);
        pthread_mutex_unlock(&lock);
        assert_true(wait_for(f_events_sent));

        pthread_mutex_lock(&lock);
        assert_int_equal(json_array_size(seen), 4);
        for (size_t i = 0; i < 4; i++)
                assert_non_null(
                        strstr(json_string_value(json_object_get(json_array_get(seen, i), "url")),
                               want[i]));
        {
                cleanup_json json_t *ev = json_loads(
                        json_string_value(json_object_get(json_array_get(seen, 3), "body")), 0,
                        NULL);
                assert_int_equal(json_integer_value(json_object_get(ev, "count")), 3);
                assert_string_equal(json_path_string(ev, "involvedObject.uid"), "e");
                assert_string_equal(json_path_string(ev, "source.host"), "n1");
        }
        pthread_mutex_unlock(&lock);
        s = status_sender_stop(s, 200);
        MHD_stop_daemon(d);
        json_decref(seen);
}

static bool h_first_events_sent(void)
{
        return events_about("h") >= 3;
}
static bool j_sent(void)
{
        return count_of("PATCH", "/pods/j/status") == 1;
}
static bool h_all_events_sent(void)
{
        return events_about("h") == 6;
}

static double seconds_since(const struct timespec *t0)
{
        struct timespec now;

        clock_gettime(CLOCK_MONOTONIC, &now);
        return (double) (now.tv_sec - t0->tv_sec) + (double) (now.tv_nsec - t0->tv_nsec) / 1e9;
}

/* The events' rate limit (K8S: the kubelet's --event-qps, --event-burst): a bucket of 3 that
 * refills 5 a second. Six events of pod h: however slow the machine, no more than 3 + 5 a
 * second since the start have gone out at any time (an upper bound, not a timing: a slower
 * run only sends fewer); a status is not held back by it; all six go in the end. */
static void test_event_rate(void **state)
{
        struct event_rate rate = { .qps = 5, .burst = 3 };
        struct api_client_options copts = { 0 };
        cleanup_json json_t *h = pod("h"), *j = pod("j");
        struct status_sender *s = NULL;
        struct MHD_Daemon *d;
        struct timespec t0;
        char url[64];
        double bound;
        size_t sent;

        d = recording_server(url, sizeof(url));
        copts.server_url = url;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        assert_int_equal(status_sender_start(&copts, 2, "kubelet", "n1", &rate, &s, NULL), 0);
        for (int k = 0; k < 6; k++) {
                cleanup_free char *message = xasprintf("Started container c%d", k);
                status_sender_event(s, h, h, "Normal", "Started", message);
        }
        assert_true(wait_for(h_first_events_sent));
        pthread_mutex_lock(&lock);
        sent = (size_t) events_about("h");
        bound = rate.burst + rate.qps * seconds_since(&t0);
        pthread_mutex_unlock(&lock);
        assert_true((double) sent <= bound);

        status_sender_status(s, j, status("Running"));
        assert_true(wait_for(j_sent));
        assert_true(wait_for(h_all_events_sent));
        pthread_mutex_lock(&lock);
        assert_int_equal(count_of("POST", "/events"), 6);
        pthread_mutex_unlock(&lock);
        s = status_sender_stop(s, 200);
        MHD_stop_daemon(d);
        json_decref(seen);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_sender),
                cmocka_unit_test(test_statuses_first),
                cmocka_unit_test(test_event_rate),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
