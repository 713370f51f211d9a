/* test-quantity.c: resource.Quantity parsing, printing, comparison and conversions.
 *
 * The tables are ported from apimachinery's pkg/api/resource/quantity_test.go
 * (TestQuantityParse, TestQuantityString, TestQuantityParseEmit, TestParseQuantity,
 * TestNewSet, TestMilliNewSet, TestNewScaledSet, TestScaledValue, TestQuantityCmp,
 * TestQuantityCmpInt64AndDec, TestAdd, TestSub); the expected values are upstream's. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "base/quantity.h"

#define DEC  QUANTITY_DECIMAL_SI
#define BIN  QUANTITY_BINARY_SI
#define EXPF QUANTITY_DECIMAL_EXPONENT

/* A quantity from a mantissa string and an exponent, like upstream's decQuantity(). */
static struct quantity mkq(const char *mantissa, int32_t exp10, enum quantity_format format)
{
        struct quantity q;

        memset(&q, 0, sizeof(q));
        q.negative = mantissa[0] == '-';
        if (q.negative)
                mantissa++;
        snprintf(q.digits, sizeof(q.digits), "%s", mantissa);
        q.exp10 = exp10;
        q.format = format;
        return q;
}

static struct quantity parse_ok(const char *s)
{
        struct quantity q;
        struct error *err = NULL;
        int r = quantity_parse(s, &q, &err);

        if (r < 0)
                fail_msg("\"%s\": unexpected error %d: %s", s, r, err ? err->message : "?");
        assert_null(err);
        return q;
}

static void assert_format(const struct quantity *q, const char *expect, const char *what)
{
        char *got = quantity_format(q);

        if (strcmp(got, expect) != 0)
                fail_msg("%s: expected \"%s\", got \"%s\"", what, expect, got);
        free(got);
}

static void assert_canonical(const struct quantity *q, const char *expect, const char *what)
{
        char *got = quantity_format_canonical(q);

        if (strcmp(got, expect) != 0)
                fail_msg("%s: expected canonical \"%s\", got \"%s\"", what, expect, got);
        free(got);
}

/* K8S: TestQuantityParse's table: value and format after parsing. */
static const struct {
        const char *input;
        const char *mantissa;
        int32_t exp10;
        enum quantity_format format;
} parse_table[] = {
        { "0", "0", 0, DEC },
        { "0n", "0", 0, DEC },
        { "0u", "0", 0, DEC },
        { "0m", "0", 0, DEC },
        { "0Ki", "0", 0, BIN },
        { "0k", "0", 0, DEC },
        { "0Mi", "0", 0, BIN },
        { "0M", "0", 0, DEC },
        { "0Gi", "0", 0, BIN },
        { "0G", "0", 0, DEC },
        { "0Ti", "0", 0, BIN },
        { "0T", "0", 0, DEC },
        /* Quantity less numbers are allowed */
        { "1", "1", 0, DEC },
        /* Binary suffixes */
        { "1Ki", "1024", 0, BIN },
        { "8Ki", "8192", 0, BIN },
        { "7Mi", "7340032", 0, BIN },
        { "6Gi", "6442450944", 0, BIN },
        { "5Ti", "5497558138880", 0, BIN },
        { "4Pi", "4503599627370496", 0, BIN },
        { "3Ei", "3458764513820540928", 0, BIN },
        { "10Ti", "10995116277760", 0, BIN },
        { "100Ti", "109951162777600", 0, BIN },
        /* Decimal suffixes */
        { "5n", "5", -9, DEC },
        { "4u", "4", -6, DEC },
        { "3m", "3", -3, DEC },
        { "9", "9", 0, DEC },
        { "8k", "8", 3, DEC },
        { "50k", "5", 4, DEC },
        { "7M", "7", 6, DEC },
        { "6G", "6", 9, DEC },
        { "5T", "5", 12, DEC },
        { "40T", "4", 13, DEC },
        { "300T", "3", 14, DEC },
        { "2P", "2", 15, DEC },
        { "1E", "1", 18, DEC },
        /* Decimal exponents */
        { "1E-3", "1", -3, EXPF },
        { "1e3", "1", 3, EXPF },
        { "1E6", "1", 6, EXPF },
        { "1e9", "1", 9, EXPF },
        { "1E12", "1", 12, EXPF },
        { "1e15", "1", 15, EXPF },
        { "1E18", "1", 18, EXPF },
        /* Nonstandard but still parsable */
        { "1e14", "1", 14, EXPF },
        { "1e13", "1", 13, EXPF },
        { "100.035k", "100035", 0, DEC },
        /* Things that look like floating point */
        { "0.001", "1", -3, DEC },
        { "0.0005k", "5", -1, DEC },
        { "0.005", "5", -3, DEC },
        { "0.05", "5", -2, DEC },
        { "0.5", "5", -1, DEC },
        { "0.00050k", "5", -1, DEC },
        { "0.00500", "5", -3, DEC },
        { "0.05000", "5", -2, DEC },
        { "0.50000", "5", -1, DEC },
        { "0.5e0", "5", -1, EXPF },
        { "0.5e-1", "5", -2, EXPF },
        { "0.5e-2", "5", -3, EXPF },
        { "10.035M", "10035", 3, DEC },
        { "1.2e3", "12", 2, EXPF },
        { "1.3E+6", "13", 5, EXPF },
        { "1.40e9", "14", 8, EXPF },
        { "1.53E12", "153", 10, EXPF },
        { "1.6e15", "16", 14, EXPF },
        { "1.7E18", "17", 17, EXPF },
        { "9.01", "901", -2, DEC },
        { "8.1k", "81", 2, DEC },
        { "7.123456M", "7123456", 0, DEC },
        { "6.987654321G", "6987654321", 0, DEC },
        { "5.444T", "5444", 9, DEC },
        { "40.1T", "401", 11, DEC },
        { "300.2T", "3002", 11, DEC },
        { "2.5P", "25", 14, DEC },
        { "1.01E", "101", 16, DEC },
        /* Things that saturate/round */
        { "3.001n", "4", -9, DEC },
        { "1.1E-9", "2", -9, EXPF },
        { "0.0000000001", "1", -9, DEC },
        { "0.0000000005", "1", -9, DEC },
        { "0.00000000050", "1", -9, DEC },
        { "0.5e-9", "1", -9, EXPF },
        { "0.9n", "1", -9, DEC },
        { "0.00000012345", "124", -9, DEC },
        { "0.00000012354", "124", -9, DEC },
        { "9Ei", "9223372036854775807", 0, BIN },
        { "9223372036854775807Ki", "9223372036854775807", 0, BIN },
        /* K8S: ParseQuantity caps BinarySI at MaxInt64 ("The max is just a simple cap"), so
         * kube-apiserver stores this memory limit as 9223372036854775807 too (issue 10) */
        { "99999999999999999999Ei", "9223372036854775807", 0, BIN },
        { "12E", "12", 18, DEC },
        /* We'll accept fractional binary stuff, too. */
        { "100.035Ki", "10243584", -2, BIN },
        { "0.5Mi", "524288", 0, BIN },
        { "0.05Gi", "536870912", -1, BIN },
        { "0.025Ti", "274877906944", -1, BIN },
        /* Things written by trolls */
        { "0.000000000001Ki", "2", -9, DEC }, /* rounds up, changes format */
        { ".001", "1", -3, DEC },
        { ".0001k", "100", -3, DEC },
        { "1.", "1", 0, DEC },
        { "1.G", "1", 9, DEC },
        /* Found by reading parseQuantityString: no digits at all still parse on the int64 path */
        { "-", "0", 0, DEC },
        { "+", "0", 0, DEC },
        { ".", "0", 0, DEC },
        { "-.", "0", 0, DEC },
        { "Ki", "0", 0, BIN },
        { "Ti", "0", 0, BIN },
        { "m", "0", 0, DEC },
        { "0e-10", "0", 0, EXPF },
        /* Exponents are parsed as int64 and narrowed to int32 like upstream. */
        { "1e4294967296", "1", 0, EXPF },
        { "1e4294967299", "1", 3, EXPF },
        { "1e+003", "1", 3, EXPF },
        { "1e-2000000000", "1", -9, EXPF },
};

