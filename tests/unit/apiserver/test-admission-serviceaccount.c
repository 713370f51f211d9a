/* test-admission-serviceaccount.c: the ServiceAccount admission's defaulting of a new pod, the
 * v1 conversion of the deprecated spec.serviceAccount, whether the token is mounted (the pod's
 * automountServiceAccountToken over the account's) and the kube-api-access volume and mounts it
 * adds, as upstream's mountServiceAccountToken and TokenVolumeSource. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apiserver/admission-serviceaccount.h"
#include "base/json.h"

static void test_default(void **state)
{
        static const struct {
                const char *spec;
                const char *want_name; /* serviceAccountName and serviceAccount after admission */
        } cases[] = {
                { "{}", "default" },
                { "{\"serviceAccountName\":\"\"}", "default" },
                { "{\"serviceAccountName\":\"builder\"}", "builder" },
                { "{\"serviceAccount\":\"old\"}", "old" },
                { "{\"serviceAccountName\":\"new\",\"serviceAccount\":\"old\"}", "new" },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
                cleanup_json json_t *pod =
                        json_pack("{s:o}", "spec", json_loads(cases[i].spec, 0, NULL));

                assert_int_equal(pod_service_account_default(pod), 0);
                assert_string_equal(json_path_string(pod, "spec.serviceAccountName"),
                                    cases[i].want_name);
                assert_string_equal(json_path_string(pod, "spec.serviceAccount"),
                                    cases[i].want_name);
        }
}

static void test_convert(void **state)
{
        cleanup_json json_t *pod = json_loads("{\"spec\":{\"serviceAccountName\":\"a\"}}", 0, NULL);
        cleanup_json json_t *none = json_loads("{\"spec\":{\"serviceAccount\":\"\"}}", 0, NULL);

        /* an update without the deprecated field gets it back, so the spec is unchanged */
        pod_service_account_convert(pod);
        assert_string_equal(json_path_string(pod, "spec.serviceAccount"), "a");
        pod_service_account_convert(none);
        assert_null(json_path(none, "spec.serviceAccount"));
        assert_null(json_path(none, "spec.serviceAccountName"));
}

static void test_automount(void **state)
{
        static const struct {
                const char *pod, *sa;
                bool want;
        } cases[] = {
                { "{\"spec\":{}}", "{}", true },
                { "{\"spec\":{}}", "{\"automountServiceAccountToken\":false}", false },
                { "{\"spec\":{}}", "{\"automountServiceAccountToken\":true}", true },
                /* the pod's preference wins either way */
                { "{\"spec\":{\"automountServiceAccountToken\":true}}",
                  "{\"automountServiceAccountToken\":false}", true },
                { "{\"spec\":{\"automountServiceAccountToken\":false}}",
                  "{\"automountServiceAccountToken\":true}", false },
                { "{\"spec\":{\"automountServiceAccountToken\":false}}", "{}", false },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
                cleanup_json json_t *pod = json_loads(cases[i].pod, 0, NULL);
                cleanup_json json_t *sa = json_loads(cases[i].sa, 0, NULL);

                assert_int_equal(pod_service_account_automount(pod, sa), cases[i].want);
        }
}

static const char VOLUME[] =
        "{\"name\":\"kube-api-access-abcde\",\"projected\":{\"defaultMode\":420,\"sources\":["
        "{\"serviceAccountToken\":{\"path\":\"token\",\"expirationSeconds\":3607}},"
        "{\"configMap\":{\"name\":\"kube-root-ca.crt\",\"items\":[{\"key\":\"ca.crt\","
        "\"path\":\"ca.crt\"}]}},"
        "{\"downwardAPI\":{\"items\":[{\"path\":\"namespace\",\"fieldRef\":{\"apiVersion\":"
        "\"v1\",\"fieldPath\":\"metadata.namespace\"}}]}}]}}";

#define MOUNT(v)                                        \
 "{\"name\":\"" v "\",\"readOnly\":true,\"mountPath\":" \
 "\"/var/run/secrets/kubernetes.io/serviceaccount\"}"

