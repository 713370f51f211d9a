/* alloc.c: the x* allocators, each aborting on exhaustion instead of returning NULL, and the
 * allocator's settings and controls (jemalloc's mallctl). */
#include <stdarg.h>
#include <stdbool.h>
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

/* Read by jemalloc when it starts, before main (the MALLOC_CONF environment variable, read
 * after it, wins). serve has a hundred threads, mostly asleep: with an arena or a cache each,
 * every one keeps what it freed for itself (glibc's four arenas held 49.1 MiB at 500 pods where
 * this holds 45: bench/results/memory-2026-11-28.md). So one arena, and caches only for the
 * threads that ask (alloc_work_begin), small ones: classes up to 1 KiB, a quarter of jemalloc's
 * slots. Pages freed stay dirty, reusable at once, until alloc_release_free or 10 s pass; none
 * are kept lazily freed (muzzy): MADV_FREE'd pages count in the RSS until the kernel wants
 * them. */
const char *malloc_conf = "narenas:1,tcache:false,tcache_max:1024,lg_tcache_nslots_mul:-2,"
                          "muzzy_decay_ms:0";

static __thread bool thread_cache;

void alloc_work_begin(void)
{
        bool on = true;

        if (!mallctl || thread_cache)
                return;
        thread_cache = mallctl("thread.tcache.enabled", NULL, NULL, &on, sizeof(on)) == 0;
}

void alloc_work_end(void)
{
        if (thread_cache)
                (void) mallctl("thread.tcache.flush", NULL, NULL, NULL, 0);
}

void alloc_release_free(void)
{
        /* 4096: MALLCTL_ARENAS_ALL (jemalloc.h), every arena */
        if (mallctl)
                (void) mallctl("arena.4096.purge", NULL, NULL, NULL, 0);
}
