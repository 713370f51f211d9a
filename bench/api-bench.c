/* api-bench.c: throughput and latency of a running flexlet apiserver, beside the fsync floor of
 * the disk under its data directory, measured in one run and reported as ratios. It creates N
 * Burstable pods (one client; with --create-clients C, half of them by one client and the other
 * half by C at once, each half timed as a phase), then for 1, 8 and 64 concurrent clients
 * (threads, each with its own keep-alive api_client) measures GET of a pod and PATCH
 * pods/<name>/resize (a strategic merge patch that moves the cpu request between two values, so
 * every PATCH is a real write), each phase bounded by a request count and a time cap; and, before
 * and after those, 4 KiB write + fdatasync in the data directory (the disk's floor). It checks
 * afterwards that every PATCH was a write (the store's resourceVersion advanced once per PATCH,
 * every pod holds the last value sent). Then --handshakes new clients (default 100) connect at
 * once, each doing its TCP connect, TLS handshake and one GET: the time until the last is answered
 * is what a crowd of new clients waits. With --server-pid, the server's thread count and RSS are
 * read when every client of a phase is connected. Last, one client measures the wire formats side
 * by side: GET of a pod, LIST of the namespace and PATCH resize with `Accept: application/json`
 * and with `Accept: application/vnd.kubernetes.protobuf`, and the bytes of one pod in each. With
 * --rate, GET runs again in an open loop after the closed-loop GET phases (see open-loop below).
 * With --compare-token-file, the GET and PATCH phases then run again in --compare-rounds rounds,
 * alternating between --token-file's identity and the other one (which goes first alternates too),
 * on the same pods of the same server, so that what the other identity's authentication and
 * authorization cost shows as the ratio of the two medians, with the machine's drift spread over
 * both. Prints a Markdown report and writes it to --out. A program, not a library: it prints and
 * exits. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "base/alloc.h"
#include "base/json.h"
#include "base/strbuf.h"
#include "client/client.h"
#include "bench-util.h"

#define CPU_LOW          "100m"
#define CPU_HIGH         "200m"
#define FSYNC_FILE_BYTES (4 * 1024 * 1024)
#define FSYNC_BLOCK      4096

enum op {
        OP_CREATE,
        OP_GET,
        OP_PATCH,
        OP_FSYNC,
        OP_HANDSHAKE,
};

static const char *const op_names[] = {
        [OP_CREATE] = "POST pod (create)",
        [OP_GET] = "GET pod",
        [OP_PATCH] = "PATCH pods/x/resize",
        [OP_FSYNC] = "4 KiB write+fdatasync",
        [OP_HANDSHAKE] = "new TLS connection + GET, all at once",
};

struct config {
        const char *server;
        const char *ca_file;
        const char *token_file;
        const char *data_dir;
        const char *ns;
        const char *out;
        const char *commit;
        const char *compare_token_file;
        /* "" or the created pods' first spec field: "\"schedulerName\":\"NAME\"," */
        char *scheduler_field;
        char *token;
        char *compare_token;
        size_t compare_rounds;
        pid_t server_pid;
        size_t pods;
        size_t requests; /* per phase, shared by its clients */
        double seconds;  /* per phase */
        size_t fsyncs;
        size_t handshakes;
        size_t create_clients; /* > 1: the second half of the pods is created by this many */
        size_t clients[8];
        size_t n_clients;
        /* --rate: the open loop's offered rates, each in requests/s or (rate_pct) a percentage
         * of the closed-loop GET rate with the most clients */
        double rates[8];
        bool rate_pct[8];
        size_t n_rates;
};

struct result {
        enum op op;
        const char *label; /* NULL or a note after the operation's name */
        size_t clients;
        size_t done;
        size_t errors;
        long first_bad_status;
        double seconds;
        double p50_ms, p99_ms, max_ms;
        bool time_capped;
        double offered;     /* open loop: the offered rate, requests/s; 0: closed loop */
        double offered_pct; /* ... as a share of the closed-loop rate, percent; 0: absolute */
        long threads; /* the server's, with every client of the phase connected; -1: unknown */
        long rss_kib; /* likewise */
};

/* Per-pod state during a PATCH phase; each pod belongs to one worker, so no lock. */
struct pod_state {
        bool high; /* the cpu request the server holds is CPU_HIGH */
        size_t patches;
};

/* A phase is a closed loop (rate 0: each client sends its next request when its answer
 * arrives) or an open loop: the clients together send `rate` requests a second on a fixed
 * schedule, request j at t0 + j / rate on client j % clients, whether or not the answers keep up.
 * An open loop's latency runs from the scheduled time, not the send: a request that waited for
 * its client's previous answer counts its wait, so a stalled server is not hidden by the clients
 * slowing down with it (coordinated omission). */
struct phase {
        const struct config *cfg;
        enum op op;
        size_t clients;
        size_t per_client;
        int64_t cap_ns;
        struct pod_state *pods;
        double rate;
        int64_t t0; /* the schedule's start, set between the two barriers */
        pthread_barrier_t ready, start;
};

struct worker {
        pthread_t thread;
        struct phase *ph;
        size_t index;
        uint32_t *lat_us;
        size_t n;
        size_t errors;
        long first_bad_status;
        bool time_capped;
        char *setup_error;
};

/* The number on the line of /proc/PID/status that fmt (a sscanf format with one %ld) reads,
 * or -1. */
static long status_number(pid_t pid, const char *fmt)
{
        char path[64], line[256];
        long n = -1;
        FILE *f;

        (void) snprintf(path, sizeof(path), "/proc/%d/status", (int) pid);
        f = fopen(path, "re");
        if (!f)
                return -1;
        while (fgets(line, sizeof(line), f))
                if (sscanf(line, fmt, &n) == 1)
                        break;
        (void) fclose(f);
        return n;
}

/* VmRSS of pid in KiB, or -1. */
static long rss_kib(pid_t pid)
{
        return status_number(pid, "VmRSS: %ld kB");
}

/* Threads of pid, or -1. */
static long threads_of(pid_t pid)
{
        return status_number(pid, "Threads: %ld");
}

/* The 1-minute load average: other work on the machine skews every number here. */
static double loadavg1(void)
{
        double l = -1;
        FILE *f = fopen("/proc/loadavg", "re");

        if (f) {
                if (fscanf(f, "%lf", &l) != 1)
                        l = -1;
                (void) fclose(f);
        }
        return l;
}

static char *pod_path(const struct config *cfg, size_t i, const char *sub)
{
        return xasprintf("/api/v1/namespaces/%s/pods/bench-%zu%s%s", cfg->ns, i, sub ? "/" : "",
                         sub ?: "");
}

