/* daemonset.c: the DaemonSet controller (daemonset.h): per DaemonSet, its ControllerRevision
 * history, the pods it owns grouped by their node, then the pods each node lacks or has too
 * many of, one step of the rolling update, and the status. Level-based: each pass decides from
 * the informer's snapshot; what it wrote and has not yet seen is held in expectations, as
 * upstream's ControllerExpectations. Scheduling is the scheduler's: a pod only names its node in
 * its required node affinity. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api/owner.h"
#include "api/selector.h"
#include "api/taints.h"
#include "api/workload.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/timeutil.h"
#include "client/event.h"
#include "controllers/controller-loop.h"
#include "controllers/controller-ref.h"
#include "controllers/daemonset.h"
#include "controllers/expectations.h"
#include "controllers/history.h"
#include "controllers/node-affinity.h"
#include "controllers/relevance.h"
#include "controllers/replicaset.h"
#include "controllers/resize-report.h"

#define PASS_PERIOD_MS  30000
#define EVENT_COMPONENT "daemonset-controller"

enum { COL_DS, COL_NODES, COL_PODS, COL_REVISIONS };

struct daemonset_controller {
        struct controller_loop loop;
        /* expectations (expectations.h) by "ns/ds" */
        json_t *expect;
        /* pod uid -> the resize difference last reported for it (issue 12) */
        json_t *resized;
};

/* ---- pure parts ---- */

void daemonset_add_tolerations(json_t *spec)
{
        /* K8S: AddOrUpdateDaemonPodTolerations (pkg/controller/daemon/util) */
        static const struct {
                const char *key, *effect;
                bool host_network_only;
        } adds[] = {
                { TAINT_NODE_NOT_READY, "NoExecute", false },
                { TAINT_NODE_UNREACHABLE, "NoExecute", false },
                { TAINT_NODE_DISK_PRESSURE, "NoSchedule", false },
                { TAINT_NODE_MEMORY_PRESSURE, "NoSchedule", false },
                { TAINT_NODE_PID_PRESSURE, "NoSchedule", false },
                { TAINT_NODE_UNSCHEDULABLE, "NoSchedule", false },
                { TAINT_NODE_NETWORK_UNAVAILABLE, "NoSchedule", true },
        };
        json_t *tols = json_object_get(spec, "tolerations");

        if (!json_is_array(tols)) {
                tols = json_array();
                json_object_set_new(spec, "tolerations", tols);
        }
        for (size_t i = 0; i < sizeof(adds) / sizeof(adds[0]); i++) {
                bool have = false;
                size_t j;
                json_t *t;

                if (adds[i].host_network_only &&
                    !json_is_true(json_object_get(spec, "hostNetwork")))
                        continue;
                /* K8S: AddOrUpdateTolerationInPodSpec: an equal toleration is kept as it is */
                json_array_foreach(tols, j, t) {
                        const char *k = json_string_value(json_object_get(t, "key"));
                        const char *op = json_string_value(json_object_get(t, "operator"));
                        const char *e = json_string_value(json_object_get(t, "effect"));

                        if (k && streq(k, adds[i].key) && op && streq(op, "Exists") && e &&
                            streq(e, adds[i].effect) && !json_object_get(t, "tolerationSeconds"))
                                have = true;
                }
                if (!have)
                        json_array_append_new(tols, json_pack("{s:s, s:s, s:s}", "key", adds[i].key,
                                                              "operator", "Exists", "effect",
                                                              adds[i].effect));
        }
}

/* K8S: the NodeAffinity filter's part for a pod: spec.nodeSelector, then the required terms. */
static bool node_affinity_matches(const json_t *spec, const json_t *node)
{
        const json_t *labels = json_path(node, "metadata.labels");
        const json_t *required = json_path(
                spec, "affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution");
        const char *k;
        json_t *v;

        json_object_foreach((json_t *) json_object_get(spec, "nodeSelector"), k, v) {
                const char *have = json_string_value(json_object_get(labels, k));

                if (!have || !json_is_string(v) || !streq(have, json_string_value(v)))
                        return false;
        }
        return !required || node_selector_matches(required, node);
}

