/* test-cgroup-v2.c: the cgroup manager on a temporary tree laid out like a cgroup2 mount. The
 * test plays the kernel: a new cgroup gets the interface files its parent's subtree_control
 * allows, removing one fails while it holds processes or children. Every file the manager
 * writes is checked byte for byte (S18: "50000 100000", weight 20, "268435456"). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "api/pod-resources.h"
#include "base/alloc.h"
#include "base/json.h"
#include "node/cgroup/cgroup-internal.h"
#include "node/cgroup/cgroup.h"
#include "node/resize.h"

#include "fake-cgroupfs.h"
#include "resize-json.h"

struct fixture {
        char root[64];
        bool with_kill; /* the fake kernel offers cgroup.kill (Linux >= 5.14) */
        struct cgroup_manager *m;
};

/* ---- the fake kernel ---- */

static unsigned ctrl_bits(const char *text)
{
        static const char *const names[] = { "cpu", "memory", "pids" };
        char *copy = xstrdup(text ? text : ""), *save = NULL;
        unsigned bits = 0;

        for (char *t = strtok_r(copy, " \n", &save); t; t = strtok_r(NULL, " \n", &save)) {
                if (*t == '+')
                        t++;
                for (unsigned i = 0; i < 3; i++)
                        if (streq(t, names[i]))
                                bits |= 1u << i;
        }
        free(copy);
        return bits;
}

static int fake_mkdir_at(int dirfd, const char *name, void *userdata)
{
        struct fixture *fx = userdata;
        char parent[4096];
        char *sc, *dir = fake_mkdir(dirfd, name, parent, sizeof(parent));
        unsigned on;

        if (!dir)
                return -errno;
        /* kernel: a child's controllers are what its parent enabled for its subtree */
        sc = get(parent, "cgroup.subtree_control");
        on = ctrl_bits(sc);
        free(sc);
        put(dir, "cgroup.controllers",
            on == 7   ? "cpu memory pids\n"
            : on == 3 ? "cpu memory\n"
                      : "");
        put(dir, "cgroup.subtree_control", "");
        put(dir, "cgroup.procs", "");
        put(dir, "cgroup.events", "populated 0\nfrozen 0\n");
        if (fx->with_kill)
                put(dir, "cgroup.kill", "");
        if (on & 1) {
                put(dir, "cpu.max", "max 100000\n");
                put(dir, "cpu.weight", "100\n");
        }
        if (on & 2) {
                put(dir, "memory.max", "max\n");
                put(dir, "memory.swap.max", "max\n");
                put(dir, "memory.high", "max\n");
                put(dir, "memory.current", "0\n");
                put(dir, "memory.events",
                    "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\noom_group_kill 0\n");
        }
        if (on & 4)
                put(dir, "pids.max", "max\n");
        free(dir);
        return 0;
}

static int setup_tree(struct fixture *fx, const char *controllers)
{
        strcpy(fx->root, "/tmp/flexlet-cgv2-XXXXXX");
        if (!mkdtemp(fx->root))
                return -1;
        /* the root cgroup as the kernel shows it: no cpu.max/memory.max at the root */
        put(fx->root, "cgroup.controllers", controllers);
        put(fx->root, "cgroup.subtree_control", "");
        put(fx->root, "cgroup.procs", "1\n");
        put(fx->root, "cgroup.max.depth", "max\n");
        return 0;
}

static int open_manager(struct fixture *fx, struct error **reterr)
{
        struct cgroup_fs fs = { fake_mkdir_at, fake_rmdir_at, fx };

        return cg_manager_open_fs(fx->root, "flexlet", &fs, &fx->m, reterr);
}

static int setup(void **state)
{
        struct fixture *fx = xcalloc(1, sizeof(*fx));

        fx->with_kill = true;
        if (setup_tree(fx, "cpuset cpu io memory hugetlb pids rdma misc\n") < 0)
                return -1;
        if (open_manager(fx, NULL) < 0)
                return -1;
        *state = fx;
        return 0;
}

static int teardown(void **state)
{
        struct fixture *fx = *state;

        cgroup_manager_free(fx->m);
        rm_rf(fx->root);
        free(fx);
        return 0;
}

static char *path_of(struct fixture *fx, const char *rel)
{
        return xasprintf("%s/flexlet%s%s", fx->root, rel[0] ? "/" : "", rel);
}

/* ---- tests ---- */

static void test_open_enables_controllers(void **state)
{
        struct fixture *fx = *state;
        char *fl = path_of(fx, "");

        assert_int_equal(cgroup_manager_version(fx->m), CGROUP_V2);
        assert_string_equal(cgroup_version_to_string(CGROUP_V2), "v2");
        /* controllers are enabled from the root down to the flexlet root */
        assert_file(fx->root, "cgroup.subtree_control", "+cpu +memory +pids");
        assert_file(fl, "cgroup.controllers", "cpu memory pids\n");
        assert_file(fl, "cgroup.subtree_control", "+cpu +memory +pids");
        assert_true(exists(fl, "cpu.max"));
        free(fl);
}

