/* pv-bench.c: the measuring half of bench/run-pv-bench.sh (the script starts `flexlet serve`,
 * calls this once per fsType and writes the report). Subcommands, each printing "key value"
 * lines, all times in ms:
 *   floor   the raw floor of a volume's growth from FROM_SIZE to TO_SIZE, no API: a fresh
 *           sparse file formatted fsType, attached to a loop device, DATA_MIB of data written,
 *           mounted (xfs, btrfs) or unmounted (ext4), then grown by the tools an administrator
 *           would run (truncate -s, losetup -c, then xfs_growfs -d / btrfs filesystem resize max
 *           / e2fsck -f -p + resize2fs), each timed; in alternate runs by loopvol_grow, the
 *           library calls the expander and the node make. The data's checksum and the
 *           filesystem's new size are checked after each run.
 *   expand  ROUNDS claims of FROM_SIZE of a class of fsType, each used by a running busybox pod
 *           that writes DATA_MIB of random data; then, one claim at a time and after a random
 *           pause (--jitter-ms, so that the PATCHes do not lock onto a periodic loop of the
 *           server's), a PATCH of its request to TO_SIZE, timed to the watch events that show
 *           the controller's part (the PersistentVolume's capacity, NodeResizePending) and the
 *           node's (status.capacity TO_SIZE with no allocatedResourceStatuses and no resize
 *           condition). ext4, which this kernel does not grow online: the pod is deleted and
 *           created again once the claim shows FileSystemResizePending, and that restart is
 *           timed apart. The data's checksum (read O_DIRECT from the host) and the filesystem's
 *           size are checked.
 * A program, not a library: it prints, and dies loudly on anything unexpected. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/quantity.h"
#include "client/client.h"
#include "node/volume/loopvol.h"
#include "bench-util.h"

#define FROM_SIZE "300Mi"
#define TO_SIZE   "900Mi"
#define MIB       ((int64_t) 1024 * 1024)
#define FROM_B    (300 * MIB) /* FROM_SIZE in bytes */
#define TO_B      (900 * MIB) /* TO_SIZE in bytes */
/* The filesystem must have grown by at least this part of the device's growth (the rest is
 * the filesystems' metadata: ext4's inode tables, xfs's and btrfs's reserves). */
#define GROWN_FRACTION 0.8

#define MAX_ROUNDS     1000
#define DONE_TIMEOUT   120  /* seconds one growth (or restart) may take before the bench gives up */
#define SETUP_TIMEOUT  600  /* seconds for every claim's pod to run with its data written */
#define EXT4_SETTLE_MS 2000 /* after FileSystemResizePending, before the restart (not counted) */
#define IO_CHUNK       (1 << 20)

extern char **environ;

/* ------------------------------------------------------------------ statistics */

/* bench_print_stats (<key>.n/.min/.p10/.p50/.p90/.p99/.max/.mean) under "<fs>.<what>", and every
 * value (sorted, comma-separated) as .values. */
static void print_series(const char *fs, const char *what, double *v, size_t n)
{
        cleanup_free char *key = xasprintf("%s.%s", fs, what);

        bench_print_stats(key, v, n, BENCH_STATS_MIN | BENCH_STATS_P10 | BENCH_STATS_P90);
        (void) printf("%s.values ", key);
        for (size_t i = 0; i < n; i++)
                (void) printf("%s%.1f", i ? "," : "", v[i]);
        (void) printf("\n");
}

/* ------------------------------------------------------------------ data on a volume */

/* Writes mib MiB of random bytes to path and fsyncs it. */
static void write_random(const char *path, size_t mib)
{
        char *buf = xmalloc(IO_CHUNK);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

        if (fd < 0)
                die("create %s: %s", path, strerror(errno));
        for (size_t i = 0; i < mib; i++) {
                for (size_t off = 0; off < IO_CHUNK;) {
                        ssize_t n = getrandom(buf + off, IO_CHUNK - off, 0);
                        if (n < 0 && errno != EINTR)
                                die("getrandom: %s", strerror(errno));
                        off += n > 0 ? (size_t) n : 0;
                }
                if (write(fd, buf, IO_CHUNK) != IO_CHUNK)
                        die("write %s: %s", path, strerror(errno));
        }
        if (fsync(fd) < 0 || close(fd) < 0)
                die("fsync %s: %s", path, strerror(errno));
        free(buf);
}

/* A 64-bit checksum of the file (FNV-1a over 64-bit words, then over the length), read with
 * O_DIRECT where the filesystem allows it: from the device, not from the page cache that a
 * growth leaves in place. */
static uint64_t checksum(const char *path)
{
        uint64_t h = 0xcbf29ce484222325ULL, len = 0;
        void *buf;
        int fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
        ssize_t n;

        if (fd < 0 && errno == EINVAL)
                fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                die("open %s: %s", path, strerror(errno));
        if (posix_memalign(&buf, 4096, IO_CHUNK) != 0)
                die("posix_memalign: out of memory");
        while ((n = read(fd, buf, IO_CHUNK)) > 0) {
                const unsigned char *p = buf;
                for (ssize_t i = 0; i + 8 <= n; i += 8) {
                        uint64_t w;
                        memcpy(&w, p + i, 8);
                        h = (h ^ w) * 0x100000001b3ULL;
                }
                for (ssize_t i = n & ~(ssize_t) 7; i < n; i++)
                        h = (h ^ p[i]) * 0x100000001b3ULL;
                len += (uint64_t) n;
        }
        if (n < 0)
                die("read %s: %s", path, strerror(errno));
        (void) close(fd);
        free(buf);
        return (h ^ len) * 0x100000001b3ULL;
}