bool daemonset_node_should_run(const json_t *ds, const json_t *node, bool *ret_continue)
{
        const char *name = json_path_string_or_empty(node, "metadata.name");
        const json_t *tmpl_spec = json_path(ds, "spec.template.spec");
        const char *want_node = json_string_value(json_object_get(tmpl_spec, "nodeName"));
        const json_t *taints = json_path(node, "spec.taints");
        cleanup_json json_t *spec = json_deep_copy(tmpl_spec ?: json_object());
        const json_t *tols;
        size_t i;
        json_t *t;

        *ret_continue = false;
        if (!spec)
                spec = json_object();
        /* K8S: NodeShouldRunDaemonPod: a template naming a node runs there only */
        if (want_node && want_node[0] && !streq(want_node, name))
                return false;
        if (!node_affinity_matches(spec, node))
                return false;
        daemonset_add_tolerations(spec);
        tols = json_object_get(spec, "tolerations");
        if (!taint_untolerated(taints, tols)) {
                *ret_continue = true;
                return true;
        }
        /* K8S: a daemon pod keeps running unless a NoExecute taint is untolerated */
        *ret_continue = true;
        json_array_foreach(taints, i, t) {
                const char *effect = json_string_value(json_object_get(t, "effect"));

                if (effect && streq(effect, "NoExecute") && !taint_toleration(t, tols))
                        *ret_continue = false;
        }
        return false;
}

static json_t *owner_ref(const json_t *ds)
{
        return controller_ref_new("apps/v1", "DaemonSet", ds);
}

json_t *daemonset_new_pod(const json_t *ds, const char *node_name, const char *hash)
{
        const json_t *tmpl = json_path(ds, "spec.template");
        json_t *spec = json_deep_copy(json_object_get(tmpl, "spec") ?: json_object());
        json_t *meta, *labels, *affinity, *na, *term;

        if (!spec)
                spec = json_object();
        meta = json_pack("{s:s+, s:s, s:[o]}", "generateName",
                         json_path_string_or_empty(ds, "metadata.name"), "-", "namespace",
                         json_path_string_or_empty(ds, "metadata.namespace"), "ownerReferences",
                         owner_ref(ds));
        /* K8S: CreatePodTemplate: the template's labels plus the revision hash */
        labels = json_deep_copy(json_path(tmpl, "metadata.labels") ?: json_object());
        if (!labels)
                labels = json_object();
        json_object_set_new(labels, DAEMONSET_REVISION_HASH_LABEL, json_string(hash));
        json_object_set_new(meta, "labels", labels);
        if (json_path(tmpl, "metadata.annotations"))
                json_object_set(meta, "annotations", json_path(tmpl, "metadata.annotations"));
        if (json_path(tmpl, "metadata.finalizers"))
                json_object_set(meta, "finalizers", json_path(tmpl, "metadata.finalizers"));
        daemonset_add_tolerations(spec);
        /* K8S: ReplaceDaemonSetPodNodeNameNodeAffinity: the required terms become one term of
         * matchFields metadata.name In [node]; preferred terms and pod affinity stay */
        term = json_pack("{s:[{s:s, s:s, s:[s]}]}", "matchFields", "key", "metadata.name",
                         "operator", "In", "values", node_name);
        affinity = json_object_get(spec, "affinity");
        if (!json_is_object(affinity)) {
                affinity = json_object();
                json_object_set_new(spec, "affinity", affinity);
        }
        na = json_object_get(affinity, "nodeAffinity");
        if (!json_is_object(na)) {
                na = json_object();
                json_object_set_new(affinity, "nodeAffinity", na);
        }
        json_object_set_new(na, "requiredDuringSchedulingIgnoredDuringExecution",
                            json_pack("{s:[o]}", "nodeSelectorTerms", term));
        return json_pack("{s:s, s:s, s:o, s:o}", "apiVersion", "v1", "kind", "Pod", "metadata",
                         meta, "spec", spec);
}

const char *daemonset_pod_node(const json_t *pod)
{
        const char *node = json_path_string(pod, "spec.nodeName");
        const json_t *terms = json_path(
                pod,
                "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms");
        const json_t *fields, *req;

        if (node && node[0])
                return node;
        /* K8S: GetTargetNodeName: exactly one term with exactly one matchFields requirement,
         * metadata.name In with one value */
        if (json_array_size(terms) != 1)
                return NULL;
        fields = json_object_get(json_array_get(terms, 0), "matchFields");
        if (json_array_size(fields) != 1)
                return NULL;
        req = json_array_get(fields, 0);
        if (!streq(json_string_value(json_object_get(req, "key")) ?: "", "metadata.name") ||
            !streq(json_string_value(json_object_get(req, "operator")) ?: "", "In") ||
            json_array_size(json_object_get(req, "values")) != 1)
                return NULL;
        return json_string_value(json_array_get(json_object_get(req, "values"), 0));
}

json_t *daemonset_revision_data(const json_t *ds)
{
        json_t *tmpl = json_deep_copy(json_path(ds, "spec.template") ?: json_object());

        if (!tmpl)
                tmpl = json_object();
        json_object_set_new(tmpl, "$patch", json_string("replace"));
        return json_pack("{s:{s:o}}", "spec", "template", tmpl);
}

/* ---- the pass ---- */

