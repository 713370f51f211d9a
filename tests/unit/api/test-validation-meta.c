/* test-validation-meta.c: object metadata and name validation against apimachinery 1.33's exact
 * messages (util/validation, api/validation/objectmeta.go, core's finalizer rule). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/validation.h"
#include "base/alloc.h"
#include "base/json.h"

#define SUBDOMAIN_MSG                                                                      \
 "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' " \
 "or '.', and must start and end with an alphanumeric character (e.g. 'example.com', "     \
 "regex used for validation is "                                                           \
 "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
#define LABEL_MSG                                                                         \
 "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', " \
 "and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', " \
 "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
#define QNAME_RULE                                                                         \
 "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with "  \
 "an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for " \
 "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"

/* Parses test JSON written with single quotes. */
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

/* Compares the rendered errors with a NULL-terminated list, printing both on mismatch. */
static void assert_errors(const struct field_error_list *l, const char *const *want)
{
        size_t n = 0;
        bool ok;

        while (want[n])
                n++;
        ok = n == l->n;
        for (size_t i = 0; ok && i < n; i++) {
                char *got = field_error_string(&l->items[i]);
                ok = strcmp(got, want[i]) == 0;
                free(got);
        }
        if (!ok) {
                for (size_t i = 0; i < l->n; i++) {
                        char *got = field_error_string(&l->items[i]);
                        print_message("got[%zu]:  %s\n", i, got);
                        free(got);
                }
                for (size_t i = 0; i < n; i++)
                        print_message("want[%zu]: %s\n", i, want[i]);
                fail();
        }
}

struct name_case {
        size_t (*fn)(const char *, const char *, struct field_error_list *);
        const char *value;
        const char *want[3];
};

