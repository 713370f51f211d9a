/* test-spdy.c: SPDY/3.1 frames and the server session (spdy.h): header blocks written and read
 * back through the one zlib context per direction (and the zlib header naming the SPDY/3
 * dictionary by its Adler-32, which Go's reader checks), bytes arriving one at a time, every
 * refusal of the reader, and the session's answers: streams refused by id, data on streams that
 * are not open, PINGs echoed, WINDOW_UPDATEs for what was consumed, long data cut into frames. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "base/alloc.h"
#include "http/spdy.h"

static const struct spdy_header pf_headers[] = {
        { .name = "streamtype", .value = "data" },
        { .name = "port", .value = "8080" },
        { .name = "requestid", .value = "0" },
};

/* A client's SYN_STREAM, as spdystream writes it. */
static void syn_stream(struct spdy_writer *w, struct strbuf *out, uint32_t id, uint8_t flags)
{
        spdy_write_headers_frame(w, out, SPDY_SYN_STREAM, flags, id, pf_headers, 3);
}

static void test_headers_round_trip(void **state)
{
        struct spdy_writer w;
        struct spdy_reader r;
        struct spdy_frame f;
        struct strbuf out;
        const char *why = NULL;

        spdy_writer_init(&w);
        spdy_reader_init(&r, 1 << 20);
        strbuf_init(&out);
        syn_stream(&w, &out, 1, 0);
        /* the zlib header (after the 18 bytes of frame and fields) sets FDICT with the SPDY/3
         * dictionary's Adler-32, 0xe3c6a7c2 */
        assert_true(out.len > 24);
        assert_int_equal((uint8_t) out.buf[18] & 0x0f, 8);
        assert_true((uint8_t) out.buf[19] & 0x20);
        assert_memory_equal(out.buf + 20, "\xe3\xc6\xa7\xc2", 4);
        syn_stream(&w, &out, 3, SPDY_FLAG_FIN);
        /* one byte at a time: nothing until a whole frame is there */
        for (size_t i = 0; i < out.len; i++) {
                int ret;

                spdy_reader_push(&r, out.buf + i, 1);
                ret = spdy_reader_next(&r, &f, &why);
                assert_true(ret >= 0);
                if (ret == 0)
                        continue;
                assert_int_equal(f.type, SPDY_SYN_STREAM);
                assert_int_equal(f.n_headers, 3);
                assert_string_equal(spdy_frame_header(&f, "port"), "8080");
                assert_string_equal(spdy_frame_header(&f, "streamtype"), "data");
                assert_string_equal(spdy_frame_header(&f, "requestid"), "0");
                assert_null(spdy_frame_header(&f, "Port"));
                if (f.stream_id == 3)
                        assert_int_equal(f.flags, SPDY_FLAG_FIN);
        }
        assert_int_equal(f.stream_id, 3);
        strbuf_release(&out);
        spdy_reader_release(&r);
        spdy_writer_release(&w);
}

