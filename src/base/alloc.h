/* alloc.h: allocation that never returns NULL, and the allocator's policy. Allocation failure
 * aborts the process: a daemon that cannot allocate a few bytes cannot keep any promise, so we
 * do not pretend to recover. */
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

/* flexlet runs on jemalloc (alloc.c, docs/dependencies.md): one arena shared by every thread,
 * and no per-thread caches but for threads that work in bursts. Where another malloc runs (the
 * sanitizer builds, the static helper) these three do nothing. */

/* The calling thread works in bursts (an HTTP request, a pod's step, a status write): it
 * allocates through a cache of its own from now on. */
void alloc_work_begin(void);
/* A unit of the calling thread's work ended: what its cache holds goes back to the shared
 * arena, so that a thread waiting for work keeps no freed memory to itself. */
void alloc_work_end(void);
/* Gives the pages that freed memory left unused back to the kernel (the main thread's idle
 * wait, every few seconds). */
void alloc_release_free(void);
/* jemalloc's control interface, for the three above and the allocator's tests; weak, so that a
 * build on another malloc links and finds it NULL. */
extern int mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen)
        __attribute__((weak));

#endif
