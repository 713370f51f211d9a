/* store-bench.c: the store interface (src/store/store.h) on SQLite and on etcd in one run:
 * creates, gets, updates and whole lists of N pods from T threads through store_create /
 * store_get / store_update_from (over the object as created, as the API updates what it read) /
 * store_list, each backend's rate and latency percentiles, and, as
 * the floor under the etcd numbers, the same puts and gets sent straight to etcd's JSON gateway
 * by a minimal client (one keep-alive libcurl handle per thread, no store around it).
 * --raw-only runs that minimal client alone (run-scaleout-bench.sh's floor under `flexlet
 * apiserver --store etcd`). run-store-bench.sh starts the etcd and writes the report. */
#include <curl/curl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/base64.h"
#include "base/json.h"
#include "bench-util.h"
#include "store/store.h"

struct config {
        const char *sqlite_path;
        const char *etcd;
        size_t n;
        size_t threads;
        size_t lists;
        bool raw_only;
        json_t **created; /* n: each object as its create stored it, what update replaces */
};

enum op { OP_CREATE, OP_GET, OP_UPDATE, OP_RAW_PUT, OP_RAW_GET, OP_MAX };
static const char *const op_names[OP_MAX] = { "create", "get", "update", "etcd-put", "etcd-get" };

struct worker {
        const struct config *cfg;
        struct store *s;
        enum op op;
        size_t id;
        double *lat; /* ms, one per op of this worker */
        size_t n;
        CURL *h;
};

static json_t *bench_pod(size_t i)
{
        char name[32];

        (void) snprintf(name, sizeof(name), "p-%zu", i);
        return json_pack("{s:s, s:s, s:{s:s, s:s, s:{s:s}}, s:{s:[{s:s, s:s, s:{s:{s:s, s:s}}}]}}",
                         "apiVersion", "v1", "kind", "Pod", "metadata", "name", name, "namespace",
                         "bench", "labels", "app", "bench", "spec", "containers", "name", "c",
                         "image", "busybox", "resources", "requests", "cpu", "100m", "memory",
                         "64Mi");
}

static size_t discard(char *d, size_t s, size_t n, void *u)
{
        (void) d, (void) u;
        return s * n;
}

/* One put or range straight to etcd's gateway, as a minimal client sends it. */
static void raw(struct worker *w, size_t i, bool put)
{
        char key[64], url[256];
        cleanup_free char *k = NULL, *v = NULL, *body = NULL;
        cleanup_json json_t *o = bench_pod(i);
        cleanup_free char *json = json_dumps(o, JSON_COMPACT);
        long status = 0;

        (void) snprintf(key, sizeof(key), "/bench-raw/bench/p-%zu", i);
        k = base64_encode(key, strlen(key));
        if (put) {
                v = base64_encode(json, strlen(json));
                body = xasprintf("{\"key\":\"%s\",\"value\":\"%s\"}", k, v);
        } else {
                body = xasprintf("{\"key\":\"%s\"}", k);
        }
        (void) snprintf(url, sizeof(url), "%s/v3/kv/%s", w->cfg->etcd, put ? "put" : "range");
        (void) curl_easy_setopt(w->h, CURLOPT_URL, url);
        (void) curl_easy_setopt(w->h, CURLOPT_POSTFIELDS, body);
        (void) curl_easy_setopt(w->h, CURLOPT_WRITEFUNCTION, discard);
        if (curl_easy_perform(w->h) != CURLE_OK)
                die("etcd %s failed", put ? "put" : "range");
        (void) curl_easy_getinfo(w->h, CURLINFO_RESPONSE_CODE, &status);
        if (status != 200)
                die("etcd %s: status %ld", put ? "put" : "range", status);
}

static void *worker_main(void *arg)
{
        struct worker *w = arg;
        struct curl_slist *hd = NULL;

        if (w->op == OP_RAW_PUT || w->op == OP_RAW_GET) {
                w->h = curl_easy_init();
                hd = curl_slist_append(NULL, "Content-Type: application/json");
                (void) curl_easy_setopt(w->h, CURLOPT_HTTPHEADER, hd);
        }
        for (size_t j = 0; j < w->n; j++) {
                size_t i = j * w->cfg->threads + w->id;
                struct error *err = NULL;
                json_t *o = NULL;
                char name[32];
                int64_t t0 = now_ns();
                int r = 0;

                (void) snprintf(name, sizeof(name), "p-%zu", i);
                switch (w->op) {
                case OP_CREATE:
                        o = bench_pod(i);
                        r = store_create(w->s, "pods", "bench", name, o, &err);
                        if (r >= 0) {
                                json_decref(w->cfg->created[i]);
                                w->cfg->created[i] = json_incref(o);
                        }
                        break;
                case OP_GET:
                        r = store_get(w->s, "pods", "bench", name, &o, &err);
                        break;
                case OP_UPDATE:
                        o = bench_pod(i);
                        json_object_set_new(o, "status", json_pack("{s:s}", "phase", "Running"));
                        /* as the API's update: over the object it read (store_update_from) */
                        r = store_update_from(w->s, "pods", "bench", name, o, w->cfg->created[i],
                                              NULL, &err);
                        break;
                case OP_RAW_PUT:
                case OP_RAW_GET:
                        raw(w, i, w->op == OP_RAW_PUT);
                        break;
                default:
                        break;
                }
                w->lat[j] = ms_between(t0, now_ns());
                if (r < 0)
                        die("%s %s: %s", op_names[w->op], name, err ? err->message : "failed");
                json_decref(o);
                error_free(err);
        }
        if (w->h)
                curl_easy_cleanup(w->h);
        curl_slist_free_all(hd);
        return NULL;
}

