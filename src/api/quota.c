/* quota.c: what objects charge against a ResourceQuota and whether a request fits, as pure
 * functions over JSON (api/quota.h). The store reads and writes around them live in
 * apiserver/admission-quota.c (admission) and controllers/resourcequota.c (status.used). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api/quota.h"
#include "api/validation-internal.h"
#include "api/validation.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/quantity.h"
#include "base/strbuf.h"
#include "base/timeutil.h"

static bool is_core(const char *group, const char *plural, const char *want)
{
        return streq(group, "") && streq(plural, want);
}

bool quota_resource_ignored(const char *group, const char *plural)
{
        return is_core(group, plural, "events");
}

static bool pod_terminating(const json_t *pod)
{
        const json_t *d = json_path(pod, "spec.activeDeadlineSeconds");

        /* K8S: IsTerminating: activeDeadlineSeconds set and >= 0 */
        return json_is_integer(d) && json_integer_value(d) >= 0;
}

bool quota_handles(const char *group, const char *plural, const char *sub, const json_t *obj,
                   const json_t *old)
{
        sub = sub ? sub : "";
        if (quota_resource_ignored(group, plural))
                return false;
        if (is_core(group, plural, "pods")) {
                if (streq(sub, "resize"))
                        return old != NULL;
                if (!streq(sub, ""))
                        return false;
                return !old || pod_terminating(old) != pod_terminating(obj);
        }
        if (!streq(sub, ""))
                return false;
        /* K8S: the claim evaluator handles every create and update; the object count
         * evaluator only creates */
        return !old || is_core(group, plural, "persistentvolumeclaims");
}

/* ---- resource lists ---- */

static void q_parse(const json_t *v, struct quantity *q)
{
        if (vq_parse(v, q) < 0)
                quantity_from_int64(0, QUANTITY_DECIMAL_SI, q);
}

static json_t *q_json(struct quantity *q)
{
        cleanup_free char *s = NULL;

        q->text[0] = '\0'; /* K8S: arithmetic drops the String() cache */
        s = quantity_format(q);
        return json_string(s);
}

static void list_set_sum(json_t *l, const char *name, const json_t *a, const json_t *b)
{
        struct quantity x, y;

        q_parse(a, &x);
        if (b) {
                q_parse(b, &y);
                if (quantity_add(&x, &y, &x) < 0)
                        return;
        }
        json_object_set_new(l, name, q_json(&x));
}

json_t *quota_list_add(const json_t *a, const json_t *b)
{
        json_t *out = json_object();
        const char *name;
        json_t *v;

        json_object_foreach((json_t *) a, name, v) {
                list_set_sum(out, name, v, json_object_get(b, name));
        }
        json_object_foreach((json_t *) b, name, v) {
                if (!json_object_get(a, name))
                        list_set_sum(out, name, v, NULL);
        }
        return out;
}

static int list_cmp(const json_t *a, const json_t *b)
{
        struct quantity x, y;

        q_parse(a, &x);
        q_parse(b, &y);
        return quantity_cmp(&x, &y);
}

bool quota_list_equal(const json_t *a, const json_t *b)
{
        const char *name;
        json_t *v;

        if (json_object_size(a) != json_object_size(b))
                return false;
        json_object_foreach((json_t *) a, name, v) {
                const json_t *w = json_object_get(b, name);
                if (!w || list_cmp(v, w) != 0)
                        return false;
        }
        return true;
}

