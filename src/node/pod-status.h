/* pod-status.h: the pod status the kubelet would report, computed from what the node observed
 * of each container (pure: no I/O). Phase, the five conditions, and container statuses with
 * state, lastState, ready, started, restartCount, ids, allocatedResources and resources. */
#ifndef FLEXLET_NODE_POD_STATUS_H
#define FLEXLET_NODE_POD_STATUS_H

#include <jansson.h>
#include <stdbool.h>
#include <time.h>

#include "api/pod-resources.h"

enum container_phase {
        CONTAINER_WAITING,
        CONTAINER_RUNNING,
        CONTAINER_TERMINATED,
        CONTAINER_PHASE_MAX,
};

struct container_termination {
        int exit_code;
        int signal;
        const char *reason; /* "Completed", "Error", "OOMKilled", "StartError", ... */
        const char *message;
        time_t started_at;
        time_t finished_at;
};

/* What the node knows of one container (regular, init or sidecar). */
struct container_observation {
        const char *name;
        enum container_phase phase;
        const char *waiting_reason; /* CONTAINER_WAITING: "ContainerCreating", "PodInitializing",
                                     * "CrashLoopBackOff", "ErrImagePull", ... */
        const char *waiting_message;
        time_t started_at;                    /* CONTAINER_RUNNING */
        struct container_termination current; /* CONTAINER_TERMINATED */
        bool has_last;                        /* lastState.terminated */
        struct container_termination last;
        int restart_count;
        const char *container_id; /* "flexlet://…", NULL before the first start */
        const char *image_id;
        const json_t *resources; /* actual {limits, requests} read back, or NULL */
        const json_t *allocated; /* allocated requests (ResourceList), or NULL */
        /* what the probes say of a running container (node/prober.h) */
        bool not_started; /* its startupProbe has not succeeded yet */
        bool unready;     /* not started, or its readinessProbe does not say ready */
};

struct pod_observation {
        bool sandbox_ready;
        const char *host_ip;
        /* the pod's IP: its sandbox's eth0 (CNI), or host_ip for a hostNetwork pod; NULL while
         * it has none (K8S: podIP is absent until the sandbox's network is set up; a podIP
         * reported before is kept) */
        const char *pod_ip;
        time_t start_time; /* when the node first acknowledged the pod; 0 before */
        const struct container_observation *init; /* spec.initContainers order */
        size_t n_init;
        const struct container_observation *containers; /* spec.containers order */
        size_t n_containers;
        /* The node evicted the pod (K8S: eviction manager): phase Failed, reason "Evicted",
         * this message, and a DisruptionTarget condition. NULL otherwise. */
        const char *evicted_message;
        /* K8S (KEP-1287): PodResizePending with this reason ("Deferred", "Infeasible") and
         * message when set; PodResizeInProgress while the allocation is not all actuated, with
         * reason "Error" and resize_error as its message when the last step failed. Both carry
         * metadata.generation as observedGeneration; status.resize (deprecated) follows. */
        const char *resize_pending_reason;
        const char *resize_pending_message;
        bool resize_in_progress;
        const char *resize_error;
        /* KEP-6030: the live size of each Memory emptyDir, {volume: quantity}, reported in
         * containerStatuses[].volumeMounts[].volumeStatus.emptyDir.sizeLimit. May be NULL. */
        const json_t *memory_volume_sizes;
};

/* K8S: status.containerStatuses[].resources of a running container (kubelet
 * convertContainerStatusResources): the allocated requests and limits (JSON objects or NULL)
 * with the kernel's values where it has them: the cpu request from the shares (unless both are
 * at the minimum; on v2 see pod_status_cpu_shares_from_weight), the cpu
 * limit from the CFS quota (unless both are at the minimum effective limit), the memory limit. NULL
 * when the container has neither requests nor limits. */
/* The cpu shares a cgroup v2 container cgroup holding cpu.weight stands for, to report: the
 * allocated request's shares (requests' "cpu", may be absent) when weight is their conversion
 * (cpu_shares_to_weight_oci), as upstream reports the allocated value; else the runtime's
 * inverse (cpu_weight_to_shares_oci: 100m is weight 17, which alone would read 93m). */
int64_t pod_status_cpu_shares_from_weight(const json_t *requests, int64_t weight);

json_t *pod_status_container_resources(const json_t *requests, const json_t *limits,
                                       const struct pod_cgroup_config *actual);

/* The status object to write (new reference). old_status (may be NULL) keeps condition
 * transition times and PodScheduled. */
json_t *pod_status_build(const json_t *pod, const struct pod_observation *o,
                         const json_t *old_status, time_t now);

#endif
