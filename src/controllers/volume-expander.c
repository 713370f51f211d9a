/* volume-expander.c: grows local-loop volumes when their claims ask for more: the pure plan
 * (expandAndRecover), the status transitions, and the pass that runs them in order: mark the
 * claim, grow the file and device (through the pv_driver, for the node in this process only),
 * set the volume's capacity, hand over to the node. A volume of another node is expanded as
 * external-resizer's trivial resizer does for a driver without controller expansion: the
 * capacity is written and the node grows the file, device and filesystem (pod-claims.c). It
 * never touches a filesystem and never shrinks anything. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/local-volume.h"
#include "api/validation.h"
#include "base/alloc.h"
#include "base/fault.h"
#include "base/json.h"
#include "base/quantity.h"
#include "base/timeutil.h"
#include "client/event.h"
#include "controllers/controller-loop.h"
#include "controllers/pv-driver.h"
#include "controllers/pv-provisioner.h"
#include "controllers/volume-expander.h"

#define PASS_PERIOD_MS    2000
#define BACKOFF_MIN_MS    1000
#define BACKOFF_MAX_MS    (5 * 60 * 1000)
#define RESIZER_COMPONENT "external-resizer " PV_LOCAL_LOOP_DRIVER
#define EXPAND_COMPONENT  "volume_expand"

static const char *storage_of(const json_t *obj, const char *path)
{
        return json_string_value(json_object_get(json_path(obj, path), "storage"));
}

/* Compares two quantity strings; a missing or bad one counts as zero (upstream's zero
 * Quantity of a missing map key). */
static int qty_cmp(const char *a, const char *b)
{
        struct quantity qa, qb;

        if (!a || quantity_parse(a, &qa, NULL) < 0)
                quantity_from_int64(0, QUANTITY_BINARY_SI, &qa);
        if (!b || quantity_parse(b, &qb, NULL) < 0)
                quantity_from_int64(0, QUANTITY_BINARY_SI, &qb);
        return quantity_cmp(&qa, &qb);
}

bool volume_expander_claim_needs_resize(const json_t *pvc)
{
        if (!streq(json_path_string_or_empty(pvc, "status.phase"), "Bound") ||
            !*json_path_string_or_empty(pvc, "spec.volumeName"))
                return false;
        return qty_cmp(storage_of(pvc, "spec.resources.requests"),
                       storage_of(pvc, "status.capacity")) > 0;
}

static const char *const step_names[VOLUME_EXPAND_STEP_MAX] = {
        [VOLUME_EXPAND_NOTHING] = "Nothing",
        [VOLUME_EXPAND_GROW] = "Grow",
        [VOLUME_EXPAND_WAIT] = "Wait",
};

const char *volume_expand_step_to_string(enum volume_expand_step s)
{
        return (unsigned) s < VOLUME_EXPAND_STEP_MAX ? step_names[s] : NULL;
}

static bool has_true_condition(const json_t *pvc, const char *type)
{
        size_t i;
        json_t *c;

        json_array_foreach(json_path(pvc, "status.conditions"), i, c) {
                if (streq(json_path_string_or_empty(c, "type"), type) &&
                    streq(json_path_string_or_empty(c, "status"), "True"))
                        return true;
        }
        return false;
}

