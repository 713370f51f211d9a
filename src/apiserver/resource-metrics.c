/* resource-metrics.c: metrics.k8s.io/v1beta1 nodes and pods (resource-metrics.h): the Node and
 * Pod objects from the store, each node's /stats/summary fetched with the kubelet client
 * credential (kubelet-client.h) on a thread of the request, and metrics-server's objects made
 * of them. The kubelet's side is node/kubelet-server.c and node/pod-stats.c. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "api/selector.h"
#include "apiserver/apiserver-internal.h"
#include "apiserver/kubelet-client.h"
#include "apiserver/resource-metrics.h"
#include "apiserver/status.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/quantity.h"
#include "client/client.h"
#include "store/store.h"

/* ------------------------------------------------------------------ the objects */

char *resource_metrics_cpu(uint64_t nano_cores)
{
        struct quantity q;

        quantity_from_scaled(nano_cores > (uint64_t) INT64_MAX ? INT64_MAX : (int64_t) nano_cores,
                             -9, &q);
        return quantity_format_canonical(&q);
}

char *resource_metrics_memory(uint64_t bytes)
{
        struct quantity q;

        quantity_from_int64(bytes > (uint64_t) INT64_MAX ? INT64_MAX : (int64_t) bytes,
                            QUANTITY_BINARY_SI, &q);
        return quantity_format_canonical(&q);
}

/* {"cpu": ..., "memory": ...} of a stats object with cpu.usageNanoCores and
 * memory.workingSetBytes, or NULL when either is missing; *ret_time the cpu sample's time. */
static json_t *usage_of(const json_t *stats, const char **ret_time)
{
        const json_t *cpu = json_path(stats, "cpu.usageNanoCores");
        const json_t *mem = json_path(stats, "memory.workingSetBytes");
        cleanup_free char *c = NULL, *m = NULL;

        if (!json_is_integer(cpu) || !json_is_integer(mem) || json_integer_value(cpu) < 0 ||
            json_integer_value(mem) < 0)
                return NULL;
        c = resource_metrics_cpu((uint64_t) json_integer_value(cpu));
        m = resource_metrics_memory((uint64_t) json_integer_value(mem));
        if (ret_time)
                *ret_time = json_path_string(stats, "cpu.time");
        return json_pack("{s:s, s:s}", "cpu", c, "memory", m);
}

/* K8S metrics-server: metadata carries the object's name, namespace and labels, and the time
 * the metrics were made as creationTimestamp. */
static json_t *metrics_object(const char *kind, const json_t *obj, const char *timestamp)
{
        json_t *meta =
                json_pack("{s:s, s:s}", "name", json_path_string_or_empty(obj, "metadata.name"),
                          "creationTimestamp", timestamp);
        const json_t *labels = json_path(obj, "metadata.labels");

        if (json_path_string(obj, "metadata.namespace"))
                json_object_set_new(meta, "namespace",
                                    json_string(json_path_string(obj, "metadata.namespace")));
        if (json_is_object(labels) && json_object_size(labels))
                json_object_set_new(meta, "labels", json_deep_copy(labels));
        return json_pack("{s:s, s:s, s:o, s:s, s:s}", "kind", kind, "apiVersion",
                         "metrics.k8s.io/v1beta1", "metadata", meta, "timestamp", timestamp,
                         "window", RESOURCE_METRICS_WINDOW);
}

json_t *resource_metrics_node(const json_t *node, const json_t *summary)
{
        const char *at = NULL;
        json_t *usage = usage_of(json_object_get(summary, "node"), &at), *o;

        if (!usage || !at) {
                json_decref(usage);
                return NULL;
        }
        o = metrics_object("NodeMetrics", node, at);
        json_object_set_new(o, "usage", usage);
        return o;
}

