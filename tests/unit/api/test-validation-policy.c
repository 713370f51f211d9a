/* test-validation-policy.c: PodDisruptionBudget validation (create, update, status update), each
 * case with the errors upstream 1.33 reports (pkg/apis/policy/validation), and the metav1
 * LabelSelector matcher the eviction handler and the disruption controller use. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/selector.h"
#include "api/validation.h"
#include "base/alloc.h"
#include "base/json.h"

#define PERCENT_MSG                                                                 \
 "a valid percent string must be a numeric string followed by an ending '%' (e.g. " \
 "'1%',  or '93%', regex used for validation is '[0-9]+%')"

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

static char *errors_of(const json_t *pdb)
{
        struct field_error_list errs;
        char *out;

        field_error_list_init(&errs);
        (void) validate_pdb(pdb, true, &errs);
        out = field_error_list_string(&errs);
        field_error_list_release(&errs);
        return out;
}

static void test_create(void **state)
{
        static const struct {
                const char *spec, *want;
        } cases[] = {
                { "{'minAvailable':1,'selector':{'matchLabels':{'app':'web'}}}", "" },
                { "{'maxUnavailable':'100%'}", "" },
                { "{'minAvailable':'0%','unhealthyPodEvictionPolicy':'AlwaysAllow'}", "" },
                { "{'minAvailable':-1}",
                  "spec.minAvailable: Invalid value: -1: must be greater than or equal to 0" },
                { "{'maxUnavailable':'101%'}",
                  "spec.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, "
                  "StrVal:\"101%\"}: must not be greater than 100%" },
                { "{'minAvailable':'5'}",
                  "spec.minAvailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, "
                  "StrVal:\"5\"}: " PERCENT_MSG },
                { "{'minAvailable':'-5%'}",
                  "spec.minAvailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, "
                  "StrVal:\"-5%\"}: " PERCENT_MSG },
                { "{'minAvailable':1,'maxUnavailable':1}",
                  "spec: Invalid value: {\"minAvailable\":1,\"maxUnavailable\":1}: minAvailable "
                  "and maxUnavailable cannot be both set" },
                { "{'unhealthyPodEvictionPolicy':'Sometimes'}",
                  "spec.unhealthyPodEvictionPolicy: Unsupported value: \"Sometimes\": supported "
                  "values: \"AlwaysAllow\", \"IfHealthyBudget\"" },
                { "{'selector':{'matchExpressions':[{'key':'a','operator':'In'}]}}",
                  "spec.selector.matchExpressions[0].values: Required value: must be specified "
                  "when `operator` is 'In' or 'NotIn'" },
        };

        (void) state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                cleanup_json json_t *pdb = jparse("{'metadata':{'name':'b','namespace':'n'}}");
                cleanup_free char *got = NULL;

                json_object_set_new(pdb, "spec", jparse(cases[i].spec));
                got = errors_of(pdb);
                if (!streq(got, cases[i].want))
                        fail_msg("case %zu %s:\nwant %s\ngot  %s", i, cases[i].spec, cases[i].want,
                                 got);
        }
}

static void test_updates(void **state)
{
        cleanup_json json_t *old = jparse(
                "{'metadata':{'name':'b','namespace':'n','resourceVersion':'1'},'spec':{'minAvailable':1}}");
        cleanup_json json_t *spec = jparse(
                "{'metadata':{'name':'b','namespace':'n','resourceVersion':'1'},'spec':{'minAvailable':'50%'}}");
        cleanup_json json_t *status = jparse(
                "{'metadata':{'name':'b','namespace':'n','resourceVersion':'1'},'spec':{'minAvailable':1},"
                "'status':{'disruptionsAllowed':-1,'currentHealthy':0,'desiredHealthy':0,'expectedPods':-2}}");
        struct field_error_list errs;
        cleanup_free char *got = NULL;

        (void) state;
        field_error_list_init(&errs);
        /* K8S: the spec is mutable since 1.15 */
        assert_int_equal(validate_pdb_update(spec, old, &errs), 0);
        assert_int_equal(validate_pdb_status_update(status, old, &errs), 2);
        got = field_error_list_string(&errs);
        assert_string_equal(got, "[status.disruptionsAllowed: Invalid value: -1: must be greater "
                                 "than or equal to 0, status.expectedPods: Invalid value: -2: "
                                 "must be greater than or equal to 0]");
        field_error_list_release(&errs);
}

/* K8S: LabelSelectorAsSelector: nil matches nothing, {} everything; In, NotIn, Exists,
 * DoesNotExist; anything else is an error. */
static void test_selector_object(void **state)
{
        cleanup_json json_t *labels = jparse("{'app':'web','tier':'front'}");
        static const struct {
                const char *sel;
                int want;
        } cases[] = {
                { "{}", 1 },
                { "{'matchLabels':{'app':'web'}}", 1 },
                { "{'matchLabels':{'app':'db'}}", 0 },
                { "{'matchExpressions':[{'key':'tier','operator':'In','values':['back','front']}]}",
                  1 },
                { "{'matchExpressions':[{'key':'tier','operator':'NotIn','values':['front']}]}",
                  0 },
                { "{'matchExpressions':[{'key':'zone','operator':'NotIn','values':['a']}]}", 1 },
                { "{'matchExpressions':[{'key':'app','operator':'Exists'}]}", 1 },
                { "{'matchExpressions':[{'key':'app','operator':'DoesNotExist'}]}", 0 },
                { "{'matchLabels':{'app':'web'},'matchExpressions':[{'key':'x','operator':'Exists'}]}",
                  0 },
                { "{'matchExpressions':[{'key':'app','operator':'Gt','values':['1']}]}", -EINVAL },
                { "{'matchExpressions':[{'key':'app','operator':'In'}]}", -EINVAL },
                { "{'matchExpressions':[{'key':'app','operator':'Exists','values':['a']}]}",
                  -EINVAL },
        };

        (void) state;
        assert_int_equal(label_selector_object_matches(NULL, labels), 0);
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                cleanup_json json_t *sel = jparse(cases[i].sel);

                if (label_selector_object_matches(sel, labels) != cases[i].want)
                        fail_msg("case %zu %s: want %d", i, cases[i].sel, cases[i].want);
        }
        {
                cleanup_json json_t *empty = jparse("{}");
                cleanup_json json_t *some = jparse("{'matchLabels':{'a':'b'}}");

                assert_true(label_selector_object_is_empty(empty));
                assert_false(label_selector_object_is_empty(some));
                assert_false(label_selector_object_is_empty(NULL));
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_create),
                cmocka_unit_test(test_updates),
                cmocka_unit_test(test_selector_object),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
