/* pod-log.c: GET pods/{name}/log as kube-apiserver serves it (pkg/registry/core/pod/rest/log.go
 * and strategy.go LogLocation): PodLogOptions decoded and validated, the container chosen, the
 * node's kubelet found from the Node object, and its /containerLogs answer proxied back, the
 * body streamed as it comes (a proxy thread through http-pipe) and a kubelet error turned into
 * the Status upstream's response checker makes of it. What the kubelet serves is
 * node/kubelet-server.c's business. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "api/field-error.h"
#include "apiserver/apiserver-internal.h"
#include "apiserver/kubelet-client.h"
#include "apiserver/status.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/timeutil.h"
#include "client/client.h"
#include "http/http-pipe.h"
#include "store/store.h"

/* K8S genericrest maxReadLength: how much of a kubelet's error answer is read. */
#define KUBELET_ERROR_BODY_MAX 50000
/* A kubelet that took the connection but sends no status line within this is given up on
 * (the handler cannot see its own client leave while it waits). */
#define KUBELET_HEADER_TIMEOUT_S 60

/* PodLogOptions as the query carries them. */
struct log_options {
        const char *container;
        bool follow, previous, timestamps, insecure;
        bool has_tail, has_limit, has_since_seconds;
        long long tail, limit, since_seconds;
        const char *since_time; /* as given, validated */
        time_t since;
};

/* Status.details.kind of the 422: the options object, not the pod. */
static const struct api_resource pod_log_options_kind = { .group = "", .kind = "PodLogOptions" };

/* ------------------------------------------------------------------ options */

/* K8S apimachinery Convert_Slice_string_To_bool: "0" and "false" (any case) are false,
 * anything else present, an empty value included, is true. */
static bool query_bool(const struct http_request *req, const char *key)
{
        const char *v = http_request_query(req, key);

        return v && !streq(v, "0") && strcasecmp(v, "false") != 0;
}

/* An int64 parameter. 0 absent or empty, 1 set; a malformed value writes the 400 (the words
 * of Go's strconv, which kube-apiserver's parameter decoding returns) and gives -EINVAL. */
static int query_int64(const struct http_request *req, const char *key, long long *ret,
                       struct http_response *resp)
{
        const char *v = http_request_query(req, key);
        char *end;

        if (!v || !*v)
                return 0;
        errno = 0;
        *ret = strtoll(v, &end, 10);
        if (errno == ERANGE || *end || end == v) {
                cleanup_free char *msg =
                        xasprintf("strconv.ParseInt: parsing \"%s\": %s", v,
                                  errno == ERANGE ? "value out of range" : "invalid syntax");
                status_respond(resp, EINVAL, msg, NULL);
                return -EINVAL;
        }
        return 1;
}

static int decode_options(const struct http_request *req, struct log_options *o,
                          struct http_response *resp)
{
        int r;

        *o = (struct log_options){ 0 };
        o->container = http_request_query(req, "container");
        if (o->container && !*o->container)
                o->container = NULL;
        o->follow = query_bool(req, "follow");
        o->previous = query_bool(req, "previous");
        o->timestamps = query_bool(req, "timestamps");
        o->insecure = query_bool(req, "insecureSkipTLSVerifyBackend");
        if ((r = query_int64(req, "tailLines", &o->tail, resp)) < 0)
                return r;
        o->has_tail = r;
        if ((r = query_int64(req, "limitBytes", &o->limit, resp)) < 0)
                return r;
        o->has_limit = r;
        if ((r = query_int64(req, "sinceSeconds", &o->since_seconds, resp)) < 0)
                return r;
        o->has_since_seconds = r;
        o->since_time = http_request_query(req, "sinceTime");
        if (o->since_time && !*o->since_time)
                o->since_time = NULL;
        if (o->since_time && time_parse_rfc3339(o->since_time, &o->since) < 0) {
                cleanup_free char *msg = xasprintf(
                        "parsing time \"%s\" as \"2006-01-02T15:04:05Z07:00\": cannot parse \"%s\" as \"2006\"",
                        o->since_time, o->since_time);
                status_respond(resp, EINVAL, msg, NULL);
                return -EINVAL;
        }
        return 0;
}

