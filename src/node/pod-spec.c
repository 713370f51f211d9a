/* pod-spec.c: decodes a pod's spec once per generation into the node's typed model (pod-spec.h),
 * checking every value the node uses from it, and keeps what the resize path derives from it
 * against the current allocation, so a resize step compares integers instead of walking JSON. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "node/pod-spec.h"
#include "api/pod-resources.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/quantity.h"

/* A quantity member of a requests or limits list: 0 with the value (millicores for cpu, else
 * bytes) and the bit set, 0 with nothing set when absent; -EINVAL when it is malformed. */
static int decode_quantity(const json_t *list, const char *resource, bool milli, unsigned bit,
                           unsigned *set, int64_t *ret, const char *where, struct error **reterr)
{
        const json_t *v = json_object_get(list, resource);
        char buf[JSON_NUMBER_TEXT_MAX];
        struct quantity q;
        int r;

        if (!v)
                return 0;
        if (json_quantity(v, &q) < 0)
                return error_set(reterr, EINVAL, "%s.%s: invalid quantity %s", where, resource,
                                 json_scalar_text(v, buf) ?: "(not a string)");
        r = milli ? quantity_milli_value(&q, ret) : quantity_value(&q, ret);
        if (r < 0)
                return error_set(reterr, -r, "%s.%s: quantity out of range", where, resource);
        if (*ret < 0)
                return error_set(reterr, EINVAL, "%s.%s: must be greater than or equal to 0", where,
                                 resource);
        *set |= bit;
        return 0;
}

static int decode_resources(const json_t *res, const char *where, struct pod_spec_resources *ret,
                            struct error **reterr)
{
        static const char *const lists[] = { "requests", "limits" };
        cleanup_free char *at = NULL;

