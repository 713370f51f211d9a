/* scheduler-internal.h: one scheduling cycle as the scheduler's plugin files share it (K8S:
 * pkg/scheduler/framework's CycleState, NodeInfo and the default profile's plugins). The cycle is
 * built once per pod from borrowed JSON (the pod, the cluster's nodes and pods); each plugin file
 * implements its filters and scores over it, with no I/O:
 *   scheduler-resources.c  NodeResourcesFit (filter, LeastAllocated), BalancedAllocation
 *   scheduler-nodes.c      NodeAffinity (filter, score), TaintToleration (score)
 *   scheduler-affinity.c   InterPodAffinity (filter, score)
 *   scheduler-spread.c     PodTopologySpread (filter, score, the system default constraints)
 *   scheduler-cycle.c      the order of filters and scores, the weights, the choice, FitError
 * A filter returns enum sched_code and appends its reasons (upstream's words, JSON strings) to
 * the reasons array it is given. A score fills scores[i] for each feasible node i (0..100 after
 * normalizing) and returns false when the plugin skips this pod (every node scores 0). */
#ifndef FLEXLET_CONTROLLERS_SCHEDULER_INTERNAL_H
#define FLEXLET_CONTROLLERS_SCHEDULER_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#define SCHED_MAX_NODE_SCORE 100 /* K8S: framework.MaxNodeScore */
#define LABEL_HOSTNAME       "kubernetes.io/hostname"
#define LABEL_ZONE           "topology.kubernetes.io/zone"

/* K8S: the framework's status codes a filter can return. */
enum sched_code {
        SCHED_OK,
        SCHED_UNSCHEDULABLE, /* preemption might help */
        SCHED_UNRESOLVABLE,  /* UnschedulableAndUnresolvable: preemption cannot help */
};

/* K8S NodeInfo: one node and what is bound to it. */
struct sched_node {
        const json_t *node;       /* borrowed */
        const char *name;         /* borrowed from node */
        const json_t *labels;     /* metadata.labels, may be NULL */
        json_t *pods;             /* the non-terminal pods bound here (an array, owned) */
        int64_t req_cpu, req_mem; /* K8S Requested: per pod max(desired, allocated) */
        int64_t nz_cpu, nz_mem;   /* K8S NonZeroRequested: the same with 100m/200Mi defaults */
        int64_t cap_cpu, cap_mem, cap_pods; /* status.allocatable */
};

struct ipa_state;
struct spread_state;

struct sched_cycle {
        const json_t *pod; /* borrowed */
        const char *ns;    /* the pod's namespace */
        const json_t
                *namespaces; /* "name" -> Namespace (labels for namespaceSelector); may be NULL */
        const json_t *replicasets; /* "ns/name" -> ReplicaSet (default spreading); may be NULL */
        struct sched_node *nodes;  /* every node of the cluster */
        size_t n_nodes;
        int64_t want_cpu, want_mem;       /* the pod's requests */
        int64_t nz_want_cpu, nz_want_mem; /* its non-zero requests */
        struct ipa_state *ipa;            /* InterPodAffinity's PreFilter state */
        struct spread_state *spread;      /* PodTopologySpread's PreFilter state */
};

static inline const char *sched_label(const struct sched_node *n, const char *key)
{
        return json_string_value(json_object_get(n->labels, key));
}

/* K8S DefaultNormalizeScore: scores scaled so the largest is 100 (reversed: 100 minus that);
 * all 0 stays 0 (reversed: all 100). */
void sched_normalize_default(int64_t *scores, size_t n, bool reverse);

/* ---- scheduler-resources.c ---- */

/* K8S GetNonzeroRequests over PodRequests: a container without a cpu (memory) request counts
 * 100m (200Mi); per resource the larger of desired and allocated. */
int sched_pod_nonzero_requests(const json_t *pod, int64_t *ret_milli_cpu, int64_t *ret_memory);
/* NodeResourcesFit's filter: "Too many pods", "Insufficient cpu", "Insufficient memory". */
enum sched_code sched_fit_filter(const struct sched_cycle *c, const struct sched_node *n,
                                 json_t *reasons);
bool sched_score_least_allocated(const struct sched_cycle *c, struct sched_node *const *nodes,
                                 size_t n, int64_t *scores);
bool sched_score_balanced(const struct sched_cycle *c, struct sched_node *const *nodes, size_t n,
                          int64_t *scores);

/* ---- scheduler-nodes.c ---- */

/* K8S GetRequiredNodeAffinity(pod).Match(node): spec.nodeSelector and
 * spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution. */
bool sched_node_affinity_matches(const json_t *pod, const struct sched_node *n);
/* K8S DoNotScheduleTaintsFilterFunc: the node's NoSchedule and NoExecute taints are tolerated. */
bool sched_node_taints_tolerated(const json_t *pod, const struct sched_node *n);
bool sched_score_node_affinity(const struct sched_cycle *c, struct sched_node *const *nodes,
                               size_t n, int64_t *scores);
bool sched_score_taint_toleration(const struct sched_cycle *c, struct sched_node *const *nodes,
                                  size_t n, int64_t *scores);

/* ---- scheduler-affinity.c ---- */

void sched_ipa_prefilter(struct sched_cycle *c);
enum sched_code sched_ipa_filter(const struct sched_cycle *c, const struct sched_node *n,
                                 json_t *reasons);
bool sched_score_inter_pod_affinity(const struct sched_cycle *c, struct sched_node *const *nodes,
                                    size_t n, int64_t *scores);
struct ipa_state *sched_ipa_free(struct ipa_state *s);

/* ---- scheduler-spread.c ---- */

void sched_spread_prefilter(struct sched_cycle *c);
enum sched_code sched_spread_filter(const struct sched_cycle *c, const struct sched_node *n,
                                    json_t *reasons);
bool sched_score_spread(const struct sched_cycle *c, struct sched_node *const *nodes, size_t n,
                        int64_t *scores);
struct spread_state *sched_spread_free(struct spread_state *s);

#endif
