/* bench-util.c: the helpers of bench-util.h, shared by the benchmark programs under bench/. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "base/json.h"
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

void bench_print_stats(const char *key, double *v, size_t n, unsigned extra)
{
        double sum = 0;

        qsort(v, n, sizeof(*v), cmp_double);
        for (size_t i = 0; i < n; i++)
                sum += v[i];
        (void) printf("%s.n %zu\n", key, n);
        if (extra & BENCH_STATS_MIN)
                (void) printf("%s.min %.3f\n", key, n ? v[0] : 0);
        if (extra & BENCH_STATS_P10)
                (void) printf("%s.p10 %.3f\n", key, percentile(v, n, 0.10));
        (void) printf("%s.p50 %.3f\n", key, percentile(v, n, 0.50));
        if (extra & BENCH_STATS_P90)
                (void) printf("%s.p90 %.3f\n", key, percentile(v, n, 0.90));
        (void) printf("%s.p99 %.3f\n", key, percentile(v, n, 0.99));
        (void) printf("%s.max %.3f\n", key, n ? v[n - 1] : 0);
        (void) printf("%s.mean %.3f\n", key, n ? sum / (double) n : 0);
}

char *bench_read_token(const char *path)
{
        cleanup_free char *buf = NULL;
        size_t len;
        int r = fs_read_file_at(AT_FDCWD, path, 4096, &buf, &len);

        if (r < 0)
                die("token file \"%s\": %s", path, strerror(-r));
        buf[strcspn(buf, "\r\n")] = '\0';
        if (!buf[0])
                die("token file \"%s\": empty", path);
        return TAKE_PTR(buf);
}

struct api_client *bench_client_new(const char *server, const char *ca, const char *token,
                                    long idle_timeout_ms)
{
        struct api_client_options o = { .server_url = server,
                                        .ca_file = ca,
                                        .token = token,
                                        .idle_timeout_ms = idle_timeout_ms };
        cleanup_error struct error *err = NULL;
        struct api_client *c = NULL;

        if (api_client_new(&o, &c, &err) < 0)
                die("%s", err->message);
        return c;
}

bool bench_has_condition(const json_t *obj, const char *type)
{
        size_t i;
        json_t *c;

        json_array_foreach(json_path(obj, "status.conditions"), i, c) {
                const char *t = json_string_value(json_object_get(c, "type"));
                if (t && streq(t, type))
                        return true;
        }
        return false;
}

bool bench_pod_running(const json_t *pod)
{
        const char *phase = json_path_string(pod, "status.phase");
        const json_t *cs = json_array_get(json_path(pod, "status.containerStatuses"), 0);

        return phase && streq(phase, "Running") &&
               json_object_get(json_object_get(cs, "state"), "running");
}

long bench_name_index(const char *prefix, const char *name, size_t n)
{
        size_t len = strlen(prefix);
        char *end;
        long i;

        if (!name || strncmp(name, prefix, len) || name[len] != '-')
                return -1;
        i = strtol(name + len + 1, &end, 10);
        return *end || i < 0 || (size_t) i >= n ? -1 : i;
}

void bench_set_str(char **p, const char *s)
{
        free(*p);
        *p = s ? xstrdup(s) : NULL;
}

void bench_cond_wait_ms(pthread_cond_t *cond, pthread_mutex_t *lock, long ms)
{
        struct timespec ts;

        (void) clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += ms * 1000000;
        ts.tv_sec += ts.tv_nsec / 1000000000;
        ts.tv_nsec %= 1000000000;
        (void) pthread_cond_timedwait(cond, lock, &ts);
}

void bench_watch_forever(struct api_client *c, const char *path, pthread_mutex_t *lock,
                         char *const *rv, api_client_watch_fn on_event, void *ud)
{
        for (;;) {
                cleanup_error struct error *err = NULL;
                cleanup_free char *query = NULL;
                int r;

                /* K8S: allowWatchBookmarks is false unless asked for; said anyway. */
                pthread_mutex_lock(lock);
                query = xasprintf("%s?watch=true&resourceVersion=%s&timeoutSeconds=3600"
                                  "&allowWatchBookmarks=false",
                                  path, *rv);
                pthread_mutex_unlock(lock);
                r = api_client_watch(c, query, on_event, ud, &err);
                if (r < 0)
                        die("watch %s: %s", path, err ? err->message : strerror(-r));
        }
}
