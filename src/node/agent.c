/* agent.c: the node agent's loops: a watch of the pods bound to this node feeding a map and
 * marking each changed pod dirty (pod-queue.h); a pool of pod workers that take dirty pods and
 * step each through pod_worker_sync(), one thread per pod at a time, handing its status, events
 * and final delete to the status sender (status-sender.h, its own threads); a resync loop that
 * marks every pod once a second (what is still polled: exits, back-offs) and collects orphans;
 * and the node heartbeat. K8S: pkg/kubelet/pod_workers.go (one worker per pod UID, its updates
 * never concurrent) and the kubelet's periodic syncCh. The agent keeps no state that the API and
 * the host do not: after a restart it lists, finds the pods' folders and containers, and carries
 * on. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/json.h"
#include "base/metrics.h"
#include "base/quantity.h"
#include "base/timeutil.h"
#include "client/client.h"
#include "client/event.h"
#include "client/informer.h"
#include "node/agent.h"
#include "node/kubelet-server.h"
#include "node/node-metrics.h"
#include "node/node-status.h"
#include "node/runtime/runtime.h"
#include "node/pod-queue.h"
#include "node/pod-worker.h"
#include "node/stats-summary.h"
#include "node/status-sender.h"
#include "node/token-manager.h"
#include "node/volume/nodevol.h"

#define SYNC_PERIOD_MS 1000
/* a pod being deleted is looked at again this soon, so its exit is seen (and the object
 * deleted) without waiting for the next full pass */
#define TERMINATING_RECHECK_MS 50
#define HEARTBEAT_S            10
#define WATCH_TIMEOUT_S        300
#define RETRY_DELAY_MS         500
#define COMPONENT              "kubelet"
/* K8S: cadvisor's housekeeping interval (the kubelet's 10 s): how often the CPU counters are
 * sampled in the background, so that the first /stats/summary already has a rate */
#define STATS_SAMPLE_S 10
/* The status sender's threads, and how long a stopping agent still sends what is queued. */
#define SENDER_THREADS  4
#define SENDER_FLUSH_MS 5000

/* How long an object the pods use (a claim, a volume, a ConfigMap, a Secret) read from the API
 * is taken as current: the full pass every second reads it again after that. */
#define REF_TTL_MS 500
/* How often the node looks for volume files to remove (nodevol_sweep). */
#define VOLUME_SWEEP_MS 2000

struct node_agent {
        struct api_client_options copts;
        /* sync_client: the node's registration (before any thread), then the token requests
         * and claim status writes of the pod workers, one at a time under sync_client_lock
         * (a client serves one thread at a time: client.h) */
        pthread_mutex_t sync_client_lock;
        char *server_url, *ca_file, *token, *cert_file, *key_file, *kubelet_token;
        struct node_config node;
        char *node_name, *data_dir, *allocatable;
        struct api_client *watch_client, *sync_client, *beat_client;
        /* the pods' status, events and final deletes, sent off the sync thread */
        struct status_sender *sender;
        struct pod_host *host;
        struct token_manager *tokens; /* the pods' service account tokens */
        /* What the pods use besides themselves, read one object at a time with GET (the
         * node's identity may read only the objects of its own pods: docs/node-authorization.md)
         * and kept REF_TTL_MS: "<path>" -> {"at": ms, "obj": object or null (not found)}.
         * ref_client is used under ref_lock only. */
        pthread_mutex_t ref_lock;
        json_t *refs;
        struct api_client *ref_client;
        struct metrics_registry *registry; /* where the volume stats collector is */
        /* this node's local-loop volume files (nodevol.h), under vol_lock with vol_client */
        pthread_mutex_t vol_lock;
        struct nodevol *volumes;
        struct api_client *vol_client;
        struct kubelet_server *kubelet;
        struct node_metrics metrics;
        struct stats_rate_cache *rates; /* CPU samples of /stats/summary (stats-summary.h) */
        struct image_gc *image_gc;      /* NULL: switched off (high threshold 100) */

        int64_t last_volume_sweep_ms; /* the resync thread's own */

        /* lock: pods, listed and full_due; wake: the resync thread's (a list came, or stop) */
        pthread_mutex_t lock;
        pthread_cond_t wake;
        json_t *pods;  /* uid -> Pod, as the watch last saw it */
        bool listed;   /* the map reflects a full list: orphans can be told apart */
        bool full_due; /* a list came: resync now */

        /* the dirty pods; the workers take from it (pod-queue.h: one worker per pod at once) */
        struct pod_queue *queue;
        int cancel_fd; /* an eventfd, readable once stopping: ends a fed watch */
        pthread_t *workers;
        unsigned n_workers;
        pthread_t watch_thread, resync_thread, beat_thread;
        atomic_bool stop;
};

static void wake_resync(struct node_agent *a)
{
        pthread_mutex_lock(&a->lock);
        a->full_due = true;
        pthread_cond_signal(&a->wake);
        pthread_mutex_unlock(&a->lock);
}

