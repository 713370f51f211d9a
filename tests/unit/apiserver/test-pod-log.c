/* test-pod-log.c: GET pods/{name}/log through api_handle() over a real store, with the node's
 * "kubelet" an HTTPS server on a random loopback port (certificate from a throwaway cluster CA)
 * that echoes what it was asked or answers canned errors. Checks upstream's rules: option
 * decoding (400) and validation (422 PodLogOptions), container choice and its messages, 204
 * for a pod without a node, the Node's address and daemonEndpoints port, the query sent to the
 * kubelet and its token, the body streamed, a kubelet error turned into the Status upstream's
 * response checker makes, transport and TLS failures, the stream's end when the client goes,
 * and discovery of pods/log. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <ftw.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apiserver/api.h"
#include "apiserver/pki.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/strbuf.h"
#include "base/timeutil.h"
#include "http/http-server.h"
#include "store/store.h"

#define KUBELET_TOKEN "kubelet-client-token"

/* ---- the fake kubelet ---- */

/* the "quiet" streams the fake kubelet has freed: counted apart from the "slow" ones, whose
 * frees from earlier tests can land late under a sanitizer */
static atomic_int kubelet_quiet_streams_freed;

struct slow_lines {
        int n, next;
};

static ssize_t slow_read(void *ctx, char *buf, size_t max)
{
        struct slow_lines *l = ctx;

        if (l->n < 0) { /* forever quiet after one line */
                if (l->next++ == 0)
                        return snprintf(buf, max, "first\n");
                usleep(100000);
                return 0;
        }
        if (l->next >= l->n)
                return -1;
        usleep(100000);
        return snprintf(buf, max, "line %d\n", l->next++);
}

static void slow_free(void *ctx)
{
        struct slow_lines *l = ctx;

        if (l->n < 0)
                atomic_fetch_add(&kubelet_quiet_streams_freed, 1);
        free(l);
}

/* /containerLogs/<ns>/<pod>/<container>: container "echo" answers with what it received;
 * "eNNN" answers status NNN with a canned body; "slow" streams lines; "quiet" one line, then
 * nothing until the client goes. */
static void kubelet_handler(void *ud, const struct http_request *req, struct http_response *resp)
{
        const char *c = strrchr(req->path, '/') + 1;
        struct strbuf sb;
        int code;

        if (streq(c, "slow") || streq(c, "quiet")) {
                struct slow_lines *l = xcalloc(1, sizeof(*l));
                l->n = streq(c, "slow") ? 3 : -1;
                resp->status = 200;
                resp->content_type = "text/plain";
                resp->stream =
                        (struct http_stream){ .read = slow_read, .free = slow_free, .ctx = l };
                return;
        }
        if (sscanf(c, "e%d", &code) == 1) {
                http_response_text(resp, (unsigned) code,
                                   code == 500   ? "boom \"x\""
                                   : code == 503 ? "down\nfor \"maintenance\""
                                                 : "container \"c\" in pod \"p\" is waiting to "
                                                   "start: ContainerCreating");
                return;
        }
        strbuf_init(&sb);
        strbuf_addf(&sb, "%s %s %s", req->method, req->path,
                    req->authorization ? req->authorization : "-");
        for (size_t i = 0; i < req->n_query; i++)
                strbuf_addf(&sb, "%c%s=%s", i ? '&' : '?', req->query[i].key,
                            req->query[i].value ? req->query[i].value : "");
        http_response_text(resp, 200, sb.buf);
        strbuf_release(&sb);
}

/* ---- the fixture ---- */

struct fixture {
        char dir[64];
        char *ca_file;
        char *other_ca_file;
        struct pki *pki;
        struct store *store;
        struct apiserver *api;
        struct http_server *kubelet;
        unsigned kubelet_port;
        struct http_server *kubelet6; /* the same on [::1] */
        unsigned kubelet6_port;
};

static struct fixture *fx;

static struct pki *make_pki(const char *data)
{
        static const char *const ips[] = { "127.0.0.1", "::1", NULL };
        struct pki_options o = { .data_dir = data,
                                 .ip_addresses = ips,
                                 .server_url = "https://127.0.0.1:1" };
        cleanup_error struct error *err = NULL;
        struct pki *p = NULL;

        if (pki_ensure(&o, &p, &err) < 0)
                fail_msg("pki_ensure: %s", err->message);
        return p;
}

