/* statefulset.c: the StatefulSet controller (statefulset.h): per set, claim its pods and
 * ControllerRevisions, record the template in a revision, then walk the ordinals as
 * defaultStatefulSetControl's updateStatefulSet does (replicas in order, then the condemned from
 * the highest, then the rolling update), and write the status. Level-based: pod and claim names
 * are fixed, so a create or delete the informer has not shown yet is repeated harmlessly (409,
 * or a second graceful delete). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api/owner.h"
#include "api/selector.h"
#include "api/statefulset.h"
#include "api/workload.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/timeutil.h"
#include "client/event.h"
#include "controllers/controller-loop.h"
#include "controllers/controller-ref.h"
#include "controllers/history.h"
#include "controllers/relevance.h"
#include "controllers/resize-report.h"
#include "controllers/statefulset.h"

#define PASS_PERIOD_MS  30000
#define EVENT_COMPONENT "statefulset-controller"
/* K8S: history.ControllerRevisionHashLabel */
#define REVISION_HASH_LABEL "controller.kubernetes.io/hash"
#define STRATEGIC_MERGE     "application/strategic-merge-patch+json"
#define MERGE_PATCH         "application/merge-patch+json"

enum { COL_STS, COL_PODS, COL_CLAIMS, COL_REVISIONS };

struct statefulset_controller {
        struct controller_loop loop;
        /* pod uid -> the resize difference last reported for it (resize-report.h) */
        json_t *resized;
};

/* One set's pass: what it read and what it decided. */
struct sync {
        struct statefulset_controller *x;
        const json_t *sts;
        const json_t *claims; /* the informer's claims, all namespaces */
        const char *ns, *name;
        time_t now;
        int min_ready;
};

static void event(struct sync *s, const char *type, const char *reason, const char *msg)
{
        (void) api_client_event(s->x->loop.client, s->sts, type, reason, msg, EVENT_COMPONENT, NULL,
                                NULL);
}

static char *sts_path(const struct sync *s, const char *suffix)
{
        return xasprintf("/apis/apps/v1/namespaces/%s/statefulsets/%s%s", s->ns, s->name, suffix);
}

static char *ns_path(const struct sync *s, const char *group_path, const char *plural,
                     const char *name)
{
        return name ? xasprintf("%s/namespaces/%s/%s/%s", group_path, s->ns, plural, name)
                    : xasprintf("%s/namespaces/%s/%s", group_path, s->ns, plural);
}

static json_t *owner_ref(const json_t *sts)
{
        return controller_ref_new("apps/v1", "StatefulSet", sts);
}

/* ---- pod predicates (K8S: stateful_set_utils.go) ---- */

static const char *phase(const json_t *pod)
{
        return json_path_string_or_empty(pod, "status.phase");
}

static bool terminating(const json_t *pod)
{
        return json_path(pod, "metadata.deletionTimestamp") != NULL;
}

static bool running_and_ready(const json_t *pod)
{
        return streq(phase(pod), "Running") && workload_pod_ready(pod);
}

static bool healthy(const json_t *pod)
{
        return running_and_ready(pod) && !terminating(pod);
}

static const char *pod_revision(const json_t *pod)
{
        return json_string_value(
                       json_object_get(json_path(pod, "metadata.labels"), STS_REVISION_LABEL))
                       ?: "";
}

/* ---- claiming (K8S: PodControllerRefManager.ClaimPods, ClaimControllerRevisions) ---- */

/* A pod is the set's when the selector matches it and its name is one of the set's ordinals. */
static bool pod_matches(const json_t *pod, void *ctx)
{
        const struct sync *s = ctx;

        return label_selector_object_matches(json_path(s->sts, "spec.selector"),
                                             json_path(pod, "metadata.labels")) == 1 &&
               statefulset_pod_ordinal(s->sts, pod) >= 0;
}

/* The objects of the set's namespace in col it controls after adopting orphans that match
 * (by name too, for pods) and releasing owned ones that no longer match: a new array. */
