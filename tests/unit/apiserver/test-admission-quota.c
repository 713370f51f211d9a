/* test-admission-quota.c: the ResourceQuota arithmetic (what pods, claims and other objects
 * charge, the KEP-1287 resize rule, scopes), the admission's messages and their sorting, the
 * controller's recomputation, and the admission hook over a real store (charged with a
 * compare-and-swap, nothing charged on a refusal or a dry run). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/quota.h"
#include "apiserver/admission-quota.h"
#include "base/alloc.h"
#include "base/json.h"
#include "controllers/resourcequota.h"
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

static void assert_list(const json_t *l, const char *want)
{
        cleanup_free char *got = quota_list_pretty(l);

        assert_string_equal(got, want);
}

static const char *const two_containers =
        "{'metadata':{'name':'p','namespace':'ns'},'spec':{'containers':["
        "{'name':'a','resources':{'requests':{'cpu':'250m','memory':'64Mi'},'limits':{'cpu':'1','memory':'128Mi'}}},"
        "{'name':'b','resources':{'requests':{'cpu':'250m','memory':'64Mi','example.com/gpu':'1'}}}],"
        "'initContainers':[{'name':'i','resources':{'requests':{'cpu':'2'}}}]}}";

/* K8S: PodUsageFunc/podComputeUsageHelper: requests as both cpu and requests.cpu, limits only
 * where set (a sum over the containers that set them), init containers by max, extended
 * resources as requests.<name> */
static void test_pod_usage(void **state)
{
        cleanup_json json_t *pod = jparse(two_containers);
        cleanup_json json_t *u = quota_usage("", "pods", pod, 0);

        assert_list(u, "count/pods=1,cpu=2,limits.cpu=1,limits.memory=128Mi,memory=128Mi,pods=1,"
                       "requests.cpu=2,requests.example.com/gpu=1,requests.memory=128Mi");
        /* K8S: QuotaV1Pod: a terminal pod charges only its count */
        json_object_set_new(pod, "status", json_pack("{s:s}", "phase", "Succeeded"));
        json_decref(u);
        u = quota_usage("", "pods", pod, 0);
        assert_list(u, "count/pods=1");
}

/* K8S: determineContainerReqs: the larger of spec, status.resources and allocatedResources;
 * only the status when the resize is Infeasible */
static void test_pod_usage_resize(void **state)
{
        cleanup_json json_t *pod = jparse(
                "{'spec':{'containers':[{'name':'c','resources':{'requests':{'cpu':'200m'},'limits':{'cpu':'400m'}}}]},"
                "'status':{'containerStatuses':[{'name':'c','allocatedResources':{'cpu':'500m'},"
                "'resources':{'requests':{'cpu':'300m'},'limits':{'cpu':'1'}}}]}}");
        cleanup_json json_t *old = NULL, *u = quota_usage("", "pods", pod, 0), *d = NULL;

        assert_list(u, "count/pods=1,cpu=500m,limits.cpu=1,pods=1,requests.cpu=500m");
        json_object_set_new(
                json_object_get(pod, "status"), "conditions",
                json_pack("[{s:s, s:s}]", "type", "PodResizePending", "reason", "Infeasible"));
        json_object_set_new(json_path(pod, "spec.containers.0.resources.requests"), "cpu",
                            json_string("900m"));
        json_decref(u);
        u = quota_usage("", "pods", pod, 0);
        assert_list(u, "count/pods=1,cpu=500m,limits.cpu=1,pods=1,requests.cpu=500m");

        /* a resize's delta: what the new pod charges beyond the old, never negative */
        old = jparse(
                "{'spec':{'containers':[{'name':'c','resources':{'requests':{'cpu':'500m'}}}]}}");
        json_decref(pod);
        pod = jparse(
                "{'spec':{'containers':[{'name':'c','resources':{'requests':{'cpu':'600m'}}}]}}");
        d = quota_delta("", "pods", pod, old, 0);
        assert_list(d, "cpu=100m,requests.cpu=100m");
        json_decref(d);
        d = quota_delta("", "pods", old, pod, 0);
        assert_int_equal(json_object_size(d), 0);
}

/* K8S: pvcEvaluator.Usage: count, storage rounded up, per class; the larger of request and
 * allocatedResources */