static int on_pod_event(void *ud, const char *type, json_t *pod)
{
        struct node_agent *a = ud;
        const char *uid = json_path_string(pod, "metadata.uid");

        if (atomic_load(&a->stop))
                return 1;
        if (streq(type, "ERROR"))
                return -ESTALE;
        if (!uid)
                return 0;
        pthread_mutex_lock(&a->lock);
        if (streq(type, "DELETED"))
                json_object_del(a->pods, uid);
        else
                json_object_set(a->pods, uid, pod);
        pthread_mutex_unlock(&a->lock);
        /* this pod only: its worker reads the map when it takes it; the echo of the agent's own
         * status write only waits for the resync (a resize's step would otherwise run twice,
         * the second finding nothing to do) */
        if (streq(type, "MODIFIED") && status_sender_wrote(a->sender, pod))
                return 0;
        pod_queue_mark(a->queue, uid);
        return 0;
}

/* pod_host_options.wake: a pod's probes changed their verdict or have events, an image pull of
 * it ended, a container of it exited: step it now rather than at the next full pass. */
static void pod_wake(void *ud, const char *uid)
{
        struct node_agent *a = ud;

        pod_queue_mark(a->queue, uid);
}

/* A list of this node's pods (HTTP's, or the feed's, whose items are shared and only
 * referenced): it replaces the map. */
static void on_pod_list(void *ud, const json_t *items)
{
        struct node_agent *a = ud;
        size_t i;
        json_t *pod;

        pthread_mutex_lock(&a->lock);
        json_object_clear(a->pods);
        json_array_foreach(items, i, pod) {
                const char *uid = json_path_string(pod, "metadata.uid");
                if (uid)
                        json_object_set(a->pods, uid, pod);
        }
        a->listed = true;
        a->full_due = true; /* every pod, and the orphans, looked at again */
        pthread_cond_signal(&a->wake);
        pthread_mutex_unlock(&a->lock);
}

/* Waits RETRY_DELAY_MS before the watch lists again, or less when the agent stops. */
static void retry_pause(struct node_agent *a)
{
        struct pollfd pfd = { .fd = a->cancel_fd, .events = POLLIN };

        (void) poll(&pfd, 1, RETRY_DELAY_MS);
}

/* The pods of this node: listed, then watched from the list's version, again whenever the watch
 * ends; through the feed in the API server's process, else over HTTPS. */
static void *watch_main(void *arg)
{
        struct node_agent *a = arg;
        const struct informer_feed *feed = a->copts.feed;
        const struct informer_feed_handler fed = { .list = on_pod_list,
                                                   .event = on_pod_event,
                                                   .ud = a };
        cleanup_free char *path =
                xasprintf("/api/v1/pods?fieldSelector=spec.nodeName%%3D%s", a->node_name);

        (void) pthread_setname_np(pthread_self(), "agent-watch");
        while (!atomic_load(&a->stop)) {
                cleanup_json json_t *list = NULL;
                cleanup_free char *wpath = NULL;
                long status = 0;

                if (feed) {
                        cleanup_error struct error *err = NULL;

                        if (feed->list_watch(feed, path, a->cancel_fd, &fed, &err) < 0)
                                retry_pause(a);
                        continue;
                }
                if (api_client_request(a->watch_client, "GET", path, NULL, NULL, 0, &status, &list,
                                       NULL) < 0 ||
                    status != 200) {
                        retry_pause(a);
                        continue;
                }
                on_pod_list(a, json_object_get(list, "items"));
                wpath = xasprintf("%s&watch=true&resourceVersion=%s&timeoutSeconds=%d", path,
                                  json_path_string(list, "metadata.resourceVersion") ?: "0",
                                  WATCH_TIMEOUT_S);
                (void) api_client_watch(a->watch_client, wpath, on_pod_event, a, NULL);
        }
        return NULL;
}

/* Queues the events of a step of pod for the sender's threads, and releases them. */
static void send_events(struct node_agent *a, const json_t *pod, struct pod_events *ev)
{
        for (size_t e = 0; e < ev->n; e++)
                status_sender_event(a->sender, pod, ev->items[e].object ?: pod, ev->items[e].type,
                                    ev->items[e].reason, ev->items[e].message);
        pod_events_release(ev);
}

/* One step of the pod uid, on a worker thread that has it alone (pod-queue.h). A pod the map
 * no longer has, once the map reflects a list, is an orphan: what is on the host of it goes (a
 * pod deleted while the agent was away, or force-deleted). A pod only the resync marked
 * (!urgent) that its last step left steady gets the light step (pod_worker_sync_light). */
