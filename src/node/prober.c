/* prober.c: container probes on a pool of threads (see prober.h). The probes' settings are
 * fixed when a run is first named and read without the lock by the thread probing; results,
 * schedules and events change under the prober's lock. */
#include <arpa/inet.h>
#include <ctype.h>
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/json.h"
#include "base/protowire.h"
#include "base/strbuf.h"
#include "base/timeutil.h"
#include "base/metrics.h"
#include "base/net.h"
#include "http/curl-setup.h"
#include "http/grpc.h"
#include "http/h2-client.h"
#include "node/node-metrics.h"
#include "node/prober.h"
#include "node/runtime/runtime.h"

/* K8S: ProbeUserAgent is "kube-probe/<major>.<minor>" of the kubelet (pkg/probe/http) */
#define PROBE_USER_AGENT "kube-probe/1.32"
/* K8S: the body kept of an HTTP probe's answer (maxRespBodyLength, 10 KiB); a gRPC answer is
 * one small message */
#define BODY_MAX 10240

enum probe_result { RESULT_UNKNOWN, RESULT_SUCCESS, RESULT_FAILURE, RESULT_ERROR };
enum handler_kind { HANDLER_HTTP, HANDLER_TCP, HANDLER_GRPC, HANDLER_EXEC };

static const char *const type_word[PROBE_TYPE_MAX] = { "Liveness", "Readiness", "Startup" };
static const char *const type_field[PROBE_TYPE_MAX] = { "livenessProbe", "readinessProbe",
                                                        "startupProbe" };

struct probe {
        bool present;
        enum handler_kind kind;
        char *host;                 /* where to connect */
        int port;                   /* 0: the port could not be resolved (error_text says) */
        char *error_text;           /* why the handler cannot run, or NULL */
        char *url;                  /* HTTP: scheme://host:port/path */
        struct curl_slist *headers; /* HTTP: the request headers */
        char *grpc_service;         /* GRPC */
        char **argv;                /* EXEC: the command, NULL-terminated */
        char *run_dir;              /* EXEC: the container run's state dir */
        int initial_delay_s, period_s, timeout_s, success_threshold, failure_threshold;
        int64_t grace_s; /* terminationGracePeriodSeconds, -1: none */
        /* state, under the lock */
        enum probe_result result;
        enum probe_result last; /* the latest attempt's result, and how many in a row */
        int in_a_row;
        int64_t due_ms; /* monotonic */
        bool in_flight;
        bool stopped; /* startup succeeded, or the kill verdict is given: no more attempts */
        bool kill;
};

struct target {
        struct target *next;
        char *uid, *container;
        /* its pod's names (the metrics' labels); outlives the target but for a dead one, which
         * counts nothing */
        const struct probed_pod *pod;
        int run;
        bool seen; /* named in the pod's current pass */
        bool dead; /* forgotten while a probe was in flight: freed when it returns */
        unsigned in_flight;
        struct probe probes[PROBE_TYPE_MAX];
        char *events[PROBER_MAX_EVENTS];
        size_t n_events;
};

/* A pod whose probes have run: the names its metric series are labelled with, until it is
 * forgotten. */
struct probed_pod {
        struct probed_pod *next;
        char *uid, *ns, *pod;
};

struct prober {
        pthread_mutex_t lock;
        pthread_cond_t cond;
        struct target *targets;
        struct probed_pod *probed;
        const struct node_metrics *metrics; /* NULL: none kept */
        bool stop;
        pthread_t *threads;
        unsigned n_threads;
        prober_wake_fn wake;
        void *ud;
};

/* ------------------------------------------------------------------ the handlers' inputs */

int probe_port(const json_t *handler, const json_t *container)
{
        const json_t *port = json_object_get(handler, "port");
        size_t i;
        json_t *p;

        if (json_is_integer(port)) {
                json_int_t n = json_integer_value(port);
                return n >= 1 && n <= 65535 ? (int) n : -EINVAL;
        }
        if (!json_is_string(port))
                return -EINVAL;
        json_array_foreach(json_object_get(container, "ports"), i, p) {
                const char *name = json_string_value(json_object_get(p, "name"));
                json_int_t n = json_integer_value(json_object_get(p, "containerPort"));
                if (name && streq(name, json_string_value(port)) && n >= 1 && n <= 65535)
                        return (int) n;
        }
        return -EINVAL;
}