static json_t *claim_objects(struct sync *s, int col, const json_t *objs, const char *group_path,
                             const char *plural, bool pods)
{
        const struct controller_ref_manager m = { .loop = &s->x->loop,
                                                  .col = (size_t) col,
                                                  .owner = s->sts,
                                                  .api_version = "apps/v1",
                                                  .kind = "StatefulSet",
                                                  .group_path = group_path,
                                                  .plural = plural,
                                                  .match = pods ? pod_matches : NULL,
                                                  .ctx = s };

        return controller_ref_claim(&m, objs);
}

/* ---- revisions (K8S: getStatefulSetRevisions) ---- */

static json_int_t collision_count(const json_t *sts)
{
        return json_integer_value(json_path(sts, "status.collisionCount"));
}

/* The update revision for the set's template among revs (sorted): an equal revision, made the
 * newest if it is not, or a new one. NULL with *ret_collision raised when the name is taken by a
 * revision of other data (the status records it and the next pass retries). A new reference. */
static json_t *update_revision(struct sync *s, const json_t *revs, json_int_t *ret_collision)
{
        cleanup_json json_t *data = statefulset_revision_data(s->sts);
        json_int_t next = 1, collision = *ret_collision;
        int32_t cc = (int32_t) collision;
        const json_t *equal = NULL;
        cleanup_free char *name = NULL, *path = NULL;
        cleanup_json json_t *cr = NULL, *answer = NULL;
        json_t *rev;
        size_t i;
        int r;

        json_array_foreach(revs, i, rev) {
                if (json_equal(json_object_get(rev, "data"), data))
                        equal = rev;
        }
        if (json_array_size(revs))
                next = json_integer_value(json_object_get(
                               json_array_get(revs, json_array_size(revs) - 1), "revision")) +
                       1;
        if (equal) {
                cleanup_json json_t *patch = NULL;

                /* K8S: an equal revision that is not the newest becomes the newest (a rollback) */
                if (equal == json_array_get(revs, json_array_size(revs) - 1))
                        return json_incref((json_t *) equal);
                patch = json_pack("{s:I}", "revision", next);
                path = ns_path(s, "/apis/apps/v1", "controllerrevisions",
                               json_path_string_or_empty(equal, "metadata.name"));
                if (controller_loop_request(&s->x->loop, "PATCH", path, MERGE_PATCH, patch,
                                            &answer) < 0 ||
                    !answer)
                        return NULL;
                informer_store(s->x->loop.watch, COL_REVISIONS, answer);
                return TAKE_PTR(answer);
        }
        /* K8S: history.NewControllerRevision: the template's labels and the hash label, the
         * set's annotations (kubectl's change-cause among them), a controller reference */
        name = statefulset_revision_name(s->name, data, &cc);
        /* the labels are the revision's own: the set's object is shared (informer.h) */
        cr = json_pack("{s:s, s:s, s:{s:s, s:s, s:o, s:[o]}, s:O, s:I}", "apiVersion", "apps/v1",
                       "kind", "ControllerRevision", "metadata", "name", name, "namespace", s->ns,
                       "labels",
                       json_path(s->sts, "spec.template.metadata.labels")
                               ? json_deep_copy(json_path(s->sts, "spec.template.metadata.labels"))
                               : json_object(),
                       "ownerReferences", owner_ref(s->sts), "data", data, "revision", next);
        json_object_set_new(json_object_get(json_object_get(cr, "metadata"), "labels"),
                            REVISION_HASH_LABEL, json_string(strrchr(name, '-') + 1));
        if (json_path(s->sts, "metadata.annotations"))
                json_object_set(json_object_get(cr, "metadata"), "annotations",
                                json_path(s->sts, "metadata.annotations"));
        path = ns_path(s, "/apis/apps/v1", "controllerrevisions", NULL);
        r = controller_loop_request(&s->x->loop, "POST", path, "application/json", cr, &answer);
        if (r == 0 && answer) {
                informer_store(s->x->loop.watch, COL_REVISIONS, answer);
                return TAKE_PTR(answer);
        }
        if (r == -EEXIST) {
                cleanup_json json_t *existing = NULL;
                cleanup_free char *get = ns_path(s, "/apis/apps/v1", "controllerrevisions", name);

                if (api_client_get_json(s->x->loop.client, get, &existing, NULL) == 0 &&
                    json_equal(json_object_get(existing, "data"), data) &&
                    streq(json_path_string_or_empty(owner_controller_of(existing), "uid"),
                          json_path_string_or_empty(s->sts, "metadata.uid")))
                        return TAKE_PTR(existing);
                /* K8S: a hash collision: collisionCount++ and try again */
                *ret_collision = collision + 1;
        }
        return NULL;
}

