/* resize.c: the pure decisions of an in-place pod resize (KEP-1287, KEP-6030): the allocation a
 * pod asks for, whether the node admits it, the ordered steps from the actuated state to the
 * allocated one, recording a step that succeeded, and the order of the retry queue. Nothing here
 * reads or writes a file, a cgroup or a mount: the pod worker does that around these. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "node/resize.h"
#include "api/validation.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/quantity.h"
#include "node/volume/emptydir.h"

#define RESIZE_ALL_BITS (RESIZE_CPU_SHARES | RESIZE_CPU_QUOTA | RESIZE_MEMORY)

/* ---- small helpers over the pod JSON ---- */

static bool is_sidecar(const json_t *ctr)
{
        const char *p = json_string_value(json_object_get(ctr, "restartPolicy"));

        return p && streq(p, "Always");
}

/* The emptyDir object of a medium: Memory volume, else NULL. */
static const json_t *memory_emptydir(const json_t *vol)
{
        const json_t *ed = json_object_get(vol, "emptyDir");
        const char *medium = json_string_value(json_object_get(ed, "medium"));

        return json_is_object(ed) && medium && streq(medium, "Memory") ? ed : NULL;
}

/* Two quantities by value ("1" equals "1000m"); values that do not parse compare as JSON. */
static bool quantity_json_equal(const json_t *a, const json_t *b)
{
        struct quantity qa, qb;

        if (json_quantity(a, &qa) == 0 && json_quantity(b, &qb) == 0)
                return quantity_cmp(&qa, &qb) == 0;
        return json_equal((json_t *) a, (json_t *) b);
}

/* Two JSON objects with the same keys and equal values (NULL or a non-object is empty). */
static bool map_equal(const json_t *a, const json_t *b,
                      bool (*value_equal)(const json_t *, const json_t *))
{
        const char *key;
        json_t *v;

        json_object_foreach((json_t *) a, key, v) {
                const json_t *w = json_object_get(b, key);
                if (!w || !value_equal(v, w))
                        return false;
        }
        json_object_foreach((json_t *) b, key, v) {
                if (!json_object_get(a, key))
                        return false;
        }
        return true;
}

/* K8S: Semantic.DeepEqual of two ResourceRequirements' requests and limits. */
static bool requirements_equal(const json_t *a, const json_t *b)
{
        return map_equal(json_object_get(a, "requests"), json_object_get(b, "requests"),
                         quantity_json_equal) &&
               map_equal(json_object_get(a, "limits"), json_object_get(b, "limits"),
                         quantity_json_equal);
}

/* ---- the allocation ---- */

static void add_container_resources(json_t *ctrs, const json_t *list, bool sidecars_only)
{
        size_t i;
        json_t *ctr;

        json_array_foreach(list, i, ctr) {
                const char *name = json_string_value(json_object_get(ctr, "name"));
                const json_t *res = json_object_get(ctr, "resources");
                json_t *rr;

                /* K8S: IsResizableContainer: regular containers and restartable init ones */
                if (!name || (sidecars_only && !is_sidecar(ctr)))
                        continue;
                rr = json_object();
                if (json_object_get(res, "requests"))
                        json_object_set_new(rr, "requests",
                                            json_deep_copy(json_object_get(res, "requests")));
                if (json_object_get(res, "limits"))
                        json_object_set_new(rr, "limits",
                                            json_deep_copy(json_object_get(res, "limits")));
                json_object_set_new(ctrs, name, rr);
        }
}

