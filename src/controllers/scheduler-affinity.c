/* scheduler-affinity.c: the InterPodAffinity plugin (K8S: pkg/scheduler/framework/plugins/
 * interpodaffinity filtering.go and scoring.go): the incoming pod's required affinity and
 * anti-affinity against the pods already placed, those pods' required anti-affinity against the
 * incoming pod (symmetry), and the score of preferred terms both ways (plus the existing pods'
 * required affinity terms at hardPodAffinityWeight 1). Counts are kept per topology pair, a
 * "key\nvalue" string (neither a label key nor a label value can hold a newline). A term's
 * labelSelector and namespaceSelector are read as metav1.LabelSelector; matchLabelKeys and
 * mismatchLabelKeys are merged into labelSelector by the API server when the pod is created
 * (K8S 1.33: MatchLabelKeysInPodAffinity), so the scheduler does not read them. */
#include <stdlib.h>
#include <string.h>

#include "api/selector.h"
#include "base/alloc.h"
#include "base/json.h"
#include "controllers/scheduler-internal.h"

#define HARD_POD_AFFINITY_WEIGHT 1 /* K8S: InterPodAffinityArgs.hardPodAffinityWeight default */

struct ipa_state {
        const json_t *affinity;      /* the pod's required affinity terms (borrowed) */
        const json_t *anti_affinity; /* the pod's required anti-affinity terms (borrowed) */
        json_t *affinity_counts;     /* pair -> existing pods matching all affinity terms */
        json_t *anti_counts;         /* pair -> existing pods matching an anti-affinity term */
        json_t *existing_anti;       /* pair -> existing pods whose anti-affinity the pod hits */
};

/* The pod's terms of kind ("podAffinity" or "podAntiAffinity"), required or preferred. */
static const json_t *terms(const json_t *pod, const char *kind, const char *which)
{
        return json_object_get(json_object_get(json_path(pod, "spec.affinity"), kind), which);
}

static const json_t *required(const json_t *pod, const char *kind)
{
        return terms(pod, kind, "requiredDuringSchedulingIgnoredDuringExecution");
}

static const json_t *preferred(const json_t *pod, const char *kind)
{
        return terms(pod, kind, "preferredDuringSchedulingIgnoredDuringExecution");
}

/* K8S AffinityTerm.Matches: target is in the term's namespaces (the owner's own namespace when
 * the term names none and has no namespaceSelector) or its namespace's labels match the
 * namespaceSelector ({} matches every namespace); and the labelSelector (none: nothing) matches
 * target's labels. A selector that does not parse matches nothing. */
static bool term_matches(const json_t *term, const json_t *owner, const json_t *target,
                         const json_t *namespaces)
{
        const char *ns = json_path_string_or_empty(target, "metadata.namespace");
        const json_t *names = json_object_get(term, "namespaces");
        const json_t *ns_selector = json_object_get(term, "namespaceSelector");
        bool in_ns;

        if (!json_is_object(ns_selector))
                ns_selector = NULL;
        if (!json_array_size(names) && !ns_selector)
                in_ns = streq(ns, json_path_string_or_empty(owner, "metadata.namespace"));
        else
                in_ns = json_array_has_string(names, ns) ||
                        (ns_selector &&
                         label_selector_object_matches(ns_selector,
                                                       json_path(json_object_get(namespaces, ns),
                                                                 "metadata.labels")) > 0);
        return in_ns && label_selector_object_matches(json_object_get(term, "labelSelector"),
                                                      json_path(target, "metadata.labels")) > 0;
}

/* K8S podMatchesAllAffinityTerms: false for no terms. */
static bool matches_all(const json_t *terms, const json_t *owner, const json_t *target,
                        const json_t *namespaces)
{
        size_t i;
        json_t *t;

        if (!json_array_size(terms))
                return false;
        json_array_foreach(terms, i, t) {
                if (!term_matches(t, owner, target, namespaces))
                        return false;
        }
        return true;
}

static char *pair_key(const char *key, const char *value)
{
        return xasprintf("%s\n%s", key, value);
}

