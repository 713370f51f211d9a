/* node-ipam.h: the node IPAM controller with the range allocator (K8S:
 * pkg/controller/nodeipam, ipam.RangeAllocatorType, run by kube-controller-manager as the
 * "node-controller" service account): every Node without a spec.podCIDR gets the next free
 * subnet of --node-cidr-mask-size bits out of --cluster-cidr as spec.podCIDR and spec.podCIDRs
 * (one strategic merge patch, upstream's PatchNodeCIDRs); a deleted Node's subnet is free again.
 *
 * As upstream's cidrset, subnets are handed out round-robin from the one after the last given
 * (nextCandidate), so a freed subnet is not reused at once; the bitmap is rebuilt from the Nodes
 * at every pass (upstream: from the Nodes at start, then kept by the Node events), so a
 * restarted or newly elected controller starts from what the Nodes say. A Node's podCIDR that is
 * partly or wholly inside the cluster CIDR occupies every subnet it overlaps; one outside is left
 * alone (upstream logs it and carries on). A subnet patched onto a Node but not yet seen in the
 * informer stays taken, so two Nodes never get one subnet.
 *
 * flexlet: a preset (the node `serve` runs, whose bridge exists before the API server does) gets
 * exactly its subnet, when the Node has none. */
#ifndef FLEXLET_CONTROLLERS_NODE_IPAM_H
#define FLEXLET_CONTROLLERS_NODE_IPAM_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "client/client.h"

/* K8S: kube-controller-manager's --node-cidr-mask-size default for IPv4 */
#define NODE_IPAM_DEFAULT_MASK_SIZE 24

/* ------------------------------------------------------------------ pure parts */

/* An IPv4 range: 0 and the host-order network when text is ADDRESS/PREFIX with no host bits
 * set, else -EINVAL. */
int node_ipam_parse_cidr(const char *text, uint32_t *ret_network, unsigned *ret_prefix);

/* K8S: cidrset.CIDRSet: the subnets of node_prefix bits in the cluster range. */
struct cidr_set {
        uint32_t base;        /* the cluster range's network, host order */
        unsigned prefix;      /* the cluster range's prefix */
        unsigned node_prefix; /* each subnet's */
        size_t n;             /* 1 << (node_prefix - prefix) */
        unsigned char *used;  /* n bytes */
        size_t next;          /* nextCandidate */
};

/* -EINVAL with upstream's words when the cluster CIDR does not parse, the mask is smaller than
 * the cluster's prefix ("subNetMaskSize is less than clusterMaskSize") or more than 16 bits
 * longer ("the node CIDR size is too big"), or longer than 30. */
int cidr_set_init(struct cidr_set *s, const char *cluster_cidr, unsigned node_prefix,
                  struct error **reterr);
void cidr_set_release(struct cidr_set *s);
/* Marks every subnet cidr overlaps: 1 if any, 0 when it is outside the range, -EINVAL when it
 * does not parse. */
int cidr_set_occupy(struct cidr_set *s, const char *cidr);
/* Frees every subnet (the next candidate stays). */
void cidr_set_clear(struct cidr_set *s);
/* The next free subnet at or after the next candidate, taken ("10.88.3.0/24" in out); -ENOSPC
 * when every one is taken. */
int cidr_set_allocate_next(struct cidr_set *s, char out[static 20]);

/* ------------------------------------------------------------------ the controller */

struct node_ipam_options {
        const char *cluster_cidr;     /* required */
        unsigned node_cidr_mask_size; /* 0: NODE_IPAM_DEFAULT_MASK_SIZE */
        const char *preset_node;      /* NULL: none */
        const char *preset_cidr;      /* preset_node's subnet */
};

struct node_ipam_controller;

/* Checks the options (cidr_set_init's errors), then starts the informer over nodes and the pass
 * thread. */
int node_ipam_controller_start(const struct api_client_options *o,
                               const struct node_ipam_options *opts,
                               struct node_ipam_controller **ret, struct error **reterr);
/* Stops it; NULL-safe, returns NULL. */
struct node_ipam_controller *node_ipam_controller_stop(struct node_ipam_controller *x);

#endif
