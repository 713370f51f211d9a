/* resources.c: the descriptor table of every served resource and the lookups over it.
 * What each resource is lives here; how it is stored, routed and printed lives elsewhere and
 * reads this table. */
#include <errno.h>
#include <string.h>

#include "api/schemas.h"
#include "apiserver/authn.h"
#include "apiserver/authz-review.h"
#include "apiserver/resource-metrics.h"
#include "apiserver/resources.h"
#include "apiserver/table.h"
#include "base/macro.h"

static const char *const verbs_all[] = { "create", "delete", "deletecollection",
                                         "get",    "list",   "patch",
                                         "update", "watch",  NULL };
static const char *const verbs_namespace[] = { "create", "delete", "get",   "list",
                                               "patch",  "update", "watch", NULL };

static const char *const pod_short[] = { "po", NULL };
static const char *const pod_categories[] = { "all", NULL };
static const char *const pod_subresources[] = { "status", "resize",      "binding",
                                                "log",    "eviction",    "exec",
                                                "attach", "portforward", NULL };
/* K8S: pod field label conversion (pkg/apis/core/v1/conversion.go). */
static const char *const pod_fields[] = { "metadata.name",
                                          "metadata.namespace",
                                          "spec.nodeName",
                                          "spec.restartPolicy",
                                          "spec.schedulerName",
                                          "spec.serviceAccountName",
                                          "spec.hostNetwork",
                                          "status.phase",
                                          "status.podIP",
                                          "status.podIPs",
                                          "status.nominatedNodeName",
                                          NULL };

static const struct api_resource pods = {
        .group = "",
        .version = "v1",
        .api_version = "v1",
        .plural = "pods",
        .singular = "pod",
        .kind = "Pod",
        .list_kind = "PodList",
        .namespaced = true,
        .short_names = pod_short,
        .categories = pod_categories,
        .verbs = verbs_all,
        .subresources = pod_subresources,
        .schema = &schema_pod,
        .field_labels = pod_fields,
        .columns = pod_columns,
        .n_columns = POD_COLUMNS,
        .table_row = pod_table_row,
        .strategy = &pod_strategy,
};

static const char *const ns_short[] = { "ns", NULL };
static const char *const ns_subresources[] = { "status", "finalize", NULL };
static const char *const ns_fields[] = { "metadata.name", "status.phase", NULL };

static const struct api_resource namespaces = {
        .group = "",
        .version = "v1",
        .api_version = "v1",
        .plural = "namespaces",
        .singular = "namespace",
        .kind = "Namespace",
        .list_kind = "NamespaceList",
        .namespaced = false,
        .short_names = ns_short,
        .verbs = verbs_namespace,
        .subresources = ns_subresources,
        .schema = &schema_namespace,
        .field_labels = ns_fields,
        .columns = namespace_columns,
        .n_columns = NAMESPACE_COLUMNS,
        .table_row = namespace_table_row,
        .strategy = &namespace_strategy,
};

static const char *const node_short[] = { "no", NULL };
static const char *const node_subresources[] = { "status", NULL };
static const char *const node_fields[] = { "metadata.name", "spec.unschedulable", NULL };

static const struct api_resource nodes = {
        .group = "",
        .version = "v1",
        .api_version = "v1",
        .plural = "nodes",
        .singular = "node",
        .kind = "Node",
        .list_kind = "NodeList",
        .namespaced = false,
        .short_names = node_short,
        .verbs = verbs_all,
        .subresources = node_subresources,
        .schema = &schema_node,
        .field_labels = node_fields,
        .columns = node_columns,
        .n_columns = NODE_COLUMNS,
        .table_row = node_table_row,
        .strategy = &node_strategy,
};

