/* strategy-statefulset.c: create and update rules of StatefulSets and ControllerRevisions (K8S:
 * pkg/registry/apps/statefulset/strategy.go, pkg/registry/apps/controllerrevision/strategy.go):
 * a StatefulSet's status starts empty and belongs to the status subresource (the controller's), a
 * spec change bumps the generation; a ControllerRevision has no status and its data never
 * changes. Defaults and rules live in api/validation-statefulset.c. */
#include "api/validation.h"
#include "apiserver/resources.h"
#include "base/json.h"

static void sts_prepare_create(json_t *sts)
{
        /* K8S: PrepareForCreate: Status = StatefulSetStatus{} (replicas has no omitempty) */
        stateful_set_set_defaults(sts);
        json_object_set_new(sts, "status", json_pack("{s:i}", "replicas", 0));
}

static json_t *sts_prepare_update(enum api_subresource sub, json_t *new_obj, const json_t *old)
{
        json_t *out = strategy_keep_other_half(sub, new_obj, old);

        if (sub != API_SUB_STATUS)
                stateful_set_set_defaults(out);
        return out;
}

static void sts_validate_create(const json_t *sts, struct field_error_list *errs)
{
        (void) validate_stateful_set(sts, true, errs);
}

static void sts_validate_update(enum api_subresource sub, const json_t *new_obj, const json_t *old,
                                struct field_error_list *errs)
{
        if (sub == API_SUB_STATUS)
                (void) validate_stateful_set_status_update(new_obj, old, errs);
        else
                (void) validate_stateful_set_update(new_obj, old, errs);
}

const struct resource_strategy stateful_set_strategy = {
        .prepare_create = sts_prepare_create,
        .validate_create = sts_validate_create,
        .prepare_update = sts_prepare_update,
        .validate_update = sts_validate_update,
        .spec_changed = strategy_spec_changed,
};

static json_t *cr_prepare_update(enum api_subresource sub, json_t *new_obj, const json_t *old)
{
        return json_incref(new_obj);
}

static void cr_validate_create(const json_t *cr, struct field_error_list *errs)
{
        (void) validate_controller_revision(cr, true, errs);
}

static void cr_validate_update(enum api_subresource sub, const json_t *new_obj, const json_t *old,
                               struct field_error_list *errs)
{
        (void) validate_controller_revision_update(new_obj, old, errs);
}

const struct resource_strategy controller_revision_strategy = {
        .validate_create = cr_validate_create,
        .prepare_update = cr_prepare_update,
        .validate_update = cr_validate_update,
};
