/* bench-util.c: the helpers of bench-util.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench-util.h"

void die(const char *fmt, ...)
{
        va_list ap;

        (void) fprintf(stderr, "%s: ", program_invocation_short_name);
        va_start(ap, fmt);
        (void) vfprintf(stderr, fmt, ap);
        va_end(ap);
        (void) fputc('\n', stderr);
        exit(1);
}

int64_t now_ns(void)
{
        struct timespec ts;

        (void) clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

double ms_between(int64_t t0, int64_t t1)
{
        return (double) (t1 - t0) / 1e6;
}

int cmp_double(const void *a, const void *b)
{
        double x = *(const double *) a, y = *(const double *) b;

        return x < y ? -1 : x > y;
}

double percentile(const double *sorted, size_t n, double p)
{
        size_t rank;

        if (n == 0)
                return 0;
        rank = (size_t) (p * (double) n + 0.999999);
        if (rank < 1)
                rank = 1;
        if (rank > n)
                rank = n;
        return sorted[rank - 1];
}