/* K8S topologyToMatchedTermCount.update: counted only where the node has the key. */
static void count_pair(json_t *counts, const struct sched_node *n, const char *key, int64_t by)
{
        const char *value = sched_label(n, key);
        cleanup_free char *k = NULL;

        if (!value)
                return;
        k = pair_key(key, value);
        json_object_set_new(counts, k,
                            json_integer(json_integer_value(json_object_get(counts, k)) + by));
}

static int64_t pair_count(const json_t *counts, const char *key, const char *value)
{
        cleanup_free char *k = pair_key(key, value);
        return json_integer_value(json_object_get(counts, k));
}

void sched_ipa_prefilter(struct sched_cycle *c)
{
        struct ipa_state *s = xcalloc(1, sizeof(*s));
        size_t j, k;
        json_t *p, *t;

        s->affinity = required(c->pod, "podAffinity");
        s->anti_affinity = required(c->pod, "podAntiAffinity");
        s->affinity_counts = json_object();
        s->anti_counts = json_object();
        s->existing_anti = json_object();
        for (size_t i = 0; i < c->n_nodes; i++) {
                const struct sched_node *n = &c->nodes[i];

                json_array_foreach(n->pods, j, p) {
                        /* K8S getExistingAntiAffinityCounts: the placed pod's required
                         * anti-affinity terms that the incoming pod matches */
                        json_array_foreach(required(p, "podAntiAffinity"), k, t) {
                                if (term_matches(t, p, c->pod, c->namespaces))
                                        count_pair(s->existing_anti, n,
                                                   json_path_string_or_empty(t, "topologyKey"), 1);
                        }
                        /* K8S getIncomingAffinityAntiAffinityCounts */
                        if (matches_all(s->affinity, c->pod, p, c->namespaces)) {
                                json_array_foreach(s->affinity, k, t) {
                                        count_pair(s->affinity_counts, n,
                                                   json_path_string_or_empty(t, "topologyKey"), 1);
                                }
                        }
                        json_array_foreach(s->anti_affinity, k, t) {
                                if (term_matches(t, c->pod, p, c->namespaces))
                                        count_pair(s->anti_counts, n,
                                                   json_path_string_or_empty(t, "topologyKey"), 1);
                        }
                }
        }
        c->ipa = s;
}

/* K8S satisfyPodAffinity: every term's topology key on the node, and in that domain a pod that
 * matches all terms; unless no pod anywhere matches and the pod matches its own terms (the first
 * of a group that attracts itself). */
static bool satisfies_affinity(const struct sched_cycle *c, const struct sched_node *n)
{
        const struct ipa_state *s = c->ipa;
        bool pods_exist = true;
        size_t i;
        json_t *t;

        json_array_foreach(s->affinity, i, t) {
                const char *key = json_path_string_or_empty(t, "topologyKey");
                const char *value = sched_label(n, key);

                if (!value)
                        return false;
                if (pair_count(s->affinity_counts, key, value) <= 0)
                        pods_exist = false;
        }
        if (pods_exist)
                return true;
        return json_object_size(s->affinity_counts) == 0 &&
               matches_all(s->affinity, c->pod, c->pod, c->namespaces);
}

/* K8S satisfyPodAntiAffinity: no term's domain of this node holds a pod the term matches. */
static bool satisfies_anti_affinity(const struct sched_cycle *c, const struct sched_node *n)
{
        const struct ipa_state *s = c->ipa;
        size_t i;
        json_t *t;

        json_array_foreach(s->anti_affinity, i, t) {
                const char *key = json_path_string_or_empty(t, "topologyKey");
                const char *value = sched_label(n, key);

                if (value && pair_count(s->anti_counts, key, value) > 0)
                        return false;
        }
        return true;
}

/* K8S satisfyExistingPodsAntiAffinity: none of the node's labels is a domain where a placed pod
 * refuses the incoming one. */
static bool satisfies_existing_anti_affinity(const struct sched_cycle *c,
                                             const struct sched_node *n)
{
        const char *key;
        json_t *v;

        if (!json_object_size(c->ipa->existing_anti))
                return true;
        json_object_foreach((json_t *) n->labels, key, v) {
                if (json_is_string(v) &&
                    pair_count(c->ipa->existing_anti, key, json_string_value(v)) > 0)
                        return false;
        }
        return true;
}