/* K8S pkg/apis/core/validation ValidatePodLogOptions: 422 PodLogOptions "<name>" is invalid. */
static int validate_options(const struct log_options *o, const char *name,
                            struct http_response *resp)
{
        struct field_error_list errs;
        char v[32];

        field_error_list_init(&errs);
        if (o->has_tail && o->tail < 0) {
                (void) snprintf(v, sizeof(v), "%lld", o->tail);
                field_error_add(&errs, FIELD_ERROR_INVALID, "tailLines", v, "%s",
                                "must be greater than or equal to 0");
        }
        if (o->has_limit && o->limit < 1) {
                (void) snprintf(v, sizeof(v), "%lld", o->limit);
                field_error_add(&errs, FIELD_ERROR_INVALID, "limitBytes", v, "%s",
                                "must be greater than 0");
        }
        if (o->has_since_seconds && o->since_time) {
                field_error_add(&errs, FIELD_ERROR_FORBIDDEN, "", NULL, "%s",
                                "at most one of `sinceTime` or `sinceSeconds` may be specified");
        } else if (o->has_since_seconds && o->since_seconds < 1) {
                (void) snprintf(v, sizeof(v), "%lld", o->since_seconds);
                field_error_add(&errs, FIELD_ERROR_INVALID, "sinceSeconds", v, "%s",
                                "must be greater than 0");
        }
        if (errs.n == 0) {
                field_error_list_release(&errs);
                return 0;
        }
        status_invalid(resp, &pod_log_options_kind, name, &errs);
        field_error_list_release(&errs);
        return -EINVAL;
}

/* ------------------------------------------------------------------ the container */

/* Calls fn for every container name of the pod in upstream's VisitContainers order: init
 * containers, containers, ephemeral containers. */
static void visit_containers(const json_t *pod, void (*fn)(void *ud, const char *name), void *ud)
{
        static const char *const lists[] = { "spec.initContainers", "spec.containers",
                                             "spec.ephemeralContainers" };

        for (size_t l = 0; l < ARRAY_SIZE(lists); l++) {
                const json_t *arr = json_path(pod, lists[l]);
                const json_t *c;
                size_t i;

                json_array_foreach(arr, i, c) {
                        const char *name = json_string_value(json_object_get(c, "name"));
                        if (name)
                                fn(ud, name);
                }
        }
}

static void append_name(void *ud, const char *name)
{
        struct strbuf *sb = ud;

        if (sb->len > 1)
                strbuf_addch(sb, ' ');
        strbuf_addstr(sb, name);
}

struct name_search {
        const char *want;
        bool found;
};

static void match_name(void *ud, const char *name)
{
        struct name_search *n = ud;

        n->found |= streq(n->want, name);
}

/* K8S strategy.go validateContainer: the named container must exist in the pod (any kind);
 * without a name, a pod with a single container means that one. Writes the 400 and returns
 * NULL otherwise. */
const char *pod_choose_container(const json_t *pod, const char *name, const char *pod_name,
                                 struct http_response *resp)
{
        const json_t *containers = json_path(pod, "spec.containers");

