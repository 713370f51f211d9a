/* test-patch-json.c: JSON patch against RFC 6902's Appendix A (successes and failures), the
 * messages of gopkg.in/evanphx/json-patch.v4 that kube-apiserver returns, kubectl's --type json
 * (kubectl-wire.md §4.9) and the limits: operation count, copy growth, nesting. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "api/patch.h"
#include "base/json.h"

struct json_case {
        const char *name;
        const char *original;
        const char *patch;
        const char *expected; /* NULL when an error is expected */
        int errnum;           /* the negative errno expected, 0 for success */
        const char *error;    /* the exact message */
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

static void run(const struct json_case *c)
{
        cleanup_json json_t *original = parse(c->original), *patch = parse(c->patch);
        cleanup_json json_t *result = NULL;
        cleanup_free char *before = json_dumps(original, JSON_SORT_KEYS | JSON_ENCODE_ANY);
        cleanup_free char *pbefore = json_dumps(patch, JSON_SORT_KEYS | JSON_ENCODE_ANY);
        cleanup_free char *after = NULL, *pafter = NULL;
        struct error *err = NULL;
        int r;

        r = patch_json(original, patch, &result, &err);
        after = json_dumps(original, JSON_SORT_KEYS | JSON_ENCODE_ANY);
        pafter = json_dumps(patch, JSON_SORT_KEYS | JSON_ENCODE_ANY);
        assert_string_equal(before, after);
        assert_string_equal(pbefore, pafter);
        if (c->expected) {
                cleanup_json json_t *expected = parse(c->expected);

                if (r < 0) {
                        print_error("%s: unexpected error: %s\n", c->name, err->message);
                        error_free(err);
                        fail();
                }
                if (!json_equal(result, expected)) {
                        cleanup_free char *got = json_dump_compact(result);

                        print_error("%s:\n  got:  %s\n  want: %s\n", c->name, got, c->expected);
                        fail();
                }
                return;
        }
        if (r >= 0) {
                print_error("%s: expected error \"%s\"\n", c->name, c->error);
                fail();
        }
        if (r != c->errnum || !streq(err->message, c->error)) {
                print_error("%s: error %d \"%s\", want %d \"%s\"\n", c->name, r, err->message,
                            c->errnum, c->error);
                error_free(err);
                fail();
        }
        error_free(err);
}

