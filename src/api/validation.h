/* validation.h: defaulting, QoS and validation of objects as kube-apiserver 1.33 does them, with
 * upstream's field paths and messages word for word (pkg/apis/core/v1/defaults.go,
 * pkg/apis/core/validation/validation.go, pkg/registry/core/pod/strategy.go, apimachinery's
 * object-meta and name rules).
 *
 * Objects are borrowed jansson values in their v1 wire shape. Validators never fail: they append
 * what is wrong to a struct field_error_list (api/field-error.h) and return the number of errors
 * they added; an empty list means valid. Where upstream iterates a Go map (resource lists,
 * labels), errors come in the object's key order.
 *
 * Quantities must already be canonical strings or JSON numbers (schema_check); an unparsable one
 * is reported with QUANTITY_REGEXP_MESSAGE. */
#ifndef FLEXLET_API_VALIDATION_H
#define FLEXLET_API_VALIDATION_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "api/field-error.h"

/* ---- names (apimachinery util/validation) ---- */

/* K8S: IsDNS1123Subdomain / IsDNS1123Label / IsDNS1035Label / IsQualifiedName /
 * IsValidLabelValue. Each appends one Invalid error per failed rule at `field`, with value as the
 * bad value; returns how many it added. */
size_t validate_dns1123_subdomain(const char *value, const char *field,
                                  struct field_error_list *errs);
size_t validate_dns1123_label(const char *value, const char *field, struct field_error_list *errs);
size_t validate_dns1035_label(const char *value, const char *field, struct field_error_list *errs);
size_t validate_qualified_name(const char *value, const char *field, struct field_error_list *errs);
size_t validate_label_value(const char *value, const char *field, struct field_error_list *errs);
/* K8S: ValidateLabels: every key a qualified name, every value a label value, all reported at
 * `field` itself (upstream does not add the key to the path). labels may be NULL. */
size_t validate_labels(const json_t *labels, const char *field, struct field_error_list *errs);

/* ---- object metadata ---- */

/* Which rule metadata.name follows (upstream's ValidateNameFunc for the kind). */
enum object_name_rule {
        OBJECT_NAME_DNS1123_SUBDOMAIN, /* pods, PVCs, PVs, storage classes, most kinds */
        OBJECT_NAME_DNS1123_LABEL,     /* namespaces */
        OBJECT_NAME_DNS1035_LABEL,     /* services */
        OBJECT_NAME_PATH_SEGMENT,      /* RBAC's roles and bindings: path.IsValidPathSegmentName */
        OBJECT_NAME_RULE_MAX,
};

/* K8S: ValidateObjectMeta on create, with the core finalizer rule: name (or "name or
 * generateName is required"), generateName, namespace (required and a DNS label when namespaced,
 * Forbidden "not allowed on this type" otherwise), generation >= 0, labels, annotations (keys and
 * the 256 kB total), ownerReferences, finalizers. The name follows DNS-1123 subdomain rules. */
size_t validate_object_meta_create(const json_t *obj, bool namespaced,
                                   struct field_error_list *errs);
size_t validate_object_meta_create_named(const json_t *obj, bool namespaced,
                                         enum object_name_rule rule, struct field_error_list *errs);
/* K8S: ValidateObjectMetaUpdate: resourceVersion must be set ("must be specified for an
 * update"; the caller copies the stored one in for unconditional updates, as upstream's registry
 * does), generation may not decrease, name/namespace/uid/creationTimestamp/deletionTimestamp/
 * deletionGracePeriodSeconds are immutable ("field is immutable"), no new finalizers while
 * deleting, then labels/annotations/ownerReferences/finalizer names of the new object. */
size_t validate_object_meta_update(const json_t *new_obj, const json_t *old_obj,
                                   struct field_error_list *errs);

/* ---- pods: defaults and QoS ---- */

