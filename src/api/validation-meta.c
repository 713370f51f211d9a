/* validation-meta.c: object metadata validation (apimachinery's ValidateObjectMeta and
 * ValidateObjectMetaUpdate, core's finalizer rule), the DNS/label/qualified-name checks with
 * upstream's messages, and the helpers the other validation files share (error rendering,
 * semantic JSON equality). Pod-specific rules live in validation-pod.c. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/validation-internal.h"
#include "api/validation.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/timeutil.h"

/* ---- error appenders ---- */

void verr_raw(struct field_error_list *errs, enum field_error_type type, const char *field,
              const char *rendered, const char *detail)
{
        field_error_add(errs, type, field, rendered, "%s", detail ? detail : "");
}

void verr_str(struct field_error_list *errs, enum field_error_type type, const char *field,
              const char *s, const char *detail)
{
        cleanup_free char *q = s ? field_value_quote(s) : NULL;

        verr_raw(errs, type, field, q, detail);
}

void verr_int(struct field_error_list *errs, enum field_error_type type, const char *field,
              long long v, const char *detail)
{
        char buf[32];

        snprintf(buf, sizeof(buf), "%lld", v);
        verr_raw(errs, type, field, buf, detail);
}

void verr_not_supported(struct field_error_list *errs, const char *field, const char *value,
                        const char *const *supported)
{
        struct strbuf sb;

        strbuf_init(&sb);
        for (size_t i = 0; supported && supported[i]; i++) {
                cleanup_free char *q = field_value_quote(supported[i]);
                strbuf_addstr(&sb, i ? ", " : "supported values: ");
                strbuf_addstr(&sb, q);
        }
        verr_str(errs, FIELD_ERROR_NOT_SUPPORTED, field, value, sb.buf);
        strbuf_release(&sb);
}

void verr_move(struct field_error_list *to, struct field_error_list *from)
{
        for (size_t i = 0; i < from->n; i++) {
                const struct field_error *e = &from->items[i];
                field_error_add(to, e->type, e->field, e->bad_value, "%s", e->detail);
        }
        field_error_list_release(from);
}

/* ---- JSON helpers ---- */

const char *vj_str(const json_t *obj, const char *key)
{
        return json_is_object(obj) ? json_string_value(json_object_get(obj, key)) : NULL;
}

json_t *vj_obj(const json_t *obj, const char *key)
{
        json_t *v = json_is_object(obj) ? json_object_get(obj, key) : NULL;

        return json_is_object(v) ? v : NULL;
}

json_t *vj_arr(const json_t *obj, const char *key)
{
        json_t *v = json_is_object(obj) ? json_object_get(obj, key) : NULL;

        return json_is_array(v) ? v : NULL;
}

char *vj_render(const json_t *v)
{
        if (!v || json_is_null(v))
                return field_value_quote("null");
        if (json_is_string(v))
                return field_value_quote(json_string_value(v));
        if (json_is_integer(v))
                return xasprintf("%" JSON_INTEGER_FORMAT, json_integer_value(v));
        if (json_is_real(v))
                return xasprintf("%g", json_real_value(v));
        if (json_is_boolean(v))
                return xstrdup(json_is_true(v) ? "true" : "false");
        return json_dump_compact(v);
}

/* K8S: apiequality.Semantic.DeepEqual treats nil and empty maps/slices alike; Go zero values of
 * scalars are what an omitted JSON field decodes to. */
static bool vj_unset(const json_t *v)
{
        if (!v || json_is_null(v) || json_is_false(v))
                return true;
        if (json_is_object(v))
                return json_object_size(v) == 0;
        if (json_is_array(v))
                return json_array_size(v) == 0;
        if (json_is_string(v))
                return json_string_length(v) == 0;
        if (json_is_integer(v))
                return json_integer_value(v) == 0;
        if (json_is_real(v))
                return json_real_value(v) == 0.0;
        return false;
}

