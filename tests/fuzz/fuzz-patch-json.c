/* fuzz-patch-json.c: JSON patch on arbitrary documents. The input is the original and the
 * patch (a list of operations), separated by the first NUL byte (or the first newline). No
 * crash, no leak, the original untouched, and a failure leaves the result unset. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/patch.h"
#include "base/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        const uint8_t *sep = memchr(data, '\0', size);
        json_t *original = NULL, *patch = NULL, *result = NULL;
        struct error *err = NULL;
        json_error_t jerr;
        char *before, *after;
        size_t n;

        if (!sep)
                sep = memchr(data, '\n', size);
        if (!sep)
                return 0;
        n = (size_t) (sep - data);
        original = json_loadb((const char *) data, n, JSON_DECODE_ANY, &jerr);
        patch = json_loadb((const char *) sep + 1, size - n - 1, JSON_DECODE_ANY, &jerr);
        if (!original || !patch)
                goto out;
        before = json_dump_compact(original);
        if (patch_json(original, patch, &result, &err) < 0) {
                if (result || !err)
                        abort();
        } else if (!result || err) {
                abort();
        }
        after = json_dump_compact(original);
        if (strcmp(before, after))
                abort();
        free(before);
        free(after);
out:
        error_free(err);
        json_decref(result);
        json_decref(original);
        json_decref(patch);
        return 0;
}
