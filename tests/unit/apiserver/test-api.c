/* test-api.c: the API server's request handling end to end but in process: api_handle() over
 * a real SQLite store in a temporary directory, no HTTP. Covers routing, Status errors,
 * create/get/list/update/patch/delete, the resize subresource, Tables, watch streams,
 * discovery and OpenAPI. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apiserver/api.h"
#include "base/alloc.h"
#include "base/hash.h"
#include "base/json.h"
#include "base/metrics.h"
#include "store/store.h"

struct fixture {
        char dir[64];
        struct store *store;
        struct apiserver *api;
};

static struct fixture *fx;

static int setup(void **state)
{
        struct apiserver_options o = { .node_name = "n1", .listen = "127.0.0.1:6443" };
        cleanup_free char *db = NULL;
        struct error *err = NULL;

        fx = xcalloc(1, sizeof(*fx));
        strcpy(fx->dir, "/tmp/flexlet-test-api.XXXXXX");
        assert_non_null(mkdtemp(fx->dir));
        db = xasprintf("%s/store.db", fx->dir);
        assert_int_equal(store_open_sqlite(db, &fx->store, &err), 0);
        assert_int_equal(apiserver_new(fx->store, NULL, &o, &fx->api), 0);
        *state = fx;
        return 0;
}

static int teardown(void **state)
{
        cleanup_free char *cmd = xasprintf("rm -rf '%s'", fx->dir);

        apiserver_free(fx->api);
        store_close(fx->store);
        assert_int_equal(system(cmd), 0);
        free(fx);
        return 0;
}

/* Issues one request; query is "a=b&c=d" (no escaping needed in these tests). */
static unsigned call(const char *method, const char *path, const char *query, const char *accept,
                     const char *content_type, const char *body, json_t **ret_json)
{
        struct http_query_param params[16];
        cleanup_free char *q = query ? xstrdup(query) : NULL;
        struct http_request req = { .method = method,
                                    .path = path,
                                    .accept = accept,
                                    .content_type = content_type,
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
        status = resp.status;
        if (ret_json)
                *ret_json = resp.stream.read ? NULL : json_loads(resp.body.buf, 0, NULL);
        http_response_release(&resp);
        return status;
}

static const char *pod_json =
        "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\",\"labels\":{\"app\":\"%s\"}},"
        "\"spec\":{\"containers\":[{\"name\":\"c1\",\"image\":\"busybox\",\"resources\":{"
        "\"requests\":{\"cpu\":\"100m\",\"memory\":\"64Mi\"},\"limits\":{\"cpu\":\"200m\",\"memory\":\"128Mi\"}}}]}}";

/* The ServiceAccount the serviceaccounts controller (not running here) would create: pods are
 * admitted only when theirs exists. */
static void create_default_sa(const char *ns)
{
        cleanup_free char *path = xasprintf("/api/v1/namespaces/%s/serviceaccounts", ns);

        assert_int_equal(
                call("POST", path, NULL, NULL, "application/json",
                     "{\"apiVersion\":\"v1\",\"kind\":\"ServiceAccount\",\"metadata\":{\"name\":\"default\"}}",
                     NULL),
                201);
}

static void create_default_ns(void)
{
        assert_int_equal(
                call("POST", "/api/v1/namespaces", NULL, NULL, "application/json",
                     "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"default\"}}",
                     NULL),
                201);
        create_default_sa("default");
}

static unsigned create_pod(const char *name, const char *app, json_t **ret)
{
        cleanup_free char *body = xasprintf(pod_json, name, app);

        return call("POST", "/api/v1/namespaces/default/pods", NULL, NULL, "application/json", body,
                    ret);
}

static void test_version_and_health(void **state)
{
        cleanup_json json_t *v = NULL;

        assert_int_equal(call("GET", "/version", NULL, NULL, NULL, NULL, &v), 200);
        assert_string_equal(json_string_value(json_object_get(v, "minor")), "33");
        assert_int_equal(call("GET", "/healthz", NULL, NULL, NULL, NULL, NULL), 200);
        /* not ready until the caller says so */
        assert_int_equal(call("GET", "/readyz", NULL, NULL, NULL, NULL, NULL), 500);
        apiserver_set_ready(fx->api, true);
        assert_int_equal(call("GET", "/readyz", NULL, NULL, NULL, NULL, NULL), 200);
}

static void test_create_get_list(void **state)
{
        cleanup_json json_t *pod = NULL, *got = NULL, *list = NULL, *dup = NULL, *missing = NULL;
        cleanup_json json_t *nons = NULL;

        assert_int_equal(create_pod("web", "web", &nons), 404);
        assert_string_equal(json_string_value(json_object_get(nons, "message")),
                            "namespaces \"default\" not found");
        create_default_ns();
        assert_int_equal(create_pod("web", "web", &pod), 201);
        assert_int_equal(strlen(json_path_string(pod, "metadata.uid")), 36);
        assert_non_null(json_path_string(pod, "metadata.resourceVersion"));
        assert_string_equal(json_path_string(pod, "metadata.namespace"), "default");
        assert_string_equal(json_path_string(pod, "status.phase"), "Pending");
        assert_string_equal(json_path_string(pod, "status.qosClass"), "Burstable");
        assert_int_equal(json_integer_value(json_path(pod, "metadata.generation")), 1);

        assert_int_equal(
                call("GET", "/api/v1/namespaces/default/pods/web", NULL, NULL, NULL, NULL, &got),
                200);
        assert_true(json_equal(pod, got));

        assert_int_equal(create_pod("web", "web", &dup), 409);
        assert_string_equal(json_string_value(json_object_get(dup, "reason")), "AlreadyExists");
        assert_string_equal(json_path_string(dup, "details.kind"), "pods");

        assert_int_equal(call("GET", "/api/v1/namespaces/default/pods/nope", NULL, NULL, NULL, NULL,
                              &missing),
                         404);
        assert_string_equal(json_string_value(json_object_get(missing, "message")),
                            "pods \"nope\" not found");

        assert_int_equal(create_pod("db", "db", NULL), 201);
        assert_int_equal(
                call("GET", "/api/v1/pods", "labelSelector=app in (db,x)", NULL, NULL, NULL, &list),
                200);
        assert_int_equal(json_array_size(json_object_get(list, "items")), 1);
        json_decref(list);
        assert_int_equal(
                call("GET", "/api/v1/pods", "labelSelector=app!=web", NULL, NULL, NULL, &list),
                200);
        assert_string_equal(json_string_value(json_object_get(list, "kind")), "PodList");
        assert_int_equal(json_array_size(json_object_get(list, "items")), 1);
        assert_string_equal(json_path_string(json_array_get(json_object_get(list, "items"), 0),
                                             "metadata.name"),
                            "db");
        assert_non_null(json_path_string(list, "metadata.resourceVersion"));
}

static void test_table(void **state)
{
        cleanup_json json_t *t = NULL;
        json_t *row;

        create_default_ns();
        assert_int_equal(create_pod("web", "web", NULL), 201);
        assert_int_equal(call("GET", "/api/v1/namespaces/default/pods", NULL,
                              "application/json;as=Table;v=v1;g=meta.k8s.io,application/json", NULL,
                              NULL, &t),
                         200);
        assert_string_equal(json_string_value(json_object_get(t, "kind")), "Table");
        assert_int_equal(json_array_size(json_object_get(t, "columnDefinitions")), 9);
        row = json_array_get(json_object_get(t, "rows"), 0);
        assert_string_equal(json_string_value(json_array_get(json_object_get(row, "cells"), 1)),
                            "0/1");
        assert_string_equal(json_string_value(json_array_get(json_object_get(row, "cells"), 2)),
                            "Pending");
        assert_string_equal(json_path_string(json_object_get(row, "object"), "kind"),
                            "PartialObjectMetadata");
}

static void test_update_conflict_and_noop(void **state)
{
        cleanup_json json_t *pod = NULL, *r1 = NULL, *r2 = NULL, *r3 = NULL, *r4 = NULL;
        cleanup_free char *stale = NULL, *norv = NULL;

        create_default_ns();
        assert_int_equal(create_pod("web", "web", &pod), 201);
        stale = json_dump_compact(pod);
        /* a label change through merge patch bumps the version */
        assert_int_equal(call("PATCH", "/api/v1/namespaces/default/pods/web", NULL, NULL,
                              "application/merge-patch+json",
                              "{\"metadata\":{\"labels\":{\"x\":\"1\"}}}", &r1),
                         200);
        assert_string_not_equal(json_path_string(r1, "metadata.resourceVersion"),
                                json_path_string(pod, "metadata.resourceVersion"));
        /* the same patch again writes nothing */
        assert_int_equal(call("PATCH", "/api/v1/namespaces/default/pods/web", NULL, NULL,
                              "application/merge-patch+json",
                              "{\"metadata\":{\"labels\":{\"x\":\"1\"}}}", &r2),
                         200);
        assert_string_equal(json_path_string(r2, "metadata.resourceVersion"),
                            json_path_string(r1, "metadata.resourceVersion"));
        /* PUT of the stale object conflicts */
        assert_int_equal(call("PUT", "/api/v1/namespaces/default/pods/web", NULL, NULL,
                              "application/json", stale, &r3),
                         409);
        assert_string_equal(
                json_string_value(json_object_get(r3, "message")),
                "Operation cannot be fulfilled on pods \"web\": the object has been modified; please apply your changes to the latest version and try again");
        /* PUT without a resourceVersion is invalid */
        json_object_del(json_object_get(pod, "metadata"), "resourceVersion");
        norv = json_dump_compact(pod);
        assert_int_equal(call("PUT", "/api/v1/namespaces/default/pods/web", NULL, NULL,
                              "application/json", norv, &r4),
                         422);
        assert_string_equal(
                json_path_string(json_array_get(json_path(r4, "details.causes"), 0), "field"),
                "metadata.resourceVersion");
}

static void test_resize(void **state)
{
        cleanup_json json_t *r1 = NULL, *r2 = NULL, *r3 = NULL, *r4 = NULL;
        const char *resize =
                "{\"spec\":{\"containers\":[{\"name\":\"c1\",\"resources\":{\"requests\":{\"cpu\":\"150m\"}}}]}}";

        create_default_ns();
        assert_int_equal(create_pod("web", "web", NULL), 201);
        assert_int_equal(call("GET", "/api/v1/namespaces/default/pods/web/resize", NULL, NULL, NULL,
                              NULL, NULL),
                         200);
        assert_int_equal(call("PATCH", "/api/v1/namespaces/default/pods/web/resize", NULL, NULL,
                              "application/strategic-merge-patch+json", resize, &r1),
                         200);
        assert_string_equal(
                json_string_value(json_path(json_array_get(json_path(r1, "spec.containers"), 0),
                                            "resources.requests.cpu")),
                "150m");
        assert_int_equal(json_integer_value(json_path(r1, "metadata.generation")), 2);
        /* no-op: same version, same generation */
        assert_int_equal(call("PATCH", "/api/v1/namespaces/default/pods/web/resize", NULL, NULL,
                              "application/strategic-merge-patch+json", resize, &r2),
                         200);
        assert_true(json_equal(r1, r2));
        /* resources may not change through the main resource */
        assert_int_equal(
                call("PATCH", "/api/v1/namespaces/default/pods/web", NULL, NULL,
                     "application/strategic-merge-patch+json",
                     "{\"spec\":{\"containers\":[{\"name\":\"c1\",\"resources\":{\"requests\":{\"cpu\":\"170m\"}}}]}}",
                     &r3),
                422);
        assert_string_equal(
                json_path_string(json_array_get(json_path(r3, "details.causes"), 0), "field"),
                "spec");
        /* removing limits through resize is forbidden with upstream's words */
        assert_int_equal(
                call("PATCH", "/api/v1/namespaces/default/pods/web/resize", NULL, NULL,
                     "application/json-patch+json",
                     "[{\"op\":\"remove\",\"path\":\"/spec/containers/0/resources/limits\"}]", &r4),
                422);
        assert_non_null(strstr(
                json_string_value(json_object_get(r4, "message")),
                "spec.containers[0].resources.limits: Forbidden: resource limits cannot be removed"));
}

static void test_bad_input(void **state)
{
        cleanup_json json_t *r1 = NULL, *r2 = NULL, *r3 = NULL, *r4 = NULL, *r5 = NULL;

        create_default_ns();
        assert_int_equal(call("POST", "/api/v1/namespaces/default/pods", NULL, NULL,
                              "application/json", "{\"kind\":", &r1),
                         400);
        assert_string_equal(json_string_value(json_object_get(r1, "reason")), "BadRequest");
        assert_int_equal(call("POST", "/api/v1/namespaces/default/pods", NULL, NULL,
                              "application/vnd.kubernetes.protobuf", "k8s\x01", &r2),
                         400);
        assert_non_null(strstr(json_string_value(json_object_get(r2, "message")),
                               "the object provided is unrecognized (must be of type Pod): "));
        assert_int_equal(
                call("POST", "/api/v1/namespaces/default/pods", "fieldValidation=Strict", NULL,
                     "application/json",
                     "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"s\"},\"spec\":{\"foo\":1,\"bar\":2,\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}}",
                     &r3),
                400);
        assert_string_equal(
                json_string_value(json_object_get(r3, "message")),
                "Pod in version \"v1\" cannot be handled as a Pod: strict decoding error: unknown field \"spec.foo\", unknown field \"spec.bar\"");
        assert_int_equal(call("GET", "/api/v1/widgets", NULL, NULL, NULL, NULL, &r4), 404);
        assert_int_equal(
                call("GET", "/api/v1/pods", "fieldSelector=spec.foo=x", NULL, NULL, NULL, &r5),
                400);
}

/* K8S: a deleted namespace is marked Terminating and keeps its content for the namespace
 * controller to delete; nothing new is created in it; finalize with no finalizers left and a
 * second delete remove it. */
static void test_namespace_delete_terminates(void **state)
{
        cleanup_json json_t *d = NULL, *g = NULL, *late = NULL, *again = NULL, *fin = NULL,
                            *gone = NULL, *ns = NULL, *labelled = NULL;

        assert_int_equal(
                call("POST", "/api/v1/namespaces", NULL, NULL, "application/json",
                     "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"team\"}}",
                     NULL),
                201);
        create_default_sa("team");
        assert_int_equal(
                call("POST", "/api/v1/namespaces/team/pods", NULL, NULL, "application/json",
                     "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"w\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}}",
                     NULL),
                201);
        assert_int_equal(call("DELETE", "/api/v1/namespaces/team", NULL, NULL, "application/json",
                              "{\"propagationPolicy\":\"Background\"}", &d),
                         200);
        assert_string_equal(json_path_string(d, "status.phase"), "Terminating");
        assert_non_null(json_path_string(d, "metadata.deletionTimestamp"));
        assert_int_equal(call("GET", "/api/v1/namespaces/team/pods/w", NULL, NULL, NULL, NULL, &g),
                         200);
        assert_int_equal(
                call("POST", "/api/v1/namespaces/team/pods", NULL, NULL, "application/json",
                     "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"x\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}}",
                     &late),
                403);
        assert_int_equal(call("DELETE", "/api/v1/namespaces/team", NULL, NULL, NULL, NULL, &again),
                         409);
        /* a write while it terminates keeps it (only its own Delete removes it) */
        assert_int_equal(call("PATCH", "/api/v1/namespaces/team", NULL, NULL,
                              "application/merge-patch+json",
                              "{\"metadata\":{\"labels\":{\"a\":\"b\"}}}", &labelled),
                         200);
        assert_int_equal(call("GET", "/api/v1/namespaces/team", NULL, NULL, NULL, NULL, &ns), 200);
        json_object_set_new(json_object_get(ns, "spec"), "finalizers", json_array());
        {
                cleanup_free char *body = json_dumps(ns, JSON_COMPACT);
                assert_int_equal(call("PUT", "/api/v1/namespaces/team/finalize", NULL, NULL,
                                      "application/json", body, &fin),
                                 200);
        }
        assert_int_equal(json_array_size(json_path(fin, "spec.finalizers")), 0);
        assert_int_equal(call("DELETE", "/api/v1/namespaces/team", NULL, NULL, NULL, NULL, &gone),
                         200);
        json_decref(gone);
        gone = NULL;
        assert_int_equal(call("GET", "/api/v1/namespaces/team", NULL, NULL, NULL, NULL, &gone),
                         404);
}

