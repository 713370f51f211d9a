/* test-rbac.c: RBAC's rule resolver over a real store: subjects (User, Group, ServiceAccount
 * with and without a namespace), RoleBindings to Roles and to ClusterRoles, ClusterRoleBindings,
 * the namespace boundary, missing roles as the refusal's reason, and the copy following the
 * store's changes (a new binding takes effect, a deleted one stops). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apiserver/authn.h"
#include "apiserver/authz.h"
#include "apiserver/rbac.h"
#include "base/alloc.h"
#include "base/json.h"
#include "store/store.h"

struct fixture {
        char dir[64];
        struct store *store;
};

static void put(struct store *s, const char *resource, const char *json)
{
        json_t *obj = json_loads(json, 0, NULL);

        assert_non_null(obj);
        assert_int_equal(store_create(s, resource,
                                      json_path_string_or_empty(obj, "metadata.namespace"),
                                      json_path_string(obj, "metadata.name"), obj, NULL),
                         0);
        json_decref(obj);
}

static int setup(void **state)
{
        struct fixture *f = xcalloc(1, sizeof(*f));
        cleanup_free char *db = NULL;

        strcpy(f->dir, "/tmp/flexlet-test-rbac.XXXXXX");
        assert_non_null(mkdtemp(f->dir));
        db = xasprintf("%s/store.db", f->dir);
        assert_int_equal(store_open_sqlite(db, &f->store, NULL), 0);

        put(f->store, "roles",
            "{\"metadata\":{\"namespace\":\"ns\",\"name\":\"pod-reader\"},\"rules\":["
            "{\"verbs\":[\"get\",\"list\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\"]}]}");
        put(f->store, "roles",
            "{\"metadata\":{\"namespace\":\"ns\",\"name\":\"resizer\"},\"rules\":["
            "{\"verbs\":[\"patch\"],\"apiGroups\":[\"\"],\"resources\":[\"pods/resize\"]},"
            "{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\"]}]}");
        put(f->store, "clusterroles",
            "{\"metadata\":{\"name\":\"sc-reader\"},\"rules\":["
            "{\"verbs\":[\"get\"],\"apiGroups\":[\"storage.k8s.io\"],"
            "\"resources\":[\"storageclasses\"]}]}");
        put(f->store, "clusterroles",
            "{\"metadata\":{\"name\":\"cm-editor\"},\"rules\":["
            "{\"verbs\":[\"*\"],\"apiGroups\":[\"\"],\"resources\":[\"configmaps\"]}]}");
        /* a User and a Group in ns */
        put(f->store, "rolebindings",
            "{\"metadata\":{\"namespace\":\"ns\",\"name\":\"readers\"},"
            "\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"Role\","
            "\"name\":\"pod-reader\"},\"subjects\":["
            "{\"kind\":\"User\",\"apiGroup\":\"rbac.authorization.k8s.io\",\"name\":\"alice\"},"
            "{\"kind\":\"Group\",\"apiGroup\":\"rbac.authorization.k8s.io\",\"name\":\"devs\"}]}");
        /* a ServiceAccount without a namespace: the binding's */
        put(f->store, "rolebindings",
            "{\"metadata\":{\"namespace\":\"ns\",\"name\":\"resizers\"},"
            "\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"Role\","
            "\"name\":\"resizer\"},\"subjects\":[{\"kind\":\"ServiceAccount\",\"name\":\"sa\"}]}");
        /* a ClusterRole bound in one namespace */
        put(f->store, "rolebindings",
            "{\"metadata\":{\"namespace\":\"ns\",\"name\":\"cm\"},"
            "\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"ClusterRole\","
            "\"name\":\"cm-editor\"},\"subjects\":[{\"kind\":\"ServiceAccount\",\"name\":\"sa\","
            "\"namespace\":\"other\"}]}");
        /* everywhere */
        put(f->store, "clusterrolebindings",
            "{\"metadata\":{\"name\":\"sc\"},"
            "\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"ClusterRole\","
            "\"name\":\"sc-reader\"},\"subjects\":[{\"kind\":\"Group\","
            "\"apiGroup\":\"rbac.authorization.k8s.io\",\"name\":\"system:authenticated\"}]}");
        /* to roles that do not exist */
        put(f->store, "rolebindings",
            "{\"metadata\":{\"namespace\":\"ns\",\"name\":\"dangling\"},"
            "\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"Role\","
            "\"name\":\"gone\"},\"subjects\":[{\"kind\":\"User\",\"name\":\"carol\"}]}");
        put(f->store, "clusterrolebindings",
            "{\"metadata\":{\"name\":\"dangling\"},"
            "\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"ClusterRole\","
            "\"name\":\"gone\"},\"subjects\":[{\"kind\":\"User\",\"name\":\"carol\"}]}");
        *state = f;
        return 0;
}

