/* clusterrole-aggregation.h: the ClusterRole aggregation controller (K8S:
 * pkg/controller/clusterroleaggregation, kube-controller-manager's "clusterrole-aggregation"):
 * the rules of a ClusterRole with an aggregationRule are those of every other ClusterRole its
 * selectors match, by name order, each rule once. This is how admin, edit and view get their
 * rules, and how a ClusterRole labelled rbac.authorization.k8s.io/aggregate-to-view=true adds to
 * view. */
#ifndef FLEXLET_CONTROLLERS_CLUSTERROLE_AGGREGATION_H
#define FLEXLET_CONTROLLERS_CLUSTERROLE_AGGREGATION_H

#include <jansson.h>

#include "base/error.h"
#include "client/client.h"

/* The rules the aggregated ClusterRole role should hold given every ClusterRole (a snapshot's
 * values: an object or array of them): a new array; NULL when role has no aggregationRule.
 * -EINVAL (with *ret NULL) is not reported: a selector that is no selector matches nothing. */
json_t *clusterrole_aggregated_rules(const json_t *role, const json_t *roles);

struct clusterrole_aggregation;

/* Starts the controller (an informer over ClusterRoles and a pass thread). */
int clusterrole_aggregation_start(const struct api_client_options *o,
                                  struct clusterrole_aggregation **ret, struct error **reterr);
/* Stops it; NULL-safe, returns NULL. */
struct clusterrole_aggregation *clusterrole_aggregation_stop(struct clusterrole_aggregation *x);

#endif
