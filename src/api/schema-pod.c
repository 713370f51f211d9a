/* schema-pod.c: core/v1 Pod as it travels on the wire: PodSpec with every container, volume,
 * probe, affinity and security type, and PodStatus with container statuses. Field names,
 * patchStrategy/patchMergeKey and listType follow the k8s.io/api core/v1 struct tags (K8S:
 * §5.2 merge keys: containers by name, volumes by name with retainKeys, tolerations atomic).
 * Inline-embedded Go structs (VolumeSource, ProbeHandler, LocalObjectReference, ...) have their
 * fields promoted into the embedding struct's table, as they appear on the wire. */
#include "api/schemas.h"

static const struct schema schema_host_path_type = SCHEMA_NAMED(SCHEMA_STRING, "v1.HostPathType");

/* core/v1 HostPathVolumeSource */
/* clang-format off */
static const struct schema_field host_path_volume_source_fields[] = {
        { "path", &schema_string },
        { "type", &schema_host_path_type },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_host_path_volume_source =
        SCHEMA_STRUCT("HostPathVolumeSource", host_path_volume_source_fields);

static const struct schema schema_storage_medium = SCHEMA_NAMED(SCHEMA_STRING, "v1.StorageMedium");

/* core/v1 EmptyDirVolumeSource */
/* clang-format off */
static const struct schema_field empty_dir_volume_source_fields[] = {
        { "medium", &schema_storage_medium },
        { "sizeLimit", &schema_quantity },
        { "mode", &schema_int32 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_empty_dir_volume_source =
        SCHEMA_STRUCT("EmptyDirVolumeSource", empty_dir_volume_source_fields);

/* core/v1 GCEPersistentDiskVolumeSource */
/* clang-format off */
static const struct schema_field gce_persistent_disk_volume_source_fields[] = {
        { "pdName", &schema_string },
        { "fsType", &schema_string },
        { "partition", &schema_int32 },
        { "readOnly", &schema_bool },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_gce_persistent_disk_volume_source =
        SCHEMA_STRUCT("GCEPersistentDiskVolumeSource", gce_persistent_disk_volume_source_fields);

/* core/v1 AWSElasticBlockStoreVolumeSource */
/* clang-format off */
static const struct schema_field aws_elastic_block_store_volume_source_fields[] = {
        { "volumeID", &schema_string },
        { "fsType", &schema_string },
        { "partition", &schema_int32 },
        { "readOnly", &schema_bool },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_aws_elastic_block_store_volume_source = SCHEMA_STRUCT(
        "AWSElasticBlockStoreVolumeSource", aws_elastic_block_store_volume_source_fields);

/* core/v1 GitRepoVolumeSource */
/* clang-format off */
static const struct schema_field git_repo_volume_source_fields[] = {
        { "repository", &schema_string },
        { "revision", &schema_string },
        { "directory", &schema_string },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_git_repo_volume_source =
        SCHEMA_STRUCT("GitRepoVolumeSource", git_repo_volume_source_fields);

/* core/v1 KeyToPath */
/* clang-format off */
static const struct schema_field key_to_path_fields[] = {
        { "key", &schema_string },
        { "path", &schema_string },
        { "mode", &schema_int32 },
        { "user", &schema_int64 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_key_to_path = SCHEMA_STRUCT("KeyToPath", key_to_path_fields);

/* core/v1 SecretVolumeSource */
/* clang-format off */
static const struct schema_field secret_volume_source_fields[] = {
        { "secretName", &schema_string },
        { "items", SCHEMA_ATOMIC_LIST(&schema_key_to_path) },
        { "defaultMode", &schema_int32 },
        { "optional", &schema_bool },
        { "defaultUser", &schema_int64 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_secret_volume_source =
        SCHEMA_STRUCT("SecretVolumeSource", secret_volume_source_fields);

/* core/v1 NFSVolumeSource */
/* clang-format off */
static const struct schema_field nfs_volume_source_fields[] = {
        { "server", &schema_string },
        { "path", &schema_string },
        { "readOnly", &schema_bool },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_nfs_volume_source =
        SCHEMA_STRUCT("NFSVolumeSource", nfs_volume_source_fields);

/* core/v1 LocalObjectReference */
/* clang-format off */
static const struct schema_field local_object_reference_fields[] = {
        { "name", &schema_string },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_local_object_reference =
        SCHEMA_STRUCT("LocalObjectReference", local_object_reference_fields);

/* core/v1 ISCSIVolumeSource */
/* clang-format off */
static const struct schema_field iscsi_volume_source_fields[] = {
        { "targetPortal", &schema_string },
        { "iqn", &schema_string },
        { "lun", &schema_int32 },
        { "iscsiInterface", &schema_string },
        { "fsType", &schema_string },
        { "readOnly", &schema_bool },
        { "portals", &schema_string_list },
        { "chapAuthDiscovery", &schema_bool },
        { "chapAuthSession", &schema_bool },
        { "secretRef", &schema_local_object_reference },
        { "initiatorName", &schema_string },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_iscsi_volume_source =
        SCHEMA_STRUCT("ISCSIVolumeSource", iscsi_volume_source_fields);

/* core/v1 GlusterfsVolumeSource */
/* clang-format off */
static const struct schema_field glusterfs_volume_source_fields[] = {
        { "endpoints", &schema_string },
        { "path", &schema_string },
        { "readOnly", &schema_bool },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_glusterfs_volume_source =
        SCHEMA_STRUCT("GlusterfsVolumeSource", glusterfs_volume_source_fields);

/* core/v1 PersistentVolumeClaimVolumeSource */
/* clang-format off */
static const struct schema_field persistent_volume_claim_volume_source_fields[] = {
        { "claimName", &schema_string },
        { "readOnly", &schema_bool },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_persistent_volume_claim_volume_source = SCHEMA_STRUCT(
        "PersistentVolumeClaimVolumeSource", persistent_volume_claim_volume_source_fields);

/* core/v1 RBDVolumeSource */
/* clang-format off */
static const struct schema_field rbd_volume_source_fields[] = {
        { "monitors", &schema_string_list },
        { "image", &schema_string },
        { "fsType", &schema_string },
        { "pool", &schema_string },
        { "user", &schema_string },
        { "keyring", &schema_string },
        { "secretRef", &schema_local_object_reference },
        { "readOnly", &schema_bool },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_rbd_volume_source =
        SCHEMA_STRUCT("RBDVolumeSource", rbd_volume_source_fields);

/* core/v1 FlexVolumeSource */
/* clang-format off */
static const struct schema_field flex_volume_source_fields[] = {
        { "driver", &schema_string },
        { "fsType", &schema_string },
        { "secretRef", &schema_local_object_reference },
        { "readOnly", &schema_bool },
        { "options", &schema_string_map },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_flex_volume_source =
        SCHEMA_STRUCT("FlexVolumeSource", flex_volume_source_fields);

/* core/v1 CinderVolumeSource */
/* clang-format off */
static const struct schema_field cinder_volume_source_fields[] = {
        { "volumeID", &schema_string },
        { "fsType", &schema_string },
        { "readOnly", &schema_bool },
        { "secretRef", &schema_local_object_reference },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_cinder_volume_source =
        SCHEMA_STRUCT("CinderVolumeSource", cinder_volume_source_fields);

/* core/v1 CephFSVolumeSource */
/* clang-format off */
static const struct schema_field ceph_fs_volume_source_fields[] = {
        { "monitors", &schema_string_list },
        { "path", &schema_string },
        { "user", &schema_string },
        { "secretFile", &schema_string },
        { "secretRef", &schema_local_object_reference },
        { "readOnly", &schema_bool },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_ceph_fs_volume_source =
        SCHEMA_STRUCT("CephFSVolumeSource", ceph_fs_volume_source_fields);

/* core/v1 FlockerVolumeSource */
/* clang-format off */
static const struct schema_field flocker_volume_source_fields[] = {
        { "datasetName", &schema_string },
        { "datasetUUID", &schema_string },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_flocker_volume_source =
        SCHEMA_STRUCT("FlockerVolumeSource", flocker_volume_source_fields);

/* core/v1 ObjectFieldSelector */
/* clang-format off */
static const struct schema_field object_field_selector_fields[] = {
        { "apiVersion", &schema_string },
        { "fieldPath", &schema_string },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_object_field_selector =
        SCHEMA_STRUCT("ObjectFieldSelector", object_field_selector_fields);

/* core/v1 ResourceFieldSelector */
/* clang-format off */
static const struct schema_field resource_field_selector_fields[] = {
        { "containerName", &schema_string },
        { "resource", &schema_string },
        { "divisor", &schema_quantity },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_resource_field_selector =
        SCHEMA_STRUCT("ResourceFieldSelector", resource_field_selector_fields);

/* core/v1 DownwardAPIVolumeFile */
/* clang-format off */
static const struct schema_field downward_api_volume_file_fields[] = {
        { "path", &schema_string },
        { "fieldRef", &schema_object_field_selector },
        { "resourceFieldRef", &schema_resource_field_selector },
        { "mode", &schema_int32 },
        { "user", &schema_int64 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_downward_api_volume_file =
        SCHEMA_STRUCT("DownwardAPIVolumeFile", downward_api_volume_file_fields);

/* core/v1 DownwardAPIVolumeSource */
/* clang-format off */
static const struct schema_field downward_api_volume_source_fields[] = {
        { "items", SCHEMA_ATOMIC_LIST(&schema_downward_api_volume_file) },
        { "defaultMode", &schema_int32 },
        { "defaultUser", &schema_int64 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_downward_api_volume_source =
        SCHEMA_STRUCT("DownwardAPIVolumeSource", downward_api_volume_source_fields);

/* core/v1 FCVolumeSource */
/* clang-format off */
static const struct schema_field fc_volume_source_fields[] = {
        { "targetWWNs", &schema_string_list },
        { "lun", &schema_int32 },
        { "fsType", &schema_string },
        { "readOnly", &schema_bool },
        { "wwids", &schema_string_list },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_fc_volume_source =
        SCHEMA_STRUCT("FCVolumeSource", fc_volume_source_fields);

/* core/v1 AzureFileVolumeSource */
/* clang-format off */
static const struct schema_field azure_file_volume_source_fields[] = {
        { "secretName", &schema_string },
        { "shareName", &schema_string },
        { "readOnly", &schema_bool },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_azure_file_volume_source =
        SCHEMA_STRUCT("AzureFileVolumeSource", azure_file_volume_source_fields);

/* core/v1 ConfigMapVolumeSource */
/* clang-format off */
static const struct schema_field config_map_volume_source_fields[] = {
        { "name", &schema_string },
        { "items", SCHEMA_ATOMIC_LIST(&schema_key_to_path) },
        { "defaultMode", &schema_int32 },
        { "optional", &schema_bool },
        { "defaultUser", &schema_int64 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_config_map_volume_source =
        SCHEMA_STRUCT("ConfigMapVolumeSource", config_map_volume_source_fields);

/* core/v1 VsphereVirtualDiskVolumeSource */
/* clang-format off */
static const struct schema_field vsphere_virtual_disk_volume_source_fields[] = {
        { "volumePath", &schema_string },
        { "fsType", &schema_string },
        { "storagePolicyName", &schema_string },
        { "storagePolicyID", &schema_string },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_vsphere_virtual_disk_volume_source =
        SCHEMA_STRUCT("VsphereVirtualDiskVolumeSource", vsphere_virtual_disk_volume_source_fields);

/* core/v1 QuobyteVolumeSource */
/* clang-format off */
static const struct schema_field quobyte_volume_source_fields[] = {
        { "registry", &schema_string },
        { "volume", &schema_string },
        { "readOnly", &schema_bool },
        { "user", &schema_string },
        { "group", &schema_string },
        { "tenant", &schema_string },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_quobyte_volume_source =
        SCHEMA_STRUCT("QuobyteVolumeSource", quobyte_volume_source_fields);

static const struct schema schema_azure_data_disk_caching_mode =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.AzureDataDiskCachingMode");

static const struct schema schema_azure_data_disk_kind =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.AzureDataDiskKind");

/* core/v1 AzureDiskVolumeSource */
/* clang-format off */
static const struct schema_field azure_disk_volume_source_fields[] = {
        { "diskName", &schema_string },
        { "diskURI", &schema_string },
        { "cachingMode", &schema_azure_data_disk_caching_mode },
        { "fsType", &schema_string },
        { "readOnly", &schema_bool },
        { "kind", &schema_azure_data_disk_kind },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_azure_disk_volume_source =
        SCHEMA_STRUCT("AzureDiskVolumeSource", azure_disk_volume_source_fields);

/* core/v1 PhotonPersistentDiskVolumeSource */
/* clang-format off */
static const struct schema_field photon_persistent_disk_volume_source_fields[] = {
        { "pdID", &schema_string },
        { "fsType", &schema_string },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_photon_persistent_disk_volume_source = SCHEMA_STRUCT(
        "PhotonPersistentDiskVolumeSource", photon_persistent_disk_volume_source_fields);

/* core/v1 SecretProjection */
/* clang-format off */
static const struct schema_field secret_projection_fields[] = {
        { "name", &schema_string },
        { "items", SCHEMA_ATOMIC_LIST(&schema_key_to_path) },
        { "optional", &schema_bool },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_secret_projection =
        SCHEMA_STRUCT("SecretProjection", secret_projection_fields);

/* core/v1 DownwardAPIProjection */
/* clang-format off */
static const struct schema_field downward_api_projection_fields[] = {
        { "items", SCHEMA_ATOMIC_LIST(&schema_downward_api_volume_file) },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_downward_api_projection =
        SCHEMA_STRUCT("DownwardAPIProjection", downward_api_projection_fields);

/* core/v1 ConfigMapProjection */
/* clang-format off */
static const struct schema_field config_map_projection_fields[] = {
        { "name", &schema_string },
        { "items", SCHEMA_ATOMIC_LIST(&schema_key_to_path) },
        { "optional", &schema_bool },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_config_map_projection =
        SCHEMA_STRUCT("ConfigMapProjection", config_map_projection_fields);

/* core/v1 ServiceAccountTokenProjection */
/* clang-format off */
static const struct schema_field service_account_token_projection_fields[] = {
        { "audience", &schema_string },
        { "expirationSeconds", &schema_int64 },
        { "path", &schema_string },
        { "user", &schema_int64 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_service_account_token_projection =
        SCHEMA_STRUCT("ServiceAccountTokenProjection", service_account_token_projection_fields);

/* core/v1 ClusterTrustBundleProjection */
/* clang-format off */
static const struct schema_field cluster_trust_bundle_projection_fields[] = {
        { "name", &schema_string },
        { "signerName", &schema_string },
        { "labelSelector", &schema_label_selector },
        { "optional", &schema_bool },
        { "path", &schema_string },
        { "user", &schema_int64 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_cluster_trust_bundle_projection =
        SCHEMA_STRUCT("ClusterTrustBundleProjection", cluster_trust_bundle_projection_fields);

/* core/v1 PodCertificateProjection */
/* clang-format off */
static const struct schema_field pod_certificate_projection_fields[] = {
        { "signerName", &schema_string },
        { "keyType", &schema_string },
        { "maxExpirationSeconds", &schema_int32 },
        { "credentialBundlePath", &schema_string },
        { "keyPath", &schema_string },
        { "certificateChainPath", &schema_string },
        { "userAnnotations", &schema_string_map },
        { "user", &schema_int64 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_pod_certificate_projection =
        SCHEMA_STRUCT("PodCertificateProjection", pod_certificate_projection_fields);

/* core/v1 VolumeProjection */
/* clang-format off */
static const struct schema_field volume_projection_fields[] = {
        { "secret", &schema_secret_projection },
        { "downwardAPI", &schema_downward_api_projection },
        { "configMap", &schema_config_map_projection },
        { "serviceAccountToken", &schema_service_account_token_projection },
        { "clusterTrustBundle", &schema_cluster_trust_bundle_projection },
        { "podCertificate", &schema_pod_certificate_projection },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_volume_projection =
        SCHEMA_STRUCT("VolumeProjection", volume_projection_fields);

/* core/v1 ProjectedVolumeSource */
/* clang-format off */
static const struct schema_field projected_volume_source_fields[] = {
        { "sources", SCHEMA_ATOMIC_LIST(&schema_volume_projection) },
        { "defaultMode", &schema_int32 },
        { "defaultUser", &schema_int64 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_projected_volume_source =
        SCHEMA_STRUCT("ProjectedVolumeSource", projected_volume_source_fields);

/* core/v1 PortworxVolumeSource */
/* clang-format off */
static const struct schema_field portworx_volume_source_fields[] = {
        { "volumeID", &schema_string },
        { "fsType", &schema_string },
        { "readOnly", &schema_bool },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_portworx_volume_source =
        SCHEMA_STRUCT("PortworxVolumeSource", portworx_volume_source_fields);

/* core/v1 ScaleIOVolumeSource */
/* clang-format off */
static const struct schema_field scale_io_volume_source_fields[] = {
        { "gateway", &schema_string },
        { "system", &schema_string },
        { "secretRef", &schema_local_object_reference },
        { "sslEnabled", &schema_bool },
        { "protectionDomain", &schema_string },
        { "storagePool", &schema_string },
        { "storageMode", &schema_string },
        { "volumeName", &schema_string },
        { "fsType", &schema_string },
        { "readOnly", &schema_bool },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_scale_io_volume_source =
        SCHEMA_STRUCT("ScaleIOVolumeSource", scale_io_volume_source_fields);

/* core/v1 StorageOSVolumeSource */
/* clang-format off */
static const struct schema_field storage_os_volume_source_fields[] = {
        { "volumeName", &schema_string },
        { "volumeNamespace", &schema_string },
        { "fsType", &schema_string },
        { "readOnly", &schema_bool },
        { "secretRef", &schema_local_object_reference },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_storage_os_volume_source =
        SCHEMA_STRUCT("StorageOSVolumeSource", storage_os_volume_source_fields);

/* core/v1 CSIVolumeSource */
/* clang-format off */
static const struct schema_field csi_volume_source_fields[] = {
        { "driver", &schema_string },
        { "readOnly", &schema_bool },
        { "fsType", &schema_string },
        { "volumeAttributes", &schema_string_map },
        { "nodePublishSecretRef", &schema_local_object_reference },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_csi_volume_source =
        SCHEMA_STRUCT("CSIVolumeSource", csi_volume_source_fields);

const struct schema schema_persistent_volume_access_mode =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.PersistentVolumeAccessMode");

/* core/v1 VolumeResourceRequirements */
/* clang-format off */
static const struct schema_field volume_resource_requirements_fields[] = {
        { "limits", &schema_resource_list },
        { "requests", &schema_resource_list },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_volume_resource_requirements =
        SCHEMA_STRUCT("VolumeResourceRequirements", volume_resource_requirements_fields);

const struct schema schema_persistent_volume_mode =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.PersistentVolumeMode");

/* core/v1 TypedLocalObjectReference */
/* clang-format off */
static const struct schema_field typed_local_object_reference_fields[] = {
        { "apiGroup", &schema_string },
        { "kind", &schema_string },
        { "name", &schema_string },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_typed_local_object_reference =
        SCHEMA_STRUCT("TypedLocalObjectReference", typed_local_object_reference_fields);

/* core/v1 TypedObjectReference */
/* clang-format off */
static const struct schema_field typed_object_reference_fields[] = {
        { "apiGroup", &schema_string },
        { "kind", &schema_string },
        { "name", &schema_string },
        { "namespace", &schema_string },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_typed_object_reference =
        SCHEMA_STRUCT("TypedObjectReference", typed_object_reference_fields);

/* core/v1 PersistentVolumeClaimSpec */
/* clang-format off */
static const struct schema_field persistent_volume_claim_spec_fields[] = {
        { "accessModes", SCHEMA_ATOMIC_LIST(&schema_persistent_volume_access_mode) },
        { "selector", &schema_label_selector },
        { "resources", &schema_volume_resource_requirements },
        { "volumeName", &schema_string },
        { "storageClassName", &schema_string },
        { "volumeMode", &schema_persistent_volume_mode },
        { "dataSource", &schema_typed_local_object_reference },
        { "dataSourceRef", &schema_typed_object_reference },
        { "volumeAttributesClassName", &schema_string },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_persistent_volume_claim_spec =
        SCHEMA_STRUCT("PersistentVolumeClaimSpec", persistent_volume_claim_spec_fields);

/* core/v1 PersistentVolumeClaimTemplate */
/* clang-format off */
static const struct schema_field persistent_volume_claim_template_fields[] = {
        { "metadata", &schema_object_meta },
        { "spec", &schema_persistent_volume_claim_spec },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_persistent_volume_claim_template =
        SCHEMA_STRUCT("PersistentVolumeClaimTemplate", persistent_volume_claim_template_fields);

/* core/v1 EphemeralVolumeSource */
/* clang-format off */
static const struct schema_field ephemeral_volume_source_fields[] = {
        { "volumeClaimTemplate", &schema_persistent_volume_claim_template },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_ephemeral_volume_source =
        SCHEMA_STRUCT("EphemeralVolumeSource", ephemeral_volume_source_fields);

static const struct schema schema_pull_policy = SCHEMA_NAMED(SCHEMA_STRING, "v1.PullPolicy");

/* core/v1 ImageVolumeSource */
/* clang-format off */
static const struct schema_field image_volume_source_fields[] = {
        { "reference", &schema_string },
        { "pullPolicy", &schema_pull_policy },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_image_volume_source =
        SCHEMA_STRUCT("ImageVolumeSource", image_volume_source_fields);

/* core/v1 Volume */
/* clang-format off */
static const struct schema_field volume_fields[] = {
        { "name", &schema_string },
        { "hostPath", &schema_host_path_volume_source },
        { "emptyDir", &schema_empty_dir_volume_source },
        { "gcePersistentDisk", &schema_gce_persistent_disk_volume_source },
        { "awsElasticBlockStore", &schema_aws_elastic_block_store_volume_source },
        { "gitRepo", &schema_git_repo_volume_source },
        { "secret", &schema_secret_volume_source },
        { "nfs", &schema_nfs_volume_source },
        { "iscsi", &schema_iscsi_volume_source },
        { "glusterfs", &schema_glusterfs_volume_source },
        { "persistentVolumeClaim", &schema_persistent_volume_claim_volume_source },
        { "rbd", &schema_rbd_volume_source },
        { "flexVolume", &schema_flex_volume_source },
        { "cinder", &schema_cinder_volume_source },
        { "cephfs", &schema_ceph_fs_volume_source },
        { "flocker", &schema_flocker_volume_source },
        { "downwardAPI", &schema_downward_api_volume_source },
        { "fc", &schema_fc_volume_source },
        { "azureFile", &schema_azure_file_volume_source },
        { "configMap", &schema_config_map_volume_source },
        { "vsphereVolume", &schema_vsphere_virtual_disk_volume_source },
        { "quobyte", &schema_quobyte_volume_source },
        { "azureDisk", &schema_azure_disk_volume_source },
        { "photonPersistentDisk", &schema_photon_persistent_disk_volume_source },
        { "projected", &schema_projected_volume_source },
        { "portworxVolume", &schema_portworx_volume_source },
        { "scaleIO", &schema_scale_io_volume_source },
        { "storageos", &schema_storage_os_volume_source },
        { "csi", &schema_csi_volume_source },
        { "ephemeral", &schema_ephemeral_volume_source },
        { "image", &schema_image_volume_source },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_volume = SCHEMA_STRUCT("Volume", volume_fields);

static const struct schema schema_protocol = SCHEMA_NAMED(SCHEMA_STRING, "v1.Protocol");

/* core/v1 ContainerPort */
/* clang-format off */
static const struct schema_field container_port_fields[] = {
        { "name", &schema_string },
        { "hostPort", &schema_int32 },
        { "containerPort", &schema_int32 },
        { "protocol", &schema_protocol },
        { "hostIP", &schema_string },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_container_port =
        SCHEMA_STRUCT("ContainerPort", container_port_fields);

/* core/v1 ConfigMapEnvSource */
/* clang-format off */
static const struct schema_field config_map_env_source_fields[] = {
        { "name", &schema_string },
        { "optional", &schema_bool },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_config_map_env_source =
        SCHEMA_STRUCT("ConfigMapEnvSource", config_map_env_source_fields);

/* core/v1 SecretEnvSource */
/* clang-format off */
static const struct schema_field secret_env_source_fields[] = {
        { "name", &schema_string },
        { "optional", &schema_bool },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_secret_env_source =
        SCHEMA_STRUCT("SecretEnvSource", secret_env_source_fields);

/* core/v1 EnvFromSource */
/* clang-format off */
static const struct schema_field env_from_source_fields[] = {
        { "prefix", &schema_string },
        { "configMapRef", &schema_config_map_env_source },
        { "secretRef", &schema_secret_env_source },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_env_from_source =
        SCHEMA_STRUCT("EnvFromSource", env_from_source_fields);

/* core/v1 ConfigMapKeySelector */
/* clang-format off */
static const struct schema_field config_map_key_selector_fields[] = {
        { "name", &schema_string },
        { "key", &schema_string },
        { "optional", &schema_bool },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_config_map_key_selector =
        SCHEMA_STRUCT("ConfigMapKeySelector", config_map_key_selector_fields);

/* core/v1 SecretKeySelector */
/* clang-format off */
static const struct schema_field secret_key_selector_fields[] = {
        { "name", &schema_string },
        { "key", &schema_string },
        { "optional", &schema_bool },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_secret_key_selector =
        SCHEMA_STRUCT("SecretKeySelector", secret_key_selector_fields);

/* core/v1 FileKeySelector */
/* clang-format off */
static const struct schema_field file_key_selector_fields[] = {
        { "volumeName", &schema_string },
        { "path", &schema_string },
        { "key", &schema_string },
        { "optional", &schema_bool },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_file_key_selector =
        SCHEMA_STRUCT("FileKeySelector", file_key_selector_fields);

/* core/v1 EnvVarSource */
/* clang-format off */
static const struct schema_field env_var_source_fields[] = {
        { "fieldRef", &schema_object_field_selector },
        { "resourceFieldRef", &schema_resource_field_selector },
        { "configMapKeyRef", &schema_config_map_key_selector },
        { "secretKeyRef", &schema_secret_key_selector },
        { "fileKeyRef", &schema_file_key_selector },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_env_var_source =
        SCHEMA_STRUCT("EnvVarSource", env_var_source_fields);

/* core/v1 EnvVar */
/* clang-format off */
static const struct schema_field env_var_fields[] = {
        { "name", &schema_string },
        { "value", &schema_string },
        { "valueFrom", &schema_env_var_source },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_env_var = SCHEMA_STRUCT("EnvVar", env_var_fields);

static const struct schema schema_resource_name = SCHEMA_NAMED(SCHEMA_STRING, "v1.ResourceName");

static const struct schema schema_resource_resize_restart_policy =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.ResourceResizeRestartPolicy");

/* core/v1 ContainerResizePolicy */
/* clang-format off */
static const struct schema_field container_resize_policy_fields[] = {
        { "resourceName", &schema_resource_name },
        { "restartPolicy", &schema_resource_resize_restart_policy },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_container_resize_policy =
        SCHEMA_STRUCT("ContainerResizePolicy", container_resize_policy_fields);

static const struct schema schema_container_restart_policy =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.ContainerRestartPolicy");

static const struct schema schema_container_restart_rule_action =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.ContainerRestartRuleAction");

static const struct schema schema_container_restart_rule_on_exit_codes_operator =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.ContainerRestartRuleOnExitCodesOperator");

/* core/v1 ContainerRestartRuleOnExitCodes */
/* clang-format off */
static const struct schema_field container_restart_rule_on_exit_codes_fields[] = {
        { "operator", &schema_container_restart_rule_on_exit_codes_operator },
        { "values", SCHEMA_ATOMIC_LIST(&schema_int32) },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_container_restart_rule_on_exit_codes = SCHEMA_STRUCT(
        "ContainerRestartRuleOnExitCodes", container_restart_rule_on_exit_codes_fields);

/* core/v1 ContainerRestartRule */
/* clang-format off */
static const struct schema_field container_restart_rule_fields[] = {
        { "action", &schema_container_restart_rule_action },
        { "exitCodes", &schema_container_restart_rule_on_exit_codes },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_container_restart_rule =
        SCHEMA_STRUCT("ContainerRestartRule", container_restart_rule_fields);

static const struct schema schema_recursive_read_only_mode =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.RecursiveReadOnlyMode");

static const struct schema schema_mount_propagation_mode =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.MountPropagationMode");

/* core/v1 VolumeMount */
/* clang-format off */
static const struct schema_field volume_mount_fields[] = {
        { "name", &schema_string },
        { "readOnly", &schema_bool },
        { "recursiveReadOnly", &schema_recursive_read_only_mode },
        { "mountPath", &schema_string },
        { "subPath", &schema_string },
        { "mountPropagation", &schema_mount_propagation_mode },
        { "subPathExpr", &schema_string },
        { "bindMountOptions", &schema_string_list },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_volume_mount = SCHEMA_STRUCT("VolumeMount", volume_mount_fields);

/* core/v1 VolumeDevice */
/* clang-format off */
static const struct schema_field volume_device_fields[] = {
        { "name", &schema_string },
        { "devicePath", &schema_string },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_volume_device =
        SCHEMA_STRUCT("VolumeDevice", volume_device_fields);

/* core/v1 ExecAction */
/* clang-format off */
static const struct schema_field exec_action_fields[] = {
        { "command", &schema_string_list },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_exec_action = SCHEMA_STRUCT("ExecAction", exec_action_fields);

static const struct schema schema_uri_scheme = SCHEMA_NAMED(SCHEMA_STRING, "v1.URIScheme");

/* core/v1 HTTPHeader */
/* clang-format off */
static const struct schema_field http_header_fields[] = {
        { "name", &schema_string },
        { "value", &schema_string },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_http_header = SCHEMA_STRUCT("HTTPHeader", http_header_fields);

static const struct schema schema_http_protocol = SCHEMA_NAMED(SCHEMA_STRING, "v1.HTTPProtocol");

/* core/v1 HTTPGetAction */
/* clang-format off */
static const struct schema_field http_get_action_fields[] = {
        { "path", &schema_string },
        { "port", &schema_int_or_string },
        { "host", &schema_string },
        { "scheme", &schema_uri_scheme },
        { "httpHeaders", SCHEMA_ATOMIC_LIST(&schema_http_header) },
        { "protocol", &schema_http_protocol },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_http_get_action =
        SCHEMA_STRUCT("HTTPGetAction", http_get_action_fields);

/* core/v1 TCPSocketAction */
/* clang-format off */
static const struct schema_field tcp_socket_action_fields[] = {
        { "port", &schema_int_or_string },
        { "host", &schema_string },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_tcp_socket_action =
        SCHEMA_STRUCT("TCPSocketAction", tcp_socket_action_fields);

static const struct schema schema_grpc_probe_mode = SCHEMA_NAMED(SCHEMA_STRING, "v1.GRPCProbeMode");

/* core/v1 GRPCAction */
/* clang-format off */
static const struct schema_field grpc_action_fields[] = {
        { "port", &schema_int32 },
        { "service", &schema_string },
        { "mode", &schema_grpc_probe_mode },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_grpc_action = SCHEMA_STRUCT("GRPCAction", grpc_action_fields);

/* core/v1 Probe */
/* clang-format off */
static const struct schema_field probe_fields[] = {
        { "exec", &schema_exec_action },
        { "httpGet", &schema_http_get_action },
        { "tcpSocket", &schema_tcp_socket_action },
        { "grpc", &schema_grpc_action },
        { "initialDelaySeconds", &schema_int32 },
        { "timeoutSeconds", &schema_int32 },
        { "periodSeconds", &schema_int32 },
        { "successThreshold", &schema_int32 },
        { "failureThreshold", &schema_int32 },
        { "terminationGracePeriodSeconds", &schema_int64 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_probe = SCHEMA_STRUCT("Probe", probe_fields);

/* core/v1 SleepAction */
/* clang-format off */
static const struct schema_field sleep_action_fields[] = {
        { "seconds", &schema_int64 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_sleep_action = SCHEMA_STRUCT("SleepAction", sleep_action_fields);

/* core/v1 LifecycleHandler */
/* clang-format off */
static const struct schema_field lifecycle_handler_fields[] = {
        { "exec", &schema_exec_action },
        { "httpGet", &schema_http_get_action },
        { "tcpSocket", &schema_tcp_socket_action },
        { "sleep", &schema_sleep_action },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_lifecycle_handler =
        SCHEMA_STRUCT("LifecycleHandler", lifecycle_handler_fields);

static const struct schema schema_signal = SCHEMA_NAMED(SCHEMA_STRING, "v1.Signal");

/* core/v1 Lifecycle */
/* clang-format off */
static const struct schema_field lifecycle_fields[] = {
        { "postStart", &schema_lifecycle_handler },
        { "preStop", &schema_lifecycle_handler },
        { "stopSignal", &schema_signal },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_lifecycle = SCHEMA_STRUCT("Lifecycle", lifecycle_fields);

static const struct schema schema_termination_message_policy =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.TerminationMessagePolicy");

static const struct schema schema_capability = SCHEMA_NAMED(SCHEMA_STRING, "v1.Capability");

/* core/v1 Capabilities */
/* clang-format off */
static const struct schema_field capabilities_fields[] = {
        { "add", SCHEMA_ATOMIC_LIST(&schema_capability) },
        { "drop", SCHEMA_ATOMIC_LIST(&schema_capability) },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_capabilities = SCHEMA_STRUCT("Capabilities", capabilities_fields);

/* core/v1 SELinuxOptions */
/* clang-format off */
static const struct schema_field se_linux_options_fields[] = {
        { "user", &schema_string },
        { "role", &schema_string },
        { "type", &schema_string },
        { "level", &schema_string },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_se_linux_options =
        SCHEMA_STRUCT("SELinuxOptions", se_linux_options_fields);

/* core/v1 WindowsSecurityContextOptions */
/* clang-format off */
static const struct schema_field windows_security_context_options_fields[] = {
        { "gmsaCredentialSpecName", &schema_string },
        { "gmsaCredentialSpec", &schema_string },
        { "runAsUserName", &schema_string },
        { "hostProcess", &schema_bool },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_windows_security_context_options =
        SCHEMA_STRUCT("WindowsSecurityContextOptions", windows_security_context_options_fields);

static const struct schema schema_proc_mount_type = SCHEMA_NAMED(SCHEMA_STRING, "v1.ProcMountType");

static const struct schema schema_seccomp_profile_type =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.SeccompProfileType");

/* core/v1 SeccompProfile */
/* clang-format off */
static const struct schema_field seccomp_profile_fields[] = {
        { "type", &schema_seccomp_profile_type },
        { "localhostProfile", &schema_string },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_seccomp_profile =
        SCHEMA_STRUCT("SeccompProfile", seccomp_profile_fields);

static const struct schema schema_app_armor_profile_type =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.AppArmorProfileType");

/* core/v1 AppArmorProfile */
/* clang-format off */
static const struct schema_field app_armor_profile_fields[] = {
        { "type", &schema_app_armor_profile_type },
        { "localhostProfile", &schema_string },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_app_armor_profile =
        SCHEMA_STRUCT("AppArmorProfile", app_armor_profile_fields);

/* core/v1 SecurityContext */
/* clang-format off */
static const struct schema_field security_context_fields[] = {
        { "capabilities", &schema_capabilities },
        { "privileged", &schema_bool },
        { "seLinuxOptions", &schema_se_linux_options },
        { "windowsOptions", &schema_windows_security_context_options },
        { "runAsUser", &schema_int64 },
        { "runAsGroup", &schema_int64 },
        { "runAsNonRoot", &schema_bool },
        { "readOnlyRootFilesystem", &schema_bool },
        { "allowPrivilegeEscalation", &schema_bool },
        { "procMount", &schema_proc_mount_type },
        { "seccompProfile", &schema_seccomp_profile },
        { "appArmorProfile", &schema_app_armor_profile },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_security_context =
        SCHEMA_STRUCT("SecurityContext", security_context_fields);

/* core/v1 Container */
/* clang-format off */
static const struct schema_field container_fields[] = {
        { "name", &schema_string },
        { "image", &schema_string },
        { "command", &schema_string_list },
        { "args", &schema_string_list },
        { "workingDir", &schema_string },
        { "ports", SCHEMA_MAP_LIST(&schema_container_port, "containerPort") },
        { "envFrom", SCHEMA_ATOMIC_LIST(&schema_env_from_source) },
        { "env", SCHEMA_MAP_LIST(&schema_env_var, "name") },
        { "resources", &schema_resource_requirements },
        { "resizePolicy", SCHEMA_ATOMIC_LIST(&schema_container_resize_policy) },
        { "restartPolicy", &schema_container_restart_policy },
        { "restartPolicyRules", SCHEMA_ATOMIC_LIST(&schema_container_restart_rule) },
        { "volumeMounts", SCHEMA_MAP_LIST(&schema_volume_mount, "mountPath") },
        { "volumeDevices", SCHEMA_MAP_LIST(&schema_volume_device, "devicePath") },
        { "livenessProbe", &schema_probe },
        { "readinessProbe", &schema_probe },
        { "startupProbe", &schema_probe },
        { "lifecycle", &schema_lifecycle },
        { "terminationMessagePath", &schema_string },
        { "terminationMessagePolicy", &schema_termination_message_policy },
        { "imagePullPolicy", &schema_pull_policy },
        { "securityContext", &schema_security_context },
        { "stdin", &schema_bool },
        { "stdinOnce", &schema_bool },
        { "tty", &schema_bool },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_container = SCHEMA_STRUCT("Container", container_fields);

/* core/v1 EphemeralContainer */
/* clang-format off */
static const struct schema_field ephemeral_container_fields[] = {
        { "name", &schema_string },
        { "image", &schema_string },
        { "command", &schema_string_list },
        { "args", &schema_string_list },
        { "workingDir", &schema_string },
        { "ports", SCHEMA_MAP_LIST(&schema_container_port, "containerPort") },
        { "envFrom", SCHEMA_ATOMIC_LIST(&schema_env_from_source) },
        { "env", SCHEMA_MAP_LIST(&schema_env_var, "name") },
        { "resources", &schema_resource_requirements },
        { "resizePolicy", SCHEMA_ATOMIC_LIST(&schema_container_resize_policy) },
        { "restartPolicy", &schema_container_restart_policy },
        { "restartPolicyRules", SCHEMA_ATOMIC_LIST(&schema_container_restart_rule) },
        { "volumeMounts", SCHEMA_MAP_LIST(&schema_volume_mount, "mountPath") },
        { "volumeDevices", SCHEMA_MAP_LIST(&schema_volume_device, "devicePath") },
        { "livenessProbe", &schema_probe },
        { "readinessProbe", &schema_probe },
        { "startupProbe", &schema_probe },
        { "lifecycle", &schema_lifecycle },
        { "terminationMessagePath", &schema_string },
        { "terminationMessagePolicy", &schema_termination_message_policy },
        { "imagePullPolicy", &schema_pull_policy },
        { "securityContext", &schema_security_context },
        { "stdin", &schema_bool },
        { "stdinOnce", &schema_bool },
        { "tty", &schema_bool },
        { "targetContainerName", &schema_string },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_ephemeral_container =
        SCHEMA_STRUCT("EphemeralContainer", ephemeral_container_fields);

static const struct schema schema_restart_policy = SCHEMA_NAMED(SCHEMA_STRING, "v1.RestartPolicy");

static const struct schema schema_dns_policy = SCHEMA_NAMED(SCHEMA_STRING, "v1.DNSPolicy");

static const struct schema schema_supplemental_groups_policy =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.SupplementalGroupsPolicy");

/* core/v1 Sysctl */
/* clang-format off */
static const struct schema_field sysctl_fields[] = {
        { "name", &schema_string },
        { "value", &schema_string },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_sysctl = SCHEMA_STRUCT("Sysctl", sysctl_fields);

static const struct schema schema_pod_fs_group_change_policy =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.PodFSGroupChangePolicy");

static const struct schema schema_pod_se_linux_change_policy =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.PodSELinuxChangePolicy");

/* core/v1 PodSecurityContext */
/* clang-format off */
static const struct schema_field pod_security_context_fields[] = {
        { "seLinuxOptions", &schema_se_linux_options },
        { "windowsOptions", &schema_windows_security_context_options },
        { "runAsUser", &schema_int64 },
        { "runAsGroup", &schema_int64 },
        { "runAsNonRoot", &schema_bool },
        { "supplementalGroups", SCHEMA_ATOMIC_LIST(&schema_int64) },
        { "supplementalGroupsPolicy", &schema_supplemental_groups_policy },
        { "fsGroup", &schema_int64 },
        { "sysctls", SCHEMA_ATOMIC_LIST(&schema_sysctl) },
        { "fsGroupChangePolicy", &schema_pod_fs_group_change_policy },
        { "seccompProfile", &schema_seccomp_profile },
        { "appArmorProfile", &schema_app_armor_profile },
        { "seLinuxChangePolicy", &schema_pod_se_linux_change_policy },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_pod_security_context =
        SCHEMA_STRUCT("PodSecurityContext", pod_security_context_fields);

static const struct schema schema_node_selector_operator =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.NodeSelectorOperator");

/* core/v1 NodeSelectorRequirement */
/* clang-format off */
static const struct schema_field node_selector_requirement_fields[] = {
        { "key", &schema_string },
        { "operator", &schema_node_selector_operator },
        { "values", &schema_string_list },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_node_selector_requirement =
        SCHEMA_STRUCT("NodeSelectorRequirement", node_selector_requirement_fields);

/* core/v1 NodeSelectorTerm */
/* clang-format off */
static const struct schema_field node_selector_term_fields[] = {
        { "matchExpressions", SCHEMA_ATOMIC_LIST(&schema_node_selector_requirement) },
        { "matchFields", SCHEMA_ATOMIC_LIST(&schema_node_selector_requirement) },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_node_selector_term =
        SCHEMA_STRUCT("NodeSelectorTerm", node_selector_term_fields);

/* core/v1 NodeSelector */
/* clang-format off */
static const struct schema_field node_selector_fields[] = {
        { "nodeSelectorTerms", SCHEMA_ATOMIC_LIST(&schema_node_selector_term) },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_node_selector = SCHEMA_STRUCT("NodeSelector", node_selector_fields);

/* core/v1 PreferredSchedulingTerm */
/* clang-format off */
static const struct schema_field preferred_scheduling_term_fields[] = {
        { "weight", &schema_int32 },
        { "preference", &schema_node_selector_term },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_preferred_scheduling_term =
        SCHEMA_STRUCT("PreferredSchedulingTerm", preferred_scheduling_term_fields);

/* core/v1 NodeAffinity */
/* clang-format off */
static const struct schema_field node_affinity_fields[] = {
        { "requiredDuringSchedulingIgnoredDuringExecution", &schema_node_selector },
        { "preferredDuringSchedulingIgnoredDuringExecution",
          SCHEMA_ATOMIC_LIST(&schema_preferred_scheduling_term) },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_node_affinity =
        SCHEMA_STRUCT("NodeAffinity", node_affinity_fields);

/* core/v1 PodAffinityTerm */
/* clang-format off */
static const struct schema_field pod_affinity_term_fields[] = {
        { "labelSelector", &schema_label_selector },
        { "namespaces", &schema_string_list },
        { "topologyKey", &schema_string },
        { "namespaceSelector", &schema_label_selector },
        { "matchLabelKeys", &schema_string_list },
        { "mismatchLabelKeys", &schema_string_list },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_pod_affinity_term =
        SCHEMA_STRUCT("PodAffinityTerm", pod_affinity_term_fields);

/* core/v1 WeightedPodAffinityTerm */
/* clang-format off */
static const struct schema_field weighted_pod_affinity_term_fields[] = {
        { "weight", &schema_int32 },
        { "podAffinityTerm", &schema_pod_affinity_term },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_weighted_pod_affinity_term =
        SCHEMA_STRUCT("WeightedPodAffinityTerm", weighted_pod_affinity_term_fields);

/* core/v1 PodAffinity */
/* clang-format off */
static const struct schema_field pod_affinity_fields[] = {
        { "requiredDuringSchedulingIgnoredDuringExecution",
          SCHEMA_ATOMIC_LIST(&schema_pod_affinity_term) },
        { "preferredDuringSchedulingIgnoredDuringExecution",
          SCHEMA_ATOMIC_LIST(&schema_weighted_pod_affinity_term) },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_pod_affinity = SCHEMA_STRUCT("PodAffinity", pod_affinity_fields);

/* core/v1 PodAntiAffinity */
/* clang-format off */
static const struct schema_field pod_anti_affinity_fields[] = {
        { "requiredDuringSchedulingIgnoredDuringExecution",
          SCHEMA_ATOMIC_LIST(&schema_pod_affinity_term) },
        { "preferredDuringSchedulingIgnoredDuringExecution",
          SCHEMA_ATOMIC_LIST(&schema_weighted_pod_affinity_term) },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_pod_anti_affinity =
        SCHEMA_STRUCT("PodAntiAffinity", pod_anti_affinity_fields);

/* core/v1 Affinity */
/* clang-format off */
static const struct schema_field affinity_fields[] = {
        { "nodeAffinity", &schema_node_affinity },
        { "podAffinity", &schema_pod_affinity },
        { "podAntiAffinity", &schema_pod_anti_affinity },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_affinity = SCHEMA_STRUCT("Affinity", affinity_fields);

static const struct schema schema_toleration_operator =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.TolerationOperator");

/* core/v1 Toleration */
/* clang-format off */
static const struct schema_field toleration_fields[] = {
        { "key", &schema_string },
        { "operator", &schema_toleration_operator },
        { "value", &schema_string },
        { "effect", &schema_taint_effect },
        { "tolerationSeconds", &schema_int64 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_toleration = SCHEMA_STRUCT("Toleration", toleration_fields);

/* core/v1 HostAlias */
/* clang-format off */
static const struct schema_field host_alias_fields[] = {
        { "ip", &schema_string },
        { "hostnames", &schema_string_list },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_host_alias = SCHEMA_STRUCT("HostAlias", host_alias_fields);

/* core/v1 PodDNSConfigOption */
/* clang-format off */
static const struct schema_field pod_dns_config_option_fields[] = {
        { "name", &schema_string },
        { "value", &schema_string },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_pod_dns_config_option =
        SCHEMA_STRUCT("PodDNSConfigOption", pod_dns_config_option_fields);

/* core/v1 PodDNSConfig */
/* clang-format off */
static const struct schema_field pod_dns_config_fields[] = {
        { "nameservers", &schema_string_list },
        { "searches", &schema_string_list },
        { "options", SCHEMA_ATOMIC_LIST(&schema_pod_dns_config_option) },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_pod_dns_config =
        SCHEMA_STRUCT("PodDNSConfig", pod_dns_config_fields);

static const struct schema schema_pod_condition_type =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.PodConditionType");

/* core/v1 PodReadinessGate */
/* clang-format off */
static const struct schema_field pod_readiness_gate_fields[] = {
        { "conditionType", &schema_pod_condition_type },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_pod_readiness_gate =
        SCHEMA_STRUCT("PodReadinessGate", pod_readiness_gate_fields);

static const struct schema schema_preemption_policy =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.PreemptionPolicy");

static const struct schema schema_unsatisfiable_constraint_action =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.UnsatisfiableConstraintAction");

static const struct schema schema_node_inclusion_policy =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.NodeInclusionPolicy");

/* core/v1 TopologySpreadConstraint */
/* clang-format off */
static const struct schema_field topology_spread_constraint_fields[] = {
        { "maxSkew", &schema_int32 },
        { "topologyKey", &schema_string },
        { "whenUnsatisfiable", &schema_unsatisfiable_constraint_action },
        { "labelSelector", &schema_label_selector },
        { "minDomains", &schema_int32 },
        { "nodeAffinityPolicy", &schema_node_inclusion_policy },
        { "nodeTaintsPolicy", &schema_node_inclusion_policy },
        { "matchLabelKeys", &schema_string_list },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_topology_spread_constraint =
        SCHEMA_STRUCT("TopologySpreadConstraint", topology_spread_constraint_fields);

static const struct schema schema_os_name = SCHEMA_NAMED(SCHEMA_STRING, "v1.OSName");

/* core/v1 PodOS */
/* clang-format off */
static const struct schema_field pod_os_fields[] = {
        { "name", &schema_os_name },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_pod_os = SCHEMA_STRUCT("PodOS", pod_os_fields);

/* core/v1 PodSchedulingGate */
/* clang-format off */
static const struct schema_field pod_scheduling_gate_fields[] = {
        { "name", &schema_string },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_pod_scheduling_gate =
        SCHEMA_STRUCT("PodSchedulingGate", pod_scheduling_gate_fields);

/* core/v1 PodResourceClaim */
/* clang-format off */
static const struct schema_field pod_resource_claim_fields[] = {
        { "name", &schema_string },
        { "resourceClaimName", &schema_string },
        { "resourceClaimTemplateName", &schema_string },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_pod_resource_claim =
        SCHEMA_STRUCT("PodResourceClaim", pod_resource_claim_fields);

/* core/v1 PodSchedulingGroup */
/* clang-format off */
static const struct schema_field pod_scheduling_group_fields[] = {
        { "podGroupName", &schema_string },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_pod_scheduling_group =
        SCHEMA_STRUCT("PodSchedulingGroup", pod_scheduling_group_fields);

/* core/v1 EvictionResponder */
/* clang-format off */
static const struct schema_field eviction_responder_fields[] = {
        { "name", &schema_string },
        { "priority", &schema_int32 },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_eviction_responder =
        SCHEMA_STRUCT("EvictionResponder", eviction_responder_fields);

/* core/v1 PodSpec */
/* clang-format off */
static const struct schema_field pod_spec_fields[] = {
        { "volumes", SCHEMA_MAP_LIST_RETAIN(&schema_volume, "name") },
        { "initContainers", SCHEMA_MAP_LIST(&schema_container, "name") },
        { "containers", SCHEMA_MAP_LIST(&schema_container, "name") },
        { "ephemeralContainers", SCHEMA_MAP_LIST(&schema_ephemeral_container, "name") },
        { "restartPolicy", &schema_restart_policy },
        { "terminationGracePeriodSeconds", &schema_int64 },
        { "activeDeadlineSeconds", &schema_int64 },
        { "dnsPolicy", &schema_dns_policy },
        { "nodeSelector", &schema_string_map },
        { "serviceAccountName", &schema_string },
        { "serviceAccount", &schema_string },
        { "automountServiceAccountToken", &schema_bool },
        { "nodeName", &schema_string },
        { "hostNetwork", &schema_bool },
        { "hostPID", &schema_bool },
        { "hostIPC", &schema_bool },
        { "shareProcessNamespace", &schema_bool },
        { "securityContext", &schema_pod_security_context },
        { "imagePullSecrets", SCHEMA_MAP_LIST(&schema_local_object_reference, "name") },
        { "hostname", &schema_string },
        { "subdomain", &schema_string },
        { "affinity", &schema_affinity },
        { "schedulerName", &schema_string },
        { "tolerations", SCHEMA_ATOMIC_LIST(&schema_toleration) },
        { "hostAliases", SCHEMA_MAP_LIST(&schema_host_alias, "ip") },
        { "priorityClassName", &schema_string },
        { "priority", &schema_int32 },
        { "dnsConfig", &schema_pod_dns_config },
        { "readinessGates", SCHEMA_ATOMIC_LIST(&schema_pod_readiness_gate) },
        { "runtimeClassName", &schema_string },
        { "enableServiceLinks", &schema_bool },
        { "preemptionPolicy", &schema_preemption_policy },
        { "overhead", &schema_resource_list },
        { "topologySpreadConstraints",
          SCHEMA_MAP_LIST(&schema_topology_spread_constraint, "topologyKey") },
        { "setHostnameAsFQDN", &schema_bool },
        { "os", &schema_pod_os },
        { "hostUsers", &schema_bool },
        { "schedulingGates", SCHEMA_MAP_LIST(&schema_pod_scheduling_gate, "name") },
        { "resourceClaims", SCHEMA_MAP_LIST_RETAIN(&schema_pod_resource_claim, "name") },
        { "resources", &schema_resource_requirements },
        { "hostnameOverride", &schema_string },
        { "schedulingGroup", &schema_pod_scheduling_group },
        { "evictionResponders", SCHEMA_MAP_LIST(&schema_eviction_responder, "name") },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_pod_spec = SCHEMA_STRUCT("PodSpec", pod_spec_fields);

static const struct schema schema_pod_phase = SCHEMA_NAMED(SCHEMA_STRING, "v1.PodPhase");

/* core/v1 PodCondition */
/* clang-format off */
static const struct schema_field pod_condition_fields[] = {
        { "type", &schema_pod_condition_type },
        { "observedGeneration", &schema_int64 },
        { "status", &schema_condition_status },
        { "lastProbeTime", &schema_time },
        { "lastTransitionTime", &schema_time },
        { "reason", &schema_string },
        { "message", &schema_string },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_pod_condition =
        SCHEMA_STRUCT("PodCondition", pod_condition_fields);

/* core/v1 HostIP */
/* clang-format off */
static const struct schema_field host_ip_fields[] = {
        { "ip", &schema_string },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_host_ip = SCHEMA_STRUCT("HostIP", host_ip_fields);

/* core/v1 PodIP */
/* clang-format off */
static const struct schema_field pod_ip_fields[] = {
        { "ip", &schema_string },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_pod_ip = SCHEMA_STRUCT("PodIP", pod_ip_fields);

/* core/v1 ContainerStateWaiting */
/* clang-format off */
static const struct schema_field container_state_waiting_fields[] = {
        { "reason", &schema_string },
        { "message", &schema_string },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_container_state_waiting =
        SCHEMA_STRUCT("ContainerStateWaiting", container_state_waiting_fields);

/* core/v1 ContainerStateRunning */
/* clang-format off */
static const struct schema_field container_state_running_fields[] = {
        { "startedAt", &schema_time },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_container_state_running =
        SCHEMA_STRUCT("ContainerStateRunning", container_state_running_fields);

/* core/v1 ContainerStateTerminated */
/* clang-format off */
static const struct schema_field container_state_terminated_fields[] = {
        { "exitCode", &schema_int32 },
        { "signal", &schema_int32 },
        { "reason", &schema_string },
        { "message", &schema_string },
        { "startedAt", &schema_time },
        { "finishedAt", &schema_time },
        { "containerID", &schema_string },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_container_state_terminated =
        SCHEMA_STRUCT("ContainerStateTerminated", container_state_terminated_fields);

/* core/v1 ContainerState */
/* clang-format off */
static const struct schema_field container_state_fields[] = {
        { "waiting", &schema_container_state_waiting },
        { "running", &schema_container_state_running },
        { "terminated", &schema_container_state_terminated },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_container_state =
        SCHEMA_STRUCT("ContainerState", container_state_fields);

/* core/v1 ImageVolumeStatus */
/* clang-format off */
static const struct schema_field image_volume_status_fields[] = {
        { "imageRef", &schema_string },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_image_volume_status =
        SCHEMA_STRUCT("ImageVolumeStatus", image_volume_status_fields);

/* core/v1 EmptyDirVolumeStatus (KEP-6030: the tmpfs size the kubelet actuated) */
/* clang-format off */
static const struct schema_field empty_dir_volume_status_fields[] = {
        { "sizeLimit", &schema_quantity },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_empty_dir_volume_status =
        SCHEMA_STRUCT("EmptyDirVolumeStatus", empty_dir_volume_status_fields);

/* core/v1 VolumeStatus (emptyDir from KEP-6030) */
/* clang-format off */
static const struct schema_field volume_status_fields[] = {
        { "image", &schema_image_volume_status },
        { "emptyDir", &schema_empty_dir_volume_status },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_volume_status =
        SCHEMA_STRUCT("VolumeStatus", volume_status_fields);

/* core/v1 VolumeMountStatus */
/* clang-format off */
static const struct schema_field volume_mount_status_fields[] = {
        { "name", &schema_string },
        { "mountPath", &schema_string },
        { "readOnly", &schema_bool },
        { "recursiveReadOnly", &schema_recursive_read_only_mode },
        { "volumeStatus", &schema_volume_status },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_volume_mount_status =
        SCHEMA_STRUCT("VolumeMountStatus", volume_mount_status_fields);

/* core/v1 LinuxContainerUser */
/* clang-format off */
static const struct schema_field linux_container_user_fields[] = {
        { "uid", &schema_int64 },
        { "gid", &schema_int64 },
        { "supplementalGroups", SCHEMA_ATOMIC_LIST(&schema_int64) },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_linux_container_user =
        SCHEMA_STRUCT("LinuxContainerUser", linux_container_user_fields);

/* core/v1 ContainerUser */
/* clang-format off */
static const struct schema_field container_user_fields[] = {
        { "linux", &schema_linux_container_user },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_container_user =
        SCHEMA_STRUCT("ContainerUser", container_user_fields);

static const struct schema schema_resource_id = SCHEMA_NAMED(SCHEMA_STRING, "v1.ResourceID");

static const struct schema schema_resource_health_status =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.ResourceHealthStatus");

/* core/v1 ResourceHealth */
/* clang-format off */
static const struct schema_field resource_health_fields[] = {
        { "resourceID", &schema_resource_id },
        { "health", &schema_resource_health_status },
        { "message", &schema_string },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_resource_health =
        SCHEMA_STRUCT("ResourceHealth", resource_health_fields);

/* core/v1 ResourceStatus */
/* clang-format off */
static const struct schema_field resource_status_fields[] = {
        { "name", &schema_resource_name },
        { "resources", SCHEMA_ATOMIC_LIST(&schema_resource_health) },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_resource_status =
        SCHEMA_STRUCT("ResourceStatus", resource_status_fields);

/* core/v1 ContainerStatus */
/* clang-format off */
static const struct schema_field container_status_fields[] = {
        { "name", &schema_string },
        { "state", &schema_container_state },
        { "lastState", &schema_container_state },
        { "ready", &schema_bool },
        { "restartCount", &schema_int32 },
        { "image", &schema_string },
        { "imageID", &schema_string },
        { "containerID", &schema_string },
        { "started", &schema_bool },
        { "allocatedResources", &schema_resource_list },
        { "resources", &schema_resource_requirements },
        { "volumeMounts", SCHEMA_MAP_LIST(&schema_volume_mount_status, "mountPath") },
        { "user", &schema_container_user },
        { "allocatedResourcesStatus", SCHEMA_MAP_LIST(&schema_resource_status, "name") },
        { "stopSignal", &schema_signal },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_container_status =
        SCHEMA_STRUCT("ContainerStatus", container_status_fields);

static const struct schema schema_pod_qos_class = SCHEMA_NAMED(SCHEMA_STRING, "v1.PodQOSClass");

static const struct schema schema_pod_resize_status =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.PodResizeStatus");

/* core/v1 PodResourceClaimStatus */
/* clang-format off */
static const struct schema_field pod_resource_claim_status_fields[] = {
        { "name", &schema_string },
        { "resourceClaimName", &schema_string },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_pod_resource_claim_status =
        SCHEMA_STRUCT("PodResourceClaimStatus", pod_resource_claim_status_fields);

/* core/v1 ContainerExtendedResourceRequest */
/* clang-format off */
static const struct schema_field container_extended_resource_request_fields[] = {
        { "containerName", &schema_string },
        { "resourceName", &schema_string },
        { "requestName", &schema_string },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_container_extended_resource_request = SCHEMA_STRUCT(
        "ContainerExtendedResourceRequest", container_extended_resource_request_fields);

/* core/v1 PodExtendedResourceClaimStatus */
/* clang-format off */
static const struct schema_field pod_extended_resource_claim_status_fields[] = {
        { "requestMappings", SCHEMA_ATOMIC_LIST(&schema_container_extended_resource_request) },
        { "resourceClaimName", &schema_string },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_pod_extended_resource_claim_status =
        SCHEMA_STRUCT("PodExtendedResourceClaimStatus", pod_extended_resource_claim_status_fields);

/* core/v1 NodeAllocatableMappedResources */
/* clang-format off */
static const struct schema_field node_allocatable_mapped_resources_fields[] = {
        { "name", &schema_resource_name },
        { "quantity", &schema_quantity },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_node_allocatable_mapped_resources =
        SCHEMA_STRUCT("NodeAllocatableMappedResources", node_allocatable_mapped_resources_fields);

/* core/v1 NodeAllocatableOverheadResources */
/* clang-format off */
static const struct schema_field node_allocatable_overhead_resources_fields[] = {
        { "name", &schema_resource_name },
        { "perPod", &schema_quantity },
        { "perContainer", &schema_quantity },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_node_allocatable_overhead_resources = SCHEMA_STRUCT(
        "NodeAllocatableOverheadResources", node_allocatable_overhead_resources_fields);

/* core/v1 NodeAllocatableResourceClaimStatus */
/* clang-format off */
static const struct schema_field node_allocatable_resource_claim_status_fields[] = {
        { "resourceClaimName", &schema_string },
        { "containers", &schema_string_list },
        { "mapping", SCHEMA_MAP_LIST(&schema_node_allocatable_mapped_resources, "name") },
        { "overhead", SCHEMA_MAP_LIST(&schema_node_allocatable_overhead_resources, "name") },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_node_allocatable_resource_claim_status = SCHEMA_STRUCT(
        "NodeAllocatableResourceClaimStatus", node_allocatable_resource_claim_status_fields);

static const struct schema schema_volume_health_status_type =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.VolumeHealthStatusType");

/* core/v1 VolumeHealthCondition */
/* clang-format off */
static const struct schema_field volume_health_condition_fields[] = {
        { "status", &schema_volume_health_status_type },
        { "reason", &schema_string },
        { "message", &schema_string },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_volume_health_condition =
        SCHEMA_STRUCT("VolumeHealthCondition", volume_health_condition_fields);

/* core/v1 PodVolumeHealth */
/* clang-format off */
static const struct schema_field pod_volume_health_fields[] = {
        { "name", &schema_string },
        { "healthConditions", SCHEMA_MAP_LIST(&schema_volume_health_condition, "status") },
        { "lastTransitionTime", &schema_time },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_pod_volume_health =
        SCHEMA_STRUCT("PodVolumeHealth", pod_volume_health_fields);

/* core/v1 PodStatus */
/* clang-format off */
static const struct schema_field pod_status_fields[] = {
        { "observedGeneration", &schema_int64 },
        { "phase", &schema_pod_phase },
        { "conditions", SCHEMA_MAP_LIST(&schema_pod_condition, "type") },
        { "message", &schema_string },
        { "reason", &schema_string },
        { "nominatedNodeName", &schema_string },
        { "hostIP", &schema_string },
        { "hostIPs", SCHEMA_MAP_LIST(&schema_host_ip, "ip") },
        { "podIP", &schema_string },
        { "podIPs", SCHEMA_MAP_LIST(&schema_pod_ip, "ip") },
        { "startTime", &schema_time },
        { "initContainerStatuses", SCHEMA_ATOMIC_LIST(&schema_container_status) },
        { "containerStatuses", SCHEMA_ATOMIC_LIST(&schema_container_status) },
        { "qosClass", &schema_pod_qos_class },
        { "ephemeralContainerStatuses", SCHEMA_ATOMIC_LIST(&schema_container_status) },
        { "resize", &schema_pod_resize_status },
        { "resourceClaimStatuses",
          SCHEMA_MAP_LIST_RETAIN(&schema_pod_resource_claim_status, "name") },
        { "extendedResourceClaimStatus", &schema_pod_extended_resource_claim_status },
        { "allocatedResources", &schema_resource_list },
        { "resources", &schema_resource_requirements },
        { "nodeAllocatableResourceClaimStatuses",
          SCHEMA_MAP_LIST(&schema_node_allocatable_resource_claim_status, "resourceClaimName") },
        { "volumeHealth", SCHEMA_ATOMIC_LIST(&schema_pod_volume_health) },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_pod_status = SCHEMA_STRUCT("PodStatus", pod_status_fields);

/* core/v1 Pod */
/* clang-format off */
static const struct schema_field pod_fields[] = {
        { "kind", &schema_string },
        { "apiVersion", &schema_string },
        { "metadata", &schema_object_meta },
        { "spec", &schema_pod_spec },
        { "status", &schema_pod_status },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_pod = SCHEMA_STRUCT("Pod", pod_fields);
