/* test-statefulset.c: the identity rules of a StatefulSet's pods and claims (api/statefulset.c):
 * ordinal names parsed as upstream's regex does, membership and the ordinal range, the pod a
 * template makes (name, labels, hostname, subdomain, the claims' volumes, the controller
 * reference), the claims, identity and storage matching, the revision's data and name, the
 * claims' owners under each retention policy, and StatefulSet defaults and validation messages
 * (api/validation-statefulset.c). */
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
#include "api/statefulset.h"
#include "api/validation.h"
#include "base/alloc.h"
#include "base/json.h"

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

#define STS                                                                           \
 "{'metadata':{'name':'web','namespace':'ns','uid':'set-uid'},"                       \
 "'spec':{'replicas':3,'serviceName':'svc','selector':{'matchLabels':{'app':'web'}}," \
 "'template':{'metadata':{'labels':{'app':'web'},'annotations':{'a':'b'}},"           \
 "'spec':{'containers':[{'name':'c','image':'busybox'}],"                             \
 "'volumes':[{'name':'data','emptyDir':{}},{'name':'cache','emptyDir':{}}]}},"        \
 "'volumeClaimTemplates':[{'metadata':{'name':'data','labels':{'tier':'db'}},"        \
 "'spec':{'resources':{'requests':{'storage':'1Gi'}}},'status':{'phase':'Pending'}}]"

static void test_parse_pod_name(void **state)
{
        static const struct {
                const char *name;
                int r;
                const char *parent;
                int ordinal;
        } cases[] = {
                { "web-0", 0, "web", 0 },
                { "web-12", 0, "web", 12 },
                { "my-web-3", 0, "my-web", 3 },
                { "web-", -EINVAL, NULL, 0 },
                { "web", -EINVAL, NULL, 0 },
                { "web-1a", -EINVAL, NULL, 0 },
                { "web-2147483647", 0, "web", 2147483647 },
                { "web-2147483648", -EINVAL, NULL, 0 }, /* K8S: ParseInt(.., 32) fails */
                { "-4", 0, "", 4 },
        };

        (void) state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                char *parent = NULL;
                int ordinal = -1;
                int r = statefulset_parse_pod_name(cases[i].name, &parent, &ordinal);

                assert_int_equal(r, cases[i].r);
                if (r == 0) {
                        assert_string_equal(parent, cases[i].parent);
                        assert_int_equal(ordinal, cases[i].ordinal);
                }
                free(parent);
        }
}

static void test_membership_and_range(void **state)
{
        json_t *sts = jparse(STS "}}");
        json_t *pod = jparse("{'metadata':{'name':'web-2'}}");
        json_t *other = jparse("{'metadata':{'name':'webx-2'}}");
        char *n;

        (void) state;
        assert_int_equal(statefulset_pod_ordinal(sts, pod), 2);
        assert_int_equal(statefulset_pod_ordinal(sts, other), -1);
        assert_true(statefulset_ordinal_in_range(sts, 0));
        assert_true(statefulset_ordinal_in_range(sts, 2));
        assert_false(statefulset_ordinal_in_range(sts, 3));
        assert_false(statefulset_ordinal_in_range(sts, -1));
        /* K8S: spec.ordinals.start shifts the range */
        json_object_set_new(json_object_get(sts, "spec"), "ordinals", jparse("{'start':5}"));
        assert_int_equal(statefulset_start_ordinal(sts), 5);
        assert_false(statefulset_ordinal_in_range(sts, 2));
        assert_true(statefulset_ordinal_in_range(sts, 7));
        assert_false(statefulset_ordinal_in_range(sts, 8));
        n = statefulset_pod_name("web", 7);
        assert_string_equal(n, "web-7");
        free(n);
        n = statefulset_claim_name("data", "web", 7);
        assert_string_equal(n, "data-web-7");
        free(n);
        json_decref(sts);
        json_decref(pod);
        json_decref(other);
}

