/* scheduler.c: the scheduler as an API client: it watches pods, claims, volumes, classes,
 * namespaces, ReplicaSets and nodes, decides each pending pod's node with upstream's default
 * profile (scheduler-cycle.c and the plugin files beside it), and binds; a pod whose
 * WaitForFirstConsumer claims are unbound is assumed on its node (its requests held there) until
 * the provisioner has bound them. Level-based: every pass looks at every unscheduled pod in its
 * informer (client/informer.h) that is not backing off, so a missed event costs a pass, not a pod,
 * and a crowd of pods that fit nowhere costs one look each per back-off, not one per event. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/alloc.h"
#include "base/json.h"
#include "base/timeutil.h"
#include "client/event.h"
#include "controllers/pv-provisioner.h"
#include "controllers/controller-loop.h"
#include "controllers/relevance.h"
#include "controllers/scheduler.h"
#include "controllers/volume-binding.h"

#define SCHEDULER_NAME "default-scheduler"
/* Waiting pods, and pods whose back-off or time as unschedulable ran out, are looked at again
 * this often even without an event. */
#define PASS_PERIOD_MS 2000
/* K8S: VolumeBindingArgs.bindTimeoutSeconds' default: PreBind waits this long for the claims */
#define BIND_TIMEOUT_MS (600 * 1000)
/* K8S: podInitialBackoffSeconds and podMaxBackoffSeconds: a pod that did not fit or whose binding
 * failed waits this long (doubling) before it is scheduled again, whatever changes meanwhile (the
 * scheduling queue's backoffQ; an unschedulable pod moved by an event waits out its back-off) */
#define BACKOFF_MIN_MS 1000
#define BACKOFF_MAX_MS 10000

/* K8S: podMaxInUnschedulablePodsDuration: a pod that fit nowhere is tried again after this even
 * when nothing changed */
#define UNSCHEDULABLE_MAX_MS (5 * 60 * 1000)

enum {
        COLL_PODS,
        COLL_CLAIMS,
        COLL_VOLUMES,
        COLL_CLASSES,
        COLL_NAMESPACES,
        COLL_REPLICASETS,
        COLL_NODES,
};

