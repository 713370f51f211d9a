/* pod-resources.c: PodRequests/PodLimits, ResourceConfigForPod, the per-container cgroup values
 * and the cpu unit conversions, all exact. Only cpu and memory are computed (hugepages, extended
 * resources and the MemoryQoS memory.min are not). Sums are exact quantities; rounding to
 * millicores or bytes happens once, on the final value, as upstream's MilliValue()/Value(). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/pod-resources.h"
#include "api/validation.h"
#include "base/json.h"
#include "base/quantity.h"

/* ---- resource lists restricted to cpu and memory ---- */

enum { R_CPU, R_MEM, R_N };
static const char *const r_names[R_N] = { "cpu", "memory" };

/* A v1.ResourceList with only the keys we compute: has[] says which keys are present. */
struct rlist {
        bool has[R_N];
        struct quantity q[R_N];
};

/* Reads cpu and memory of a JSON ResourceList (NULL or a non-object: empty). */
static int rlist_read(const json_t *list, struct rlist *ret)
{
        struct rlist r = { 0 };
        int k;

        for (int i = 0; i < R_N; i++) {
                const json_t *v = json_is_object(list) ? json_object_get(list, r_names[i]) : NULL;
                if (!v)
                        continue;
                if ((k = json_quantity(v, &r.q[i])) < 0)
                        return k;
                r.has[i] = true;
        }
        *ret = r;
        return 0;
}

/* K8S: addResourceList. */
static int rlist_add(struct rlist *a, const struct rlist *b)
{
        for (int i = 0; i < R_N; i++) {
                if (!b->has[i])
                        continue;
                if (!a->has[i]) {
                        a->q[i] = b->q[i];
                        a->has[i] = true;
                } else if (quantity_add(&a->q[i], &b->q[i], &a->q[i]) < 0) {
                        return -ERANGE;
                }
        }
        return 0;
}

/* K8S: maxResourceList. */
static void rlist_max(struct rlist *a, const struct rlist *b)
{
        for (int i = 0; i < R_N; i++) {
                if (b->has[i] && (!a->has[i] || quantity_cmp(&b->q[i], &a->q[i]) > 0)) {
                        a->q[i] = b->q[i];
                        a->has[i] = true;
                }
        }
}

/* K8S: ResourceList.Cpu().IsZero() and friends: absent counts as zero. */
static bool rlist_zero(const struct rlist *r, int i)
{
        return !r->has[i] || quantity_is_zero(&r->q[i]);
}

static int rlist_milli(const struct rlist *r, int i, int64_t *ret)
{
        *ret = 0;
        return r->has[i] ? quantity_milli_value(&r->q[i], ret) : 0;
}

static int rlist_value(const struct rlist *r, int i, int64_t *ret)
{
        *ret = 0;
        return r->has[i] ? quantity_value(&r->q[i], ret) : 0;
}

/* ---- the pod's containers with the overlay applied ---- */

/* The requests or limits ("which") list a container runs with. */
static const json_t *container_list(const json_t *ctr, const struct pod_resources_overlay *ov,
                                    const char *which)
{
        const char *name = json_string_value(json_object_get(ctr, "name"));

        if (ov && json_is_object(ov->containers) && name) {
                const json_t *o = json_object_get(ov->containers, name);
                if (json_is_object(o) && json_object_get(o, which))
                        return json_object_get(o, which);
        }
        return json_object_get(json_object_get(ctr, "resources"), which);
}

static const json_t *pod_level(const json_t *pod, const struct pod_resources_overlay *ov)
{
        if (ov && ov->pod)
                return ov->pod;
        return json_path(pod, "spec.resources");
}

static bool is_sidecar(const json_t *ctr)
{
        const char *p = json_string_value(json_object_get(ctr, "restartPolicy"));

        return p && streq(p, "Always");
}

/* K8S: IsSupportedPodLevelResource: cpu, memory, hugepages-*. */
static bool list_has_pod_level_resource(const json_t *list)
{
        const char *name;
        json_t *v;

        if (!json_is_object(list))
                return false;
        json_object_foreach((json_t *) list, name, v) {
                if (streq(name, "cpu") || streq(name, "memory") ||
                    strncmp(name, "hugepages-", strlen("hugepages-")) == 0)
                        return true;
        }
        return false;
}

/* Bits of the resources some container's effective list leaves at zero (what PodLimits hands
 * to ResourceConfigForPod's ContainerFn). */