static void test_names(void **state)
{
        char long_label[70], long_sub[260];
        const struct name_case cases[] = {
                { validate_dns1123_subdomain, "example.com", { NULL } },
                { validate_dns1123_subdomain,
                  "Example",
                  { "f: Invalid value: \"Example\": " SUBDOMAIN_MSG, NULL } },
                { validate_dns1123_subdomain,
                  "a..b",
                  { "f: Invalid value: \"a..b\": " SUBDOMAIN_MSG, NULL } },
                { validate_dns1123_subdomain,
                  "web-",
                  { "f: Invalid value: \"web-\": " SUBDOMAIN_MSG, NULL } },
                { validate_dns1123_subdomain,
                  long_sub,
                  { "f: Invalid value: \"<long>\": must be no more than 253 characters", NULL } },
                { validate_dns1123_label, "my-name", { NULL } },
                { validate_dns1123_label,
                  "a.b",
                  { "f: Invalid value: \"a.b\": must not contain dots", NULL } },
                { validate_dns1123_label, "-a", { "f: Invalid value: \"-a\": " LABEL_MSG, NULL } },
                { validate_dns1123_label, "", { "f: Invalid value: \"\": " LABEL_MSG, NULL } },
                { validate_dns1123_label,
                  long_label,
                  { "f: Invalid value: \"<long>\": must be no more than 63 characters", NULL } },
                { validate_dns1035_label,
                  "1abc",
                  { "f: Invalid value: \"1abc\": a DNS-1035 label must consist of lower case "
                    "alphanumeric characters or '-', start with an alphabetic character, and end "
                    "with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
                    "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
                    NULL } },
                { validate_qualified_name, "example.com/MyName", { NULL } },
                { validate_qualified_name, "app", { NULL } },
                { validate_qualified_name,
                  "a/b/c",
                  { "f: Invalid value: \"a/b/c\": a qualified name " QNAME_RULE
                    " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                    NULL } },
                { validate_qualified_name,
                  "/a",
                  { "f: Invalid value: \"/a\": prefix part must be non-empty", NULL } },
                { validate_qualified_name,
                  "Bad.Prefix/x",
                  { "f: Invalid value: \"Bad.Prefix/x\": prefix part " SUBDOMAIN_MSG, NULL } },
                { validate_qualified_name,
                  "-x",
                  { "f: Invalid value: \"-x\": name part " QNAME_RULE, NULL } },
                { validate_qualified_name,
                  "a/",
                  { "f: Invalid value: \"a/\": name part must be non-empty",
                    "f: Invalid value: \"a/\": name part " QNAME_RULE, NULL } },
                { validate_label_value, "", { NULL } },
                { validate_label_value, "v1.2_x", { NULL } },
                { validate_label_value,
                  "a b",
                  { "f: Invalid value: \"a b\": a valid label must be an empty string or consist "
                    "of alphanumeric characters, '-', '_' or '.', and must start and end with an "
                    "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex "
                    "used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
                    NULL } },
        };
        (void) state;

        memset(long_label, 'a', 64);
        long_label[64] = '\0';
        memset(long_sub, 'a', 254);
        long_sub[254] = '\0';
        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                struct field_error_list l;
                const char *want[3] = { NULL };
                char buf[3][1024];

                /* long values are shown as <long> in the table */
                for (size_t k = 0; k < 3 && cases[i].want[k]; k++) {
                        const char *w = cases[i].want[k];
                        const char *tag = strstr(w, "<long>");
                        if (tag)
                                snprintf(buf[k], sizeof(buf[k]), "%.*s%s%s", (int) (tag - w), w,
                                         cases[i].value, tag + 6);
                        else
                                snprintf(buf[k], sizeof(buf[k]), "%s", w);
                        want[k] = buf[k];
                }
                field_error_list_init(&l);
                size_t n = cases[i].fn(cases[i].value, "f", &l);
                assert_int_equal(n, l.n);
                assert_errors(&l, want);
                field_error_list_release(&l);
        }
}

static void test_labels(void **state)
{
        json_t *labels = jparse("{'app': 'web', 'bad key': 'ok', 'tier': 'a b'}");
        struct field_error_list l;
        const char *want[] = {
                "metadata.labels: Invalid value: \"bad key\": name part " QNAME_RULE,
                "metadata.labels: Invalid value: \"a b\": a valid label must be an empty string "
                "or consist of alphanumeric characters, '-', '_' or '.', and must start and end "
                "with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
                "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
                NULL,
        };
        (void) state;

        field_error_list_init(&l);
        assert_int_equal(validate_labels(labels, "metadata.labels", &l), 2);
        assert_errors(&l, want);
        field_error_list_release(&l);
        json_decref(labels);
}

struct meta_case {
        const char *obj;
        bool namespaced;
        enum object_name_rule rule;
        const char *want[4];
};

static void test_meta_create(void **state)
{
        const struct meta_case cases[] = {
                { "{'metadata': {'name': 'web', 'namespace': 'default'}}",
                  true,
                  OBJECT_NAME_DNS1123_SUBDOMAIN,
                  { NULL } },
                { "{'metadata': {'namespace': 'default'}}",
                  true,
                  OBJECT_NAME_DNS1123_SUBDOMAIN,
                  { "metadata.name: Required value: name or generateName is required", NULL } },
                { "{'metadata': {'name': 'Web', 'namespace': 'default'}}",
                  true,
                  OBJECT_NAME_DNS1123_SUBDOMAIN,
                  { "metadata.name: Invalid value: \"Web\": " SUBDOMAIN_MSG, NULL } },
                { "{'metadata': {'name': 'web'}}",
                  true,
                  OBJECT_NAME_DNS1123_SUBDOMAIN,
                  { "metadata.namespace: Required value", NULL } },
                { "{'metadata': {'name': 'web', 'namespace': 'Bad'}}",
                  true,
                  OBJECT_NAME_DNS1123_SUBDOMAIN,
                  { "metadata.namespace: Invalid value: \"Bad\": " LABEL_MSG, NULL } },
                { "{'metadata': {'name': 'fast', 'namespace': 'default'}}",
                  false,
                  OBJECT_NAME_DNS1123_SUBDOMAIN,
                  { "metadata.namespace: Forbidden: not allowed on this type", NULL } },
                { "{'metadata': {'name': 'a.b'}}",
                  false,
                  OBJECT_NAME_DNS1123_LABEL,
                  { "metadata.name: Invalid value: \"a.b\": must not contain dots", NULL } },
                /* a trailing '-' in generateName is masked; the generated name is what counts */
                { "{'metadata': {'generateName': 'web-', 'name': 'web-x1z2', 'namespace': 'd'}}",
                  true,
                  OBJECT_NAME_DNS1123_SUBDOMAIN,
                  { NULL } },
                { "{'metadata': {'generateName': 'Web-', 'namespace': 'd'}}",
                  true,
                  OBJECT_NAME_DNS1123_SUBDOMAIN,
                  { "metadata.generateName: Invalid value: \"Web-\": " SUBDOMAIN_MSG,
                    "metadata.name: Required value: name or generateName is required", NULL } },
                { "{'metadata': {'name': 'w', 'namespace': 'd', 'generation': -1}}",
                  true,
                  OBJECT_NAME_DNS1123_SUBDOMAIN,
                  { "metadata.generation: Invalid value: -1: must be greater than or equal to 0",
                    NULL } },
                { "{'metadata': {'name': 'w', 'namespace': 'd', 'finalizers': ['foo', "
                  "'example.com/bar', 'kubernetes']}}",
                  true,
                  OBJECT_NAME_DNS1123_SUBDOMAIN,
                  { "metadata.finalizers[0]: Invalid value: \"foo\": name is neither a standard "
                    "finalizer name nor is it fully qualified",
                    NULL } },
                { "{'metadata': {'name': 'w', 'namespace': 'd', 'finalizers': ['orphan', "
                  "'foregroundDeletion']}}",
                  true,
                  OBJECT_NAME_DNS1123_SUBDOMAIN,
                  { "metadata.finalizers: Invalid value: []string{\"orphan\", \"foregroundDeletion\"}: "
                    "finalizer orphan and foregroundDeletion cannot be both set",
                    NULL } },
                { "{'metadata': {'name': 'w', 'namespace': 'd', 'annotations': {'Example.COM/Key': "
                  "'1', 'bad key': '2'}}}",
                  true,
                  OBJECT_NAME_DNS1123_SUBDOMAIN,
                  { "metadata.annotations: Invalid value: \"bad key\": name part " QNAME_RULE,
                    NULL } },
                { "{'metadata': {'name': 'w', 'namespace': 'd', 'ownerReferences': [{'apiVersion': "
                  "'v1', 'kind': 'ReplicaSet', 'name': 'rs', 'uid': ''}]}}",
                  true,
                  OBJECT_NAME_DNS1123_SUBDOMAIN,
                  { "metadata.ownerReferences.uid: Invalid value: \"\": uid must not be empty",
                    NULL } },
        };
        (void) state;

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                json_t *obj = jparse(cases[i].obj);
                struct field_error_list l;
                field_error_list_init(&l);
                validate_object_meta_create_named(obj, cases[i].namespaced, cases[i].rule, &l);
                assert_errors(&l, cases[i].want);
                field_error_list_release(&l);
                json_decref(obj);
        }
}

