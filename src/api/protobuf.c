/* protobuf.c: the Kubernetes protobuf codec over the schema tables (see protobuf.h for the type
 * mapping, the Go rules and the envelope and watch framing). It turns JSON values into
 * messages and back; the wire primitives are base/protowire.c's, and choosing a content type,
 * reading request bodies and writing responses are the API server's. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/protobuf.h"
#include "api/schemas.h"
#include "base/alloc.h"
#include "base/base64.h"
#include "base/json.h"
#include "base/protowire.h"
#include "base/quantity.h"
#include "base/timeutil.h"
#include "base/utf8.h"

_Static_assert(PB_MAX_DEPTH == SCHEMA_MAX_DEPTH, "protowire and schema depth limits differ");

/* 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z: the years Go's Time.MarshalJSON can print. */
#define PB_TIME_MIN (-62135596800LL)
#define PB_TIME_MAX 253402300799LL

static size_t count_fields(const struct schema *s)
{
        size_t n = 0;

        while (s->fields && s->fields[n].name)
                n++;
        return n;
}

/* ---- encoding ---- */

struct enc_entry {
        const struct schema_field *f;
        const json_t *v;
        unsigned key; /* the top-level number: the embedded message's, or the field's own */
};

static int enc_object_fields(struct pbw *w, const struct schema *s, const json_t *obj,
                             unsigned depth, struct error **reterr);

static int enc_type_error(const struct schema *s, const json_t *v, struct error **reterr)
{
        static const char *const names[SCHEMA_KIND_MAX] = {
                [SCHEMA_ANY] = "any",
                [SCHEMA_STRING] = "string",
                [SCHEMA_INTEGER] = "integer",
                [SCHEMA_NUMBER] = "number",
                [SCHEMA_BOOLEAN] = "boolean",
                [SCHEMA_QUANTITY] = "quantity",
                [SCHEMA_INT_OR_STRING] = "integer or string",
                [SCHEMA_TIME] = "time",
                [SCHEMA_OBJECT] = "object",
                [SCHEMA_MAP] = "object",
                [SCHEMA_LIST] = "array",
        };
        return error_set(reterr, EINVAL, "expected %s, got %s", names[s->kind], json_go_kind(v));
}

/* Seconds and nanoseconds of an RFC 3339 time ("2024-01-02T03:04:05.123456Z"). */
static int parse_time(const char *str, int64_t *ret_sec, int32_t *ret_nsec)
{
        const char *dot = strchr(str, '.');
        int32_t nsec = 0;
        time_t t;

        if (time_parse_rfc3339(str, &t) < 0)
                return -EINVAL;
        if (dot) {
                int digits = 0;
                for (const char *p = dot + 1; *p >= '0' && *p <= '9'; p++, digits++)
                        if (digits < 9)
                                nsec = nsec * 10 + (*p - '0');
                for (; digits < 9; digits++)
                        nsec *= 10;
        }
        *ret_sec = (int64_t) t;
        *ret_nsec = nsec;
        return 0;
}

static int cmp_str(const void *a, const void *b)
{
        return strcmp(*(const char *const *) a, *(const char *const *) b);
}

static bool is_bytes(const struct schema *s)
{
        return s->go_type && streq(s->go_type, SCHEMA_GO_BYTES);
}

static bool is_int32(const struct schema *s)
{
        return s->go_type && streq(s->go_type, "int32");
}

