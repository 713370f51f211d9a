/* admission-limitranger.c: when the LimitRanger plugin runs (K8S: SupportsAttributes,
 * runLimitFunc, GetLimitRanges) and how its refusals read; the decisions themselves are
 * api/limitranger.c's. Upstream reads LimitRanges from an informer with a live lookup behind
 * it; flexlet reads the store, which is never stale. */
#include <errno.h>
#include <string.h>

#include "api/limitrange.h"
#include "api/validation.h"
#include "apiserver/admission-limitranger.h"
#include "base/json.h"
#include "store/store.h"

enum lr_kind {
        LR_POD,
        LR_PVC,
};

/* K8S: DefaultLimitRangerActions.SupportsAttributes and runLimitFunc's deletion check. */
static bool supported(enum lr_kind kind, enum api_subresource sub, const json_t *old)
{
        if (old && json_path(old, "metadata.deletionTimestamp"))
                return false;
        if (kind == LR_POD && sub == API_SUB_RESIZE && old)
                return true;
        if (sub != API_SUB_NONE)
                return false;
        /* K8S: containers cannot be added or changed by a pod update: nothing to limit */
        return kind == LR_PVC || !old;
}

/* The LimitRanges of obj's namespace (a JSON array), or -EPERM with upstream's message. */
static int limit_ranges(struct store *store, enum lr_kind kind, const json_t *obj,
                        const json_t *old, json_t **ret, struct error **reterr)
{
        const char *ns = json_path_string_or_empty(obj, "metadata.namespace");
        uint64_t rv;

        /* K8S: from the LimitRange informer's cache */
        if (store_list_cached(store, "limitranges", ns, ret, &rv, NULL) < 0)
                return error_set(reterr, EPERM,
                                 "unable to %s /v1, Resource=%s at this time because there was "
                                 "an error enforcing limit ranges",
                                 old ? "UPDATE" : "CREATE",
                                 kind == LR_POD ? "pods" : "persistentvolumeclaims");
        return 0;
}

int limit_ranger_pod_admit(struct store *store, enum api_subresource sub, json_t *pod,
                           const json_t *old, struct error **reterr)
{
        cleanup_json json_t *items = NULL;
        bool any = false;
        size_t i;
        json_t *lr;
        int r;

        if (!supported(LR_POD, sub, old))
                return 0;
        r = limit_ranges(store, LR_POD, pod, old, &items, reterr);
        if (r < 0)
                return r;
        json_array_foreach(items, i, lr) {
                /* K8S: podResizeStrategy keeps the stored metadata: no annotation on resize */
                any |= limit_range_pod_defaults(pod, lr, sub == API_SUB_NONE);
        }
        /* K8S: PrepareForCreate sets the QoS class after admission; flexlet's ran before */
        if (any && !old)
                json_object_set_new(json_object_ensure(pod, "status"), "qosClass",
                                    json_string(pod_qos_class(pod)));
        return 0;
}

static int validate(enum lr_kind kind, struct store *store, enum api_subresource sub,
                    const json_t *obj, const json_t *old, struct error **reterr)
{
        cleanup_json json_t *items = NULL;
        size_t i;
        json_t *lr;
        int r;

        if (!supported(kind, sub, old))
                return 0;
        r = limit_ranges(store, kind, obj, old, &items, reterr);
        if (r < 0)
                return r;
        json_array_foreach(items, i, lr) {
                cleanup_json json_t *msgs = json_array();
                cleanup_free char *msg = NULL;
                if (kind == LR_POD)
                        (void) limit_range_pod_check(obj, lr, msgs);
                else
                        (void) limit_range_pvc_check(obj, lr, msgs);
                msg = limit_range_aggregate(msgs);
                if (msg)
                        return error_set(reterr, EPERM, "%s", msg);
        }
        return 0;
}

int limit_ranger_pod_validate(struct store *store, enum api_subresource sub, const json_t *pod,
                              const json_t *old, struct error **reterr)
{
        return validate(LR_POD, store, sub, pod, old, reterr);
}

int limit_ranger_pvc_validate(struct store *store, enum api_subresource sub, const json_t *pvc,
                              const json_t *old, struct error **reterr)
{
        return validate(LR_PVC, store, sub, pvc, old, reterr);
}
