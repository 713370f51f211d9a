/* node-bench.c: the measuring half of bench/run-node-bench.sh (the script starts `flexlet serve`,
 * runs the phases and writes the report). Subcommands, each printing "key value" lines:
 *   kernel   the kernel floor: fork+exec of /bin/true, clone into new pid/ipc/uts/mount
 *            namespaces + exec, and `unshare -pimuf /bin/true` spawned, N runs each
 *   runtime  the runtime floor: the agent's pod shape (cgroups, a 16Mi tmpfs volume, a sandbox and
 *            a busybox `sleep 3600`) started straight through node/runtime, no API; then the kill
 *            floor (SIGKILL to every process of the pods until all are gone) and the runtime's
 *            own teardown
 *   start    pods created through the API (all at once or one at a time), each timed from its
 *            POST to a watch event showing it Running with its container started
 *   delete   the pods deleted through the API, each timed to its DELETED event and to its folder
 *            leaving the host, then a check that no mount, cgroup, folder or process is left
 *   idle     RSS and CPU of the serve process and of the pods' helper processes over a window
 *   confine  the confinement's and the pod network's cost through the agent, in one run: N
 *            rounds of four pods created one at a time, the order rotated each round: privileged
 *            on the host's network (no confinement), the default confinement, PSA
 *            "restricted", and the default on a pod network (CNI); create→Running of each, and
 *            the container process's setup and confinement times from its started.json
 *   exeseal  what the sealed binary costs: making the sealed view, and exec from it against
 *            exec from the binary's own path
 *   cni      the pod network's cost, N runs: a sandbox started on the host's network and one with
 *            a network namespace of its own; then pod_network_attach (loopback + bridge/portmap
 *            ADD, the netns mount and record) and, after the sandbox stops, pod_network_detach
 *            (the DELs, unmount), as the agent calls them
 * With NODE_BENCH_DEBUG set, each pod's start times and each killed process's exit time also go
 * to stderr. With NODEBENCH_SECURITY=restricted the runtime floor's containers are confined as a
 * PSA "restricted" pod's (RuntimeDefault seccomp, drop ALL, no_new_privs, non-root, read-only
 * root) on top of the default every container gets. This binary is also the runtime's helper (the
 * runtime starts /proc/self/exe), so main routes `supervise` first, as flexlet's does. A program,
 * not a library: it prints and exits. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "base/json.h"
#include "client/client.h"
#include "node/cgroup/cgroup.h"
#include "node/network/network.h"
#include "node/runtime/runtime.h"
#include "node/volume/emptydir.h"
#include "bench-util.h"

extern char **environ;

#define MAX_PIDS 65536

/* ------------------------------------------------------------------ /proc */

static bool read_small(const char *path, char *buf, size_t size)
{
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t n;

        if (fd < 0)
                return false;
        n = read(fd, buf, size - 1);
        (void) close(fd);
        if (n < 0)
                return false;
        buf[n] = '\0';
        return true;
}

/* A "Name: <n> kB" line of /proc/<pid>/<file>, or -1. */
static long proc_kib(pid_t pid, const char *file, const char *name)
{
        char path[64], line[256];
        size_t len = strlen(name);
        long kib = -1;
        FILE *f;

        (void) snprintf(path, sizeof(path), "/proc/%d/%s", (int) pid, file);
        f = fopen(path, "re");
        if (!f)
                return -1;
        while (fgets(line, sizeof(line), f))
                if (!strncmp(line, name, len) && line[len] == ':') {
                        kib = strtol(line + len + 1, NULL, 10);
                        break;
                }
        (void) fclose(f);
        return kib;
}

/* utime + stime of /proc/<pid>[/task/<tid>]/stat in clock ticks (dead threads included for a
 * process), or -1; *ret_ppid and comm (32 bytes) when not NULL. */
static long long proc_ticks(const char *stat_path, pid_t *ret_ppid, char *comm)
{
        char buf[2048], *p, *rp;
        unsigned long long ut = 0, st = 0;
        int ppid = 0;

        if (!read_small(stat_path, buf, sizeof(buf)))
                return -1;
        p = strchr(buf, '(');
        rp = strrchr(buf, ')');
        if (!p || !rp)
                return -1;
        if (comm) {
                size_t n = (size_t) (rp - p - 1);
                if (n > 31)
                        n = 31;
                memcpy(comm, p + 1, n);
                comm[n] = '\0';
        }
        /* after ") ": state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
         * utime stime */
        if (sscanf(rp + 2, "%*c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ppid, &ut,
                   &st) != 3)
                return -1;
        if (ret_ppid)
                *ret_ppid = ppid;
        return (long long) (ut + st);
}

static long long pid_ticks(pid_t pid, pid_t *ret_ppid)
{
        char path[64];

        (void) snprintf(path, sizeof(path), "/proc/%d/stat", (int) pid);
        return proc_ticks(path, ret_ppid, NULL);
}