static void check_parsed(const char *input, const struct quantity *got, const char *mantissa,
                         int32_t exp10, enum quantity_format format)
{
        struct quantity expect = mkq(mantissa, exp10, format);

        if (quantity_cmp(got, &expect) != 0)
                fail_msg("\"%s\": expected %s%se%d, got %s%se%d", input, "", mantissa, exp10,
                         got->negative ? "-" : "", got->digits, got->exp10);
        if (got->format != format)
                fail_msg("\"%s\": expected format %s, got %s", input,
                         quantity_format_to_string(format), quantity_format_to_string(got->format));
}

static void test_parse_table(void **state)
{
        for (size_t i = 0; i < sizeof(parse_table) / sizeof(parse_table[0]); i++) {
                const char *in = parse_table[i].input;
                char buf[QUANTITY_MAX_LEN + 2];
                char neg[QUANTITY_MAX_LEN + 2];
                struct quantity q;

                q = parse_ok(in);
                check_parsed(in, &q, parse_table[i].mantissa, parse_table[i].exp10,
                             parse_table[i].format);
                /* Stored normalized: no trailing zeros, zero is "0" and never negative. */
                assert_true(strcmp(q.digits, "0") == 0 || q.digits[strlen(q.digits) - 1] != '0');
                assert_true(q.digits[0] != '0' || q.digits[1] == '\0');

                /* K8S: "Try the negative version of everything" and "with an explicit +". */
                if (in[0] == '-' || in[0] == '+')
                        continue;
                snprintf(buf, sizeof(buf), "+%s", in);
                q = parse_ok(buf);
                check_parsed(buf, &q, parse_table[i].mantissa, parse_table[i].exp10,
                             parse_table[i].format);
                snprintf(buf, sizeof(buf), "-%s", in);
                snprintf(neg, sizeof(neg), "-%s", parse_table[i].mantissa);
                q = parse_ok(buf);
                check_parsed(buf, &q, strcmp(parse_table[i].mantissa, "0") == 0 ? "0" : neg,
                             parse_table[i].exp10, parse_table[i].format);
                if (quantity_is_zero(&q))
                        assert_false(q.negative);
        }
}