/* What the set's history pruning reads: the pods' revisions and the two the status names. */
struct prune {
        struct sync *s;
        const json_t *pods;
        const char *current, *update;
};

static bool revision_live(const json_t *rev, void *ctx)
{
        const struct prune *p = ctx;
        const char *n = json_path_string_or_empty(rev, "metadata.name");
        json_t *pod;
        size_t j;

        if (streq(n, p->current) || streq(n, p->update))
                return true;
        json_array_foreach(p->pods, j, pod) {
                if (streq(pod_revision(pod), n))
                        return true;
        }
        return false;
}

static bool revision_delete(const json_t *rev, void *ctx)
{
        const struct prune *p = ctx;
        cleanup_free char *path = ns_path(p->s, "/apis/apps/v1", "controllerrevisions",
                                          json_path_string_or_empty(rev, "metadata.name"));

        (void) controller_loop_request(&p->s->x->loop, "DELETE", path, NULL, NULL, NULL);
        return true;
}

/* K8S: truncateHistory: revisions no pod, nor the current or update revision, uses, beyond
 * revisionHistoryLimit, oldest first (revs is sorted). The limit counts the revisions not in use
 * only. */
static void truncate_history(struct sync *s, const json_t *revs, const json_t *pods,
                             const char *current, const char *update)
{
        const json_t *l = json_path(s->sts, "spec.revisionHistoryLimit");
        long limit = json_is_integer(l) ? (long) json_integer_value(l) : 10, unused = 0;
        struct prune p = { .s = s, .pods = pods, .current = current, .update = update };
        const struct history_pruner pruner = { .in_use = revision_live,
                                               .delete = revision_delete,
                                               .ctx = &p };
        json_t *rev;
        size_t i;

        json_array_foreach(revs, i, rev) {
                unused += !revision_live(rev, &p);
        }
        (void) history_prune(revs, unused - limit, &pruner);
}

/* ---- claims and pods (K8S: StatefulPodControl) ---- */

static const json_t *claim_get(const struct sync *s, const char *name)
{
        cleanup_free char *key = xasprintf("%s/%s", s->ns, name);

        return json_object_get(s->claims, key);
}

/* K8S: createPersistentVolumeClaims: each missing claim of pod's ordinal. 0, or -EBUSY while
 * one is being deleted (a pod cannot start on it), -errno when a create fails. */
static int create_claims(struct sync *s, const json_t *pod, int ordinal)
{
        cleanup_json json_t *claims = statefulset_claims(s->sts, ordinal);
        const char *tn;
        json_t *claim;

        json_object_foreach(claims, tn, claim) {
                const char *cn = json_path_string_or_empty(claim, "metadata.name");
                const json_t *have = claim_get(s, cn);
                cleanup_free char *path = NULL, *msg = NULL;
                cleanup_json json_t *answer = NULL;
                int r;

                if (have) {
                        if (terminating(have)) {
                                msg = xasprintf("create Claim %s for Pod %s in StatefulSet %s "
                                                "failed error: pvc %s is being deleted",
                                                cn, json_path_string_or_empty(pod, "metadata.name"),
                                                s->name, cn);
                                event(s, "Warning", "FailedCreate", msg);
                                return -EBUSY;
                        }
                        continue;
                }
                json_object_set_new(json_object_get(claim, "metadata"), "ownerReferences",
                                    statefulset_claim_owner_refs(claim, s->sts, pod));
                path = ns_path(s, "/api/v1", "persistentvolumeclaims", NULL);
                r = controller_loop_request(&s->x->loop, "POST", path, "application/json", claim,
                                            &answer);
                if (r == -EEXIST)
                        continue;
                if (r < 0) {
                        msg = xasprintf("create Claim %s for Pod %s in StatefulSet %s failed "
                                        "error: %s",
                                        cn, json_path_string_or_empty(pod, "metadata.name"),
                                        s->name,
                                        json_string_value(json_object_get(answer, "message"))
                                                ?: "the request failed");
                        event(s, "Warning", "FailedCreate", msg);
                        return r;
                }
                informer_store(s->x->loop.watch, COL_CLAIMS, answer);
                msg = xasprintf("create Claim %s Pod %s in StatefulSet %s success", cn,
                                json_path_string_or_empty(pod, "metadata.name"), s->name);
                event(s, "Normal", "SuccessfulCreate", msg);
        }
        return 0;
}