json_t *resize_allocation_from_pod(const json_t *pod)
{
        json_t *alloc = json_object(), *ctrs = json_object(), *vols = json_object();
        size_t i;
        json_t *vol;

        add_container_resources(ctrs, json_path(pod, "spec.containers"), false);
        add_container_resources(ctrs, json_path(pod, "spec.initContainers"), true);
        json_array_foreach(json_path(pod, "spec.volumes"), i, vol) {
                const char *name = json_string_value(json_object_get(vol, "name"));
                const json_t *ed = memory_emptydir(vol), *limit;
                struct quantity q;

                /* K8S: VolHasMemoryBackedEmptyDirSizeLimit: medium Memory, a non-zero sizeLimit */
                if (!name || !ed || !(limit = json_object_get(ed, "sizeLimit")) ||
                    json_quantity(limit, &q) < 0 || quantity_is_zero(&q))
                        continue;
                json_object_set_new(vols, name, json_deep_copy(limit));
        }
        json_object_set_new(alloc, "ContainerResources", ctrs);
        json_object_set_new(alloc, "EmptyDirVolumeLimits", vols);
        return alloc;
}

bool resize_allocation_equal(const json_t *a, const json_t *b)
{
        return map_equal(json_object_get(a, "ContainerResources"),
                         json_object_get(b, "ContainerResources"), requirements_equal) &&
               map_equal(json_object_get(a, "EmptyDirVolumeLimits"),
                         json_object_get(b, "EmptyDirVolumeLimits"), quantity_json_equal);
}

static void overlay_containers(json_t *list, const json_t *ctrs)
{
        static const char *const which[] = { "requests", "limits" };
        size_t i;
        json_t *ctr;

        json_array_foreach(list, i, ctr) {
                const char *name = json_string_value(json_object_get(ctr, "name"));
                const json_t *rr = name ? json_object_get(ctrs, name) : NULL;
                json_t *res;

                if (!json_is_object(rr))
                        continue;
                res = json_object_ensure(ctr, "resources");
                for (size_t k = 0; k < ARRAY_SIZE(which); k++) {
                        const json_t *l = json_object_get(rr, which[k]);
                        if (l)
                                json_object_set_new(res, which[k], json_deep_copy(l));
                        else
                                json_object_del(res, which[k]);
                }
        }
}

json_t *resize_pod_with_allocation(const json_t *pod, const json_t *allocation)
{
        json_t *copy = json_deep_copy(pod);
        const json_t *ctrs = json_object_get(allocation, "ContainerResources");
        const json_t *vols = json_object_get(allocation, "EmptyDirVolumeLimits");
        size_t i;
        json_t *vol;

        if (!copy)
                return NULL;
        overlay_containers(json_path(copy, "spec.containers"), ctrs);
        overlay_containers(json_path(copy, "spec.initContainers"), ctrs);
        json_array_foreach(json_path(copy, "spec.volumes"), i, vol) {
                const char *name = json_string_value(json_object_get(vol, "name"));
                const json_t *limit = name ? json_object_get(vols, name) : NULL;
                json_t *ed = json_object_get(vol, "emptyDir");

                if (limit && json_is_object(ed))
                        json_object_set_new(ed, "sizeLimit", json_deep_copy(limit));
        }
        return copy;
}

/* ---- admission ---- */

/* The first volume (spec order) whose sizeLimit differs between the two allocations. */
static const char *changed_volume(const json_t *pod, const json_t *allocated, const json_t *desired)
{
        const json_t *a = json_object_get(allocated, "EmptyDirVolumeLimits");
        const json_t *d = json_object_get(desired, "EmptyDirVolumeLimits");
        size_t i;
        json_t *vol;

        json_array_foreach(json_path(pod, "spec.volumes"), i, vol) {
                const char *name = json_string_value(json_object_get(vol, "name"));
                const json_t *va, *vd;
                if (!name)
                        continue;
                va = json_object_get(a, name);
                vd = json_object_get(d, name);
                if (!va && !vd)
                        continue;
                if (!va || !vd || !quantity_json_equal(va, vd))
                        return name;
        }
        return NULL;
}

