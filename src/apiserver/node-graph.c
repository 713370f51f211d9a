/* node-graph.c: which objects a node reaches through the pods bound to it, answered from the
 * store at the time of the request (node-graph.h), and who is a node. The decisions built on
 * it are the Node authorizer's (authz-node.c) and NodeRestriction's
 * (admission-noderestriction.c); this file decides nothing itself. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/local-volume.h"
#include "apiserver/authn.h"
#include "apiserver/node-graph.h"
#include "base/alloc.h"
#include "base/json.h"
#include "store/store.h"

bool node_identity(const struct authn_user *u, const char **ret_name)
{
        bool in_group = false;

        if (!u || !u->name || strncmp(u->name, NODE_USER_PREFIX, strlen(NODE_USER_PREFIX)) != 0)
                return false;
        for (size_t i = 0; u->groups && u->groups[i]; i++)
                if (streq(u->groups[i], NODE_GROUP)) {
                        in_group = true;
                        break;
                }
        if (!in_group)
                return false;
        *ret_name = u->name + strlen(NODE_USER_PREFIX);
        return true;
}

static bool visit_name(const char *name, node_ref_fn fn, void *ud)
{
        return !name || !*name || fn(ud, name);
}

/* K8S: the secret references of the volume plugins (VisitPodSecretNames). */
static const char *const secret_volume_paths[] = {
        "secret.secretName",         "azureFile.secretName",
        "cephfs.secretRef.name",     "cinder.secretRef.name",
        "flexVolume.secretRef.name", "rbd.secretRef.name",
        "scaleIO.secretRef.name",    "iscsi.secretRef.name",
        "storageos.secretRef.name",  "csi.nodePublishSecretRef.name",
};

static bool visit_containers(const json_t *pod, enum node_vertex kind, node_ref_fn fn, void *ud)
{
        static const char *const lists[] = { "spec.initContainers", "spec.containers",
                                             "spec.ephemeralContainers" };
        const char *from = kind == NODE_VERTEX_SECRET ? "secretRef.name" : "configMapRef.name";
        const char *key = kind == NODE_VERTEX_SECRET ? "valueFrom.secretKeyRef.name"
                                                     : "valueFrom.configMapKeyRef.name";

        for (size_t l = 0; l < ARRAY_SIZE(lists); l++) {
                size_t i, j;
                json_t *c, *e;

                json_array_foreach(json_path(pod, lists[l]), i, c) {
                        json_array_foreach(json_object_get(c, "envFrom"), j, e)
                                if (!visit_name(json_path_string(e, from), fn, ud))
                                        return false;
                        json_array_foreach(json_object_get(c, "env"), j, e)
                                if (!visit_name(json_path_string(e, key), fn, ud))
                                        return false;
                }
        }
        return true;
}

static bool visit_volumes(const json_t *pod, enum node_vertex kind, node_ref_fn fn, void *ud)
{
        size_t i, j;
        json_t *v, *src;

        json_array_foreach(json_path(pod, "spec.volumes"), i, v) {
                if (kind == NODE_VERTEX_PVC) {
                        if (!visit_name(json_path_string(v, "persistentVolumeClaim.claimName"), fn,
                                        ud))
                                return false;
                        /* K8S: ephemeral.VolumeClaimName: "<pod>-<volume>" */
                        if (json_object_get(v, "ephemeral")) {
                                cleanup_free char *claim = xasprintf(
                                        "%s-%s", json_path_string(pod, "metadata.name") ?: "",
                                        json_string_value(json_object_get(v, "name")) ?: "");
                                if (!fn(ud, claim))
                                        return false;
                        }
                        continue;
                }
                if (kind == NODE_VERTEX_SECRET) {
                        for (size_t p = 0; p < ARRAY_SIZE(secret_volume_paths); p++)
                                if (!visit_name(json_path_string(v, secret_volume_paths[p]), fn,
                                                ud))
                                        return false;
                } else if (!visit_name(json_path_string(v, "configMap.name"), fn, ud)) {
                        return false;
                }
                json_array_foreach(json_path(v, "projected.sources"), j, src)
                        if (!visit_name(json_path_string(src, kind == NODE_VERTEX_SECRET
                                                                      ? "secret.name"
                                                                      : "configMap.name"),
                                        fn, ud))
                                return false;
        }
        return true;
}

