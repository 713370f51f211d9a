/* rbac-bootstrap.c: the bootstrap policy, kube-apiserver's default ClusterRoles and
 * ClusterRoleBindings (K8S: plugin/pkg/auth/authorizer/rbac/bootstrappolicy policy.go,
 * testdata/cluster-roles.yaml and cluster-role-bindings.yaml, release 1.33), and its
 * reconciliation at every start as upstream's rbac/bootstrap-roles post-start hook does it
 * (pkg/registry/rbac/rest/storage_rbac.go, pkg/registry/rbac/reconciliation). Only the roles
 * flexlet's users and components need are here: cluster-admin, admin/edit/view and what they
 * aggregate, the discovery, basic-user, public-info-viewer and monitoring roles, the roles
 * of the scheduler (and volume scheduler), the controller manager, node bootstrapping, and the
 * system:controller: role of each controller flexlet runs (controller_policy.go, and the
 * token cleaner's Role in kube-system, namespace_policy.go). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "apiserver/rbac.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/timeutil.h"
#include "base/uuid.h"
#include "store/store.h"

#define RBAC_GROUP "rbac.authorization.k8s.io"
#define AUTOUPDATE "rbac.authorization.kubernetes.io/autoupdate"

/* One PolicyRule, each list comma-separated ("" is the core group; NULL none). */
struct policy_rule {
        const char *verbs, *groups, *resources, *names, *urls;
};

struct policy_role {
        const char *name;
        const char *aggregate_to; /* "aggregate-to-admin": the label that aggregates it; NULL */
        const char *aggregates;   /* the label its aggregationRule selects; NULL: not aggregated */
        const struct policy_rule *rules;
};

/* One ClusterRoleBinding to the ClusterRole of the same name, its subjects of one kind. */
struct policy_binding {
        const char *name, *role, *kind, *subjects;
};

/* K8S: bootstrappolicy's Read, Write and ReadWrite verb sets */
#define READ       "get,list,watch"
#define WRITE      "create,delete,deletecollection,patch,update"
#define READ_WRITE "create,delete,deletecollection,get,list,patch,update,watch"

/* clang-format off */
static const struct policy_rule cluster_admin_rules[] = {
        { "*", "*", "*", NULL, NULL },
        { "*", NULL, NULL, NULL, "*" },
        { .verbs = NULL },
};

static const struct policy_rule discovery_rules[] = {
        { "get", NULL, NULL, NULL, "/api,/api/*,/apis,/apis/*,/healthz,/livez,/openapi,/openapi/*,/readyz,/version,/version/" },
        { .verbs = NULL },
};

static const struct policy_rule basic_user_rules[] = {
        { "create", "authorization.k8s.io", "selfsubjectaccessreviews,selfsubjectrulesreviews", NULL, NULL },
        { "create", "authentication.k8s.io", "selfsubjectreviews", NULL, NULL },
        { .verbs = NULL },
};

static const struct policy_rule public_info_viewer_rules[] = {
        { "get", NULL, NULL, NULL, "/healthz,/livez,/readyz,/version,/version/" },
        { .verbs = NULL },
};

static const struct policy_rule monitoring_rules[] = {
        { "get", NULL, NULL, NULL, "/healthz,/healthz/*,/livez,/livez/*,/metrics,/metrics/slis,/readyz,/readyz/*" },
        { .verbs = NULL },
};

static const struct policy_rule aggregate_to_admin_rules[] = {
        { "create", "authorization.k8s.io", "localsubjectaccessreviews", NULL, NULL },
        { READ_WRITE, "rbac.authorization.k8s.io", "rolebindings,roles", NULL, NULL },
        { .verbs = NULL },
};

static const struct policy_rule aggregate_to_edit_rules[] = {
        { READ, "", "pods/attach,pods/exec,pods/portforward,pods/proxy,secrets,services/proxy", NULL, NULL },
        { "impersonate", "", "serviceaccounts", NULL, NULL },
        { WRITE, "", "pods,pods/attach,pods/exec,pods/portforward,pods/proxy", NULL, NULL },
        { "create", "", "pods/eviction", NULL, NULL },
        { WRITE, "", "configmaps,events,persistentvolumeclaims,replicationcontrollers,replicationcontrollers/scale,secrets,serviceaccounts,services,services/proxy", NULL, NULL },
        { "create", "", "serviceaccounts/token", NULL, NULL },
        { WRITE, "apps", "daemonsets,deployments,deployments/rollback,deployments/scale,replicasets,replicasets/scale,statefulsets,statefulsets/scale", NULL, NULL },
        { WRITE, "autoscaling", "horizontalpodautoscalers", NULL, NULL },
        { WRITE, "batch", "cronjobs,jobs", NULL, NULL },
        { WRITE, "extensions", "daemonsets,deployments,deployments/rollback,deployments/scale,ingresses,networkpolicies,replicasets,replicasets/scale,replicationcontrollers/scale", NULL, NULL },
        { WRITE, "policy", "poddisruptionbudgets", NULL, NULL },
        { WRITE, "networking.k8s.io", "ingresses,networkpolicies", NULL, NULL },
        { READ_WRITE, "coordination.k8s.io", "leases", NULL, NULL },
        { .verbs = NULL },
};