enum resize_verdict resize_admit_requests(const json_t *pod, const json_t *allocated,
                                          const json_t *desired, int64_t cpu, int64_t mem,
                                          const struct resize_node *node, char **ret_message)
{
        const char *vol;

        *ret_message = NULL;
        /* KEP-6030: "On cgroups v1, volume resize is not supported, so any resize request
         * containing a sizeLimit update will be atomically rejected as Infeasible" */
        if (node->cgroup_v1 && !node->volume_resize_on_v1 &&
            (vol = changed_volume(pod, allocated, desired))) {
                *ret_message = xasprintf("Resizing memory-backed volume \"%s\" requires cgroup v2 "
                                         "(or the MemoryBackedVolumeResizeCgroupV1 feature gate)",
                                         vol);
                return RESIZE_INFEASIBLE;
        }

        if (cpu < 0 || mem < 0) {
                *ret_message = xstrdup("invalid resources");
                return RESIZE_INFEASIBLE;
        }

        /* K8S: canResizePod: a pod that alone exceeds allocatable never fits; memory first */
        if (mem > node->allocatable_memory) {
                *ret_message = xasprintf("Node didn't have enough capacity: memory, requested: "
                                         "%" PRId64 ", capacity: %" PRId64,
                                         mem, node->allocatable_memory);
                return RESIZE_INFEASIBLE;
        }
        if (cpu > node->allocatable_milli_cpu) {
                *ret_message = xasprintf("Node didn't have enough capacity: cpu, requested: "
                                         "%" PRId64 ", capacity: %" PRId64,
                                         cpu, node->allocatable_milli_cpu);
                return RESIZE_INFEASIBLE;
        }

        /* K8S: the predicate admit handler's fitsRequest against the other pods' allocations */
        if (cpu > 0 && cpu > node->allocatable_milli_cpu - node->others_milli_cpu) {
                *ret_message = xasprintf("Node didn't have enough resource: cpu, requested: "
                                         "%" PRId64 ", used: %" PRId64 ", capacity: %" PRId64,
                                         cpu, node->others_milli_cpu, node->allocatable_milli_cpu);
                return RESIZE_DEFERRED;
        }
        if (mem > 0 && mem > node->allocatable_memory - node->others_memory) {
                *ret_message = xasprintf("Node didn't have enough resource: memory, requested: "
                                         "%" PRId64 ", used: %" PRId64 ", capacity: %" PRId64,
                                         mem, node->others_memory, node->allocatable_memory);
                return RESIZE_DEFERRED;
        }
        return RESIZE_ACCEPT;
}

/* ---- the actuation plan ---- */

/* A cgroup's actuated config and which of its values are known. */
struct cg_state {
        struct pod_cgroup_config cfg;
        unsigned known; /* RESIZE_* bits */
};

static void cg_read(const json_t *obj, struct cg_state *ret)
{
        const json_t *shares = json_object_get(obj, "cpuShares");
        const json_t *quota = json_object_get(obj, "cpuQuota");
        const json_t *period = json_object_get(obj, "cpuPeriod");
        const json_t *mem = json_object_get(obj, "memoryLimit");

        *ret = (struct cg_state){ 0 };
        if (json_is_integer(shares)) {
                ret->cfg.cpu_shares = json_integer_value(shares);
                ret->known |= RESIZE_CPU_SHARES;
        }
        if (json_is_integer(quota) && json_is_integer(period)) {
                ret->cfg.cpu_quota_us = json_integer_value(quota);
                ret->cfg.cpu_period_us = json_integer_value(period);
                ret->known |= RESIZE_CPU_QUOTA;
        }
        if (json_is_integer(mem)) {
                ret->cfg.memory_limit_bytes = json_integer_value(mem);
                ret->known |= RESIZE_MEMORY;
        }
}

static int cmp64(int64_t target, int64_t current)
{
        return target > current ? 1 : target < current ? -1 : 0;
}

/* Limits where a negative value is unlimited, the largest of all. */
static int limit_cmp(int64_t target, int64_t current)
{
        bool tu = target < 0, cu = current < 0;

        if (tu || cu)
                return tu == cu ? 0 : tu ? 1 : -1;
        return cmp64(target, current);
}

