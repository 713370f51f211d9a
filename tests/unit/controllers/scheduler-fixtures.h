/* scheduler-fixtures.h: fake Nodes and Pods for the scheduler's unit tests (test-scheduler-*.c):
 * nodes labelled with their hostname and zone, Ready, with the allocatable given; pods in
 * namespace "default" with labels, requests and a node. Header-only: each test is one binary. */
#ifndef FLEXLET_TESTS_SCHEDULER_FIXTURES_H
#define FLEXLET_TESTS_SCHEDULER_FIXTURES_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/json.h"
#include "controllers/scheduler.h"

static inline json_t *fx_json(const char *text)
{
        json_t *v = json_loads(text, JSON_DECODE_ANY, NULL);
        assert_non_null(v);
        return v;
}

/* Sets obj's dotted path (objects made on the way) to the JSON text value. */
static inline void fx_set(json_t *obj, const char *path, const char *value)
{
        char *p = xstrdup(path), *dot, *at = p;

        while ((dot = strchr(at, '.'))) {
                *dot = '\0';
                obj = json_object_ensure(obj, at);
                at = dot + 1;
        }
        json_object_set_new(obj, at, fx_json(value));
        free(p);
}

/* A Ready node labelled kubernetes.io/hostname=name and, when zone, topology.kubernetes.io/zone,
 * appended to nodes; returns it (borrowed). */
static inline json_t *fx_node(json_t *nodes, const char *name, const char *zone, const char *cpu,
                              const char *mem)
{
        json_t *n = json_pack("{s:{s:s, s:{s:s}}, s:{s:{s:s, s:s, s:s}, s:[{s:s, s:s}]}}",
                              "metadata", "name", name, "labels", "kubernetes.io/hostname", name,
                              "status", "allocatable", "cpu", cpu, "memory", mem, "pods", "110",
                              "conditions", "type", "Ready", "status", "True");
        assert_non_null(n);
        if (zone)
                json_object_set_new(json_path(n, "metadata.labels"), "topology.kubernetes.io/zone",
                                    json_string(zone));
        json_array_append_new(nodes, n);
        return n;
}

/* A pod in "default" with labels (JSON text or NULL), bound to node (NULL: pending), one
 * container requesting cpu and mem (NULL: no requests); appended to pods when pods is not NULL.
 * Returns it (a new reference when pods is NULL, else borrowed). */
static inline json_t *fx_pod(json_t *pods, const char *name, const char *node, const char *labels,
                             const char *cpu, const char *mem)
{
        json_t *p =
                json_pack("{s:{s:s, s:s, s:s}, s:{s:[{s:s}]}}", "metadata", "name", name,
                          "namespace", "default", "uid", name, "spec", "containers", "name", "c");
        assert_non_null(p);
        if (labels)
                fx_set(p, "metadata.labels", labels);
        if (node)
                json_object_set_new(json_object_get(p, "spec"), "nodeName", json_string(node));
        if (cpu || mem) {
                json_t *req = json_object();
                if (cpu)
                        json_object_set_new(req, "cpu", json_string(cpu));
                if (mem)
                        json_object_set_new(req, "memory", json_string(mem));
                json_object_set_new(json_array_get(json_path(p, "spec.containers"), 0), "resources",
                                    json_pack("{s:o}", "requests", req));
        }
        if (pods)
                json_array_append_new(pods, p);
        return p;
}

/* The decision for pod; the message (or "") into *ret_message, freed by the caller. */
static inline const char *fx_schedule(const json_t *pod, const struct scheduler_cluster *cl,
                                      char **ret_message)
{
        char *msg = NULL;
        const char *node = scheduler_schedule(pod, cl, &msg);

        *ret_message = msg ? msg : xstrdup("");
        return node;
}

#endif