static int cmp_str(const void *a, const void *b)
{
        return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* The names of l, sorted; caller frees the array (names borrowed from l). */
static const char **sorted_names(const json_t *l, size_t *ret_n)
{
        const char **names = xcalloc(json_object_size(l) + 1, sizeof(*names));
        const char *name;
        size_t n = 0;
        json_t *v;

        json_object_foreach((json_t *) l, name, v) {
                names[n++] = name;
        }
        qsort(names, n, sizeof(*names), cmp_str);
        *ret_n = n;
        return names;
}

char *quota_list_pretty(const json_t *l)
{
        size_t n;
        cleanup_free const char **names = sorted_names(l, &n);
        struct strbuf sb;

        strbuf_init(&sb);
        for (size_t i = 0; i < n; i++) {
                cleanup_free char *v = vq_string(json_object_get(l, names[i]));
                strbuf_addf(&sb, "%s%s=%s", i ? "," : "", names[i], v);
        }
        return strbuf_detach(&sb);
}

/* K8S: quota.Mask: the entries of l whose names are keys of names_of. */
static json_t *list_mask(const json_t *l, const json_t *names_of)
{
        json_t *out = json_object();
        const char *name;
        json_t *v;

        json_object_foreach((json_t *) l, name, v) {
                if (json_object_get(names_of, name))
                        json_object_set(out, name, v);
        }
        return out;
}

/* ---- pods (K8S: component-helpers resource.PodRequests/PodLimits with UseStatusResources) ---- */

static const json_t *container_status(const json_t *pod, const char *list, const char *name)
{
        size_t i;
        json_t *cs;

        json_array_foreach(json_path(pod, list), i, cs) {
                if (streq(json_path_string_or_empty(cs, "name"), name))
                        return cs;
        }
        return NULL;
}

/* K8S: IsPodResizeInfeasible: the PodResizePending condition with reason Infeasible (1.33), or
 * the 1.32 status.resize. */
static bool pod_resize_infeasible(const json_t *pod)
{
        const char *resize = json_path_string(pod, "status.resize");
        size_t i;
        json_t *c;

        if (resize && streq(resize, "Infeasible"))
                return true;
        json_array_foreach(json_path(pod, "status.conditions"), i, c) {
                if (streq(json_path_string_or_empty(c, "type"), "PodResizePending") &&
                    streq(json_path_string_or_empty(c, "reason"), "Infeasible"))
                        return true;
        }
        return false;
}

/* K8S: determineContainerReqs / determineContainerLimits: a container with status resources
 * counts at the larger of its spec and what its status says is allocated and actual. */
static void container_list(const json_t *pod, const json_t *c, const json_t *cs, bool limits,
                           struct vres *out)
{
        const char *which = limits ? "limits" : "requests";
        const json_t *spec = json_path(c, limits ? "resources.limits" : "resources.requests");
        const json_t *res = cs ? json_object_get(cs, "resources") : NULL;
        bool infeasible;

        if (!json_is_object(res)) {
                vres_add_list(out, spec);
                return;
        }
        infeasible = pod_resize_infeasible(pod);
        if (!infeasible) {
                struct vres l = { 0 };
                vres_add_list(&l, spec);
                vres_max(out, &l);
                vres_release(&l);
        }
        {
                struct vres l = { 0 };
                vres_add_list(&l, json_object_get(res, which));
                vres_max(out, &l);
                vres_release(&l);
        }
        if (!limits) {
                struct vres l = { 0 };
                vres_add_list(&l, json_object_get(cs, "allocatedResources"));
                vres_max(out, &l);
                vres_release(&l);
        }
}

/* K8S: AggregateContainerRequests / AggregateContainerLimits: regular containers and sidecars
 * add up; a plain init container counts with the sidecars started before it; the larger wins. */
static void pod_aggregate(const json_t *pod, bool limits, struct vres *out)
{
        struct vres sidecars = { 0 }, inits = { 0 };
        size_t i;
        json_t *c;

        json_array_foreach(json_path(pod, "spec.containers"), i, c) {
                struct vres l = { 0 };
                container_list(pod, c,
                               container_status(pod, "status.containerStatuses",
                                                json_path_string_or_empty(c, "name")),
                               limits, &l);
                vres_add(out, &l);
                vres_release(&l);
        }
        json_array_foreach(json_path(pod, "spec.initContainers"), i, c) {
                struct vres l = { 0 }, cur = { 0 };
                bool sidecar = v_is_sidecar(c);
                container_list(pod, c,
                               sidecar ? container_status(pod, "status.initContainerStatuses",
                                                          json_path_string_or_empty(c, "name"))
                                       : NULL,
                               limits, &l);
                if (sidecar) {
                        vres_add(out, &l);
                        vres_add(&sidecars, &l);
                        vres_add(&cur, &sidecars);
                } else {
                        vres_add(&cur, &l);
                        vres_add(&cur, &sidecars);
                }
                vres_max(&inits, &cur);
                vres_release(&cur);
                vres_release(&l);
        }
        vres_max(out, &inits);
        vres_release(&sidecars);
        vres_release(&inits);
}

static bool pod_level_resources_set(const json_t *pod)
{
        static const char *const names[] = { "cpu", "memory" };

        for (size_t i = 0; i < 2; i++) {
                if (json_path(pod, "spec.resources.requests") &&
                    json_object_get(json_path(pod, "spec.resources.requests"), names[i]))
                        return true;
                if (json_path(pod, "spec.resources.limits") &&
                    json_object_get(json_path(pod, "spec.resources.limits"), names[i]))
                        return true;
        }
        return false;
}

/* K8S: PodRequests / PodLimits: pod-level cpu and memory replace the containers' sum; overhead
 * is added to every request and to every limit that is set. */
static void pod_list(const json_t *pod, bool limits, struct vres *out)
{
        const char *which = limits ? "spec.resources.limits" : "spec.resources.requests";
        const json_t *overhead = json_path(pod, "spec.overhead");
        const char *name;
        json_t *v;

        pod_aggregate(pod, limits, out);
        if (pod_level_resources_set(pod)) {
                json_object_foreach(json_path(pod, which), name, v) {
                        struct quantity q;
                        if ((streq(name, "cpu") || streq(name, "memory")) && vq_parse(v, &q) == 0) {
                                struct vres_entry *e = vres_get(out, name);
                                e->sum = (struct vq_sum){ 0 };
                                vq_sum_add(&e->sum, &q);
                        }
                }
        }
        json_object_foreach((json_t *) overhead, name, v) {
                struct quantity q;
                bool present = false;
                for (size_t i = 0; i < out->n; i++)
                        present |= streq(out->items[i].name, name) && out->items[i].sum.set;
                if ((!limits || present) && vq_parse(v, &q) == 0)
                        vq_sum_add(&vres_get(out, name)->sum, &q);
        }
}

static void set_sum_prefixed(json_t *l, const char *prefix, const char *name,
                             const struct vq_sum *s)
{
        cleanup_free char *key = xasprintf("%s%s", prefix, name);
        cleanup_free char *v = vq_sum_string(s);

        json_object_set_new(l, key, json_string(v));
}

static bool is_hugepages(const char *name)
{
        return v_resource_name_is_hugepages(name);
}

/* K8S: podComputeUsageHelper */
static void pod_compute_usage(json_t *out, const struct vres *requests, const struct vres *limits)
{
        json_object_set_new(out, "pods", json_string("1"));
        for (size_t i = 0; i < requests->n; i++) {
                const char *name = requests->items[i].name;
                const struct vq_sum *s = &requests->items[i].sum;

                if (!s->set)
                        continue;
                if (streq(name, "cpu") || streq(name, "memory") ||
                    streq(name, "ephemeral-storage") || is_hugepages(name)) {
                        set_sum_prefixed(out, "", name, s);
                        set_sum_prefixed(out, "requests.", name, s);
                } else if (v_resource_name_is_extended(name)) {
                        set_sum_prefixed(out, "requests.", name, s);
                }
        }
        for (size_t i = 0; i < limits->n; i++) {
                const char *name = limits->items[i].name;

                if (limits->items[i].sum.set && (streq(name, "cpu") || streq(name, "memory") ||
                                                 streq(name, "ephemeral-storage")))
                        set_sum_prefixed(out, "limits.", name, &limits->items[i].sum);
        }
}

/* K8S: QuotaV1Pod: terminal pods, and pods past their deletion grace, charge no compute */
static bool pod_charged(const json_t *pod, time_t now)
{
        const char *phase = json_path_string_or_empty(pod, "status.phase");
        const char *deleted = json_path_string(pod, "metadata.deletionTimestamp");
        const json_t *grace = json_path(pod, "metadata.deletionGracePeriodSeconds");
        time_t t;

        if (streq(phase, "Failed") || streq(phase, "Succeeded"))
                return false;
        if (deleted && json_is_integer(grace) && time_parse_rfc3339(deleted, &t) == 0 &&
            now > t + (time_t) json_integer_value(grace))
                return false;
        return true;
}

static void pod_usage(const json_t *pod, time_t now, json_t *out)
{
        struct vres requests = { 0 }, limits = { 0 };

        json_object_set_new(out, "count/pods", json_string("1"));
        if (!pod_charged(pod, now))
                return;
        pod_list(pod, false, &requests);
        pod_list(pod, true, &limits);
        pod_compute_usage(out, &requests, &limits);
        vres_release(&requests);
        vres_release(&limits);
}

/* ---- claims (K8S: pvcEvaluator) ---- */

static void pvc_usage(const json_t *pvc, json_t *out)
{
        const char *class = json_string_value(json_object_get(
                json_path(pvc, "metadata.annotations"), "volume.beta.kubernetes.io/storage-class"));
        const json_t *req = json_path(pvc, "spec.resources.requests");
        const json_t *alloc = json_path(pvc, "status.allocatedResources");
        struct quantity q, a;

        /* K8S: GetPersistentVolumeClaimClass: the beta annotation, then storageClassName */
        if (!class)
                class = json_path_string(pvc, "spec.storageClassName");
        json_object_set_new(out, "persistentvolumeclaims", json_string("1"));
        json_object_set_new(out, "count/persistentvolumeclaims", json_string("1"));
        if (class && *class) {
                cleanup_free char *k =
                        xasprintf("%s" QUOTA_STORAGE_CLASS_SUFFIX "persistentvolumeclaims", class);
                json_object_set_new(out, k, json_string("1"));
        }
        if (!json_object_get(req, "storage"))
                return;
        q_parse(json_object_get(req, "storage"), &q);
        /* K8S: RecoverVolumeExpansionFailure: the larger of the request and what is allocated */
        if (json_object_get(alloc, "storage")) {
                q_parse(json_object_get(alloc, "storage"), &a);
                if (quantity_cmp(&a, &q) > 0)
                        q = a;
        }
        /* K8S: the request rounded up to a whole byte (RoundUp(0)) */
        {
                int64_t v;
                if (quantity_value(&q, &v) == 0) {
                        struct quantity r;
                        quantity_from_int64(v, q.format, &r);
                        if (quantity_cmp(&r, &q) != 0)
                                q = r;
                }
        }
        json_object_set_new(out, "requests.storage", q_json(&q));
        if (class && *class) {
                cleanup_free char *k =
                        xasprintf("%s" QUOTA_STORAGE_CLASS_SUFFIX "requests.storage", class);
                json_object_set_new(out, k, q_json(&q));
        }
}

/* ---- evaluators ---- */

/* K8S: generic.ObjectCountQuotaResourceNameFor: count/<plural>[.<group>]. Caller frees. */
static char *count_name(const char *group, const char *plural)
{
        return *group ? xasprintf("count/%s.%s", plural, group) : xasprintf("count/%s", plural);
}

/* K8S: legacyObjectCountAliases */
static const char *legacy_alias(const char *group, const char *plural)
{
        static const char *const aliases[] = { "configmaps", "resourcequotas",
                                               "replicationcontrollers", "secrets", NULL };

        if (*group)
                return NULL;
        for (size_t i = 0; aliases[i]; i++)
                if (streq(plural, aliases[i]))
                        return aliases[i];
        return NULL;
}

static bool has_prefix(const char *s, const char *p)
{
        return strncmp(s, p, strlen(p)) == 0;
}

static bool has_suffix(const char *s, const char *suffix)
{
        size_t n = strlen(s), m = strlen(suffix);

        return n >= m && streq(s + n - m, suffix);
}

bool quota_resource_tracks(const char *group, const char *plural, const char *name)
{
        static const char *const pod_names[] = {
                "count/pods",
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
                NULL,
        };

        if (is_core(group, plural, "pods")) {
                for (size_t i = 0; pod_names[i]; i++)
                        if (streq(name, pod_names[i]))
                                return true;
                /* K8S: podResourcePrefixes, isExtendedResourceNameForQuota */
                if (has_prefix(name, "hugepages-") || has_prefix(name, "requests.hugepages-"))
                        return true;
                return has_prefix(name, "requests.") &&
                       !v_resource_name_is_native(name + strlen("requests."));
        }
        if (is_core(group, plural, "persistentvolumeclaims"))
                return streq(name, "persistentvolumeclaims") ||
                       streq(name, "count/persistentvolumeclaims") ||
                       streq(name, "requests.storage") ||
                       has_suffix(name, QUOTA_STORAGE_CLASS_SUFFIX "persistentvolumeclaims") ||
                       has_suffix(name, QUOTA_STORAGE_CLASS_SUFFIX "requests.storage");
        {
                cleanup_free char *count = count_name(group, plural);
                const char *alias = legacy_alias(group, plural);
                return streq(name, count) || (alias && streq(name, alias));
        }
}

json_t *quota_usage(const char *group, const char *plural, const json_t *obj, time_t now)
{
        json_t *out = json_object();

        if (is_core(group, plural, "pods")) {
                pod_usage(obj, now, out);
        } else if (is_core(group, plural, "persistentvolumeclaims")) {
                pvc_usage(obj, out);
        } else {
                cleanup_free char *count = count_name(group, plural);
                const char *alias = legacy_alias(group, plural);
                json_object_set_new(out, count, json_string("1"));
                if (alias)
                        json_object_set_new(out, alias, json_string("1"));
        }
        return out;
}

json_t *quota_delta(const char *group, const char *plural, const json_t *obj, const json_t *old,
                    time_t now)
{
        cleanup_json json_t *usage = quota_usage(group, plural, obj, now);
        cleanup_json json_t *prev = old ? quota_usage(group, plural, old, now) : json_object();
        json_t *out = json_object();
        const char *name;
        json_t *v;

        json_object_foreach(usage, name, v) {
                struct quantity a, b;
                q_parse(v, &a);
                if (json_object_get(prev, name)) {
                        q_parse(json_object_get(prev, name), &b);
                        if (quantity_sub(&a, &b, &a) < 0)
                                continue;
                }
                if (quantity_is_zero(&a) || a.negative)
                        continue;
                json_object_set_new(out, name, q_json(&a));
        }
        return out;
}

/* ---- scopes ---- */

static bool terms_cross_namespace(const json_t *terms, bool weighted)
{
        size_t i;
        json_t *t;

        json_array_foreach((json_t *) terms, i, t) {
                const json_t *term = weighted ? json_object_get(t, "podAffinityTerm") : t;
                if (json_array_size(json_object_get(term, "namespaces")) ||
                    json_object_get(term, "namespaceSelector"))
                        return true;
        }
        return false;
}

/* K8S: usesCrossNamespacePodAffinity */
static bool pod_cross_namespace_affinity(const json_t *pod)
{
        static const char *const kinds[] = { "spec.affinity.podAffinity",
                                             "spec.affinity.podAntiAffinity" };

        for (size_t i = 0; i < 2; i++) {
                const json_t *a = json_path(pod, kinds[i]);
                if (terms_cross_namespace(
                            json_object_get(a, "requiredDuringSchedulingIgnoredDuringExecution"),
                            false) ||
                    terms_cross_namespace(
                            json_object_get(a, "preferredDuringSchedulingIgnoredDuringExecution"),
                            true))
                        return true;
        }
        return false;
}

static bool values_have(const json_t *values, const char *s)
{
        size_t i;
        json_t *v;

        json_array_foreach((json_t *) values, i, v) {
                if (json_is_string(v) && streq(json_string_value(v), s))
                        return true;
        }
        return false;
}

/* K8S: podMatchesScopeFunc for one requirement {scopeName, operator, values} */
static bool pod_matches_scope(const json_t *pod, const char *scope, const char *op,
                              const json_t *values)
{
        if (streq(scope, "Terminating"))
                return pod_terminating(pod);
        if (streq(scope, "NotTerminating"))
                return !pod_terminating(pod);
        if (streq(scope, "BestEffort"))
                return streq(pod_qos_class_stored(pod), "BestEffort");
        if (streq(scope, "NotBestEffort"))
                return !streq(pod_qos_class_stored(pod), "BestEffort");
        if (streq(scope, "CrossNamespacePodAffinity"))
                return pod_cross_namespace_affinity(pod);
        if (streq(scope, "PriorityClass")) {
                /* K8S: podMatchesSelector: a label selector over {PriorityClass: name}, the label
                 * absent when the pod names no class */
                const char *pc = json_path_string_or_empty(pod, "spec.priorityClassName");
                if (streq(op, "Exists"))
                        return *pc;
                if (streq(op, "DoesNotExist"))
                        return !*pc;
                if (streq(op, "In"))
                        return *pc && values_have(values, pc);
                if (streq(op, "NotIn"))
                        return !*pc || !values_have(values, pc);
        }
        return false;
}

bool quota_matches(const json_t *quota, const char *group, const char *plural, const json_t *obj)
{
        const json_t *hard = json_path(quota, "status.hard");
        bool pod = is_core(group, plural, "pods");
        bool tracked = false;
        const char *name;
        size_t i;
        json_t *v;

        json_object_foreach((json_t *) hard, name, v) {
                tracked |= quota_resource_tracks(group, plural, name);
        }
        if (!tracked)
                return false;
        /* K8S: GetScopeSelectorsFromQuota: each scope as an Exists requirement, then the
         * selector's; MatchesNoScopeFunc for every kind but pods */
        json_array_foreach(json_path(quota, "spec.scopes"), i, v) {
                if (!pod || !pod_matches_scope(obj, json_string_value(v) ?: "", "Exists", NULL))
                        return false;
        }
        json_array_foreach(json_path(quota, "spec.scopeSelector.matchExpressions"), i, v) {
                if (!pod || !pod_matches_scope(obj, json_path_string_or_empty(v, "scopeName"),
                                               json_path_string_or_empty(v, "operator"),
                                               json_object_get(v, "values")))
                        return false;
        }
        return true;
}

/* ---- admission ---- */

/* K8S: the validationSet of podEvaluator.Constraints */
static bool in_validation_set(const char *name)
{
        static const char *const set[] = {
                "cpu",           "memory", "requests.cpu", "requests.memory", "limits.cpu",
                "limits.memory", NULL
        };

        for (size_t i = 0; set[i]; i++)
                if (streq(name, set[i]))
                        return true;
        return false;
}

char *quota_pod_constraints(const json_t *pod, const json_t *hard)
{
        static const char *const lists[] = { "spec.containers", "spec.initContainers" };
        cleanup_json json_t *missing = json_object(); /* resource -> {container: true} */
        struct strbuf sb;
        const char *name;
        json_t *v;

        if (pod_level_resources_set(pod))
                return NULL;
        strbuf_init(&sb);
        for (size_t l = 0; l < 2; l++) {
                size_t i;
                json_t *c;
                json_array_foreach(json_path(pod, lists[l]), i, c) {
                        cleanup_json json_t *usage = json_object();
                        struct vres req = { 0 }, lim = { 0 };
                        vres_add_list(&req, json_path(c, "resources.requests"));
                        vres_add_list(&lim, json_path(c, "resources.limits"));
                        pod_compute_usage(usage, &req, &lim);
                        vres_release(&req);
                        vres_release(&lim);
                        json_object_foreach((json_t *) hard, name, v) {
                                json_t *set;
                                if (!quota_resource_tracks("", "pods", name) ||
                                    !in_validation_set(name) || json_object_get(usage, name))
                                        continue;
                                set = json_object_get(missing, name);
                                if (!set) {
                                        set = json_object();
                                        json_object_set_new(missing, name, set);
                                }
                                json_object_set_new(set, json_path_string_or_empty(c, "name"),
                                                    json_true());
                        }
                }
        }
        if (!json_object_size(missing)) {
                strbuf_release(&sb);
                return NULL;
        }
        {
                size_t n;
                cleanup_free const char **names = sorted_names(missing, &n);
                strbuf_addstr(&sb, "must specify ");
                for (size_t i = 0; i < n; i++) {
                        size_t m;
                        cleanup_free const char **containers =
                                sorted_names(json_object_get(missing, names[i]), &m);
                        strbuf_addf(&sb, "%s%s for: ", i ? "; " : "", names[i]);
                        for (size_t j = 0; j < m; j++)
                                strbuf_addf(&sb, "%s%s", j ? "," : "", containers[j]);
                }
        }
        return strbuf_detach(&sb);
}

int quota_check(const json_t *quota, const char *group, const char *plural, const json_t *obj,
                const json_t *delta, json_t **ret_used, struct error **reterr)
{
        const char *qname = json_path_string_or_empty(quota, "metadata.name");
        const json_t *hard = json_path(quota, "status.hard");
        const json_t *used = json_path(quota, "status.used");
        cleanup_json json_t *restricted = json_object();
        cleanup_json json_t *requested = NULL, *new_used = NULL, *masked = NULL;
        cleanup_json json_t *exceeded = json_object();
        const char *name;
        json_t *v;

        *ret_used = NULL;
        if (!quota_matches(quota, group, plural, obj))
                return 0;
        json_object_foreach((json_t *) hard, name, v) {
                if (quota_resource_tracks(group, plural, name))
                        json_object_set(restricted, name, v);
        }
        if (is_core(group, plural, "pods")) {
                cleanup_free char *why = quota_pod_constraints(obj, restricted);
                if (why)
                        return error_set(reterr, EPERM, "failed quota: %s: %s", qname, why);
        }
        /* K8S: hasUsageStats: the controller must have counted what this quota tracks */
        json_object_foreach(restricted, name, v) {
                if (!json_object_get(used, name)) {
                        cleanup_free char *names = NULL;
                        size_t n;
                        cleanup_free const char **sorted = sorted_names(restricted, &n);
                        struct strbuf sb;
                        strbuf_init(&sb);
                        for (size_t i = 0; i < n; i++)
                                strbuf_addf(&sb, "%s%s", i ? "," : "", sorted[i]);
                        names = strbuf_detach(&sb);
                        return error_set(reterr, EPERM,
                                         "status unknown for quota: %s, resources: %s", qname,
                                         names);
                }
        }
        requested = list_mask(delta, hard);
        if (!json_object_size(requested))
                return 0;
        new_used = quota_list_add(used, requested);
        masked = list_mask(new_used, requested);
        /* K8S: quota.LessThanOrEqual(maskedNewUsage, hard) */
        json_object_foreach(masked, name, v) {
                const json_t *h = json_object_get(hard, name);
                if (h && list_cmp(v, h) > 0)
                        json_object_set_new(exceeded, name, json_true());
        }
        if (json_object_size(exceeded)) {
                cleanup_json json_t *r = list_mask(requested, exceeded);
                cleanup_json json_t *u = list_mask(used, exceeded);
                cleanup_json json_t *l = list_mask(hard, exceeded);
                cleanup_free char *rs = quota_list_pretty(r), *us = quota_list_pretty(u),
                                  *ls = quota_list_pretty(l);
                return error_set(reterr, EPERM,
                                 "exceeded quota: %s, requested: %s, used: %s, limited: %s", qname,
                                 rs, us, ls);
        }
        *ret_used = TAKE_PTR(new_used);
        return 0;
}

/* ---- the controller ---- */

json_t *quota_used_compute(const json_t *quota, const struct quota_collection *cols, size_t n,
                           time_t now)
{
        const char *ns = json_path_string_or_empty(quota, "metadata.namespace");
        const json_t *hard = json_path(quota, "spec.hard");
        cleanup_json json_t *pseudo = NULL;
        json_t *used = json_object();
        const char *name, *key;
        json_t *v, *obj;

        json_object_foreach((json_t *) hard, name, v) {
                json_object_set_new(used, name, json_string("0"));
        }
        /* matched against spec.hard: the controller counts what spec asks for */
        pseudo = json_pack("{s:O?, s:{s:O?}}", "spec", json_object_get(quota, "spec"), "status",
                           "hard", hard);
        for (size_t c = 0; c < n; c++) {
                json_object_foreach((json_t *) cols[c].objects, key, obj) {
                        cleanup_json json_t *usage = NULL;
                        json_t *u;

                        if (!streq(json_path_string_or_empty(obj, "metadata.namespace"), ns) ||
                            !quota_matches(pseudo, cols[c].group, cols[c].plural, obj))
                                continue;
                        usage = quota_usage(cols[c].group, cols[c].plural, obj, now);
                        json_object_foreach(usage, name, u) {
                                if (json_object_get(hard, name) &&
                                    quota_resource_tracks(cols[c].group, cols[c].plural, name))
                                        list_set_sum(used, name, json_object_get(used, name), u);
                        }
                }
        }
        return used;
}
