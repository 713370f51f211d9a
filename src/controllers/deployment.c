/* deployment.c: the Deployment controller (deployment.h). One pass syncs every Deployment
 * from the informer's snapshot, as upstream's syncDeployment: claim ReplicaSets, then
 * (paused or a scaling event) scale, or roll out (rolloutRolling / rolloutRecreate), then
 * write the status. Each write's answer goes back into the informer so the next pass reads it. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "api/owner.h"
#include "api/selector.h"
#include "api/validation-internal.h"
#include "api/workload.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/timeutil.h"
#include "client/event.h"
#include "controllers/controller-loop.h"
#include "controllers/controller-ref.h"
#include "controllers/history.h"
#include "controllers/deployment.h"
#include "controllers/relevance.h"
#include "controllers/replicaset.h"

#define PASS_PERIOD_MS  30000
#define EVENT_COMPONENT "deployment-controller"

enum { COL_DEPLOY, COL_RS, COL_PODS };

struct deployment_controller {
        struct controller_loop loop;
};

/* One Deployment's sync. */
struct dsync {
        struct deployment_controller *x;
        json_t *d;      /* the Deployment, updated as writes are answered */
        json_t *rss;    /* its ReplicaSets (own copies), oldest first */
        json_t *new_rs; /* borrowed from rss, or NULL */
        const json_t *pods;
        time_t now;
};

int deployment_new_rs_replicas(int replicas, int max_surge, int all_pods, int new_rs_replicas)
{
        int max_total = replicas + max_surge, up;

        /* K8S: NewRSNewReplicas (RollingUpdate) */
        if (all_pods >= max_total)
                return new_rs_replicas;
        up = max_total - all_pods;
        if (up > replicas - new_rs_replicas)
                up = replicas - new_rs_replicas;
        return new_rs_replicas + up;
}

static json_t *template_without_hash(const json_t *t)
{
        json_t *c = json_deep_copy(t ? t : json_null());
        json_t *labels = json_path(c, "metadata.labels");

        if (json_is_object(labels))
                json_object_del(labels, POD_TEMPLATE_HASH_LABEL);
        return c;
}

bool deployment_template_equal(const json_t *a, const json_t *b)
{
        cleanup_json json_t *ca = template_without_hash(a), *cb = template_without_hash(b);

        return vj_equal(ca, cb);
}

static int int_at(const json_t *obj, const char *path, int dflt)
{
        const json_t *v = json_path(obj, path);
        return json_is_integer(v) ? (int) json_integer_value(v) : dflt;
}

static long revision_of(const json_t *rs)
{
        const char *v = json_string_value(
                json_object_get(json_path(rs, "metadata.annotations"), REVISION_ANNOTATION));
        return v ? strtol(v, NULL, 10) : 0;
}

static const char *name_of(const json_t *o)
{
        return json_path_string_or_empty(o, "metadata.name");
}

static char *apps_path(const char *plural, const json_t *obj, const char *suffix)
{
        return xasprintf("/apis/apps/v1/namespaces/%s/%s/%s%s",
                         json_path_string_or_empty(obj, "metadata.namespace"), plural, name_of(obj),
                         suffix);
}

static void event(struct dsync *s, const char *type, const char *reason, const char *msg)
{
        (void) api_client_event(s->x->loop.client, s->d, type, reason, msg, EVENT_COMPONENT, NULL,
                                NULL);
}

static int d_replicas(const struct dsync *s)
{
        return int_at(s->d, "spec.replicas", 1);
}

/* K8S: MaxSurge and MaxUnavailable (0 for Recreate; maxUnavailable at most replicas). */
static void fenceposts(const struct dsync *s, int *surge, int *unavailable)
{
        const json_t *ru = json_path(s->d, "spec.strategy.rollingUpdate");
        int r = d_replicas(s);

        *surge = *unavailable = 0;
        if (!json_is_object(ru) ||
            workload_resolve_fenceposts(json_object_get(ru, "maxSurge"),
                                        json_object_get(ru, "maxUnavailable"), r, surge,
                                        unavailable) < 0)
                return;
        if (*unavailable > r)
                *unavailable = r;
}

static bool is_rolling(const struct dsync *s)
{
        return streq(json_path_string_or_empty(s->d, "spec.strategy.type"), "RollingUpdate");
}

/* ---- ReplicaSets ---- */

static int rs_replicas(const json_t *rs)
{
        return int_at(rs, "spec.replicas", 0);
}

static int sum(const json_t *rss, const char *path)
{
        size_t i;
        json_t *rs;
        int n = 0;

        json_array_foreach(rss, i, rs) {
                n += int_at(rs, path, 0);
        }
        return n;
}

