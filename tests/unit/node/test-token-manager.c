/* test-token-manager.c: the kubelet's token manager: the refresh schedule (80 % of the time to
 * live, 24 h, the jitter) as a table, the cache (one request per key until a refresh is due,
 * keys by audience, seconds and pod), a failed refresh serving the old token until it expires
 * and then upstream's errors, and tokens dropped with their pod or once expired. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "node/token-manager.h"

static void test_requires_refresh(void **state)
{
        static const struct {
                const char *name;
                long long now; /* seconds after the token was issued */
                long long ttl;
                int jitter;
                bool want;
        } cases[] = {
                { "fresh", 0, 3607, 0, false },
                { "just before 80 % of the TTL", 2885, 3607, 0, false },
                /* exp - ttl * 20 / 100 = 3607 - 721 = 2886 */
                { "at 80 %: not yet (strictly after)", 2886, 3607, 0, false },
                { "past 80 %", 2887, 3607, 0, true },
                { "the jitter brings it forward", 2880, 3607, 9, true },
                { "10 minutes: past 480 s", 481, 600, 0, true },
                { "10 minutes: at 479 s", 479, 600, 0, false },
                { "a year-long token: after 24 h", 86401, 365LL * 86400, 0, true },
                { "a year-long token: before 24 h", 86399, 365LL * 86400, 0, false },
                { "a year-long token: the jitter before 24 h", 86395, 365LL * 86400, 9, true },
                { "expired", 4000, 3607, 0, true },
        };
        const time_t issued = 1800000000;

        (void) state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                print_message("%s\n", cases[i].name);
                assert_int_equal(token_requires_refresh(issued + (time_t) cases[i].now,
                                                        issued + (time_t) cases[i].ttl,
                                                        cases[i].ttl, cases[i].jitter),
                                 cases[i].want);
        }
}

/* The fake API: counts requests, issues "t<n>" valid from world.now for the asked seconds,
 * fails while world.down. */
struct world {
        time_t now;
        int requests;
        bool down;
        struct token_request last;
};

static int fake_fetch(void *ud, const struct token_request *req, char **ret_token,
                      time_t *ret_expiration, struct error **reterr)
{
        struct world *w = ud;

        if (w->down)
                return error_set(reterr, EIO, "the server is down");
        w->requests++;
        w->last = *req;
        *ret_token = xasprintf("t%d", w->requests);
        *ret_expiration = w->now + (time_t) req->expiration_seconds;
        return 0;
}

static char *get(struct token_manager *m, struct world *w, const char *audience, int64_t seconds,
                 const char *pod_uid, struct error **err)
{
        const struct token_request req = { .ns = "ns",
                                           .service_account = "default",
                                           .audience = audience,
                                           .expiration_seconds = seconds,
                                           .pod_name = "p",
                                           .pod_uid = pod_uid };
        char *token = NULL;

        return token_manager_get(m, &req, w->now, &token, err) < 0 ? NULL : token;
}

static void test_cache_and_refresh(void **state)
{
        struct world w = { .now = 1800000000 };
        struct token_manager *m = token_manager_new(fake_fetch, &w);
        cleanup_free char *a = NULL, *b = NULL, *c = NULL, *d = NULL, *e = NULL;

        (void) state;
        a = get(m, &w, NULL, 3607, "uid-1", NULL);
        assert_string_equal(a, "t1");
        assert_string_equal(w.last.pod_uid, "uid-1");
        assert_string_equal(w.last.pod_name, "p");
        assert_null(w.last.audience);
        /* within 80 % of the TTL (less the largest jitter): the same token, no request */
        w.now += 2876;
        b = get(m, &w, NULL, 3607, "uid-1", NULL);
        assert_string_equal(b, "t1");
        assert_int_equal(w.requests, 1);
        /* another audience, another pod: their own tokens */
        c = get(m, &w, "vault", 3607, "uid-1", NULL);
        assert_string_equal(c, "t2");
        assert_string_equal(w.last.audience, "vault");
        d = get(m, &w, NULL, 3607, "uid-2", NULL);
        assert_string_equal(d, "t3");
        assert_int_equal(token_manager_size(m), 3);
        /* past 80 %: a new token */
        w.now += 11;
        e = get(m, &w, NULL, 3607, "uid-1", NULL);
        assert_string_equal(e, "t4");
        assert_int_equal(token_manager_size(m), 3);
        m = token_manager_free(m);
}

static void test_failed_refresh(void **state)
{
        struct world w = { .now = 1800000000 };
        struct token_manager *m = token_manager_new(fake_fetch, &w);
        struct error *err = NULL;
        cleanup_free char *a = NULL, *b = NULL;

        (void) state;
        /* nothing cached: upstream's "failed to fetch token" */
        w.down = true;
        assert_null(get(m, &w, NULL, 600, "uid-1", &err));
        assert_string_equal(err->message, "failed to fetch token: the server is down");
        err = error_free(err);
        w.down = false;
        a = get(m, &w, NULL, 600, "uid-1", NULL);
        assert_string_equal(a, "t1");
        /* due for a refresh, the server down: the old token while it is valid */
        w.down = true;
        w.now += 590;
        b = get(m, &w, NULL, 600, "uid-1", NULL);
        assert_string_equal(b, "t1");
        /* expired and the refresh failed */
        w.now += 11;
        assert_null(get(m, &w, NULL, 600, "uid-1", &err));
        assert_string_equal(err->message, "token ns/default//600/uid-1 expired and refresh "
                                          "failed: the server is down");
        err = error_free(err);
        m = token_manager_free(m);
}

static void test_forget_and_collect(void **state)
{
        struct world w = { .now = 1800000000 };
        struct token_manager *m = token_manager_new(fake_fetch, &w);

        (void) state;
        free(get(m, &w, NULL, 600, "uid-1", NULL));
        free(get(m, &w, "vault", 600, "uid-1", NULL));
        free(get(m, &w, NULL, 3600, "uid-2", NULL));
        assert_int_equal(token_manager_size(m), 3);
        /* the pod goes: its tokens with it */
        token_manager_forget_pod(m, "uid-1");
        assert_int_equal(token_manager_size(m), 1);
        /* the collection drops only what has expired */
        token_manager_collect(m, w.now + 3600);
        assert_int_equal(token_manager_size(m), 1);
        token_manager_collect(m, w.now + 3601);
        assert_int_equal(token_manager_size(m), 0);
        m = token_manager_free(m);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_requires_refresh),
                cmocka_unit_test(test_cache_and_refresh),
                cmocka_unit_test(test_failed_refresh),
                cmocka_unit_test(test_forget_and_collect),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
