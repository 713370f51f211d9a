/* test-controller-loop.c: stopping a controller loop (controller-loop.h) while its pass is
 * making requests through a server's loopback, as a shutdown or a lost Lease does: the pass's
 * requests are cancelled, and when controller_loop_stop returns the pass thread has ended and
 * released its controller, so the loopback can be freed behind it (a pass thread that
 * outlived the stop once called into a freed loopback at `flexlet apiserver`'s shutdown). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apiserver/api.h"
#include "apiserver/informer-feed.h"
#include "apiserver/loopback.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/timeutil.h"
#include "controllers/controller-loop.h"
#include "store/store.h"

/* How long the pass keeps writing when nothing cancels it: far beyond any stop. */
#define PASS_MAX_MS 30000

struct controller {
        struct controller_loop loop; /* first: released with the controller */
        atomic_bool in_pass;
        atomic_bool *released; /* the test's, set by release */
        atomic_int *last_request;
};

static void pass(void *ctx)
{
        struct controller *x = ctx;
        const int64_t until = time_monotonic_ms() + PASS_MAX_MS;
        cleanup_json json_t *patch = json_pack("{s:{s:s}}", "data", "k", "v");
        int r;

        atomic_store(&x->in_pass, true);
        /* writes one after another until they are refused */
        do {
                r = controller_loop_request(&x->loop, "PATCH",
                                            "/api/v1/namespaces/default/configmaps/c",
                                            "application/merge-patch+json", patch, NULL);
                atomic_store(x->last_request, r);
        } while (r >= 0 && time_monotonic_ms() < until);
}

static void release(void *ctx)
{
        struct controller *x = ctx;

        atomic_store(x->released, true);
        free(x);
}

/* A server on a SQLite store in a folder of its own, its loopback, and a feed on its store;
 * torn down (folder included) whether the test passed or not. */
struct fixture {
        char dir[64];
        struct store *store;
        struct apiserver *api;
        struct api_loopback *loopback;
        struct informer_feed *feed;
};

static int setup(void **state)
{
        struct apiserver_options o = { .node_name = "n1", .listen = "127.0.0.1:6443" };
        struct fixture *fx = xcalloc(1, sizeof(*fx));
        cleanup_free char *db = NULL;
        struct error *err = NULL;

        strcpy(fx->dir, "/tmp/flexlet-test-controller-loop.XXXXXX");
        assert_non_null(mkdtemp(fx->dir));
        *state = fx;
        db = xasprintf("%s/store.db", fx->dir);
        assert_int_equal(store_open_sqlite(db, &fx->store, &err), 0);
        assert_int_equal(apiserver_new(fx->store, NULL, &o, &fx->api), 0);
        fx->loopback = api_loopback_new(fx->api);
        fx->feed = informer_feed_new(fx->store);
        return 0;
}

static int teardown(void **state)
{
        struct fixture *fx = *state;
        cleanup_free char *rm = xasprintf("rm -rf '%s'", fx->dir);

        informer_feed_free(fx->feed);
        api_loopback_free(fx->loopback);
        apiserver_free(fx->api);
        store_close(fx->store);
        assert_int_equal(system(rm), 0);
        free(fx);
        return 0;
}

static void test_stop_waits_for_the_pass(void **state)
{
        static const char *const paths[] = { "/api/v1/configmaps", NULL };
        static const char ns[] = "{\"metadata\":{\"name\":\"default\"}}";
        static const char cm[] = "{\"metadata\":{\"name\":\"c\",\"namespace\":\"default\"}}";
        const struct controller_loop_def def = {
                .name = "test-loop",
                .paths = paths,
                .period_ms = 60000,
                .pass = pass,
                .release = release,
        };
        struct fixture *fx = *state;
        const struct api_client_options co = { .server_url = "https://127.0.0.1:1",
                                               .loopback = fx->loopback,
                                               .feed = fx->feed };
        cleanup_api_client struct api_client *admin = NULL;
        struct error *err = NULL;
        struct controller *x;
        atomic_bool released = false;
        atomic_int last_request = 1;
        long status = 0;

        assert_int_equal(api_client_new(&co, &admin, NULL), 0);
        assert_int_equal(api_client_request(admin, "POST", "/api/v1/namespaces", NULL, ns,
                                            strlen(ns), &status, NULL, NULL),
                         0);
        assert_int_equal(status, 201);
        assert_int_equal(api_client_request(admin, "POST", "/api/v1/namespaces/default/configmaps",
                                            NULL, cm, strlen(cm), &status, NULL, NULL),
                         0);
        assert_int_equal(status, 201);

        x = xcalloc(1, sizeof(*x));
        x->released = &released;
        x->last_request = &last_request;
        assert_int_equal(controller_loop_start(&co, &def, x, &x->loop, &err), 0);
        /* the pass is under way, writing: stop it there */
        for (int i = 0; i < 3000 && !(atomic_load(&x->in_pass) && atomic_load(&last_request) == 0);
             i++)
                (void) usleep(1000);
        assert_int_equal(atomic_load(&last_request), 0);
        controller_loop_stop(&x->loop);
        /* the thread has released the controller, and its last request was refused as
         * cancelled rather than left to run */
        assert_true(atomic_load(&released));
        assert_int_equal(atomic_load(&last_request), -ECANCELED);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_stop_waits_for_the_pass, setup, teardown),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
