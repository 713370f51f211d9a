/* deployment-bench.c: the measuring half of bench/run-deployment-bench.sh (the script starts
 * `flexlet serve` and writes the report). Two subcommands over the same pod shape (busybox
 * `sleep 3600`, requests cpu 10m memory 16Mi, label app=<prefix>), each printing "key value"
 * lines, both timed from the first request to watch events of the namespace's pods:
 *   pods        N bare pods POSTed at once, to all N Ready; then all DELETEd, to all N gone
 *   deployment  a Deployment of 0 replicas scaled to N through its scale subresource, to N
 *               Ready pods; then scaled to 0, to all its pods gone (the Deployment is deleted
 *               afterwards, outside the timing)
 * Dies (exit 1) when anything fails or the timeout passes: a run that cannot measure reports
 * nothing. A program, not a library: it prints and exits. */
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/json.h"
#include "client/client.h"
#include "bench-util.h"

struct opts {
        const char *server, *ca, *ns, *prefix;
        char *token;
        size_t n;
        double timeout_s;
};

/* The pods of the label app=<prefix> the watch has seen: name -> first time Ready (ns, 0: not
 * yet); counts of those present and of those Ready once. */
struct watcher {
        const struct opts *o;
        pthread_mutex_t lock;
        pthread_cond_t cond;
        char *rv;
        json_t *present;  /* name -> true */
        json_t *ready_at; /* name -> ns */
        pthread_t thread;
};

static bool pod_ready(const json_t *pod)
{
        size_t i;
        json_t *c;

        json_array_foreach(json_path(pod, "status.conditions"), i, c) {
                if (streq(json_string_value(json_object_get(c, "type")) ?: "", "Ready") &&
                    streq(json_string_value(json_object_get(c, "status")) ?: "", "True"))
                        return true;
        }
        return false;
}

static int on_event(void *ud, const char *type, json_t *pod)
{
        struct watcher *w = ud;
        int64_t t = now_ns();
        const char *name = json_path_string(pod, "metadata.name");
        const char *rv = json_path_string(pod, "metadata.resourceVersion");

        pthread_mutex_lock(&w->lock);
        if (rv)
                bench_set_str(&w->rv, rv);
        if (!streq(json_path_string(pod, "metadata.labels.app") ?: "", w->o->prefix))
                name = NULL;
        if (name && streq(type, "DELETED")) {
                json_object_del(w->present, name);
        } else if (name && (streq(type, "ADDED") || streq(type, "MODIFIED"))) {
                json_object_set_new(w->present, name, json_true());
                if (pod_ready(pod) && !json_object_get(w->ready_at, name))
                        json_object_set_new(w->ready_at, name, json_integer(t));
        }
        pthread_cond_broadcast(&w->cond);
        pthread_mutex_unlock(&w->lock);
        return 0;
}

