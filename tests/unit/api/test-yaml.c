/* test-yaml.c: yaml_to_json against upstream. Every expectation in the tables is what
 * sigs.k8s.io/yaml's YAMLToJSON (go-yaml v2.4) answers for the same input, value and message,
 * except integers beyond int64, which flexlet keeps as reals (marked). Also: a Pod manifest in
 * YAML equals its JSON twin, number types, limits, billion laughs, ownership on failure. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/yaml.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/strbuf.h"

struct row {
        const char *yaml;
        const char *json;  /* expected value, or NULL when an error is expected */
        const char *error; /* expected message (-EINVAL) */
};

static const struct row scalars_rows[] = {
        { "v: yes", "{\"v\": true}", NULL },
        { "v: Yes", "{\"v\": true}", NULL },
        { "v: YES", "{\"v\": true}", NULL },
        { "v: y", "{\"v\": true}", NULL },
        { "v: on", "{\"v\": true}", NULL },
        { "v: ON", "{\"v\": true}", NULL },
        { "v: true", "{\"v\": true}", NULL },
        { "v: no", "{\"v\": false}", NULL },
        { "v: n", "{\"v\": false}", NULL },
        { "v: off", "{\"v\": false}", NULL },
        { "v: false", "{\"v\": false}", NULL },
        { "v: yEs", "{\"v\": \"yEs\"}", NULL },
        { "v: ~", "{\"v\": null}", NULL },
        { "v: null", "{\"v\": null}", NULL },
        { "v: NULL", "{\"v\": null}", NULL },
        { "v:", "{\"v\": null}", NULL },
        { "v: ''", "{\"v\": \"\"}", NULL },
        { "v: \"yes\"", "{\"v\": \"yes\"}", NULL },
        { "v: 'null'", "{\"v\": \"null\"}", NULL },
        { "v: 42", "{\"v\": 42}", NULL },
        { "v: -17", "{\"v\": -17}", NULL },
        { "v: +5", "{\"v\": 5}", NULL },
        { "v: 0x1F", "{\"v\": 31}", NULL },
        { "v: -0x1F", "{\"v\": -31}", NULL },
        { "v: 0o17", "{\"v\": 15}", NULL },
        { "v: 017", "{\"v\": 15}", NULL },
        { "v: 0b101", "{\"v\": 5}", NULL },
        { "v: 0b-101", "{\"v\": -5}", NULL },
        { "v: 1_000", "{\"v\": 1000}", NULL },
        { "v: 08", "{\"v\": 8}", NULL },
        { "v: 09.5", "{\"v\": 9.5}", NULL },
        { "v: 9223372036854775807", "{\"v\": 9223372036854775807}", NULL },
        { "v: -9223372036854775808", "{\"v\": -9223372036854775808}", NULL },
        { "v: 18446744073709551615", "{\"v\": 1.8446744073709552e19}",
          NULL }, /* Go: 18446744073709551615 */
        { "v: 0xFFFFFFFFFFFFFFFF", "{\"v\": 1.8446744073709552e19}",
          NULL }, /* Go: 18446744073709551615 */
        { "v: 0x10000000000000000", "{\"v\": \"0x10000000000000000\"}", NULL },
        { "v: 99999999999999999999", "{\"v\": 1e20}", NULL }, /* Go: 100000000000000000000 */
        { "v: 1.5", "{\"v\": 1.5}", NULL },
        { "v: 1.0", "{\"v\": 1}", NULL },
        { "v: -0.0", "{\"v\": 0}", NULL },
        { "v: 1e3", "{\"v\": 1000}", NULL },
        { "v: 1.5e300", "{\"v\": 1.5e+300}", NULL },
        { "v: .5", "{\"v\": 0.5}", NULL },
        { "v: -.5", "{\"v\": -0.5}", NULL },
        { "v: 1e400", "{\"v\": \"1e400\"}", NULL },
        { "v: 1e-400", "{\"v\": 0}", NULL },
        { "v: 1.", "{\"v\": 1}", NULL },
        { "v: 1e", "{\"v\": \"1e\"}", NULL },
        { "v: 0.1", "{\"v\": 0.1}", NULL },
        { "v: 2001-12-14", "{\"v\": \"2001-12-14\"}", NULL },
        { "v: 2001-12-14T21:59:43.10Z", "{\"v\": \"2001-12-14T21:59:43.10Z\"}", NULL },
        { "v: 12:30", "{\"v\": \"12:30\"}", NULL },
        { "v: 1.2.3", "{\"v\": \"1.2.3\"}", NULL },
        { "v: 0x", "{\"v\": \"0x\"}", NULL },
        { "v: _1", "{\"v\": \"_1\"}", NULL },
        { "v: +", "{\"v\": \"+\"}", NULL },
        { "v: <<", "{\"v\": \"<<\"}", NULL },
        { "v: !!str 42", "{\"v\": \"42\"}", NULL },
        { "v: !!int '42'", "{\"v\": 42}", NULL },
        { "v: !!int 0x10", "{\"v\": 16}", NULL },
        { "v: !!float 3", "{\"v\": 3}", NULL },
        { "v: !!float '1.5'", "{\"v\": 1.5}", NULL },
        { "v: !!bool 'yes'", "{\"v\": true}", NULL },
        { "v: !!null ''", "{\"v\": null}", NULL },
        { "v: !!null ~", "{\"v\": null}", NULL },
        { "v: !!timestamp 2001-12-14", "{\"v\": \"2001-12-14\"}", NULL },
        { "v: !!binary aGVsbG8=", "{\"v\": \"hello\"}", NULL },
        { "v: !!binary /w==",
          "{\"v\": \"\xef"
          "\xbf"
          "\xbd"
          "\"}",
          NULL },
        { "v: !custom 42", "{\"v\": \"42\"}", NULL },
        { "v: ! 42", "{\"v\": \"42\"}", NULL },
        { "v: !!map 42", "{\"v\": \"42\"}", NULL },
        { "v: |\n  a\n  b\n", "{\"v\": \"a\\nb\\n\"}", NULL },
        { "v: >\n  a\n  b\n", "{\"v\": \"a b\\n\"}", NULL },
        { "v: \"tab\\there\\u00e9\"",
          "{\"v\": \"tab\\there\xc3"
          "\xa9"
          "\"}",
          NULL },
        { "v: 'it''s'", "{\"v\": \"it's\"}", NULL },
        { "v: \"\\x80\"",
          "{\"v\": \"\xc2"
          "\x80"
          "\"}",
          NULL },
        { "", "null", NULL },
        { "# nothing\n", "null", NULL },
        { "42", "42", NULL },
        { "\"x\"", "\"x\"", NULL },
        { "[1, 2]", "[1, 2]", NULL },
        { "a: 1\n---\nb: 2\n", "{\"a\": 1}", NULL },
        { "--- |\n  text\n", "\"text\\n\"", NULL },
        { "a: 1\n---\n]: [", "{\"a\": 1}", NULL },
};