bool node_pod_visit(const json_t *pod, enum node_vertex kind, node_ref_fn fn, void *ud)
{
        size_t i;
        json_t *s;

        switch (kind) {
        case NODE_VERTEX_SERVICEACCOUNT:
                return visit_name(json_path_string(pod, "spec.serviceAccountName"), fn, ud);
        case NODE_VERTEX_PVC:
                return visit_volumes(pod, kind, fn, ud);
        case NODE_VERTEX_SECRET:
                json_array_foreach(json_path(pod, "spec.imagePullSecrets"), i, s)
                        if (!visit_name(json_string_value(json_object_get(s, "name")), fn, ud))
                                return false;
                return visit_containers(pod, kind, fn, ud) && visit_volumes(pod, kind, fn, ud);
        case NODE_VERTEX_CONFIGMAP:
                return visit_containers(pod, kind, fn, ud) && visit_volumes(pod, kind, fn, ud);
        case NODE_VERTEX_POD:
        case NODE_VERTEX_PV:
        case NODE_VERTEX_MAX:
                break;
        }
        return true;
}

static bool stop_at_name(void *ud, const char *name)
{
        return !streq(name, ud);
}

bool node_pod_refers(const json_t *pod, enum node_vertex kind, const char *name)
{
        return !node_pod_visit(pod, kind, stop_at_name, (void *) name);
}

bool node_pods_reach(const json_t *pods, const char *node, enum node_vertex kind, const char *ns,
                     const char *name)
{
        size_t i;
        json_t *pod;

        json_array_foreach(pods, i, pod) {
                if (!streq(json_path_string(pod, "spec.nodeName") ?: "", node) ||
                    !streq(json_path_string(pod, "metadata.namespace") ?: "", ns))
                        continue;
                if (node_pod_refers(pod, kind, name))
                        return true;
        }
        return false;
}

int node_graph_has_path(struct store *store, const char *node, enum node_vertex kind,
                        const char *ns, const char *name, bool *ret, struct error **reterr)
{
        cleanup_json json_t *obj = NULL, *pods = NULL;
        int r;

        *ret = false;
        if (!*node || !name || !*name)
                return 0;
        switch (kind) {
        case NODE_VERTEX_POD:
                r = store_get(store, "pods", ns, name, &obj, reterr);
                if (r == -ENOENT)
                        return 0;
                if (r < 0)
                        return r;
                *ret = streq(json_path_string(obj, "spec.nodeName") ?: "", node);
                return 0;
        case NODE_VERTEX_PV:
                /* pv -> pvc by the volume's claimRef, then the claim as any claim */
                r = store_get(store, "persistentvolumes", "", name, &obj, reterr);
                if (r == -ENOENT)
                        return 0;
                if (r < 0)
                        return r;
                if (local_volume_pinned_to(obj, node)) {
                        *ret = true;
                        return 0;
                }
                ns = json_path_string(obj, "spec.claimRef.namespace");
                name = json_path_string(obj, "spec.claimRef.name");
                if (!ns || !name)
                        return 0;
                kind = NODE_VERTEX_PVC;
                break;
        case NODE_VERTEX_SECRET:
        case NODE_VERTEX_CONFIGMAP:
        case NODE_VERTEX_SERVICEACCOUNT:
        case NODE_VERTEX_PVC:
                break;
        case NODE_VERTEX_MAX:
                return 0;
        }
        /* only the pods of the object's own namespace can refer to it */
        r = store_list(store, "pods", ns, &pods, NULL, reterr);
        if (r < 0)
                return r;
        *ret = node_pods_reach(pods, node, kind, ns, name);
        return 0;
}

/* ---- the graph in memory ---- */

struct node_graph {
        struct store *store;
        pthread_t thread;
        atomic_bool stop;
        pthread_rwlock_t lock;
        /* "<ns>/<pod>" -> [edge keys the pod holds]; edge key -> count of pods holding it */
        json_t *pods;
        json_t *edges;
        uint64_t rv; /* what the graph reflects (the list's, then each event's) */
};

