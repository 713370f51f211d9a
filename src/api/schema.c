/* schema.c: the schema walker. Field and item lookup, the fieldValidation parameter, the kind
 * table, and schema_check, which decodes a jansson value against a schema the way
 * kube-apiserver's decoder (sigs.k8s.io/json, a fork of Go's encoding/json) does, with its
 * messages: type errors, resource.Quantity and metav1.Time parse errors, strict unknown-field
 * paths. The tables themselves live in schema-*.c; this file knows no kind's fields. */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/schema.h"
#include "base/json.h"
#include "api/schemas.h"
#include "base/alloc.h"
#include "base/base64.h"
#include "base/quantity.h"
#include "base/utf8.h"

const struct schema *schema_field(const struct schema *s, const char *name)
{
        if (!s || s->kind != SCHEMA_OBJECT || !s->fields || !name)
                return NULL;
        for (const struct schema_field *f = s->fields; f->name; f++)
                if (streq(f->name, name))
                        return f->schema;
        return NULL;
}

const struct schema *schema_items(const struct schema *s)
{
        if (!s || (s->kind != SCHEMA_LIST && s->kind != SCHEMA_MAP))
                return NULL;
        return s->items;
}

static const char *const field_validation_names[FIELD_VALIDATION_MAX] = {
        [FIELD_VALIDATION_STRICT] = "Strict",
        [FIELD_VALIDATION_WARN] = "Warn",
        [FIELD_VALIDATION_IGNORE] = "Ignore",
};

int field_validation_from_string(const char *s, enum field_validation *ret)
{
        /* K8S: an absent or empty fieldValidation means the server default, Warn. */
        if (!s || !*s) {
                *ret = FIELD_VALIDATION_WARN;
                return 0;
        }
        for (int i = 0; i < FIELD_VALIDATION_MAX; i++)
                if (streq(s, field_validation_names[i])) {
                        *ret = (enum field_validation) i;
                        return 0;
                }
        return -EINVAL;
}

const char *field_validation_to_string(enum field_validation v)
{
        if ((unsigned) v >= FIELD_VALIDATION_MAX)
                return NULL;
        return field_validation_names[v];
}

const struct schema *schema_for_kind(const char *kind)
{
        static const struct {
                const char *kind;
                const struct schema *schema;
        } kinds[] = {
                { "Pod", &schema_pod },
                { "Node", &schema_node },
                { "Event", &schema_event },
                { "Namespace", &schema_namespace },
                { "ConfigMap", &schema_config_map },
                { "Secret", &schema_secret },
                { "ServiceAccount", &schema_service_account },
                { "LimitRange", &schema_limit_range },
                { "ResourceQuota", &schema_resource_quota },
                { "Job", &schema_job },
                { "StorageClass", &schema_storage_class },
                { "PersistentVolume", &schema_persistent_volume },
                { "PersistentVolumeClaim", &schema_persistent_volume_claim },
                { "SelfSubjectReview", &schema_self_subject_review },
                { "PodDisruptionBudget", &schema_pod_disruption_budget },
                { "Eviction", &schema_eviction },
                { "TokenReview", &schema_token_review },
                { "Lease", &schema_lease },
                { "ReplicaSet", &schema_replica_set },
                { "Deployment", &schema_deployment },
                { "StatefulSet", &schema_stateful_set },
                { "ControllerRevision", &schema_controller_revision },
                { "Scale", &schema_scale },
                { "DaemonSet", &schema_daemon_set },
                { "Role", &schema_role },
                { "ClusterRole", &schema_cluster_role },
                { "RoleBinding", &schema_role_binding },
                { "ClusterRoleBinding", &schema_cluster_role_binding },
                { "SubjectAccessReview", &schema_subject_access_review },
                { "SelfSubjectAccessReview", &schema_self_subject_access_review },
                { "LocalSubjectAccessReview", &schema_local_subject_access_review },
                { "SelfSubjectRulesReview", &schema_self_subject_rules_review },
                { "NodeMetrics", &schema_node_metrics },
                { "PodMetrics", &schema_pod_metrics },
        };

        if (!kind)
                return NULL;
        for (size_t i = 0; i < ARRAY_SIZE(kinds); i++)
                if (streq(kind, kinds[i].kind))
                        return kinds[i].schema;
        return NULL;
}

