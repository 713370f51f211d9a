/* admission-noderestriction.c: NodeRestriction (K8S: plugin/pkg/admission/noderestriction,
 * admission.go, with kubelet's well_known_labels.go for the labels a node may set), the
 * decisions over plain JSON and the store reads behind them. Who is a node is node-graph.c's;
 * what a node may do at all is the Node authorizer's (authz-node.c), which runs before. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/local-volume.h"
#include "apiserver/admission-noderestriction.h"
#include "apiserver/apiserver-internal.h"
#include "apiserver/authn.h"
#include "apiserver/node-graph.h"
#include "apiserver/status.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/strbuf.h"
#include "store/store.h"

/* K8S: api.MirrorPodAnnotationKey */
#define MIRROR_POD_ANNOTATION "kubernetes.io/config.mirror"
/* K8S: v1.LabelNamespaceNodeRestriction */
#define LABEL_NAMESPACE_NODE_RESTRICTION "node-restriction.kubernetes.io"

const char *node_restriction_op_to_string(enum node_restriction_op op)
{
        static const char *const names[NODE_RESTRICTION_OP_MAX] = {
                [NODE_RESTRICTION_CREATE] = "CREATE",
                [NODE_RESTRICTION_UPDATE] = "UPDATE",
                [NODE_RESTRICTION_DELETE] = "DELETE",
        };
        return op < NODE_RESTRICTION_OP_MAX ? names[op] : "";
}

const char *node_restriction_subject_name(const struct node_restriction_request *r)
{
        const char *s;

        if (r->name && *r->name)
                return r->name;
        if (!r->obj)
                return "Unknown";
        s = json_path_string(r->obj, "metadata.name");
        if (s && *s)
                return s;
        s = json_path_string(r->obj, "metadata.generateName");
        return s && *s ? s : "Unknown";
}

static int forbid(struct error **reterr, const char *fmt, ...) _printf_(2, 3);

/* -EPERM with the reason a NewForbidden of the plugin gives */
static int forbid(struct error **reterr, const char *fmt, ...)
{
        cleanup_free char *msg = NULL;
        va_list ap;
        int n;

        va_start(ap, fmt);
        n = vasprintf(&msg, fmt, ap);
        va_end(ap);
        if (n < 0)
                abort();
        return error_set(reterr, EPERM, "%s", msg);
}

static const char *str(const json_t *obj, const char *path)
{
        return json_path_string(obj, path) ?: "";
}

/* ---- labels (K8S: getModifiedLabels, getForbiddenLabels, kubeletapis.IsKubeletLabel) ---- */

static size_t label_namespace(const char *key)
{
        const char *slash = strchr(key, '/');
        return slash ? (size_t) (slash - key) : 0;
}

static bool namespace_is(const char *key, size_t n, const char *ns)
{
        size_t l = strlen(ns);

        if (n == l && strncmp(key, ns, n) == 0)
                return true;
        /* a subdomain: ".<ns>" at the end */
        return n > l + 1 && key[n - l - 1] == '.' && strncmp(key + n - l, ns, l) == 0;
}

static bool is_kubelet_label(const char *key)
{
        static const char *const labels[] = {
                "kubernetes.io/hostname",
                "topology.kubernetes.io/zone",
                "topology.kubernetes.io/region",
                "failure-domain.beta.kubernetes.io/zone",
                "failure-domain.beta.kubernetes.io/region",
                "beta.kubernetes.io/instance-type",
                "node.kubernetes.io/instance-type",
                "kubernetes.io/os",
                "kubernetes.io/arch",
                "beta.kubernetes.io/os",
                "beta.kubernetes.io/arch",
        };
        size_t n = label_namespace(key);

        for (size_t i = 0; i < ARRAY_SIZE(labels); i++)
                if (streq(key, labels[i]))
                        return true;
        return namespace_is(key, n, "kubelet.kubernetes.io") ||
               namespace_is(key, n, "node.kubernetes.io");
}