enum vj_mode {
        VJ_PLAIN,
        VJ_QUANTITY,     /* this value is a resource.Quantity */
        VJ_QUANTITY_MAP, /* this value is a ResourceList */
};

static enum vj_mode vj_child_mode(enum vj_mode parent, const char *key)
{
        if (parent == VJ_QUANTITY_MAP)
                return VJ_QUANTITY;
        if (!key)
                return VJ_PLAIN;
        if (streq(key, "requests") || streq(key, "limits") || streq(key, "overhead") ||
            streq(key, "capacity") || streq(key, "allocatedResources"))
                return VJ_QUANTITY_MAP;
        if (streq(key, "sizeLimit"))
                return VJ_QUANTITY;
        return VJ_PLAIN;
}

static bool vj_equal_mode(const json_t *a, const json_t *b, enum vj_mode mode)
{
        bool ua = vj_unset(a), ub = vj_unset(b);

        if (mode == VJ_QUANTITY && a && b && (json_is_string(a) || json_is_number(a)) &&
            (json_is_string(b) || json_is_number(b))) {
                struct quantity qa, qb;
                if (vq_parse(a, &qa) == 0 && vq_parse(b, &qb) == 0)
                        return quantity_cmp(&qa, &qb) == 0;
        }
        if (ua || ub)
                return ua && ub;
        if (json_is_number(a) && json_is_number(b))
                return json_number_value(a) == json_number_value(b);
        if (json_typeof(a) != json_typeof(b))
                return false;
        switch (json_typeof(a)) {
        case JSON_OBJECT: {
                const char *key;
                json_t *va;
                json_object_foreach((json_t *) a, key, va) {
                        if (!vj_equal_mode(va, json_object_get(b, key), vj_child_mode(mode, key)))
                                return false;
                }
                json_object_foreach((json_t *) b, key, va) {
                        if (!json_object_get(a, key) && !vj_unset(va))
                                return false;
                }
                return true;
        }
        case JSON_ARRAY:
                if (json_array_size(a) != json_array_size(b))
                        return false;
                for (size_t i = 0; i < json_array_size(a); i++) {
                        if (!vj_equal_mode(json_array_get(a, i), json_array_get(b, i),
                                           mode == VJ_QUANTITY_MAP ? VJ_PLAIN : mode))
                                return false;
                }
                return true;
        case JSON_STRING:
                return streq(json_string_value(a), json_string_value(b));
        default:
                return json_equal((json_t *) a, (json_t *) b);
        }
}

bool vj_equal(const json_t *a, const json_t *b)
{
        return vj_equal_mode(a, b, VJ_PLAIN);
}

static void vj_diff_mode(const json_t *a, const json_t *b, const char *path, enum vj_mode mode,
                         struct strbuf *out)
{
        if (vj_equal_mode(a, b, mode))
                return;
        if (json_is_object(a) && json_is_object(b)) {
                const char *key;
                json_t *v;
                json_object_foreach((json_t *) a, key, v) {
                        cleanup_free char *p =
                                path[0] ? xasprintf("%s.%s", path, key) : xstrdup(key);
                        vj_diff_mode(v, json_object_get(b, key), p, vj_child_mode(mode, key), out);
                }
                json_object_foreach((json_t *) b, key, v) {
                        if (json_object_get(a, key))
                                continue;
                        cleanup_free char *p =
                                path[0] ? xasprintf("%s.%s", path, key) : xstrdup(key);
                        vj_diff_mode(NULL, v, p, vj_child_mode(mode, key), out);
                }
                return;
        }
        if (json_is_array(a) && json_is_array(b) && json_array_size(a) == json_array_size(b)) {
                for (size_t i = 0; i < json_array_size(a); i++) {
                        cleanup_free char *p = xasprintf("%s[%zu]", path, i);
                        vj_diff_mode(json_array_get(a, i), json_array_get(b, i), p,
                                     mode == VJ_QUANTITY_MAP ? VJ_PLAIN : mode, out);
                }
                return;
        }
        if (!vj_unset(a)) {
                cleanup_free char *r = vj_render(a);
                strbuf_addf(out, "- %s: %s\n", path, r);
        }
        if (!vj_unset(b)) {
                cleanup_free char *r = vj_render(b);
                strbuf_addf(out, "+ %s: %s\n", path, r);
        }
}