/* K8S: SetDefaults_Pod/PodSpec/Container/Volume/Probe/... of v1 1.33, plus what the Priority
 * admission plugin sets when no class applies (spec.priority 0, preemptionPolicy
 * PreemptLowerPriority). Every resource list is rounded up to milli precision, requests are
 * defaulted from limits, an unset volume source becomes emptyDir {} (medium stays unset), ports
 * get protocol TCP, hostNetwork pods get hostPort = containerPort. status.phase (Pending) and
 * status.qosClass are filled when absent. resizePolicy is not defaulted (removed upstream in 1.33,
 * kubernetes#128920). Idempotent; pod must be an object. */
void pod_set_defaults(json_t *pod);
/* K8S: podStrategy.PrepareForCreate: status replaced by {phase: Pending, qosClass},
 * metadata.generation set to 1, and each pod (anti-)affinity term's matchLabelKeys and
 * mismatchLabelKeys merged into its labelSelector as "key In/NotIn (the pod's value)"
 * (MatchLabelKeysInPodAffinity); call after pod_set_defaults. */
void pod_prepare_for_create(json_t *pod);
/* K8S: SetDefaults_PodTemplateSpec: a template's spec as SetDefaults_PodSpec fills it. */
void pod_template_set_defaults(json_t *tmpl);
/* K8S: ValidatePodTemplateSpec: the template's labels, annotations and spec, errors under path
 * ("spec.template"). */
size_t validate_pod_template(const json_t *tmpl, const char *path, struct field_error_list *errs);

/* K8S: ComputePodQOS: "Guaranteed", "Burstable" or "BestEffort". Only cpu and memory count, and
 * only quantities > 0; init containers count like regular ones; pod-level spec.resources, when it
 * has cpu or memory, decides instead of the containers. */
const char *pod_qos_class(const json_t *pod);
/* K8S: GetPodQOS: status.qosClass when set, else pod_qos_class(). */
const char *pod_qos_class_stored(const json_t *pod);

/* ---- pods: validation ---- */

/* K8S: ValidatePodCreate: metadata, pod annotations, the whole spec (volumes, containers, init
 * containers, resources, resize policies, restart/DNS/preemption policies, tolerations, ...),
 * ephemeralContainers forbidden on create. */
size_t validate_pod_create(const json_t *pod, struct field_error_list *errs);
/* K8S: ValidatePodUpdate: metadata update, the new spec, then the immutability rule: only
 * images, activeDeadlineSeconds, added tolerations, removed scheduling gates and a negative
 * terminationGracePeriodSeconds set to 1 may change. Anything else is one Forbidden on "spec":
 * "pod updates may not change fields other than ...\n<diff>" (the diff lists the changed JSON
 * paths; upstream prints Go's cmp.Diff there). */
size_t validate_pod_update(const json_t *new_pod, const json_t *old_pod,
                           struct field_error_list *errs);

/* K8S: dropNonResizeUpdates (pods/resize). Returns a new object (caller owns) to validate with
 * validate_pod_resize and then store: the old spec and status, with containers[*] and
 * initContainers[*] resources and resizePolicy taken from new_pod, and (KEP-6030) every emptyDir
 * volume's sizeLimit taken from new_pod when the volume list keeps its names; metadata is
 * new_pod's except labels, annotations, finalizers, ownerReferences, generation and
 * deletionTimestamp, which stay old_pod's (ResetObjectMetaForStatus). If a container list
 * changed length, a copy of new_pod is returned unchanged; if one was renamed or reordered, that
 * list is new_pod's; either way validation then rejects the request. What it takes from old_pod
 * is copied; members of new_pod may be shared with the result (new_pod is the request's). */
json_t *pod_drop_non_resize_updates(const json_t *new_pod, const json_t *old_pod);
/* K8S: ValidatePodResize, upstream's order, with 1.34+ semantics (memory limits may decrease).
 * new_pod is the result of pod_drop_non_resize_updates. Adds KEP-6030's rules for emptyDir
 * sizeLimit (see validation-pod.c for the messages). */
size_t validate_pod_resize(const json_t *new_pod, const json_t *old_pod,
                           struct field_error_list *errs);

/* K8S: updatePodGeneration: true when the specs differ semantically (quantities by value, absent
 * equal to empty), i.e. when metadata.generation must be bumped. */
bool pod_spec_changed(const json_t *new_pod, const json_t *old_pod);

