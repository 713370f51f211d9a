/* eviction.c: POST pods/{name}/eviction, the disruption-aware delete (K8S:
 * pkg/registry/core/pod/storage/eviction.go, EvictionREST.Create, release-1.33). A pod that is
 * terminal, pending or already being deleted goes at once; otherwise the one
 * PodDisruptionBudget selecting it must allow a disruption, which is taken (a
 * resourceVersion-checked write of its status, the pod named in disruptedPods) before the pod
 * is deleted. The budget's arithmetic is the disruption controller's, not this file's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/pdb.h"
#include "api/schemas.h"
#include "api/selector.h"
#include "apiserver/admission-noderestriction.h"
#include "apiserver/apiserver-internal.h"
#include "apiserver/status.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/timeutil.h"
#include "store/store.h"

/* K8S: EvictionsRetry: 20 steps (of 500ms; flexlet's store answers a conflict at once, so the
 * retries do not sleep). */
#define EVICTION_RETRIES 20

#define VIOLATES_BUDGET "Cannot evict pod as it would violate the pod's disruption budget."

const struct api_resource eviction_body_resource = {
        .group = "policy",
        .version = "v1",
        .api_version = "policy/v1",
        .plural = "pods",
        .kind = "Eviction",
        .namespaced = true,
        .schema = &schema_eviction,
};

/* K8S: canIgnorePDB: terminal and pending pods, and pods already being deleted. */
static bool can_ignore_pdb(const json_t *pod)
{
        const char *phase = json_path_string(pod, "status.phase") ?: "";

        return streq(phase, "Succeeded") || streq(phase, "Failed") || streq(phase, "Pending") ||
               json_path(pod, "metadata.deletionTimestamp");
}

/* K8S: shouldEnforceResourceVersion */
static bool should_enforce_rv(const json_t *pod)
{
        const char *phase = json_path_string(pod, "status.phase") ?: "";

        return !streq(phase, "Succeeded") && !streq(phase, "Failed") &&
               !json_path(pod, "metadata.deletionTimestamp");
}

/* K8S: errors.NewTooManyRequests(message, retry) with a DisruptionBudget cause. */
static void respond_too_many(struct http_response *resp, const char *cause, int retry_after)
{
        json_t *details = json_pack("{s:[{s:s, s:s}]}", "causes", "reason", "DisruptionBudget",
                                    "message", cause);

        if (retry_after > 0) {
                json_object_set_new(details, "retryAfterSeconds", json_integer(retry_after));
                resp->retry_after_s = (unsigned) retry_after;
        }
        status_respond(resp, EAGAIN, VIOLATES_BUDGET, details);
}

/* K8S: createTooManyRequestsError: the budget has not seen its own spec yet. */
static void respond_being_processed(struct http_response *resp, const char *pdb_name)
{
        cleanup_free char *cause = xasprintf(
                "The disruption budget %s is still being processed by the server.", pdb_name);

        respond_too_many(resp, cause, 10);
}

/* K8S: errors.NewForbidden(policy.Resource("poddisruptionbudget"), name, err) */
static void respond_pdb_forbidden(struct http_response *resp, const char *pdb_name, const char *why)
{
        cleanup_free char *msg =
                xasprintf("poddisruptionbudget.policy \"%s\" is forbidden: %s", pdb_name, why);

        status_respond(resp, EPERM, msg,
                       json_pack("{s:s, s:s, s:s}", "name", pdb_name, "group", "policy", "kind",
                                 "poddisruptionbudget"));
}

static void respond_success(struct http_response *resp)
{
        /* K8S: the create handler gives a Status without a code the 201 it answers with */
        cleanup_json json_t *st =
                json_pack("{s:s, s:s, s:{}, s:s, s:i}", "kind", "Status", "apiVersion", "v1",
                          "metadata", "status", "Success", "code", 201);

        http_response_json(resp, 201, st);
}

/* The PDBs of the pod's namespace whose selector selects it (K8S: getPodDisruptionBudgets: an
 * invalid or empty selector selects nothing). New array. */
static int matching_pdbs(struct apiserver *s, const json_t *pod, const char *ns, json_t **ret,
                         struct error **reterr)
{
        cleanup_json json_t *items = NULL;
        json_t *out, *pdb;
        size_t i;
        int r;

