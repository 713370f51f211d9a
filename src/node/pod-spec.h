/* pod-spec.h: the node's typed pod model. A pod's spec, as the API server sent it (hostile until
 * checked), is decoded and validated once per (uid, generation) into C structures: its containers
 * (name, image, kind, cpu and memory requests and limits as integers, resizePolicy) and volumes
 * (Memory emptyDirs with their sizeLimit, claims). The decode also keeps what the resize path
 * needs derived from the spec, so a step that only has to compare does not walk JSON:
 *  - the allocation the spec asks for (resize.h's shape; built once);
 *  - the pod's requests (K8S: PodRequests), for admission and the retry queue's order;
 *  - per allocation (allocation_gen), whether it equals the spec's ask, the pod with the
 *    allocated resources, and the resize plan's targets (resize.h's struct resize_targets: every
 *    cgroup's config and every Memory emptyDir's size at the allocated values).
 * JSON remains where the API is read (the decode) and written (the status, the checkpoints).
 *
 * The generation is the key because a pod's spec is what moves it (K8S: KEP-5067, pod
 * generation; flexlet's strategy-core.c); a pod without one (a test's literal) is keyed by its
 * resourceVersion, and one without either is decoded at every step. */
#ifndef FLEXLET_NODE_POD_SPEC_H
#define FLEXLET_NODE_POD_SPEC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "base/macro.h"
#include "node/resize.h"

/* Which of a container's four values are set (an absent one is unset, not 0). */
#define POD_SPEC_CPU_REQUEST    (1u << 0)
#define POD_SPEC_CPU_LIMIT      (1u << 1)
#define POD_SPEC_MEMORY_REQUEST (1u << 2)
#define POD_SPEC_MEMORY_LIMIT   (1u << 3)

struct pod_spec_resources {
        unsigned set;              /* POD_SPEC_* bits */
        int64_t cpu_request_milli; /* millicores, rounded up as Quantity.MilliValue */
        int64_t cpu_limit_milli;
        int64_t memory_request; /* bytes, rounded up as Quantity.Value */
        int64_t memory_limit;
};

enum pod_spec_container_kind {
        POD_SPEC_CONTAINER,      /* spec.containers */
        POD_SPEC_INIT_CONTAINER, /* spec.initContainers, run to completion */
        POD_SPEC_SIDECAR,        /* spec.initContainers with restartPolicy Always */
};

struct pod_spec_container {
        const char *name; /* borrowed from the decoded pod (pod_spec holds a reference) */
        const char *image;
        enum pod_spec_container_kind kind;
        struct pod_spec_resources resources;
        /* resizePolicy: restartPolicy RestartContainer for the resource (default NotRequired) */
        bool restart_on_cpu_resize;
        bool restart_on_memory_resize;
};

enum pod_spec_volume_kind {
        POD_SPEC_VOLUME_OTHER,
        POD_SPEC_VOLUME_EMPTYDIR,
        POD_SPEC_VOLUME_CLAIM, /* persistentVolumeClaim */
};

struct pod_spec_volume {
        const char *name;
        enum pod_spec_volume_kind kind;
        bool memory;              /* emptyDir medium: Memory */
        const char *size_limit;   /* emptyDir sizeLimit as written, NULL without one */
        int64_t size_limit_bytes; /* its value; -1 without one */
        const char *claim_name;   /* persistentVolumeClaim.claimName */
        bool read_only;           /* persistentVolumeClaim.readOnly */
};

struct pod_spec {
        json_t *pod; /* the pod decoded (a reference: the borrowed strings live in it) */
        char *uid;
        int64_t generation;     /* metadata.generation; 0 without one */
        char *resource_version; /* the key when there is no generation; NULL without one */
        /* spec.initContainers then spec.containers, each in spec order */
        struct pod_spec_container *containers;
        size_t n_containers;
        struct pod_spec_volume *volumes; /* spec.volumes in order */
        size_t n_volumes;
        int64_t requests_milli_cpu; /* K8S: PodRequests of the spec */
        int64_t requests_memory;
        json_t *desired; /* resize_allocation_from_pod(pod) */

        /* Derived against one allocation (pod_spec_against). */
        unsigned against_gen; /* allocation_gen + 1 the members below are for; 0: none */
        bool desired_is_allocated;
        json_t *alloc_pod; /* the pod with the allocated resources (pod itself when equal) */
        int64_t alloc_requests_milli_cpu;
        int64_t alloc_requests_memory;
        unsigned targets_gen; /* against_gen the targets are for; 0: none */
        bool targets_ok;      /* false: the allocated pod's quantities do not parse */
        struct resize_targets targets;
};

/* Decodes and validates pod (a v1 Pod object). -EINVAL with a "spec.containers[0].resources.
 * limits.cpu: ..." message for anything malformed: a missing or non-string container or volume
 * name, a duplicate name, a quantity that does not parse or is negative, a resizePolicy that is
 * not a list of objects, a sizeLimit that does not parse; -ERANGE for a quantity past int64.
 * *ret (free it with pod_spec_free) is
 * set only on success. */
int pod_spec_decode(const json_t *pod, struct pod_spec **ret, struct error **reterr);
void pod_spec_free(struct pod_spec *s);
DEFINE_CLEANUP(struct pod_spec, pod_spec_free, pod_spec)

/* Whether s was decoded from this generation of this pod (the cache's key). */
bool pod_spec_is_for(const struct pod_spec *s, const json_t *pod);

/* Makes s's allocation-derived members current for allocation (resize.h's shape; NULL: none
 * yet, the spec's own resources) whose generation counter is allocation_gen (the caller bumps it
 * whenever the allocation changes): a no-op when they already are. Never fails: an allocated pod
 * whose quantities do not parse counts as requesting nothing. */
void pod_spec_against(struct pod_spec *s, const json_t *allocation, unsigned allocation_gen);

/* The resize plan's targets at the allocation of the last pod_spec_against, built at most once
 * per allocation; allocatable_memory sizes the Memory emptyDirs (KEP-1967). NULL when the
 * allocated pod's quantities do not parse (or pod_spec_against was never called). */
const struct resize_targets *pod_spec_targets(struct pod_spec *s, int64_t allocatable_memory);

/* The container named name, else NULL. */
const struct pod_spec_container *pod_spec_container(const struct pod_spec *s, const char *name);

#endif