/* ---- storage: StorageClass, PersistentVolume, PersistentVolumeClaim ----
 * (K8S: pkg/apis/core/v1/defaults.go, pkg/apis/storage/v1/defaults.go, the persistentvolume,
 * persistentvolumeclaim and storageclass registry strategies, pkg/apis/core/validation and
 * pkg/apis/storage/validation, pkg/volume/validation, 1.33 with its default feature gates:
 * RecoverVolumeExpansionFailure on, VolumeAttributesClass off.) Defaults and prepare functions
 * need objects (sc/pv/pvc must be JSON objects); validators accept anything. */

/* K8S: storageutil.IsDefaultStorageClassAnnotation and its beta twin: a class whose annotation
 * is exactly "true" is a default class. */
#define STORAGE_CLASS_DEFAULT_ANNOTATION      "storageclass.kubernetes.io/is-default-class"
#define STORAGE_CLASS_BETA_DEFAULT_ANNOTATION "storageclass.beta.kubernetes.io/is-default-class"
/* K8S: core.BetaStorageClassAnnotation: a claim's or volume's class, before storageClassName. */
#define STORAGE_CLASS_BETA_ANNOTATION "volume.beta.kubernetes.io/storage-class"
/* K8S: core.MountOptionAnnotation (deprecated mount options of a volume). */
#define STORAGE_MOUNT_OPTIONS_ANNOTATION "volume.beta.kubernetes.io/mount-options"
/* K8S pkg/volume/util PVCProtectionFinalizer and PVProtectionFinalizer: added by the
 * StorageObjectInUseProtection admission, removed by the storage-protection controller once no
 * scheduled pod uses the claim, or the volume is no longer Bound. */
#define PVC_PROTECTION_FINALIZER "kubernetes.io/pvc-protection"
#define PV_PROTECTION_FINALIZER  "kubernetes.io/pv-protection"

/* K8S: SetDefaults_StorageClass: reclaimPolicy Delete, volumeBindingMode Immediate when unset. */
void storage_class_set_defaults(json_t *sc);
/* K8S: ValidateStorageClass: metadata (cluster-scoped), provisioner (required, a qualified
 * name), parameters (no empty key, at most 512 of them and 256 KiB), reclaimPolicy (Delete or
 * Retain), volumeBindingMode (Immediate or WaitForFirstConsumer), allowedTopologies. */
size_t validate_storage_class_create(const json_t *sc, struct field_error_list *errs);
/* K8S: the storage class strategy's ValidateUpdate: the new class as on create, metadata update,
 * then "updates to parameters are forbidden." / "updates to provisioner are forbidden." /
 * "updates to reclaimPolicy are forbidden." and volumeBindingMode "field is immutable";
 * allowVolumeExpansion and mountOptions stay mutable. */
size_t validate_storage_class_update(const json_t *new_sc, const json_t *old_sc,
                                     struct field_error_list *errs);
/* K8S: IsDefaultAnnotation. */
bool storage_class_is_default(const json_t *sc);

/* K8S: SetDefaults_PersistentVolume: status.phase Pending, reclaim policy Retain (a static
 * volume's; provisioners set their class's), volumeMode Filesystem, hostPath.type "", and
 * resource lists rounded up to milli precision (SetDefaults_ResourceList). */
void pv_set_defaults(json_t *pv);
/* K8S: persistentvolumeStrategy.PrepareForCreate: status {phase: Pending,
 * lastPhaseTransitionTime: now}; spec.volumeAttributesClassName dropped (gate off). now is an
 * RFC 3339 time. */
void pv_prepare_for_create(json_t *pv, const char *now);
/* K8S: persistentvolumeStrategy.PrepareForUpdate: status stays old's. */
void pv_prepare_for_update(json_t *new_pv, const json_t *old_pv);
/* K8S: persistentvolumeStatusStrategy.PrepareForUpdate: spec stays old's; lastPhaseTransitionTime
 * is kept while the phase stays and set to now when the phase changes (unless the writer set a
 * new one). */