static void sync_pod(struct node_agent *a, const char *uid, bool urgent)
{
        cleanup_error struct error *err = NULL;
        cleanup_json json_t *pod_ref = NULL, *status = NULL, *latest = NULL, *stepped = NULL;
        struct pod_events ev = { .n = 0 };
        const json_t *pod;
        bool listed;
        int r;

        pthread_mutex_lock(&a->lock);
        /* The watch replaces pods in the map, never changes one in place, and jansson's
         * reference counts are atomic: the reference is the worker's to read. */
        pod_ref = json_incref(json_object_get(a->pods, uid));
        listed = a->listed;
        pthread_mutex_unlock(&a->lock);
        pod = pod_ref;
        if (!pod) {
                if (!listed || !pod_host_has_pod(a->host, uid))
                        return;
                if (pod_host_remove_orphan(a->host, uid, &err) < 0)
                        (void) fprintf(stderr, "flexlet node: orphan pod %s: %s\n", uid,
                                       err ? err->message : "cleanup failed");
                pod_host_update_metrics(a->host);
                return;
        }
        if (!urgent && pod_worker_sync_light(a->host, pod, &ev)) {
                send_events(a, pod, &ev);
                return;
        }
        /* The status the step starts from is the last one this node handed in while the watch
         * has not brought it back yet: its conditions' transition times and the comparison
         * below must not go back to an older one. */
        latest = status_sender_latest(a->sender, pod);
        if (latest) {
                stepped = json_copy((json_t *) pod); /* shallow: only status differs */
                json_object_set(stepped, "status", latest);
                pod = stepped;
        }
        r = pod_worker_sync(a->host, pod, &status, &ev, &err);
        /* Queued for the sender's threads (status-sender.h): the status first, what a client
         * waits for; the events explain it. */
        if (r >= 0 && status && !json_equal(json_object_get(pod, "status"), status))
                status_sender_status(a->sender, pod, TAKE_PTR(status));
        send_events(a, pod, &ev);
        pod_worker_sync_after(a->host, uid);
        pod_host_update_metrics(a->host);
        if (r < 0) {
                (void) fprintf(stderr, "flexlet node: pod %s/%s: %s\n",
                               json_path_string(pod, "metadata.namespace"),
                               json_path_string(pod, "metadata.name"),
                               err ? err->message : strerror(-r));
                return;
        }
        if (r == POD_SYNC_FINISHED)
                status_sender_delete(a->sender, pod);
        else if (json_path(pod, "metadata.deletionTimestamp"))
                pod_queue_mark_at(a->queue, uid, time_monotonic_ms() + TERMINATING_RECHECK_MS);
}

static void *worker_main(void *arg)
{
        struct node_agent *a = arg;
        char *uid;
        bool urgent;

        (void) pthread_setname_np(pthread_self(), "pod-worker");
        /* a step allocates through the thread's cache, emptied after it (base/alloc.h) */
        alloc_work_begin();
        /* NULL once stopped: SIGTERM leaves the pods running, no step need end first but the
         * one in hand */
        while ((uid = pod_queue_take(a->queue, &urgent))) {
                sync_pod(a, uid, urgent);
                pod_queue_done(a->queue, uid);
                free(uid);
                alloc_work_end();
        }
        return NULL;
}

/* The periodic resync (K8S: the kubelet's syncCh, every second): every pod is marked, in the
 * order admission wants (pod_host_sync_order: pending resizes last, in the retry queue's
 * order), and so is every pod folder the map does not have (an orphan, which its worker
 * removes); then the housekeeping of the host. Kept out of line: the benchmarks' uprobes count
 * its passes at entry (bench/resize-bench.c, bench/run-node-bench.sh). */
_probed_ static void sync_all(struct node_agent *a)
{
        cleanup_json json_t *snapshot = NULL, *known = NULL, *order = NULL;
        bool listed;
        size_t i;
        json_t *k;

        pthread_mutex_lock(&a->lock);
        /* shallow, as in sync_pod */
        snapshot = json_copy(a->pods);
        listed = a->listed;
        a->full_due = false;
        pthread_mutex_unlock(&a->lock);

        order = pod_host_sync_order(a->host, snapshot);
        json_array_foreach(order, i, k)
                pod_queue_mark_resync(a->queue, json_string_value(k));
        if (atomic_load(&a->stop))
                return;
        if (time_monotonic_ms() - a->last_volume_sweep_ms >= VOLUME_SWEEP_MS) {
                a->last_volume_sweep_ms = time_monotonic_ms();
                pthread_mutex_lock(&a->vol_lock);
                nodevol_sweep(a->volumes);
                pthread_mutex_unlock(&a->vol_lock);
        }
        /* K8S: the token manager's cleanup of expired tokens (every minute upstream) */
        token_manager_collect(a->tokens, time(NULL));
        if (!listed)
                return;
        status_sender_prune(a->sender, snapshot);
        /* What is on the host but no longer in the API: its worker removes it (one thread per
         * pod at a time, so never while a step of the same uid sets it up again). */
        known = pod_host_known_uids(a->host);
        json_array_foreach(known, i, k)
                if (!json_object_get(snapshot, json_string_value(k)))
                        pod_queue_mark_resync(a->queue, json_string_value(k));
}

static void *resync_main(void *arg)
{
        struct node_agent *a = arg;

        (void) pthread_setname_np(pthread_self(), "agent-resync");
        while (!atomic_load(&a->stop)) {
                struct timespec until = time_after_ms(CLOCK_REALTIME, SYNC_PERIOD_MS);

                sync_all(a);
                pthread_mutex_lock(&a->lock);
                while (!a->full_due && !atomic_load(&a->stop) &&
                       pthread_cond_timedwait(&a->wake, &a->lock, &until) == 0)
                        ;
                pthread_mutex_unlock(&a->lock);
        }
        return NULL;
}