static int setup(void **state)
{
        cleanup_free char *db = NULL, *data = NULL, *other = NULL;
        cleanup_error struct error *err = NULL;

        fx = xcalloc(1, sizeof(*fx));
        strcpy(fx->dir, "/tmp/flexlet-test-pod-log.XXXXXX");
        assert_non_null(mkdtemp(fx->dir));
        data = xasprintf("%s/data", fx->dir);
        other = xasprintf("%s/other", fx->dir);
        fx->pki = make_pki(data);
        pki_free(make_pki(other));
        fx->ca_file = xasprintf("%s/pki/ca.crt", data);
        fx->other_ca_file = xasprintf("%s/pki/ca.crt", other);
        db = xasprintf("%s/store.db", fx->dir);
        assert_int_equal(store_open_sqlite(db, &fx->store, &err), 0);
        {
                struct apiserver_options o = { .node_name = "n1",
                                               .listen = "127.0.0.1:6443",
                                               .kubelet_ca_file = fx->ca_file,
                                               .kubelet_token = KUBELET_TOKEN };
                assert_int_equal(apiserver_new(fx->store, NULL, &o, &fx->api), 0);
        }
        {
                struct http_server_options o = { .listen = "127.0.0.1:0",
                                                 .cert_pem = pki_server_cert_pem(fx->pki),
                                                 .key_pem = pki_server_key_pem(fx->pki),
                                                 .handler = kubelet_handler };
                assert_int_equal(http_server_start(&o, &fx->kubelet, NULL), 0);
                fx->kubelet_port = http_server_port(fx->kubelet);
                o.listen = "[::1]:0";
                assert_int_equal(http_server_start(&o, &fx->kubelet6, NULL), 0);
                fx->kubelet6_port = http_server_port(fx->kubelet6);
        }
        *state = fx;
        return 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
        return remove(path);
}

