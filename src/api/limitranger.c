/* limitranger.c: the LimitRanger admission plugin's decisions over one LimitRange, as
 * kube-apiserver 1.33 makes them (K8S: plugin/pkg/admission/limitranger/admission.go:
 * defaultContainerResourceRequirements, mergeContainerResources, minConstraint,
 * maxConstraint, maxRequestConstraint, limitRequestRatioConstraint, podRequests, podLimits).
 * Which requests reach the plugin and how a refusal is answered is
 * apiserver/admission-limitranger.c's concern. Quantities are kept exact; a quantity that does
 * not parse counts as absent (schema_check refuses such objects before admission). */
#include <stdlib.h>
#include <string.h>

#include "api/limitrange.h"
#include "api/validation-internal.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/strbuf.h"

/* ---- defaults ---- */

static int cmp_str(const void *a, const void *b)
{
        return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* K8S: mergeContainerResources: sets each default absent from the container's list `key`;
 * appends "<names> <what> for <prefix> <container>" to note when it set any. */
static bool merge_list(json_t *c, const char *key, const json_t *defaults, const char *what,
                       const char *prefix, struct strbuf *note)
{
        json_t *res = json_object_ensure(c, "resources");
        json_t *list = vj_obj(res, key);
        const char **set = xcalloc(json_object_size(defaults) + 1, sizeof(*set));
        size_t n = 0;
        const char *name;
        json_t *v;

        json_object_foreach((json_t *) defaults, name, v) {
                if (list && json_object_get(list, name))
                        continue;
                if (!list) {
                        list = json_object();
                        json_object_set_new(res, key, list);
                }
                json_object_set(list, name, v);
                set[n++] = name;
        }
        if (n) {
                qsort(set, n, sizeof(*set), cmp_str);
                if (note->len)
                        strbuf_addstr(note, "; ");
                for (size_t i = 0; i < n; i++)
                        strbuf_addf(note, "%s%s", i ? ", " : "", set[i]);
                strbuf_addf(note, " %s for %s %s", what, prefix, vj_str(c, "name") ?: "");
        }
        free(set);
        return n > 0;
}

bool limit_range_pod_defaults(json_t *pod, const json_t *lr, bool annotate)
{
        cleanup_json json_t *limits = json_object(), *requests = json_object();
        json_t *spec = vj_obj(pod, "spec"), *item, *c;
        struct strbuf note;
        bool any = false;
        size_t i;

        /* K8S: defaultContainerResourceRequirements: every Container item, the last one winning */
        json_array_foreach(vj_arr(vj_obj(lr, "spec"), "limits"), i, item) {
                if (!streq(vj_str(item, "type") ?: "", LIMIT_TYPE_CONTAINER))
                        continue;
                if (vj_obj(item, "defaultRequest"))
                        json_object_update(requests, vj_obj(item, "defaultRequest"));
                if (vj_obj(item, "default"))
                        json_object_update(limits, vj_obj(item, "default"));
        }
        if (!json_object_size(limits) && !json_object_size(requests))
                return false;
        strbuf_init(&note);
        json_array_foreach(vj_arr(spec, "containers"), i, c) {
                any |= merge_list(c, "requests", requests, "request", "container", &note);
                any |= merge_list(c, "limits", limits, "limit", "container", &note);
        }
        json_array_foreach(vj_arr(spec, "initContainers"), i, c) {
                any |= merge_list(c, "requests", requests, "request", "init container", &note);
                any |= merge_list(c, "limits", limits, "limit", "init container", &note);
        }
        if (any && annotate) {
                cleanup_free char *val = xasprintf("LimitRanger plugin set: %s", note.buf);
                json_object_set_new(
                        json_object_ensure(json_object_ensure(pod, "metadata"), "annotations"),
                        LIMIT_RANGER_ANNOTATION, json_string(val));
        }
        strbuf_release(&note);
        return any;
}

/* ---- resource lists (K8S: api.ResourceList of resource.Quantity) ---- */

struct qentry {
        const char *name; /* borrowed from the pod */
        struct quantity q;
};

struct qlist {
        struct qentry *items;
        size_t n;
};

static struct quantity *ql_find(const struct qlist *l, const char *name)
{
        for (size_t i = 0; i < l->n; i++)
                if (streq(l->items[i].name, name))
                        return &l->items[i].q;
        return NULL;
}

/* A copy keeps the quantity's text (DeepCopy keeps its cached string). */
static void ql_set(struct qlist *l, const char *name, const struct quantity *q)
{
        struct quantity *have = ql_find(l, name);

        if (!have) {
                l->items = xrealloc(l->items, (l->n + 1) * sizeof(*l->items));
                l->items[l->n].name = name;
                have = &l->items[l->n++].q;
        }
        *have = *q;
}

/* K8S: addResourceList: a new name is copied, a known one summed (Add drops the cached
 * string, so the sum prints canonically). */
static void ql_add_one(struct qlist *l, const char *name, const struct quantity *q)
{
        struct quantity *have = ql_find(l, name);

        if (!have) {
                ql_set(l, name, q);
                return;
        }
        if (quantity_add(have, q, have) == 0)
                have->text[0] = '\0';
}

static void ql_add_json(struct qlist *l, const json_t *list)
{
        const char *name;
        json_t *v;

        json_object_foreach((json_t *) list, name, v) {
                struct quantity q;
                if (vq_parse(v, &q) == 0)
                        ql_add_one(l, name, &q);
        }
}

static void ql_add(struct qlist *l, const struct qlist *o)
{
        for (size_t i = 0; i < o->n; i++)
                ql_add_one(l, o->items[i].name, &o->items[i].q);
}

/* K8S: maxResourceList */
static void ql_max(struct qlist *l, const struct qlist *o)
{
        for (size_t i = 0; i < o->n; i++) {
                struct quantity *have = ql_find(l, o->items[i].name);
                if (!have || quantity_cmp(&o->items[i].q, have) > 0)
                        ql_set(l, o->items[i].name, &o->items[i].q);
        }
}

static void ql_release(struct qlist *l)
{
        free(l->items);
        l->items = NULL;
        l->n = 0;
}

/* K8S: podRequests / podLimits (spec only): regular containers and sidecars add up, a plain
 * init container counts with the sidecars started before it, the larger wins; pod-level cpu
 * and memory replace the aggregate (PodLevelResources, as flexlet serves it). */
static void pod_aggregate(const json_t *pod, const char *key, struct qlist *out)
{
        const json_t *spec = vj_obj(pod, "spec");
        struct qlist sidecars = { 0 }, inits = { 0 };
        const char *name;
        size_t i;
        json_t *c, *v;

        json_array_foreach(vj_arr(spec, "containers"), i, c) {
                ql_add_json(out, vj_obj(vj_obj(c, "resources"), key));
        }
        json_array_foreach(vj_arr(spec, "initContainers"), i, c) {
                const json_t *list = vj_obj(vj_obj(c, "resources"), key);
                if (v_is_sidecar(c)) {
                        ql_add_json(out, list);
                        ql_add_json(&sidecars, list);
                        ql_max(&inits, &sidecars);
                } else {
                        struct qlist tmp = { 0 };
                        ql_add_json(&tmp, list);
                        ql_add(&tmp, &sidecars);
                        ql_max(&inits, &tmp);
                        ql_release(&tmp);
                }
        }
        ql_max(out, &inits);
        ql_release(&sidecars);
        ql_release(&inits);
        json_object_foreach(vj_obj(vj_obj(spec, "resources"), key), name, v) {
                struct quantity q;
                if ((streq(name, "cpu") || streq(name, "memory")) && vq_parse(v, &q) == 0)
                        ql_set(out, name, &q);
        }
}

/* ---- constraints ---- */

#define MAX_MILLI_VALUE (INT64_MAX / 1000)

static int64_t value_of(const struct quantity *q, bool milli)
{
        int64_t v;

        if ((milli ? quantity_milli_value(q, &v) : quantity_value(q, &v)) < 0)
                return q->negative ? INT64_MIN : INT64_MAX;
        return v;
}

/* K8S: requestLimitEnforcedValues: at milli precision when none of the three overflows it; an
 * absent quantity is zero. */
static void enforced_values(const struct quantity *req, const struct quantity *lim,
                            const struct quantity *enf, int64_t *r, int64_t *l, int64_t *e)
{
        struct quantity zero;

        quantity_from_int64(0, QUANTITY_DECIMAL_SI, &zero);
        req = req ?: &zero;
        lim = lim ?: &zero;
        *r = value_of(req, false);
        *l = value_of(lim, false);
        *e = value_of(enf, false);
        if (*r <= MAX_MILLI_VALUE && *l <= MAX_MILLI_VALUE && *e <= MAX_MILLI_VALUE) {
                *r = value_of(req, true);
                *l = value_of(lim, true);
                *e = value_of(enf, true);
        }
}

static void add_msg(json_t *msgs, char *msg)
{
        json_array_append_new(msgs, json_string(msg));
        free(msg);
}

/* K8S: minConstraint */
static size_t min_constraint(const char *type, const char *name, const struct quantity *enf,
                             const struct qlist *reqs, const struct qlist *lims, json_t *msgs)
{
        const struct quantity *req = ql_find(reqs, name), *lim = ql_find(lims, name);
        cleanup_free char *es = quantity_format(enf);
        int64_t r, l, e;

        enforced_values(req, lim, enf, &r, &l, &e);
        if (!req) {
                add_msg(msgs, xasprintf("minimum %s usage per %s is %s.  No request is specified",
                                        name, type, es));
                return 1;
        }
        if (r < e) {
                cleanup_free char *s = quantity_format(req);
                add_msg(msgs, xasprintf("minimum %s usage per %s is %s, but request is %s", name,
                                        type, es, s));
                return 1;
        }
        if (lim && l < e) {
                cleanup_free char *s = quantity_format(lim);
                add_msg(msgs, xasprintf("minimum %s usage per %s is %s, but limit is %s", name,
                                        type, es, s));
                return 1;
        }
        return 0;
}

/* K8S: maxConstraint */
static size_t max_constraint(const char *type, const char *name, const struct quantity *enf,
                             const struct qlist *reqs, const struct qlist *lims, json_t *msgs)
{
        const struct quantity *req = ql_find(reqs, name), *lim = ql_find(lims, name);
        cleanup_free char *es = quantity_format(enf);
        int64_t r, l, e;

        enforced_values(req, lim, enf, &r, &l, &e);
        if (!lim) {
                add_msg(msgs, xasprintf("maximum %s usage per %s is %s.  No limit is specified",
                                        name, type, es));
                return 1;
        }
        if (l > e) {
                cleanup_free char *s = quantity_format(lim);
                add_msg(msgs, xasprintf("maximum %s usage per %s is %s, but limit is %s", name,
                                        type, es, s));
                return 1;
        }
        if (req && r > e) {
                cleanup_free char *s = quantity_format(req);
                add_msg(msgs, xasprintf("maximum %s usage per %s is %s, but request is %s", name,
                                        type, es, s));
                return 1;
        }
        return 0;
}

/* K8S: maxRequestConstraint, for claims, whose limits are not user input */
static size_t max_request_constraint(const char *type, const char *name, const struct quantity *enf,
                                     const struct qlist *reqs, json_t *msgs)
{
        const struct quantity *req = ql_find(reqs, name);
        cleanup_free char *es = quantity_format(enf);
        int64_t r, l, e;

        enforced_values(req, NULL, enf, &r, &l, &e);
        if (!req) {
                add_msg(msgs, xasprintf("maximum %s usage per %s is %s.  No request is specified",
                                        name, type, es));
                return 1;
        }
        if (r > e) {
                cleanup_free char *s = quantity_format(req);
                add_msg(msgs, xasprintf("maximum %s usage per %s is %s, but request is %s", name,
                                        type, es, s));
                return 1;
        }
        return 0;
}

/* K8S: limitRequestRatioConstraint */
static size_t ratio_constraint(const char *type, const char *name, const struct quantity *enf,
                               const struct qlist *reqs, const struct qlist *lims, json_t *msgs)
{
        const struct quantity *req = ql_find(reqs, name), *lim = ql_find(lims, name);
        cleanup_free char *es = quantity_format(enf);
        double observed, display, max;
        int64_t r, l, e;

        enforced_values(req, lim, enf, &r, &l, &e);
        if (!req || r == 0) {
                add_msg(msgs, xasprintf("%s max limit to request ratio per %s is %s, but no "
                                        "request is specified or request is 0",
                                        name, type, es));
                return 1;
        }
        if (!lim || l == 0) {
                add_msg(msgs, xasprintf("%s max limit to request ratio per %s is %s, but no limit "
                                        "is specified or limit is 0",
                                        name, type, es));
                return 1;
        }
        observed = (double) l / (double) r;
        display = observed;
        max = (double) value_of(enf, false);
        if (value_of(enf, false) <= MAX_MILLI_VALUE) {
                observed *= 1000;
                max = (double) value_of(enf, true);
        }
        if (observed > max) {
                add_msg(msgs, xasprintf("%s max limit to request ratio per %s is %s, but provided "
                                        "ratio is %f",
                                        name, type, es, display));
                return 1;
        }
        return 0;
}

/* Every min, max and ratio of item over one set of requests and limits. */
static size_t check_bounds(const json_t *item, const char *type, const struct qlist *reqs,
                           const struct qlist *lims, json_t *msgs)
{
        size_t n = 0;
        const char *name;
        json_t *v;

        json_object_foreach(vj_obj(item, "min"), name, v) {
                struct quantity q;
                if (vq_parse(v, &q) == 0)
                        n += min_constraint(type, name, &q, reqs, lims, msgs);
        }
        json_object_foreach(vj_obj(item, "max"), name, v) {
                struct quantity q;
                if (vq_parse(v, &q) == 0)
                        n += max_constraint(type, name, &q, reqs, lims, msgs);
        }
        json_object_foreach(vj_obj(item, "maxLimitRequestRatio"), name, v) {
                struct quantity q;
                if (vq_parse(v, &q) == 0)
                        n += ratio_constraint(type, name, &q, reqs, lims, msgs);
        }
        return n;
}

static size_t check_containers(const json_t *item, const json_t *list, json_t *msgs)
{
        size_t n = 0, i;
        json_t *c;

        json_array_foreach((json_t *) list, i, c) {
                struct qlist reqs = { 0 }, lims = { 0 };
                ql_add_json(&reqs, vj_obj(vj_obj(c, "resources"), "requests"));
                ql_add_json(&lims, vj_obj(vj_obj(c, "resources"), "limits"));
                n += check_bounds(item, LIMIT_TYPE_CONTAINER, &reqs, &lims, msgs);
                ql_release(&reqs);
                ql_release(&lims);
        }
        return n;
}

size_t limit_range_pod_check(const json_t *pod, const json_t *lr, json_t *msgs)
{
        const json_t *spec = vj_obj(pod, "spec");
        size_t n = 0, i;
        json_t *item;

        json_array_foreach(vj_arr(vj_obj(lr, "spec"), "limits"), i, item) {
                const char *type = vj_str(item, "type") ?: "";
                if (streq(type, LIMIT_TYPE_CONTAINER)) {
                        n += check_containers(item, vj_arr(spec, "containers"), msgs);
                        n += check_containers(item, vj_arr(spec, "initContainers"), msgs);
                } else if (streq(type, LIMIT_TYPE_POD)) {
                        struct qlist reqs = { 0 }, lims = { 0 };
                        pod_aggregate(pod, "requests", &reqs);
                        pod_aggregate(pod, "limits", &lims);
                        n += check_bounds(item, LIMIT_TYPE_POD, &reqs, &lims, msgs);
                        ql_release(&reqs);
                        ql_release(&lims);
                }
        }
        return n;
}

size_t limit_range_pvc_check(const json_t *pvc, const json_t *lr, json_t *msgs)
{
        struct qlist reqs = { 0 }, none = { 0 };
        size_t n = 0, i;
        const char *name;
        json_t *item, *v;

        ql_add_json(&reqs, json_path(pvc, "spec.resources.requests"));
        json_array_foreach(vj_arr(vj_obj(lr, "spec"), "limits"), i, item) {
                if (!streq(vj_str(item, "type") ?: "", LIMIT_TYPE_PVC))
                        continue;
                /* K8S: a claim's limits are not user input: min sees none, max only requests */
                json_object_foreach(vj_obj(item, "min"), name, v) {
                        struct quantity q;
                        if (vq_parse(v, &q) == 0)
                                n += min_constraint(LIMIT_TYPE_PVC, name, &q, &reqs, &none, msgs);
                }
                json_object_foreach(vj_obj(item, "max"), name, v) {
                        struct quantity q;
                        if (vq_parse(v, &q) == 0)
                                n += max_request_constraint(LIMIT_TYPE_PVC, name, &q, &reqs, msgs);
                }
        }
        ql_release(&reqs);
        return n;
}

char *limit_range_aggregate(const json_t *msgs)
{
        cleanup_json json_t *seen = json_object();
        struct strbuf sb;
        size_t i;
        json_t *m;

        if (!json_array_size(msgs))
                return NULL;
        if (json_array_size(msgs) == 1)
                return xstrdup(json_string_value(json_array_get(msgs, 0)) ?: "");
        strbuf_init(&sb);
        json_array_foreach((json_t *) msgs, i, m) {
                const char *s = json_string_value(m) ?: "";
                if (json_object_get(seen, s))
                        continue;
                if (json_object_size(seen))
                        strbuf_addstr(&sb, ", ");
                json_object_set_new(seen, s, json_true());
                strbuf_addstr(&sb, s);
        }
        if (json_object_size(seen) == 1)
                return strbuf_detach(&sb);
        {
                cleanup_free char *inner = strbuf_detach(&sb);
                return xasprintf("[%s]", inner);
        }
}
