/* schema-node.c: core/v1 Node: spec (podCIDRs as a set, taints atomic) and status (capacity,
 * allocatable, conditions and addresses merged by type, node info, images, volumes). Field names
 * and list strategies follow the k8s.io/api core/v1 struct tags. */
#include "api/schemas.h"

/* core/v1 Taint */
/* clang-format off */
static const struct schema_field taint_fields[] = {
        { "key", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "value", &schema_string, 2, SCHEMA_GO_VALUE },
        { "effect", &schema_taint_effect, 3, SCHEMA_GO_ALWAYS },
        { "timeAdded", &schema_time, 4, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_taint = SCHEMA_STRUCT("Taint", taint_fields);

/* core/v1 ConfigMapNodeConfigSource */
/* clang-format off */
static const struct schema_field config_map_node_config_source_fields[] = {
        { "namespace", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "name", &schema_string, 2, SCHEMA_GO_ALWAYS },
        { "uid", &schema_uid, 3, SCHEMA_GO_VALUE },
        { "resourceVersion", &schema_string, 4, SCHEMA_GO_VALUE },
        { "kubeletConfigKey", &schema_string, 5, SCHEMA_GO_ALWAYS },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_config_map_node_config_source =
        SCHEMA_STRUCT("ConfigMapNodeConfigSource", config_map_node_config_source_fields);

/* core/v1 NodeConfigSource */
/* clang-format off */
static const struct schema_field node_config_source_fields[] = {
        { "configMap", &schema_config_map_node_config_source, 2, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_node_config_source =
        SCHEMA_STRUCT("NodeConfigSource", node_config_source_fields);

/* core/v1 NodePodPreemptionPolicy */
/* clang-format off */
static const struct schema_field node_pod_preemption_policy_fields[] = {
        { "disableResizePreemption", &schema_string_list, 1, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_node_pod_preemption_policy =
        SCHEMA_STRUCT("NodePodPreemptionPolicy", node_pod_preemption_policy_fields);

/* core/v1 NodeSpec */
/* clang-format off */
static const struct schema_field node_spec_fields[] = {
        { "podCIDR", &schema_string, 1, SCHEMA_GO_VALUE },
        { "podCIDRs", SCHEMA_SET_LIST(&schema_string), 7, SCHEMA_GO_VALUE },
        { "providerID", &schema_string, 3, SCHEMA_GO_VALUE },
        { "unschedulable", &schema_bool, 4, SCHEMA_GO_VALUE },
        { "taints", SCHEMA_ATOMIC_LIST(&schema_taint), 5, SCHEMA_GO_VALUE },
        { "configSource", &schema_node_config_source, 6, SCHEMA_GO_POINTER },
        { "externalID", &schema_string, 2, SCHEMA_GO_VALUE },
        { "podPreemptionPolicy", &schema_node_pod_preemption_policy, 8, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_node_spec = SCHEMA_STRUCT("NodeSpec", node_spec_fields);

static const struct schema schema_node_phase = SCHEMA_NAMED(SCHEMA_STRING, "v1.NodePhase");

static const struct schema schema_node_condition_type =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.NodeConditionType");

/* core/v1 NodeCondition */
/* clang-format off */
static const struct schema_field node_condition_fields[] = {
        { "type", &schema_node_condition_type, 1, SCHEMA_GO_ALWAYS },
        { "status", &schema_condition_status, 2, SCHEMA_GO_ALWAYS },
        { "lastHeartbeatTime", &schema_time, 3, SCHEMA_GO_VALUE },
        { "lastTransitionTime", &schema_time, 4, SCHEMA_GO_VALUE },
        { "reason", &schema_string, 5, SCHEMA_GO_VALUE },
        { "message", &schema_string, 6, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_node_condition =
        SCHEMA_STRUCT("NodeCondition", node_condition_fields);

static const struct schema schema_node_address_type =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.NodeAddressType");

/* core/v1 NodeAddress */
/* clang-format off */
static const struct schema_field node_address_fields[] = {
        { "type", &schema_node_address_type, 1, SCHEMA_GO_ALWAYS },
        { "address", &schema_string, 2, SCHEMA_GO_ALWAYS },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_node_address = SCHEMA_STRUCT("NodeAddress", node_address_fields);

/* core/v1 DaemonEndpoint */
/* clang-format off */
static const struct schema_field daemon_endpoint_fields[] = {
        { "Port", &schema_int32, 1, SCHEMA_GO_ALWAYS },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_daemon_endpoint =
        SCHEMA_STRUCT("DaemonEndpoint", daemon_endpoint_fields);

/* core/v1 NodeDaemonEndpoints */
/* clang-format off */
static const struct schema_field node_daemon_endpoints_fields[] = {
        { "kubeletEndpoint", &schema_daemon_endpoint, 1, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_node_daemon_endpoints =
        SCHEMA_STRUCT("NodeDaemonEndpoints", node_daemon_endpoints_fields);

/* core/v1 NodeSwapStatus */
/* clang-format off */
static const struct schema_field node_swap_status_fields[] = {
        { "capacity", &schema_int64, 1, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_node_swap_status =
        SCHEMA_STRUCT("NodeSwapStatus", node_swap_status_fields);

/* core/v1 NodeSystemInfo */
/* clang-format off */
static const struct schema_field node_system_info_fields[] = {
        { "machineID", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "systemUUID", &schema_string, 2, SCHEMA_GO_ALWAYS },
        { "bootID", &schema_string, 3, SCHEMA_GO_ALWAYS },
        { "kernelVersion", &schema_string, 4, SCHEMA_GO_ALWAYS },
        { "osImage", &schema_string, 5, SCHEMA_GO_ALWAYS },
        { "containerRuntimeVersion", &schema_string, 6, SCHEMA_GO_ALWAYS },
        { "kubeletVersion", &schema_string, 7, SCHEMA_GO_ALWAYS },
        { "kubeProxyVersion", &schema_string, 8, SCHEMA_GO_ALWAYS },
        { "operatingSystem", &schema_string, 9, SCHEMA_GO_ALWAYS },
        { "architecture", &schema_string, 10, SCHEMA_GO_ALWAYS },
        { "swap", &schema_node_swap_status, 11, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_node_system_info =
        SCHEMA_STRUCT("NodeSystemInfo", node_system_info_fields);

/* core/v1 ContainerImage */
/* clang-format off */
static const struct schema_field container_image_fields[] = {
        { "names", &schema_string_list, 1, SCHEMA_GO_VALUE },
        { "sizeBytes", &schema_int64, 2, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_container_image =
        SCHEMA_STRUCT("ContainerImage", container_image_fields);

static const struct schema schema_unique_volume_name =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.UniqueVolumeName");

/* core/v1 AttachedVolume */
/* clang-format off */
static const struct schema_field attached_volume_fields[] = {
        { "name", &schema_unique_volume_name, 1, SCHEMA_GO_ALWAYS },
        { "devicePath", &schema_string, 2, SCHEMA_GO_ALWAYS },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_attached_volume =
        SCHEMA_STRUCT("AttachedVolume", attached_volume_fields);

/* core/v1 NodeConfigStatus */
/* clang-format off */
static const struct schema_field node_config_status_fields[] = {
        { "assigned", &schema_node_config_source, 1, SCHEMA_GO_POINTER },
        { "active", &schema_node_config_source, 2, SCHEMA_GO_POINTER },
        { "lastKnownGood", &schema_node_config_source, 3, SCHEMA_GO_POINTER },
        { "error", &schema_string, 4, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_node_config_status =
        SCHEMA_STRUCT("NodeConfigStatus", node_config_status_fields);

/* core/v1 NodeRuntimeHandlerFeatures */
/* clang-format off */
static const struct schema_field node_runtime_handler_features_fields[] = {
        { "recursiveReadOnlyMounts", &schema_bool, 1, SCHEMA_GO_POINTER },
        { "userNamespaces", &schema_bool, 2, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_node_runtime_handler_features =
        SCHEMA_STRUCT("NodeRuntimeHandlerFeatures", node_runtime_handler_features_fields);

/* core/v1 NodeRuntimeHandler */
/* clang-format off */
static const struct schema_field node_runtime_handler_fields[] = {
        { "name", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "features", &schema_node_runtime_handler_features, 2, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_node_runtime_handler =
        SCHEMA_STRUCT("NodeRuntimeHandler", node_runtime_handler_fields);

/* core/v1 NodeFeatures */
/* clang-format off */
static const struct schema_field node_features_fields[] = {
        { "supplementalGroupsPolicy", &schema_bool, 1, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_node_features =
        SCHEMA_STRUCT("NodeFeatures", node_features_fields);

/* core/v1 NodeStatus */
/* clang-format off */
static const struct schema_field node_status_fields[] = {
        { "capacity", &schema_resource_list, 1, SCHEMA_GO_VALUE },
        { "allocatable", &schema_resource_list, 2, SCHEMA_GO_VALUE },
        { "phase", &schema_node_phase, 3, SCHEMA_GO_VALUE },
        { "conditions", SCHEMA_MAP_LIST(&schema_node_condition, "type"), 4, SCHEMA_GO_VALUE },
        { "addresses", SCHEMA_MAP_LIST(&schema_node_address, "type"), 5, SCHEMA_GO_VALUE },
        { "daemonEndpoints", &schema_node_daemon_endpoints, 6, SCHEMA_GO_VALUE },
        { "nodeInfo", &schema_node_system_info, 7, SCHEMA_GO_VALUE },
        { "images", SCHEMA_ATOMIC_LIST(&schema_container_image), 8, SCHEMA_GO_VALUE },
        { "volumesInUse", SCHEMA_ATOMIC_LIST(&schema_unique_volume_name), 9, SCHEMA_GO_VALUE },
        { "volumesAttached", SCHEMA_ATOMIC_LIST(&schema_attached_volume), 10, SCHEMA_GO_VALUE },
        { "config", &schema_node_config_status, 11, SCHEMA_GO_POINTER },
        { "runtimeHandlers", SCHEMA_ATOMIC_LIST(&schema_node_runtime_handler), 12, SCHEMA_GO_VALUE },
        { "features", &schema_node_features, 13, SCHEMA_GO_POINTER },
        { "declaredFeatures", &schema_string_list, 14, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_node_status = SCHEMA_STRUCT("NodeStatus", node_status_fields);

/* core/v1 Node */
/* clang-format off */
static const struct schema_field node_fields[] = {
        { "kind", &schema_string, 0, 0 }, /* TypeMeta: the envelope carries it */
        { "apiVersion", &schema_string, 0, 0 }, /* TypeMeta: the envelope carries it */
        { "metadata", &schema_object_meta, 1, SCHEMA_GO_VALUE },
        { "spec", &schema_node_spec, 2, SCHEMA_GO_VALUE },
        { "status", &schema_node_status, 3, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_node = SCHEMA_STRUCT("Node", node_fields);