static void test_meta_annotations_size(void **state)
{
        json_t *obj = jparse("{'metadata': {'name': 'w', 'namespace': 'd', 'annotations': {}}}");
        char *big = xmalloc(256 * 1024 + 1);
        struct field_error_list l;
        const char *want[] = {
                "metadata.annotations: Too long: may not be more than 262144 bytes",
                NULL,
        };
        (void) state;

        memset(big, 'x', 256 * 1024);
        big[256 * 1024] = '\0';
        json_object_set_new(json_path(obj, "metadata.annotations"), "k", json_string(big));
        field_error_list_init(&l);
        validate_object_meta_create(obj, true, &l);
        assert_errors(&l, want);
        field_error_list_release(&l);
        free(big);
        json_decref(obj);
}

struct update_case {
        const char *new_meta;
        const char *want[3];
};

static void test_meta_update(void **state)
{
        static const char *old_meta =
                "{'metadata': {'name': 'web', 'namespace': 'default', 'uid': 'u1', "
                "'resourceVersion': '5', 'generation': 2, 'creationTimestamp': "
                "'2025-01-01T00:00:00Z', 'labels': {'app': 'web'}}}";
        const struct update_case cases[] = {
                { "{'metadata': {'name': 'web', 'namespace': 'default', 'uid': 'u1', "
                  "'resourceVersion': '5', 'generation': 2, 'creationTimestamp': "
                  "'2025-01-01T00:00:00Z', 'labels': {'app': 'api', 'new': 'x'}}}",
                  { NULL } },
                { "{'metadata': {'name': 'other', 'namespace': 'default', 'uid': 'u1', "
                  "'resourceVersion': '5', 'generation': 2, 'creationTimestamp': "
                  "'2025-01-01T00:00:00Z'}}",
                  { "metadata.name: Invalid value: \"other\": field is immutable", NULL } },
                { "{'metadata': {'name': 'web', 'namespace': 'kube-system', 'uid': 'u2', "
                  "'resourceVersion': '5', 'generation': 2, 'creationTimestamp': "
                  "'2025-01-01T00:00:00Z'}}",
                  { "metadata.namespace: Invalid value: \"kube-system\": field is immutable",
                    "metadata.uid: Invalid value: \"u2\": field is immutable", NULL } },
                { "{'metadata': {'name': 'web', 'namespace': 'default', 'uid': 'u1', "
                  "'resourceVersion': '5', 'generation': 2, 'creationTimestamp': "
                  "'2025-01-02T03:04:05Z'}}",
                  { "metadata.creationTimestamp: Invalid value: 2025-01-02 03:04:05 +0000 UTC: "
                    "field is immutable",
                    NULL } },
                { "{'metadata': {'name': 'web', 'namespace': 'default', 'uid': 'u1', "
                  "'generation': 1, 'creationTimestamp': '2025-01-01T00:00:00Z'}}",
                  { "metadata.resourceVersion: Invalid value: \"\": must be specified for an "
                    "update",
                    "metadata.generation: Invalid value: 1: must not be decremented", NULL } },
                { "{'metadata': {'name': 'web', 'namespace': 'default', 'uid': 'u1', "
                  "'resourceVersion': '5', 'generation': 2, 'creationTimestamp': "
                  "'2025-01-01T00:00:00Z', 'labels': {'bad key': 'x'}}}",
                  { "metadata.labels: Invalid value: \"bad key\": name part " QNAME_RULE, NULL } },
        };
        json_t *old = jparse(old_meta);
        (void) state;

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                json_t *obj = jparse(cases[i].new_meta);
                struct field_error_list l;
                field_error_list_init(&l);
                validate_object_meta_update(obj, old, &l);
                assert_errors(&l, cases[i].want);
                field_error_list_release(&l);
                json_decref(obj);
        }
        json_decref(old);
}

