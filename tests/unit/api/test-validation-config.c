/* test-validation-config.c: ConfigMap, Secret and ServiceAccount validation (create, update),
 * Secret stringData and type defaulting, and the schema's []byte check, each case with the exact
 * errors upstream 1.33 reports. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/schemas.h"
#include "api/validation.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/strbuf.h"

#define KEY_MSG                                                                       \
 "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. " \
 "'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"
#define IMMUTABLE "Forbidden: field is immutable when `immutable` is set"

/* Parses test JSON written with single quotes (none inside values). */
static json_t *jparse(const char *s)
{
        char *dup = xstrdup(s);
        json_error_t e;
        json_t *v;

        for (char *p = dup; *p; p++)
                if (*p == '\'')
                        *p = '"';
        v = json_loads(dup, 0, &e);
        if (!v)
                fail_msg("bad test json: %s: %s", e.text, dup);
        free(dup);
        return v;
}

static char *render(const struct field_error_list *errs)
{
        struct strbuf sb;

        strbuf_init(&sb);
        for (size_t i = 0; i < errs->n; i++) {
                cleanup_free char *e = field_error_string(&errs->items[i]);
                strbuf_addf(&sb, "%s%s", i ? "\n" : "", e);
        }
        return strbuf_detach(&sb);
}

enum kind { CM, SECRET, SA };

static void expect_create(enum kind k, const char *obj, const char *want)
{
        cleanup_json json_t *o = jparse(obj);
        struct field_error_list errs;
        cleanup_free char *got = NULL;

        field_error_list_init(&errs);
        if (k == SECRET)
                secret_prepare(o);
        if (k == CM)
                (void) validate_config_map(o, true, &errs);
        else if (k == SECRET)
                (void) validate_secret(o, true, &errs);
        else
                (void) validate_service_account(o, &errs);
        got = render(&errs);
        field_error_list_release(&errs);
        if (!streq(got, want))
                fail_msg("%s:\nwant: %s\ngot:  %s", obj, want, got);
}

static void expect_update(enum kind k, const char *old_obj, const char *new_obj, const char *want)
{
        cleanup_json json_t *o = jparse(old_obj), *n = jparse(new_obj);
        struct field_error_list errs;
        cleanup_free char *got = NULL;

        field_error_list_init(&errs);
        if (k == SECRET) {
                secret_prepare(o);
                secret_prepare(n);
                (void) validate_secret_update(n, o, &errs);
        } else {
                (void) validate_config_map_update(n, o, &errs);
        }
        got = render(&errs);
        field_error_list_release(&errs);
        if (!streq(got, want))
                fail_msg("%s -> %s:\nwant: %s\ngot:  %s", old_obj, new_obj, want, got);
}

#define META "'metadata':{'name':'x','namespace':'default','resourceVersion':'1'}"

