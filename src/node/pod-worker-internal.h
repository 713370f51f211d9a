/* pod-worker-internal.h: what the parts of the node's pod worker share: the agent's memory of
 * pods and containers and the step being taken, with each part's interface. pod-worker.c (a
 * pod's lifecycle) calls pod-resize.c (its allocation and in-place resize), pod-claims.c (its
 * claims) and pod-userns.c (its user namespace); every part calls pod-step.c (events, names);
 * none calls back into pod-worker.c. */
#ifndef FLEXLET_NODE_POD_WORKER_INTERNAL_H
#define FLEXLET_NODE_POD_WORKER_INTERNAL_H

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "api/pod-resources.h"
#include "node/pod-spec.h"
#include "node/pod-worker.h"

struct cgroup_manager;
struct node_metrics;

struct backoff {
        int64_t delay_s; /* 0: no entry */
        time_t updated;  /* when the entry last moved */
};

/* What this agent process remembers of a container between steps. */
struct container_memory {
        char *name;
        int latest;                 /* the newest run's number, -1 when never started */
        struct backoff restart;     /* crash-loop back-off */
        struct backoff pull;        /* image-pull back-off */
        bool pull_backoff_reported; /* the BackOff event of the current pull wait went out */
        char *pull_message;         /* the last pull failure's words, or NULL */
        int pulled_run;             /* the run whose start pulled the image (policy Always) */
        bool backoff_reported;      /* the BackOff event of the current wait went out */
        bool term_sent;             /* SIGTERM sent during termination */
        bool resize_restart;        /* killed for a RestartContainer resize: start again now */
        int probe_kill_run;         /* the run being killed for a failed liveness or startup
                                     * probe; -1: none */
        int exit_watched_run;       /* the run whose exit h->exits watches; -1: none */
        unsigned exit_watch_seen;   /* the pod's exits_seen when that watch was added */
        /* The newest run as a step last read it running, its exit watched: while no exit of the
         * pod has fired since the watch was added, it still runs, and a step does not read its
         * state again (observe). -1: none. */
        int running_run;
        time_t running_started_at;
        time_t probe_kill_deadline; /* SIGKILL after this */
};

struct pod_memory {
        char *uid;
        char *dir;    /* DATA/pods/<uid> */
        char *cgroup; /* kubepods/.../pod<uid> */
        time_t start_time;
        bool prepared; /* folder, cgroups, volumes checked by this process */
        /* K8S: the pod ended (Succeeded or Failed): its sandbox, network, volumes and cgroups
         * are released (pod.json says so), its records and logs stay until it is deleted */
        bool released;
        bool release_done; /* this process finished the release (it is repeated once after a
                            * restart: every part of it is idempotent) */
        bool mount_error_reported;
        time_t kill_deadline; /* 0: not terminating */
        /* bumped (atomically) by the exit watch's thread when a watched run of the pod ended */
        unsigned exits_seen;
        time_t next_usage_check;
        /* The last full step found the pod steady (pod_worker_sync_light) at this version of
         * it: until then the resync's passes only refresh its payload volumes. 0: not steady. */
        time_t steady_until;
        char *steady_rv;
        int64_t first_seen_ms; /* monotonic; 0 unless this process wrote pod.json */
        bool start_reported;   /* kubelet_pod_start_duration_seconds observed */
        bool sandbox_ready;    /* as the last step saw it */
        /* its sandbox's end is watched (h->exits) since the pod's exits_seen was
         * sandbox_watch_seen: while that has not moved, it runs (sync_pod does not read it) */
        bool sandbox_watched;
        unsigned sandbox_watch_seen;
        char *pod_ip;            /* its sandbox's network is attached (this process checked) */
        time_t network_retry;    /* a failed attach is not tried again before this */
        size_t n_running;        /* containers running at the last step */
        char *evicted;           /* the eviction message once the pod is evicted */
        json_t *payload_errors;  /* FailedMount messages of configMap/secret/... volumes sent */
        json_t *payload_digests; /* volume name -> payload_digest of what was last written */
        /* a full step compares the payload volumes' files again from then on (0: now) */
        time_t payload_compare_at;
        /* resize (pod-resize.c) */
        struct pod_spec *spec;   /* the typed spec of the latest generation seen (pod-spec.h) */
        json_t *allocation;      /* allocated.slots: what the node agreed to run */
        uint64_t allocation_seq; /* its record's number in allocated.slots (0: none yet) */
        json_t *actuated;        /* actuated.slots: what the kernel was last told */
        uint64_t actuated_seq;   /* its record's number in actuated.slots (0: none yet) */
        bool actuated_unsaved; /* actuated has steps actuated.slots has not (pod_actuated_flush) */
        unsigned allocation_gen; /* bumped whenever the allocation changes */
        unsigned settled_gen;    /* + 1 = the allocation the last empty plan was made for */
        int64_t alloc_milli_cpu; /* the allocation's requests, 0 once the pod is done */
        int64_t alloc_memory;
        char *pending_reason; /* PodResizePending: "Deferred", "Infeasible", or NULL */
        char *pending_message;
        time_t pending_since;
        json_t *pending_for; /* the desired allocation the pending verdict is about */
        bool resizing;       /* the last plan had steps: ResizeCompleted when it empties */
        char *resize_error;  /* the last failed step's message (PodResizeInProgress Error) */
        char *admit_error;   /* the last failed admission's message, logged once */
        struct backoff resize_retry;
        time_t resize_failed_at;
        int64_t resize_started_ms; /* monotonic, when the allocation was accepted; 0: none */
        struct container_memory *containers;
        size_t n_containers;
        uint32_t userns_base;  /* K8S KEP-127: the pod's user namespace range; 0: the host's */
        struct pod_host *host; /* where it belongs: its pods_lock */
        /* What pod_host_update_metrics reads from another thread: copied from the fields above
         * at the end of each step, under the host's pods_lock. */
        struct {
                bool sandbox_ready, resizing, deferred, infeasible;
                size_t n_running;
                char *steady_rv; /* steady_rv: no resize pending at that version */
        } shown;
};