void vj_diff(const json_t *a, const json_t *b, const char *path, struct strbuf *out)
{
        vj_diff_mode(a, b, path ? path : "", VJ_PLAIN, out);
}

/* ---- names (K8S: apimachinery pkg/util/validation, messages word for word) ---- */

#define DNS1123_LABEL_FMT "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
#define DNS1123_LABEL_MSG                                                                 \
 "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', " \
 "and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', " \
 "regex used for validation is '" DNS1123_LABEL_FMT "')"
#define DNS1123_SUBDOMAIN_MSG                                                              \
 "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' " \
 "or '.', and must start and end with an alphanumeric character (e.g. 'example.com', "     \
 "regex used for validation is '" DNS1123_LABEL_FMT "(\\." DNS1123_LABEL_FMT ")*')"
#define DNS1035_LABEL_MSG                                                                  \
 "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with " \
 "an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "   \
 "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
#define QUALIFIED_NAME_FMT "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
#define QUALIFIED_NAME_RULE                                                                \
 "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with "  \
 "an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for " \
 "validation is '" QUALIFIED_NAME_FMT "')"
#define LABEL_VALUE_MSG                                                                   \
 "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' " \
 "or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or "    \
 "'my_value',  or '12345', regex used for validation is '(" QUALIFIED_NAME_FMT ")?')"