size_t probe_grpc_request(const char *service, unsigned char *buf, size_t max)
{
        struct strbuf msg;
        struct pbw w;
        size_t at, n;

        strbuf_init(&msg);
        at = grpc_frame_begin(&msg);
        pbw_init(&w, &msg);
        if (service && *service)
                pbw_string(&w, 1, service); /* HealthCheckRequest.service = 1 */
        pbw_finish(&w);
        grpc_frame_end(&msg, at);
        n = msg.len;
        if (n > max)
                n = 0;
        else
                memcpy(buf, msg.buf, n);
        strbuf_release(&msg);
        return n;
}

int probe_grpc_status(const unsigned char *body, size_t len)
{
        const uint8_t *msg;
        size_t n, used;
        struct pbr r;
        struct pb_field f;
        int status = 0; /* UNKNOWN, proto3's default when the field is absent */

        if (grpc_frame_read(body, len, len, &msg, &n, &used) != 1)
                return -EINVAL;
        pbr_init(&r, msg, n);
        for (;;) {
                int k = pbr_next(&r, &f);
                if (k < 0)
                        return -EINVAL;
                if (k == 0)
                        return status;
                /* HealthCheckResponse.status = 1 (ServingStatus) */
                if (f.num == 1 && f.wire == PB_WIRE_VARINT)
                        status = f.u > 3 ? 0 : (int) f.u;
        }
}

/* "host:port", with brackets around an IPv6 address. */
static char *host_port(const char *host, int port)
{
        return strchr(host, ':') ? xasprintf("[%s]:%d", host, port)
                                 : xasprintf("%s:%d", host, port);
}

/* The URL of an httpGet probe: the path percent-encoded where it holds bytes a URL cannot. */
static char *http_url(const char *scheme, const char *host, int port, const char *path)
{
        cleanup_free char *hp = host_port(host, port);
        struct strbuf sb;

        strbuf_init(&sb);
        strbuf_addf(&sb, "%s://%s", scheme, hp);
        if (!path || path[0] != '/')
                strbuf_add(&sb, "/", 1);
        for (const unsigned char *c = (const unsigned char *) (path ?: ""); *c; c++) {
                if (*c <= 0x20 || *c >= 0x7f || *c == '#')
                        strbuf_addf(&sb, "%%%02X", *c);
                else
                        strbuf_add(&sb, (const char *) c, 1);
        }
        return strbuf_detach(&sb);
}

static int json_int_or(const json_t *o, const char *key, int dflt)
{
        const json_t *v = json_object_get(o, key);
        return json_is_integer(v) ? (int) json_integer_value(v) : dflt;
}