json_t *resource_metrics_pod(const json_t *pod, const json_t *summary)
{
        const char *uid = json_path_string(pod, "metadata.uid");
        const json_t *ps = NULL, *p, *c;
        const char *at = NULL;
        json_t *containers, *o;
        size_t i;

        if (!uid)
                return NULL;
        json_array_foreach(json_object_get(summary, "pods"), i, p) {
                const char *u = json_path_string(p, "podRef.uid");
                if (u && streq(u, uid))
                        ps = p;
        }
        if (!ps)
                return NULL;
        containers = json_array();
        json_array_foreach(json_object_get(ps, "containers"), i, c) {
                const char *name = json_string_value(json_object_get(c, "name"));
                const char *t = NULL;
                json_t *usage = name ? usage_of(c, &t) : NULL;

                if (!usage)
                        continue;
                if (!at)
                        at = t;
                json_array_append_new(containers,
                                      json_pack("{s:s, s:o}", "name", name, "usage", usage));
        }
        if (json_array_size(containers) == 0 || !at) {
                json_decref(containers);
                return NULL;
        }
        o = metrics_object("PodMetrics", pod, at);
        json_object_set_new(o, "containers", containers);
        return o;
}

/* ------------------------------------------------------------------ the request */

/* One request's work, shared by the handler's pending response and the fetching thread. */
struct metrics_job {
        pthread_t thread;
        int wake_fd;
        bool nodes;           /* NodeMetrics; else PodMetrics */
        bool get;             /* one object (objects holds it) */
        json_t *objects;      /* the Node or Pod objects asked about */
        json_t *node_objects; /* name -> Node: the nodes whose kubelets to ask */
        struct api_client_options co;
        const struct api_resource *res;
        char *get_name; /* the name a 404 of a get carries */
        /* written by the thread, read after done */
        json_t *answer;
        _Atomic bool done;
};

/* The summary of one node's kubelet, or NULL when it cannot be had (left out, as
 * metrics-server leaves out a node it cannot scrape). */
static json_t *fetch_summary(struct metrics_job *j, const json_t *node)
{
        cleanup_error struct error *err = NULL;
        cleanup_free char *url = kubelet_node_url(node, &err);
        cleanup_api_client struct api_client *c = NULL;
        struct api_client_options co = j->co;
        json_t *summary = NULL;

        if (!url)
                return NULL;
        co.server_url = url;
        if (api_client_new(&co, &c, &err) < 0 ||
            api_client_get_json(c, "/stats/summary", &summary, &err) < 0)
                return NULL;
        return summary;
}

static void *job_main(void *arg)
{
        struct metrics_job *j = arg;
        cleanup_json json_t *summaries = json_object();
        json_t *items = json_array();
        const char *name;
        json_t *node, *obj;
        size_t i;

        (void) pthread_setname_np(pthread_self(), "metrics-job");
        json_object_foreach(j->node_objects, name, node) {
                json_t *s = fetch_summary(j, node);
                if (s)
                        json_object_set_new(summaries, name, s);
        }
        json_array_foreach(j->objects, i, obj) {
                json_t *m;

                if (j->nodes) {
                        m = resource_metrics_node(
                                obj, json_object_get(summaries, json_path_string_or_empty(
                                                                        obj, "metadata.name")));
                } else {
                        m = resource_metrics_pod(
                                obj, json_object_get(summaries, json_path_string_or_empty(
                                                                        obj, "spec.nodeName")));
                }
                if (m)
                        json_array_append_new(items, m);
        }
        if (j->get) {
                j->answer = json_incref(json_array_get(items, 0));
                json_decref(items);
        } else {
                j->answer = json_pack("{s:s, s:s, s:{}, s:o}", "kind",
                                      j->nodes ? "NodeMetricsList" : "PodMetricsList", "apiVersion",
                                      "metrics.k8s.io/v1beta1", "metadata", "items", items);
        }
        j->done = true;
        (void) eventfd_write(j->wake_fd, 1);
        return NULL;
}

static int job_wake_fd(void *ctx)
{
        struct metrics_job *j = ctx;

        return j->wake_fd;
}

static void job_free(void *ctx)
{
        struct metrics_job *j = ctx;

        /* the thread ends within the kubelet client's timeouts */
        (void) pthread_join(j->thread, NULL);
        (void) close(j->wake_fd);
        json_decref(j->objects);
        json_decref(j->node_objects);
        json_decref(j->answer);
        free(j->get_name);
        free(j);
}