static void replace_rs(struct dsync *s, json_t *rs, const json_t *answer)
{
        json_object_update(rs, (json_t *) answer);
        informer_store(s->x->loop.watch, COL_RS, answer);
}

/* Scales rs to n with the annotations SetReplicasAnnotations writes; false when the write
 * failed. */
static bool scale_rs(struct dsync *s, json_t *rs, int n)
{
        int surge, unavailable;
        int from = rs_replicas(rs);
        cleanup_json json_t *patch = NULL, *answer = NULL;
        cleanup_free char *path = apps_path("replicasets", rs, "");
        char desired[16], max[16];

        fenceposts(s, &surge, &unavailable);
        (void) snprintf(desired, sizeof(desired), "%d", d_replicas(s));
        (void) snprintf(max, sizeof(max), "%d", d_replicas(s) + surge);
        patch = json_pack("{s:{s:{s:s, s:s}}, s:{s:i}}", "metadata", "annotations",
                          DESIRED_REPLICAS_ANNOTATION, desired, MAX_REPLICAS_ANNOTATION, max,
                          "spec", "replicas", n);
        if (controller_loop_request(&s->x->loop, "PATCH", path, "application/merge-patch+json",
                                    patch, &answer) < 0 ||
            !answer)
                return false;
        replace_rs(s, rs, answer);
        if (from != n) {
                cleanup_free char *msg = xasprintf("Scaled %s replica set %s from %d to %d",
                                                   n > from ? "up" : "down", name_of(rs), from, n);
                event(s, "Normal", "ScalingReplicaSet", msg);
        }
        return true;
}

static json_t *owner_ref(const json_t *d)
{
        return controller_ref_new("apps/v1", "Deployment", d);
}

static int cmp_created(const void *pa, const void *pb)
{
        const json_t *a = *(json_t *const *) pa, *b = *(json_t *const *) pb;
        int c = strcmp(json_path_string_or_empty(a, "metadata.creationTimestamp"),
                       json_path_string_or_empty(b, "metadata.creationTimestamp"));

        return c ? c : strcmp(name_of(a), name_of(b));
}

/* K8S: ClaimReplicaSets: the ReplicaSets d controls after adoption and release, oldest first
 * (copies the sync may change). */
static json_t *claim_replica_sets(struct dsync *s, const json_t *all)
{
        const struct controller_ref_manager m = { .loop = &s->x->loop,
                                                  .col = COL_RS,
                                                  .owner = s->d,
                                                  .api_version = "apps/v1",
                                                  .kind = "Deployment",
                                                  .group_path = "/apis/apps/v1",
                                                  .plural = "replicasets" };
        cleanup_json json_t *claimed = controller_ref_claim(&m, all);
        json_t *owned = json_array(), *rs;
        size_t i;

        json_array_foreach(claimed, i, rs) {
                json_array_append_new(owned, json_deep_copy(rs));
        }
        json_array_sort(owned, cmp_created);
        return owned;
}

/* ---- conditions ---- */

static json_t *condition(const json_t *d, const char *type)
{
        size_t i;
        json_t *c;

        json_array_foreach(json_path(d, "status.conditions"), i, c) {
                if (streq(json_string_value(json_object_get(c, "type")) ?: "", type))
                        return c;
        }
        return NULL;
}

/* K8S: SetDeploymentCondition: a condition of the same status and reason keeps its
 * lastTransitionTime. */
static void set_condition(json_t *status, const char *type, const char *cstatus, const char *reason,
                          const char *message, time_t now)
{
        json_t *conds = json_object_get(status, "conditions");
        char ts[32];
        const char *transition = ts;
        size_t i;
        json_t *c;

        time_format_rfc3339(now, ts);
        if (!json_is_array(conds)) {
                conds = json_array();
                json_object_set_new(status, "conditions", conds);
        }
        json_array_foreach(conds, i, c) {
                if (!streq(json_string_value(json_object_get(c, "type")) ?: "", type))
                        continue;
                if (streq(json_string_value(json_object_get(c, "status")) ?: "", cstatus) &&
                    streq(json_string_value(json_object_get(c, "reason")) ?: "", reason)) {
                        if (streq(json_string_value(json_object_get(c, "message")) ?: "", message))
                                return;
                        transition =
                                json_string_value(json_object_get(c, "lastTransitionTime")) ?: ts;
                }
                json_array_set_new(conds, i,
                                   json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "type", type,
                                             "status", cstatus, "lastUpdateTime", ts,
                                             "lastTransitionTime", transition, "reason", reason,
                                             "message", message));
                return;
        }
        json_array_append_new(conds,
                              json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "type", type, "status",
                                        cstatus, "lastUpdateTime", ts, "lastTransitionTime", ts,
                                        "reason", reason, "message", message));
}