static void test_fixed_frames(void **state)
{
        struct spdy_reader r;
        struct spdy_frame f;
        struct strbuf out;
        const char *why = NULL;
        static const uint32_t ids[] = { 7 }, values[] = { 65536 };

        spdy_reader_init(&r, 1 << 20);
        strbuf_init(&out);
        spdy_write_rst_stream(&out, 5, SPDY_CANCEL);
        spdy_write_ping(&out, 9);
        spdy_write_goaway(&out, 11, SPDY_GOAWAY_OK);
        spdy_write_window_update(&out, 0, 4096);
        spdy_write_settings(&out, ids, values, 1);
        spdy_write_data(&out, 13, SPDY_FLAG_FIN, "hello", 5);
        /* an unknown control frame type is skipped (§2.2.1) */
        strbuf_add(&out, "\x80\x03\x00\x42\x00\x00\x00\x02xx", 10);
        spdy_reader_push(&r, out.buf, out.len);
        assert_int_equal(spdy_reader_next(&r, &f, &why), 1);
        assert_int_equal(f.type, SPDY_RST_STREAM);
        assert_int_equal(f.stream_id, 5);
        assert_int_equal(f.status, SPDY_CANCEL);
        assert_int_equal(spdy_reader_next(&r, &f, &why), 1);
        assert_int_equal(f.type, SPDY_PING);
        assert_int_equal(f.ping_id, 9);
        assert_int_equal(spdy_reader_next(&r, &f, &why), 1);
        assert_int_equal(f.type, SPDY_GOAWAY);
        assert_int_equal(f.stream_id, 11);
        assert_int_equal(spdy_reader_next(&r, &f, &why), 1);
        assert_int_equal(f.type, SPDY_WINDOW_UPDATE);
        assert_int_equal(f.delta, 4096);
        assert_int_equal(spdy_reader_next(&r, &f, &why), 1);
        assert_int_equal(f.type, SPDY_SETTINGS);
        assert_int_equal(f.n_settings, 1);
        assert_int_equal(spdy_reader_next(&r, &f, &why), 1);
        assert_int_equal(f.type, SPDY_DATA);
        assert_int_equal(f.stream_id, 13);
        assert_int_equal(f.flags, SPDY_FLAG_FIN);
        assert_int_equal(f.len, 5);
        assert_memory_equal(f.data, "hello", 5);
        assert_int_equal(spdy_reader_next(&r, &f, &why), 0);
        strbuf_release(&out);
        spdy_reader_release(&r);
}

/* The reader's answer to bytes (a fresh reader each time). */
static int read_one(const void *buf, size_t n, size_t max_frame, const char **why)
{
        struct spdy_reader r;
        struct spdy_frame f;
        int ret;

        spdy_reader_init(&r, max_frame);
        spdy_reader_push(&r, buf, n);
        ret = spdy_reader_next(&r, &f, why);
        spdy_reader_release(&r);
        return ret;
}

/* A SYN_STREAM (id 1) whose header block is raw compressed here (zlib without a preset
 * dictionary: the reader sets one only when the stream asks for it). */
static void syn_with_block(struct strbuf *out, const void *raw, size_t n)
{
        uint8_t z[4096];
        z_stream zs = { 0 };
        size_t zn;

        assert_int_equal(deflateInit(&zs, Z_BEST_COMPRESSION), Z_OK);
        zs.next_in = (Bytef *) raw;
        zs.avail_in = (uInt) n;
        zs.next_out = z;
        zs.avail_out = sizeof(z);
        assert_int_not_equal(deflate(&zs, Z_SYNC_FLUSH), Z_STREAM_ERROR);
        zn = sizeof(z) - zs.avail_out;
        deflateEnd(&zs);
        strbuf_add(out, "\x80\x03\x00\x01", 4);
        strbuf_add(out,
                   (uint8_t[]){ 0, (uint8_t) ((zn + 10) >> 16), (uint8_t) ((zn + 10) >> 8),
                                (uint8_t) (zn + 10) },
                   4);
        strbuf_add(out, "\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00", 10);
        strbuf_add(out, z, zn);
}

