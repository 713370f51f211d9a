/* scheduler-nodes.c: the scheduler's plugins that look at a node alone (K8S: pkg/scheduler/
 * framework/plugins/nodeaffinity and tainttoleration): the pod's required node affinity and
 * nodeSelector, the score of its preferred node affinity terms, and TaintToleration's score
 * (fewer untolerated PreferNoSchedule taints is better). Pure functions over the cycle. */
#include <string.h>

#include "api/taints.h"
#include "base/json.h"
#include "controllers/node-affinity.h"
#include "controllers/scheduler-internal.h"

void sched_normalize_default(int64_t *scores, size_t n, bool reverse)
{
        int64_t max = 0;

        for (size_t i = 0; i < n; i++)
                if (scores[i] > max)
                        max = scores[i];
        for (size_t i = 0; i < n; i++) {
                int64_t s = max ? SCHED_MAX_NODE_SCORE * scores[i] / max : 0;

                if (!max && !reverse)
                        continue;
                scores[i] = reverse ? SCHED_MAX_NODE_SCORE - s : s;
        }
}

bool sched_node_affinity_matches(const json_t *pod, const struct sched_node *n)
{
        const json_t *required = json_path(
                pod, "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution");
        const char *key;
        json_t *v;

        /* K8S: every nodeSelector label, exactly */
        json_object_foreach((json_t *) json_path(pod, "spec.nodeSelector"), key, v) {
                const char *have = sched_label(n, key);
                if (!have || !json_is_string(v) || !streq(have, json_string_value(v)))
                        return false;
        }
        /* K8S: and one of the required terms, when there are any */
        if (json_is_object(required))
                return node_selector_matches(required, n->node);
        return true;
}

bool sched_node_taints_tolerated(const json_t *pod, const struct sched_node *n)
{
        return !taint_untolerated(json_path(n->node, "spec.taints"),
                                  json_path(pod, "spec.tolerations"));
}

bool sched_score_node_affinity(const struct sched_cycle *c, struct sched_node *const *nodes,
                               size_t n, int64_t *scores)
{
        const json_t *preferred = json_path(
                c->pod,
                "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution");
        size_t j;
        json_t *term;

        /* K8S PreScore: nothing preferred, nothing to score */
        if (!json_array_size(preferred))
                return false;
        for (size_t i = 0; i < n; i++) {
                scores[i] = 0;
                json_array_foreach(preferred, j, term) {
                        json_int_t w = json_integer_value(json_object_get(term, "weight"));

                        /* K8S NewPreferredSchedulingTerms: a term of weight 0 is dropped */
                        if (w && node_selector_term_matches(json_object_get(term, "preference"),
                                                            nodes[i]->node))
                                scores[i] += w;
                }
        }
        sched_normalize_default(scores, n, false);
        return true;
}

bool sched_score_taint_toleration(const struct sched_cycle *c, struct sched_node *const *nodes,
                                  size_t n, int64_t *scores)
{
        cleanup_json json_t *prefer = json_array();
        size_t j;
        json_t *t;

        /* K8S getAllTolerationPreferNoSchedule: the tolerations with no effect or
         * PreferNoSchedule */
        json_array_foreach(json_path(c->pod, "spec.tolerations"), j, t) {
                const char *effect = json_path_string_or_empty(t, "effect");
                if (!*effect || streq(effect, "PreferNoSchedule"))
                        json_array_append(prefer, t);
        }
        for (size_t i = 0; i < n; i++) {
                scores[i] = 0;
                json_array_foreach(json_path(nodes[i]->node, "spec.taints"), j, t) {
                        if (streq(json_path_string_or_empty(t, "effect"), "PreferNoSchedule") &&
                            !taint_toleration(t, prefer))
                                scores[i]++;
                }
        }
        /* K8S: fewer intolerable taints score higher */
        sched_normalize_default(scores, n, true);
        return true;
}