        if (name) {
                struct name_search n = { .want = name };
                cleanup_free char *msg = NULL;

                visit_containers(pod, match_name, &n);
                if (n.found)
                        return name;
                msg = xasprintf("container %s is not valid for pod %s", name, pod_name);
                status_respond(resp, EINVAL, msg, NULL);
                return NULL;
        }
        if (json_array_size(containers) == 1) {
                const char *only =
                        json_string_value(json_object_get(json_array_get(containers, 0), "name"));
                if (only)
                        return only;
        }
        if (json_array_size(containers) == 0) {
                cleanup_free char *msg =
                        xasprintf("a container name must be specified for pod %s", pod_name);
                status_respond(resp, EINVAL, msg, NULL);
        } else {
                struct strbuf names;
                cleanup_free char *msg = NULL;

                /* K8S: Go's %s of a []string: "[a b c]", every kind of container */
                strbuf_init(&names);
                strbuf_addch(&names, '[');
                visit_containers(pod, append_name, &names);
                strbuf_addch(&names, ']');
                msg = xasprintf("a container name must be specified for pod %s, choose one of: %s",
                                pod_name, names.buf);
                status_respond(resp, EINVAL, msg, NULL);
                strbuf_release(&names);
        }
        return NULL;
}

/* ------------------------------------------------------------------ the kubelet */

/* "https://HOST:PORT" of node_name's kubelet; writes the error and returns NULL. */
char *pod_kubelet_url(struct apiserver *s, const char *node_name, struct http_response *resp)
{
        cleanup_error struct error *err = NULL;
        cleanup_json json_t *node = NULL;
        char *url;
        int r = store_get(s->store, "nodes", "", node_name, &node, &err);

        if (r == -ENOENT) {
                status_not_found(resp, api_resource_by_plural("", "nodes"), node_name);
                return NULL;
        }
        if (r < 0) {
                status_respond(resp, r, err ? err->message : strerror(-r), NULL);
                return NULL;
        }
        url = kubelet_node_url(node, &err);
        if (!url)
                status_respond(resp, EIO, err->message, NULL);
        return url;
}

/* K8S LogLocation: the kubelet's path and query, the parameters in url.Values.Encode order
 * (sorted by name). */
static char *kubelet_path(const char *ns, const char *pod, const char *container,
                          const struct log_options *o)
{
        struct strbuf sb;
        char sep = '?';

        strbuf_init(&sb);
        strbuf_addf(&sb, "/containerLogs/%s/%s/%s", ns, pod, container);
#define ADD(...)                 \
 do {                            \
  strbuf_addch(&sb, sep);        \
  strbuf_addf(&sb, __VA_ARGS__); \
  sep = '&';                     \
 } while (0)
        if (o->follow)
                ADD("follow=true");
        if (o->has_limit)
                ADD("limitBytes=%lld", o->limit);
        if (o->previous)
                ADD("previous=true");
        if (o->has_since_seconds)
                ADD("sinceSeconds=%lld", o->since_seconds);
        if (o->since_time) {
                char ts[32];
                time_format_rfc3339(o->since, ts);
                /* url.QueryEscape: ':' becomes %3A */
                strbuf_addch(&sb, sep);
                strbuf_addstr(&sb, "sinceTime=");
                for (const char *p = ts; *p; p++)
                        if (*p == ':')
                                strbuf_addstr(&sb, "%3A");
                        else
                                strbuf_addch(&sb, *p);
                sep = '&';
        }
        if (o->has_tail)
                ADD("tailLines=%lld", o->tail);
        if (o->timestamps)
                ADD("timestamps=true");
#undef ADD
        return strbuf_detach(&sb);
}

/* ------------------------------------------------------------------ the proxy */

/* One proxied request, shared by the handler and the proxy thread. */
struct log_proxy {
        pthread_mutex_t lock;
        int wake_fd; /* eventfd: signalled once the status is in and when the thread ends */
        /* written by the proxy thread under lock */
        long status; /* 0 until the kubelet's headers are in */
        bool done;
        int result;
        char *error;            /* the transfer's failure, when result < 0 */
        struct strbuf err_body; /* a non-2xx answer, up to KUBELET_ERROR_BODY_MAX */
        /* set before the thread starts */
        struct api_client_options co;
        char *server_url;
        char *path;
        struct http_pipe *pipe;
};

