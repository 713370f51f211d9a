/* route-keeper.h: the node's routes to the other nodes' pods (issue 14 part 7; as flannel's
 * host-gw backend, which watches the Nodes): an informer over every Node (the node reads them
 * through the flexlet:node-routes ClusterRole, docs/rbac.md) and a thread that, at every change
 * and at least every 30 s, makes the host's flexlet routes one per other Node with a
 * spec.podCIDR and an InternalIP: the podCIDR via the InternalIP (network/routes.h). A deleted
 * Node's route goes at the next pass. Forwarding is turned on for the bridge and the uplink once
 * the first route is there. */
#ifndef FLEXLET_NODE_ROUTE_KEEPER_H
#define FLEXLET_NODE_ROUTE_KEEPER_H

#include <jansson.h>
#include <stddef.h>

#include "base/error.h"
#include "client/client.h"
#include "node/network/routes.h"

/* The routes a node named self wants from a snapshot of the Nodes (values are Node objects):
 * one per other Node whose spec.podCIDRs[0] (or podCIDR) is an IPv4 CIDR and whose status has an
 * IPv4 InternalIP, sorted by destination; *ret (caller frees) may be NULL when there is none. A
 * Node being deleted still counts (its pods may still run). */
size_t route_keeper_want(const json_t *nodes, const char *self, struct network_route **ret);

struct route_keeper_options {
        const char *node_name; /* this node's */
        const char *node_ip;   /* its InternalIP: forwarding goes on for the interface with it */
        const char *bridge;    /* its pods' bridge: forwarding goes on for it */
};

struct route_keeper;

/* Starts the informer (with o's credentials) and the thread. The options are copied. */
int route_keeper_start(const struct api_client_options *co, const struct route_keeper_options *o,
                       struct route_keeper **ret, struct error **reterr);
/* Stops the thread; the routes stay (pods on other nodes keep being reachable across a restart
 * of the agent). NULL-safe, returns NULL. */
struct route_keeper *route_keeper_stop(struct route_keeper *k);

#endif