static int teardown(void **state)
{
        struct fixture *f = *state;
        cleanup_free char *cmd = xasprintf("rm -rf '%s'", f->dir);

        store_close(f->store);
        assert_int_equal(system(cmd), 0);
        free(f);
        return 0;
}

static struct authz_attributes attrs(const struct authn_user *u, const char *verb,
                                     const char *group, const char *resource, const char *sub,
                                     const char *ns, const char *name)
{
        return (struct authz_attributes){ .user = u,
                                          .verb = verb,
                                          .resource_request = true,
                                          .api_group = group,
                                          .api_version = "v1",
                                          .resource = resource,
                                          .subresource = sub,
                                          .ns = ns,
                                          .name = name,
                                          .path = "/x" };
}

static void test_decisions(void **state)
{
        struct fixture *f = *state;
        static const char *const devs[] = { "devs", NULL };
        cleanup_rbac struct rbac *r = NULL;
        cleanup_authn_user struct authn_user *alice = authn_user_new("alice", NULL, NULL);
        cleanup_authn_user struct authn_user *bob = authn_user_new("bob", NULL, devs);
        cleanup_authn_user struct authn_user *sa =
                authn_user_new("system:serviceaccount:ns:sa", NULL, NULL);
        cleanup_authn_user struct authn_user *other_sa =
                authn_user_new("system:serviceaccount:other:sa", NULL, NULL);
        cleanup_authn_user struct authn_user *lookalike =
                authn_user_new("system:serviceaccount:ns:sax", NULL, NULL);
        static const struct {
                int user; /* 0 alice, 1 bob, 2 sa, 3 other_sa, 4 lookalike */
                const char *verb, *group, *resource, *sub, *ns, *name;
                enum authz_decision want;
        } cases[] = {
                { 0, "list", "", "pods", "", "ns", "", AUTHZ_ALLOW },
                { 0, "get", "", "pods", "", "ns", "web", AUTHZ_ALLOW },
                { 0, "create", "", "pods", "", "ns", "", AUTHZ_NO_OPINION },
                { 0, "list", "", "pods", "", "default", "", AUTHZ_NO_OPINION },
                { 0, "list", "", "pods", "", "", "", AUTHZ_NO_OPINION },
                { 1, "list", "", "pods", "", "ns", "", AUTHZ_ALLOW },
                { 2, "patch", "", "pods", "resize", "ns", "web", AUTHZ_ALLOW },
                { 2, "patch", "", "pods", "", "ns", "web", AUTHZ_NO_OPINION },
                { 2, "patch", "", "pods", "status", "ns", "web", AUTHZ_NO_OPINION },
                { 2, "get", "", "pods", "", "ns", "web", AUTHZ_ALLOW },
                { 2, "patch", "", "pods", "resize", "other", "web", AUTHZ_NO_OPINION },
                { 4, "patch", "", "pods", "resize", "ns", "web", AUTHZ_NO_OPINION },
                /* a ClusterRole through a RoleBinding holds only in that namespace */
                { 3, "delete", "", "configmaps", "", "ns", "c", AUTHZ_ALLOW },
                { 3, "delete", "", "configmaps", "", "other", "c", AUTHZ_NO_OPINION },
                { 2, "delete", "", "configmaps", "", "ns", "c", AUTHZ_NO_OPINION },
                /* a ClusterRoleBinding holds everywhere, cluster scope included */
                { 0, "get", "storage.k8s.io", "storageclasses", "", "", "fast", AUTHZ_ALLOW },
                { 3, "get", "storage.k8s.io", "storageclasses", "", "", "fast", AUTHZ_ALLOW },
                { 3, "list", "storage.k8s.io", "storageclasses", "", "", "", AUTHZ_NO_OPINION },
        };
        const struct authn_user *users[] = { alice, bob, sa, other_sa, lookalike };

        assert_int_equal(rbac_new(f->store, &r, NULL), 0);
        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                struct authz_attributes a =
                        attrs(users[cases[i].user], cases[i].verb, cases[i].group,
                              cases[i].resource, cases[i].sub, cases[i].ns, cases[i].name);
                cleanup_free char *reason = NULL;
                enum authz_decision d = rbac_authorize(r, &a, &reason);

                if (d != cases[i].want)
                        fail_msg("case %zu: %s %s %s/%s in %s: %d, want %d", i,
                                 users[cases[i].user]->name, cases[i].verb, cases[i].resource,
                                 cases[i].sub, cases[i].ns, d, cases[i].want);
                /* K8S: authorizingVisitor: an allow says which binding allowed */
                if (d == AUTHZ_ALLOW)
                        assert_true(reason && strncmp(reason, "RBAC: allowed by ", 17) == 0);
                else
                        assert_null(reason);
        }
        /* K8S: the allowing source as upstream's describers name it */
        {
                struct authz_attributes a = attrs(alice, "get", "", "pods", "", "ns", "p");
                struct authz_attributes b = attrs(sa, "patch", "", "pods", "resize", "ns", "p");
                cleanup_free char *ra = NULL, *rb = NULL;

                assert_int_equal(rbac_authorize(r, &a, &ra), AUTHZ_ALLOW);
                assert_string_equal(ra, "RBAC: allowed by RoleBinding \"readers/ns\" of Role "
                                        "\"pod-reader\" to User \"alice\"");
                assert_int_equal(rbac_authorize(r, &b, &rb), AUTHZ_ALLOW);
                assert_string_equal(rb, "RBAC: allowed by RoleBinding \"resizers/ns\" of Role "
                                        "\"resizer\" to ServiceAccount \"sa/ns\"");
        }
}