static void test_refusals(void **state)
{
        const char *why = NULL;
        struct strbuf sb;

        /* SPDY/2 */
        assert_int_equal(
                read_one("\x80\x02\x00\x06\x00\x00\x00\x04\x00\x00\x00\x01", 12, 1024, &why),
                -EPROTO);
        /* RST_STREAM of 4 bytes, and on stream 0 */
        assert_int_equal(
                read_one("\x80\x03\x00\x03\x00\x00\x00\x04\x00\x00\x00\x01", 12, 1024, &why),
                -EPROTO);
        assert_int_equal(read_one("\x80\x03\x00\x03\x00\x00\x00\x08\x00\x00\x00\x00\x00\x00\x00"
                                  "\x05",
                                  16, 1024, &why),
                         -EPROTO);
        /* PING with a flag */
        assert_int_equal(
                read_one("\x80\x03\x00\x06\x01\x00\x00\x04\x00\x00\x00\x01", 12, 1024, &why),
                -EPROTO);
        /* data on stream 0 */
        assert_int_equal(read_one("\x00\x00\x00\x00\x00\x00\x00\x01x", 9, 1024, &why), -EPROTO);
        /* too large: refused from the header alone */
        assert_int_equal(read_one("\x00\x00\x00\x01\x00\x10\x00\x00", 8, 1024, &why), -EMSGSIZE);
        /* a header block that is not zlib */
        assert_int_equal(
                read_one("\x80\x03\x00\x02\x00\x00\x00\x08\x00\x00\x00\x01garb", 16, 1024, &why),
                -EPROTO);
        assert_non_null(why);

        /* blocks that inflate but break the rules: upper case, a name twice, empty name, too
         * many pairs, bytes after the pairs, a length past the end */
        static const struct {
                const char *raw;
                size_t n;
        } bad[] = {
                { "\x00\x00\x00\x01\x00\x00\x00\x04Port\x00\x00\x00\x01x", 17 },
                { "\x00\x00\x00\x02\x00\x00\x00\x01p\x00\x00\x00\x01x\x00\x00\x00\x01p\x00\x00\x00"
                  "\x01y",
                  24 },
                { "\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x01x", 13 },
                { "\x00\x00\x10\x00", 4 },
                { "\x00\x00\x00\x00zz", 6 },
                { "\x00\x00\x00\x01\x00\x00\x00\x01p\x00\x00\x01\x00x", 14 },
        };
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                strbuf_init(&sb);
                syn_with_block(&sb, bad[i].raw, bad[i].n);
                assert_int_equal(read_one(sb.buf, sb.len, 1 << 20, &why), -EPROTO);
                strbuf_release(&sb);
        }
}

/* A zlib bomb: a small block that inflates past SPDY_MAX_HEADER_BYTES. */
static void test_bomb(void **state)
{
        cleanup_free char *raw = xcalloc(1, 200000);
        const char *why = NULL;
        struct strbuf sb;

        strbuf_init(&sb);
        syn_with_block(&sb, raw, 200000);
        assert_true(sb.len < 4096);
        assert_int_equal(read_one(sb.buf, sb.len, 1 << 20, &why), -EPROTO);
        strbuf_release(&sb);
}

/* The frames in s->out, read as a client. */
static size_t drain(struct spdy_session *s, struct spdy_reader *cr, struct spdy_frame *frames,
                    size_t max)
{
        const char *why = NULL;
        size_t n = 0;

        spdy_reader_push(cr, s->out.buf, s->out.len);
        strbuf_reset(&s->out);
        while (n < max && spdy_reader_next(cr, &frames[n], &why) == 1)
                n++;
        return n;
}

