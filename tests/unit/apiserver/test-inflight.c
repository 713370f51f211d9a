/* test-inflight.c: the max-in-flight limits: upstream's classification of requests (read-only,
 * mutating, long-running), the counting at the limit, and api_handle's 429 with Retry-After and
 * a TooManyRequests Status while a kind is full, other kinds and watches still served. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apiserver/apiserver-internal.h"
#include "apiserver/inflight.h"
#include "base/alloc.h"
#include "base/json.h"
#include "store/store.h"

static void test_classify(void **state)
{
        static const struct {
                const char *method, *path, *watch;
                enum inflight_kind want;
        } cases[] = {
                { "GET", "/api/v1/namespaces/default/pods", NULL, INFLIGHT_READONLY },
                { "HEAD", "/api/v1/namespaces/default/pods/p", NULL, INFLIGHT_READONLY },
                { "GET", "/healthz", NULL, INFLIGHT_READONLY },
                { "GET", "/api/v1/pods", "true", INFLIGHT_LONG_RUNNING },
                { "GET", "/api/v1/pods", "1", INFLIGHT_LONG_RUNNING },
                { "GET", "/api/v1/pods", "false", INFLIGHT_READONLY },
                { "GET", "/api/v1/watch/namespaces/default/pods", NULL, INFLIGHT_LONG_RUNNING },
                { "GET", "/apis/storage.k8s.io/v1/watch/storageclasses", NULL,
                  INFLIGHT_LONG_RUNNING },
                { "GET", "/api/v1/namespaces/default/pods/web/log", NULL, INFLIGHT_LONG_RUNNING },
                { "POST", "/api/v1/namespaces/default/pods/web/exec", NULL, INFLIGHT_LONG_RUNNING },
                { "GET", "/api/v1/nodes/n1/proxy", NULL, INFLIGHT_LONG_RUNNING },
                /* a pod named "log" is not the log subresource */
                { "GET", "/api/v1/namespaces/default/pods/log", NULL, INFLIGHT_READONLY },
                /* a namespace's own subresources */
                { "PUT", "/api/v1/namespaces/log/finalize", NULL, INFLIGHT_MUTATING },
                { "GET", "/api/v1/namespaces/default/status", NULL, INFLIGHT_READONLY },
                { "POST", "/api/v1/namespaces/default/pods", NULL, INFLIGHT_MUTATING },
                { "PATCH", "/api/v1/namespaces/default/pods/p/resize", NULL, INFLIGHT_MUTATING },
                { "DELETE", "/api/v1/namespaces/default/pods", NULL, INFLIGHT_MUTATING },
                /* watch=true on a write is no watch */
                { "POST", "/api/v1/namespaces/default/pods", "true", INFLIGHT_MUTATING },
                { "OPTIONS", "/api", NULL, INFLIGHT_MUTATING },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                enum inflight_kind k =
                        inflight_classify(cases[i].method, cases[i].path, cases[i].watch);
                if (k != cases[i].want)
                        fail_msg("%s %s watch=%s: kind %d, want %d", cases[i].method, cases[i].path,
                                 cases[i].watch ? cases[i].watch : "-", k, cases[i].want);
        }
}

static void test_counting(void **state)
{
        struct inflight f;

        inflight_init(&f, 2, 1);
        assert_true(inflight_enter(&f, INFLIGHT_READONLY));
        assert_true(inflight_enter(&f, INFLIGHT_READONLY));
        assert_false(inflight_enter(&f, INFLIGHT_READONLY));
        assert_true(inflight_enter(&f, INFLIGHT_MUTATING));
        assert_false(inflight_enter(&f, INFLIGHT_MUTATING));
        for (int i = 0; i < 1000; i++)
                assert_true(inflight_enter(&f, INFLIGHT_LONG_RUNNING));
        inflight_leave(&f, INFLIGHT_READONLY);
        assert_true(inflight_enter(&f, INFLIGHT_READONLY));
        assert_false(inflight_enter(&f, INFLIGHT_READONLY));

        /* K8S: 0 is no limit */
        inflight_init(&f, 0, 0);
        for (int i = 0; i < 1000; i++)
                assert_true(inflight_enter(&f, INFLIGHT_MUTATING));
}

