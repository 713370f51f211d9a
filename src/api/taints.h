/* taints.h: the taint keys Kubernetes itself puts on nodes (K8S: k8s.io/api core/v1
 * well_known_taints.go), shared by the controllers that set them and the admission that
 * tolerates them. */
#ifndef FLEXLET_API_TAINTS_H
#define FLEXLET_API_TAINTS_H

#define TAINT_NODE_UNSCHEDULABLE       "node.kubernetes.io/unschedulable"
#define TAINT_NODE_NOT_READY           "node.kubernetes.io/not-ready"
#define TAINT_NODE_UNREACHABLE         "node.kubernetes.io/unreachable"
#define TAINT_NODE_MEMORY_PRESSURE     "node.kubernetes.io/memory-pressure"
#define TAINT_NODE_DISK_PRESSURE       "node.kubernetes.io/disk-pressure"
#define TAINT_NODE_PID_PRESSURE        "node.kubernetes.io/pid-pressure"
#define TAINT_NODE_NETWORK_UNAVAILABLE "node.kubernetes.io/network-unavailable"

#endif
