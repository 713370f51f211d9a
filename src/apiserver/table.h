/* table.h: metav1.Table responses (`kubectl get`'s columns) with upstream's column sets and
 * cell rules (pkg/printers/internalversion/printers.go). */
#ifndef FLEXLET_APISERVER_TABLE_H
#define FLEXLET_APISERVER_TABLE_H

#include <jansson.h>
#include <stdbool.h>
#include <time.h>

#include "apiserver/resources.h"

enum table_include {
        TABLE_INCLUDE_METADATA, /* rows[].object is PartialObjectMetadata (the default) */
        TABLE_INCLUDE_OBJECT,
        TABLE_INCLUDE_NONE,
};
int table_include_from_string(const char *s, enum table_include *ret);

/* A Table of items (borrowed JSON array). with_columns false gives "columnDefinitions": null,
 * as watch events after the first. rv may be NULL (watch rows carry no list version). */
json_t *table_build(const struct api_resource *r, const json_t *items, bool with_columns,
                    enum table_include include, const char *rv);

/* batch/v1 Job (apiserver/table-batch.c) */
#define JOB_COLUMNS 8
extern const struct table_column job_columns[JOB_COLUMNS];
void job_table_row(const json_t *job, time_t now, json_t *cells);

#define POD_COLUMNS       9
#define NAMESPACE_COLUMNS 3
#define NODE_COLUMNS      10
#define EVENT_COLUMNS     10
extern const struct table_column pod_columns[POD_COLUMNS];
extern const struct table_column namespace_columns[NAMESPACE_COLUMNS];
extern const struct table_column node_columns[NODE_COLUMNS];
extern const struct table_column event_columns[EVENT_COLUMNS];
void pod_table_row(const json_t *pod, time_t now, json_t *cells);
void namespace_table_row(const json_t *ns, time_t now, json_t *cells);
void node_table_row(const json_t *node, time_t now, json_t *cells);
void event_table_row(const json_t *ev, time_t now, json_t *cells);

/* storage (K8S: printStorageClass, printPersistentVolume, printPersistentVolumeClaim) */
#define STORAGE_CLASS_COLUMNS           6
#define PERSISTENT_VOLUME_COLUMNS       11
#define PERSISTENT_VOLUME_CLAIM_COLUMNS 9
extern const struct table_column storage_class_columns[STORAGE_CLASS_COLUMNS];
extern const struct table_column persistent_volume_columns[PERSISTENT_VOLUME_COLUMNS];
extern const struct table_column persistent_volume_claim_columns[PERSISTENT_VOLUME_CLAIM_COLUMNS];
void storage_class_table_row(const json_t *sc, time_t now, json_t *cells);
void persistent_volume_table_row(const json_t *pv, time_t now, json_t *cells);
void persistent_volume_claim_table_row(const json_t *pvc, time_t now, json_t *cells);

/* configuration (K8S: printConfigMap, printSecret, printServiceAccount) */
#define CONFIG_MAP_COLUMNS      3
#define SECRET_COLUMNS          4
#define SERVICE_ACCOUNT_COLUMNS 3
extern const struct table_column config_map_columns[CONFIG_MAP_COLUMNS];
extern const struct table_column secret_columns[SECRET_COLUMNS];
extern const struct table_column service_account_columns[SERVICE_ACCOUNT_COLUMNS];
void config_map_table_row(const json_t *cm, time_t now, json_t *cells);
void secret_table_row(const json_t *secret, time_t now, json_t *cells);
void service_account_table_row(const json_t *sa, time_t now, json_t *cells);

/* K8S: limitRangeColumnDefinitions, printLimitRange */
#define LIMIT_RANGE_COLUMNS 2
extern const struct table_column limit_range_columns[LIMIT_RANGE_COLUMNS];
void limit_range_table_row(const json_t *lr, time_t now, json_t *cells);
/* quotas (K8S: printResourceQuota) */
#define RESOURCE_QUOTA_COLUMNS 4
extern const struct table_column resource_quota_columns[RESOURCE_QUOTA_COLUMNS];
void resource_quota_table_row(const json_t *rq, time_t now, json_t *cells);
/* policy (K8S: printPodDisruptionBudget) */
#define POD_DISRUPTION_BUDGET_COLUMNS 5
extern const struct table_column pod_disruption_budget_columns[POD_DISRUPTION_BUDGET_COLUMNS];
void pod_disruption_budget_table_row(const json_t *pdb, time_t now, json_t *cells);

#define CERTIFICATE_SIGNING_REQUEST_COLUMNS 6
extern const struct table_column
        certificate_signing_request_columns[CERTIFICATE_SIGNING_REQUEST_COLUMNS];
void certificate_signing_request_table_row(const json_t *csr, time_t now, json_t *cells);
#define LEASE_COLUMNS 3
extern const struct table_column lease_columns[LEASE_COLUMNS];
void lease_table_row(const json_t *lease, time_t now, json_t *cells);
/* apps (K8S: printDeployment, printReplicaSet) */
#define DEPLOYMENT_COLUMNS 8
extern const struct table_column deployment_columns[DEPLOYMENT_COLUMNS];
void deployment_table_row(const json_t *d, time_t now, json_t *cells);
#define REPLICA_SET_COLUMNS 8
extern const struct table_column replica_set_columns[REPLICA_SET_COLUMNS];
void replica_set_table_row(const json_t *rs, time_t now, json_t *cells);
/* apps/v1 StatefulSet, ControllerRevision (apiserver/table-statefulset.c; K8S: printStatefulSet,
 * printControllerRevision) */
#define STATEFUL_SET_COLUMNS        5
#define CONTROLLER_REVISION_COLUMNS 4
extern const struct table_column stateful_set_columns[STATEFUL_SET_COLUMNS];
extern const struct table_column controller_revision_columns[CONTROLLER_REVISION_COLUMNS];
void stateful_set_table_row(const json_t *sts, time_t now, json_t *cells);
/* K8S: printDaemonSet */
#define DAEMON_SET_COLUMNS 11
extern const struct table_column daemon_set_columns[DAEMON_SET_COLUMNS];
void daemon_set_table_row(const json_t *ds, time_t now, json_t *cells);
void controller_revision_table_row(const json_t *cr, time_t now, json_t *cells);
/* RBAC (K8S: printRole, printClusterRole, printRoleBinding, printClusterRoleBinding) */
#define ROLE_COLUMNS         2
#define ROLE_BINDING_COLUMNS 6
extern const struct table_column role_columns[ROLE_COLUMNS];
extern const struct table_column role_binding_columns[ROLE_BINDING_COLUMNS];
void role_table_row(const json_t *role, time_t now, json_t *cells);
void role_binding_table_row(const json_t *binding, time_t now, json_t *cells);

#endif