static const struct policy_rule aggregate_to_view_rules[] = {
        { READ, "", "configmaps,endpoints,persistentvolumeclaims,persistentvolumeclaims/status,pods,replicationcontrollers,replicationcontrollers/scale,serviceaccounts,services,services/status", NULL, NULL },
        { READ, "", "bindings,events,limitranges,namespaces/status,pods/log,pods/status,replicationcontrollers/status,resourcequotas,resourcequotas/status", NULL, NULL },
        { READ, "", "namespaces", NULL, NULL },
        { READ, "discovery.k8s.io", "endpointslices", NULL, NULL },
        { READ, "apps", "controllerrevisions,daemonsets,daemonsets/status,deployments,deployments/scale,deployments/status,replicasets,replicasets/scale,replicasets/status,statefulsets,statefulsets/scale,statefulsets/status", NULL, NULL },
        { READ, "autoscaling", "horizontalpodautoscalers,horizontalpodautoscalers/status", NULL, NULL },
        { READ, "batch", "cronjobs,cronjobs/status,jobs,jobs/status", NULL, NULL },
        { READ, "extensions", "daemonsets,daemonsets/status,deployments,deployments/scale,deployments/status,ingresses,ingresses/status,networkpolicies,replicasets,replicasets/scale,replicasets/status,replicationcontrollers/scale", NULL, NULL },
        { READ, "policy", "poddisruptionbudgets,poddisruptionbudgets/status", NULL, NULL },
        { READ, "networking.k8s.io", "ingresses,ingresses/status,networkpolicies", NULL, NULL },
        { .verbs = NULL },
};

/* K8S metrics-server manifests: system:aggregated-metrics-reader, labelled to aggregate into
 * view, edit and admin (here through view, which edit and admin aggregate) */
static const struct policy_rule aggregated_metrics_reader_rules[] = {
        { READ, "metrics.k8s.io", "nodes,pods", NULL, NULL },
        { .verbs = NULL },
};

static const struct policy_rule kube_scheduler_rules[] = {
        { "create,patch,update", ",events.k8s.io", "events", NULL, NULL },
        { "create", "coordination.k8s.io", "leases", NULL, NULL },
        { "get,update", "coordination.k8s.io", "leases", "kube-scheduler", NULL },
        { READ, "", "nodes", NULL, NULL },
        { "delete,get,list,watch", "", "pods", NULL, NULL },
        { "create", "", "bindings,pods/binding", NULL, NULL },
        { "patch,update", "", "pods/status", NULL, NULL },
        { READ, "", "replicationcontrollers,services", NULL, NULL },
        { READ, "apps,extensions", "replicasets", NULL, NULL },
        { READ, "apps", "statefulsets", NULL, NULL },
        { READ, "policy", "poddisruptionbudgets", NULL, NULL },
        { READ, "", "persistentvolumeclaims,persistentvolumes", NULL, NULL },
        { "create", "authentication.k8s.io", "tokenreviews", NULL, NULL },
        { "create", "authorization.k8s.io", "subjectaccessreviews", NULL, NULL },
        { READ, "storage.k8s.io", "csinodes", NULL, NULL },
        { READ, "", "namespaces", NULL, NULL },
        { READ, "storage.k8s.io", "csidrivers", NULL, NULL },
        { READ, "storage.k8s.io", "csistoragecapacities", NULL, NULL },
        { .verbs = NULL },
};

static const struct policy_rule kube_controller_manager_rules[] = {
        { "create,patch,update", ",events.k8s.io", "events", NULL, NULL },
        { "create", "coordination.k8s.io", "leases", NULL, NULL },
        { "get,update", "coordination.k8s.io", "leases", "kube-controller-manager", NULL },
        { "create", "", "secrets,serviceaccounts", NULL, NULL },
        { "delete", "", "secrets", NULL, NULL },
        { "get", "", "configmaps,namespaces,secrets,serviceaccounts", NULL, NULL },
        { "update", "", "secrets,serviceaccounts", NULL, NULL },
        { "create", "authentication.k8s.io", "tokenreviews", NULL, NULL },
        { "create", "authorization.k8s.io", "subjectaccessreviews", NULL, NULL },
        { "list,watch", "*", "*", NULL, NULL },
        { "create", "", "serviceaccounts/token", NULL, NULL },
        { .verbs = NULL },
};

static const struct policy_rule volume_scheduler_rules[] = {
        { "get,list,watch,update,patch", "", "persistentvolumes", NULL, NULL },
        { READ, "storage.k8s.io", "storageclasses", NULL, NULL },
        { "get,list,watch,update,patch", "", "persistentvolumeclaims", NULL, NULL },
        { .verbs = NULL },
};

/* K8S: controller_policy.go, the system:controller: roles of the controllers flexlet runs, each
 * bound to the service account of the same name in kube-system. Where a flexlet controller
 * writes something upstream's does not, the rule is marked "flexlet:" (docs/rbac.md). */
#define EVENTS_RULE { "create,update,patch", ",events.k8s.io", "events", NULL, NULL }

static const struct policy_rule clusterrole_aggregation_rules[] = {
        { "escalate,get,list,watch,update,patch", RBAC_GROUP, "clusterroles", NULL, NULL },
        { .verbs = NULL },
};

