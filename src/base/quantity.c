/* quantity.c: Kubernetes resource.Quantity, parsed, compared, converted and printed exactly.
 *
 * Mirrors k8s.io/apimachinery/pkg/api/resource (quantity.go, suffix.go, amount.go, math.go) with
 * decimal digit strings instead of int64Amount/inf.Dec: no floating point anywhere. Values are
 * held as sign * digits * 10^exp; every loop is bounded by QUANTITY_MAX_LEN-sized buffers, never
 * by an exponent, so "1e2000000000" costs as little as "1". Not here: JSON decoding. */
#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/quantity.h"

/* Working digits: a parsed mantissa (<= QUANTITY_MAX_LEN digits) times 2^60 (19 more digits). */
#define WORK_DIGITS (QUANTITY_MAX_LEN + 32)
/* K8S: ParseQuantity rounds finer values away from zero to nano (10^-9). */
#define NANO_EXP (-9)
/* K8S: maxAllowed, the cap on a BinarySI magnitude (2^63-1). */
#define MAX_INT64_DIGITS "9223372036854775807"
/* Room for any canonical string: sign, digits, two padding zeros, "e-9223372036854775808". */
#define FORMAT_BUF (QUANTITY_MAX_DIGITS + 32)

/* sign * d[0..n) * 10^e. Normalized: no leading zeros; zero is n == 0. */
struct decimal {
        bool neg;
        size_t n;
        int64_t e;
        char d[WORK_DIGITS];
};

static bool is_digit(char c)
{
        return c >= '0' && c <= '9';
}

static void decimal_strip_trailing_zeros(struct decimal *v)
{
        while (v->n > 0 && v->d[v->n - 1] == '0') {
                v->n--;
                v->e++;
        }
        if (v->n == 0) {
                v->neg = false;
                v->e = 0;
        }
}

/* Appends digits, dropping leading zeros of the whole number. */
static void decimal_append(struct decimal *v, const char *p, size_t len)
{
        for (size_t i = 0; i < len; i++) {
                if (v->n == 0 && p[i] == '0')
                        continue;
                assert(v->n < sizeof(v->d));
                v->d[v->n++] = p[i];
        }
}

/* Reads a struct quantity (normalized or not) into a normalized decimal. */
static void decimal_load(const struct quantity *q, struct decimal *ret)
{
        size_t len = strnlen(q->digits, sizeof(q->digits));

        ret->neg = q->negative;
        ret->n = 0;
        ret->e = q->exp10;
        for (size_t i = 0; i < len; i++)
                assert(is_digit(q->digits[i]));
        decimal_append(ret, q->digits, len);
        decimal_strip_trailing_zeros(ret);
}

/* Stores a normalized decimal; -ERANGE if it does not fit the struct. */
static int decimal_store(const struct decimal *v, enum quantity_format format, struct quantity *ret)
{
        if (v->n > QUANTITY_MAX_DIGITS || v->e > INT32_MAX || v->e < INT32_MIN)
                return -ERANGE;
        memset(ret, 0, sizeof(*ret));
        ret->negative = v->n > 0 && v->neg;
        if (v->n == 0) {
                ret->digits[0] = '0';
        } else {
                memcpy(ret->digits, v->d, v->n);
        }
        ret->exp10 = (int32_t) v->e;
        ret->format = format;
        return 0;
}

/* Compares magnitudes of two normalized decimals. */
static int decimal_cmp_abs(const struct decimal *a, const struct decimal *b)
{
        int64_t pa, pb;
        size_t len;

        if (a->n == 0 || b->n == 0)
                return (a->n > 0) - (b->n > 0);
        /* Position just above the leading digit: 10^(pos-1) <= |v| < 10^pos. */
        pa = (int64_t) a->n + a->e;
        pb = (int64_t) b->n + b->e;
        if (pa != pb)
                return pa < pb ? -1 : 1;
        len = a->n > b->n ? a->n : b->n;
        for (size_t i = 0; i < len; i++) {
                char ca = i < a->n ? a->d[i] : '0';
                char cb = i < b->n ? b->d[i] : '0';

                if (ca != cb)
                        return ca < cb ? -1 : 1;
        }
        return 0;
}

static int decimal_cmp(const struct decimal *a, const struct decimal *b)
{
        bool aneg = a->n > 0 && a->neg, bneg = b->n > 0 && b->neg;

        if (aneg != bneg)
                return aneg ? -1 : 1;
        return aneg ? -decimal_cmp_abs(a, b) : decimal_cmp_abs(a, b);
}

