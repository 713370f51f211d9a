/* validation-limitrange.c: LimitRange defaults and validation as kube-apiserver 1.33 does them
 * (K8S: pkg/apis/core/v1 SetDefaults_LimitRangeItem, pkg/apis/core/validation
 * ValidateLimitRange, validateLimitRangeTypeName, validateLimitRangeResourceName). What the
 * LimitRanger admission does with a LimitRange is api/limitranger.c's. Quantities arrive
 * checked by schema_check; one that does not parse is skipped here. Where upstream prints a
 * Quantity struct as the bad value (%#v), flexlet prints its string, as validation-pod.c does. */
#include <string.h>

#include "api/limitrange.h"
#include "api/validation-internal.h"
#include "api/validation.h"
#include "base/alloc.h"
#include "base/json.h"

static const char *const limit_types[] = { LIMIT_TYPE_POD, LIMIT_TYPE_CONTAINER, LIMIT_TYPE_PVC,
                                           NULL };
/* The item's lists in the order validation reads them. */
static const char *const lists[] = {
        "max", "min", "default", "defaultRequest", "maxLimitRequestRatio", NULL
};

static void fill_missing(json_t *item, const char *from, const char *to)
{
        json_t *src = vj_obj(item, from), *dst = vj_obj(item, to);
        const char *name;
        json_t *v;

        json_object_foreach(src, name, v) {
                if (!dst) {
                        dst = json_object();
                        json_object_set_new(item, to, dst);
                }
                if (!json_object_get(dst, name))
                        json_object_set(dst, name, v);
        }
}

void limit_range_set_defaults(json_t *lr)
{
        size_t i;
        json_t *item;

        json_array_foreach(vj_arr(vj_obj(lr, "spec"), "limits"), i, item) {
                if (!json_is_object(item) ||
                    !streq(vj_str(item, "type") ?: "", LIMIT_TYPE_CONTAINER))
                        continue;
                /* K8S: max -> default -> defaultRequest, then min -> defaultRequest */
                fill_missing(item, "max", "default");
                fill_missing(item, "default", "defaultRequest");
                fill_missing(item, "min", "defaultRequest");
        }
}

/* K8S: validateLimitRangeTypeName */
static void validate_type_name(const char *type, const char *field, struct field_error_list *errs)
{
        if (validate_qualified_name(type, field, errs))
                return;
        if (!strchr(type, '/')) {
                for (const char *const *t = limit_types; *t; t++)
                        if (streq(*t, type))
                                return;
                verr_str(errs, FIELD_ERROR_INVALID, field, type,
                         "must be a standard limit type or fully qualified");
        }
}

/* K8S: validateLimitRangeResourceName: Pod and Container items take container resources,
 * others any resource name (LocalStorageCapacityIsolation is GA: ephemeral-storage is fine). */
static void validate_resource(const char *type, const char *name, const char *field,
                              struct field_error_list *errs)
{
        if (streq(type, LIMIT_TYPE_POD) || streq(type, LIMIT_TYPE_CONTAINER))
                v_validate_container_resource_name(name, field, errs);
        else
                (void) v_validate_resource_name(name, field, errs);
}

/* One resource's value in one of the item's lists, parsed; false when absent or unparsable. */
static bool get_q(const json_t *item, const char *list, const char *name, struct quantity *ret)
{
        const json_t *v = json_object_get(vj_obj(item, list), name);

        return v && vq_parse(v, ret) == 0;
}

static void invalid(struct field_error_list *errs, const char *path, const char *list,
                    const char *name, const struct quantity *bad, const char *detail)
{
        cleanup_free char *field = xasprintf("%s.%s[%s]", path, list, name);
        cleanup_free char *s = quantity_format(bad);

        verr_str(errs, FIELD_ERROR_INVALID, field, s, detail);
}

/* K8S: MaxMilliValue: the largest value whose MilliValue fits int64. */
#define MAX_MILLI_VALUE (INT64_MAX / 1000)

