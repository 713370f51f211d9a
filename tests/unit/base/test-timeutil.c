/* test-timeutil.c: the deadline helpers of base/timeutil.h (time_after_ms, time_before) that the
 * node agent's, the informer's and the store's waits compute their timeouts with. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/timeutil.h"

static void test_before(void **state)
{
        const struct timespec a = { 5, 999999999 }, b = { 6, 0 }, c = { 6, 1 };

        (void) state;
        assert_true(time_before(&a, &b));
        assert_true(time_before(&b, &c));
        assert_false(time_before(&b, &a));
        assert_false(time_before(&b, &b)); /* strictly before */
}

static void test_after_ms(void **state)
{
        static const long delays[] = { 0, 1, 999, 1000, 1500, 61001 };
        struct timespec before, t, after;

        (void) state;
        for (size_t i = 0; i < sizeof(delays) / sizeof(delays[0]); i++) {
                clock_gettime(CLOCK_MONOTONIC, &before);
                t = time_after_ms(CLOCK_MONOTONIC, delays[i]);
                clock_gettime(CLOCK_MONOTONIC, &after);
                /* normalised, and between before + delay and after + delay */
                assert_true(t.tv_nsec >= 0 && t.tv_nsec < 1000000000L);
                before.tv_sec += delays[i] / 1000;
                before.tv_nsec += (delays[i] % 1000) * 1000000L;
                if (before.tv_nsec >= 1000000000L) {
                        before.tv_sec++;
                        before.tv_nsec -= 1000000000L;
                }
                assert_false(time_before(&t, &before));
                after.tv_sec += delays[i] / 1000 + 1;
                assert_true(time_before(&t, &after));
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_before),
                cmocka_unit_test(test_after_ms),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
