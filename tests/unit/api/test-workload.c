/* test-workload.c: the arithmetic the Deployment and ReplicaSet controllers share (api/workload.c
 * and the pure parts of controllers/deployment.c and replicaset.c): the pod-template-hash (its
 * alphabet, stability, sensitivity to the template and to collisionCount), maxSurge and
 * maxUnavailable resolved as upstream's ResolveFenceposts rounds them, NewRSNewReplicas, the
 * template comparison that ignores the hash label, and ReplicaSet validation's messages. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/field-error.h"
#include "api/validation.h"
#include "api/workload.h"
#include "base/alloc.h"
#include "base/json.h"
#include "controllers/deployment.h"
#include "controllers/replicaset.h"

static json_t *jparse(const char *s)
{
        char *dup = xstrdup(s);
        json_error_t e;
        json_t *v;

        for (char *p = dup; *p; p++)
                if (*p == '\'')
                        *p = '"';
        v = json_loads(dup, JSON_DECODE_ANY, &e);
        if (!v)
                fail_msg("bad test json: %s: %s", e.text, dup);
        free(dup);
        return v;
}

static void test_template_hash(void **state)
{
        cleanup_json json_t *a = jparse("{'metadata':{'labels':{'app':'web'}},'spec':{'containers':"
                                        "[{'name':'c','image':'busybox'}]}}");
        cleanup_json json_t *a2 = jparse("{'spec':{'containers':[{'image':'busybox','name':'c'}]},"
                                         "'metadata':{'labels':{'app':'web'}}}");
        cleanup_json json_t *b = jparse("{'metadata':{'labels':{'app':'web'}},'spec':{'containers':"
                                        "[{'name':'c','image':'busybox:1.36'}]}}");
        cleanup_free char *ha = workload_template_hash(a, NULL);
        cleanup_free char *ha2 = workload_template_hash(a2, NULL);
        cleanup_free char *hb = workload_template_hash(b, NULL);
        int32_t one = 1, zero = 0;
        cleanup_free char *hc1 = workload_template_hash(a, &one);
        cleanup_free char *hc0 = workload_template_hash(a, &zero);

        (void) state;
        /* K8S: rand.SafeEncodeString of a uint32's decimal: 1 to 10 characters of the
         * vowel-free alphabet */
        assert_true(strlen(ha) >= 1 && strlen(ha) <= 10);
        assert_int_equal(strspn(ha, "bcdfghjklmnpqrstvwxz2456789"), strlen(ha));
        /* the same template in another key order is the same hash */
        assert_string_equal(ha, ha2);
        /* any change is another hash; so is a collision count, and a zero count is not none */
        assert_string_not_equal(ha, hb);
        assert_string_not_equal(ha, hc1);
        assert_string_not_equal(ha, hc0);
        assert_string_not_equal(hc0, hc1);
}

static void test_scaled_value(void **state)
{
        static const struct {
                const char *v; /* JSON */
                int total;
                bool up;
                int want;
                int rc;
        } cases[] = {
                { "3", 10, true, 3, 0 },          { "'25%'", 10, true, 3, 0 },
                { "'25%'", 10, false, 2, 0 },     { "'25%'", 4, false, 1, 0 },
                { "'25%'", 1, true, 1, 0 },       { "'25%'", 1, false, 0, 0 },
                { "'100%'", 7, false, 7, 0 },     { "'0%'", 7, true, 0, 0 },
                { "'33%'", 3, true, 1, 0 },       { "'33%'", 3, false, 0, 0 },
                { "'x%'", 3, true, 0, -EINVAL },  { "'25'", 3, true, 0, -EINVAL },
                { "'-5%'", 3, true, 0, -EINVAL },
        };

        (void) state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                cleanup_json json_t *v = jparse(cases[i].v);
                int got = -1;
                int rc = workload_scaled_value(v, cases[i].total, cases[i].up, &got);

                assert_int_equal(rc, cases[i].rc);
                if (rc == 0)
                        assert_int_equal(got, cases[i].want);
        }
}

static void test_fenceposts(void **state)
{
        static const struct {
                const char *surge, *unavailable;
                int desired, want_surge, want_unavailable;
        } cases[] = {
                /* K8S: the defaults: surge rounds up, unavailable down */
                { "'25%'", "'25%'", 3, 1, 0 },
                { "'25%'", "'25%'", 5, 2, 1 },
                { "'25%'", "'25%'", 10, 3, 2 },
                { "'25%'", "'25%'", 0, 0, 1 },
                /* both resolving to zero: maxUnavailable becomes 1 */
                { "0", "'10%'", 5, 0, 1 },
                { "0", "0", 3, 0, 1 },
                { "1", "0", 3, 1, 0 },
                { "'50%'", "'50%'", 1, 1, 0 },
                { "2", "3", 10, 2, 3 },
        };

        (void) state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                cleanup_json json_t *s = jparse(cases[i].surge);
                cleanup_json json_t *u = jparse(cases[i].unavailable);
                int gs = -1, gu = -1;

                assert_int_equal(workload_resolve_fenceposts(s, u, cases[i].desired, &gs, &gu), 0);
                assert_int_equal(gs, cases[i].want_surge);
                assert_int_equal(gu, cases[i].want_unavailable);
        }
}

