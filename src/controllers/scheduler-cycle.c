/* scheduler-cycle.c: one scheduling decision as upstream's default profile makes it (K8S:
 * pkg/scheduler/schedule_one.go and apis/config/v1/default_plugins.go): the filters in the
 * profile's order, the first failing one giving the node its reasons; then, for more than one
 * feasible node, the scores normalized to 0..100 and weighted (TaintToleration 3, NodeAffinity
 * 2, NodeResourcesFit 1, PodTopologySpread 2, InterPodAffinity 2, BalancedAllocation 1;
 * ImageLocality is not run: flexlet has no image list on its nodes), the best total chosen, ties
 * broken at random (reservoir sampling) as selectHost does; or upstream's FitError text. Pure:
 * the cluster is borrowed, nothing outlives the call but the answer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/taints.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/quantity.h"
#include "base/strbuf.h"
#include "controllers/scheduler-internal.h"
#include "controllers/scheduler.h"
#include "controllers/volume-binding.h"

static bool pod_is_terminal(const json_t *pod)
{
        const char *phase = json_path_string(pod, "status.phase");
        return phase && (streq(phase, "Succeeded") || streq(phase, "Failed"));
}

static int64_t allocatable(const json_t *node, const char *res, bool milli)
{
        const char *s =
                json_string_value(json_object_get(json_path(node, "status.allocatable"), res));
        struct quantity q;
        int64_t v = 0;

        if (!s || quantity_parse(s, &q, NULL) < 0)
                return 0;
        if ((milli ? quantity_milli_value(&q, &v) : quantity_value(&q, &v)) < 0)
                return INT64_MAX;
        return v;
}

/* The status of the node's Ready condition, "" when it has none. */
static const char *node_ready(const json_t *node)
{
        size_t i;
        json_t *c;

        json_array_foreach(json_path(node, "status.conditions"), i, c) {
                if (streq(json_string_value(json_object_get(c, "type")) ?: "", "Ready"))
                        return json_string_value(json_object_get(c, "status")) ?: "";
        }
        return "";
}

/* K8S: TaintToleration's reason for a node: "node(s) had untolerated taint {key: value}". */
static void taint_reason(json_t *reasons, const json_t *taint)
{
        json_array_append_new(reasons, json_sprintf("node(s) had untolerated taint {%s: %s}",
                                                    json_path_string(taint, "key") ?: "",
                                                    json_path_string(taint, "value") ?: ""));
}

static int cmp_string(const void *a, const void *b)
{
        return strcmp(*(char *const *) a, *(char *const *) b);
}

/* K8S FitError.Error(): PreFilter's reason alone when it refused, else the per-node reasons as
 * "<count> <reason>" strings, sorted as strings; then the preemption summary (DefaultPreemption
 * with every pod at one priority: a node that failed Unschedulable has no victims, one that
 * failed UnschedulableAndUnresolvable is not helped by preemption). */
static char *fit_error(size_t n_nodes, const char *prefilter, const json_t *reason_counts,
                       size_t preemptable)
{
        struct strbuf sb;
        char **reasons = xcalloc(json_object_size(reason_counts) + 1, sizeof(char *));
        size_t n = 0;
        const char *reason;
        json_t *count;

        if (n_nodes == 0) {
                free(reasons);
                return xstrdup("no nodes available to schedule pods");
        }
        json_object_foreach((json_t *) reason_counts, reason, count) {
                if (!prefilter)
                        reasons[n++] =
                                xasprintf("%lld %s", (long long) json_integer_value(count), reason);
        }
        qsort(reasons, n, sizeof(reasons[0]), cmp_string);
        strbuf_init(&sb);
        strbuf_addf(&sb, "0/%zu nodes are available: ", n_nodes);
        if (prefilter)
                strbuf_addstr(&sb, prefilter);
        for (size_t i = 0; i < n; i++) {
                strbuf_addf(&sb, "%s%s", i ? ", " : "", reasons[i]);
                free(reasons[i]);
        }
        free(reasons);
        strbuf_addf(&sb, ". preemption: 0/%zu nodes are available: ", n_nodes);
        if (preemptable && preemptable < n_nodes)
                strbuf_addf(
                        &sb,
                        "%zu No preemption victims found for incoming pod, %zu Preemption is not helpful for scheduling.",
                        preemptable, n_nodes - preemptable);
        else if (preemptable)
                strbuf_addf(&sb, "%zu No preemption victims found for incoming pod.", preemptable);
        else
                strbuf_addf(&sb, "%zu Preemption is not helpful for scheduling.", n_nodes);
        return strbuf_detach(&sb);
}