/* ---- Go's spelling of values, types and strings ---- */

/* The number's JSON text (json_scalar_text). Caller frees. */
static char *number_text(const json_t *v)
{
        char buf[JSON_NUMBER_TEXT_MAX];

        return xstrdup(json_scalar_text(v, buf));
}

static void type_name(const struct schema *s, struct strbuf *sb, int depth)
{
        if (!s || depth > SCHEMA_MAX_DEPTH) {
                strbuf_addstr(sb, "interface {}");
                return;
        }
        if (s->kind == SCHEMA_OBJECT) {
                strbuf_addf(sb, "v1.%s", s->go_type ? s->go_type : "Object");
                return;
        }
        if (s->go_type) {
                /* Go's reflect names []byte by its element type */
                strbuf_addstr(sb, s->go_type);
                return;
        }
        switch (s->kind) {
        case SCHEMA_STRING:
                strbuf_addstr(sb, "string");
                break;
        case SCHEMA_INTEGER:
                strbuf_addstr(sb, "int64");
                break;
        case SCHEMA_NUMBER:
                strbuf_addstr(sb, "float64");
                break;
        case SCHEMA_BOOLEAN:
                strbuf_addstr(sb, "bool");
                break;
        case SCHEMA_QUANTITY:
                strbuf_addstr(sb, "resource.Quantity");
                break;
        case SCHEMA_INT_OR_STRING:
                strbuf_addstr(sb, "intstr.IntOrString");
                break;
        case SCHEMA_TIME:
                strbuf_addstr(sb, "v1.Time");
                break;
        case SCHEMA_MAP:
                strbuf_addstr(sb, "map[string]");
                type_name(s->items, sb, depth + 1);
                break;
        case SCHEMA_LIST:
                strbuf_addstr(sb, "[]");
                type_name(s->items, sb, depth + 1);
                break;
        case SCHEMA_ANY:
        case SCHEMA_OBJECT:
        case SCHEMA_KIND_MAX:
        default:
                strbuf_addstr(sb, "interface {}");
                break;
        }
}

/* K8S: the time package's quote(): bytes outside printable ASCII as \xNN. */
static void quote_time(struct strbuf *sb, const char *s, size_t n)
{
        strbuf_addch(sb, '"');
        for (size_t i = 0; i < n; i++) {
                unsigned char c = (unsigned char) s[i];
                if (c < 0x20 || c >= 0x80)
                        strbuf_addf(sb, "\\x%02x", c);
                else {
                        if (c == '"' || c == '\\')
                                strbuf_addch(sb, '\\');
                        strbuf_addch(sb, (char) c);
                }
        }
        strbuf_addch(sb, '"');
}

/* ---- metav1.Time and metav1.MicroTime: Go's time.Parse for their two layouts ---- */

enum time_chunk {
        TC_LITERAL,
        TC_YEAR,   /* "2006" */
        TC_MONTH,  /* "01" */
        TC_DAY,    /* "02" */
        TC_HOUR,   /* "15": one or two digits */
        TC_MINUTE, /* "04" */
        TC_SECOND, /* "05", then an optional fraction the layout does not spell */
        TC_FRAC6,  /* ".000000": exactly six digits */
        TC_ZONE,   /* "Z07:00" */
};

struct time_layout_chunk {
        enum time_chunk kind;
        const char *text;
};

#define LAYOUT_RFC3339       "2006-01-02T15:04:05Z07:00"
#define LAYOUT_RFC3339_MICRO "2006-01-02T15:04:05.000000Z07:00"

static const struct time_layout_chunk layout_rfc3339[] = {
        { TC_YEAR, "2006" }, { TC_LITERAL, "-" }, { TC_MONTH, "01" },  { TC_LITERAL, "-" },
        { TC_DAY, "02" },    { TC_LITERAL, "T" }, { TC_HOUR, "15" },   { TC_LITERAL, ":" },
        { TC_MINUTE, "04" }, { TC_LITERAL, ":" }, { TC_SECOND, "05" }, { TC_ZONE, "Z07:00" },
};

