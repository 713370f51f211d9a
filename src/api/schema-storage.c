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
        { "key", &schema_string },
        { "values", &schema_string_list },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_topology_selector_label_requirement = SCHEMA_STRUCT(
        "TopologySelectorLabelRequirement", topology_selector_label_requirement_fields);

/* core/v1 TopologySelectorTerm */
/* clang-format off */
static const struct schema_field topology_selector_term_fields[] = {
        { "matchLabelExpressions", SCHEMA_ATOMIC_LIST(&schema_topology_selector_label_requirement) },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_topology_selector_term =
        SCHEMA_STRUCT("TopologySelectorTerm", topology_selector_term_fields);

/* storage/v1 StorageClass: no spec, the fields sit beside metadata. */
/* clang-format off */
static const struct schema_field storage_class_fields[] = {
        { "kind", &schema_string },
        { "apiVersion", &schema_string },
        { "metadata", &schema_object_meta },
        { "provisioner", &schema_string },
        { "parameters", &schema_string_map },
        { "reclaimPolicy", &schema_reclaim_policy },
        { "mountOptions", &schema_string_list },
        { "allowVolumeExpansion", &schema_bool },
        { "volumeBindingMode", &schema_volume_binding_mode },
        { "allowedTopologies", SCHEMA_ATOMIC_LIST(&schema_topology_selector_term) },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_storage_class = SCHEMA_STRUCT("StorageClass", storage_class_fields);

/* ---- core/v1 PersistentVolume ---- */

/* core/v1 LocalVolumeSource */
/* clang-format off */
static const struct schema_field local_fields[] = {
        { "path", &schema_string },
        { "fsType", &schema_string },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_local = SCHEMA_STRUCT("LocalVolumeSource", local_fields);

/* core/v1 SecretReference */
/* clang-format off */
static const struct schema_field secret_reference_fields[] = {
        { "name", &schema_string },
        { "namespace", &schema_string },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_secret_reference =
        SCHEMA_STRUCT("SecretReference", secret_reference_fields);

/* core/v1 CSIPersistentVolumeSource */
/* clang-format off */
static const struct schema_field csi_fields[] = {
        { "driver", &schema_string },
        { "volumeHandle", &schema_string },
        { "readOnly", &schema_bool },
        { "fsType", &schema_string },
        { "volumeAttributes", &schema_string_map },
        { "controllerPublishSecretRef", &schema_secret_reference },
        { "nodeStageSecretRef", &schema_secret_reference },
        { "nodePublishSecretRef", &schema_secret_reference },
        { "controllerExpandSecretRef", &schema_secret_reference },
        { "nodeExpandSecretRef", &schema_secret_reference },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_csi = SCHEMA_STRUCT("CSIPersistentVolumeSource", csi_fields);

/* core/v1 VolumeNodeAffinity */
/* clang-format off */
static const struct schema_field volume_node_affinity_fields[] = {
        { "required", &schema_node_selector },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_volume_node_affinity =
        SCHEMA_STRUCT("VolumeNodeAffinity", volume_node_affinity_fields);

/* core/v1 PersistentVolumeSpec, with the PersistentVolumeSource members flexlet serves inline */
/* clang-format off */
static const struct schema_field persistent_volume_spec_fields[] = {
        { "capacity", &schema_resource_list },
        { "hostPath", &schema_host_path_volume_source },
        { "local", &schema_local },
        { "csi", &schema_csi },
        { "accessModes", SCHEMA_ATOMIC_LIST(&schema_persistent_volume_access_mode) },
        { "claimRef", &schema_object_reference },
        { "persistentVolumeReclaimPolicy", &schema_reclaim_policy },
        { "storageClassName", &schema_string },
        { "mountOptions", &schema_string_list },
        { "volumeMode", &schema_persistent_volume_mode },
        { "nodeAffinity", &schema_volume_node_affinity },
        { "volumeAttributesClassName", &schema_string },
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
        { "phase", &schema_persistent_volume_phase },
        { "message", &schema_string },
        { "reason", &schema_string },
        { "lastPhaseTransitionTime", &schema_time },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_persistent_volume_status =
        SCHEMA_STRUCT("PersistentVolumeStatus", persistent_volume_status_fields);

/* core/v1 PersistentVolume */
/* clang-format off */
static const struct schema_field persistent_volume_fields[] = {
        { "kind", &schema_string },
        { "apiVersion", &schema_string },
        { "metadata", &schema_object_meta },
        { "spec", &schema_persistent_volume_spec },
        { "status", &schema_persistent_volume_status },
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
        { "type", &schema_claim_condition_type },
        { "status", &schema_condition_status },
        { "lastProbeTime", &schema_time },
        { "lastTransitionTime", &schema_time },
        { "reason", &schema_string },
        { "message", &schema_string },
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
        { "targetVolumeAttributesClassName", &schema_string },
        { "status", &schema_modify_volume_status_value },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_modify_volume_status =
        SCHEMA_STRUCT("ModifyVolumeStatus", modify_volume_status_fields);

/* core/v1 PersistentVolumeClaimStatus */
/* clang-format off */
static const struct schema_field persistent_volume_claim_status_fields[] = {
        { "phase", &schema_claim_phase },
        { "accessModes", SCHEMA_ATOMIC_LIST(&schema_persistent_volume_access_mode) },
        { "capacity", &schema_resource_list },
        { "conditions", SCHEMA_MAP_LIST(&schema_claim_condition, "type") },
        { "allocatedResources", &schema_resource_list },
        { "allocatedResourceStatuses", &schema_claim_resource_statuses },
        { "currentVolumeAttributesClassName", &schema_string },
        { "modifyVolumeStatus", &schema_modify_volume_status },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_persistent_volume_claim_status =
        SCHEMA_STRUCT("PersistentVolumeClaimStatus", persistent_volume_claim_status_fields);

/* core/v1 PersistentVolumeClaim */
/* clang-format off */
static const struct schema_field persistent_volume_claim_fields[] = {
        { "kind", &schema_string },
        { "apiVersion", &schema_string },
        { "metadata", &schema_object_meta },
        { "spec", &schema_persistent_volume_claim_spec },
        { "status", &schema_persistent_volume_claim_status },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_persistent_volume_claim =
        SCHEMA_STRUCT("PersistentVolumeClaim", persistent_volume_claim_fields);