static void test_new_rs_replicas(void **state)
{
        (void) state;
        /* K8S: NewRSNewReplicas: up to replicas + maxSurge pods in all, never past replicas */
        assert_int_equal(deployment_new_rs_replicas(5, 2, 5, 0), 2);
        assert_int_equal(deployment_new_rs_replicas(5, 2, 7, 2), 2);
        assert_int_equal(deployment_new_rs_replicas(5, 2, 6, 2), 3);
        assert_int_equal(deployment_new_rs_replicas(3, 1, 3, 0), 1);
        assert_int_equal(deployment_new_rs_replicas(3, 5, 3, 0), 3);
        assert_int_equal(deployment_new_rs_replicas(3, 0, 2, 2), 3);
}

static void test_template_equal(void **state)
{
        cleanup_json json_t *d = jparse("{'metadata':{'labels':{'app':'web'}},'spec':{'containers':"
                                        "[{'name':'c','image':'busybox','resources':{}}]}}");
        cleanup_json json_t *rs =
                jparse("{'metadata':{'labels':{'app':'web','pod-template-hash':'abc'}},'spec':"
                       "{'containers':[{'name':'c','image':'busybox'}]}}");
        cleanup_json json_t *other = jparse(
                "{'metadata':{'labels':{'app':'web','pod-template-hash':'abc'}},'spec':"
                "{'containers':[{'name':'c','image':'busybox','resources':{'limits':{'cpu':'1'}}}]}}");

        (void) state;
        assert_true(deployment_template_equal(d, rs));
        /* a change of the template's resources is another template: a rollout */
        assert_false(deployment_template_equal(d, other));
}

static void test_rs_status_and_ranking(void **state)
{
        cleanup_json json_t *rs = jparse("{'metadata':{'generation':3},'spec':{'replicas':3,"
                                         "'minReadySeconds':10,'template':{'metadata':{'labels':"
                                         "{'app':'web','tier':'fe'}}}}}");
        cleanup_json json_t *pods = jparse(
                "[{'metadata':{'name':'a','labels':{'app':'web','tier':'fe'},"
                "'creationTimestamp':'2026-01-01T00:00:00Z'},'spec':{'nodeName':'n'},"
                "'status':{'phase':'Running','conditions':[{'type':'Ready','status':'True',"
                "'lastTransitionTime':'2026-01-01T00:00:00Z'}]}},"
                "{'metadata':{'name':'b','labels':{'app':'web'},"
                "'creationTimestamp':'2026-01-01T00:00:01Z'},'spec':{'nodeName':'n'},"
                "'status':{'phase':'Running','conditions':[{'type':'Ready','status':'True',"
                "'lastTransitionTime':'2026-01-01T00:00:55Z'}]}},"
                "{'metadata':{'name':'c','labels':{'app':'web','tier':'fe'},"
                "'creationTimestamp':'2026-01-01T00:00:02Z'},'spec':{},'status':{'phase':'Pending'}}]");
        cleanup_json json_t *status = NULL;
        long recheck = 0;
        time_t now = 1767225660; /* 2026-01-01T00:01:00Z */

        (void) state;
        status = replicaset_status(rs, pods, now, &recheck);
        assert_int_equal(json_integer_value(json_object_get(status, "replicas")), 3);
        assert_int_equal(json_integer_value(json_object_get(status, "fullyLabeledReplicas")), 2);
        assert_int_equal(json_integer_value(json_object_get(status, "readyReplicas")), 2);
        /* b has been Ready for 5 s of its 10: not yet available, looked at again in 5 s */
        assert_int_equal(json_integer_value(json_object_get(status, "availableReplicas")), 1);
        assert_int_equal(json_integer_value(json_object_get(status, "observedGeneration")), 3);
        assert_int_equal(recheck, 5);

        /* unscheduled first, then not Ready, then Ready for less time */
        replicaset_rank_for_deletion(pods);
        assert_string_equal(json_path_string(json_array_get(pods, 0), "metadata.name"), "c");
        assert_string_equal(json_path_string(json_array_get(pods, 1), "metadata.name"), "b");
        assert_string_equal(json_path_string(json_array_get(pods, 2), "metadata.name"), "a");
}

static char *errors_of(const json_t *obj, bool deployment)
{
        struct field_error_list errs;
        char *s;

        field_error_list_init(&errs);
        if (deployment)
                (void) validate_deployment(obj, true, &errs);
        else
                (void) validate_replica_set(obj, true, &errs);
        s = errs.n ? field_error_list_string(&errs) : xstrdup("");
        field_error_list_release(&errs);
        return s;
}

