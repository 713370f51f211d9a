/* test-cgroup-real.c: the cgroup manager on this machine's real cgroups (v1 or v2), as root:
 * limits written and read back from the kernel, a forked child placed, its memory charged, a
 * v1 limit below usage refused with EBUSY, an OOM kill counted, a process tree killed, cgroups
 * removed. Everything lives below /sys/fs/cgroup/<controller>/flexlet-test-<pid> and is removed
 * after each test and again at the end, even after a failure. Skips, saying why, when not root
 * or when the cpu and memory controllers are not mounted. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/alloc.h"
#include "node/cgroup/cgroup.h"

#define SYSFS "/sys/fs/cgroup"
#define Mi    (INT64_C(1024) * 1024)

struct real {
        char root[64]; /* flexlet-test-<pid> */
        char why[256]; /* set when the tests cannot run here */
        struct cgroup_manager *m;
        enum cgroup_version v;
};

static struct real R;

/* ---- cleanup without the manager, for whatever a failure left behind ---- */

static void raw_remove(const char *path, int depth)
{
        char procs[4096];
        struct dirent *de;
        FILE *f;
        DIR *d;

        if (depth > 32)
                return;
        snprintf(procs, sizeof(procs), "%s/cgroup.procs", path);
        f = fopen(procs, "r");
        if (f) {
                int pid;
                while (fscanf(f, "%d", &pid) == 1)
                        if (pid > 1)
                                kill(pid, SIGKILL);
                fclose(f);
        }
        d = opendir(path);
        if (!d)
                return;
        while ((de = readdir(d))) {
                if (de->d_type == DT_DIR && !streq(de->d_name, ".") && !streq(de->d_name, "..")) {
                        char *sub = xasprintf("%s/%s", path, de->d_name);
                        raw_remove(sub, depth + 1);
                        free(sub);
                }
        }
        closedir(d);
        for (int i = 0; i < 200 && rmdir(path) < 0 && errno == EBUSY; i++)
                usleep(10000);
}

/* Removes flexlet-test-<pid> from every hierarchy (and from a cgroup2 root). */
static void raw_cleanup(void)
{
        struct dirent *de;
        DIR *d;

        if (!R.root[0])
                return;
        {
                char *p = xasprintf("%s/%s", SYSFS, R.root);
                raw_remove(p, 0);
                free(p);
        }
        d = opendir(SYSFS);
        if (!d)
                return;
        while ((de = readdir(d))) {
                char *p;
                if (de->d_name[0] == '.')
                        continue;
                p = xasprintf("%s/%s/%s", SYSFS, de->d_name, R.root);
                if (access(p, F_OK) == 0)
                        raw_remove(p, 0);
                free(p);
        }
        closedir(d);
}

static bool has_controllers(const char *file, const char *need1, const char *need2)
{
        char buf[512] = "";
        FILE *f = fopen(file, "r");
        bool ok;

        if (!f)
                return false;
        if (!fgets(buf, sizeof(buf), f))
                buf[0] = '\0';
        fclose(f);
        ok = strstr(buf, need1) && strstr(buf, need2);
        return ok;
}

static int group_setup(void **state)
{
        struct error *err = NULL;

        snprintf(R.root, sizeof(R.root), "flexlet-test-%d", (int) getpid());
        if (geteuid() != 0) {
                snprintf(R.why, sizeof(R.why), "not root: real cgroups need uid 0");
                return 0;
        }
        if (access(SYSFS "/cgroup.controllers", F_OK) == 0) {
                /* v2: only run where the root already delegates cpu and memory, so that
                 * nothing outside the test's own cgroup is written */
                if (!has_controllers(SYSFS "/cgroup.subtree_control", "cpu", "memory")) {
                        snprintf(R.why, sizeof(R.why),
                                 "cgroup v2 root does not enable cpu and memory for its children");
                        return 0;
                }
        } else if (access(SYSFS "/memory/memory.limit_in_bytes", F_OK) != 0 ||
                   (access(SYSFS "/cpu/cpu.shares", F_OK) != 0 &&
                    access(SYSFS "/cpu,cpuacct/cpu.shares", F_OK) != 0)) {
                snprintf(R.why, sizeof(R.why),
                         "cpu and memory cgroup controllers not mounted at "
                         "%s",
                         SYSFS);
                return 0;
        }
        if (cgroup_manager_open(SYSFS, R.root, &R.m, &err) < 0) {
                snprintf(R.why, sizeof(R.why), "cannot open cgroups: %s", err->message);
                error_free(err);
                raw_cleanup();
                return 0;
        }
        R.v = cgroup_manager_version(R.m);
        return 0;
}

