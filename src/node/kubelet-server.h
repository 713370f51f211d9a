/* kubelet-server.h: the node's kubelet endpoint, what kube-apiserver proxies pods/{name}/log
 * to (upstream: the kubelet's port 10250). It serves, over HTTPS on top of http/:
 *
 *   GET /containerLogs/{namespace}/{pod}/{container}   the container's log, as the kubelet
 *       serves it: query follow, previous, tailLines, limitBytes, timestamps, sinceSeconds,
 *       sinceTime (PodLogOptions' query names); 200 text/plain, sent chunked, streamed while
 *       following until the container has exited and its log is drained or the client goes.
 *   GET /stats/summary                                   the Summary API (K8S
 *       k8s.io/kubelet/pkg/apis/stats/v1alpha1 Summary; node/stats-summary.h), 200
 *       application/json, as the summary callback builds it; 500 with its message when it fails.
 *   POST|GET /portForward/{namespace}/{pod}[/{uid}]      port-forward, SPDY/3.1
 *       (kubelet-portforward.h).
 *   GET /healthz                                         200 "ok", no token needed.
 *
 * Every other request needs "Authorization: Bearer <token>" or, with client_ca_pem, a client
 * certificate that CA signed whose subject O includes system:masters (401 "Unauthorized"
 * otherwise); kube-apiserver sends the token it was given for kubelets and its client
 * certificate (K8S: the kubelet's --client-ca-file; kubeadm's apiserver-kubelet-client was in
 * system:masters, which the kubelet's authorizer allows everything). Errors are plain text with the
 * kubelet's codes and words (pkg/kubelet/server/server.go getContainerLogs):
 *   400 {"message": "Unable to decode query."}   a malformed number, time or path
 *   422 {"message": "Invalid request."}          tailLines < 0, limitBytes < 1, sinceSeconds
 *                                                < 1, or both sinceSeconds and sinceTime
 *   404 pod "<pod>" does not exist               find_container: -ESRCH
 *   404 container "<c>" not found in pod "<pod>" find_container: -ENOENT
 *   400 <the callback's message>                 find_container: any other -errno
 *   400 failed to open log file "<path>": ...    the container has no log file
 *   404 404 page not found                       any other path
 *   405 Method Not Allowed                       a method other than GET
 *
 * The server knows nothing of pods: the node agent answers find_container from its own state.
 * Threads: one per connection (http-server.h); find_container may run on several at once and
 * concurrently with the agent's own threads. */
#ifndef FLEXLET_NODE_KUBELET_SERVER_H
#define FLEXLET_NODE_KUBELET_SERVER_H

#include <jansson.h>
#include <stdbool.h>

#include "base/error.h"

/* Which run of container `container` of pod `pod` (namespace ns) has the log to show.
 *
 * previous false: the current run (K8S validateContainerLogStatus: the running one, else the
 * last terminated one); previous true: the run before the last one (`kubectl logs -p`).
 *
 * Returns 0 and sets *ret_state_dir (malloc'd, the caller frees) to that run's runtime state
 * dir (runtime_container_dir): its container.log is read and, with follow, the container's
 * exit recorded there (exit.json) ends the stream. Otherwise:
 *   -ESRCH   no pod of that name in that namespace on this node (the server answers 404
 *            `pod "<pod>" does not exist`; reterr is not used);
 *   -ENOENT  the pod has no container of that name, counting init and ephemeral containers
 *            (404 `container "<c>" not found in pod "<pod>"`; reterr is not used);
 *   -EAGAIN  the container has no log to show yet or no such run: *reterr carries upstream's
 *            words, which kubelet_log_refuse() writes (400 with that message);
 *   other -errno with *reterr: 400 with its message, as the kubelet answers any failure of
 *            GetKubeletContainerLogs.
 * Must be thread-safe (see above) and must not block for long. */
typedef int (*kubelet_find_container_fn)(void *ud, const char *ns, const char *pod,
                                         const char *container, bool previous, char **ret_state_dir,
                                         struct error **reterr);