/* The size of the filesystem mounted at dir (statfs: f_blocks x f_bsize), in bytes. */
static int64_t fs_bytes(const char *dir)
{
        struct statfs st;

        if (statfs(dir, &st) < 0)
                die("statfs %s: %s", dir, strerror(errno));
        return (int64_t) st.f_blocks * (int64_t) st.f_bsize;
}

/* Dies unless the data kept its checksum and the filesystem grew as much as it should. */
static void check_grown(const char *what, uint64_t sum_before, uint64_t sum_after,
                        int64_t fs_before, int64_t fs_after)
{
        if (sum_before != sum_after)
                die("%s: DATA CHANGED: checksum %016llx before the growth, %016llx after", what,
                    (unsigned long long) sum_before, (unsigned long long) sum_after);
        if ((double) (fs_after - fs_before) < GROWN_FRACTION * (double) (TO_B - FROM_B))
                die("%s: the filesystem did not grow: %lld KiB before, %lld KiB after", what,
                    (long long) fs_before / 1024, (long long) fs_after / 1024);
}

/* ------------------------------------------------------------------ the floor */

/* Runs argv (a tool found in PATH) with its output appended to log; its time in ms. Dies when
 * it fails (exit status above ok_max). */
static double run_tool(const char *const *argv, int ok_max, const char *log)
{
        posix_spawn_file_actions_t fa;
        int64_t t0, t1;
        int status, r;
        pid_t pid;

        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0644);
        posix_spawn_file_actions_adddup2(&fa, 1, 2);
        t0 = now_ns();
        r = posix_spawnp(&pid, argv[0], &fa, NULL, (char *const *) argv, environ);
        if (r == 0)
                while (waitpid(pid, &status, 0) < 0)
                        if (errno != EINTR)
                                die("waitpid %s: %s", argv[0], strerror(errno));
        t1 = now_ns();
        posix_spawn_file_actions_destroy(&fa);
        if (r != 0)
                die("run %s: %s", argv[0], strerror(r));
        if (!WIFEXITED(status) || WEXITSTATUS(status) > ok_max)
                die("%s %s failed (status %d); its output is in %s", argv[0], argv[1], status, log);
        return ms_between(t0, t1);
}

/* One volume of the floor: made, attached, mounted, the data written (and unmounted for ext4,
 * whose growth here is offline, as the agent's). */
struct floor_vol {
        char *file, *dev, *mnt;
        uint64_t sum;
        int64_t fs_before;
};

static void floor_vol_make(struct floor_vol *v, const char *dir, size_t k, enum loopvol_fstype fs,
                           size_t data_mib)
{
        cleanup_error struct error *err = NULL;
        cleanup_free char *blob = NULL;

        v->file = xasprintf("%s/vol-%zu.img", dir, k);
        v->mnt = xasprintf("%s/mnt-%zu", dir, k);
        if (loopvol_create(v->file, FROM_B, fs, &err) < 0 ||
            loopvol_attach(v->file, &v->dev, &err) < 0 ||
            loopvol_mount(v->file, v->mnt, fs, &err) < 0)
                die("%s", err->message);
        blob = xasprintf("%s/blob", v->mnt);
        write_random(blob, data_mib);
        v->sum = checksum(blob);
        v->fs_before = fs_bytes(v->mnt);
        if (fs == LOOPVOL_FS_EXT4 && loopvol_unmount(v->mnt, false, &err) < 0)
                die("%s", err->message);
}

/* Checks the grown volume (mounted again for ext4) and removes it. */
static void floor_vol_check_remove(struct floor_vol *v, enum loopvol_fstype fs)
{
        cleanup_error struct error *err = NULL;
        cleanup_free char *blob = xasprintf("%s/blob", v->mnt);

        if (fs == LOOPVOL_FS_EXT4 && loopvol_mount(v->file, v->mnt, fs, &err) < 0)
                die("%s", err->message);
        check_grown(v->file, v->sum, checksum(blob), v->fs_before, fs_bytes(v->mnt));
        if (loopvol_unmount(v->mnt, false, &err) < 0 || loopvol_remove(v->file, &err) < 0)
                die("%s", err->message);
        (void) rmdir(v->mnt);
        free(v->file);
        free(v->dev);
        free(v->mnt);
}