/* The probe of field `type` of the container spec, aimed at pod_host. */
static void probe_parse(struct probe *pr, enum probe_type type, const json_t *spec,
                        const char *pod_host, const char *run_dir)
{
        const json_t *o = json_object_get(spec, type_field[type]);
        const json_t *h;
        const char *host;
        int port;

        if (!json_is_object(o))
                return;
        pr->present = true;
        /* K8S: the defaults of core/v1 Probe (SetDefaults_Probe) */
        pr->initial_delay_s = json_int_or(o, "initialDelaySeconds", 0);
        pr->period_s = json_int_or(o, "periodSeconds", 10);
        pr->timeout_s = json_int_or(o, "timeoutSeconds", 1);
        pr->success_threshold = json_int_or(o, "successThreshold", 1);
        pr->failure_threshold = json_int_or(o, "failureThreshold", 3);
        pr->grace_s =
                json_is_integer(json_object_get(o, "terminationGracePeriodSeconds"))
                        ? json_integer_value(json_object_get(o, "terminationGracePeriodSeconds"))
                        : -1;
        if (pr->period_s < 1)
                pr->period_s = 1;
        if (pr->timeout_s < 1)
                pr->timeout_s = 1;
        pr->result = type == PROBE_READINESS  ? RESULT_FAILURE
                     : type == PROBE_LIVENESS ? RESULT_SUCCESS
                                              : RESULT_UNKNOWN;
        if ((h = json_object_get(o, "exec"))) {
                const json_t *cmd = json_object_get(h, "command");
                size_t i, n = json_array_size(cmd);
                json_t *arg;

                pr->kind = HANDLER_EXEC;
                pr->run_dir = xstrdup(run_dir ?: "");
                pr->argv = xcalloc(n + 1, sizeof(*pr->argv));
                json_array_foreach(cmd, i, arg) {
                        if (!json_is_string(arg) || (i == 0 && !*json_string_value(arg))) {
                                pr->error_text = xstrdup("exec probe without a command");
                                return;
                        }
                        pr->argv[i] = xstrdup(json_string_value(arg));
                }
                if (n == 0)
                        pr->error_text = xstrdup("exec probe without a command");
                return;
        }
        if ((h = json_object_get(o, "httpGet")))
                pr->kind = HANDLER_HTTP;
        else if ((h = json_object_get(o, "tcpSocket")))
                pr->kind = HANDLER_TCP;
        else if ((h = json_object_get(o, "grpc")))
                pr->kind = HANDLER_GRPC;
        else {
                pr->error_text = xstrdup("missing probe handler");
                return;
        }
        host = json_string_value(json_object_get(h, "host"));
        pr->host = xstrdup(host && *host ? host : pod_host ?: "");
        if (!*pr->host) {
                pr->error_text = xstrdup("the pod has no IP to probe");
                return;
        }
        port = probe_port(h, spec);
        if (port < 0) {
                /* K8S: probe.ResolveContainerPort's error */
                cleanup_free char *text =
                        json_dumps(json_object_get(h, "port"), JSON_ENCODE_ANY | JSON_COMPACT);
                pr->error_text = xasprintf("couldn't find port: %s in %s", text ?: "null",
                                           json_string_value(json_object_get(spec, "name")) ?: "");
                return;
        }
        pr->port = port;
        if (pr->kind == HANDLER_GRPC) {
                pr->grpc_service = xstrdup(json_string_value(json_object_get(h, "service")) ?: "");
        } else if (pr->kind == HANDLER_HTTP) {
                const char *scheme = json_string_value(json_object_get(h, "scheme"));
                bool ua = false, accept = false;
                size_t i;
                json_t *hd;

                pr->url = http_url(scheme && streq(scheme, "HTTPS") ? "https" : "http", pr->host,
                                   port, json_string_value(json_object_get(h, "path")));
                json_array_foreach(json_object_get(h, "httpHeaders"), i, hd) {
                        const char *name = json_string_value(json_object_get(hd, "name"));
                        const char *value = json_string_value(json_object_get(hd, "value"));
                        cleanup_free char *line = NULL;

                        /* the API validated the name as a header token; a value cannot carry a
                         * second header */
                        if (!name || !*name || strpbrk(name, "\r\n: ") ||
                            (value && strpbrk(value, "\r\n")))
                                continue;
                        ua |= strcasecmp(name, "User-Agent") == 0;
                        accept |= strcasecmp(name, "Accept") == 0;
                        line = value && *value ? xasprintf("%s: %s", name, value)
                                               : xasprintf("%s;", name);
                        pr->headers = curl_slist_append(pr->headers, line);
                }
                if (!ua)
                        pr->headers =
                                curl_slist_append(pr->headers, "User-Agent: " PROBE_USER_AGENT);
                if (!accept)
                        pr->headers = curl_slist_append(pr->headers, "Accept: */*");
        }
}

static void probe_release(struct probe *pr)
{
        free(pr->host);
        free(pr->error_text);
        free(pr->url);
        curl_slist_free_all(pr->headers);
        free(pr->grpc_service);
        for (size_t i = 0; pr->argv && pr->argv[i]; i++)
                free(pr->argv[i]);
        free(pr->argv);
        free(pr->run_dir);
}

/* ------------------------------------------------------------------ the handlers */

/* Go's words for a socket error ("connection refused"): strerror, first letter lowered. */
static char *errno_words(int e)
{
        char *s = xstrdup(strerror(e));
        s[0] = (char) tolower((unsigned char) s[0]);
        return s;
}

static enum probe_result run_tcp(const struct probe *pr, char **ret_why)
{
        cleanup_free char *hp = host_port(pr->host, pr->port), *port = xasprintf("%d", pr->port);
        struct net_dial_failure why;
        int fd = net_dial(pr->host, port, pr->timeout_s * 1000, &why);
        cleanup_free char *words = NULL;

        if (fd >= 0) {
                (void) close(fd);
                return RESULT_SUCCESS;
        }
        /* K8S: Go's dial errors */
        if (why.gai_error)
                *ret_why = xasprintf("dial tcp %s: lookup %s: %s", hp, pr->host,
                                     gai_strerror(why.gai_error));
        else if (fd == -ETIMEDOUT)
                *ret_why = xasprintf("dial tcp %s: i/o timeout", hp);
        else if (streq(why.op, "socket"))
                *ret_why = xasprintf("dial tcp %s: socket: %s", hp, strerror(-fd));
        else
                *ret_why = xasprintf("dial tcp %s: connect: %s", hp, words = errno_words(-fd));
        return RESULT_FAILURE;
}