struct scheduler_cache {
        json_t *requests; /* "<address of the pod>" -> [cpu, memory, non-zero cpu, memory] */
};

struct scheduler_cache *scheduler_cache_new(void)
{
        struct scheduler_cache *c = xcalloc(1, sizeof(*c));

        c->requests = json_object();
        return c;
}

struct scheduler_cache *scheduler_cache_free(struct scheduler_cache *c)
{
        if (c) {
                json_decref(c->requests);
                free(c);
        }
        return NULL;
}

/* A placed pod's requests and non-zero requests: ret[4], 0 where they do not parse. */
static void placed_requests(struct scheduler_cache *cache, const json_t *p, int64_t ret[4])
{
        char key[32];
        json_t *hit;

        snprintf(key, sizeof(key), "%p", (const void *) p);
        hit = cache ? json_object_get(cache->requests, key) : NULL;
        if (hit) {
                for (size_t i = 0; i < 4; i++)
                        ret[i] = json_integer_value(json_array_get(hit, i));
                return;
        }
        ret[0] = ret[1] = ret[2] = ret[3] = 0;
        if (scheduler_pod_requests(p, &ret[0], &ret[1]) < 0)
                ret[0] = ret[1] = 0;
        if (sched_pod_nonzero_requests(p, &ret[2], &ret[3]) < 0)
                ret[2] = ret[3] = 0;
        if (cache)
                json_object_set_new(cache->requests, key,
                                    json_pack("[I, I, I, I]", (json_int_t) ret[0],
                                              (json_int_t) ret[1], (json_int_t) ret[2],
                                              (json_int_t) ret[3]));
}

/* K8S NodeInfo for every node: its pods (the non-terminal ones bound to it) and their sums. */
static void cycle_nodes(struct sched_cycle *c, const json_t *nodes, const json_t *pods,
                        struct scheduler_cache *cache)
{
        cleanup_json json_t *index = json_object();
        size_t i;
        json_t *node, *p;

        c->n_nodes = json_array_size(nodes);
        c->nodes = xcalloc(c->n_nodes + 1, sizeof(*c->nodes));
        json_array_foreach(nodes, i, node) {
                struct sched_node *n = &c->nodes[i];

                n->node = node;
                n->name = json_path_string_or_empty(node, "metadata.name");
                n->labels = json_path(node, "metadata.labels");
                n->pods = json_array();
                n->cap_cpu = allocatable(node, "cpu", true);
                n->cap_mem = allocatable(node, "memory", false);
                n->cap_pods = allocatable(node, "pods", false);
                json_object_set_new(index, n->name, json_integer((json_int_t) i));
        }
        json_array_foreach(pods, i, p) {
                const json_t *at =
                        json_object_get(index, json_path_string_or_empty(p, "spec.nodeName"));
                struct sched_node *n;
                int64_t r[4];

                if (!at || pod_is_terminal(p))
                        continue;
                n = &c->nodes[json_integer_value(at)];
                json_array_append(n->pods, p);
                placed_requests(cache, p, r);
                n->req_cpu += r[0];
                n->req_mem += r[1];
                n->nz_cpu += r[2];
                n->nz_mem += r[3];
        }
}

static void cycle_release(struct sched_cycle *c)
{
        for (size_t i = 0; i < c->n_nodes; i++)
                json_decref(c->nodes[i].pods);
        free(c->nodes);
        c->ipa = sched_ipa_free(c->ipa);
        c->spread = sched_spread_free(c->spread);
}

