/* test-informer.c: informers share their collections as upstream's SharedInformerFactory:
 * two informers of one identity on one path cost one list and one watch and read the same
 * objects (what one stores the other sees); another identity gets its own; the collection's
 * thread ends with its last informer; a subscriber's relevance predicate decides which changes
 * wake it (a list always does). Against a small HTTP server that answers the list and holds
 * each watch open until the client goes (or, once, until asked to end it). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <microhttpd.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/json.h"
#include "base/timeutil.h"
#include "client/informer.h"

static atomic_int lists, watches, watches_open;
static atomic_bool closing, end_one_watch;

/* A watch that sends only blank lines (which a watch reader skips) until the server closes, or
 * end_one_watch asks the first to see it to end: writing is how the server learns that the
 * client has gone. */
static ssize_t hold_read(void *cls, uint64_t pos, char *buf, size_t max)
{
        if (atomic_load(&closing) || atomic_exchange(&end_one_watch, false))
                return MHD_CONTENT_READER_END_OF_STREAM;
        usleep(20000);
        buf[0] = '\n';
        return 1;
}

/* The watch of /api/v1/deleting: object ns/a's DELETED at version 7 first, then as hold_read. */
static ssize_t deleting_read(void *cls, uint64_t pos, char *buf, size_t max)
{
        static const char ev[] = "{\"type\":\"DELETED\",\"object\":{\"metadata\":{\"name\":"
                                 "\"a\",\"namespace\":\"ns\",\"resourceVersion\":\"7\"}}}\n";

        if (pos < sizeof(ev) - 1) {
                size_t n = sizeof(ev) - 1 - pos < max ? sizeof(ev) - 1 - pos : max;

                memcpy(buf, ev + pos, n);
                return (ssize_t) n;
        }
        return hold_read(cls, pos, buf, max);
}

static void watch_done(void *cls)
{
        atomic_fetch_sub(&watches_open, 1);
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *conn, const char *url,
                               const char *method, const char *version, const char *upload,
                               size_t *upload_len, void **con_cls)
{
        static const char list[] = "{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":"
                                   "{\"resourceVersion\":\"5\"},\"items\":[{\"metadata\":"
                                   "{\"name\":\"a\",\"namespace\":\"ns\",\"resourceVersion\":"
                                   "\"4\"}}]}";
        struct MHD_Response *resp;
        enum MHD_Result r;

        if (MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "watch")) {
                atomic_fetch_add(&watches, 1);
                atomic_fetch_add(&watches_open, 1);
                resp = MHD_create_response_from_callback(
                        MHD_SIZE_UNKNOWN, 64, strstr(url, "/deleting") ? deleting_read : hold_read,
                        NULL, watch_done);
        } else {
                atomic_fetch_add(&lists, 1);
                resp = MHD_create_response_from_buffer(strlen(list), (void *) list,
                                                       MHD_RESPMEM_PERSISTENT);
        }
        r = MHD_queue_response(conn, MHD_HTTP_OK, resp);
        MHD_destroy_response(resp);
        return r;
}

static bool wait_until(atomic_int *v, int want)
{
        for (int i = 0; i < 500; i++) {
                if (atomic_load(v) == want)
                        return true;
                usleep(10000);
        }
        return atomic_load(v) == want;
}

static void wait_synced(struct informer *w)
{
        for (int i = 0; i < 500 && !informer_synced(w); i++)
                (void) informer_wait(w, 10);
        assert_true(informer_synced(w));
}

/* The test server on a free loopback port, its URL in url. */
static struct MHD_Daemon *server_start(char url[static 64])
{
        struct sockaddr_in sin = { .sin_family = AF_INET,
                                   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        struct MHD_Daemon *d = MHD_start_daemon(
                MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL,
                handler, NULL, MHD_OPTION_SOCK_ADDR, &sin, MHD_OPTION_END);

        assert_non_null(d);
        atomic_store(&closing, false);
        (void) snprintf(url, 64, "http://127.0.0.1:%u",
                        MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT)->port);
        return d;
}

/* Ends the held watches, then the server. */
static void server_stop(struct MHD_Daemon *d)
{
        atomic_store(&closing, true);
        MHD_stop_daemon(d);
}

static void test_shared(void **state)
{
        char url[64];
        struct MHD_Daemon *d = server_start(url);
        const char *const paths[] = { "/api/v1/pods", NULL };
        const struct informer_options io = { .paths = paths };
        struct api_client_options as_a, as_b;
        struct informer *one = NULL, *two = NULL, *other = NULL;
        json_t *snap, *got;

        (void) state;
        as_a = (struct api_client_options){ .server_url = url, .token = "a" };
        as_b = (struct api_client_options){ .server_url = url, .token = "b" };

        assert_int_equal(informer_start(&as_a, &io, &one, NULL), 0);
        wait_synced(one);
        assert_int_equal(informer_start(&as_a, &io, &two, NULL), 0);
        /* the second is synced at once, from the first's list */
        assert_true(informer_synced(two));
        assert_true(wait_until(&watches, 1));
        assert_int_equal(atomic_load(&lists), 1);

        snap = informer_snapshot(two, 0);
        assert_non_null(json_object_get(snap, "ns/a"));
        json_decref(snap);
        /* what one stores, the other reads */
        got = json_pack("{s:{s:s, s:s, s:s}}", "metadata", "name", "b", "namespace", "ns",
                        "resourceVersion", "6");
        informer_store(one, 0, got);
        json_decref(got);
        got = informer_get(two, 0, "ns/b");
        assert_non_null(got);
        json_decref(got);

        /* another identity lists and watches for itself */
        assert_int_equal(informer_start(&as_b, &io, &other, NULL), 0);
        wait_synced(other);
        assert_int_equal(atomic_load(&lists), 2);
        assert_true(wait_until(&watches, 2));
        got = informer_get(other, 0, "ns/b");
        assert_null(got);

        /* the shared collection outlives its first informer and ends with its last */
        informer_stop(one);
        got = informer_get(two, 0, "ns/a");
        assert_non_null(got);
        json_decref(got);
        assert_int_equal(atomic_load(&watches_open), 2);
        informer_stop(two);
        assert_true(wait_until(&watches_open, 1));
        informer_stop(other);
        assert_true(wait_until(&watches_open, 0));
        server_stop(d);
}