int volume_expander_plan(const struct volume_expand_input *in, struct volume_expand_plan *ret)
{
        const json_t *pvc = in->pvc, *pv = in->pv;
        const char *spec = storage_of(pvc, "spec.resources.requests");
        const char *pv_size = storage_of(pv, "spec.capacity");
        const char *allocated = storage_of(pvc, "status.allocatedResources");
        const char *status = json_string_value(
                json_object_get(json_path(pvc, "status.allocatedResourceStatuses"), "storage"));
        const char *size = spec;
        struct quantity q;
        int64_t bytes;

        *ret = (struct volume_expand_plan){ .step = VOLUME_EXPAND_NOTHING };
        status = status ?: "";
        /* K8S pvCanBeExpanded: the resizer supports the volume, which is bound to this claim */
        if (!streq(json_path_string_or_empty(pv, "spec.csi.driver"), PV_LOCAL_LOOP_DRIVER) ||
            !json_path(pv, "spec.claimRef") ||
            !streq(json_path_string_or_empty(pv, "spec.claimRef.namespace"),
                   json_path_string_or_empty(pvc, "metadata.namespace")) ||
            !streq(json_path_string_or_empty(pv, "spec.claimRef.uid"),
                   json_path_string_or_empty(pvc, "metadata.uid")))
                return 0;
        /* flexlet: only while the class allows expansion (admission checked it when the
         * request grew; a class that stopped allowing it stops its expansions too) */
        if (!in->sc || !json_is_true(json_object_get(in->sc, "allowVolumeExpansion")))
                return 0;
        if (!spec)
                return -EINVAL;
        if (qty_cmp(pv_size, spec) < 0) {
                /* the volume is smaller than asked: expand, but let an expansion under way
                 * finish first */
                if (streq(status, PVC_NODE_RESIZE_INFEASIBLE)) {
                        if (allocated)
                                size = allocated;
                } else if (streq(status, PVC_NODE_RESIZE_PENDING) ||
                           streq(status, PVC_NODE_RESIZE_IN_PROGRESS)) {
                        if (allocated)
                                size = allocated;
                        if (qty_cmp(pv_size, size) >= 0)
                                return 0; /* the node's turn */
                } else if (streq(status, PVC_CONTROLLER_RESIZE_IN_PROGRESS)) {
                        /* KEP-1790: after a final error the (maybe lowered) request wins; an
                         * uncertain one must finish at the size it started with */
                        if (!in->final_error && allocated)
                                size = allocated;
                }
        } else {
                /* the volume is already as large as asked */
                if (streq(status, PVC_NODE_RESIZE_IN_PROGRESS) ||
                    streq(status, PVC_NODE_RESIZE_PENDING))
                        return 0; /* a spurious event: the node's turn */
                if (streq(status, PVC_NODE_RESIZE_INFEASIBLE) ||
                    streq(status, PVC_CONTROLLER_RESIZE_IN_PROGRESS) ||
                    streq(status, PVC_CONTROLLER_RESIZE_INFEASIBLE)) {
                        /* the driver expands in the control plane: resume at allocated (also
                         * after a crash between growing the volume and recording it) */
                        if (allocated)
                                size = allocated;
                } else if (!*status && allocated) {
                        size = allocated;
                } else if (has_true_condition(pvc, PVC_COND_FILE_SYSTEM_RESIZE_PENDING)) {
                        return 0;
                }
        }
        if (quantity_parse(size, &q, NULL) < 0 || quantity_value(&q, &bytes) < 0 || bytes <= 0)
                return -EINVAL;
        ret->size = size;
        ret->size_bytes = bytes;
        ret->grow_to = in->file_bytes > bytes ? in->file_bytes : bytes;
        ret->mark = true;
        if (allocated && qty_cmp(allocated, size) == 0) {
                if (in->slow) {
                        ret->step = VOLUME_EXPAND_WAIT;
                        return 0;
                }
                ret->mark = false;
        }
        ret->step = VOLUME_EXPAND_GROW;
        return 0;
}

enum volume_expand_error volume_expander_classify(int errnum)
{
        switch (errnum) {
        case EINVAL:
        case ERANGE:
        case EFBIG:
        case EOVERFLOW:
        case ENOENT:
                return VOLUME_EXPAND_ERROR_INFEASIBLE;
        case EAGAIN:
        case EINTR:
        case EBUSY:
        case ETIMEDOUT:
        case ENOSPC:
        case EDQUOT:
                return VOLUME_EXPAND_ERROR_TRANSIENT;
        default:
                return VOLUME_EXPAND_ERROR_FINAL;
        }
}

static bool is_resize_condition(const char *type)
{
        return streq(type, PVC_COND_RESIZING) || streq(type, PVC_COND_FILE_SYSTEM_RESIZE_PENDING) ||
               streq(type, PVC_COND_CONTROLLER_RESIZE_ERROR) ||
               streq(type, PVC_COND_NODE_RESIZE_ERROR);
}

json_t *volume_expander_merge_conditions(const json_t *old, const json_t *add, bool keep_old)
{
        json_t *out = json_array();
        cleanup_json json_t *left = json_object(); /* type -> condition not placed yet */
        size_t i;
        json_t *c;

        json_array_foreach(add, i, c) {
                json_object_set(left, json_path_string_or_empty(c, "type"), c);
        }
        json_array_foreach(old, i, c) {
                const char *type = json_path_string_or_empty(c, "type");
                json_t *replacement = json_object_get(left, type);

                if (!is_resize_condition(type)) {
                        json_array_append(out, c);
                } else if (replacement) {
                        json_array_append(out, replacement);
                        json_object_del(left, type);
                } else if (keep_old) {
                        json_array_append(out, c);
                }
        }
        json_array_foreach(add, i, c) {
                if (json_object_get(left, json_path_string_or_empty(c, "type")))
                        json_array_append(out, c);
        }
        return out;
}