/* The filters of the default profile in its order, up to the first that fails. */
static enum sched_code filter_node(struct sched_cycle *c, const struct sched_node *n,
                                   const struct vb_objects *vols, json_t *reasons)
{
        const json_t *tolerations = json_path(c->pod, "spec.tolerations");
        const char *ready = node_ready(n->node);
        const json_t *taint;
        enum sched_code code;
        unsigned conflicts;

        /* K8S NodeUnschedulable: spec.unschedulable, unless the pod tolerates its taint */
        if (json_is_true(json_path(n->node, "spec.unschedulable"))) {
                cleanup_json json_t *t = json_pack("{s:s, s:s}", "key", TAINT_NODE_UNSCHEDULABLE,
                                                   "effect", "NoSchedule");
                if (!taint_toleration(t, tolerations)) {
                        json_array_append_new(reasons, json_string("node(s) were unschedulable"));
                        return SCHED_UNRESOLVABLE;
                }
        }
        /* K8S TaintToleration. A node that is not Ready carries the not-ready NoSchedule taint
         * (the kubelet registers with it) or, once its status is Unknown, the unreachable one
         * (the node lifecycle controller's), whether or not it is written yet */
        if (!streq(ready, "True")) {
                cleanup_json json_t *t = json_pack("{s:s, s:s}", "key",
                                                   streq(ready, "Unknown") ? TAINT_NODE_UNREACHABLE
                                                                           : TAINT_NODE_NOT_READY,
                                                   "effect", "NoSchedule");
                if (!taint_toleration(t, tolerations)) {
                        taint_reason(reasons, t);
                        return SCHED_UNRESOLVABLE;
                }
        }
        taint = taint_untolerated(json_path(n->node, "spec.taints"), tolerations);
        if (taint) {
                taint_reason(reasons, taint);
                return SCHED_UNRESOLVABLE;
        }
        /* K8S NodeAffinity */
        if (!sched_node_affinity_matches(c->pod, n)) {
                json_array_append_new(
                        reasons, json_string("node(s) didn't match Pod's node affinity/selector"));
                return SCHED_UNRESOLVABLE;
        }
        /* K8S NodeResourcesFit */
        code = sched_fit_filter(c, n, reasons);
        if (code != SCHED_OK)
                return code;
        /* K8S VolumeBinding: its conflicts are UnschedulableAndUnresolvable */
        conflicts = vols ? volume_binding_filter(c->pod, n->node, vols) : 0;
        for (unsigned bit = 1; bit & VB_CONFLICT_ALL; bit <<= 1)
                if (conflicts & bit)
                        json_array_append_new(reasons, json_string(vb_conflict_to_string(bit)));
        if (conflicts)
                return SCHED_UNRESOLVABLE;
        /* K8S PodTopologySpread, then InterPodAffinity */
        code = sched_spread_filter(c, n, reasons);
        if (code != SCHED_OK)
                return code;
        return sched_ipa_filter(c, n, reasons);
}

/* The score plugins of the default profile and their weights. */
static const struct {
        const char *name;
        int64_t weight;
        bool (*score)(const struct sched_cycle *c, struct sched_node *const *nodes, size_t n,
                      int64_t *scores);
} score_plugins[] = {
        { "TaintToleration", 3, sched_score_taint_toleration },
        { "NodeAffinity", 2, sched_score_node_affinity },
        { "NodeResourcesFit", 1, sched_score_least_allocated },
        { "PodTopologySpread", 2, sched_score_spread },
        { "InterPodAffinity", 2, sched_score_inter_pod_affinity },
        { "NodeResourcesBalancedAllocation", 1, sched_score_balanced },
};

/* xorshift64*: the tie-break's random numbers, from the caller's state. */
static uint64_t next_random(uint64_t *state)
{
        uint64_t x = *state ? *state : 0x9e3779b97f4a7c15ULL;

        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        *state = x;
        return x * 0x2545f4914f6cdd1dULL;
}

/* K8S prioritizeNodes and selectHost: the weighted sum of every plugin's normalized score; the
 * best, a tie broken uniformly at random (the first of them without rng). */
