/* quantity.h: Kubernetes resource.Quantity ("500m", "1Gi", "1e3", "0.5").
 *
 * A quantity is an exact decimal (no floating point anywhere) plus the suffix family the user
 * wrote it in (binary SI, decimal SI or decimal exponent), which decides its canonical form.
 * Parsing follows apimachinery's ParseQuantity; quantity_format prints upstream's canonical
 * String(). Integer conversions round up as Value()/MilliValue() do and fail with -ERANGE on
 * overflow of int64. */
#ifndef FLEXLET_BASE_QUANTITY_H
#define FLEXLET_BASE_QUANTITY_H

#include <stdbool.h>
#include <stdint.h>
#include "base/error.h"

enum quantity_format {
        QUANTITY_DECIMAL_EXPONENT, /* 12e6 */
        QUANTITY_BINARY_SI,        /* Ki, Mi, Gi, Ti, Pi, Ei */
        QUANTITY_DECIMAL_SI,       /* n, u, m, "", k, M, G, T, P, E */
        QUANTITY_FORMAT_MAX,
};

/* K8S: resource.Quantity's parse error, word for word. */
#define QUANTITY_REGEXP_MESSAGE                                                                    \
        "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"

/* value = sign * digits * 10^exp10, digits without leading zeros (or "0"). */
struct quantity {
        bool negative;
        char digits[64]; /* decimal digits of the mantissa, NUL-terminated */
        int32_t exp10;
        enum quantity_format format;
};

/* Parses s. On bad input returns -EINVAL with QUANTITY_REGEXP_MESSAGE (or upstream's other
 * parse messages) in *reterr; a mantissa too long for the struct is -ERANGE. */
int quantity_parse(const char *s, struct quantity *ret, struct error **reterr);
/* Upstream's canonical String() (e.g. "0.5" -> "500m", "1024Mi" -> "1Gi"); caller frees. */
char *quantity_format(const struct quantity *q);
/* Ceil(value) as int64 (bytes, counts). -ERANGE on overflow. */
int quantity_value(const struct quantity *q, int64_t *ret);
/* Ceil(value * 1000) as int64 (millicores). -ERANGE on overflow. */
int quantity_milli_value(const struct quantity *q, int64_t *ret);
/* Exact comparison: <0, 0, >0. */
int quantity_cmp(const struct quantity *a, const struct quantity *b);
bool quantity_is_zero(const struct quantity *q);
/* Builds a quantity from an integer value in the given format (bytes -> BinarySI, etc.). */
void quantity_from_int64(int64_t v, enum quantity_format format, struct quantity *ret);
/* Builds a quantity from millis (millicores -> "500m"). */
void quantity_from_milli(int64_t milli, enum quantity_format format, struct quantity *ret);

const char *quantity_format_to_string(enum quantity_format f);

#endif