/* Adds 1 to the last digit, carrying; may grow by one digit. */
static void decimal_increment(struct decimal *v)
{
        size_t i = v->n;

        while (i > 0) {
                i--;
                if (v->d[i] != '9') {
                        v->d[i]++;
                        return;
                }
                v->d[i] = '0';
        }
        assert(v->n < sizeof(v->d));
        memmove(v->d + 1, v->d, v->n);
        v->d[0] = '1';
        v->n++;
}

/* Multiplies the magnitude by a small factor. */
static void decimal_mul_small(struct decimal *v, unsigned factor)
{
        char out[WORK_DIGITS] = { 0 };
        size_t len = 0;
        unsigned carry = 0;

        /* Digits come out least significant first, then get reversed. */
        for (size_t i = v->n; i > 0; i--) {
                unsigned x = (unsigned) (v->d[i - 1] - '0') * factor + carry;

                out[len++] = (char) ('0' + x % 10);
                carry = x / 10;
        }
        while (carry > 0) {
                assert(len < sizeof(out));
                out[len++] = (char) ('0' + carry % 10);
                carry /= 10;
        }
        for (size_t i = 0; i < len; i++)
                v->d[i] = out[len - 1 - i];
        v->n = len;
}

/* K8S: ParseQuantity rounds a non-zero value finer than nano up (away from zero) to nano. */
static void decimal_round_to_nano(struct decimal *v)
{
        uint64_t cut;
        bool inexact = false;

        if (v->n == 0 || v->e >= NANO_EXP)
                return;
        cut = (uint64_t) (NANO_EXP - v->e);
        if (cut >= v->n) {
                v->d[0] = '1';
                v->n = 1;
                v->e = NANO_EXP;
                return;
        }
        for (size_t i = v->n - cut; i < v->n; i++)
                inexact |= v->d[i] != '0';
        v->n -= cut;
        v->e = NANO_EXP;
        if (inexact)
                decimal_increment(v);
}

/* Magnitude as uint64 if it is an integer that fits. */
static bool decimal_to_u64(const struct decimal *v, uint64_t *ret)
{
        uint64_t x = 0;

        if (v->e < 0 && v->n > 0)
                return false;
        for (size_t i = 0; i < v->n; i++)
                if (__builtin_mul_overflow(x, 10, &x) ||
                    __builtin_add_overflow(x, (uint64_t) (v->d[i] - '0'), &x))
                        return false;
        for (int64_t i = 0; v->n > 0 && i < v->e; i++)
                if (__builtin_mul_overflow(x, 10, &x))
                        return false;
        *ret = x;
        return true;
}

static void decimal_from_u64(uint64_t x, bool neg, struct decimal *ret)
{
        char buf[24];
        int len = snprintf(buf, sizeof(buf), "%llu", (unsigned long long) x);

        ret->neg = neg;
        ret->n = 0;
        ret->e = 0;
        decimal_append(ret, buf, (size_t) len);
        decimal_strip_trailing_zeros(ret);
}

/* Go's strconv.ParseInt(s, 10, 64): optional sign, at least one digit, no overflow. */
static bool parse_int64(const char *s, size_t len, int64_t *ret)
{
        size_t i = 0;
        bool neg = false;
        uint64_t x = 0, limit;

        if (i < len && (s[i] == '+' || s[i] == '-'))
                neg = s[i++] == '-';
        if (i == len)
                return false;
        limit = neg ? (uint64_t) INT64_MAX + 1 : (uint64_t) INT64_MAX;
        for (; i < len; i++) {
                if (!is_digit(s[i]))
                        return false;
                if (__builtin_mul_overflow(x, 10, &x) ||
                    __builtin_add_overflow(x, (uint64_t) (s[i] - '0'), &x) || x > limit)
                        return false;
        }
        *ret = neg ? (int64_t) (0 - x) : (int64_t) x;
        return true;
}

/* Go's int32(x): keeps the low 32 bits, two's complement. */
static int32_t truncate_int32(int64_t x)
{
        uint32_t u = (uint32_t) (uint64_t) x;

        return u <= INT32_MAX ? (int32_t) u : -(int32_t) (UINT32_MAX - u) - 1;
}

