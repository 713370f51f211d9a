/* schema-storage.c: the storage kinds: storage.k8s.io/v1 StorageClass, core/v1
 * PersistentVolume and PersistentVolumeClaim. Field names, list strategies and merge keys follow
 * the k8s.io/api struct tags (accessModes, mountOptions, allowedTopologies and node selector
 * terms atomic; claim status conditions merged by type). A PersistentVolume carries the sources
 * flexlet serves: local, hostPath and csi (the local-loop provisioner's volumes); any other
 * upstream source is an unknown field. */
#include "api/schemas.h"

/* ---- shared ---- */

static const struct schema schema_reclaim_policy =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.PersistentVolumeReclaimPolicy");
/* ---- storage.k8s.io/v1 StorageClass ---- */

static const struct schema schema_volume_binding_mode =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.VolumeBindingMode");

/* core/v1 TopologySelectorLabelRequirement */
/* clang-format off */
static const struct schema_field topology_selector_label_requirement_fields[] = {
        { "key", &schema_string, 0, 0 },
        { "values", &schema_string_list, 0, 0 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_topology_selector_label_requirement = SCHEMA_STRUCT(
        "TopologySelectorLabelRequirement", topology_selector_label_requirement_fields);

/* core/v1 TopologySelectorTerm */
/* clang-format off */
static const struct schema_field topology_selector_term_fields[] = {
        { "matchLabelExpressions", SCHEMA_ATOMIC_LIST(&schema_topology_selector_label_requirement), 0, 0 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_topology_selector_term =
        SCHEMA_STRUCT("TopologySelectorTerm", topology_selector_term_fields);

/* storage/v1 StorageClass: no spec, the fields sit beside metadata. */
/* clang-format off */
static const struct schema_field storage_class_fields[] = {
        { "kind", &schema_string, 0, 0 },
        { "apiVersion", &schema_string, 0, 0 },
        { "metadata", &schema_object_meta, 0, 0 },
        { "provisioner", &schema_string, 0, 0 },
        { "parameters", &schema_string_map, 0, 0 },
        { "reclaimPolicy", &schema_reclaim_policy, 0, 0 },
        { "mountOptions", &schema_string_list, 0, 0 },
        { "allowVolumeExpansion", &schema_bool, 0, 0 },
        { "volumeBindingMode", &schema_volume_binding_mode, 0, 0 },
        { "allowedTopologies", SCHEMA_ATOMIC_LIST(&schema_topology_selector_term), 0, 0 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_storage_class = SCHEMA_STRUCT("StorageClass", storage_class_fields);

/* ---- core/v1 PersistentVolume ---- */

/* core/v1 LocalVolumeSource */
/* clang-format off */
static const struct schema_field local_fields[] = {
        { "path", &schema_string, 0, 0 },
        { "fsType", &schema_string, 0, 0 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_local = SCHEMA_STRUCT("LocalVolumeSource", local_fields);

/* core/v1 SecretReference */
/* clang-format off */
static const struct schema_field secret_reference_fields[] = {
        { "name", &schema_string, 0, 0 },
        { "namespace", &schema_string, 0, 0 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_secret_reference =
        SCHEMA_STRUCT("SecretReference", secret_reference_fields);

/* core/v1 CSIPersistentVolumeSource */
/* clang-format off */
static const struct schema_field csi_fields[] = {
        { "driver", &schema_string, 0, 0 },
        { "volumeHandle", &schema_string, 0, 0 },
        { "readOnly", &schema_bool, 0, 0 },
        { "fsType", &schema_string, 0, 0 },
        { "volumeAttributes", &schema_string_map, 0, 0 },
        { "controllerPublishSecretRef", &schema_secret_reference, 0, 0 },
        { "nodeStageSecretRef", &schema_secret_reference, 0, 0 },
        { "nodePublishSecretRef", &schema_secret_reference, 0, 0 },
        { "controllerExpandSecretRef", &schema_secret_reference, 0, 0 },
        { "nodeExpandSecretRef", &schema_secret_reference, 0, 0 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_csi = SCHEMA_STRUCT("CSIPersistentVolumeSource", csi_fields);

/* core/v1 VolumeNodeAffinity */
/* clang-format off */
static const struct schema_field volume_node_affinity_fields[] = {
        { "required", &schema_node_selector, 0, 0 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_volume_node_affinity =
        SCHEMA_STRUCT("VolumeNodeAffinity", volume_node_affinity_fields);

/* core/v1 PersistentVolumeSpec, with the PersistentVolumeSource members flexlet serves inline */
/* clang-format off */
static const struct schema_field persistent_volume_spec_fields[] = {
        { "capacity", &schema_resource_list, 0, 0 },
        { "hostPath", &schema_host_path_volume_source, 0, 0 },
        { "local", &schema_local, 0, 0 },
        { "csi", &schema_csi, 0, 0 },
        { "accessModes", SCHEMA_ATOMIC_LIST(&schema_persistent_volume_access_mode), 0, 0 },
        { "claimRef", &schema_object_reference, 0, 0 },
        { "persistentVolumeReclaimPolicy", &schema_reclaim_policy, 0, 0 },
        { "storageClassName", &schema_string, 0, 0 },
        { "mountOptions", &schema_string_list, 0, 0 },
        { "volumeMode", &schema_persistent_volume_mode, 0, 0 },
        { "nodeAffinity", &schema_volume_node_affinity, 0, 0 },
        { "volumeAttributesClassName", &schema_string, 0, 0 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_persistent_volume_spec =
        SCHEMA_STRUCT("PersistentVolumeSpec", persistent_volume_spec_fields);

static const struct schema schema_persistent_volume_phase =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.PersistentVolumePhase");

/* core/v1 PersistentVolumeStatus */
/* clang-format off */
static const struct schema_field persistent_volume_status_fields[] = {
        { "phase", &schema_persistent_volume_phase, 0, 0 },
        { "message", &schema_string, 0, 0 },
        { "reason", &schema_string, 0, 0 },
        { "lastPhaseTransitionTime", &schema_time, 0, 0 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_persistent_volume_status =
        SCHEMA_STRUCT("PersistentVolumeStatus", persistent_volume_status_fields);

/* core/v1 PersistentVolume */
/* clang-format off */
static const struct schema_field persistent_volume_fields[] = {
        { "kind", &schema_string, 0, 0 },
        { "apiVersion", &schema_string, 0, 0 },
        { "metadata", &schema_object_meta, 0, 0 },
        { "spec", &schema_persistent_volume_spec, 0, 0 },
        { "status", &schema_persistent_volume_status, 0, 0 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_persistent_volume =
        SCHEMA_STRUCT("PersistentVolume", persistent_volume_fields);

/* ---- core/v1 PersistentVolumeClaim ---- */

/* core/v1 VolumeResourceRequirements */
static const struct schema schema_claim_phase =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.PersistentVolumeClaimPhase");
static const struct schema schema_claim_condition_type =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.PersistentVolumeClaimConditionType");
static const struct schema schema_claim_resource_status =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.ClaimResourceStatus");
static const struct schema schema_claim_resource_statuses = {
        .kind = SCHEMA_MAP,
        .go_type = "map[v1.ResourceName]v1.ClaimResourceStatus",
        .items = &schema_claim_resource_status,
};

/* core/v1 PersistentVolumeClaimCondition */
/* clang-format off */
static const struct schema_field claim_condition_fields[] = {
        { "type", &schema_claim_condition_type, 0, 0 },
        { "status", &schema_condition_status, 0, 0 },
        { "lastProbeTime", &schema_time, 0, 0 },
        { "lastTransitionTime", &schema_time, 0, 0 },
        { "reason", &schema_string, 0, 0 },
        { "message", &schema_string, 0, 0 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_claim_condition =
        SCHEMA_STRUCT("PersistentVolumeClaimCondition", claim_condition_fields);

static const struct schema schema_modify_volume_status_value =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.PersistentVolumeClaimModifyVolumeStatus");

/* core/v1 ModifyVolumeStatus */
/* clang-format off */
static const struct schema_field modify_volume_status_fields[] = {
        { "targetVolumeAttributesClassName", &schema_string, 0, 0 },
        { "status", &schema_modify_volume_status_value, 0, 0 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_modify_volume_status =
        SCHEMA_STRUCT("ModifyVolumeStatus", modify_volume_status_fields);

/* core/v1 PersistentVolumeClaimStatus */
/* clang-format off */
static const struct schema_field persistent_volume_claim_status_fields[] = {
        { "phase", &schema_claim_phase, 0, 0 },
        { "accessModes", SCHEMA_ATOMIC_LIST(&schema_persistent_volume_access_mode), 0, 0 },
        { "capacity", &schema_resource_list, 0, 0 },
        { "conditions", SCHEMA_MAP_LIST(&schema_claim_condition, "type"), 0, 0 },
        { "allocatedResources", &schema_resource_list, 0, 0 },
        { "allocatedResourceStatuses", &schema_claim_resource_statuses, 0, 0 },
        { "currentVolumeAttributesClassName", &schema_string, 0, 0 },
        { "modifyVolumeStatus", &schema_modify_volume_status, 0, 0 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_persistent_volume_claim_status =
        SCHEMA_STRUCT("PersistentVolumeClaimStatus", persistent_volume_claim_status_fields);

/* core/v1 PersistentVolumeClaim */
/* clang-format off */
static const struct schema_field persistent_volume_claim_fields[] = {
        { "kind", &schema_string, 0, 0 },
        { "apiVersion", &schema_string, 0, 0 },
        { "metadata", &schema_object_meta, 0, 0 },
        { "spec", &schema_persistent_volume_claim_spec, 0, 0 },
        { "status", &schema_persistent_volume_claim_status, 0, 0 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_persistent_volume_claim =
        SCHEMA_STRUCT("PersistentVolumeClaim", persistent_volume_claim_fields);