static void test_mount(void **state)
{
        static const struct {
                const char *name;
                const char *spec;
                const char *want; /* the spec after admission; "VOLUME" stands for the volume */
        } cases[] = {
                { "every container and init container, the volume added",
                  "{\"initContainers\":[{\"name\":\"i\"}],\"containers\":[{\"name\":\"a\","
                  "\"volumeMounts\":[{\"name\":\"x\",\"mountPath\":\"/x\"}]},{\"name\":\"b\"}],"
                  "\"volumes\":[{\"name\":\"x\",\"emptyDir\":{}}]}",
                  "{\"initContainers\":[{\"name\":\"i\",\"volumeMounts\":[" MOUNT(
                          "kube-api-access-abcde") "]}],\"containers\":[{\"name\":\"a\",\"volumeMounts\":[{\"name\":\"x\","
                                                   "\"mountPath\":\"/x\"}," MOUNT("kube-api-access-abcde") "]},{\"name\":\"b\",\"volumeMounts\":[" MOUNT(
                                                           "kube-api-access-abcde") "]}],\"volumes\":[{\"name\":\"x\",\"emptyDir\":{}},VOLUME]}" },
                { "a container with its own mount at the path keeps it and gets nothing",
                  "{\"containers\":[{\"name\":\"a\",\"volumeMounts\":[{\"name\":\"mine\","
                  "\"mountPath\":\"/var/run/secrets/kubernetes.io/serviceaccount\"}]},"
                  "{\"name\":\"b\"}]}",
                  "{\"containers\":[{\"name\":\"a\",\"volumeMounts\":[{\"name\":\"mine\","
                  "\"mountPath\":\"/var/run/secrets/kubernetes.io/serviceaccount\"}]},"
                  "{\"name\":\"b\",\"volumeMounts\":[" MOUNT(
                          "kube-api-access-abcde") "]}],"
                                                   "\"volumes\":[VOLUME]}" },
                { "every container has a mount there: no volume",
                  "{\"containers\":[{\"name\":\"a\",\"volumeMounts\":[{\"name\":\"mine\","
                  "\"mountPath\":\"/var/run/secrets/kubernetes.io/serviceaccount\"}]}]}",
                  "{\"containers\":[{\"name\":\"a\",\"volumeMounts\":[{\"name\":\"mine\","
                  "\"mountPath\":\"/var/run/secrets/kubernetes.io/serviceaccount\"}]}]}" },
                { "a kube-api-access-* volume already there is the one mounted, not added again",
                  "{\"containers\":[{\"name\":\"a\"}],\"volumes\":[{\"name\":"
                  "\"kube-api-access-zzzzz\",\"emptyDir\":{}}]}",
                  "{\"containers\":[{\"name\":\"a\",\"volumeMounts\":[" MOUNT(
                          "kube-api-access-zzzzz") "]}],\"volumes\":[{\"name\":"
                                                   "\"kube-api-access-zzzzz\",\"emptyDir\":{}}]}" },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
                cleanup_json json_t *pod =
                        json_pack("{s:o}", "spec", json_loads(cases[i].spec, 0, NULL));
                cleanup_json json_t *want = NULL;
                char *text = strdup(cases[i].want), *at;

                print_message("%s\n", cases[i].name);
                /* "VOLUME" in the expected spec is the volume's JSON */
                at = strstr(text, "VOLUME");
                if (at) {
                        char *full = NULL;

                        *at = '\0';
                        assert_true(asprintf(&full, "%s%s%s", text, VOLUME, at + 6) > 0);
                        free(text);
                        text = full;
                }
                want = json_loads(text, 0, NULL);
                free(text);
                assert_non_null(want);
                pod_service_account_mount(pod, "kube-api-access-abcde");
                assert_true(json_equal(json_object_get(pod, "spec"), want));
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_default),
                cmocka_unit_test(test_convert),
                cmocka_unit_test(test_automount),
                cmocka_unit_test(test_mount),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
