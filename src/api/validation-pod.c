/* validation-pod.c: Pod validation on create, update and pods/resize, as kube-apiserver 1.33
 * does it (K8S: pkg/apis/core/validation ValidatePodCreate/ValidatePodUpdate/ValidatePodResize,
 * pkg/registry/core/pod/strategy.go dropNonResizeUpdates), with 1.34's memory-limit-decrease
 * rule and KEP-6030's emptyDir sizeLimit resize. Only the fields flexlet models are checked;
 * paths and messages are upstream's, including its quirks (unindexed subPath and ownerReferences
 * paths, the pod-level limit path spec.resources.containers[i][name].limits). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/validation-internal.h"
#include "api/validation.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/strbuf.h"

#define MIRROR_ANNOTATION    "kubernetes.io/config.mirror"
#define DELETION_COST        "controller.kubernetes.io/pod-deletion-cost"
#define APPARMOR_BETA_PREFIX "container.apparmor.security.beta.kubernetes.io/"
#define NEGATIVE_MSG         "must be greater than or equal to 0"

const struct v_volume_type v_volume_types[] = {
        { "emptyDir", "emptyDir" },
        { "hostPath", "hostPath" },
        { "gitRepo", "gitRepo" },
        { "gcePersistentDisk", "gcePersistentDisk" },
        { "awsElasticBlockStore", "awsElasticBlockStore" },
        { "secret", "secret" },
        { "nfs", "nfs" },
        { "iscsi", "iscsi" },
        { "glusterfs", "glusterfs" },
        { "flocker", "flocker" },
        { "persistentVolumeClaim", "persistentVolumeClaim" },
        { "rbd", "rbd" },
        { "cinder", "cinder" },
        { "cephfs", "cephFS" },
        { "quobyte", "quobyte" },
        { "downwardAPI", "downwarAPI" }, /* K8S: upstream's spelling in this error path */
        { "fc", "fc" },
        { "flexVolume", "flexVolume" },
        { "configMap", "configMap" },
        { "azureFile", "azureFile" },
        { "vsphereVolume", "vsphereVolume" },
        { "photonPersistentDisk", "photonPersistentDisk" },
        { "portworxVolume", "portworxVolume" },
        { "azureDisk", "azureDisk" },
        { "storageos", "storageos" },
        { "projected", "projected" },
        { "scaleIO", "scaleIO" },
        { "csi", "csi" },
        { "ephemeral", "ephemeral" },
        { "image", "image" },
        { NULL, NULL },
};

static const char *const restart_policies[] = { "Always", "OnFailure", "Never", NULL };
static const char *const dns_policies[] = { "ClusterFirstWithHostNet", "ClusterFirst", "Default",
                                            "None", NULL };
static const char *const pull_policies[] = { "Always", "IfNotPresent", "Never", NULL };
static const char *const termination_policies[] = { "File", "FallbackToLogsOnError", NULL };
static const char *const port_protocols[] = { "SCTP", "TCP", "UDP", NULL };
static const char *const resize_resources[] = { "cpu", "memory", NULL };
static const char *const resize_policies[] = { "NotRequired", "RestartContainer", NULL };
static const char *const preemption_policies[] = { "PreemptLowerPriority", "Never", NULL };
static const char *const mount_propagations[] = { "Bidirectional", "HostToContainer", "None",
                                                  NULL };
static const char *const toleration_operators[] = { "Equal", "Exists", NULL };
static const char *const taint_effects[] = { "NoSchedule", "PreferNoSchedule", "NoExecute", NULL };
static const char *const os_names[] = { "linux", "windows", NULL };
static const char *const proc_mount_types[] = { "Default", "Unmasked", NULL };
static const char *const pod_level_resources[] = { "cpu", "memory", NULL };

static bool in_list(const char *s, const char *const *list)
{
        for (size_t i = 0; s && list[i]; i++) {
                if (streq(s, list[i]))
                        return true;
        }
        return false;
}

static const char *str_or_empty(const json_t *obj, const char *key)
{
        const char *s = vj_str(obj, key);

        return s ? s : "";
}

static bool has_member(const json_t *obj, const char *key)
{
        json_t *v = json_is_object(obj) ? json_object_get(obj, key) : NULL;

        return v && !json_is_null(v);
}

/* K8S: a required enum (pull policy, termination message policy, restart/DNS policies). */
static void validate_enum(const json_t *obj, const char *key, const char *field,
                          const char *const *supported, struct field_error_list *errs)
{
        const char *v = str_or_empty(obj, key);

        if (!v[0])
                verr_raw(errs, FIELD_ERROR_REQUIRED, field, NULL, "");
        else if (!in_list(v, supported))
                verr_not_supported(errs, field, v, supported);
}

/* ---- resources ---- */

static bool is_standard_resource(const char *name)
{
        static const char *const standard[] = {
                "cpu",
                "memory",
                "ephemeral-storage",
                "requests.cpu",
                "requests.memory",
                "requests.ephemeral-storage",
                "limits.cpu",
                "limits.memory",
                "limits.ephemeral-storage",
                "pods",
                "resourcequotas",
                "services",
                "replicationcontrollers",
                "secrets",
                "configmaps",
                "persistentvolumeclaims",
                "storage",
                "requests.storage",
                "services.nodeports",
                "services.loadbalancers",
                NULL,
        };

        return in_list(name, standard) || v_resource_name_is_hugepages(name) ||
               strncmp(name, "requests.hugepages-", strlen("requests.hugepages-")) == 0;
}

static bool is_integer_resource(const char *name)
{
        static const char *const integer[] = {
                "pods",
                "resourcequotas",
                "services",
                "replicationcontrollers",
                "secrets",
                "configmaps",
                "persistentvolumeclaims",
                "services.nodeports",
                "services.loadbalancers",
                NULL,
        };

        return in_list(name, integer) || v_resource_name_is_extended(name);
}

/* K8S: validateResourceName */
size_t v_validate_resource_name(const char *name, const char *field, struct field_error_list *errs)
{
        size_t before = errs->n;

        if (validate_qualified_name(name, field, errs))
                return errs->n - before;
        if (!strchr(name, '/') && !is_standard_resource(name))
                verr_str(errs, FIELD_ERROR_INVALID, field, name,
                         "must be a standard resource type or fully qualified");
        return errs->n - before;
}

/* K8S: validateContainerResourceName */
void v_validate_container_resource_name(const char *name, const char *field,
                                        struct field_error_list *errs)
{
        v_validate_resource_name(name, field, errs);
        if (!strchr(name, '/')) {
                if (!streq(name, "cpu") && !streq(name, "memory") &&
                    !streq(name, "ephemeral-storage") && !v_resource_name_is_hugepages(name))
                        verr_str(errs, FIELD_ERROR_INVALID, field, name,
                                 "must be a standard resource for containers");
        } else if (!v_resource_name_is_native(name) && !v_resource_name_is_extended(name)) {
                verr_str(errs, FIELD_ERROR_INVALID, field, name,
                         "doesn't follow extended resource name standard");
        }
}

/* K8S: validatePodResourceName (PodLevelResources: cpu and memory) */
static void validate_pod_resource_name(const char *name, const char *field,
                                       struct field_error_list *errs)
{
        if (v_validate_resource_name(name, field, errs))
                return;
        if (!in_list(name, pod_level_resources))
                verr_not_supported(errs, field, name, pod_level_resources);
}

/* K8S: IsHugePageResourceValueDivisible */
static bool hugepages_divisible(const char *name, const struct quantity *q)
{
        struct quantity page;
        int64_t page_milli, page_value, value;

        if (quantity_parse(name + strlen("hugepages-"), &page, NULL) < 0 || page.negative ||
            quantity_is_zero(&page) || quantity_milli_value(&page, &page_milli) < 0 ||
            page_milli % 1000 != 0 || quantity_value(&page, &page_value) < 0 ||
            quantity_value(q, &value) < 0)
                return false;
        return value % page_value == 0;
}

/* K8S: ValidateResourceQuantityValue; q already parsed. */
void v_validate_quantity_value(const char *name, const struct quantity *q, const char *field,
                               struct field_error_list *errs)
{
        cleanup_free char *s = quantity_format(q);
        int64_t m;

        if (q->negative && !quantity_is_zero(q))
                verr_str(errs, FIELD_ERROR_INVALID, field, s, NEGATIVE_MSG);
        /* Upstream prints the Quantity struct itself here; flexlet prints its string. */
        if (is_integer_resource(name) && quantity_milli_value(q, &m) == 0 && m % 1000 != 0)
                verr_str(errs, FIELD_ERROR_INVALID, field, s, "must be an integer");
}

enum res_kind {
        RES_CONTAINER,
        RES_POD,
};

/* K8S: validateResourceRequirements */
static void validate_resource_requirements(const json_t *res, const char *path, enum res_kind kind,
                                           struct field_error_list *errs)
{
        json_t *limits = vj_obj(res, "limits"), *requests = vj_obj(res, "requests");
        cleanup_free char *lim_path = xasprintf("%s.limits", path);
        cleanup_free char *req_path = xasprintf("%s.requests", path);
        bool lim_cpu_mem = false, req_cpu_mem = false, lim_huge = false, req_huge = false;
        const char *name;
        json_t *v;

        json_object_foreach(limits, name, v) {
                cleanup_free char *fp = xasprintf("%s[%s]", lim_path, name);
                struct quantity q;
                if (kind == RES_POD)
                        validate_pod_resource_name(name, fp, errs);
                else
                        v_validate_container_resource_name(name, fp, errs);
                if (vq_parse(v, &q) < 0) {
                        cleanup_free char *r = vj_render(v);
                        verr_raw(errs, FIELD_ERROR_INVALID, fp, r, QUANTITY_REGEXP_MESSAGE);
                        continue;
                }
                v_validate_quantity_value(name, &q, fp, errs);
                if (v_resource_name_is_hugepages(name)) {
                        lim_huge = true;
                        if (!hugepages_divisible(name, &q)) {
                                cleanup_free char *s = quantity_format(&q);
                                cleanup_free char *d = xasprintf(
                                        "%s is not positive integer multiple of %s", s, name);
                                verr_str(errs, FIELD_ERROR_INVALID, fp, s, d);
                        }
                }
                lim_cpu_mem |= streq(name, "cpu") || streq(name, "memory");
        }
        json_object_foreach(requests, name, v) {
                cleanup_free char *fp = xasprintf("%s[%s]", req_path, name);
                cleanup_free char *s = NULL;
                json_t *lv = limits ? json_object_get(limits, name) : NULL;
                struct quantity q, l;
                if (kind == RES_POD)
                        validate_pod_resource_name(name, fp, errs);
                else
                        v_validate_container_resource_name(name, fp, errs);
                if (vq_parse(v, &q) < 0) {
                        cleanup_free char *r = vj_render(v);
                        verr_raw(errs, FIELD_ERROR_INVALID, fp, r, QUANTITY_REGEXP_MESSAGE);
                        continue;
                }
                v_validate_quantity_value(name, &q, fp, errs);
                s = quantity_format(&q);
                if (lv && vq_parse(lv, &l) == 0) {
                        cleanup_free char *ls = quantity_format(&l);
                        int c = quantity_cmp(&q, &l);
                        /* K8S: requests of resources that cannot overcommit must equal limits */
                        if (c != 0 && !v_resource_overcommit_allowed(name)) {
                                cleanup_free char *d =
                                        xasprintf("must be equal to %s limit of %s", name, ls);
                                verr_str(errs, FIELD_ERROR_INVALID, req_path, s, d);
                        } else if (c > 0) {
                                cleanup_free char *d = xasprintf(
                                        "must be less than or equal to %s limit of %s", name, ls);
                                verr_str(errs, FIELD_ERROR_INVALID, req_path, s, d);
                        }
                } else if (!lv && !v_resource_overcommit_allowed(name)) {
                        verr_raw(errs, FIELD_ERROR_REQUIRED, lim_path, NULL,
                                 "Limit must be set for non overcommitable resources");
                }
                if (v_resource_name_is_hugepages(name)) {
                        req_huge = true;
                        if (!hugepages_divisible(name, &q)) {
                                cleanup_free char *d = xasprintf(
                                        "%s is not positive integer multiple of %s", s, name);
                                verr_str(errs, FIELD_ERROR_INVALID, fp, s, d);
                        }
                }
                req_cpu_mem |= streq(name, "cpu") || streq(name, "memory");
        }
        if (!lim_cpu_mem && !req_cpu_mem && (req_huge || lim_huge))
                verr_raw(errs, FIELD_ERROR_FORBIDDEN, path, NULL,
                         "HugePages require cpu or memory");
}

