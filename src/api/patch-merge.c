/* patch-merge.c: JSON merge patch (RFC 7386), application/merge-patch+json.
 *
 * Works on a private deep copy of the original; values taken from the patch are copied with the
 * nulls of their objects pruned, as evanphx/json-patch (kube-apiserver's engine) stores them.
 * Schema-free by definition: lists are always replaced. */
#include <errno.h>

#include "api/patch-internal.h"
#include "api/patch.h"

/* A copy of v whose objects, at any depth (also inside arrays), have no null members. */
static json_t *pruned_copy(const json_t *v)
{
        const char *key;
        json_t *child, *out;
        size_t i;

        if (json_is_object(v)) {
                out = patch_checked(json_object());
                json_object_foreach((json_t *) v, key, child)
                        if (!json_is_null(child))
                                patch_object_set(out, key, pruned_copy(child));
                return out;
        }
        if (json_is_array(v)) {
                out = patch_checked(json_array());
                json_array_foreach(v, i, child)
                        patch_array_append(out, pruned_copy(child));
                return out;
        }
        return patch_copy(v);
}

/* RFC 7386 MergePatch(target, patch). target is consumed (may be NULL: absent); returns the new
 * target. The recursion follows the patch, whose depth was checked. */
static json_t *merge_into(json_t *target, const json_t *patch)
{
        const char *key;
        json_t *value;

        if (!json_is_object(patch)) {
                json_decref(target);
                return pruned_copy(patch);
        }
        if (!json_is_object(target)) {
                /* K8S/RFC 7386: a non-object target is replaced by an empty object first. */
                json_decref(target);
                target = patch_checked(json_object());
        }
        json_object_foreach((json_t *) patch, key, value) {
                json_t *cur;

                if (json_is_null(value)) {
                        json_object_del(target, key);
                        continue;
                }
                cur = json_incref(json_object_get(target, key));
                patch_object_set(target, key, merge_into(cur, value));
        }
        return target;
}

int patch_merge(const json_t *original, const json_t *patch, json_t **ret, struct error **reterr)
{
        int r;

        if (!patch)
                return error_set(reterr, EINVAL, "merge patch: no patch document");
        r = patch_check_depth(original, patch, "merge patch", reterr);
        if (r < 0)
                return r;
        *ret = merge_into(original ? patch_copy(original) : NULL, patch);
        return 0;
}