static void remove_condition(json_t *status, const char *type)
{
        json_t *conds = json_object_get(status, "conditions");

        for (size_t i = json_array_size(conds); i-- > 0;)
                if (streq(json_string_value(json_object_get(json_array_get(conds, i), "type"))
                                  ?: "",
                          type))
                        json_array_remove(conds, i);
}

static bool write_status(struct dsync *s, json_t *status)
{
        cleanup_json json_t *next = NULL, *answer = NULL;
        cleanup_free char *path = NULL;

        if (json_equal(status, json_object_get(s->d, "status")))
                return true;
        next = json_deep_copy(s->d);
        json_object_set(next, "status", status);
        path = apps_path("deployments", s->d, "/status");
        if (controller_loop_request(&s->x->loop, "PUT", path, "application/json", next, &answer) <
                    0 ||
            !answer)
                return false;
        json_object_update(s->d, answer);
        informer_store(s->x->loop.watch, COL_DEPLOY, answer);
        return true;
}

/* ---- the new ReplicaSet ---- */

static const char *const skipped_annotations[] = {
        /* K8S: skipCopyAnnotation */
        "kubectl.kubernetes.io/last-applied-configuration",
        REVISION_ANNOTATION,
        REVISION_HISTORY_ANNOTATION,
        DESIRED_REPLICAS_ANNOTATION,
        MAX_REPLICAS_ANNOTATION,
        "deprecated.deployment.rollback.to",
        NULL,
};

static bool skipped(const char *k)
{
        for (size_t i = 0; skipped_annotations[i]; i++)
                if (streq(k, skipped_annotations[i]))
                        return true;
        return false;
}

/* K8S: SetNewReplicaSetAnnotations: the Deployment's annotations copied, the revision raised
 * to new_revision. Returns whether ann changed. */
static bool set_new_rs_annotations(const json_t *d, json_t *ann, long new_revision)
{
        const json_t *dann = json_path(d, "metadata.annotations");
        const char *k, *old = json_string_value(json_object_get(ann, REVISION_ANNOTATION));
        bool changed = false;
        json_t *v;

        json_object_foreach((json_t *) dann, k, v) {
                if (skipped(k) || json_equal(json_object_get(ann, k), v))
                        continue;
                json_object_set(ann, k, v);
                changed = true;
        }
        if (!old || strtol(old, NULL, 10) < new_revision) {
                json_object_set_new(ann, REVISION_ANNOTATION, json_sprintf("%ld", new_revision));
                changed = true;
        }
        return changed;
}

/* K8S: SetDeploymentRevision, written with the Deployment's own update. */
static void set_deployment_revision(struct dsync *s, long revision)
{
        char rev[24];
        cleanup_json json_t *patch = NULL, *answer = NULL;
        cleanup_free char *path = NULL;

        (void) snprintf(rev, sizeof(rev), "%ld", revision);
        if (streq(json_string_value(json_object_get(json_path(s->d, "metadata.annotations"),
                                                    REVISION_ANNOTATION))
                          ?: "",
                  rev))
                return;
        patch = json_pack("{s:{s:{s:s}}}", "metadata", "annotations", REVISION_ANNOTATION, rev);
        path = apps_path("deployments", s->d, "");
        if (controller_loop_request(&s->x->loop, "PATCH", path, "application/merge-patch+json",
                                    patch, &answer) == 0 &&
            answer) {
                /* keep the status this sync computed from: the answer's is the stored one */
                json_object_set(s->d, "metadata", json_object_get(answer, "metadata"));
                informer_store(s->x->loop.watch, COL_DEPLOY, answer);
        }
}

/* K8S: getNewReplicaSet: the ReplicaSet whose template is the Deployment's (its revision
 * brought to the newest), or with create a new one; NULL when there is none (or the create
 * collided, which raises collisionCount for the next pass). */