/* K8S: validatePodResources (PodLevelResources, treated as enabled). */
static void validate_pod_resources(const json_t *spec, struct field_error_list *errs)
{
        json_t *res = vj_obj(spec, "resources");
        json_t *pod_req, *pod_lim;
        struct vres aggr = { 0 };
        size_t i;
        json_t *c;

        if (!res)
                return;
        if (has_member(res, "claims"))
                verr_raw(errs, FIELD_ERROR_FORBIDDEN, "spec.resources.claims", NULL,
                         "claims cannot be set for Resources at pod-level");
        validate_resource_requirements(res, "spec.resources", RES_POD, errs);

        pod_req = vj_obj(res, "requests");
        pod_lim = vj_obj(res, "limits");
        v_aggregate_container_requests(spec, &aggr);
        for (size_t k = 0; k < aggr.n; k++) {
                struct vq_sum pod = { 0 };
                struct quantity q;
                json_t *pv = pod_req ? json_object_get(pod_req, aggr.items[k].name) : NULL;
                if (pv && vq_parse(pv, &q) == 0)
                        vq_sum_add(&pod, &q);
                if (vq_sum_cmp(&aggr.items[k].sum, &pod) > 0) {
                        cleanup_free char *fp =
                                xasprintf("spec.resources.requests[%s]", aggr.items[k].name);
                        cleanup_free char *ps = pv ? vq_string(pv) : xstrdup("0");
                        cleanup_free char *as = vq_sum_string(&aggr.items[k].sum);
                        cleanup_free char *d = xasprintf(
                                "must be greater than or equal to aggregate container requests "
                                "of %s",
                                as);
                        verr_str(errs, FIELD_ERROR_INVALID, fp, ps, d);
                }
        }
        vres_release(&aggr);

        json_array_foreach(vj_arr(spec, "containers"), i, c) {
                const char *name;
                json_t *v;
                json_object_foreach(vj_obj(vj_obj(c, "resources"), "limits"), name, v) {
                        json_t *pv = pod_lim ? json_object_get(pod_lim, name) : NULL;
                        struct quantity cq, pq;
                        if (!pv || vq_parse(v, &cq) < 0 || vq_parse(pv, &pq) < 0)
                                continue;
                        if (quantity_cmp(&cq, &pq) > 0) {
                                /* K8S: upstream's path spells the key before "limits" */
                                cleanup_free char *fp = xasprintf(
                                        "spec.resources.containers[%zu][%s].limits", i, name);
                                cleanup_free char *cs = quantity_format(&cq);
                                cleanup_free char *ps = quantity_format(&pq);
                                cleanup_free char *d = xasprintf(
                                        "must be less than or equal to pod limits of %s", ps);
                                verr_str(errs, FIELD_ERROR_INVALID, fp, cs, d);
                        }
                }
        }
}

/* ---- volumes ---- */

/* K8S: validatePathNoBacksteps / validateLocalDescendingPath */
static void validate_no_backsteps(const char *p, const char *field, struct field_error_list *errs)
{
        const char *s = p;

        while (s) {
                const char *slash = strchr(s, '/');
                size_t n = slash ? (size_t) (slash - s) : strlen(s);
                if (n == 2 && s[0] == '.' && s[1] == '.') {
                        verr_str(errs, FIELD_ERROR_INVALID, field, p, "must not contain '..'");
                        return;
                }
                s = slash ? slash + 1 : NULL;
        }
}

static void validate_local_descending_path(const char *p, const char *field,
                                           struct field_error_list *errs)
{
        if (p[0] == '/')
                verr_str(errs, FIELD_ERROR_INVALID, field, p, "must be a relative path");
        validate_no_backsteps(p, field, errs);
}

static void validate_mode(const json_t *src, const char *path, const char *key,
                          struct field_error_list *errs)
{
        json_t *m = json_object_get(src, key);

        if (json_is_integer(m) && (json_integer_value(m) > 0777 || json_integer_value(m) < 0)) {
                cleanup_free char *fp = xasprintf("%s.%s", path, key);
                verr_int(errs, FIELD_ERROR_INVALID, fp, (long long) json_integer_value(m),
                         "must be a number between 0 and 0777 (octal), both inclusive");
        }
}

static void require_string(const json_t *src, const char *key, const char *path,
                           struct field_error_list *errs)
{
        if (!str_or_empty(src, key)[0]) {
                cleanup_free char *fp = xasprintf("%s.%s", path, key);
                verr_raw(errs, FIELD_ERROR_REQUIRED, fp, NULL, "");
        }
}

/* K8S ValidateLocalNonReservedPath: a relative path without ".." elements that does not start
 * with ".." (where the AtomicWriter keeps "..data"). */
static void validate_local_non_reserved_path(const char *p, const char *field,
                                             struct field_error_list *errs)
{
        validate_local_descending_path(p, field, errs);
        /* K8S: not reported again when the ".." element check caught it */
        if (strncmp(p, "..", 2) == 0 && strncmp(p, "../", 3) != 0)
                verr_str(errs, FIELD_ERROR_INVALID, field, p, "must not start with '..'");
}

/* K8S validateProjectionSources, the serviceAccountToken source (i) of the projected volume at
 * path: expirationSeconds within [10 minutes, 2^32 s] (defaulted to 1 h before), a local path;
 * the path's errors are reported at the projected volume's own "path", as upstream does. */
static void validate_token_projection(const json_t *tp, const char *path, size_t i,
                                      struct field_error_list *errs)
{
        const json_t *exp = json_object_get(tp, "expirationSeconds");
        const char *file = json_string_value(json_object_get(tp, "path"));
        cleanup_free char *ep = NULL, *pp = NULL;

        if (!json_is_object(tp))
                return;
        ep = xasprintf("%s.sources[%zu].serviceAccountToken.expirationSeconds", path, i);
        pp = xasprintf("%s.path", path);
        if (json_is_integer(exp) && json_integer_value(exp) < 10 * 60)
                verr_int(errs, FIELD_ERROR_INVALID, ep, (long long) json_integer_value(exp),
                         "may not specify a duration less than 10 minutes");
        if (json_is_integer(exp) && json_integer_value(exp) > ((json_int_t) 1 << 32))
                verr_int(errs, FIELD_ERROR_INVALID, ep, (long long) json_integer_value(exp),
                         "may not specify a duration larger than 2^32 seconds");
        if (!file || !*file)
                verr_raw(errs, FIELD_ERROR_REQUIRED, pp, NULL, "");
        else
                validate_local_non_reserved_path(file, pp, errs);
}

/* K8S validateKeyToPath (keys) and validateDownwardAPIVolumeFile's path and mode: the items of a
 * configMap, secret or downwardAPI volume or projection at path. */
static void validate_items(const json_t *src, const char *path, bool keys,
                           struct field_error_list *errs)
{
        size_t i;
        json_t *it;

        json_array_foreach(json_object_get(src, "items"), i, it) {
                cleanup_free char *ip = xasprintf("%s.items[%zu]", path, i);
                cleanup_free char *pp = xasprintf("%s.path", ip);
                const char *target = str_or_empty(it, "path");

                if (keys)
                        require_string(it, "key", ip, errs);
                if (!target[0])
                        verr_raw(errs, FIELD_ERROR_REQUIRED, pp, NULL, "");
                validate_local_non_reserved_path(target, pp, errs);
                validate_mode(it, ip, "mode", errs);
        }
}

/* Content checks for the volume sources flexlet models. */
static void validate_volume_content(const char *key, const json_t *src, const char *path,
                                    struct field_error_list *errs)
{
        cleanup_free char *p = xasprintf("%s.%s", path, key);

        if (streq(key, "hostPath")) {
                const char *hp = str_or_empty(src, "path");
                cleanup_free char *fp = xasprintf("%s.path", p);
                if (!hp[0])
                        verr_raw(errs, FIELD_ERROR_REQUIRED, fp, NULL, "");
                else
                        validate_no_backsteps(hp, fp, errs);
        } else if (streq(key, "persistentVolumeClaim")) {
                require_string(src, "claimName", p, errs);
        } else if (streq(key, "secret")) {
                require_string(src, "secretName", p, errs);
                validate_mode(src, p, "defaultMode", errs);
                validate_items(src, p, true, errs);
        } else if (streq(key, "configMap")) {
                require_string(src, "name", p, errs);
                validate_mode(src, p, "defaultMode", errs);
                validate_items(src, p, true, errs);
        } else if (streq(key, "downwardAPI")) {
                validate_mode(src, p, "defaultMode", errs);
                validate_items(src, p, false, errs);
        } else if (streq(key, "projected")) {
                /* K8S validateProjectionSources: each source's items */
                size_t i;
                json_t *ps;

                validate_mode(src, p, "defaultMode", errs);
                json_array_foreach(json_object_get(src, "sources"), i, ps) {
                        static const char *const kinds[] = { "secret", "configMap", "downwardAPI" };

                        for (size_t k = 0; k < ARRAY_SIZE(kinds); k++) {
                                const json_t *one = json_object_get(ps, kinds[k]);
                                cleanup_free char *sp = NULL;

                                if (!json_is_object(one))
                                        continue;
                                sp = xasprintf("%s.sources[%zu].%s", p, i, kinds[k]);
                                validate_items(one, sp, k < 2, errs);
                        }
                        validate_token_projection(json_object_get(ps, "serviceAccountToken"), p, i,
                                                  errs);
                }
        } else if (streq(key, "nfs")) {
                require_string(src, "server", p, errs);
                require_string(src, "path", p, errs);
                if (str_or_empty(src, "path")[0] != '/') {
                        cleanup_free char *fp = xasprintf("%s.path", p);
                        verr_str(errs, FIELD_ERROR_INVALID, fp, str_or_empty(src, "path"),
                                 "must be an absolute path");
                }
        }
}

