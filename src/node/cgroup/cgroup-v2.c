/* cgroup-v2.c: the unified hierarchy: controllers enabled in cgroup.subtree_control on the way
 * down, limits in cpu.weight, cpu.max and memory.max, usage in memory.current, OOM kills in
 * memory.events, one-step kill through cgroup.kill. Nothing here knows about pods. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/pod-resources.h"
#include "base/alloc.h"
#include "base/strbuf.h"
#include "node/cgroup/cgroup-internal.h"

static const struct {
        const char *name;
        unsigned bit;
        bool required;
} v2_ctrls[] = {
        { "cpu", CG_CTRL_CPU, true },
        { "memory", CG_CTRL_MEMORY, true },
        { "pids", CG_CTRL_PIDS, false },
};

/* The controller bits named in a space-separated list ("cpu memory pids"). */
static unsigned parse_ctrls(const char *text)
{
        cleanup_free char *copy = xstrdup(text);
        char *save = NULL;
        unsigned bits = 0;

        for (char *t = strtok_r(copy, " \t\n", &save); t; t = strtok_r(NULL, " \t\n", &save)) {
                for (size_t i = 0; i < ARRAY_SIZE(v2_ctrls); i++) {
                        if (streq(t, v2_ctrls[i].name))
                                bits |= v2_ctrls[i].bit;
                }
        }
        return bits;
}

static int v2_detect(struct cgroup_manager *m, struct error **reterr)
{
        cleanup_free char *text = NULL;
        ssize_t n = cg_read_file(m->sysfs_fd, "cgroup.controllers", 65536, &text);
        unsigned avail;

        if (n < 0)
                return error_set(reterr, (int) -n, "read \"%s/cgroup.controllers\": %s",
                                 m->sysfs_root, strerror((int) -n));
        avail = parse_ctrls(text);
        for (size_t i = 0; i < ARRAY_SIZE(v2_ctrls); i++) {
                if (avail & v2_ctrls[i].bit)
                        m->v2_ctrls |= v2_ctrls[i].bit;
                else if (v2_ctrls[i].required)
                        return error_set(reterr, ENOENT,
                                         "cgroup v2 controller \"%s\" not available in \"%s\"",
                                         v2_ctrls[i].name, m->sysfs_root);
        }
        m->h[0] = (struct cg_hierarchy){ .name = xstrdup(""), .ctrls = m->v2_ctrls, .root_fd = -1 };
        m->n_h = 1;
        return 0;
}

/* Why the kernel refused to enable controllers in a cgroup, in words a person running flexlet
 * under systemd or in a container can act on (Documentation/admin-guide/cgroup-v2.rst: "No
 * Internal Process Constraint", "Delegation"). */
static const char *enable_hint(int dirfd, int err, char *buf, size_t size)
{
        cleanup_free char *have = NULL;

        switch (err) {
        case EBUSY:
                return ": the cgroup holds processes of its own, and cgroup v2 gives controllers "
                       "only to the children of a cgroup without processes; give --cgroup-root "
                       "below a cgroup with none (under systemd: Delegate=yes and flexlet in a "
                       "child cgroup of its unit's, docs/cgroups.md)";
        case ENOENT:
                if (cg_read_file(dirfd, "cgroup.controllers", 4096, &have) < 0)
                        have = xstrdup("");
                have[strcspn(have, "\n")] = '\0';
                snprintf(buf, size,
                         ": its parent does not delegate them (its cgroup.controllers: \"%s\"); "
                         "under systemd: Delegate=yes on flexlet's unit",
                         have);
                return buf;
        case EACCES:
        case EPERM:
        case EROFS:
                return ": the cgroup tree is not writable by flexlet (run it as root with a "
                       "writable /sys/fs/cgroup; under systemd: Delegate=yes)";
        default:
                return "";
        }
}

/* Kernel rule: a v2 cgroup's children get a controller only when the cgroup lists it in
 * cgroup.subtree_control; only missing ones are written ("+cpu +memory"), so a cgroup that
 * already has them is never touched (writing would fail with EBUSY on one holding processes,
 * the "no internal processes" rule). */
