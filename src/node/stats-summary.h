/* stats-summary.h: the kubelet's Summary API (GET /stats/summary) as data and as JSON, in the
 * shape of k8s.io/kubelet/pkg/apis/stats/v1alpha1 (Summary, NodeStats, PodStats,
 * ContainerStats, CPUStats, MemoryStats, FsStats, VolumeStats), and the pieces that turn raw
 * counters into it: the CPU rate between two samples (as the kubelet's CRI stats provider's
 * getAndUpdateContainerUsageNanoCores), the node's counters from /proc/stat and /proc/meminfo.
 *
 * Everything here is pure over plain data but the rate cache, which is locked inside and may
 * be used from any thread. Reading the cgroups and file systems is the caller's (the node
 * agent's, through node/cgroup/cgroup.h cgroup_stats and statfs). */
#ifndef FLEXLET_NODE_STATS_SUMMARY_H
#define FLEXLET_NODE_STATS_SUMMARY_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* CPUStats: cumulative core-nanoseconds and, once two samples are far enough apart, the rate. */
struct stats_cpu {
        bool valid; /* false: the object is left out */
        uint64_t usage_core_ns;
        bool has_rate; /* false: usageNanoCores is left out (K8S: nil until a second sample) */
        uint64_t usage_nano_cores;
};

/* MemoryStats, in bytes. */
struct stats_memory {
        bool valid;
        uint64_t usage, working_set, rss, page_faults, major_page_faults;
        bool has_available; /* only under a limit (K8S cadvisor: limit - working set) */
        uint64_t available;
};

/* FsStats / the file system part of VolumeStats, from statfs. */
struct stats_fs {
        bool valid;
        uint64_t capacity, available, used, inodes, inodes_free, inodes_used;
};

struct stats_container {
        const char *name;
        const char *start_time; /* RFC 3339 or NULL */
        struct stats_cpu cpu;
        struct stats_memory memory;
};

struct stats_volume {
        const char *name;
        const char *pvc_name; /* a persistentVolumeClaim volume's claim (pvcRef), or NULL */
        struct stats_fs fs;
};

struct stats_pod {
        const char *name, *ns, *uid;
        const char *start_time; /* RFC 3339 or NULL */
        struct stats_cpu cpu;
        struct stats_memory memory;
        struct stats_container *containers;
        size_t n_containers;
        struct stats_volume *volumes;
        size_t n_volumes;
};

struct stats_node {
        const char *name;
        const char *start_time; /* RFC 3339 or NULL */
        struct stats_cpu cpu;
        struct stats_memory memory;
        struct stats_fs fs; /* the file system of the kubelet's data dir (K8S: nodefs) */
};

/* The Summary object (new reference). now: the RFC 3339 time every CPU, memory and fs stat
 * carries (K8S: each stat's "time"). Pods in the order given. */
json_t *stats_summary_json(const struct stats_node *node, const struct stats_pod *pods, size_t n,
                           const char *now);

/* Memory stats from a cgroup's usage counters (bytes), limit < 0 meaning none: the working set
 * as cadvisor (usage - inactive_file, floored at 0) and availableBytes under a limit. */
struct stats_memory stats_memory_from(uint64_t usage, uint64_t inactive_file, uint64_t rss,
                                      uint64_t page_faults, uint64_t major_page_faults,
                                      int64_t limit);

/* ---- the CPU rate ---- */

/* Samples are at least this far apart before a rate is taken from them, so two requests in
 * quick succession do not divide by a few microseconds. */
#define STATS_RATE_MIN_WINDOW_NS (1000LL * 1000 * 1000)
/* A cgroup not sampled for this long is forgotten (it ended). */
#define STATS_RATE_EXPIRY_NS (120LL * 1000 * 1000 * 1000)

struct stats_rate_cache;

struct stats_rate_cache *stats_rate_cache_new(void);
struct stats_rate_cache *stats_rate_cache_free(struct stats_rate_cache *c);

/* Records a cumulative CPU sample (core-nanoseconds) of key (a cgroup) taken at now_ns
 * (CLOCK_MONOTONIC) and fills *ret (usage_core_ns, and the rate when known). K8S
 * getAndUpdateContainerUsageNanoCores: the rate is (usage - cached usage) / (now - cached time)
 * in cores * 1e9; the cache keeps the sample it was taken from until a new one is at least
 * STATS_RATE_MIN_WINDOW_NS newer (meanwhile the last rate is answered again, as the kubelet
 * answers from its cache). A counter that went back (a new cgroup of the same name) starts
 * over. Entries older than STATS_RATE_EXPIRY_NS are dropped on the way. Thread-safe. */
void stats_rate_sample(struct stats_rate_cache *c, const char *key, uint64_t usage_core_ns,
                       int64_t now_ns, struct stats_cpu *ret);

/* ---- the node's counters ---- */

/* /proc/stat's aggregate "cpu" line: the busy time (user, nice, system, irq, softirq, steal;
 * not idle nor iowait) in nanoseconds, given the clock ticks per second (sysconf(_SC_CLK_TCK)).
 * -EINVAL when the line is missing or malformed. */
int stats_parse_proc_stat(const char *text, long ticks_per_s, uint64_t *ret_ns);

struct stats_meminfo {
        uint64_t total, free, inactive_file, anon; /* bytes */
};
/* /proc/meminfo's MemTotal, MemFree, Inactive(file) and AnonPages. -EINVAL when MemTotal or
 * MemFree is missing (the others read 0 when absent). */
int stats_parse_meminfo(const char *text, struct stats_meminfo *ret);
/* The node's memory stats from meminfo, as cadvisor's root container on a cgroup v2 host
 * (K8S runc fs2 rootStatsFromMeminfo): usage MemTotal - MemFree, working set usage minus
 * Inactive(file), rss AnonPages, availableBytes MemTotal - working set. */
struct stats_memory stats_node_memory(const struct stats_meminfo *mi);

#endif