static void test_new_pod(void **state)
{
        json_t *sts = jparse(STS "}}");
        json_t *pod = statefulset_new_pod(sts, json_path(sts, "spec.template"), 1, "web-abc");
        char *text = json_dumps(pod, JSON_SORT_KEYS | JSON_COMPACT);

        (void) state;
        /* the claim template's volume replaces the template's emptyDir of the same name; the
         * others follow */
        assert_string_equal(
                text,
                "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"annotations\":{\"a\":\"b\"},"
                "\"labels\":{\"app\":\"web\",\"apps.kubernetes.io/pod-index\":\"1\","
                "\"controller-revision-hash\":\"web-abc\","
                "\"statefulset.kubernetes.io/pod-name\":\"web-1\"},\"name\":\"web-1\","
                "\"namespace\":\"ns\",\"ownerReferences\":[{\"apiVersion\":\"apps/v1\","
                "\"blockOwnerDeletion\":true,\"controller\":true,\"kind\":\"StatefulSet\","
                "\"name\":\"web\",\"uid\":\"set-uid\"}]},\"spec\":{\"containers\":[{\"image\":"
                "\"busybox\",\"name\":\"c\"}],\"hostname\":\"web-1\",\"subdomain\":\"svc\","
                "\"volumes\":[{\"name\":\"data\",\"persistentVolumeClaim\":{\"claimName\":"
                "\"data-web-1\"}},{\"emptyDir\":{},\"name\":\"cache\"}]}}");
        assert_true(statefulset_identity_matches(sts, pod));
        assert_true(statefulset_storage_matches(sts, pod));
        /* a pod without the pod-name label, or on another claim, does not match */
        json_object_del(json_path(pod, "metadata.labels"), STS_POD_NAME_LABEL);
        assert_false(statefulset_identity_matches(sts, pod));
        free(text);
        json_decref(pod);
        json_decref(sts);
}

static void test_storage_mismatch(void **state)
{
        json_t *sts = jparse(STS "}}");
        json_t *pod =
                jparse("{'metadata':{'name':'web-1','namespace':'ns'},'spec':{'volumes':"
                       "[{'name':'data','persistentVolumeClaim':{'claimName':'data-web-2'}}]}}");

        (void) state;
        assert_false(statefulset_storage_matches(sts, pod));
        json_decref(pod);
        json_decref(sts);
}

static void test_claims(void **state)
{
        json_t *sts = jparse(STS "}}");
        json_t *claims = statefulset_claims(sts, 2);
        char *text = json_dumps(claims, JSON_SORT_KEYS | JSON_COMPACT);

        (void) state;
        /* K8S: getPersistentVolumeClaims: the selector's matchLabels join the template's; the
         * template's status is not the claim's */
        assert_string_equal(text,
                            "{\"data\":{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolumeClaim\","
                            "\"metadata\":{\"labels\":{\"app\":\"web\",\"tier\":\"db\"},"
                            "\"name\":\"data-web-2\",\"namespace\":\"ns\"},\"spec\":{\"resources\":"
                            "{\"requests\":{\"storage\":\"1Gi\"}}}}}");
        free(text);
        json_decref(claims);
        json_decref(sts);
}

static void test_revision(void **state)
{
        json_t *sts = jparse(STS "}}");
        json_t *data = statefulset_revision_data(sts);
        json_t *tmpl = statefulset_revision_template(data);
        char *a = statefulset_revision_name("web", data, NULL);
        int32_t one = 1;
        char *b = statefulset_revision_name("web", data, &one);
        char *c;

        (void) state;
        assert_string_equal(json_string_value(json_path(data, "spec.template.$patch")), "replace");
        assert_true(json_equal(tmpl, json_path(sts, "spec.template")));
        assert_int_equal(strncmp(a, "web-", 4), 0);
        assert_true(strlen(a) > 4 && strlen(a) <= 14);
        /* the collision count moves the name; the same data keeps it */
        assert_string_not_equal(a, b);
        c = statefulset_revision_name("web", data, NULL);
        assert_string_equal(a, c);
        free(c);
        /* a template change is another revision */
        json_object_set_new(json_path(sts, "spec.template.metadata.annotations"), "x",
                            json_string("y"));
        json_decref(data);
        data = statefulset_revision_data(sts);
        c = statefulset_revision_name("web", data, NULL);
        assert_string_not_equal(a, c);
        free(a);
        free(b);
        free(c);
        json_decref(tmpl);
        json_decref(data);
        json_decref(sts);
}

/* The owners statefulset_claim_owner_refs gives, as "Kind/name" words. */
static char *owners(const char *when_deleted, const char *when_scaled, int ordinal,
                    const char *claim_refs)
{
        char sts_text[1024];
        json_t *sts, *pod, *claim, *refs, *ref;
        char *pod_text = xasprintf("{'metadata':{'name':'web-%d','uid':'pod-uid'}}", ordinal);
        char *claim_text = xasprintf("{'metadata':{'ownerReferences':%s}}", claim_refs);
        char buf[256] = "";
        size_t i;

        (void) snprintf(sts_text, sizeof(sts_text),
                        STS ",'persistentVolumeClaimRetentionPolicy':{'whenDeleted':'%s',"
                            "'whenScaled':'%s'}}}",
                        when_deleted, when_scaled);
        sts = jparse(sts_text);
        pod = jparse(pod_text);
        claim = jparse(claim_text);
        refs = statefulset_claim_owner_refs(claim, sts, pod);
        json_array_foreach(refs, i, ref) {
                size_t n = strlen(buf);
                (void) snprintf(buf + n, sizeof(buf) - n, "%s%s/%s%s", i ? " " : "",
                                json_string_value(json_object_get(ref, "kind")),
                                json_string_value(json_object_get(ref, "name")),
                                json_is_true(json_object_get(ref, "controller")) ? "!" : "");
        }
        json_decref(refs);
        json_decref(claim);
        json_decref(pod);
        json_decref(sts);
        free(pod_text);
        free(claim_text);
        return xstrdup(buf);
}

