/* test-admission-limitranger.c: LimitRange defaulting and validation, and the LimitRanger
 * admission: the container defaults and their annotation, upstream's words for every bound a
 * pod or a claim breaks, the aggregate of several, and when the hooks run (create, resize,
 * claim updates; not other pod updates, not objects being deleted). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api/limitrange.h"
#include "apiserver/admission-limitranger.h"
#include "base/alloc.h"
#include "base/json.h"
#include "store/store.h"

/* JSON with ' for " */
static json_t *jparse(const char *s)
{
        char *dup = xstrdup(s);
        json_t *v;

        for (char *p = dup; *p; p++)
                if (*p == '\'')
                        *p = '"';
        v = json_loads(dup, 0, NULL);
        assert_non_null(v);
        free(dup);
        return v;
}

/* The value at path under the idx-th element of the array at list. */
static json_t *at(const json_t *obj, const char *list, size_t idx, const char *path)
{
        return json_path(json_array_get(json_path(obj, list), idx), path);
}

static const char *at_str(const json_t *obj, const char *list, size_t idx, const char *path)
{
        return json_string_value(at(obj, list, idx, path));
}

/* A LimitRange whose spec.limits is the JSON array items. */
static json_t *lr(const char *items)
{
        json_t *l = json_pack("{s:{s:s, s:s}, s:{s:o}}", "metadata", "name", "bounds", "namespace",
                              "default", "spec", "limits", jparse(items));
        return l;
}

static void test_defaults(void **state)
{
        cleanup_json json_t *range = lr("[{'type':'Pod','max':{'cpu':'4'}},"
                                        "{'type':'Container','default':{'cpu':'500m','memory':"
                                        "'256Mi'},'defaultRequest':{'cpu':'100m'}}]");
        cleanup_json json_t *pod = jparse(
                "{'metadata':{'name':'p'},'spec':{'containers':["
                "{'name':'a'},"
                "{'name':'b','resources':{'limits':{'cpu':'1'},'requests':{'cpu':'1'}}}],"
                "'initContainers':[{'name':'i','resources':{'requests':{'memory':'64Mi'}}}]}}");
        cleanup_json json_t *quiet = json_deep_copy(pod);
        cleanup_json json_t *none = lr("[{'type':'Pod','max':{'cpu':'4'}}]");

        assert_true(limit_range_pod_defaults(pod, range, true));
        assert_string_equal(
                json_string_value(json_object_get(json_path(pod, "metadata.annotations"),
                                                  LIMIT_RANGER_ANNOTATION)),
                "LimitRanger plugin set: cpu request for container a; cpu, memory "
                "limit for container a; memory limit for container b; cpu request "
                "for init container i; cpu, memory limit for init container i");
        assert_string_equal(at_str(pod, "spec.containers", 0, "resources.limits.memory"), "256Mi");
        /* what the pod set stays */
        assert_string_equal(at_str(pod, "spec.containers", 1, "resources.limits.cpu"), "1");
        assert_string_equal(at_str(pod, "spec.initContainers", 0, "resources.requests.memory"),
                            "64Mi");
        assert_string_equal(at_str(pod, "spec.initContainers", 0, "resources.requests.cpu"),
                            "100m");
        /* a second pass has nothing left to set */
        assert_false(limit_range_pod_defaults(pod, range, true));
        /* without annotate (a resize), the defaults only */
        assert_true(limit_range_pod_defaults(quiet, range, false));
        assert_null(json_path(quiet, "metadata.annotations"));
        /* no Container item: no defaults */
        json_decref(quiet);
        quiet = jparse("{'spec':{'containers':[{'name':'a'}]}}");
        assert_false(limit_range_pod_defaults(quiet, none, true));
        assert_null(at(quiet, "spec.containers", 0, "resources"));
}

/* The aggregate message the pod check gives, or NULL. Caller frees. */
static char *pod_msg(const char *items, const char *spec)
{
        cleanup_json json_t *range = lr(items);
        cleanup_json json_t *pod = json_pack("{s:o}", "spec", jparse(spec));
        cleanup_json json_t *msgs = json_array();

        (void) limit_range_pod_check(pod, range, msgs);
        return limit_range_aggregate(msgs);
}

