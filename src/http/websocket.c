/* websocket.c: RFC 6455 frames: the accept key of the opening handshake, writing a frame, and
 * reading frames into messages with every rule of §5 checked (websocket.h lists them). Not the
 * handshake's HTTP (http-server.c) nor what a message means (the channel protocols of the
 * streaming subresources). */
#include <errno.h>
#include <gnutls/crypto.h>
#include <string.h>

#include "base/alloc.h"
#include "base/base64.h"
#include "base/utf8.h"
#include "http/websocket.h"

/* RFC 6455 §1.3 */
#define WS_GUID "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

void ws_accept_key(const char *key, char out[static 29])
{
        cleanup_free char *cat = xasprintf("%s%s", key, WS_GUID);
        cleanup_free char *b64 = NULL;
        unsigned char sha[20];

        if (gnutls_hash_fast(GNUTLS_DIG_SHA1, cat, strlen(cat), sha) < 0)
                abort(); /* SHA-1 is always there; nothing sensible to do otherwise */
        b64 = base64_encode(sha, sizeof(sha));
        memcpy(out, b64, 28);
        out[28] = '\0';
}

void ws_frame_append(struct strbuf *out, enum ws_opcode opcode, const void *payload, size_t len,
                     const uint8_t *mask)
{
        uint8_t head[14];
        size_t n = 0;

        head[n++] = (uint8_t) (0x80 | (opcode & 0x0f));
        if (len < 126) {
                head[n++] = (uint8_t) ((mask ? 0x80 : 0) | len);
        } else if (len <= 0xffff) {
                head[n++] = (uint8_t) ((mask ? 0x80 : 0) | 126);
                head[n++] = (uint8_t) (len >> 8);
                head[n++] = (uint8_t) len;
        } else {
                head[n++] = (uint8_t) ((mask ? 0x80 : 0) | 127);
                for (int i = 7; i >= 0; i--)
                        head[n++] = (uint8_t) ((uint64_t) len >> (8 * i));
        }
        if (mask) {
                memcpy(head + n, mask, 4);
                n += 4;
        }
        strbuf_add(out, head, n);
        if (!mask) {
                strbuf_add(out, payload, len);
                return;
        }
        strbuf_grow(out, len);
        for (size_t i = 0; i < len; i++)
                out->buf[out->len + i] = (char) (((const uint8_t *) payload)[i] ^ mask[i & 3]);
        out->len += len;
        out->buf[out->len] = '\0';
}

void ws_reader_init(struct ws_reader *r, bool masked, size_t max_message)
{
        *r = (struct ws_reader){ .masked = masked, .max_message = max_message };
        strbuf_init(&r->in);
        strbuf_init(&r->msg);
        strbuf_init(&r->out);
}

void ws_reader_release(struct ws_reader *r)
{
        strbuf_release(&r->in);
        strbuf_release(&r->msg);
        strbuf_release(&r->out);
}

void ws_reader_push(struct ws_reader *r, const void *buf, size_t n)
{
        strbuf_compact(&r->in, &r->in_off);
        strbuf_add(&r->in, buf, n);
}

static int fail(unsigned code, unsigned *ret_close_code, int err)
{
        *ret_close_code = code;
        return err;
}

static bool is_control(unsigned op)
{
        return op >= 0x8;
}