/* K8S: clusterRoleBindingDescriber and roleBindingDescriber, describeSubject */
static void test_allowed_by(void **state)
{
        struct fixture *f = *state;
        static const char *const devs[] = { "devs", NULL };
        cleanup_rbac struct rbac *r = NULL;
        cleanup_authn_user struct authn_user *bob = authn_user_new("bob", NULL, devs);
        cleanup_authn_user struct authn_user *sa =
                authn_user_new("system:serviceaccount:ns:sa", NULL, NULL);
        cleanup_authn_user struct authn_user *other_sa =
                authn_user_new("system:serviceaccount:other:sa", NULL, NULL);
        struct authz_attributes by_group = attrs(bob, "list", "", "pods", "", "ns", "");
        struct authz_attributes by_sa = attrs(sa, "patch", "", "pods", "resize", "ns", "web");
        struct authz_attributes by_sa_ns =
                attrs(other_sa, "delete", "", "configmaps", "", "ns", "c");
        struct authz_attributes by_crb =
                attrs(bob, "get", "storage.k8s.io", "storageclasses", "", "", "fast");
        cleanup_free char *r1 = NULL, *r2 = NULL, *r3 = NULL, *r4 = NULL;

        assert_int_equal(rbac_new(f->store, &r, NULL), 0);
        assert_int_equal(rbac_authorize(r, &by_group, &r1), AUTHZ_ALLOW);
        assert_string_equal(r1, "RBAC: allowed by RoleBinding \"readers/ns\" of Role "
                                "\"pod-reader\" to Group \"devs\"");
        assert_int_equal(rbac_authorize(r, &by_sa, &r2), AUTHZ_ALLOW);
        assert_string_equal(r2, "RBAC: allowed by RoleBinding \"resizers/ns\" of Role "
                                "\"resizer\" to ServiceAccount \"sa/ns\"");
        assert_int_equal(rbac_authorize(r, &by_sa_ns, &r3), AUTHZ_ALLOW);
        assert_string_equal(r3, "RBAC: allowed by RoleBinding \"cm/ns\" of ClusterRole "
                                "\"cm-editor\" to ServiceAccount \"sa/other\"");
        assert_int_equal(rbac_authorize(r, &by_crb, &r4), AUTHZ_ALLOW);
        assert_string_equal(r4, "RBAC: allowed by ClusterRoleBinding \"sc\" of ClusterRole "
                                "\"sc-reader\" to Group \"system:authenticated\"");
}

/* K8S: RBACAuthorizer.RulesFor: the rules as ResourceRules and NonResourceRules, the missing
 * roles as errors */