static json_t *new_replica_set(struct dsync *s, bool create)
{
        const json_t *tmpl = json_path(s->d, "spec.template");
        long max_old = 0, new_revision;
        json_t *found = NULL, *rs;
        size_t i;

        json_array_foreach(s->rss, i, rs) {
                if (!found && deployment_template_equal(json_path(rs, "spec.template"), tmpl))
                        found = rs;
        }
        json_array_foreach(s->rss, i, rs) {
                if (rs != found && revision_of(rs) > max_old)
                        max_old = revision_of(rs);
        }
        new_revision = max_old + 1;
        if (found) {
                cleanup_json json_t *ann =
                        json_deep_copy(json_path(found, "metadata.annotations") ?: json_object());
                json_t *mrs = json_path(found, "spec.minReadySeconds");
                int want_mrs = int_at(s->d, "spec.minReadySeconds", 0);

                if (set_new_rs_annotations(s->d, ann, new_revision) ||
                    (mrs ? (int) json_integer_value(mrs) : 0) != want_mrs) {
                        cleanup_json json_t *patch = NULL, *answer = NULL;
                        cleanup_free char *path = apps_path("replicasets", found, "");

                        patch = json_pack("{s:{s:O}, s:{s:i}}", "metadata", "annotations", ann,
                                          "spec", "minReadySeconds", want_mrs);
                        if (controller_loop_request(&s->x->loop, "PATCH", path,
                                                    "application/merge-patch+json", patch,
                                                    &answer) == 0 &&
                            answer)
                                replace_rs(s, found, answer);
                }
                set_deployment_revision(s, revision_of(found));
                if (json_is_integer(json_path(s->d, "spec.progressDeadlineSeconds")) &&
                    !condition(s->d, "Progressing")) {
                        /* K8S: getNewReplicaSet: FoundNewReplicaSet when none is recorded */
                        cleanup_json json_t *status =
                                json_deep_copy(json_object_get(s->d, "status") ?: json_object());
                        cleanup_free char *msg =
                                xasprintf("Found new replica set \"%s\"", name_of(found));
                        set_condition(status, "Progressing", "True", "FoundNewReplicaSet", msg,
                                      s->now);
                        (void) write_status(s, status);
                }
                return found;
        }
        if (!create)
                return NULL;
        {
                const json_t *cc = json_path(s->d, "status.collisionCount");
                int32_t count = json_is_integer(cc) ? (int32_t) json_integer_value(cc) : 0;
                cleanup_free char *hash = workload_template_hash(tmpl, cc ? &count : NULL);
                cleanup_free char *path =
                        xasprintf("/apis/apps/v1/namespaces/%s/replicasets",
                                  json_path_string_or_empty(s->d, "metadata.namespace"));
                cleanup_json json_t *body = NULL, *answer = NULL;
                json_t *t = json_deep_copy(tmpl),
                       *sel = json_deep_copy(json_path(s->d, "spec.selector"));
                json_t *ann = json_object();
                int surge, unavailable, all = sum(s->rss, "spec.replicas");
                int replicas = d_replicas(s);
                char desired[16], max[16];
                int r;

                fenceposts(s, &surge, &unavailable);
                if (is_rolling(s))
                        replicas = deployment_new_rs_replicas(d_replicas(s), surge, all, 0);
                /* K8S: the hash as a label of the template and the selector */
                json_object_set_new(json_object_ensure(json_object_ensure(t, "metadata"), "labels"),
                                    POD_TEMPLATE_HASH_LABEL, json_string(hash));
                json_object_set_new(json_object_ensure(sel, "matchLabels"), POD_TEMPLATE_HASH_LABEL,
                                    json_string(hash));
                (void) set_new_rs_annotations(s->d, ann, new_revision);
                (void) snprintf(desired, sizeof(desired), "%d", d_replicas(s));
                (void) snprintf(max, sizeof(max), "%d", d_replicas(s) + surge);
                json_object_set_new(ann, DESIRED_REPLICAS_ANNOTATION, json_string(desired));
                json_object_set_new(ann, MAX_REPLICAS_ANNOTATION, json_string(max));
                body = json_pack("{s:s, s:s, s:{s:s++, s:s, s:O, s:o, s:[o]}, "
                                 "s:{s:i, s:i, s:o, s:o}}",
                                 "apiVersion", "apps/v1", "kind", "ReplicaSet", "metadata", "name",
                                 name_of(s->d), "-", hash, "namespace",
                                 json_path_string_or_empty(s->d, "metadata.namespace"), "labels",
                                 json_path(t, "metadata.labels"), "annotations", ann,
                                 "ownerReferences", owner_ref(s->d), "spec", "replicas", replicas,
                                 "minReadySeconds", int_at(s->d, "spec.minReadySeconds", 0),
                                 "selector", sel, "template", t);
                r = controller_loop_request(&s->x->loop, "POST", path, "application/json", body,
                                            &answer);
                if (r == -EEXIST) {
                        /* K8S: a hash collision with a ReplicaSet of another template:
                         * collisionCount++ and the next pass tries the next name */
                        json_t *status =
                                json_deep_copy(json_object_get(s->d, "status") ?: json_object());
                        json_object_set_new(status, "collisionCount", json_integer(count + 1));
                        (void) write_status(s, status);
                        json_decref(status);
                        return NULL;
                }
                if (r < 0 || !answer) {
                        cleanup_free char *msg = xasprintf(
                                "Failed to create new replica set \"%s-%s\": %s", name_of(s->d),
                                hash,
                                answer ? json_string_value(json_object_get(answer, "message")) ?: ""
                                       : "the request failed");
                        event(s, "Warning", "FailedCreate", msg);
                        return NULL;
                }
                informer_store(s->x->loop.watch, COL_RS, answer);
                rs = json_deep_copy(answer);
                json_array_append_new(s->rss, rs);
                if (replicas > 0) {
                        cleanup_free char *msg = xasprintf("Scaled up replica set %s from 0 to %d",
                                                           name_of(rs), replicas);
                        event(s, "Normal", "ScalingReplicaSet", msg);
                }
                if (json_is_integer(json_path(s->d, "spec.progressDeadlineSeconds"))) {
                        json_t *status =
                                json_deep_copy(json_object_get(s->d, "status") ?: json_object());
                        cleanup_free char *msg =
                                xasprintf("Created new replica set \"%s\"", name_of(rs));
                        set_condition(status, "Progressing", "True", "NewReplicaSetCreated", msg,
                                      s->now);
                        (void) write_status(s, status);
                        json_decref(status);
                }
                set_deployment_revision(s, revision_of(rs));
                return rs;
        }
}

