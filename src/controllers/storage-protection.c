/* storage-protection.c: the PVC and PV protection controllers: the pure decisions (which pods
 * use a claim, whether a volume is in use, what to do with each object's finalizer) and the pass
 * that carries them out with PUTs carrying the cached resourceVersion. It never deletes anything
 * itself: the API server removes an object whose last finalizer goes. The list + watch cache is
 * an informer (client/informer.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/validation.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/timeutil.h"
#include "controllers/pv-provisioner.h"
#include "controllers/controller-loop.h"
#include "controllers/relevance.h"
#include "controllers/storage-protection.h"

#define PASS_PERIOD_MS 2000
#define BACKOFF_MIN_MS 1000
#define BACKOFF_MAX_MS (5 * 60 * 1000)

enum { COLL_CLAIMS, COLL_VOLUMES, COLL_PODS };

/* K8S podIsShutDown: the kubelet is done with the pod (it asked for deletion with a zero grace
 * period) or the pod was force-deleted. */
static bool pod_is_shut_down(const json_t *pod)
{
        const json_t *grace = json_path(pod, "metadata.deletionGracePeriodSeconds");

        return json_path(pod, "metadata.deletionTimestamp") && json_is_integer(grace) &&
               json_integer_value(grace) == 0;
}

/* K8S ephemeral.VolumeIsForPod (metav1.IsControlledBy): pvc's controller is the pod. */
static bool claim_controlled_by(const json_t *pvc, const json_t *pod)
{
        const char *uid = json_path_string_or_empty(pod, "metadata.uid");
        size_t i;
        json_t *ref;

        json_array_foreach(json_path(pvc, "metadata.ownerReferences"), i, ref) {
                if (json_is_true(json_object_get(ref, "controller")))
                        return *uid && streq(json_path_string_or_empty(ref, "uid"), uid);
        }
        return false;
}

bool storage_protection_pod_uses_claim(const json_t *pod, const json_t *pvc)
{
        const char *name = json_path_string_or_empty(pvc, "metadata.name");
        const char *pod_name = json_path_string_or_empty(pod, "metadata.name");
        size_t i, n = strlen(pod_name);
        json_t *v;

        if (!streq(json_path_string_or_empty(pod, "metadata.namespace"),
                   json_path_string_or_empty(pvc, "metadata.namespace")) ||
            !*json_path_string_or_empty(pod, "spec.nodeName"))
                return false;
        json_array_foreach(json_path(pod, "spec.volumes"), i, v) {
                const char *vol = json_path_string_or_empty(v, "name");

                if (json_object_get(v, "persistentVolumeClaim")) {
                        if (streq(json_path_string_or_empty(v, "persistentVolumeClaim.claimName"),
                                  name))
                                return true;
                        continue;
                }
                /* K8S ephemeral.VolumeClaimName: "<pod>-<volume>" */
                if (json_object_get(v, "ephemeral") && !pod_is_shut_down(pod) &&
                    strncmp(name, pod_name, n) == 0 && name[n] == '-' && streq(name + n + 1, vol) &&
                    claim_controlled_by(pvc, pod))
                        return true;
        }
        return false;
}

const json_t *storage_protection_claim_user(const json_t *pvc, const json_t *pods)
{
        const char *key;
        size_t i;
        json_t *pod;

        if (json_is_array(pods)) {
                json_array_foreach(pods, i, pod) {
                        if (storage_protection_pod_uses_claim(pod, pvc))
                                return pod;
                }
                return NULL;
        }
        json_object_foreach((json_t *) pods, key, pod) {
                if (storage_protection_pod_uses_claim(pod, pvc))
                        return pod;
        }
        return NULL;
}

static const char *const step_names[STORAGE_PROTECTION_STEP_MAX] = {
        [STORAGE_PROTECTION_NOTHING] = "Nothing",
        [STORAGE_PROTECTION_ADD] = "Add",
        [STORAGE_PROTECTION_KEEP] = "Keep",
        [STORAGE_PROTECTION_REMOVE] = "Remove",
};

const char *storage_protection_step_to_string(enum storage_protection_step s)
{
        return (unsigned) s < STORAGE_PROTECTION_STEP_MAX ? step_names[s] : NULL;
}

/* K8S protectionutil.IsDeletionCandidate and NeedToAddFinalizer, with in_use deciding the
 * former. */
static enum storage_protection_step next_step(const json_t *obj, const char *finalizer, bool in_use)
{
        bool deleting = json_path(obj, "metadata.deletionTimestamp") != NULL;
        bool has = json_array_has_string(json_path(obj, "metadata.finalizers"), finalizer);

        if (deleting && has)
                return in_use ? STORAGE_PROTECTION_KEEP : STORAGE_PROTECTION_REMOVE;
        if (!deleting && !has)
                return STORAGE_PROTECTION_ADD;
        return STORAGE_PROTECTION_NOTHING;
}