static void test_rules_for(void **state)
{
        struct fixture *f = *state;
        cleanup_rbac struct rbac *r = NULL;
        cleanup_authn_user struct authn_user *sa =
                authn_user_new("system:serviceaccount:ns:sa", NULL, NULL);
        cleanup_authn_user struct authn_user *carol = authn_user_new("carol", NULL, NULL);
        struct authz_rules rules;
        cleanup_free char *err = NULL;
        cleanup_free char *text = NULL;

        assert_int_equal(rbac_new(f->store, &r, NULL), 0);
        authz_rules_init(&rules);
        authz_rbac_rules_for(r, sa, "ns", &rules);
        text = json_dumps(rules.resource_rules, JSON_COMPACT | JSON_SORT_KEYS);
        /* the ClusterRoleBinding's rules first, then the namespace's RoleBindings' */
        assert_string_equal(text,
                            "[{\"apiGroups\":[\"storage.k8s.io\"],"
                            "\"resources\":[\"storageclasses\"],\"verbs\":[\"get\"]},"
                            "{\"apiGroups\":[\"\"],\"resources\":[\"pods/resize\"],"
                            "\"verbs\":[\"patch\"]},"
                            "{\"apiGroups\":[\"\"],\"resources\":[\"pods\"],\"verbs\":[\"get\"]}]");
        assert_false(rules.incomplete);
        assert_int_equal(rules.n_errors, 0);
        authz_rules_release(&rules);

        authz_rules_init(&rules);
        authz_rbac_rules_for(r, carol, "ns", &rules);
        err = authz_rules_error_string(&rules);
        assert_string_equal(err, "[clusterrole.rbac.authorization.k8s.io \"gone\" not found, "
                                 "role.rbac.authorization.k8s.io \"gone\" not found]");
        authz_rules_release(&rules);
}

static void test_missing_roles(void **state)
{
        struct fixture *f = *state;
        cleanup_rbac struct rbac *r = NULL;
        cleanup_authn_user struct authn_user *carol = authn_user_new("carol", NULL, NULL);
        struct authz_attributes in_ns = attrs(carol, "get", "", "pods", "", "ns", "p");
        struct authz_attributes cluster = attrs(carol, "get", "", "nodes", "", "", "n");
        cleanup_free char *r1 = NULL, *r2 = NULL;

        assert_int_equal(rbac_new(f->store, &r, NULL), 0);
        assert_int_equal(rbac_authorize(r, &in_ns, &r1), AUTHZ_NO_OPINION);
        assert_string_equal(r1, "RBAC: [clusterrole.rbac.authorization.k8s.io \"gone\" not found, "
                                "role.rbac.authorization.k8s.io \"gone\" not found]");
        assert_int_equal(rbac_authorize(r, &cluster, &r2), AUTHZ_NO_OPINION);
        assert_string_equal(r2, "RBAC: clusterrole.rbac.authorization.k8s.io \"gone\" not found");
}

/* Asks until the decision is want, for at most about 10 s (the follower's pace is not
 * asserted, only that it gets there). */
static bool eventually(struct rbac *r, const struct authz_attributes *a, enum authz_decision want)
{
        for (int i = 0; i < 1000; i++) {
                cleanup_free char *reason = NULL;

                if (rbac_authorize(r, a, &reason) == want)
                        return true;
                (void) usleep(10000);
        }
        return false;
}

static void test_follows_the_store(void **state)
{
        struct fixture *f = *state;
        cleanup_rbac struct rbac *r = NULL;
        cleanup_authn_user struct authn_user *dave = authn_user_new("dave", NULL, NULL);
        struct authz_attributes a = attrs(dave, "list", "", "pods", "", "ns", "");

        assert_int_equal(rbac_new(f->store, &r, NULL), 0);
        assert_int_equal(rbac_authorize(r, &a, &(char *){ NULL }), AUTHZ_NO_OPINION);
        put(f->store, "rolebindings",
            "{\"metadata\":{\"namespace\":\"ns\",\"name\":\"dave\"},"
            "\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"Role\","
            "\"name\":\"pod-reader\"},\"subjects\":[{\"kind\":\"User\",\"name\":\"dave\"}]}");
        assert_true(eventually(r, &a, AUTHZ_ALLOW));
        /* the role loses the rule */
        {
                json_t *role = NULL;

                assert_int_equal(store_get(f->store, "roles", "ns", "pod-reader", &role, NULL), 0);
                json_object_set_new(role, "rules", json_array());
                assert_int_equal(store_update(f->store, "roles", "ns", "pod-reader", role, 0, NULL),
                                 1);
                json_decref(role);
        }
        assert_true(eventually(r, &a, AUTHZ_NO_OPINION));
        assert_int_equal(store_delete(f->store, "rolebindings", "ns", "dave", 0, NULL, NULL), 0);
        put(f->store, "clusterrolebindings",
            "{\"metadata\":{\"name\":\"dave\"},"
            "\"roleRef\":{\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"ClusterRole\","
            "\"name\":\"cm-editor\"},\"subjects\":[{\"kind\":\"User\",\"name\":\"dave\"}]}");
        a.resource = "configmaps";
        a.ns = "anywhere";
        assert_true(eventually(r, &a, AUTHZ_ALLOW));
        assert_int_equal(store_delete(f->store, "clusterrolebindings", "", "dave", 0, NULL, NULL),
                         0);
        assert_true(eventually(r, &a, AUTHZ_NO_OPINION));
}

