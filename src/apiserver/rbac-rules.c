/* rbac-rules.c: comparing sets of PolicyRules, as upstream's escalation checks and policy
 * reconciliation do (K8S: pkg/registry/rbac/validation/policy_comparator.go Covers,
 * BreakdownRule, ruleCovers; policy_compact.go CompactRules; pkg/apis/rbac/v1
 * evaluation_helpers.go CompactString). Pure functions over rbac/v1 PolicyRule objects. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apiserver/rbac.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/strbuf.h"
#include "base/utf8.h"

static json_t *list(const json_t *rule, const char *key)
{
        json_t *l = json_object_get(rule, key);
        return json_is_array(l) ? l : NULL;
}

static bool has(const json_t *set, const char *s)
{
        size_t i;
        json_t *v;

        json_array_foreach(set, i, v)
                if (json_is_string(v) && streq(json_string_value(v), s))
                        return true;
        return false;
}

static bool has_all(const json_t *set, const json_t *contains)
{
        size_t i;
        json_t *v;

        json_array_foreach(contains, i, v)
                if (!json_is_string(v) || !has(set, json_string_value(v)))
                        return false;
        return true;
}

json_t *rbac_rule_breakdown(const json_t *rule)
{
        json_t *out = json_array();
        const json_t *groups = list(rule, "apiGroups"), *resources = list(rule, "resources"),
                     *verbs = list(rule, "verbs"), *names = list(rule, "resourceNames"),
                     *urls = list(rule, "nonResourceURLs");
        size_t gi, ri, vi, ni;
        json_t *g, *r, *v, *n;

        json_array_foreach(groups, gi, g) {
                json_array_foreach(resources, ri, r) {
                        json_array_foreach(verbs, vi, v) {
                                if (json_array_size(names) == 0) {
                                        json_array_append_new(
                                                out, json_pack("{s:[O], s:[O], s:[O]}", "verbs", v,
                                                               "apiGroups", g, "resources", r));
                                        continue;
                                }
                                json_array_foreach(names, ni, n)
                                        json_array_append_new(
                                                out, json_pack("{s:[O], s:[O], s:[O], s:[O]}",
                                                               "verbs", v, "apiGroups", g,
                                                               "resources", r, "resourceNames", n));
                        }
                }
        }
        json_array_foreach(urls, ri, r)
                json_array_foreach(verbs, vi, v)
                        json_array_append_new(
                                out, json_pack("{s:[O], s:[O]}", "verbs", v, "nonResourceURLs", r));
        return out;
}

/* K8S: resourceCoversAll */
static bool resource_covers_all(const json_t *set, const json_t *covers)
{
        size_t i;
        json_t *v;

        if (has(set, "*") || has_all(set, covers))
                return true;
        json_array_foreach(covers, i, v) {
                const char *path = json_string_value(v), *slash;
                cleanup_free char *any = NULL;

                if (!path)
                        return false;
                if (has(set, path))
                        continue;
                slash = strchr(path, '/');
                if (!slash)
                        return false;
                any = xasprintf("*/%s", slash + 1);
                if (!has(set, any))
                        return false;
        }
        return true;
}

/* K8S: nonResourceURLCovers */
static bool url_covers(const char *owner, const char *sub)
{
        size_t n = strlen(owner);

        if (streq(owner, sub))
                return true;
        if (!n || owner[n - 1] != '*')
                return false;
        while (n && owner[n - 1] == '*')
                n--;
        return strncmp(sub, owner, n) == 0;
}

static bool urls_cover_all(const json_t *set, const json_t *covers)
{
        size_t i, j;
        json_t *v, *o;

        json_array_foreach(covers, i, v) {
                bool covered = false;

                json_array_foreach(set, j, o)
                        if (json_is_string(o) && json_is_string(v) &&
                            url_covers(json_string_value(o), json_string_value(v))) {
                                covered = true;
                                break;
                        }
                if (!covered)
                        return false;
        }
        return true;
}

bool rbac_rule_covers(const json_t *owner, const json_t *sub)
{
        const json_t *onames = list(owner, "resourceNames"), *snames = list(sub, "resourceNames");
        bool names;

        if (json_array_size(snames) == 0)
                names = json_array_size(onames) == 0;
        else
                names = json_array_size(onames) == 0 || has_all(onames, snames);
        return (has(list(owner, "verbs"), "*") ||
                has_all(list(owner, "verbs"), list(sub, "verbs"))) &&
               (has(list(owner, "apiGroups"), "*") ||
                has_all(list(owner, "apiGroups"), list(sub, "apiGroups"))) &&
               resource_covers_all(list(owner, "resources"), list(sub, "resources")) &&
               urls_cover_all(list(owner, "nonResourceURLs"), list(sub, "nonResourceURLs")) &&
               names;
}