#define UNDECLARED(i) (1u << (i))

/* K8S: aggregateContainerResourcesByFn with the spec's (or the overlay's) lists: regular
 * containers and sidecars add up; each init container needs its own list plus the sidecars
 * started before it; the result is the larger of the two. *undeclared (when not NULL) gets a bit
 * for each resource that some list, as ContainerFn sees it, leaves at zero. */
static int aggregate(const json_t *pod, const struct pod_resources_overlay *ov, const char *which,
                     struct rlist *ret, unsigned *undeclared)
{
        struct rlist sum = { 0 }, sidecars = { 0 }, inits = { 0 }, c;
        unsigned und = 0;
        size_t i;
        json_t *ctr;
        int r;

        json_array_foreach(json_path(pod, "spec.containers"), i, ctr) {
                if ((r = rlist_read(container_list(ctr, ov, which), &c)) < 0 ||
                    (r = rlist_add(&sum, &c)) < 0)
                        return r;
                for (int k = 0; k < R_N; k++)
                        und |= rlist_zero(&c, k) ? UNDECLARED(k) : 0;
        }
        json_array_foreach(json_path(pod, "spec.initContainers"), i, ctr) {
                struct rlist need;
                if ((r = rlist_read(container_list(ctr, ov, which), &c)) < 0)
                        return r;
                if (is_sidecar(ctr)) {
                        /* K8S: a sidecar keeps running beside everything started after it */
                        if ((r = rlist_add(&sum, &c)) < 0 || (r = rlist_add(&sidecars, &c)) < 0)
                                return r;
                        need = sidecars;
                } else {
                        need = c;
                        if ((r = rlist_add(&need, &sidecars)) < 0)
                                return r;
                }
                for (int k = 0; k < R_N; k++)
                        und |= rlist_zero(&need, k) ? UNDECLARED(k) : 0;
                rlist_max(&inits, &need);
        }
        rlist_max(&sum, &inits);
        *ret = sum;
        if (undeclared)
                *undeclared = und;
        return 0;
}

/* Replaces cpu and memory of r by those the pod-level list names. */
static int apply_pod_level(struct rlist *r, const json_t *list)
{
        struct rlist p;
        int k;

        if ((k = rlist_read(list, &p)) < 0)
                return k;
        for (int i = 0; i < R_N; i++) {
                if (p.has[i]) {
                        r->q[i] = p.q[i];
                        r->has[i] = true;
                }
        }
        return 0;
}

/* K8S: PodRequests with ExcludeOverhead false. */
static int requests_list(const json_t *pod, const struct pod_resources_overlay *ov,
                         struct rlist *ret)
{
        const json_t *pl = json_object_get(pod_level(pod, ov), "requests");
        struct rlist reqs, overhead;
        int r;

        if ((r = aggregate(pod, ov, "requests", &reqs, NULL)) < 0)
                return r;
        /* K8S: IsPodLevelRequestsSet */
        if (list_has_pod_level_resource(pl) && (r = apply_pod_level(&reqs, pl)) < 0)
                return r;
        if ((r = rlist_read(json_path(pod, "spec.overhead"), &overhead)) < 0 ||
            (r = rlist_add(&reqs, &overhead)) < 0)
                return r;
        *ret = reqs;
        return 0;
}

/* K8S: PodLimits with ExcludeOverhead false. */
static int limits_list(const json_t *pod, const struct pod_resources_overlay *ov, struct rlist *ret,
                       unsigned *undeclared)
{
        const json_t *plr = pod_level(pod, ov);
        struct rlist lims, overhead;
        int r;

        if ((r = aggregate(pod, ov, "limits", &lims, undeclared)) < 0)
                return r;
        /* K8S: IsPodLevelResourcesSet (requests or limits), then the limits are applied */
        if ((list_has_pod_level_resource(json_object_get(plr, "requests")) ||
             list_has_pod_level_resource(json_object_get(plr, "limits"))) &&
            (r = apply_pod_level(&lims, json_object_get(plr, "limits"))) < 0)
                return r;
        if ((r = rlist_read(json_path(pod, "spec.overhead"), &overhead)) < 0)
                return r;
        for (int i = 0; i < R_N; i++) {
                /* K8S: overhead is added to non-zero limits only */
                if (overhead.has[i] && !rlist_zero(&lims, i) &&
                    quantity_add(&lims.q[i], &overhead.q[i], &lims.q[i]) < 0)
                        return -ERANGE;
        }
        *ret = lims;
        return 0;
}