static void test_meta_update_deleting(void **state)
{
        json_t *old = jparse("{'metadata': {'name': 'w', 'namespace': 'd', 'resourceVersion': '1', "
                             "'deletionTimestamp': '2025-01-01T00:00:00Z', 'finalizers': "
                             "['example.com/a']}}");
        json_t *neu = jparse("{'metadata': {'name': 'w', 'namespace': 'd', 'resourceVersion': '1', "
                             "'deletionTimestamp': '2025-01-01T00:00:00Z', 'finalizers': "
                             "['example.com/a', 'example.com/c', 'example.com/b']}}");
        json_t *undeleted = jparse("{'metadata': {'name': 'w', 'namespace': 'd', "
                                   "'resourceVersion': '1', 'finalizers': ['example.com/a']}}");
        struct field_error_list l;
        const char *want[] = {
                "metadata.finalizers: Forbidden: no new finalizers can be added if the object is "
                "being deleted, found new finalizers []string{\"example.com/b\", \"example.com/c\"}",
                NULL,
        };
        const char *want_ts[] = {
                "metadata.deletionTimestamp: Invalid value: \"null\": field is immutable",
                NULL,
        };
        (void) state;

        field_error_list_init(&l);
        validate_object_meta_update(neu, old, &l);
        assert_errors(&l, want);
        field_error_list_release(&l);

        field_error_list_init(&l);
        validate_object_meta_update(undeleted, old, &l);
        assert_errors(&l, want_ts);
        field_error_list_release(&l);
        json_decref(old);
        json_decref(neu);
        json_decref(undeleted);
}

/* field_error_list_string renders the Status message kubectl's users read. */
static void test_aggregate_message(void **state)
{
        json_t *obj = jparse("{'metadata': {'name': 'Web_1'}}");
        struct field_error_list l;
        char *s;
        (void) state;

        field_error_list_init(&l);
        validate_object_meta_create(obj, true, &l);
        s = field_error_list_string(&l);
        assert_string_equal(s, "[metadata.name: Invalid value: \"Web_1\": " SUBDOMAIN_MSG
                               ", metadata.namespace: Required value]");
        free(s);
        field_error_list_release(&l);
        json_decref(obj);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_names),
                cmocka_unit_test(test_labels),
                cmocka_unit_test(test_meta_create),
                cmocka_unit_test(test_meta_annotations_size),
                cmocka_unit_test(test_meta_update),
                cmocka_unit_test(test_meta_update_deleting),
                cmocka_unit_test(test_aggregate_message),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