static int cmd_floor(enum loopvol_fstype fs, const char *dir, size_t runs, size_t data_mib)
{
        const char *name = loopvol_fstype_to_string(fs);
        cleanup_free char *log = xasprintf("%s/tools.log", dir);
        cleanup_free char *to = xasprintf("%lld", (long long) TO_B);
        double *trunc_ms = xcalloc(runs, sizeof(double)),
               *losetup_ms = xcalloc(runs, sizeof(double)),
               *tool_ms = xcalloc(runs, sizeof(double)), *fsck_ms = xcalloc(runs, sizeof(double)),
               *raw_ms = xcalloc(runs, sizeof(double)),
               *raw_fsck_ms = xcalloc(runs, sizeof(double)),
               *lib_ms = xcalloc(runs, sizeof(double));

        if (mkdir(dir, 0700) < 0 && errno != EEXIST)
                die("mkdir %s: %s", dir, strerror(errno));
        /* run 0 of each kind warms the tools' and the filesystems' code up; not counted */
        for (size_t i = 0; i <= runs; i++) {
                struct floor_vol raw = { 0 }, lib = { 0 };
                cleanup_error struct error *err = NULL;
                int64_t t0;
                double fsck = 0, tool;

                floor_vol_make(&raw, dir, 2 * i, fs, data_mib);
                const char *trunc_argv[] = { "truncate", "-s", to, raw.file, NULL };
                const char *losetup_argv[] = { "losetup", "-c", raw.dev, NULL };
                double tr = run_tool(trunc_argv, 0, log);
                double lo = run_tool(losetup_argv, 0, log);
                if (fs == LOOPVOL_FS_XFS) {
                        const char *argv[] = { "xfs_growfs", "-d", raw.mnt, NULL };
                        tool = run_tool(argv, 0, log);
                } else if (fs == LOOPVOL_FS_BTRFS) {
                        const char *argv[] = {
                                "btrfs", "filesystem", "resize", "max", raw.mnt, NULL
                        };
                        tool = run_tool(argv, 0, log);
                } else {
                        /* resize2fs refuses a filesystem mounted since its last check */
                        const char *fsck_argv[] = { "e2fsck", "-f", "-p", raw.dev, NULL };
                        const char *argv[] = { "resize2fs", raw.dev, NULL };
                        fsck = run_tool(fsck_argv, 1, log);
                        tool = run_tool(argv, 0, log);
                }
                floor_vol_check_remove(&raw, fs);

                floor_vol_make(&lib, dir, 2 * i + 1, fs, data_mib);
                t0 = now_ns();
                if (loopvol_grow(lib.file, TO_B, &err) < 0)
                        die("%s", err->message);
                double lb = ms_between(t0, now_ns());
                floor_vol_check_remove(&lib, fs);
                if (i == 0)
                        continue;
                trunc_ms[i - 1] = tr;
                losetup_ms[i - 1] = lo;
                tool_ms[i - 1] = tool;
                fsck_ms[i - 1] = fsck;
                raw_ms[i - 1] = tr + lo + tool;
                raw_fsck_ms[i - 1] = tr + lo + fsck + tool;
                lib_ms[i - 1] = lb;
        }
        print_series(name, "floor.truncate_ms", trunc_ms, runs);
        print_series(name, "floor.losetup_ms", losetup_ms, runs);
        print_series(name, "floor.tool_ms", tool_ms, runs);
        if (fs == LOOPVOL_FS_EXT4) {
                print_series(name, "floor.fsck_ms", fsck_ms, runs);
                print_series(name, "floor.raw_fsck_ms", raw_fsck_ms, runs);
        }
        print_series(name, "floor.raw_ms", raw_ms, runs);
        print_series(name, "floor.loopvol_ms", lib_ms, runs);
        free(trunc_ms);
        free(losetup_ms);
        free(tool_ms);
        free(fsck_ms);
        free(raw_ms);
        free(raw_fsck_ms);
        free(lib_ms);
        return 0;
}

/* ------------------------------------------------------------------ the API side */

struct api {
        const char *server, *ca, *ns, *prefix, *data_dir;
        char *token;
};

/* One request that must succeed (2xx; also 409 when conflict_ok); its answer (caller frees). */
static json_t *call(struct api_client *c, const char *method, const char *path, const char *ctype,
                    const char *body, bool conflict_ok)
{
        cleanup_error struct error *err = NULL;
        json_t *resp = NULL;
        long status = 0;

        if (api_client_request(c, method, path, ctype, body, body ? strlen(body) : 0, &status,
                               &resp, &err) < 0)
                die("%s %s: %s", method, path, err ? err->message : "failed");
        if (status / 100 != 2 && !(conflict_ok && status == 409))
                die("%s %s: status %ld: %s", method, path, status,
                    json_path_string(resp, "message") ?: "");
        return resp;
}

/* A quantity's value in bytes; -1 when missing or invalid. */
static int64_t bytes_of(const json_t *v)
{
        const char *s = json_string_value(v);
        struct quantity q;
        int64_t out;

        if (!s || quantity_parse(s, &q, NULL) < 0 || quantity_value(&q, &out) < 0)
                return -1;
        return out;
}

/* K8S MarkFSResizeFinished: the growth is over when status.capacity is the new size, the
 * allocatedResourceStatuses map is gone and no resize condition is left. */
static bool claim_grown(const json_t *pvc)
{
        static const char *const resize_conditions[] = { "Resizing", "FileSystemResizePending",
                                                         "ControllerResizeError",
                                                         "NodeResizeError" };

        if (bytes_of(json_path(pvc, "status.capacity.storage")) != TO_B ||
            json_object_size(json_path(pvc, "status.allocatedResourceStatuses")))
                return false;
        for (size_t i = 0; i < ARRAY_SIZE(resize_conditions); i++)
                if (bench_has_condition(pvc, resize_conditions[i]))
                        return false;
        return true;
}

