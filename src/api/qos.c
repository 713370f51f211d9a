/* qos.c: a pod's QoS class (K8S: pkg/apis/core/helper/qos ComputePodQOS/GetPodQOS), the exact
 * quantity arithmetic it needs, and the resource-name predicates of pkg/apis/core/helper that
 * validation shares. Nothing here allocates except the strings it returns. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/validation-internal.h"
#include "api/validation.h"
#include "base/alloc.h"
#include "base/json.h"

/* ---- quantities ---- */

int vq_parse(const json_t *v, struct quantity *ret)
{
        char buf[64];
        const char *s;

        if (json_is_string(v)) {
                s = json_string_value(v);
        } else if (json_is_integer(v)) {
                snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
                s = buf;
        } else if (json_is_real(v)) {
                snprintf(buf, sizeof(buf), "%.17g", json_real_value(v));
                s = buf;
        } else {
                return -EINVAL;
        }
        return quantity_parse(s, ret, NULL) < 0 ? -EINVAL : 0;
}

char *vq_string(const json_t *v)
{
        struct quantity q;

        if (vq_parse(v, &q) == 0)
                return quantity_format(&q);
        if (json_is_string(v))
                return xstrdup(json_string_value(v));
        return json_dump_compact(v);
}

void vq_sum_add(struct vq_sum *s, const struct quantity *q)
{
        int64_t m;

        if (quantity_milli_value(q, &m) < 0) {
                s->overflow = true;
                m = q->negative ? INT64_MIN : INT64_MAX;
        }
        if (!s->set) {
                s->format = q->format;
                s->set = true;
        }
        s->milli += m;
}

void vq_sum_add_sum(struct vq_sum *s, const struct vq_sum *other)
{
        if (!other->set)
                return;
        if (!s->set) {
                *s = *other;
                return;
        }
        s->milli += other->milli;
        s->overflow |= other->overflow;
}

int vq_sum_cmp(const struct vq_sum *a, const struct vq_sum *b)
{
        __int128 x = a->set ? a->milli : 0, y = b->set ? b->milli : 0;

        return x < y ? -1 : x > y ? 1 : 0;
}

void vq_sum_max(struct vq_sum *s, const struct vq_sum *other)
{
        if (other->set && (!s->set || vq_sum_cmp(other, s) > 0))
                *s = *other;
}

char *vq_sum_string(const struct vq_sum *s)
{
        struct quantity q;

        if (!s->set)
                return xstrdup("0");
        if (s->milli > INT64_MAX || s->milli < INT64_MIN)
                return xstrdup(s->milli > 0 ? "9223372036854775807m" : "-9223372036854775808m");
        quantity_from_milli((int64_t) s->milli, s->format, &q);
        return quantity_format(&q);
}

/* ---- resource names (K8S: pkg/apis/core/helper) ---- */

bool v_resource_name_is_native(const char *name)
{
        return !strchr(name, '/') || strstr(name, "kubernetes.io/");
}

bool v_resource_name_is_hugepages(const char *name)
{
        return strncmp(name, "hugepages-", strlen("hugepages-")) == 0;
}

bool v_resource_name_is_extended(const char *name)
{
        struct field_error_list tmp;
        cleanup_free char *quota = NULL;
        bool ok;

        if (v_resource_name_is_native(name) || strncmp(name, "requests.", 9) == 0)
                return false;
        /* K8S: it must stay a qualified name once "requests." is prepended for quota */
        quota = xasprintf("requests.%s", name);
        field_error_list_init(&tmp);
        ok = validate_qualified_name(quota, "", &tmp) == 0;
        field_error_list_release(&tmp);
        return ok;
}

bool v_resource_overcommit_allowed(const char *name)
{
        return v_resource_name_is_native(name) && !v_resource_name_is_hugepages(name);
}

bool v_is_sidecar(const json_t *container)
{
        const char *p = vj_str(container, "restartPolicy");

        return p && streq(p, "Always");
}

/* ---- aggregated requests (K8S: component-helpers resource.AggregateContainerRequests) ---- */

struct vres_entry *vres_get(struct vres *r, const char *name)
{
        for (size_t i = 0; i < r->n; i++) {
                if (streq(r->items[i].name, name))
                        return &r->items[i];
        }
        r->items = xrealloc(r->items, (r->n + 1) * sizeof(*r->items));
        r->items[r->n] = (struct vres_entry){ .name = name };
        return &r->items[r->n++];
}

void vres_add_list(struct vres *r, const json_t *list)
{
        const char *name;
        json_t *v;

        json_object_foreach((json_t *) list, name, v) {
                struct quantity q;
                if (vq_parse(v, &q) == 0)
                        vq_sum_add(&vres_get(r, name)->sum, &q);
        }
}

void vres_add(struct vres *r, const struct vres *other)
{
        for (size_t i = 0; i < other->n; i++)
                vq_sum_add_sum(&vres_get(r, other->items[i].name)->sum, &other->items[i].sum);
}