static void test_claim_owners(void **state)
{
        static const struct {
                const char *deleted, *scaled;
                int ordinal;
                const char *refs, *want;
        } cases[] = {
                /* K8S: updateClaimOwnerRefForSetAndPod's four policies, in range and scaled
                 * down ("!" marks a controller reference) */
                { "Retain", "Retain", 1, "[]", "" },
                { "Retain", "Retain", 5, "[]", "" },
                { "Delete", "Retain", 1, "[]", "StatefulSet/web!" },
                { "Delete", "Retain", 5, "[]", "StatefulSet/web!" },
                { "Retain", "Delete", 1, "[]", "" },
                { "Retain", "Delete", 5, "[]", "Pod/web-5!" },
                { "Delete", "Delete", 1, "[]", "StatefulSet/web!" },
                { "Delete", "Delete", 5, "[]", "Pod/web-5!" },
                /* Retain/Retain takes the set's reference away, keeps another owner's */
                { "Retain", "Retain", 1,
                  "[{'apiVersion':'apps/v1','kind':'StatefulSet','name':'web','uid':'set-uid',"
                  "'controller':true},{'apiVersion':'v1','kind':'ConfigMap','name':'x','uid':'u'}]",
                  "ConfigMap/x" },
                /* a stale reference (same name, another uid) leaves the claim as it is */
                { "Delete", "Retain", 1,
                  "[{'apiVersion':'apps/v1','kind':'StatefulSet','name':'web','uid':'old'}]",
                  "StatefulSet/web" },
                /* another controller: ours are not added */
                { "Delete", "Retain", 1,
                  "[{'apiVersion':'v1','kind':'Other','name':'o','uid':'o','controller':true}]",
                  "Other/o!" },
        };

        (void) state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                char *got =
                        owners(cases[i].deleted, cases[i].scaled, cases[i].ordinal, cases[i].refs);
                if (strcmp(got, cases[i].want) != 0)
                        fail_msg("case %zu: want \"%s\", got \"%s\"", i, cases[i].want, got);
                free(got);
        }
}

static char *validate(const char *text)
{
        json_t *sts = jparse(text);
        struct field_error_list errs;
        char *out;

        stateful_set_set_defaults(sts);
        field_error_list_init(&errs);
        (void) validate_stateful_set(sts, false, &errs);
        out = errs.n ? field_error_list_string(&errs) : xstrdup("");
        field_error_list_release(&errs);
        json_decref(sts);
        return out;
}

static void test_defaults_and_validation(void **state)
{
        json_t *sts = jparse("{'spec':{'updateStrategy':{'type':'RollingUpdate'}}}");
        json_t *bare = jparse("{'spec':{}}");
        char *msg;

        (void) state;
        /* K8S: an explicit RollingUpdate gets no rollingUpdate; a defaulted one does */
        stateful_set_set_defaults(sts);
        stateful_set_set_defaults(bare);
        assert_null(json_path(sts, "spec.updateStrategy.rollingUpdate"));
        assert_int_equal(
                json_integer_value(json_path(bare, "spec.updateStrategy.rollingUpdate.partition")),
                0);
        assert_string_equal(json_path_string(bare, "spec.podManagementPolicy"), "OrderedReady");
        assert_string_equal(
                json_path_string(bare, "spec.persistentVolumeClaimRetentionPolicy.whenScaled"),
                "Retain");
        assert_int_equal(json_integer_value(json_path(bare, "spec.revisionHistoryLimit")), 10);
        json_decref(sts);
        json_decref(bare);

        msg = validate(STS "}}");
        assert_string_equal(msg, "");
        free(msg);
        msg = validate("{'spec':{'podManagementPolicy':'Parallel','selector':{'matchLabels':"
                       "{'a':'b'}},'template':{'metadata':{'labels':{'a':'b'}},'spec':"
                       "{'activeDeadlineSeconds':5}},'ordinals':{'start':-1}}}");
        assert_string_equal(msg, "[spec.ordinals.start: Invalid value: -1: must be greater than "
                                 "or equal to 0, spec.template.spec.activeDeadlineSeconds: "
                                 "Forbidden: activeDeadlineSeconds in StatefulSet is not "
                                 "Supported]");
        free(msg);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse_pod_name),
                cmocka_unit_test(test_membership_and_range),
                cmocka_unit_test(test_new_pod),
                cmocka_unit_test(test_storage_mismatch),
                cmocka_unit_test(test_claims),
                cmocka_unit_test(test_revision),
                cmocka_unit_test(test_claim_owners),
                cmocka_unit_test(test_defaults_and_validation),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