static void test_config_map(void **state)
{
        expect_create(CM, "{" META ",'data':{'a.b_C-1':'v'},'binaryData':{'bin':'AAE='}}", "");
        expect_create(CM, "{" META ",'data':{'a b':'v'}}",
                      "data[a b]: Invalid value: \"a b\": " KEY_MSG);
        expect_create(CM, "{" META ",'data':{'..x':'v'}}",
                      "data[..x]: Invalid value: \"..x\": must not start with '..'");
        expect_create(CM, "{" META ",'data':{'.':'v'}}",
                      "data[.]: Invalid value: \".\": must not be '.'");
        expect_create(CM, "{" META ",'binaryData':{'..':'AA=='}}",
                      "binaryData[..]: Invalid value: \"..\": must not be '..'");
        expect_create(CM, "{" META ",'data':{'k':'v'},'binaryData':{'k':'AA=='}}",
                      "data[k]: Invalid value: \"k\": duplicate of key present in binaryData");
        expect_create(CM, "{'metadata':{'name':'Bad_Name','namespace':'default'}}",
                      "metadata.name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain "
                      "must consist of lower case alphanumeric characters, '-' or '.', and must "
                      "start and end with an alphanumeric character (e.g. 'example.com', regex "
                      "used for validation is "
                      "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
}

static void test_config_map_size(void **state)
{
        cleanup_json json_t *cm = jparse("{" META "}");
        char *big = xmalloc(CONFIG_MAX_SIZE + 1);
        struct field_error_list errs;
        cleanup_free char *got = NULL;

        memset(big, 'x', CONFIG_MAX_SIZE);
        big[CONFIG_MAX_SIZE] = '\0';
        json_object_set_new(cm, "data", json_pack("{s:s}", "a", big));
        field_error_list_init(&errs);
        assert_int_equal(validate_config_map(cm, true, &errs), 0);
        /* one byte more, in binaryData: over the limit */
        json_object_set_new(cm, "binaryData", json_pack("{s:s}", "b", "AA=="));
        assert_int_equal(validate_config_map(cm, true, &errs), 1);
        got = render(&errs);
        assert_string_equal(got, "[]: Too long: may not be more than 1048576 bytes");
        field_error_list_release(&errs);
        free(big);
}

static void test_config_map_immutable(void **state)
{
        const char *imm = "{" META ",'immutable':true,'data':{'a':'1'}}";

        expect_update(CM, "{" META ",'data':{'a':'1'}}", "{" META ",'data':{'a':'2'}}", "");
        expect_update(CM, imm,
                      "{" META ",'immutable':true,'data':{'a':'1'},'metadata':{'name':"
                      "'x','namespace':'default','resourceVersion':'1','labels':{'l':'v'}}}",
                      "");
        expect_update(CM, imm, "{" META ",'immutable':true,'data':{'a':'2'}}", "data: " IMMUTABLE);
        expect_update(CM, imm, "{" META ",'data':{'a':'1'}}", "immutable: " IMMUTABLE);
        expect_update(CM, imm,
                      "{" META ",'immutable':true,'data':{'a':'1'},'binaryData':{'b':'AA=='}}",
                      "binaryData: " IMMUTABLE);
        /* a mutable one may become immutable */
        expect_update(CM, "{" META ",'data':{'a':'1'}}", imm, "");
}

static void test_secret_types(void **state)
{
        expect_create(SECRET, "{" META ",'data':{'a':'YQ=='}}", "");
        expect_create(SECRET, "{" META ",'type':'kubernetes.io/tls','data':{}}",
                      "data[tls.crt]: Required value\ndata[tls.key]: Required value");
        expect_create(SECRET,
                      "{" META ",'type':'kubernetes.io/tls','stringData':{'tls.crt':'c','tls.key':"
                      "'k'}}",
                      "");
        expect_create(SECRET, "{" META ",'type':'kubernetes.io/dockerconfigjson'}",
                      "data[.dockerconfigjson]: Required value");
        expect_create(SECRET,
                      "{" META ",'type':'kubernetes.io/dockerconfigjson','stringData':{"
                      "'.dockerconfigjson':'[1]'}}",
                      "data[.dockerconfigjson]: Invalid value: \"<secret contents redacted>\": "
                      "json: cannot unmarshal array into Go value of type map[string]interface {}");
        expect_create(SECRET,
                      "{" META ",'type':'kubernetes.io/dockercfg','stringData':{'.dockercfg':'{'}}",
                      "data[.dockercfg]: Invalid value: \"<secret contents redacted>\": "
                      "unexpected end of JSON input");
        expect_create(SECRET,
                      "{" META ",'type':'kubernetes.io/dockercfg','stringData':{'.dockercfg':"
                      "'{}'}}",
                      "");
        expect_create(SECRET, "{" META ",'type':'kubernetes.io/basic-auth'}",
                      "data[username]: Required value\ndata[password]: Required value");
        expect_create(SECRET, "{" META ",'type':'kubernetes.io/basic-auth','data':{'password':''}}",
                      "");
        expect_create(SECRET,
                      "{" META ",'type':'kubernetes.io/ssh-auth','data':{'ssh-privatekey':''}}",
                      "data[ssh-privatekey]: Required value");
        expect_create(SECRET, "{" META ",'type':'kubernetes.io/service-account-token'}",
                      "metadata.annotations[kubernetes.io/service-account.name]: Required value");
        expect_create(SECRET, "{" META ",'type':'bootstrap.kubernetes.io/token'}", "");
        expect_create(SECRET, "{" META ",'data':{'a b':'YQ=='}}",
                      "data[a b]: Invalid value: \"a b\": " KEY_MSG);
}

static void test_secret_prepare(void **state)
{
        cleanup_json json_t *s = jparse("{" META ",'data':{'a':'eA==','b':'eA=='},"
                                        "'stringData':{'b':'hello','c':''}}");

        secret_prepare(s);
        assert_null(json_object_get(s, "stringData"));
        assert_string_equal(json_path_string(s, "type"), "Opaque");
        assert_string_equal(json_path_string(s, "data.a"), "eA==");
        assert_string_equal(json_path_string(s, "data.b"), "aGVsbG8=");
        assert_string_equal(json_path_string(s, "data.c"), "");
}

static void test_secret_update(void **state)
{
        expect_update(SECRET, "{" META ",'data':{'a':'YQ=='}}",
                      "{" META ",'type':'kubernetes.io/basic-auth','data':{'a':'YQ=='}}",
                      "type: Invalid value: \"kubernetes.io/basic-auth\": field is immutable\n"
                      "data[username]: Required value\ndata[password]: Required value");
        expect_update(SECRET, "{" META ",'immutable':true,'data':{'a':'YQ=='}}",
                      "{" META ",'immutable':true,'stringData':{'a':'b'}}", "data: " IMMUTABLE);
        /* stringData that writes the same bytes changes nothing */
        expect_update(SECRET, "{" META ",'immutable':true,'data':{'a':'YQ=='}}",
                      "{" META ",'immutable':true,'stringData':{'a':'a'}}", "");
}

static void test_service_account(void **state)
{
        expect_create(
                SA, "{" META ",'secrets':[{'name':'s'}],'automountServiceAccountToken':false}", "");
        expect_create(SA, "{'metadata':{'name':'x'}}", "metadata.namespace: Required value");
}

/* K8S (Go encoding/json): a []byte value is base64; a bad one fails the decode with base64's
 * message, and wrong JSON types with Go's []uint8. */
static void test_schema_bytes(void **state)
{
        static const struct {
                const char *obj;
                const char *want;
        } cases[] = {
                { "{'data':{'a':'YQ=='}}", NULL },
                { "{'data':{'a':'Y Q=='}}", "illegal base64 data at input byte 1" },
                { "{'data':{'a':'YQ='}}", "illegal base64 data at input byte 3" },
                { "{'data':{'a':5}}",
                  "json: cannot unmarshal number into Go struct field Secret.data of type "
                  "[]uint8" },
                { "{'stringData':{'a':'not base64 at all'}}", NULL },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
                cleanup_json json_t *o = jparse(cases[i].obj);
                cleanup_error struct error *err = NULL;
                int r = schema_check(&schema_secret, o, "", NULL, &err);

                if (!cases[i].want) {
                        if (r < 0)
                                fail_msg("%s: %s", cases[i].obj, err->message);
                        continue;
                }
                assert_true(r < 0);
                if (!streq(err->message, cases[i].want))
                        fail_msg("%s:\nwant: %s\ngot:  %s", cases[i].obj, cases[i].want,
                                 err->message);
        }
        {
                cleanup_json json_t *o = jparse("{'binaryData':{'a':'!'}}");
                cleanup_error struct error *err = NULL;
                assert_true(schema_check(&schema_config_map, o, "", NULL, &err) < 0);
                assert_string_equal(err->message, "illegal base64 data at input byte 0");
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_config_map),           cmocka_unit_test(test_config_map_size),
                cmocka_unit_test(test_config_map_immutable), cmocka_unit_test(test_secret_types),
                cmocka_unit_test(test_secret_prepare),       cmocka_unit_test(test_secret_update),
                cmocka_unit_test(test_service_account),      cmocka_unit_test(test_schema_bytes),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
