/* patch-strategic.c: strategic merge patch as the apiserver applies it
 * (k8s.io/apimachinery/pkg/util/strategicpatch, StrategicMergeMapPatch: MergeParallelList and
 * IgnoreUnmatchedNulls on), driven by api/schema.h, and the directive-free merge of minimal
 * server-side apply. Only applying lives here; computing patches is kubectl's job.
 * Works on a private deep copy of the original; values taken from the patch are copied with
 * their directives and null members removed. Look-ups by merge key go through a hash index. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "api/patch-internal.h"
#include "api/patch.h"
#include "base/alloc.h"
#include "base/hash.h"
#include "base/strbuf.h"

#define DIRECTIVE_MARKER     "$patch"
#define RETAIN_KEYS          "$retainKeys"
#define SET_ORDER_PREFIX     "$setElementOrder"
#define DELETE_PRIMS_PREFIX  "$deleteFromPrimitiveList"
#define ERR_BAD_PRIMS_FORMAT "invalid patch format of primitive list"
#define ERR_BAD_RETAIN_KEYS  "invalid patch format of retainKeys"
#define ERR_BAD_SET_ORDER    "invalid patch format of setElementOrder list"
/* Error messages quote values the way Go prints them; a hostile patch must not make them huge. */
#define GO_FORMAT_MAX 4096

struct smp {
        bool apply;         /* server-side apply: no directives, nulls ignored */
        struct strbuf path; /* ".spec.containers[name=\"c\"]": where apply errors point */
        struct error **reterr;
};

/* Go's reflect kinds of a decoded JSON value: what "originalType != patchType" compares. */
enum gkind {
        GK_NIL,
        GK_MAP,
        GK_SLICE,
        GK_STRING,
        GK_NUMBER,
        GK_BOOL,
};

static enum gkind gkind(const json_t *v)
{
        switch (json_typeof(v)) {
        case JSON_OBJECT:
                return GK_MAP;
        case JSON_ARRAY:
                return GK_SLICE;
        case JSON_STRING:
                return GK_STRING;
        case JSON_INTEGER:
        case JSON_REAL:
                return GK_NUMBER;
        case JSON_TRUE:
        case JSON_FALSE:
                return GK_BOOL;
        default:
                return GK_NIL;
        }
}

/* reflect.TypeOf(v).String() for a decoded JSON value. */
static const char *go_type(const json_t *v)
{
        static const char *const names[] = {
                [GK_NIL] = "<nil>",
                [GK_MAP] = "map[string]interface {}",
                [GK_SLICE] = "[]interface {}",
                [GK_STRING] = "string",
                [GK_NUMBER] = "float64",
                [GK_BOOL] = "bool",
        };
        return names[gkind(v)];
}

/* ---- Go's %v, for error messages ------------------------------------------------------- */

/* fmt's %v of a float64 (strconv 'g', shortest): the fewest digits that read back as d, in
 * %e form when the decimal exponent is below -4 or at least 6 ("1e+06"), else plain. */
static void go_float(struct strbuf *sb, double d)
{
        char buf[64], *e;
        int digits, exp;

        if (d == 0) {
                strbuf_addstr(sb, signbit(d) ? "-0" : "0");
                return;
        }
        for (digits = 1; digits < 17; digits++) {
                snprintf(buf, sizeof(buf), "%.*e", digits - 1, d);
                if (strtod(buf, NULL) == d)
                        break;
        }
        snprintf(buf, sizeof(buf), "%.*e", digits - 1, d);
        e = strchr(buf, 'e');
        exp = e ? atoi(e + 1) : 0;
        if (exp < -4 || exp >= 6) {
                strbuf_addstr(sb, buf);
                return;
        }
        snprintf(buf, sizeof(buf), "%.*f", digits - 1 - exp > 0 ? digits - 1 - exp : 0, d);
        strbuf_addstr(sb, buf);
}