static const struct policy_rule deployment_controller_rules[] = {
        { "get,list,watch,update", "extensions,apps", "deployments", NULL, NULL },
        { "update", "extensions,apps", "deployments/status", NULL, NULL },
        { "update", "extensions,apps", "deployments/finalizers", NULL, NULL },
        { "get,list,watch,create,update,patch,delete", "apps,extensions", "replicasets", NULL, NULL },
        { "get,list,watch,update", "", "pods", NULL, NULL },
        EVENTS_RULE,
        /* flexlet: the revision annotation is written with a merge patch */
        { "patch", "apps", "deployments", NULL, NULL },
        { .verbs = NULL },
};

static const struct policy_rule disruption_controller_rules[] = {
        { READ, "extensions,apps", "deployments", NULL, NULL },
        { READ, "apps,extensions", "replicasets", NULL, NULL },
        { READ, "", "replicationcontrollers", NULL, NULL },
        { READ, "policy", "poddisruptionbudgets", NULL, NULL },
        { READ, "apps", "statefulsets", NULL, NULL },
        { "update", "policy", "poddisruptionbudgets/status", NULL, NULL },
        { "patch,update", "", "pods/status", NULL, NULL },
        { "get", "*", "*/scale", NULL, NULL },
        EVENTS_RULE,
        { .verbs = NULL },
};

static const struct policy_rule expand_controller_rules[] = {
        { "get,list,watch,update,patch", "", "persistentvolumes", NULL, NULL },
        { "update,patch", "", "persistentvolumeclaims/status", NULL, NULL },
        { READ, "", "persistentvolumeclaims", NULL, NULL },
        EVENTS_RULE,
        { "get", "", "services", NULL, NULL },
        { .verbs = NULL },
};

static const struct policy_rule generic_garbage_collector_rules[] = {
        { "get,list,watch,patch,update,delete", "*", "*", NULL, NULL },
        EVENTS_RULE,
        { .verbs = NULL },
};

static const struct policy_rule job_controller_rules[] = {
        { "get,list,watch,update,patch", "batch", "jobs", NULL, NULL },
        { "update", "batch", "jobs/status", NULL, NULL },
        { "update", "batch", "jobs/finalizers", NULL, NULL },
        { "list,watch,create,delete,patch", "", "pods", NULL, NULL },
        EVENTS_RULE,
        { .verbs = NULL },
};

static const struct policy_rule namespace_controller_rules[] = {
        { "get,list,watch,delete", "", "namespaces", NULL, NULL },
        { "update", "", "namespaces/finalize,namespaces/status", NULL, NULL },
        { "get,list,watch,delete,deletecollection", "*", "*", NULL, NULL },
        { .verbs = NULL },
};

static const struct policy_rule node_controller_rules[] = {
        { "get,list,watch,update,delete,patch", "", "nodes", NULL, NULL },
        { "patch,update", "", "nodes/status", NULL, NULL },
        { "patch,update", "", "pods/status", NULL, NULL },
        { "list,watch,get,delete", "", "pods", NULL, NULL },
        EVENTS_RULE,
        { .verbs = NULL },
};

static const struct policy_rule persistent_volume_binder_rules[] = {
        { "get,list,watch,update,create,delete", "", "persistentvolumes", NULL, NULL },
        { "update", "", "persistentvolumes/status", NULL, NULL },
        { "get,list,watch,update", "", "persistentvolumeclaims", NULL, NULL },
        { "update", "", "persistentvolumeclaims/status", NULL, NULL },
        { "list,watch,get,create,delete", "", "pods", NULL, NULL },
        { READ, "storage.k8s.io", "storageclasses", NULL, NULL },
        { "list,watch", "", "nodes", NULL, NULL },
        EVENTS_RULE,
        { "watch", "", "events", NULL, NULL },
        { "get", "", "services", NULL, NULL },
        /* flexlet: the local-loop provisioner checks the claim's selected node exists, as an
         * external provisioner (sig-storage-lib-external-provisioner) does */
        { "get", "", "nodes", NULL, NULL },
        { .verbs = NULL },
};

static const struct policy_rule replicaset_controller_rules[] = {
        { "get,list,watch,update", "apps,extensions", "replicasets", NULL, NULL },
        { "update", "apps,extensions", "replicasets/status", NULL, NULL },
        { "update", "apps,extensions", "replicasets/finalizers", NULL, NULL },
        { "list,watch,patch,create,delete", "", "pods", NULL, NULL },
        EVENTS_RULE,
        { .verbs = NULL },
};

static const struct policy_rule resourcequota_controller_rules[] = {
        { "list,watch", "*", "*", NULL, NULL },
        { "update", "", "resourcequotas/status", NULL, NULL },
        EVENTS_RULE,
        { .verbs = NULL },
};

static const struct policy_rule service_account_controller_rules[] = {
        { "create", "", "serviceaccounts", NULL, NULL },
        EVENTS_RULE,
        { .verbs = NULL },
};

static const struct policy_rule pvc_protection_controller_rules[] = {
        { "get,list,watch,update", "", "persistentvolumeclaims", NULL, NULL },
        { "list,watch,get", "", "pods", NULL, NULL },
        EVENTS_RULE,
        { .verbs = NULL },
};