static int int_at(const json_t *obj, const char *path, int dflt)
{
        const json_t *v = json_path(obj, path);
        return json_is_integer(v) ? (int) json_integer_value(v) : dflt;
}

static bool controlled_by(const json_t *obj, const char *uid)
{
        const json_t *ref = owner_controller_of(obj);

        return ref && streq(json_string_value(json_object_get(ref, "uid")) ?: "", uid);
}

/* What a DaemonSet's history pruning reads: the live pods' revision hashes. */
struct prune {
        struct daemonset_controller *x;
        const json_t *pods;
};

static bool revision_live(const json_t *cr, void *ctx)
{
        const struct prune *p = ctx;
        const char *h = json_string_value(
                json_object_get(json_path(cr, "metadata.labels"), DAEMONSET_REVISION_HASH_LABEL));
        size_t j;
        json_t *pod;

        json_array_foreach((json_t *) p->pods, j, pod) {
                const char *ph = json_string_value(json_object_get(
                        json_path(pod, "metadata.labels"), DAEMONSET_REVISION_HASH_LABEL));
                if (h && ph && streq(h, ph))
                        return true;
        }
        return false;
}

static bool revision_delete(const json_t *cr, void *ctx)
{
        const struct prune *p = ctx;
        cleanup_free char *path = xasprintf("/apis/apps/v1/namespaces/%s/controllerrevisions/%s",
                                            json_path_string_or_empty(cr, "metadata.namespace"),
                                            json_path_string_or_empty(cr, "metadata.name"));

        (void) controller_loop_request(&p->x->loop, "DELETE", path, NULL, NULL, NULL);
        return true;
}

/* K8S: constructHistory: the revision whose data is the template's (made, or moved to the
 * newest revision, when needed), then cleanupHistory: at most revisionHistoryLimit others, never
 * one a live pod still carries. */
/* K8S: snapshot's answer to AlreadyExists: the revision named ds-hash exists. 0 when it holds
 * ds's template (made before); otherwise a hash collision: status.collisionCount, read again from
 * the server, is raised so the next pass hashes anew (-EEXIST), unless the count ds was hashed
 * with is stale (-EAGAIN: the informer has not caught up; retry). */
static int revision_name_taken(struct daemonset_controller *x, const json_t *ds, const char *name,
                               const json_t *data)
{
        const char *ns = json_path_string_or_empty(ds, "metadata.namespace");
        cleanup_free char *cr_path =
                xasprintf("/apis/apps/v1/namespaces/%s/controllerrevisions/%s", ns, name);
        cleanup_free char *ds_path = xasprintf("/apis/apps/v1/namespaces/%s/daemonsets/%s", ns,
                                               json_path_string_or_empty(ds, "metadata.name"));
        cleanup_free char *status_path = xasprintf("%s/status", ds_path);
        cleanup_json json_t *existing = NULL, *cur = NULL, *answer = NULL;
        const json_t *have, *want;
        int r;

        r = api_client_get_json(x->loop.client, cr_path, &existing, NULL);
        if (r < 0)
                return r;
        /* K8S: Match: the revision's data is ds's patch */
        if (json_equal(json_object_get(existing, "data"), data))
                return 0;
        r = api_client_get_json(x->loop.client, ds_path, &cur, NULL);
        if (r < 0)
                return r;
        have = json_path(cur, "status.collisionCount");
        want = json_path(ds, "status.collisionCount");
        if (!(have ? want && json_equal(have, want) : !want))
                return -EAGAIN;
        if (!json_is_object(json_object_get(cur, "status")))
                json_object_set_new(cur, "status", json_object());
        json_object_set_new(json_object_get(cur, "status"), "collisionCount",
                            json_integer(json_integer_value(have) + 1));
        r = controller_loop_request(&x->loop, "PUT", status_path, "application/json", cur, &answer);
        if (r < 0)
                return r;
        if (answer)
                informer_store(x->loop.watch, COL_DS, answer);
        return -EEXIST;
}

