/* patch-internal.h: private helpers shared by patch-strategic.c, patch-merge.c and patch-json.c:
 * the nesting-depth guard, JSON value equality as Go's decoded values compare (every number is a
 * float64), and allocation-checked jansson constructors. Not part of the API. */
#ifndef FLEXLET_API_PATCH_INTERNAL_H
#define FLEXLET_API_PATCH_INTERNAL_H

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "api/patch.h"
#include "base/error.h"
#include "base/json.h"

/* jansson returns NULL only when it cannot allocate; we abort like xmalloc. */
static inline json_t *patch_checked(json_t *v)
{
        if (!v)
                abort();
        return v;
}

static inline json_t *patch_copy(const json_t *v)
{
        return patch_checked(json_deep_copy(v));
}

/* Stores v (consumed) under key, aborting on allocation failure. */
static inline void patch_object_set(json_t *obj, const char *key, json_t *v)
{
        if (json_object_set_new(obj, key, v) < 0)
                abort();
}

static inline void patch_array_append(json_t *arr, json_t *v)
{
        if (json_array_append_new(arr, v) < 0)
                abort();
}

/* True when v nests objects/arrays more than `left` levels deep. Stops early, so the recursion
 * never goes deeper than the limit. */
static inline bool patch_too_deep(const json_t *v, int left)
{
        const char *key;
        json_t *child;
        size_t i;

        if (!json_is_object(v) && !json_is_array(v))
                return false;
        if (left <= 0)
                return true;
        if (json_is_object(v)) {
                json_object_foreach((json_t *) v, key, child)
                        if (patch_too_deep(child, left - 1))
                                return true;
        } else {
                json_array_foreach(v, i, child)
                        if (patch_too_deep(child, left - 1))
                                return true;
        }
        return false;
}

/* Checks both documents against PATCH_MAX_DEPTH; -EINVAL with "<what>: ..." otherwise. */
static inline int patch_check_depth(const json_t *original, const json_t *patch, const char *what,
                                    struct error **reterr)
{
        if (original && patch_too_deep(original, PATCH_MAX_DEPTH))
                return error_set(reterr, EINVAL, "%s: object nesting exceeds the maximum depth %d",
                                 what, PATCH_MAX_DEPTH);
        if (patch && patch_too_deep(patch, PATCH_MAX_DEPTH))
                return error_set(reterr, EINVAL, "%s: patch nesting exceeds the maximum depth %d",
                                 what, PATCH_MAX_DEPTH);
        return 0;
}

/* Deep equality of decoded JSON as Go sees it: integers and reals compare by value, objects
 * regardless of key order. Both values must be depth-checked. */
static inline bool patch_value_equal(const json_t *a, const json_t *b)
{
        const char *key;
        json_t *va;
        size_t i;

        if (a == b)
                return true;
        if (!a || !b)
                return false;
        if (json_is_number(a) && json_is_number(b)) {
                if (json_is_integer(a) && json_is_integer(b))
                        return json_integer_value(a) == json_integer_value(b);
                return json_number_value(a) == json_number_value(b);
        }
        if (json_typeof(a) != json_typeof(b))
                return false;
        switch (json_typeof(a)) {
        case JSON_STRING:
                return json_string_length(a) == json_string_length(b) &&
                       memcmp(json_string_value(a), json_string_value(b), json_string_length(a)) ==
                               0;
        case JSON_OBJECT:
                if (json_object_size(a) != json_object_size(b))
                        return false;
                json_object_foreach((json_t *) a, key, va)
                        if (!patch_value_equal(va, json_object_get(b, key)))
                                return false;
                return true;
        case JSON_ARRAY:
                if (json_array_size(a) != json_array_size(b))
                        return false;
                for (i = 0; i < json_array_size(a); i++)
                        if (!patch_value_equal(json_array_get(a, i), json_array_get(b, i)))
                                return false;
                return true;
        default: /* true, false, null: singletons of one type */
                return true;
        }
}

#endif
