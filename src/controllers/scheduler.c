/* scheduler.c: a single-profile scheduler: filters nodes (Ready, schedulable, taints and
 * tolerations, nodeSelector and required node affinity, cpu/memory/pod count fit against
 * allocatable minus the requests of the pods already there, then the pod's volumes:
 * volume-binding.c), scores by least requested cpu, and binds; a pod whose WaitForFirstConsumer
 * claims are unbound is assumed on its node (its requests held there) until the provisioner has
 * bound them. Level-based: every pass looks at every unscheduled pod in its informer
 * (client/informer.h), so a missed event costs a pass, not a pod. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/pod-resources.h"
#include "api/taints.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/quantity.h"
#include "base/strbuf.h"
#include "base/timeutil.h"
#include "client/event.h"
#include "controllers/pv-provisioner.h"
#include "controllers/controller-loop.h"
#include "controllers/node-affinity.h"
#include "controllers/scheduler.h"
#include "controllers/volume-binding.h"

#define SCHEDULER_NAME "default-scheduler"
/* Unschedulable and waiting pods are looked at again this often even without an event, so a
 * node that joins or frees up is noticed. */
#define PASS_PERIOD_MS 2000
/* K8S: VolumeBindingArgs.bindTimeoutSeconds' default: PreBind waits this long for the claims */
#define BIND_TIMEOUT_MS (600 * 1000)
/* K8S: podInitialBackoffSeconds and podMaxBackoffSeconds: a pod whose binding failed waits this
 * long (doubling) before it is scheduled again */
#define BACKOFF_MIN_MS 1000
#define BACKOFF_MAX_MS 10000

enum { COLL_PODS, COLL_CLAIMS, COLL_VOLUMES, COLL_CLASSES };

struct scheduler {
        struct controller_loop loop; /* pods, claims, volumes, classes */
        /* pass thread only. assumed: "ns/name" -> {"uid", "node", "bound": the binding was
         * posted, "claims": {claim name: version of our write or 0}, "since": ms}, a
         * pod counted on its node before the watch shows spec.nodeName (K8S: the scheduler
         * cache's assumed pods). backoff: "ns/name" -> controller_backoff_* state. */
        json_t *assumed, *backoff;
};

/* The allocated requests of a pod's containers as an overlay for pod_requests_overlay():
 * {name: {"requests": status.*ContainerStatuses[name].allocatedResources}}. */
static json_t *allocated_overlay(const json_t *pod)
{
        static const char *const lists[] = { "status.containerStatuses",
                                             "status.initContainerStatuses" };
        json_t *by_name = json_object();

        for (size_t l = 0; l < ARRAY_SIZE(lists); l++) {
                size_t i;
                json_t *st;

                json_array_foreach(json_path(pod, lists[l]), i, st) {
                        const char *name = json_string_value(json_object_get(st, "name"));
                        json_t *alloc = json_object_get(st, "allocatedResources");
                        if (name && json_is_object(alloc))
                                json_object_set_new(by_name, name,
                                                    json_pack("{s:O}", "requests", alloc));
                }
        }
        return by_name;
}

int scheduler_pod_requests(const json_t *pod, int64_t *ret_milli_cpu, int64_t *ret_memory)
{
        cleanup_json json_t *allocated = allocated_overlay(pod);
        struct pod_resources_overlay ov = { .containers = allocated };
        int64_t cpu = 0, mem = 0, acpu = 0, amem = 0;
        int r;

        r = pod_requests(pod, &cpu, &mem);
        if (r < 0)
                return r;
        r = pod_requests_overlay(pod, &ov, &acpu, &amem);
        if (r < 0)
                return r;
        *ret_milli_cpu = cpu > acpu ? cpu : acpu;
        *ret_memory = mem > amem ? mem : amem;
        return 0;
}

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

/* K8S: TaintToleration's reason for a node: "node(s) had untolerated taint {key: value}",
 * counted per taint. */