/* Writes v (JSON shaped by s) as field num. */
static int enc_value(struct pbw *w, uint32_t num, const struct schema *s, const json_t *v,
                     unsigned depth, struct error **reterr)
{
        int r;

        if (depth >= SCHEMA_MAX_DEPTH)
                return error_set(reterr, EINVAL, "nested deeper than %d", SCHEMA_MAX_DEPTH);
        switch (s->kind) {
        case SCHEMA_STRING:
                if (!json_is_string(v))
                        return enc_type_error(s, v, reterr);
                if (is_bytes(s)) {
                        /* []byte: base64 in JSON, the bytes themselves on the wire. */
                        cleanup_free char *raw = NULL;
                        size_t raw_len;

                        r = base64_decode(json_string_value(v), json_string_length(v), &raw,
                                          &raw_len, reterr);
                        if (r < 0)
                                return r;
                        pbw_bytes(w, num, raw, raw_len);
                        return 0;
                }
                pbw_bytes(w, num, json_string_value(v), json_string_length(v));
                return 0;
        case SCHEMA_INTEGER: {
                json_int_t i;
                if (!json_is_integer(v))
                        return enc_type_error(s, v, reterr);
                i = json_integer_value(v);
                if (is_int32(s)) {
                        if (i < INT32_MIN || i > INT32_MAX)
                                return error_set(reterr, EINVAL, "%lld does not fit in an int32",
                                                 (long long) i);
                        pbw_int32(w, num, (int32_t) i);
                } else {
                        pbw_int64(w, num, (int64_t) i);
                }
                return 0;
        }
        case SCHEMA_NUMBER:
                if (!json_is_number(v))
                        return enc_type_error(s, v, reterr);
                pbw_double(w, num, json_number_value(v));
                return 0;
        case SCHEMA_BOOLEAN:
                if (!json_is_boolean(v))
                        return enc_type_error(s, v, reterr);
                pbw_bool(w, num, json_is_true(v));
                return 0;
        case SCHEMA_QUANTITY:
                /* resource.Quantity {string string = 1}; stored quantities are strings
                 * (schema_check rewrites numbers), an integer is accepted as its digits. */
                if (json_is_string(v)) {
                        (void) pbw_begin(w, num);
                        pbw_bytes(w, 1, json_string_value(v), json_string_length(v));
                        pbw_end(w);
                        return 0;
                }
                if (json_is_integer(v)) {
                        cleanup_free char *digits =
                                xasprintf("%lld", (long long) json_integer_value(v));
                        (void) pbw_begin(w, num);
                        pbw_string(w, 1, digits);
                        pbw_end(w);
                        return 0;
                }
                return enc_type_error(s, v, reterr);
        case SCHEMA_TIME: {
                int64_t sec;
                int32_t nsec;
                if (!json_is_string(v))
                        return enc_type_error(s, v, reterr);
                if (parse_time(json_string_value(v), &sec, &nsec) < 0 || sec < PB_TIME_MIN ||
                    sec > PB_TIME_MAX)
                        return error_set(reterr, EINVAL, "\"%s\" is not an RFC 3339 time",
                                         json_string_value(v));
                /* K8S: metav1.Time.ProtoTime: {seconds, nanos}, both written. */
                (void) pbw_begin(w, num);
                pbw_int64(w, 1, sec);
                pbw_int32(w, 2, nsec);
                pbw_end(w);
                return 0;
        }
        case SCHEMA_INT_OR_STRING:
                /* K8S: intstr.IntOrString writes all three fields. */
                if (json_is_integer(v)) {
                        json_int_t i = json_integer_value(v);
                        if (i < INT32_MIN || i > INT32_MAX)
                                return error_set(reterr, EINVAL, "%lld does not fit in an int32",
                                                 (long long) i);
                        (void) pbw_begin(w, num);
                        pbw_int64(w, 1, 0);
                        pbw_int32(w, 2, (int32_t) i);
                        pbw_bytes(w, 3, "", 0);
                        pbw_end(w);
                        return 0;
                }
                if (json_is_string(v)) {
                        (void) pbw_begin(w, num);
                        pbw_int64(w, 1, 1);
                        pbw_int32(w, 2, 0);
                        pbw_bytes(w, 3, json_string_value(v), json_string_length(v));
                        pbw_end(w);
                        return 0;
                }
                return enc_type_error(s, v, reterr);
        case SCHEMA_ANY: {
                /* metav1.FieldsV1 {bytes Raw = 1}: the JSON text. */
                cleanup_free char *text = json_dump_compact(v);
                if (!text)
                        return error_set(reterr, EINVAL, "cannot be written as JSON");
                (void) pbw_begin(w, num);
                pbw_string(w, 1, text);
                pbw_end(w);
                return 0;
        }
        case SCHEMA_OBJECT:
                if (!json_is_object(v))
                        return enc_type_error(s, v, reterr);
                if (pbw_begin(w, num) < 0)
                        return error_set(reterr, EINVAL, "nested too deep");
                r = enc_object_fields(w, s, v, depth + 1, reterr);
                if (r < 0)
                        return r;
                pbw_end(w);
                return 0;
        case SCHEMA_LIST: {
                size_t i;
                json_t *e;
                if (!json_is_array(v))
                        return enc_type_error(s, v, reterr);
                if (s->items->kind == SCHEMA_LIST || s->items->kind == SCHEMA_MAP)
                        return error_set(reterr, EINVAL, "a list of lists or maps has no form");
                if (s->pb_wrapped) {
                        /* one message, its field 1 each item */
                        if (pbw_begin(w, num) < 0)
                                return error_set(reterr, EINVAL, "nested too deep");
                        json_array_foreach(v, i, e) {
                                if (json_is_null(e))
                                        return error_set(reterr, EINVAL, "[%zu]: null element", i);
                                r = enc_value(w, 1, s->items, e, depth + 1, reterr);
                                if (r < 0)
                                        return error_wrap(reterr, "[%zu]", i);
                        }
                        pbw_end(w);
                        return 0;
                }
                json_array_foreach(v, i, e) {
                        if (json_is_null(e))
                                return error_set(reterr, EINVAL, "[%zu]: null element", i);
                        r = enc_value(w, num, s->items, e, depth + 1, reterr);
                        if (r < 0)
                                return error_wrap(reterr, "[%zu]", i);
                }
                return 0;
        }
        case SCHEMA_MAP: {
                const char **keys;
                const char *key;
                size_t n = 0, k = 0;
                json_t *e;
                if (!json_is_object(v))
                        return enc_type_error(s, v, reterr);
                if ((s->items->kind == SCHEMA_LIST && !s->items->pb_wrapped) ||
                    s->items->kind == SCHEMA_MAP)
                        return error_set(reterr, EINVAL, "a map of lists or maps has no form");
                /* K8S: gogo's generated marshalers sort map keys (sort.Strings: bytewise). */
                n = json_object_size(v);
                keys = xcalloc(n ? n : 1, sizeof(*keys));
                json_object_foreach((json_t *) v, key, e)
                        keys[k++] = key;
                qsort(keys, n, sizeof(*keys), cmp_str);
                r = 0;
                for (k = 0; k < n && r >= 0; k++) {
                        e = json_object_get(v, keys[k]);
                        if (json_is_null(e)) {
                                r = error_set(reterr, EINVAL, "[\"%s\"]: null value", keys[k]);
                                break;
                        }
                        (void) pbw_begin(w, num);
                        pbw_string(w, 1, keys[k]);
                        r = enc_value(w, 2, s->items, e, depth + 1, reterr);
                        if (r < 0) {
                                r = error_wrap(reterr, "[\"%s\"]", keys[k]);
                                break;
                        }
                        pbw_end(w);
                }
                free(keys);
                return r;
        }
        case SCHEMA_KIND_MAX:
                break;
        }
        return error_set(reterr, EINVAL, "schema kind %d has no protobuf form", s->kind);
}