static const struct row keys_rows[] = {
        { "1: a", "{\"1\": \"a\"}", NULL },
        { "-1: a", "{\"-1\": \"a\"}", NULL },
        { "0x10: a", "{\"16\": \"a\"}", NULL },
        { "1.5: a", "{\"1.5\": \"a\"}", NULL },
        { "0.1: a", "{\"0.1\": \"a\"}", NULL },
        { "3.14159265358979: a", "{\"3.1415927\": \"a\"}", NULL },
        { "1e10: a", "{\"1e+10\": \"a\"}", NULL },
        { "1e6: a", "{\"1e+06\": \"a\"}", NULL },
        { "123456: a", "{\"123456\": \"a\"}", NULL },
        { "1e-5: a", "{\"1e-05\": \"a\"}", NULL },
        { "true: a", "{\"true\": \"a\"}", NULL },
        { "yes: a", "{\"true\": \"a\"}", NULL },
        { "y: a", "{\"true\": \"a\"}", NULL },
        { "off: a", "{\"false\": \"a\"}", NULL },
        { ".inf: a", "{\".inf\": \"a\"}", NULL },
        { "-.inf: a", "{\"-.inf\": \"a\"}", NULL },
        { ".nan: a", "{\".nan\": \"a\"}", NULL },
        { "1e40: a", "{\".inf\": \"a\"}", NULL },
        { "!!float 3: a", "{\"3\": \"a\"}", NULL },
        { "2001-12-14: a", "{\"2001-12-14\": \"a\"}", NULL },
        { "'1': a", "{\"1\": \"a\"}", NULL },
};