static const char *const event_short[] = { "ev", NULL };
/* K8S: event field labels (pkg/apis/core/v1/conversion.go, eventFieldSelector). */
static const char *const event_fields[] = {
        "metadata.name",
        "metadata.namespace",
        "involvedObject.kind",
        "involvedObject.namespace",
        "involvedObject.name",
        "involvedObject.uid",
        "involvedObject.apiVersion",
        "involvedObject.resourceVersion",
        "involvedObject.fieldPath",
        "reason",
        "reportingComponent",
        "source",
        "type",
        NULL,
};

static const struct api_resource events = {
        .group = "",
        .version = "v1",
        .api_version = "v1",
        .plural = "events",
        .singular = "event",
        .kind = "Event",
        .list_kind = "EventList",
        .namespaced = true,
        .short_names = event_short,
        .verbs = verbs_all,
        .schema = &schema_event,
        .field_labels = event_fields,
        .columns = event_columns,
        .n_columns = EVENT_COLUMNS,
        .table_row = event_table_row,
        .strategy = &event_strategy,
};

static const char *const status_only[] = { "status", NULL };
static const char *const sa_subresources[] = { "token", NULL };

static const char *const pv_short[] = { "pv", NULL };
/* K8S: PersistentVolumeToSelectableFields (its legacy "name" label aside) */
static const char *const pv_fields[] = { "metadata.name", NULL };

static const struct api_resource persistentvolumes = {
        .group = "",
        .version = "v1",
        .api_version = "v1",
        .plural = "persistentvolumes",
        .singular = "persistentvolume",
        .kind = "PersistentVolume",
        .list_kind = "PersistentVolumeList",
        .namespaced = false,
        .short_names = pv_short,
        .verbs = verbs_all,
        .subresources = status_only,
        .schema = &schema_persistent_volume,
        .field_labels = pv_fields,
        .columns = persistent_volume_columns,
        .n_columns = PERSISTENT_VOLUME_COLUMNS,
        .table_row = persistent_volume_table_row,
        .strategy = &persistent_volume_strategy,
};

static const char *const pvc_short[] = { "pvc", NULL };
/* K8S: PersistentVolumeClaimToSelectableFields (its legacy "name" label aside) */
static const char *const pvc_fields[] = { "metadata.name", "metadata.namespace", NULL };

static const struct api_resource persistentvolumeclaims = {
        .group = "",
        .version = "v1",
        .api_version = "v1",
        .plural = "persistentvolumeclaims",
        .singular = "persistentvolumeclaim",
        .kind = "PersistentVolumeClaim",
        .list_kind = "PersistentVolumeClaimList",
        .namespaced = true,
        .short_names = pvc_short,
        .verbs = verbs_all,
        .subresources = status_only,
        .schema = &schema_persistent_volume_claim,
        .field_labels = pvc_fields,
        .columns = persistent_volume_claim_columns,
        .n_columns = PERSISTENT_VOLUME_CLAIM_COLUMNS,
        .table_row = persistent_volume_claim_table_row,
        .strategy = &persistent_volume_claim_strategy,
};

static const char *const sc_short[] = { "sc", NULL };
static const char *const sc_fields[] = { "metadata.name", NULL };

static const struct api_resource storageclasses = {
        .group = "storage.k8s.io",
        .version = "v1",
        .api_version = "storage.k8s.io/v1",
        .plural = "storageclasses",
        .singular = "storageclass",
        .kind = "StorageClass",
        .list_kind = "StorageClassList",
        .namespaced = false,
        .short_names = sc_short,
        .verbs = verbs_all,
        .schema = &schema_storage_class,
        .field_labels = sc_fields,
        .columns = storage_class_columns,
        .n_columns = STORAGE_CLASS_COLUMNS,
        .table_row = storage_class_table_row,
        .strategy = &storage_class_strategy,
};

/* K8S: ConfigMap, Secret and ServiceAccount field labels: the default metadata.name and
 * metadata.namespace, and a Secret's type (pkg/registry/core/secret SelectableFields). */
static const char *const config_fields[] = { "metadata.name", "metadata.namespace", NULL };
static const char *const secret_fields[] = { "metadata.name", "metadata.namespace", "type", NULL };
static const char *const cm_short[] = { "cm", NULL };
static const char *const sa_short[] = { "sa", NULL };