/* Writes the fields of obj present in s, in ascending number as Go's marshalers do; the fields
 * of an embedded struct go together in their embedded message at its number. */
static int enc_object_fields(struct pbw *w, const struct schema *s, const json_t *obj,
                             unsigned depth, struct error **reterr)
{
        size_t nf = count_fields(s), n = 0;
        struct enc_entry *e;
        unsigned open_embed = 0;
        int r = 0;

        if (nf == 0)
                return 0;
        e = xcalloc(nf, sizeof(*e));
        for (size_t i = 0; i < nf; i++) {
                const struct schema_field *f = &s->fields[i];
                const json_t *v;
                size_t j;

                if (f->pb == 0)
                        continue;
                v = json_object_get(obj, f->name);
                if (!v || json_is_null(v))
                        continue;
                /* Insertion sort by (top-level number, number): tables are nearly sorted. */
                j = n++;
                e[j] = (struct enc_entry){ .f = f, .v = v };
                e[j].key = SCHEMA_FIELD_EMBED(f) ? SCHEMA_FIELD_EMBED(f) : f->pb;
                while (j > 0 && (e[j - 1].key > e[j].key ||
                                 (e[j - 1].key == e[j].key && e[j - 1].f->pb > e[j].f->pb))) {
                        struct enc_entry t = e[j - 1];
                        e[j - 1] = e[j];
                        e[j] = t;
                        j--;
                }
        }
        for (size_t i = 0; i < n; i++) {
                unsigned embed = SCHEMA_FIELD_EMBED(e[i].f);

                if (open_embed && embed != open_embed) {
                        pbw_end(w);
                        open_embed = 0;
                }
                if (embed && embed != open_embed) {
                        if (pbw_begin(w, embed) < 0) {
                                r = error_set(reterr, EINVAL, "nested too deep");
                                break;
                        }
                        open_embed = embed;
                }
                r = enc_value(w, e[i].f->pb, e[i].f->schema, e[i].v, depth, reterr);
                if (r < 0) {
                        r = error_wrap(reterr, "%s", e[i].f->name);
                        break;
                }
        }
        if (r >= 0 && open_embed)
                pbw_end(w);
        free(e);
        return r;
}

static int encode_into(struct pbw *w, const struct schema *s, const json_t *obj,
                       struct error **reterr)
{
        if (s->kind != SCHEMA_OBJECT)
                return error_set(reterr, EINVAL, "protobuf: a %s is not a message",
                                 s->go_type ? s->go_type : "value");
        if (!json_is_object(obj))
                return error_set(reterr, EINVAL, "protobuf: v1.%s: expected object, got %s",
                                 s->go_type, json_go_kind(obj));
        if (enc_object_fields(w, s, obj, 0, reterr) < 0)
                return error_wrap(reterr, "protobuf: encoding v1.%s", s->go_type);
        return 0;
}

/* Puts out back to its first start bytes, as it was before a failed encode. */
static void out_truncate(struct strbuf *out, size_t start)
{
        out->len = start;
        out->buf[start] = '\0';
}

typedef int (*encode_fn)(struct pbw *w, const struct schema *s, const json_t *obj,
                         struct error **reterr);

/* Runs fn with a writer appending to out; on failure out is left as it was. */
static int encode_with(encode_fn fn, const struct schema *s, const json_t *obj, struct strbuf *out,
                       struct error **reterr)
{
        size_t start = out->len;
        struct pbw w;
        int r;

        pbw_init(&w, out);
        r = fn(&w, s, obj, reterr);
        if (r < 0) {
                pbw_release(&w);
                out_truncate(out, start);
                return r;
        }
        pbw_finish(&w);
        return 0;
}

int pb_encode(const struct schema *s, const json_t *obj, struct strbuf *out, struct error **reterr)
{
        return encode_with(encode_into, s, obj, out, reterr);
}

/* PB_K8S_MAGIC + runtime.Unknown around obj's message. */
static int encode_object_into(struct pbw *w, const struct schema *s, const json_t *obj,
                              struct error **reterr)
{
        const char *api_version = json_string_value(json_object_get(obj, "apiVersion"));
        const char *kind = json_string_value(json_object_get(obj, "kind"));
        int r;

        if (!api_version || !kind)
                return error_set(reterr, EINVAL,
                                 "protobuf: an object needs apiVersion and kind strings");
        strbuf_add(w->sb, PB_K8S_MAGIC, PB_K8S_MAGIC_LEN);
        (void) pbw_begin(w, 1);
        pbw_string(w, 1, api_version);
        pbw_string(w, 2, kind);
        pbw_end(w);
        (void) pbw_begin(w, 2);
        r = encode_into(w, s, obj, reterr);
        if (r < 0)
                return r;
        pbw_end(w);
        /* K8S: runtime.Unknown's contentEncoding and contentType are written, empty. */
        pbw_bytes(w, 3, "", 0);
        pbw_bytes(w, 4, "", 0);
        return 0;
}

