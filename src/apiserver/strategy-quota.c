/* strategy-quota.c: create and update rules of ResourceQuotas (upstream's resourcequota
 * registry strategy): status is cleared on create and written only through /status (by the
 * quota controller and the quota admission), spec only through the main resource. The rules
 * live in api/validation-quota.c; what a quota admits, in apiserver/admission-quota.c. */
#include "api/validation.h"
#include "apiserver/resources.h"
#include "base/json.h"

static void resource_quota_prepare_create(json_t *rq)
{
        /* K8S: PrepareForCreate: resourcequota.Status = api.ResourceQuotaStatus{} */
        json_object_del(rq, "status");
}

static void resource_quota_validate_create(const json_t *rq, struct field_error_list *errs)
{
        (void) validate_resource_quota(rq, errs);
}

static void resource_quota_validate_update(enum api_subresource sub, const json_t *new_rq,
                                           const json_t *old, struct field_error_list *errs)
{
        if (sub == API_SUB_STATUS)
                (void) validate_resource_quota_status_update(new_rq, old, errs);
        else
                (void) validate_resource_quota_update(new_rq, old, errs);
}

const struct resource_strategy resource_quota_strategy = {
        .prepare_create = resource_quota_prepare_create,
        .validate_create = resource_quota_validate_create,
        /* K8S: PrepareForUpdate keeps the old status; the status strategy the old spec */
        .prepare_update = strategy_keep_other_half,
        .validate_update = resource_quota_validate_update,
};