static int group_teardown(void **state)
{
        if (R.m) {
                (void) cgroup_kill(R.m, "", NULL);
                (void) cgroup_destroy(R.m, "", NULL);
                R.m = cgroup_manager_free(R.m);
        }
        raw_cleanup();
        return 0;
}

/* Each test works below its own top-level cgroup; this removes them whatever happened. */
static int test_teardown(void **state)
{
        const char *tops[] = { "kubepods", "pod-mem", "pod-oom", "pod-k", "pod-self" };

        if (!R.m)
                return 0;
        for (size_t i = 0; i < ARRAY_SIZE(tops); i++) {
                (void) cgroup_kill(R.m, tops[i], NULL);
                (void) cgroup_destroy(R.m, tops[i], NULL);
        }
        return 0;
}

#define REQUIRE_REAL()                                                \
 do {                                                                 \
  if (!R.m) {                                                         \
   print_message("# skipped: %s\n", R.why[0] ? R.why : "no manager"); \
   skip();                                                            \
  }                                                                   \
 } while (0)

/* ---- helpers ---- */

static char *ctrl_path(const char *ctrl, const char *rel)
{
        if (R.v == CGROUP_V2)
                return xasprintf("%s/%s/%s", SYSFS, R.root, rel);
        return xasprintf("%s/%s/%s/%s", SYSFS, ctrl, R.root, rel);
}

static void assert_kernel_file(const char *ctrl, const char *rel, const char *file,
                               const char *want)
{
        char *dir = ctrl_path(ctrl, rel);
        char *path = xasprintf("%s/%s", dir, file);
        char buf[256] = "";
        FILE *f = fopen(path, "r");

        if (!f)
                fail_msg("open %s: %s", path, strerror(errno));
        if (!fgets(buf, sizeof(buf), f))
                buf[0] = '\0';
        fclose(f);
        if (!streq(buf, want))
                fail_msg("%s: \"%s\", want \"%s\"", path, buf, want);
        free(path);
        free(dir);
}

/* Waits up to 10 s for one byte on fd. */
static bool wait_byte(int fd)
{
        struct pollfd p = { .fd = fd, .events = POLLIN };
        char c;

        return poll(&p, 1, 10000) == 1 && read(fd, &c, 1) == 1;
}

static bool pid_in(pid_t pid, const pid_t *pids, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (pids[i] == pid)
                        return true;
        return false;
}

/* A child that waits for a byte on go, touches mb MiB, writes a byte on ready, then sleeps. */
static pid_t spawn_eater(int mb, int *go_w, int *ready_r)
{
        int go[2], ready[2];
        pid_t pid;

        assert_int_equal(pipe2(go, O_CLOEXEC), 0);
        assert_int_equal(pipe2(ready, O_CLOEXEC), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                char c;
                if (read(go[0], &c, 1) != 1)
                        _exit(1);
                if (mb > 0) {
                        char *p = malloc((size_t) mb << 20);
                        if (!p)
                                _exit(2);
                        for (size_t i = 0; i < ((size_t) mb << 20); i += 4096)
                                p[i] = 1;
                }
                if (write(ready[1], "r", 1) != 1)
                        _exit(3);
                for (;;)
                        pause();
        }
        close(go[0]);
        close(ready[1]);
        *go_w = go[1];
        *ready_r = ready[0];
        return pid;
}

static void assert_killed(pid_t pid)
{
        int status = 0;

        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFSIGNALED(status));
        assert_int_equal(WTERMSIG(status), SIGKILL);
}

/* ---- tests ---- */

