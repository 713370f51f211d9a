/* scheduler.c: a single-profile scheduler: filters nodes (Ready, schedulable, nodeSelector,
 * cpu/memory/pod count fit against allocatable minus the requests of the pods already there),
 * scores by least requested cpu, binds. Level-based: every pass looks at every unscheduled pod
 * in the cache it keeps from its watch, so a missed event costs a pass, not a pod. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "api/pod-resources.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/quantity.h"
#include "base/strbuf.h"
#include "base/timeutil.h"
#include "client/event.h"
#include "controllers/scheduler.h"

#define SCHEDULER_NAME  "default-scheduler"
#define WATCH_TIMEOUT_S 60
#define RETRY_DELAY_US  (500 * 1000)
/* Unschedulable pods are looked at again this often even without a pod event, so a node that
 * joins or frees up is noticed. */
#define PASS_PERIOD_S 2

struct scheduler {
        struct api_client_options opts;
        char *server_url, *ca_file, *token;
        struct api_client *watch_client; /* the watch thread's */
        struct api_client *client;       /* requests from the scheduling pass */
        pthread_mutex_t lock;            /* guards pods and wake */
        pthread_cond_t wake;
        json_t *pods; /* "ns/name" -> Pod, from list + watch */
        bool changed; /* pods changed since the last pass */
        pthread_t watch_thread, pass_thread;
        atomic_int refs; /* the two threads; the last one out frees */
        atomic_bool stop;
};

/* The allocated requests of a pod's containers as an overlay for pod_requests_overlay():
 * {name: {"requests": status.*ContainerStatuses[name].allocatedResources}}. */
static json_t *allocated_overlay(const json_t *pod)
{
        static const char *const lists[] = { "status.containerStatuses",
                                             "status.initContainerStatuses" };
        json_t *by_name = json_object();

        for (size_t l = 0; l < ARRAY_SIZE(lists); l++) {
                size_t i;
                json_t *st;

                json_array_foreach(json_path(pod, lists[l]), i, st) {
                        const char *name = json_string_value(json_object_get(st, "name"));
                        json_t *alloc = json_object_get(st, "allocatedResources");
                        if (name && json_is_object(alloc))
                                json_object_set_new(by_name, name,
                                                    json_pack("{s:O}", "requests", alloc));
                }
        }
        return by_name;
}

int scheduler_pod_requests(const json_t *pod, int64_t *ret_milli_cpu, int64_t *ret_memory)
{
        cleanup_json json_t *allocated = allocated_overlay(pod);
        struct pod_resources_overlay ov = { .containers = allocated };
        int64_t cpu = 0, mem = 0, acpu = 0, amem = 0;
        int r;

        r = pod_requests(pod, &cpu, &mem);
        if (r < 0)
                return r;
        r = pod_requests_overlay(pod, &ov, &acpu, &amem);
        if (r < 0)
                return r;
        *ret_milli_cpu = cpu > acpu ? cpu : acpu;
        *ret_memory = mem > amem ? mem : amem;
        return 0;
}

static bool pod_is_terminal(const json_t *pod)
{
        const char *phase = json_path_string(pod, "status.phase");
        return phase && (streq(phase, "Succeeded") || streq(phase, "Failed"));
}

static int64_t allocatable(const json_t *node, const char *res, bool milli)
{
        const char *s =
                json_string_value(json_object_get(json_path(node, "status.allocatable"), res));
        struct quantity q;
        int64_t v = 0;

        if (!s || quantity_parse(s, &q, NULL) < 0)
                return 0;
        if ((milli ? quantity_milli_value(&q, &v) : quantity_value(&q, &v)) < 0)
                return INT64_MAX;
        return v;
}

static bool node_ready(const json_t *node)
{
        size_t i;
        json_t *c;

        json_array_foreach(json_path(node, "status.conditions"), i, c) {
                if (streq(json_string_value(json_object_get(c, "type")) ?: "", "Ready"))
                        return streq(json_string_value(json_object_get(c, "status")) ?: "", "True");
        }
        return false;
}

static bool selector_matches(const json_t *pod, const json_t *node)
{
        const json_t *labels = json_path(node, "metadata.labels");
        const char *key;
        json_t *v;

        json_object_foreach((json_t *) json_path(pod, "spec.nodeSelector"), key, v) {
                const char *have = json_string_value(json_object_get(labels, key));
                if (!have || !json_string_value(v) || !streq(have, json_string_value(v)))
                        return false;
        }
        return true;
}

/* Failure reasons, counted over nodes, rendered sorted as upstream's FitError. */
enum fit_reason {
        FIT_AFFINITY,
        FIT_CPU,
        FIT_MEMORY,
        FIT_PODS,
        FIT_NOT_READY,
        FIT_UNSCHEDULABLE,
        FIT_REASON_MAX,
};

