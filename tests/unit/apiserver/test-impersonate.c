/* test-impersonate.c: the Impersonate-* headers as upstream's impersonation filter reads them
 * (buildImpersonationRequests), the attributes each check asks the chain about, the order of
 * the checks and the first refusal, and the user acted as (groups of a service account,
 * system:authenticated, extras, uid). */
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
#include "apiserver/impersonate.h"
#include "base/alloc.h"
#include "base/json.h"

#define H(n, v) ((struct http_header){ (n), (v) })

/* "kind ns name key" of each request, space-joined, for comparing with a table. */
static char *describe(const struct impersonation *imp)
{
        static const char *const kinds[] = { "User", "ServiceAccount", "Group", "UserExtra",
                                             "UID" };
        char *out = xstrdup("");

        for (size_t i = 0; i < imp->n; i++) {
                char *next =
                        xasprintf("%s%s%s/%s/%s/%s", out, i ? " " : "", kinds[imp->items[i].kind],
                                  imp->items[i].ns, imp->items[i].name, imp->items[i].extra_key);
                free(out);
                out = next;
        }
        return out;
}

static void test_parse(void **state)
{
        static const struct {
                struct http_header h[4];
                size_t n;
                const char *want; /* NULL: refused */
                const char *error;
        } cases[] = {
                { { H("Accept", "x") }, 0, "", NULL },
                { { H("Impersonate-User", "bob") }, 1, "User//bob/", NULL },
                /* any case, as HTTP header names */
                { { H("impersonate-user", "bob") }, 1, "User//bob/", NULL },
                /* the first value only (headers.Get) */
                { { H("Impersonate-User", "bob"), H("Impersonate-User", "eve") },
                  2,
                  "User//bob/",
                  NULL },
                { { H("Impersonate-User", "system:serviceaccount:ns1:sa") },
                  1,
                  "ServiceAccount/ns1/sa/",
                  NULL },
                /* not a valid namespace or name: a plain user */
                { { H("Impersonate-User", "system:serviceaccount:NS:sa") },
                  1,
                  "User//system:serviceaccount:NS:sa/",
                  NULL },
                { { H("Impersonate-User", "system:serviceaccount:ns:sa:x") },
                  1,
                  "User//system:serviceaccount:ns:sa:x/",
                  NULL },
                { { H("Impersonate-Group", "g1"), H("Impersonate-User", "bob"),
                    H("Impersonate-Group", "g2") },
                  3,
                  "User//bob/ Group//g1/ Group//g2/",
                  NULL },
                /* extras: the key lower-cased, then %-unescaped; a bad escape kept */
                { { H("Impersonate-User", "bob"), H("Impersonate-Extra-Scopes", "a"),
                    H("Impersonate-Extra-Foo%2FBar", "b"), H("Impersonate-Extra-x%zz", "c") },
                  4,
                  "User//bob/ UserExtra//a/scopes UserExtra//b/foo/bar UserExtra//c/x%zz",
                  NULL },
                /* an escaped NUL counts as malformed: the key stays as written (lower-cased) */
                { { H("Impersonate-User", "bob"), H("Impersonate-Extra-A%00B%41", "n") },
                  2,
                  "User//bob/ UserExtra//n/a%00b%41",
                  NULL },
                { { H("Impersonate-Uid", "u-1"), H("Impersonate-User", "bob") },
                  2,
                  "User//bob/ UID//u-1/",
                  NULL },
                /* an empty user asks for nothing */
                { { H("Impersonate-User", "") }, 1, "", NULL },
                /* K8S: groups, extras or a uid without a user */
                { { H("Impersonate-Group", "g") },
                  1,
                  NULL,
                  "requested [{Group  g    }] without impersonating a user" },
                { { H("Impersonate-Extra-K", "v"), H("Impersonate-Uid", "u") },
                  2,
                  NULL,
                  "requested [{UserExtra  v  authentication.k8s.io/v1  k} {UID  u  "
                  "authentication.k8s.io/v1  }] without impersonating a user" },
                { { H("Impersonate-User", ""), H("Impersonate-Group", "g") },
                  2,
                  NULL,
                  "requested [{Group  g    }] without impersonating a user" },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                struct impersonation imp;
                struct error *err = NULL;
                int r = impersonation_parse(cases[i].h, cases[i].n, &imp, &err);

                if (!cases[i].want) {
                        assert_int_equal(r, -EINVAL);
                        assert_string_equal(err->message, cases[i].error);
                        assert_int_equal(imp.n, 0);
                        error_free(err);
                        continue;
                }
                assert_int_equal(r, 0);
                {
                        cleanup_free char *got = describe(&imp);
                        if (!streq(got, cases[i].want))
                                fail_msg("case %zu: %s, want %s", i, got, cases[i].want);
                }
                impersonation_release(&imp);
        }
}