/* One claim and its pod (both named <prefix>-<fs>-<i>), and what the watches saw of them. */
struct round {
        char *pod_uid;  /* the pod this bench created last */
        char *live_uid; /* the pod the watch saw last, and whether it ran */
        bool live_running;
        char *gone_uid; /* the pod the watch saw deleted last */
        bool volume_gone;
        /* the growth: the PATCH sent and answered, the PersistentVolume's capacity at TO_SIZE,
         * NodeResizePending, FileSystemResizePending, the claim grown; for the restart: the
         * pod's DELETE sent, its DELETED event, the new pod's POST sent, it running */
        uint64_t sum;      /* the data's checksum before the growth */
        int64_t fs_before; /* the filesystem's size before the growth */
        bool active;
        int64_t t_sent, t_resp, t_pv, t_handover, t_pending, t_done;
        int64_t t_del, t_gone, t_create, t_running;
};

struct bench {
        const struct api *a;
        const char *fs;
        size_t n;
        unsigned jitter_ms; /* the longest random pause before a growth's PATCH */
        struct round *r;
        pthread_mutex_t lock;
        pthread_cond_t cond;
};

/* The round of "<prefix>-<fs>-<i>", or -1. */
static long round_of(const struct bench *b, const char *name)
{
        cleanup_free char *stem = xasprintf("%s-%s", b->a->prefix, b->fs);

        return bench_name_index(stem, name, b->n);
}

/* The watches' callbacks, called with b->lock held and the event's arrival time t. */
static void on_pod(struct bench *b, const char *type, const json_t *pod, int64_t t)
{
        long i = round_of(b, json_path_string(pod, "metadata.name"));
        const char *uid = json_path_string(pod, "metadata.uid");
        struct round *r;

        if (i < 0 || !uid)
                return;
        r = &b->r[i];
        if (streq(type, "DELETED")) {
                bench_set_str(&r->gone_uid, uid);
                if (r->active && !r->t_gone)
                        r->t_gone = t;
                return;
        }
        if (!r->live_uid || !streq(r->live_uid, uid)) {
                bench_set_str(&r->live_uid, uid);
                r->live_running = false;
        }
        if (!r->live_running && bench_pod_running(pod)) {
                r->live_running = true;
                if (r->active && r->t_create && !r->t_running)
                        r->t_running = t;
        }
}

static void on_claim(struct bench *b, const char *type, const json_t *pvc, int64_t t)
{
        long i = round_of(b, json_path_string(pvc, "metadata.name"));
        const char *state = json_path_string(pvc, "status.allocatedResourceStatuses.storage");
        struct round *r;

        if (i < 0 || streq(type, "DELETED") || !b->r[i].active)
                return;
        r = &b->r[i];
        if (!r->t_handover && state && streq(state, "NodeResizePending"))
                r->t_handover = t;
        if (!r->t_pending && bench_has_condition(pvc, "FileSystemResizePending"))
                r->t_pending = t;
        if (!r->t_done && claim_grown(pvc))
                r->t_done = t;
}

static void on_volume(struct bench *b, const char *type, const json_t *pv, int64_t t)
{
        const char *ns = json_path_string(pv, "spec.claimRef.namespace");
        long i = round_of(b, json_path_string(pv, "spec.claimRef.name"));

        if (i < 0 || !ns || !streq(ns, b->a->ns))
                return;
        if (streq(type, "DELETED")) {
                b->r[i].volume_gone = true;
                return;
        }
        if (b->r[i].active && !b->r[i].t_pv &&
            bytes_of(json_path(pv, "spec.capacity.storage")) >= TO_B)
                b->r[i].t_pv = t;
}

/* A list + watch of one kind on its own thread, from the list's resource version. */
struct watch {
        struct bench *b;
        char *path; /* the list's path */
        void (*on)(struct bench *b, const char *type, const json_t *obj, int64_t t);
        char *rv;
        pthread_t thread;
};

static int on_event(void *ud, const char *type, json_t *obj)
{
        struct watch *w = ud;
        int64_t t = now_ns();
        const char *rv = json_path_string(obj, "metadata.resourceVersion");

        pthread_mutex_lock(&w->b->lock);
        if (rv)
                bench_set_str(&w->rv, rv);
        if (!streq(type, "BOOKMARK") && !streq(type, "ERROR"))
                w->on(w->b, type, obj, t);
        pthread_cond_broadcast(&w->b->cond);
        pthread_mutex_unlock(&w->b->lock);
        return 0;
}

static void *watch_main(void *arg)
{
        struct watch *w = arg;
        struct api_client *c = bench_client_new(w->b->a->server, w->b->a->ca, w->b->a->token,
                                                BENCH_IDLE_TIMEOUT_MS);

        bench_watch_forever(c, w->path, &w->b->lock, &w->rv, on_event, w);
}