static const struct policy_rule pv_protection_controller_rules[] = {
        { "get,list,watch,update", "", "persistentvolumes", NULL, NULL },
        EVENTS_RULE,
        { .verbs = NULL },
};

static const struct policy_rule ttl_after_finished_controller_rules[] = {
        { "get,list,watch,delete", "batch", "jobs", NULL, NULL },
        EVENTS_RULE,
        { .verbs = NULL },
};

/* K8S: controller_policy.go, daemon-set-controller */
static const struct policy_rule daemon_set_controller_rules[] = {
        { "get,list,watch", "extensions,apps", "daemonsets", NULL, NULL },
        { "update", "extensions,apps", "daemonsets/status", NULL, NULL },
        { "update", "extensions,apps", "daemonsets/finalizers", NULL, NULL },
        { "list,watch", "", "nodes", NULL, NULL },
        { "list,watch,create,delete,patch", "", "pods", NULL, NULL },
        { "create", "", "pods/binding", NULL, NULL },
        { "get,list,watch,create,delete,update,patch", "apps", "controllerrevisions", NULL, NULL },
        EVENTS_RULE,
        { .verbs = NULL },
};

/* K8S: controller_policy.go, statefulset-controller */
static const struct policy_rule statefulset_controller_rules[] = {
        { "list,watch", "", "pods", NULL, NULL },
        { "get,list,watch", "apps", "statefulsets", NULL, NULL },
        { "update", "apps", "statefulsets/status", NULL, NULL },
        { "update", "apps", "statefulsets/finalizers", NULL, NULL },
        { "get,create,delete,update,patch", "", "pods", NULL, NULL },
        { "get,create,delete,update,patch,list,watch", "apps", "controllerrevisions", NULL, NULL },
        { "get,create", "", "persistentvolumeclaims", NULL, NULL },
        { "update,patch", "", "persistentvolumeclaims", NULL, NULL },
        EVENTS_RULE,
        { .verbs = NULL },
};

static const struct policy_rule node_routes_rules[] = {
        { "get,list,watch", "", "nodes", NULL, NULL },
        { .verbs = NULL },
};

/* K8S: controller_policy.go, certificate-controller (the approver and the signer); flexlet's
 * approver also approves kubelet-serving requests of a node for its own addresses
 * (docs/joining-nodes.md) */
static const struct policy_rule certificate_controller_rules[] = {
        { "delete,get,list,watch", "certificates.k8s.io", "certificatesigningrequests", NULL, NULL },
        { "update", "certificates.k8s.io",
          "certificatesigningrequests/status,certificatesigningrequests/approval", NULL, NULL },
        { "approve", "certificates.k8s.io", "signers",
          "kubernetes.io/kube-apiserver-client-kubelet,kubernetes.io/kubelet-serving", NULL },
        { "sign", "certificates.k8s.io", "signers",
          "kubernetes.io/legacy-unknown,kubernetes.io/kube-apiserver-client,"
          "kubernetes.io/kube-apiserver-client-kubelet,kubernetes.io/kubelet-serving",
          NULL },
        { "create", "authorization.k8s.io", "subjectaccessreviews", NULL, NULL },
        EVENTS_RULE,
        { .verbs = NULL },
};

static const struct policy_rule root_ca_cert_publisher_rules[] = {
        { "create,update", "", "configmaps", NULL, NULL },
        EVENTS_RULE,
        { .verbs = NULL },
};

/* K8S: namespace_policy.go, the Role system:controller:token-cleaner in kube-system */
static const struct policy_rule token_cleaner_rules[] = {
        { "get,list,watch,delete", "", "secrets", NULL, NULL },
        EVENTS_RULE,
        { .verbs = NULL },
};

static const struct policy_rule node_bootstrapper_rules[] = {
        { "create,get,list,watch", "certificates.k8s.io", "certificatesigningrequests", NULL, NULL },
        { .verbs = NULL },
};

/* K8S: the roles the csrapproving controller's SubjectAccessReviews ask about */
static const struct policy_rule nodeclient_rules[] = {
        { "create", "certificates.k8s.io", "certificatesigningrequests/nodeclient", NULL, NULL },
        { .verbs = NULL },
};

static const struct policy_rule selfnodeclient_rules[] = {
        { "create", "certificates.k8s.io", "certificatesigningrequests/selfnodeclient", NULL, NULL },
        { .verbs = NULL },
};

