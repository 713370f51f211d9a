/* test-admission-noderestriction.c: NodeRestriction's decisions (K8S
 * plugin/pkg/admission/noderestriction admission_test.go's cases, in upstream's words): which
 * writes of system:node:n1 pass and which are refused, and why. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "apiserver/admission-noderestriction.h"
#include "base/json.h"

#define POD_N1 \
 "{\"metadata\":{\"name\":\"p\",\"labels\":{\"a\":\"1\"}},\"spec\":{\"nodeName\":\"n1\"}}"
#define POD_N2 \
 "{\"metadata\":{\"name\":\"p\",\"labels\":{\"a\":\"1\"}},\"spec\":{\"nodeName\":\"n2\"}}"
#define MIRROR(extra)                                                                     \
 "{\"metadata\":{\"name\":\"m\",\"annotations\":{\"kubernetes.io/config.mirror\":\"x\"}," \
 "\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"name\":\"n1\","         \
 "\"uid\":\"u1\",\"controller\":true}]},\"spec\":{\"nodeName\":\"n1\"" extra "}}"
#define NODE_N1 "{\"metadata\":{\"name\":\"n1\",\"uid\":\"u1\"}}"
#define PVC                                                                                  \
 "{\"metadata\":{\"name\":\"c\",\"resourceVersion\":\"1\"},\"spec\":{\"volumeName\":\"v\"}," \
 "\"status\":{\"phase\":\"Bound\",\"capacity\":{\"storage\":\"1Gi\"}}}"

/* a volume pinned to n1 (or n2), recorded by n1, with the provisioner's finalizer */
#define PV_ON(node, extra_meta, spec_extra)                                           \
 "{\"metadata\":{\"name\":\"v\",\"resourceVersion\":\"1\"" extra_meta "},\"spec\":{"  \
 "\"capacity\":{\"storage\":\"1Gi\"}" spec_extra ",\"nodeAffinity\":{\"required\":{"  \
 "\"nodeSelectorTerms\":[{\"matchExpressions\":[{\"key\":\"kubernetes.io/hostname\"," \
 "\"operator\":\"In\",\"values\":[\"" node "\"]}]}]}}},\"status\":{\"phase\":\"Released\"}}"
#define FIN  ",\"finalizers\":[\"kubernetes.io/pv-protection\",\"" NODE_PV_FINALIZER "\"]"
#define FIN1 ",\"finalizers\":[\"kubernetes.io/pv-protection\"]"
#define REC  ",\"annotations\":{\"" NODE_PV_ANN_PROVISIONED_ON "\":\"n1\"}"
#define REC2 ",\"annotations\":{\"" NODE_PV_ANN_PROVISIONED_ON "\":\"n2\"}"

struct nr_case {
        const char *name;
        enum node_restriction_op op;
        const char *resource, *subresource, *req_name;
        const char *obj, *old, *pod, *node_obj; /* JSON or NULL */
        int want;                               /* 0, -EPERM or -ENOENT */
        const char *message;                    /* the reason, or NULL */
};

static json_t *parse(const char *s)
{
        return s ? json_loads(s, 0, NULL) : NULL;
}

static void run(const struct nr_case *c, const char *node)
{
        cleanup_json json_t *obj = parse(c->obj), *old = parse(c->old), *pod = parse(c->pod),
                            *node_obj = parse(c->node_obj);
        cleanup_error struct error *err = NULL;
        struct node_restriction_request r = { .node = node,
                                              .user = "system:node:",
                                              .op = c->op,
                                              .group = "",
                                              .resource = c->resource,
                                              .subresource = c->subresource,
                                              .ns = "default",
                                              .name = c->req_name,
                                              .obj = obj,
                                              .old = old,
                                              .pod = pod,
                                              .node_obj = node_obj };
        int got = node_restriction_decide(&r, &err);

        if (got != c->want)
                fail_msg("%s: got %d (%s), want %d", c->name, got, err ? err->message : "",
                         c->want);
        if (c->message && (!err || strcmp(err->message, c->message) != 0))
                fail_msg("%s: message \"%s\", want \"%s\"", c->name, err ? err->message : "",
                         c->message);
}