static const char *const fit_text[FIT_REASON_MAX] = {
        [FIT_AFFINITY] = "node(s) didn't match Pod's node affinity/selector",
        [FIT_CPU] = "Insufficient cpu",
        [FIT_MEMORY] = "Insufficient memory",
        [FIT_PODS] = "Too many pods",
        [FIT_NOT_READY] = "node(s) had untolerated taint {node.kubernetes.io/not-ready: }",
        [FIT_UNSCHEDULABLE] = "node(s) were unschedulable",
};

static int cmp_reason(const void *a, const void *b)
{
        return strcmp(fit_text[*(const int *) a], fit_text[*(const int *) b]);
}

static char *fit_error(size_t n_nodes, const unsigned counts[FIT_REASON_MAX], unsigned preemptable)
{
        struct strbuf sb;
        int order[FIT_REASON_MAX];
        size_t n = 0;

        if (n_nodes == 0)
                return xstrdup("no nodes available to schedule pods");
        for (int i = 0; i < FIT_REASON_MAX; i++)
                if (counts[i])
                        order[n++] = i;
        qsort(order, n, sizeof(order[0]), cmp_reason);
        strbuf_init(&sb);
        strbuf_addf(&sb, "0/%zu nodes are available: ", n_nodes);
        for (size_t i = 0; i < n; i++)
                strbuf_addf(&sb, "%s%u %s", i ? ", " : "", counts[order[i]], fit_text[order[i]]);
        /* K8S: the preemption summary: resource shortages could be solved by preemption (but
         * nothing is preemptible here); other reasons could not. */
        strbuf_addf(&sb, ". preemption: 0/%zu nodes are available: ", n_nodes);
        if (preemptable && preemptable < n_nodes)
                strbuf_addf(
                        &sb,
                        "%u No preemption victims found for incoming pod, %zu Preemption is not helpful for scheduling.",
                        preemptable, n_nodes - preemptable);
        else if (preemptable)
                strbuf_addf(&sb, "%u No preemption victims found for incoming pod.", preemptable);
        else
                strbuf_addf(&sb, "%zu Preemption is not helpful for scheduling.", n_nodes);
        return strbuf_detach(&sb);
}

const char *scheduler_pick_node(const json_t *pod, const json_t *nodes, const json_t *pods,
                                char **ret_message)
{
        unsigned counts[FIT_REASON_MAX] = { 0 }, preemptable = 0;
        const char *best = NULL;
        double best_score = 2.0;
        int64_t want_cpu = 0, want_mem = 0;
        size_t i, j;
        json_t *node, *p;

        (void) scheduler_pod_requests(pod, &want_cpu, &want_mem);
        json_array_foreach(nodes, i, node) {
                const char *name = json_path_string(node, "metadata.name") ?: "";
                int64_t cap_cpu = allocatable(node, "cpu", true);
                int64_t cap_mem = allocatable(node, "memory", false);
                int64_t cap_pods = allocatable(node, "pods", false);
                int64_t used_cpu = 0, used_mem = 0, used_pods = 0;
                bool fits = true, resource_short = false;

                if (!node_ready(node)) {
                        counts[FIT_NOT_READY]++;
                        continue;
                }
                if (json_is_true(json_path(node, "spec.unschedulable"))) {
                        counts[FIT_UNSCHEDULABLE]++;
                        continue;
                }
                if (!selector_matches(pod, node)) {
                        counts[FIT_AFFINITY]++;
                        continue;
                }
                json_array_foreach(pods, j, p) {
                        int64_t c = 0, m = 0;
                        if (!streq(json_path_string(p, "spec.nodeName") ?: "", name) ||
                            pod_is_terminal(p))
                                continue;
                        (void) scheduler_pod_requests(p, &c, &m);
                        used_cpu += c;
                        used_mem += m;
                        used_pods++;
                }
                if (cap_pods && used_pods + 1 > cap_pods) {
                        counts[FIT_PODS]++;
                        fits = false;
                        resource_short = true;
                }
                if (want_cpu > cap_cpu - used_cpu) {
                        counts[FIT_CPU]++;
                        fits = false;
                        resource_short = true;
                }
                if (want_mem > cap_mem - used_mem) {
                        counts[FIT_MEMORY]++;
                        fits = false;
                        resource_short = true;
                }
                if (!fits) {
                        preemptable += resource_short;
                        continue;
                }
                {
                        double score = cap_cpu > 0
                                               ? (double) (used_cpu + want_cpu) / (double) cap_cpu
                                               : 1.0;
                        if (!best || score < best_score) {
                                best = name;
                                best_score = score;
                        }
                }
        }
        if (!best)
                *ret_message = fit_error(json_array_size(nodes), counts, preemptable);
        return best;
}

