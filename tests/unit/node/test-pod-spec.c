/* test-pod-spec.c: the node's typed pod model: decoding (containers by kind, quantities as
 * integers, resizePolicy, volumes), validation of hostile input with its messages, the cache key
 * (uid + generation, else resourceVersion), the allocation-derived members, and that the plan
 * made from the typed targets is the one built from the pod JSON (resize-json.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/json.h"
#include "unit/json-literal.h"
#include "node/pod-spec.h"
#include "node/resize.h"

#include "resize-json.h"

#define MI ((int64_t) 1024 * 1024)
#define GI (MI * 1024)

static const char *const POD =
        "{'metadata': {'uid': 'u1', 'generation': 3, 'resourceVersion': '77'},"
        " 'spec': {"
        "  'initContainers': ["
        "   {'name': 'init', 'image': 'busybox'},"
        "   {'name': 'side', 'image': 'busybox', 'restartPolicy': 'Always',"
        "    'resources': {'requests': {'cpu': '50m', 'memory': '8Mi'}}}],"
        "  'containers': ["
        "   {'name': 'app', 'image': 'busybox:1',"
        "    'resources': {'requests': {'cpu': '0.1', 'memory': '16Mi'},"
        "                  'limits': {'cpu': 1, 'memory': '64Mi'}},"
        "    'resizePolicy': [{'resourceName': 'memory', 'restartPolicy': 'RestartContainer'},"
        "                     {'resourceName': 'cpu', 'restartPolicy': 'NotRequired'}]}],"
        "  'volumes': ["
        "   {'name': 'shm', 'emptyDir': {'medium': 'Memory', 'sizeLimit': '16Mi'}},"
        "   {'name': 'scratch', 'emptyDir': {}},"
        "   {'name': 'data', 'persistentVolumeClaim': {'claimName': 'pvc1', 'readOnly': true}},"
        "   {'name': 'cfg', 'configMap': {'name': 'c'}}]}}";

static void test_decode(void **state)
{
        json_t *pod = J(POD);
        struct pod_spec *s = NULL;
        const struct pod_spec_container *c;

        (void) state;
        assert_int_equal(pod_spec_decode(pod, &s, NULL), 0);
        assert_string_equal(s->uid, "u1");
        assert_int_equal(s->generation, 3);
        assert_int_equal(s->n_containers, 3);
        assert_string_equal(s->containers[0].name, "init");
        assert_int_equal(s->containers[0].kind, POD_SPEC_INIT_CONTAINER);
        assert_int_equal(s->containers[0].resources.set, 0);
        assert_int_equal(s->containers[1].kind, POD_SPEC_SIDECAR);
        c = pod_spec_container(s, "app");
        assert_non_null(c);
        assert_int_equal(c->kind, POD_SPEC_CONTAINER);
        assert_string_equal(c->image, "busybox:1");
        assert_int_equal(c->resources.set, POD_SPEC_CPU_REQUEST | POD_SPEC_CPU_LIMIT |
                                                   POD_SPEC_MEMORY_REQUEST | POD_SPEC_MEMORY_LIMIT);
        assert_int_equal(c->resources.cpu_request_milli, 100);
        assert_int_equal(c->resources.cpu_limit_milli, 1000); /* a JSON number */
        assert_int_equal(c->resources.memory_request, 16 * MI);
        assert_int_equal(c->resources.memory_limit, 64 * MI);
        assert_true(c->restart_on_memory_resize);
        assert_false(c->restart_on_cpu_resize);
        assert_null(pod_spec_container(s, "nope"));

        assert_int_equal(s->n_volumes, 4);
        assert_int_equal(s->volumes[0].kind, POD_SPEC_VOLUME_EMPTYDIR);
        assert_true(s->volumes[0].memory);
        assert_string_equal(s->volumes[0].size_limit, "16Mi");
        assert_int_equal(s->volumes[0].size_limit_bytes, 16 * MI);
        assert_false(s->volumes[1].memory);
        assert_int_equal(s->volumes[1].size_limit_bytes, -1);
        assert_int_equal(s->volumes[2].kind, POD_SPEC_VOLUME_CLAIM);
        assert_string_equal(s->volumes[2].claim_name, "pvc1");
        assert_true(s->volumes[2].read_only);
        assert_int_equal(s->volumes[3].kind, POD_SPEC_VOLUME_OTHER);

        /* K8S PodRequests: max(app + side, init + side) = 150m, 24Mi */
        assert_int_equal(s->requests_milli_cpu, 150);
        assert_int_equal(s->requests_memory, 24 * MI);
        assert_non_null(s->desired);
        pod_spec_free(s);
        json_decref(pod);
}

