/* test-cgroup-v1.c: the cgroup manager on a temporary tree laid out like a v1/hybrid
 * /sys/fs/cgroup (one directory per controller mount). The test plays the kernel: a new cgroup
 * gets its hierarchy's interface files, removing one fails while it holds processes. Every file
 * the manager writes is checked byte for byte. */
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
#include <unistd.h>

#include "base/alloc.h"
#include "node/cgroup/cgroup-internal.h"
#include "node/cgroup/cgroup.h"

#include "fake-cgroupfs.h"

/* what a v1 memory cgroup without a limit shows (PAGE_COUNTER_MAX pages of 4 KiB) */
#define NO_LIMIT "9223372036854771712\n"

struct fixture {
        char root[64];
        struct cgroup_manager *m;
};

/* The files a v1 cgroup of each controller starts with. */
static void populate(const char *dir, const char *parent)
{
        put(dir, "cgroup.procs", "");
        put(dir, "tasks", "");
        put(dir, "notify_on_release", "0\n");
        if (exists(parent, "cpu.shares")) {
                put(dir, "cpu.shares", "1024\n");
                put(dir, "cpu.cfs_quota_us", "-1\n");
                put(dir, "cpu.cfs_period_us", "100000\n");
        }
        if (exists(parent, "cpuacct.usage"))
                put(dir, "cpuacct.usage", "0\n");
        if (exists(parent, "memory.limit_in_bytes")) {
                put(dir, "memory.limit_in_bytes", NO_LIMIT);
                put(dir, "memory.usage_in_bytes", "0\n");
                put(dir, "memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 0\n");
        }
        if (exists(parent, "pids.current") || strstr(parent, "/pids"))
                put(dir, "pids.max", "max\n");
}

static int fake_mkdir_at(int dirfd, const char *name, void *userdata)
{
        char parent[4096];
        char *dir = fake_mkdir(dirfd, name, parent, sizeof(parent));

        if (!dir)
                return -errno;
        populate(dir, parent);
        free(dir);
        return 0;
}

static char *sub(const struct fixture *fx, const char *rel)
{
        return xasprintf("%s/%s", fx->root, rel);
}

/* A controller mount's root as the kernel shows it. */
static void mount_dir(struct fixture *fx, const char *name, const char *probe)
{
        char *d = sub(fx, name);

        assert_int_equal(mkdir(d, 0755), 0);
        put(d, "cgroup.procs", "1\n");
        put(d, "tasks", "1\n");
        if (probe)
                put(d, probe, streq(probe, "memory.limit_in_bytes") ? NO_LIMIT : "1024\n");
        free(d);
}

/* layout: "legacy" (cpu, cpuacct, memory, pids separate, like this project's machines),
 * "comount" (cpu,cpuacct with cpu and cpuacct links), "nomemory". */
static void make_tree(struct fixture *fx, const char *layout)
{
        strcpy(fx->root, "/tmp/flexlet-cgv1-XXXXXX");
        assert_non_null(mkdtemp(fx->root));
        if (streq(layout, "comount")) {
                char *d, *l;
                mount_dir(fx, "cpu,cpuacct", "cpu.shares");
                d = sub(fx, "cpu,cpuacct");
                put(d, "cpuacct.usage", "0\n");
                free(d);
                l = sub(fx, "cpu");
                assert_int_equal(symlink("cpu,cpuacct", l), 0);
                free(l);
                l = sub(fx, "cpuacct");
                assert_int_equal(symlink("cpu,cpuacct", l), 0);
                free(l);
        } else {
                mount_dir(fx, "cpu", "cpu.shares");
                mount_dir(fx, "cpuacct", "cpuacct.usage");
        }
        if (!streq(layout, "nomemory"))
                mount_dir(fx, "memory", "memory.limit_in_bytes");
        mount_dir(fx, "pids", NULL);
        mount_dir(fx, "freezer", NULL);
        /* hybrid hosts also have an empty cgroup2 at "unified": not ours to use */
        mount_dir(fx, "unified", NULL);
        {
                char *u = sub(fx, "unified");
                put(u, "cgroup.controllers", "");
                free(u);
        }
}

