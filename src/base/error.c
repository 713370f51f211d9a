/* error.c: construction and wrapping of struct error. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/alloc.h"
#include "base/error.h"

int error_set(struct error **reterr, int errnum, const char *fmt, ...)
{
        va_list ap;
        struct error *e;

        if (errnum < 0)
                errnum = -errnum;
        if (!reterr)
                return -errnum;
        e = xmalloc(sizeof(*e));
        e->errnum = errnum;
        va_start(ap, fmt);
        if (vasprintf(&e->message, fmt, ap) < 0)
                abort();
        va_end(ap);
        error_free(*reterr);
        *reterr = e;
        return -errnum;
}

int error_wrap(struct error **reterr, const char *fmt, ...)
{
        va_list ap;
        char *prefix, *joined;

        if (!reterr || !*reterr)
                return -EIO;
        va_start(ap, fmt);
        if (vasprintf(&prefix, fmt, ap) < 0)
                abort();
        va_end(ap);
        joined = xasprintf("%s: %s", prefix, (*reterr)->message);
        free(prefix);
        free((*reterr)->message);
        (*reterr)->message = joined;
        return -(*reterr)->errnum;
}

struct error *error_free(struct error *e)
{
        if (e) {
                free(e->message);
                free(e);
        }
        return NULL;
}
