/* audit-policy.c: the audit policy: reading an audit.k8s.io/v1 Policy as kube-apiserver's
 * policy reader and validation do (K8S pkg/audit/policy/reader.go, pkg/apis/audit/validation),
 * and the first-match evaluation of its rules (K8S pkg/audit/policy/checker.go). Pure: no I/O
 * but audit_policy_load's one read of the file. Writing events is audit.c's. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/field-error.h"
#include "api/validation.h"
#include "api/yaml.h"
#include "apiserver/audit.h"
#include "apiserver/authn.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/strbuf.h"

static const char *const level_names[AUDIT_LEVEL_MAX] = {
        [AUDIT_LEVEL_NONE] = "None",
        [AUDIT_LEVEL_METADATA] = "Metadata",
        [AUDIT_LEVEL_REQUEST] = "Request",
        [AUDIT_LEVEL_REQUEST_RESPONSE] = "RequestResponse",
};

static const char *const stage_names[AUDIT_STAGE_MAX] = {
        [AUDIT_STAGE_REQUEST_RECEIVED] = "RequestReceived",
        [AUDIT_STAGE_RESPONSE_STARTED] = "ResponseStarted",
        [AUDIT_STAGE_RESPONSE_COMPLETE] = "ResponseComplete",
        [AUDIT_STAGE_PANIC] = "Panic",
};

const char *audit_level_to_string(enum audit_level l)
{
        return l < AUDIT_LEVEL_MAX ? level_names[l] : "";
}

int audit_level_from_string(const char *s, enum audit_level *ret)
{
        for (int i = 0; i < AUDIT_LEVEL_MAX; i++)
                if (streq(s, level_names[i])) {
                        *ret = (enum audit_level) i;
                        return 0;
                }
        return -EINVAL;
}

const char *audit_stage_to_string(enum audit_stage s)
{
        return s < AUDIT_STAGE_MAX ? stage_names[s] : "";
}

int audit_stage_from_string(const char *s, enum audit_stage *ret)
{
        for (int i = 0; i < AUDIT_STAGE_MAX; i++)
                if (streq(s, stage_names[i])) {
                        *ret = (enum audit_stage) i;
                        return 0;
                }
        return -EINVAL;
}

/* K8S: audit GroupResources. The arrays are the policy document's own (NULL: absent). */
struct group_resources {
        const char *group;
        const json_t *resources;
        const json_t *resource_names;
};

/* K8S: audit PolicyRule; every list is an array of strings of the document, NULL when absent
 * or empty (an empty list matches everything, as a missing one). */
struct rule {
        enum audit_level level;
        const json_t *users;
        const json_t *user_groups;
        const json_t *verbs;
        const json_t *namespaces;
        const json_t *non_resource_urls;
        struct group_resources *resources;
        size_t n_resources;
        unsigned omit_stages;
        int omit_managed_fields; /* -1: not set */
};

struct audit_policy {
        json_t *doc; /* owns every string the rules point to */
        struct rule *rules;
        size_t n_rules;
        unsigned omit_stages;
        bool omit_managed_fields;
};

struct audit_policy *audit_policy_free(struct audit_policy *p)
{
        if (!p)
                return NULL;
        for (size_t i = 0; i < p->n_rules; i++)
                free(p->rules[i].resources);
        free(p->rules);
        json_decref(p->doc);
        free(p);
        return NULL;
}

/* K8S: encoding/json's type error, as the decoder reports a field of the wrong type. */
static int type_error(const json_t *v, const char *field, const char *go_type,
                      struct error **reterr)
{
        return error_set(reterr, EINVAL,
                         "failed decoding: json: cannot unmarshal %s into Go struct field %s of "
                         "type %s",
                         json_go_kind(v), field, go_type);
}

/* A []string field: NULL (absent, null or empty) or an array of strings. */
static int string_list(const json_t *obj, const char *key, const char *field, const json_t **ret,
                       struct error **reterr)
{
        const json_t *v = json_object_get(obj, key), *item;
        size_t i;

