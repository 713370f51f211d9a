/* test-protowire.c: protobuf wire primitives. The expected bytes are the protobuf encoding
 * specification's own examples (protobuf.dev/programming-guides/encoding: 150 as 96 01, the
 * "testing" string, -1 as an int32) and nested lengths as Go's marshalers write them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/protowire.h"

static void assert_bytes(const struct strbuf *sb, const char *want, size_t n)
{
        if (sb->len != n || memcmp(sb->buf, want, n) != 0) {
                char got[512] = "";
                for (size_t i = 0; i < sb->len && i < 100; i++)
                        snprintf(got + strlen(got), sizeof(got) - strlen(got), "%02x ",
                                 (unsigned char) sb->buf[i]);
                fail_msg("got %zu bytes: %s(want %zu)", sb->len, got, n);
        }
}

static void test_scalars(void **state)
{
        struct strbuf sb;
        struct pbw w;

        (void) state;
        strbuf_init(&sb);
        pbw_init(&w, &sb);
        pbw_int64(&w, 1, 150);
        pbw_string(&w, 2, "testing");
        pbw_int32(&w, 3, -1);
        pbw_bool(&w, 4, true);
        pbw_double(&w, 5, 1.0);
        pbw_finish(&w);
        assert_bytes(&sb,
                     "\x08\x96\x01"
                     "\x12\x07testing"
                     "\x18\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"
                     "\x20\x01"
                     "\x29\x00\x00\x00\x00\x00\x00\xf0\x3f",
                     3 + 9 + 11 + 2 + 9);
        strbuf_release(&sb);
}

/* Nested messages: short lengths take one byte, a 200-byte child two, and the compaction
 * keeps what was in the strbuf before pbw_init. */
static void test_nested(void **state)
{
        struct strbuf sb, want;
        struct pbw w;
        char big[200];

        (void) state;
        memset(big, 'x', sizeof(big));
        strbuf_init(&sb);
        strbuf_add(&sb, "k8s\0", 4);
        pbw_init(&w, &sb);
        assert_int_equal(pbw_begin(&w, 1), 0);
        assert_int_equal(pbw_begin(&w, 2), 0);
        pbw_string(&w, 1, "a");
        pbw_end(&w);
        assert_int_equal(pbw_begin(&w, 3), 0);
        pbw_bytes(&w, 1, big, sizeof(big));
        pbw_end(&w);
        pbw_end(&w);
        assert_int_equal(pbw_begin(&w, 4), 0); /* empty message */
        pbw_end(&w);
        pbw_finish(&w);

        strbuf_init(&want);
        strbuf_add(&want, "k8s\0", 4);
        /* field 1: 0x12 0x03 (0x0a 0x01 'a') + 0x1a 0xcb 0x01 (0x0a 0xc8 0x01 big) = 5 + 206 */
        strbuf_add(&want, "\x0a\xd3\x01", 3);
        strbuf_add(&want,
                   "\x12\x03\x0a\x01"
                   "a",
                   5);
        strbuf_add(&want, "\x1a\xcb\x01\x0a\xc8\x01", 6);
        strbuf_add(&want, big, sizeof(big));
        strbuf_add(&want, "\x22\x00", 2);
        assert_bytes(&sb, want.buf, want.len);
        strbuf_release(&want);
        strbuf_release(&sb);
}

static void test_depth_limit(void **state)
{
        struct strbuf sb;
        struct pbw w;

        (void) state;
        strbuf_init(&sb);
        pbw_init(&w, &sb);
        for (int i = 0; i < PB_MAX_DEPTH; i++)
                assert_int_equal(pbw_begin(&w, 1), 0);
        assert_int_equal(pbw_begin(&w, 1), -E2BIG);
        for (int i = 0; i < PB_MAX_DEPTH; i++)
                pbw_end(&w);
        pbw_finish(&w);
        assert_int_equal(sb.len, 2 * PB_MAX_DEPTH);
        strbuf_release(&sb);
}