static int cmp_strp(const void *a, const void *b)
{
        return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* fmt's %v of a decoded JSON value: map[k:v ...] with sorted keys, [a b], <nil>. */
static void go_value(struct strbuf *sb, const json_t *v)
{
        const char *key;
        json_t *child;
        size_t i, n;

        if (sb->len > GO_FORMAT_MAX)
                return;
        switch (json_typeof(v)) {
        case JSON_OBJECT: {
                cleanup_free const char **keys = NULL;

                n = 0;
                keys = xcalloc(json_object_size(v) + 1, sizeof(*keys));
                json_object_foreach((json_t *) v, key, child)
                        keys[n++] = key;
                qsort(keys, n, sizeof(*keys), cmp_strp);
                strbuf_addstr(sb, "map[");
                for (i = 0; i < n; i++) {
                        strbuf_addf(sb, "%s%s:", i ? " " : "", keys[i]);
                        go_value(sb, json_object_get(v, keys[i]));
                }
                strbuf_addch(sb, ']');
                break;
        }
        case JSON_ARRAY:
                strbuf_addch(sb, '[');
                json_array_foreach(v, i, child) {
                        if (i)
                                strbuf_addch(sb, ' ');
                        go_value(sb, child);
                }
                strbuf_addch(sb, ']');
                break;
        case JSON_STRING:
                strbuf_add(sb, json_string_value(v), json_string_length(v));
                break;
        case JSON_INTEGER:
        case JSON_REAL:
                go_float(sb, json_number_value(v));
                break;
        case JSON_TRUE:
                strbuf_addstr(sb, "true");
                break;
        case JSON_FALSE:
                strbuf_addstr(sb, "false");
                break;
        default:
                strbuf_addstr(sb, "<nil>");
                break;
        }
}

/* Go's %v of v as a new string, capped. */
static char *go_str(const json_t *v)
{
        struct strbuf sb;

        strbuf_init(&sb);
        go_value(&sb, v);
        if (sb.len > GO_FORMAT_MAX) {
                sb.len = GO_FORMAT_MAX;
                sb.buf[sb.len] = '\0';
                strbuf_addstr(&sb, "...");
        }
        return strbuf_detach(&sb);
}

/* mergepatch.ErrNoMergeKey */
static int err_no_merge_key(struct smp *m, const json_t *map, const char *key)
{
        cleanup_free char *s = go_str(map);

        return error_set(m->reterr, EINVAL, "map: %s does not contain declared merge key: %s", s,
                         key);
}

/* mergepatch.ErrBadArgType */
static int err_bad_arg_type(struct smp *m, const char *expected, const json_t *actual)
{
        return error_set(m->reterr, EINVAL, "expected a %s, but received a %s", expected,
                         go_type(actual));
}

/* mergepatch.ErrBadPatchType: the directive printed with %s. */
static int err_bad_patch_type(struct smp *m, const json_t *directive, const json_t *map)
{
        cleanup_free char *d = NULL, *s = go_str(map);

        if (json_is_string(directive)) {
                d = xstrdup(json_string_value(directive));
        } else {
                cleanup_free char *inner = go_str(directive);

                d = json_is_null(directive) ? xstrdup("%!s(<nil>)")
                                            : xasprintf("%%!s(%s=%s)", go_type(directive), inner);
        }
        return error_set(m->reterr, EINVAL, "unknown patch type: %s in map: %s", d, s);
}

static int err(struct smp *m, const char *msg)
{
        return error_set(m->reterr, EINVAL, "%s", msg);
}

/* ---- the schema, as strategic merge reads it -------------------------------------------- */

/* Schema of the value under key in a map described by s; NULL means free-form. */
static const struct schema *child_schema(const struct schema *s, const char *key)
{
        const struct schema_field *f;

        if (!s)
                return NULL;
        if (s->kind == SCHEMA_MAP)
                return s->items;
        if (s->kind != SCHEMA_OBJECT || !s->fields)
                return NULL;
        for (f = s->fields; f->name; f++)
                if (streq(f->name, key))
                        return f->schema;
        return NULL;
}

/* K8S: patchStrategy / patchMergeKey of a list field. */
struct list_meta {
        bool merge;            /* patchStrategy=merge: SCHEMA_LIST_MAP or SCHEMA_LIST_SET */
        const char *merge_key; /* "" when none */
        const struct schema *items;
        const char *name; /* the element type, for "cannot merge lists without merge key" */
};

/* What upstream's struct-based PatchMeta.Name() says of an element type: its Go kind. */
static const char *go_kind_name(const struct schema *s)
{
        if (!s)
                return "interface";
        switch (s->kind) {
        case SCHEMA_STRING:
                return "string";
        case SCHEMA_INTEGER:
                return s->go_type && streq(s->go_type, "int32") ? "int32" : "int64";
        case SCHEMA_NUMBER:
                return "float64";
        case SCHEMA_BOOLEAN:
                return "bool";
        case SCHEMA_MAP:
                return "map";
        case SCHEMA_LIST:
                return "slice";
        case SCHEMA_ANY:
                return "interface";
        default: /* objects, Quantity, Time, IntOrString are Go structs */
                return "struct";
        }
}

static struct list_meta list_meta(const struct schema *s)
{
        struct list_meta lm = { .merge_key = "", .name = "interface" };

        if (!s || s->kind != SCHEMA_LIST)
                return lm;
        lm.items = s->items;
        lm.merge = s->list_type != SCHEMA_LIST_ATOMIC;
        if (s->list_type == SCHEMA_LIST_MAP && s->merge_key)
                lm.merge_key = s->merge_key;
        lm.name = go_kind_name(s->items);
        return lm;
}

static bool has_prefix(const char *s, const char *prefix)
{
        return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* ---- a hash index from JSON values to positions ----------------------------------------- */

static uint64_t mix(uint64_t h)
{
        h ^= h >> 33;
        h *= 0xff51afd7ed558ccdULL;
        h ^= h >> 33;
        h *= 0xc4ceb9fe1a85ec53ULL;
        h ^= h >> 33;
        return h;
}

static uint64_t hash_bytes(uint64_t seed, const char *s, size_t n)
{
        return hash_fnv1a(HASH_FNV_OFFSET ^ seed, s, n);
}

/* Consistent with patch_value_equal: numbers hash by value, objects regardless of key order.
 * The whole value is hashed (its depth is capped by the input checks), so that values sharing
 * their top levels cannot be made to collide. */
static uint64_t value_hash(const json_t *v, uint64_t seed)
{
        const char *key;
        json_t *child;
        uint64_t h;
        size_t i;
        double d;

        switch (json_typeof(v)) {
        case JSON_OBJECT:
                h = 0x6f626a;
                json_object_foreach((json_t *) v, key, child)
                        h += mix(hash_bytes(seed, key, strlen(key)) ^ value_hash(child, seed));
                return mix(h);
        case JSON_ARRAY:
                h = 0x617272;
                json_array_foreach(v, i, child)
                        h = mix(h ^ value_hash(child, seed)) + i;
                return h;
        case JSON_STRING:
                return mix(hash_bytes(seed, json_string_value(v), json_string_length(v)));
        case JSON_INTEGER:
        case JSON_REAL:
                d = json_number_value(v);
                if (d == 0)
                        d = 0; /* -0 == 0 */
                memcpy(&h, &d, sizeof(h));
                return mix(h ^ seed);
        case JSON_TRUE:
                return 1;
        case JSON_FALSE:
                return 2;
        default:
                return 3;
        }
}

struct vindex_slot {
        json_t *key; /* a reference, NULL when the slot is free */
        size_t pos;
};

struct vindex {
        struct vindex_slot *slots;
        size_t mask;
        uint64_t seed;
};

static void vindex_init(struct vindex *ix, size_t expected)
{
        size_t cap = 8;

        while (cap < expected * 2 + 1)
                cap *= 2;
        ix->slots = xcalloc(cap, sizeof(*ix->slots));
        ix->mask = cap - 1;
        ix->seed = hash_seed();
}

static void vindex_release(struct vindex *ix)
{
        size_t i;

        if (!ix->slots)
                return;
        for (i = 0; i <= ix->mask; i++)
                json_decref(ix->slots[i].key);
        free(ix->slots);
        ix->slots = NULL;
}

/* The position recorded for a value equal to key, or -1. */
static ssize_t vindex_find(const struct vindex *ix, const json_t *key)
{
        size_t i = value_hash(key, ix->seed) & ix->mask;

        for (; ix->slots[i].key; i = (i + 1) & ix->mask)
                if (patch_value_equal(ix->slots[i].key, key))
                        return (ssize_t) ix->slots[i].pos;
        return -1;
}

/* Records pos for key unless an equal key is already there (the first position wins, as
 * upstream's linear scans find the first). The table is sized for every insertion up front. */
static void vindex_add(struct vindex *ix, const json_t *key, size_t pos)
{
        size_t i = value_hash(key, ix->seed) & ix->mask;

        for (; ix->slots[i].key; i = (i + 1) & ix->mask)
                if (patch_value_equal(ix->slots[i].key, key))
                        return;
        ix->slots[i].key = json_incref((json_t *) key);
        ix->slots[i].pos = pos;
}

/* What upstream's index() compares: the merge key value of a map (absent and null alike) or the
 * item itself. */
static const json_t *order_key(const json_t *item, const char *merge_key, bool by_key)
{
        const json_t *v;

        if (!by_key)
                return item;
        v = json_is_object(item) ? json_object_get(item, merge_key) : NULL;
        return v ? v : json_null();
}

/* An index of the first position of each order_key in list (list may be NULL). */
static void vindex_of_list(struct vindex *ix, const json_t *list, size_t n, const char *merge_key,
                           bool by_key)
{
        size_t i;

        vindex_init(ix, n);
        for (i = 0; i < n; i++)
                vindex_add(ix, order_key(json_array_get(list, i), merge_key, by_key), i);
}

/* ---- directive-free copies of patch values ---------------------------------------------- */

static bool is_directive_key(const char *key)
{
        return streq(key, DIRECTIVE_MARKER) || streq(key, RETAIN_KEYS) ||
               has_prefix(key, SET_ORDER_PREFIX) || has_prefix(key, DELETE_PRIMS_PREFIX);
}

/* A patch value stored where the original has nothing (or a value of another type): upstream's
 * removeDirectives plus discardNullValuesFromPatch. Returns NULL when the value is to be
 * dropped: a map whose "$patch" is "delete" (or invalid). List elements carrying "$patch" are
 * list directives and vanish; null members of maps vanish; null list elements stay. */
static json_t *sanitize(const json_t *v)
{
        const char *key;
        json_t *child, *out, *c;
        size_t i;

        if (json_is_object(v)) {
                const json_t *d = json_object_get(v, DIRECTIVE_MARKER);

                if (d && !(json_is_string(d) && (streq(json_string_value(d), "replace") ||
                                                 streq(json_string_value(d), "merge"))))
                        return NULL;
                out = patch_checked(json_object());
                json_object_foreach((json_t *) v, key, child) {
                        if (is_directive_key(key) || json_is_null(child))
                                continue;
                        c = sanitize(child);
                        if (c)
                                patch_object_set(out, key, c);
                }
                return out;
        }
        if (json_is_array(v)) {
                out = patch_checked(json_array());
                json_array_foreach(v, i, child) {
                        if (json_is_object(child) && json_object_get(child, DIRECTIVE_MARKER))
                                continue;
                        patch_array_append(out, sanitize(child));
                }
                return out;
        }
        return patch_copy(v);
}

/* ---- the merge ---------------------------------------------------------------------------- */

static int merge_map(struct smp *m, json_t *orig, const json_t *patch, const struct schema *s,
                     json_t **ret);
static int merge_slice_handler(struct smp *m, json_t *orig, const json_t *patch,
                               const struct schema *s, bool delete_list, json_t **ret,
                               json_t **ret_view);
static int merge_slice(struct smp *m, json_t *orig, const json_t *patch, const struct list_meta *lm,
                       bool delete_list, json_t **ret, json_t **ret_view);

static size_t path_push_key(struct smp *m, const char *key)
{
        size_t mark = m->path.len;

        strbuf_addch(&m->path, '.');
        strbuf_addstr(&m->path, key);
        return mark;
}

static size_t path_push_elem(struct smp *m, const char *merge_key, const json_t *value)
{
        size_t mark = m->path.len;
        cleanup_free char *v = json_dump_compact(value);

        strbuf_addf(&m->path, "[%s=%s]", merge_key, v);
        return mark;
}

static void path_pop(struct smp *m, size_t mark)
{
        m->path.len = mark;
        m->path.buf[mark] = '\0';
}

/* The value to store for a patch value the original lacks. Strategic merge: a sanitized copy
 * (*ret NULL: store nothing). Apply: the value merged onto nothing, so map-lists are checked
 * and nulls dropped the same way at every depth. */
static int new_value(struct smp *m, const json_t *v, const struct schema *s, json_t **ret)
{
        struct list_meta lm;
        json_t *out;
        size_t i;
        int r;

        if (!m->apply) {
                *ret = sanitize(v);
                return 0;
        }
        if (json_is_object(v))
                return merge_map(m, patch_checked(json_object()), v, s, ret);
        if (!json_is_array(v)) {
                *ret = patch_copy(v);
                return 0;
        }
        lm = list_meta(s);
        if (lm.merge)
                return merge_slice(m, patch_checked(json_array()), v, &lm, false, ret, NULL);
        out = patch_checked(json_array());
        for (i = 0; i < json_array_size(v); i++) {
                json_t *e;

                r = new_value(m, json_array_get(v, i), lm.items, &e);
                if (r < 0) {
                        json_decref(out);
                        return r;
                }
                patch_array_append(out, e);
        }
        *ret = out;
        return 0;
}

/* Upstream's sliceElementType: every element of both lists has one Go type, not a list. */
static int slice_element_kind(struct smp *m, const json_t *a, const json_t *b, enum gkind *ret)
{
        const json_t *lists[2] = { a, b };
        bool found = false;
        enum gkind first = GK_NIL;
        size_t l, i;

        for (l = 0; l < 2; l++) {
                for (i = 0; i < json_array_size(lists[l]); i++) {
                        enum gkind k = gkind(json_array_get(lists[l], i));

                        if (!found) {
                                found = true;
                                first = k;
                                if (k == GK_SLICE)
                                        return err(m, "lists of lists are not supported");
                        } else if (k != first) {
                                /* A missing list prints as Go's nil slice: []. */
                                cleanup_free char *sa = a ? go_str(a) : xstrdup("[]");
                                cleanup_free char *sb = b ? go_str(b) : xstrdup("[]");

                                return error_set(m->reterr, EINVAL,
                                                 "list element types are not identical: [%s %s]",
                                                 sa, sb);
                        }
                }
        }
        if (!found)
                return err(m, "no elements in any of the given slices");
        *ret = first;
        return 0;
}

/* One element of a merged list while it is being put in order. */
struct oitem {
        json_t *v;      /* borrowed from the merged list */
        ssize_t pos;    /* its index in the order list that sorts it, -1 if absent */
        ssize_t server; /* its index in the server's list, -1 if absent */
};

/* Stable merge sort by pos. Items absent from the order list compare equal to everything, so
 * any input terminates and keeps relative order where nothing says otherwise. */
static void sort_items(struct oitem *items, size_t n, struct oitem *tmp)
{
        size_t mid = n / 2, i = 0, j, k = 0;

        if (n < 2)
                return;
        sort_items(items, mid, tmp);
        sort_items(items + mid, n - mid, tmp);
        j = mid;
        while (i < mid && j < n) {
                bool right_first =
                        items[j].pos >= 0 && items[i].pos >= 0 && items[j].pos < items[i].pos;

                tmp[k++] = right_first ? items[j++] : items[i++];
        }
        while (i < mid)
                tmp[k++] = items[i++];
        while (j < n)
                tmp[k++] = items[j++];
        memcpy(items, tmp, n * sizeof(*items));
}

/* upstream's validateMergeKeyInLists for one list. */
static int check_merge_keys(struct smp *m, const json_t *list, size_t n, const char *merge_key)
{
        size_t i;

        for (i = 0; i < n; i++) {
                const json_t *e = json_array_get(list, i);

                if (!json_is_object(e))
                        return err_bad_arg_type(m, "map[string]interface {}", e);
                if (!json_object_get(e, merge_key))
                        return err_no_merge_key(m, e, merge_key);
        }
        return 0;
}

/* Puts a merged list in upstream's order (normalizeElementOrder): the elements named by
 * order_list (the patch list, or the $setElementOrder list) sorted by it, the others
 * ("server-only") sorted by their place in server_list, then the two interleaved so that a
 * server-only element goes before the first patch element that comes after it on the server
 * (mergeSortedSlice). merged is consumed. kind is the elements' Go kind. */
static int order_merged(struct smp *m, json_t *merged, const json_t *order_list,
                        const json_t *server_list, size_t server_n, const char *merge_key,
                        enum gkind kind, json_t **ret)
{
        size_t n = json_array_size(merged), order_n = json_array_size(order_list);
        bool by_key = kind == GK_MAP;
        struct vindex order_ix = { 0 }, server_ix = { 0 };
        cleanup_free struct oitem *patch_items = NULL, *server_items = NULL, *tmp = NULL;
        size_t np = 0, ns = 0, i, j, k;
        json_t *out;
        int r = 0;

        /* K8S: partitionMapsByPresentInList and normalizeSliceOrder insist every element of a
         * keyed list, and of the list ordering it, is a map carrying the key. */
        if (*merge_key) {
                for (i = 0; i < n && r == 0; i++)
                        if (!json_is_object(json_array_get(merged, i)))
                                r = err_bad_arg_type(m, "map[string]interface {}",
                                                     json_array_get(merged, i));
                for (i = 0; i < order_n && r == 0; i++)
                        if (!json_is_object(json_array_get(order_list, i)))
                                r = error_set(m->reterr, EINVAL, "value for key %zu is not a map",
                                              i);
        }
        if (by_key && r == 0) {
                r = check_merge_keys(m, merged, n, merge_key);
                if (r >= 0)
                        r = check_merge_keys(m, order_list, order_n, merge_key);
        }
        if (r < 0)
                goto out;

        vindex_of_list(&order_ix, order_list, order_n, merge_key, by_key);
        vindex_of_list(&server_ix, server_list, server_n, merge_key, by_key);
        patch_items = xcalloc(n + 1, sizeof(*patch_items));
        server_items = xcalloc(n + 1, sizeof(*server_items));
        tmp = xcalloc(n + 1, sizeof(*tmp));
        for (i = 0; i < n; i++) {
                json_t *e = json_array_get(merged, i);
                const json_t *ok = order_key(e, merge_key, by_key);
                struct oitem it = { .v = e, .server = vindex_find(&server_ix, ok) };

                it.pos = vindex_find(&order_ix, ok);
                if (it.pos >= 0) {
                        patch_items[np++] = it;
                } else {
                        it.pos = it.server;
                        server_items[ns++] = it;
                }
        }
        sort_items(patch_items, np, tmp);
        sort_items(server_items, ns, tmp);

        out = patch_checked(json_array());
        for (i = 0, j = 0, k = 0; k < np + ns; k++) {
                bool take_left;

                if (i >= ns)
                        take_left = false;
                else if (j >= np)
                        take_left = true;
                else
                        take_left = server_items[i].server >= 0 && patch_items[j].server >= 0 &&
                                    server_items[i].server < patch_items[j].server;
                patch_array_append(
                        out, json_incref(take_left ? server_items[i++].v : patch_items[j++].v));
        }
        *ret = out;
out:
        vindex_release(&order_ix);
        vindex_release(&server_ix);
        json_decref(merged);
        return r;
}

/* upstream's mergeSliceWithSpecialElements: applies the {"$patch": ...} elements of a list of
 * maps. orig is consumed; *ret_orig is what is left of it (or the replacement list) and
 * *ret_patch the patch without its directive elements (borrowed elements, owned array). */
static int special_elements(struct smp *m, json_t *orig, const json_t *patch, const char *merge_key,
                            json_t **ret_orig, json_t **ret_patch, bool *ret_replaced)
{
        cleanup_json json_t *rest = patch_checked(json_array()), *o = orig;
        struct vindex deleted = { 0 };
        bool replace = false, any_delete = false;
        json_t *out;
        size_t i;
        int r = 0;

        vindex_init(&deleted, json_array_size(patch));
        for (i = 0; i < json_array_size(patch); i++) {
                json_t *e = json_array_get(patch, i);
                const json_t *d = json_object_get(e, DIRECTIVE_MARKER);
                const char *ds = json_string_value(d);

                if (!d) {
                        patch_array_append(rest, json_incref(e));
                } else if (ds && streq(ds, "delete")) {
                        const json_t *kv = json_object_get(e, merge_key);

                        if (!kv) {
                                r = err_no_merge_key(m, e, merge_key);
                                goto out;
                        }
                        vindex_add(&deleted, kv, i);
                        any_delete = true;
                } else if (ds && streq(ds, "replace")) {
                        /* K8S: keep going, to prune the other directive elements. */
                        replace = true;
                } else if (ds && streq(ds, "merge")) {
                        r = err(m, "merging lists cannot yet be specified in the patch");
                        goto out;
                } else {
                        r = err_bad_patch_type(m, d, e);
                        goto out;
                }
        }
        if (replace) {
                out = patch_checked(json_array());
                for (i = 0; i < json_array_size(rest); i++)
                        patch_array_append(out, sanitize(json_array_get(rest, i)));
                *ret_orig = out;
                *ret_patch = patch_checked(json_array());
                *ret_replaced = true;
                goto out;
        }
        if (any_delete) {
                /* K8S: deleteMatchingEntries removes every element with that key value. */
                out = patch_checked(json_array());
                for (i = 0; i < json_array_size(o); i++) {
                        json_t *e = json_array_get(o, i);
                        const json_t *kv = json_object_get(e, merge_key);

                        if (kv && vindex_find(&deleted, kv) >= 0)
                                continue;
                        patch_array_append(out, json_incref(e));
                }
                *ret_orig = out;
        } else {
                *ret_orig = TAKE_PTR(o);
        }
        *ret_patch = TAKE_PTR(rest);
out:
        vindex_release(&deleted);
        return r;
}

/* Server-side apply checks an applied associative list as structured-merge-diff does. */
static int apply_check_list(struct smp *m, const json_t *patch, const char *merge_key)
{
        struct vindex seen = { 0 };
        size_t i;
        int r = 0;

        vindex_init(&seen, json_array_size(patch));
        for (i = 0; i < json_array_size(patch) && r == 0; i++) {
                const json_t *e = json_array_get(patch, i), *kv;

                if (json_is_null(e))
                        r = error_set(m->reterr, EINVAL,
                                      "%s: element %zu: associative list with keys may not have "
                                      "a null element",
                                      m->path.buf, i);
                else if (!json_is_object(e))
                        r = error_set(m->reterr, EINVAL,
                                      "%s: element %zu: associative list with keys may not have "
                                      "non-map elements",
                                      m->path.buf, i);
                else if (!(kv = json_object_get(e, merge_key)))
                        r = error_set(m->reterr, EINVAL,
                                      "%s: element %zu: associative list with keys has an element "
                                      "that omits key field \"%s\" (and doesn't have default "
                                      "value)",
                                      m->path.buf, i, merge_key);
                else if (vindex_find(&seen, kv) >= 0) {
                        cleanup_free char *v = json_dump_compact(kv);

                        r = error_set(m->reterr, EINVAL, "%s: duplicate entries for key [%s=%s]",
                                      m->path.buf, merge_key, v);
                } else
                        vindex_add(&seen, kv, i);
        }
        vindex_release(&seen);
        return r;
}

/* upstream's mergeSliceWithoutSpecialElements: each patch element merges into the first
 * original element with the same key value, or is appended. list is modified in place. */
static int merge_elements(struct smp *m, json_t *list, const json_t *patch, const char *merge_key,
                          const struct schema *items)
{
        struct vindex found = { 0 };
        size_t i;
        int r = 0;

        vindex_init(&found, json_array_size(list) + json_array_size(patch));
        for (i = 0; i < json_array_size(list); i++) {
                const json_t *kv = json_object_get(json_array_get(list, i), merge_key);

                if (kv)
                        vindex_add(&found, kv, i);
        }
        for (i = 0; i < json_array_size(patch) && r == 0; i++) {
                const json_t *e = json_array_get(patch, i);
                const json_t *kv = json_object_get(e, merge_key);
                json_t *merged;
                ssize_t pos;
                size_t mark;

                if (!kv) {
                        r = err_no_merge_key(m, e, merge_key);
                        break;
                }
                mark = path_push_elem(m, merge_key, kv);
                pos = vindex_find(&found, kv);
                if (pos >= 0) {
                        r = merge_map(m, json_incref(json_array_get(list, (size_t) pos)), e, items,
                                      &merged);
                        if (r >= 0 && json_array_set_new(list, (size_t) pos, merged) < 0)
                                abort();
                } else {
                        r = new_value(m, e, items, &merged);
                        if (r >= 0 && merged) {
                                vindex_add(&found, kv, json_array_size(list));
                                patch_array_append(list, merged);
                        }
                }
                path_pop(m, mark);
        }
        vindex_release(&found);
        return r;
}

/* A copy of orig without the values listed in patch (the $deleteFromPrimitiveList list). */
static json_t *delete_from_slice(const json_t *orig, const json_t *patch)
{
        struct vindex del;
        json_t *out = patch_checked(json_array());
        size_t i;

        vindex_of_list(&del, patch, json_array_size(patch), "", false);
        for (i = 0; i < json_array_size(orig); i++) {
                json_t *e = json_array_get(orig, i);

                if (vindex_find(&del, e) < 0)
                        patch_array_append(out, json_incref(e));
        }
        vindex_release(&del);
        return out;
}

/* The union of two primitive lists, each value once (first occurrence kept). */
static json_t *union_of(const json_t *orig, const json_t *patch)
{
        const json_t *lists[2] = { orig, patch };
        struct vindex seen;
        json_t *out = patch_checked(json_array());
        size_t l, i;

        vindex_init(&seen, json_array_size(orig) + json_array_size(patch));
        for (l = 0; l < 2; l++)
                for (i = 0; i < json_array_size(lists[l]); i++) {
                        json_t *e = json_array_get(lists[l], i);

                        if (vindex_find(&seen, e) >= 0)
                                continue;
                        vindex_add(&seen, e, json_array_size(out));
                        patch_array_append(out, l == 0 ? json_incref(e) : patch_copy(e));
                }
        vindex_release(&seen);
        return out;
}

/* What upstream's caller still sees of the original list after mergeSlice, for
 * $setElementOrder. Go deletes elements by shifting the shared backing array and appends new
 * elements into the freed tail, so the caller's view of the original becomes the survivors
 * followed by as many appended elements as were deleted; upstream orders server-only elements
 * against that view (patch_test.go "add map and delete map from merging list" relies on it). */
static json_t *aliased_view(const json_t *merged, size_t survivors, size_t deleted)
{
        json_t *view = patch_checked(json_array());
        size_t i, n = json_array_size(merged);

        for (i = 0; i < n && i < survivors + deleted; i++)
                patch_array_append(view, json_incref(json_array_get(merged, i)));
        return view;
}

/* Server-side apply of a merging list, as structured-merge-diff's visitListItems orders it:
 * live and applied lists are walked together; items only the live object has stay where they
 * are, applied items come in applied order, and an item both have is merged where the applied
 * list puts it. Items are identified by merge key (map-lists) or by value (sets). Live items
 * without a usable key, or repeating one, are kept as live-only items. lhs is consumed. */
static int apply_list(struct smp *m, json_t *lhs, const json_t *rhs, const struct list_meta *lm,
                      bool by_key, json_t **ret)
{
        size_t ln = json_array_size(lhs), rn = json_array_size(rhs), li = 0, ri = 0, i;
        cleanup_free ssize_t *lhs_in_rhs = NULL, *rhs_in_lhs = NULL, *shared = NULL;
        cleanup_free bool *rhs_skip = NULL;
        struct vindex lix = { 0 }, rix = { 0 };
        size_t nshared = 0, next = 0;
        json_t *out = patch_checked(json_array());
        int r = 0;

        /* Index both sides: live by first occurrence, applied (already checked) by key. */
        lhs_in_rhs = xcalloc(ln + 1, sizeof(*lhs_in_rhs));
        rhs_in_lhs = xcalloc(rn + 1, sizeof(*rhs_in_lhs));
        rhs_skip = xcalloc(rn + 1, sizeof(*rhs_skip));
        shared = xcalloc(rn + 1, sizeof(*shared));
        vindex_init(&lix, ln);
        vindex_init(&rix, rn);
        for (i = 0; i < rn; i++) {
                const json_t *e = json_array_get(rhs, i);
                const json_t *k = by_key ? json_object_get(e, lm->merge_key) : e;

                if (vindex_find(&rix, k) >= 0)
                        rhs_skip[i] = true; /* a repeated set value */
                else
                        vindex_add(&rix, k, i);
        }
        for (i = 0; i < ln; i++) {
                const json_t *e = json_array_get(lhs, i);
                const json_t *k =
                        by_key ? (json_is_object(e) ? json_object_get(e, lm->merge_key) : NULL) : e;

                lhs_in_rhs[i] = -1;
                if (!k || vindex_find(&lix, k) >= 0)
                        continue;
                vindex_add(&lix, k, i);
                lhs_in_rhs[i] = vindex_find(&rix, k);
        }
        for (i = 0; i < rn; i++) {
                const json_t *e = json_array_get(rhs, i);

                rhs_in_lhs[i] =
                        rhs_skip[i]
                                ? -1
                                : vindex_find(&lix, by_key ? json_object_get(e, lm->merge_key) : e);
                if (rhs_in_lhs[i] >= 0)
                        shared[nshared++] = (ssize_t) i;
        }

        while ((li < ln || ri < rn) && r >= 0) {
                json_t *item = NULL;

                if (ri < rn && rhs_skip[ri]) {
                        ri++;
                        continue;
                }
                if (li < ln && ri < rn) {
                        if (lhs_in_rhs[li] == (ssize_t) ri) {
                                /* The same item on both sides: merge it here. */
                                goto take_rhs;
                        }
                        if (lhs_in_rhs[li] >= 0 && next < nshared &&
                            shared[next] != lhs_in_rhs[li]) {
                                li++; /* shared, but it comes later in the applied order */
                                continue;
                        }
                }
                if (li < ln && lhs_in_rhs[li] < 0) {
                        patch_array_append(out, json_incref(json_array_get(lhs, li++)));
                        continue;
                }
                if (ri >= rn) {
                        li++; /* cannot happen with consistent indexes; never loop forever */
                        continue;
                }
        take_rhs : {
                const json_t *e = json_array_get(rhs, ri);
                ssize_t partner = rhs_in_lhs[ri];
                size_t mark =
                        by_key ? path_push_elem(m, lm->merge_key, json_object_get(e, lm->merge_key))
                               : m->path.len;

                if (partner >= 0 && by_key)
                        r = merge_map(m, json_incref(json_array_get(lhs, (size_t) partner)), e,
                                      lm->items, &item);
                else
                        r = new_value(m, e, lm->items, &item);
                path_pop(m, mark);
                if (r >= 0 && item)
                        patch_array_append(out, item);
                if (partner >= 0 && (size_t) partner == li)
                        li++;
                if (next < nshared && shared[next] == (ssize_t) ri)
                        next++;
                ri++;
        }
        }
        vindex_release(&lix);
        vindex_release(&rix);
        json_decref(lhs);
        if (r < 0) {
                json_decref(out);
                return r;
        }
        *ret = out;
        return 0;
}

/* upstream's mergeSlice for a list with patchStrategy=merge (or a deletion list). orig is
 * consumed. *ret_view (when asked) gets aliased_view() or stays NULL when the caller's view of
 * the original is unchanged. */
static int merge_slice(struct smp *m, json_t *orig, const json_t *patch, const struct list_meta *lm,
                       bool delete_list, json_t **ret, json_t **ret_view)
{
        cleanup_json json_t *o = orig, *server = NULL, *rest = NULL;
        size_t server_n, orig_n = json_array_size(orig);
        bool replaced = false;
        enum gkind kind;
        json_t *merged;
        int r;

        if (json_array_size(o) == 0 && json_array_size(patch) == 0) {
                *ret = TAKE_PTR(o);
                return 0;
        }
        if (m->apply && *lm->merge_key) {
                r = apply_check_list(m, patch, lm->merge_key);
                if (r < 0)
                        return r;
        }
        r = slice_element_kind(m, o, patch, &kind);
        if (r < 0)
                return r;
        if (m->apply) {
                if (kind == GK_MAP && !*lm->merge_key)
                        return error_set(m->reterr, EINVAL,
                                         "%s: associative list without keys has an element "
                                         "that's a map type",
                                         m->path.buf);
                return apply_list(m, TAKE_PTR(o), patch, lm, kind == GK_MAP, ret);
        }
        if (kind != GK_MAP) {
                if (delete_list) {
                        *ret = delete_from_slice(o, patch);
                        return 0;
                }
                merged = union_of(o, patch);
                return order_merged(m, merged, patch, o, json_array_size(o), lm->merge_key, kind,
                                    ret);
        }
        if (!*lm->merge_key)
                return error_set(m->reterr, EINVAL, "cannot merge lists without merge key for %s",
                                 lm->name);
        r = special_elements(m, TAKE_PTR(o), patch, lm->merge_key, &server, &rest, &replaced);
        if (r < 0)
                return r;
        /* The server's order is that of the list before the merge appends to it. */
        server_n = json_array_size(server);
        merged = patch_checked(json_array());
        if (json_array_extend(merged, server) < 0)
                abort();
        r = merge_elements(m, merged, rest, lm->merge_key, lm->items);
        if (r < 0) {
                json_decref(merged);
                return r;
        }
        if (ret_view && !replaced && server_n < orig_n)
                *ret_view = aliased_view(merged, server_n, orig_n - server_n);
        return order_merged(m, merged, rest, server, server_n, lm->merge_key, kind, ret);
}

/* upstream's mergeSliceHandler. orig is consumed. */
static int merge_slice_handler(struct smp *m, json_t *orig, const json_t *patch,
                               const struct schema *s, bool delete_list, json_t **ret,
                               json_t **ret_view)
{
        struct list_meta lm = list_meta(s);

        if (lm.merge || delete_list)
                return merge_slice(m, orig, patch, &lm, delete_list, ret, ret_view);
        /* K8S: lists without a patch strategy are replaced. */
        json_decref(orig);
        return new_value(m, patch, s, ret);
}

/* $retainKeys (upstream's applyRetainKeysDirective): every key the patch sets must be listed;
 * afterwards the original keeps only the listed keys. */
static int retain_keys(struct smp *m, json_t *o, json_t *work)
{
        cleanup_json json_t *list = json_incref(json_object_get(work, RETAIN_KEYS));
        struct vindex keep;
        const char *key;
        json_t *v, *tmp;
        void *iter_tmp;
        int r = 0;

        if (!list)
                return 0;
        json_object_del(work, RETAIN_KEYS);
        if (!json_is_array(list))
                return err(m, ERR_BAD_RETAIN_KEYS);
        vindex_of_list(&keep, list, json_array_size(list), "", false);
        json_object_foreach(work, key, v) {
                cleanup_json json_t *k = NULL;

                if (json_is_null(v) || has_prefix(key, DELETE_PRIMS_PREFIX) ||
                    has_prefix(key, SET_ORDER_PREFIX))
                        continue;
                k = patch_checked(json_string(key));
                if (vindex_find(&keep, k) < 0) {
                        r = err(m, ERR_BAD_RETAIN_KEYS);
                        goto out;
                }
        }
        json_object_foreach_safe(o, iter_tmp, key, tmp)
        {
                cleanup_json json_t *k = patch_checked(json_string(key));

                if (vindex_find(&keep, k) < 0)
                        json_object_del(o, key);
        }
out:
        vindex_release(&keep);
        return r;
}

/* Does patch_list agree with the $setElementOrder list (upstream's
 * validatePatchWithSetOrderList)? Every non-directive patch element must appear in the order
 * list, in the same relative order. */
static int check_set_order(struct smp *m, const json_t *patch_list, const json_t *order,
                           const char *merge_key)
{
        cleanup_json json_t *nondelete = NULL;
        size_t pi = 0, oi = 0, n;

        if (!patch_list || json_array_size(order) == 0 || json_array_size(patch_list) == 0)
                return 0;
        nondelete = patch_checked(json_array());
        for (size_t i = 0; i < json_array_size(patch_list); i++) {
                json_t *e = json_array_get(patch_list, i);
                const char *d;

                if (*merge_key) {
                        if (!json_is_object(e))
                                return err_bad_arg_type(m, "map[string]interface {}", e);
                        d = json_string_value(json_object_get(e, DIRECTIVE_MARKER));
                        if (d && streq(d, "delete"))
                                continue;
                }
                patch_array_append(nondelete, json_incref(e));
        }
        n = json_array_size(nondelete);
        while (pi < n && oi < json_array_size(order)) {
                const json_t *p = json_array_get(nondelete, pi), *o = json_array_get(order, oi);
                bool equal;

                if (json_is_object(p) && json_object_get(p, DIRECTIVE_MARKER)) {
                        pi++;
                        continue;
                }
                if (!*merge_key) {
                        equal = patch_value_equal(p, o);
                } else {
                        if (!json_is_object(p))
                                return err_bad_arg_type(m, "map[string]interface {}", p);
                        if (!json_is_object(o))
                                return err_bad_arg_type(m, "map[string]interface {}", o);
                        if (!json_object_get(p, merge_key))
                                return err_no_merge_key(m, p, merge_key);
                        if (!json_object_get(o, merge_key))
                                return err_no_merge_key(m, o, merge_key);
                        equal = patch_value_equal(json_object_get(p, merge_key),
                                                  json_object_get(o, merge_key));
                }
                if (equal)
                        pi++;
                oi++;
        }
        if (pi < n && oi >= json_array_size(order)) {
                cleanup_free char *sp = go_str(patch_list), *so = go_str(order);

                return error_set(m->reterr, EINVAL,
                                 "The order in patch list:\n%s\n doesn't match " SET_ORDER_PREFIX
                                 " list:\n%s\n",
                                 sp, so);
        }
        return 0;
}

/* One "$setElementOrder/<field>" (upstream's mergePatchIntoOriginal): merges the field's patch
 * list, if any, then orders the result by the directive. Both keys leave work. */
static int set_element_order(struct smp *m, json_t *o, json_t *work, const char *key,
                             const struct schema *s)
{
        cleanup_json json_t *order = json_incref(json_object_get(work, key));
        cleanup_json json_t *plist = NULL, *merged = NULL, *view = NULL;
        cleanup_free char *field = NULL;
        const struct schema *sub;
        struct list_meta lm;
        json_t *olist, *result;
        enum gkind kind;
        size_t mark;
        int r;

        if (!order)
                return 0; /* already consumed as another directive's list */
        json_object_del(work, key);
        if (!json_is_array(order))
                return err_bad_arg_type(m, "[]interface {}", order);
        if (key[strlen(SET_ORDER_PREFIX)] != '/')
                return err(m, ERR_BAD_SET_ORDER);
        field = xstrdup(key + strlen(SET_ORDER_PREFIX) + 1);
        olist = json_object_get(o, field);
        plist = json_incref(json_object_get(work, field));
        if (olist && !json_is_array(olist))
                return err_bad_arg_type(m, "[]interface {}", olist);
        if (plist && !json_is_array(plist))
                return err_bad_arg_type(m, "[]interface {}", plist);
        sub = child_schema(s, field);
        lm = list_meta(sub);
        r = check_set_order(m, plist, order, lm.merge_key);
        if (r < 0)
                return r;
        if (!olist && !plist)
                return 0;
        /* The server's order is the list before the merge; keep it alive across the merge. */
        json_incref(olist);
        mark = path_push_key(m, field);
        if (olist && !plist)
                merged = json_incref(olist);
        else if (!olist)
                merged = sanitize(plist);
        else
                r = merge_slice_handler(m, json_incref(olist), plist, sub, false, &merged, &view);
        path_pop(m, mark);
        if (r >= 0)
                r = slice_element_kind(m, olist, plist, &kind);
        if (r >= 0) {
                const json_t *server = view ? view : olist;

                r = order_merged(m, TAKE_PTR(merged), order, server, json_array_size(server),
                                 lm.merge_key, kind, &result);
                if (r >= 0)
                        patch_object_set(o, field, result);
        }
        json_decref(olist);
        json_object_del(work, field);
        return r;
}

/* upstream's mergeMap. orig (an object, or NULL for none) is consumed. */
static int merge_map(struct smp *m, json_t *orig, const json_t *patch, const struct schema *s,
                     json_t **ret)
{
        cleanup_json json_t *o = orig, *work = NULL, *orders = NULL;
        const json_t *d;
        const char *key;
        json_t *pv;
        void *iter;
        size_t i;
        int r;

        if (!m->apply && (d = json_object_get(patch, DIRECTIVE_MARKER))) {
                const char *ds = json_string_value(d);

                if (ds && streq(ds, "replace")) {
                        /* K8S: the map becomes the rest of the patch map. */
                        *ret = sanitize(patch);
                        return 0;
                }
                if (ds && streq(ds, "delete")) {
                        /* K8S: upstream leaves an empty map, not an absent key. */
                        *ret = patch_checked(json_object());
                        return 0;
                }
                if (!ds || !streq(ds, "merge"))
                        return err_bad_patch_type(m, d, patch);
        }
        if (!o)
                o = patch_checked(json_object());
        work = patch_checked(json_copy((json_t *) patch));
        if (!m->apply) {
                json_object_del(work, DIRECTIVE_MARKER);
                r = retain_keys(m, o, work);
                if (r < 0)
                        return r;
                /* Each directive removes its own key and its list's key from work, so collect
                 * the names before iterating. */
                orders = patch_checked(json_array());
                json_object_foreach(work, key, pv)
                        if (has_prefix(key, SET_ORDER_PREFIX))
                                patch_array_append(orders, patch_checked(json_string(key)));
                for (i = 0; i < json_array_size(orders); i++) {
                        r = set_element_order(m, o, work,
                                              json_string_value(json_array_get(orders, i)), s);
                        if (r < 0)
                                return r;
                }
        }

        json_object_foreach_safe(work, iter, key, pv)
        {
                const char *k = key;
                bool delete_list = false;
                const struct schema *sub;
                json_t *cur, *nv = NULL;
                size_t mark;

                if (!m->apply && has_prefix(key, DELETE_PRIMS_PREFIX)) {
                        if (key[strlen(DELETE_PRIMS_PREFIX)] != '/')
                                return err(m, ERR_BAD_PRIMS_FORMAT);
                        k = key + strlen(DELETE_PRIMS_PREFIX) + 1;
                        delete_list = true;
                }
                if (json_is_null(pv)) {
                        /* K8S: null deletes. SSA: a null applies nothing. */
                        if (!m->apply)
                                json_object_del(o, k);
                        continue;
                }
                cur = json_object_get(o, k);
                sub = child_schema(s, k);
                if (!cur || gkind(cur) != gkind(pv)) {
                        /* Absent, or a value of another type: take the patch value; a
                         * deletion list never adds. */
                        if (delete_list)
                                continue;
                        mark = path_push_key(m, k);
                        r = new_value(m, pv, sub, &nv);
                        path_pop(m, mark);
                        if (r < 0)
                                return r;
                        if (nv)
                                patch_object_set(o, k, nv);
                        else
                                json_object_del(o, k);
                        continue;
                }
                mark = path_push_key(m, k);
                if (json_is_object(cur))
                        r = merge_map(m, json_incref(cur), pv, sub, &nv);
                else if (json_is_array(cur))
                        r = merge_slice_handler(m, json_incref(cur), pv, sub, delete_list, &nv,
                                                NULL);
                else
                        r = new_value(m, pv, sub, &nv);
                path_pop(m, mark);
                if (r < 0)
                        return r;
                patch_object_set(o, k, nv);
        }
        *ret = TAKE_PTR(o);
        return 0;
}

static int run(bool apply, const json_t *original, const json_t *patch, const struct schema *schema,
               const char *what, json_t **ret, struct error **reterr)
{
        struct smp m = { .apply = apply, .reterr = reterr };
        json_t *out;
        int r;

        r = patch_check_depth(original, patch, what, reterr);
        if (r < 0)
                return r;
        strbuf_init(&m.path);
        r = merge_map(&m, original ? patch_copy(original) : NULL, patch, schema, &out);
        strbuf_release(&m.path);
        if (r < 0)
                return r;
        *ret = out;
        return 0;
}

int patch_strategic_merge(const json_t *original, const json_t *patch, const struct schema *schema,
                          json_t **ret, struct error **reterr)
{
        /* K8S: both documents decode into map[string]interface{}; "null" decodes as no map. */
        if ((original && !json_is_object(original) && !json_is_null(original)) ||
            (patch && !json_is_object(patch) && !json_is_null(patch)))
                return error_set(reterr, EINVAL, "invalid JSON document");
        if (!patch || json_is_null(patch)) {
                *ret = json_is_object(original) ? patch_copy(original)
                                                : patch_checked(json_object());
                return 0;
        }
        return run(false, json_is_object(original) ? original : NULL, patch, schema,
                   "strategic merge patch", ret, reterr);
}

int patch_apply(const json_t *live, const json_t *applied, const struct schema *schema,
                json_t **ret, struct error **reterr)
{
        if (!json_is_object(applied))
                return error_set(reterr, EINVAL,
                                 "apply patch: the applied configuration must be an object");
        if (live && !json_is_object(live))
                return error_set(reterr, EINVAL, "apply patch: the live object is not an object");
        return run(true, live, applied, schema, "apply patch", ret, reterr);
}