static void test_pods(void **state)
{
        static const struct nr_case cases[] = {
                { "status of its own pod", NODE_RESTRICTION_UPDATE, "pods", "status", "p", POD_N1,
                  POD_N1, NULL, NULL, 0, NULL },
                { "status of another node's pod", NODE_RESTRICTION_UPDATE, "pods", "status", "p",
                  POD_N1, POD_N2, NULL, NULL, -EPERM,
                  "node \"n1\" can only update pod status for pods with spec.nodeName set to "
                  "itself" },
                { "labels through status", NODE_RESTRICTION_UPDATE, "pods", "status", "p",
                  "{\"metadata\":{\"labels\":{\"a\":\"2\"}}}", POD_N1, NULL, NULL, -EPERM,
                  "node \"n1\" cannot update labels through pod status" },
                { "no labels and empty labels are equal", NODE_RESTRICTION_UPDATE, "pods", "status",
                  "p", "{\"metadata\":{\"labels\":{}},\"spec\":{\"nodeName\":\"n1\"}}",
                  "{\"spec\":{\"nodeName\":\"n1\"}}", NULL, NULL, 0, NULL },
                { "resource claim statuses", NODE_RESTRICTION_UPDATE, "pods", "status", "p",
                  "{\"status\":{\"resourceClaimStatuses\":[{\"name\":\"a\"}]}}",
                  "{\"spec\":{\"nodeName\":\"n1\"}}", NULL, NULL, -EPERM,
                  "node \"n1\" cannot update resource claim statues" },
                { "update of the pod itself", NODE_RESTRICTION_UPDATE, "pods", "", "p", POD_N1,
                  POD_N1, NULL, NULL, -EPERM,
                  "unexpected operation \"UPDATE\", node \"n1\" can only create and delete mirror "
                  "pods" },
                { "resize", NODE_RESTRICTION_UPDATE, "pods", "resize", "p", POD_N1, POD_N1, NULL,
                  NULL, -EPERM,
                  "unexpected pod subresource \"resize\", only 'status' and 'eviction' are "
                  "allowed" },
                { "delete of its own pod", NODE_RESTRICTION_DELETE, "pods", "", "p", NULL, NULL,
                  POD_N1, NULL, 0, NULL },
                { "delete of another node's pod", NODE_RESTRICTION_DELETE, "pods", "", "p", NULL,
                  NULL, POD_N2, NULL, -EPERM,
                  "node \"n1\" can only delete pods with spec.nodeName set to itself" },
                { "eviction of its own pod", NODE_RESTRICTION_CREATE, "pods", "eviction", "p",
                  "{\"metadata\":{\"name\":\"p\"}}", NULL, POD_N1, NULL, 0, NULL },
                { "eviction of another node's pod", NODE_RESTRICTION_CREATE, "pods", "eviction",
                  "p", "{\"metadata\":{\"name\":\"p\"}}", NULL, POD_N2, NULL, -EPERM,
                  "node n1 can only evict pods with spec.nodeName set to itself" },
                { "eviction of a missing pod", NODE_RESTRICTION_CREATE, "pods", "eviction", "p",
                  "{}", NULL, NULL, NULL, -ENOENT, "pod \"p\" not found" },
                { "eviction naming no pod", NODE_RESTRICTION_CREATE, "pods", "eviction", "", "{}",
                  NULL, NULL, NULL, -EPERM, "could not determine pod from request data" },
                { "a pod that is no mirror pod", NODE_RESTRICTION_CREATE, "pods", "", "", POD_N1,
                  NULL, NULL, NODE_N1, -EPERM,
                  "pod does not have \"kubernetes.io/config.mirror\" annotation, node \"n1\" can "
                  "only create mirror pods" },
                { "a mirror pod", NODE_RESTRICTION_CREATE, "pods", "", "", MIRROR(""), NULL, NULL,
                  NODE_N1, 0, NULL },
                { "a mirror pod of another node's uid", NODE_RESTRICTION_CREATE, "pods", "", "",
                  MIRROR(""), NULL, NULL, "{\"metadata\":{\"uid\":\"u9\"}}", -EPERM,
                  "node n1 UID mismatch: expected u1 got u9" },
                { "a mirror pod with a secret", NODE_RESTRICTION_CREATE, "pods", "", "",
                  MIRROR(",\"volumes\":[{\"name\":\"v\",\"secret\":{\"secretName\":\"s\"}}]"), NULL,
                  NULL, NODE_N1, -EPERM, "node \"n1\" can not create pods that reference secrets" },
                { "a mirror pod with a config map in env", NODE_RESTRICTION_CREATE, "pods", "", "",
                  MIRROR(",\"containers\":[{\"name\":\"c\",\"envFrom\":[{\"configMapRef\":{"
                         "\"name\":\"c\"}}]}]"),
                  NULL, NULL, NODE_N1, -EPERM,
                  "node \"n1\" can not create pods that reference configmaps" },
                { "a mirror pod with a claim", NODE_RESTRICTION_CREATE, "pods", "", "",
                  MIRROR(",\"volumes\":[{\"name\":\"v\",\"persistentVolumeClaim\":{"
                         "\"claimName\":\"c\"}}]"),
                  NULL, NULL, NODE_N1, -EPERM,
                  "node \"n1\" can not create pods that reference persistentvolumeclaims" },
                { "a mirror pod with a service account", NODE_RESTRICTION_CREATE, "pods", "", "",
                  MIRROR(",\"serviceAccountName\":\"default\""), NULL, NULL, NODE_N1, -EPERM,
                  "node \"n1\" can not create pods that reference a service account" },
                { "a mirror pod for another node", NODE_RESTRICTION_CREATE, "pods", "", "",
                  "{\"metadata\":{\"annotations\":{\"kubernetes.io/config.mirror\":\"x\"}},"
                  "\"spec\":{\"nodeName\":\"n2\"}}",
                  NULL, NULL, NODE_N1, -EPERM,
                  "node \"n1\" can only create pods with spec.nodeName set to itself" },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++)
                run(&cases[i], "n1");
}