void pv_prepare_for_status_update(json_t *new_pv, const json_t *old_pv, const char *now);
/* K8S: ValidatePersistentVolume + volume validation's checkMountOption: metadata, accessModes
 * (required; RWO, ROX, RWX, RWOP alone), capacity (required, storage only, > 0), reclaim policy,
 * node affinity, exactly one source among hostPath, local (needs node affinity) and csi (driver a
 * DNS subdomain, volumeHandle required, secret references), storageClassName, volumeMode, and no
 * mountOptions on hostPath or local volumes. */
size_t validate_pv_create(const json_t *pv, struct field_error_list *errs);
/* K8S: ValidatePersistentVolumeUpdate: metadata update, the new volume as on create, then the
 * source is immutable ("spec.persistentvolumesource is immutable after creation\n<diff>",
 * except adding csi.controllerExpandSecretRef), volumeMode and a set nodeAffinity immutable
 * (upstream's paths "volumeMode", "nodeAffinity"). */
size_t validate_pv_update(const json_t *new_pv, const json_t *old_pv,
                          struct field_error_list *errs);
/* K8S: ValidatePersistentVolumeStatusUpdate: metadata update only. */
size_t validate_pv_status_update(const json_t *new_pv, const json_t *old_pv,
                                 struct field_error_list *errs);
/* K8S: GetPersistentVolumeClass: the beta annotation, else spec.storageClassName, else "". */
const char *pv_storage_class(const json_t *pv);

/* K8S: SetDefaults_PersistentVolumeClaim(Spec): status.phase Pending, spec.volumeMode
 * Filesystem, resource lists rounded up to milli precision. */
void pvc_set_defaults(json_t *pvc);
/* K8S: persistentvolumeclaimStrategy.PrepareForCreate: status reset (to {phase: Pending}, as read
 * back), volumeAttributesClassName dropped (gate off), spec.dataSource dropped unless it names a
 * PersistentVolumeClaim or a snapshot.storage.k8s.io VolumeSnapshot, then dataSource and
 * dataSourceRef filled from each other (NormalizeDataSources). */
void pvc_prepare_for_create(json_t *pvc);
/* K8S: persistentvolumeclaimStrategy.PrepareForUpdate: status stays old's, the same data source
 * rules (an old claim with a data source keeps a new one as is). */
void pvc_prepare_for_update(json_t *new_pvc, const json_t *old_pvc);
/* K8S: persistentvolumeclaimStatusStrategy.PrepareForUpdate: spec stays old's;
 * currentVolumeAttributesClassName and modifyVolumeStatus dropped (gate off) unless old used
 * them. */
void pvc_prepare_for_status_update(json_t *new_pvc, const json_t *old_pvc);
/* K8S: ValidatePersistentVolumeClaim: metadata, accessModes ("at least 1 access mode is
 * required"), selector, resources[storage] (required, > 0), storageClassName, volumeMode,
 * dataSource and dataSourceRef. */
size_t validate_pvc_create(const json_t *pvc, struct field_error_list *errs);
/* K8S: ValidatePersistentVolumeClaimUpdate with RecoverVolumeExpansionFailure: metadata update,
 * the new claim as on create, then one Forbidden on "spec" when anything but
 * resources.requests.storage of a bound claim, a first volumeName or a class set where there was
 * none changed: "spec is immutable after creation except resources.requests and
 * volumeAttributesClassName for bound claims\n<diff>"; a storage request lowered to or below
 * status.capacity: spec.resources.requests.storage "field can not be less than status.capacity"
 * (lowering it while it stays above is how a failed expansion is recovered, KEP-1790);
 * volumeMode immutable; the beta class annotation immutable. */
size_t validate_pvc_update(const json_t *new_pvc, const json_t *old_pvc,
                           struct field_error_list *errs);
/* K8S: ValidatePersistentVolumeClaimStatusUpdate: metadata update, Spec.accessModes present,
 * status.capacity, allocatedResources and allocatedResourceStatuses (storage keys, known
 * ClaimResourceStatus values). */
size_t validate_pvc_status_update(const json_t *new_pvc, const json_t *old_pvc,
                                  struct field_error_list *errs);
