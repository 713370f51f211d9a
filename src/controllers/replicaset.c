/* replicaset.c: the ReplicaSet controller (replicaset.h): per ReplicaSet, claim the pods of its
 * namespace (adopt, release), then create or delete pods towards spec.replicas, then write the
 * status. Level-based: each pass decides from the informer's snapshot; what it wrote and has
 * not yet seen is held in expectations. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api/owner.h"
#include "api/selector.h"
#include "api/workload.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/timeutil.h"
#include "client/event.h"
#include "controllers/controller-loop.h"
#include "controllers/controller-ref.h"
#include "controllers/expectations.h"
#include "controllers/relevance.h"
#include "controllers/replicaset.h"
#include "controllers/resize-report.h"

#define PASS_PERIOD_MS 30000
/* K8S: BurstReplicas: at most this many creates or deletes per sync */
#define BURST_REPLICAS  500
#define EVENT_COMPONENT "replicaset-controller"
#define DELETION_COST   "controller.kubernetes.io/pod-deletion-cost"

enum { COL_RS, COL_PODS };

struct replicaset_controller {
        struct controller_loop loop;
        /* expectations (expectations.h) by "ns/rs" */
        json_t *expect;
        /* pod uid -> the resize difference last reported for it (issue 12) */
        json_t *resized;
};

bool replicaset_pod_active(const json_t *pod)
{
        const char *phase = json_path_string(pod, "status.phase") ?: "";

        return !streq(phase, "Succeeded") && !streq(phase, "Failed") &&
               !json_path(pod, "metadata.deletionTimestamp");
}

static int int_at(const json_t *obj, const char *path, int dflt)
{
        const json_t *v = json_path(obj, path);
        return json_is_integer(v) ? (int) json_integer_value(v) : dflt;
}

/* K8S: fullyLabeledReplicas: every label of the template is on the pod with its value. */
static bool fully_labeled(const json_t *rs, const json_t *pod)
{
        const json_t *want = json_path(rs, "spec.template.metadata.labels");
        const json_t *have = json_path(pod, "metadata.labels");
        const char *k;
        json_t *v;

        json_object_foreach((json_t *) want, k, v) {
                const json_t *h = json_object_get(have, k);
                if (!json_is_string(h) || !json_equal(h, v))
                        return false;
        }
        return true;
}

static time_t ready_since(const json_t *pod)
{
        size_t i;
        json_t *c;
        time_t t = 0;

        json_array_foreach(json_path(pod, "status.conditions"), i, c) {
                const char *type = json_string_value(json_object_get(c, "type"));
                const char *when = json_string_value(json_object_get(c, "lastTransitionTime"));
                if (type && streq(type, "Ready") && when)
                        (void) time_parse_rfc3339(when, &t);
        }
        return t;
}

json_t *replicaset_status(const json_t *rs, const json_t *pods, time_t now, long *ret_recheck_s)
{
        int min_ready = int_at(rs, "spec.minReadySeconds", 0);
        int labeled = 0, ready = 0, available = 0;
        long recheck = 0;
        json_t *status, *pod;
        size_t i;

        json_array_foreach(pods, i, pod) {
                if (fully_labeled(rs, pod))
                        labeled++;
                if (!workload_pod_ready(pod))
                        continue;
                ready++;
                if (workload_pod_available(pod, min_ready, now)) {
                        available++;
                } else {
                        long left = (long) (ready_since(pod) + min_ready - now);
                        if (left < 1)
                                left = 1;
                        if (!recheck || left < recheck)
                                recheck = left;
                }
        }
        /* K8S: calculateStatus; conditions (ReplicaFailure) are kept as they are */
        status = json_pack("{s:i, s:i, s:i, s:i, s:I}", "replicas", (int) json_array_size(pods),
                           "fullyLabeledReplicas", labeled, "readyReplicas", ready,
                           "availableReplicas", available, "observedGeneration",
                           json_integer_value(json_path(rs, "metadata.generation")));
        if (json_path(rs, "status.conditions"))
                json_object_set(status, "conditions", json_path(rs, "status.conditions"));
        *ret_recheck_s = recheck;
        return status;
}