enum sched_code sched_ipa_filter(const struct sched_cycle *c, const struct sched_node *n,
                                 json_t *reasons)
{
        if (!satisfies_affinity(c, n)) {
                json_array_append_new(reasons,
                                      json_string("node(s) didn't match pod affinity rules"));
                return SCHED_UNRESOLVABLE;
        }
        if (!satisfies_anti_affinity(c, n)) {
                json_array_append_new(reasons,
                                      json_string("node(s) didn't match pod anti-affinity rules"));
                return SCHED_UNSCHEDULABLE;
        }
        if (!satisfies_existing_anti_affinity(c, n)) {
                json_array_append_new(
                        reasons,
                        json_string("node(s) didn't satisfy existing pods anti-affinity rules"));
                return SCHED_UNSCHEDULABLE;
        }
        return SCHED_OK;
}

/* K8S scoreMap.processTerm: weight * multiplier on the domain of the owner's node when the term
 * matches target. */
static void score_term(json_t *scores, const json_t *term, int64_t weight, const json_t *owner,
                       const json_t *target, const json_t *namespaces, const struct sched_node *n)
{
        if (term_matches(term, owner, target, namespaces))
                count_pair(scores, n, json_path_string_or_empty(term, "topologyKey"), weight);
}

/* WeightedPodAffinityTerms, multiplier +1 or -1. */
static void score_weighted(json_t *scores, const json_t *terms, int64_t multiplier,
                           const json_t *owner, const json_t *target, const json_t *namespaces,
                           const struct sched_node *n)
{
        size_t i;
        json_t *t;

        json_array_foreach(terms, i, t) {
                score_term(scores, json_object_get(t, "podAffinityTerm"),
                           json_integer_value(json_object_get(t, "weight")) * multiplier, owner,
                           target, namespaces, n);
        }
}

bool sched_score_inter_pod_affinity(const struct sched_cycle *c, struct sched_node *const *nodes,
                                    size_t n, int64_t *scores)
{
        cleanup_json json_t *topology = json_object();
        const json_t *pod = c->pod;
        int64_t min = INT64_MAX, max = INT64_MIN;
        size_t j, k;
        json_t *p, *t;

        /* K8S PreScore's processExistingPod over every node's pods */
        for (size_t i = 0; i < c->n_nodes; i++) {
                const struct sched_node *node = &c->nodes[i];

                if (!json_object_size(node->labels))
                        continue;
                json_array_foreach(node->pods, j, p) {
                        score_weighted(topology, preferred(pod, "podAffinity"), 1, pod, p,
                                       c->namespaces, node);
                        score_weighted(topology, preferred(pod, "podAntiAffinity"), -1, pod, p,
                                       c->namespaces, node);
                        json_array_foreach(required(p, "podAffinity"), k, t) {
                                score_term(topology, t, HARD_POD_AFFINITY_WEIGHT, p, pod,
                                           c->namespaces, node);
                        }
                        score_weighted(topology, preferred(p, "podAffinity"), 1, p, pod,
                                       c->namespaces, node);
                        score_weighted(topology, preferred(p, "podAntiAffinity"), -1, p, pod,
                                       c->namespaces, node);
                }
        }
        if (!json_object_size(topology))
                return false;
        for (size_t i = 0; i < n; i++) {
                const char *pair;
                json_t *v;

                scores[i] = 0;
                json_object_foreach(topology, pair, v) {
                        const char *nl = strchr(pair, '\n');
                        cleanup_free char *key = xstrndup(pair, (size_t) (nl - pair));
                        const char *have = sched_label(nodes[i], key);

                        if (have && streq(have, nl + 1))
                                scores[i] += json_integer_value(v);
                }
                if (scores[i] < min)
                        min = scores[i];
                if (scores[i] > max)
                        max = scores[i];
        }
        /* K8S NormalizeScore: scaled from the lowest (0) to the highest (100) */
        for (size_t i = 0; i < n; i++)
                scores[i] = max > min
                                    ? (int64_t) ((double) SCHED_MAX_NODE_SCORE *
                                                 (double) (scores[i] - min) / (double) (max - min))
                                    : 0;
        return true;
}

struct ipa_state *sched_ipa_free(struct ipa_state *s)
{
        if (s) {
                json_decref(s->affinity_counts);
                json_decref(s->anti_counts);
                json_decref(s->existing_anti);
                free(s);
        }
        return NULL;
}