static void test_nodes(void **state)
{
        static const struct nr_case cases[] = {
                { "its own node", NODE_RESTRICTION_UPDATE, "nodes", "", "n1", NODE_N1, NODE_N1,
                  NULL, NULL, 0, NULL },
                { "another node", NODE_RESTRICTION_UPDATE, "nodes", "", "n2", NODE_N1, NODE_N1,
                  NULL, NULL, -EPERM, "node \"n1\" is not allowed to modify node \"n2\"" },
                { "another node's status", NODE_RESTRICTION_UPDATE, "nodes", "status", "n2",
                  NODE_N1, NODE_N1, NULL, NULL, -EPERM,
                  "node \"n1\" is not allowed to modify node \"n2\"" },
                { "deleting another node", NODE_RESTRICTION_DELETE, "nodes", "", "n2", NULL,
                  NODE_N1, NULL, NULL, -EPERM, "node \"n1\" is not allowed to modify node \"n2\"" },
                { "registering itself with kubelet labels", NODE_RESTRICTION_CREATE, "nodes", "",
                  "",
                  "{\"metadata\":{\"name\":\"n1\",\"labels\":{\"kubernetes.io/hostname\":\"n1\","
                  "\"kubernetes.io/os\":\"linux\",\"a.kubelet.kubernetes.io/x\":\"\","
                  "\"example.com/y\":\"\"}}}",
                  NULL, NULL, NULL, 0, NULL },
                { "registering itself with a node-role label", NODE_RESTRICTION_CREATE, "nodes", "",
                  "",
                  "{\"metadata\":{\"name\":\"n1\",\"labels\":{\"node-role.kubernetes.io/"
                  "control-plane\":\"\",\"b.node-restriction.kubernetes.io/x\":\"\","
                  "\"k8s.io/z\":\"\"}}}",
                  NULL, NULL, NULL, -EPERM,
                  "node \"n1\" is not allowed to set the following labels: "
                  "b.node-restriction.kubernetes.io/x, k8s.io/z, "
                  "node-role.kubernetes.io/control-plane" },
                { "registering another node", NODE_RESTRICTION_CREATE, "nodes", "", "",
                  "{\"metadata\":{\"name\":\"n2\"}}", NULL, NULL, NULL, -EPERM,
                  "node \"n1\" is not allowed to modify node \"n2\"" },
                { "registering with a config source", NODE_RESTRICTION_CREATE, "nodes", "", "",
                  "{\"metadata\":{\"name\":\"n1\"},\"spec\":{\"configSource\":{}}}", NULL, NULL,
                  NULL, -EPERM,
                  "node \"n1\" is not allowed to create pods with a non-nil configSource" },
                { "removing a forbidden label", NODE_RESTRICTION_UPDATE, "nodes", "", "n1",
                  "{\"metadata\":{\"name\":\"n1\"}}",
                  "{\"metadata\":{\"name\":\"n1\",\"labels\":{\"node-role.kubernetes.io/x\":\"\"}}}",
                  NULL, NULL, -EPERM,
                  "is not allowed to modify labels: node-role.kubernetes.io/x" },
                { "keeping a forbidden label", NODE_RESTRICTION_UPDATE, "nodes", "", "n1",
                  "{\"metadata\":{\"labels\":{\"node-role.kubernetes.io/x\":\"\",\"a\":\"b\"}}}",
                  "{\"metadata\":{\"labels\":{\"node-role.kubernetes.io/x\":\"\"}}}", NULL, NULL, 0,
                  NULL },
                { "changing taints", NODE_RESTRICTION_UPDATE, "nodes", "", "n1",
                  "{\"spec\":{\"taints\":[]}}",
                  "{\"spec\":{\"taints\":[{\"key\":\"k\",\"effect\":\"NoSchedule\"}]}}", NULL, NULL,
                  -EPERM, "node \"n1\" is not allowed to modify taints" },
                { "no taints and an empty list are equal", NODE_RESTRICTION_UPDATE, "nodes", "",
                  "n1", "{\"spec\":{\"taints\":[]}}", "{\"spec\":{}}", NULL, NULL, 0, NULL },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++)
                run(&cases[i], "n1");
}