static void test_pod_messages(void **state)
{
        static const struct {
                const char *items, *spec, *want; /* want NULL: admitted */
        } cases[] = {
                { "[{'type':'Container','max':{'cpu':'1'}}]",
                  "{'containers':[{'name':'c','resources':{'limits':{'cpu':'2'}}}]}",
                  "maximum cpu usage per Container is 1, but limit is 2" },
                { "[{'type':'Container','max':{'memory':'1Gi'}}]",
                  "{'containers':[{'name':'c','resources':{'requests':{'memory':'1Gi'}}}]}",
                  "maximum memory usage per Container is 1Gi.  No limit is specified" },
                { "[{'type':'Container','max':{'cpu':'1500m'}}]",
                  "{'containers':[{'name':'c','resources':{'requests':{'cpu':'2'},'limits':{'cpu':"
                  "'1'}}}]}",
                  "maximum cpu usage per Container is 1500m, but request is 2" },
                { "[{'type':'Container','min':{'memory':'64Mi'}}]",
                  "{'containers':[{'name':'c','resources':{'requests':{'memory':'32Mi'}}}]}",
                  "minimum memory usage per Container is 64Mi, but request is 32Mi" },
                { "[{'type':'Container','min':{'cpu':'100m'}}]", "{'containers':[{'name':'c'}]}",
                  "minimum cpu usage per Container is 100m.  No request is specified" },
                { "[{'type':'Container','min':{'cpu':'100m'}}]",
                  "{'containers':[{'name':'c','resources':{'requests':{'cpu':'200m'},'limits':{"
                  "'cpu':'50m'}}}]}",
                  "minimum cpu usage per Container is 100m, but limit is 50m" },
                { "[{'type':'Container','maxLimitRequestRatio':{'cpu':'2'}}]",
                  "{'containers':[{'name':'c','resources':{'requests':{'cpu':'250m'},'limits':{"
                  "'cpu':'1'}}}]}",
                  "cpu max limit to request ratio per Container is 2, but provided ratio is "
                  "4.000000" },
                { "[{'type':'Container','maxLimitRequestRatio':{'cpu':'2'}}]",
                  "{'containers':[{'name':'c','resources':{'requests':{'cpu':'500m'},'limits':{"
                  "'cpu':'1'}}}]}",
                  NULL },
                { "[{'type':'Container','maxLimitRequestRatio':{'memory':'2'}}]",
                  "{'containers':[{'name':'c','resources':{'limits':{'memory':'1Gi'}}}]}",
                  "memory max limit to request ratio per Container is 2, but no request is "
                  "specified or request is 0" },
                { "[{'type':'Container','maxLimitRequestRatio':{'memory':'2'}}]",
                  "{'containers':[{'name':'c','resources':{'requests':{'memory':'1Gi'}}}]}",
                  "memory max limit to request ratio per Container is 2, but no limit is "
                  "specified or limit is 0" },
                /* milli precision: 0.5 is 500m, 501m is over */
                { "[{'type':'Container','max':{'cpu':'500m'}}]",
                  "{'containers':[{'name':'c','resources':{'limits':{'cpu':'0.5'}}}]}", NULL },
                { "[{'type':'Container','max':{'cpu':'500m'}}]",
                  "{'containers':[{'name':'c','resources':{'limits':{'cpu':'501m'}}}]}",
                  "maximum cpu usage per Container is 500m, but limit is 501m" },
                /* init containers are containers too */
                { "[{'type':'Container','max':{'cpu':'1'}}]",
                  "{'containers':[{'name':'c','resources':{'limits':{'cpu':'1'}}}],"
                  "'initContainers':[{'name':'i','resources':{'limits':{'cpu':'3'}}}]}",
                  "maximum cpu usage per Container is 1, but limit is 3" },
                /* several: the aggregate, in brackets */
                { "[{'type':'Container','min':{'cpu':'50m'},'maxLimitRequestRatio':{'cpu':'10'}}]",
                  "{'containers':[{'name':'c','resources':{'requests':{'cpu':'10m'},'limits':{"
                  "'cpu':'1'}}}]}",
                  "[minimum cpu usage per Container is 50m, but request is 10m, cpu max limit to "
                  "request ratio per Container is 10, but provided ratio is 100.000000]" },
                /* Pod items see the sum, printed canonically */
                { "[{'type':'Pod','max':{'cpu':'1'}}]",
                  "{'containers':[{'name':'a','resources':{'limits':{'cpu':'600m'}}},{'name':'b',"
                  "'resources':{'limits':{'cpu':'600m'}}}]}",
                  "maximum cpu usage per Pod is 1, but limit is 1200m" },
                /* a plain init container counts with the sidecars started before it */
                { "[{'type':'Pod','max':{'cpu':'1'}}]",
                  "{'containers':[{'name':'a','resources':{'limits':{'cpu':'500m'}}}],"
                  "'initContainers':[{'name':'s','restartPolicy':'Always','resources':{'limits':{"
                  "'cpu':'300m'}}},{'name':'i','resources':{'limits':{'cpu':'900m'}}}]}",
                  "maximum cpu usage per Pod is 1, but limit is 1200m" },
                { "[{'type':'Pod','min':{'memory':'1Gi'}}]",
                  "{'containers':[{'name':'a','resources':{'requests':{'memory':'256Mi'}}},{'name':"
                  "'b','resources':{'requests':{'memory':'256Mi'}}}]}",
                  "minimum memory usage per Pod is 1Gi, but request is 512Mi" },
                /* PersistentVolumeClaim items do not look at pods */
                { "[{'type':'PersistentVolumeClaim','max':{'storage':'1Gi'}}]",
                  "{'containers':[{'name':'c'}]}", NULL },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
                cleanup_free char *got = pod_msg(cases[i].items, cases[i].spec);
                if (!cases[i].want) {
                        if (got)
                                fail_msg("case %zu: unexpected \"%s\"", i, got);
                        continue;
                }
                if (!got)
                        fail_msg("case %zu: admitted, want \"%s\"", i, cases[i].want);
                assert_string_equal(got, cases[i].want);
        }
}