static void test_binding(void **state)
{
        cleanup_json json_t *b1 = NULL, *b2 = NULL, *pod = NULL;
        const char *binding =
                "{\"apiVersion\":\"v1\",\"kind\":\"Binding\",\"metadata\":{\"name\":\"web\"},"
                "\"target\":{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"name\":\"n1\"}}";

        create_default_ns();
        assert_int_equal(create_pod("web", "web", NULL), 201);
        assert_int_equal(call("POST", "/api/v1/namespaces/default/pods/web/binding", NULL, NULL,
                              "application/json", binding, &b1),
                         201);
        assert_string_equal(json_string_value(json_object_get(b1, "status")), "Success");
        assert_int_equal(
                call("GET", "/api/v1/namespaces/default/pods/web", NULL, NULL, NULL, NULL, &pod),
                200);
        assert_string_equal(json_path_string(pod, "spec.nodeName"), "n1");
        assert_string_equal(
                json_path_string(json_array_get(json_path(pod, "status.conditions"), 0), "type"),
                "PodScheduled");
        assert_int_equal(call("POST", "/api/v1/namespaces/default/pods/web/binding", NULL, NULL,
                              "application/json", binding, &b2),
                         409);
        assert_non_null(strstr(json_string_value(json_object_get(b2, "message")),
                               "is already assigned to node \"n1\""));
}