static const struct time_layout_chunk layout_rfc3339_micro[] = {
        { TC_YEAR, "2006" },   { TC_LITERAL, "-" }, { TC_MONTH, "01" },  { TC_LITERAL, "-" },
        { TC_DAY, "02" },      { TC_LITERAL, "T" }, { TC_HOUR, "15" },   { TC_LITERAL, ":" },
        { TC_MINUTE, "04" },   { TC_LITERAL, ":" }, { TC_SECOND, "05" }, { TC_FRAC6, ".000000" },
        { TC_ZONE, "Z07:00" },
};

static bool is_digit_at(const char *s, size_t n, size_t i)
{
        return i < n && s[i] >= '0' && s[i] <= '9';
}

/* Go's getnum: one or two digits (exactly two when fixed). */
static int get_num(const char **s, size_t *n, bool fixed, int *ret)
{
        if (!is_digit_at(*s, *n, 0))
                return -1;
        if (!is_digit_at(*s, *n, 1)) {
                if (fixed)
                        return -1;
                *ret = (*s)[0] - '0';
                (*s)++, (*n)--;
                return 0;
        }
        *ret = ((*s)[0] - '0') * 10 + ((*s)[1] - '0');
        *s += 2, *n -= 2;
        return 0;
}

/* Go's atoi: optional sign, then only decimal digits (at least one). */
static int go_atoi(const char *s, size_t n, long *ret)
{
        bool neg = false;
        long v = 0;

        if (n && (s[0] == '-' || s[0] == '+')) {
                neg = s[0] == '-';
                s++, n--;
        }
        if (!n)
                return -1;
        for (size_t i = 0; i < n; i++) {
                if (s[i] < '0' || s[i] > '9' || v > 100000000000L)
                        return -1;
                v = v * 10 + (s[i] - '0');
        }
        *ret = neg ? -v : v;
        return 0;
}

/* Go's parseNanoseconds over the first nbytes of s (s[0] is '.' or ','). */
static int parse_nanoseconds(const char *s, size_t nbytes, long *ret, const char **range)
{
        long ns;

        if (s[0] != '.' && s[0] != ',')
                return -1;
        if (nbytes > 10)
                nbytes = 10;
        if (go_atoi(s + 1, nbytes - 1, &ns) < 0)
                return -1;
        if (ns < 0) {
                *range = "fractional second";
                return 0;
        }
        for (size_t i = 0; i < 10 - nbytes; i++)
                ns *= 10;
        *ret = ns;
        return 0;
}

static bool is_leap(long y)
{
        return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
}

static int days_in(int month, long year)
{
        static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

        if (month == 2 && is_leap(year))
                return 29;
        return days[month - 1];
}

/* Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
        int64_t era, yoe, doy, doe;

        y -= m <= 2;
        era = (y >= 0 ? y : y - 399) / 400;
        yoe = y - era * 400;
        doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
        doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        return era * 146097 + doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *ret_y, int *ret_m, int *ret_d)
{
        int64_t era, doe, yoe, doy, mp, y;

        z += 719468;
        era = (z >= 0 ? z : z - 146096) / 146097;
        doe = z - era * 146097;
        yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
        y = yoe + era * 400;
        doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        mp = (5 * doy + 2) / 153;
        *ret_d = (int) (doy - (153 * mp + 2) / 5 + 1);
        *ret_m = (int) (mp < 10 ? mp + 3 : mp - 9);
        *ret_y = y + (*ret_m <= 2);
}

/* K8S: time.ParseError with a message: `parsing time "<value>"<message>`. */
static int time_parse_message(struct error **reterr, const char *value, const char *message)
{
        struct strbuf sb;
        int r;

        strbuf_init(&sb);
        strbuf_addstr(&sb, "parsing time ");
        quote_time(&sb, value, strlen(value));
        strbuf_addstr(&sb, message);
        r = error_set(reterr, EINVAL, "%s", sb.buf);
        strbuf_release(&sb);
        return r;
}