/* K8S: ErrFormatWrong, ErrSuffix and ErrNumeric, each where ParseQuantity returns it. */
static const struct {
        const char *input;
        const char *message;
} invalid_table[] = {
        { "", QUANTITY_REGEXP_MESSAGE },
        { "1.1.M", QUANTITY_REGEXP_MESSAGE },
        { "1+1.0M", QUANTITY_REGEXP_MESSAGE },
        { "0.1mi", QUANTITY_SUFFIX_MESSAGE },
        { "0.1am", QUANTITY_REGEXP_MESSAGE },
        { "aoeu", QUANTITY_REGEXP_MESSAGE },
        { ".5i", QUANTITY_SUFFIX_MESSAGE },
        { "1i", QUANTITY_SUFFIX_MESSAGE },
        { "-3.01i", QUANTITY_SUFFIX_MESSAGE },
        { "-3.01e-", QUANTITY_SUFFIX_MESSAGE },
        { " 1", QUANTITY_REGEXP_MESSAGE },
        { "1 ", QUANTITY_REGEXP_MESSAGE },
        { "Non-Numeric", QUANTITY_REGEXP_MESSAGE },
        { "invalid", QUANTITY_REGEXP_MESSAGE },
        { "32MMi", QUANTITY_SUFFIX_MESSAGE },
        { "1gb", QUANTITY_REGEXP_MESSAGE },
        { "1 core", QUANTITY_REGEXP_MESSAGE },
        { "1e", QUANTITY_SUFFIX_MESSAGE },
        { "1e+", QUANTITY_SUFFIX_MESSAGE },
        { "1Ee3", QUANTITY_SUFFIX_MESSAGE },
        { "1e3e3", QUANTITY_REGEXP_MESSAGE },
        { "1k3", QUANTITY_SUFFIX_MESSAGE },
        { "1e99999999999999999999", QUANTITY_SUFFIX_MESSAGE },
        { "1e9223372036854775808", QUANTITY_SUFFIX_MESSAGE },
        { "--1", QUANTITY_SUFFIX_MESSAGE }, /* "-1" is the suffix */
        { "1.-1", QUANTITY_SUFFIX_MESSAGE },
        { "1-", QUANTITY_SUFFIX_MESSAGE },
        { "0x10", QUANTITY_REGEXP_MESSAGE },
        { "1_000", QUANTITY_REGEXP_MESSAGE },
        /* No digit where the inf.Dec path needs one. */
        { "Pi", QUANTITY_NUMERIC_MESSAGE },
        { "Ei", QUANTITY_NUMERIC_MESSAGE },
        { "-Ei", QUANTITY_NUMERIC_MESSAGE },
        { ".Pi", QUANTITY_NUMERIC_MESSAGE },
        { "e-10", QUANTITY_NUMERIC_MESSAGE },
        { "-.e-10", QUANTITY_NUMERIC_MESSAGE },
};

static void test_parse_invalid(void **state)
{
        for (size_t i = 0; i < sizeof(invalid_table) / sizeof(invalid_table[0]); i++) {
                struct quantity q = mkq("42", 0, DEC);
                struct error *err = NULL;
                int r = quantity_parse(invalid_table[i].input, &q, &err);

                if (r != -EINVAL)
                        fail_msg("\"%s\": expected -EINVAL, got %d", invalid_table[i].input, r);
                assert_non_null(err);
                assert_int_equal(err->errnum, EINVAL);
                if (strcmp(err->message, invalid_table[i].message) != 0)
                        fail_msg("\"%s\": expected \"%s\", got \"%s\"", invalid_table[i].input,
                                 invalid_table[i].message, err->message);
                error_free(err);
                /* ret untouched on failure */
                assert_string_equal(q.digits, "42");
                /* reterr may be NULL */
                assert_int_equal(quantity_parse(invalid_table[i].input, &q, NULL), -EINVAL);
        }
}

static void test_parse_range(void **state)
{
        char s[QUANTITY_MAX_LEN + 2];
        struct quantity q;
        struct error *err = NULL;

        /* Longer than the cap: rejected before any work. */
        memset(s, '1', QUANTITY_MAX_LEN + 1);
        s[QUANTITY_MAX_LEN + 1] = '\0';
        assert_int_equal(quantity_parse(s, &q, &err), -ERANGE);
        assert_non_null(err);
        assert_string_equal(err->message, "quantity is longer than 128 characters");
        err = error_free(err);

        /* Exactly at the cap is fine when the value fits: 120 zeros then 1. */
        memset(s, '0', QUANTITY_MAX_LEN);
        s[QUANTITY_MAX_LEN - 1] = '1';
        s[QUANTITY_MAX_LEN] = '\0';
        q = parse_ok(s);
        assert_string_equal(q.digits, "1");
        assert_int_equal(q.exp10, 0);

        /* 63 significant digits fit, 64 do not. */
        memset(s, '9', 63);
        s[63] = '\0';
        q = parse_ok(s);
        assert_int_equal(strlen(q.digits), 63);
        memset(s, '9', 64);
        s[64] = '\0';
        assert_int_equal(quantity_parse(s, &q, &err), -ERANGE);
        assert_non_null(err);
        assert_string_equal(err->message, "quantity \"9999999999999999999999999999999999999999999"
                                          "999999999999999999999\" has more than 63 significant "
                                          "digits");
        err = error_free(err);
        /* ...but digits below nano are rounded away first. */
        q = parse_ok("0.0000000001234567890123456789012345678901234567890123456789012345678901");
        assert_string_equal(q.digits, "1");
        assert_int_equal(q.exp10, -9);

        /* Powers of ten up to int32 are held exactly; beyond is out of range. */
        q = parse_ok("1e2147483647");
        assert_string_equal(q.digits, "1");
        assert_int_equal(q.exp10, INT32_MAX);
        assert_format(&q, "10e2147483646", "1e2147483647");
        assert_int_equal(quantity_parse("1000e2147483647", &q, &err), -ERANGE);
        assert_string_equal(err->message, "quantity \"1000e2147483647\" is out of range");
        err = error_free(err);
        q = parse_ok("1000e2147483644");
        assert_int_equal(q.exp10, INT32_MAX);
}

/* K8S: TestQuantityString: (value, format) -> String(); parsing that string keeps it as the
 * cache, and parsing the alternate spelling does not but prints the same. */
