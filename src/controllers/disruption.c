/* disruption.c: the disruption controller: the pure computation of a PodDisruptionBudget's
 * status from the pods it selects (upstream's getExpectedPodCount, buildDisruptedPodMap,
 * countHealthyPods, updatePdbStatus and failSafe) and the pass that writes it through the
 * status subresource. The eviction side (the decrement) is apiserver/eviction.c. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "api/pdb.h"
#include "api/owner.h"
#include "api/selector.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/strbuf.h"
#include "base/timeutil.h"
#include "client/event.h"
#include "controllers/controller-loop.h"
#include "controllers/disruption.h"
#include "controllers/relevance.h"

/* A budget whose evicted pods are still there is looked at again within this (their entries
 * expire after PDB_DELETION_TIMEOUT_S), besides every change of a budget or a pod. */
#define PASS_PERIOD_MS 10000
/* K8S: the disruption controller's recorder: EventSource{Component: "controllermanager"} */
#define EVENT_COMPONENT "controllermanager"

enum { COL_PDBS, COL_PODS, COL_RS, COL_DEPLOY };

struct disruption_controller {
        struct controller_loop loop;
};

/* K8S: intstr.GetScaledValueFromIntOrPercent(v, total, roundUp=true) */
static int scaled_value(const json_t *v, int total, int *ret, struct error **reterr)
{
        const char *s;
        char *end;
        long long pct;

        if (json_is_integer(v)) {
                *ret = (int) json_integer_value(v);
                return 0;
        }
        if (!json_is_string(v))
                return error_set(reterr, EINVAL, "invalid type: neither int nor percentage");
        s = json_string_value(v);
        if (!*s || s[strlen(s) - 1] != '%')
                return error_set(reterr, EINVAL, "invalid type: string is not a percentage");
        errno = 0;
        pct = strtoll(s, &end, 10);
        if (errno || end != s + strlen(s) - 1 || end == s || pct < INT_MIN || pct > INT_MAX)
                return error_set(reterr, EINVAL,
                                 "invalid value for IntOrString: invalid value \"%s\": invalid "
                                 "syntax",
                                 s);
        /* ceil(pct * total / 100) */
        *ret = (int) ((pct * total + 99) / 100);
        return 0;
}

json_t *disruption_scales(const json_t *replicasets, const json_t *deployments)
{
        json_t *out = json_object(), *rs, *d;
        const char *key, *dkey;

        /* K8S: the finders: getPodReplicaSet (a ReplicaSet not controlled by a Deployment) and
         * getPodDeployment (the Deployment controlling the pod's ReplicaSet) */
        json_object_foreach((json_t *) replicasets, key, rs) {
                const json_t *ref = owner_controller_of(rs);
                const char *uid = json_path_string(rs, "metadata.uid");

                if (!uid)
                        continue;
                if (!ref) {
                        json_object_set_new(
                                out, uid,
                                json_pack("{s:s, s:I}", "uid", uid, "scale",
                                          json_integer_value(json_path(rs, "spec.replicas"))));
                        continue;
                }
                if (!streq(json_string_value(json_object_get(ref, "kind")) ?: "", "Deployment"))
                        continue;
                json_object_foreach((json_t *) deployments, dkey, d) {
                        const char *duid = json_path_string(d, "metadata.uid");
                        if (!duid ||
                            !streq(duid, json_string_value(json_object_get(ref, "uid")) ?: ""))
                                continue;
                        json_object_set_new(
                                out, uid,
                                json_pack("{s:s, s:I}", "uid", duid, "scale",
                                          json_integer_value(json_path(d, "spec.replicas"))));
                }
        }
        return out;
}

/* K8S: getExpectedScale: the sum of the scales of the pods' controllers, each counted once;
 * a pod whose controller no finder knows (scales, from disruption_scales; NULL: none) fails. */
static int expected_scale(const json_t *pods, const json_t *scales, int *ret_expected,
                          int *ret_unmanaged, struct error **reterr)
{
        cleanup_json json_t *seen = json_object();
        size_t i;
        json_t *pod, *v;
        const char *key;
        int unmanaged = 0, expected = 0;

        json_array_foreach(pods, i, pod) {
                const json_t *ref = owner_controller_of(pod);
                const json_t *found;

                if (!ref) {
                        unmanaged++;
                        continue;
                }
                found = json_object_get(scales,
                                        json_string_value(json_object_get(ref, "uid")) ?: "");
                if (!found)
                        return error_set(reterr, EINVAL, "found no controllers for pod \"%s\"",
                                         json_path_string(pod, "metadata.name") ?: "");
                json_object_set(seen, json_string_value(json_object_get(found, "uid")),
                                json_object_get(found, "scale"));
        }
        json_object_foreach(seen, key, v) {
                expected += (int) json_integer_value(v);
        }
        *ret_expected = expected;
        *ret_unmanaged = unmanaged;
        return 0;
}

