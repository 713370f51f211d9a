/* websocket.h: RFC 6455 framing, for the streaming subresources (exec, attach) that kubectl
 * speaks over WebSockets. libmicrohttpd hands over the upgraded connection as a plain socket and
 * gives no framing, so this module is that layer: the handshake's accept key, a frame writer and
 * an incremental reader that enforces the RFC's rules against a hostile peer. Pure functions
 * over memory: no sockets, no threads, no allocation beyond the reader's own buffer.
 *
 * What the reader refuses (-EPROTO, with the close code RFC 6455 §7.4.1 names for it in
 * *ret_close_code): reserved bits set (no extension is negotiated), an unknown opcode, a control
 * frame longer than 125 bytes or fragmented, a continuation without a message begun or a new
 * data frame inside a fragmented message, a 64-bit length with its top bit set, a frame that is
 * masked when it must not be or not masked when it must (§5.1: client to server frames are
 * masked, server to client ones are not), a text message that is not UTF-8 (1007). A message
 * (its fragments together) longer than max_message is -EMSGSIZE (1009), found from the frame
 * header before its payload is buffered. */
#ifndef FLEXLET_HTTP_WEBSOCKET_H
#define FLEXLET_HTTP_WEBSOCKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/strbuf.h"

enum ws_opcode {
        WS_OP_CONTINUATION = 0x0,
        WS_OP_TEXT = 0x1,
        WS_OP_BINARY = 0x2,
        WS_OP_CLOSE = 0x8,
        WS_OP_PING = 0x9,
        WS_OP_PONG = 0xA,
};

/* RFC 6455 §7.4.1 status codes */
#define WS_CLOSE_NORMAL         1000
#define WS_CLOSE_PROTOCOL_ERROR 1002
#define WS_CLOSE_INVALID_DATA   1007
#define WS_CLOSE_TOO_BIG        1009
#define WS_CLOSE_INTERNAL       1011

/* The largest control frame payload (RFC 6455 §5.5). */
#define WS_CONTROL_MAX 125

/* RFC 6455 §4.2.2: Sec-WebSocket-Accept for the client's Sec-WebSocket-Key: base64 of the SHA-1
 * of the key followed by the protocol's GUID. out gets 28 characters and a NUL. */
void ws_accept_key(const char *key, char out[static 29]);

/* Appends one whole frame (FIN set) of opcode with len bytes of payload to out. mask: NULL for
 * an unmasked frame (server to client), else the 4-byte masking key (client to server). */
void ws_frame_append(struct strbuf *out, enum ws_opcode opcode, const void *payload, size_t len,
                     const uint8_t *mask);

/* A message the reader assembled: data/len borrowed from the reader until the next call. */
struct ws_message {
        enum ws_opcode opcode; /* TEXT, BINARY, CLOSE, PING or PONG */
        const uint8_t *data;
        size_t len;
};

struct ws_reader {
        bool masked;               /* frames must be masked (a server reading a client) */
        size_t max_message;        /* the longest message (fragments together) accepted */
        struct strbuf in;          /* bytes received, not yet consumed */
        size_t in_off;             /* consumed prefix of in */
        struct strbuf msg;         /* a fragmented data message being assembled */
        enum ws_opcode msg_opcode; /* its opcode; CONTINUATION: none under way */
        struct strbuf out;         /* the message last returned (unmasked payload) */
};

void ws_reader_init(struct ws_reader *r, bool masked, size_t max_message);
void ws_reader_release(struct ws_reader *r);
/* Takes n received bytes. */
void ws_reader_push(struct ws_reader *r, const void *buf, size_t n);
/* The next complete message: 1 with *ret filled, 0 when more bytes are needed, -EPROTO or
 * -EMSGSIZE (see above) with *ret_close_code set; after an error the stream is beyond repair
 * (send a close with that code and end the connection). */
int ws_reader_next(struct ws_reader *r, struct ws_message *ret, unsigned *ret_close_code);

#endif
