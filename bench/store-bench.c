/* store-bench.c: the store interface (src/store/store.h) on SQLite and on etcd in one run:
 * creates, gets, updates and whole lists of N pods from T threads through store_create /
 * store_get / store_update_from (over the object as created, as the API updates what it read) /
 * store_list, each backend's rate and latency percentiles, and, as
 * the floor under the etcd numbers, the same puts and gets sent straight to etcd's JSON gateway
 * by a minimal client (one keep-alive libcurl handle per thread, no store around it).
 * --raw-only runs that minimal client alone (run-scaleout-bench.sh's floor under `flexlet
 * apiserver --store etcd`); with --raw-values-from PREFIX its puts carry the values stored under
 * PREFIX on that etcd (the API's own pods, as defaulted and stored), one after another, instead
 * of its small pods: the same bytes as the writes it is the floor of. run-store-bench.sh starts
 * the etcd and writes the report. */
#include <curl/curl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/base64.h"
#include "base/json.h"
#include "base/strbuf.h"
#include "bench-util.h"
#include "store/store.h"

struct config {
        const char *sqlite_path;
        const char *etcd;
        size_t n;
        size_t threads;
        size_t lists;
        bool raw_only;
        const char *raw_values_from; /* NULL: the raw puts carry bench_pod */
        char **raw_values;           /* raw_values_n values as the gateway gives them (base64) */
        size_t raw_values_n;
        json_t **created;  /* n: each object as its create stored it, what update replaces */
        uint64_t *raw_rev; /* n: each raw key's revision after its last put or txn */
};

enum op { OP_CREATE, OP_GET, OP_UPDATE, OP_RAW_PUT, OP_RAW_TXN, OP_RAW_GET, OP_MAX };
static const char *const op_names[OP_MAX] = { "create",   "get",      "update",
                                              "etcd-put", "etcd-txn", "etcd-get" };

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

static size_t gather(char *d, size_t size, size_t n, void *ud)
{
        strbuf_add(ud, d, size * n);
        return size * n;
}

/* One put, compare-and-swap or range straight to etcd's gateway, as a minimal client sends it.
 * A put and a txn leave the key's new revision in cfg->raw_rev[i], which the next txn on it
 * compares (the txn flexlet's store sends for an update: put if mod_revision is unchanged, else
 * read the key). */
static void raw(struct worker *w, size_t i, enum op op)
{
        char key[64], url[256];
        cleanup_free char *k = NULL, *v = NULL, *body = NULL;
        cleanup_json json_t *ans = NULL;
        const char *path = op == OP_RAW_PUT ? "put" : op == OP_RAW_TXN ? "txn" : "range";
        struct strbuf out;
        long status = 0;

        (void) snprintf(key, sizeof(key), "/bench-raw/bench/p-%zu", i);
        k = base64_encode(key, strlen(key));
        if (op != OP_RAW_GET && w->cfg->raw_values_n) {
                v = xstrdup(w->cfg->raw_values[i % w->cfg->raw_values_n]);
        } else if (op != OP_RAW_GET) {
                cleanup_json json_t *o = bench_pod(i);
                cleanup_free char *json = json_dumps(o, JSON_COMPACT);

                v = base64_encode(json, strlen(json));
        }
        if (op == OP_RAW_PUT)
                body = xasprintf("{\"key\":\"%s\",\"value\":\"%s\"}", k, v);
        else if (op == OP_RAW_TXN)
                body = xasprintf(
                        "{\"compare\":[{\"key\":\"%s\",\"result\":\"EQUAL\","
                        "\"target\":\"MOD\",\"mod_revision\":\"%" PRIu64 "\"}],"
                        "\"success\":[{\"request_put\":{\"key\":\"%s\",\"value\":\"%s\"}}],"
                        "\"failure\":[{\"request_range\":{\"key\":\"%s\"}}]}",
                        k, w->cfg->raw_rev[i], k, v, k);
        else
                body = xasprintf("{\"key\":\"%s\"}", k);
        (void) snprintf(url, sizeof(url), "%s/v3/kv/%s", w->cfg->etcd, path);
        strbuf_init(&out);
        (void) curl_easy_setopt(w->h, CURLOPT_URL, url);
        (void) curl_easy_setopt(w->h, CURLOPT_POSTFIELDS, body);
        (void) curl_easy_setopt(w->h, CURLOPT_WRITEFUNCTION, gather);
        (void) curl_easy_setopt(w->h, CURLOPT_WRITEDATA, &out);
        if (curl_easy_perform(w->h) != CURLE_OK)
                die("etcd %s failed", path);
        (void) curl_easy_getinfo(w->h, CURLINFO_RESPONSE_CODE, &status);
        if (status != 200)
                die("etcd %s: status %ld", path, status);
        if (op != OP_RAW_GET) {
                ans = json_loadb(out.buf, out.len, 0, NULL);
                if (op == OP_RAW_TXN && !json_is_true(json_object_get(ans, "succeeded")))
                        die("etcd txn on %s: the compare failed", key);
                w->cfg->raw_rev[i] = strtoull(json_string_value(json_object_get(
                                                      json_object_get(ans, "header"), "revision"))
                                                      ?: "0",
                                              NULL, 10);
        }
        strbuf_release(&out);
}