static int teardown(void **state)
{
        http_server_stop(fx->kubelet);
        http_server_stop(fx->kubelet6);
        apiserver_free(fx->api);
        store_close(fx->store);
        pki_free(fx->pki);
        nftw(fx->dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        free(fx->ca_file);
        free(fx->other_ca_file);
        free(fx);
        return 0;
}

/* ---- requests ---- */

/* Issues one request (query "a=b&c=d", unescaped); a streamed body is read to its end. */
static unsigned call_full(const char *method, const char *path, const char *query, const char *body,
                          struct strbuf *ret_body, json_t **ret_json, const char **ret_content_type)
{
        struct http_query_param params[16];
        cleanup_free char *q = query ? xstrdup(query) : NULL;
        struct http_request req = { .method = method,
                                    .path = path,
                                    .content_type = body ? "application/json" : NULL,
                                    .body = body,
                                    .body_len = body ? strlen(body) : 0,
                                    .query = params };
        struct http_response resp;
        unsigned status;
        char *save = NULL;

        for (char *kv = q ? strtok_r(q, "&", &save) : NULL; kv; kv = strtok_r(NULL, "&", &save)) {
                char *eq = strchr(kv, '=');
                params[req.n_query].key = kv;
                params[req.n_query].value = eq ? (*eq = '\0', eq + 1) : "";
                req.n_query++;
        }
        http_response_init(&resp);
        api_handle(fx->api, &req, &resp);
        http_response_wait(&resp); /* the kubelet's answer may still be pending */
        status = resp.status;
        if (ret_content_type)
                *ret_content_type = resp.content_type;
        if (resp.stream.read) {
                char buf[4096];
                ssize_t n;
                while ((n = resp.stream.read(resp.stream.ctx, buf, sizeof(buf))) >= 0)
                        strbuf_add(&resp.body, buf, (size_t) n);
        }
        if (ret_body)
                strbuf_add(ret_body, resp.body.buf, resp.body.len);
        if (ret_json)
                *ret_json = json_loads(resp.body.buf, 0, NULL);
        http_response_release(&resp);
        return status;
}

static void post(const char *path, const char *body)
{
        cleanup_json json_t *j = NULL;
        unsigned code = call_full("POST", path, NULL, body, NULL, &j, NULL);

        if (code != 201) {
                cleanup_free char *t = json_dump_compact(j);
                fail_msg("POST %s: %u %s", path, code, t);
        }
}

/* Expects a Status with code and message. */
static void expect_status(const char *pod, const char *query, unsigned code, const char *reason,
                          const char *message)
{
        cleanup_free char *path = xasprintf("/api/v1/namespaces/default/pods/%s/log", pod);
        cleanup_json json_t *j = NULL;
        unsigned got = call_full("GET", path, query, NULL, NULL, &j, NULL);

        if (got != code || !streq(json_path_string(j, "message") ?: "", message) ||
            !streq(json_path_string(j, "reason") ?: "", reason)) {
                cleanup_free char *t = json_dump_compact(j);
                fail_msg("GET %s?%s: %u %s\nwant %u %s %s", path, query ? query : "", got, t, code,
                         reason, message);
        }
}

/* Expects 200 text/plain with body. */
static void expect_log(const char *pod, const char *query, const char *want)
{
        cleanup_free char *path = xasprintf("/api/v1/namespaces/default/pods/%s/log", pod);
        struct strbuf body;
        const char *ct = NULL;
        unsigned got;

        strbuf_init(&body);
        got = call_full("GET", path, query, NULL, &body, NULL, &ct);
        if (got != 200 || !streq(body.buf, want))
                fail_msg("GET %s?%s: %u \"%s\"\nwant 200 \"%s\"", path, query ? query : "", got,
                         body.buf, want);
        assert_string_equal(ct, "text/plain");
        strbuf_release(&body);
}

static void make_node(const char *name, const char *addresses, int port)
{
        cleanup_free char *body =
                xasprintf("{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"%s\"},"
                          "\"status\":{\"addresses\":%s,\"daemonEndpoints\":{\"kubeletEndpoint\":"
                          "{\"Port\":%d}}}}",
                          name, addresses, port);
        cleanup_free char *path = xasprintf("/api/v1/nodes/%s/status", name);
        cleanup_json json_t *j = NULL;

        post("/api/v1/nodes", body);
        /* status through its subresource, as a node agent writes it */
        assert_int_equal(call_full("GET", path, NULL, NULL, NULL, &j, NULL), 200);
        json_object_set_new(j, "status",
                            json_pack("{s:o, s:{s:{s:i}}}", "addresses",
                                      json_loads(addresses, 0, NULL), "daemonEndpoints",
                                      "kubeletEndpoint", "Port", port));
        {
                cleanup_free char *put = json_dump_compact(j);
                assert_int_equal(call_full("PUT", path, NULL, put, NULL, NULL, NULL), 200);
        }
}

static void make_pod(const char *name, const char *node, const char *containers, const char *init)
{
        cleanup_free char *spec_node = node ? xasprintf(",\"nodeName\":\"%s\"", node) : xstrdup("");
        cleanup_free char *spec_init =
                init ? xasprintf(",\"initContainers\":%s", init) : xstrdup("");
        cleanup_free char *body =
                xasprintf("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\"},"
                          "\"spec\":{\"containers\":%s%s%s}}",
                          name, containers, spec_init, spec_node);

        post("/api/v1/namespaces/default/pods", body);
}

#define C(n) "{\"name\":\"" n "\",\"image\":\"busybox\"}"

static bool made;

static void make_world(void)
{
        char addrs[128];

        if (made)
                return;
        made = true;
        post("/api/v1/namespaces",
             "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"default\"}}");
        /* what the serviceaccounts controller (not running here) would create: pods need it */
        post("/api/v1/namespaces/default/serviceaccounts",
             "{\"apiVersion\":\"v1\",\"kind\":\"ServiceAccount\",\"metadata\":{\"name\":\"default\"}}");
        /* the kubelet of n1 answers on its published port; Hostname comes first but
         * InternalIP is preferred */
        snprintf(addrs, sizeof(addrs),
                 "[{\"type\":\"Hostname\",\"address\":\"no-such-host.invalid\"},"
                 "{\"type\":\"InternalIP\",\"address\":\"127.0.0.1\"}]");
        make_node("n1", addrs, (int) fx->kubelet_port);
        /* n6: IPv6 InternalIP */
        make_node("n6", "[{\"type\":\"InternalIP\",\"address\":\"::1\"}]", (int) fx->kubelet6_port);
        /* closed: a port where nothing listens */
        make_node("closed", "[{\"type\":\"InternalIP\",\"address\":\"127.0.0.1\"}]", 1);
        make_node("bare", "[]", 10250);
        make_pod("one", "n1", "[" C("echo") "]", NULL);
        make_pod("multi", "n1", "[" C("a") "," C("b") "]", "[" C("init1") "]");
        make_pod("empty-spec", NULL, "[" C("x") "," C("y") "]", NULL);
        make_pod("unscheduled", NULL, "[" C("c") "]", NULL);
        make_pod("lost", "gone", "[" C("c") "]", NULL);
        make_pod("noaddr", "bare", "[" C("c") "]", NULL);
        make_pod("v6", "n6", "[" C("echo") "]", NULL);
        make_pod("refused", "closed", "[" C("c") "]", NULL);
        make_pod(
                "errs", "n1",
                "[" C("e400") "," C("e401") "," C("e403") "," C("e404") "," C("e405") "," C("e422") "," C(
                        "e500") "," C("e503") "," C("e418") "," C("slow") "," C("quiet") "]",
                NULL);
}

/* ---- tests ---- */

static void test_options_decoding_and_validation(void **state)
{
        make_world();
        expect_status("one", "tailLines=abc", 400, "BadRequest",
                      "strconv.ParseInt: parsing \"abc\": invalid syntax");
        expect_status("one", "limitBytes=99999999999999999999", 400, "BadRequest",
                      "strconv.ParseInt: parsing \"99999999999999999999\": value out of range");
        expect_status("one", "sinceTime=yesterday", 400, "BadRequest",
                      "parsing time \"yesterday\" as \"2006-01-02T15:04:05Z07:00\": cannot parse "
                      "\"yesterday\" as \"2006\"");
        expect_status("one", "tailLines=-1", 422, "Invalid",
                      "PodLogOptions \"one\" is invalid: tailLines: Invalid value: -1: must be "
                      "greater than or equal to 0");
        expect_status("one", "limitBytes=0", 422, "Invalid",
                      "PodLogOptions \"one\" is invalid: limitBytes: Invalid value: 0: must be "
                      "greater than 0");
        expect_status("one", "sinceSeconds=0&tailLines=-2", 422, "Invalid",
                      "PodLogOptions \"one\" is invalid: [tailLines: Invalid value: -2: must be "
                      "greater than or equal to 0, sinceSeconds: Invalid value: 0: must be "
                      "greater than 0]");
        /* validation comes before the pod is looked up */
        expect_status("nope", "limitBytes=-5", 422, "Invalid",
                      "PodLogOptions \"nope\" is invalid: limitBytes: Invalid value: -5: must be "
                      "greater than 0");
        {
                cleanup_json json_t *j = NULL;
                assert_int_equal(call_full("GET", "/api/v1/namespaces/default/pods/one/log",
                                           "tailLines=-1", NULL, NULL, &j, NULL),
                                 422);
                assert_string_equal(json_path_string(j, "details.kind"), "PodLogOptions");
                assert_string_equal(json_path_string(j, "details.name"), "one");
                assert_string_equal(
                        json_string_value(json_object_get(
                                json_array_get(json_path(j, "details.causes"), 0), "field")),
                        "tailLines");
        }
}

static void test_pod_and_container(void **state)
{
        make_world();
        expect_status("nope", NULL, 404, "NotFound", "pods \"nope\" not found");
        expect_status("multi", NULL, 400, "BadRequest",
                      "a container name must be specified for pod multi, choose one of: "
                      "[init1 a b]");
        expect_status("multi", "container=zz", 400, "BadRequest",
                      "container zz is not valid for pod multi");
        /* an empty name is no name */
        expect_log("one",
                   "container=", "GET /containerLogs/default/one/echo Bearer " KUBELET_TOKEN);
}

static void test_pod_and_container_accepts(void **state)
{
        make_world();
        /* a single container is the default; an init container may be named */
        expect_log("one", NULL, "GET /containerLogs/default/one/echo Bearer " KUBELET_TOKEN);
        expect_log("multi", "container=init1",
                   "GET /containerLogs/default/multi/init1 Bearer " KUBELET_TOKEN);
        expect_log("multi", "container=b",
                   "GET /containerLogs/default/multi/b Bearer " KUBELET_TOKEN);
}

static void test_unscheduled_and_nodes(void **state)
{
        struct strbuf body;

        make_world();
        strbuf_init(&body);
        /* K8S: a pod without a node has no log location: 204, nothing */
        assert_int_equal(call_full("GET", "/api/v1/namespaces/default/pods/unscheduled/log", NULL,
                                   NULL, &body, NULL, NULL),
                         204);
        assert_int_equal(body.len, 0);
        strbuf_release(&body);
        /* the container is checked first */
        expect_status("empty-spec", NULL, 400, "BadRequest",
                      "a container name must be specified for pod empty-spec, choose one of: "
                      "[x y]");
        expect_status("lost", NULL, 404, "NotFound", "nodes \"gone\" not found");
        expect_status("noaddr", NULL, 500, "InternalError",
                      "no preferred addresses found; known addresses: []");
}

static void test_query_sent_to_the_kubelet(void **state)
{
        make_world();
        /* K8S LogLocation: the set options, sorted by name; sinceTime in RFC 3339 */
        expect_log("one",
                   "timestamps=true&tailLines=10&previous=1&limitBytes=100&follow=true&"
                   "container=echo&insecureSkipTLSVerifyBackend=false",
                   "GET /containerLogs/default/one/echo Bearer " KUBELET_TOKEN
                   "?follow=true&limitBytes=100&previous=true&tailLines=10&timestamps=true");
        expect_log("one", "sinceSeconds=30&timestamps=false&follow=0",
                   "GET /containerLogs/default/one/echo Bearer " KUBELET_TOKEN "?sinceSeconds=30");
        expect_log("one", "sinceTime=2025-03-01T01:00:00+01:00",
                   "GET /containerLogs/default/one/echo Bearer " KUBELET_TOKEN
                   "?sinceTime=2025-03-01T00:00:00Z");
        expect_log("one", "tailLines=0",
                   "GET /containerLogs/default/one/echo Bearer " KUBELET_TOKEN "?tailLines=0");
        /* an IPv6 node address */
        expect_log("v6", NULL, "GET /containerLogs/default/v6/echo Bearer " KUBELET_TOKEN);
}

static void test_kubelet_errors(void **state)
{
        make_world();
        /* K8S GenericHttpResponseChecker */
        expect_status("errs", "container=e400", 400, "BadRequest",
                      "container \"c\" in pod \"p\" is waiting to start: ContainerCreating");
        expect_status("errs", "container=e404", 404, "NotFound",
                      "the server could not find the requested resource ( pods/log errs)");
        expect_status("errs", "container=e401", 401, "Unauthorized",
                      "the server has asked for the client to provide credentials ( pods/log "
                      "errs)");
        expect_status("errs", "container=e403", 403, "Forbidden",
                      "container \"c\" in pod \"p\" is waiting to start: ContainerCreating ( "
                      "pods/log errs)");
        expect_status("errs", "container=e405", 405, "MethodNotAllowed",
                      "the server does not allow this method on the requested resource ( "
                      "pods/log errs)");
        expect_status("errs", "container=e422", 422, "Invalid",
                      "the server rejected our request due to an error in our request ( pods/log "
                      "errs)");
        expect_status("errs", "container=e500", 500, "InternalError",
                      "Internal error occurred: boom \"x\"");
        expect_status("errs", "container=e503", 500, "InternalError",
                      "an error on the server (\"down\\nfor \\\"maintenance\\\"\") has prevented "
                      "the request from succeeding ( pods/log errs)");
        expect_status("errs", "container=e418", 500, "InternalError",
                      "the server responded with the status code 418 but did not return more "
                      "information ( pods/log errs)");
        {
                cleanup_json json_t *j = NULL;
                assert_int_equal(call_full("GET", "/api/v1/namespaces/default/pods/errs/log",
                                           "container=e404", NULL, NULL, &j, NULL),
                                 404);
                assert_string_equal(json_path_string(j, "details.kind"), "pods/log");
                assert_string_equal(json_path_string(j, "details.name"), "errs");
        }
}

static void test_transport_failures(void **state)
{
        cleanup_json json_t *j = NULL;
        const char *msg;

        make_world();
        expect_status("refused", NULL, 500, "InternalError",
                      "Get \"https://127.0.0.1:1/containerLogs/default/refused/c\": dial tcp "
                      "127.0.0.1:1: connect: connection refused");
        /* a kubelet whose certificate the configured CA did not sign */
        apiserver_free(fx->api);
        {
                struct apiserver_options o = { .node_name = "n1",
                                               .listen = "127.0.0.1:6443",
                                               .kubelet_ca_file = fx->other_ca_file,
                                               .kubelet_token = KUBELET_TOKEN };
                assert_int_equal(apiserver_new(fx->store, NULL, &o, &fx->api), 0);
        }
        assert_int_equal(call_full("GET", "/api/v1/namespaces/default/pods/one/log", NULL, NULL,
                                   NULL, &j, NULL),
                         500);
        msg = json_path_string(j, "message");
        assert_non_null(msg);
        {
                cleanup_free char *want =
                        xasprintf("Get \"https://127.0.0.1:%u/containerLogs/default/one/echo\": ",
                                  fx->kubelet_port);
                assert_true(strncmp(msg, want, strlen(want)) == 0);
        }
        /* unless the client asks not to verify the kubelet */
        expect_log("one", "insecureSkipTLSVerifyBackend=true",
                   "GET /containerLogs/default/one/echo Bearer " KUBELET_TOKEN);
        apiserver_free(fx->api);
        {
                struct apiserver_options o = { .node_name = "n1",
                                               .listen = "127.0.0.1:6443",
                                               .kubelet_ca_file = fx->ca_file,
                                               .kubelet_token = KUBELET_TOKEN };
                assert_int_equal(apiserver_new(fx->store, NULL, &o, &fx->api), 0);
        }
}

static void test_streamed_body(void **state)
{
        make_world();
        expect_log("errs", "container=slow&follow=true", "line 0\nline 1\nline 2\n");
}

static void test_client_going_away_ends_the_proxy(void **state)
{
        struct http_query_param q[] = { { "container", "quiet" }, { "follow", "true" } };
        struct http_request req = { .method = "GET",
                                    .path = "/api/v1/namespaces/default/pods/errs/log",
                                    .query = q,
                                    .n_query = 2 };
        struct http_response resp;
        int freed = atomic_load(&kubelet_quiet_streams_freed);
        struct strbuf got;
        char buf[256];
        ssize_t n;
        int64_t deadline = time_monotonic_ms() + 5000;

        make_world();
        strbuf_init(&got);
        http_response_init(&resp);
        api_handle(fx->api, &req, &resp);
        http_response_wait(&resp);
        assert_int_equal(resp.status, 200);
        assert_non_null(resp.stream.read);
        while (!strchr(got.buf, '\n') && time_monotonic_ms() < deadline) {
                n = resp.stream.read(resp.stream.ctx, buf, sizeof(buf));
                assert_true(n >= 0);
                strbuf_add(&got, buf, (size_t) n);
        }
        assert_string_equal(got.buf, "first\n");
        /* nothing more comes; the client goes */
        assert_int_equal(resp.stream.read(resp.stream.ctx, buf, sizeof(buf)), 0);
        http_response_release(&resp);
        /* the proxy thread is joined by now and its connection to the kubelet closed: the
         * kubelet's own stream ends */
        deadline = time_monotonic_ms() + 3000;
        while (atomic_load(&kubelet_quiet_streams_freed) == freed && time_monotonic_ms() < deadline)
                usleep(20000);
        assert_int_equal(atomic_load(&kubelet_quiet_streams_freed), freed + 1);
        strbuf_release(&got);
}

static void test_methods_and_discovery(void **state)
{
        cleanup_json json_t *j = NULL, *list = NULL;
        json_t *r;
        size_t i;
        bool found = false;

        make_world();
        assert_int_equal(call_full("POST", "/api/v1/namespaces/default/pods/one/log", NULL, "{}",
                                   NULL, &j, NULL),
                         405);
        assert_int_equal(call_full("GET", "/api/v1", NULL, NULL, NULL, &list, NULL), 200);
        json_array_foreach(json_object_get(list, "resources"), i, r) {
                if (!streq(json_path_string(r, "name"), "pods/log"))
                        continue;
                found = true;
                assert_string_equal(json_path_string(r, "kind"), "Pod");
                assert_int_equal(json_array_size(json_object_get(r, "verbs")), 1);
                assert_string_equal(
                        json_string_value(json_array_get(json_object_get(r, "verbs"), 0)), "get");
        }
        assert_true(found);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_options_decoding_and_validation),
                cmocka_unit_test(test_pod_and_container),
                cmocka_unit_test(test_pod_and_container_accepts),
                cmocka_unit_test(test_unscheduled_and_nodes),
                cmocka_unit_test(test_query_sent_to_the_kubelet),
                cmocka_unit_test(test_kubelet_errors),
                cmocka_unit_test(test_transport_failures),
                cmocka_unit_test(test_streamed_body),
                cmocka_unit_test(test_client_going_away_ends_the_proxy),
                cmocka_unit_test(test_methods_and_discovery),
        };

        return cmocka_run_group_tests(tests, setup, teardown);
}