        *ret = (struct pod_spec_resources){ 0 };
        if (!res)
                return 0;
        if (!json_is_object(res))
                return error_set(reterr, EINVAL, "%s.resources: must be an object", where);
        for (size_t k = 0; k < 2; k++) {
                const json_t *l = json_object_get(res, lists[k]);
                bool lim = k == 1;
                int r;

                if (!l)
                        continue;
                free(at);
                at = xasprintf("%s.resources.%s", where, lists[k]);
                if (!json_is_object(l))
                        return error_set(reterr, EINVAL, "%s: must be an object", at);
                r = decode_quantity(
                        l, "cpu", true, lim ? POD_SPEC_CPU_LIMIT : POD_SPEC_CPU_REQUEST, &ret->set,
                        lim ? &ret->cpu_limit_milli : &ret->cpu_request_milli, at, reterr);
                if (r >= 0)
                        r = decode_quantity(
                                l, "memory", false,
                                lim ? POD_SPEC_MEMORY_LIMIT : POD_SPEC_MEMORY_REQUEST, &ret->set,
                                lim ? &ret->memory_limit : &ret->memory_request, at, reterr);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* K8S: ContainerResizePolicy: a list of {resourceName, restartPolicy}. */
static int decode_resize_policy(const json_t *ctr, const char *where, struct pod_spec_container *c,
                                struct error **reterr)
{
        const json_t *list = json_object_get(ctr, "resizePolicy");
        bool seen_cpu = false, seen_memory = false;
        size_t i;
        json_t *p;

        if (!list)
                return 0;
        if (!json_is_array(list))
                return error_set(reterr, EINVAL, "%s.resizePolicy: must be a list", where);
        json_array_foreach(list, i, p) {
                const char *r = json_string_value(json_object_get(p, "resourceName"));
                const char *rp = json_string_value(json_object_get(p, "restartPolicy"));
                bool restart = rp && streq(rp, "RestartContainer");

                if (!r)
                        return error_set(reterr, EINVAL,
                                         "%s.resizePolicy[%zu].resourceName: Required value", where,
                                         i);
                /* the first entry for a resource decides, as resize.c's lookup does */
                if (streq(r, "cpu") && !seen_cpu) {
                        c->restart_on_cpu_resize = restart;
                        seen_cpu = true;
                } else if (streq(r, "memory") && !seen_memory) {
                        c->restart_on_memory_resize = restart;
                        seen_memory = true;
                }
        }
        return 0;
}

static int decode_containers(struct pod_spec *s, const json_t *list, const char *field, bool init,
                             struct error **reterr)
{
        size_t i;
        json_t *ctr;

        if (!list)
                return 0;
        if (!json_is_array(list))
                return error_set(reterr, EINVAL, "spec.%s: must be a list", field);
        s->containers = xrealloc(s->containers, (s->n_containers + json_array_size(list)) *
                                                        sizeof(*s->containers));
        json_array_foreach(list, i, ctr) {
                struct pod_spec_container *c = &s->containers[s->n_containers];
                cleanup_free char *where = xasprintf("spec.%s[%zu]", field, i);
                const char *restart;
                int r;

                *c = (struct pod_spec_container){ 0 };
                if (!json_is_object(ctr))
                        return error_set(reterr, EINVAL, "%s: must be an object", where);
                c->name = json_string_value(json_object_get(ctr, "name"));
                if (!c->name || !*c->name)
                        return error_set(reterr, EINVAL, "%s.name: Required value", where);
                if (pod_spec_container(s, c->name))
                        return error_set(reterr, EINVAL, "%s.name: Duplicate value: \"%s\"", where,
                                         c->name);
                c->image = json_string_value(json_object_get(ctr, "image"));
                restart = json_string_value(json_object_get(ctr, "restartPolicy"));
                c->kind = !init                                 ? POD_SPEC_CONTAINER
                          : restart && streq(restart, "Always") ? POD_SPEC_SIDECAR
                                                                : POD_SPEC_INIT_CONTAINER;
                if ((r = decode_resources(json_object_get(ctr, "resources"), where, &c->resources,
                                          reterr)) < 0 ||
                    (r = decode_resize_policy(ctr, where, c, reterr)) < 0)
                        return r;
                s->n_containers++;
        }
        return 0;
}

static int decode_volumes(struct pod_spec *s, const json_t *list, struct error **reterr)
{
        size_t i;
        json_t *vol;

        if (!list)
                return 0;
        if (!json_is_array(list))
                return error_set(reterr, EINVAL, "spec.volumes: must be a list");
        s->volumes = xcalloc(json_array_size(list) + 1, sizeof(*s->volumes));
        json_array_foreach(list, i, vol) {
                struct pod_spec_volume *v = &s->volumes[s->n_volumes];
                const json_t *ed = json_object_get(vol, "emptyDir");
                const json_t *claim = json_object_get(vol, "persistentVolumeClaim");

                *v = (struct pod_spec_volume){ .size_limit_bytes = -1 };
                v->name = json_string_value(json_object_get(vol, "name"));
                if (!v->name || !*v->name)
                        return error_set(reterr, EINVAL, "spec.volumes[%zu].name: Required value",
                                         i);
                for (size_t k = 0; k < s->n_volumes; k++) {
                        if (streq(s->volumes[k].name, v->name))
                                return error_set(reterr, EINVAL,
                                                 "spec.volumes[%zu].name: Duplicate value: "
                                                 "\"%s\"",
                                                 i, v->name);
                }
                if (json_is_object(ed)) {
                        const char *medium = json_string_value(json_object_get(ed, "medium"));
                        const json_t *limit = json_object_get(ed, "sizeLimit");
                        char buf[JSON_NUMBER_TEXT_MAX];
                        struct quantity q;

                        v->kind = POD_SPEC_VOLUME_EMPTYDIR;
                        v->memory = medium && streq(medium, "Memory");
                        if (limit) {
                                if (json_quantity(limit, &q) < 0 ||
                                    quantity_value(&q, &v->size_limit_bytes) < 0 ||
                                    v->size_limit_bytes < 0)
                                        return error_set(reterr, EINVAL,
                                                         "spec.volumes[%zu].emptyDir.sizeLimit: "
                                                         "invalid quantity %s",
                                                         i,
                                                         json_scalar_text(limit, buf)
                                                                 ?: "(not a string)");
                                /* a number's text lives in buf: keep the string form only */
                                v->size_limit = json_string_value(limit);
                        }
                } else if (json_is_object(claim)) {
                        v->kind = POD_SPEC_VOLUME_CLAIM;
                        v->claim_name = json_string_value(json_object_get(claim, "claimName"));
                        v->read_only = json_is_true(json_object_get(claim, "readOnly"));
                        if (!v->claim_name || !*v->claim_name)
                                return error_set(reterr, EINVAL,
                                                 "spec.volumes[%zu].persistentVolumeClaim."
                                                 "claimName: Required value",
                                                 i);
                }
                s->n_volumes++;
        }
        return 0;
}

int pod_spec_decode(const json_t *pod, struct pod_spec **ret, struct error **reterr)
{
        struct pod_spec *s;
        const char *uid = json_path_string(pod, "metadata.uid");
        const char *rv = json_path_string(pod, "metadata.resourceVersion");
        const json_t *gen = json_path(pod, "metadata.generation");
        const json_t *spec = json_object_get(pod, "spec");
        int r;

        if (!json_is_object(pod) || !json_is_object(spec))
                return error_set(reterr, EINVAL, "pod: spec: Required value");
        s = xcalloc(1, sizeof(*s));
        s->pod = json_incref((json_t *) pod);
        s->uid = uid ? xstrdup(uid) : NULL;
        s->resource_version = rv ? xstrdup(rv) : NULL;
        s->generation = json_is_integer(gen) ? json_integer_value(gen) : 0;
        if ((r = decode_containers(s, json_object_get(spec, "initContainers"), "initContainers",
                                   true, reterr)) < 0 ||
            (r = decode_containers(s, json_object_get(spec, "containers"), "containers", false,
                                   reterr)) < 0 ||
            (r = decode_volumes(s, json_object_get(spec, "volumes"), reterr)) < 0)
                goto fail;
        /* pod-level resources and overhead count here: pod-resources.c has the arithmetic */
        if ((r = pod_requests(pod, &s->requests_milli_cpu, &s->requests_memory)) < 0) {
                error_set(reterr, -r, "spec: invalid resources");
                goto fail;
        }
        s->desired = resize_allocation_from_pod(pod);
        *ret = s;
        return 0;
fail:
        pod_spec_free(s);
        return r;
}

void pod_spec_free(struct pod_spec *s)
{
        if (!s)
                return;
        resize_targets_release(&s->targets);
        json_decref(s->alloc_pod);
        json_decref(s->desired);
        free(s->containers);
        free(s->volumes);
        free(s->resource_version);
        free(s->uid);
        json_decref(s->pod);
        free(s);
}

bool pod_spec_is_for(const struct pod_spec *s, const json_t *pod)
{
        const char *uid = json_path_string(pod, "metadata.uid");
        const json_t *gen = json_path(pod, "metadata.generation");
        const char *rv;

        if (!s || !uid || !s->uid || !streq(uid, s->uid))
                return false;
        if (pod == s->pod)
                return true;
        if (json_is_integer(gen) && json_integer_value(gen) > 0)
                return json_integer_value(gen) == s->generation;
        /* no generation: only the very same version is the same spec */
        rv = json_path_string(pod, "metadata.resourceVersion");
        return s->generation == 0 && rv && s->resource_version && streq(rv, s->resource_version);
}

void pod_spec_against(struct pod_spec *s, const json_t *allocation, unsigned allocation_gen)
{
        if (s->against_gen == allocation_gen + 1)
                return;
        resize_targets_release(&s->targets);
        s->targets_gen = 0;
        s->targets_ok = false;
        json_decref(TAKE_PTR(s->alloc_pod));
        s->desired_is_allocated = !allocation || resize_allocation_equal(s->desired, allocation);
        s->alloc_pod = s->desired_is_allocated ? json_incref(s->pod)
                                               : resize_pod_with_allocation(s->pod, allocation);
        s->alloc_requests_milli_cpu = s->requests_milli_cpu;
        s->alloc_requests_memory = s->requests_memory;
        if (!s->desired_is_allocated &&
            (!s->alloc_pod || pod_requests(s->alloc_pod, &s->alloc_requests_milli_cpu,
                                           &s->alloc_requests_memory) < 0)) {
                s->alloc_requests_milli_cpu = 0;
                s->alloc_requests_memory = 0;
        }
        s->against_gen = allocation_gen + 1;
}

const struct resize_targets *pod_spec_targets(struct pod_spec *s, int64_t allocatable_memory)
{
        if (!s->against_gen)
                return NULL;
        if (s->targets_gen != s->against_gen) {
                resize_targets_release(&s->targets);
                /* the node always enforces cpu limits (kubelet --cpu-cfs-quota's default) */
                s->targets_ok =
                        s->alloc_pod && resize_targets_build(s->alloc_pod, NULL, allocatable_memory,
                                                             true, &s->targets, NULL) >= 0;
                s->targets_gen = s->against_gen;
        }
        return s->targets_ok ? &s->targets : NULL;
}

const struct pod_spec_container *pod_spec_container(const struct pod_spec *s, const char *name)
{
        for (size_t i = 0; s && name && i < s->n_containers; i++) {
                if (s->containers[i].name && streq(s->containers[i].name, name))
                        return &s->containers[i];
        }
        return NULL;
}