static void test_delete(void **state)
{
        cleanup_json json_t *d = NULL, *g = NULL, *ns = NULL;

        create_default_ns();
        assert_int_equal(create_pod("web", "web", NULL), 201);
        assert_int_equal(call("DELETE", "/api/v1/namespaces/default/pods/web", NULL, NULL,
                              "application/json", "{\"propagationPolicy\":\"Background\"}", &d),
                         200);
        assert_string_equal(json_path_string(d, "metadata.name"), "web");
        assert_int_equal(
                call("GET", "/api/v1/namespaces/default/pods/web", NULL, NULL, NULL, NULL, &g),
                404);
        assert_int_equal(call("DELETE", "/api/v1/namespaces/default", NULL, NULL, NULL, NULL, &ns),
                         403);
}

static void test_watch_from_zero(void **state)
{
        struct http_query_param q[] = { { "watch", "true" }, { "resourceVersion", "0" } };
        struct http_request req = {
                .method = "GET", .path = "/api/v1/namespaces/default/pods", .query = q, .n_query = 2
        };
        struct http_response resp;
        char buf[8192];
        ssize_t n;
        cleanup_json json_t *ev1 = NULL, *ev2 = NULL;

        create_default_ns();
        assert_int_equal(create_pod("web", "web", NULL), 201);
        http_response_init(&resp);
        api_handle(fx->api, &req, &resp);
        assert_int_equal(resp.status, 200);
        assert_non_null(resp.stream.read);
        n = resp.stream.read(resp.stream.ctx, buf, sizeof(buf) - 1);
        assert_true(n > 0);
        buf[n] = '\0';
        ev1 = json_loads(buf, JSON_DISABLE_EOF_CHECK, NULL);
        assert_string_equal(json_string_value(json_object_get(ev1, "type")), "ADDED");
        assert_string_equal(json_path_string(json_object_get(ev1, "object"), "metadata.name"),
                            "web");
        assert_int_equal(create_pod("db", "db", NULL), 201);
        n = resp.stream.read(resp.stream.ctx, buf, sizeof(buf) - 1);
        assert_true(n > 0);
        buf[n] = '\0';
        ev2 = json_loads(buf, JSON_DISABLE_EOF_CHECK, NULL);
        assert_string_equal(json_string_value(json_object_get(ev2, "type")), "ADDED");
        assert_string_equal(json_path_string(json_object_get(ev2, "object"), "metadata.name"),
                            "db");
        http_response_release(&resp);
}

