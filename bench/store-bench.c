/* store-bench.c: the store interface (src/store/store.h) on SQLite and on etcd in one run:
 * creates, gets, updates and whole lists of N pods from T threads through store_create /
 * store_get / store_update_from (over the object as created, as the API updates what it read) /
 * store_list, each backend's rate and latency percentiles, and, as the floor under the etcd
 * numbers, the same puts and gets sent straight to etcd's gRPC API by a minimal client (one
 * kept HTTP/2 connection per thread over the store's own transport, http/h2-client.h, the
 * request messages of src/store/etcd-rpc.h, no store around it).
 * --raw-only runs that minimal client alone (run-scaleout-bench.sh's floor under `flexlet
 * apiserver --store etcd`); with --raw-values-from PREFIX its puts carry the values stored under
 * PREFIX on that etcd (the API's own pods, as defaulted and stored), one after another, instead
 * of its small pods: the same bytes as the writes it is the floor of. run-store-bench.sh starts
 * the etcd and writes the report. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/json.h"
#include "base/protowire.h"
#include "base/strbuf.h"
#include "bench-util.h"
#include "http/grpc.h"
#include "http/h2-client.h"
#include "store/etcd-rpc.h"
#include "store/store.h"

struct config {
        const char *sqlite_path;
        const char *etcd;
        size_t n;
        size_t threads;
        size_t lists;
        bool raw_only;
        const char *raw_values_from; /* NULL: the raw puts carry bench_pod */
        struct strbuf *raw_values;   /* raw_values_n values, as stored */
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
        struct h2_conn *conn; /* the raw phases' connection to cfg->etcd */
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

/* etcd's KV/Put, which the store never sends (its writes are txns): a PutRequest (key 1,
 * value 2), answered by a PutResponse whose one field asked for is its header, as a
 * CompactionResponse's. */
#define PUT_PATH "/etcdserverpb.KV/Put"

/* One gRPC call to path on conn (opened to cfg->etcd on the first call): its answer message
 * into *out (a frame's contents, without the header). */
static void grpc_call(const struct config *cfg, struct h2_conn **conn, const char *path,
                      const struct strbuf *req, struct strbuf *out)
{
        struct error *err = NULL;
        struct h2_answer ans;
        const uint8_t *msg;
        size_t len, used;

        if (!*conn && h2_connect(cfg->etcd, NULL, 5000, conn, &err) < 0)
                die("etcd %s: %s", cfg->etcd, err->message);
        h2_answer_init(&ans);
        if (h2_call(*conn, path, req->buf, req->len, (size_t) 1 << 30, 15000, &ans, &err) < 0)
                die("etcd %s failed: %s", path, err->message);
        if (ans.status.code != 0 || grpc_frame_read((const uint8_t *) ans.body.buf, ans.body.len,
                                                    ans.body.len, &msg, &len, &used) != 1)
                die("etcd %s: no answer (gRPC status %d: %s)", path, ans.status.code,
                    ans.status.message);
        strbuf_reset(out);
        strbuf_add(out, (const char *) msg, len);
        h2_answer_release(&ans);
}

/* One put, compare-and-swap or range straight to etcd's gRPC API, as a minimal client sends it.
 * A put and a txn leave the key's new revision in cfg->raw_rev[i], which the next txn on it
 * compares (the txn flexlet's store sends for an update: put if mod_revision is unchanged, else
 * read the key). */