/* A condition as upstream serializes one: status True, lastProbeTime null, the transition
 * time, and a message when there is one. */
static json_t *condition(const char *type, const char *message, const char *now)
{
        json_t *c = json_pack("{s:s, s:s, s:n, s:s}", "type", type, "status", "True",
                              "lastProbeTime", "lastTransitionTime", now);
        if (message)
                json_object_set_new(c, "message", json_string(message));
        return c;
}

/* A deep copy of pvc whose status conditions are merged with the one condition c (stolen). */
static json_t *with_condition(const json_t *pvc, json_t *c, bool keep_old)
{
        json_t *copy = json_deep_copy(pvc);
        json_t *status = json_object_ensure(copy, "status");
        cleanup_json json_t *add = json_pack("[o]", c);

        json_object_set_new(status, "conditions",
                            volume_expander_merge_conditions(json_object_get(status, "conditions"),
                                                             add, keep_old));
        return copy;
}

static void set_storage(json_t *pvc, const char *field, const char *value)
{
        json_object_set_new(json_object_ensure(json_object_ensure(pvc, "status"), field), "storage",
                            json_string(value));
}

json_t *volume_expander_mark_in_progress(const json_t *pvc, const char *size, bool mark,
                                         const char *now)
{
        json_t *copy = with_condition(pvc, condition(PVC_COND_RESIZING, NULL, now), !mark);

        if (mark)
                set_storage(copy, "allocatedResourceStatuses", PVC_CONTROLLER_RESIZE_IN_PROGRESS);
        set_storage(copy, "allocatedResources", size);
        return copy;
}

json_t *volume_expander_mark_node_pending(const json_t *pvc, const char *now)
{
        json_t *copy = with_condition(
                pvc,
                condition(PVC_COND_FILE_SYSTEM_RESIZE_PENDING, PVC_FS_RESIZE_PENDING_MESSAGE, now),
                true);

        set_storage(copy, "allocatedResourceStatuses", PVC_NODE_RESIZE_PENDING);
        return copy;
}

json_t *volume_expander_mark_failed(const json_t *pvc, const char *message, bool infeasible,
                                    const char *now)
{
        cleanup_free char *text = xasprintf("failed to expand pvc with %s", message);
        json_t *copy =
                with_condition(pvc, condition(PVC_COND_CONTROLLER_RESIZE_ERROR, text, now), true);

        if (infeasible)
                set_storage(copy, "allocatedResourceStatuses", PVC_CONTROLLER_RESIZE_INFEASIBLE);
        return copy;
}

/* ---- the controller ---- */

enum { COLL_CLAIMS, COLL_VOLUMES, COLL_CLASSES };

struct volume_expander {
        struct pv_driver driver; /* .node NULL: no node in this process */
        struct controller_loop loop;
        /* pass thread only, by claim uid: */
        json_t *final_errors; /* uid -> true: the last attempt ended in a final error */
        json_t *slow;         /* uid -> monotonic ms until which an infeasible size waits */
        json_t *backoff;      /* uid -> controller_backoff_* state after a failed attempt */
        json_t *told;         /* uid -> the request ExternalExpanding was told for */
};

static void log_failure(const json_t *pvc, const char *message)
{
        cleanup_free char *key = informer_key(pvc);
        (void) fprintf(stderr, "flexlet: volume-expander: claim \"%s\": %s\n", key, message);
}

static char *claim_status_path(const json_t *pvc)
{
        return xasprintf("/api/v1/namespaces/%s/persistentvolumeclaims/%s/status",
                         json_path_string_or_empty(pvc, "metadata.namespace"),
                         json_path_string_or_empty(pvc, "metadata.name"));
}

/* PUTs obj to path. 0 and *ret (the answer, also stored in the cache) on 200, -EAGAIN on 409
 * Conflict, -EIO (with the server's words in *reterr) on anything else. */