static const struct row aliases_rows[] = {
        { "a: &x 1\nb: *x", "{\"a\": 1, \"b\": 1}", NULL },
        { "a: &x [1, {c: d}]\nb: *x", "{\"a\": [1, {\"c\": \"d\"}], \"b\": [1, {\"c\": \"d\"}]}",
          NULL },
        { "- &a x\n- *a\n- *a", "[\"x\", \"x\", \"x\"]", NULL },
        { "a: &x 1\nb: &x 2\nc: *x", "{\"a\": 1, \"b\": 2, \"c\": 2}", NULL },
        { "a: &x\nb: *x", "{\"a\": null, \"b\": null}", NULL },
        { "a: !!str &x 5\nb: *x", "{\"a\": \"5\", \"b\": \"5\"}", NULL },
        { "base: &b {x: 1, y: 2}\nd:\n  <<: *b\n  y: 3",
          "{\"base\": {\"true\": 2, \"x\": 1}, \"d\": {\"true\": 3, \"x\": 1}}", NULL },
        { "base: &b {x: 1, y: 2}\nd:\n  y: 3\n  <<: *b",
          "{\"base\": {\"true\": 2, \"x\": 1}, \"d\": {\"true\": 2, \"x\": 1}}", NULL },
        { "a: &a {x: 1}\nb: &b {x: 2, y: 2}\nc:\n  <<: [*a, *b]",
          "{\"a\": {\"x\": 1}, \"b\": {\"true\": 2, \"x\": 2}, \"c\": {\"true\": 2, \"x\": 1}}",
          NULL },
        { "c:\n  <<: {x: 1}\n  <<: {x: 2}", "{\"c\": {\"x\": 2}}", NULL },
        { "c:\n  <<: {x: 1, <<: {y: 2}}", "{\"c\": {\"true\": 2, \"x\": 1}}", NULL },
        { "c:\n  '<<': {x: 1}", "{\"c\": {\"<<\": {\"x\": 1}}}", NULL },
        { "c:\n  !!merge <<: {x: 1}", "{\"c\": {\"x\": 1}}", NULL },
        { "c:\n  !!str <<: {x: 1}", "{\"c\": {\"<<\": {\"x\": 1}}}", NULL },
};

