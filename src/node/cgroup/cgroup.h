/* cgroup.h: the node agent's cgroups: create, limit, populate, observe, kill and remove the pod
 * and container cgroups below one flexlet root (--cgroup-root), on cgroup v2 or on v1/hybrid
 * hosts, through one interface.
 *
 * Paths. A manager is opened on a sysfs root ("/sys/fs/cgroup" in production, any directory laid
 * out like it in tests) and a flexlet root relative to it ("flexlet"). Every relpath below is
 * relative to the flexlet root ("kubepods/burstable/pod<uid>/<container-id>"; "" is the flexlet
 * root itself): components are non-empty and never "." or "..", there is no leading "/", at most
 * CGROUP_PATH_MAX bytes. Bad paths are -EINVAL. On v1 the same relpath exists under every
 * controller the manager uses (cpu, memory, and pids and cpuacct when mounted). All file access
 * goes through openat() on directory fds held by the manager.
 *
 * Errors. Functions return 0 (or a count) on success and -errno on failure, with a message in
 * *reterr that carries the kernel's words, e.g. `set memory limit of
 * "/sys/fs/cgroup/memory/flexlet/kubepods/pod1": Device or resource busy` (a v1 kernel refuses a
 * memory limit below usage with EBUSY; the errno is kept). A cgroup that does not exist is
 * -ENOENT. The manager is not thread-safe: one owner, or a lock around it.
 *
 * Units. Limits are in cgroup v1 units whatever the host runs: cpu.shares, CFS quota and period
 * in microseconds, bytes. On v2 the shares become cpu.weight with a conversion from
 * api/pod-resources.h: the kubelet's linear one by default (pod and QoS cgroups), the OCI
 * runtimes' quadratic one with CGROUP_WEIGHT_OCI (container cgroups). */
#ifndef FLEXLET_NODE_CGROUP_H
#define FLEXLET_NODE_CGROUP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/error.h"

#define CGROUP_PATH_MAX 1024

enum cgroup_version {
        CGROUP_V1, /* per-controller hierarchies (legacy or hybrid layout) */
        CGROUP_V2, /* unified hierarchy */
        CGROUP_VERSION_MAX,
};

/* "v1", "v2"; NULL if out of range. */
const char *cgroup_version_to_string(enum cgroup_version v);
/* Inverse of cgroup_version_to_string; -EINVAL for anything else. */
int cgroup_version_from_string(const char *s, enum cgroup_version *ret);

struct cgroup_manager;

/* Opens the cgroups at sysfs_root. v2 when sysfs_root has cgroup.controllers; else v1, which
 * needs a cpu hierarchy ("cpu", "cpu,cpuacct" or "cpuacct,cpu") and a "memory" one, and uses
 * "pids" and a separate "cpuacct" when present. Creates the flexlet root (and its parents) in
 * every hierarchy. On v2, cpu and memory (and pids when the root offers it) must be available
 * at sysfs_root; they are enabled in cgroup.subtree_control of every cgroup from sysfs_root down
 * to the flexlet root, and later in each cgroup that gets a child. -ENOENT when a needed
 * controller is missing. *ret is the caller's, freed with cgroup_manager_free. */
int cgroup_manager_open(const char *sysfs_root, const char *flexlet_root,
                        struct cgroup_manager **ret, struct error **reterr);
struct cgroup_manager *cgroup_manager_free(struct cgroup_manager *m);
DEFINE_CLEANUP(struct cgroup_manager, cgroup_manager_free, cgroup_manager)
#define cleanup_cgroup_manager cleanup_of(cgroup_manager_free)

enum cgroup_version cgroup_manager_version(const struct cgroup_manager *m);

/* Creates relpath and its missing parents in every hierarchy (an existing cgroup is fine). On
 * v2, each cgroup on the way that gets a child has the manager's controllers enabled in its
 * subtree_control first; the new leaf gets none, so it may hold processes. */
int cgroup_create(struct cgroup_manager *m, const char *relpath, struct error **reterr);

/* Values of cgroup_set_limits / cgroup_get_limits, in cgroup v1 units. */
struct cgroup_limits {
        int64_t cpu_shares;         /* 2..262144 */
        int64_t cpu_quota_us;       /* -1: unlimited; else >= 1000 */
        int64_t cpu_period_us;      /* 1000..1000000 */
        int64_t memory_limit_bytes; /* -1: unlimited; else > 0 */
        /* Read back only (set ignores it): v2 the raw cpu.weight, v1 -1. */
        int64_t cpu_weight;
};

/* Flags of cgroup_set_limits: which values to write. */
#define CGROUP_CPU_SHARES (1u << 0) /* v1 cpu.shares; v2 cpu.weight */
#define CGROUP_CPU_QUOTA                                                   \
 (1u << 1) /* quota and period: v1 cpu.cfs_period_us and cpu.cfs_quota_us; \
              v2 cpu.max "<quota|max> <period>" */