static int v2_prepare_parent(struct cgroup_manager *m, int dirfd, const char *abs,
                             struct error **reterr)
{
        cleanup_free char *text = NULL;
        ssize_t n = cg_read_file(dirfd, "cgroup.subtree_control", 65536, &text);
        unsigned missing;
        struct strbuf sb;
        char hint[512];
        int r;

        if (n < 0)
                return error_set(reterr, (int) -n, "enable controllers in \"%s\": %s", abs,
                                 strerror((int) -n));
        missing = m->v2_ctrls & ~parse_ctrls(text);
        if (!missing)
                return 0;
        strbuf_init(&sb);
        for (size_t i = 0; i < ARRAY_SIZE(v2_ctrls); i++) {
                if (missing & v2_ctrls[i].bit)
                        strbuf_addf(&sb, "%s+%s", sb.len ? " " : "", v2_ctrls[i].name);
        }
        r = cg_write_file(dirfd, "cgroup.subtree_control", sb.buf);
        if (r < 0)
                error_set(reterr, -r, "enable controllers \"%s\" in \"%s\": %s%s", sb.buf, abs,
                          strerror(-r), enable_hint(dirfd, -r, hint, sizeof(hint)));
        strbuf_release(&sb);
        return r;
}

static int v2_set_limits(struct cgroup_manager *m, const char *relpath,
                         const struct cgroup_limits *l, unsigned which, struct error **reterr)
{
        struct cg_hierarchy *h = &m->h[0];
        cleanup_close int fd = cg_open_dir(h, relpath, "set limits", reterr);
        const char *what = NULL;
        char value[64];
        int64_t high;
        int r = 0;

        if (fd < 0)
                return fd;
        if (which & CGROUP_MEMORY) {
                if (l->memory_limit_bytes < 0)
                        snprintf(value, sizeof(value), "max");
                else
                        snprintf(value, sizeof(value), "%" PRId64, l->memory_limit_bytes);
                what = "memory limit";
                r = cg_write_file(fd, "memory.max", value);
                /* a decrease that flexlet's crash cut between its memory.high and memory.max
                 * steps (cgroup_lower_memory_limit) left memory.high at the new limit; the
                 * step is done again and ends here, so no soft limit stays behind */
                if (r == 0 && cg_read_int64(fd, "memory.high", &high) == 0 && high != -1) {
                        what = "memory.high";
                        r = cg_write_file(fd, "memory.high", "max");
                }
                /* K8S: a container gets no swap (the kubelet's ConfigureNoSwap: unified
                 * memory.swap.max "0", written by the runtime), where the kernel has swap
                 * accounting (the file exists) */
                if (r == 0 && (which & CGROUP_WEIGHT_OCI) &&
                    faccessat(fd, "memory.swap.max", F_OK, 0) == 0) {
                        what = "swap limit";
                        r = cg_write_file(fd, "memory.swap.max", "0");
                }
        }
        if (r == 0 && (which & CGROUP_CPU_SHARES)) {
                int64_t w = which & CGROUP_WEIGHT_OCI ? cpu_shares_to_weight_oci(l->cpu_shares)
                                                      : cpu_shares_to_weight(l->cpu_shares);
                snprintf(value, sizeof(value), "%" PRId64, w);
                what = "cpu weight";
                r = cg_write_file(fd, "cpu.weight", value);
        }
        if (r == 0 && (which & CGROUP_CPU_QUOTA)) {
                if (l->cpu_quota_us < 0)
                        snprintf(value, sizeof(value), "max %" PRId64, l->cpu_period_us);
                else
                        snprintf(value, sizeof(value), "%" PRId64 " %" PRId64, l->cpu_quota_us,
                                 l->cpu_period_us);
                what = "cpu quota";
                r = cg_write_file(fd, "cpu.max", value);
        }
        if (r < 0) {
                cleanup_free char *abs = cg_abs(h, relpath);
                return error_set(reterr, -r, "set %s of \"%s\": %s", what, abs, strerror(-r));
        }
        return 0;
}