        r = store_list(s->store, "poddisruptionbudgets", ns, &items, NULL, reterr);
        if (r < 0)
                return r;
        out = json_array();
        json_array_foreach(items, i, pdb) {
                const json_t *sel = json_path(pdb, "spec.selector");

                if (label_selector_object_is_empty(sel) ||
                    label_selector_object_matches(sel, json_path(pod, "metadata.labels")) <= 0)
                        continue;
                json_array_append(out, pdb);
        }
        *ret = out;
        return 0;
}

enum decrement {
        DECREMENT_DONE,
        DECREMENT_RESPONDED, /* refused: resp holds the answer */
        DECREMENT_CONFLICT,  /* the budget changed meanwhile: read it again */
};

/* K8S: checkAndDecrement */
static enum decrement check_and_decrement(struct apiserver *s, const char *ns, const char *pod_name,
                                          json_t *pdb, bool dry, struct http_response *resp)
{
        cleanup_error struct error *err = NULL;
        const char *name = json_path_string(pdb, "metadata.name") ?: "";
        json_t *status = json_object_ensure(pdb, "status");
        long long allowed = json_integer_value(json_object_get(status, "disruptionsAllowed"));
        const char *rv = json_path_string(pdb, "metadata.resourceVersion");
        json_t *disrupted;
        char now[32];
        int r;

        if (json_integer_value(json_object_get(status, "observedGeneration")) <
            json_integer_value(json_path(pdb, "metadata.generation"))) {
                respond_being_processed(resp, name);
                return DECREMENT_RESPONDED;
        }
        if (allowed < 0) {
                respond_pdb_forbidden(resp, name, "pdb disruptions allowed is negative");
                return DECREMENT_RESPONDED;
        }
        if (json_object_size(json_object_get(status, "disruptedPods")) > PDB_MAX_DISRUPTED_PODS) {
                respond_pdb_forbidden(resp, name,
                                      "DisruptedPods map too big - too many evictions not "
                                      "confirmed by PDB controller");
                return DECREMENT_RESPONDED;
        }
        if (allowed == 0) {
                cleanup_free char *cause = xasprintf(
                        "The disruption budget %s needs %lld healthy pods and has %lld currently",
                        name,
                        (long long) json_integer_value(json_object_get(status, "desiredHealthy")),
                        (long long) json_integer_value(json_object_get(status, "currentHealthy")));
                respond_too_many(resp, cause, 0);
                return DECREMENT_RESPONDED;
        }
        time_format_rfc3339(time(NULL), now);
        json_object_set_new(status, "disruptionsAllowed", json_integer(allowed - 1));
        if (allowed - 1 == 0)
                pdb_update_disruption_allowed(pdb, now);
        if (dry)
                return DECREMENT_DONE;
        disrupted = json_object_get(status, "disruptedPods");
        if (!json_is_object(disrupted)) {
                disrupted = json_object();
                json_object_set_new(status, "disruptedPods", disrupted);
        }
        json_object_set_new(disrupted, pod_name, json_string(now));
        r = store_update(s->store, "poddisruptionbudgets", ns, name, pdb,
                         rv ? strtoull(rv, NULL, 10) : 0, &err);
        if (r == -ESTALE || r == -ENOENT)
                return DECREMENT_CONFLICT;
        if (r < 0) {
                status_respond(resp, r, err ? err->message : strerror(-r), NULL);
                return DECREMENT_RESPONDED;
        }
        return DECREMENT_DONE;
}

/* The budget's part: 0 to go on and delete (*ret_enforce_rv: with the pod's resourceVersion as
 * precondition, *ret_pdb_name the budget's name), < 0 when resp holds the answer. */
static int take_budget(struct apiserver *s, const char *ns, const json_t *pod, bool dry,
                       struct http_response *resp, bool *ret_enforce_rv, char **ret_pdb_name)
{
        cleanup_error struct error *err = NULL;
        cleanup_json json_t *pdbs = NULL;
        json_t *pdb;
        const char *name;
        int r;

