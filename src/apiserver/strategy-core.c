/* strategy-core.c: create and update rules of the kinds without much of their own:
 * namespaces (finalizer and phase on create), nodes and events (object metadata rules only),
 * and the two rules every spec-and-status kind shares (resources.h): status subresources keep
 * the stored spec and the main resource the stored status, as upstream's strategies do, and a
 * spec change is what moves the generation. */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "api/validation.h"
#include "apiserver/resources.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/macro.h"

json_t *strategy_keep_other_half(enum api_subresource sub, json_t *new_obj, const json_t *old)
{
        const char *keep = sub == API_SUB_STATUS ? "spec" : "status";
        json_t *v = json_object_get(old, keep);

        /* a copy: the stored object's half is not shared with the one to store */
        if (v)
                json_object_set_new(new_obj, keep, json_deep_copy(v));
        else
                json_object_del(new_obj, keep);
        return json_incref(new_obj);
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
        static const char *const keys[] = { "spec", "status" };

        for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
                json_t *v = json_object_get(old, keys[i]);

                if ((sub == API_SUB_STATUS && i == 1) || (sub == API_SUB_FINALIZE && i == 0))
                        continue;
                if (v)
                        json_object_set_new(new_obj, keys[i], json_deep_copy(v));
                else
                        json_object_del(new_obj, keys[i]);
        }
        return json_incref(new_obj);
}

const struct resource_strategy namespace_strategy = {
        .prepare_create = namespace_prepare_create,
        .validate_create = namespace_validate_create,
        .prepare_update = namespace_prepare_update,
        .validate_update = validate_meta_update,
};

/* K8S: the v1 conversion of NodeSpec: podCIDRs is the field, podCIDR its first entry (an old
 * client's lone podCIDR becomes podCIDRs). */
static void node_pod_cidrs_normalize(json_t *node)
{
        json_t *spec = json_object_get(node, "spec");
        const json_t *cidrs = json_object_get(spec, "podCIDRs");
        const char *one = json_string_value(json_object_get(spec, "podCIDR"));

        if (!json_is_object(spec))
                return;
        if (json_is_array(cidrs) && json_array_size(cidrs) > 0) {
                json_object_set(spec, "podCIDR", json_array_get(cidrs, 0));
        } else if (one && *one) {
                json_object_set_new(spec, "podCIDRs", json_pack("[s]", one));
        } else {
                json_object_del(spec, "podCIDR");
                json_object_del(spec, "podCIDRs");
        }
}

static bool cidr_valid(const char *s)
{
        const char *slash = s ? strchr(s, '/') : NULL;
        char addr[INET6_ADDRSTRLEN];
        unsigned char buf[sizeof(struct in6_addr)];
        char *end;
        long prefix;
        int family;

        if (!slash || slash == s || (size_t) (slash - s) >= sizeof(addr))
                return false;
        memcpy(addr, s, (size_t) (slash - s));
        addr[slash - s] = '\0';
        family = strchr(addr, ':') ? AF_INET6 : AF_INET;
        if (inet_pton(family, addr, buf) != 1 || !(slash[1] >= '0' && slash[1] <= '9'))
                return false;
        prefix = strtol(slash + 1, &end, 10);
        return !*end && prefix >= 0 && prefix <= (family == AF_INET ? 32 : 128);
}

/* K8S: ValidateNode's spec.podCIDRs: each a CIDR, at most one per IP family */
static void node_validate_pod_cidrs(const json_t *node, struct field_error_list *errs)
{
        const json_t *cidrs = json_path(node, "spec.podCIDRs");
        size_t i, v4 = 0, v6 = 0;
        json_t *c;

        json_array_foreach(cidrs, i, c) {
                const char *s = json_string_value(c);
                cleanup_free char *field = xasprintf("spec.podCIDRs[%zu]", i);
                cleanup_free char *bad = field_value_quote(s ? s : "");

                if (!cidr_valid(s)) {
                        field_error_add(errs, FIELD_ERROR_INVALID, field, bad,
                                        "must be a valid CIDR value, (e.g. 10.9.8.0/24 or "
                                        "2001:db8::/64)");
                        continue;
                }
                if (strchr(s, ':'))
                        v6++;
                else
                        v4++;
        }
        if (json_array_size(cidrs) > 2 || v4 > 1 || v6 > 1) {
                cleanup_free char *bad = json_dump_compact(cidrs);
                field_error_add(errs, FIELD_ERROR_INVALID, "spec.podCIDRs", bad,
                                "may specify no more than one CIDR for each IP family");
        }
}

static void node_prepare_create(json_t *node)
{
        node_pod_cidrs_normalize(node);
}

static void node_validate_create(const json_t *node, struct field_error_list *errs)
{
        (void) validate_object_meta_create(node, false, errs);
        node_validate_pod_cidrs(node, errs);
}

static json_t *node_prepare_update(enum api_subresource sub, json_t *new_obj, const json_t *old)
{
        json_t *out = strategy_keep_other_half(sub, new_obj, old);

        node_pod_cidrs_normalize(out);
        return out;
}

/* K8S: ValidateNodeUpdate: the controller manager may give a node a podCIDR when it has none;
 * once set it stays */
static void node_validate_update(enum api_subresource sub, const json_t *new_obj, const json_t *old,
                                 struct field_error_list *errs)
{
        const json_t *was = json_path(old, "spec.podCIDRs");
        const json_t *now = json_path(new_obj, "spec.podCIDRs");

        (void) validate_object_meta_update(new_obj, old, errs);
        node_validate_pod_cidrs(new_obj, errs);
        if (json_array_size(was) > 0 && !json_equal(was, now))
                field_error_add(errs, FIELD_ERROR_FORBIDDEN, "spec.podCIDRs", NULL,
                                "node updates may not change podCIDR except from \"\" to valid");
}

const struct resource_strategy node_strategy = {
        .prepare_create = node_prepare_create,
        .validate_create = node_validate_create,
        .prepare_update = node_prepare_update,
        .validate_update = node_validate_update,
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