        *ret = NULL;
        if (!v || json_is_null(v))
                return 0;
        if (!json_is_array(v))
                return type_error(v, field, "[]string", reterr);
        json_array_foreach(v, i, item)
                if (!json_is_string(item))
                        return type_error(item, field, "string", reterr);
        if (json_array_size(v) > 0)
                *ret = v;
        return 0;
}

/* Go's %#v of a []string, as field.Invalid shows such a value. */
static char *go_string_slice(const json_t *list)
{
        struct strbuf sb;
        const json_t *item;
        size_t i;

        strbuf_init(&sb);
        strbuf_addstr(&sb, "[]string{");
        json_array_foreach(list, i, item) {
                cleanup_free char *q = field_value_quote(json_string_value(item));
                strbuf_addf(&sb, "%s%s", i ? ", " : "", q);
        }
        strbuf_addstr(&sb, "}");
        return strbuf_detach(&sb);
}

/* K8S validateOmitStages; the bits of the valid ones go into *ret. */
static int omit_stages(const json_t *obj, const char *field, unsigned *ret,
                       struct field_error_list *errs, struct error **reterr)
{
        const json_t *list, *item;
        size_t i;
        int r;

        *ret = 0;
        cleanup_free char *go_field = xasprintf("%s.omitStages", field[0] ? field : "Policy");
        r = string_list(obj, "omitStages", go_field, &list, reterr);
        if (r < 0 || !list)
                return r;
        json_array_foreach(list, i, item) {
                enum audit_stage st;
                cleanup_free char *path =
                        xasprintf("%s%somitStages[%zu]", field, field[0] ? "." : "", i);
                cleanup_free char *q = field_value_quote(json_string_value(item));

                if (audit_stage_from_string(json_string_value(item), &st) == 0)
                        *ret |= 1u << st;
                else
                        field_error_add(errs, FIELD_ERROR_INVALID, path, q,
                                        "allowed stages are "
                                        "RequestReceived,ResponseStarted,ResponseComplete,Panic");
        }
        return 0;
}

static int parse_resources(const json_t *rule, const char *field, struct rule *r,
                           struct field_error_list *errs, struct error **reterr)
{
        const json_t *list = json_object_get(rule, "resources"), *gr;
        cleanup_free char *path = xasprintf("%s.resources", field);
        size_t i;

        if (!list || json_is_null(list))
                return 0;
        if (!json_is_array(list))
                return type_error(list, "PolicyRule.rules.resources", "[]v1.GroupResources",
                                  reterr);
        r->resources = xcalloc(json_array_size(list) + 1, sizeof(*r->resources));
        json_array_foreach(list, i, gr) {
                struct group_resources *g = &r->resources[r->n_resources++];
                const json_t *group;

                if (!json_is_object(gr))
                        return type_error(gr, "PolicyRule.rules.resources", "v1.GroupResources",
                                          reterr);
                group = json_object_get(gr, "group");
                if (group && !json_is_null(group) && !json_is_string(group))
                        return type_error(group, "GroupResources.rules.resources.group", "string",
                                          reterr);
                g->group = json_is_string(group) ? json_string_value(group) : "";
                if (string_list(gr, "resources", "GroupResources.rules.resources.resources",
                                &g->resources, reterr) < 0 ||
                    string_list(gr, "resourceNames", "GroupResources.rules.resources.resourceNames",
                                &g->resource_names, reterr) < 0)
                        return -EINVAL;
                /* K8S validateResources: a group is a lower-case DNS subdomain ("" the core
                 * group); resourceNames need a resource */
                if (g->group[0]) {
                        cleanup_free char *gpath = xasprintf("%s.group", path);
                        (void) validate_dns1123_subdomain(g->group, gpath, errs);
                }
                if (g->resource_names && !g->resources) {
                        cleanup_free char *npath = xasprintf("%s.resourceNames", path);
                        cleanup_free char *v = go_string_slice(g->resource_names);
                        field_error_add(errs, FIELD_ERROR_INVALID, npath, v,
                                        "using resourceNames requires at least one resource");
                }
        }
        return 0;
}