struct scheduler {
        struct controller_loop loop; /* the collections of the enum above */
        /* pass thread only. assumed: "ns/name" -> {"uid", "node", "bound": the binding was
         * posted, "claims": {claim name: version of our write or 0}, "since": ms}, a
         * pod counted on its node before the watch shows spec.nodeName (K8S: the scheduler
         * cache's assumed pods). backoff: "ns/name" -> controller_backoff_* state.
         * unschedulable: "ns/name" -> [cluster, pod version, since ms] of a pod that fit
         * nowhere when the cluster's signature was that (K8S: the scheduling queue's
         * unschedulablePods): it waits there until the cluster or the pod changes, or
         * UNSCHEDULABLE_MAX_MS pass. */
        json_t *assumed, *backoff, *unschedulable;
        uint64_t cluster; /* this pass's cluster_signature */
        uint64_t rng;     /* the tie-break's random state (pass thread only) */
};

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
        json_object_foreach_safe(s->unschedulable, tmp, key, a)
        {
                if (!json_object_get(pods, key))
                        json_object_del(s->unschedulable, key);
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
static void schedule_one(struct scheduler *s, json_t *pod, const struct scheduler_cluster *cl,
                         json_t *claim_map)
{
        cleanup_free char *message = NULL, *key = pod_key(pod);
        cleanup_json json_t *to_provision = NULL, *claims = json_object();
        const struct vb_objects *o = cl->vols;
        const char *node = scheduler_schedule(pod, cl, &message);
        size_t i;
        json_t *name;

        if (!node) {
                report_failure(s, pod, "Unschedulable", message);
                back_off(s, key);
                json_object_set_new(s->unschedulable, key,
                                    json_pack("[I, I, I]", (json_int_t) s->cluster,
                                              (json_int_t) informer_object_version(pod),
                                              (json_int_t) time_monotonic_ms()));
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

/* A hash of what can make a pod that fit nowhere fit now (K8S: the cluster events that move
 * unschedulable pods, as the default plugins register them): the nodes, the claims, volumes and
 * classes, the namespaces (affinity's namespaceSelector) and the pods placed on nodes (their
 * requests, labels, deletion), each by its version; order does not matter. */
static uint64_t cluster_signature(const json_t *const *colls, size_t n, const json_t *pods)
{
        uint64_t sig = 0;
        const char *key;
        json_t *o;

        for (size_t i = 0; i < n; i++) {
                json_object_foreach((json_t *) colls[i], key, o) {
                        sig += (informer_object_version(o) + 1) * 0x9e3779b97f4a7c15ULL;
                }
        }
        json_object_foreach((json_t *) pods, key, o) {
                if (*json_path_string_or_empty(o, "spec.nodeName"))
                        sig += (informer_object_version(o) + 1) * 0xc2b2ae3d27d4eb4fULL;
        }
        return sig;
}

/* The pod fit nowhere and neither it nor the cluster has changed since. */
static bool parked(struct scheduler *s, const char *key, const json_t *pod)
{
        const json_t *u = json_object_get(s->unschedulable, key);

        return u && (uint64_t) json_integer_value(json_array_get(u, 0)) == s->cluster &&
               (unsigned long long) json_integer_value(json_array_get(u, 1)) ==
                       informer_object_version(pod) &&
               time_monotonic_ms() - json_integer_value(json_array_get(u, 2)) <
                       UNSCHEDULABLE_MAX_MS;
}

static bool wants_scheduling(struct scheduler *s, const char *key, const json_t *pod)
{
        return !*json_path_string_or_empty(pod, "spec.nodeName") &&
               !json_path(pod, "metadata.deletionTimestamp") &&
               streq(json_path_string(pod, "spec.schedulerName") ?: SCHEDULER_NAME,
                     SCHEDULER_NAME) &&
               !json_object_get(s->assumed, key) && !backing_off(s, key) && !parked(s, key, pod);
}

static int node_name_cmp(const void *a, const void *b)
{
        return strcmp(json_path_string_or_empty(*(json_t *const *) a, "metadata.name"),
                      json_path_string_or_empty(*(json_t *const *) b, "metadata.name"));
}

/* The informer's nodes into out, by name (as a list of them comes). */
static void nodes_by_name(const json_t *node_map, json_t *out)
{
        size_t n = json_object_size(node_map), i = 0;
        cleanup_free json_t **v = xcalloc(n ? n : 1, sizeof(*v));
        const char *key;
        json_t *node;

        json_object_foreach((json_t *) node_map, key, node) {
                v[i++] = node;
        }
        qsort(v, n, sizeof(*v), node_name_cmp);
        for (i = 0; i < n; i++)
                json_array_append(out, v[i]);
}

static void schedule_pass(void *ctx)
{
        struct scheduler *s = ctx;
        cleanup_json json_t *pod_map = informer_snapshot(s->loop.watch, COLL_PODS);
        cleanup_json json_t *claims = informer_snapshot(s->loop.watch, COLL_CLAIMS);
        cleanup_json json_t *volumes = informer_snapshot(s->loop.watch, COLL_VOLUMES);
        cleanup_json json_t *classes = informer_snapshot(s->loop.watch, COLL_CLASSES);
        cleanup_json json_t *namespaces = informer_snapshot(s->loop.watch, COLL_NAMESPACES);
        cleanup_json json_t *replicasets = informer_snapshot(s->loop.watch, COLL_REPLICASETS);
        cleanup_json json_t *node_map = informer_snapshot(s->loop.watch, COLL_NODES);
        const json_t *const changes[] = { node_map, claims, volumes, classes, namespaces };
        cleanup_json json_t *nodes = json_array(), *pods = json_array(), *pending = json_array();
        struct vb_objects o = { .claims = claims, .volumes = volumes, .classes = classes };
        struct scheduler_cache *cache;
        const char *key;
        json_t *pod, *a;
        bool work = false;
        size_t i;

        s->cluster = cluster_signature(changes, ARRAY_SIZE(changes), pod_map);
        forget_settled(s, pod_map);
        json_object_foreach(pod_map, key, pod) {
                work = work || wants_scheduling(s, key, pod);
        }
        json_object_foreach(s->assumed, key, a) {
                work = work || !json_is_true(json_object_get(a, "bound"));
        }
        if (!work) {
                controller_loop_pass_after_backoff(&s->loop, s->backoff);
                return;
        }
        nodes_by_name(node_map, nodes);
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
        /* the pods' requests, computed once for the pass: its snapshot keeps them alive */
        cache = scheduler_cache_new();
        json_array_foreach(pending, i, pod) {
                const struct scheduler_cluster cl = { .nodes = nodes,
                                                      .pods = pods,
                                                      .namespaces = namespaces,
                                                      .replicasets = replicasets,
                                                      .vols = &o,
                                                      .rng = &s->rng,
                                                      .cache = cache };
                schedule_one(s, pod, &cl, claims);
        }
        scheduler_cache_free(cache);
        controller_loop_pass_after_backoff(&s->loop, s->backoff);
}

static void scheduler_release(void *ctx)
{
        struct scheduler *s = ctx;

        json_decref(s->assumed);
        json_decref(s->backoff);
        json_decref(s->unschedulable);
        free(s);
}

int scheduler_start(const struct api_client_options *o, struct scheduler **ret,
                    struct error **reterr)
{
        static const char *const paths[] = { "/api/v1/pods",
                                             "/api/v1/persistentvolumeclaims",
                                             "/api/v1/persistentvolumes",
                                             "/apis/storage.k8s.io/v1/storageclasses",
                                             "/api/v1/namespaces",
                                             "/apis/apps/v1/replicasets",
                                             "/api/v1/nodes",
                                             NULL };
        static const informer_relevant_fn relevant[ARRAY_SIZE(paths) - 1] = {
                [COLL_PODS] = relevance_pod_scheduling
        };
        const struct controller_loop_def def = { .name = "scheduler",
                                                 .paths = paths,
                                                 .relevant = relevant,
                                                 .period_ms = PASS_PERIOD_MS,
                                                 .pass = schedule_pass,
                                                 .release = scheduler_release };
        struct scheduler *s = xcalloc(1, sizeof(*s));
        int r;

        s->assumed = json_object();
        s->backoff = json_object();
        s->unschedulable = json_object();
        s->rng = (uint64_t) time_monotonic_ms() ^ ((uint64_t) time(NULL) << 20);
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
