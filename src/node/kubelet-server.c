/* kubelet-server.c: the kubelet endpoint's routing, authentication and query decoding, and
 * the bridge from the runtime's blocking log reader to a streamed response (a thread per
 * request through http-pipe). Which container run to read is the agent's answer, through
 * find_container; how a CRI log renders is the runtime's (runtime_log_read). */
#include <errno.h>
#include <fcntl.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/json.h"
#include "base/timeutil.h"
#include "http/http-pipe.h"
#include "http/http-server.h"
#include "node/kubelet-portforward.h"
#include "node/kubelet-server.h"
#include "node/kubelet-stream.h"
#include "node/runtime/runtime.h"

#define CONTAINER_LOGS_PREFIX "/containerLogs/"
#define EXEC_PREFIX           "/exec/"
#define ATTACH_PREFIX         "/attach/"
#define STATS_SUMMARY_PATH    "/stats/summary"
#define PORTFORWARD_PREFIX    "/portForward/"

struct kubelet_server {
        struct http_server *http;
        char *token;       /* NULL: none taken */
        bool client_certs; /* system:masters client certificates taken */
        kubelet_find_container_fn find_container;
        kubelet_summary_fn summary;
        kubelet_find_pod_fn find_pod;
        void *ud;
};

/* ------------------------------------------------------------------ refusals */

int kubelet_log_refuse(enum kubelet_log_refusal why, const char *pod, const char *container,
                       const char *reason, struct error **reterr)
{
        switch (why) {
        case KUBELET_LOG_NOT_AVAILABLE:
                return error_set(reterr, EAGAIN, "container \"%s\" in pod \"%s\" is not available",
                                 container, pod);
        case KUBELET_LOG_NO_PREVIOUS:
                return error_set(reterr, EAGAIN,
                                 "previous terminated container \"%s\" in pod \"%s\" not found",
                                 container, pod);
        case KUBELET_LOG_TERMINATED:
                return error_set(reterr, EAGAIN, "container \"%s\" in pod \"%s\" is terminated",
                                 container, pod);
        case KUBELET_LOG_WAITING:
                /* K8S: the two image pull reasons get words of their own */
                if (reason && streq(reason, "ErrImagePull"))
                        reason = "image can't be pulled";
                else if (reason && streq(reason, "ImagePullBackOff"))
                        reason = "trying and failing to pull image";
                return error_set(reterr, EAGAIN,
                                 "container \"%s\" in pod \"%s\" is waiting to start: %s",
                                 container, pod, reason ? reason : "");
        case KUBELET_LOG_NO_LOGS_YET:
        default:
                return error_set(reterr, EAGAIN,
                                 "container \"%s\" in pod \"%s\" is waiting to start - no logs yet",
                                 container, pod);
        }
}

/* ------------------------------------------------------------------ query */

/* K8S apimachinery Convert_Slice_string_To_bool: "0" and "false" (any case) are false,
 * anything else, an empty value included, is true. */
static bool query_bool(const struct http_request *req, const char *key)
{
        const char *v = http_request_query(req, key);

        return v && !streq(v, "0") && strcasecmp(v, "false") != 0;
}

/* An int64 parameter: 0 absent (or empty), 1 set, -EINVAL malformed. */
static int query_int64(const struct http_request *req, const char *key, int64_t *ret)
{
        const char *v = http_request_query(req, key);
        char *end;
        long long n;

        if (!v || !*v)
                return 0;
        errno = 0;
        n = strtoll(v, &end, 10);
        if (errno || *end || end == v)
                return -EINVAL;
        *ret = n;
        return 1;
}

/* PodLogOptions from the query, validated as the kubelet does: a value that does not decode
 * is 400, one that decodes but is out of range is 422. */