static int sync_history(struct daemonset_controller *x, const json_t *ds, const json_t *revisions,
                        const json_t *pods, const char *hash)
{
        const char *ns = json_path_string_or_empty(ds, "metadata.namespace");
        const char *uid = json_path_string_or_empty(ds, "metadata.uid");
        cleanup_json json_t *data = daemonset_revision_data(ds);
        cleanup_json json_t *old = json_array();
        const json_t *cur = NULL;
        long long max = 0;
        int limit = int_at(ds, "spec.revisionHistoryLimit", 10);
        const char *key;
        json_t *cr;

        json_object_foreach((json_t *) revisions, key, cr) {
                if (!streq(json_path_string_or_empty(cr, "metadata.namespace"), ns) ||
                    !controlled_by(cr, uid))
                        continue;
                if (json_integer_value(json_object_get(cr, "revision")) > max)
                        max = json_integer_value(json_object_get(cr, "revision"));
                if (!cur && json_equal(json_object_get(cr, "data"), data))
                        cur = cr;
                else
                        json_array_append(old, cr);
        }
        if (!cur) {
                cleanup_json json_t *rev = NULL, *labels = NULL;
                cleanup_free char *path =
                        xasprintf("/apis/apps/v1/namespaces/%s/controllerrevisions", ns);

                labels = json_deep_copy(json_path(ds, "spec.template.metadata.labels")
                                                ?: json_object());
                json_object_set_new(labels, DAEMONSET_REVISION_HASH_LABEL, json_string(hash));
                rev = json_pack("{s:s, s:s, s:{s:s++, s:s, s:O, s:[o]}, s:O, s:I}", "apiVersion",
                                "apps/v1", "kind", "ControllerRevision", "metadata", "name",
                                json_path_string_or_empty(ds, "metadata.name"), "-", hash,
                                "namespace", ns, "labels", labels, "ownerReferences", owner_ref(ds),
                                "data", data, "revision", (json_int_t) (max + 1));
                if (json_path(ds, "metadata.annotations"))
                        json_object_set(json_object_get(rev, "metadata"), "annotations",
                                        json_path(ds, "metadata.annotations"));
                if (controller_loop_request(&x->loop, "POST", path, "application/json", rev,
                                            NULL) == -EEXIST) {
                        cleanup_free char *name = xasprintf(
                                "%s-%s", json_path_string_or_empty(ds, "metadata.name"), hash);
                        int r = revision_name_taken(x, ds, name, data);

                        if (r < 0)
                                return r;
                }
        } else if (json_integer_value(json_object_get(cur, "revision")) < max) {
                cleanup_json json_t *next = json_deep_copy(cur);
                cleanup_free char *path =
                        xasprintf("/apis/apps/v1/namespaces/%s/controllerrevisions/%s", ns,
                                  json_path_string_or_empty(cur, "metadata.name"));

                /* K8S: the current template's revision is always the newest (rollout undo) */
                json_object_set_new(next, "revision", json_integer(max + 1));
                (void) controller_loop_request(&x->loop, "PUT", path, "application/json", next,
                                               NULL);
        }
        if ((int) json_array_size(old) <= limit)
                return 0;
        /* K8S: cleanupHistory: from the oldest, skipping the revisions live pods carry */
        json_array_sort(old, history_cmp_revision);
        {
                struct prune p = { .x = x, .pods = pods };
                const struct history_pruner pruner = { .in_use = revision_live,
                                                       .delete = revision_delete,
                                                       .ctx = &p };

                (void) history_prune(old, (long) json_array_size(old) - limit, &pruner);
        }
        return 0;
}

static char *pod_path(const char *ns, const char *name)
{
        return name ? xasprintf("/api/v1/namespaces/%s/pods/%s", ns, name)
                    : xasprintf("/api/v1/namespaces/%s/pods", ns);
}

/* K8S: ClaimPods: the pods of ds's namespace it controls, after adopting the orphans its
 * selector matches and releasing the owned ones it no longer matches (a JSON array). */
static json_t *claim_pods(struct daemonset_controller *x, const json_t *ds, const json_t *pods)
{
        const struct controller_ref_manager m = { .loop = &x->loop,
                                                  .col = COL_PODS,
                                                  .owner = ds,
                                                  .api_version = "apps/v1",
                                                  .kind = "DaemonSet",
                                                  .group_path = "/api/v1",
                                                  .plural = "pods" };

        return controller_ref_claim(&m, pods);
}

/* Creates ds's pod for node; false when the create failed (the slow start stops there). */
static bool create_pod(struct daemonset_controller *x, const char *key, const json_t *ds,
                       const char *node, const char *hash, time_t now)
{
        const char *ns = json_path_string_or_empty(ds, "metadata.namespace");
        cleanup_json json_t *pod = daemonset_new_pod(ds, node, hash), *answer = NULL;
        cleanup_free char *path = pod_path(ns, NULL);
        cleanup_free char *msg = NULL;

        if (controller_loop_request(&x->loop, "POST", path, "application/json", pod, &answer) < 0 ||
            !answer) {
                msg = xasprintf("Error creating: %s",
                                answer ? json_string_value(json_object_get(answer, "message")) ?: ""
                                       : "the request failed");
                (void) api_client_event(x->loop.client, ds, "Warning", "FailedCreate", msg,
                                        EVENT_COMPONENT, NULL, NULL);
                return false;
        }
        {
                cleanup_free char *pod_key = informer_key(answer);

                expectations_expect_add(x->expect, key, pod_key, now);
        }
        msg = xasprintf("Created pod: %s", json_path_string_or_empty(answer, "metadata.name"));
        (void) api_client_event(x->loop.client, ds, "Normal", "SuccessfulCreate", msg,
                                EVENT_COMPONENT, NULL, NULL);
        return true;
}