static unsigned call(struct apiserver *api, const char *method, const char *path,
                     struct http_query_param *q, size_t nq, const char *body,
                     struct http_response *resp)
{
        struct http_request req = { .method = method,
                                    .path = path,
                                    .query = q,
                                    .n_query = nq,
                                    .content_type = body ? "application/json" : NULL,
                                    .body = body,
                                    .body_len = body ? strlen(body) : 0 };

        http_response_init(resp);
        api_handle(api, &req, resp);
        return resp->status;
}

static void test_api_refuses_past_the_limit(void **state)
{
        struct apiserver_options o = { .node_name = "n1",
                                       .listen = "127.0.0.1:6443",
                                       .max_requests_inflight = 1,
                                       .max_mutating_requests_inflight = 1 };
        char dir[] = "/tmp/flexlet-test-inflight.XXXXXX";
        cleanup_free char *db = NULL, *cmd = NULL;
        struct http_query_param watch = { "watch", "true" };
        struct store *store = NULL;
        struct apiserver *api = NULL;
        struct http_response resp;
        json_t *st;

        assert_non_null(mkdtemp(dir));
        db = xasprintf("%s/store.db", dir);
        assert_int_equal(store_open_sqlite(db, &store, NULL), 0);
        assert_int_equal(apiserver_new(store, NULL, &o, &api), 0);

        /* one read-only request is being handled: the next is refused */
        assert_true(inflight_enter(&api->inflight, INFLIGHT_READONLY));
        assert_int_equal(call(api, "GET", "/api/v1/namespaces", NULL, 0, NULL, &resp), 429);
        assert_int_equal(resp.retry_after_s, 1);
        st = json_loads(resp.body.buf, 0, NULL);
        assert_non_null(st);
        assert_string_equal(json_string_value(json_object_get(st, "kind")), "Status");
        assert_string_equal(json_string_value(json_object_get(st, "reason")), "TooManyRequests");
        assert_string_equal(json_string_value(json_object_get(st, "message")),
                            "Too many requests, please try again later.");
        assert_int_equal(json_integer_value(json_object_get(st, "code")), 429);
        assert_int_equal(json_integer_value(json_object_get(json_object_get(st, "details"),
                                                            "retryAfterSeconds")),
                         1);
        json_decref(st);
        http_response_release(&resp);

        /* a write and a watch are not read-only requests */
        assert_int_equal(call(api, "POST", "/api/v1/namespaces", NULL, 0,
                              "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\","
                              "\"metadata\":{\"name\":\"a\"}}",
                              &resp),
                         201);
        http_response_release(&resp);
        assert_int_equal(call(api, "GET", "/api/v1/namespaces", &watch, 1, NULL, &resp), 200);
        assert_non_null(resp.stream.read);
        http_response_release(&resp);

        /* the slot freed, reads pass again, and a finished request gave its slot back */
        inflight_leave(&api->inflight, INFLIGHT_READONLY);
        assert_int_equal(call(api, "GET", "/api/v1/namespaces", NULL, 0, NULL, &resp), 200);
        assert_int_equal(resp.retry_after_s, 0);
        http_response_release(&resp);
        assert_int_equal(call(api, "GET", "/api/v1/namespaces/a", NULL, 0, NULL, &resp), 200);
        http_response_release(&resp);

        /* the same for writes */
        assert_true(inflight_enter(&api->inflight, INFLIGHT_MUTATING));
        assert_int_equal(call(api, "DELETE", "/api/v1/namespaces/a", NULL, 0, NULL, &resp), 429);
        http_response_release(&resp);
        assert_int_equal(call(api, "GET", "/api/v1/namespaces/a", NULL, 0, NULL, &resp), 200);
        http_response_release(&resp);
        inflight_leave(&api->inflight, INFLIGHT_MUTATING);

        apiserver_free(api);
        store_close(store);
        cmd = xasprintf("rm -rf '%s'", dir);
        assert_int_equal(system(cmd), 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_classify),
                cmocka_unit_test(test_counting),
                cmocka_unit_test(test_api_refuses_past_the_limit),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