static bool status_ok(long status)
{
        /* K8S GenericHttpResponseChecker: 200 ... 206 pass through */
        return status >= 200 && status <= 206;
}

static void proxy_free(void *ud)
{
        struct log_proxy *x = ud;

        pthread_mutex_destroy(&x->lock);
        if (x->wake_fd >= 0)
                (void) close(x->wake_fd);
        free(x->error);
        strbuf_release(&x->err_body);
        free(x->server_url);
        free(x->path);
        free(x);
}

static int proxy_status(void *ud, long status)
{
        struct log_proxy *x = ud;

        pthread_mutex_lock(&x->lock);
        x->status = status;
        (void) eventfd_write(x->wake_fd, 1);
        pthread_mutex_unlock(&x->lock);
        return 0;
}

static int proxy_data(void *ud, const char *buf, size_t n)
{
        struct log_proxy *x = ud;
        size_t room;

        if (status_ok(x->status))
                return http_pipe_write(x->pipe, buf, n) < 0 ? 1 : 0;
        pthread_mutex_lock(&x->lock);
        room = KUBELET_ERROR_BODY_MAX - x->err_body.len;
        strbuf_add(&x->err_body, buf, n < room ? n : room);
        room = KUBELET_ERROR_BODY_MAX - x->err_body.len;
        pthread_mutex_unlock(&x->lock);
        return room == 0 ? 1 : 0;
}

static int proxy_idle(void *ud)
{
        struct log_proxy *x = ud;

        return http_pipe_cancelled(x->pipe) ? 1 : 0;
}

static const struct api_client_stream_ops proxy_ops = {
        .status = proxy_status,
        .data = proxy_data,
        .idle = proxy_idle,
};

/* K8S: how a Go client words a failed round trip: `Get "URL": dial tcp HOST:PORT: connect:
 * connection refused`; other causes keep the client's words. */
static char *transport_message(const struct log_proxy *x, int r, const char *detail)
{
        const char *hostport = x->server_url + strlen("https://");

        if (r == -ECONNREFUSED)
                return xasprintf("Get \"%s%s\": dial tcp %s: connect: connection refused",
                                 x->server_url, x->path, hostport);
        return xasprintf("Get \"%s%s\": %s", x->server_url, x->path, detail);
}

static void proxy_run(struct http_pipe *p, void *ud)
{
        struct log_proxy *x = ud;
        cleanup_error struct error *err = NULL;
        cleanup_api_client struct api_client *c = NULL;
        int r;

        x->pipe = p;
        x->co.server_url = x->server_url;
        r = api_client_new(&x->co, &c, &err);
        if (r >= 0)
                r = api_client_get_stream(c, x->path, &proxy_ops, x, &err);
        pthread_mutex_lock(&x->lock);
        x->result = r;
        if (r < 0) {
                /* the client's words after its "request "GET ...": " context */
                const char *m = err ? err->message : strerror(-r);
                const char *colon = strstr(m, "\": ");
                x->error = transport_message(x, r, colon ? colon + 3 : m);
        }
        x->done = true;
        (void) eventfd_write(x->wake_fd, 1);
        pthread_mutex_unlock(&x->lock);
}

/* Go's %q of a string, as NewGenericServerResponse quotes a 5xx body. */
static char *go_quote(const char *s, size_t n)
{
        struct strbuf sb;

        strbuf_init(&sb);
        strbuf_addch(&sb, '"');
        for (size_t i = 0; i < n; i++) {
                unsigned char c = (unsigned char) s[i];
                if (c == '"' || c == '\\')
                        strbuf_addf(&sb, "\\%c", c);
                else if (c == '\n')
                        strbuf_addstr(&sb, "\\n");
                else if (c == '\t')
                        strbuf_addstr(&sb, "\\t");
                else if (c == '\r')
                        strbuf_addstr(&sb, "\\r");
                else if (c < 0x20 || c == 0x7f)
                        strbuf_addf(&sb, "\\x%02x", c);
                else
                        strbuf_addch(&sb, (char) c);
        }
        strbuf_addch(&sb, '"');
        return strbuf_detach(&sb);
}