/* The node lease is renewed first and then every HEARTBEAT_S (a quarter of its 40 s), with the
 * Ready condition's heartbeat; a failed renewal is said once until one succeeds again. */
/* kubelet_summary_fn: the Summary of the pods the watch last saw. */
static int summary(void *ud, json_t **ret, struct error **reterr)
{
        struct node_agent *a = ud;
        cleanup_json json_t *pods = NULL;

        pthread_mutex_lock(&a->lock);
        /* shallow: the watch replaces the map's pods, never changes one (on_pod_event) */
        pods = json_copy(a->pods);
        pthread_mutex_unlock(&a->lock);
        return pod_host_stats_summary(a->host, a->node_name, pods, a->rates, ret, reterr);
}

static void *beat_main(void *arg)
{
        struct node_agent *a = arg;
        bool lease_failing = false;

        (void) pthread_setname_np(pthread_self(), "node-heartbeat");
        while (!atomic_load(&a->stop)) {
                cleanup_error struct error *err = NULL;

                if (node_lease_renew(a->beat_client, &a->node, &err) < 0) {
                        if (!lease_failing)
                                (void) fprintf(stderr, "flexlet node: node lease: %s\n",
                                               err->message);
                        lease_failing = true;
                } else {
                        lease_failing = false;
                }
                for (int i = 0; i < HEARTBEAT_S * 10 && !atomic_load(&a->stop); i++) {
                        if (i % (STATS_SAMPLE_S * 10) == 0) {
                                cleanup_json json_t *sample = NULL;
                                (void) summary(a, &sample, NULL);
                        }
                        usleep(100 * 1000);
                }
                if (!atomic_load(&a->stop))
                        (void) node_heartbeat(a->beat_client, &a->node, NULL);
        }
        return NULL;
}

/* The element named name of the first of lists (JSON paths of arrays in pod) that has one. */
static const json_t *named_in(const json_t *pod, const char *const *lists, const char *name)
{
        size_t i;
        json_t *item;

        for (; *lists; lists++)
                json_array_foreach(json_path(pod, *lists), i, item) {
                        const char *n = json_string_value(json_object_get(item, "name"));
                        if (n && streq(n, name))
                                return item;
                }
        return NULL;
}

/* The kubelet endpoint's question: which run's log to show (K8S: validateContainerLogStatus over
 * the status the agent last reported, then the run folders on disk). */
static int find_container(void *ud, const char *ns, const char *name, const char *container,
                          bool previous, char **ret_state_dir, struct error **reterr)
{
        struct node_agent *a = ud;
        cleanup_json json_t *pod = NULL;
        const json_t *st, *state;
        const char *key, *waiting_reason;
        bool waiting, has_last;
        json_t *v;
        char *dir;

        pthread_mutex_lock(&a->lock);
        json_object_foreach(a->pods, key, v) {
                if (streq(json_path_string(v, "metadata.namespace") ?: "", ns) &&
                    streq(json_path_string(v, "metadata.name") ?: "", name)) {
                        pod = json_deep_copy(v);
                        break;
                }
        }
        pthread_mutex_unlock(&a->lock);
        if (!pod)
                return -ESRCH;
        static const char *const specs[] = { "spec.containers", "spec.initContainers",
                                             "spec.ephemeralContainers", NULL };
        static const char *const statuses[] = { "status.containerStatuses",
                                                "status.initContainerStatuses", NULL };

        if (!named_in(pod, specs, container))
                return -ENOENT;
        st = named_in(pod, statuses, container);
        if (!st)
                return kubelet_log_refuse(KUBELET_LOG_NOT_AVAILABLE, name, container, NULL, reterr);
        state = json_object_get(st, "state");
        waiting = json_object_get(state, "waiting") != NULL;
        waiting_reason = json_path_string(state, "waiting.reason");
        has_last = json_path(st, "lastState.terminated") != NULL;
        if (previous) {
                if (!has_last)
                        return kubelet_log_refuse(KUBELET_LOG_NO_PREVIOUS, name, container, NULL,
                                                  reterr);
                /* waiting to restart: the newest run is the one that terminated last */
                dir = pod_host_container_run_dir(a->host, json_path_string(pod, "metadata.uid"),
                                                 container, waiting ? 0 : 1);
        } else if (waiting && !has_last) {
                return kubelet_log_refuse(waiting_reason ? KUBELET_LOG_WAITING
                                                         : KUBELET_LOG_NO_LOGS_YET,
                                          name, container, waiting_reason, reterr);
        } else {
                dir = pod_host_container_run_dir(a->host, json_path_string(pod, "metadata.uid"),
                                                 container, 0);
        }
        if (!dir)
                return kubelet_log_refuse(previous ? KUBELET_LOG_NO_PREVIOUS
                                                   : KUBELET_LOG_NOT_AVAILABLE,
                                          name, container, NULL, reterr);
        *ret_state_dir = dir;
        return 0;
}

/* The kubelet endpoint's port-forward question: the pod's sandbox (K8S getPortForward finds the
 * pod by name among the kubelet's pods). */
