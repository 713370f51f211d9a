/* test-authz-review.c: the authorization.k8s.io/v1 reviews: upstream's validation of the three
 * access reviews (field paths, values and words), the answers of the chain (allowed, reason,
 * the spec's user taken as it is, version "*" when empty, field selector requirements), and the
 * rules review: the union of the modes' RulesFor (AlwaysAllow's everything, a node's incomplete
 * list and its error), RBAC's PolicyRules split into resource and non-resource rules. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/field-error.h"
#include "apiserver/authn.h"
#include "apiserver/authz-node.h"
#include "apiserver/authz-review.h"
#include "apiserver/authz.h"
#include "apiserver/resources.h"
#include "base/alloc.h"
#include "base/json.h"

static json_t *parse(const char *text)
{
        json_t *v = json_loads(text, 0, NULL);

        assert_non_null(v);
        return v;
}

/* The validation's errors as "field: body" lines joined by "; ". */
static char *validate(const struct resource_strategy *s, const char *text)
{
        cleanup_json json_t *obj = parse(text);
        struct field_error_list errs;
        char *out = xstrdup("");

        field_error_list_init(&errs);
        s->validate_create(obj, &errs);
        for (size_t i = 0; i < errs.n; i++) {
                cleanup_free char *e = field_error_string(&errs.items[i]);
                char *next = xasprintf("%s%s%s", out, i ? "; " : "", e);
                free(out);
                out = next;
        }
        field_error_list_release(&errs);
        return out;
}

static void test_validation(void **state)
{
        static const struct {
                const struct resource_strategy *s;
                const char *obj, *want;
        } cases[] = {
                { &subject_access_review_strategy,
                  "{\"spec\":{\"user\":\"u\",\"resourceAttributes\":{\"verb\":\"get\"}}}", "" },
                { &subject_access_review_strategy,
                  "{\"metadata\":{\"creationTimestamp\":null},\"spec\":{\"groups\":[\"g\"],"
                  "\"nonResourceAttributes\":{\"verb\":\"get\",\"path\":\"/x\"}}}",
                  "" },
                { &subject_access_review_strategy, "{\"spec\":{\"user\":\"u\"}}",
                  "spec.resourceAttributes: Invalid value: \"null\": exactly one of "
                  "nonResourceAttributes or resourceAttributes must be specified" },
                { &subject_access_review_strategy,
                  "{\"spec\":{\"resourceAttributes\":{},\"nonResourceAttributes\":{\"path\":"
                  "\"/x\",\"verb\":\"get\"}}}",
                  "spec.nonResourceAttributes: Invalid value: "
                  "authorization.NonResourceAttributes{Path:\"/x\", Verb:\"get\"}: cannot be "
                  "specified in combination with resourceAttributes; spec.user: Invalid value: "
                  "\"\": at least one of user or group must be specified" },
                { &subject_access_review_strategy,
                  "{\"metadata\":{\"name\":\"x\"},\"spec\":{\"user\":\"u\","
                  "\"resourceAttributes\":{}}}",
                  "metadata: Invalid value: v1.ObjectMeta{Name:\"x\", GenerateName:\"\", "
                  "Namespace:\"\", SelfLink:\"\", UID:\"\", ResourceVersion:\"\", Generation:0, "
                  "CreationTimestamp:v1.Time{Time:time.Date(1, time.January, 1, 0, 0, 0, 0, "
                  "time.UTC)}, DeletionTimestamp:(*v1.Time)(nil), "
                  "DeletionGracePeriodSeconds:(*int64)(nil), Labels:map[string]string(nil), "
                  "Annotations:map[string]string(nil), OwnerReferences:[]v1.OwnerReference(nil), "
                  "Finalizers:[]string(nil), ManagedFields:[]v1.ManagedFieldsEntry(nil)}: must "
                  "be empty" },
                /* the self review names no user */
                { &self_subject_access_review_strategy,
                  "{\"spec\":{\"resourceAttributes\":{\"verb\":\"get\"}}}", "" },
                { &self_subject_access_review_strategy, "{\"spec\":{}}",
                  "spec.resourceAttributes: Invalid value: \"null\": exactly one of "
                  "nonResourceAttributes or resourceAttributes must be specified" },
                /* the local review: its namespace, resource attributes only */
                { &local_subject_access_review_strategy,
                  "{\"metadata\":{\"namespace\":\"ns\"},\"spec\":{\"user\":\"u\","
                  "\"resourceAttributes\":{\"namespace\":\"ns\"}}}",
                  "" },
                { &local_subject_access_review_strategy,
                  "{\"metadata\":{\"namespace\":\"ns\"},\"spec\":{\"user\":\"u\","
                  "\"resourceAttributes\":{\"namespace\":\"other\"}}}",
                  "spec.resourceAttributes.namespace: Invalid value: \"other\": must match "
                  "metadata.namespace" },
                { &local_subject_access_review_strategy,
                  "{\"metadata\":{\"namespace\":\"ns\",\"labels\":{\"b\":\"2\",\"a\":\"1\"}},"
                  "\"spec\":{\"user\":\"u\",\"nonResourceAttributes\":{\"path\":\"/x\"}}}",
                  "metadata: Invalid value: v1.ObjectMeta{Name:\"\", GenerateName:\"\", "
                  "Namespace:\"ns\", SelfLink:\"\", UID:\"\", ResourceVersion:\"\", "
                  "Generation:0, CreationTimestamp:v1.Time{Time:time.Date(1, time.January, 1, 0, "
                  "0, 0, 0, time.UTC)}, DeletionTimestamp:(*v1.Time)(nil), "
                  "DeletionGracePeriodSeconds:(*int64)(nil), "
                  "Labels:map[string]string{\"a\":\"1\", \"b\":\"2\"}, "
                  "Annotations:map[string]string(nil), OwnerReferences:[]v1.OwnerReference(nil), "
                  "Finalizers:[]string(nil), ManagedFields:[]v1.ManagedFieldsEntry(nil)}: must "
                  "be empty except for namespace; spec.nonResourceAttributes: Invalid value: "
                  "authorization.NonResourceAttributes{Path:\"/x\", Verb:\"\"}: disallowed on "
                  "this kind of request" },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                cleanup_free char *got = validate(cases[i].s, cases[i].obj);

                if (!streq(got, cases[i].want))
                        fail_msg("case %zu:\n got %s\nwant %s", i, got, cases[i].want);
        }
}