static int64_t value_or_max(const struct quantity *q, bool milli)
{
        int64_t v;

        if ((milli ? quantity_milli_value(q, &v) : quantity_value(q, &v)) < 0)
                return q->negative ? INT64_MIN : INT64_MAX;
        return v;
}

/* K8S: the checks between one resource's min, max, default, defaultRequest and ratio. */
static void validate_resource_bounds(const json_t *item, const char *path, const char *name,
                                     struct field_error_list *errs)
{
        struct quantity min, max, def, req, ratio, one;
        bool has_min = get_q(item, "min", name, &min), has_max = get_q(item, "max", name, &max);
        bool has_def = get_q(item, "default", name, &def);
        bool has_req = get_q(item, "defaultRequest", name, &req);
        bool has_ratio = get_q(item, "maxLimitRequestRatio", name, &ratio);
        cleanup_free char *mins = has_min ? quantity_format(&min) : NULL;
        cleanup_free char *maxs = has_max ? quantity_format(&max) : NULL;
        cleanup_free char *defs = has_def ? quantity_format(&def) : NULL;
        cleanup_free char *reqs = has_req ? quantity_format(&req) : NULL;
        cleanup_free char *ratios = has_ratio ? quantity_format(&ratio) : NULL;

        if (has_min && has_max && quantity_cmp(&min, &max) > 0) {
                cleanup_free char *d =
                        xasprintf("min value %s is greater than max value %s", mins, maxs);
                invalid(errs, path, "min", name, &min, d);
        }
        if (has_req && has_min && quantity_cmp(&min, &req) > 0) {
                cleanup_free char *d = xasprintf(
                        "min value %s is greater than default request value %s", mins, reqs);
                invalid(errs, path, "defaultRequest", name, &req, d);
        }
        if (has_req && has_max && quantity_cmp(&req, &max) > 0) {
                cleanup_free char *d = xasprintf(
                        "default request value %s is greater than max value %s", reqs, maxs);
                invalid(errs, path, "defaultRequest", name, &req, d);
        }
        if (has_req && has_def && quantity_cmp(&req, &def) > 0) {
                cleanup_free char *d =
                        xasprintf("default request value %s is greater than default limit value %s",
                                  reqs, defs);
                invalid(errs, path, "defaultRequest", name, &req, d);
        }
        /* K8S: upstream reports min (not the default) as the bad value here */
        if (has_def && has_min && quantity_cmp(&min, &def) > 0) {
                cleanup_free char *d =
                        xasprintf("min value %s is greater than default value %s", mins, defs);
                invalid(errs, path, "default", name, &min, d);
        }
        /* K8S: and max here */
        if (has_def && has_max && quantity_cmp(&def, &max) > 0) {
                cleanup_free char *d =
                        xasprintf("default value %s is greater than max value %s", defs, maxs);
                invalid(errs, path, "default", name, &max, d);
        }
        quantity_from_int64(1, QUANTITY_DECIMAL_SI, &one);
        if (has_ratio && quantity_cmp(&ratio, &one) < 0) {
                cleanup_free char *d = xasprintf("ratio %s is less than 1", ratios);
                invalid(errs, path, "maxLimitRequestRatio", name, &ratio, d);
        }
        if (has_ratio && has_min && has_max) {
                int64_t r = value_or_max(&ratio, false), lo = value_or_max(&min, false),
                        hi = value_or_max(&max, false);
                double rv = (double) r, limit;
                if (r < MAX_MILLI_VALUE && lo < MAX_MILLI_VALUE && hi < MAX_MILLI_VALUE) {
                        rv = (double) value_or_max(&ratio, true) / 1000;
                        lo = value_or_max(&min, true);
                        hi = value_or_max(&max, true);
                }
                /* Go's float division: x/0 is +Inf (or NaN for 0/0, which nothing exceeds) */
                limit = (double) hi / (double) lo;
                if (rv > limit) {
                        cleanup_free char *d =
                                xasprintf("ratio %s is greater than max/min = %f", ratios, limit);
                        invalid(errs, path, "maxLimitRequestRatio", name, &ratio, d);
                }
        }
        /* K8S: GPUs, hugepages and other resources that cannot overcommit: default and
         * defaultRequest must match when both are given */
        if (!v_resource_overcommit_allowed(name) && has_def && has_req &&
            quantity_cmp(&def, &req) != 0) {
                cleanup_free char *d =
                        xasprintf("default value %s must equal to defaultRequest value %s in %s",
                                  defs, reqs, name);
                invalid(errs, path, "defaultRequest", name, &req, d);
        }
}