static const struct row errors_rows[] = {
        { "a: b: c", NULL, "yaml: mapping values are not allowed in this context" },
        { "a:\n  - b\n  c: d\n", NULL, "yaml: line 2: did not find expected '-' indicator" },
        { "key: value\n  bad: indent\n", NULL,
          "yaml: line 2: mapping values are not allowed in this context" },
        { "a: 'unterminated", NULL, "yaml: found unexpected end of stream" },
        { "a: [1, 2", NULL, "yaml: line 1: did not find expected ',' or ']'" },
        { "\"a\\0b\": 1", NULL,
          "yaml: a map key contains a NUL character, which flexlet does not accept in field "
          "names" },
        { "- a\nb: c", NULL, "yaml: line 1: did not find expected '-' indicator" },
        { "a:\n\tb: c", NULL, "yaml: line 2: found character that cannot start any token" },
        { "a: @x", NULL, "yaml: found character that cannot start any token" },
        { "a: *unknown", NULL, "yaml: unknown anchor 'unknown' referenced" },
        { "&a [*a]", NULL, "yaml: anchor 'a' value contains itself" },
        { "&a {<<: *a}", NULL, "yaml: anchor 'a' value contains itself" },
        { "c:\n  <<: 1", NULL, "yaml: map merge requires map or sequence of maps as the value" },
        { "c:\n  <<: [1]", NULL, "yaml: map merge requires map or sequence of maps as the value" },
        { "s: &s [1]\nc:\n  <<: *s", NULL,
          "yaml: map merge requires map or sequence of maps as the value" },
        { "? [1, 2]\n: v", NULL, "yaml: invalid map key: []interface {}{1, 2}" },
        { "? {a: 1}\n: v", NULL, "yaml: invalid map key: map[interface {}]interface {}{\"a\":1}" },
        { "~: v", NULL, "unsupported map key of type: %!s(<nil>), key: <nil>, value: \"v\"" },
        { "? \n: v", NULL, "unsupported map key of type: %!s(<nil>), key: <nil>, value: \"v\"" },
        { "18446744073709551615: a", NULL,
          "unsupported map key of type: uint64, key: 0xffffffffffffffff, value: \"a\"" },
        { "k:\n  ~: [1, {a: yes}]", NULL,
          "unsupported map key of type: %!s(<nil>), key: <nil>, value: []interface {}{1, map[interface {}]interface {}{\"a\":true}}" },
        { "v: !!int abc", NULL, "yaml: cannot decode !!str `abc` as a !!int" },
        { "v: !!int 1.5", NULL, "yaml: cannot decode !!float `1.5` as a !!int" },
        { "v: !!bool 1", NULL, "yaml: cannot decode !!int `1` as a !!bool" },
        { "v: !!null x", NULL, "yaml: cannot decode !!str `x` as a !!null" },
        { "v: !!float 18446744073709551615", NULL,
          "yaml: cannot decode !!int `18446744073709551615` as a !!float" },
        { "v: !!timestamp 2001-13-01", NULL,
          "yaml: cannot decode !!str `2001-13-01` as a !!timestamp" },
        { "v: !!binary aGVsbG8", NULL, "yaml: !!binary value contains invalid base64 data" },
        { "v: !!binary a=b=", NULL, "yaml: !!binary value contains invalid base64 data" },
        { "v: .inf", NULL, "json: unsupported value: +Inf" },
        { "v: -.inf", NULL, "json: unsupported value: -Inf" },
        { "v: .nan", NULL, "json: unsupported value: NaN" },
        { "v: [1, .NaN]", NULL, "json: unsupported value: NaN" },
        { "%YAML 1.2\n---\na: 1", NULL, "yaml: found incompatible YAML document" },
        { "%YAML 2.0\n---\na: 1", NULL, "yaml: found incompatible YAML document" },
        { "v: \"a\\/b\"", NULL, "yaml: found unknown escape character" },
        { "a: 1\nb: \"x\\/y\"", NULL, "yaml: line 2: found unknown escape character" },
        { "a: \"\\q\"", NULL, "yaml: found unknown escape character" },
        { "a: &b \"\\/\"", NULL, "yaml: found unknown escape character" },
        { "~: {s: 1, true: 1, 1: 1, 1.5: 1, ~: 0}", NULL,
          "unsupported map key of type: %!s(<nil>), key: <nil>, value: map[interface {}]interface {}{interface {}(nil):0, true:1, 1.5:1, 1:1, \"s\":1}" },
        { "a: \xff"
          "",
          NULL, "yaml: invalid leading UTF-8 octet" },
        { "a: \x01"
          "",
          NULL, "yaml: control characters are not allowed" },
        { "\xff"
          "\xfe"
          "",
          "null", NULL },
        { "a: 1\nb: 2\nc: d: e", NULL,
          "yaml: line 3: mapping values are not allowed in this context" },
        { "a:\n  b:\n    c: [1,\n  2", NULL, "yaml: line 4: did not find expected ',' or ']'" },
};
static void check_rows(const struct row *rows, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                json_t *v = NULL;
                struct error *err = NULL;
                int r = yaml_to_json(rows[i].yaml, strlen(rows[i].yaml), &v, &err);

                if (rows[i].json) {
                        json_t *want = json_loads(rows[i].json, JSON_DECODE_ANY, NULL);
                        char *got;

                        assert_non_null(want);
                        if (r < 0)
                                fail_msg("%s: unexpected error: %s", rows[i].yaml, err->message);
                        got = json_dumps(v, JSON_ENCODE_ANY | JSON_SORT_KEYS);
                        if (!json_equal(v, want))
                                fail_msg("%s: got %s, want %s", rows[i].yaml, got, rows[i].json);
                        free(got);
                        json_decref(want);
                        json_decref(v);
                } else {
                        if (r == 0)
                                fail_msg("%s: no error, want \"%s\"", rows[i].yaml, rows[i].error);
                        assert_int_equal(r, -EINVAL);
                        assert_null(v);
                        assert_string_equal(err->message, rows[i].error);
                        error_free(err);
                }
        }
}

