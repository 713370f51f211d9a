/* pod-stats.c: gathers what the kubelet's Summary API reports (node/stats-summary.h) from this
 * host: /proc for the node, the pod and container cgroups (node/cgroup cgroup_stats), statfs
 * and a du-like walk for volumes. It only reads (the disk and the cgroup files), never the
 * pod worker's memory, so the kubelet endpoint's threads may call it while pods are stepped.
 * How the numbers become JSON is stats-summary.c's business. */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/timeutil.h"
#include "node/cgroup/cgroup.h"
#include "node/pod-worker-internal.h"
#include "node/pod-worker.h"
#include "node/stats-summary.h"
#include "node/volume/emptydir.h"
#include "node/volume/loopvol.h"

/* /proc/stat and /proc/meminfo are a few KiB */
#define PROC_FILE_MAX (256 * 1024)

static int64_t monotonic_ns(void)
{
        struct timespec ts;

        (void) clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Strings and arrays the stats point to, freed together. */
struct arena {
        char **strings;
        size_t n;
};

static const char *arena_keep(struct arena *a, char *s)
{
        a->strings = xrealloc(a->strings, (a->n + 1) * sizeof(*a->strings));
        a->strings[a->n++] = s;
        return s;
}

static void arena_release(struct arena *a)
{
        for (size_t i = 0; i < a->n; i++)
                free(a->strings[i]);
        free(a->strings);
}

/* ------------------------------------------------------------------ file systems */

static void statvfs_fill(const struct statvfs *sv, struct stats_fs *ret)
{
        const struct statvfs st = *sv;

        *ret = (struct stats_fs){
                .valid = true,
                .capacity = (uint64_t) st.f_blocks * st.f_frsize,
                .available = (uint64_t) st.f_bavail * st.f_frsize,
                .used = (uint64_t) (st.f_blocks - st.f_bfree) * st.f_frsize,
                .inodes = st.f_files,
                .inodes_free = st.f_ffree,
                .inodes_used = st.f_files - st.f_ffree,
        };
}

static bool statfs_stats(const char *path, struct stats_fs *ret)
{
        struct statvfs st;

        if (statvfs(path, &st) < 0)
                return false;
        statvfs_fill(&st, ret);
        return true;
}

/* How deep du_at descends: deeper trees are counted down to here (each level holds an fd). */
#define DU_MAX_DEPTH 64

/* Adds what dir (an fd du_at owns and closes) holds to *bytes and *inodes: every entry's
 * st_blocks, on dev only, never following a symbolic link. The tree is the pod's to change
 * under us, so each step is an openat with O_NOFOLLOW on the parent's fd: a directory swapped
 * for a link is not entered (house rule: pod-controlled paths are never re-walked on the
 * host). */
static void du_at(int dir, dev_t dev, int depth, uint64_t *bytes, uint64_t *inodes)
{
        DIR *d = fdopendir(dir);
        struct dirent *e;

        if (!d) {
                (void) close(dir);
                return;
        }
        while ((e = readdir(d))) {
                struct stat st;
                int sub;

                if (streq(e->d_name, ".") || streq(e->d_name, ".."))
                        continue;
                if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || st.st_dev != dev)
                        continue;
                *bytes += (uint64_t) st.st_blocks * 512;
                (*inodes)++;
                if (!S_ISDIR(st.st_mode) || depth >= DU_MAX_DEPTH)
                        continue;
                sub = openat(dirfd(d), e->d_name,
                             O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
                if (sub >= 0)
                        du_at(sub, dev, depth + 1, bytes, inodes);
        }
        (void) closedir(d);
}

/* K8S pkg/volume/metrics_du.go: a disk emptyDir's usedBytes and inodesUsed are what `du -x`
 * and `find -xdev` count below it (the directory itself included); capacity and available are
 * its file system's. */
static bool du_stats(const char *path, struct stats_fs *ret)
{
        int dir = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        uint64_t bytes = 0, inodes = 1;
        struct statvfs sv;
        struct stat st;

        if (dir < 0)
                return false;
        if (fstat(dir, &st) < 0 || fstatvfs(dir, &sv) < 0) {
                (void) close(dir);
                return false;
        }
        statvfs_fill(&sv, ret);
        bytes = (uint64_t) st.st_blocks * 512;
        du_at(dir, st.st_dev, 0, &bytes, &inodes);
        ret->used = bytes;
        ret->inodes_used = inodes;
        return true;
}

/* One entry of spec.volumes that the kubelet reports (K8S: the volumes whose plugin has
 * metrics: emptyDir, persistentVolumeClaim, and the tmpfs-backed configMap, secret,
 * downwardAPI and projected ones, which flexlet leaves out as the top-level numbers do not
 * need them). */
static bool volume_stats(const struct pod_memory *pm, const json_t *v, struct stats_volume *ret)
{
        const char *name = json_string_value(json_object_get(v, "name"));
        const json_t *ed = json_object_get(v, "emptyDir");
        const char *claim = json_path_string(v, "persistentVolumeClaim.claimName");
        cleanup_free char *path = NULL;
        struct loopvol_stats ls;

        if (!name || (!ed && !claim))
                return false;
        path = volume_path(pm, name);
        *ret = (struct stats_volume){ .name = name };
        if (claim) {
                if (loopvol_stats(path, &ls, NULL) < 0)
                        return false;
                ret->pvc_name = claim;
                ret->fs = (struct stats_fs){ .valid = true,
                                             .capacity = (uint64_t) ls.capacity_bytes,
                                             .available = (uint64_t) ls.available_bytes,
                                             .used = (uint64_t) ls.used_bytes,
                                             .inodes = (uint64_t) ls.inodes,
                                             .inodes_free = (uint64_t) ls.inodes_free,
                                             .inodes_used = (uint64_t) ls.inodes_used };
                return true;
        }
        /* K8S: a Memory emptyDir is a tmpfs: statfs of it is its usage (its pages are charged
         * to the pod's memory cgroup as shmem, so they are in the pod's working set too) */
        if (json_is_string(json_object_get(ed, "medium")) &&
            streq(json_string_value(json_object_get(ed, "medium")), "Memory"))
                return statfs_stats(path, &ret->fs);
        return du_stats(path, &ret->fs);
}

/* ------------------------------------------------------------------ cgroups */

static bool cgroup_cpu_memory(struct pod_host *h, const char *relpath,
                              struct stats_rate_cache *rates, int64_t now_ns, struct stats_cpu *cpu,
                              struct stats_memory *mem)
{
        struct cgroup_stats st;

        if (cgroup_stats(h->cgroups, relpath, &st, NULL) < 0)
                return false;
        stats_rate_sample(rates, relpath, st.cpu_usage_ns, now_ns, cpu);
        *mem = stats_memory_from(st.memory_usage, st.inactive_file, st.rss, st.pgfault,
                                 st.pgmajfault, st.memory_limit);
        return true;
}

/* The container's startedAt as the pod's status has it, or NULL. */
static const char *started_at(const json_t *pod, const char *name)
{
        static const char *const lists[] = { "status.containerStatuses",
                                             "status.initContainerStatuses" };

        for (size_t l = 0; l < ARRAY_SIZE(lists); l++) {
                size_t i;
                json_t *st;

                json_array_foreach(json_path(pod, lists[l]), i, st) {
                        const char *n = json_string_value(json_object_get(st, "name"));
                        if (n && streq(n, name))
                                return json_path_string(st, "state.running.startedAt");
                }
        }
        return NULL;
}

static void pod_stats(struct pod_host *h, const json_t *pod, struct stats_rate_cache *rates,
                      int64_t now_ns, struct arena *a, struct stats_pod *ret)
{
        static const char *const lists[] = { "spec.initContainers", "spec.containers" };
        const char *uid = json_path_string(pod, "metadata.uid");
        cleanup_json json_t *rec = NULL;
        struct pod_memory pm = { 0 };
        size_t n_specs = 0, n_vols;
        int dfd;

        *ret = (struct stats_pod){ .name = json_path_string_or_empty(pod, "metadata.name"),
                                   .ns = json_path_string_or_empty(pod, "metadata.namespace"),
                                   .uid = uid,
                                   .start_time = json_path_string(pod, "status.startTime") };
        pm.uid = (char *) uid;
        pm.dir = (char *) arena_keep(a, xasprintf("%s/%s", h->pods_dir, uid));
        dfd = open(pm.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return;
        (void) fs_read_json_at(dfd, "pod.json", &rec);
        (void) close(dfd);
        /* pod.json names the pod's cgroup; a pod released (ended) has none left */
        if (!json_is_string(json_object_get(rec, "cgroup")))
                return;
        pm.cgroup =
                (char *) arena_keep(a, xstrdup(json_string_value(json_object_get(rec, "cgroup"))));
        if (!cgroup_cpu_memory(h, pm.cgroup, rates, now_ns, &ret->cpu, &ret->memory))
                return;

        for (size_t l = 0; l < ARRAY_SIZE(lists); l++)
                n_specs += json_array_size(json_path(pod, lists[l]));
        ret->containers = xcalloc(n_specs ? n_specs : 1, sizeof(*ret->containers));
        arena_keep(a, (char *) ret->containers);
        for (size_t l = 0; l < ARRAY_SIZE(lists); l++) {
                size_t i;
                json_t *c;

                json_array_foreach(json_path(pod, lists[l]), i, c) {
                        const char *name = json_string_value(json_object_get(c, "name"));
                        struct stats_container *sc = &ret->containers[ret->n_containers];
                        cleanup_free char *cg = NULL;
                        int run;

                        if (!name || (run = latest_run_in(pm.dir, name)) < 0)
                                continue;
                        cg = run_cgroup(&pm, name, run);
                        *sc = (struct stats_container){ .name = name,
                                                        .start_time = started_at(pod, name) };
                        /* K8S: a container that is not running has no cgroup to read and is
                         * not listed (cadvisor knows only live cgroups) */
                        if (cgroup_cpu_memory(h, cg, rates, now_ns, &sc->cpu, &sc->memory))
                                ret->n_containers++;
                }
        }

        n_vols = json_array_size(json_path(pod, "spec.volumes"));
        ret->volumes = xcalloc(n_vols ? n_vols : 1, sizeof(*ret->volumes));
        arena_keep(a, (char *) ret->volumes);
        for (size_t i = 0; i < n_vols; i++)
                if (volume_stats(&pm, json_array_get(json_path(pod, "spec.volumes"), i),
                                 &ret->volumes[ret->n_volumes]))
                        ret->n_volumes++;
}

/* ------------------------------------------------------------------ the node */

static void node_stats(struct pod_host *h, const char *node_name, struct stats_rate_cache *rates,
                       int64_t now_ns, struct stats_node *ret)
{
        cleanup_free char *stat = NULL, *meminfo = NULL;
        struct stats_meminfo mi;
        uint64_t busy_ns;

        *ret = (struct stats_node){ .name = node_name };
        if (fs_read_file_at(AT_FDCWD, "/proc/stat", PROC_FILE_MAX, &stat, NULL) >= 0 &&
            stats_parse_proc_stat(stat, sysconf(_SC_CLK_TCK), &busy_ns) >= 0)
                /* "/" cannot be a cgroup relpath: the node's own key */
                stats_rate_sample(rates, "/", busy_ns, now_ns, &ret->cpu);
        if (fs_read_file_at(AT_FDCWD, "/proc/meminfo", PROC_FILE_MAX, &meminfo, NULL) >= 0 &&
            stats_parse_meminfo(meminfo, &mi) >= 0)
                ret->memory = stats_node_memory(&mi);
        (void) statfs_stats(h->data_dir, &ret->fs);
}

int pod_host_stats_summary(struct pod_host *h, const char *node_name, const json_t *pods,
                           struct stats_rate_cache *rates, json_t **ret, struct error **reterr)
{
        struct arena a = { 0 };
        struct stats_node node;
        struct stats_pod *sp;
        size_t n = 0;
        int64_t now_ns = monotonic_ns();
        char now[32];
        const char *uid;
        json_t *pod;

        (void) reterr;
        time_format_rfc3339(time(NULL), now);
        node_stats(h, node_name, rates, now_ns, &node);
        sp = xcalloc(json_object_size(pods) + 1, sizeof(*sp));
        json_object_foreach((json_t *) pods, uid, pod) {
                struct stats_pod *p = &sp[n];

                if (!json_path_string(pod, "metadata.uid"))
                        continue;
                pod_stats(h, pod, rates, now_ns, &a, p);
                /* K8S: a pod with no cgroup stats (not started, or ended) is not listed */
                if (p->cpu.valid)
                        n++;
        }
        *ret = stats_summary_json(&node, sp, n, now);
        free(sp);
        arena_release(&a);
        return 0;
}