static int phase_rank(const json_t *pod)
{
        const char *phase = json_path_string(pod, "status.phase") ?: "";

        /* K8S: podPhaseToOrdinal: Pending 0, Unknown 1, Running 2 */
        if (streq(phase, "Pending"))
                return 0;
        if (streq(phase, "Running"))
                return 2;
        return 1;
}

static long deletion_cost(const json_t *pod)
{
        const char *c = json_string_value(
                json_object_get(json_path(pod, "metadata.annotations"), DELETION_COST));
        return c ? strtol(c, NULL, 10) : 0;
}

static int restarts(const json_t *pod)
{
        size_t i;
        json_t *cs;
        int n = 0;

        json_array_foreach(json_path(pod, "status.containerStatuses"), i, cs) {
                n += (int) json_integer_value(json_object_get(cs, "restartCount"));
        }
        return n;
}

static time_t created(const json_t *pod)
{
        time_t t = 0;
        const char *s = json_path_string(pod, "metadata.creationTimestamp");

        if (s)
                (void) time_parse_rfc3339(s, &t);
        return t;
}

/* K8S: ActivePods.Less: -1 when a should be deleted before b. */
static int cmp_for_deletion(const void *pa, const void *pb)
{
        const json_t *a = *(json_t *const *) pa, *b = *(json_t *const *) pb;
        bool sa = json_path_string(a, "spec.nodeName") != NULL,
             sb = json_path_string(b, "spec.nodeName") != NULL;
        bool ra = workload_pod_ready(a), rb = workload_pod_ready(b);
        long ca = deletion_cost(a), cb = deletion_cost(b);

        if (sa != sb)
                return sa ? 1 : -1;
        if (phase_rank(a) != phase_rank(b))
                return phase_rank(a) < phase_rank(b) ? -1 : 1;
        if (ra != rb)
                return ra ? 1 : -1;
        if (ca != cb)
                return ca < cb ? -1 : 1;
        if (ra && ready_since(a) != ready_since(b))
                return ready_since(a) > ready_since(b) ? -1 : 1;
        if (restarts(a) != restarts(b))
                return restarts(a) > restarts(b) ? -1 : 1;
        if (created(a) != created(b))
                return created(a) > created(b) ? -1 : 1;
        return 0;
}

void replicaset_rank_for_deletion(json_t *pods)
{
        json_array_sort(pods, cmp_for_deletion);
}

/* ---- the pass ---- */

static char *rs_path(const json_t *rs, const char *suffix)
{
        return xasprintf("/apis/apps/v1/namespaces/%s/replicasets/%s%s",
                         json_path_string_or_empty(rs, "metadata.namespace"),
                         json_path_string_or_empty(rs, "metadata.name"), suffix);
}

static char *pod_path(const char *ns, const char *name)
{
        return name ? xasprintf("/api/v1/namespaces/%s/pods/%s", ns, name)
                    : xasprintf("/api/v1/namespaces/%s/pods", ns);
}

static json_t *owner_ref(const json_t *rs)
{
        return controller_ref_new("apps/v1", "ReplicaSet", rs);
}

/* K8S: ClaimPods (PodControllerRefManager) over the active pods: the ones rs owns after
 * adopting orphans its selector matches and releasing owned pods it no longer matches. */
static json_t *claim_pods(struct replicaset_controller *x, const json_t *rs, const json_t *pods)
{
        const struct controller_ref_manager m = { .loop = &x->loop,
                                                  .col = COL_PODS,
                                                  .owner = rs,
                                                  .api_version = "apps/v1",
                                                  .kind = "ReplicaSet",
                                                  .group_path = "/api/v1",
                                                  .plural = "pods",
                                                  .claimable = replicaset_pod_active };

        return controller_ref_claim(&m, pods);
}

