/* pod-worker.c: one pod's life on this host, stepped by the agent's sync loop. Each step reads
 * what the host has (folders, cgroups, the runtime's state files), compares it with the spec,
 * does the next thing (start a container, restart one after its back-off, kill on deletion,
 * tear down) and reports an observation for pod-status.c. What is remembered between steps is
 * only what the kubelet also keeps in memory (back-off entries, a termination in progress); the
 * rest is on disk, so a restarted agent carries on where the old one stopped.
 *
 * On disk, per pod: DATA/pods/<uid>/
 *   pod.json                 namespace, name, cgroup and start time, written first (fsynced)
 *   sandbox/                 the runtime's sandbox state
 *   containers/<name>/<n>/   run n of a container (the runtime's state dir); n = restartCount
 *   exits/<name>-<n>.json    how run n ended as only the cgroup could tell (OOMKilled)
 *   volumes/<name>/          emptyDir volumes (a tmpfs for medium Memory); configMap, secret,
 *                            downwardAPI and projected volumes (a tmpfs the AtomicWriter fills)
 * Cgroups, below --cgroup-root, in the kubelet's QoS layout: kubepods[/burstable|/besteffort]/
 * pod<uid>/ holds the pod's limits; below it sandbox/ and one cgroup per container run, named by
 * the run's container id. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "api/pod-resources.h"
#include "api/validation.h"
#include "base/alloc.h"
#include "base/fault.h"
#include "base/fs.h"
#include "base/hash.h"
#include "base/json.h"
#include "base/metrics.h"
#include "base/quantity.h"
#include "base/strbuf.h"
#include "base/timeutil.h"
#include "node/cgroup/cgroup.h"
#include "node/network/network.h"
#include "node/exit-watch.h"
#include "node/image-puller.h"
#include "node/node-metrics.h"
#include "node/node-status.h"
#include "node/pod-payload.h"
#include "node/pod-security.h"
#include "node/pod-status.h"
#include "node/pod-worker-internal.h"
#include "node/pod-worker.h"
#include "node/prober.h"
#include "node/runtime/runtime.h"
#include "node/token-manager.h"
#include "node/volume/atomic-writer.h"
#include "node/volume/emptydir.h"
#include "node/volume/storage-metrics.h"

/* K8S: the kubelet's crash-loop and image-pull back-off: 10 s doubling to 5 min; an entry not
 * touched for twice the maximum is forgotten (flowcontrol.Backoff's expiry). */
#define BACKOFF_INITIAL_S 10
#define BACKOFF_MAX_S     300
/* K8S: spec.terminationGracePeriodSeconds default */
#define DEFAULT_GRACE_S 30
/* runs of a container kept on disk: the current one and the previous (kubectl logs -p) */
#define KEEP_RUNS 2
/* K8S: the kubelet's pod worker retries a failed sync after backOffPeriod (10 s) */
#define NETWORK_RETRY_S 10
/* K8S: the eviction manager's housekeeping interval (--housekeeping-interval 10s) */
#define USAGE_CHECK_S 10
/* A steady pod's full step (its sandbox, containers and cgroups checked, its status made
 * again) on the resync: at most this often, plus up to half as much again at random, so pods
 * that started together do not all take their full steps in the same second (K8S: the
 * kubelet's pod worker resyncs a pod every minute, --sync-frequency, jittered by up to half
 * of it, workerResyncIntervalJitterFactor 0.5; it relies on PLEG for what changes meanwhile) */
#define STEADY_FULL_S 10
/* threads probing containers (node/prober.h) */
#define PROBER_THREADS 4

void pod_events_release(struct pod_events *ev)
{
        for (size_t i = 0; i < ev->n; i++) {
                free(ev->items[i].message);
                json_decref(ev->items[i].object);
        }
        ev->n = 0;
}

/* ------------------------------------------------------------------ memory of pods */

static void container_memory_release(struct container_memory *c)
{
        free(c->name);
        free(c->pull_message);
}

static void pod_memory_free(struct pod_memory *p)
{
        if (!p)
                return;
        for (size_t i = 0; i < p->n_containers; i++)
                container_memory_release(&p->containers[i]);
        free(p->containers);
        free(p->evicted);
        free(p->steady_rv);
        free(p->shown.steady_rv);
        json_decref(p->payload_errors);
        json_decref(p->payload_digests);
        free(p->pod_ip);
        pod_resize_forget(p);
        free(p->uid);
        free(p->dir);
        free(p->cgroup);
        free(p);
}

/* Under pods_lock. */
static struct pod_memory *pod_memory_find(struct pod_host *h, const char *uid, size_t *ret_index)
{
        for (size_t i = 0; i < h->n_pods; i++)
                if (streq(h->pods[i]->uid, uid)) {
                        if (ret_index)
                                *ret_index = i;
                        return h->pods[i];
                }
        return NULL;
}

/* The exit watch's wake: the pod's exits_seen moves, so its next step reads again the state of
 * the runs it had seen running (observe), then the pod is woken. */
static void on_run_exit(void *ud, const char *uid)
{
        struct pod_host *h = ud;
        struct pod_memory *p;

        pthread_mutex_lock(&h->pods_lock);
        p = pod_memory_find(h, uid, NULL);
        if (p)
                (void) __atomic_add_fetch(&p->exits_seen, 1, __ATOMIC_RELEASE);
        pthread_mutex_unlock(&h->pods_lock);
        h->wake(h->wake_ud, uid);
}

static void pod_memory_forget(struct pod_host *h, const char *uid)
{
        size_t i;
        struct pod_memory *p;

        /* K8S: the kubelet's DeleteServiceAccountToken once the pod is gone */
        token_manager_forget_pod(h->tokens, uid);
        prober_forget_pod(h->prober, uid);

        pthread_mutex_lock(&h->pods_lock);
        p = pod_memory_find(h, uid, &i);
        if (p)
                h->pods[i] = h->pods[--h->n_pods];
        pthread_mutex_unlock(&h->pods_lock);
        /* no other thread can reach it now: only its own worker (this one) had it outside
         * the lock */
        pod_memory_free(p);
}

bool pod_host_has_pod(struct pod_host *h, const char *uid)
{
        cleanup_free char *dir = xasprintf("%s/%s", h->pods_dir, uid);
        bool known;

        pthread_mutex_lock(&h->pods_lock);
        known = pod_memory_find(h, uid, NULL) != NULL;
        pthread_mutex_unlock(&h->pods_lock);
        return known || access(dir, F_OK) == 0;
}

/* ------------------------------------------------------------------ naming */

static char *pod_cgroup_path(const char *qos, const char *uid)
{
        if (streq(qos, "Guaranteed"))
                return xasprintf("kubepods/pod%s", uid);
        if (streq(qos, "BestEffort"))
                return xasprintf("kubepods/besteffort/pod%s", uid);
        return xasprintf("kubepods/burstable/pod%s", uid);
}

/* K8S: format.Pod: "name_namespace(uid)" */
static char *pod_label(const json_t *pod)
{
        return xasprintf("%s_%s(%s)", json_path_string(pod, "metadata.name"),
                         json_path_string(pod, "metadata.namespace"),
                         json_path_string(pod, "metadata.uid"));
}

/* ------------------------------------------------------------------ host */

/* image_puller_options.wake: a pull ended; its key is "<pod uid>/<container>" */
static void pull_wake(void *ud, const char *key)
{
        struct pod_host *h = ud;
        cleanup_free char *uid = xstrndup(key, strcspn(key, "/"));

        if (h->wake)
                h->wake(h->wake_ud, uid);
}

int pod_host_open(const struct pod_host_options *o, struct pod_host **ret, struct error **reterr)
{
        struct pod_host *h = xcalloc(1, sizeof(*h));
        struct cgroup_limits root = { .memory_limit_bytes = -1 };
        int r;

        h->node_name = xstrdup(o->node_name);
        h->data_dir = xstrdup(o->data_dir);
        h->pods_dir = xasprintf("%s/pods", o->data_dir);
        h->allocatable_memory = o->allocatable_memory;
        h->allocatable_milli_cpu = o->allocatable_milli_cpu;
        h->memory_capacity = o->memory_capacity;
        h->volume_resize_on_v1 = o->memory_backed_volume_resize_cgroup_v1;
        h->metrics = o->metrics;
        pthread_mutex_init(&h->claims_lock, NULL);
        pthread_mutex_init(&h->pods_lock, NULL);
        pthread_mutex_init(&h->admit_lock, NULL);
        pthread_mutex_init(&h->loop_lock, NULL);
        pthread_mutex_init(&h->userns_lock, NULL);
        h->mounted_claims = json_object();
        h->claim_lookup = o->claim_lookup;
        h->claim_patch_status = o->claim_patch_status;
        h->claim_ud = o->claim_ud;
        h->object_lookup = o->object_lookup;
        h->object_ud = o->object_ud;
        h->tokens = o->tokens;
        h->network = o->network;
        h->service_host = o->service_host ? xstrdup(o->service_host) : NULL;
        h->service_port = o->service_port;
        node_host_ip(h->host_ip, sizeof(h->host_ip));
        /* K8S: the kubelet runs a goroutine per probe; a few threads do here, as a probe
         * mostly waits on the network */
        r = prober_new(PROBER_THREADS, o->wake, o->wake_ud, o->metrics, &h->prober, reterr);
        if (r >= 0 && o->wake)
                r = exit_watch_new(on_run_exit, h, &h->exits, reterr);
        if (r < 0)
                goto fail;
        {
                const struct image_puller_options po = { .data_dir = o->data_dir,
                                                         .insecure = o->insecure_registries,
                                                         .wake = pull_wake,
                                                         .wake_ud = h };
                h->wake = o->wake;
                h->wake_ud = o->wake_ud;
                (void) image_puller_new(&po, &h->puller);
        }
        r = fs_mkdir_p(h->pods_dir, 0700);
        if (r < 0) {
                error_set(reterr, -r, "create %s: %s", h->pods_dir, strerror(-r));
                goto fail;
        }
        r = pod_userns_init(h, reterr);
        if (r < 0)
                goto fail;
        r = cgroup_manager_open(o->cgroup_sysfs ?: "/sys/fs/cgroup", o->cgroup_root, &h->cgroups,
                                reterr);
        if (r < 0)
                goto fail;
        h->cgroup_v1 = cgroup_manager_version(h->cgroups) == CGROUP_V1;
        /* K8S: enforce-node-allocatable=pods: kubepods is limited to the node's allocatable. */
        r = cgroup_create(h->cgroups, "kubepods", reterr);
        if (r >= 0)
                r = cgroup_create(h->cgroups, "kubepods/burstable", reterr);
        if (r >= 0)
                r = cgroup_create(h->cgroups, "kubepods/besteffort", reterr);
        if (r >= 0 && o->allocatable_memory > 0) {
                root.memory_limit_bytes = o->allocatable_memory;
                r = cgroup_set_limits(h->cgroups, "kubepods", &root, CGROUP_MEMORY, reterr);
        }
        if (r < 0)
                goto fail;
        *ret = h;
        return 0;
fail:
        pod_host_free(h);
        return r;
}

struct pod_host *pod_host_free(struct pod_host *h)
{
        if (!h)
                return NULL;
        prober_free(h->prober); /* first: its threads wake the agent */
        h->exits = exit_watch_free(h->exits);
        h->puller = image_puller_free(h->puller);
        for (size_t i = 0; i < h->n_pods; i++)
                pod_memory_free(h->pods[i]);
        free(h->pods);
        cgroup_manager_free(h->cgroups);
        json_decref(h->mounted_claims);
        pthread_mutex_destroy(&h->claims_lock);
        pthread_mutex_destroy(&h->pods_lock);
        pthread_mutex_destroy(&h->admit_lock);
        pthread_mutex_destroy(&h->loop_lock);
        pthread_mutex_destroy(&h->userns_lock);
        free(h->node_name);
        pod_userns_free(h);
        free(h->data_dir);
        free(h->pods_dir);
        free(h->service_host);
        free(h);
        return NULL;
}

char *pod_host_container_run_dir(struct pod_host *h, const char *uid, const char *name, int back)
{
        cleanup_free char *dir = xasprintf("%s/%s", h->pods_dir, uid);
        int run = latest_run_in(dir, name) - back;

        return run < 0 ? NULL : runtime_container_dir(h->data_dir, uid, name, (unsigned) run);
}

json_t *pod_host_known_uids(struct pod_host *h)
{
        json_t *uids = json_array();
        DIR *d = opendir(h->pods_dir);
        struct dirent *e;

        if (!d)
                return uids;
        while ((e = readdir(d)))
                if (e->d_name[0] != '.')
                        json_array_append_new(uids, json_string(e->d_name));
        closedir(d);
        return uids;
}

/* ------------------------------------------------------------------ pod folder and cgroups */

