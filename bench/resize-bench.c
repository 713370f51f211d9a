/* resize-bench.c: the measuring half of bench/run-resize-bench.sh (the script starts `flexlet
 * serve`, runs the phases and writes the report). Subcommands, each printing "key value" lines:
 *   floor    the kernel floor of a resize: the cgroup files of a pod and its container
 *            written directly (v1: memory.limit_in_bytes, cpu.cfs_quota_us, cpu.shares; v2:
 *            memory.max, lowered through memory.high as flexlet does, cpu.max, cpu.weight) on
 *            scratch cgroups holding a process, a tmpfs remounted with a new size=, and one
 *            durable checkpoint write, as the agent makes it (a slot of allocated.slots) and
 *            rename-style (as it made it before); N runs each, alternating up and down
 *   create   the bench's pods, all at once, waited for until Running (--probed: pods serving
 *            HTTP with a readiness httpGet and a liveness exec probe every second, waited
 *            for until ready: the load of probing many pods, beside which resizes are timed)
 *   serial   resizes one at a time, round-robin over the pods, alternating up and down, each
 *            timed from its PATCH to the watch event showing the new actual values and no
 *            PodResize* condition (--kind limits: cpu and memory limits; volume: the Memory
 *            emptyDir's sizeLimit); --events FILE keeps each resize's timestamps
 *   burst    every pod resized at once (one thread and connection per pod), timed until all
 *            are observed done
 *   delete   the pods deleted, waited for until gone
 *   probes   the uprobes run-resize-bench.sh places, "NAME FUNCTION" a line (one table, here,
 *            for the placing and the reading: a renamed function fails the placing by name)
 *   analyze  the serial series' timestamps (--events) beside a `perf script` of uprobes on the
 *            agent (--probes): where each resize's time goes, from the agent's watch to a pod
 *            worker's step to the status sender's PATCH (--burst: only the totals of the
 *            window); fails naming any probe the --kind of resize must go through that
 *            recorded no call
 * A program, not a library: it prints and exits. All timestamps are CLOCK_MONOTONIC, the clock
 * `perf record -k CLOCK_MONOTONIC` stamps its samples with. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "api/pod-resources.h"
#include "base/alloc.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/quantity.h"
#include "base/slot-file.h"
#include "client/client.h"
#include "bench-util.h"

#define CGROUP_FS    "/sys/fs/cgroup"
#define MAX_PODS     10000
#define DONE_TIMEOUT 120 /* seconds one resize (or a burst) may take before the bench gives up */

/* The pods' resources: requests stay, limits and the volume go between DOWN and UP. The volume
 * stays below the smaller memory limit, so the limits series never remounts it (KEP-1967: a
 * Memory emptyDir is min(sizeLimit, pod memory limit)). */
#define REQ_CPU       "10m"
#define REQ_MEMORY    "16Mi"
#define DOWN_CPU      "100m"
#define DOWN_MEMORY   "64Mi"
#define DOWN_VOLUME   "16Mi"
#define UP_CPU        "200m"
#define UP_MEMORY     "128Mi"
#define UP_VOLUME     "32Mi"
#define MIB           (1024 * 1024)
#define CFS_PERIOD_US 100000
/* The report's statistics: <key>.n/.min/.p50/.p90/.p99/.max/.mean. */
#define RESIZE_STATS (BENCH_STATS_MIN | BENCH_STATS_P90)

/* ------------------------------------------------------------------ statistics */

/* bench_print_stats under "<key>.<sub>". */
static void print_stats_k(const char *key, const char *sub, double *v, size_t n)
{
        cleanup_free char *k = xasprintf("%s.%s", key, sub);

        bench_print_stats(k, v, n, RESIZE_STATS);
}

/* ------------------------------------------------------------------ the floor */

static void write_or_die(const char *dir, const char *file, const char *value)
{
        cleanup_free char *path = xasprintf("%s/%s", dir, file);
        int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
        ssize_t n;

        if (fd < 0)
                die("open %s: %s", path, strerror(errno));
        n = write(fd, value, strlen(value));
        if (n < 0 || (size_t) n != strlen(value))
                die("write %s = %s: %s", path, value, n < 0 ? strerror(errno) : "short write");
        (void) close(fd);
}

static void write_int(const char *dir, const char *file, int64_t v)
{
        char buf[32];

        (void) snprintf(buf, sizeof(buf), "%lld", (long long) v);
        write_or_die(dir, file, buf);
}

struct floor_cg {
        char *mem, *cpu; /* the cgroup's directory in the memory and cpu hierarchies (v2: one) */
        bool v2;         /* the unified hierarchy: memory.max, cpu.max, cpu.weight */
};

/* A memory limit lowered as flexlet lowers it on v2 (cgroup_lower_memory_limit): memory.high
 * first, a look at memory.current, memory.max, memory.high back to max. */
static void lower_memory_v2(const char *dir, int64_t mem)
{
        cleanup_free char *cur = xasprintf("%s/memory.current", dir);
        char buf[64];
        int fd;

        write_int(dir, "memory.high", mem);
        fd = open(cur, O_RDONLY | O_CLOEXEC);
        if (fd < 0 || read(fd, buf, sizeof(buf)) <= 0)
                die("read %s: %s", cur, strerror(errno));
        (void) close(fd);
        write_int(dir, "memory.max", mem);
        write_or_die(dir, "memory.high", "max");
}

/* Writes the three files (v2: a lowered memory limit through memory.high when lower); adds each
 * one's time (us) to file_us[0..2]. */
static void floor_set(const struct floor_cg *cg, int64_t mem, int64_t quota, int64_t shares,
                      bool lower, double file_us[3])
{
        int64_t t0 = now_ns(), t1, t2, t3;
        char max[48];

        if (!cg->v2) {
                write_int(cg->mem, "memory.limit_in_bytes", mem);
                t1 = now_ns();
                write_int(cg->cpu, "cpu.cfs_quota_us", quota);
                t2 = now_ns();
                write_int(cg->cpu, "cpu.shares", shares);
        } else {
                if (lower)
                        lower_memory_v2(cg->mem, mem);
                else
                        write_int(cg->mem, "memory.max", mem);
                t1 = now_ns();
                (void) snprintf(max, sizeof(max), "%lld 100000", (long long) quota);
                write_or_die(cg->cpu, "cpu.max", max);
                t2 = now_ns();
                /* the OCI runtimes' conversion of 10 shares */
                write_int(cg->cpu, "cpu.weight", cpu_shares_to_weight_oci(shares));
        }
        t3 = now_ns();
        file_us[0] += (double) (t1 - t0) / 1e3;
        file_us[1] += (double) (t2 - t1) / 1e3;
        file_us[2] += (double) (t3 - t2) / 1e3;
}

static void mkdir_or_die(const char *path)
{
        if (mkdir(path, 0755) < 0 && errno != EEXIST)
                die("mkdir %s: %s", path, strerror(errno));
}

/* The kernel's share of a resize, done as directly as it can be: the cgroup files of a pod and
 * its container in the order the agent must keep (a limit grows on the pod first and shrinks on
 * the container first: v1 refuses a child quota above its parent's), a tmpfs remount, and the
 * one durable write the agent must make before acting (its allocation checkpoint: a slot of
 * allocated.slots overwritten and flushed, base/slot-file.h), and the rename-style durable write
 * (temporary file, fsync, rename, fsync of the folder) it made before, which issue 16's goal was
 * set against. */
