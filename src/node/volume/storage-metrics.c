/* storage-metrics.c: registers and records storage_operation_duration_seconds. */
#include "base/metrics.h"
#include "base/timeutil.h"
#include "node/volume/storage-metrics.h"

#define STORAGE_OPERATION_METRIC "storage_operation_duration_seconds"

/* K8S: storageOperationMetric's buckets */
static const double buckets[] = { .1, .25, .5, 1, 2.5, 5, 10, 15, 25, 50, 120, 300, 600 };

struct metric *storage_operation_metric(struct metrics_registry *reg, struct error **reterr)
{
        static const char *const labels[] = { "volume_plugin", "operation_name", "status",
                                              "migrated", NULL };
        struct metric *m = metrics_find(reg, STORAGE_OPERATION_METRIC);

        if (m)
                return m;
        return metrics_histogram_new(reg, STORAGE_OPERATION_METRIC,
                                     "[ALPHA] Storage operation duration", labels, buckets,
                                     sizeof(buckets) / sizeof(buckets[0]), reterr);
}

void storage_operation_observe(struct metric *m, const char *plugin, const char *operation, int r,
                               int64_t start_ms)
{
        const char *values[] = { plugin, operation, r >= 0 ? "success" : "fail-unknown", "false",
                                 NULL };

        if (m)
                (void) metrics_observe(m, values,
                                       (double) (time_monotonic_ms() - start_ms) / 1000.0);
}