static void test_pvc_messages(void **state)
{
        static const struct {
                const char *request; /* NULL: none */
                const char *want;
        } cases[] = {
                { "5Gi",
                  "maximum storage usage per PersistentVolumeClaim is 2Gi, but request is 5Gi" },
                { "500Mi",
                  "minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi" },
                { "2Gi", NULL },
                { NULL, "[minimum storage usage per PersistentVolumeClaim is 1Gi.  No request is "
                        "specified, maximum storage usage per PersistentVolumeClaim is 2Gi.  No "
                        "request is specified]" },
        };
        cleanup_json json_t *range = lr("[{'type':'PersistentVolumeClaim','min':{'storage':'1Gi'},"
                                        "'max':{'storage':'2Gi'}}]");

        for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
                cleanup_json json_t *pvc = jparse("{'spec':{'resources':{}}}");
                cleanup_json json_t *msgs = json_array();
                cleanup_free char *got = NULL;
                if (cases[i].request)
                        json_object_set_new(json_path(pvc, "spec.resources"), "requests",
                                            json_pack("{s:s}", "storage", cases[i].request));
                (void) limit_range_pvc_check(pvc, range, msgs);
                got = limit_range_aggregate(msgs);
                if (!cases[i].want) {
                        assert_null(got);
                        continue;
                }
                assert_non_null(got);
                assert_string_equal(got, cases[i].want);
        }
}

static void test_aggregate(void **state)
{
        cleanup_json json_t *none = jparse("[]"), *same = jparse("['a','a']"),
                            *two = jparse("['a','b','a']");
        cleanup_free char *s1 = limit_range_aggregate(same), *s2 = limit_range_aggregate(two);

        assert_null(limit_range_aggregate(none));
        assert_string_equal(s1, "a");
        assert_string_equal(s2, "[a, b]");
}

static void test_set_defaults(void **state)
{
        cleanup_json json_t *range =
                lr("[{'type':'Container','max':{'cpu':'2','memory':'1Gi'},'min':{'memory':'64Mi'},"
                   "'default':{'cpu':'1'}},{'type':'Pod','max':{'cpu':'4'}}]");

        limit_range_set_defaults(range);
        /* max -> default only where default lacks it, default -> defaultRequest, then min */
        assert_string_equal(at_str(range, "spec.limits", 0, "default.cpu"), "1");
        assert_string_equal(at_str(range, "spec.limits", 0, "default.memory"), "1Gi");
        assert_string_equal(at_str(range, "spec.limits", 0, "defaultRequest.cpu"), "1");
        assert_string_equal(at_str(range, "spec.limits", 0, "defaultRequest.memory"), "1Gi");
        /* Pod items get no defaults */
        assert_null(at(range, "spec.limits", 1, "default"));
}

/* The validation errors of a LimitRange, as the Status message lists them. Caller frees. */
static char *invalid(const char *items)
{
        cleanup_json json_t *range = lr(items);
        struct field_error_list errs;
        char *s;

        field_error_list_init(&errs);
        (void) validate_limit_range(range, &errs);
        s = errs.n ? field_error_list_string(&errs) : NULL;
        field_error_list_release(&errs);
        return s;
}