int disruption_expected_scaled(const json_t *pdb, const json_t *pods, const json_t *scales,
                               int *ret_expected, int *ret_desired, int *ret_unmanaged,
                               struct error **reterr)
{
        const json_t *max = json_path(pdb, "spec.maxUnavailable");
        const json_t *min = json_path(pdb, "spec.minAvailable");
        int expected = 0, desired = 0, unmanaged = 0, v;
        int r;

        if (max && !json_is_null(max)) {
                r = expected_scale(pods, scales, &expected, &unmanaged, reterr);
                if (r < 0)
                        return r;
                r = scaled_value(max, expected, &v, reterr);
                if (r < 0)
                        return r;
                desired = expected - v < 0 ? 0 : expected - v;
        } else if (json_is_integer(min)) {
                desired = (int) json_integer_value(min);
                expected = (int) json_array_size(pods);
        } else if (json_is_string(min)) {
                r = expected_scale(pods, scales, &expected, &unmanaged, reterr);
                if (r < 0)
                        return r;
                r = scaled_value(min, expected, &desired, reterr);
                if (r < 0)
                        return r;
        }
        *ret_expected = expected;
        *ret_desired = desired;
        *ret_unmanaged = unmanaged;
        return 0;
}

static bool being_deleted(const json_t *pod)
{
        return json_path(pod, "metadata.deletionTimestamp") != NULL;
}

/* K8S: buildDisruptedPodMap: the entries of pods that are still there, not yet being deleted,
 * and evicted less than DeletionTimeout ago. */
static json_t *disrupted_pods(const json_t *pdb, const json_t *pods, time_t now)
{
        const json_t *old = json_path(pdb, "status.disruptedPods");
        json_t *out = json_object(), *pod, *when;
        size_t i;

        json_array_foreach(pods, i, pod) {
                const char *name = json_path_string(pod, "metadata.name") ?: "";
                time_t t;

                if (being_deleted(pod))
                        continue;
                when = json_object_get(old, name);
                if (!json_is_string(when) || time_parse_rfc3339(json_string_value(when), &t) < 0)
                        continue;
                if (t + PDB_DELETION_TIMEOUT_S >= now)
                        json_object_set(out, name, when);
        }
        return out;
}

/* K8S: countHealthyPods */
static int healthy_pods(const json_t *pods, const json_t *disrupted, time_t now)
{
        size_t i;
        json_t *pod;
        int n = 0;

        json_array_foreach(pods, i, pod) {
                const json_t *when =
                        json_object_get(disrupted, json_path_string(pod, "metadata.name") ?: "");
                time_t t;

                if (being_deleted(pod))
                        continue;
                if (json_is_string(when) && time_parse_rfc3339(json_string_value(when), &t) == 0 &&
                    t + PDB_DELETION_TIMEOUT_S > now)
                        continue;
                if (pdb_pod_ready(pod))
                        n++;
        }
        return n;
}

/* apiequality.Semantic.DeepEqual of two maps: an empty one equals a missing one. */
static bool maps_equal(const json_t *a, const json_t *b)
{
        if (json_object_size(a) == 0 || json_object_size(b) == 0)
                return json_object_size(a) == json_object_size(b);
        return json_equal(a, b);
}

static long long status_int(const json_t *pdb, const char *key)
{
        return json_integer_value(json_object_get(json_object_get(pdb, "status"), key));
}

/* K8S: failSafe: disruptionsAllowed 0 and DisruptionAllowed False/SyncFailed with the error. */
static json_t *fail_safe(const json_t *pdb, const char *message, time_t now)
{
        json_t *out = json_deep_copy(pdb);
        json_t *status = json_object_ensure(out, "status");
        char ts[32];

        time_format_rfc3339(now, ts);
        json_object_set_new(status, "disruptionsAllowed", json_integer(0));
        pdb_set_condition(status, PDB_CONDITION_DISRUPTION_ALLOWED, "False", PDB_REASON_SYNC_FAILED,
                          message,
                          json_integer_value(json_object_get(status, "observedGeneration")), ts);
        if (json_equal(status, json_object_get(pdb, "status"))) {
                json_decref(out);
                return NULL;
        }
        return out;
}

int disruption_expected(const json_t *pdb, const json_t *pods, int *ret_expected, int *ret_desired,
                        int *ret_unmanaged, struct error **reterr)
{
        return disruption_expected_scaled(pdb, pods, NULL, ret_expected, ret_desired, ret_unmanaged,
                                          reterr);
}

json_t *disruption_next(const json_t *pdb, const json_t *pods, time_t now)
{
        return disruption_next_scaled(pdb, pods, NULL, now);
}

