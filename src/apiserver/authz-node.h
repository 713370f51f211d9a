/* authz-node.h: the Node authorization mode (K8S: plugin/pkg/auth/authorizer/node,
 * node_authorizer.go, with AuthorizeNodeWithSelectors on as in 1.33): what a node
 * (system:node:NAME in system:nodes, node-graph.h) may do. Secrets, config maps, claims,
 * volumes and service account tokens only through the pods bound to it (node-graph.h); its own
 * Node and its own Lease; the pods bound to it (listed and watched only with the
 * spec.nodeName=NAME field selector); everything else by upstream's NodeRules(). A refusal is no
 * opinion with upstream's reason (`no relationship found between node 'n1' and this object`),
 * so a later mode may still allow it. Users who are no node: no opinion, at the cost of one
 * prefix compare.
 *
 * What the node authorizer decides on, besides the attributes, comes from the store at the time
 * of the request (node-graph.c): nothing to keep current, never stale. */
#ifndef FLEXLET_APISERVER_AUTHZ_NODE_H
#define FLEXLET_APISERVER_AUTHZ_NODE_H

#include <jansson.h>

#include "apiserver/authz.h"

struct store;

/* The mode's entry in authz.c's table. */
int authz_node_new(const struct authz_context *ctx, void **ret, struct error **reterr);
enum authz_decision authz_node_authorize(void *self, const struct authz_attributes *a,
                                         char **ret_reason);
void authz_node_free(void *self);
/* K8S: NodeAuthorizer.RulesFor: a node's rules are not listed (incomplete, with the error "node
 * authorizer does not support user rule resolution"); anyone else: nothing. */
void authz_node_rules_for(void *self, const struct authn_user *user, const char *ns,
                          struct authz_rules *out);

/* K8S: bootstrappolicy.NodeRules() as rbac/v1 PolicyRules (a new JSON array). */
json_t *authz_node_rules(void);

/* Whether fieldSelector sel (a query value, NULL: none) requires spec.nodeName to be node
 * (`spec.nodeName=N` or `==N`). */
bool authz_node_selects_node(const char *sel, const char *node);

#endif
