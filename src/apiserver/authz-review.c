/* authz-review.c: the four authorization.k8s.io/v1 reviews (authz-review.h): their validation
 * (the strategies' validate_create, which registry.c runs before the hooks), the authorizer
 * attributes a review's spec names (K8S: pkg/registry/authorization/util helpers.go), and the
 * answers. Whether the chain allows is authz.c's; which rules a user holds, the modes'. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/field-error.h"
#include "api/selector.h"
#include "apiserver/authn.h"
#include "apiserver/authz-review.h"
#include "apiserver/authz.h"
#include "apiserver/resources.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/strbuf.h"
#include "base/timeutil.h"
#include "base/utf8.h"

#define AUTHZ_API_VERSION "authorization.k8s.io/v1"

/* ---- Go's %#v of the values validation names ---- */

static void go_quoted(struct strbuf *sb, const char *s)
{
        utf8_go_quote(sb, s, strlen(s));
}

/* `authorization.NonResourceAttributes{Path:"/x", Verb:"get"}`: field.Invalid's rendering of
 * the internal type (no String method: %#v). */
static char *go_non_resource_attributes(const json_t *nra)
{
        struct strbuf sb;

        strbuf_init(&sb);
        strbuf_addstr(&sb, "authorization.NonResourceAttributes{Path:");
        go_quoted(&sb, json_path_string_or_empty(nra, "path"));
        strbuf_addstr(&sb, ", Verb:");
        go_quoted(&sb, json_path_string_or_empty(nra, "verb"));
        strbuf_addch(&sb, '}');
        return strbuf_detach(&sb);
}