/* RFC 6902 Appendix A (A.13, a document with two "op" members, is a parser matter). */
static const struct json_case rfc6902_cases[] = {
        { "A.1 adding an object member", "{\"foo\":\"bar\"}",
          "[{\"op\":\"add\",\"path\":\"/baz\",\"value\":\"qux\"}]",
          "{\"baz\":\"qux\",\"foo\":\"bar\"}", 0, NULL },
        { "A.2 adding an array element", "{\"foo\":[\"bar\",\"baz\"]}",
          "[{\"op\":\"add\",\"path\":\"/foo/1\",\"value\":\"qux\"}]",
          "{\"foo\":[\"bar\",\"qux\",\"baz\"]}", 0, NULL },
        { "A.3 removing an object member", "{\"baz\":\"qux\",\"foo\":\"bar\"}",
          "[{\"op\":\"remove\",\"path\":\"/baz\"}]", "{\"foo\":\"bar\"}", 0, NULL },
        { "A.4 removing an array element", "{\"foo\":[\"bar\",\"qux\",\"baz\"]}",
          "[{\"op\":\"remove\",\"path\":\"/foo/1\"}]", "{\"foo\":[\"bar\",\"baz\"]}", 0, NULL },
        { "A.5 replacing a value", "{\"baz\":\"qux\",\"foo\":\"bar\"}",
          "[{\"op\":\"replace\",\"path\":\"/baz\",\"value\":\"boo\"}]",
          "{\"baz\":\"boo\",\"foo\":\"bar\"}", 0, NULL },
        { "A.6 moving a value",
          "{\"foo\":{\"bar\":\"baz\",\"waldo\":\"fred\"},\"qux\":{\"corge\":"
          "\"grault\"}}",
          "[{\"op\":\"move\",\"from\":\"/foo/waldo\",\"path\":\"/qux/thud\"}]",
          "{\"foo\":{\"bar\":\"baz\"},\"qux\":{\"corge\":\"grault\",\"thud\":\"fred\"}}", 0, NULL },
        { "A.7 moving an array element", "{\"foo\":[\"all\",\"grass\",\"cows\",\"eat\"]}",
          "[{\"op\":\"move\",\"from\":\"/foo/1\",\"path\":\"/foo/3\"}]",
          "{\"foo\":[\"all\",\"cows\",\"eat\",\"grass\"]}", 0, NULL },
        { "A.8 testing a value: success", "{\"baz\":\"qux\",\"foo\":[\"a\",2,\"c\"]}",
          "[{\"op\":\"test\",\"path\":\"/baz\",\"value\":\"qux\"},{\"op\":\"test\",\"path\":"
          "\"/foo/1\",\"value\":2}]",
          "{\"baz\":\"qux\",\"foo\":[\"a\",2,\"c\"]}", 0, NULL },
        { "A.9 testing a value: error", "{\"baz\":\"qux\"}",
          "[{\"op\":\"test\",\"path\":\"/baz\",\"value\":\"bar\"}]", NULL, -EBADMSG,
          "testing value /baz failed: test failed" },
        { "A.10 adding a nested member object", "{\"foo\":\"bar\"}",
          "[{\"op\":\"add\",\"path\":\"/child\",\"value\":{\"grandchild\":{}}}]",
          "{\"foo\":\"bar\",\"child\":{\"grandchild\":{}}}", 0, NULL },
        { "A.11 ignoring unrecognized elements", "{\"foo\":\"bar\"}",
          "[{\"op\":\"add\",\"path\":\"/baz\",\"value\":\"qux\",\"xyz\":123}]",
          "{\"foo\":\"bar\",\"baz\":\"qux\"}", 0, NULL },
        { "A.12 adding to a nonexistent target", "{\"foo\":\"bar\"}",
          "[{\"op\":\"add\",\"path\":\"/baz/bat\",\"value\":\"qux\"}]", NULL, -EBADMSG,
          "add operation does not apply: doc is missing path: \"/baz/bat\": missing value" },
        { "A.14 ~ escape ordering", "{\"/\":9,\"~1\":10}",
          "[{\"op\":\"test\",\"path\":\"/~01\",\"value\":10}]", "{\"/\":9,\"~1\":10}", 0, NULL },
        { "A.15 comparing strings and numbers", "{\"/\":9,\"~1\":10}",
          "[{\"op\":\"test\",\"path\":\"/~01\",\"value\":\"10\"}]", NULL, -EBADMSG,
          "testing value /~01 failed: test failed" },
        { "A.16 adding an array value", "{\"foo\":[\"bar\"]}",
          "[{\"op\":\"add\",\"path\":\"/foo/-\",\"value\":[\"abc\",\"def\"]}]",
          "{\"foo\":[\"bar\",[\"abc\",\"def\"]]}", 0, NULL },
};

static void test_rfc6902(void **state)
{
        for (size_t i = 0; i < ARRAY_SIZE(rfc6902_cases); i++)
                run(&rfc6902_cases[i]);
}