static void validate_item(const json_t *item, size_t idx, json_t *seen_types,
                          struct field_error_list *errs)
{
        cleanup_free char *path = xasprintf("spec.limits[%zu]", idx);
        cleanup_free char *type_path = xasprintf("%s.type", path);
        cleanup_json json_t *keys = json_object();
        const char *type = vj_str(item, "type") ?: "";
        bool pod = streq(type, LIMIT_TYPE_POD);
        const char *name;
        json_t *v;

        validate_type_name(type, type_path, errs);
        if (json_object_get(seen_types, type))
                verr_str(errs, FIELD_ERROR_DUPLICATE, type_path, type, NULL);
        json_object_set_new(seen_types, type, json_true());

        for (const char *const *l = lists; *l; l++) {
                bool is_default = streq(*l, "default") || streq(*l, "defaultRequest");
                if (pod && is_default) {
                        if (json_object_size(vj_obj(item, *l)) > 0) {
                                cleanup_free char *f = xasprintf("%s.%s", path, *l);
                                verr_raw(errs, FIELD_ERROR_FORBIDDEN, f, NULL,
                                         "may not be specified when `type` is 'Pod'");
                        }
                        continue;
                }
                json_object_foreach(vj_obj(item, *l), name, v) {
                        cleanup_free char *f = xasprintf("%s.%s[%s]", path, *l, name);
                        validate_resource(type, name, f, errs);
                        json_object_set_new(keys, name, json_true());
                }
                /* K8S: upstream checks the claim's storage bounds before reading the ratios */
                if (streq(*l, "defaultRequest") && streq(type, LIMIT_TYPE_PVC) &&
                    !json_object_get(vj_obj(item, "min"), "storage") &&
                    !json_object_get(vj_obj(item, "max"), "storage")) {
                        cleanup_free char *f = xasprintf("%s.limits", path);
                        verr_raw(errs, FIELD_ERROR_REQUIRED, f, NULL,
                                 "either minimum or maximum storage value is required, but "
                                 "neither was provided");
                }
        }
        /* Upstream walks a Go set in random order; flexlet in the order names first appear. */
        json_object_foreach(keys, name, v) {
                validate_resource_bounds(item, path, name, errs);
        }
}

size_t validate_limit_range(const json_t *lr, struct field_error_list *errs)
{
        size_t before = errs->n, i;
        cleanup_json json_t *seen_types = json_object();
        json_t *item;

        (void) validate_object_meta_create(lr, true, errs);
        json_array_foreach(vj_arr(vj_obj(lr, "spec"), "limits"), i, item) {
                validate_item(item, i, seen_types, errs);
        }
        return errs->n - before;
}

size_t validate_limit_range_update(const json_t *new_lr, const json_t *old_lr,
                                   struct field_error_list *errs)
{
        size_t before = errs->n;
        struct field_error_list all;

        (void) validate_object_meta_update(new_lr, old_lr, errs);
        /* K8S: the strategy validates the new object whole; its metadata is checked above */
        field_error_list_init(&all);
        (void) validate_limit_range(new_lr, &all);
        for (size_t i = 0; i < all.n; i++)
                if (strncmp(all.items[i].field, "metadata.", strlen("metadata.")) != 0)
                        field_error_add(errs, all.items[i].type, all.items[i].field,
                                        all.items[i].bad_value, "%s", all.items[i].detail);
        field_error_list_release(&all);
        return errs->n - before;
}
