/* strategy-rbac.c: create and update rules of RBAC's Role, ClusterRole, RoleBinding and
 * ClusterRoleBinding (K8S: pkg/registry/rbac/{role,clusterrole,rolebinding,clusterrolebinding}/
 * strategy.go): defaults on every write, no status, no generation. The rules themselves live
 * in api/validation-rbac.c; who may write what (escalation) in rbac-escalation.c. */
#include "api/validation.h"
#include "apiserver/rbac.h"
#include "apiserver/resources.h"
#include "base/json.h"

static void rbac_prepare_create(json_t *obj)
{
        rbac_set_defaults(obj);
}

static json_t *rbac_prepare_update(enum api_subresource sub, json_t *new_obj, const json_t *old)
{
        rbac_set_defaults(new_obj);
        return json_incref(new_obj);
}

static void role_validate_create(const json_t *obj, struct field_error_list *errs)
{
        (void) validate_rbac_role(obj, false, errs);
}

static void role_validate_update(enum api_subresource sub, const json_t *new_obj, const json_t *old,
                                 struct field_error_list *errs)
{
        (void) validate_rbac_role_update(new_obj, old, false, errs);
}

static void cluster_role_validate_create(const json_t *obj, struct field_error_list *errs)
{
        (void) validate_rbac_role(obj, true, errs);
}

static void cluster_role_validate_update(enum api_subresource sub, const json_t *new_obj,
                                         const json_t *old, struct field_error_list *errs)
{
        (void) validate_rbac_role_update(new_obj, old, true, errs);
}

static void binding_validate_create(const json_t *obj, struct field_error_list *errs)
{
        (void) validate_rbac_binding(obj, false, errs);
}

static void binding_validate_update(enum api_subresource sub, const json_t *new_obj,
                                    const json_t *old, struct field_error_list *errs)
{
        (void) validate_rbac_binding_update(new_obj, old, false, errs);
}

static void cluster_binding_validate_create(const json_t *obj, struct field_error_list *errs)
{
        (void) validate_rbac_binding(obj, true, errs);
}

static void cluster_binding_validate_update(enum api_subresource sub, const json_t *new_obj,
                                            const json_t *old, struct field_error_list *errs)
{
        (void) validate_rbac_binding_update(new_obj, old, true, errs);
}

const struct resource_strategy role_strategy = {
        .prepare_create = rbac_prepare_create,
        .validate_create = role_validate_create,
        .prepare_update = rbac_prepare_update,
        .validate_update = role_validate_update,
        .authorize_write = rbac_authorize_role_write,
};

const struct resource_strategy cluster_role_strategy = {
        .prepare_create = rbac_prepare_create,
        .validate_create = cluster_role_validate_create,
        .prepare_update = rbac_prepare_update,
        .validate_update = cluster_role_validate_update,
        .authorize_write = rbac_authorize_role_write,
};

const struct resource_strategy role_binding_strategy = {
        .prepare_create = rbac_prepare_create,
        .validate_create = binding_validate_create,
        .prepare_update = rbac_prepare_update,
        .validate_update = binding_validate_update,
        .authorize_write = rbac_authorize_binding_write,
};

const struct resource_strategy cluster_role_binding_strategy = {
        .prepare_create = rbac_prepare_create,
        .validate_create = cluster_binding_validate_create,
        .prepare_update = rbac_prepare_update,
        .validate_update = cluster_binding_validate_update,
        .authorize_write = rbac_authorize_binding_write,
};
