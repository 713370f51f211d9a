/* test-grpc.c: gRPC's framing and status headers (http/grpc.h): frames written and read back,
 * partial, back to back and malformed frames, and the grpc-status / grpc-message fields of an
 * answer. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "http/grpc.h"

/* A begun frame holds what was written after its header, its length big-endian; what the
 * buffer held before stays. */
static void test_frame_begin_end(void **state)
{
        const uint8_t *msg;
        size_t len, used, at;
        struct strbuf sb;

        (void) state;
        strbuf_init(&sb);
        strbuf_add(&sb, "x", 1);
        at = grpc_frame_begin(&sb);
        assert_int_equal(at, 1);
        for (int i = 0; i < 300; i++)
                strbuf_add(&sb, "m", 1);
        grpc_frame_end(&sb, at);
        assert_memory_equal(sb.buf, "x\x00\x00\x00\x01\x2c", 6);
        assert_int_equal(
                grpc_frame_read((const uint8_t *) sb.buf + 1, sb.len - 1, 1024, &msg, &len, &used),
                1);
        assert_int_equal(len, 300);
        assert_int_equal(used, sb.len - 1);
        /* an empty message */
        at = grpc_frame_begin(&sb);
        grpc_frame_end(&sb, at);
        assert_memory_equal(sb.buf + at, "\x00\x00\x00\x00\x00", 5);
        strbuf_release(&sb);
}

static void test_frame(void **state)
{
        static const uint8_t whole[] = { 0, 0, 0, 0, 3, 'a', 'b', 'c' };
        static const uint8_t empty[] = { 0, 0, 0, 0, 0 };
        const uint8_t *msg = NULL;
        size_t len = 0, used = 0;

        (void) state;
        assert_int_equal(grpc_frame_read(whole, sizeof(whole), 1024, &msg, &len, &used), 1);
        assert_ptr_equal(msg, whole + 5);
        assert_int_equal(len, 3);
        assert_int_equal(used, 8);
        assert_int_equal(grpc_frame_read(empty, sizeof(empty), 1024, &msg, &len, &used), 1);
        assert_ptr_equal(msg, empty + 5);
        assert_int_equal(len, 0);
        assert_int_equal(used, 5);
        /* exactly max_len */
        assert_int_equal(grpc_frame_read(whole, sizeof(whole), 3, &msg, &len, &used), 1);
        assert_int_equal(len, 3);
}

/* Less than a frame: 0, the outputs untouched. */
static void test_frame_partial(void **state)
{
        static const uint8_t whole[] = { 0, 0, 0, 0, 1, 'x' };
        uint8_t *big = calloc(1, 5 + 300);
        const uint8_t *msg = NULL;
        size_t len = 77, used = 77;

        (void) state;
        for (size_t n = 0; n < sizeof(whole); n++) {
                assert_int_equal(grpc_frame_read(whole, n, 1024, &msg, &len, &used), 0);
                assert_null(msg);
                assert_int_equal(len, 77);
                assert_int_equal(used, 77);
        }
        assert_int_equal(grpc_frame_read(whole, sizeof(whole), 1024, &msg, &len, &used), 1);
        assert_int_equal(len, 1);
        assert_int_equal(used, 6);
        assert_non_null(big);
        big[3] = 0x01;
        big[4] = 0x2c; /* 300 */
        assert_int_equal(grpc_frame_read(big, 5 + 299, 1024, &msg, &len, &used), 0);
        assert_int_equal(grpc_frame_read(big, 5 + 300, 1024, &msg, &len, &used), 1);
        assert_int_equal(len, 300);
        assert_int_equal(used, 305);
        /* the largest length: still only partial, no overflow */
        big[1] = big[2] = big[3] = big[4] = 0xff;
        msg = NULL;
        assert_int_equal(grpc_frame_read(big, 5 + 300, SIZE_MAX, &msg, &len, &used), 0);
        assert_null(msg);
        free(big);
}

