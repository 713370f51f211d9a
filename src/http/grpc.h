/* grpc.h: gRPC's own layer over HTTP/2 (grpc/doc/PROTOCOL-HTTP2.md), for flexlet's gRPC calls
 * over http/h2-client.h: the etcd store's (store/store-etcd.c), the prober's health checks
 * (node/prober.c) and the bench's minimal etcd client. A message travels as a
 * Length-Prefixed-Message (a compression flag, always 0 here, and a 4-byte big-endian length); a
 * call's outcome comes as the grpc-status and grpc-message headers, in the trailers or in a
 * trailers-only answer. Pure functions. */
#ifndef FLEXLET_HTTP_GRPC_H
#define FLEXLET_HTTP_GRPC_H

#include <stddef.h>
#include <stdint.h>
#include "base/strbuf.h"

#define GRPC_FRAME_HEADER 5

/* Appends a frame's header to out, its length left to grpc_frame_end; returns where it is. */
size_t grpc_frame_begin(struct strbuf *out);
/* Fills in the length of the frame begun at `at`: everything written after its header. */
void grpc_frame_end(struct strbuf *out, size_t at);

/* The first whole frame at buf[0..len): 1 with *ret_msg and *ret_len its message and *ret_used
 * the bytes the frame takes, 0 when buf holds less than one frame, -EBADMSG for a compressed
 * frame (never asked for) or one larger than max_len. */
int grpc_frame_read(const uint8_t *buf, size_t len, size_t max_len, const uint8_t **ret_msg,
                    size_t *ret_len, size_t *ret_used);

struct grpc_status {
        int code;          /* grpc-status; -1 until it came */
        char message[256]; /* grpc-message, percent-decoded, cut at 255 bytes */
};

#define GRPC_STATUS_INIT \
 {                       \
  .code = -1             \
 }

/* One header or trailer field of an answer: a grpc-status or grpc-message (names compared
 * without case) goes into *s, any other field is passed over. */
void grpc_status_field(struct grpc_status *s, const char *name, size_t name_len, const char *value,
                       size_t value_len);

#endif
