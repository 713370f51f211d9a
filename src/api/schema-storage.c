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
        { "key", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "values", &schema_string_list, 2, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_topology_selector_label_requirement = SCHEMA_STRUCT(
        "TopologySelectorLabelRequirement", topology_selector_label_requirement_fields);

/* core/v1 TopologySelectorTerm */
/* clang-format off */
static const struct schema_field topology_selector_term_fields[] = {
        { "matchLabelExpressions", SCHEMA_ATOMIC_LIST(&schema_topology_selector_label_requirement), 1, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_topology_selector_term =
        SCHEMA_STRUCT("TopologySelectorTerm", topology_selector_term_fields);

/* storage/v1 StorageClass: no spec, the fields sit beside metadata. */
/* clang-format off */
static const struct schema_field storage_class_fields[] = {
        { "kind", &schema_string, 0, 0 }, /* TypeMeta: the envelope carries it */
        { "apiVersion", &schema_string, 0, 0 }, /* TypeMeta: the envelope carries it */
        { "metadata", &schema_object_meta, 1, SCHEMA_GO_VALUE },
        { "provisioner", &schema_string, 2, SCHEMA_GO_ALWAYS },
        { "parameters", &schema_string_map, 3, SCHEMA_GO_VALUE },
        { "reclaimPolicy", &schema_reclaim_policy, 4, SCHEMA_GO_POINTER },
        { "mountOptions", &schema_string_list, 5, SCHEMA_GO_VALUE },
        { "allowVolumeExpansion", &schema_bool, 6, SCHEMA_GO_POINTER },
        { "volumeBindingMode", &schema_volume_binding_mode, 7, SCHEMA_GO_POINTER },
        { "allowedTopologies", SCHEMA_ATOMIC_LIST(&schema_topology_selector_term), 8, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_storage_class = SCHEMA_STRUCT("StorageClass", storage_class_fields);

/* ---- core/v1 PersistentVolume ---- */

/* core/v1 LocalVolumeSource */
/* clang-format off */
static const struct schema_field local_fields[] = {
        { "path", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "fsType", &schema_string, 2, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_local = SCHEMA_STRUCT("LocalVolumeSource", local_fields);

/* core/v1 SecretReference */
/* clang-format off */
static const struct schema_field secret_reference_fields[] = {
        { "name", &schema_string, 1, SCHEMA_GO_VALUE },
        { "namespace", &schema_string, 2, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_secret_reference =
        SCHEMA_STRUCT("SecretReference", secret_reference_fields);

/* core/v1 CSIPersistentVolumeSource */
/* clang-format off */
static const struct schema_field csi_fields[] = {
        { "driver", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "volumeHandle", &schema_string, 2, SCHEMA_GO_ALWAYS },
        { "readOnly", &schema_bool, 3, SCHEMA_GO_VALUE },
        { "fsType", &schema_string, 4, SCHEMA_GO_VALUE },
        { "volumeAttributes", &schema_string_map, 5, SCHEMA_GO_VALUE },
        { "controllerPublishSecretRef", &schema_secret_reference, 6, SCHEMA_GO_POINTER },
        { "nodeStageSecretRef", &schema_secret_reference, 7, SCHEMA_GO_POINTER },
        { "nodePublishSecretRef", &schema_secret_reference, 8, SCHEMA_GO_POINTER },
        { "controllerExpandSecretRef", &schema_secret_reference, 9, SCHEMA_GO_POINTER },
        { "nodeExpandSecretRef", &schema_secret_reference, 10, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_csi = SCHEMA_STRUCT("CSIPersistentVolumeSource", csi_fields);

/* core/v1 VolumeNodeAffinity */
/* clang-format off */
static const struct schema_field volume_node_affinity_fields[] = {
        { "required", &schema_node_selector, 1, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_volume_node_affinity =
        SCHEMA_STRUCT("VolumeNodeAffinity", volume_node_affinity_fields);

/* core/v1 PersistentVolumeSpec, with the PersistentVolumeSource members flexlet serves inline */
/* clang-format off */
static const struct schema_field persistent_volume_spec_fields[] = {
        { "capacity", &schema_resource_list, 1, SCHEMA_GO_VALUE },
        { "hostPath", &schema_host_path_volume_source, 3, SCHEMA_GO_POINTER | SCHEMA_GO_EMBED(2) },
        { "local", &schema_local, 20, SCHEMA_GO_POINTER | SCHEMA_GO_EMBED(2) },
        { "csi", &schema_csi, 22, SCHEMA_GO_POINTER | SCHEMA_GO_EMBED(2) },
        { "accessModes", SCHEMA_ATOMIC_LIST(&schema_persistent_volume_access_mode), 3, SCHEMA_GO_VALUE },
        { "claimRef", &schema_object_reference, 4, SCHEMA_GO_POINTER },
        { "persistentVolumeReclaimPolicy", &schema_reclaim_policy, 5, SCHEMA_GO_VALUE },
        { "storageClassName", &schema_string, 6, SCHEMA_GO_VALUE },
        { "mountOptions", &schema_string_list, 7, SCHEMA_GO_VALUE },
        { "volumeMode", &schema_persistent_volume_mode, 8, SCHEMA_GO_POINTER },
        { "nodeAffinity", &schema_volume_node_affinity, 9, SCHEMA_GO_POINTER },
        { "volumeAttributesClassName", &schema_string, 10, SCHEMA_GO_POINTER },
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
        { "phase", &schema_persistent_volume_phase, 1, SCHEMA_GO_VALUE },
        { "message", &schema_string, 2, SCHEMA_GO_VALUE },
        { "reason", &schema_string, 3, SCHEMA_GO_VALUE },
        { "lastPhaseTransitionTime", &schema_time, 4, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_persistent_volume_status =
        SCHEMA_STRUCT("PersistentVolumeStatus", persistent_volume_status_fields);

/* core/v1 PersistentVolume */
/* clang-format off */
static const struct schema_field persistent_volume_fields[] = {
        { "kind", &schema_string, 0, 0 }, /* TypeMeta: the envelope carries it */
        { "apiVersion", &schema_string, 0, 0 }, /* TypeMeta: the envelope carries it */
        { "metadata", &schema_object_meta, 1, SCHEMA_GO_VALUE },
        { "spec", &schema_persistent_volume_spec, 2, SCHEMA_GO_VALUE },
        { "status", &schema_persistent_volume_status, 3, SCHEMA_GO_VALUE },
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
        { "type", &schema_claim_condition_type, 1, SCHEMA_GO_ALWAYS },
        { "status", &schema_condition_status, 2, SCHEMA_GO_ALWAYS },
        { "lastProbeTime", &schema_time, 3, SCHEMA_GO_VALUE },
        { "lastTransitionTime", &schema_time, 4, SCHEMA_GO_VALUE },
        { "reason", &schema_string, 5, SCHEMA_GO_VALUE },
        { "message", &schema_string, 6, SCHEMA_GO_VALUE },
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
        { "targetVolumeAttributesClassName", &schema_string, 1, SCHEMA_GO_VALUE },
        { "status", &schema_modify_volume_status_value, 2, SCHEMA_GO_ALWAYS },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_modify_volume_status =
        SCHEMA_STRUCT("ModifyVolumeStatus", modify_volume_status_fields);

/* core/v1 PersistentVolumeClaimStatus */
/* clang-format off */
static const struct schema_field persistent_volume_claim_status_fields[] = {
        { "phase", &schema_claim_phase, 1, SCHEMA_GO_VALUE },
        { "accessModes", SCHEMA_ATOMIC_LIST(&schema_persistent_volume_access_mode), 2, SCHEMA_GO_VALUE },
        { "capacity", &schema_resource_list, 3, SCHEMA_GO_VALUE },
        { "conditions", SCHEMA_MAP_LIST(&schema_claim_condition, "type"), 4, SCHEMA_GO_VALUE },
        { "allocatedResources", &schema_resource_list, 5, SCHEMA_GO_VALUE },
        { "allocatedResourceStatuses", &schema_claim_resource_statuses, 7, SCHEMA_GO_VALUE },
        { "currentVolumeAttributesClassName", &schema_string, 8, SCHEMA_GO_POINTER },
        { "modifyVolumeStatus", &schema_modify_volume_status, 9, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_persistent_volume_claim_status =
        SCHEMA_STRUCT("PersistentVolumeClaimStatus", persistent_volume_claim_status_fields);

/* core/v1 PersistentVolumeClaim */
/* clang-format off */
static const struct schema_field persistent_volume_claim_fields[] = {
        { "kind", &schema_string, 0, 0 }, /* TypeMeta: the envelope carries it */
        { "apiVersion", &schema_string, 0, 0 }, /* TypeMeta: the envelope carries it */
        { "metadata", &schema_object_meta, 1, SCHEMA_GO_VALUE },
        { "spec", &schema_persistent_volume_claim_spec, 2, SCHEMA_GO_VALUE },
        { "status", &schema_persistent_volume_claim_status, 3, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_persistent_volume_claim =
        SCHEMA_STRUCT("PersistentVolumeClaim", persistent_volume_claim_fields);
