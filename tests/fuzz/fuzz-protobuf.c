/* fuzz-protobuf.c: arbitrary bytes through the protobuf decoder, as an enveloped object of any
 * kind (pb_decode_object) and as a bare Pod message (pb_decode): no crash, no leak, no read past
 * the end; and whatever decodes must encode again and decode to the same JSON (the codec's
 * round trip holds for everything it accepts). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "api/protobuf.h"
#include "api/schemas.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_round_trip(const struct schema *s, const json_t *obj, bool enveloped)
{
        struct error *err = NULL;
        struct strbuf sb;
        json_t *again = NULL;
        int r;

        strbuf_init(&sb);
        r = enveloped ? pb_encode_object(s, obj, &sb, &err) : pb_encode(s, obj, &sb, &err);
        if (r < 0)
                abort(); /* what decodes must encode */
        r = enveloped ? pb_decode_object(sb.buf, sb.len, &again, &err)
                      : pb_decode(s, sb.buf, sb.len, &again, &err);
        if (r < 0 || !json_equal(obj, again))
                abort(); /* and decode to the same value */
        json_decref(again);
        strbuf_release(&sb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct error *err = NULL;
        json_t *obj = NULL;

        if (pb_decode_object(data, size, &obj, &err) == 0) {
                const char *kind = json_string_value(json_object_get(obj, "kind"));
                check_round_trip(pb_schema_for_kind(kind), obj, true);
                json_decref(obj);
        }
        err = error_free(err);
        obj = NULL;
        if (pb_decode(&schema_pod, data, size, &obj, &err) == 0) {
                check_round_trip(&schema_pod, obj, false);
                json_decref(obj);
        }
        error_free(err);
        return 0;
}