static const struct {
        const char *mantissa;
        int32_t exp10;
        enum quantity_format format;
        const char *expect;
        const char *alternate;
} string_table[] = {
        { "1073741824", 0, BIN, "1Gi", "1024Mi" },
        { "314572800", 0, BIN, "300Mi", "307200Ki" },
        { "6144", 0, BIN, "6Ki", "" },
        { "1074815565824", 0, BIN, "1001Gi", "1025024Mi" },
        { "1099511627776", 0, BIN, "1Ti", "1024Gi" },
        { "5", 0, BIN, "5", "5000m" },
        { "500", -3, BIN, "500m", "0.5" },
        { "1", 9, DEC, "1G", "1000M" },
        { "1000", 6, DEC, "1G", "0.001T" },
        { "1000000", 3, DEC, "1G", "" },
        { "1000000000", 0, DEC, "1G", "" },
        { "1", -3, DEC, "1m", "1000u" },
        { "80", -3, DEC, "80m", "" },
        { "1080", -3, DEC, "1080m", "1.08" },
        { "108", -2, DEC, "1080m", "1080000000n" },
        { "10800", -4, DEC, "1080m", "" },
        { "300", 6, DEC, "300M", "" },
        { "1", 12, DEC, "1T", "" },
        { "1234567", 6, DEC, "1234567M", "" },
        { "1234567", -3, BIN, "1234567m", "" },
        { "3", 3, DEC, "3k", "" },
        { "1025", 0, BIN, "1025", "" },
        { "0", 0, DEC, "0", "" },
        { "0", 0, BIN, "0", "" },
        { "1", 9, EXPF, "1e9", ".001e12" },
        { "1", -3, EXPF, "1e-3", "0.001e0" },
        { "1", -9, EXPF, "1e-9", "1000e-12" },
        { "80", -3, EXPF, "80e-3", "" },
        { "300", 6, EXPF, "300e6", "" },
        { "1", 12, EXPF, "1e12", "" },
        { "1", 3, EXPF, "1e3", "" },
        { "3", 3, EXPF, "3e3", "" },
        { "3", 3, DEC, "3k", "" },
        { "0", 0, EXPF, "0", "00" },
        { "1", -9, DEC, "1n", "" },
        { "80", -9, DEC, "80n", "" },
        { "1080", -9, DEC, "1080n", "" },
        { "108", -8, DEC, "1080n", "" },
        { "10800", -10, DEC, "1080n", "" },
        { "1", -6, DEC, "1u", "" },
        { "80", -6, DEC, "80u", "" },
        { "1080", -6, DEC, "1080u", "" },
};

static void test_string_table(void **state)
{
        for (size_t i = 0; i < sizeof(string_table) / sizeof(string_table[0]); i++) {
                struct quantity q = mkq(string_table[i].mantissa, string_table[i].exp10,
                                        string_table[i].format);
                char what[64], neg[80];

                snprintf(what, sizeof(what), "%se%d", string_table[i].mantissa,
                         string_table[i].exp10);
                assert_format(&q, string_table[i].expect, what);
                assert_canonical(&q, string_table[i].expect, what);

                /* K8S: "did not copy canonical string on parse" */
                q = parse_ok(string_table[i].expect);
                if (strcmp(q.text, string_table[i].expect) != 0)
                        fail_msg("\"%s\": not kept on parse (text \"%s\")", string_table[i].expect,
                                 q.text);
                if (string_table[i].alternate[0] != '\0') {
                        q = parse_ok(string_table[i].alternate);
                        if (q.text[0] != '\0')
                                fail_msg("\"%s\": unexpected kept text \"%s\"",
                                         string_table[i].alternate, q.text);
                        assert_format(&q, string_table[i].expect, string_table[i].alternate);
                }

                /* Negated values print with a leading '-', zero never does. */
                q = mkq(string_table[i].mantissa, string_table[i].exp10, string_table[i].format);
                if (quantity_is_zero(&q))
                        continue;
                q.negative = true;
                snprintf(neg, sizeof(neg), "-%s", string_table[i].expect);
                assert_format(&q, neg, what);
        }
}

/* K8S: TestQuantityParseEmit, TestParseQuantity (18 to 20 digits around int64) and the task's
 * own examples: input -> String(). */