/* A write's answer kept after the watch said the object is gone (the write raced the deletion)
 * does not bring it back; a newer version (made again under the name) does. */
static void test_deleted_stays_deleted(void **state)
{
        char url[64];
        struct MHD_Daemon *d = server_start(url);
        const char *const paths[] = { "/api/v1/deleting", NULL };
        const struct informer_options io = { .paths = paths };
        const struct api_client_options as = { .server_url = url, .token = "d" };
        struct informer *w = NULL;
        json_t *got = NULL;

        (void) state;
        assert_int_equal(informer_start(&as, &io, &w, NULL), 0);
        wait_synced(w);
        for (int i = 0; i < 500 && (got = informer_get(w, 0, "ns/a")); i++) {
                json_decref(got);
                usleep(10000);
        }
        assert_null(got);
        got = json_pack("{s:{s:s, s:s, s:s}}", "metadata", "name", "a", "namespace", "ns",
                        "resourceVersion", "6");
        informer_store(w, 0, got);
        json_decref(got);
        assert_null(informer_get(w, 0, "ns/a"));
        got = json_pack("{s:{s:s, s:s, s:s}}", "metadata", "name", "a", "namespace", "ns",
                        "resourceVersion", "9");
        informer_store(w, 0, got);
        json_decref(got);
        got = informer_get(w, 0, "ns/a");
        assert_non_null(got);
        json_decref(got);
        informer_stop(w);
        server_stop(d);
}

/* The version of the object the last change the predicate saw replaced (0: none, an add). */
static unsigned long long replaced_version;

/* Relevant: a change to an object labeled wake. */
static bool wake_labeled(const json_t *old, const json_t *new)
{
        replaced_version = old ? informer_object_version(old) : 0;
        return new &&json_path(new, "metadata.labels.wake");
}

/* An informer wakes for the changes its predicate takes, not for those it refuses (its cache
 * takes them all), and for every list; another informer of the collection without a predicate
 * wakes for all. */
static void test_relevant(void **state)
{
        char url[64];
        struct MHD_Daemon *d = server_start(url);
        const char *const paths[] = { "/api/v1/relevant", NULL };
        const informer_relevant_fn relevant[] = { wake_labeled };
        const struct api_client_options as = { .server_url = url, .token = "r" };
        struct informer *picky = NULL, *all = NULL;
        json_t *obj;
        int listed;

        (void) state;
        assert_int_equal(
                informer_start(&as,
                               &(struct informer_options){ .paths = paths, .relevant = relevant },
                               &picky, NULL),
                0);
        wait_synced(picky);
        assert_int_equal(
                informer_start(&as, &(struct informer_options){ .paths = paths }, &all, NULL), 0);
        /* the list woke the first (wait_synced may have taken that), a listed collection is
         * news to the second; nothing since */
        (void) informer_wait(picky, 0);
        assert_int_equal(informer_wait(picky, 0), INFORMER_TIMED_OUT);
        assert_int_equal(informer_wait(all, 0), INFORMER_CHANGED);
        assert_int_equal(informer_wait(all, 0), INFORMER_TIMED_OUT);

        /* refused: the cache has it, the predicate saw the listed version it replaced */
        obj = json_pack("{s:{s:s, s:s, s:s}}", "metadata", "name", "a", "namespace", "ns",
                        "resourceVersion", "6");
        informer_store(picky, 0, obj);
        json_decref(obj);
        assert_int_equal(replaced_version, 4);
        assert_int_equal(informer_wait(picky, 0), INFORMER_TIMED_OUT);
        assert_int_equal(informer_wait(all, 0), INFORMER_CHANGED);
        obj = informer_get(picky, 0, "ns/a");
        assert_int_equal(informer_object_version(obj), 6);
        json_decref(obj);

        /* taken */
        obj = json_pack("{s:{s:s, s:s, s:s, s:{s:s}}}", "metadata", "name", "a", "namespace", "ns",
                        "resourceVersion", "7", "labels", "wake", "yes");
        informer_store(picky, 0, obj);
        json_decref(obj);
        assert_int_equal(replaced_version, 6);
        assert_int_equal(informer_wait(picky, 0), INFORMER_CHANGED);
        assert_int_equal(informer_wait(all, 0), INFORMER_CHANGED);

        /* the watch ends: the list again wakes the picky one, though it refuses its items */
        listed = atomic_load(&lists);
        atomic_store(&end_one_watch, true);
        assert_true(wait_until(&lists, listed + 1));
        assert_int_equal(informer_wait(picky, 10000), INFORMER_CHANGED);
        obj = informer_get(picky, 0, "ns/a");
        assert_int_equal(informer_object_version(obj), 4);
        json_decref(obj);

        informer_stop(picky);
        informer_stop(all);
        server_stop(d);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_shared),
                cmocka_unit_test(test_deleted_stays_deleted),
                cmocka_unit_test(test_relevant),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