static void count_taint(json_t *taint_counts, const json_t *taint)
{
        cleanup_free char *why = xasprintf("node(s) had untolerated taint {%s: %s}",
                                           json_path_string(taint, "key") ?: "",
                                           json_path_string(taint, "value") ?: "");

        json_object_set_new(
                taint_counts, why,
                json_integer(json_integer_value(json_object_get(taint_counts, why)) + 1));
}

/* K8S: the NodeAffinity filter: spec.nodeSelector, then the required node affinity's terms
 * (matchExpressions on labels, matchFields on metadata.name: a DaemonSet's pods name their
 * node there). */
static bool selector_matches(const json_t *pod, const json_t *node)
{
        const json_t *labels = json_path(node, "metadata.labels");
        const json_t *required = json_path(
                pod, "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution");
        const char *key;
        json_t *v;

        if (required && !node_selector_matches(required, node))
                return false;

        json_object_foreach((json_t *) json_path(pod, "spec.nodeSelector"), key, v) {
                const char *have = json_string_value(json_object_get(labels, key));
                if (!have || !json_string_value(v) || !streq(have, json_string_value(v)))
                        return false;
        }
        return true;
}

/* Failure reasons, counted over nodes, rendered sorted as upstream's FitError. */
enum fit_reason {
        FIT_AFFINITY,
        FIT_CPU,
        FIT_MEMORY,
        FIT_PODS,
        FIT_UNSCHEDULABLE,
        FIT_VOLUME_NODE_CONFLICT, /* VB_NODE_CONFLICT */
        FIT_VOLUME_BIND_CONFLICT, /* VB_BIND_CONFLICT */
        FIT_VOLUME_PV_NOT_EXIST,  /* VB_PV_NOT_EXIST */
        FIT_REASON_MAX,
};

static const char *const fit_text[FIT_VOLUME_NODE_CONFLICT] = {
        [FIT_AFFINITY] = "node(s) didn't match Pod's node affinity/selector",
        [FIT_CPU] = "Insufficient cpu",
        [FIT_MEMORY] = "Insufficient memory",
        [FIT_PODS] = "Too many pods",
        [FIT_UNSCHEDULABLE] = "node(s) were unschedulable",
};

static const char *fit_reason_text(int r)
{
        if (r >= FIT_VOLUME_NODE_CONFLICT)
                return vb_conflict_to_string(1u << (r - FIT_VOLUME_NODE_CONFLICT));
        return fit_text[r];
}

static int cmp_string(const void *a, const void *b)
{
        return strcmp(*(char *const *) a, *(char *const *) b);
}

/* K8S FitError.Error(): PreFilter's reason alone when it refused, else the per-node reasons as
 * "<count> <reason>" strings, sorted as strings; then the preemption summary. taint_counts
 * (may be NULL) holds the TaintToleration reasons, one per taint: {reason: count}. */
