/* protowire.h: protocol buffer wire primitives (proto2/proto3 encoding), the layer under
 * api/protobuf.c's schema-driven codec.
 *
 * Writing: a `struct pbw` appends to a caller's strbuf. Nested messages are written in place
 * between pbw_begin and pbw_end: pbw_begin reserves PBW_LEN_MAX bytes for the length, pbw_end
 * writes the minimal varint there and records how much room is left over, and pbw_finish closes
 * every gap in one pass over the output, so a message of n bytes costs O(n) whatever its depth,
 * and the bytes are those Go's generated marshalers write (minimal varints). Until pbw_finish
 * the strbuf holds those gaps and must not be read; writers never fail (allocation aborts) except
 * pbw_begin beyond PB_MAX_DEPTH, which is a programming error caught by the caller's own depth
 * limit (api/protobuf.c checks SCHEMA_MAX_DEPTH first).
 *
 * Reading: a `struct pbr` walks a borrowed const buffer field by field. Every malformed input is
 * -EBADMSG and nothing is ever read past the end: a varint over 10 bytes or over 64 bits, a field
 * number of 0 or over 2^29-1, the group wire types 3 and 4 (and 6, 7), a length or fixed value
 * past the end, a nested message deeper than PB_MAX_DEPTH. Values are returned raw (varints as
 * uint64, length-delimited fields as a slice of the buffer); what they mean is the caller's. */
#ifndef FLEXLET_BASE_PROTOWIRE_H
#define FLEXLET_BASE_PROTOWIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/strbuf.h"

enum pb_wire {
        PB_WIRE_VARINT = 0,
        PB_WIRE_FIXED64 = 1,
        PB_WIRE_LEN = 2,
        PB_WIRE_FIXED32 = 5,
};

/* The deepest nesting of messages pbw_begin and pbr_sub accept (api/schema.h's
 * SCHEMA_MAX_DEPTH has the same value; api/protobuf.c asserts it). */
#define PB_MAX_DEPTH 64
/* The largest field number protobuf allows (2^29 - 1). */
#define PB_FIELD_MAX 536870911u
/* Bytes reserved for a nested message's length: lengths up to 2^35 - 1. */
#define PBW_LEN_MAX 5

/* ---- writing ---- */

struct pbw_fix {
        size_t at;   /* offset of the PBW_LEN_MAX-byte length slot in the strbuf */
        size_t used; /* bytes of the slot the length took (0 while open) */
};

struct pbw {
        struct strbuf *sb;
        size_t open[PB_MAX_DEPTH];  /* index into fix[] of each open message */
        size_t saved[PB_MAX_DEPTH]; /* bytes its closed children will give back */
        unsigned depth;
        struct pbw_fix *fix;
        size_t nfix, afix;
};

/* Starts writing at the end of sb (borrowed; it must outlive w). */
void pbw_init(struct pbw *w, struct strbuf *sb);
/* Closes the gaps left by nested messages; sb then holds exactly the encoded bytes. Every
 * pbw_begin must have had its pbw_end. Frees w's own memory; w may be pbw_init'ed again. */
void pbw_finish(struct pbw *w);
/* Frees w's own memory without finishing (on an error path; sb is then garbage after the start). */
void pbw_release(struct pbw *w);

/* The bare varint (no tag). */
void pbw_varint(struct pbw *w, uint64_t v);
/* The tag of field `field` with wire type wt. */
void pbw_tag(struct pbw *w, uint32_t field, enum pb_wire wt);
/* A varint field. int64 and int32 fields are plain varints of the two's complement value, so
 * a negative int32 takes 10 bytes (sign-extended), as protobuf specifies; no zigzag. */
void pbw_uint64(struct pbw *w, uint32_t field, uint64_t v);
void pbw_int64(struct pbw *w, uint32_t field, int64_t v);
void pbw_int32(struct pbw *w, uint32_t field, int32_t v);
void pbw_bool(struct pbw *w, uint32_t field, bool v);
/* A double as fixed64 (IEEE 754, little-endian). */
void pbw_double(struct pbw *w, uint32_t field, double v);
/* A length-delimited field of len bytes from data (bytes or string). */
void pbw_bytes(struct pbw *w, uint32_t field, const void *data, size_t len);
void pbw_string(struct pbw *w, uint32_t field, const char *s);
/* Opens a nested message in field `field`; -E2BIG beyond PB_MAX_DEPTH (nothing written). */
int pbw_begin(struct pbw *w, uint32_t field);
/* Closes the innermost open message. */
void pbw_end(struct pbw *w);

/* ---- reading ---- */

struct pbr {
        const uint8_t *p, *end;
        unsigned depth; /* nesting of this reader's message, 0 at the top */
};

struct pb_field {
        uint32_t num;
        enum pb_wire wire;
        uint64_t u;          /* VARINT, FIXED64, FIXED32: the value */
        const uint8_t *data; /* LEN: the bytes (a slice of the reader's buffer) */
        size_t len;          /* LEN: their length */
};

/* Reads buf[0..len) (borrowed). */
void pbr_init(struct pbr *r, const void *buf, size_t len);
/* The next field into *f: 1 when there was one, 0 at the end, -EBADMSG when malformed (then r
 * must not be used again). */
int pbr_next(struct pbr *r, struct pb_field *f);
/* A reader over f's bytes as a nested message of r: -EBADMSG when f is not length-delimited or
 * the nesting would pass PB_MAX_DEPTH. */
int pbr_sub(const struct pbr *r, const struct pb_field *f, struct pbr *ret_sub);
/* A varint from the front of buf[0..len): its length in bytes, or -EBADMSG. */
int pb_varint_decode(const uint8_t *buf, size_t len, uint64_t *ret);

#endif