int pb_encode_object(const struct schema *s, const json_t *obj, struct strbuf *out,
                     struct error **reterr)
{
        return encode_with(encode_object_into, s, obj, out, reterr);
}

int pb_encode_watch_event(const char *type, const struct schema *obj_schema, const json_t *obj,
                          struct strbuf *out, struct error **reterr)
{
        static const char zero[PB_WATCH_FRAME_PREFIX];
        size_t start = out->len, len;
        struct pbw w;
        int r;

        strbuf_add(out, zero, sizeof(zero));
        pbw_init(&w, out);
        pbw_string(&w, 1, type);
        (void) pbw_begin(&w, 2); /* RawExtension */
        (void) pbw_begin(&w, 1); /* raw */
        r = encode_object_into(&w, obj_schema, obj, reterr);
        if (r < 0) {
                pbw_release(&w);
                out_truncate(out, start);
                return r;
        }
        pbw_end(&w);
        pbw_end(&w);
        pbw_finish(&w);
        len = out->len - start - PB_WATCH_FRAME_PREFIX;
        if (len > UINT32_MAX) {
                out_truncate(out, start);
                return error_set(reterr, EINVAL, "protobuf: a watch event of %zu bytes", len);
        }
        for (int i = 0; i < PB_WATCH_FRAME_PREFIX; i++)
                out->buf[start + i] =
                        (char) (uint8_t) (len >> (8 * (PB_WATCH_FRAME_PREFIX - 1 - i)));
        return 0;
}

/* ---- decoding ---- */

static int bad(struct error **reterr, const char *fmt, ...) _printf_(2, 3);
static int bad(struct error **reterr, const char *fmt, ...)
{
        cleanup_free char *msg = NULL;
        va_list ap;

        va_start(ap, fmt);
        if (vasprintf(&msg, fmt, ap) < 0)
                msg = NULL;
        va_end(ap);
        return error_set(reterr, EBADMSG, "%s", msg ? msg : "malformed message");
}

static int want_wire(const struct pb_field *f, enum pb_wire wt, struct error **reterr)
{
        if (f->wire != wt)
                return bad(reterr, "field %u has wire type %d, expected %d", f->num, f->wire, wt);
        return 0;
}

/* A JSON string from wire bytes: UTF-8 without NUL, as JSON bodies must be. */
static int dec_string(const uint8_t *data, size_t len, json_t **ret, struct error **reterr)
{
        if (memchr(data, '\0', len))
                return bad(reterr, "a string holds a NUL byte");
        if (!utf8_valid((const char *) data, len))
                return bad(reterr, "a string is not valid UTF-8");
        *ret = json_stringn((const char *) data, len);
        return 0;
}

static int next(struct pbr *r, struct pb_field *f, struct error **reterr)
{
        int ret = pbr_next(r, f);

        if (ret < 0)
                return bad(reterr, "malformed message");
        return ret;
}

static json_t *zero_value(const struct schema *s)
{
        switch (s->kind) {
        case SCHEMA_STRING:
                return json_string("");
        case SCHEMA_INTEGER:
                return json_integer(0);
        case SCHEMA_NUMBER:
                return json_real(0);
        case SCHEMA_BOOLEAN:
                return json_false();
        case SCHEMA_QUANTITY:
                return json_string("0");
        case SCHEMA_INT_OR_STRING:
                return json_integer(0);
        case SCHEMA_OBJECT:
        case SCHEMA_MAP:
                return json_object();
        case SCHEMA_LIST:
                return json_array();
        default:
                return json_null();
        }
}

static bool is_scalar(const struct schema *s)
{
        return s->kind == SCHEMA_STRING || s->kind == SCHEMA_INTEGER || s->kind == SCHEMA_NUMBER ||
               s->kind == SCHEMA_BOOLEAN;
}

static bool is_zero(const json_t *v)
{
        return (json_is_string(v) && json_string_length(v) == 0) ||
               (json_is_integer(v) && json_integer_value(v) == 0) ||
               (json_is_real(v) && json_real_value(v) == 0) || json_is_false(v);
}

static int dec_object(const struct schema *s, const struct pbr *parent, const struct pb_field *f,
                      json_t **ret, struct error **reterr);

static int dec_int(const struct schema *s, uint64_t u, json_t **ret, struct error **reterr)
{
        int64_t i = (int64_t) u;

        if (is_int32(s) && (i < INT32_MIN || i > INT32_MAX))
                return bad(reterr, "%lld does not fit in an int32", (long long) i);
        *ret = json_integer((json_int_t) i);
        return 0;
}

static int dec_double(uint64_t u, json_t **ret, struct error **reterr)
{
        double d;

        memcpy(&d, &u, sizeof(d));
        if (!isfinite(d))
                return bad(reterr, "a number is not finite");
        *ret = json_real(d);
        return 0;
}

static int dec_quantity(const struct pbr *r, const struct pb_field *f, json_t **ret,
                        struct error **reterr)
{
        cleanup_error struct error *qerr = NULL;
        cleanup_free char *text = NULL;
        struct pb_field g;
        struct quantity q;
        struct pbr sub;
        json_t *str = NULL;
        int n;

