/* spdy.c: SPDY/3.1 frames (the SPDY/3 draft §2.2-§2.6) and the server side of a session:
 * reading frames with every length and field checked, the name/value header blocks through
 * zlib with the SPDY/3 dictionary, writing frames, and the session's stream bookkeeping
 * (spdy.h says what is refused and why flow control is advisory). Not the sockets nor what the
 * streams carry (node/kubelet-portforward.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "http/spdy.h"

/* The SPDY/3 draft §2.6.10.1: the dictionary both ends give zlib for header blocks (1423
 * bytes; the same array Chromium and spdystream's spdy/dictionary.go carry). */
static const uint8_t spdy_dictionary[] = {
        0x00, 0x00, 0x00, 0x07, 0x6f, 0x70, 0x74, 0x69, 0x6f, 0x6e, 0x73, 0x00, 0x00, 0x00, 0x04,
        0x68, 0x65, 0x61, 0x64, 0x00, 0x00, 0x00, 0x04, 0x70, 0x6f, 0x73, 0x74, 0x00, 0x00, 0x00,
        0x03, 0x70, 0x75, 0x74, 0x00, 0x00, 0x00, 0x06, 0x64, 0x65, 0x6c, 0x65, 0x74, 0x65, 0x00,
        0x00, 0x00, 0x05, 0x74, 0x72, 0x61, 0x63, 0x65, 0x00, 0x00, 0x00, 0x06, 0x61, 0x63, 0x63,
        0x65, 0x70, 0x74, 0x00, 0x00, 0x00, 0x0e, 0x61, 0x63, 0x63, 0x65, 0x70, 0x74, 0x2d, 0x63,
        0x68, 0x61, 0x72, 0x73, 0x65, 0x74, 0x00, 0x00, 0x00, 0x0f, 0x61, 0x63, 0x63, 0x65, 0x70,
        0x74, 0x2d, 0x65, 0x6e, 0x63, 0x6f, 0x64, 0x69, 0x6e, 0x67, 0x00, 0x00, 0x00, 0x0f, 0x61,
        0x63, 0x63, 0x65, 0x70, 0x74, 0x2d, 0x6c, 0x61, 0x6e, 0x67, 0x75, 0x61, 0x67, 0x65, 0x00,
        0x00, 0x00, 0x0d, 0x61, 0x63, 0x63, 0x65, 0x70, 0x74, 0x2d, 0x72, 0x61, 0x6e, 0x67, 0x65,
        0x73, 0x00, 0x00, 0x00, 0x03, 0x61, 0x67, 0x65, 0x00, 0x00, 0x00, 0x05, 0x61, 0x6c, 0x6c,
        0x6f, 0x77, 0x00, 0x00, 0x00, 0x0d, 0x61, 0x75, 0x74, 0x68, 0x6f, 0x72, 0x69, 0x7a, 0x61,
        0x74, 0x69, 0x6f, 0x6e, 0x00, 0x00, 0x00, 0x0d, 0x63, 0x61, 0x63, 0x68, 0x65, 0x2d, 0x63,
        0x6f, 0x6e, 0x74, 0x72, 0x6f, 0x6c, 0x00, 0x00, 0x00, 0x0a, 0x63, 0x6f, 0x6e, 0x6e, 0x65,
        0x63, 0x74, 0x69, 0x6f, 0x6e, 0x00, 0x00, 0x00, 0x0c, 0x63, 0x6f, 0x6e, 0x74, 0x65, 0x6e,
        0x74, 0x2d, 0x62, 0x61, 0x73, 0x65, 0x00, 0x00, 0x00, 0x10, 0x63, 0x6f, 0x6e, 0x74, 0x65,
        0x6e, 0x74, 0x2d, 0x65, 0x6e, 0x63, 0x6f, 0x64, 0x69, 0x6e, 0x67, 0x00, 0x00, 0x00, 0x10,
        0x63, 0x6f, 0x6e, 0x74, 0x65, 0x6e, 0x74, 0x2d, 0x6c, 0x61, 0x6e, 0x67, 0x75, 0x61, 0x67,
        0x65, 0x00, 0x00, 0x00, 0x0e, 0x63, 0x6f, 0x6e, 0x74, 0x65, 0x6e, 0x74, 0x2d, 0x6c, 0x65,
        0x6e, 0x67, 0x74, 0x68, 0x00, 0x00, 0x00, 0x10, 0x63, 0x6f, 0x6e, 0x74, 0x65, 0x6e, 0x74,
        0x2d, 0x6c, 0x6f, 0x63, 0x61, 0x74, 0x69, 0x6f, 0x6e, 0x00, 0x00, 0x00, 0x0b, 0x63, 0x6f,
        0x6e, 0x74, 0x65, 0x6e, 0x74, 0x2d, 0x6d, 0x64, 0x35, 0x00, 0x00, 0x00, 0x0d, 0x63, 0x6f,
        0x6e, 0x74, 0x65, 0x6e, 0x74, 0x2d, 0x72, 0x61, 0x6e, 0x67, 0x65, 0x00, 0x00, 0x00, 0x0c,
        0x63, 0x6f, 0x6e, 0x74, 0x65, 0x6e, 0x74, 0x2d, 0x74, 0x79, 0x70, 0x65, 0x00, 0x00, 0x00,
        0x04, 0x64, 0x61, 0x74, 0x65, 0x00, 0x00, 0x00, 0x04, 0x65, 0x74, 0x61, 0x67, 0x00, 0x00,
        0x00, 0x06, 0x65, 0x78, 0x70, 0x65, 0x63, 0x74, 0x00, 0x00, 0x00, 0x07, 0x65, 0x78, 0x70,
        0x69, 0x72, 0x65, 0x73, 0x00, 0x00, 0x00, 0x04, 0x66, 0x72, 0x6f, 0x6d, 0x00, 0x00, 0x00,
        0x04, 0x68, 0x6f, 0x73, 0x74, 0x00, 0x00, 0x00, 0x08, 0x69, 0x66, 0x2d, 0x6d, 0x61, 0x74,
        0x63, 0x68, 0x00, 0x00, 0x00, 0x11, 0x69, 0x66, 0x2d, 0x6d, 0x6f, 0x64, 0x69, 0x66, 0x69,
        0x65, 0x64, 0x2d, 0x73, 0x69, 0x6e, 0x63, 0x65, 0x00, 0x00, 0x00, 0x0d, 0x69, 0x66, 0x2d,
        0x6e, 0x6f, 0x6e, 0x65, 0x2d, 0x6d, 0x61, 0x74, 0x63, 0x68, 0x00, 0x00, 0x00, 0x08, 0x69,
        0x66, 0x2d, 0x72, 0x61, 0x6e, 0x67, 0x65, 0x00, 0x00, 0x00, 0x13, 0x69, 0x66, 0x2d, 0x75,
        0x6e, 0x6d, 0x6f, 0x64, 0x69, 0x66, 0x69, 0x65, 0x64, 0x2d, 0x73, 0x69, 0x6e, 0x63, 0x65,
        0x00, 0x00, 0x00, 0x0d, 0x6c, 0x61, 0x73, 0x74, 0x2d, 0x6d, 0x6f, 0x64, 0x69, 0x66, 0x69,
        0x65, 0x64, 0x00, 0x00, 0x00, 0x08, 0x6c, 0x6f, 0x63, 0x61, 0x74, 0x69, 0x6f, 0x6e, 0x00,
        0x00, 0x00, 0x0c, 0x6d, 0x61, 0x78, 0x2d, 0x66, 0x6f, 0x72, 0x77, 0x61, 0x72, 0x64, 0x73,
        0x00, 0x00, 0x00, 0x06, 0x70, 0x72, 0x61, 0x67, 0x6d, 0x61, 0x00, 0x00, 0x00, 0x12, 0x70,
        0x72, 0x6f, 0x78, 0x79, 0x2d, 0x61, 0x75, 0x74, 0x68, 0x65, 0x6e, 0x74, 0x69, 0x63, 0x61,
        0x74, 0x65, 0x00, 0x00, 0x00, 0x13, 0x70, 0x72, 0x6f, 0x78, 0x79, 0x2d, 0x61, 0x75, 0x74,
        0x68, 0x6f, 0x72, 0x69, 0x7a, 0x61, 0x74, 0x69, 0x6f, 0x6e, 0x00, 0x00, 0x00, 0x05, 0x72,
        0x61, 0x6e, 0x67, 0x65, 0x00, 0x00, 0x00, 0x07, 0x72, 0x65, 0x66, 0x65, 0x72, 0x65, 0x72,
        0x00, 0x00, 0x00, 0x0b, 0x72, 0x65, 0x74, 0x72, 0x79, 0x2d, 0x61, 0x66, 0x74, 0x65, 0x72,
        0x00, 0x00, 0x00, 0x06, 0x73, 0x65, 0x72, 0x76, 0x65, 0x72, 0x00, 0x00, 0x00, 0x02, 0x74,
        0x65, 0x00, 0x00, 0x00, 0x07, 0x74, 0x72, 0x61, 0x69, 0x6c, 0x65, 0x72, 0x00, 0x00, 0x00,
        0x11, 0x74, 0x72, 0x61, 0x6e, 0x73, 0x66, 0x65, 0x72, 0x2d, 0x65, 0x6e, 0x63, 0x6f, 0x64,
        0x69, 0x6e, 0x67, 0x00, 0x00, 0x00, 0x07, 0x75, 0x70, 0x67, 0x72, 0x61, 0x64, 0x65, 0x00,
        0x00, 0x00, 0x0a, 0x75, 0x73, 0x65, 0x72, 0x2d, 0x61, 0x67, 0x65, 0x6e, 0x74, 0x00, 0x00,
        0x00, 0x04, 0x76, 0x61, 0x72, 0x79, 0x00, 0x00, 0x00, 0x03, 0x76, 0x69, 0x61, 0x00, 0x00,
        0x00, 0x07, 0x77, 0x61, 0x72, 0x6e, 0x69, 0x6e, 0x67, 0x00, 0x00, 0x00, 0x10, 0x77, 0x77,
        0x77, 0x2d, 0x61, 0x75, 0x74, 0x68, 0x65, 0x6e, 0x74, 0x69, 0x63, 0x61, 0x74, 0x65, 0x00,
        0x00, 0x00, 0x06, 0x6d, 0x65, 0x74, 0x68, 0x6f, 0x64, 0x00, 0x00, 0x00, 0x03, 0x67, 0x65,
        0x74, 0x00, 0x00, 0x00, 0x06, 0x73, 0x74, 0x61, 0x74, 0x75, 0x73, 0x00, 0x00, 0x00, 0x06,
        0x32, 0x30, 0x30, 0x20, 0x4f, 0x4b, 0x00, 0x00, 0x00, 0x07, 0x76, 0x65, 0x72, 0x73, 0x69,
        0x6f, 0x6e, 0x00, 0x00, 0x00, 0x08, 0x48, 0x54, 0x54, 0x50, 0x2f, 0x31, 0x2e, 0x31, 0x00,
        0x00, 0x00, 0x03, 0x75, 0x72, 0x6c, 0x00, 0x00, 0x00, 0x06, 0x70, 0x75, 0x62, 0x6c, 0x69,
        0x63, 0x00, 0x00, 0x00, 0x0a, 0x73, 0x65, 0x74, 0x2d, 0x63, 0x6f, 0x6f, 0x6b, 0x69, 0x65,
        0x00, 0x00, 0x00, 0x0a, 0x6b, 0x65, 0x65, 0x70, 0x2d, 0x61, 0x6c, 0x69, 0x76, 0x65, 0x00,
        0x00, 0x00, 0x06, 0x6f, 0x72, 0x69, 0x67, 0x69, 0x6e, 0x31, 0x30, 0x30, 0x31, 0x30, 0x31,
        0x32, 0x30, 0x31, 0x32, 0x30, 0x32, 0x32, 0x30, 0x35, 0x32, 0x30, 0x36, 0x33, 0x30, 0x30,
        0x33, 0x30, 0x32, 0x33, 0x30, 0x33, 0x33, 0x30, 0x34, 0x33, 0x30, 0x35, 0x33, 0x30, 0x36,
        0x33, 0x30, 0x37, 0x34, 0x30, 0x32, 0x34, 0x30, 0x35, 0x34, 0x30, 0x36, 0x34, 0x30, 0x37,
        0x34, 0x30, 0x38, 0x34, 0x30, 0x39, 0x34, 0x31, 0x30, 0x34, 0x31, 0x31, 0x34, 0x31, 0x32,
        0x34, 0x31, 0x33, 0x34, 0x31, 0x34, 0x34, 0x31, 0x35, 0x34, 0x31, 0x36, 0x34, 0x31, 0x37,
        0x35, 0x30, 0x32, 0x35, 0x30, 0x34, 0x35, 0x30, 0x35, 0x32, 0x30, 0x33, 0x20, 0x4e, 0x6f,
        0x6e, 0x2d, 0x41, 0x75, 0x74, 0x68, 0x6f, 0x72, 0x69, 0x74, 0x61, 0x74, 0x69, 0x76, 0x65,
        0x20, 0x49, 0x6e, 0x66, 0x6f, 0x72, 0x6d, 0x61, 0x74, 0x69, 0x6f, 0x6e, 0x32, 0x30, 0x34,
        0x20, 0x4e, 0x6f, 0x20, 0x43, 0x6f, 0x6e, 0x74, 0x65, 0x6e, 0x74, 0x33, 0x30, 0x31, 0x20,
        0x4d, 0x6f, 0x76, 0x65, 0x64, 0x20, 0x50, 0x65, 0x72, 0x6d, 0x61, 0x6e, 0x65, 0x6e, 0x74,
        0x6c, 0x79, 0x34, 0x30, 0x30, 0x20, 0x42, 0x61, 0x64, 0x20, 0x52, 0x65, 0x71, 0x75, 0x65,
        0x73, 0x74, 0x34, 0x30, 0x31, 0x20, 0x55, 0x6e, 0x61, 0x75, 0x74, 0x68, 0x6f, 0x72, 0x69,
        0x7a, 0x65, 0x64, 0x34, 0x30, 0x33, 0x20, 0x46, 0x6f, 0x72, 0x62, 0x69, 0x64, 0x64, 0x65,
        0x6e, 0x34, 0x30, 0x34, 0x20, 0x4e, 0x6f, 0x74, 0x20, 0x46, 0x6f, 0x75, 0x6e, 0x64, 0x35,
        0x30, 0x30, 0x20, 0x49, 0x6e, 0x74, 0x65, 0x72, 0x6e, 0x61, 0x6c, 0x20, 0x53, 0x65, 0x72,
        0x76, 0x65, 0x72, 0x20, 0x45, 0x72, 0x72, 0x6f, 0x72, 0x35, 0x30, 0x31, 0x20, 0x4e, 0x6f,
        0x74, 0x20, 0x49, 0x6d, 0x70, 0x6c, 0x65, 0x6d, 0x65, 0x6e, 0x74, 0x65, 0x64, 0x35, 0x30,
        0x33, 0x20, 0x53, 0x65, 0x72, 0x76, 0x69, 0x63, 0x65, 0x20, 0x55, 0x6e, 0x61, 0x76, 0x61,
        0x69, 0x6c, 0x61, 0x62, 0x6c, 0x65, 0x4a, 0x61, 0x6e, 0x20, 0x46, 0x65, 0x62, 0x20, 0x4d,
        0x61, 0x72, 0x20, 0x41, 0x70, 0x72, 0x20, 0x4d, 0x61, 0x79, 0x20, 0x4a, 0x75, 0x6e, 0x20,
        0x4a, 0x75, 0x6c, 0x20, 0x41, 0x75, 0x67, 0x20, 0x53, 0x65, 0x70, 0x74, 0x20, 0x4f, 0x63,
        0x74, 0x20, 0x4e, 0x6f, 0x76, 0x20, 0x44, 0x65, 0x63, 0x20, 0x30, 0x30, 0x3a, 0x30, 0x30,
        0x3a, 0x30, 0x30, 0x20, 0x4d, 0x6f, 0x6e, 0x2c, 0x20, 0x54, 0x75, 0x65, 0x2c, 0x20, 0x57,
        0x65, 0x64, 0x2c, 0x20, 0x54, 0x68, 0x75, 0x2c, 0x20, 0x46, 0x72, 0x69, 0x2c, 0x20, 0x53,
        0x61, 0x74, 0x2c, 0x20, 0x53, 0x75, 0x6e, 0x2c, 0x20, 0x47, 0x4d, 0x54, 0x63, 0x68, 0x75,
        0x6e, 0x6b, 0x65, 0x64, 0x2c, 0x74, 0x65, 0x78, 0x74, 0x2f, 0x68, 0x74, 0x6d, 0x6c, 0x2c,
        0x69, 0x6d, 0x61, 0x67, 0x65, 0x2f, 0x70, 0x6e, 0x67, 0x2c, 0x69, 0x6d, 0x61, 0x67, 0x65,
        0x2f, 0x6a, 0x70, 0x67, 0x2c, 0x69, 0x6d, 0x61, 0x67, 0x65, 0x2f, 0x67, 0x69, 0x66, 0x2c,
        0x61, 0x70, 0x70, 0x6c, 0x69, 0x63, 0x61, 0x74, 0x69, 0x6f, 0x6e, 0x2f, 0x78, 0x6d, 0x6c,
        0x2c, 0x61, 0x70, 0x70, 0x6c, 0x69, 0x63, 0x61, 0x74, 0x69, 0x6f, 0x6e, 0x2f, 0x78, 0x68,
        0x74, 0x6d, 0x6c, 0x2b, 0x78, 0x6d, 0x6c, 0x2c, 0x74, 0x65, 0x78, 0x74, 0x2f, 0x70, 0x6c,
        0x61, 0x69, 0x6e, 0x2c, 0x74, 0x65, 0x78, 0x74, 0x2f, 0x6a, 0x61, 0x76, 0x61, 0x73, 0x63,
        0x72, 0x69, 0x70, 0x74, 0x2c, 0x70, 0x75, 0x62, 0x6c, 0x69, 0x63, 0x70, 0x72, 0x69, 0x76,
        0x61, 0x74, 0x65, 0x6d, 0x61, 0x78, 0x2d, 0x61, 0x67, 0x65, 0x3d, 0x67, 0x7a, 0x69, 0x70,
        0x2c, 0x64, 0x65, 0x66, 0x6c, 0x61, 0x74, 0x65, 0x2c, 0x73, 0x64, 0x63, 0x68, 0x63, 0x68,
        0x61, 0x72, 0x73, 0x65, 0x74, 0x3d, 0x75, 0x74, 0x66, 0x2d, 0x38, 0x63, 0x68, 0x61, 0x72,
        0x73, 0x65, 0x74, 0x3d, 0x69, 0x73, 0x6f, 0x2d, 0x38, 0x38, 0x35, 0x39, 0x2d, 0x31, 0x2c,
        0x75, 0x74, 0x66, 0x2d, 0x2c, 0x2a, 0x2c, 0x65, 0x6e, 0x71, 0x3d, 0x30, 0x2e,
};

