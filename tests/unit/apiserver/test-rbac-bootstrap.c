/* test-rbac-bootstrap.c: the bootstrap policy reconciled into a real store and decided by the
 * RBAC resolver: what each of flexlet's own identities (the scheduler, the controller manager,
 * each controller's kube-system service account) may do, and, as much, what it may not
 * (least privilege: no Secret read, no namespace delete, no ClusterRoleBinding create for those
 * whose upstream role holds none), and that a second reconciliation changes nothing. */
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

static int setup(void **state)
{
        struct fixture *f = xcalloc(1, sizeof(*f));
        cleanup_free char *db = NULL;

        strcpy(f->dir, "/tmp/flexlet-test-rbac-bootstrap.XXXXXX");
        assert_non_null(mkdtemp(f->dir));
        db = xasprintf("%s/store.db", f->dir);
        assert_int_equal(store_open_sqlite(db, &f->store, NULL), 0);
        assert_int_equal(rbac_bootstrap_reconcile(f->store, NULL), 0);
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

enum who {
        SCHEDULER,
        MANAGER,
        RS,
        DEPLOY,
        NS_CTRL,
        GC,
        JOB,
        TTL,
        TOKEN_CLEANER,
        AGGREGATION,
        PVC_PROTECTION,
        PV_BINDER,
        EXPAND,
        NODE_CTRL,
        SA_CTRL,
        ROOT_CA,
        QUOTA,
        DISRUPTION,
        WHO_MAX
};

static const char *const names[WHO_MAX] = {
        [SCHEDULER] = "system:kube-scheduler",
        [MANAGER] = "system:kube-controller-manager",
        [RS] = "system:serviceaccount:kube-system:replicaset-controller",
        [DEPLOY] = "system:serviceaccount:kube-system:deployment-controller",
        [NS_CTRL] = "system:serviceaccount:kube-system:namespace-controller",
        [GC] = "system:serviceaccount:kube-system:generic-garbage-collector",
        [JOB] = "system:serviceaccount:kube-system:job-controller",
        [TTL] = "system:serviceaccount:kube-system:ttl-after-finished-controller",
        [TOKEN_CLEANER] = "system:serviceaccount:kube-system:token-cleaner",
        [AGGREGATION] = "system:serviceaccount:kube-system:clusterrole-aggregation-controller",
        [PVC_PROTECTION] = "system:serviceaccount:kube-system:pvc-protection-controller",
        [PV_BINDER] = "system:serviceaccount:kube-system:persistent-volume-binder",
        [EXPAND] = "system:serviceaccount:kube-system:expand-controller",
        [NODE_CTRL] = "system:serviceaccount:kube-system:node-controller",
        [SA_CTRL] = "system:serviceaccount:kube-system:service-account-controller",
        [ROOT_CA] = "system:serviceaccount:kube-system:root-ca-cert-publisher",
        [QUOTA] = "system:serviceaccount:kube-system:resourcequota-controller",
        [DISRUPTION] = "system:serviceaccount:kube-system:disruption-controller",
};

static void test_component_rules(void **state)
{
        static const char *const sa_groups[] = { "system:serviceaccounts",
                                                 "system:serviceaccounts:kube-system", NULL };
        static const struct {
                enum who who;
                const char *verb, *group, *resource, *sub, *ns;
                bool allowed;
        } cases[] = {
                /* the scheduler: binds, writes pod status and claims, reads nodes */
                { SCHEDULER, "create", "", "pods", "binding", "ns", true },
                { SCHEDULER, "patch", "", "pods", "status", "ns", true },
                { SCHEDULER, "patch", "", "persistentvolumeclaims", "", "ns", true },
                { SCHEDULER, "list", "", "nodes", "", "", true },
                { SCHEDULER, "get", "", "secrets", "", "ns", false },
                { SCHEDULER, "delete", "", "namespaces", "", "", false },
                { SCHEDULER, "create", "", "pods", "", "ns", false },
                { SCHEDULER, "create", "rbac.authorization.k8s.io", "clusterrolebindings", "", "",
                  false },
                /* the controller manager: lists and watches everything, makes accounts and
                 * tokens, writes no workload */
                { MANAGER, "watch", "apps", "deployments", "", "", true },
                { MANAGER, "create", "", "serviceaccounts", "token", "kube-system", true },
                { MANAGER, "create", "", "serviceaccounts", "", "kube-system", true },
                { MANAGER, "delete", "", "pods", "", "ns", false },
                { MANAGER, "create", "rbac.authorization.k8s.io", "clusterrolebindings", "", "",
                  false },
                /* each controller: its own writes and nothing else */
                { RS, "create", "", "pods", "", "ns", true },
                { RS, "update", "apps", "replicasets", "status", "ns", true },
                { RS, "get", "", "secrets", "", "ns", false },
                { RS, "delete", "apps", "deployments", "", "ns", false },
                { RS, "create", "rbac.authorization.k8s.io", "clusterrolebindings", "", "", false },
                { DEPLOY, "create", "apps", "replicasets", "", "ns", true },
                { DEPLOY, "patch", "apps", "deployments", "", "ns", true },
                { DEPLOY, "create", "apps", "deployments", "", "ns", false },
                { DEPLOY, "create", "", "pods", "", "ns", false },
                { NS_CTRL, "deletecollection", "apps", "deployments", "", "ns", true },
                { NS_CTRL, "update", "", "namespaces", "finalize", "ns", true },
                { NS_CTRL, "create", "", "pods", "", "ns", false },
                { GC, "delete", "batch", "jobs", "", "ns", true },
                { GC, "create", "", "pods", "", "ns", false },
                { JOB, "create", "", "pods", "", "ns", true },
                { JOB, "delete", "batch", "jobs", "", "ns", false },
                { TTL, "delete", "batch", "jobs", "", "ns", true },
                { TTL, "delete", "", "pods", "", "ns", false },
                /* a Role in kube-system, not beyond */
                { TOKEN_CLEANER, "delete", "", "secrets", "", "kube-system", true },
                { TOKEN_CLEANER, "delete", "", "secrets", "", "default", false },
                { AGGREGATION, "update", "rbac.authorization.k8s.io", "clusterroles", "", "",
                  true },
                { AGGREGATION, "escalate", "rbac.authorization.k8s.io", "clusterroles", "", "",
                  true },
                { AGGREGATION, "create", "rbac.authorization.k8s.io", "clusterrolebindings", "", "",
                  false },
                /* one flexlet controller protects both claims and volumes */
                { PVC_PROTECTION, "update", "", "persistentvolumeclaims", "", "ns", true },
                { PVC_PROTECTION, "update", "", "persistentvolumes", "", "", true },
                { PVC_PROTECTION, "delete", "", "persistentvolumes", "", "", false },
                { PV_BINDER, "create", "", "persistentvolumes", "", "", true },
                { PV_BINDER, "get", "", "nodes", "", "", true },
                { PV_BINDER, "get", "", "secrets", "", "ns", false },
                { EXPAND, "update", "", "persistentvolumeclaims", "status", "ns", true },
                { EXPAND, "update", "", "persistentvolumeclaims", "", "ns", false },
                { NODE_CTRL, "patch", "", "nodes", "", "", true },
                { NODE_CTRL, "delete", "", "pods", "", "ns", true },
                { NODE_CTRL, "create", "", "pods", "", "ns", false },
                { SA_CTRL, "create", "", "serviceaccounts", "", "ns", true },
                { SA_CTRL, "create", "", "serviceaccounts", "token", "ns", false },
                { ROOT_CA, "create", "", "configmaps", "", "ns", true },
                { ROOT_CA, "delete", "", "configmaps", "", "ns", false },
                { QUOTA, "update", "", "resourcequotas", "status", "ns", true },
                { QUOTA, "update", "", "resourcequotas", "", "ns", false },
                { DISRUPTION, "update", "policy", "poddisruptionbudgets", "status", "ns", true },
                { DISRUPTION, "delete", "", "pods", "", "ns", false },
        };
        struct fixture *f = *state;
        cleanup_rbac struct rbac *r = NULL;
        struct authn_user *users[WHO_MAX];

        assert_int_equal(rbac_new(f->store, &r, NULL), 0);
        for (size_t i = 0; i < WHO_MAX; i++)
                users[i] = authn_user_new(
                        names[i], NULL,
                        strncmp(names[i], "system:serviceaccount:", 22) == 0 ? sa_groups : NULL);
        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                cleanup_free char *reason = NULL;
                const struct authz_attributes a = { .user = users[cases[i].who],
                                                    .verb = cases[i].verb,
                                                    .resource_request = true,
                                                    .api_group = cases[i].group,
                                                    .api_version = "v1",
                                                    .resource = cases[i].resource,
                                                    .subresource = cases[i].sub,
                                                    .ns = cases[i].ns,
                                                    .name = "",
                                                    .path = "/x",
                                                    .field_selector = "" };
                bool allowed = rbac_authorize(r, &a, &reason) == AUTHZ_ALLOW;

                if (allowed != cases[i].allowed)
                        fail_msg("case %zu: %s %s %s/%s%s%s in \"%s\": %s, want %s", i,
                                 names[cases[i].who], cases[i].verb, cases[i].group,
                                 cases[i].resource, *cases[i].sub ? "/" : "", cases[i].sub,
                                 cases[i].ns, allowed ? "allowed" : "refused",
                                 cases[i].allowed ? "allowed" : "refused");
        }
        for (size_t i = 0; i < WHO_MAX; i++)
                authn_user_free(users[i]);
}

