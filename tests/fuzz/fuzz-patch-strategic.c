/* fuzz-patch-strategic.c: strategic merge patch and server-side apply on arbitrary documents.
 * The input is two JSON documents, the original and the patch, separated by the first NUL byte
 * (or, when there is none, the first newline). Both run against the real Pod schema: no crash,
 * no leak, inputs untouched, and no directive ever reaches the result of an original that had
 * none. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/patch.h"
#include "api/schemas.h"
#include "base/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool is_directive(const char *key)
{
        return !strcmp(key, "$patch") || !strcmp(key, "$retainKeys") ||
               !strncmp(key, "$setElementOrder", 16) ||
               !strncmp(key, "$deleteFromPrimitiveList", 24);
}

static bool has_directive(const json_t *v)
{
        const char *key;
        json_t *child;
        size_t i;

        if (json_is_object(v)) {
                json_object_foreach((json_t *) v, key, child)
                        if (is_directive(key) || has_directive(child))
                                return true;
        } else if (json_is_array(v)) {
                json_array_foreach(v, i, child)
                        if (has_directive(child))
                                return true;
        }
        return false;
}

static void split(const uint8_t *data, size_t size, json_t **a, json_t **b)
{
        const uint8_t *sep = memchr(data, '\0', size);
        json_error_t jerr;
        size_t n;

        if (!sep)
                sep = memchr(data, '\n', size);
        n = sep ? (size_t) (sep - data) : size;
        *a = json_loadb((const char *) data, n, JSON_DECODE_ANY, &jerr);
        *b = sep ? json_loadb((const char *) sep + 1, size - n - 1, JSON_DECODE_ANY, &jerr) : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        json_t *original, *patch, *result = NULL;
        char *before, *pbefore, *after, *pafter;
        struct error *err = NULL;
        bool clean;

        split(data, size, &original, &patch);
        if (!original || !patch)
                goto out;
        before = json_dump_compact(original);
        pbefore = json_dump_compact(patch);
        clean = !has_directive(original);

        if (patch_strategic_merge(original, patch, &schema_pod, &result, &err) >= 0) {
                if (clean && has_directive(result))
                        abort();
                json_decref(result);
                result = NULL;
        }
        err = error_free(err);
        if (patch_apply(json_is_object(original) ? original : NULL, patch, &schema_pod, &result,
                        &err) >= 0) {
                json_decref(result);
                result = NULL;
        }
        err = error_free(err);

        after = json_dump_compact(original);
        pafter = json_dump_compact(patch);
        if (strcmp(before, after) || strcmp(pbefore, pafter))
                abort();
        free(before);
        free(after);
        free(pbefore);
        free(pafter);
out:
        json_decref(original);
        json_decref(patch);
        return 0;
}