struct body {
        unsigned char buf[BODY_MAX];
        size_t len;
};

static size_t body_write(char *data, size_t size, size_t n, void *ud)
{
        struct body *b = ud;
        size_t take = size * n;

        if (take > sizeof(b->buf) - b->len)
                take = sizeof(b->buf) - b->len;
        memcpy(b->buf + b->len, data, take);
        b->len += take;
        return size * n;
}

/* One request with libcurl; the transfer's own error as Go's client words it. */
static CURLcode perform(CURL *c, const char *url, const struct probe *pr, struct body *b,
                        char **ret_why)
{
        char errbuf[CURL_ERROR_SIZE] = "";
        CURLcode rc;

        (void) curl_easy_setopt(c, CURLOPT_URL, url);
        (void) curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
        (void) curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long) pr->timeout_s * 1000L);
        (void) curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
        (void) curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
        (void) curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
        (void) curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
        (void) curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
        (void) curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, body_write);
        (void) curl_easy_setopt(c, CURLOPT_WRITEDATA, b);
        (void) curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
        rc = curl_easy_perform(c);
        if (rc == CURLE_OK)
                return rc;
        if (rc == CURLE_OPERATION_TIMEDOUT) {
                *ret_why = xasprintf("Get \"%s\": context deadline exceeded (Client.Timeout "
                                     "exceeded while awaiting headers)",
                                     url);
        } else {
                long os_errno = 0;
                (void) curl_easy_getinfo(c, CURLINFO_OS_ERRNO, &os_errno);
                if (rc == CURLE_COULDNT_CONNECT && os_errno) {
                        cleanup_free char *hp = host_port(pr->host, pr->port);
                        cleanup_free char *words = errno_words((int) os_errno);
                        *ret_why =
                                xasprintf("Get \"%s\": dial tcp %s: connect: %s", url, hp, words);
                } else {
                        *ret_why = xasprintf("Get \"%s\": %s", url,
                                             *errbuf ? errbuf : curl_easy_strerror(rc));
                }
        }
        return rc;
}

static enum probe_result run_http(const struct probe *pr, char **ret_why)
{
        CURL *c = curl_easy_init();
        struct body *b = xcalloc(1, sizeof(*b));
        long code = 0;
        CURLcode rc;

        if (!c) {
                free(b);
                *ret_why = xstrdup("cannot start an HTTP client");
                return RESULT_ERROR;
        }
        (void) curl_easy_setopt(c, CURLOPT_HTTPHEADER, pr->headers);
        rc = perform(c, pr->url, pr, b, ret_why);
        if (rc == CURLE_OK)
                (void) curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
        curl_easy_cleanup(c);
        free(b);
        if (rc != CURLE_OK)
                return RESULT_FAILURE;
        /* K8S: pkg/probe/http: 200 <= code < 400 is success (a redirect not followed here
         * answers 3xx) */
        if (code >= 200 && code < 400)
                return RESULT_SUCCESS;
        *ret_why = xasprintf("HTTP probe failed with statuscode: %ld", code);
        return RESULT_FAILURE;
}

static enum probe_result run_grpc(const struct probe *pr, char **ret_why)
{
        static const char *const serving[] = { "UNKNOWN", "SERVING", "NOT_SERVING",
                                               "SERVICE_UNKNOWN" };
        cleanup_free char *hp = host_port(pr->host, pr->port);
        cleanup_free char *url = xasprintf("http://%s", hp);
        cleanup_free unsigned char *req = xmalloc(16 + strlen(pr->grpc_service));
        size_t req_len = probe_grpc_request(pr->grpc_service, req, 16 + strlen(pr->grpc_service));
        int64_t deadline = time_monotonic_ms() + (int64_t) pr->timeout_s * 1000;
        struct h2_conn *conn = NULL;
        struct error *err = NULL;
        enum probe_result res = RESULT_FAILURE;
        struct h2_answer ans;
        int r, status;

