/* test-resource-metrics.c: metrics.k8s.io objects from a kubelet Summary with metrics-server's
 * field semantics (apiserver/resource-metrics.h): cpu from usageNanoCores as a scaled
 * quantity, memory from workingSetBytes in BinarySI, pods found by uid, pods and nodes without
 * a rate left out. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "apiserver/resource-metrics.h"
#include "base/json.h"

static void check_text(char *got, const char *want)
{
        assert_string_equal(got, want);
        free(got);
}

static void test_quantities(void **state)
{
        (void) state;
        /* K8S NewScaledQuantity(n, -9).String(): whole millicores read "m", else "n" */
        check_text(resource_metrics_cpu(12000000), "12m");
        check_text(resource_metrics_cpu(12345678), "12345678n");
        check_text(resource_metrics_cpu(2000000000), "2");
        check_text(resource_metrics_cpu(0), "0");
        /* K8S NewQuantity(b, BinarySI).String() */
        check_text(resource_metrics_memory(1077248), "1052Ki");
        check_text(resource_metrics_memory(67108864), "64Mi");
        check_text(resource_metrics_memory(1000), "1k");
        check_text(resource_metrics_memory(0), "0");
}

static const char summary_text[] =
        "{\"node\":{\"nodeName\":\"n1\","
        "\"cpu\":{\"time\":\"2026-11-26T10:00:05Z\",\"usageNanoCores\":250000000,\"usageCoreNanoSeconds\":9},"
        "\"memory\":{\"time\":\"2026-11-26T10:00:05Z\",\"workingSetBytes\":2147483648}},"
        "\"pods\":["
        "{\"podRef\":{\"name\":\"web\",\"namespace\":\"default\",\"uid\":\"u1\"},"
        " \"containers\":["
        "  {\"name\":\"c1\",\"cpu\":{\"time\":\"2026-11-26T10:00:04Z\",\"usageNanoCores\":1500000},"
        "   \"memory\":{\"workingSetBytes\":4096}},"
        "  {\"name\":\"c2\",\"cpu\":{\"usageCoreNanoSeconds\":3},\"memory\":{\"workingSetBytes\":1}}]},"
        "{\"podRef\":{\"name\":\"new\",\"namespace\":\"default\",\"uid\":\"u2\"},"
        " \"containers\":[{\"name\":\"c\",\"cpu\":{\"usageCoreNanoSeconds\":3}}]}]}";

static void test_objects(void **state)
{
        cleanup_json json_t *summary = json_loads(summary_text, 0, NULL);
        cleanup_json json_t *node =
                json_pack("{s:{s:s, s:{s:s}}}", "metadata", "name", "n1", "labels", "zone", "a");
        cleanup_json json_t *pod = json_pack("{s:{s:s, s:s, s:s}}", "metadata", "name", "web",
                                             "namespace", "default", "uid", "u1");
        cleanup_json json_t *newpod = json_pack("{s:{s:s, s:s, s:s}}", "metadata", "name", "new",
                                                "namespace", "default", "uid", "u2");
        cleanup_json json_t *other = json_pack("{s:{s:s, s:s, s:s}}", "metadata", "name", "x",
                                               "namespace", "default", "uid", "u3");
        cleanup_json json_t *nm = NULL, *pm = NULL, *none = NULL;
        const json_t *c;

        (void) state;
        assert_non_null(summary);
        nm = resource_metrics_node(node, summary);
        assert_non_null(nm);
        assert_string_equal(json_path_string(nm, "kind"), "NodeMetrics");
        assert_string_equal(json_path_string(nm, "apiVersion"), "metrics.k8s.io/v1beta1");
        assert_string_equal(json_path_string(nm, "metadata.name"), "n1");
        assert_string_equal(json_path_string(nm, "metadata.labels.zone"), "a");
        assert_string_equal(json_path_string(nm, "timestamp"), "2026-11-26T10:00:05Z");
        assert_string_equal(json_path_string(nm, "window"), RESOURCE_METRICS_WINDOW);
        assert_string_equal(json_path_string(nm, "usage.cpu"), "250m");
        assert_string_equal(json_path_string(nm, "usage.memory"), "2Gi");

        pm = resource_metrics_pod(pod, summary);
        assert_non_null(pm);
        assert_string_equal(json_path_string(pm, "kind"), "PodMetrics");
        assert_string_equal(json_path_string(pm, "metadata.namespace"), "default");
        assert_string_equal(json_path_string(pm, "timestamp"), "2026-11-26T10:00:04Z");
        /* c2 has no rate yet: left out */
        assert_int_equal(json_array_size(json_object_get(pm, "containers")), 1);
        c = json_array_get(json_object_get(pm, "containers"), 0);
        assert_string_equal(json_path_string(c, "name"), "c1");
        assert_string_equal(json_path_string(c, "usage.cpu"), "1500u");
        assert_string_equal(json_path_string(c, "usage.memory"), "4Ki");

        /* no container with metrics, or not in the summary: no object */
        none = resource_metrics_pod(newpod, summary);
        assert_null(none);
        none = resource_metrics_pod(other, summary);
        assert_null(none);
        none = resource_metrics_node(node, NULL);
        assert_null(none);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_quantities),
                cmocka_unit_test(test_objects),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