static json_t *review(int (*hook)(const struct review_context *, const json_t *, json_t **,
                                  struct error **),
                      const struct review_context *c, const char *text)
{
        cleanup_json json_t *obj = parse(text);
        json_t *answer = NULL;

        assert_int_equal(hook(c, obj, &answer, NULL), 0);
        return answer;
}

static void test_access_reviews(void **state)
{
        static const char *const masters[] = { AUTHN_GROUP_MASTERS, NULL };
        cleanup_authn_user struct authn_user *me = authn_user_new("me", NULL, NULL);
        cleanup_authn_user struct authn_user *admin = authn_user_new("admin", NULL, masters);
        cleanup_authz struct authz *deny = NULL;
        struct authz_context ctx = { 0 };
        struct review_context c = { .ns = "" };
        cleanup_json json_t *a1 = NULL, *a2 = NULL, *a3 = NULL, *a4 = NULL;
        cleanup_free char *s1 = NULL;

        assert_int_equal(authz_new("AlwaysDeny", &ctx, &deny, NULL), 0);
        c.authz = deny;
        c.user = me;
        /* AlwaysDeny has no opinion: not allowed, not denied, its reason */
        a1 = review(authz_self_subject_access_review, &c,
                    "{\"kind\":\"SelfSubjectAccessReview\",\"apiVersion\":"
                    "\"authorization.k8s.io/v1\",\"metadata\":{\"creationTimestamp\":null},"
                    "\"spec\":{\"resourceAttributes\":{\"verb\":\"get\",\"resource\":\"pods\"}}}");
        s1 = json_dumps(json_object_get(a1, "status"), JSON_COMPACT | JSON_SORT_KEYS);
        assert_string_equal(s1, "{\"allowed\":false,\"reason\":\"Everything is forbidden.\"}");
        assert_string_equal(json_path_string(a1, "spec.resourceAttributes.verb"), "get");
        /* the asker in system:masters */
        c.user = admin;
        a2 = review(authz_self_subject_access_review, &c,
                    "{\"spec\":{\"nonResourceAttributes\":{\"verb\":\"get\",\"path\":\"/x\"}}}");
        assert_true(json_is_true(json_path(a2, "status.allowed")));
        assert_null(json_path(a2, "status.reason"));
        assert_true(json_is_null(json_path(a2, "metadata.creationTimestamp")));
        /* a SubjectAccessReview asks about its spec's user, groups as they are */
        c.user = me;
        a3 = review(authz_subject_access_review, &c,
                    "{\"spec\":{\"user\":\"x\",\"groups\":[\"system:masters\"],"
                    "\"resourceAttributes\":{\"verb\":\"delete\",\"resource\":\"nodes\"}}}");
        assert_true(json_is_true(json_path(a3, "status.allowed")));
        a4 = review(authz_subject_access_review, &c,
                    "{\"spec\":{\"user\":\"admin\",\"resourceAttributes\":{\"verb\":\"get\","
                    "\"fieldSelector\":{\"requirements\":[{\"key\":\"a\",\"operator\":"
                    "\"Exists\"}]}}}}");
        assert_false(json_is_true(json_path(a4, "status.allowed")));
        assert_string_equal(json_path_string(a4, "status.evaluationError"),
                            "spec.resourceAttributes.fieldSelector ignored due to parse error");
}