/* K8S: suffixer.interpret. Base 2 exponents are powers of two (10 for Ki). */
static bool suffix_interpret(const char *s, size_t len, int *ret_base, int32_t *ret_exp,
                             enum quantity_format *ret_format)
{
        static const struct {
                const char *suffix;
                int base;
                int32_t exp;
        } table[] = {
                { "", 10, 0 },   { "n", 10, -9 }, { "u", 10, -6 }, { "m", 10, -3 },
                { "k", 10, 3 },  { "M", 10, 6 },  { "G", 10, 9 },  { "T", 10, 12 },
                { "P", 10, 15 }, { "E", 10, 18 }, { "Ki", 2, 10 }, { "Mi", 2, 20 },
                { "Gi", 2, 30 }, { "Ti", 2, 40 }, { "Pi", 2, 50 }, { "Ei", 2, 60 },
        };
        int64_t x;

        for (size_t i = 0; i < ARRAY_SIZE(table); i++) {
                if (strlen(table[i].suffix) == len && memcmp(table[i].suffix, s, len) == 0) {
                        *ret_base = table[i].base;
                        *ret_exp = table[i].exp;
                        *ret_format = table[i].base == 2 ? QUANTITY_BINARY_SI : QUANTITY_DECIMAL_SI;
                        return true;
                }
        }
        /* K8S: "e"/"E" then strconv.ParseInt(rest, 10, 64), narrowed to int32 as upstream does. */
        if (len > 1 && (s[0] == 'e' || s[0] == 'E') && parse_int64(s + 1, len - 1, &x)) {
                *ret_base = 10;
                *ret_exp = truncate_int32(x);
                *ret_format = QUANTITY_DECIMAL_EXPONENT;
                return true;
        }
        return false;
}

static bool suffix_char(char c)
{
        return c != '\0' && strchr("eEinumkKMGTP", c) != NULL;
}

int quantity_parse(const char *s, struct quantity *ret, struct error **reterr)
{
        struct quantity q;
        struct decimal v;
        size_t end, pos = 0, num_start, num_len, denom_start = 0, denom_len = 0, suffix_start;
        bool positive = true, has_digit = false, fast = false, keep_text = false;
        enum quantity_format format;
        int32_t exponent;
        int base;

        end = strnlen(s, QUANTITY_MAX_LEN + 1);
        if (end > QUANTITY_MAX_LEN)
                return error_set(reterr, ERANGE, "quantity is longer than %d characters",
                                 QUANTITY_MAX_LEN);
        if (end == 0)
                return error_set(reterr, EINVAL, "%s", QUANTITY_REGEXP_MESSAGE);

        /* K8S: parseQuantityString: sign, zeros, numerator, "." denominator, suffix letters,
         * then an optional sign and digits; anything after that is ErrFormatWrong. */
        if (s[0] == '-' || s[0] == '+') {
                positive = s[0] == '+';
                pos++;
        }
        while (pos < end && s[pos] == '0') {
                has_digit = true;
                pos++;
        }
        num_start = pos;
        while (pos < end && is_digit(s[pos]))
                pos++;
        num_len = pos - num_start;
        if (pos < end && s[pos] == '.') {
                denom_start = ++pos;
                while (pos < end && is_digit(s[pos]))
                        pos++;
                denom_len = pos - denom_start;
        }
        has_digit = has_digit || num_len > 0 || denom_len > 0;
        suffix_start = pos;
        while (pos < end && suffix_char(s[pos]))
                pos++;
        if (pos < end && (s[pos] == '-' || s[pos] == '+'))
                pos++;
        while (pos < end && is_digit(s[pos]))
                pos++;
        if (pos < end)
                return error_set(reterr, EINVAL, "%s", QUANTITY_REGEXP_MESSAGE);

        if (!suffix_interpret(s + suffix_start, end - suffix_start, &base, &exponent, &format))
                return error_set(reterr, EINVAL, "%s", QUANTITY_SUFFIX_MESSAGE);

        /* K8S: ParseQuantity's int64 fast path. It yields the same value as the inf.Dec path
         * below, but it is the only path that keeps the input as the String() cache, and the
         * inf.Dec path fails with ErrNumeric when the number has no digit at all. */
        if (base == 10) {
                int64_t scale = (int64_t) exponent - (int64_t) denom_len;

                if ((num_len > 0 ? num_len : 1) + denom_len <= 18 && scale >= NANO_EXP) {
                        char shifted[40];

                        fast = true;
                        memcpy(shifted, s + num_start, num_len);
                        memcpy(shifted + num_len, s + denom_start, denom_len);
                        /* K8S: scale%3 == 0 && !HasSuffix(shifted, "000") && shifted[0] != '0' */
                        keep_text = scale % 3 == 0 && num_len > 0 &&
                                    !(num_len + denom_len >= 3 &&
                                      memcmp(shifted + num_len + denom_len - 3, "000", 3) == 0);
                }
        } else if (denom_len == 0 &&
                   15 - (int) (num_len > 0 ? num_len : 1) - exponent * 3 / 10 - 1 >= 0) {
                int64_t mantissa = 0;

                fast = true;
                for (size_t i = 0; i < num_len; i++)
                        mantissa = mantissa * 10 + (s[num_start + i] - '0');
                /* K8S: exponent%10 == 0 && value&0x07 != 0 */
                keep_text = (mantissa & 0x07) != 0;
        }
        if (!fast && !has_digit)
                return error_set(reterr, EINVAL, "%s", QUANTITY_NUMERIC_MESSAGE);

        v.neg = !positive;
        v.n = 0;
        decimal_append(&v, s + num_start, num_len);
        decimal_append(&v, s + denom_start, denom_len);
        v.e = -(int64_t) denom_len;
        if (base == 10) {
                v.e += exponent;
        } else {
                for (int32_t i = 0; i < exponent && v.n > 0; i += 10)
                        decimal_mul_small(&v, 1024);
        }
        decimal_round_to_nano(&v);
        decimal_strip_trailing_zeros(&v);
        if (format == QUANTITY_BINARY_SI && v.n > 0) {
                struct decimal max = { .n = strlen(MAX_INT64_DIGITS) };

                memcpy(max.d, MAX_INT64_DIGITS, max.n);
                /* K8S: "the max is just a simple cap" for BinarySI. */
                if (decimal_cmp_abs(&v, &max) > 0) {
                        max.neg = v.neg;
                        v = max;
                }
                /* K8S: a BinarySI value strictly between -1 and 1 becomes DecimalSI. */
                if ((int64_t) v.n + v.e <= 0)
                        format = QUANTITY_DECIMAL_SI;
        }
        if (v.n > QUANTITY_MAX_DIGITS)
                return error_set(reterr, ERANGE,
                                 "quantity \"%s\" has more than %d significant digits", s,
                                 QUANTITY_MAX_DIGITS);
        if (decimal_store(&v, format, &q) < 0)
                return error_set(reterr, ERANGE, "quantity \"%s\" is out of range", s);
        /* K8S: ParseQuantity("0") is special-cased and keeps its string too. */
        if (keep_text || (end == 1 && s[0] == '0'))
                memcpy(q.text, s, end + 1);
        *ret = q;
        return 0;
}

