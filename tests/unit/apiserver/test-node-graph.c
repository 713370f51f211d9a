/* test-node-graph.c: who is a node (K8S nodeidentifier), what a pod refers to (podutil's
 * visitors and the graph's claim edges), and the node -> object relationships over a real
 * store as pods are bound, moved and deleted. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apiserver/authn.h"
#include "apiserver/node-graph.h"
#include "base/alloc.h"
#include "base/json.h"
#include "store/store.h"

static void test_identity(void **state)
{
        static const char *const nodes[] = { "system:nodes", NULL };
        static const char *const others[] = { "system:masters", NULL };
        cleanup_authn_user struct authn_user *n1 = authn_user_new("system:node:n1", NULL, nodes);
        cleanup_authn_user struct authn_user *bare = authn_user_new("system:node:", NULL, nodes);
        cleanup_authn_user struct authn_user *no_group =
                authn_user_new("system:node:n1", NULL, others);
        cleanup_authn_user struct authn_user *alice = authn_user_new("alice", NULL, nodes);
        const char *name = "unset";

        assert_true(node_identity(n1, &name));
        assert_string_equal(name, "n1");
        assert_true(node_identity(bare, &name));
        assert_string_equal(name, "");
        name = "unset";
        assert_false(node_identity(no_group, &name));
        assert_false(node_identity(alice, &name));
        assert_false(node_identity(NULL, &name));
        assert_string_equal(name, "unset");
}

static const char pod_json[] =
        "{\"metadata\":{\"name\":\"web\",\"namespace\":\"ns\"},\"spec\":{\"nodeName\":\"n1\","
        "\"serviceAccountName\":\"sa\",\"imagePullSecrets\":[{\"name\":\"pull\"}],"
        "\"initContainers\":[{\"name\":\"i\",\"env\":[{\"name\":\"A\",\"valueFrom\":{"
        "\"secretKeyRef\":{\"name\":\"init-env\",\"key\":\"k\"}}}]}],"
        "\"containers\":[{\"name\":\"c\",\"envFrom\":[{\"secretRef\":{\"name\":\"env-from\"}},"
        "{\"configMapRef\":{\"name\":\"cm-from\"}}],\"env\":[{\"name\":\"B\",\"valueFrom\":{"
        "\"configMapKeyRef\":{\"name\":\"cm-env\",\"key\":\"k\"}}},{\"name\":\"C\",\"value\":"
        "\"x\"}]}],"
        "\"ephemeralContainers\":[{\"name\":\"e\",\"envFrom\":[{\"secretRef\":{\"name\":"
        "\"eph\"}}]}],"
        "\"volumes\":[{\"name\":\"s\",\"secret\":{\"secretName\":\"vol\"}},"
        "{\"name\":\"cm\",\"configMap\":{\"name\":\"cm-vol\"}},"
        "{\"name\":\"p\",\"projected\":{\"sources\":[{\"secret\":{\"name\":\"proj\"}},"
        "{\"configMap\":{\"name\":\"cm-proj\"}},{\"downwardAPI\":{}}]}},"
        "{\"name\":\"csi\",\"csi\":{\"driver\":\"d\",\"nodePublishSecretRef\":{\"name\":"
        "\"csi\"}}},"
        "{\"name\":\"claim\",\"persistentVolumeClaim\":{\"claimName\":\"data\"}},"
        "{\"name\":\"scratch\",\"ephemeral\":{\"volumeClaimTemplate\":{}}}]}}";

static bool collect(void *ud, const char *name)
{
        struct strbuf_like {
                char buf[512];
        } *out = ud;

        if (out->buf[0])
                strcat(out->buf, " ");
        strcat(out->buf, name);
        return true;
}

static void test_visit(void **state)
{
        static const struct {
                enum node_vertex kind;
                const char *want;
        } cases[] = {
                { NODE_VERTEX_SECRET, "pull init-env env-from eph vol proj csi" },
                { NODE_VERTEX_CONFIGMAP, "cm-from cm-env cm-vol cm-proj" },
                { NODE_VERTEX_PVC, "data web-scratch" },
                { NODE_VERTEX_SERVICEACCOUNT, "sa" },
                { NODE_VERTEX_POD, "" },
        };
        cleanup_json json_t *pod = json_loads(pod_json, 0, NULL);

        assert_non_null(pod);
        for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
                struct {
                        char buf[512];
                } out = { "" };

                assert_true(node_pod_visit(pod, cases[i].kind, collect, &out));
                if (strcmp(out.buf, cases[i].want) != 0)
                        fail_msg("kind %d: got \"%s\", want \"%s\"", (int) cases[i].kind, out.buf,
                                 cases[i].want);
        }
        assert_true(node_pod_refers(pod, NODE_VERTEX_SECRET, "proj"));
        assert_false(node_pod_refers(pod, NODE_VERTEX_SECRET, "cm-vol"));
        assert_true(node_pod_refers(pod, NODE_VERTEX_CONFIGMAP, "cm-vol"));
        assert_false(node_pod_refers(pod, NODE_VERTEX_PVC, "scratch"));
}

static void test_reach(void **state)
{
        cleanup_json json_t *pods = json_pack("[o]", json_loads(pod_json, 0, NULL));

        assert_true(node_pods_reach(pods, "n1", NODE_VERTEX_SECRET, "ns", "vol"));
        assert_false(node_pods_reach(pods, "n2", NODE_VERTEX_SECRET, "ns", "vol"));
        /* the same name in another namespace is another object */
        assert_false(node_pods_reach(pods, "n1", NODE_VERTEX_SECRET, "other", "vol"));
        assert_false(node_pods_reach(pods, "n1", NODE_VERTEX_SECRET, "ns", "nope"));
        assert_true(node_pods_reach(pods, "n1", NODE_VERTEX_PVC, "ns", "data"));
}

