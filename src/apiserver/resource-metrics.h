/* resource-metrics.h: metrics.k8s.io/v1beta1 served by the API server itself (upstream serves
 * it from metrics-server through the aggregation layer): NodeMetrics and PodMetrics made on
 * request from the nodes' kubelet Summary API (GET /stats/summary, node/stats-summary.h),
 * with metrics-server's field semantics. What `kubectl top` reads. */
#ifndef FLEXLET_APISERVER_RESOURCE_METRICS_H
#define FLEXLET_APISERVER_RESOURCE_METRICS_H

#include <jansson.h>
#include <stdint.h>

struct apiserver;
struct api_target;
struct http_request;
struct http_response;

/* The window every object reports: the kubelet's CPU rate is taken over at least 1 s and at
 * most its 10 s sampling period (node/agent.c STATS_SAMPLE_S), and the Summary API does not
 * say which; metrics-server reports its own scrape interval the same way. */
#define RESOURCE_METRICS_WINDOW "10s"

/* K8S metrics-server: cpu is the usageNanoCores rate as NewScaledQuantity(rate, -9) in its
 * canonical form ("12m" when whole millicores, else "12345678n"); memory the working set as
 * NewQuantity(bytes, BinarySI) ("1234Ki", or plain bytes when not a multiple of 1024).
 * Caller frees. */
char *resource_metrics_cpu(uint64_t nano_cores);
char *resource_metrics_memory(uint64_t bytes);

/* The NodeMetrics of node (its Node object: name and labels) from its kubelet's summary, or
 * NULL when the summary has no CPU rate or no working set for the node. New reference. */
json_t *resource_metrics_node(const json_t *node, const json_t *summary);
/* The PodMetrics of pod (its Pod object: name, namespace, labels) from its node's summary, or
 * NULL when the summary does not list the pod (by uid) or none of its containers has a CPU
 * rate and a working set (metrics-server leaves such pods out). New reference. */
json_t *resource_metrics_pod(const json_t *pod, const json_t *summary);

/* GET of nodes and pods (one, or the collection: a namespace's or all, labelSelector and
 * fieldSelector metadata.name/metadata.namespace): answers a NodeMetrics/PodMetrics or a
 * NodeMetricsList/PodMetricsList in JSON. The kubelets are asked on a thread of the request's
 * own; the response is pending meanwhile. A node that cannot be reached is left out of a list
 * (as metrics-server does) and a get of its objects is 404 `nodes.metrics.k8s.io "<name>" not
 * found` (pods: `pods.metrics.k8s.io "<ns>/<name>" not found`). Authorization is the router's,
 * before this. */
void resource_metrics_serve(struct apiserver *s, const struct api_target *t,
                            const struct http_request *req, struct http_response *resp);

#endif
