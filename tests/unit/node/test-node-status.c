/* test-node-status.c: the Node this machine reports: --allocatable parsing and the object's
 * shape (capacity from the host, allocatable override, the kubelet's conditions). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/json.h"
#include "node/node-status.h"

static void test_parse_resource_list(void **state)
{
        cleanup_json json_t *l = NULL;
        struct error *err = NULL;

        assert_int_equal(node_parse_resource_list("cpu=4,memory=4096Mi,pods=50", &l, &err), 0);
        assert_string_equal(json_string_value(json_object_get(l, "cpu")), "4");
        assert_string_equal(json_string_value(json_object_get(l, "memory")), "4Gi");
        assert_string_equal(json_string_value(json_object_get(l, "pods")), "50");
        assert_int_equal(node_parse_resource_list("cpu", &l, &err), -EINVAL);
        assert_string_equal(err->message, "resource list item \"cpu\": expected NAME=QUANTITY");
        err = error_free(err);
        assert_int_equal(node_parse_resource_list("memory=4Gx", &l, &err), -EINVAL);
        assert_non_null(strstr(err->message, "resource \"memory\": "));
        err = error_free(err);
}

static void test_build(void **state)
{
        struct node_config cfg = { .node_name = "n1",
                                   .data_dir = "/tmp",
                                   .allocatable = "cpu=4,memory=4Gi" };
        cleanup_json json_t *node = NULL;
        char cpus[16];
        size_t i;
        json_t *c;
        bool ready = false;

        assert_int_equal(node_build(&cfg, &node, NULL), 0);
        assert_string_equal(json_path_string(node, "metadata.name"), "n1");
        (void) snprintf(cpus, sizeof(cpus), "%ld", sysconf(_SC_NPROCESSORS_ONLN));
        assert_string_equal(json_path_string(node, "status.capacity.cpu"), cpus);
        assert_string_equal(json_path_string(node, "status.allocatable.cpu"), "4");
        assert_string_equal(json_path_string(node, "status.allocatable.memory"), "4Gi");
        assert_string_equal(json_path_string(node, "status.allocatable.pods"), "110");
        json_array_foreach(json_path(node, "status.conditions"), i, c) {
                if (streq(json_string_value(json_object_get(c, "type")), "Ready"))
                        ready = streq(json_string_value(json_object_get(c, "reason")),
                                      "KubeletReady");
        }
        assert_true(ready);
        cfg.allocatable = "cpu=lots";
        json_decref(node);
        node = NULL;
        assert_int_equal(node_build(&cfg, &node, NULL), -EINVAL);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse_resource_list),
                cmocka_unit_test(test_build),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
