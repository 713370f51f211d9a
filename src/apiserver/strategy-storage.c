/* strategy-storage.c: how storage classes, persistent volumes and persistent volume claims are
 * created and updated through each subresource (upstream's storageClassStrategy,
 * persistentvolume(Status)Strategy and persistentvolumeclaim(Status)Strategy): defaults on every
 * write, the main resource may not touch status, /status may not touch spec. The rules live in
 * api/validation.h; the claim's admission plugins in admission-storage.c. */
#include <time.h>

#include "api/validation.h"
#include "apiserver/admission-limitranger.h"
#include "apiserver/admission-storage.h"
#include "apiserver/resources.h"
#include "base/json.h"
#include "base/timeutil.h"

/* ---- StorageClass ---- */

static void storage_class_prepare_create(json_t *sc)
{
        storage_class_set_defaults(sc);
}

static void storage_class_validate_create(const json_t *sc, struct field_error_list *errs)
{
        (void) validate_storage_class_create(sc, errs);
}

static json_t *storage_class_prepare_update(enum api_subresource sub, json_t *new_sc,
                                            const json_t *old)
{
        json_t *out = json_deep_copy(new_sc);

        storage_class_set_defaults(out);
        return out;
}

static void storage_class_validate_update(enum api_subresource sub, const json_t *new_sc,
                                          const json_t *old, struct field_error_list *errs)
{
        (void) validate_storage_class_update(new_sc, old, errs);
}

const struct resource_strategy storage_class_strategy = {
        .prepare_create = storage_class_prepare_create,
        .validate_create = storage_class_validate_create,
        .prepare_update = storage_class_prepare_update,
        .validate_update = storage_class_validate_update,
};

/* ---- PersistentVolume ---- */

static void now_rfc3339(char buf[static 32])
{
        time_format_rfc3339(time(NULL), buf);
}

static void pv_prepare_create(json_t *pv)
{
        char now[32];

        now_rfc3339(now);
        pv_set_defaults(pv);
        pv_prepare_for_create(pv, now);
}

static void pv_validate_create(const json_t *pv, struct field_error_list *errs)
{
        (void) validate_pv_create(pv, errs);
}

static json_t *pv_prepare_update(enum api_subresource sub, json_t *new_pv, const json_t *old)
{
        json_t *out = json_deep_copy(new_pv);
        char now[32];

        pv_set_defaults(out);
        if (sub == API_SUB_STATUS) {
                now_rfc3339(now);
                pv_prepare_for_status_update(out, old, now);
        } else {
                pv_prepare_for_update(out, old);
        }
        return out;
}

static void pv_validate_update(enum api_subresource sub, const json_t *new_pv, const json_t *old,
                               struct field_error_list *errs)
{
        if (sub == API_SUB_STATUS)
                (void) validate_pv_status_update(new_pv, old, errs);
        else
                (void) validate_pv_update(new_pv, old, errs);
}

const struct resource_strategy persistent_volume_strategy = {
        .prepare_create = pv_prepare_create,
        .validate_create = pv_validate_create,
        .prepare_update = pv_prepare_update,
        .validate_update = pv_validate_update,
        .admit = pv_admit,
};

/* ---- PersistentVolumeClaim ---- */

static void pvc_prepare_create(json_t *pvc)
{
        pvc_set_defaults(pvc);
        pvc_prepare_for_create(pvc);
}

static void pvc_validate_create(const json_t *pvc, struct field_error_list *errs)
{
        (void) validate_pvc_create(pvc, errs);
}

static json_t *pvc_prepare_update(enum api_subresource sub, json_t *new_pvc, const json_t *old)
{
        json_t *out = json_deep_copy(new_pvc);

        pvc_set_defaults(out);
        if (sub == API_SUB_STATUS)
                pvc_prepare_for_status_update(out, old);
        else
                pvc_prepare_for_update(out, old);
        return out;
}

static void pvc_validate_update(enum api_subresource sub, const json_t *new_pvc, const json_t *old,
                                struct field_error_list *errs)
{
        if (sub == API_SUB_STATUS)
                (void) validate_pvc_status_update(new_pvc, old, errs);
        else
                (void) validate_pvc_update(new_pvc, old, errs);
}

/* K8S: the default plugin order: LimitRanger before PersistentVolumeClaimResize. */
static int pvc_admit_validate_all(struct store *store, enum api_subresource sub, const json_t *pvc,
                                  const json_t *old, struct error **reterr)
{
        int r = limit_ranger_pvc_validate(store, sub, pvc, old, reterr);

        return r < 0 ? r : pvc_admit_validate(store, sub, pvc, old, reterr);
}

const struct resource_strategy persistent_volume_claim_strategy = {
        .prepare_create = pvc_prepare_create,
        .validate_create = pvc_validate_create,
        .prepare_update = pvc_prepare_update,
        .validate_update = pvc_validate_update,
        .admit = pvc_admit,
        .admit_validate = pvc_admit_validate_all,
};