/* K8S: go-yaml v2 resolution of plain scalars, tags, block scalars, documents. */
static void test_scalars(void **state)
{
        check_rows(scalars_rows, ARRAY_SIZE(scalars_rows));
}

/* K8S: YAMLToJSON turns int, float (as float32, 'g'), bool keys into strings. */
static void test_keys(void **state)
{
        check_rows(keys_rows, ARRAY_SIZE(keys_rows));
}

/* K8S: anchors, aliases and go-yaml v2 merge keys (note "y" is a bool key in YAML 1.1). */
static void test_aliases_and_merges(void **state)
{
        check_rows(aliases_rows, ARRAY_SIZE(aliases_rows));
}

static void test_errors(void **state)
{
        check_rows(errors_rows, ARRAY_SIZE(errors_rows));
}

static const char pod_yaml[] = "apiVersion: v1\n"
                               "kind: Pod\n"
                               "metadata:\n"
                               "  name: web # comment\n"
                               "  namespace: default\n"
                               "  labels:\n"
                               "    app: web\n"
                               "    tier: \"1\"\n"
                               "  annotations: {note: 'yes, quoted'}\n"
                               "spec:\n"
                               "  restartPolicy: Always\n"
                               "  terminationGracePeriodSeconds: 30\n"
                               "  containers:\n"
                               "  - name: c\n"
                               "    image: nginx:1.25\n"
                               "    command: [sh, -c, 'echo hi']\n"
                               "    args:\n"
                               "    - |\n"
                               "      line one\n"
                               "      line two\n"
                               "    ports:\n"
                               "    - containerPort: 80\n"
                               "      protocol: TCP\n"
                               "    env:\n"
                               "    - {name: DEBUG, value: \"true\"}\n"
                               "    resources:\n"
                               "      limits: {cpu: 500m, memory: 128Mi}\n"
                               "      requests:\n"
                               "        cpu: 0.25\n"
                               "    stdin: false\n"
                               "    securityContext:\n"
                               "      runAsUser: 1000\n"
                               "      allowPrivilegeEscalation: no\n";

static const char pod_json[] =
        "{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {\"name\": \"web\", "
        "\"namespace\": \"default\", \"labels\": {\"app\": \"web\", \"tier\": \"1\"}, "
        "\"annotations\": {\"note\": \"yes, quoted\"}}, \"spec\": {\"restartPolicy\": \"Always\", "
        "\"terminationGracePeriodSeconds\": 30, \"containers\": [{\"name\": \"c\", \"image\": "
        "\"nginx:1.25\", \"command\": [\"sh\", \"-c\", \"echo hi\"], \"args\": [\"line one\\nline "
        "two\\n\"], \"ports\": [{\"containerPort\": 80, \"protocol\": \"TCP\"}], \"env\": "
        "[{\"name\": \"DEBUG\", \"value\": \"true\"}], \"resources\": {\"limits\": {\"cpu\": "
        "\"500m\", \"memory\": \"128Mi\"}, \"requests\": {\"cpu\": 0.25}}, \"stdin\": false, "
        "\"securityContext\": {\"runAsUser\": 1000, \"allowPrivilegeEscalation\": false}}]}}";

/* A manifest in YAML decodes to exactly what its JSON twin decodes to, and JSON itself (what
 * kubectl sends as apply-patch+yaml) reads as YAML unchanged. */
static void test_pod_yaml_equals_json(void **state)
{
        json_t *want = json_loads(pod_json, 0, NULL), *got = NULL, *again = NULL;
        struct error *err = NULL;
        char *text;

        assert_non_null(want);
        assert_int_equal(yaml_to_json(pod_yaml, strlen(pod_yaml), &got, &err), 0);
        assert_true(json_equal(got, want));
        assert_true(json_is_integer(json_path(got, "spec.terminationGracePeriodSeconds")));

        assert_int_equal(yaml_to_json(pod_json, strlen(pod_json), &again, &err), 0);
        assert_true(json_equal(again, want));

        text = json_dumps(want, JSON_INDENT(2));
        json_decref(again);
        again = NULL;
        assert_int_equal(yaml_to_json(text, strlen(text), &again, &err), 0);
        assert_true(json_equal(again, want));
        free(text);
        json_decref(again);
        json_decref(got);
        json_decref(want);
}

