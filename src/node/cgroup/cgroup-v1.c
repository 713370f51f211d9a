/* cgroup-v1.c: per-controller hierarchies (legacy and hybrid layouts): finding the cpu, memory,
 * pids, cpuacct and devices mounts (devices.c writes the last), limits in cpu.shares,
 * cpu.cfs_period_us, cpu.cfs_quota_us and memory.limit_in_bytes, usage in memory.usage_in_bytes,
 * OOM kills in memory.oom_control. v1 has no one-step kill; cgroup.c signals each process. Nothing
 * here knows about pods. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "node/cgroup/cgroup-internal.h"

/* A v1 memory cgroup without a limit shows PAGE_COUNTER_MAX pages (LONG_MAX rounded down to the
 * page size: 9223372036854771712 with 4 KiB pages); anything this close to 2^63 is "none". */
#define V1_MEMORY_UNLIMITED_MIN (INT64_MAX - (INT64_C(1) << 24))

struct v1_candidate {
        unsigned ctrl;
        const char *dirs[3]; /* names a mount of this controller takes, in order of preference */
        const char *probe;   /* a file only this controller has, even at its root */
        bool required;
};

static const struct v1_candidate v1_candidates[] = {
        { CG_CTRL_CPU, { "cpu", "cpu,cpuacct", "cpuacct,cpu" }, "cpu.shares", true },
        { CG_CTRL_MEMORY, { "memory" }, "memory.limit_in_bytes", true },
        { CG_CTRL_PIDS, { "pids" }, "cgroup.procs", false }, /* its root has no pids.* file */
        { CG_CTRL_CPUACCT, { "cpuacct", "cpuacct,cpu", "cpu,cpuacct" }, "cpuacct.usage", false },
        { CG_CTRL_DEVICES, { "devices" }, "devices.list", false },
};