static const struct {
        const char *input;
        const char *expect;
} emit_table[] = {
        { "1Ki", "1Ki" },
        { "1Mi", "1Mi" },
        { "1Gi", "1Gi" },
        { "1024Mi", "1Gi" },
        { "1000M", "1G" },
        { ".001Ki", "1024m" },
        { ".000001Ki", "1024u" },
        { ".000000001Ki", "1024n" },
        { ".000000000001Ki", "2n" },
        { "-.001Ki", "-1024m" },
        { "-.000000000001Ki", "-2n" },
        /* TestParseQuantity */
        { "-999999999999999999", "-999999999999999999" },
        { "999999999999999999", "999999999999999999" },
        { "-999999999999999999.0", "-999999999999999999" },
        { "999999999999999999.0", "999999999999999999" },
        { "-999999999999999999.1", "-999999999999999999100m" },
        { "999999999999999999.1", "999999999999999999100m" },
        { "-9999999999999999999", "-9999999999999999999" },
        { "9999999999999999999", "9999999999999999999" },
        { "-1E", "-1E" },
        { "1E", "1E" },
        { "-1000000000000000000", "-1E" },
        { "1000000000000000000", "1E" },
        { "-9999999999999999999.0", "-9999999999999999999" },
        { "9999999999999999999.0", "9999999999999999999" },
        { "-1.0E", "-1E" },
        { "1.0E", "1E" },
        { "-1000000000000000000.0", "-1E" },
        { "1000000000000000000.0", "1E" },
        { "-9999999999999999999000m", "-9999999999999999999" },
        { "9999999999999999999000m", "9999999999999999999" },
        { "-9999999999999999999.1", "-9999999999999999999100m" },
        { "9999999999999999999.1", "9999999999999999999100m" },
        { "-1.0000000000000000001E", "-1000000000000000000100m" },
        { "1.0000000000000000001E", "1000000000000000000100m" },
        { "-1000000000000000000.1", "-1000000000000000000100m" },
        { "1000000000000000000.1", "1000000000000000000100m" },
        { "-1.000000000000000001E", "-1000000000000000001" },
        { "1.000000000000000001E", "1000000000000000001" },
        { "-1000000000000000001", "-1000000000000000001" },
        { "1000000000000000001", "1000000000000000001" },
        { "-10E", "-10E" },
        { "10E", "10E" },
        { "-10000000000000000000", "-10E" },
        { "10000000000000000000", "10E" },
        { "-10.0E", "-10E" },
        { "10.0E", "10E" },
        { "-10000000000000000000.0", "-10E" },
        { "10000000000000000000.0", "10E" },
        { "-10000000000000000000000m", "-10E" },
        { "10000000000000000000000m", "10E" },
        { "-10.0000000000000000001E", "-10000000000000000000100m" },
        { "10.0000000000000000001E", "10000000000000000000100m" },
        { "-10000000000000000000.1", "-10000000000000000000100m" },
        { "10000000000000000000.1", "10000000000000000000100m" },
        { "-10.000000000000000001E", "-10000000000000000001" },
        { "10.000000000000000001E", "10000000000000000001" },
        { "-10000000000000000001", "-10000000000000000001" },
        { "10000000000000000001", "10000000000000000001" },
        { "-9223372036854775809", "-9223372036854775809" },
        { "9223372036854775806", "9223372036854775806" },
        { "-9223372036854775809.0", "-9223372036854775809" },
        { "9223372036854775806.0", "9223372036854775806" },
        { "-9223372036854775809000m", "-9223372036854775809" },
        { "9223372036854775806000m", "9223372036854775806" },
        { "-9223372036854775809.1", "-9223372036854775809100m" },
        { "9223372036854775806.1", "9223372036854775806100m" },
        { "-9223372036854775808", "-9223372036854775808" },
        { "9223372036854775807", "9223372036854775807" },
        { "-9223372036854775808.0", "-9223372036854775808" },
        { "9223372036854775807.0", "9223372036854775807" },
        { "-9223372036854775808000m", "-9223372036854775808" },
        { "9223372036854775807000m", "9223372036854775807" },
        { "-9223372036854775808.1", "-9223372036854775808100m" },
        { "9223372036854775807.1", "9223372036854775807100m" },
        { "-9223372036854775807", "-9223372036854775807" },
        { "9223372036854775808", "9223372036854775808" },
        { "-9223372036854775807.0", "-9223372036854775807" },
        { "9223372036854775808.0", "9223372036854775808" },
        { "-9223372036854775807000m", "-9223372036854775807" },
        { "9223372036854775808000m", "9223372036854775808" },
        { "-9223372036854775807.1", "-9223372036854775807100m" },
        { "9223372036854775808.1", "9223372036854775808100m" },
        /* The brief's examples */
        { "0.5", "500m" },
        { "1000Mi", "1000Mi" },
        { "1.5Gi", "1536Mi" },
        { "1e3", "1e3" },
        { "1000", "1k" },
        { "100m", "100m" },
        { "0", "0" },
        { "-1", "-1" },
        { "1.1", "1100m" },
        { "0.0001", "100u" },
        { "1536", "1536" },
        { "12e6", "12e6" },
        { "0.0000000001", "1n" },
        /* BinarySI that is small or not whole prints as DecimalSI. */
        { "1.5Ki", "1536" },
        { "0.5Ki", "512" },
        { "1.1Ki", "1126400m" },
        { "1023.5Ki", "1048064" },
        { "1.0000001Ki", "1024000102400n" },
        { "8Ei", "9223372036854775807" },
        { "-8Ei", "-9223372036854775807" },
        { "8192Pi", "9223372036854775807" },
        { "2048Pi", "2Ei" },
        { "7Ei", "7Ei" },
        { "1024Ti", "1Pi" },
        { "1048576Ki", "1Gi" },
        /* DecimalSI beyond E falls back to an exponent (apimachinery after the "1000E" fix). */
        { "1000E", "1e21" },
        { "1500E", "1500E" },
        { "0.1e-6", "100e-9" },
        { "123e-12", "1e-9" },
        { "1e0", "1e0" },
        { "10e0", "10e0" },
        { "1.5e1", "1.5e1" },
        { "1.5e2", "150" },
        { "100e-3", "100e-3" },
        { "-1.5e-3", "-1500e-6" },
        /* The String() cache: kept verbatim when the int64 path finds it canonical-looking. */
        { "+1", "+1" },
        { "1.500", "1.500" },
        { "+1.5", "1500m" },
        { "05Mi", "05Mi" },
        { "-05Mi", "-05Mi" },
        { "1E3", "1E3" },
        { "1e+3", "1e+3" },
        { "1e+003", "1e+003" },
        { "0000000001", "0000000001" },
        { "1.0", "1" },
        { "1.000", "1" },
        { "8Ki", "8Ki" },
        { "1024Ki", "1Mi" },
        { "1.Ki", "1.Ki" },
        { "12e-9", "12e-9" },
        { "12e-10", "2e-9" },
        { "1e4294967296", "1e4294967296" },
        { "-0", "0" },
        { "+0", "0" },
        { "00", "0" },
        { "0.0", "0" },
        { "-0Ki", "0" },
        { "-", "0" },
};

static void test_emit_table(void **state)
{
        for (size_t i = 0; i < sizeof(emit_table) / sizeof(emit_table[0]); i++) {
                struct quantity q = parse_ok(emit_table[i].input), again;
                char *s;

                assert_format(&q, emit_table[i].expect, emit_table[i].input);
                /* What we print parses back to the same value. */
                s = quantity_format(&q);
                again = parse_ok(s);
                if (quantity_cmp(&q, &again) != 0)
                        fail_msg("\"%s\": \"%s\" does not parse back to it", emit_table[i].input,
                                 s);
                free(s);
                s = quantity_format_canonical(&q);
                again = parse_ok(s);
                assert_int_equal(quantity_cmp(&q, &again), 0);
                free(s);
        }
}