static void test_not_utf8(void **state)
{
        struct http_header h[] = { H("Impersonate-User", "b\xffob") };
        struct impersonation imp;
        struct error *err = NULL;

        assert_int_equal(impersonation_parse(h, 1, &imp, &err), -EILSEQ);
        assert_string_equal(err->message, "the Impersonate-User header is not valid UTF-8");
        error_free(err);
}

/* K8S: actingAsAttributes for each kind */
static void test_attributes(void **state)
{
        struct http_header h[] = { H("Impersonate-User", "system:serviceaccount:ns1:sa"),
                                   H("Impersonate-Group", "g"), H("Impersonate-Extra-Scopes", "v"),
                                   H("Impersonate-Uid", "u") };
        static const struct {
                const char *group, *version, *resource, *sub, *ns, *name;
        } want[] = {
                { "", "", "serviceaccounts", "", "ns1", "sa" },
                { "", "", "groups", "", "", "g" },
                { "authentication.k8s.io", "v1", "userextras", "scopes", "", "v" },
                { "authentication.k8s.io", "v1", "uids", "", "", "u" },
        };
        cleanup_authn_user struct authn_user *me = authn_user_new("me", NULL, NULL);
        struct impersonation imp;

        assert_int_equal(impersonation_parse(h, ARRAY_SIZE(h), &imp, NULL), 0);
        assert_int_equal(imp.n, ARRAY_SIZE(want));
        for (size_t i = 0; i < imp.n; i++) {
                struct authz_attributes a;
                cleanup_free char *msg = NULL;

                impersonation_attributes(&imp.items[i], me, &a);
                assert_ptr_equal(a.user, me);
                assert_string_equal(a.verb, "impersonate");
                assert_true(a.resource_request);
                assert_string_equal(a.api_group, want[i].group);
                assert_string_equal(a.api_version, want[i].version);
                assert_string_equal(a.resource, want[i].resource);
                assert_string_equal(a.subresource, want[i].sub);
                assert_string_equal(a.ns, want[i].ns);
                assert_string_equal(a.name, want[i].name);
                if (i == 0) {
                        msg = authz_forbidden_message(&a);
                        assert_string_equal(msg, "User \"me\" cannot impersonate resource "
                                                 "\"serviceaccounts\" in API group \"\" in the "
                                                 "namespace \"ns1\"");
                }
        }
        impersonation_release(&imp);
}