static char *cache_key(const json_t *pod)
{
        return xasprintf("%s/%s", json_path_string(pod, "metadata.namespace") ?: "",
                         json_path_string(pod, "metadata.name") ?: "");
}

static int bind_pod(struct scheduler *s, json_t *pod, const char *node)
{
        cleanup_error struct error *err = NULL;
        cleanup_json json_t *b = NULL, *resp = NULL;
        cleanup_free char *body = NULL, *path = NULL, *msg = NULL;
        const char *ns = json_path_string(pod, "metadata.namespace");
        const char *name = json_path_string(pod, "metadata.name");
        long status = 0;

        b = json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:s, s:s, s:s}}", "apiVersion", "v1", "kind",
                      "Binding", "metadata", "name", name, "namespace", ns, "target", "apiVersion",
                      "v1", "kind", "Node", "name", node);
        body = json_dump_compact(b);
        path = xasprintf("/api/v1/namespaces/%s/pods/%s/binding", ns, name);
        if (api_client_request(s->client, "POST", path, "application/json", body, strlen(body),
                               &status, &resp, &err) < 0 ||
            status != 201)
                return -EIO;
        /* Count it on the node from now on, before the watch brings the change back. */
        json_object_set_new(json_object_ensure(pod, "spec"), "nodeName", json_string(node));
        {
                cleanup_free char *key = cache_key(pod);
                json_t *cached;
                pthread_mutex_lock(&s->lock);
                cached = json_object_get(s->pods, key);
                if (cached)
                        json_object_set_new(json_object_ensure(cached, "spec"), "nodeName",
                                            json_string(node));
                pthread_mutex_unlock(&s->lock);
        }
        msg = xasprintf("Successfully assigned %s/%s to %s", ns, name, node);
        (void) api_client_event(s->client, pod, "Normal", "Scheduled", msg, SCHEDULER_NAME, NULL,
                                NULL);
        return 0;
}

static void mark_unschedulable(struct scheduler *s, const json_t *pod, const char *message)
{
        cleanup_json json_t *patch = NULL, *resp = NULL;
        cleanup_free char *body = NULL, *path = NULL;
        size_t i;
        json_t *c;
        char now[32];
        long status = 0;

        json_array_foreach(json_path(pod, "status.conditions"), i, c) {
                if (streq(json_string_value(json_object_get(c, "type")) ?: "", "PodScheduled") &&
                    streq(json_string_value(json_object_get(c, "message")) ?: "", message))
                        return; /* already says so */
        }
        time_format_rfc3339(time(NULL), now);
        patch = json_pack("{s:{s:[{s:s, s:s, s:s, s:s, s:n, s:s}]}}", "status", "conditions",
                          "type", "PodScheduled", "status", "False", "reason", "Unschedulable",
                          "message", message, "lastProbeTime", "lastTransitionTime", now);
        body = json_dump_compact(patch);
        path = xasprintf("/api/v1/namespaces/%s/pods/%s/status",
                         json_path_string(pod, "metadata.namespace"),
                         json_path_string(pod, "metadata.name"));
        (void) api_client_request(s->client, "PATCH", path,
                                  "application/strategic-merge-patch+json", body, strlen(body),
                                  &status, &resp, NULL);
        (void) api_client_event(s->client, pod, "Warning", "FailedScheduling", message,
                                SCHEDULER_NAME, NULL, NULL);
}

static void schedule_pass(struct scheduler *s)
{
        cleanup_json json_t *nodes_list = NULL, *pods = json_array(), *pending = json_array();
        const char *key;
        json_t *pod, *nodes;
        size_t i;
        long status = 0;

        cleanup_json json_t *snapshot = NULL;

        pthread_mutex_lock(&s->lock);
        snapshot = json_deep_copy(s->pods);
        s->changed = false;
        pthread_mutex_unlock(&s->lock);
        json_object_foreach(snapshot, key, pod) {
                json_array_append(pods, pod);
                if (!json_path_string(pod, "spec.nodeName") &&
                    !json_path(pod, "metadata.deletionTimestamp") &&
                    streq(json_path_string(pod, "spec.schedulerName") ?: SCHEDULER_NAME,
                          SCHEDULER_NAME))
                        json_array_append(pending, pod);
        }
        if (!json_array_size(pending))
                return;
        if (api_client_request(s->client, "GET", "/api/v1/nodes", NULL, NULL, 0, &status,
                               &nodes_list, NULL) < 0 ||
            status != 200)
                return;
        nodes = json_object_get(nodes_list, "items");
        json_array_foreach(pending, i, pod) {
                char *message = NULL;
                const char *node = scheduler_pick_node(pod, nodes, pods, &message);

                if (node)
                        (void) bind_pod(s, pod, node);
                else
                        mark_unschedulable(s, pod, message);
                free(message);
        }
}

