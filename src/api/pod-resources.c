/* pod-resources.c: PodRequests, with init containers and sidecars counted as upstream. */
#include <errno.h>

#include "api/pod-resources.h"
#include "base/json.h"
#include "base/quantity.h"

struct res {
        int64_t cpu; /* millicores */
        int64_t mem; /* bytes */
};

static int read_list(const json_t *list, struct res *ret)
{
        const char *cpu = json_string_value(json_object_get(list, "cpu"));
        const char *mem = json_string_value(json_object_get(list, "memory"));
        struct quantity q;

        ret->cpu = ret->mem = 0;
        if (cpu && (quantity_parse(cpu, &q, NULL) < 0 || quantity_milli_value(&q, &ret->cpu) < 0))
                return -EINVAL;
        if (mem && (quantity_parse(mem, &q, NULL) < 0 || quantity_value(&q, &ret->mem) < 0))
                return -EINVAL;
        return 0;
}

static int add(struct res *a, const struct res *b)
{
        if (__builtin_add_overflow(a->cpu, b->cpu, &a->cpu) ||
            __builtin_add_overflow(a->mem, b->mem, &a->mem))
                return -ERANGE;
        return 0;
}

static void max_into(struct res *a, const struct res *b)
{
        if (b->cpu > a->cpu)
                a->cpu = b->cpu;
        if (b->mem > a->mem)
                a->mem = b->mem;
}

int pod_requests(const json_t *pod, int64_t *ret_milli_cpu, int64_t *ret_memory_bytes)
{
        struct res sum = { 0, 0 }, sidecars = { 0, 0 }, init_max = { 0, 0 }, c, overhead;
        const json_t *pod_level = json_path(pod, "spec.resources.requests");
        size_t i;
        json_t *ctr;
        int r;

        json_array_foreach(json_path(pod, "spec.containers"), i, ctr) {
                if ((r = read_list(json_path(ctr, "resources.requests"), &c)) < 0 ||
                    (r = add(&sum, &c)) < 0)
                        return r;
        }
        json_array_foreach(json_path(pod, "spec.initContainers"), i, ctr) {
                const char *rp = json_string_value(json_object_get(ctr, "restartPolicy"));
                struct res need;

                if ((r = read_list(json_path(ctr, "resources.requests"), &c)) < 0)
                        return r;
                if (rp && streq(rp, "Always")) {
                        /* K8S: a sidecar runs beside everything started after it. */
                        if ((r = add(&sum, &c)) < 0 || (r = add(&sidecars, &c)) < 0)
                                return r;
                        need = sidecars;
                } else {
                        need = c;
                        if ((r = add(&need, &sidecars)) < 0)
                                return r;
                }
                max_into(&init_max, &need);
        }
        max_into(&sum, &init_max);
        if (pod_level) {
                struct res p;
                if ((r = read_list(pod_level, &p)) < 0)
                        return r;
                if (json_object_get(pod_level, "cpu"))
                        sum.cpu = p.cpu;
                if (json_object_get(pod_level, "memory"))
                        sum.mem = p.mem;
        }
        if ((r = read_list(json_path(pod, "spec.overhead"), &overhead)) < 0 ||
            (r = add(&sum, &overhead)) < 0)
                return r;
        *ret_milli_cpu = sum.cpu;
        *ret_memory_bytes = sum.mem;
        return 0;
}