bool rbac_rules_cover(const json_t *owner_rules, const json_t *servant_rules, json_t **ret_missing)
{
        json_t *missing = json_array();
        size_t i, j, k;
        json_t *servant, *sub, *owner;

        json_array_foreach(servant_rules, i, servant) {
                cleanup_json json_t *subs = rbac_rule_breakdown(servant);

                json_array_foreach(subs, j, sub) {
                        bool covered = false;

                        json_array_foreach(owner_rules, k, owner)
                                if (rbac_rule_covers(owner, sub)) {
                                        covered = true;
                                        break;
                                }
                        if (!covered)
                                json_array_append(missing, sub);
                }
        }
        if (ret_missing)
                *ret_missing = json_incref(missing);
        {
                bool all = json_array_size(missing) == 0;
                json_decref(missing);
                return all;
        }
}

/* K8S: isSimpleResourceRule: verbs, one group, one resource, at most one name, nothing else. */
static bool simple_rule(const json_t *rule)
{
        const char *key;
        json_t *v;

        if (json_array_size(list(rule, "resourceNames")) > 1 ||
            json_array_size(list(rule, "nonResourceURLs")) > 0 ||
            json_array_size(list(rule, "apiGroups")) != 1 ||
            json_array_size(list(rule, "resources")) != 1)
                return false;
        json_object_foreach((json_t *) rule, key, v)
                if (!streq(key, "verbs") && !streq(key, "apiGroups") && !streq(key, "resources") &&
                    !streq(key, "resourceNames") && !streq(key, "nonResourceURLs"))
                        return false;
        return true;
}

json_t *rbac_rules_compact(const json_t *rules)
{
        json_t *out = json_array();
        json_t *simple = json_array(); /* the merged simple rules, in first-seen order */
        size_t i, j, k;
        json_t *rule, *s;

        json_array_foreach(rules, i, rule) {
                bool merged = false;

                if (!simple_rule(rule)) {
                        json_array_append(out, rule);
                        continue;
                }
                json_array_foreach(simple, j, s) {
                        json_t *verbs;
                        json_t *v;

                        if (!json_equal(json_object_get(s, "apiGroups"),
                                        json_object_get(rule, "apiGroups")) ||
                            !json_equal(json_object_get(s, "resources"),
                                        json_object_get(rule, "resources")) ||
                            json_array_size(list(s, "resourceNames")) !=
                                    json_array_size(list(rule, "resourceNames")) ||
                            (json_array_size(list(rule, "resourceNames")) &&
                             !json_equal(list(s, "resourceNames"), list(rule, "resourceNames"))))
                                continue;
                        verbs = json_object_get(s, "verbs");
                        if (!json_is_array(verbs)) {
                                verbs = json_array();
                                json_object_set_new(s, "verbs", verbs);
                        }
                        json_array_foreach(list(rule, "verbs"), k, v)
                                if (json_is_string(v) && !has(verbs, json_string_value(v)))
                                        json_array_append(verbs, v);
                        merged = true;
                        break;
                }
                if (!merged)
                        json_array_append_new(simple, json_deep_copy(rule));
        }
        json_array_extend(out, simple);
        json_decref(simple);
        return out;
}

/* Go's %q of a []string: ["a" "b"]. */
static void add_quoted_list(struct strbuf *sb, const json_t *l)
{
        size_t i;
        json_t *v;

        strbuf_addch(sb, '[');
        json_array_foreach(l, i, v) {
                const char *s = json_string_value(v) ?: "";
                if (i)
                        strbuf_addch(sb, ' ');
                utf8_go_quote(sb, s, strlen(s));
        }
        strbuf_addch(sb, ']');
}

char *rbac_rule_compact_string(const json_t *rule)
{
        static const struct {
                const char *key, *label;
        } parts[] = {
                { "apiGroups", "APIGroups" },
                { "resources", "Resources" },
                { "nonResourceURLs", "NonResourceURLs" },
                { "resourceNames", "ResourceNames" },
                { "verbs", "Verbs" },
        };
        struct strbuf sb;
        bool first = true;

        strbuf_init(&sb);
        strbuf_addch(&sb, '{');
        for (size_t i = 0; i < ARRAY_SIZE(parts); i++) {
                const json_t *l = list(rule, parts[i].key);

                if (json_array_size(l) == 0)
                        continue;
                strbuf_addf(&sb, "%s%s:", first ? "" : ", ", parts[i].label);
                add_quoted_list(&sb, l);
                first = false;
        }
        strbuf_addch(&sb, '}');
        return strbuf_detach(&sb);
}
