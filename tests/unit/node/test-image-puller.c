/* test-image-puller.c: the puller (node/image-puller.h): the kubelet's duration words in the
 * Pulled event (Go's Duration.String() truncated to milliseconds), and a pull on its own thread
 * whose failure (a registry that refuses connections on 127.0.0.1) is read once with its message
 * and wakes the caller; the Pulling, Failed and "Error: ErrImagePull" events of a pod's step. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "node/image-puller.h"
#include "node/pod-worker.h"

static void test_duration(void **state)
{
        static const struct {
                double s;
                const char *want;
        } cases[] = {
                { 0.0004, "0s" },     { 0.5234, "523ms" },     { 1.5, "1.5s" },      { 2.0, "2s" },
                { 1.2345, "1.234s" }, { 123.004, "2m3.004s" }, { 3600.0, "1h0m0s" },
        };

        (void) state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                char *got = image_pull_duration(cases[i].s);
                assert_string_equal(got, cases[i].want);
                free(got);
        }
}

static int woken;
static pthread_mutex_t wl = PTHREAD_MUTEX_INITIALIZER;
static void wake(void *ud, const char *key)
{
        (void) ud;
        pthread_mutex_lock(&wl);
        woken += strcmp(key, "uid-1/c") == 0;
        pthread_mutex_unlock(&wl);
}

static void test_failed_pull(void **state)
{
        char data[] = "/tmp/test-image-puller-XXXXXX";
        const char *insecure[] = { "127.0.0.1:1", NULL };
        struct image_puller_options o = { .insecure = insecure, .wake = wake };
        struct image_puller *p = NULL;
        struct pod_events ev = { 0 };
        json_error_t e;
        json_t *pod = json_loads(
                "{\"metadata\":{\"namespace\":\"default\",\"uid\":\"uid-1\"},\"spec\":{}}", 0, &e);
        const struct image_pull_request q = { .key = "uid-1/c",
                                              .image = "127.0.0.1:1/test/img:1",
                                              .pod = pod };
        enum image_pull_state s;
        char *msg = NULL;
        int n = 0;

        (void) state;
        assert_non_null(mkdtemp(data));
        o.data_dir = data;
        assert_int_equal(image_puller_new(&o, &p), 0);
        assert_int_equal(image_puller_step(p, &q, &ev, &msg), IMAGE_PULL_RUNNING);
        assert_null(msg);
        assert_int_equal(ev.n, 1);
        assert_string_equal(ev.items[0].reason, "Pulling");
        assert_string_equal(ev.items[0].message, "Pulling image \"127.0.0.1:1/test/img:1\"");
        pod_events_release(&ev);
        assert_true(image_puller_has(p, "uid-1/c"));
        /* a second start of the same key is refused while it runs or waits to be read */
        assert_int_equal(image_puller_start(p, "uid-1/c", "x", NULL, 0), -EBUSY);
        do {
                usleep(20000);
                s = image_puller_step(p, &q, &ev, &msg);
        } while (s == IMAGE_PULL_RUNNING && ++n < 1500);
        assert_int_equal(s, IMAGE_PULL_FAILED);
        assert_non_null(strstr(msg, "failed to pull and unpack image \"127.0.0.1:1/test/img:1\""));
        assert_int_equal(ev.n, 2);
        assert_string_equal(ev.items[0].reason, "Failed");
        assert_non_null(
                strstr(ev.items[0].message, "Failed to pull image \"127.0.0.1:1/test/img:1\": "));
        assert_string_equal(ev.items[1].message, "Error: ErrImagePull");
        pod_events_release(&ev);
        free(msg);
        assert_false(image_puller_has(p, "uid-1/c"));
        pthread_mutex_lock(&wl);
        assert_int_equal(woken, 1);
        pthread_mutex_unlock(&wl);
        image_puller_free(p);
        json_decref(pod);
        (void) fs_remove_tree(data);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_duration),
                cmocka_unit_test(test_failed_pull),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