static int cmp_u32(const void *a, const void *b)
{
        uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;

        return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of sorted values (microseconds), in milliseconds. */
static double percentile_ms(const uint32_t *sorted, size_t n, double p)
{
        size_t rank;

        if (n == 0)
                return 0;
        rank = (size_t) (p * (double) n + 0.999999);
        if (rank < 1)
                rank = 1;
        if (rank > n)
                rank = n;
        return sorted[rank - 1] / 1000.0;
}

static void summarize(struct result *res, uint32_t *lat, size_t n, int64_t elapsed_ns)
{
        qsort(lat, n, sizeof(*lat), cmp_u32);
        res->done = n;
        res->seconds = (double) elapsed_ns / 1e9;
        res->p50_ms = percentile_ms(lat, n, 0.50);
        res->p99_ms = percentile_ms(lat, n, 0.99);
        res->max_ms = n ? lat[n - 1] / 1000.0 : 0;
}

static double rate(const struct result *r)
{
        return r->seconds > 0 ? (double) (r->done - r->errors) / r->seconds : 0;
}

static const char pod_fmt[] =
        "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"bench-%zu\","
        "\"labels\":{\"app\":\"api-bench\"}},\"spec\":{%s\"containers\":[{\"name\":\"c\","
        "\"image\":\"busybox\",\"command\":[\"sleep\",\"3600\"],\"resources\":{"
        "\"requests\":{\"cpu\":\"" CPU_LOW "\",\"memory\":\"64Mi\"},"
        "\"limits\":{\"cpu\":\"1\",\"memory\":\"128Mi\"}}}]}}";

/* One creating client: pods [first, first + n), latencies into lat[0..n). */
struct creator {
        const struct config *cfg;
        size_t first, n;
        uint32_t *lat;
        pthread_t thread;
};

static void *creator_main(void *arg)
{
        struct creator *cr = arg;
        const struct config *cfg = cr->cfg;
        cleanup_api_client struct api_client *c =
                bench_client_new(cfg->server, cfg->ca_file, cfg->token, 0);
        cleanup_free char *path = xasprintf("/api/v1/namespaces/%s/pods", cfg->ns);

        for (size_t k = 0; k < cr->n; k++) {
                size_t i = cr->first + k;
                cleanup_free char *body = xasprintf(pod_fmt, i, cfg->scheduler_field);
                cleanup_error struct error *err = NULL;
                cleanup_json json_t *j = NULL;
                int64_t s = now_ns();
                long status = 0;

                if (api_client_request(c, "POST", path, NULL, body, strlen(body), &status, &j,
                                       &err) < 0)
                        die("%s", err->message);
                cr->lat[k] = (uint32_t) ((now_ns() - s) / 1000);
                if (status != 201)
                        die("creating pod \"bench-%zu\": status %ld: %s", i, status,
                            json_path_string(j, "message") ?: "");
        }
        return NULL;
}

/* Creates pods [first, first + n) from `clients` clients at once, each an even share. */
static void create_pods(const struct config *cfg, size_t first, size_t n, size_t clients,
                        struct result *res)
{
        uint32_t *lat = xcalloc(n ? n : 1, sizeof(*lat));
        struct creator *crs = xcalloc(clients, sizeof(*crs));
        size_t at = 0;
        int64_t t0 = now_ns();

        *res = (struct result){ .op = OP_CREATE, .clients = clients, .threads = -1, .rss_kib = -1 };
        for (size_t t = 0; t < clients; t++) {
                size_t share = n / clients + (t < n % clients);

                crs[t] = (struct creator){
                        .cfg = cfg, .first = first + at, .n = share, .lat = lat + at
                };
                at += share;
                if (pthread_create(&crs[t].thread, NULL, creator_main, &crs[t]))
                        die("pthread_create failed");
        }
        for (size_t t = 0; t < clients; t++)
                (void) pthread_join(crs[t].thread, NULL);
        summarize(res, lat, n, now_ns() - t0);
        free(crs);
        free(lat);
}

static void *worker_main(void *arg)
{
        struct worker *w = arg;
        const struct phase *ph = w->ph;
        const struct config *cfg = ph->cfg;
        cleanup_api_client struct api_client *c =
                bench_client_new(cfg->server, cfg->ca_file, cfg->token, 0);
        char **paths;
        size_t n_paths = 0, *ids;
        int64_t deadline;

        paths = xcalloc(cfg->pods / ph->clients + 1, sizeof(*paths));
        ids = xcalloc(cfg->pods / ph->clients + 1, sizeof(*ids));
        for (size_t p = w->index % cfg->pods; p < cfg->pods; p += ph->clients) {
                ids[n_paths] = p;
                paths[n_paths++] = pod_path(cfg, p, ph->op == OP_PATCH ? "resize" : NULL);
        }
        /* Warm-up outside the measurement: connect and complete the TLS handshake. 512 clients
         * handshaking at once on a busy machine can miss the connect timeout: a few tries. */
        for (int attempt = 0; attempt < 5; attempt++) {
                cleanup_free char *get = pod_path(cfg, ids[0], NULL);
                cleanup_error struct error *err = NULL;
                long status = 0;

                free(w->setup_error);
                w->setup_error = NULL;
                if (api_client_request(c, "GET", get, NULL, NULL, 0, &status, NULL, &err) < 0)
                        w->setup_error = xstrdup(err->message);
                else if (status != 200)
                        w->setup_error = xasprintf("warm-up GET: status %ld", status);
                else
                        break;
        }
        (void) pthread_barrier_wait(&w->ph->ready);
        (void) pthread_barrier_wait(&w->ph->start);
        deadline = (ph->rate > 0 ? ph->t0 : now_ns()) + ph->cap_ns;

        for (size_t i = 0; !w->setup_error && i < ph->per_client; i++) {
                size_t k = i % n_paths;
                struct pod_state *st = &ph->pods[ids[k]];
                char body[160];
                int64_t s = now_ns();
                long status = 0;
                int r;

                if (ph->rate > 0) {
                        /* this client's i-th request is the schedule's (index + i * clients)-th */
                        int64_t due = ph->t0 + (int64_t) ((double) (w->index + i * ph->clients) *
                                                          1e9 / ph->rate);
                        struct timespec ts = { .tv_sec = due / 1000000000,
                                               .tv_nsec = due % 1000000000 };

                        if (due >= deadline) {
                                w->time_capped = true;
                                break;
                        }
                        while (s < due &&
                               clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
                                ;
                        s = due; /* late or not, the latency counts from the schedule */
                } else if (s >= deadline) {
                        w->time_capped = true;
                        break;
                }
                if (ph->op == OP_GET) {
                        r = api_client_request(c, "GET", paths[k], NULL, NULL, 0, &status, NULL,
                                               NULL);
                } else {
                        int len = snprintf(body, sizeof(body),
                                           "{\"spec\":{\"containers\":[{\"name\":\"c\","
                                           "\"resources\":{\"requests\":{\"cpu\":\"%s\"}}}]}}",
                                           st->high ? CPU_LOW : CPU_HIGH);
                        r = api_client_request(c, "PATCH", paths[k],
                                               "application/strategic-merge-patch+json", body,
                                               (size_t) len, &status, NULL, NULL);
                }
                w->lat_us[w->n++] = (uint32_t) ((now_ns() - s) / 1000);
                if (r < 0 || status != 200) {
                        if (!w->errors)
                                w->first_bad_status = r < 0 ? r : status;
                        w->errors++;
                        continue;
                }
                if (ph->op == OP_PATCH) {
                        st->high = !st->high;
                        st->patches++;
                }
        }
        for (size_t i = 0; i < n_paths; i++)
                free(paths[i]);
        free(paths);
        free(ids);
        return NULL;
}

/* rate 0: a closed loop of at most --requests requests or --seconds; else an open loop offering
 * rate requests/s for --seconds (cut at twice that if the server falls that far behind). */
static void run_phase(const struct config *cfg, enum op op, size_t clients, double rate,
                      struct pod_state *pods, struct result *res)
{
        size_t total = rate > 0 ? (size_t) (rate * cfg->seconds + 0.5) : cfg->requests;
        struct phase ph = {
                .cfg = cfg,
                .op = op,
                .clients = clients,
                .per_client = (total + clients - 1) / clients,
                .cap_ns = (int64_t) (cfg->seconds * 1e9) * (rate > 0 ? 2 : 1),
                .pods = pods,
                .rate = rate,
        };
        struct worker *ws = xcalloc(clients, sizeof(*ws));
        uint32_t *all;
        size_t n = 0;
        int64_t t0;

        *res = (struct result){
                .op = op, .clients = clients, .offered = rate, .threads = -1, .rss_kib = -1
        };
        if (pthread_barrier_init(&ph.ready, NULL, (unsigned) clients + 1) ||
            pthread_barrier_init(&ph.start, NULL, (unsigned) clients + 1))
                die("pthread_barrier_init failed");
        for (size_t i = 0; i < clients; i++) {
                ws[i] = (struct worker){ .ph = &ph, .index = i };
                ws[i].lat_us = xcalloc(ph.per_client, sizeof(uint32_t));
                if (pthread_create(&ws[i].thread, NULL, worker_main, &ws[i]))
                        die("pthread_create failed");
        }
        /* every client is connected: the schedule starts a moment after all are released */
        (void) pthread_barrier_wait(&ph.ready);
        ph.t0 = now_ns() + 10 * 1000 * 1000;
        (void) pthread_barrier_wait(&ph.start);
        t0 = rate > 0 ? ph.t0 : now_ns();
        if (cfg->server_pid) {
                /* every client has its keep-alive connection open now */
                res->threads = threads_of(cfg->server_pid);
                res->rss_kib = rss_kib(cfg->server_pid);
        }
        for (size_t i = 0; i < clients; i++)
                (void) pthread_join(ws[i].thread, NULL);
        all = xcalloc(clients * ph.per_client + 1, sizeof(*all));
        for (size_t i = 0; i < clients; i++) {
                if (ws[i].setup_error)
                        die("%s, %zu clients: %s", op_names[op], clients, ws[i].setup_error);
                memcpy(all + n, ws[i].lat_us, ws[i].n * sizeof(*all));
                n += ws[i].n;
                res->errors += ws[i].errors;
                if (ws[i].errors && !res->first_bad_status)
                        res->first_bad_status = ws[i].first_bad_status;
                res->time_capped |= ws[i].time_capped;
                free(ws[i].lat_us);
        }
        summarize(res, all, n, now_ns() - t0);
        (void) pthread_barrier_destroy(&ph.ready);
        (void) pthread_barrier_destroy(&ph.start);
        free(all);
        free(ws);
}

struct handshaker {
        pthread_t thread;
        const struct config *cfg;
        pthread_barrier_t *start;
        uint32_t lat_us;
        bool failed;
};

static void *handshaker_main(void *arg)
{
        struct handshaker *hs = arg;
        const struct config *cfg = hs->cfg;
        cleanup_api_client struct api_client *c =
                bench_client_new(cfg->server, cfg->ca_file, cfg->token, 0);
        cleanup_free char *path = pod_path(cfg, 0, NULL);
        long status = 0;
        int64_t s;
        int r;

        (void) pthread_barrier_wait(hs->start);
        s = now_ns();
        /* the client connects on its first request: TCP, TLS handshake, then the GET */
        r = api_client_request(c, "GET", path, NULL, NULL, 0, &status, NULL, NULL);
        hs->lat_us = (uint32_t) ((now_ns() - s) / 1000);
        hs->failed = r < 0 || status != 200;
        return NULL;
}

/* n new clients connect and ask at the same instant. */
static void handshake_phase(const struct config *cfg, struct result *res)
{
        struct handshaker *hs = xcalloc(cfg->handshakes, sizeof(*hs));
        uint32_t *lat = xcalloc(cfg->handshakes, sizeof(*lat));
        pthread_barrier_t start;
        int64_t t0;

        *res = (struct result){
                .op = OP_HANDSHAKE, .clients = cfg->handshakes, .threads = -1, .rss_kib = -1
        };
        if (pthread_barrier_init(&start, NULL, (unsigned) cfg->handshakes + 1))
                die("pthread_barrier_init failed");
        for (size_t i = 0; i < cfg->handshakes; i++) {
                hs[i] = (struct handshaker){ .cfg = cfg, .start = &start };
                if (pthread_create(&hs[i].thread, NULL, handshaker_main, &hs[i]))
                        die("pthread_create failed");
        }
        (void) pthread_barrier_wait(&start);
        t0 = now_ns();
        for (size_t i = 0; i < cfg->handshakes; i++) {
                (void) pthread_join(hs[i].thread, NULL);
                lat[i] = hs[i].lat_us;
                if (hs[i].failed)
                        res->errors++;
        }
        summarize(res, lat, cfg->handshakes, now_ns() - t0);
        if (cfg->server_pid) {
                res->threads = threads_of(cfg->server_pid);
                res->rss_kib = rss_kib(cfg->server_pid);
        }
        (void) pthread_barrier_destroy(&start);
        free(lat);
        free(hs);
}

/* 4 KiB overwrites, each followed by fdatasync, cycling through a preallocated 4 MiB file:
 * the I/O pattern of a reused SQLite WAL at synchronous=FULL, the store's commit floor. */
static void fsync_floor(const struct config *cfg, const char *label, struct result *res,
                        uint32_t *lat)
{
        cleanup_free char *path = xasprintf("%s/api-bench-fsync.tmp", cfg->data_dir);
        char block[FSYNC_BLOCK];
        int64_t t0, deadline;
        size_t n = 0;
        int fd;

        *res = (struct result){
                .op = OP_FSYNC, .label = label, .clients = 1, .threads = -1, .rss_kib = -1
        };
        fd = open(path, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0600);
        if (fd < 0)
                die("\"%s\": %s", path, strerror(errno));
        memset(block, 0, sizeof(block));
        for (size_t off = 0; off < FSYNC_FILE_BYTES; off += sizeof(block))
                if (pwrite(fd, block, sizeof(block), (off_t) off) != (ssize_t) sizeof(block))
                        die("\"%s\": write: %s", path, strerror(errno));
        if (fsync(fd) < 0)
                die("\"%s\": fsync: %s", path, strerror(errno));

        t0 = now_ns();
        deadline = t0 + (int64_t) (cfg->seconds * 1e9);
        for (; n < cfg->fsyncs; n++) {
                off_t off = (off_t) ((n * sizeof(block)) % FSYNC_FILE_BYTES);
                int64_t s = now_ns();

                if (s >= deadline) {
                        res->time_capped = true;
                        break;
                }
                memset(block, (int) (n & 0xff), sizeof(block));
                if (pwrite(fd, block, sizeof(block), off) != (ssize_t) sizeof(block))
                        die("\"%s\": write: %s", path, strerror(errno));
                if (fdatasync(fd) < 0)
                        die("\"%s\": fdatasync: %s", path, strerror(errno));
                lat[n] = (uint32_t) ((now_ns() - s) / 1000);
        }
        summarize(res, lat, n, now_ns() - t0);
        (void) close(fd);
        (void) unlink(path);
}

static uint64_t list_resource_version(const struct config *cfg, struct api_client *c)
{
        cleanup_free char *path = xasprintf("/api/v1/namespaces/%s/pods", cfg->ns);
        cleanup_error struct error *err = NULL;
        cleanup_json json_t *j = NULL;
        const char *rv;
        long status = 0;

        if (api_client_request(c, "GET", path, NULL, NULL, 0, &status, &j, &err) < 0)
                die("%s", err->message);
        rv = json_path_string(j, "metadata.resourceVersion");
        if (status != 200 || !rv)
                die("listing pods: status %ld, no resourceVersion", status);
        return strtoull(rv, NULL, 10);
}

/* Every pod must hold the cpu request its last successful PATCH sent. */
static size_t check_pods(const struct config *cfg, struct api_client *c,
                         const struct pod_state *pods)
{
        size_t wrong = 0;

        for (size_t i = 0; i < cfg->pods; i++) {
                cleanup_free char *path = pod_path(cfg, i, NULL);
                cleanup_error struct error *err = NULL;
                cleanup_json json_t *j = NULL;
                json_t *ctr;
                const char *cpu;

                if (api_client_request(c, "GET", path, NULL, NULL, 0, NULL, &j, &err) < 0)
                        die("%s", err->message);
                ctr = json_array_get(json_path(j, "spec.containers"), 0);
                cpu = json_path_string(ctr, "resources.requests.cpu");
                if (!cpu || !streq(cpu, pods[i].high ? CPU_HIGH : CPU_LOW))
                        wrong++;
        }
        return wrong;
}

/* ---- JSON beside protobuf: one keep-alive libcurl client that sets its own Accept ---- */

enum wire_op {
        WIRE_GET,
        WIRE_LIST,
        WIRE_PATCH,
        WIRE_OP_MAX,
};

static const char *const wire_op_names[WIRE_OP_MAX] = {
        [WIRE_GET] = "GET pod",
        [WIRE_LIST] = "LIST namespace",
        [WIRE_PATCH] = "PATCH pods/x/resize",
};

struct wire_result {
        enum wire_op op;
        const char *media;
        size_t done, errors;
        double seconds;
        uint64_t bytes; /* response bytes, all requests */
};

static size_t wire_sink(char *p, size_t size, size_t n, void *ud)
{
        struct strbuf *sb = ud;

        strbuf_add(sb, p, size * n);
        return size * n;
}

/* One request; the response body is left in out. Returns the HTTP status, or -1. */
static long wire_request(CURL *h, const char *method, const char *url, const char *body,
                         struct strbuf *out)
{
        long status = 0;

        strbuf_reset(out);
        curl_easy_setopt(h, CURLOPT_URL, url);
        if (body) {
                curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
                curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, (long) strlen(body));
                curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
        } else {
                curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
                curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, NULL);
        }
        if (curl_easy_perform(h) != CURLE_OK)
                return -1;
        curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
        return status;
}