static const char *const vertex_names[NODE_VERTEX_MAX] = {
        [NODE_VERTEX_POD] = "pod",
        [NODE_VERTEX_SECRET] = "secret",
        [NODE_VERTEX_CONFIGMAP] = "configmap",
        [NODE_VERTEX_SERVICEACCOUNT] = "serviceaccount",
        [NODE_VERTEX_PVC] = "pvc",
        [NODE_VERTEX_PV] = "pv",
};

/* An edge's key: "<node>\n<kind>\n<ns>\n<name>" (no part holds a newline: names are DNS
 * labels or subdomains, node names too). */
static char *edge_key(const char *node, enum node_vertex kind, const char *ns, const char *name)
{
        return xasprintf("%s\n%s\n%s\n%s", node, vertex_names[kind], ns, name);
}

struct edge_collect {
        json_t *keys;
        const char *node, *ns;
        enum node_vertex kind;
};

static bool collect_edge(void *ud, const char *name)
{
        struct edge_collect *c = ud;

        char *key = edge_key(c->node, c->kind, c->ns, name);

        json_array_append_new(c->keys, json_string_nocheck(key));
        free(key);
        return true;
}

/* The edges of pod: none unless it is bound to a node. */
static json_t *pod_edges(const json_t *pod)
{
        static const enum node_vertex kinds[] = { NODE_VERTEX_SECRET, NODE_VERTEX_CONFIGMAP,
                                                  NODE_VERTEX_SERVICEACCOUNT, NODE_VERTEX_PVC };
        const char *node = json_path_string(pod, "spec.nodeName");
        const char *ns = json_path_string(pod, "metadata.namespace") ?: "";
        struct edge_collect c = { .keys = json_array(), .node = node, .ns = ns };

        if (!node || !*node)
                return c.keys;
        c.kind = NODE_VERTEX_POD;
        (void) collect_edge(&c, json_path_string(pod, "metadata.name") ?: "");
        for (size_t i = 0; i < ARRAY_SIZE(kinds); i++) {
                c.kind = kinds[i];
                (void) node_pod_visit(pod, kinds[i], collect_edge, &c);
        }
        return c.keys;
}

/* Under the write lock: pod's edges replace those the graph held for it (deleted: none). */
static void graph_set_pod(struct node_graph *g, const json_t *pod, bool deleted)
{
        cleanup_free char *key =
                xasprintf("%s/%s", json_path_string(pod, "metadata.namespace") ?: "",
                          json_path_string(pod, "metadata.name") ?: "");
        json_t *old = json_object_get(g->pods, key), *e;
        size_t i;

        json_array_foreach(old, i, e) {
                const char *k = json_string_value(e);
                json_int_t n = json_integer_value(json_object_get(g->edges, k)) - 1;

                if (n > 0)
                        json_object_set_new(g->edges, k, json_integer(n));
                else
                        json_object_del(g->edges, k);
        }
        json_object_del(g->pods, key);
        if (deleted)
                return;
        old = pod_edges(pod);
        json_array_foreach(old, i, e) {
                const char *k = json_string_value(e);
                json_object_set_new(
                        g->edges, k,
                        json_integer(json_integer_value(json_object_get(g->edges, k)) + 1));
        }
        json_object_set_new(g->pods, key, old);
}

/* Lists every pod and rebuilds the graph from it. */
static int graph_rebuild(struct node_graph *g, struct error **reterr)
{
        cleanup_json json_t *items = NULL;
        uint64_t rv = 0;
        size_t i;
        json_t *pod;
        int r = store_list(g->store, "pods", NULL, &items, &rv, reterr);

        if (r < 0)
                return r;
        pthread_rwlock_wrlock(&g->lock);
        json_object_clear(g->pods);
        json_object_clear(g->edges);
        json_array_foreach(items, i, pod)
                graph_set_pod(g, pod, false);
        g->rv = rv;
        pthread_rwlock_unlock(&g->lock);
        return 0;
}

/* What can change a pod's edges: its coming and going, and its spec (the edges are made of
 * spec and the pod's immutable name). The store's objects share equal values (interned), so an
 * unchanged spec is the same pointer: a status update neither queues nor wakes the graph. */