        h2_answer_init(&ans);
        /* K8S: pkg/probe/grpc's words */
        r = h2_connect(url, &(struct h2_options){ .user_agent = PROBE_USER_AGENT },
                       pr->timeout_s * 1000, &conn, &err);
        if (r < 0) {
                *ret_why = xasprintf("timeout: failed to connect service \"%s\" within %ds: %s", hp,
                                     pr->timeout_s, err->message);
                goto out;
        }
        r = h2_call(conn, "/grpc.health.v1.Health/Check", req, req_len, BODY_MAX,
                    (int) (deadline - time_monotonic_ms()), &ans, &err);
        if (r == -ETIMEDOUT) {
                *ret_why =
                        xasprintf("timeout: health rpc did not complete within %ds", pr->timeout_s);
        } else if (r < 0) {
                *ret_why = xasprintf("error: health rpc probe failed: %s", err->message);
        } else if (ans.status.code == 12) { /* UNIMPLEMENTED */
                *ret_why = xasprintf("error: this server does not implement the grpc health "
                                     "protocol (grpc.health.v1.Health): %s",
                                     ans.status.message);
        } else if (ans.status.code != 0) {
                *ret_why = xasprintf("error: health rpc probe failed: rpc error: code = %d desc "
                                     "= %s",
                                     ans.status.code, ans.status.message);
        } else if ((status = probe_grpc_status((const unsigned char *) ans.body.buf,
                                               ans.body.len)) < 0) {
                *ret_why = xstrdup("error: health rpc probe failed: malformed response");
        } else if (status != 1) {
                *ret_why = xasprintf("service unhealthy (responded with \"%s\")", serving[status]);
        } else {
                res = RESULT_SUCCESS;
        }
out:
        error_free(err);
        h2_close(conn);
        h2_answer_release(&ans);
        return res;
}

/* K8S: pkg/probe/exec: the command in the container (runtime_exec_start: its namespaces,
 * cgroups and confinement), stdout and stderr together as the output (the first 10 KiB); exit 0
 * is success, any other code failure with the output as the reason, and a command still
 * running after timeoutSeconds is killed: `command "..." timed out`. */
static enum probe_result run_exec(const struct probe *pr, char **ret_why)
{
        struct runtime_exec_spec spec = { .state_dir = pr->run_dir,
                                          .argv = (const char *const *) pr->argv,
                                          .stdin_fd = -1 };
        struct runtime_exec e;
        cleanup_error struct error *err = NULL;
        struct strbuf out;
        int pipefd[2], r, code = 0;
        int64_t deadline = time_monotonic_ms() + (int64_t) pr->timeout_s * 1000;
        bool ended = false;

        if (pipe2(pipefd, O_CLOEXEC) < 0) {
                *ret_why = xasprintf("exec probe: pipe: %s", strerror(errno));
                return RESULT_ERROR;
        }
        spec.stdout_fd = spec.stderr_fd = pipefd[1];
        r = runtime_exec_start(&spec, &e, &err);
        (void) close(pipefd[1]);
        if (r < 0) {
                (void) close(pipefd[0]);
                *ret_why = xasprintf("failed to exec in container: %s",
                                     err ? err->message : strerror(-r));
                return RESULT_ERROR;
        }
        strbuf_init(&out);
        for (;;) {
                struct pollfd p[2] = { { .fd = pipefd[0], .events = POLLIN },
                                       { .fd = e.ctl_fd, .events = POLLIN } };
                int64_t left = deadline - time_monotonic_ms();
                char buf[4096];
                ssize_t n;

                if (left <= 0)
                        break;
                if (poll(p, ended ? 1 : 2, ended ? 100 : (int) left) < 0 && errno != EINTR)
                        break;
                if (p[0].revents) {
                        n = read(pipefd[0], buf, sizeof(buf));
                        if (n > 0 && out.len < BODY_MAX)
                                strbuf_add(&out, buf,
                                           out.len + (size_t) n > BODY_MAX ? BODY_MAX - out.len
                                                                           : (size_t) n);
                        if (n <= 0 && ended)
                                break;
                        if (n > 0)
                                continue;
                }
                if (ended)
                        break; /* ended, and its output is quiet (a background child may hold
                                * the pipe) */
                if (!ended && p[1].revents) {
                        ended = true;
                        if (runtime_exec_wait(&e, &code, NULL) < 0)
                                code = -1;
                }
        }
        (void) close(pipefd[0]);
        runtime_exec_release(&e);
        if (!ended) {
                struct strbuf cmd;

                strbuf_init(&cmd);
                for (size_t i = 0; pr->argv[i]; i++)
                        strbuf_addf(&cmd, "%s%s", i ? " " : "", pr->argv[i]);
                *ret_why = xasprintf("command \"%s\" timed out", cmd.buf);
                strbuf_release(&cmd);
                strbuf_release(&out);
                return RESULT_FAILURE;
        }
        if (code == 0) {
                strbuf_release(&out);
                return RESULT_SUCCESS;
        }
        *ret_why = strbuf_detach(&out);
        return RESULT_FAILURE;
}