static const struct api_resource configmaps = {
        .group = "",
        .version = "v1",
        .api_version = "v1",
        .plural = "configmaps",
        .singular = "configmap",
        .kind = "ConfigMap",
        .list_kind = "ConfigMapList",
        .namespaced = true,
        .short_names = cm_short,
        .verbs = verbs_all,
        .schema = &schema_config_map,
        .field_labels = config_fields,
        .columns = config_map_columns,
        .n_columns = CONFIG_MAP_COLUMNS,
        .table_row = config_map_table_row,
        .strategy = &config_map_strategy,
};

static const struct api_resource secrets = {
        .group = "",
        .version = "v1",
        .api_version = "v1",
        .plural = "secrets",
        .singular = "secret",
        .kind = "Secret",
        .list_kind = "SecretList",
        .namespaced = true,
        .verbs = verbs_all,
        .schema = &schema_secret,
        .field_labels = secret_fields,
        .columns = secret_columns,
        .n_columns = SECRET_COLUMNS,
        .table_row = secret_table_row,
        .strategy = &secret_strategy,
};

static const struct api_resource serviceaccounts = {
        .group = "",
        .version = "v1",
        .api_version = "v1",
        .plural = "serviceaccounts",
        .singular = "serviceaccount",
        .kind = "ServiceAccount",
        .list_kind = "ServiceAccountList",
        .namespaced = true,
        .short_names = sa_short,
        .verbs = verbs_all,
        .subresources = sa_subresources,
        .schema = &schema_service_account,
        .field_labels = config_fields,
        .columns = service_account_columns,
        .n_columns = SERVICE_ACCOUNT_COLUMNS,
        .table_row = service_account_table_row,
        .strategy = &service_account_strategy,
};

static const char *const limits_short[] = { "limits", NULL };

static const struct api_resource limitranges = {
        .group = "",
        .version = "v1",
        .api_version = "v1",
        .plural = "limitranges",
        .singular = "limitrange",
        .kind = "LimitRange",
        .list_kind = "LimitRangeList",
        .namespaced = true,
        .short_names = limits_short,
        .verbs = verbs_all,
        .schema = &schema_limit_range,
        .field_labels = config_fields,
        .columns = limit_range_columns,
        .n_columns = LIMIT_RANGE_COLUMNS,
        .table_row = limit_range_table_row,
        .strategy = &limit_range_strategy,
};

static const char *const job_categories[] = { "all", NULL };

static const struct api_resource jobs = {
        .group = "batch",
        .version = "v1",
        .api_version = "batch/v1",
        .plural = "jobs",
        .singular = "job",
        .kind = "Job",
        .list_kind = "JobList",
        .namespaced = true,
        .categories = job_categories,
        .verbs = verbs_all,
        .subresources = status_only,
        .schema = &schema_job,
        .field_labels = config_fields,
        .columns = job_columns,
        .n_columns = JOB_COLUMNS,
        .table_row = job_table_row,
        .strategy = &job_strategy,
};

static const char *const verbs_create[] = { "create", NULL };

static const struct api_resource selfsubjectreviews = {
        .group = "authentication.k8s.io",
        .version = "v1",
        .api_version = "authentication.k8s.io/v1",
        .plural = "selfsubjectreviews",
        .singular = "selfsubjectreview",
        .kind = "SelfSubjectReview",
        .verbs = verbs_create,
        .schema = &schema_self_subject_review,
        .review = authn_self_subject_review,
};

static const char *const quota_short[] = { "quota", NULL };

static const struct api_resource resourcequotas = {
        .group = "",
        .version = "v1",
        .api_version = "v1",
        .plural = "resourcequotas",
        .singular = "resourcequota",
        .kind = "ResourceQuota",
        .list_kind = "ResourceQuotaList",
        .namespaced = true,
        .short_names = quota_short,
        .verbs = verbs_all,
        .subresources = status_only,
        .schema = &schema_resource_quota,
        .field_labels = config_fields,
        .columns = resource_quota_columns,
        .n_columns = RESOURCE_QUOTA_COLUMNS,
        .table_row = resource_quota_table_row,
        .strategy = &resource_quota_strategy,
};