/* ---- status ---- */

/* K8S: calculateStatus, then syncRolloutStatus's Progressing condition. */
static json_t *compute_status(struct dsync *s)
{
        const json_t *old = json_object_get(s->d, "status");
        json_t *status = json_deep_copy(old ? old : json_object());
        int surge, unavailable, replicas = d_replicas(s);
        int total = sum(s->rss, "spec.replicas"), avail = sum(s->rss, "status.availableReplicas");
        int actual = sum(s->rss, "status.replicas");
        int updated = s->new_rs ? int_at(s->new_rs, "status.replicas", 0) : 0;
        json_t *pds = json_path(s->d, "spec.progressDeadlineSeconds");
        const char *nrs = s->new_rs ? name_of(s->new_rs) : "";

        fenceposts(s, &surge, &unavailable);
        json_object_set_new(
                status, "observedGeneration",
                json_integer(json_integer_value(json_path(s->d, "metadata.generation"))));
        json_object_set_new(status, "replicas", json_integer(actual));
        json_object_set_new(status, "updatedReplicas", json_integer(updated));
        json_object_set_new(status, "readyReplicas",
                            json_integer(sum(s->rss, "status.readyReplicas")));
        json_object_set_new(status, "availableReplicas", json_integer(avail));
        json_object_set_new(status, "unavailableReplicas",
                            json_integer(total - avail > 0 ? total - avail : 0));
        if (avail >= replicas - unavailable)
                set_condition(status, "Available", "True", "MinimumReplicasAvailable",
                              "Deployment has minimum availability.", s->now);
        else
                set_condition(status, "Available", "False", "MinimumReplicasUnavailable",
                              "Deployment does not have minimum availability.", s->now);

        if (!json_is_integer(pds) || json_integer_value(pds) == INT_MAX) {
                remove_condition(status, "Progressing");
                return status;
        }
        {
                const json_t *cur = condition(s->d, "Progressing");
                const char *reason = cur ? json_string_value(json_object_get(cur, "reason")) : NULL;
                bool complete_before =
                        actual == updated && reason && streq(reason, "NewReplicaSetAvailable");
                /* K8S: DeploymentComplete */
                bool complete =
                        updated == replicas && actual == replicas && avail == replicas &&
                        json_integer_value(json_path(s->d, "metadata.generation")) <=
                                json_integer_value(json_object_get(status, "observedGeneration"));
                /* K8S: DeploymentProgressing */
                int old_updated = int_at(s->d, "status.updatedReplicas", 0);
                int old_old = int_at(s->d, "status.replicas", 0) - old_updated;
                bool progressing = updated > old_updated || actual - updated < old_old ||
                                   int_at(status, "readyReplicas", 0) >
                                           int_at(s->d, "status.readyReplicas", 0) ||
                                   avail > int_at(s->d, "status.availableReplicas", 0);

                if (complete_before || (reason && streq(reason, "DeploymentPaused")))
                        return status;
                if (complete) {
                        cleanup_free char *msg =
                                xasprintf("ReplicaSet \"%s\" has successfully progressed.", nrs);
                        set_condition(status, "Progressing", "True", "NewReplicaSetAvailable", msg,
                                      s->now);
                } else if (progressing) {
                        cleanup_free char *msg =
                                xasprintf("ReplicaSet \"%s\" is progressing.", nrs);
                        set_condition(status, "Progressing", "True", "ReplicaSetUpdated", msg,
                                      s->now);
                } else if (cur && reason && !streq(reason, "ProgressDeadlineExceeded")) {
                        /* K8S: DeploymentTimedOut: no progress since the condition's
                         * lastUpdateTime for progressDeadlineSeconds */
                        time_t from = 0;
                        const char *lu = json_string_value(json_object_get(cur, "lastUpdateTime"));
                        long left;

                        if (lu)
                                (void) time_parse_rfc3339(lu, &from);
                        left = (long) (from + json_integer_value(pds) - s->now);
                        if (left < 0) {
                                cleanup_free char *msg = xasprintf(
                                        "ReplicaSet \"%s\" has timed out progressing.", nrs);
                                set_condition(status, "Progressing", "False",
                                              "ProgressDeadlineExceeded", msg, s->now);
                                event(s, "Warning", "ProgressDeadlineExceeded", msg);
                        } else {
                                /* K8S: requeue at the deadline */
                                controller_loop_pass_within(&s->x->loop, (left + 1) * 1000);
                        }
                }
        }
        return status;
}