static int parse_rule(const json_t *obj, size_t index, struct rule *r,
                      struct field_error_list *errs, struct error **reterr)
{
        cleanup_free char *field = xasprintf("rules[%zu]", index);
        cleanup_free char *lpath = xasprintf("%s.level", field);
        const json_t *level, *omf;
        const json_t *item;
        size_t i;

        *r = (struct rule){ .omit_managed_fields = -1 };
        if (!json_is_object(obj))
                return type_error(obj, "Policy.rules", "v1.PolicyRule", reterr);
        level = json_object_get(obj, "level");
        if (level && !json_is_null(level) && !json_is_string(level))
                return type_error(level, "PolicyRule.rules.level", "v1.Level", reterr);
        if (string_list(obj, "users", "PolicyRule.rules.users", &r->users, reterr) < 0 ||
            string_list(obj, "userGroups", "PolicyRule.rules.userGroups", &r->user_groups, reterr) <
                    0 ||
            string_list(obj, "verbs", "PolicyRule.rules.verbs", &r->verbs, reterr) < 0 ||
            string_list(obj, "namespaces", "PolicyRule.rules.namespaces", &r->namespaces, reterr) <
                    0 ||
            string_list(obj, "nonResourceURLs", "PolicyRule.rules.nonResourceURLs",
                        &r->non_resource_urls, reterr) < 0 ||
            parse_resources(obj, field, r, errs, reterr) < 0 ||
            omit_stages(obj, field, &r->omit_stages, errs, reterr) < 0)
                return -EINVAL;
        omf = json_object_get(obj, "omitManagedFields");
        if (omf && !json_is_null(omf) && !json_is_boolean(omf))
                return type_error(omf, "PolicyRule.rules.omitManagedFields", "bool", reterr);
        if (json_is_boolean(omf))
                r->omit_managed_fields = json_is_true(omf);

        /* K8S validateLevel */
        if (!json_is_string(level) || !json_string_value(level)[0]) {
                field_error_add(errs, FIELD_ERROR_REQUIRED, lpath, NULL, "%s", "");
        } else if (audit_level_from_string(json_string_value(level), &r->level) < 0) {
                cleanup_free char *q = field_value_quote(json_string_value(level));
                field_error_add(errs, FIELD_ERROR_NOT_SUPPORTED, lpath, q,
                                "supported values: \"None\", \"Metadata\", \"Request\", "
                                "\"RequestResponse\"");
        }
        /* K8S validateNonResourceURLs */
        json_array_foreach(r->non_resource_urls, i, item) {
                const char *url = json_string_value(item);
                size_t len = strlen(url);
                cleanup_free char *upath = xasprintf("%s.nonResourceURLs[%zu]", field, i);
                cleanup_free char *q = field_value_quote(url);

                if (streq(url, "*"))
                        continue;
                if (url[0] != '/')
                        field_error_add(errs, FIELD_ERROR_INVALID, upath, q,
                                        "non-resource URL rules must begin with a '/' character");
                if (len > 0 && memchr(url, '*', len - 1))
                        field_error_add(
                                errs, FIELD_ERROR_INVALID, upath, q,
                                "non-resource URL wildcards '*' must be the final character of "
                                "the rule");
        }
        if (r->non_resource_urls && (r->n_resources > 0 || r->namespaces)) {
                cleanup_free char *upath = xasprintf("%s.nonResourceURLs", field);
                cleanup_free char *v = go_string_slice(r->non_resource_urls);
                field_error_add(errs, FIELD_ERROR_INVALID, upath, v,
                                "rules cannot apply to both regular resources and non-resource "
                                "URLs");
        }
        return 0;
}

/* K8S: the universal decoder's checks of the document's type. */
static int check_type(const json_t *doc, struct error **reterr)
{
        const char *kind = json_path_string(doc, "kind");
        const char *version = json_path_string(doc, "apiVersion");
        cleanup_free char *text = json_dump_compact(doc);

        if (!version || !version[0])
                return error_set(reterr, EINVAL,
                                 "failed decoding: Object 'apiVersion' is missing in '%s'", text);
        if (!kind || !kind[0])
                return error_set(reterr, EINVAL,
                                 "failed decoding: Object 'Kind' is missing in '%s'", text);
        if (!streq(version, "audit.k8s.io/v1") || !streq(kind, "Policy"))
                return error_set(reterr, EINVAL,
                                 "failed decoding: no kind \"%s\" is registered for version "
                                 "\"%s\" in scheme \"k8s.io/apiserver/pkg/audit/scheme.go\"",
                                 kind, version);
        return 0;
}