/* K8S: validateVolumeSource */
static void validate_volume_source(const json_t *vol, const char *path,
                                   struct field_error_list *errs)
{
        int num = 0;

        for (size_t i = 0; v_volume_types[i].key; i++) {
                const char *key = v_volume_types[i].key;
                json_t *src = json_object_get(vol, key);
                if (!src || json_is_null(src))
                        continue;
                if (streq(key, "emptyDir")) {
                        json_t *sl = json_object_get(src, "sizeLimit");
                        struct quantity q;
                        num++;
                        if (sl && vq_parse(sl, &q) == 0 && q.negative && !quantity_is_zero(&q)) {
                                cleanup_free char *fp = xasprintf("%s.emptyDir.sizeLimit", path);
                                verr_raw(errs, FIELD_ERROR_FORBIDDEN, fp, NULL,
                                         "SizeLimit field must be a valid resource quantity");
                        }
                        continue;
                }
                if (num > 0) {
                        cleanup_free char *fp = xasprintf("%s.%s", path, v_volume_types[i].err_key);
                        verr_raw(errs, FIELD_ERROR_FORBIDDEN, fp, NULL,
                                 "may not specify more than 1 volume type");
                        continue;
                }
                num++;
                validate_volume_content(key, src, path, errs);
        }
        if (num == 0)
                verr_raw(errs, FIELD_ERROR_REQUIRED, path, NULL, "must specify a volume type");
}

/* K8S: ValidateVolumes. Returns the set (object of name -> source) of volumes without errors. */
static json_t *validate_volumes(const json_t *spec, struct field_error_list *errs)
{
        json_t *ok = json_object();
        json_t *all = json_object();
        size_t i;
        json_t *vol;

        json_array_foreach(vj_arr(spec, "volumes"), i, vol) {
                cleanup_free char *idx = xasprintf("spec.volumes[%zu]", i);
                cleanup_free char *name_path = xasprintf("%s.name", idx);
                const char *name = str_or_empty(vol, "name");
                struct field_error_list el;

                field_error_list_init(&el);
                validate_volume_source(vol, idx, &el);
                if (!name[0])
                        verr_raw(&el, FIELD_ERROR_REQUIRED, name_path, NULL, "");
                else
                        validate_dns1123_label(name, name_path, &el);
                if (json_object_get(all, name))
                        verr_str(&el, FIELD_ERROR_DUPLICATE, name_path, name, "");
                if (el.n == 0) {
                        json_object_set_new(all, name, json_true());
                        json_object_set(ok, name, vol);
                } else {
                        verr_move(errs, &el);
                }
                field_error_list_release(&el);
        }
        json_decref(all);
        return ok;
}

/* ---- containers ---- */