static const struct policy_role cluster_roles[] = {
        { "cluster-admin", NULL, NULL, cluster_admin_rules },
        { "system:discovery", NULL, NULL, discovery_rules },
        { "system:basic-user", NULL, NULL, basic_user_rules },
        { "system:public-info-viewer", NULL, NULL, public_info_viewer_rules },
        { "system:monitoring", NULL, NULL, monitoring_rules },
        { "admin", NULL, "aggregate-to-admin", NULL },
        { "edit", "aggregate-to-admin", "aggregate-to-edit", NULL },
        { "view", "aggregate-to-edit", "aggregate-to-view", NULL },
        { "system:aggregate-to-admin", "aggregate-to-admin", NULL, aggregate_to_admin_rules },
        { "system:aggregate-to-edit", "aggregate-to-edit", NULL, aggregate_to_edit_rules },
        { "system:aggregate-to-view", "aggregate-to-view", NULL, aggregate_to_view_rules },
        { "system:aggregated-metrics-reader", "aggregate-to-view", NULL, aggregated_metrics_reader_rules },
        { "system:kube-scheduler", NULL, NULL, kube_scheduler_rules },
        { "system:kube-controller-manager", NULL, NULL, kube_controller_manager_rules },
        { "system:node-bootstrapper", NULL, NULL, node_bootstrapper_rules },
        { "system:certificates.k8s.io:certificatesigningrequests:nodeclient", NULL, NULL, nodeclient_rules },
        { "system:certificates.k8s.io:certificatesigningrequests:selfnodeclient", NULL, NULL, selfnodeclient_rules },
        { "system:volume-scheduler", NULL, NULL, volume_scheduler_rules },
        { "system:controller:clusterrole-aggregation-controller", NULL, NULL, clusterrole_aggregation_rules },
        { "system:controller:deployment-controller", NULL, NULL, deployment_controller_rules },
        { "system:controller:disruption-controller", NULL, NULL, disruption_controller_rules },
        { "system:controller:expand-controller", NULL, NULL, expand_controller_rules },
        { "system:controller:generic-garbage-collector", NULL, NULL, generic_garbage_collector_rules },
        { "system:controller:job-controller", NULL, NULL, job_controller_rules },
        { "system:controller:namespace-controller", NULL, NULL, namespace_controller_rules },
        { "system:controller:node-controller", NULL, NULL, node_controller_rules },
        { "system:controller:persistent-volume-binder", NULL, NULL, persistent_volume_binder_rules },
        { "system:controller:pv-protection-controller", NULL, NULL, pv_protection_controller_rules },
        { "system:controller:pvc-protection-controller", NULL, NULL, pvc_protection_controller_rules },
        { "system:controller:replicaset-controller", NULL, NULL, replicaset_controller_rules },
        { "system:controller:resourcequota-controller", NULL, NULL, resourcequota_controller_rules },
        { "system:controller:root-ca-cert-publisher", NULL, NULL, root_ca_cert_publisher_rules },
        { "system:controller:service-account-controller", NULL, NULL, service_account_controller_rules },
        { "system:controller:ttl-after-finished-controller", NULL, NULL, ttl_after_finished_controller_rules },
        { "system:controller:statefulset-controller", NULL, NULL, statefulset_controller_rules },
        { "system:controller:daemon-set-controller", NULL, NULL, daemon_set_controller_rules },
        { "system:controller:certificate-controller", NULL, NULL, certificate_controller_rules },
        /* flexlet: what flannel's ClusterRole gives its per-node agent, for the node agent's
         * routes to other nodes' pods (node/route-keeper.h): the Node authorizer lets a node
         * read only its own Node */
        { "flexlet:node-routes", NULL, NULL, node_routes_rules },
};

/* K8S: namespace_policy.go: Roles in kube-system */
static const struct policy_role system_roles[] = {
        { "system:controller:token-cleaner", NULL, NULL, token_cleaner_rules },
};

static const struct policy_binding cluster_role_bindings[] = {
        { "cluster-admin", "cluster-admin", "Group", "system:masters" },
        { "system:basic-user", "system:basic-user", "Group", "system:authenticated" },
        { "system:discovery", "system:discovery", "Group", "system:authenticated" },
        { "system:kube-controller-manager", "system:kube-controller-manager", "User", "system:kube-controller-manager" },
        { "system:kube-scheduler", "system:kube-scheduler", "User", "system:kube-scheduler" },
        { "system:monitoring", "system:monitoring", "Group", "system:monitoring" },
        { "system:public-info-viewer", "system:public-info-viewer", "Group", "system:authenticated,system:unauthenticated" },
        /* K8S: what kubeadm binds for TLS bootstrapping (kubeadm:kubelet-bootstrap,
         * kubeadm:node-autoapprove-bootstrap, kubeadm:node-autoapprove-certificate-rotation),
         * under flexlet's names, to the node token's group (cmd/node-token.h) */
        { "flexlet:kubelet-bootstrap", "system:node-bootstrapper", "Group", "system:bootstrappers:flexlet:default-node-token" },
        { "flexlet:node-autoapprove-bootstrap", "system:certificates.k8s.io:certificatesigningrequests:nodeclient", "Group", "system:bootstrappers:flexlet:default-node-token" },
        { "flexlet:node-autoapprove-certificate-rotation", "system:certificates.k8s.io:certificatesigningrequests:selfnodeclient", "Group", "system:nodes" },
        { "system:volume-scheduler", "system:volume-scheduler", "User", "system:kube-scheduler" },
        { "flexlet:node-routes", "flexlet:node-routes", "Group", "system:nodes" },
        /* K8S: addControllerRole binds each to kube-system's service account of its name */
        { "system:controller:clusterrole-aggregation-controller", "system:controller:clusterrole-aggregation-controller", "ServiceAccount", "clusterrole-aggregation-controller" },
        { "system:controller:deployment-controller", "system:controller:deployment-controller", "ServiceAccount", "deployment-controller" },
        { "system:controller:disruption-controller", "system:controller:disruption-controller", "ServiceAccount", "disruption-controller" },
        { "system:controller:expand-controller", "system:controller:expand-controller", "ServiceAccount", "expand-controller" },
        { "system:controller:generic-garbage-collector", "system:controller:generic-garbage-collector", "ServiceAccount", "generic-garbage-collector" },
        { "system:controller:job-controller", "system:controller:job-controller", "ServiceAccount", "job-controller" },
        { "system:controller:namespace-controller", "system:controller:namespace-controller", "ServiceAccount", "namespace-controller" },
        { "system:controller:node-controller", "system:controller:node-controller", "ServiceAccount", "node-controller" },
        { "system:controller:persistent-volume-binder", "system:controller:persistent-volume-binder", "ServiceAccount", "persistent-volume-binder" },
        /* flexlet: one controller (storage-protection.c) protects both claims and volumes, as
         * pvc-protection-controller */
        { "system:controller:pv-protection-controller", "system:controller:pv-protection-controller", "ServiceAccount", "pv-protection-controller,pvc-protection-controller" },
        { "system:controller:pvc-protection-controller", "system:controller:pvc-protection-controller", "ServiceAccount", "pvc-protection-controller" },
        { "system:controller:replicaset-controller", "system:controller:replicaset-controller", "ServiceAccount", "replicaset-controller" },
        { "system:controller:resourcequota-controller", "system:controller:resourcequota-controller", "ServiceAccount", "resourcequota-controller" },
        { "system:controller:root-ca-cert-publisher", "system:controller:root-ca-cert-publisher", "ServiceAccount", "root-ca-cert-publisher" },
        { "system:controller:service-account-controller", "system:controller:service-account-controller", "ServiceAccount", "service-account-controller" },
        { "system:controller:ttl-after-finished-controller", "system:controller:ttl-after-finished-controller", "ServiceAccount", "ttl-after-finished-controller" },
        { "system:controller:statefulset-controller", "system:controller:statefulset-controller", "ServiceAccount", "statefulset-controller" },
        { "system:controller:daemon-set-controller", "system:controller:daemon-set-controller", "ServiceAccount", "daemon-set-controller" },
        { "system:controller:certificate-controller", "system:controller:certificate-controller", "ServiceAccount", "certificate-controller" },
};