enum storage_protection_step storage_protection_claim_next(const json_t *pvc, const json_t *pods)
{
        bool deleting = json_path(pvc, "metadata.deletionTimestamp") != NULL;

        /* the pods are only looked at for a claim being deleted */
        return next_step(pvc, PVC_PROTECTION_FINALIZER,
                         deleting && storage_protection_claim_user(pvc, pods) != NULL);
}

enum storage_protection_step storage_protection_volume_next(const json_t *pv)
{
        /* K8S isBeingUsed: the PV controller keeps status.phase; Bound is in use */
        return next_step(pv, PV_PROTECTION_FINALIZER,
                         streq(json_path_string_or_empty(pv, "status.phase"), "Bound"));
}

json_t *storage_protection_set_finalizer(const json_t *obj, const char *finalizer, bool add)
{
        json_t *copy = json_deep_copy(obj);
        json_t *meta = json_object_ensure(copy, "metadata");
        json_t *kept = json_array();
        size_t i;
        json_t *f;

        json_array_foreach(json_object_get(meta, "finalizers"), i, f) {
                if (!streq(json_string_value(f) ?: "", finalizer))
                        json_array_append(kept, f);
        }
        if (add)
                json_array_append_new(kept, json_string(finalizer));
        json_object_set_new(meta, "finalizers", kept);
        return copy;
}

/* ---- the controller ---- */

struct storage_protection {
        struct controller_loop loop;
        json_t *backoff; /* uid -> controller_backoff_* state after a failed write or list */
};

static void log_failure(const json_t *obj, const char *message)
{
        cleanup_free char *key = informer_key(obj);

        (void) fprintf(stderr, "flexlet: storage-protection: %s \"%s\": %s\n",
                       json_path(obj, "metadata.namespace") ? "claim" : "volume", key, message);
}

/* K8S: a failed object is retried with a growing delay (the workqueue's rate limiter); 1 s
 * doubling to 5 min. A conflict is not a failure: the newer object comes with its event. */
static bool backing_off(struct storage_protection *x, const json_t *obj)
{
        return controller_backoff_waiting(x->backoff,
                                          json_path_string_or_empty(obj, "metadata.uid"), NULL);
}

static void failed(struct storage_protection *x, const json_t *obj, const char *message)
{
        log_failure(obj, message);
        controller_backoff_failed(x->backoff, json_path_string_or_empty(obj, "metadata.uid"), NULL,
                                  BACKOFF_MIN_MS, BACKOFF_MAX_MS);
}

static char *object_path(const json_t *obj)
{
        const char *ns = json_path_string(obj, "metadata.namespace");

        if (ns)
                return xasprintf("/api/v1/namespaces/%s/persistentvolumeclaims/%s", ns,
                                 json_path_string_or_empty(obj, "metadata.name"));
        return xasprintf("/api/v1/persistentvolumes/%s",
                         json_path_string_or_empty(obj, "metadata.name"));
}

/* PUTs obj with the finalizer added or removed, with the cached resourceVersion (K8S: the
 * controllers' Update). */
static void write_finalizer(struct storage_protection *x, size_t coll, const json_t *obj,
                            const char *finalizer, bool add)
{
        cleanup_error struct error *err = NULL;
        cleanup_json json_t *next = storage_protection_set_finalizer(obj, finalizer, add);
        cleanup_json json_t *resp = NULL;
        cleanup_free char *path = object_path(obj);
        cleanup_free char *body = json_dump_compact(next);
        cleanup_free char *msg = NULL;
        long code = 0;

        if (api_client_request(x->loop.client, "PUT", path, "application/json", body, strlen(body),
                               &code, &resp, &err) < 0) {
                failed(x, obj, err->message);
                return;
        }
        /* 409: the object changed since the cache saw it; 404: it is gone */
        if (code == 409 || code == 404)
                return;
        if (code != 200) {
                msg = xasprintf("%s finalizer %s: HTTP %ld: %s", add ? "add" : "remove", finalizer,
                                code, json_string_value(json_object_get(resp, "message")) ?: "");
                failed(x, obj, msg);
                return;
        }
        json_object_del(x->backoff, json_path_string_or_empty(obj, "metadata.uid"));
        /* the answer is the object as stored, or as it was last when the write removed it (its
         * DELETED event then clears the cache) */
        if (!json_path(resp, "metadata.deletionTimestamp") ||
            json_array_size(json_path(resp, "metadata.finalizers")) > 0)
                informer_store(x->loop.watch, coll, resp);
}

/* K8S askAPIServer with LazyLivePodList: the pods of ns as the server has them now, listed at
 * most once a pass (live: namespace -> items). Borrowed from live; NULL on failure. */
