/* test-authz.c: the authorization framework: request attributes as upstream's
 * RequestInfoFactory fills them, RuleAllows over rbac/v1 PolicyRules, the mode list, the chain
 * (system:masters first, first decision wins, reasons joined) and the 403 Status's words. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apiserver/authn.h"
#include "apiserver/authz.h"
#include "base/alloc.h"
#include "base/json.h"

static void test_attributes(void **state)
{
        static const struct {
                const char *method, *path, *query_key, *query_value;
                bool resource;
                const char *verb, *group, *version, *resource_name, *sub, *ns, *name;
        } cases[] = {
                /* non-resource requests: the lowercase method and the path */
                { "GET", "/healthz", NULL, NULL, false, "get", "", "", "", "", "", "" },
                { "GET", "/api", NULL, NULL, false, "get", "", "", "", "", "", "" },
                { "GET", "/api/v1", NULL, NULL, false, "get", "", "", "", "", "", "" },
                { "GET", "/apis/apps/v1", NULL, NULL, false, "get", "", "", "", "", "", "" },
                { "POST", "/openapi/v2", NULL, NULL, false, "post", "", "", "", "", "", "" },
                { "GET", "/foo/bar/baz", NULL, NULL, false, "get", "", "", "", "", "", "" },
                /* collections: list, watch, create, deletecollection */
                { "GET", "/api/v1/pods", NULL, NULL, true, "list", "", "v1", "pods", "", "", "" },
                { "GET", "/api/v1/namespaces/ns/pods", "watch", "true", true, "watch", "", "v1",
                  "pods", "", "ns", "" },
                { "GET", "/api/v1/namespaces/ns/pods", "watch", "1", true, "watch", "", "v1",
                  "pods", "", "ns", "" },
                { "GET", "/api/v1/namespaces/ns/pods", "watch", "false", true, "list", "", "v1",
                  "pods", "", "ns", "" },
                { "POST", "/api/v1/namespaces/ns/pods", NULL, NULL, true, "create", "", "v1",
                  "pods", "", "ns", "" },
                { "DELETE", "/api/v1/namespaces/ns/pods", NULL, NULL, true, "deletecollection", "",
                  "v1", "pods", "", "ns", "" },
                /* items and subresources */
                { "GET", "/api/v1/namespaces/ns/pods/web", NULL, NULL, true, "get", "", "v1",
                  "pods", "", "ns", "web" },
                { "PATCH", "/api/v1/namespaces/ns/pods/web/resize", NULL, NULL, true, "patch", "",
                  "v1", "pods", "resize", "ns", "web" },
                { "PUT", "/apis/apps/v1/namespaces/ns/deployments/d/status", NULL, NULL, true,
                  "update", "apps", "v1", "deployments", "status", "ns", "d" },
                { "DELETE", "/apis/storage.k8s.io/v1/storageclasses/fast", NULL, NULL, true,
                  "delete", "storage.k8s.io", "v1", "storageclasses", "", "", "fast" },
                /* a namespace is named, and is its own namespace */
                { "GET", "/api/v1/namespaces/ns", NULL, NULL, true, "get", "", "v1", "namespaces",
                  "", "ns", "ns" },
                { "PUT", "/api/v1/namespaces/ns/finalize", NULL, NULL, true, "update", "", "v1",
                  "namespaces", "finalize", "ns", "ns" },
                { "GET", "/api/v1/namespaces", NULL, NULL, true, "list", "", "v1", "namespaces", "",
                  "", "" },
                /* the watch/ prefix, and a watch of one object by fieldSelector */
                { "GET", "/api/v1/watch/namespaces/ns/pods", NULL, NULL, true, "watch", "", "v1",
                  "pods", "", "ns", "" },
                { "GET", "/api/v1/namespaces/ns/pods", "fieldSelector", "metadata.name=web", true,
                  "list", "", "v1", "pods", "", "ns", "web" },
                { "GET", "/api/v1/namespaces/ns/pods", "fieldSelector",
                  "spec.nodeName=n,metadata.name==web", true, "list", "", "v1", "pods", "", "ns",
                  "web" },
                { "GET", "/api/v1/namespaces/ns/pods", "fieldSelector", "metadata.name!=web", true,
                  "list", "", "v1", "pods", "", "ns", "" },
                { "GET", "/api/v1/namespaces/ns/pods", "fieldSelector", "metadata.name=a%b", true,
                  "list", "", "v1", "pods", "", "ns", "" },
                /* a get with a name stays a get, watch=true or not */
                { "GET", "/api/v1/namespaces/ns/pods/web", "watch", "true", true, "get", "", "v1",
                  "pods", "", "ns", "web" },
                /* proxy names no subresource */
                { "GET", "/api/v1/proxy/nodes/n1/stats", NULL, NULL, true, "proxy", "", "v1",
                  "nodes", "", "", "n1" },
                /* an unknown method is no verb */
                { "OPTIONS", "/api/v1/pods", NULL, NULL, true, "", "", "v1", "pods", "", "", "" },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                struct http_query_param q = { cases[i].query_key, cases[i].query_value };
                struct http_request req = { .method = cases[i].method,
                                            .path = cases[i].path,
                                            .query = cases[i].query_key ? &q : NULL,
                                            .n_query = cases[i].query_key ? 1 : 0 };
                struct authz_attributes a;
                cleanup_free char *storage = NULL;

                assert_int_equal(authz_attributes_from_request(&req, NULL, &a, &storage, NULL), 0);
                if (a.resource_request != cases[i].resource || !streq(a.verb, cases[i].verb) ||
                    !streq(a.api_group, cases[i].group) ||
                    !streq(a.api_version, cases[i].version) ||
                    !streq(a.resource, cases[i].resource_name) ||
                    !streq(a.subresource, cases[i].sub) || !streq(a.ns, cases[i].ns) ||
                    !streq(a.name, cases[i].name) || !streq(a.path, cases[i].path))
                        fail_msg("%s %s: resource=%d verb=%s group=%s version=%s resource=%s "
                                 "sub=%s ns=%s name=%s",
                                 cases[i].method, cases[i].path, a.resource_request, a.verb,
                                 a.api_group, a.api_version, a.resource, a.subresource, a.ns,
                                 a.name);
        }
}