static int read_error(struct cg_hierarchy *h, const char *relpath, const char *file, int r,
                      struct error **reterr)
{
        cleanup_free char *abs = cg_abs(h, relpath);

        return error_set(reterr, -r, "read \"%s/%s\": %s", abs, file, strerror(-r));
}

/* cpu.max: "<quota|max> <period>". */
static int read_cpu_max(int dirfd, int64_t *ret_quota, int64_t *ret_period)
{
        cleanup_free char *text = NULL;
        ssize_t n = cg_read_file(dirfd, "cpu.max", 4096, &text);
        char quota[32], *end;
        long long period, q;

        if (n < 0)
                return (int) n;
        if (sscanf(text, "%31s %lld", quota, &period) != 2 || period <= 0)
                return -EINVAL;
        if (streq(quota, "max")) {
                q = -1;
        } else {
                errno = 0;
                q = strtoll(quota, &end, 10);
                if (errno || *end || q <= 0)
                        return -EINVAL;
        }
        *ret_quota = q;
        *ret_period = period;
        return 0;
}

static int v2_get_limits(struct cgroup_manager *m, const char *relpath, struct cgroup_limits *ret,
                         struct error **reterr)
{
        struct cg_hierarchy *h = &m->h[0];
        cleanup_close int fd = cg_open_dir(h, relpath, "read limits", reterr);
        struct cgroup_limits l;
        int r;

        if (fd < 0)
                return fd;
        if ((r = cg_read_int64(fd, "cpu.weight", &l.cpu_weight)) < 0)
                return read_error(h, relpath, "cpu.weight", r, reterr);
        l.cpu_shares = cpu_weight_to_shares(l.cpu_weight);
        if ((r = read_cpu_max(fd, &l.cpu_quota_us, &l.cpu_period_us)) < 0)
                return read_error(h, relpath, "cpu.max", r, reterr);
        if ((r = cg_read_int64(fd, "memory.max", &l.memory_limit_bytes)) < 0)
                return read_error(h, relpath, "memory.max", r, reterr);
        *ret = l;
        return 0;
}

static int v2_memory_limit(struct cgroup_manager *m, const char *relpath, int64_t *ret,
                           struct error **reterr)
{
        struct cg_hierarchy *h = &m->h[0];
        cleanup_close int fd = cg_open_dir(h, relpath, "read the memory limit", reterr);
        int r;

        if (fd < 0)
                return fd;
        if ((r = cg_read_int64(fd, "memory.max", ret)) < 0)
                return read_error(h, relpath, "memory.max", r, reterr);
        return 0;
}

static int v2_memory_usage(struct cgroup_manager *m, const char *relpath, uint64_t *ret,
                           struct error **reterr)
{
        struct cg_hierarchy *h = &m->h[0];
        cleanup_close int fd = cg_open_dir(h, relpath, "read memory usage", reterr);
        int64_t v;
        int r;

        if (fd < 0)
                return fd;
        if ((r = cg_read_int64(fd, "memory.current", &v)) < 0 || (v < 0 && (r = -EINVAL))) {
                cleanup_free char *abs = cg_abs(h, relpath);
                return error_set(reterr, -r, "read memory usage of \"%s\": %s", abs, strerror(-r));
        }
        *ret = (uint64_t) v;
        return 0;
}

static int v2_oom_kills(struct cgroup_manager *m, const char *relpath, uint64_t *ret,
                        struct error **reterr)
{
        struct cg_hierarchy *h = &m->h[0];
        cleanup_close int fd = cg_open_dir(h, relpath, "read oom kills", reterr);
        int r;

        if (fd < 0)
                return fd;
        r = cg_read_keyed(fd, "memory.events", "oom_kill", ret);
        if (r == -ENOKEY)
                r = -EOPNOTSUPP;
        if (r < 0) {
                cleanup_free char *abs = cg_abs(h, relpath);
                return error_set(reterr, -r, "read oom kills of \"%s\": %s", abs, strerror(-r));
        }
        return 0;
}

/* K8S runc libcontainer/cgroups/fs2 statCpu and statMemory: cpu.stat's usage_usec, and
 * memory.current with memory.stat's anon, inactive_file and fault counts. */