static void test_session(void **state)
{
        struct spdy_session s;
        struct spdy_writer cw;
        struct spdy_reader cr;
        struct spdy_event ev;
        struct spdy_frame fr[8];
        struct strbuf in;
        const char *why = NULL;
        cleanup_free char *big = xcalloc(1, 100000);

        spdy_session_init(&s, 1 << 20);
        spdy_writer_init(&cw);
        spdy_reader_init(&cr, 1 << 20);
        strbuf_init(&in);
        syn_stream(&cw, &in, 3, 0);
        syn_stream(&cw, &in, 2, 0); /* even: a client's ids are odd */
        syn_stream(&cw, &in, 1, 0); /* not above 3 */
        spdy_write_data(&in, 3, 0, "abc", 3);
        spdy_write_data(&in, 7, 0, "x", 1); /* never opened */
        spdy_write_ping(&in, 5);
        spdy_write_data(&in, 3, SPDY_FLAG_FIN, NULL, 0);
        spdy_write_data(&in, 3, 0, "late", 4); /* after the peer's FIN */
        spdy_session_push(&s, in.buf, in.len);

        assert_int_equal(spdy_session_next(&s, &ev, &why), 1);
        assert_int_equal(ev.kind, SPDY_EV_STREAM);
        assert_int_equal(ev.stream_id, 3);
        assert_int_equal(ev.n_headers, 3);
        spdy_session_reply(&s, 3);
        assert_int_equal(spdy_session_next(&s, &ev, &why), 1);
        assert_int_equal(ev.kind, SPDY_EV_DATA);
        assert_int_equal(ev.len, 3);
        assert_false(ev.fin);
        assert_int_equal(spdy_session_next(&s, &ev, &why), 1);
        assert_int_equal(ev.kind, SPDY_EV_DATA);
        assert_true(ev.fin);
        assert_true(spdy_session_has_stream(&s, 3)); /* our half is still open */
        assert_int_equal(spdy_session_next(&s, &ev, &why), 1);
        assert_int_equal(ev.kind, SPDY_EV_RESET);
        assert_int_equal(ev.status, SPDY_STREAM_ALREADY_CLOSED);
        assert_int_equal(spdy_session_next(&s, &ev, &why), 0);

        /* what the session wrote, in order: SYN_REPLY 3 (before the next frames were read),
         * RST 2, RST 1, RST 7, PING 5, RST 3 */
        assert_int_equal(drain(&s, &cr, fr, 8), 6);
        assert_int_equal(fr[0].type, SPDY_SYN_REPLY);
        assert_int_equal(fr[0].stream_id, 3);
        assert_int_equal(fr[0].n_headers, 0);
        assert_int_equal(fr[1].type, SPDY_RST_STREAM);
        assert_int_equal(fr[1].stream_id, 2);
        assert_int_equal(fr[1].status, SPDY_PROTOCOL_ERROR);
        assert_int_equal(fr[2].stream_id, 1);
        assert_int_equal(fr[2].status, SPDY_PROTOCOL_ERROR);
        assert_int_equal(fr[3].type, SPDY_RST_STREAM);
        assert_int_equal(fr[3].stream_id, 7);
        assert_int_equal(fr[3].status, SPDY_INVALID_STREAM);
        assert_int_equal(fr[4].type, SPDY_PING);
        assert_int_equal(fr[4].ping_id, 5);
        assert_int_equal(fr[5].status, SPDY_STREAM_ALREADY_CLOSED);
        assert_false(spdy_session_has_stream(&s, 3));

        /* a new stream: long data is cut into frames, FIN on the last; consumed data is
         * acknowledged for the stream and the session */
        strbuf_reset(&in);
        syn_stream(&cw, &in, 5, 0);
        spdy_session_push(&s, in.buf, in.len);
        assert_int_equal(spdy_session_next(&s, &ev, &why), 1);
        spdy_session_reply(&s, 5);
        spdy_session_data(&s, 5, big, 100000, true);
        spdy_session_data(&s, 5, "more", 4, false); /* our half is closed: nothing */
        spdy_session_consumed(&s, 5, 40000);
        assert_int_equal(drain(&s, &cr, fr, 8), 5);
        assert_int_equal(fr[1].type, SPDY_DATA);
        assert_int_equal(fr[1].len + fr[2].len, 100000);
        assert_int_equal(fr[1].flags, 0);
        assert_int_equal(fr[2].flags, SPDY_FLAG_FIN);
        assert_int_equal(fr[3].type, SPDY_WINDOW_UPDATE);
        assert_int_equal(fr[3].stream_id, 5);
        assert_int_equal(fr[3].delta, 40000);
        assert_int_equal(fr[4].stream_id, 0);
        assert_int_equal(fr[4].delta, 40000);

        /* a broken frame ends the session with GOAWAY PROTOCOL_ERROR */
        spdy_session_push(&s, "\x80\x02\x00\x06\x00\x00\x00\x04\x00\x00\x00\x01", 12);
        assert_int_equal(spdy_session_next(&s, &ev, &why), -EPROTO);
        assert_int_equal(drain(&s, &cr, fr, 8), 1);
        assert_int_equal(fr[0].type, SPDY_GOAWAY);
        assert_int_equal(fr[0].stream_id, 5);
        assert_int_equal(fr[0].status, SPDY_GOAWAY_PROTOCOL_ERROR);

        strbuf_release(&in);
        spdy_reader_release(&cr);
        spdy_writer_release(&cw);
        spdy_session_release(&s);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_headers_round_trip),
                cmocka_unit_test(test_fixed_frames),
                cmocka_unit_test(test_refusals),
                cmocka_unit_test(test_bomb),
                cmocka_unit_test(test_session),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
