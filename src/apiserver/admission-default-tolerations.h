/* admission-default-tolerations.h: the DefaultTolerationSeconds admission plugin (K8S:
 * plugin/pkg/admission/defaulttolerationseconds, on by default): a pod that does not already
 * tolerate the node.kubernetes.io/not-ready or node.kubernetes.io/unreachable NoExecute taint
 * (a toleration with that key or no key, and the NoExecute effect or none) is given
 * `{key, operator: Exists, effect: NoExecute, tolerationSeconds: 300}` for it, so the taint
 * eviction controller lets it ride out a node's outage for five minutes. On create and update
 * of the pod itself, never on a subresource. (kube-apiserver's
 * --default-not-ready-toleration-seconds and --default-unreachable-toleration-seconds are not
 * offered: their default, 300, is the value.) */
#ifndef FLEXLET_APISERVER_ADMISSION_DEFAULT_TOLERATIONS_H
#define FLEXLET_APISERVER_ADMISSION_DEFAULT_TOLERATIONS_H

#include <jansson.h>

#include "apiserver/resources.h"

#define DEFAULT_TOLERATION_SECONDS 300

/* Mutating: adds the missing tolerations to pod. Always 0. */
int default_tolerations_pod_admit(enum api_subresource sub, json_t *pod);

#endif