        if (want_wire(f, PB_WIRE_LEN, reterr) < 0 || pbr_sub(r, f, &sub) < 0)
                return bad(reterr, "malformed quantity");
        while ((n = next(&sub, &g, reterr)) > 0) {
                if (g.num != 1)
                        continue;
                json_decref(str);
                str = NULL;
                if (want_wire(&g, PB_WIRE_LEN, reterr) < 0 ||
                    dec_string(g.data, g.len, &str, reterr) < 0)
                        return -EBADMSG;
        }
        if (n < 0) {
                json_decref(str);
                return n;
        }
        /* K8S: Quantity.Unmarshal parses the string when there is one; none is zero. */
        if (!str) {
                *ret = json_string("0");
                return 0;
        }
        if (quantity_parse(json_string_value(str), &q, &qerr) < 0) {
                json_decref(str);
                return bad(reterr, "%s", qerr ? qerr->message : "invalid quantity");
        }
        json_decref(str);
        text = quantity_format(&q);
        *ret = json_string(text);
        return 0;
}

static int dec_time(const struct schema *s, const struct pbr *r, const struct pb_field *f,
                    json_t **ret, struct error **reterr)
{
        int64_t sec = 0, nsec = 0;
        struct pb_field g;
        struct pbr sub;
        struct tm tm;
        bool micro;
        time_t t;
        char buf[48];
        int n;

        if (want_wire(f, PB_WIRE_LEN, reterr) < 0 || pbr_sub(r, f, &sub) < 0)
                return bad(reterr, "malformed time");
        while ((n = next(&sub, &g, reterr)) > 0) {
                if (g.num != 1 && g.num != 2)
                        continue;
                if (want_wire(&g, PB_WIRE_VARINT, reterr) < 0)
                        return -EBADMSG;
                if (g.num == 1)
                        sec = (int64_t) g.u;
                else
                        nsec = (int64_t) g.u;
        }
        if (n < 0)
                return n;
        /* K8S: metav1.Time.Unmarshal: seconds and nanos both zero is the zero Time, which Go
         * prints as null and the stored form leaves out. What prints is whole seconds (Time) or
         * microseconds (MicroTime); a time that prints as the epoch would be written back as
         * the zero Time, so it is read as one. */
        micro = s->go_type && streq(s->go_type, SCHEMA_GO_MICRO_TIME);
        if (sec == 0 && (!micro || nsec / 1000 == 0)) {
                *ret = NULL;
                return 0;
        }
        if (sec < PB_TIME_MIN || sec > PB_TIME_MAX || nsec < 0 || nsec > 999999999)
                return bad(reterr, "time %lld.%09lld is out of range", (long long) sec,
                           (long long) nsec);
        t = (time_t) sec;
        if (!gmtime_r(&t, &tm))
                return bad(reterr, "time %lld is out of range", (long long) sec);
        if (micro)
                snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", tm.tm_year + 1900,
                         tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                         (int) (nsec / 1000));
        else
                snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900,
                         tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
        *ret = json_string(buf);
        return 0;
}

static int dec_int_or_string(const struct pbr *r, const struct pb_field *f, json_t **ret,
                             struct error **reterr)
{
        uint64_t type = 0;
        int64_t ival = 0;
        json_t *str = NULL;
        struct pb_field g;
        struct pbr sub;
        int n;

        if (want_wire(f, PB_WIRE_LEN, reterr) < 0 || pbr_sub(r, f, &sub) < 0)
                return bad(reterr, "malformed IntOrString");
        while ((n = next(&sub, &g, reterr)) > 0) {
                if (g.num == 1 || g.num == 2) {
                        if (want_wire(&g, PB_WIRE_VARINT, reterr) < 0)
                                goto fail;
                        if (g.num == 1)
                                type = g.u;
                        else
                                ival = (int64_t) g.u;
                } else if (g.num == 3) {
                        json_decref(str);
                        str = NULL;
                        if (want_wire(&g, PB_WIRE_LEN, reterr) < 0 ||
                            dec_string(g.data, g.len, &str, reterr) < 0)
                                goto fail;
                }
        }
        if (n < 0)
                goto fail;
        /* K8S: IntOrString.MarshalJSON: Type 0 is IntVal, 1 is StrVal, anything else fails. */
        if (type == 0) {
                json_decref(str);
                if (ival < INT32_MIN || ival > INT32_MAX)
                        return bad(reterr, "%lld does not fit in an int32", (long long) ival);
                *ret = json_integer((json_int_t) ival);
                return 0;
        }
        if (type == 1) {
                *ret = str ? str : json_string("");
                return 0;
        }
        bad(reterr, "IntOrString type %llu is neither 0 nor 1", (unsigned long long) type);
fail:
        json_decref(str);
        return -EBADMSG;
}

static int dec_fields_v1(const struct pbr *r, const struct pb_field *f, json_t **ret,
                         struct error **reterr)
{
        const uint8_t *raw = NULL;
        size_t raw_len = 0;
        struct pb_field g;
        json_error_t jerr;
        struct pbr sub;
        int n;

        if (want_wire(f, PB_WIRE_LEN, reterr) < 0 || pbr_sub(r, f, &sub) < 0)
                return bad(reterr, "malformed FieldsV1");
        while ((n = next(&sub, &g, reterr)) > 0) {
                if (g.num != 1)
                        continue;
                if (want_wire(&g, PB_WIRE_LEN, reterr) < 0)
                        return -EBADMSG;
                raw = g.data;
                raw_len = g.len;
        }
        if (n < 0)
                return n;
        /* K8S: FieldsV1.MarshalJSON writes Raw as it is; nil Raw is null, left out here. */
        if (!raw) {
                *ret = NULL;
                return 0;
        }
        *ret = json_loadb((const char *) raw, raw_len, JSON_REJECT_DUPLICATES, &jerr);
        if (!*ret)
                return bad(reterr, "fieldsV1 is not JSON: %s", jerr.text);
        return 0;
}

