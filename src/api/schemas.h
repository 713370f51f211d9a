/* schemas.h: the schema of every kind flexlet serves (api/schema-*.c) and the shared pieces
 * they are built from. Everything here is static const data described by api/schema.h; the
 * SCHEMA_* macros below are how the tables in schema-*.c spell lists, maps and structs. */
#ifndef FLEXLET_API_SCHEMAS_H
#define FLEXLET_API_SCHEMAS_H

#include <stddef.h>
#include "api/schema.h"

/* ---- kinds (core/v1) ---- */
extern const struct schema schema_pod, schema_node, schema_event, schema_namespace;

/* ---- kinds (storage: api/schema-storage.c) ---- */
/* storage.k8s.io/v1 StorageClass, core/v1 PersistentVolume (sources: local, hostPath, csi) and
 * PersistentVolumeClaim. */
extern const struct schema schema_storage_class, schema_persistent_volume,
        schema_persistent_volume_claim;

/* ---- kinds (configuration: api/schema-config.c) ---- */
/* core/v1 ConfigMap, Secret and ServiceAccount. */
extern const struct schema schema_config_map, schema_secret, schema_service_account;
/* core/v1 LimitRange. */
extern const struct schema schema_limit_range;
/* core/v1 ResourceQuota (api/schema-quota.c). */
extern const struct schema schema_resource_quota;

/* ---- kinds (authentication: api/schema-authn.c) ---- */
/* authentication.k8s.io/v1 SelfSubjectReview. */
extern const struct schema schema_self_subject_review, schema_token_review;
/* authentication.k8s.io/v1 TokenRequest (the serviceaccounts/token subresource's body). */
extern const struct schema schema_token_request;

/* ---- kinds (authorization: api/schema-authz.c) ---- */
/* authorization.k8s.io/v1 SubjectAccessReview, SelfSubjectAccessReview, LocalSubjectAccessReview
 * and SelfSubjectRulesReview. */
extern const struct schema schema_subject_access_review, schema_self_subject_access_review,
        schema_local_subject_access_review, schema_self_subject_rules_review;

/* ---- kinds (batch: api/schema-batch.c) ---- */
/* batch/v1 Job. */
extern const struct schema schema_job;

/* ---- kinds (policy: api/schema-policy.c) ---- */
/* policy/v1 PodDisruptionBudget and Eviction, meta/v1 DeleteOptions (an Eviction's). */
extern const struct schema schema_pod_disruption_budget, schema_eviction, schema_delete_options;

/* ---- kinds (coordination: api/schema-coordination.c) ---- */
/* certificates.k8s.io/v1 CertificateSigningRequest. */
extern const struct schema schema_certificate_signing_request;
/* coordination.k8s.io/v1 Lease. */
extern const struct schema schema_lease;

/* ---- kinds (apps: api/schema-apps.c) ---- */
/* apps/v1 ReplicaSet and Deployment, autoscaling/v1 Scale (their scale subresource's body). */
extern const struct schema schema_replica_set, schema_deployment, schema_scale;
/* The fields apps/v1 ReplicaSetCondition, DaemonSetCondition and StatefulSetCondition share
 * (type, status, lastTransitionTime, reason, message, numbered as types.go does them;
 * api/schema-apps.c). */
extern const struct schema_field schema_apps_condition_fields[];
/* apps/v1 StatefulSet and ControllerRevision (api/schema-statefulset.c). */
extern const struct schema schema_stateful_set, schema_controller_revision;
/* apps/v1 DaemonSet (api/schema-apps.c). */
extern const struct schema schema_daemon_set;
/* metrics.k8s.io/v1beta1 (schema-metrics.c) */
extern const struct schema schema_node_metrics, schema_pod_metrics;

/* ---- kinds (RBAC: api/schema-rbac.c) ---- */
/* rbac.authorization.k8s.io/v1 Role, ClusterRole, RoleBinding, ClusterRoleBinding, and the
 * PolicyRule a role holds. */
extern const struct schema schema_role, schema_cluster_role, schema_role_binding,
        schema_cluster_role_binding, schema_policy_rule;

/* "Pod", "Node", "Event", "Namespace", "StorageClass", "PersistentVolume",
 * "PersistentVolumeClaim", "ConfigMap", "Secret", "ServiceAccount", "LimitRange",
 * "ResourceQuota", "SelfSubjectReview", "PodDisruptionBudget", "Eviction", "TokenReview",
 * "Lease", "ReplicaSet", "Deployment", "StatefulSet", "ControllerRevision", "DaemonSet", "Scale",
 * "Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding", "SubjectAccessReview",
 * "SelfSubjectAccessReview", "LocalSubjectAccessReview", "SelfSubjectRulesReview": the kind's
 * schema; NULL for any other kind.
 */
