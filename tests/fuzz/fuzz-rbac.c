/* fuzz-rbac.c: arbitrary bytes, parsed as JSON, as an RBAC object: schema_check against one of
 * the four kinds, their defaulting and validation, and each rule through RuleAllows, Covers,
 * BreakdownRule, CompactRules and CompactString: no crash, no leak. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "api/schema.h"
#include "api/schemas.h"
#include "api/validation.h"
#include "apiserver/authz.h"
#include "apiserver/rbac.h"
#include "base/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        static const struct schema *const kinds[] = { &schema_role, &schema_cluster_role,
                                                      &schema_role_binding,
                                                      &schema_cluster_role_binding };
        const struct authz_attributes attrs[] = {
                { .verb = "get",
                  .resource_request = true,
                  .api_group = "",
                  .api_version = "v1",
                  .resource = "pods",
                  .subresource = "resize",
                  .ns = "ns",
                  .name = "web",
                  .path = "/api/v1/namespaces/ns/pods/web/resize" },
                { .verb = "get",
                  .api_group = "",
                  .api_version = "",
                  .resource = "",
                  .subresource = "",
                  .ns = "",
                  .name = "",
                  .path = "/healthz" },
        };
        struct field_error_list errs;
        struct error *err = NULL;
        struct strbuf unknown;
        json_error_t jerr;
        json_t *v, *rule, *missing = NULL, *compact;
        size_t i;
        bool cluster = size % 2;

        v = json_loadb((const char *) data, size, JSON_DECODE_ANY, &jerr);
        if (!v)
                return 0;
        strbuf_init(&unknown);
        (void) schema_check(kinds[size % 4], v, "", &unknown, &err);
        error_free(err);
        strbuf_release(&unknown);
        if (json_is_object(v)) {
                field_error_list_init(&errs);
                rbac_set_defaults(v);
                (void) validate_rbac_role(v, cluster, &errs);
                (void) validate_rbac_binding(v, cluster, &errs);
                field_error_list_release(&errs);
        }
        json_array_foreach(json_object_get(v, "rules"), i, rule) {
                char *s = rbac_rule_compact_string(rule);
                json_t *parts = rbac_rule_breakdown(rule);

                (void) authz_rule_allows(rule, &attrs[0]);
                (void) authz_rule_allows(rule, &attrs[1]);
                free(s);
                json_decref(parts);
        }
        (void) rbac_rules_cover(json_object_get(v, "rules"), json_object_get(v, "rules"), &missing);
        compact = rbac_rules_compact(missing);
        json_decref(compact);
        json_decref(missing);
        json_decref(v);
        return 0;
}