/* K8S: UpdatePodClaimForRetentionPolicy: each existing claim of pod gets the ownerReferences
 * the retention policy asks for. */
static void update_claim_owners(struct sync *s, const json_t *pod, int ordinal)
{
        cleanup_json json_t *claims = statefulset_claims(s->sts, ordinal);
        const char *tn;
        json_t *claim;

        if (!json_path_string(pod, "metadata.uid"))
                return;
        json_object_foreach(claims, tn, claim) {
                const char *cn = json_path_string_or_empty(claim, "metadata.name");
                const json_t *have = claim_get(s, cn);
                cleanup_json json_t *want = NULL, *patch = NULL, *answer = NULL;
                cleanup_free char *path = NULL;
                const json_t *cur;

                if (!have || terminating(have))
                        continue;
                want = statefulset_claim_owner_refs(have, s->sts, pod);
                cur = json_path(have, "metadata.ownerReferences");
                if (cur ? json_equal(want, cur) : json_array_size(want) == 0)
                        continue;
                patch = json_pack("{s:{s:O, s:s}}", "metadata", "ownerReferences", want,
                                  "resourceVersion",
                                  json_path_string_or_empty(have, "metadata.resourceVersion"));
                path = ns_path(s, "/api/v1", "persistentvolumeclaims", cn);
                if (controller_loop_request(&s->x->loop, "PATCH", path, MERGE_PATCH, patch,
                                            &answer) == 0 &&
                    answer)
                        informer_store(s->x->loop.watch, COL_CLAIMS, answer);
        }
}

/* Creates the pod of ordinal from tmpl at revision, its claims first. */
static int create_pod(struct sync *s, int ordinal, const json_t *tmpl, const char *revision)
{
        cleanup_json json_t *pod = statefulset_new_pod(s->sts, tmpl, ordinal, revision);
        cleanup_json json_t *answer = NULL;
        cleanup_free char *path = ns_path(s, "/api/v1", "pods", NULL);
        cleanup_free char *msg = NULL;
        const char *pn = json_path_string_or_empty(pod, "metadata.name");
        int r = create_claims(s, pod, ordinal);

        if (r < 0)
                return r;
        r = controller_loop_request(&s->x->loop, "POST", path, "application/json", pod, &answer);
        if (r == -EEXIST)
                return 0;
        if (r < 0 || !answer) {
                msg = xasprintf("create Pod %s in StatefulSet %s failed error: %s", pn, s->name,
                                json_string_value(json_object_get(answer, "message"))
                                        ?: "the request failed");
                event(s, "Warning", "FailedCreate", msg);
                return r < 0 ? r : -EIO;
        }
        informer_store(s->x->loop.watch, COL_PODS, answer);
        msg = xasprintf("create Pod %s in StatefulSet %s successful", pn, s->name);
        event(s, "Normal", "SuccessfulCreate", msg);
        return 0;
}

