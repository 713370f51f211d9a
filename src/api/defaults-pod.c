/* defaults-pod.c: the defaults kube-apiserver 1.33 gives a v1 Pod (K8S: pkg/apis/core/v1
 * defaults.go and its generated defaulters, the Priority admission plugin's no-class values, and
 * podStrategy.PrepareForCreate). It fills what is unset and never rejects anything; validation
 * comes after it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/validation-internal.h"
#include "api/validation.h"
#include "base/alloc.h"
#include "base/json.h"

static void set_default_string(json_t *obj, const char *key, const char *value)
{
        const char *cur = vj_str(obj, key);

        if (!cur || !cur[0])
                json_object_set_new(obj, key, json_string(value));
}

static void set_default_int(json_t *obj, const char *key, json_int_t value)
{
        json_t *cur = json_object_get(obj, key);

        if (!cur || json_is_null(cur))
                json_object_set_new(obj, key, json_integer(value));
}

/* For int32 fields defaulted when 0 (probe thresholds): absent and 0 are the same in Go. */
static void set_default_nonzero(json_t *obj, const char *key, json_int_t value)
{
        json_t *cur = json_object_get(obj, key);

        if (!cur || json_is_null(cur) || (json_is_integer(cur) && json_integer_value(cur) == 0))
                json_object_set_new(obj, key, json_integer(value));
}

/* The scale ParseQuantity gives a literal: the suffix's power of ten (binary suffixes: 0) minus
 * the number of fraction digits ("1.5" -> -1, "100n" -> -9, "2e-4" -> -4). */
static int literal_scale(const char *s)
{
        static const struct {
                char suffix;
                int exp;
        } si[] = { { 'n', -9 }, { 'u', -6 }, { 'm', -3 }, { 'k', 3 }, { 'M', 6 },
                   { 'G', 9 },  { 'T', 12 }, { 'P', 15 }, { 'E', 18 } };
        int frac = 0, exp = 0;
        const char *p = s;

        if (*p == '+' || *p == '-')
                p++;
        while (*p >= '0' && *p <= '9')
                p++;
        if (*p == '.') {
                for (p++; *p >= '0' && *p <= '9'; p++)
                        frac++;
        }
        if ((*p == 'e' || *p == 'E') && p[1]) {
                exp = atoi(p + 1);
        } else if (*p && !p[1]) {
                for (size_t i = 0; i < ARRAY_SIZE(si); i++) {
                        if (si[i].suffix == *p)
                                exp = si[i].exp;
                }
        }
        return exp - frac;
}

/* K8S: SetDefaults_ResourceList rounds every quantity up to milli scale (RoundUp(-3)); a value
 * written with a finer scale loses its kept text and prints canonically afterwards. */
static void round_resource_list(json_t *list)
{
        const char *name;
        json_t *v;

        json_object_foreach(list, name, v) {
                struct quantity q, r;
                int64_t m;
                if (vq_parse(v, &q) < 0 || quantity_milli_value(&q, &m) < 0)
                        continue;
                quantity_from_milli(m, q.format, &r);
                if (quantity_cmp(&q, &r) != 0 ||
                    (json_is_string(v) && literal_scale(json_string_value(v)) < -3)) {
                        cleanup_free char *s = quantity_format(&r);
                        json_object_set_new(list, name, json_string(s));
                }
        }
}

static void round_requirements(json_t *res)
{
        round_resource_list(vj_obj(res, "limits"));
        round_resource_list(vj_obj(res, "requests"));
}