/* K8S: namespace_policy.go: RoleBindings in kube-system, to the Role of the same name */
static const struct policy_binding system_role_bindings[] = {
        { "system:controller:token-cleaner", "system:controller:token-cleaner", "ServiceAccount", "token-cleaner" },
};
/* clang-format on */

/* "a,b" as ["a", "b"]; "" as [""]. */
static json_t *split(const char *list)
{
        json_t *out = json_array();
        const char *p = list;

        for (;;) {
                size_t n = strcspn(p, ",");

                json_array_append_new(out, json_stringn(p, n));
                if (!p[n])
                        break;
                p += n + 1;
        }
        return out;
}

static json_t *policy_rules_json(const struct policy_rule *rules)
{
        json_t *out = json_array();

        for (const struct policy_rule *r = rules; r && r->verbs; r++) {
                json_t *rule = json_pack("{s:o}", "verbs", split(r->verbs));

                if (r->groups)
                        json_object_set_new(rule, "apiGroups", split(r->groups));
                if (r->resources)
                        json_object_set_new(rule, "resources", split(r->resources));
                if (r->names)
                        json_object_set_new(rule, "resourceNames", split(r->names));
                if (r->urls)
                        json_object_set_new(rule, "nonResourceURLs", split(r->urls));
                json_array_append_new(out, rule);
        }
        return out;
}

/* K8S: every bootstrap object is labelled kubernetes.io/bootstrapping=rbac-defaults and
 * annotated autoupdate=true. */
static json_t *policy_meta(const char *name)
{
        return json_pack("{s:s, s:{s:s}, s:{s:s}}", "name", name, "labels",
                         "kubernetes.io/bootstrapping", "rbac-defaults", "annotations", AUTOUPDATE,
                         "true");
}

/* The namespace of the bootstrap Roles and RoleBindings (K8S: namespace_policy.go). */
#define SYSTEM_NAMESPACE "kube-system"

static json_t *roles_json(const struct policy_role *roles, size_t n, const char *kind,
                          const char *ns)
{
        json_t *out = json_array();

        for (size_t i = 0; i < n; i++) {
                const struct policy_role *p = &roles[i];
                json_t *role = json_pack("{s:s, s:s, s:o}", "apiVersion", RBAC_GROUP "/v1", "kind",
                                         kind, "metadata", policy_meta(p->name));

                if (ns)
                        json_object_set_new(json_object_get(role, "metadata"), "namespace",
                                            json_string(ns));
                if (p->aggregate_to) {
                        cleanup_free char *label = xasprintf(RBAC_GROUP "/%s", p->aggregate_to);
                        json_object_set_new(json_path(role, "metadata.labels"), label,
                                            json_string("true"));
                }
                if (p->aggregates) {
                        cleanup_free char *label = xasprintf(RBAC_GROUP "/%s", p->aggregates);
                        json_object_set_new(role, "aggregationRule",
                                            json_pack("{s:[{s:{s:s}}]}", "clusterRoleSelectors",
                                                      "matchLabels", label, "true"));
                }
                if (p->rules)
                        json_object_set_new(role, "rules", policy_rules_json(p->rules));
                json_array_append_new(out, role);
        }
        return out;
}