/* What kube-apiserver (evanphx/json-patch v4) does and says. */
static const struct json_case kube_cases[] = {
        /* kubectl-wire.md §4.9 */
        { "kubectl patch --type json",
          "{\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":"
          "\"150m\"}}}]}}",
          "[{\"op\":\"replace\",\"path\":\"/spec/containers/0/resources/requests/cpu\",\"value\":"
          "\"160m\"}]",
          "{\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":"
          "\"160m\"}}}]}}",
          0, NULL },
        { "pointer escapes", "{\"a/b\":{\"m~n\":1}}",
          "[{\"op\":\"replace\",\"path\":\"/a~1b/m~0n\",\"value\":2}]", "{\"a/b\":{\"m~n\":2}}", 0,
          NULL },
        { "replace of a missing member adds it", "{\"metadata\":{}}",
          "[{\"op\":\"replace\",\"path\":\"/metadata/labels\",\"value\":{\"a\":\"b\"}}]",
          "{\"metadata\":{\"labels\":{\"a\":\"b\"}}}", 0, NULL },
        { "replace of the whole document", "{\"a\":1}",
          "[{\"op\":\"replace\",\"path\":\"\",\"value\":{\"b\":2}}]", "{\"b\":2}", 0, NULL },
        { "replace of the whole document by a scalar", "{\"a\":1}",
          "[{\"op\":\"replace\",\"path\":\"\",\"value\":3}]", NULL, -EBADMSG,
          "replace operation value must be object or array: %!w(<nil>)" },
        { "add without a value adds null", "{}", "[{\"op\":\"add\",\"path\":\"/a\"}]",
          "{\"a\":null}", 0, NULL },
        { "negative indices count from the end", "{\"a\":[1,2,3]}",
          "[{\"op\":\"remove\",\"path\":\"/a/-1\"},{\"op\":\"add\",\"path\":\"/a/-1\",\"value\":"
          "9},{\"op\":\"replace\",\"path\":\"/a/-3\",\"value\":0}]",
          "{\"a\":[0,2,9]}", 0, NULL },
        { "add at the end index appends", "{\"a\":[1]}",
          "[{\"op\":\"add\",\"path\":\"/a/1\",\"value\":2}]", "{\"a\":[1,2]}", 0, NULL },
        { "copy", "{\"a\":{\"b\":[1]}}",
          "[{\"op\":\"copy\",\"from\":\"/a\",\"path\":\"/c\"},{\"op\":\"add\",\"path\":"
          "\"/c/b/-\",\"value\":2}]",
          "{\"a\":{\"b\":[1]},\"c\":{\"b\":[1,2]}}", 0, NULL },
        { "move into an array", "{\"a\":\"x\",\"l\":[1]}",
          "[{\"op\":\"move\",\"from\":\"/a\",\"path\":\"/l/0\"}]", "{\"l\":[\"x\",1]}", 0, NULL },
        { "test of a missing member against null", "{\"a\":1}",
          "[{\"op\":\"test\",\"path\":\"/b\",\"value\":null}]", "{\"a\":1}", 0, NULL },
        { "test of the whole document", "{\"a\":[1,{\"b\":2}]}",
          "[{\"op\":\"test\",\"path\":\"\",\"value\":{\"a\":[1,{\"b\":2.0}]}}]",
          "{\"a\":[1,{\"b\":2}]}", 0, NULL },
        { "a null patch changes nothing", "{\"a\":1}", "null", "{\"a\":1}", 0, NULL },
        { "an empty patch changes nothing", "{\"a\":1}", "[]", "{\"a\":1}", 0, NULL },
        { "remove of a missing member", "{\"spec\":{}}",
          "[{\"op\":\"remove\",\"path\":\"/spec/foo\"}]", NULL, -EBADMSG,
          "error in remove for path: '/spec/foo': Unable to remove nonexistent key: foo: "
          "missing value" },
        { "remove under a missing member", "{}", "[{\"op\":\"remove\",\"path\":\"/spec/foo\"}]",
          NULL, -EBADMSG,
          "remove operation does not apply: doc is missing path: \"/spec/foo\": missing value" },
        { "remove of the root", "{}", "[{\"op\":\"remove\",\"path\":\"\"}]", NULL, -EBADMSG,
          "remove operation does not apply: doc is missing path: \"\": missing value" },
        { "replace under a missing member", "{}",
          "[{\"op\":\"replace\",\"path\":\"/spec/foo\",\"value\":1}]", NULL, -EBADMSG,
          "replace operation does not apply: doc is missing path: /spec/foo: missing value" },
        { "replace past the end of an array", "{\"a\":[1]}",
          "[{\"op\":\"replace\",\"path\":\"/a/1\",\"value\":1}]", NULL, -EBADMSG,
          "replace operation does not apply: doc is missing key: /a/1: missing value" },
        { "add past the end of an array", "{\"a\":[1]}",
          "[{\"op\":\"add\",\"path\":\"/a/3\",\"value\":1}]", NULL, -EBADMSG,
          "error in add for path: '/a/3': Unable to access invalid index: 3: invalid index "
          "referenced" },
        { "add at a bad index", "{\"a\":[1]}", "[{\"op\":\"add\",\"path\":\"/a/x\",\"value\":1}]",
          NULL, -EBADMSG,
          "error in add for path: '/a/x': value was not a proper array index: 'x': "
          "strconv.Atoi: parsing \"x\": invalid syntax" },
        { "remove at a huge index", "{\"a\":[1]}",
          "[{\"op\":\"remove\",\"path\":\"/a/99999999999999999999\"}]", NULL, -EBADMSG,
          "error in remove for path: '/a/99999999999999999999': strconv.Atoi: parsing "
          "\"99999999999999999999\": value out of range" },
        { "an index past int64 then a bad character is a syntax error", "{\"a\":[1]}",
          "[{\"op\":\"remove\",\"path\":\"/a/9223372036854775808x\"}]", NULL, -EBADMSG,
          "error in remove for path: '/a/9223372036854775808x': strconv.Atoi: parsing "
          "\"9223372036854775808x\": invalid syntax" },
        { "an index past int64", "{\"a\":[1]}",
          "[{\"op\":\"remove\",\"path\":\"/a/9223372036854775808\"}]", NULL, -EBADMSG,
          "error in remove for path: '/a/9223372036854775808': strconv.Atoi: parsing "
          "\"9223372036854775808\": value out of range" },
        { "the smallest int64 index", "{\"a\":[1]}",
          "[{\"op\":\"remove\",\"path\":\"/a/-9223372036854775808\"}]", NULL, -EBADMSG,
          "error in remove for path: '/a/-9223372036854775808': Unable to access invalid index: "
          "-9223372036854775808: invalid index referenced" },
        { "a signed index with a plus", "{\"a\":[1,2]}",
          "[{\"op\":\"remove\",\"path\":\"/a/+01\"}]", "{\"a\":[1]}", 0, NULL },
        { "remove below the start", "{\"a\":[1]}", "[{\"op\":\"remove\",\"path\":\"/a/-2\"}]", NULL,
          -EBADMSG,
          "error in remove for path: '/a/-2': Unable to access invalid index: -2: invalid index "
          "referenced" },
        { "test at a bad index", "{\"a\":[1]}", "[{\"op\":\"test\",\"path\":\"/a/5\",\"value\":1}]",
          NULL, -EBADMSG,
          "error in test for path: '/a/5': Unable to access invalid index: 5: invalid index "
          "referenced" },
        { "test under a missing member", "{}", "[{\"op\":\"test\",\"path\":\"/a/b\",\"value\":1}]",
          NULL, -EBADMSG, "test operation does not apply: is missing path: /a/b: missing value" },
        { "test without a value", "{\"a\":1}", "[{\"op\":\"test\",\"path\":\"/a\"}]", NULL,
          -EBADMSG, "testing value /a failed: test failed" },
        { "move from a missing member", "{}", "[{\"op\":\"move\",\"from\":\"/a\",\"path\":\"/b\"}]",
          NULL, -EBADMSG,
          "error in move for path: 'a': Unable to remove nonexistent key: a: missing value" },
        { "move into itself", "{\"a\":{\"b\":1}}",
          "[{\"op\":\"move\",\"from\":\"/a\",\"path\":\"/a/c\"}]", NULL, -EBADMSG,
          "move operation does not apply: doc is missing destination path: /a/c: missing "
          "value" },
        { "move without from", "{}", "[{\"op\":\"move\",\"path\":\"/b\"}]", NULL, -EBADMSG,
          "move operation failed to decode from: operation, missing from field: missing value" },
        { "copy to a missing parent", "{\"a\":1}",
          "[{\"op\":\"copy\",\"from\":\"/a\",\"path\":\"/x/y\"}]", NULL, -EBADMSG,
          "copy operation does not apply: doc is missing destination path: /x/y: missing "
          "value" },
        { "copy from a missing parent", "{\"a\":1}",
          "[{\"op\":\"copy\",\"from\":\"/x/y\",\"path\":\"/b\"}]", NULL, -EBADMSG,
          "copy operation does not apply: doc is missing from path: /x/y: missing value" },
        { "replace without a path", "{}", "[{\"op\":\"replace\",\"value\":1}]", NULL, -EBADMSG,
          "replace operation failed to decode path: operation missing path field: missing "
          "value" },
        { "add without a path", "{}", "[{\"op\":\"add\",\"value\":1}]", NULL, -EBADMSG,
          "add operation failed to decode path: missing value" },
        { "a path that is not a string", "{}", "[{\"op\":\"test\",\"path\":1,\"value\":1}]", NULL,
          -EBADMSG,
          "test operation failed to decode path: json: cannot unmarshal number into Go value of "
          "type string" },
        { "unknown op", "{}", "[{\"op\":\"increment\",\"path\":\"/a\"}]", NULL, -EBADMSG,
          "Unexpected kind: increment" },
        { "missing op", "{}", "[{\"path\":\"/a\"}]", NULL, -EBADMSG, "Unexpected kind: unknown" },
        { "null operation", "{}", "[null]", NULL, -EBADMSG, "Unexpected kind: unknown" },
        { "a patch that is not a list", "{}", "{\"op\":\"add\"}", NULL, -EINVAL,
          "json: cannot unmarshal object into Go value of type jsonpatch.Patch" },
        { "an operation that is not an object", "{}", "[{\"op\":\"test\",\"path\":\"\"},\"add\"]",
          NULL, -EINVAL,
          "json: cannot unmarshal string into Go value of type jsonpatch.Operation" },
        { "a document that is not an object", "\"x\"", "[]", NULL, -EINVAL,
          "json: cannot unmarshal string into Go value of type jsonpatch.partialDoc" },
        { "operations run in order and stop at the first failure", "{\"a\":1}",
          "[{\"op\":\"remove\",\"path\":\"/a\"},{\"op\":\"remove\",\"path\":\"/a\"}]", NULL,
          -EBADMSG,
          "error in remove for path: '/a': Unable to remove nonexistent key: a: missing value" },
};

