/* test-pod-config.c: envFrom and env[].valueFrom from ConfigMaps and Secrets as the kubelet's
 * makeEnvironmentVariables resolves them, against a fake lookup: prefixes, optional references,
 * Secret values decoded, invalid names skipped with upstream's event text, and the kubelet's
 * messages for what is missing. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/json.h"
#include "node/pod-config.h"

/* ud: {"configmaps": {name: obj}, "secrets": {name: obj}} of namespace "ns" */
static int fake_lookup(void *ud, const char *resource, const char *ns, const char *name,
                       json_t **ret, struct error **reterr)
{
        json_t *obj = json_object_get(json_object_get(ud, resource), name);

        assert_string_equal(ns, "ns");
        if (!obj)
                return error_set(reterr, ENOENT, "%s \"%s\" not found",
                                 streq(resource, "secrets") ? "secret" : "configmap", name);
        *ret = json_incref(obj);
        return 0;
}

static json_t *world(void)
{
        return json_pack("{s:{s:{s:{s:s,s:s}}}, s:{s:{s:{s:s}}}}", "configmaps", "cm", "data", "a",
                         "1", "b", "2", "secrets", "sec", "data", "pw", "czNjcmV0");
}

static const json_t *pod(void)
{
        static json_t *p;

        if (!p)
                p = json_pack("{s:{s:s}}", "metadata", "namespace", "ns");
        return p;
}

static void test_env_from(void **state)
{
        cleanup_json json_t *w = world();
        cleanup_json json_t *c =
                json_loads("{\"envFrom\":[{\"prefix\":\"P_\",\"configMapRef\":{\"name\":\"cm\"}},"
                           "{\"secretRef\":{\"name\":\"sec\"}},"
                           "{\"configMapRef\":{\"name\":\"gone\",\"optional\":true}},"
                           "{\"prefix\":\"=\",\"configMapRef\":{\"name\":\"cm\"}}]}",
                           0, NULL);
        cleanup_json json_t *vars = NULL, *warnings = NULL;

        assert_int_equal(pod_config_env_from(pod(), c, fake_lookup, w, &vars, &warnings, NULL), 0);
        assert_int_equal(json_object_size(vars), 3);
        assert_string_equal(json_string_value(json_object_get(vars, "P_a")), "1");
        assert_string_equal(json_string_value(json_object_get(vars, "P_b")), "2");
        assert_string_equal(json_string_value(json_object_get(vars, "pw")), "s3cret");
        assert_int_equal(json_array_size(warnings), 1);
        assert_string_equal(json_string_value(json_array_get(warnings, 0)),
                            "Keys [=a, =b] from the EnvFrom configMap ns/cm were skipped since "
                            "they are considered invalid environment variable names.");
}

static void test_env_from_missing(void **state)
{
        cleanup_json json_t *w = world();
        cleanup_json json_t *c =
                json_loads("{\"envFrom\":[{\"secretRef\":{\"name\":\"nope\"}}]}", 0, NULL);
        cleanup_json json_t *vars = NULL, *warnings = NULL;
        cleanup_error struct error *err = NULL;

        assert_int_equal(pod_config_env_from(pod(), c, fake_lookup, w, &vars, &warnings, &err),
                         -ENOENT);
        assert_string_equal(err->message, "secret \"nope\" not found");
}

static void test_env_value(void **state)
{
        static const struct {
                const char *from;
                int r;
                const char *want; /* value, or the error message */
        } cases[] = {
                { "{\"configMapKeyRef\":{\"name\":\"cm\",\"key\":\"a\"}}", 1, "1" },
                { "{\"secretKeyRef\":{\"name\":\"sec\",\"key\":\"pw\"}}", 1, "s3cret" },
                { "{\"configMapKeyRef\":{\"name\":\"cm\",\"key\":\"z\"}}", -ENOENT,
                  "couldn't find key z in ConfigMap ns/cm" },
                { "{\"secretKeyRef\":{\"name\":\"sec\",\"key\":\"z\"}}", -ENOENT,
                  "couldn't find key z in Secret ns/sec" },
                { "{\"configMapKeyRef\":{\"name\":\"x\",\"key\":\"a\"}}", -ENOENT,
                  "configmap \"x\" not found" },
                { "{\"configMapKeyRef\":{\"name\":\"cm\",\"key\":\"z\",\"optional\":true}}", 0,
                  NULL },
                { "{\"secretKeyRef\":{\"name\":\"x\",\"key\":\"a\",\"optional\":true}}", 0, NULL },
        };
        cleanup_json json_t *w = world();

        for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
                cleanup_json json_t *from = json_loads(cases[i].from, 0, NULL);
                cleanup_error struct error *err = NULL;
                cleanup_free char *value = NULL;
                int r = pod_config_env_value(pod(), from, fake_lookup, w, &value, &err);

                assert_int_equal(r, cases[i].r);
                if (r > 0)
                        assert_string_equal(value, cases[i].want);
                else if (r < 0)
                        assert_string_equal(err->message, cases[i].want);
                else
                        assert_null(value);
        }
}

static void test_env_name(void **state)
{
        assert_true(pod_config_env_name_valid("1badkey")); /* relaxed since 1.32 */
        assert_true(pod_config_env_name_valid("a.b-c"));
        assert_false(pod_config_env_name_valid(""));
        assert_false(pod_config_env_name_valid("a=b"));
        assert_false(pod_config_env_name_valid("a\tb"));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_env_from),
                cmocka_unit_test(test_env_from_missing),
                cmocka_unit_test(test_env_value),
                cmocka_unit_test(test_env_name),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