void vres_max(struct vres *r, const struct vres *other)
{
        for (size_t i = 0; i < other->n; i++)
                vq_sum_max(&vres_get(r, other->items[i].name)->sum, &other->items[i].sum);
}

void vres_release(struct vres *r)
{
        free(r->items);
        r->items = NULL;
        r->n = 0;
}

void v_aggregate_container_requests(const json_t *spec, struct vres *reqs)
{
        struct vres sidecars = { 0 }, inits = { 0 };
        size_t i;
        json_t *c;

        json_array_foreach(vj_arr(spec, "containers"), i, c) {
                vres_add_list(reqs, vj_obj(vj_obj(c, "resources"), "requests"));
        }
        json_array_foreach(vj_arr(spec, "initContainers"), i, c) {
                const json_t *list = vj_obj(vj_obj(c, "resources"), "requests");
                struct vres cur = { 0 };
                if (v_is_sidecar(c)) {
                        vres_add_list(reqs, list);
                        vres_add_list(&sidecars, list);
                        vres_add(&cur, &sidecars);
                } else {
                        vres_add_list(&cur, list);
                        vres_add(&cur, &sidecars);
                }
                vres_max(&inits, &cur);
                vres_release(&cur);
        }
        vres_max(reqs, &inits);
        vres_release(&sidecars);
        vres_release(&inits);
}

/* ---- QoS ---- */

enum { QOS_CPU, QOS_MEMORY, QOS_N };

static int qos_index(const char *name)
{
        if (streq(name, "cpu"))
                return QOS_CPU;
        if (streq(name, "memory"))
                return QOS_MEMORY;
        return -1;
}

/* K8S: processResourceList: adds the cpu/memory quantities > 0 of list into sums; returns a
 * bitmask of which resources were found. */
static unsigned process_list(const json_t *list, struct vq_sum sums[QOS_N])
{
        const char *name;
        json_t *v;
        unsigned found = 0;

        json_object_foreach((json_t *) list, name, v) {
                int i = qos_index(name);
                struct quantity q;
                if (i < 0 || vq_parse(v, &q) < 0 || q.negative || quantity_is_zero(&q))
                        continue;
                vq_sum_add(&sums[i], &q);
                found |= 1u << i;
        }
        return found;
}

/* K8S: isPodLevelResourcesSet: spec.resources names cpu or memory. */
static bool pod_level_resources_set(const json_t *res)
{
        const char *lists[] = { "requests", "limits" };

        for (size_t l = 0; l < ARRAY_SIZE(lists); l++) {
                const char *name;
                json_t *v;
                json_object_foreach(vj_obj(res, lists[l]), name, v) {
                        if (qos_index(name) >= 0)
                                return true;
                }
        }
        return false;
}

const char *pod_qos_class(const json_t *pod)
{
        json_t *spec = vj_obj(pod, "spec");
        json_t *pod_res = vj_obj(spec, "resources");
        struct vq_sum req[QOS_N] = { 0 }, lim[QOS_N] = { 0 };
        bool guaranteed = true;
        int nreq = 0, nlim = 0;

        if (pod_level_resources_set(pod_res)) {
                /* K8S: pod-level resources decide the class when they are set */
                process_list(vj_obj(pod_res, "requests"), req);
                if (json_object_size(vj_obj(pod_res, "limits")) > 0) {
                        unsigned found = process_list(vj_obj(pod_res, "limits"), lim);
                        if (found != ((1u << QOS_CPU) | (1u << QOS_MEMORY)))
                                guaranteed = false;
                }
        } else {
                const char *lists[] = { "containers", "initContainers" };
                for (size_t l = 0; l < ARRAY_SIZE(lists); l++) {
                        size_t i;
                        json_t *c;
                        json_array_foreach(vj_arr(spec, lists[l]), i, c) {
                                json_t *res = vj_obj(c, "resources");
                                process_list(vj_obj(res, "requests"), req);
                                if (process_list(vj_obj(res, "limits"), lim) !=
                                    ((1u << QOS_CPU) | (1u << QOS_MEMORY)))
                                        guaranteed = false;
                        }
                }
        }

        for (int i = 0; i < QOS_N; i++) {
                nreq += req[i].set;
                nlim += lim[i].set;
        }
        if (nreq == 0 && nlim == 0)
                return "BestEffort";
        for (int i = 0; guaranteed && i < QOS_N; i++) {
                if (req[i].set && (!lim[i].set || vq_sum_cmp(&req[i], &lim[i]) != 0))
                        guaranteed = false;
        }
        if (guaranteed && nreq == nlim)
                return "Guaranteed";
        return "Burstable";
}

const char *pod_qos_class_stored(const json_t *pod)
{
        const char *q = vj_str(vj_obj(pod, "status"), "qosClass");

        if (q && q[0]) {
                if (streq(q, "Guaranteed"))
                        return "Guaranteed";
                if (streq(q, "Burstable"))
                        return "Burstable";
                if (streq(q, "BestEffort"))
                        return "BestEffort";
                /* an unknown stored class can never equal a computed one */
                return "";
        }
        return pod_qos_class(pod);
}
