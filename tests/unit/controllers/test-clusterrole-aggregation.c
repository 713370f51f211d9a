/* test-clusterrole-aggregation.c: the aggregated rules of a ClusterRole: roles its selectors
 * match, by name order, each rule once, itself and unlabelled roles left out, no
 * aggregationRule no answer. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "controllers/clusterrole-aggregation.h"

static json_t *parse(const char *s)
{
        json_t *v = json_loads(s, 0, NULL);

        assert_non_null(v);
        return v;
}

static void test_aggregation(void **state)
{
        cleanup_json json_t *roles = parse(
                "{\"view\":{\"metadata\":{\"name\":\"view\",\"labels\":{\"agg/edit\":\"true\"}},"
                "\"aggregationRule\":{\"clusterRoleSelectors\":[{\"matchLabels\":{\"agg/view\":"
                "\"true\"}}]},\"rules\":[{\"verbs\":[\"stale\"]}]},"
                "\"z-view\":{\"metadata\":{\"name\":\"z-view\",\"labels\":{\"agg/view\":\"true\"}},"
                "\"rules\":[{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\"]},"
                "{\"verbs\":[\"list\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\"]}]},"
                "\"a-view\":{\"metadata\":{\"name\":\"a-view\",\"labels\":{\"agg/view\":\"true\"}},"
                "\"rules\":[{\"verbs\":[\"list\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\"]}]},"
                "\"other\":{\"metadata\":{\"name\":\"other\"},"
                "\"rules\":[{\"verbs\":[\"*\"],\"apiGroups\":[\"*\"],\"resources\":[\"*\"]}]},"
                "\"bad\":{\"metadata\":{\"name\":\"bad\"},\"aggregationRule\":{"
                "\"clusterRoleSelectors\":[{\"matchExpressions\":[{\"key\":\"x\","
                "\"operator\":\"Nope\"}]}]}}}");
        cleanup_json json_t *view =
                clusterrole_aggregated_rules(json_object_get(roles, "view"), roles);
        cleanup_json json_t *bad =
                clusterrole_aggregated_rules(json_object_get(roles, "bad"), roles);
        cleanup_free char *got = json_dumps(view, JSON_COMPACT);

        /* a-view first (name order), z-view's list rule already there */
        assert_string_equal(got, "[{\"verbs\":[\"list\"],\"apiGroups\":[\"\"],\"resources\":"
                                 "[\"pods\"]},{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],"
                                 "\"resources\":[\"pods\"]}]");
        assert_int_equal(json_array_size(bad), 0);
        assert_null(clusterrole_aggregated_rules(json_object_get(roles, "other"), roles));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_aggregation),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