int ws_reader_next(struct ws_reader *r, struct ws_message *ret, unsigned *ret_close_code)
{
        for (;;) {
                const uint8_t *p = (const uint8_t *) r->in.buf + r->in_off;
                size_t avail = r->in.len - r->in_off, head = 2;
                unsigned op;
                bool fin, masked;
                uint64_t len;
                uint8_t mask[4] = { 0 };
                struct strbuf *dst;

                if (avail < 2)
                        return 0;
                fin = p[0] & 0x80;
                op = p[0] & 0x0f;
                masked = p[1] & 0x80;
                len = p[1] & 0x7f;
                /* RFC 6455 §5.2: RSV1-3 must be 0 unless an extension says otherwise */
                if (p[0] & 0x70)
                        return fail(WS_CLOSE_PROTOCOL_ERROR, ret_close_code, -EPROTO);
                if (op != WS_OP_CONTINUATION && op != WS_OP_TEXT && op != WS_OP_BINARY &&
                    op != WS_OP_CLOSE && op != WS_OP_PING && op != WS_OP_PONG)
                        return fail(WS_CLOSE_PROTOCOL_ERROR, ret_close_code, -EPROTO);
                /* §5.1: a server closes on an unmasked client frame; a client on a masked one */
                if (masked != r->masked)
                        return fail(WS_CLOSE_PROTOCOL_ERROR, ret_close_code, -EPROTO);
                /* §5.5: control frames are short and never fragmented */
                if (is_control(op) && (!fin || len > WS_CONTROL_MAX))
                        return fail(WS_CLOSE_PROTOCOL_ERROR, ret_close_code, -EPROTO);
                /* §5.4: a continuation continues something; a new message waits for the end */
                if (op == WS_OP_CONTINUATION && r->msg_opcode == WS_OP_CONTINUATION)
                        return fail(WS_CLOSE_PROTOCOL_ERROR, ret_close_code, -EPROTO);
                if ((op == WS_OP_TEXT || op == WS_OP_BINARY) && r->msg_opcode != WS_OP_CONTINUATION)
                        return fail(WS_CLOSE_PROTOCOL_ERROR, ret_close_code, -EPROTO);
                if (len == 126) {
                        if (avail < 4)
                                return 0;
                        len = (uint64_t) p[2] << 8 | p[3];
                        head = 4;
                } else if (len == 127) {
                        if (avail < 10)
                                return 0;
                        len = 0;
                        for (int i = 0; i < 8; i++)
                                len = len << 8 | p[2 + i];
                        /* §5.2: the most significant bit must be 0 */
                        if (len >> 63)
                                return fail(WS_CLOSE_PROTOCOL_ERROR, ret_close_code, -EPROTO);
                        head = 10;
                }
                /* the size is refused from the header, before the payload is buffered */
                if (!is_control(op) && (len > r->max_message || r->msg.len > r->max_message - len))
                        return fail(WS_CLOSE_TOO_BIG, ret_close_code, -EMSGSIZE);
                if (masked) {
                        if (avail < head + 4)
                                return 0;
                        memcpy(mask, p + head, 4);
                        head += 4;
                }
                if (avail - head < len)
                        return 0;

                /* a whole frame is in: unmask it where it goes */
                dst = is_control(op) || (fin && op != WS_OP_CONTINUATION) ? &r->out : &r->msg;
                if (dst == &r->out)
                        strbuf_reset(&r->out);
                strbuf_grow(dst, (size_t) len);
                for (size_t i = 0; i < len; i++)
                        dst->buf[dst->len + i] = (char) (p[head + i] ^ mask[i & 3]);
                dst->len += (size_t) len;
                dst->buf[dst->len] = '\0';
                r->in_off += head + (size_t) len;

                if (op == WS_OP_TEXT || op == WS_OP_BINARY) {
                        if (!fin) {
                                r->msg_opcode = op;
                                continue;
                        }
                } else if (op == WS_OP_CONTINUATION) {
                        if (!fin)
                                continue;
                        op = r->msg_opcode;
                        r->msg_opcode = WS_OP_CONTINUATION;
                        strbuf_reset(&r->out);
                        strbuf_add(&r->out, r->msg.buf, r->msg.len);
                        strbuf_reset(&r->msg);
                }
                /* §8.1: a text message is UTF-8 */
                if (op == WS_OP_TEXT && !utf8_valid(r->out.buf, r->out.len))
                        return fail(WS_CLOSE_INVALID_DATA, ret_close_code, -EPROTO);
                *ret = (struct ws_message){ .opcode = (enum ws_opcode) op,
                                            .data = (const uint8_t *) r->out.buf,
                                            .len = r->out.len };
                return 1;
        }
}