static const char *const pdb_short[] = { "pdb", NULL };

static const struct api_resource poddisruptionbudgets = {
        .group = "policy",
        .version = "v1",
        .api_version = "policy/v1",
        .plural = "poddisruptionbudgets",
        .singular = "poddisruptionbudget",
        .kind = "PodDisruptionBudget",
        .list_kind = "PodDisruptionBudgetList",
        .namespaced = true,
        .short_names = pdb_short,
        .verbs = verbs_all,
        .subresources = status_only,
        .schema = &schema_pod_disruption_budget,
        .field_labels = config_fields,
        .columns = pod_disruption_budget_columns,
        .n_columns = POD_DISRUPTION_BUDGET_COLUMNS,
        .table_row = pod_disruption_budget_table_row,
        .strategy = &pod_disruption_budget_strategy,
};

static const struct api_resource tokenreviews = {
        .group = "authentication.k8s.io",
        .version = "v1",
        .api_version = "authentication.k8s.io/v1",
        .plural = "tokenreviews",
        .singular = "tokenreview",
        .kind = "TokenReview",
        .verbs = verbs_create,
        .schema = &schema_token_review,
        .review = authn_token_review,
};

/* K8S: pkg/registry/authorization: create-only, never stored (authz-review.h) */
static const struct api_resource subjectaccessreviews = {
        .group = "authorization.k8s.io",
        .version = "v1",
        .api_version = "authorization.k8s.io/v1",
        .plural = "subjectaccessreviews",
        .singular = "subjectaccessreview",
        .kind = "SubjectAccessReview",
        .verbs = verbs_create,
        .schema = &schema_subject_access_review,
        .strategy = &subject_access_review_strategy,
        .review = authz_subject_access_review,
};

static const struct api_resource selfsubjectaccessreviews = {
        .group = "authorization.k8s.io",
        .version = "v1",
        .api_version = "authorization.k8s.io/v1",
        .plural = "selfsubjectaccessreviews",
        .singular = "selfsubjectaccessreview",
        .kind = "SelfSubjectAccessReview",
        .verbs = verbs_create,
        .schema = &schema_self_subject_access_review,
        .strategy = &self_subject_access_review_strategy,
        .review = authz_self_subject_access_review,
};

static const struct api_resource localsubjectaccessreviews = {
        .group = "authorization.k8s.io",
        .version = "v1",
        .api_version = "authorization.k8s.io/v1",
        .plural = "localsubjectaccessreviews",
        .singular = "localsubjectaccessreview",
        .kind = "LocalSubjectAccessReview",
        .namespaced = true,
        .verbs = verbs_create,
        .schema = &schema_local_subject_access_review,
        .strategy = &local_subject_access_review_strategy,
        .review = authz_local_subject_access_review,
};

static const struct api_resource selfsubjectrulesreviews = {
        .group = "authorization.k8s.io",
        .version = "v1",
        .api_version = "authorization.k8s.io/v1",
        .plural = "selfsubjectrulesreviews",
        .singular = "selfsubjectrulesreview",
        .kind = "SelfSubjectRulesReview",
        .verbs = verbs_create,
        .schema = &schema_self_subject_rules_review,
        .review = authz_self_subject_rules_review,
};

/* K8S: certificates.k8s.io/v1 (pkg/registry/certificates): cluster-scoped, with status and
 * approval; spec.signerName is a field selector. */
static const char *const csr_short[] = { "csr", NULL };
static const char *const csr_subresources[] = { "status", "approval", NULL };
static const char *const csr_fields[] = { "metadata.name", "spec.signerName", NULL };

