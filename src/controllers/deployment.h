/* deployment.h: the Deployment controller (K8S: pkg/controller/deployment,
 * DeploymentController): per Deployment, the ReplicaSets it owns (adopting orphans its
 * selector matches, releasing those it no longer matches), the new ReplicaSet named
 * "<deployment>-<pod-template-hash>" for the current template (its revision one past the
 * others'), and a rollout towards it: RollingUpdate bounded by maxSurge and maxUnavailable,
 * or Recreate (old pods gone before new ones start); scaling events spread over the active
 * ReplicaSets; paused Deployments only scaled; old ReplicaSets beyond revisionHistoryLimit
 * deleted once empty; the status with the Available and Progressing conditions and their
 * upstream reasons (NewReplicaSetCreated, FoundNewReplicaSet, ReplicaSetUpdated,
 * NewReplicaSetAvailable, ProgressDeadlineExceeded, DeploymentPaused, DeploymentResumed).
 *
 * A template is compared with a ReplicaSet's template (ignoring the pod-template-hash label),
 * never with a pod: a pod resized in place keeps its ReplicaSet; a change of the template's
 * resources is a new template, so a rollout. Rollback is kubectl's (rollout undo copies an
 * old ReplicaSet's template into the Deployment). */
#ifndef FLEXLET_CONTROLLERS_DEPLOYMENT_H
#define FLEXLET_CONTROLLERS_DEPLOYMENT_H

#include <jansson.h>
#include <stdbool.h>

#include "base/error.h"
#include "client/client.h"

/* K8S: NewRSNewReplicas for RollingUpdate: the new ReplicaSet's next size given the
 * Deployment's replicas and maxSurge (already resolved), the sum of every ReplicaSet's
 * spec.replicas, and the new one's. */
int deployment_new_rs_replicas(int replicas, int max_surge, int all_pods, int new_rs_replicas);

/* K8S: EqualIgnoreHash: two pod templates equal but for the pod-template-hash label. */
bool deployment_template_equal(const json_t *a, const json_t *b);

struct deployment_controller;

int deployment_controller_start(const struct api_client_options *o,
                                struct deployment_controller **ret, struct error **reterr);
/* NULL-safe, returns NULL. */
struct deployment_controller *deployment_controller_stop(struct deployment_controller *x);

#endif
