/* patch-json.c: JSON patch (RFC 6902), application/json-patch+json.
 *
 * Follows gopkg.in/evanphx/json-patch.v4, the engine kube-apiserver runs, operation by operation,
 * including its error texts and its leniencies (negative indices, replace-as-add on objects).
 * Operations run in order on a private deep copy of the original; the first failure stops the
 * patch. Every value inserted is a copy, so the result never shares nodes with the patch. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>

#include "api/patch-internal.h"
#include "api/patch.h"
#include "base/alloc.h"
#include "base/strbuf.h"

/* evanphx's sentinel errors, as they end each wrapped message. */
#define ERR_MISSING       "missing value"
#define ERR_INVALID_INDEX "invalid index referenced"
#define ERR_TEST_FAILED   "test failed"

struct jp {
        json_t *doc;       /* the document being patched (owned) */
        size_t copy_bytes; /* bytes added by "copy" so far */
        struct error **reterr;
};

/* strconv.Atoi on 64 bits: optional sign and decimal digits. As Go's ParseInt, the digits are
 * read as an unsigned 64-bit value (a bad character is a syntax error unless that value
 * overflowed first), then checked against the signed range. On failure writes Go's message
 * into *msg and returns -EINVAL. */
static int go_atoi(const char *s, long long *ret, char **msg)
{
        const char *p = s;
        bool neg = false;
        unsigned long long v = 0;

        if (*p == '+' || *p == '-')
                neg = *p++ == '-';
        if (!*p)
                goto syntax;
        for (; *p; p++) {
                unsigned d = (unsigned) (*p - '0');

                if (*p < '0' || *p > '9')
                        goto syntax;
                if (v > (ULLONG_MAX - d) / 10)
                        goto range;
                v = v * 10 + d;
        }
        if (v > (unsigned long long) LLONG_MAX + (neg ? 1 : 0))
                goto range;
        *ret = neg ? (long long) (0 - v) : (long long) v;
        return 0;
syntax:
        *msg = xasprintf("strconv.Atoi: parsing \"%s\": invalid syntax", s);
        return -EINVAL;
range:
        *msg = xasprintf("strconv.Atoi: parsing \"%s\": value out of range", s);
        return -EINVAL;
}

/* partialArray.get: the element at key (negative counts from the end). NULL with *msg set when
 * the index is bad. */
static json_t *array_get(json_t *arr, const char *key, long long *ret_idx, char **msg)
{
        long long idx, n = (long long) json_array_size(arr);

        if (go_atoi(key, &idx, msg) < 0)
                return NULL;
        if (idx < 0) {
                if (idx < -n)
                        goto invalid;
                idx += n;
        }
        if (idx >= n)
                goto invalid;
        *ret_idx = idx;
        return json_array_get(arr, (size_t) idx);
invalid:
        *msg = xasprintf("Unable to access invalid index: %lld: " ERR_INVALID_INDEX, idx);
        return NULL;
}

/* container.get: for an object a missing member is not an error (NULL, no message). */
static int container_get(json_t *con, const char *key, json_t **ret, char **msg)
{
        long long idx;

        if (json_is_object(con)) {
                *ret = json_object_get(con, key);
                return 0;
        }
        *ret = array_get(con, key, &idx, msg);
        return *ret ? 0 : -EINVAL;
}

/* container.add: val is consumed. */
static int container_add(json_t *con, const char *key, json_t *val, char **msg)
{
        long long idx, n;
        int r;

        if (json_is_object(con)) {
                patch_object_set(con, key, val);
                return 0;
        }
        if (streq(key, "-")) {
                patch_array_append(con, val);
                return 0;
        }
        r = go_atoi(key, &idx, msg);
        if (r < 0) {
                char *inner = *msg;

                *msg = xasprintf("value was not a proper array index: '%s': %s", key, inner);
                free(inner);
                goto fail;
        }
        n = (long long) json_array_size(con) + 1;
        if (idx >= n || idx < -n) {
                *msg = xasprintf("Unable to access invalid index: %lld: " ERR_INVALID_INDEX, idx);
                goto fail;
        }
        if (idx < 0)
                idx += n;
        if (json_array_insert_new(con, (size_t) idx, val) < 0)
                abort();
        return 0;
fail:
        json_decref(val);
        return -EINVAL;
}

static int container_remove(json_t *con, const char *key, char **msg)
{
        long long idx, n;

        if (json_is_object(con)) {
                if (json_object_del(con, key) < 0) {
                        *msg = xasprintf("Unable to remove nonexistent key: %s: " ERR_MISSING, key);
                        return -EINVAL;
                }
                return 0;
        }
        if (go_atoi(key, &idx, msg) < 0)
                return -EINVAL;
        n = (long long) json_array_size(con);
        if (idx >= n || idx < -n) {
                *msg = xasprintf("Unable to access invalid index: %lld: " ERR_INVALID_INDEX, idx);
                return -EINVAL;
        }
        if (idx < 0)
                idx += n;
        json_array_remove(con, (size_t) idx);
        return 0;
}