static int put(struct volume_expander *x, size_t coll, const char *path, const json_t *obj,
               json_t **ret, struct error **reterr)
{
        cleanup_free char *body = json_dump_compact(obj);
        cleanup_json json_t *resp = NULL;
        long code = 0;
        int r;

        r = api_client_request(x->loop.client, "PUT", path, "application/json", body, strlen(body),
                               &code, &resp, reterr);
        if (r < 0)
                return r;
        if (code == 409)
                return error_set(reterr, EAGAIN, "update \"%s\": conflict", path);
        if (code != 200)
                return error_set(reterr, EIO, "update \"%s\": HTTP %ld: %s", path, code,
                                 json_string_value(json_object_get(resp, "message")) ?: "");
        informer_store(x->loop.watch, coll, resp);
        if (ret)
                *ret = TAKE_PTR(resp);
        return 0;
}

/* Writes a claim's status without the resourceVersion check (upstream patches failures
 * without it): on a conflict the newest claim is read and changed again, once. */
static int put_claim_status_anyway(struct volume_expander *x, const json_t *pvc,
                                   json_t *(*change)(const json_t *, const char *, bool,
                                                     const char *),
                                   const char *message, bool flag, const char *now)
{
        cleanup_free char *path = claim_status_path(pvc);
        cleanup_json json_t *next = change(pvc, message, flag, now);
        int r = put(x, COLL_CLAIMS, path, next, NULL, NULL);

        if (r == -EAGAIN) {
                cleanup_free char *get =
                        xasprintf("/api/v1/namespaces/%s/persistentvolumeclaims/%s",
                                  json_path_string_or_empty(pvc, "metadata.namespace"),
                                  json_path_string_or_empty(pvc, "metadata.name"));
                cleanup_json json_t *fresh = NULL, *again = NULL;
                long code = 0;

                if (api_client_request(x->loop.client, "GET", get, NULL, NULL, 0, &code, &fresh,
                                       NULL) < 0 ||
                    code != 200)
                        return -EIO;
                again = change(fresh, message, flag, now);
                r = put(x, COLL_CLAIMS, path, again, NULL, NULL);
        }
        return r;
}

static const char *request_of(const json_t *pvc)
{
        return storage_of(pvc, "spec.resources.requests") ?: "";
}

/* A failed claim waits (1 s doubling to 5 min) unless its request changed since: K8S an update
 * event requeues a claim at once, past its rate limit. */
static bool backing_off(struct volume_expander *x, const json_t *pvc)
{
        return controller_backoff_waiting(
                x->backoff, json_path_string_or_empty(pvc, "metadata.uid"), request_of(pvc));
}

static void back_off(struct volume_expander *x, const json_t *pvc)
{
        controller_backoff_failed(x->backoff, json_path_string_or_empty(pvc, "metadata.uid"),
                                  request_of(pvc), BACKOFF_MIN_MS, BACKOFF_MAX_MS);
}

static void resize_failed(struct volume_expander *x, const json_t *pvc, const char *message)
{
        log_failure(pvc, message);
        (void) api_client_event(x->loop.client, pvc, "Warning", "VolumeResizeFailed", message,
                                RESIZER_COMPONENT, NULL, NULL);
        back_off(x, pvc);
}

/* The controller expansion of one claim, step by step; each step that fails leaves the objects
 * as a later pass will pick them up. */