static void test_text_cache_follows_value(void **state)
{
        struct quantity q = parse_ok("1.500"), one;

        assert_string_equal(q.text, "1.500");
        assert_canonical(&q, "1500m", "1.500");
        /* Changing the value or the format makes the kept text stale: it is ignored. */
        q.digits[0] = '2';
        assert_format(&q, "2500m", "edited 1.500");
        q = parse_ok("1Gi");
        q.format = DEC;
        assert_format(&q, "1073741824", "1Gi as DecimalSI");
        /* Arithmetic drops it, as upstream's Add clears q.s. */
        q = parse_ok("+1");
        quantity_from_int64(0, DEC, &one);
        assert_int_equal(quantity_add(&q, &one, &q), 0);
        assert_string_equal(q.text, "");
        assert_format(&q, "1", "+1 + 0");
        /* Builders never carry text. */
        quantity_from_int64(5, DEC, &q);
        assert_string_equal(q.text, "");
}

/* K8S: TestNewSet and TestMilliNewSet (an unknown format means DecimalExponent). */
static void test_builders(void **state)
{
        static const struct {
                int64_t value;
                enum quantity_format format;
                const char *expect;
        } ints[] = {
                { 1, DEC, "1" },
                { 1000, DEC, "1k" },
                { 1234000, DEC, "1234k" },
                { 1024, BIN, "1Ki" },
                { 1000000, QUANTITY_FORMAT_MAX, "1e6" },
                { 1024 * 1024, BIN, "1Mi" },
                { 0, BIN, "0" },
                { -1024, BIN, "-1Ki" },
                { 1000, BIN, "1k" }, /* under 1024: DecimalSI */
                { INT64_MAX, BIN, "9223372036854775807" },
                { INT64_MAX, DEC, "9223372036854775807" },
                /* removeInt64Factors cannot negate MinInt64 */
                { INT64_MIN, BIN, "-9223372036854775808" },
                { INT64_MIN, DEC, "-9223372036854775808" },
                { -8LL * 1024 * 1024 * 1024 * 1024 * 1024 * 1024 + 1024, BIN,
                  "-9007199254740991Ki" },
        },
          millis[] = {
                { 1, DEC, "1m" },
                { 1000, DEC, "1" },
                { 1234000, DEC, "1234" },
                { 1024, BIN, "1024m" }, /* Format changes */
                { 1000000, QUANTITY_FORMAT_MAX, "1e3" },
                { 1024 * 1024, BIN, "1048576m" }, /* Format changes */
                { 500, DEC, "500m" },
                { 1500, DEC, "1500m" },
                { 0, DEC, "0" },
                { INT64_MIN, DEC, "-9223372036854775808m" },
        };
        struct quantity q;
        int64_t v;

        for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
                quantity_from_int64(ints[i].value, ints[i].format, &q);
                assert_format(&q, ints[i].expect, ints[i].expect);
                assert_int_equal(quantity_value(&q, &v), 0);
                assert_true(v == ints[i].value);
                if (ints[i].value != INT64_MIN) {
                        struct quantity back = parse_ok(ints[i].expect);

                        assert_int_equal(quantity_value(&back, &v), 0);
                        assert_true(v == ints[i].value);
                }
        }
        for (size_t i = 0; i < sizeof(millis) / sizeof(millis[0]); i++) {
                quantity_from_milli(millis[i].value, millis[i].format, &q);
                assert_format(&q, millis[i].expect, millis[i].expect);
                assert_int_equal(quantity_milli_value(&q, &v), 0);
                assert_true(v == millis[i].value);
        }
        /* Stored normalized. */
        quantity_from_int64(1000, DEC, &q);
        assert_string_equal(q.digits, "1");
        assert_int_equal(q.exp10, 3);
        quantity_from_int64(0, BIN, &q);
        assert_string_equal(q.digits, "0");
        assert_int_equal(q.exp10, 0);
        assert_false(q.negative);
        assert_int_equal(q.format, BIN);
}

/* K8S: TestNewScaledSet and TestScaledValue. */
static void test_scaled(void **state)
{
        static const struct {
                int64_t value;
                int32_t scale;
                const char *expect;
        } set[] = {
                { 1, -9, "1n" },       { 1000, -9, "1u" }, { 1, -6, "1u" }, { 1000, -6, "1m" },
                { 1, -3, "1m" },       { 1000, -3, "1" },  { 1, 0, "1" },   { 0, -9, "0" },
                { 0, -6, "0" },        { 0, -3, "0" },     { 0, 0, "0" },   { 7, 30, "7e30" },
                { 12, -12, "12e-12" },
        };
        static const struct {
                int32_t from, to;
                int64_t expect;
        } scaled[] = {
                { -9, -9, 1 },         { -9, -6, 1 },      { -9, -3, 1 },   { -9, 0, 1 },
                { -6, -9, 1000 },      { -6, -6, 1 },      { -6, -3, 1 },   { -6, 0, 1 },
                { -3, -9, 1000000 },   { -3, -6, 1000 },   { -3, -3, 1 },   { -3, 0, 1 },
                { 0, -9, 1000000000 }, { 0, -6, 1000000 }, { 0, -3, 1000 }, { 0, 0, 1 },
                { 2, -2, 10000 },
        };
        struct quantity q;
        int64_t v;

        for (size_t i = 0; i < sizeof(set) / sizeof(set[0]); i++) {
                quantity_from_scaled(set[i].value, set[i].scale, &q);
                assert_int_equal(q.format, DEC);
                assert_format(&q, set[i].expect, set[i].expect);
                /* Parsing rounds below nano up to 1n, so only coarser values round-trip. */
                q = parse_ok(set[i].expect);
                assert_int_equal(quantity_scaled_value(&q, set[i].scale, &v), 0);
                assert_true(v == (set[i].scale >= -9 ? set[i].value : 1000));
        }
        for (size_t i = 0; i < sizeof(scaled) / sizeof(scaled[0]); i++) {
                quantity_from_scaled(1, scaled[i].from, &q);
                assert_int_equal(quantity_scaled_value(&q, scaled[i].to, &v), 0);
                if (v != scaled[i].expect)
                        fail_msg("1e%d at scale %d: expected %lld, got %lld", scaled[i].from,
                                 scaled[i].to, (long long) scaled[i].expect, (long long) v);
        }
}

