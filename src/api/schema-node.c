/* schema-node.c: core/v1 Node: spec (podCIDRs as a set, taints atomic) and status (capacity,
 * allocatable, conditions and addresses merged by type, node info, images, volumes). Field names
 * and list strategies follow the k8s.io/api core/v1 struct tags. */
#include "api/schemas.h"

/* core/v1 Taint */
/* clang-format off */
static const struct schema_field taint_fields[] = {
        { "key", &schema_string },
        { "value", &schema_string },
        { "effect", &schema_taint_effect },
        { "timeAdded", &schema_time },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_taint = SCHEMA_STRUCT("Taint", taint_fields);

/* core/v1 ConfigMapNodeConfigSource */
/* clang-format off */
static const struct schema_field config_map_node_config_source_fields[] = {
        { "namespace", &schema_string },
        { "name", &schema_string },
        { "uid", &schema_uid },
        { "resourceVersion", &schema_string },
        { "kubeletConfigKey", &schema_string },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_config_map_node_config_source =
        SCHEMA_STRUCT("ConfigMapNodeConfigSource", config_map_node_config_source_fields);

/* core/v1 NodeConfigSource */
/* clang-format off */
static const struct schema_field node_config_source_fields[] = {
        { "configMap", &schema_config_map_node_config_source },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_node_config_source =
        SCHEMA_STRUCT("NodeConfigSource", node_config_source_fields);

/* core/v1 NodePodPreemptionPolicy */
/* clang-format off */
static const struct schema_field node_pod_preemption_policy_fields[] = {
        { "disableResizePreemption", &schema_string_list },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_node_pod_preemption_policy =
        SCHEMA_STRUCT("NodePodPreemptionPolicy", node_pod_preemption_policy_fields);

/* core/v1 NodeSpec */
/* clang-format off */
static const struct schema_field node_spec_fields[] = {
        { "podCIDR", &schema_string },
        { "podCIDRs", SCHEMA_SET_LIST(&schema_string) },
        { "providerID", &schema_string },
        { "unschedulable", &schema_bool },
        { "taints", SCHEMA_ATOMIC_LIST(&schema_taint) },
        { "configSource", &schema_node_config_source },
        { "externalID", &schema_string },
        { "podPreemptionPolicy", &schema_node_pod_preemption_policy },
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
        { "type", &schema_node_condition_type },
        { "status", &schema_condition_status },
        { "lastHeartbeatTime", &schema_time },
        { "lastTransitionTime", &schema_time },
        { "reason", &schema_string },
        { "message", &schema_string },
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
        { "type", &schema_node_address_type },
        { "address", &schema_string },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_node_address = SCHEMA_STRUCT("NodeAddress", node_address_fields);

/* core/v1 DaemonEndpoint */
/* clang-format off */
static const struct schema_field daemon_endpoint_fields[] = {
        { "Port", &schema_int32 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_daemon_endpoint =
        SCHEMA_STRUCT("DaemonEndpoint", daemon_endpoint_fields);

/* core/v1 NodeDaemonEndpoints */
/* clang-format off */
static const struct schema_field node_daemon_endpoints_fields[] = {
        { "kubeletEndpoint", &schema_daemon_endpoint },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_node_daemon_endpoints =
        SCHEMA_STRUCT("NodeDaemonEndpoints", node_daemon_endpoints_fields);

/* core/v1 NodeSwapStatus */
/* clang-format off */
static const struct schema_field node_swap_status_fields[] = {
        { "capacity", &schema_int64 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_node_swap_status =
        SCHEMA_STRUCT("NodeSwapStatus", node_swap_status_fields);

/* core/v1 NodeSystemInfo */
/* clang-format off */
static const struct schema_field node_system_info_fields[] = {
        { "machineID", &schema_string },
        { "systemUUID", &schema_string },
        { "bootID", &schema_string },
        { "kernelVersion", &schema_string },
        { "osImage", &schema_string },
        { "containerRuntimeVersion", &schema_string },
        { "kubeletVersion", &schema_string },
        { "kubeProxyVersion", &schema_string },
        { "operatingSystem", &schema_string },
        { "architecture", &schema_string },
        { "swap", &schema_node_swap_status },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_node_system_info =
        SCHEMA_STRUCT("NodeSystemInfo", node_system_info_fields);

/* core/v1 ContainerImage */
/* clang-format off */
static const struct schema_field container_image_fields[] = {
        { "names", &schema_string_list },
        { "sizeBytes", &schema_int64 },
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
        { "name", &schema_unique_volume_name },
        { "devicePath", &schema_string },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_attached_volume =
        SCHEMA_STRUCT("AttachedVolume", attached_volume_fields);

/* core/v1 NodeConfigStatus */
/* clang-format off */
static const struct schema_field node_config_status_fields[] = {
        { "assigned", &schema_node_config_source },
        { "active", &schema_node_config_source },
        { "lastKnownGood", &schema_node_config_source },
        { "error", &schema_string },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_node_config_status =
        SCHEMA_STRUCT("NodeConfigStatus", node_config_status_fields);

/* core/v1 NodeRuntimeHandlerFeatures */
/* clang-format off */
static const struct schema_field node_runtime_handler_features_fields[] = {
        { "recursiveReadOnlyMounts", &schema_bool },
        { "userNamespaces", &schema_bool },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_node_runtime_handler_features =
        SCHEMA_STRUCT("NodeRuntimeHandlerFeatures", node_runtime_handler_features_fields);

/* core/v1 NodeRuntimeHandler */
/* clang-format off */
static const struct schema_field node_runtime_handler_fields[] = {
        { "name", &schema_string },
        { "features", &schema_node_runtime_handler_features },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_node_runtime_handler =
        SCHEMA_STRUCT("NodeRuntimeHandler", node_runtime_handler_fields);

/* core/v1 NodeFeatures */
/* clang-format off */
static const struct schema_field node_features_fields[] = {
        { "supplementalGroupsPolicy", &schema_bool },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_node_features =
        SCHEMA_STRUCT("NodeFeatures", node_features_fields);

/* core/v1 NodeStatus */
/* clang-format off */
static const struct schema_field node_status_fields[] = {
        { "capacity", &schema_resource_list },
        { "allocatable", &schema_resource_list },
        { "phase", &schema_node_phase },
        { "conditions", SCHEMA_MAP_LIST(&schema_node_condition, "type") },
        { "addresses", SCHEMA_MAP_LIST(&schema_node_address, "type") },
        { "daemonEndpoints", &schema_node_daemon_endpoints },
        { "nodeInfo", &schema_node_system_info },
        { "images", SCHEMA_ATOMIC_LIST(&schema_container_image) },
        { "volumesInUse", SCHEMA_ATOMIC_LIST(&schema_unique_volume_name) },
        { "volumesAttached", SCHEMA_ATOMIC_LIST(&schema_attached_volume) },
        { "config", &schema_node_config_status },
        { "runtimeHandlers", SCHEMA_ATOMIC_LIST(&schema_node_runtime_handler) },
        { "features", &schema_node_features },
        { "declaredFeatures", &schema_string_list },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_node_status = SCHEMA_STRUCT("NodeStatus", node_status_fields);

/* core/v1 Node */
/* clang-format off */
static const struct schema_field node_fields[] = {
        { "kind", &schema_string },
        { "apiVersion", &schema_string },
        { "metadata", &schema_object_meta },
        { "spec", &schema_node_spec },
        { "status", &schema_node_status },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_node = SCHEMA_STRUCT("Node", node_fields);
