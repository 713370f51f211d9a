/* node-graph.h: what a node may reach through the pods bound to it (K8S: the Node authorizer's
 * graph, plugin/pkg/auth/authorizer/node/graph.go, and the node identity of
 * pkg/auth/nodeidentifier).
 *
 * Upstream keeps a graph of vertices (pods, secrets, configmaps, claims, volumes, service
 * accounts, nodes) fed by informers and walks it from the object to the node. flexlet keeps the
 * edges node -> object of every bound pod in memory (node_graph_new), fed by a watch of the
 * pods, and asks the store (node_graph_has_path: the pods of the object's namespace) only when
 * the graph has no edge, so what was just bound is never refused. The two were measured against
 * each other: docs/node-authorization.md.
 *
 * The edges, as upstream's graph has them (AddPod, AddPV):
 *   pod -> node                   spec.nodeName
 *   secret -> pod                 imagePullSecrets, env/envFrom of every container, secret and
 *                                 projected volumes, the secretRef of the volume plugins
 *   configmap -> pod              env/envFrom of every container, configMap and projected volumes
 *   serviceaccount -> pod         spec.serviceAccountName
 *   pvc -> pod                    persistentVolumeClaim volumes, generic ephemeral volumes
 *                                 (claim "<pod>-<volume>")
 *   pv -> pvc                     the volume's spec.claimRef
 *   pv -> node                    flexlet: the volume's required nodeAffinity is exactly one term
 *                                 of one expression kubernetes.io/hostname In [node] (a
 *                                 node-local volume, local_volume_pinned_to): its node creates,
 * grows and deletes its backing file (docs/storage.md), also while no pod uses it A pod with no
 * node, or its node another, gives the node nothing. Not kept (flexlet's volumes carry none):
 * upstream's secret -> pv edges of a volume plugin's secretRef, so a node is refused such a secret
 * unless a pod names it too. */
#ifndef FLEXLET_APISERVER_NODE_GRAPH_H
#define FLEXLET_APISERVER_NODE_GRAPH_H

#include <jansson.h>
#include <stdbool.h>

#include "base/error.h"

struct store;
struct authn_user;

/* K8S: user.NodesGroup and the node user name prefix. */
#define NODE_USER_PREFIX "system:node:"
#define NODE_GROUP       "system:nodes"

/* K8S: nodeidentifier.NodeIdentity: whether u (NULL: no) is a node, a user named
 * system:node:<name> in the group system:nodes; then *ret_name (borrowed from u) is the
 * node's name, "" when the user name has nothing after the prefix. */
bool node_identity(const struct authn_user *u, const char **ret_name);

/* The kinds of object a node reaches through its pods. */
enum node_vertex {
        NODE_VERTEX_POD,
        NODE_VERTEX_SECRET,
        NODE_VERTEX_CONFIGMAP,
        NODE_VERTEX_SERVICEACCOUNT,
        NODE_VERTEX_PVC,
        NODE_VERTEX_PV,
        NODE_VERTEX_MAX,
};

/* Called with each name a pod refers to; returns false to stop the visit. */
typedef bool (*node_ref_fn)(void *ud, const char *name);

/* K8S: podutil.VisitPodSecretNames / VisitPodConfigmapNames (all containers: init, regular,
 * ephemeral) and the pod's claims (persistentVolumeClaim.claimName, and "<pod>-<volume>" for
 * an ephemeral volume) and its service account: calls fn with every non-empty name of kind
 * (SECRET, CONFIGMAP, PVC or SERVICEACCOUNT; nothing for the others) that pod refers to, in
 * the pod's order, duplicates included. Returns false when fn stopped the visit. */
bool node_pod_visit(const json_t *pod, enum node_vertex kind, node_ref_fn fn, void *ud);

/* Whether pod refers to the object of kind named name (as node_pod_visit finds it). */
bool node_pod_refers(const json_t *pod, enum node_vertex kind, const char *name);

/* Whether a pod of namespace ns among pods (a JSON array) bound to node refers to the object of
 * kind (SECRET, CONFIGMAP, PVC or SERVICEACCOUNT) named name. Pure: the store's side is
 * node_graph_has_path. */
bool node_pods_reach(const json_t *pods, const char *node, enum node_vertex kind, const char *ns,
                     const char *name);

/* K8S: NodeAuthorizer.hasPathFrom over the store: 0 with *ret whether the object of kind ns/name
 * (ns "" for a volume) is related to node, -errno with *reterr when the store cannot be read.
 * Lists the pods of the object's namespace: the slow, always current path. */
int node_graph_has_path(struct store *store, const char *node, enum node_vertex kind,
                        const char *ns, const char *name, bool *ret, struct error **reterr);

/* The graph kept in memory (K8S: the Node authorizer's graph populated by informers): the edges
 * node -> pod -> secret, configmap, service account, claim of every pod bound to a node, built
 * from a list of the pods and kept current by a watch of them from that list's
 * resourceVersion (a thread; a watch that falls behind or ends lists again). */
struct node_graph;

/* Lists the pods and starts the watch; -errno with *reterr when the store cannot be read. */
int node_graph_new(struct store *store, struct node_graph **ret, struct error **reterr);
/* Stops the watch and frees; NULL-safe. */
void node_graph_free(struct node_graph *g);

/* node_graph_has_path from the graph: an edge it holds answers at once; one it does not is
 * asked of the store (node_graph_has_path), so an object related a moment ago, before the
 * watch delivered the pod, is never refused. What the graph says yes to may lag a deletion by
 * the watch's delivery, as upstream's informer-fed graph does. Any thread. */
int node_graph_lookup(struct node_graph *g, const char *node, enum node_vertex kind, const char *ns,
                      const char *name, bool *ret, struct error **reterr);

#endif