/* K8S: Go's json.Marshal writes integral floats below 1e21 as integer literals, which
 * Kubernetes reads back as int64; everything else that is a number stays a float. */
static void test_number_types(void **state)
{
        static const struct {
                const char *yaml;
                bool integer;
                double value;
        } rows[] = {
                { "1.0", true, 1 },
                { "1e3", true, 1000 },
                { "-0.0", true, 0 },
                { "0x7FFFFFFFFFFFFFFF", true, 9223372036854775807.0 },
                { "1.5", false, 1.5 },
                { "1e-7", false, 1e-7 },
                { "1e21", false, 1e21 },
                { "18446744073709551615", false, 18446744073709551615.0 },
                /* Go writes -2^63 as "-9223372036854776000", beyond int64: a float */
                { "-9223372036854775808.0", false, -9223372036854775808.0 },
        };

        for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
                json_t *v = NULL;

                assert_int_equal(yaml_to_json(rows[i].yaml, strlen(rows[i].yaml), &v, NULL), 0);
                if (rows[i].integer != (bool) json_is_integer(v))
                        fail_msg("%s: integer %d, want %d", rows[i].yaml, json_is_integer(v),
                                 rows[i].integer);
                assert_true(json_number_value(v) == rows[i].value);
                json_decref(v);
        }
        {
                /* an integral float of 2^60 keeps Go's shortest digits, as upstream does */
                json_t *v = NULL;

                assert_int_equal(yaml_to_json("1152921504606846976.0", 21, &v, NULL), 0);
                assert_true(json_is_integer(v));
                assert_int_equal(json_integer_value(v), 1152921504606847000LL);
                json_decref(v);
        }
}

/* Strings are taken by length: an escaped NUL survives, and so does the input without one. */
static void test_strings_with_nul(void **state)
{
        const char in[] = "v: \"a\\0b\"\n\xc3\xa9: x";
        json_t *v = NULL;

        assert_int_equal(yaml_to_json(in, strlen(in), &v, NULL), 0);
        assert_int_equal(json_string_length(json_object_get(v, "v")), 3);
        assert_memory_equal(json_string_value(json_object_get(v, "v")), "a\0b", 3);
        assert_string_equal(json_string_value(json_object_get(v, "\xc3\xa9")), "x");
        json_decref(v);
        /* not NUL-terminated: only len bytes are read */
        assert_int_equal(yaml_to_json("a: 12345", 5, &v, NULL), 0);
        assert_int_equal(json_integer_value(json_object_get(v, "a")), 12);
        json_decref(v);
}