static void test_open_leaves_enabled_alone(void **state)
{
        struct fixture fx = { 0 };
        struct stat before, after;
        char path[128];

        assert_int_equal(setup_tree(&fx, "cpu io memory pids\n"), 0);
        /* the kernel's own spelling: already enabled, so nothing may be written */
        put(fx.root, "cgroup.subtree_control", "cpu io memory pids\n");
        snprintf(path, sizeof(path), "%s/cgroup.subtree_control", fx.root);
        assert_int_equal(stat(path, &before), 0);
        assert_int_equal(open_manager(&fx, NULL), 0);
        assert_int_equal(stat(path, &after), 0);
        assert_int_equal(before.st_mtim.tv_nsec, after.st_mtim.tv_nsec);
        assert_int_equal(before.st_mtim.tv_sec, after.st_mtim.tv_sec);
        assert_file(fx.root, "cgroup.subtree_control", "cpu io memory pids\n");
        cgroup_manager_free(fx.m);
        rm_rf(fx.root);
}

static void test_open_without_pids(void **state)
{
        struct fixture fx = { 0 };
        char *fl;

        assert_int_equal(setup_tree(&fx, "cpu memory\n"), 0);
        assert_int_equal(open_manager(&fx, NULL), 0);
        assert_file(fx.root, "cgroup.subtree_control", "+cpu +memory");
        fl = path_of(&fx, "");
        assert_file(fl, "cgroup.controllers", "cpu memory\n");
        free(fl);
        cgroup_manager_free(fx.m);
        rm_rf(fx.root);
}

static void test_open_missing_controller(void **state)
{
        struct fixture fx = { 0 };
        struct error *err = NULL;
        char *want;

        assert_int_equal(setup_tree(&fx, "cpuset cpu io pids\n"), 0);
        assert_int_equal(open_manager(&fx, &err), -ENOENT);
        want = xasprintf("cgroup v2 controller \"memory\" not available in \"%s\"", fx.root);
        assert_string_equal(err->message, want);
        assert_int_equal(err->errnum, ENOENT);
        assert_null(fx.m);
        free(want);
        error_free(err);
        rm_rf(fx.root);
}

static void test_open_bad_arguments(void **state)
{
        struct cgroup_manager *m = NULL;
        struct error *err = NULL;

        assert_int_equal(cgroup_manager_open("relative/root", "flexlet", &m, &err), -EINVAL);
        assert_string_equal(err->message,
                            "cgroup filesystem root \"relative/root\" is not absolute");
        err = error_free(err);
        assert_int_equal(cgroup_manager_open("/tmp", "../escape", &m, &err), -EINVAL);
        assert_string_equal(err->message, "invalid cgroup path \"../escape\"");
        err = error_free(err);
        assert_int_equal(cgroup_manager_open("/nonexistent-flexlet-root", "flexlet", &m, &err),
                         -ENOENT);
        assert_string_equal(err->message, "open cgroups at \"/nonexistent-flexlet-root\": No "
                                          "such file or directory");
        error_free(err);
        assert_null(m);
}

static void test_create_enables_along_the_path(void **state)
{
        struct fixture *fx = *state;
        const char *mids[] = { "kubepods", "kubepods/burstable", "kubepods/burstable/pod1" };
        char *leaf;

        assert_int_equal(cgroup_create(fx->m, "kubepods/burstable/pod1/ctr1", NULL), 0);
        for (size_t i = 0; i < ARRAY_SIZE(mids); i++) {
                char *p = path_of(fx, mids[i]);
                assert_file(p, "cgroup.subtree_control", "+cpu +memory +pids");
                free(p);
        }
        /* the leaf may hold processes: no controllers enabled below it */
        leaf = path_of(fx, "kubepods/burstable/pod1/ctr1");
        assert_file(leaf, "cgroup.subtree_control", "");
        assert_file(leaf, "cgroup.controllers", "cpu memory pids\n");
        assert_file(leaf, "cpu.max", "max 100000\n");
        free(leaf);
        /* again: nothing to do, no error */
        assert_int_equal(cgroup_create(fx->m, "kubepods/burstable/pod1/ctr1", NULL), 0);
        /* a child below a former leaf enables its controllers then */
        assert_int_equal(cgroup_create(fx->m, "kubepods/burstable/pod1/ctr1/sub", NULL), 0);
        leaf = path_of(fx, "kubepods/burstable/pod1/ctr1");
        assert_file(leaf, "cgroup.subtree_control", "+cpu +memory +pids");
        free(leaf);
}

