/* node-metrics.h: the kubelet metrics the node agent keeps (K8S: pkg/kubelet/metrics, same names,
 * labels and buckets), registered in the process's metrics registry and rendered at /metrics. */
#ifndef FLEXLET_NODE_NODE_METRICS_H
#define FLEXLET_NODE_NODE_METRICS_H

#include "base/error.h"

struct metrics_registry;
struct metric;

struct node_metrics {
        struct metric *node_name;          /* kubelet_node_name{node} = 1 */
        struct metric *running_pods;       /* kubelet_running_pods */
        struct metric *running_containers; /* kubelet_running_containers{container_state} */
        struct metric *started_containers; /* kubelet_started_containers_total{container_type} */
        struct metric *started_container_errors; /* ..._errors_total{code,container_type} */
        struct metric *pod_start_duration;       /* kubelet_pod_start_duration_seconds */
        struct metric *pod_worker_duration; /* kubelet_pod_worker_duration_seconds{operation} */
        struct metric *evictions;           /* kubelet_evictions{eviction_signal} */
        struct metric *resize_duration;     /* kubelet_pod_resize_duration_milliseconds{success} */
        struct metric *pending_resizes;     /* kubelet_pod_pending_resizes{reason} */
        struct metric *in_progress_resizes; /* kubelet_pod_in_progress_resizes */
        struct metric *infeasible_resizes; /* kubelet_pod_infeasible_resizes_total{reason_detail} */
        /* kubelet_volume_stats_{capacity,available,used}_bytes and _inodes{,_free,_used}
         * {namespace,persistentvolumeclaim}: collected at scrape time */
        struct metric *volume_stats[6];
        /* storage_operation_duration_seconds{volume_plugin,operation_name,status,migrated}:
         * the node's volume_mount, volume_unmount and volume_fs_resize */
        struct metric *storage_operations;
        /* prober_probe_total{probe_type,result,container,pod,namespace,pod_uid} and
         * prober_probe_duration_seconds{probe_type,container,pod,namespace} (node/prober.h) */
        struct metric *probe_total;
        struct metric *probe_duration;
};

/* Registers the families in reg and sets kubelet_node_name. */
int node_metrics_register(struct metrics_registry *reg, const char *node_name,
                          struct node_metrics *ret, struct error **reterr);

#endif
