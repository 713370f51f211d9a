/* json.c: small jansson helpers (path lookup, ensure, compact dump). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/json.h"
#include "base/quantity.h"

json_t *json_path(const json_t *root, const char *dotted)
{
        const json_t *cur = root;
        const char *p = dotted;

        while (cur && *p) {
                const char *dot = strchr(p, '.');
                size_t n = dot ? (size_t) (dot - p) : strlen(p);

                if (!json_is_object(cur))
                        return NULL;
                cur = json_object_getn(cur, p, n);
                p += n + (dot ? 1 : 0);
        }
        return (json_t *) cur;
}

const char *json_path_string(const json_t *root, const char *dotted)
{
        return json_string_value(json_path(root, dotted));
}

const char *json_path_string_or_empty(const json_t *root, const char *dotted)
{
        return json_path_string(root, dotted) ?: "";
}

bool json_array_has_string(const json_t *array, const char *s)
{
        size_t i;
        json_t *v;

        json_array_foreach(array, i, v) {
                if (json_is_string(v) && streq(json_string_value(v), s))
                        return true;
        }
        return false;
}

json_t *json_object_ensure(json_t *obj, const char *key)
{
        json_t *v = json_object_get(obj, key);

        if (json_is_object(v))
                return v;
        v = json_object();
        json_object_set_new(obj, key, v);
        return v;
}

char *json_dump_compact(const json_t *v)
{
        char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
        if (!s)
                s = xstrdup("null");
        return s;
}

bool json_is_empty(const json_t *v)
{
        if (!v || json_is_null(v))
                return true;
        if (json_is_object(v))
                return json_object_size(v) == 0;
        if (json_is_array(v))
                return json_array_size(v) == 0;
        return false;
}

/* The block jemalloc hands out for n bytes (base/alloc.h), its size class: 8, then 16-byte
 * steps to 128, then four classes per doubling (160, 192, 224, 256, 320, ...; jemalloc's
 * sc.h with 16-byte quanta and 4 KiB pages). */
static size_t malloc_block(size_t n)
{
        size_t step;

        if (n <= 8)
                return 8;
        if (n <= 128)
                return (n + 15) & ~(size_t) 15;
        /* the doubling n falls in: (2^k, 2^(k+1)], stepped by 2^(k-2) */
        step = (size_t) 1 << (63 - __builtin_clzll((unsigned long long) (n - 1)) - 2);
        return (n + step - 1) & ~(step - 1);
}

/* jansson 2.14's structs (jansson_private.h, hashtable.h): json_t is a type and a refcount
 * (16); an object adds its hashtable (size, buckets, order, two list heads: 56); a pair is a
 * hash, two list heads, the value, the key's length and the key; a bucket two pointers; an
 * array adds size, entries and its table; a string its pointer and length; a number its
 * value. Tables grow by doubling from 8 (buckets: 2^order with size <= 2^order). */
#define JANSSON_OBJECT_STRUCT 72
#define JANSSON_PAIR_HEADER   56
#define JANSSON_BUCKET        16
#define JANSSON_ARRAY_STRUCT  40
#define JANSSON_STRING_STRUCT 32
#define JANSSON_NUMBER_STRUCT 24
#define JANSSON_TABLE_MIN     8

static size_t table_slots(size_t n)
{
        size_t slots = JANSSON_TABLE_MIN;

        while (slots < n)
                slots <<= 1;
        return slots;
}

size_t json_memory_size(const json_t *v)
{
        size_t total, i;
        const char *key;
        json_t *x;

        switch (v ? json_typeof(v) : JSON_NULL) {
        case JSON_OBJECT:
                total = malloc_block(JANSSON_OBJECT_STRUCT) +
                        malloc_block(table_slots(json_object_size(v)) * JANSSON_BUCKET);
                json_object_foreach((json_t *) v, key, x)
                        total += malloc_block(JANSSON_PAIR_HEADER + strlen(key) + 1) +
                                 json_memory_size(x);
                return total;
        case JSON_ARRAY:
                total = malloc_block(JANSSON_ARRAY_STRUCT) +
                        malloc_block(table_slots(json_array_size(v)) * sizeof(json_t *));
                json_array_foreach(v, i, x)
                        total += json_memory_size(x);
                return total;
        case JSON_STRING:
                return malloc_block(JANSSON_STRING_STRUCT) +
                       malloc_block(json_string_length(v) + 1);
        case JSON_INTEGER:
        case JSON_REAL:
                return malloc_block(JANSSON_NUMBER_STRUCT);
        default: /* true, false and null are shared singletons */
                return 0;
        }
}

const char *json_go_kind(const json_t *v)
{
        switch (json_typeof(v)) {
        case JSON_OBJECT:
                return "object";
        case JSON_ARRAY:
                return "array";
        case JSON_STRING:
                return "string";
        case JSON_INTEGER:
        case JSON_REAL:
                return "number";
        case JSON_TRUE:
        case JSON_FALSE:
                return "bool";
        case JSON_NULL:
        default:
                return "null";
        }
}

const char *json_scalar_text(const json_t *v, char buf[static JSON_NUMBER_TEXT_MAX])
{
        double d;

        if (json_is_string(v))
                return json_string_value(v);
        if (json_is_integer(v)) {
                (void) snprintf(buf, JSON_NUMBER_TEXT_MAX, "%" JSON_INTEGER_FORMAT,
                                json_integer_value(v));
                return buf;
        }
        if (!json_is_real(v))
                return NULL;
        /* Go's strconv.FormatFloat(d, 'g', -1, 64) is the shortest form that reads back */
        d = json_real_value(v);
        for (int prec = 1; prec <= 17; prec++) {
                (void) snprintf(buf, JSON_NUMBER_TEXT_MAX, "%.*g", prec, d);
                if (strtod(buf, NULL) == d)
                        break;
        }
        return buf;
}

int json_quantity(const json_t *v, struct quantity *ret)
{
        char buf[JSON_NUMBER_TEXT_MAX];
        const char *s = json_scalar_text(v, buf);

        if (!s)
                return -EINVAL;
        return quantity_parse(s, ret, NULL) < 0 ? -EINVAL : 0;
}

void json_array_sort(json_t *array, int (*cmp)(const void *, const void *))
{
        size_t n = json_array_size(array), i;
        json_t **v = xcalloc(n + 1, sizeof(*v));

        for (i = 0; i < n; i++)
                v[i] = json_incref(json_array_get(array, i));
        qsort(v, n, sizeof(*v), cmp);
        json_array_clear(array);
        for (i = 0; i < n; i++)
                json_array_append_new(array, v[i]);
        free(v);
}