static void test_validate(void **state)
{
        static const struct {
                const char *items, *want;
        } cases[] = {
                { "[{'type':'Container','max':{'cpu':'1'},'min':{'cpu':'100m'},'default':{'cpu':"
                  "'500m'},'defaultRequest':{'cpu':'200m'},'maxLimitRequestRatio':{'cpu':'5'}}]",
                  NULL },
                { "[{'type':'Pod','default':{'cpu':'1'},'defaultRequest':{'cpu':'1'}}]",
                  "[spec.limits[0].default: Forbidden: may not be specified when `type` is 'Pod', "
                  "spec.limits[0].defaultRequest: Forbidden: may not be specified when `type` is "
                  "'Pod']" },
                { "[{'type':'Container','min':{'cpu':'2'},'max':{'cpu':'1'}}]",
                  "spec.limits[0].min[cpu]: Invalid value: \"2\": min value 2 is greater than max "
                  "value 1" },
                { "[{'type':'Container','max':{'cpu':'1'},'defaultRequest':{'cpu':'2'}}]",
                  "spec.limits[0].defaultRequest[cpu]: Invalid value: \"2\": default request value "
                  "2 is greater than max value 1" },
                { "[{'type':'Container','default':{'cpu':'1'},'defaultRequest':{'cpu':'2'}}]",
                  "spec.limits[0].defaultRequest[cpu]: Invalid value: \"2\": default request value "
                  "2 is greater than default limit value 1" },
                { "[{'type':'Container','max':{'cpu':'1'},'default':{'cpu':'2'}}]",
                  "spec.limits[0].default[cpu]: Invalid value: \"1\": default value 2 is greater "
                  "than max value 1" },
                { "[{'type':'Container','maxLimitRequestRatio':{'cpu':'500m'}}]",
                  "spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: \"500m\": ratio 500m "
                  "is less than 1" },
                { "[{'type':'Container','min':{'cpu':'1'},'max':{'cpu':'2'},'maxLimitRequestRatio':"
                  "{'cpu':'3'}}]",
                  "spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: \"3\": ratio 3 is "
                  "greater than max/min = 2.000000" },
                { "[{'type':'PersistentVolumeClaim','max':{'cpu':'1'}}]",
                  "spec.limits[0].limits: Required value: either minimum or maximum storage value "
                  "is required, but neither was provided" },
                { "[{'type':'Container'},{'type':'Container'}]",
                  "spec.limits[1].type: Duplicate value: \"Container\"" },
                { "[{'type':'Node'}]",
                  "spec.limits[0].type: Invalid value: \"Node\": must be a standard limit type or "
                  "fully qualified" },
                { "[{'type':'Container','max':{'storage':'1Gi'}}]",
                  "spec.limits[0].max[storage]: Invalid value: \"storage\": must be a standard "
                  "resource for containers" },
                { "[{'type':'Container','default':{'nvidia.com/gpu':'2'},'defaultRequest':{'nvidia"
                  ".com/gpu':'1'}}]",
                  "spec.limits[0].defaultRequest[nvidia.com/gpu]: Invalid value: \"1\": default "
                  "value 2 must equal to defaultRequest value 1 in nvidia.com/gpu" },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
                cleanup_free char *got = invalid(cases[i].items);
                if (!cases[i].want) {
                        if (got)
                                fail_msg("case %zu: unexpected \"%s\"", i, got);
                        continue;
                }
                if (!got)
                        fail_msg("case %zu: valid, want \"%s\"", i, cases[i].want);
                assert_string_equal(got, cases[i].want);
        }
}

/* An update: the metadata update rules, and the spec rules of the new object (its metadata is
 * not checked twice). */
static void test_validate_update(void **state)
{
        cleanup_json json_t *old = lr("[{'type':'Container','max':{'cpu':'1'}}]");
        cleanup_json json_t *new = lr("[{'type':'Pod','default':{'cpu':'1'}}]");
        struct field_error_list errs;
        cleanup_free char *s = NULL;

        json_object_set_new(json_object_get(old, "metadata"), "resourceVersion", json_string("5"));
        json_object_set_new(json_object_get(new, "metadata"), "resourceVersion", json_string("5"));
        json_object_set_new(json_object_get(new, "metadata"), "labels",
                            json_pack("{s:s}", "a b", "x"));
        field_error_list_init(&errs);
        assert_int_equal(validate_limit_range_update(new, old, &errs), 2);
        s = field_error_list_string(&errs);
        assert_non_null(strstr(s, "metadata.labels: Invalid value: \"a b\""));
        assert_non_null(strstr(s, "spec.limits[0].default: Forbidden: may not be specified when "
                                  "`type` is 'Pod'"));
        field_error_list_release(&errs);
}

