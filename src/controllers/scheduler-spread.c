/* scheduler-spread.c: the PodTopologySpread plugin (K8S: pkg/scheduler/framework/plugins/
 * podtopologyspread common.go, filtering.go, scoring.go): the pod's DoNotSchedule constraints as
 * a filter (maxSkew against the least loaded domain, minDomains, nodeAffinityPolicy and
 * nodeTaintsPolicy deciding which nodes count, matchLabelKeys merged into the selector), its
 * ScheduleAnyway constraints as a score, and for a pod without constraints the system default
 * ones (kubernetes.io/hostname maxSkew 3, topology.kubernetes.io/zone maxSkew 5, ScheduleAnyway)
 * over the selector of the ReplicaSet that controls it (K8S helper.DefaultSelector; flexlet has
 * no Services, ReplicationControllers or StatefulSets to add). Pure functions over the cycle. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api/selector.h"
#include "base/alloc.h"
#include "base/json.h"
#include "controllers/scheduler-internal.h"

struct spread_constraint {
        int64_t max_skew;
        const char *key;     /* borrowed from the pod (or a literal) */
        int64_t min_domains; /* 1 when unset */
        json_t *selector;    /* a metav1.LabelSelector, owned */
        bool honor_affinity; /* nodeAffinityPolicy Honor (the default) */
        bool honor_taints;   /* nodeTaintsPolicy Honor (default Ignore) */
};

struct spread_state {
        struct spread_constraint *cs;
        size_t n;
        json_t **counts; /* per constraint: domain value -> matching pods */
};

/* obj[key] as an array, made (replacing anything else) when it is not one. */
static json_t *ensure_array(json_t *obj, const char *key)
{
        json_t *a = json_object_get(obj, key);

        if (!json_is_array(a)) {
                a = json_array();
                json_object_set_new(obj, key, a);
        }
        return a;
}

static void spread_state_freep(struct spread_state **s)
{
        sched_spread_free(*s);
}
#define cleanup_spread_state __attribute__((cleanup(spread_state_freep)))

static void state_add(struct spread_state *s, int64_t max_skew, const char *key,
                      int64_t min_domains, json_t *selector, const json_t *c)
{
        const char *affinity = json_path_string_or_empty(c, "nodeAffinityPolicy");
        const char *taints = json_path_string_or_empty(c, "nodeTaintsPolicy");

        s->cs = xrealloc(s->cs, (s->n + 1) * sizeof(*s->cs));
        s->cs[s->n++] = (struct spread_constraint){
                .max_skew = max_skew,
                .key = key,
                .min_domains = min_domains,
                .selector = selector,
                .honor_affinity = !streq(affinity, "Ignore"),
                .honor_taints = streq(taints, "Honor"),
        };
}

/* K8S filterTopologySpreadConstraints: the pod's constraints with this whenUnsatisfiable, the
 * selector with matchLabelKeys merged in as "key In (the pod's value)" for each key the pod has
 * (K8S 1.33: MatchLabelKeysInPodTopologySpread, done by the scheduler). */
static void pod_constraints(struct spread_state *s, const json_t *pod, const char *action)
{
        const json_t *labels = json_path(pod, "metadata.labels");
        size_t i, j;
        json_t *c, *k;

        json_array_foreach(json_path(pod, "spec.topologySpreadConstraints"), i, c) {
                const json_t *sel = json_object_get(c, "labelSelector");
                const json_t *min = json_object_get(c, "minDomains");
                json_t *selector;

                if (!streq(json_path_string_or_empty(c, "whenUnsatisfiable"), action))
                        continue;
                selector = json_is_object(sel) ? json_deep_copy(sel) : json_null();
                json_array_foreach(json_object_get(c, "matchLabelKeys"), j, k) {
                        const json_t *v = json_object_get(labels, json_string_value(k) ?: "");

                        if (!json_is_string(v) || !json_is_object(selector))
                                continue;
                        json_array_append_new(ensure_array(selector, "matchExpressions"),
                                              json_pack("{s:O, s:s, s:[O]}", "key", k, "operator",
                                                        "In", "values", v));
                }
                state_add(s, json_integer_value(json_object_get(c, "maxSkew")),
                          json_path_string_or_empty(c, "topologyKey"),
                          json_is_integer(min) ? json_integer_value(min) : 1, selector, c);
        }
}

/* K8S buildDefaultConstraints with the system defaults (ScheduleAnyway only): the selector of
 * the ReplicaSet controlling the pod; nothing when there is none. */
