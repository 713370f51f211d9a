/* strategy-apps.c: create and update rules of ReplicaSets and Deployments (K8S:
 * pkg/registry/apps/replicaset/strategy.go, pkg/registry/apps/deployment/strategy.go): the
 * status starts empty and belongs to the status subresource (the controllers'), a spec change
 * bumps the generation. Defaults and rules live in api/validation-apps.c. */
#include "api/validation-internal.h"
#include "api/validation.h"
#include "apiserver/resources.h"
#include "base/json.h"

static void rs_prepare_create(json_t *rs)
{
        /* K8S: PrepareForCreate: Status = ReplicaSetStatus{} */
        replica_set_set_defaults(rs);
        json_object_set_new(rs, "status", json_pack("{s:i}", "replicas", 0));
}

static void deployment_prepare_create(json_t *d)
{
        deployment_set_defaults(d);
        json_object_set_new(d, "status", json_object());
}

static json_t *rs_prepare_update(enum api_subresource sub, json_t *new_obj, const json_t *old)
{
        json_t *out = strategy_keep_other_half(sub, new_obj, old);

        if (sub != API_SUB_STATUS)
                replica_set_set_defaults(out);
        return out;
}

static json_t *deployment_prepare_update(enum api_subresource sub, json_t *new_obj,
                                         const json_t *old)
{
        json_t *out = strategy_keep_other_half(sub, new_obj, old);

        if (sub != API_SUB_STATUS)
                deployment_set_defaults(out);
        return out;
}

static void rs_validate_create(const json_t *rs, struct field_error_list *errs)
{
        (void) validate_replica_set(rs, true, errs);
}

static void rs_validate_update(enum api_subresource sub, const json_t *new_obj, const json_t *old,
                               struct field_error_list *errs)
{
        if (sub == API_SUB_STATUS)
                (void) validate_replica_set_status_update(new_obj, old, errs);
        else
                (void) validate_replica_set_update(new_obj, old, errs);
}

static void deployment_validate_create(const json_t *d, struct field_error_list *errs)
{
        (void) validate_deployment(d, true, errs);
}

static void deployment_validate_update(enum api_subresource sub, const json_t *new_obj,
                                       const json_t *old, struct field_error_list *errs)
{
        if (sub == API_SUB_STATUS)
                (void) validate_deployment_status_update(new_obj, old, errs);
        else
                (void) validate_deployment_update(new_obj, old, errs);
}

/* K8S: PrepareForUpdate: "Any changes to the spec increment the generation number"
 * (apiequality.Semantic.DeepEqual of the specs). */
static bool spec_changed(const json_t *new_obj, const json_t *old)
{
        return !vj_equal(json_object_get(new_obj, "spec"), json_object_get(old, "spec"));
}

const struct resource_strategy replica_set_strategy = {
        .prepare_create = rs_prepare_create,
        .validate_create = rs_validate_create,
        .prepare_update = rs_prepare_update,
        .validate_update = rs_validate_update,
        .spec_changed = spec_changed,
};

const struct resource_strategy deployment_strategy = {
        .prepare_create = deployment_prepare_create,
        .validate_create = deployment_validate_create,
        .prepare_update = deployment_prepare_update,
        .validate_update = deployment_validate_update,
        .spec_changed = spec_changed,
};

/* K8S: pkg/registry/apps/daemonset/strategy.go: status starts empty, generation 1 */
static void ds_prepare_create(json_t *ds)
{
        daemon_set_set_defaults(ds);
        json_object_set_new(ds, "status",
                            json_pack("{s:i, s:i, s:i, s:i}", "currentNumberScheduled", 0,
                                      "numberMisscheduled", 0, "desiredNumberScheduled", 0,
                                      "numberReady", 0));
}

static json_t *ds_prepare_update(enum api_subresource sub, json_t *new_obj, const json_t *old)
{
        json_t *out = strategy_keep_other_half(sub, new_obj, old);

        if (sub != API_SUB_STATUS)
                daemon_set_set_defaults(out);
        return out;
}

static void ds_validate_create(const json_t *ds, struct field_error_list *errs)
{
        (void) validate_daemon_set(ds, true, errs);
}

static void ds_validate_update(enum api_subresource sub, const json_t *new_obj, const json_t *old,
                               struct field_error_list *errs)
{
        if (sub == API_SUB_STATUS)
                (void) validate_daemon_set_status_update(new_obj, old, errs);
        else
                (void) validate_daemon_set_update(new_obj, old, errs);
}

const struct resource_strategy daemon_set_strategy = {
        .prepare_create = ds_prepare_create,
        .validate_create = ds_validate_create,
        .prepare_update = ds_prepare_update,
        .validate_update = ds_validate_update,
        .spec_changed = spec_changed,
};