/* Deletes pod (force: grace period 0, for the pods of a node that is gone, as podgc). */
static void delete_pod(struct daemonset_controller *x, const char *key, const json_t *ds,
                       const json_t *pod, bool force, time_t now)
{
        const char *ns = json_path_string_or_empty(ds, "metadata.namespace");
        const char *name = json_path_string_or_empty(pod, "metadata.name");
        cleanup_free char *path = pod_path(ns, name);
        cleanup_free char *msg = NULL;
        cleanup_json json_t *body = force ? json_pack("{s:s, s:s, s:i}", "apiVersion", "v1", "kind",
                                                      "DeleteOptions", "gracePeriodSeconds", 0)
                                          : NULL;
        int r;

        if (json_path(pod, "metadata.deletionTimestamp") && !force)
                return;
        r = controller_loop_request(&x->loop, "DELETE", path, body ? "application/json" : NULL,
                                    body, NULL);
        if (r < 0 && r != -ENOENT)
                return;
        {
                cleanup_free char *pod_key = informer_key(pod);

                expectations_expect_del(x->expect, key, pod_key, now);
        }
        msg = xasprintf("Deleted pod: %s", name);
        (void) api_client_event(x->loop.client, ds, "Normal", "SuccessfulDelete", msg,
                                EVENT_COMPONENT, NULL, NULL);
}

static const char *pod_hash(const json_t *pod)
{
        return json_string_value(
                json_object_get(json_path(pod, "metadata.labels"), DAEMONSET_REVISION_HASH_LABEL));
}

static time_t created(const json_t *pod)
{
        time_t t = 0;
        const char *s = json_path_string(pod, "metadata.creationTimestamp");

        if (s)
                (void) time_parse_rfc3339(s, &t);
        return t;
}

/* K8S: podByCreationTimestampAndPhase, simplified: oldest first, then by name. */
static int cmp_oldest(const void *pa, const void *pb)
{
        const json_t *a = *(json_t *const *) pa, *b = *(json_t *const *) pb;

        if (created(a) != created(b))
                return created(a) < created(b) ? -1 : 1;
        return strcmp(json_path_string_or_empty(a, "metadata.name"),
                      json_path_string_or_empty(b, "metadata.name"));
}

static bool allows_surge(const json_t *ds, int desired)
{
        int surge = 0;

        if (!streq(json_path_string_or_empty(ds, "spec.updateStrategy.type"), "RollingUpdate"))
                return false;
        (void) workload_scaled_value(json_path(ds, "spec.updateStrategy.rollingUpdate.maxSurge"),
                                     desired > 0 ? desired : 1, true, &surge);
        return surge > 0;
}

/* K8S: podsShouldBeOnNode's duplicates: without surge the oldest pod stays; with it, the
 * oldest new and the oldest old both stay only while the old is Ready and the new is not. */
static void delete_duplicates(struct daemonset_controller *x, const char *key, const json_t *ds,
                              json_t *on_node, const char *hash, bool surge, time_t now)
{
        const json_t *oldest_new = NULL, *oldest_old = NULL, *pod;
        size_t i;

        json_array_sort(on_node, cmp_oldest);
        json_array_foreach(on_node, i, pod) {
                const char *h = pod_hash(pod);
                bool is_new = h && streq(h, hash);

                if (!surge) {
                        if (i > 0)
                                delete_pod(x, key, ds, pod, false, now);
                        continue;
                }
                if (is_new && !oldest_new) {
                        oldest_new = pod;
                        continue;
                }
                if (!is_new && !oldest_old) {
                        oldest_old = pod;
                        continue;
                }
                delete_pod(x, key, ds, pod, false, now);
        }
        if (oldest_new && oldest_old &&
            (!workload_pod_ready(oldest_old) || workload_pod_ready(oldest_new)))
                delete_pod(x, key, ds, oldest_old, false, now);
}

/* K8S: findUpdatedPodsOnNode: the node's one new and one old pod (either may be NULL); false
 * when it has more than one of either. */
static bool updated_pods_on_node(const json_t *on_node, const char *hash, const json_t **ret_new,
                                 const json_t **ret_old)
{
        size_t i;
        json_t *pod;

        *ret_new = *ret_old = NULL;
        json_array_foreach(on_node, i, pod) {
                const char *h = pod_hash(pod);
                const json_t **slot = h && streq(h, hash) ? ret_new : ret_old;

                if (json_path(pod, "metadata.deletionTimestamp"))
                        continue;
                if (*slot)
                        return false;
                *slot = pod;
        }
        return true;
}

