/* test-expectations.c: ControllerExpectations: a sync's creates and deletes hold the next sync
 * back until the informer shows them, or until they expire. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/json.h"
#include "controllers/expectations.h"

static void test_nothing_expected(void **state)
{
        json_t *set = json_object(), *pods = json_object();

        (void) state;
        assert_true(expectations_met(set, "ns/rs", pods, 100));
        json_decref(set);
        json_decref(pods);
}

static void test_add_waits_for_the_pod(void **state)
{
        json_t *set = json_object(), *pods = json_object();

        (void) state;
        expectations_expect_add(set, "ns/rs", "ns/p1", 100);
        expectations_expect_add(set, "ns/rs", "ns/p2", 100);
        assert_false(expectations_met(set, "ns/rs", pods, 101));
        json_object_set_new(pods, "ns/p1", json_pack("{s:{s:s}}", "metadata", "name", "p1"));
        assert_false(expectations_met(set, "ns/rs", pods, 101));
        json_object_set_new(pods, "ns/p2", json_pack("{s:{s:s}}", "metadata", "name", "p2"));
        assert_true(expectations_met(set, "ns/rs", pods, 101));
        /* a satisfied entry is dropped */
        assert_null(json_object_get(set, "ns/rs"));
        json_decref(set);
        json_decref(pods);
}

static void test_del_waits_for_gone_or_terminating(void **state)
{
        json_t *set = json_object(), *pods = json_object();

        (void) state;
        json_object_set_new(pods, "ns/p1", json_pack("{s:{s:s}}", "metadata", "name", "p1"));
        expectations_expect_del(set, "ns/ds", "ns/p1", 100);
        assert_false(expectations_met(set, "ns/ds", pods, 100));
        json_object_set_new(json_object_get(json_object_get(pods, "ns/p1"), "metadata"),
                            "deletionTimestamp", json_string("2026-11-26T00:00:00Z"));
        assert_true(expectations_met(set, "ns/ds", pods, 100));
        expectations_expect_del(set, "ns/ds", "ns/p2", 100);
        assert_true(expectations_met(set, "ns/ds", pods, 100));
        json_decref(set);
        json_decref(pods);
}

static void test_expire(void **state)
{
        json_t *set = json_object(), *pods = json_object();

        (void) state;
        expectations_expect_add(set, "ns/rs", "ns/p1", 100);
        assert_false(expectations_met(set, "ns/rs", pods, 100 + EXPECTATIONS_TIMEOUT_S - 1));
        assert_true(expectations_met(set, "ns/rs", pods, 100 + EXPECTATIONS_TIMEOUT_S));
        json_decref(set);
        json_decref(pods);
}

static void test_forget_gone(void **state)
{
        json_t *set = json_object(), *owners = json_object();

        (void) state;
        expectations_expect_add(set, "ns/a", "ns/p1", 100);
        expectations_expect_add(set, "ns/b", "ns/p2", 100);
        json_object_set_new(owners, "ns/a", json_object());
        expectations_forget_gone(set, owners);
        assert_non_null(json_object_get(set, "ns/a"));
        assert_null(json_object_get(set, "ns/b"));
        json_decref(set);
        json_decref(owners);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_nothing_expected),
                cmocka_unit_test(test_add_waits_for_the_pod),
                cmocka_unit_test(test_del_waits_for_gone_or_terminating),
                cmocka_unit_test(test_expire),
                cmocka_unit_test(test_forget_gone),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
