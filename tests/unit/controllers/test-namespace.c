/* test-namespace.c: the namespace controller's decisions: which namespaces it empties, and which
 * collections of a discovery document it deletes, with deletecollection or item by item. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/json.h"
#include "controllers/namespace.h"

static void test_needs_emptying(void **state)
{
        static const struct {
                const char *ns;
                bool want;
        } cases[] = {
                { "{\"metadata\":{\"name\":\"a\"},\"spec\":{\"finalizers\":[\"kubernetes\"]}}",
                  false },
                { "{\"metadata\":{\"name\":\"a\",\"deletionTimestamp\":\"2026-01-01T00:00:00Z\"},"
                  "\"spec\":{\"finalizers\":[\"kubernetes\"]}}",
                  true },
                { "{\"metadata\":{\"name\":\"a\",\"deletionTimestamp\":\"2026-01-01T00:00:00Z\"},"
                  "\"spec\":{\"finalizers\":[\"other\"]}}",
                  false },
                { "{\"metadata\":{\"name\":\"a\",\"deletionTimestamp\":\"2026-01-01T00:00:00Z\"}}",
                  false },
        };

        (void) state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                cleanup_json json_t *ns = json_loads(cases[i].ns, 0, NULL);

                assert_non_null(ns);
                assert_int_equal(namespace_needs_emptying(ns), cases[i].want);
        }
}

static void test_deletable_collections(void **state)
{
        cleanup_json json_t *list = json_loads(
                "{\"resources\":["
                "{\"name\":\"pods\",\"namespaced\":true,\"verbs\":[\"create\",\"delete\","
                "\"deletecollection\",\"get\",\"list\"]},"
                "{\"name\":\"pods/log\",\"namespaced\":true,\"verbs\":[\"get\"]},"
                "{\"name\":\"nodes\",\"namespaced\":false,\"verbs\":[\"delete\","
                "\"deletecollection\",\"list\"]},"
                "{\"name\":\"widgets\",\"namespaced\":true,\"verbs\":[\"delete\",\"list\"]},"
                "{\"name\":\"readonly\",\"namespaced\":true,\"verbs\":[\"get\",\"list\"]}]}",
                0, NULL);
        cleanup_json json_t *out = json_array();
        cleanup_free char *got = NULL;

        (void) state;
        namespace_deletable_collections(list, "/apis/example.com/v1", "team", out);
        got = json_dumps(out, JSON_COMPACT);
        assert_string_equal(got, "[{\"path\":\"/apis/example.com/v1/namespaces/team/pods\","
                                 "\"collection\":true},"
                                 "{\"path\":\"/apis/example.com/v1/namespaces/team/widgets\","
                                 "\"collection\":false}]");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_needs_emptying),
                cmocka_unit_test(test_deletable_collections),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