static void watch_start(struct watch *w, struct bench *b, char *path,
                        void (*on)(struct bench *, const char *, const json_t *, int64_t))
{
        cleanup_api_client struct api_client *c =
                bench_client_new(b->a->server, b->a->ca, b->a->token, BENCH_IDLE_TIMEOUT_MS);
        cleanup_json json_t *list = call(c, "GET", path, NULL, NULL, false);

        *w = (struct watch){ .b = b, .path = path, .on = on };
        w->rv = xstrdup(json_path_string(list, "metadata.resourceVersion") ?: "0");
        if (pthread_create(&w->thread, NULL, watch_main, w) != 0)
                die("pthread_create");
}

/* Waits until done(b, i) holds (under b->lock); false at the timeout. */
static bool bench_wait(struct bench *b, bool (*done)(const struct bench *, size_t), size_t i,
                       double timeout_s)
{
        int64_t deadline = now_ns() + (int64_t) (timeout_s * 1e9);
        bool ok;

        pthread_mutex_lock(&b->lock);
        while (!(ok = done(b, i)) && now_ns() < deadline) {
                bench_cond_wait_ms(&b->cond, &b->lock, 5);
        }
        pthread_mutex_unlock(&b->lock);
        return ok;
}

static bool is_running(const struct bench *b, size_t i)
{
        const struct round *r = &b->r[i];

        return r->pod_uid && r->live_uid && streq(r->pod_uid, r->live_uid) && r->live_running;
}

static bool all_running(const struct bench *b, size_t unused)
{
        for (size_t i = 0; i < b->n; i++)
                if (!is_running(b, i))
                        return false;
        return true;
}

static bool all_pods_gone(const struct bench *b, size_t unused)
{
        for (size_t i = 0; i < b->n; i++)
                if (!b->r[i].gone_uid || !streq(b->r[i].gone_uid, b->r[i].pod_uid))
                        return false;
        return true;
}

static bool all_volumes_gone(const struct bench *b, size_t unused)
{
        for (size_t i = 0; i < b->n; i++)
                if (!b->r[i].volume_gone)
                        return false;
        return true;
}

static bool grown(const struct bench *b, size_t i)
{
        return b->r[i].t_done && b->r[i].t_pv;
}

static bool pending(const struct bench *b, size_t i)
{
        return b->r[i].t_done || (b->r[i].t_pending && b->r[i].t_handover && b->r[i].t_pv);
}

static bool pod_gone(const struct bench *b, size_t i)
{
        return b->r[i].t_gone;
}

static bool grown_and_running(const struct bench *b, size_t i)
{
        return grown(b, i) && b->r[i].t_running;
}

/* The pod writes the data once (not again when it is created anew on the same claim), syncs
 * it and says so with /data/ready; it ends at once on SIGTERM. */
static char *pod_body(const char *name, size_t data_mib)
{
        return xasprintf(
                "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\","
                "\"labels\":{\"app\":\"pv-bench\"}},\"spec\":{"
                "\"terminationGracePeriodSeconds\":1,"
                "\"containers\":[{\"name\":\"c\",\"image\":\"busybox\",\"command\":[\"sh\","
                "\"-c\",\"trap 'exit 0' TERM; [ -f /data/ready ] || { dd if=/dev/urandom "
                "of=/data/blob bs=1M count=%zu 2>/dev/null && sync && touch /data/ready; }; "
                "sleep 3600 & wait\"],"
                "\"volumeMounts\":[{\"name\":\"d\",\"mountPath\":\"/data\"}]}],"
                "\"volumes\":[{\"name\":\"d\",\"persistentVolumeClaim\":{\"claimName\":\"%s\"}}"
                "]}}",
                name, data_mib, name);
}

/* Creates pod i and remembers its uid. */
static void pod_create(struct bench *b, struct api_client *c, size_t i, size_t data_mib)
{
        cleanup_free char *name = xasprintf("%s-%s-%zu", b->a->prefix, b->fs, i);
        cleanup_free char *path = xasprintf("/api/v1/namespaces/%s/pods", b->a->ns);
        cleanup_free char *body = pod_body(name, data_mib);
        cleanup_json json_t *pod = call(c, "POST", path, NULL, body, false);

        pthread_mutex_lock(&b->lock);
        bench_set_str(&b->r[i].pod_uid, json_path_string(pod, "metadata.uid"));
        pthread_mutex_unlock(&b->lock);
        if (!b->r[i].pod_uid)
                die("POST %s: no uid in the answer", path);
}

static void object_delete(struct api_client *c, const char *ns, const char *kind, const char *name)
{
        cleanup_free char *path = xasprintf("/api/v1/namespaces/%s/%s/%s", ns, kind, name);

        json_decref(call(c, "DELETE", path, NULL, NULL, false));
}

/* The host's view of round i's volume, as the node mounted it for the current pod. */
static char *volume_dir(const struct bench *b, size_t i)
{
        return xasprintf("%s/pods/%s/volumes/d", b->a->data_dir, b->r[i].pod_uid);
}

/* Waits until the pod has written and synced its data (/data/ready). */
static void wait_ready(const struct bench *b, size_t i, int64_t deadline)
{
        cleanup_free char *dir = volume_dir(b, i);
        cleanup_free char *ready = xasprintf("%s/ready", dir);

        while (access(ready, F_OK) < 0) {
                if (now_ns() > deadline)
                        die("%s: the pod did not write its data in time", dir);
                usleep(20 * 1000);
        }
}