static int find_pod(void *ud, const char *ns, const char *name, char **ret_sandbox_dir,
                    char **ret_pod_id, char **ret_netns_path, struct error **reterr)
{
        struct node_agent *a = ud;
        cleanup_free char *uid = NULL;
        bool host_network = false;
        const char *key;
        json_t *v;

        pthread_mutex_lock(&a->lock);
        json_object_foreach(a->pods, key, v) {
                if (streq(json_path_string(v, "metadata.namespace") ?: "", ns) &&
                    streq(json_path_string(v, "metadata.name") ?: "", name)) {
                        uid = xstrdup(json_path_string(v, "metadata.uid") ?: "");
                        host_network = json_is_true(json_path(v, "spec.hostNetwork"));
                        break;
                }
        }
        pthread_mutex_unlock(&a->lock);
        if (!uid || !*uid)
                return -ESRCH;
        *ret_sandbox_dir = runtime_sandbox_dir(a->data_dir, uid);
        *ret_netns_path = host_network ? xstrdup("host")
                                       : xasprintf("%s/pods/%s/network/netns", a->data_dir, uid);
        *ret_pod_id = TAKE_PTR(uid);
        return 0;
}

/* The object at path (an API path of one object) as the API server last answered it: 0 with
 * *ret (a new reference), -ENOENT when it does not exist, -errno with *reterr when it cannot be
 * read (a refusal of the Node authorizer included). K8S: the kubelet reads claims and volumes
 * with GET and its ConfigMap and Secret managers one object at a time. */
static int ref_get(struct node_agent *a, const char *path, json_t **ret, struct error **reterr)
{
        cleanup_json json_t *obj = NULL;
        int64_t now = time_monotonic_ms();
        const json_t *hit;
        long code = 0;
        int r;

        pthread_mutex_lock(&a->ref_lock);
        hit = json_object_get(a->refs, path);
        if (hit && now - json_integer_value(json_object_get(hit, "at")) < REF_TTL_MS) {
                const json_t *o = json_object_get(hit, "obj");

                r = json_is_null(o) ? -ENOENT : 0;
                if (r == 0)
                        *ret = json_incref((json_t *) o);
                pthread_mutex_unlock(&a->ref_lock);
                return r;
        }
        r = api_client_request(a->ref_client, "GET", path, NULL, NULL, 0, &code, &obj, reterr);
        if (r >= 0 && code != 200 && code != 404)
                r = error_set(reterr, code == 403 ? EACCES : EIO, "GET %s: %s", path,
                              json_path_string(obj, "message") ?: "unexpected answer");
        if (r >= 0) {
                json_object_set_new(a->refs, path,
                                    json_pack("{s:I, s:O}", "at", (json_int_t) now, "obj",
                                              code == 200 ? obj : json_null()));
                r = code == 200 ? 0 : -ENOENT;
                if (r == 0)
                        *ret = TAKE_PTR(obj);
        }
        pthread_mutex_unlock(&a->ref_lock);
        return r;
}

/* Keeps obj, which this agent just wrote, as the current version of the object at path. */
static void ref_store(struct node_agent *a, const char *path, const json_t *obj)
{
        pthread_mutex_lock(&a->ref_lock);
        json_object_set_new(
                a->refs, path,
                json_pack("{s:I, s:O}", "at", (json_int_t) time_monotonic_ms(), "obj", obj));
        pthread_mutex_unlock(&a->ref_lock);
}

/* The pod worker's view of a claim. K8S: the kubelet's volume manager waits for a bound claim
 * with the same words. */
static int lookup_claim(void *ud, const char *ns, const char *claim, json_t **ret_pvc,
                        json_t **ret_pv, struct error **reterr)
{
        struct node_agent *a = ud;
        cleanup_free char *path =
                xasprintf("/api/v1/namespaces/%s/persistentvolumeclaims/%s", ns, claim);
        cleanup_free char *pv_path = NULL;
        cleanup_json json_t *pvc = NULL, *pv = NULL;
        const char *phase, *volume;
        int r;

        r = ref_get(a, path, &pvc, reterr);
        if (r == -ENOENT)
                return error_set(reterr, ENOENT, "persistentvolumeclaim \"%s\" not found", claim);
        if (r < 0)
                return r;
        phase = json_path_string(pvc, "status.phase") ?: "";
        volume = json_path_string(pvc, "spec.volumeName") ?: "";
        if (!streq(phase, "Bound") || !*volume)
                return error_set(reterr, EAGAIN,
                                 "PVC %s/%s has non-bound phase (\"%s\") or empty "
                                 "pvc.Spec.VolumeName (\"%s\")",
                                 ns, claim, phase, volume);
        pv_path = xasprintf("/api/v1/persistentvolumes/%s", volume);
        r = ref_get(a, pv_path, &pv, reterr);
        if (r == -ENOENT)
                return error_set(reterr, ENOENT, "persistentvolume \"%s\" not found", volume);
        if (r < 0)
                return r;
        /* a volume of this node whose file its provisioner could not make: made here first */
        {
                json_t *recorded = NULL;

                pthread_mutex_lock(&a->vol_lock);
                r = nodevol_ensure(a->volumes, pv, &recorded, reterr);
                pthread_mutex_unlock(&a->vol_lock);
                if (r < 0)
                        return r;
                if (recorded) {
                        ref_store(a, pv_path, recorded);
                        json_decref(pv);
                        pv = recorded;
                }
        }
        *ret_pvc = TAKE_PTR(pvc);
        *ret_pv = TAKE_PTR(pv);
        return 0;
}