static void test_invalid_paths(void **state)
{
        struct fixture *fx = *state;
        const char *bad[] = { "../x", "/abs", "a//b", "a/", ".", "a/../b", "a/./b", "x\ny" };
        struct cgroup_limits l = { 2, -1, 100000, -1, 0 };

        for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
                struct error *err = NULL;
                char *want = xasprintf("invalid cgroup path \"%s\"", bad[i]);
                assert_int_equal(cgroup_create(fx->m, bad[i], &err), -EINVAL);
                assert_string_equal(err->message, want);
                err = error_free(err);
                assert_int_equal(cgroup_set_limits(fx->m, bad[i], &l, CGROUP_ALL_LIMITS, NULL),
                                 -EINVAL);
                assert_int_equal(cgroup_destroy(fx->m, bad[i], NULL), -EINVAL);
                assert_int_equal(cgroup_kill(fx->m, bad[i], NULL), -EINVAL);
                free(want);
        }
        /* "" is the flexlet root, but never something to create below it with an empty name */
        assert_int_equal(cgroup_create(fx->m, "", NULL), 0);
}

static void test_set_limits_s18(void **state)
{
        struct fixture *fx = *state;
        struct cgroup_limits pod = { .cpu_shares = 512,
                                     .cpu_quota_us = 50000,
                                     .cpu_period_us = 100000,
                                     .memory_limit_bytes = 268435456 };
        struct cgroup_limits got;
        char *p;

        assert_int_equal(cgroup_create(fx->m, "kubepods/podg", NULL), 0);
        p = path_of(fx, "kubepods/podg");
        /* S18: Guaranteed 500m/500m 256Mi at pod level */
        assert_int_equal(cgroup_set_limits(fx->m, "kubepods/podg", &pod, CGROUP_ALL_LIMITS, NULL),
                         0);
        assert_file(p, "cpu.max", "50000 100000");
        assert_file(p, "cpu.weight", "20");
        assert_file(p, "memory.max", "268435456");
        assert_int_equal(cgroup_get_limits(fx->m, "kubepods/podg", &got, NULL), 0);
        assert_int_equal(got.cpu_weight, 20);
        assert_int_equal(got.cpu_shares, 500); /* the kubelet's inverse: lossy */
        assert_int_equal(got.cpu_quota_us, 50000);
        assert_int_equal(got.cpu_period_us, 100000);
        assert_int_equal(got.memory_limit_bytes, 268435456);

        /* S18 after the resize to 1 CPU: only the cpu files change */
        pod.cpu_shares = 1024;
        pod.cpu_quota_us = 100000;
        pod.memory_limit_bytes = 1; /* not selected: must not be written */
        assert_int_equal(cgroup_set_limits(fx->m, "kubepods/podg", &pod,
                                           CGROUP_CPU_SHARES | CGROUP_CPU_QUOTA, NULL),
                         0);
        assert_file(p, "cpu.max", "100000 100000");
        assert_file(p, "cpu.weight", "39");
        assert_file(p, "memory.max", "268435456");

        /* unlimited */
        pod.cpu_quota_us = -1;
        pod.memory_limit_bytes = -1;
        assert_int_equal(cgroup_set_limits(fx->m, "kubepods/podg", &pod,
                                           CGROUP_CPU_QUOTA | CGROUP_MEMORY, NULL),
                         0);
        assert_file(p, "cpu.max", "max 100000");
        assert_file(p, "memory.max", "max");
        assert_int_equal(cgroup_get_limits(fx->m, "kubepods/podg", &got, NULL), 0);
        assert_int_equal(got.cpu_quota_us, -1);
        assert_int_equal(got.memory_limit_bytes, -1);
        {
                int64_t limit = 0;

                assert_int_equal(cgroup_memory_limit(fx->m, "kubepods/podg", &limit, NULL), 0);
                assert_int_equal(limit, -1);
                pod.memory_limit_bytes = 134217728;
                assert_int_equal(
                        cgroup_set_limits(fx->m, "kubepods/podg", &pod, CGROUP_MEMORY, NULL), 0);
                assert_int_equal(cgroup_memory_limit(fx->m, "kubepods/podg", &limit, NULL), 0);
                assert_int_equal(limit, 134217728);
        }
        free(p);
}

