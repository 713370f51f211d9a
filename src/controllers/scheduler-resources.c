/* scheduler-resources.c: the scheduler's resource plugins (K8S: pkg/scheduler/framework/plugins/
 * noderesources): what a pod holds on its node (the larger of desired and allocated per
 * resource, KEP-1287), NodeResourcesFit's filter and LeastAllocated score (cpu and memory,
 * weight 1 each, over the non-zero requests), and NodeResourcesBalancedAllocation's score (over
 * the requests as they are). Pure functions over the cycle (scheduler-internal.h). */
#include <math.h>
#include <stdlib.h>

#include "api/pod-resources.h"
#include "base/alloc.h"
#include "base/json.h"
#include "controllers/scheduler-internal.h"
#include "controllers/scheduler.h"

/* K8S: schedutil.DefaultMilliCPURequest and DefaultMemoryRequest, what GetNonzeroRequests
 * gives a container that does not say */
#define DEFAULT_MILLI_CPU_REQUEST "100m"
#define DEFAULT_MEMORY_REQUEST    "200Mi"

/* The overlay for pod_requests_overlay(): {name: {"requests": R}} for every container (regular
 * and init) of the pod, R its allocated requests (status.*ContainerStatuses[].
 * allocatedResources) when allocated is set and the status has them, else its spec requests;
 * with nonzero, a missing cpu or memory entry of R is given upstream's default. */
static json_t *requests_overlay(const json_t *pod, bool allocated, bool nonzero)
{
        static const char *const specs[] = { "spec.containers", "spec.initContainers" };
        static const char *const statuses[] = { "status.containerStatuses",
                                                "status.initContainerStatuses" };
        json_t *by_name = json_object();

        for (size_t l = 0; l < ARRAY_SIZE(specs); l++) {
                size_t i, j;
                json_t *ctr, *st;

                json_array_foreach(json_path(pod, specs[l]), i, ctr) {
                        const char *name = json_string_value(json_object_get(ctr, "name"));
                        const json_t *req = json_path(ctr, "resources.requests");
                        json_t *r;

                        if (!name)
                                continue;
                        if (allocated) {
                                json_array_foreach(json_path(pod, statuses[l]), j, st) {
                                        const json_t *a = json_object_get(st, "allocatedResources");
                                        if (streq(json_path_string_or_empty(st, "name"), name) &&
                                            json_is_object(a))
                                                req = a;
                                }
                        }
                        r = json_is_object(req) ? json_deep_copy(req) : json_object();
                        if (nonzero && !json_object_get(r, "cpu"))
                                json_object_set_new(r, "cpu",
                                                    json_string(DEFAULT_MILLI_CPU_REQUEST));
                        if (nonzero && !json_object_get(r, "memory"))
                                json_object_set_new(r, "memory",
                                                    json_string(DEFAULT_MEMORY_REQUEST));
                        json_object_set_new(by_name, name, json_pack("{s:o}", "requests", r));
                }
        }
        return by_name;
}

/* Per resource the larger of the spec's and the allocated requests (K8S: InPlacePodVertical-
 * Scaling: NodeInfo counts a pod with a pending resize at the larger of the two). */
static int requests_max(const json_t *pod, bool nonzero, int64_t *ret_milli_cpu,
                        int64_t *ret_memory)
{
        cleanup_json json_t *desired = requests_overlay(pod, false, nonzero);
        cleanup_json json_t *allocated = requests_overlay(pod, true, nonzero);
        struct pod_resources_overlay dov = { .containers = desired };
        struct pod_resources_overlay aov = { .containers = allocated };
        int64_t cpu = 0, mem = 0, acpu = 0, amem = 0;
        int r;

        r = pod_requests_overlay(pod, &dov, &cpu, &mem);
        if (r < 0)
                return r;
        r = pod_requests_overlay(pod, &aov, &acpu, &amem);
        if (r < 0)
                return r;
        *ret_milli_cpu = cpu > acpu ? cpu : acpu;
        *ret_memory = mem > amem ? mem : amem;
        return 0;
}

int scheduler_pod_requests(const json_t *pod, int64_t *ret_milli_cpu, int64_t *ret_memory)
{
        return requests_max(pod, false, ret_milli_cpu, ret_memory);
}

int sched_pod_nonzero_requests(const json_t *pod, int64_t *ret_milli_cpu, int64_t *ret_memory)
{
        return requests_max(pod, true, ret_milli_cpu, ret_memory);
}

enum sched_code sched_fit_filter(const struct sched_cycle *c, const struct sched_node *n,
                                 json_t *reasons)
{
        size_t before = json_array_size(reasons);

        /* K8S fitsRequest: the pod count always, a resource only when the pod asks for it */
        if (n->cap_pods && (int64_t) json_array_size(n->pods) + 1 > n->cap_pods)
                json_array_append_new(reasons, json_string("Too many pods"));
        if (c->want_cpu > 0 && c->want_cpu > n->cap_cpu - n->req_cpu)
                json_array_append_new(reasons, json_string("Insufficient cpu"));
        if (c->want_mem > 0 && c->want_mem > n->cap_mem - n->req_mem)
                json_array_append_new(reasons, json_string("Insufficient memory"));
        return json_array_size(reasons) > before ? SCHED_UNSCHEDULABLE : SCHED_OK;
}

/* K8S leastRequestedScore: the share left free, 0..100; 0 when over capacity or none. */
static int64_t least_requested(int64_t requested, int64_t capacity)
{
        if (capacity <= 0 || requested > capacity)
                return 0;
        return (capacity - requested) * SCHED_MAX_NODE_SCORE / capacity;
}

bool sched_score_least_allocated(const struct sched_cycle *c, struct sched_node *const *nodes,
                                 size_t n, int64_t *scores)
{
        for (size_t i = 0; i < n; i++) {
                const struct sched_node *node = nodes[i];
                int64_t sum = 0, weights = 0;

                /* K8S leastResourceScorer: cpu and memory, weight 1 each, a resource the node
                 * has none of left out */
                if (node->cap_cpu > 0) {
                        sum += least_requested(node->nz_cpu + c->nz_want_cpu, node->cap_cpu);
                        weights++;
                }
                if (node->cap_mem > 0) {
                        sum += least_requested(node->nz_mem + c->nz_want_mem, node->cap_mem);
                        weights++;
                }
                scores[i] = weights ? sum / weights : 0;
        }
        return true;
}

bool sched_score_balanced(const struct sched_cycle *c, struct sched_node *const *nodes, size_t n,
                          int64_t *scores)
{
        /* K8S: BalancedAllocation skips a BestEffort pod (kubernetes#129138), lest they pile up
         * on one node */
        if (c->want_cpu == 0 && c->want_mem == 0)
                return false;
        for (size_t i = 0; i < n; i++) {
                const struct sched_node *node = nodes[i];
                double f[2];
                size_t k = 0;

                /* K8S balancedResourceScorer: the fractions requested (capped at 1) of cpu and
                 * memory, over the requests as they are (useRequested); with two of them the
                 * standard deviation is half their difference */
                if (node->cap_cpu > 0)
                        f[k++] = fmin(1.0, (double) (node->req_cpu + c->want_cpu) /
                                                   (double) node->cap_cpu);
                if (node->cap_mem > 0)
                        f[k++] = fmin(1.0, (double) (node->req_mem + c->want_mem) /
                                                   (double) node->cap_mem);
                scores[i] = (int64_t) ((1.0 - (k == 2 ? fabs((f[0] - f[1]) / 2) : 0.0)) *
                                       SCHED_MAX_NODE_SCORE);
        }
        return true;
}