struct get_loop {
        char path[128];
        int failures;
};

static void *get_loop_main(void *arg)
{
        struct get_loop *g = arg;

        for (int i = 0; i < 2000; i++)
                if (call("GET", g->path, NULL, NULL, NULL, NULL, NULL) != 200)
                        g->failures++;
        return NULL;
}

/* Requests are handled on many threads at once: routing must keep no shared state. */
static void test_concurrent_requests(void **state)
{
        struct get_loop loops[4];
        pthread_t threads[4];

        create_default_ns();
        for (int i = 0; i < 4; i++) {
                char name[16];
                (void) snprintf(name, sizeof(name), "p%d", i);
                assert_int_equal(create_pod(name, "x", NULL), 201);
                (void) snprintf(loops[i].path, sizeof(loops[i].path),
                                "/api/v1/namespaces/default/pods/%s", name);
                loops[i].failures = 0;
        }
        for (int i = 0; i < 4; i++)
                assert_int_equal(pthread_create(&threads[i], NULL, get_loop_main, &loops[i]), 0);
        for (int i = 0; i < 4; i++) {
                assert_int_equal(pthread_join(threads[i], NULL), 0);
                assert_int_equal(loops[i].failures, 0);
        }
}

static void test_discovery_and_openapi(void **state)
{
        cleanup_json json_t *agg = NULL, *legacy = NULL, *root = NULL, *doc = NULL;
        const char *url;
        char path[256];

        assert_int_equal(
                call("GET", "/api", NULL,
                     "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json",
                     NULL, NULL, &agg),
                200);
        assert_string_equal(json_string_value(json_object_get(agg, "kind")),
                            "APIGroupDiscoveryList");
        assert_int_equal(call("GET", "/api/v1", NULL, NULL, NULL, NULL, &legacy), 200);
        assert_string_equal(json_string_value(json_object_get(legacy, "kind")), "APIResourceList");
        assert_int_equal(call("GET", "/openapi/v3", NULL, NULL, NULL, NULL, &root), 200);
        url = json_path_string(json_path(root, "paths"), "api/v1.serverRelativeURL");
        if (!url)
                url = json_string_value(
                        json_object_get(json_object_get(json_object_get(root, "paths"), "api/v1"),
                                        "serverRelativeURL"));
        assert_non_null(url);
        (void) snprintf(path, sizeof(path), "%.*s", (int) strcspn(url, "?"), url);
        assert_int_equal(call("GET", path, NULL, NULL, NULL, NULL, &doc), 200);
        assert_string_equal(json_string_value(json_path(
                                    json_object_get(json_object_get(doc, "paths"),
                                                    "/api/v1/namespaces/{namespace}/pods/{name}"),
                                    "patch.x-kubernetes-group-version-kind.kind")),
                            "Pod");
        /* the document is made again for each request: its text is still the one the root's
         * URL has the hash of (kubectl keeps a document by its URL) */
        for (int i = 0; i < 2; i++) {
                struct http_request req = { .method = "GET", .path = path };
                struct http_response resp;
                char hash[32];

                http_response_init(&resp);
                api_handle(fx->api, &req, &resp);
                assert_int_equal(resp.status, 200);
                (void) snprintf(hash, sizeof(hash), "hash=%016llX",
                                (unsigned long long) hash_fnv1a(HASH_FNV_OFFSET, resp.body.buf,
                                                                resp.body.len));
                assert_string_equal(strchr(url, '?') + 1, hash);
                http_response_release(&resp);
        }
}