static void test_set_limits_container_weight(void **state)
{
        struct fixture *fx = *state;
        struct cgroup_limits c = { .cpu_shares = 1024, .cpu_period_us = 100000 };
        char *p;

        assert_int_equal(cgroup_create(fx->m, "kubepods/pod1/c1", NULL), 0);
        p = path_of(fx, "kubepods/pod1/c1");
        /* container cgroups: the runtimes' conversion, 1024 shares -> the default 100 */
        assert_int_equal(cgroup_set_limits(fx->m, "kubepods/pod1/c1", &c,
                                           CGROUP_CPU_SHARES | CGROUP_WEIGHT_OCI, NULL),
                         0);
        assert_file(p, "cpu.weight", "100");
        assert_file(p, "cpu.max", "max 100000\n"); /* untouched */
        c.cpu_shares = 512;
        assert_int_equal(cgroup_set_limits(fx->m, "kubepods/pod1/c1", &c,
                                           CGROUP_CPU_SHARES | CGROUP_WEIGHT_OCI, NULL),
                         0);
        assert_file(p, "cpu.weight", "59");
        c.cpu_shares = 2;
        assert_int_equal(cgroup_set_limits(fx->m, "kubepods/pod1/c1", &c, CGROUP_CPU_SHARES, NULL),
                         0);
        assert_file(p, "cpu.weight", "1");
        /* a container gets no swap; a pod cgroup's swap is left alone */
        c.memory_limit_bytes = 268435456;
        assert_int_equal(cgroup_set_limits(fx->m, "kubepods/pod1/c1", &c,
                                           CGROUP_MEMORY | CGROUP_WEIGHT_OCI, NULL),
                         0);
        assert_file(p, "memory.swap.max", "0");
        free(p);
        p = path_of(fx, "kubepods/pod1");
        assert_int_equal(cgroup_set_limits(fx->m, "kubepods/pod1", &c, CGROUP_MEMORY, NULL), 0);
        assert_file(p, "memory.swap.max", "max\n");
        free(p);
}

static void test_set_limits_rejects_bad_values(void **state)
{
        struct fixture *fx = *state;
        static const struct {
                struct cgroup_limits l;
                unsigned which;
                const char *msg;
        } cases[] = {
                { { 1, -1, 100000, -1, 0 },
                  CGROUP_CPU_SHARES,
                  "invalid cpu shares 1: must be between 2 and 262144" },
                { { 262145, -1, 100000, -1, 0 },
                  CGROUP_CPU_SHARES,
                  "invalid cpu shares 262145: must be between 2 and 262144" },
                { { 2, 999, 100000, -1, 0 },
                  CGROUP_CPU_QUOTA,
                  "invalid cpu quota 999: must be -1 (unlimited) or at least 1000" },
                { { 2, 1000, 999, -1, 0 },
                  CGROUP_CPU_QUOTA,
                  "invalid cpu period 999: must be between 1000 and 1000000" },
                { { 2, -1, 100000, 0, 0 },
                  CGROUP_MEMORY,
                  "invalid memory limit 0: must be -1 (unlimited) or positive" },
        };
        char *p;

        assert_int_equal(cgroup_create(fx->m, "bad", NULL), 0);
        p = path_of(fx, "bad");
        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                struct error *err = NULL;
                assert_int_equal(cgroup_set_limits(fx->m, "bad", &cases[i].l,
                                                   cases[i].which | CGROUP_MEMORY, &err),
                                 -EINVAL);
                assert_string_equal(err->message, cases[i].msg);
                error_free(err);
        }
        /* nothing written before the check */
        assert_file(p, "memory.max", "max\n");
        free(p);
}

static void test_set_limits_kernel_errors(void **state)
{
        struct fixture *fx = *state;
        struct cgroup_limits l = { .cpu_shares = 2,
                                   .cpu_quota_us = -1,
                                   .cpu_period_us = 100000,
                                   .memory_limit_bytes = 1 << 20 };
        struct error *err = NULL;
        char *p, *want, *mm;

        /* a cgroup made without the kernel (no interface files) */
        p = path_of(fx, "bare");
        assert_int_equal(mkdir(p, 0755), 0);
        assert_int_equal(cgroup_set_limits(fx->m, "bare", &l, CGROUP_MEMORY, &err), -ENOENT);
        want = xasprintf("set memory limit of \"%s\": No such file or directory", p);
        assert_string_equal(err->message, want);
        err = error_free(err);
        free(want);
        assert_int_equal(cgroup_get_limits(fx->m, "bare", &l, &err), -ENOENT);
        want = xasprintf("read \"%s/cpu.weight\": No such file or directory", p);
        assert_string_equal(err->message, want);
        err = error_free(err);
        free(want);

        /* the errno of the write comes back with the kernel's words */
        mm = xasprintf("%s/memory.max", p);
        assert_int_equal(mkdir(mm, 0755), 0);
        assert_int_equal(cgroup_set_limits(fx->m, "bare", &l, CGROUP_MEMORY, &err), -EISDIR);
        want = xasprintf("set memory limit of \"%s\": Is a directory", p);
        assert_string_equal(err->message, want);
        assert_int_equal(err->errnum, EISDIR);
        err = error_free(err);
        free(want);
        rmdir(mm);
        free(mm);
        rmdir(p);

        /* a cgroup that does not exist */
        assert_int_equal(cgroup_set_limits(fx->m, "nope", &l, CGROUP_MEMORY, &err), -ENOENT);
        want = xasprintf("set limits of \"%s/flexlet/nope\": No such file or directory", fx->root);
        assert_string_equal(err->message, want);
        error_free(err);
        free(want);
        free(p);
}