/* A subject of kind (User, Group: RBAC's group; ServiceAccount: the core group, in
 * kube-system, as upstream's SAs("kube-system", name)). */
static json_t *subject_json(const char *kind, const json_t *name)
{
        if (streq(kind, "ServiceAccount"))
                return json_pack("{s:s, s:O, s:s}", "kind", kind, "name", name, "namespace",
                                 SYSTEM_NAMESPACE);
        return json_pack("{s:s, s:s, s:O}", "kind", kind, "apiGroup", RBAC_GROUP, "name", name);
}

static json_t *bindings_json(const struct policy_binding *bindings, size_t n, const char *kind,
                             const char *role_kind, const char *ns)
{
        json_t *out = json_array();

        for (size_t i = 0; i < n; i++) {
                const struct policy_binding *p = &bindings[i];
                cleanup_json json_t *names = split(p->subjects);
                json_t *subjects = json_array();
                json_t *binding;
                size_t k;
                json_t *name;

                json_array_foreach(names, k, name)
                        json_array_append_new(subjects, subject_json(p->kind, name));
                binding = json_pack("{s:s, s:s, s:o, s:{s:s, s:s, s:s}, s:o}", "apiVersion",
                                    RBAC_GROUP "/v1", "kind", kind, "metadata",
                                    policy_meta(p->name), "roleRef", "apiGroup", RBAC_GROUP, "kind",
                                    role_kind, "name", p->role, "subjects", subjects);
                if (ns)
                        json_object_set_new(json_object_get(binding, "metadata"), "namespace",
                                            json_string(ns));
                json_array_append_new(out, binding);
        }
        return out;
}

json_t *rbac_bootstrap_cluster_roles(void)
{
        return roles_json(cluster_roles, ARRAY_SIZE(cluster_roles), "ClusterRole", NULL);
}

json_t *rbac_bootstrap_cluster_role_bindings(void)
{
        return bindings_json(cluster_role_bindings, ARRAY_SIZE(cluster_role_bindings),
                             "ClusterRoleBinding", "ClusterRole", NULL);
}

json_t *rbac_bootstrap_roles(void)
{
        return roles_json(system_roles, ARRAY_SIZE(system_roles), "Role", SYSTEM_NAMESPACE);
}

json_t *rbac_bootstrap_role_bindings(void)
{
        return bindings_json(system_role_bindings, ARRAY_SIZE(system_role_bindings), "RoleBinding",
                             "Role", SYSTEM_NAMESPACE);
}

/* ---- reconciliation ---- */

/* K8S: merge(expected, existing): the stored keys win, the expected ones are added. Whether
 * existing changed. */
static bool merge_map(json_t *existing_meta, const json_t *expected_meta, const char *key)
{
        json_t *want = json_object_get(expected_meta, key);
        json_t *have = json_object_get(existing_meta, key);
        const char *k;
        json_t *v;
        bool changed = false;

        if (!json_is_object(have)) {
                have = json_object();
                json_object_set_new(existing_meta, key, have);
        }
        json_object_foreach(want, k, v)
                if (!json_object_get(have, k)) {
                        json_object_set(have, k, v);
                        changed = true;
                }
        return changed;
}

/* K8S: computeReconciledRole without RemoveExtraPermissions: labels and annotations merged,
 * missing aggregation selectors and missing rules (broken down) added. Whether existing
 * changed. */
static bool reconcile_role(json_t *existing, const json_t *expected)
{
        json_t *meta = json_object_ensure(existing, "metadata");
        const json_t *want_meta = json_object_get(expected, "metadata");
        const json_t *want_agg = json_object_get(expected, "aggregationRule");
        json_t *missing = NULL;
        bool changed = false;

        changed |= merge_map(meta, want_meta, "labels");
        changed |= merge_map(meta, want_meta, "annotations");
        if (want_agg) {
                json_t *agg = json_object_get(existing, "aggregationRule");
                json_t *sels;
                size_t i;
                json_t *sel;

                if (!json_is_object(agg)) {
                        agg = json_object();
                        json_object_set_new(existing, "aggregationRule", agg);
                }
                sels = json_object_get(agg, "clusterRoleSelectors");
                if (!json_is_array(sels)) {
                        sels = json_array();
                        json_object_set_new(agg, "clusterRoleSelectors", sels);
                }
                json_array_foreach(json_object_get(want_agg, "clusterRoleSelectors"), i, sel) {
                        bool found = false;
                        size_t j;
                        json_t *s;

                        json_array_foreach(sels, j, s)
                                found |= json_equal(s, sel);
                        if (!found) {
                                json_array_append(sels, sel);
                                changed = true;
                        }
                }
        }
        if (!rbac_rules_cover(json_object_get(existing, "rules"),
                              json_object_get(expected, "rules"), &missing)) {
                json_t *rules = json_object_get(existing, "rules");

                if (!json_is_array(rules)) {
                        rules = json_array();
                        json_object_set_new(existing, "rules", rules);
                }
                json_array_extend(rules, missing);
                changed = true;
        }
        json_decref(missing);
        return changed;
}

