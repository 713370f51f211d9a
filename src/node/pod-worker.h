/* pod-worker.h: drives one pod on this host toward its spec, one level-based step at a time:
 * folder, cgroups, sandbox, volumes, init containers in order, sidecars, containers with their
 * restart policy and crash-loop backoff; graceful termination and teardown on deletion. Never
 * blocks for long: a step that must wait (a grace period, a backoff) returns and is looked at
 * again on the next sync. */
#ifndef FLEXLET_NODE_POD_WORKER_H
#define FLEXLET_NODE_POD_WORKER_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"

struct pod_host;
struct node_metrics;
struct pod_network;
struct token_manager;

/* Reads a claim and its bound PersistentVolume from the API (new references). A claim that is
 * not bound yet is -EAGAIN with the kubelet's words; one that does not exist -ENOENT. */
typedef int (*pod_claim_lookup_fn)(void *ud, const char *ns, const char *claim, json_t **ret_pvc,
                                   json_t **ret_pv, struct error **reterr);

/* Writes a claim's status subresource with a JSON merge patch (borrowed). -ESTALE on a
 * conflict (409): read again and retry at the next sync. */
typedef int (*pod_claim_patch_fn)(void *ud, const char *ns, const char *claim, const json_t *patch,
                                  struct error **reterr);

#include "node/pod-config.h"

struct pod_host_options {
        const char *node_name;
        const char *data_dir;
        const char *cgroup_root;
        const char *cgroup_sysfs;      /* where the cgroup file systems are; NULL: /sys/fs/cgroup */
        int64_t allocatable_memory;    /* bytes: the KEP-1967 ceiling of memory volumes */
        int64_t allocatable_milli_cpu; /* resize admission */
        /* bytes: the machine's memory (status.capacity), from which a Burstable container's
         * OOM score follows (K8S: machineInfo.MemoryCapacity); 0: no score is set */
        int64_t memory_capacity;
        /* flexlet's feature gate MemoryBackedVolumeResizeCgroupV1: resize tmpfs volumes on a
         * cgroup v1 host too (KEP-6030 makes that Infeasible) */
        bool memory_backed_volume_resize_cgroup_v1;
        const struct node_metrics *metrics;    /* where to count; NULL: nowhere */
        pod_claim_lookup_fn claim_lookup;      /* persistentVolumeClaim volumes; NULL: none */
        pod_claim_patch_fn claim_patch_status; /* the node's part of volume expansion */
        void *claim_ud;
        /* ConfigMaps and Secrets for env and envFrom (node/pod-config.h); NULL: a container
         * that refers to one waits in CreateContainerConfigError */
        pod_object_lookup_fn object_lookup;
        void *object_ud;
        /* the service account tokens of projected serviceAccountToken sources (borrowed,
         * outlives the host; node/token-manager.h); NULL: such a volume fails to mount */
        struct token_manager *tokens;
        /* the pod network (borrowed, outlives the host); NULL: every pod uses the host's */
        const struct pod_network *network;
        /* called from another thread when a pod is to be stepped soon: its probes changed
         * their verdict or have events to report (node/prober.h), an image pull of it ended, a
         * container of it exited (node/exit-watch.h); NULL: at the next periodic pass */
        void (*wake)(void *ud, const char *pod_uid);
        void *wake_ud;
        /* K8S: the `kubernetes` service every container is told of (KUBERNETES_SERVICE_HOST,
         * KUBERNETES_SERVICE_PORT and the link variables); NULL: none */
        const char *service_host;
        unsigned service_port;
        /* registries pulled from over plain http (HOST[:PORT], NULL-ended; --insecure-registry) */
        const char *const *insecure_registries;
};

int pod_host_open(const struct pod_host_options *o, struct pod_host **ret, struct error **reterr);
struct pod_host *pod_host_free(struct pod_host *h);

/* An event the worker wants recorded about the pod. */
struct pod_event {
        const char *type; /* "Normal", "Warning" */
        const char *reason;
        char *message;  /* owned */
        json_t *object; /* owned; what the event is about when not the pod (a claim) */
};

