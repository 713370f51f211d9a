/* network.h: the pod network of this node. A pod without hostNetwork gets the network
 * namespace of its sandbox wired by the standard CNI plugins (cni.h runs them): `loopback` for
 * lo, then the node's configuration list for eth0: `bridge` (host-local IPAM over the pod CIDR)
 * and `portmap` (hostPort). What flexlet writes, and where:
 *
 *   DATA/cni/net.d/10-flexlet.conflist   the configuration list, written at every start from
 *                                        --pod-cidr and --pod-bridge (network_default_conflist)
 *   DATA/cni/networks/flexlet/           host-local's IP allocations
 *   DATA/pods/<uid>/network/netns        the sandbox's network namespace, bind-mounted from
 *                                        /proc/<sandbox>/ns/net so the plugins get a path and
 *                                        a DEL finds it after the sandbox died
 *   DATA/pods/<uid>/network/network.json the attachment: container id, netns path, CNI_ARGS,
 *                                        capability arguments, the configuration lists used and
 *                                        (once ADD succeeded) their results. Written (fsynced)
 *                                        before the first ADD, so a teardown after a crash at any
 *                                        point runs the DELs with what the ADD was given.
 *
 * The bridge gets the gateway address (the CIDR's first host) from network_bridge_ensure, not
 * from the plugin: the bridge plugin's isGateway also writes 1 into net.ipv4.ip_forward, which
 * would make this host route between all its interfaces. Pods on one bridge need no forwarding;
 * they reach each other and this node (at the gateway address, where `serve` also listens for
 * them) directly. No default route and no masquerade: pod traffic leaves the node only for
 * another node's pods.
 *
 * Across nodes (issue 14 part 7): the node's range is its Node's spec.podCIDR, a subnet of the
 * cluster CIDR the node IPAM controller gives it (controllers/node-ipam.h); every pod gets a route
 * to the cluster CIDR via its bridge, and the node keeps a route to every other Node's podCIDR
 * via that Node's InternalIP (routes.h, node/route-keeper.h). Only then does forwarding change:
 * net.ipv4.conf.IF.forwarding goes on for this node's bridge and the interface holding its
 * InternalIP, and for no other interface (routes.h says why per interface); a node alone in
 * its cluster never turns it on. What that exposes: any host that can send to this node's
 * InternalIP can reach its pods' IPs (as with flannel's host-gw), and pods can reach what the
 * node's routes lead to; keep the node network private or filter it.
 *
 * Threads: a pod_network is read-only after open; attach/detach of different pods may run at
 * once (host-local locks its store), of one pod never (the pod worker's step). */
#ifndef FLEXLET_NODE_NETWORK_NETWORK_H
#define FLEXLET_NODE_NETWORK_NETWORK_H

#include <jansson.h>
#include <netinet/in.h>
#include <stdbool.h>

#include "base/error.h"

/* K8S: containerd's default CNI network (10-containerd-net.conflist) uses 10.88.0.0/16 */
#define NETWORK_DEFAULT_POD_CIDR "10.88.0.0/16"
#define NETWORK_DEFAULT_BRIDGE   "flexlet0"
#define NETWORK_DEFAULT_CNI_PATH "/usr/lib/cni"
#define NETWORK_NAME             "flexlet"
#define NETWORK_CONFLIST_FILE    "10-flexlet.conflist"

/* ------------------------------------------------------------------ pure parts */

struct network_cidr {
        struct in_addr network; /* host bits cleared */
        unsigned prefix;        /* 8..30 */
        struct in_addr gateway; /* network + 1 */
        char text[24];          /* "10.88.0.0/16" */
        char gateway_text[16];  /* "10.88.0.1" */
};

/* An IPv4 CIDR for pods: prefix 8 to 30, no host bits set. -EINVAL with why. */
int network_parse_cidr(const char *s, struct network_cidr *ret, struct error **reterr);