static int quota_cmp(const struct pod_cgroup_config *t, const struct pod_cgroup_config *c)
{
        bool tu = t->cpu_quota_us < 0 || t->cpu_period_us <= 0;
        bool cu = c->cpu_quota_us < 0 || c->cpu_period_us <= 0;
        __int128 lhs, rhs;

        if (tu || cu)
                return tu == cu ? 0 : tu ? 1 : -1;
        if (t->cpu_quota_us == c->cpu_quota_us && t->cpu_period_us == c->cpu_period_us)
                return 0;
        /* K8S: computePodResizeAction: two limits at or below MinMilliCPULimit are equal */
        if (cpu_quota_to_milli(t->cpu_quota_us, t->cpu_period_us) <= CPU_MIN_MILLI_CPU_LIMIT &&
            cpu_quota_to_milli(c->cpu_quota_us, c->cpu_period_us) <= CPU_MIN_MILLI_CPU_LIMIT)
                return 0;
        /* compare quota/period as fractions */
        lhs = (__int128) t->cpu_quota_us * c->cpu_period_us;
        rhs = (__int128) c->cpu_quota_us * t->cpu_period_us;
        /* the same share of a different period still has to be written */
        return lhs > rhs ? 1 : lhs < rhs ? -1 : 1;
}

/* <0: the target shrinks the value, 0: nothing to write, >0: it grows it or it is unknown. */
static int cg_cmp(const struct cg_state *cur, const struct pod_cgroup_config *t, unsigned bit)
{
        if (!(cur->known & bit))
                return 1;
        switch (bit) {
        case RESIZE_CPU_SHARES:
                /* K8S: computePodResizeAction: two requests at or below MinShares are equal */
                if (t->cpu_shares <= CPU_MIN_SHARES && cur->cfg.cpu_shares <= CPU_MIN_SHARES)
                        return 0;
                return cmp64(t->cpu_shares, cur->cfg.cpu_shares);
        case RESIZE_CPU_QUOTA:
                return quota_cmp(t, &cur->cfg);
        default:
                return limit_cmp(t->memory_limit_bytes, cur->cfg.memory_limit_bytes);
        }
}

/* Sets the `which` values of dst from src. */
static void cfg_apply(struct pod_cgroup_config *dst, const struct pod_cgroup_config *src,
                      unsigned which)
{
        if (which & RESIZE_CPU_SHARES)
                dst->cpu_shares = src->cpu_shares;
        if (which & RESIZE_CPU_QUOTA) {
                dst->cpu_quota_us = src->cpu_quota_us;
                dst->cpu_period_us = src->cpu_period_us;
        }
        if (which & RESIZE_MEMORY)
                dst->memory_limit_bytes = src->memory_limit_bytes;
}

/* A cgroup the plan writes: its config as the steps so far leave it, and the allocated one. */
struct cg_track {
        struct pod_cgroup_config run, target;
};

/* A step being built, with the cgroup (index into the tracks) it writes; SIZE_MAX: a volume. */
struct pstep {
        struct resize_step s;
        size_t cg;
};

struct plist {
        struct pstep *v;
        size_t n, cap;
};

static void plist_push(struct plist *l, const struct pstep *s)
{
        if (l->n == l->cap) {
                l->cap = l->cap ? 2 * l->cap : 4;
                l->v = xrealloc(l->v, l->cap * sizeof(*l->v));
        }
        l->v[l->n++] = *s;
}

/* The phases, in the order the plan runs them. */
enum {
        PH_VOLUME_SHRINK,
        PH_POD_GROW,
        PH_RESTART,
        PH_SHRINK_MEMORY, /* K8S: decreases are prepended: run in reverse of discovery */
        PH_SHRINK_CPU,
        PH_GROW_MEMORY,
        PH_GROW_CPU,
        PH_POD_SHRINK,
        PH_VOLUME_GROW,
        PH_MAX,
};