/* One value of schema s (not a list or map) from field f of message r; *ret NULL: absent. */
static int dec_value(const struct schema *s, const struct pbr *r, const struct pb_field *f,
                     json_t **ret, struct error **reterr);

/* A pb_wrapped list: the message f holds, its field 1 each item. */
static int dec_wrapped_list(const struct schema *s, const struct pbr *r, const struct pb_field *f,
                            json_t **ret, struct error **reterr)
{
        struct pb_field g;
        struct pbr sub;
        json_t *l;
        int n;

        if (want_wire(f, PB_WIRE_LEN, reterr) < 0 || pbr_sub(r, f, &sub) < 0)
                return bad(reterr, "malformed list message");
        l = json_array();
        while ((n = next(&sub, &g, reterr)) > 0) {
                json_t *v = NULL;

                if (g.num != 1)
                        continue;
                if (dec_value(s->items, &sub, &g, &v, reterr) < 0) {
                        json_decref(l);
                        return -EBADMSG;
                }
                if (v)
                        json_array_append_new(l, v);
        }
        if (n < 0) {
                json_decref(l);
                return -EBADMSG;
        }
        *ret = l;
        return 0;
}

static int dec_value(const struct schema *s, const struct pbr *r, const struct pb_field *f,
                     json_t **ret, struct error **reterr)
{
        *ret = NULL;
        if (s->kind == SCHEMA_LIST && s->pb_wrapped)
                return dec_wrapped_list(s, r, f, ret, reterr);
        switch (s->kind) {
        case SCHEMA_STRING:
                if (want_wire(f, PB_WIRE_LEN, reterr) < 0)
                        return -EBADMSG;
                if (is_bytes(s)) {
                        cleanup_free char *b64 = base64_encode(f->data, f->len);

                        *ret = json_string(b64);
                        return 0;
                }
                return dec_string(f->data, f->len, ret, reterr);
        case SCHEMA_INTEGER:
                if (want_wire(f, PB_WIRE_VARINT, reterr) < 0)
                        return -EBADMSG;
                return dec_int(s, f->u, ret, reterr);
        case SCHEMA_NUMBER:
                if (want_wire(f, PB_WIRE_FIXED64, reterr) < 0)
                        return -EBADMSG;
                return dec_double(f->u, ret, reterr);
        case SCHEMA_BOOLEAN:
                if (want_wire(f, PB_WIRE_VARINT, reterr) < 0)
                        return -EBADMSG;
                *ret = json_boolean(f->u != 0);
                return 0;
        case SCHEMA_QUANTITY:
                return dec_quantity(r, f, ret, reterr);
        case SCHEMA_TIME:
                return dec_time(s, r, f, ret, reterr);
        case SCHEMA_INT_OR_STRING:
                return dec_int_or_string(r, f, ret, reterr);
        case SCHEMA_ANY:
                return dec_fields_v1(r, f, ret, reterr);
        case SCHEMA_OBJECT:
                return dec_object(s, r, f, ret, reterr);
        default:
                return bad(reterr, "a list or map of lists or maps has no protobuf form");
        }
}

/* Appends the elements field f carries to the array *slot (created when NULL). */
static int dec_list(const struct schema *s, const struct pbr *r, const struct pb_field *f,
                    json_t **slot, struct error **reterr)
{
        const struct schema *item = s->items;
        json_t *v = NULL;
        int ret;

        if (!*slot)
                *slot = json_array();
        /* A packed list of numbers (one length-delimited field holding the values): proto2
         * Kubernetes never writes it, Go's decoders accept it. */
        if (f->wire == PB_WIRE_LEN &&
            (item->kind == SCHEMA_INTEGER || item->kind == SCHEMA_BOOLEAN ||
             item->kind == SCHEMA_NUMBER)) {
                const uint8_t *p = f->data, *end = f->data + f->len;
                while (p < end) {
                        uint64_t u = 0;
                        if (item->kind == SCHEMA_NUMBER) {
                                if (end - p < 8)
                                        return bad(reterr, "malformed packed list");
                                for (int i = 0; i < 8; i++)
                                        u |= (uint64_t) p[i] << (8 * i);
                                p += 8;
                                ret = dec_double(u, &v, reterr);
                        } else {
                                int n = pb_varint_decode(p, (size_t) (end - p), &u);
                                if (n < 0)
                                        return bad(reterr, "malformed packed list");
                                p += n;
                                if (item->kind == SCHEMA_BOOLEAN) {
                                        v = json_boolean(u != 0);
                                        ret = 0;
                                } else {
                                        ret = dec_int(item, u, &v, reterr);
                                }
                        }
                        if (ret < 0)
                                return ret;
                        json_array_append_new(*slot, v);
                }
                return 0;
        }
        ret = dec_value(item, r, f, &v, reterr);
        if (ret < 0)
                return ret;
        if (v) /* a zero time or an empty FieldsV1 has no JSON form: null; not kept */
                json_array_append_new(*slot, v);
        return 0;
}

