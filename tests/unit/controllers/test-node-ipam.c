/* test-node-ipam.c: the node IPAM range allocator's subnet bitmap (upstream's cidrset): the
 * option checks, round-robin allocation, occupying what Nodes already have, exhaustion. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "controllers/node-ipam.h"

static void test_parse(void **state)
{
        uint32_t net;
        unsigned prefix;

        assert_int_equal(node_ipam_parse_cidr("10.88.0.0/16", &net, &prefix), 0);
        assert_int_equal(net, 0x0a580000u);
        assert_int_equal(prefix, 16);
        assert_int_equal(node_ipam_parse_cidr("10.88.0.1/16", &net, &prefix), -EINVAL);
        assert_int_equal(node_ipam_parse_cidr("10.88.0.0", &net, &prefix), -EINVAL);
        assert_int_equal(node_ipam_parse_cidr("10.88.0.0/33", &net, &prefix), -EINVAL);
        assert_int_equal(node_ipam_parse_cidr("10.88.0.0/-1", &net, &prefix), -EINVAL);
        assert_int_equal(node_ipam_parse_cidr("fd00::/64", &net, &prefix), -EINVAL);
        assert_int_equal(node_ipam_parse_cidr(NULL, &net, &prefix), -EINVAL);
}

static void test_init_checks(void **state)
{
        struct cidr_set s;
        struct error *err = NULL;

        assert_int_equal(cidr_set_init(&s, "10.88.0.0/16", 8, &err), -EINVAL);
        assert_non_null(strstr(err->message, "subNetMaskSize is less than clusterMaskSize"));
        error_free(err);
        err = NULL;
        assert_int_equal(cidr_set_init(&s, "10.0.0.0/8", 25, &err), -EINVAL);
        assert_non_null(strstr(err->message, "the node CIDR size is too big"));
        error_free(err);
        err = NULL;
        assert_int_equal(cidr_set_init(&s, "10.88.0.0/29", 31, &err), -EINVAL);
        error_free(err);
        err = NULL;
        assert_int_equal(cidr_set_init(&s, "10.88.0.0/33", 24, &err), -EINVAL);
        assert_non_null(strstr(err->message, "--cluster-cidr"));
        error_free(err);
}

static void test_allocate(void **state)
{
        struct cidr_set s;
        char out[20];

        assert_int_equal(cidr_set_init(&s, "10.88.0.0/16", 24, NULL), 0);
        assert_int_equal(s.n, 256);
        assert_int_equal(cidr_set_allocate_next(&s, out), 0);
        assert_string_equal(out, "10.88.0.0/24");
        /* what a Node already has is skipped */
        assert_int_equal(cidr_set_occupy(&s, "10.88.1.0/24"), 1);
        assert_int_equal(cidr_set_allocate_next(&s, out), 0);
        assert_string_equal(out, "10.88.2.0/24");
        /* round robin: a freed subnet is not the next one given */
        cidr_set_clear(&s);
        assert_int_equal(cidr_set_allocate_next(&s, out), 0);
        assert_string_equal(out, "10.88.3.0/24");
        /* outside the cluster range: nothing; larger: every subnet it covers */
        assert_int_equal(cidr_set_occupy(&s, "10.89.0.0/24"), 0);
        assert_int_equal(cidr_set_occupy(&s, "bogus"), -EINVAL);
        assert_int_equal(cidr_set_occupy(&s, "10.0.0.0/8"), 1);
        assert_int_equal(cidr_set_allocate_next(&s, out), -ENOSPC);
        cidr_set_clear(&s);
        /* a larger range partly inside: from the cluster's first subnet */
        assert_int_equal(cidr_set_occupy(&s, "10.88.4.0/22"), 1);
        s.next = 4;
        assert_int_equal(cidr_set_allocate_next(&s, out), 0);
        assert_string_equal(out, "10.88.8.0/24");
        cidr_set_release(&s);
}

static void test_exhaust_and_wrap(void **state)
{
        struct cidr_set s;
        char out[20];

        assert_int_equal(cidr_set_init(&s, "192.168.0.0/24", 26, NULL), 0);
        assert_int_equal(cidr_set_allocate_next(&s, out), 0);
        assert_string_equal(out, "192.168.0.0/26");
        assert_int_equal(cidr_set_allocate_next(&s, out), 0);
        assert_int_equal(cidr_set_allocate_next(&s, out), 0);
        assert_int_equal(cidr_set_allocate_next(&s, out), 0);
        assert_string_equal(out, "192.168.0.192/26");
        assert_int_equal(cidr_set_allocate_next(&s, out), -ENOSPC);
        /* one freed: found again past the end */
        cidr_set_clear(&s);
        assert_int_equal(cidr_set_occupy(&s, "192.168.0.0/25"), 1);
        assert_int_equal(cidr_set_occupy(&s, "192.168.0.192/26"), 1);
        assert_int_equal(cidr_set_allocate_next(&s, out), 0);
        assert_string_equal(out, "192.168.0.128/26");
        cidr_set_release(&s);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse),
                cmocka_unit_test(test_init_checks),
                cmocka_unit_test(test_allocate),
                cmocka_unit_test(test_exhaust_and_wrap),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