static const struct api_resource certificatesigningrequests = {
        .group = "certificates.k8s.io",
        .version = "v1",
        .api_version = "certificates.k8s.io/v1",
        .plural = "certificatesigningrequests",
        .singular = "certificatesigningrequest",
        .kind = "CertificateSigningRequest",
        .list_kind = "CertificateSigningRequestList",
        .namespaced = false,
        .short_names = csr_short,
        .verbs = verbs_all,
        .subresources = csr_subresources,
        .schema = &schema_certificate_signing_request,
        .field_labels = csr_fields,
        .columns = certificate_signing_request_columns,
        .n_columns = CERTIFICATE_SIGNING_REQUEST_COLUMNS,
        .table_row = certificate_signing_request_table_row,
        .strategy = &certificate_signing_request_strategy,
};

static const struct api_resource leases = {
        .group = "coordination.k8s.io",
        .version = "v1",
        .api_version = "coordination.k8s.io/v1",
        .plural = "leases",
        .singular = "lease",
        .kind = "Lease",
        .list_kind = "LeaseList",
        .namespaced = true,
        .verbs = verbs_all,
        .schema = &schema_lease,
        .field_labels = config_fields,
        .columns = lease_columns,
        .n_columns = LEASE_COLUMNS,
        .table_row = lease_table_row,
        .strategy = &lease_strategy,
};

/* K8S: apps/v1 (pkg/registry/apps): both carry status and the scale subresource. */
static const char *const apps_subresources[] = { "status", "scale", NULL };
static const char *const rs_short[] = { "rs", NULL };
static const char *const deploy_short[] = { "deploy", NULL };

static const struct api_resource replicasets = {
        .group = "apps",
        .version = "v1",
        .api_version = "apps/v1",
        .plural = "replicasets",
        .singular = "replicaset",
        .kind = "ReplicaSet",
        .list_kind = "ReplicaSetList",
        .namespaced = true,
        .short_names = rs_short,
        .categories = pod_categories,
        .verbs = verbs_all,
        .subresources = apps_subresources,
        .schema = &schema_replica_set,
        .field_labels = config_fields,
        .columns = replica_set_columns,
        .n_columns = REPLICA_SET_COLUMNS,
        .table_row = replica_set_table_row,
        .strategy = &replica_set_strategy,
};

static const struct api_resource deployments = {
        .group = "apps",
        .version = "v1",
        .api_version = "apps/v1",
        .plural = "deployments",
        .singular = "deployment",
        .kind = "Deployment",
        .list_kind = "DeploymentList",
        .namespaced = true,
        .short_names = deploy_short,
        .categories = pod_categories,
        .verbs = verbs_all,
        .subresources = apps_subresources,
        .schema = &schema_deployment,
        .field_labels = config_fields,
        .columns = deployment_columns,
        .n_columns = DEPLOYMENT_COLUMNS,
        .table_row = deployment_table_row,
        .strategy = &deployment_strategy,
};

static const char *const sts_short[] = { "sts", NULL };

static const struct api_resource statefulsets = {
        .group = "apps",
        .version = "v1",
        .api_version = "apps/v1",
        .plural = "statefulsets",
        .singular = "statefulset",
        .kind = "StatefulSet",
        .list_kind = "StatefulSetList",
        .namespaced = true,
        .short_names = sts_short,
        .categories = pod_categories,
        .verbs = verbs_all,
        .subresources = apps_subresources,
        .schema = &schema_stateful_set,
        .field_labels = config_fields,
        .columns = stateful_set_columns,
        .n_columns = STATEFUL_SET_COLUMNS,
        .table_row = stateful_set_table_row,
        .strategy = &stateful_set_strategy,
};

static const char *const ds_short[] = { "ds", NULL };