        r = matching_pdbs(s, pod, ns, &pdbs, &err);
        if (r < 0) {
                status_respond(resp, r, err->message, NULL);
                return r;
        }
        if (json_array_size(pdbs) > 1) {
                /* K8S: answered as the result (a Status with code 500), not as an error */
                cleanup_json json_t *st = json_pack(
                        "{s:s, s:s, s:{}, s:s, s:s, s:i}", "kind", "Status", "apiVersion", "v1",
                        "metadata", "status", "Failure", "message",
                        "This pod has more than one PodDisruptionBudget, which the eviction "
                        "subresource does not support.",
                        "code", 500);
                http_response_json(resp, 500, st);
                return -EIO;
        }
        if (json_array_size(pdbs) == 0)
                return 0;
        pdb = json_array_get(pdbs, 0);
        name = json_path_string(pdb, "metadata.name") ?: "";
        *ret_pdb_name = xstrdup(name);
        /* K8S: a pod that is not Ready does not count as healthy, so taking it takes nothing
         * from the budget: always with AlwaysAllow, and with IfHealthyBudget (the default) while
         * the budget is met */
        if (!pdb_pod_ready(pod)) {
                const char *policy = json_path_string(pdb, "spec.unhealthyPodEvictionPolicy");
                long long current = json_integer_value(json_path(pdb, "status.currentHealthy"));
                long long desired = json_integer_value(json_path(pdb, "status.desiredHealthy"));

                if ((policy && streq(policy, "AlwaysAllow")) ||
                    (current >= desired && desired > 0)) {
                        *ret_enforce_rv = true;
                        return 0;
                }
        }
        for (int attempt = 0; attempt < EVICTION_RETRIES; attempt++) {
                cleanup_json json_t *fresh = NULL;
                json_t *cur = pdb;

                if (attempt > 0) {
                        cleanup_error struct error *gerr = NULL;

                        r = store_get(s->store, "poddisruptionbudgets", ns, name, &fresh, &gerr);
                        if (r < 0) {
                                status_respond(resp, r, gerr->message, NULL);
                                return r;
                        }
                        cur = fresh;
                }
                switch (check_and_decrement(s, ns, json_path_string(pod, "metadata.name"), cur, dry,
                                            resp)) {
                case DECREMENT_DONE:
                        return 0;
                case DECREMENT_RESPONDED:
                        return -EAGAIN;
                case DECREMENT_CONFLICT:
                        break;
                }
        }
        {
                /* K8S: wait.ErrWaitTimeout becomes NewTimeoutError(..., 10) */
                cleanup_free char *msg = xasprintf(
                        "couldn't update PodDisruptionBudget \"%s\" due to conflicts", name);
                status_respond(resp, ETIMEDOUT, msg, json_pack("{s:i}", "retryAfterSeconds", 10));
        }
        return -ETIMEDOUT;
}

/* K8S: propagateDryRun: dryRun from the query or from the Eviction's deleteOptions. */
static bool eviction_dry_run(const struct http_request *req, const json_t *opts)
{
        const char *q = http_request_query(req, "dryRun");
        size_t i;
        json_t *v;

        if (q && streq(q, "All"))
                return true;
        json_array_foreach(json_object_get(opts, "dryRun"), i, v) {
                if (json_is_string(v) && streq(json_string_value(v), "All"))
                        return true;
        }
        return false;
}

/* Deletes pod as DELETE would, with opts; the pod's own resourceVersion as a precondition when
 * enforce_rv. Returns -ESTALE on a conflict (nothing written to resp), < 0 with resp written on
 * another failure, 0 when deleted (nothing written). */
static int delete_pod(struct apiserver *s, const struct api_target *t,
                      const struct http_request *req, struct http_response *resp, const json_t *pod,
                      const struct delete_options *opts, bool enforce_rv)
{
        struct delete_options o = *opts;
        int r;

        if (enforce_rv && !o.rv)
                o.rv = json_path_string(pod, "metadata.resourceVersion");
        r = registry_delete_object(s, t, req, resp, pod, &o);
        if (r == -ESTALE)
                return r;
        if (resp->status == 409) {
                /* a precondition of ours that failed is a conflict to retry */
                if (enforce_rv && !opts->rv && !opts->uid) {
                        http_response_release(resp);
                        http_response_init(resp);
                        return -ESTALE;
                }
                return -EEXIST;
        }
        return resp->status ? -EIO : 0;
}