/* K8S: rollingUpdate (pkg/controller/daemon/update.go), one step: without surge, delete old
 * pods while at most maxUnavailable nodes are without an available pod (an unavailable old pod
 * goes at once); with surge, start a new pod beside an old one on up to maxSurge nodes (at once
 * where the old one is unavailable) and delete the old one once the new is available. */
static void rolling_update(struct daemonset_controller *x, const char *key, const json_t *ds,
                           const json_t *nodes, const json_t *by_node, const char *hash,
                           int desired, time_t now)
{
        const json_t *ru = json_path(ds, "spec.updateStrategy.rollingUpdate");
        int min_ready = int_at(ds, "spec.minReadySeconds", 0);
        int max_surge = 0, max_unavailable = 0, n_unavailable = 0, n_surge = 0;
        cleanup_json json_t *to_delete = json_array(), *candidates = json_array();
        cleanup_json json_t *new_nodes = json_array();
        size_t i;
        json_t *node, *v;

        (void) workload_scaled_value(json_object_get(ru, "maxSurge"), desired, true, &max_surge);
        (void) workload_scaled_value(json_object_get(ru, "maxUnavailable"), desired, true,
                                     &max_unavailable);
        /* K8S: an impossible configuration falls back to maxUnavailable 1 */
        if (max_surge == 0 && max_unavailable == 0)
                max_unavailable = 1;
        json_array_foreach(nodes, i, node) {
                const char *name = json_path_string_or_empty(node, "metadata.name");
                const json_t *np, *op;
                bool cont;

                if (!daemonset_node_should_run(ds, node, &cont))
                        continue;
                if (!updated_pods_on_node(json_object_get(by_node, name), hash, &np, &op)) {
                        /* the manage step cleans this node up; it counts as unavailable */
                        n_unavailable++;
                        n_surge++;
                        continue;
                }
                if (max_surge == 0) {
                        if ((!op && !np) || (op && np)) {
                                n_unavailable++;
                        } else if (np) {
                                if (!workload_pod_available(np, min_ready, now))
                                        n_unavailable++;
                        } else if (!workload_pod_available(op, min_ready, now)) {
                                json_array_append(to_delete, (json_t *) op);
                        } else if (n_unavailable < max_unavailable) {
                                json_array_append(candidates, (json_t *) op);
                        }
                        continue;
                }
                if (!op)
                        continue;
                if (!np) {
                        if (!workload_pod_available(op, min_ready, now))
                                json_array_append_new(new_nodes, json_string(name));
                        else if (n_surge < max_surge)
                                json_array_append_new(candidates, json_string(name));
                        continue;
                }
                if (!workload_pod_available(np, min_ready, now)) {
                        n_surge++;
                        continue;
                }
                json_array_append(to_delete, (json_t *) op);
        }
        if (max_surge == 0) {
                int remaining = max_unavailable - n_unavailable;

                for (int k = 0; k < remaining && k < (int) json_array_size(candidates); k++)
                        json_array_append(to_delete, json_array_get(candidates, (size_t) k));
        } else {
                int remaining = max_surge - n_surge;

                for (int k = 0; k < remaining && k < (int) json_array_size(candidates); k++)
                        json_array_append(new_nodes, json_array_get(candidates, (size_t) k));
        }
        json_array_foreach(to_delete, i, v) {
                delete_pod(x, key, ds, v, false, now);
        }
        json_array_foreach(new_nodes, i, v) {
                if (!create_pod(x, key, ds, json_string_value(v), hash, now))
                        break;
        }
}

/* K8S: manage: a pod for every node that should run one and lacks it, the failed ones and
 * the duplicates deleted, the pods of nodes that should not keep one deleted. */