static char *fit_error(size_t n_nodes, const char *prefilter, const unsigned counts[FIT_REASON_MAX],
                       const json_t *taint_counts, unsigned preemptable)
{
        struct strbuf sb;
        char **reasons = xcalloc(FIT_REASON_MAX + json_object_size(taint_counts), sizeof(char *));
        size_t n = 0;
        const char *reason;
        json_t *count;

        if (n_nodes == 0) {
                free(reasons);
                return xstrdup("no nodes available to schedule pods");
        }
        for (int i = 0; i < FIT_REASON_MAX && !prefilter; i++)
                if (counts[i])
                        reasons[n++] = xasprintf("%u %s", counts[i], fit_reason_text(i));
        json_object_foreach((json_t *) taint_counts, reason, count) {
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
        /* K8S: the preemption summary: resource shortages could be solved by preemption (but
         * nothing is preemptible here); other reasons could not. */
        strbuf_addf(&sb, ". preemption: 0/%zu nodes are available: ", n_nodes);
        if (preemptable && preemptable < n_nodes)
                strbuf_addf(
                        &sb,
                        "%u No preemption victims found for incoming pod, %zu Preemption is not helpful for scheduling.",
                        preemptable, n_nodes - preemptable);
        else if (preemptable)
                strbuf_addf(&sb, "%u No preemption victims found for incoming pod.", preemptable);
        else
                strbuf_addf(&sb, "%zu Preemption is not helpful for scheduling.", n_nodes);
        return strbuf_detach(&sb);
}

const char *scheduler_pick_node_volumes(const json_t *pod, const json_t *nodes, const json_t *pods,
                                        const struct vb_objects *vols, char **ret_message)
{
        unsigned counts[FIT_REASON_MAX] = { 0 }, preemptable = 0;
        cleanup_json json_t *taint_counts = json_object(), *not_ready_taint = NULL;
        cleanup_json json_t *unschedulable_taint = NULL, *unreachable_taint = NULL;
        const json_t *tolerations = json_path(pod, "spec.tolerations");
        const char *best = NULL;
        double best_score = 2.0;
        int64_t want_cpu = 0, want_mem = 0;
        size_t i, j;
        json_t *node, *p;

        /* K8S: no nodes is told before any plugin runs */
        if (vols && json_array_size(nodes)) {
                cleanup_free char *why = volume_binding_prefilter(pod, vols);
                if (why) {
                        *ret_message = fit_error(json_array_size(nodes), why, counts, NULL, 0);
                        return NULL;
                }
        }
        (void) scheduler_pod_requests(pod, &want_cpu, &want_mem);
        not_ready_taint =
                json_pack("{s:s, s:s}", "key", TAINT_NODE_NOT_READY, "effect", "NoSchedule");
        unreachable_taint =
                json_pack("{s:s, s:s}", "key", TAINT_NODE_UNREACHABLE, "effect", "NoSchedule");
        unschedulable_taint =
                json_pack("{s:s, s:s}", "key", TAINT_NODE_UNSCHEDULABLE, "effect", "NoSchedule");
        json_array_foreach(nodes, i, node) {
                const char *name = json_path_string(node, "metadata.name") ?: "";
                int64_t cap_cpu = allocatable(node, "cpu", true);
                int64_t cap_mem = allocatable(node, "memory", false);
                int64_t cap_pods = allocatable(node, "pods", false);
                int64_t used_cpu = 0, used_mem = 0, used_pods = 0;
                bool fits = true, resource_short = false;
                unsigned conflicts;

                const char *ready = node_ready(node);
                const json_t *taint;

                /* K8S: a node that is not Ready carries the not-ready NoSchedule taint (the
                 * kubelet registers with it) or, once its status is Unknown, the unreachable
                 * one (the node lifecycle controller's), whether or not it is written yet */
                if (!streq(ready, "True")) {
                        const json_t *t =
                                streq(ready, "Unknown") ? unreachable_taint : not_ready_taint;

                        if (!taint_toleration(t, tolerations)) {
                                count_taint(taint_counts, t);
                                continue;
                        }
                }
                /* K8S: NodeUnschedulable, then TaintToleration, as the default profile orders
                 * its filters */
                if (json_is_true(json_path(node, "spec.unschedulable")) &&
                    !taint_toleration(unschedulable_taint, tolerations)) {
                        counts[FIT_UNSCHEDULABLE]++;
                        continue;
                }
                taint = taint_untolerated(json_path(node, "spec.taints"), tolerations);
                if (taint) {
                        count_taint(taint_counts, taint);
                        continue;
                }
                if (!selector_matches(pod, node)) {
                        counts[FIT_AFFINITY]++;
                        continue;
                }
                json_array_foreach(pods, j, p) {
                        int64_t c = 0, m = 0;
                        if (!streq(json_path_string(p, "spec.nodeName") ?: "", name) ||
                            pod_is_terminal(p))
                                continue;
                        (void) scheduler_pod_requests(p, &c, &m);
                        used_cpu += c;
                        used_mem += m;
                        used_pods++;
                }
                if (cap_pods && used_pods + 1 > cap_pods) {
                        counts[FIT_PODS]++;
                        fits = false;
                        resource_short = true;
                }
                if (want_cpu > cap_cpu - used_cpu) {
                        counts[FIT_CPU]++;
                        fits = false;
                        resource_short = true;
                }
                if (want_mem > cap_mem - used_mem) {
                        counts[FIT_MEMORY]++;
                        fits = false;
                        resource_short = true;
                }
                if (!fits) {
                        preemptable += resource_short;
                        continue;
                }
                /* K8S: VolumeBinding filters after NodeResourcesFit; its conflicts are
                 * UnschedulableAndUnresolvable, so preemption cannot help */
                conflicts = vols ? volume_binding_filter(pod, node, vols) : 0;
                for (int r = FIT_VOLUME_NODE_CONFLICT; r < FIT_REASON_MAX; r++)
                        if (conflicts & (1u << (r - FIT_VOLUME_NODE_CONFLICT)))
                                counts[r]++;
                if (conflicts)
                        continue;
                {
                        double score = cap_cpu > 0
                                               ? (double) (used_cpu + want_cpu) / (double) cap_cpu
                                               : 1.0;
                        if (!best || score < best_score) {
                                best = name;
                                best_score = score;
                        }
                }
        }
        if (!best)
                *ret_message =
                        fit_error(json_array_size(nodes), NULL, counts, taint_counts, preemptable);
        return best;
}

const char *scheduler_pick_node(const json_t *pod, const json_t *nodes, const json_t *pods,
                                char **ret_message)
{
        return scheduler_pick_node_volumes(pod, nodes, pods, NULL, ret_message);
}

/* ---- the controller ---- */

static char *pod_key(const json_t *pod)
{
        return xasprintf("%s/%s", json_path_string(pod, "metadata.namespace") ?: "",
                         json_path_string(pod, "metadata.name") ?: "");
}

/* The Status message of an API answer, else the transport error's words. */
static char *answer_message(int r, long status, const json_t *resp, const struct error *err)
{
        const char *msg = json_string_value(json_object_get(resp, "message"));

        if (r < 0)
                return xstrdup(err ? err->message : strerror(-r));
        return msg ? xstrdup(msg) : xasprintf("the API server answered %ld", status);
}

static bool backing_off(struct scheduler *s, const char *key)
{
        return controller_backoff_waiting(s->backoff, key, NULL);
}

static void back_off(struct scheduler *s, const char *key)
{
        controller_backoff_failed(s->backoff, key, NULL, BACKOFF_MIN_MS, BACKOFF_MAX_MS);
}

/* K8S handleSchedulingFailure: PodScheduled=False with reason (Unschedulable for a refusal,
 * SchedulerError for a failure) and a FailedScheduling event; once per message. */
static void report_failure(struct scheduler *s, const json_t *pod, const char *reason,
                           const char *message)
{
        cleanup_json json_t *patch = NULL, *resp = NULL;
        cleanup_free char *body = NULL, *path = NULL;
        size_t i;
        json_t *c;
        char now[32];
        long status = 0;

        json_array_foreach(json_path(pod, "status.conditions"), i, c) {
                if (streq(json_string_value(json_object_get(c, "type")) ?: "", "PodScheduled") &&
                    streq(json_string_value(json_object_get(c, "reason")) ?: "", reason) &&
                    streq(json_string_value(json_object_get(c, "message")) ?: "", message))
                        return; /* already says so */
        }
        time_format_rfc3339(time(NULL), now);
        patch = json_pack("{s:{s:[{s:s, s:s, s:s, s:s, s:n, s:s}]}}", "status", "conditions",
                          "type", "PodScheduled", "status", "False", "reason", reason, "message",
                          message, "lastProbeTime", "lastTransitionTime", now);
        body = json_dump_compact(patch);
        path = xasprintf("/api/v1/namespaces/%s/pods/%s/status",
                         json_path_string(pod, "metadata.namespace"),
                         json_path_string(pod, "metadata.name"));
        (void) api_client_request(s->loop.client, "PATCH", path,
                                  "application/strategic-merge-patch+json", body, strlen(body),
                                  &status, &resp, NULL);
        (void) api_client_event(s->loop.client, pod, "Warning", "FailedScheduling", message,
                                SCHEDULER_NAME, NULL, NULL);
}

/* A PreBind failure: told as upstream's framework words it, the pod waits out a back-off. */
static void prebind_failed(struct scheduler *s, const json_t *pod, const char *key, const char *why)
{
        cleanup_free char *msg = xasprintf("running PreBind plugin \"VolumeBinding\": %s", why);
        cleanup_free char *k = xstrdup(key); /* key may be the record's own, freed with it */

        report_failure(s, pod, "SchedulerError", msg);
        json_object_del(s->assumed, k);
        back_off(s, k);
}

static void assume(struct scheduler *s, const json_t *pod, const char *node, bool bound,
                   json_t *claims)
{
        cleanup_free char *key = pod_key(pod);

        json_object_set_new(s->assumed, key,
                            json_pack("{s:s, s:s, s:b, s:o, s:I}", "uid",
                                      json_path_string_or_empty(pod, "metadata.uid"), "node", node,
                                      "bound", bound, "claims", claims ?: json_object(), "since",
                                      (json_int_t) time_monotonic_ms()));
}

/* POST pods/{name}/binding; on success the pod stays assumed on node until the watch shows it
 * bound. */
static int bind_pod(struct scheduler *s, const json_t *pod, const char *node)
{
        cleanup_json json_t *b = NULL, *resp = NULL;
        cleanup_free char *body = NULL, *path = NULL, *msg = NULL, *key = pod_key(pod);
        const char *ns = json_path_string(pod, "metadata.namespace");
        const char *name = json_path_string(pod, "metadata.name");
        long status = 0;

        b = json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:s, s:s, s:s}}", "apiVersion", "v1", "kind",
                      "Binding", "metadata", "name", name, "namespace", ns, "target", "apiVersion",
                      "v1", "kind", "Node", "name", node);
        body = json_dump_compact(b);
        path = xasprintf("/api/v1/namespaces/%s/pods/%s/binding", ns, name);
        if (api_client_request(s->loop.client, "POST", path, "application/json", body, strlen(body),
                               &status, &resp, NULL) < 0 ||
            status != 201) {
                /* the next pass sees the pod as it is now (bound elsewhere, deleted) */
                json_object_del(s->assumed, key);
                back_off(s, key);
                return -EIO;
        }
        assume(s, pod, node, true, NULL);
        json_object_del(s->backoff, key);
        msg = xasprintf("Successfully assigned %s/%s to %s", ns, name, node);
        (void) api_client_event(s->loop.client, pod, "Normal", "Scheduled", msg, SCHEDULER_NAME,
                                NULL, NULL);
        return 0;
}

