/* node-graph.c: which objects a node reaches through the pods bound to it, answered from the
 * store at the time of the request (node-graph.h), and who is a node. The decisions built on
 * it are the Node authorizer's (authz-node.c) and NodeRestriction's
 * (admission-noderestriction.c); this file decides nothing itself. */
#include <errno.h>
#include <string.h>

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
