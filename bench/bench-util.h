/* bench-util.h: what every benchmark program under bench/ needs: dying with a message, a
 * monotonic clock, nearest-rank percentiles and their report lines, and the API side they
 * share (the bearer token, a client, pod conditions, names "<prefix>-<i>", a watch that runs
 * forever). Every helper dies on failure: these are programs, not library code. */
#ifndef FLEXLET_BENCH_UTIL_H
#define FLEXLET_BENCH_UTIL_H

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/macro.h"
#include "client/client.h"

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

/* The lines bench_print_stats prints besides <key>.n/.p50/.p99/.max/.mean. */
enum {
        BENCH_STATS_MIN = 1 << 0,
        BENCH_STATS_P10 = 1 << 1,
        BENCH_STATS_P90 = 1 << 2,
};
/* Sorts v in place and prints "<key>.<stat> <value>" lines, in the unit of v, in the order
 * n, min, p10, p50, p90, p99, max, mean (min, p10 and p90 only when asked for in extra). */
void bench_print_stats(const char *key, double *v, size_t n, unsigned extra);

/* The bearer token in the file at path: its first line (caller frees). */
char *bench_read_token(const char *path);
/* An API client of server, trusting the CA file ca, sending token; idle_timeout_ms as in
 * struct api_client_options (0: the client's default). */
#define BENCH_IDLE_TIMEOUT_MS 600000
struct api_client *bench_client_new(const char *server, const char *ca, const char *token,
                                    long idle_timeout_ms);

/* Whether obj's status.conditions holds one of that type (whatever its status). */
bool bench_has_condition(const json_t *obj, const char *type);
/* Whether the pod is Running with its first container running. */
bool bench_pod_running(const json_t *pod);
/* i of a name "<prefix>-<i>" with i < n, or -1. */
long bench_name_index(const char *prefix, const char *name, size_t n);

/* Replaces *p by a copy of s (NULL: none). */
void bench_set_str(char **p, const char *s);
/* pthread_cond_timedwait on cond (default clock) for at most ms milliseconds. */
void bench_cond_wait_ms(pthread_cond_t *cond, pthread_mutex_t *lock, long ms);
/* Watches the list at path (e.g. "/api/v1/namespaces/NS/pods") with c, forever: each time a
 * watch ends it starts again from *rv, read under lock (on_event is to keep *rv current, under
 * the same lock). Dies when a watch fails. */
_noreturn_ void bench_watch_forever(struct api_client *c, const char *path, pthread_mutex_t *lock,
                                    char *const *rv, api_client_watch_fn on_event, void *ud);

#endif