/* K8S bindAPIUpdate for dynamic provisioning: selected-node on the claim (a merge patch: only
 * the annotation), the answer kept so the next pass sees it before the watch does. Returns the
 * claim as the server answered (a new reference) or NULL with *ret_why. */
static json_t *select_node(struct scheduler *s, const json_t *claim, const char *node,
                           char **ret_why)
{
        cleanup_error struct error *err = NULL;
        cleanup_json json_t *patch = NULL, *resp = NULL;
        cleanup_free char *body = NULL, *path = NULL;
        long status = 0;
        int r;

        patch = json_pack("{s:{s:{s:s}}}", "metadata", "annotations", PV_ANN_SELECTED_NODE, node);
        body = json_dump_compact(patch);
        path = xasprintf("/api/v1/namespaces/%s/persistentvolumeclaims/%s",
                         json_path_string_or_empty(claim, "metadata.namespace"),
                         json_path_string_or_empty(claim, "metadata.name"));
        r = api_client_request(s->loop.client, "PATCH", path, "application/merge-patch+json", body,
                               strlen(body), &status, &resp, &err);
        if (r < 0 || status != 200) {
                *ret_why = answer_message(r, status, resp, err);
                return NULL;
        }
        informer_store(s->loop.watch, COLL_CLAIMS, resp);
        return TAKE_PTR(resp);
}