/* Runs op over the n objects from cfg->threads threads; prints its rate and latencies. */
static void run_phase(const struct config *cfg, const char *backend, struct store *s, enum op op)
{
        struct worker *ws = xcalloc(cfg->threads, sizeof(*ws));
        pthread_t *th = xcalloc(cfg->threads, sizeof(*th));
        double *all = xcalloc(cfg->n, sizeof(*all));
        size_t per = cfg->n / cfg->threads, k = 0;
        char key[64];
        int64_t t0 = now_ns();
        double secs;

        for (size_t t = 0; t < cfg->threads; t++) {
                ws[t] = (struct worker){ .cfg = cfg, .s = s, .op = op, .id = t, .n = per };
                ws[t].lat = xcalloc(per, sizeof(double));
                if (pthread_create(&th[t], NULL, worker_main, &ws[t]) != 0)
                        die("pthread_create failed");
        }
        for (size_t t = 0; t < cfg->threads; t++) {
                (void) pthread_join(th[t], NULL);
                memcpy(all + k, ws[t].lat, per * sizeof(double));
                k += per;
                free(ws[t].lat);
        }
        secs = ms_between(t0, now_ns()) / 1000.0;
        (void) printf("%s.%s.rate_per_s %.0f\n", backend, op_names[op], (double) k / secs);
        (void) snprintf(key, sizeof(key), "%s.%s.ms", backend, op_names[op]);
        bench_print_stats(key, all, k, 0);
        free(all);
        free(ws);
        free(th);
}

static void run_lists(const struct config *cfg, const char *backend, struct store *s)
{
        double *lat = xcalloc(cfg->lists, sizeof(*lat));
        char key[64];
        int64_t t0 = now_ns();
        size_t items = 0;

        for (size_t i = 0; i < cfg->lists; i++) {
                json_t *got = NULL;
                int64_t t1 = now_ns();

                if (store_list(s, "pods", "bench", &got, NULL, NULL) < 0)
                        die("%s: list failed", backend);
                lat[i] = ms_between(t1, now_ns());
                items += json_array_size(got);
                json_decref(got);
        }
        (void) printf("%s.list.objects_per_s %.0f\n", backend,
                      (double) items / (ms_between(t0, now_ns()) / 1000.0));
        (void) snprintf(key, sizeof(key), "%s.list.ms", backend);
        bench_print_stats(key, lat, cfg->lists, 0);
        free(lat);
}

static void run_backend(const struct config *cfg, const char *backend, struct store *s)
{
        run_phase(cfg, backend, s, OP_CREATE);
        run_phase(cfg, backend, s, OP_GET);
        run_phase(cfg, backend, s, OP_UPDATE);
        run_lists(cfg, backend, s);
}

int main(int argc, char **argv)
{
        static const struct option options[] = {
                { "sqlite", required_argument, NULL, 's' },
                { "etcd", required_argument, NULL, 'e' },
                { "n", required_argument, NULL, 'n' },
                { "threads", required_argument, NULL, 't' },
                { "lists", required_argument, NULL, 'l' },
                { "raw-only", no_argument, NULL, 'r' },
                { NULL, 0, NULL, 0 },
        };
        struct config cfg = { .n = 2000, .threads = 8, .lists = 20 };
        struct store *s = NULL;
        struct error *err = NULL;
        int c;

        while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
                switch (c) {
                case 's':
                        cfg.sqlite_path = optarg;
                        break;
                case 'e':
                        cfg.etcd = optarg;
                        break;
                case 'n':
                        cfg.n = strtoul(optarg, NULL, 10);
                        break;
                case 't':
                        cfg.threads = strtoul(optarg, NULL, 10);
                        break;
                case 'l':
                        cfg.lists = strtoul(optarg, NULL, 10);
                        break;
                case 'r':
                        cfg.raw_only = true;
                        break;
                default:
                        die("usage: store-bench {--sqlite PATH | --raw-only} --etcd URL [--n N] [--threads T] "
                            "[--lists L]");
                }
        }
        if ((!cfg.sqlite_path && !cfg.raw_only) || !cfg.etcd || cfg.threads < 1 ||
            cfg.threads > 256 || cfg.n < cfg.threads || cfg.lists < 1)
                die("usage: store-bench {--sqlite PATH | --raw-only} --etcd URL [--n N] [--threads T] "
                    "[--lists L]");
        cfg.n -= cfg.n % cfg.threads;
        (void) curl_global_init(CURL_GLOBAL_DEFAULT);
        (void) printf("objects %zu\nthreads %zu\n", cfg.n, cfg.threads);
        cfg.created = xcalloc(cfg.n, sizeof(*cfg.created));

        if (!cfg.raw_only) {
                const struct store_etcd_options eo = { .endpoints = cfg.etcd };

                if (store_open_sqlite(cfg.sqlite_path, &s, &err) < 0)
                        die("sqlite: %s", err->message);
                run_backend(&cfg, "sqlite", s);
                s = store_close(s);
                if (store_open_etcd(&eo, NULL, &s, &err) < 0)
                        die("etcd: %s", err->message);
                run_backend(&cfg, "etcd", s);
                s = store_close(s);
        }
        /* etcd alone: the same writes and reads by a minimal client */
        run_phase(&cfg, "raw", NULL, OP_RAW_PUT);
        run_phase(&cfg, "raw", NULL, OP_RAW_GET);
        /* one client, one call at a time: the per-call cost of the transport */
        {
                struct config one = cfg;

                one.threads = 1;
                one.n = cfg.n < 200 ? cfg.n : 200;
                run_phase(&one, "raw1", NULL, OP_RAW_PUT);
                run_phase(&one, "raw1", NULL, OP_RAW_GET);
        }
        return 0;
}