static int cmp_strp(const void *a, const void *b)
{
        return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* map[string]string{"a":"b"} (keys sorted, as fmt prints maps), or map[string]string(nil). */
static void go_string_map(struct strbuf *sb, const json_t *m)
{
        const char **keys;
        const char *k;
        json_t *v;
        size_t n = 0;

        if (json_object_size(m) == 0) {
                strbuf_addstr(sb, "map[string]string(nil)");
                return;
        }
        keys = xcalloc(json_object_size(m), sizeof(*keys));
        json_object_foreach((json_t *) m, k, v)
                keys[n++] = k;
        qsort(keys, n, sizeof(*keys), cmp_strp);
        strbuf_addstr(sb, "map[string]string{");
        for (size_t i = 0; i < n; i++) {
                if (i)
                        strbuf_addstr(sb, ", ");
                go_quoted(sb, keys[i]);
                strbuf_addch(sb, ':');
                go_quoted(sb, json_string_value(json_object_get(m, keys[i])) ?: "");
        }
        strbuf_addch(sb, '}');
        free(keys);
}

/* time.Date(2024, time.January, 2, 3, 4, 5, 0, time.UTC) of an RFC 3339 string (the zero time
 * when absent or unreadable) */
static void go_time(struct strbuf *sb, const char *rfc3339)
{
        static const char *const months[] = { "January",   "February", "March",    "April",
                                              "May",       "June",     "July",     "August",
                                              "September", "October",  "November", "December" };
        time_t t;
        struct tm tm = { .tm_year = 1 - 1900, .tm_mday = 1 };

        if (rfc3339 && time_parse_rfc3339(rfc3339, &t) == 0)
                (void) gmtime_r(&t, &tm);
        strbuf_addf(sb, "time.Date(%d, time.%s, %d, %d, %d, %d, 0, time.UTC)", tm.tm_year + 1900,
                    months[tm.tm_mon], tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

/* field.Invalid's %#v of a metav1.ObjectMeta (a value, whose String method is the pointer's).
 * Lists of structs (ownerReferences, managedFields) are shown by their length only. */
static char *go_object_meta(const json_t *meta)
{
        static const struct {
                const char *go, *json;
        } strings[] = { { "Name", "name" },
                        { "GenerateName", "generateName" },
                        { "Namespace", "namespace" },
                        { "SelfLink", "selfLink" },
                        { "UID", "uid" },
                        { "ResourceVersion", "resourceVersion" } };
        const json_t *fin = json_object_get(meta, "finalizers");
        const char *del = json_path_string(meta, "deletionTimestamp");
        const json_t *grace = json_object_get(meta, "deletionGracePeriodSeconds");
        struct strbuf sb;
        size_t i;
        json_t *v;

        strbuf_init(&sb);
        strbuf_addstr(&sb, "v1.ObjectMeta{");
        for (i = 0; i < ARRAY_SIZE(strings); i++) {
                strbuf_addf(&sb, "%s:", strings[i].go);
                go_quoted(&sb, json_path_string_or_empty(meta, strings[i].json));
                strbuf_addstr(&sb, ", ");
        }
        strbuf_addf(&sb, "Generation:%lld, CreationTimestamp:v1.Time{Time:",
                    (long long) json_integer_value(json_object_get(meta, "generation")));
        go_time(&sb, json_path_string(meta, "creationTimestamp"));
        strbuf_addstr(&sb, "}, DeletionTimestamp:");
        if (del) {
                strbuf_addstr(&sb, "&v1.Time{Time:");
                go_time(&sb, del);
                strbuf_addch(&sb, '}');
        } else {
                strbuf_addstr(&sb, "(*v1.Time)(nil)");
        }
        if (json_is_integer(grace))
                strbuf_addf(&sb, ", DeletionGracePeriodSeconds:&%lld",
                            (long long) json_integer_value(grace));
        else
                strbuf_addstr(&sb, ", DeletionGracePeriodSeconds:(*int64)(nil)");
        strbuf_addstr(&sb, ", Labels:");
        go_string_map(&sb, json_object_get(meta, "labels"));
        strbuf_addstr(&sb, ", Annotations:");
        go_string_map(&sb, json_object_get(meta, "annotations"));
        if (json_array_size(json_object_get(meta, "ownerReferences")))
                strbuf_addf(&sb, ", OwnerReferences:[]v1.OwnerReference{...%zu}",
                            json_array_size(json_object_get(meta, "ownerReferences")));
        else
                strbuf_addstr(&sb, ", OwnerReferences:[]v1.OwnerReference(nil)");
        if (json_array_size(fin)) {
                strbuf_addstr(&sb, ", Finalizers:[]string{");
                json_array_foreach(fin, i, v) {
                        if (i)
                                strbuf_addstr(&sb, ", ");
                        go_quoted(&sb, json_string_value(v) ?: "");
                }
                strbuf_addch(&sb, '}');
        } else {
                strbuf_addstr(&sb, ", Finalizers:[]string(nil)");
        }
        /* K8S: validation clears ManagedFields before it compares and prints */
        strbuf_addstr(&sb, ", ManagedFields:[]v1.ManagedFieldsEntry(nil)}");
        return strbuf_detach(&sb);
}

/* ---- validation (K8S: pkg/apis/authorization/validation) ---- */

/* Whether v is its type's zero value (apimachinery's Semantic.DeepEqual against the zero
 * ObjectMeta: null, "", 0, false, and an empty map or list, which it takes as nil). */
static bool zero_value(const json_t *v)
{
        return !v || json_is_null(v) || json_is_false(v) ||
               (json_is_string(v) && json_string_length(v) == 0) ||
               (json_is_integer(v) && json_integer_value(v) == 0) ||
               (json_is_object(v) && json_object_size(v) == 0) ||
               (json_is_array(v) && json_array_size(v) == 0);
}

/* Whether metadata holds nothing but managedFields (and namespace when allowed). */
static bool metadata_empty(const json_t *meta, bool namespace_allowed)
{
        const char *k;
        json_t *v;

        json_object_foreach((json_t *) meta, k, v) {
                if (streq(k, "managedFields") || (namespace_allowed && streq(k, "namespace")))
                        continue;
                if (!zero_value(v))
                        return false;
        }
        return true;
}

static bool present(const json_t *v)
{
        return v && !json_is_null(v);
}

/* K8S: ValidateSubjectAccessReviewSpec (with_user) and ValidateSelfSubjectAccessReviewSpec */
static void validate_spec(const json_t *spec, bool with_user, struct field_error_list *errs)
{
        const json_t *ra = json_object_get(spec, "resourceAttributes");
        const json_t *nra = json_object_get(spec, "nonResourceAttributes");

        if (present(ra) && present(nra)) {
                cleanup_free char *v = go_non_resource_attributes(nra);
                field_error_add(errs, FIELD_ERROR_INVALID, "spec.nonResourceAttributes", v,
                                "cannot be specified in combination with resourceAttributes");
        }
        if (!present(ra) && !present(nra))
                /* K8S: the value shown is the (nil) nonResourceAttributes */
                field_error_add(errs, FIELD_ERROR_INVALID, "spec.resourceAttributes", "\"null\"",
                                "exactly one of nonResourceAttributes or resourceAttributes must "
                                "be specified");
        if (with_user && !json_path_string_or_empty(spec, "user")[0] &&
            json_array_size(json_object_get(spec, "groups")) == 0) {
                cleanup_free char *v = field_value_quote(json_path_string_or_empty(spec, "user"));
                field_error_add(errs, FIELD_ERROR_INVALID, "spec.user", v,
                                "at least one of user or group must be specified");
        }
}

static void validate_metadata(const json_t *obj, bool namespace_allowed,
                              struct field_error_list *errs)
{
        const json_t *meta = json_object_get(obj, "metadata");
        cleanup_free char *v = NULL;

        if (metadata_empty(meta, namespace_allowed))
                return;
        v = go_object_meta(meta);
        field_error_add(errs, FIELD_ERROR_INVALID, "metadata", v, "%s",
                        namespace_allowed ? "must be empty except for namespace" : "must be empty");
}

/* K8S: ValidateSubjectAccessReview */
static void validate_sar(const json_t *obj, struct field_error_list *errs)
{
        validate_spec(json_object_get(obj, "spec"), true, errs);
        validate_metadata(obj, false, errs);
}

/* K8S: ValidateSelfSubjectAccessReview */
static void validate_self_sar(const json_t *obj, struct field_error_list *errs)
{
        validate_spec(json_object_get(obj, "spec"), false, errs);
        validate_metadata(obj, false, errs);
}

/* K8S: ValidateLocalSubjectAccessReview: the namespace of the review (registry.c set it from
 * the URL) is the one resourceAttributes must name */
static void validate_local_sar(const json_t *obj, struct field_error_list *errs)
{
        const json_t *spec = json_object_get(obj, "spec");
        const json_t *ra = json_object_get(spec, "resourceAttributes");
        const json_t *nra = json_object_get(spec, "nonResourceAttributes");

        validate_spec(spec, true, errs);
        validate_metadata(obj, true, errs);
        if (present(ra) && !streq(json_path_string_or_empty(ra, "namespace"),
                                  json_path_string_or_empty(obj, "metadata.namespace"))) {
                cleanup_free char *v =
                        field_value_quote(json_path_string_or_empty(ra, "namespace"));
                field_error_add(errs, FIELD_ERROR_INVALID, "spec.resourceAttributes.namespace", v,
                                "must match metadata.namespace");
        }
        if (present(nra)) {
                cleanup_free char *v = go_non_resource_attributes(nra);
                field_error_add(errs, FIELD_ERROR_INVALID, "spec.nonResourceAttributes", v,
                                "disallowed on this kind of request");
        }
}

const struct resource_strategy subject_access_review_strategy = {
        .validate_create = validate_sar,
};
const struct resource_strategy self_subject_access_review_strategy = {
        .validate_create = validate_self_sar,
};
const struct resource_strategy local_subject_access_review_strategy = {
        .validate_create = validate_local_sar,
};

/* ---- the attributes a spec names (K8S: authorization util helpers.go) ---- */

/* What attributes_from_spec keeps alive for the attributes. */
struct spec_attributes {
        struct authz_attributes a;
        char *field_selector;
        struct strbuf evaluation_errors; /* "; "-joined, as BuildEvaluationError */
};

static void spec_attributes_release(struct spec_attributes *s)
{
        free(s->field_selector);
        strbuf_release(&s->evaluation_errors);
}

static void add_evaluation_error(struct spec_attributes *s, const char *msg)
{
        if (s->evaluation_errors.len)
                strbuf_addstr(&s->evaluation_errors, "; ");
        strbuf_addstr(&s->evaluation_errors, msg);
}

/* A field selector value with `\`, `,` and `=` escaped (fields.EscapeValue). */
static void add_escaped_value(struct strbuf *sb, const char *v)
{
        for (; *v; v++) {
                if (*v == '\\' || *v == ',' || *v == '=')
                        strbuf_addch(sb, '\\');
                strbuf_addch(sb, *v);
        }
}

/* K8S: fieldSelectorAsSelector: In and NotIn with one value become `k=v` and `k!=v`; anything
 * else is dropped (upstream's errors only decide the evaluation error's wording). Returns the
 * selector text ("" for none) and whether something was dropped. */
static char *field_requirements_selector(const json_t *reqs, bool *ret_dropped)
{
        struct strbuf sb;
        size_t i, kept = 0;
        const json_t *r;

        *ret_dropped = false;
        strbuf_init(&sb);
        json_array_foreach(reqs, i, r) {
                const char *op = json_path_string_or_empty(r, "operator");
                const json_t *values = json_object_get(r, "values");
                bool in = streq(op, "In"), not_in = streq(op, "NotIn");

                if (!(in || not_in) || json_array_size(values) != 1) {
                        *ret_dropped = true;
                        continue;
                }
                if (kept++)
                        strbuf_addch(&sb, ',');
                strbuf_addstr(&sb, json_path_string_or_empty(r, "key"));
                strbuf_addstr(&sb, in ? "=" : "!=");
                add_escaped_value(&sb, json_string_value(json_array_get(values, 0)) ?: "");
        }
        return strbuf_detach(&sb);
}

/* K8S: labelSelectorAsSelector's operators */
static bool label_operator_valid(const char *op)
{
        return streq(op, "In") || streq(op, "NotIn") || streq(op, "Exists") ||
               streq(op, "DoesNotExist");
}

/* K8S: ResourceAttributesFrom and NonResourceAttributesFrom: the attributes of spec for user
 * (borrowed), pointing into spec. */
static void attributes_from_spec(const json_t *spec, const struct authn_user *user,
                                 struct spec_attributes *ret)
{
        const json_t *ra = json_object_get(spec, "resourceAttributes");
        const json_t *nra = json_object_get(spec, "nonResourceAttributes");
        struct authz_attributes *a = &ret->a;

        *ret = (struct spec_attributes){ 0 };
        strbuf_init(&ret->evaluation_errors);
        *a = (struct authz_attributes){ .user = user,
                                        .verb = "",
                                        .api_group = "",
                                        .api_version = "",
                                        .resource = "",
                                        .subresource = "",
                                        .ns = "",
                                        .name = "",
                                        .path = "",
                                        .field_selector = "" };
        if (!present(ra)) {
                a->path = json_path_string_or_empty(nra, "path");
                a->verb = json_path_string_or_empty(nra, "verb");
                return;
        }
        a->resource_request = true;
        a->verb = json_path_string_or_empty(ra, "verb");
        a->ns = json_path_string_or_empty(ra, "namespace");
        a->api_group = json_path_string_or_empty(ra, "group");
        /* K8S: matchAllVersionIfEmpty */
        a->api_version = json_path_string_or_empty(ra, "version")[0]
                                 ? json_path_string_or_empty(ra, "version")
                                 : "*";
        a->resource = json_path_string_or_empty(ra, "resource");
        a->subresource = json_path_string_or_empty(ra, "subresource");
        a->name = json_path_string_or_empty(ra, "name");
        /* K8S: the requirements, when given, take the raw selector's place */
        if (json_array_size(json_path(ra, "fieldSelector.requirements"))) {
                bool dropped;

                ret->field_selector = field_requirements_selector(
                        json_path(ra, "fieldSelector.requirements"), &dropped);
                if (dropped)
                        add_evaluation_error(ret, ret->field_selector[0]
                                                          ? "spec.resourceAttributes.fieldSelector "
                                                            "partially ignored due to parse error"
                                                          : "spec.resourceAttributes.fieldSelector "
                                                            "ignored due to parse error");
                a->field_selector = ret->field_selector;
        } else {
                a->field_selector = json_path_string_or_empty(ra, "fieldSelector.rawSelector");
        }
        /* No authorizer flexlet has reads label selectors; only whether they parse shows */
        if (json_array_size(json_path(ra, "labelSelector.requirements"))) {
                size_t i, bad = 0, n = json_array_size(json_path(ra, "labelSelector.requirements"));
                const json_t *r;

                json_array_foreach(json_path(ra, "labelSelector.requirements"), i, r)
                        if (!label_operator_valid(json_path_string_or_empty(r, "operator")))
                                bad++;
                if (bad)
                        add_evaluation_error(ret, bad < n ? "spec.resourceAttributes.labelSelector "
                                                            "partially ignored due to parse error"
                                                          : "spec.resourceAttributes.labelSelector "
                                                            "ignored due to parse error");
        } else if (json_path_string_or_empty(ra, "labelSelector.rawSelector")[0]) {
                struct label_selector *sel = NULL;
                struct error *err = NULL;

                if (label_selector_parse(json_path_string(ra, "labelSelector.rawSelector"), &sel,
                                         &err) < 0)
                        add_evaluation_error(ret, "spec.resourceAttributes.labelSelector ignored "
                                                  "due to parse error");
                label_selector_free(sel);
                error_free(err);
        }
}

/* ---- the answers ---- */

/* K8S: SubjectAccessReviewStatus from the chain's decision on the spec's attributes */
static json_t *decide(const struct review_context *c, const json_t *spec,
                      const struct authn_user *user)
{
        struct spec_attributes sa;
        cleanup_free char *reason = NULL;
        enum authz_decision d;
        json_t *status;

        attributes_from_spec(spec, user, &sa);
        d = authz_authorize(c->authz, &sa.a, &reason);
        status = json_pack("{s:b}", "allowed", d == AUTHZ_ALLOW);
        if (d == AUTHZ_DENY)
                json_object_set_new(status, "denied", json_true());
        if (reason && reason[0])
                json_object_set_new(status, "reason", json_string(reason));
        if (sa.evaluation_errors.len)
                json_object_set_new(status, "evaluationError",
                                    json_string(sa.evaluation_errors.buf));
        spec_attributes_release(&sa);
        return status;
}

/* obj with its status, as the REST storages return the review they were given */
static json_t *answer_with(const json_t *obj, json_t *status)
{
        json_t *answer = json_deep_copy(obj);
        json_t *meta = json_object_ensure(answer, "metadata");

        if (!json_object_get(meta, "creationTimestamp"))
                json_object_set_new(meta, "creationTimestamp", json_null());
        json_object_set_new(answer, "status", status);
        return answer;
}

/* K8S: AuthorizationAttributesFrom's user: spec.user, spec.groups and spec.uid as they are */
static json_t *answer_for_spec_user(const struct review_context *c, const json_t *obj)
{
        const json_t *spec = json_object_get(obj, "spec");
        const json_t *groups = json_object_get(spec, "groups");
        struct authn_user u = {
                .name = (char *) json_path_string_or_empty(spec, "user"),
                .uid = (char *) json_path_string_or_empty(spec, "uid"),
        };
        size_t i, n = 0;
        const json_t *g;
        json_t *status;

        u.groups = xcalloc(json_array_size(groups) + 1, sizeof(*u.groups));
        json_array_foreach(groups, i, g)
                if (json_is_string(g))
                        u.groups[n++] = (char *) json_string_value(g);
        status = decide(c, spec, &u);
        free(u.groups);
        return answer_with(obj, status);
}

int authz_subject_access_review(const struct review_context *c, const json_t *obj, json_t **ret,
                                struct error **reterr)
{
        *ret = answer_for_spec_user(c, obj);
        return 0;
}

int authz_local_subject_access_review(const struct review_context *c, const json_t *obj,
                                      json_t **ret, struct error **reterr)
{
        /* K8S: "namespace is required on this type" cannot happen: the route has one, and
         * registry.c made metadata.namespace the URL's */
        *ret = answer_for_spec_user(c, obj);
        return 0;
}

int authz_self_subject_access_review(const struct review_context *c, const json_t *obj,
                                     json_t **ret, struct error **reterr)
{
        *ret = answer_with(obj, decide(c, json_object_get(obj, "spec"), c->user));
        return 0;
}

int authz_self_subject_rules_review(const struct review_context *c, const json_t *obj, json_t **ret,
                                    struct error **reterr)
{
        const char *ns = json_path_string_or_empty(obj, "spec.namespace");
        struct authz_rules rules;
        json_t *status;

        if (!ns[0])
                return error_set(reterr, EINVAL, "no namespace on request");
        authz_rules_for(c->authz, c->user, ns, &rules);
        status = json_pack("{s:O, s:O, s:b}", "resourceRules", rules.resource_rules,
                           "nonResourceRules", rules.non_resource_rules, "incomplete",
                           rules.incomplete);
        if (rules.n_errors) {
                cleanup_free char *e = authz_rules_error_string(&rules);
                json_object_set_new(status, "evaluationError", json_string(e));
        }
        authz_rules_release(&rules);
        /* K8S: a new review holding only the status */
        *ret = json_pack("{s:s, s:s, s:{s:n}, s:{}, s:o}", "kind", "SelfSubjectRulesReview",
                         "apiVersion", AUTHZ_API_VERSION, "metadata", "creationTimestamp", "spec",
                         "status", status);
        return 0;
}