static void test_attributes_bad_url(void **state)
{
        struct http_request req = { .method = "GET", .path = "/api/v1/watch" };
        struct authz_attributes a;
        cleanup_free char *storage = NULL;
        cleanup_error struct error *err = NULL;

        assert_int_equal(authz_attributes_from_request(&req, NULL, &a, &storage, &err), -EINVAL);
        assert_string_equal(err->message,
                            "unable to determine kind and namespace from url, /api/v1/watch");
}

static struct authz_attributes res(const char *verb, const char *group, const char *resource,
                                   const char *sub, const char *name)
{
        return (struct authz_attributes){ .verb = verb,
                                          .resource_request = true,
                                          .api_group = group,
                                          .api_version = "v1",
                                          .resource = resource,
                                          .subresource = sub,
                                          .ns = "ns",
                                          .name = name,
                                          .path = "/x" };
}

static struct authz_attributes nonres(const char *verb, const char *path)
{
        return (struct authz_attributes){ .verb = verb,
                                          .api_group = "",
                                          .api_version = "",
                                          .resource = "",
                                          .subresource = "",
                                          .ns = "",
                                          .name = "",
                                          .path = path };
}

static void test_rule_allows(void **state)
{
        const struct {
                const char *rule;
                struct authz_attributes a;
                bool want;
        } t[] = {
                /* verbs, groups, resources */
                { "{\"verbs\":[\"get\",\"list\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\"]}",
                  res("get", "", "pods", "", "web"), true },
                { "{\"verbs\":[\"get\",\"list\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\"]}",
                  res("create", "", "pods", "", ""), false },
                { "{\"verbs\":[\"*\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\"]}",
                  res("deletecollection", "", "pods", "", ""), true },
                { "{\"verbs\":[\"get\"],\"apiGroups\":[\"apps\"],\"resources\":[\"pods\"]}",
                  res("get", "", "pods", "", ""), false },
                { "{\"verbs\":[\"get\"],\"apiGroups\":[\"*\"],\"resources\":[\"pods\"]}",
                  res("get", "metrics.k8s.io", "pods", "", ""), true },
                { "{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":[\"*\"]}",
                  res("get", "", "secrets", "", ""), true },
                { "{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":[\"*\"]}",
                  res("get", "", "pods", "log", ""), true },
                /* subresources: exact, */
                { "{\"verbs\":[\"patch\"],\"apiGroups\":[\"\"],\"resources\":[\"pods/resize\"]}",
                  res("patch", "", "pods", "resize", "web"), true },
                { "{\"verbs\":[\"patch\"],\"apiGroups\":[\"\"],\"resources\":[\"pods/resize\"]}",
                  res("patch", "", "pods", "", "web"), false },
                { "{\"verbs\":[\"patch\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\"]}",
                  res("patch", "", "pods", "resize", "web"), false },
                { "{\"verbs\":[\"patch\"],\"apiGroups\":[\"\"],\"resources\":[\"pods/status\"]}",
                  res("patch", "", "pods", "resize", "web"), false },
                { "{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":[\"nodes/status\"]}",
                  res("get", "", "pods", "status", ""), false },
                /* ... and */ /* any resource's */
                { "{\"verbs\":[\"update\"],\"apiGroups\":[\"*\"],\"resources\":[\"*/status\"]}",
                  res("update", "apps", "deployments", "status", "d"), true },
                { "{\"verbs\":[\"update\"],\"apiGroups\":[\"*\"],\"resources\":[\"*/status\"]}",
                  res("update", "apps", "deployments", "", "d"), false },
                { "{\"verbs\":[\"update\"],\"apiGroups\":[\"*\"],\"resources\":[\"*/status\"]}",
                  res("update", "apps", "deployments", "scale", "d"), false },
                { "{\"verbs\":[\"update\"],\"apiGroups\":[\"*\"],\"resources\":[\"x/status\"]}",
                  res("update", "apps", "deployments", "status", "d"), false },
                /* resourceNames */
                { "{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":[\"configmaps\"],"
                  "\"resourceNames\":[\"a\",\"b\"]}",
                  res("get", "", "configmaps", "", "b"), true },
                { "{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":[\"configmaps\"],"
                  "\"resourceNames\":[\"a\",\"b\"]}",
                  res("get", "", "configmaps", "", "c"), false },
                { "{\"verbs\":[\"list\"],\"apiGroups\":[\"\"],\"resources\":[\"configmaps\"],"
                  "\"resourceNames\":[\"a\"]}",
                  res("list", "", "configmaps", "", ""), false },
                { "{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":[\"configmaps\"],"
                  "\"resourceNames\":[]}",
                  res("get", "", "configmaps", "", "c"), true },
                /* a resource rule allows no path and a path rule no resource */
                { "{\"verbs\":[\"get\"],\"apiGroups\":[\"*\"],\"resources\":[\"*\"]}",
                  nonres("get", "/healthz"), false },
                { "{\"verbs\":[\"get\"],\"nonResourceURLs\":[\"*\"]}",
                  res("get", "", "pods", "", ""), false },
                /* nonResourceURLs: exact, prefix, any */
                { "{\"verbs\":[\"get\"],\"nonResourceURLs\":[\"/healthz\",\"/version\"]}",
                  nonres("get", "/healthz"), true },
                { "{\"verbs\":[\"get\"],\"nonResourceURLs\":[\"/healthz\"]}",
                  nonres("get", "/healthz/etcd"), false },
                { "{\"verbs\":[\"get\"],\"nonResourceURLs\":[\"/healthz\"]}",
                  nonres("post", "/healthz"), false },
                { "{\"verbs\":[\"get\"],\"nonResourceURLs\":[\"/api/*\"]}",
                  nonres("get", "/api/v1"), true },
                { "{\"verbs\":[\"get\"],\"nonResourceURLs\":[\"/api/*\"]}", nonres("get", "/api"),
                  false },
                { "{\"verbs\":[\"get\"],\"nonResourceURLs\":[\"/api**\"]}", nonres("get", "/apis"),
                  true },
                { "{\"verbs\":[\"*\"],\"nonResourceURLs\":[\"*\"]}", nonres("put", "/anything"),
                  true },
                /* malformed rules allow nothing they do not spell out */
                { "{\"verbs\":\"get\",\"apiGroups\":[\"\"],\"resources\":[\"pods\"]}",
                  res("get", "", "pods", "", ""), false },
                { "{\"verbs\":[1,\"get\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\"]}",
                  res("get", "", "pods", "", ""), true },
                { "{}", res("get", "", "pods", "", ""), false },
                { "{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\"],"
                  "\"resourceNames\":\"x\"}",
                  res("get", "", "pods", "", "y"), true },
        };

        for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
                json_t *rule = json_loads(t[i].rule, 0, NULL);

                assert_non_null(rule);
                if (authz_rule_allows(rule, &t[i].a) != t[i].want)
                        fail_msg("case %zu: %s on %s %s/%s name %s path %s: want %d", i, t[i].rule,
                                 t[i].a.verb, t[i].a.resource, t[i].a.subresource, t[i].a.name,
                                 t[i].a.path, t[i].want);
                json_decref(rule);
        }
}

static void test_modes(void **state)
{
        static const struct {
                const char *modes;
                const char *error;
        } bad[] = {
                { "", "at least one authorization-mode must be passed" },
                { "Foo", "authorization-mode \"Foo\" is not a valid mode" },
                { "AlwaysAllow,AlwaysAllow",
                  "authorization-mode \"AlwaysAllow,AlwaysAllow\" has mode specified more than "
                  "once" },
                { "Webhook", "authorization-mode \"Webhook\" is not available in flexlet" },
                { "ABAC,AlwaysAllow", "authorization-mode \"ABAC\" is not available in flexlet" },
        };
        const struct authz_context ctx = { 0 };

        for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
                struct authz *z = NULL;
                cleanup_error struct error *err = NULL;

                assert_int_equal(authz_new(bad[i].modes, &ctx, &z, &err), -EINVAL);
                assert_null(z);
                assert_string_equal(err->message, bad[i].error);
        }
}

static void test_chain(void **state)
{
        static const char *const masters[] = { AUTHN_GROUP_MASTERS, NULL };
        const struct authz_context ctx = { 0 };
        cleanup_authn_user struct authn_user *admin = authn_user_new("admin", NULL, masters);
        cleanup_authn_user struct authn_user *bob = authn_user_new("bob", NULL, NULL);
        struct authz_attributes a = res("get", "", "pods", "", "web");
        cleanup_authz struct authz *deny = NULL, *allow = NULL, *deny_allow = NULL;
        char *reason = NULL;

        assert_int_equal(authz_new("AlwaysDeny", &ctx, &deny, NULL), 0);
        assert_int_equal(authz_new("AlwaysAllow", &ctx, &allow, NULL), 0);
        assert_int_equal(authz_new("AlwaysDeny,AlwaysAllow", &ctx, &deny_allow, NULL), 0);

        /* system:masters before any mode */
        a.user = admin;
        assert_int_equal(authz_authorize(deny, &a, &reason), AUTHZ_ALLOW);
        assert_null(reason);
        /* AlwaysDeny has no opinion, with its reason */
        a.user = bob;
        assert_int_equal(authz_authorize(deny, &a, &reason), AUTHZ_NO_OPINION);
        assert_string_equal(reason, "Everything is forbidden.");
        free(reason);
        reason = NULL;
        assert_int_equal(authz_authorize(allow, &a, &reason), AUTHZ_ALLOW);
        assert_null(reason);
        /* no opinion goes on to the next */
        assert_int_equal(authz_authorize(deny_allow, &a, &reason), AUTHZ_ALLOW);
        assert_null(reason);
        /* no chain: everything allowed */
        assert_int_equal(authz_authorize(NULL, &a, &reason), AUTHZ_ALLOW);
}

static void test_forbidden(void **state)
{
        cleanup_authn_user struct authn_user *sa =
                authn_user_new("system:serviceaccount:ns:sa", NULL, NULL);
        static const struct {
                struct authz_attributes a;
                const char *reason, *want;
        } cases[] = {
                { { .verb = "create",
                    .resource_request = true,
                    .api_group = "",
                    .api_version = "v1",
                    .resource = "pods",
                    .subresource = "",
                    .ns = "ns",
                    .name = "",
                    .path = "/api/v1/namespaces/ns/pods" },
                  NULL,
                  "403 Forbidden pods is forbidden: User \"system:serviceaccount:ns:sa\" cannot "
                  "create resource \"pods\" in API group \"\" in the namespace \"ns\" {\"kind\": "
                  "\"pods\"}" },
                { { .verb = "patch",
                    .resource_request = true,
                    .api_group = "",
                    .api_version = "v1",
                    .resource = "pods",
                    .subresource = "resize",
                    .ns = "ns",
                    .name = "web",
                    .path = "/x" },
                  "RBAC: role.rbac.authorization.k8s.io \"r\" not found",
                  "403 Forbidden pods \"web\" is forbidden: User \"system:serviceaccount:ns:sa\" "
                  "cannot patch resource \"pods/resize\" in API group \"\" in the namespace "
                  "\"ns\": RBAC: role.rbac.authorization.k8s.io \"r\" not found {\"name\": "
                  "\"web\", \"kind\": \"pods\"}" },
                { { .verb = "list",
                    .resource_request = true,
                    .api_group = "storage.k8s.io",
                    .api_version = "v1",
                    .resource = "storageclasses",
                    .subresource = "",
                    .ns = "",
                    .name = "",
                    .path = "/x" },
                  NULL,
                  "403 Forbidden storageclasses.storage.k8s.io is forbidden: User "
                  "\"system:serviceaccount:ns:sa\" cannot list resource \"storageclasses\" in API "
                  "group \"storage.k8s.io\" at the cluster scope {\"group\": \"storage.k8s.io\", "
                  "\"kind\": \"storageclasses\"}" },
                { { .verb = "get",
                    .resource_request = false,
                    .api_group = "",
                    .api_version = "",
                    .resource = "",
                    .subresource = "",
                    .ns = "",
                    .name = "",
                    .path = "/metrics" },
                  "",
                  "403 Forbidden forbidden: User \"system:serviceaccount:ns:sa\" cannot get path "
                  "\"/metrics\" {}" },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                struct authz_attributes a = cases[i].a;
                struct http_response resp;
                json_t *st;
                cleanup_free char *details = NULL, *got = NULL;

                a.user = sa;
                http_response_init(&resp);
                authz_respond_forbidden(&resp, &a, cases[i].reason);
                st = json_loadb(resp.body.buf, resp.body.len, 0, NULL);
                assert_non_null(st);
                details = json_dumps(json_object_get(st, "details"), JSON_PRESERVE_ORDER);
                got = xasprintf("%u %s %s %s", resp.status, json_path_string(st, "reason"),
                                json_path_string(st, "message"), details);
                assert_string_equal(got, cases[i].want);
                json_decref(st);
                http_response_release(&resp);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_attributes),  cmocka_unit_test(test_attributes_bad_url),
                cmocka_unit_test(test_rule_allows), cmocka_unit_test(test_modes),
                cmocka_unit_test(test_chain),       cmocka_unit_test(test_forbidden),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