/* Whether /proc/<pid>/cmdline is "<exe> supervise ..." with an argument containing needle. */
static bool is_helper_of(pid_t pid, const char *needle)
{
        char path[64], buf[4096];
        size_t n;
        int fd;
        ssize_t r;
        bool supervise = false, mentions = false;
        int argi = 0;

        (void) snprintf(path, sizeof(path), "/proc/%d/cmdline", (int) pid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return false;
        r = read(fd, buf, sizeof(buf) - 1);
        (void) close(fd);
        if (r <= 0)
                return false;
        n = (size_t) r;
        buf[n] = '\0';
        for (size_t off = 0; off < n; argi++) {
                const char *arg = buf + off;
                if (argi == 1 && streq(arg, "supervise"))
                        supervise = true;
                if (argi >= 2 && strstr(arg, needle))
                        mentions = true;
                off += strlen(arg) + 1;
        }
        return supervise && mentions;
}

struct proc_set {
        pid_t helpers[MAX_PIDS];   /* `supervise` processes: sandbox pid 1s and supervisors */
        bool is_sandbox[MAX_PIDS]; /* helpers[i] is a pod's pid 1 (named "pause") */
        size_t n_helpers;
        pid_t containers[MAX_PIDS]; /* children of the supervisors that are not helpers */
        size_t n_containers;
};

static bool pid_in(const pid_t *v, size_t n, pid_t pid)
{
        for (size_t i = 0; i < n; i++)
                if (v[i] == pid)
                        return true;
        return false;
}

/* The processes of the pods whose state lives under data_dir. */
static void scan_pods_processes(const char *data_dir, struct proc_set *s)
{
        static pid_t all[MAX_PIDS], parent[MAX_PIDS];
        size_t n_all = 0;
        DIR *d = opendir("/proc");
        struct dirent *e;

        s->n_helpers = s->n_containers = 0;
        if (!d)
                die("open /proc: %s", strerror(errno));
        while ((e = readdir(d)) && n_all < MAX_PIDS) {
                pid_t pid = (pid_t) strtol(e->d_name, NULL, 10), ppid = 0;
                char path[300], comm[32] = "";
                if (pid <= 0)
                        continue;
                (void) snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
                if (proc_ticks(path, &ppid, comm) < 0)
                        continue;
                all[n_all] = pid;
                parent[n_all++] = ppid;
                if (is_helper_of(pid, data_dir)) {
                        s->is_sandbox[s->n_helpers] = streq(comm, "pause");
                        s->helpers[s->n_helpers++] = pid;
                }
        }
        closedir(d);
        for (size_t i = 0; i < n_all; i++)
                if (pid_in(s->helpers, s->n_helpers, parent[i]) &&
                    !pid_in(s->helpers, s->n_helpers, all[i]))
                        s->containers[s->n_containers++] = all[i];
}

struct mem_sum {
        size_t n;
        long rss_kib, pss_kib;
        long long ticks;
};

static struct mem_sum sum_memory(const pid_t *pids, size_t n)
{
        struct mem_sum m = { 0 };

        for (size_t i = 0; i < n; i++) {
                long rss = proc_kib(pids[i], "status", "VmRSS");
                long pss = proc_kib(pids[i], "smaps_rollup", "Pss");
                long long t = pid_ticks(pids[i], NULL);
                if (rss < 0)
                        continue;
                m.n++;
                m.rss_kib += rss;
                m.pss_kib += pss > 0 ? pss : 0;
                m.ticks += t > 0 ? t : 0;
        }
        return m;
}

/* ------------------------------------------------------------------ kernel floor */

static double time_fork_exec(void)
{
        int64_t t0 = now_ns();
        pid_t pid = fork();
        int st;

        if (pid < 0)
                die("fork: %s", strerror(errno));
        if (pid == 0) {
                execl("/bin/true", "true", (char *) NULL);
                _exit(127);
        }
        if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
                die("/bin/true failed");
        return (double) (now_ns() - t0) / 1e3;
}

/* clone(2) straight into new pid, ipc, uts and mount namespaces, then exec: what a sandbox and
 * a container need from the kernel, without the overlay, /proc, /dev and cgroup work. */
static double time_clone_ns(void)
{
        int64_t t0 = now_ns();
        long pid = syscall(SYS_clone,
                           CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWNS | SIGCHLD, NULL,
                           NULL, NULL, NULL);
        int st;

        if (pid < 0)
                die("clone: %s", strerror(errno));
        if (pid == 0) {
                execl("/bin/true", "true", (char *) NULL);
                _exit(127);
        }
        if (waitpid((pid_t) pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
                die("/bin/true in new namespaces failed");
        return (double) (now_ns() - t0) / 1e3;
}

static double time_unshare_cmd(void)
{
        char *argv[] = { "unshare", "-pimuf", "/bin/true", NULL };
        int64_t t0 = now_ns();
        pid_t pid;
        int st, r;

        r = posix_spawnp(&pid, "unshare", NULL, NULL, argv, environ);
        if (r != 0)
                die("spawn unshare: %s", strerror(r));
        if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
                die("unshare -pimuf /bin/true failed");
        return (double) (now_ns() - t0) / 1e3;
}

static int cmd_kernel(size_t runs)
{
        double *v = xcalloc(runs, sizeof(*v));
        static const struct {
                const char *key;
                double (*fn)(void);
        } kinds[] = {
                { "kernel.fork_exec_us", time_fork_exec },
                { "kernel.clone_ns_us", time_clone_ns },
                { "kernel.unshare_cmd_us", time_unshare_cmd },
        };

        for (size_t k = 0; k < ARRAY_SIZE(kinds); k++) {
                for (size_t i = 0; i < 10; i++)
                        (void) kinds[k].fn(); /* warm the page cache and the allocator */
                for (size_t i = 0; i < runs; i++)
                        v[i] = kinds[k].fn();
                bench_print_stats(kinds[k].key, v, runs, 0);
        }
        free(v);
        return 0;
}

/* ------------------------------------------------------------------ runtime floor */

struct floor_pod {
        char uid[32];
        char *dir, *cgroup, *sandbox_cg, *container_cg, *volume, *sandbox, *container;
};

struct floor {
        const char *data;
        struct cgroup_manager *cg;
        struct runtime_image img;
        struct floor_pod *pods;
        size_t n;
};

/* f's pods (f->n of them), its cgroup parent kubepods/burstable under cgroup_root and the
 * busybox image in f->data; dies when one cannot be had. */
static void floor_open(struct floor *f, const char *cgroup_root)
{
        cleanup_error struct error *err = NULL;

        f->pods = xcalloc(f->n, sizeof(*f->pods));
        if (cgroup_manager_open("/sys/fs/cgroup", cgroup_root, &f->cg, &err) < 0 ||
            cgroup_create(f->cg, "kubepods/burstable", &err) < 0)
                die("cgroups: %s", err->message);
        if (runtime_image_ensure(f->data, "busybox", &f->img, &err) < 0)
                die("image: %s", err->message);
}

static void floor_close(struct floor *f)
{
        runtime_image_release(&f->img);
        (void) cgroup_destroy(f->cg, "", NULL);
        cgroup_manager_free(f->cg);
        free(f->pods);
}

static void floor_pod_init(struct floor *f, size_t i, unsigned round)
{
        struct floor_pod *p = &f->pods[i];

        (void) snprintf(p->uid, sizeof(p->uid), "floor-%u-%zu", round, i);
        p->dir = xasprintf("%s/pods/%s", f->data, p->uid);
        p->cgroup = xasprintf("kubepods/burstable/pod%s", p->uid);
        p->sandbox_cg = xasprintf("%s/sandbox", p->cgroup);
        p->container_cg = xasprintf("%s/c", p->cgroup);
        p->volume = xasprintf("%s/volumes/data", p->dir);
        p->sandbox = runtime_sandbox_dir(f->data, p->uid);
        p->container = runtime_container_dir(f->data, p->uid, "c", 0);
}

static void floor_pod_release(struct floor_pod *p)
{
        free(p->dir);
        free(p->cgroup);
        free(p->sandbox_cg);
        free(p->container_cg);
        free(p->volume);
        free(p->sandbox);
        free(p->container);
        *p = (struct floor_pod){ 0 };
}

/* What the agent does for a Burstable pod with cpu 10m, memory 16Mi requests before the
 * runtime: the folder, the pod, sandbox and container cgroups with their limits, the tmpfs. */
static void floor_prepare(struct floor *f, struct floor_pod *p)
{
        struct cgroup_limits l = { .cpu_shares = 10,
                                   .cpu_quota_us = -1,
                                   .cpu_period_us = 100000,
                                   .memory_limit_bytes = -1 };
        cleanup_error struct error *err = NULL;

        if (fs_mkdir_p(p->dir, 0700) < 0)
                die("mkdir %s", p->dir);
        if (cgroup_create(f->cg, p->cgroup, &err) < 0 ||
            cgroup_set_limits(f->cg, p->cgroup, &l, CGROUP_ALL_LIMITS, &err) < 0 ||
            cgroup_create(f->cg, p->sandbox_cg, &err) < 0 ||
            cgroup_create(f->cg, p->container_cg, &err) < 0 ||
            cgroup_set_limits(f->cg, p->container_cg, &l, CGROUP_ALL_LIMITS | CGROUP_WEIGHT_OCI,
                              &err) < 0 ||
            emptydir_setup(p->volume, EMPTYDIR_MEDIUM_MEMORY, 16 << 20, &err) < 0)
                die("prepare %s: %s", p->uid, err->message);
}

/* runtime_sandbox_start + runtime_container_start of busybox `sleep 3600` with the volume;
 * *ret_sandbox_ms is the sandbox's part. */
static void floor_start(struct floor *f, struct floor_pod *p, double *ret_sandbox_ms)
{
        static const char *const cmd[] = { "sleep", "3600", NULL };
        struct runtime_mount m = { .source = p->volume, .target = "/data" };
        struct runtime_container_spec spec = { 0 };
        struct runtime_container_status st = { 0 };
        cleanup_error struct error *err = NULL;
        char **sprocs = NULL, **cprocs = NULL;
        pid_t pid;

        if (cgroup_procs_paths(f->cg, p->sandbox_cg, &sprocs, NULL, &err) < 0 ||
            cgroup_procs_paths(f->cg, p->container_cg, &cprocs, NULL, &err) < 0)
                die("cgroup procs of %s: %s", p->uid, err->message);
        struct runtime_sandbox_spec ss = { .state_dir = p->sandbox,
                                           .hostname = p->uid,
                                           .cgroup_procs = (const char *const *) sprocs };
        int64_t t0 = now_ns();

        if (runtime_sandbox_start(&ss, &pid, &err) < 0)
                die("sandbox %s: %s", p->uid, err->message);
        *ret_sandbox_ms = ms_between(t0, now_ns());
        runtime_container_spec_use_image(&spec, &f->img);
        spec.state_dir = p->container;
        spec.sandbox_dir = p->sandbox;
        spec.command = cmd;
        spec.mounts = &m;
        spec.n_mounts = 1;
        spec.cgroup_procs = (const char *const *) cprocs;
        /* NODEBENCH_SECURITY=restricted: the confinement of a PSA "restricted" container
         * (RuntimeDefault seccomp, drop ALL, no_new_privs, non-root, read-only root) on top of
         * the runtime default every container gets */
        const char *sec = getenv("NODEBENCH_SECURITY");
        if (sec && streq(sec, "restricted")) {
                spec.uid = 1000;
                spec.security.caps_set = true;
                spec.security.caps = 0;
                spec.security.no_new_privs = true;
                spec.security.read_only_root = true;
                spec.security.seccomp = RUNTIME_SECCOMP_RUNTIME_DEFAULT;
        }
        if (runtime_container_start(&spec, &err) < 0)
                die("container %s: %s", p->uid, err->message);
        /* the agent reads the state back before it reports Running */
        if (runtime_container_state(p->container, &st, &err) < 0 ||
            st.phase != RUNTIME_CONTAINER_RUNNING)
                die("container %s is not running", p->uid);
        runtime_container_status_release(&st);
        cgroup_strv_free(sprocs);
        cgroup_strv_free(cprocs);
}

/* The runtime's teardown as the agent's pod_teardown orders it. */
static void floor_teardown(struct floor *f, struct floor_pod *p)
{
        cleanup_error struct error *err = NULL;

        if (runtime_container_remove(p->container, &err) < 0 ||
            runtime_sandbox_stop(p->sandbox, &err) < 0 || cgroup_kill(f->cg, p->cgroup, &err) < 0 ||
            emptydir_teardown(p->volume, &err) < 0 || cgroup_destroy(f->cg, p->cgroup, &err) < 0)
                die("teardown %s: %s", p->uid, err ? err->message : "failed");
        if (fs_remove_tree(p->dir) < 0)
                die("remove %s", p->dir);
}

static void floor_start_all(struct floor *f, unsigned round, const char *key)
{
        double *prep = xcalloc(f->n, sizeof(*prep)), *rt = xcalloc(f->n, sizeof(*rt)),
               *pod = xcalloc(f->n, sizeof(*pod)), *sb = xcalloc(f->n, sizeof(*sb));
        cleanup_free char *kprep = xasprintf("%s.prepare_ms", key);
        cleanup_free char *krt = xasprintf("%s.runtime_ms", key);
        cleanup_free char *kpod = xasprintf("%s.pod_ms", key);
        cleanup_free char *ksb = xasprintf("%s.sandbox_ms", key);
        int64_t t_all = now_ns();

        for (size_t i = 0; i < f->n; i++) {
                int64_t t0, t1;

                floor_pod_init(f, i, round);
                t0 = now_ns();
                floor_prepare(f, &f->pods[i]);
                t1 = now_ns();
                floor_start(f, &f->pods[i], &sb[i]);
                prep[i] = ms_between(t0, t1);
                rt[i] = ms_between(t1, now_ns());
                pod[i] = prep[i] + rt[i];
        }
        (void) printf("%s.total_ms %.3f\n", key, ms_between(t_all, now_ns()));
        bench_print_stats(krt, rt, f->n, 0);
        bench_print_stats(kprep, prep, f->n, 0);
        bench_print_stats(kpod, pod, f->n, 0);
        bench_print_stats(ksb, sb, f->n, 0);
        free(sb);
        free(pod);
        free(prep);
        free(rt);
}

/* The kill floor: SIGKILL through pidfds, timed until every process of the pods has exited.
 * Not everything: the containers and the pods' pid 1s; each supervisor then reaps its container,
 * records the exit and ends, as it does when a container dies. Everything: the supervisors too,
 * so a container's zombie is left to whoever adopts it. */
static void kill_floor(const struct proc_set *ps, bool everything, const char *key)
{
        size_t n = ps->n_helpers + ps->n_containers, alive;
        struct pollfd *pfds = xcalloc(n, sizeof(*pfds));
        double *exited = xcalloc(n, sizeof(*exited));
        cleanup_free char *kexit = xasprintf("%s.exit_ms", key);
        int64_t t0;

        for (size_t i = 0; i < n; i++) {
                pid_t pid = i < ps->n_helpers ? ps->helpers[i] : ps->containers[i - ps->n_helpers];
                pfds[i].fd = (int) syscall(SYS_pidfd_open, pid, 0);
                pfds[i].events = POLLIN;
                if (pfds[i].fd < 0)
                        die("pidfd_open %d: %s", (int) pid, strerror(errno));
        }
        t0 = now_ns();
        for (size_t i = 0; i < n; i++)
                if (everything || i >= ps->n_helpers || ps->is_sandbox[i])
                        (void) syscall(SYS_pidfd_send_signal, pfds[i].fd, SIGKILL, NULL, 0);
        for (alive = n; alive > 0;) {
                if (poll(pfds, n, 20000) <= 0)
                        die("%zu processes outlive SIGKILL", alive);
                for (size_t i = 0; i < n; i++)
                        if (pfds[i].fd >= 0 && pfds[i].revents) {
                                exited[i] = ms_between(t0, now_ns());
                                (void) close(pfds[i].fd);
                                pfds[i].fd = -1; /* poll ignores negative fds */
                                alive--;
                        }
        }
        (void) printf("%s.processes %zu\n%s.total_ms %.3f\n", key, n, key,
                      ms_between(t0, now_ns()));
        if (getenv("NODE_BENCH_DEBUG"))
                for (size_t i = 0; i < n; i++)
                        (void) fprintf(stderr, "%s %d exited after %.3f ms\n",
                                       i >= ps->n_helpers  ? "container"
                                       : ps->is_sandbox[i] ? "sandbox"
                                                           : "supervisor",
                                       (int) (i < ps->n_helpers
                                                      ? ps->helpers[i]
                                                      : ps->containers[i - ps->n_helpers]),
                                       exited[i]);
        bench_print_stats(kexit, exited, n, 0);
        free(exited);
        free(pfds);
}

/* The runtime's own parallel start (issue 16's floor for "pods created together start
 * together"): f->n pods prepared and started by `threads` threads at once, each taking the next
 * pod, timed from the first to the last one running. */
struct floor_parallel {
        struct floor *f;
        atomic_size_t next;
        unsigned round;
};

static void *floor_parallel_main(void *arg)
{
        struct floor_parallel *fp = arg;
        size_t i;
        double sandbox_ms;

        while ((i = atomic_fetch_add(&fp->next, 1)) < fp->f->n) {
                floor_pod_init(fp->f, i, fp->round);
                floor_prepare(fp->f, &fp->f->pods[i]);
                floor_start(fp->f, &fp->f->pods[i], &sandbox_ms);
        }
        return NULL;
}

static int cmd_runtime_parallel(const char *data, const char *cgroup_root, size_t n,
                                unsigned threads)
{
        struct floor f = { .data = data, .n = n };
        struct floor_parallel fp = { .f = &f, .round = 4 };
        pthread_t *t = xcalloc(threads, sizeof(*t));
        int64_t t0;

        floor_open(&f, cgroup_root);
        t0 = now_ns();
        for (unsigned i = 0; i < threads; i++)
                if (pthread_create(&t[i], NULL, floor_parallel_main, &fp) != 0)
                        die("pthread_create");
        for (unsigned i = 0; i < threads; i++)
                (void) pthread_join(t[i], NULL);
        (void) printf("runtime.parallel.threads %u\nruntime.parallel.total_ms %.3f\n", threads,
                      ms_between(t0, now_ns()));
        for (size_t i = 0; i < n; i++) {
                floor_teardown(&f, &f.pods[i]);
                floor_pod_release(&f.pods[i]);
        }
        floor_close(&f);
        free(t);
        return 0;
}

static int cmd_runtime(const char *data, const char *cgroup_root, size_t n)
{
        static struct proc_set ps;
        struct floor f = { .data = data, .n = n };
        struct mem_sum helpers, containers;
        int64_t t0;

        floor_open(&f, cgroup_root);

        /* round 1: start, measure the helpers, then the kill floor */
        floor_start_all(&f, 1, "runtime.start");
        scan_pods_processes(data, &ps);
        helpers = sum_memory(ps.helpers, ps.n_helpers);
        containers = sum_memory(ps.containers, ps.n_containers);
        (void) printf("runtime.helpers.n %zu\nruntime.helpers.rss_kib %ld\n"
                      "runtime.helpers.pss_kib %ld\n",
                      helpers.n, helpers.rss_kib, helpers.pss_kib);
        (void) printf("runtime.containers.n %zu\nruntime.containers.rss_kib %ld\n"
                      "runtime.containers.pss_kib %ld\n",
                      containers.n, containers.rss_kib, containers.pss_kib);

        kill_floor(&ps, false, "runtime.kill");
        t0 = now_ns();
        for (size_t i = 0; i < n; i++)
                floor_teardown(&f, &f.pods[i]);
        (void) printf("runtime.kill.cleanup_ms %.3f\n", ms_between(t0, now_ns()));
        for (size_t i = 0; i < n; i++)
                floor_pod_release(&f.pods[i]);

        /* round 2: start again, then the runtime's own teardown, pod by pod */
        floor_start_all(&f, 2, "runtime.start2");
        t0 = now_ns();
        {
                double *v = xcalloc(n, sizeof(*v));
                for (size_t i = 0; i < n; i++) {
                        int64_t t1 = now_ns();
                        floor_teardown(&f, &f.pods[i]);
                        v[i] = ms_between(t1, now_ns());
                        floor_pod_release(&f.pods[i]);
                }
                (void) printf("runtime.teardown.total_ms %.3f\n", ms_between(t0, now_ns()));
                bench_print_stats("runtime.teardown_ms", v, n, 0);
                free(v);
        }
        /* round 3: start again, then SIGKILL to every process at once, supervisors included */
        floor_start_all(&f, 3, "runtime.start3");
        scan_pods_processes(data, &ps);
        kill_floor(&ps, true, "runtime.killall");
        for (size_t i = 0; i < n; i++) {
                floor_teardown(&f, &f.pods[i]);
                floor_pod_release(&f.pods[i]);
        }
        scan_pods_processes(data, &ps);
        (void) printf("runtime.left.processes %zu\n", ps.n_helpers + ps.n_containers);
        floor_close(&f);
        return 0;
}

/* ------------------------------------------------------------------ the API side */

struct api {
        const char *server, *ca, *ns, *prefix, *data, *cgroup_root;
        char *token;
};

/* A watch of the namespace's pods, from a resource version, on its own thread. */
struct watcher {
        const struct api *a;
        size_t n;
        pthread_mutex_t lock;
        pthread_cond_t cond;
        char *rv;
        int64_t *t_bound, *t_running, *t_deleted;
        size_t running, deleted, modified;
        bool count_modified;
        pthread_t thread;
};

static int on_event(void *ud, const char *type, json_t *pod)
{
        struct watcher *w = ud;
        int64_t t = now_ns();
        long i = bench_name_index(w->a->prefix, json_path_string(pod, "metadata.name"), w->n);
        const char *rv = json_path_string(pod, "metadata.resourceVersion");

        pthread_mutex_lock(&w->lock);
        if (rv)
                bench_set_str(&w->rv, rv);
        if (i >= 0 && streq(type, "MODIFIED"))
                w->modified++;
        if (i >= 0 && streq(type, "DELETED") && !w->t_deleted[i]) {
                w->t_deleted[i] = t;
                w->deleted++;
                pthread_cond_broadcast(&w->cond);
        } else if (i >= 0 && !streq(type, "DELETED")) {
                if (!w->t_bound[i] && json_path_string(pod, "spec.nodeName"))
                        w->t_bound[i] = t;
                if (!w->t_running[i] && bench_pod_running(pod)) {
                        w->t_running[i] = t;
                        w->running++;
                        pthread_cond_broadcast(&w->cond);
                }
        }
        pthread_mutex_unlock(&w->lock);
        return 0;
}

static void *watch_main(void *arg)
{
        struct watcher *w = arg;
        struct api_client *c =
                bench_client_new(w->a->server, w->a->ca, w->a->token, BENCH_IDLE_TIMEOUT_MS);
        cleanup_free char *path = xasprintf("/api/v1/namespaces/%s/pods", w->a->ns);

        bench_watch_forever(c, path, &w->lock, &w->rv, on_event, w);
}

/* Lists the namespace's pods (for their resource version and, optionally, items). */
static json_t *list_pods(const struct api *a, struct api_client *c)
{
        cleanup_free char *path = xasprintf("/api/v1/namespaces/%s/pods", a->ns);
        cleanup_error struct error *err = NULL;
        json_t *list = NULL;
        long status = 0;

        if (api_client_request(c, "GET", path, NULL, NULL, 0, &status, &list, &err) < 0)
                die("%s", err->message);
        if (status != 200)
                die("list pods: status %ld", status);
        return list;
}

static void watcher_start(struct watcher *w, const struct api *a, size_t n, const char *rv)
{
        *w = (struct watcher){ .a = a, .n = n, .rv = xstrdup(rv ?: "0") };
        pthread_mutex_init(&w->lock, NULL);
        pthread_cond_init(&w->cond, NULL);
        w->t_bound = xcalloc(n, sizeof(int64_t));
        w->t_running = xcalloc(n, sizeof(int64_t));
        w->t_deleted = xcalloc(n, sizeof(int64_t));
        if (pthread_create(&w->thread, NULL, watch_main, w) != 0)
                die("pthread_create");
}

/* Waits until *count reaches want or the deadline (monotonic ns) passes. */
static bool watcher_wait(struct watcher *w, const size_t *count, size_t want, int64_t deadline)
{
        bool ok;

        pthread_mutex_lock(&w->lock);
        while (*count < want && now_ns() < deadline) {
                bench_cond_wait_ms(&w->cond, &w->lock, 2);
        }
        ok = *count >= want;
        pthread_mutex_unlock(&w->lock);
        return ok;
}

static void wait_or_die(struct watcher *w, const size_t *count, size_t want, int64_t deadline,
                        const char *what)
{
        if (!watcher_wait(w, count, want, deadline))
                die("%s: %zu of %zu after the timeout", what, *count, want);
}

struct start_opts {
        const char *mode, *cpu, *memory, *size_limit, *key;
        size_t n;
        double timeout_s;
};

static int cmd_start(const struct api *a, const struct start_opts *o)
{
        cleanup_api_client struct api_client *c =
                bench_client_new(a->server, a->ca, a->token, BENCH_IDLE_TIMEOUT_MS);
        cleanup_json json_t *list = list_pods(a, c);
        cleanup_free char *path = xasprintf("/api/v1/namespaces/%s/pods", a->ns);
        bool serial = streq(o->mode, "serial");
        int64_t *t_post = xcalloc(o->n, sizeof(*t_post));
        double *lat = xcalloc(o->n, sizeof(*lat)), *post = xcalloc(o->n, sizeof(*post)),
               *bind = xcalloc(o->n, sizeof(*bind)), *agent = xcalloc(o->n, sizeof(*agent));
        int64_t t_all, t_end = 0, deadline;
        struct watcher w;
        const char *key = o->key ? o->key : serial ? "start.serial" : "start.burst";

        watcher_start(&w, a, o->n, json_path_string(list, "metadata.resourceVersion"));
        t_all = now_ns();
        deadline = t_all + (int64_t) (o->timeout_s * 1e9);
        for (size_t i = 0; i < o->n; i++) {
                cleanup_free char *body = xasprintf(
                        "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s-%zu\","
                        "\"labels\":{\"app\":\"node-bench\"}},\"spec\":{"
                        "\"containers\":[{\"name\":\"c\",\"image\":\"busybox\","
                        "\"command\":[\"sleep\",\"3600\"],\"resources\":{\"requests\":{"
                        "\"cpu\":\"%s\",\"memory\":\"%s\"}},"
                        "\"volumeMounts\":[{\"name\":\"data\",\"mountPath\":\"/data\"}]}],"
                        "\"volumes\":[{\"name\":\"data\",\"emptyDir\":{\"medium\":\"Memory\","
                        "\"sizeLimit\":\"%s\"}}]}}",
                        a->prefix, i, o->cpu, o->memory, o->size_limit);
                cleanup_error struct error *err = NULL;
                cleanup_json json_t *j = NULL;
                long status = 0;
                int64_t t0 = now_ns();

                /* the watch thread reads t_post only after the pod exists */
                t_post[i] = t0;
                if (api_client_request(c, "POST", path, NULL, body, strlen(body), &status, &j,
                                       &err) < 0)
                        die("%s", err->message);
                post[i] = ms_between(t0, now_ns());
                if (status != 201)
                        die("create %s-%zu: status %ld: %s", a->prefix, i, status,
                            json_path_string(j, "message") ?: "");
                if (serial)
                        wait_or_die(&w, &w.running, i + 1, deadline, "pods Running");
        }
        wait_or_die(&w, &w.running, o->n, deadline, "pods Running");
        pthread_mutex_lock(&w.lock);
        for (size_t i = 0; i < o->n; i++) {
                lat[i] = ms_between(t_post[i], w.t_running[i]);
                bind[i] = w.t_bound[i] ? ms_between(t_post[i], w.t_bound[i]) : lat[i];
                agent[i] = w.t_bound[i] ? ms_between(w.t_bound[i], w.t_running[i]) : 0;
                if (w.t_running[i] > t_end)
                        t_end = w.t_running[i];
                if (getenv("NODE_BENCH_DEBUG"))
                        (void) fprintf(stderr, "%s-%zu post %.3f bound %.3f running %.3f ms\n",
                                       a->prefix, i, post[i], bind[i], lat[i]);
        }
        pthread_mutex_unlock(&w.lock);
        (void) printf("%s.total_ms %.3f\n", key, ms_between(t_all, t_end));
        {
                /* the first and the last tenth of the pods, in creation order: how latency grows
                 * with the pods already there */
                size_t tenth = o->n >= 10 ? o->n / 10 : 1;
                double first = 0, last = 0;
                for (size_t i = 0; i < tenth; i++) {
                        first += lat[i];
                        last += lat[o->n - 1 - i];
                }
                (void) printf("%s.first_tenth_mean_ms %.3f\n%s.last_tenth_mean_ms %.3f\n", key,
                              first / (double) tenth, key, last / (double) tenth);
        }
        {
                cleanup_free char *k1 = xasprintf("%s.latency_ms", key);
                cleanup_free char *k2 = xasprintf("%s.post_ms", key);
                cleanup_free char *k3 = xasprintf("%s.bound_ms", key);
                cleanup_free char *k4 = xasprintf("%s.bound_to_running_ms", key);
                bench_print_stats(k1, lat, o->n, 0);
                bench_print_stats(k2, post, o->n, 0);
                bench_print_stats(k3, bind, o->n, 0);
                bench_print_stats(k4, agent, o->n, 0);
        }
        (void) fflush(stdout);
        _exit(0); /* the watch thread blocks in its stream */
}

/* pod* cgroups in <hierarchy>/<root>/kubepods[/burstable|/besteffort]. */
static size_t count_pod_cgroups(const char *hierarchy, const char *root)
{
        static const char *const qos[] = { "", "/burstable", "/besteffort" };
        size_t n = 0;

        for (size_t q = 0; q < ARRAY_SIZE(qos); q++) {
                cleanup_free char *p = xasprintf("%s/%s/kubepods%s", hierarchy, root, qos[q]);
                DIR *d = opendir(p);
                struct dirent *e;

                if (!d)
                        continue;
                while ((e = readdir(d)))
                        if (!strncmp(e->d_name, "pod", 3))
                                n++;
                closedir(d);
        }
        return n;
}

/* Leftovers of pods under the agent's data dir and cgroup root: mounts, pod cgroups, folders. */
static void count_leftovers(const struct api *a, size_t *mounts, size_t *cgroups, size_t *dirs)
{
        cleanup_free char *pods = xasprintf("%s/pods/", a->data);
        char line[4096];
        FILE *f = fopen("/proc/self/mountinfo", "re");
        DIR *d;
        struct dirent *e;

        *mounts = *cgroups = *dirs = 0;
        while (f && fgets(line, sizeof(line), f))
                if (strstr(line, pods))
                        (*mounts)++;
        if (f)
                (void) fclose(f);
        if ((d = opendir(pods))) {
                while ((e = readdir(d)))
                        if (e->d_name[0] != '.')
                                (*dirs)++;
                closedir(d);
        }
        /* v1: /sys/fs/cgroup/<hierarchy>/<root>/kubepods[/qos]/pod*; v2: no hierarchy level */
        *cgroups = count_pod_cgroups("/sys/fs/cgroup", a->cgroup_root);
        if ((d = opendir("/sys/fs/cgroup"))) {
                while ((e = readdir(d))) {
                        cleanup_free char *h = NULL;
                        if (e->d_name[0] == '.')
                                continue;
                        h = xasprintf("/sys/fs/cgroup/%s", e->d_name);
                        *cgroups += count_pod_cgroups(h, a->cgroup_root);
                }
                closedir(d);
        }
}

static int cmd_delete(const struct api *a, size_t n, double timeout_s, const char *key)
{
        cleanup_api_client struct api_client *c =
                bench_client_new(a->server, a->ca, a->token, BENCH_IDLE_TIMEOUT_MS);
        cleanup_json json_t *list = list_pods(a, c);
        cleanup_free char *pods_dir = xasprintf("%s/pods", a->data);
        char **uids = xcalloc(n, sizeof(*uids)), **paths = xcalloc(n, sizeof(*paths));
        int64_t *t_del = xcalloc(n, sizeof(*t_del)), *t_clean = xcalloc(n, sizeof(*t_clean));
        double *gone = xcalloc(n, sizeof(*gone)), *clean = xcalloc(n, sizeof(*clean));
        int64_t t_all, t_last_gone = 0, t_last_clean = 0, deadline;
        size_t found = 0, cleaned = 0, mounts, cgroups, dirs;
        static struct proc_set ps;
        struct watcher w;
        json_t *pod;
        size_t i;

        json_array_foreach(json_object_get(list, "items"), i, pod) {
                long k = bench_name_index(a->prefix, json_path_string(pod, "metadata.name"), n);
                if (k >= 0 && !uids[k]) {
                        uids[k] = xstrdup(json_path_string(pod, "metadata.uid") ?: "");
                        paths[k] = xasprintf("%s/%s", pods_dir, uids[k]);
                        found++;
                }
        }
        if (found != n)
                die("delete: %zu of %zu pods \"%s-*\" exist", found, n, a->prefix);
        watcher_start(&w, a, n, json_path_string(list, "metadata.resourceVersion"));
        t_all = now_ns();
        deadline = t_all + (int64_t) (timeout_s * 1e9);
        for (i = 0; i < n; i++) {
                cleanup_free char *path =
                        xasprintf("/api/v1/namespaces/%s/pods/%s-%zu", a->ns, a->prefix, i);
                cleanup_error struct error *err = NULL;
                long status = 0;

                t_del[i] = now_ns();
                if (api_client_request(c, "DELETE", path, NULL, NULL, 0, &status, NULL, &err) < 0)
                        die("%s", err->message);
                if (status != 200 && status != 202)
                        die("delete %s-%zu: status %ld", a->prefix, i, status);
        }
        /* the folder is the last thing pod_teardown removes: poll for each pod's */
        while (cleaned < n && now_ns() < deadline) {
                for (i = 0; i < n; i++)
                        if (!t_clean[i] && access(paths[i], F_OK) < 0 && errno == ENOENT) {
                                t_clean[i] = now_ns();
                                cleaned++;
                        }
                (void) usleep(1000);
        }
        wait_or_die(&w, &w.deleted, n, deadline, "pods gone");
        if (cleaned < n)
                die("delete: %zu of %zu pod folders removed after the timeout", cleaned, n);
        pthread_mutex_lock(&w.lock);
        for (i = 0; i < n; i++) {
                gone[i] = ms_between(t_del[i], w.t_deleted[i]);
                clean[i] = ms_between(t_del[i], t_clean[i]);
                if (w.t_deleted[i] > t_last_gone)
                        t_last_gone = w.t_deleted[i];
                if (t_clean[i] > t_last_clean)
                        t_last_clean = t_clean[i];
        }
        pthread_mutex_unlock(&w.lock);
        (void) printf("%s.gone_total_ms %.3f\n%s.clean_total_ms %.3f\n", key,
                      ms_between(t_all, t_last_gone), key, ms_between(t_all, t_last_clean));
        {
                cleanup_free char *k1 = xasprintf("%s.gone_ms", key);
                cleanup_free char *k2 = xasprintf("%s.clean_ms", key);
                bench_print_stats(k1, gone, n, 0);
                bench_print_stats(k2, clean, n, 0);
        }
        count_leftovers(a, &mounts, &cgroups, &dirs);
        scan_pods_processes(a->data, &ps);
        (void) printf("%s.left.mounts %zu\n%s.left.cgroups %zu\n%s.left.dirs %zu\n"
                      "%s.left.processes %zu\n",
                      key, mounts, key, cgroups, key, dirs, key, ps.n_helpers + ps.n_containers);
        (void) fflush(stdout);
        _exit(0);
}

/* ------------------------------------------------------------------ idle */

struct thread_ticks {
        pid_t tid;
        long long ticks;
        char comm[32];
};

static size_t read_threads(pid_t pid, struct thread_ticks *out, size_t max)
{
        char dir[64];
        size_t n = 0;
        DIR *d;
        struct dirent *e;

        (void) snprintf(dir, sizeof(dir), "/proc/%d/task", (int) pid);
        if (!(d = opendir(dir)))
                return 0;
        while ((e = readdir(d)) && n < max) {
                char path[400];
                if (e->d_name[0] == '.')
                        continue;
                (void) snprintf(path, sizeof(path), "%s/%s/stat", dir, e->d_name);
                out[n].tid = (pid_t) strtol(e->d_name, NULL, 10);
                out[n].ticks = proc_ticks(path, NULL, out[n].comm);
                if (out[n].ticks >= 0)
                        n++;
        }
        closedir(d);
        return n;
}

static int cmp_thread(const void *x, const void *y)
{
        const struct thread_ticks *a = x, *b = y;

        return a->ticks < b->ticks ? 1 : a->ticks > b->ticks ? -1 : 0;
}

static int cmd_idle(const struct api *a, pid_t pid, double seconds, const char *key)
{
        static struct proc_set ps0, ps1;
        static struct thread_ticks th0[512], th1[512];
        double hz = (double) sysconf(_SC_CLK_TCK);
        long long t0 = pid_ticks(pid, NULL), t1;
        size_t n0, n1;
        int64_t w0, w1;
        struct mem_sum h0, h1, c1;
        struct watcher w;
        cleanup_api_client struct api_client *c =
                bench_client_new(a->server, a->ca, a->token, BENCH_IDLE_TIMEOUT_MS);
        cleanup_json json_t *list = list_pods(a, c);
        size_t modified;

        if (t0 < 0)
                die("no process %d", (int) pid);
        watcher_start(&w, a, 1000000, json_path_string(list, "metadata.resourceVersion"));
        scan_pods_processes(a->data, &ps0);
        h0 = sum_memory(ps0.helpers, ps0.n_helpers);
        n0 = read_threads(pid, th0, ARRAY_SIZE(th0));
        w0 = now_ns();
        t0 = pid_ticks(pid, NULL);
        (void) usleep((useconds_t) (seconds * 1e6));
        t1 = pid_ticks(pid, NULL);
        w1 = now_ns();
        n1 = read_threads(pid, th1, ARRAY_SIZE(th1));
        pthread_mutex_lock(&w.lock);
        modified = w.modified;
        pthread_mutex_unlock(&w.lock);
        scan_pods_processes(a->data, &ps1);
        h1 = sum_memory(ps1.helpers, ps1.n_helpers);
        c1 = sum_memory(ps1.containers, ps1.n_containers);

        (void) printf("%s.window_s %.3f\n", key, ms_between(w0, w1) / 1e3);
        (void) printf("%s.serve.rss_kib %ld\n", key, proc_kib(pid, "status", "VmRSS"));
        (void) printf("%s.serve.hwm_kib %ld\n", key, proc_kib(pid, "status", "VmHWM"));
        (void) printf("%s.serve.anon_kib %ld\n", key, proc_kib(pid, "status", "RssAnon"));
        (void) printf("%s.serve.threads %zu\n", key, n1);
        (void) printf("%s.serve.cpu_s %.3f\n", key, (double) (t1 - t0) / hz);
        (void) printf("%s.serve.cpu_pct %.2f\n", key,
                      100.0 * (double) (t1 - t0) / hz / (ms_between(w0, w1) / 1e3));
        /* per thread, the busiest first (threads born in the window count from 0) */
        for (size_t i = 0; i < n1; i++) {
                long long before = 0;
                for (size_t j = 0; j < n0; j++)
                        if (th0[j].tid == th1[i].tid)
                                before = th0[j].ticks;
                th1[i].ticks -= before;
        }
        qsort(th1, n1, sizeof(*th1), cmp_thread);
        for (size_t i = 0; i < n1 && i < 4 && th1[i].ticks > 0; i++)
                (void) printf("%s.serve.thread%zu %d:%s:%.2f%%\n", key, i, (int) th1[i].tid,
                              th1[i].comm,
                              100.0 * (double) th1[i].ticks / hz / (ms_between(w0, w1) / 1e3));
        (void) printf("%s.pod_status_writes %zu\n", key, modified);
        (void) printf("%s.helpers.n %zu\n%s.helpers.rss_kib %ld\n%s.helpers.pss_kib %ld\n", key,
                      h1.n, key, h1.rss_kib, key, h1.pss_kib);
        (void) printf("%s.helpers.cpu_pct %.3f\n", key,
                      100.0 * (double) (h1.ticks - h0.ticks) / hz / (ms_between(w0, w1) / 1e3));
        (void) printf("%s.containers.n %zu\n%s.containers.rss_kib %ld\n%s.containers.pss_kib %ld\n",
                      key, c1.n, key, c1.rss_kib, key, c1.pss_kib);
        (void) fflush(stdout);
        _exit(0);
}

/* ------------------------------------------------------------------ main */

/* The pod network's cost per pod (see the top of this file). */
static int cmd_cni(const char *data, size_t runs, const char *cidr, const char *bridge)
{
        struct network_options no = { .data_dir = data, .pod_cidr = cidr, .bridge = bridge };
        struct pod_network *pn = NULL;
        cleanup_error struct error *err = NULL;
        double *host = xcalloc(runs, sizeof(double)), *own = xcalloc(runs, sizeof(double));
        double *add = xcalloc(runs, sizeof(double)), *del = xcalloc(runs, sizeof(double));

        if (fs_mkdir_p(data, 0700) < 0 || pod_network_open(&no, &pn, &err) < 0)
                die("pod network: %s", err ? err->message : "create the data dir");
        for (size_t i = 0; i < runs; i++) {
                cleanup_free char *uid = xasprintf("cni-bench-%zu", i);
                cleanup_free char *pod_dir = xasprintf("%s/pods/%s", data, uid);
                cleanup_free char *sandbox = xasprintf("%s/sandbox", pod_dir);
                cleanup_free char *ip = NULL;
                cleanup_json json_t *pod = json_pack("{s:{s:s, s:s, s:s}}", "metadata", "name", uid,
                                                     "namespace", "default", "uid", uid);
                struct runtime_sandbox_spec ss = { .state_dir = sandbox, .hostname = uid };
                pid_t pid;
                int64_t t0;

                for (int pass = 0; pass < 2; pass++) {
                        ss.own_network = pass == 1;
                        t0 = now_ns();
                        if (runtime_sandbox_start(&ss, &pid, &err) < 0)
                                die("sandbox: %s", err->message);
                        (pass ? own : host)[i] = ms_between(t0, now_ns());
                        if (pass == 0 && runtime_sandbox_stop(sandbox, &err) < 0)
                                die("stop the sandbox: %s", err->message);
                }
                t0 = now_ns();
                if (pod_network_attach(pn, pod_dir, sandbox, pod, &ip, &err) < 0)
                        die("attach: %s", err->message);
                add[i] = ms_between(t0, now_ns());
                if (runtime_sandbox_stop(sandbox, &err) < 0)
                        die("stop the sandbox: %s", err->message);
                t0 = now_ns();
                if (pod_network_detach(pn, pod_dir, &err) < 0)
                        die("detach: %s", err->message);
                del[i] = ms_between(t0, now_ns());
                (void) fs_remove_tree(pod_dir);
        }
        bench_print_stats("cni.sandbox_hostnet_ms", host, runs, 0);
        bench_print_stats("cni.sandbox_netns_ms", own, runs, 0);
        bench_print_stats("cni.add_ms", add, runs, 0);
        bench_print_stats("cni.del_ms", del, runs, 0);
        free(host);
        free(own);
        free(add);
        free(del);
        pod_network_free(pn);
        return 0;
}

/* ------------------------------------------------------------------ the confinement's cost */

/* The pod shapes `confine` compares, in one run. K8S offers no unconfined container: the
 * closest is privileged (every capability, no seccomp, nothing masked, /sys writable), which
 * also copies the host's /dev nodes into the container; that copy is timed inside the container
 * process with the rest of the confinement steps (started.json confineNs), so the report can
 * name it. */
static const struct confine_variant {
        const char *name, *label, *pod_sc, *ctr_sc;
        bool host_network;
} confine_variants[] = {
        { "none", "hostNetwork, privileged (no confinement; host /dev copied)", "{}",
          "{\"privileged\":true}", true },
        { "default", "hostNetwork, default confinement", "{}", "{}", true },
        { "restricted",
          "hostNetwork, restricted (drop ALL, RuntimeDefault, read-only root, non-root, "
          "no_new_privs)",
          "{\"runAsNonRoot\":true,\"runAsUser\":1000,\"seccompProfile\":{\"type\":"
          "\"RuntimeDefault\"}}",
          "{\"allowPrivilegeEscalation\":false,\"readOnlyRootFilesystem\":true,"
          "\"capabilities\":{\"drop\":[\"ALL\"]}}",
          true },
        { "podnet", "pod network (CNI), default confinement", "{}", "{}", false },
};
#define N_CONFINE_VARIANTS (sizeof(confine_variants) / sizeof(confine_variants[0]))

/* started.json of a pod's container c, restart 0: the container process's setup and
 * confinement times, ms; false if the record has none */
static bool read_setup_times(const char *data, const char *uid, double *ret_setup,
                             double *ret_confine)
{
        cleanup_free char *path = xasprintf("%s/pods/%s/containers/c/0/started.json", data, uid);
        cleanup_json json_t *j = json_load_file(path, 0, NULL);
        json_t *setup = json_object_get(j, "setupNs"), *confine = json_object_get(j, "confineNs");

        if (!json_is_integer(setup) || !json_is_integer(confine))
                return false;
        *ret_setup = (double) json_integer_value(setup) / 1e6;
        *ret_confine = (double) json_integer_value(confine) / 1e6;
        return true;
}

/* rounds of one pod of each variant, created one at a time, the variants' order rotated each
 * round (ABCD, BCDA, ...) so that drift in the machine's load reaches all of them alike; each
 * timed from its POST to the watch event showing it Running. Pods are named PREFIX-i, i = round
 * * variants + variant, and left for `delete`. */
static int cmd_confine(const struct api *a, size_t rounds, double timeout_s)
{
        cleanup_api_client struct api_client *c =
                bench_client_new(a->server, a->ca, a->token, BENCH_IDLE_TIMEOUT_MS);
        cleanup_json json_t *list = list_pods(a, c);
        cleanup_free char *path = xasprintf("/api/v1/namespaces/%s/pods", a->ns);
        size_t n = rounds * N_CONFINE_VARIANTS, done = 0;
        int64_t *t_post = xcalloc(n, sizeof(*t_post)), deadline;
        char **uids = xcalloc(n, sizeof(*uids));
        struct watcher w;

        watcher_start(&w, a, n, json_path_string(list, "metadata.resourceVersion"));
        deadline = now_ns() + (int64_t) (timeout_s * 1e9);
        for (size_t r = 0; r < rounds; r++) {
                for (size_t k = 0; k < N_CONFINE_VARIANTS; k++) {
                        size_t v = (r + k) % N_CONFINE_VARIANTS, i = r * N_CONFINE_VARIANTS + v;
                        const struct confine_variant *cv = &confine_variants[v];
                        cleanup_free char *body = xasprintf(
                                "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":"
                                "\"%s-%zu\",\"labels\":{\"app\":\"node-bench\"}},\"spec\":{"
                                "\"hostNetwork\":%s,\"securityContext\":%s,"
                                "\"containers\":[{\"name\":\"c\",\"image\":\"busybox\","
                                "\"command\":[\"sleep\",\"3600\"],\"securityContext\":%s,"
                                "\"resources\":{\"requests\":{\"cpu\":\"10m\",\"memory\":"
                                "\"16Mi\"}},\"volumeMounts\":[{\"name\":\"data\",\"mountPath\":"
                                "\"/data\"}]}],\"volumes\":[{\"name\":\"data\",\"emptyDir\":{"
                                "\"medium\":\"Memory\",\"sizeLimit\":\"16Mi\"}}]}}",
                                a->prefix, i, cv->host_network ? "true" : "false", cv->pod_sc,
                                cv->ctr_sc);
                        cleanup_error struct error *err = NULL;
                        cleanup_json json_t *j = NULL;
                        long status = 0;

                        t_post[i] = now_ns();
                        if (api_client_request(c, "POST", path, NULL, body, strlen(body), &status,
                                               &j, &err) < 0)
                                die("%s", err->message);
                        if (status != 201)
                                die("create %s-%zu (%s): status %ld: %s", a->prefix, i, cv->name,
                                    status, json_path_string(j, "message") ?: "");
                        uids[i] = xstrdup(json_path_string(j, "metadata.uid") ?: "");
                        wait_or_die(&w, &w.running, ++done, deadline, "pods Running");
                }
        }
        for (size_t v = 0; v < N_CONFINE_VARIANTS; v++) {
                double *lat = xcalloc(rounds, sizeof(double)),
                       *setup = xcalloc(rounds, sizeof(double)),
                       *conf = xcalloc(rounds, sizeof(double));
                cleanup_free char *k1 =
                        xasprintf("confine.%s.latency_ms", confine_variants[v].name);
                cleanup_free char *k2 = xasprintf("confine.%s.setup_ms", confine_variants[v].name);
                cleanup_free char *k3 =
                        xasprintf("confine.%s.confine_ms", confine_variants[v].name);

                pthread_mutex_lock(&w.lock);
                for (size_t r = 0; r < rounds; r++) {
                        size_t i = r * N_CONFINE_VARIANTS + v;
                        lat[r] = ms_between(t_post[i], w.t_running[i]);
                }
                pthread_mutex_unlock(&w.lock);
                for (size_t r = 0; r < rounds; r++) {
                        size_t i = r * N_CONFINE_VARIANTS + v;
                        if (!read_setup_times(a->data, uids[i], &setup[r], &conf[r]))
                                die("%s-%zu: its started.json has no setupNs/confineNs (is the "
                                    "agent this build?)",
                                    a->prefix, i);
                }
                bench_print_stats(k1, lat, rounds, 0);
                bench_print_stats(k2, setup, rounds, 0);
                bench_print_stats(k3, conf, rounds, 0);
                free(lat);
                free(setup);
                free(conf);
        }
        (void) fflush(stdout);
        _exit(0); /* the watch thread blocks in its stream */
}

/* ------------------------------------------------------------------ the sealed binary's cost */

static double time_exec_fd(int fd)
{
        char *argv[] = { "node-bench", "noop", NULL };
        int64_t t0 = now_ns();
        pid_t pid = fork();
        int st;

        if (pid < 0)
                die("fork: %s", strerror(errno));
        if (pid == 0) {
                syscall(SYS_execveat, fd, "", argv, environ, AT_EMPTY_PATH);
                _exit(127);
        }
        if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
                die("exec of this binary failed");
        return (double) (now_ns() - t0) / 1e3;
}

/* What sealing costs (exeseal.c): making the sealed view (once per `flexlet serve`), and a
 * fork + exec of this binary from the sealed view against from its own path (what each helper
 * start pays), interleaved, N runs each. µs. */
static int cmd_exeseal(size_t runs)
{
        double *make = xcalloc(runs, sizeof(double)), *plain = xcalloc(runs, sizeof(double)),
               *sealed = xcalloc(runs, sizeof(double));
        cleanup_close int self = open("/proc/self/exe", O_PATH | O_CLOEXEC);
        cleanup_close int seal = -1;
        const char *how = NULL;

        if (self < 0)
                die("open /proc/self/exe: %s", strerror(errno));
        for (size_t i = 0; i < runs; i++) {
                cleanup_error struct error *err = NULL;
                int64_t t0 = now_ns();
                int fd;

                if (runtime_exe_seal_open(&fd, &how, &err) < 0)
                        die("%s", err->message);
                make[i] = (double) (now_ns() - t0) / 1e3;
                if (seal >= 0)
                        close(seal);
                seal = fd;
        }
        if (runtime_exe_sealed(seal) != 1)
                die("the sealed view (%s) does not read as sealed", how);
        for (size_t i = 0; i < runs; i++) {
                plain[i] = time_exec_fd(self);
                sealed[i] = time_exec_fd(seal);
        }
        (void) printf("exeseal.how %s\n", how);
        bench_print_stats("exeseal.make_us", make, runs, 0);
        bench_print_stats("exeseal.exec_plain_us", plain, runs, 0);
        bench_print_stats("exeseal.exec_sealed_us", sealed, runs, 0);
        free(make);
        free(plain);
        free(sealed);
        return 0;
}

static void usage(FILE *f)
{
        (void) fputs(
                "usage: node-bench kernel [--runs N]\n"
                "       node-bench runtime --data DIR --cgroup-root NAME [--pods N]\n"
                "       node-bench runtime-parallel --data DIR --cgroup-root NAME [--pods N]\n"
                "           [--runs THREADS]\n"
                "       node-bench cni --data DIR --pod-cidr CIDR --pod-bridge NAME [--runs N]\n"
                "       node-bench exeseal [--runs N]\n"
                "       node-bench start|delete|idle|confine --server URL --ca FILE --token-file FILE\n"
                "           --data DIR --cgroup-root NAME [--ns NS] [--prefix P] [--pods N]\n"
                "           [--mode burst|serial] [--cpu Q] [--memory Q] [--size-limit Q]\n"
                "           [--timeout S] [--pid PID] [--seconds S] [--key K]\n",
                f);
}

static size_t parse_size(const char *flag, const char *s)
{
        char *end;
        unsigned long v = strtoul(s, &end, 10);

        if (*end || !*s || v == 0 || v > 100000)
                die("%s: \"%s\" is not a count in 1..100000", flag, s);
        return v;
}

static double parse_seconds(const char *flag, const char *s)
{
        char *end;
        double v = strtod(s, &end);

        if (*end || !*s || !(v > 0) || v > 86400)
                die("%s: \"%s\" is not a number of seconds", flag, s);
        return v;
}

int main(int argc, char **argv)
{
        static const struct option opts[] = {
                { "runs", required_argument, NULL, 'r' },
                { "data", required_argument, NULL, 'd' },
                { "cgroup-root", required_argument, NULL, 'g' },
                { "pods", required_argument, NULL, 'n' },
                { "server", required_argument, NULL, 's' },
                { "ca", required_argument, NULL, 'c' },
                { "token-file", required_argument, NULL, 't' },
                { "ns", required_argument, NULL, 'N' },
                { "prefix", required_argument, NULL, 'p' },
                { "mode", required_argument, NULL, 'm' },
                { "cpu", required_argument, NULL, 'C' },
                { "memory", required_argument, NULL, 'M' },
                { "size-limit", required_argument, NULL, 'L' },
                { "timeout", required_argument, NULL, 'T' },
                { "pid", required_argument, NULL, 'P' },
                { "seconds", required_argument, NULL, 'S' },
                { "key", required_argument, NULL, 'k' },
                { "pod-cidr", required_argument, NULL, 'I' },
                { "pod-bridge", required_argument, NULL, 'B' },
                { "help", no_argument, NULL, 'h' },
                { 0 },
        };
        struct api a = { .ns = "default", .prefix = "nb" };
        struct start_opts so = { .mode = "burst",
                                 .cpu = "10m",
                                 .memory = "16Mi",
                                 .size_limit = "16Mi",
                                 .n = 100,
                                 .timeout_s = 300 };
        const char *cmd, *token_file = NULL, *key = NULL, *pod_cidr = NULL, *pod_bridge = NULL;
        size_t runs = 200;
        bool runs_set = false;
        double seconds = 30;
        pid_t pid = 0;
        int opt;

        /* the runtime's helper processes are this binary */
        if (argc > 1 && streq(argv[1], "supervise")) {
                struct error *err = NULL;
                int status = runtime_helper_main(argc - 1, argv + 1, &err);
                if (err)
                        (void) fprintf(stderr, "node-bench supervise: %s\n", err->message);
                error_free(err);
                return status;
        }
        /* what `exeseal` executes, from its own path and from the sealed view */
        if (argc > 1 && streq(argv[1], "noop"))
                return 0;
        if (argc < 2 || streq(argv[1], "--help") || streq(argv[1], "-h")) {
                usage(argc < 2 ? stderr : stdout);
                return argc < 2 ? 2 : 0;
        }
        cmd = argv[1];
        optind = 2;
        while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
                switch (opt) {
                case 'r':
                        runs = parse_size("--runs", optarg);
                        runs_set = true;
                        break;
                case 'd':
                        a.data = optarg;
                        break;
                case 'g':
                        a.cgroup_root = optarg;
                        break;
                case 'n':
                        so.n = parse_size("--pods", optarg);
                        break;
                case 's':
                        a.server = optarg;
                        break;
                case 'c':
                        a.ca = optarg;
                        break;
                case 't':
                        token_file = optarg;
                        break;
                case 'N':
                        a.ns = optarg;
                        break;
                case 'p':
                        a.prefix = optarg;
                        break;
                case 'm':
                        if (!streq(optarg, "burst") && !streq(optarg, "serial"))
                                die("--mode: burst or serial");
                        so.mode = optarg;
                        break;
                case 'C':
                        so.cpu = optarg;
                        break;
                case 'M':
                        so.memory = optarg;
                        break;
                case 'L':
                        so.size_limit = optarg;
                        break;
                case 'T':
                        so.timeout_s = parse_seconds("--timeout", optarg);
                        break;
                case 'P':
                        pid = (pid_t) parse_size("--pid", optarg);
                        break;
                case 'S':
                        seconds = parse_seconds("--seconds", optarg);
                        break;
                case 'k':
                        key = so.key = optarg;
                        break;
                case 'I':
                        pod_cidr = optarg;
                        break;
                case 'B':
                        pod_bridge = optarg;
                        break;
                case 'h':
                        usage(stdout);
                        return 0;
                default:
                        usage(stderr);
                        return 2;
                }
        }
        if (optind != argc)
                die("unexpected argument \"%s\"", argv[optind]);
        (void) setvbuf(stdout, NULL, _IOLBF, 0);
        if (streq(cmd, "kernel"))
                return cmd_kernel(runs);
        if (streq(cmd, "exeseal"))
                return cmd_exeseal(runs);
        if (streq(cmd, "cni")) {
                if (!a.data || !pod_cidr || !pod_bridge)
                        die("cni needs --data, --pod-cidr and --pod-bridge");
                return cmd_cni(a.data, runs, pod_cidr, pod_bridge);
        }
        if (!a.data || !a.cgroup_root)
                die("%s needs --data and --cgroup-root", cmd);
        if (streq(cmd, "runtime"))
                return cmd_runtime(a.data, a.cgroup_root, so.n);
        if (streq(cmd, "runtime-parallel"))
                return cmd_runtime_parallel(a.data, a.cgroup_root, so.n,
                                            runs_set ? (unsigned) runs : 8);
        if (!a.server || !a.ca || !token_file)
                die("%s needs --server, --ca and --token-file", cmd);
        a.token = bench_read_token(token_file);
        if (streq(cmd, "start"))
                return cmd_start(&a, &so);
        if (streq(cmd, "confine"))
                return cmd_confine(&a, runs, so.timeout_s);
        if (streq(cmd, "delete"))
                return cmd_delete(&a, so.n, so.timeout_s, key ?: "delete");
        if (streq(cmd, "idle")) {
                if (!pid)
                        die("idle needs --pid");
                return cmd_idle(&a, pid, seconds, key ?: "idle");
        }
        die("unknown command \"%s\"", cmd);
}