/* The pod worker's view of a ConfigMap or a Secret. K8S: the kubelet's configmap and secret
 * managers answer a missing object with its NotFound error. */
static int lookup_object(void *ud, const char *resource, const char *ns, const char *name,
                         json_t **ret, struct error **reterr)
{
        struct node_agent *a = ud;
        bool secret = streq(resource, "secrets");
        cleanup_free char *path = xasprintf("/api/v1/namespaces/%s/%s/%s", ns,
                                            secret ? "secrets" : "configmaps", name);
        int r = ref_get(a, path, ret, reterr);

        if (r == -ENOENT)
                return error_set(reterr, ENOENT, "%s \"%s\" not found",
                                 secret ? "secret" : "configmap", name);
        return r;
}

/* token_fetch_fn: the kubelet's TokenRequest for a projected token (K8S: the token manager's
 * getToken, CoreV1().ServiceAccounts(ns).CreateToken with the request the projected plugin
 * built: audiences, expirationSeconds, boundObjectRef to the Pod). */
static int fetch_token(void *ud, const struct token_request *req, char **ret_token,
                       time_t *ret_expiration, struct error **reterr)
{
        struct node_agent *a = ud;
        cleanup_free char *path = xasprintf("/api/v1/namespaces/%s/serviceaccounts/%s/token",
                                            req->ns, req->service_account);
        cleanup_json json_t *body = NULL, *resp = NULL;
        cleanup_free char *text = NULL;
        const char *token, *exp;
        time_t t = 0;
        long code = 0;
        int r;

        body = json_pack("{s:s, s:s, s:{s:I, s:{s:s, s:s, s:s, s:s}}}", "apiVersion",
                         "authentication.k8s.io/v1", "kind", "TokenRequest", "spec",
                         "expirationSeconds", (json_int_t) req->expiration_seconds,
                         "boundObjectRef", "apiVersion", "v1", "kind", "Pod", "name", req->pod_name,
                         "uid", req->pod_uid);
        if (req->audience)
                json_object_set_new(json_object_get(body, "spec"), "audiences",
                                    json_pack("[s]", req->audience));
        text = json_dump_compact(body);
        pthread_mutex_lock(&a->sync_client_lock);
        r = api_client_request(a->sync_client, "POST", path, "application/json", text, strlen(text),
                               &code, &resp, reterr);
        pthread_mutex_unlock(&a->sync_client_lock);
        if (r < 0)
                return r;
        if (code != 201)
                return error_set(reterr, code == 404 ? ENOENT : EIO, "%s",
                                 json_string_value(json_object_get(resp, "message"))
                                         ?: "the token request failed");
        token = json_path_string(resp, "status.token");
        exp = json_path_string(resp, "status.expirationTimestamp");
        if (!token || !*token || !exp || time_parse_rfc3339(exp, &t) < 0)
                return error_set(reterr, EIO, "the token request's answer has no token");
        *ret_token = xstrdup(token);
        *ret_expiration = t;
        return 0;
}

/* The node's status write of a claim (docs/storage.md: the node writes /status only, with the
 * resourceVersion it read). */
static int patch_claim_status(void *ud, const char *ns, const char *claim, const json_t *patch,
                              struct error **reterr)
{
        struct node_agent *a = ud;
        cleanup_free char *path =
                xasprintf("/api/v1/namespaces/%s/persistentvolumeclaims/%s/status", ns, claim);
        cleanup_free char *body = json_dump_compact(patch);
        cleanup_json json_t *resp = NULL;
        long code = 0;
        int r;

        pthread_mutex_lock(&a->sync_client_lock);
        r = api_client_request(a->sync_client, "PATCH", path, "application/merge-patch+json", body,
                               strlen(body), &code, &resp, reterr);
        pthread_mutex_unlock(&a->sync_client_lock);
        if (r < 0)
                return r;
        if (code == 409)
                return error_set(reterr, ESTALE, "persistentvolumeclaim \"%s\": changed meanwhile",
                                 claim);
        if (code != 200)
                return error_set(reterr, EIO, "persistentvolumeclaim \"%s\" status: HTTP %ld",
                                 claim, code);
        /* the next pass must not act on the claim as it was before this write */
        {
                cleanup_free char *claim_path =
                        xasprintf("/api/v1/namespaces/%s/persistentvolumeclaims/%s", ns, claim);
                ref_store(a, claim_path, resp);
        }
        return 0;
}

/* The node's allocatable cpu (millicores) or memory (bytes), as it registers them. */
/* A quantity of the node's status.allocatable (or, with capacity, status.capacity): cpu in
 * millicores, the rest in units; 0 when absent or bad. */