static int on_event(void *ud, const char *type, json_t *object)
{
        struct scheduler *s = ud;
        cleanup_free char *key = NULL;

        if (atomic_load(&s->stop))
                return 1;
        if (streq(type, "ERROR"))
                return -ESTALE;
        if (streq(type, "BOOKMARK"))
                return 0;
        key = cache_key(object);
        pthread_mutex_lock(&s->lock);
        if (streq(type, "DELETED"))
                json_object_del(s->pods, key);
        else
                json_object_set(s->pods, key, object);
        s->changed = true;
        pthread_cond_signal(&s->wake);
        pthread_mutex_unlock(&s->lock);
        return 0;
}

static void scheduler_free(struct scheduler *s)
{
        api_client_free(s->watch_client);
        api_client_free(s->client);
        json_decref(s->pods);
        pthread_mutex_destroy(&s->lock);
        pthread_cond_destroy(&s->wake);
        free(s);
}

static void scheduler_unref(struct scheduler *s)
{
        if (atomic_fetch_sub(&s->refs, 1) == 1)
                scheduler_free(s);
}

/* Keeps the pod cache: list, then watch from the list's version; again when the watch ends. */
static void *watch_main(void *arg)
{
        struct scheduler *s = arg;

        while (!atomic_load(&s->stop)) {
                cleanup_json json_t *list = NULL;
                cleanup_free char *path = NULL;
                long status = 0;
                size_t i;
                json_t *pod;

                if (api_client_request(s->watch_client, "GET", "/api/v1/pods", NULL, NULL, 0,
                                       &status, &list, NULL) < 0 ||
                    status != 200) {
                        usleep(RETRY_DELAY_US);
                        continue;
                }
                pthread_mutex_lock(&s->lock);
                json_object_clear(s->pods);
                json_array_foreach(json_object_get(list, "items"), i, pod) {
                        cleanup_free char *key = cache_key(pod);
                        json_object_set(s->pods, key, pod);
                }
                s->changed = true;
                pthread_cond_signal(&s->wake);
                pthread_mutex_unlock(&s->lock);
                path = xasprintf("/api/v1/pods?watch=true&resourceVersion=%s&timeoutSeconds=%d",
                                 json_path_string(list, "metadata.resourceVersion") ?: "0",
                                 WATCH_TIMEOUT_S);
                (void) api_client_watch(s->watch_client, path, on_event, s, NULL);
        }
        scheduler_unref(s);
        return NULL;
}

/* Runs a pass when the cache changed, and every PASS_PERIOD_S regardless. */
static void *pass_main(void *arg)
{
        struct scheduler *s = arg;

        while (!atomic_load(&s->stop)) {
                struct timespec deadline;

                schedule_pass(s);
                clock_gettime(CLOCK_REALTIME, &deadline);
                deadline.tv_sec += PASS_PERIOD_S;
                pthread_mutex_lock(&s->lock);
                while (!s->changed && !atomic_load(&s->stop) &&
                       pthread_cond_timedwait(&s->wake, &s->lock, &deadline) == 0)
                        ;
                pthread_mutex_unlock(&s->lock);
        }
        scheduler_unref(s);
        return NULL;
}

int scheduler_start(const struct api_client_options *o, struct scheduler **ret,
                    struct error **reterr)
{
        struct scheduler *s = xcalloc(1, sizeof(*s));
        int r;

        pthread_mutex_init(&s->lock, NULL);
        pthread_cond_init(&s->wake, NULL);
        s->pods = json_object();
        r = api_client_new(o, &s->watch_client, reterr);
        if (r >= 0)
                r = api_client_new(o, &s->client, reterr);
        if (r < 0) {
                scheduler_free(s);
                return r;
        }
        atomic_store(&s->refs, 2);
        if (pthread_create(&s->watch_thread, NULL, watch_main, s) != 0 ||
            pthread_create(&s->pass_thread, NULL, pass_main, s) != 0)
                abort(); /* only when the process is out of resources */
        *ret = s;
        return 0;
}

struct scheduler *scheduler_stop(struct scheduler *s)
{
        if (!s)
                return NULL;
        atomic_store(&s->stop, true);
        pthread_mutex_lock(&s->lock);
        pthread_cond_signal(&s->wake);
        pthread_mutex_unlock(&s->lock);
        /* The pass thread ends at once; the watch thread at its next event or timeout. The
         * last of the two frees the scheduler. */
        (void) pthread_detach(s->pass_thread);
        (void) pthread_detach(s->watch_thread);
        return NULL;
}
