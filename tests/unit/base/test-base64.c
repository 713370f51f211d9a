/* test-base64.c: Go's base64.StdEncoding. The vectors are RFC 4648 section 10's; the refusals
 * are what Go's StdEncoding.DecodeString refuses (encoding/base64 decode tests). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "base/base64.h"

static const struct {
        const char *plain, *encoded;
} vectors[] = {
        { "", "" },
        { "f", "Zg==" },
        { "fo", "Zm8=" },
        { "foo", "Zm9v" },
        { "foob", "Zm9vYg==" },
        { "fooba", "Zm9vYmE=" },
        { "foobar", "Zm9vYmFy" },
};

static void test_vectors(void **state)
{
        (void) state;
        for (size_t i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
                struct strbuf sb;

                strbuf_init(&sb);
                base64_encode(&sb, vectors[i].plain, strlen(vectors[i].plain));
                assert_string_equal(sb.buf, vectors[i].encoded);
                strbuf_reset(&sb);
                assert_int_equal(base64_decode(vectors[i].encoded, strlen(vectors[i].encoded), &sb),
                                 0);
                assert_int_equal(sb.len, strlen(vectors[i].plain));
                assert_memory_equal(sb.buf, vectors[i].plain, sb.len);
                strbuf_release(&sb);
        }
}

static void test_binary(void **state)
{
        static const unsigned char bytes[] = { 0, 0xff, 0xfe, 0x80, 0x00, 0x3f };
        struct strbuf sb, back;

        (void) state;
        strbuf_init(&sb);
        strbuf_init(&back);
        base64_encode(&sb, bytes, sizeof(bytes));
        assert_string_equal(sb.buf, "AP/+gAA/");
        assert_int_equal(base64_decode(sb.buf, sb.len, &back), 0);
        assert_int_equal(back.len, sizeof(bytes));
        assert_memory_equal(back.buf, bytes, sizeof(bytes));
        strbuf_release(&sb);
        strbuf_release(&back);
}

static void test_refused(void **state)
{
        static const char *const bad[] = {
                "Zg",       /* padding required */
                "Zg=",      /* half the padding */
                "Z===",     /* padding after one digit */
                "Zm9v!",    /* not in the alphabet */
                "Zg==Zg==", /* data after the padding */
                "Zm9v-_",   /* the URL alphabet */
                "Zm 9v",    /* a space */
        };
        (void) state;
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                struct strbuf sb;

                strbuf_init(&sb);
                strbuf_addstr(&sb, "keep");
                if (base64_decode(bad[i], strlen(bad[i]), &sb) != -EINVAL)
                        fail_msg("\"%s\" was accepted", bad[i]);
                assert_string_equal(sb.buf, "keep");
                strbuf_release(&sb);
        }
}

/* Go skips '\r' and '\n' anywhere, the padding included. */
static void test_line_breaks(void **state)
{
        struct strbuf sb;

        (void) state;
        strbuf_init(&sb);
        assert_int_equal(base64_decode("Zm9v\r\nYg=\n=\n", 12, &sb), 0);
        assert_string_equal(sb.buf, "foob");
        strbuf_release(&sb);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_vectors),
                cmocka_unit_test(test_binary),
                cmocka_unit_test(test_refused),
                cmocka_unit_test(test_line_breaks),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