json_t *disruption_next_scaled(const json_t *pdb, const json_t *pods, const json_t *scales,
                               time_t now)
{
        cleanup_error struct error *err = NULL;
        cleanup_json json_t *disrupted = NULL;
        long long generation = json_integer_value(json_path(pdb, "metadata.generation"));
        int expected, desired, unmanaged, current, allowed;
        json_t *out, *status, *conds;
        char ts[32];

        if (disruption_expected_scaled(pdb, pods, scales, &expected, &desired, &unmanaged, &err) <
            0)
                return fail_safe(pdb, err->message, now);
        disrupted = disrupted_pods(pdb, pods, now);
        current = healthy_pods(pods, disrupted, now);
        /* K8S: updatePdbStatus: nothing is allowed while no pod is expected */
        allowed = current - desired;
        if (expected <= 0 || allowed <= 0)
                allowed = 0;
        if (status_int(pdb, "currentHealthy") == current &&
            status_int(pdb, "desiredHealthy") == desired &&
            status_int(pdb, "expectedPods") == expected &&
            status_int(pdb, "disruptionsAllowed") == allowed &&
            maps_equal(disrupted, json_path(pdb, "status.disruptedPods")) &&
            status_int(pdb, "observedGeneration") == generation && pdb_conditions_up_to_date(pdb))
                return NULL;
        out = json_deep_copy(pdb);
        conds = json_incref(json_path(pdb, "status.conditions"));
        status = json_pack("{s:i, s:i, s:i, s:i}", "currentHealthy", current, "desiredHealthy",
                           desired, "expectedPods", expected, "disruptionsAllowed", allowed);
        if (generation)
                json_object_set_new(status, "observedGeneration", json_integer(generation));
        if (json_object_size(disrupted))
                json_object_set(status, "disruptedPods", disrupted);
        if (conds)
                json_object_set_new(status, "conditions", json_deep_copy(conds));
        json_decref(conds);
        json_object_set_new(out, "status", status);
        time_format_rfc3339(now, ts);
        pdb_update_disruption_allowed(out, ts);
        return out;
}

int disruption_pods_for(const json_t *pdb, const json_t *pods, json_t **ret)
{
        const char *ns = json_path_string(pdb, "metadata.namespace") ?: "";
        const json_t *sel = json_path(pdb, "spec.selector");
        json_t *out = json_array(), *pod;
        const char *key;

        json_object_foreach((json_t *) pods, key, pod) {
                int m;

                if (!streq(json_path_string(pod, "metadata.namespace") ?: "", ns))
                        continue;
                m = label_selector_object_matches(sel, json_path(pod, "metadata.labels"));
                if (m < 0) {
                        json_decref(out);
                        return m;
                }
                if (m)
                        json_array_append(out, pod);
        }
        *ret = out;
        return 0;
}

static int cmp_key(const void *a, const void *b)
{
        return strcmp(*(const char *const *) a, *(const char *const *) b);
}

char *disruption_selector_string(const json_t *sel)
{
        const json_t *labels = json_object_get(sel, "matchLabels");
        size_t n = json_object_size(labels), i = 0;
        cleanup_free const char **keys = xcalloc(n + 1, sizeof(*keys));
        struct strbuf sb;
        const char *key;
        json_t *v, *rq;

        if (!json_is_object(sel))
                return xstrdup("nil");
        json_object_foreach((json_t *) labels, key, v)
                keys[i++] = key;
        qsort(keys, n, sizeof(*keys), cmp_key);
        strbuf_init(&sb);
        strbuf_addstr(&sb, "&LabelSelector{MatchLabels:map[string]string{");
        for (i = 0; i < n; i++)
                strbuf_addf(&sb, "%s: %s,", keys[i],
                            json_string_value(json_object_get(labels, keys[i])) ?: "");
        strbuf_addstr(&sb, "},MatchExpressions:[]LabelSelectorRequirement{");
        json_array_foreach(json_object_get(sel, "matchExpressions"), i, rq) {
                size_t j;

                strbuf_addf(&sb, "LabelSelectorRequirement{Key:%s,Operator:%s,Values:[",
                            json_string_value(json_object_get(rq, "key")) ?: "",
                            json_string_value(json_object_get(rq, "operator")) ?: "");
                json_array_foreach(json_object_get(rq, "values"), j, v)
                        strbuf_addf(&sb, "%s%s", j ? " " : "", json_string_value(v) ?: "");
                strbuf_addstr(&sb, "],},");
        }
        strbuf_addstr(&sb, "},}");
        return strbuf_detach(&sb);
}

/* K8S: trySync's events, sent here only when the status is written (upstream's recorder
 * folds repeats into one event's count; flexlet's has no such aggregation). */