static const json_t *find_node(const json_t *nodes, const char *name)
{
        size_t i;
        json_t *n;

        json_array_foreach(nodes, i, n) {
                if (streq(json_path_string_or_empty(n, "metadata.name"), name))
                        return n;
        }
        return NULL;
}

/* Assumptions end when the watch shows the pod bound (by us or anyone), deleted or replaced. */
static void forget_settled(struct scheduler *s, const json_t *pods)
{
        const char *key;
        json_t *a, *tmp;

        json_object_foreach_safe(s->assumed, tmp, key, a)
        {
                const json_t *pod = json_object_get(pods, key);
                if (!pod || json_path(pod, "metadata.deletionTimestamp") ||
                    *json_path_string_or_empty(pod, "spec.nodeName") ||
                    !streq(json_path_string_or_empty(pod, "metadata.uid"),
                           json_path_string_or_empty(a, "uid")))
                        json_object_del(s->assumed, key);
        }
        json_object_foreach_safe(s->backoff, tmp, key, a)
        {
                if (!json_object_get(pods, key))
                        json_object_del(s->backoff, key);
        }
}

/* K8S PreBind's wait, one look per pass: binds the pods whose claims are bound now. */
static void finish_waiting(struct scheduler *s, const json_t *pods, const json_t *nodes,
                           const struct vb_objects *o)
{
        const char *key;
        json_t *a, *tmp;

        json_object_foreach_safe(s->assumed, tmp, key, a)
        {
                const json_t *pod = json_object_get(pods, key);
                /* a copy: binding replaces the record the name is in */
                cleanup_free char *node = xstrdup(json_path_string_or_empty(a, "node"));
                cleanup_free char *why = NULL, *error = NULL;
                int r;

                if (json_is_true(json_object_get(a, "bound")))
                        continue;
                r = volume_binding_check(pod, node, find_node(nodes, node),
                                         json_object_get(a, "claims"), o, &error);
                if (r == 0 &&
                    time_monotonic_ms() - json_integer_value(json_object_get(a, "since")) >=
                            BIND_TIMEOUT_MS) {
                        r = -1;
                        error = xstrdup("context deadline exceeded");
                }
                if (r > 0) {
                        (void) bind_pod(s, pod, node);
                } else if (r < 0) {
                        why = xasprintf("binding volumes: %s", error);
                        prebind_failed(s, pod, key, why);
                }
        }
}