static int v2_stats(struct cgroup_manager *m, const char *relpath, struct cgroup_stats *ret,
                    struct error **reterr)
{
        struct cg_hierarchy *h = &m->h[0];
        cleanup_close int fd = cg_open_dir(h, relpath, "read stats", reterr);
        uint64_t usec = 0;
        int64_t cur;
        int r;

        if (fd < 0)
                return fd;
        if ((r = cg_read_keyed(fd, "cpu.stat", "usage_usec", &usec)) < 0 ||
            (r = cg_read_int64(fd, "memory.current", &cur)) < 0 || (cur < 0 && (r = -EINVAL)) ||
            (r = cg_read_keyed(fd, "memory.stat", "inactive_file", &ret->inactive_file)) < 0 ||
            (r = cg_read_keyed(fd, "memory.stat", "anon", &ret->rss)) < 0) {
                cleanup_free char *abs = cg_abs(h, relpath);
                return error_set(reterr, -r, "read stats of \"%s\": %s", abs, strerror(-r));
        }
        /* the fault counts are informational: a kernel without them reads 0 */
        (void) cg_read_keyed(fd, "memory.stat", "pgfault", &ret->pgfault);
        (void) cg_read_keyed(fd, "memory.stat", "pgmajfault", &ret->pgmajfault);
        ret->cpu_usage_ns = usec * 1000;
        ret->memory_usage = (uint64_t) cur;
        return 0;
}

/* memory.high: above it the kernel reclaims the cgroup and throttles its allocations, and
 * never OOM-kills (Documentation/admin-guide/cgroup-v2.rst, "memory.high"). Writing a value
 * below usage reclaims before the write returns (mm/memcontrol.c memory_high_write). */
static int v2_set_memory_high(struct cgroup_manager *m, const char *relpath, int64_t high,
                              struct error **reterr)
{
        struct cg_hierarchy *h = &m->h[0];
        cleanup_close int fd = cg_open_dir(h, relpath, "set memory.high", reterr);
        char value[32];
        int r;

        if (fd < 0)
                return fd;
        if (faccessat(fd, "memory.high", F_OK, 0) < 0 && errno == ENOENT)
                return -EOPNOTSUPP;
        if (high < 0)
                snprintf(value, sizeof(value), "max");
        else
                snprintf(value, sizeof(value), "%" PRId64, high);
        r = cg_write_file(fd, "memory.high", value);
        if (r < 0) {
                cleanup_free char *abs = cg_abs(h, relpath);
                return error_set(reterr, -r, "set memory.high of \"%s\": %s", abs, strerror(-r));
        }
        return 0;
}

/* cgroup.kill (Linux 5.14) kills the whole subtree at once, without racing forks. */
static int v2_kill_fast(struct cgroup_manager *m, const char *relpath, struct error **reterr)
{
        struct cg_hierarchy *h = &m->h[0];
        cleanup_close int fd = openat(h->root_fd, relpath[0] ? relpath : ".",
                                      O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        int r;

        if (fd < 0 && errno == ENOENT)
                return 0;
        if (fd >= 0 && faccessat(fd, "cgroup.kill", F_OK, 0) < 0 && errno == ENOENT)
                return 0;
        r = fd < 0 ? -errno : cg_write_file(fd, "cgroup.kill", "1");
        if (r < 0) {
                cleanup_free char *abs = cg_abs(h, relpath);
                return error_set(reterr, -r, "kill cgroup \"%s\": %s", abs, strerror(-r));
        }
        return 1;
}

const struct cgroup_ops cgroup_ops_v2 = {
        .version = CGROUP_V2,
        .detect = v2_detect,
        .prepare_parent = v2_prepare_parent,
        .set_limits = v2_set_limits,
        .get_limits = v2_get_limits,
        .memory_limit = v2_memory_limit,
        .memory_usage = v2_memory_usage,
        .oom_kills = v2_oom_kills,
        .stats = v2_stats,
        .kill_fast = v2_kill_fast,
        .set_memory_high = v2_set_memory_high,
};