static void test_authorize(void **state)
{
        static const char *const masters[] = { AUTHN_GROUP_MASTERS, NULL };
        struct http_header h[] = { H("Impersonate-User", "bob"), H("Impersonate-Group", "g") };
        cleanup_authn_user struct authn_user *me = authn_user_new("me", NULL, NULL);
        cleanup_authn_user struct authn_user *admin = authn_user_new("admin", NULL, masters);
        cleanup_authz struct authz *deny = NULL, *allow = NULL;
        struct authz_context ctx = { 0 };
        struct impersonation imp;
        size_t refused = 99;
        char *reason = NULL;

        assert_int_equal(authz_new("AlwaysDeny", &ctx, &deny, NULL), 0);
        assert_int_equal(authz_new("AlwaysAllow", &ctx, &allow, NULL), 0);
        assert_int_equal(impersonation_parse(h, ARRAY_SIZE(h), &imp, NULL), 0);
        /* the first thing asked for is the first refused, with the chain's reason */
        assert_int_equal(impersonation_authorize(deny, me, &imp, &refused, &reason), -EPERM);
        assert_int_equal(refused, 0);
        assert_string_equal(reason, "Everything is forbidden.");
        free(reason);
        /* system:masters may do anything, impersonating too */
        assert_int_equal(impersonation_authorize(deny, admin, &imp, &refused, &reason), 0);
        assert_int_equal(impersonation_authorize(allow, me, &imp, &refused, &reason), 0);
        assert_int_equal(impersonation_authorize(NULL, me, &imp, &refused, &reason), 0);
        impersonation_release(&imp);
}

static char *groups_of(const struct authn_user *u)
{
        char *out = xstrdup("");

        for (size_t i = 0; u->groups[i]; i++) {
                char *next = xasprintf("%s%s%s", out, i ? "," : "", u->groups[i]);
                free(out);
                out = next;
        }
        return out;
}

static void test_user(void **state)
{
        static const struct {
                struct http_header h[4];
                size_t n;
                const char *name, *uid, *groups, *extra;
        } cases[] = {
                { { H("Impersonate-User", "bob") }, 1, "bob", "", "system:authenticated", NULL },
                /* a service account's groups, unless groups are asked for */
                { { H("Impersonate-User", "system:serviceaccount:ns1:sa") },
                  1,
                  "system:serviceaccount:ns1:sa",
                  "",
                  "system:serviceaccounts,system:serviceaccounts:ns1,system:authenticated",
                  NULL },
                { { H("Impersonate-User", "system:serviceaccount:ns1:sa"),
                    H("Impersonate-Group", "g") },
                  2,
                  "system:serviceaccount:ns1:sa",
                  "",
                  "g,system:authenticated",
                  NULL },
                /* system:authenticated or system:unauthenticated asked for: nothing added */
                { { H("Impersonate-User", "bob"), H("Impersonate-Group", "system:authenticated"),
                    H("Impersonate-Group", "x") },
                  3,
                  "bob",
                  "",
                  "system:authenticated,x",
                  NULL },
                { { H("Impersonate-User", "bob"),
                    H("Impersonate-Group", "system:unauthenticated") },
                  2,
                  "bob",
                  "",
                  "system:unauthenticated",
                  NULL },
                /* the anonymous user is unauthenticated */
                { { H("Impersonate-User", "system:anonymous") },
                  1,
                  "system:anonymous",
                  "",
                  "system:unauthenticated",
                  NULL },
                { { H("Impersonate-User", "bob"), H("Impersonate-Uid", "u-1"),
                    H("Impersonate-Extra-Scopes", "a"), H("Impersonate-Extra-scopes", "b") },
                  4,
                  "bob",
                  "u-1",
                  "system:authenticated",
                  "{\"scopes\":[\"a\",\"b\"]}" },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                struct impersonation imp;
                cleanup_authn_user struct authn_user *u = NULL;
                cleanup_free char *groups = NULL, *extra = NULL;

                assert_int_equal(impersonation_parse(cases[i].h, cases[i].n, &imp, NULL), 0);
                u = impersonation_user(&imp);
                impersonation_release(&imp);
                groups = groups_of(u);
                assert_string_equal(u->name, cases[i].name);
                assert_string_equal(u->uid, cases[i].uid);
                if (!streq(groups, cases[i].groups))
                        fail_msg("case %zu: groups %s, want %s", i, groups, cases[i].groups);
                if (cases[i].extra) {
                        extra = json_dumps(u->extra, JSON_COMPACT);
                        assert_string_equal(extra, cases[i].extra);
                } else {
                        assert_null(u->extra);
                }
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse),      cmocka_unit_test(test_not_utf8),
                cmocka_unit_test(test_attributes), cmocka_unit_test(test_authorize),
                cmocka_unit_test(test_user),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