static void record_events(struct disruption_controller *x, const json_t *pdb, const json_t *pods,
                          const json_t *scales)
{
        cleanup_error struct error *err = NULL;
        int expected, desired, unmanaged;

        if (json_array_size(pods) == 0)
                (void) api_client_event(x->loop.client, pdb, "Normal", "NoPods",
                                        "No matching pods found", EVENT_COMPONENT, NULL, NULL);
        if (disruption_expected_scaled(pdb, pods, scales, &expected, &desired, &unmanaged, &err) <
            0) {
                cleanup_free char *msg = xasprintf(
                        "Failed to calculate the number of expected pods: %s", err->message);
                (void) api_client_event(x->loop.client, pdb, "Warning",
                                        "CalculateExpectedPodCountFailed", msg, EVENT_COMPONENT,
                                        NULL, NULL);
        } else if (unmanaged > 0) {
                cleanup_free char *sel =
                        disruption_selector_string(json_path(pdb, "spec.selector"));
                cleanup_free char *msg = xasprintf(
                        "Pods selected by this PodDisruptionBudget (selector: %s) were found to be "
                        "unmanaged. As a result, the status of the PDB cannot be calculated "
                        "correctly, which may result in undefined behavior. To account for these "
                        "pods please set \".spec.minAvailable\" field of the PDB to an integer "
                        "value.",
                        sel);
                (void) api_client_event(x->loop.client, pdb, "Warning", "UnmanagedPods", msg,
                                        EVENT_COMPONENT, NULL, NULL);
        }
}

static void write_status(struct disruption_controller *x, const json_t *next)
{
        cleanup_error struct error *err = NULL;
        cleanup_json json_t *answer = NULL;
        cleanup_free char *path =
                xasprintf("/apis/policy/v1/namespaces/%s/poddisruptionbudgets/%s/status",
                          json_path_string(next, "metadata.namespace") ?: "",
                          json_path_string(next, "metadata.name") ?: "");
        cleanup_free char *text = json_dump_compact(next);
        long status = 0;

        /* a 409 (the budget changed meanwhile) is taken up by the pass its event triggers */
        if (api_client_request(x->loop.client, "PUT", path, "application/json", text, strlen(text),
                               &status, &answer, &err) == 0 &&
            status == 200 && answer)
                informer_store(x->loop.watch, COL_PDBS, answer);
}

static void disruption_pass(void *ctx)
{
        struct disruption_controller *x = ctx;
        cleanup_json json_t *pdbs = informer_snapshot(x->loop.watch, COL_PDBS);
        cleanup_json json_t *pods = informer_snapshot(x->loop.watch, COL_PODS);
        cleanup_json json_t *rss = informer_snapshot(x->loop.watch, COL_RS);
        cleanup_json json_t *ds = informer_snapshot(x->loop.watch, COL_DEPLOY);
        cleanup_json json_t *scales = disruption_scales(rss, ds);
        time_t now = time(NULL);
        const char *key;
        json_t *pdb;

        json_object_foreach(pdbs, key, pdb) {
                cleanup_json json_t *picked = NULL, *next = NULL;

                if (disruption_pods_for(pdb, pods, &picked) < 0)
                        /* K8S: trySync: getPodsForPdb's error goes to failSafe */
                        next = fail_safe(pdb, "invalid label selector", now);
                else
                        next = disruption_next_scaled(pdb, picked, scales, now);
                if (next) {
                        write_status(x, next);
                        if (picked)
                                record_events(x, next, picked, scales);
                }
        }
}

static void disruption_controller_release(void *ctx)
{
        free(ctx);
}

int disruption_controller_start(const struct api_client_options *o,
                                struct disruption_controller **ret, struct error **reterr)
{
        static const char *const paths[] = { [COL_PDBS] = "/apis/policy/v1/poddisruptionbudgets",
                                             [COL_PODS] = "/api/v1/pods",
                                             [COL_RS] = "/apis/apps/v1/replicasets",
                                             [COL_DEPLOY] = "/apis/apps/v1/deployments",
                                             NULL };
        static const informer_relevant_fn relevant[ARRAY_SIZE(paths) - 1] = {
                [COL_PODS] = relevance_pod_disruption,
                [COL_RS] = relevance_scale,
                [COL_DEPLOY] = relevance_scale
        };
        const struct controller_loop_def def = { .name = "disruption",
                                                 .paths = paths,
                                                 .relevant = relevant,
                                                 .period_ms = PASS_PERIOD_MS,
                                                 .pass = disruption_pass,
                                                 .release = disruption_controller_release };
        struct disruption_controller *x = xcalloc(1, sizeof(*x));
        int r;

        r = controller_loop_start(o, &def, x, &x->loop, reterr);
        if (r < 0) {
                disruption_controller_release(x);
                return r;
        }
        *ret = x;
        return 0;
}

struct disruption_controller *disruption_controller_stop(struct disruption_controller *x)
{
        if (x)
                controller_loop_stop(&x->loop);
        return NULL;
}