static const struct api_resource daemonsets = {
        .group = "apps",
        .version = "v1",
        .api_version = "apps/v1",
        .plural = "daemonsets",
        .singular = "daemonset",
        .kind = "DaemonSet",
        .list_kind = "DaemonSetList",
        .namespaced = true,
        .short_names = ds_short,
        .categories = pod_categories,
        .verbs = verbs_all,
        .subresources = status_only,
        .schema = &schema_daemon_set,
        .field_labels = config_fields,
        .columns = daemon_set_columns,
        .n_columns = DAEMON_SET_COLUMNS,
        .table_row = daemon_set_table_row,
        .strategy = &daemon_set_strategy,
};

/* K8S: pkg/registry/apps/controllerrevision: no short name, no category, no subresource. */
static const struct api_resource controllerrevisions = {
        .group = "apps",
        .version = "v1",
        .api_version = "apps/v1",
        .plural = "controllerrevisions",
        .singular = "controllerrevision",
        .kind = "ControllerRevision",
        .list_kind = "ControllerRevisionList",
        .namespaced = true,
        .verbs = verbs_all,
        .schema = &schema_controller_revision,
        .field_labels = config_fields,
        .columns = controller_revision_columns,
        .n_columns = CONTROLLER_REVISION_COLUMNS,
        .table_row = controller_revision_table_row,
        .strategy = &controller_revision_strategy,
};

/* K8S: rbac.authorization.k8s.io/v1 (pkg/registry/rbac/rest/storage_rbac.go): no short names, no
 * subresources; metadata.name and metadata.namespace are the field selectors. */
static const struct api_resource roles = {
        .group = "rbac.authorization.k8s.io",
        .version = "v1",
        .api_version = "rbac.authorization.k8s.io/v1",
        .plural = "roles",
        .singular = "role",
        .kind = "Role",
        .list_kind = "RoleList",
        .namespaced = true,
        .verbs = verbs_all,
        .schema = &schema_role,
        .field_labels = config_fields,
        .columns = role_columns,
        .n_columns = ROLE_COLUMNS,
        .table_row = role_table_row,
        .strategy = &role_strategy,
};

static const struct api_resource clusterroles = {
        .group = "rbac.authorization.k8s.io",
        .version = "v1",
        .api_version = "rbac.authorization.k8s.io/v1",
        .plural = "clusterroles",
        .singular = "clusterrole",
        .kind = "ClusterRole",
        .list_kind = "ClusterRoleList",
        .namespaced = false,
        .verbs = verbs_all,
        .schema = &schema_cluster_role,
        .field_labels = config_fields,
        .columns = role_columns,
        .n_columns = ROLE_COLUMNS,
        .table_row = role_table_row,
        .strategy = &cluster_role_strategy,
};

static const struct api_resource rolebindings = {
        .group = "rbac.authorization.k8s.io",
        .version = "v1",
        .api_version = "rbac.authorization.k8s.io/v1",
        .plural = "rolebindings",
        .singular = "rolebinding",
        .kind = "RoleBinding",
        .list_kind = "RoleBindingList",
        .namespaced = true,
        .verbs = verbs_all,
        .schema = &schema_role_binding,
        .field_labels = config_fields,
        .columns = role_binding_columns,
        .n_columns = ROLE_BINDING_COLUMNS,
        .table_row = role_binding_table_row,
        .strategy = &role_binding_strategy,
};

static const struct api_resource clusterrolebindings = {
        .group = "rbac.authorization.k8s.io",
        .version = "v1",
        .api_version = "rbac.authorization.k8s.io/v1",
        .plural = "clusterrolebindings",
        .singular = "clusterrolebinding",
        .kind = "ClusterRoleBinding",
        .list_kind = "ClusterRoleBindingList",
        .namespaced = false,
        .verbs = verbs_all,
        .schema = &schema_cluster_role_binding,
        .field_labels = config_fields,
        .columns = role_binding_columns,
        .n_columns = ROLE_BINDING_COLUMNS,
        .table_row = role_binding_table_row,
        .strategy = &cluster_role_binding_strategy,
};

/* K8S: metrics.k8s.io/v1beta1 as metrics-server registers it (pkg/api/install.go): get and
 * list, never stored (resource-metrics.h) */