/* K8S: GetPersistentVolumeClaimClass: the beta annotation, else spec.storageClassName, else "". */
const char *pvc_storage_class(const json_t *pvc);
/* K8S: PersistentVolumeClaimHasClass: the beta annotation or spec.storageClassName is present
 * (even ""). */
bool pvc_has_storage_class(const json_t *pvc);

/* ---- configuration: ConfigMap, Secret, ServiceAccount (api/validation-config.c) ----
 * (K8S: pkg/apis/core/validation 1.33.) data/binaryData keys in object order. */

/* K8S: core.MaxSecretSize: the most data a ConfigMap or a Secret holds (decoded bytes). */
#define CONFIG_MAX_SIZE (1024 * 1024)
/* K8S: core.SecretType* */
#define SECRET_TYPE_OPAQUE                "Opaque"
#define SECRET_TYPE_SERVICE_ACCOUNT_TOKEN "kubernetes.io/service-account-token"
#define SECRET_TYPE_DOCKERCFG             "kubernetes.io/dockercfg"
#define SECRET_TYPE_DOCKER_CONFIG_JSON    "kubernetes.io/dockerconfigjson"
#define SECRET_TYPE_BASIC_AUTH            "kubernetes.io/basic-auth"
#define SECRET_TYPE_SSH_AUTH              "kubernetes.io/ssh-auth"
#define SECRET_TYPE_TLS                   "kubernetes.io/tls"
#define SECRET_TYPE_BOOTSTRAP_TOKEN       "bootstrap.kubernetes.io/token"

/* Decodes a []byte value (a base64 JSON string, as Secret.data and ConfigMap.binaryData hold)
 * into a malloc'd, NUL-terminated buffer of *ret_len bytes. -EINVAL when v is not valid. */
int config_bytes_decode(const json_t *v, char **ret, size_t *ret_len);

/* K8S: ValidateConfigMap: metadata when meta (DNS-1123 subdomain name), every key of data and
 * binaryData IsConfigMapKey ("a valid config key must consist of ..."), no key in both
 * ("duplicate of key present in binaryData"), at most CONFIG_MAX_SIZE bytes in all ("[]: Too
 * long: may not be more than 1048576 bytes"). */
size_t validate_config_map(const json_t *cm, bool meta, struct field_error_list *errs);
/* K8S: ValidateConfigMapUpdate: metadata update; an immutable ConfigMap stays immutable
 * (immutable, data, binaryData: "Forbidden: field is immutable when `immutable` is set"); then
 * the new object's data as on create. */
size_t validate_config_map_update(const json_t *new_cm, const json_t *old_cm,
                                  struct field_error_list *errs);

/* K8S: Convert_v1_Secret_To_core_Secret and SetDefaults_Secret: every stringData entry
 * overwrites the data entry of its key (base64-encoded), stringData is dropped, an empty type
 * becomes Opaque. Run before validation on every write. secret must be an object. */
void secret_prepare(json_t *secret);
/* K8S: ValidateSecret: metadata when meta, data keys as ConfigMap keys, at most
 * CONFIG_MAX_SIZE decoded bytes ("data: Too long: ..."), then the keys each type requires:
 * service-account-token the kubernetes.io/service-account.name annotation, dockercfg and
 * dockerconfigjson their key holding a JSON object, basic-auth username or password, ssh-auth a
 * non-empty ssh-privatekey, tls tls.crt and tls.key. */
size_t validate_secret(const json_t *secret, bool meta, struct field_error_list *errs);
/* K8S: ValidateSecretUpdate: metadata update, type immutable ("type: Invalid value: ...: field
 * is immutable"), immutable and data as ConfigMap's, then the new secret as on create. */
size_t validate_secret_update(const json_t *new_secret, const json_t *old_secret,
                              struct field_error_list *errs);

/* K8S: ValidateServiceAccount(Update): its metadata only. */
size_t validate_service_account(const json_t *sa, struct field_error_list *errs);
size_t validate_service_account_update(const json_t *new_sa, const json_t *old_sa,
                                       struct field_error_list *errs);