struct fixture {
        char dir[64];
        struct store *store;
};

static void put(struct store *s, const char *resource, const char *ns, const char *json)
{
        cleanup_json json_t *obj = json_loads(json, 0, NULL);
        cleanup_json json_t *old = NULL;
        const char *name;

        assert_non_null(obj);
        name = json_path_string(obj, "metadata.name");
        if (store_get(s, resource, ns, name, &old, NULL) == 0)
                assert_true(store_update(s, resource, ns, name, obj, 0, NULL) >= 0);
        else
                assert_int_equal(store_create(s, resource, ns, name, obj, NULL), 0);
}

static bool has_path(struct store *s, const char *node, enum node_vertex kind, const char *ns,
                     const char *name)
{
        cleanup_error struct error *err = NULL;
        bool ok = true;

        assert_int_equal(node_graph_has_path(s, node, kind, ns, name, &ok, &err), 0);
        return ok;
}

static void test_store(void **state)
{
        struct fixture fx = { .dir = "/tmp/flexlet-test-node-graph.XXXXXX" };
        cleanup_free char *db = NULL, *cmd = NULL;
        cleanup_error struct error *err = NULL;
        struct store *s;

        assert_non_null(mkdtemp(fx.dir));
        db = xasprintf("%s/store.db", fx.dir);
        assert_int_equal(store_open_sqlite(db, &fx.store, &err), 0);
        s = fx.store;
        put(s, "pods", "ns",
            "{\"metadata\":{\"name\":\"web\",\"namespace\":\"ns\"},\"spec\":{\"containers\":[{"
            "\"name\":\"c\",\"envFrom\":[{\"secretRef\":{\"name\":\"db\"}}]}],\"volumes\":[{"
            "\"name\":\"v\",\"persistentVolumeClaim\":{\"claimName\":\"data\"}}]}}");
        put(s, "persistentvolumes", "",
            "{\"metadata\":{\"name\":\"pv1\"},\"spec\":{\"claimRef\":{\"namespace\":\"ns\","
            "\"name\":\"data\"}}}");
        put(s, "persistentvolumes", "", "{\"metadata\":{\"name\":\"pv2\"},\"spec\":{}}");

        /* not bound yet: nothing */
        assert_false(has_path(s, "n1", NODE_VERTEX_POD, "ns", "web"));
        assert_false(has_path(s, "n1", NODE_VERTEX_SECRET, "ns", "db"));
        /* bound to n1 */
        put(s, "pods", "ns",
            "{\"metadata\":{\"name\":\"web\",\"namespace\":\"ns\"},\"spec\":{\"nodeName\":\"n1\","
            "\"containers\":[{\"name\":\"c\",\"envFrom\":[{\"secretRef\":{\"name\":\"db\"}}]}],"
            "\"volumes\":[{\"name\":\"v\",\"persistentVolumeClaim\":{\"claimName\":\"data\"}}]}}");
        assert_true(has_path(s, "n1", NODE_VERTEX_POD, "ns", "web"));
        assert_true(has_path(s, "n1", NODE_VERTEX_SECRET, "ns", "db"));
        assert_true(has_path(s, "n1", NODE_VERTEX_PVC, "ns", "data"));
        assert_true(has_path(s, "n1", NODE_VERTEX_PV, "", "pv1"));
        assert_false(has_path(s, "n1", NODE_VERTEX_PV, "", "pv2"));
        assert_false(has_path(s, "n1", NODE_VERTEX_PV, "", "absent"));
        assert_false(has_path(s, "n2", NODE_VERTEX_SECRET, "ns", "db"));
        assert_false(has_path(s, "n1", NODE_VERTEX_SECRET, "ns", "other"));
        assert_false(has_path(s, "", NODE_VERTEX_SECRET, "ns", "db"));
        /* moved to n2 (deleted and made again elsewhere) */
        assert_int_equal(store_delete(s, "pods", "ns", "web", 0, NULL, NULL), 0);
        assert_false(has_path(s, "n1", NODE_VERTEX_SECRET, "ns", "db"));
        put(s, "pods", "ns",
            "{\"metadata\":{\"name\":\"web\",\"namespace\":\"ns\"},\"spec\":{\"nodeName\":\"n2\","
            "\"containers\":[{\"name\":\"c\",\"envFrom\":[{\"secretRef\":{\"name\":\"db\"}}]}]}}");
        assert_false(has_path(s, "n1", NODE_VERTEX_SECRET, "ns", "db"));
        assert_true(has_path(s, "n2", NODE_VERTEX_SECRET, "ns", "db"));
        assert_false(has_path(s, "n2", NODE_VERTEX_PV, "", "pv1"));

        /* the graph in memory follows the same changes through its watch */
        {
                struct node_graph *g = NULL;
                bool ok = false;

                assert_int_equal(node_graph_new(s, &g, NULL), 0);
                assert_int_equal(
                        node_graph_lookup(g, "n2", NODE_VERTEX_SECRET, "ns", "db", &ok, NULL), 0);
                assert_true(ok);
                assert_int_equal(store_delete(s, "pods", "ns", "web", 0, NULL, NULL), 0);
                /* a deletion reaches the graph when the watch delivers it */
                for (int i = 0; i < 200 && ok; i++) {
                        (void) usleep(10 * 1000);
                        assert_int_equal(node_graph_lookup(g, "n2", NODE_VERTEX_SECRET, "ns", "db",
                                                           &ok, NULL),
                                         0);
                }
                assert_false(ok);
                /* a new pod is seen at once (a miss asks the store) */
                put(s, "pods", "ns",
                    "{\"metadata\":{\"name\":\"w2\",\"namespace\":\"ns\"},\"spec\":{"
                    "\"nodeName\":\"n1\",\"volumes\":[{\"name\":\"v\",\"persistentVolumeClaim\":{"
                    "\"claimName\":\"data\"}}]}}");
                assert_int_equal(node_graph_lookup(g, "n1", NODE_VERTEX_PV, "", "pv1", &ok, NULL),
                                 0);
                assert_true(ok);
                assert_int_equal(node_graph_lookup(g, "n2", NODE_VERTEX_PV, "", "pv1", &ok, NULL),
                                 0);
                assert_false(ok);
                node_graph_free(g);
        }
        store_close(fx.store);
        cmd = xasprintf("rm -rf '%s'", fx.dir);
        assert_int_equal(system(cmd), 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_identity),
                cmocka_unit_test(test_visit),
                cmocka_unit_test(test_reach),
                cmocka_unit_test(test_store),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