int pod_requests_overlay(const json_t *pod, const struct pod_resources_overlay *ov,
                         int64_t *ret_milli_cpu, int64_t *ret_memory_bytes)
{
        struct rlist reqs;
        int64_t cpu, mem;
        int r;

        if ((r = requests_list(pod, ov, &reqs)) < 0 || (r = rlist_milli(&reqs, R_CPU, &cpu)) < 0 ||
            (r = rlist_value(&reqs, R_MEM, &mem)) < 0)
                return r;
        *ret_milli_cpu = cpu;
        *ret_memory_bytes = mem;
        return 0;
}

int pod_requests(const json_t *pod, int64_t *ret_milli_cpu, int64_t *ret_memory_bytes)
{
        return pod_requests_overlay(pod, NULL, ret_milli_cpu, ret_memory_bytes);
}

int pod_limits(const json_t *pod, const struct pod_resources_overlay *ov, int64_t *ret_milli_cpu,
               int64_t *ret_memory_bytes)
{
        struct rlist lims;
        int64_t cpu, mem;
        int r;

        if ((r = limits_list(pod, ov, &lims, NULL)) < 0 ||
            (r = rlist_milli(&lims, R_CPU, &cpu)) < 0 || (r = rlist_value(&lims, R_MEM, &mem)) < 0)
                return r;
        *ret_milli_cpu = cpu;
        *ret_memory_bytes = mem;
        return 0;
}

int pod_cgroup_config(const json_t *pod, const struct pod_resources_overlay *ov,
                      bool enforce_cpu_limits, struct pod_cgroup_config *ret)
{
        const json_t *plr = pod_level(pod, ov);
        struct rlist reqs, lims;
        unsigned undeclared = 0;
        int64_t cpu_req, cpu_lim, mem_lim, quota;
        struct pod_cgroup_config c = {
                .cpu_shares = CPU_MIN_SHARES,
                .cpu_quota_us = -1,
                .cpu_period_us = CPU_QUOTA_PERIOD_US,
                .memory_limit_bytes = -1,
        };
        const char *qos;
        int r;

        if ((r = requests_list(pod, ov, &reqs)) < 0 ||
            (r = limits_list(pod, ov, &lims, &undeclared)) < 0)
                return r;
        if (list_has_pod_level_resource(json_object_get(plr, "requests")) ||
            list_has_pod_level_resource(json_object_get(plr, "limits"))) {
                /* K8S: a non-zero pod-level limit declares that resource for the whole pod */
                struct rlist pl;
                if ((r = rlist_read(json_object_get(plr, "limits"), &pl)) < 0)
                        return r;
                for (int i = 0; i < R_N; i++) {
                        if (!rlist_zero(&pl, i))
                                undeclared &= ~UNDECLARED(i);
                }
        }
        if ((r = rlist_milli(&reqs, R_CPU, &cpu_req)) < 0 ||
            (r = rlist_milli(&lims, R_CPU, &cpu_lim)) < 0 ||
            (r = rlist_value(&lims, R_MEM, &mem_lim)) < 0)
                return r;

        /* K8S: MilliCPUToQuota returns 0 ("unset") without a limit; the runtime then writes no
         * quota, which is -1 here. --cpu-cfs-quota=false makes it -1 too. */
        quota = cpu_milli_to_quota(cpu_lim, CPU_QUOTA_PERIOD_US);
        if (quota <= 0 || !enforce_cpu_limits)
                quota = -1;

        qos = pod_qos_class_stored(pod);
        if (streq(qos, "Guaranteed")) {
                c.cpu_shares = cpu_milli_to_shares(cpu_req);
                c.cpu_quota_us = quota;
                c.memory_limit_bytes = mem_lim > 0 ? mem_lim : -1;
        } else if (streq(qos, "Burstable")) {
                c.cpu_shares = cpu_milli_to_shares(cpu_req);
                if (!(undeclared & UNDECLARED(R_CPU)))
                        c.cpu_quota_us = quota;
                if (!(undeclared & UNDECLARED(R_MEM)) && mem_lim > 0)
                        c.memory_limit_bytes = mem_lim;
        }
        /* K8S: BestEffort: shares MinShares only */
        *ret = c;
        return 0;
}