/* One pod: a node or the reason why not; then bound at once, or assumed while its claims are
 * provisioned. pod is the pass's copy: it gets spec.nodeName so later pods count it there;
 * claims is the pass's map of claims (o->claims): a claim annotated here is replaced there, so a
 * later pod sharing it sees the node chosen (K8S: AssumePodVolumes' assumed claims). */
static void schedule_one(struct scheduler *s, json_t *pod, const json_t *nodes, const json_t *pods,
                         json_t *claim_map, const struct vb_objects *o)
{
        cleanup_free char *message = NULL, *key = pod_key(pod);
        cleanup_json json_t *to_provision = NULL, *claims = json_object();
        const char *node = scheduler_pick_node_volumes(pod, nodes, pods, o, &message);
        size_t i;
        json_t *name;

        if (!node) {
                report_failure(s, pod, "Unschedulable", message);
                return;
        }
        to_provision = volume_binding_claims_to_provision(pod, o);
        if (!json_array_size(to_provision)) {
                if (bind_pod(s, pod, node) >= 0)
                        json_object_set_new(json_object_ensure(pod, "spec"), "nodeName",
                                            json_string(node));
                return;
        }
        json_array_foreach(to_provision, i, name) {
                cleanup_free char *ckey =
                        xasprintf("%s/%s", json_path_string_or_empty(pod, "metadata.namespace"),
                                  json_string_value(name));
                const json_t *claim = json_object_get(o->claims, ckey);
                cleanup_free char *why = NULL;
                json_t *answer;

                if (streq(json_string_value(json_object_get(
                                  json_path(claim, "metadata.annotations"), PV_ANN_SELECTED_NODE))
                                  ?: "",
                          node)) {
                        json_object_set_new(claims, json_string_value(name), json_integer(0));
                        continue;
                }
                answer = select_node(s, claim, node, &why);
                if (!answer) {
                        prebind_failed(s, pod, key, why);
                        return;
                }
                json_object_set_new(claims, json_string_value(name),
                                    json_integer((json_int_t) informer_object_version(answer)));
                json_object_set_new(claim_map, ckey, answer);
        }
        assume(s, pod, node, false, TAKE_PTR(claims));
        json_object_set_new(json_object_ensure(pod, "spec"), "nodeName", json_string(node));
}