static void test_real_limits(void **state)
{
        struct cgroup_limits l = { .cpu_shares = 512,
                                   .cpu_quota_us = 50000,
                                   .cpu_period_us = 100000,
                                   .memory_limit_bytes = 256 * Mi };
        const char *pod = "kubepods/burstable/podA";
        struct cgroup_limits got;
        struct error *err = NULL;

        REQUIRE_REAL();
        print_message("# cgroup %s, root %s\n", cgroup_version_to_string(R.v), R.root);
        assert_int_equal(cgroup_create(R.m, "kubepods/burstable/podA/c1", &err), 0);

        /* S18: Guaranteed 500m/256Mi at pod level, read back from the kernel */
        assert_int_equal(cgroup_set_limits(R.m, pod, &l, CGROUP_ALL_LIMITS, &err), 0);
        assert_int_equal(cgroup_get_limits(R.m, pod, &got, &err), 0);
        assert_int_equal(got.cpu_quota_us, 50000);
        assert_int_equal(got.cpu_period_us, 100000);
        assert_int_equal(got.memory_limit_bytes, 256 * Mi);
        if (R.v == CGROUP_V1) {
                assert_int_equal(got.cpu_shares, 512);
                assert_kernel_file("cpu", pod, "cpu.shares", "512\n");
                assert_kernel_file("cpu", pod, "cpu.cfs_quota_us", "50000\n");
                assert_kernel_file("cpu", pod, "cpu.cfs_period_us", "100000\n");
                assert_kernel_file("memory", pod, "memory.limit_in_bytes", "268435456\n");
        } else {
                assert_int_equal(got.cpu_weight, 20);
                assert_kernel_file("cpu", pod, "cpu.max", "50000 100000\n");
                assert_kernel_file("cpu", pod, "cpu.weight", "20\n");
                assert_kernel_file("memory", pod, "memory.max", "268435456\n");
        }

        /* a container quota above the pod's: v1 checks the hierarchy and refuses */
        l.cpu_quota_us = 100000;
        if (R.v == CGROUP_V1) {
                char *want = xasprintf("set cpu quota of \"%s/cpu/%s/%s/c1\": Invalid argument",
                                       SYSFS, R.root, pod);
                assert_int_equal(cgroup_set_limits(R.m, "kubepods/burstable/podA/c1", &l,
                                                   CGROUP_CPU_QUOTA, &err),
                                 -EINVAL);
                assert_string_equal(err->message, want);
                err = error_free(err);
                free(want);
        }
        l.cpu_quota_us = 20000;
        assert_int_equal(cgroup_set_limits(R.m, "kubepods/burstable/podA/c1", &l,
                                           CGROUP_CPU_QUOTA | CGROUP_CPU_SHARES, &err),
                         0);
        assert_int_equal(cgroup_get_limits(R.m, "kubepods/burstable/podA/c1", &got, &err), 0);
        assert_int_equal(got.cpu_quota_us, 20000);

        /* S18 after the resize to 1 CPU */
        l.cpu_shares = 1024;
        l.cpu_quota_us = 100000;
        assert_int_equal(
                cgroup_set_limits(R.m, pod, &l, CGROUP_CPU_SHARES | CGROUP_CPU_QUOTA, &err), 0);
        if (R.v == CGROUP_V1)
                assert_kernel_file("cpu", pod, "cpu.cfs_quota_us", "100000\n");
        else
                assert_kernel_file("cpu", pod, "cpu.weight", "39\n");

        /* back to unlimited */
        l.cpu_quota_us = -1;
        l.memory_limit_bytes = -1;
        assert_int_equal(cgroup_set_limits(R.m, pod, &l, CGROUP_CPU_QUOTA | CGROUP_MEMORY, &err),
                         0);
        assert_int_equal(cgroup_get_limits(R.m, pod, &got, &err), 0);
        assert_int_equal(got.cpu_quota_us, -1);
        assert_int_equal(got.memory_limit_bytes, -1);
        assert_null(err);
}