static enum probe_result run_probe(const struct probe *pr, char **ret_why)
{
        if (pr->error_text) {
                *ret_why = xstrdup(pr->error_text);
                return RESULT_ERROR;
        }
        switch (pr->kind) {
        case HANDLER_HTTP:
                return run_http(pr, ret_why);
        case HANDLER_TCP:
                return run_tcp(pr, ret_why);
        case HANDLER_GRPC:
                return run_grpc(pr, ret_why);
        case HANDLER_EXEC:
                return run_exec(pr, ret_why);
        default:
                *ret_why = xstrdup("unknown probe handler");
                return RESULT_ERROR;
        }
}

/* ------------------------------------------------------------------ results */

static void target_free(struct target *t)
{
        for (int i = 0; i < PROBE_TYPE_MAX; i++)
                probe_release(&t->probes[i]);
        for (size_t i = 0; i < t->n_events; i++)
                free(t->events[i]);
        free(t->uid);
        free(t->container);
        free(t);
}

static void queue_event(struct target *t, char *message)
{
        if (t->n_events < PROBER_MAX_EVENTS)
                t->events[t->n_events++] = message;
        else
                free(message);
}

/* K8S: worker.doProbe: the result moves after successThreshold/failureThreshold equal
 * attempts in a row. Returns whether the pod's worker should look (a change or an event). */
static bool record(struct target *t, enum probe_type type, enum probe_result res, char *why)
{
        struct probe *pr = &t->probes[type];

        if (res == RESULT_ERROR) {
                /* K8S: a prober error keeps the result and says so */
                queue_event(t, xasprintf("%s probe errored: %s", type_word[type], why));
                return true;
        }
        if (res == RESULT_FAILURE)
                queue_event(t, xasprintf("%s probe failed: %s", type_word[type], why ?: ""));
        if (res == pr->last) {
                pr->in_a_row++;
        } else {
                pr->last = res;
                pr->in_a_row = 1;
        }
        if ((res == RESULT_FAILURE && pr->in_a_row < pr->failure_threshold) ||
            (res == RESULT_SUCCESS && pr->in_a_row < pr->success_threshold))
                return res == RESULT_FAILURE;
        if (pr->result == res)
                return res == RESULT_FAILURE;
        pr->result = res;
        if (type == PROBE_STARTUP && res == RESULT_SUCCESS)
                pr->stopped = true;
        if ((type == PROBE_LIVENESS || type == PROBE_STARTUP) && res == RESULT_FAILURE) {
                pr->kill = true;
                pr->stopped = true;
        }
        return true;
}

/* Whether probe `type` of t may run now: liveness and readiness wait for startup. */
static bool runnable(const struct target *t, enum probe_type type)
{
        const struct probe *pr = &t->probes[type];
        const struct probe *startup = &t->probes[PROBE_STARTUP];

        if (!pr->present || pr->in_flight || pr->stopped)
                return false;
        if (type != PROBE_STARTUP && startup->present && startup->result != RESULT_SUCCESS)
                return false;
        return !t->probes[PROBE_LIVENESS].kill && !startup->kill;
}

/* K8S (prober/worker.go doProbe): prober_probe_total counts each attempt by result, and
 * prober_probe_duration_seconds times the successful ones; an errored attempt is thrown away
 * uncounted. Under the lock, for a target not forgotten: a forgotten pod's series stay gone. */
static void count_probe(const struct prober *p, const struct target *t, enum probe_type type,
                        enum probe_result res, double seconds)
{
        const char *result = res == RESULT_SUCCESS ? "successful" : "failed";

        if (!p->metrics || (res != RESULT_SUCCESS && res != RESULT_FAILURE))
                return;
        (void) metrics_add(p->metrics->probe_total,
                           (const char *const[]){ type_word[type], result, t->container,
                                                  t->pod->pod, t->pod->ns, t->uid, NULL },
                           1);
        if (res == RESULT_SUCCESS)
                (void) metrics_observe(p->metrics->probe_duration,
                                       (const char *const[]){ type_word[type], t->container,
                                                              t->pod->pod, t->pod->ns, NULL },
                                       seconds);
}