int pod_memory_limit(const json_t *pod, const struct pod_resources_overlay *ov, int64_t *ret_bytes)
{
        struct pod_cgroup_config c;
        int r;

        if ((r = pod_cgroup_config(pod, ov, false, &c)) < 0)
                return r;
        *ret_bytes = c.memory_limit_bytes;
        return 0;
}

int container_resources_cgroup_config(const json_t *requests, const json_t *limits,
                                      bool enforce_cpu_limits, struct pod_cgroup_config *ret)
{
        struct rlist req, lim;
        int64_t cpu_req, cpu_lim, mem_lim, quota;
        int r;

        if ((r = rlist_read(requests, &req)) < 0 || (r = rlist_read(limits, &lim)) < 0 ||
            (r = rlist_milli(&req, R_CPU, &cpu_req)) < 0 ||
            (r = rlist_milli(&lim, R_CPU, &cpu_lim)) < 0 ||
            (r = rlist_value(&lim, R_MEM, &mem_lim)) < 0)
                return r;
        /* K8S: calculateLinuxResources: "If request is not specified, but limit is, we want
         * request to default to limit" (a missing limit reads as 0, giving MinShares). */
        ret->cpu_shares = cpu_milli_to_shares(req.has[R_CPU] ? cpu_req : cpu_lim);
        quota = cpu_milli_to_quota(cpu_lim, CPU_QUOTA_PERIOD_US);
        ret->cpu_quota_us = quota > 0 && enforce_cpu_limits ? quota : -1;
        ret->cpu_period_us = CPU_QUOTA_PERIOD_US;
        ret->memory_limit_bytes = mem_lim > 0 ? mem_lim : -1;
        return 0;
}

int container_cgroup_config(const json_t *pod, const char *name,
                            const struct pod_resources_overlay *ov, bool enforce_cpu_limits,
                            struct pod_cgroup_config *ret)
{
        const char *lists[] = { "spec.containers", "spec.initContainers" };

        for (size_t l = 0; l < ARRAY_SIZE(lists); l++) {
                size_t i;
                json_t *ctr;
                json_array_foreach(json_path(pod, lists[l]), i, ctr) {
                        const char *n = json_string_value(json_object_get(ctr, "name"));
                        if (n && streq(n, name))
                                return container_resources_cgroup_config(
                                        container_list(ctr, ov, "requests"),
                                        container_list(ctr, ov, "limits"), enforce_cpu_limits, ret);
                }
        }
        return -ENOENT;
}

/* ---- conversions ---- */

int64_t cpu_milli_to_shares(int64_t milli_cpu)
{
        int64_t shares;

        if (milli_cpu <= 0)
                return CPU_MIN_SHARES;
        /* K8S: "(milliCPU / milliCPUToCPU) * sharesPerCPU, but factored to improve rounding";
         * clamp before multiplying so the product cannot overflow */
        if (milli_cpu > (int64_t) CPU_MAX_SHARES * CPU_MILLI_PER_CPU)
                return CPU_MAX_SHARES;
        shares = milli_cpu * CPU_SHARES_PER_CPU / CPU_MILLI_PER_CPU;
        if (shares < CPU_MIN_SHARES)
                return CPU_MIN_SHARES;
        if (shares > CPU_MAX_SHARES)
                return CPU_MAX_SHARES;
        return shares;
}

int64_t cpu_milli_to_quota(int64_t milli_cpu, int64_t period_us)
{
        __int128 quota;

        if (milli_cpu <= 0 || period_us <= 0)
                return 0;
        quota = (__int128) milli_cpu * period_us / CPU_MILLI_PER_CPU;
        if (quota < CPU_MIN_QUOTA_US)
                return CPU_MIN_QUOTA_US;
        return quota > INT64_MAX ? INT64_MAX : (int64_t) quota;
}

int64_t cpu_shares_to_milli(int64_t shares)
{
        if (shares < CPU_MIN_SHARES)
                return 0;
        if (shares > INT64_MAX / CPU_MILLI_PER_CPU)
                shares = INT64_MAX / CPU_MILLI_PER_CPU;
        /* K8S: math.Ceil(float64(shares*1000) / 1024), exact in integers */
        return (shares * CPU_MILLI_PER_CPU + CPU_SHARES_PER_CPU - 1) / CPU_SHARES_PER_CPU;
}

