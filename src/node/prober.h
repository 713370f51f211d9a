/* prober.h: the kubelet's container probes (K8S: pkg/kubelet/prober): liveness, readiness and
 * startup probes of the running containers, each on its own schedule (initialDelaySeconds,
 * periodSeconds, timeoutSeconds, successThreshold, failureThreshold) on a small pool of
 * threads, never on the pod worker's thread: a slow probe delays no resize and no other pod.
 *
 * Handlers, run from the node's network namespace against the pod's IP as the kubelet does
 * (pkg/probe): httpGet (HTTP or HTTPS without verification; 200-399 is success, a redirect is
 * not followed and counts as success), tcpSocket (a connect), grpc (grpc.health.v1.Health/Check
 * over HTTP/2 without TLS; SERVING is success), exec (the command in the container as `kubectl
 * exec` runs one, runtime_exec_start; exit 0 is success). A probe that cannot run at all (no
 * such port, the container gone) is a "probe errored" event and keeps its result, as upstream
 * treats a prober error.
 *
 * Results follow pkg/kubelet/prober/worker.go: readiness starts as failure, liveness as
 * success, startup as unknown; a result changes only after successThreshold (failureThreshold)
 * equal results in a row; liveness and readiness wait for startup to succeed, and startup stops
 * once it has. Every failed attempt is a Warning "Unhealthy" event "<Type> probe failed: <why>",
 * queued until the pod's next step; a changed result wakes the pod's worker. */
#ifndef FLEXLET_NODE_PROBER_H
#define FLEXLET_NODE_PROBER_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "base/error.h"

struct prober;

/* events one run's probes keep between two steps of its pod; more are dropped (the kubelet's
 * event recorder aggregates repeats too) */
#define PROBER_MAX_EVENTS 4

enum probe_type { PROBE_LIVENESS, PROBE_READINESS, PROBE_STARTUP, PROBE_TYPE_MAX };

/* Called (from a prober thread) when a probe's result changed or an event is waiting: the
 * agent steps the pod soon. */
typedef void (*prober_wake_fn)(void *ud, const char *pod_uid);

struct node_metrics;

/* metrics (NULL: none): prober_probe_total and prober_probe_duration_seconds are kept there,
 * a pod's series deleted when it is forgotten. */
int prober_new(unsigned n_threads, prober_wake_fn wake, void *ud,
               const struct node_metrics *metrics, struct prober **ret, struct error **reterr);
/* Stops the threads (waiting for probes in flight, each bounded by its timeout) and frees. */
void prober_free(struct prober *p);

/* What the probes of one container run say. */
struct probe_verdict {
        bool started; /* no startupProbe, or it has succeeded */
        bool ready;   /* started, and no readinessProbe or it says ready */
        /* PROBE_LIVENESS or PROBE_STARTUP when that probe reached its failureThreshold: the
         * run is to be killed and restarted; PROBE_TYPE_MAX otherwise */
        enum probe_type kill_for;
        int64_t kill_grace_s; /* that probe's terminationGracePeriodSeconds; -1: the pod's */
        /* the messages of the Warning "Unhealthy" events waiting since the last call (owned:
         * free each) */
        char *unhealthy[PROBER_MAX_EVENTS];
        size_t n_unhealthy;
};

/* Which container run probes are of: its pod (uid, and the namespace and name its metric
 * series are labelled with), the container's name and the run's number. */
struct probe_run {
        const char *pod_uid, *ns, *pod, *container;
        int run;
};

/* The probes of run (of a container whose spec is spec), which runs and is reachable at host
 * (the pod's IP) and whose state is in run_dir (runtime_container_dir, for exec probes):
 * registered on the first call, answered from what they found so far. started_at: when the
 * run started (initialDelaySeconds counts from it). Marks the run seen in the pod's current
 * pass (see prober_pod_end). */
void prober_container(struct prober *p, const struct probe_run *run, const json_t *spec,
                      const char *host, const char *run_dir, time_t started_at,
                      struct probe_verdict *ret);

/* A pass over a pod's containers: between prober_pod_begin and prober_pod_end, every run still
 * running is named by prober_container; the others (ended, or of a container gone) are
 * forgotten at the end. */
void prober_pod_begin(struct prober *p, const char *uid);
void prober_pod_end(struct prober *p, const char *uid);
/* Forgets every probe of the pod (deleted, or ended), and its metric series. */
void prober_forget_pod(struct prober *p, const char *uid);

/* Pure parts, for tests. The port of a probe handler (an int, or the name of one of the
 * container's ports): 1-65535, or -EINVAL. */
int probe_port(const json_t *handler, const json_t *container);
/* The gRPC health check request body (5-byte frame header and HealthCheckRequest{service})
 * into buf (at least 5 + 3 + strlen(service) bytes); returns its length. */
size_t probe_grpc_request(const char *service, unsigned char *buf, size_t max);
/* The serving status in a gRPC response body (frames of HealthCheckResponse); -EINVAL when
 * there is none. */
int probe_grpc_status(const unsigned char *body, size_t len);

#endif
