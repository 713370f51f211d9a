/* resize.h: the pure decisions of an in-place pod resize (KEP-1287 with KEP-6030's memory
 * volumes), with no I/O: what the node allocates, whether a new allocation is admitted, and the
 * ordered steps that take the kernel from the actuated state to the allocated one. The pod
 * worker does the I/O (checkpoints, cgroup writes, tmpfs remounts) around these.
 *
 * The states (ARCHITECTURE.md, "The life of a resize"):
 *  - desired: the pod spec;
 *  - allocated: what the node agreed to run, checkpointed before anything is applied;
 *  - actuated: what the node last wrote to the kernel successfully, checkpointed step by step;
 *  - actual: what the kernel holds, read back for the status.
 *
 * An allocation is JSON, the shape of upstream's PodResourceInfo (its Go field names):
 *   {"ContainerResources": {<container>: {"requests": {...}, "limits": {...}}},
 *    "EmptyDirVolumeLimits": {<volume>: "<sizeLimit quantity>"}}
 * with every regular container and every sidecar (restartable init container), and every
 * medium: Memory emptyDir that has a sizeLimit. An allocation converts to a
 * pod_resources_overlay ({.containers = ContainerResources}) for api/pod-resources.h.
 *
 * An actuated state is JSON too:
 *   {"pod": <cgroup config>, "containers": {<container>: <cgroup config>},
 *    "volumes": {<volume>: <bytes>}}
 * where a cgroup config is {"cpuShares": n, "cpuQuota": n, "cpuPeriod": n, "memoryLimit": n}
 * (struct pod_cgroup_config; -1 is unlimited). A member that is absent is unknown: the plan
 * writes it. */
#ifndef FLEXLET_NODE_RESIZE_H
#define FLEXLET_NODE_RESIZE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "api/pod-resources.h"
#include "base/error.h"

/* The allocation the pod's spec asks for (new reference): desired, in allocation shape. */
json_t *resize_allocation_from_pod(const json_t *pod);

/* Whether two allocations are the same resources: quantities compared by value ("1" equals
 * "1000m", "1Gi" equals "1073741824"), an absent list equal to an empty one. */
bool resize_allocation_equal(const json_t *a, const json_t *b);

/* The pod with the allocation's resources in place of the spec's (new reference): containers'
 * requests and limits, Memory emptyDirs' sizeLimit. For computing with allocated values. */
json_t *resize_pod_with_allocation(const json_t *pod, const json_t *allocation);

enum resize_verdict {
        RESIZE_ACCEPT,
        RESIZE_DEFERRED,   /* K8S: PodResizePending reason Deferred */
        RESIZE_INFEASIBLE, /* K8S: PodResizePending reason Infeasible */
};

/* What admission knows of the node. */
struct resize_node {
        int64_t allocatable_milli_cpu;
        int64_t allocatable_memory; /* bytes */
        /* the sum of the requests of every other active pod on the node, each counted at its
         * allocated values (K8S: the admit handlers see the other pods' allocations) */
        int64_t others_milli_cpu;
        int64_t others_memory;
        bool cgroup_v1;           /* the host runs cpu and memory on cgroup v1 */
        bool volume_resize_on_v1; /* --feature-gates MemoryBackedVolumeResizeCgroupV1=true */
};

/* K8S: handlePodResourcesResize / canResizePod (1.34), for a pod whose desired allocation differs
 * from its current one (allocated), given the desired pod's requests (K8S: PodRequests of the pod
 * at desired, which the typed model computes once per generation, pod-spec.h; -1: they do not
 * parse):
 *  - a Memory emptyDir sizeLimit change (allocated's EmptyDirVolumeLimits against desired's, in
 *    spec.volumes order) on cgroup v1 without volume_resize_on_v1: Infeasible (KEP-6030),
 *    `Resizing memory-backed volume "<vol>" requires cgroup v2 (or the
 *    MemoryBackedVolumeResizeCgroupV1 feature gate)` (upstream has no text for it);
 *  - the pod's desired requests (resize_pod_with_allocation(pod, desired) through pod_requests)
 *    over allocatable: Infeasible, "Node didn't have enough capacity: memory, requested: %d,
 *    capacity: %d" (bytes; memory checked first) or "...: cpu, requested: %d, capacity: %d"
 *    (millicores);
 *  - desired + others over allocatable: Deferred, "Node didn't have enough resource: %s,
 *    requested: %d, used: %d, capacity: %d" (K8S: InsufficientResourceError; cpu checked first
 *    as the predicate does; a zero request always fits);
 *  - else Accept.
 * A pod whose quantities do not parse (only a corrupt object) is Infeasible, "invalid resources".
 * *ret_message (caller frees) is set for Deferred and Infeasible, NULL for Accept. */
enum resize_verdict resize_admit_requests(const json_t *pod, const json_t *allocated,
                                          const json_t *desired, int64_t milli_cpu, int64_t memory,
                                          const struct resize_node *node, char **ret_message);

/* One step of actuation. */
enum resize_step_kind {
        RESIZE_STEP_VOLUME,            /* remount the tmpfs of `name` to size_bytes */
        RESIZE_STEP_POD_CGROUP,        /* write `which` of cfg to the pod cgroup */
        RESIZE_STEP_CONTAINER_CGROUP,  /* write `which` of cfg to container `name`'s cgroup */
        RESIZE_STEP_RESTART_CONTAINER, /* resizePolicy RestartContainer: restart `name` */
        RESIZE_STEP_KIND_MAX,
};

/* `which` bits of a cgroup step */
#define RESIZE_CPU_SHARES (1u << 0)
#define RESIZE_CPU_QUOTA  (1u << 1) /* quota and period */
#define RESIZE_MEMORY     (1u << 2)