static void sync_status(struct dsync *s)
{
        cleanup_json json_t *status = compute_status(s);

        (void) write_status(s, status);
}

/* ---- scaling (K8S: sync, scale, FindActiveOrLatest, GetProportion) ---- */

static void scale_deployment(struct dsync *s)
{
        int replicas = d_replicas(s), active = 0;
        json_t *rs, *only = NULL, *latest = NULL;
        size_t i;

        json_array_foreach(s->rss, i, rs) {
                latest = rs;
                if (rs_replicas(rs) > 0) {
                        active++;
                        only = rs;
                }
        }
        if (active <= 1) {
                json_t *target = active == 1 ? only : s->new_rs ? s->new_rs : latest;
                if (target && rs_replicas(target) != replicas)
                        (void) scale_rs(s, target, replicas);
                return;
        }
        if (s->new_rs && rs_replicas(s->new_rs) == replicas &&
            int_at(s->new_rs, "status.availableReplicas", 0) == replicas) {
                /* K8S: IsSaturated: the old ones go */
                json_array_foreach(s->rss, i, rs) {
                        if (rs != s->new_rs && rs_replicas(rs) > 0)
                                (void) scale_rs(s, rs, 0);
                }
                return;
        }
        if (is_rolling(s)) {
                /* K8S: proportional scaling: the difference to replicas + maxSurge spread over
                 * the active ReplicaSets by size, the rounding left-over to the largest */
                int surge, unavailable, total = sum(s->rss, "spec.replicas"), added = 0;
                int to_add;
                json_t *largest = NULL;

                fenceposts(s, &surge, &unavailable);
                to_add = replicas + surge - total;
                if (to_add == 0 || total == 0)
                        return;
                json_array_foreach(s->rss, i, rs) {
                        if (rs_replicas(rs) > 0 &&
                            (!largest || rs_replicas(rs) >= rs_replicas(largest)))
                                largest = rs;
                }
                json_array_foreach(s->rss, i, rs) {
                        int part;
                        if (rs_replicas(rs) == 0 || rs == largest)
                                continue;
                        part = (int) ((long long) rs_replicas(rs) * to_add / total);
                        if (rs_replicas(rs) + part < 0)
                                part = -rs_replicas(rs);
                        added += part;
                        if (part)
                                (void) scale_rs(s, rs, rs_replicas(rs) + part);
                }
                if (largest) {
                        int n = rs_replicas(largest) + to_add - added;
                        (void) scale_rs(s, largest, n < 0 ? 0 : n);
                }
        }
}

/* K8S: cleanupDeployment: old, empty ReplicaSets past revisionHistoryLimit, oldest
 * revision first. */
static int cmp_revision(const void *pa, const void *pb)
{
        long a = revision_of(*(json_t *const *) pa), b = revision_of(*(json_t *const *) pb);

        return a < b ? -1 : a > b;
}

/* An old ReplicaSet is kept while it has, or may still have, replicas. */
static bool rs_in_use(const json_t *rs, void *ctx)
{
        return int_at(rs, "status.replicas", 0) != 0 || rs_replicas(rs) != 0 ||
               int_at(rs, "status.observedGeneration", 0) < int_at(rs, "metadata.generation", 0);
}

static bool rs_delete(const json_t *rs, void *ctx)
{
        struct dsync *s = ctx;
        cleanup_free char *path = apps_path("replicasets", rs, "");

        return controller_loop_request(&s->x->loop, "DELETE", path, NULL, NULL, NULL) == 0;
}

static void cleanup_old(struct dsync *s)
{
        const json_t *lim = json_path(s->d, "spec.revisionHistoryLimit");
        const struct history_pruner pruner = { .in_use = rs_in_use, .delete = rs_delete, .ctx = s };
        cleanup_json json_t *old = json_array();
        json_t *rs;
        size_t i;

        if (!json_is_integer(lim))
                return;
        json_array_foreach(s->rss, i, rs) {
                if (rs != s->new_rs && !json_path(rs, "metadata.deletionTimestamp"))
                        json_array_append(old, rs);
        }
        json_array_sort(old, cmp_revision);
        (void) history_prune(old, (long) json_array_size(old) - (long) json_integer_value(lim),
                             &pruner);
}