static void delete_pod(struct sync *s, const json_t *pod)
{
        const char *pn = json_path_string_or_empty(pod, "metadata.name");
        cleanup_free char *path = ns_path(s, "/api/v1", "pods", pn);
        cleanup_free char *msg = NULL;
        /* K8S: the uid precondition, so a newer pod of the same name is never the one deleted */
        cleanup_json json_t *opts =
                json_pack("{s:s, s:s, s:{s:s}}", "kind", "DeleteOptions", "apiVersion", "v1",
                          "preconditions", "uid", json_path_string_or_empty(pod, "metadata.uid"));
        int r = controller_loop_request(&s->x->loop, "DELETE", path, "application/json", opts,
                                        NULL);

        if (r < 0 && r != -ENOENT) {
                msg = xasprintf("delete Pod %s in StatefulSet %s failed", pn, s->name);
                event(s, "Warning", "FailedDelete", msg);
                return;
        }
        msg = xasprintf("delete Pod %s in StatefulSet %s successful", pn, s->name);
        event(s, "Normal", "SuccessfulDelete", msg);
}

/* Whether pod is available (Ready for minReadySeconds); when it is Ready but not yet available,
 * asks for a pass when it will be. */
static bool available(struct sync *s, const json_t *pod)
{
        if (workload_pod_available(pod, s->min_ready, s->now))
                return true;
        if (running_and_ready(pod))
                controller_loop_pass_within(&s->x->loop, 1000);
        return false;
}

/* ---- the walk (K8S: updateStatefulSet) ---- */

struct walk {
        json_t **replicas; /* by ordinal - start, NULL where no pod is */
        json_t *condemned; /* out-of-range members, by ordinal ascending */
        int n, start;
        bool monotonic;
        const json_t *current_tmpl, *update_tmpl;
        const char *current_rev, *update_rev;
        long partition;    /* the rolling update's lowest index; -1: OnDelete */
        long create_below; /* indexes below this are made at the current revision */
};

static int cmp_ordinal(const void *pa, const void *pb)
{
        const json_t *a = *(json_t *const *) pa, *b = *(json_t *const *) pb;
        int oa = (int) json_integer_value(json_object_get(a, "ordinal"));
        int ob = (int) json_integer_value(json_object_get(b, "ordinal"));

        return oa < ob ? -1 : oa > ob;
}

/* K8S: newVersionedStatefulSetPod: ordinals below the partition keep the current revision. */
static int create_versioned(struct sync *s, const struct walk *w, int ordinal)
{
        if (ordinal < w->start + w->create_below)
                return create_pod(s, ordinal, w->current_tmpl, w->current_rev);
        return create_pod(s, ordinal, w->update_tmpl, w->update_rev);
}

