/* schema-metrics.c: metrics.k8s.io/v1beta1 NodeMetrics and PodMetrics, what `kubectl top`
 * reads. Field names, protobuf numbers and Go declarations follow k8s.io/metrics
 * pkg/apis/metrics/v1beta1 types.go and generated.proto. The objects are never stored or
 * decoded from clients: the API server makes them (apiserver/resource-metrics.c); the schema
 * serves discovery, OpenAPI and `kubectl explain`. `window` is a metav1.Duration, text in JSON
 * ("10s"). */
#include "api/schemas.h"

/* metrics/v1beta1 ContainerMetrics */
/* clang-format off */
static const struct schema_field container_metrics_fields[] = {
        { "name", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "usage", &schema_resource_list, 2, SCHEMA_GO_ALWAYS },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_container_metrics =
        SCHEMA_STRUCT("ContainerMetrics", container_metrics_fields);
static const struct schema schema_container_metrics_list = {
        .kind = SCHEMA_LIST,
        .go_type = "[]v1beta1.ContainerMetrics",
        .items = &schema_container_metrics,
};

/* metrics/v1beta1 NodeMetrics */
/* clang-format off */
static const struct schema_field node_metrics_fields[] = {
        { "kind", &schema_string, 0, 0 },
        { "apiVersion", &schema_string, 0, 0 },
        { "metadata", &schema_object_meta, 1, SCHEMA_GO_VALUE },
        { "timestamp", &schema_time, 2, SCHEMA_GO_ALWAYS },
        { "window", &schema_string, 3, SCHEMA_GO_ALWAYS },
        { "usage", &schema_resource_list, 4, SCHEMA_GO_ALWAYS },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_node_metrics = SCHEMA_STRUCT("NodeMetrics", node_metrics_fields);

/* metrics/v1beta1 PodMetrics */
/* clang-format off */
static const struct schema_field pod_metrics_fields[] = {
        { "kind", &schema_string, 0, 0 },
        { "apiVersion", &schema_string, 0, 0 },
        { "metadata", &schema_object_meta, 1, SCHEMA_GO_VALUE },
        { "timestamp", &schema_time, 2, SCHEMA_GO_ALWAYS },
        { "window", &schema_string, 3, SCHEMA_GO_ALWAYS },
        { "containers", &schema_container_metrics_list, 4, SCHEMA_GO_ALWAYS },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_pod_metrics = SCHEMA_STRUCT("PodMetrics", pod_metrics_fields);