static void test_pvc_usage(void **state)
{
        cleanup_json json_t *pvc = jparse(
                "{'spec':{'storageClassName':'gold','resources':{'requests':{'storage':'1Gi'}}},"
                "'status':{'allocatedResources':{'storage':'2Gi'}}}");
        cleanup_json json_t *u = quota_usage("", "persistentvolumeclaims", pvc, 0);
        cleanup_json json_t *cm = quota_usage("", "configmaps", pvc, 0);
        cleanup_json json_t *sa = quota_usage("", "serviceaccounts", pvc, 0);

        assert_list(u, "count/persistentvolumeclaims=1,"
                       "gold.storageclass.storage.k8s.io/persistentvolumeclaims=1,"
                       "gold.storageclass.storage.k8s.io/requests.storage=2Gi,"
                       "persistentvolumeclaims=1,requests.storage=2Gi");
        assert_list(cm, "configmaps=1,count/configmaps=1");
        assert_list(sa, "count/serviceaccounts=1");
        assert_true(quota_resource_tracks("", "persistentvolumeclaims",
                                          "gold.storageclass.storage.k8s.io/requests.storage"));
        assert_false(quota_resource_tracks("", "pods", "requests.storage"));
        assert_true(quota_resource_tracks("apps", "deployments", "count/deployments.apps"));
        assert_true(quota_resource_ignored("", "events"));
}

static void test_handles(void **state)
{
        cleanup_json json_t *a = jparse("{'spec':{}}");
        cleanup_json json_t *b = jparse("{'spec':{'activeDeadlineSeconds':10}}");

        assert_true(quota_handles("", "pods", "", a, NULL));
        assert_false(quota_handles("", "pods", "", a, a));
        assert_true(quota_handles("", "pods", "", b, a)); /* Terminating scope flips */
        assert_true(quota_handles("", "pods", "resize", a, a));
        assert_false(quota_handles("", "pods", "status", a, a));
        assert_true(quota_handles("", "persistentvolumeclaims", "", a, a));
        assert_false(quota_handles("", "persistentvolumeclaims", "status", a, a));
        assert_false(quota_handles("", "configmaps", "", a, a));
        assert_false(quota_handles("", "events", "", a, NULL));
}

static json_t *quota(const char *spec, const char *hard, const char *used)
{
        cleanup_free char *s = xasprintf(
                "{'metadata':{'name':'q','namespace':'ns','resourceVersion':'1'},'spec':%s,"
                "'status':{'hard':%s,'used':%s}}",
                spec, hard, used);

        return jparse(s);
}

/* K8S: checkRequest's messages: names sorted, only the exceeded ones */
static void test_check_messages(void **state)
{
        cleanup_json json_t *q =
                quota("{'hard':{'requests.cpu':'1','requests.memory':'1Gi','pods':'10'}}",
                      "{'requests.cpu':'1','requests.memory':'1Gi','pods':'10'}",
                      "{'requests.cpu':'1','requests.memory':'512Mi','pods':'2'}");
        cleanup_json json_t *pod = jparse(
                "{'spec':{'containers':[{'name':'c','resources':{'requests':{'cpu':'500m','memory':'768Mi'}}}]}}");
        cleanup_json json_t *bare = jparse(
                "{'spec':{'containers':[{'name':'z'},{'name':'a','resources':{'requests':{'cpu':'1'}}}],"
                "'initContainers':[{'name':'i'}]}}");
        cleanup_json json_t *delta = quota_delta("", "pods", pod, NULL, 0);
        cleanup_json json_t *used = NULL, *nostat = NULL;
        cleanup_error struct error *err = NULL;

        assert_int_equal(quota_check(q, "", "pods", pod, delta, &used, &err), -EPERM);
        assert_string_equal(
                err->message,
                "exceeded quota: q, requested: requests.cpu=500m,requests.memory=768Mi, "
                "used: requests.cpu=1,requests.memory=512Mi, limited: "
                "requests.cpu=1,requests.memory=1Gi");
        assert_null(used);
        err = error_free(err);
        assert_int_equal(quota_check(q, "", "pods", bare, delta, &used, &err), -EPERM);
        assert_string_equal(err->message, "failed quota: q: must specify requests.cpu for: i,z; "
                                          "requests.memory for: a,i,z");
        err = error_free(err);

        /* a quota the controller has not counted yet refuses what it tracks */
        nostat = quota("{'hard':{'pods':'1','requests.cpu':'1'}}",
                       "{'pods':'1','requests.cpu':'1'}", "{}");
        assert_int_equal(quota_check(nostat, "", "pods", pod, delta, &used, &err), -EPERM);
        assert_string_equal(err->message,
                            "status unknown for quota: q, resources: pods,requests.cpu");
        err = error_free(err);

        /* room: the new used is the old plus what is requested, in canonical form */
        json_object_set_new(json_path(q, "status.hard"), "requests.cpu", json_string("2"));
        json_object_set_new(json_path(q, "status.hard"), "requests.memory", json_string("2Gi"));
        assert_int_equal(quota_check(q, "", "pods", pod, delta, &used, &err), 0);
        assert_list(used, "pods=3,requests.cpu=1500m,requests.memory=1280Mi");
        json_decref(used);
        /* a ConfigMap is not counted by this quota */
        assert_int_equal(quota_check(q, "", "configmaps", pod, delta, &used, NULL), 0);
        assert_null(used);
}

