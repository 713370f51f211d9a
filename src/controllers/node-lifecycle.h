/* node-lifecycle.h: the node lifecycle controller and the taint eviction controller (K8S:
 * pkg/controller/nodelifecycle and pkg/controller/tainteviction, run together as
 * kube-controller-manager runs them):
 * - node health: a node whose Lease in kube-node-lease and Ready heartbeat have both stood still
 *   for the grace period has its Ready, MemoryPressure, DiskPressure and PIDPressure conditions
 *   set Unknown ("Kubelet stopped posting node status."), and its pods marked not Ready;
 * - taints: NoSchedule taints from spec.unschedulable and the conditions (not-ready,
 *   unreachable, memory-pressure, disk-pressure, pid-pressure, network-unavailable), and the
 *   not-ready / unreachable NoExecute taints, added at most evictionLimiterQPS nodes per second
 *   per zone and not at all in a zone in partial disruption (small clusters) or when every zone
 *   is fully disrupted (then they are taken off), and removed as soon as the node is Ready;
 * - taint eviction: a pod on a node with NoExecute taints it does not tolerate is deleted at
 *   once; one that tolerates them for a while is deleted when the shortest tolerationSeconds has
 *   passed since the taints were seen, with the DisruptionTarget condition and
 *   TaintManagerEviction events as upstream. */
#ifndef FLEXLET_CONTROLLERS_NODE_LIFECYCLE_H
#define FLEXLET_CONTROLLERS_NODE_LIFECYCLE_H

#include <jansson.h>
#include <stdbool.h>

#include "api/taints.h"
#include "base/error.h"
#include "client/client.h"

/* K8S: kube-controller-manager's --node-monitor-period and --node-monitor-grace-period
 * defaults (the grace period is 50 s since 1.32). */
#define NODE_MONITOR_PERIOD_MS_DEFAULT       5000
#define NODE_MONITOR_GRACE_PERIOD_MS_DEFAULT 50000

/* What node_lifecycle_taints may do with the NoExecute taints. */
enum no_execute_tainting {
        NO_EXECUTE_ADD,   /* add, swap and remove as the Ready condition says */
        NO_EXECUTE_HOLD,  /* swap not-ready/unreachable and remove, but add none (rate limited) */
        NO_EXECUTE_CLEAR, /* remove them (every zone is fully disrupted) */
};

/* The spec.taints node should have: a new array when it differs from the node's, NULL when the
 * node's taints are already right. Taints the controller does not manage are kept in order;
 * managed ones that stay keep their timeAdded; new ones get timeAdded now (RFC 3339), except
 * unschedulable, which has none. */
json_t *node_lifecycle_taints(const json_t *node, enum no_execute_tainting no_execute,
                              const char *now);

/* K8S: tryUpdateNodeHealth's update once the grace period has passed: the conditions array
 * (new) with Ready, MemoryPressure, DiskPressure and PIDPressure Unknown, a missing one added as
 * "NodeStatusNeverUpdated"; NULL when every one is Unknown already. */
json_t *node_lifecycle_unknown_conditions(const json_t *node, const char *now);

/* K8S: tainteviction getMinTolerationTime over GetMatchingTolerations: for a pod with the
 * given tolerations on a node with the given taints, the seconds until it must go: -1 never
 * (every NoExecute taint is tolerated without a limit, or there is none), 0 now (one is not
 * tolerated, or a toleration's tolerationSeconds is 0 or less), else the smallest
 * tolerationSeconds of the tolerations that match. */
long long taint_eviction_seconds(const json_t *taints, const json_t *tolerations);

struct node_lifecycle_options {
        long monitor_period_ms; /* 0: NODE_MONITOR_PERIOD_MS_DEFAULT */
        long grace_period_ms;   /* 0: NODE_MONITOR_GRACE_PERIOD_MS_DEFAULT */
};

struct node_lifecycle_controller;

/* Starts the controller (informers over nodes, node leases and pods, and a pass thread); nlo
 * may be NULL for the defaults. */
int node_lifecycle_controller_start(const struct api_client_options *o,
                                    const struct node_lifecycle_options *nlo,
                                    struct node_lifecycle_controller **ret, struct error **reterr);
/* Stops it; NULL-safe, returns NULL. */
struct node_lifecycle_controller *
node_lifecycle_controller_stop(struct node_lifecycle_controller *x);

#endif