int64_t cpu_quota_to_milli(int64_t quota_us, int64_t period_us)
{
        if (quota_us < 0 || period_us <= 0)
                return 0;
        return (int64_t) ((__int128) quota_us * CPU_MILLI_PER_CPU / period_us);
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi)
{
        return v < lo ? lo : v > hi ? hi : v;
}

int64_t cpu_shares_to_weight(int64_t shares)
{
        shares = clamp64(shares, CPU_MIN_SHARES, CPU_MAX_SHARES);
        return (shares - 2) * 9999 / 262142 + 1;
}

int64_t cpu_weight_to_shares(int64_t weight)
{
        weight = clamp64(weight, CPU_MIN_WEIGHT, CPU_MAX_WEIGHT);
        return (weight - 1) * 262142 / 9999 + 2;
}

/* The runtimes compute the quadratic in float64 with log2, pow and ceil. flexlet links no libm,
 * so the same steps are taken here: log2 in long double (exact for powers of two), the
 * exponent in double exactly as the runtimes write it, 10^e in long double rounded to double,
 * then ceil. The unit test compares all 262145 values with the runtimes' results. */
#define LN2_L  0.693147180559945309417232121458176568L
#define LN10_L 2.302585092994045684017991454684364208L

/* ln(m) for m in [1/sqrt2, sqrt2]: 2*atanh((m-1)/(m+1)), |z| <= 0.172. */
static long double ln_near_one(long double m)
{
        long double z = (m - 1) / (m + 1), z2 = z * z, pow = z, sum = 0;

        for (int i = 0; i < 64; i++) {
                long double term = pow / (2 * i + 1);
                if (term == 0)
                        break;
                sum += term;
                pow *= z2;
        }
        return 2 * sum;
}

static double log2_u64(uint64_t v)
{
        int k = 63 - __builtin_clzll(v);
        long double m = (long double) v / (long double) (1ULL << k);

        if (m > 1.41421356237309504880L) {
                m /= 2;
                k++;
        }
        return (double) ((long double) k + ln_near_one(m) / LN2_L);
}

/* e^x for 0 <= x < 40: x = n*ln2 + r with |r| <= ln2/2, Taylor series for e^r. */
static long double exp_small(long double x)
{
        int n = (int) (x / LN2_L + 0.5L);
        long double r = x - (long double) n * LN2_L, term = 1, sum = 1;

        for (int i = 1; i < 64; i++) {
                term *= r / i;
                if (term == 0)
                        break;
                sum += term;
        }
        return sum * (long double) (1ULL << n);
}

int64_t cpu_shares_to_weight_oci(int64_t shares)
{
        double l, e, p;
        int64_t w;

        if (shares <= 0)
                return 0;
        if (shares <= CPU_MIN_SHARES)
                return CPU_MIN_WEIGHT;
        if (shares >= CPU_MAX_SHARES)
                return CPU_MAX_WEIGHT;
        l = log2_u64((uint64_t) shares);
        e = (l * l + 125 * l) / 612.0 - 7.0 / 34.0;
        p = (double) exp_small((long double) e * LN10_L);
        w = (int64_t) p;
        if ((double) w < p)
                w++;
        return w;
}

int64_t cpu_weight_to_shares_oci(int64_t weight)
{
        int64_t lo = CPU_MIN_SHARES, hi = CPU_MAX_SHARES;

        weight = clamp64(weight, CPU_MIN_WEIGHT, CPU_MAX_WEIGHT);
        /* the conversion is monotonic: the first shares reaching weight */
        while (lo < hi) {
                int64_t mid = lo + (hi - lo) / 2;
                if (cpu_shares_to_weight_oci(mid) >= weight)
                        hi = mid;
                else
                        lo = mid + 1;
        }
        return lo;
}

/* ---- OOM score ---- */

/* K8S: the memory request of a container's own list (Requests.Memory().Value()). */
static int container_memory_request(const json_t *ctr, int64_t *ret)
{
        struct rlist l;
        int r;

        if ((r = rlist_read(container_list(ctr, NULL, "requests"), &l)) < 0)
                return r;
        return rlist_value(&l, R_MEM, ret);
}

/* K8S: remainingPodMemReqPerContainer: the pod-level memory request minus what the containers'
 * requests add up to (AggregateContainerRequests), divided among every container, init
 * containers included; 0 without a pod-level memory request. */