static void wire_phase(const struct config *cfg, const char *media, enum wire_op op,
                       struct pod_state *pods, struct wire_result *res)
{
        CURL *h = curl_easy_init();
        struct curl_slist *hdr = NULL;
        cleanup_free char *auth = xasprintf("Authorization: Bearer %s", cfg->token);
        cleanup_free char *accept = xasprintf("Accept: %s", media);
        struct strbuf out;
        size_t n = op == WIRE_LIST ? (cfg->requests + 19) / 20 : cfg->requests;
        int64_t t0, deadline;

        if (!h)
                die("curl_easy_init failed");
        strbuf_init(&out);
        hdr = curl_slist_append(hdr, auth);
        hdr = curl_slist_append(hdr, accept);
        hdr = curl_slist_append(hdr, "Content-Type: application/strategic-merge-patch+json");
        hdr = curl_slist_append(hdr, "Expect:");
        curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
        curl_easy_setopt(h, CURLOPT_CAINFO, cfg->ca_file);
        curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, wire_sink);
        curl_easy_setopt(h, CURLOPT_WRITEDATA, &out);
        curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
        *res = (struct wire_result){ .op = op, .media = media };
        /* warm-up: connect and handshake outside the measurement */
        {
                cleanup_free char *path = pod_path(cfg, 0, NULL);
                cleanup_free char *url = xasprintf("%s%s", cfg->server, path);
                if (wire_request(h, "GET", url, NULL, &out) != 200)
                        die("wire warm-up GET failed");
        }
        t0 = now_ns();
        deadline = t0 + (int64_t) (cfg->seconds * 1e9);
        for (size_t i = 0; i < n && now_ns() < deadline; i++) {
                size_t k = i % cfg->pods;
                cleanup_free char *path =
                        op == WIRE_LIST ? xasprintf("/api/v1/namespaces/%s/pods", cfg->ns)
                                        : pod_path(cfg, k, op == WIRE_PATCH ? "resize" : NULL);
                cleanup_free char *url = xasprintf("%s%s", cfg->server, path);
                char body[160];
                long status;

                if (op == WIRE_PATCH)
                        (void) snprintf(body, sizeof(body),
                                        "{\"spec\":{\"containers\":[{\"name\":\"c\","
                                        "\"resources\":{\"requests\":{\"cpu\":\"%s\"}}}]}}",
                                        pods[k].high ? CPU_LOW : CPU_HIGH);
                status = wire_request(h, op == WIRE_PATCH ? "PATCH" : "GET", url,
                                      op == WIRE_PATCH ? body : NULL, &out);
                if (status != 200) {
                        res->errors++;
                        continue;
                }
                if (op == WIRE_PATCH)
                        pods[k].high = !pods[k].high;
                res->done++;
                res->bytes += out.len;
        }
        res->seconds = (double) (now_ns() - t0) / 1e9;
        strbuf_release(&out);
        curl_slist_free_all(hdr);
        curl_easy_cleanup(h);
}

