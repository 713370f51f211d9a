/* pod-config.h: what a container's environment reads from ConfigMaps and Secrets (K8S:
 * kubelet_pods.go makeEnvironmentVariables, 1.33): envFrom (configMapRef / secretRef with
 * prefix and optional) and env[].valueFrom.configMapKeyRef / secretKeyRef. The objects come
 * through a lookup the agent backs with its informer; nothing here does I/O of its own. An
 * error is the kubelet's message, which the pod worker reports as CreateContainerConfigError. */
#ifndef FLEXLET_NODE_POD_CONFIG_H
#define FLEXLET_NODE_POD_CONFIG_H

#include <jansson.h>
#include <stdbool.h>

#include "base/error.h"

/* Reads object name of resource ("configmaps" or "secrets") in namespace ns: a new reference
 * (not to be modified). -ENOENT with upstream's NotFound message (`configmap "x" not found`,
 * `secret "x" not found`) when it does not exist; any other error (not listed yet) with its
 * own message. */
typedef int (*pod_object_lookup_fn)(void *ud, const char *resource, const char *ns,
                                    const char *name, json_t **ret, struct error **reterr);

/* K8S: the envFrom half of makeEnvironmentVariables: for each envFrom entry in order, every key
 * of the ConfigMap's data (Secret's data, base64-decoded) with the entry's prefix. A name that
 * is not a valid environment variable name (RelaxedEnvironmentVariableValidation: printable
 * ASCII other than '=', not empty) is skipped, and *ret_warnings gets one message per source for
 * the InvalidEnvironmentVariableNames event ("Keys [a, b] from the EnvFrom configMap ns/x were
 * skipped since they are considered invalid environment variable names."). A missing optional
 * object is skipped. On success *ret_vars is a new JSON object name -> value (a later source
 * wins; env entries override it afterwards) and *ret_warnings a new JSON array of strings. On
 * failure (-ENOENT, ...) *reterr holds the kubelet's message. */
int pod_config_env_from(const json_t *pod, const json_t *container, pod_object_lookup_fn lookup,
                        void *ud, json_t **ret_vars, json_t **ret_warnings, struct error **reterr);

/* K8S: one env[].valueFrom.configMapKeyRef or secretKeyRef (from: the valueFrom object).
 * Returns 1 and a malloc'd value in *ret_value, 0 when the reference is optional and its object
 * or key is missing (the variable is left out), or a negative errno with the kubelet's message:
 * the lookup's for a missing object, `couldn't find key K in ConfigMap NS/NAME` (`in Secret`)
 * for a missing key. -EINVAL when from has neither reference. */
int pod_config_env_value(const json_t *pod, const json_t *from, pod_object_lookup_fn lookup,
                         void *ud, char **ret_value, struct error **reterr);

/* Whether name is a valid environment variable name (see pod_config_env_from). */
bool pod_config_env_name_valid(const char *name);

#endif