static void *prober_main(void *arg)
{
        struct prober *p = arg;

        (void) pthread_setname_np(pthread_self(), "prober");
        pthread_mutex_lock(&p->lock);
        while (!p->stop) {
                int64_t now = time_monotonic_ms(), next = now + 1000;
                struct target *t, *pick = NULL;
                enum probe_type type = PROBE_TYPE_MAX;
                cleanup_free char *why = NULL, *wake_uid = NULL;
                enum probe_result res;
                struct timespec until, began, ended;

                for (t = p->targets; t && !pick; t = t->next)
                        for (int k = 0; k < PROBE_TYPE_MAX; k++) {
                                if (!runnable(t, (enum probe_type) k))
                                        continue;
                                if (t->probes[k].due_ms <= now) {
                                        pick = t;
                                        type = (enum probe_type) k;
                                        break;
                                }
                                if (t->probes[k].due_ms < next)
                                        next = t->probes[k].due_ms;
                        }
                if (!pick) {
                        until = time_after_ms(CLOCK_MONOTONIC, (long) (next - now));
                        (void) pthread_cond_timedwait(&p->cond, &p->lock, &until);
                        continue;
                }
                pick->probes[type].in_flight = true;
                pick->in_flight++;
                pthread_mutex_unlock(&p->lock);
                (void) clock_gettime(CLOCK_MONOTONIC, &began);
                res = run_probe(&pick->probes[type], &why);
                (void) clock_gettime(CLOCK_MONOTONIC, &ended);
                pthread_mutex_lock(&p->lock);
                pick->probes[type].in_flight = false;
                pick->in_flight--;
                if (pick->dead) {
                        if (!pick->in_flight)
                                target_free(pick);
                        continue;
                }
                count_probe(p, pick, type, res,
                            (double) (ended.tv_sec - began.tv_sec) +
                                    (double) (ended.tv_nsec - began.tv_nsec) / 1e9);
                pick->probes[type].due_ms =
                        time_monotonic_ms() + (int64_t) pick->probes[type].period_s * 1000;
                if (record(pick, type, res, why) && p->wake)
                        wake_uid = xstrdup(pick->uid);
                if (wake_uid) {
                        pthread_mutex_unlock(&p->lock);
                        p->wake(p->ud, wake_uid);
                        pthread_mutex_lock(&p->lock);
                }
        }
        pthread_mutex_unlock(&p->lock);
        return NULL;
}

/* ------------------------------------------------------------------ the API */

int prober_new(unsigned n_threads, prober_wake_fn wake, void *ud,
               const struct node_metrics *metrics, struct prober **ret, struct error **reterr)
{
        struct prober *p;
        pthread_condattr_t attr;

        if (http_curl_setup(reterr) < 0)
                return -EIO;
        p = xcalloc(1, sizeof(*p));
        pthread_mutex_init(&p->lock, NULL);
        pthread_condattr_init(&attr);
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
        pthread_cond_init(&p->cond, &attr);
        pthread_condattr_destroy(&attr);
        p->wake = wake;
        p->ud = ud;
        p->metrics = metrics;
        p->threads = xcalloc(n_threads ? n_threads : 1, sizeof(*p->threads));
        for (unsigned i = 0; i < (n_threads ? n_threads : 1); i++) {
                int r = pthread_create(&p->threads[i], NULL, prober_main, p);
                if (r != 0) {
                        prober_free(p);
                        return error_set(reterr, r, "prober: starting a thread: %s", strerror(r));
                }
                p->n_threads++;
        }
        *ret = p;
        return 0;
}

/* Unlinks and frees *link, deleting its pod's metric series (K8S: worker.go's stop deletes its
 * ProberResults and ProberDuration series). */
static void forget_probed(struct prober *p, struct probed_pod **link)
{
        struct probed_pod *pp = *link;

        *link = pp->next;
        if (p->metrics) {
                (void) metrics_delete_matching(p->metrics->probe_total,
                                               (const char *const[]){ "pod_uid", NULL },
                                               (const char *const[]){ pp->uid, NULL });
                (void) metrics_delete_matching(p->metrics->probe_duration,
                                               (const char *const[]){ "namespace", "pod", NULL },
                                               (const char *const[]){ pp->ns, pp->pod, NULL });
        }
        free(pp->uid);
        free(pp->ns);
        free(pp->pod);
        free(pp);
}

void prober_free(struct prober *p)
{
        struct target *t;

        if (!p)
                return;
        pthread_mutex_lock(&p->lock);
        p->stop = true;
        pthread_cond_broadcast(&p->cond);
        pthread_mutex_unlock(&p->lock);
        for (unsigned i = 0; i < p->n_threads; i++)
                (void) pthread_join(p->threads[i], NULL);
        while ((t = p->targets)) {
                p->targets = t->next;
                target_free(t);
        }
        while (p->probed)
                forget_probed(p, &p->probed);
        free(p->threads);
        pthread_cond_destroy(&p->cond);
        pthread_mutex_destroy(&p->lock);
        free(p);
}

