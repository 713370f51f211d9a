/* fuzz-decode.c: arbitrary bytes, parsed as JSON, through schema_check against the Pod schema,
 * and a copy against one of the Node, Event and Namespace schemas: no crash, no leak, and the
 * checked value still encodes. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "api/schema.h"
#include "api/schemas.h"
#include "base/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_one(const struct schema *s, json_t *v)
{
        struct error *err = NULL;
        struct strbuf unknown;
        char *out;

        strbuf_init(&unknown);
        (void) schema_check(s, v, "", &unknown, &err);
        out = json_dump_compact(v);
        free(out);
        error_free(err);
        strbuf_release(&unknown);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        static const struct schema *const others[] = { &schema_node, &schema_event,
                                                       &schema_namespace };
        json_error_t jerr;
        json_t *v, *copy;

        v = json_loadb((const char *) data, size, JSON_DECODE_ANY, &jerr);
        if (!v)
                return 0;
        copy = json_deep_copy(v);
        check_one(&schema_pod, v);
        check_one(others[size % 3], copy);
        json_decref(copy);
        json_decref(v);
        return 0;
}