static int decode_log_options(const struct http_request *req, struct runtime_log_options *o,
                              bool *ret_previous, struct http_response *resp)
{
        int64_t tail = -1, limit = -1, since_seconds = 0;
        int has_tail, has_limit, has_since_seconds;
        const char *since_time = http_request_query(req, "sinceTime");
        time_t since = 0;

        has_tail = query_int64(req, "tailLines", &tail);
        has_limit = query_int64(req, "limitBytes", &limit);
        has_since_seconds = query_int64(req, "sinceSeconds", &since_seconds);
        if (has_tail < 0 || has_limit < 0 || has_since_seconds < 0 ||
            (since_time && *since_time && time_parse_rfc3339(since_time, &since) < 0)) {
                http_response_text(resp, 400, "{\"message\": \"Unable to decode query.\"}");
                return -EINVAL;
        }
        /* K8S ValidatePodLogOptions */
        if ((has_tail && tail < 0) || (has_limit && limit < 1) ||
            (has_since_seconds && since_time && *since_time) ||
            (has_since_seconds && since_seconds < 1)) {
                http_response_text(resp, 422, "{\"message\": \"Invalid request.\"}");
                return -EINVAL;
        }
        *o = (struct runtime_log_options) RUNTIME_LOG_OPTIONS_INIT;
        o->tail_lines = has_tail ? tail : -1;
        o->limit_bytes = has_limit ? limit : -1;
        o->timestamps = query_bool(req, "timestamps");
        o->follow = query_bool(req, "follow");
        /* K8S kuberuntime: sinceSeconds counts back from now */
        if (has_since_seconds)
                o->since.tv_sec = time(NULL) - (time_t) since_seconds;
        else if (since_time && *since_time)
                o->since.tv_sec = since;
        *ret_previous = query_bool(req, "previous");
        return 0;
}

/* ------------------------------------------------------------------ the log stream */

struct log_job {
        char *log_path;
        char *state_dir;
        struct runtime_log_options o;
        struct http_pipe *pipe;
};

static void log_job_free(void *ud)
{
        struct log_job *j = ud;

        free(j->log_path);
        free(j->state_dir);
        free(j);
}

static int log_job_write(void *ud, const char *buf, size_t n)
{
        struct log_job *j = ud;

        return http_pipe_write(j->pipe, buf, n);
}

static int log_job_idle(void *ud)
{
        struct log_job *j = ud;

        return http_pipe_cancelled(j->pipe) ? 1 : 0;
}

/* The producer thread: the log as the runtime renders it. An error after the status went
 * out can only end the body early, as upstream's. */
static void log_job_run(struct http_pipe *p, void *ud)
{
        struct log_job *j = ud;

        j->pipe = p;
        (void) runtime_log_read(j->log_path, &j->o, log_job_write, j, NULL);
}

/* Lower-cases the first letter of strerror's text, as Go's error strings read. */
static void respond_open_error(struct http_response *resp, const char *path, int errnum)
{
        cleanup_free char *cause = xstrdup(strerror(errnum));
        cleanup_free char *msg = NULL;

        if (cause[0] >= 'A' && cause[0] <= 'Z')
                cause[0] = (char) (cause[0] - 'A' + 'a');
        /* K8S kuberuntime ReadLogs */
        msg = xasprintf("failed to open log file \"%s\": open %s: %s", path, path, cause);
        http_response_text(resp, 400, msg);
}

static void serve_container_logs(struct kubelet_server *k, const char *ns, const char *pod,
                                 const char *container, const struct http_request *req,
                                 struct http_response *resp)
{
        cleanup_error struct error *err = NULL;
        cleanup_free char *state_dir = NULL, *log_path = NULL;
        struct runtime_log_options o;
        struct log_job *job;
        struct http_pipe *p = NULL;
        bool previous = false;
        int fd, r;