static struct target *find(struct prober *p, const char *uid, const char *container, int run)
{
        for (struct target *t = p->targets; t; t = t->next)
                if (streq(t->uid, uid) && streq(t->container, container) && t->run == run)
                        return t;
        return NULL;
}

/* The pod of run as listed probed, listed the first time. */
static const struct probed_pod *note_probed(struct prober *p, const struct probe_run *run)
{
        struct probed_pod *pp;

        for (pp = p->probed; pp; pp = pp->next)
                if (streq(pp->uid, run->pod_uid))
                        return pp;
        pp = xcalloc(1, sizeof(*pp));
        pp->uid = xstrdup(run->pod_uid);
        pp->ns = xstrdup(run->ns);
        pp->pod = xstrdup(run->pod);
        pp->next = p->probed;
        p->probed = pp;
        return pp;
}

void prober_container(struct prober *p, const struct probe_run *run, const json_t *spec,
                      const char *host, const char *run_dir, time_t started_at,
                      struct probe_verdict *ret)
{
        struct target *t;
        const struct probe *startup, *readiness;

        *ret = (struct probe_verdict){ .kill_for = PROBE_TYPE_MAX, .kill_grace_s = -1 };
        pthread_mutex_lock(&p->lock);
        t = find(p, run->pod_uid, run->container, run->run);
        if (!t) {
                int64_t delay_ms;

                t = xcalloc(1, sizeof(*t));
                t->pod = note_probed(p, run);
                t->uid = xstrdup(run->pod_uid);
                t->container = xstrdup(run->container);
                t->run = run->run;
                for (int k = 0; k < PROBE_TYPE_MAX; k++) {
                        struct probe *pr = &t->probes[k];
                        probe_parse(pr, (enum probe_type) k, spec, host, run_dir);
                        /* K8S: initialDelaySeconds counts from the container's start */
                        delay_ms = ((int64_t) started_at + pr->initial_delay_s - time(NULL)) * 1000;
                        pr->due_ms = time_monotonic_ms() + (delay_ms > 0 ? delay_ms : 0);
                }
                t->next = p->targets;
                p->targets = t;
                pthread_cond_broadcast(&p->cond);
        }
        t->seen = true;
        startup = &t->probes[PROBE_STARTUP];
        readiness = &t->probes[PROBE_READINESS];
        ret->started = !startup->present || startup->result == RESULT_SUCCESS;
        ret->ready = ret->started && (!readiness->present || readiness->result == RESULT_SUCCESS);
        if (t->probes[PROBE_LIVENESS].kill) {
                ret->kill_for = PROBE_LIVENESS;
                ret->kill_grace_s = t->probes[PROBE_LIVENESS].grace_s;
        } else if (startup->kill) {
                ret->kill_for = PROBE_STARTUP;
                ret->kill_grace_s = startup->grace_s;
        }
        memcpy(ret->unhealthy, t->events, t->n_events * sizeof(*t->events));
        ret->n_unhealthy = t->n_events;
        t->n_events = 0;
        pthread_mutex_unlock(&p->lock);
}

/* Unlinks every target of uid that `doomed` says goes; frees it unless a probe is in flight
 * (the prober thread frees it when the probe returns). */
static void drop(struct prober *p, const char *uid, bool only_unseen)
{
        struct target **link = &p->targets;

        while (*link) {
                struct target *t = *link;
                if (!streq(t->uid, uid) || (only_unseen && t->seen)) {
                        link = &t->next;
                        continue;
                }
                *link = t->next;
                if (t->in_flight)
                        t->dead = true;
                else
                        target_free(t);
        }
}

void prober_pod_begin(struct prober *p, const char *uid)
{
        pthread_mutex_lock(&p->lock);
        for (struct target *t = p->targets; t; t = t->next)
                if (streq(t->uid, uid))
                        t->seen = false;
        pthread_mutex_unlock(&p->lock);
}

void prober_pod_end(struct prober *p, const char *uid)
{
        pthread_mutex_lock(&p->lock);
        drop(p, uid, true);
        pthread_mutex_unlock(&p->lock);
}

void prober_forget_pod(struct prober *p, const char *uid)
{
        pthread_mutex_lock(&p->lock);
        drop(p, uid, false);
        for (struct probed_pod **link = &p->probed; *link; link = &(*link)->next)
                if (streq((*link)->uid, uid)) {
                        forget_probed(p, link);
                        break;
                }
        pthread_mutex_unlock(&p->lock);
}