static void expect_refused(const char *spec, int code, const char *message)
{
        cleanup_free char *text =
                xasprintf("{'metadata': {'uid': 'u1', 'generation': 1}, 'spec': %s}", spec);
        json_t *pod = J(text);
        struct pod_spec *s = NULL;
        struct error *err = NULL;

        int r = pod_spec_decode(pod, &s, &err);

        if (r != code || s || !err)
                fail_msg("spec %s: %d, not refused with %d", spec, r, code);
        if (!strstr(err->message, message))
                fail_msg("message \"%s\" lacks \"%s\"", err->message, message);
        error_free(err);
        json_decref(pod);
}

static void expect_invalid(const char *spec, const char *message)
{
        expect_refused(spec, -EINVAL, message);
}

static void test_decode_hostile(void **state)
{
        (void) state;
        expect_invalid("{'containers': {}}", "spec.containers: must be a list");
        expect_invalid("{'containers': [7]}", "spec.containers[0]: must be an object");
        expect_invalid("{'containers': [{'image': 'x'}]}", "spec.containers[0].name: Required");
        expect_invalid("{'containers': [{'name': ''}]}", "spec.containers[0].name: Required");
        expect_invalid("{'containers': [{'name': 'a'}, {'name': 'a'}]}",
                       "spec.containers[1].name: Duplicate value: \"a\"");
        expect_invalid("{'initContainers': [{'name': 'a'}], 'containers': [{'name': 'a'}]}",
                       "spec.containers[0].name: Duplicate");
        expect_invalid("{'containers': [{'name': 'a', 'resources': 5}]}",
                       "spec.containers[0].resources: must be an object");
        expect_invalid("{'containers': [{'name': 'a', 'resources': {'limits': []}}]}",
                       "spec.containers[0].resources.limits: must be an object");
        expect_invalid("{'containers': [{'name': 'a', 'resources': {'limits': {'cpu': '1x'}}}]}",
                       "spec.containers[0].resources.limits.cpu: invalid quantity 1x");
        expect_invalid("{'containers': [{'name': 'a', 'resources': {'requests': "
                       "{'memory': true}}}]}",
                       "spec.containers[0].resources.requests.memory: invalid quantity");
        expect_invalid("{'containers': [{'name': 'a', 'resources': {'requests': "
                       "{'memory': '-1'}}}]}",
                       "requests.memory: must be greater than or equal to 0");
        expect_invalid("{'containers': [{'name': 'a', 'resizePolicy': {}}]}",
                       "spec.containers[0].resizePolicy: must be a list");
        expect_invalid("{'containers': [{'name': 'a', 'resizePolicy': [{}]}]}",
                       "resizePolicy[0].resourceName: Required value");
        expect_invalid("{'containers': [], 'volumes': [{'emptyDir': {}}]}",
                       "spec.volumes[0].name: Required value");
        expect_invalid("{'volumes': [{'name': 'v', 'emptyDir': {}}, {'name': 'v'}]}",
                       "spec.volumes[1].name: Duplicate value");
        expect_invalid("{'volumes': [{'name': 'v', 'emptyDir': {'sizeLimit': 'lots'}}]}",
                       "spec.volumes[0].emptyDir.sizeLimit: invalid quantity lots");
        expect_invalid("{'volumes': [{'name': 'v', 'persistentVolumeClaim': {}}]}",
                       "persistentVolumeClaim.claimName: Required value");
        expect_invalid("{'volumes': 3}", "spec.volumes: must be a list");

        {
                json_t *pod = J("{'metadata': {'uid': 'u'}}");
                struct pod_spec *s = NULL;
                struct error *err = NULL;
                assert_int_equal(pod_spec_decode(pod, &s, &err), -EINVAL);
                assert_string_equal(err->message, "pod: spec: Required value");
                error_free(err);
                json_decref(pod);
        }
}

static void test_cache_key(void **state)
{
        json_t *pod = J(POD), *same = J(POD), *next = J(POD), *other = J(POD);
        json_t *nogen = J("{'metadata': {'uid': 'u1', 'resourceVersion': '5'}, 'spec': {}}");
        json_t *nogen2 = J("{'metadata': {'uid': 'u1', 'resourceVersion': '6'}, 'spec': {}}");
        struct pod_spec *s = NULL, *t = NULL;

        (void) state;
        json_object_set_new(json_object_get(next, "metadata"), "generation", json_integer(4));
        json_object_set_new(json_object_get(other, "metadata"), "uid", json_string("u2"));
        /* a status write moves the resourceVersion, not the generation */
        json_object_set_new(json_object_get(same, "metadata"), "resourceVersion",
                            json_string("78"));
        assert_int_equal(pod_spec_decode(pod, &s, NULL), 0);
        assert_true(pod_spec_is_for(s, pod));
        assert_true(pod_spec_is_for(s, same));
        assert_false(pod_spec_is_for(s, next));
        assert_false(pod_spec_is_for(s, other));
        assert_false(pod_spec_is_for(NULL, pod));

        assert_int_equal(pod_spec_decode(nogen, &t, NULL), 0);
        assert_true(pod_spec_is_for(t, nogen));
        assert_false(pod_spec_is_for(t, nogen2));
        pod_spec_free(s);
        pod_spec_free(t);
        json_decref(pod);
        json_decref(same);
        json_decref(next);
        json_decref(other);
        json_decref(nogen);
        json_decref(nogen2);
}