int audit_policy_parse(const char *text, size_t len, struct audit_policy **ret,
                       struct error **reterr)
{
        cleanup_json json_t *doc = NULL;
        cleanup_audit_policy struct audit_policy *p = NULL;
        struct field_error_list errs;
        const json_t *rules, *item, *omf;
        size_t i;
        int r = 0;

        if (yaml_to_json(text, len, &doc, reterr) < 0)
                return error_wrap(reterr, "failed decoding");
        if (!json_is_object(doc))
                return error_set(reterr, EINVAL,
                                 "failed decoding: json: cannot unmarshal %s into Go value of "
                                 "type struct { APIVersion string \"json:\\\"apiVersion,"
                                 "omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" }",
                                 json_go_kind(doc));
        if (check_type(doc, reterr) < 0)
                return -EINVAL;
        p = xcalloc(1, sizeof(*p));
        p->doc = json_incref(doc);
        rules = json_object_get(doc, "rules");
        if (rules && !json_is_null(rules) && !json_is_array(rules))
                return type_error(rules, "Policy.rules", "[]v1.PolicyRule", reterr);
        omf = json_object_get(doc, "omitManagedFields");
        if (omf && !json_is_null(omf) && !json_is_boolean(omf))
                return type_error(omf, "Policy.omitManagedFields", "bool", reterr);
        p->omit_managed_fields = json_is_true(omf);
        field_error_list_init(&errs);
        if (omit_stages(doc, "", &p->omit_stages, &errs, reterr) < 0) {
                field_error_list_release(&errs);
                return -EINVAL;
        }
        p->rules = xcalloc(json_array_size(rules) + 1, sizeof(*p->rules));
        json_array_foreach(rules, i, item) {
                r = parse_rule(item, i, &p->rules[i], &errs, reterr);
                p->n_rules = i + 1;
                if (r < 0)
                        break;
        }
        if (r == 0 && errs.n > 0) {
                cleanup_free char *msg = field_error_list_string(&errs);
                r = error_set(reterr, EINVAL, "%s", msg);
        }
        field_error_list_release(&errs);
        if (r < 0)
                return r;
        if (p->n_rules == 0)
                return error_set(reterr, EINVAL, "loaded illegal policy with 0 rules");
        *ret = TAKE_PTR(p);
        return 0;
}

/* The whole file at path (a symbolic link is followed: an operator's file, often a mounted
 * config), at most the 3 MiB a YAML body may have. */
static int read_file(const char *path, char **ret, size_t *ret_len)
{
        cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC);
        struct strbuf sb;
        char chunk[8192];
        ssize_t n;

        if (fd < 0)
                return -errno;
        strbuf_init(&sb);
        while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 || sb.len + (size_t) n > YAML_MAX_INPUT_BYTES) {
                        int r = n < 0 ? -errno : -EFBIG;
                        strbuf_release(&sb);
                        return r;
                }
                strbuf_add(&sb, chunk, (size_t) n);
        }
        *ret_len = sb.len;
        *ret = strbuf_detach(&sb);
        return 0;
}

int audit_policy_load(const char *path, struct audit_policy **ret, struct error **reterr)
{
        cleanup_error struct error *err = NULL;
        cleanup_free char *text = NULL;
        size_t len = 0;
        int r;

        r = read_file(path, &text, &len);
        if (r < 0)
                return error_set(reterr, -r,
                                 "loading audit policy file: failed to read file path \"%s\": "
                                 "open %s: %s",
                                 path, path, strerror(-r));
        if (audit_policy_parse(text, len, ret, &err) < 0)
                return error_set(reterr, EINVAL, "loading audit policy file: %s: from file %s",
                                 err->message, path);
        return 0;
}

/* ---- evaluation (K8S pkg/audit/policy/checker.go) ---- */