static bool has_subject(const json_t *subjects, const json_t *s)
{
        size_t i;
        json_t *e;

        json_array_foreach(subjects, i, e)
                if (json_equal(e, s))
                        return true;
        return false;
}

/* K8S: computeReconciledRoleBinding without RemoveExtraSubjects: labels, annotations and
 * missing subjects added; a changed roleRef needs the binding made again (*ret_recreate). */
static bool reconcile_binding(json_t *existing, const json_t *expected, bool *ret_recreate)
{
        json_t *meta = json_object_ensure(existing, "metadata");
        const json_t *want_meta = json_object_get(expected, "metadata");
        json_t *subjects = json_object_get(existing, "subjects");
        bool changed = false;
        size_t i;
        json_t *s;

        *ret_recreate = !json_equal(json_object_get(existing, "roleRef"),
                                    json_object_get(expected, "roleRef"));
        changed |= merge_map(meta, want_meta, "labels");
        changed |= merge_map(meta, want_meta, "annotations");
        if (!json_is_array(subjects)) {
                subjects = json_array();
                json_object_set_new(existing, "subjects", subjects);
        }
        json_array_foreach(json_object_get(expected, "subjects"), i, s)
                if (!has_subject(subjects, s)) {
                        json_array_append(subjects, s);
                        changed = true;
                }
        return changed || *ret_recreate;
}

static int create(struct store *store, const char *resource, const char *ns, json_t *obj,
                  struct error **reterr)
{
        json_t *meta = json_object_get(obj, "metadata");
        char uid[UUID_STRING_LEN + 1], ts[32];

        uuid_random(uid);
        time_format_rfc3339(time(NULL), ts);
        json_object_set_new(meta, "uid", json_string(uid));
        json_object_set_new(meta, "creationTimestamp", json_string(ts));
        return store_create(store, resource, ns, json_path_string(obj, "metadata.name"), obj,
                            reterr);
}

/* One expected object of resource: created when missing, reconciled unless its autoupdate
 * annotation is "false". Retries when the store moves under it. */
static int ensure(struct store *store, const char *resource, const json_t *expected,
                  struct error **reterr)
{
        const char *name = json_path_string(expected, "metadata.name");
        const char *ns = json_path_string_or_empty(expected, "metadata.namespace");

        for (int attempt = 0; attempt < 5; attempt++) {
                cleanup_json json_t *existing = NULL;
                cleanup_json json_t *want = json_deep_copy(expected);
                const char *auto_update;
                uint64_t rv = 0;
                bool recreate = false, changed;
                int r;

                r = store_get(store, resource, ns, name, &existing, NULL);
                if (r == -ENOENT) {
                        r = create(store, resource, ns, want, reterr);
                        if (r == -EEXIST)
                                continue;
                        return r;
                }
                if (r < 0)
                        return error_set(reterr, -r, "%s \"%s\": %s", resource, name, strerror(-r));
                auto_update = json_string_value(
                        json_object_get(json_path(existing, "metadata.annotations"), AUTOUPDATE));
                /* K8S: a role or binding annotated autoupdate=false is the administrator's */
                if (auto_update && streq(auto_update, "false"))
                        return 0;
                changed = streq(resource, "clusterroles") || streq(resource, "roles")
                                  ? reconcile_role(existing, expected)
                                  : reconcile_binding(existing, expected, &recreate);
                if (!changed)
                        return 0;
                (void) store_rv_parse(
                        json_path_string_or_empty(existing, "metadata.resourceVersion"), &rv);
                if (recreate) {
                        r = store_delete(store, resource, ns, name, rv, NULL, reterr);
                        if (r == -ESTALE || r == -ENOENT)
                                continue;
                        if (r < 0)
                                return r;
                        r = create(store, resource, ns, want, reterr);
                } else {
                        r = store_update(store, resource, ns, name, existing, rv, reterr);
                }
                if (r == -ESTALE || r == -EEXIST)
                        continue;
                return r < 0 ? r : 0;
        }
        return error_set(reterr, EAGAIN, "%s \"%s\": kept changing", resource, name);
}

int rbac_bootstrap_reconcile(struct store *store, struct error **reterr)
{
        cleanup_json json_t *roles = rbac_bootstrap_cluster_roles();
        cleanup_json json_t *bindings = rbac_bootstrap_cluster_role_bindings();
        cleanup_json json_t *ns_roles = rbac_bootstrap_roles();
        cleanup_json json_t *ns_bindings = rbac_bootstrap_role_bindings();
        size_t i;
        json_t *o;
        int r;

        json_array_foreach(roles, i, o)
                if ((r = ensure(store, "clusterroles", o, reterr)) < 0)
                        return error_wrap(reterr, "bootstrap policy");
        json_array_foreach(bindings, i, o)
                if ((r = ensure(store, "clusterrolebindings", o, reterr)) < 0)
                        return error_wrap(reterr, "bootstrap policy");
        json_array_foreach(ns_roles, i, o)
                if ((r = ensure(store, "roles", o, reterr)) < 0)
                        return error_wrap(reterr, "bootstrap policy");
        json_array_foreach(ns_bindings, i, o)
                if ((r = ensure(store, "rolebindings", o, reterr)) < 0)
                        return error_wrap(reterr, "bootstrap policy");
        return 0;
}