static void manage(struct daemonset_controller *x, const char *key, const json_t *ds,
                   const json_t *nodes, json_t *by_node, const char *hash, int desired, time_t now)
{
        bool surge = allows_surge(ds, desired);
        const char *name;
        size_t i;
        json_t *node, *on_node;

        json_array_foreach(nodes, i, node) {
                bool run, cont;
                size_t j;
                json_t *pod;
                cleanup_json json_t *live = json_array();
                bool terminating = false;

                name = json_path_string_or_empty(node, "metadata.name");
                run = daemonset_node_should_run(ds, node, &cont);
                json_array_foreach(json_object_get(by_node, name), j, pod) {
                        const char *phase = json_path_string_or_empty(pod, "status.phase");

                        /* K8S getNodesToDaemonPods: a pod being deleted still runs until it
                         * has ended, and a node with one gets no new pod (podsShouldBeOnNode:
                         * "shouldRun && !exists") */
                        if (json_path(pod, "metadata.deletionTimestamp")) {
                                terminating |=
                                        !streq(phase, "Succeeded") && !streq(phase, "Failed");
                                continue;
                        }
                        if (streq(phase, "Failed")) {
                                cleanup_free char *msg = xasprintf(
                                        "Found failed daemon pod %s/%s on node %s, will try to kill it",
                                        json_path_string_or_empty(pod, "metadata.namespace"),
                                        json_path_string_or_empty(pod, "metadata.name"), name);

                                (void) api_client_event(x->loop.client, ds, "Warning",
                                                        "FailedDaemonPod", msg, EVENT_COMPONENT,
                                                        NULL, NULL);
                                delete_pod(x, key, ds, pod, false, now);
                                continue;
                        }
                        json_array_append(live, pod);
                }
                if (run && json_array_size(live) == 0 && !terminating) {
                        if (!create_pod(x, key, ds, name, hash, now))
                                return;
                } else if (run && json_array_size(live) > 1) {
                        delete_duplicates(x, key, ds, live, hash, surge, now);
                } else if (!cont) {
                        json_array_foreach(live, j, pod) {
                                delete_pod(x, key, ds, pod, false, now);
                        }
                }
        }
        /* the pods of nodes that are gone (or of no node at all) */
        json_object_foreach(by_node, name, on_node) {
                bool found = false;
                size_t j;
                json_t *pod;

                json_array_foreach(nodes, i, node) {
                        if (streq(json_path_string_or_empty(node, "metadata.name"), name))
                                found = true;
                }
                if (found)
                        continue;
                json_array_foreach(on_node, j, pod) {
                        delete_pod(x, key, ds, pod, true, now);
                }
        }
}

/* K8S: updateDaemonSetStatus: counted per node that should run a pod, over its oldest pod. */
static json_t *ds_status(const json_t *ds, const json_t *nodes, const json_t *by_node,
                         const char *hash, time_t now)
{
        int min_ready = int_at(ds, "spec.minReadySeconds", 0);
        int desired = 0, current = 0, mis = 0, ready = 0, updated = 0, available = 0;
        size_t i;
        json_t *node, *status;

        json_array_foreach(nodes, i, node) {
                const char *name = json_path_string_or_empty(node, "metadata.name");
                cleanup_json json_t *live = json_array();
                const json_t *pod;
                bool run, cont;
                size_t j;
                json_t *p;

                json_array_foreach(json_object_get(by_node, name), j, p) {
                        if (!json_path(p, "metadata.deletionTimestamp"))
                                json_array_append(live, p);
                }
                run = daemonset_node_should_run(ds, node, &cont);
                if (run)
                        desired++;
                if (!json_array_size(live)) {
                        continue;
                }
                if (!run) {
                        mis++;
                        continue;
                }
                current++;
                json_array_sort(live, cmp_oldest);
                pod = json_array_get(live, 0);
                if (workload_pod_ready(pod)) {
                        ready++;
                        if (workload_pod_available(pod, min_ready, now))
                                available++;
                }
                if (pod_hash(pod) && streq(pod_hash(pod), hash))
                        updated++;
        }
        status = json_pack("{s:i, s:i, s:i, s:i, s:I, s:i, s:i, s:i}", "currentNumberScheduled",
                           current, "numberMisscheduled", mis, "desiredNumberScheduled", desired,
                           "numberReady", ready, "observedGeneration",
                           json_integer_value(json_path(ds, "metadata.generation")),
                           "updatedNumberScheduled", updated, "numberAvailable", available,
                           "numberUnavailable", desired - available > 0 ? desired - available : 0);
        if (json_path(ds, "status.collisionCount"))
                json_object_set(status, "collisionCount", json_path(ds, "status.collisionCount"));
        if (json_path(ds, "status.conditions"))
                json_object_set(status, "conditions", json_path(ds, "status.conditions"));
        return status;
}

/* Issue 12: an Event ResizedPods on the DaemonSet for each pod whose running resources differ
 * from the template after an in-place resize, once per difference (`kubectl describe ds`
 * lists the DaemonSet's events). */
static void report_resized(struct daemonset_controller *x, const json_t *ds, const json_t *owned)
{
        size_t i;
        json_t *pod;

        json_array_foreach(owned, i, pod) {
                cleanup_free char *msg =
                        resize_report_pod(x->resized, json_path(ds, "spec.template"), pod);

                if (msg)
                        (void) api_client_event(x->loop.client, ds, "Normal", "ResizedPods", msg,
                                                EVENT_COMPONENT, NULL, NULL);
        }
}

