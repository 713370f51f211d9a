/* test-websocket.c: RFC 6455 framing: the accept key of §1.3's example, frames written and read
 * back (every length encoding, masked and not), fragmented messages with a control frame in the
 * middle, bytes arriving one at a time, and every rule the reader enforces against a hostile
 * peer (websocket.h), each with its close code. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "base/alloc.h"
#include "http/websocket.h"

static const uint8_t key[4] = { 0x37, 0xfa, 0x21, 0x3d };

static void test_accept_key(void **state)
{
        char out[29];

        /* RFC 6455 §1.3's worked example */
        ws_accept_key("dGhlIHNhbXBsZSBub25jZQ==", out);
        assert_string_equal(out, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
}

static void test_rfc_examples(void **state)
{
        /* §5.7: a single-frame masked text message "Hello" */
        static const uint8_t hello_masked[] = { 0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d,
                                                0x7f, 0x9f, 0x4d, 0x51, 0x58 };
        struct ws_reader r;
        struct ws_message m;
        struct strbuf out;
        unsigned code = 0;

        strbuf_init(&out);
        ws_frame_append(&out, WS_OP_TEXT, "Hello", 5, key);
        assert_int_equal(out.len, sizeof(hello_masked));
        assert_memory_equal(out.buf, hello_masked, sizeof(hello_masked));
        ws_reader_init(&r, true, 1024);
        ws_reader_push(&r, hello_masked, sizeof(hello_masked));
        assert_int_equal(ws_reader_next(&r, &m, &code), 1);
        assert_int_equal(m.opcode, WS_OP_TEXT);
        assert_int_equal(m.len, 5);
        assert_memory_equal(m.data, "Hello", 5);
        assert_int_equal(ws_reader_next(&r, &m, &code), 0);
        ws_reader_release(&r);
        strbuf_release(&out);
}

static void test_lengths_round_trip(void **state)
{
        static const size_t lens[] = { 0, 1, 125, 126, 127, 65535, 65536, 200000 };

        for (int masked = 0; masked < 2; masked++)
                for (size_t i = 0; i < ARRAY_SIZE(lens); i++) {
                        cleanup_free uint8_t *payload = xmalloc(lens[i] + 1);
                        struct ws_reader r;
                        struct ws_message m;
                        struct strbuf out;
                        unsigned code = 0;

                        for (size_t j = 0; j < lens[i]; j++)
                                payload[j] = (uint8_t) (j * 7);
                        strbuf_init(&out);
                        ws_frame_append(&out, WS_OP_BINARY, payload, lens[i], masked ? key : NULL);
                        ws_reader_init(&r, masked, 1 << 20);
                        /* one byte at a time for the short ones: no partial frame is returned */
                        if (lens[i] < 200) {
                                for (size_t j = 0; j + 1 < out.len; j++) {
                                        ws_reader_push(&r, out.buf + j, 1);
                                        assert_int_equal(ws_reader_next(&r, &m, &code), 0);
                                }
                                ws_reader_push(&r, out.buf + out.len - 1, 1);
                        } else {
                                ws_reader_push(&r, out.buf, out.len);
                        }
                        assert_int_equal(ws_reader_next(&r, &m, &code), 1);
                        assert_int_equal(m.opcode, WS_OP_BINARY);
                        assert_int_equal(m.len, lens[i]);
                        if (lens[i])
                                assert_memory_equal(m.data, payload, lens[i]);
                        ws_reader_release(&r);
                        strbuf_release(&out);
                }
}

/* A frame header written by hand: fin, opcode, mask bit, 7-bit length, then extra bytes. */
static void raw(struct strbuf *sb, uint8_t b0, uint8_t b1, const void *rest, size_t n)
{
        strbuf_addch(sb, (char) b0);
        strbuf_addch(sb, (char) b1);
        strbuf_add(sb, rest, n);
}