/* K8S: manageReplicas: create or delete the difference (at most BURST_REPLICAS). */
static void manage_replicas(struct replicaset_controller *x, const char *key, const json_t *rs,
                            json_t *owned, time_t now)
{
        const char *ns = json_path_string_or_empty(rs, "metadata.namespace");
        const char *name = json_path_string_or_empty(rs, "metadata.name");
        int want = int_at(rs, "spec.replicas", 1);
        int diff = (int) json_array_size(owned) - want;

        if (diff == 0)
                return;
        if (diff < 0) {
                int n = -diff > BURST_REPLICAS ? BURST_REPLICAS : -diff;
                const json_t *tmpl = json_path(rs, "spec.template");
                cleanup_free char *path = pod_path(ns, NULL);

                for (int i = 0; i < n; i++) {
                        cleanup_json json_t *pod = NULL, *answer = NULL;
                        json_t *meta;
                        cleanup_free char *msg = NULL, *pod_key = NULL;

                        /* K8S: GetPodFromTemplate: the template's labels, annotations and
                         * finalizers, generateName "<rs>-", the controller reference */
                        meta = json_pack("{s:s+, s:s, s:[o]}", "generateName", name, "-",
                                         "namespace", ns, "ownerReferences", owner_ref(rs));
                        if (json_path(tmpl, "metadata.labels"))
                                json_object_set(meta, "labels", json_path(tmpl, "metadata.labels"));
                        if (json_path(tmpl, "metadata.annotations"))
                                json_object_set(meta, "annotations",
                                                json_path(tmpl, "metadata.annotations"));
                        if (json_path(tmpl, "metadata.finalizers"))
                                json_object_set(meta, "finalizers",
                                                json_path(tmpl, "metadata.finalizers"));
                        pod = json_pack("{s:s, s:s, s:o, s:O}", "apiVersion", "v1", "kind", "Pod",
                                        "metadata", meta, "spec",
                                        json_path(tmpl, "spec") ?: json_object());
                        if (controller_loop_request(&x->loop, "POST", path, "application/json", pod,
                                                    &answer) < 0 ||
                            !answer) {
                                /* K8S: FailedCreate, and the slow start stops at the first
                                 * failure */
                                msg = xasprintf("Error creating: %s",
                                                answer ? json_string_value(
                                                                 json_object_get(answer, "message"))
                                                                 ?: ""
                                                       : "the request failed");
                                (void) api_client_event(x->loop.client, rs, "Warning",
                                                        "FailedCreate", msg, EVENT_COMPONENT, NULL,
                                                        NULL);
                                break;
                        }
                        pod_key = informer_key(answer);
                        expectations_expect_add(x->expect, key, pod_key, now);
                        msg = xasprintf("Created pod: %s",
                                        json_path_string_or_empty(answer, "metadata.name"));
                        (void) api_client_event(x->loop.client, rs, "Normal", "SuccessfulCreate",
                                                msg, EVENT_COMPONENT, NULL, NULL);
                }
                return;
        }
        replicaset_rank_for_deletion(owned);
        for (int i = 0; i < diff && i < BURST_REPLICAS; i++) {
                const json_t *pod = json_array_get(owned, (size_t) i);
                const char *pn = json_path_string_or_empty(pod, "metadata.name");
                cleanup_free char *path = pod_path(ns, pn);
                cleanup_free char *msg = NULL;
                int r = controller_loop_request(&x->loop, "DELETE", path, NULL, NULL, NULL);

                if (r < 0 && r != -ENOENT)
                        continue;
                {
                        cleanup_free char *pod_key = informer_key(pod);

                        expectations_expect_del(x->expect, key, pod_key, now);
                }
                msg = xasprintf("Deleted pod: %s", pn);
                (void) api_client_event(x->loop.client, rs, "Normal", "SuccessfulDelete", msg,
                                        EVENT_COMPONENT, NULL, NULL);
        }
}

/* Issue 12: an Event ResizedPods on the ReplicaSet, and on the Deployment controlling it, for
 * each pod whose running resources differ from the template after an in-place resize, once per
 * difference: `kubectl describe` of either lists it under Events (describe is kubectl's own;
 * events of the object are what the server can add to it). */