/* RFC 6901 unescaping in one left-to-right pass: "~1" is '/', "~0" is '~'. */
static char *decode_token(const char *s, size_t n)
{
        char *out = xmalloc(n + 1), *o = out;
        size_t i;

        for (i = 0; i < n; i++) {
                if (s[i] == '~' && i + 1 < n && (s[i + 1] == '0' || s[i + 1] == '1')) {
                        *o++ = s[i + 1] == '1' ? '/' : '~';
                        i++;
                } else {
                        *o++ = s[i];
                }
        }
        *o = '\0';
        return out;
}

/* findObject: the container holding the last token of path, and that token decoded into
 * *ret_key. NULL when path has no '/', or an intermediate step is missing, null, a scalar or a
 * bad index. As upstream, the text before the first '/' is ignored. */
static json_t *find_object(json_t *doc, const char *path, char **ret_key, int *ret_level)
{
        const char *seg = strchr(path, '/'), *next;
        json_t *cur = doc;
        int level = 0;

        if (!seg)
                return NULL;
        seg++;
        while ((next = strchr(seg, '/'))) {
                cleanup_free char *tok = decode_token(seg, (size_t) (next - seg));
                cleanup_free char *msg = NULL;
                json_t *child;

                if (container_get(cur, tok, &child, &msg) < 0 || !child)
                        return NULL;
                if (!json_is_object(child) && !json_is_array(child))
                        return NULL;
                cur = child;
                seg = next + 1;
                level++;
        }
        *ret_key = decode_token(seg, strlen(seg));
        *ret_level = level;
        return cur;
}

/* Paths are strings, so a shallow patch could still build a deep document one level per
 * operation: every insertion keeps the document within PATCH_MAX_DEPTH. level is the depth of
 * the container receiving val (the root is 0). */
static int check_depth(struct jp *jp, int level, const json_t *val)
{
        if (patch_too_deep(val, PATCH_MAX_DEPTH - level - 1))
                return error_set(jp->reterr, EINVAL,
                                 "json patch: document nesting exceeds the maximum depth %d",
                                 PATCH_MAX_DEPTH);
        return 0;
}

/* Operation.Path / Operation.From: the string member, or Go's reason it is not one. */
static int op_string(const json_t *op, const char *field, const char **ret, char **msg)
{
        const json_t *v = json_object_get(op, field);

        if (!v || json_is_null(v)) {
                *msg = xstrdup(streq(field, "path")
                                       ? "operation missing path field: " ERR_MISSING
                                       : "operation, missing from field: " ERR_MISSING);
                return -EINVAL;
        }
        if (!json_is_string(v)) {
                *msg = xasprintf("json: cannot unmarshal %s into Go value of type string",
                                 json_go_kind(v));
                return -EINVAL;
        }
        *ret = json_string_value(v);
        return 0;
}

/* A copy of the operation's value; absent or null both give JSON null, as upstream stores. */
static json_t *op_value(const json_t *op)
{
        const json_t *v = json_object_get(op, "value");

        return v ? patch_copy(v) : patch_checked(json_null());
}

static int fail(struct jp *jp, const char *fmt, ...) _printf_(2, 3);
static int fail(struct jp *jp, const char *fmt, ...)
{
        va_list ap;
        char *msg;

        va_start(ap, fmt);
        if (vasprintf(&msg, fmt, ap) < 0)
                abort();
        va_end(ap);
        (void) error_set(jp->reterr, EBADMSG, "%s", msg);
        free(msg);
        return -EBADMSG;
}

static int op_add(struct jp *jp, const json_t *op)
{
        cleanup_free char *key = NULL, *msg = NULL;
        const char *path;
        json_t *con;
        int level;

        if (op_string(op, "path", &path, &msg) < 0)
                return fail(jp, "add operation failed to decode path: " ERR_MISSING);
        con = find_object(jp->doc, path, &key, &level);
        if (!con)
                return fail(jp, "add operation does not apply: doc is missing path: \"%s\": %s",
                            path, ERR_MISSING);
        if (check_depth(jp, level, json_object_get(op, "value")) < 0)
                return -EINVAL;
        if (container_add(con, key, op_value(op), &msg) < 0)
                return fail(jp, "error in add for path: '%s': %s", path, msg);
        return 0;
}

