/* test-json.c: the JSON helpers of base/json.h that controllers and the node read objects with:
 * dotted paths, their string getters, and string membership of an array. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/json.h"

static json_t *object(void)
{
        return json_pack("{s:{s:s, s:i, s:[s,i,s]}}", "metadata", "name", "web", "generation", 3,
                         "finalizers", "a/one", 7, "kubernetes.io/pvc-protection");
}

static void test_path_strings(void **state)
{
        cleanup_json json_t *o = object();

        (void) state;
        assert_string_equal(json_path_string(o, "metadata.name"), "web");
        assert_null(json_path_string(o, "metadata.generation")); /* not a string */
        assert_null(json_path_string(o, "metadata.missing"));
        assert_null(json_path_string(o, "spec.name"));
        assert_string_equal(json_path_string_or_empty(o, "metadata.name"), "web");
        assert_string_equal(json_path_string_or_empty(o, "metadata.generation"), "");
        assert_string_equal(json_path_string_or_empty(o, "spec.name"), "");
        assert_string_equal(json_path_string_or_empty(NULL, "metadata.name"), "");
}

static void test_array_has_string(void **state)
{
        cleanup_json json_t *o = object();
        json_t *finalizers = json_path(o, "metadata.finalizers");

        (void) state;
        assert_true(json_array_has_string(finalizers, "kubernetes.io/pvc-protection"));
        assert_true(json_array_has_string(finalizers, "a/one"));
        assert_false(json_array_has_string(finalizers, "kubernetes.io/pv-protection"));
        assert_false(json_array_has_string(finalizers, "7")); /* a number is not a string */
        assert_false(json_array_has_string(json_path(o, "metadata.name"), "web"));
        assert_false(json_array_has_string(NULL, "a/one"));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_path_strings),
                cmocka_unit_test(test_array_has_string),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