static bool complete(struct dsync *s)
{
        int r = d_replicas(s);

        return s->new_rs && int_at(s->new_rs, "status.replicas", 0) == r &&
               sum(s->rss, "status.replicas") == r && sum(s->rss, "status.availableReplicas") == r;
}

/* ---- rollouts ---- */

/* K8S: reconcileOldReplicaSets, cleanupUnhealthyReplicas and
 * scaleDownOldReplicaSetsForRollingUpdate. */
static bool scale_down_old(struct dsync *s)
{
        int surge, unavailable, replicas = d_replicas(s);
        int old_pods = 0, all = sum(s->rss, "spec.replicas"), min_available, max_down;
        int new_unavail = s->new_rs ? rs_replicas(s->new_rs) -
                                              int_at(s->new_rs, "status.availableReplicas", 0)
                                    : 0;
        int cleaned = 0, down = 0, available, target;
        json_t *rs;
        size_t i;

        json_array_foreach(s->rss, i, rs) {
                if (rs != s->new_rs)
                        old_pods += rs_replicas(rs);
        }
        if (old_pods == 0)
                return false;
        fenceposts(s, &surge, &unavailable);
        min_available = replicas - unavailable;
        max_down = all - min_available - new_unavail;
        if (max_down <= 0)
                return false;
        /* unhealthy old pods first: they cost no availability */
        json_array_foreach(s->rss, i, rs) {
                int unhealthy, n;
                if (rs == s->new_rs || rs_replicas(rs) == 0 || cleaned >= max_down)
                        continue;
                unhealthy = rs_replicas(rs) - int_at(rs, "status.availableReplicas", 0);
                if (unhealthy <= 0)
                        continue;
                n = unhealthy < max_down - cleaned ? unhealthy : max_down - cleaned;
                if (scale_rs(s, rs, rs_replicas(rs) - n))
                        cleaned += n;
        }
        available = sum(s->rss, "status.availableReplicas");
        target = available - min_available;
        json_array_foreach(s->rss, i, rs) {
                int n;
                if (rs == s->new_rs || rs_replicas(rs) == 0 || down >= target)
                        continue;
                n = rs_replicas(rs) < target - down ? rs_replicas(rs) : target - down;
                if (scale_rs(s, rs, rs_replicas(rs) - n))
                        down += n;
        }
        return cleaned + down > 0;
}

static void rollout_rolling(struct dsync *s)
{
        int surge, unavailable, replicas = d_replicas(s);

        s->new_rs = new_replica_set(s, true);
        fenceposts(s, &surge, &unavailable);
        if (s->new_rs && rs_replicas(s->new_rs) != replicas) {
                /* K8S: reconcileNewReplicaSet */
                int n = rs_replicas(s->new_rs) > replicas
                                ? replicas
                                : deployment_new_rs_replicas(replicas, surge,
                                                             sum(s->rss, "spec.replicas"),
                                                             rs_replicas(s->new_rs));
                if (n != rs_replicas(s->new_rs) && scale_rs(s, s->new_rs, n)) {
                        sync_status(s);
                        return;
                }
        }
        if (scale_down_old(s)) {
                sync_status(s);
                return;
        }
        if (complete(s))
                cleanup_old(s);
        sync_status(s);
}

/* K8S: oldPodsRunning: a pod of an old ReplicaSet that is not Succeeded or Failed. */
static bool old_pods_running(struct dsync *s)
{
        const char *key;
        json_t *pod;

        json_object_foreach((json_t *) s->pods, key, pod) {
                const json_t *ref = owner_controller_of(pod);
                const char *phase = json_path_string_or_empty(pod, "status.phase");
                json_t *rs;
                size_t i;

                if (!ref || streq(phase, "Succeeded") || streq(phase, "Failed"))
                        continue;
                json_array_foreach(s->rss, i, rs) {
                        if (rs != s->new_rs &&
                            streq(json_string_value(json_object_get(ref, "uid")) ?: "",
                                  json_path_string_or_empty(rs, "metadata.uid")))
                                return true;
                }
        }
        return false;
}

static void rollout_recreate(struct dsync *s)
{
        bool scaled = false;
        json_t *rs;
        size_t i;

        s->new_rs = new_replica_set(s, false);
        json_array_foreach(s->rss, i, rs) {
                if (rs != s->new_rs && rs_replicas(rs) > 0)
                        scaled |= scale_rs(s, rs, 0);
        }
        if (scaled || old_pods_running(s)) {
                sync_status(s);
                return;
        }
        if (!s->new_rs)
                s->new_rs = new_replica_set(s, true);
        if (s->new_rs && rs_replicas(s->new_rs) != d_replicas(s))
                (void) scale_rs(s, s->new_rs, d_replicas(s));
        if (complete(s))
                cleanup_old(s);
        sync_status(s);
}