static bool wants_scheduling(struct scheduler *s, const char *key, const json_t *pod)
{
        return !*json_path_string_or_empty(pod, "spec.nodeName") &&
               !json_path(pod, "metadata.deletionTimestamp") &&
               streq(json_path_string(pod, "spec.schedulerName") ?: SCHEDULER_NAME,
                     SCHEDULER_NAME) &&
               !json_object_get(s->assumed, key) && !backing_off(s, key);
}

static void schedule_pass(void *ctx)
{
        struct scheduler *s = ctx;
        cleanup_json json_t *pod_map = informer_snapshot(s->loop.watch, COLL_PODS);
        cleanup_json json_t *claims = informer_snapshot(s->loop.watch, COLL_CLAIMS);
        cleanup_json json_t *volumes = informer_snapshot(s->loop.watch, COLL_VOLUMES);
        cleanup_json json_t *classes = informer_snapshot(s->loop.watch, COLL_CLASSES);
        cleanup_json json_t *nodes_list = NULL, *pods = json_array(), *pending = json_array();
        struct vb_objects o = { .claims = claims, .volumes = volumes, .classes = classes };
        const char *key;
        json_t *pod, *a, *nodes;
        bool work = false;
        size_t i;
        long status = 0;

        forget_settled(s, pod_map);
        json_object_foreach(pod_map, key, pod) {
                work = work || wants_scheduling(s, key, pod);
        }
        json_object_foreach(s->assumed, key, a) {
                work = work || !json_is_true(json_object_get(a, "bound"));
        }
        if (!work)
                return;
        if (api_client_request(s->loop.client, "GET", "/api/v1/nodes", NULL, NULL, 0, &status,
                               &nodes_list, NULL) < 0 ||
            status != 200)
                return;
        nodes = json_object_get(nodes_list, "items");
        finish_waiting(s, pod_map, nodes, &o);
        /* the pass's own copies of the pods it changes: assumed pods count on their node, and
         * so does each pod this pass places, for the pods after it; the others are shared with
         * the informer, unchanged */
        json_object_foreach(pod_map, key, pod) {
                json_t *copy;

                a = json_object_get(s->assumed, key);
                if (a) {
                        copy = json_deep_copy(pod);
                        json_object_set(json_object_ensure(copy, "spec"), "nodeName",
                                        json_object_get(a, "node"));
                } else if (wants_scheduling(s, key, pod)) {
                        copy = json_deep_copy(pod);
                        json_array_append(pending, copy);
                } else {
                        copy = json_incref(pod);
                }
                json_array_append_new(pods, copy);
        }
        json_array_foreach(pending, i, pod) {
                schedule_one(s, pod, nodes, pods, claims, &o);
        }
}

static void scheduler_release(void *ctx)
{
        struct scheduler *s = ctx;

        json_decref(s->assumed);
        json_decref(s->backoff);
        free(s);
}

int scheduler_start(const struct api_client_options *o, struct scheduler **ret,
                    struct error **reterr)
{
        static const char *const paths[] = { "/api/v1/pods", "/api/v1/persistentvolumeclaims",
                                             "/api/v1/persistentvolumes",
                                             "/apis/storage.k8s.io/v1/storageclasses", NULL };
        const struct controller_loop_def def = { .paths = paths,
                                                 .period_ms = PASS_PERIOD_MS,
                                                 .pass = schedule_pass,
                                                 .release = scheduler_release };
        struct scheduler *s = xcalloc(1, sizeof(*s));
        int r;

        s->assumed = json_object();
        s->backoff = json_object();
        r = controller_loop_start(o, &def, s, &s->loop, reterr);
        if (r < 0) {
                scheduler_release(s);
                return r;
        }
        *ret = s;
        return 0;
}

struct scheduler *scheduler_stop(struct scheduler *s)
{
        /* the pass thread ends after the pass it is in and frees the scheduler */
        if (s)
                controller_loop_stop(&s->loop);
        return NULL;
}