/* v1 memory.limit_in_bytes ("-1"); v2 memory.max ("max"), and memory.high back to "max" when it
 * is not (cgroup_lower_memory_limit cut short by a crash) */
#define CGROUP_MEMORY     (1u << 2)
#define CGROUP_ALL_LIMITS (CGROUP_CPU_SHARES | CGROUP_CPU_QUOTA | CGROUP_MEMORY)
/* A container's cgroup, written as the OCI runtime would on v2: with CGROUP_CPU_SHARES the
 * runtimes' conversion (cpu_shares_to_weight_oci) instead of the kubelet's linear formula; with
 * CGROUP_MEMORY also memory.swap.max "0" when the kernel has it (the kubelet's NoSwap). No
 * effect on v1. */
#define CGROUP_WEIGHT_OCI (1u << 8)

/* Writes the values which selects, in the order memory, shares, quota; stops at the first
 * failure (the values before it stay written). Out-of-range values are -EINVAL before any
 * write. On v1 the period is written before the quota, and after it when the kernel refuses
 * the period first (EINVAL), as runc does. A v1 kernel refuses a quota above the parent's with
 * EINVAL and a memory limit below usage with EBUSY. */
int cgroup_set_limits(struct cgroup_manager *m, const char *relpath, const struct cgroup_limits *l,
                      unsigned which, struct error **reterr);
/* Lowers relpath's memory limit to l->memory_limit_bytes (> 0), narrowing the window in which
 * usage that rises after the caller's usage check meets the new limit:
 *  - v1: memory.limit_in_bytes, as cgroup_set_limits (the kernel refuses a limit below usage
 *    with EBUSY, so a rise costs a retry, never a kill);
 *  - v2, where memory.max below usage is taken and reclaimed, with an OOM kill for what cannot
 *    be reclaimed: memory.high is set to the new limit first (the kernel reclaims down to it
 *    and from then on throttles the cgroup's allocations above it, and never kills), usage is
 *    read until it is at most the limit (for up to wait_ms), then memory.max (and, with
 *    CGROUP_WEIGHT_OCI, memory.swap.max 0) is written, and memory.high goes back to "max",
 *    whatever happened. Usage still above the limit after wait_ms: -EBUSY with the usage in
 *    *ret_usage and memory.max untouched (the caller retries, as after v1's EBUSY). A cgroup
 *    without memory.high: a plain cgroup_set_limits.
 * What is left of the window on v2: an allocation in flight when memory.max is written can
 * still push usage over it; the kernel lets a cgroup exceed memory.high by up to its charge
 * batch before it throttles. flags: 0 or CGROUP_WEIGHT_OCI. */
int cgroup_lower_memory_limit(struct cgroup_manager *m, const char *relpath,
                              const struct cgroup_limits *l, unsigned flags, unsigned wait_ms,
                              uint64_t *ret_usage, struct error **reterr);
/* Reads the limits back from the kernel's files. On v2 cpu_shares is cpu.weight converted back
 * with the kubelet's inverse (cpu_weight_to_shares; lossy: 1024 -> weight 39 -> 998) and
 * cpu_weight holds the raw value, so a caller that wrote with CGROUP_WEIGHT_OCI compares
 * weights (or uses cpu_weight_to_shares_oci). A v1 memory limit at the kernel's "no limit"
 * value (PAGE_COUNTER_MAX pages, ~2^63) reads as -1. */
int cgroup_get_limits(struct cgroup_manager *m, const char *relpath, struct cgroup_limits *ret,
                      struct error **reterr);

/* The device nodes relpath's processes may open and make, set as runc sets them for a container
 * (call it on a new, empty cgroup below the flexlet root, before a process joins). allow_all
 * (a privileged container): every device. Otherwise runc's default allowlist: mknod of any
 * device, and read/write of /dev/null, zero, full, random, urandom, tty, ptmx and the ptys of
 * /dev/pts (136:*); opening any other device node is EPERM, even for root. v1: the devices
 * controller ("devices" below sysfs_root, -ENOENT when absent): "a" written to devices.deny then
 * each rule to devices.allow ("a" to devices.allow for allow_all). v2: a
 * BPF_PROG_TYPE_CGROUP_DEVICE program attached with BPF_F_ALLOW_MULTI (none for allow_all); the
 * kernel frees it with the cgroup. Loading needs CAP_BPF or CAP_SYS_ADMIN and a kernel with
 * CONFIG_CGROUP_BPF; its refusal (EPERM, EINVAL) comes back as is. */
int cgroup_set_devices(struct cgroup_manager *m, const char *relpath, bool allow_all,
                       struct error **reterr);