/* K8S pkg/kubelet/kubelet_pods.go validateContainerLogStatus: why a container has nothing to
 * show, decided from its status (the agent's view of State and LastTerminationState). */
enum kubelet_log_refusal {
        /* no status for the container: `container "c" in pod "p" is not available` */
        KUBELET_LOG_NOT_AVAILABLE,
        /* previous asked, but no terminated earlier run:
         * `previous terminated container "c" in pod "p" not found` */
        KUBELET_LOG_NO_PREVIOUS,
        /* terminated without a run that left a container (it never started):
         * `container "c" in pod "p" is terminated` */
        KUBELET_LOG_TERMINATED,
        /* waiting, with State.Waiting.Reason: `container "c" in pod "p" is waiting to start:
         * <reason>`; ErrImagePull reads "image can't be pulled", ImagePullBackOff "trying and
         * failing to pull image" */
        KUBELET_LOG_WAITING,
        /* no state at all: `container "c" in pod "p" is waiting to start - no logs yet` */
        KUBELET_LOG_NO_LOGS_YET,
        KUBELET_LOG_REFUSAL_MAX,
};

/* Sets *reterr to upstream's message for why (reason: the waiting reason, used only by
 * KUBELET_LOG_WAITING, e.g. "ContainerCreating") and returns -EAGAIN, ready to be returned
 * from find_container. */
int kubelet_log_refuse(enum kubelet_log_refusal why, const char *pod, const char *container,
                       const char *reason, struct error **reterr);

/* The node's Summary (GET /stats/summary): 0 with *ret (a new reference), or -errno with
 * *reterr. Called on the connection's thread, possibly on several at once. */
typedef int (*kubelet_summary_fn)(void *ud, json_t **ret, struct error **reterr);

/* Port-forward's question (K8S server.go getPortForward): the network namespace of pod `pod`
 * (namespace ns). Returns 0 with *ret_sandbox_dir (runtime_sandbox_dir), *ret_pod_id (the
 * sandbox id, for messages) and *ret_netns_path (the namespace's path, "host" for a
 * hostNetwork pod), all malloc'd; -ESRCH when no such pod is on this node (404 `pod does not
 * exist`). Thread-safe, quick. */
typedef int (*kubelet_find_pod_fn)(void *ud, const char *ns, const char *pod,
                                   char **ret_sandbox_dir, char **ret_pod_id, char **ret_netns_path,
                                   struct error **reterr);

struct kubelet_server_options {
        /* "HOST:PORT"; port 0 picks a free one (kubelet_server_port() tells which; the agent
         * publishes it in Node.status.daemonEndpoints.kubeletEndpoint.Port) */
        const char *listen;
        const char *cert_pem; /* serving certificate and key (PEM); NULL: plain HTTP (tests) */
        const char *key_pem;
        const char *token; /* the bearer token callers may present; NULL: none */
        /* the CA (PEM) whose client certificates for system:masters are taken; NULL: none.
         * One of token and client_ca_pem is required. */
        const char *client_ca_pem;
        kubelet_find_container_fn find_container; /* required */
        kubelet_summary_fn summary;               /* NULL: /stats/summary is 404 */
        kubelet_find_pod_fn find_pod;             /* NULL: /portForward answers 404 */
        void *ud; /* for find_container, summary and find_pod; outlives the server */
};

struct kubelet_server;

/* Starts serving; the options' strings are copied. -EINVAL for missing options or a bad
 * listen address, -EADDRINUSE when it cannot be bound, with *reterr saying which. */
int kubelet_server_start(const struct kubelet_server_options *o, struct kubelet_server **ret,
                         struct error **reterr);
/* The port actually bound. */
unsigned kubelet_server_port(const struct kubelet_server *k);
/* Stops serving: ends every connection (a follow in progress stops and its reader thread is
 * joined) and frees k. NULL-safe; returns NULL. */
struct kubelet_server *kubelet_server_stop(struct kubelet_server *k);

#endif