static bool plans_equal(const struct resize_plan *a, const struct resize_plan *b)
{
        if (a->n != b->n)
                return false;
        for (size_t i = 0; i < a->n; i++) {
                const struct resize_step *x = &a->steps[i], *y = &b->steps[i];
                if (x->kind != y->kind || x->which != y->which || x->size_bytes != y->size_bytes ||
                    !!x->name != !!y->name || (x->name && strcmp(x->name, y->name)) ||
                    memcmp(&x->cfg, &y->cfg, sizeof(x->cfg)))
                        return false;
        }
        return true;
}

/* A resized spec against its old allocation: the derived members, and the typed plan is
 * the one built from the pod JSON, step for step. */
static void test_against_and_targets(void **state)
{
        json_t *old = J(POD), *pod = J(POD);
        json_t *app = json_array_get(json_path(pod, "spec.containers"), 0);
        json_t *actuated = json_object();
        const char *running[] = { "side", "app", NULL };
        struct pod_spec *o = NULL, *s = NULL;
        struct resize_plan typed = { 0 }, ref = { 0 };
        const struct resize_targets *t;
        json_t *allocation;

        (void) state;
        assert_int_equal(pod_spec_decode(old, &o, NULL), 0);
        allocation = json_incref(o->desired);
        /* the resize: more memory and cpu for app, a bigger volume */
        json_object_set_new(json_path(app, "resources.limits"), "memory", json_string("128Mi"));
        json_object_set_new(json_path(app, "resources.requests"), "cpu", json_string("200m"));
        json_object_set_new(
                json_path(json_array_get(json_path(pod, "spec.volumes"), 0), "emptyDir"),
                "sizeLimit", json_string("32Mi"));
        json_object_set_new(json_object_get(pod, "metadata"), "generation", json_integer(4));
        assert_int_equal(pod_spec_decode(pod, &s, NULL), 0);

        pod_spec_against(o, allocation, 1);
        assert_true(o->desired_is_allocated);
        pod_spec_against(s, allocation, 1);
        assert_false(s->desired_is_allocated);
        assert_int_equal(s->requests_milli_cpu, 250);
        assert_int_equal(s->alloc_requests_milli_cpu, 150);
        assert_int_equal(s->alloc_requests_memory, 24 * MI);
        assert_string_equal(json_string_value(json_path(
                                    json_array_get(json_path(s->alloc_pod, "spec.containers"), 0),
                                    "resources.limits.memory")),
                            "64Mi");

        /* the running cgroups at the old allocation, as the agent records them */
        assert_int_equal(plan_json(old, NULL, actuated, running, 16 * GI, true, &ref, NULL), 0);
        for (size_t i = 0; i < ref.n; i++)
                resize_actuated_record(actuated, &ref.steps[i]);
        resize_plan_release(&ref);

        /* the spec's resize accepted: allocation = desired */
        pod_spec_against(s, s->desired, 2);
        assert_true(s->desired_is_allocated);
        t = pod_spec_targets(s, 16 * GI);
        assert_non_null(t);
        assert_ptr_equal(pod_spec_targets(s, 16 * GI), t); /* once per allocation */
        assert_int_equal(t->n_containers, 2);
        assert_string_equal(t->containers[0].name, "side");
        assert_true(t->containers[1].restart_on_memory);
        assert_int_equal(t->containers[1].cfg.memory_limit_bytes, 128 * MI);
        assert_int_equal(t->n_volumes, 1);
        assert_int_equal(t->volumes[0].size_bytes, 32 * MI);
        assert_int_equal(resize_plan_from_targets(t, actuated, running, &typed, NULL), 0);
        assert_int_equal(plan_json(pod, s->desired, actuated, running, 16 * GI, true, &ref, NULL),
                         0);
        assert_true(typed.n > 0);
        assert_true(plans_equal(&typed, &ref));
        resize_plan_release(&typed);
        resize_plan_release(&ref);

        pod_spec_free(o);
        pod_spec_free(s);
        json_decref(allocation);
        json_decref(actuated);
        json_decref(old);
        json_decref(pod);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_decode),
                cmocka_unit_test(test_decode_hostile),
                cmocka_unit_test(test_cache_key),
                cmocka_unit_test(test_against_and_targets),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
