/* pod-resources.h: upstream's resource arithmetic over a v1 Pod, as exact integers (millicores,
 * bytes, cgroup units), with no I/O:
 *  - what a pod requests and limits (K8S: component-helpers resource.PodRequests/PodLimits);
 *  - the pod cgroup's configuration (K8S: pkg/kubelet/cm ResourceConfigForPod) and a
 *    container's (K8S: kuberuntime calculateLinuxResources), including the KEP-1967 pod memory
 *    limit that sizes memory-backed emptyDirs;
 *  - the conversions between millicores, cpu.shares, CFS quota and cgroup v2 cpu.weight.
 *
 * Every function takes the pod as stored (after defaulting). An optional overlay replaces the
 * containers' resources (the node agent computes with allocated or actuated values, as the
 * kubelet computes ResourceConfigForPod over the allocated pod). Quantities are summed exactly
 * (as resource.Quantity.Add does) and converted once at the end (MilliValue/Value, rounding up).
 * Fallible functions return 0 or -errno: -EINVAL for a quantity that does not parse, -ERANGE when
 * a value overflows int64; output parameters are set only on success. */
#ifndef FLEXLET_API_POD_RESOURCES_H
#define FLEXLET_API_POD_RESOURCES_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

/* K8S: pkg/kubelet/cm/helpers_linux.go constants. */
#define CPU_MIN_SHARES          2      /* kernel MIN_SHARES */
#define CPU_MAX_SHARES          262144 /* kernel MAX_SHARES */
#define CPU_SHARES_PER_CPU      1024
#define CPU_MILLI_PER_CPU       1000
#define CPU_QUOTA_PERIOD_US     100000 /* CFS period; the CPUCFSQuotaPeriod gate is not supported */
#define CPU_MIN_QUOTA_US        1000   /* kernel minimum cfs_quota_us */
#define CPU_MIN_MILLI_CPU_LIMIT 10     /* MinQuotaPeriod * 1000 / QuotaPeriod */
#define CPU_MIN_WEIGHT          1      /* cgroup v2 cpu.weight range */
#define CPU_MAX_WEIGHT          10000
#define CPU_DEFAULT_WEIGHT      100

/* Resources to use instead of the spec's. Every member may be NULL. */
struct pod_resources_overlay {
        /* JSON object: container name -> ResourceRequirements ({"requests": {...}, "limits":
         * {...}}), e.g. an allocation checkpoint's ContainerResources. For a container (regular
         * or init) named here, a "requests" member replaces the spec's requests and a "limits"
         * member the spec's limits; a member that is absent keeps the spec's list. So
         * {"c1": {"requests": <status.containerStatuses[c1].allocatedResources>}} computes with
         * c1's allocated requests and its spec limits. */
        const json_t *containers;
        /* A ResourceRequirements replacing spec.resources (pod-level resources). */
        const json_t *pod;
};

/* K8S: PodRequests (overhead included, pod-level resources applied): the larger of (regular
 * containers + sidecars) and, for each init container, its request plus the sidecars started
 * before it; pod-level spec.resources.requests replace that sum for cpu and memory where set;
 * then spec.overhead is added. Absent requests count as 0. */
int pod_requests(const json_t *pod, int64_t *ret_milli_cpu, int64_t *ret_memory_bytes);
/* The same with the overlay's resources (NULL: the spec's). */
int pod_requests_overlay(const json_t *pod, const struct pod_resources_overlay *ov,
                         int64_t *ret_milli_cpu, int64_t *ret_memory_bytes);
/* K8S: PodLimits: limits aggregated like requests, pod-level spec.resources.limits applied when
 * the pod has pod-level resources, spec.overhead added to each non-zero limit. 0 means "no
 * limit" (some or all containers declare none). */
int pod_limits(const json_t *pod, const struct pod_resources_overlay *ov, int64_t *ret_milli_cpu,
               int64_t *ret_memory_bytes);

/* A cgroup's CPU and memory configuration in kernel units; the same shape serves the pod
 * cgroup and a container cgroup. */
struct pod_cgroup_config {
        int64_t cpu_shares;         /* cgroup v1 cpu.shares, CPU_MIN_SHARES..CPU_MAX_SHARES */
        int64_t cpu_quota_us;       /* CFS quota per period; -1: unlimited */
        int64_t cpu_period_us;      /* CFS period: CPU_QUOTA_PERIOD_US */
        int64_t memory_limit_bytes; /* -1: unlimited */
};

/* K8S: ResourceConfigForPod(pod, enforceCPULimits, QuotaPeriod, enforceMemoryQoS=false) with
 * PodLevelResources on. The class is the pod's GetPodQOS (status.qosClass when set, which a
 * resize cannot change; else computed from the spec):
 *  - Guaranteed: shares from the requests, quota from the limits, memory limit;
 *  - Burstable: shares; a quota only when every container declares a cpu limit and a memory
 *    limit only when every container declares a memory limit (init containers count with the
 *    sidecars started before them, as PodLimits hands them to its ContainerFn; a pod-level
 *    limit counts as declared);
 *  - BestEffort: shares CPU_MIN_SHARES, nothing else.
 * What upstream leaves unset (nil) is -1 here: the cgroup keeps no limit. enforce_cpu_limits
 * false (kubelet --cpu-cfs-quota=false) makes the quota -1. Requests include spec.overhead;
 * limits include it where non-zero. */