struct userns_ranges;

/* Threads. The agent steps each pod on one worker thread at a time (node/pod-queue.h), but
 * different pods at once: a pod_memory is its worker's alone but for the fields other threads
 * read, which are written under pods_lock; what the pods share is under the locks below. */
struct pod_host {
        char *node_name;
        char *data_dir;
        char *pods_dir;
        int64_t allocatable_memory;
        int64_t allocatable_milli_cpu;
        int64_t memory_capacity; /* bytes, the machine's: containers' OOM scores */
        bool cgroup_v1;
        bool volume_resize_on_v1; /* --feature-gates MemoryBackedVolumeResizeCgroupV1=true */
        char host_ip[64];
        const struct pod_network *network; /* NULL: every pod on the host's network */
        char *service_host;                /* KUBERNETES_SERVICE_HOST, or NULL */
        unsigned service_port;
        struct cgroup_manager *cgroups;
        const struct node_metrics *metrics;
        pod_claim_lookup_fn claim_lookup;
        pod_claim_patch_fn claim_patch_status;
        void *claim_ud;
        pod_object_lookup_fn object_lookup;
        void *object_ud;
        struct token_manager *tokens; /* borrowed; NULL: no tokens */
        struct prober *prober;        /* the containers' probes (node/prober.h) */
        struct image_puller *puller;  /* image pulls (node/image-puller.h) */
        struct exit_watch *exits;     /* the running containers' exits (node/exit-watch.h) */
        void (*wake)(void *ud, const char *pod_uid);
        void *wake_ud;
        /* the claims mounted here, mount point -> [namespace, claim]: read by the volume stats
         * collector on a scrape thread, hence the lock */
        pthread_mutex_t claims_lock;
        json_t *mounted_claims;
        /* pods_lock: the array pods (the worker of a pod adds and removes it, the resync
         * reads it) and, of every pod_memory, what another pod's worker or the resync reads:
         * the allocation pointer, alloc_milli_cpu, alloc_memory, pending_since and shown. The
         * owning worker writes those under it and reads them without. Never held across I/O. */
        pthread_mutex_t pods_lock;
        struct pod_memory **pods;
        size_t n_pods;
        /* K8S: the kubelet's allocation manager admits one resize at a time (its podResizeMutex):
         * the sum of the other pods' allocations and this pod's new one are one decision
         * (pod-resize.c pod_resize_admit). Held until the accepted pod's requests count (at the
         * larger of old and new while its allocation is being made durable), not across
         * that write: the pods of a burst flush theirs at once. */
        pthread_mutex_t admit_lock;
        /* loop_lock: the loop devices of claim volumes (pod-claims.c): two pods of one claim
         * must not attach it twice (two devices for one file), nor one detach or grow it while
         * another mounts it. Held across the attach, grow, mount, unmount and detach. */
        pthread_mutex_t loop_lock;
        /* userns_lock: the user namespace ranges handed out (pod-userns.c), and whose: base ->
         * pod uid */
        pthread_mutex_t userns_lock;
        struct userns_ranges *userns;
        json_t *userns_owners;
};

/* Strings an observation points to live until the step ends. */
struct step {
        struct pod_host *h;
        struct pod_memory *p;
        const json_t *pod;
        json_t *alloc_pod;    /* the pod with its allocated resources */
        bool resize_activity; /* a resize step ran or completed in this step */
        struct pod_events *ev;
        time_t now;
        char **strings;
        size_t n_strings;
        json_t *json; /* an array keeping JSON values alive */
};

/* pod-worker.c */
const char *keep(struct step *s, char *str);

