/* alloc.c: the x* allocators; each aborts on exhaustion instead of returning NULL. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

static _noreturn_ void oom(void)
{
        (void) fputs("flexlet: out of memory\n", stderr);
        abort();
}

void *xmalloc(size_t size)
{
        void *p = malloc(size ? size : 1);
        if (!p)
                oom();
        return p;
}

void *xcalloc(size_t n, size_t size)
{
        void *p = calloc(n ? n : 1, size ? size : 1);
        if (!p)
                oom();
        return p;
}

void *xrealloc(void *p, size_t size)
{
        void *q = realloc(p, size ? size : 1);
        if (!q)
                oom();
        return q;
}

char *xstrdup(const char *s)
{
        char *p = strdup(s);
        if (!p)
                oom();
        return p;
}

char *xstrndup(const char *s, size_t n)
{
        char *p = strndup(s, n);
        if (!p)
                oom();
        return p;
}

char *xasprintf(const char *fmt, ...)
{
        va_list ap;
        char *p;

        va_start(ap, fmt);
        if (vasprintf(&p, fmt, ap) < 0)
                oom();
        va_end(ap);
        return p;
}