static void test_usage_and_oom(void **state)
{
        struct fixture *fx = *state;
        struct error *err = NULL;
        uint64_t v = 0;
        char *p, *want;

        assert_int_equal(cgroup_create(fx->m, "pod2", NULL), 0);
        p = path_of(fx, "pod2");
        put(p, "memory.current", "123456789\n");
        assert_int_equal(cgroup_memory_usage(fx->m, "pod2", &v, NULL), 0);
        assert_int_equal(v, 123456789);
        assert_int_equal(cgroup_oom_kills(fx->m, "pod2", &v, NULL), 0);
        assert_int_equal(v, 0);
        put(p, "memory.events", "low 0\nhigh 0\nmax 12\noom 3\noom_kill 3\noom_group_kill 0\n");
        assert_int_equal(cgroup_oom_kills(fx->m, "pod2", &v, NULL), 0);
        assert_int_equal(v, 3);
        put(p, "memory.events", "low 0\nhigh 0\nmax 12\noom 3\n");
        assert_int_equal(cgroup_oom_kills(fx->m, "pod2", &v, &err), -EOPNOTSUPP);
        error_free(err);
        err = NULL;
        put(p, "memory.current", "lots\n");
        assert_int_equal(cgroup_memory_usage(fx->m, "pod2", &v, &err), -EINVAL);
        want = xasprintf("read memory usage of \"%s\": Invalid argument", p);
        assert_string_equal(err->message, want);
        error_free(err);
        free(want);
        free(p);
}

/* K8S runc fs2 statCpu/statMemory: usage_usec in nanoseconds, memory.current, anon as rss and
 * the working set as memory.current - inactive_file, floored at 0 (cadvisor). */
static void test_stats(void **state)
{
        struct fixture *fx = *state;
        struct error *err = NULL;
        struct cgroup_stats st;
        char *p;

        assert_int_equal(cgroup_create(fx->m, "pod3", NULL), 0);
        p = path_of(fx, "pod3");
        put(p, "cpu.stat", "usage_usec 2500\nuser_usec 2000\nsystem_usec 500\n");
        put(p, "memory.current", "10485760\n");
        put(p, "memory.stat",
            "anon 4194304\nfile 6291456\nshmem 2097152\ninactive_file 3145728\npgfault 77\npgmajfault 3\n");
        put(p, "memory.max", "268435456\n");
        assert_int_equal(cgroup_stats(fx->m, "pod3", &st, NULL), 0);
        assert_int_equal(st.cpu_usage_ns, 2500000);
        assert_int_equal(st.memory_usage, 10485760);
        assert_int_equal(st.rss, 4194304);
        assert_int_equal(st.inactive_file, 3145728);
        assert_int_equal(st.pgfault, 77);
        assert_int_equal(st.pgmajfault, 3);
        assert_int_equal(st.memory_limit, 268435456);
        assert_int_equal(cgroup_working_set(&st), 10485760 - 3145728);
        /* inactive_file above usage (counted at different moments): 0, never a wrap */
        put(p, "memory.stat", "anon 0\ninactive_file 20971520\n");
        assert_int_equal(cgroup_stats(fx->m, "pod3", &st, NULL), 0);
        assert_int_equal(cgroup_working_set(&st), 0);
        /* a kernel without the line the stats need: the error names the cgroup */
        put(p, "cpu.stat", "user_usec 2000\n");
        assert_int_equal(cgroup_stats(fx->m, "pod3", &st, &err), -ENOKEY);
        assert_non_null(strstr(err->message, "read stats of \""));
        error_free(err);
        err = NULL;
        assert_int_equal(cgroup_stats(fx->m, "gone", &st, &err), -ENOENT);
        error_free(err);
        free(p);
}

/* A memory decrease on v2 goes through memory.high (docs/cgroups.md "Memory decreases on v2"):
 * with usage under the new limit memory.max takes it and memory.high ends at "max"; with usage
 * still above it after the wait (it rose after the caller's check) memory.max is left alone,
 * EBUSY carries the usage, and memory.high is back at "max" all the same. */
