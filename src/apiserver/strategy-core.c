/* strategy-core.c: create and update rules of the kinds without much of their own:
 * namespaces (finalizer and phase on create), nodes and events (object metadata rules only),
 * and the two rules every spec-and-status kind shares (resources.h): status subresources keep
 * the stored spec and the main resource the stored status, as upstream's strategies do, and a
 * spec change is what moves the generation. */
#include "api/validation.h"
#include "apiserver/resources.h"
#include "base/json.h"
#include "base/macro.h"

json_t *strategy_keep_other_half(enum api_subresource sub, json_t *new_obj, const json_t *old)
{
        json_t *out = json_deep_copy(new_obj);
        const char *keep = sub == API_SUB_STATUS ? "spec" : "status";
        json_t *v = json_object_get(old, keep);

        if (v)
                json_object_set(out, keep, v);
        else
                json_object_del(out, keep);
        return out;
}

bool strategy_spec_changed(const json_t *new_obj, const json_t *old)
{
        const json_t *a = json_object_get(new_obj, "spec"), *b = json_object_get(old, "spec");

        if (!a || !b)
                return a != b;
        return !json_equal(a, b);
}

static json_t *replace_whole(enum api_subresource sub, json_t *new_obj, const json_t *old)
{
        return json_incref(new_obj);
}

static void validate_meta_update(enum api_subresource sub, const json_t *new_obj, const json_t *old,
                                 struct field_error_list *errs)
{
        (void) validate_object_meta_update(new_obj, old, errs);
}

/* K8S: namespaces get the "kubernetes" finalizer and phase Active when created. */
static void namespace_prepare_create(json_t *ns)
{
        json_object_set_new(json_object_ensure(ns, "spec"), "finalizers",
                            json_pack("[s]", "kubernetes"));
        json_object_set_new(ns, "status", json_pack("{s:s}", "phase", "Active"));
}

static void namespace_validate_create(const json_t *ns, struct field_error_list *errs)
{
        const char *name = json_path_string(ns, "metadata.name");

        (void) validate_object_meta_create(ns, false, errs);
        /* K8S: ValidateNamespaceName: a namespace name is a DNS-1123 label. */
        if (name && *name)
                (void) validate_dns1123_label(name, "metadata.name", errs);
}

/* K8S: namespaceStrategy, namespaceStatusStrategy and namespaceFinalizeStrategy: an update of
 * the namespace itself changes neither its spec (the finalizers) nor its status; status writes
 * only the status, finalize only the spec. */
static json_t *namespace_prepare_update(enum api_subresource sub, json_t *new_obj,
                                        const json_t *old)
{
        json_t *out = json_deep_copy(new_obj);
        static const char *const keys[] = { "spec", "status" };

        for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
                json_t *v = json_object_get(old, keys[i]);

                if ((sub == API_SUB_STATUS && i == 1) || (sub == API_SUB_FINALIZE && i == 0))
                        continue;
                if (v)
                        json_object_set(out, keys[i], v);
                else
                        json_object_del(out, keys[i]);
        }
        return out;
}

const struct resource_strategy namespace_strategy = {
        .prepare_create = namespace_prepare_create,
        .validate_create = namespace_validate_create,
        .prepare_update = namespace_prepare_update,
        .validate_update = validate_meta_update,
};

static void node_validate_create(const json_t *node, struct field_error_list *errs)
{
        (void) validate_object_meta_create(node, false, errs);
}

const struct resource_strategy node_strategy = {
        .validate_create = node_validate_create,
        .prepare_update = strategy_keep_other_half,
        .validate_update = validate_meta_update,
};

static void event_validate_create(const json_t *ev, struct field_error_list *errs)
{
        const char *ns = json_path_string(ev, "metadata.namespace");
        const char *ins = json_path_string(ev, "involvedObject.namespace");

        (void) validate_object_meta_create(ev, true, errs);
        /* K8S: ValidateEvent (core/v1): the involved object's namespace must match. */
        if (ins && *ins && ns && !streq(ins, ns)) {
                cleanup_free char *bad = field_value_quote(ins);
                field_error_add(errs, FIELD_ERROR_INVALID, "involvedObject.namespace", bad,
                                "does not match event.namespace");
        }
}

const struct resource_strategy event_strategy = {
        .validate_create = event_validate_create,
        .prepare_update = replace_whole,
        .validate_update = validate_meta_update,
};
