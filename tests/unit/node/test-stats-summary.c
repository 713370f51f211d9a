/* test-stats-summary.c: the Summary API's numbers and JSON (node/stats-summary.h): the CPU rate
 * between samples as the kubelet takes it, the working set and availableBytes as cadvisor's,
 * the node's /proc counters, and the Summary's shape (k8s.io/kubelet stats/v1alpha1). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "base/json.h"
#include "node/stats-summary.h"

#define S 1000000000LL

static void test_rate(void **state)
{
        struct stats_rate_cache *c = stats_rate_cache_new();
        struct stats_cpu cpu;

        (void) state;
        /* K8S: no rate until a second sample */
        stats_rate_sample(c, "pod1", 1000, 10 * S, &cpu);
        assert_true(cpu.valid);
        assert_false(cpu.has_rate);
        assert_int_equal(cpu.usage_core_ns, 1000);
        /* too close to the cached sample: still none, and the cached sample stays */
        stats_rate_sample(c, "pod1", 2000, 10 * S + S / 2, &cpu);
        assert_false(cpu.has_rate);
        /* 2 s later, 0.5 s of CPU: half a core = 500000000 nanocores */
        stats_rate_sample(c, "pod1", 1000 + S / 2, 12 * S, &cpu);
        assert_true(cpu.has_rate);
        assert_int_equal(cpu.usage_nano_cores, 250000000);
        /* within the window again: the last rate is answered */
        stats_rate_sample(c, "pod1", 1000 + S, 12 * S + 100, &cpu);
        assert_true(cpu.has_rate);
        assert_int_equal(cpu.usage_nano_cores, 250000000);
        /* keys are separate */
        stats_rate_sample(c, "pod2", 5, 12 * S, &cpu);
        assert_false(cpu.has_rate);
        /* a counter that went back is a new cgroup: no rate until the next sample */
        stats_rate_sample(c, "pod1", 10, 20 * S, &cpu);
        assert_false(cpu.has_rate);
        stats_rate_sample(c, "pod1", 10 + 4 * S, 22 * S, &cpu);
        assert_true(cpu.has_rate);
        assert_int_equal(cpu.usage_nano_cores, 2 * S);
        /* forgotten after the expiry: starts over */
        stats_rate_sample(c, "pod1", 10 + 5 * S, 22 * S + STATS_RATE_EXPIRY_NS + 1, &cpu);
        assert_false(cpu.has_rate);
        stats_rate_cache_free(c);
}

static void test_memory(void **state)
{
        struct stats_memory m;

        (void) state;
        m = stats_memory_from(100, 30, 50, 7, 1, -1);
        assert_int_equal(m.working_set, 70);
        assert_false(m.has_available);
        m = stats_memory_from(100, 30, 50, 7, 1, 200);
        assert_true(m.has_available);
        assert_int_equal(m.available, 130);
        /* floored at 0 both ways */
        m = stats_memory_from(10, 30, 0, 0, 0, 5);
        assert_int_equal(m.working_set, 0);
        assert_int_equal(m.available, 5);
        m = stats_memory_from(100, 0, 0, 0, 0, 50);
        assert_int_equal(m.available, 0);
}

static void test_proc(void **state)
{
        struct stats_meminfo mi;
        struct stats_memory m;
        uint64_t ns = 0;

        (void) state;
        /* user nice system idle iowait irq softirq steal guest guest_nice, at 100 Hz */
        assert_int_equal(
                stats_parse_proc_stat("cpu  100 20 30 5000 40 5 6 7 0 0\ncpu0 1 2 3 4\n", 100, &ns),
                0);
        assert_int_equal(ns, (uint64_t) (100 + 20 + 30 + 5 + 6 + 7) * 10000000ULL);
        assert_int_equal(stats_parse_proc_stat("intr 1\ncpu  1 2 3 4\n", 100, &ns), 0);
        assert_int_equal(ns, 60000000ULL);
        assert_int_equal(stats_parse_proc_stat("cpu0 1 2 3 4\n", 100, &ns), -EINVAL);
        assert_int_equal(stats_parse_proc_stat("cpu  1 x\n", 100, &ns), -EINVAL);

        assert_int_equal(stats_parse_meminfo("MemTotal:       4000 kB\nMemFree:        1000 kB\n"
                                             "MemAvailable:   2500 kB\nInactive(file):  500 kB\n"
                                             "AnonPages:       800 kB\n",
                                             &mi),
                         0);
        assert_int_equal(mi.total, 4000 * 1024);
        assert_int_equal(mi.inactive_file, 500 * 1024);
        m = stats_node_memory(&mi);
        assert_int_equal(m.usage, 3000 * 1024);
        assert_int_equal(m.working_set, 2500 * 1024);
        assert_int_equal(m.rss, 800 * 1024);
        assert_int_equal(m.available, 1500 * 1024);
        assert_int_equal(stats_parse_meminfo("MemTotal: 4 kB\n", &mi), -EINVAL);
}

