/* test-node-affinity.c: node selector terms as component-helpers' MatchNodeSelectorTerms and
 * apimachinery's label requirements decide them (In, NotIn on a missing label, Exists,
 * DoesNotExist, Gt/Lt as int64, matchFields on metadata.name, terms ORed, requirements ANDed, a
 * requirement that does not parse failing its term only), a volume's nodeAffinity, and a class's
 * allowedTopologies (MatchTopologySelectorTerms). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "base/json.h"
#include "controllers/node-affinity.h"

static json_t *load(const char *text)
{
        json_error_t e;
        json_t *v = json_loads(text, JSON_DECODE_ANY, &e);

        if (!v)
                fail_msg("bad JSON: %s: %s", e.text, text);
        return v;
}

#define NODE                                                                              \
 "{\"metadata\":{\"name\":\"n1\",\"labels\":{\"kubernetes.io/hostname\":\"n1\",\"zone\":" \
 "\"a\",\"gpus\":\"4\"}}}"

/* One term of one requirement. */
#define EXPR(key, op, values)                                                             \
 "{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"" key "\",\"operator\":\"" op \
 "\",\"values\":" values "}]}]}"
#define FIELD(op, values)                                                                  \
 "{\"nodeSelectorTerms\":[{\"matchFields\":[{\"key\":\"metadata.name\",\"operator\":\"" op \
 "\",\"values\":" values "}]}]}"

static const struct {
        const char *selector;
        bool want;
} selector_cases[] = {
        { EXPR("kubernetes.io/hostname", "In", "[\"n1\"]"), true },
        { EXPR("kubernetes.io/hostname", "In", "[\"n2\"]"), false },
        { EXPR("kubernetes.io/hostname", "In", "[\"n2\",\"n1\"]"), true },
        { EXPR("missing", "In", "[\"x\"]"), false },
        { EXPR("kubernetes.io/hostname", "NotIn", "[\"n2\"]"), true },
        { EXPR("kubernetes.io/hostname", "NotIn", "[\"n1\"]"), false },
        /* K8S: NotIn holds for a missing label */
        { EXPR("missing", "NotIn", "[\"x\"]"), true },
        { EXPR("zone", "Exists", "[]"), true },
        { EXPR("missing", "Exists", "[]"), false },
        { EXPR("missing", "DoesNotExist", "[]"), true },
        { EXPR("zone", "DoesNotExist", "[]"), false },
        { EXPR("gpus", "Gt", "[\"3\"]"), true },
        { EXPR("gpus", "Gt", "[\"4\"]"), false },
        { EXPR("gpus", "Gt", "[\"+3\"]"), true },
        { EXPR("gpus", "Lt", "[\"5\"]"), true },
        { EXPR("gpus", "Lt", "[\"4\"]"), false },
        { EXPR("gpus", "Lt", "[\"-1\"]"), false },
        /* a label that is not an integer, or missing, never satisfies Gt/Lt */
        { EXPR("zone", "Gt", "[\"1\"]"), false },
        { EXPR("missing", "Lt", "[\"1\"]"), false },
        /* requirements that do not parse: the term fails */
        { EXPR("kubernetes.io/hostname", "In", "[]"), false },
        { EXPR("missing", "NotIn", "[]"), false },
        { EXPR("zone", "Exists", "[\"a\"]"), false },
        { EXPR("missing", "DoesNotExist", "[\"a\"]"), false },
        { EXPR("gpus", "Gt", "[\"three\"]"), false },
        { EXPR("gpus", "Gt", "[\"1\",\"2\"]"), false },
        { EXPR("gpus", "Gt", "[\" 3\"]"), false },
        { EXPR("zone", "Equals", "[\"a\"]"), false },
        /* matchFields: metadata.name with In or NotIn and one value */
        { FIELD("In", "[\"n1\"]"), true },
        { FIELD("In", "[\"n2\"]"), false },
        { FIELD("NotIn", "[\"n2\"]"), true },
        { FIELD("NotIn", "[\"n1\"]"), false },
        { FIELD("In", "[\"n1\",\"n2\"]"), false },
        { FIELD("Exists", "[]"), false },
        { "{\"nodeSelectorTerms\":[{\"matchFields\":[{\"key\":\"spec.x\",\"operator\":\"NotIn\","
          "\"values\":[\"n1\"]}]}]}",
          true },
        /* terms are ORed, requirements ANDed, an empty term matches nothing */
        { "{\"nodeSelectorTerms\":[]}", false },
        { "{}", false },
        { "{\"nodeSelectorTerms\":[{}]}", false },
        { "{\"nodeSelectorTerms\":[{},{\"matchExpressions\":[{\"key\":\"zone\",\"operator\":"
          "\"In\",\"values\":[\"a\"]}]}]}",
          true },
        { "{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"zone\",\"operator\":\"In\","
          "\"values\":[]}]},{\"matchExpressions\":[{\"key\":\"zone\",\"operator\":\"In\","
          "\"values\":[\"a\"]}]}]}",
          true },
        { "{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"zone\",\"operator\":\"In\","
          "\"values\":[\"a\"]},{\"key\":\"kubernetes.io/hostname\",\"operator\":\"In\","
          "\"values\":[\"n2\"]}]}]}",
          false },
        { "{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"zone\",\"operator\":\"In\","
          "\"values\":[\"a\"]}],\"matchFields\":[{\"key\":\"metadata.name\",\"operator\":\"In\","
          "\"values\":[\"n1\"]}]}]}",
          true },
        { "{\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"zone\",\"operator\":\"In\","
          "\"values\":[\"a\"]}],\"matchFields\":[{\"key\":\"metadata.name\",\"operator\":\"In\","
          "\"values\":[\"n2\"]}]}]}",
          false },
};