struct pod_events {
        struct pod_event items[16];
        size_t n;
};
void pod_events_release(struct pod_events *ev);

enum pod_sync_result {
        POD_SYNC_RUNNING,  /* keep syncing; *ret_status is the status to report */
        POD_SYNC_FINISHED, /* deleted and everything on the host is gone: delete the object */
};

/* One step for pod. Steps of different pods may run at once on different threads; two steps of
 * one pod never may (the caller's queue sees to it: node/pod-queue.h). Sets *ret_status (new
 * reference) to the status to report (NULL when there is nothing to report, e.g. after teardown)
 * and appends events to ev. */
int pod_worker_sync(struct pod_host *h, const json_t *pod, json_t **ret_status,
                    struct pod_events *ev, struct error **reterr);
/* The step of a pod only the periodic resync marked (nothing happened to it since its last
 * step): when its last full step left it steady (every container running as specified, no
 * deadline, back-off, pending resize or claim) at this version of it, and that step is less
 * than STEADY_FULL_S (10 s) old, only its configMap, secret, downward API and projected
 * volumes are brought up to date (events to ev) and 1 is returned; else 0, and the caller runs
 * pod_worker_sync. The same threading rules as pod_worker_sync. */
int pod_worker_sync_light(struct pod_host *h, const json_t *pod, struct pod_events *ev);
/* After a step of the pod uid, once its status is on its way: writes what the step recorded
 * that nothing waits for (the actuated state of a resize's steps, which a restart could only
 * repeat). The thread that ran the step, before the pod's next step. */
void pod_worker_sync_after(struct pod_host *h, const char *uid);

/* The order to step the pods of `pods` (uid -> Pod) in: a JSON array of uids, pods whose spec
 * matches their allocation first, then pending resizes in the retry queue's order (K8S:
 * sortPendingResizes), so each admission sees the allocations accepted before it. */
json_t *pod_host_sync_order(struct pod_host *h, const json_t *pods);

/* metrics_collect_fn (ud: the pod host): kubelet_volume_stats_* of the claims mounted here,
 * measured at scrape time. Safe from any thread while the host lives. */
struct metrics_scrape;
int pod_host_collect_volume_stats(struct metrics_scrape *scrape, void *ud, struct error **reterr);

/* The kubelet's Summary (GET /stats/summary; node/stats-summary.h) of this node (node_name)
 * and of the pods in `pods` (uid -> Pod, the agent's copy; borrowed) that have state here:
 * node CPU and memory from /proc, its fs from the data dir's statfs; each pod's and running
 * container's CPU and memory from their cgroups (cgroup_stats), CPU rates through rates;
 * emptyDir and claim volumes from statfs (a disk emptyDir's usedBytes as du counts it). A pod
 * or container whose cgroup is gone is left out or reported without those stats, as the
 * kubelet does. Reads only the disk and the cgroups: safe from any thread while h lives.
 * *ret: a new reference. */
struct stats_rate_cache;
int pod_host_stats_summary(struct pod_host *h, const char *node_name, const json_t *pods,
                           struct stats_rate_cache *rates, json_t **ret, struct error **reterr);

/* Sets the gauges of running pods and containers from what the last steps observed. */
void pod_host_update_metrics(struct pod_host *h);

/* The runtime state dir of a container's newest run (back 0) or the one before it (back 1), or
 * NULL when there is no such run. Reads only the disk: safe from any thread. */
char *pod_host_container_run_dir(struct pod_host *h, const char *uid, const char *name, int back);

/* Whether pod uid has memory in this process or a folder on this host. Any thread. */
bool pod_host_has_pod(struct pod_host *h, const char *uid);
/* The uids of the pods that have state on this host (DATA_DIR/pods/<uid>); JSON array. */
json_t *pod_host_known_uids(struct pod_host *h);
/* Removes everything of a pod the API no longer has: processes, mounts, cgroups, folder. */
int pod_host_remove_orphan(struct pod_host *h, const char *uid, struct error **reterr);

#endif