/* Docker reference path component: [a-z0-9]+((\.|_|__|-+)[a-z0-9]+)* */
static bool image_component_ok(const char *s, size_t n)
{
        size_t i = 0;

        if (n == 0)
                return false;
        while (i < n) {
                size_t start = i;
                while (i < n && ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9')))
                        i++;
                if (i == start)
                        return false;
                if (i == n)
                        return true;
                start = i;
                if (s[i] == '.' || s[i] == '_') {
                        i++;
                        if (s[i - 1] == '_' && i < n && s[i] == '_')
                                i++;
                } else {
                        while (i < n && s[i] == '-')
                                i++;
                }
                if (i == start || i == n)
                        return false;
        }
        return true;
}

/* K8S: parsers.ParseImageName's tag: "latest" when the reference names neither tag nor digest,
 * "" when it has only a digest or does not parse (docker's ParseNormalizedNamed). */
static bool image_pulls_latest(const char *image)
{
        cleanup_free char *name = xstrdup(image ? image : "");
        char *at = strchr(name, '@');
        char *slash, *colon, *path, *tag = NULL;
        bool digest = false;

        if (at) {
                *at = '\0';
                digest = true;
                if (!strchr(at + 1, ':'))
                        return false;
        }
        slash = strrchr(name, '/');
        colon = strrchr(name, ':');
        if (colon && (!slash || colon > slash)) {
                *colon = '\0';
                tag = colon + 1;
                if (!tag[0] || strlen(tag) > 128)
                        return false;
        }
        path = name;
        slash = strchr(name, '/');
        if (slash) {
                size_t n = (size_t) (slash - name);
                bool upper = false;
                for (size_t i = 0; i < n; i++)
                        upper |= name[i] >= 'A' && name[i] <= 'Z';
                if (memchr(name, '.', n) || memchr(name, ':', n) ||
                    (n == 9 && strncmp(name, "localhost", 9) == 0) || upper)
                        path = slash + 1;
        }
        for (;;) {
                char *sep = strchr(path, '/');
                size_t n = sep ? (size_t) (sep - path) : strlen(path);
                if (!image_component_ok(path, n))
                        return false;
                if (!sep)
                        break;
                path = sep + 1;
        }
        if (tag)
                return streq(tag, "latest");
        return !digest;
}

static void default_http_get(json_t *handler)
{
        json_t *http = vj_obj(handler, "httpGet");

        if (http) {
                set_default_string(http, "path", "/");
                set_default_string(http, "scheme", "HTTP");
        }
}

static void default_probe(json_t *probe)
{
        if (!probe)
                return;
        set_default_nonzero(probe, "timeoutSeconds", 1);
        set_default_nonzero(probe, "periodSeconds", 10);
        set_default_nonzero(probe, "successThreshold", 1);
        set_default_nonzero(probe, "failureThreshold", 3);
        default_http_get(probe);
}

/* K8S: SetDefaults_Container and the defaulters of its members. */
static void default_container(json_t *c, bool host_network)
{
        json_t *lifecycle = vj_obj(c, "lifecycle");
        json_t *res = vj_obj(c, "resources");
        size_t i;
        json_t *port, *env;

        if (!json_is_object(c))
                return;
        if (!vj_str(c, "imagePullPolicy") || !vj_str(c, "imagePullPolicy")[0])
                json_object_set_new(c, "imagePullPolicy",
                                    json_string(image_pulls_latest(vj_str(c, "image"))
                                                        ? "Always"
                                                        : "IfNotPresent"));
        set_default_string(c, "terminationMessagePath", "/dev/termination-log");
        set_default_string(c, "terminationMessagePolicy", "File");

        json_array_foreach(vj_arr(c, "ports"), i, port) {
                if (!json_is_object(port))
                        continue;
                set_default_string(port, "protocol", "TCP");
                /* K8S: defaultHostNetworkPorts */
                if (host_network) {
                        json_t *hp = json_object_get(port, "hostPort");
                        json_t *cp = json_object_get(port, "containerPort");
                        if ((!hp || (json_is_integer(hp) && json_integer_value(hp) == 0)) &&
                            json_is_integer(cp))
                                json_object_set_new(port, "hostPort",
                                                    json_integer(json_integer_value(cp)));
                }
        }
        json_array_foreach(vj_arr(c, "env"), i, env) {
                json_t *ref = vj_obj(vj_obj(env, "valueFrom"), "fieldRef");
                if (ref)
                        set_default_string(ref, "apiVersion", "v1");
        }
        default_probe(vj_obj(c, "livenessProbe"));
        default_probe(vj_obj(c, "readinessProbe"));
        default_probe(vj_obj(c, "startupProbe"));
        if (lifecycle) {
                default_http_get(vj_obj(lifecycle, "postStart"));
                default_http_get(vj_obj(lifecycle, "preStop"));
        }
        round_requirements(res);
}

/* K8S: SetDefaults_Pod: requests default to limits for every resource without a request. */
static void default_requests_from_limits(json_t *c)
{
        json_t *res = vj_obj(c, "resources");
        json_t *limits = vj_obj(res, "limits");
        json_t *requests;
        const char *name;
        json_t *v;

        if (!limits)
                return;
        requests = json_object_ensure(res, "requests");
        json_object_foreach(limits, name, v) {
                if (!json_object_get(requests, name))
                        json_object_set_new(requests, name, json_deep_copy(v));
        }
}

static bool volume_has_source(const json_t *vol)
{
        for (size_t i = 0; v_volume_types[i].key; i++) {
                json_t *v = json_object_get(vol, v_volume_types[i].key);
                if (v && !json_is_null(v))
                        return true;
        }
        return false;
}

/* K8S: SetDefaults_Volume and the volume sources' defaulters. */
static void default_volume(json_t *vol)
{
        static const char *const mode_sources[] = { "secret", "configMap", "downwardAPI",
                                                    "projected" };
        json_t *host_path = vj_obj(vol, "hostPath");

        if (!json_is_object(vol))
                return;
        if (!volume_has_source(vol))
                json_object_set_new(vol, "emptyDir", json_object());
        for (size_t i = 0; i < ARRAY_SIZE(mode_sources); i++) {
                json_t *src = vj_obj(vol, mode_sources[i]);
                if (src)
                        set_default_int(src, "defaultMode", 0644);
        }
        /* K8S SetDefaults_ServiceAccountTokenProjection: expirationSeconds 1 h */
        {
                size_t i;
                json_t *ps;

                json_array_foreach(json_object_get(vj_obj(vol, "projected"), "sources"), i, ps) {
                        json_t *tp = vj_obj(ps, "serviceAccountToken");

                        if (tp)
                                set_default_int(tp, "expirationSeconds", 3600);
                }
        }
        if (host_path && !json_object_get(host_path, "type"))
                json_object_set_new(host_path, "type", json_string(""));
}

/* K8S: defaultPodRequests (PodLevelResources): with pod-level limits set, missing pod-level
 * cpu/memory requests become the containers' aggregate requests, or else the pod-level limit. */
static void default_pod_requests(json_t *spec)
{
        static const char *const supported[] = { "cpu", "memory" };
        json_t *res = vj_obj(spec, "resources");
        json_t *limits = vj_obj(res, "limits");
        json_t *reqs;
        struct vres aggr = { 0 };

        if (json_object_size(limits) == 0)
                return;
        reqs = vj_obj(res, "requests") ? json_incref(vj_obj(res, "requests")) : json_object();
        v_aggregate_container_requests(spec, &aggr);
        for (size_t i = 0; i < aggr.n; i++) {
                bool ok = false;
                for (size_t k = 0; k < ARRAY_SIZE(supported); k++)
                        ok |= streq(aggr.items[i].name, supported[k]);
                if (ok && !json_object_get(reqs, aggr.items[i].name)) {
                        cleanup_free char *q = vq_sum_string(&aggr.items[i].sum);
                        json_object_set_new(reqs, aggr.items[i].name, json_string(q));
                }
        }
        vres_release(&aggr);
        for (size_t k = 0; k < ARRAY_SIZE(supported); k++) {
                json_t *lim = json_object_get(limits, supported[k]);
                if (lim && !json_object_get(reqs, supported[k]))
                        json_object_set_new(reqs, supported[k], json_deep_copy(lim));
        }
        if (json_object_size(reqs) > 0)
                json_object_set(res, "requests", reqs);
        json_decref(reqs);
}

/* K8S: SetDefaults_PodSpec and the defaults of what it holds (containers, volumes), which a
 * pod and a pod template share. */
static void pod_spec_set_defaults(json_t *spec)
{
        const char *lists[] = { "containers", "initContainers", "ephemeralContainers" };
        bool host_network = json_is_true(json_object_get(spec, "hostNetwork"));
        size_t i;
        json_t *v;

        set_default_string(spec, "dnsPolicy", "ClusterFirst");
        set_default_string(spec, "restartPolicy", "Always");
        if (!vj_obj(spec, "securityContext"))
                json_object_set_new(spec, "securityContext", json_object());
        set_default_int(spec, "terminationGracePeriodSeconds", 30);
        set_default_string(spec, "schedulerName", "default-scheduler");

        json_array_foreach(vj_arr(spec, "volumes"), i, v) {
                default_volume(v);
        }
        for (size_t l = 0; l < ARRAY_SIZE(lists); l++) {
                json_array_foreach(vj_arr(spec, lists[l]), i, v) {
                        default_container(v, host_network && l < 2);
                }
        }
        round_resource_list(vj_obj(spec, "overhead"));
        round_requirements(vj_obj(spec, "resources"));
}

void pod_set_defaults(json_t *pod)
{
        json_t *spec, *status;
        size_t i;
        json_t *v;

        if (!json_is_object(pod))
                return;
        spec = json_object_ensure(pod, "spec");

        /* K8S: SetDefaults_Pod */
        json_array_foreach(vj_arr(spec, "containers"), i, v) {
                default_requests_from_limits(v);
        }
        json_array_foreach(vj_arr(spec, "initContainers"), i, v) {
                default_requests_from_limits(v);
        }
        default_pod_requests(spec);
        if (!json_is_boolean(json_object_get(spec, "enableServiceLinks")))
                json_object_set_new(spec, "enableServiceLinks", json_true());

        pod_spec_set_defaults(spec);

        /* K8S: Priority admission with no PriorityClass (and no global default class):
         * priority 0, PreemptLowerPriority. With a class name, admission takes both from the
         * class, so nothing is set here. */
        if (!vj_str(spec, "priorityClassName") || !vj_str(spec, "priorityClassName")[0]) {
                set_default_int(spec, "priority", 0);
                set_default_string(spec, "preemptionPolicy", "PreemptLowerPriority");
        }

        status = json_object_ensure(pod, "status");
        set_default_string(status, "phase", "Pending");
        set_default_string(status, "qosClass", pod_qos_class(pod));
}

/* K8S updatePodAffinityTermSelector: for each matchLabelKeys key the pod has a label for,
 * "key In (value)" joins the term's labelSelector; for each mismatchLabelKeys key, "key NotIn
 * (value)". A term without labelSelector is left alone (validation refuses the keys there). */
static void merge_label_keys(json_t *term, const json_t *labels)
{
        static const char *const lists[] = { "matchLabelKeys", "mismatchLabelKeys" };
        static const char *const ops[] = { "In", "NotIn" };
        json_t *selector = json_object_get(term, "labelSelector");

        if (!json_is_object(selector))
                return;
        for (size_t l = 0; l < ARRAY_SIZE(lists); l++) {
                size_t i;
                json_t *key;

                json_array_foreach(json_object_get(term, lists[l]), i, key) {
                        json_t *value = json_object_get(labels, json_string_value(key) ?: "");
                        json_t *exprs = json_object_get(selector, "matchExpressions");

                        if (!json_is_string(value))
                                continue;
                        if (!json_is_array(exprs)) {
                                exprs = json_array();
                                json_object_set_new(selector, "matchExpressions", exprs);
                        }
                        json_array_append_new(exprs,
                                              json_pack("{s:O, s:s, s:[O]}", "key", key, "operator",
                                                        ops[l], "values", value));
                }
        }
}

/* K8S applyMatchLabelKeysAndMismatchLabelKeys (MatchLabelKeysInPodAffinity, beta and on since
 * 1.31): the pod's affinity and anti-affinity terms, required and preferred. */
static void apply_match_label_keys(json_t *pod)
{
        static const char *const kinds[] = { "podAffinity", "podAntiAffinity" };
        const json_t *labels = json_path(pod, "metadata.labels");
        json_t *affinity = json_path(pod, "spec.affinity");

        for (size_t k = 0; k < ARRAY_SIZE(kinds); k++) {
                json_t *a = json_object_get(affinity, kinds[k]);
                size_t i;
                json_t *t;

                json_array_foreach(
                        json_object_get(a, "requiredDuringSchedulingIgnoredDuringExecution"), i,
                        t) {
                        merge_label_keys(t, labels);
                }
                json_array_foreach(
                        json_object_get(a, "preferredDuringSchedulingIgnoredDuringExecution"), i,
                        t) {
                        merge_label_keys(json_object_get(t, "podAffinityTerm"), labels);
                }
        }
}

void pod_prepare_for_create(json_t *pod)
{
        json_t *status;

        if (!json_is_object(pod))
                return;
        apply_match_label_keys(pod);
        status = json_object();
        json_object_set_new(status, "phase", json_string("Pending"));
        json_object_set_new(status, "qosClass", json_string(pod_qos_class(pod)));
        json_object_set_new(pod, "status", status);
        json_object_set_new(json_object_ensure(pod, "metadata"), "generation", json_integer(1));
}

void pod_template_set_defaults(json_t *tmpl)
{
        json_t *spec;

        if (!json_is_object(tmpl))
                return;
        /* K8S: SetDefaults_PodTemplateSpec is SetDefaults_PodSpec alone: no requests from
         * limits, no enableServiceLinks, no priority (SetDefaults_Pod and admission are a pod's) */
        spec = json_object_ensure(tmpl, "spec");
        pod_spec_set_defaults(spec);
}