static void test_fragments_with_ping(void **state)
{
        struct ws_reader r;
        struct ws_message m;
        struct strbuf in;
        unsigned code = 0;

        strbuf_init(&in);
        /* "ab" (not FIN), ping "p", "cd" (continuation, not FIN), "e" (continuation, FIN) */
        raw(&in, 0x02, 0x82, "\0\0\0\0ab", 6);
        raw(&in, 0x89, 0x81, "\0\0\0\0p", 5);
        raw(&in, 0x00, 0x82, "\0\0\0\0cd", 6);
        raw(&in, 0x80, 0x81, "\0\0\0\0e", 5);
        ws_reader_init(&r, true, 5);
        ws_reader_push(&r, in.buf, in.len);
        assert_int_equal(ws_reader_next(&r, &m, &code), 1);
        assert_int_equal(m.opcode, WS_OP_PING);
        assert_memory_equal(m.data, "p", 1);
        assert_int_equal(ws_reader_next(&r, &m, &code), 1);
        assert_int_equal(m.opcode, WS_OP_BINARY);
        assert_int_equal(m.len, 5);
        assert_memory_equal(m.data, "abcde", 5);
        assert_int_equal(ws_reader_next(&r, &m, &code), 0);
        ws_reader_release(&r);
        strbuf_release(&in);
}

static void test_refused(void **state)
{
        static const struct {
                const char *name;
                uint8_t bytes[16];
                size_t n;
                bool masked;
                int err;
                unsigned code;
        } cases[] = {
                { "reserved bit", { 0xc2, 0x80, 0, 0, 0, 0 }, 6, true, -EPROTO, 1002 },
                { "unknown opcode", { 0x83, 0x80, 0, 0, 0, 0 }, 6, true, -EPROTO, 1002 },
                { "unmasked from a client", { 0x82, 0x00 }, 2, true, -EPROTO, 1002 },
                { "masked from a server", { 0x82, 0x80, 0, 0, 0, 0 }, 6, false, -EPROTO, 1002 },
                { "fragmented ping", { 0x09, 0x80, 0, 0, 0, 0 }, 6, true, -EPROTO, 1002 },
                { "long ping", { 0x89, 0xfe, 0, 126 }, 4, true, -EPROTO, 1002 },
                { "lone continuation", { 0x80, 0x80, 0, 0, 0, 0 }, 6, true, -EPROTO, 1002 },
                { "top length bit",
                  { 0x82, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 0 },
                  10,
                  true,
                  -EPROTO,
                  1002 },
                /* 2^40 bytes announced: refused from the header, nothing buffered */
                { "too big", { 0x82, 0xff, 0, 0, 1, 0, 0, 0, 0, 0 }, 10, true, -EMSGSIZE, 1009 },
                { "bad utf-8", { 0x81, 0x81, 0, 0, 0, 0, 0xff }, 7, true, -EPROTO, 1007 },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                struct ws_reader r;
                struct ws_message m;
                unsigned code = 0;

                ws_reader_init(&r, cases[i].masked, 1 << 20);
                ws_reader_push(&r, cases[i].bytes, cases[i].n);
                if (ws_reader_next(&r, &m, &code) != cases[i].err || code != cases[i].code)
                        fail_msg("%s: not refused as expected", cases[i].name);
                ws_reader_release(&r);
        }
}

static void test_new_message_inside_fragments(void **state)
{
        struct ws_reader r;
        struct ws_message m;
        struct strbuf in;
        unsigned code = 0;

        strbuf_init(&in);
        raw(&in, 0x02, 0x81, "\0\0\0\0a", 5);
        raw(&in, 0x82, 0x81, "\0\0\0\0b", 5);
        ws_reader_init(&r, true, 100);
        ws_reader_push(&r, in.buf, in.len);
        assert_int_equal(ws_reader_next(&r, &m, &code), -EPROTO);
        assert_int_equal(code, 1002);
        ws_reader_release(&r);
        strbuf_release(&in);
}

static void test_fragments_over_limit(void **state)
{
        struct ws_reader r;
        struct ws_message m;
        struct strbuf in;
        unsigned code = 0;

        /* each fragment fits, together they do not */
        strbuf_init(&in);
        raw(&in, 0x02, 0x83, "\0\0\0\0abc", 7);
        raw(&in, 0x80, 0x83, "\0\0\0\0def", 7);
        ws_reader_init(&r, true, 5);
        ws_reader_push(&r, in.buf, in.len);
        assert_int_equal(ws_reader_next(&r, &m, &code), -EMSGSIZE);
        assert_int_equal(code, 1009);
        ws_reader_release(&r);
        strbuf_release(&in);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_accept_key),
                cmocka_unit_test(test_rfc_examples),
                cmocka_unit_test(test_lengths_round_trip),
                cmocka_unit_test(test_fragments_with_ping),
                cmocka_unit_test(test_refused),
                cmocka_unit_test(test_new_message_inside_fragments),
                cmocka_unit_test(test_fragments_over_limit),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