static void default_constraints(struct spread_state *s, const struct sched_cycle *c)
{
        size_t i;
        json_t *ref;

        json_array_foreach(json_path(c->pod, "metadata.ownerReferences"), i, ref) {
                cleanup_free char *key = NULL;
                const json_t *sel;

                if (!json_is_true(json_object_get(ref, "controller")) ||
                    !streq(json_path_string_or_empty(ref, "kind"), "ReplicaSet") ||
                    !streq(json_path_string_or_empty(ref, "apiVersion"), "apps/v1"))
                        continue;
                key = xasprintf("%s/%s", c->ns, json_path_string_or_empty(ref, "name"));
                sel = json_path(json_object_get(c->replicasets, key), "spec.selector");
                if (!json_is_object(sel) || label_selector_object_is_empty(sel))
                        return;
                state_add(s, 3, LABEL_HOSTNAME, 1, json_deep_copy(sel), NULL);
                state_add(s, 5, LABEL_ZONE, 1, json_deep_copy(sel), NULL);
                return;
        }
}

static struct spread_state *state_new(const struct sched_cycle *c, const char *action)
{
        struct spread_state *s = xcalloc(1, sizeof(*s));

        if (json_array_size(json_path(c->pod, "spec.topologySpreadConstraints")))
                pod_constraints(s, c->pod, action);
        else if (streq(action, "ScheduleAnyway"))
                default_constraints(s, c);
        s->counts = xcalloc(s->n + 1, sizeof(*s->counts));
        for (size_t i = 0; i < s->n; i++)
                s->counts[i] = json_object();
        return s;
}

/* K8S nodeLabelsMatchSpreadConstraints: the node has every constraint's key. */
static bool has_all_keys(const struct spread_state *s, const struct sched_node *n)
{
        for (size_t i = 0; i < s->n; i++)
                if (!sched_label(n, s->cs[i].key))
                        return false;
        return true;
}

/* K8S matchNodeInclusionPolicies. */
static bool node_included(const struct sched_cycle *c, const struct spread_constraint *sc,
                          const struct sched_node *n)
{
        if (sc->honor_affinity && !sched_node_affinity_matches(c->pod, n))
                return false;
        return !sc->honor_taints || sched_node_taints_tolerated(c->pod, n);
}

/* K8S countPodsMatchSelector: the node's pods of the pod's namespace, not being deleted, that
 * the selector matches. */
static int64_t count_matching(const struct sched_cycle *c, const struct sched_node *n,
                              const json_t *selector)
{
        int64_t count = 0;
        size_t i;
        json_t *p;

        json_array_foreach(n->pods, i, p) {
                if (json_path(p, "metadata.deletionTimestamp") ||
                    !streq(json_path_string_or_empty(p, "metadata.namespace"), c->ns))
                        continue;
                count += label_selector_object_matches(selector, json_path(p, "metadata.labels")) >
                         0;
        }
        return count;
}

static void add_count(json_t *counts, const char *value, int64_t by)
{
        json_object_set_new(counts, value,
                            json_integer(json_integer_value(json_object_get(counts, value)) + by));
}

void sched_spread_prefilter(struct sched_cycle *c)
{
        struct spread_state *s = state_new(c, "DoNotSchedule");

        /* K8S calPreFilterState: over every node with all the keys, the pods each constraint
         * selects, per domain of the nodes its policies include */
        for (size_t i = 0; i < c->n_nodes && s->n; i++) {
                const struct sched_node *n = &c->nodes[i];

                if (!has_all_keys(s, n))
                        continue;
                for (size_t k = 0; k < s->n; k++) {
                        if (node_included(c, &s->cs[k], n))
                                add_count(s->counts[k], sched_label(n, s->cs[k].key),
                                          count_matching(c, n, s->cs[k].selector));
                }
        }
        c->spread = s;
}

enum sched_code sched_spread_filter(const struct sched_cycle *c, const struct sched_node *n,
                                    json_t *reasons)
{
        const struct spread_state *s = c->spread;

        for (size_t k = 0; k < s->n; k++) {
                const struct spread_constraint *sc = &s->cs[k];
                const char *value = sched_label(n, sc->key), *domain;
                int64_t min = INT64_MAX, self, skew;
                json_t *v;

                if (!value) {
                        json_array_append_new(
                                reasons,
                                json_string(
                                        "node(s) didn't match pod topology spread constraints (missing required label)"));
                        return SCHED_UNRESOLVABLE;
                }
                /* K8S minMatchNum: the least loaded domain, 0 while there are fewer domains
                 * than minDomains */
                json_object_foreach(s->counts[k], domain, v) {
                        if (json_integer_value(v) < min)
                                min = json_integer_value(v);
                }
                if ((int64_t) json_object_size(s->counts[k]) < sc->min_domains)
                        min = 0;
                self = label_selector_object_matches(sc->selector,
                                                     json_path(c->pod, "metadata.labels")) > 0;
                skew = json_integer_value(json_object_get(s->counts[k], value)) + self - min;
                if (skew > sc->max_skew) {
                        json_array_append_new(
                                reasons,
                                json_string(
                                        "node(s) didn't match pod topology spread constraints"));
                        return SCHED_UNSCHEDULABLE;
                }
        }
        return SCHED_OK;
}

