/* kubelet-portforward.h: the kubelet endpoint's port-forward sessions (K8S
 * pkg/kubelet/cri/streaming/portforward/httpstream.go, the forwarding itself as containerd's
 * sandbox_portforward_linux.go): `POST|GET /portForward/{ns}/{pod}` upgraded to SPDY/3.1 with
 * the sub-protocol portforward.k8s.io (X-Stream-Protocol-Version).
 *
 * Per forwarded connection the client opens two streams whose headers are streamtype (error or
 * data), port (1-65535) and requestid (pairing them; without it, as upstream, the id is derived
 * from the stream ids of a client too old to send one). A stream with a missing or bad header is
 * reset. Once both are there the kubelet connects to localhost:port inside the pod's network
 * namespace (IPv4, then IPv6; the host's for a hostNetwork pod) and copies both ways on the data
 * stream. When the connection fails, the error stream carries upstream's words, e.g. `error
 * forwarding port 9999 to pod <sandbox id>, uid : failed to execute portforward in network
 * namespace "<path>": IPv4: dial tcp4 127.0.0.1:9999: connect: connection refused IPv6: dial
 * tcp6 [::1]:9999: connect: connection refused`, and both streams are closed. When either
 * direction ends (the pod closed, or the client closed its half and the rest was written), the
 * other has a second to finish, as containerd's; a reset data stream ends the forward at once.
 * Both streams end with FIN. The session ends when the client goes away or says GOAWAY.
 *
 * A WebSocket request (the older portforward.k8s.io channel protocol, or the SPDY tunnel that
 * the API server unwraps before it reaches the kubelet) is refused with 400. */
#ifndef FLEXLET_NODE_KUBELET_PORTFORWARD_H
#define FLEXLET_NODE_KUBELET_PORTFORWARD_H

#include "http/http.h"

/* Which pod a forward goes into. */
struct kubelet_portforward_target {
        const char *sandbox_dir; /* runtime_sandbox_dir: whose network namespace is joined */
        const char *pod_id;      /* the name in messages (the sandbox id, as containerd's) */
        const char *netns_path;  /* the namespace's name in messages; "host" for hostNetwork */
};

/* Answers a port-forward request: 400 or 403 with the reason for a request that is no SPDY/3.1
 * upgrade of portforward.k8s.io, else a 101 whose session runs on the upgraded connection. */
void kubelet_portforward_serve(const struct kubelet_portforward_target *t,
                               const struct http_request *req, struct http_response *resp);

#endif
