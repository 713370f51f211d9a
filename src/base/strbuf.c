/* strbuf.c: growable strings (see strbuf.h for the invariants). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/strbuf.h"

void strbuf_init(struct strbuf *sb)
{
        sb->alloc = 64;
        sb->buf = xmalloc(sb->alloc);
        sb->buf[0] = '\0';
        sb->len = 0;
}

void strbuf_release(struct strbuf *sb)
{
        free(sb->buf);
        sb->buf = NULL;
        sb->len = sb->alloc = 0;
}

char *strbuf_detach(struct strbuf *sb)
{
        char *p = sb->buf;
        sb->buf = NULL;
        sb->len = sb->alloc = 0;
        return p;
}

void strbuf_reset(struct strbuf *sb)
{
        sb->len = 0;
        sb->buf[0] = '\0';
}

void strbuf_compact(struct strbuf *sb, size_t *consumed)
{
        if (*consumed == 0 || *consumed < sb->len / 2)
                return;
        memmove(sb->buf, sb->buf + *consumed, sb->len - *consumed);
        sb->len -= *consumed;
        sb->buf[sb->len] = '\0';
        *consumed = 0;
}

void strbuf_grow(struct strbuf *sb, size_t extra)
{
        if (sb->len + extra + 1 <= sb->alloc)
                return;
        while (sb->len + extra + 1 > sb->alloc)
                sb->alloc *= 2;
        sb->buf = xrealloc(sb->buf, sb->alloc);
}

void strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
        strbuf_grow(sb, len);
        memcpy(sb->buf + sb->len, data, len);
        sb->len += len;
        sb->buf[sb->len] = '\0';
}

void strbuf_addstr(struct strbuf *sb, const char *s)
{
        strbuf_add(sb, s, strlen(s));
}

void strbuf_addch(struct strbuf *sb, char c)
{
        strbuf_add(sb, &c, 1);
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
        va_list ap;
        int n;

        va_start(ap, fmt);
        n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, ap);
        va_end(ap);
        if (n < 0)
                return;
        if ((size_t) n >= sb->alloc - sb->len) {
                strbuf_grow(sb, (size_t) n);
                va_start(ap, fmt);
                (void) vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, ap);
                va_end(ap);
        }
        sb->len += (size_t) n;
}