/* pod-step.c */
void add_event(struct pod_events *ev, const char *type, const char *reason, char *message);
/* An event about object (a claim) rather than the pod; NULL: the pod. */
void add_event_about(struct pod_events *ev, const json_t *object, const char *type,
                     const char *reason, char *message);
/* The newest run number of container name in pod_dir (DATA/pods/<uid>), -1 when none. Reads
 * only the disk. */
int latest_run_in(const char *pod_dir, const char *name);
/* What the agent remembers of the pod's container name, made (its newest run read from the
 * disk) the first time. */
struct container_memory *container_memory_get(struct pod_memory *p, const char *name);
/* A run's container id: sha256 of "<uid>/<name>/<run>" in hex, as long as containerd's. */
void container_id(const char *uid, const char *name, int run, char out[static 65]);
/* A run's state folder (runtime_container_dir), its cgroup (under the pod's), a volume's
 * folder: new strings. */
char *run_dir(const struct pod_host *h, const struct pod_memory *p, const char *name, int run);
char *run_cgroup(const struct pod_memory *p, const char *name, int run);
char *volume_path(const struct pod_memory *p, const char *name);
/* storage_operation_duration_seconds, or NULL when the host keeps no metrics */
struct metric *storage_operations(const struct pod_host *h);
/* Sends sig to the container's newest run when it runs. */
void signal_run(struct step *s, struct container_memory *cm, int sig);

/* pod-claims.c */
/* Mounts the PersistentVolume bound to claim at the pod's folder for volume (attaching its loop
 * device). -EAGAIN with a message while the claim is not bound. Idempotent. */
int pod_claim_setup(struct pod_host *h, struct pod_memory *p, const json_t *pod, const char *volume,
                    const char *claim, struct pod_events *ev, struct error **reterr);
/* The node's part of a volume expansion for the running pod's mounted claims (online). */
void pod_claims_expand(struct step *s);
/* Unmounts the pod's claim volumes (DATA/pods/<uid> = pod_dir) and detaches their devices
 * when no other mount uses them. */
int pod_claims_teardown(struct pod_host *h, const char *pod_dir, struct error **reterr);

/* pod-userns.c */
/* Reads back every pod folder's user namespace record (K8S: the kubelet's userns manager at
 * start); a range recorded twice is an error. */
int pod_userns_init(struct pod_host *h, struct error **reterr);
void pod_userns_free(struct pod_host *h);
/* Sets p->userns_base: the pod's recorded range, or a new one taken and recorded (durably)
 * when the pod has hostUsers: false; 0 otherwise. */
int pod_userns_setup(struct pod_host *h, struct pod_memory *p, const json_t *pod,
                     struct error **reterr);
/* Frees the range of pod uid (once its folder, and so its record, is gone). */
void pod_userns_release(struct pod_host *h, const char *uid, uint32_t base);
/* The range recorded in pod_dir, 0 when none. */
int pod_userns_recorded(const char *pod_dir, uint32_t *ret_base);

/* pod-resize.c */
/* Loads allocated.slots and actuated.slots of a prepared pod, or writes the first allocation (the
 * spec's) and an empty actuated state. Idempotent. */
int pod_allocation_load(struct pod_host *h, struct pod_memory *p, const json_t *pod,
                        struct error **reterr);
/* The pod's typed spec (pod-spec.h), decoded once per generation and made current against the
 * allocation; NULL when the spec is malformed (the resize path then does nothing for it). */
struct pod_spec *pod_spec_of(struct pod_memory *p, const json_t *pod);
/* The pod with its allocated resources (new reference, read-only); the pod itself before
 * allocation or when they are the spec's. */
json_t *pod_allocated(struct pod_memory *p, const json_t *pod);
/* Records and persists that a cgroup (container name, or NULL for the pod's) now holds cfg, or
 * a Memory emptyDir its size. */
void pod_actuated_cgroup(struct pod_memory *p, const char *container,
                         const struct pod_cgroup_config *cfg);
void pod_actuated_volume(struct pod_memory *p, const char *volume, int64_t bytes);
/* Writes actuated.slots if the last plan's steps are not in it yet (pod_worker_sync_after). */
void pod_actuated_flush(struct pod_memory *p);
/* Admission of a changed desired allocation (events, PodResizePending). Fails only when an
 * accepted allocation could not be made durable: nothing of it is applied or counted then, and
 * the next step tries again (K8S: RetryPendingResizes logs "Failed to handle pod resize" and
 * goes on). */
int pod_resize_admit(struct step *s, struct error **reterr);
/* Actuation toward the allocation, step by step in the required order; running is the
 * NULL-terminated names of the running containers. */
void pod_resize_actuate(struct step *s, const char *const *running);
/* Frees the resize part of a pod's memory. */
void pod_resize_forget(struct pod_memory *p);
/* The pod's allocation no longer counts (done, evicted, deleting). */
void pod_resize_release_requests(struct pod_memory *p);

#endif