static uint64_t volume_checksum(const struct bench *b, size_t i, int64_t *ret_fs_bytes)
{
        cleanup_free char *dir = volume_dir(b, i);
        cleanup_free char *blob = xasprintf("%s/blob", dir);

        *ret_fs_bytes = fs_bytes(dir);
        return checksum(blob);
}

static char *round_name(const struct bench *b, size_t i)
{
        return xasprintf("%s-%s-%zu", b->a->prefix, b->fs, i);
}

/* The class (the default local-loop one but for its fsType), then every claim and its pod at
 * once, until each pod runs with its data written; each round's checksum and size noted. */
static void expand_setup(struct bench *b, struct api_client *c, size_t data_mib)
{
        cleanup_free char *claims =
                xasprintf("/api/v1/namespaces/%s/persistentvolumeclaims", b->a->ns);
        cleanup_free char *class = xasprintf("%s-%s", b->a->prefix, b->fs);
        cleanup_free char *class_body = xasprintf(
                "{\"apiVersion\":\"storage.k8s.io/v1\",\"kind\":\"StorageClass\",\"metadata\":{"
                "\"name\":\"%s\"},\"provisioner\":\"flexlet.io/local-loop\",\"parameters\":{"
                "\"fsType\":\"%s\"},\"allowVolumeExpansion\":true,\"volumeBindingMode\":"
                "\"WaitForFirstConsumer\",\"reclaimPolicy\":\"Delete\"}",
                class, b->fs);
        int64_t t0;

        json_decref(
                call(c, "POST", "/apis/storage.k8s.io/v1/storageclasses", NULL, class_body, true));
        t0 = now_ns();
        for (size_t i = 0; i < b->n; i++) {
                cleanup_free char *name = round_name(b, i);
                cleanup_free char *body = xasprintf(
                        "{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolumeClaim\",\"metadata\":{"
                        "\"name\":\"%s\"},\"spec\":{\"storageClassName\":\"%s\","
                        "\"accessModes\":[\"ReadWriteOnce\"],\"resources\":{\"requests\":{"
                        "\"storage\":\"" FROM_SIZE "\"}}}}",
                        name, class);
                json_decref(call(c, "POST", claims, NULL, body, false));
                pod_create(b, c, i, data_mib);
        }
        if (!bench_wait(b, all_running, 0, SETUP_TIMEOUT))
                die("%s: the pods did not all run within %d s", b->fs, SETUP_TIMEOUT);
        for (size_t i = 0; i < b->n; i++) {
                wait_ready(b, i, t0 + (int64_t) SETUP_TIMEOUT * 1000000000);
                b->r[i].sum = volume_checksum(b, i, &b->r[i].fs_before);
        }
        (void) printf("%s.setup_ms %.3f\n", b->fs, ms_between(t0, now_ns()));
}

/* Stamps round i's field with now under the lock. */
static void stamp(struct bench *b, int64_t *field)
{
        int64_t t = now_ns();

        pthread_mutex_lock(&b->lock);
        *field = t;
        pthread_mutex_unlock(&b->lock);
}

/* K8S (ext4 here): a filesystem the kernel will not grow online waits with
 * FileSystemResizePending for the next mount: the pod is deleted and created again, as a user
 * would, once the node had time to try online (not counted). */
static void restart_pod(struct bench *b, struct api_client *c, size_t i, const char *name,
                        size_t data_mib)
{
        usleep(EXT4_SETTLE_MS * 1000);
        pthread_mutex_lock(&b->lock);
        if (b->r[i].t_done)
                die("claim %s: grown online; this series assumes the kernel refuses (run it "
                    "as an online one)",
                    name);
        pthread_mutex_unlock(&b->lock);
        stamp(b, &b->r[i].t_del);
        object_delete(c, b->a->ns, "pods", name);
        if (!bench_wait(b, pod_gone, i, DONE_TIMEOUT))
                die("pod %s: not gone after %d s", name, DONE_TIMEOUT);
        stamp(b, &b->r[i].t_create);
        pod_create(b, c, i, data_mib);
        if (!bench_wait(b, grown_and_running, i, DONE_TIMEOUT))
                die("claim %s: not grown with its new pod running after %d s", name, DONE_TIMEOUT);
}

/* Grows round i's claim (PATCH, as `kubectl patch pvc` sends it) until it is done, through a
 * restart of its pod when offline; checks its data and size. Returns what the watches saw. */