static int cmd_floor(const char *root, const char *dir, size_t runs)
{
        struct floor_cg pod, ctr;
        bool v2 = access(CGROUP_FS "/cgroup.controllers", F_OK) == 0;
        cleanup_free char *mroot = v2 ? xasprintf("%s/%s", CGROUP_FS, root)
                                      : xasprintf("%s/memory/%s", CGROUP_FS, root);
        cleanup_free char *croot =
                v2 ? xasprintf("%s/%s", CGROUP_FS, root) : xasprintf("%s/cpu/%s", CGROUP_FS, root);
        cleanup_free char *vol = xasprintf("%s/vol", dir);
        cleanup_free char *ckdir = xasprintf("%s/checkpoint", dir);
        double *cg_us = xcalloc(runs, sizeof(double)), *mnt_us = xcalloc(runs, sizeof(double)),
               *ck_us = xcalloc(runs, sizeof(double)), *slot_us = xcalloc(runs, sizeof(double)),
               *up_us = xcalloc(runs, sizeof(double)), *down_us = xcalloc(runs, sizeof(double)),
               *file_us[3];
        size_t n_up = 0, n_down = 0;
        static const char checkpoint[] =
                "{\"ContainerResources\":{\"c\":{\"requests\":{\"cpu\":\"10m\",\"memory\":"
                "\"16Mi\"},\"limits\":{\"cpu\":\"200m\",\"memory\":\"128Mi\"}}},"
                "\"EmptyDirVolumeLimits\":{\"data\":\"16Mi\"}}";
        uint64_t slot_seq = 0;
        int ckfd, pipefd[2];
        char c;
        pid_t child;

        pod = (struct floor_cg){ xasprintf("%s/pod", mroot), xasprintf("%s/pod", croot), v2 };
        ctr = (struct floor_cg){ xasprintf("%s/pod/c", mroot), xasprintf("%s/pod/c", croot), v2 };
        mkdir_or_die(mroot);
        mkdir_or_die(croot);
        /* v2: controllers reach a child only through its parent's subtree_control (the
         * sysfs root's is the machine's: tests/vm/guest-init.sh enables them there) */
        if (v2)
                write_or_die(mroot, "cgroup.subtree_control", "+cpu +memory");
        mkdir_or_die(pod.mem);
        mkdir_or_die(pod.cpu);
        if (v2)
                write_or_die(pod.mem, "cgroup.subtree_control", "+cpu +memory");
        mkdir_or_die(ctr.mem);
        mkdir_or_die(ctr.cpu);
        double ignored[3] = { 0 };

        for (size_t f = 0; f < 3; f++)
                file_us[f] = xcalloc(runs, sizeof(double));
        floor_set(&pod, 64 * MIB, 10000, 10, false, ignored);
        floor_set(&ctr, 64 * MIB, 10000, 10, false, ignored);

        /* a process in the container's cgroups with some memory of its own, like the `sleep` */
        if (pipe2(pipefd, O_CLOEXEC) < 0)
                die("pipe: %s", strerror(errno));
        child = fork();
        if (child < 0)
                die("fork: %s", strerror(errno));
        if (child == 0) {
                char *mem;
                (void) close(pipefd[1]);
                if (read(pipefd[0], &c, 1) != 1)
                        _exit(1);
                mem = malloc(1 * MIB);
                if (mem)
                        memset(mem, 1, 1 * MIB);
                for (;;)
                        pause();
        }
        (void) close(pipefd[0]);
        write_int(ctr.mem, "cgroup.procs", child);
        if (!v2)
                write_int(ctr.cpu, "cgroup.procs", child);
        if (write(pipefd[1], "x", 1) != 1)
                die("pipe write: %s", strerror(errno));
        (void) close(pipefd[1]);
        usleep(50 * 1000);

        mkdir_or_die(dir);
        mkdir_or_die(vol);
        mkdir_or_die(ckdir);
        if (mount("tmpfs", vol, "tmpfs", MS_NOSUID | MS_NODEV, "size=16777216,mode=0777") < 0)
                die("mount tmpfs on %s: %s", vol, strerror(errno));
        ckfd = open(ckdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (ckfd < 0)
                die("open %s: %s", ckdir, strerror(errno));

        for (size_t i = 0; i < runs + 10; i++) {
                bool up = i % 2 == 0;
                int64_t mem = up ? 128 * MIB : 64 * MIB, quota = up ? 20000 : 10000;
                int64_t t0, t1;
                char data[64];
                int r;

                double fus[3] = { 0 };

                t0 = now_ns();
                if (up) {
                        floor_set(&pod, mem, quota, 10, false, fus);
                        floor_set(&ctr, mem, quota, 10, false, fus);
                } else {
                        floor_set(&ctr, mem, quota, 10, true, fus);
                        floor_set(&pod, mem, quota, 10, true, fus);
                }
                t1 = now_ns();
                if (i >= 10)
                        for (size_t f = 0; f < 3; f++)
                                file_us[f][i - 10] = fus[f];
                if (i >= 10) { /* the first ten warm the caches */
                        cg_us[i - 10] = (double) (t1 - t0) / 1e3;
                        if (up)
                                up_us[n_up++] = cg_us[i - 10];
                        else
                                down_us[n_down++] = cg_us[i - 10];
                }

                (void) snprintf(data, sizeof(data), "size=%d", up ? 32 * MIB : 16 * MIB);
                t0 = now_ns();
                if (mount("tmpfs", vol, "tmpfs", MS_REMOUNT | MS_NOSUID | MS_NODEV, data) < 0)
                        die("remount %s %s: %s", vol, data, strerror(errno));
                t1 = now_ns();
                if (i >= 10)
                        mnt_us[i - 10] = (double) (t1 - t0) / 1e3;

                t0 = now_ns();
                r = fs_write_file_atomic(ckfd, "allocated.json", checkpoint,
                                         sizeof(checkpoint) - 1);
                t1 = now_ns();
                if (r < 0)
                        die("checkpoint write: %s", strerror(-r));
                if (i >= 10)
                        ck_us[i - 10] = (double) (t1 - t0) / 1e3;

                t0 = now_ns();
                r = slot_file_write(ckfd, "allocated.slots", &slot_seq, checkpoint,
                                    sizeof(checkpoint) - 1, SLOT_FILE_DURABLE);
                t1 = now_ns();
                if (r < 0)
                        die("slot checkpoint write: %s", strerror(-r));
                if (i >= 10)
                        slot_us[i - 10] = (double) (t1 - t0) / 1e3;
        }
        bench_print_stats("floor.cgroup_us", cg_us, runs, RESIZE_STATS);
        bench_print_stats("floor.cgroup_up_us", up_us, n_up, RESIZE_STATS);
        bench_print_stats("floor.cgroup_down_us", down_us, n_down, RESIZE_STATS);
        bench_print_stats("floor.memory_limit_us", file_us[0], runs, RESIZE_STATS);
        bench_print_stats("floor.cfs_quota_us", file_us[1], runs, RESIZE_STATS);
        bench_print_stats("floor.cpu_shares_us", file_us[2], runs, RESIZE_STATS);
        bench_print_stats("floor.remount_us", mnt_us, runs, RESIZE_STATS);
        bench_print_stats("floor.checkpoint_us", ck_us, runs, RESIZE_STATS);
        bench_print_stats("floor.slot_checkpoint_us", slot_us, runs, RESIZE_STATS);

        (void) close(ckfd);
        if (umount2(vol, MNT_DETACH) < 0)
                die("umount %s: %s", vol, strerror(errno));
        (void) kill(child, SIGKILL);
        (void) waitpid(child, NULL, 0);
        usleep(50 * 1000);
        (void) rmdir(ctr.mem);
        if (!v2)
                (void) rmdir(ctr.cpu);
        (void) rmdir(pod.mem);
        if (!v2)
                (void) rmdir(pod.cpu);
        (void) rmdir(mroot);
        if (!v2)
                (void) rmdir(croot);
        free(pod.mem);
        free(pod.cpu);
        free(ctr.mem);
        free(ctr.cpu);
        free(cg_us);
        free(mnt_us);
        free(ck_us);
        free(up_us);
        free(down_us);
        for (size_t f = 0; f < 3; f++)
                free(file_us[f]);
        return 0;
}

/* ------------------------------------------------------------------ the API side */

struct api {
        const char *server, *ca, *ns, *prefix;
        char *token;
        size_t n;
        bool probed; /* the pods are create's --probed ones */
};

/* One request that must answer `want`. */
static void request_or_die(struct api_client *c, const char *method, const char *path,
                           const char *ctype, const char *body, long want)
{
        cleanup_error struct error *err = NULL;
        cleanup_json json_t *resp = NULL;
        long status = 0;

        if (api_client_request(c, method, path, ctype, body, body ? strlen(body) : 0, &status,
                               &resp, &err) < 0)
                die("%s %s: %s", method, path, err ? err->message : "failed");
        if (status != want)
                die("%s %s: status %ld: %s", method, path, status,
                    json_path_string(resp, "message") ?: "");
}

/* A quantity's value (bytes), or its millivalue when milli; -1 when missing or invalid. */
static int64_t qty(const json_t *v, bool milli)
{
        const char *s = json_string_value(v);
        struct quantity q;
        int64_t out;

        if (!s || quantity_parse(s, &q, NULL) < 0)
                return -1;
        if ((milli ? quantity_milli_value(&q, &out) : quantity_value(&q, &out)) < 0)
                return -1;
        return out;
}

enum kind { KIND_LIMITS, KIND_VOLUME };

struct target {
        int64_t cpu_milli, mem_bytes, vol_bytes;
};

static struct target target_of(bool up)
{
        struct quantity q;
        struct target t;

        (void) quantity_parse(up ? UP_CPU : DOWN_CPU, &q, NULL);
        (void) quantity_milli_value(&q, &t.cpu_milli);
        (void) quantity_parse(up ? UP_MEMORY : DOWN_MEMORY, &q, NULL);
        (void) quantity_value(&q, &t.mem_bytes);
        (void) quantity_parse(up ? UP_VOLUME : DOWN_VOLUME, &q, NULL);
        (void) quantity_value(&q, &t.vol_bytes);
        return t;
}

/* One resize in flight on one pod, and what the watch saw of it. */
struct track {
        bool active;
        enum kind kind;
        struct target t;
        int64_t t_sent, t_resp; /* PATCH sent, its answer read */
        int64_t t_spec;         /* first event with the new spec */
        int64_t t_inprog;       /* first event with PodResizeInProgress */
        int64_t t_actual;       /* first event whose status shows the new actual values */
        int64_t t_done;         /* ... and no PodResize* condition: the resize is over */
        unsigned events;        /* MODIFIED events of the pod while active */
};

struct watcher {
        const struct api *a;
        pthread_mutex_t lock;
        pthread_cond_t cond;
        char *rv;
        struct track *tr;
        bool *running, *deleted;
        size_t n_running, n_deleted, n_done;
        pthread_t thread;
};

static bool spec_matches(const json_t *pod, const struct track *t)
{
        const json_t *lim =
                json_path(json_array_get(json_path(pod, "spec.containers"), 0), "resources.limits");

        if (t->kind == KIND_VOLUME)
                return qty(json_path(json_array_get(json_path(pod, "spec.volumes"), 0),
                                     "emptyDir.sizeLimit"),
                           false) == t->t.vol_bytes;
        return qty(json_object_get(lim, "cpu"), true) == t->t.cpu_milli &&
               qty(json_object_get(lim, "memory"), false) == t->t.mem_bytes;
}

/* The status shows the new actual values: for limits, resources.limits read back from the
 * cgroups and allocatedResources equal to the (unchanged) requests; for the volume, the tmpfs's
 * live size in volumeMounts[].volumeStatus. */
static bool status_matches(const json_t *pod, const struct track *t)
{
        const json_t *cs = json_array_get(json_path(pod, "status.containerStatuses"), 0);
        const json_t *lim = json_path(cs, "resources.limits");
        const json_t *alloc = json_object_get(cs, "allocatedResources");
        const json_t *req = json_path(json_array_get(json_path(pod, "spec.containers"), 0),
                                      "resources.requests");

        if (t->kind == KIND_VOLUME)
                return qty(json_path(json_array_get(json_object_get(cs, "volumeMounts"), 0),
                                     "volumeStatus.emptyDir.sizeLimit"),
                           false) == t->t.vol_bytes;
        return qty(json_object_get(lim, "cpu"), true) == t->t.cpu_milli &&
               qty(json_object_get(lim, "memory"), false) == t->t.mem_bytes &&
               qty(json_object_get(alloc, "cpu"), true) == qty(json_object_get(req, "cpu"), true) &&
               qty(json_object_get(alloc, "memory"), false) ==
                       qty(json_object_get(req, "memory"), false);
}

/* K8S (KEP-1287): a resize is pending or in progress while either condition is there (the
 * deprecated status.resize says the same to older clients). */
static bool resize_unfinished(const json_t *pod)
{
        return bench_has_condition(pod, "PodResizePending") ||
               bench_has_condition(pod, "PodResizeInProgress") || json_path(pod, "status.resize");
}

/* A pod create waits for: running, and for probed pods ready (their readiness probe passed). */
static bool pod_up(const struct api *a, const json_t *pod)
{
        const json_t *cs = json_array_get(json_path(pod, "status.containerStatuses"), 0);

        return bench_pod_running(pod) && (!a->probed || json_is_true(json_object_get(cs, "ready")));
}

static int on_event(void *ud, const char *type, json_t *pod)
{
        struct watcher *w = ud;
        int64_t t = now_ns();
        long i = bench_name_index(w->a->prefix, json_path_string(pod, "metadata.name"), w->a->n);
        const char *rv = json_path_string(pod, "metadata.resourceVersion");
        struct track *tr;

        pthread_mutex_lock(&w->lock);
        if (rv)
                bench_set_str(&w->rv, rv);
        if (i < 0) {
                pthread_mutex_unlock(&w->lock);
                return 0;
        }
        if (streq(type, "DELETED")) {
                if (!w->deleted[i]) {
                        w->deleted[i] = true;
                        w->n_deleted++;
                        pthread_cond_broadcast(&w->cond);
                }
                pthread_mutex_unlock(&w->lock);
                return 0;
        }
        if (!w->running[i] && pod_up(w->a, pod)) {
                w->running[i] = true;
                w->n_running++;
                pthread_cond_broadcast(&w->cond);
        }
        tr = &w->tr[i];
        if (tr->active) {
                tr->events++;
                if (!tr->t_spec && spec_matches(pod, tr))
                        tr->t_spec = t;
                if (tr->t_spec && !tr->t_inprog && bench_has_condition(pod, "PodResizeInProgress"))
                        tr->t_inprog = t;
                if (tr->t_spec && status_matches(pod, tr)) {
                        if (!tr->t_actual)
                                tr->t_actual = t;
                        if (!resize_unfinished(pod)) {
                                tr->t_done = t;
                                tr->active = false;
                                w->n_done++;
                                pthread_cond_broadcast(&w->cond);
                        }
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

/* Lists the namespace's pods and starts watching from there. */
static void watcher_start(struct watcher *w, const struct api *a)
{
        cleanup_api_client struct api_client *c =
                bench_client_new(a->server, a->ca, a->token, BENCH_IDLE_TIMEOUT_MS);
        cleanup_free char *path = xasprintf("/api/v1/namespaces/%s/pods", a->ns);
        cleanup_error struct error *err = NULL;
        cleanup_json json_t *list = NULL;
        long status = 0;
        size_t i;
        json_t *pod;

        if (api_client_request(c, "GET", path, NULL, NULL, 0, &status, &list, &err) < 0)
                die("%s", err->message);
        if (status != 200)
                die("list pods: status %ld", status);
        *w = (struct watcher){
                .a = a, .rv = xstrdup(json_path_string(list, "metadata.resourceVersion") ?: "0")
        };
        pthread_mutex_init(&w->lock, NULL);
        pthread_cond_init(&w->cond, NULL);
        w->tr = xcalloc(a->n, sizeof(*w->tr));
        w->running = xcalloc(a->n, sizeof(bool));
        w->deleted = xcalloc(a->n, sizeof(bool));
        json_array_foreach(json_object_get(list, "items"), i, pod) {
                long k = bench_name_index(a->prefix, json_path_string(pod, "metadata.name"), a->n);
                if (k >= 0 && pod_up(a, pod) && !w->running[k]) {
                        w->running[k] = true;
                        w->n_running++;
                }
        }
        if (pthread_create(&w->thread, NULL, watch_main, w) != 0)
                die("pthread_create");
}

/* Waits until *count reaches want; false at the deadline (monotonic ns). */
static bool watcher_wait(struct watcher *w, const size_t *count, size_t want, int64_t deadline)
{
        bool ok;

        pthread_mutex_lock(&w->lock);
        while (*count < want && now_ns() < deadline) {
                bench_cond_wait_ms(&w->cond, &w->lock, 5);
        }
        ok = *count >= want;
        pthread_mutex_unlock(&w->lock);
        return ok;
}

/* The probed pods: busybox's httpd serving a page, its readiness probed by httpGet and its
 * liveness by a command run in the container, each every second (the kubelet's default period
 * is 10 s), with the resize pods' resources but no volume. */
static char *probed_pod_body(const struct api *a, size_t i)
{
        return xasprintf(
                "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s-%zu\","
                "\"labels\":{\"app\":\"resize-bench-probed\"}},\"spec\":{"
                "\"terminationGracePeriodSeconds\":1,"
                "\"containers\":[{\"name\":\"c\",\"image\":\"busybox\","
                "\"command\":[\"sh\",\"-c\",\"mkdir -p /www && echo ok > /www/index.html && "
                "exec httpd -f -p 8080 -h /www\"],\"resources\":{"
                "\"requests\":{\"cpu\":\"" REQ_CPU "\",\"memory\":\"" REQ_MEMORY "\"},"
                "\"limits\":{\"cpu\":\"" DOWN_CPU "\",\"memory\":\"" DOWN_MEMORY "\"}},"
                "\"readinessProbe\":{\"httpGet\":{\"path\":\"/\",\"port\":8080},"
                "\"periodSeconds\":1},"
                "\"livenessProbe\":{\"exec\":{\"command\":[\"cat\",\"/www/index.html\"]},"
                "\"periodSeconds\":1}}]}}",
                a->prefix, i);
}

static char *pod_body(const struct api *a, size_t i)
{
        if (a->probed)
                return probed_pod_body(a, i);
        return xasprintf(
                "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s-%zu\","
                "\"labels\":{\"app\":\"resize-bench\"}},\"spec\":{"
                "\"terminationGracePeriodSeconds\":1,"
                "\"containers\":[{\"name\":\"c\",\"image\":\"busybox\","
                "\"command\":[\"sleep\",\"3600\"],\"resources\":{"
                "\"requests\":{\"cpu\":\"" REQ_CPU "\",\"memory\":\"" REQ_MEMORY "\"},"
                "\"limits\":{\"cpu\":\"" DOWN_CPU "\",\"memory\":\"" DOWN_MEMORY "\"}},"
                "\"volumeMounts\":[{\"name\":\"data\",\"mountPath\":\"/data\"}]}],"
                "\"volumes\":[{\"name\":\"data\",\"emptyDir\":{\"medium\":\"Memory\","
                "\"sizeLimit\":\"" DOWN_VOLUME "\"}}]}}",
                a->prefix, i);
}

static int cmd_create(const struct api *a, double timeout_s)
{
        cleanup_api_client struct api_client *c =
                bench_client_new(a->server, a->ca, a->token, BENCH_IDLE_TIMEOUT_MS);
        cleanup_free char *path = xasprintf("/api/v1/namespaces/%s/pods", a->ns);
        struct watcher w;
        int64_t t0;

        watcher_start(&w, a);
        t0 = now_ns();
        for (size_t i = 0; i < a->n; i++) {
                cleanup_free char *body = pod_body(a, i);
                request_or_die(c, "POST", path, NULL, body, 201);
        }
        if (!watcher_wait(&w, &w.n_running, a->n, t0 + (int64_t) (timeout_s * 1e9)))
                die("pods %s: %zu of %zu after %.0f s", a->probed ? "ready" : "Running",
                    w.n_running, a->n, timeout_s);
        (void) printf("create.total_ms %.3f\n", ms_between(t0, now_ns()));
        (void) fflush(stdout);
        _exit(0); /* the watch thread blocks in its stream */
}

static int cmd_delete(const struct api *a, double timeout_s)
{
        cleanup_api_client struct api_client *c =
                bench_client_new(a->server, a->ca, a->token, BENCH_IDLE_TIMEOUT_MS);
        struct watcher w;
        int64_t t0;

        watcher_start(&w, a);
        t0 = now_ns();
        for (size_t i = 0; i < a->n; i++) {
                cleanup_free char *path =
                        xasprintf("/api/v1/namespaces/%s/pods/%s-%zu", a->ns, a->prefix, i);
                request_or_die(c, "DELETE", path, NULL, NULL, 200);
        }
        if (!watcher_wait(&w, &w.n_deleted, a->n, t0 + (int64_t) (timeout_s * 1e9)))
                die("pods gone: %zu of %zu after %.0f s", w.n_deleted, a->n, timeout_s);
        (void) printf("delete.total_ms %.3f\n", ms_between(t0, now_ns()));
        (void) fflush(stdout);
        _exit(0);
}

/* The resize subresource's strategic merge patch (what `kubectl patch --subresource resize`
 * sends) to the target values. */
static char *resize_body(enum kind kind, bool up)
{
        if (kind == KIND_VOLUME)
                return xasprintf("{\"spec\":{\"volumes\":[{\"name\":\"data\",\"emptyDir\":{"
                                 "\"sizeLimit\":\"%s\"}}]}}",
                                 up ? UP_VOLUME : DOWN_VOLUME);
        return xasprintf("{\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"limits\":{"
                         "\"cpu\":\"%s\",\"memory\":\"%s\"}}}]}}",
                         up ? UP_CPU : DOWN_CPU, up ? UP_MEMORY : DOWN_MEMORY);
}

/* Arms the pod's track and sends its PATCH. */
static void send_resize(struct watcher *w, struct api_client *c, size_t i, enum kind kind, bool up)
{
        const struct api *a = w->a;
        cleanup_free char *body = resize_body(kind, up);
        cleanup_free char *path =
                xasprintf("/api/v1/namespaces/%s/pods/%s-%zu/resize", a->ns, a->prefix, i);
        int64_t t;

        pthread_mutex_lock(&w->lock);
        w->tr[i] = (struct track){
                .active = true, .kind = kind, .t = target_of(up), .t_sent = now_ns()
        };
        pthread_mutex_unlock(&w->lock);
        request_or_die(c, "PATCH", path, "application/strategic-merge-patch+json", body, 200);
        t = now_ns();
        pthread_mutex_lock(&w->lock);
        w->tr[i].t_resp = t;
        pthread_mutex_unlock(&w->lock);
}

/* Per-resize breakdown, in ms from the PATCH: answer, spec event, actual values, done. */
struct breakdown {
        double *lat, *resp, *spec, *inprog, *actual, *tail, *events;
        size_t n;
};

static void breakdown_init(struct breakdown *b, size_t cap)
{
        b->lat = xcalloc(cap, sizeof(double));
        b->resp = xcalloc(cap, sizeof(double));
        b->spec = xcalloc(cap, sizeof(double));
        b->inprog = xcalloc(cap, sizeof(double));
        b->actual = xcalloc(cap, sizeof(double));
        b->tail = xcalloc(cap, sizeof(double));
        b->events = xcalloc(cap, sizeof(double));
        b->n = 0;
}

static void breakdown_add(struct breakdown *b, const struct track *t)
{
        size_t k = b->n++;

        b->lat[k] = ms_between(t->t_sent, t->t_done);
        b->resp[k] = ms_between(t->t_sent, t->t_resp);
        b->spec[k] = ms_between(t->t_sent, t->t_spec);
        b->inprog[k] = t->t_inprog ? ms_between(t->t_sent, t->t_inprog) : b->lat[k];
        b->actual[k] = ms_between(t->t_sent, t->t_actual);
        b->tail[k] = ms_between(t->t_actual, t->t_done);
        b->events[k] = t->events;
}

static void breakdown_print(const char *key, struct breakdown *b)
{
        print_stats_k(key, "latency_ms", b->lat, b->n);
        print_stats_k(key, "patch_ms", b->resp, b->n);
        print_stats_k(key, "spec_seen_ms", b->spec, b->n);
        print_stats_k(key, "inprogress_seen_ms", b->inprog, b->n);
        print_stats_k(key, "actual_seen_ms", b->actual, b->n);
        print_stats_k(key, "actual_to_done_ms", b->tail, b->n);
        print_stats_k(key, "events", b->events, b->n);
}

static int cmd_serial(const struct api *a, enum kind kind, size_t count, size_t first,
                      const char *key, const char *events_file)
{
        cleanup_api_client struct api_client *c =
                bench_client_new(a->server, a->ca, a->token, BENCH_IDLE_TIMEOUT_MS);
        struct breakdown b, up, down;
        struct watcher w;
        FILE *ev = NULL;
        int64_t t_all;

        if (events_file) {
                ev = fopen(events_file, "we");
                if (!ev)
                        die("%s: %s", events_file, strerror(errno));
                (void) fprintf(ev, "# k pod up t_sent t_resp t_spec t_inprog t_actual t_done\n");
        }
        watcher_start(&w, a);
        breakdown_init(&b, count);
        breakdown_init(&up, count);
        breakdown_init(&down, count);
        t_all = now_ns();
        for (size_t k = first; k < first + count; k++) {
                size_t i = k % a->n;
                bool is_up = (k / a->n) % 2 == 0;
                struct track t;

                send_resize(&w, c, i, kind, is_up);
                if (!watcher_wait(&w, &w.n_done, k - first + 1,
                                  now_ns() + (int64_t) DONE_TIMEOUT * 1000000000))
                        die("resize %zu of %s-%zu not done after %d s", k, a->prefix, i,
                            DONE_TIMEOUT);
                pthread_mutex_lock(&w.lock);
                t = w.tr[i];
                pthread_mutex_unlock(&w.lock);
                breakdown_add(&b, &t);
                breakdown_add(is_up ? &up : &down, &t);
                if (ev)
                        (void) fprintf(ev, "%zu %zu %d %lld %lld %lld %lld %lld %lld\n", k, i,
                                       is_up, (long long) t.t_sent, (long long) t.t_resp,
                                       (long long) t.t_spec, (long long) t.t_inprog,
                                       (long long) t.t_actual, (long long) t.t_done);
        }
        (void) printf("%s.total_ms %.3f\n", key, ms_between(t_all, now_ns()));
        breakdown_print(key, &b);
        {
                cleanup_free char *ku = xasprintf("%s.up", key);
                cleanup_free char *kd = xasprintf("%s.down", key);
                print_stats_k(ku, "latency_ms", up.lat, up.n);
                print_stats_k(kd, "latency_ms", down.lat, down.n);
        }
        if (ev && fclose(ev) != 0)
                die("%s: %s", events_file, strerror(errno));
        (void) fflush(stdout);
        _exit(0);
}

struct burst_worker {
        struct watcher *w;
        struct api_client *c;
        size_t i;
        enum kind kind;
        bool up;
        pthread_barrier_t *go;
        pthread_t thread;
};

static void *burst_main(void *arg)
{
        struct burst_worker *bw = arg;

        (void) pthread_barrier_wait(bw->go);
        send_resize(bw->w, bw->c, bw->i, bw->kind, bw->up);
        return NULL;
}

/* Every pod resized at once: one thread and one warm connection per pod, released together. */
static int cmd_burst(const struct api *a, enum kind kind, bool is_up, const char *key,
                     const char *events_file)
{
        FILE *ev = NULL;
        struct burst_worker *bw = xcalloc(a->n, sizeof(*bw));
        pthread_barrier_t go;
        struct breakdown b;
        struct watcher w;
        int64_t t0, t_last_sent = 0, t_last_resp = 0, t_end = 0;

        watcher_start(&w, a);
        breakdown_init(&b, a->n);
        if (pthread_barrier_init(&go, NULL, (unsigned) a->n + 1) != 0)
                die("pthread_barrier_init");
        for (size_t i = 0; i < a->n; i++) {
                cleanup_free char *path =
                        xasprintf("/api/v1/namespaces/%s/pods/%s-%zu", a->ns, a->prefix, i);
                bw[i] = (struct burst_worker){ .w = &w,
                                               .c = bench_client_new(a->server, a->ca, a->token,
                                                                     BENCH_IDLE_TIMEOUT_MS),
                                               .i = i,
                                               .kind = kind,
                                               .up = is_up,
                                               .go = &go };
                /* the TLS handshake is not part of what is measured */
                request_or_die(bw[i].c, "GET", path, NULL, NULL, 200);
                if (pthread_create(&bw[i].thread, NULL, burst_main, &bw[i]) != 0)
                        die("pthread_create");
        }
        t0 = now_ns();
        (void) pthread_barrier_wait(&go);
        if (!watcher_wait(&w, &w.n_done, a->n, t0 + (int64_t) DONE_TIMEOUT * 1000000000))
                die("burst: %zu of %zu resizes done after %d s", w.n_done, a->n, DONE_TIMEOUT);
        for (size_t i = 0; i < a->n; i++) {
                (void) pthread_join(bw[i].thread, NULL);
                api_client_free(bw[i].c);
        }
        if (events_file && !(ev = fopen(events_file, "we")))
                die("%s: %s", events_file, strerror(errno));
        pthread_mutex_lock(&w.lock);
        for (size_t i = 0; i < a->n; i++) {
                const struct track *t = &w.tr[i];
                breakdown_add(&b, t);
                if (ev)
                        (void) fprintf(ev, "%zu %zu %d %lld %lld %lld %lld %lld %lld\n", i, i,
                                       is_up, (long long) t->t_sent, (long long) t->t_resp,
                                       (long long) t->t_spec, (long long) t->t_inprog,
                                       (long long) t->t_actual, (long long) t->t_done);
                if (t->t_sent > t_last_sent)
                        t_last_sent = t->t_sent;
                if (t->t_resp > t_last_resp)
                        t_last_resp = t->t_resp;
                if (t->t_done > t_end)
                        t_end = t->t_done;
        }
        pthread_mutex_unlock(&w.lock);
        if (ev && fclose(ev) != 0)
                die("%s: %s", events_file, strerror(errno));
        (void) printf("%s.total_ms %.3f\n", key, ms_between(t0, t_end));
        (void) printf("%s.last_sent_ms %.3f\n", key, ms_between(t0, t_last_sent));
        (void) printf("%s.last_answer_ms %.3f\n", key, ms_between(t0, t_last_resp));
        breakdown_print(key, &b);
        (void) fflush(stdout);
        _exit(0);
}

/* ------------------------------------------------------------------ analysis */

/* The probes run-resize-bench.sh places on `flexlet serve`, named NAME_TAG at a function's
 * entry and NAME_TAGr at its return (uprobe event names are global: the tag keeps them apart
 * from another run's), as `perf script -F tid,time,event --ns` prints them:
 * "TID SECONDS.NANOSECONDS: GROUP:EVENT:". A resize crosses threads (src/node/agent.c): the
 * watch thread marks the pod dirty, a pod worker steps it and hands its status to the status
 * sender, one of whose threads sends the PATCH; every call is kept with its thread. */
enum probe {
        P_EVENT,   /* on_pod_event: the agent's watch delivers a pod change (watch thread) */
        P_TAKE,    /* pod_queue_take: a worker waits for, then takes, a dirty pod */
        P_STEP,    /* pod_worker_sync: one pod's step (a worker) */
        P_ADMIT,   /* pod_resize_admit */
        P_ACTUATE, /* pod_resize_actuate */
        P_CKPT,    /* write_allocation: the allocation made durable (a flushed slot record) */
        P_CGSET,   /* cgroup_set_limits */
        P_REMOUNT, /* emptydir_resize */
        P_RECORD,  /* write_actuated: the actuated state's slot record, not flushed */
        P_HANDOFF, /* status_sender_status: the worker hands the pod's status to the sender */
        P_SEND,    /* send_status: a sender thread's status PATCH, request and answer */
        P_PASS,    /* sync_all: the periodic resync, which marks every pod dirty */
        P_MAX,
};

static const char *const probe_names[P_MAX] = {
        "event", "take",    "step",   "admit",   "actuate", "ckpt",
        "cgset", "remount", "record", "handoff", "send",    "pass",
};
/* The functions of flexlet serve they are placed on (agent.c keeps sync_all, status-sender.c
 * send_status and pod-resize.c write_allocation and write_actuated out of line for this). A
 * uprobe fires on calls through the symbol only: a function inlined into its caller in its own
 * file would record nothing; the others are called across files. */
static const char *const probe_funcs[P_MAX] = {
        "on_pod_event",       "pod_queue_take",       "pod_worker_sync",   "pod_resize_admit",
        "pod_resize_actuate", "write_allocation",     "cgroup_set_limits", "emptydir_resize",
        "write_actuated",     "status_sender_status", "send_status",       "sync_all",
};

static int cmd_probes(void)
{
        for (int p = 0; p < P_MAX; p++)
                (void) printf("%s %s\n", probe_names[p], probe_funcs[p]);
        return 0;
}

struct call {
        long tid;
        int64_t t0, t1;
};

struct calls {
        struct call *v;
        size_t n, cap;
};

/* The calls of each thread not yet returned: entry times by probe, 0 if none. */
struct open_calls {
        long tid;
        int64_t t0[P_MAX];
};

/* Reads the perf script into out[probe]: every thread's calls, in the order they returned. */
static void read_probes(const char *file, struct calls *out)
{
        FILE *f = fopen(file, "re");
        struct open_calls *open = NULL;
        size_t n_open = 0;
        char line[512];

        if (!f)
                die("%s: %s", file, strerror(errno));
        while (fgets(line, sizeof(line), f)) {
                long tid;
                char ev[128], *name, *end;
                unsigned long long s_int, s_frac;
                struct open_calls *o = NULL;
                int64_t t;
                bool ret;
                int p;

                if (sscanf(line, " %ld %llu.%llu: %127s", &tid, &s_int, &s_frac, ev) != 4)
                        continue;
                t = (int64_t) s_int * 1000000000 + (int64_t) s_frac;
                name = strchr(ev, ':');
                if (!name)
                        continue;
                name++;
                end = strchr(name, ':');
                if (end)
                        *end = '\0';
                /* "NAME_TAG" at entry, "NAME_TAGr__return" at return (perf adds __return) */
                ret = strstr(name, "__return") != NULL;
                name[strcspn(name, "_")] = '\0';
                for (p = 0; p < P_MAX; p++)
                        if (streq(name, probe_names[p]))
                                break;
                if (p == P_MAX)
                        continue;
                for (size_t i = 0; i < n_open && !o; i++)
                        if (open[i].tid == tid)
                                o = &open[i];
                if (!o) {
                        open = xrealloc(open, (n_open + 1) * sizeof(*open));
                        o = &open[n_open++];
                        *o = (struct open_calls){ .tid = tid };
                }
                if (!ret) {
                        o->t0[p] = t;
                        continue;
                }
                if (!o->t0[p])
                        continue; /* entered before the recording started */
                if (out[p].n == out[p].cap) {
                        out[p].cap = out[p].cap ? out[p].cap * 2 : 1024;
                        out[p].v = xrealloc(out[p].v, out[p].cap * sizeof(struct call));
                }
                out[p].v[out[p].n++] = (struct call){ tid, o->t0[p], t };
                o->t0[p] = 0;
        }
        (void) fclose(f);
        free(open);
}

/* Time spent in calls of c that start within [t0, t1) (on thread tid; 0: any), in ms, and
 * their number. */
static double time_in(const struct calls *c, long tid, int64_t t0, int64_t t1, size_t *ret_n)
{
        double ms = 0;
        size_t n = 0;

        for (size_t i = 0; i < c->n; i++)
                if ((!tid || c->v[i].tid == tid) && c->v[i].t0 >= t0 && c->v[i].t0 < t1) {
                        ms += ms_between(c->v[i].t0, c->v[i].t1);
                        n++;
                }
        if (ret_n)
                *ret_n = n;
        return ms;
}

/* The call of c on thread tid that starts within [t0, t1) and lasts longest, or NULL. */
static const struct call *longest_in(const struct calls *c, long tid, int64_t t0, int64_t t1)
{
        const struct call *best = NULL;

        for (size_t i = 0; i < c->n; i++)
                if (c->v[i].tid == tid && c->v[i].t0 >= t0 && c->v[i].t0 < t1 &&
                    (!best || c->v[i].t1 - c->v[i].t0 > best->t1 - best->t0))
                        best = &c->v[i];
        return best;
}

/* The call of c on thread tid that encloses time t, or NULL. */
static const struct call *enclosing(const struct calls *c, long tid, int64_t t)
{
        for (size_t i = 0; i < c->n; i++)
                if (c->v[i].tid == tid && c->v[i].t0 <= t && t <= c->v[i].t1)
                        return &c->v[i];
        return NULL;
}

/* The call of c (on thread tid; 0: any) that starts first at or after t and before until, or
 * NULL. */
static const struct call *first_from(const struct calls *c, long tid, int64_t t, int64_t until)
{
        const struct call *best = NULL;

        for (size_t i = 0; i < c->n; i++)
                if ((!tid || c->v[i].tid == tid) && c->v[i].t0 >= t && c->v[i].t0 < until &&
                    (!best || c->v[i].t0 < best->t0))
                        best = &c->v[i];
        return best;
}

/* The call of c (any thread) that starts last within [t0, t1), or NULL. */
static const struct call *last_from(const struct calls *c, int64_t t0, int64_t t1)
{
        const struct call *best = NULL;

        for (size_t i = 0; i < c->n; i++)
                if (c->v[i].t0 >= t0 && c->v[i].t0 < t1 && (!best || c->v[i].t0 > best->t0))
                        best = &c->v[i];
        return best;
}

/* The call of c on thread tid that returned last at or before t, or NULL. */
static const struct call *last_before(const struct calls *c, long tid, int64_t t)
{
        const struct call *best = NULL;

        for (size_t i = 0; i < c->n; i++)
                if (c->v[i].tid == tid && c->v[i].t1 <= t && (!best || c->v[i].t1 > best->t1))
                        best = &c->v[i];
        return best;
}

static double dur(const struct call *c)
{
        return c ? ms_between(c->t0, c->t1) : 0;
}

/* Named columns of per-resize values, printed as statistics. */
enum col {
        C_LAT,      /* PATCH sent -> done seen */
        C_SPEC,     /* PATCH sent -> new spec seen by the bench's watch */
        C_AGENT,    /* PATCH sent -> the agent's watch delivers the new spec */
        C_TO_STEP,  /* -> the pod's step starts (queue, a worker wakes, the step's prelude) */
        C_POD_STEP, /* the pod's step */
        C_TO_SEND,  /* step end -> its status PATCH starts (handed to the sender, one takes it) */
        C_SEND,     /* the status PATCH, sent to answered */
        C_SEEN,     /* status PATCH answered -> done seen by the bench (negative: seen first) */
        C_WAKE,     /* the pod's take returned -> its step starts (sync_pod's prelude) */
        C_STEPS,    /* every pod step during the resize (the resync's of other pods too) */
        C_SENDS,    /* status PATCHes during the resize */
        C_ADMIT,    /* pod_resize_admit in the pod's step */
        C_ACTUATE,  /* pod_resize_actuate in the pod's step */
        C_CKPT,     /* time in durable checkpoint writes in the pod's step */
        C_NCKPT,    /* their number */
        C_RECORD,   /* time in actuated-state records (not fsynced) in the pod's step */
        C_NRECORD,  /* their number */
        C_CGSET,    /* time in cgroup_set_limits in the pod's step */
        C_REMOUNT,  /* time in emptydir_resize in the pod's step */
        C_RESYNC,   /* 1 when a resync pass (every pod marked) started during the resize */
        C_MAX,
};

static const char *const col_names[C_MAX] = {
        "latency_ms", "spec_seen_ms", "agent_seen_ms",   "to_step_ms",    "pod_step_ms",
        "to_send_ms", "send_ms",      "send_to_done_ms", "wake_ms",       "steps",
        "sends",      "admit_ms",     "actuate_ms",      "checkpoint_ms", "checkpoints",
        "record_ms",  "records",      "cgroup_set_ms",   "remount_ms",    "resync",
};

/* Over the whole window: each probe's calls and time, on all threads, and how many pod steps
 * and status PATCHes ran at once on average (their time over the span from the first one's
 * start to the last one's end). */
static void print_window(const char *key, const struct calls *c, int64_t first, int64_t last)
{
        (void) printf("%s.window_s %.3f\n", key, ms_between(first, last) / 1e3);
        for (int p = 0; p < P_MAX; p++) {
                size_t cnt = 0;
                double ms = time_in(&c[p], 0, first, last, &cnt);
                (void) printf("%s.window.%s_ms %.3f\n%s.window.%s_n %zu\n", key, probe_names[p], ms,
                              key, probe_names[p], cnt);
        }
        for (int p = 0; p < P_MAX; p++) {
                int64_t a = INT64_MAX, b = 0;
                double ms = 0;

                if (p != P_STEP && p != P_SEND)
                        continue;
                for (size_t i = 0; i < c[p].n; i++) {
                        if (c[p].v[i].t0 < first || c[p].v[i].t0 >= last)
                                continue;
                        a = c[p].v[i].t0 < a ? c[p].v[i].t0 : a;
                        b = c[p].v[i].t1 > b ? c[p].v[i].t1 : b;
                        ms += dur(&c[p].v[i]);
                }
                (void) printf("%s.window.%s_span_ms %.3f\n%s.window.%s_parallel %.2f\n", key,
                              probe_names[p], b > a ? ms_between(a, b) : 0, key, probe_names[p],
                              b > a ? ms / ms_between(a, b) : 0);
        }
}

static int cmd_analyze(const char *events_file, const char *probes_file, const char *key,
                       enum kind kind, bool burst)
{
        struct calls c[P_MAX] = { 0 };
        FILE *f = fopen(events_file, "re");
        char line[512];
        size_t cap = 0, n = 0, ns = 0, nh = 0;
        double *col[C_MAX] = { 0 }, *step_each, *send_each;
        int64_t first = INT64_MAX, last = 0;

        if (!f)
                die("%s: %s", events_file, strerror(errno));
        read_probes(probes_file, c);
        /* Every probe on the way of this kind of resize must have recorded calls, else the
         * numbers below would be made of nothing: a limits resize writes no tmpfs, a volume
         * resize no cgroup; everything else runs for both. */
        for (int p = 0; p < P_MAX; p++) {
                if ((p == P_REMOUNT && kind == KIND_LIMITS) ||
                    (p == P_CGSET && kind == KIND_VOLUME))
                        continue;
                if (c[p].n == 0)
                        die("%s: uprobe \"%s\" on %s recorded no call (the agent no longer goes "
                            "through %s: update probe_funcs in bench/resize-bench.c)",
                            probes_file, probe_names[p], probe_funcs[p], probe_funcs[p]);
        }
        while (fgets(line, sizeof(line), f)) {
                long long ts[6];
                size_t k, pod, nck = 0, nrec = 0, nsteps = 0, nsends = 0;
                int up;
                const struct call *ck, *step, *ev, *take, *handoff, *send;
                long tid;

                if (line[0] == '#' ||
                    sscanf(line, "%zu %zu %d %lld %lld %lld %lld %lld %lld", &k, &pod, &up, &ts[0],
                           &ts[1], &ts[2], &ts[3], &ts[4], &ts[5]) != 9)
                        continue;
                if (ts[0] < first)
                        first = ts[0];
                if (ts[5] > last)
                        last = ts[5];
                if (burst)
                        continue;
                /* One resize in flight at a time: the first checkpoint written after its PATCH
                 * is its admission's allocated.json, in the pod's step on some worker; the
                 * last pod change the agent's watch delivered before that step is the new spec
                 * (an earlier one after the PATCH is the echo of the last resize's status);
                 * the worker hands the status over after the step, and the first status PATCH
                 * to start after that is its. */
                ck = first_from(&c[P_CKPT], 0, ts[0], ts[5]);
                if (!ck)
                        continue;
                tid = ck->tid;
                step = enclosing(&c[P_STEP], tid, ck->t0);
                if (!step)
                        continue;
                ev = last_from(&c[P_EVENT], ts[0], step->t0);
                take = last_before(&c[P_TAKE], tid, step->t0);
                handoff = first_from(&c[P_HANDOFF], tid, step->t1, ts[5]);
                send = handoff ? first_from(&c[P_SEND], 0, handoff->t0, ts[5]) : NULL;
                if (!ev || !take || !send)
                        continue;
                if (n == cap) {
                        cap = cap ? cap * 2 : 1024;
                        for (int j = 0; j < C_MAX; j++)
                                col[j] = xrealloc(col[j], cap * sizeof(double));
                }
                (void) time_in(&c[P_STEP], 0, ts[0], ts[5], &nsteps);
                (void) time_in(&c[P_SEND], 0, ts[0], ts[5], &nsends);
                col[C_LAT][n] = ms_between(ts[0], ts[5]);
                col[C_SPEC][n] = ms_between(ts[0], ts[2]);
                col[C_AGENT][n] = ms_between(ts[0], ev->t0);
                col[C_TO_STEP][n] = ms_between(ev->t0, step->t0);
                col[C_POD_STEP][n] = dur(step);
                col[C_TO_SEND][n] = ms_between(step->t1, send->t0);
                col[C_SEND][n] = dur(send);
                col[C_SEEN][n] = ms_between(send->t1, ts[5]);
                col[C_WAKE][n] = ms_between(take->t1, step->t0);
                col[C_STEPS][n] = (double) nsteps;
                col[C_SENDS][n] = (double) nsends;
                col[C_ADMIT][n] = dur(enclosing(&c[P_ADMIT], tid, ck->t0));
                col[C_ACTUATE][n] = dur(longest_in(&c[P_ACTUATE], tid, step->t0, step->t1));
                col[C_CKPT][n] = time_in(&c[P_CKPT], tid, step->t0, step->t1, &nck);
                col[C_NCKPT][n] = (double) nck;
                col[C_RECORD][n] = time_in(&c[P_RECORD], tid, step->t0, step->t1, &nrec);
                col[C_NRECORD][n] = (double) nrec;
                col[C_CGSET][n] = time_in(&c[P_CGSET], tid, step->t0, step->t1, NULL);
                col[C_REMOUNT][n] = time_in(&c[P_REMOUNT], tid, step->t0, step->t1, NULL);
                col[C_RESYNC][n] = first_from(&c[P_PASS], 0, ts[0], ts[5]) != NULL;
                n++;
        }
        (void) fclose(f);
        if (first > last)
                die("%s: no resize", events_file);
        if (!burst && n == 0)
                die("%s: no resize had its allocation's checkpoint (uprobe \"ckpt\" on %s) inside "
                    "a pod step, after the agent's watch delivered it, followed by a status PATCH",
                    events_file, probe_funcs[P_CKPT]);
        if (!burst) {
                double *with = xcalloc(n + 1, sizeof(double)),
                       *without = xcalloc(n + 1, sizeof(double));
                size_t n_with = 0, n_without = 0;

                (void) printf("%s.matched %zu\n", key, n);
                for (size_t i = 0; i < n; i++) {
                        if (col[C_RESYNC][i] > 0)
                                with[n_with++] = col[C_LAT][i];
                        else
                                without[n_without++] = col[C_LAT][i];
                }
                print_stats_k(key, "with_resync.latency_ms", with, n_with);
                print_stats_k(key, "without_resync.latency_ms", without, n_without);
                free(with);
                free(without);
                for (int j = 0; j < C_MAX; j++)
                        print_stats_k(key, col_names[j], col[j], n);
        }
        for (int j = 0; j < C_MAX; j++)
                free(col[j]);
        print_window(key, c, first, last);
        step_each = xcalloc(c[P_STEP].n + 1, sizeof(double));
        send_each = xcalloc(c[P_SEND].n + 1, sizeof(double));
        for (size_t i = 0; i < c[P_STEP].n; i++)
                if (c[P_STEP].v[i].t0 >= first && c[P_STEP].v[i].t0 <= last)
                        step_each[ns++] = dur(&c[P_STEP].v[i]);
        for (size_t i = 0; i < c[P_SEND].n; i++)
                if (c[P_SEND].v[i].t0 >= first && c[P_SEND].v[i].t0 <= last)
                        send_each[nh++] = dur(&c[P_SEND].v[i]);
        print_stats_k(key, "step_ms", step_each, ns);
        print_stats_k(key, "status_patch_ms", send_each, nh);
        free(step_each);
        free(send_each);
        for (int p = 0; p < P_MAX; p++)
                free(c[p].v);
        return 0;
}

/* ------------------------------------------------------------------ main */

static void usage(FILE *f)
{
        (void) fputs(
                "usage: resize-bench floor --cgroup-root NAME --dir DIR [--runs N]\n"
                "       resize-bench create|delete API [--timeout S] [--probed]\n"
                "       resize-bench serial API --kind limits|volume [--count N] [--first K]\n"
                "           [--key K] [--events FILE]\n"
                "       resize-bench burst API --kind limits|volume --up|--down [--key K]\n"
                "           [--events FILE]\n"
                "       resize-bench probes\n"
                "       resize-bench analyze --events FILE --probes FILE --kind limits|volume\n"
                "           [--key K] [--burst]\n"
                "API: --server URL --ca FILE --token-file FILE [--ns NS] [--prefix P] [--pods N]\n",
                f);
}

static size_t parse_count(const char *flag, const char *s, size_t min)
{
        char *end;
        unsigned long v = strtoul(s, &end, 10);

        if (*end || !*s || v < min || v > 1000000)
                die("%s: \"%s\" is not a count in %zu..1000000", flag, s, min);
        return v;
}

int main(int argc, char **argv)
{
        static const struct option opts[] = {
                { "runs", required_argument, NULL, 'r' },
                { "cgroup-root", required_argument, NULL, 'g' },
                { "dir", required_argument, NULL, 'd' },
                { "server", required_argument, NULL, 's' },
                { "ca", required_argument, NULL, 'c' },
                { "token-file", required_argument, NULL, 't' },
                { "ns", required_argument, NULL, 'N' },
                { "prefix", required_argument, NULL, 'p' },
                { "pods", required_argument, NULL, 'n' },
                { "kind", required_argument, NULL, 'K' },
                { "count", required_argument, NULL, 'C' },
                { "first", required_argument, NULL, 'F' },
                { "up", no_argument, NULL, 'U' },
                { "down", no_argument, NULL, 'D' },
                { "key", required_argument, NULL, 'k' },
                { "events", required_argument, NULL, 'e' },
                { "probes", required_argument, NULL, 'P' },
                { "timeout", required_argument, NULL, 'T' },
                { "burst", no_argument, NULL, 'B' },
                { "probed", no_argument, NULL, 'Q' },
                { "help", no_argument, NULL, 'h' },
                { 0 },
        };
        struct api a = { .ns = "default", .prefix = "rb", .n = 100 };
        const char *cmd, *token_file = NULL, *cgroup_root = NULL, *dir = NULL, *key = NULL,
                         *events = NULL, *probes = NULL;
        size_t runs = 1000, count = 1000, first = 0;
        enum kind kind = KIND_LIMITS;
        bool kind_set = false, up = true, burst = false;
        double timeout_s = 600;
        int opt;

        if (argc < 2 || streq(argv[1], "--help") || streq(argv[1], "-h")) {
                usage(argc < 2 ? stderr : stdout);
                return argc < 2 ? 2 : 0;
        }
        cmd = argv[1];
        optind = 2;
        while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
                switch (opt) {
                case 'r':
                        runs = parse_count("--runs", optarg, 1);
                        break;
                case 'g':
                        cgroup_root = optarg;
                        break;
                case 'd':
                        dir = optarg;
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
                case 'n':
                        a.n = parse_count("--pods", optarg, 1);
                        if (a.n > MAX_PODS)
                                die("--pods: at most %d", MAX_PODS);
                        break;
                case 'K':
                        if (!streq(optarg, "limits") && !streq(optarg, "volume"))
                                die("--kind: limits or volume");
                        kind = streq(optarg, "limits") ? KIND_LIMITS : KIND_VOLUME;
                        kind_set = true;
                        break;
                case 'C':
                        count = parse_count("--count", optarg, 1);
                        break;
                case 'F':
                        first = parse_count("--first", optarg, 0);
                        break;
                case 'U':
                        up = true;
                        break;
                case 'D':
                        up = false;
                        break;
                case 'k':
                        key = optarg;
                        break;
                case 'e':
                        events = optarg;
                        break;
                case 'P':
                        probes = optarg;
                        break;
                case 'T':
                        timeout_s = (double) parse_count("--timeout", optarg, 1);
                        break;
                case 'B':
                        burst = true;
                        break;
                case 'Q':
                        a.probed = true;
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
        if (streq(cmd, "floor")) {
                if (!cgroup_root || !dir)
                        die("floor needs --cgroup-root and --dir");
                return cmd_floor(cgroup_root, dir, runs);
        }
        if (streq(cmd, "probes"))
                return cmd_probes();
        if (streq(cmd, "analyze")) {
                if (!events || !probes || !kind_set)
                        die("analyze needs --events, --probes and --kind");
                return cmd_analyze(events, probes, key ?: "trace", kind, burst);
        }
        if (!a.server || !a.ca || !token_file)
                die("%s needs --server, --ca and --token-file", cmd);
        a.token = bench_read_token(token_file);
        if (streq(cmd, "create"))
                return cmd_create(&a, timeout_s);
        if (streq(cmd, "delete"))
                return cmd_delete(&a, timeout_s);
        if ((streq(cmd, "serial") || streq(cmd, "burst")) && !kind_set)
                die("%s needs --kind", cmd);
        if (streq(cmd, "serial"))
                return cmd_serial(&a, kind, count, first, key ?: "serial", events);
        if (streq(cmd, "burst"))
                return cmd_burst(&a, kind, up, key ?: "burst", events);
        die("unknown command \"%s\"", cmd);
}
