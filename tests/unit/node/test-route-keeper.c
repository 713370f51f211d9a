/* test-route-keeper.c: which routes a node wants from the Nodes: one per other Node with an IPv4
 * podCIDR and an IPv4 InternalIP, via that address, sorted; never its own. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "base/json.h"
#include "node/route-keeper.h"

/* A Node named name with podCIDRs cidrs (NULL: none) and an InternalIP ip (NULL: none). */
static json_t *node(const char *name, const char *cidr, const char *ip)
{
        json_t *n = json_pack("{s:{s:s}, s:{}, s:{s:[{s:s, s:s}]}}", "metadata", "name", name,
                              "spec", "status", "addresses", "type", "Hostname", "address", name);

        if (cidr)
                json_object_set_new(json_object_get(n, "spec"), "podCIDRs", json_pack("[s]", cidr));
        if (ip)
                json_array_append_new(json_path(n, "status.addresses"),
                                      json_pack("{s:s, s:s}", "type", "InternalIP", "address", ip));
        return n;
}

static void test_want(void **state)
{
        cleanup_json json_t *nodes = json_object();
        struct network_route *r = NULL;
        size_t n;

        json_object_set_new(nodes, "self", node("self", "10.88.0.0/24", "10.0.0.1"));
        json_object_set_new(nodes, "c", node("c", "10.88.2.0/24", "10.0.0.3"));
        json_object_set_new(nodes, "b", node("b", "10.88.1.0/24", "10.0.0.2"));
        json_object_set_new(nodes, "no-cidr", node("no-cidr", NULL, "10.0.0.4"));
        json_object_set_new(nodes, "no-ip", node("no-ip", "10.88.5.0/24", NULL));
        json_object_set_new(nodes, "v6", node("v6", "fd00::/64", "10.0.0.6"));
        json_object_set_new(nodes, "v6ip", node("v6ip", "10.88.7.0/24", "fd00::7"));
        /* an old client's lone podCIDR counts too */
        json_object_set_new(nodes, "old", node("old", NULL, "10.0.0.8"));
        json_object_set_new(json_path(json_object_get(nodes, "old"), "spec"), "podCIDR",
                            json_string("10.88.8.0/24"));

        n = route_keeper_want(nodes, "self", &r);
        assert_int_equal(n, 3);
        assert_string_equal(r[0].dst, "10.88.1.0/24");
        assert_string_equal(r[0].via, "10.0.0.2");
        assert_string_equal(r[1].dst, "10.88.2.0/24");
        assert_string_equal(r[1].via, "10.0.0.3");
        assert_string_equal(r[2].dst, "10.88.8.0/24");
        assert_string_equal(r[2].via, "10.0.0.8");
        free(r);

        /* alone: nothing */
        json_object_clear(nodes);
        json_object_set_new(nodes, "self", node("self", "10.88.0.0/24", "10.0.0.1"));
        r = NULL;
        assert_int_equal(route_keeper_want(nodes, "self", &r), 0);
        free(r);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_want),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
