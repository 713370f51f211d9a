/* schema-node.c: core/v1 Node: spec (podCIDRs as a set, taints atomic) and status (capacity,
 * allocatable, conditions and addresses merged by type, node info, images, volumes). Field names
 * and list strategies follow the k8s.io/api core/v1 struct tags. */
#include "api/schemas.h"

/* core/v1 Taint */
/* clang-format off */
static const struct schema_field taint_fields[] = {
        { "key", &schema_string, 0, 0 },
        { "value", &schema_string, 0, 0 },
        { "effect", &schema_taint_effect, 0, 0 },
        { "timeAdded", &schema_time, 0, 0 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_taint = SCHEMA_STRUCT("Taint", taint_fields);

/* core/v1 ConfigMapNodeConfigSource */
/* clang-format off */
static const struct schema_field config_map_node_config_source_fields[] = {
        { "namespace", &schema_string, 0, 0 },
        { "name", &schema_string, 0, 0 },
        { "uid", &schema_uid, 0, 0 },
        { "resourceVersion", &schema_string, 0, 0 },
        { "kubeletConfigKey", &schema_string, 0, 0 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_config_map_node_config_source =
        SCHEMA_STRUCT("ConfigMapNodeConfigSource", config_map_node_config_source_fields);

/* core/v1 NodeConfigSource */
/* clang-format off */
static const struct schema_field node_config_source_fields[] = {
        { "configMap", &schema_config_map_node_config_source, 0, 0 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_node_config_source =
        SCHEMA_STRUCT("NodeConfigSource", node_config_source_fields);

/* core/v1 NodePodPreemptionPolicy */
/* clang-format off */
static const struct schema_field node_pod_preemption_policy_fields[] = {
        { "disableResizePreemption", &schema_string_list, 0, 0 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_node_pod_preemption_policy =
        SCHEMA_STRUCT("NodePodPreemptionPolicy", node_pod_preemption_policy_fields);

/* core/v1 NodeSpec */
/* clang-format off */
static const struct schema_field node_spec_fields[] = {
        { "podCIDR", &schema_string, 0, 0 },
        { "podCIDRs", SCHEMA_SET_LIST(&schema_string), 0, 0 },
        { "providerID", &schema_string, 0, 0 },
        { "unschedulable", &schema_bool, 0, 0 },
        { "taints", SCHEMA_ATOMIC_LIST(&schema_taint), 0, 0 },
        { "configSource", &schema_node_config_source, 0, 0 },
        { "externalID", &schema_string, 0, 0 },
        { "podPreemptionPolicy", &schema_node_pod_preemption_policy, 0, 0 },
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
        { "type", &schema_node_condition_type, 0, 0 },
        { "status", &schema_condition_status, 0, 0 },
        { "lastHeartbeatTime", &schema_time, 0, 0 },
        { "lastTransitionTime", &schema_time, 0, 0 },
        { "reason", &schema_string, 0, 0 },
        { "message", &schema_string, 0, 0 },
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
        { "type", &schema_node_address_type, 0, 0 },
        { "address", &schema_string, 0, 0 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_node_address = SCHEMA_STRUCT("NodeAddress", node_address_fields);

/* core/v1 DaemonEndpoint */
/* clang-format off */
static const struct schema_field daemon_endpoint_fields[] = {
        { "Port", &schema_int32, 0, 0 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_daemon_endpoint =
        SCHEMA_STRUCT("DaemonEndpoint", daemon_endpoint_fields);

/* core/v1 NodeDaemonEndpoints */
/* clang-format off */
static const struct schema_field node_daemon_endpoints_fields[] = {
        { "kubeletEndpoint", &schema_daemon_endpoint, 0, 0 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_node_daemon_endpoints =
        SCHEMA_STRUCT("NodeDaemonEndpoints", node_daemon_endpoints_fields);

/* core/v1 NodeSwapStatus */
/* clang-format off */
static const struct schema_field node_swap_status_fields[] = {
        { "capacity", &schema_int64, 0, 0 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_node_swap_status =
        SCHEMA_STRUCT("NodeSwapStatus", node_swap_status_fields);

/* core/v1 NodeSystemInfo */
/* clang-format off */
static const struct schema_field node_system_info_fields[] = {
        { "machineID", &schema_string, 0, 0 },
        { "systemUUID", &schema_string, 0, 0 },
        { "bootID", &schema_string, 0, 0 },
        { "kernelVersion", &schema_string, 0, 0 },
        { "osImage", &schema_string, 0, 0 },
        { "containerRuntimeVersion", &schema_string, 0, 0 },
        { "kubeletVersion", &schema_string, 0, 0 },
        { "kubeProxyVersion", &schema_string, 0, 0 },
        { "operatingSystem", &schema_string, 0, 0 },
        { "architecture", &schema_string, 0, 0 },
        { "swap", &schema_node_swap_status, 0, 0 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_node_system_info =
        SCHEMA_STRUCT("NodeSystemInfo", node_system_info_fields);

/* core/v1 ContainerImage */
/* clang-format off */
static const struct schema_field container_image_fields[] = {
        { "names", &schema_string_list, 0, 0 },
        { "sizeBytes", &schema_int64, 0, 0 },
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
        { "name", &schema_unique_volume_name, 0, 0 },
        { "devicePath", &schema_string, 0, 0 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_attached_volume =
        SCHEMA_STRUCT("AttachedVolume", attached_volume_fields);

/* core/v1 NodeConfigStatus */
/* clang-format off */
static const struct schema_field node_config_status_fields[] = {
        { "assigned", &schema_node_config_source, 0, 0 },
        { "active", &schema_node_config_source, 0, 0 },
        { "lastKnownGood", &schema_node_config_source, 0, 0 },
        { "error", &schema_string, 0, 0 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_node_config_status =
        SCHEMA_STRUCT("NodeConfigStatus", node_config_status_fields);

/* core/v1 NodeRuntimeHandlerFeatures */
/* clang-format off */
static const struct schema_field node_runtime_handler_features_fields[] = {
        { "recursiveReadOnlyMounts", &schema_bool, 0, 0 },
        { "userNamespaces", &schema_bool, 0, 0 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_node_runtime_handler_features =
        SCHEMA_STRUCT("NodeRuntimeHandlerFeatures", node_runtime_handler_features_fields);

/* core/v1 NodeRuntimeHandler */
/* clang-format off */
static const struct schema_field node_runtime_handler_fields[] = {
        { "name", &schema_string, 0, 0 },
        { "features", &schema_node_runtime_handler_features, 0, 0 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_node_runtime_handler =
        SCHEMA_STRUCT("NodeRuntimeHandler", node_runtime_handler_fields);

/* core/v1 NodeFeatures */
/* clang-format off */
static const struct schema_field node_features_fields[] = {
        { "supplementalGroupsPolicy", &schema_bool, 0, 0 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_node_features =
        SCHEMA_STRUCT("NodeFeatures", node_features_fields);

/* core/v1 NodeStatus */
/* clang-format off */
static const struct schema_field node_status_fields[] = {
        { "capacity", &schema_resource_list, 0, 0 },
        { "allocatable", &schema_resource_list, 0, 0 },
        { "phase", &schema_node_phase, 0, 0 },
        { "conditions", SCHEMA_MAP_LIST(&schema_node_condition, "type"), 0, 0 },
        { "addresses", SCHEMA_MAP_LIST(&schema_node_address, "type"), 0, 0 },
        { "daemonEndpoints", &schema_node_daemon_endpoints, 0, 0 },
        { "nodeInfo", &schema_node_system_info, 0, 0 },
        { "images", SCHEMA_ATOMIC_LIST(&schema_container_image), 0, 0 },
        { "volumesInUse", SCHEMA_ATOMIC_LIST(&schema_unique_volume_name), 0, 0 },
        { "volumesAttached", SCHEMA_ATOMIC_LIST(&schema_attached_volume), 0, 0 },
        { "config", &schema_node_config_status, 0, 0 },
        { "runtimeHandlers", SCHEMA_ATOMIC_LIST(&schema_node_runtime_handler), 0, 0 },
        { "features", &schema_node_features, 0, 0 },
        { "declaredFeatures", &schema_string_list, 0, 0 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_node_status = SCHEMA_STRUCT("NodeStatus", node_status_fields);

/* core/v1 Node */
/* clang-format off */
static const struct schema_field node_fields[] = {
        { "kind", &schema_string, 0, 0 },
        { "apiVersion", &schema_string, 0, 0 },
        { "metadata", &schema_object_meta, 0, 0 },
        { "spec", &schema_node_spec, 0, 0 },
        { "status", &schema_node_status, 0, 0 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_node = SCHEMA_STRUCT("Node", node_fields);