static void test_kube(void **state)
{
        for (size_t i = 0; i < ARRAY_SIZE(kube_cases); i++)
                run(&kube_cases[i]);
}

static void test_operation_cap(void **state)
{
        cleanup_json json_t *doc = json_object(), *patch = json_array(), *result = NULL;
        struct error *err = NULL;

        for (int i = 0; i < PATCH_JSON_MAX_OPS; i++)
                json_array_append_new(
                        patch, json_pack("{s:s, s:s, s:i}", "op", "add", "path", "/a", "value", i));
        assert_int_equal(patch_json(doc, patch, &result, &err), 0);
        assert_int_equal(json_integer_value(json_object_get(result, "a")), PATCH_JSON_MAX_OPS - 1);
        json_array_append_new(patch, json_pack("{s:s, s:s}", "op", "remove", "path", "/a"));
        assert_int_equal(patch_json(doc, patch, &result, &err), -E2BIG);
        assert_string_equal(err->message,
                            "The allowed maximum operations in a JSON patch is 10000, got 10001");
        error_free(err);
}

/* Each copy of a member into itself doubles the document; the growth is capped before
 * memory is. */
static void test_copy_cap(void **state)
{
        cleanup_json json_t *doc = json_pack("{s:{s:s}}", "a", "s", "0123456789abcdef");
        cleanup_json json_t *patch = json_array(), *result = NULL;
        struct error *err = NULL;
        char path[32];

        for (int i = 0; i < 64; i++) {
                snprintf(path, sizeof(path), "/a/y%d", i);
                json_array_append_new(patch, json_pack("{s:s, s:s, s:s}", "op", "copy", "from",
                                                       "/a", "path", path));
        }
        assert_int_equal(patch_json(doc, patch, &result, &err), -E2BIG);
        assert_non_null(strstr(err->message, "Unable to complete the copy, the accumulated size "
                                             "increase of copy is "));
        assert_non_null(strstr(err->message, "exceeding the limit 4194304"));
        error_free(err);

        /* A few doublings are fine. */
        json_array_clear(patch);
        for (int i = 0; i < 4; i++) {
                snprintf(path, sizeof(path), "/a/y%d", i);
                json_array_append_new(patch, json_pack("{s:s, s:s, s:s}", "op", "copy", "from",
                                                       "/a", "path", path));
        }
        assert_int_equal(patch_json(doc, patch, &result, &err), 0);
        assert_non_null(json_object_get(json_object_get(json_object_get(result, "a"), "y3"), "y2"));
}