/* K8S: isScalingEvent: an active ReplicaSet's desired-replicas annotation differs from
 * spec.replicas. */
static bool scaling_event(struct dsync *s)
{
        char want[16];
        json_t *rs;
        size_t i;

        (void) snprintf(want, sizeof(want), "%d", d_replicas(s));
        json_array_foreach(s->rss, i, rs) {
                const char *v = json_string_value(json_object_get(
                        json_path(rs, "metadata.annotations"), DESIRED_REPLICAS_ANNOTATION));
                if (rs_replicas(rs) > 0 && v && !streq(v, want))
                        return true;
        }
        return false;
}

/* K8S: checkPausedConditions */
static void paused_conditions(struct dsync *s)
{
        const json_t *cur = condition(s->d, "Progressing");
        const char *reason = cur ? json_string_value(json_object_get(cur, "reason")) : NULL;
        bool paused = json_is_true(json_path(s->d, "spec.paused"));
        cleanup_json json_t *status = NULL;

        if (!json_is_integer(json_path(s->d, "spec.progressDeadlineSeconds")))
                return;
        status = json_deep_copy(json_object_get(s->d, "status") ?: json_object());
        if (paused && !(reason && streq(reason, "DeploymentPaused")))
                set_condition(status, "Progressing", "Unknown", "DeploymentPaused",
                              "Deployment is paused", s->now);
        else if (!paused && reason && streq(reason, "DeploymentPaused"))
                set_condition(status, "Progressing", "Unknown", "DeploymentResumed",
                              "Deployment is resumed", s->now);
        else
                return;
        (void) write_status(s, status);
}

static void sync_deployment(struct deployment_controller *x, const json_t *d, const json_t *rss,
                            const json_t *pods, time_t now)
{
        struct dsync s = { .x = x, .d = json_deep_copy(d), .pods = pods, .now = now };

        s.rss = claim_replica_sets(&s, rss);
        if (json_path(d, "metadata.deletionTimestamp")) {
                s.new_rs = new_replica_set(&s, false);
                sync_status(&s);
        } else {
                paused_conditions(&s);
                if (json_is_true(json_path(d, "spec.paused")) || scaling_event(&s)) {
                        s.new_rs = new_replica_set(&s, false);
                        scale_deployment(&s);
                        sync_status(&s);
                } else if (streq(json_path_string_or_empty(d, "spec.strategy.type"), "Recreate")) {
                        rollout_recreate(&s);
                } else {
                        rollout_rolling(&s);
                }
        }
        json_decref(s.rss);
        json_decref(s.d);
}

static void deployment_pass(void *ctx)
{
        struct deployment_controller *x = ctx;
        cleanup_json json_t *ds = informer_snapshot(x->loop.watch, COL_DEPLOY);
        cleanup_json json_t *rss = informer_snapshot(x->loop.watch, COL_RS);
        cleanup_json json_t *pods = informer_snapshot(x->loop.watch, COL_PODS);
        time_t now = time(NULL);
        const char *key;
        json_t *d;

        json_object_foreach(ds, key, d) {
                sync_deployment(x, d, rss, pods, now);
        }
}

static void deployment_controller_release(void *ctx)
{
        free(ctx);
}

int deployment_controller_start(const struct api_client_options *o,
                                struct deployment_controller **ret, struct error **reterr)
{
        static const char *const paths[] = { [COL_DEPLOY] = "/apis/apps/v1/deployments",
                                             [COL_RS] = "/apis/apps/v1/replicasets",
                                             [COL_PODS] = "/api/v1/pods",
                                             NULL };
        static const informer_relevant_fn relevant[ARRAY_SIZE(paths) - 1] = {
                [COL_PODS] = relevance_pod_workload
        };
        const struct controller_loop_def def = { .name = "deployment",
                                                 .paths = paths,
                                                 .relevant = relevant,
                                                 .period_ms = PASS_PERIOD_MS,
                                                 .pass = deployment_pass,
                                                 .release = deployment_controller_release };
        struct deployment_controller *x = xcalloc(1, sizeof(*x));
        int r;

        r = controller_loop_start(o, &def, x, &x->loop, reterr);
        if (r < 0) {
                deployment_controller_release(x);
                return r;
        }
        *ret = x;
        return 0;
}

struct deployment_controller *deployment_controller_stop(struct deployment_controller *x)
{
        if (x)
                controller_loop_stop(&x->loop);
        return NULL;
}