/* The node's configuration list (new reference): CNI 1.0.0, `bridge` named bridge with
 * isGateway and ipMasq false and hairpin mode, host-local over cidr with its store in
 * ipam_data_dir, then `portmap` with the portMappings capability. With a cluster CIDR that is
 * not cidr itself, host-local also gives each pod a route to it via the gateway (the other
 * nodes' pods; NULL: none). */
json_t *network_default_conflist(const char *bridge, const struct network_cidr *cidr,
                                 const char *cluster_cidr, const char *ipam_data_dir);
/* The loopback network every pod's netns gets first (containerd's "cni-loopback"). */
json_t *network_loopback_conflist(void);

/* K8S: the portMappings capability argument from the pod's containers' ports with a hostPort
 * (protocol lower case, hostIP when set), as the kubelet and containerd pass them. NULL when
 * there is none. */
json_t *network_port_mappings(const json_t *pod);

/* The CNI_ARGS containerd passes: IgnoreUnknown=1, K8S_POD_NAMESPACE, K8S_POD_NAME,
 * K8S_POD_INFRA_CONTAINER_ID, K8S_POD_UID (a JSON array of "K=V" strings). */
json_t *network_cni_args(const json_t *pod, const char *sandbox_id);

/* ------------------------------------------------------------------ the bridge (bridge.c) */

/* Makes the bridge if missing, puts gateway/prefix on it if missing, sets it up. An interface
 * of that name that is not a bridge is -EEXIST. Idempotent. */
int network_bridge_ensure(const char *name, const struct in_addr *gateway, unsigned prefix,
                          struct error **reterr);

/* ------------------------------------------------------------------ the node's pod network */

struct network_options {
        const char *data_dir; /* required */
        const char *pod_cidr; /* the node's (its Node's podCIDR); NULL: NETWORK_DEFAULT_POD_CIDR */
        /* every node's pods (the node IPAM controller's --cluster-cidr); NULL: only this
         * node's */
        const char *cluster_cidr;
        const char *bridge;   /* NULL: NETWORK_DEFAULT_BRIDGE */
        const char *cni_path; /* NULL: NETWORK_DEFAULT_CNI_PATH */
};

struct pod_network;

/* Checks the options, writes the configuration list, makes the bridge. */
int pod_network_open(const struct network_options *o, struct pod_network **ret,
                     struct error **reterr);
struct pod_network *pod_network_free(struct pod_network *pn);
/* The bridge's address, where pods reach this node ("10.88.0.1"). */
const char *pod_network_gateway(const struct pod_network *pn);
/* The bridge's name. */
const char *pod_network_bridge(const struct pod_network *pn);

/* Wires the network namespace of the running sandbox of sandbox_dir for pod: mounts it at
 * pod_dir/network/netns, records the attachment, runs ADD for loopback and the node's list.
 * Idempotent: an attachment already made for this very namespace only answers its IP. One made
 * for an earlier sandbox of the pod is deleted first. No CHECK on re-adoption, as containerd
 * (cni_list_check runs it): Debian 12's portmap (1.1.1) fails CHECK of every IPv4 pod with a
 * hostPort ("could not check ipv6 dnat: chain CNI-DN-… not found"), and making a working
 * attachment again would change the pod's IP under its connections. On any failure everything it
 * made is undone (DEL, unmount) before it returns the error. *ret_ip: the pod's IP (caller frees).
 */
int pod_network_attach(const struct pod_network *pn, const char *pod_dir, const char *sandbox_dir,
                       const json_t *pod, char **ret_ip, struct error **reterr);

/* Deletes the pod's attachment from its record alone (so it works after a restart of the
 * agent, with the sandbox gone): DEL for the node's list then loopback, with the netns path
 * when it is still mounted and "" otherwise, then unmounts and removes pod_dir/network. No
 * record: 0. Idempotent. */
int pod_network_detach(const struct pod_network *pn, const char *pod_dir, struct error **reterr);

#endif