/* K8S: time.ParseError without one:
 * `parsing time "<value>" as "<layout>": cannot parse "<rest>" as "<element>"`. */
static int time_parse_error(struct error **reterr, const char *value, const char *layout,
                            const char *rest, size_t rest_len, const char *element)
{
        struct strbuf sb;
        int r;

        strbuf_init(&sb);
        strbuf_addstr(&sb, "parsing time ");
        quote_time(&sb, value, strlen(value));
        strbuf_addstr(&sb, " as ");
        quote_time(&sb, layout, strlen(layout));
        strbuf_addstr(&sb, ": cannot parse ");
        quote_time(&sb, rest, rest_len);
        strbuf_addstr(&sb, " as ");
        quote_time(&sb, element, strlen(element));
        r = error_set(reterr, EINVAL, "%s", sb.buf);
        strbuf_release(&sb);
        return r;
}

/* K8S: metav1.Time/MicroTime UnmarshalJSON call time.Parse(RFC3339 or RFC3339Micro); this
 * follows Go's parser for exactly those layouts, messages included. On success *ret is the
 * re-encoded UTC form upstream stores ("...Z", or "....000000Z" for micro). */
static int parse_go_time(const char *value, bool micro, char **ret, struct error **reterr)
{
        const struct time_layout_chunk *layout = micro ? layout_rfc3339_micro : layout_rfc3339;
        size_t nchunks = micro ? ARRAY_SIZE(layout_rfc3339_micro) : ARRAY_SIZE(layout_rfc3339);
        const char *layout_text = micro ? LAYOUT_RFC3339_MICRO : LAYOUT_RFC3339;
        const char *s = value;
        size_t n = strlen(value);
        long year = 0, nsec = 0;
        int month = 1, day = 1, hour = 0, minute = 0, second = 0, offset = 0;
        int64_t secs, days;
        char extra[64];

        for (size_t c = 0; c < nchunks; c++) {
                const struct time_layout_chunk *ch = &layout[c];
                const char *hold = s;
                size_t hold_n = n;
                const char *range = NULL;
                int err = 0;

                switch (ch->kind) {
                case TC_LITERAL:
                        for (const char *p = ch->text; *p; p++) {
                                if (!n || *s != *p)
                                        return time_parse_error(reterr, value, layout_text, s, n,
                                                                ch->text);
                                s++, n--;
                        }
                        continue;
                case TC_YEAR:
                        if (n < 4 || !is_digit_at(s, n, 0) || go_atoi(s, 4, &year) < 0) {
                                err = -1;
                                break;
                        }
                        s += 4, n -= 4;
                        break;
                case TC_MONTH:
                        err = get_num(&s, &n, true, &month);
                        if (!err && (month <= 0 || month > 12))
                                range = "month";
                        break;
                case TC_DAY:
                        /* Any two digits here; the date is checked once it is complete. */
                        err = get_num(&s, &n, true, &day);
                        break;
                case TC_HOUR:
                        err = get_num(&s, &n, false, &hour);
                        if (hour < 0 || hour >= 24)
                                range = "hour";
                        break;
                case TC_MINUTE:
                        err = get_num(&s, &n, true, &minute);
                        if (minute < 0 || minute >= 60)
                                range = "minute";
                        break;
                case TC_SECOND:
                        err = get_num(&s, &n, true, &second);
                        if (err)
                                break;
                        if (second < 0 || second >= 60) {
                                range = "second";
                                break;
                        }
                        /* A fraction the layout does not spell is still accepted. */
                        if (n >= 2 && (s[0] == '.' || s[0] == ',') && is_digit_at(s, n, 1) &&
                            !(c + 1 < nchunks && layout[c + 1].kind == TC_FRAC6)) {
                                size_t k = 2;
                                while (is_digit_at(s, n, k))
                                        k++;
                                err = parse_nanoseconds(s, k, &nsec, &range);
                                s += k, n -= k;
                        }
                        break;
                case TC_FRAC6:
                        if (n < 7) {
                                err = -1;
                                break;
                        }
                        err = parse_nanoseconds(s, 7, &nsec, &range);
                        s += 7, n -= 7;
                        break;
                case TC_ZONE: {
                        int hh = 0, mm = 0;
                        const char *p;
                        size_t pn;

                        if (n >= 1 && s[0] == 'Z') {
                                s++, n--;
                                break;
                        }
                        if (n < 6 || s[3] != ':') {
                                err = -1;
                                break;
                        }
                        p = s + 1, pn = 2;
                        err = get_num(&p, &pn, true, &hh);
                        if (!err) {
                                p = s + 4, pn = 2;
                                err = get_num(&p, &pn, true, &mm);
                        }
                        if (hh > 24)
                                range = "time zone offset hour";
                        if (mm > 60)
                                range = "time zone offset minute";
                        offset = (hh * 60 + mm) * 60;
                        if (s[0] == '-')
                                offset = -offset;
                        else if (s[0] != '+')
                                err = -1;
                        s += 6, n -= 6;
                        break;
                }
                }
                if (range) {
                        snprintf(extra, sizeof(extra), ": %s out of range", range);
                        return time_parse_message(reterr, value, extra);
                }
                if (err)
                        return time_parse_error(reterr, value, layout_text, hold, hold_n, ch->text);
        }
        if (n) {
                struct strbuf sb;
                int r;

                strbuf_init(&sb);
                strbuf_addstr(&sb, ": extra text: ");
                quote_time(&sb, s, n);
                r = time_parse_message(reterr, value, sb.buf);
                strbuf_release(&sb);
                return r;
        }
        if (day < 1 || day > days_in(month, year))
                return time_parse_message(reterr, value, ": day out of range");

        /* K8S: Time.MarshalJSON writes t.UTC() in the same layout. */
        secs = days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second -
               offset;
        days = secs >= 0 ? secs / 86400 : -((-secs + 86399) / 86400);
        secs -= days * 86400;
        {
                int64_t y;
                int m, d;
                char frac[16] = "";

                civil_from_days(days, &y, &m, &d);
                if (micro)
                        snprintf(frac, sizeof(frac), ".%06d", (int) (nsec / 1000));
                /* Go pads the year to four digits after its sign ("-0001"). */
                *ret = xasprintf("%s%04" PRId64 "-%02d-%02dT%02d:%02d:%02d%sZ", y < 0 ? "-" : "",
                                 y < 0 ? -y : y, m, d, (int) (secs / 3600), (int) (secs / 60 % 60),
                                 (int) (secs % 60), frac);
        }
        return 0;
}