/* One entry {key = 1; value = 2} of a map into the object *slot (created when NULL). */
static int dec_map_entry(const struct schema *s, const struct pbr *r, const struct pb_field *f,
                         json_t **slot, struct error **reterr)
{
        json_t *key = NULL, *value = NULL;
        struct pb_field g;
        struct pbr sub;
        int n;

        if (want_wire(f, PB_WIRE_LEN, reterr) < 0 || pbr_sub(r, f, &sub) < 0)
                return bad(reterr, "malformed map entry");
        if (!*slot)
                *slot = json_object();
        while ((n = next(&sub, &g, reterr)) > 0) {
                json_t *v = NULL;
                if (g.num == 1) {
                        if (want_wire(&g, PB_WIRE_LEN, reterr) < 0 ||
                            dec_string(g.data, g.len, &v, reterr) < 0)
                                goto fail;
                        json_decref(key);
                        key = v;
                } else if (g.num == 2) {
                        if (dec_value(s->items, &sub, &g, &v, reterr) < 0)
                                goto fail;
                        json_decref(value);
                        value = v;
                }
        }
        if (n < 0)
                goto fail;
        /* K8S: a missing key or value is the zero value of its type (a zero time, which
         * prints as null, is not kept). */
        if (!value && s->items->kind != SCHEMA_TIME && s->items->kind != SCHEMA_ANY)
                value = zero_value(s->items);
        if (value)
                json_object_set_new(*slot, key ? json_string_value(key) : "", value);
        json_decref(key);
        return 0;
fail:
        json_decref(key);
        json_decref(value);
        return -EBADMSG;
}

/* Reads the fields of message r into slots (one per field of s); embed is the number of the
 * embedded message r is (0: the struct's own). */
static int dec_message(const struct schema *s, struct pbr *r, json_t **slots, unsigned embed,
                       struct error **reterr)
{
        struct pb_field f;
        int n;

        while ((n = next(r, &f, reterr)) > 0) {
                const struct schema_field *sf = NULL;
                bool is_embed = false;
                size_t i;
                int ret;

                for (i = 0; s->fields[i].name; i++) {
                        if (s->fields[i].pb == 0)
                                continue;
                        if (s->fields[i].pb == f.num &&
                            SCHEMA_FIELD_EMBED(&s->fields[i]) == embed) {
                                sf = &s->fields[i];
                                break;
                        }
                        if (embed == 0 && SCHEMA_FIELD_EMBED(&s->fields[i]) == f.num)
                                is_embed = true;
                }
                if (!sf && is_embed) {
                        struct pbr sub;
                        if (want_wire(&f, PB_WIRE_LEN, reterr) < 0 || pbr_sub(r, &f, &sub) < 0)
                                return bad(reterr, "malformed embedded message %u", f.num);
                        ret = dec_message(s, &sub, slots, f.num, reterr);
                        if (ret < 0)
                                return ret;
                        continue;
                }
                if (!sf)
                        continue; /* K8S: unknown fields are skipped, as Go's decoders do */
                if (sf->schema->kind == SCHEMA_LIST) {
                        ret = dec_list(sf->schema, r, &f, &slots[i], reterr);
                } else if (sf->schema->kind == SCHEMA_MAP) {
                        ret = dec_map_entry(sf->schema, r, &f, &slots[i], reterr);
                } else {
                        json_t *v = NULL;
                        ret = dec_value(sf->schema, r, &f, &v, reterr);
                        if (ret >= 0) {
                                /* A repeated message merges into the one before, as protobuf
                                 * specifies; any other repeated value replaces it. */
                                if (v && json_is_object(v) && json_is_object(slots[i]) &&
                                    sf->schema->kind == SCHEMA_OBJECT) {
                                        json_object_update(slots[i], v);
                                        json_decref(v);
                                } else {
                                        json_decref(slots[i]);
                                        slots[i] = v;
                                }
                        }
                }
                if (ret < 0)
                        return error_wrap(reterr, "%s", sf->name);
        }
        return n;
}

/* The message of field f (or the whole buffer, for the root) as a JSON object of schema s. */
static int dec_object(const struct schema *s, const struct pbr *parent, const struct pb_field *f,
                      json_t **ret, struct error **reterr)
{
        size_t nf = count_fields(s);
        json_t **slots, *obj;
        struct pbr sub;
        int r;

        if (want_wire(f, PB_WIRE_LEN, reterr) < 0)
                return -EBADMSG;
        if (pbr_sub(parent, f, &sub) < 0)
                return bad(reterr, "nested deeper than %d", SCHEMA_MAX_DEPTH);
        slots = xcalloc(nf ? nf : 1, sizeof(*slots));
        r = nf ? dec_message(s, &sub, slots, 0, reterr) : 0;
        if (r < 0) {
                for (size_t i = 0; i < nf; i++)
                        json_decref(slots[i]);
                free(slots);
                return r;
        }
        /* The Go declaration of each field decides how a zero value prints (schema.h). */
        obj = json_object();
        for (size_t i = 0; i < nf; i++) {
                const struct schema_field *sf = &s->fields[i];
                json_t *v = slots[i];

                if (sf->pb != 0 && is_scalar(sf->schema)) {
                        enum schema_go_field go = SCHEMA_FIELD_GO(sf);
                        if (v && go == SCHEMA_GO_VALUE && is_zero(v)) {
                                json_decref(v);
                                v = NULL;
                        } else if (!v && go == SCHEMA_GO_ALWAYS) {
                                v = zero_value(sf->schema);
                        }
                }
                if (v)
                        json_object_set_new(obj, sf->name, v);
        }
        free(slots);
        *ret = obj;
        return 0;
}