static void test_real_process_memory(void **state)
{
        struct cgroup_limits l = { .memory_limit_bytes = 8 * Mi };
        struct error *err = NULL;
        pid_t *pids = NULL, child;
        uint64_t usage = 0;
        size_t n = 0;
        int go, ready;
        char *line, *want;

        REQUIRE_REAL();
        assert_int_equal(cgroup_create(R.m, "pod-mem/c1", &err), 0);
        child = spawn_eater(48, &go, &ready);
        assert_int_equal(cgroup_add_pid(R.m, "pod-mem/c1", child, &err), 0);

        /* the kernel shows the child in the cgroup */
        {
                char *path = xasprintf("/proc/%d/cgroup", (int) child);
                FILE *f = fopen(path, "r");
                bool found = false;
                char buf[1024];
                want = xasprintf("/%s/pod-mem/c1\n", R.root);
                assert_non_null(f);
                while (fgets(buf, sizeof(buf), f)) {
                        line = strchr(buf, ':');
                        line = line ? strchr(line + 1, ':') : NULL;
                        if (line && streq(line + 1, want) &&
                            (R.v == CGROUP_V2 || strstr(buf, ":memory:")))
                                found = true;
                }
                fclose(f);
                assert_true(found);
                free(want);
                free(path);
        }
        assert_int_equal(cgroup_pids(R.m, "pod-mem/c1", &pids, &n, &err), 0);
        assert_int_equal(n, 1);
        assert_int_equal(pids[0], child);
        free(pids);

        /* the memory it touches after the move is charged here, and to the parent */
        assert_int_equal(write(go, "g", 1), 1);
        assert_true(wait_byte(ready));
        assert_int_equal(cgroup_memory_usage(R.m, "pod-mem/c1", &usage, &err), 0);
        assert_true(usage >= (uint64_t) 48 * Mi);
        assert_int_equal(cgroup_memory_usage(R.m, "pod-mem", &usage, &err), 0);
        assert_true(usage >= (uint64_t) 48 * Mi);

        if (R.v == CGROUP_V1) {
                /* K8S (KEP-1287): a v1 kernel refuses a limit below usage with EBUSY */
                struct cgroup_limits got;
                want = xasprintf("set memory limit of \"%s/memory/%s/pod-mem/c1\": Device or "
                                 "resource busy",
                                 SYSFS, R.root);
                assert_int_equal(cgroup_set_limits(R.m, "pod-mem/c1", &l, CGROUP_MEMORY, &err),
                                 -EBUSY);
                assert_int_equal(err->errnum, EBUSY);
                assert_string_equal(err->message, want);
                err = error_free(err);
                free(want);
                assert_int_equal(cgroup_get_limits(R.m, "pod-mem/c1", &got, &err), 0);
                assert_int_equal(got.memory_limit_bytes, -1);
                assert_int_equal(cgroup_kill(R.m, "pod-mem", &err), 0);
                assert_killed(child);
        } else {
                /* v2 reclaims, then the OOM killer takes the child */
                uint64_t kills = 0;
                assert_int_equal(cgroup_set_limits(R.m, "pod-mem/c1", &l, CGROUP_MEMORY, &err), 0);
                assert_killed(child);
                assert_int_equal(cgroup_oom_kills(R.m, "pod-mem/c1", &kills, &err), 0);
                assert_true(kills >= 1);
        }
        assert_int_equal(cgroup_pids(R.m, "pod-mem/c1", &pids, &n, &err), 0);
        assert_int_equal(n, 0);
        free(pids);
        close(go);
        close(ready);

        assert_int_equal(cgroup_destroy(R.m, "pod-mem", &err), 0);
        {
                char *p = ctrl_path("memory", "pod-mem");
                assert_int_equal(access(p, F_OK), -1);
                assert_int_equal(errno, ENOENT);
                free(p);
                p = ctrl_path("cpu", "pod-mem");
                assert_int_equal(access(p, F_OK), -1);
                free(p);
        }
        assert_int_equal(cgroup_destroy(R.m, "pod-mem", &err), 0);
        assert_null(err);
}

/* A child that joins the cgroup itself before anything else (as between fork and exec), by
 * writing "0" to each cgroup.procs file opened before the fork. */
static pid_t spawn_self_placed(char **paths, size_t n, int mb, int *ready_r)
{
        int fds[8], ready[2];
        pid_t pid;

        assert_true(n <= ARRAY_SIZE(fds));
        for (size_t i = 0; i < n; i++) {
                fds[i] = open(paths[i], O_WRONLY | O_CLOEXEC);
                assert_true(fds[i] >= 0);
        }
        assert_int_equal(pipe2(ready, O_CLOEXEC), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                for (size_t i = 0; i < n; i++)
                        if (write(fds[i], "0", 1) != 1)
                                _exit(4);
                if (mb > 0) {
                        char *p = malloc((size_t) mb << 20);
                        for (size_t i = 0; p && i < ((size_t) mb << 20); i += 4096)
                                p[i] = 1;
                }
                if (write(ready[1], "r", 1) != 1)
                        _exit(3);
                for (;;)
                        pause();
        }
        for (size_t i = 0; i < n; i++)
                close(fds[i]);
        close(ready[1]);
        *ready_r = ready[0];
        return pid;
}

static void test_real_procs_paths(void **state)
{
        struct error *err = NULL;
        char **paths = NULL;
        pid_t *pids = NULL, child;
        size_t n = 0, np = 0;
        int ready;

        REQUIRE_REAL();
        assert_int_equal(cgroup_create(R.m, "pod-self/c1", &err), 0);
        assert_int_equal(cgroup_procs_paths(R.m, "pod-self/c1", &paths, &n, &err), 0);
        assert_true(n >= (R.v == CGROUP_V1 ? 2u : 1u));
        child = spawn_self_placed(paths, n, 0, &ready);
        assert_true(wait_byte(ready));
        assert_int_equal(cgroup_pids(R.m, "pod-self/c1", &pids, &np, &err), 0);
        assert_true(pid_in(child, pids, np));
        free(pids);
        assert_int_equal(cgroup_kill(R.m, "pod-self", &err), 0);
        assert_killed(child);
        close(ready);
        cgroup_strv_free(paths);
        assert_int_equal(cgroup_destroy(R.m, "pod-self", &err), 0);
        assert_null(err);
}

