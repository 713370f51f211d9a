/* quantity.h: Kubernetes resource.Quantity ("500m", "1Gi", "1e3", "0.5").
 *
 * A quantity is an exact decimal (no floating point anywhere) plus the suffix family the user
 * wrote it in (binary SI, decimal SI or decimal exponent), which decides its canonical form.
 * Parsing follows apimachinery's ParseQuantity; quantity_format prints upstream's String().
 * Integer conversions round away from zero as Value()/MilliValue() do and fail with -ERANGE on
 * overflow of int64 (upstream overflows silently). */
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

/* K8S: resource.ErrFormatWrong, word for word (the API server reports it for most bad input). */
#define QUANTITY_REGEXP_MESSAGE \
 "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
/* K8S: resource.ErrNumeric (no digit where upstream needs an inf.Dec: "Pi", "-Ei", "e-10"). */
#define QUANTITY_NUMERIC_MESSAGE "unable to parse numeric part of quantity"
/* K8S: resource.ErrSuffix ("1i", "32MMi", "1e", "1e99999999999999999999"). */
#define QUANTITY_SUFFIX_MESSAGE "unable to parse quantity's suffix"

/* Longest string quantity_parse looks at; longer input is -ERANGE before any work. */
#define QUANTITY_MAX_LEN 128
/* Most significant digits a quantity holds (after upstream's rounding to nano). */
#define QUANTITY_MAX_DIGITS 63

/* value = sign * digits * 10^exp10. quantity_parse and the builders store digits without
 * leading or trailing zeros ("0" for zero, which is never negative); the other functions also
 * accept unnormalized digits. */
struct quantity {
        bool negative;
        char digits[QUANTITY_MAX_DIGITS + 1]; /* decimal digits of the mantissa, NUL-terminated */
        int32_t exp10;
        enum quantity_format format;
        /* K8S: ParseQuantity keeps the input as the String() cache when it is already in a
         * canonical-looking shape ("1Gi", "100m", but also "+1", "1.500", "05Mi"), and the API
         * server echoes it back. Set only by quantity_parse; quantity_format uses it only while
         * it still parses to this very value and format, so editing the fields above is safe. */
        char text[QUANTITY_MAX_LEN + 1];
};

/* Parses s as ParseQuantity does; on success fills *ret. On bad input returns -EINVAL with
 * QUANTITY_REGEXP_MESSAGE, QUANTITY_SUFFIX_MESSAGE or QUANTITY_NUMERIC_MESSAGE (whichever
 * upstream returns) in *reterr. Returns -ERANGE where upstream would accept but we cannot hold
 * the value: input longer than QUANTITY_MAX_LEN, more than QUANTITY_MAX_DIGITS significant
 * digits, or a power of ten beyond int32. Like upstream, s must not carry whitespace (JSON
 * decoding trims it before parsing). */
int quantity_parse(const char *s, struct quantity *ret, struct error **reterr);
/* Upstream's String(): the kept input text (see `text`) or else the canonical form. Caller
 * frees. */
char *quantity_format(const struct quantity *q);
/* Upstream's CanonicalizeBytes ("0.5" -> "500m", "1024Mi" -> "1Gi", "1.5Gi" -> "1536Mi",
 * "1000E" -> "1e21"). Caller frees. */
char *quantity_format_canonical(const struct quantity *q);
/* Value(): the value rounded up away from zero ("1.1" -> 2, "-1.1" -> -2). -ERANGE on int64
 * overflow. */
int quantity_value(const struct quantity *q, int64_t *ret);
/* MilliValue(): value * 1000 rounded up away from zero (millicores). -ERANGE on overflow. */
int quantity_milli_value(const struct quantity *q, int64_t *ret);
/* ScaledValue(scale): value / 10^scale rounded up away from zero (scale -9 gives nanos).
 * -ERANGE on overflow. */
int quantity_scaled_value(const struct quantity *q, int32_t scale, int64_t *ret);
/* Exact comparison of values (format is ignored): <0, 0, >0. */
int quantity_cmp(const struct quantity *a, const struct quantity *b);
bool quantity_is_zero(const struct quantity *q);
/* NewQuantity(v, format): bytes -> QUANTITY_BINARY_SI, counts -> QUANTITY_DECIMAL_SI. An
 * out-of-range format means QUANTITY_DECIMAL_EXPONENT, as upstream formats unknown formats. */
void quantity_from_int64(int64_t v, enum quantity_format format, struct quantity *ret);
/* NewMilliQuantity(milli, format): millicores -> "500m". */
void quantity_from_milli(int64_t milli, enum quantity_format format, struct quantity *ret);
/* NewScaledQuantity(v, scale): v * 10^scale in QUANTITY_DECIMAL_SI (nanocores: scale -9). */
void quantity_from_scaled(int64_t v, int32_t scale, struct quantity *ret);
/* Add()/Sub(): *ret = a + b or a - b exactly; ret may alias a or b. Like upstream, the result
 * takes b's format when a is zero and a's otherwise. -ERANGE when the exact result needs more
 * than QUANTITY_MAX_DIGITS digits (ret untouched). */
int quantity_add(const struct quantity *a, const struct quantity *b, struct quantity *ret);
int quantity_sub(const struct quantity *a, const struct quantity *b, struct quantity *ret);

/* "DecimalExponent", "BinarySI", "DecimalSI" (upstream's Format strings); NULL if out of range. */
const char *quantity_format_to_string(enum quantity_format f);
/* Inverse of quantity_format_to_string; -EINVAL for anything else. */
int quantity_format_from_string(const char *s, enum quantity_format *ret);

#endif
