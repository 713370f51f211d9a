/* test-rootca-publisher.c: the root CA publisher's decision: a namespace without kube-root-ca.crt
 * gets one made (the CA, upstream's annotation), a changed one (data, an extra key, the
 * annotation gone) is put back keeping the rest of its object, a right one and terminating
 * namespaces are left alone. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "base/json.h"
#include "controllers/rootca-publisher.h"

#define CA "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"

static const json_t *write_for(const json_t *plan, const char *ns)
{
        size_t i;
        json_t *w;

        json_array_foreach(plan, i, w)
                if (streq(json_string_value(json_object_get(w, "namespace")), ns))
                        return w;
        return NULL;
}

static void test_plan(void **state)
{
        cleanup_json json_t *namespaces =
                json_loads("{\"new\":{\"metadata\":{\"name\":\"new\"}},"
                           "\"ok\":{\"metadata\":{\"name\":\"ok\"}},"
                           "\"edited\":{\"metadata\":{\"name\":\"edited\"}},"
                           "\"extra\":{\"metadata\":{\"name\":\"extra\"}},"
                           "\"bare\":{\"metadata\":{\"name\":\"bare\"}},"
                           "\"gone\":{\"metadata\":{\"name\":\"gone\",\"deletionTimestamp\":"
                           "\"2026-01-01T00:00:00Z\"}}}",
                           0, NULL);
        cleanup_json json_t *maps = json_pack(
                "{s:{s:{s:s, s:s, s:{s:s}}, s:{s:s}},"
                " s:{s:{s:s, s:s, s:s, s:{s:s, s:s}}, s:{s:s}},"
                " s:{s:{s:s, s:s, s:{s:s}}, s:{s:s, s:s}},"
                " s:{s:{s:s, s:s}, s:{s:s}}}",
                "ok/kube-root-ca.crt", "metadata", "name", "kube-root-ca.crt", "namespace", "ok",
                "annotations", "kubernetes.io/description", "x", "data", "ca.crt", CA,
                "edited/kube-root-ca.crt", "metadata", "name", "kube-root-ca.crt", "namespace",
                "edited", "resourceVersion", "42", "annotations", "kubernetes.io/description", "x",
                "team", "blue", "data", "ca.crt", "forged", "extra/kube-root-ca.crt", "metadata",
                "name", "kube-root-ca.crt", "namespace", "extra", "annotations",
                "kubernetes.io/description", "x", "data", "ca.crt", CA, "more", "1",
                "bare/kube-root-ca.crt", "metadata", "name", "kube-root-ca.crt", "namespace",
                "bare", "data", "ca.crt", CA);
        cleanup_json json_t *plan = rootca_publisher_plan(namespaces, maps, CA);
        cleanup_json json_t *want = NULL;
        const json_t *w;

        (void) state;
        assert_int_equal(json_array_size(plan), 4);
        assert_null(write_for(plan, "ok"));
        assert_null(write_for(plan, "gone"));

        w = write_for(plan, "new");
        assert_non_null(w);
        assert_true(json_is_true(json_object_get(w, "create")));
        want = json_pack("{s:s, s:s, s:{s:s, s:s, s:{s:s}}, s:{s:s}}", "apiVersion", "v1", "kind",
                         "ConfigMap", "metadata", "name", "kube-root-ca.crt", "namespace", "new",
                         "annotations", "kubernetes.io/description", ROOTCA_DESCRIPTION, "data",
                         "ca.crt", CA);
        assert_true(json_equal(json_object_get(w, "object"), want));

        /* put back: the data and the annotation; the resourceVersion read and other
         * annotations kept */
        w = write_for(plan, "edited");
        assert_non_null(w);
        assert_true(json_is_false(json_object_get(w, "create")));
        assert_string_equal(json_string_value(json_object_get(
                                    json_path(json_object_get(w, "object"), "data"), "ca.crt")),
                            CA);
        assert_string_equal(
                json_path_string(json_object_get(w, "object"), "metadata.resourceVersion"), "42");
        assert_string_equal(
                json_string_value(json_object_get(
                        json_path(json_object_get(w, "object"), "metadata.annotations"), "team")),
                "blue");
        assert_string_equal(json_string_value(json_object_get(
                                    json_path(json_object_get(w, "object"), "metadata.annotations"),
                                    "kubernetes.io/description")),
                            ROOTCA_DESCRIPTION);

        w = write_for(plan, "extra");
        assert_non_null(w);
        assert_int_equal(json_object_size(json_path(json_object_get(w, "object"), "data")), 1);

        w = write_for(plan, "bare");
        assert_non_null(w);
        assert_string_equal(json_string_value(json_object_get(
                                    json_path(json_object_get(w, "object"), "metadata.annotations"),
                                    "kubernetes.io/description")),
                            ROOTCA_DESCRIPTION);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_plan),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