static void walk_pods(struct sync *s, struct walk *w)
{
        const json_t *first_unhealthy = NULL;
        size_t i;
        json_t *e;

        /* K8S: the first unhealthy pod, replicas first, that monotonic mode waits on */
        for (int k = 0; k < w->n && !first_unhealthy; k++)
                if (w->replicas[k] && !healthy(w->replicas[k]))
                        first_unhealthy = w->replicas[k];
        json_array_foreach(w->condemned, i, e) {
                if (!first_unhealthy && !healthy(json_object_get(e, "pod")))
                        first_unhealthy = json_object_get(e, "pod");
        }
        /* K8S: processReplica, in ordinal order */
        for (int k = 0; k < w->n; k++) {
                json_t *pod = w->replicas[k];
                int ordinal = w->start + k;

                if (pod && (streq(phase(pod), "Failed") || streq(phase(pod), "Succeeded")) &&
                    !terminating(pod)) {
                        /* K8S: a failed or succeeded pod is deleted and made again */
                        delete_pod(s, pod);
                        if (w->monotonic)
                                return;
                        continue;
                }
                if (!pod) {
                        if (create_versioned(s, w, ordinal) < 0 || w->monotonic)
                                return;
                        continue;
                }
                if (!statefulset_identity_matches(s->sts, pod)) {
                        cleanup_json json_t *patch = NULL;
                        cleanup_free char *path =
                                ns_path(s, "/api/v1", "pods",
                                        json_path_string_or_empty(pod, "metadata.name"));

                        /* K8S: updateIdentity: the pod-name and pod-index labels */
                        patch = json_pack("{s:{s:{s:O, s:o}}}", "metadata", "labels",
                                          STS_POD_NAME_LABEL, json_path(pod, "metadata.name"),
                                          STS_POD_INDEX_LABEL, json_sprintf("%d", ordinal));
                        (void) controller_loop_request(&s->x->loop, "PATCH", path, STRATEGIC_MERGE,
                                                       patch, NULL);
                }
                if (!statefulset_storage_matches(s->sts, pod))
                        (void) create_claims(s, pod, ordinal);
                update_claim_owners(s, pod, ordinal);
                if (terminating(pod) && w->monotonic)
                        return;
                if (!running_and_ready(pod) && w->monotonic)
                        return;
                if (!available(s, pod) && w->monotonic)
                        return;
        }
        /* K8S: processCondemned, the highest ordinal first */
        for (i = json_array_size(w->condemned); i-- > 0;) {
                json_t *pod = json_object_get(json_array_get(w->condemned, i), "pod");
                int ordinal = (int) json_integer_value(
                        json_object_get(json_array_get(w->condemned, i), "ordinal"));

                if (terminating(pod)) {
                        if (w->monotonic)
                                return;
                        continue;
                }
                if (w->monotonic && !running_and_ready(pod) && pod != first_unhealthy)
                        return;
                /* K8S: WhenScaled Delete: the claims pass to the pod before it goes */
                update_claim_owners(s, pod, ordinal);
                delete_pod(s, pod);
                if (w->monotonic)
                        return;
        }
        if (w->partition < 0)
                return; /* OnDelete */
        /* K8S: the rolling update: the highest ordinal not at the update revision is deleted
         * (made again by a later pass at that revision), each waited for until healthy */
        for (int k = w->n - 1; k >= w->partition; k--) {
                json_t *pod = w->replicas[k];

                if (pod && !streq(pod_revision(pod), w->update_rev) && !terminating(pod)) {
                        delete_pod(s, pod);
                        return;
                }
                if (!pod || !healthy(pod))
                        return;
        }
}

/* ---- status (K8S: computeReplicaStatus, completeRollingUpdate) ---- */

static json_t *compute_status(struct sync *s, const json_t *pods, const char *current_rev,
                              const char *update_rev, json_int_t collision)
{
        int replicas = 0, ready = 0, avail = 0, current = 0, updated = 0;
        const char *type = json_path_string_or_empty(s->sts, "spec.updateStrategy.type");
        json_t *st, *pod;
        size_t i;

        json_array_foreach(pods, i, pod) {
                bool created = phase(pod)[0] != '\0';

                if (created)
                        replicas++;
                if (running_and_ready(pod)) {
                        ready++;
                        if (workload_pod_available(pod, s->min_ready, s->now))
                                avail++;
                }
                if (created && !terminating(pod)) {
                        if (streq(pod_revision(pod), current_rev))
                                current++;
                        if (streq(pod_revision(pod), update_rev))
                                updated++;
                }
        }
        if (streq(type, "RollingUpdate") && updated == replicas && ready == replicas) {
                current = updated;
                current_rev = update_rev;
        }
        st = json_pack("{s:I, s:i}", "observedGeneration",
                       json_integer_value(json_path(s->sts, "metadata.generation")), "replicas",
                       replicas);
        /* omitempty, as the Go encoder leaves zero counts out */
        if (ready)
                json_object_set_new(st, "readyReplicas", json_integer(ready));
        if (current)
                json_object_set_new(st, "currentReplicas", json_integer(current));
        if (updated)
                json_object_set_new(st, "updatedReplicas", json_integer(updated));
        if (current_rev[0])
                json_object_set_new(st, "currentRevision", json_string(current_rev));
        if (update_rev[0])
                json_object_set_new(st, "updateRevision", json_string(update_rev));
        json_object_set_new(st, "collisionCount", json_integer(collision));
        if (avail)
                json_object_set_new(st, "availableReplicas", json_integer(avail));
        if (json_path(s->sts, "status.conditions"))
                json_object_set(st, "conditions", json_path(s->sts, "status.conditions"));
        return st;
}

