/* spdy.h: SPDY/3.1 framing and the server side of a session, for `kubectl port-forward`
 * (portforward.k8s.io), which kubectl and the kubelet speak through the Go library spdystream
 * (github.com/moby/spdystream), over a plain `Upgrade: SPDY/3.1` connection or tunnelled inside
 * a WebSocket (the API server unwraps the tunnel; this layer sees a byte stream either way).
 *
 * The wire (the SPDY/3 draft, §2.2-§2.6, and SPDY/3.1's session window): a control frame is
 * [1|version 15][type 16][flags 8][length 24] then its fields; a data frame is
 * [0|stream id 31][flags 8][length 24] then the payload. SYN_STREAM, SYN_REPLY and HEADERS carry
 * a name/value block: a 32-bit count, then per pair a 32-bit length and the lower-case name, a
 * 32-bit length and the value (several values joined by NUL), compressed with zlib with the
 * SPDY/3 dictionary, one compression context per direction for the whole session, each block
 * ending in a sync flush.
 *
 * What the reader refuses (-EPROTO with *ret_why saying what, after which the session is beyond
 * repair: send GOAWAY with PROTOCOL_ERROR and close): a control frame of another version, a
 * length that does not fit its type, a header block that does not inflate (wrong dictionary,
 * bad deflate data, a block that does not end where its frame ends), one that inflates past
 * SPDY_MAX_HEADER_BYTES (a zlib bomb), one with more than SPDY_MAX_HEADERS pairs, an empty or
 * upper-case name, a name twice, a length past the block's end, stream id 0 where a stream is
 * needed, a PING with flags, a frame longer than the reader's max_frame (-EMSGSIZE, from the
 * header, before the payload is buffered). Unknown control frame types are skipped (§2.2.1).
 *
 * The session (struct spdy_session, server side: streams are opened by the client, odd ids,
 * increasing) checks what the frames mean as spdystream's own server does, answering with
 * RST_STREAM rather than ending the session: a SYN_STREAM whose id is even, 0 or not above the
 * last one (PROTOCOL_ERROR), one past SPDY_MAX_STREAMS open at once (REFUSED_STREAM), data for a
 * stream that is not open (INVALID_STREAM) or whose peer half is closed (STREAM_ALREADY_CLOSED).
 * PINGs from the peer are answered with the same id; the answers, like every frame the session
 * writes, are appended to its out buffer for the caller to send.
 *
 * Flow control: the session acknowledges what it consumed with WINDOW_UPDATE frames (per stream
 * and, SPDY/3.1, for the session, each time half the 64 KiB initial window is used), so a peer
 * that keeps to its windows never stalls. It does not hold its own sending to the peer's
 * windows, nor reset a peer that overruns its own: spdystream, the only peer of this protocol
 * (kubectl and the kubelet alike), neither sends WINDOW_UPDATE nor honours it (its connection's
 * frame handler drops the frame as unhandled), so either rule would stall or reset every
 * transfer over 64 KiB. Backpressure is the transport's: the caller stops reading what it cannot
 * pass on. Pure functions over memory (no sockets, no threads). */
#ifndef FLEXLET_HTTP_SPDY_H
#define FLEXLET_HTTP_SPDY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#include "base/strbuf.h"

#define SPDY_VERSION 3

enum spdy_type {
        SPDY_DATA = 0, /* not a control frame type: a data frame */
        SPDY_SYN_STREAM = 1,
        SPDY_SYN_REPLY = 2,
        SPDY_RST_STREAM = 3,
        SPDY_SETTINGS = 4,
        SPDY_PING = 6,
        SPDY_GOAWAY = 7,
        SPDY_HEADERS = 8,
        SPDY_WINDOW_UPDATE = 9,
};

#define SPDY_FLAG_FIN            0x01
#define SPDY_FLAG_UNIDIRECTIONAL 0x02

/* RST_STREAM status codes (§2.6.3) */
enum spdy_rst_status {
        SPDY_PROTOCOL_ERROR = 1,
        SPDY_INVALID_STREAM = 2,
        SPDY_REFUSED_STREAM = 3,
        SPDY_UNSUPPORTED_VERSION = 4,
        SPDY_CANCEL = 5,
        SPDY_INTERNAL_ERROR = 6,
        SPDY_FLOW_CONTROL_ERROR = 7,
        SPDY_STREAM_IN_USE = 8,
        SPDY_STREAM_ALREADY_CLOSED = 9,
        SPDY_FRAME_TOO_LARGE = 11,
};

/* GOAWAY status codes (§2.6.6) */
#define SPDY_GOAWAY_OK             0
#define SPDY_GOAWAY_PROTOCOL_ERROR 1

#define SPDY_INITIAL_WINDOW   65536
#define SPDY_MAX_HEADER_BYTES (64 * 1024)
#define SPDY_MAX_HEADERS      128
/* streams open at once in a session; more are refused (RST_STREAM REFUSED_STREAM) */
#define SPDY_MAX_STREAMS 1024

struct spdy_header {
        const char *name; /* NUL-terminated; the value may hold NULs between several values */
        const char *value;
        size_t value_len;
};

/* One frame the reader parsed: everything borrowed from the reader until its next call. */
struct spdy_frame {
        enum spdy_type type;
        uint8_t flags;
        uint32_t stream_id;  /* DATA, SYN_STREAM, SYN_REPLY, RST_STREAM, HEADERS, WINDOW_UPDATE;
                              * GOAWAY: the last good stream id */
        uint32_t assoc_id;   /* SYN_STREAM */
        uint8_t priority;    /* SYN_STREAM, 0 (highest) to 7 */
        uint32_t status;     /* RST_STREAM, GOAWAY */
        uint32_t ping_id;    /* PING */
        uint32_t delta;      /* WINDOW_UPDATE */
        uint32_t n_settings; /* SETTINGS: the pairs are in data, 8 bytes each */
        const struct spdy_header *headers; /* SYN_STREAM, SYN_REPLY, HEADERS */
        size_t n_headers;
        const uint8_t *data; /* DATA: the payload; SETTINGS: the entries */
        size_t len;
};

