/* test-history.c: revision ordering and the history pruning the DaemonSet, StatefulSet and
 * Deployment controllers share: oldest first, revisions in use skipped, stopped once the excess
 * has counted, and a deletion that does not count makes the next one go. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "base/json.h"
#include "controllers/history.h"

struct seen {
        json_t *deleted; /* revision numbers, in order */
        json_int_t in_use, fails;
};

static bool in_use(const json_t *rev, void *ctx)
{
        const struct seen *s = ctx;

        return json_integer_value(json_object_get(rev, "revision")) == s->in_use;
}

static bool del(const json_t *rev, void *ctx)
{
        struct seen *s = ctx;
        json_int_t n = json_integer_value(json_object_get(rev, "revision"));

        json_array_append_new(s->deleted, json_integer(n));
        return n != s->fails;
}

static json_t *revisions(void)
{
        json_t *revs = json_array();

        for (int n = 5; n >= 1; n--)
                json_array_append_new(revs, json_pack("{s:i}", "revision", n));
        json_array_sort(revs, history_cmp_revision);
        return revs;
}

static void assert_deleted(const struct seen *s, const char *want)
{
        char *got = json_dumps(s->deleted, JSON_COMPACT);

        assert_string_equal(got, want);
        free(got);
}

static void test_sorted_oldest_first(void **state)
{
        json_t *revs = revisions();

        (void) state;
        assert_int_equal(json_integer_value(json_object_get(json_array_get(revs, 0), "revision")),
                         1);
        assert_int_equal(json_integer_value(json_object_get(json_array_get(revs, 4), "revision")),
                         5);
        json_decref(revs);
}

static void test_prune_skips_in_use(void **state)
{
        json_t *revs = revisions();
        struct seen s = { .deleted = json_array(), .in_use = 2 };
        const struct history_pruner p = { .in_use = in_use, .delete = del, .ctx = &s };

        (void) state;
        assert_int_equal(history_prune(revs, 2, &p), 2);
        assert_deleted(&s, "[1,3]");
        json_decref(s.deleted);
        json_decref(revs);
}

static void test_prune_nothing_in_excess(void **state)
{
        json_t *revs = revisions();
        struct seen s = { .deleted = json_array() };
        const struct history_pruner p = { .delete = del, .ctx = &s };

        (void) state;
        assert_int_equal(history_prune(revs, 0, &p), 0);
        assert_int_equal(history_prune(revs, -3, &p), 0);
        assert_deleted(&s, "[]");
        json_decref(s.deleted);
        json_decref(revs);
}

static void test_failed_delete_does_not_count(void **state)
{
        json_t *revs = revisions();
        struct seen s = { .deleted = json_array(), .fails = 1 };
        const struct history_pruner p = { .delete = del, .ctx = &s };

        (void) state;
        assert_int_equal(history_prune(revs, 2, &p), 2);
        assert_deleted(&s, "[1,2,3]");
        json_decref(s.deleted);
        json_decref(revs);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_sorted_oldest_first),
                cmocka_unit_test(test_prune_skips_in_use),
                cmocka_unit_test(test_prune_nothing_in_excess),
                cmocka_unit_test(test_failed_delete_does_not_count),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