/* K8S: policy_comparator_test.go, policy_compact_test.go, CompactString */
static void test_rule_comparison(void **state)
{
        static const struct {
                const char *owner, *servant, *missing;
        } cases[] = {
                /* exact, star, subresource through star-slash */
                { "[{\"verbs\":[\"get\",\"list\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\"]}]",
                  "[{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\"]}]", "[]" },
                { "[{\"verbs\":[\"*\"],\"apiGroups\":[\"*\"],\"resources\":[\"*\"]}]",
                  "[{\"verbs\":[\"patch\"],\"apiGroups\":[\"\"],\"resources\":[\"pods/resize\"]}]",
                  "[]" },
                { "[{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":[\"*/status\"]}]",
                  "[{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":[\"pods/status\"]}]",
                  "[]" },
                /* what is not held comes back broken down */
                { "[{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\"]}]",
                  "[{\"verbs\":[\"get\",\"create\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\","
                  "\"pods/resize\"]}]",
                  "[{\"verbs\":[\"create\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\"]},"
                  "{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":[\"pods/resize\"]},"
                  "{\"verbs\":[\"create\"],\"apiGroups\":[\"\"],\"resources\":[\"pods/resize\"]}]" },
                /* names: a rule with names does not cover one without */
                { "[{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":[\"cm\"],"
                  "\"resourceNames\":[\"a\"]}]",
                  "[{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":[\"cm\"]}]",
                  "[{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":[\"cm\"]}]" },
                /* URLs: prefix star */
                { "[{\"verbs\":[\"get\"],\"nonResourceURLs\":[\"/api/*\"]}]",
                  "[{\"verbs\":[\"get\"],\"nonResourceURLs\":[\"/api/v1\",\"/apis\"]}]",
                  "[{\"verbs\":[\"get\"],\"nonResourceURLs\":[\"/apis\"]}]" },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                cleanup_json json_t *owner = json_loads(cases[i].owner, 0, NULL);
                cleanup_json json_t *servant = json_loads(cases[i].servant, 0, NULL);
                cleanup_json json_t *want = json_loads(cases[i].missing, 0, NULL);
                cleanup_json json_t *missing = NULL;
                bool all = rbac_rules_cover(owner, servant, &missing);

                assert_non_null(owner);
                assert_non_null(want);
                if (all != (json_array_size(want) == 0) || !json_equal(missing, want)) {
                        cleanup_free char *got = json_dumps(missing, JSON_COMPACT);
                        fail_msg("case %zu: missing %s, want %s", i, got, cases[i].missing);
                }
        }
        /* compacted by verb, and CompactString's spelling */
        {
                cleanup_json json_t *rules = json_loads(
                        "[{\"verbs\":[\"create\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\"]},"
                        "{\"verbs\":[\"get\"],\"nonResourceURLs\":[\"/x\"]},"
                        "{\"verbs\":[\"delete\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\"]},"
                        "{\"verbs\":[\"get\"],\"apiGroups\":[\"apps\"],\"resources\":[\"deployments\"],"
                        "\"resourceNames\":[\"d\"]}]",
                        0, NULL);
                cleanup_json json_t *compact = rbac_rules_compact(rules);
                cleanup_free char *a = NULL, *b = NULL, *c = NULL;

                assert_int_equal(json_array_size(compact), 3);
                a = rbac_rule_compact_string(json_array_get(compact, 0));
                b = rbac_rule_compact_string(json_array_get(compact, 1));
                c = rbac_rule_compact_string(json_array_get(compact, 2));
                assert_string_equal(a, "{NonResourceURLs:[\"/x\"], Verbs:[\"get\"]}");
                assert_string_equal(
                        b,
                        "{APIGroups:[\"\"], Resources:[\"pods\"], Verbs:[\"create\" \"delete\"]}");
                assert_string_equal(c, "{APIGroups:[\"apps\"], Resources:[\"deployments\"], "
                                       "ResourceNames:[\"d\"], Verbs:[\"get\"]}");
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_decisions, setup, teardown),
                cmocka_unit_test_setup_teardown(test_allowed_by, setup, teardown),
                cmocka_unit_test_setup_teardown(test_rules_for, setup, teardown),
                cmocka_unit_test_setup_teardown(test_missing_roles, setup, teardown),
                cmocka_unit_test_setup_teardown(test_follows_the_store, setup, teardown),
                cmocka_unit_test(test_rule_comparison),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