const struct schema *schema_for_kind(const char *kind);

/* ---- the wire's own shapes (api/schema-wire.c) ---- */
/* meta/v1 Status, StatusDetails, StatusCause. */
extern const struct schema schema_status, schema_status_details, schema_status_cause;
/* "<Kind>List" for every kind schema_for_kind knows: {kind, apiVersion, metadata (ListMeta, pb 1),
 * items ([]<Kind>, pb 2)}; NULL for anything else. Built once per kind and never freed (the
 * pointer stays valid); safe from any thread. */
const struct schema *schema_list_for_kind(const char *list_kind);

/* ---- meta/v1 ---- */
extern const struct schema schema_object_meta, schema_list_meta, schema_type_meta,
        schema_owner_reference, schema_managed_fields_entry, schema_managed_fields_operation_type,
        schema_shard_info, schema_label_selector, schema_label_selector_requirement,
        schema_label_selector_operator;

/* ---- core/v1 types more than one kind uses ---- */
extern const struct schema schema_resource_requirements, schema_resource_list,
        schema_resource_claim, schema_object_reference, schema_condition_status,
        schema_taint_effect, schema_node_selector, schema_persistent_volume_claim_spec,
        schema_persistent_volume_access_mode, schema_persistent_volume_mode,
        schema_host_path_volume_source, schema_pod_spec, schema_pod_template_spec;

/* ---- leaves ---- */
extern const struct schema schema_any, schema_string, schema_int32, schema_int64, schema_float64,
        schema_bool, schema_quantity, schema_int_or_string, schema_time, schema_micro_time,
        schema_uid, schema_string_map, schema_string_list, schema_bytes;

/* ---- table spelling ---- */
#define SCHEMA_FIELDS_END \
 {                        \
  .name = NULL            \
 }
#define SCHEMA_STRUCT(go, fields_)                            \
 {                                                            \
  .kind = SCHEMA_OBJECT, .go_type = (go), .fields = (fields_) \
 }
#define SCHEMA_NAMED(kind_, go)    \
 {                                 \
  .kind = (kind_), .go_type = (go) \
 }
/* The fields of a kind with a spec and a status (typeMeta inline, metadata 1, spec 2, status
 * 3), the shape of every apps/v1 kind: the body of a schema_field array. */
#define SCHEMA_SPEC_STATUS_FIELDS(spec_, status_)                                              \
 { "kind", &schema_string, 0, 0 }, { "apiVersion", &schema_string, 0, 0 },                     \
         { "metadata", &schema_object_meta, 1, SCHEMA_GO_VALUE },                              \
         { "spec", (spec_), 2, SCHEMA_GO_VALUE }, { "status", (status_), 3, SCHEMA_GO_VALUE }, \
         SCHEMA_FIELDS_END
/* K8S: no patchStrategy: a patch replaces the whole list. */
#define SCHEMA_ATOMIC_LIST(items_) \
 (&(const struct schema){ .kind = SCHEMA_LIST, .items = (items_), .list_type = SCHEMA_LIST_ATOMIC })
/* K8S: patchStrategy=merge on a primitive list: union. */
#define SCHEMA_SET_LIST(items_) \
 (&(const struct schema){ .kind = SCHEMA_LIST, .items = (items_), .list_type = SCHEMA_LIST_SET })
/* K8S: patchStrategy=merge, patchMergeKey=key. */
#define SCHEMA_MAP_LIST(items_, key)                    \
 (&(const struct schema){ .kind = SCHEMA_LIST,          \
                          .items = (items_),            \
                          .list_type = SCHEMA_LIST_MAP, \
                          .merge_key = (key) })
/* K8S: patchStrategy=merge,retainKeys, patchMergeKey=key. */
#define SCHEMA_MAP_LIST_RETAIN(items_, key)             \
 (&(const struct schema){ .kind = SCHEMA_LIST,          \
                          .items = (items_),            \
                          .list_type = SCHEMA_LIST_MAP, \
                          .merge_key = (key),           \
                          .retain_keys = true })
/* map[string]<items> */
#define SCHEMA_MAP_OF(items_) (&(const struct schema){ .kind = SCHEMA_MAP, .items = (items_) })

#endif
