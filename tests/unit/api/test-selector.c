/* test-selector.c: label and field selectors against upstream's behaviour. The tables port
 * apimachinery v0.33 pkg/labels/selector_test.go and pkg/fields/selector_test.go cases and add
 * one case per parser error; every expected String() and message was produced by running
 * upstream's labels.Parse / fields.ParseSelector (+ Transform with the kind's field label
 * conversion) on the same input. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/selector.h"
#include "base/alloc.h"
#include "base/json.h"

/* Upstream's validation texts, shared by many expected messages below. */
#define QNAME_ERR                                                                          \
 "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with "  \
 "an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for " \
 "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
#define LABEL_VALUE_ERR                                                                   \
 "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' " \
 "or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "    \
 "'my_value',  or '12345', regex used for validation is "                                 \
 "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
#define DNS1123_SUBDOMAIN_ERR                                                              \
 "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' " \
 "or '.', and must start and end with an alphanumeric character (e.g. 'example.com', "     \
 "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-"   \
 "z0-9])?)*')"

/* in: the selector; ret: 0 or -EINVAL; want: upstream's String() on success, its error
 * message on failure. */
struct parse_case {
        const char *in;
        int ret;
        const char *want;
};

/* K8S: labels.Parse. */
static const struct parse_case label_parse_cases[] = {
        { "x=a,y=b,z=c", 0, "x=a,y=b,z=c" },
        { "", 0, "" },
        { "x!=a,y=b", 0, "x!=a,y=b" },
        { "x=", 0, "x=" },
        { "x= ", 0, "x=" },
        { "x=,z= ", 0, "x=,z=" },
        { "x= ,z= ", 0, "x=,z=" },
        { "!x", 0, "!x" },
        { "x>1", 0, "x>1" },
        { "x>1,z<5", 0, "x>1,z<5" },
        { "x=a,a=x", 0, "a=x,x=a" },
        { "a=x,x=a", 0, "a=x,x=a" },
        { "\rx", 0, "x" },
        { "this-is-a-dns.domain.com/key-with-dash", 0, "this-is-a-dns.domain.com/key-with-dash" },
        { "this-is-another-dns.domain.com/key-with-dash in (so,what)", 0,
          "this-is-another-dns.domain.com/key-with-dash in (so,what)" },
        { "0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)", 0,
          "0.1.2.domain/99 notin (10.10.100.1,tick.tack.clock)" },
        { "foo  in\t (abc)", 0, "foo in (abc)" },
        { "x notin\n (abc)", 0, "x notin (abc)" },
        { "x  notin\t\t\t(abc,def)", 0, "x notin (abc,def)" },
        { "x in (abc,def)", 0, "x in (abc,def)" },
        { "x in (abc,)", 0, "x in (,abc)" },
        { "x in ()", 0, "x in ()" },
        { "x notin (abc,,def),bar,z in (),w", 0, "bar,w,x notin (,abc,def),z in ()" },
        { "x,y in (a)", 0, "x,y in (a)" },
        { "x=a", 0, "x=a" },
        { "x<7", 0, "x<7" },
        { "x=a,y!=b", 0, "x=a,y!=b" },
        { "x=a,y!=b,z in (h,i,j)", 0, "x=a,y!=b,z in (h,i,j)" },
        { "x notin ( )", 0, "x notin ()" },
        { "x notin (, a)", 0, "x notin (,a)" },
        { "a ", 0, "a" },
        { "a in (x,y,notin, z,in)", 0, "a in (in,notin,x,y,z)" },
        { "notin=in", 0, "notin=in" },
        { "in in (in)", 0, "in in (in)" },
        { "x in (b,a,b)", 0, "x in (a,b)" },
        { "x in (,)", 0, "x in ()" },
        { "x in (,,a)", 0, "x in (,a)" },
        { "app.kubernetes.io/name=web", 0, "app.kubernetes.io/name=web" },
        { "x==a", 0, "x==a" },
        { "z!=a,z", 0, "z!=a,z" },
        { "x>01", 0, "x>01" },
        { "x<-0", -EINVAL,
          "unable to parse requirement: values[0][x]: Invalid value: \"-0\": " LABEL_VALUE_ERR },
        { "k8s.io/a_b-c.d", 0, "k8s.io/a_b-c.d" },
        { "y,x,!w", 0, "!w,x,y" },
        { "x in (a,,,b)", 0, "x in (,a,b)" },
        { "x=a||y=b", -EINVAL,
          "unable to parse requirement: values[0][x]: Invalid value: \"a||y\": " LABEL_VALUE_ERR },
        { "x==a==b", -EINVAL, "found '==', expected: ',' or 'end of string'" },
        { "!x=a", -EINVAL, "found '=', expected: ',' or 'end of string'" },
        { "x<a", -EINVAL,
          "unable to parse requirement: values[0]: Invalid value: \"a\": for 'Gt', 'Lt' operators, the value must be an integer" },
        { "x,,y", -EINVAL, "found ',', expected: identifier after ','" },
        { ",x,y", -EINVAL, "found ',', expected: !, identifier, or 'end of string'" },
        { "x nott in (y)", -EINVAL,
          "unable to parse requirement: found 'nott', expected: in, notin, =, ==, !=, gt, lt" },
        { "a in (xyz),", -EINVAL, "found '', expected: identifier after ','" },
        { "a in (xyz)b notin ()", -EINVAL, "found 'b', expected: ',' or 'end of string'" },
        { "a in (xyz abc)", -EINVAL,
          "unable to parse requirement: found 'abc', expected: ',' or ')'" },
        { "a notin(", -EINVAL,
          "unable to parse requirement: found '', expected: ',', ')' or identifier" },
        { "a (", -EINVAL,
          "unable to parse requirement: found '(', expected: in, notin, =, ==, !=, gt, lt" },
        { "(", -EINVAL, "found '(', expected: !, identifier, or 'end of string'" },
        { "x in (a,,)", -EINVAL,
          "unable to parse requirement: found ')', expected: ',', or identifier" },
        { "x=(a)", -EINVAL, "unable to parse requirement: found '(', expected: identifier" },
        { "x>", -EINVAL,
          "unable to parse requirement: values[0]: Invalid value: \"\": for 'Gt', 'Lt' operators, the value must be an integer" },
        { "x>-1", -EINVAL,
          "unable to parse requirement: values[0][x]: Invalid value: \"-1\": " LABEL_VALUE_ERR },
        { "x>99999999999999999999", -EINVAL,
          "unable to parse requirement: values[0]: Invalid value: \"99999999999999999999\": for 'Gt', 'Lt' operators, the value must be an integer" },
        { "x<9223372036854775808", -EINVAL,
          "unable to parse requirement: values[0]: Invalid value: \"9223372036854775808\": for 'Gt', 'Lt' operators, the value must be an integer" },
        { "a:b", -EINVAL,
          "unable to parse requirement: <nil>: Invalid value: \"a:b\": name part " QNAME_ERR },
        { "a/b/c", -EINVAL,
          "unable to parse requirement: <nil>: Invalid value: \"a/b/c\": a qualified name " QNAME_ERR
          " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')" },
        { "/k", -EINVAL,
          "unable to parse requirement: <nil>: Invalid value: \"/k\": prefix part must be non-empty" },
        { "k/", -EINVAL,
          "unable to parse requirement: <nil>: Invalid value: \"k/\": name part must be non-empty; name part " QNAME_ERR },
        { "Example.com/k", -EINVAL,
          "unable to parse requirement: <nil>: Invalid value: \"Example.com/k\": prefix part " DNS1123_SUBDOMAIN_ERR },
        { "-a.com/k", -EINVAL,
          "unable to parse requirement: <nil>: Invalid value: \"-a.com/k\": prefix part " DNS1123_SUBDOMAIN_ERR },
        { "x in (a$,b$)", -EINVAL,
          "unable to parse requirement: [values[0][x]: Invalid value: \"a$\": " LABEL_VALUE_ERR
          ", values[1][x]: Invalid value: \"b$\": " LABEL_VALUE_ERR "]" },
        { "!", -EINVAL, "unable to parse requirement: found '', expected: identifier" },
        { "x!", -EINVAL,
          "unable to parse requirement: found '!', expected: in, notin, =, ==, !=, gt, lt" },
        { "x in a", -EINVAL, "unable to parse requirement: found 'a' expected: '('" },
        { "x in (a", -EINVAL, "unable to parse requirement: found '', expected: ',' or ')'" },
        { "x in (a b)", -EINVAL, "unable to parse requirement: found 'b', expected: ',' or ')'" },
        { "x=a,", -EINVAL, "found '', expected: identifier after ','" },
        { "!=a", -EINVAL, "found '!=', expected: !, identifier, or 'end of string'" },
        { "x=a b", -EINVAL, "found 'b', expected: ',' or 'end of string'" },
        { "x >= 1", -EINVAL, "unable to parse requirement: found '=', expected: identifier" },
        { "x=\x0b", -EINVAL,
          "unable to parse requirement: values[0][x]: Invalid value: \"\\v\": " LABEL_VALUE_ERR },
        { "x in (a,=)", -EINVAL,
          "unable to parse requirement: found '=', expected: ',', or identifier" },
        { "x in ==", -EINVAL, "unable to parse requirement: found '==' expected: '('" },
        { "x,", -EINVAL, "found '', expected: identifier after ','" },
        { ")", -EINVAL, "found ')', expected: !, identifier, or 'end of string'" },
        { "!!x", -EINVAL, "unable to parse requirement: found '!', expected: identifier" },
        { "x y", -EINVAL,
          "unable to parse requirement: found 'y', expected: in, notin, =, ==, !=, gt, lt" },
        { "x=a=b", -EINVAL, "found '=', expected: ',' or 'end of string'" },
        { "\xd0\xba\xd0\xbb\xd1\x8e\xd1\x87=a", -EINVAL,
          "unable to parse requirement: <nil>: Invalid value: \"\xd0\xba\xd0\xbb\xd1\x8e\xd1\x87\": name part " QNAME_ERR },
        { "x=\x01", -EINVAL,
          "unable to parse requirement: values[0][x]: Invalid value: \"\\x01\": " LABEL_VALUE_ERR },
        { "x= ,", -EINVAL, "found '', expected: identifier after ','" },
        { "x notin (a)(b)", -EINVAL, "found '(', expected: ',' or 'end of string'" },
};