/* WINDOW_UPDATEs go out once this much of a window is consumed */
#define WINDOW_ACK_AT (SPDY_INITIAL_WINDOW / 2)
/* the longest data frame written (the length field has 24 bits; spdystream's peers write 32
 * KiB pieces) */
#define DATA_FRAME_MAX (64 * 1024)

static uint32_t be32(const uint8_t *p)
{
        return (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16 | (uint32_t) p[2] << 8 | p[3];
}

static void put32(struct strbuf *sb, uint32_t v)
{
        uint8_t b[4] = { (uint8_t) (v >> 24), (uint8_t) (v >> 16), (uint8_t) (v >> 8),
                         (uint8_t) v };

        strbuf_add(sb, b, 4);
}

static void put_control(struct strbuf *sb, enum spdy_type type, uint8_t flags, uint32_t len)
{
        put32(sb, 0x80000000u | (uint32_t) SPDY_VERSION << 16 | (uint32_t) type);
        put32(sb, (uint32_t) flags << 24 | (len & 0xffffff));
}

const char *spdy_frame_header(const struct spdy_frame *f, const char *name)
{
        for (size_t i = 0; i < f->n_headers; i++)
                if (strcmp(f->headers[i].name, name) == 0)
                        return f->headers[i].value;
        return NULL;
}

/* ------------------------------------------------------------------ reading */

void spdy_reader_init(struct spdy_reader *r, size_t max_frame)
{
        memset(r, 0, sizeof(*r));
        r->max_frame = max_frame;
        strbuf_init(&r->in);
        strbuf_init(&r->block);
}

void spdy_reader_release(struct spdy_reader *r)
{
        if (r->z_ready)
                (void) inflateEnd(&r->z);
        strbuf_release(&r->in);
        strbuf_release(&r->block);
}

void spdy_reader_push(struct spdy_reader *r, const void *buf, size_t n)
{
        strbuf_compact(&r->in, &r->in_off);
        strbuf_add(&r->in, buf, n);
}

static int fail(const char **ret_why, const char *why, int err)
{
        *ret_why = why;
        return err;
}

/* Inflates one header block into r->block (the session's one zlib stream). */
static int inflate_block(struct spdy_reader *r, const uint8_t *p, size_t n, const char **ret_why)
{
        strbuf_reset(&r->block);
        if (n == 0)
                return fail(ret_why, "empty header block", -EPROTO);
        if (!r->z_ready) {
                memset(&r->z, 0, sizeof(r->z));
                if (inflateInit(&r->z) != Z_OK)
                        return fail(ret_why, "zlib cannot start", -ENOMEM);
                r->z_ready = true;
        }
        r->z.next_in = (Bytef *) p;
        r->z.avail_in = (uInt) n;
        for (;;) {
                int z;

                strbuf_grow(&r->block, 4096);
                r->z.next_out = (Bytef *) r->block.buf + r->block.len;
                r->z.avail_out = 4096;
                z = inflate(&r->z, Z_SYNC_FLUSH);
                if (z == Z_NEED_DICT) {
                        if (inflateSetDictionary(&r->z, spdy_dictionary, sizeof(spdy_dictionary)) !=
                            Z_OK)
                                return fail(ret_why, "header block wants another dictionary",
                                            -EPROTO);
                        continue;
                }
                r->block.len += 4096 - r->z.avail_out;
                r->block.buf[r->block.len] = '\0';
                if (r->block.len > SPDY_MAX_HEADER_BYTES)
                        return fail(ret_why, "header block inflates too large", -EPROTO);
                if (z == Z_BUF_ERROR && r->z.avail_in == 0)
                        break;
                if (z != Z_OK)
                        return fail(ret_why, "header block does not inflate", -EPROTO);
                if (r->z.avail_in == 0 && r->z.avail_out > 0)
                        break;
        }
        return 0;
}

/* Parses r->block into r->headers (names NUL-terminated in place: the block is rewritten as
 * name NUL value NUL pairs in a second buffer). */
static int parse_block(struct spdy_reader *r, struct spdy_frame *f, const char **ret_why)
{
        const uint8_t *p = (const uint8_t *) r->block.buf;
        size_t n = r->block.len, off = 4, name_off[SPDY_MAX_HEADERS], value_off[SPDY_MAX_HEADERS];
        struct strbuf strs;
        uint32_t count;

        if (n < 4)
                return fail(ret_why, "header block too short", -EPROTO);
        count = be32(p);
        if (count > SPDY_MAX_HEADERS)
                return fail(ret_why, "too many headers", -EPROTO);
        strbuf_init(&strs);
        for (uint32_t i = 0; i < count; i++) {
                uint32_t nl, vl;

                if (n - off < 4 || (nl = be32(p + off)) == 0 || n - off - 4 < nl) {
                        strbuf_release(&strs);
                        return fail(ret_why, "header name missing or past the block", -EPROTO);
                }
                off += 4;
                for (uint32_t j = 0; j < nl; j++)
                        if ((p[off + j] >= 'A' && p[off + j] <= 'Z') || p[off + j] == '\0') {
                                strbuf_release(&strs);
                                return fail(ret_why, "header name not lower case", -EPROTO);
                        }
                name_off[i] = strs.len;
                strbuf_add(&strs, p + off, nl);
                strbuf_addch(&strs, '\0');
                off += nl;
                if (n - off < 4 || n - off - 4 < (vl = be32(p + off))) {
                        strbuf_release(&strs);
                        return fail(ret_why, "header value past the block", -EPROTO);
                }
                off += 4;
                value_off[i] = strs.len;
                strbuf_add(&strs, p + off, vl);
                strbuf_addch(&strs, '\0');
                off += vl;
                r->headers[i].value_len = vl;
        }
        if (off != n) {
                strbuf_release(&strs);
                return fail(ret_why, "bytes after the last header", -EPROTO);
        }
        /* the block buffer now holds the NUL-terminated strings */
        strbuf_release(&r->block);
        r->block = strs;
        for (uint32_t i = 0; i < count; i++) {
                r->headers[i].name = r->block.buf + name_off[i];
                r->headers[i].value = r->block.buf + value_off[i];
                for (uint32_t j = 0; j < i; j++)
                        if (strcmp(r->headers[i].name, r->headers[j].name) == 0)
                                return fail(ret_why, "a header name twice", -EPROTO);
        }
        f->headers = r->headers;
        f->n_headers = count;
        return 0;
}

static int read_control(struct spdy_reader *r, const uint8_t *p, uint32_t len, struct spdy_frame *f,
                        const char **ret_why)
{
        size_t head;
        int ret;

        switch (f->type) {
        case SPDY_SYN_STREAM:
        case SPDY_SYN_REPLY:
        case SPDY_HEADERS:
                head = f->type == SPDY_SYN_STREAM ? 10 : 4;
                if (len < head)
                        return fail(ret_why, "control frame too short", -EPROTO);
                f->stream_id = be32(p) & 0x7fffffff;
                if (f->stream_id == 0)
                        return fail(ret_why, "stream id 0", -EPROTO);
                if (f->type == SPDY_SYN_STREAM) {
                        f->assoc_id = be32(p + 4) & 0x7fffffff;
                        f->priority = p[8] >> 5;
                }
                ret = inflate_block(r, p + head, len - head, ret_why);
                if (ret < 0)
                        return ret;
                return parse_block(r, f, ret_why);
        case SPDY_RST_STREAM:
        case SPDY_GOAWAY:
        case SPDY_WINDOW_UPDATE:
                if (len != 8)
                        return fail(ret_why, "control frame of the wrong length", -EPROTO);
                f->stream_id = be32(p) & 0x7fffffff;
                f->status = be32(p + 4);
                f->delta = be32(p + 4) & 0x7fffffff;
                if (f->type == SPDY_RST_STREAM && f->stream_id == 0)
                        return fail(ret_why, "stream id 0", -EPROTO);
                return 0;
        case SPDY_SETTINGS:
                if (len < 4 || (len - 4) / 8 != be32(p) || (len - 4) % 8)
                        return fail(ret_why, "SETTINGS of the wrong length", -EPROTO);
                f->n_settings = be32(p);
                f->data = p + 4;
                f->len = len - 4;
                return 0;
        case SPDY_PING:
                if (len != 4 || f->flags)
                        return fail(ret_why, "PING of the wrong length or with flags", -EPROTO);
                f->ping_id = be32(p);
                return 0;
        default:
                return 0;
        }
}

int spdy_reader_next(struct spdy_reader *r, struct spdy_frame *ret, const char **ret_why)
{
        for (;;) {
                const uint8_t *p = (const uint8_t *) r->in.buf + r->in_off;
                size_t avail = r->in.len - r->in_off;
                struct spdy_frame f = { 0 };
                uint32_t len;
                int err;

                if (avail < 8)
                        return 0;
                len = be32(p + 4) & 0xffffff;
                f.flags = p[4];
                if (len > r->max_frame)
                        return fail(ret_why, "frame too large", -EMSGSIZE);
                if (avail - 8 < len)
                        return 0;
                r->in_off += 8 + (size_t) len;
                if (!(p[0] & 0x80)) {
                        f.type = SPDY_DATA;
                        f.stream_id = be32(p) & 0x7fffffff;
                        if (f.stream_id == 0)
                                return fail(ret_why, "data frame on stream 0", -EPROTO);
                        f.data = p + 8;
                        f.len = len;
                        *ret = f;
                        return 1;
                }
                if ((((unsigned) p[0] & 0x7f) << 8 | p[1]) != SPDY_VERSION)
                        return fail(ret_why, "unsupported SPDY version", -EPROTO);
                f.type = (enum spdy_type)((unsigned) p[2] << 8 | p[3]);
                if (f.type != SPDY_SYN_STREAM && f.type != SPDY_SYN_REPLY &&
                    f.type != SPDY_RST_STREAM && f.type != SPDY_SETTINGS && f.type != SPDY_PING &&
                    f.type != SPDY_GOAWAY && f.type != SPDY_HEADERS && f.type != SPDY_WINDOW_UPDATE)
                        continue; /* §2.2.1: unknown control frames are ignored */
                err = read_control(r, p + 8, len, &f, ret_why);
                if (err < 0)
                        return err;
                *ret = f;
                return 1;
        }
}

/* ------------------------------------------------------------------ writing */

void spdy_writer_init(struct spdy_writer *w)
{
        memset(w, 0, sizeof(*w));
}

void spdy_writer_release(struct spdy_writer *w)
{
        if (w->z_ready)
                (void) deflateEnd(&w->z);
}

void spdy_write_headers_frame(struct spdy_writer *w, struct strbuf *out, enum spdy_type type,
                              uint8_t flags, uint32_t stream_id, const struct spdy_header *h,
                              size_t n)
{
        struct strbuf raw, z;
        size_t head = type == SPDY_SYN_STREAM ? 10 : 4;

        if (!w->z_ready) {
                memset(&w->z, 0, sizeof(w->z));
                if (deflateInit(&w->z, Z_DEFAULT_COMPRESSION) != Z_OK ||
                    deflateSetDictionary(&w->z, spdy_dictionary, sizeof(spdy_dictionary)) != Z_OK)
                        abort(); /* only out of memory; nothing sensible to do */
                w->z_ready = true;
        }
        strbuf_init(&raw);
        strbuf_init(&z);
        put32(&raw, (uint32_t) n);
        for (size_t i = 0; i < n; i++) {
                size_t vl = h[i].value_len ? h[i].value_len : strlen(h[i].value);

                put32(&raw, (uint32_t) strlen(h[i].name));
                strbuf_addstr(&raw, h[i].name);
                put32(&raw, (uint32_t) vl);
                strbuf_add(&raw, h[i].value, vl);
        }
        w->z.next_in = (Bytef *) raw.buf;
        w->z.avail_in = (uInt) raw.len;
        do {
                strbuf_grow(&z, 1024);
                w->z.next_out = (Bytef *) z.buf + z.len;
                w->z.avail_out = 1024;
                if (deflate(&w->z, Z_SYNC_FLUSH) == Z_STREAM_ERROR)
                        abort(); /* a state error: a bug here, not input */
                z.len += 1024 - w->z.avail_out;
        } while (w->z.avail_out == 0);
        put_control(out, type, flags, (uint32_t) (head + z.len));
        put32(out, stream_id & 0x7fffffff);
        if (type == SPDY_SYN_STREAM) {
                put32(out, 0);
                strbuf_add(out, "\0\0", 2); /* priority 0, slot 0 */
        }
        strbuf_add(out, z.buf, z.len);
        strbuf_release(&raw);
        strbuf_release(&z);
}

void spdy_write_data(struct strbuf *out, uint32_t stream_id, uint8_t flags, const void *data,
                     size_t len)
{
        put32(out, stream_id & 0x7fffffff);
        put32(out, (uint32_t) flags << 24 | (uint32_t) (len & 0xffffff));
        if (len)
                strbuf_add(out, data, len);
}

void spdy_write_rst_stream(struct strbuf *out, uint32_t stream_id, uint32_t status)
{
        put_control(out, SPDY_RST_STREAM, 0, 8);
        put32(out, stream_id & 0x7fffffff);
        put32(out, status);
}

void spdy_write_ping(struct strbuf *out, uint32_t id)
{
        put_control(out, SPDY_PING, 0, 4);
        put32(out, id);
}

void spdy_write_goaway(struct strbuf *out, uint32_t last_good, uint32_t status)
{
        put_control(out, SPDY_GOAWAY, 0, 8);
        put32(out, last_good & 0x7fffffff);
        put32(out, status);
}

void spdy_write_window_update(struct strbuf *out, uint32_t stream_id, uint32_t delta)
{
        put_control(out, SPDY_WINDOW_UPDATE, 0, 8);
        put32(out, stream_id & 0x7fffffff);
        put32(out, delta & 0x7fffffff);
}

void spdy_write_settings(struct strbuf *out, const uint32_t *ids, const uint32_t *values, size_t n)
{
        put_control(out, SPDY_SETTINGS, 0, (uint32_t) (4 + 8 * n));
        put32(out, (uint32_t) n);
        for (size_t i = 0; i < n; i++) {
                put32(out, ids[i] & 0xffffff);
                put32(out, values[i]);
        }
}

/* ------------------------------------------------------------------ the session */

struct spdy_stream_state {
        uint32_t id;
        bool peer_open;  /* the peer may still send */
        bool local_open; /* we may still send */
        uint32_t unacked;
};

void spdy_session_init(struct spdy_session *s, size_t max_frame)
{
        memset(s, 0, sizeof(*s));
        spdy_reader_init(&s->rd, max_frame);
        spdy_writer_init(&s->wr);
        strbuf_init(&s->out);
}

void spdy_session_release(struct spdy_session *s)
{
        spdy_reader_release(&s->rd);
        spdy_writer_release(&s->wr);
        strbuf_release(&s->out);
        free(s->streams);
}

void spdy_session_push(struct spdy_session *s, const void *buf, size_t n)
{
        spdy_reader_push(&s->rd, buf, n);
}

static struct spdy_stream_state *find_stream(const struct spdy_session *s, uint32_t id)
{
        for (size_t i = 0; i < s->n_streams; i++)
                if (s->streams[i].id == id)
                        return &s->streams[i];
        return NULL;
}

static void forget_stream(struct spdy_session *s, struct spdy_stream_state *st)
{
        size_t i = (size_t) (st - s->streams);

        s->streams[i] = s->streams[--s->n_streams];
}

bool spdy_session_has_stream(const struct spdy_session *s, uint32_t stream_id)
{
        return find_stream(s, stream_id) != NULL;
}

void spdy_session_goaway(struct spdy_session *s, uint32_t status)
{
        if (s->goaway_sent)
                return;
        s->goaway_sent = true;
        spdy_write_goaway(&s->out, s->last_peer_id, status);
}

int spdy_session_next(struct spdy_session *s, struct spdy_event *ev, const char **ret_why)
{
        for (;;) {
                struct spdy_frame f;
                struct spdy_stream_state *st;
                int r = spdy_reader_next(&s->rd, &f, ret_why);

                if (r < 0)
                        spdy_session_goaway(s, SPDY_GOAWAY_PROTOCOL_ERROR);
                if (r <= 0)
                        return r;
                *ev = (struct spdy_event){ .kind = SPDY_EV_NONE, .stream_id = f.stream_id };
                switch (f.type) {
                case SPDY_DATA:
                        st = find_stream(s, f.stream_id);
                        if (!st) {
                                /* §2.2.2: data for a stream that is not open */
                                if (!s->goaway_sent)
                                        spdy_write_rst_stream(&s->out, f.stream_id,
                                                              SPDY_INVALID_STREAM);
                                continue;
                        }
                        if (!st->peer_open) {
                                spdy_write_rst_stream(&s->out, f.stream_id,
                                                      SPDY_STREAM_ALREADY_CLOSED);
                                forget_stream(s, st);
                                ev->kind = SPDY_EV_RESET;
                                ev->status = SPDY_STREAM_ALREADY_CLOSED;
                                return 1;
                        }
                        ev->kind = SPDY_EV_DATA;
                        ev->data = f.data;
                        ev->len = f.len;
                        ev->fin = f.flags & SPDY_FLAG_FIN;
                        if (ev->fin) {
                                st->peer_open = false;
                                if (!st->local_open)
                                        forget_stream(s, st);
                        }
                        return 1;
                case SPDY_SYN_STREAM:
                        if (s->goaway_sent)
                                continue; /* §2.6.6: new streams after GOAWAY are ignored */
                        /* §2.3.2: the client's ids are odd and increase */
                        if (f.stream_id % 2 == 0 || f.stream_id <= s->last_peer_id) {
                                spdy_write_rst_stream(&s->out, f.stream_id, SPDY_PROTOCOL_ERROR);
                                continue;
                        }
                        s->last_peer_id = f.stream_id;
                        if (s->n_streams >= SPDY_MAX_STREAMS) {
                                spdy_write_rst_stream(&s->out, f.stream_id, SPDY_REFUSED_STREAM);
                                continue;
                        }
                        if (s->n_streams == s->cap_streams) {
                                s->cap_streams = s->cap_streams ? 2 * s->cap_streams : 8;
                                s->streams =
                                        xrealloc(s->streams, s->cap_streams * sizeof(*s->streams));
                        }
                        s->streams[s->n_streams++] = (struct spdy_stream_state){
                                .id = f.stream_id,
                                .peer_open =
                                        !(f.flags & (SPDY_FLAG_FIN | SPDY_FLAG_UNIDIRECTIONAL)),
                                .local_open = !(f.flags & SPDY_FLAG_UNIDIRECTIONAL),
                        };
                        ev->kind = SPDY_EV_STREAM;
                        ev->headers = f.headers;
                        ev->n_headers = f.n_headers;
                        ev->fin = f.flags & (SPDY_FLAG_FIN | SPDY_FLAG_UNIDIRECTIONAL);
                        return 1;
                case SPDY_HEADERS:
                        st = find_stream(s, f.stream_id);
                        if (!st || !st->peer_open || !(f.flags & SPDY_FLAG_FIN))
                                continue;
                        /* trailing headers that end the peer's half: an empty end of data */
                        st->peer_open = false;
                        if (!st->local_open)
                                forget_stream(s, st);
                        ev->kind = SPDY_EV_DATA;
                        ev->fin = true;
                        return 1;
                case SPDY_RST_STREAM:
                        st = find_stream(s, f.stream_id);
                        if (!st)
                                continue;
                        forget_stream(s, st);
                        ev->kind = SPDY_EV_RESET;
                        ev->status = f.status;
                        return 1;
                case SPDY_PING:
                        /* §2.6.5: the peer's (odd ids from a client) are answered; an even one
                         * would answer ours, and we send none */
                        if (f.ping_id % 2 == 1)
                                spdy_write_ping(&s->out, f.ping_id);
                        continue;
                case SPDY_GOAWAY:
                        ev->kind = SPDY_EV_GOAWAY;
                        ev->status = f.status;
                        return 1;
                case SPDY_SYN_REPLY:
                case SPDY_SETTINGS:
                case SPDY_WINDOW_UPDATE:
                default:
                        /* no stream of ours to reply to; windows are advisory (spdy.h) */
                        continue;
                }
        }
}

void spdy_session_reply(struct spdy_session *s, uint32_t stream_id)
{
        spdy_write_headers_frame(&s->wr, &s->out, SPDY_SYN_REPLY, 0, stream_id, NULL, 0);
}

void spdy_session_data(struct spdy_session *s, uint32_t stream_id, const void *data, size_t len,
                       bool fin)
{
        struct spdy_stream_state *st = find_stream(s, stream_id);
        const uint8_t *p = data;

        if (!st || !st->local_open)
                return;
        do {
                size_t n = len < DATA_FRAME_MAX ? len : DATA_FRAME_MAX;

                spdy_write_data(&s->out, stream_id, fin && n == len ? SPDY_FLAG_FIN : 0, p, n);
                if (n) /* an empty frame (a bare FIN) may come with no buffer */
                        p += n;
                len -= n;
        } while (len);
        if (fin) {
                st->local_open = false;
                if (!st->peer_open)
                        forget_stream(s, st);
        }
}

void spdy_session_reset(struct spdy_session *s, uint32_t stream_id, uint32_t status)
{
        struct spdy_stream_state *st = find_stream(s, stream_id);

        spdy_write_rst_stream(&s->out, stream_id, status);
        if (st)
                forget_stream(s, st);
}

void spdy_session_consumed(struct spdy_session *s, uint32_t stream_id, size_t len)
{
        struct spdy_stream_state *st = find_stream(s, stream_id);

        if (st && st->peer_open) {
                st->unacked += (uint32_t) len;
                if (st->unacked >= WINDOW_ACK_AT) {
                        spdy_write_window_update(&s->out, stream_id, st->unacked);
                        st->unacked = 0;
                }
        }
        /* SPDY/3.1 §2.6.8: the session's own window, stream 0 */
        s->session_unacked += (uint32_t) len;
        if (s->session_unacked >= WINDOW_ACK_AT) {
                spdy_write_window_update(&s->out, 0, s->session_unacked);
                s->session_unacked = 0;
        }
}
