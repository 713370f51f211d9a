/* node-metrics.c: registers the kubelet's metric families (names, help texts, labels and buckets
 * as pkg/kubelet/metrics/metrics.go declares them). */
#include <errno.h>
#include <stddef.h>

#include "base/metrics.h"
#include "node/node-metrics.h"
#include "node/volume/storage-metrics.h"

/* K8S: PodStartDuration buckets */
static const double pod_start_buckets[] = { 0.5, 1,   2,   3,    4,    5,    6,   8,   10,
                                            20,  30,  45,  60,   120,  180,  240, 300, 360,
                                            480, 600, 900, 1200, 1800, 2700, 3600 };

/* K8S: pkg/kubelet/metrics/collectors/volume_stats.go, in struct node_metrics' order */
static const struct {
        const char *name, *help;
} volume_stats[6] = {
        { "kubelet_volume_stats_capacity_bytes", "[ALPHA] Capacity in bytes of the volume" },
        { "kubelet_volume_stats_available_bytes",
          "[ALPHA] Number of available bytes in the volume" },
        { "kubelet_volume_stats_used_bytes", "[ALPHA] Number of used bytes in the volume" },
        { "kubelet_volume_stats_inodes", "[ALPHA] Maximum number of inodes in the volume" },
        { "kubelet_volume_stats_inodes_free", "[ALPHA] Number of free inodes in the volume" },
        { "kubelet_volume_stats_inodes_used", "[ALPHA] Number of used inodes in the volume" },
};
static const char *const claim_labels[] = { "namespace", "persistentvolumeclaim", NULL };

/* K8S: PodResizeDurationMilliseconds buckets */
static const double resize_buckets[] = { 10,    50,    100,   500,   1000,   2000,   5000,
                                         10000, 20000, 30000, 60000, 120000, 300000, 600000 };

int node_metrics_register(struct metrics_registry *reg, const char *node_name,
                          struct node_metrics *ret, struct error **reterr)
{
        static const char *const node_label[] = { "node", NULL };
        static const char *const state_label[] = { "container_state", NULL };
        static const char *const type_label[] = { "container_type", NULL };
        static const char *const code_type_labels[] = { "code", "container_type", NULL };
        static const char *const operation_label[] = { "operation", NULL };
        static const char *const signal_label[] = { "eviction_signal", NULL };
        static const char *const success_label[] = { "success", NULL };
        static const char *const reason_label[] = { "reason", NULL };
        static const char *const detail_label[] = { "reason_detail", NULL };
        static const char *const probe_labels[] = { "probe_type", "result",  "container", "pod",
                                                    "namespace",  "pod_uid", NULL };
        static const char *const probe_duration_labels[] = { "probe_type", "container", "pod",
                                                             "namespace", NULL };
        struct node_metrics m = { 0 };
        const char *node[] = { node_name, NULL };

        m.node_name = metrics_gauge_new(reg, "kubelet_node_name",
                                        "[ALPHA] The node's name. The count is always 1.",
                                        node_label, reterr);
        if (m.node_name)
                m.running_pods = metrics_gauge_new(
                        reg, "kubelet_running_pods",
                        "[ALPHA] Number of pods that have a running pod sandbox", NULL, reterr);
        if (m.running_pods)
                m.running_containers = metrics_gauge_new(reg, "kubelet_running_containers",
                                                         "[ALPHA] Number of containers currently "
                                                         "running",
                                                         state_label, reterr);
        if (m.running_containers)
                m.started_containers = metrics_counter_new(
                        reg, "kubelet_started_containers_total",
                        "[ALPHA] Cumulative number of containers started", type_label, reterr);
        if (m.started_containers)
                m.started_container_errors = metrics_counter_new(
                        reg, "kubelet_started_containers_errors_total",
                        "[ALPHA] Cumulative number of errors when starting containers",
                        code_type_labels, reterr);
        if (m.started_container_errors)
                m.pod_start_duration = metrics_histogram_new(
                        reg, "kubelet_pod_start_duration_seconds",
                        "[ALPHA] Duration in seconds from kubelet seeing a pod for the first time "
                        "to the pod starting to run",
                        NULL, pod_start_buckets,
                        sizeof(pod_start_buckets) / sizeof(pod_start_buckets[0]), reterr);
        if (m.pod_start_duration)
                m.pod_worker_duration = metrics_histogram_new(
                        reg, "kubelet_pod_worker_duration_seconds",
                        "[ALPHA] Duration in seconds to sync a single pod. Broken down by "
                        "operation type: create, update, or sync",
                        operation_label, NULL, 0, reterr);
        if (m.pod_worker_duration)
                m.evictions = metrics_counter_new(
                        reg, "kubelet_evictions",
                        "[ALPHA] Cumulative number of pod evictions by eviction signal",
                        signal_label, reterr);
        if (m.evictions)
                m.resize_duration = metrics_histogram_new(
                        reg, "kubelet_pod_resize_duration_milliseconds",
                        "[ALPHA] Duration in milliseconds to actuate a pod resize", success_label,
                        resize_buckets, sizeof(resize_buckets) / sizeof(resize_buckets[0]), reterr);
        if (m.resize_duration)
                m.pending_resizes = metrics_gauge_new(
                        reg, "kubelet_pod_pending_resizes",
                        "[ALPHA] Number of pending resizes for pods, by the reason they wait",
                        reason_label, reterr);
        if (m.pending_resizes)
                m.in_progress_resizes = metrics_gauge_new(
                        reg, "kubelet_pod_in_progress_resizes",
                        "[ALPHA] Number of in-progress resizes for pods", NULL, reterr);
        if (m.in_progress_resizes)
                m.infeasible_resizes = metrics_counter_new(
                        reg, "kubelet_pod_infeasible_resizes_total",
                        "[ALPHA] Number of infeasible resizes for pods, by the reason they are "
                        "infeasible",
                        detail_label, reterr);
        for (size_t i = 0; i < 6 && m.infeasible_resizes; i++) {
                m.volume_stats[i] =
                        metrics_collected_new(reg, METRIC_GAUGE, volume_stats[i].name,
                                              volume_stats[i].help, claim_labels, reterr);
                if (!m.volume_stats[i])
                        return -EINVAL;
        }
        if (!m.infeasible_resizes)
                return -EINVAL;
        m.storage_operations = storage_operation_metric(reg, reterr);
        /* K8S: pkg/kubelet/prober/prober_manager.go ProberResults (BETA) and ProberDuration
         * (ALPHA, client_golang's default buckets); served on the kubelet's /metrics/probes */
        if (m.storage_operations)
                m.probe_total = metrics_counter_new(
                        reg, "prober_probe_total",
                        "[BETA] Cumulative number of a liveness, readiness or startup probe for a "
                        "container by result.",
                        probe_labels, reterr);
        if (m.probe_total)
                m.probe_duration =
                        metrics_histogram_new(reg, "prober_probe_duration_seconds",
                                              "[ALPHA] Duration in seconds for a probe response.",
                                              probe_duration_labels, NULL, 0, reterr);
        if (!m.probe_duration)
                return -EINVAL;
        (void) metrics_set(m.node_name, node, 1);
        *ret = m;
        return 0;
}