/* Paths are strings, so one operation per level could build any depth from a flat patch. */
static void test_depth_growth(void **state)
{
        cleanup_json json_t *doc = json_object(), *patch = json_array(), *result = NULL;
        struct error *err = NULL;
        char path[4 * PATCH_MAX_DEPTH] = "";

        for (int i = 0; i < PATCH_MAX_DEPTH + 5; i++) {
                strcat(path, "/a");
                json_array_append_new(
                        patch, json_pack("{s:s, s:s, s:{}}", "op", "add", "path", path, "value"));
        }
        assert_int_equal(patch_json(doc, patch, &result, &err), -EINVAL);
        assert_string_equal(err->message,
                            "json patch: document nesting exceeds the maximum depth 100");
        error_free(err);

        /* Exactly the limit works. */
        json_array_clear(patch);
        path[0] = '\0';
        for (int i = 0; i < PATCH_MAX_DEPTH - 1; i++) {
                strcat(path, "/a");
                json_array_append_new(
                        patch, json_pack("{s:s, s:s, s:{}}", "op", "add", "path", path, "value"));
        }
        assert_int_equal(patch_json(doc, patch, &result, &err), 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_rfc6902),       cmocka_unit_test(test_kube),
                cmocka_unit_test(test_operation_cap), cmocka_unit_test(test_copy_cap),
                cmocka_unit_test(test_depth_growth),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