/* Two frames back to back, and a third begun: ret_used steps from one to the next. */
static void test_frame_back_to_back(void **state)
{
        static const uint8_t buf[] = { 0, 0, 0,   0,   2,   0x08, 0x01, 0, 0, 0,
                                       0, 3, 'x', 'y', 'z', 0,    0,    0, 0 };
        const uint8_t *p = buf, *msg;
        size_t left = sizeof(buf), len, used;

        (void) state;
        assert_int_equal(grpc_frame_read(p, left, 1024, &msg, &len, &used), 1);
        assert_ptr_equal(msg, buf + 5);
        assert_int_equal(len, 2);
        assert_int_equal(used, 7);
        p += used;
        left -= used;
        assert_int_equal(grpc_frame_read(p, left, 1024, &msg, &len, &used), 1);
        assert_ptr_equal(msg, buf + 12);
        assert_int_equal(len, 3);
        assert_memory_equal(msg, "xyz", 3);
        assert_int_equal(used, 8);
        p += used;
        left -= used;
        assert_int_equal(left, 4);
        assert_int_equal(grpc_frame_read(p, left, 1024, &msg, &len, &used), 0);
}

/* A compressed frame (flag 1, or any other non-zero flag), a length over max_len: -EBADMSG,
 * whether the message has arrived or not. */
static void test_frame_bad(void **state)
{
        static const uint8_t compressed[] = { 1, 0, 0, 0, 2, 'h', 'i' };
        static const uint8_t flag_80[] = { 0x80, 0, 0, 0, 0 };
        static const uint8_t too_long[] = { 0, 0, 0, 0, 4, 'a', 'b', 'c', 'd' };
        static const uint8_t huge[] = { 0, 0xff, 0xff, 0xff, 0xff };
        const uint8_t *msg;
        size_t len, used;

        (void) state;
        assert_int_equal(grpc_frame_read(compressed, sizeof(compressed), 1024, &msg, &len, &used),
                         -EBADMSG);
        assert_int_equal(grpc_frame_read(compressed, 5, 1024, &msg, &len, &used), -EBADMSG);
        assert_int_equal(grpc_frame_read(flag_80, sizeof(flag_80), 1024, &msg, &len, &used),
                         -EBADMSG);
        assert_int_equal(grpc_frame_read(too_long, sizeof(too_long), 3, &msg, &len, &used),
                         -EBADMSG);
        assert_int_equal(grpc_frame_read(too_long, 5, 3, &msg, &len, &used), -EBADMSG);
        assert_int_equal(grpc_frame_read(huge, sizeof(huge), 16 << 20, &msg, &len, &used),
                         -EBADMSG);
}

/* ---- status ---- */

/* The field of a header line as written here ("name: value\r\n"), its first len bytes. */
static void header_n(struct grpc_status *s, const char *line, size_t len)
{
        const char *colon = memchr(line, ':', len);

        assert_non_null(colon);
        grpc_status_field(s, line, (size_t) (colon - line), colon + 1,
                          len - (size_t) (colon + 1 - line));
}

static void header(struct grpc_status *s, const char *line)
{
        header_n(s, line, strlen(line));
}

/* grpc-status and grpc-message whatever their case; the message loses its leading spaces and
 * line end and is percent-decoded; other lines change nothing. */
static void test_status_header(void **state)
{
        struct grpc_status s = GRPC_STATUS_INIT;

        (void) state;
        assert_int_equal(s.code, -1);
        header(&s, "content-type: application/grpc\r\n");
        header(&s, "grpc-status-details-bin: AAAA\r\n");
        assert_int_equal(s.code, -1);
        assert_string_equal(s.message, "");
        header(&s, "Grpc-Status: 14\r\n");
        assert_int_equal(s.code, 14);
        header(&s, "grpc-message:   etcdserver: no leader%2C retry\r\n");
        assert_string_equal(s.message, "etcdserver: no leader, retry");
        header(&s, "GRPC-MESSAGE:\r\n");
        assert_string_equal(s.message, "");
        header(&s, "grpc-status: 0\r\n");
        assert_int_equal(s.code, 0);
}

/* A message longer than the buffer is cut at 255 bytes; a field is read only to its length. */
static void test_status_header_long(void **state)
{
        struct grpc_status s = GRPC_STATUS_INIT;
        char line[600];

        (void) state;
        strcpy(line, "grpc-message: ");
        memset(line + 14, 'a', 400);
        strcpy(line + 414, "\r\n");
        header(&s, line);
        assert_int_equal(strlen(s.message), 255);
        assert_int_equal(strspn(s.message, "a"), 255);
        /* the same bytes, the line said to end after "grpc-message: aaa" */
        header_n(&s, line, 17);
        assert_string_equal(s.message, "aaa");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_frame_begin_end),
                cmocka_unit_test(test_frame),
                cmocka_unit_test(test_frame_partial),
                cmocka_unit_test(test_frame_back_to_back),
                cmocka_unit_test(test_frame_bad),
                cmocka_unit_test(test_status_header),
                cmocka_unit_test(test_status_header_long),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