static double seconds_since(const struct timespec *t0)
{
        struct timespec t1;

        clock_gettime(CLOCK_MONOTONIC, &t1);
        return (double) (t1.tv_sec - t0->tv_sec) + (double) (t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* K8S: go-yaml's alias ratio check refuses billion laughs after ~1000 values. */
static void test_billion_laughs(void **state)
{
        struct strbuf sb;
        struct timespec t0;
        struct error *err = NULL;
        json_t *v = NULL;

        strbuf_init(&sb);
        strbuf_addstr(&sb, "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
        for (char c = 'b'; c <= 'i'; c++) {
                strbuf_addf(&sb, "%c: &%c [", c, c);
                for (int i = 0; i < 9; i++)
                        strbuf_addf(&sb, "%s*%c", i ? ", " : "", c - 1);
                strbuf_addstr(&sb, "]\n");
        }
        clock_gettime(CLOCK_MONOTONIC, &t0);
        assert_int_equal(yaml_to_json(sb.buf, sb.len, &v, &err), -EINVAL);
        assert_true(seconds_since(&t0) < 1.0);
        assert_null(v);
        assert_string_equal(err->message, "yaml: document contains excessive aliasing");
        error_free(err);
        strbuf_release(&sb);
}

static char *nested(int depth, const char *inner)
{
        struct strbuf sb;

        strbuf_init(&sb);
        for (int i = 0; i < depth; i++)
                strbuf_addch(&sb, '[');
        strbuf_addstr(&sb, inner);
        for (int i = 0; i < depth; i++)
                strbuf_addch(&sb, ']');
        return strbuf_detach(&sb);
}

static void expect_error(const char *in, size_t len, int errnum, const char *message)
{
        json_t *v = (json_t *) 0x1; /* untouched on failure */
        struct error *err = NULL;

        assert_int_equal(yaml_to_json(in, len, &v, &err), -errnum);
        assert_ptr_equal(v, (json_t *) 0x1);
        assert_int_equal(err->errnum, errnum);
        assert_string_equal(err->message, message);
        error_free(err);
        /* no reterr: the same code, nothing to free */
        assert_int_equal(yaml_to_json(in, len, &v, NULL), -errnum);
}

static void test_limits(void **state)
{
        cleanup_free char *ok = nested(YAML_MAX_DEPTH, "1");
        cleanup_free char *deep = nested(YAML_MAX_DEPTH + 1, "1");
        cleanup_free char *huge = xmalloc(YAML_MAX_INPUT_BYTES + 1);
        cleanup_free char *anchored = NULL, *list = NULL;
        json_t *v = NULL;
        struct strbuf sb;

        assert_int_equal(yaml_to_json(ok, strlen(ok), &v, NULL), 0);
        json_decref(v);
        expect_error(deep, strlen(deep), EINVAL, "yaml: line 1: exceeded max depth of 100");

        /* depth counts after alias expansion: 60 + 60 levels */
        {
                cleanup_free char *inner = nested(60, "1");
                cleanup_free char *outer = nested(60, "*a");

                anchored = xasprintf("a: &a %s\nb: %s\n", inner, outer);
                expect_error(anchored, strlen(anchored), EINVAL,
                             "yaml: line 1: exceeded max depth of 100");
        }

        /* K8S: the apiserver's 3 MiB body limit, checked before parsing */
        memset(huge, ' ', YAML_MAX_INPUT_BYTES + 1);
        expect_error(huge, YAML_MAX_INPUT_BYTES + 1, E2BIG,
                     "Request entity too large: limit is 3145728");
        assert_int_equal(yaml_to_json(huge, YAML_MAX_INPUT_BYTES, &v, NULL), 0);
        assert_true(json_is_null(v));
        json_decref(v);

        /* values: the document, the list and its items count; 1000000 pass */
        strbuf_init(&sb);
        strbuf_addch(&sb, '[');
        for (int i = 0; i < YAML_MAX_NODES - 2; i++)
                strbuf_addstr(&sb, i ? ",0" : "0");
        strbuf_addch(&sb, ']');
        list = strbuf_detach(&sb);
        assert_int_equal(yaml_to_json(list, strlen(list), &v, NULL), 0);
        assert_int_equal(json_array_size(v), YAML_MAX_NODES - 2);
        json_decref(v);
        list[strlen(list) - 1] = ',';
        list = xrealloc(list, strlen(list) + 3);
        strcat(list, "0]");
        expect_error(list, strlen(list), EINVAL, "yaml: document contains more than 1000000 nodes");
}

/* K8S: go-yaml's Unmarshal reads one document; later ones are not even parsed. */
static void test_first_document_only(void **state)
{
        const char in[] = "---\nkind: Pod\n---\nkind: Service\n--- ]\n";
        json_t *v = NULL;

        assert_int_equal(yaml_to_json(in, strlen(in), &v, NULL), 0);
        assert_string_equal(json_string_value(json_object_get(v, "kind")), "Pod");
        json_decref(v);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_scalars),
                cmocka_unit_test(test_keys),
                cmocka_unit_test(test_aliases_and_merges),
                cmocka_unit_test(test_errors),
                cmocka_unit_test(test_pod_yaml_equals_json),
                cmocka_unit_test(test_number_types),
                cmocka_unit_test(test_strings_with_nul),
                cmocka_unit_test(test_billion_laughs),
                cmocka_unit_test(test_limits),
                cmocka_unit_test(test_first_document_only),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
