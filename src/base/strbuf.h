/* strbuf.h: a growable string.
 *
 * Invariants: buf is never NULL after strbuf_init, buf[len] == '\0', len < alloc. The buffer is
 * owned by the strbuf until strbuf_detach hands it to the caller. */
#ifndef FLEXLET_BASE_STRBUF_H
#define FLEXLET_BASE_STRBUF_H

#include <stddef.h>
#include "base/macro.h"

struct strbuf {
        char *buf;
        size_t len;
        size_t alloc;
};

void strbuf_init(struct strbuf *sb);
void strbuf_release(struct strbuf *sb);
char *strbuf_detach(struct strbuf *sb);
void strbuf_reset(struct strbuf *sb);
/* For a strbuf read from the front, *consumed bytes of it already taken: drops them once they
 * are most of the buffer (so appends do not grow it without end), setting *consumed to 0. */
void strbuf_compact(struct strbuf *sb, size_t *consumed);
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, char c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) _printf_(2, 3);

#endif