/* The hooks read the namespace's LimitRanges from the store. */
static void test_hooks(void **state)
{
        char dir[] = "/tmp/flexlet-test-limitranger.XXXXXX";
        cleanup_free char *db = NULL, *cmd = NULL;
        struct store *store = NULL;
        cleanup_json json_t *range = lr("[{'type':'Container','max':{'cpu':'1'},'default':{'cpu':"
                                        "'500m','memory':'128Mi'}},{'type':'PersistentVolumeClaim',"
                                        "'max':{'storage':'2Gi'}}]");
        cleanup_json json_t *pod = jparse("{'metadata':{'name':'p','namespace':'default'},"
                                          "'spec':{'containers':[{'name':'c'}]},'status':{"
                                          "'qosClass':'BestEffort'}}");
        cleanup_json json_t *other = jparse("{'metadata':{'name':'p','namespace':'other'},"
                                            "'spec':{'containers':[{'name':'c'}]}}");
        cleanup_json json_t *big = NULL, *old = NULL, *pvc = NULL, *old_pvc = NULL;
        cleanup_error struct error *err = NULL;

        assert_non_null(mkdtemp(dir));
        db = xasprintf("%s/store.db", dir);
        assert_int_equal(store_open_sqlite(db, &store, NULL), 0);
        limit_range_set_defaults(range);
        assert_int_equal(store_create(store, "limitranges", "default", "bounds", range, NULL), 0);

        /* create: defaults, the annotation, and the QoS class they make */
        assert_int_equal(limit_ranger_pod_admit(store, API_SUB_NONE, pod, NULL, NULL), 0);
        assert_string_equal(at_str(pod, "spec.containers", 0, "resources.requests.cpu"), "500m");
        assert_non_null(
                json_object_get(json_path(pod, "metadata.annotations"), LIMIT_RANGER_ANNOTATION));
        assert_string_equal(json_path_string(pod, "status.qosClass"), "Guaranteed");
        assert_int_equal(limit_ranger_pod_validate(store, API_SUB_NONE, pod, NULL, NULL), 0);
        /* another namespace has no LimitRange */
        assert_int_equal(limit_ranger_pod_admit(store, API_SUB_NONE, other, NULL, NULL), 0);
        assert_null(at(other, "spec.containers", 0, "resources"));

        /* a resize past the max is refused; a plain update is not the plugin's */
        old = json_deep_copy(pod);
        big = json_deep_copy(pod);
        json_object_set_new(at(big, "spec.containers", 0, "resources.limits"), "cpu",
                            json_string("2"));
        assert_int_equal(limit_ranger_pod_validate(store, API_SUB_RESIZE, big, old, &err), -EPERM);
        assert_string_equal(err->message, "maximum cpu usage per Container is 1, but limit is 2");
        assert_int_equal(limit_ranger_pod_validate(store, API_SUB_NONE, big, old, NULL), 0);
        assert_int_equal(limit_ranger_pod_validate(store, API_SUB_STATUS, big, old, NULL), 0);
        /* nor an object being deleted */
        json_object_set_new(json_object_get(old, "metadata"), "deletionTimestamp",
                            json_string("2025-01-01T00:00:00Z"));
        assert_int_equal(limit_ranger_pod_validate(store, API_SUB_RESIZE, big, old, NULL), 0);

        /* claims: on create and on every update of the claim itself */
        pvc = jparse("{'metadata':{'name':'c','namespace':'default'},'spec':{'resources':{"
                     "'requests':{'storage':'5Gi'}}}}");
        old_pvc = jparse("{'metadata':{'name':'c','namespace':'default'},'spec':{'resources':{"
                         "'requests':{'storage':'1Gi'}}}}");
        error_free(TAKE_PTR(err));
        assert_int_equal(limit_ranger_pvc_validate(store, API_SUB_NONE, pvc, NULL, &err), -EPERM);
        assert_string_equal(err->message,
                            "maximum storage usage per PersistentVolumeClaim is 2Gi, but request "
                            "is 5Gi");
        assert_int_equal(limit_ranger_pvc_validate(store, API_SUB_NONE, pvc, old_pvc, NULL),
                         -EPERM);
        assert_int_equal(limit_ranger_pvc_validate(store, API_SUB_STATUS, pvc, old_pvc, NULL), 0);
        assert_int_equal(limit_ranger_pvc_validate(store, API_SUB_NONE, old_pvc, NULL, NULL), 0);

        store_close(store);
        cmd = xasprintf("rm -rf '%s'", dir);
        assert_int_equal(system(cmd), 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_defaults),        cmocka_unit_test(test_pod_messages),
                cmocka_unit_test(test_pvc_messages),    cmocka_unit_test(test_aggregate),
                cmocka_unit_test(test_set_defaults),    cmocka_unit_test(test_validate),
                cmocka_unit_test(test_validate_update), cmocka_unit_test(test_hooks),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