static bool phase_reversed(int ph)
{
        return ph == PH_SHRINK_MEMORY || ph == PH_SHRINK_CPU;
}

struct plan_builder {
        struct plist ph[PH_MAX];
        struct cg_track *tracks;
        size_t ntracks;
};

static size_t track_add(struct plan_builder *b, const struct cg_state *cur,
                        const struct pod_cgroup_config *target)
{
        struct cg_track *t;

        b->tracks = xrealloc(b->tracks, (b->ntracks + 1) * sizeof(*b->tracks));
        t = &b->tracks[b->ntracks];
        /* values not known yet are taken as the target's: their own step writes them */
        t->run = *target;
        cfg_apply(&t->run, &cur->cfg, cur->known);
        t->target = *target;
        return b->ntracks++;
}

static void builder_release(struct plan_builder *b)
{
        for (int i = 0; i < PH_MAX; i++)
                free(b->ph[i].v);
        free(b->tracks);
}

static void push_cgroup(struct plan_builder *b, int ph, enum resize_step_kind kind,
                        const char *name, unsigned which, size_t cg)
{
        struct pstep p = { .s = { .kind = kind, .name = name, .which = which }, .cg = cg };

        plist_push(&b->ph[ph], &p);
}

/* The resizePolicy of a container for a resource is RestartContainer (default NotRequired). */
static bool restart_policy(const json_t *ctr, const char *resource)
{
        size_t i;
        json_t *p;

        json_array_foreach(json_object_get(ctr, "resizePolicy"), i, p) {
                const char *r = json_string_value(json_object_get(p, "resourceName"));
                const char *rp = json_string_value(json_object_get(p, "restartPolicy"));
                if (r && streq(r, resource))
                        return rp && streq(rp, "RestartContainer");
        }
        return false;
}

static bool is_running(const char *const *running, const char *name)
{
        for (size_t i = 0; running && running[i]; i++) {
                if (streq(running[i], name))
                        return true;
        }
        return false;
}

/* K8S: computePodResizeAction for one running container. */
static int plan_container(struct plan_builder *b, const struct resize_target_container *tc,
                          const json_t *actuated, struct error **reterr)
{
        const struct pod_cgroup_config *target = &tc->cfg;
        struct cg_state cur;
        unsigned cpu_which = 0;
        int mem, shares, quota;
        bool restart;
        size_t cg;

        if (tc->err < 0)
                return error_set(reterr, -tc->err, "container \"%s\": invalid resources", tc->name);
        cg_read(json_object_get(json_object_get(actuated, "containers"), tc->name), &cur);

        mem = cg_cmp(&cur, target, RESIZE_MEMORY);
        shares = cg_cmp(&cur, target, RESIZE_CPU_SHARES);
        quota = cg_cmp(&cur, target, RESIZE_CPU_QUOTA);
        if (!mem && !shares && !quota)
                return 0;
        cg = track_add(b, &cur, target);

        /* K8S: a changed resource whose policy is RestartContainer restarts the container; a
         * value only unknown to us is written in place */
        restart = ((cur.known & RESIZE_MEMORY) && mem && tc->restart_on_memory) ||
                  ((((cur.known & RESIZE_CPU_SHARES) && shares) ||
                    ((cur.known & RESIZE_CPU_QUOTA) && quota)) &&
                   tc->restart_on_cpu);
        if (restart) {
                push_cgroup(b, PH_RESTART, RESIZE_STEP_RESTART_CONTAINER, tc->name, RESIZE_ALL_BITS,
                            cg);
                return 0;
        }
        if (mem)
                push_cgroup(b, mem < 0 ? PH_SHRINK_MEMORY : PH_GROW_MEMORY,
                            RESIZE_STEP_CONTAINER_CGROUP, tc->name, RESIZE_MEMORY, cg);
        cpu_which = (shares ? RESIZE_CPU_SHARES : 0) | (quota ? RESIZE_CPU_QUOTA : 0);
        if (cpu_which) {
                /* K8S: a cpu limit change takes precedence over a request change */
                int dir = quota ? quota : shares;
                push_cgroup(b, dir < 0 ? PH_SHRINK_CPU : PH_GROW_CPU, RESIZE_STEP_CONTAINER_CGROUP,
                            tc->name, cpu_which, cg);
        }
        return 0;
}