/* ---- the walk ---- */

struct walk {
        struct strbuf path;     /* strict path: "spec.containers[0].name" */
        struct strbuf stack;    /* Go's FieldStack: "spec.containers.name" */
        const char *go_struct;  /* innermost struct whose field is being decoded */
        struct strbuf *unknown; /* caller's list of `unknown field "..."` lines */
        size_t n_unknown;
        char *type_error; /* the first plain type error (Go's savedError) */
        int depth;
};

static void truncate_to(struct strbuf *sb, size_t len)
{
        sb->len = len;
        sb->buf[len] = '\0';
}

static void path_add_key(struct strbuf *sb, const char *key)
{
        if (sb->len)
                strbuf_addch(sb, '.');
        strbuf_addstr(sb, key);
}

static char *type_error_message(const struct walk *w, const char *value_desc, const char *type)
{
        /* K8S: UnmarshalTypeError.Error(). */
        if (w->go_struct || w->stack.len)
                return xasprintf("json: cannot unmarshal %s into Go struct field %s.%s of type %s",
                                 value_desc, w->go_struct ? w->go_struct : "", w->stack.buf, type);
        return xasprintf("json: cannot unmarshal %s into Go value of type %s", value_desc, type);
}

/* A plain type error: Go saves the first and decodes on. */
static void save_type_error(struct walk *w, const char *value_desc, const struct schema *s)
{
        struct strbuf type;

        if (w->type_error)
                return;
        strbuf_init(&type);
        type_name(s, &type, 0);
        w->type_error = type_error_message(w, value_desc, type.buf);
        strbuf_release(&type);
}

