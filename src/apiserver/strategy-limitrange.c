/* strategy-limitrange.c: create and update rules of LimitRanges (upstream's limitrange registry
 * strategy): no status, no generation; SetDefaults_LimitRangeItem runs on every write, as
 * upstream's decoding does. The rules live in api/validation-limitrange.c. */
#include "api/limitrange.h"
#include "apiserver/resources.h"
#include "base/json.h"

static void limit_range_validate_create(const json_t *lr, struct field_error_list *errs)
{
        (void) validate_limit_range(lr, errs);
}

static json_t *limit_range_prepare_update(enum api_subresource sub, json_t *new_obj,
                                          const json_t *old)
{
        json_t *out = json_deep_copy(new_obj);

        limit_range_set_defaults(out);
        return out;
}

static void limit_range_validate_update(enum api_subresource sub, const json_t *new_obj,
                                        const json_t *old, struct field_error_list *errs)
{
        (void) validate_limit_range_update(new_obj, old, errs);
}

const struct resource_strategy limit_range_strategy = {
        .prepare_create = limit_range_set_defaults,
        .validate_create = limit_range_validate_create,
        .prepare_update = limit_range_prepare_update,
        .validate_update = limit_range_validate_update,
};