/* Every system:controller: ClusterRole has its binding to the kube-system service account of
 * its name (upstream's addControllerRole), and reconciling again writes nothing. */
static void test_bindings_and_idempotence(void **state)
{
        struct fixture *f = *state;
        cleanup_json json_t *roles = rbac_bootstrap_cluster_roles();
        cleanup_json json_t *bindings = rbac_bootstrap_cluster_role_bindings();
        uint64_t before, after;
        size_t i, n = 0;
        json_t *role;

        json_array_foreach(roles, i, role) {
                const char *name = json_path_string(role, "metadata.name");
                size_t j;
                json_t *b;
                bool found = false;

                if (strncmp(name, "system:controller:", 18) != 0)
                        continue;
                n++;
                json_array_foreach(bindings, j, b) {
                        const json_t *s = json_array_get(json_object_get(b, "subjects"), 0);

                        if (streq(json_path_string(b, "roleRef.name"), name) &&
                            streq(json_path_string_or_empty(s, "kind"), "ServiceAccount") &&
                            streq(json_path_string_or_empty(s, "namespace"), "kube-system") &&
                            streq(json_path_string_or_empty(s, "name"), name + 18))
                                found = true;
                }
                if (!found)
                        fail_msg("%s has no binding to kube-system/%s", name, name + 18);
        }
        assert_true(n >= 16);
        before = store_current_rv(f->store);
        assert_int_equal(rbac_bootstrap_reconcile(f->store, NULL), 0);
        after = store_current_rv(f->store);
        assert_int_equal(before, after);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_component_rules, setup, teardown),
                cmocka_unit_test_setup_teardown(test_bindings_and_idempotence, setup, teardown),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