static bool label_forbidden(const char *key)
{
        size_t n = label_namespace(key);
        bool kubernetes = namespace_is(key, n, "kubernetes.io") || namespace_is(key, n, "k8s.io");

        return namespace_is(key, n, LABEL_NAMESPACE_NODE_RESTRICTION) ||
               (kubernetes && !is_kubelet_label(key));
}

static int compare_keys(const void *a, const void *b)
{
        return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* The keys of the labels added, removed or changed between a and b that a node may not touch,
 * sorted and joined with ", " (as sets.String.List()); NULL when none. */
static char *forbidden_label_changes(const json_t *a, const json_t *b)
{
        const char **keys = xcalloc(json_object_size(a) + json_object_size(b) + 1, sizeof(*keys));
        struct strbuf sb;
        const char *k;
        json_t *v;
        size_t n = 0;

        json_object_foreach((json_t *) a, k, v) {
                if (!json_equal(v, json_object_get(b, k)) && label_forbidden(k))
                        keys[n++] = k;
        }
        json_object_foreach((json_t *) b, k, v) {
                if (!json_object_get(a, k) && label_forbidden(k))
                        keys[n++] = k;
        }
        if (!n) {
                free(keys);
                return NULL;
        }
        qsort(keys, n, sizeof(*keys), compare_keys);
        strbuf_init(&sb);
        for (size_t i = 0; i < n; i++)
                strbuf_addf(&sb, "%s%s", i ? ", " : "", keys[i]);
        free(keys);
        return strbuf_detach(&sb);
}

static const json_t *labels_of(const json_t *obj)
{
        const json_t *l = json_path(obj, "metadata.labels");
        return json_is_object(l) ? l : NULL;
}

/* K8S: labels.Equals (an absent map equals an empty one) */
static bool labels_equal(const json_t *a, const json_t *b)
{
        if (!json_object_size(a) && !json_object_size(b))
                return true;
        return a && b && json_equal(a, b);
}

/* ---- nodes ---- */

static int admit_node(const struct node_restriction_request *r, struct error **reterr)
{
        const char *requested = node_restriction_subject_name(r);
        const json_t *config;
        cleanup_free char *bad = NULL;

        if (r->op == NODE_RESTRICTION_CREATE)
                requested = str(r->obj, "metadata.name");
        if (!streq(requested, r->node))
                return forbid(reterr, "node \"%s\" is not allowed to modify node \"%s\"", r->node,
                              requested);
        if (r->op == NODE_RESTRICTION_CREATE) {
                if (json_path(r->obj, "spec.configSource") &&
                    !json_is_null(json_path(r->obj, "spec.configSource")))
                        return forbid(reterr,
                                      "node \"%s\" is not allowed to create pods with a non-nil "
                                      "configSource",
                                      r->node);
                bad = forbidden_label_changes(labels_of(r->obj), NULL);
                if (bad)
                        return forbid(reterr,
                                      "node \"%s\" is not allowed to set the following labels: %s",
                                      r->node, bad);
        }
        if (r->op == NODE_RESTRICTION_UPDATE) {
                const json_t *taints = json_path(r->obj, "spec.taints");
                const json_t *old_taints = json_path(r->old, "spec.taints");

                config = json_path(r->obj, "spec.configSource");
                if (config && !json_is_null(config) &&
                    !json_equal(config, json_path(r->old, "spec.configSource")))
                        return forbid(reterr,
                                      "node \"%s\" is not allowed to update configSource to a new "
                                      "non-nil configSource",
                                      r->node);
                /* K8S: Semantic.DeepEqual takes an empty list for none */
                bool changed = (json_array_size(taints) || json_array_size(old_taints)) &&
                               !(taints && old_taints && json_equal(taints, old_taints));

                if (changed)
                        return forbid(reterr, "node \"%s\" is not allowed to modify taints",
                                      r->node);
                bad = forbidden_label_changes(labels_of(r->obj), labels_of(r->old));
                if (bad)
                        return forbid(reterr, "is not allowed to modify labels: %s", bad);
        }
        return 0;
}

/* ---- pods ---- */

static int not_found(struct error **reterr, const char *what, const char *name)
{
        /* K8S: the listers' errors.NewNotFound(v1.Resource("pod"), name) */
        return error_set(reterr, ENOENT, "%s \"%s\" not found", what, name);
}

static bool stop_at_any(void *ud, const char *name)
{
        return false;
}

static bool pod_refers_any(const json_t *pod, enum node_vertex kind)
{
        size_t i;
        json_t *v;

        if (kind == NODE_VERTEX_PVC) {
                json_array_foreach(json_path(pod, "spec.volumes"), i, v)
                        if (json_object_get(v, "persistentVolumeClaim"))
                                return true;
                return false;
        }
        return !node_pod_visit(pod, kind, stop_at_any, NULL);
}

/* (the annotation's key has dots: no json_path) */
static bool is_mirror_pod(const json_t *pod)
{
        return json_object_get(json_path(pod, "metadata.annotations"), MIRROR_POD_ANNOTATION);
}

/* K8S: admitPodCreate: a node creates only mirror pods bound to itself, owned by its Node and
 * referring to no other object. */
static int admit_pod_create(const struct node_restriction_request *r, struct error **reterr)
{
        const json_t *pod = r->obj, *owners = json_path(pod, "metadata.ownerReferences"), *owner;
        const char *node = r->node;
        size_t i, j;
        json_t *v, *src;

        if (!is_mirror_pod(pod))
                return forbid(reterr,
                              "pod does not have \"%s\" annotation, node \"%s\" can only create "
                              "mirror pods",
                              MIRROR_POD_ANNOTATION, node);
        if (!streq(str(pod, "spec.nodeName"), node))
                return forbid(reterr,
                              "node \"%s\" can only create pods with spec.nodeName set to itself",
                              node);
        if (json_array_size(owners) > 1)
                return forbid(reterr,
                              "node \"%s\" can only create pods with a single owner reference set "
                              "to itself",
                              node);
        if (json_array_size(owners) == 0)
                return forbid(reterr,
                              "node \"%s\" can only create pods with an owner reference set to "
                              "itself",
                              node);
        owner = json_array_get(owners, 0);
        if (!streq(str(owner, "apiVersion"), "v1") || !streq(str(owner, "kind"), "Node") ||
            !streq(str(owner, "name"), node))
                return forbid(reterr,
                              "node \"%s\" can only create pods with an owner reference set to "
                              "itself",
                              node);
        if (!json_is_true(json_object_get(owner, "controller")))
                return forbid(reterr,
                              "node \"%s\" can only create pods with a controller owner reference "
                              "set to itself",
                              node);
        if (json_is_true(json_object_get(owner, "blockOwnerDeletion")))
                return forbid(reterr,
                              "node \"%s\" must not set blockOwnerDeletion on an owner reference",
                              node);
        if (!r->node_obj)
                return not_found(reterr, "node", node);
        if (!streq(str(owner, "uid"), str(r->node_obj, "metadata.uid")))
                return forbid(reterr, "node %s UID mismatch: expected %s got %s", node,
                              str(owner, "uid"), str(r->node_obj, "metadata.uid"));
        if (*str(pod, "spec.serviceAccountName"))
                return forbid(reterr,
                              "node \"%s\" can not create pods that reference a service account",
                              node);
        if (pod_refers_any(pod, NODE_VERTEX_SECRET))
                return forbid(reterr, "node \"%s\" can not create pods that reference secrets",
                              node);
        if (pod_refers_any(pod, NODE_VERTEX_CONFIGMAP))
                return forbid(reterr, "node \"%s\" can not create pods that reference configmaps",
                              node);
        json_array_foreach(json_path(pod, "spec.volumes"), i, v)
                json_array_foreach(json_path(v, "projected.sources"), j, src)
                        if (json_object_get(src, "clusterTrustBundle"))
                                return forbid(reterr,
                                              "node \"%s\" can not create pods that reference "
                                              "clustertrustbundles",
                                              node);
        if (pod_refers_any(pod, NODE_VERTEX_PVC))
                return forbid(reterr,
                              "node \"%s\" can not create pods that reference "
                              "persistentvolumeclaims",
                              node);
        return 0;
}

/* K8S: resourceClaimStatusesEqual: the same names and claim names, in order */
static bool claim_statuses_equal(const json_t *a, const json_t *b)
{
        if (json_array_size(a) != json_array_size(b))
                return false;
        for (size_t i = 0; i < json_array_size(a); i++) {
                const json_t *x = json_array_get(a, i), *y = json_array_get(b, i);
                const json_t *cx = json_object_get(x, "resourceClaimName"),
                             *cy = json_object_get(y, "resourceClaimName");

                if (!streq(str(x, "name"), str(y, "name")) ||
                    (cx && !json_is_null(cx)) != (cy && !json_is_null(cy)) ||
                    (cx && cy && !json_equal(cx, cy)))
                        return false;
        }
        return true;
}

static int admit_pod(const struct node_restriction_request *r, struct error **reterr)
{
        const char *node = r->node;

        if (!*r->subresource) {
                if (r->op == NODE_RESTRICTION_CREATE)
                        return admit_pod_create(r, reterr);
                if (r->op == NODE_RESTRICTION_DELETE) {
                        if (!r->pod)
                                return not_found(reterr, "pod", r->name);
                        if (!streq(str(r->pod, "spec.nodeName"), node))
                                return forbid(reterr,
                                              "node \"%s\" can only delete pods with spec.nodeName "
                                              "set to itself",
                                              node);
                        return 0;
                }
                return forbid(reterr,
                              "unexpected operation \"%s\", node \"%s\" can only create and delete "
                              "mirror pods",
                              node_restriction_op_to_string(r->op), node);
        }
        if (streq(r->subresource, "status")) {
                if (r->op != NODE_RESTRICTION_UPDATE)
                        return forbid(reterr, "unexpected operation \"%s\"",
                                      node_restriction_op_to_string(r->op));
                if (!streq(str(r->old, "spec.nodeName"), node))
                        return forbid(reterr,
                                      "node \"%s\" can only update pod status for pods with "
                                      "spec.nodeName set to itself",
                                      node);
                if (!labels_equal(labels_of(r->old), labels_of(r->obj)))
                        return forbid(reterr, "node \"%s\" cannot update labels through pod status",
                                      node);
                if (!claim_statuses_equal(json_path(r->old, "status.resourceClaimStatuses"),
                                          json_path(r->obj, "status.resourceClaimStatuses")))
                        return forbid(reterr, "node \"%s\" cannot update resource claim statues",
                                      node);
                return 0;
        }
        if (streq(r->subresource, "eviction")) {
                const char *pod = r->name && *r->name ? r->name : str(r->obj, "metadata.name");

                if (r->op != NODE_RESTRICTION_CREATE)
                        return forbid(reterr, "unexpected operation %s",
                                      node_restriction_op_to_string(r->op));
                if (!*pod)
                        return forbid(reterr, "could not determine pod from request data");
                if (!r->pod)
                        return not_found(reterr, "pod", pod);
                if (!streq(str(r->pod, "spec.nodeName"), node))
                        return forbid(
                                reterr,
                                "node %s can only evict pods with spec.nodeName set to itself",
                                node);
                return 0;
        }
        return forbid(reterr,
                      "unexpected pod subresource \"%s\", only 'status' and 'eviction' are allowed",
                      r->subresource);
}

/* ---- claims ---- */

/* A copy of a claim without what a node may change (K8S admitPVCStatus: resourceVersion,
 * managedFields, status.capacity and status.conditions, and with RecoverVolumeExpansionFailure,
 * on in flexlet as in 1.33, status.allocatedResources and allocatedResourceStatuses). */
static json_t *pvc_fixed_part(const json_t *pvc)
{
        json_t *c = json_deep_copy(pvc);
        json_t *meta = json_object_get(c, "metadata"), *status = json_object_get(c, "status");
        static const char *const changeable[] = { "capacity", "conditions", "allocatedResources",
                                                  "allocatedResourceStatuses" };

        json_object_del(meta, "resourceVersion");
        json_object_del(meta, "managedFields");
        for (size_t i = 0; i < ARRAY_SIZE(changeable); i++)
                json_object_del(status, changeable[i]);
        if (json_is_object(status) && json_object_size(status) == 0)
                json_object_del(c, "status");
        return c;
}

/* The fields (two levels deep: "metadata.labels") where a and b differ, joined with ", ". */
static char *pvc_differences(const json_t *a, const json_t *b)
{
        struct strbuf sb;
        const char *k, *k2;
        json_t *v, *v2;

        strbuf_init(&sb);
        json_object_foreach((json_t *) a, k, v) {
                const json_t *w = json_object_get(b, k);

                if (json_equal(v, w))
                        continue;
                if (!json_is_object(v) || !json_is_object(w)) {
                        strbuf_addf(&sb, "%s%s", sb.len ? ", " : "", k);
                        continue;
                }
                json_object_foreach(v, k2, v2)
                        if (!json_equal(v2, json_object_get(w, k2)))
                                strbuf_addf(&sb, "%s%s.%s", sb.len ? ", " : "", k, k2);
                json_object_foreach((json_t *) w, k2, v2)
                        if (!json_object_get(v, k2))
                                strbuf_addf(&sb, "%s%s.%s", sb.len ? ", " : "", k, k2);
        }
        json_object_foreach((json_t *) b, k, v)
                if (!json_object_get(a, k))
                        strbuf_addf(&sb, "%s%s", sb.len ? ", " : "", k);
        return strbuf_detach(&sb);
}

static int admit_pvc(const struct node_restriction_request *r, struct error **reterr)
{
        cleanup_json json_t *old = NULL, *new_obj = NULL;
        cleanup_free char *diff = NULL;

        if (!streq(r->subresource, "status"))
                return forbid(reterr, "may only update PVC status");
        if (r->op != NODE_RESTRICTION_UPDATE)
                return forbid(reterr, "unexpected operation \"%s\"",
                              node_restriction_op_to_string(r->op));
        old = pvc_fixed_part(r->old);
        new_obj = pvc_fixed_part(r->obj);
        if (json_equal(old, new_obj))
                return 0;
        /* upstream appends cmp.Diff's rendering of the two objects; flexlet names the fields */
        diff = pvc_differences(old, new_obj);
        return forbid(reterr,
                      "node \"%s\" is not allowed to update fields other than status.capacity and "
                      "status.conditions: %s",
                      r->node, diff);
}

/* ---- node-local volumes (flexlet) ---- */

/* A copy of a volume without what its node may change: resourceVersion, managedFields, the
 * annotation recording its backing file, and the provisioner's finalizer. */
static json_t *pv_fixed_part(const json_t *pv)
{
        json_t *c = json_deep_copy(pv);
        json_t *meta = json_object_get(c, "metadata");
        json_t *ann = json_object_get(meta, "annotations");
        json_t *fin = json_object_get(meta, "finalizers");
        json_t *kept = json_array();
        size_t i;
        json_t *f;

        json_object_del(meta, "resourceVersion");
        json_object_del(meta, "managedFields");
        json_object_del(ann, NODE_PV_ANN_PROVISIONED_ON);
        if (json_is_object(ann) && json_object_size(ann) == 0)
                json_object_del(meta, "annotations");
        json_array_foreach(fin, i, f) {
                if (!streq(json_string_value(f) ?: "", NODE_PV_FINALIZER))
                        json_array_append(kept, f);
        }
        if (json_array_size(kept))
                json_object_set(meta, "finalizers", kept);
        else
                json_object_del(meta, "finalizers");
        json_decref(kept);
        return c;
}

static bool has_finalizer(const json_t *obj, const char *name)
{
        size_t i;
        json_t *f;

        json_array_foreach(json_path(obj, "metadata.finalizers"), i, f) {
                if (streq(json_string_value(f) ?: "", name))
                        return true;
        }
        return false;
}

/* flexlet: a node may update a volume pinned to it (local_volume_pinned_to) only to record that it
 * made the backing file (the annotation NODE_PV_ANN_PROVISIONED_ON, its own name, never removed)
 * and to drop the provisioner's finalizer once it removed the file; nothing else, no create, no
 * delete, no status. */
static int admit_pv(const struct node_restriction_request *r, struct error **reterr)
{
        cleanup_json json_t *old = NULL, *new_obj = NULL;
        cleanup_free char *diff = NULL;
        const char *was, *now;

        if (r->op != NODE_RESTRICTION_UPDATE || *r->subresource)
                return forbid(reterr, "node \"%s\" may only update persistentvolumes pinned to it",
                              r->node);
        if (!local_volume_pinned_to(r->old, r->node) || !local_volume_pinned_to(r->obj, r->node))
                return forbid(reterr,
                              "node \"%s\" is not allowed to update a persistentvolume whose "
                              "node affinity is not this node alone",
                              r->node);
        was = json_string_value(json_object_get(json_path(r->old, "metadata.annotations"),
                                                NODE_PV_ANN_PROVISIONED_ON));
        now = json_string_value(json_object_get(json_path(r->obj, "metadata.annotations"),
                                                NODE_PV_ANN_PROVISIONED_ON));
        if ((was && !streq(was, now ?: "")) || (now && !streq(now, r->node)))
                return forbid(reterr, "node \"%s\" may only set %s to its own name", r->node,
                              NODE_PV_ANN_PROVISIONED_ON);
        if (!has_finalizer(r->old, NODE_PV_FINALIZER) && has_finalizer(r->obj, NODE_PV_FINALIZER))
                return forbid(reterr, "node \"%s\" may not add the finalizer %s", r->node,
                              NODE_PV_FINALIZER);
        old = pv_fixed_part(r->old);
        new_obj = pv_fixed_part(r->obj);
        if (json_equal(old, new_obj))
                return 0;
        diff = pvc_differences(old, new_obj);
        return forbid(reterr,
                      "node \"%s\" is not allowed to update fields other than the annotation %s "
                      "and the finalizer %s: %s",
                      r->node, NODE_PV_ANN_PROVISIONED_ON, NODE_PV_FINALIZER, diff);
}

/* ---- service account tokens ---- */

static int admit_service_account(const struct node_restriction_request *r, struct error **reterr)
{
        const json_t *ref;

        if (r->op != NODE_RESTRICTION_CREATE || !streq(r->subresource, "token"))
                return 0;
        ref = json_path(r->obj, "spec.boundObjectRef");
        if (!json_is_object(ref) || !streq(str(ref, "apiVersion"), "v1") ||
            !streq(str(ref, "kind"), "Pod") || !*str(ref, "name"))
                return forbid(reterr, "node requested token not bound to a pod");
        if (!*str(ref, "uid"))
                return forbid(reterr, "node requested token with a pod binding without a uid");
        if (!r->pod)
                return not_found(reterr, "pod", str(ref, "name"));
        if (!streq(str(ref, "uid"), str(r->pod, "metadata.uid")))
                return forbid(reterr,
                              "the UID in the bound object reference (%s) does not match the UID "
                              "in record. The object might have been deleted and then recreated",
                              str(ref, "uid"));
        if (!streq(str(r->pod, "spec.nodeName"), r->node))
                return forbid(reterr,
                              "node requested token bound to a pod scheduled on a different node");
        return 0;
}

/* ---- node leases ---- */

/* K8S: admitLease: only the lease named after the node, in kube-node-lease. */
static int admit_lease(const struct node_restriction_request *r, struct error **reterr)
{
        const char *name =
                r->op == NODE_RESTRICTION_CREATE ? str(r->obj, "metadata.name") : r->name;

        if (!streq(r->ns, "kube-node-lease"))
                return forbid(reterr, "can only access leases in the \"kube-node-lease\" system "
                                      "namespace");
        if (!streq(name, r->node))
                return forbid(reterr, "can only access node lease with the same name as the "
                                      "requesting node");
        return 0;
}

int node_restriction_decide(const struct node_restriction_request *r, struct error **reterr)
{
        if (!*r->node)
                return forbid(reterr, "could not determine node from user \"%s\"", r->user);
        if (streq(r->group, "coordination.k8s.io") && streq(r->resource, "leases"))
                return admit_lease(r, reterr);
        if (*r->group)
                return 0; /* csinodes are not served */
        if (streq(r->resource, "pods"))
                return admit_pod(r, reterr);
        if (streq(r->resource, "nodes"))
                return admit_node(r, reterr);
        if (streq(r->resource, "persistentvolumeclaims"))
                return admit_pvc(r, reterr);
        if (streq(r->resource, "persistentvolumes"))
                return admit_pv(r, reterr);
        if (streq(r->resource, "serviceaccounts"))
                return admit_service_account(r, reterr);
        return 0;
}

/* ---- the plugin in the chain ---- */

int node_restriction_admit(struct store *store, const struct api_target *t,
                           enum node_restriction_op op, const json_t *obj, const json_t *old,
                           struct http_response *resp)
{
        cleanup_error struct error *err = NULL;
        cleanup_json json_t *pod = NULL, *node_obj = NULL;
        struct node_restriction_request r;
        const char *node;
        int rc = 0;

        if (!node_identity(t->user, &node))
                return 0;
        r = (struct node_restriction_request){ .node = node,
                                               .user = t->user->name,
                                               .op = op,
                                               .group = t->res->group,
                                               .resource = t->res->plural,
                                               .subresource = api_subresource_name(t->sub),
                                               .ns = t->ns ?: "",
                                               .name = t->name ?: "",
                                               .obj = obj,
                                               .old = old };
        /* what the decision reads besides the request (K8S: the plugin's pod and node listers) */
        if (*node && streq(r.resource, "pods") && !*r.group) {
                const char *want = NULL;

                if (t->sub == API_SUB_NONE && op == NODE_RESTRICTION_DELETE)
                        r.pod = old;
                else if (t->sub == API_SUB_EVICTION && op == NODE_RESTRICTION_CREATE)
                        want = *r.name ? r.name : json_path_string(obj, "metadata.name");
                else if (t->sub == API_SUB_NONE && op == NODE_RESTRICTION_CREATE &&
                         is_mirror_pod(obj))
                        rc = store_get(store, "nodes", "", node, &node_obj, &err);
                if (want && *want)
                        rc = store_get(store, "pods", r.ns, want, &pod, &err);
        } else if (*node && streq(r.resource, "serviceaccounts") && t->sub == API_SUB_TOKEN &&
                   streq(json_path_string(obj, "spec.boundObjectRef.kind") ?: "", "Pod")) {
                const char *want = json_path_string(obj, "spec.boundObjectRef.name");

                if (want && *want)
                        rc = store_get(store, "pods", r.ns, want, &pod, &err);
        }
        if (rc < 0 && rc != -ENOENT) {
                status_respond(resp, rc, err ? err->message : "reading the store", NULL);
                return rc;
        }
        err = error_free(err);
        if (pod)
                r.pod = pod;
        r.node_obj = node_obj;
        rc = node_restriction_decide(&r, &err);
        if (rc == -EPERM)
                status_forbidden(resp, t->res, node_restriction_subject_name(&r), err->message);
        else if (rc < 0)
                status_respond(resp, rc, err->message, NULL);
        return rc;
}