/* Reads every value stored under prefix on cfg->etcd into cfg->raw_values (as base64, as the
 * gateway gives and takes them); prints how many and their mean size. Dies when there are none. */
static void load_raw_values(struct config *cfg)
{
        cleanup_free char *k = base64_encode(cfg->raw_values_from, strlen(cfg->raw_values_from));
        cleanup_free char *end = xstrdup(cfg->raw_values_from), *e = NULL, *body = NULL;
        cleanup_free char *url = xasprintf("%s/v3/kv/range", cfg->etcd);
        struct strbuf out;
        cleanup_json json_t *ans = NULL;
        CURL *h = curl_easy_init();
        size_t bytes = 0, i;
        json_t *kv;

        strbuf_init(&out);
        end[strlen(end) - 1]++; /* the prefix's range end: its last byte plus one */
        e = base64_encode(end, strlen(end));
        body = xasprintf("{\"key\":\"%s\",\"range_end\":\"%s\"}", k, e);
        (void) curl_easy_setopt(h, CURLOPT_URL, url);
        (void) curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
        (void) curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, gather);
        (void) curl_easy_setopt(h, CURLOPT_WRITEDATA, &out);
        if (curl_easy_perform(h) != CURLE_OK)
                die("etcd range %s failed", cfg->raw_values_from);
        curl_easy_cleanup(h);
        ans = json_loadb(out.buf, out.len, 0, NULL);
        strbuf_release(&out);
        cfg->raw_values_n = json_array_size(json_object_get(ans, "kvs"));
        if (cfg->raw_values_n == 0)
                die("--raw-values-from %s: no values stored under it", cfg->raw_values_from);
        cfg->raw_values = xcalloc(cfg->raw_values_n, sizeof(*cfg->raw_values));
        json_array_foreach(json_object_get(ans, "kvs"), i, kv) {
                const char *v = json_string_value(json_object_get(kv, "value")) ?: "";

                cfg->raw_values[i] = xstrdup(v);
                bytes += strlen(v) / 4 * 3;
        }
        (void) printf("raw.values %zu\nraw.value_bytes %zu\n", cfg->raw_values_n,
                      bytes / cfg->raw_values_n);
}

static void *worker_main(void *arg)
{
        struct worker *w = arg;
        struct curl_slist *hd = NULL;

        if (w->op >= OP_RAW_PUT) {
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
                case OP_RAW_TXN:
                case OP_RAW_GET:
                        raw(w, i, w->op);
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

        /* where each phase starts and ends, for a caller that times the processes under it */
        (void) fprintf(stderr, "store-bench: %s.%s\n", backend, op_names[op]);
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
        (void) fprintf(stderr, "store-bench: %s.%s done\n", backend, op_names[op]);
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
                { "raw-values-from", required_argument, NULL, 'v' },
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
                case 'v':
                        cfg.raw_values_from = optarg;
                        break;
                default:
                        die("usage: store-bench {--sqlite PATH | --raw-only} --etcd URL [--n N] [--threads T] "
                            "[--lists L] [--raw-values-from PREFIX]");
                }
        }
        if ((!cfg.sqlite_path && !cfg.raw_only) || !cfg.etcd || cfg.threads < 1 ||
            cfg.threads > 256 || cfg.n < cfg.threads || cfg.lists < 1)
                die("usage: store-bench {--sqlite PATH | --raw-only} --etcd URL [--n N] [--threads T] "
                    "[--lists L] [--raw-values-from PREFIX]");
        if (cfg.raw_values_from && !*cfg.raw_values_from)
                die("--raw-values-from: an empty prefix");
        cfg.n -= cfg.n % cfg.threads;
        (void) curl_global_init(CURL_GLOBAL_DEFAULT);
        (void) printf("objects %zu\nthreads %zu\n", cfg.n, cfg.threads);
        cfg.created = xcalloc(cfg.n, sizeof(*cfg.created));
        cfg.raw_rev = xcalloc(cfg.n, sizeof(*cfg.raw_rev));

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
        if (cfg.raw_values_from)
                load_raw_values(&cfg);
        run_phase(&cfg, "raw", NULL, OP_RAW_PUT);
        run_phase(&cfg, "raw", NULL, OP_RAW_TXN);
        run_phase(&cfg, "raw", NULL, OP_RAW_GET);
        /* one client, one call at a time: the per-call cost of the transport */
        {
                struct config one = cfg;

                one.threads = 1;
                one.n = cfg.n < 200 ? cfg.n : 200;
                run_phase(&one, "raw1", NULL, OP_RAW_PUT);
                run_phase(&one, "raw1", NULL, OP_RAW_TXN);
                run_phase(&one, "raw1", NULL, OP_RAW_GET);
        }
        return 0;
}