static void test_claims_and_tokens(void **state)
{
        static const struct nr_case cases[] = {
                { "claim capacity and conditions", NODE_RESTRICTION_UPDATE,
                  "persistentvolumeclaims", "status", "c",
                  "{\"metadata\":{\"name\":\"c\",\"resourceVersion\":\"2\"},\"spec\":{"
                  "\"volumeName\":\"v\"},\"status\":{\"phase\":\"Bound\",\"capacity\":{"
                  "\"storage\":\"2Gi\"},\"conditions\":[],\"allocatedResourceStatuses\":{"
                  "\"storage\":\"NodeResizePending\"}}}",
                  PVC, NULL, NULL, 0, NULL },
                { "claim phase", NODE_RESTRICTION_UPDATE, "persistentvolumeclaims", "status", "c",
                  "{\"metadata\":{\"name\":\"c\"},\"spec\":{\"volumeName\":\"v\"},\"status\":{"
                  "\"phase\":\"Lost\"}}",
                  PVC, NULL, NULL, -EPERM,
                  "node \"n1\" is not allowed to update fields other than status.capacity and "
                  "status.conditions: status.phase" },
                { "the claim itself", NODE_RESTRICTION_UPDATE, "persistentvolumeclaims", "", "c",
                  PVC, PVC, NULL, NULL, -EPERM, "may only update PVC status" },
                { "deleting a claim", NODE_RESTRICTION_DELETE, "persistentvolumeclaims", "", "c",
                  NULL, PVC, NULL, NULL, -EPERM, "may only update PVC status" },
                { "a token for its pod", NODE_RESTRICTION_CREATE, "serviceaccounts", "token", "sa",
                  "{\"spec\":{\"boundObjectRef\":{\"apiVersion\":\"v1\",\"kind\":\"Pod\","
                  "\"name\":\"p\",\"uid\":\"u\"}}}",
                  NULL, "{\"metadata\":{\"uid\":\"u\"},\"spec\":{\"nodeName\":\"n1\"}}", NULL, 0,
                  NULL },
                { "a token for another node's pod", NODE_RESTRICTION_CREATE, "serviceaccounts",
                  "token", "sa",
                  "{\"spec\":{\"boundObjectRef\":{\"apiVersion\":\"v1\",\"kind\":\"Pod\","
                  "\"name\":\"p\",\"uid\":\"u\"}}}",
                  NULL, "{\"metadata\":{\"uid\":\"u\"},\"spec\":{\"nodeName\":\"n2\"}}", NULL,
                  -EPERM, "node requested token bound to a pod scheduled on a different node" },
                { "a token bound to nothing", NODE_RESTRICTION_CREATE, "serviceaccounts", "token",
                  "sa", "{\"spec\":{}}", NULL, NULL, NULL, -EPERM,
                  "node requested token not bound to a pod" },
                { "a token bound without a uid", NODE_RESTRICTION_CREATE, "serviceaccounts",
                  "token", "sa",
                  "{\"spec\":{\"boundObjectRef\":{\"apiVersion\":\"v1\",\"kind\":\"Pod\","
                  "\"name\":\"p\"}}}",
                  NULL, NULL, NULL, -EPERM,
                  "node requested token with a pod binding without a uid" },
                { "a token for a recreated pod", NODE_RESTRICTION_CREATE, "serviceaccounts",
                  "token", "sa",
                  "{\"spec\":{\"boundObjectRef\":{\"apiVersion\":\"v1\",\"kind\":\"Pod\","
                  "\"name\":\"p\",\"uid\":\"old\"}}}",
                  NULL, "{\"metadata\":{\"uid\":\"new\"},\"spec\":{\"nodeName\":\"n1\"}}", NULL,
                  -EPERM,
                  "the UID in the bound object reference (old) does not match the UID in record. "
                  "The object might have been deleted and then recreated" },
                { "other resources pass", NODE_RESTRICTION_CREATE, "events", "", "", "{}", NULL,
                  NULL, NULL, 0, NULL },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++)
                run(&cases[i], "n1");
}