static void test_json(void **state)
{
        struct stats_container cs[] = { {
                .name = "c1",
                .start_time = "2026-11-26T10:00:00Z",
                .cpu = { .valid = true,
                         .usage_core_ns = 99,
                         .has_rate = true,
                         .usage_nano_cores = 12345 },
                .memory = stats_memory_from(4096, 0, 4096, 1, 0, -1),
        } };
        struct stats_volume vs[] = {
                { .name = "shm", .fs = { .valid = true, .capacity = 100, .used = 64 } },
                { .name = "data", .pvc_name = "claim1", .fs = { .valid = true } },
        };
        struct stats_pod p = { .name = "web",
                               .ns = "default",
                               .uid = "u1",
                               .cpu = { .valid = true, .usage_core_ns = 100 },
                               .memory = stats_memory_from(8192, 0, 0, 0, 0, 1 << 20),
                               .containers = cs,
                               .n_containers = 1,
                               .volumes = vs,
                               .n_volumes = 2 };
        struct stats_node n = { .name = "n1",
                                .cpu = { .valid = true,
                                         .usage_core_ns = 5,
                                         .has_rate = true,
                                         .usage_nano_cores = 7 },
                                .fs = { .valid = true, .capacity = 1000, .available = 400 } };
        cleanup_json json_t *j = stats_summary_json(&n, &p, 1, "2026-11-26T10:00:05Z");
        const json_t *pod = json_array_get(json_object_get(j, "pods"), 0);
        const json_t *c = json_array_get(json_object_get(pod, "containers"), 0);
        const json_t *vol = json_object_get(pod, "volume");

        (void) state;
        assert_string_equal(json_path_string(j, "node.nodeName"), "n1");
        assert_int_equal(json_integer_value(json_path(j, "node.cpu.usageNanoCores")), 7);
        assert_string_equal(json_path_string(j, "node.cpu.time"), "2026-11-26T10:00:05Z");
        /* no memory numbers: no memory object */
        assert_null(json_path(j, "node.memory"));
        assert_int_equal(json_integer_value(json_path(j, "node.fs.capacityBytes")), 1000);
        assert_string_equal(json_path_string(pod, "podRef.uid"), "u1");
        /* the pod's CPU has no rate yet: usageNanoCores left out, the counter there */
        assert_null(json_path(pod, "cpu.usageNanoCores"));
        assert_int_equal(json_integer_value(json_path(pod, "cpu.usageCoreNanoSeconds")), 100);
        assert_int_equal(json_integer_value(json_path(pod, "memory.availableBytes")),
                         (1 << 20) - 8192);
        assert_string_equal(json_string_value(json_object_get(c, "name")), "c1");
        assert_int_equal(json_integer_value(json_path(c, "cpu.usageNanoCores")), 12345);
        assert_int_equal(json_integer_value(json_path(c, "memory.workingSetBytes")), 4096);
        assert_null(json_path(c, "memory.availableBytes"));
        assert_string_equal(json_path_string(c, "startTime"), "2026-11-26T10:00:00Z");
        assert_int_equal(json_array_size(vol), 2);
        assert_string_equal(json_path_string(json_array_get(vol, 0), "name"), "shm");
        assert_int_equal(json_integer_value(json_path(json_array_get(vol, 0), "usedBytes")), 64);
        assert_null(json_path(json_array_get(vol, 0), "pvcRef"));
        assert_string_equal(json_path_string(json_array_get(vol, 1), "pvcRef.name"), "claim1");
        assert_string_equal(json_path_string(json_array_get(vol, 1), "pvcRef.namespace"),
                            "default");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_rate),
                cmocka_unit_test(test_memory),
                cmocka_unit_test(test_proc),
                cmocka_unit_test(test_json),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