static int op_remove(struct jp *jp, const json_t *op)
{
        cleanup_free char *key = NULL, *msg = NULL;
        const char *path;
        json_t *con;
        int level;

        if (op_string(op, "path", &path, &msg) < 0)
                return fail(jp, "remove operation failed to decode path: " ERR_MISSING);
        con = find_object(jp->doc, path, &key, &level);
        if (!con)
                return fail(jp, "remove operation does not apply: doc is missing path: \"%s\": %s",
                            path, ERR_MISSING);
        if (container_remove(con, key, &msg) < 0)
                return fail(jp, "error in remove for path: '%s': %s", path, msg);
        return 0;
}

static int op_replace(struct jp *jp, const json_t *op)
{
        cleanup_free char *key = NULL, *msg = NULL;
        const char *path;
        json_t *con, *cur;
        long long idx;
        int level;

        if (op_string(op, "path", &path, &msg) < 0)
                return fail(jp, "replace operation failed to decode path: %s", msg);
        if (!*path) {
                const json_t *v = json_object_get(op, "value");

                /* Upstream wraps a nil error here, hence Go's "%!w(<nil>)". */
                if (!json_is_object(v) && !json_is_array(v))
                        return fail(jp, "replace operation value must be object or array: "
                                        "%%!w(<nil>)");
                json_decref(jp->doc);
                jp->doc = patch_copy(v);
                return 0;
        }
        con = find_object(jp->doc, path, &key, &level);
        if (!con)
                return fail(jp, "replace operation does not apply: doc is missing path: %s: %s",
                            path, ERR_MISSING);
        if (check_depth(jp, level, json_object_get(op, "value")) < 0)
                return -EINVAL;
        if (json_is_object(con)) {
                /* K8S (evanphx v4): a missing member is not an error; replace adds it. */
                patch_object_set(con, key, op_value(op));
                return 0;
        }
        cur = array_get(con, key, &idx, &msg);
        if (!cur)
                return fail(jp, "replace operation does not apply: doc is missing key: %s: %s",
                            path, ERR_MISSING);
        if (json_array_set_new(con, (size_t) idx, op_value(op)) < 0)
                abort();
        return 0;
}

static int op_move(struct jp *jp, const json_t *op)
{
        cleanup_free char *from_key = NULL, *key = NULL, *msg = NULL;
        const char *from, *path;
        json_t *con, *val;
        int level, r;

        if (op_string(op, "from", &from, &msg) < 0)
                return fail(jp, "move operation failed to decode from: %s", msg);
        con = find_object(jp->doc, from, &from_key, &level);
        if (!con)
                return fail(jp, "move operation does not apply: doc is missing from path: %s: %s",
                            from, ERR_MISSING);
        if (container_get(con, from_key, &val, &msg) < 0)
                return fail(jp, "error in move for path: '%s': %s", from_key, msg);
        /* Hold the value across its removal. */
        json_incref(val);
        /* A missing member fails in the removal below, as upstream. */
        if (container_remove(con, from_key, &msg) < 0) {
                json_decref(val);
                return fail(jp, "error in move for path: '%s': %s", from_key, msg);
        }
        if (op_string(op, "path", &path, &msg) < 0) {
                json_decref(val);
                return fail(jp, "move operation failed to decode path: %s", msg);
        }
        /* The value is detached now, so the destination can never lie inside it. */
        con = find_object(jp->doc, path, &key, &level);
        if (!con) {
                json_decref(val);
                return fail(jp,
                            "move operation does not apply: doc is missing destination path: "
                            "%s: %s",
                            path, ERR_MISSING);
        }
        if (check_depth(jp, level, val) < 0) {
                json_decref(val);
                return -EINVAL;
        }
        r = container_add(con, key, val, &msg);
        if (r < 0)
                return fail(jp, "error in move for path: '%s': %s", path, msg);
        return 0;
}

