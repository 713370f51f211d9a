/* test-loopback.c: an API client with the server's loopback (loopback.h) against a real
 * apiserver on a SQLite store with authentication on: its requests are answered by the
 * server's handler as over HTTPS (created, listed with a label selector whose escapes and '+'
 * are read as the HTTP server reads them, patched), with its credentials (none: 401), a path
 * that is not UTF-8 is refused as malformed, a watch is refused (it streams), and the answer
 * is the caller's own object. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apiserver/api.h"
#include "apiserver/authn.h"
#include "apiserver/loopback.h"
#include "base/alloc.h"
#include "base/json.h"
#include "client/client.h"
#include "store/store.h"

struct fixture {
        char dir[64];
        struct store *store;
        struct authn *authn;
        struct apiserver *api;
        struct api_loopback *loopback;
};

static struct fixture *fx;

static int setup(void **state)
{
        static const char tokens[] = "tok1,alice,1,system:masters\n";
        struct apiserver_options o = { .node_name = "n1", .listen = "127.0.0.1:6443" };
        cleanup_free char *db = NULL, *token_file = NULL;
        struct error *err = NULL;
        FILE *f;

        fx = xcalloc(1, sizeof(*fx));
        strcpy(fx->dir, "/tmp/flexlet-test-loopback.XXXXXX");
        assert_non_null(mkdtemp(fx->dir));
        db = xasprintf("%s/store.db", fx->dir);
        token_file = xasprintf("%s/tokens.csv", fx->dir);
        f = fopen(token_file, "w");
        assert_non_null(f);
        assert_int_equal(fputs(tokens, f) >= 0, 1);
        assert_int_equal(fclose(f), 0);
        assert_int_equal(store_open_sqlite(db, &fx->store, &err), 0);
        assert_int_equal(authn_new(NULL, token_file, NULL, NULL, &fx->authn, &err), 0);
        o.require_auth = true;
        o.authn = fx->authn;
        assert_int_equal(apiserver_new(fx->store, NULL, &o, &fx->api), 0);
        fx->loopback = api_loopback_new(fx->api);
        *state = fx;
        return 0;
}

static int teardown(void **state)
{
        cleanup_free char *cmd = xasprintf("rm -rf '%s'", fx->dir);

        api_loopback_free(fx->loopback);
        apiserver_free(fx->api);
        authn_free(fx->authn);
        store_close(fx->store);
        assert_int_equal(system(cmd), 0);
        free(fx);
        return 0;
}

/* A client whose requests go through the loopback (the URL is never dialled). */
static struct api_client *client(const char *token)
{
        const struct api_client_options o = { .server_url = "https://127.0.0.1:1",
                                              .token = token,
                                              .loopback = fx->loopback };
        struct api_client *c = NULL;

        assert_int_equal(api_client_new(&o, &c, NULL), 0);
        return c;
}

static long request(struct api_client *c, const char *method, const char *path,
                    const char *content_type, const char *body, json_t **ret)
{
        long status = 0;

        assert_int_equal(api_client_request(c, method, path, content_type, body,
                                            body ? strlen(body) : 0, &status, ret, NULL),
                         0);
        return status;
}

static void test_requests(void **state)
{
        cleanup_api_client struct api_client *c = client("tok1");
        cleanup_json json_t *ns = NULL, *cm = NULL, *list = NULL, *patched = NULL, *again = NULL;

        (void) state;
        assert_int_equal(request(c, "POST", "/api/v1/namespaces", NULL,
                                 "{\"metadata\":{\"name\":\"team\"}}", &ns),
                         201);
        assert_string_equal(json_path_string(ns, "metadata.name"), "team");
        assert_int_equal(
                request(c, "POST", "/api/v1/namespaces/team/configmaps", NULL,
                        "{\"metadata\":{\"name\":\"web\",\"labels\":{\"app\":\"web\"}},\"data\":{\"k\":\"v\"}}",
                        &cm),
                201);
        assert_int_equal(request(c, "POST", "/api/v1/namespaces/team/configmaps", NULL,
                                 "{\"metadata\":{\"name\":\"db\",\"labels\":{\"app\":\"db\"}}}",
                                 NULL),
                         201);

        /* "app in (web)": the spaces as '+', the parentheses escaped */
        assert_int_equal(
                request(c, "GET",
                        "/api/v1/namespaces/team/configmaps?labelSelector=app+in+%28web%29", NULL,
                        NULL, &list),
                200);
        assert_int_equal(json_array_size(json_object_get(list, "items")), 1);
        assert_string_equal(json_path_string(json_array_get(json_object_get(list, "items"), 0),
                                             "metadata.name"),
                            "web");

        assert_int_equal(request(c, "PATCH", "/api/v1/namespaces/team/configmaps/web",
                                 "application/merge-patch+json", "{\"data\":{\"k\":\"w\"}}",
                                 &patched),
                         200);
        assert_string_equal(json_path_string(patched, "data.k"), "w");
        /* the answer is the caller's own: changing it changes nothing on the server */
        json_object_set_new(json_object_get(patched, "data"), "k", json_string("mine"));
        assert_int_equal(
                request(c, "GET", "/api/v1/namespaces/team/configmaps/web", NULL, NULL, &again),
                200);
        assert_string_equal(json_path_string(again, "data.k"), "w");
}

static void test_refusals(void **state)
{
        cleanup_api_client struct api_client *anonymous = client(NULL);
        cleanup_api_client struct api_client *c = client("tok1");
        cleanup_json json_t *denied = NULL, *malformed = NULL;
        struct error *err = NULL;
        long status = 0;

        (void) state;
        /* no credentials: what the server answers an anonymous client over HTTPS */
        assert_int_equal(request(anonymous, "GET", "/api/v1/namespaces", NULL, NULL, &denied), 401);
        assert_string_equal(json_string_value(json_object_get(denied, "reason")), "Unauthorized");
        /* an escaped byte that is not UTF-8 */
        assert_int_equal(request(c, "GET", "/api/v1/namespaces/%ff", NULL, NULL, &malformed), 400);
        /* a watch streams: not through the loopback */
        assert_int_equal(api_client_request(c, "GET", "/api/v1/namespaces?watch=true", NULL, NULL,
                                            0, &status, NULL, &err),
                         -EPROTONOSUPPORT);
        assert_non_null(strstr(err->message, "streamed"));
        error_free(err);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_requests),
                cmocka_unit_test(test_refusals),
        };

        return cmocka_run_group_tests(tests, setup, teardown);
}