bool sched_score_spread(const struct sched_cycle *c, struct sched_node *const *nodes, size_t n,
                        int64_t *scores)
{
        cleanup_spread_state struct spread_state *s = state_new(c, "ScheduleAnyway");
        bool require_all = json_array_size(json_path(c->pod, "spec.topologySpreadConstraints")) > 0;
        cleanup_free bool *ignored = xcalloc(n + 1, sizeof(bool));
        cleanup_free double *weight = xcalloc(s->n + 1, sizeof(double));
        int64_t min = INT64_MAX, max = 0;
        size_t n_ignored = 0;

        if (!s->n)
                return false;
        /* K8S initPreScoreState: the feasible nodes without every key are ignored (when the
         * pod has constraints of its own); the domains of the others are the ones counted */
        for (size_t i = 0; i < n; i++) {
                if (require_all && !has_all_keys(s, nodes[i])) {
                        ignored[i] = true;
                        n_ignored++;
                        continue;
                }
                for (size_t k = 0; k < s->n; k++) {
                        if (!streq(s->cs[k].key, LABEL_HOSTNAME))
                                add_count(s->counts[k], sched_label(nodes[i], s->cs[k].key) ?: "",
                                          0);
                }
        }
        /* K8S topologyNormalizingWeight: log(domains + 2), a hostname domain per node */
        for (size_t k = 0; k < s->n; k++) {
                size_t size = streq(s->cs[k].key, LABEL_HOSTNAME) ? n - n_ignored
                                                                  : json_object_size(s->counts[k]);
                weight[k] = log((double) size + 2);
        }
        /* K8S PreScore: the matching pods of every node, counted for the domains above */
        for (size_t i = 0; i < c->n_nodes; i++) {
                const struct sched_node *node = &c->nodes[i];

                if (require_all && !has_all_keys(s, node))
                        continue;
                for (size_t k = 0; k < s->n; k++) {
                        const char *value = sched_label(node, s->cs[k].key) ?: "";

                        if (streq(s->cs[k].key, LABEL_HOSTNAME) ||
                            !json_object_get(s->counts[k], value) ||
                            !node_included(c, &s->cs[k], node))
                                continue;
                        add_count(s->counts[k], value, count_matching(c, node, s->cs[k].selector));
                }
        }
        /* K8S Score: per constraint count * weight + maxSkew - 1, rounded */
        for (size_t i = 0; i < n; i++) {
                double score = 0;

                scores[i] = 0;
                if (ignored[i])
                        continue;
                for (size_t k = 0; k < s->n; k++) {
                        const char *value = sched_label(nodes[i], s->cs[k].key);
                        int64_t count;

                        if (!value)
                                continue;
                        count = streq(s->cs[k].key, LABEL_HOSTNAME)
                                        ? count_matching(c, nodes[i], s->cs[k].selector)
                                        : json_integer_value(json_object_get(s->counts[k], value));
                        score += (double) count * weight[k] + (double) (s->cs[k].max_skew - 1);
                }
                scores[i] = (int64_t) round(score);
                if (scores[i] < min)
                        min = scores[i];
                if (scores[i] > max)
                        max = scores[i];
        }
        /* K8S NormalizeScore: fewer matching pods score higher; ignored nodes 0 */
        for (size_t i = 0; i < n; i++) {
                if (ignored[i])
                        scores[i] = 0;
                else if (max == 0)
                        scores[i] = SCHED_MAX_NODE_SCORE;
                else
                        scores[i] = SCHED_MAX_NODE_SCORE * (max + min - scores[i]) / max;
        }
        return true;
}

struct spread_state *sched_spread_free(struct spread_state *s)
{
        if (s) {
                for (size_t i = 0; i < s->n; i++) {
                        json_decref(s->cs[i].selector);
                        json_decref(s->counts[i]);
                }
                free(s->cs);
                free(s->counts);
                free(s);
        }
        return NULL;
}
