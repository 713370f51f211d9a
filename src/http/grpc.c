/* grpc.c: gRPC's framing and status headers (grpc.h). */
#include "http/grpc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "http/http.h"

size_t grpc_frame_begin(struct strbuf *out)
{
        size_t at = out->len;

        strbuf_add(out, "\0\0\0\0\0", GRPC_FRAME_HEADER);
        return at;
}

void grpc_frame_end(struct strbuf *out, size_t at)
{
        size_t n = out->len - at - GRPC_FRAME_HEADER;

        out->buf[at + 1] = (char) (n >> 24);
        out->buf[at + 2] = (char) (n >> 16);
        out->buf[at + 3] = (char) (n >> 8);
        out->buf[at + 4] = (char) n;
}

int grpc_frame_read(const uint8_t *buf, size_t len, size_t max_len, const uint8_t **ret_msg,
                    size_t *ret_len, size_t *ret_used)
{
        size_t n;

        if (len < GRPC_FRAME_HEADER)
                return 0;
        n = (size_t) buf[1] << 24 | (size_t) buf[2] << 16 | (size_t) buf[3] << 8 | buf[4];
        if (buf[0] != 0 || n > max_len)
                return -EBADMSG;
        if (len - GRPC_FRAME_HEADER < n)
                return 0;
        *ret_msg = buf + GRPC_FRAME_HEADER;
        *ret_len = n;
        *ret_used = GRPC_FRAME_HEADER + n;
        return 1;
}

void grpc_status_field(struct grpc_status *s, const char *name, size_t name_len, const char *value,
                       size_t value_len)
{
        /* leading spaces are not the value's (RFC 9110 5.5), nor is a line end */
        while (value_len && *value == ' ') {
                value++;
                value_len--;
        }
        if (value_len > sizeof(s->message) - 1)
                value_len = sizeof(s->message) - 1;
        if (name_len == 11 && strncasecmp(name, "grpc-status", 11) == 0) {
                char digits[16];

                (void) snprintf(digits, sizeof(digits), "%.*s", (int) value_len, value);
                s->code = atoi(digits);
        } else if (name_len == 12 && strncasecmp(name, "grpc-message", 12) == 0) {
                memcpy(s->message, value, value_len);
                s->message[value_len] = '\0';
                s->message[strcspn(s->message, "\r\n")] = '\0';
                /* PROTOCOL-HTTP2: percent-encoded */
                (void) http_unescape(s->message);
        }
}