static bool list_has(const json_t *list, const char *s)
{
        return json_array_has_string(list, s ? s : "");
}

static bool rule_matches_user(const struct rule *r, const struct authn_user *u)
{
        bool found = false;

        if (r->users && (!u || !list_has(r->users, u->name)))
                return false;
        if (!r->user_groups)
                return true;
        for (size_t i = 0; u && u->groups && u->groups[i] && !found; i++)
                found = list_has(r->user_groups, u->groups[i]);
        return found;
}

static bool has_prefix(const char *s, const char *prefix, size_t n)
{
        return strncmp(s, prefix, n) == 0;
}

static bool has_suffix(const char *s, const char *suffix, size_t n)
{
        size_t len = strlen(s);
        return len >= n && memcmp(s + len - n, suffix, n) == 0;
}

/* K8S ruleMatchesResource: "*" any resource, "pods/status" a subresource, "*\/status" that
 * subresource of any resource, "pods/\*" any subresource of pods. */
static bool rule_matches_resource(const struct rule *r, const struct audit_attributes *a)
{
        const char *sub = a->subresource ? a->subresource : "";
        cleanup_free char *combined = NULL;

        if (!a->resource_request)
                return false;
        if (r->namespaces && !list_has(r->namespaces, a->ns))
                return false;
        if (r->n_resources == 0)
                return true;
        combined = sub[0] ? xasprintf("%s/%s", a->resource, sub) : xstrdup(a->resource);
        for (size_t i = 0; i < r->n_resources; i++) {
                const struct group_resources *g = &r->resources[i];
                const json_t *item;
                size_t j;

                if (!streq(g->group, a->api_group ? a->api_group : ""))
                        continue;
                if (!g->resources)
                        return true;
                json_array_foreach(g->resources, j, item) {
                        const char *res = json_string_value(item);
                        size_t len = strlen(res);

                        if (g->resource_names && !list_has(g->resource_names, a->name))
                                continue;
                        if (streq(res, combined) || streq(res, "*"))
                                return true;
                        if (res[0] == '*' && has_suffix(combined, res + 1, len - 1))
                                return true;
                        if (len > 0 && res[len - 1] == '*' && has_prefix(combined, res, len - 1))
                                return true;
                }
        }
        return false;
}

/* K8S ruleMatchesNonResource: "*" any path, a trailing "*" a prefix. */
static bool rule_matches_non_resource(const struct rule *r, const struct audit_attributes *a)
{
        const json_t *item;
        size_t i;

        if (a->resource_request)
                return false;
        json_array_foreach(r->non_resource_urls, i, item) {
                const char *spec = json_string_value(item);
                size_t len = strlen(spec);

                if (streq(spec, "*") || streq(spec, a->path ? a->path : ""))
                        return true;
                if (len > 0 && spec[len - 1] == '*' &&
                    has_prefix(a->path ? a->path : "", spec, len - 1))
                        return true;
        }
        return false;
}

static bool rule_matches(const struct rule *r, const struct authn_user *u,
                         const struct audit_attributes *a)
{
        if (!rule_matches_user(r, u))
                return false;
        if (r->verbs && !list_has(r->verbs, a->verb))
                return false;
        if (r->namespaces || r->n_resources > 0)
                return rule_matches_resource(r, a);
        if (r->non_resource_urls)
                return rule_matches_non_resource(r, a);
        return true;
}

void audit_policy_evaluate(const struct audit_policy *p, const struct authn_user *user,
                           const struct audit_attributes *a, struct audit_decision *ret)
{
        for (size_t i = 0; i < p->n_rules; i++) {
                const struct rule *r = &p->rules[i];

                if (!rule_matches(r, user, a))
                        continue;
                ret->level = r->level;
                ret->omit_stages = r->omit_stages | p->omit_stages;
                ret->omit_managed_fields = r->omit_managed_fields >= 0 ? r->omit_managed_fields
                                                                       : p->omit_managed_fields;
                return;
        }
        /* K8S: DefaultAuditLevel is None */
        ret->level = AUDIT_LEVEL_NONE;
        ret->omit_stages = p->omit_stages;
        ret->omit_managed_fields = p->omit_managed_fields;
}