static void test_read(void **state)
{
        static const uint8_t msg[] = { 0x08, 0x96, 0x01, 0x12, 0x07, 't', 'e', 's', 't',
                                       'i',  'n',  'g',  0x29, 0,    0,   0,   0,   0,
                                       0,    0xf0, 0x3f, 0x35, 1,    2,   3,   4 };
        struct pb_field f;
        struct pbr r, sub;

        (void) state;
        pbr_init(&r, msg, sizeof(msg));
        assert_int_equal(pbr_next(&r, &f), 1);
        assert_int_equal(f.num, 1);
        assert_int_equal(f.wire, PB_WIRE_VARINT);
        assert_int_equal(f.u, 150);
        assert_int_equal(pbr_next(&r, &f), 1);
        assert_int_equal(f.num, 2);
        assert_int_equal(f.wire, PB_WIRE_LEN);
        assert_int_equal(f.len, 7);
        assert_memory_equal(f.data, "testing", 7);
        assert_int_equal(pbr_sub(&r, &f, &sub), 0);
        assert_int_equal(sub.depth, 1);
        assert_int_equal(pbr_next(&r, &f), 1);
        assert_int_equal(f.wire, PB_WIRE_FIXED64);
        assert_int_equal(f.u, 0x3ff0000000000000ull);
        assert_int_equal(pbr_sub(&r, &f, &sub), -EBADMSG); /* not length-delimited */
        assert_int_equal(pbr_next(&r, &f), 1);
        assert_int_equal(f.num, 6);
        assert_int_equal(f.wire, PB_WIRE_FIXED32);
        assert_int_equal(f.u, 0x04030201);
        assert_int_equal(pbr_next(&r, &f), 0);
        assert_int_equal(pbr_next(&r, &f), 0);

        pbr_init(&r, NULL, 0);
        assert_int_equal(pbr_next(&r, &f), 0);
}

/* Every malformed input is -EBADMSG. */
static void test_malformed(void **state)
{
        static const struct {
                const char *what;
                const char *bytes;
                size_t n;
        } cases[] = {
                { "truncated tag", "\x80", 1 },
                { "field 0", "\x00\x01", 2 },
                { "field 2^29", "\x80\x80\x80\x80\x10\x00", 6 },
                { "group start", "\x0b", 1 },
                { "group end", "\x0c", 1 },
                { "wire type 6", "\x0e", 1 },
                { "wire type 7", "\x0f", 1 },
                { "truncated varint", "\x08\x80\x80", 3 },
                { "varint of 11 bytes", "\x08\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x00", 12 },
                { "varint over 64 bits", "\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02", 11 },
                { "length past the end",
                  "\x0a\x05"
                  "abcd",
                  6 },
                { "huge length", "\x0a\xff\xff\xff\xff\xff\xff\xff\xff\x7f", 10 },
                { "truncated fixed64", "\x09\x01\x02\x03\x04\x05\x06\x07", 8 },
                { "truncated fixed32", "\x0d\x01\x02\x03", 4 },
        };
        struct pb_field f;
        struct pbr r;

        (void) state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                int ret;
                pbr_init(&r, cases[i].bytes, cases[i].n);
                while ((ret = pbr_next(&r, &f)) == 1)
                        ;
                if (ret != -EBADMSG)
                        fail_msg("%s: got %d, want -EBADMSG", cases[i].what, ret);
        }
}

static void test_sub_depth(void **state)
{
        static const uint8_t msg[] = { 0x0a, 0x00 };
        struct pb_field f;
        struct pbr r, sub;

        (void) state;
        pbr_init(&r, msg, sizeof(msg));
        r.depth = PB_MAX_DEPTH - 1;
        assert_int_equal(pbr_next(&r, &f), 1);
        assert_int_equal(pbr_sub(&r, &f, &sub), 0);
        assert_int_equal(pbr_sub(&sub, &f, &r), -EBADMSG);
}

static void test_varint_roundtrip(void **state)
{
        static const uint64_t values[] = {
                0, 1, 127, 128, 300, 16383, 16384, 1ull << 35, UINT64_MAX, (uint64_t) INT64_MIN
        };
        (void) state;
        for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
                struct strbuf sb;
                struct pbw w;
                uint64_t got;

                strbuf_init(&sb);
                pbw_init(&w, &sb);
                pbw_varint(&w, values[i]);
                pbw_finish(&w);
                assert_int_equal(pb_varint_decode((const uint8_t *) sb.buf, sb.len, &got),
                                 (int) sb.len);
                assert_int_equal(got, values[i]);
                strbuf_release(&sb);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_scalars),          cmocka_unit_test(test_nested),
                cmocka_unit_test(test_depth_limit),      cmocka_unit_test(test_read),
                cmocka_unit_test(test_malformed),        cmocka_unit_test(test_sub_depth),
                cmocka_unit_test(test_varint_roundtrip),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