static int v1_detect(struct cgroup_manager *m, struct error **reterr)
{
        struct stat seen[CG_MAX_HIERARCHIES];

        for (size_t c = 0; c < ARRAY_SIZE(v1_candidates); c++) {
                const struct v1_candidate *cand = &v1_candidates[c];
                bool found = false;

                for (size_t d = 0; !found && d < ARRAY_SIZE(cand->dirs) && cand->dirs[d]; d++) {
                        cleanup_close int fd = openat(m->sysfs_fd, cand->dirs[d],
                                                      O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                        struct stat st;
                        bool dup = false;

                        if (fd < 0 || faccessat(fd, cand->probe, F_OK, 0) < 0 || fstat(fd, &st) < 0)
                                continue;
                        found = true;
                        /* "cpu" and "cpuacct" are often links to one "cpu,cpuacct" mount */
                        for (size_t i = 0; i < m->n_h; i++) {
                                if (seen[i].st_dev == st.st_dev && seen[i].st_ino == st.st_ino) {
                                        m->h[i].ctrls |= cand->ctrl;
                                        dup = true;
                                }
                        }
                        if (dup)
                                continue;
                        seen[m->n_h] = st;
                        m->h[m->n_h++] = (struct cg_hierarchy){ .name = xstrdup(cand->dirs[d]),
                                                                .ctrls = cand->ctrl,
                                                                .root_fd = -1 };
                }
                if (!found && cand->required)
                        return error_set(reterr, ENOENT,
                                         "cgroup controller \"%s\" not found under \"%s\"",
                                         cand->dirs[0], m->sysfs_root);
        }
        return 0;
}

static int v1_prepare_parent(struct cgroup_manager *m, int dirfd, const char *abs,
                             struct error **reterr)
{
        /* v1 controllers are on in every cgroup of their hierarchy */
        return 0;
}

static int write_int64(int dirfd, const char *name, int64_t v)
{
        char value[32];

        snprintf(value, sizeof(value), "%" PRId64, v);
        return cg_write_file(dirfd, name, value);
}

static int set_error(struct cg_hierarchy *h, const char *relpath, const char *what, int r,
                     struct error **reterr)
{
        cleanup_free char *abs = cg_abs(h, relpath);

        return error_set(reterr, -r, "set %s of \"%s\": %s", what, abs, strerror(-r));
}

static int v1_set_limits(struct cgroup_manager *m, const char *relpath,
                         const struct cgroup_limits *l, unsigned which, struct error **reterr)
{
        struct cg_hierarchy *cpu = cg_hierarchy_for(m, CG_CTRL_CPU);
        struct cg_hierarchy *mem = cg_hierarchy_for(m, CG_CTRL_MEMORY);
        int r;

        if (which & CGROUP_MEMORY) {
                cleanup_close int fd = cg_open_dir(mem, relpath, "set memory limit", reterr);
                if (fd < 0)
                        return fd;
                /* K8S (KEP-1287 "Memory Limit Decreases"): a v1 kernel refuses a limit below
                 * usage with EBUSY after failing to reclaim; the errno travels up as is */
                if ((r = write_int64(fd, "memory.limit_in_bytes", l->memory_limit_bytes)) < 0)
                        return set_error(mem, relpath, "memory limit", r, reterr);
        }
        if (which & (CGROUP_CPU_SHARES | CGROUP_CPU_QUOTA)) {
                cleanup_close int fd = cg_open_dir(cpu, relpath, "set cpu limits", reterr);
                if (fd < 0)
                        return fd;
                if ((which & CGROUP_CPU_SHARES) &&
                    (r = write_int64(fd, "cpu.shares", l->cpu_shares)) < 0)
                        return set_error(cpu, relpath, "cpu shares", r, reterr);
                if (which & CGROUP_CPU_QUOTA) {
                        /* the kernel checks quota against period (and the parent's ratio): as
                         * runc, period first, and when the kernel refuses it, quota first */
                        r = write_int64(fd, "cpu.cfs_period_us", l->cpu_period_us);
                        if (r == -EINVAL) {
                                if ((r = write_int64(fd, "cpu.cfs_quota_us", l->cpu_quota_us)) < 0)
                                        return set_error(cpu, relpath, "cpu quota", r, reterr);
                                r = write_int64(fd, "cpu.cfs_period_us", l->cpu_period_us);
                                if (r < 0)
                                        return set_error(cpu, relpath, "cpu period", r, reterr);
                        } else if (r < 0) {
                                return set_error(cpu, relpath, "cpu period", r, reterr);
                        } else if ((r = write_int64(fd, "cpu.cfs_quota_us", l->cpu_quota_us)) < 0) {
                                return set_error(cpu, relpath, "cpu quota", r, reterr);
                        }
                }
        }
        return 0;
}

static int read_error(struct cg_hierarchy *h, const char *relpath, const char *file, int r,
                      struct error **reterr)
{
        cleanup_free char *abs = cg_abs(h, relpath);

        return error_set(reterr, -r, "read \"%s/%s\": %s", abs, file, strerror(-r));
}

/* memory.limit_in_bytes of the memory cgroup open at fd, -1 for unlimited. */
static int read_memory_limit(int fd, int64_t *ret)
{
        int r = cg_read_int64(fd, "memory.limit_in_bytes", ret);

        if (r >= 0 && (*ret >= V1_MEMORY_UNLIMITED_MIN || *ret < 0))
                *ret = -1;
        return r;
}

static int v1_get_limits(struct cgroup_manager *m, const char *relpath, struct cgroup_limits *ret,
                         struct error **reterr)
{
        struct cg_hierarchy *cpu = cg_hierarchy_for(m, CG_CTRL_CPU);
        struct cg_hierarchy *mem = cg_hierarchy_for(m, CG_CTRL_MEMORY);
        cleanup_close int cfd = cg_open_dir(cpu, relpath, "read limits", reterr);
        cleanup_close int mfd = -1;
        struct cgroup_limits l = { .cpu_weight = -1 };
        int r;

        if (cfd < 0)
                return cfd;
        mfd = cg_open_dir(mem, relpath, "read limits", reterr);
        if (mfd < 0)
                return mfd;
        if ((r = cg_read_int64(cfd, "cpu.shares", &l.cpu_shares)) < 0)
                return read_error(cpu, relpath, "cpu.shares", r, reterr);
        if ((r = cg_read_int64(cfd, "cpu.cfs_quota_us", &l.cpu_quota_us)) < 0)
                return read_error(cpu, relpath, "cpu.cfs_quota_us", r, reterr);
        if (l.cpu_quota_us < 0)
                l.cpu_quota_us = -1;
        if ((r = cg_read_int64(cfd, "cpu.cfs_period_us", &l.cpu_period_us)) < 0)
                return read_error(cpu, relpath, "cpu.cfs_period_us", r, reterr);
        if ((r = read_memory_limit(mfd, &l.memory_limit_bytes)) < 0)
                return read_error(mem, relpath, "memory.limit_in_bytes", r, reterr);
        *ret = l;
        return 0;
}

static int v1_memory_limit(struct cgroup_manager *m, const char *relpath, int64_t *ret,
                           struct error **reterr)
{
        struct cg_hierarchy *mem = cg_hierarchy_for(m, CG_CTRL_MEMORY);
        cleanup_close int fd = cg_open_dir(mem, relpath, "read the memory limit", reterr);
        int r;

        if (fd < 0)
                return fd;
        if ((r = read_memory_limit(fd, ret)) < 0)
                return read_error(mem, relpath, "memory.limit_in_bytes", r, reterr);
        return 0;
}

static int v1_memory_usage(struct cgroup_manager *m, const char *relpath, uint64_t *ret,
                           struct error **reterr)
{
        struct cg_hierarchy *h = cg_hierarchy_for(m, CG_CTRL_MEMORY);
        cleanup_close int fd = cg_open_dir(h, relpath, "read memory usage", reterr);
        int64_t v;
        int r;

        if (fd < 0)
                return fd;
        if ((r = cg_read_int64(fd, "memory.usage_in_bytes", &v)) < 0 || (v < 0 && (r = -EINVAL))) {
                cleanup_free char *abs = cg_abs(h, relpath);
                return error_set(reterr, -r, "read memory usage of \"%s\": %s", abs, strerror(-r));
        }
        *ret = (uint64_t) v;
        return 0;
}

/* K8S runc libcontainer/cgroups/fs cpuacct and memory GetStats: cpuacct.usage, and
 * memory.usage_in_bytes with memory.stat's hierarchical total_* lines. */
static int v1_stats(struct cgroup_manager *m, const char *relpath, struct cgroup_stats *ret,
                    struct error **reterr)
{
        struct cg_hierarchy *ch = cg_hierarchy_for(m, CG_CTRL_CPUACCT);
        struct cg_hierarchy *mh = cg_hierarchy_for(m, CG_CTRL_MEMORY);
        cleanup_close int mfd = -1, cfd = -1;
        int64_t usage, cpu = 0;
        int r;

        if (!ch)
                return error_set(reterr, EOPNOTSUPP, "read stats: no cpuacct hierarchy");
        mfd = cg_open_dir(mh, relpath, "read stats", reterr);
        if (mfd < 0)
                return mfd;
        cfd = cg_open_dir(ch, relpath, "read stats", reterr);
        if (cfd < 0)
                return cfd;
        if ((r = cg_read_int64(cfd, "cpuacct.usage", &cpu)) < 0 || (cpu < 0 && (r = -EINVAL))) {
                cleanup_free char *abs = cg_abs(ch, relpath);
                return error_set(reterr, -r, "read stats of \"%s\": %s", abs, strerror(-r));
        }
        if ((r = cg_read_int64(mfd, "memory.usage_in_bytes", &usage)) < 0 ||
            (usage < 0 && (r = -EINVAL)) ||
            (r = cg_read_keyed(mfd, "memory.stat", "total_inactive_file", &ret->inactive_file)) <
                    0 ||
            (r = cg_read_keyed(mfd, "memory.stat", "total_rss", &ret->rss)) < 0) {
                cleanup_free char *abs = cg_abs(mh, relpath);
                return error_set(reterr, -r, "read stats of \"%s\": %s", abs, strerror(-r));
        }
        (void) cg_read_keyed(mfd, "memory.stat", "total_pgfault", &ret->pgfault);
        (void) cg_read_keyed(mfd, "memory.stat", "total_pgmajfault", &ret->pgmajfault);
        ret->cpu_usage_ns = (uint64_t) cpu;
        ret->memory_usage = (uint64_t) usage;
        return 0;
}

static int v1_oom_kills(struct cgroup_manager *m, const char *relpath, uint64_t *ret,
                        struct error **reterr)
{
        struct cg_hierarchy *h = cg_hierarchy_for(m, CG_CTRL_MEMORY);
        cleanup_close int fd = cg_open_dir(h, relpath, "read oom kills", reterr);
        cleanup_free char *abs = NULL;
        int r;

        if (fd < 0)
                return fd;
        r = cg_read_keyed(fd, "memory.oom_control", "oom_kill", ret);
        if (r == 0)
                return 0;
        abs = cg_abs(h, relpath);
        if (r == -ENOKEY)
                /* Linux < 4.13: under_oom and failcnt do not count kills (see cgroup.h) */
                return error_set(reterr, EOPNOTSUPP,
                                 "read oom kills of \"%s\": memory.oom_control has no oom_kill "
                                 "count (Linux older than 4.13)",
                                 abs);
        return error_set(reterr, -r, "read oom kills of \"%s\": %s", abs, strerror(-r));
}

static int v1_kill_fast(struct cgroup_manager *m, const char *relpath, struct error **reterr)
{
        return 0;
}

/* v1's memory.soft_limit_in_bytes only steers global reclaim; it neither throttles nor bounds
 * the cgroup, so nothing here stands for v2's memory.high. */
static int v1_set_memory_high(struct cgroup_manager *m, const char *relpath, int64_t high,
                              struct error **reterr)
{
        return -EOPNOTSUPP;
}

const struct cgroup_ops cgroup_ops_v1 = {
        .version = CGROUP_V1,
        .detect = v1_detect,
        .prepare_parent = v1_prepare_parent,
        .set_limits = v1_set_limits,
        .get_limits = v1_get_limits,
        .memory_limit = v1_memory_limit,
        .memory_usage = v1_memory_usage,
        .oom_kills = v1_oom_kills,
        .stats = v1_stats,
        .kill_fast = v1_kill_fast,
        .set_memory_high = v1_set_memory_high,
};