static int op_copy(struct jp *jp, const json_t *op)
{
        cleanup_free char *from_key = NULL, *key = NULL, *msg = NULL;
        const char *from, *path;
        json_t *con, *val, *dup;
        size_t sz;
        int level;

        if (op_string(op, "from", &from, &msg) < 0)
                return fail(jp, "copy operation failed to decode from: %s", msg);
        con = find_object(jp->doc, from, &from_key, &level);
        if (!con)
                return fail(jp, "copy operation does not apply: doc is missing from path: %s: %s",
                            from, ERR_MISSING);
        if (container_get(con, from_key, &val, &msg) < 0)
                return fail(jp, "error in copy for from: '%s': %s", from, msg);
        if (op_string(op, "path", &path, &msg) < 0)
                return fail(jp, "copy operation failed to decode path: " ERR_MISSING);
        con = find_object(jp->doc, path, &key, &level);
        if (!con)
                return fail(jp,
                            "copy operation does not apply: doc is missing destination path: "
                            "%s: %s",
                            path, ERR_MISSING);
        if (check_depth(jp, level, val) < 0)
                return -EINVAL;
        /* Copies are the one way a patch can grow the document faster than its own size. */
        sz = val ? json_dumpb(val, NULL, 0, JSON_COMPACT | JSON_ENCODE_ANY) : 0;
        jp->copy_bytes += sz;
        if (jp->copy_bytes > PATCH_JSON_MAX_COPY_BYTES)
                return error_set(jp->reterr, E2BIG,
                                 "Unable to complete the copy, the accumulated size increase of "
                                 "copy is %zu, exceeding the limit %u",
                                 jp->copy_bytes, PATCH_JSON_MAX_COPY_BYTES);
        dup = val ? patch_copy(val) : patch_checked(json_null());
        if (container_add(con, key, dup, &msg) < 0)
                return fail(jp, "error while adding value during copy: %s", msg);
        return 0;
}

static int op_test(struct jp *jp, const json_t *op)
{
        cleanup_free char *key = NULL, *msg = NULL;
        const json_t *want = json_object_get(op, "value");
        const char *path;
        json_t *con, *val;
        int level;

        if (op_string(op, "path", &path, &msg) < 0)
                return fail(jp, "test operation failed to decode path: %s", msg);
        if (!*path) {
                if (want && patch_value_equal(jp->doc, want))
                        return 0;
                return fail(jp, "testing value %s failed: " ERR_TEST_FAILED, path);
        }
        con = find_object(jp->doc, path, &key, &level);
        if (!con)
                return fail(jp, "test operation does not apply: is missing path: %s: %s", path,
                            ERR_MISSING);
        if (container_get(con, key, &val, &msg) < 0)
                return fail(jp, "error in test for path: '%s': %s", path, msg);
        /* K8S (evanphx v4): a missing member tests equal to an absent or null value. */
        if (!val || json_is_null(val)) {
                if (!want || json_is_null(want))
                        return 0;
        } else if (want && patch_value_equal(val, want)) {
                return 0;
        }
        return fail(jp, "testing value %s failed: " ERR_TEST_FAILED, path);
}

static int apply_op(struct jp *jp, const json_t *op)
{
        const json_t *kind = json_object_get(op, "op");
        const char *k = json_is_string(kind) ? json_string_value(kind) : "unknown";

        if (streq(k, "add"))
                return op_add(jp, op);
        if (streq(k, "remove"))
                return op_remove(jp, op);
        if (streq(k, "replace"))
                return op_replace(jp, op);
        if (streq(k, "move"))
                return op_move(jp, op);
        if (streq(k, "test"))
                return op_test(jp, op);
        if (streq(k, "copy"))
                return op_copy(jp, op);
        return fail(jp, "Unexpected kind: %s", k);
}

int patch_json(const json_t *original, const json_t *patch, json_t **ret, struct error **reterr)
{
        struct jp jp = { .reterr = reterr };
        const json_t *op;
        size_t i;
        int r;

        if (!json_is_object(original) && !json_is_array(original))
                return error_set(reterr, EINVAL,
                                 "json: cannot unmarshal %s into Go value of type "
                                 "jsonpatch.partialDoc",
                                 original ? json_go_kind(original) : "null");
        /* K8S: DecodePatch failures are 400 BadRequest; null decodes as an empty patch. */
        if (patch && !json_is_null(patch) && !json_is_array(patch))
                return error_set(reterr, EINVAL,
                                 "json: cannot unmarshal %s into Go value of type jsonpatch.Patch",
                                 json_go_kind(patch));
        json_array_foreach(patch, i, op)
                if (!json_is_object(op) && !json_is_null(op))
                        return error_set(reterr, EINVAL,
                                         "json: cannot unmarshal %s into Go value of type "
                                         "jsonpatch.Operation",
                                         json_go_kind(op));
        /* K8S: maxJSONPatchOperations, 413 RequestEntityTooLarge. */
        if (json_array_size(patch) > PATCH_JSON_MAX_OPS)
                return error_set(reterr, E2BIG,
                                 "The allowed maximum operations in a JSON patch is %d, got %zu",
                                 PATCH_JSON_MAX_OPS, json_array_size(patch));
        r = patch_check_depth(original, patch, "json patch", reterr);
        if (r < 0)
                return r;

        jp.doc = patch_copy(original);
        json_array_foreach(patch, i, op) {
                r = apply_op(&jp, op);
                if (r < 0) {
                        json_decref(jp.doc);
                        return r;
                }
        }
        *ret = jp.doc;
        return 0;
}