static size_t choose(struct sched_cycle *c, struct sched_node *const *feasible, size_t n,
                     uint64_t *rng, json_t *ret_scores)
{
        cleanup_free int64_t *total = xcalloc(n + 1, sizeof(int64_t));
        cleanup_free int64_t *scores = xcalloc(n + 1, sizeof(int64_t));
        size_t best = 0, ties = 0;

        for (size_t p = 0; p < ARRAY_SIZE(score_plugins); p++) {
                bool scored = score_plugins[p].score(c, feasible, n, scores);

                for (size_t i = 0; i < n; i++) {
                        int64_t s = scored ? scores[i] : 0;

                        total[i] += s * score_plugins[p].weight;
                        if (ret_scores)
                                json_object_set_new(
                                        json_object_ensure(ret_scores, feasible[i]->name),
                                        score_plugins[p].name, json_integer(s));
                }
        }
        for (size_t i = 0; i < n; i++) {
                if (ret_scores)
                        json_object_set_new(json_object_ensure(ret_scores, feasible[i]->name),
                                            "total", json_integer(total[i]));
                if (i == 0 || total[i] > total[best]) {
                        best = i;
                        ties = 1;
                } else if (total[i] == total[best]) {
                        ties++;
                        if (rng && next_random(rng) % ties == 0)
                                best = i;
                }
        }
        return best;
}

const char *scheduler_schedule(const json_t *pod, const struct scheduler_cluster *cl,
                               char **ret_message)
{
        struct sched_cycle c = { .pod = pod,
                                 .ns = json_path_string_or_empty(pod, "metadata.namespace"),
                                 .namespaces = cl->namespaces,
                                 .replicasets = cl->replicasets };
        cleanup_json json_t *reason_counts = json_object();
        cleanup_free struct sched_node **feasible = NULL;
        size_t n_nodes = json_array_size(cl->nodes), n_feasible = 0, preemptable = 0;
        const char *answer = NULL;

        /* K8S: no nodes is told before any plugin runs */
        if (n_nodes == 0) {
                *ret_message = fit_error(0, NULL, NULL, 0);
                return NULL;
        }
        if (cl->vols) {
                cleanup_free char *why = volume_binding_prefilter(pod, cl->vols);
                if (why) {
                        *ret_message = fit_error(n_nodes, why, NULL, 0);
                        return NULL;
                }
        }
        cycle_nodes(&c, cl->nodes, cl->pods, cl->cache);
        (void) scheduler_pod_requests(pod, &c.want_cpu, &c.want_mem);
        (void) sched_pod_nonzero_requests(pod, &c.nz_want_cpu, &c.nz_want_mem);
        sched_ipa_prefilter(&c);
        sched_spread_prefilter(&c);
        feasible = xcalloc(c.n_nodes + 1, sizeof(*feasible));
        for (size_t i = 0; i < c.n_nodes; i++) {
                cleanup_json json_t *reasons = json_array();
                enum sched_code code = filter_node(&c, &c.nodes[i], cl->vols, reasons);
                size_t j;
                json_t *r;

                if (code == SCHED_OK) {
                        feasible[n_feasible++] = &c.nodes[i];
                        continue;
                }
                preemptable += code == SCHED_UNSCHEDULABLE;
                json_array_foreach(reasons, j, r) {
                        const char *why = json_string_value(r);
                        json_object_set_new(reason_counts, why,
                                            json_integer(json_integer_value(json_object_get(
                                                                 reason_counts, why)) +
                                                         1));
                }
        }
        if (n_feasible == 0)
                *ret_message = fit_error(n_nodes, NULL, reason_counts, preemptable);
        else if (n_feasible == 1) /* K8S: one feasible node is taken without scoring */
                answer = feasible[0]->name;
        else
                answer = feasible[choose(&c, feasible, n_feasible, cl->rng, cl->ret_scores)]->name;
        cycle_release(&c);
        return answer;
}

const char *scheduler_pick_node_volumes(const json_t *pod, const json_t *nodes, const json_t *pods,
                                        const struct vb_objects *vols, char **ret_message)
{
        const struct scheduler_cluster cl = { .nodes = nodes, .pods = pods, .vols = vols };
        return scheduler_schedule(pod, &cl, ret_message);
}

const char *scheduler_pick_node(const json_t *pod, const json_t *nodes, const json_t *pods,
                                char **ret_message)
{
        return scheduler_pick_node_volumes(pod, nodes, pods, NULL, ret_message);
}
