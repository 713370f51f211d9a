/* strategy-policy.c: create and update rules of PodDisruptionBudgets (K8S:
 * pkg/registry/policy/poddisruptionbudget/strategy.go): the status starts empty and belongs to
 * the status subresource (the disruption controller's and the eviction handler's), a spec
 * change bumps the generation. The rules themselves live in api/validation-policy.c. */
#include "api/validation.h"
#include "apiserver/resources.h"
#include "base/json.h"

static void pdb_prepare_create(json_t *pdb)
{
        /* K8S: PrepareForCreate: podDisruptionBudget.Status = policy.PodDisruptionBudgetStatus{} */
        json_object_del(pdb, "status");
        json_object_set_new(pdb, "status",
                            json_pack("{s:i, s:i, s:i, s:i}", "disruptionsAllowed", 0,
                                      "currentHealthy", 0, "desiredHealthy", 0, "expectedPods", 0));
}

static void pdb_validate_create(const json_t *pdb, struct field_error_list *errs)
{
        (void) validate_pdb(pdb, true, errs);
}

static void pdb_validate_update(enum api_subresource sub, const json_t *new_obj, const json_t *old,
                                struct field_error_list *errs)
{
        if (sub == API_SUB_STATUS)
                (void) validate_pdb_status_update(new_obj, old, errs);
        else
                (void) validate_pdb_update(new_obj, old, errs);
}

const struct resource_strategy pod_disruption_budget_strategy = {
        .prepare_create = pdb_prepare_create,
        .validate_create = pdb_validate_create,
        /* K8S: PrepareForUpdate keeps the stored status; the status strategy the stored spec */
        .prepare_update = strategy_keep_other_half,
        .validate_update = pdb_validate_update,
        .spec_changed = strategy_spec_changed,
};