static void expand(struct volume_expander *x, const json_t *pvc, const json_t *pv, bool local,
                   const struct volume_expand_plan *plan)
{
        cleanup_error struct error *err = NULL;
        cleanup_json json_t *marked = NULL, *next = NULL, *pv_copy = NULL;
        cleanup_free char *path = claim_status_path(pvc), *msg = NULL, *capacity = NULL,
                          *pv_path = NULL;
        const char *uid = json_path_string_or_empty(pvc, "metadata.uid");
        const char *pv_name = json_path_string_or_empty(pv, "metadata.name");
        const char *handle = json_path_string_or_empty(pv, "spec.csi.volumeHandle");
        cleanup_free char *file = local_volume_file("", handle); /* NULL: not a safe name */
        int64_t file_bytes = 0;
        struct quantity q;
        char now[32];
        int r;

        time_format_rfc3339(time(NULL), now);
        /* 1. K8S markControllerResizeInProgress (with the resourceVersion: a claim that changed
         * meanwhile is decided again) */
        next = volume_expander_mark_in_progress(pvc, plan->size, plan->mark, now);
        if (json_equal(next, (json_t *) pvc)) {
                marked = json_incref((json_t *) pvc);
        } else if (put(x, COLL_CLAIMS, path, next, &marked, &err) < 0) {
                if (err->errnum != EAGAIN)
                        log_failure(pvc, err->message);
                return;
        }
        msg = xasprintf("External resizer is resizing volume %s", pv_name);
        (void) api_client_event(x->loop.client, marked, "Normal", "Resizing", msg,
                                RESIZER_COMPONENT, NULL, NULL);

        /* 2. the node in this process: the file, then the loop device when attached
         * (idempotent: a file grown before a crash is just brought to the device); another
         * node grows them itself once handed over (K8S external-resizer's trivialResizer) */
        r = 0;
        if (!file)
                r = error_set(&err, EINVAL, "volume handle \"%s\" is not a file name", handle);
        else if (plan->grow_to > PV_LOCAL_LOOP_SIZE_MAX)
                r = error_set(&err, EINVAL,
                              "grow volume \"%s\": %" PRId64
                              " bytes is more than the largest volume, 16Ti",
                              handle, plan->grow_to);
        else if (local)
                r = x->driver.grow(x->driver.ud, handle, plan->grow_to, &file_bytes, &err);
        else
                file_bytes = pv_round_up(plan->grow_to);
        if (r < 0) {
                enum volume_expand_error kind = volume_expander_classify(-r);

                if (kind == VOLUME_EXPAND_ERROR_TRANSIENT) {
                        json_object_del(x->final_errors, uid);
                } else {
                        json_object_set_new(x->final_errors, uid, json_true());
                        (void) put_claim_status_anyway(x, marked, volume_expander_mark_failed,
                                                       err->message,
                                                       kind == VOLUME_EXPAND_ERROR_INFEASIBLE, now);
                }
                free(msg);
                msg = xasprintf("resize volume \"%s\" by resizer \"%s\" failed: %s", pv_name,
                                PV_LOCAL_LOOP_DRIVER, err->message);
                resize_failed(x, marked, msg);
                return;
        }
        json_object_del(x->final_errors, uid);
        json_object_del(x->slow, uid);
        fault_point("volume-expander-grown");

        /* 3. the volume's capacity: what the file now holds (K8S: the driver's answer) */
        quantity_from_int64(file_bytes, QUANTITY_BINARY_SI, &q);
        capacity = quantity_format(&q);
        if (qty_cmp(storage_of(pv, "spec.capacity"), capacity) != 0) {
                pv_copy = json_deep_copy(pv);
                json_object_set_new(
                        json_object_ensure(json_object_ensure(pv_copy, "spec"), "capacity"),
                        "storage", json_string(capacity));
                pv_path = xasprintf("/api/v1/persistentvolumes/%s", pv_name);
                if (put(x, COLL_VOLUMES, pv_path, pv_copy, NULL, &err) < 0) {
                        free(msg);
                        msg = xasprintf("error updating pv \"%s\" by resizer: %s", pv_name,
                                        err->message);
                        resize_failed(x, marked, msg);
                        return;
                }
        }
        fault_point("volume-expander-pv-updated");

        /* 4. K8S markForPendingNodeExpansion: the node grows the filesystem */
        json_decref(next);
        next = volume_expander_mark_node_pending(marked, now);
        if (put(x, COLL_CLAIMS, path, next, NULL, &err) < 0) {
                if (err->errnum != EAGAIN)
                        log_failure(pvc, err->message);
                return;
        }
        json_object_del(x->backoff, uid);
        (void) api_client_event(x->loop.client, marked, "Normal", "FileSystemResizeRequired",
                                "Require file system resize of volume on node", RESIZER_COMPONENT,
                                NULL, NULL);
}