/* GET /metrics renders the registry; every resource request is counted with upstream's labels. */
static void test_metrics(void **state)
{
        struct apiserver_options o = { .node_name = "n1", .listen = "127.0.0.1:6443" };
        cleanup_metrics_registry struct metrics_registry *reg = metrics_registry_new();
        struct apiserver *plain = fx->api, *counted = NULL;
        struct http_request req = { .method = "GET", .path = "/metrics" };
        struct http_response resp;

        (void) state;
        assert_int_equal(call("GET", "/metrics", NULL, NULL, NULL, NULL, NULL), 404);
        o.metrics = reg;
        assert_int_equal(apiserver_new(fx->store, NULL, &o, &counted), 0);
        fx->api = counted;
        create_default_ns();
        assert_int_equal(
                call("GET", "/api/v1/namespaces/default/pods", NULL, NULL, NULL, NULL, NULL), 200);
        assert_int_equal(
                call("GET", "/api/v1/namespaces/default/pods/nope", NULL, NULL, NULL, NULL, NULL),
                404);
        http_response_init(&resp);
        api_handle(counted, &req, &resp);
        assert_int_equal(resp.status, 200);
        assert_string_equal(resp.content_type, METRICS_CONTENT_TYPE);
        assert_non_null(strstr(resp.body.buf,
                               "apiserver_request_total{code=\"200\",component=\"apiserver\","
                               "dry_run=\"\",group=\"\",resource=\"pods\",scope=\"namespace\","
                               "subresource=\"\",verb=\"LIST\",version=\"v1\"} 1\n"));
        assert_non_null(strstr(resp.body.buf,
                               "apiserver_request_total{code=\"404\",component=\"apiserver\","
                               "dry_run=\"\",group=\"\",resource=\"pods\",scope=\"resource\","
                               "subresource=\"\",verb=\"GET\",version=\"v1\"} 1\n"));
        assert_non_null(strstr(resp.body.buf, "# TYPE apiserver_request_duration_seconds "
                                              "histogram\n"));
        http_response_release(&resp);
        fx->api = plain;
        apiserver_free(counted);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_version_and_health, setup, teardown),
                cmocka_unit_test_setup_teardown(test_create_get_list, setup, teardown),
                cmocka_unit_test_setup_teardown(test_table, setup, teardown),
                cmocka_unit_test_setup_teardown(test_update_conflict_and_noop, setup, teardown),
                cmocka_unit_test_setup_teardown(test_resize, setup, teardown),
                cmocka_unit_test_setup_teardown(test_bad_input, setup, teardown),
                cmocka_unit_test_setup_teardown(test_binding, setup, teardown),
                cmocka_unit_test_setup_teardown(test_namespace_delete_terminates, setup, teardown),
                cmocka_unit_test_setup_teardown(test_delete, setup, teardown),
                cmocka_unit_test_setup_teardown(test_watch_from_zero, setup, teardown),
                cmocka_unit_test_setup_teardown(test_discovery_and_openapi, setup, teardown),
                cmocka_unit_test_setup_teardown(test_metrics, setup, teardown),
                cmocka_unit_test_setup_teardown(test_concurrent_requests, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