/* Checks one parse against its expectation; reports the input on failure. */
static void check_label_parse(const char *in, int want_ret, const char *want)
{
        struct label_selector *sel = (struct label_selector *) 0x1; /* must stay untouched */
        struct error *err = NULL;
        int r = label_selector_parse(in, &sel, &err);

        if (r != want_ret)
                fail_msg("label_selector_parse(\"%s\") = %d, want %d (%s)", in, r, want_ret,
                         err ? err->message : "no error");
        if (r == 0) {
                cleanup_free char *s = label_selector_to_string(sel);
                if (!streq(s, want))
                        fail_msg("label_selector_parse(\"%s\") string \"%s\", want \"%s\"", in, s,
                                 want);
                assert_null(err);
                label_selector_free(sel);
        } else {
                assert_ptr_equal(sel, (struct label_selector *) 0x1);
                assert_non_null(err);
                assert_int_equal(err->errnum, EINVAL);
                if (!streq(err->message, want))
                        fail_msg("label_selector_parse(\"%s\") message\n  \"%s\"\nwant\n  \"%s\"",
                                 in, err->message, want);
                error_free(err);
        }
}

static void test_label_parse(void **state)
{
        for (size_t i = 0; i < ARRAY_SIZE(label_parse_cases); i++)
                check_label_parse(label_parse_cases[i].in, label_parse_cases[i].ret,
                                  label_parse_cases[i].want);
}