/* flexlet: a node's volumes (pinned to it): the record of its file, the finalizer, nothing else */
static void test_volumes(void **state)
{
        static const struct nr_case cases[] = {
                { "record the file", NODE_RESTRICTION_UPDATE, "persistentvolumes", "", "v",
                  PV_ON("n1", FIN REC, ""), PV_ON("n1", FIN, ""), NULL, NULL, 0, NULL },
                { "drop the finalizer", NODE_RESTRICTION_UPDATE, "persistentvolumes", "", "v",
                  PV_ON("n1", FIN1 REC, ""), PV_ON("n1", FIN REC, ""), NULL, NULL, 0, NULL },
                { "another node's volume", NODE_RESTRICTION_UPDATE, "persistentvolumes", "", "v",
                  PV_ON("n2", FIN1, ""), PV_ON("n2", FIN, ""), NULL, NULL, -EPERM,
                  "node \"n1\" is not allowed to update a persistentvolume whose node affinity "
                  "is not this node alone" },
                { "moving it to another node", NODE_RESTRICTION_UPDATE, "persistentvolumes", "",
                  "v", PV_ON("n2", FIN, ""), PV_ON("n1", FIN, ""), NULL, NULL, -EPERM,
                  "node \"n1\" is not allowed to update a persistentvolume whose node affinity "
                  "is not this node alone" },
                { "recording another node", NODE_RESTRICTION_UPDATE, "persistentvolumes", "", "v",
                  PV_ON("n1", FIN REC2, ""), PV_ON("n1", FIN, ""), NULL, NULL, -EPERM,
                  "node \"n1\" may only set " NODE_PV_ANN_PROVISIONED_ON " to its own name" },
                { "erasing the record", NODE_RESTRICTION_UPDATE, "persistentvolumes", "", "v",
                  PV_ON("n1", FIN, ""), PV_ON("n1", FIN REC, ""), NULL, NULL, -EPERM,
                  "node \"n1\" may only set " NODE_PV_ANN_PROVISIONED_ON " to its own name" },
                { "adding the finalizer back", NODE_RESTRICTION_UPDATE, "persistentvolumes", "",
                  "v", PV_ON("n1", FIN REC, ""), PV_ON("n1", FIN1 REC, ""), NULL, NULL, -EPERM,
                  "node \"n1\" may not add the finalizer " NODE_PV_FINALIZER },
                { "its capacity", NODE_RESTRICTION_UPDATE, "persistentvolumes", "", "v",
                  PV_ON("n1", FIN REC, ",\"persistentVolumeReclaimPolicy\":\"Retain\""),
                  PV_ON("n1", FIN REC, ""), NULL, NULL, -EPERM,
                  "node \"n1\" is not allowed to update fields other than the annotation " NODE_PV_ANN_PROVISIONED_ON
                  " and the finalizer " NODE_PV_FINALIZER ": spec.persistentVolumeReclaimPolicy" },
                { "its status", NODE_RESTRICTION_UPDATE, "persistentvolumes", "status", "v",
                  PV_ON("n1", FIN, ""), PV_ON("n1", FIN, ""), NULL, NULL, -EPERM,
                  "node \"n1\" may only update persistentvolumes pinned to it" },
                { "creating one", NODE_RESTRICTION_CREATE, "persistentvolumes", "", "",
                  PV_ON("n1", "", ""), NULL, NULL, NULL, -EPERM,
                  "node \"n1\" may only update persistentvolumes pinned to it" },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++)
                run(&cases[i], "n1");
}

static void test_unnamed_node(void **state)
{
        static const struct nr_case c = { "no name",
                                          NODE_RESTRICTION_UPDATE,
                                          "nodes",
                                          "",
                                          "n1",
                                          NODE_N1,
                                          NODE_N1,
                                          NULL,
                                          NULL,
                                          -EPERM,
                                          "could not determine node from user \"system:node:\"" };
        run(&c, "");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_pods),
                cmocka_unit_test(test_nodes),
                cmocka_unit_test(test_claims_and_tokens),
                cmocka_unit_test(test_volumes),
                cmocka_unit_test(test_unnamed_node),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