static void test_rules_review(void **state)
{
        static const char *const nodes[] = { "system:nodes", NULL };
        cleanup_authn_user struct authn_user *me = authn_user_new("me", NULL, NULL);
        cleanup_authn_user struct authn_user *node = authn_user_new("system:node:n1", NULL, nodes);
        cleanup_authz struct authz *allow = NULL, *deny = NULL;
        struct authz_context ctx = { 0 };
        struct review_context c = { .user = me, .ns = "" };
        cleanup_json json_t *a1 = NULL, *a2 = NULL;
        cleanup_free char *s1 = NULL, *s2 = NULL;
        json_t *out = NULL;
        struct error *err = NULL;

        assert_int_equal(authz_new("AlwaysAllow", &ctx, &allow, NULL), 0);
        assert_int_equal(authz_new("AlwaysDeny", &ctx, &deny, NULL), 0);
        c.authz = allow;
        a1 = review(authz_self_subject_rules_review, &c, "{\"spec\":{\"namespace\":\"ns\"}}");
        s1 = json_dumps(a1, JSON_COMPACT | JSON_SORT_KEYS);
        assert_string_equal(s1,
                            "{\"apiVersion\":\"authorization.k8s.io/v1\",\"kind\":"
                            "\"SelfSubjectRulesReview\",\"metadata\":{\"creationTimestamp\":null},"
                            "\"spec\":{},\"status\":{\"incomplete\":false,\"nonResourceRules\":[{"
                            "\"nonResourceURLs\":[\"*\"],\"verbs\":[\"*\"]}],\"resourceRules\":[{"
                            "\"apiGroups\":[\"*\"],\"resources\":[\"*\"],\"verbs\":[\"*\"]}]}}");
        /* AlwaysDeny lists nothing and says the list is incomplete */
        c.authz = deny;
        c.user = node;
        a2 = review(authz_self_subject_rules_review, &c, "{\"spec\":{\"namespace\":\"ns\"}}");
        s2 = json_dumps(json_object_get(a2, "status"), JSON_COMPACT | JSON_SORT_KEYS);
        assert_string_equal(s2, "{\"incomplete\":true,\"nonResourceRules\":[],"
                                "\"resourceRules\":[]}");
        /* K8S: "no namespace on request" */
        assert_int_equal(
                authz_self_subject_rules_review(&c, json_object_get(a2, "spec"), &out, &err),
                -EINVAL);
        assert_string_equal(err->message, "no namespace on request");
        error_free(err);
}

/* K8S: RBACAuthorizer.RulesFor's split and union's error aggregate */
static void test_rules(void **state)
{
        struct authz_rules r;
        cleanup_json json_t *both = parse("{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],"
                                          "\"resources\":[\"pods\"],\"resourceNames\":[],"
                                          "\"nonResourceURLs\":[\"/logs\"]}");
        cleanup_json json_t *none = parse("{\"verbs\":[\"get\"]}");
        cleanup_free char *rr = NULL, *nr = NULL, *e0 = NULL, *e1 = NULL, *e2 = NULL;

        authz_rules_init(&r);
        authz_rules_add_policy_rule(&r, both);
        authz_rules_add_policy_rule(&r, none);
        rr = json_dumps(r.resource_rules, JSON_COMPACT | JSON_SORT_KEYS);
        nr = json_dumps(r.non_resource_rules, JSON_COMPACT | JSON_SORT_KEYS);
        /* empty lists are left out, verbs never */
        assert_string_equal(
                rr, "[{\"apiGroups\":[\"\"],\"resources\":[\"pods\"],\"verbs\":[\"get\"]}]");
        assert_string_equal(nr, "[{\"nonResourceURLs\":[\"/logs\"],\"verbs\":[\"get\"]}]");
        e0 = authz_rules_error_string(&r);
        assert_string_equal(e0, "");
        authz_rules_add_error(&r, "a");
        authz_rules_add_error(&r, "a");
        e1 = authz_rules_error_string(&r);
        assert_string_equal(e1, "a");
        authz_rules_add_error(&r, "b");
        e2 = authz_rules_error_string(&r);
        assert_string_equal(e2, "[a, b]");
        authz_rules_release(&r);
}

/* K8S: NodeAuthorizer.RulesFor: a node's list is incomplete, anyone else's untouched */
static void test_node_rules(void **state)
{
        static const char *const nodes[] = { "system:nodes", NULL };
        cleanup_authn_user struct authn_user *me = authn_user_new("me", NULL, NULL);
        cleanup_authn_user struct authn_user *node = authn_user_new("system:node:n1", NULL, nodes);
        struct authz_rules r;
        cleanup_free char *e = NULL;

        authz_rules_init(&r);
        authz_node_rules_for(NULL, me, "ns", &r);
        assert_false(r.incomplete);
        assert_int_equal(r.n_errors, 0);
        authz_node_rules_for(NULL, node, "ns", &r);
        assert_true(r.incomplete);
        e = authz_rules_error_string(&r);
        assert_string_equal(e, "node authorizer does not support user rule resolution");
        assert_int_equal(json_array_size(r.resource_rules), 0);
        authz_rules_release(&r);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_validation),   cmocka_unit_test(test_access_reviews),
                cmocka_unit_test(test_rules_review), cmocka_unit_test(test_rules),
                cmocka_unit_test(test_node_rules),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
