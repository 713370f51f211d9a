/* node-status.h: this machine as a Kubernetes Node: capacity read from the host, allocatable
 * (capacity, or the --allocatable override), conditions, addresses and nodeInfo, and its
 * registration and heartbeat through the API. */
#ifndef FLEXLET_NODE_NODE_STATUS_H
#define FLEXLET_NODE_NODE_STATUS_H

#include <jansson.h>
#include <stdint.h>

#include "base/error.h"

struct api_client;

struct node_config {
        const char *node_name;
        const char *data_dir;    /* ephemeral-storage capacity is its file system's size */
        const char *allocatable; /* "cpu=4,memory=4Gi" or NULL: allocatable = capacity */
        unsigned kubelet_port;   /* daemonEndpoints.kubeletEndpoint.Port; 0: 10250 */
};

/* Parses the --allocatable list into a ResourceList object ({"cpu":"4","memory":"4Gi"}):
 * NAME=QUANTITY pairs, every quantity valid. -EINVAL with the offending item named. */
int node_parse_resource_list(const char *list, json_t **ret, struct error **reterr);

/* The Node object this machine reports (new reference). */
int node_build(const struct node_config *cfg, json_t **ret, struct error **reterr);

/* The --node-ip given, else the first non-loopback IPv4 address of the host, else "127.0.0.1" (host
 * network pods report it as their IP). buf of at least 46 bytes. */
void node_host_ip(char *buf, size_t len);
/* K8S: the kubelet's --node-ip: the InternalIP node_host_ip answers from now on (an IPv4
 * address the caller checked). Call before any thread of the agent starts. */
void node_set_host_ip(const char *ip);

/* Creates the Node, or replaces its status (and our labels) when it already exists. */
int node_register(struct api_client *c, const struct node_config *cfg, struct error **reterr);
/* Writes the Ready condition's heartbeat (status subresource). */
int node_heartbeat(struct api_client *c, const struct node_config *cfg, struct error **reterr);

/* K8S: the kubelet's node lease (component-helpers lease controller, NodeLeaseDurationSeconds):
 * the Lease named after the node in kube-node-lease, held by the node for 40 s, renewed every
 * quarter of that. */
#define NODE_LEASE_NAMESPACE        "kube-node-lease"
#define NODE_LEASE_DURATION_SECONDS 40

/* Renews the node's Lease: creates it (owned by the Node, so it goes with it) when there is
 * none, else sets renewTime to now with a resourceVersion precondition (a conflict is an
 * error: the next renewal reads it again). */
int node_lease_renew(struct api_client *c, const struct node_config *cfg, struct error **reterr);

#endif