/* Writes upstream's CanonicalizeBytes result for v into buf (FORMAT_BUF bytes). */
static void format_decimal(const struct decimal *v, enum quantity_format format, char *buf)
{
        static const char *const si[] = { "n", "u", "m", "", "k", "M", "G", "T", "P", "E" };
        static const char *const bin[] = { "", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei" };
        char *p = buf;
        int64_t e;
        size_t pad;

        if (v->n == 0) {
                strcpy(buf, "0");
                return;
        }
        if (format >= QUANTITY_FORMAT_MAX)
                format = QUANTITY_DECIMAL_EXPONENT;
        if (format == QUANTITY_BINARY_SI) {
                uint64_t x;
                unsigned k = 0;

                /* K8S: BinarySI strictly between -1024 and 1024, or not a whole number, is
                 * printed as DecimalSI so no precision is lost. */
                if (!decimal_to_u64(v, &x) || x < 1024 || x > (uint64_t) INT64_MAX + 1) {
                        format = QUANTITY_DECIMAL_SI;
                } else if (x == (uint64_t) INT64_MAX + 1) {
                        /* K8S: removeInt64Factors cannot negate MinInt64, so
                         * NewQuantity(MinInt64, BinarySI) prints all its digits. */
                        snprintf(buf, FORMAT_BUF, "%s%llu", v->neg ? "-" : "",
                                 (unsigned long long) x);
                        return;
                } else {
                        while (x >= 1024 && x % 1024 == 0) {
                                x /= 1024;
                                k++;
                        }
                        assert(k < ARRAY_SIZE(bin));
                        snprintf(buf, FORMAT_BUF, "%s%llu%s", v->neg ? "-" : "",
                                 (unsigned long long) x, bin[k]);
                        return;
                }
        }

        /* K8S: AsCanonicalBytes: all factors of ten go to the exponent, which then moves down
         * to a multiple of three. */
        assert(v->n <= QUANTITY_MAX_DIGITS);
        pad = (size_t) (((v->e % 3) + 3) % 3);
        e = v->e - (int64_t) pad;
        if (v->neg)
                *p++ = '-';
        memcpy(p, v->d, v->n);
        p += v->n;
        memset(p, '0', pad);
        p += pad;
        /* K8S: DecimalSI has suffixes from n to E only; beyond them it falls back to the
         * decimal exponent ("1000E" -> "1e21") instead of dropping the exponent. */
        if (format == QUANTITY_DECIMAL_SI && e >= -9 && e <= 18)
                strcpy(p, si[(e + 9) / 3]);
        else if (e == 0)
                *p = '\0';
        else
                snprintf(p, FORMAT_BUF - (size_t) (p - buf), "e%lld", (long long) e);
}

char *quantity_format_canonical(const struct quantity *q)
{
        struct decimal v;
        char buf[FORMAT_BUF];

        decimal_load(q, &v);
        format_decimal(&v, q->format, buf);
        return xstrdup(buf);
}

char *quantity_format(const struct quantity *q)
{
        struct quantity cached;

        /* K8S: String() returns the string ParseQuantity kept. Only trust it while it still
         * describes this value in this format. */
        if (q->text[0] != '\0' && memchr(q->text, '\0', sizeof(q->text)) &&
            quantity_parse(q->text, &cached, NULL) >= 0 && cached.format == q->format &&
            quantity_cmp(&cached, q) == 0)
                return xstrdup(q->text);
        return quantity_format_canonical(q);
}

int quantity_scaled_value(const struct quantity *q, int32_t scale, int64_t *ret)
{
        struct decimal v;
        uint64_t x = 0;
        int64_t pos;
        size_t int_digits;
        bool fraction;

        decimal_load(q, &v);
        if (v.n == 0) {
                *ret = 0;
                return 0;
        }
        v.e -= scale;
        pos = (int64_t) v.n + v.e;
        if (pos > 20)
                return -ERANGE;
        /* K8S: int64Amount.AsScaledInt64 rounds up away from zero. */
        int_digits = pos <= 0 ? 0 : (size_t) pos < v.n ? (size_t) pos : v.n;
        fraction = int_digits < v.n;
        for (size_t i = 0; i < int_digits; i++)
                if (__builtin_mul_overflow(x, 10, &x) ||
                    __builtin_add_overflow(x, (uint64_t) (v.d[i] - '0'), &x))
                        return -ERANGE;
        for (int64_t i = 0; i < v.e; i++)
                if (__builtin_mul_overflow(x, 10, &x))
                        return -ERANGE;
        if (fraction && __builtin_add_overflow(x, 1, &x))
                return -ERANGE;
        if (x > (v.neg ? (uint64_t) INT64_MAX + 1 : (uint64_t) INT64_MAX))
                return -ERANGE;
        *ret = v.neg ? (int64_t) (0 - x) : (int64_t) x;
        return 0;
}

int quantity_value(const struct quantity *q, int64_t *ret)
{
        return quantity_scaled_value(q, 0, ret);
}

int quantity_milli_value(const struct quantity *q, int64_t *ret)
{
        return quantity_scaled_value(q, -3, ret);
}

int quantity_cmp(const struct quantity *a, const struct quantity *b)
{
        struct decimal va, vb;

        decimal_load(a, &va);
        decimal_load(b, &vb);
        return decimal_cmp(&va, &vb);
}

bool quantity_is_zero(const struct quantity *q)
{
        for (size_t i = 0; i < sizeof(q->digits) && q->digits[i] != '\0'; i++)
                if (q->digits[i] != '0')
                        return false;
        return true;
}

/* Builds v * 10^scale; keeps trailing zeros in the digits if the exponent would not fit. */
static void quantity_from_parts(int64_t v, int64_t scale, enum quantity_format format,
                                struct quantity *ret)
{
        struct decimal d;
        uint64_t x = v < 0 ? 0 - (uint64_t) v : (uint64_t) v;

        if (format >= QUANTITY_FORMAT_MAX)
                format = QUANTITY_DECIMAL_EXPONENT;
        decimal_from_u64(x, v < 0, &d);
        if (d.n > 0)
                d.e += scale;
        if (d.e > INT32_MAX) {
                /* 10^scale near INT32_MAX: keep v's trailing zeros in the digits instead. */
                d.n = (size_t) snprintf(d.d, sizeof(d.d), "%llu", (unsigned long long) x);
                d.e = scale;
        }
        /* Cannot fail: at most 20 digits, exponent checked above. */
        (void) decimal_store(&d, format, ret);
}

void quantity_from_int64(int64_t v, enum quantity_format format, struct quantity *ret)
{
        quantity_from_parts(v, 0, format, ret);
}

void quantity_from_milli(int64_t milli, enum quantity_format format, struct quantity *ret)
{
        quantity_from_parts(milli, -3, format, ret);
}

void quantity_from_scaled(int64_t v, int32_t scale, struct quantity *ret)
{
        quantity_from_parts(v, scale, QUANTITY_DECIMAL_SI, ret);
}

/* |a| + |b| or |a| - |b| (|a| >= |b|) into ret, with a's sign; operands normalized. */
static int decimal_add_abs(const struct decimal *a, const struct decimal *b, bool subtract,
                           struct decimal *ret)
{
        int64_t lo = a->e < b->e ? a->e : b->e;
        int64_t hi = (int64_t) a->n + a->e;
        int carry = 0;
        char out[WORK_DIGITS];
        size_t len = 0;

        if ((int64_t) b->n + b->e > hi)
                hi = (int64_t) b->n + b->e;
        /* Operands hold at most QUANTITY_MAX_DIGITS digits each, so a wider span means the
         * exact result has more digits than a quantity holds (see quantity_add). */
        if (hi - lo > QUANTITY_MAX_DIGITS + 2)
                return -ERANGE;
        for (int64_t p = lo; p < hi; p++) {
                int64_t ia = (int64_t) a->n - 1 - (p - a->e), ib = (int64_t) b->n - 1 - (p - b->e);
                int da = ia >= 0 && ia < (int64_t) a->n ? a->d[ia] - '0' : 0;
                int db = ib >= 0 && ib < (int64_t) b->n ? b->d[ib] - '0' : 0;
                int x = subtract ? da - db - carry : da + db + carry;

                if (subtract) {
                        carry = x < 0;
                        x += carry ? 10 : 0;
                } else {
                        carry = x >= 10;
                        x -= carry ? 10 : 0;
                }
                out[len++] = (char) ('0' + x);
        }
        assert(!subtract || carry == 0);
        if (carry)
                out[len++] = '1';
        ret->neg = a->neg;
        ret->n = 0;
        ret->e = lo;
        for (size_t i = len; i > 0; i--)
                decimal_append(ret, &out[i - 1], 1);
        decimal_strip_trailing_zeros(ret);
        return 0;
}

static int quantity_add_signed(const struct quantity *a, const struct quantity *b, bool negate_b,
                               struct quantity *ret)
{
        struct decimal va, vb, sum;
        enum quantity_format format = quantity_is_zero(a) ? b->format : a->format;
        int r;

        decimal_load(a, &va);
        decimal_load(b, &vb);
        vb.neg = vb.n > 0 && (vb.neg != negate_b);
        if (va.neg == vb.neg)
                r = decimal_add_abs(&va, &vb, false, &sum);
        else if (decimal_cmp_abs(&va, &vb) >= 0)
                r = decimal_add_abs(&va, &vb, true, &sum);
        else
                r = decimal_add_abs(&vb, &va, true, &sum);
        if (r < 0)
                return r;
        return decimal_store(&sum, format, ret);
}

int quantity_add(const struct quantity *a, const struct quantity *b, struct quantity *ret)
{
        return quantity_add_signed(a, b, false, ret);
}

int quantity_sub(const struct quantity *a, const struct quantity *b, struct quantity *ret)
{
        return quantity_add_signed(a, b, true, ret);
}

static const char *const format_names[QUANTITY_FORMAT_MAX] = {
        [QUANTITY_DECIMAL_EXPONENT] = "DecimalExponent",
        [QUANTITY_BINARY_SI] = "BinarySI",
        [QUANTITY_DECIMAL_SI] = "DecimalSI",
};

const char *quantity_format_to_string(enum quantity_format f)
{
        if ((unsigned) f >= QUANTITY_FORMAT_MAX)
                return NULL;
        return format_names[f];
}

int quantity_format_from_string(const char *s, enum quantity_format *ret)
{
        for (size_t i = 0; i < QUANTITY_FORMAT_MAX; i++) {
                if (streq(s, format_names[i])) {
                        *ret = (enum quantity_format) i;
                        return 0;
                }
        }
        return -EINVAL;
}