/* A type error raised inside an UnmarshalJSON method (IntOrString, Time): Go stops there. */
static int fail_type_error(struct walk *w, const char *value_desc, const char *type,
                           struct error **reterr)
{
        cleanup_free char *msg = type_error_message(w, value_desc, type);
        return error_set(reterr, EINVAL, "%s", msg);
}

static void note_unknown(struct walk *w, const char *key)
{
        size_t len = w->path.len;

        if (!w->unknown || w->n_unknown >= SCHEMA_MAX_UNKNOWN)
                return;
        path_add_key(&w->path, key);
        strbuf_addstr(w->unknown, "unknown field ");
        utf8_go_quote(w->unknown, w->path.buf, w->path.len);
        strbuf_addch(w->unknown, '\n');
        truncate_to(&w->path, len);
        w->n_unknown++;
}

/* What Go's decoder leaves in a list element or map value that was null; NULL keeps null. */
static json_t *zero_value(const struct schema *s)
{
        switch (s ? s->kind : SCHEMA_ANY) {
        case SCHEMA_STRING:
                return json_string("");
        case SCHEMA_INTEGER:
        case SCHEMA_INT_OR_STRING:
                return json_integer(0);
        case SCHEMA_NUMBER:
                return json_real(0);
        case SCHEMA_BOOLEAN:
                return json_false();
        case SCHEMA_QUANTITY:
                return json_string("0");
        case SCHEMA_OBJECT:
                return json_object();
        case SCHEMA_ANY:
        case SCHEMA_TIME:
        case SCHEMA_MAP:
        case SCHEMA_LIST:
        case SCHEMA_KIND_MAX:
        default:
                return NULL;
        }
}

static int check_value(struct walk *w, const struct schema *s, json_t *v, json_t **ret_new,
                       struct error **reterr);

static int check_object(struct walk *w, const struct schema *s, json_t *v, struct error **reterr)
{
        const char *key;
        json_t *child;
        void *tmp;

        if (!json_is_object(v)) {
                save_type_error(w, json_go_kind(v), s);
                return 0;
        }
        json_object_foreach_safe(v, tmp, key, child)
        {
                const struct schema *fs = schema_field(s, key);
                const char *saved_struct = w->go_struct;
                size_t path_len = w->path.len, stack_len = w->stack.len;
                json_t *repl = NULL;
                int r;

                if (!fs) {
                        /* K8S: strict decoding: unknown field "spec.containers[0].foo". */
                        note_unknown(w, key);
                        json_object_del(v, key);
                        continue;
                }
                if (json_is_null(child)) {
                        /* Go leaves the field zero; omitempty drops it again. */
                        json_object_del(v, key);
                        continue;
                }
                /* K8S 1.33 (sigs.k8s.io/json cfa47c3): fields promoted from an inline-embedded
                 * struct (VolumeSource, ProbeHandler) are named like the outer struct's own;
                 * the decoder in 1.34+ adds the embedded struct's name to the path. */
                path_add_key(&w->path, key);
                path_add_key(&w->stack, key);
                w->go_struct = s->go_type;
                r = check_value(w, fs, child, &repl, reterr);
                if (r < 0)
                        return r;
                w->go_struct = saved_struct;
                truncate_to(&w->path, path_len);
                truncate_to(&w->stack, stack_len);
                if (repl)
                        json_object_set_new(v, key, repl);
        }
        return 0;
}

