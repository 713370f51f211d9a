/* agent.h: the node agent: registers this machine as a Node and keeps it Ready, watches the
 * pods bound to it, runs them (pod-worker.c) and reports their status, all as an API client. */
#ifndef FLEXLET_NODE_AGENT_H
#define FLEXLET_NODE_AGENT_H

#include <stdbool.h>

#include "base/error.h"
#include "node/image-gc.h"
#include "node/status-sender.h"

struct node_agent_options {
        const char *server_url;
        const char *ca_file;
        /* the agent's own credential towards the API server: the client certificate and key
         * (PEM files) of its node identity, system:node:NAME in system:nodes (pki.h), or a
         * bearer token; token is ignored when cert_file and key_file are given */
        const char *cert_file;
        const char *key_file;
        const char *token;
        /* the bearer token the API server presents to this node's kubelet endpoint (not an API
         * credential; NULL: none, then kubelet_client_ca_pem is required) */
        const char *kubelet_token;
        const char *node_name;
        const char *data_dir;             /* pods live under DATA_DIR/pods */
        const char *cgroup_root;          /* every cgroup below it */
        const char *allocatable;          /* --allocatable, or NULL */
        const char *feature_gates;        /* --feature-gates, or NULL */
        struct metrics_registry *metrics; /* where the kubelet metrics go; NULL: none */
        /* the kubelet endpoint's serving certificate and key (PEM), signed by the CA the
         * apiserver trusts for kubelets and valid for the node's InternalIP */
        const char *kubelet_cert_pem;
        const char *kubelet_key_pem;
        /* the kubelet endpoint's address (HOST:PORT); NULL: every address, a free port */
        const char *kubelet_listen;
        /* the CA (PEM) whose system:masters client certificates the kubelet endpoint takes
         * besides kubelet_token (kubelet-server.h); NULL: the token only */
        const char *kubelet_client_ca_pem;
        /* the pod network (borrowed: must outlive the agent); NULL: pods use the host's */
        const struct pod_network *network;
        /* where pods reach the API server (KUBERNETES_SERVICE_HOST/PORT); NULL: not told */
        const char *service_host;
        unsigned service_port;
        /* the image garbage collection (image-gc.h); period_ms 0: IMAGE_GC_POLICY_DEFAULT */
        struct image_gc_policy image_gc;
        /* registries pulled from over plain http (HOST[:PORT], NULL-ended); NULL: none */
        const char *const *insecure_registries;
        /* the pod workers: how many pods are stepped at once (--pod-workers, at least 1; 0 is
         * refused: -EINVAL); node_agent_default_pod_workers() unless told */
        unsigned pod_workers;
        /* how fast its events go out (--event-qps, --event-burst; status-sender.h) */
        struct event_rate event_rate;
        /* An agent in the API server's own process (`flexlet serve`): its pods, claims and
         * volumes are listed and watched through this feed (client/informer.h), straight from
         * the server's watch cache, instead of over HTTPS and the node authorizer (the process
         * is the server: nothing to authorize); writes go as the node (loopback below).
         * Borrowed: it must outlive the agent. NULL: over HTTPS (`flexlet node`). */
        const struct informer_feed *feed;
        /* An agent in the API server's own process: its requests (statuses, events, the
         * objects its pods use, its node and lease) go through this loopback
         * (client/client.h) as the node, instead of over HTTPS. Borrowed, as feed. NULL: over
         * HTTPS. */
        const struct api_loopback *loopback;
};

/* K8S: the kubelet runs a goroutine per pod; here a bounded pool of twice the online CPUs
 * (at least 2, at most 16): a step is partly waiting on the kernel and the pod's helper
 * process, so two threads per CPU keep it busy, and few enough steps are in flight that a
 * SIGTERM, which waits for them, stays prompt on a loaded node. */
unsigned node_agent_default_pod_workers(void);

struct node_agent;
struct api_loopback;
struct informer_feed;
struct metrics_registry;
struct pod_network;

/* Registers the node (synchronously, so a failure is reported here) and starts the agent's
 * threads. The options are copied. */
int node_agent_start(const struct node_agent_options *o, struct node_agent **ret,
                     struct error **reterr);
/* Stops watching and syncing; running containers keep running (they outlive the agent). */
struct node_agent *node_agent_stop(struct node_agent *a);

#endif