        if (decode_log_options(req, &o, &previous, resp) < 0)
                return;
        r = k->find_container(k->ud, ns, pod, container, previous, &state_dir, &err);
        if (r == -ESRCH) {
                cleanup_free char *msg = xasprintf("pod \"%s\" does not exist", pod);
                http_response_text(resp, 404, msg);
                return;
        }
        if (r == -ENOENT) {
                cleanup_free char *msg =
                        xasprintf("container \"%s\" not found in pod \"%s\"", container, pod);
                http_response_text(resp, 404, msg);
                return;
        }
        if (r < 0) {
                http_response_text(resp, 400, err ? err->message : strerror(-r));
                return;
        }
        log_path = runtime_container_log_path(state_dir);
        fd = open(log_path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
                respond_open_error(resp, log_path, errno);
                return;
        }
        (void) close(fd);

        job = xcalloc(1, sizeof(*job));
        job->log_path = TAKE_PTR(log_path);
        job->state_dir = TAKE_PTR(state_dir);
        job->o = o;
        job->o.state_dir = job->state_dir;
        job->o.idle = log_job_idle;
        r = http_pipe_start(log_job_run, job, log_job_free, &p, &err);
        if (r < 0) {
                http_response_text(resp, 500, err->message);
                return;
        }
        resp->status = 200;
        resp->content_type = "text/plain; charset=utf-8";
        http_pipe_stream(p, &resp->stream);
}

/* ------------------------------------------------------------------ exec and attach */

/* K8S server.go getExec/getAttach: the pod and container, then the streaming session
 * (kubelet-stream.c) on the container's current run. */
static void serve_stream(struct kubelet_server *k, enum kubelet_stream_kind kind, const char *ns,
                         const char *pod, const char *container, const struct http_request *req,
                         struct http_response *resp)
{
        cleanup_error struct error *err = NULL;
        cleanup_free char *state_dir = NULL;
        struct runtime_container_status st;
        int r = k->find_container(k->ud, ns, pod, container, false, &state_dir, &err);

        if (r == -ESRCH) {
                http_response_text(resp, 404, "pod does not exist");
                return;
        }
        if (r == -ENOENT) {
                cleanup_free char *msg = xasprintf("container not found (\"%s\")", container);
                http_response_text(resp, 404, msg);
                return;
        }
        if (r >= 0) {
                cleanup_error struct error *serr = NULL;

                r = runtime_container_state(state_dir, &st, &serr);
                if (r >= 0) {
                        bool running = st.phase == RUNTIME_CONTAINER_RUNNING;
                        runtime_container_status_release(&st);
                        r = running ? 0 : -EAGAIN;
                }
        }
        if (r < 0) {
                /* K8S: the runtime's words for a container that does not run */
                cleanup_free char *msg = xasprintf("container not found (\"%s\")", container);
                http_response_text(resp, 404, msg);
                return;
        }
        kubelet_stream_serve(kind, state_dir, req, resp);
}

/* ------------------------------------------------------------------ stats */

/* K8S pkg/kubelet/server/stats handler.go handleSummary: GET (and POST, which old clients
 * used) of the whole summary. */
static void serve_summary(struct kubelet_server *k, const struct http_request *req,
                          struct http_response *resp)
{
        cleanup_error struct error *err = NULL;
        cleanup_json json_t *summary = NULL;
        int r;

        if (!streq(req->method, "GET") && !streq(req->method, "POST")) {
                http_response_text(resp, 405, "Method Not Allowed");
                return;
        }
        r = k->summary(k->ud, &summary, &err);
        if (r < 0) {
                cleanup_free char *msg =
                        xasprintf("Internal Error: failed to get summary stats: %s",
                                  err ? err->message : strerror(-r));
                http_response_text(resp, 500, msg);
                return;
        }
        http_response_json(resp, 200, summary);
}

/* ------------------------------------------------------------------ port-forward */

/* K8S server.go getPortForward: /portForward/{ns}/{pod}[/{uid}] */
static void serve_portforward(struct kubelet_server *k, const struct http_request *req,
                              struct http_response *resp)
{
        cleanup_free char *rest = xstrdup(req->path + strlen(PORTFORWARD_PREFIX));
        cleanup_free char *sandbox_dir = NULL, *pod_id = NULL, *netns_path = NULL;
        cleanup_error struct error *err = NULL;
        char *slash = strchr(rest, '/'), *pod;
        int r;

