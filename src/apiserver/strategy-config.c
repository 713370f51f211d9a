/* strategy-config.c: create and update rules of ConfigMaps, Secrets and ServiceAccounts
 * (upstream's configmap, secret and serviceaccount registry strategies): no status, no
 * generation, a Secret's stringData merged into data on every write. The rules themselves
 * live in api/validation-config.c. */
#include "api/validation.h"
#include "apiserver/resources.h"
#include "base/json.h"

static json_t *replace_whole(enum api_subresource sub, json_t *new_obj, const json_t *old)
{
        return json_incref(new_obj);
}

static void config_map_validate_create(const json_t *cm, struct field_error_list *errs)
{
        (void) validate_config_map(cm, true, errs);
}

static void config_map_validate_update(enum api_subresource sub, const json_t *new_obj,
                                       const json_t *old, struct field_error_list *errs)
{
        (void) validate_config_map_update(new_obj, old, errs);
}

const struct resource_strategy config_map_strategy = {
        .validate_create = config_map_validate_create,
        .prepare_update = replace_whole,
        .validate_update = config_map_validate_update,
};

static json_t *secret_prepare_update(enum api_subresource sub, json_t *new_obj, const json_t *old)
{
        json_t *out = json_deep_copy(new_obj);

        secret_prepare(out);
        return out;
}

static void secret_validate_create(const json_t *secret, struct field_error_list *errs)
{
        (void) validate_secret(secret, true, errs);
}

static void secret_validate_update(enum api_subresource sub, const json_t *new_obj,
                                   const json_t *old, struct field_error_list *errs)
{
        (void) validate_secret_update(new_obj, old, errs);
}

const struct resource_strategy secret_strategy = {
        .prepare_create = secret_prepare,
        .validate_create = secret_validate_create,
        .prepare_update = secret_prepare_update,
        .validate_update = secret_validate_update,
};

static void service_account_validate_create(const json_t *sa, struct field_error_list *errs)
{
        (void) validate_service_account(sa, errs);
}

static void service_account_validate_update(enum api_subresource sub, const json_t *new_obj,
                                            const json_t *old, struct field_error_list *errs)
{
        (void) validate_service_account_update(new_obj, old, errs);
}

const struct resource_strategy service_account_strategy = {
        .validate_create = service_account_validate_create,
        .prepare_update = replace_whole,
        .validate_update = service_account_validate_update,
};
