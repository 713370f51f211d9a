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
        { "path", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "type", &schema_host_path_type, 2, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_host_path_volume_source =
        SCHEMA_STRUCT("HostPathVolumeSource", host_path_volume_source_fields);

static const struct schema schema_storage_medium = SCHEMA_NAMED(SCHEMA_STRING, "v1.StorageMedium");

/* core/v1 EmptyDirVolumeSource */
/* clang-format off */
static const struct schema_field empty_dir_volume_source_fields[] = {
        { "medium", &schema_storage_medium, 1, SCHEMA_GO_VALUE },
        { "sizeLimit", &schema_quantity, 2, SCHEMA_GO_POINTER },
        { "mode", &schema_int32, 3, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_empty_dir_volume_source =
        SCHEMA_STRUCT("EmptyDirVolumeSource", empty_dir_volume_source_fields);

/* core/v1 GCEPersistentDiskVolumeSource */
/* clang-format off */
static const struct schema_field gce_persistent_disk_volume_source_fields[] = {
        { "pdName", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "fsType", &schema_string, 2, SCHEMA_GO_VALUE },
        { "partition", &schema_int32, 3, SCHEMA_GO_VALUE },
        { "readOnly", &schema_bool, 4, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_gce_persistent_disk_volume_source =
        SCHEMA_STRUCT("GCEPersistentDiskVolumeSource", gce_persistent_disk_volume_source_fields);

/* core/v1 AWSElasticBlockStoreVolumeSource */
/* clang-format off */
static const struct schema_field aws_elastic_block_store_volume_source_fields[] = {
        { "volumeID", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "fsType", &schema_string, 2, SCHEMA_GO_VALUE },
        { "partition", &schema_int32, 3, SCHEMA_GO_VALUE },
        { "readOnly", &schema_bool, 4, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_aws_elastic_block_store_volume_source = SCHEMA_STRUCT(
        "AWSElasticBlockStoreVolumeSource", aws_elastic_block_store_volume_source_fields);

/* core/v1 GitRepoVolumeSource */
/* clang-format off */
static const struct schema_field git_repo_volume_source_fields[] = {
        { "repository", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "revision", &schema_string, 2, SCHEMA_GO_VALUE },
        { "directory", &schema_string, 3, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_git_repo_volume_source =
        SCHEMA_STRUCT("GitRepoVolumeSource", git_repo_volume_source_fields);

/* core/v1 KeyToPath */
/* clang-format off */
static const struct schema_field key_to_path_fields[] = {
        { "key", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "path", &schema_string, 2, SCHEMA_GO_ALWAYS },
        { "mode", &schema_int32, 3, SCHEMA_GO_POINTER },
        { "user", &schema_int64, 4, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_key_to_path = SCHEMA_STRUCT("KeyToPath", key_to_path_fields);

/* core/v1 SecretVolumeSource */
/* clang-format off */
static const struct schema_field secret_volume_source_fields[] = {
        { "secretName", &schema_string, 1, SCHEMA_GO_VALUE },
        { "items", SCHEMA_ATOMIC_LIST(&schema_key_to_path), 2, SCHEMA_GO_VALUE },
        { "defaultMode", &schema_int32, 3, SCHEMA_GO_POINTER },
        { "optional", &schema_bool, 4, SCHEMA_GO_POINTER },
        { "defaultUser", &schema_int64, 5, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_secret_volume_source =
        SCHEMA_STRUCT("SecretVolumeSource", secret_volume_source_fields);

/* core/v1 NFSVolumeSource */
/* clang-format off */
static const struct schema_field nfs_volume_source_fields[] = {
        { "server", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "path", &schema_string, 2, SCHEMA_GO_ALWAYS },
        { "readOnly", &schema_bool, 3, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_nfs_volume_source =
        SCHEMA_STRUCT("NFSVolumeSource", nfs_volume_source_fields);

/* core/v1 LocalObjectReference */
/* clang-format off */
static const struct schema_field local_object_reference_fields[] = {
        { "name", &schema_string, 1, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_local_object_reference =
        SCHEMA_STRUCT("LocalObjectReference", local_object_reference_fields);

/* core/v1 ISCSIVolumeSource */
/* clang-format off */
static const struct schema_field iscsi_volume_source_fields[] = {
        { "targetPortal", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "iqn", &schema_string, 2, SCHEMA_GO_ALWAYS },
        { "lun", &schema_int32, 3, SCHEMA_GO_ALWAYS },
        { "iscsiInterface", &schema_string, 4, SCHEMA_GO_VALUE },
        { "fsType", &schema_string, 5, SCHEMA_GO_VALUE },
        { "readOnly", &schema_bool, 6, SCHEMA_GO_VALUE },
        { "portals", &schema_string_list, 7, SCHEMA_GO_VALUE },
        { "chapAuthDiscovery", &schema_bool, 8, SCHEMA_GO_VALUE },
        { "chapAuthSession", &schema_bool, 11, SCHEMA_GO_VALUE },
        { "secretRef", &schema_local_object_reference, 10, SCHEMA_GO_POINTER },
        { "initiatorName", &schema_string, 12, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_iscsi_volume_source =
        SCHEMA_STRUCT("ISCSIVolumeSource", iscsi_volume_source_fields);

/* core/v1 GlusterfsVolumeSource */
/* clang-format off */
static const struct schema_field glusterfs_volume_source_fields[] = {
        { "endpoints", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "path", &schema_string, 2, SCHEMA_GO_ALWAYS },
        { "readOnly", &schema_bool, 3, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_glusterfs_volume_source =
        SCHEMA_STRUCT("GlusterfsVolumeSource", glusterfs_volume_source_fields);

/* core/v1 PersistentVolumeClaimVolumeSource */
/* clang-format off */
static const struct schema_field persistent_volume_claim_volume_source_fields[] = {
        { "claimName", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "readOnly", &schema_bool, 2, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_persistent_volume_claim_volume_source = SCHEMA_STRUCT(
        "PersistentVolumeClaimVolumeSource", persistent_volume_claim_volume_source_fields);

/* core/v1 RBDVolumeSource */
/* clang-format off */
static const struct schema_field rbd_volume_source_fields[] = {
        { "monitors", &schema_string_list, 1, SCHEMA_GO_VALUE },
        { "image", &schema_string, 2, SCHEMA_GO_ALWAYS },
        { "fsType", &schema_string, 3, SCHEMA_GO_VALUE },
        { "pool", &schema_string, 4, SCHEMA_GO_VALUE },
        { "user", &schema_string, 5, SCHEMA_GO_VALUE },
        { "keyring", &schema_string, 6, SCHEMA_GO_VALUE },
        { "secretRef", &schema_local_object_reference, 7, SCHEMA_GO_POINTER },
        { "readOnly", &schema_bool, 8, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_rbd_volume_source =
        SCHEMA_STRUCT("RBDVolumeSource", rbd_volume_source_fields);

/* core/v1 FlexVolumeSource */
/* clang-format off */
static const struct schema_field flex_volume_source_fields[] = {
        { "driver", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "fsType", &schema_string, 2, SCHEMA_GO_VALUE },
        { "secretRef", &schema_local_object_reference, 3, SCHEMA_GO_POINTER },
        { "readOnly", &schema_bool, 4, SCHEMA_GO_VALUE },
        { "options", &schema_string_map, 5, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_flex_volume_source =
        SCHEMA_STRUCT("FlexVolumeSource", flex_volume_source_fields);

/* core/v1 CinderVolumeSource */
/* clang-format off */
static const struct schema_field cinder_volume_source_fields[] = {
        { "volumeID", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "fsType", &schema_string, 2, SCHEMA_GO_VALUE },
        { "readOnly", &schema_bool, 3, SCHEMA_GO_VALUE },
        { "secretRef", &schema_local_object_reference, 4, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_cinder_volume_source =
        SCHEMA_STRUCT("CinderVolumeSource", cinder_volume_source_fields);

/* core/v1 CephFSVolumeSource */
/* clang-format off */
static const struct schema_field ceph_fs_volume_source_fields[] = {
        { "monitors", &schema_string_list, 1, SCHEMA_GO_VALUE },
        { "path", &schema_string, 2, SCHEMA_GO_VALUE },
        { "user", &schema_string, 3, SCHEMA_GO_VALUE },
        { "secretFile", &schema_string, 4, SCHEMA_GO_VALUE },
        { "secretRef", &schema_local_object_reference, 5, SCHEMA_GO_POINTER },
        { "readOnly", &schema_bool, 6, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_ceph_fs_volume_source =
        SCHEMA_STRUCT("CephFSVolumeSource", ceph_fs_volume_source_fields);

/* core/v1 FlockerVolumeSource */
/* clang-format off */
static const struct schema_field flocker_volume_source_fields[] = {
        { "datasetName", &schema_string, 1, SCHEMA_GO_VALUE },
        { "datasetUUID", &schema_string, 2, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_flocker_volume_source =
        SCHEMA_STRUCT("FlockerVolumeSource", flocker_volume_source_fields);

/* core/v1 ObjectFieldSelector */
/* clang-format off */
static const struct schema_field object_field_selector_fields[] = {
        { "apiVersion", &schema_string, 1, SCHEMA_GO_VALUE },
        { "fieldPath", &schema_string, 2, SCHEMA_GO_ALWAYS },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_object_field_selector =
        SCHEMA_STRUCT("ObjectFieldSelector", object_field_selector_fields);

/* core/v1 ResourceFieldSelector */
/* clang-format off */
static const struct schema_field resource_field_selector_fields[] = {
        { "containerName", &schema_string, 1, SCHEMA_GO_VALUE },
        { "resource", &schema_string, 2, SCHEMA_GO_ALWAYS },
        { "divisor", &schema_quantity, 3, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_resource_field_selector =
        SCHEMA_STRUCT("ResourceFieldSelector", resource_field_selector_fields);

/* core/v1 DownwardAPIVolumeFile */
/* clang-format off */
static const struct schema_field downward_api_volume_file_fields[] = {
        { "path", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "fieldRef", &schema_object_field_selector, 2, SCHEMA_GO_POINTER },
        { "resourceFieldRef", &schema_resource_field_selector, 3, SCHEMA_GO_POINTER },
        { "mode", &schema_int32, 4, SCHEMA_GO_POINTER },
        { "user", &schema_int64, 5, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_downward_api_volume_file =
        SCHEMA_STRUCT("DownwardAPIVolumeFile", downward_api_volume_file_fields);

/* core/v1 DownwardAPIVolumeSource */
/* clang-format off */
static const struct schema_field downward_api_volume_source_fields[] = {
        { "items", SCHEMA_ATOMIC_LIST(&schema_downward_api_volume_file), 1, SCHEMA_GO_VALUE },
        { "defaultMode", &schema_int32, 2, SCHEMA_GO_POINTER },
        { "defaultUser", &schema_int64, 3, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_downward_api_volume_source =
        SCHEMA_STRUCT("DownwardAPIVolumeSource", downward_api_volume_source_fields);

/* core/v1 FCVolumeSource */
/* clang-format off */
static const struct schema_field fc_volume_source_fields[] = {
        { "targetWWNs", &schema_string_list, 1, SCHEMA_GO_VALUE },
        { "lun", &schema_int32, 2, SCHEMA_GO_POINTER },
        { "fsType", &schema_string, 3, SCHEMA_GO_VALUE },
        { "readOnly", &schema_bool, 4, SCHEMA_GO_VALUE },
        { "wwids", &schema_string_list, 5, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_fc_volume_source =
        SCHEMA_STRUCT("FCVolumeSource", fc_volume_source_fields);

/* core/v1 AzureFileVolumeSource */
/* clang-format off */
static const struct schema_field azure_file_volume_source_fields[] = {
        { "secretName", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "shareName", &schema_string, 2, SCHEMA_GO_ALWAYS },
        { "readOnly", &schema_bool, 3, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_azure_file_volume_source =
        SCHEMA_STRUCT("AzureFileVolumeSource", azure_file_volume_source_fields);

/* core/v1 ConfigMapVolumeSource */
/* clang-format off */
static const struct schema_field config_map_volume_source_fields[] = {
        { "name", &schema_string, 1, SCHEMA_GO_VALUE | SCHEMA_GO_EMBED(1) },
        { "items", SCHEMA_ATOMIC_LIST(&schema_key_to_path), 2, SCHEMA_GO_VALUE },
        { "defaultMode", &schema_int32, 3, SCHEMA_GO_POINTER },
        { "optional", &schema_bool, 4, SCHEMA_GO_POINTER },
        { "defaultUser", &schema_int64, 5, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_config_map_volume_source =
        SCHEMA_STRUCT("ConfigMapVolumeSource", config_map_volume_source_fields);

/* core/v1 VsphereVirtualDiskVolumeSource */
/* clang-format off */
static const struct schema_field vsphere_virtual_disk_volume_source_fields[] = {
        { "volumePath", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "fsType", &schema_string, 2, SCHEMA_GO_VALUE },
        { "storagePolicyName", &schema_string, 3, SCHEMA_GO_VALUE },
        { "storagePolicyID", &schema_string, 4, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_vsphere_virtual_disk_volume_source =
        SCHEMA_STRUCT("VsphereVirtualDiskVolumeSource", vsphere_virtual_disk_volume_source_fields);

/* core/v1 QuobyteVolumeSource */
/* clang-format off */
static const struct schema_field quobyte_volume_source_fields[] = {
        { "registry", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "volume", &schema_string, 2, SCHEMA_GO_ALWAYS },
        { "readOnly", &schema_bool, 3, SCHEMA_GO_VALUE },
        { "user", &schema_string, 4, SCHEMA_GO_VALUE },
        { "group", &schema_string, 5, SCHEMA_GO_VALUE },
        { "tenant", &schema_string, 6, SCHEMA_GO_VALUE },
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
        { "diskName", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "diskURI", &schema_string, 2, SCHEMA_GO_ALWAYS },
        { "cachingMode", &schema_azure_data_disk_caching_mode, 3, SCHEMA_GO_POINTER },
        { "fsType", &schema_string, 4, SCHEMA_GO_POINTER },
        { "readOnly", &schema_bool, 5, SCHEMA_GO_POINTER },
        { "kind", &schema_azure_data_disk_kind, 6, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_azure_disk_volume_source =
        SCHEMA_STRUCT("AzureDiskVolumeSource", azure_disk_volume_source_fields);

/* core/v1 PhotonPersistentDiskVolumeSource */
/* clang-format off */
static const struct schema_field photon_persistent_disk_volume_source_fields[] = {
        { "pdID", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "fsType", &schema_string, 2, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_photon_persistent_disk_volume_source = SCHEMA_STRUCT(
        "PhotonPersistentDiskVolumeSource", photon_persistent_disk_volume_source_fields);

/* core/v1 SecretProjection */
/* clang-format off */
static const struct schema_field secret_projection_fields[] = {
        { "name", &schema_string, 1, SCHEMA_GO_VALUE | SCHEMA_GO_EMBED(1) },
        { "items", SCHEMA_ATOMIC_LIST(&schema_key_to_path), 2, SCHEMA_GO_VALUE },
        { "optional", &schema_bool, 4, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_secret_projection =
        SCHEMA_STRUCT("SecretProjection", secret_projection_fields);

/* core/v1 DownwardAPIProjection */
/* clang-format off */
static const struct schema_field downward_api_projection_fields[] = {
        { "items", SCHEMA_ATOMIC_LIST(&schema_downward_api_volume_file), 1, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_downward_api_projection =
        SCHEMA_STRUCT("DownwardAPIProjection", downward_api_projection_fields);

/* core/v1 ConfigMapProjection */
/* clang-format off */
static const struct schema_field config_map_projection_fields[] = {
        { "name", &schema_string, 1, SCHEMA_GO_VALUE | SCHEMA_GO_EMBED(1) },
        { "items", SCHEMA_ATOMIC_LIST(&schema_key_to_path), 2, SCHEMA_GO_VALUE },
        { "optional", &schema_bool, 4, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_config_map_projection =
        SCHEMA_STRUCT("ConfigMapProjection", config_map_projection_fields);

/* core/v1 ServiceAccountTokenProjection */
/* clang-format off */
static const struct schema_field service_account_token_projection_fields[] = {
        { "audience", &schema_string, 1, SCHEMA_GO_VALUE },
        { "expirationSeconds", &schema_int64, 2, SCHEMA_GO_POINTER },
        { "path", &schema_string, 3, SCHEMA_GO_ALWAYS },
        { "user", &schema_int64, 4, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_service_account_token_projection =
        SCHEMA_STRUCT("ServiceAccountTokenProjection", service_account_token_projection_fields);

/* core/v1 ClusterTrustBundleProjection */
/* clang-format off */
static const struct schema_field cluster_trust_bundle_projection_fields[] = {
        { "name", &schema_string, 1, SCHEMA_GO_POINTER },
        { "signerName", &schema_string, 2, SCHEMA_GO_POINTER },
        { "labelSelector", &schema_label_selector, 3, SCHEMA_GO_POINTER },
        { "optional", &schema_bool, 5, SCHEMA_GO_POINTER },
        { "path", &schema_string, 4, SCHEMA_GO_ALWAYS },
        { "user", &schema_int64, 6, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_cluster_trust_bundle_projection =
        SCHEMA_STRUCT("ClusterTrustBundleProjection", cluster_trust_bundle_projection_fields);

/* core/v1 PodCertificateProjection */
/* clang-format off */
static const struct schema_field pod_certificate_projection_fields[] = {
        { "signerName", &schema_string, 1, SCHEMA_GO_VALUE },
        { "keyType", &schema_string, 2, SCHEMA_GO_VALUE },
        { "maxExpirationSeconds", &schema_int32, 3, SCHEMA_GO_POINTER },
        { "credentialBundlePath", &schema_string, 4, SCHEMA_GO_VALUE },
        { "keyPath", &schema_string, 5, SCHEMA_GO_VALUE },
        { "certificateChainPath", &schema_string, 6, SCHEMA_GO_VALUE },
        { "userAnnotations", &schema_string_map, 7, SCHEMA_GO_VALUE },
        { "user", &schema_int64, 8, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_pod_certificate_projection =
        SCHEMA_STRUCT("PodCertificateProjection", pod_certificate_projection_fields);

/* core/v1 VolumeProjection */
/* clang-format off */
static const struct schema_field volume_projection_fields[] = {
        { "secret", &schema_secret_projection, 1, SCHEMA_GO_POINTER },
        { "downwardAPI", &schema_downward_api_projection, 2, SCHEMA_GO_POINTER },
        { "configMap", &schema_config_map_projection, 3, SCHEMA_GO_POINTER },
        { "serviceAccountToken", &schema_service_account_token_projection, 4, SCHEMA_GO_POINTER },
        { "clusterTrustBundle", &schema_cluster_trust_bundle_projection, 5, SCHEMA_GO_POINTER },
        { "podCertificate", &schema_pod_certificate_projection, 6, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_volume_projection =
        SCHEMA_STRUCT("VolumeProjection", volume_projection_fields);

/* core/v1 ProjectedVolumeSource */
/* clang-format off */
static const struct schema_field projected_volume_source_fields[] = {
        { "sources", SCHEMA_ATOMIC_LIST(&schema_volume_projection), 1, SCHEMA_GO_VALUE },
        { "defaultMode", &schema_int32, 2, SCHEMA_GO_POINTER },
        { "defaultUser", &schema_int64, 3, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_projected_volume_source =
        SCHEMA_STRUCT("ProjectedVolumeSource", projected_volume_source_fields);

/* core/v1 PortworxVolumeSource */
/* clang-format off */
static const struct schema_field portworx_volume_source_fields[] = {
        { "volumeID", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "fsType", &schema_string, 2, SCHEMA_GO_VALUE },
        { "readOnly", &schema_bool, 3, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_portworx_volume_source =
        SCHEMA_STRUCT("PortworxVolumeSource", portworx_volume_source_fields);

/* core/v1 ScaleIOVolumeSource */
/* clang-format off */
static const struct schema_field scale_io_volume_source_fields[] = {
        { "gateway", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "system", &schema_string, 2, SCHEMA_GO_ALWAYS },
        { "secretRef", &schema_local_object_reference, 3, SCHEMA_GO_POINTER },
        { "sslEnabled", &schema_bool, 4, SCHEMA_GO_VALUE },
        { "protectionDomain", &schema_string, 5, SCHEMA_GO_VALUE },
        { "storagePool", &schema_string, 6, SCHEMA_GO_VALUE },
        { "storageMode", &schema_string, 7, SCHEMA_GO_VALUE },
        { "volumeName", &schema_string, 8, SCHEMA_GO_VALUE },
        { "fsType", &schema_string, 9, SCHEMA_GO_VALUE },
        { "readOnly", &schema_bool, 10, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_scale_io_volume_source =
        SCHEMA_STRUCT("ScaleIOVolumeSource", scale_io_volume_source_fields);

/* core/v1 StorageOSVolumeSource */
/* clang-format off */
static const struct schema_field storage_os_volume_source_fields[] = {
        { "volumeName", &schema_string, 1, SCHEMA_GO_VALUE },
        { "volumeNamespace", &schema_string, 2, SCHEMA_GO_VALUE },
        { "fsType", &schema_string, 3, SCHEMA_GO_VALUE },
        { "readOnly", &schema_bool, 4, SCHEMA_GO_VALUE },
        { "secretRef", &schema_local_object_reference, 5, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_storage_os_volume_source =
        SCHEMA_STRUCT("StorageOSVolumeSource", storage_os_volume_source_fields);

/* core/v1 CSIVolumeSource */
/* clang-format off */
static const struct schema_field csi_volume_source_fields[] = {
        { "driver", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "readOnly", &schema_bool, 2, SCHEMA_GO_POINTER },
        { "fsType", &schema_string, 3, SCHEMA_GO_POINTER },
        { "volumeAttributes", &schema_string_map, 4, SCHEMA_GO_VALUE },
        { "nodePublishSecretRef", &schema_local_object_reference, 5, SCHEMA_GO_POINTER },
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
        { "limits", &schema_resource_list, 1, SCHEMA_GO_VALUE },
        { "requests", &schema_resource_list, 2, SCHEMA_GO_VALUE },
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
        { "apiGroup", &schema_string, 1, SCHEMA_GO_POINTER },
        { "kind", &schema_string, 2, SCHEMA_GO_ALWAYS },
        { "name", &schema_string, 3, SCHEMA_GO_ALWAYS },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_typed_local_object_reference =
        SCHEMA_STRUCT("TypedLocalObjectReference", typed_local_object_reference_fields);

/* core/v1 TypedObjectReference */
/* clang-format off */
static const struct schema_field typed_object_reference_fields[] = {
        { "apiGroup", &schema_string, 1, SCHEMA_GO_POINTER },
        { "kind", &schema_string, 2, SCHEMA_GO_ALWAYS },
        { "name", &schema_string, 3, SCHEMA_GO_ALWAYS },
        { "namespace", &schema_string, 4, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_typed_object_reference =
        SCHEMA_STRUCT("TypedObjectReference", typed_object_reference_fields);

/* core/v1 PersistentVolumeClaimSpec */
/* clang-format off */
static const struct schema_field persistent_volume_claim_spec_fields[] = {
        { "accessModes", SCHEMA_ATOMIC_LIST(&schema_persistent_volume_access_mode), 1, SCHEMA_GO_VALUE },
        { "selector", &schema_label_selector, 4, SCHEMA_GO_POINTER },
        { "resources", &schema_volume_resource_requirements, 2, SCHEMA_GO_VALUE },
        { "volumeName", &schema_string, 3, SCHEMA_GO_VALUE },
        { "storageClassName", &schema_string, 5, SCHEMA_GO_POINTER },
        { "volumeMode", &schema_persistent_volume_mode, 6, SCHEMA_GO_POINTER },
        { "dataSource", &schema_typed_local_object_reference, 7, SCHEMA_GO_POINTER },
        { "dataSourceRef", &schema_typed_object_reference, 8, SCHEMA_GO_POINTER },
        { "volumeAttributesClassName", &schema_string, 9, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_persistent_volume_claim_spec =
        SCHEMA_STRUCT("PersistentVolumeClaimSpec", persistent_volume_claim_spec_fields);

/* core/v1 PersistentVolumeClaimTemplate */
/* clang-format off */
static const struct schema_field persistent_volume_claim_template_fields[] = {
        { "metadata", &schema_object_meta, 1, SCHEMA_GO_VALUE },
        { "spec", &schema_persistent_volume_claim_spec, 2, SCHEMA_GO_ALWAYS },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_persistent_volume_claim_template =
        SCHEMA_STRUCT("PersistentVolumeClaimTemplate", persistent_volume_claim_template_fields);

/* core/v1 EphemeralVolumeSource */
/* clang-format off */
static const struct schema_field ephemeral_volume_source_fields[] = {
        { "volumeClaimTemplate", &schema_persistent_volume_claim_template, 1, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_ephemeral_volume_source =
        SCHEMA_STRUCT("EphemeralVolumeSource", ephemeral_volume_source_fields);

static const struct schema schema_pull_policy = SCHEMA_NAMED(SCHEMA_STRING, "v1.PullPolicy");

/* core/v1 ImageVolumeSource */
/* clang-format off */
static const struct schema_field image_volume_source_fields[] = {
        { "reference", &schema_string, 1, SCHEMA_GO_VALUE },
        { "pullPolicy", &schema_pull_policy, 2, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_image_volume_source =
        SCHEMA_STRUCT("ImageVolumeSource", image_volume_source_fields);

/* core/v1 Volume */
/* clang-format off */
static const struct schema_field volume_fields[] = {
        { "name", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "hostPath", &schema_host_path_volume_source, 1, SCHEMA_GO_POINTER | SCHEMA_GO_EMBED(2) },
        { "emptyDir", &schema_empty_dir_volume_source, 2, SCHEMA_GO_POINTER | SCHEMA_GO_EMBED(2) },
        { "gcePersistentDisk", &schema_gce_persistent_disk_volume_source, 3, SCHEMA_GO_POINTER | SCHEMA_GO_EMBED(2) },
        { "awsElasticBlockStore", &schema_aws_elastic_block_store_volume_source, 4, SCHEMA_GO_POINTER | SCHEMA_GO_EMBED(2) },
        { "gitRepo", &schema_git_repo_volume_source, 5, SCHEMA_GO_POINTER | SCHEMA_GO_EMBED(2) },
        { "secret", &schema_secret_volume_source, 6, SCHEMA_GO_POINTER | SCHEMA_GO_EMBED(2) },
        { "nfs", &schema_nfs_volume_source, 7, SCHEMA_GO_POINTER | SCHEMA_GO_EMBED(2) },
        { "iscsi", &schema_iscsi_volume_source, 8, SCHEMA_GO_POINTER | SCHEMA_GO_EMBED(2) },
        { "glusterfs", &schema_glusterfs_volume_source, 9, SCHEMA_GO_POINTER | SCHEMA_GO_EMBED(2) },
        { "persistentVolumeClaim", &schema_persistent_volume_claim_volume_source, 10, SCHEMA_GO_POINTER | SCHEMA_GO_EMBED(2) },
        { "rbd", &schema_rbd_volume_source, 11, SCHEMA_GO_POINTER | SCHEMA_GO_EMBED(2) },
        { "flexVolume", &schema_flex_volume_source, 12, SCHEMA_GO_POINTER | SCHEMA_GO_EMBED(2) },
        { "cinder", &schema_cinder_volume_source, 13, SCHEMA_GO_POINTER | SCHEMA_GO_EMBED(2) },
        { "cephfs", &schema_ceph_fs_volume_source, 14, SCHEMA_GO_POINTER | SCHEMA_GO_EMBED(2) },
        { "flocker", &schema_flocker_volume_source, 15, SCHEMA_GO_POINTER | SCHEMA_GO_EMBED(2) },
        { "downwardAPI", &schema_downward_api_volume_source, 16, SCHEMA_GO_POINTER | SCHEMA_GO_EMBED(2) },
        { "fc", &schema_fc_volume_source, 17, SCHEMA_GO_POINTER | SCHEMA_GO_EMBED(2) },
        { "azureFile", &schema_azure_file_volume_source, 18, SCHEMA_GO_POINTER | SCHEMA_GO_EMBED(2) },
        { "configMap", &schema_config_map_volume_source, 19, SCHEMA_GO_POINTER | SCHEMA_GO_EMBED(2) },
        { "vsphereVolume", &schema_vsphere_virtual_disk_volume_source, 20, SCHEMA_GO_POINTER | SCHEMA_GO_EMBED(2) },
        { "quobyte", &schema_quobyte_volume_source, 21, SCHEMA_GO_POINTER | SCHEMA_GO_EMBED(2) },
        { "azureDisk", &schema_azure_disk_volume_source, 22, SCHEMA_GO_POINTER | SCHEMA_GO_EMBED(2) },
        { "photonPersistentDisk", &schema_photon_persistent_disk_volume_source, 23, SCHEMA_GO_POINTER | SCHEMA_GO_EMBED(2) },
        { "projected", &schema_projected_volume_source, 26, SCHEMA_GO_POINTER | SCHEMA_GO_EMBED(2) },
        { "portworxVolume", &schema_portworx_volume_source, 24, SCHEMA_GO_POINTER | SCHEMA_GO_EMBED(2) },
        { "scaleIO", &schema_scale_io_volume_source, 25, SCHEMA_GO_POINTER | SCHEMA_GO_EMBED(2) },
        { "storageos", &schema_storage_os_volume_source, 27, SCHEMA_GO_POINTER | SCHEMA_GO_EMBED(2) },
        { "csi", &schema_csi_volume_source, 28, SCHEMA_GO_POINTER | SCHEMA_GO_EMBED(2) },
        { "ephemeral", &schema_ephemeral_volume_source, 29, SCHEMA_GO_POINTER | SCHEMA_GO_EMBED(2) },
        { "image", &schema_image_volume_source, 30, SCHEMA_GO_POINTER | SCHEMA_GO_EMBED(2) },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_volume = SCHEMA_STRUCT("Volume", volume_fields);

static const struct schema schema_protocol = SCHEMA_NAMED(SCHEMA_STRING, "v1.Protocol");

/* core/v1 ContainerPort */
/* clang-format off */
static const struct schema_field container_port_fields[] = {
        { "name", &schema_string, 1, SCHEMA_GO_VALUE },
        { "hostPort", &schema_int32, 2, SCHEMA_GO_VALUE },
        { "containerPort", &schema_int32, 3, SCHEMA_GO_ALWAYS },
        { "protocol", &schema_protocol, 4, SCHEMA_GO_VALUE },
        { "hostIP", &schema_string, 5, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_container_port =
        SCHEMA_STRUCT("ContainerPort", container_port_fields);

/* core/v1 ConfigMapEnvSource */
/* clang-format off */
static const struct schema_field config_map_env_source_fields[] = {
        { "name", &schema_string, 1, SCHEMA_GO_VALUE | SCHEMA_GO_EMBED(1) },
        { "optional", &schema_bool, 2, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_config_map_env_source =
        SCHEMA_STRUCT("ConfigMapEnvSource", config_map_env_source_fields);

/* core/v1 SecretEnvSource */
/* clang-format off */
static const struct schema_field secret_env_source_fields[] = {
        { "name", &schema_string, 1, SCHEMA_GO_VALUE | SCHEMA_GO_EMBED(1) },
        { "optional", &schema_bool, 2, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_secret_env_source =
        SCHEMA_STRUCT("SecretEnvSource", secret_env_source_fields);

/* core/v1 EnvFromSource */
/* clang-format off */
static const struct schema_field env_from_source_fields[] = {
        { "prefix", &schema_string, 1, SCHEMA_GO_VALUE },
        { "configMapRef", &schema_config_map_env_source, 2, SCHEMA_GO_POINTER },
        { "secretRef", &schema_secret_env_source, 3, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_env_from_source =
        SCHEMA_STRUCT("EnvFromSource", env_from_source_fields);

/* core/v1 ConfigMapKeySelector */
/* clang-format off */
static const struct schema_field config_map_key_selector_fields[] = {
        { "name", &schema_string, 1, SCHEMA_GO_VALUE | SCHEMA_GO_EMBED(1) },
        { "key", &schema_string, 2, SCHEMA_GO_ALWAYS },
        { "optional", &schema_bool, 3, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_config_map_key_selector =
        SCHEMA_STRUCT("ConfigMapKeySelector", config_map_key_selector_fields);

/* core/v1 SecretKeySelector */
/* clang-format off */
static const struct schema_field secret_key_selector_fields[] = {
        { "name", &schema_string, 1, SCHEMA_GO_VALUE | SCHEMA_GO_EMBED(1) },
        { "key", &schema_string, 2, SCHEMA_GO_ALWAYS },
        { "optional", &schema_bool, 3, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_secret_key_selector =
        SCHEMA_STRUCT("SecretKeySelector", secret_key_selector_fields);

/* core/v1 FileKeySelector */
/* clang-format off */
static const struct schema_field file_key_selector_fields[] = {
        { "volumeName", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "path", &schema_string, 2, SCHEMA_GO_ALWAYS },
        { "key", &schema_string, 3, SCHEMA_GO_ALWAYS },
        { "optional", &schema_bool, 4, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_file_key_selector =
        SCHEMA_STRUCT("FileKeySelector", file_key_selector_fields);

/* core/v1 EnvVarSource */
/* clang-format off */
static const struct schema_field env_var_source_fields[] = {
        { "fieldRef", &schema_object_field_selector, 1, SCHEMA_GO_POINTER },
        { "resourceFieldRef", &schema_resource_field_selector, 2, SCHEMA_GO_POINTER },
        { "configMapKeyRef", &schema_config_map_key_selector, 3, SCHEMA_GO_POINTER },
        { "secretKeyRef", &schema_secret_key_selector, 4, SCHEMA_GO_POINTER },
        { "fileKeyRef", &schema_file_key_selector, 5, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_env_var_source =
        SCHEMA_STRUCT("EnvVarSource", env_var_source_fields);

/* core/v1 EnvVar */
/* clang-format off */
static const struct schema_field env_var_fields[] = {
        { "name", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "value", &schema_string, 2, SCHEMA_GO_VALUE },
        { "valueFrom", &schema_env_var_source, 3, SCHEMA_GO_POINTER },
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
        { "resourceName", &schema_resource_name, 1, SCHEMA_GO_ALWAYS },
        { "restartPolicy", &schema_resource_resize_restart_policy, 2, SCHEMA_GO_ALWAYS },
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
        { "operator", &schema_container_restart_rule_on_exit_codes_operator, 1, SCHEMA_GO_VALUE },
        { "values", SCHEMA_ATOMIC_LIST(&schema_int32), 2, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_container_restart_rule_on_exit_codes = SCHEMA_STRUCT(
        "ContainerRestartRuleOnExitCodes", container_restart_rule_on_exit_codes_fields);

/* core/v1 ContainerRestartRule */
/* clang-format off */
static const struct schema_field container_restart_rule_fields[] = {
        { "action", &schema_container_restart_rule_action, 1, SCHEMA_GO_VALUE },
        { "exitCodes", &schema_container_restart_rule_on_exit_codes, 2, SCHEMA_GO_POINTER },
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
        { "name", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "readOnly", &schema_bool, 2, SCHEMA_GO_VALUE },
        { "recursiveReadOnly", &schema_recursive_read_only_mode, 7, SCHEMA_GO_POINTER },
        { "mountPath", &schema_string, 3, SCHEMA_GO_ALWAYS },
        { "subPath", &schema_string, 4, SCHEMA_GO_VALUE },
        { "mountPropagation", &schema_mount_propagation_mode, 5, SCHEMA_GO_POINTER },
        { "subPathExpr", &schema_string, 6, SCHEMA_GO_VALUE },
        { "bindMountOptions", &schema_string_list, 8, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_volume_mount = SCHEMA_STRUCT("VolumeMount", volume_mount_fields);

/* core/v1 VolumeDevice */
/* clang-format off */
static const struct schema_field volume_device_fields[] = {
        { "name", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "devicePath", &schema_string, 2, SCHEMA_GO_ALWAYS },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_volume_device =
        SCHEMA_STRUCT("VolumeDevice", volume_device_fields);

/* core/v1 ExecAction */
/* clang-format off */
static const struct schema_field exec_action_fields[] = {
        { "command", &schema_string_list, 1, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_exec_action = SCHEMA_STRUCT("ExecAction", exec_action_fields);

static const struct schema schema_uri_scheme = SCHEMA_NAMED(SCHEMA_STRING, "v1.URIScheme");

/* core/v1 HTTPHeader */
/* clang-format off */
static const struct schema_field http_header_fields[] = {
        { "name", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "value", &schema_string, 2, SCHEMA_GO_ALWAYS },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_http_header = SCHEMA_STRUCT("HTTPHeader", http_header_fields);

static const struct schema schema_http_protocol = SCHEMA_NAMED(SCHEMA_STRING, "v1.HTTPProtocol");

/* core/v1 HTTPGetAction */
/* clang-format off */
static const struct schema_field http_get_action_fields[] = {
        { "path", &schema_string, 1, SCHEMA_GO_VALUE },
        { "port", &schema_int_or_string, 2, SCHEMA_GO_ALWAYS },
        { "host", &schema_string, 3, SCHEMA_GO_VALUE },
        { "scheme", &schema_uri_scheme, 4, SCHEMA_GO_VALUE },
        { "httpHeaders", SCHEMA_ATOMIC_LIST(&schema_http_header), 5, SCHEMA_GO_VALUE },
        { "protocol", &schema_http_protocol, 6, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_http_get_action =
        SCHEMA_STRUCT("HTTPGetAction", http_get_action_fields);

/* core/v1 TCPSocketAction */
/* clang-format off */
static const struct schema_field tcp_socket_action_fields[] = {
        { "port", &schema_int_or_string, 1, SCHEMA_GO_ALWAYS },
        { "host", &schema_string, 2, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_tcp_socket_action =
        SCHEMA_STRUCT("TCPSocketAction", tcp_socket_action_fields);

static const struct schema schema_grpc_probe_mode = SCHEMA_NAMED(SCHEMA_STRING, "v1.GRPCProbeMode");

/* core/v1 GRPCAction */
/* clang-format off */
static const struct schema_field grpc_action_fields[] = {
        { "port", &schema_int32, 1, SCHEMA_GO_ALWAYS },
        { "service", &schema_string, 2, SCHEMA_GO_POINTER },
        { "mode", &schema_grpc_probe_mode, 3, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_grpc_action = SCHEMA_STRUCT("GRPCAction", grpc_action_fields);

/* core/v1 Probe */
/* clang-format off */
static const struct schema_field probe_fields[] = {
        { "exec", &schema_exec_action, 1, SCHEMA_GO_POINTER | SCHEMA_GO_EMBED(1) },
        { "httpGet", &schema_http_get_action, 2, SCHEMA_GO_POINTER | SCHEMA_GO_EMBED(1) },
        { "tcpSocket", &schema_tcp_socket_action, 3, SCHEMA_GO_POINTER | SCHEMA_GO_EMBED(1) },
        { "grpc", &schema_grpc_action, 4, SCHEMA_GO_POINTER | SCHEMA_GO_EMBED(1) },
        { "initialDelaySeconds", &schema_int32, 2, SCHEMA_GO_VALUE },
        { "timeoutSeconds", &schema_int32, 3, SCHEMA_GO_VALUE },
        { "periodSeconds", &schema_int32, 4, SCHEMA_GO_VALUE },
        { "successThreshold", &schema_int32, 5, SCHEMA_GO_VALUE },
        { "failureThreshold", &schema_int32, 6, SCHEMA_GO_VALUE },
        { "terminationGracePeriodSeconds", &schema_int64, 7, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_probe = SCHEMA_STRUCT("Probe", probe_fields);

/* core/v1 SleepAction */
/* clang-format off */
static const struct schema_field sleep_action_fields[] = {
        { "seconds", &schema_int64, 1, SCHEMA_GO_ALWAYS },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_sleep_action = SCHEMA_STRUCT("SleepAction", sleep_action_fields);

/* core/v1 LifecycleHandler */
/* clang-format off */
static const struct schema_field lifecycle_handler_fields[] = {
        { "exec", &schema_exec_action, 1, SCHEMA_GO_POINTER },
        { "httpGet", &schema_http_get_action, 2, SCHEMA_GO_POINTER },
        { "tcpSocket", &schema_tcp_socket_action, 3, SCHEMA_GO_POINTER },
        { "sleep", &schema_sleep_action, 4, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_lifecycle_handler =
        SCHEMA_STRUCT("LifecycleHandler", lifecycle_handler_fields);

static const struct schema schema_signal = SCHEMA_NAMED(SCHEMA_STRING, "v1.Signal");

/* core/v1 Lifecycle */
/* clang-format off */
static const struct schema_field lifecycle_fields[] = {
        { "postStart", &schema_lifecycle_handler, 1, SCHEMA_GO_POINTER },
        { "preStop", &schema_lifecycle_handler, 2, SCHEMA_GO_POINTER },
        { "stopSignal", &schema_signal, 3, SCHEMA_GO_POINTER },
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
        { "add", SCHEMA_ATOMIC_LIST(&schema_capability), 1, SCHEMA_GO_VALUE },
        { "drop", SCHEMA_ATOMIC_LIST(&schema_capability), 2, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_capabilities = SCHEMA_STRUCT("Capabilities", capabilities_fields);

/* core/v1 SELinuxOptions */
/* clang-format off */
static const struct schema_field se_linux_options_fields[] = {
        { "user", &schema_string, 1, SCHEMA_GO_VALUE },
        { "role", &schema_string, 2, SCHEMA_GO_VALUE },
        { "type", &schema_string, 3, SCHEMA_GO_VALUE },
        { "level", &schema_string, 4, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_se_linux_options =
        SCHEMA_STRUCT("SELinuxOptions", se_linux_options_fields);

/* core/v1 WindowsSecurityContextOptions */
/* clang-format off */
static const struct schema_field windows_security_context_options_fields[] = {
        { "gmsaCredentialSpecName", &schema_string, 1, SCHEMA_GO_POINTER },
        { "gmsaCredentialSpec", &schema_string, 2, SCHEMA_GO_POINTER },
        { "runAsUserName", &schema_string, 3, SCHEMA_GO_POINTER },
        { "hostProcess", &schema_bool, 4, SCHEMA_GO_POINTER },
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
        { "type", &schema_seccomp_profile_type, 1, SCHEMA_GO_ALWAYS },
        { "localhostProfile", &schema_string, 2, SCHEMA_GO_POINTER },
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
        { "type", &schema_app_armor_profile_type, 1, SCHEMA_GO_ALWAYS },
        { "localhostProfile", &schema_string, 2, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_app_armor_profile =
        SCHEMA_STRUCT("AppArmorProfile", app_armor_profile_fields);

/* core/v1 SecurityContext */
/* clang-format off */
static const struct schema_field security_context_fields[] = {
        { "capabilities", &schema_capabilities, 1, SCHEMA_GO_POINTER },
        { "privileged", &schema_bool, 2, SCHEMA_GO_POINTER },
        { "seLinuxOptions", &schema_se_linux_options, 3, SCHEMA_GO_POINTER },
        { "windowsOptions", &schema_windows_security_context_options, 10, SCHEMA_GO_POINTER },
        { "runAsUser", &schema_int64, 4, SCHEMA_GO_POINTER },
        { "runAsGroup", &schema_int64, 8, SCHEMA_GO_POINTER },
        { "runAsNonRoot", &schema_bool, 5, SCHEMA_GO_POINTER },
        { "readOnlyRootFilesystem", &schema_bool, 6, SCHEMA_GO_POINTER },
        { "allowPrivilegeEscalation", &schema_bool, 7, SCHEMA_GO_POINTER },
        { "procMount", &schema_proc_mount_type, 9, SCHEMA_GO_POINTER },
        { "seccompProfile", &schema_seccomp_profile, 11, SCHEMA_GO_POINTER },
        { "appArmorProfile", &schema_app_armor_profile, 12, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_security_context =
        SCHEMA_STRUCT("SecurityContext", security_context_fields);

/* core/v1 Container */
/* clang-format off */
static const struct schema_field container_fields[] = {
        { "name", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "image", &schema_string, 2, SCHEMA_GO_VALUE },
        { "command", &schema_string_list, 3, SCHEMA_GO_VALUE },
        { "args", &schema_string_list, 4, SCHEMA_GO_VALUE },
        { "workingDir", &schema_string, 5, SCHEMA_GO_VALUE },
        { "ports", SCHEMA_MAP_LIST(&schema_container_port, "containerPort"), 6, SCHEMA_GO_VALUE },
        { "envFrom", SCHEMA_ATOMIC_LIST(&schema_env_from_source), 19, SCHEMA_GO_VALUE },
        { "env", SCHEMA_MAP_LIST(&schema_env_var, "name"), 7, SCHEMA_GO_VALUE },
        { "resources", &schema_resource_requirements, 8, SCHEMA_GO_VALUE },
        { "resizePolicy", SCHEMA_ATOMIC_LIST(&schema_container_resize_policy), 23, SCHEMA_GO_VALUE },
        { "restartPolicy", &schema_container_restart_policy, 24, SCHEMA_GO_POINTER },
        { "restartPolicyRules", SCHEMA_ATOMIC_LIST(&schema_container_restart_rule), 25, SCHEMA_GO_VALUE },
        { "volumeMounts", SCHEMA_MAP_LIST(&schema_volume_mount, "mountPath"), 9, SCHEMA_GO_VALUE },
        { "volumeDevices", SCHEMA_MAP_LIST(&schema_volume_device, "devicePath"), 21, SCHEMA_GO_VALUE },
        { "livenessProbe", &schema_probe, 10, SCHEMA_GO_POINTER },
        { "readinessProbe", &schema_probe, 11, SCHEMA_GO_POINTER },
        { "startupProbe", &schema_probe, 22, SCHEMA_GO_POINTER },
        { "lifecycle", &schema_lifecycle, 12, SCHEMA_GO_POINTER },
        { "terminationMessagePath", &schema_string, 13, SCHEMA_GO_VALUE },
        { "terminationMessagePolicy", &schema_termination_message_policy, 20, SCHEMA_GO_VALUE },
        { "imagePullPolicy", &schema_pull_policy, 14, SCHEMA_GO_VALUE },
        { "securityContext", &schema_security_context, 15, SCHEMA_GO_POINTER },
        { "stdin", &schema_bool, 16, SCHEMA_GO_VALUE },
        { "stdinOnce", &schema_bool, 17, SCHEMA_GO_VALUE },
        { "tty", &schema_bool, 18, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_container = SCHEMA_STRUCT("Container", container_fields);

/* core/v1 EphemeralContainer */
/* clang-format off */
static const struct schema_field ephemeral_container_fields[] = {
        { "name", &schema_string, 1, SCHEMA_GO_ALWAYS | SCHEMA_GO_EMBED(1) },
        { "image", &schema_string, 2, SCHEMA_GO_VALUE | SCHEMA_GO_EMBED(1) },
        { "command", &schema_string_list, 3, SCHEMA_GO_VALUE | SCHEMA_GO_EMBED(1) },
        { "args", &schema_string_list, 4, SCHEMA_GO_VALUE | SCHEMA_GO_EMBED(1) },
        { "workingDir", &schema_string, 5, SCHEMA_GO_VALUE | SCHEMA_GO_EMBED(1) },
        { "ports", SCHEMA_MAP_LIST(&schema_container_port, "containerPort"), 6, SCHEMA_GO_VALUE | SCHEMA_GO_EMBED(1) },
        { "envFrom", SCHEMA_ATOMIC_LIST(&schema_env_from_source), 19, SCHEMA_GO_VALUE | SCHEMA_GO_EMBED(1) },
        { "env", SCHEMA_MAP_LIST(&schema_env_var, "name"), 7, SCHEMA_GO_VALUE | SCHEMA_GO_EMBED(1) },
        { "resources", &schema_resource_requirements, 8, SCHEMA_GO_VALUE | SCHEMA_GO_EMBED(1) },
        { "resizePolicy", SCHEMA_ATOMIC_LIST(&schema_container_resize_policy), 23, SCHEMA_GO_VALUE | SCHEMA_GO_EMBED(1) },
        { "restartPolicy", &schema_container_restart_policy, 24, SCHEMA_GO_POINTER | SCHEMA_GO_EMBED(1) },
        { "restartPolicyRules", SCHEMA_ATOMIC_LIST(&schema_container_restart_rule), 25, SCHEMA_GO_VALUE | SCHEMA_GO_EMBED(1) },
        { "volumeMounts", SCHEMA_MAP_LIST(&schema_volume_mount, "mountPath"), 9, SCHEMA_GO_VALUE | SCHEMA_GO_EMBED(1) },
        { "volumeDevices", SCHEMA_MAP_LIST(&schema_volume_device, "devicePath"), 21, SCHEMA_GO_VALUE | SCHEMA_GO_EMBED(1) },
        { "livenessProbe", &schema_probe, 10, SCHEMA_GO_POINTER | SCHEMA_GO_EMBED(1) },
        { "readinessProbe", &schema_probe, 11, SCHEMA_GO_POINTER | SCHEMA_GO_EMBED(1) },
        { "startupProbe", &schema_probe, 22, SCHEMA_GO_POINTER | SCHEMA_GO_EMBED(1) },
        { "lifecycle", &schema_lifecycle, 12, SCHEMA_GO_POINTER | SCHEMA_GO_EMBED(1) },
        { "terminationMessagePath", &schema_string, 13, SCHEMA_GO_VALUE | SCHEMA_GO_EMBED(1) },
        { "terminationMessagePolicy", &schema_termination_message_policy, 20, SCHEMA_GO_VALUE | SCHEMA_GO_EMBED(1) },
        { "imagePullPolicy", &schema_pull_policy, 14, SCHEMA_GO_VALUE | SCHEMA_GO_EMBED(1) },
        { "securityContext", &schema_security_context, 15, SCHEMA_GO_POINTER | SCHEMA_GO_EMBED(1) },
        { "stdin", &schema_bool, 16, SCHEMA_GO_VALUE | SCHEMA_GO_EMBED(1) },
        { "stdinOnce", &schema_bool, 17, SCHEMA_GO_VALUE | SCHEMA_GO_EMBED(1) },
        { "tty", &schema_bool, 18, SCHEMA_GO_VALUE | SCHEMA_GO_EMBED(1) },
        { "targetContainerName", &schema_string, 2, SCHEMA_GO_VALUE },
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
        { "name", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "value", &schema_string, 2, SCHEMA_GO_ALWAYS },
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
        { "seLinuxOptions", &schema_se_linux_options, 1, SCHEMA_GO_POINTER },
        { "windowsOptions", &schema_windows_security_context_options, 8, SCHEMA_GO_POINTER },
        { "runAsUser", &schema_int64, 2, SCHEMA_GO_POINTER },
        { "runAsGroup", &schema_int64, 6, SCHEMA_GO_POINTER },
        { "runAsNonRoot", &schema_bool, 3, SCHEMA_GO_POINTER },
        { "supplementalGroups", SCHEMA_ATOMIC_LIST(&schema_int64), 4, SCHEMA_GO_VALUE },
        { "supplementalGroupsPolicy", &schema_supplemental_groups_policy, 12, SCHEMA_GO_POINTER },
        { "fsGroup", &schema_int64, 5, SCHEMA_GO_POINTER },
        { "sysctls", SCHEMA_ATOMIC_LIST(&schema_sysctl), 7, SCHEMA_GO_VALUE },
        { "fsGroupChangePolicy", &schema_pod_fs_group_change_policy, 9, SCHEMA_GO_POINTER },
        { "seccompProfile", &schema_seccomp_profile, 10, SCHEMA_GO_POINTER },
        { "appArmorProfile", &schema_app_armor_profile, 11, SCHEMA_GO_POINTER },
        { "seLinuxChangePolicy", &schema_pod_se_linux_change_policy, 13, SCHEMA_GO_POINTER },
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
        { "key", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "operator", &schema_node_selector_operator, 2, SCHEMA_GO_ALWAYS },
        { "values", &schema_string_list, 3, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_node_selector_requirement =
        SCHEMA_STRUCT("NodeSelectorRequirement", node_selector_requirement_fields);

/* core/v1 NodeSelectorTerm */
/* clang-format off */
static const struct schema_field node_selector_term_fields[] = {
        { "matchExpressions", SCHEMA_ATOMIC_LIST(&schema_node_selector_requirement), 1, SCHEMA_GO_VALUE },
        { "matchFields", SCHEMA_ATOMIC_LIST(&schema_node_selector_requirement), 2, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_node_selector_term =
        SCHEMA_STRUCT("NodeSelectorTerm", node_selector_term_fields);

/* core/v1 NodeSelector */
/* clang-format off */
static const struct schema_field node_selector_fields[] = {
        { "nodeSelectorTerms", SCHEMA_ATOMIC_LIST(&schema_node_selector_term), 1, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_node_selector = SCHEMA_STRUCT("NodeSelector", node_selector_fields);

/* core/v1 PreferredSchedulingTerm */
/* clang-format off */
static const struct schema_field preferred_scheduling_term_fields[] = {
        { "weight", &schema_int32, 1, SCHEMA_GO_ALWAYS },
        { "preference", &schema_node_selector_term, 2, SCHEMA_GO_ALWAYS },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_preferred_scheduling_term =
        SCHEMA_STRUCT("PreferredSchedulingTerm", preferred_scheduling_term_fields);

/* core/v1 NodeAffinity */
/* clang-format off */
static const struct schema_field node_affinity_fields[] = {
        { "requiredDuringSchedulingIgnoredDuringExecution", &schema_node_selector, 1, SCHEMA_GO_POINTER },
        { "preferredDuringSchedulingIgnoredDuringExecution",
          SCHEMA_ATOMIC_LIST(&schema_preferred_scheduling_term), 2, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_node_affinity =
        SCHEMA_STRUCT("NodeAffinity", node_affinity_fields);

/* core/v1 PodAffinityTerm */
/* clang-format off */
static const struct schema_field pod_affinity_term_fields[] = {
        { "labelSelector", &schema_label_selector, 1, SCHEMA_GO_POINTER },
        { "namespaces", &schema_string_list, 2, SCHEMA_GO_VALUE },
        { "topologyKey", &schema_string, 3, SCHEMA_GO_ALWAYS },
        { "namespaceSelector", &schema_label_selector, 4, SCHEMA_GO_POINTER },
        { "matchLabelKeys", &schema_string_list, 5, SCHEMA_GO_VALUE },
        { "mismatchLabelKeys", &schema_string_list, 6, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_pod_affinity_term =
        SCHEMA_STRUCT("PodAffinityTerm", pod_affinity_term_fields);

/* core/v1 WeightedPodAffinityTerm */
/* clang-format off */
static const struct schema_field weighted_pod_affinity_term_fields[] = {
        { "weight", &schema_int32, 1, SCHEMA_GO_ALWAYS },
        { "podAffinityTerm", &schema_pod_affinity_term, 2, SCHEMA_GO_ALWAYS },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_weighted_pod_affinity_term =
        SCHEMA_STRUCT("WeightedPodAffinityTerm", weighted_pod_affinity_term_fields);

/* core/v1 PodAffinity */
/* clang-format off */
static const struct schema_field pod_affinity_fields[] = {
        { "requiredDuringSchedulingIgnoredDuringExecution",
          SCHEMA_ATOMIC_LIST(&schema_pod_affinity_term), 1, SCHEMA_GO_VALUE },
        { "preferredDuringSchedulingIgnoredDuringExecution",
          SCHEMA_ATOMIC_LIST(&schema_weighted_pod_affinity_term), 2, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_pod_affinity = SCHEMA_STRUCT("PodAffinity", pod_affinity_fields);

/* core/v1 PodAntiAffinity */
/* clang-format off */
static const struct schema_field pod_anti_affinity_fields[] = {
        { "requiredDuringSchedulingIgnoredDuringExecution",
          SCHEMA_ATOMIC_LIST(&schema_pod_affinity_term), 1, SCHEMA_GO_VALUE },
        { "preferredDuringSchedulingIgnoredDuringExecution",
          SCHEMA_ATOMIC_LIST(&schema_weighted_pod_affinity_term), 2, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_pod_anti_affinity =
        SCHEMA_STRUCT("PodAntiAffinity", pod_anti_affinity_fields);

/* core/v1 Affinity */
/* clang-format off */
static const struct schema_field affinity_fields[] = {
        { "nodeAffinity", &schema_node_affinity, 1, SCHEMA_GO_POINTER },
        { "podAffinity", &schema_pod_affinity, 2, SCHEMA_GO_POINTER },
        { "podAntiAffinity", &schema_pod_anti_affinity, 3, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_affinity = SCHEMA_STRUCT("Affinity", affinity_fields);

static const struct schema schema_toleration_operator =
        SCHEMA_NAMED(SCHEMA_STRING, "v1.TolerationOperator");

/* core/v1 Toleration */
/* clang-format off */
static const struct schema_field toleration_fields[] = {
        { "key", &schema_string, 1, SCHEMA_GO_VALUE },
        { "operator", &schema_toleration_operator, 2, SCHEMA_GO_VALUE },
        { "value", &schema_string, 3, SCHEMA_GO_VALUE },
        { "effect", &schema_taint_effect, 4, SCHEMA_GO_VALUE },
        { "tolerationSeconds", &schema_int64, 5, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_toleration = SCHEMA_STRUCT("Toleration", toleration_fields);

/* core/v1 HostAlias */
/* clang-format off */
static const struct schema_field host_alias_fields[] = {
        { "ip", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "hostnames", &schema_string_list, 2, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_host_alias = SCHEMA_STRUCT("HostAlias", host_alias_fields);

/* core/v1 PodDNSConfigOption */
/* clang-format off */
static const struct schema_field pod_dns_config_option_fields[] = {
        { "name", &schema_string, 1, SCHEMA_GO_VALUE },
        { "value", &schema_string, 2, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_pod_dns_config_option =
        SCHEMA_STRUCT("PodDNSConfigOption", pod_dns_config_option_fields);

/* core/v1 PodDNSConfig */
/* clang-format off */
static const struct schema_field pod_dns_config_fields[] = {
        { "nameservers", &schema_string_list, 1, SCHEMA_GO_VALUE },
        { "searches", &schema_string_list, 2, SCHEMA_GO_VALUE },
        { "options", SCHEMA_ATOMIC_LIST(&schema_pod_dns_config_option), 3, SCHEMA_GO_VALUE },
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
        { "conditionType", &schema_pod_condition_type, 1, SCHEMA_GO_ALWAYS },
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
        { "maxSkew", &schema_int32, 1, SCHEMA_GO_ALWAYS },
        { "topologyKey", &schema_string, 2, SCHEMA_GO_ALWAYS },
        { "whenUnsatisfiable", &schema_unsatisfiable_constraint_action, 3, SCHEMA_GO_ALWAYS },
        { "labelSelector", &schema_label_selector, 4, SCHEMA_GO_POINTER },
        { "minDomains", &schema_int32, 5, SCHEMA_GO_POINTER },
        { "nodeAffinityPolicy", &schema_node_inclusion_policy, 6, SCHEMA_GO_POINTER },
        { "nodeTaintsPolicy", &schema_node_inclusion_policy, 7, SCHEMA_GO_POINTER },
        { "matchLabelKeys", &schema_string_list, 8, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_topology_spread_constraint =
        SCHEMA_STRUCT("TopologySpreadConstraint", topology_spread_constraint_fields);

static const struct schema schema_os_name = SCHEMA_NAMED(SCHEMA_STRING, "v1.OSName");

/* core/v1 PodOS */
/* clang-format off */
static const struct schema_field pod_os_fields[] = {
        { "name", &schema_os_name, 1, SCHEMA_GO_ALWAYS },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_pod_os = SCHEMA_STRUCT("PodOS", pod_os_fields);

/* core/v1 PodSchedulingGate */
/* clang-format off */
static const struct schema_field pod_scheduling_gate_fields[] = {
        { "name", &schema_string, 1, SCHEMA_GO_ALWAYS },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_pod_scheduling_gate =
        SCHEMA_STRUCT("PodSchedulingGate", pod_scheduling_gate_fields);

/* core/v1 PodResourceClaim */
/* clang-format off */
static const struct schema_field pod_resource_claim_fields[] = {
        { "name", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "resourceClaimName", &schema_string, 3, SCHEMA_GO_POINTER },
        { "resourceClaimTemplateName", &schema_string, 4, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_pod_resource_claim =
        SCHEMA_STRUCT("PodResourceClaim", pod_resource_claim_fields);

/* core/v1 PodSchedulingGroup */
/* clang-format off */
static const struct schema_field pod_scheduling_group_fields[] = {
        { "podGroupName", &schema_string, 1, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_pod_scheduling_group =
        SCHEMA_STRUCT("PodSchedulingGroup", pod_scheduling_group_fields);

/* core/v1 EvictionResponder */
/* clang-format off */
static const struct schema_field eviction_responder_fields[] = {
        { "name", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "priority", &schema_int32, 2, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_eviction_responder =
        SCHEMA_STRUCT("EvictionResponder", eviction_responder_fields);

/* core/v1 PodSpec */
/* clang-format off */
static const struct schema_field pod_spec_fields[] = {
        { "volumes", SCHEMA_MAP_LIST_RETAIN(&schema_volume, "name"), 1, SCHEMA_GO_VALUE },
        { "initContainers", SCHEMA_MAP_LIST(&schema_container, "name"), 20, SCHEMA_GO_VALUE },
        { "containers", SCHEMA_MAP_LIST(&schema_container, "name"), 2, SCHEMA_GO_VALUE },
        { "ephemeralContainers", SCHEMA_MAP_LIST(&schema_ephemeral_container, "name"), 34, SCHEMA_GO_VALUE },
        { "restartPolicy", &schema_restart_policy, 3, SCHEMA_GO_VALUE },
        { "terminationGracePeriodSeconds", &schema_int64, 4, SCHEMA_GO_POINTER },
        { "activeDeadlineSeconds", &schema_int64, 5, SCHEMA_GO_POINTER },
        { "dnsPolicy", &schema_dns_policy, 6, SCHEMA_GO_VALUE },
        { "nodeSelector", &schema_string_map, 7, SCHEMA_GO_VALUE },
        { "serviceAccountName", &schema_string, 8, SCHEMA_GO_VALUE },
        { "serviceAccount", &schema_string, 9, SCHEMA_GO_VALUE },
        { "automountServiceAccountToken", &schema_bool, 21, SCHEMA_GO_POINTER },
        { "nodeName", &schema_string, 10, SCHEMA_GO_VALUE },
        { "hostNetwork", &schema_bool, 11, SCHEMA_GO_VALUE },
        { "hostPID", &schema_bool, 12, SCHEMA_GO_VALUE },
        { "hostIPC", &schema_bool, 13, SCHEMA_GO_VALUE },
        { "shareProcessNamespace", &schema_bool, 27, SCHEMA_GO_POINTER },
        { "securityContext", &schema_pod_security_context, 14, SCHEMA_GO_POINTER },
        { "imagePullSecrets", SCHEMA_MAP_LIST(&schema_local_object_reference, "name"), 15, SCHEMA_GO_VALUE },
        { "hostname", &schema_string, 16, SCHEMA_GO_VALUE },
        { "subdomain", &schema_string, 17, SCHEMA_GO_VALUE },
        { "affinity", &schema_affinity, 18, SCHEMA_GO_POINTER },
        { "schedulerName", &schema_string, 19, SCHEMA_GO_VALUE },
        { "tolerations", SCHEMA_ATOMIC_LIST(&schema_toleration), 22, SCHEMA_GO_VALUE },
        { "hostAliases", SCHEMA_MAP_LIST(&schema_host_alias, "ip"), 23, SCHEMA_GO_VALUE },
        { "priorityClassName", &schema_string, 24, SCHEMA_GO_VALUE },
        { "priority", &schema_int32, 25, SCHEMA_GO_POINTER },
        { "dnsConfig", &schema_pod_dns_config, 26, SCHEMA_GO_POINTER },
        { "readinessGates", SCHEMA_ATOMIC_LIST(&schema_pod_readiness_gate), 28, SCHEMA_GO_VALUE },
        { "runtimeClassName", &schema_string, 29, SCHEMA_GO_POINTER },
        { "enableServiceLinks", &schema_bool, 30, SCHEMA_GO_POINTER },
        { "preemptionPolicy", &schema_preemption_policy, 31, SCHEMA_GO_POINTER },
        { "overhead", &schema_resource_list, 32, SCHEMA_GO_VALUE },
        { "topologySpreadConstraints",
          SCHEMA_MAP_LIST(&schema_topology_spread_constraint, "topologyKey"), 33, SCHEMA_GO_VALUE },
        { "setHostnameAsFQDN", &schema_bool, 35, SCHEMA_GO_POINTER },
        { "os", &schema_pod_os, 36, SCHEMA_GO_POINTER },
        { "hostUsers", &schema_bool, 37, SCHEMA_GO_POINTER },
        { "schedulingGates", SCHEMA_MAP_LIST(&schema_pod_scheduling_gate, "name"), 38, SCHEMA_GO_VALUE },
        { "resourceClaims", SCHEMA_MAP_LIST_RETAIN(&schema_pod_resource_claim, "name"), 39, SCHEMA_GO_VALUE },
        { "resources", &schema_resource_requirements, 40, SCHEMA_GO_POINTER },
        { "hostnameOverride", &schema_string, 41, SCHEMA_GO_POINTER },
        { "schedulingGroup", &schema_pod_scheduling_group, 43, SCHEMA_GO_POINTER },
        { "evictionResponders", SCHEMA_MAP_LIST(&schema_eviction_responder, "name"), 44, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_pod_spec = SCHEMA_STRUCT("PodSpec", pod_spec_fields);

static const struct schema schema_pod_phase = SCHEMA_NAMED(SCHEMA_STRING, "v1.PodPhase");

/* core/v1 PodCondition */
/* clang-format off */
static const struct schema_field pod_condition_fields[] = {
        { "type", &schema_pod_condition_type, 1, SCHEMA_GO_ALWAYS },
        { "observedGeneration", &schema_int64, 7, SCHEMA_GO_VALUE },
        { "status", &schema_condition_status, 2, SCHEMA_GO_ALWAYS },
        { "lastProbeTime", &schema_time, 3, SCHEMA_GO_VALUE },
        { "lastTransitionTime", &schema_time, 4, SCHEMA_GO_VALUE },
        { "reason", &schema_string, 5, SCHEMA_GO_VALUE },
        { "message", &schema_string, 6, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_pod_condition =
        SCHEMA_STRUCT("PodCondition", pod_condition_fields);

/* core/v1 HostIP */
/* clang-format off */
static const struct schema_field host_ip_fields[] = {
        { "ip", &schema_string, 1, SCHEMA_GO_ALWAYS },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_host_ip = SCHEMA_STRUCT("HostIP", host_ip_fields);

/* core/v1 PodIP */
/* clang-format off */
static const struct schema_field pod_ip_fields[] = {
        { "ip", &schema_string, 1, SCHEMA_GO_ALWAYS },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_pod_ip = SCHEMA_STRUCT("PodIP", pod_ip_fields);

/* core/v1 ContainerStateWaiting */
/* clang-format off */
static const struct schema_field container_state_waiting_fields[] = {
        { "reason", &schema_string, 1, SCHEMA_GO_VALUE },
        { "message", &schema_string, 2, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_container_state_waiting =
        SCHEMA_STRUCT("ContainerStateWaiting", container_state_waiting_fields);

/* core/v1 ContainerStateRunning */
/* clang-format off */
static const struct schema_field container_state_running_fields[] = {
        { "startedAt", &schema_time, 1, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_container_state_running =
        SCHEMA_STRUCT("ContainerStateRunning", container_state_running_fields);

/* core/v1 ContainerStateTerminated */
/* clang-format off */
static const struct schema_field container_state_terminated_fields[] = {
        { "exitCode", &schema_int32, 1, SCHEMA_GO_ALWAYS },
        { "signal", &schema_int32, 2, SCHEMA_GO_VALUE },
        { "reason", &schema_string, 3, SCHEMA_GO_VALUE },
        { "message", &schema_string, 4, SCHEMA_GO_VALUE },
        { "startedAt", &schema_time, 5, SCHEMA_GO_VALUE },
        { "finishedAt", &schema_time, 6, SCHEMA_GO_VALUE },
        { "containerID", &schema_string, 7, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_container_state_terminated =
        SCHEMA_STRUCT("ContainerStateTerminated", container_state_terminated_fields);

/* core/v1 ContainerState */
/* clang-format off */
static const struct schema_field container_state_fields[] = {
        { "waiting", &schema_container_state_waiting, 1, SCHEMA_GO_POINTER },
        { "running", &schema_container_state_running, 2, SCHEMA_GO_POINTER },
        { "terminated", &schema_container_state_terminated, 3, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_container_state =
        SCHEMA_STRUCT("ContainerState", container_state_fields);

/* core/v1 ImageVolumeStatus */
/* clang-format off */
static const struct schema_field image_volume_status_fields[] = {
        { "imageRef", &schema_string, 1, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_image_volume_status =
        SCHEMA_STRUCT("ImageVolumeStatus", image_volume_status_fields);

/* core/v1 EmptyDirVolumeStatus (KEP-6030: the tmpfs size the kubelet actuated) */
/* clang-format off */
static const struct schema_field empty_dir_volume_status_fields[] = {
        { "sizeLimit", &schema_quantity, 0, 0 }, /* KEP-6030: no upstream number yet */
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_empty_dir_volume_status =
        SCHEMA_STRUCT("EmptyDirVolumeStatus", empty_dir_volume_status_fields);

/* core/v1 VolumeStatus (emptyDir from KEP-6030) */
/* clang-format off */
static const struct schema_field volume_status_fields[] = {
        { "image", &schema_image_volume_status, 1, SCHEMA_GO_POINTER },
        { "emptyDir", &schema_empty_dir_volume_status, 0, 0 }, /* KEP-6030: no number */
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_volume_status =
        SCHEMA_STRUCT("VolumeStatus", volume_status_fields);

/* core/v1 VolumeMountStatus */
/* clang-format off */
static const struct schema_field volume_mount_status_fields[] = {
        { "name", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "mountPath", &schema_string, 2, SCHEMA_GO_ALWAYS },
        { "readOnly", &schema_bool, 3, SCHEMA_GO_VALUE },
        { "recursiveReadOnly", &schema_recursive_read_only_mode, 4, SCHEMA_GO_POINTER },
        { "volumeStatus", &schema_volume_status, 5, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_volume_mount_status =
        SCHEMA_STRUCT("VolumeMountStatus", volume_mount_status_fields);

/* core/v1 LinuxContainerUser */
/* clang-format off */
static const struct schema_field linux_container_user_fields[] = {
        { "uid", &schema_int64, 1, SCHEMA_GO_ALWAYS },
        { "gid", &schema_int64, 2, SCHEMA_GO_ALWAYS },
        { "supplementalGroups", SCHEMA_ATOMIC_LIST(&schema_int64), 3, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_linux_container_user =
        SCHEMA_STRUCT("LinuxContainerUser", linux_container_user_fields);

/* core/v1 ContainerUser */
/* clang-format off */
static const struct schema_field container_user_fields[] = {
        { "linux", &schema_linux_container_user, 1, SCHEMA_GO_POINTER },
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
        { "resourceID", &schema_resource_id, 1, SCHEMA_GO_ALWAYS },
        { "health", &schema_resource_health_status, 2, SCHEMA_GO_VALUE },
        { "message", &schema_string, 6, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_resource_health =
        SCHEMA_STRUCT("ResourceHealth", resource_health_fields);

/* core/v1 ResourceStatus */
/* clang-format off */
static const struct schema_field resource_status_fields[] = {
        { "name", &schema_resource_name, 1, SCHEMA_GO_ALWAYS },
        { "resources", SCHEMA_ATOMIC_LIST(&schema_resource_health), 2, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_resource_status =
        SCHEMA_STRUCT("ResourceStatus", resource_status_fields);

/* core/v1 ContainerStatus */
/* clang-format off */
static const struct schema_field container_status_fields[] = {
        { "name", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "state", &schema_container_state, 2, SCHEMA_GO_VALUE },
        { "lastState", &schema_container_state, 3, SCHEMA_GO_VALUE },
        { "ready", &schema_bool, 4, SCHEMA_GO_ALWAYS },
        { "restartCount", &schema_int32, 5, SCHEMA_GO_ALWAYS },
        { "image", &schema_string, 6, SCHEMA_GO_ALWAYS },
        { "imageID", &schema_string, 7, SCHEMA_GO_ALWAYS },
        { "containerID", &schema_string, 8, SCHEMA_GO_VALUE },
        { "started", &schema_bool, 9, SCHEMA_GO_POINTER },
        { "allocatedResources", &schema_resource_list, 10, SCHEMA_GO_VALUE },
        { "resources", &schema_resource_requirements, 11, SCHEMA_GO_POINTER },
        { "volumeMounts", SCHEMA_MAP_LIST(&schema_volume_mount_status, "mountPath"), 12, SCHEMA_GO_VALUE },
        { "user", &schema_container_user, 13, SCHEMA_GO_POINTER },
        { "allocatedResourcesStatus", SCHEMA_MAP_LIST(&schema_resource_status, "name"), 14, SCHEMA_GO_VALUE },
        { "stopSignal", &schema_signal, 15, SCHEMA_GO_POINTER },
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
        { "name", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "resourceClaimName", &schema_string, 2, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_pod_resource_claim_status =
        SCHEMA_STRUCT("PodResourceClaimStatus", pod_resource_claim_status_fields);

/* core/v1 ContainerExtendedResourceRequest */
/* clang-format off */
static const struct schema_field container_extended_resource_request_fields[] = {
        { "containerName", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "resourceName", &schema_string, 2, SCHEMA_GO_ALWAYS },
        { "requestName", &schema_string, 3, SCHEMA_GO_ALWAYS },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_container_extended_resource_request = SCHEMA_STRUCT(
        "ContainerExtendedResourceRequest", container_extended_resource_request_fields);

/* core/v1 PodExtendedResourceClaimStatus */
/* clang-format off */
static const struct schema_field pod_extended_resource_claim_status_fields[] = {
        { "requestMappings", SCHEMA_ATOMIC_LIST(&schema_container_extended_resource_request), 1, SCHEMA_GO_VALUE },
        { "resourceClaimName", &schema_string, 2, SCHEMA_GO_ALWAYS },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_pod_extended_resource_claim_status =
        SCHEMA_STRUCT("PodExtendedResourceClaimStatus", pod_extended_resource_claim_status_fields);

/* core/v1 NodeAllocatableMappedResources */
/* clang-format off */
static const struct schema_field node_allocatable_mapped_resources_fields[] = {
        { "name", &schema_resource_name, 1, SCHEMA_GO_ALWAYS },
        { "quantity", &schema_quantity, 2, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_node_allocatable_mapped_resources =
        SCHEMA_STRUCT("NodeAllocatableMappedResources", node_allocatable_mapped_resources_fields);

/* core/v1 NodeAllocatableOverheadResources */
/* clang-format off */
static const struct schema_field node_allocatable_overhead_resources_fields[] = {
        { "name", &schema_resource_name, 1, SCHEMA_GO_ALWAYS },
        { "perPod", &schema_quantity, 2, SCHEMA_GO_POINTER },
        { "perContainer", &schema_quantity, 3, SCHEMA_GO_POINTER },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_node_allocatable_overhead_resources = SCHEMA_STRUCT(
        "NodeAllocatableOverheadResources", node_allocatable_overhead_resources_fields);

/* core/v1 NodeAllocatableResourceClaimStatus */
/* clang-format off */
static const struct schema_field node_allocatable_resource_claim_status_fields[] = {
        { "resourceClaimName", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "containers", &schema_string_list, 2, SCHEMA_GO_VALUE },
        { "mapping", SCHEMA_MAP_LIST(&schema_node_allocatable_mapped_resources, "name"), 4, SCHEMA_GO_VALUE },
        { "overhead", SCHEMA_MAP_LIST(&schema_node_allocatable_overhead_resources, "name"), 5, SCHEMA_GO_VALUE },
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
        { "status", &schema_volume_health_status_type, 1, SCHEMA_GO_ALWAYS },
        { "reason", &schema_string, 2, SCHEMA_GO_ALWAYS },
        { "message", &schema_string, 3, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_volume_health_condition =
        SCHEMA_STRUCT("VolumeHealthCondition", volume_health_condition_fields);

/* core/v1 PodVolumeHealth */
/* clang-format off */
static const struct schema_field pod_volume_health_fields[] = {
        { "name", &schema_string, 1, SCHEMA_GO_ALWAYS },
        { "healthConditions", SCHEMA_MAP_LIST(&schema_volume_health_condition, "status"), 2, SCHEMA_GO_VALUE },
        { "lastTransitionTime", &schema_time, 3, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_pod_volume_health =
        SCHEMA_STRUCT("PodVolumeHealth", pod_volume_health_fields);

/* core/v1 PodStatus */
/* clang-format off */
static const struct schema_field pod_status_fields[] = {
        { "observedGeneration", &schema_int64, 17, SCHEMA_GO_VALUE },
        { "phase", &schema_pod_phase, 1, SCHEMA_GO_VALUE },
        { "conditions", SCHEMA_MAP_LIST(&schema_pod_condition, "type"), 2, SCHEMA_GO_VALUE },
        { "message", &schema_string, 3, SCHEMA_GO_VALUE },
        { "reason", &schema_string, 4, SCHEMA_GO_VALUE },
        { "nominatedNodeName", &schema_string, 11, SCHEMA_GO_VALUE },
        { "hostIP", &schema_string, 5, SCHEMA_GO_VALUE },
        { "hostIPs", SCHEMA_MAP_LIST(&schema_host_ip, "ip"), 16, SCHEMA_GO_VALUE },
        { "podIP", &schema_string, 6, SCHEMA_GO_VALUE },
        { "podIPs", SCHEMA_MAP_LIST(&schema_pod_ip, "ip"), 12, SCHEMA_GO_VALUE },
        { "startTime", &schema_time, 7, SCHEMA_GO_POINTER },
        { "initContainerStatuses", SCHEMA_ATOMIC_LIST(&schema_container_status), 10, SCHEMA_GO_VALUE },
        { "containerStatuses", SCHEMA_ATOMIC_LIST(&schema_container_status), 8, SCHEMA_GO_VALUE },
        { "qosClass", &schema_pod_qos_class, 9, SCHEMA_GO_VALUE },
        { "ephemeralContainerStatuses", SCHEMA_ATOMIC_LIST(&schema_container_status), 13, SCHEMA_GO_VALUE },
        { "resize", &schema_pod_resize_status, 14, SCHEMA_GO_VALUE },
        { "resourceClaimStatuses",
          SCHEMA_MAP_LIST_RETAIN(&schema_pod_resource_claim_status, "name"), 15, SCHEMA_GO_VALUE },
        { "extendedResourceClaimStatus", &schema_pod_extended_resource_claim_status, 18, SCHEMA_GO_POINTER },
        { "allocatedResources", &schema_resource_list, 19, SCHEMA_GO_VALUE },
        { "resources", &schema_resource_requirements, 20, SCHEMA_GO_POINTER },
        { "nodeAllocatableResourceClaimStatuses",
          SCHEMA_MAP_LIST(&schema_node_allocatable_resource_claim_status, "resourceClaimName"), 21, SCHEMA_GO_VALUE },
        { "volumeHealth", SCHEMA_ATOMIC_LIST(&schema_pod_volume_health), 22, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
static const struct schema schema_pod_status = SCHEMA_STRUCT("PodStatus", pod_status_fields);

/* core/v1 Pod */
/* clang-format off */
static const struct schema_field pod_fields[] = {
        { "kind", &schema_string, 0, 0 }, /* TypeMeta: the envelope carries it */
        { "apiVersion", &schema_string, 0, 0 }, /* TypeMeta: the envelope carries it */
        { "metadata", &schema_object_meta, 1, SCHEMA_GO_VALUE },
        { "spec", &schema_pod_spec, 2, SCHEMA_GO_VALUE },
        { "status", &schema_pod_status, 3, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_pod = SCHEMA_STRUCT("Pod", pod_fields);

/* core/v1 PodTemplateSpec */
/* clang-format off */
static const struct schema_field pod_template_spec_fields[] = {
        { "metadata", &schema_object_meta, 1, SCHEMA_GO_VALUE },
        { "spec", &schema_pod_spec, 2, SCHEMA_GO_VALUE },
        SCHEMA_FIELDS_END,
};
/* clang-format on */
const struct schema schema_pod_template_spec =
        SCHEMA_STRUCT("PodTemplateSpec", pod_template_spec_fields);
