/* fuzz-spdy.c: libFuzzer target for the SPDY/3.1 reader and server session (spdy.h), as the
 * kubelet reads a hostile client. The first byte picks how the input is cut into pushes (so
 * partial frames and header blocks across pushes are exercised). Every stream the session
 * reports carries at most SPDY_MAX_HEADERS headers with non-empty lower-case names; its headers,
 * written back through a writer, read back equal; the session's own output (replies, data,
 * resets, window updates) always parses. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "http/spdy.h"

static void check_headers(const struct spdy_header *h, size_t n)
{
        struct spdy_writer w;
        struct spdy_reader r;
        struct spdy_frame f;
        struct strbuf out;
        const char *why = NULL;

        if (n > SPDY_MAX_HEADERS)
                abort();
        for (size_t i = 0; i < n; i++) {
                if (!h[i].name[0])
                        abort();
                for (const char *c = h[i].name; *c; c++)
                        if (*c >= 'A' && *c <= 'Z')
                                abort();
        }
        spdy_writer_init(&w);
        spdy_reader_init(&r, 1 << 20);
        strbuf_init(&out);
        spdy_write_headers_frame(&w, &out, SPDY_HEADERS, 0, 1, h, n);
        spdy_reader_push(&r, out.buf, out.len);
        if (spdy_reader_next(&r, &f, &why) != 1 || f.n_headers != n)
                abort();
        for (size_t i = 0; i < n; i++)
                if (strcmp(f.headers[i].name, h[i].name) != 0 ||
                    f.headers[i].value_len != h[i].value_len ||
                    memcmp(f.headers[i].value, h[i].value, h[i].value_len) != 0)
                        abort();
        strbuf_release(&out);
        spdy_reader_release(&r);
        spdy_writer_release(&w);
}

/* What the session wrote must read back as whole frames (r reads the whole session's output:
 * its header blocks share one zlib stream). */
static void check_output(struct spdy_session *s, struct spdy_reader *r)
{
        struct spdy_frame f;
        const char *why = NULL;
        int ret;

        spdy_reader_push(r, s->out.buf, s->out.len);
        while ((ret = spdy_reader_next(r, &f, &why)) == 1)
                ;
        if (ret != 0 || r->in_off != r->in.len)
                abort();
        strbuf_reset(&s->out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct spdy_session s;
        struct spdy_reader out;
        size_t chunk, off = 1;
        int ret = 0;

        if (size < 1)
                return 0;
        chunk = (size_t) data[0] % 61 + 1;
        spdy_session_init(&s, 64 * 1024);
        spdy_reader_init(&out, 1 << 20);
        while (off < size && ret >= 0) {
                size_t n = size - off < chunk ? size - off : chunk;
                struct spdy_event ev;
                const char *why = NULL;

                spdy_session_push(&s, data + off, n);
                off += n;
                while ((ret = spdy_session_next(&s, &ev, &why)) == 1) {
                        if (ev.kind == SPDY_EV_STREAM) {
                                check_headers(ev.headers, ev.n_headers);
                                spdy_session_reply(&s, ev.stream_id);
                        } else if (ev.kind == SPDY_EV_DATA) {
                                spdy_session_consumed(&s, ev.stream_id, ev.len);
                                spdy_session_data(&s, ev.stream_id, ev.data, ev.len, ev.fin);
                        }
                }
                if (ret < 0 && !why)
                        abort();
                check_output(&s, &out);
        }
        spdy_reader_release(&out);
        spdy_session_release(&s);
        return 0;
}
