/* watch-bench.c: watch delivery latency across API servers (run-scaleout-bench.sh's second
 * phase). One ConfigMap is PATCHed through server A, one write at a time; a watch through A and
 * a watch through B (both from bench-util's bench_watch_forever, started before the first
 * write) stamp the moment each write's MODIFIED event arrives. A write's latency on a server is
 * from just before its PATCH is sent to its event read from that server's watch; the next write
 * waits until both watches saw the last one, so no event queues behind another. The first
 * --warmup writes are not counted. Prints "key value" lines: patch.ms.*, watch.a.ms.*,
 * watch.b.ms.* (bench_print_stats) and the ratios of B's p50 and p99 to A's. With both servers
 * on one etcd, B's extra is the etcd watch between the servers. A program, not a library: it
 * prints and exits, and dies naming what it could not measure. */
#include <getopt.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/json.h"
#include "bench-util.h"

/* How long one write may take to reach both watches before the benchmark gives up. */
#define EVENT_TIMEOUT_MS 10000

struct opts {
        const char *server_a;
        const char *server_b;
        const char *ca;
        const char *ns;
        char *token;
        size_t events;
        size_t warmup;
};

/* One server's watch: when each write (its "seq" value) was seen. */
struct watcher {
        const struct opts *o;
        const char *server;
        const char *name; /* the ConfigMap's */
        pthread_mutex_t *lock;
        pthread_cond_t *cond;
        char *rv;      /* under lock */
        int64_t *seen; /* under lock; 0: not yet */
        size_t n;
};

static int on_event(void *ud, const char *type, json_t *obj)
{
        struct watcher *w = ud;
        const char *seq, *rv = json_path_string(obj, "metadata.resourceVersion");
        const char *name = json_path_string(obj, "metadata.name");
        int64_t t = now_ns();
        char *end;
        unsigned long i;

        if (streq(type, "ERROR"))
                die("watch through %s: %s", w->server,
                    json_path_string(obj, "message") ?: "an ERROR event");
        pthread_mutex_lock(w->lock);
        if (rv)
                bench_set_str(&w->rv, rv);
        seq = json_path_string(obj, "data.seq");
        if (streq(type, "MODIFIED") && name && streq(name, w->name) && seq) {
                i = strtoul(seq, &end, 10);
                if (!*end && i < w->n && !w->seen[i]) {
                        w->seen[i] = t;
                        pthread_cond_broadcast(w->cond);
                }
        }
        pthread_mutex_unlock(w->lock);
        return 0;
}

static void *watcher_main(void *arg)
{
        struct watcher *w = arg;
        struct api_client *c =
                bench_client_new(w->server, w->o->ca, w->o->token, BENCH_IDLE_TIMEOUT_MS);
        cleanup_free char *path = xasprintf("/api/v1/namespaces/%s/configmaps", w->o->ns);

        bench_watch_forever(c, path, w->lock, &w->rv, on_event, w);
}

static long request(struct api_client *c, const char *method, const char *path, const char *ct,
                    const char *body, json_t **ret)
{
        cleanup_error struct error *err = NULL;
        long status = 0;

        if (api_client_request(c, method, path, ct, body, body ? strlen(body) : 0, &status, ret,
                               &err) < 0)
                die("%s %s: %s", method, path, err->message);
        return status;
}

static void usage(FILE *f)
{
        (void) fprintf(
                f, "usage: watch-bench --server-a URL --server-b URL --ca FILE --token-file FILE\n"
                   "                   [--ns NS] [--events N] [--warmup N]\n");
}

static void parse_args(int argc, char **argv, struct opts *o)
{
        static const struct option options[] = {
                { "server-a", required_argument, NULL, 'a' },
                { "server-b", required_argument, NULL, 'b' },
                { "ca", required_argument, NULL, 'c' },
                { "token-file", required_argument, NULL, 't' },
                { "ns", required_argument, NULL, 'N' },
                { "events", required_argument, NULL, 'e' },
                { "warmup", required_argument, NULL, 'w' },
                { "help", no_argument, NULL, 'h' },
                { NULL, 0, NULL, 0 },
        };
        const char *token_file = NULL;
        char *end;
        int c;

        *o = (struct opts){ .ns = "default", .events = 500, .warmup = 20 };
        while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
                switch (c) {
                case 'a':
                        o->server_a = optarg;
                        break;
                case 'b':
                        o->server_b = optarg;
                        break;
                case 'c':
                        o->ca = optarg;
                        break;
                case 't':
                        token_file = optarg;
                        break;
                case 'N':
                        o->ns = optarg;
                        break;
                case 'e':
                case 'w': {
                        unsigned long v = strtoul(optarg, &end, 10);

                        if (*end || !*optarg || v > 1000000 || (c == 'e' && v == 0))
                                die("--%s \"%s\": expected a count", c == 'e' ? "events" : "warmup",
                                    optarg);
                        *(c == 'e' ? &o->events : &o->warmup) = v;
                        break;
                }
                case 'h':
                        usage(stdout);
                        exit(0);
                default:
                        usage(stderr);
                        exit(2);
                }
        }
        if (optind != argc || !o->server_a || !o->server_b || !o->ca || !token_file) {
                usage(stderr);
                exit(2);
        }
        o->token = bench_read_token(token_file);
}

