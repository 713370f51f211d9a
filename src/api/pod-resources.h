/* pod-resources.h: upstream's resource arithmetic over a v1 Pod: the requests a pod holds
 * (component-helpers resource.PodRequests). Exact integers: millicores and bytes. */
#ifndef FLEXLET_API_POD_RESOURCES_H
#define FLEXLET_API_POD_RESOURCES_H

#include <jansson.h>
#include <stdint.h>

/* K8S: PodRequests: the larger of (regular containers + sidecars) and, for each init
 * container, its request plus the sidecars started before it; plus spec.overhead; pod-level
 * spec.resources.requests replace the containers' sum where set. -EINVAL for an unparsable
 * quantity, -ERANGE on overflow. */
int pod_requests(const json_t *pod, int64_t *ret_milli_cpu, int64_t *ret_memory_bytes);

#endif