static void wire_report(struct strbuf *sb, const struct config *cfg, const struct wire_result *rs,
                        size_t n)
{
        strbuf_addf(sb,
                    "\nJSON beside protobuf (one keep-alive client, `Accept` as named; the "
                    "PATCH body is the same strategic merge patch, only the answer's format "
                    "differs; LIST returns all %zu pods):\n\n"
                    "| operation | Accept | requests | errors | req/s | bytes per response |\n"
                    "|---|---|---:|---:|---:|---:|\n",
                    cfg->pods);
        for (size_t i = 0; i < n; i++)
                strbuf_addf(sb, "| %s | `%s` | %zu | %zu | %.0f | %.0f |\n",
                            wire_op_names[rs[i].op], rs[i].media, rs[i].done, rs[i].errors,
                            rs[i].seconds > 0 ? (double) rs[i].done / rs[i].seconds : 0,
                            rs[i].done ? (double) rs[i].bytes / (double) rs[i].done : 0);
        /* the phases run GET, LIST, PATCH, each in JSON then protobuf */
        if (n == 2 * WIRE_OP_MAX && rs[0].done && rs[1].done && rs[2].done && rs[3].done) {
                double get_json = (double) rs[0].bytes / (double) rs[0].done;
                double get_pb = (double) rs[1].bytes / (double) rs[1].done;

                strbuf_addf(sb,
                            "\nBytes per pod: %.0f in JSON, %.0f in protobuf (%.0f%%); in a LIST: "
                            "%.0f and %.0f.\n",
                            get_json, get_pb, 100.0 * get_pb / get_json,
                            (double) rs[2].bytes / (double) rs[2].done / (double) cfg->pods,
                            (double) rs[3].bytes / (double) rs[3].done / (double) cfg->pods);
        }
}