static void *watch_main(void *arg)
{
        struct watcher *w = arg;
        struct api_client *c =
                bench_client_new(w->o->server, w->o->ca, w->o->token, BENCH_IDLE_TIMEOUT_MS);
        cleanup_free char *path = xasprintf("/api/v1/namespaces/%s/pods", w->o->ns);

        bench_watch_forever(c, path, &w->lock, &w->rv, on_event, w);
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

/* Starts the watch from the pod list's resource version; dies when pods of the label exist. */
static void watcher_start(struct watcher *w, const struct opts *o, struct api_client *c)
{
        cleanup_free char *path = xasprintf("/api/v1/namespaces/%s/pods", o->ns);
        cleanup_json json_t *list = NULL;
        json_t *pod;
        size_t i;

        if (request(c, "GET", path, NULL, NULL, &list) != 200)
                die("list pods failed");
        json_array_foreach(json_object_get(list, "items"), i, pod) {
                if (streq(json_path_string(pod, "metadata.labels.app") ?: "", o->prefix))
                        die("pods labelled app=%s exist already", o->prefix);
        }
        *w = (struct watcher){ .o = o,
                               .rv = xstrdup(json_path_string(list, "metadata.resourceVersion")
                                                     ?: "0"),
                               .present = json_object(),
                               .ready_at = json_object() };
        pthread_mutex_init(&w->lock, NULL);
        pthread_cond_init(&w->cond, NULL);
        if (pthread_create(&w->thread, NULL, watch_main, w) != 0)
                die("pthread_create");
}

/* Waits until `ready` pods have been Ready (ready) or none is present (!ready); the time it
 * happened (now_ns at the event's arrival, approximately: the wait wakes on it). */
static int64_t wait_for(struct watcher *w, bool ready, int64_t deadline, const char *what)
{
        int64_t t = 0;

        pthread_mutex_lock(&w->lock);
        for (;;) {
                size_t have = ready ? json_object_size(w->ready_at) : json_object_size(w->present);

                if (ready ? have >= w->o->n : have == 0) {
                        t = now_ns();
                        break;
                }
                if (now_ns() >= deadline)
                        die("%s: %zu %s after %.0f s", what, have,
                            ready ? "Ready" : "still present", w->o->timeout_s);
                bench_cond_wait_ms(&w->cond, &w->lock, 2);
        }
        pthread_mutex_unlock(&w->lock);
        return t;
}

/* Each pod's time from t0 to its first Ready, as "<key>.ready_ms.*" lines. */
static void print_ready_stats(struct watcher *w, const char *key, int64_t t0)
{
        double *v = xcalloc(w->o->n, sizeof(*v));
        cleanup_free char *k = xasprintf("%s.ready_ms", key);
        const char *name;
        json_t *t;
        size_t n = 0;

        pthread_mutex_lock(&w->lock);
        json_object_foreach(w->ready_at, name, t) {
                if (n < w->o->n)
                        v[n++] = ms_between(t0, (int64_t) json_integer_value(t));
        }
        pthread_mutex_unlock(&w->lock);
        bench_print_stats(k, v, n, 0);
        free(v);
}

static char *pod_spec(void)
{
        return xstrdup("{\"containers\":[{\"name\":\"c\",\"image\":\"busybox\","
                       "\"command\":[\"sleep\",\"3600\"],\"resources\":{\"requests\":{"
                       "\"cpu\":\"10m\",\"memory\":\"16Mi\"}}}]}");
}

static int cmd_pods(const struct opts *o)
{
        cleanup_api_client struct api_client *c =
                bench_client_new(o->server, o->ca, o->token, BENCH_IDLE_TIMEOUT_MS);
        cleanup_free char *path = xasprintf("/api/v1/namespaces/%s/pods", o->ns);
        cleanup_free char *spec = pod_spec();
        int64_t t0, t_ready, t1, t_gone, deadline;
        struct watcher w;

        watcher_start(&w, o, c);
        t0 = now_ns();
        deadline = t0 + (int64_t) (o->timeout_s * 1e9);
        for (size_t i = 0; i < o->n; i++) {
                cleanup_free char *body =
                        xasprintf("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":"
                                  "\"%s-%zu\",\"labels\":{\"app\":\"%s\"}},\"spec\":%s}",
                                  o->prefix, i, o->prefix, spec);
                cleanup_json json_t *j = NULL;
                long status = request(c, "POST", path, NULL, body, &j);

                if (status != 201)
                        die("create %s-%zu: status %ld: %s", o->prefix, i, status,
                            json_path_string(j, "message") ?: "");
        }
        t_ready = wait_for(&w, true, deadline, "bare pods Ready");
        print_ready_stats(&w, "pods", t0);
        t1 = now_ns();
        deadline = t1 + (int64_t) (o->timeout_s * 1e9);
        for (size_t i = 0; i < o->n; i++) {
                cleanup_free char *p = xasprintf("%s/%s-%zu", path, o->prefix, i);
                long status = request(c, "DELETE", p, NULL, NULL, NULL);

                if (status != 200 && status != 202)
                        die("delete %s-%zu: status %ld", o->prefix, i, status);
        }
        t_gone = wait_for(&w, false, deadline, "bare pods gone");
        (void) printf("pods.up_ms %.3f\npods.down_ms %.3f\n", ms_between(t0, t_ready),
                      ms_between(t1, t_gone));
        (void) fflush(stdout);
        _exit(0); /* the watch thread blocks in its stream */
}

static void scale(struct api_client *c, const struct opts *o, size_t replicas)
{
        cleanup_free char *path =
                xasprintf("/apis/apps/v1/namespaces/%s/deployments/%s/scale", o->ns, o->prefix);
        cleanup_free char *body = xasprintf("{\"spec\":{\"replicas\":%zu}}", replicas);
        long status = request(c, "PATCH", path, "application/merge-patch+json", body, NULL);

        if (status != 200)
                die("scale %s to %zu: status %ld", o->prefix, replicas, status);
}

static int cmd_deployment(const struct opts *o)
{
        cleanup_api_client struct api_client *c =
                bench_client_new(o->server, o->ca, o->token, BENCH_IDLE_TIMEOUT_MS);
        cleanup_free char *path = xasprintf("/apis/apps/v1/namespaces/%s/deployments", o->ns);
        cleanup_free char *one = xasprintf("%s/%s", path, o->prefix);
        cleanup_free char *spec = pod_spec();
        cleanup_free char *body = xasprintf(
                "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":"
                "\"%s\"},\"spec\":{\"replicas\":0,\"selector\":{\"matchLabels\":{\"app\":\"%s\"}},"
                "\"template\":{\"metadata\":{\"labels\":{\"app\":\"%s\"}},\"spec\":%s}}}",
                o->prefix, o->prefix, o->prefix, spec);
        int64_t t0, t_ready, t1, t_gone, deadline;
        struct watcher w;
        long status;

        status = request(c, "POST", path, NULL, body, NULL);
        if (status != 201)
                die("create deployment %s: status %ld", o->prefix, status);
        /* its ReplicaSet of 0 exists before the clock starts: the scale is what is measured */
        deadline = now_ns() + (int64_t) (o->timeout_s * 1e9);
        for (;;) {
                cleanup_json json_t *d = NULL;

                if (request(c, "GET", one, NULL, NULL, &d) != 200)
                        die("get deployment %s failed", o->prefix);
                if (json_integer_value(json_path(d, "status.observedGeneration")) >=
                    json_integer_value(json_path(d, "metadata.generation")))
                        break;
                if (now_ns() >= deadline)
                        die("deployment %s not observed after %.0f s", o->prefix, o->timeout_s);
                (void) usleep(10000);
        }
        watcher_start(&w, o, c);
        t0 = now_ns();
        deadline = t0 + (int64_t) (o->timeout_s * 1e9);
        scale(c, o, o->n);
        t_ready = wait_for(&w, true, deadline, "Deployment pods Ready");
        print_ready_stats(&w, "deployment", t0);
        t1 = now_ns();
        deadline = t1 + (int64_t) (o->timeout_s * 1e9);
        scale(c, o, 0);
        t_gone = wait_for(&w, false, deadline, "Deployment pods gone");
        (void) printf("deployment.up_ms %.3f\ndeployment.down_ms %.3f\n", ms_between(t0, t_ready),
                      ms_between(t1, t_gone));
        status = request(c, "DELETE", one, NULL, NULL, NULL);
        if (status != 200 && status != 202)
                die("delete deployment %s: status %ld", o->prefix, status);
        (void) fflush(stdout);
        _exit(0);
}

static void usage(FILE *f)
{
        (void) fputs("usage: deployment-bench pods|deployment --server URL --ca FILE\n"
                     "           --token-file FILE [--ns NS] [--prefix P] [--replicas N]\n"
                     "           [--timeout S]\n",
                     f);
}

int main(int argc, char **argv)
{
        static const struct option opts[] = {
                { "server", required_argument, NULL, 's' },
                { "ca", required_argument, NULL, 'c' },
                { "token-file", required_argument, NULL, 't' },
                { "ns", required_argument, NULL, 'N' },
                { "prefix", required_argument, NULL, 'p' },
                { "replicas", required_argument, NULL, 'n' },
                { "timeout", required_argument, NULL, 'T' },
                { "help", no_argument, NULL, 'h' },
                { 0 },
        };
        struct opts o = { .ns = "default", .prefix = "db", .n = 100, .timeout_s = 600 };
        const char *cmd, *token_file = NULL;
        char *end;
        int opt;

        if (argc < 2 || streq(argv[1], "--help") || streq(argv[1], "-h")) {
                usage(argc < 2 ? stderr : stdout);
                return argc < 2 ? 2 : 0;
        }
        cmd = argv[1];
        optind = 2;
        while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
                switch (opt) {
                case 's':
                        o.server = optarg;
                        break;
                case 'c':
                        o.ca = optarg;
                        break;
                case 't':
                        token_file = optarg;
                        break;
                case 'N':
                        o.ns = optarg;
                        break;
                case 'p':
                        o.prefix = optarg;
                        break;
                case 'n':
                        o.n = strtoul(optarg, &end, 10);
                        if (*end || !*optarg || o.n == 0 || o.n > 10000)
                                die("--replicas: \"%s\" is not a count in 1..10000", optarg);
                        break;
                case 'T':
                        o.timeout_s = strtod(optarg, &end);
                        if (*end || !*optarg || !(o.timeout_s > 0) || o.timeout_s > 86400)
                                die("--timeout: \"%s\" is not a number of seconds", optarg);
                        break;
                case 'h':
                        usage(stdout);
                        return 0;
                default:
                        usage(stderr);
                        return 2;
                }
        }
        if (!o.server || !o.ca || !token_file)
                die("--server, --ca and --token-file are required");
        o.token = bench_read_token(token_file);
        if (streq(cmd, "pods"))
                return cmd_pods(&o);
        if (streq(cmd, "deployment"))
                return cmd_deployment(&o);
        usage(stderr);
        return 2;
}
