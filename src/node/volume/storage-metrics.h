/* storage-metrics.h: storage_operation_duration_seconds (K8S pkg/volume/util/metrics.go), the
 * one family that both the node agent (mounting, unmounting and growing filesystems) and the
 * storage controllers (expanding and provisioning volumes) record into, as the kubelet and
 * kube-controller-manager each do; under `flexlet serve` they share the process's registry. */
#ifndef FLEXLET_NODE_VOLUME_STORAGE_METRICS_H
#define FLEXLET_NODE_VOLUME_STORAGE_METRICS_H

#include <stdint.h>

#include "base/error.h"

struct metrics_registry;
struct metric;

/* K8S volume_plugin label values: in-tree plugin names, and "kubernetes.io/csi:<driver>" for
 * a CSI volume (GetFullQualifiedPluginNameForVolume). */
#define STORAGE_PLUGIN_EMPTY_DIR  "kubernetes.io/empty-dir"
#define STORAGE_PLUGIN_LOCAL_LOOP "kubernetes.io/csi:local-loop.flexlet.io"

/* The family in reg, registered on first use: histogram {volume_plugin, operation_name,
 * status, migrated} with upstream's buckets (0.1 s to 600 s). */
struct metric *storage_operation_metric(struct metrics_registry *reg, struct error **reterr);

/* Records one operation that started at start_ms (time_monotonic_ms()) and returned r:
 * status "success" when r >= 0, else "fail-unknown" (K8S OperationCompleteHook); migrated is
 * always "false". m NULL: nothing. */
void storage_operation_observe(struct metric *m, const char *plugin, const char *operation, int r,
                               int64_t start_ms);

#endif
