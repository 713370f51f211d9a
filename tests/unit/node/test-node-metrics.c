/* test-node-metrics.c: the kubelet metric families render with upstream's names, labels and
 * buckets. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "base/metrics.h"
#include "base/strbuf.h"
#include "node/node-metrics.h"

static void test_families(void **state)
{
        cleanup_metrics_registry struct metrics_registry *reg = metrics_registry_new();
        struct node_metrics m;
        struct strbuf out;
        const char *type[] = { "container", NULL };
        const char *sync[] = { "sync", NULL };

        (void) state;
        assert_int_equal(node_metrics_register(reg, "n1", &m, NULL), 0);
        assert_int_equal(metrics_add(m.started_containers, type, 1), 0);
        assert_int_equal(metrics_observe(m.pod_start_duration, NULL, 1.5), 0);
        assert_int_equal(metrics_observe(m.pod_worker_duration, sync, 0.002), 0);
        strbuf_init(&out);
        assert_int_equal(metrics_render(reg, &out, NULL), 0);
        assert_non_null(strstr(out.buf, "kubelet_node_name{node=\"n1\"} 1\n"));
        assert_non_null(strstr(out.buf, "kubelet_running_pods 0\n"));
        assert_non_null(strstr(
                out.buf, "kubelet_started_containers_total{container_type=\"container\"} 1\n"));
        /* K8S: PodStartDuration buckets 0.5, 1, 2, ...: 1.5 s lands from le="2" on */
        assert_non_null(strstr(out.buf, "kubelet_pod_start_duration_seconds_bucket{le=\"1\"} 0\n"));
        assert_non_null(strstr(out.buf, "kubelet_pod_start_duration_seconds_bucket{le=\"2\"} 1\n"));
        assert_non_null(
                strstr(out.buf, "kubelet_pod_start_duration_seconds_bucket{le=\"3600\"} 1\n"));
        assert_non_null(strstr(out.buf, "# TYPE kubelet_pod_worker_duration_seconds histogram\n"));
        assert_non_null(strstr(
                out.buf, "kubelet_pod_worker_duration_seconds_count{operation=\"sync\"} 1\n"));
        strbuf_release(&out);
        /* registering twice in one registry is refused */
        assert_true(node_metrics_register(reg, "n1", &m, NULL) < 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_families),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