static void test_real_oom_kill(void **state)
{
        struct cgroup_limits l = { .memory_limit_bytes = 16 * Mi };
        struct error *err = NULL;
        char **paths = NULL;
        uint64_t kills = 99;
        size_t n = 0;
        pid_t child;
        int ready;

        REQUIRE_REAL();
        assert_int_equal(cgroup_create(R.m, "pod-oom/c1", &err), 0);
        assert_int_equal(cgroup_set_limits(R.m, "pod-oom/c1", &l, CGROUP_MEMORY, &err), 0);
        assert_int_equal(cgroup_oom_kills(R.m, "pod-oom/c1", &kills, &err), 0);
        assert_int_equal(kills, 0);
        assert_int_equal(cgroup_procs_paths(R.m, "pod-oom/c1", &paths, &n, &err), 0);
        /* 64 MiB touched under a 16 MiB limit with no swap to go to: the OOM killer */
        child = spawn_self_placed(paths, n, 64, &ready);
        assert_killed(child);
        assert_int_equal(cgroup_oom_kills(R.m, "pod-oom/c1", &kills, &err), 0);
        assert_true(kills >= 1);
        close(ready);
        cgroup_strv_free(paths);
        assert_int_equal(cgroup_destroy(R.m, "pod-oom", &err), 0);
        assert_null(err);
}

static void test_real_kill_tree(void **state)
{
        struct error *err = NULL;
        char **paths = NULL;
        pid_t *pids = NULL, a, b;
        size_t n = 0, np = 0;
        int ready_a, ready_b;

        REQUIRE_REAL();
        assert_int_equal(cgroup_create(R.m, "pod-k/c1", &err), 0);
        assert_int_equal(cgroup_create(R.m, "pod-k/c2", &err), 0);

        /* c1: a process with three children of its own */
        assert_int_equal(cgroup_procs_paths(R.m, "pod-k/c1", &paths, &n, &err), 0);
        {
                int fds[8], ready[2];
                for (size_t i = 0; i < n; i++)
                        fds[i] = open(paths[i], O_WRONLY | O_CLOEXEC);
                assert_int_equal(pipe2(ready, O_CLOEXEC), 0);
                a = fork();
                assert_true(a >= 0);
                if (a == 0) {
                        for (size_t i = 0; i < n; i++)
                                if (write(fds[i], "0", 1) != 1)
                                        _exit(4);
                        for (int k = 0; k < 3; k++)
                                if (fork() == 0)
                                        for (;;)
                                                pause();
                        if (write(ready[1], "r", 1) != 1)
                                _exit(3);
                        for (;;)
                                pause();
                }
                for (size_t i = 0; i < n; i++)
                        close(fds[i]);
                close(ready[1]);
                ready_a = ready[0];
        }
        cgroup_strv_free(paths);
        assert_int_equal(cgroup_procs_paths(R.m, "pod-k/c2", &paths, &n, &err), 0);
        b = spawn_self_placed(paths, n, 0, &ready_b);
        cgroup_strv_free(paths);
        assert_true(wait_byte(ready_a));
        assert_true(wait_byte(ready_b));

        assert_int_equal(cgroup_pids(R.m, "pod-k/c1", &pids, &np, &err), 0);
        assert_int_equal(np, 4);
        free(pids);

        assert_int_equal(cgroup_kill(R.m, "pod-k", &err), 0);
        assert_killed(a);
        assert_killed(b);
        assert_int_equal(cgroup_pids(R.m, "pod-k/c1", &pids, &np, &err), 0);
        assert_int_equal(np, 0);
        free(pids);
        assert_int_equal(cgroup_destroy(R.m, "pod-k", &err), 0);
        close(ready_a);
        close(ready_b);
        assert_null(err);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(test_real_limits, test_teardown),
                cmocka_unit_test_teardown(test_real_process_memory, test_teardown),
                cmocka_unit_test_teardown(test_real_procs_paths, test_teardown),
                cmocka_unit_test_teardown(test_real_oom_kill, test_teardown),
                cmocka_unit_test_teardown(test_real_kill_tree, test_teardown),
        };
        return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