static void write_status(struct sync *s, json_t *status)
{
        cleanup_json json_t *next = NULL, *answer = NULL;
        cleanup_free char *path = NULL;

        if (json_equal(status, json_object_get(s->sts, "status")))
                return;
        next = json_deep_copy(s->sts);
        json_object_set(next, "status", status);
        path = sts_path(s, "/status");
        if (controller_loop_request(&s->x->loop, "PUT", path, "application/json", next, &answer) ==
                    0 &&
            answer)
                informer_store(s->x->loop.watch, COL_STS, answer);
}

/* Issue 12: an Event ResizedPods on the set for each pod whose running resources differ, after
 * an in-place resize, from the template of the revision it was made at (the set's template when
 * that revision is gone), once per difference: `kubectl describe sts` lists it under Events. A
 * pod of an older revision in a rolling update is not reported for the template change. */
static void report_resized(struct sync *s, const json_t *pods, const json_t *revs)
{
        size_t i, j;
        json_t *pod, *rev;

        json_array_foreach(pods, i, pod) {
                cleanup_json json_t *tmpl = NULL;
                cleanup_free char *msg = NULL;

                json_array_foreach(revs, j, rev) {
                        if (!tmpl && streq(json_path_string_or_empty(rev, "metadata.name"),
                                           pod_revision(pod)))
                                tmpl = statefulset_revision_template(json_object_get(rev, "data"));
                }
                msg = resize_report_pod(s->x->resized,
                                        tmpl ? tmpl : json_path(s->sts, "spec.template"), pod);
                if (msg)
                        event(s, "Normal", "ResizedPods", msg);
        }
}

static void sync_one(struct statefulset_controller *x, const json_t *sts, const json_t *all_pods,
                     const json_t *claims, const json_t *all_revs, time_t now)
{
        struct sync s = {
                .x = x,
                .sts = sts,
                .claims = claims,
                .ns = json_path_string_or_empty(sts, "metadata.namespace"),
                .name = json_path_string_or_empty(sts, "metadata.name"),
                .now = now,
                .min_ready = (int) json_integer_value(json_path(sts, "spec.minReadySeconds")),
        };
        cleanup_json json_t *pods = claim_objects(&s, COL_PODS, all_pods, "/api/v1", "pods", true);
        cleanup_json json_t *revs = claim_objects(&s, COL_REVISIONS, all_revs, "/apis/apps/v1",
                                                  "controllerrevisions", false);
        cleanup_json json_t *update = NULL, *current_tmpl = NULL, *status = NULL;
        const json_t *current = NULL, *r = json_path(sts, "spec.replicas");
        const char *want_current = json_path_string_or_empty(sts, "status.currentRevision");
        const char *type = json_path_string_or_empty(sts, "spec.updateStrategy.type");
        json_int_t collision = collision_count(sts);
        struct walk w = { 0 };
        json_t *pod, *rev;
        size_t i;

        if (json_path(sts, "metadata.deletionTimestamp"))
                return;
        json_array_sort(revs, history_cmp_revision);
        update = update_revision(&s, revs, &collision);
        if (!update) {
                /* a collision (or a failed write): the status says so, the next pass retries */
                if (collision != collision_count(sts)) {
                        cleanup_json json_t *st = json_deep_copy(json_object_get(sts, "status"));
                        if (!st)
                                st = json_object();
                        json_object_set_new(st, "collisionCount", json_integer(collision));
                        write_status(&s, st);
                }
                return;
        }
        json_array_foreach(revs, i, rev) {
                if (streq(json_path_string_or_empty(rev, "metadata.name"), want_current))
                        current = rev;
        }
        if (!current)
                current = update;
        current_tmpl = statefulset_revision_template(json_object_get(current, "data"));
        w.n = json_is_integer(r) ? (int) json_integer_value(r) : 1;
        w.start = statefulset_start_ordinal(sts);
        w.replicas = xcalloc((size_t) w.n + 1, sizeof(*w.replicas));
        w.condemned = json_array();
        w.monotonic =
                !streq(json_path_string_or_empty(sts, "spec.podManagementPolicy"), "Parallel");
        w.update_tmpl = json_path(sts, "spec.template");
        w.current_tmpl = current_tmpl ? current_tmpl : w.update_tmpl;
        w.update_rev = json_path_string_or_empty(update, "metadata.name");
        w.current_rev = json_path_string_or_empty(current, "metadata.name");
        /* K8S: newVersionedStatefulSetPod: without rollingUpdate, ordinals below
         * status.currentReplicas are made at the current revision; the update starts at 0 */
        w.partition = -1;
        w.create_below = 0;
        if (!streq(type, "OnDelete") && json_path(sts, "spec.updateStrategy.rollingUpdate")) {
                w.partition = (long) json_integer_value(
                        json_path(sts, "spec.updateStrategy.rollingUpdate.partition"));
                w.create_below = w.partition;
        } else if (!streq(type, "OnDelete")) {
                w.partition = 0;
                w.create_below =
                        (long) json_integer_value(json_path(sts, "status.currentReplicas"));
        }
        json_array_foreach(pods, i, pod) {
                int ordinal = statefulset_pod_ordinal(sts, pod);

                if (statefulset_ordinal_in_range(sts, ordinal) && !w.replicas[ordinal - w.start])
                        w.replicas[ordinal - w.start] = pod;
                else
                        json_array_append_new(w.condemned, json_pack("{s:i, s:O}", "ordinal",
                                                                     ordinal, "pod", pod));
        }
        json_array_sort(w.condemned, cmp_ordinal);
        report_resized(&s, pods, revs);
        walk_pods(&s, &w);
        status = compute_status(&s, pods, w.current_rev, w.update_rev, collision);
        write_status(&s, status);
        truncate_history(&s, revs, pods,
                         json_string_value(json_object_get(status, "currentRevision")) ?: "",
                         w.update_rev);
        free(w.replicas);
        json_decref(w.condemned);
}

