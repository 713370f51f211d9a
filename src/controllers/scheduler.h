/* scheduler.h: binds pods without spec.nodeName to a node chosen as kube-scheduler's default
 * profile chooses (filters, weighted scores: docs/scheduler.md), as an API client (list + watch
 * of pods, claims, volumes, classes, namespaces and ReplicaSets; GET nodes; POST
 * pods/{name}/binding). A pod that fits nowhere gets PodScheduled=False, reason Unschedulable,
 * with upstream's message, and a FailedScheduling event. A pod with unbound WaitForFirstConsumer
 * claims is bound only once the claims are: the scheduler annotates them with the chosen node
 * (volume.kubernetes.io/selected-node), holds the pod's requests on that node meanwhile, and
 * binds it on a later pass (upstream's VolumeBinding PreBind; volume-binding.h). */
#ifndef FLEXLET_CONTROLLERS_SCHEDULER_H
#define FLEXLET_CONTROLLERS_SCHEDULER_H

#include <jansson.h>
#include <stdint.h>

#include "base/error.h"
#include "client/client.h"
#include "controllers/volume-binding.h"

struct scheduler;

/* Starts the scheduler's thread. The options are copied. */
int scheduler_start(const struct api_client_options *o, struct scheduler **ret,
                    struct error **reterr);
struct scheduler *scheduler_stop(struct scheduler *s);

/* K8S (KEP-1287): the requests a pod holds on its node: per resource, the larger of what the
 * spec asks (desired) and what the node allocated (status.containerStatuses[].
 * allocatedResources). */
int scheduler_pod_requests(const json_t *pod, int64_t *ret_milli_cpu, int64_t *ret_memory);

/* What the decisions of one pass may share: each pod's requests, computed once. It is keyed by
 * the pods' addresses, so it is valid only while every pod it has seen is alive and unchanged
 * (one pass over one snapshot). */
struct scheduler_cache;
struct scheduler_cache *scheduler_cache_new(void);
struct scheduler_cache *scheduler_cache_free(struct scheduler_cache *c);

/* What one scheduling decision reads, borrowed. */
struct scheduler_cluster {
        const json_t *nodes;       /* a JSON array of Node objects */
        const json_t *pods;        /* a JSON array of Pods; those with spec.nodeName count there */
        const json_t *namespaces;  /* "name" -> Namespace (namespaceSelector); NULL: none */
        const json_t *replicasets; /* "ns/name" -> ReplicaSet (default spreading); NULL: none */
        const struct vb_objects *vols; /* the VolumeBinding plugin's objects; NULL: not run */
        uint64_t *rng; /* the tie-break's random state, advanced; NULL: the first best node */
        struct scheduler_cache *cache; /* NULL: the requests are computed for this call */
        json_t *ret_scores;            /* when not NULL, an object filled with node name ->
                                        * {plugin name: normalized score, "total": weighted sum} when
                                        * more than one node is feasible */
};

/* One scheduling decision as upstream's default profile makes it (docs/scheduler.md), pure: the
 * name of the node (borrowed from cl->nodes) pod goes to, or NULL and *ret_message set to
 * upstream's FailedScheduling text (caller frees): with no node "no nodes available to schedule
 * pods"; a PreFilter refusal (volumes) "0/N nodes are available: <reason>. preemption: 0/N nodes
 * are available: N Preemption is not helpful for scheduling."; else each node's reasons from
 * the first filter it failed, counted and sorted, then the preemption summary. */
const char *scheduler_schedule(const json_t *pod, const struct scheduler_cluster *cl,
                               char **ret_message);

/* scheduler_schedule() over nodes and pods alone (no volumes, namespaces, ReplicaSets; ties to
 * the first best node). */
const char *scheduler_pick_node(const json_t *pod, const json_t *nodes, const json_t *pods,
                                char **ret_message);

/* The same with the VolumeBinding plugin over vols (NULL: as scheduler_pick_node). */
const char *scheduler_pick_node_volumes(const json_t *pod, const json_t *nodes, const json_t *pods,
                                        const struct vb_objects *vols, char **ret_message);

#endif