static struct round grow_one(struct bench *b, struct api_client *c, size_t i, bool offline,
                             size_t data_mib, int64_t *ret_fs_after)
{
        static const char body[] =
                "{\"spec\":{\"resources\":{\"requests\":{\"storage\":\"" TO_SIZE "\"}}}}";
        cleanup_free char *name = round_name(b, i);
        cleanup_free char *path =
                xasprintf("/api/v1/namespaces/%s/persistentvolumeclaims/%s", b->a->ns, name);
        cleanup_free char *what = xasprintf("claim %s", name);
        struct round r;
        uint64_t sum_after;

        /* a pause of random length first, so that the PATCH does not fall at the same point of
         * a periodic loop (the agent's sync period) every time, as it would right after the
         * last growth finished in that loop */
        if (b->jitter_ms) {
                uint32_t u = 0;
                if (getrandom(&u, sizeof(u), 0) != sizeof(u))
                        die("getrandom: %s", strerror(errno));
                usleep((useconds_t) (u % (b->jitter_ms * 1000)));
        }
        pthread_mutex_lock(&b->lock);
        b->r[i].active = true;
        pthread_mutex_unlock(&b->lock);
        stamp(b, &b->r[i].t_sent);
        json_decref(call(c, "PATCH", path, "application/strategic-merge-patch+json", body, false));
        stamp(b, &b->r[i].t_resp);
        if (!bench_wait(b, offline ? pending : grown, i, DONE_TIMEOUT))
                die("%s: %s after %d s", what, offline ? "no FileSystemResizePending" : "not grown",
                    DONE_TIMEOUT);
        if (offline)
                restart_pod(b, c, i, name, data_mib);
        pthread_mutex_lock(&b->lock);
        b->r[i].active = false;
        r = b->r[i];
        pthread_mutex_unlock(&b->lock);
        sum_after = volume_checksum(b, i, ret_fs_after);
        check_grown(what, r.sum, sum_after, r.fs_before, *ret_fs_after);
        return r;
}

/* The pods, then the claims (their volumes and files go with them). */
static void expand_teardown(struct bench *b, struct api_client *c)
{
        for (size_t i = 0; i < b->n; i++) {
                cleanup_free char *name = round_name(b, i);
                object_delete(c, b->a->ns, "pods", name);
        }
        if (!bench_wait(b, all_pods_gone, 0, SETUP_TIMEOUT))
                die("%s: the pods are not all gone after %d s", b->fs, SETUP_TIMEOUT);
        for (size_t i = 0; i < b->n; i++) {
                cleanup_free char *name = round_name(b, i);
                object_delete(c, b->a->ns, "persistentvolumeclaims", name);
        }
        if (!bench_wait(b, all_volumes_gone, 0, SETUP_TIMEOUT))
                die("%s: the volumes are not all gone after %d s", b->fs, SETUP_TIMEOUT);
}

/* The series of cmd_expand, in ms; which ones an online and an offline growth have. */
enum col {
        C_E2E,            /* PATCH sent -> claim done (offline: C_PENDING + C_RESTART) */
        C_PATCH,          /* PATCH sent -> answered */
        C_CTRL,           /* PATCH sent -> PersistentVolume capacity TO_SIZE */
        C_HANDOVER,       /* PATCH sent -> NodeResizePending */
        C_NODE,           /* PersistentVolume capacity -> claim done (online) */
        C_PENDING,        /* PATCH sent -> FileSystemResizePending (offline) */
        C_RESTART,        /* pod DELETE sent -> claim done */
        C_GONE,           /* pod DELETE sent -> its DELETED event */
        C_CREATE_DONE,    /* pod POST sent -> claim done */
        C_CREATE_RUNNING, /* pod POST sent -> pod running */
        C_MAX,
};

static const char *const col_names[C_MAX] = {
        "e2e_ms",     "patch_ms",   "controller_ms", "handover_ms",    "node_ms",
        "pending_ms", "restart_ms", "gone_ms",       "create_done_ms", "create_running_ms",
};

static bool col_applies(enum col k, bool offline)
{
        return k < C_NODE || (k == C_NODE) != offline;
}

static int cmd_expand(const struct api *a, enum loopvol_fstype fstype, size_t rounds,
                      size_t data_mib, unsigned jitter_ms)
{
        bool offline = fstype == LOOPVOL_FS_EXT4;
        cleanup_api_client struct api_client *c =
                bench_client_new(a->server, a->ca, a->token, BENCH_IDLE_TIMEOUT_MS);
        struct bench b = {
                .a = a, .fs = loopvol_fstype_to_string(fstype), .n = rounds, .jitter_ms = jitter_ms
        };
        struct watch w_pods, w_claims, w_volumes;
        double *col[C_MAX];
        int64_t fs_after = 0;

        for (int k = 0; k < C_MAX; k++)
                col[k] = xcalloc(rounds, sizeof(double));
        b.r = xcalloc(rounds, sizeof(struct round));
        pthread_mutex_init(&b.lock, NULL);
        pthread_cond_init(&b.cond, NULL);
        watch_start(&w_pods, &b, xasprintf("/api/v1/namespaces/%s/pods", a->ns), on_pod);
        watch_start(&w_claims, &b, xasprintf("/api/v1/namespaces/%s/persistentvolumeclaims", a->ns),
                    on_claim);
        watch_start(&w_volumes, &b, xstrdup("/api/v1/persistentvolumes"), on_volume);

        expand_setup(&b, c, data_mib);
        for (size_t i = 0; i < rounds; i++) {
                struct round r = grow_one(&b, c, i, offline, data_mib, &fs_after);

                col[C_PATCH][i] = ms_between(r.t_sent, r.t_resp);
                col[C_CTRL][i] = ms_between(r.t_sent, r.t_pv);
                col[C_HANDOVER][i] = r.t_handover ? ms_between(r.t_sent, r.t_handover) : 0;
                col[C_NODE][i] = ms_between(r.t_pv, r.t_done);
                col[C_E2E][i] = ms_between(r.t_sent, r.t_done);
                if (offline) {
                        col[C_PENDING][i] = ms_between(r.t_sent, r.t_pending);
                        col[C_RESTART][i] = ms_between(r.t_del, r.t_done);
                        col[C_GONE][i] = ms_between(r.t_del, r.t_gone);
                        col[C_CREATE_DONE][i] = ms_between(r.t_create, r.t_done);
                        col[C_CREATE_RUNNING][i] = ms_between(r.t_create, r.t_running);
                        col[C_E2E][i] = col[C_PENDING][i] + col[C_RESTART][i];
                }
        }
        (void) printf("%s.checked %zu\n", b.fs, rounds);
        (void) printf("%s.fs_before_kib %lld\n%s.fs_after_kib %lld\n", b.fs,
                      (long long) b.r[0].fs_before / 1024, b.fs, (long long) fs_after / 1024);
        for (int k = 0; k < C_MAX; k++)
                if (col_applies((enum col) k, offline))
                        print_series(b.fs, col_names[k], col[k], rounds);
        expand_teardown(&b, c);
        (void) fflush(stdout);
        _exit(0); /* the watch threads block in their streams */
}