static void sync_one(struct daemonset_controller *x, const char *key, const json_t *ds,
                     const json_t *nodes, const json_t *pods, const json_t *revisions, time_t now)
{
        const json_t *cc = json_path(ds, "status.collisionCount");
        int32_t collisions = json_is_integer(cc) ? (int32_t) json_integer_value(cc) : 0;
        cleanup_free char *hash =
                workload_template_hash(json_path(ds, "spec.template"), cc ? &collisions : NULL);
        cleanup_json json_t *owned = NULL, *by_node = json_object(), *status = NULL;
        cleanup_json json_t *next = NULL, *answer = NULL;
        int desired = 0;
        size_t i;
        json_t *pod, *node;

        if (json_path(ds, "metadata.deletionTimestamp"))
                return;
        owned = claim_pods(x, ds, pods);
        report_resized(x, ds, owned);
        /* K8S: syncDaemonSet stops when constructHistory fails (a collision among them) */
        if (sync_history(x, ds, revisions, owned, hash) < 0)
                return;
        json_array_foreach(owned, i, pod) {
                const char *n = daemonset_pod_node(pod) ?: "";
                json_t *arr = json_object_get(by_node, n);

                if (!arr) {
                        arr = json_array();
                        json_object_set_new(by_node, n, arr);
                }
                json_array_append(arr, pod);
        }
        json_array_foreach(nodes, i, node) {
                bool cont;
                desired += daemonset_node_should_run(ds, node, &cont);
        }
        if (expectations_met(x->expect, key, pods, now)) {
                manage(x, key, ds, nodes, by_node, hash, desired, now);
                if (streq(json_path_string_or_empty(ds, "spec.updateStrategy.type"),
                          "RollingUpdate"))
                        rolling_update(x, key, ds, nodes, by_node, hash, desired, now);
        }
        status = ds_status(ds, nodes, by_node, hash, now);
        if (json_equal(status, json_object_get(ds, "status")))
                return;
        next = json_deep_copy(ds);
        json_object_set(next, "status", status);
        {
                cleanup_free char *path =
                        xasprintf("/apis/apps/v1/namespaces/%s/daemonsets/%s/status",
                                  json_path_string_or_empty(ds, "metadata.namespace"),
                                  json_path_string_or_empty(ds, "metadata.name"));
                if (controller_loop_request(&x->loop, "PUT", path, "application/json", next,
                                            &answer) == 0 &&
                    answer)
                        informer_store(x->loop.watch, COL_DS, answer);
        }
}

static json_t *object_values(const json_t *obj)
{
        json_t *arr = json_array(), *v;
        const char *k;

        json_object_foreach((json_t *) obj, k, v) {
                json_array_append(arr, v);
        }
        return arr;
}

static void daemonset_pass(void *ctx)
{
        struct daemonset_controller *x = ctx;
        cleanup_json json_t *sets = informer_snapshot(x->loop.watch, COL_DS);
        cleanup_json json_t *node_map = informer_snapshot(x->loop.watch, COL_NODES);
        cleanup_json json_t *pods = informer_snapshot(x->loop.watch, COL_PODS);
        cleanup_json json_t *revisions = informer_snapshot(x->loop.watch, COL_REVISIONS);
        cleanup_json json_t *nodes = object_values(node_map);
        time_t now = time(NULL);
        const char *key;
        json_t *ds;

        json_object_foreach(sets, key, ds) {
                sync_one(x, key, ds, nodes, pods, revisions, now);
        }
        expectations_forget_gone(x->expect, sets);
        resize_report_forget_gone(x->resized, pods);
}

static void daemonset_controller_release(void *ctx)
{
        struct daemonset_controller *x = ctx;

        json_decref(x->expect);
        json_decref(x->resized);
        free(x);
}

int daemonset_controller_start(const struct api_client_options *o,
                               struct daemonset_controller **ret, struct error **reterr)
{
        static const char *const paths[] = {
                [COL_DS] = "/apis/apps/v1/daemonsets",
                [COL_NODES] = "/api/v1/nodes",
                [COL_PODS] = "/api/v1/pods",
                [COL_REVISIONS] = "/apis/apps/v1/controllerrevisions",
                NULL,
        };
        static const informer_relevant_fn relevant[ARRAY_SIZE(paths) - 1] = {
                [COL_PODS] = relevance_pod_workload
        };
        const struct controller_loop_def def = { .name = "daemonset",
                                                 .paths = paths,
                                                 .relevant = relevant,
                                                 .period_ms = PASS_PERIOD_MS,
                                                 .pass = daemonset_pass,
                                                 .release = daemonset_controller_release };
        struct daemonset_controller *x = xcalloc(1, sizeof(*x));
        int r;

        x->expect = json_object();
        x->resized = json_object();
        r = controller_loop_start(o, &def, x, &x->loop, reterr);
        if (r < 0) {
                daemonset_controller_release(x);
                return r;
        }
        *ret = x;
        return 0;
}

struct daemonset_controller *daemonset_controller_stop(struct daemonset_controller *x)
{
        if (x)
                controller_loop_stop(&x->loop);
        return NULL;
}