static void test_scopes(void **state)
{
        cleanup_json json_t *best = jparse("{'spec':{'containers':[{'name':'c'}]}}");
        cleanup_json json_t *term = jparse(
                "{'spec':{'activeDeadlineSeconds':5,'priorityClassName':'high','containers':["
                "{'name':'c','resources':{'requests':{'cpu':'1'}}}]}}");
        cleanup_json json_t *q1 =
                quota("{'scopes':['BestEffort']}", "{'pods':'1'}", "{'pods':'0'}");
        cleanup_json json_t *q2 =
                quota("{'scopes':['Terminating','NotBestEffort']}", "{'pods':'1'}", "{'pods':'0'}");
        cleanup_json json_t *q3 = quota(
                "{'scopeSelector':{'matchExpressions':[{'scopeName':'PriorityClass','operator':'In','values':['high']}]}}",
                "{'pods':'1'}", "{'pods':'0'}");
        cleanup_json json_t *q4 = quota(
                "{'scopeSelector':{'matchExpressions':[{'scopeName':'PriorityClass','operator':'NotIn','values':['high']}]}}",
                "{'pods':'1'}", "{'pods':'0'}");

        assert_true(quota_matches(q1, "", "pods", best));
        assert_false(quota_matches(q1, "", "pods", term));
        assert_false(quota_matches(q2, "", "pods", best));
        assert_true(quota_matches(q2, "", "pods", term));
        assert_true(quota_matches(q3, "", "pods", term));
        assert_false(quota_matches(q3, "", "pods", best));
        assert_true(quota_matches(q4, "", "pods", best)); /* no class: the label is absent */
        assert_false(quota_matches(q4, "", "pods", term));
        /* K8S: MatchesNoScopeFunc: a scoped quota never counts other kinds */
        assert_false(quota_matches(q1, "", "configmaps", best));
}

/* K8S: syncResourceQuota: hard from spec, used recomputed over the namespace's objects */
static void test_controller_status(void **state)
{
        cleanup_json json_t *q = jparse(
                "{'metadata':{'name':'q','namespace':'ns'},'spec':{'hard':{'requests.cpu':'2','count/configmaps':'5','services':'1'}}}");
        cleanup_json json_t *pods = jparse(
                "{'ns/a':{'metadata':{'namespace':'ns'},'spec':{'containers':[{'name':'c','resources':{'requests':{'cpu':'300m'}}}]}},"
                "'ns/b':{'metadata':{'namespace':'ns'},'spec':{'containers':[{'name':'c','resources':{'requests':{'cpu':'1200m'}}}]}},"
                "'other/c':{'metadata':{'namespace':'other'},'spec':{'containers':[{'name':'c','resources':{'requests':{'cpu':'7'}}}]}},"
                "'ns/d':{'metadata':{'namespace':'ns'},'spec':{'containers':[{'name':'c','resources':{'requests':{'cpu':'7'}}}]},'status':{'phase':'Failed'}}}");
        cleanup_json json_t *cms = jparse("{'ns/x':{'metadata':{'namespace':'ns'}}}");
        const struct quota_collection cols[] = {
                { "", "pods", pods },
                { "", "configmaps", cms },
        };
        cleanup_json json_t *st = resourcequota_status(q, cols, 2, 0);

        assert_non_null(st);
        assert_list(json_object_get(st, "hard"), "count/configmaps=5,requests.cpu=2,services=1");
        assert_list(json_object_get(st, "used"),
                    "count/configmaps=1,requests.cpu=1500m,services=0");
        json_object_set(q, "status", st);
        assert_null(resourcequota_status(q, cols, 2, 0));
}