static char *repeat(char c, size_t n, const char *prefix, const char *suffix)
{
        char *run = xmalloc(n + 1);

        memset(run, c, n);
        run[n] = '\0';
        char *s = xasprintf("%s%s%s", prefix, run, suffix);
        free(run);
        return s;
}

/* K8S: qualified name parts at most 63 characters, prefix at most 253, values at most 63. */
static void test_label_parse_lengths(void **state)
{
        cleanup_free char *key63 = repeat('a', 63, "", "");
        cleanup_free char *key64 = repeat('k', 64, "", "");
        cleanup_free char *val63 = repeat('v', 63, "x=", "");
        cleanup_free char *val64 = repeat('a', 64, "x=", "");
        cleanup_free char *prefix253 = repeat('b', 253, "", "/k");
        cleanup_free char *prefix254 = repeat('b', 254, "", "/k");
        cleanup_free char *key64_msg = xasprintf(
                "unable to parse requirement: <nil>: Invalid value: \"%s\": name part must be no "
                "more than 63 characters",
                key64);
        cleanup_free char *val64_msg = xasprintf(
                "unable to parse requirement: values[0][x]: Invalid value: \"%s\": must be no "
                "more than 63 characters",
                val64 + 2);
        cleanup_free char *prefix254_msg = xasprintf(
                "unable to parse requirement: <nil>: Invalid value: \"%s\": prefix part must be no "
                "more than 253 characters",
                prefix254);

        check_label_parse(key63, 0, key63);
        check_label_parse(key64, -EINVAL, key64_msg);
        check_label_parse(val63, 0, val63);
        check_label_parse(val64, -EINVAL, val64_msg);
        check_label_parse(prefix253, 0, prefix253);
        check_label_parse(prefix254, -EINVAL, prefix254_msg);
}

/* Parsing works without an error object and leaves *ret alone on failure. */
static void test_label_parse_no_reterr(void **state)
{
        struct label_selector *sel = NULL;

        assert_int_equal(label_selector_parse("x in (a", &sel, NULL), -EINVAL);
        assert_null(sel);
        assert_int_equal(label_selector_parse("a:b", &sel, NULL), -EINVAL);
        assert_int_equal(label_selector_parse("x=a,", &sel, NULL), -EINVAL);
        assert_null(sel);
        assert_int_equal(label_selector_parse("x=a", &sel, NULL), 0);
        assert_non_null(sel);
        assert_false(label_selector_is_empty(sel));
        label_selector_free(sel);
        assert_int_equal(label_selector_parse("  ", &sel, NULL), 0);
        assert_true(label_selector_is_empty(sel));
        assert_true(label_selector_matches(sel, NULL));
        assert_null(label_selector_free(sel));
        assert_null(label_selector_free(NULL));
}

/* sel: the selector; labels: metadata.labels as JSON; want: upstream's Matches. */
struct label_match_case {
        const char *sel;
        const char *labels;
        bool want;
};

