/* test-authz-node.c: the Node authorization mode's decisions and reasons (K8S
 * plugin/pkg/auth/authorizer/node node_authorizer_test.go's shapes) over a real store: secrets
 * through pods, own Node and Lease, pods by spec.nodeName, NodeRules for the rest, and no
 * opinion for users who are no node. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "apiserver/authn.h"
#include "apiserver/authz-node.h"
#include "base/alloc.h"
#include "base/json.h"
#include "store/store.h"

static char dir[64];
static struct store *store;
static void *self;

static int setup(void **state)
{
        cleanup_free char *db = NULL;
        struct error *err = NULL;
        const struct authz_context ctx = { .store = NULL };
        struct authz_context real;
        cleanup_json json_t *pod = json_loads(
                "{\"metadata\":{\"name\":\"web\",\"namespace\":\"ns\"},\"spec\":{\"nodeName\":"
                "\"n1\",\"serviceAccountName\":\"sa\",\"volumes\":[{\"name\":\"s\",\"secret\":{"
                "\"secretName\":\"s1\"}}]}}",
                0, NULL);

        strcpy(dir, "/tmp/flexlet-test-authz-node.XXXXXX");
        assert_non_null(mkdtemp(dir));
        db = xasprintf("%s/store.db", dir);
        assert_int_equal(store_open_sqlite(db, &store, &err), 0);
        cleanup_json json_t *pv = json_loads(
                "{\"metadata\":{\"name\":\"local\"},\"spec\":{\"nodeAffinity\":{\"required\":{"
                "\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"kubernetes.io/hostname\","
                "\"operator\":\"In\",\"values\":[\"n1\"]}]}]}}}}",
                0, NULL);

        assert_int_equal(store_create(store, "pods", "ns", "web", pod, NULL), 0);
        /* a node-local volume pinned to n1, used by no pod */
        assert_int_equal(store_create(store, "persistentvolumes", "", "local", pv, NULL), 0);
        /* the mode needs the store */
        assert_true(authz_node_new(&ctx, &self, &err) < 0);
        error_free(err);
        real = (struct authz_context){ .store = store };
        assert_int_equal(authz_node_new(&real, &self, NULL), 0);
        return 0;
}

static int teardown(void **state)
{
        cleanup_free char *cmd = xasprintf("rm -rf '%s'", dir);

        authz_node_free(self);
        store_close(store);
        assert_int_equal(system(cmd), 0);
        return 0;
}

struct az_case {
        const char *user, *verb, *group, *resource, *sub, *ns, *name, *sel;
        enum authz_decision want;
        const char *reason; /* NULL: none */
};

static void check(const struct az_case *c)
{
        static const char *const nodes[] = { "system:nodes", NULL };
        cleanup_authn_user struct authn_user *u = authn_user_new(c->user, NULL, nodes);
        cleanup_free char *reason = NULL;
        struct authz_attributes a = { .user = u,
                                      .verb = c->verb,
                                      .resource_request = true,
                                      .api_group = c->group,
                                      .api_version = "v1",
                                      .resource = c->resource,
                                      .subresource = c->sub,
                                      .ns = c->ns,
                                      .name = c->name,
                                      .path = "/",
                                      .field_selector = c->sel };
        enum authz_decision got = authz_node_authorize(self, &a, &reason);

        if (got != c->want || (c->reason ? !reason || strcmp(reason, c->reason) : reason != NULL))
                fail_msg("%s %s %s/%s %s: got %d \"%s\", want %d \"%s\"", c->user, c->verb,
                         c->resource, c->sub, c->name, got, reason ?: "(none)", c->want,
                         c->reason ?: "(none)");
}

