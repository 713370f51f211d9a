/* test-admission-serviceaccount.c: the ServiceAccount admission's defaulting of a new pod and
 * the v1 conversion of the deprecated spec.serviceAccount. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "apiserver/admission-serviceaccount.h"
#include "base/json.h"

static void test_default(void **state)
{
        static const struct {
                const char *spec;
                const char *want_name; /* serviceAccountName and serviceAccount after admission */
        } cases[] = {
                { "{}", "default" },
                { "{\"serviceAccountName\":\"\"}", "default" },
                { "{\"serviceAccountName\":\"builder\"}", "builder" },
                { "{\"serviceAccount\":\"old\"}", "old" },
                { "{\"serviceAccountName\":\"new\",\"serviceAccount\":\"old\"}", "new" },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
                cleanup_json json_t *pod =
                        json_pack("{s:o}", "spec", json_loads(cases[i].spec, 0, NULL));

                assert_int_equal(pod_service_account_default(pod), 0);
                assert_string_equal(json_path_string(pod, "spec.serviceAccountName"),
                                    cases[i].want_name);
                assert_string_equal(json_path_string(pod, "spec.serviceAccount"),
                                    cases[i].want_name);
        }
}

static void test_convert(void **state)
{
        cleanup_json json_t *pod = json_loads("{\"spec\":{\"serviceAccountName\":\"a\"}}", 0, NULL);
        cleanup_json json_t *none = json_loads("{\"spec\":{\"serviceAccount\":\"\"}}", 0, NULL);

        /* an update without the deprecated field gets it back, so the spec is unchanged */
        pod_service_account_convert(pod);
        assert_string_equal(json_path_string(pod, "spec.serviceAccount"), "a");
        pod_service_account_convert(none);
        assert_null(json_path(none, "spec.serviceAccount"));
        assert_null(json_path(none, "spec.serviceAccountName"));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_default),
                cmocka_unit_test(test_convert),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
