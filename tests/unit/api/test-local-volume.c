/* test-local-volume.c: a local-loop volume's node and backing file (api/local-volume.h): which
 * handles name a file, and which volumes are pinned to a node, and to it alone. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "api/local-volume.h"
#include "base/alloc.h"
#include "base/json.h"

static void test_file(void **state)
{
        cleanup_free char *f = local_volume_file("/d", "pvc-0b3d-x.1");

        assert_string_equal(f, "/d/volumes/pvc-0b3d-x.1.img");
        assert_null(local_volume_file("/d", "../etc"));
        assert_null(local_volume_file("/d", "a/b"));
        assert_null(local_volume_file("/d", ".hidden"));
        assert_null(local_volume_file("/d", ""));
        assert_null(local_volume_file("/d", NULL));
        assert_null(local_volume_file("/d", "PVC-UPPER"));
}

#define PINNED(values)                                                                      \
 "{\"spec\":{\"nodeAffinity\":{\"required\":{\"nodeSelectorTerms\":[{\"matchExpressions\":" \
 "[{\"key\":\"kubernetes.io/hostname\",\"operator\":\"In\",\"values\":" values "}]}]}}}}"

static void test_pinned(void **state)
{
        cleanup_json json_t *one = json_loads(PINNED("[\"n1\"]"), 0, NULL);
        cleanup_json json_t *two = json_loads(PINNED("[\"n1\",\"n2\"]"), 0, NULL);
        cleanup_json json_t *none = json_loads("{\"spec\":{}}", 0, NULL);
        cleanup_json json_t *other_key = json_loads(
                "{\"spec\":{\"nodeAffinity\":{\"required\":{\"nodeSelectorTerms\":[{"
                "\"matchExpressions\":[{\"key\":\"zone\",\"operator\":\"In\",\"values\":["
                "\"n1\"]}]}]}}}}",
                0, NULL);
        cleanup_json json_t *two_terms = json_loads(
                "{\"spec\":{\"nodeAffinity\":{\"required\":{\"nodeSelectorTerms\":[{"
                "\"matchExpressions\":[{\"key\":\"kubernetes.io/hostname\",\"operator\":\"In\","
                "\"values\":[\"n1\"]}]},{\"matchExpressions\":[]}]}}}}",
                0, NULL);

        assert_true(local_volume_pinned_to(one, "n1"));
        assert_false(local_volume_pinned_to(one, "n2"));
        assert_false(local_volume_pinned_to(one, ""));
        assert_false(local_volume_pinned_to(one, NULL));
        assert_false(local_volume_pinned_to(two, "n1")); /* not this node alone */
        assert_false(local_volume_pinned_to(none, "n1"));
        assert_false(local_volume_pinned_to(other_key, "n1"));
        assert_false(local_volume_pinned_to(two_terms, "n1"));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_file),
                cmocka_unit_test(test_pinned),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