        if (!streq(req->method, "GET") && !streq(req->method, "POST")) {
                http_response_text(resp, 405, "Method Not Allowed");
                return;
        }
        if (!k->find_pod || !slash || slash == rest) {
                http_response_text(resp, 404, "404 page not found\n");
                return;
        }
        *slash = '\0';
        pod = slash + 1;
        slash = strchr(pod, '/');
        if (slash)
                *slash = '\0'; /* the uid segment: the pod is found by name */
        if (!*pod || (slash && strchr(slash + 1, '/'))) {
                http_response_text(resp, 404, "404 page not found\n");
                return;
        }
        r = k->find_pod(k->ud, rest, pod, &sandbox_dir, &pod_id, &netns_path, &err);
        if (r == -ESRCH) {
                http_response_text(resp, 404, "pod does not exist");
                return;
        }
        if (r < 0) {
                http_response_text(resp, 500, err ? err->message : strerror(-r));
                return;
        }
        kubelet_portforward_serve(&(struct kubelet_portforward_target){ .sandbox_dir = sandbox_dir,
                                                                        .pod_id = pod_id,
                                                                        .netns_path = netns_path },
                                  req, resp);
}

/* ------------------------------------------------------------------ routing */

/* Compares in time that depends on the lengths only. */
static bool token_equal(const char *want, const char *got)
{
        size_t n = strlen(want), m = strlen(got);
        unsigned char diff = n != m;

        for (size_t i = 0; i < n; i++)
                diff |= (unsigned char) (want[i] ^ (i < m ? got[i] : 0));
        return diff == 0;
}

/* Whether the client certificate (DER, which the server verified against its client CA) names
 * system:masters among its organizations. */
static bool cert_is_masters(const unsigned char *der, size_t len)
{
        gnutls_datum_t d = { .data = (unsigned char *) der, .size = (unsigned) len };
        gnutls_x509_crt_t crt;
        bool masters = false;

        if (gnutls_x509_crt_init(&crt) < 0)
                return false;
        if (gnutls_x509_crt_import(crt, &d, GNUTLS_X509_FMT_DER) >= 0)
                for (unsigned i = 0; !masters; i++) {
                        char buf[256];
                        size_t size = sizeof(buf);

                        if (gnutls_x509_crt_get_dn_by_oid(crt, GNUTLS_OID_X520_ORGANIZATION_NAME, i,
                                                          0, buf, &size) < 0)
                                break;
                        masters = size == strlen("system:masters") &&
                                  memcmp(buf, "system:masters", size) == 0;
                }
        gnutls_x509_crt_deinit(crt);
        return masters;
}

static bool authenticated(const struct kubelet_server *k, const struct http_request *req)
{
        const char *a = req->authorization;

        if (k->token && a && strncasecmp(a, "Bearer ", 7) == 0 && token_equal(k->token, a + 7))
                return true;
        return k->client_certs && req->client_cert_der &&
               cert_is_masters(req->client_cert_der, req->client_cert_len);
}

/* Splits "ns/pod/container" (three non-empty segments, nothing after) in place. */
static int split3(char *s, char **a, char **b, char **c)
{
        char *p1 = strchr(s, '/'), *p2;

        if (!p1)
                return -EINVAL;
        p2 = strchr(p1 + 1, '/');
        if (!p2 || strchr(p2 + 1, '/'))
                return -EINVAL;
        *p1 = *p2 = '\0';
        *a = s;
        *b = p1 + 1;
        *c = p2 + 1;
        return **a && **b && **c ? 0 : -EINVAL;
}