/* ---- ResourceQuota (api/validation-quota.c) ---- */

/* K8S: ValidateResourceQuota: metadata; spec.hard and status.hard/used names ("must be a
 * standard resource for quota" without a '/') and values (not negative, integers where the
 * resource counts); spec.scopes ("unsupported scope", "unsupported scope applied to resource",
 * "conflicting scopes"); spec.scopeSelector's requirements. */
size_t validate_resource_quota(const json_t *rq, struct field_error_list *errs);
/* K8S: ValidateResourceQuotaUpdate: the same on the new quota, and spec.scopes is immutable. */
size_t validate_resource_quota_update(const json_t *new_rq, const json_t *old_rq,
                                      struct field_error_list *errs);
/* K8S: ValidateResourceQuotaStatusUpdate: metadata, status.hard and status.used. */
size_t validate_resource_quota_status_update(const json_t *new_rq, const json_t *old_rq,
                                             struct field_error_list *errs);

/* K8S: ValidatePodDisruptionBudget (pkg/apis/policy/validation) with the generic registry's
 * metadata check: metadata when meta; minAvailable and maxUnavailable not both set, each a
 * non-negative integer or a percentage ("a valid percent string must be ...") of at most 100%;
 * the selector as metav1 ValidateLabelSelector; unhealthyPodEvictionPolicy IfHealthyBudget or
 * AlwaysAllow. */
size_t validate_pdb(const json_t *pdb, bool meta, struct field_error_list *errs);
/* K8S: ValidatePodDisruptionBudget on update (the spec is mutable) after the metadata update. */
size_t validate_pdb_update(const json_t *new_pdb, const json_t *old_pdb,
                           struct field_error_list *errs);
/* K8S: ValidatePodDisruptionBudgetStatusUpdate (policy/v1): disruptionsAllowed,
 * currentHealthy, desiredHealthy and expectedPods non-negative. */
size_t validate_pdb_status_update(const json_t *new_pdb, const json_t *old_pdb,
                                  struct field_error_list *errs);

/* K8S: ValidateLease (pkg/apis/coordination/validation) with the generic registry's metadata
 * check on create: leaseDurationSeconds above 0, leaseTransitions not negative. (strategy and
 * preferredHolder never reach it: the strategy drops them, as upstream with the
 * CoordinatedLeaderElection gate off, its 1.33 default.) */
size_t validate_lease(const json_t *lease, struct field_error_list *errs);
/* K8S: ValidateLeaseUpdate: the metadata update, then the spec as on create. */
size_t validate_lease_update(const json_t *new_lease, const json_t *old_lease,
                             struct field_error_list *errs);
/* ---- certificates.k8s.io/v1 (api/validation-certificates.c) ---- */

/* K8S: validateCertificateSigningRequest (v1 options): the name a path segment, spec.request a
 * PEM CERTIFICATE REQUEST whose signature checks (csr.h), usages given, known and not repeated,
 * signerName a qualified "domain/path" (not kubernetes.io/legacy-unknown), expirationSeconds
 * at least 600, conditions typed, True/False/Unknown, not repeated, Approved and Denied only
 * True and never both, status.certificate PEM CERTIFICATE blocks. */
size_t validate_certificate_signing_request(const json_t *csr, struct field_error_list *errs);
/* The same on update (every subresource), then the metadata update; an Approved or Denied
 * condition once set may not be removed or modified, nor an issued certificate replaced. */
size_t validate_certificate_signing_request_update(const json_t *new_csr, const json_t *old_csr,
                                                   struct field_error_list *errs);

/* ---- apps/v1 (api/validation-apps.c) ---- */

/* K8S: SetDefaults_ReplicaSet and SetDefaults_Deployment (apps/v1), the template included. */
void replica_set_set_defaults(json_t *rs);
void deployment_set_defaults(json_t *d);
/* K8S: ValidateReplicaSet (meta: with the object's metadata, as on create), its update (the
 * selector is immutable) and status update. */
size_t validate_replica_set(const json_t *rs, bool meta, struct field_error_list *errs);
size_t validate_replica_set_update(const json_t *new_rs, const json_t *old_rs,
                                   struct field_error_list *errs);