int pod_cgroup_config(const json_t *pod, const struct pod_resources_overlay *ov,
                      bool enforce_cpu_limits, struct pod_cgroup_config *ret);

/* K8S: the KEP-1967 pod memory limit (calculateEmptyDirMemorySize:
 * ResourceConfigForPod(pod, false, QuotaPeriod, false).Memory): bytes, or -1 when unset (some
 * container has no memory limit, or the pod is BestEffort). */
int pod_memory_limit(const json_t *pod, const struct pod_resources_overlay *ov, int64_t *ret_bytes);

/* K8S: kuberuntime calculateLinuxResources for one container, from its requests and limits lists
 * (JSON objects or NULL): shares from the cpu request, or from the cpu limit when the request
 * has no cpu entry (a request defaults to the limit); quota from the cpu limit (-1 without a
 * limit or when !enforce_cpu_limits); memory from the memory limit (-1 without). */
int container_resources_cgroup_config(const json_t *requests, const json_t *limits,
                                      bool enforce_cpu_limits, struct pod_cgroup_config *ret);
/* The same for the container (regular, then init) named name in pod, with the overlay applied.
 * -ENOENT when the pod has no such container. */
int container_cgroup_config(const json_t *pod, const char *name,
                            const struct pod_resources_overlay *ov, bool enforce_cpu_limits,
                            struct pod_cgroup_config *ret);

/* ---- conversions (K8S: pkg/kubelet/cm helpers_linux.go, cgroup_v2_manager_linux.go) ---- */

/* MilliCPUToShares: milli*1024/1000 clamped to CPU_MIN_SHARES..CPU_MAX_SHARES (0 -> 2). */
int64_t cpu_milli_to_shares(int64_t milli_cpu);
/* MilliCPUToQuota: milli*period/1000, at least CPU_MIN_QUOTA_US; 0 for milli_cpu <= 0 (upstream
 * "unset": the caller writes no quota). */
int64_t cpu_milli_to_quota(int64_t milli_cpu, int64_t period_us);
/* sharesToMilliCPU (reading actual state back): ceil(shares*1000/1024); 0 below
 * CPU_MIN_SHARES. */
int64_t cpu_shares_to_milli(int64_t shares);
/* quotaToMilliCPU: quota*1000/period; 0 for quota -1 (unlimited) or a period <= 0. */
int64_t cpu_quota_to_milli(int64_t quota_us, int64_t period_us);

/* cgroup v2 has cpu.weight (1..10000, default 100) instead of cpu.shares. Two conversions exist
 * and flexlet uses each where upstream does:
 *  - pod and QoS cgroups are written by the kubelet, with the linear formula of KEP-2254:
 *    weight = 1 + (shares-2)*9999/262142 (1024 shares -> 39), inverse
 *    shares = 2 + (weight-1)*262142/9999. cpu_shares_to_weight / cpu_weight_to_shares.
 *  - container cgroups are written by the OCI runtime, which since opencontainers/runc#4785 and
 *    containers/crun#1721 (kubernetes#131216) maps 1024 shares to the default weight 100 with
 *    ceil(10^((l^2+125l)/612 - 7/34)), l = log2(shares), clamped to 1..10000 (upstream's e2e
 *    helper accepts both). cpu_shares_to_weight_oci / cpu_weight_to_shares_oci.
 * Shares outside 2..262144 and weights outside 1..10000 are clamped first. */
int64_t cpu_shares_to_weight(int64_t shares);
int64_t cpu_weight_to_shares(int64_t weight);
/* 0 stays 0 ("unset", as runc's ConvertCPUSharesToCgroupV2Value). Computed without libm; equal
 * to the runtime's float64 result for every shares value (checked over the whole domain). */
int64_t cpu_shares_to_weight_oci(int64_t shares);
/* The smallest shares that cpu_shares_to_weight_oci maps to weight or above (the conversion is
 * many-to-one, so this is the canonical preimage). */
int64_t cpu_weight_to_shares_oci(int64_t weight);

/* ---- OOM score (K8S: pkg/kubelet/qos/policy.go) ---- */

#define OOM_SCORE_ADJ_GUARANTEED (-997) /* guaranteedOOMScoreAdj */
#define OOM_SCORE_ADJ_BESTEFFORT 1000   /* besteffortOOMScoreAdj */
#define OOM_SCORE_ADJ_POD_INFRA  (-998) /* PodInfraOOMAdj: the sandbox's pid 1 */

/* K8S: GetContainerOOMScoreAdjust for the container (regular, init, ephemeral) named name, the pod
 * carrying the allocated resources: a node-critical pod (priorityClassName
 * system-node-critical with a critical priority) and Guaranteed -997, BestEffort 1000;
 * Burstable 1000 - 1000*memoryRequest/memory_capacity, the request including the pod-level
 * memory request left over by the containers, divided among them (PodLevelResources), a
 * sidecar taking no more than the smallest regular container would, clamped to 3..999.
 * memory_capacity is the machine's (bytes, > 0). -ENOENT when the pod has no such container,
 * -EINVAL for a capacity <= 0. */
int container_oom_score_adj(const json_t *pod, const char *name, int64_t memory_capacity, int *ret);

#endif