/* K8S genericrest GenericHttpResponseChecker.Check and errors.NewGenericServerResponse: what a
 * kubelet's error answer becomes, for resource pods/log and the pod's name. */
static void respond_kubelet_error(struct http_response *resp, long code, const char *body,
                                  size_t len, const char *name)
{
        static const struct {
                long code;
                int errnum;
                const char *message; /* NULL: the kubelet's body */
        } generic[] = {
                { 404, ENOENT, "the server could not find the requested resource" },
                { 401, EKEYREJECTED, "the server has asked for the client to provide credentials" },
                { 403, EPERM, NULL },
                { 409, ESTALE, "the server reported a conflict" },
                { 405, EOPNOTSUPP,
                  "the server does not allow this method on the requested resource" },
                { 422, EBADMSG, "the server rejected our request due to an error in our request" },
                { 504, ETIMEDOUT,
                  "the server was unable to return a response in the time allotted, but may still be processing the request" },
        };
        cleanup_free char *text = xstrndup(body, len);
        cleanup_free char *msg = NULL;
        int errnum = EIO;

        if (code == 500) {
                json_t *details = json_pack("{s:[{s:s}]}", "causes", "message", text);
                msg = xasprintf("Internal error occurred: %s", text);
                status_respond(resp, EIO, msg, details);
                return;
        }
        if (code == 400) {
                status_respond(resp, EINVAL, text, NULL);
                return;
        }
        for (size_t i = 0; i < ARRAY_SIZE(generic); i++) {
                if (generic[i].code != code)
                        continue;
                errnum = generic[i].errnum;
                msg = xasprintf("%s ( pods/log %s)", generic[i].message ? generic[i].message : text,
                                name);
        }
        if (!msg) {
                if (code > 500) {
                        cleanup_free char *q = go_quote(body, len);
                        msg = xasprintf("an error on the server (%s) has prevented the request "
                                        "from succeeding ( pods/log %s)",
                                        q, name);
                } else {
                        msg = xasprintf("the server responded with the status code %ld but did "
                                        "not return more information ( pods/log %s)",
                                        code, name);
                }
        }
        status_respond(resp, errnum, msg,
                       json_pack("{s:s, s:s}", "name", name, "kind", "pods/log"));
}

/* A proxied log whose kubelet has not answered yet: the HTTP server polls it (never waiting)
 * until the kubelet's status is in or the header timeout passes. */
struct log_pending {
        struct http_pipe *p; /* NULL once handed on (to the stream) or freed */
        struct log_proxy *x; /* the pipe's: valid while p is */
        int64_t deadline_ms;
        char *name;
};

static int log_pending_wake_fd(void *ctx)
{
        struct log_pending *lp = ctx;

        return lp->p ? lp->x->wake_fd : -1;
}

static void log_pending_free(void *ctx)
{
        struct log_pending *lp = ctx;

        http_pipe_free(lp->p);
        free(lp->name);
        free(lp);
}

/* Until the kubelet's status says stream, or its answer is complete: a 2xx answer becomes this
 * response's stream, anything else its Status. */
