/* node-lifecycle.h: the node lifecycle controller's NoSchedule tainting for cordoned nodes (K8S:
 * pkg/controller/nodelifecycle, doNoScheduleTaintingPass): a node with spec.unschedulable gets
 * the node.kubernetes.io/unschedulable:NoSchedule taint, and loses it when uncordoned. The taints
 * upstream derives from node conditions (not-ready, memory-pressure, ...) are not this
 * controller's yet: the scheduler reads the Ready condition itself. */
#ifndef FLEXLET_CONTROLLERS_NODE_LIFECYCLE_H
#define FLEXLET_CONTROLLERS_NODE_LIFECYCLE_H

#include <jansson.h>

#include "base/error.h"
#include "client/client.h"

/* K8S: v1.TaintNodeUnschedulable */
#define TAINT_NODE_UNSCHEDULABLE "node.kubernetes.io/unschedulable"

/* The spec.taints node should have: a new array when it differs from the node's (the
 * unschedulable taint added at the end or removed, other taints kept in order), NULL when the
 * node's taints are already right. */
json_t *node_lifecycle_taints(const json_t *node);

struct node_lifecycle_controller;

/* Starts the controller (an informer over nodes, and a pass thread). */
int node_lifecycle_controller_start(const struct api_client_options *o,
                                    struct node_lifecycle_controller **ret, struct error **reterr);
/* Stops it; NULL-safe, returns NULL. */
struct node_lifecycle_controller *
node_lifecycle_controller_stop(struct node_lifecycle_controller *x);

#endif
