/* test-serviceaccount.c: the service accounts controller's decision: which namespaces lack
 * their default ServiceAccount (terminating namespaces are left alone). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/json.h"
#include "controllers/serviceaccount.h"

static void test_missing(void **state)
{
        cleanup_json json_t *namespaces = json_loads(
                "{\"a\":{\"metadata\":{\"name\":\"a\"},\"status\":{\"phase\":\"Active\"}},"
                "\"b\":{\"metadata\":{\"name\":\"b\"},\"status\":{\"phase\":\"Active\"}},"
                "\"c\":{\"metadata\":{\"name\":\"c\",\"deletionTimestamp\":\"2026-01-01T00:00:00Z\"},"
                "\"status\":{\"phase\":\"Terminating\"}},"
                "\"d\":{\"metadata\":{\"name\":\"d\"}}}",
                0, NULL);
        cleanup_json json_t *accounts = json_loads(
                "{\"a/default\":{\"metadata\":{\"name\":\"default\",\"namespace\":\"a\"}},"
                "\"b/builder\":{\"metadata\":{\"name\":\"builder\",\"namespace\":\"b\"}}}",
                0, NULL);
        cleanup_json json_t *missing = serviceaccount_missing(namespaces, accounts);

        assert_int_equal(json_array_size(missing), 2);
        assert_true(json_array_has_string(missing, "b"));
        assert_true(json_array_has_string(missing, "d"));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_missing),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