/* Moves process pid into relpath (every hierarchy on v1). */
int cgroup_add_pid(struct cgroup_manager *m, const char *relpath, pid_t pid, struct error **reterr);
/* The absolute paths of relpath's cgroup.procs files (one on v2, one per hierarchy on v1), as
 * a NULL-terminated array the caller frees with cgroup_strv_free; *ret_n (when not NULL) is the
 * count. For a child between fork and exec: open them before forking, then the child writes
 * "0" to each (the kernel reads 0 as "the writing process") before exec. */
int cgroup_procs_paths(struct cgroup_manager *m, const char *relpath, char ***ret, size_t *ret_n,
                       struct error **reterr);
char **cgroup_strv_free(char **v);

/* The memory limit of relpath in bytes, -1 for none: v2 memory.max, v1 memory.limit_in_bytes
 * (one file read, where cgroup_get_limits reads them all). */
int cgroup_memory_limit(struct cgroup_manager *m, const char *relpath, int64_t *ret,
                        struct error **reterr);
/* Bytes charged to relpath and its descendants: v2 memory.current, v1 memory.usage_in_bytes. */
int cgroup_memory_usage(struct cgroup_manager *m, const char *relpath, uint64_t *ret,
                        struct error **reterr);
/* What a cgroup used, as the kubelet's stats read it (K8S: cadvisor through runc's
 * libcontainer/cgroups fs and fs2 GetStats). Cumulative counters only grow while the cgroup
 * lives; a rate needs two samples (node/stats-summary.h). */
struct cgroup_stats {
        uint64_t cpu_usage_ns;  /* v2 cpu.stat usage_usec * 1000; v1 cpuacct.usage */
        uint64_t memory_usage;  /* v2 memory.current; v1 memory.usage_in_bytes */
        uint64_t inactive_file; /* v2 memory.stat inactive_file; v1 total_inactive_file */
        uint64_t rss;           /* v2 memory.stat anon; v1 total_rss */
        uint64_t pgfault;       /* v2 memory.stat pgfault; v1 total_pgfault */
        uint64_t pgmajfault;    /* v2 memory.stat pgmajfault; v1 total_pgmajfault */
        int64_t memory_limit;   /* v2 memory.max; v1 memory.limit_in_bytes; -1 unlimited */
};

/* Reads relpath's usage counters (the cgroup and its descendants). Only reads, through the
 * manager's directory fds, which do not change after cgroup_manager_open: safe from any thread
 * while the manager lives, beside its owner's writes. -ENOENT when the cgroup is gone (a
 * container that just ended). */
int cgroup_stats(struct cgroup_manager *m, const char *relpath, struct cgroup_stats *ret,
                 struct error **reterr);

/* K8S cadvisor setMemoryStats: the working set is usage minus the inactive file cache (pages
 * the kernel can drop first), floored at 0. */
uint64_t cgroup_working_set(const struct cgroup_stats *st);

/* How many processes the OOM killer killed in relpath (and below it): v2 the oom_kill line of
 * memory.events; v1 the oom_kill line of memory.oom_control (Linux >= 4.13). An older v1 kernel
 * has no such count: -EOPNOTSUPP. Its other signals (under_oom: an OOM in progress; failcnt:
 * times usage hit the limit, reclaim included) do not count kills, so no number is made up
 * from them. */
int cgroup_oom_kills(struct cgroup_manager *m, const char *relpath, uint64_t *ret,
                     struct error **reterr);
/* The processes directly in relpath (its cgroup.procs, not its descendants'), as a new array
 * the caller frees; *ret_n is the count (*ret may be NULL when 0). On v1 from the memory
 * hierarchy. */
int cgroup_pids(struct cgroup_manager *m, const char *relpath, pid_t **ret, size_t *ret_n,
                struct error **reterr);
/* Kills every process in relpath and its descendants and returns once none is left. v2 with
 * cgroup.kill (Linux >= 5.14): one write, then a wait for the cgroups to empty. Otherwise
 * SIGKILL to each process listed in any cgroup of the subtree, in every hierarchy, read again
 * and repeated until two rounds in a row find no living process (forks racing the kill are
 * caught by the second look). Bounded: -EBUSY after about two seconds with processes left.
 * A relpath that does not exist is success (nothing to kill). */
int cgroup_kill(struct cgroup_manager *m, const char *relpath, struct error **reterr);
/* Removes relpath and every cgroup below it, deepest first, in every hierarchy. A cgroup that
 * is already gone is success; one that still holds processes fails with the kernel's EBUSY
 * (kill first). relpath "" removes the flexlet root itself, after which the manager is only
 * good for cgroup_manager_free. */
int cgroup_destroy(struct cgroup_manager *m, const char *relpath, struct error **reterr);

#endif