/* K8S: Value() and MilliValue() round up away from zero (int64Amount.AsScaledInt64). */
static void test_values(void **state)
{
        static const struct {
                const char *input;
                int value_r;
                int64_t value;
                int milli_r;
                int64_t milli;
        } table[] = {
                { "0", 0, 0, 0, 0 },
                { "1", 0, 1, 0, 1000 },
                { "1.1", 0, 2, 0, 1100 },
                { "-1.1", 0, -2, 0, -1100 },
                { "-1.5", 0, -2, 0, -1500 },
                { "100m", 0, 1, 0, 100 },
                { "1n", 0, 1, 0, 1 },
                { "-1n", 0, -1, 0, -1 },
                { "1001u", 0, 1, 0, 2 },
                { "0.5", 0, 1, 0, 500 },
                { "1Ki", 0, 1024, 0, 1024000 },
                { "1Gi", 0, 1073741824, 0, 1073741824000LL },
                { "1.5Gi", 0, 1610612736, 0, 1610612736000LL },
                { "8Ei", 0, INT64_MAX, -ERANGE, 0 },
                { "7Ei", 0, 8070450532247928832LL, -ERANGE, 0 },
                { "9223372036854775807", 0, INT64_MAX, -ERANGE, 0 },
                { "9223372036854775808", -ERANGE, 0, -ERANGE, 0 },
                { "-9223372036854775808", 0, INT64_MIN, -ERANGE, 0 },
                { "-9223372036854775809", -ERANGE, 0, -ERANGE, 0 },
                { "9223372036854775806.5", 0, INT64_MAX, -ERANGE, 0 },
                { "9223372036854775807.5", -ERANGE, 0, -ERANGE, 0 },
                { "9223372036854775807m", 0, 9223372036854776LL, 0, INT64_MAX },
                { "9223372036854775808m", 0, 9223372036854776LL, -ERANGE, 0 },
                { "-9223372036854775808m", 0, -9223372036854776LL, 0, INT64_MIN },
                { "18446744073709551616", -ERANGE, 0, -ERANGE, 0 },
                { "99999999999999999999", -ERANGE, 0, -ERANGE, 0 },
                { "1e18", 0, 1000000000000000000LL, -ERANGE, 0 },
                { "1e19", -ERANGE, 0, -ERANGE, 0 },
                { "1e2147483647", -ERANGE, 0, -ERANGE, 0 },
                { "1e-9", 0, 1, 0, 1 },
                { "12e6", 0, 12000000, 0, 12000000000LL },
        };

        for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
                struct quantity q = parse_ok(table[i].input);
                int64_t v = 42;
                int r = quantity_value(&q, &v);

                if (r != table[i].value_r || (r == 0 && v != table[i].value))
                        fail_msg("Value(\"%s\"): expected %d/%lld, got %d/%lld", table[i].input,
                                 table[i].value_r, (long long) table[i].value, r, (long long) v);
                if (r < 0)
                        assert_true(v == 42);
                r = quantity_milli_value(&q, &v);
                if (r != table[i].milli_r || (r == 0 && v != table[i].milli))
                        fail_msg("MilliValue(\"%s\"): expected %d/%lld, got %d/%lld",
                                 table[i].input, table[i].milli_r, (long long) table[i].milli, r,
                                 (long long) v);
        }
}

/* K8S: TestQuantityCmp and TestQuantityCmpInt64AndDec. */
static void test_cmp(void **state)
{
        static const struct {
                const char *x, *y;
                int expect;
        } parsed[] = {
                { "0", "0", 0 },
                { "100m", "50m", 1 },
                { "50m", "100m", -1 },
                { "10000T", "100Gi", 1 },
                { "1Gi", "1073741824", 0 },
                { "1G", "1Gi", -1 },
                { "-1", "0", -1 },
                { "-0", "0", 0 },
                { "-2", "-1", -1 },
                { "1e2147483647", "9e2147483646", 1 },
                { "1n", "0", 1 },
                { "0.1", "100m", 0 },
                { "1.1", "1.01", 1 },
                { "1.01", "1.1", -1 },
        };
        static const struct {
                int64_t av;
                int32_t as;
                int64_t bv;
                int32_t bs;
                int expect;
        } scaled[] = {
                { 901, -2, 901, -2, 0 },
                { 90, -1, 901, -2, -1 },
                { 901, -2, 900, -2, 1 },
                { 0, 0, 0, 0, 0 },
                { 0, 1, 0, -1, 0 },
                { 0, -1, 0, 1, 0 },
                { 800, -3, 1, 0, -1 },
                { 800, -3, 79, -2, 1 },
                { INT64_MAX, 0, 1, -1, 1 },
                { INT64_MAX, 1, 1, 0, 1 },
                { INT64_MAX, 1, 1, 1, 1 },
                { INT64_MAX, 1, 0, 1, 1 },
                { INT64_MAX, -16, 1, 3, -1 },
                { INT64_MIN, 0, 0, 0, -1 },
                { INT64_MIN, -18, -1, 0, -1 },
                { INT64_MIN, -19, -1, 0, 1 },
                { 1000000000000000000LL, -17, 1, 1, 0 },
                { 1000000000000000000LL, -17, -10, 0, 1 },
                { -1000000000000000000LL, -17, -10, 0, 0 },
                { 1000000000000000000LL, -17, 1, 0, 1 },
                { 1000000000000000001LL, -17, 1, 1, 1 },
                { 999999999999999999LL, -17, 1, 1, -1 },
        };

        for (size_t i = 0; i < sizeof(parsed) / sizeof(parsed[0]); i++) {
                struct quantity x = parse_ok(parsed[i].x), y = parse_ok(parsed[i].y);
                int c = quantity_cmp(&x, &y);

                if ((c > 0) - (c < 0) != parsed[i].expect)
                        fail_msg("cmp(%s, %s): expected %d, got %d", parsed[i].x, parsed[i].y,
                                 parsed[i].expect, c);
                c = quantity_cmp(&y, &x);
                assert_int_equal((c > 0) - (c < 0), -parsed[i].expect);
        }
        for (size_t i = 0; i < sizeof(scaled) / sizeof(scaled[0]); i++) {
                struct quantity a, b;
                int c;

                quantity_from_scaled(scaled[i].av, scaled[i].as, &a);
                quantity_from_scaled(scaled[i].bv, scaled[i].bs, &b);
                c = quantity_cmp(&a, &b);
                if ((c > 0) - (c < 0) != scaled[i].expect)
                        fail_msg("row %zu: expected %d, got %d", i, scaled[i].expect, c);
                c = quantity_cmp(&b, &a);
                assert_int_equal((c > 0) - (c < 0), -scaled[i].expect);
        }

        /* Unnormalized digits compare by value. */
        {
                struct quantity a = mkq("00100", -2, DEC), b = mkq("1", 0, DEC);

                assert_int_equal(quantity_cmp(&a, &b), 0);
                assert_false(quantity_is_zero(&a));
                a = mkq("000", 5, DEC);
                assert_true(quantity_is_zero(&a));
        }
}