static const char *const verbs_get_list[] = { "get", "list", NULL };

static const struct api_resource node_metrics = {
        .group = "metrics.k8s.io",
        .version = "v1beta1",
        .api_version = "metrics.k8s.io/v1beta1",
        .plural = "nodes",
        .singular = "",
        .kind = "NodeMetrics",
        .list_kind = "NodeMetricsList",
        .namespaced = false,
        .verbs = verbs_get_list,
        .schema = &schema_node_metrics,
        .field_labels = config_fields,
        .serve_read = resource_metrics_serve,
};

static const struct api_resource pod_metrics = {
        .group = "metrics.k8s.io",
        .version = "v1beta1",
        .api_version = "metrics.k8s.io/v1beta1",
        .plural = "pods",
        .singular = "",
        .kind = "PodMetrics",
        .list_kind = "PodMetricsList",
        .namespaced = true,
        .verbs = verbs_get_list,
        .schema = &schema_pod_metrics,
        .field_labels = config_fields,
        .serve_read = resource_metrics_serve,
};

const struct api_resource *const api_resources[] = {
        &pods,
        &namespaces,
        &nodes,
        &events,
        &persistentvolumes,
        &persistentvolumeclaims,
        &storageclasses,
        &configmaps,
        &secrets,
        &serviceaccounts,
        &limitranges,
        &jobs,
        &selfsubjectreviews,
        &resourcequotas,
        &poddisruptionbudgets,
        &tokenreviews,
        &subjectaccessreviews,
        &selfsubjectaccessreviews,
        &localsubjectaccessreviews,
        &selfsubjectrulesreviews,
        &leases,
        &certificatesigningrequests,
        &replicasets,
        &deployments,
        &statefulsets,
        &daemonsets,
        &controllerrevisions,
        &roles,
        &clusterroles,
        &rolebindings,
        &clusterrolebindings,
        &node_metrics,
        &pod_metrics,
};
const size_t n_api_resources = ARRAY_SIZE(api_resources);

const struct api_resource *api_resource_by_plural(const char *group, const char *plural)
{
        for (size_t i = 0; i < n_api_resources; i++)
                if (streq(api_resources[i]->group, group) &&
                    streq(api_resources[i]->plural, plural))
                        return api_resources[i];
        return NULL;
}

const struct api_resource *api_resource_by_kind(const char *group, const char *kind)
{
        for (size_t i = 0; i < n_api_resources; i++)
                if (streq(api_resources[i]->group, group) && streq(api_resources[i]->kind, kind))
                        return api_resources[i];
        return NULL;
}

static const char *const subresource_names[API_SUB_MAX] = {
        [API_SUB_NONE] = "",
        [API_SUB_STATUS] = "status",
        [API_SUB_RESIZE] = "resize",
        [API_SUB_BINDING] = "binding",
        [API_SUB_LOG] = "log",
        [API_SUB_FINALIZE] = "finalize",
        [API_SUB_EVICTION] = "eviction",
        [API_SUB_TOKEN] = "token",
        [API_SUB_SCALE] = "scale",
        [API_SUB_APPROVAL] = "approval",
        [API_SUB_EXEC] = "exec",
        [API_SUB_ATTACH] = "attach",
        [API_SUB_PORTFORWARD] = "portforward",
};

const char *api_subresource_name(enum api_subresource sub)
{
        return sub < API_SUB_MAX ? subresource_names[sub] : "";
}

int api_subresource_parse(const char *s, enum api_subresource *ret)
{
        for (int i = API_SUB_NONE + 1; i < API_SUB_MAX; i++)
                if (streq(s, subresource_names[i])) {
                        *ret = (enum api_subresource) i;
                        return 0;
                }
        return -ENOENT;
}

bool api_resource_has_subresource(const struct api_resource *r, const char *sub)
{
        for (const char *const *s = r->subresources; s && *s; s++)
                if (streq(*s, sub))
                        return true;
        return false;
}