static void report_resized(struct replicaset_controller *x, const json_t *rs, const json_t *owned)
{
        const json_t *ref = owner_controller_of(rs);
        size_t i;
        json_t *pod;

        json_array_foreach(owned, i, pod) {
                cleanup_free char *msg =
                        resize_report_pod(x->resized, json_path(rs, "spec.template"), pod);

                if (!msg)
                        continue;
                (void) api_client_event(x->loop.client, rs, "Normal", "ResizedPods", msg,
                                        EVENT_COMPONENT, NULL, NULL);
                if (ref &&
                    streq(json_string_value(json_object_get(ref, "kind")) ?: "", "Deployment")) {
                        cleanup_json json_t *owner = json_pack(
                                "{s:s, s:s, s:{s:s, s:s, s:s}}", "apiVersion", "apps/v1", "kind",
                                "Deployment", "metadata", "name",
                                json_string_value(json_object_get(ref, "name")) ?: "", "namespace",
                                json_path_string_or_empty(rs, "metadata.namespace"), "uid",
                                json_string_value(json_object_get(ref, "uid")) ?: "");
                        (void) api_client_event(x->loop.client, owner, "Normal", "ResizedPods", msg,
                                                "deployment-controller", NULL, NULL);
                }
        }
}

static void sync_one(struct replicaset_controller *x, const char *key, const json_t *rs,
                     const json_t *pods, time_t now)
{
        cleanup_json json_t *owned = claim_pods(x, rs, pods);
        cleanup_json json_t *status = NULL, *next = NULL, *answer = NULL;
        long recheck = 0;

        if (expectations_met(x->expect, key, pods, now) &&
            !json_path(rs, "metadata.deletionTimestamp"))
                manage_replicas(x, key, rs, owned, now);
        report_resized(x, rs, owned);
        status = replicaset_status(rs, owned, now, &recheck);
        controller_loop_pass_within(&x->loop, recheck * 1000);
        if (json_equal(status, json_object_get(rs, "status")))
                return;
        next = json_deep_copy(rs);
        json_object_set(next, "status", status);
        {
                cleanup_free char *path = rs_path(rs, "/status");
                if (controller_loop_request(&x->loop, "PUT", path, "application/json", next,
                                            &answer) == 0 &&
                    answer)
                        informer_store(x->loop.watch, COL_RS, answer);
        }
}

static void replicaset_pass(void *ctx)
{
        struct replicaset_controller *x = ctx;
        cleanup_json json_t *sets = informer_snapshot(x->loop.watch, COL_RS);
        cleanup_json json_t *pods = informer_snapshot(x->loop.watch, COL_PODS);
        time_t now = time(NULL);
        const char *key;
        json_t *rs;

        json_object_foreach(sets, key, rs) {
                sync_one(x, key, rs, pods, now);
        }
        /* resize reports of pods that are gone */
        resize_report_forget_gone(x->resized, pods);
        /* expectations of ReplicaSets that are gone */
        expectations_forget_gone(x->expect, sets);
}

static void replicaset_controller_release(void *ctx)
{
        struct replicaset_controller *x = ctx;

        json_decref(x->expect);
        json_decref(x->resized);
        free(x);
}

int replicaset_controller_start(const struct api_client_options *o,
                                struct replicaset_controller **ret, struct error **reterr)
{
        static const char *const paths[] = {
                [COL_RS] = "/apis/apps/v1/replicasets", [COL_PODS] = "/api/v1/pods", NULL
        };
        static const informer_relevant_fn relevant[ARRAY_SIZE(paths) - 1] = {
                [COL_PODS] = relevance_pod_workload
        };
        const struct controller_loop_def def = { .name = "replicaset",
                                                 .paths = paths,
                                                 .relevant = relevant,
                                                 .period_ms = PASS_PERIOD_MS,
                                                 .pass = replicaset_pass,
                                                 .release = replicaset_controller_release };
        struct replicaset_controller *x = xcalloc(1, sizeof(*x));
        int r;

        x->expect = json_object();
        x->resized = json_object();
        r = controller_loop_start(o, &def, x, &x->loop, reterr);
        if (r < 0) {
                replicaset_controller_release(x);
                return r;
        }
        *ret = x;
        return 0;
}

struct replicaset_controller *replicaset_controller_stop(struct replicaset_controller *x)
{
        if (x)
                controller_loop_stop(&x->loop);
        return NULL;
}