size_t validate_replica_set_status_update(const json_t *new_rs, const json_t *old_rs,
                                          struct field_error_list *errs);
/* K8S: ValidateDeployment, ValidateDeploymentUpdate, ValidateDeploymentStatusUpdate. */
size_t validate_deployment(const json_t *d, bool meta, struct field_error_list *errs);
size_t validate_deployment_update(const json_t *new_d, const json_t *old_d,
                                  struct field_error_list *errs);
size_t validate_deployment_status_update(const json_t *new_d, const json_t *old_d,
                                         struct field_error_list *errs);
/* K8S: SetDefaults_DaemonSet (apps/v1), ValidateDaemonSet, ValidateDaemonSetUpdate (the selector
 * is immutable), ValidateDaemonSetStatusUpdate. */
void daemon_set_set_defaults(json_t *ds);
size_t validate_daemon_set(const json_t *ds, bool meta, struct field_error_list *errs);
size_t validate_daemon_set_update(const json_t *new_ds, const json_t *old_ds,
                                  struct field_error_list *errs);
size_t validate_daemon_set_status_update(const json_t *new_ds, const json_t *old_ds,
                                         struct field_error_list *errs);
/* ---- apps/v1 StatefulSet, ControllerRevision (api/validation-statefulset.c) ---- */

/* K8S: SetDefaults_StatefulSet (apps/v1): podManagementPolicy OrderedReady, updateStrategy
 * RollingUpdate with partition 0, persistentVolumeClaimRetentionPolicy Retain/Retain, replicas 1,
 * revisionHistoryLimit 10, the template and each claim template. */
void stateful_set_set_defaults(json_t *sts);
/* K8S: ValidateStatefulSet (meta: with the metadata, the name a DNS label), its update (only
 * replicas, ordinals, template, updateStrategy, the retention policy and minReadySeconds may
 * change) and status update (collisionCount may not decrease). */
size_t validate_stateful_set(const json_t *sts, bool meta, struct field_error_list *errs);
size_t validate_stateful_set_update(const json_t *new_sts, const json_t *old_sts,
                                    struct field_error_list *errs);
size_t validate_stateful_set_status_update(const json_t *new_sts, const json_t *old_sts,
                                           struct field_error_list *errs);
/* K8S: ValidateControllerRevision (data required, revision >= 0) and its update (data
 * immutable). */
size_t validate_controller_revision(const json_t *cr, bool meta, struct field_error_list *errs);
size_t validate_controller_revision_update(const json_t *new_cr, const json_t *old_cr,
                                           struct field_error_list *errs);
/* ---- RBAC (api/validation-rbac.c) ---- */

/* K8S: SetDefaults_RoleBinding/ClusterRoleBinding (roleRef.apiGroup) and SetDefaults_Subject
 * (a User's or Group's apiGroup is rbac.authorization.k8s.io) of a binding; harmless on a
 * role. */
void rbac_set_defaults(json_t *obj);
/* K8S: ValidateRole (cluster false) and ValidateClusterRole (cluster true): metadata with
 * RBAC's name rule (path.IsValidPathSegmentName), every rule (verbs; apiGroups and resources,
 * or nonResourceURLs, which a Role may not hold), a ClusterRole's aggregationRule selectors. */
size_t validate_rbac_role(const json_t *role, bool cluster, struct field_error_list *errs);
size_t validate_rbac_role_update(const json_t *new_role, const json_t *old_role, bool cluster,
                                 struct field_error_list *errs);
/* K8S: ValidateRoleBinding (cluster false) and ValidateClusterRoleBinding (cluster true):
 * roleRef (RBAC's group, Role or ClusterRole, a ClusterRoleBinding only ClusterRole, a name) and
 * every subject; on update roleRef may not change ("cannot change roleRef"). */
size_t validate_rbac_binding(const json_t *b, bool cluster, struct field_error_list *errs);
size_t validate_rbac_binding_update(const json_t *new_b, const json_t *old_b, bool cluster,
                                    struct field_error_list *errs);

#endif
