/* resize-json.h: what test-resize.c and test-cgroup-v2.c share to drive node/resize.h from pod
 * JSON, as the typed pod model (node/pod-spec.c) does for the agent: the desired pod's requests
 * computed before admission, the targets built before a plan. Include after <cmocka.h>. */
#ifndef FLEXLET_TESTS_UNIT_NODE_RESIZE_JSON_H
#define FLEXLET_TESTS_UNIT_NODE_RESIZE_JSON_H

#include "api/pod-resources.h"
#include "base/json.h"
#include "node/resize.h"

/* resize_admit_requests with the requests of pod at desired (-1 when they do not parse). */
static inline enum resize_verdict admit_json(const json_t *pod, const json_t *allocated,
                                             const json_t *desired, const struct resize_node *node,
                                             char **ret_message)
{
        cleanup_json json_t *dpod = resize_pod_with_allocation(pod, desired);
        int64_t cpu = -1, mem = -1;

        if (!dpod || pod_requests(dpod, &cpu, &mem) < 0)
                cpu = mem = -1;
        return resize_admit_requests(pod, allocated, desired, cpu, mem, node, ret_message);
}

/* The plan from actuated to pod at allocation: its targets built, then planned. */
static inline int plan_json(const json_t *pod, const json_t *allocation, const json_t *actuated,
                            const char *const *running, int64_t allocatable_memory,
                            bool enforce_cpu_limits, struct resize_plan *ret, struct error **reterr)
{
        struct resize_targets t = { 0 };
        int r = resize_targets_build(pod, allocation, allocatable_memory, enforce_cpu_limits, &t,
                                     reterr);

        if (r < 0)
                return r;
        r = resize_plan_from_targets(&t, actuated, running, ret, reterr);
        resize_targets_release(&t);
        return r;
}

#endif