/* ------------------------------------------------------------------ main */

static void usage(FILE *f)
{
        (void) fputs("usage: pv-bench floor --fstype FS --dir DIR [--runs N] [--data-mib M]\n"
                     "       pv-bench expand API --fstype FS --data-dir DIR [--rounds N]\n"
                     "           [--data-mib M] [--jitter-ms MAX]\n"
                     "API: --server URL --ca FILE --token-file FILE [--ns NS] [--prefix P]\n"
                     "FS: xfs, btrfs or ext4; each volume grows from " FROM_SIZE " to " TO_SIZE
                     "\n",
                     f);
}

static size_t parse_count(const char *flag, const char *s, size_t min, size_t max)
{
        char *end;
        unsigned long v = strtoul(s, &end, 10);

        if (*end || !*s || v < min || v > max)
                die("%s: \"%s\" is not a count in %zu..%zu", flag, s, min, max);
        return v;
}

int main(int argc, char **argv)
{
        static const struct option opts[] = {
                { "fstype", required_argument, NULL, 'f' },
                { "dir", required_argument, NULL, 'd' },
                { "runs", required_argument, NULL, 'r' },
                { "rounds", required_argument, NULL, 'R' },
                { "data-mib", required_argument, NULL, 'm' },
                { "data-dir", required_argument, NULL, 'D' },
                { "jitter-ms", required_argument, NULL, 'j' },
                { "server", required_argument, NULL, 's' },
                { "ca", required_argument, NULL, 'c' },
                { "token-file", required_argument, NULL, 't' },
                { "ns", required_argument, NULL, 'N' },
                { "prefix", required_argument, NULL, 'p' },
                { "help", no_argument, NULL, 'h' },
                { 0 },
        };
        struct api a = { .ns = "default", .prefix = "pvb" };
        const char *cmd, *token_file = NULL, *dir = NULL;
        size_t runs = 10, rounds = 10, data_mib = 50, jitter_ms = 1000;
        enum loopvol_fstype fs = LOOPVOL_FS_MAX;
        int opt;

        if (argc < 2 || streq(argv[1], "--help") || streq(argv[1], "-h")) {
                usage(argc < 2 ? stderr : stdout);
                return argc < 2 ? 2 : 0;
        }
        cmd = argv[1];
        optind = 2;
        while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
                switch (opt) {
                case 'f':
                        if (loopvol_fstype_from_string(optarg, &fs) < 0)
                                die("--fstype: xfs, btrfs or ext4, not \"%s\"", optarg);
                        break;
                case 'd':
                        dir = optarg;
                        break;
                case 'r':
                        runs = parse_count("--runs", optarg, 1, MAX_ROUNDS);
                        break;
                case 'R':
                        rounds = parse_count("--rounds", optarg, 1, MAX_ROUNDS);
                        break;
                case 'm':
                        /* the data must fit in the FROM_SIZE volume with its metadata */
                        data_mib = parse_count("--data-mib", optarg, 1, 200);
                        break;
                case 'D':
                        a.data_dir = optarg;
                        break;
                case 'j':
                        jitter_ms = parse_count("--jitter-ms", optarg, 0, 60000);
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
        if (fs == LOOPVOL_FS_MAX)
                die("%s needs --fstype", cmd);
        (void) setvbuf(stdout, NULL, _IOLBF, 0);
        if (streq(cmd, "floor")) {
                if (!dir)
                        die("floor needs --dir");
                return cmd_floor(fs, dir, runs, data_mib);
        }
        if (!streq(cmd, "expand"))
                die("unknown command \"%s\"", cmd);
        if (!a.server || !a.ca || !token_file || !a.data_dir)
                die("expand needs --server, --ca, --token-file and --data-dir");
        a.token = bench_read_token(token_file);
        return cmd_expand(&a, fs, rounds, data_mib, (unsigned) jitter_ms);
}