static int remaining_pod_memory_per_container(const json_t *pod, int64_t *ret)
{
        const json_t *pl = json_path(pod, "spec.resources.requests");
        struct rlist podreq, aggr;
        int64_t want, have;
        size_t n = json_array_size(json_path(pod, "spec.containers")) +
                   json_array_size(json_path(pod, "spec.initContainers"));
        int r;

        *ret = 0;
        if ((r = rlist_read(pl, &podreq)) < 0)
                return r;
        if (rlist_zero(&podreq, R_MEM) || n == 0)
                return 0;
        if ((r = aggregate(pod, NULL, "requests", &aggr, NULL)) < 0 ||
            (r = rlist_value(&podreq, R_MEM, &want)) < 0 ||
            (r = rlist_value(&aggr, R_MEM, &have)) < 0)
                return r;
        *ret = (want - have) / (int64_t) n;
        return 0;
}

/* K8S: types.IsNodeCriticalPod: IsCriticalPod (priority >= SystemCriticalPriority, 2000000000)
 * with priorityClassName system-node-critical. */
static bool node_critical(const json_t *pod)
{
        const char *pc = json_path_string(pod, "spec.priorityClassName");
        const json_t *prio = json_path(pod, "spec.priority");

        return pc && streq(pc, "system-node-critical") && json_is_integer(prio) &&
               json_integer_value(prio) >= 2000000000;
}

int container_oom_score_adj(const json_t *pod, const char *name, int64_t memory_capacity, int *ret)
{
        const json_t *ctr = NULL, *c;
        bool sidecar = false;
        int64_t req, extra = 0, adj;
        const char *qos;
        size_t i;
        int r;

        if (memory_capacity <= 0)
                return -EINVAL;
        json_array_foreach(json_path(pod, "spec.containers"), i, c) {
                const char *n = json_string_value(json_object_get(c, "name"));
                if (!ctr && n && streq(n, name))
                        ctr = c;
        }
        json_array_foreach(json_path(pod, "spec.initContainers"), i, c) {
                const char *n = json_string_value(json_object_get(c, "name"));
                if (!ctr && n && streq(n, name)) {
                        ctr = c;
                        sidecar = is_sidecar(c);
                }
        }
        json_array_foreach(json_path(pod, "spec.ephemeralContainers"), i, c) {
                const char *n = json_string_value(json_object_get(c, "name"));
                if (!ctr && n && streq(n, name))
                        ctr = c;
        }
        if (!ctr)
                return -ENOENT;
        if (node_critical(pod)) {
                *ret = OOM_SCORE_ADJ_GUARANTEED;
                return 0;
        }
        qos = pod_qos_class_stored(pod);
        if (streq(qos, "Guaranteed") || streq(qos, "BestEffort")) {
                *ret = streq(qos, "Guaranteed") ? OOM_SCORE_ADJ_GUARANTEED
                                                : OOM_SCORE_ADJ_BESTEFFORT;
                return 0;
        }
        if ((r = container_memory_request(ctr, &req)) < 0)
                return r;
        /* K8S: PodLevelResources with a pod-level request (IsPodLevelRequestsSet) */
        if (list_has_pod_level_resource(json_path(pod, "spec.resources.requests")) &&
            (r = remaining_pod_memory_per_container(pod, &extra)) < 0)
                return r;
        adj = 1000 - 1000 * (req + extra) / memory_capacity;
        if (sidecar) {
                /* K8S: a sidecar scores no lower than the smallest regular container */
                const json_t *first = json_array_get(json_path(pod, "spec.containers"), 0);
                int64_t min = 0, v, min_adj;
                if (first && (r = container_memory_request(first, &min)) < 0)
                        return r;
                json_array_foreach(json_path(pod, "spec.containers"), i, c) {
                        if ((r = container_memory_request(c, &v)) < 0)
                                return r;
                        if (v < min)
                                min = v;
                }
                min_adj = 1000 - 1000 * (min + extra) / memory_capacity;
                if (adj > min_adj)
                        adj = min_adj;
        }
        if (adj < 1000 + OOM_SCORE_ADJ_GUARANTEED)
                adj = 1000 + OOM_SCORE_ADJ_GUARANTEED;
        else if (adj == OOM_SCORE_ADJ_BESTEFFORT)
                adj = OOM_SCORE_ADJ_BESTEFFORT - 1;
        *ret = (int) adj;
        return 0;
}
