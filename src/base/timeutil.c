/* timeutil.c: RFC 3339 and Kubernetes' short human durations (duration.HumanDuration). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/timeutil.h"

void time_format_rfc3339(time_t t, char buf[static 32])
{
        struct tm tm;

        gmtime_r(&t, &tm);
        (void) strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void time_format_rfc3339_micro(const struct timespec *ts, char buf[static 40])
{
        struct tm tm;
        char head[32];

        gmtime_r(&ts->tv_sec, &tm);
        (void) strftime(head, sizeof(head), "%Y-%m-%dT%H:%M:%S", &tm);
        (void) snprintf(buf, 40, "%.20s.%06dZ", head, (int) (ts->tv_nsec / 1000 % 1000000));
}

int time_parse_rfc3339(const char *s, time_t *ret)
{
        struct tm tm = { 0 };
        const char *p = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
        long offset = 0;

        if (!p)
                return -EINVAL;
        if (*p == '.') {
                p++;
                if (*p < '0' || *p > '9')
                        return -EINVAL;
                while (*p >= '0' && *p <= '9')
                        p++;
        }
        if (*p == 'Z' || *p == 'z') {
                p++;
        } else if (*p == '+' || *p == '-') {
                int hh, mm;
                if (sscanf(p + 1, "%2d:%2d", &hh, &mm) != 2 || strlen(p) != 6)
                        return -EINVAL;
                offset = (hh * 3600L + mm * 60L) * (*p == '+' ? 1 : -1);
                p += 6;
        } else {
                return -EINVAL;
        }
        if (*p)
                return -EINVAL;
        *ret = timegm(&tm) - offset;
        return 0;
}

int64_t time_monotonic_ms(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct timespec time_after_ms(clockid_t clock, long ms)
{
        struct timespec t;

        clock_gettime(clock, &t);
        t.tv_sec += ms / 1000;
        t.tv_nsec += (ms % 1000) * 1000000L;
        if (t.tv_nsec >= 1000000000L) {
                t.tv_sec++;
                t.tv_nsec -= 1000000000L;
        }
        return t;
}

bool time_before(const struct timespec *a, const struct timespec *b)
{
        return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/* K8S: apimachinery duration.HumanDuration, the rule behind every AGE column. */
void time_format_age(time_t now, time_t then, char buf[static 32])
{
        long long d = (long long) (now - then);
        long long m, h;

        if (d < -1) {
                (void) snprintf(buf, 32, "<invalid>");
                return;
        }
        if (d < 0)
                d = 0;
        if (d < 60 * 2) {
                (void) snprintf(buf, 32, "%llds", d);
                return;
        }
        m = d / 60;
        if (m < 10) {
                if (d % 60 == 0)
                        (void) snprintf(buf, 32, "%lldm", m);
                else
                        (void) snprintf(buf, 32, "%lldm%llds", m, d % 60);
                return;
        }
        if (m < 60 * 3) {
                (void) snprintf(buf, 32, "%lldm", m);
                return;
        }
        h = d / 3600;
        if (h < 8) {
                if (m % 60 == 0)
                        (void) snprintf(buf, 32, "%lldh", h);
                else
                        (void) snprintf(buf, 32, "%lldh%lldm", h, m % 60);
                return;
        }
        if (h < 48) {
                (void) snprintf(buf, 32, "%lldh", h);
                return;
        }
        if (h < 24 * 8) {
                if (h % 24 == 0)
                        (void) snprintf(buf, 32, "%lldd", h / 24);
                else
                        (void) snprintf(buf, 32, "%lldd%lldh", h / 24, h % 24);
                return;
        }
        if (h < 24 * 365 * 2) {
                (void) snprintf(buf, 32, "%lldd", h / 24);
                return;
        }
        if (h < 24 * 365 * 8) {
                long long dy = (h / 24) % 365;
                if (dy == 0)
                        (void) snprintf(buf, 32, "%lldy", h / 24 / 365);
                else
                        (void) snprintf(buf, 32, "%lldy%lldd", h / 24 / 365, dy);
                return;
        }
        (void) snprintf(buf, 32, "%lldy", h / 24 / 365);
}