/* The value of header name in f (the names are lower case on the wire), or NULL. */
const char *spdy_frame_header(const struct spdy_frame *f, const char *name);

struct spdy_reader {
        size_t max_frame;
        struct strbuf in;
        size_t in_off;
        z_stream z;
        bool z_ready;
        struct strbuf block; /* the inflated header block of the frame last returned */
        struct spdy_header headers[SPDY_MAX_HEADERS];
};

void spdy_reader_init(struct spdy_reader *r, size_t max_frame);
void spdy_reader_release(struct spdy_reader *r);
void spdy_reader_push(struct spdy_reader *r, const void *buf, size_t n);
/* The next frame: 1 with *ret filled, 0 when more bytes are needed, -EPROTO or -EMSGSIZE with
 * *ret_why (static text) saying why (see above). */
int spdy_reader_next(struct spdy_reader *r, struct spdy_frame *ret, const char **ret_why);

/* The writer: one deflate context for the session's outgoing header blocks. */
struct spdy_writer {
        z_stream z;
        bool z_ready;
};

void spdy_writer_init(struct spdy_writer *w);
void spdy_writer_release(struct spdy_writer *w);
/* SYN_STREAM, SYN_REPLY or HEADERS (type) with the n headers (names lower case, no NUL in them)
 * appended to out. stream_id and flags as the frame takes them; assoc_id and priority for
 * SYN_STREAM only. */
void spdy_write_headers_frame(struct spdy_writer *w, struct strbuf *out, enum spdy_type type,
                              uint8_t flags, uint32_t stream_id, const struct spdy_header *h,
                              size_t n);
void spdy_write_data(struct strbuf *out, uint32_t stream_id, uint8_t flags, const void *data,
                     size_t len);
void spdy_write_rst_stream(struct strbuf *out, uint32_t stream_id, uint32_t status);
void spdy_write_ping(struct strbuf *out, uint32_t id);
void spdy_write_goaway(struct strbuf *out, uint32_t last_good, uint32_t status);
void spdy_write_window_update(struct strbuf *out, uint32_t stream_id, uint32_t delta);
/* SETTINGS with n (id, value) pairs. */
void spdy_write_settings(struct strbuf *out, const uint32_t *ids, const uint32_t *values, size_t n);

/* ------------------------------------------------------------------ the session (server) */

enum spdy_event_kind {
        SPDY_EV_NONE,
        SPDY_EV_STREAM, /* a new stream from the peer: stream_id, headers; fin when it came
                         * half-closed (FIN or UNIDIRECTIONAL) */
        SPDY_EV_DATA,   /* data on an open stream: data/len (may be 0 with fin), fin: the
                         * peer's half is closed now */
        SPDY_EV_RESET,  /* the peer reset the stream (status): forget it */
        SPDY_EV_GOAWAY, /* the peer goes away: no new streams; end when done */
};

struct spdy_event {
        enum spdy_event_kind kind;
        uint32_t stream_id;
        bool fin;
        uint32_t status;
        const struct spdy_header *headers;
        size_t n_headers;
        const uint8_t *data;
        size_t len;
};

struct spdy_stream_state;

struct spdy_session {
        struct spdy_reader rd;
        struct spdy_writer wr;
        struct strbuf out;     /* frames to send, in order */
        uint32_t last_peer_id; /* the highest stream id the peer opened */
        bool goaway_sent;
        struct spdy_stream_state *streams; /* the open ones */
        size_t n_streams, cap_streams;
        uint32_t session_unacked; /* data consumed, not yet acknowledged (SPDY/3.1 stream 0) */
};

void spdy_session_init(struct spdy_session *s, size_t max_frame);
void spdy_session_release(struct spdy_session *s);
/* Takes n received bytes. */
void spdy_session_push(struct spdy_session *s, const void *buf, size_t n);
/* The next event: 1 with *ev filled (borrowed until the next call), 0 when more bytes are
 * needed, -EPROTO/-EMSGSIZE when the session must end: a GOAWAY with PROTOCOL_ERROR is already
 * in out, *ret_why says why. Frames the session answers itself (PING, SETTINGS, WINDOW_UPDATE,
 * a stream refused) give no event. */
int spdy_session_next(struct spdy_session *s, struct spdy_event *ev, const char **ret_why);
/* Accepts stream id with an empty SYN_REPLY. */
void spdy_session_reply(struct spdy_session *s, uint32_t stream_id);
/* Data on stream id (fin: our half is closed after it); nothing once our half is closed or the
 * stream is gone. Payloads larger than a frame may carry are cut into frames. */
void spdy_session_data(struct spdy_session *s, uint32_t stream_id, const void *data, size_t len,
                       bool fin);
/* Resets stream id (status) and forgets it. */
void spdy_session_reset(struct spdy_session *s, uint32_t stream_id, uint32_t status);
/* Acknowledges len bytes of stream id's data as consumed (WINDOW_UPDATEs when due). */
void spdy_session_consumed(struct spdy_session *s, uint32_t stream_id, size_t len);
/* Whether stream id is still known (open in at least one direction). */
bool spdy_session_has_stream(const struct spdy_session *s, uint32_t stream_id);
/* GOAWAY (status) with the last stream id the peer opened, once. */
void spdy_session_goaway(struct spdy_session *s, uint32_t status);

#endif
