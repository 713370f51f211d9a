/* test-base64.c: Go's base64.StdEncoding as Secret data meets it: round trips, and the offsets
 * of Go's CorruptInputError for bad input (the cases of Go's encoding/base64 tests). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/base64.h"

static void test_round_trip(void **state)
{
        static const char *const plain[] = { "", "f", "fo", "foo", "foob", "fooba", "foobar" };
        static const char *const enc[] = { "",         "Zg==",     "Zm8=",    "Zm9v",
                                           "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy" };

        for (size_t i = 0; i < sizeof(plain) / sizeof(*plain); i++) {
                cleanup_free char *e = base64_encode(plain[i], strlen(plain[i]));
                cleanup_free char *d = NULL;
                size_t n = 99;

                assert_string_equal(e, enc[i]);
                assert_int_equal(base64_decode(enc[i], strlen(enc[i]), &d, &n, NULL), 0);
                assert_int_equal(n, strlen(plain[i]));
                assert_memory_equal(d, plain[i], n);
                assert_int_equal(d[n], '\0');
        }
}

static void test_newlines_and_bytes(void **state)
{
        cleanup_free char *d = NULL;
        size_t n = 0;

        /* K8S (Go): '\r' and '\n' are skipped anywhere */
        assert_int_equal(base64_decode("Zm9v\r\nYmFy\n", 11, &d, &n, NULL), 0);
        assert_int_equal(n, 6);
        assert_memory_equal(d, "foobar", 6);
        free(d);
        d = NULL;
        assert_int_equal(base64_decode("AP8A", 4, &d, &n, NULL), 0);
        assert_int_equal(n, 3);
        assert_memory_equal(d, "\0\xff\0", 3);
}

static void test_go_offsets(void **state)
{
        static const struct {
                const char *in;
                long at; /* -1: valid */
        } cases[] = {
                { "", -1 },        { "!!!!", 0 },    { "====", 0 },        { "x===", 1 },
                { "=AAA", 0 },     { "A=AA", 1 },    { "AA=A", 2 },        { "AA==A", 4 },
                { "AAA=AAAA", 4 }, { "AAAAA", 4 },   { "AAAAAA", 4 },      { "A=", 1 },
                { "A==", 1 },      { "AA=", 3 },     { "AA==", -1 },       { "AAA=", -1 },
                { "AAAA", -1 },    { "AAAAAA=", 7 }, { "YWJjZA=====", 8 }, { "A!\n", 1 },
                { "A=\n", 1 },     { "AA=\n", 4 },   { "AAA=\n", -1 },     { "abc!", 3 },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
                cleanup_error struct error *err = NULL;
                int r = base64_decode(cases[i].in, strlen(cases[i].in), NULL, NULL, &err);

                if (cases[i].at < 0) {
                        if (r != 0)
                                fail_msg("%s: %s", cases[i].in, err->message);
                        continue;
                }
                {
                        cleanup_free char *want =
                                xasprintf("illegal base64 data at input byte %ld", cases[i].at);
                        assert_int_equal(r, -EINVAL);
                        if (strcmp(err->message, want) != 0)
                                fail_msg("%s: want %s, got %s", cases[i].in, want, err->message);
                }
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_round_trip),
                cmocka_unit_test(test_newlines_and_bytes),
                cmocka_unit_test(test_go_offsets),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