static bool job_poll(void *ctx, struct http_response *resp)
{
        struct metrics_job *j = ctx;
        eventfd_t drained;

        (void) eventfd_read(j->wake_fd, &drained);
        if (!j->done)
                return false;
        if (j->answer)
                http_response_json(resp, 200, j->answer);
        else
                /* K8S metrics-server: no metrics for the object is NotFound of the metrics
                 * resource, the pod named "<namespace>/<name>" */
                status_not_found(resp, j->res, j->get_name);
        return true;
}

/* The Node objects of the nodes the objects are on (name -> Node). */
static json_t *nodes_of(struct apiserver *s, const json_t *pods)
{
        json_t *nodes = json_object();
        const json_t *pod;
        size_t i;

        json_array_foreach(pods, i, pod) {
                const char *n = json_path_string(pod, "spec.nodeName");
                json_t *node = NULL;

                if (!n || !*n || json_object_get(nodes, n))
                        continue;
                if (store_get(s->store, "nodes", "", n, &node, NULL) >= 0)
                        json_object_set_new(nodes, n, node);
        }
        return nodes;
}

void resource_metrics_serve(struct apiserver *s, const struct api_target *t,
                            const struct http_request *req, struct http_response *resp)
{
        cleanup_error struct error *err = NULL;
        struct label_selector *ls = NULL;
        struct field_selector *fs = NULL;
        bool nodes = streq(t->res->plural, "nodes");
        const char *plural = nodes ? "nodes" : "pods";
        json_t *objects, *matching;
        struct metrics_job *j;
        int r;

        if (t->name) {
                json_t *obj = NULL;

                r = store_get(s->store, plural, nodes ? "" : t->ns, t->name, &obj, &err);
                if (r == -ENOENT) {
                        /* K8S: the lister's NotFound of the Node or Pod itself */
                        status_not_found(resp, api_resource_by_plural("", plural), t->name);
                        return;
                }
                if (r < 0) {
                        status_respond(resp, r, err ? err->message : strerror(-r), NULL);
                        return;
                }
                objects = json_pack("[o]", obj);
        } else {
                if (request_selectors(t, req, resp, &ls, &fs) < 0)
                        return;
                r = store_list(s->store, plural, nodes ? NULL : t->ns, &objects, NULL, &err);
                if (r < 0) {
                        label_selector_free(ls);
                        field_selector_free(fs);
                        status_respond(resp, r, err ? err->message : strerror(-r), NULL);
                        return;
                }
                matching = json_array();
                for (size_t i = 0; i < json_array_size(objects); i++)
                        if (object_matches(json_array_get(objects, i), ls, fs))
                                json_array_append(matching, json_array_get(objects, i));
                json_decref(objects);
                objects = matching;
                label_selector_free(ls);
                field_selector_free(fs);
        }

        j = xcalloc(1, sizeof(*j));
        j->nodes = nodes;
        j->get = t->name != NULL;
        j->res = t->res;
        j->get_name = !t->name ? NULL
                      : nodes  ? xstrdup(t->name)
                               : xasprintf("%s/%s", t->ns, t->name);
        j->objects = objects;
        if (nodes) {
                const json_t *n;
                size_t i;

                j->node_objects = json_object();
                json_array_foreach(objects, i, n)
                        json_object_set(j->node_objects,
                                        json_path_string_or_empty(n, "metadata.name"),
                                        (json_t *) n);
        } else {
                j->node_objects = nodes_of(s, objects);
        }
        j->co = kubelet_client_options(s, false);
        j->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (j->wake_fd < 0 || pthread_create(&j->thread, NULL, job_main, j) != 0) {
                if (j->wake_fd >= 0)
                        (void) close(j->wake_fd);
                json_decref(j->objects);
                json_decref(j->node_objects);
                free(j->get_name);
                free(j);
                status_respond(resp, EIO, "metrics: cannot start the request's thread", NULL);
                return;
        }
        resp->pending = (struct http_pending){
                .poll = job_poll, .free = job_free, .ctx = j, .wake_fd = job_wake_fd
        };
}
