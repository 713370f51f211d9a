/* pod-status.h: the pod status the kubelet would report, computed from what the node observed
 * of each container (pure: no I/O). Phase, the five conditions, and container statuses with
 * state, lastState, ready, started, restartCount, ids, allocatedResources and resources. */
#ifndef FLEXLET_NODE_POD_STATUS_H
#define FLEXLET_NODE_POD_STATUS_H

#include <jansson.h>
#include <stdbool.h>
#include <time.h>

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
};

struct pod_observation {
        bool sandbox_ready;
        const char *host_ip;
        time_t start_time; /* when the node first acknowledged the pod; 0 before */
        const struct container_observation *init; /* spec.initContainers order */
        size_t n_init;
        const struct container_observation *containers; /* spec.containers order */
        size_t n_containers;
};

/* The status object to write (new reference). old_status (may be NULL) keeps condition
 * transition times and PodScheduled. */
json_t *pod_status_build(const json_t *pod, const struct pod_observation *o,
                         const json_t *old_status, time_t now);

#endif