void registry_evict(struct apiserver *s, const struct api_target *t, const struct http_request *req,
                    struct http_response *resp)
{
        cleanup_json json_t *body = registry_parse_body(req, resp, "couldn't decode Eviction");
        cleanup_error struct error *err = NULL;
        cleanup_json json_t *pod = NULL;
        cleanup_free char *pdb_name = NULL;
        const char *kind, *api_version;
        const json_t *opts;
        struct delete_options o = { .grace = -1 };
        bool dry, enforce_rv = false, deleted = false;
        int r = 0;

        if (!body)
                return;
        kind = json_string_value(json_object_get(body, "kind"));
        api_version = json_string_value(json_object_get(body, "apiVersion"));
        /* K8S: AcceptsGroupVersion: policy/v1 and policy/v1beta1 Evictions */
        if (!json_is_object(body) || (kind && !streq(kind, "Eviction")) ||
            (api_version && !streq(api_version, "policy/v1") &&
             !streq(api_version, "policy/v1beta1"))) {
                cleanup_free char *msg =
                        xasprintf("not a Eviction object: %s/%s", api_version ?: "", kind ?: "");
                status_respond(resp, EINVAL, msg, NULL);
                return;
        }
        /* K8S: the body decodes into a policy.Eviction (unknown fields dropped, as the
         * default Warn field validation leaves them) */
        if (schema_check(&schema_eviction, body, "", NULL, &err) < 0) {
                const char *slash = api_version ? strchr(api_version, '/') : NULL;
                cleanup_free char *msg =
                        xasprintf("Eviction in version \"%s\" cannot be handled as a Eviction: %s",
                                  slash ? slash + 1 : "v1", err->message);
                status_respond(resp, EINVAL, msg, NULL);
                return;
        }
        /* K8S: the mutating admission chain (NodeRestriction) runs before EvictionREST.Create */
        if (node_restriction_admit(s->store, t, NODE_RESTRICTION_CREATE, body, NULL, resp) < 0)
                return;
        if (!streq(json_path_string(body, "metadata.name") ?: "", t->name)) {
                status_respond(resp, EINVAL, "name in URL does not match name in Eviction object",
                               NULL);
                return;
        }
        opts = json_object_get(body, "deleteOptions");
        if (json_is_integer(json_object_get(opts, "gracePeriodSeconds")))
                o.grace = json_integer_value(json_object_get(opts, "gracePeriodSeconds"));
        o.uid = json_path_string(opts, "preconditions.uid");
        o.rv = json_path_string(opts, "preconditions.resourceVersion");
        dry = eviction_dry_run(req, opts);

        /* K8S: a conflict is retried unless the client gave its own resourceVersion */
        for (int attempt = 0; attempt < EVICTION_RETRIES; attempt++) {
                cleanup_error struct error *gerr = NULL;

                json_decref(pod);
                pod = NULL;
                r = store_get(s->store, "pods", t->ns, t->name, &pod, &gerr);
                if (r == -ENOENT) {
                        status_not_found(resp, t->res, t->name);
                        return;
                }
                if (r < 0) {
                        status_respond(resp, r, gerr->message, NULL);
                        return;
                }
                if (!can_ignore_pdb(pod))
                        break;
                if (dry) {
                        respond_success(resp);
                        return;
                }
                r = delete_pod(s, t, req, resp, pod, &o, should_enforce_rv(pod));
                if (r == 0) {
                        deleted = true;
                        break;
                }
                if (r != -ESTALE || o.rv)
                        break;
        }
        if (r == -ESTALE) {
                status_conflict(resp, t->res, t->name, CONFLICT_MODIFIED);
                return;
        }
        if (r < 0)
                return; /* resp holds the failure */
        if (deleted) {
                respond_success(resp);
                return;
        }
        if (take_budget(s, t->ns, pod, dry, resp, &enforce_rv, &pdb_name) < 0)
                return;
        if (dry) {
                respond_success(resp);
                return;
        }
        r = delete_pod(s, t, req, resp, pod, &o, enforce_rv);
        if (r == -ESTALE && enforce_rv && !o.rv) {
                /* K8S: the pod changed since its readiness was judged: the client retries */
                respond_being_processed(resp, pdb_name ?: "");
                return;
        }
        if (r == -ESTALE) {
                status_conflict(resp, t->res, t->name, CONFLICT_MODIFIED);
                return;
        }
        if (r == 0)
                respond_success(resp);
}