static void test_validation(void **state)
{
        static const struct {
                bool deployment;
                const char *obj;
                const char *want;
        } cases[] = {
                { false,
                  "{'metadata':{'name':'a','namespace':'d'},'spec':{'replicas':1,'selector':"
                  "{'matchLabels':{'app':'x'}},'template':{'metadata':{'labels':{'app':'y'}},"
                  "'spec':{'restartPolicy':'Always','dnsPolicy':'ClusterFirst',"
                  "'terminationGracePeriodSeconds':30,'containers':[{'name':'c','image':'i',"
                  "'imagePullPolicy':'Always','terminationMessagePolicy':'File'}]}}}}",
                  "spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"y\"}: "
                  "`selector` does not match template `labels`" },
                { false,
                  "{'metadata':{'name':'a','namespace':'d'},'spec':{'replicas':-1,'template':{}}}",
                  "[spec.replicas: Invalid value: -1: must be greater than or equal to 0, "
                  "spec.selector: Required value]" },
                { true,
                  "{'metadata':{'name':'a','namespace':'d'},'spec':{'replicas':1,'selector':"
                  "{'matchLabels':{'app':'x'}},'strategy':{'type':'Recreate','rollingUpdate':{}},"
                  "'progressDeadlineSeconds':5,'minReadySeconds':5,'template':{'metadata':"
                  "{'labels':{'app':'x'}},'spec':{'restartPolicy':'Never','dnsPolicy':"
                  "'ClusterFirst','terminationGracePeriodSeconds':30,'containers':[{'name':'c',"
                  "'image':'i','imagePullPolicy':'Always','terminationMessagePolicy':'File'}]}}}}",
                  "[spec.template.spec.restartPolicy: Unsupported value: \"Never\": supported "
                  "values: \"Always\", spec.strategy.rollingUpdate: Forbidden: may not be specified "
                  "when strategy `type` is 'Recreate', spec.progressDeadlineSeconds: Invalid "
                  "value: 5: must be greater than minReadySeconds]" },
                { true,
                  "{'metadata':{'name':'a','namespace':'d'},'spec':{'replicas':1,'selector':"
                  "{'matchLabels':{'app':'x'}},'strategy':{'type':'RollingUpdate','rollingUpdate':"
                  "{'maxSurge':0,'maxUnavailable':'0%'}},'template':{'metadata':{'labels':"
                  "{'app':'x'}},'spec':{'restartPolicy':'Always','dnsPolicy':'ClusterFirst',"
                  "'terminationGracePeriodSeconds':30,'containers':[{'name':'c','image':'i',"
                  "'imagePullPolicy':'Always','terminationMessagePolicy':'File'}]}}}}",
                  "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: \"0%\": may not be 0 "
                  "when `maxSurge` is 0" },
        };

        (void) state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                cleanup_json json_t *obj = jparse(cases[i].obj);
                cleanup_free char *got = errors_of(obj, cases[i].deployment);

                assert_string_equal(got, cases[i].want);
        }
}

/* Issue 12: the difference between a resized pod's running resources and its template. */
static void test_resize_diff(void **state)
{
        cleanup_json json_t *tmpl = jparse(
                "{'spec':{'containers':[{'name':'c','resources':{'requests':{'cpu':'100m','memory':'64Mi'},'limits':{'cpu':'200m'}}}]}}");
        cleanup_json json_t *same = jparse(
                "{'status':{'containerStatuses':[{'name':'c','resources':{'requests':{'cpu':'0.1','memory':'64Mi'},'limits':{'cpu':'200m'}}}]}}");
        cleanup_json json_t *resized = jparse(
                "{'status':{'containerStatuses':[{'name':'c','resources':{'requests':{'cpu':'150m','memory':'64Mi'},'limits':{'cpu':'300m','memory':'128Mi'}}}]}}");
        cleanup_json json_t *unreported = jparse("{'status':{'containerStatuses':[{'name':'c'}]}}");
        cleanup_free char *d1 = workload_pod_resize_diff(tmpl, same);
        cleanup_free char *d2 = workload_pod_resize_diff(tmpl, resized);
        cleanup_free char *d3 = workload_pod_resize_diff(tmpl, unreported);

        (void) state;
        assert_null(d1); /* 0.1 is 100m */
        assert_string_equal(d2, "c requests.cpu 150m (template 100m), c limits.cpu 300m (template "
                                "200m), c limits.memory 128Mi (template none)");
        assert_null(d3);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_template_hash),  cmocka_unit_test(test_scaled_value),
                cmocka_unit_test(test_fenceposts),     cmocka_unit_test(test_new_rs_replicas),
                cmocka_unit_test(test_template_equal), cmocka_unit_test(test_rs_status_and_ranking),
                cmocka_unit_test(test_validation),     cmocka_unit_test(test_resize_diff),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