static void raw(struct worker *w, size_t i, enum op op)
{
        static const enum etcd_method method[] = {
                [OP_RAW_PUT] = ETCD_COMPACT, [OP_RAW_TXN] = ETCD_TXN, [OP_RAW_GET] = ETCD_RANGE
        };
        char key[64];
        struct strbuf req, out, pod;
        struct etcd_answer ans;
        const struct strbuf *v = &pod;

        (void) snprintf(key, sizeof(key), "/bench-raw/bench/p-%zu", i);
        strbuf_init(&req);
        strbuf_init(&out);
        strbuf_init(&pod);
        if (op != OP_RAW_GET && w->cfg->raw_values_n) {
                v = &w->cfg->raw_values[i % w->cfg->raw_values_n];
        } else if (op != OP_RAW_GET) {
                cleanup_json json_t *o = bench_pod(i);
                cleanup_free char *json = json_dumps(o, JSON_COMPACT);

                strbuf_add(&pod, json, strlen(json));
        }
        if (op == OP_RAW_PUT) {
                /* KV/Put's PutRequest: key 1, value 2 (rpc.proto); sent to Put, not Txn */
                size_t at = grpc_frame_begin(&req);
                struct pbw pw;

                pbw_init(&pw, &req);
                pbw_bytes(&pw, 1, key, strlen(key));
                pbw_bytes(&pw, 2, v->buf, v->len);
                pbw_finish(&pw);
                grpc_frame_end(&req, at);
        } else if (op == OP_RAW_TXN) {
                etcd_rpc_txn(&req, &(struct etcd_txn){ .key = key,
                                                       .target = ETCD_COMPARE_MOD,
                                                       .equals = (int64_t) w->cfg->raw_rev[i],
                                                       .value = v->buf,
                                                       .value_len = v->len });
        } else {
                etcd_rpc_range(&req, &(struct etcd_range){ .key = key, .key_len = strlen(key) });
        }
        grpc_call(w->cfg, &w->conn, op == OP_RAW_PUT ? PUT_PATH : etcd_rpc_path(method[op]), &req,
                  &out);
        if (etcd_rpc_answer(method[op], (const uint8_t *) out.buf, out.len, &ans) < 0)
                die("etcd %s: a malformed answer", op_names[op]);
        if (op == OP_RAW_TXN && !ans.succeeded)
                die("etcd txn on %s: the compare failed", key);
        if (op != OP_RAW_GET)
                w->cfg->raw_rev[i] = (uint64_t) ans.revision;
        etcd_answer_release(&ans);
        strbuf_release(&req);
        strbuf_release(&out);
        strbuf_release(&pod);
}

/* Reads every value stored under prefix on cfg->etcd into cfg->raw_values; prints how many and
 * their mean size. Dies when there are none. */
static void load_raw_values(struct config *cfg)
{
        cleanup_free char *end = xstrdup(cfg->raw_values_from);
        struct strbuf req, out;
        struct etcd_answer ans;
        struct h2_conn *conn = NULL;
        size_t bytes = 0;

        strbuf_init(&req);
        strbuf_init(&out);
        end[strlen(end) - 1]++; /* the prefix's range end: its last byte plus one */
        etcd_rpc_range(&req, &(struct etcd_range){ .key = cfg->raw_values_from,
                                                   .key_len = strlen(cfg->raw_values_from),
                                                   .range_end = end,
                                                   .range_end_len = strlen(end) });
        grpc_call(cfg, &conn, etcd_rpc_path(ETCD_RANGE), &req, &out);
        h2_close(conn);
        if (etcd_rpc_answer(ETCD_RANGE, (const uint8_t *) out.buf, out.len, &ans) < 0)
                die("etcd range %s: a malformed answer", cfg->raw_values_from);
        cfg->raw_values_n = ans.n_kvs;
        if (cfg->raw_values_n == 0)
                die("--raw-values-from %s: no values stored under it", cfg->raw_values_from);
        cfg->raw_values = xcalloc(cfg->raw_values_n, sizeof(*cfg->raw_values));
        for (size_t i = 0; i < ans.n_kvs; i++) {
                strbuf_init(&cfg->raw_values[i]);
                strbuf_add(&cfg->raw_values[i], ans.kvs[i].value, ans.kvs[i].value_len);
                bytes += ans.kvs[i].value_len;
        }
        etcd_answer_release(&ans);
        strbuf_release(&req);
        strbuf_release(&out);
        (void) printf("raw.values %zu\nraw.value_bytes %zu\n", cfg->raw_values_n,
                      bytes / cfg->raw_values_n);
}

static void *worker_main(void *arg)
{
        struct worker *w = arg;

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
        h2_close(w->conn);
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
        /* one client, one call at a time: the per-call cost of the transport, over as many
         * calls as the threaded phases (a short phase of one client measured the disk's moods:
         * 200 calls gave 1,420 to 1,881 transactions/s in one day's runs) */
        {
                struct config one = cfg;

                one.threads = 1;
                run_phase(&one, "raw1", NULL, OP_RAW_PUT);
                run_phase(&one, "raw1", NULL, OP_RAW_TXN);
                run_phase(&one, "raw1", NULL, OP_RAW_GET);
        }
        return 0;
}