static void statefulset_pass(void *ctx)
{
        struct statefulset_controller *x = ctx;
        cleanup_json json_t *sets = informer_snapshot(x->loop.watch, COL_STS);
        cleanup_json json_t *pods = informer_snapshot(x->loop.watch, COL_PODS);
        cleanup_json json_t *claims = informer_snapshot(x->loop.watch, COL_CLAIMS);
        cleanup_json json_t *revs = informer_snapshot(x->loop.watch, COL_REVISIONS);
        time_t now = time(NULL);
        const char *key;
        json_t *sts;

        json_object_foreach(sets, key, sts) {
                sync_one(x, sts, pods, claims, revs, now);
        }
        resize_report_forget_gone(x->resized, pods);
}

static void statefulset_controller_release(void *ctx)
{
        struct statefulset_controller *x = ctx;

        json_decref(x->resized);
        free(x);
}

int statefulset_controller_start(const struct api_client_options *o,
                                 struct statefulset_controller **ret, struct error **reterr)
{
        static const char *const paths[] = {
                [COL_STS] = "/apis/apps/v1/statefulsets",
                [COL_PODS] = "/api/v1/pods",
                [COL_CLAIMS] = "/api/v1/persistentvolumeclaims",
                [COL_REVISIONS] = "/apis/apps/v1/controllerrevisions",
                NULL,
        };
        static const informer_relevant_fn relevant[ARRAY_SIZE(paths) - 1] = {
                [COL_PODS] = relevance_pod_workload
        };
        const struct controller_loop_def def = { .name = "statefulset",
                                                 .paths = paths,
                                                 .relevant = relevant,
                                                 .period_ms = PASS_PERIOD_MS,
                                                 .pass = statefulset_pass,
                                                 .release = statefulset_controller_release };
        struct statefulset_controller *x = xcalloc(1, sizeof(*x));
        int r;

        x->resized = json_object();
        r = controller_loop_start(o, &def, x, &x->loop, reterr);

        if (r < 0) {
                statefulset_controller_release(x);
                return r;
        }
        *ret = x;
        return 0;
}

struct statefulset_controller *statefulset_controller_stop(struct statefulset_controller *x)
{
        if (x)
                controller_loop_stop(&x->loop);
        return NULL;
}