/* K8S: doPodResizeAction's pod cgroup writes: limits grow first and shrink last. */
static void plan_pod(struct plan_builder *b, const struct cg_state *cur,
                     const struct pod_cgroup_config *target)
{
        static const unsigned grow_order[] = { RESIZE_MEMORY, RESIZE_CPU_QUOTA, RESIZE_CPU_SHARES };
        static const unsigned shrink_order[] = { RESIZE_MEMORY, RESIZE_CPU_SHARES,
                                                 RESIZE_CPU_QUOTA };
        size_t cg = SIZE_MAX;

        for (size_t i = 0; i < ARRAY_SIZE(grow_order); i++) {
                if (cg_cmp(cur, target, grow_order[i]) <= 0)
                        continue;
                if (cg == SIZE_MAX)
                        cg = track_add(b, cur, target);
                push_cgroup(b, PH_POD_GROW, RESIZE_STEP_POD_CGROUP, NULL, grow_order[i], cg);
        }
        for (size_t i = 0; i < ARRAY_SIZE(shrink_order); i++) {
                if (cg_cmp(cur, target, shrink_order[i]) >= 0)
                        continue;
                if (cg == SIZE_MAX)
                        cg = track_add(b, cur, target);
                push_cgroup(b, PH_POD_SHRINK, RESIZE_STEP_POD_CGROUP, NULL, shrink_order[i], cg);
        }
}

/* KEP-6030: Memory emptyDirs that shrink go first, those that grow last. */
static int plan_volumes(struct plan_builder *b, const struct resize_targets *t,
                        const json_t *actuated, struct error **reterr)
{
        const json_t *cur_sizes = json_object_get(actuated, "volumes");

        if (t->volumes_err < 0)
                return error_set(reterr, -t->volumes_err, "pod memory limit: invalid resources");
        for (size_t i = 0; i < t->n_volumes; i++) {
                const struct resize_target_volume *v = &t->volumes[i];
                const json_t *cur = json_object_get(cur_sizes, v->name);
                struct pstep p = { .s = { .kind = RESIZE_STEP_VOLUME,
                                          .name = v->name,
                                          .size_bytes = v->size_bytes },
                                   .cg = SIZE_MAX };

                if (!json_is_integer(cur))
                        plist_push(&b->ph[PH_VOLUME_GROW], &p);
                else if (v->size_bytes < json_integer_value(cur))
                        plist_push(&b->ph[PH_VOLUME_SHRINK], &p);
                else if (v->size_bytes > json_integer_value(cur))
                        plist_push(&b->ph[PH_VOLUME_GROW], &p);
        }
        return 0;
}

/* Lays the phases out in order, giving each cgroup step the config its cgroup has after it. */
static void plan_flatten(struct plan_builder *b, struct resize_plan *ret)
{
        size_t n = 0, k = 0;

        for (int ph = 0; ph < PH_MAX; ph++)
                n += b->ph[ph].n;
        ret->steps = n ? xcalloc(n, sizeof(*ret->steps)) : NULL;
        ret->n = n;
        for (int ph = 0; ph < PH_MAX; ph++) {
                const struct plist *l = &b->ph[ph];
                for (size_t i = 0; i < l->n; i++) {
                        const struct pstep *p = &l->v[phase_reversed(ph) ? l->n - 1 - i : i];
                        struct resize_step *s = &ret->steps[k++];
                        *s = p->s;
                        if (p->cg != SIZE_MAX) {
                                struct cg_track *t = &b->tracks[p->cg];
                                cfg_apply(&t->run, &t->target, s->which);
                                s->cfg = t->run;
                        }
                }
        }
}

