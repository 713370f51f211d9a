/* fuzz-quantity.c: libFuzzer target for quantity_parse and everything a parsed quantity feeds.
 *
 * Invariants checked on every input that parses: what quantity_format prints parses back to an
 * equal value and, in the same format, prints the same again; the canonical form parses back too;
 * integer conversions round up away from zero exactly, and add/sub are exact. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/quantity.h"

static struct quantity parse_or_die(const char *s)
{
        struct quantity q;
        struct error *err = NULL;

        if (quantity_parse(s, &q, &err) < 0)
                abort();
        return q;
}

/* v is value rounded up away from zero: v-1 < q <= v for q > 0, v <= q < v+1 for q < 0. */
static void check_rounding(const struct quantity *q, int64_t v)
{
        struct quantity at, next;
        int sign = quantity_is_zero(q) ? 0 : q->negative ? -1 : 1;

        quantity_from_int64(v, QUANTITY_DECIMAL_SI, &at);
        if (sign == 0) {
                if (v != 0)
                        abort();
                return;
        }
        if (sign > 0) {
                if (v <= 0 || quantity_cmp(&at, q) < 0)
                        abort();
                quantity_from_int64(v - 1, QUANTITY_DECIMAL_SI, &next);
                if (quantity_cmp(&next, q) >= 0)
                        abort();
        } else {
                if (v >= 0 || quantity_cmp(&at, q) > 0)
                        abort();
                quantity_from_int64(v + 1, QUANTITY_DECIMAL_SI, &next);
                if (quantity_cmp(&next, q) <= 0)
                        abort();
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char *s = malloc(size + 1);
        struct quantity q, again, sum, diff;
        struct error *err = NULL;
        char *out, *out2, *canon;
        int64_t v;

        if (!s)
                return 0;
        memcpy(s, data, size);
        s[size] = '\0';
        if (quantity_parse(s, &q, &err) < 0) {
                if (!err || !err->message[0])
                        abort();
                error_free(err);
                free(s);
                return 0;
        }

        /* String() parses back to the same value and is stable from then on. */
        out = quantity_format(&q);
        again = parse_or_die(out);
        if (quantity_cmp(&q, &again) != 0)
                abort();
        /* Stable when the format survives: BinarySI "64000" (62.5Ki) parses back as
         * DecimalSI and then prints "64k", upstream too. */
        out2 = quantity_format(&again);
        if (again.format == q.format && strcmp(out, out2) != 0)
                abort();
        canon = quantity_format_canonical(&q);
        again = parse_or_die(canon);
        if (quantity_cmp(&q, &again) != 0)
                abort();
        free(out);
        free(out2);
        free(canon);

        if (quantity_is_zero(&q) != (strcmp(q.digits, "0") == 0))
                abort();
        if (quantity_value(&q, &v) == 0)
                check_rounding(&q, v);
        (void) quantity_milli_value(&q, &v);
        (void) quantity_scaled_value(&q, -9, &v);

        /* q - q == 0 and (q + q) - q == q, exactly. */
        if (quantity_sub(&q, &q, &diff) != 0 || !quantity_is_zero(&diff))
                abort();
        if (quantity_add(&q, &q, &sum) == 0) {
                if (quantity_sub(&sum, &q, &diff) != 0 || quantity_cmp(&diff, &q) != 0)
                        abort();
        }
        free(s);
        return 0;
}