static const json_t *live_pods(struct storage_protection *x, json_t *live, const char *ns,
                               struct error **reterr)
{
        cleanup_free char *path = NULL;
        cleanup_json json_t *list = NULL;
        const json_t *have = json_object_get(live, ns);
        json_t *items;
        long code = 0;

        if (have)
                return have;
        path = xasprintf("/api/v1/namespaces/%s/pods", ns);
        if (api_client_request(x->loop.client, "GET", path, NULL, NULL, 0, &code, &list, reterr) <
            0)
                return NULL;
        items = json_object_get(list, "items");
        if (code != 200 || !json_is_array(items)) {
                (void) error_set(reterr, EIO, "live list of pods failed: HTTP %ld: %s", code,
                                 json_string_value(json_object_get(list, "message")) ?: "");
                return NULL;
        }
        json_object_set(live, ns, items);
        return items;
}

static void sync_claim(struct storage_protection *x, const json_t *pvc, const json_t *pods,
                       json_t *live)
{
        cleanup_error struct error *err = NULL;
        enum storage_protection_step step = storage_protection_claim_next(pvc, pods);
        const json_t *now;

        if ((step != STORAGE_PROTECTION_ADD && step != STORAGE_PROTECTION_REMOVE) ||
            backing_off(x, pvc))
                return;
        if (step == STORAGE_PROTECTION_REMOVE) {
                /* K8S isBeingUsed: no pod in the cache uses it; it may not have seen a new one
                 * yet, so the server is asked before the claim is let go */
                now = live_pods(x, live, json_path_string_or_empty(pvc, "metadata.namespace"),
                                &err);
                if (!now) {
                        failed(x, pvc, err ? err->message : "live list of pods failed");
                        return;
                }
                if (storage_protection_claim_next(pvc, now) != STORAGE_PROTECTION_REMOVE)
                        return;
        }
        write_finalizer(x, COLL_CLAIMS, pvc, PVC_PROTECTION_FINALIZER,
                        step == STORAGE_PROTECTION_ADD);
}

static void sync_volume(struct storage_protection *x, const json_t *pv)
{
        enum storage_protection_step step = storage_protection_volume_next(pv);

        if ((step != STORAGE_PROTECTION_ADD && step != STORAGE_PROTECTION_REMOVE) ||
            backing_off(x, pv))
                return;
        write_finalizer(x, COLL_VOLUMES, pv, PV_PROTECTION_FINALIZER,
                        step == STORAGE_PROTECTION_ADD);
}

static void protection_pass(void *ctx)
{
        struct storage_protection *x = ctx;
        cleanup_json json_t *claims = informer_snapshot(x->loop.watch, COLL_CLAIMS);
        cleanup_json json_t *volumes = informer_snapshot(x->loop.watch, COLL_VOLUMES);
        cleanup_json json_t *pods = informer_snapshot(x->loop.watch, COLL_PODS);
        cleanup_json json_t *live = json_object(), *uids = json_object();
        const char *key;
        json_t *obj, *tmp;

        json_object_foreach(claims, key, obj) {
                json_object_set_new(uids, json_path_string_or_empty(obj, "metadata.uid"),
                                    json_true());
                sync_claim(x, obj, pods, live);
        }
        json_object_foreach(volumes, key, obj) {
                json_object_set_new(uids, json_path_string_or_empty(obj, "metadata.uid"),
                                    json_true());
                sync_volume(x, obj);
        }
        json_object_foreach_safe(x->backoff, tmp, key, obj)
        {
                if (!json_object_get(uids, key))
                        json_object_del(x->backoff, key);
        }
}

static void storage_protection_release(void *ctx)
{
        struct storage_protection *x = ctx;

        json_decref(x->backoff);
        free(x);
}

int storage_protection_start(const struct api_client_options *o, struct storage_protection **ret,
                             struct error **reterr)
{
        static const char *const paths[] = { "/api/v1/persistentvolumeclaims",
                                             "/api/v1/persistentvolumes", "/api/v1/pods", NULL };
        static const informer_relevant_fn relevant[ARRAY_SIZE(paths) - 1] = {
                [COLL_PODS] = relevance_pod_placement
        };
        const struct controller_loop_def def = { .name = "storage-protect",
                                                 .paths = paths,
                                                 .relevant = relevant,
                                                 .period_ms = PASS_PERIOD_MS,
                                                 .pass = protection_pass,
                                                 .release = storage_protection_release };
        struct storage_protection *x = xcalloc(1, sizeof(*x));
        int r;

        x->backoff = json_object();
        r = controller_loop_start(o, &def, x, &x->loop, reterr);
        if (r < 0) {
                storage_protection_release(x);
                return r;
        }
        *ret = x;
        return 0;
}

struct storage_protection *storage_protection_stop(struct storage_protection *x)
{
        /* the pass thread ends after the pass it is in and frees the controller */
        if (x)
                controller_loop_stop(&x->loop);
        return NULL;
}