/* K8S: IsValidPortName */
static void validate_port_name(const char *name, const char *field, struct field_error_list *errs)
{
        size_t n = strlen(name);
        bool charset = true, letter = false;

        for (size_t i = 0; i < n; i++) {
                char ch = name[i];
                charset &= (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-';
                letter |= ch >= 'a' && ch <= 'z';
        }
        if (n > 15)
                verr_str(errs, FIELD_ERROR_INVALID, field, name,
                         "must be no more than 15 characters");
        if (!charset || n == 0)
                verr_str(errs, FIELD_ERROR_INVALID, field, name,
                         "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
        if (!letter)
                verr_str(errs, FIELD_ERROR_INVALID, field, name,
                         "must contain at least one letter (a-z)");
        if (strstr(name, "--"))
                verr_str(errs, FIELD_ERROR_INVALID, field, name,
                         "must not contain consecutive hyphens");
        if (n > 0 && (name[0] == '-' || name[n - 1] == '-'))
                verr_str(errs, FIELD_ERROR_INVALID, field, name,
                         "must not begin or end with a hyphen");
}

static void validate_port_num(const json_t *v, const char *field, struct field_error_list *errs)
{
        long long p = json_is_integer(v) ? (long long) json_integer_value(v) : 0;

        if (p < 1 || p > 65535)
                verr_int(errs, FIELD_ERROR_INVALID, field, p,
                         "must be between 1 and 65535, inclusive");
}

/* K8S: validateContainerPorts */
static void validate_container_ports(const json_t *c, const char *path,
                                     struct field_error_list *errs)
{
        json_t *names = json_object();
        size_t i;
        json_t *port;

        json_array_foreach(vj_arr(c, "ports"), i, port) {
                cleanup_free char *idx = xasprintf("%s.ports[%zu]", path, i);
                cleanup_free char *np = xasprintf("%s.name", idx);
                cleanup_free char *cp = xasprintf("%s.containerPort", idx);
                cleanup_free char *hp = xasprintf("%s.hostPort", idx);
                cleanup_free char *pp = xasprintf("%s.protocol", idx);
                const char *name = str_or_empty(port, "name");
                json_t *cport = json_object_get(port, "containerPort");
                json_t *hport = json_object_get(port, "hostPort");
                const char *proto = str_or_empty(port, "protocol");

                if (name[0]) {
                        size_t before = errs->n;
                        validate_port_name(name, np, errs);
                        if (errs->n == before) {
                                if (json_object_get(names, name))
                                        verr_str(errs, FIELD_ERROR_DUPLICATE, np, name, "");
                                else
                                        json_object_set_new(names, name, json_true());
                        }
                }
                if (!json_is_integer(cport) || json_integer_value(cport) == 0)
                        verr_raw(errs, FIELD_ERROR_REQUIRED, cp, NULL, "");
                else
                        validate_port_num(cport, cp, errs);
                if (json_is_integer(hport) && json_integer_value(hport) != 0)
                        validate_port_num(hport, hp, errs);
                if (!proto[0])
                        verr_raw(errs, FIELD_ERROR_REQUIRED, pp, NULL, "");
                else if (!in_list(proto, port_protocols))
                        verr_not_supported(errs, pp, proto, port_protocols);
        }
        json_decref(names);
}

/* K8S: AccumulateUniqueHostPorts over a list of containers (or one container). */
static void check_host_port_conflicts(const json_t *containers, size_t first, size_t count,
                                      const char *list_path, struct field_error_list *errs)
{
        json_t *seen = json_object();

        for (size_t ci = first; ci < first + count && ci < json_array_size(containers); ci++) {
                json_t *c = json_array_get(containers, ci);
                size_t pi;
                json_t *port;
                json_array_foreach(vj_arr(c, "ports"), pi, port) {
                        json_t *hp = json_object_get(port, "hostPort");
                        cleanup_free char *key = NULL;
                        if (!json_is_integer(hp) || json_integer_value(hp) == 0)
                                continue;
                        key = xasprintf("%s/%s/%" JSON_INTEGER_FORMAT,
                                        str_or_empty(port, "protocol"),
                                        str_or_empty(port, "hostIP"), json_integer_value(hp));
                        if (json_object_get(seen, key)) {
                                cleanup_free char *fp =
                                        xasprintf("%s[%zu].ports[%zu].hostPort", list_path, ci, pi);
                                verr_str(errs, FIELD_ERROR_DUPLICATE, fp, key, "");
                        } else {
                                json_object_set_new(seen, key, json_true());
                        }
                }
        }
        json_decref(seen);
}

/* K8S: ValidateEnv with RelaxedEnvironmentVariableValidation (on by default since 1.32). */
static void validate_env(const json_t *c, const char *path, struct field_error_list *errs)
{
        size_t i;
        json_t *env;

        json_array_foreach(vj_arr(c, "env"), i, env) {
                cleanup_free char *np = xasprintf("%s.env[%zu].name", path, i);
                const char *name = str_or_empty(env, "name");
                if (!name[0]) {
                        verr_raw(errs, FIELD_ERROR_REQUIRED, np, NULL, "");
                        continue;
                }
                for (const unsigned char *p = (const unsigned char *) name; *p; p++) {
                        if (*p > 126 || *p < 32 || *p == '=') {
                                verr_str(errs, FIELD_ERROR_INVALID, np, name,
                                         "a valid environment variable name must consist only "
                                         "of printable ASCII characters other than '='");
                                break;
                        }
                }
        }
}

static bool container_privileged(const json_t *c)
{
        return json_is_true(json_object_get(vj_obj(c, "securityContext"), "privileged"));
}

/* K8S: ValidateVolumeMounts */
static void validate_volume_mounts(const json_t *c, const char *path, const json_t *volumes,
                                   struct field_error_list *errs)
{
        cleanup_free char *list_path = xasprintf("%s.volumeMounts", path);
        json_t *mount_points = json_object();
        size_t i;
        json_t *m;

        json_array_foreach(vj_arr(c, "volumeMounts"), i, m) {
                cleanup_free char *idx = xasprintf("%s[%zu]", list_path, i);
                cleanup_free char *np = xasprintf("%s.name", idx);
                cleanup_free char *mp = xasprintf("%s.mountPath", idx);
                const char *name = str_or_empty(m, "name");
                const char *mount_path = str_or_empty(m, "mountPath");
                const char *sub = str_or_empty(m, "subPath");
                const char *sub_expr = str_or_empty(m, "subPathExpr");
                const char *prop = vj_str(m, "mountPropagation");

                if (!name[0])
                        verr_raw(errs, FIELD_ERROR_REQUIRED, np, NULL, "");
                if (!json_object_get(volumes, name))
                        verr_str(errs, FIELD_ERROR_NOT_FOUND, np, name, "");
                if (!mount_path[0])
                        verr_raw(errs, FIELD_ERROR_REQUIRED, mp, NULL, "");
                if (json_object_get(mount_points, mount_path))
                        verr_str(errs, FIELD_ERROR_INVALID, mp, mount_path, "must be unique");
                json_object_set_new(mount_points, mount_path, json_true());

                /* K8S: upstream reports these at volumeMounts.subPath, without the index */
                if (sub[0]) {
                        cleanup_free char *fp = xasprintf("%s.subPath", list_path);
                        validate_local_descending_path(sub, fp, errs);
                }
                if (sub_expr[0]) {
                        cleanup_free char *fp = xasprintf("%s.subPathExpr", list_path);
                        if (sub[0]) {
                                cleanup_free char *ip = xasprintf("%s.subPathExpr", idx);
                                verr_str(errs, FIELD_ERROR_INVALID, ip, sub_expr,
                                         "subPathExpr and subPath are mutually exclusive");
                        }
                        validate_local_descending_path(sub_expr, fp, errs);
                }
                if (prop) {
                        cleanup_free char *fp = xasprintf("%s.mountPropagation", list_path);
                        if (!in_list(prop, mount_propagations))
                                verr_not_supported(errs, fp, prop, mount_propagations);
                        else if (streq(prop, "Bidirectional") && !container_privileged(c))
                                verr_raw(errs, FIELD_ERROR_FORBIDDEN, fp, NULL,
                                         "Bidirectional mount propagation is available only to "
                                         "privileged containers");
                }
        }
        json_decref(mount_points);
}

/* K8S: validateResizePolicy */
static void validate_resize_policy(const json_t *c, const char *path, const char *pod_restart,
                                   struct field_error_list *errs)
{
        cleanup_free char *fp = xasprintf("%s.resizePolicy", path);
        json_t *seen = json_object();
        size_t i;
        json_t *p;

        json_array_foreach(vj_arr(c, "resizePolicy"), i, p) {
                const char *name = str_or_empty(p, "resourceName");
                const char *policy = str_or_empty(p, "restartPolicy");
                if (json_object_get(seen, name)) {
                        cleanup_free char *ip = xasprintf("%s[%zu]", fp, i);
                        verr_str(errs, FIELD_ERROR_DUPLICATE, ip, name, "");
                }
                json_object_set_new(seen, name, json_true());
                if (!name[0])
                        verr_raw(errs, FIELD_ERROR_REQUIRED, fp, NULL, "");
                else if (!in_list(name, resize_resources))
                        verr_not_supported(errs, fp, name, resize_resources);
                if (!policy[0])
                        verr_raw(errs, FIELD_ERROR_REQUIRED, fp, NULL, "");
                else if (!in_list(policy, resize_policies))
                        verr_not_supported(errs, fp, policy, resize_policies);
                /* K8S: KEP-1287: a pod that never restarts cannot restart a container to resize */
                if (streq(pod_restart, "Never") && !streq(policy, "NotRequired"))
                        verr_str(errs, FIELD_ERROR_INVALID, fp, policy,
                                 "must be 'NotRequired' when `restartPolicy` is 'Never'");
        }
        json_decref(seen);
}

/* K8S: ValidatePortNumOrName for probe/handler ports (int or string). */
static void validate_port_num_or_name(const json_t *v, const char *field,
                                      struct field_error_list *errs)
{
        if (json_is_string(v))
                validate_port_name(json_string_value(v), field, errs);
        else
                validate_port_num(v, field, errs);
}

/* K8S: validateHandler (exec, httpGet, tcpSocket, grpc, sleep: exactly one). */
static void validate_handler(const json_t *h, const char *path, bool probe,
                             struct field_error_list *errs)
{
        static const char *const kinds[] = { "exec", "httpGet", "tcpSocket", "grpc", "sleep" };
        int num = 0;

        for (size_t i = 0; i < ARRAY_SIZE(kinds); i++) {
                json_t *v = json_object_get(h, kinds[i]);
                cleanup_free char *fp = xasprintf("%s.%s", path, kinds[i]);
                if (!v || json_is_null(v) || (probe && streq(kinds[i], "sleep")) ||
                    (!probe && streq(kinds[i], "grpc")))
                        continue;
                if (num > 0) {
                        verr_raw(errs, FIELD_ERROR_FORBIDDEN, fp, NULL,
                                 "may not specify more than 1 handler type");
                        continue;
                }
                num++;
                if (streq(kinds[i], "exec")) {
                        if (json_array_size(vj_arr(v, "command")) == 0) {
                                cleanup_free char *cp = xasprintf("%s.command", fp);
                                verr_raw(errs, FIELD_ERROR_REQUIRED, cp, NULL, "");
                        }
                } else if (streq(kinds[i], "httpGet") || streq(kinds[i], "tcpSocket") ||
                           streq(kinds[i], "grpc")) {
                        cleanup_free char *pp = xasprintf("%s.port", fp);
                        validate_port_num_or_name(json_object_get(v, "port"), pp, errs);
                        if (streq(kinds[i], "httpGet") && !str_or_empty(v, "path")[0]) {
                                cleanup_free char *p = xasprintf("%s.path", fp);
                                verr_raw(errs, FIELD_ERROR_REQUIRED, p, NULL, "");
                        }
                }
        }
        if (num == 0)
                verr_raw(errs, FIELD_ERROR_REQUIRED, path, NULL, "must specify a handler type");
}

enum probe_kind {
        PROBE_LIVENESS,
        PROBE_READINESS,
        PROBE_STARTUP,
};

/* K8S: validateProbe and the liveness/readiness/startup specifics. */
static void validate_probe(const json_t *probe, const char *path, enum probe_kind kind,
                           struct field_error_list *errs)
{
        static const char *const counters[] = { "initialDelaySeconds", "timeoutSeconds",
                                                "periodSeconds", "successThreshold",
                                                "failureThreshold" };
        json_t *st = json_object_get(probe, "successThreshold");
        json_t *tgp = json_object_get(probe, "terminationGracePeriodSeconds");

        if (!json_is_object(probe))
                return;
        validate_handler(probe, path, true, errs);
        for (size_t i = 0; i < ARRAY_SIZE(counters); i++) {
                json_t *v = json_object_get(probe, counters[i]);
                if (json_is_integer(v) && json_integer_value(v) < 0) {
                        cleanup_free char *fp = xasprintf("%s.%s", path, counters[i]);
                        verr_int(errs, FIELD_ERROR_INVALID, fp, (long long) json_integer_value(v),
                                 NEGATIVE_MSG);
                }
        }
        if (json_is_integer(tgp) && json_integer_value(tgp) <= 0) {
                cleanup_free char *fp = xasprintf("%s.terminationGracePeriodSeconds", path);
                verr_int(errs, FIELD_ERROR_INVALID, fp, (long long) json_integer_value(tgp),
                         "must be greater than 0");
        }
        if (kind != PROBE_READINESS && json_is_integer(st) && json_integer_value(st) != 1) {
                cleanup_free char *fp = xasprintf("%s.successThreshold", path);
                verr_int(errs, FIELD_ERROR_INVALID, fp, (long long) json_integer_value(st),
                         "must be 1");
        }
        if (kind == PROBE_READINESS && tgp && !json_is_null(tgp)) {
                cleanup_free char *fp = xasprintf("%s.terminationGracePeriodSeconds", path);
                cleanup_free char *r = vj_render(tgp);
                verr_raw(errs, FIELD_ERROR_INVALID, fp, r, "must not be set for readinessProbes");
        }
}

static void validate_lifecycle_and_probes(const json_t *c, const char *path,
                                          struct field_error_list *errs)
{
        json_t *lifecycle = vj_obj(c, "lifecycle");
        static const struct {
                const char *key;
                enum probe_kind kind;
        } probes[] = {
                { "livenessProbe", PROBE_LIVENESS },
                { "readinessProbe", PROBE_READINESS },
                { "startupProbe", PROBE_STARTUP },
        };

        if (lifecycle) {
                static const char *const hooks[] = { "postStart", "preStop" };
                for (size_t i = 0; i < ARRAY_SIZE(hooks); i++) {
                        json_t *h = vj_obj(lifecycle, hooks[i]);
                        cleanup_free char *fp = xasprintf("%s.lifecycle.%s", path, hooks[i]);
                        if (h)
                                validate_handler(h, fp, false, errs);
                }
        }
        for (size_t i = 0; i < ARRAY_SIZE(probes); i++) {
                cleanup_free char *fp = xasprintf("%s.%s", path, probes[i].key);
                validate_probe(vj_obj(c, probes[i].key), fp, probes[i].kind, errs);
        }
}

/* K8S: validateContainerCommon */
static void validate_container_common(const json_t *c, const char *path, const json_t *volumes,
                                      const char *pod_restart, struct field_error_list *errs)
{
        cleanup_free char *np = xasprintf("%s.name", path);
        cleanup_free char *ip = xasprintf("%s.image", path);
        cleanup_free char *tp = xasprintf("%s.terminationMessagePolicy", path);
        cleanup_free char *pp = xasprintf("%s.imagePullPolicy", path);
        cleanup_free char *rp = xasprintf("%s.resources", path);
        const char *name = str_or_empty(c, "name");

        if (!name[0])
                verr_raw(errs, FIELD_ERROR_REQUIRED, np, NULL, "");
        else
                validate_dns1123_label(name, np, errs);
        if (!str_or_empty(c, "image")[0])
                verr_raw(errs, FIELD_ERROR_REQUIRED, ip, NULL, "");
        validate_enum(c, "terminationMessagePolicy", tp, termination_policies, errs);
        validate_container_ports(c, path, errs);
        validate_env(c, path, errs);
        validate_volume_mounts(c, path, volumes, errs);
        validate_enum(c, "imagePullPolicy", pp, pull_policies, errs);
        validate_resource_requirements(vj_obj(c, "resources"), rp, RES_CONTAINER, errs);
        validate_resize_policy(c, path, pod_restart, errs);
}

/* K8S: validateContainers */
static void validate_containers(const json_t *spec, const json_t *volumes, const char *pod_restart,
                                struct field_error_list *errs)
{
        json_t *containers = vj_arr(spec, "containers");
        json_t *names;
        size_t i;
        json_t *c;

        if (json_array_size(containers) == 0) {
                verr_raw(errs, FIELD_ERROR_REQUIRED, "spec.containers", NULL, "");
                return;
        }
        names = json_object();
        json_array_foreach(containers, i, c) {
                cleanup_free char *path = xasprintf("spec.containers[%zu]", i);
                const char *name = str_or_empty(c, "name");
                validate_container_common(c, path, volumes, pod_restart, errs);
                if (json_object_get(names, name)) {
                        cleanup_free char *np = xasprintf("%s.name", path);
                        verr_str(errs, FIELD_ERROR_DUPLICATE, np, name, "");
                } else {
                        json_object_set_new(names, name, json_true());
                }
                validate_lifecycle_and_probes(c, path, errs);
                if (has_member(c, "restartPolicy")) {
                        cleanup_free char *fp = xasprintf("%s.restartPolicy", path);
                        verr_raw(errs, FIELD_ERROR_FORBIDDEN, fp, NULL,
                                 "may not be set for non-init containers");
                }
        }
        json_decref(names);
        check_host_port_conflicts(containers, 0, json_array_size(containers), "spec.containers",
                                  errs);
}

/* K8S: validateInitContainers (sidecars: restartPolicy Always) */
static void validate_init_containers(const json_t *spec, const json_t *volumes,
                                     const char *pod_restart, struct field_error_list *errs)
{
        static const char *const sidecar_only[] = { "lifecycle", "livenessProbe", "readinessProbe",
                                                    "startupProbe" };
        static const char *const always[] = { "Always", NULL };
        json_t *inits = vj_arr(spec, "initContainers");
        json_t *names = json_object();
        size_t i;
        json_t *c;

        json_array_foreach(vj_arr(spec, "containers"), i, c) {
                json_object_set_new(names, str_or_empty(c, "name"), json_true());
        }
        json_array_foreach(inits, i, c) {
                cleanup_free char *path = xasprintf("spec.initContainers[%zu]", i);
                const char *name = str_or_empty(c, "name");
                bool sidecar = false;

                validate_container_common(c, path, volumes, pod_restart, errs);
                if (has_member(c, "restartPolicy")) {
                        cleanup_free char *fp = xasprintf("%s.restartPolicy", path);
                        const char *rp = str_or_empty(c, "restartPolicy");
                        if (!streq(rp, "Always"))
                                verr_not_supported(errs, fp, rp, always);
                        sidecar = streq(rp, "Always");
                }
                if (json_object_get(names, name)) {
                        cleanup_free char *np = xasprintf("%s.name", path);
                        verr_str(errs, FIELD_ERROR_DUPLICATE, np, name, "");
                } else if (name[0]) {
                        json_object_set_new(names, name, json_true());
                }
                check_host_port_conflicts(inits, i, 1, "spec.initContainers", errs);
                if (sidecar) {
                        validate_lifecycle_and_probes(c, path, errs);
                } else {
                        for (size_t k = 0; k < ARRAY_SIZE(sidecar_only); k++) {
                                if (!has_member(c, sidecar_only[k]))
                                        continue;
                                cleanup_free char *fp = xasprintf("%s.%s", path, sidecar_only[k]);
                                verr_raw(errs, FIELD_ERROR_FORBIDDEN, fp, NULL,
                                         "may not be set for init containers without "
                                         "restartPolicy=Always");
                        }
                }
        }
        json_decref(names);
}

/* ---- pod spec ---- */

/* K8S: ValidateTolerations */
static void validate_tolerations(const json_t *tolerations, struct field_error_list *errs)
{
        size_t i;
        json_t *t;

        json_array_foreach(tolerations, i, t) {
                cleanup_free char *idx = xasprintf("spec.tolerations[%zu]", i);
                cleanup_free char *kp = xasprintf("%s.key", idx);
                cleanup_free char *op = xasprintf("%s.operator", idx);
                cleanup_free char *ep = xasprintf("%s.effect", idx);
                const char *key = str_or_empty(t, "key");
                const char *oper = str_or_empty(t, "operator");
                const char *value = str_or_empty(t, "value");
                const char *effect = str_or_empty(t, "effect");

                if (key[0])
                        validate_qualified_name(key, kp, errs);
                if (!key[0] && !streq(oper, "Exists"))
                        verr_str(errs, FIELD_ERROR_INVALID, op, oper,
                                 "operator must be Exists when `key` is empty, which means "
                                 "\"match all values and all keys\"");
                if (has_member(t, "tolerationSeconds") && !streq(effect, "NoExecute"))
                        verr_str(errs, FIELD_ERROR_INVALID, ep, effect,
                                 "effect must be 'NoExecute' when `tolerationSeconds` is set");
                if (!oper[0] || streq(oper, "Equal")) {
                        struct field_error_list tmp;
                        field_error_list_init(&tmp);
                        if (validate_label_value(value, op, &tmp)) {
                                struct strbuf sb;
                                strbuf_init(&sb);
                                for (size_t k = 0; k < tmp.n; k++)
                                        strbuf_addf(&sb, "%s%s", k ? ";" : "", tmp.items[k].detail);
                                verr_str(errs, FIELD_ERROR_INVALID, op, value, sb.buf);
                                strbuf_release(&sb);
                        }
                        field_error_list_release(&tmp);
                } else if (streq(oper, "Exists")) {
                        if (value[0])
                                verr_str(errs, FIELD_ERROR_INVALID, op, value,
                                         "value must be empty when `operator` is 'Exists'");
                } else {
                        verr_not_supported(errs, op, oper, toleration_operators);
                }
                if (effect[0] && !in_list(effect, taint_effects))
                        verr_not_supported(errs, ep, effect, taint_effects);
        }
}

static void validate_optional_name(const json_t *spec, const char *key, bool label,
                                   struct field_error_list *errs)
{
        const char *v = str_or_empty(spec, key);
        cleanup_free char *fp = xasprintf("spec.%s", key);

        if (!v[0])
                return;
        if (label)
                validate_dns1123_label(v, fp, errs);
        else
                validate_dns1123_subdomain(v, fp, errs);
}

/* K8S: ValidatePodSpec, for the fields flexlet models. */
/* K8S: validateHostUsers and the procMount rules of ValidateSecurityContext (KEP-127): a pod in
 * a user namespace of its own (hostUsers: false) may not share the host's network, pid or ipc
 * namespace (upstream's paths spell the last two "HostPID" and "HostIPC"), and only such a pod
 * may ask for an Unmasked /proc. */
static void validate_host_users(const json_t *spec, struct field_error_list *errs)
{
        static const char *const lists[] = { "initContainers", "containers" };
        static const struct {
                const char *key, *path;
        } host_ns[] = {
                { "hostNetwork", "spec.hostNetwork" },
                { "hostPID", "spec.HostPID" },
                { "hostIPC", "spec.HostIPC" },
        };
        bool own_users = json_is_false(json_object_get(spec, "hostUsers"));

        for (size_t l = 0; l < ARRAY_SIZE(lists); l++) {
                size_t i;
                json_t *c;

                json_array_foreach(vj_arr(spec, lists[l]), i, c) {
                        json_t *pm = json_object_get(vj_obj(c, "securityContext"), "procMount");
                        cleanup_free char *fp = NULL;

                        if (!json_is_string(pm))
                                continue;
                        fp = xasprintf("spec.%s[%zu].securityContext.procMount", lists[l], i);
                        if (!in_list(json_string_value(pm), proc_mount_types))
                                verr_not_supported(errs, fp, json_string_value(pm),
                                                   proc_mount_types);
                        else if (streq(json_string_value(pm), "Unmasked") && !own_users)
                                verr_str(errs, FIELD_ERROR_INVALID, fp, "Unmasked",
                                         "`hostUsers` must be false to use `Unmasked`");
                }
        }
        if (!own_users)
                return;
        for (size_t i = 0; i < ARRAY_SIZE(host_ns); i++)
                if (json_is_true(json_object_get(spec, host_ns[i].key)))
                        verr_raw(errs, FIELD_ERROR_FORBIDDEN, host_ns[i].path, NULL,
                                 "when `pod.Spec.HostUsers` is false");
}

static void validate_pod_spec(const json_t *spec, struct field_error_list *errs)
{
        const char *restart = str_or_empty(spec, "restartPolicy");
        json_t *ads = json_object_get(spec, "activeDeadlineSeconds");
        json_t *volumes;
        size_t i;
        json_t *v;

        if (!has_member(spec, "terminationGracePeriodSeconds"))
                verr_raw(errs, FIELD_ERROR_REQUIRED, "spec.terminationGracePeriodSeconds", NULL,
                         "");
        volumes = validate_volumes(spec, errs);
        validate_containers(spec, volumes, restart, errs);
        validate_init_containers(spec, volumes, restart, errs);
        json_decref(volumes);
        validate_pod_resources(spec, errs);

        /* K8S: validatePodHostNetworkDeps (ResourceIsPod) */
        if (json_is_true(json_object_get(spec, "hostNetwork"))) {
                json_array_foreach(vj_arr(spec, "containers"), i, v) {
                        size_t j;
                        json_t *port;
                        json_array_foreach(vj_arr(v, "ports"), j, port) {
                                json_t *hp = json_object_get(port, "hostPort");
                                json_t *cp = json_object_get(port, "containerPort");
                                long long h = json_is_integer(hp) ? json_integer_value(hp) : 0;
                                long long c = json_is_integer(cp) ? json_integer_value(cp) : 0;
                                if (h != c) {
                                        cleanup_free char *fp = xasprintf(
                                                "spec.containers[%zu].ports[%zu].hostPort", i, j);
                                        verr_int(errs, FIELD_ERROR_INVALID, fp, h,
                                                 "must match `containerPort` when `hostNetwork` "
                                                 "is true");
                                }
                        }
                }
        }
        validate_enum(spec, "restartPolicy", "spec.restartPolicy", restart_policies, errs);
        validate_enum(spec, "dnsPolicy", "spec.dnsPolicy", dns_policies, errs);
        validate_labels(vj_obj(spec, "nodeSelector"), "spec.nodeSelector", errs);
        if (streq(str_or_empty(spec, "dnsPolicy"), "None")) {
                json_t *dc = vj_obj(spec, "dnsConfig");
                if (!dc)
                        verr_raw(errs, FIELD_ERROR_REQUIRED, "spec.dnsConfig", NULL,
                                 "must provide `dnsConfig` when `dnsPolicy` is None");
                else if (json_array_size(vj_arr(dc, "nameservers")) == 0)
                        verr_raw(errs, FIELD_ERROR_REQUIRED, "spec.dnsConfig.nameservers", NULL,
                                 "must provide at least one DNS nameserver when `dnsPolicy` is "
                                 "None");
        }
        {
                json_t *seen = json_object();
                json_array_foreach(vj_arr(spec, "schedulingGates"), i, v) {
                        cleanup_free char *fp = xasprintf("spec.schedulingGates[%zu]", i);
                        const char *name = str_or_empty(v, "name");
                        validate_qualified_name(name, fp, errs);
                        if (json_object_get(seen, name))
                                verr_str(errs, FIELD_ERROR_DUPLICATE, fp, name, "");
                        json_object_set_new(seen, name, json_true());
                }
                json_decref(seen);
        }
        validate_optional_name(spec, "serviceAccountName", false, errs);
        validate_optional_name(spec, "nodeName", false, errs);
        if (ads && !json_is_null(ads)) {
                long long a = json_is_integer(ads) ? json_integer_value(ads) : 0;
                if (a < 1 || a > INT_MAX)
                        verr_int(errs, FIELD_ERROR_INVALID, "spec.activeDeadlineSeconds", a,
                                 "must be between 1 and 2147483647, inclusive");
        }
        validate_optional_name(spec, "hostname", true, errs);
        validate_optional_name(spec, "subdomain", true, errs);
        validate_tolerations(vj_arr(spec, "tolerations"), errs);
        v_validate_affinity(spec, errs);
        v_validate_topology_spread(spec, errs);
        validate_optional_name(spec, "priorityClassName", false, errs);
        if (json_is_string(json_object_get(spec, "runtimeClassName")))
                validate_dns1123_subdomain(str_or_empty(spec, "runtimeClassName"),
                                           "spec.runtimeClassName", errs);
        if (has_member(spec, "preemptionPolicy"))
                validate_enum(spec, "preemptionPolicy", "spec.preemptionPolicy",
                              preemption_policies, errs);
        if (vj_obj(spec, "overhead")) {
                /* K8S: validateOverhead reuses the container rules with overhead as limits */
                json_t *res = json_object();
                json_object_set(res, "limits", vj_obj(spec, "overhead"));
                validate_resource_requirements(res, "spec.overhead", RES_CONTAINER, errs);
                json_decref(res);
        }
        if (vj_obj(spec, "os")) {
                /* K8S: validateOS (Required on .name, NotSupported on spec.os itself) */
                const char *os = str_or_empty(vj_obj(spec, "os"), "name");
                if (!os[0])
                        verr_raw(errs, FIELD_ERROR_REQUIRED, "spec.os.name", NULL,
                                 "cannot be empty");
                else if (!in_list(os, os_names))
                        verr_not_supported(errs, "spec.os", os, os_names);
        }
        validate_host_users(spec, errs);
}

/* K8S: GetDeletionCostFromPodAnnotations' validFirstDigit + ParseInt(value, 10, 32) */
static bool valid_deletion_cost(const char *s)
{
        char *end;
        long long v;

        if (!s[0] ||
            !(s[0] == '-' || (s[0] == '0' && streq(s, "0")) || (s[0] >= '1' && s[0] <= '9')))
                return false;
        errno = 0;
        v = strtoll(s, &end, 10);
        return !errno && !*end && v >= INT32_MIN && v <= INT32_MAX &&
               isdigit((unsigned char) end[-1]);
}

/* K8S: ValidatePodSpecificAnnotations */
static void validate_pod_annotations(const json_t *pod, bool allow_invalid_cost,
                                     struct field_error_list *errs)
{
        json_t *ann = vj_obj(vj_obj(pod, "metadata"), "annotations");
        const char *mirror = vj_str(ann, MIRROR_ANNOTATION);
        const char *cost = vj_str(ann, DELETION_COST);

        if (mirror && !str_or_empty(vj_obj(pod, "spec"), "nodeName")[0])
                verr_str(errs, FIELD_ERROR_INVALID, "metadata.annotations[" MIRROR_ANNOTATION "]",
                         mirror, "must set spec.nodeName if mirror pod annotation is set");
        if (cost && !allow_invalid_cost && !valid_deletion_cost(cost))
                verr_str(errs, FIELD_ERROR_INVALID, "metadata.annotations[" DELETION_COST "]", cost,
                         "must be a 32bit integer");
}

/* K8S: validatePodMetadataAndSpec */
static void validate_pod_metadata_and_spec(const json_t *pod, bool allow_invalid_cost,
                                           struct field_error_list *errs)
{
        json_t *spec = vj_obj(pod, "spec");
        const char *lists[] = { "containers", "initContainers" };
        size_t i;
        json_t *v;

        validate_object_meta_create(pod, true, errs);
        validate_pod_annotations(pod, allow_invalid_cost, errs);
        validate_pod_spec(spec, errs);

        if (!str_or_empty(spec, "serviceAccountName")[0]) {
                json_array_foreach(vj_arr(spec, "volumes"), i, v) {
                        size_t s;
                        json_t *src;
                        json_array_foreach(vj_arr(vj_obj(v, "projected"), "sources"), s, src) {
                                if (!vj_obj(src, "serviceAccountToken"))
                                        continue;
                                cleanup_free char *fp =
                                        xasprintf("spec.volumes[%zu].projected.sources[%zu]."
                                                  "serviceAccountToken",
                                                  i, s);
                                verr_raw(errs, FIELD_ERROR_FORBIDDEN, fp, NULL,
                                         "must not be specified when serviceAccountName is not "
                                         "set");
                        }
                }
        }
        /* K8S: validateContainersOnlyForPod */
        for (size_t l = 0; l < ARRAY_SIZE(lists); l++) {
                json_array_foreach(vj_arr(spec, lists[l]), i, v) {
                        const char *image = str_or_empty(v, "image");
                        size_t n = strlen(image);
                        if (n && (isspace((unsigned char) image[0]) ||
                                  isspace((unsigned char) image[n - 1]))) {
                                cleanup_free char *fp =
                                        xasprintf("spec.%s[%zu].image", lists[l], i);
                                verr_str(errs, FIELD_ERROR_INVALID, fp, image,
                                         "must not have leading or trailing whitespace");
                        }
                }
        }
}

size_t validate_pod_create(const json_t *pod, struct field_error_list *errs)
{
        size_t before = errs->n;
        json_t *spec = vj_obj(pod, "spec");

        validate_pod_metadata_and_spec(pod, false, errs);
        if (json_array_size(vj_arr(spec, "ephemeralContainers")) > 0)
                verr_raw(errs, FIELD_ERROR_FORBIDDEN, "spec.ephemeralContainers", NULL,
                         "cannot be set on create");
        if (str_or_empty(spec, "nodeName")[0] && json_array_size(vj_arr(spec, "schedulingGates")))
                verr_raw(errs, FIELD_ERROR_FORBIDDEN, "spec.nodeName", NULL,
                         "cannot be set until all schedulingGates have been cleared");
        return errs->n - before;
}

/* ---- update ---- */

/* K8S: ValidatePodSpecificAnnotationUpdates (mirror-pod and AppArmor annotations are fixed). */
static void validate_pod_annotation_updates(const json_t *new_pod, const json_t *old_pod,
                                            bool allow_invalid_cost, struct field_error_list *errs)
{
        json_t *na = vj_obj(vj_obj(new_pod, "metadata"), "annotations");
        json_t *oa = vj_obj(vj_obj(old_pod, "metadata"), "annotations");
        const char *key;
        json_t *v;

        json_object_foreach(oa, key, v) {
                json_t *nv = na ? json_object_get(na, key) : NULL;
                cleanup_free char *fp = NULL;
                if (nv && json_equal(nv, v))
                        continue;
                fp = xasprintf("metadata.annotations[%s]", key);
                if (strncmp(key, APPARMOR_BETA_PREFIX, strlen(APPARMOR_BETA_PREFIX)) == 0)
                        verr_raw(errs, FIELD_ERROR_FORBIDDEN, fp, NULL,
                                 "may not remove or update AppArmor annotations");
                if (streq(key, MIRROR_ANNOTATION))
                        verr_raw(errs, FIELD_ERROR_FORBIDDEN, fp, NULL,
                                 "may not remove or update mirror pod annotation");
        }
        json_object_foreach(na, key, v) {
                cleanup_free char *fp = NULL;
                if (oa && json_object_get(oa, key))
                        continue;
                fp = xasprintf("metadata.annotations[%s]", key);
                if (strncmp(key, APPARMOR_BETA_PREFIX, strlen(APPARMOR_BETA_PREFIX)) == 0)
                        verr_raw(errs, FIELD_ERROR_FORBIDDEN, fp, NULL,
                                 "may not add AppArmor annotations");
                if (streq(key, MIRROR_ANNOTATION))
                        verr_raw(errs, FIELD_ERROR_FORBIDDEN, fp, NULL,
                                 "may not add mirror pod annotation");
        }
        validate_pod_annotations(new_pod, allow_invalid_cost, errs);
}

/* K8S: ValidateContainerUpdates; returns true when validation must stop. */
static bool validate_container_updates(const json_t *new_list, const json_t *old_list,
                                       const char *path, struct field_error_list *errs)
{
        size_t i;
        json_t *c;

        if (json_array_size(new_list) != json_array_size(old_list)) {
                verr_raw(errs, FIELD_ERROR_FORBIDDEN, path, NULL,
                         "pod updates may not add or remove containers");
                return true;
        }
        json_array_foreach(new_list, i, c) {
                const char *image = str_or_empty(c, "image");
                size_t n = strlen(image);
                cleanup_free char *fp = xasprintf("%s[%zu].image", path, i);
                if (!n)
                        verr_raw(errs, FIELD_ERROR_REQUIRED, fp, NULL, "");
                if (n &&
                    (isspace((unsigned char) image[0]) || isspace((unsigned char) image[n - 1])))
                        verr_str(errs, FIELD_ERROR_INVALID, fp, image,
                                 "must not have leading or trailing whitespace");
        }
        return false;
}

/* K8S: validateOnlyAddedTolerations: every old toleration must still be there, tolerationSeconds
 * aside. */
static void validate_only_added_tolerations(const json_t *new_list, const json_t *old_list,
                                            struct field_error_list *errs)
{
        size_t i, j;
        json_t *o, *n;

        json_array_foreach(old_list, i, o) {
                bool found = false;
                json_array_foreach(new_list, j, n) {
                        json_t *oc = json_deep_copy(o);
                        json_t *ts = json_object_get(n, "tolerationSeconds");
                        if (json_is_object(oc)) {
                                if (ts)
                                        json_object_set(oc, "tolerationSeconds", ts);
                                else
                                        json_object_del(oc, "tolerationSeconds");
                        }
                        found = vj_equal(oc, n);
                        json_decref(oc);
                        if (found)
                                break;
                }
                if (!found) {
                        verr_raw(errs, FIELD_ERROR_FORBIDDEN, "spec.tolerations", NULL,
                                 "existing toleration can not be modified except its "
                                 "tolerationSeconds");
                        return;
                }
        }
        validate_tolerations(new_list, errs);
}

#define UPDATABLE_FIELDS                                                                   \
 "`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`," \
 "`spec.tolerations` (only additions to existing tolerations),"                            \
 "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously "     \
 "negative)"

static void copy_member(json_t *to, const json_t *from, const char *key)
{
        json_t *v = json_is_object(from) ? json_object_get(from, key) : NULL;

        if (v)
                json_object_set_new(to, key, json_deep_copy(v));
        else
                json_object_del(to, key);
}

static bool deletion_cost_invalid(const json_t *pod)
{
        const char *cost = vj_str(vj_obj(vj_obj(pod, "metadata"), "annotations"), DELETION_COST);

        return cost && !valid_deletion_cost(cost);
}

size_t validate_pod_update(const json_t *new_pod, const json_t *old_pod,
                           struct field_error_list *errs)
{
        size_t before = errs->n;
        json_t *ns = vj_obj(new_pod, "spec"), *os = vj_obj(old_pod, "spec");
        bool allow_cost = deletion_cost_invalid(old_pod);
        json_t *nads = ns ? json_object_get(ns, "activeDeadlineSeconds") : NULL;
        json_t *oads = os ? json_object_get(os, "activeDeadlineSeconds") : NULL;
        json_t *munged, *old_tgp;
        const char *lists[] = { "containers", "initContainers" };
        size_t i;
        json_t *c;

        validate_object_meta_update(new_pod, old_pod, errs);
        validate_pod_metadata_and_spec(new_pod, allow_cost, errs);
        validate_pod_annotation_updates(new_pod, old_pod, allow_cost, errs);

        if (validate_container_updates(vj_arr(ns, "containers"), vj_arr(os, "containers"),
                                       "spec.containers", errs))
                return errs->n - before;
        if (validate_container_updates(vj_arr(ns, "initContainers"), vj_arr(os, "initContainers"),
                                       "spec.initContainers", errs))
                return errs->n - before;

        /* K8S: activeDeadlineSeconds may be set, or lowered, never raised or cleared */
        if (nads && !json_is_null(nads)) {
                long long n = json_is_integer(nads) ? json_integer_value(nads) : 0;
                if (n < 0 || n > INT_MAX) {
                        verr_int(errs, FIELD_ERROR_INVALID, "spec.activeDeadlineSeconds", n,
                                 "must be between 0 and 2147483647, inclusive");
                        return errs->n - before;
                }
                if (json_is_integer(oads) && json_integer_value(oads) < n) {
                        verr_int(errs, FIELD_ERROR_INVALID, "spec.activeDeadlineSeconds", n,
                                 "must be less than or equal to previous value");
                        return errs->n - before;
                }
        } else if (oads && !json_is_null(oads)) {
                verr_str(errs, FIELD_ERROR_INVALID, "spec.activeDeadlineSeconds", "null",
                         "must not update from a positive integer to nil value");
        }

        validate_only_added_tolerations(vj_arr(ns, "tolerations"), vj_arr(os, "tolerations"), errs);
        /* K8S: validateOnlyDeletedSchedulingGates */
        json_array_foreach(vj_arr(ns, "schedulingGates"), i, c) {
                const char *name = str_or_empty(c, "name");
                bool old_has = false;
                size_t j;
                json_t *g;
                json_array_foreach(vj_arr(os, "schedulingGates"), j, g) {
                        old_has |= streq(str_or_empty(g, "name"), name);
                }
                if (!old_has) {
                        cleanup_free char *fp = xasprintf("spec.schedulingGates[%zu].name", i);
                        cleanup_free char *d = xasprintf(
                                "only deletion is allowed, but found new scheduling gate '%s'",
                                name);
                        verr_raw(errs, FIELD_ERROR_FORBIDDEN, fp, NULL, d);
                }
        }

        if (vj_equal(ns, os))
                return errs->n - before;

        /* K8S: munge the updatable fields back to their old values, then compare */
        munged = ns ? json_deep_copy(ns) : json_object();
        for (size_t l = 0; l < ARRAY_SIZE(lists); l++) {
                json_array_foreach(vj_arr(munged, lists[l]), i, c) {
                        json_t *oc = json_array_get(vj_arr(os, lists[l]), i);
                        if (json_is_object(c))
                                copy_member(c, oc, "image");
                }
        }
        copy_member(munged, os, "activeDeadlineSeconds");
        copy_member(munged, os, "schedulingGates");
        copy_member(munged, os, "tolerations");
        old_tgp = os ? json_object_get(os, "terminationGracePeriodSeconds") : NULL;
        if (json_is_integer(old_tgp) && json_integer_value(old_tgp) < 0) {
                json_t *t = json_object_get(munged, "terminationGracePeriodSeconds");
                if (json_is_integer(t) && json_integer_value(t) == 1)
                        copy_member(munged, os, "terminationGracePeriodSeconds");
        }
        if (!vj_equal(munged, os)) {
                struct strbuf diff;
                strbuf_init(&diff);
                vj_diff(os, munged, "spec", &diff);
                if (diff.len && diff.buf[diff.len - 1] == '\n')
                        diff.buf[--diff.len] = '\0';
                field_error_add(errs, FIELD_ERROR_FORBIDDEN, "spec", NULL,
                                "pod updates may not change fields other than %s\n%s",
                                UPDATABLE_FIELDS, diff.buf);
                strbuf_release(&diff);
        }
        json_decref(munged);
        return errs->n - before;
}

bool pod_spec_changed(const json_t *new_pod, const json_t *old_pod)
{
        return !vj_equal(vj_obj(new_pod, "spec"), vj_obj(old_pod, "spec"));
}

/* ---- resize ---- */

/* K8S: ResetObjectMetaForStatus: the subresource keeps these from the stored object. */
static const char *const reset_meta_keys[] = { "deletionTimestamp", "generation",
                                               "selfLink",          "labels",
                                               "annotations",       "finalizers",
                                               "ownerReferences",   NULL };

/* K8S: dropNonResizeUpdatesForContainers */
static json_t *drop_for_containers(const json_t *new_list, const json_t *old_list)
{
        json_t *out;
        size_t i;
        json_t *c;

        if (json_array_size(new_list) == 0)
                return new_list ? json_deep_copy(new_list) : NULL;
        out = json_deep_copy(old_list);
        json_array_foreach(new_list, i, c) {
                json_t *oc = json_array_get(out, i);
                if (!streq(str_or_empty(oc, "name"), str_or_empty(c, "name"))) {
                        /* rename or reorder: let validation reject the request */
                        json_decref(out);
                        return json_deep_copy(new_list);
                }
                copy_member(oc, c, "resources");
                copy_member(oc, c, "resizePolicy");
        }
        return out;
}

/* KEP-6030: emptyDir.sizeLimit survives the subresource when the volume list keeps its names;
 * validate_pod_resize decides which changes are allowed. Otherwise the new list is kept so
 * validation rejects the added, removed or renamed volume. */
static json_t *drop_for_volumes(const json_t *new_list, const json_t *old_list)
{
        json_t *out;
        size_t i;
        json_t *v;

        if (json_array_size(new_list) != json_array_size(old_list))
                return new_list ? json_deep_copy(new_list) : NULL;
        out = old_list ? json_deep_copy(old_list) : NULL;
        json_array_foreach(new_list, i, v) {
                json_t *ov = json_array_get(out, i);
                json_t *ned = vj_obj(v, "emptyDir"), *oed = vj_obj(ov, "emptyDir");
                if (!streq(str_or_empty(ov, "name"), str_or_empty(v, "name"))) {
                        json_decref(out);
                        return json_deep_copy(new_list);
                }
                if (ned && oed)
                        copy_member(oed, ned, "sizeLimit");
        }
        return out;
}

json_t *pod_drop_non_resize_updates(const json_t *new_pod, const json_t *old_pod)
{
        json_t *ns = vj_obj(new_pod, "spec"), *os = vj_obj(old_pod, "spec");
        json_t *out, *spec, *meta, *nm, *om;
        const char *lists[] = { "containers", "initContainers" };

        if (json_array_size(vj_arr(ns, "containers")) !=
                    json_array_size(vj_arr(os, "containers")) ||
            json_array_size(vj_arr(ns, "initContainers")) !=
                    json_array_size(vj_arr(os, "initContainers")))
                return json_deep_copy(new_pod);

        if (!json_is_object(new_pod))
                return json_deep_copy(new_pod);
        /* spec, status and metadata are replaced below: the rest is shared with new_pod */
        out = json_copy((json_t *) new_pod);
        spec = os ? json_deep_copy(os) : json_object();
        for (size_t l = 0; l < ARRAY_SIZE(lists); l++) {
                json_t *list = drop_for_containers(vj_arr(ns, lists[l]), vj_arr(os, lists[l]));
                if (list)
                        json_object_set_new(spec, lists[l], list);
                else
                        json_object_del(spec, lists[l]);
        }
        {
                json_t *vols = drop_for_volumes(vj_arr(ns, "volumes"), vj_arr(os, "volumes"));
                if (vols)
                        json_object_set_new(spec, "volumes", vols);
                else
                        json_object_del(spec, "volumes");
        }
        json_object_set_new(out, "spec", spec);
        copy_member(out, old_pod, "status");

        nm = vj_obj(new_pod, "metadata");
        om = vj_obj(old_pod, "metadata");
        meta = nm ? json_copy(nm) : json_object();
        for (size_t k = 0; reset_meta_keys[k]; k++)
                copy_member(meta, om, reset_meta_keys[k]);
        json_object_set_new(out, "metadata", meta);
        return out;
}

/* K8S: isPodLevelResourcesSet in ValidatePodResize: any pod-level request or limit. */
static bool pod_level_set(const json_t *pod)
{
        json_t *res = vj_obj(vj_obj(pod, "spec"), "resources");

        return json_object_size(vj_obj(res, "requests")) + json_object_size(vj_obj(res, "limits")) >
               0;
}

/* K8S: isPodResizeRequestSupported: the first running container must report resources. */
static bool resize_supported(const json_t *old_pod)
{
        size_t i;
        json_t *cs;

        json_array_foreach(vj_arr(vj_obj(old_pod, "status"), "containerStatuses"), i, cs) {
                if (has_member(vj_obj(cs, "state"), "running"))
                        return has_member(cs, "resources");
        }
        return true;
}

/* K8S: resourcesRemoved */
static bool resources_removed(const json_t *new_list, const json_t *old_list)
{
        const char *name;
        json_t *v;

        if (json_object_size(old_list) > json_object_size(new_list))
                return true;
        json_object_foreach((json_t *) old_list, name, v) {
                if (!json_object_get(new_list, name))
                        return true;
        }
        return false;
}

/* K8S: validateContainerResize, 1.34+: removals are forbidden; memory limits may decrease
 * (kubernetes#133012 dropped 1.33's "memory limits cannot be decreased unless resizePolicy is
 * RestartContainer"). */
static void validate_container_resize(const json_t *nc, const json_t *oc, const char *path,
                                      struct field_error_list *errs)
{
        json_t *nr = vj_obj(nc, "resources"), * or = vj_obj(oc, "resources");

        if (resources_removed(vj_obj(nr, "requests"), vj_obj(or, "requests"))) {
                cleanup_free char *fp = xasprintf("%s.requests", path);
                verr_raw(errs, FIELD_ERROR_FORBIDDEN, fp, NULL,
                         "resource requests cannot be removed");
        }
        if (resources_removed(vj_obj(nr, "limits"), vj_obj(or, "limits"))) {
                cleanup_free char *fp = xasprintf("%s.limits", path);
                verr_raw(errs, FIELD_ERROR_FORBIDDEN, fp, NULL,
                         "resource limits cannot be removed");
        }
}

/* K8S: dropCPUMemoryUpdates for one list: nil when the old list is nil; else the new list with
 * cpu and memory replaced by the old values (or removed). */
static json_t *drop_cpu_memory_list(const json_t *list, const json_t *old_list)
{
        static const char *const keys[] = { "cpu", "memory" };
        json_t *out;

        if (!old_list)
                return NULL;
        out = list ? json_deep_copy(list) : json_object();
        for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
                copy_member(out, old_list, keys[i]);
        return out;
}

/* K8S: dropCPUMemoryResourcesFromContainer: resources becomes {limits, requests} only. */
static void drop_cpu_memory(json_t *c, const json_t *oc)
{
        json_t *nr = vj_obj(c, "resources"), * or = vj_obj(oc, "resources");
        json_t *lim = drop_cpu_memory_list(vj_obj(nr, "limits"), vj_obj(or, "limits"));
        json_t *req = drop_cpu_memory_list(vj_obj(nr, "requests"), vj_obj(or, "requests"));
        json_t *res = json_object();

        if (lim)
                json_object_set_new(res, "limits", lim);
        if (req)
                json_object_set_new(res, "requests", req);
        json_object_set_new(c, "resources", res);
}

/* Both absent, or both quantities of the same value. */
static bool quantities_equal(const json_t *a, const json_t *b)
{
        struct quantity qa, qb;

        if (!a || !b)
                return !a && !b;
        if (vq_parse(a, &qa) < 0 || vq_parse(b, &qb) < 0)
                return json_equal((json_t *) a, (json_t *) b);
        return quantity_cmp(&qa, &qb) == 0;
}

static bool is_memory_empty_dir(const json_t *vol)
{
        json_t *ed = vj_obj(vol, "emptyDir");

        return ed && streq(str_or_empty(ed, "medium"), "Memory");
}

static json_t *find_volume(const json_t *list, const char *name, size_t *ret_index)
{
        size_t i;
        json_t *v;

        json_array_foreach(list, i, v) {
                if (streq(str_or_empty(v, "name"), name)) {
                        *ret_index = i;
                        return v;
                }
        }
        return NULL;
}

/* KEP-6030 (alpha design; upstream's ValidatePodResize wording for these was not found, so the
 * messages follow the style of the container rules above):
 *   spec.volumes[i]: Forbidden: memory-backed emptyDir volumes cannot be added or removed
 *   spec.volumes[i].emptyDir.sizeLimit: Forbidden: emptyDir sizeLimit cannot be added
 *   spec.volumes[i].emptyDir.sizeLimit: Forbidden: emptyDir sizeLimit cannot be removed
 *   spec.volumes[i].emptyDir.sizeLimit: Forbidden: only sizeLimit of memory-backed (medium:
 *     Memory) emptyDir volumes is mutable
 * A valid change is munged back into `munged` (the spec compared at the end). */
static void validate_volume_resize(const json_t *ns, const json_t *os, json_t *munged,
                                   struct field_error_list *errs)
{
        json_t *nl = vj_arr(ns, "volumes"), *ol = vj_arr(os, "volumes");
        size_t i, j;
        json_t *v;

        json_array_foreach(ol, i, v) {
                json_t *nv = find_volume(nl, str_or_empty(v, "name"), &j);
                if (is_memory_empty_dir(v) && !is_memory_empty_dir(nv)) {
                        cleanup_free char *fp = xasprintf("spec.volumes[%zu]", i);
                        verr_raw(errs, FIELD_ERROR_FORBIDDEN, fp, NULL,
                                 "memory-backed emptyDir volumes cannot be added or removed");
                }
        }
        json_array_foreach(nl, j, v) {
                json_t *ov = find_volume(ol, str_or_empty(v, "name"), &i);
                json_t *ned = vj_obj(v, "emptyDir"), *oed = vj_obj(ov, "emptyDir");
                json_t *nsl, *osl;
                cleanup_free char *fp = xasprintf("spec.volumes[%zu].emptyDir.sizeLimit", j);

                if (is_memory_empty_dir(v) && !is_memory_empty_dir(ov)) {
                        cleanup_free char *vp = xasprintf("spec.volumes[%zu]", j);
                        verr_raw(errs, FIELD_ERROR_FORBIDDEN, vp, NULL,
                                 "memory-backed emptyDir volumes cannot be added or removed");
                        continue;
                }
                if (!ned || !oed)
                        continue;
                nsl = json_object_get(ned, "sizeLimit");
                osl = json_object_get(oed, "sizeLimit");
                if (json_is_null(nsl))
                        nsl = NULL;
                if (json_is_null(osl))
                        osl = NULL;
                if (quantities_equal(nsl, osl))
                        continue;
                if (!is_memory_empty_dir(v) || !is_memory_empty_dir(ov)) {
                        if (!vj_equal(json_object_get(ned, "medium"),
                                      json_object_get(oed, "medium")))
                                continue; /* a medium change: the final comparison reports it */
                        verr_raw(errs, FIELD_ERROR_FORBIDDEN, fp, NULL,
                                 "only sizeLimit of memory-backed (medium: Memory) emptyDir "
                                 "volumes is mutable");
                } else if (!osl) {
                        verr_raw(errs, FIELD_ERROR_FORBIDDEN, fp, NULL,
                                 "emptyDir sizeLimit cannot be added");
                } else if (!nsl) {
                        verr_raw(errs, FIELD_ERROR_FORBIDDEN, fp, NULL,
                                 "emptyDir sizeLimit cannot be removed");
                } else {
                        /* KEP-6030: a Memory emptyDir's sizeLimit is resizable: munge it back */
                        json_t *mv = json_array_get(vj_arr(munged, "volumes"), j);
                        json_t *med = vj_obj(mv, "emptyDir");
                        if (med)
                                json_object_set(med, "sizeLimit", osl);
                }
        }
}

/* K8S: validatePodResizeContainerOrdering (1.34): containers and initContainers may not be
 * added, removed, renamed or reordered by a resize. Returns the number of errors added. */
static size_t resize_container_ordering(const json_t *ns, const json_t *os,
                                        struct field_error_list *errs)
{
        static const char *const lists[] = { "containers", "initContainers" };
        size_t before = errs->n;

        for (size_t l = 0; l < ARRAY_SIZE(lists); l++) {
                json_t *na = vj_arr(ns, lists[l]), *oa = vj_arr(os, lists[l]);
                size_t i;
                json_t *c;

                if (json_array_size(na) != json_array_size(oa)) {
                        cleanup_free char *fp = xasprintf("spec.%s", lists[l]);
                        cleanup_free char *msg =
                                xasprintf("%s may not be added or removed on resize", lists[l]);
                        verr_raw(errs, FIELD_ERROR_FORBIDDEN, fp, NULL, msg);
                        continue;
                }
                json_array_foreach(oa, i, c) {
                        if (streq(str_or_empty(c, "name"),
                                  str_or_empty(json_array_get(na, i), "name")))
                                continue;
                        cleanup_free char *fp = xasprintf("spec.%s[%zu].name", lists[l], i);
                        cleanup_free char *msg =
                                xasprintf("%s may not be renamed or reordered on resize", lists[l]);
                        verr_raw(errs, FIELD_ERROR_FORBIDDEN, fp, NULL, msg);
                }
        }
        return errs->n - before;
}

size_t validate_pod_resize(const json_t *new_pod, const json_t *old_pod,
                           struct field_error_list *errs)
{
        struct field_error_list all;
        json_t *ns = vj_obj(new_pod, "spec"), *os = vj_obj(old_pod, "spec");
        json_t *nq = json_object_get(vj_obj(new_pod, "status"), "qosClass");
        const char *mirror =
                vj_str(vj_obj(vj_obj(old_pod, "metadata"), "annotations"), MIRROR_ANNOTATION);
        json_t *munged;
        size_t before = errs->n;
        size_t i;
        json_t *c;

        field_error_list_init(&all);
        validate_object_meta_update(new_pod, old_pod, &all);
        validate_pod_metadata_and_spec(new_pod, deletion_cost_invalid(old_pod), &all);

        /* K8S: these three replace every other error */
        if (pod_level_set(old_pod) || pod_level_set(new_pod)) {
                field_error_list_release(&all);
                verr_raw(errs, FIELD_ERROR_FORBIDDEN, "", NULL,
                         "pods with pod-level resources cannot be resized");
                return errs->n - before;
        }
        if (mirror) {
                field_error_list_release(&all);
                verr_raw(errs, FIELD_ERROR_FORBIDDEN, "", NULL, "static pods cannot be resized");
                return errs->n - before;
        }
        if (streq(str_or_empty(vj_obj(os, "os"), "name"), "windows")) {
                field_error_list_release(&all);
                verr_raw(errs, FIELD_ERROR_FORBIDDEN, "", NULL, "windows pods cannot be resized");
                return errs->n - before;
        }

        /* K8S: GetPodQOS(old) != ComputePodQOS(new); the bad value is new status.qosClass */
        if (!streq(pod_qos_class_stored(old_pod), pod_qos_class(new_pod))) {
                cleanup_free char *r = json_is_string(nq) ? vj_render(nq) : field_value_quote("");
                verr_raw(&all, FIELD_ERROR_INVALID, "spec", r,
                         "Pod QOS Class may not change as a result of resizing");
        }
        if (!resize_supported(old_pod))
                verr_raw(&all, FIELD_ERROR_FORBIDDEN, "spec", NULL,
                         "Pod running on node without support for resize");

        /* K8S: validatePodResizeContainerOrdering: the rest assumes both lists line up, so
         * it runs only when they do */
        if (resize_container_ordering(ns, os, &all) > 0) {
                verr_move(errs, &all);
                return errs->n - before;
        }
        {
                json_array_foreach(vj_arr(os, "initContainers"), i, c) {
                        cleanup_free char *fp = NULL;
                        if (!v_is_sidecar(c))
                                continue;
                        fp = xasprintf("spec.initContainers[%zu].resources", i);
                        validate_container_resize(json_array_get(vj_arr(ns, "initContainers"), i),
                                                  c, fp, &all);
                }
                json_array_foreach(vj_arr(os, "containers"), i, c) {
                        cleanup_free char *fp = xasprintf("spec.containers[%zu].resources", i);
                        validate_container_resize(json_array_get(vj_arr(ns, "containers"), i), c,
                                                  fp, &all);
                }
        }

        /* K8S: only cpu and memory may change */
        munged = ns ? json_deep_copy(ns) : json_object();
        {
                json_array_foreach(vj_arr(munged, "containers"), i, c) {
                        json_t *oc = json_array_get(vj_arr(os, "containers"), i);
                        drop_cpu_memory(c, oc);
                        if (!vj_equal(c, oc))
                                verr_raw(&all, FIELD_ERROR_FORBIDDEN, "spec", NULL,
                                         "only cpu and memory resources are mutable");
                }
                json_array_foreach(vj_arr(munged, "initContainers"), i, c) {
                        json_t *oc = json_array_get(vj_arr(os, "initContainers"), i);
                        if (v_is_sidecar(c)) {
                                drop_cpu_memory(c, oc);
                                if (!vj_equal(c, oc))
                                        verr_raw(&all, FIELD_ERROR_FORBIDDEN, "spec", NULL,
                                                 "only cpu and memory resources for sidecar "
                                                 "containers are mutable");
                        } else if (!vj_equal(c, oc)) {
                                verr_raw(&all, FIELD_ERROR_FORBIDDEN, "spec", NULL,
                                         "resources for non-sidecar init containers are "
                                         "immutable");
                        }
                }
        }
        validate_volume_resize(ns, os, munged, &all);

        if (all.n == 0 && !vj_equal(munged, os))
                verr_raw(&all, FIELD_ERROR_FORBIDDEN, "spec", NULL,
                         "only cpu and memory resources are mutable");
        json_decref(munged);
        verr_move(errs, &all);
        return errs->n - before;
}

/* ---- templates ---- */

size_t validate_pod_template(const json_t *tmpl, const char *path, struct field_error_list *errs)
{
        struct field_error_list mine;
        const json_t *spec = vj_obj(tmpl, "spec");
        json_t *empty = json_object();
        size_t before = errs->n;

        /* K8S: ValidatePodTemplateSpec: labels and annotations of the template's metadata (no
         * name: the pods get theirs), then ValidatePodSpec with the template's path. The pod
         * rules name their fields from "spec." and "metadata."; re-rooted under path here. */
        field_error_list_init(&mine);
        validate_labels(vj_obj(vj_obj(tmpl, "metadata"), "labels"), "metadata.labels", &mine);
        validate_pod_annotations(tmpl, false, &mine);
        validate_pod_spec(spec ? spec : empty, &mine);
        for (size_t i = 0; i < mine.n; i++) {
                char *f = xasprintf("%s.%s", path, mine.items[i].field);
                free(mine.items[i].field);
                mine.items[i].field = f;
        }
        verr_move(errs, &mine);
        field_error_list_release(&mine);
        json_decref(empty);
        return errs->n - before;
}
