/* test-patch-merge.c: JSON merge patch against RFC 7386's Appendix A, kubectl's --type merge
 * (kubectl-wire.md §4.9) and the null pruning of evanphx/json-patch, kube-apiserver's engine. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "api/patch.h"
#include "base/json.h"

struct merge_case {
        const char *name;
        const char *original;
        const char *patch;
        const char *expected;
};

static json_t *parse(const char *text)
{
        json_error_t jerr;
        json_t *v = json_loads(text, JSON_DECODE_ANY, &jerr);

        if (!v) {
                print_error("bad test JSON (%s): %s\n", jerr.text, text);
                fail();
        }
        return v;
}

static void run(const struct merge_case *c)
{
        cleanup_json json_t *original = parse(c->original), *patch = parse(c->patch);
        cleanup_json json_t *expected = parse(c->expected), *result = NULL;
        cleanup_free char *before = json_dumps(original, JSON_SORT_KEYS | JSON_ENCODE_ANY);
        cleanup_free char *after = NULL, *pbefore = NULL, *pafter = NULL;
        struct error *err = NULL;

        pbefore = json_dumps(patch, JSON_SORT_KEYS | JSON_ENCODE_ANY);
        if (patch_merge(original, patch, &result, &err) < 0) {
                print_error("%s: unexpected error: %s\n", c->name, err->message);
                error_free(err);
                fail();
        }
        if (!json_equal(result, expected)) {
                cleanup_free char *got = json_dump_compact(result);

                print_error("%s:\n  got:  %s\n  want: %s\n", c->name, got, c->expected);
                fail();
        }
        /* Borrowed inputs stay as they were, and the result shares no node with them. */
        if (json_is_object(result))
                json_object_set_new(result, "zzz", json_true());
        if (json_is_array(result))
                json_array_append_new(result, json_true());
        after = json_dumps(original, JSON_SORT_KEYS | JSON_ENCODE_ANY);
        pafter = json_dumps(patch, JSON_SORT_KEYS | JSON_ENCODE_ANY);
        assert_string_equal(before, after);
        assert_string_equal(pbefore, pafter);
}

/* RFC 7386 Appendix A, every row. */
static const struct merge_case rfc7386_cases[] = {
        { "A.1", "{\"a\":\"b\"}", "{\"a\":\"c\"}", "{\"a\":\"c\"}" },
        { "A.2", "{\"a\":\"b\"}", "{\"b\":\"c\"}", "{\"a\":\"b\",\"b\":\"c\"}" },
        { "A.3", "{\"a\":\"b\"}", "{\"a\":null}", "{}" },
        { "A.4", "{\"a\":\"b\",\"b\":\"c\"}", "{\"a\":null}", "{\"b\":\"c\"}" },
        { "A.5", "{\"a\":[\"b\"]}", "{\"a\":\"c\"}", "{\"a\":\"c\"}" },
        { "A.6", "{\"a\":\"c\"}", "{\"a\":[\"b\"]}", "{\"a\":[\"b\"]}" },
        { "A.7", "{\"a\":{\"b\":\"c\"}}", "{\"a\":{\"b\":\"d\",\"c\":null}}",
          "{\"a\":{\"b\":\"d\"}}" },
        { "A.8", "{\"a\":[{\"b\":\"c\"}]}", "{\"a\":[1]}", "{\"a\":[1]}" },
        { "A.9", "[\"a\",\"b\"]", "[\"c\",\"d\"]", "[\"c\",\"d\"]" },
        { "A.10", "{\"a\":\"b\"}", "[\"c\"]", "[\"c\"]" },
        { "A.11", "{\"a\":\"foo\"}", "null", "null" },
        { "A.12", "{\"a\":\"foo\"}", "\"bar\"", "\"bar\"" },
        { "A.13", "{\"e\":null}", "{\"a\":1}", "{\"e\":null,\"a\":1}" },
        { "A.14", "[1,2]", "{\"a\":\"b\",\"c\":null}", "{\"a\":\"b\"}" },
        { "A.15", "{}", "{\"a\":{\"bb\":{\"ccc\":null}}}", "{\"a\":{\"bb\":{}}}" },
};

