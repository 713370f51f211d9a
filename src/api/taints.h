/* taints.h: the taint keys Kubernetes itself puts on nodes (K8S: k8s.io/api core/v1
 * well_known_taints.go), shared by the controllers that set them and the admission that
 * tolerates them, and how a pod's tolerations meet a node's taints (K8S: core/v1
 * toleration.go ToleratesTaint, component-helpers scheduling/corev1 taint helpers). */
#ifndef FLEXLET_API_TAINTS_H
#define FLEXLET_API_TAINTS_H

#include <jansson.h>
#include <stdbool.h>

#define TAINT_NODE_UNSCHEDULABLE       "node.kubernetes.io/unschedulable"
#define TAINT_NODE_NOT_READY           "node.kubernetes.io/not-ready"
#define TAINT_NODE_UNREACHABLE         "node.kubernetes.io/unreachable"
#define TAINT_NODE_MEMORY_PRESSURE     "node.kubernetes.io/memory-pressure"
#define TAINT_NODE_DISK_PRESSURE       "node.kubernetes.io/disk-pressure"
#define TAINT_NODE_PID_PRESSURE        "node.kubernetes.io/pid-pressure"
#define TAINT_NODE_NETWORK_UNAVAILABLE "node.kubernetes.io/network-unavailable"

/* K8S: Toleration.ToleratesTaint: the effect is the taint's or empty, the key the taint's (or
 * empty with operator Exists), and Exists, or Equal (the default) with the taint's value. */
bool toleration_tolerates(const json_t *toleration, const json_t *taint);

/* The first of tolerations (a JSON array, may be NULL) that tolerates taint, or NULL. */
const json_t *taint_toleration(const json_t *taint, const json_t *tolerations);

/* K8S: FindMatchingUntoleratedTaint with the NoSchedule and NoExecute effects (the scheduler's
 * TaintToleration filter): the first such taint of taints the tolerations leave untolerated,
 * or NULL. */
const json_t *taint_untolerated(const json_t *taints, const json_t *tolerations);

#endif