/* K8S: TestAdd and TestSub, plus format inheritance from a zero receiver. */
static void test_add_sub(void **state)
{
        static const struct {
                const char *a, *b;
                const char *sum, *diff;
                enum quantity_format format;
        } table[] = {
                { "10", "1e1", "20", "0", DEC },
                { "10", "1Ki", "1034", "-1014", DEC },
                { "10Ki", "1", "10241", "10239", BIN },
                { "0", "50", "50", "-50", DEC },
                { "50", "0", "50", "50", DEC },
                { "0", "0", "0", "0", DEC },
                { "0", "1Gi", "1Gi", "-1Gi", BIN },
                { "0Ki", "100m", "100m", "-100m", DEC },
                { "100m", "0", "100m", "100m", DEC },
                { "1", "1n", "1000000001n", "999999999n", DEC },
                { "-1", "1", "0", "-2", DEC },
                { "999", "1", "1k", "998", DEC },
                { "0.001", "0.999", "1", "-998m", DEC },
                { "9223372036854775807", "1", "9223372036854775808", "9223372036854775806", DEC },
                { "1e40", "1e40", "20e39", "0", EXPF },
                { "1e40", "1e-9", "10000000000000000000000000000000000000000000000001e-9",
                  "9999999999999999999999999999999999999999999999999e-9", EXPF },
        };

        for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
                struct quantity a = parse_ok(table[i].a), b = parse_ok(table[i].b), r;
                char what[96];

                snprintf(what, sizeof(what), "%s + %s", table[i].a, table[i].b);
                assert_int_equal(quantity_add(&a, &b, &r), 0);
                assert_format(&r, table[i].sum, what);
                assert_int_equal(r.format, table[i].format);
                snprintf(what, sizeof(what), "%s - %s", table[i].a, table[i].b);
                assert_int_equal(quantity_sub(&a, &b, &r), 0);
                assert_format(&r, table[i].diff, what);
                /* ret may alias an operand */
                assert_int_equal(quantity_add(&a, &b, &a), 0);
                assert_format(&a, table[i].sum, "aliased add");
        }

        /* Too many digits for a quantity: -ERANGE, ret untouched. */
        {
                struct quantity a = parse_ok("1e60"), b = parse_ok("1n"), r = mkq("7", 0, DEC);

                assert_int_equal(quantity_add(&a, &b, &r), -ERANGE);
                assert_string_equal(r.digits, "7");
                a = parse_ok("1e2147483647");
                b = parse_ok("1e2147483647");
                assert_int_equal(quantity_add(&a, &b, &r), 0);
                assert_format(&r, "20e2147483646", "huge sum");
                assert_int_equal(quantity_sub(&a, &b, &r), 0);
                assert_true(quantity_is_zero(&r));
                a = parse_ok("-9e2147483646");
                assert_int_equal(quantity_sub(&a, &b, &r), 0);
                assert_format(&r, "-19e2147483646", "huge difference");
        }
}

static void test_format_strings(void **state)
{
        enum quantity_format f;

        assert_string_equal(quantity_format_to_string(EXPF), "DecimalExponent");
        assert_string_equal(quantity_format_to_string(BIN), "BinarySI");
        assert_string_equal(quantity_format_to_string(DEC), "DecimalSI");
        assert_null(quantity_format_to_string(QUANTITY_FORMAT_MAX));
        for (int i = 0; i < QUANTITY_FORMAT_MAX; i++) {
                assert_int_equal(quantity_format_from_string(quantity_format_to_string(i), &f), 0);
                assert_int_equal(f, i);
        }
        assert_int_equal(quantity_format_from_string("binarySI", &f), -EINVAL);
        assert_int_equal(quantity_format_from_string("", &f), -EINVAL);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse_table), cmocka_unit_test(test_parse_invalid),
                cmocka_unit_test(test_parse_range), cmocka_unit_test(test_string_table),
                cmocka_unit_test(test_emit_table),  cmocka_unit_test(test_text_cache_follows_value),
                cmocka_unit_test(test_builders),    cmocka_unit_test(test_scaled),
                cmocka_unit_test(test_values),      cmocka_unit_test(test_cmp),
                cmocka_unit_test(test_add_sub),     cmocka_unit_test(test_format_strings),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