static bool is_lower_alnum(char c)
{
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static bool is_alnum(char c)
{
        return isascii((unsigned char) c) && isalnum((unsigned char) c);
}

/* ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ over s[0..n) */
static bool match_dns1123_label(const char *s, size_t n)
{
        if (n == 0 || !is_lower_alnum(s[0]) || !is_lower_alnum(s[n - 1]))
                return false;
        for (size_t i = 0; i < n; i++) {
                if (!is_lower_alnum(s[i]) && s[i] != '-')
                        return false;
        }
        return true;
}

static bool match_dns1123_subdomain(const char *s)
{
        const char *p = s;

        for (;;) {
                const char *dot = strchr(p, '.');
                size_t n = dot ? (size_t) (dot - p) : strlen(p);
                if (!match_dns1123_label(p, n))
                        return false;
                if (!dot)
                        return true;
                p = dot + 1;
        }
}

/* ^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$ over s[0..n) */
static bool match_qualified_part(const char *s, size_t n)
{
        if (n == 0 || !is_alnum(s[0]) || !is_alnum(s[n - 1]))
                return false;
        for (size_t i = 0; i < n; i++) {
                if (!is_alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
                        return false;
        }
        return true;
}

size_t validate_dns1123_label(const char *value, const char *field, struct field_error_list *errs)
{
        size_t before = errs->n;
        size_t n = strlen(value);

        if (n > 63)
                verr_str(errs, FIELD_ERROR_INVALID, field, value,
                         "must be no more than 63 characters");
        if (!match_dns1123_label(value, n)) {
                /* K8S: a valid subdomain that is not a label can only be failing on dots. */
                verr_str(errs, FIELD_ERROR_INVALID, field, value,
                         match_dns1123_subdomain(value) ? "must not contain dots"
                                                        : DNS1123_LABEL_MSG);
        }
        return errs->n - before;
}

size_t validate_dns1123_subdomain(const char *value, const char *field,
                                  struct field_error_list *errs)
{
        size_t before = errs->n;

        if (strlen(value) > 253)
                verr_str(errs, FIELD_ERROR_INVALID, field, value,
                         "must be no more than 253 characters");
        if (!match_dns1123_subdomain(value))
                verr_str(errs, FIELD_ERROR_INVALID, field, value, DNS1123_SUBDOMAIN_MSG);
        return errs->n - before;
}

size_t validate_dns1035_label(const char *value, const char *field, struct field_error_list *errs)
{
        size_t before = errs->n;
        size_t n = strlen(value);
        bool ok = n > 0 && value[0] >= 'a' && value[0] <= 'z' && is_lower_alnum(value[n - 1]);

        for (size_t i = 0; ok && i < n; i++)
                ok = is_lower_alnum(value[i]) || value[i] == '-';
        if (n > 63)
                verr_str(errs, FIELD_ERROR_INVALID, field, value,
                         "must be no more than 63 characters");
        if (!ok)
                verr_str(errs, FIELD_ERROR_INVALID, field, value, DNS1035_LABEL_MSG);
        return errs->n - before;
}

/* K8S: IsQualifiedName's messages for `value`, each reported as Invalid(field, shown). */
static size_t qualified_name_errors(const char *value, const char *shown, const char *field,
                                    struct field_error_list *errs)
{
        size_t before = errs->n;
        const char *slash = strchr(value, '/');
        const char *name = value;

        if (slash && strchr(slash + 1, '/')) {
                verr_str(
                        errs, FIELD_ERROR_INVALID, field, shown,
                        "a qualified name " QUALIFIED_NAME_RULE
                        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
                return errs->n - before;
        }
        if (slash) {
                cleanup_free char *prefix = xstrndup(value, (size_t) (slash - value));
                name = slash + 1;
                if (!prefix[0]) {
                        verr_str(errs, FIELD_ERROR_INVALID, field, shown,
                                 "prefix part must be non-empty");
                } else {
                        if (strlen(prefix) > 253)
                                verr_str(errs, FIELD_ERROR_INVALID, field, shown,
                                         "prefix part must be no more than 253 characters");
                        if (!match_dns1123_subdomain(prefix))
                                verr_str(errs, FIELD_ERROR_INVALID, field, shown,
                                         "prefix part " DNS1123_SUBDOMAIN_MSG);
                }
        }
        if (!name[0])
                verr_str(errs, FIELD_ERROR_INVALID, field, shown, "name part must be non-empty");
        else if (strlen(name) > 63)
                verr_str(errs, FIELD_ERROR_INVALID, field, shown,
                         "name part must be no more than 63 characters");
        if (!match_qualified_part(name, strlen(name)))
                verr_str(errs, FIELD_ERROR_INVALID, field, shown, "name part " QUALIFIED_NAME_RULE);
        return errs->n - before;
}

size_t validate_qualified_name(const char *value, const char *field, struct field_error_list *errs)
{
        return qualified_name_errors(value, value, field, errs);
}

size_t validate_label_value(const char *value, const char *field, struct field_error_list *errs)
{
        size_t before = errs->n;
        size_t n = strlen(value);

        if (n > 63)
                verr_str(errs, FIELD_ERROR_INVALID, field, value,
                         "must be no more than 63 characters");
        if (n > 0 && !match_qualified_part(value, n))
                verr_str(errs, FIELD_ERROR_INVALID, field, value, LABEL_VALUE_MSG);
        return errs->n - before;
}

size_t validate_labels(const json_t *labels, const char *field, struct field_error_list *errs)
{
        size_t before = errs->n;
        const char *key;
        json_t *v;

        if (!json_is_object(labels))
                return 0;
        json_object_foreach((json_t *) labels, key, v) {
                validate_qualified_name(key, field, errs);
                validate_label_value(json_is_string(v) ? json_string_value(v) : "", field, errs);
        }
        return errs->n - before;
}

/* K8S: maskTrailingDash: a generateName may end in '-' since a suffix is appended. */
static char *mask_trailing_dash(const char *name)
{
        size_t n = strlen(name);
        char *s = xstrdup(name);

        if (n > 1 && s[n - 1] == '-') {
                /* upstream: name[:len(name)-2] + "a" */
                s[n - 2] = 'a';
                s[n - 1] = '\0';
        }
        return s;
}

/* K8S: apimachinery api/validation/path IsValidPathSegmentName: not "." nor "..", then one
 * message for each of "/" and "%" it contains. */
static void validate_path_segment_name(const char *value, const char *field,
                                       struct field_error_list *errs)
{
        if (streq(value, ".") || streq(value, "..")) {
                cleanup_free char *msg = xasprintf("may not be '%s'", value);
                verr_str(errs, FIELD_ERROR_INVALID, field, value, msg);
                return;
        }
        if (strchr(value, '/'))
                verr_str(errs, FIELD_ERROR_INVALID, field, value, "may not contain '/'");
        if (strchr(value, '%'))
                verr_str(errs, FIELD_ERROR_INVALID, field, value, "may not contain '%'");
}

static size_t validate_name_rule(const char *value, enum object_name_rule rule, const char *field,
                                 const char *shown, struct field_error_list *errs)
{
        struct field_error_list tmp;
        size_t n;

        field_error_list_init(&tmp);
        switch (rule) {
        case OBJECT_NAME_DNS1123_LABEL:
                validate_dns1123_label(value, field, &tmp);
                break;
        case OBJECT_NAME_DNS1035_LABEL:
                validate_dns1035_label(value, field, &tmp);
                break;
        case OBJECT_NAME_PATH_SEGMENT:
                validate_path_segment_name(value, field, &tmp);
                break;
        default:
                validate_dns1123_subdomain(value, field, &tmp);
                break;
        }
        /* report the name as given (generateName before masking) */
        for (size_t i = 0; i < tmp.n; i++)
                verr_str(errs, tmp.items[i].type, field, shown, tmp.items[i].detail);
        n = tmp.n;
        field_error_list_release(&tmp);
        return n;
}

/* ---- object metadata ---- */

static const char *const standard_finalizers[] = { "kubernetes", "orphan", "foregroundDeletion",
                                                   NULL };

static bool is_standard_finalizer(const char *s)
{
        for (size_t i = 0; standard_finalizers[i]; i++) {
                if (streq(standard_finalizers[i], s))
                        return true;
        }
        return false;
}

/* K8S: validateKubeFinalizerName (core): an unqualified finalizer must be a standard one. */
static void validate_kube_finalizers(const json_t *meta, struct field_error_list *errs)
{
        json_t *fin = vj_arr(meta, "finalizers");
        size_t i;
        json_t *f;

        json_array_foreach(fin, i, f) {
                const char *s = json_string_value(f);
                if (s && !strchr(s, '/') && !is_standard_finalizer(s)) {
                        cleanup_free char *p = xasprintf("metadata.finalizers[%zu]", i);
                        verr_str(errs, FIELD_ERROR_INVALID, p, s,
                                 "name is neither a standard finalizer name nor is it fully "
                                 "qualified");
                }
        }
}

/* K8S: ValidateAnnotations: keys are qualified names once lower-cased; 256 kB in total. */
static void validate_annotations(const json_t *meta, struct field_error_list *errs)
{
        json_t *ann = vj_obj(meta, "annotations");
        const char *key;
        json_t *v;
        uint64_t total = 0;

        json_object_foreach(ann, key, v) {
                cleanup_free char *lower = xstrdup(key);
                for (char *c = lower; *c; c++)
                        *c = (char) tolower((unsigned char) *c);
                qualified_name_errors(lower, key, "metadata.annotations", errs);
                total += strlen(key) + (json_is_string(v) ? json_string_length(v) : 0);
        }
        if (total > 256 * 1024)
                verr_raw(errs, FIELD_ERROR_TOO_LONG, "metadata.annotations", NULL,
                         "may not be more than 262144 bytes");
}

/* K8S: ValidateOwnerReferences (errors at ownerReferences.<field>, without an index). */
static void validate_owner_references(const json_t *meta, struct field_error_list *errs)
{
        json_t *refs = vj_arr(meta, "ownerReferences");
        cleanup_free char *first_controller = NULL;
        size_t i;
        json_t *ref;

        json_array_foreach(refs, i, ref) {
                const char *api_version = vj_str(ref, "apiVersion");
                const char *kind = vj_str(ref, "kind");
                const char *name = vj_str(ref, "name");
                const char *uid = vj_str(ref, "uid");
                const char *slash;
                const char *version;

                api_version = api_version ? api_version : "";
                slash = strchr(api_version, '/');
                version = slash ? slash + 1 : api_version;
                if (!version[0] || (slash && strchr(version, '/')))
                        verr_str(errs, FIELD_ERROR_INVALID, "metadata.ownerReferences.apiVersion",
                                 api_version, "version must not be empty");
                if (!kind || !kind[0])
                        verr_str(errs, FIELD_ERROR_INVALID, "metadata.ownerReferences.kind", "",
                                 "kind must not be empty");
                if (!name || !name[0])
                        verr_str(errs, FIELD_ERROR_INVALID, "metadata.ownerReferences.name", "",
                                 "name must not be empty");
                if (!uid || !uid[0])
                        verr_str(errs, FIELD_ERROR_INVALID, "metadata.ownerReferences.uid", "",
                                 "uid must not be empty");
                if (streq(api_version, "v1") && kind && streq(kind, "Event")) {
                        cleanup_free char *r = vj_render(ref);
                        verr_raw(errs, FIELD_ERROR_INVALID, "metadata.ownerReferences", r,
                                 "/v1, Kind=Event is disallowed from being an owner");
                }
                if (json_is_true(json_object_get(ref, "controller"))) {
                        cleanup_free char *cur =
                                xasprintf("%s/%s", kind ? kind : "", name ? name : "");
                        if (first_controller) {
                                cleanup_free char *r = vj_render(refs);
                                cleanup_free char *d = xasprintf(
                                        "Only one reference can have Controller set to true. "
                                        "Found \"true\" in references for %s and %s",
                                        first_controller, cur);
                                verr_raw(errs, FIELD_ERROR_INVALID, "metadata.ownerReferences", r,
                                         d);
                        } else {
                                first_controller = TAKE_PTR(cur);
                        }
                }
        }
}

/* K8S: ValidateFinalizers (apimachinery): qualified names, and not both orphan and
 * foregroundDeletion. */
static void validate_finalizer_names(const json_t *meta, struct field_error_list *errs)
{
        json_t *fin = vj_arr(meta, "finalizers");
        bool orphan = false, foreground = false;
        size_t i;
        json_t *f;

        json_array_foreach(fin, i, f) {
                const char *s = json_is_string(f) ? json_string_value(f) : "";
                validate_qualified_name(s, "metadata.finalizers", errs);
                orphan |= streq(s, "orphan");
                foreground |= streq(s, "foregroundDeletion");
        }
        if (orphan && foreground) {
                /* K8S: the bad value is the []string, printed as Go's %#v */
                struct strbuf sb;
                strbuf_init(&sb);
                strbuf_addstr(&sb, "[]string{");
                json_array_foreach(fin, i, f) {
                        cleanup_free char *q =
                                field_value_quote(json_is_string(f) ? json_string_value(f) : "");
                        strbuf_addf(&sb, "%s%s", i ? ", " : "", q);
                }
                strbuf_addch(&sb, '}');
                verr_raw(errs, FIELD_ERROR_INVALID, "metadata.finalizers", sb.buf,
                         "finalizer orphan and foregroundDeletion cannot be both set");
                strbuf_release(&sb);
        }
}

static long long meta_int(const json_t *meta, const char *key)
{
        json_t *v = json_is_object(meta) ? json_object_get(meta, key) : NULL;

        return json_is_integer(v) ? (long long) json_integer_value(v) : 0;
}

size_t validate_object_meta_create_named(const json_t *obj, bool namespaced,
                                         enum object_name_rule rule, struct field_error_list *errs)
{
        size_t before = errs->n;
        json_t *meta = vj_obj(obj, "metadata");
        const char *name = vj_str(meta, "name");
        const char *generate = vj_str(meta, "generateName");
        const char *ns = vj_str(meta, "namespace");

        if (generate && generate[0]) {
                cleanup_free char *masked = mask_trailing_dash(generate);
                validate_name_rule(masked, rule, "metadata.generateName", generate, errs);
        }
        if (!name || !name[0])
                verr_raw(errs, FIELD_ERROR_REQUIRED, "metadata.name", NULL,
                         "name or generateName is required");
        else
                validate_name_rule(name, rule, "metadata.name", name, errs);

        if (namespaced) {
                if (!ns || !ns[0])
                        verr_raw(errs, FIELD_ERROR_REQUIRED, "metadata.namespace", NULL, "");
                else
                        validate_dns1123_label(ns, "metadata.namespace", errs);
        } else if (ns && ns[0]) {
                verr_raw(errs, FIELD_ERROR_FORBIDDEN, "metadata.namespace", NULL,
                         "not allowed on this type");
        }

        if (meta_int(meta, "generation") < 0)
                verr_int(errs, FIELD_ERROR_INVALID, "metadata.generation",
                         meta_int(meta, "generation"), "must be greater than or equal to 0");
        validate_labels(vj_obj(meta, "labels"), "metadata.labels", errs);
        validate_annotations(meta, errs);
        validate_owner_references(meta, errs);
        validate_finalizer_names(meta, errs);
        validate_kube_finalizers(meta, errs);
        return errs->n - before;
}

size_t validate_object_meta_create(const json_t *obj, bool namespaced,
                                   struct field_error_list *errs)
{
        return validate_object_meta_create_named(obj, namespaced, OBJECT_NAME_DNS1123_SUBDOMAIN,
                                                 errs);
}

/* metav1.Time's String() as field.Invalid prints it: "2025-01-01 00:00:00 +0000 UTC". */
static char *render_time(const char *rfc3339)
{
        time_t t = 0;
        struct tm tm;
        char buf[64];

        if (rfc3339 && time_parse_rfc3339(rfc3339, &t) < 0)
                return field_value_quote(rfc3339);
        if (!rfc3339)
                return xstrdup("0001-01-01 00:00:00 +0000 UTC");
        gmtime_r(&t, &tm);
        strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S +0000 UTC", &tm);
        return xstrdup(buf);
}

static bool times_equal(const char *a, const char *b)
{
        time_t ta, tb;

        if (!a || !b)
                return !a && !b;
        if (time_parse_rfc3339(a, &ta) < 0 || time_parse_rfc3339(b, &tb) < 0)
                return streq(a, b);
        return ta == tb;
}

static int cmp_strp(const void *a, const void *b)
{
        return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* K8S: ValidateNoNewFinalizers while the object is being deleted. */
static void validate_no_new_finalizers(const json_t *new_meta, const json_t *old_meta,
                                       struct field_error_list *errs)
{
        json_t *nf = vj_arr(new_meta, "finalizers"), *of = vj_arr(old_meta, "finalizers");
        const char **extra = xcalloc(json_array_size(nf) + 1, sizeof(char *));
        size_t n = 0, i, j;
        json_t *f, *g;

        json_array_foreach(nf, i, f) {
                bool found = false;
                const char *s = json_string_value(f);
                if (!s)
                        continue;
                json_array_foreach(of, j, g) {
                        found |= json_is_string(g) && streq(json_string_value(g), s);
                }
                for (size_t k = 0; k < n && !found; k++)
                        found = streq(extra[k], s);
                if (!found)
                        extra[n++] = s;
        }
        if (n) {
                struct strbuf sb;
                strbuf_init(&sb);
                qsort(extra, n, sizeof(*extra), cmp_strp);
                strbuf_addstr(&sb, "no new finalizers can be added if the object is being "
                                   "deleted, found new finalizers []string{");
                for (size_t k = 0; k < n; k++) {
                        cleanup_free char *q = field_value_quote(extra[k]);
                        strbuf_addf(&sb, "%s%s", k ? ", " : "", q);
                }
                strbuf_addch(&sb, '}');
                verr_raw(errs, FIELD_ERROR_FORBIDDEN, "metadata.finalizers", NULL, sb.buf);
                strbuf_release(&sb);
        }
        free(extra);
}

static void immutable_string(const json_t *new_meta, const json_t *old_meta, const char *key,
                             struct field_error_list *errs)
{
        const char *a = vj_str(new_meta, key), *b = vj_str(old_meta, key);
        cleanup_free char *field = xasprintf("metadata.%s", key);

        if (!streq(a ? a : "", b ? b : ""))
                verr_str(errs, FIELD_ERROR_INVALID, field, a ? a : "", "field is immutable");
}

size_t validate_object_meta_update(const json_t *new_obj, const json_t *old_obj,
                                   struct field_error_list *errs)
{
        size_t before = errs->n;
        json_t *nm = vj_obj(new_obj, "metadata"), *om = vj_obj(old_obj, "metadata");
        const char *rv = vj_str(nm, "resourceVersion");
        const char *nc = vj_str(nm, "creationTimestamp"), *oc = vj_str(om, "creationTimestamp");
        const char *nd = vj_str(nm, "deletionTimestamp"), *od = vj_str(om, "deletionTimestamp");
        json_t *ngp = nm ? json_object_get(nm, "deletionGracePeriodSeconds") : NULL;
        json_t *ogp = om ? json_object_get(om, "deletionGracePeriodSeconds") : NULL;

        if (od)
                validate_no_new_finalizers(nm, om, errs);
        if (!rv || !rv[0])
                verr_str(errs, FIELD_ERROR_INVALID, "metadata.resourceVersion", "",
                         "must be specified for an update");
        if (meta_int(nm, "generation") < meta_int(om, "generation"))
                verr_int(errs, FIELD_ERROR_INVALID, "metadata.generation",
                         meta_int(nm, "generation"), "must not be decremented");
        immutable_string(nm, om, "name", errs);
        immutable_string(nm, om, "namespace", errs);
        immutable_string(nm, om, "uid", errs);
        if (!times_equal(nc, oc)) {
                cleanup_free char *r = render_time(nc);
                verr_raw(errs, FIELD_ERROR_INVALID, "metadata.creationTimestamp", r,
                         "field is immutable");
        }
        if (!times_equal(nd, od)) {
                cleanup_free char *r = nd ? render_time(nd) : field_value_quote("null");
                verr_raw(errs, FIELD_ERROR_INVALID, "metadata.deletionTimestamp", r,
                         "field is immutable");
        }
        if (!(json_is_null(ngp) || !ngp) || !(json_is_null(ogp) || !ogp)) {
                bool same = json_is_integer(ngp) && json_is_integer(ogp) &&
                            json_integer_value(ngp) == json_integer_value(ogp);
                if (!same) {
                        cleanup_free char *r = vj_render(ngp);
                        verr_raw(errs, FIELD_ERROR_INVALID, "metadata.deletionGracePeriodSeconds",
                                 r, "field is immutable");
                }
        }
        validate_labels(vj_obj(nm, "labels"), "metadata.labels", errs);
        validate_annotations(nm, errs);
        validate_owner_references(nm, errs);
        validate_kube_finalizers(nm, errs);
        return errs->n - before;
}
