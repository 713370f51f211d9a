/* kubelet-client.h: how the API server reaches a node's kubelet, shared by pods/log
 * (pod-log.c), exec/attach (pod-stream.c) and the resource metrics (resource-metrics.c): the
 * kubelet's URL from its Node object and the client credentials the server was given for
 * kubelets (K8S: --kubelet-certificate-authority, --kubelet-client-certificate/-key, and
 * flexlet's kubelet token). Not for use outside apiserver/. */
#ifndef FLEXLET_APISERVER_KUBELET_CLIENT_H
#define FLEXLET_APISERVER_KUBELET_CLIENT_H

#include <jansson.h>
#include <stdbool.h>

#include "base/error.h"
#include "client/client.h"

struct apiserver;

/* K8S pkg/kubelet/client: the kubelet's port when the Node does not publish one. */
#define KUBELET_DEFAULT_PORT 10250

/* "https://HOST:PORT" of node's kubelet (K8S --kubelet-preferred-address-types as kubeadm sets
 * them: InternalIP, ExternalIP, Hostname; status.daemonEndpoints.kubeletEndpoint.Port or
 * KUBELET_DEFAULT_PORT). Returns it (caller frees), or NULL with -EIO in *reterr carrying
 * upstream's NoMatchError words when the Node has no such address. */
char *kubelet_node_url(const json_t *node, struct error **reterr);

/* The client options of a request to a kubelet: the kubelet CA, token and client certificate
 * of the server's options (borrowed from s, which outlives them); server_url left NULL. */
struct api_client_options kubelet_client_options(const struct apiserver *s, bool insecure);

#endif