/* Loads pod.json, or writes it for a pod seen for the first time. */
static int pod_record_load(struct pod_host *h, struct pod_memory *p, const json_t *pod,
                           struct error **reterr)
{
        cleanup_json json_t *rec = NULL;
        int r, dfd;

        r = fs_mkdir_p(p->dir, 0700);
        if (r < 0)
                return error_set(reterr, -r, "create %s: %s", p->dir, strerror(-r));
        dfd = open(p->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return error_set(reterr, errno, "open %s: %m", p->dir);
        r = fs_read_json_at(dfd, "pod.json", &rec);
        if (r == -ENOENT) {
                p->cgroup = pod_cgroup_path(pod_qos_class_stored(pod), p->uid);
                p->start_time = time(NULL);
                rec = json_pack("{s:s, s:s, s:s, s:I}", "namespace",
                                json_path_string(pod, "metadata.namespace") ?: "", "name",
                                json_path_string(pod, "metadata.name") ?: "", "cgroup", p->cgroup,
                                "startTime", (json_int_t) p->start_time);
                r = fs_write_json_atomic(dfd, "pod.json", rec);
                p->first_seen_ms = time_monotonic_ms();
        } else if (r >= 0) {
                const char *cg = json_string_value(json_object_get(rec, "cgroup"));
                p->cgroup = xstrdup(cg ?: "");
                p->start_time = (time_t) json_integer_value(json_object_get(rec, "startTime"));
                p->released = json_is_true(json_object_get(rec, "released"));
        }
        (void) close(dfd);
        if (r < 0)
                return error_set(reterr, -r, "pod state %s/pod.json: %s", p->dir, strerror(-r));
        return 0;
}

/* Records in pod.json that the pod has ended here and its resources are (being) released, before
 * the first of them goes: an agent that restarts midway finishes the release instead of setting
 * the pod up again. */
static int pod_record_mark_released(struct pod_memory *p, struct error **reterr)
{
        cleanup_json json_t *rec = NULL;
        int r, dfd = open(p->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        if (dfd < 0)
                return error_set(reterr, errno, "open %s: %m", p->dir);
        r = fs_read_json_at(dfd, "pod.json", &rec);
        if (r >= 0 && !json_is_object(rec))
                r = -EINVAL;
        if (r >= 0) {
                json_object_set_new(rec, "released", json_true());
                r = fs_write_json_atomic(dfd, "pod.json", rec);
        }
        (void) close(dfd);
        if (r < 0)
                return error_set(reterr, -r, "pod state %s/pod.json: %s", p->dir, strerror(-r));
        p->released = true;
        return 0;
}

static int pod_cgroups_setup(struct pod_host *h, struct pod_memory *p, const json_t *pod,
                             struct error **reterr)
{
        struct pod_cgroup_config cfg;
        struct cgroup_limits l;
        cleanup_free char *sandbox = xasprintf("%s/sandbox", p->cgroup);
        int r;

        r = cgroup_create(h->cgroups, p->cgroup, reterr);
        if (r < 0)
                return r;
        if (json_object_get(p->actuated, "pod")) {
                /* set up before this process: the resize plan takes it from there, in order */
                return cgroup_create(h->cgroups, sandbox, reterr);
        }
        r = pod_cgroup_config(pod, NULL, true, &cfg);
        if (r < 0)
                return error_set(reterr, -r, "pod resources: %s", strerror(-r));
        l = (struct cgroup_limits){ .cpu_shares = cfg.cpu_shares,
                                    .cpu_quota_us = cfg.cpu_quota_us,
                                    .cpu_period_us = cfg.cpu_period_us,
                                    .memory_limit_bytes = cfg.memory_limit_bytes };
        r = cgroup_set_limits(h->cgroups, p->cgroup, &l, CGROUP_ALL_LIMITS, reterr);
        if (r < 0)
                return r;
        pod_actuated_cgroup(p, NULL, &cfg);
        return cgroup_create(h->cgroups, sandbox, reterr);
}

/* K8S SetVolumeOwnership, after the volume's SetUp (emptyDir, claims; hostPath is not
 * supported here and would not get it): before any container runs, at every setup of the pod's
 * volumes in this agent process. */
static int volume_fs_group(const struct pod_memory *p, const char *name, gid_t gid,
                           enum volume_fsgroup_policy policy, bool read_only, struct error **reterr)
{
        cleanup_free char *path = volume_path(p, name);
        int r = volume_ownership_set(path, gid, policy, read_only, reterr);

        return r < 0 ? r : 0;
}

/* ------------------------------------------------------------------ AtomicWriter volumes */

static int no_object_lookup(void *ud, const char *resource, const char *ns, const char *name,
                            json_t **ret, struct error **reterr)
{
        return error_set(reterr, ENOTSUP, "couldn't get %s %s/%s, no kubeClient defined",
                         streq(resource, "secrets") ? "secret" : "configMap", ns, name);
}

/* pod_token_fn over the host's token manager: the request the projected plugin makes (K8S
 * collectData: the pod's account, bound to the Pod by name and uid). */
static int pod_token(void *ud, const json_t *pod, const char *audience, int64_t expiration_seconds,
                     char **ret_token, struct error **reterr)
{
        struct pod_host *h = ud;
        const struct token_request req = {
                .ns = json_path_string_or_empty(pod, "metadata.namespace"),
                .service_account = json_path_string_or_empty(pod, "spec.serviceAccountName"),
                .audience = audience,
                .expiration_seconds = expiration_seconds,
                .pod_name = json_path_string_or_empty(pod, "metadata.name"),
                .pod_uid = json_path_string_or_empty(pod, "metadata.uid"),
        };

        return token_manager_get(h->tokens, &req, time(NULL), ret_token, reterr);
}

struct payload_perms {
        const char *path;
        gid_t gid;
};

/* K8S: the configMap, secret, downwardAPI and projected plugins' setPerms: SetVolumeOwnership
 * of the whole volume with the fsGroup, read-only masks (their mounts are read-only), policy
 * nil (Always). */
static int payload_set_perms(void *ud, struct error **reterr)
{
        const struct payload_perms *pp = ud;
        int r = volume_ownership_set(pp->path, pp->gid, VOLUME_FSGROUP_ALWAYS, true, reterr);

        return r < 0 ? r : 0;
}

/* What a payload write puts in a volume, as one number: its files' paths, bytes, modes and
 * owners, and the group they are given. */
static uint64_t payload_digest(const struct atomic_payload *payload,
                               const struct payload_perms *perms, int fs)
{
        uint64_t h = HASH_FNV_OFFSET;

        for (size_t i = 0; i < payload->n; i++) {
                const struct atomic_file *f = &payload->files[i];

                h = hash_fnv1a(h, f->path, strlen(f->path) + 1);
                h = hash_fnv1a(h, &f->len, sizeof(f->len));
                h = hash_fnv1a(h, f->data, f->len);
                h = hash_fnv1a(h, &f->mode, sizeof(f->mode));
                h = hash_fnv1a(h, &f->owned, sizeof(f->owned));
                if (f->owned) /* owner is set only then */
                        h = hash_fnv1a(h, &f->owner, sizeof(f->owner));
        }
        h = hash_fnv1a(h, &fs, sizeof(fs));
        return hash_fnv1a(h, &perms->gid, sizeof(perms->gid));
}

/* Computes the payload of volume v of pod and has the AtomicWriter write it into its folder
 * (a no-op when the files hold it already): 1 written, 0 unchanged. With trust_last, a payload
 * equal to the one this process last wrote there is taken as unchanged without reading the
 * volume (the light step's refresh, and a full step's but every STEADY_FULL_S, which compares
 * with the files again). */
static int payload_write(struct pod_host *h, struct pod_memory *p, const json_t *pod,
                         const json_t *v, bool trust_last, struct error **reterr)
{
        const char *name = json_string_value(json_object_get(v, "name"));
        struct pod_payload_node node = { .allocatable_milli_cpu = h->allocatable_milli_cpu,
                                         .allocatable_memory = h->allocatable_memory,
                                         .token = h->tokens ? pod_token : NULL,
                                         .token_ud = h };
        struct atomic_payload payload = { 0 };
        enum volume_fsgroup_policy policy;
        struct payload_perms perms = { 0 };
        cleanup_free char *path = volume_path(p, name);
        cleanup_close int dfd = -1;
        uint64_t digest = 0;
        int fs = 0, r;

        r = pod_payload_build(pod, v, h->object_lookup ?: no_object_lookup, h->object_ud, &node,
                              &payload, reterr);
        if (r >= 0) {
                fs = pod_security_fs_group(pod, &perms.gid, &policy, reterr);
                r = fs < 0 ? fs : 0;
                perms.path = path;
        }
        if (r >= 0) {
                const json_t *last = json_object_get(p->payload_digests, name);

                digest = payload_digest(&payload, &perms, fs);
                if (trust_last && last && (uint64_t) json_integer_value(last) == digest) {
                        atomic_payload_release(&payload);
                        return 0;
                }
                /* until this write succeeds, the last one is no longer known to be there */
                if (p->payload_digests)
                        json_object_del(p->payload_digests, name);
        }
        if (r >= 0) {
                dfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (dfd < 0)
                        r = error_set(reterr, errno, "open \"%s\": %s", path, strerror(errno));
        }
        if (r >= 0)
                r = atomic_writer_write(dfd, &payload, fs > 0 ? payload_set_perms : NULL, &perms,
                                        reterr);
        if (r >= 0) {
                if (!p->payload_digests)
                        p->payload_digests = json_object();
                json_object_set_new(p->payload_digests, name, json_integer((json_int_t) digest));
        }
        atomic_payload_release(&payload);
        return r;
}

/* K8S: the operation executor's FailedMount event, `MountVolume.SetUp failed for volume "x" :
 * <cause>`, once per distinct message until the volumes are fine again (the API's event series
 * counts repeats upstream). Not for -EAGAIN: the agent has not listed the objects yet. */
static void payload_failed(struct pod_memory *p, struct pod_events *ev, const char *name, int r,
                           const struct error *err)
{
        cleanup_free char *message = NULL;

        if (r == -EAGAIN)
                return;
        message = xasprintf("MountVolume.SetUp failed for volume \"%s\" : %s", name,
                            err ? err->message : strerror(-r));
        if (!p->payload_errors)
                p->payload_errors = json_object();
        if (json_object_get(p->payload_errors, message))
                return;
        json_object_set_new(p->payload_errors, message, json_true());
        add_event(ev, "Warning", "FailedMount", TAKE_PTR(message));
}

/* K8S: SetUp of such a volume: its tmpfs (the kubelet wraps the volume in a Memory emptyDir
 * for secret, downwardAPI and projected; the same here for configMap, so no payload counts
 * against the node's disk), sized as that emptyDir (KEP-1967), then the payload. */
static int payload_volume_setup(struct pod_host *h, struct pod_memory *p, const json_t *pod,
                                const json_t *v, int64_t pod_limit, struct pod_events *ev,
                                struct error **reterr)
{
        const char *name = json_string_value(json_object_get(v, "name"));
        cleanup_free char *path = volume_path(p, name);
        cleanup_error struct error *err = NULL;
        int r;

        r = emptydir_setup(path, EMPTYDIR_MEDIUM_MEMORY,
                           emptydir_memory_size(h->allocatable_memory, pod_limit, NULL), &err);
        if (r >= 0)
                r = payload_write(h, p, pod, v, false, &err);
        if (r < 0) {
                payload_failed(p, ev, name, r, err);
                return error_set(reterr, -r,
                                 "unmounted volumes=[%s], unattached volumes=[], failed to "
                                 "process volumes=[]: %s",
                                 name, err ? err->message : strerror(-r));
        }
        return 0;
}

/* K8S: the kubelet's volume manager sets these volumes up again while the pod runs
 * (RequiresRemount), so a changed ConfigMap or Secret (the agent's informer wakes the pod),
 * label or annotation (its watch does) or resize (the spec's resources, as upstream reads
 * them: kubernetes/kubernetes#130801) reaches the files. A failure keeps the files as they
 * were. A subPath mount of such a volume is a bind of one file made at the container's start:
 * it keeps the old file, as upstream. */
static void payload_volumes_refresh(struct step *s, bool trust_last)
{
        bool failed = false;
        size_t i;
        json_t *v;

        json_array_foreach(json_path(s->pod, "spec.volumes"), i, v) {
                cleanup_error struct error *err = NULL;
                int r;

                if (!pod_payload_volume(v) || !json_string_value(json_object_get(v, "name")))
                        continue;
                r = payload_write(s->h, s->p, s->pod, v, trust_last, &err);
                if (r < 0) {
                        payload_failed(s->p, s->ev, json_string_value(json_object_get(v, "name")),
                                       r, err);
                        failed = true;
                }
        }
        /* a later failure with the same words is news again */
        if (!failed && s->p->payload_errors) {
                json_decref(s->p->payload_errors);
                s->p->payload_errors = NULL;
        }
}

/* Makes every volume of the pod ready (pod: with its allocated resources; spec_pod: as the API
 * has it, which the downward API reads). The first volume that cannot be is named in *reterr. */
static int pod_volumes_setup(struct pod_host *h, struct pod_memory *p, const json_t *pod,
                             const json_t *spec_pod, struct pod_events *ev, struct error **reterr)
{
        enum volume_fsgroup_policy fs_policy;
        int64_t pod_limit = -1;
        gid_t fs_group;
        int fs;
        size_t i;
        json_t *v;

        (void) pod_memory_limit(pod, NULL, &pod_limit);
        if ((fs = pod_security_fs_group(pod, &fs_group, &fs_policy, reterr)) < 0)
                return fs;
        json_array_foreach(json_path(pod, "spec.volumes"), i, v) {
                const char *name = json_string_value(json_object_get(v, "name"));
                const json_t *ed = json_object_get(v, "emptyDir");
                cleanup_free char *path = NULL;
                enum emptydir_medium medium;
                int64_t size = 0, start_ms;
                int r;

                if (!name)
                        continue;
                if (!ed && pod_payload_volume(v)) {
                        r = payload_volume_setup(h, p, spec_pod, v, pod_limit, ev, reterr);
                        if (r < 0)
                                return r;
                        continue;
                }
                if (!ed) {
                        const char *claim =
                                json_path_string(v, "persistentVolumeClaim.claimName") ?: "";
                        r = pod_claim_setup(h, p, pod, name, claim, ev, reterr);
                        if (r >= 0 && fs)
                                r = volume_fs_group(p, name, fs_group, fs_policy,
                                                    json_is_true(json_path(
                                                            v, "persistentVolumeClaim.readOnly")),
                                                    reterr);
                        if (r < 0)
                                return error_wrap(reterr,
                                                  "unmounted volumes=[%s], unattached volumes=[], "
                                                  "failed to process volumes=[%s]",
                                                  name, name);
                        continue;
                }
                r = emptydir_medium_from_string(json_string_value(json_object_get(ed, "medium")),
                                                &medium);
                if (r < 0)
                        return error_set(reterr, -r, "volume \"%s\": medium %s is not supported",
                                         name,
                                         json_string_value(json_object_get(ed, "medium")) ?: "");
                if (medium == EMPTYDIR_MEDIUM_MEMORY) {
                        const json_t *was =
                                json_object_get(json_object_get(p->actuated, "volumes"), name);
                        /* a size set before this process stays until the plan changes it */
                        size = json_is_integer(was)
                                       ? json_integer_value(was)
                                       : emptydir_memory_size(h->allocatable_memory, pod_limit,
                                                              json_string_value(json_object_get(
                                                                      ed, "sizeLimit")));
                }
                path = volume_path(p, name);
                start_ms = time_monotonic_ms();
                r = emptydir_setup(path, medium, size, reterr);
                storage_operation_observe(storage_operations(h), STORAGE_PLUGIN_EMPTY_DIR,
                                          "volume_mount", r, start_ms);
                if (r >= 0 && fs)
                        r = volume_fs_group(p, name, fs_group, fs_policy, false, reterr);
                if (r < 0)
                        return error_wrap(reterr, "volume \"%s\"", name);
                if (medium == EMPTYDIR_MEDIUM_MEMORY)
                        pod_actuated_volume(p, name, size);
        }
        return 0;
}

/* K8S: emptyDirLimitEviction: a disk emptyDir whose usage (du) went over its sizeLimit evicts
 * the pod. A memory emptyDir cannot outgrow its tmpfs (the kernel refuses the write), so only
 * disk volumes are measured. The eviction message, or NULL. */
static char *volume_over_limit(const struct pod_memory *p, const json_t *pod)
{
        size_t i;
        json_t *v;

        json_array_foreach(json_path(pod, "spec.volumes"), i, v) {
                const char *name = json_string_value(json_object_get(v, "name"));
                const json_t *ed = json_object_get(v, "emptyDir");
                const char *limit = json_string_value(json_object_get(ed, "sizeLimit"));
                const char *medium = json_string_value(json_object_get(ed, "medium"));
                cleanup_free char *path = NULL;
                struct quantity q;
                int64_t limit_bytes, used = 0;

                if (!name || !limit || (medium && *medium) || quantity_parse(limit, &q, NULL) < 0 ||
                    quantity_value(&q, &limit_bytes) < 0 || limit_bytes <= 0)
                        continue;
                path = volume_path(p, name);
                if (emptydir_disk_usage(path, &used, NULL) < 0 || used <= limit_bytes)
                        continue;
                return xasprintf("Usage of EmptyDir volume \"%s\" exceeds the limit \"%s\". ", name,
                                 limit);
        }
        return NULL;
}

/* ------------------------------------------------------------------ containers */

static bool is_sidecar(const json_t *c)
{
        const char *rp = json_string_value(json_object_get(c, "restartPolicy"));
        return rp && streq(rp, "Always");
}

const char *keep(struct step *s, char *str)
{
        if (!str)
                return NULL;
        s->strings = xrealloc(s->strings, (s->n_strings + 1) * sizeof(*s->strings));
        s->strings[s->n_strings++] = str;
        return str;
}

static const json_t *keep_json(struct step *s, json_t *v)
{
        if (!v)
                return NULL;
        json_array_append_new(s->json, v);
        return v;
}

/* How run n of a container ended: from the runtime's exit record, and OOMKilled when the run's
 * cgroup counted an OOM kill (recorded in exits/ the first time, then the cgroup goes). */
static void run_termination(struct step *s, const char *name, int run,
                            const struct runtime_container_status *st,
                            struct container_termination *ret)
{
        cleanup_free char *exits = xasprintf("%s/exits", s->p->dir);
        cleanup_free char *file = xasprintf("%s-%d.json", name, run);
        cleanup_json json_t *rec = NULL;
        int dfd;

        (void) fs_mkdir_p(exits, 0700);
        dfd = open(exits, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd >= 0 && fs_read_json_at(dfd, file, &rec) < 0) {
                cleanup_free char *cg = run_cgroup(s->p, name, run);
                uint64_t kills = 0;
                bool oom = cgroup_oom_kills(s->h->cgroups, cg, &kills, NULL) >= 0 && kills > 0;

                rec = json_pack("{s:b}", "oomKilled", oom);
                if (fs_write_json_atomic(dfd, file, rec) >= 0)
                        (void) cgroup_destroy(s->h->cgroups, cg, NULL);
        }
        if (dfd >= 0)
                (void) close(dfd);
        *ret = (struct container_termination){
                .exit_code = st->exit_code,
                .signal = st->signal,
                .reason = json_is_true(json_object_get(rec, "oomKilled"))
                                  ? "OOMKilled"
                                  : keep(s, st->reason ? xstrdup(st->reason) : NULL),
                .message = keep(s, st->message ? xstrdup(st->message) : NULL),
                .started_at = st->started_at.tv_sec,
                .finished_at = st->finished_at.tv_sec,
        };
}

/* The runtime's view of run n; -ENOENT when it has none. */
static int run_state(struct step *s, const char *name, int run,
                     struct runtime_container_status *ret)
{
        cleanup_free char *dir = run_dir(s->h, s->p, name, run);

        return runtime_container_state(dir, ret, NULL);
}

static json_t *resource_list_get(const json_t *spec_container, const char *which)
{
        return json_object_get(json_object_get(spec_container, "resources"), which);
}

/* K8S: status.containerStatuses[].resources: the allocated resources with what the kernel
 * has for cpu requests (shares), cpu limits (quota) and memory limits. */
static json_t *actual_resources(struct step *s, const json_t *spec, const char *cgroup)
{
        const json_t *req = resource_list_get(spec, "requests"),
                     *lim = resource_list_get(spec, "limits");
        struct cgroup_limits l;
        struct pod_cgroup_config actual;
        json_t *out;

        if (!req && !lim)
                return NULL;
        if (cgroup_get_limits(s->h->cgroups, cgroup, &l, NULL) < 0)
                return NULL;
        actual = (struct pod_cgroup_config){ .cpu_shares = l.cpu_shares,
                                             .cpu_quota_us = l.cpu_quota_us,
                                             .cpu_period_us = l.cpu_period_us,
                                             .memory_limit_bytes = l.memory_limit_bytes };
        if (cgroup_manager_version(s->h->cgroups) == CGROUP_V2 && l.cpu_weight > 0)
                actual.cpu_shares = pod_status_cpu_shares_from_weight(req, l.cpu_weight);
        out = pod_status_container_resources(req, lim, &actual);
        return out;
}

static bool host_network(const json_t *pod)
{
        return json_is_true(json_path(pod, "spec.hostNetwork"));
}

/* The pod's IP: the node's on the host network, else its sandbox's once attached. */
static const char *pod_ip_of(const struct step *s)
{
        if (host_network(s->pod) || !s->h->network)
                return s->h->host_ip;
        return s->p->pod_ip;
}

/* K8S: fieldpath.ExtractFieldPathAsString's metadata.annotations['KEY'] and
 * metadata.labels['KEY']: the value, "" when the key is absent; NULL when path is not of that
 * shape. Borrowed from pod. */
static const char *field_ref_map_value(const json_t *pod, const char *path)
{
        bool annotations = strncmp(path, "metadata.annotations['", 22) == 0;
        const char *key = path + (annotations ? 22 : 17);
        size_t n = strlen(key);
        char buf[320];

        if (n < 2 || n - 2 >= sizeof(buf) || strcmp(key + n - 2, "']") != 0)
                return NULL;
        memcpy(buf, key, n - 2);
        buf[n - 2] = '\0';
        return json_string_value(json_object_get(
                       json_path(pod, annotations ? "metadata.annotations" : "metadata.labels"),
                       buf))
                       ?: "";
}

/* The env of a container: value (expanded by the runtime), valueFrom.fieldRef,
 * configMapKeyRef and secretKeyRef, and envFrom (node/pod-config.h) resolved here. *ret_error
 * names what cannot be resolved (K8S: CreateContainerConfigError). */
static struct runtime_env_var *container_env(struct step *s, const json_t *c, size_t *ret_n,
                                             char **ret_error)
{
        const json_t *env = json_object_get(c, "env");
        pod_object_lookup_fn lookup = s->h->object_lookup ?: no_object_lookup;
        cleanup_json json_t *from_vars = NULL, *warnings = NULL;
        cleanup_error struct error *err = NULL;
        struct runtime_env_var *out;
        const char *pod_ip = pod_ip_of(s);
        size_t i, n = 0;
        const char *key;
        json_t *e;

        /* K8S: envFrom first; env entries then override what it gave */
        if (pod_config_env_from(s->pod, c, lookup, s->h->object_ud, &from_vars, &warnings, &err) <
            0) {
                *ret_error = xstrdup(err->message);
                return NULL;
        }
        json_array_foreach(warnings, i, e)
                add_event(s->ev, "Warning", "InvalidEnvironmentVariableNames",
                          xstrdup(json_string_value(e)));
        out = xcalloc(json_array_size(env) + json_object_size(from_vars) + 9, sizeof(*out));

        /* K8S: the master service's variables (kubelet getServiceEnvVarMap, always given),
         * declared before the container's own so those can use and override them */
        if (s->h->service_host) {
                const char *host = s->h->service_host;
                unsigned port = s->h->service_port;
                const char *url = keep(s, xasprintf("tcp://%s:%u", host, port));
                const char *p = keep(s, xasprintf("%u", port));
                struct runtime_env_var svc[] = {
                        { .name = "KUBERNETES_SERVICE_HOST", .value = host },
                        { .name = "KUBERNETES_SERVICE_PORT", .value = p },
                        { .name = "KUBERNETES_SERVICE_PORT_HTTPS", .value = p },
                        { .name = "KUBERNETES_PORT", .value = url },
                        { .name = keep(s, xasprintf("KUBERNETES_PORT_%u_TCP", port)),
                          .value = url },
                        { .name = keep(s, xasprintf("KUBERNETES_PORT_%u_TCP_PROTO", port)),
                          .value = "tcp" },
                        { .name = keep(s, xasprintf("KUBERNETES_PORT_%u_TCP_PORT", port)),
                          .value = p },
                        { .name = keep(s, xasprintf("KUBERNETES_PORT_%u_TCP_ADDR", port)),
                          .value = host },
                };
                for (size_t k = 0; k < ARRAY_SIZE(svc); k++) {
                        svc[k].literal = true;
                        out[n++] = svc[k];
                }
        }

        json_object_foreach(from_vars, key, e) {
                out[n++] =
                        (struct runtime_env_var){ .name = keep(s, xstrdup(key)),
                                                  .value = keep(s, xstrdup(json_string_value(e))),
                                                  .literal = true };
        }

        json_array_foreach(env, i, e) {
                const char *name = json_string_value(json_object_get(e, "name"));
                const json_t *from = json_object_get(e, "valueFrom");
                const char *path = json_path_string(from, "fieldRef.fieldPath");
                const char *value = NULL;

                if (!name)
                        continue;
                if (json_object_get(from, "configMapKeyRef") ||
                    json_object_get(from, "secretKeyRef")) {
                        char *v = NULL;
                        int r = pod_config_env_value(s->pod, from, lookup, s->h->object_ud, &v,
                                                     &err);

                        if (r < 0) {
                                *ret_error = xstrdup(err->message);
                                free(out);
                                return NULL;
                        }
                        /* 0: optional and missing, the variable is left out */
                        if (r > 0)
                                out[n++] = (struct runtime_env_var){ .name = name,
                                                                     .value = keep(s, v),
                                                                     .literal = true };
                        continue;
                }
                if (!from) {
                        out[n++] = (struct runtime_env_var){
                                .name = name,
                                .value = json_string_value(json_object_get(e, "value")) ?: ""
                        };
                        continue;
                }
                if (path && (streq(path, "metadata.name") || streq(path, "metadata.namespace") ||
                             streq(path, "metadata.uid") || streq(path, "spec.nodeName") ||
                             streq(path, "spec.serviceAccountName")))
                        value = json_path_string(s->pod, path) ?: "";
                else if (path && streq(path, "status.hostIP"))
                        value = s->h->host_ip;
                else if (path && (strncmp(path, "metadata.annotations['", 22) == 0 ||
                                  strncmp(path, "metadata.labels['", 17) == 0))
                        value = field_ref_map_value(s->pod, path);
                else if (path && streq(path, "status.podIP"))
                        value = pod_ip ?: "";
                if (!value) {
                        *ret_error = xasprintf("env var \"%s\": only value, "
                                               "valueFrom.configMapKeyRef, "
                                               "valueFrom.secretKeyRef and "
                                               "valueFrom.fieldRef (metadata.name, "
                                               "metadata.namespace, metadata.uid, "
                                               "metadata.labels['KEY'], "
                                               "metadata.annotations['KEY'], spec.nodeName, "
                                               "spec.serviceAccountName, status.hostIP, "
                                               "status.podIP) are supported",
                                               name);
                        free(out);
                        return NULL;
                }
                out[n++] =
                        (struct runtime_env_var){ .name = name, .value = value, .literal = true };
        }
        *ret_n = n;
        return out;
}

/* K8S makeMounts: the subPath of one volumeMount (subPathExpr expanded against the container's
 * env), checked and made inside its volume before the container starts. NULL and
 * *ret_error (the kubelet's words, CreateContainerConfigError) when it cannot be used. */
static const char *mount_sub_path(struct step *s, const json_t *m, const char *container,
                                  const char *volume_dir, const struct runtime_env_var *env,
                                  size_t n_env, char **ret_error)
{
        const char *name = json_string_value(json_object_get(m, "name")) ?: "";
        const char *sub = json_string_value(json_object_get(m, "subPath")) ?: "";
        const char *expr = json_string_value(json_object_get(m, "subPathExpr"));
        cleanup_error struct error *err = NULL;
        int r;

        if (expr && *expr) {
                char *expanded = NULL;
                if (runtime_subpath_expand(expr, env, n_env, &expanded, &err) < 0) {
                        *ret_error = xstrdup(err->message);
                        return NULL;
                }
                sub = keep(s, expanded);
        }
        if (!*sub)
                return "";
        if (sub[0] == '/') {
                *ret_error = xasprintf("error SubPath `%s` must not be an absolute path", sub);
                return NULL;
        }
        for (const char *p = sub; *p; p += strspn(p, "/")) {
                size_t n = strcspn(p, "/");
                if (n == 2 && p[0] == '.' && p[1] == '.') {
                        *ret_error = xasprintf("unable to provision SubPath `%s`: must not "
                                               "contain '..'",
                                               sub);
                        return NULL;
                }
                p += n;
        }
        /* K8S: a missing subPath is made (SafeMakeDir), then the whole of it must resolve
         * inside the volume (PrepareSafeSubpath). Upstream keeps the cause, which names host
         * paths, out of the pod's status; so does this. */
        r = runtime_subpath_check(volume_dir, sub, &err);
        if (r == -ENOENT) {
                err = error_free(err);
                if (runtime_subpath_mkdir(volume_dir, sub, &err) < 0) {
                        *ret_error = xasprintf("failed to create subPath directory for "
                                               "volumeMount \"%s\" of container \"%s\"",
                                               name, container);
                        return NULL;
                }
                r = runtime_subpath_check(volume_dir, sub, &err);
        }
        if (r < 0) {
                *ret_error = xasprintf("failed to prepare subPath for volumeMount \"%s\" of "
                                       "container \"%s\"",
                                       name, container);
                return NULL;
        }
        return sub;
}

/* The element of spec.volumes named name, or NULL. */
static const json_t *pod_volume_named(const json_t *pod, const char *name)
{
        size_t i;
        json_t *v;

        json_array_foreach(json_path(pod, "spec.volumes"), i, v)
                if (streq(json_string_value(json_object_get(v, "name")) ?: "", name))
                        return v;
        return NULL;
}

/* The container's volume mounts: each volume's folder, and its subPath apart (the runtime
 * resolves it inside the volume again when it mounts). NULL and *ret_error when a subPath
 * cannot be used (K8S: CreateContainerConfigError). */
static struct runtime_mount *container_mounts(struct step *s, const json_t *c,
                                              const struct runtime_env_var *env, size_t n_env,
                                              size_t *ret_n, char **ret_error)
{
        const char *container = json_string_value(json_object_get(c, "name")) ?: "";
        const json_t *vms = json_object_get(c, "volumeMounts");
        struct runtime_mount *out = xcalloc(json_array_size(vms) + 1, sizeof(*out));
        size_t i, n = 0;
        json_t *m;

        json_array_foreach(vms, i, m) {
                const char *vol = json_string_value(json_object_get(m, "name"));
                const char *src, *sub;

                if (!vol)
                        continue;
                src = keep(s, volume_path(s->p, vol));
                sub = mount_sub_path(s, m, container, src, env, n_env, ret_error);
                if (!sub) {
                        free(out);
                        return NULL;
                }
                out[n++] = (struct runtime_mount){
                        .source = src,
                        .sub_path = sub,
                        .target = json_string_value(json_object_get(m, "mountPath")) ?: "/",
                        /* K8S makeMounts: mount.ReadOnly || the plugin's ReadOnly attribute,
                         * which configMap, secret, downwardAPI and projected have */
                        .read_only = json_is_true(json_object_get(m, "readOnly")) ||
                                     pod_payload_volume(pod_volume_named(s->pod, vol)),
                };
        }
        *ret_n = n;
        return out;
}

static const char *const *strv_of(const json_t *arr, const char ***holder)
{
        size_t i, n = json_array_size(arr);
        json_t *v;

        if (!n)
                return NULL;
        *holder = xcalloc(n + 1, sizeof(**holder));
        json_array_foreach(arr, i, v)
                (*holder)[i] = json_string_value(v) ?: "";
        return *holder;
}

static bool backoff_waiting(const struct backoff *b, time_t event_time, time_t now)
{
        /* K8S: IsInBackOffSince: an entry not expired, and less than its delay since the event */
        if (!b->delay_s || now - b->updated > 2 * BACKOFF_MAX_S)
                return false;
        return now - event_time < b->delay_s;
}

static void backoff_next(struct backoff *b, time_t now)
{
        if (!b->delay_s || now - b->updated > 2 * BACKOFF_MAX_S)
                b->delay_s = BACKOFF_INITIAL_S;
        else if (b->delay_s < BACKOFF_MAX_S)
                b->delay_s = b->delay_s * 2 > BACKOFF_MAX_S ? BACKOFF_MAX_S : b->delay_s * 2;
        b->updated = now;
}

/* K8S: the container_type label: "init_container" or "container". */
static const char *container_type(const struct step *s, const json_t *c)
{
        size_t i;
        json_t *x;

        json_array_foreach(json_path(s->alloc_pod, "spec.initContainers"), i, x)
                if (x == c)
                        return "init_container";
        return "container";
}

static void count_start(const struct step *s, const json_t *c, const char *error_code)
{
        const char *type = container_type(s, c);
        const char *ok_labels[] = { type, NULL };
        const char *err_labels[] = { error_code, type, NULL };

        if (!s->h->metrics)
                return;
        if (error_code)
                (void) metrics_add(s->h->metrics->started_container_errors, err_labels, 1);
        else
                (void) metrics_add(s->h->metrics->started_containers, ok_labels, 1);
}

/* Starts run cm->latest + 1 of container c. The observation says what happened: running,
 * exited at once (StartError), or waiting with the image or config error. */
static void start_container(struct step *s, const json_t *c, struct container_memory *cm,
                            struct container_observation *o)
{
        const char *name = cm->name, *image = json_string_value(json_object_get(c, "image")) ?: "";
        const char *policy = json_string_value(json_object_get(c, "imagePullPolicy")) ?: "";
        cleanup_free char *key = NULL; /* the puller's: "<pod uid>/<container>" */
        bool pulled = false;
        struct runtime_image img = { 0 };
        struct runtime_container_spec spec = { 0 };
        struct pod_security security = { 0 };
        cleanup_error struct error *err = NULL;
        cleanup_free struct runtime_env_var *env = NULL;
        cleanup_free struct runtime_mount *mounts = NULL;
        cleanup_free const char **cmd = NULL, **args = NULL;
        cleanup_free char *dir = NULL, *cg = NULL, *sandbox = NULL, *env_error = NULL;
        char **procs = NULL;
        struct pod_cgroup_config cfg;
        struct cgroup_limits l;
        int run = cm->latest + 1, r;

        if (backoff_waiting(&cm->pull, cm->pull.updated, s->now) && cm->pull_message &&
            s->now - cm->pull.updated < NETWORK_RETRY_S) {
                /* K8S: a failed sync is retried by the pod worker after its backOffPeriod, so
                 * ErrImagePull shows that long before the next sync reports the back-off */
                o->phase = CONTAINER_WAITING;
                o->waiting_reason = "ErrImagePull";
                o->waiting_message = keep(s, xstrdup(cm->pull_message));
                return;
        }
        if (backoff_waiting(&cm->pull, cm->pull.updated, s->now)) {
                /* K8S: image_manager.go's BackOff event, once per wait here */
                if (!cm->pull_backoff_reported)
                        add_event(s->ev, "Normal", "BackOff",
                                  xasprintf("Back-off pulling image \"%s\"", image));
                cm->pull_backoff_reported = true;
                o->phase = CONTAINER_WAITING;
                o->waiting_reason = "ImagePullBackOff";
                o->waiting_message = keep(s, xasprintf("Back-off pulling image \"%s\"", image));
                return;
        }
        r = runtime_image_ensure(s->h->data_dir, image, &img, &err);
        if (r == -ENOENT && streq(policy, "Never")) {
                /* K8S: pkg/kubelet/images/image_manager.go EnsureImageExists: an absent image
                 * under pull policy Never is ErrImageNeverPull, its event of that name, and no
                 * pull back-off (the next sync looks again). */
                cleanup_free char *msg = xasprintf(
                        "Container image \"%s\" is not present with pull policy of Never", image);

                add_event(s->ev, "Warning", "ErrImageNeverPull", xstrdup(msg));
                o->phase = CONTAINER_WAITING;
                o->waiting_reason = "ErrImageNeverPull";
                o->waiting_message = keep(s, TAKE_PTR(msg));
                count_start(s, c, o->waiting_reason);
                return;
        }
        /* K8S: shouldPullImage: absent, or Always (once per start); the built-in busybox is
         * never pulled. The pull runs on its own thread (node/image-puller.h). */
        key = xasprintf("%s/%s", s->p->uid, name);
        if (s->h->puller && r != -EINVAL &&
            ((r == -ENOENT) ||
             (r == 0 && !img.builtin && streq(policy, "Always") && cm->pulled_run != run) ||
             image_puller_has(s->h->puller, key))) {
                cleanup_free char *msg = NULL;
                const struct image_pull_request q = { .key = key,
                                                      .image = image,
                                                      .pod = s->pod,
                                                      .lookup = s->h->object_lookup,
                                                      .lookup_ud = s->h->object_ud };
                enum image_pull_state ps = image_puller_step(s->h->puller, &q, s->ev, &msg);

                runtime_image_release(&img);
                err = error_free(err);
                if (ps == IMAGE_PULL_RUNNING || ps == IMAGE_PULL_NONE) {
                        o->phase = CONTAINER_WAITING; /* K8S: the kubelet's state while pulling */
                        o->waiting_reason = "ContainerCreating";
                        return;
                }
                if (ps == IMAGE_PULL_FAILED) {
                        backoff_next(&cm->pull, s->now);
                        cm->pull_backoff_reported = false;
                        free(cm->pull_message);
                        cm->pull_message = xstrdup(msg);
                        o->phase = CONTAINER_WAITING;
                        o->waiting_reason = "ErrImagePull";
                        o->waiting_message = keep(s, TAKE_PTR(msg));
                        count_start(s, c, o->waiting_reason);
                        return;
                }
                cm->pulled_run = run;
                r = runtime_image_ensure(s->h->data_dir, image, &img, &err);
                pulled = true;
        }
        if (r < 0) {
                const char *reason = r == -EINVAL ? "InvalidImageName" : "ErrImagePull";
                backoff_next(&cm->pull, s->now);
                cm->pull_backoff_reported = false;
                add_event(s->ev, "Warning", r == -EINVAL ? "InspectFailed" : "Failed",
                          r == -EINVAL ? xasprintf("Failed to apply default image tag \"%s\": %s",
                                                   image, err->message)
                                       : xasprintf("Failed to pull image \"%s\": %s", image,
                                                   err->message));
                o->phase = CONTAINER_WAITING;
                o->waiting_reason = reason;
                o->waiting_message = keep(s, xstrdup(err->message));
                count_start(s, c, reason);
                return;
        }
        cm->pull = (struct backoff){ 0 };
        free(cm->pull_message);
        cm->pull_message = NULL;
        if (!pulled)
                add_event(s->ev, "Normal", "Pulled",
                          xasprintf("Container image \"%s\" already present on machine", image));

        env = container_env(s, c, &spec.n_env, &env_error);
        if (!env) {
                add_event(s->ev, "Warning", "Failed", xasprintf("Error: %s", env_error));
                o->phase = CONTAINER_WAITING;
                o->waiting_reason = "CreateContainerConfigError";
                o->waiting_message = keep(s, TAKE_PTR(env_error));
                count_start(s, c, o->waiting_reason);
                runtime_image_release(&img);
                return;
        }
        /* K8S: the securityContext checks of generateContainerConfig */
        r = pod_security_resolve(s->pod, c, img.user, &security, &err);
        if (r < 0) {
                add_event(s->ev, "Warning", "Failed", xasprintf("Error: %s", err->message));
                o->phase = CONTAINER_WAITING;
                o->waiting_reason = "CreateContainerConfigError";
                o->waiting_message = keep(s, xstrdup(err->message));
                count_start(s, c, o->waiting_reason);
                runtime_image_release(&img);
                return;
        }
        mounts = container_mounts(s, c, env, spec.n_env, &spec.n_mounts, &env_error);
        if (!mounts) {
                add_event(s->ev, "Warning", "Failed", xasprintf("Error: %s", env_error));
                o->phase = CONTAINER_WAITING;
                o->waiting_reason = "CreateContainerConfigError";
                o->waiting_message = keep(s, TAKE_PTR(env_error));
                count_start(s, c, o->waiting_reason);
                pod_security_release(&security);
                runtime_image_release(&img);
                return;
        }
        dir = run_dir(s->h, s->p, name, run);
        cg = run_cgroup(s->p, name, run);
        sandbox = runtime_sandbox_dir(s->h->data_dir, s->p->uid);
        /* K8S KEP-127: every volume reached through an idmapped mount, or the container does
         * not start (never a volume left unmapped) */
        for (size_t i = 0; s->p->userns_base && i < spec.n_mounts; i++) {
                if (runtime_userns_check_volume(sandbox, mounts[i].source, &err) >= 0)
                        continue;
                add_event(s->ev, "Warning", "Failed", xasprintf("Error: %s", err->message));
                o->phase = CONTAINER_WAITING;
                o->waiting_reason = "CreateContainerConfigError";
                o->waiting_message = keep(s, xstrdup(err->message));
                count_start(s, c, o->waiting_reason);
                pod_security_release(&security);
                runtime_image_release(&img);
                return;
        }
        /* a Localhost profile that cannot be loaded is the runtime's CreateContainerError */
        r = pod_security_load_profile(&security, s->h->data_dir, &err);
        if (r >= 0)
                r = container_cgroup_config(s->alloc_pod, name, NULL, true, &cfg);
        if (r >= 0)
                r = cgroup_create(s->h->cgroups, cg, &err);
        if (r >= 0) {
                l = (struct cgroup_limits){ .cpu_shares = cfg.cpu_shares,
                                            .cpu_quota_us = cfg.cpu_quota_us,
                                            .cpu_period_us = cfg.cpu_period_us,
                                            .memory_limit_bytes = cfg.memory_limit_bytes };
                r = cgroup_set_limits(s->h->cgroups, cg, &l, CGROUP_ALL_LIMITS | CGROUP_WEIGHT_OCI,
                                      &err);
        }
        /* runc: the device allowlist of an unprivileged container, every device for a
         * privileged one; set before the container's process joins the cgroup */
        if (r >= 0)
                r = cgroup_set_devices(s->h->cgroups, cg, security.sec.privileged, &err);
        if (r >= 0) {
                pod_actuated_cgroup(s->p, name, &cfg);
                r = cgroup_procs_paths(s->h->cgroups, cg, &procs, NULL, &err);
        }
        if (r >= 0) {
                runtime_container_spec_use_image(&spec, &img);
                spec.state_dir = dir;
                spec.sandbox_dir = sandbox;
                spec.command = strv_of(json_object_get(c, "command"), &cmd);
                spec.args = strv_of(json_object_get(c, "args"), &args);
                spec.working_dir = json_string_value(json_object_get(c, "workingDir"));
                /* K8S: terminationMessagePath (defaulted to /dev/termination-log) and its
                 * policy, File or FallbackToLogsOnError */
                spec.termination_message_path =
                        json_string_value(json_object_get(c, "terminationMessagePath"));
                spec.termination_message_fallback = streq(
                        json_string_value(json_object_get(c, "terminationMessagePolicy")) ?: "",
                        "FallbackToLogsOnError");
                /* K8S: the container's own stdin and terminal, for attach */
                spec.stdin_open = json_is_true(json_object_get(c, "stdin"));
                spec.stdin_once = json_is_true(json_object_get(c, "stdinOnce"));
                spec.tty = json_is_true(json_object_get(c, "tty"));
                spec.env = env;
                spec.mounts = mounts;
                spec.cgroup_procs = (const char *const *) procs;
                spec.uid = security.uid;
                spec.gid = security.gid;
                spec.security = security.sec;
                /* K8S: generateLinuxContainerConfig's OomScoreAdj, from the allocated pod */
                if (s->h->memory_capacity > 0 &&
                    container_oom_score_adj(s->alloc_pod, name, s->h->memory_capacity,
                                            &spec.oom_score_adj) == 0)
                        spec.oom_score_adj_set = true;
                r = runtime_container_start(&spec, &err);
        }
        pod_security_release(&security);
        cgroup_strv_free(procs);
        runtime_image_release(&img);
        if (r < 0) {
                /* K8S: CreateContainerError; tried again at the next step */
                (void) cgroup_destroy(s->h->cgroups, cg, NULL);
                add_event(s->ev, "Warning", "Failed",
                          xasprintf("Error: %s", err ? err->message : strerror(-r)));
                o->phase = CONTAINER_WAITING;
                o->waiting_reason = "CreateContainerError";
                o->waiting_message = keep(s, xstrdup(err ? err->message : strerror(-r)));
                count_start(s, c, o->waiting_reason);
                return;
        }
        count_start(s, c, NULL);
        cm->latest = run;
        cm->backoff_reported = false;
        add_event(s->ev, "Normal", "Created", xasprintf("Created container: %s", name));
        /* drop runs older than the previous one (kubectl logs -p reads the previous) */
        for (int old = run - KEEP_RUNS; old >= 0; old--) {
                cleanup_free char *odir = run_dir(s->h, s->p, name, old);
                if (access(odir, F_OK) < 0)
                        break;
                (void) runtime_container_remove(odir, NULL);
        }
}

/* Whether the pod's sandbox runs: known without a read while its watched end has not come
 * (no exit of the pod fired since the watch was added), else read, and watched when it runs. */
static bool sandbox_known_running(struct step *s, const char *sandbox)
{
        struct pod_memory *p = s->p;
        unsigned seen = __atomic_load_n(&p->exits_seen, __ATOMIC_ACQUIRE);
        pid_t pid;
        int fd;

        if (p->sandbox_watched && p->sandbox_watch_seen == seen)
                return true;
        p->sandbox_watched = false;
        if (runtime_sandbox_running(sandbox, &pid) != 1)
                return false;
        fd = s->h->exits ? runtime_sandbox_exit_fd(sandbox) : -1;
        if (fd >= 0) {
                exit_watch_add(s->h->exits, p->uid, "sandbox", fd);
                p->sandbox_watched = true;
                p->sandbox_watch_seen = seen;
        }
        return true;
}

/* Observes the container's newest run into o (the waiting reason of a container not started
 * is left to the caller). Returns the runtime phase, or -1 when never started. */
static int observe(struct step *s, const json_t *c, struct container_memory *cm,
                   struct container_observation *o)
{
        struct runtime_container_status st = { 0 }, prev = { 0 };
        unsigned seen = __atomic_load_n(&s->p->exits_seen, __ATOMIC_ACQUIRE);
        bool watched;
        char id[65];
        int phase;

        *o = (struct container_observation){ .name = cm->name, .phase = CONTAINER_WAITING };
        o->allocated = json_object_get(json_object_get(c, "resources"), "requests");
        if (cm->latest < 0)
                return -1;
        /* a watch added before the read, none of the pod's exits fired since: it has not ended */
        watched = s->h->exits && cm->exit_watched_run == cm->latest && cm->exit_watch_seen == seen;
        if (watched && cm->running_run == cm->latest) {
                st = (struct runtime_container_status){ .phase = RUNTIME_CONTAINER_RUNNING,
                                                        .started_at.tv_sec = cm->running_started_at,
                                                        .wait_status = -1 };
        } else if (run_state(s, cm->name, cm->latest, &st) < 0) {
                /* a run folder without state: the start did not get far; start again */
                cleanup_free char *dir = run_dir(s->h, s->p, cm->name, cm->latest);
                (void) runtime_container_remove(dir, NULL);
                cm->latest--;
                return observe(s, c, cm, o);
        }
        container_id(s->p->uid, cm->name, cm->latest, id);
        o->container_id = keep(s, xasprintf("flexlet://%s", id));
        o->image_id = keep(s, xstrdup(json_string_value(json_object_get(c, "image")) ?: ""));
        o->restart_count = cm->latest;
        phase = (int) st.phase;
        cm->running_run = -1;
        if (st.phase != RUNTIME_CONTAINER_EXITED && s->h->exits && !watched) {
                /* its exit wakes the pod at once, not at the next periodic pass; watched again
                 * after any exit of the pod fired (this run's watch may be the one that did) */
                cleanup_free char *dir = run_dir(s->h, s->p, cm->name, cm->latest);
                cleanup_free char *key = xasprintf("%s/%d", cm->name, cm->latest);
                int fd = runtime_container_exit_fd(dir, NULL);

                if (fd >= 0) {
                        exit_watch_add(s->h->exits, s->p->uid, key, fd);
                        cm->exit_watched_run = cm->latest;
                        cm->exit_watch_seen = seen;
                        watched = true;
                }
        }
        if (st.phase == RUNTIME_CONTAINER_RUNNING && watched) {
                cm->running_run = cm->latest;
                cm->running_started_at = st.started_at.tv_sec;
        }
        switch (st.phase) {
        case RUNTIME_CONTAINER_RUNNING:
                /* its resources are read once the step has actuated (observe_resources) */
                o->phase = CONTAINER_RUNNING;
                o->started_at = st.started_at.tv_sec;
                break;
        case RUNTIME_CONTAINER_EXITED:
                o->phase = CONTAINER_TERMINATED;
                run_termination(s, cm->name, cm->latest, &st, &o->current);
                break;
        case RUNTIME_CONTAINER_CREATED:
        case RUNTIME_CONTAINER_PHASE_MAX:
        default:
                o->phase = CONTAINER_WAITING;
                o->waiting_reason = "ContainerCreating";
                break;
        }
        if (cm->latest > 0 && run_state(s, cm->name, cm->latest - 1, &prev) >= 0 &&
            prev.phase == RUNTIME_CONTAINER_EXITED) {
                o->has_last = true;
                run_termination(s, cm->name, cm->latest - 1, &prev, &o->last);
        }
        runtime_container_status_release(&st);
        runtime_container_status_release(&prev);
        return phase;
}

/* A run that ended: restart it (now or after its back-off) or leave it terminated. */
static void after_exit(struct step *s, const json_t *c, struct container_memory *cm,
                       struct container_observation *o)
{
        struct container_termination t = o->current;

        if (cm->resize_restart) {
                /* K8S: a RestartContainer resize starts the container again at once */
                cm->resize_restart = false;
        } else if (backoff_waiting(&cm->restart, t.finished_at, s->now)) {
                cleanup_free char *label = pod_label(s->pod);
                o->phase = CONTAINER_WAITING;
                o->waiting_reason = "CrashLoopBackOff";
                o->waiting_message =
                        keep(s, xasprintf("back-off %llds restarting failed container=%s pod=%s",
                                          (long long) cm->restart.delay_s, cm->name, label));
                o->has_last = true;
                o->last = t;
                if (!cm->backoff_reported) {
                        cm->backoff_reported = true;
                        add_event(s->ev, "Warning", "BackOff",
                                  xasprintf("Back-off restarting failed container %s in pod %s",
                                            cm->name, label));
                }
                return;
        } else {
                backoff_next(&cm->restart, s->now);
        }
        start_container(s, c, cm, o);
        if (cm->latest >= 0)
                (void) observe(s, c, cm, o);
        if (o->phase == CONTAINER_RUNNING || o->phase == CONTAINER_TERMINATED)
                add_event(s->ev, "Normal", "Started", xasprintf("Started container %s", cm->name));
}

/* Makes container c run unless it already does; o is its observation afterwards. */
static void ensure_started(struct step *s, const json_t *c, struct container_memory *cm,
                           struct container_observation *o)
{
        start_container(s, c, cm, o);
        if (o->waiting_reason)
                return;
        (void) observe(s, c, cm, o);
        if (o->phase == CONTAINER_RUNNING || o->phase == CONTAINER_TERMINATED)
                add_event(s->ev, "Normal", "Started", xasprintf("Started container %s", cm->name));
}

static bool should_restart(const char *policy, const struct container_termination *t)
{
        if (streq(policy, "Always"))
                return true;
        if (streq(policy, "OnFailure"))
                return t->exit_code != 0;
        return false;
}

/* ------------------------------------------------------------------ teardown */

/* Releases what the pod holds on this host besides its records: the sandbox, the network, the
 * claims' mounts, the volumes and the cgroups. Its folder keeps pod.json, the containers' run
 * folders (their logs and exit records) and exits/. Idempotent: a step that finds its part
 * already gone succeeds. No container of the pod may run (they are killed first). */
static int pod_release_resources(struct pod_host *h, const char *uid, const char *cgroup,
                                 struct error **reterr)
{
        cleanup_free char *dir = xasprintf("%s/%s", h->pods_dir, uid);
        cleanup_free char *volumes = xasprintf("%s/volumes", dir);
        cleanup_free char *sandbox = runtime_sandbox_dir(h->data_dir, uid);
        DIR *d;
        struct dirent *e;
        int r;

        r = runtime_sandbox_stop(sandbox, reterr);
        if (r < 0)
                return r;
        /* K8S: containerd's StopPodSandbox: the sandbox first, then the network's DEL, then
         * the netns */
        r = pod_network_detach(h->network, dir, reterr);
        if (r < 0)
                return r;
        if (cgroup && *cgroup) {
                r = cgroup_kill(h->cgroups, cgroup, reterr);
                if (r < 0)
                        return r;
        }
        r = pod_claims_teardown(h, dir, reterr);
        if (r < 0)
                return r;
        if ((d = opendir(volumes))) {
                while ((e = readdir(d))) {
                        cleanup_free char *vdir = NULL;
                        if (e->d_name[0] == '.')
                                continue;
                        vdir = xasprintf("%s/%s", volumes, e->d_name);
                        r = emptydir_teardown(vdir, reterr);
                        if (r < 0) {
                                closedir(d);
                                return r;
                        }
                }
                closedir(d);
        }
        if (cgroup && *cgroup) {
                r = cgroup_destroy(h->cgroups, cgroup, reterr);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Removes everything of the pod on this host: containers (killed if alive), sandbox, volumes,
 * cgroups, folder. */
static int pod_teardown(struct pod_host *h, const char *uid, const char *cgroup,
                        struct error **reterr)
{
        cleanup_free char *dir = xasprintf("%s/%s", h->pods_dir, uid);
        cleanup_free char *containers = xasprintf("%s/containers", dir);
        uint32_t userns_base = 0;
        DIR *d;
        struct dirent *e;
        int r;

        if ((d = opendir(containers))) {
                while ((e = readdir(d))) {
                        cleanup_free char *cdir = NULL;
                        DIR *runs;
                        struct dirent *re;

                        if (e->d_name[0] == '.')
                                continue;
                        cdir = xasprintf("%s/%s", containers, e->d_name);
                        if (!(runs = opendir(cdir)))
                                continue;
                        while ((re = readdir(runs))) {
                                cleanup_free char *rdir = NULL;
                                if (re->d_name[0] == '.')
                                        continue;
                                rdir = xasprintf("%s/%s", cdir, re->d_name);
                                r = runtime_container_remove(rdir, reterr);
                                if (r < 0) {
                                        closedir(runs);
                                        closedir(d);
                                        return r;
                                }
                        }
                        closedir(runs);
                }
                closedir(d);
        }
        r = pod_release_resources(h, uid, cgroup, reterr);
        if (r < 0)
                return r;
        (void) pod_userns_recorded(dir, &userns_base);
        r = fs_remove_tree(dir);
        if (r < 0)
                return error_set(reterr, -r, "remove %s: %s", dir, strerror(-r));
        /* K8S: the userns manager's Release, once nothing of the pod is left */
        pod_userns_release(h, uid, userns_base);
        return 0;
}

int pod_host_remove_orphan(struct pod_host *h, const char *uid, struct error **reterr)
{
        cleanup_free char *dir = xasprintf("%s/%s", h->pods_dir, uid);
        cleanup_json json_t *rec = NULL;
        int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        const char *cg = NULL;
        int r;

        if (dfd >= 0) {
                (void) fs_read_json_at(dfd, "pod.json", &rec);
                (void) close(dfd);
        }
        cg = json_string_value(json_object_get(rec, "cgroup"));
        r = pod_teardown(h, uid, cg, reterr);
        if (r >= 0)
                pod_memory_forget(h, uid);
        return r;
}

/* ------------------------------------------------------------------ one step */

struct plan {
        struct container_observation *init, *regular;
        size_t n_init, n_regular;
        bool init_failed; /* a non-restartable init container failed: the pod is Failed */
        bool done;        /* nothing will run again (Succeeded or Failed) */
};

static struct pod_memory *pod_memory_get(struct pod_host *h, const json_t *pod)
{
        const char *uid = json_path_string(pod, "metadata.uid");
        struct pod_memory *p;

        pthread_mutex_lock(&h->pods_lock);
        p = pod_memory_find(h, uid, NULL);
        if (!p) {
                p = xcalloc(1, sizeof(*p));
                p->uid = xstrdup(uid);
                p->dir = xasprintf("%s/%s", h->pods_dir, uid);
                p->host = h;
                h->pods = xrealloc(h->pods, (h->n_pods + 1) * sizeof(*h->pods));
                h->pods[h->n_pods++] = p;
        }
        pthread_mutex_unlock(&h->pods_lock);
        return p;
}

/* Whether every regular container has run and none will run again (K8S: the pod is then
 * Succeeded or Failed, and its sidecars are stopped instead of restarted). */
static bool regular_containers_done(struct step *s, const char *policy)
{
        const json_t *regular = json_path(s->alloc_pod, "spec.containers");
        size_t i;
        json_t *c;

        json_array_foreach(regular, i, c) {
                struct container_memory *cm = container_memory_get(
                        s->p, json_string_value(json_object_get(c, "name")) ?: "");
                struct container_observation o;

                if (observe(s, c, cm, &o) != RUNTIME_CONTAINER_EXITED ||
                    should_restart(policy, &o.current) || cm->resize_restart)
                        return false;
        }
        return json_array_size(regular) > 0;
}

/* The probes' verdict on a running container (node/prober.h): whether it counts as started and
 * ready, and, when its liveness or startup probe has failed for good, its kill (SIGTERM, then
 * SIGKILL after the probe's or the pod's grace period; the restart policy decides what
 * follows, as for any exit). */
static void probe_running(struct step *s, const json_t *c, struct container_memory *cm,
                          struct container_observation *o, bool terminating)
{
        struct probe_verdict v;
        const json_t *grace;

        if (o->phase != CONTAINER_RUNNING)
                return;
        {
                cleanup_free char *dir = run_dir(s->h, s->p, cm->name, cm->latest);
                const struct probe_run run = {
                        .pod_uid = s->p->uid,
                        .ns = json_path_string_or_empty(s->pod, "metadata.namespace"),
                        .pod = json_path_string_or_empty(s->pod, "metadata.name"),
                        .container = cm->name,
                        .run = cm->latest,
                };
                prober_container(s->h->prober, &run, c, pod_ip_of(s), dir, o->started_at, &v);
        }
        for (size_t i = 0; i < v.n_unhealthy; i++)
                add_event(s->ev, "Warning", "Unhealthy", v.unhealthy[i]);
        o->unready = !v.ready;
        o->not_started = !v.started;
        if (v.kill_for == PROBE_TYPE_MAX || terminating)
                return;
        if (cm->probe_kill_run != cm->latest) {
                /* K8S: kuberuntime's computePodActions: "Container %s failed %s probe, will be
                 * restarted", with the probe's terminationGracePeriodSeconds if it has one */
                grace = json_path(s->pod, "spec.terminationGracePeriodSeconds");
                cm->probe_kill_run = cm->latest;
                cm->probe_kill_deadline =
                        s->now + (v.kill_grace_s >= 0      ? v.kill_grace_s
                                  : json_is_integer(grace) ? json_integer_value(grace)
                                                           : DEFAULT_GRACE_S);
                add_event(s->ev, "Normal", "Killing",
                          xasprintf("Container %s failed %s probe, will be restarted", cm->name,
                                    v.kill_for == PROBE_LIVENESS ? "liveness" : "startup"));
                signal_run(s, cm, SIGTERM);
        } else if (s->now >= cm->probe_kill_deadline) {
                signal_run(s, cm, SIGKILL);
        }
}

/* Init containers in order (sidecars stay), then the regular ones; starts what is due unless
 * the pod is terminating or done. */
static void step_containers(struct step *s, struct plan *pl, bool terminating)
{
        const json_t *inits = json_path(s->alloc_pod, "spec.initContainers");
        const json_t *regular = json_path(s->alloc_pod, "spec.containers");
        const char *policy = json_path_string(s->pod, "spec.restartPolicy") ?: "Always";
        bool blocked = false, all_regular_done = true;
        size_t i;
        json_t *c;

        pl->n_init = json_array_size(inits);
        pl->n_regular = json_array_size(regular);
        pl->init = xcalloc(pl->n_init + 1, sizeof(*pl->init));
        pl->regular = xcalloc(pl->n_regular + 1, sizeof(*pl->regular));
        /* the runs not named below (ended) lose their probes */
        prober_pod_begin(s->h->prober, s->p->uid);
        json_array_foreach(inits, i, c) {
                if (is_sidecar(c) && !terminating && regular_containers_done(s, policy)) {
                        terminating = true; /* nothing restarts: the sidecars are stopped */
                        break;
                }
        }

        json_array_foreach(inits, i, c) {
                const char *name = json_string_value(json_object_get(c, "name")) ?: "";
                struct container_memory *cm = container_memory_get(s->p, name);
                struct container_observation *o = &pl->init[i];
                int phase = observe(s, c, cm, o);

                if (blocked || pl->init_failed) {
                        if (phase < 0)
                                o->waiting_reason = "PodInitializing";
                        continue;
                }
                if (phase < 0) {
                        if (terminating) {
                                o->waiting_reason = "PodInitializing";
                                blocked = true;
                                continue;
                        }
                        ensure_started(s, c, cm, o);
                }
                if (is_sidecar(c)) {
                        if (o->phase == CONTAINER_TERMINATED && !terminating)
                                after_exit(s, c, cm, o);
                        probe_running(s, c, cm, o, terminating);
                        /* K8S KEP-753: the next init container waits for the sidecar to have
                         * started (its startupProbe succeeded) */
                        if (o->phase != CONTAINER_RUNNING || o->not_started)
                                blocked = true;
                        continue;
                }
                if (o->phase == CONTAINER_TERMINATED && o->current.exit_code == 0)
                        continue;
                if (o->phase == CONTAINER_TERMINATED) {
                        if (streq(policy, "Never")) {
                                pl->init_failed = true;
                                continue;
                        }
                        if (!terminating)
                                after_exit(s, c, cm, o);
                }
                blocked = true;
        }

        json_array_foreach(regular, i, c) {
                const char *name = json_string_value(json_object_get(c, "name")) ?: "";
                struct container_memory *cm = container_memory_get(s->p, name);
                struct container_observation *o = &pl->regular[i];
                int phase = observe(s, c, cm, o);

                if (phase < 0) {
                        if (blocked || pl->init_failed || terminating) {
                                o->waiting_reason = "PodInitializing";
                                all_regular_done = false;
                                continue;
                        }
                        ensure_started(s, c, cm, o);
                }
                if (o->phase == CONTAINER_TERMINATED && !terminating &&
                    (should_restart(policy, &o->current) || cm->resize_restart))
                        after_exit(s, c, cm, o);
                probe_running(s, c, cm, o, terminating);
                /* a run restarted just now may have ended already: it still restarts */
                if (o->phase != CONTAINER_TERMINATED || should_restart(policy, &o->current) ||
                    cm->resize_restart)
                        all_regular_done = false;
        }
        pl->done = pl->init_failed || (pl->n_regular > 0 && all_regular_done);
        prober_pod_end(s->h->prober, s->p->uid);
}

/* K8S: killContainersWithSyncResult: SIGTERM, then SIGKILL once the grace period is over;
 * regular containers first, sidecars once those are gone (in reverse order upstream; together
 * here). Returns true when no container of the pod runs. */
static bool step_terminate(struct step *s, const struct plan *pl, time_t deadline)
{
        const json_t *inits = json_path(s->pod, "spec.initContainers");
        const json_t *regular = json_path(s->pod, "spec.containers");
        bool regular_running = false, any_running = false;
        size_t i;
        json_t *c;

        for (i = 0; i < pl->n_regular; i++)
                regular_running |= pl->regular[i].phase == CONTAINER_RUNNING;
        for (int pass = 0; pass < 2; pass++) {
                const json_t *list = pass == 0 ? regular : inits;
                const struct container_observation *obs = pass == 0 ? pl->regular : pl->init;

                json_array_foreach(list, i, c) {
                        const char *name = json_string_value(json_object_get(c, "name")) ?: "";
                        struct container_memory *cm = container_memory_get(s->p, name);

                        if (obs[i].phase != CONTAINER_RUNNING)
                                continue;
                        any_running = true;
                        if (pass == 1 && regular_running && is_sidecar(c))
                                continue;
                        if (s->now >= deadline) {
                                signal_run(s, cm, SIGKILL);
                        } else if (!cm->term_sent) {
                                cm->term_sent = true;
                                add_event(s->ev, "Normal", "Killing",
                                          xasprintf("Stopping container %s", name));
                                signal_run(s, cm, SIGTERM);
                        }
                }
        }
        return !any_running;
}

static int64_t grace_period(const json_t *pod)
{
        const json_t *g = json_path(pod, "metadata.deletionGracePeriodSeconds");

        if (!json_is_integer(g))
                g = json_path(pod, "spec.terminationGracePeriodSeconds");
        return json_is_integer(g) ? json_integer_value(g) : DEFAULT_GRACE_S;
}

/* Actuation toward the allocation for the containers that run now. */
static void actuate(struct step *s, const struct plan *pl)
{
        cleanup_free const char **running =
                xcalloc(pl->n_init + pl->n_regular + 1, sizeof(*running));
        size_t n = 0;

        for (size_t i = 0; i < pl->n_init; i++)
                if (pl->init[i].phase == CONTAINER_RUNNING)
                        running[n++] = pl->init[i].name;
        for (size_t i = 0; i < pl->n_regular; i++)
                if (pl->regular[i].phase == CONTAINER_RUNNING)
                        running[n++] = pl->regular[i].name;
        pod_resize_actuate(s, running);
}

/* The running containers' resources as the kernel holds them, read once the step has actuated:
 * the status reports what the kernel holds now, and a resize ends in the pass that applied it
 * with one status write. */
static void observe_resources(struct step *s, struct plan *pl)
{
        for (int k = 0; k < 2; k++) {
                const json_t *list =
                        json_path(s->alloc_pod, k ? "spec.initContainers" : "spec.containers");
                struct container_observation *obs = k ? pl->init : pl->regular;
                size_t n = k ? pl->n_init : pl->n_regular;

                for (size_t i = 0; i < n && i < json_array_size(list); i++) {
                        struct container_memory *cm;
                        cleanup_free char *cg = NULL;

                        if (obs[i].phase != CONTAINER_RUNNING)
                                continue;
                        cm = container_memory_get(s->p, obs[i].name);
                        if (cm->latest < 0)
                                continue;
                        cg = run_cgroup(s->p, cm->name, cm->latest);
                        obs[i].resources =
                                keep_json(s, actual_resources(s, json_array_get(list, i), cg));
                }
        }
}

/* KEP-6030: each Memory emptyDir's live size, as statfs has it: {volume: quantity}. */
static json_t *memory_volume_sizes(struct step *s)
{
        json_t *out = json_object();
        size_t i;
        json_t *v;

        json_array_foreach(json_path(s->pod, "spec.volumes"), i, v) {
                const char *name = json_string_value(json_object_get(v, "name"));
                const char *medium = json_path_string(v, "emptyDir.medium");
                cleanup_free char *path = NULL, *text = NULL;
                int64_t size = 0, used = 0;
                struct quantity q;

                if (!name || !medium || !streq(medium, "Memory"))
                        continue;
                path = volume_path(s->p, name);
                if (emptydir_size(path, &size, &used, NULL) < 0 || size <= 0)
                        continue;
                quantity_from_int64(size, QUANTITY_BINARY_SI, &q);
                text = quantity_format(&q);
                json_object_set_new(out, name, json_string(text));
        }
        return out;
}

static void step_release(struct step *s, struct plan *pl)
{
        json_decref(s->alloc_pod);
        for (size_t i = 0; i < s->n_strings; i++)
                free(s->strings[i]);
        free(s->strings);
        json_decref(s->json);
        free(pl->init);
        free(pl->regular);
}

/* Running counts for the gauges, the pod's start duration once all its containers run, and
 * the step's own duration. */
static void observe_for_metrics(struct step *s, const struct plan *pl, bool sandbox_ready,
                                int64_t t0_ms)
{
        const char *sync[] = { "sync", NULL };
        size_t running = 0, regular_running = 0;

        for (size_t i = 0; i < pl->n_init; i++)
                running += pl->init[i].phase == CONTAINER_RUNNING;
        for (size_t i = 0; i < pl->n_regular; i++)
                regular_running += pl->regular[i].phase == CONTAINER_RUNNING;
        s->p->n_running = running + regular_running;
        s->p->sandbox_ready = sandbox_ready;
        if (!s->h->metrics)
                return;
        if (s->p->first_seen_ms && !s->p->start_reported && pl->n_regular &&
            regular_running == pl->n_regular) {
                s->p->start_reported = true;
                (void) metrics_observe(s->h->metrics->pod_start_duration, NULL,
                                       (double) (time_monotonic_ms() - s->p->first_seen_ms) /
                                               1000.0);
        }
        (void) metrics_observe(s->h->metrics->pod_worker_duration, sync,
                               (double) (time_monotonic_ms() - t0_ms) / 1000.0);
}

void pod_host_update_metrics(struct pod_host *h)
{
        const char *running[] = { "running", NULL };
        size_t pods = 0, containers = 0;

        const char *deferred[] = { "Deferred", NULL }, *infeasible[] = { "Infeasible", NULL };
        size_t n_deferred = 0, n_infeasible = 0, n_progress = 0;

        if (!h->metrics)
                return;
        /* what each pod's last step showed (pod_memory.shown), not what a step in progress on
         * another thread holds */
        pthread_mutex_lock(&h->pods_lock);
        for (size_t i = 0; i < h->n_pods; i++) {
                pods += h->pods[i]->shown.sandbox_ready;
                containers += h->pods[i]->shown.n_running;
                n_deferred += h->pods[i]->shown.deferred;
                n_infeasible += h->pods[i]->shown.infeasible;
                n_progress += h->pods[i]->shown.resizing;
        }
        pthread_mutex_unlock(&h->pods_lock);
        (void) metrics_set(h->metrics->running_pods, NULL, (double) pods);
        {
                (void) metrics_set(h->metrics->pending_resizes, deferred, (double) n_deferred);
                (void) metrics_set(h->metrics->pending_resizes, infeasible, (double) n_infeasible);
                (void) metrics_set(h->metrics->in_progress_resizes, NULL, (double) n_progress);
        }
        (void) metrics_set(h->metrics->running_containers, running, (double) containers);
}

/* A name the agent turns into one path component: the pod's uid (DATA/pods/<uid>), a volume's
 * (volumes/<name>), a container's (containers/<name>/<n>, exits/<name>-<n>.json). The API server
 * made or validated them (a UUID, DNS labels); checked again here, where a "/" or ".." would
 * place the pod's files outside its folder. */
static bool path_component_ok(const char *name)
{
        return name && *name && strlen(name) <= 253 && !strchr(name, '/') && !streq(name, ".") &&
               !streq(name, "..");
}

/* The first name of the pod that cannot be a path component ("what \"name\""), or NULL. */
static char *pod_unsafe_name(const json_t *pod)
{
        static const char *const lists[] = { "spec.volumes", "spec.initContainers",
                                             "spec.containers", "spec.ephemeralContainers" };
        const char *uid = json_path_string(pod, "metadata.uid");

        if (!path_component_ok(uid))
                return xasprintf("uid \"%s\"", uid ?: "");
        for (size_t l = 0; l < ARRAY_SIZE(lists); l++) {
                size_t i;
                json_t *x;

                json_array_foreach(json_path(pod, lists[l]), i, x) {
                        const char *name = json_string_value(json_object_get(x, "name"));
                        if (!path_component_ok(name))
                                return xasprintf("%s[%zu].name \"%s\"", lists[l], i, name ?: "");
                }
        }
        return NULL;
}

/* Whether the step that made pl left the pod steady: everything of it runs as its spec and
 * allocation say and nothing about it waits on time (no back-off, deadline, pending resize,
 * retry or failed volume) or on a claim (claims grow through the step); the step itself had
 * nothing to say. What changes it then comes as an event: a watch change, a container's exit,
 * a probe's verdict or event (each an urgent mark, pod-queue.h). */
static bool step_left_steady(const struct step *s, const struct plan *pl, bool sandbox_ready)
{
        const struct pod_memory *p = s->p;
        size_t i;
        json_t *v;

        if (!p->prepared || !sandbox_ready || p->evicted || p->released || p->kill_deadline ||
            p->pending_reason || p->resizing || p->resize_error || s->resize_activity ||
            p->payload_errors || p->mount_error_reported || s->ev->n > 0 || pl->done)
                return false;
        for (i = 0; i < p->n_containers; i++)
                if (p->containers[i].probe_kill_deadline || p->containers[i].resize_restart)
                        return false;
        for (i = 0; i < pl->n_init; i++) {
                const struct container_observation *o = &pl->init[i];

                /* done, or a sidecar (a restartable init container) that runs and started */
                if (!(o->phase == CONTAINER_TERMINATED && o->current.exit_code == 0) &&
                    !(o->phase == CONTAINER_RUNNING && !o->not_started))
                        return false;
        }
        for (i = 0; i < pl->n_regular; i++)
                if (pl->regular[i].phase != CONTAINER_RUNNING || pl->regular[i].not_started)
                        return false;
        json_array_foreach(json_path(s->pod, "spec.volumes"), i, v)
                if (json_object_get(v, "persistentVolumeClaim") || json_object_get(v, "ephemeral"))
                        return false;
        return true;
}

int pod_worker_sync_light(struct pod_host *h, const json_t *pod, struct pod_events *ev)
{
        const char *uid = json_path_string(pod, "metadata.uid");
        const char *rv = json_path_string(pod, "metadata.resourceVersion");
        struct pod_memory *p;
        struct step s;

        if (!uid || !rv)
                return 0;
        pthread_mutex_lock(&h->pods_lock);
        p = pod_memory_find(h, uid, NULL);
        pthread_mutex_unlock(&h->pods_lock);
        s = (struct step){ .h = h, .p = p, .pod = pod, .ev = ev, .now = time(NULL) };
        if (!p || !p->steady_rv || !streq(p->steady_rv, rv) || s.now >= p->steady_until ||
            s.now >= p->next_usage_check)
                return 0;
        /* what may change with no event telling this node: config maps, secrets, tokens */
        s.json = json_array();
        payload_volumes_refresh(&s, true);
        step_release(&s, &(struct plan){ 0 });
        if (p->payload_errors)
                p->steady_until = 0; /* a failure: full steps until it is gone */
        return 1;
}

/* The admission of the pod's resize; a failure (its allocation could not be made durable) is
 * logged once per message, as the agent logs a failed step, and tried again at the next step. */
static void admit_resize(struct step *s)
{
        cleanup_error struct error *err = NULL;
        struct pod_memory *p = s->p;

        if (pod_resize_admit(s, &err) >= 0) {
                free(TAKE_PTR(p->admit_error));
                return;
        }
        if (p->admit_error && streq(p->admit_error, err->message))
                return;
        (void) fprintf(stderr, "flexlet node: pod %s/%s: %s\n",
                       json_path_string_or_empty(s->pod, "metadata.namespace"),
                       json_path_string_or_empty(s->pod, "metadata.name"), err->message);
        free(p->admit_error);
        p->admit_error = xstrdup(err->message);
}

int pod_worker_sync(struct pod_host *h, const json_t *pod, json_t **ret_status,
                    struct pod_events *ev, struct error **reterr)
{
        int64_t t0 = time_monotonic_ms();
        struct pod_memory *p;
        struct step s = { .h = h, .pod = pod, .ev = ev, .now = time(NULL), .json = json_array() };
        struct plan pl = { 0 };
        struct pod_observation obs;
        cleanup_free char *sandbox = NULL;
        bool deleting = json_path(pod, "metadata.deletionTimestamp") != NULL;
        bool sandbox_ready = false;
        int r = POD_SYNC_RUNNING;

        *ret_status = NULL;
        if (!json_path_string(pod, "metadata.uid")) {
                json_decref(s.json);
                return error_set(reterr, EINVAL, "pod without metadata.uid");
        }
        {
                cleanup_free char *bad = pod_unsafe_name(pod);
                if (bad) {
                        json_decref(s.json);
                        return error_set(reterr, EINVAL, "%s cannot be a folder name", bad);
                }
        }
        p = pod_memory_get(h, pod);
        s.p = p;
        sandbox = runtime_sandbox_dir(h->data_dir, p->uid);

        if (!p->prepared && !deleting) {
                cleanup_error struct error *err = NULL;

                cleanup_json json_t *allocated = NULL;

                if (pod_record_load(h, p, pod, reterr) < 0) {
                        json_decref(s.json);
                        return -EIO;
                }
                r = p->released ? -EALREADY : pod_allocation_load(h, p, pod, &err);
                /* K8S KEP-127: the range is the pod's before its sandbox exists */
                if (r >= 0)
                        r = pod_userns_setup(h, p, pod, &err);
                if (r >= 0) {
                        allocated = pod_allocated(p, pod);
                        r = pod_cgroups_setup(h, p, allocated, &err);
                }
                if (r == -EALREADY) {
                        /* it ended before this process started: nothing to set up again */
                } else if (r < 0) {
                        add_event(ev, "Warning", "FailedCreatePodSandBox",
                                  xasprintf("Failed to create pod sandbox: %s", err->message));
                } else if ((r = pod_volumes_setup(h, p, allocated, pod, ev, &err)) < 0) {
                        if (!p->mount_error_reported)
                                add_event(ev, "Warning", "FailedMount",
                                          xasprintf("Unable to attach or mount volumes: %s",
                                                    err->message));
                        p->mount_error_reported = true;
                } else {
                        p->prepared = true;
                }
                r = POD_SYNC_RUNNING;
        } else if (deleting && access(p->dir, F_OK) < 0) {
                /* deleted before anything of it was made here */
                *ret_status = NULL;
                json_decref(s.json);
                pod_memory_forget(h, p->uid);
                return POD_SYNC_FINISHED;
        } else if (!p->cgroup) {
                /* deleting a pod this process never prepared: its record says where things are */
                if (pod_record_load(h, p, pod, reterr) < 0) {
                        json_decref(s.json);
                        return -EIO;
                }
        }

        s.alloc_pod = pod_allocated(p, pod);
        if (p->prepared && !deleting) {
                pid_t pid;
                cleanup_error struct error *err = NULL;
                cleanup_free char *cg = xasprintf("%s/sandbox", p->cgroup);
                char **procs = NULL;

                bool own_network = h->network && !host_network(pod);

                if (sandbox_known_running(&s, sandbox)) {
                        sandbox_ready = true;
                } else if (cgroup_procs_paths(h->cgroups, cg, &procs, NULL, &err) >= 0) {
                        struct runtime_sandbox_spec ss = {
                                .state_dir = sandbox,
                                .hostname = json_path_string(pod, "spec.hostname")
                                                    ?: json_path_string(pod, "metadata.name"),
                                .cgroup_procs = (const char *const *) procs,
                                .own_network = own_network,
                                .userns_base = p->userns_base,
                        };
                        sandbox_ready = runtime_sandbox_start(&ss, &pid, &err) >= 0;
                        cgroup_strv_free(procs);
                        /* a new sandbox, a new network namespace to wire */
                        free(p->pod_ip);
                        p->pod_ip = NULL;
                }
                /* K8S: a sandbox is ready once its network is set up (RunPodSandbox); a failed
                 * sync is tried again after the pod worker's back-off (backOffPeriod, 10 s) */
                if (sandbox_ready && own_network && !p->pod_ip) {
                        sandbox_ready = s.now >= p->network_retry &&
                                        pod_network_attach(h->network, p->dir, sandbox, pod,
                                                           &p->pod_ip, &err) >= 0;
                        if (err)
                                p->network_retry = s.now + NETWORK_RETRY_S;
                }
                if (!sandbox_ready && err)
                        add_event(ev, "Warning", "FailedCreatePodSandBox",
                                  xasprintf("Failed to create pod sandbox: %s", err->message));
        } else if (deleting) {
                pid_t pid;
                sandbox_ready = runtime_sandbox_running(sandbox, &pid) == 1;
        }

        if (!p->evicted) {
                const char *reason = json_path_string(pod, "status.reason");
                if (reason && streq(reason, "Evicted"))
                        p->evicted = xstrdup(json_path_string(pod, "status.message") ?: "");
        }
        if (p->prepared && !deleting && !p->evicted && s.now >= p->next_usage_check) {
                p->next_usage_check = s.now + USAGE_CHECK_S;
                p->evicted = volume_over_limit(p, pod);
                if (p->evicted) {
                        const char *signal[] = { "emptydirfs.limit", NULL };
                        add_event(ev, "Warning", "Evicted", xstrdup(p->evicted));
                        if (h->metrics)
                                (void) metrics_add(h->metrics->evictions, signal, 1);
                        p->kill_deadline = s.now; /* K8S: evicted with a grace period of 0 */
                }
        }

        if (p->prepared && !deleting && !p->evicted) {
                /* The files are compared with the payload every STEADY_FULL_S; a full step
                 * between (a spec change: a resize's) trusts the digest of its last write. */
                bool compare = s.now >= p->payload_compare_at;

                payload_volumes_refresh(&s, !compare);
                if (compare)
                        p->payload_compare_at = s.now + STEADY_FULL_S;
        }
        if (p->prepared && sandbox_ready && !deleting && !p->evicted)
                admit_resize(&s);
        /* claims come from the agent's informer: checking them every pass costs no request */
        if (p->prepared && sandbox_ready && !deleting && !p->evicted)
                pod_claims_expand(&s);
        if (sandbox_ready || deleting || p->released) {
                step_containers(&s, &pl, deleting || p->evicted || p->released);
                if (p->prepared && sandbox_ready && !deleting && !p->evicted && !pl.done)
                        actuate(&s, &pl);
                observe_resources(&s, &pl);
        } else {
                /* nothing runs yet: every container is being created */
                const json_t *inits = json_path(pod, "spec.initContainers");
                const json_t *regular = json_path(pod, "spec.containers");
                size_t i;
                json_t *c;

                pl.n_init = json_array_size(inits);
                pl.n_regular = json_array_size(regular);
                pl.init = xcalloc(pl.n_init + 1, sizeof(*pl.init));
                pl.regular = xcalloc(pl.n_regular + 1, sizeof(*pl.regular));
                json_array_foreach(inits, i, c)
                        pl.init[i] = (struct container_observation){
                                .name = json_string_value(json_object_get(c, "name")),
                                .waiting_reason = "PodInitializing"
                        };
                json_array_foreach(regular, i, c)
                        pl.regular[i] = (struct container_observation){
                                .name = json_string_value(json_object_get(c, "name")),
                                .waiting_reason =
                                        pl.n_init ? "PodInitializing" : "ContainerCreating"
                        };
        }

        if (deleting || p->evicted || pl.done)
                pod_resize_release_requests(p);
        if (deleting || p->evicted || (pl.done && sandbox_ready)) {
                /* K8S: a terminating pod, or one whose containers are all done (sidecars stop
                 * with it): kill what still runs, within the grace period */
                bool stopped;

                if (!p->kill_deadline)
                        p->kill_deadline = s.now + (deleting ? grace_period(pod) : DEFAULT_GRACE_S);
                stopped = step_terminate(&s, &pl, p->kill_deadline);
                if (stopped && deleting) {
                        r = pod_teardown(h, p->uid, p->cgroup, reterr);
                        if (r < 0) {
                                step_release(&s, &pl);
                                return r;
                        }
                        r = POD_SYNC_FINISHED;
                } else if (stopped && !p->released) {
                        r = pod_record_mark_released(p, reterr);
                        if (r < 0) {
                                step_release(&s, &pl);
                                return r;
                        }
                }
        }
        if (p->released && !deleting && !p->release_done) {
                /* K8S: the kubelet's SyncTerminatedPod: once every container of a pod that
                 * ended has stopped, its sandbox goes, its volumes are unmounted and its
                 * cgroups removed; its status and its containers' logs stay */
                r = pod_release_resources(h, p->uid, p->cgroup, reterr);
                if (r < 0) {
                        step_release(&s, &pl);
                        return r;
                }
                p->release_done = true;
                p->prepared = false;
                p->sandbox_watched = false;
                sandbox_ready = false;
                free(p->pod_ip);
                p->pod_ip = NULL;
                token_manager_forget_pod(h->tokens, p->uid);
                prober_forget_pod(h->prober, p->uid);
        }

        obs = (struct pod_observation){
                .sandbox_ready = sandbox_ready && r != POD_SYNC_FINISHED,
                .host_ip = h->host_ip,
                .pod_ip = r == POD_SYNC_FINISHED ? NULL : pod_ip_of(&s),
                .start_time = p->start_time,
                .init = pl.init,
                .n_init = pl.n_init,
                .containers = pl.regular,
                .n_containers = pl.n_regular,
                .evicted_message = p->evicted,
                .resize_pending_reason = p->pending_reason,
                .resize_pending_message = p->pending_message,
                .resize_in_progress = p->resizing,
                .resize_error = p->resize_error,
                .memory_volume_sizes = p->prepared ? keep_json(&s, memory_volume_sizes(&s)) : NULL,
        };
        *ret_status = pod_status_build(pod, &obs, json_object_get(pod, "status"), s.now);
        if (s.resize_activity)
                fault_point("resize-status");
        free(p->steady_rv);
        p->steady_rv = NULL;
        p->steady_until = 0;
        if (r == POD_SYNC_RUNNING && !deleting && step_left_steady(&s, &pl, sandbox_ready)) {
                p->steady_rv = xstrdup(json_path_string_or_empty(pod, "metadata.resourceVersion"));
                p->steady_until = s.now + STEADY_FULL_S + random() % (STEADY_FULL_S / 2 + 1);
        }
        observe_for_metrics(&s, &pl, sandbox_ready, t0);
        pthread_mutex_lock(&h->pods_lock);
        p->shown.sandbox_ready = p->sandbox_ready;
        p->shown.n_running = p->n_running;
        p->shown.resizing = p->resizing;
        p->shown.deferred = p->pending_reason && streq(p->pending_reason, "Deferred");
        p->shown.infeasible = p->pending_reason && streq(p->pending_reason, "Infeasible");
        free(p->shown.steady_rv);
        p->shown.steady_rv = p->steady_rv ? xstrdup(p->steady_rv) : NULL;
        pthread_mutex_unlock(&h->pods_lock);
        step_release(&s, &pl);
        if (r == POD_SYNC_FINISHED)
                pod_memory_forget(h, json_path_string(pod, "metadata.uid"));
        return r;
}

void pod_worker_sync_after(struct pod_host *h, const char *uid)
{
        struct pod_memory *p;

        pthread_mutex_lock(&h->pods_lock);
        p = pod_memory_find(h, uid, NULL);
        pthread_mutex_unlock(&h->pods_lock);
        /* the pod's memory is this worker's until its next step (pod-worker-internal.h) */
        if (p)
                pod_actuated_flush(p);
}