static const char *fs_name(long type)
{
        switch (type) {
        case 0xEF53:
                return "ext4";
        case 0x58465342:
                return "xfs";
        case 0x9123683E:
                return "btrfs";
        case 0x01021994:
                return "tmpfs (no disk: fsync is free)";
        case 0x794C7630:
                return "overlayfs";
        case 0x2FC12FC1:
                return "zfs";
        default:
                return NULL;
        }
}

static void parse_clients(struct config *cfg, const char *list)
{
        cleanup_free char *copy = xstrdup(list);
        char *save = NULL;

        cfg->n_clients = 0;
        for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                char *end;
                unsigned long v = strtoul(t, &end, 10);

                if (*end || v == 0 || v > 1024 || cfg->n_clients == ARRAY_SIZE(cfg->clients))
                        die("--clients: \"%s\": expected up to 8 counts from 1 to 1024", list);
                cfg->clients[cfg->n_clients++] = v;
        }
        if (!cfg->n_clients)
                die("--clients: empty");
}

/* --rate: "R[%],..." (requests/s, or a percentage of the closed-loop GET rate) */
static void parse_rates(struct config *cfg, const char *list)
{
        cleanup_free char *copy = xstrdup(list);
        char *save = NULL;

        cfg->n_rates = 0;
        for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                char *end;
                double v = strtod(t, &end);
                bool pct = *end == '%';

                if (pct)
                        end++;
                if (*end || end == t || !(v > 0) || v > (pct ? 1000 : 1e6) ||
                    cfg->n_rates == ARRAY_SIZE(cfg->rates))
                        die("--rate: \"%s\": expected up to 8 rates, each requests/s or a "
                            "percentage such as 25%%",
                            list);
                cfg->rates[cfg->n_rates] = v;
                cfg->rate_pct[cfg->n_rates++] = pct;
        }
}

static size_t parse_count(const char *flag, const char *s, size_t max)
{
        char *end;
        unsigned long long v = strtoull(s, &end, 10);

        if (*end || !*s || v == 0 || v > max)
                die("%s: \"%s\": expected a count from 1 to %zu", flag, s, max);
        return (size_t) v;
}

static void usage(FILE *f)
{
        (void) fprintf(
                f,
                "usage: api-bench --server URL --ca FILE --token-file FILE --data-dir DIR\n"
                "                 [--server-pid PID] [--namespace NS] [--pods N] [--requests N]\n"
                "                 [--seconds S] [--clients 1,8,64] [--fsyncs N] [--out FILE]\n"
                "                 [--commit ID] [--handshakes N] [--create-clients N]\n"
                "                 [--compare-token-file FILE [--compare-rounds N]]\n"
                "                 [--rate R[%%],...] [--scheduler-name NAME]\n\n"
                "  --pods N       pods to create and spread the load over (default 100)\n"
                "  --requests N   requests per phase, shared by its clients (default 5000)\n"
                "  --seconds S    time cap per phase (default 8)\n"
                "  --fsyncs N     write+fdatasync rounds for the disk floor (default 2000)\n"
                "  --handshakes N new clients connecting at once at the end (default 100)\n"
                "  --create-clients N  half the pods created by one client, the other half\n"
                "                 by N at once (default: all by one)\n"
                "  --compare-token-file FILE  GET and PATCH again, alternating with this\n"
                "                 identity, in --compare-rounds rounds (default 5)\n"
                "  --rate LIST    after the closed-loop GET phases, GET in an open loop with\n"
                "                 the most clients of --clients, offering each rate for\n"
                "                 --seconds: requests/s, or N%% of the closed-loop GET rate\n"
                "                 with those clients (e.g. 25%%,50%%,75%%)\n"
                "  --scheduler-name NAME  the created pods' spec.schedulerName: one no\n"
                "                 scheduler serves leaves each create a single write\n"
                "                 (default: the default scheduler's pods)\n");
}