static bool edges_may_change(enum store_event_type type, const json_t *before, const json_t *obj)
{
        return type != STORE_EVENT_MODIFIED || !before ||
               json_object_get(before, "spec") != json_object_get(obj, "spec");
}

static void *graph_main(void *arg)
{
        struct node_graph *g = arg;

        (void) pthread_setname_np(pthread_self(), "node-graph");
        while (!atomic_load(&g->stop)) {
                struct store_watch *w = NULL;
                struct store_event ev = { 0 };
                int r;

                if (store_watch_start(g->store, "pods", NULL, g->rv, &w, NULL) < 0) {
                        /* too old (or the store closing): the whole picture again */
                        if (graph_rebuild(g, NULL) < 0)
                                (void) usleep(200 * 1000);
                        continue;
                }
                store_watch_filter(w, edges_may_change);
                while (!atomic_load(&g->stop) && (r = store_watch_next(w, 200, &ev)) >= 0) {
                        if (r == 0)
                                continue;
                        pthread_rwlock_wrlock(&g->lock);
                        graph_set_pod(g, ev.object, ev.type == STORE_EVENT_DELETED);
                        g->rv = ev.rv;
                        pthread_rwlock_unlock(&g->lock);
                        store_event_release(&ev);
                }
                (void) store_watch_stop(w);
                /* fell behind or the store ends its watches: list again before watching on
                 * (not at once: a store that is closing ends every new watch too) */
                if (atomic_load(&g->stop))
                        break;
                (void) usleep(50 * 1000);
                if (graph_rebuild(g, NULL) < 0)
                        (void) usleep(200 * 1000);
        }
        return NULL;
}

int node_graph_new(struct store *store, struct node_graph **ret, struct error **reterr)
{
        struct node_graph *g = xcalloc(1, sizeof(*g));
        int r;

        g->store = store;
        g->pods = json_object();
        g->edges = json_object();
        pthread_rwlock_init(&g->lock, NULL);
        r = graph_rebuild(g, reterr);
        if (r < 0) {
                json_decref(g->pods);
                json_decref(g->edges);
                pthread_rwlock_destroy(&g->lock);
                free(g);
                return r;
        }
        if (pthread_create(&g->thread, NULL, graph_main, g) != 0)
                abort(); /* thread creation only fails when the process is out of resources */
        *ret = g;
        return 0;
}

void node_graph_free(struct node_graph *g)
{
        if (!g)
                return;
        atomic_store(&g->stop, true);
        (void) pthread_join(g->thread, NULL);
        json_decref(g->pods);
        json_decref(g->edges);
        pthread_rwlock_destroy(&g->lock);
        free(g);
}

int node_graph_lookup(struct node_graph *g, const char *node, enum node_vertex kind, const char *ns,
                      const char *name, bool *ret, struct error **reterr)
{
        cleanup_json json_t *pv = NULL;
        cleanup_free char *key = NULL;
        bool hit;
        int r;

        *ret = false;
        if (!*node || !name || !*name || kind >= NODE_VERTEX_MAX)
                return 0;
        if (kind == NODE_VERTEX_PV) {
                /* pv -> pvc by the volume's claimRef: one read, then the claim's edge */
                r = store_get(g->store, "persistentvolumes", "", name, &pv, reterr);
                if (r == -ENOENT)
                        return 0;
                if (r < 0)
                        return r;
                if (local_volume_pinned_to(pv, node)) {
                        *ret = true;
                        return 0;
                }
                ns = json_path_string(pv, "spec.claimRef.namespace");
                name = json_path_string(pv, "spec.claimRef.name");
                if (!ns || !name)
                        return 0;
                kind = NODE_VERTEX_PVC;
        }
        key = edge_key(node, kind, ns, name);
        pthread_rwlock_rdlock(&g->lock);
        hit = json_object_get(g->edges, key) != NULL;
        pthread_rwlock_unlock(&g->lock);
        if (hit) {
                *ret = true;
                return 0;
        }
        return node_graph_has_path(g->store, node, kind, ns, name, ret, reterr);
}