int pb_decode(const struct schema *s, const void *buf, size_t len, json_t **ret,
              struct error **reterr)
{
        struct pb_field root = { .num = 1, .wire = PB_WIRE_LEN, .data = buf, .len = len };
        struct pbr top;
        json_t *obj = NULL;

        if (s->kind != SCHEMA_OBJECT)
                return error_set(reterr, EINVAL, "protobuf: a %s is not a message",
                                 s->go_type ? s->go_type : "value");
        /* The root message is depth 1, as its fields' messages are 2 and so on. */
        pbr_init(&top, NULL, 0);
        if (dec_object(s, &top, &root, &obj, reterr) < 0)
                return error_wrap(reterr, "protobuf: decoding v1.%s", s->go_type);
        *ret = obj;
        return 0;
}

int pb_decode_envelope(const void *buf, size_t len, char **api_version, char **kind,
                       const void **raw, size_t *raw_len, struct error **reterr)
{
        json_t *av = NULL, *k = NULL, *ce = NULL, *ct = NULL;
        const uint8_t *raw_data = NULL;
        size_t raw_size = 0;
        struct pb_field f, g;
        struct pbr r, sub;
        int n, ret = -EBADMSG;

        /* K8S: protobuf.Serializer.Decode's message for a body without the prefix. */
        if (len < PB_K8S_MAGIC_LEN || memcmp(buf, PB_K8S_MAGIC, PB_K8S_MAGIC_LEN) != 0)
                return error_set(reterr, EBADMSG,
                                 "provided data does not appear to be a protobuf message, "
                                 "expected prefix [107 56 115 0]");
        pbr_init(&r, (const uint8_t *) buf + PB_K8S_MAGIC_LEN, len - PB_K8S_MAGIC_LEN);
        while ((n = next(&r, &f, reterr)) > 0) {
                json_t **slot = NULL;
                if (f.num == 1) {
                        if (want_wire(&f, PB_WIRE_LEN, reterr) < 0 || pbr_sub(&r, &f, &sub) < 0)
                                goto out;
                        while ((n = next(&sub, &g, reterr)) > 0) {
                                json_t *v = NULL;
                                if (g.num != 1 && g.num != 2)
                                        continue;
                                if (want_wire(&g, PB_WIRE_LEN, reterr) < 0 ||
                                    dec_string(g.data, g.len, &v, reterr) < 0)
                                        goto out;
                                slot = g.num == 1 ? &av : &k;
                                json_decref(*slot);
                                *slot = v;
                        }
                        if (n < 0)
                                goto out;
                        continue;
                }
                if (f.num == 2) {
                        if (want_wire(&f, PB_WIRE_LEN, reterr) < 0)
                                goto out;
                        raw_data = f.data;
                        raw_size = f.len;
                        continue;
                }
                if (f.num == 3)
                        slot = &ce;
                else if (f.num == 4)
                        slot = &ct;
                else
                        continue;
                json_decref(*slot);
                *slot = NULL;
                if (want_wire(&f, PB_WIRE_LEN, reterr) < 0 ||
                    dec_string(f.data, f.len, slot, reterr) < 0)
                        goto out;
        }
        if (n < 0)
                goto out;
        if (ce && json_string_length(ce) > 0) {
                bad(reterr, "protobuf: content encoding \"%s\" is not supported",
                    json_string_value(ce));
                goto out;
        }
        if (ct && json_string_length(ct) > 0 && !streq(json_string_value(ct), PB_CONTENT_TYPE)) {
                bad(reterr, "protobuf: content type \"%s\" of the object is not supported",
                    json_string_value(ct));
                goto out;
        }
        *api_version = xstrdup(av ? json_string_value(av) : "");
        *kind = xstrdup(k ? json_string_value(k) : "");
        *raw = raw_data ? (const void *) raw_data : (const void *) "";
        *raw_len = raw_size;
        ret = 0;
out:
        if (ret < 0 && reterr && *reterr && !strstr((*reterr)->message, "protobuf"))
                error_wrap(reterr, "protobuf: decoding runtime.Unknown");
        json_decref(av);
        json_decref(k);
        json_decref(ce);
        json_decref(ct);
        return ret;
}

const struct schema *pb_schema_for_kind(const char *kind)
{
        const struct schema *s;

        if (!kind)
                return NULL;
        s = schema_for_kind(kind);
        if (s)
                return s;
        if (streq(kind, "Status"))
                return &schema_status;
        return schema_list_for_kind(kind);
}

int pb_decode_object(const void *buf, size_t len, json_t **ret, struct error **reterr)
{
        cleanup_free char *api_version = NULL, *kind = NULL;
        const struct schema *s;
        const void *raw;
        size_t raw_len;
        json_t *body, *obj;
        int r;

        r = pb_decode_envelope(buf, len, &api_version, &kind, &raw, &raw_len, reterr);
        if (r < 0)
                return r;
        s = pb_schema_for_kind(kind);
        if (!s)
                return error_set(reterr, ENOENT, "no kind \"%s\" is registered for version \"%s\"",
                                 kind, api_version);
        r = pb_decode(s, raw, raw_len, &body, reterr);
        if (r < 0)
                return r;
        /* kind and apiVersion first, as Go prints TypeMeta. */
        obj = json_object();
        json_object_set_new(obj, "kind", json_string(kind));
        json_object_set_new(obj, "apiVersion", json_string(api_version));
        json_object_update(obj, body);
        json_decref(body);
        *ret = obj;
        return 0;
}