/* The hook over a real store: charged with a compare-and-swap, not on a refusal or a dry run. */
static void test_admit_store(void **state)
{
        char dir[] = "/tmp/flexlet-quota-XXXXXX";
        cleanup_free char *db = NULL, *cmd = NULL;
        const struct api_resource pods = { .group = "", .plural = "pods", .namespaced = true };
        cleanup_json json_t *q = quota("{'hard':{'requests.cpu':'1'}}", "{'requests.cpu':'1'}",
                                       "{'requests.cpu':'0'}");
        cleanup_json json_t *pod = jparse(
                "{'spec':{'containers':[{'name':'c','resources':{'requests':{'cpu':'600m'}}}]}}");
        json_t *stored = NULL;
        cleanup_error struct error *err = NULL;
        struct store *store = NULL;

        assert_non_null(mkdtemp(dir));
        db = xasprintf("%s/db", dir);
        assert_int_equal(store_open_sqlite(db, &store, NULL), 0);
        json_object_del(json_object_get(q, "metadata"), "resourceVersion");
        assert_int_equal(store_create(store, "resourcequotas", "ns", "q", q, NULL), 0);

        assert_int_equal(
                resource_quota_admit(store, &pods, "ns", API_SUB_NONE, pod, NULL, true, NULL), 0);
        assert_int_equal(store_get(store, "resourcequotas", "ns", "q", &stored, NULL), 0);
        assert_string_equal(json_string_value(json_object_get(json_path(stored, "status.used"),
                                                              "requests.cpu")),
                            "0");
        json_decref(stored);
        assert_int_equal(
                resource_quota_admit(store, &pods, "ns", API_SUB_NONE, pod, NULL, false, NULL), 0);
        assert_int_equal(store_get(store, "resourcequotas", "ns", "q", &stored, NULL), 0);
        assert_string_equal(json_string_value(json_object_get(json_path(stored, "status.used"),
                                                              "requests.cpu")),
                            "600m");
        json_decref(stored);
        assert_int_equal(
                resource_quota_admit(store, &pods, "ns", API_SUB_NONE, pod, NULL, false, &err),
                -EPERM);
        assert_string_equal(err->message, "exceeded quota: q, requested: requests.cpu=600m, used: "
                                          "requests.cpu=600m, limited: requests.cpu=1");
        err = error_free(err);

        /* K8S: CheckRequest on an update: a quota that did not count the old pod (its
         * Terminating scope now matches) is charged the whole usage */
        {
                cleanup_json json_t *t = quota("{'hard':{'pods':'1'},'scopes':['Terminating']}",
                                               "{'pods':'1'}", "{'pods':'0'}");
                cleanup_json json_t *dl = json_deep_copy(pod);
                json_object_del(json_object_get(t, "metadata"), "resourceVersion");
                json_object_set_new(json_object_get(t, "metadata"), "name", json_string("t"));
                assert_int_equal(store_create(store, "resourcequotas", "ns", "t", t, NULL), 0);
                json_object_set_new(json_object_get(dl, "spec"), "activeDeadlineSeconds",
                                    json_integer(30));
                assert_int_equal(resource_quota_admit(store, &pods, "ns", API_SUB_NONE, dl, pod,
                                                      false, &err),
                                 0);
                assert_int_equal(store_get(store, "resourcequotas", "ns", "t", &stored, NULL), 0);
                assert_string_equal(json_string_value(json_object_get(
                                            json_path(stored, "status.used"), "pods")),
                                    "1");
                json_decref(stored);
        }
        /* another namespace has no quota */
        assert_int_equal(
                resource_quota_admit(store, &pods, "free", API_SUB_NONE, pod, NULL, false, NULL),
                0);

        store_close(store);
        cmd = xasprintf("rm -rf '%s'", dir);
        assert_int_equal(system(cmd), 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_pod_usage),         cmocka_unit_test(test_pod_usage_resize),
                cmocka_unit_test(test_pvc_usage),         cmocka_unit_test(test_handles),
                cmocka_unit_test(test_check_messages),    cmocka_unit_test(test_scopes),
                cmocka_unit_test(test_controller_status), cmocka_unit_test(test_admit_store),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