static void test_decisions(void **state)
{
        static const char norel[] = "no relationship found between node 'n1' and this object";
        static const struct az_case cases[] = {
                { "system:node:n1", "get", "", "secrets", "", "ns", "s1", "", AUTHZ_ALLOW, NULL },
                { "system:node:n2", "get", "", "secrets", "", "ns", "s1", "", AUTHZ_NO_OPINION,
                  "no relationship found between node 'n2' and this object" },
                { "system:node:n1", "get", "", "secrets", "", "ns", "s2", "", AUTHZ_NO_OPINION,
                  norel },
                { "system:node:n1", "watch", "", "secrets", "", "ns", "s1", "", AUTHZ_ALLOW, NULL },
                { "system:node:n1", "list", "", "secrets", "", "ns", "", "", AUTHZ_NO_OPINION,
                  "No Object name found" },
                { "system:node:n1", "list", "", "secrets", "", "", "", "", AUTHZ_NO_OPINION,
                  "can only read namespaced object of this type" },
                { "system:node:n1", "update", "", "secrets", "", "ns", "s1", "", AUTHZ_NO_OPINION,
                  "can only read resources of this type" },
                { "system:node:n1", "create", "", "serviceaccounts", "token", "ns", "sa", "",
                  AUTHZ_ALLOW, NULL },
                { "system:node:n1", "create", "", "serviceaccounts", "token", "ns", "other", "",
                  AUTHZ_NO_OPINION, norel },
                { "system:node:n1", "get", "", "serviceaccounts", "", "ns", "sa", "",
                  AUTHZ_NO_OPINION, "can only create tokens for individual service accounts" },
                { "system:node:n1", "get", "", "persistentvolumeclaims", "", "ns", "c", "",
                  AUTHZ_NO_OPINION, norel },
                { "system:node:n1", "get", "", "persistentvolumes", "", "", "local", "",
                  AUTHZ_ALLOW, NULL },
                { "system:node:n1", "patch", "", "persistentvolumes", "", "", "local", "",
                  AUTHZ_ALLOW, NULL },
                { "system:node:n1", "update", "", "persistentvolumes", "", "", "local", "",
                  AUTHZ_ALLOW, NULL },
                { "system:node:n2", "get", "", "persistentvolumes", "", "", "local", "",
                  AUTHZ_NO_OPINION, "no relationship found between node 'n2' and this object" },
                { "system:node:n2", "patch", "", "persistentvolumes", "", "", "local", "",
                  AUTHZ_NO_OPINION, "no relationship found between node 'n2' and this object" },
                { "system:node:n1", "delete", "", "persistentvolumes", "", "", "local", "",
                  AUTHZ_NO_OPINION, "can only get individual resources of this type" },
                { "system:node:n1", "patch", "", "persistentvolumes", "status", "", "local", "",
                  AUTHZ_NO_OPINION, "can only get individual resources of this type" },
                { "system:node:n1", "list", "", "persistentvolumes", "", "", "", "",
                  AUTHZ_NO_OPINION, "can only get individual resources of this type" },
                { "system:node:n1", "get", "", "persistentvolumeclaims", "status", "ns", "c", "",
                  AUTHZ_NO_OPINION, "can only get/update/patch this type" },
                { "system:node:n1", "get", "", "pods", "", "ns", "web", "", AUTHZ_ALLOW, NULL },
                { "system:node:n2", "get", "", "pods", "", "ns", "web", "", AUTHZ_NO_OPINION,
                  "no relationship found between node 'n2' and this object" },
                { "system:node:n1", "list", "", "pods", "", "", "", "spec.nodeName=n1", AUTHZ_ALLOW,
                  NULL },
                { "system:node:n1", "watch", "", "pods", "", "", "", "a=b,spec.nodeName==n1",
                  AUTHZ_ALLOW, NULL },
                { "system:node:n1", "list", "", "pods", "", "", "", "spec.nodeName=n12",
                  AUTHZ_NO_OPINION, "can only list/watch pods with spec.nodeName field selector" },
                { "system:node:n1", "list", "", "pods", "", "", "", "spec.nodeName!=n1",
                  AUTHZ_NO_OPINION, "can only list/watch pods with spec.nodeName field selector" },
                { "system:node:n1", "patch", "", "pods", "", "ns", "web", "", AUTHZ_NO_OPINION,
                  NULL },
                { "system:node:n1", "patch", "", "pods", "status", "ns", "web", "", AUTHZ_ALLOW,
                  NULL },
                { "system:node:n1", "patch", "", "pods", "resize", "ns", "web", "",
                  AUTHZ_NO_OPINION, NULL },
                { "system:node:n1", "create", "", "pods", "eviction", "ns", "web", "", AUTHZ_ALLOW,
                  NULL },
                { "system:node:n1", "get", "", "nodes", "", "", "n1", "", AUTHZ_ALLOW, NULL },
                { "system:node:n1", "get", "", "nodes", "", "", "n2", "", AUTHZ_NO_OPINION,
                  "node 'n1' cannot read 'n2', only its own Node object" },
                { "system:node:n1", "list", "", "nodes", "", "", "", "", AUTHZ_NO_OPINION,
                  "node 'n1' cannot read all nodes, only its own Node object" },
                { "system:node:n1", "patch", "", "nodes", "status", "", "n2", "", AUTHZ_ALLOW,
                  NULL },
                { "system:node:n1", "delete", "", "nodes", "", "", "n1", "", AUTHZ_NO_OPINION,
                  NULL },
                { "system:node:n1", "update", "coordination.k8s.io", "leases", "",
                  "kube-node-lease", "n1", "", AUTHZ_ALLOW, NULL },
                { "system:node:n1", "update", "coordination.k8s.io", "leases", "",
                  "kube-node-lease", "n2", "", AUTHZ_NO_OPINION,
                  "can only access node lease with the same name as the requesting node" },
                { "system:node:n1", "get", "coordination.k8s.io", "leases", "", "default", "n1", "",
                  AUTHZ_NO_OPINION,
                  "can only access leases in the \"kube-node-lease\" system namespace" },
                { "system:node:n1", "create", "", "events", "", "ns", "", "", AUTHZ_ALLOW, NULL },
                { "system:node:n1", "delete", "", "events", "", "ns", "e", "", AUTHZ_NO_OPINION,
                  NULL },
                { "system:node:n1", "list", "", "services", "", "", "", "", AUTHZ_ALLOW, NULL },
                { "system:node:n1", "get", "", "namespaces", "", "", "ns", "", AUTHZ_NO_OPINION,
                  NULL },
                { "system:node:", "get", "", "nodes", "", "", "", "", AUTHZ_NO_OPINION,
                  "unknown node for user \"system:node:\"" },
                { "alice", "get", "", "secrets", "", "ns", "s1", "", AUTHZ_NO_OPINION, NULL },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++)
                check(&cases[i]);
}

static void test_selects_node(void **state)
{
        assert_true(authz_node_selects_node("spec.nodeName=n1", "n1"));
        assert_true(authz_node_selects_node("metadata.name=x,spec.nodeName==n1", "n1"));
        assert_false(authz_node_selects_node("spec.nodeName=n1x", "n1"));
        assert_false(authz_node_selects_node("spec.nodeNamex=n1", "n1"));
        assert_false(authz_node_selects_node("spec.nodeName!=n1", "n1"));
        assert_false(authz_node_selects_node("", "n1"));
        assert_false(authz_node_selects_node(NULL, "n1"));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_decisions, setup, teardown),
                cmocka_unit_test(test_selects_node),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