static void parse_args(int argc, char **argv, struct config *cfg)
{
        static const struct option options[] = {
                { "server", required_argument, NULL, 's' },
                { "ca", required_argument, NULL, 'c' },
                { "token-file", required_argument, NULL, 't' },
                { "data-dir", required_argument, NULL, 'd' },
                { "server-pid", required_argument, NULL, 'p' },
                { "namespace", required_argument, NULL, 'n' },
                { "pods", required_argument, NULL, 'P' },
                { "requests", required_argument, NULL, 'r' },
                { "seconds", required_argument, NULL, 'S' },
                { "clients", required_argument, NULL, 'C' },
                { "fsyncs", required_argument, NULL, 'f' },
                { "out", required_argument, NULL, 'o' },
                { "commit", required_argument, NULL, 'g' },
                { "handshakes", required_argument, NULL, 'H' },
                { "create-clients", required_argument, NULL, 'K' },
                { "compare-token-file", required_argument, NULL, 'T' },
                { "compare-rounds", required_argument, NULL, 'R' },
                { "rate", required_argument, NULL, 'L' },
                { "scheduler-name", required_argument, NULL, 'N' },
                { "help", no_argument, NULL, 'h' },
                { NULL, 0, NULL, 0 },
        };
        int opt;

        *cfg = (struct config){ .ns = "default",
                                .pods = 512,
                                .requests = 5000,
                                .seconds = 8,
                                .fsyncs = 2000,
                                .handshakes = 100,
                                .compare_rounds = 5,
                                .scheduler_field = xstrdup("") };
        parse_clients(cfg, "1,8,64,512");
        while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
                switch (opt) {
                case 's':
                        cfg->server = optarg;
                        break;
                case 'c':
                        cfg->ca_file = optarg;
                        break;
                case 't':
                        cfg->token_file = optarg;
                        break;
                case 'd':
                        cfg->data_dir = optarg;
                        break;
                case 'p':
                        cfg->server_pid = (pid_t) parse_count("--server-pid", optarg, INT_MAX);
                        break;
                case 'n':
                        cfg->ns = optarg;
                        break;
                case 'P':
                        cfg->pods = parse_count("--pods", optarg, 100000);
                        break;
                case 'r':
                        cfg->requests = parse_count("--requests", optarg, 10000000);
                        break;
                case 'S':
                        cfg->seconds = (double) parse_count("--seconds", optarg, 3600);
                        break;
                case 'C':
                        parse_clients(cfg, optarg);
                        break;
                case 'f':
                        cfg->fsyncs = parse_count("--fsyncs", optarg, 10000000);
                        break;
                case 'o':
                        cfg->out = optarg;
                        break;
                case 'g':
                        cfg->commit = optarg;
                        break;
                case 'H':
                        cfg->handshakes = parse_count("--handshakes", optarg, 1000);
                        break;
                case 'K':
                        cfg->create_clients = parse_count("--create-clients", optarg, 512);
                        break;
                case 'T':
                        cfg->compare_token_file = optarg;
                        break;
                case 'R':
                        cfg->compare_rounds = parse_count("--compare-rounds", optarg, 100);
                        break;
                case 'L':
                        parse_rates(cfg, optarg);
                        break;
                case 'N':
                        if (!*optarg || strspn(optarg, "abcdefghijklmnopqrstuvwxyz0123456789-.") !=
                                                strlen(optarg))
                                die("--scheduler-name: \"%s\": expected a DNS subdomain", optarg);
                        free(cfg->scheduler_field);
                        cfg->scheduler_field = xasprintf("\"schedulerName\":\"%s\",", optarg);
                        break;
                case 'h':
                        usage(stdout);
                        exit(0);
                default:
                        usage(stderr);
                        exit(2);
                }
        }
        if (optind != argc || !cfg->server || !cfg->token_file || !cfg->data_dir) {
                usage(stderr);
                exit(2);
        }
        for (size_t i = 0; i < cfg->n_clients; i++)
                if (cfg->clients[i] > cfg->pods)
                        die("--clients %zu needs at least as many --pods", cfg->clients[i]);
        cfg->token = bench_read_token(cfg->token_file);
        if (cfg->compare_token_file)
                cfg->compare_token = bench_read_token(cfg->compare_token_file);
}

static void add_row(struct strbuf *sb, const struct result *r)
{
        char threads[32] = "", rss[32] = "";

        if (r->threads >= 0)
                (void) snprintf(threads, sizeof(threads), "%ld", r->threads);
        if (r->rss_kib >= 0)
                (void) snprintf(rss, sizeof(rss), "%.1f", r->rss_kib / 1024.0);
        char open_loop[96] = "";

        if (r->offered > 0 && r->offered_pct > 0)
                (void) snprintf(open_loop, sizeof(open_loop),
                                " (open loop, %.0f/s offered: %.0f%% of the closed loop's)",
                                r->offered, r->offered_pct);
        else if (r->offered > 0)
                (void) snprintf(open_loop, sizeof(open_loop), " (open loop, %.0f/s offered)",
                                r->offered);
        strbuf_addf(sb,
                    "| %s%s%s%s | %zu | %zu | %zu | %.0f | %.3f | %.3f | %.3f | %s | %s | %s |\n",
                    op_names[r->op], r->label ? " " : "", r->label ?: "", open_loop, r->clients,
                    r->done, r->errors, rate(r), r->p50_ms, r->p99_ms, r->max_ms,
                    r->time_capped ? "time cap" : "count", threads, rss);
}

static const struct result *find(const struct result *rs, size_t n, enum op op, size_t clients)
{
        for (size_t i = 0; i < n; i++)
                if (rs[i].op == op && rs[i].clients == clients && rs[i].offered == 0)
                        return &rs[i];
        return NULL;
}

/* The GET and PATCH phases of the comparison: per client count and operation, --compare-rounds
 * rounds of one phase with each identity. */
struct comparison {
        size_t clients;
        enum op op;
        struct result *own;   /* compare_rounds phases with --token-file's identity */
        struct result *other; /* and with --compare-token-file's */
};

/* The median over n results of what field reads. */
static double median_of(const struct result *rs, size_t n, double (*field)(const struct result *))
{
        double *v = xcalloc(n, sizeof(*v)), m;

        for (size_t i = 0; i < n; i++)
                v[i] = field(&rs[i]);
        qsort(v, n, sizeof(*v), cmp_double);
        m = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
        free(v);
        return m;
}

static double p50_of(const struct result *r)
{
        return r->p50_ms;
}

static double p99_of(const struct result *r)
{
        return r->p99_ms;
}

static void run_comparison(const struct config *cfg, struct pod_state *pods, struct comparison *cmp)
{
        struct config other = *cfg;

        other.token = cfg->compare_token;
        cmp->own = xcalloc(cfg->compare_rounds, sizeof(*cmp->own));
        cmp->other = xcalloc(cfg->compare_rounds, sizeof(*cmp->other));
        for (size_t r = 0; r < cfg->compare_rounds; r++) {
                (void) fprintf(stderr, "api-bench: %s, %zu clients, both identities, round %zu\n",
                               op_names[cmp->op], cmp->clients, r + 1);
                /* which identity goes first alternates, so neither always follows the other */
                if (r % 2 == 0) {
                        run_phase(cfg, cmp->op, cmp->clients, 0, pods, &cmp->own[r]);
                        run_phase(&other, cmp->op, cmp->clients, 0, pods, &cmp->other[r]);
                } else {
                        run_phase(&other, cmp->op, cmp->clients, 0, pods, &cmp->other[r]);
                        run_phase(cfg, cmp->op, cmp->clients, 0, pods, &cmp->own[r]);
                }
        }
}

static const char *base_name(const char *path)
{
        const char *slash = strrchr(path, '/');

        return slash ? slash + 1 : path;
}