/* K8S: Selector.Matches on a labels.Set. */
static const struct label_match_case label_match_cases[] = {
        { "", "{\"x\": \"y\"}", true },
        { "x=y", "{\"x\": \"y\"}", true },
        { "x=y,z=w", "{\"x\": \"y\", \"z\": \"w\"}", true },
        { "x!=y,z!=w", "{\"x\": \"z\", \"z\": \"a\"}", true },
        { "notin=in", "{\"notin\": \"in\"}", true },
        { "x", "{\"x\": \"z\"}", true },
        { "!x", "{\"y\": \"z\"}", true },
        { "x>1", "{\"x\": \"2\"}", true },
        { "x<1", "{\"x\": \"0\"}", true },
        { "x=z", "{}", false },
        { "x=y", "{\"x\": \"z\"}", false },
        { "x=y,z=w", "{\"x\": \"w\", \"z\": \"w\"}", false },
        { "x!=y,z!=w", "{\"x\": \"z\", \"z\": \"w\"}", false },
        { "x", "{\"y\": \"z\"}", false },
        { "!x", "{\"x\": \"z\"}", false },
        { "x>1", "{\"x\": \"0\"}", false },
        { "x<1", "{\"x\": \"2\"}", false },
        { "foo=bar", "{\"foo\": \"bar\", \"baz\": \"blah\"}", true },
        { "baz=blah", "{\"foo\": \"bar\", \"baz\": \"blah\"}", true },
        { "foo=bar,baz=blah", "{\"foo\": \"bar\", \"baz\": \"blah\"}", true },
        { "foo=blah", "{\"foo\": \"bar\", \"baz\": \"blah\"}", false },
        { "baz=bar", "{\"foo\": \"bar\", \"baz\": \"blah\"}", false },
        { "foo=bar,foobar=bar,baz=blah", "{\"foo\": \"bar\", \"baz\": \"blah\"}", false },
        { "x in (foo),y notin (alpha)", "{\"x\": \"foo\", \"y\": \"baz\"}", true },
        { "x in (foo),y in (alpha)", "{\"x\": \"foo\", \"y\": \"baz\"}", false },
        { "x notin (),y", "{\"y\": \"\"}", true },
        { "!x,y", "{\"y\": \"\"}", true },
        { "x notin (),!y", "{\"y\": \"\"}", false },
        { "x in ()", "{\"y\": \"baz\"}", false },
        { "z>1", "{\"z\": \"2\"}", true },
        { "z>1", "{\"z\": \"v2\"}", false },
        { "x in ()", "{\"x\": \"\"}", true },
        { "x=", "{\"x\": \"\"}", true },
        { "x=", "{}", false },
        { "x!=", "{}", true },
        { "x!=", "{\"x\": \"\"}", false },
        { "x notin (a,b)", "{}", true },
        { "x notin (a,b)", "{\"x\": \"b\"}", false },
        { "x in (a,b)", "{\"x\": \"b\"}", true },
        { "x>0", "{\"x\": \"1\"}", true },
        { "x>0", "{\"x\": \"-1\"}", false },
        { "x<10", "{\"x\": \"-5\"}", true },
        { "x>1", "{}", false },
        { "x<1", "{}", false },
        { "x>01", "{\"x\": \"2\"}", true },
        { "x<5", "{\"x\": \"+3\"}", true },
        { "x<5", "{\"x\": \"3.0\"}", false },
        { "x>0", "{\"x\": \"99999999999999999999\"}", false },
        { "a.b/c=a,!in", "{\"a.b/c\": \"a\"}", true },
        { "a.b/c=a,!in", "{\"a.b/c\": \"a\", \"in\": \"x\"}", false },
        { "x==a", "{\"x\": \"a\"}", true },
        { "", "{}", true },
        /* Not from upstream (labels are always strings there): other JSON scalars compare in
         * their string form, and a null value still counts as present. */
        { "x=5", "{\"x\": 5}", true },
        { "x>4,x<6", "{\"x\": 5}", true },
        { "x=true", "{\"x\": true}", true },
        { "x=1.5", "{\"x\": 1.5}", true },
        { "x", "{\"x\": null}", true },
        { "x=", "{\"x\": null}", true },
        { "x>0", "{\"x\": {}}", false },
        { "x!=a", "[\"x\"]", true },
        { "x", "[\"x\"]", false },
};

static void test_label_matches(void **state)
{
        for (size_t i = 0; i < ARRAY_SIZE(label_match_cases); i++) {
                const struct label_match_case *c = &label_match_cases[i];
                cleanup_label_selector struct label_selector *sel = NULL;
                cleanup_json json_t *labels = json_loads(c->labels, JSON_DECODE_ANY, NULL);

                assert_non_null(labels);
                assert_int_equal(label_selector_parse(c->sel, &sel, NULL), 0);
                if (label_selector_matches(sel, labels) != c->want)
                        fail_msg("\"%s\" on %s: got %d, want %d", c->sel, c->labels, !c->want,
                                 c->want);
        }
}