static int64_t node_resource(const struct node_config *cfg, const char *resource, bool capacity)
{
        cleanup_json json_t *node = NULL;
        const char *text;
        struct quantity q;
        int64_t v = 0;

        if (node_build(cfg, &node, NULL) < 0)
                return 0;
        text = json_string_value(json_object_get(
                json_path(node, capacity ? "status.capacity" : "status.allocatable"), resource));
        if (!text || quantity_parse(text, &q, NULL) < 0)
                return 0;
        if (streq(resource, "cpu") ? quantity_milli_value(&q, &v) < 0 : quantity_value(&q, &v) < 0)
                return 0;
        return v;
}

/* Whether --feature-gates ("A=true,B=false") turns gate on. */
static bool gate_enabled(const char *gates, const char *gate)
{
        cleanup_free char *copy = gates ? xstrdup(gates) : NULL;
        char *save = NULL;
        bool on = false;

        for (char *item = copy ? strtok_r(copy, ",", &save) : NULL; item;
             item = strtok_r(NULL, ",", &save)) {
                char *eq = strchr(item, '=');
                if (eq && (size_t) (eq - item) == strlen(gate) &&
                    !strncmp(item, gate, strlen(gate)))
                        on = streq(eq + 1, "true");
        }
        return on;
}

static void agent_free(struct node_agent *a)
{
        a->image_gc = image_gc_stop(a->image_gc);
        /* no scrape may read the host once it is gone */
        if (a->registry)
                metrics_collector_remove(a->registry, pod_host_collect_volume_stats, a->host);
        kubelet_server_stop(a->kubelet);
        stats_rate_cache_free(a->rates);
        status_sender_stop(a->sender, SENDER_FLUSH_MS);
        api_client_free(a->watch_client);
        (void) close(a->cancel_fd);
        api_client_free(a->sync_client);
        api_client_free(a->beat_client);
        api_client_free(a->ref_client);
        nodevol_free(a->volumes);
        api_client_free(a->vol_client);
        pthread_mutex_destroy(&a->vol_lock);
        json_decref(a->refs);
        pthread_mutex_destroy(&a->ref_lock);
        pod_host_free(a->host);
        token_manager_free(a->tokens);
        json_decref(a->pods);
        a->queue = pod_queue_free(a->queue);
        free(a->workers);
        pthread_mutex_destroy(&a->lock);
        pthread_mutex_destroy(&a->sync_client_lock);
        pthread_cond_destroy(&a->wake);
        free(a->server_url);
        free(a->ca_file);
        free(a->token);
        free(a->cert_file);
        free(a->key_file);
        free(a->kubelet_token);
        free(a->node_name);
        free(a->data_dir);
        free(a->allocatable);
        free(a);
}

unsigned node_agent_default_pod_workers(void)
{
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);

        if (cpus < 1)
                cpus = 1;
        return (unsigned) (cpus > 8 ? 16 : 2 * cpus);
}

int node_agent_start(const struct node_agent_options *o, struct node_agent **ret,
                     struct error **reterr)
{
        struct node_agent *a;
        struct pod_host_options ho;
        int r;

        if (o->pod_workers == 0)
                return error_set(reterr, EINVAL, "--pod-workers must be at least 1");
        if (o->event_rate.qps > 0 && o->event_rate.burst == 0)
                return error_set(reterr, EINVAL, "--event-burst must be at least 1");
        a = xcalloc(1, sizeof(*a));