static void comparison_report(struct strbuf *sb, const struct config *cfg,
                              const struct comparison *cmps, size_t n)
{
        if (!n)
                return;
        strbuf_addf(sb,
                    "\nThe same GET and PATCH phases in %zu rounds, alternating between the "
                    "identity above (`%s`) and another (`%s`) on the same pods; medians over the "
                    "rounds, and the other's median rate as a share of the first's:\n\n"
                    "| operation | clients | req/s (rounds) first | req/s (rounds) other | median "
                    "req/s first | median req/s other | other / first | p50 ms first | p50 ms "
                    "other | p99 ms first | p99 ms other | errors |\n"
                    "|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
                    cfg->compare_rounds, base_name(cfg->token_file),
                    base_name(cfg->compare_token_file));
        for (size_t i = 0; i < n; i++) {
                const struct comparison *c = &cmps[i];
                double own = median_of(c->own, cfg->compare_rounds, rate);
                double other = median_of(c->other, cfg->compare_rounds, rate);
                size_t errors = 0;

                strbuf_addf(sb, "| %s | %zu | ", op_names[c->op], c->clients);
                for (size_t r = 0; r < cfg->compare_rounds; r++)
                        strbuf_addf(sb, "%s%.0f", r ? ", " : "", rate(&c->own[r]));
                strbuf_addstr(sb, " | ");
                for (size_t r = 0; r < cfg->compare_rounds; r++) {
                        strbuf_addf(sb, "%s%.0f", r ? ", " : "", rate(&c->other[r]));
                        errors += c->own[r].errors + c->other[r].errors;
                }
                strbuf_addf(sb, " | %.0f | %.0f | %.3f | %.3f | %.3f | %.3f | %.3f | %zu |\n", own,
                            other, own > 0 ? other / own : 0,
                            median_of(c->own, cfg->compare_rounds, p50_of),
                            median_of(c->other, cfg->compare_rounds, p50_of),
                            median_of(c->own, cfg->compare_rounds, p99_of),
                            median_of(c->other, cfg->compare_rounds, p99_of), errors);
        }
}