static void test_node_selector(void **state)
{
        cleanup_json json_t *node = load(NODE);

        for (size_t i = 0; i < sizeof(selector_cases) / sizeof(selector_cases[0]); i++) {
                cleanup_json json_t *sel = load(selector_cases[i].selector);

                print_message("# %s\n", selector_cases[i].selector);
                assert_int_equal(node_selector_matches(sel, node), selector_cases[i].want);
        }
        assert_false(node_selector_matches(NULL, node));
        assert_false(node_selector_matches(node, NULL));
}

static void test_volume_node_affinity(void **state)
{
        cleanup_json json_t *node = load(NODE);
        cleanup_json json_t *none = load("{\"spec\":{}}");
        cleanup_json json_t *no_required = load("{\"spec\":{\"nodeAffinity\":{}}}");
        cleanup_json json_t *here = load("{\"spec\":{\"nodeAffinity\":{\"required\":" EXPR(
                "kubernetes.io/hostname", "In", "[\"n1\"]") "}}}");
        cleanup_json json_t *there = load("{\"spec\":{\"nodeAffinity\":{\"required\":" EXPR(
                "kubernetes.io/hostname", "In", "[\"n2\"]") "}}}");

        assert_true(pv_node_affinity_matches(none, node));
        assert_true(pv_node_affinity_matches(no_required, node));
        assert_true(pv_node_affinity_matches(here, node));
        assert_false(pv_node_affinity_matches(there, node));
}

static void test_topology(void **state)
{
        static const struct {
                const char *terms;
                bool want;
        } cases[] = {
                { "null", true },
                { "[]", true },
                { "[{\"matchLabelExpressions\":[{\"key\":\"zone\",\"values\":[\"b\",\"a\"]}]}]",
                  true },
                { "[{\"matchLabelExpressions\":[{\"key\":\"zone\",\"values\":[\"b\"]}]}]", false },
                { "[{\"matchLabelExpressions\":[{\"key\":\"rack\",\"values\":[\"a\"]}]}]", false },
                { "[{\"matchLabelExpressions\":[{\"key\":\"zone\",\"values\":[]}]}]", false },
                /* K8S: a term without expressions selects nothing; terms are ORed */
                { "[{}]", false },
                { "[{},{\"matchLabelExpressions\":[{\"key\":\"zone\",\"values\":[\"a\"]}]}]",
                  true },
                { "[{\"matchLabelExpressions\":[{\"key\":\"zone\",\"values\":[\"a\"]},"
                  "{\"key\":\"kubernetes.io/hostname\",\"values\":[\"n2\"]}]}]",
                  false },
        };
        cleanup_json json_t *node = load(NODE);

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                cleanup_json json_t *terms = load(cases[i].terms);

                print_message("# %s\n", cases[i].terms);
                assert_int_equal(topology_terms_match(terms, node), cases[i].want);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_node_selector),
                cmocka_unit_test(test_volume_node_affinity),
                cmocka_unit_test(test_topology),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
