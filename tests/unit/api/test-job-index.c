/* test-job-index.c: the completion index sets of Indexed Jobs (api/job-index.c): upstream's
 * interval strings ("1,3-5,7") parsed leniently and strictly with upstream's error words,
 * insertion that merges neighbours, counting and formatting. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>

#include "api/job-index.h"
#include "base/alloc.h"

static void test_format_after_adds(void **state)
{
        static const struct {
                int add[8];
                size_t n;
                const char *want;
        } cases[] = {
                { { 0 }, 0, "" },
                { { 3 }, 1, "3" },
                { { 1, 3, 4, 5, 7 }, 5, "1,3-5,7" },
                { { 7, 5, 3, 4, 1 }, 5, "1,3-5,7" },
                { { 2, 3 }, 2, "2-3" },
                { { 0, 2, 4, 1, 3 }, 5, "0-4" },
                { { 5, 5, 5 }, 3, "5" },
        };

        (void) state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct job_index_set set = { 0 };
                cleanup_free char *got = NULL;

                for (size_t k = 0; k < cases[i].n; k++)
                        job_index_set_add(&set, cases[i].add[k]);
                got = job_index_set_format(&set);
                assert_string_equal(got, cases[i].want);
                job_index_set_release(&set);
        }
}

static void test_parse_lenient(void **state)
{
        static const struct {
                const char *s;
                int completions;
                const char *want;
                long long count;
        } cases[] = {
                { NULL, 5, "", 0 },           { "", 5, "", 0 }, { "1,3-5,7", 10, "1,3-5,7", 5 },
                { "1,3-5,7", 6, "1,3-5", 4 }, /* 7 is past completions */
                { "0,x,2", 5, "0,2", 2 },     /* a bad piece is skipped */
                { "1-2,3", 5, "1-3", 3 },     /* neighbours merge */
                { "4,0-1", 5, "0-1,4", 3 },   /* sorted */
        };

        (void) state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct job_index_set set;
                cleanup_free char *got = NULL;

                job_index_set_parse(cases[i].s, cases[i].completions, &set);
                got = job_index_set_format(&set);
                assert_string_equal(got, cases[i].want);
                assert_int_equal(job_index_set_count(&set), cases[i].count);
                job_index_set_release(&set);
        }
        {
                struct job_index_set set;

                job_index_set_parse("1,3-5", 10, &set);
                assert_true(job_index_set_contains(&set, 4));
                assert_false(job_index_set_contains(&set, 2));
                assert_false(job_index_set_contains(&set, 6));
                job_index_set_release(&set);
        }
}

static void test_validate(void **state)
{
        static const struct {
                const char *s;
                int completions;
                long long total; /* -1: invalid */
                const char *error;
        } cases[] = {
                { "", 3, 0, NULL },
                { "0,2-4,6", 7, 5, NULL },
                { "1-2-3", 7, -1,
                  "the fragment \"1-2-3\" violates the requirement that an index interval can have at most two parts separated by '-'" },
                { "a", 7, -1, "cannot convert string to integer for index: \"a\"" },
                { "1-b", 7, -1, "cannot convert string to integer for index: \"b\"" },
                { "7", 7, -1, "too large index: \"7\"" },
                { "1-9", 7, -1, "too large index: \"9\"" },
                { "3-3", 7, -1, "non-increasing order, previous: 3, current: 3" },
                { "5,3", 7, -1, "non-increasing order, previous: 5, current: 3" },
                { "1-3,3", 7, -1, "non-increasing order, previous: 3, current: 3" },
                { "1,", 7, -1, "cannot convert string to integer for index: \"\"" },
        };

        (void) state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                cleanup_free char *error = NULL;
                long long total = -1;
                int r = job_index_set_validate(cases[i].s, cases[i].completions, &total, &error);

                if (cases[i].total >= 0) {
                        assert_int_equal(r, 0);
                        assert_int_equal(total, cases[i].total);
                } else {
                        assert_int_not_equal(r, 0);
                        assert_string_equal(error, cases[i].error);
                }
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_format_after_adds),
                cmocka_unit_test(test_parse_lenient),
                cmocka_unit_test(test_validate),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