int main(int argc, char **argv)
{
        pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
        pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
        struct opts o;
        struct watcher wa, wb;
        pthread_t ta, tb;
        struct api_client *c;
        cleanup_json json_t *created = NULL;
        cleanup_free char *name = NULL, *path = NULL, *obj_path = NULL, *body = NULL;
        int64_t *sent;
        double *lat_a, *lat_b, *lat_patch;
        size_t n;

        parse_args(argc, argv, &o);
        n = o.warmup + o.events;
        c = bench_client_new(o.server_a, o.ca, o.token, 0);
        name = xasprintf("watch-bench-%ld", (long) getpid());
        path = xasprintf("/api/v1/namespaces/%s/configmaps", o.ns);
        obj_path = xasprintf("%s/%s", path, name);
        body = xasprintf("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":"
                         "\"%s\"},\"data\":{\"seq\":\"start\"}}",
                         name);
        if (request(c, "POST", path, NULL, body, &created) != 201)
                die("creating ConfigMap %s: %s", name,
                    json_path_string(created, "message") ?: "failed");

        /* Both watches from the create's resourceVersion: each sees every write after it. */
        sent = xcalloc(n, sizeof(*sent));
        wa = (struct watcher){ .o = &o,
                               .server = o.server_a,
                               .name = name,
                               .lock = &lock,
                               .cond = &cond,
                               .seen = xcalloc(n, sizeof(int64_t)),
                               .n = n,
                               .rv = xstrdup(json_path_string(created, "metadata.resourceVersion")
                                                     ?: "0") };
        wb = wa;
        wb.server = o.server_b;
        wb.seen = xcalloc(n, sizeof(int64_t));
        wb.rv = xstrdup(wa.rv);
        if (pthread_create(&ta, NULL, watcher_main, &wa) != 0 ||
            pthread_create(&tb, NULL, watcher_main, &wb) != 0)
                die("pthread_create failed");

        lat_a = xcalloc(o.events, sizeof(double));
        lat_b = xcalloc(o.events, sizeof(double));
        lat_patch = xcalloc(o.events, sizeof(double));
        for (size_t i = 0; i < n; i++) {
                cleanup_free char *patch = xasprintf("{\"data\":{\"seq\":\"%zu\"}}", i);
                cleanup_json json_t *answer = NULL;
                int64_t t0 = now_ns(), t1, deadline;
                long status;

                pthread_mutex_lock(&lock);
                sent[i] = t0;
                pthread_mutex_unlock(&lock);
                status = request(c, "PATCH", obj_path, "application/merge-patch+json", patch,
                                 &answer);
                t1 = now_ns();
                if (status != 200)
                        die("PATCH %s: status %ld: %s", obj_path, status,
                            json_path_string(answer, "message") ?: "");
                deadline = t1 + (int64_t) EVENT_TIMEOUT_MS * 1000000;
                pthread_mutex_lock(&lock);
                while ((!wa.seen[i] || !wb.seen[i]) && now_ns() < deadline)
                        bench_cond_wait_ms(&cond, &lock, 100);
                if (!wa.seen[i] || !wb.seen[i]) {
                        pthread_mutex_unlock(&lock);
                        die("write %zu was not seen within %d ms through %s", i, EVENT_TIMEOUT_MS,
                            !wa.seen[i] ? o.server_a : o.server_b);
                }
                if (i >= o.warmup) {
                        lat_a[i - o.warmup] = ms_between(t0, wa.seen[i]);
                        lat_b[i - o.warmup] = ms_between(t0, wb.seen[i]);
                        lat_patch[i - o.warmup] = ms_between(t0, t1);
                }
                pthread_mutex_unlock(&lock);
        }
        {
                cleanup_json json_t *answer = NULL;

                if (request(c, "DELETE", obj_path, NULL, NULL, &answer) != 200)
                        die("DELETE %s failed", obj_path);
        }

        (void) printf("watch.events %zu\nwatch.warmup %zu\n", o.events, o.warmup);
        bench_print_stats("patch.ms", lat_patch, o.events, 0);
        bench_print_stats("watch.a.ms", lat_a, o.events, 0);
        bench_print_stats("watch.b.ms", lat_b, o.events, 0);
        /* bench_print_stats sorted both: the percentiles are read back here */
        (void) printf("watch.b_over_a.p50 %.2f\nwatch.b_over_a.p99 %.2f\n",
                      percentile(lat_b, o.events, 0.50) / percentile(lat_a, o.events, 0.50),
                      percentile(lat_b, o.events, 0.99) / percentile(lat_a, o.events, 0.99));
        /* The watch threads block in their watches for ever: exit ends them. */
        (void) fflush(stdout);
        _exit(0);
}