static void test_lower_memory_limit(void **state)
{
        struct fixture *fx = *state;
        struct cgroup_limits l = { .memory_limit_bytes = 64 << 20 };
        struct error *err = NULL;
        uint64_t usage = 0;
        char f[4096], *p;

        assert_int_equal(cgroup_create(fx->m, "pod3/c", NULL), 0);
        p = path_of(fx, "pod3/c");
        put(p, "memory.max", "134217728\n");
        put(p, "memory.current", "1048576\n");
        assert_int_equal(
                cgroup_lower_memory_limit(fx->m, "pod3/c", &l, CGROUP_WEIGHT_OCI, 0, &usage, NULL),
                0);
        assert_int_equal(usage, 1048576);
        assert_file(p, "memory.max", "67108864");
        assert_file(p, "memory.swap.max", "0");
        assert_file(p, "memory.high", "max");

        /* usage rose past the new limit after the caller's check */
        put(p, "memory.current", "100000000\n");
        l.memory_limit_bytes = 32 << 20;
        assert_int_equal(cgroup_lower_memory_limit(fx->m, "pod3/c", &l, 0, 30, &usage, &err),
                         -EBUSY);
        assert_int_equal(usage, 100000000);
        assert_string_equal(err->message, "memory usage of \"pod3/c\" (100000000) stays above "
                                          "the new limit (33554432)");
        assert_file(p, "memory.max", "67108864");
        assert_file(p, "memory.high", "max");
        error_free(err);
        err = NULL;

        /* a decrease cut short after its memory.high step: the next memory write clears it */
        put(p, "memory.high", "33554432\n");
        l.memory_limit_bytes = 32 << 20;
        assert_int_equal(cgroup_set_limits(fx->m, "pod3/c", &l, CGROUP_MEMORY, NULL), 0);
        assert_file(p, "memory.max", "33554432");
        assert_file(p, "memory.high", "max");

        /* unlimited is no decrease */
        l.memory_limit_bytes = -1;
        assert_int_equal(cgroup_lower_memory_limit(fx->m, "pod3/c", &l, 0, 0, NULL, &err), -EINVAL);
        error_free(err);
        err = NULL;

        /* a cgroup without memory.high: the plain write */
        fake_path(f, p, "memory.high");
        assert_int_equal(unlink(f), 0);
        put(p, "memory.current", "100000000\n");
        l.memory_limit_bytes = 16 << 20;
        assert_int_equal(cgroup_lower_memory_limit(fx->m, "pod3/c", &l, 0, 0, NULL, NULL), 0);
        assert_file(p, "memory.max", "16777216");
        free(p);
}

static void test_pids_and_procs_paths(void **state)
{
        struct fixture *fx = *state;
        pid_t *pids = NULL;
        char **paths = NULL;
        size_t n = 99;
        char *p, *want;

        assert_int_equal(cgroup_create(fx->m, "pod3/c", NULL), 0);
        p = path_of(fx, "pod3/c");
        assert_int_equal(cgroup_pids(fx->m, "pod3/c", &pids, &n, NULL), 0);
        assert_int_equal(n, 0);
        free(pids);
        put(p, "cgroup.procs", "12\n345\n6789\n");
        assert_int_equal(cgroup_pids(fx->m, "pod3/c", &pids, &n, NULL), 0);
        assert_int_equal(n, 3);
        assert_int_equal(pids[0], 12);
        assert_int_equal(pids[1], 345);
        assert_int_equal(pids[2], 6789);
        free(pids);
        /* never a 0 or negative pid: those would be process groups for kill(2) */
        put(p, "cgroup.procs", "0\n");
        assert_int_equal(cgroup_pids(fx->m, "pod3/c", &pids, &n, NULL), -EINVAL);
        put(p, "cgroup.procs", "-1\n");
        assert_int_equal(cgroup_pids(fx->m, "pod3/c", &pids, &n, NULL), -EINVAL);
        put(p, "cgroup.procs", "");

        assert_int_equal(cgroup_add_pid(fx->m, "pod3/c", 4242, NULL), 0);
        assert_file(p, "cgroup.procs", "4242");
        assert_int_equal(cgroup_add_pid(fx->m, "pod3/c", 0, NULL), -EINVAL);
        assert_int_equal(cgroup_add_pid(fx->m, "pod3/missing", 4242, NULL), -ENOENT);
        put(p, "cgroup.procs", "");

        assert_int_equal(cgroup_procs_paths(fx->m, "pod3/c", &paths, &n, NULL), 0);
        assert_int_equal(n, 1);
        want = xasprintf("%s/cgroup.procs", p);
        assert_string_equal(paths[0], want);
        assert_null(paths[1]);
        cgroup_strv_free(paths);
        assert_int_equal(cgroup_procs_paths(fx->m, "pod3/missing", &paths, &n, NULL), -ENOENT);
        free(want);
        free(p);
}