/* The resizable containers of list in order (sidecars only for spec.initContainers). */
static int targets_containers(struct resize_targets *t, const json_t *apod, const json_t *list,
                              bool init, bool enforce_cpu_limits)
{
        size_t i;
        json_t *ctr;

        json_array_foreach(list, i, ctr) {
                const char *name = json_string_value(json_object_get(ctr, "name"));
                struct resize_target_container *tc;

                /* K8S: IsResizableContainer: regular containers and restartable init ones */
                if (!name || (init && !is_sidecar(ctr)))
                        continue;
                t->containers =
                        xrealloc(t->containers, (t->n_containers + 1) * sizeof(*t->containers));
                tc = &t->containers[t->n_containers++];
                *tc = (struct resize_target_container){
                        .name = name,
                        .restart_on_cpu = restart_policy(ctr, "cpu"),
                        .restart_on_memory = restart_policy(ctr, "memory"),
                };
                tc->err = container_cgroup_config(apod, name, NULL, enforce_cpu_limits, &tc->cfg);
        }
        return 0;
}

static void targets_volumes(struct resize_targets *t, const json_t *pod, const json_t *apod,
                            int64_t allocatable_memory)
{
        const json_t *avols = json_path(apod, "spec.volumes");
        int64_t pod_limit = -1;
        bool have_limit = false;
        size_t i;
        json_t *vol;
        int r;

        json_array_foreach(json_path(pod, "spec.volumes"), i, vol) {
                const char *name = json_string_value(json_object_get(vol, "name"));
                const json_t *ed = memory_emptydir(json_array_get(avols, i));
                char buf[JSON_NUMBER_TEXT_MAX];
                int64_t size;

                if (!name || !ed)
                        continue;
                if (!have_limit) {
                        if ((r = pod_memory_limit(apod, NULL, &pod_limit)) < 0) {
                                t->volumes_err = r;
                                return;
                        }
                        have_limit = true;
                }
                /* K8S: calculateEmptyDirMemorySize over the allocated pod (KEP-1967) */
                size = emptydir_memory_size(
                        allocatable_memory, pod_limit,
                        json_scalar_text(json_object_get(ed, "sizeLimit"), buf));
                if (size <= 0)
                        continue; /* no size= option: nothing a remount can set */
                t->volumes = xrealloc(t->volumes, (t->n_volumes + 1) * sizeof(*t->volumes));
                t->volumes[t->n_volumes++] =
                        (struct resize_target_volume){ .name = name, .size_bytes = size };
        }
}

int resize_targets_build(const json_t *pod, const json_t *allocation, int64_t allocatable_memory,
                         bool enforce_cpu_limits, struct resize_targets *ret, struct error **reterr)
{
        cleanup_json json_t *apod = allocation ? resize_pod_with_allocation(pod, allocation)
                                               : json_incref((json_t *) pod);
        struct resize_targets t = { 0 };
        int r;

        if (!apod)
                return error_set(reterr, EINVAL, "plan resize: no pod");
        if ((r = pod_cgroup_config(apod, NULL, enforce_cpu_limits, &t.pod)) < 0)
                return error_set(reterr, -r, "plan resize: pod cgroup: invalid resources");
        /* K8S: computePodActions visits the sidecars (computeInitContainerActions) first */
        targets_containers(&t, apod, json_path(pod, "spec.initContainers"), true,
                           enforce_cpu_limits);
        targets_containers(&t, apod, json_path(pod, "spec.containers"), false, enforce_cpu_limits);
        targets_volumes(&t, pod, apod, allocatable_memory);
        *ret = t;
        return 0;
}