struct resize_step {
        enum resize_step_kind kind;
        const char *name; /* borrowed from the pod JSON; NULL for the pod cgroup */
        unsigned which;
        struct pod_cgroup_config cfg; /* that cgroup's complete config after this step */
        int64_t size_bytes;           /* RESIZE_STEP_VOLUME */
};

struct resize_plan {
        struct resize_step *steps;
        size_t n;
};
void resize_plan_release(struct resize_plan *p);

/* The plan's inputs at the allocated values, typed: what a plan needs of the pod and its
 * allocation (read through pod-resources.h, over JSON) before it compares with the actuated
 * state. Built once per allocation (pod-spec.c caches them), so planning a step is integer
 * comparisons. Names are borrowed from the pod given to resize_targets_build. */
struct resize_target_container {
        const char *name;
        bool restart_on_cpu;    /* resizePolicy cpu: RestartContainer */
        bool restart_on_memory; /* resizePolicy memory: RestartContainer */
        int err;                /* -errno: its resources do not parse (an error if it runs) */
        struct pod_cgroup_config cfg;
};
struct resize_target_volume {
        const char *name;
        int64_t size_bytes; /* > 0: the KEP-1967 size; volumes without a size= are left out */
};
struct resize_targets {
        struct pod_cgroup_config pod;
        /* the resizable containers in the plan's order: sidecars, then regular containers */
        struct resize_target_container *containers;
        size_t n_containers;
        struct resize_target_volume *volumes; /* Memory emptyDirs, spec order */
        size_t n_volumes;
        int volumes_err; /* -errno: the pod memory limit does not parse (and a volume needs it) */
};
/* The targets of pod at allocation (NULL: the spec's own resources); enforce_cpu_limits as
 * pod_cgroup_config's. -EINVAL (with reterr) when the pod cgroup's quantities do not parse,
 * -ERANGE when one overflows; a container's own bad quantities are kept in its err (planning
 * fails only if it runs). *ret is set only on success. */
int resize_targets_build(const json_t *pod, const json_t *allocation, int64_t allocatable_memory,
                         bool enforce_cpu_limits, struct resize_targets *ret,
                         struct error **reterr);
void resize_targets_release(struct resize_targets *t);
/* The steps from actuated to the allocation the targets were built at (resize_targets_build),
 * in the one order that merges KEP-1287 and KEP-6030:
 *  1. Memory emptyDirs whose size shrinks (the KEP-1967 size of the allocated pod:
 *     emptydir_memory_size(allocatable_memory, pod memory limit, sizeLimit));
 *  2. the pod cgroup's values that grow (memory limit, cpu quota, cpu shares);
 *  3. container values that shrink, then container values that grow (K8S: decreases prepended,
 *     increases appended), for every container in `running` (only running containers are
 *     resized; others get their allocation when they start). Containers are visited sidecars
 *     first, then regular containers, in spec order, as computePodActions; one step per container
 *     and resource, memory steps before cpu steps within the shrinks and within the grows (K8S:
 *     doPodResizeAction does memory, then cpu); a cpu step's direction is its quota's when the
 *     quota changes, else its shares' (K8S: a cpu limit change takes precedence). A container
 *     whose changed resource (a known value that differs) has resizePolicy RestartContainer gets
 *     one RESIZE_STEP_RESTART_CONTAINER instead, with every bit in `which`; restarts come first in
 *     this phase (K8S: SyncPod kills them before it resizes);
 *  4. the pod cgroup's values that shrink;
 *  5. Memory emptyDirs whose size grows.
 * The pod cgroup has one step per value: grows in the order memory limit, cpu quota, cpu shares;
 * shrinks in the order memory limit, cpu shares, cpu quota (K8S: limits grow before requests and
 * shrink after them). Every Memory emptyDir is sized (not only those with a sizeLimit: the pod
 * memory limit sizes the others); a size <= 0 (no size= option) is never remounted.
 * Each step carries the bits that change and the complete config its cgroup has after the step:
 * the values earlier steps (or the actuated state) left for bits not in `which`, the allocated
 * for bits in it. Values compare with upstream's tolerances: cpu shares equal when both are
 * <= CPU_MIN_SHARES, cpu limits equal when both are limited and <= CPU_MIN_MILLI_CPU_LIMIT in
 * millicores. A limit the allocation removes (unlimited) is a grow. A value the actuated state
 * does not know is written where a grow would be, and never restarts a container. An empty plan
 * means the kernel already holds the allocation.
 * running: NULL-terminated names of the containers that run now. -EINVAL (with reterr) when a
 * running container's quantities did not parse; *ret (release it with resize_plan_release) is
 * set only on success. No JSON is walked but actuated's. */
int resize_plan_from_targets(const struct resize_targets *t, const json_t *actuated,
                             const char *const *running, struct resize_plan *ret,
                             struct error **reterr);

/* Records in actuated (an object, updated in place) that step s succeeded. */
void resize_actuated_record(json_t *actuated, const struct resize_step *s);

/* A deferred resize waiting in the retry queue. */
struct resize_pending {
        const json_t *pod;
        bool increases_requests; /* desired cpu or memory requests above allocated */
        time_t pending_since;    /* PodResizePending lastTransitionTime; 0: none yet */
};
/* K8S: sortPendingResizes, a qsort comparator over struct resize_pending: resizes that do not
 * increase requests first, then higher spec.priority, then Guaranteed before Burstable, then the
 * longest pending, a resize without a PodResizePending condition yet last. A total order
 * (upstream's comparator is not one: two resizes that do not increase requests tie here). */
int resize_pending_compare(const void *a, const void *b);

#endif