static int check_map(struct walk *w, const struct schema *s, json_t *v, struct error **reterr)
{
        const char *key;
        json_t *child;
        void *tmp;

        if (!json_is_object(v)) {
                save_type_error(w, json_go_kind(v), s);
                return 0;
        }
        json_object_foreach_safe(v, tmp, key, child)
        {
                size_t path_len = w->path.len;
                json_t *repl = NULL;
                int r;

                if (json_is_null(child)) {
                        repl = zero_value(s->items);
                        if (repl)
                                json_object_set_new(v, key, repl);
                        continue;
                }
                /* The strict path names map keys; Go's type-error path does not. */
                path_add_key(&w->path, key);
                r = check_value(w, s->items, child, &repl, reterr);
                if (r < 0)
                        return r;
                truncate_to(&w->path, path_len);
                if (repl)
                        json_object_set_new(v, key, repl);
        }
        return 0;
}

static int check_list(struct walk *w, const struct schema *s, json_t *v, struct error **reterr)
{
        size_t i;
        json_t *child;

        if (!json_is_array(v)) {
                save_type_error(w, json_go_kind(v), s);
                return 0;
        }
        json_array_foreach(v, i, child) {
                size_t path_len = w->path.len;
                json_t *repl = NULL;
                int r;

                if (json_is_null(child)) {
                        repl = zero_value(s->items);
                        if (repl)
                                json_array_set_new(v, i, repl);
                        continue;
                }
                strbuf_addf(&w->path, "[%zu]", i);
                r = check_value(w, s->items, child, &repl, reterr);
                if (r < 0)
                        return r;
                truncate_to(&w->path, path_len);
                if (repl)
                        json_array_set_new(v, i, repl);
        }
        return 0;
}

static void trim_space(const char **s, size_t *n)
{
        while (*n && strchr(" \t\n\r\v\f", (*s)[0]))
                (*s)++, (*n)--;
        while (*n && strchr(" \t\n\r\v\f", (*s)[*n - 1]))
                (*n)--;
}

/* K8S: Quantity.UnmarshalJSON: the string (or the number's text), trimmed, through
 * ParseQuantity; the value is stored as its String(). */
static int check_quantity(json_t *v, json_t **ret_new, struct error **reterr)
{
        cleanup_free char *text = NULL, *formatted = NULL;
        struct quantity q;
        const char *s;
        size_t n;
        int r;

        if (json_is_string(v))
                s = json_string_value(v), n = json_string_length(v);
        else if (json_is_number(v)) {
                text = number_text(v);
                s = text, n = strlen(text);
        } else
                return error_set(reterr, EINVAL, "%s", QUANTITY_REGEXP_MESSAGE);
        trim_space(&s, &n);
        {
                cleanup_free char *trimmed = xstrndup(s, n);
                r = quantity_parse(trimmed, &q, reterr);
        }
        if (r < 0)
                return r;
        formatted = quantity_format(&q);
        if (json_is_string(v)) {
                if (!streq(formatted, json_string_value(v)))
                        json_string_set(v, formatted);
        } else
                *ret_new = json_string(formatted);
        return 0;
}

/* K8S (Go encoding/json): a []byte is a base64 string; a bad one is saved like a type error
 * (the first error wins, the walk goes on) with base64's own message, no field path. */
static void check_bytes(struct walk *w, const json_t *v)
{
        cleanup_error struct error *err = NULL;

        if (w->type_error)
                return;
        if (base64_decode(json_string_value(v), json_string_length(v), NULL, NULL, &err) < 0)
                w->type_error = xstrdup(err->message);
}

static int check_value(struct walk *w, const struct schema *s, json_t *v, json_t **ret_new,
                       struct error **reterr)
{
        int r = 0;

