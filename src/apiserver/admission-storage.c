/* admission-storage.c: DefaultStorageClass, PersistentVolumeClaimResize and
 * StorageObjectInUseProtection (K8S: plugin/pkg/admission/storage/storageclass/setdefault,
 * .../persistentvolume/resize, .../storageobjectinuseprotection, and pkg/volume/util
 * GetDefaultClass), the decisions and the store reads behind them. The claim's
 * own rules (immutability, no request below status.capacity) are validation's, in
 * api/validation-storage.c, and run before the resize check as upstream orders them. */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "api/validation.h"
#include "apiserver/admission-storage.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/quantity.h"
#include "base/timeutil.h"
#include "store/store.h"

static time_t created(const json_t *obj)
{
        const char *ts = json_path_string(obj, "metadata.creationTimestamp");
        time_t t = 0;

        if (ts && time_parse_rfc3339(ts, &t) < 0)
                t = 0;
        return t;
}

const json_t *storage_class_default(const json_t *classes)
{
        const json_t *best = NULL;
        size_t i;
        json_t *sc;

        json_array_foreach(classes, i, sc) {
                if (!storage_class_is_default(sc))
                        continue;
                /* K8S: the newest first, then the name in ascending order */
                if (!best || created(sc) > created(best) ||
                    (created(sc) == created(best) &&
                     strcmp(json_path_string(sc, "metadata.name") ?: "",
                            json_path_string(best, "metadata.name") ?: "") < 0))
                        best = sc;
        }
        return best;
}

bool pvc_default_storage_class(json_t *pvc, const json_t *classes)
{
        const json_t *def;

        if (pvc_has_storage_class(pvc))
                return false;
        def = storage_class_default(classes);
        if (!def)
                return false;
        json_object_set_new(json_object_ensure(pvc, "spec"), "storageClassName",
                            json_string(json_path_string(def, "metadata.name") ?: ""));
        return true;
}

/* The claim's storage request; an absent or unparsable one is zero (a missing map key in Go). */
static void request(const json_t *pvc, struct quantity *ret)
{
        const json_t *v = json_path(pvc, "spec.resources.requests.storage");
        const char *s = json_string_value(v);

        if (s && quantity_parse(s, ret, NULL) == 0)
                return;
        quantity_from_int64(json_is_integer(v) ? json_integer_value(v) : 0, QUANTITY_BINARY_SI,
                            ret);
}

int pvc_resize_admit(const json_t *new_pvc, const json_t *old_pvc, const json_t *sc,
                     struct error **reterr)
{
        const char *phase = json_path_string(old_pvc, "status.phase");
        const char *cls = pvc_storage_class(new_pvc), *old_cls = pvc_storage_class(old_pvc);
        struct quantity n, o;

        request(new_pvc, &n);
        request(old_pvc, &o);
        if (quantity_cmp(&n, &o) <= 0)
                return 0;
        if (!phase || !streq(phase, "Bound"))
                return error_set(reterr, EPERM,
                                 "Only bound persistent volume claims can be expanded");
        /* K8S: allowResize: growing is only for claims whose class explicitly allows it */
        if (!cls[0] || !old_cls[0] || !streq(cls, old_cls) || !sc ||
            !json_is_true(json_object_get(sc, "allowVolumeExpansion")))
                return error_set(reterr, EPERM,
                                 "only dynamically provisioned pvc can be resized and the "
                                 "storageclass that provisions the pvc must support resize");
        return 0;
}

bool storage_object_protect(json_t *obj, const char *finalizer)
{
        json_t *meta = json_object_ensure(obj, "metadata");
        json_t *list = json_object_get(meta, "finalizers");
        size_t i;
        json_t *f;

        json_array_foreach(list, i, f) {
                if (streq(json_string_value(f) ?: "", finalizer))
                        return false;
        }
        if (!json_is_array(list)) {
                list = json_array();
                json_object_set_new(meta, "finalizers", list);
        }
        json_array_append_new(list, json_string(finalizer));
        return true;
}

int pvc_admit(struct store *store, enum api_subresource sub, json_t *pvc, const json_t *old,
              struct error **reterr)
{
        cleanup_json json_t *classes = NULL;
        cleanup_error struct error *err = NULL;
        uint64_t rv;
        int r;

        /* K8S: StorageObjectInUseProtection, on creates of the claim itself */
        if (!old && sub == API_SUB_NONE)
                (void) storage_object_protect(pvc, PVC_PROTECTION_FINALIZER);
        /* K8S: DefaultStorageClass handles creates of the claim itself only */
        if (old || sub != API_SUB_NONE || pvc_has_storage_class(pvc))
                return 0;
        r = store_list(store, "storageclasses", NULL, &classes, &rv, &err);
        if (r < 0)
                return error_set(reterr, EPERM, "%s", err ? err->message : strerror(-r));
        (void) pvc_default_storage_class(pvc, classes);
        return 0;
}

int pvc_admit_validate(struct store *store, enum api_subresource sub, const json_t *pvc,
                       const json_t *old, struct error **reterr)
{
        cleanup_json json_t *sc = NULL;
        const char *cls = pvc_storage_class(pvc);

        /* K8S: PersistentVolumeClaimResize handles updates of the claim itself only */
        if (!old || sub != API_SUB_NONE)
                return 0;
        if (cls[0] && store_get(store, "storageclasses", "", cls, &sc, NULL) < 0)
                sc = NULL;
        return pvc_resize_admit(pvc, old, sc, reterr);
}

int pv_admit(struct store *store, enum api_subresource sub, json_t *pv, const json_t *old,
             struct error **reterr)
{
        /* K8S: StorageObjectInUseProtection handles creates of the volume itself only */
        if (!old && sub == API_SUB_NONE)
                (void) storage_object_protect(pv, PV_PROTECTION_FINALIZER);
        return 0;
}
