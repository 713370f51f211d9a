/* alloc.h: allocation that never returns NULL. Allocation failure aborts the process: a daemon
 * that cannot allocate a few bytes cannot keep any promise, so we do not pretend to recover. */
#ifndef FLEXLET_BASE_ALLOC_H
#define FLEXLET_BASE_ALLOC_H

#include <stddef.h>
#include "base/macro.h"

void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) _printf_(1, 2);

#endif