static void test_rfc7386(void **state)
{
        for (size_t i = 0; i < ARRAY_SIZE(rfc7386_cases); i++)
                run(&rfc7386_cases[i]);
}

static const struct merge_case kube_cases[] = {
        /* kubectl-wire.md §4.9: --type merge replaces spec.containers wholesale. */
        { "kubectl patch --type merge replaces lists",
          "{\"metadata\":{\"name\":\"web\",\"labels\":{\"a\":\"1\"}},\"spec\":{\"containers\":[{"
          "\"name\":\"c1\",\"image\":\"nginx\",\"resources\":{\"requests\":{\"cpu\":\"100m\"}}}]}}",
          "{\"spec\":{\"containers\":[{\"name\":\"c1\",\"resources\":{\"requests\":{\"cpu\":"
          "\"150m\"}}}]}}",
          "{\"metadata\":{\"name\":\"web\",\"labels\":{\"a\":\"1\"}},\"spec\":{\"containers\":[{"
          "\"name\":\"c1\",\"resources\":{\"requests\":{\"cpu\":\"150m\"}}}]}}" },
        { "kubectl label --overwrite style",
          "{\"metadata\":{\"labels\":{\"a\":\"1\",\"b\":\"2\"}}}",
          "{\"metadata\":{\"labels\":{\"a\":null,\"c\":\"3\"}}}",
          "{\"metadata\":{\"labels\":{\"b\":\"2\",\"c\":\"3\"}}}" },
        /* K8S: evanphx prunes nulls from objects inside inserted arrays; null elements stay. */
        { "nulls pruned inside new arrays", "{\"a\":{\"x\":1}}",
          "{\"a\":[{\"b\":null,\"c\":1},null,[{\"d\":null}]]}", "{\"a\":[{\"c\":1},null,[{}]]}" },
        { "null at a missing key is ignored", "{\"a\":1}", "{\"b\":null}", "{\"a\":1}" },
        { "an object replaces a scalar, nulls pruned", "{\"a\":1}",
          "{\"a\":{\"b\":null,\"c\":{\"d\":null}}}", "{\"a\":{\"c\":{}}}" },
        { "empty patch", "{\"a\":[1,2]}", "{}", "{\"a\":[1,2]}" },
        { "numbers are values, not references", "{\"a\":1.5}", "{\"b\":2}", "{\"a\":1.5,\"b\":2}" },
};

static void test_kube(void **state)
{
        for (size_t i = 0; i < ARRAY_SIZE(kube_cases); i++)
                run(&kube_cases[i]);
}

static json_t *nest(int depth)
{
        json_t *v = json_object();

        while (depth-- > 1) {
                json_t *outer = json_array();

                json_array_append_new(outer, v);
                v = outer;
        }
        return v;
}

static void test_limits(void **state)
{
        cleanup_json json_t *deep = nest(PATCH_MAX_DEPTH + 1), *ok = nest(PATCH_MAX_DEPTH);
        cleanup_json json_t *doc = json_object(), *result = NULL;
        struct error *err = NULL;

        assert_int_equal(patch_merge(doc, deep, &result, &err), -EINVAL);
        assert_string_equal(err->message,
                            "merge patch: patch nesting exceeds the maximum depth 100");
        err = error_free(err);
        assert_int_equal(patch_merge(deep, doc, &result, &err), -EINVAL);
        assert_string_equal(err->message,
                            "merge patch: object nesting exceeds the maximum depth 100");
        err = error_free(err);
        assert_int_equal(patch_merge(doc, NULL, &result, &err), -EINVAL);
        err = error_free(err);
        assert_null(result);

        assert_int_equal(patch_merge(doc, ok, &result, &err), 0);
        assert_true(json_equal(result, ok));
        json_decref(result);
        /* An absent original is JSON null. */
        assert_int_equal(patch_merge(NULL, doc, &result, &err), 0);
        assert_true(json_is_object(result) && json_object_size(result) == 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_rfc7386),
                cmocka_unit_test(test_kube),
                cmocka_unit_test(test_limits),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