/* metadata.labels may be absent: then only requirements that hold for no labels match. */
static void test_label_matches_no_labels(void **state)
{
        static const struct {
                const char *sel;
                bool want;
        } cases[] = {
                { "", true },     { "!x", true },  { "x!=a", true },     { "x notin (a)", true },
                { "x", false },   { "x=", false }, { "x in ()", false }, { "x>0", false },
                { "x<0", false },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                cleanup_label_selector struct label_selector *sel = NULL;

                assert_int_equal(label_selector_parse(cases[i].sel, &sel, NULL), 0);
                if (label_selector_matches(sel, NULL) != cases[i].want)
                        fail_msg("\"%s\" on no labels: want %d", cases[i].sel, cases[i].want);
        }
}

/* supported: the kind's field labels, NULL for DefaultMetaV1FieldSelectorConversion. */
struct field_parse_case {
        const char *in;
        const char *const *supported;
        int ret;
        const char *want;
};

/* K8S: fields.ParseSelector, then Transform with the kind's field label conversion. */
static const struct field_parse_case field_parse_cases[] = {
        { "x=a,y=b,z=c", (const char *const[]){ "x", "y", "z", NULL }, 0, "x=a,y=b,z=c" },
        { "", (const char *const[]){ "x", NULL }, 0, "" },
        { "x!=a,y=b", (const char *const[]){ "x", "y", NULL }, 0, "x!=a,y=b" },
        { "x=a||y\\=b", (const char *const[]){ "x", NULL }, 0, "x=a||y\\=b" },
        { "x=a\\=\\=b", (const char *const[]){ "x", NULL }, 0, "x=a\\=\\=b" },
        { "x=a,a=x", (const char *const[]){ "x", "a", NULL }, 0, "a=x,x=a" },
        { "a=x,x=a", (const char *const[]){ "x", "a", NULL }, 0, "a=x,x=a" },
        { "x==a", (const char *const[]){ "x", NULL }, 0, "x=a" },
        { "x=", (const char *const[]){ "x", NULL }, 0, "x=" },
        { "x!=", (const char *const[]){ "x", NULL }, 0, "x!=" },
        { ",x=a,", (const char *const[]){ "x", NULL }, 0, "x=a" },
        { "x=a,,y=b", (const char *const[]){ "x", "y", NULL }, 0, "x=a,y=b" },
        { "notin=in", (const char *const[]){ "notin", NULL }, 0, "notin=in" },
        { "x=\\\\", (const char *const[]){ "x", NULL }, 0, "x=\\\\" },
        { "x=\\,", (const char *const[]){ "x", NULL }, 0, "x=\\," },
        { "k=\\,,k2=v2", (const char *const[]){ "k", "k2", NULL }, 0, "k2=v2,k=\\," },
        { "k=\\\\,k2=v2", (const char *const[]){ "k", "k2", NULL }, 0, "k2=v2,k=\\\\" },
        { "k=\\\\\\,,k2=v2", (const char *const[]){ "k", "k2", NULL }, 0, "k2=v2,k=\\\\\\," },
        { "complex=\\=value\\\\\\,\\\\", (const char *const[]){ "complex", NULL }, 0,
          "complex=\\=value\\\\\\,\\\\" },
        { "x=a b", (const char *const[]){ "x", NULL }, 0, "x=a b" },
        { "x=in (a)", (const char *const[]){ "x", NULL }, 0, "x=in (a)" },
        { "=", (const char *const[]){ "x", NULL }, 0, "" },
        { "!=", (const char *const[]){ "x", NULL }, 0, "" },
        { "==", (const char *const[]){ "x", NULL }, 0, "" },
        { "=,x=a", (const char *const[]){ "x", NULL }, 0, "x=a" },
        { "a!b=c", (const char *const[]){ "a!b", NULL }, 0, "a!b=c" },
        { "x=!", (const char *const[]){ "x", NULL }, 0, "x=!" },
        { "x=\xc3\xa9", (const char *const[]){ "x", NULL }, 0, "x=\xc3\xa9" },
        { "\xed\x95\xa8=\xec\x88\x98,\xeb\xaa\xa9=\xeb\xa1\x9d",
          (const char *const[]){ "\xed\x95\xa8", "\xeb\xaa\xa9", NULL }, 0,
          "\xeb\xaa\xa9=\xeb\xa1\x9d,\xed\x95\xa8=\xec\x88\x98" },
        { "involvedObject.name=web,involvedObject.namespace=,involvedObject.kind=Pod",
          (const char *const[]){ "involvedObject.name", "involvedObject.namespace",
                                 "involvedObject.kind", "involvedObject.uid", NULL },
          0, "involvedObject.kind=Pod,involvedObject.name=web,involvedObject.namespace=" },
        { "spec.nodeName=node1,status.phase!=Succeeded,status.phase!=Failed",
          (const char *const[]){ "metadata.name", "metadata.namespace", "spec.nodeName",
                                 "status.phase", NULL },
          0, "spec.nodeName=node1,status.phase!=Failed,status.phase!=Succeeded" },
        { "metadata.name=web", NULL, 0, "metadata.name=web" },
        { "metadata.namespace!=default", NULL, 0, "metadata.namespace!=default" },
        { "x=a||y=b", (const char *const[]){ "x", "y", NULL }, -EINVAL,
          "invalid field selector: unescaped character in value: 61" },
        { "x==a==b", (const char *const[]){ "x", NULL }, -EINVAL,
          "invalid field selector: unescaped character in value: 61" },
        { "x=a,b", (const char *const[]){ "x", NULL }, -EINVAL,
          "invalid selector: 'x=a,b'; can't understand 'b'" },
        { "x in (a)", (const char *const[]){ "x", NULL }, -EINVAL,
          "invalid selector: 'x in (a)'; can't understand 'x in (a)'" },
        { "x in (a,b,c)", (const char *const[]){ "x", NULL }, -EINVAL,
          "invalid selector: 'x in (a,b,c)'; can't understand 'b'" },
        { "x", (const char *const[]){ "x", NULL }, -EINVAL,
          "invalid selector: 'x'; can't understand 'x'" },
        { "b,a", (const char *const[]){ "x", NULL }, -EINVAL,
          "invalid selector: 'b,a'; can't understand 'a'" },
        { "x=a=b", (const char *const[]){ "x", NULL }, -EINVAL,
          "invalid field selector: unescaped character in value: 61" },
        { "x=a,b", (const char *const[]){ "x", NULL }, -EINVAL,
          "invalid selector: 'x=a,b'; can't understand 'b'" },
        { "x=\\", (const char *const[]){ "x", NULL }, -EINVAL,
          "invalid field selector: invalid escape sequence: \\" },
        { "x=\\\\\\", (const char *const[]){ "x", NULL }, -EINVAL,
          "invalid field selector: invalid escape sequence: \\" },
        { "x=\\a", (const char *const[]){ "x", NULL }, -EINVAL,
          "invalid field selector: invalid escape sequence: \\a" },
        { "x=\\!", (const char *const[]){ "x", NULL }, -EINVAL,
          "invalid field selector: invalid escape sequence: \\!" },
        { "x!==a", (const char *const[]){ "x", NULL }, -EINVAL,
          "invalid field selector: unescaped character in value: 61" },
        { "x=\xc3\xa9\\\xc3\xa9", (const char *const[]){ "x", NULL }, -EINVAL,
          "invalid field selector: invalid escape sequence: \\\xc3\xa9" },
        { "y=\\q,x", (const char *const[]){ "x", "y", NULL }, -EINVAL,
          "invalid selector: 'y=\\q,x'; can't understand 'x'" },
        { "spec.foo=bar",
          (const char *const[]){ "metadata.name", "metadata.namespace", "spec.nodeName",
                                 "status.phase", NULL },
          -EINVAL, "field label not supported: spec.foo" },
        { "z=1,a.b=2", (const char *const[]){ "x", NULL }, -EINVAL,
          "field label not supported: a.b" },
        { "=a", (const char *const[]){ "x", NULL }, -EINVAL, "field label not supported: " },
        { "foo=bar", NULL, -EINVAL,
          "\"foo\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"" },
        { "spec.nodeName=n", NULL, -EINVAL,
          "\"spec.nodeName\" is not a known field selector: only \"metadata.name\", \"metadata.namespace\"" },
        { "x=a,spec.foo=b", (const char *const[]){ "x", NULL }, -EINVAL,
          "field label not supported: spec.foo" },
        { "x=\\a,spec.foo=b", (const char *const[]){ "x", NULL }, -EINVAL,
          "invalid field selector: invalid escape sequence: \\a" },
};

static void test_field_parse(void **state)
{
        for (size_t i = 0; i < ARRAY_SIZE(field_parse_cases); i++) {
                const struct field_parse_case *c = &field_parse_cases[i];
                struct field_selector *sel = (struct field_selector *) 0x1;
                struct error *err = NULL;
                int r = field_selector_parse(c->in, c->supported, &sel, &err);

                if (r != c->ret)
                        fail_msg("field_selector_parse(\"%s\") = %d, want %d (%s)", c->in, r,
                                 c->ret, err ? err->message : "no error");
                if (r == 0) {
                        cleanup_free char *s = field_selector_to_string(sel);
                        if (!streq(s, c->want))
                                fail_msg("field_selector_parse(\"%s\") string \"%s\", want \"%s\"",
                                         c->in, s, c->want);
                        assert_int_equal(field_selector_is_empty(sel), c->want[0] == '\0');
                        field_selector_free(sel);
                } else {
                        assert_ptr_equal(sel, (struct field_selector *) 0x1);
                        assert_int_equal(err->errnum, EINVAL);
                        if (!streq(err->message, c->want))
                                fail_msg("field_selector_parse(\"%s\") message \"%s\", want \"%s\"",
                                         c->in, err->message, c->want);
                        error_free(err);
                }
        }
}

/* Invalid UTF-8 cannot travel through the oracle's JSON: Go's rune loop turns each bad byte
 * into U+FFFD, in values that need unescaping and in the escape it reports. */
static void test_field_parse_invalid_utf8(void **state)
{
        cleanup_field_selector struct field_selector *sel = NULL;
        cleanup_free char *s = NULL;
        struct error *err = NULL;

        assert_int_equal(field_selector_parse("x=\xff", NULL, &sel, NULL), -EINVAL);
        assert_int_equal(field_selector_parse("metadata.name=\xff\\,", NULL, &sel, NULL), 0);
        s = field_selector_to_string(sel);
        assert_string_equal(s, "metadata.name=\xef\xbf\xbd\\,");
        assert_int_equal(field_selector_parse("metadata.name=a\\\xff", NULL,
                                              &(struct field_selector *){ NULL }, &err),
                         -EINVAL);
        assert_string_equal(err->message,
                            "invalid field selector: invalid escape sequence: \\\xef\xbf\xbd");
        error_free(err);
}

/* The same for label selectors: bad bytes and control characters print as Go's %q does. */
static void test_label_parse_quoting(void **state)
{
        check_label_parse(
                "x=a\xff", -EINVAL,
                "unable to parse requirement: values[0][x]: Invalid value: \"a\\xff\": " LABEL_VALUE_ERR);
        check_label_parse("\x7f\xc2\x85", -EINVAL,
                          "unable to parse requirement: <nil>: Invalid value: \"\\x7f\\u0085\": "
                          "name part " QNAME_ERR);
        check_label_parse("a\"b", -EINVAL,
                          "unable to parse requirement: <nil>: Invalid value: \"a\\\"b\": "
                          "name part " QNAME_ERR);
}

static void test_field_parse_no_reterr(void **state)
{
        static const char *const pod_fields[] = { "metadata.name", "spec.nodeName", NULL };
        struct field_selector *sel = NULL;

        assert_int_equal(field_selector_parse("x", pod_fields, &sel, NULL), -EINVAL);
        assert_int_equal(field_selector_parse("spec.foo=a", pod_fields, &sel, NULL), -EINVAL);
        assert_null(sel);
        assert_int_equal(field_selector_parse("", pod_fields, &sel, NULL), 0);
        assert_true(field_selector_is_empty(sel));
        assert_true(field_selector_matches(sel, NULL));
        assert_null(field_selector_free(sel));
        assert_null(field_selector_free(NULL));
}

/* sel, supported: as above; obj: the object as JSON; want: upstream's Matches. */
struct field_match_case {
        const char *sel;
        const char *const *supported;
        const char *obj;
        bool want;
};

/* K8S: Selector.Matches on the kind's fields.Set. */
static const struct field_match_case field_match_cases[] = {
        { "", (const char *const[]){ "x", NULL }, "{\"x\": \"y\"}", true },
        { "x=y", (const char *const[]){ "x", NULL }, "{\"x\": \"y\"}", true },
        { "x=y,z=w", (const char *const[]){ "x", "z", NULL }, "{\"x\": \"y\", \"z\": \"w\"}",
          true },
        { "x!=y,z!=w", (const char *const[]){ "x", "z", NULL }, "{\"x\": \"z\", \"z\": \"a\"}",
          true },
        { "notin=in", (const char *const[]){ "notin", NULL }, "{\"notin\": \"in\"}", true },
        { "x=y", (const char *const[]){ "x", NULL }, "{\"x\": \"z\"}", false },
        { "x=y,z=w", (const char *const[]){ "x", "z", NULL }, "{\"x\": \"w\", \"z\": \"w\"}",
          false },
        { "x!=y,z!=w", (const char *const[]){ "x", "z", NULL }, "{\"x\": \"z\", \"z\": \"w\"}",
          false },
        { "foo=bar,baz=blah,complex=\\=value\\\\\\,\\\\",
          (const char *const[]){ "foo", "baz", "complex", NULL },
          "{\"foo\": \"bar\", \"baz\": \"blah\", \"complex\": \"=value\\\\,\\\\\"}", true },
        { "foo=bar,foobar=bar,baz=blah", (const char *const[]){ "foo", "foobar", "baz", NULL },
          "{\"foo\": \"bar\", \"baz\": \"blah\"}", false },
        { "metadata.name=web", NULL, "{\"metadata\": {\"name\": \"web\"}}", true },
        { "metadata.name=web", NULL, "{\"metadata\": {\"name\": \"db\"}}", false },
        { "involvedObject.namespace=", (const char *const[]){ "involvedObject.namespace", NULL },
          "{\"involvedObject\": {\"name\": \"node1\"}}", true },
        { "involvedObject.namespace=", (const char *const[]){ "involvedObject.namespace", NULL },
          "{\"involvedObject\": {\"namespace\": \"default\"}}", false },
        { "spec.nodeName=node1,status.phase!=Succeeded,status.phase!=Failed",
          (const char *const[]){ "spec.nodeName", "status.phase", NULL },
          "{\"spec\": {\"nodeName\": \"node1\"}, \"status\": {\"phase\": \"Running\"}}", true },
        { "spec.nodeName=node1,status.phase!=Succeeded,status.phase!=Failed",
          (const char *const[]){ "spec.nodeName", "status.phase", NULL },
          "{\"spec\": {\"nodeName\": \"node1\"}, \"status\": {\"phase\": \"Failed\"}}", false },
        { "spec.nodeName=node1,status.phase!=Succeeded,status.phase!=Failed",
          (const char *const[]){ "spec.nodeName", "status.phase", NULL },
          "{\"status\": {\"phase\": \"Running\"}}", false },
        { "status.phase!=Failed", (const char *const[]){ "status.phase", NULL }, "{}", true },
        { "x=a\\,b", (const char *const[]){ "x", NULL }, "{\"x\": \"a,b\"}", true },
        /* Not from upstream's table: non-string fields count in their string form
         * (strconv.FormatBool / Itoa in the kinds' field sets); absent, null, objects and
         * arrays count as "". */
        { "spec.hostNetwork=true", (const char *const[]){ "spec.hostNetwork", NULL },
          "{\"spec\": {\"hostNetwork\": true}}", true },
        { "spec.hostNetwork=false", (const char *const[]){ "spec.hostNetwork", NULL },
          "{\"spec\": {\"hostNetwork\": false}}", true },
        { "status.replicas=3", (const char *const[]){ "status.replicas", NULL },
          "{\"status\": {\"replicas\": 3}}", true },
        { "status.replicas!=3", (const char *const[]){ "status.replicas", NULL },
          "{\"status\": {\"replicas\": 3}}", false },
        { "a=0.1", (const char *const[]){ "a", NULL }, "{\"a\": 0.1}", true },
        { "a=", (const char *const[]){ "a", NULL }, "{\"a\": null}", true },
        { "a=", (const char *const[]){ "a", NULL }, "{\"a\": {\"b\": \"c\"}}", true },
        { "a=", (const char *const[]){ "a", NULL }, "{\"a\": [\"c\"]}", true },
        { "a.b=", (const char *const[]){ "a.b", NULL }, "{\"a\": \"b\"}", true },
        { "a.b=c", (const char *const[]){ "a.b", NULL }, "{\"a\": \"b\"}", false },
};

static void test_field_matches(void **state)
{
        for (size_t i = 0; i < ARRAY_SIZE(field_match_cases); i++) {
                const struct field_match_case *c = &field_match_cases[i];
                cleanup_field_selector struct field_selector *sel = NULL;
                cleanup_json json_t *obj = json_loads(c->obj, 0, NULL);

                assert_non_null(obj);
                assert_int_equal(field_selector_parse(c->sel, c->supported, &sel, NULL), 0);
                if (field_selector_matches(sel, obj) != c->want)
                        fail_msg("\"%s\" on %s: got %d, want %d", c->sel, c->obj, !c->want,
                                 c->want);
        }
}

/* K8S: fields.Selector.RequiresExactMatch (TestRequiresExactMatch): the first `=`/`==` term
 * for the field, never a `!=` one. */
static void test_field_requires_exact(void **state)
{
        static const struct {
                const char *sel;
                const char *field;
                const char *want; /* NULL: not found */
        } cases[] = {
                { "", "test", NULL },
                { "a=b", "test", NULL },
                { "test=b", "test", "b" },
                { "test==b", "test", "b" },
                { "test=", "test", "" },
                { "test!=b", "test", NULL },
                { "test!=", "test", NULL },
                { "a=x,test=b", "test", "b" },
                { "test!=a,test=b", "test", "b" },
                { "test=a\\,b", "test", "a,b" },
                { "metadata.name=web,metadata.namespace=default", "metadata.namespace", "default" },
        };
        static const char *const fields[] = { "a", "test", "metadata.name", "metadata.namespace",
                                              NULL };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                cleanup_field_selector struct field_selector *sel = NULL;
                const char *value = "untouched";
                bool found;

                assert_int_equal(field_selector_parse(cases[i].sel, fields, &sel, NULL), 0);
                found = field_selector_requires_exact(sel, cases[i].field, &value);
                if (found != (cases[i].want != NULL))
                        fail_msg("\"%s\": found %d for \"%s\"", cases[i].sel, found,
                                 cases[i].field);
                if (found)
                        assert_string_equal(value, cases[i].want);
                else
                        assert_string_equal(value, "untouched");
                assert_int_equal(field_selector_requires_exact(sel, cases[i].field, NULL), found);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_label_parse),
                cmocka_unit_test(test_label_parse_lengths),
                cmocka_unit_test(test_label_parse_no_reterr),
                cmocka_unit_test(test_label_parse_quoting),
                cmocka_unit_test(test_label_matches),
                cmocka_unit_test(test_label_matches_no_labels),
                cmocka_unit_test(test_field_parse),
                cmocka_unit_test(test_field_parse_invalid_utf8),
                cmocka_unit_test(test_field_parse_no_reterr),
                cmocka_unit_test(test_field_matches),
                cmocka_unit_test(test_field_requires_exact),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