static void kubelet_handle(void *ud, const struct http_request *req, struct http_response *resp)
{
        struct kubelet_server *k = ud;
        cleanup_free char *rest = NULL;
        char *ns, *pod, *container;

        if (streq(req->path, "/healthz")) {
                http_response_text(resp, 200, "ok");
                return;
        }
        if (!authenticated(k, req)) {
                http_response_text(resp, 401, "Unauthorized");
                return;
        }
        if (req->malformed) {
                http_response_text(resp, 400, req->malformed);
                return;
        }
        if (streq(req->path, STATS_SUMMARY_PATH) && k->summary) {
                serve_summary(k, req, resp);
                return;
        }
        if (strncmp(req->path, EXEC_PREFIX, strlen(EXEC_PREFIX)) == 0 ||
            strncmp(req->path, ATTACH_PREFIX, strlen(ATTACH_PREFIX)) == 0) {
                bool exec = req->path[1] == 'e';

                /* K8S: the kubelet serves both GET (WebSockets) and POST (SPDY) */
                if (!streq(req->method, "GET") && !streq(req->method, "POST")) {
                        http_response_text(resp, 405, "Method Not Allowed");
                        return;
                }
                rest = xstrdup(req->path + strlen(exec ? EXEC_PREFIX : ATTACH_PREFIX));
                if (split3(rest, &ns, &pod, &container) < 0) {
                        http_response_text(resp, 404, "404 page not found\n");
                        return;
                }
                serve_stream(k, exec ? KUBELET_STREAM_EXEC : KUBELET_STREAM_ATTACH, ns, pod,
                             container, req, resp);
                return;
        }
        if (strncmp(req->path, PORTFORWARD_PREFIX, strlen(PORTFORWARD_PREFIX)) == 0) {
                serve_portforward(k, req, resp);
                return;
        }
        if (strncmp(req->path, CONTAINER_LOGS_PREFIX, strlen(CONTAINER_LOGS_PREFIX)) != 0) {
                http_response_text(resp, 404, "404 page not found\n");
                return;
        }
        if (!streq(req->method, "GET")) {
                http_response_text(resp, 405, "Method Not Allowed");
                return;
        }
        rest = xstrdup(req->path + strlen(CONTAINER_LOGS_PREFIX));
        if (split3(rest, &ns, &pod, &container) < 0) {
                http_response_text(resp, 404, "404 page not found\n");
                return;
        }
        serve_container_logs(k, ns, pod, container, req, resp);
}

/* ------------------------------------------------------------------ lifecycle */

static void kubelet_free(struct kubelet_server *k)
{
        free(k->token);
        free(k);
}

int kubelet_server_start(const struct kubelet_server_options *o, struct kubelet_server **ret,
                         struct error **reterr)
{
        struct kubelet_server *k;
        int r;

        if ((!o->token || !*o->token) && !o->client_ca_pem)
                return error_set(reterr, EINVAL, "kubelet server: no token and no client CA");
        if (!o->find_container)
                return error_set(reterr, EINVAL, "kubelet server: no find_container");
        k = xcalloc(1, sizeof(*k));
        k->token = o->token && *o->token ? xstrdup(o->token) : NULL;
        k->client_certs = o->client_ca_pem != NULL;
        k->find_container = o->find_container;
        k->summary = o->summary;
        k->find_pod = o->find_pod;
        k->ud = o->ud;
        {
                struct http_server_options ho = { .listen = o->listen,
                                                  .cert_pem = o->cert_pem,
                                                  .key_pem = o->key_pem,
                                                  .client_ca_pem = o->client_ca_pem,
                                                  .handler = kubelet_handle,
                                                  .ud = k };
                r = http_server_start(&ho, &k->http, reterr);
        }
        if (r < 0) {
                kubelet_free(k);
                (void) error_wrap(reterr, "kubelet server");
                return r;
        }
        *ret = k;
        return 0;
}

unsigned kubelet_server_port(const struct kubelet_server *k)
{
        return http_server_port(k->http);
}

struct kubelet_server *kubelet_server_stop(struct kubelet_server *k)
{
        if (k) {
                http_server_stop(k->http);
                kubelet_free(k);
        }
        return NULL;
}
