/* routes.h: the routes that carry pod traffic between nodes (issue 14 part 7, as flannel's
 * host-gw backend does it): one route per other Node, its spec.podCIDR via its InternalIP, made
 * over rtnetlink with flexlet's own route protocol number (NETWORK_RTPROT), so that a sync
 * deletes exactly the routes flexlet made that no Node wants any more and leaves every other
 * route of the host alone.
 *
 * Forwarding: the kernel forwards a packet only when the interface it came in on has
 * net.ipv4.conf.IF.forwarding set. A node turns it on for two interfaces only, once it has a
 * route to another node's pods: its pods' bridge (pods to other nodes) and the interface that
 * holds its InternalIP (other nodes to its pods). net.ipv4.ip_forward (every interface) stays as
 * the host has it. */
#ifndef FLEXLET_NODE_NETWORK_ROUTES_H
#define FLEXLET_NODE_NETWORK_ROUTES_H

#include <net/if.h>
#include <stddef.h>

#include "base/error.h"

/* The rtm_protocol of flexlet's routes (`ip route show proto 0x66`); iproute2's rt_protos lists
 * no one for it. */
#define NETWORK_RTPROT 0x66

struct network_route {
        char dst[20]; /* "10.88.1.0/24" */
        char via[16]; /* "10.213.0.12" */
};

/* Makes the main table's flexlet routes (NETWORK_RTPROT) exactly want[0..n): replaces each
 * wanted one (so a changed gateway is followed), deletes the others. The first failure is
 * returned after the rest were tried. */
int network_routes_sync(const struct network_route *want, size_t n, struct error **reterr);

/* Sets net.ipv4.conf.IFNAME.forwarding to 1. */
int network_forwarding_enable(const char *ifname, struct error **reterr);

/* The name of the interface that holds IPv4 address ip; -ENOENT when none does. */
int network_ifname_of(const char *ip, char out[static IF_NAMESIZE]);

#endif
