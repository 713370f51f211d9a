/* strategy-coordination.c: create and update rules of Leases (K8S:
 * pkg/registry/coordination/lease/strategy.go): no status, no generation; spec.strategy and
 * spec.preferredHolder belong to coordinated leader election, whose feature gate is off by
 * default in 1.33, so they are dropped as upstream drops disabled fields (kept on update only
 * when the stored lease already had a strategy). The rules themselves live in
 * api/validation-coordination.c. */
#include "api/validation.h"
#include "apiserver/resources.h"
#include "base/json.h"

static void drop_coordination_fields(json_t *lease)
{
        json_t *spec = json_object_get(lease, "spec");

        json_object_del(spec, "strategy");
        json_object_del(spec, "preferredHolder");
}

static void lease_prepare_create(json_t *lease)
{
        drop_coordination_fields(lease);
}

static void lease_validate_create(const json_t *lease, struct field_error_list *errs)
{
        (void) validate_lease(lease, errs);
}

static json_t *lease_prepare_update(enum api_subresource sub, json_t *new_obj, const json_t *old)
{
        json_t *out = json_deep_copy(new_obj);

        (void) sub;
        if (!json_path(old, "spec.strategy"))
                drop_coordination_fields(out);
        return out;
}

static void lease_validate_update(enum api_subresource sub, const json_t *new_obj,
                                  const json_t *old, struct field_error_list *errs)
{
        (void) sub;
        (void) validate_lease_update(new_obj, old, errs);
}

const struct resource_strategy lease_strategy = {
        .prepare_create = lease_prepare_create,
        .validate_create = lease_validate_create,
        .prepare_update = lease_prepare_update,
        .validate_update = lease_validate_update,
};