int main(int argc, char **argv)
{
        struct config cfg;
        struct result results[6 + 2 * ARRAY_SIZE(cfg.clients) + ARRAY_SIZE(cfg.rates)], fs_before,
                fs_after;
        size_t open_clients = 0;
        uint32_t *fsync_lat;
        double load_start, load_end;
        size_t n_results = 0, wrong_pods, patches_ok = 0;
        struct pod_state *pods;
        long rss_start, rss_created, rss_end;
        uint64_t rv_before, rv_after;
        struct strbuf sb;
        struct utsname un;
        struct statfs sfs;
        char date[64];
        time_t now = time(NULL);
        struct result *fs;
        struct wire_result wire[2 * WIRE_OP_MAX];
        size_t n_wire = 0;
        struct comparison cmps[2 * ARRAY_SIZE(cfg.clients)];
        size_t n_cmps = 0;
        cleanup_free char *fs_desc = NULL;
        const char *fsn;

        parse_args(argc, argv, &cfg);
        pods = xcalloc(cfg.pods, sizeof(*pods));
        rss_start = cfg.server_pid ? rss_kib(cfg.server_pid) : -1;

        load_start = loadavg1();
        fsync_lat = xcalloc(2 * cfg.fsyncs, sizeof(*fsync_lat));
        (void) fprintf(stderr, "api-bench: fsync floor\n");
        fsync_floor(&cfg, "(before)", &fs_before, fsync_lat);

        if (cfg.create_clients > 1) {
                /* half the pods by one client, the other half by create_clients at once */
                (void) fprintf(stderr, "api-bench: creating %zu pods, 1 then %zu clients\n",
                               cfg.pods, cfg.create_clients);
                create_pods(&cfg, 0, cfg.pods / 2, 1, &results[n_results++]);
                create_pods(&cfg, cfg.pods / 2, cfg.pods - cfg.pods / 2, cfg.create_clients,
                            &results[n_results++]);
        } else {
                (void) fprintf(stderr, "api-bench: creating %zu pods\n", cfg.pods);
                create_pods(&cfg, 0, cfg.pods, 1, &results[n_results++]);
        }
        rss_created = cfg.server_pid ? rss_kib(cfg.server_pid) : -1;

        for (size_t i = 0; i < cfg.n_clients; i++) {
                (void) fprintf(stderr, "api-bench: GET, %zu clients\n", cfg.clients[i]);
                run_phase(&cfg, OP_GET, cfg.clients[i], 0, pods, &results[n_results++]);
                if (cfg.clients[i] > open_clients)
                        open_clients = cfg.clients[i];
        }
        for (size_t i = 0; i < cfg.n_rates; i++) {
                const struct result *closed = find(results, n_results, OP_GET, open_clients);
                double r = cfg.rates[i];
                struct result *res = &results[n_results++];

                if (cfg.rate_pct[i])
                        r = rate(closed) * cfg.rates[i] / 100;
                if (r < 1)
                        die("--rate %g%%: the closed loop's GET rate (%.0f/s) leaves nothing",
                            cfg.rates[i], rate(closed));
                (void) fprintf(stderr, "api-bench: GET, %zu clients, open loop at %.0f/s\n",
                               open_clients, r);
                run_phase(&cfg, OP_GET, open_clients, r, pods, res);
                res->offered_pct = cfg.rate_pct[i] ? cfg.rates[i] : 0;
        }
        {
                cleanup_api_client struct api_client *c =
                        bench_client_new(cfg.server, cfg.ca_file, cfg.token, 0);
                rv_before = list_resource_version(&cfg, c);
        }
        for (size_t i = 0; i < cfg.n_clients; i++) {
                (void) fprintf(stderr, "api-bench: PATCH resize, %zu clients\n", cfg.clients[i]);
                run_phase(&cfg, OP_PATCH, cfg.clients[i], 0, pods, &results[n_results++]);
        }
        {
                cleanup_api_client struct api_client *c =
                        bench_client_new(cfg.server, cfg.ca_file, cfg.token, 0);
                rv_after = list_resource_version(&cfg, c);
                wrong_pods = check_pods(&cfg, c, pods);
        }
        for (size_t i = 0; i < cfg.pods; i++)
                patches_ok += pods[i].patches;
        rss_end = cfg.server_pid ? rss_kib(cfg.server_pid) : -1;
        for (size_t i = 0; cfg.compare_token && i < cfg.n_clients; i++)
                for (enum op op = OP_GET; op <= OP_PATCH; op++) {
                        cmps[n_cmps] = (struct comparison){ .clients = cfg.clients[i], .op = op };
                        run_comparison(&cfg, pods, &cmps[n_cmps++]);
                }
        for (enum wire_op op = 0; op < WIRE_OP_MAX; op++)
                for (size_t m = 0; m < 2; m++) {
                        const char *media =
                                m ? "application/vnd.kubernetes.protobuf" : "application/json";
                        (void) fprintf(stderr, "api-bench: %s, %s\n", wire_op_names[op], media);
                        wire_phase(&cfg, media, op, pods, &wire[n_wire++]);
                }
        (void) fprintf(stderr, "api-bench: %zu new TLS clients at once\n", cfg.handshakes);
        handshake_phase(&cfg, &results[n_results++]);

        /* The floor again after the load, so that the disk's drift shows; the ratios use both
         * runs pooled. */
        (void) fprintf(stderr, "api-bench: fsync floor\n");
        fsync_floor(&cfg, "(after)", &fs_after, fsync_lat + fs_before.done);
        results[n_results++] = fs_before;
        results[n_results++] = fs_after;
        fs = &results[n_results++];
        *fs = (struct result){ .op = OP_FSYNC,
                               .label = "(both, pooled)",
                               .clients = 1,
                               .threads = -1,
                               .rss_kib = -1 };
        summarize(fs, fsync_lat, fs_before.done + fs_after.done,
                  (int64_t) ((fs_before.seconds + fs_after.seconds) * 1e9));
        free(fsync_lat);
        load_end = loadavg1();

        strbuf_init(&sb);
        (void) strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S UTC", gmtime(&now));
        (void) uname(&un);
        if (statfs(cfg.data_dir, &sfs) < 0)
                die("statfs \"%s\": %s", cfg.data_dir, strerror(errno));
        fsn = fs_name((long) sfs.f_type);
        fs_desc = fsn ? xstrdup(fsn) : xasprintf("f_type 0x%lx", (unsigned long) sfs.f_type);
        strbuf_addf(&sb, "# flexlet API benchmark, %s\n\n", date);
        strbuf_addf(
                &sb,
                "Machine: %ld CPUs, Linux %s %s; data directory on %s; 1-minute load average "
                "%.2f at the start, %.2f at the end.%s%s%s\n"
                "Server: `flexlet serve` (SQLite store, WAL, synchronous=FULL) over HTTPS "
                "on loopback; clients: api_client (libcurl, one keep-alive connection per "
                "client thread, warmed up before timing; bodies are not decoded while "
                "timing, only the status is checked).\n"
                "Each phase: at most %zu requests or %.0f s, spread over %zu Burstable pods; "
                "a PATCH moves one pod's cpu request between " CPU_LOW " and " CPU_HIGH
                " (each client owns its pods, so every PATCH changes the value). Latency is "
                "per request, seen by the client; the rate counts successful requests over "
                "the phase's wall time; server threads and RSS are read once every client of "
                "the phase has its connection open. The fsync floor is 4 KiB overwrites, each followed "
                "by fdatasync, cycling through a 4 MiB file in the data directory (the I/O "
                "of a reused SQLite WAL), run before and after the API phases.\n\n",
                sysconf(_SC_NPROCESSORS_ONLN), un.release, un.machine, fs_desc, load_start,
                load_end, cfg.commit ? " Commit: " : "", cfg.commit ?: "", cfg.commit ? "." : "",
                cfg.requests, cfg.seconds, cfg.pods);
        strbuf_addstr(&sb, "| operation | clients | requests | errors | req/s | p50 ms | p99 ms | "
                           "max ms | ended by | server threads | server RSS MiB |\n"
                           "|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|\n");
        for (size_t i = 0; i < n_results; i++)
                add_row(&sb, &results[i]);

        {
                const struct result *h = find(results, n_results, OP_HANDSHAKE, cfg.handshakes);

                strbuf_addf(&sb,
                            "\n%zu new clients connecting at once (TCP, TLS handshake, one GET "
                            "each): the last answered after %.1f ms, p50 %.1f ms, %zu failed.\n",
                            cfg.handshakes, h->max_ms, h->p50_ms, h->errors);
        }
        if (open_clients) {
                const struct result *g = find(results, n_results, OP_GET, open_clients);

                /* Little's law: clients = throughput x mean time in the system */
                strbuf_addf(&sb,
                            "\nClosed loop, %zu GET clients: each sends its next request when its "
                            "answer arrives, so by Little's law the mean latency is clients / "
                            "throughput = %zu / %.0f/s = %.1f ms whatever the server does with "
                            "them; a p99 (so a mean) under 50 ms would need over %.0f GET/s. The "
                            "open-loop rows offer a fixed rate instead, on a schedule shared by "
                            "the same number of keep-alive clients, and count each request's "
                            "latency from its scheduled time (a request held back by its client's "
                            "previous answer counts the wait).\n",
                            open_clients, open_clients, rate(g),
                            rate(g) > 0 ? 1000.0 * (double) open_clients / rate(g) : 0,
                            (double) open_clients / 0.050);
        }
        strbuf_addstr(&sb, "\nRatios (same run):\n\n");
        for (size_t i = 0; i < cfg.n_clients; i++) {
                const struct result *p = find(results, n_results, OP_PATCH, cfg.clients[i]);
                const struct result *g = find(results, n_results, OP_GET, cfg.clients[i]);

                strbuf_addf(&sb,
                            "- %zu client%s: PATCH rate / fsync floor rate = %.2f; "
                            "PATCH p50 / fsync p50 = %.2f; GET rate / PATCH rate = %.1f\n",
                            cfg.clients[i], cfg.clients[i] == 1 ? "" : "s",
                            rate(fs) > 0 ? rate(p) / rate(fs) : 0,
                            fs->p50_ms > 0 ? p->p50_ms / fs->p50_ms : 0,
                            rate(p) > 0 ? rate(g) / rate(p) : 0);
        }
        strbuf_addf(&sb,
                    "\nWrites confirmed: resourceVersion advanced by %" PRIu64
                    " over %zu successful PATCHes (the server's own writes, its components' "
                    "Leases and events, advance it too); %zu of %zu pods hold a cpu request "
                    "other than the last one sent.\n",
                    rv_after - rv_before, patches_ok, wrong_pods, cfg.pods);
        if (cfg.server_pid)
                strbuf_addf(&sb,
                            "\nServer RSS (VmRSS): %.1f MiB at start, %.1f MiB after creating "
                            "%zu pods, %.1f MiB after the GET and PATCH phases.\n",
                            rss_start / 1024.0, rss_created / 1024.0, cfg.pods, rss_end / 1024.0);
        wire_report(&sb, &cfg, wire, n_wire);
        comparison_report(&sb, &cfg, cmps, n_cmps);
        for (size_t i = 0; i < n_results; i++)
                if (results[i].errors)
                        strbuf_addf(&sb, "\n%s with %zu clients: %zu errors, first %ld.\n",
                                    op_names[results[i].op], results[i].clients, results[i].errors,
                                    results[i].first_bad_status);

        (void) fputs(sb.buf, stdout);
        if (cfg.out) {
                FILE *f = fopen(cfg.out, "we");
                if (!f || fputs(sb.buf, f) < 0 || fclose(f) != 0)
                        die("writing \"%s\": %s", cfg.out, strerror(errno));
        }
        strbuf_release(&sb);
        for (size_t i = 0; i < n_cmps; i++) {
                free(cmps[i].own);
                free(cmps[i].other);
        }
        free(pods);
        free(cfg.token);
        free(cfg.compare_token);
        free(cfg.scheduler_field);
        return (rv_after - rv_before >= patches_ok && wrong_pods == 0) ? 0 : 1;
}
