/* bench-util.h: what every benchmark program under bench/ needs: dying with a message, a
 * monotonic clock, and nearest-rank percentiles. */
#ifndef FLEXLET_BENCH_UTIL_H
#define FLEXLET_BENCH_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "base/macro.h"

/* Prints "<program>: <message>" to stderr and exits 1. */
_noreturn_ _printf_(1, 2) void die(const char *fmt, ...);
/* CLOCK_MONOTONIC in nanoseconds. */
int64_t now_ns(void);
/* t1 - t0 (now_ns values) in milliseconds. */
double ms_between(int64_t t0, int64_t t1);
/* qsort comparator of doubles, ascending. */
int cmp_double(const void *a, const void *b);
/* Nearest-rank percentile (p in 0..1) of n sorted values; 0 when n is 0. */
double percentile(const double *sorted, size_t n, double p);

#endif
