/* fuzz-websocket.c: libFuzzer target for the RFC 6455 frame reader (websocket.h), as a server
 * reads a hostile client. The first byte picks how the input is cut into pushes (so partial
 * headers and payloads are exercised); every message returned must be within the limit, a
 * control message within 125 bytes, a text message UTF-8; and a message written back with
 * ws_frame_append must read back equal. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "http/websocket.h"

#define MAX_MESSAGE 4096

static void check_round_trip(const struct ws_message *m)
{
        static const uint8_t key[4] = { 1, 2, 3, 4 };
        struct strbuf out;
        struct ws_reader r;
        struct ws_message back;
        unsigned code = 0;

        strbuf_init(&out);
        ws_frame_append(&out, m->opcode, m->data, m->len, key);
        ws_reader_init(&r, true, MAX_MESSAGE);
        ws_reader_push(&r, out.buf, out.len);
        if (ws_reader_next(&r, &back, &code) != 1 || back.opcode != m->opcode ||
            back.len != m->len || (m->len && memcmp(back.data, m->data, m->len) != 0))
                abort();
        ws_reader_release(&r);
        strbuf_release(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct ws_reader r;
        size_t chunk, off = 1;

        if (size < 1)
                return 0;
        chunk = (size_t) data[0] % 17 + 1;
        ws_reader_init(&r, true, MAX_MESSAGE);
        while (off < size) {
                size_t n = size - off < chunk ? size - off : chunk;
                struct ws_message m;
                unsigned code = 0;
                int ret;

                ws_reader_push(&r, data + off, n);
                off += n;
                while ((ret = ws_reader_next(&r, &m, &code)) == 1) {
                        if (m.len > MAX_MESSAGE)
                                abort();
                        if (m.opcode >= WS_OP_CLOSE && m.len > WS_CONTROL_MAX)
                                abort();
                        if (m.opcode == WS_OP_TEXT && !utf8_valid((const char *) m.data, m.len))
                                abort();
                        check_round_trip(&m);
                }
                if (ret < 0) {
                        if (code != WS_CLOSE_PROTOCOL_ERROR && code != WS_CLOSE_TOO_BIG &&
                            code != WS_CLOSE_INVALID_DATA)
                                abort();
                        break;
                }
        }
        ws_reader_release(&r);
        return 0;
}
