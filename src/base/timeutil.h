/* timeutil.h: wall-clock and monotonic time, RFC 3339 formatting and parsing as Kubernetes
 * writes timestamps ("2025-01-01T00:00:00Z", and "...00.000000Z" for MicroTime). */
#ifndef FLEXLET_BASE_TIMEUTIL_H
#define FLEXLET_BASE_TIMEUTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* Seconds-resolution UTC timestamp into buf (at least 21 bytes). */
void time_format_rfc3339(time_t t, char buf[static 32]);
/* Microsecond UTC timestamp (MicroTime) into buf. */
void time_format_rfc3339_micro(const struct timespec *ts, char buf[static 40]);
/* Parses RFC 3339 (Z or numeric offset, optional fraction). Returns 0 or -EINVAL. */
int time_parse_rfc3339(const char *s, time_t *ret);
/* Monotonic milliseconds. */
int64_t time_monotonic_ms(void);
/* The time ms milliseconds from now on clock (a deadline for pthread_cond_timedwait). */
struct timespec time_after_ms(clockid_t clock, long ms);
/* Whether a comes before b. */
bool time_before(const struct timespec *a, const struct timespec *b);
/* Kubernetes' human duration as kubectl's AGE column shows it ("5s", "3m2s", "4h", "2d3h"). */
void time_format_age(time_t now, time_t then, char buf[static 32]);

#endif
