/* test-utf8.c: base/utf8.h decodes as Go's unicode/utf8 does (DecodeRune, Valid): the table
 * holds Go's own edge cases, overlong forms, surrogates, the U+10FFFF limit and truncation. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "base/utf8.h"

static const struct {
        const char *bytes;
        size_t n;
        int32_t rune; /* -1: Go's RuneError with width 1 */
        size_t len;
} cases[] = {
        { "a", 1, 'a', 1 },
        { "\x00", 1, 0, 1 },
        { "\x7f", 1, 0x7f, 1 },
        { "\xc2\x80", 2, 0x80, 2 },
        { "\xc3\xa9", 2, 0xe9, 2 },
        { "\xdf\xbf", 2, 0x7ff, 2 },
        { "\xe0\xa0\x80", 3, 0x800, 3 },
        { "\xed\x9f\xbf", 3, 0xd7ff, 3 },
        { "\xef\xbf\xbd", 3, 0xfffd, 3 },
        { "\xf0\x90\x80\x80", 4, 0x10000, 4 },
        { "\xf4\x8f\xbf\xbf", 4, 0x10ffff, 4 },
        { "\xc0\x80", 2, -1, 1 },         /* overlong NUL: what an escaped %00 becomes */
        { "\xc1\xbf", 2, -1, 1 },         /* overlong */
        { "\xe0\x9f\xbf", 3, -1, 1 },     /* overlong */
        { "\xed\xa0\x80", 3, -1, 1 },     /* surrogate U+D800 */
        { "\xf0\x8f\xbf\xbf", 4, -1, 1 }, /* overlong */
        { "\xf4\x90\x80\x80", 4, -1, 1 }, /* above U+10FFFF */
        { "\xf5\x80\x80\x80", 4, -1, 1 },
        { "\xff", 1, -1, 1 },
        { "\x80", 1, -1, 1 },         /* continuation byte alone */
        { "\xe2\x82", 2, -1, 1 },     /* truncated */
        { "\xe2\x28\xa1", 3, -1, 1 }, /* bad continuation */
};

static void test_decode(void **state)
{
        (void) state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                size_t len = 99;
                int32_t r = utf8_decode(cases[i].bytes, cases[i].n, &len);

                if (r != cases[i].rune || len != cases[i].len)
                        fail_msg("case %zu: rune %d len %zu, want %d len %zu", i, r, len,
                                 cases[i].rune, cases[i].len);
                assert_int_equal(utf8_valid(cases[i].bytes, cases[i].n), cases[i].rune >= 0);
        }
}

static void test_valid(void **state)
{
        (void) state;
        assert_true(utf8_valid("", 0));
        assert_true(utf8_valid("pods/\xc3\xa9t\xc3\xa9", 11));
        assert_false(utf8_valid("victim\xc0\x80not-victim", 18));
        assert_false(utf8_valid("ok\xe2\x82", 4)); /* truncated at the end */
        assert_true(utf8_valid("a\0b", 3));        /* NUL is valid UTF-8, as in Go */
}

/* Go's encoding/json: each byte that is not part of valid UTF-8 becomes U+FFFD. */
static void test_append_valid(void **state)
{
        static const struct {
                const char *in, *want;
        } valid_cases[] = {
                { "plain", "plain" },
                { "caf\xc3\xa9", "caf\xc3\xa9" },
                { "cut \xc3", "cut \xef\xbf\xbd" },
                { "\xff\xfe", "\xef\xbf\xbd\xef\xbf\xbd" },
                { "\xe2\x82", "\xef\xbf\xbd\xef\xbf\xbd" },
                { "", "" },
        };

        (void) state;
        for (size_t i = 0; i < sizeof(valid_cases) / sizeof(valid_cases[0]); i++) {
                struct strbuf sb;

                strbuf_init(&sb);
                utf8_append_valid(&sb, valid_cases[i].in, strlen(valid_cases[i].in));
                assert_string_equal(sb.len ? sb.buf : "", valid_cases[i].want);
                strbuf_release(&sb);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_decode),
                cmocka_unit_test(test_valid),
                cmocka_unit_test(test_append_valid),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