        *ret_new = NULL;
        if (!s || s->kind == SCHEMA_ANY)
                return 0;
        if (w->depth >= SCHEMA_MAX_DEPTH)
                return error_set(reterr, EINVAL, "json: exceeded max depth");
        w->depth++;
        switch (s->kind) {
        case SCHEMA_STRING:
                if (!json_is_string(v))
                        save_type_error(w, json_go_kind(v), s);
                else if (s->go_type && streq(s->go_type, SCHEMA_GO_BYTES))
                        check_bytes(w, v);
                break;
        case SCHEMA_INTEGER:
                if (json_is_integer(v)) {
                        json_int_t n = json_integer_value(v);
                        if (s->go_type && streq(s->go_type, "int32") &&
                            (n < INT32_MIN || n > INT32_MAX)) {
                                cleanup_free char *text = number_text(v);
                                cleanup_free char *desc = xasprintf("number %s", text);
                                save_type_error(w, desc, s);
                        }
                } else if (json_is_real(v)) {
                        /* K8S: "number 1.5": ParseInt failed on the literal. */
                        cleanup_free char *text = number_text(v);
                        cleanup_free char *desc = xasprintf("number %s", text);
                        save_type_error(w, desc, s);
                } else
                        save_type_error(w, json_go_kind(v), s);
                break;
        case SCHEMA_NUMBER:
                if (!json_is_number(v))
                        save_type_error(w, json_go_kind(v), s);
                break;
        case SCHEMA_BOOLEAN:
                if (!json_is_boolean(v))
                        save_type_error(w, json_go_kind(v), s);
                break;
        case SCHEMA_QUANTITY:
                r = check_quantity(v, ret_new, reterr);
                break;
        case SCHEMA_INT_OR_STRING:
                /* K8S: IntOrString.UnmarshalJSON: a string, else json.Unmarshal into int32, whose
                 * error ends the decode. */
                if (json_is_string(v))
                        break;
                if (json_is_integer(v) && json_integer_value(v) >= INT32_MIN &&
                    json_integer_value(v) <= INT32_MAX)
                        break;
                if (json_is_number(v)) {
                        cleanup_free char *text = number_text(v);
                        cleanup_free char *desc = xasprintf("number %s", text);
                        r = fail_type_error(w, desc, "int32", reterr);
                } else
                        r = fail_type_error(w, json_go_kind(v), "int32", reterr);
                break;
        case SCHEMA_TIME: {
                /* K8S: Time.UnmarshalJSON: json.Unmarshal into a string, then time.Parse. */
                cleanup_free char *formatted = NULL;
                bool micro = s->go_type && streq(s->go_type, SCHEMA_GO_MICRO_TIME);

                if (!json_is_string(v)) {
                        r = fail_type_error(w, json_go_kind(v), "string", reterr);
                        break;
                }
                r = parse_go_time(json_string_value(v), micro, &formatted, reterr);
                if (r >= 0 && !streq(formatted, json_string_value(v)))
                        json_string_set(v, formatted);
                break;
        }
        case SCHEMA_OBJECT:
                r = check_object(w, s, v, reterr);
                break;
        case SCHEMA_MAP:
                r = check_map(w, s, v, reterr);
                break;
        case SCHEMA_LIST:
                r = check_list(w, s, v, reterr);
                break;
        case SCHEMA_ANY:
        case SCHEMA_KIND_MAX:
        default:
                break;
        }
        if (r < 0)
                return r;
        w->depth--;
        return 0;
}

/* Go's FieldStack for a caller's path prefix: field names without list indices. */
static void stack_from_path(struct strbuf *stack, const char *path)
{
        int brackets = 0;

        for (const char *p = path; *p; p++) {
                if (*p == '[')
                        brackets++;
                else if (*p == ']' && brackets)
                        brackets--;
                else if (!brackets)
                        strbuf_addch(stack, *p);
        }
}

int schema_check(const struct schema *s, json_t *v, const char *path, struct strbuf *unknown,
                 struct error **reterr)
{
        struct walk w = { .unknown = unknown };
        json_t *repl = NULL;
        int r;

        if (!v)
                return error_set(reterr, EINVAL, "schema check: no value");
        strbuf_init(&w.path);
        strbuf_init(&w.stack);
        if (path) {
                strbuf_addstr(&w.path, path);
                stack_from_path(&w.stack, path);
        }
        if (json_is_null(v))
                r = 0;
        else
                r = check_value(&w, s, v, &repl, reterr);
        /* A replacement for the root itself (a bare number quantity) has nowhere to go. */
        json_decref(repl);
        if (r >= 0 && w.type_error)
                r = error_set(reterr, EINVAL, "%s", w.type_error);
        free(w.type_error);
        strbuf_release(&w.path);
        strbuf_release(&w.stack);
        return r;
}