static void test_kill_with_cgroup_kill(void **state)
{
        struct fixture *fx = *state;
        char *p;

        assert_int_equal(cgroup_create(fx->m, "pod4/c", NULL), 0);
        p = path_of(fx, "pod4");
        assert_int_equal(cgroup_kill(fx->m, "pod4", NULL), 0);
        /* one write of "1" to cgroup.kill kills the subtree */
        assert_file(p, "cgroup.kill", "1");
        free(p);
        /* nothing to kill where there is no cgroup */
        assert_int_equal(cgroup_kill(fx->m, "never-made", NULL), 0);
}

static pid_t spawn_sleeper(void)
{
        pid_t pid = fork();

        assert_true(pid >= 0);
        if (pid == 0) {
                for (;;)
                        pause();
        }
        return pid;
}

static void test_kill_by_signal(void **state)
{
        struct fixture fx = { 0 };
        struct sigaction ign = { .sa_handler = SIG_IGN }, old;
        pid_t a, b;
        char buf[64], *p1, *p2;

        /* no cgroup.kill (Linux < 5.14): every listed process gets SIGKILL */
        assert_int_equal(setup_tree(&fx, "cpu memory pids\n"), 0);
        assert_int_equal(open_manager(&fx, NULL), 0);
        assert_int_equal(cgroup_create(fx.m, "pod/c1", NULL), 0);
        /* auto-reap the children so that a killed one is gone for kill(2) */
        sigaction(SIGCHLD, &ign, &old);
        a = spawn_sleeper();
        b = spawn_sleeper();
        p1 = path_of(&fx, "pod");
        p2 = path_of(&fx, "pod/c1");
        snprintf(buf, sizeof(buf), "%d\n", (int) a);
        put(p1, "cgroup.procs", buf);
        snprintf(buf, sizeof(buf), "%d\n", (int) b);
        put(p2, "cgroup.procs", buf);
        assert_false(exists(p1, "cgroup.kill"));
        assert_int_equal(cgroup_kill(fx.m, "pod", NULL), 0);
        assert_int_equal(kill(a, 0), -1);
        assert_int_equal(errno, ESRCH);
        assert_int_equal(kill(b, 0), -1);
        assert_int_equal(errno, ESRCH);
        sigaction(SIGCHLD, &old, NULL);
        put(p1, "cgroup.procs", "");
        put(p2, "cgroup.procs", "");
        free(p1);
        free(p2);
        cgroup_manager_free(fx.m);
        rm_rf(fx.root);
}

static void test_destroy(void **state)
{
        struct fixture *fx = *state;
        struct error *err = NULL;
        char *p, *want;

        assert_int_equal(cgroup_create(fx->m, "kubepods/besteffort/pod5/c1", NULL), 0);
        assert_int_equal(cgroup_create(fx->m, "kubepods/besteffort/pod5/c2", NULL), 0);
        assert_int_equal(cgroup_create(fx->m, "kubepods/besteffort/pod6", NULL), 0);

        /* busy: a process is left in c2 */
        p = path_of(fx, "kubepods/besteffort/pod5/c2");
        put(p, "cgroup.procs", "77\n");
        assert_int_equal(cgroup_destroy(fx->m, "kubepods/besteffort/pod5", &err), -EBUSY);
        want = xasprintf("remove cgroup \"%s/flexlet/kubepods/besteffort/pod5\": Device or "
                         "resource busy",
                         fx->root);
        assert_string_equal(err->message, want);
        err = error_free(err);
        free(want);
        put(p, "cgroup.procs", "");
        free(p);

        assert_int_equal(cgroup_destroy(fx->m, "kubepods/besteffort/pod5", NULL), 0);
        p = path_of(fx, "kubepods/besteffort");
        assert_false(exists(p, "pod5"));
        assert_true(exists(p, "pod6"));
        /* already gone is fine */
        assert_int_equal(cgroup_destroy(fx->m, "kubepods/besteffort/pod5", NULL), 0);
        assert_int_equal(cgroup_destroy(fx->m, "not/there/at/all", NULL), 0);
        free(p);

        /* "" removes the flexlet root itself */
        assert_int_equal(cgroup_destroy(fx->m, "", NULL), 0);
        assert_false(exists(fx->root, "flexlet"));
        assert_true(exists(fx->root, "cgroup.controllers"));
}

/* Upstream scenario S18 on a v2 tree: a Guaranteed pod of 500m / 256Mi gets cpu.max
 * "50000 100000", cpu.weight 20 (the kubelet's linear conversion of 512 shares) and memory.max
 * 268435456; resized to 1 CPU, the plan's pod steps write cpu.max "100000 100000" and weight 39. */
