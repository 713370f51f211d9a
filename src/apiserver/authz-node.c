/* authz-node.c: the Node authorization mode (authz-node.h), upstream's NodeAuthorizer.Authorize
 * over flexlet's attributes: the per-kind rules, the relationship checks through node-graph.c,
 * and NodeRules() for everything else through authz_rule_allows. Admission's part of the same
 * policy is admission-noderestriction.c. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apiserver/authn.h"
#include "apiserver/authz-node.h"
#include "apiserver/node-graph.h"
#include "base/alloc.h"
#include "base/json.h"

/* K8S: api.NamespaceNodeLease */
#define NODE_LEASE_NAMESPACE "kube-node-lease"

/* K8S: bootstrappolicy.NodeRules() (1.33): what every node may do, before the graph narrows
 * secrets, config maps, claims, volumes and tokens. Read is get, list, watch. */
static const char node_rules_json[] =
        "["
        "{\"verbs\":[\"create\"],\"apiGroups\":[\"authentication.k8s.io\"],"
        "\"resources\":[\"tokenreviews\"]},"
        "{\"verbs\":[\"create\"],\"apiGroups\":[\"authorization.k8s.io\"],"
        "\"resources\":[\"subjectaccessreviews\",\"localsubjectaccessreviews\"]},"
        "{\"verbs\":[\"get\",\"list\",\"watch\"],\"apiGroups\":[\"\"],\"resources\":[\"services\"]},"
        "{\"verbs\":[\"create\",\"get\",\"list\",\"watch\"],\"apiGroups\":[\"\"],"
        "\"resources\":[\"nodes\"]},"
        "{\"verbs\":[\"update\",\"patch\"],\"apiGroups\":[\"\"],\"resources\":[\"nodes/status\"]},"
        "{\"verbs\":[\"update\",\"patch\"],\"apiGroups\":[\"\"],\"resources\":[\"nodes\"]},"
        "{\"verbs\":[\"create\",\"update\",\"patch\"],\"apiGroups\":[\"\"],"
        "\"resources\":[\"events\"]},"
        "{\"verbs\":[\"get\",\"list\",\"watch\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\"]},"
        "{\"verbs\":[\"create\",\"delete\"],\"apiGroups\":[\"\"],\"resources\":[\"pods\"]},"
        "{\"verbs\":[\"update\",\"patch\"],\"apiGroups\":[\"\"],\"resources\":[\"pods/status\"]},"
        "{\"verbs\":[\"create\"],\"apiGroups\":[\"\"],\"resources\":[\"pods/eviction\"]},"
        "{\"verbs\":[\"get\",\"list\",\"watch\"],\"apiGroups\":[\"\"],"
        "\"resources\":[\"secrets\",\"configmaps\"]},"
        "{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],"
        "\"resources\":[\"persistentvolumeclaims\",\"persistentvolumes\"]},"
        "{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":[\"endpoints\"]},"
        "{\"verbs\":[\"create\",\"get\",\"list\",\"watch\"],\"apiGroups\":[\"certificates.k8s.io\"],"
        "\"resources\":[\"certificatesigningrequests\"]},"
        "{\"verbs\":[\"get\",\"create\",\"update\",\"patch\",\"delete\"],"
        "\"apiGroups\":[\"coordination.k8s.io\"],\"resources\":[\"leases\"]},"
        "{\"verbs\":[\"get\"],\"apiGroups\":[\"storage.k8s.io\"],"
        "\"resources\":[\"volumeattachments\"]},"
        "{\"verbs\":[\"create\"],\"apiGroups\":[\"\"],\"resources\":[\"serviceaccounts/token\"]},"
        "{\"verbs\":[\"get\",\"update\",\"patch\"],\"apiGroups\":[\"\"],"
        "\"resources\":[\"persistentvolumeclaims/status\"]},"
        "{\"verbs\":[\"get\",\"watch\",\"list\"],\"apiGroups\":[\"storage.k8s.io\"],"
        "\"resources\":[\"csidrivers\"]},"
        "{\"verbs\":[\"get\",\"create\",\"update\",\"patch\",\"delete\"],"
        "\"apiGroups\":[\"storage.k8s.io\"],\"resources\":[\"csinodes\"]},"
        "{\"verbs\":[\"get\",\"list\",\"watch\"],\"apiGroups\":[\"node.k8s.io\"],"
        "\"resources\":[\"runtimeclasses\"]}"
        "]";

struct authz_node {
        struct store *store;
        struct node_graph *graph;
        json_t *rules;
};

json_t *authz_node_rules(void)
{
        json_t *rules = json_loads(node_rules_json, 0, NULL);

        if (!rules)
                abort(); /* a constant of this file */
        return rules;
}

int authz_node_new(const struct authz_context *ctx, void **ret, struct error **reterr)
{
        struct authz_node *n;
        int r;

        if (!ctx || !ctx->store)
                return error_set(reterr, EINVAL, "the Node mode needs the store");
        n = xcalloc(1, sizeof(*n));
        n->store = ctx->store;
        r = node_graph_new(ctx->store, &n->graph, reterr);
        if (r < 0) {
                free(n);
                return r;
        }
        n->rules = authz_node_rules();
        *ret = n;
        return 0;
}

void authz_node_free(void *self)
{
        struct authz_node *n = self;

        if (!n)
                return;
        node_graph_free(n->graph);
        json_decref(n->rules);
        free(n);
}

bool authz_node_selects_node(const char *sel, const char *node)
{
        static const char field[] = "spec.nodeName";
        const char *p = sel;

        /* K8S: fields.ParseSelector's requirements; `=` and `==` are both Equals. A node's name
         * (a DNS subdomain) needs no escape, so a term is what lies between commas. */
        while (p && *p) {
                size_t len = strcspn(p, ",");
                const char *v = p + strlen(field);

                if (len > strlen(field) && strncmp(p, field, strlen(field)) == 0 && *v == '=') {
                        v += v[1] == '=' ? 2 : 1;
                        if ((size_t) (p + len - v) == strlen(node) &&
                            strncmp(v, node, strlen(node)) == 0)
                                return true;
                }
                p += len;
                if (*p == ',')
                        p++;
        }
        return false;
}

static enum authz_decision no_opinion(char **ret_reason, const char *fmt, ...) _printf_(2, 3);

static enum authz_decision no_opinion(char **ret_reason, const char *fmt, ...)
{
        va_list ap;
        char *s = NULL;

        va_start(ap, fmt);
        if (vasprintf(&s, fmt, ap) < 0)
                abort();
        va_end(ap);
        free(*ret_reason);
        *ret_reason = s;
        return AUTHZ_NO_OPINION;
}

static bool verb_in(const char *verb, const char *const *verbs)
{
        for (size_t i = 0; verbs[i]; i++)
                if (streq(verb, verbs[i]))
                        return true;
        return false;
}

/* K8S: NodeAuthorizer.authorize: the object the attributes name must be related to node. */
static enum authz_decision related(const struct authz_node *n, const char *node,
                                   enum node_vertex kind, const struct authz_attributes *a,
                                   char **ret_reason)
{
        bool ok = false;

        if (!a->name[0])
                return no_opinion(ret_reason, "No Object name found");
        /* a store failure is no relationship, as upstream's graph errors are */
        if (node_graph_lookup(n->graph, node, kind, a->ns, a->name, &ok, NULL) < 0 || !ok)
                return no_opinion(ret_reason,
                                  "no relationship found between node '%s' and this object", node);
        return AUTHZ_ALLOW;
}

/* K8S: authorizeReadNamespacedObject (secrets, config maps) */
static enum authz_decision read_namespaced(const struct authz_node *n, const char *node,
                                           enum node_vertex kind, const struct authz_attributes *a,
                                           char **ret_reason)
{
        static const char *const read[] = { "get", "list", "watch", NULL };

        if (!verb_in(a->verb, read))
                return no_opinion(ret_reason, "can only read resources of this type");
        if (a->subresource[0])
                return no_opinion(ret_reason, "cannot read subresource");
        if (!a->ns[0])
                return no_opinion(ret_reason, "can only read namespaced object of this type");
        return related(n, node, kind, a, ret_reason);
}

/* K8S: authorizeGet (claims, volumes, pods) */
static enum authz_decision get_related(const struct authz_node *n, const char *node,
                                       enum node_vertex kind, const struct authz_attributes *a,
                                       char **ret_reason)
{
        if (!streq(a->verb, "get"))
                return no_opinion(ret_reason, "can only get individual resources of this type");
        if (a->subresource[0])
                return no_opinion(ret_reason, "cannot get subresource");
        return related(n, node, kind, a, ret_reason);
}

/* K8S authorizeGet for volumes; flexlet adds update and patch of a volume pinned to the node
 * (local_volume_pinned_to, through the graph's pv -> node edge), which NodeRestriction narrows to
 * recording the backing file and dropping the provisioner's finalizer (docs/storage.md). */
static enum authz_decision pv_object(const struct authz_node *n, const char *node,
                                     const struct authz_attributes *a, char **ret_reason)
{
        if ((streq(a->verb, "update") || streq(a->verb, "patch")) && !a->subresource[0])
                return related(n, node, NODE_VERTEX_PV, a, ret_reason);
        return get_related(n, node, NODE_VERTEX_PV, a, ret_reason);
}

/* K8S: authorizeStatusUpdate (claims' status) */
static enum authz_decision status_update(const struct authz_node *n, const char *node,
                                         enum node_vertex kind, const struct authz_attributes *a,
                                         char **ret_reason)
{
        static const char *const write[] = { "update", "patch", NULL };

        if (!verb_in(a->verb, write))
                return no_opinion(ret_reason, "can only get/update/patch this type");
        if (!streq(a->subresource, "status"))
                return no_opinion(ret_reason, "can only update status subresource");
        return related(n, node, kind, a, ret_reason);
}

/* K8S: authorizeCreateToken */
static enum authz_decision create_token(const struct authz_node *n, const char *node,
                                        const struct authz_attributes *a, char **ret_reason)
{
        bool ok = false;

        if (!streq(a->verb, "create") || !a->name[0])
                return no_opinion(ret_reason,
                                  "can only create tokens for individual service accounts");
        if (!streq(a->subresource, "token"))
                return no_opinion(ret_reason,
                                  "can only create token subresource of serviceaccount");
        if (node_graph_lookup(n->graph, node, NODE_VERTEX_SERVICEACCOUNT, a->ns, a->name, &ok,
                              NULL) < 0 ||
            !ok)
                return no_opinion(ret_reason,
                                  "no relationship found between node '%s' and this object", node);
        return AUTHZ_ALLOW;
}

/* K8S: authorizeLease and authorizeCSINode: the node's own object only */
static enum authz_decision own_object(const char *node, const struct authz_attributes *a,
                                      bool lease, char **ret_reason)
{
        static const char *const verbs[] = { "get", "create", "update", "patch", "delete", NULL };

        if (!verb_in(a->verb, verbs))
                return no_opinion(ret_reason, lease ? "can only get, create, update, patch, or "
                                                      "delete a node lease"
                                                    : "can only get, create, update, patch, or "
                                                      "delete a CSINode");
        if (lease && !streq(a->ns, NODE_LEASE_NAMESPACE))
                return no_opinion(ret_reason,
                                  "can only access leases in the \"%s\" system namespace",
                                  NODE_LEASE_NAMESPACE);
        if (!lease && a->subresource[0])
                return no_opinion(ret_reason, "cannot authorize CSINode subresources");
        /* the name of a create is in the body: NodeRestriction checks it */
        if (!streq(a->verb, "create") && !streq(a->name, node))
                return no_opinion(ret_reason,
                                  lease ? "can only access node lease with the same name as the "
                                          "requesting node"
                                        : "can only access CSINode with the same name as the "
                                          "requesting node");
        return AUTHZ_ALLOW;
}

/* K8S: authorizeNode (AuthorizeNodeWithSelectors): its own Node; writes are NodeRestriction's */
static enum authz_decision node_object(const char *node, const struct authz_attributes *a,
                                       char **ret_reason)
{
        static const char *const write[] = { "create", "update", "patch", NULL };
        static const char *const read[] = { "get", "list", "watch", NULL };

        if (!a->subresource[0]) {
                if (verb_in(a->verb, write))
                        return AUTHZ_ALLOW;
                if (verb_in(a->verb, read)) {
                        if (streq(a->name, node))
                                return AUTHZ_ALLOW;
                        if (!a->name[0])
                                return no_opinion(
                                        ret_reason,
                                        "node '%s' cannot read all nodes, only its own Node object",
                                        node);
                        return no_opinion(ret_reason,
                                          "node '%s' cannot read '%s', only its own Node object",
                                          node, a->name);
                }
        } else if (streq(a->subresource, "status")) {
                static const char *const status[] = { "update", "patch", NULL };
                if (verb_in(a->verb, status))
                        return AUTHZ_ALLOW;
        }
        return AUTHZ_NO_OPINION;
}

/* K8S: authorizePod (AuthorizeNodeWithSelectors) */
static enum authz_decision pod_object(const struct authz_node *n, const char *node,
                                      const struct authz_attributes *a, char **ret_reason)
{
        if (!a->subresource[0]) {
                if (streq(a->verb, "get"))
                        return get_related(n, node, NODE_VERTEX_POD, a, ret_reason);
                if (streq(a->verb, "list") || streq(a->verb, "watch")) {
                        if (authz_node_selects_node(a->field_selector, node))
                                return AUTHZ_ALLOW;
                        if (a->name[0])
                                return related(n, node, NODE_VERTEX_POD, a, ret_reason);
                        return no_opinion(ret_reason,
                                          "can only list/watch pods with spec.nodeName field "
                                          "selector");
                }
                /* mirror pods and deletes: NodeRestriction narrows them */
                if (streq(a->verb, "create") || streq(a->verb, "delete"))
                        return AUTHZ_ALLOW;
        } else if (streq(a->subresource, "status")) {
                if (streq(a->verb, "update") || streq(a->verb, "patch"))
                        return AUTHZ_ALLOW;
        } else if (streq(a->subresource, "eviction")) {
                if (streq(a->verb, "create"))
                        return AUTHZ_ALLOW;
        }
        return AUTHZ_NO_OPINION;
}

void authz_node_rules_for(void *self, const struct authn_user *user, const char *ns,
                          struct authz_rules *out)
{
        const char *node;

        if (!node_identity(user, &node))
                return;
        out->incomplete = true;
        authz_rules_add_error(out, "node authorizer does not support user rule resolution");
}

enum authz_decision authz_node_authorize(void *self, const struct authz_attributes *a,
                                         char **ret_reason)
{
        const struct authz_node *n = self;
        const char *node;
        size_t i;
        json_t *rule;

        if (!node_identity(a->user, &node))
                return AUTHZ_NO_OPINION;
        if (!node[0])
                return no_opinion(ret_reason, "unknown node for user \"%s\"", a->user->name);
        if (a->resource_request) {
                const char *g = a->api_group, *r = a->resource;

                if (!g[0] && streq(r, "secrets"))
                        return read_namespaced(n, node, NODE_VERTEX_SECRET, a, ret_reason);
                if (!g[0] && streq(r, "configmaps"))
                        return read_namespaced(n, node, NODE_VERTEX_CONFIGMAP, a, ret_reason);
                if (!g[0] && streq(r, "persistentvolumeclaims"))
                        return streq(a->subresource, "status")
                                       ? status_update(n, node, NODE_VERTEX_PVC, a, ret_reason)
                                       : get_related(n, node, NODE_VERTEX_PVC, a, ret_reason);
                if (!g[0] && streq(r, "persistentvolumes"))
                        return pv_object(n, node, a, ret_reason);
                /* not served by flexlet: nothing relates a node to one */
                if ((streq(g, "resource.k8s.io") && streq(r, "resourceclaims")) ||
                    (streq(g, "storage.k8s.io") && streq(r, "volumeattachments")))
                        return get_related(n, node, NODE_VERTEX_MAX, a, ret_reason);
                if (!g[0] && streq(r, "serviceaccounts"))
                        return create_token(n, node, a, ret_reason);
                if (streq(g, "coordination.k8s.io") && streq(r, "leases"))
                        return own_object(node, a, true, ret_reason);
                if (streq(g, "storage.k8s.io") && streq(r, "csinodes"))
                        return own_object(node, a, false, ret_reason);
                if (!g[0] && streq(r, "nodes"))
                        return node_object(node, a, ret_reason);
                if (!g[0] && streq(r, "pods"))
                        return pod_object(n, node, a, ret_reason);
        }
        json_array_foreach(n->rules, i, rule)
                if (authz_rule_allows(rule, a))
                        return AUTHZ_ALLOW;
        return AUTHZ_NO_OPINION;
}