static bool log_pending_poll(void *ctx, struct http_response *resp)
{
        struct log_pending *lp = ctx;
        struct log_proxy *x = lp->x;
        cleanup_free char *msg = NULL, *body = NULL;
        size_t body_len = 0;
        eventfd_t drained;
        int errnum = EIO;
        long status;

        /* cleared before looking, so a change after the look wakes the next poll */
        (void) eventfd_read(x->wake_fd, &drained);
        pthread_mutex_lock(&x->lock);
        status = x->status;
        if (status_ok(status)) {
                pthread_mutex_unlock(&x->lock);
                resp->status = 200;
                resp->content_type = "text/plain";
                http_pipe_stream(lp->p, &resp->stream);
                lp->p = NULL;
                return true;
        }
        if (!x->done && time_monotonic_ms() < lp->deadline_ms) {
                pthread_mutex_unlock(&x->lock);
                return false;
        }
        if (status == 0 && !x->done) {
                /* K8S: Go's http.Transport words for a response header timeout */
                errnum = ETIMEDOUT;
                msg = xasprintf("Get \"%s%s\": net/http: timeout awaiting response headers",
                                x->server_url, x->path);
        } else if (status == 0) {
                /* the kubelet was not reached: upstream's error is not a Status either */
                msg = xstrdup(x->error ? x->error : "kubelet: no answer");
        } else {
                body_len = x->err_body.len;
                body = xmalloc(body_len + 1);
                memcpy(body, x->err_body.buf, body_len + 1);
        }
        pthread_mutex_unlock(&x->lock);
        lp->p = http_pipe_free(lp->p);
        if (msg)
                status_respond(resp, errnum, msg, NULL);
        else
                respond_kubelet_error(resp, status, body, body_len, lp->name);
        return true;
}

/* Starts the proxy; the response waits (pending, holding no thread of the server) for the
 * kubelet's status. */
static void proxy_log(struct apiserver *s, char *server_url, char *path, bool insecure,
                      const char *name, struct http_response *resp)
{
        cleanup_error struct error *err = NULL;
        struct log_proxy *x = xcalloc(1, sizeof(*x));
        struct log_pending *lp;
        struct http_pipe *p = NULL;

        pthread_mutex_init(&x->lock, NULL);
        strbuf_init(&x->err_body);
        x->server_url = server_url;
        x->path = path;
        x->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        x->co = kubelet_client_options(s, insecure);
        if (x->wake_fd < 0) {
                int e = errno;

                proxy_free(x);
                status_respond(resp, EIO, strerror(e), NULL);
                return;
        }
        if (http_pipe_start(proxy_run, x, proxy_free, &p, &err) < 0) {
                status_respond(resp, EIO, err->message, NULL);
                return;
        }
        lp = xcalloc(1, sizeof(*lp));
        lp->p = p;
        lp->x = x;
        lp->deadline_ms = time_monotonic_ms() + KUBELET_HEADER_TIMEOUT_S * 1000;
        lp->name = xstrdup(name);
        resp->pending = (struct http_pending){ .poll = log_pending_poll,
                                               .free = log_pending_free,
                                               .ctx = lp,
                                               .wake_fd = log_pending_wake_fd };
}

void pod_log_get(struct apiserver *s, const struct api_target *t, const struct http_request *req,
                 struct http_response *resp)
{
        cleanup_error struct error *err = NULL;
        cleanup_json json_t *pod = NULL;
        struct log_options o;
        const char *container, *node;
        char *url, *path;
        int r;

        if (decode_options(req, &o, resp) < 0 || validate_options(&o, t->name, resp) < 0)
                return;
        r = store_get(s->store, t->res->plural, t->ns, t->name, &pod, &err);
        if (r == -ENOENT) {
                status_not_found(resp, t->res, t->name);
                return;
        }
        if (r < 0) {
                status_respond(resp, r, err ? err->message : strerror(-r), NULL);
                return;
        }
        container = pod_choose_container(pod, o.container, t->name, resp);
        if (!container)
                return;
        node = json_path_string(pod, "spec.nodeName");
        if (!node || !*node) {
                /* K8S: no host yet, no location: an empty answer (204) */
                resp->status = 204;
                resp->content_type = "text/plain";
                return;
        }
        url = pod_kubelet_url(s, node, resp);
        if (!url)
                return;
        path = kubelet_path(t->ns, t->name, container, &o);
        proxy_log(s, url, path, o.insecure, t->name, resp);
}