static int open_manager(struct fixture *fx, struct error **reterr)
{
        struct cgroup_fs fs = { fake_mkdir_at, fake_rmdir_at, fx };

        return cg_manager_open_fs(fx->root, "flexlet", &fs, &fx->m, reterr);
}

static int setup(void **state)
{
        struct fixture *fx = xcalloc(1, sizeof(*fx));

        make_tree(fx, "legacy");
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

static void test_detect_legacy(void **state)
{
        struct fixture *fx = *state;
        static const char *const ctrls[] = { "cpu", "memory", "pids", "cpuacct" };
        char **paths = NULL;
        size_t n = 0;

        assert_int_equal(cgroup_manager_version(fx->m), CGROUP_V1);
        for (size_t i = 0; i < ARRAY_SIZE(ctrls); i++) {
                char *d = xasprintf("%s/%s/flexlet", fx->root, ctrls[i]);
                assert_true(exists(d, "cgroup.procs"));
                free(d);
        }
        /* freezer and the hybrid cgroup2 are left alone */
        assert_false(exists(fx->root, "freezer/flexlet"));
        assert_false(exists(fx->root, "unified/flexlet"));
        assert_int_equal(cgroup_procs_paths(fx->m, "", &paths, &n, NULL), 0);
        assert_int_equal(n, 4);
        for (size_t i = 0; i < n; i++) {
                char *want = xasprintf("%s/%s/flexlet/cgroup.procs", fx->root, ctrls[i]);
                assert_string_equal(paths[i], want);
                free(want);
        }
        cgroup_strv_free(paths);
}

static void test_detect_comount(void **state)
{
        struct fixture fx = { 0 };
        char **paths = NULL;
        size_t n = 0;
        char *want;

        make_tree(&fx, "comount");
        assert_int_equal(open_manager(&fx, NULL), 0);
        /* "cpu" and "cpuacct" are one mount: one hierarchy, not two */
        assert_int_equal(cgroup_procs_paths(fx.m, "", &paths, &n, NULL), 0);
        assert_int_equal(n, 3);
        want = xasprintf("%s/cpu/flexlet/cgroup.procs", fx.root);
        assert_string_equal(paths[0], want);
        free(want);
        cgroup_strv_free(paths);
        cgroup_manager_free(fx.m);
        rm_rf(fx.root);
}

static void test_detect_missing_memory(void **state)
{
        struct fixture fx = { 0 };
        struct error *err = NULL;
        char *want;

        make_tree(&fx, "nomemory");
        assert_int_equal(open_manager(&fx, &err), -ENOENT);
        want = xasprintf("cgroup controller \"memory\" not found under \"%s\"", fx.root);
        assert_string_equal(err->message, want);
        free(want);
        error_free(err);
        assert_null(fx.m);
        rm_rf(fx.root);
}

static void test_create_everywhere(void **state)
{
        struct fixture *fx = *state;
        static const char *const ctrls[] = { "cpu", "memory", "pids", "cpuacct" };

        assert_int_equal(cgroup_create(fx->m, "kubepods/burstable/pod1/c1", NULL), 0);
        for (size_t i = 0; i < ARRAY_SIZE(ctrls); i++) {
                char *d = xasprintf("%s/%s/flexlet/kubepods/burstable/pod1/c1", fx->root, ctrls[i]);
                assert_true(exists(d, "cgroup.procs"));
                free(d);
        }
}

static void test_set_and_get_limits(void **state)
{
        struct fixture *fx = *state;
        struct cgroup_limits l = { .cpu_shares = 512,
                                   .cpu_quota_us = 50000,
                                   .cpu_period_us = 100000,
                                   .memory_limit_bytes = 268435456 };
        struct cgroup_limits got;
        char *cpu, *mem;

        assert_int_equal(cgroup_create(fx->m, "kubepods/podg", NULL), 0);
        cpu = sub(fx, "cpu/flexlet/kubepods/podg");
        mem = sub(fx, "memory/flexlet/kubepods/podg");
        /* fresh cgroup: kernel defaults read back as unlimited */
        assert_int_equal(cgroup_get_limits(fx->m, "kubepods/podg", &got, NULL), 0);
        assert_int_equal(got.cpu_shares, 1024);
        assert_int_equal(got.cpu_quota_us, -1);
        assert_int_equal(got.cpu_period_us, 100000);
        assert_int_equal(got.memory_limit_bytes, -1);
        assert_int_equal(got.cpu_weight, -1);

        /* S18 on v1: the same values in v1 files */
        assert_int_equal(cgroup_set_limits(fx->m, "kubepods/podg", &l, CGROUP_ALL_LIMITS, NULL), 0);
        assert_file(cpu, "cpu.shares", "512");
        assert_file(cpu, "cpu.cfs_period_us", "100000");
        assert_file(cpu, "cpu.cfs_quota_us", "50000");
        assert_file(mem, "memory.limit_in_bytes", "268435456");
        assert_int_equal(cgroup_get_limits(fx->m, "kubepods/podg", &got, NULL), 0);
        assert_int_equal(got.cpu_shares, 512);
        assert_int_equal(got.cpu_quota_us, 50000);
        assert_int_equal(got.cpu_period_us, 100000);
        assert_int_equal(got.memory_limit_bytes, 268435456);
        {
                int64_t limit = 0;

                assert_int_equal(cgroup_memory_limit(fx->m, "kubepods/podg", &limit, NULL), 0);
                assert_int_equal(limit, 268435456);
        }

        /* only what is selected is written; CGROUP_WEIGHT_OCI means nothing on v1 */
        l.cpu_shares = 1024;
        l.memory_limit_bytes = 1;
        assert_int_equal(cgroup_set_limits(fx->m, "kubepods/podg", &l,
                                           CGROUP_CPU_SHARES | CGROUP_WEIGHT_OCI, NULL),
                         0);
        assert_file(cpu, "cpu.shares", "1024");
        assert_file(mem, "memory.limit_in_bytes", "268435456");

        /* unlimited is -1 in both files */
        l.cpu_quota_us = -1;
        l.memory_limit_bytes = -1;
        assert_int_equal(cgroup_set_limits(fx->m, "kubepods/podg", &l,
                                           CGROUP_CPU_QUOTA | CGROUP_MEMORY, NULL),
                         0);
        assert_file(cpu, "cpu.cfs_quota_us", "-1");
        assert_file(mem, "memory.limit_in_bytes", "-1");
        assert_int_equal(cgroup_get_limits(fx->m, "kubepods/podg", &got, NULL), 0);
        assert_int_equal(got.cpu_quota_us, -1);
        assert_int_equal(got.memory_limit_bytes, -1);
        {
                int64_t limit = 0;

                /* the kernel's "unlimited" (a page-rounded LONG_MAX) reads as -1 too */
                assert_int_equal(cgroup_memory_limit(fx->m, "kubepods/podg", &limit, NULL), 0);
                assert_int_equal(limit, -1);
                put(mem, "memory.limit_in_bytes", "9223372036854771712\n");
                assert_int_equal(cgroup_memory_limit(fx->m, "kubepods/podg", &limit, NULL), 0);
                assert_int_equal(limit, -1);
                assert_int_equal(cgroup_memory_limit(fx->m, "kubepods/nosuch", &limit, NULL),
                                 -ENOENT);
        }
        free(cpu);
        free(mem);
}

static void test_set_limits_errors(void **state)
{
        struct fixture *fx = *state;
        struct cgroup_limits l = { .cpu_shares = 2,
                                   .cpu_quota_us = 1000,
                                   .cpu_period_us = 100000,
                                   .memory_limit_bytes = 4096 };
        struct error *err = NULL;
        char *mem, *cpu, *want, *d;

        assert_int_equal(cgroup_create(fx->m, "pod", NULL), 0);
        mem = sub(fx, "memory/flexlet/pod");
        cpu = sub(fx, "cpu/flexlet/pod");
        /* the write's errno comes back in the message, with the memory hierarchy's path */
        d = xasprintf("%s/memory.limit_in_bytes", mem);
        assert_int_equal(unlink(d), 0);
        assert_int_equal(mkdir(d, 0755), 0);
        assert_int_equal(cgroup_set_limits(fx->m, "pod", &l, CGROUP_ALL_LIMITS, &err), -EISDIR);
        want = xasprintf("set memory limit of \"%s\": Is a directory", mem);
        assert_string_equal(err->message, want);
        err = error_free(err);
        free(want);
        /* memory goes first: the cpu files are untouched */
        assert_file(cpu, "cpu.shares", "1024\n");
        rmdir(d);
        free(d);

        d = xasprintf("%s/cpu.cfs_quota_us", cpu);
        assert_int_equal(unlink(d), 0);
        assert_int_equal(cgroup_set_limits(fx->m, "pod", &l, CGROUP_CPU_QUOTA, &err), -ENOENT);
        want = xasprintf("set cpu quota of \"%s\": No such file or directory", cpu);
        assert_string_equal(err->message, want);
        err = error_free(err);
        free(want);
        assert_file(cpu, "cpu.cfs_period_us", "100000"); /* the period went first */
        free(d);

        assert_int_equal(cgroup_get_limits(fx->m, "pod", &l, &err), -ENOENT);
        want = xasprintf("read \"%s/cpu.cfs_quota_us\": No such file or directory", cpu);
        assert_string_equal(err->message, want);
        error_free(err);
        free(want);
        free(mem);
        free(cpu);
}

/* K8S runc fs cpuacct/memory GetStats: cpuacct.usage and memory.stat's hierarchical total_*
 * lines (not the cgroup's own inactive_file). */
static void test_stats(void **state)
{
        struct fixture *fx = *state;
        struct cgroup_stats st;
        char *mem, *acct;

        assert_int_equal(cgroup_create(fx->m, "pod", NULL), 0);
        mem = sub(fx, "memory/flexlet/pod");
        acct = sub(fx, "cpuacct/flexlet/pod");
        put(acct, "cpuacct.usage", "123456789\n");
        put(mem, "memory.usage_in_bytes", "8388608\n");
        put(mem, "memory.stat",
            "rss 1\ninactive_file 1\ntotal_rss 2097152\ntotal_inactive_file 1048576\ntotal_pgfault 9\ntotal_pgmajfault 1\n");
        assert_int_equal(cgroup_stats(fx->m, "pod", &st, NULL), 0);
        assert_int_equal(st.cpu_usage_ns, 123456789);
        assert_int_equal(st.memory_usage, 8388608);
        assert_int_equal(st.rss, 2097152);
        assert_int_equal(st.inactive_file, 1048576);
        assert_int_equal(st.pgfault, 9);
        assert_int_equal(cgroup_working_set(&st), 8388608 - 1048576);
        free(mem);
        free(acct);
}

static void test_usage_and_oom(void **state)
{
        struct fixture *fx = *state;
        struct error *err = NULL;
        uint64_t v = 0;
        char *mem;

        assert_int_equal(cgroup_create(fx->m, "pod", NULL), 0);
        mem = sub(fx, "memory/flexlet/pod");
        put(mem, "memory.usage_in_bytes", "40960000\n");
        assert_int_equal(cgroup_memory_usage(fx->m, "pod", &v, NULL), 0);
        assert_int_equal(v, 40960000);
        put(mem, "memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n");
        assert_int_equal(cgroup_oom_kills(fx->m, "pod", &v, NULL), 0);
        assert_int_equal(v, 2);
        /* Linux < 4.13 has no oom_kill line: no made-up count */
        put(mem, "memory.oom_control", "oom_kill_disable 0\nunder_oom 1\n");
        assert_int_equal(cgroup_oom_kills(fx->m, "pod", &v, &err), -EOPNOTSUPP);
        assert_non_null(strstr(err->message, "no oom_kill count (Linux older than 4.13)"));
        error_free(err);
        free(mem);
}

static void test_add_pid_everywhere(void **state)
{
        struct fixture *fx = *state;
        static const char *const ctrls[] = { "cpu", "memory", "pids", "cpuacct" };
        pid_t *pids = NULL;
        size_t n = 0;

        assert_int_equal(cgroup_create(fx->m, "pod/c", NULL), 0);
        assert_int_equal(cgroup_add_pid(fx->m, "pod/c", 31337, NULL), 0);
        for (size_t i = 0; i < ARRAY_SIZE(ctrls); i++) {
                char *d = xasprintf("%s/%s/flexlet/pod/c", fx->root, ctrls[i]);
                assert_file(d, "cgroup.procs", "31337");
                free(d);
        }
        /* listed from the memory hierarchy */
        assert_int_equal(cgroup_pids(fx->m, "pod/c", &pids, &n, NULL), 0);
        assert_int_equal(n, 1);
        assert_int_equal(pids[0], 31337);
        free(pids);
}

static void test_kill_and_destroy(void **state)
{
        struct fixture *fx = *state;
        struct sigaction ign = { .sa_handler = SIG_IGN }, old;
        struct error *err = NULL;
        char buf[32], *cpu_c, *mem_pod, *want;
        pid_t a, b;

        assert_int_equal(cgroup_create(fx->m, "kubepods/pod/c1", NULL), 0);
        sigaction(SIGCHLD, &ign, &old);
        a = fork();
        if (a == 0)
                for (;;)
                        pause();
        b = fork();
        if (b == 0)
                for (;;)
                        pause();
        /* each process listed in a different hierarchy: the kill walks all of them */
        cpu_c = sub(fx, "cpu/flexlet/kubepods/pod/c1");
        mem_pod = sub(fx, "memory/flexlet/kubepods/pod");
        snprintf(buf, sizeof(buf), "%d\n", (int) a);
        put(cpu_c, "cgroup.procs", buf);
        snprintf(buf, sizeof(buf), "%d\n", (int) b);
        put(mem_pod, "cgroup.procs", buf);

        assert_int_equal(cgroup_destroy(fx->m, "kubepods/pod", &err), -EBUSY);
        want = xasprintf("remove cgroup \"%s/cpu/flexlet/kubepods/pod\": Device or resource busy",
                         fx->root);
        assert_string_equal(err->message, want);
        err = error_free(err);
        free(want);

        assert_int_equal(cgroup_kill(fx->m, "kubepods/pod", NULL), 0);
        assert_int_equal(kill(a, 0), -1);
        assert_int_equal(kill(b, 0), -1);
        sigaction(SIGCHLD, &old, NULL);
        /* the kernel drops the dead from cgroup.procs */
        put(cpu_c, "cgroup.procs", "");
        put(mem_pod, "cgroup.procs", "");

        assert_int_equal(cgroup_destroy(fx->m, "kubepods/pod", NULL), 0);
        for (const char *const *c =
                     (const char *const[]){ "cpu", "memory", "pids", "cpuacct", NULL };
             *c; c++) {
                char *d = xasprintf("%s/%s/flexlet/kubepods", fx->root, *c);
                assert_true(exists(d, "cgroup.procs"));
                assert_false(exists(d, "pod"));
                free(d);
        }
        assert_int_equal(cgroup_destroy(fx->m, "kubepods/pod", NULL), 0);
        assert_int_equal(cgroup_kill(fx->m, "kubepods/pod", NULL), 0);
        free(cpu_c);
        free(mem_pod);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_detect_legacy, setup, teardown),
                cmocka_unit_test(test_detect_comount),
                cmocka_unit_test(test_detect_missing_memory),
                cmocka_unit_test_setup_teardown(test_create_everywhere, setup, teardown),
                cmocka_unit_test_setup_teardown(test_set_and_get_limits, setup, teardown),
                cmocka_unit_test_setup_teardown(test_set_limits_errors, setup, teardown),
                cmocka_unit_test_setup_teardown(test_usage_and_oom, setup, teardown),
                cmocka_unit_test_setup_teardown(test_stats, setup, teardown),
                cmocka_unit_test_setup_teardown(test_add_pid_everywhere, setup, teardown),
                cmocka_unit_test_setup_teardown(test_kill_and_destroy, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