static void test_s18_pod_cgroup_resize(void **state)
{
        struct fixture *fx = *state;
        cleanup_json json_t *pod = json_loads(
                "{\"metadata\":{\"name\":\"p\",\"uid\":\"u1\"},\"status\":{\"qosClass\":"
                "\"Guaranteed\"},\"spec\":{\"containers\":[{\"name\":\"c1\",\"resources\":{"
                "\"requests\":{\"cpu\":\"500m\",\"memory\":\"256Mi\"},\"limits\":{\"cpu\":"
                "\"500m\",\"memory\":\"256Mi\"}}}]}}",
                0, NULL);
        cleanup_json json_t *actuated = json_object(), *allocation = NULL, *resized = NULL;
        struct pod_cgroup_config cfg;
        struct cgroup_limits l;
        struct resize_plan plan;
        struct resize_step first = { .kind = RESIZE_STEP_POD_CGROUP,
                                     .which =
                                             RESIZE_CPU_SHARES | RESIZE_CPU_QUOTA | RESIZE_MEMORY };
        char *dir = path_of(fx, "kubepods/podu1");

        assert_non_null(pod);
        assert_int_equal(cgroup_create(fx->m, "kubepods/podu1", NULL), 0);
        assert_int_equal(pod_cgroup_config(pod, NULL, true, &cfg), 0);
        l = (struct cgroup_limits){ cfg.cpu_shares, cfg.cpu_quota_us, cfg.cpu_period_us,
                                    cfg.memory_limit_bytes, 0 };
        assert_int_equal(cgroup_set_limits(fx->m, "kubepods/podu1", &l, CGROUP_ALL_LIMITS, NULL),
                         0);
        assert_file(dir, "cpu.max", "50000 100000");
        assert_file(dir, "cpu.weight", "20");
        assert_file(dir, "memory.max", "268435456");
        first.cfg = cfg;
        resize_actuated_record(actuated, &first);

        /* the resize to 1 CPU, requests = limits: the pod cgroup grows */
        resized = json_deep_copy(pod);
        json_object_set_new(json_path(json_array_get(json_path(resized, "spec.containers"), 0),
                                      "resources.requests"),
                            "cpu", json_string("1"));
        json_object_set_new(json_path(json_array_get(json_path(resized, "spec.containers"), 0),
                                      "resources.limits"),
                            "cpu", json_string("1"));
        allocation = resize_allocation_from_pod(resized);
        assert_int_equal(plan_json(pod, allocation, actuated, NULL, 0, true, &plan, NULL), 0);
        assert_true(plan.n > 0);
        for (size_t i = 0; i < plan.n; i++) {
                const struct resize_step *st = &plan.steps[i];
                unsigned which = ((st->which & RESIZE_CPU_SHARES) ? CGROUP_CPU_SHARES : 0) |
                                 ((st->which & RESIZE_CPU_QUOTA) ? CGROUP_CPU_QUOTA : 0) |
                                 ((st->which & RESIZE_MEMORY) ? CGROUP_MEMORY : 0);

                assert_int_equal(st->kind, RESIZE_STEP_POD_CGROUP);
                l = (struct cgroup_limits){ st->cfg.cpu_shares, st->cfg.cpu_quota_us,
                                            st->cfg.cpu_period_us, st->cfg.memory_limit_bytes, 0 };
                assert_int_equal(cgroup_set_limits(fx->m, "kubepods/podu1", &l, which, NULL), 0);
        }
        resize_plan_release(&plan);
        assert_file(dir, "cpu.max", "100000 100000");
        assert_file(dir, "cpu.weight", "39");
        assert_file(dir, "memory.max", "268435456");
        free(dir);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_open_enables_controllers, setup, teardown),
                cmocka_unit_test(test_open_leaves_enabled_alone),
                cmocka_unit_test(test_open_without_pids),
                cmocka_unit_test(test_open_missing_controller),
                cmocka_unit_test(test_open_bad_arguments),
                cmocka_unit_test_setup_teardown(test_create_enables_along_the_path, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_invalid_paths, setup, teardown),
                cmocka_unit_test_setup_teardown(test_stats, setup, teardown),
                cmocka_unit_test_setup_teardown(test_set_limits_s18, setup, teardown),
                cmocka_unit_test_setup_teardown(test_set_limits_container_weight, setup, teardown),
                cmocka_unit_test_setup_teardown(test_set_limits_rejects_bad_values, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_set_limits_kernel_errors, setup, teardown),
                cmocka_unit_test_setup_teardown(test_usage_and_oom, setup, teardown),
                cmocka_unit_test_setup_teardown(test_lower_memory_limit, setup, teardown),
                cmocka_unit_test_setup_teardown(test_pids_and_procs_paths, setup, teardown),
                cmocka_unit_test_setup_teardown(test_kill_with_cgroup_kill, setup, teardown),
                cmocka_unit_test(test_kill_by_signal),
                cmocka_unit_test_setup_teardown(test_destroy, setup, teardown),
                cmocka_unit_test_setup_teardown(test_s18_pod_cgroup_resize, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