static void sync_claim(struct volume_expander *x, const json_t *pvc, const json_t *volumes,
                       const json_t *classes)
{
        const char *uid = json_path_string_or_empty(pvc, "metadata.uid");
        const char *request = request_of(pvc);
        const json_t *pv =
                json_object_get(volumes, json_path_string_or_empty(pvc, "spec.volumeName"));
        const char *cls = pvc_storage_class(pvc) ?: "";
        const json_t *slow = json_object_get(x->slow, uid);
        bool local;
        struct volume_expand_input in = {
                .pvc = pvc,
                .pv = pv,
                .sc = *cls ? json_object_get(classes, cls) : NULL,
                .file_bytes = -1,
                .final_error = json_object_get(x->final_errors, uid) != NULL,
                .slow = slow && time_monotonic_ms() < json_integer_value(slow),
        };
        struct volume_expand_plan plan;
        int64_t file_bytes = 0;

        if (!volume_expander_claim_needs_resize(pvc) || !pv ||
            json_path(pvc, "metadata.deletionTimestamp"))
                return;
        /* K8S expand controller: a CSI volume is expanded by an external resizer, which
         * flexlet's is; told once per request */
        if (json_path(pv, "spec.csi") &&
            !streq(json_string_value(json_object_get(x->told, uid)) ?: "", request)) {
                json_object_set_new(x->told, uid, json_string(request));
                (void) api_client_event(x->loop.client, pvc, "Warning", "ExternalExpanding",
                                        "waiting for an external controller to expand this PVC",
                                        EXPAND_COMPONENT, NULL, NULL);
        }
        if (backing_off(x, pvc))
                return;
        /* the volume of the node in this process: its file's size counts (crash safety);
         * an unpinned volume was made before volumes were pinned, by this process */
        local = x->driver.node &&
                (!json_path(pv, "spec.nodeAffinity") || local_volume_pinned_to(pv, x->driver.node));
        if (local && x->driver.file_bytes(x->driver.ud,
                                          json_path_string_or_empty(pv, "spec.csi.volumeHandle"),
                                          &file_bytes) >= 0)
                in.file_bytes = file_bytes;
        if (volume_expander_plan(&in, &plan) < 0)
                return;
        /* K8S markForSlowRetry: an infeasible expansion waits before the same size again */
        if (streq(json_string_value(json_object_get(
                          json_path(pvc, "status.allocatedResourceStatuses"), "storage"))
                          ?: "",
                  PVC_CONTROLLER_RESIZE_INFEASIBLE) &&
            !in.slow)
                json_object_set_new(
                        x->slow, uid,
                        json_integer(time_monotonic_ms() + VOLUME_EXPANDER_SLOW_RETRY_MS));
        if (plan.step == VOLUME_EXPAND_GROW)
                expand(x, pvc, pv, local, &plan);
}

static void forget_gone(json_t *memory, const json_t *uids)
{
        const char *key;
        json_t *v, *tmp;

        json_object_foreach_safe(memory, tmp, key, v)
        {
                if (!json_object_get(uids, key))
                        json_object_del(memory, key);
        }
}

static void expand_pass(void *ctx)
{
        struct volume_expander *x = ctx;
        cleanup_json json_t *claims = informer_snapshot(x->loop.watch, COLL_CLAIMS);
        cleanup_json json_t *volumes = informer_snapshot(x->loop.watch, COLL_VOLUMES);
        cleanup_json json_t *classes = informer_snapshot(x->loop.watch, COLL_CLASSES);
        cleanup_json json_t *uids = json_object();
        const char *key;
        json_t *pvc;

        json_object_foreach(claims, key, pvc) {
                json_object_set_new(uids, json_path_string_or_empty(pvc, "metadata.uid"),
                                    json_true());
                sync_claim(x, pvc, volumes, classes);
        }
        forget_gone(x->final_errors, uids);
        forget_gone(x->slow, uids);
        forget_gone(x->backoff, uids);
        forget_gone(x->told, uids);
}

static void volume_expander_release(void *ctx)
{
        struct volume_expander *x = ctx;

        json_decref(x->final_errors);
        json_decref(x->slow);
        json_decref(x->backoff);
        json_decref(x->told);
        free(x);
}

int volume_expander_start(const struct api_client_options *o, const struct pv_driver *driver,
                          struct volume_expander **ret, struct error **reterr)
{
        static const char *const paths[] = { "/api/v1/persistentvolumeclaims",
                                             "/api/v1/persistentvolumes",
                                             "/apis/storage.k8s.io/v1/storageclasses", NULL };
        const struct controller_loop_def def = { .name = "volume-expander",
                                                 .paths = paths,
                                                 .period_ms = PASS_PERIOD_MS,
                                                 .pass = expand_pass,
                                                 .release = volume_expander_release };
        struct volume_expander *x = xcalloc(1, sizeof(*x));
        int r;

        if (driver)
                x->driver = *driver;
        x->final_errors = json_object();
        x->slow = json_object();
        x->backoff = json_object();
        x->told = json_object();
        r = controller_loop_start(o, &def, x, &x->loop, reterr);
        if (r < 0) {
                volume_expander_release(x);
                return r;
        }
        *ret = x;
        return 0;
}

struct volume_expander *volume_expander_stop(struct volume_expander *x)
{
        /* the pass thread ends after the pass it is in and frees the controller */
        if (x)
                controller_loop_stop(&x->loop);
        return NULL;
}