        pthread_mutex_init(&a->lock, NULL);
        pthread_mutex_init(&a->sync_client_lock, NULL);
        pthread_cond_init(&a->wake, NULL);
        a->queue = pod_queue_new();
        a->n_workers = o->pod_workers;
        a->workers = xcalloc(a->n_workers, sizeof(*a->workers));
        pthread_mutex_init(&a->ref_lock, NULL);
        pthread_mutex_init(&a->vol_lock, NULL);
        a->refs = json_object();
        a->pods = json_object();
        a->tokens = token_manager_new(fetch_token, a);
        a->rates = stats_rate_cache_new();
        a->server_url = xstrdup(o->server_url);
        a->ca_file = o->ca_file ? xstrdup(o->ca_file) : NULL;
        if (o->cert_file && o->key_file) {
                a->cert_file = xstrdup(o->cert_file);
                a->key_file = xstrdup(o->key_file);
        } else if (o->token) {
                a->token = xstrdup(o->token);
        }
        a->kubelet_token = o->kubelet_token ? xstrdup(o->kubelet_token) : NULL;
        a->node_name = xstrdup(o->node_name);
        a->data_dir = xstrdup(o->data_dir);
        a->allocatable = o->allocatable ? xstrdup(o->allocatable) : NULL;
        a->copts = (struct api_client_options){ .server_url = a->server_url,
                                                .ca_file = a->ca_file,
                                                .token = a->token,
                                                .cert_file = a->cert_file,
                                                .key_file = a->key_file,
                                                .feed = o->feed,
                                                .loopback = o->loopback };
        a->cancel_fd = eventfd(0, EFD_CLOEXEC);
        if (a->cancel_fd < 0)
                abort(); /* only when the process is out of descriptors */
        a->node = (struct node_config){ .node_name = a->node_name,
                                        .data_dir = a->data_dir,
                                        .allocatable = a->allocatable };
        /* The watch's idle timeout must outlast the server's heartbeat; the default does. */
        r = api_client_new(&a->copts, &a->watch_client, reterr);
        if (r >= 0)
                r = api_client_new(&a->copts, &a->sync_client, reterr);
        if (r >= 0)
                r = api_client_new(&a->copts, &a->beat_client, reterr);
        if (r >= 0)
                r = status_sender_start(&a->copts, SENDER_THREADS, COMPONENT, a->node_name,
                                        &o->event_rate, &a->sender, reterr);
        if (r >= 0 && o->metrics)
                r = node_metrics_register(o->metrics, a->node_name, &a->metrics, reterr);
        if (r >= 0)
                r = api_client_new(&a->copts, &a->ref_client, reterr);
        if (r >= 0)
                r = api_client_new(&a->copts, &a->vol_client, reterr);
        if (r >= 0)
                a->volumes = nodevol_new(a->node_name, a->data_dir, a->vol_client);
        if (r >= 0) {
                ho = (struct pod_host_options){
                        .node_name = a->node_name,
                        .data_dir = a->data_dir,
                        .cgroup_root = o->cgroup_root,
                        .allocatable_memory = node_resource(&a->node, "memory", false),
                        .allocatable_milli_cpu = node_resource(&a->node, "cpu", false),
                        .memory_capacity = node_resource(&a->node, "memory", true),
                        .memory_backed_volume_resize_cgroup_v1 =
                                gate_enabled(o->feature_gates, "MemoryBackedVolumeResizeCgroupV1"),
                        .metrics = o->metrics ? &a->metrics : NULL,
                        .claim_lookup = lookup_claim,
                        .claim_patch_status = patch_claim_status,
                        .claim_ud = a,
                        .object_lookup = lookup_object,
                        .object_ud = a,
                        .tokens = a->tokens,
                        .network = o->network,
                        .service_host = o->service_host,
                        .service_port = o->service_port,
                        .wake = pod_wake,
                        .wake_ud = a,
                        .insecure_registries = o->insecure_registries,
                };
                r = pod_host_open(&ho, &a->host, reterr);
                if (r >= 0 && o->metrics) {
                        a->registry = o->metrics;
                        metrics_collector_add(o->metrics, pod_host_collect_volume_stats, a->host);
                }
        }
        if (r >= 0) {
                struct kubelet_server_options ko = { .listen = o->kubelet_listen ?: "0.0.0.0:0",
                                                     .client_ca_pem = o->kubelet_client_ca_pem,
                                                     .cert_pem = o->kubelet_cert_pem,
                                                     .key_pem = o->kubelet_key_pem,
                                                     .token = a->kubelet_token,
                                                     .find_container = find_container,
                                                     .summary = summary,
                                                     .find_pod = find_pod,
                                                     .ud = a };
                r = kubelet_server_start(&ko, &a->kubelet, reterr);
        }
        if (r >= 0) {
                a->node.kubelet_port = kubelet_server_port(a->kubelet);
                r = node_register(a->sync_client, &a->node, reterr);
        }
        if (r >= 0) {
                struct image_gc_policy gp =
                        o->image_gc.period_ms ? o->image_gc : IMAGE_GC_POLICY_DEFAULT;

                r = image_gc_policy_check(&gp, reterr);
                if (r >= 0 && gp.high_percent < 100)
                        r = image_gc_start(a->data_dir, a->node_name, &a->copts, &gp, &a->image_gc,
                                           reterr);
        }
        if (r < 0) {
                agent_free(a);
                return r;
        }
        for (unsigned i = 0; i < a->n_workers; i++)
                if (pthread_create(&a->workers[i], NULL, worker_main, a) != 0)
                        abort(); /* thread creation fails only when out of resources */
        if (pthread_create(&a->watch_thread, NULL, watch_main, a) != 0 ||
            pthread_create(&a->resync_thread, NULL, resync_main, a) != 0 ||
            pthread_create(&a->beat_thread, NULL, beat_main, a) != 0)
                abort();
        *ret = a;
        return 0;
}

struct node_agent *node_agent_stop(struct node_agent *a)
{
        if (!a)
                return NULL;
        atomic_store(&a->stop, true);
        a->kubelet = kubelet_server_stop(a->kubelet);
        wake_resync(a);
        /* the workers end once the step in hand has (pod_queue_take returns NULL) */
        pod_queue_stop(a->queue);
        for (unsigned i = 0; i < a->n_workers; i++)
                (void) pthread_join(a->workers[i], NULL);
        (void) pthread_join(a->resync_thread, NULL);
        (void) pthread_join(a->beat_thread, NULL);
        /* The watch may be blocked waiting for events: cancelling its client (or, fed, the
         * cancel descriptor) ends it. */
        api_client_cancel(a->watch_client);
        (void) eventfd_write(a->cancel_fd, 1);
        (void) pthread_join(a->watch_thread, NULL);
        agent_free(a);
        return NULL;
}