void resize_targets_release(struct resize_targets *t)
{
        if (!t)
                return;
        free(t->containers);
        free(t->volumes);
        *t = (struct resize_targets){ 0 };
}

int resize_plan_from_targets(const struct resize_targets *t, const json_t *actuated,
                             const char *const *running, struct resize_plan *ret,
                             struct error **reterr)
{
        struct plan_builder b = { 0 };
        struct cg_state pod_cur;
        int r;

        cg_read(json_object_get(actuated, "pod"), &pod_cur);
        plan_pod(&b, &pod_cur, &t->pod);
        for (size_t i = 0; i < t->n_containers; i++) {
                if (!is_running(running, t->containers[i].name))
                        continue;
                if ((r = plan_container(&b, &t->containers[i], actuated, reterr)) < 0) {
                        builder_release(&b);
                        error_wrap(reterr, "plan resize");
                        return r;
                }
        }
        if ((r = plan_volumes(&b, t, actuated, reterr)) < 0) {
                builder_release(&b);
                error_wrap(reterr, "plan resize");
                return r;
        }
        plan_flatten(&b, ret);
        builder_release(&b);
        return 0;
}

void resize_plan_release(struct resize_plan *p)
{
        if (!p)
                return;
        free(p->steps);
        p->steps = NULL;
        p->n = 0;
}

void resize_actuated_record(json_t *actuated, const struct resize_step *s)
{
        json_t *obj;

        if (!json_is_object(actuated) || !s)
                return;
        switch (s->kind) {
        case RESIZE_STEP_VOLUME:
                if (s->name)
                        json_object_set_new(json_object_ensure(actuated, "volumes"), s->name,
                                            json_integer(s->size_bytes));
                return;
        case RESIZE_STEP_POD_CGROUP:
                obj = json_object_ensure(actuated, "pod");
                break;
        case RESIZE_STEP_CONTAINER_CGROUP:
        case RESIZE_STEP_RESTART_CONTAINER:
                if (!s->name)
                        return;
                obj = json_object_ensure(json_object_ensure(actuated, "containers"), s->name);
                break;
        default:
                return;
        }
        if (s->which & RESIZE_CPU_SHARES)
                json_object_set_new(obj, "cpuShares", json_integer(s->cfg.cpu_shares));
        if (s->which & RESIZE_CPU_QUOTA) {
                json_object_set_new(obj, "cpuQuota", json_integer(s->cfg.cpu_quota_us));
                json_object_set_new(obj, "cpuPeriod", json_integer(s->cfg.cpu_period_us));
        }
        if (s->which & RESIZE_MEMORY)
                json_object_set_new(obj, "memoryLimit", json_integer(s->cfg.memory_limit_bytes));
}

/* ---- the retry queue ---- */

static json_int_t pod_priority(const json_t *pod)
{
        const json_t *p = json_path(pod, "spec.priority");

        return json_is_integer(p) ? json_integer_value(p) : 0;
}

static bool pod_guaranteed(const json_t *pod)
{
        const char *qos = pod ? pod_qos_class_stored(pod) : NULL;

        return qos && streq(qos, "Guaranteed");
}

int resize_pending_compare(const void *a, const void *b)
{
        const struct resize_pending *x = a, *y = b;
        json_int_t px, py;
        bool gx, gy;

        /* K8S: sortPendingResizes: resizes that do not increase requests always fit */
        if (x->increases_requests != y->increases_requests)
                return x->increases_requests ? 1 : -1;
        px = pod_priority(x->pod);
        py = pod_priority(y->pod);
        if (px != py)
                return px > py ? -1 : 1;
        gx = pod_guaranteed(x->pod);
        gy = pod_guaranteed(y->pod);
        if (gx != gy)
                return gx ? -1 : 1;
        if (x->pending_since != y->pending_since) {
                if (!x->pending_since)
                        return 1;
                if (!y->pending_since)
                        return -1;
                return x->pending_since < y->pending_since ? -1 : 1;
        }
        return 0;
}
