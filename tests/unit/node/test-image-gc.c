/* test-image-gc.c: the image garbage collection's policy check (the kubelet's validation
 * messages), its records (first detected, last used; gone images dropped; the built-in busybox
 * never recorded) and the order it removes images in (not in use, old enough, least recently
 * used first, then first detected first). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "node/image-gc.h"

static void test_policy_check(void **state)
{
        struct image_gc_policy p = IMAGE_GC_POLICY_DEFAULT;
        struct error *err = NULL;

        (void) state;
        assert_int_equal(image_gc_policy_check(&p, NULL), 0);
        p.low_percent = 85;
        assert_int_equal(image_gc_policy_check(&p, &err), -EINVAL);
        assert_string_equal(err->message,
                            "invalid configuration: imageGCLowThresholdPercent "
                            "(--image-gc-low-threshold) 85 must be less than "
                            "imageGCHighThresholdPercent (--image-gc-high-threshold) 85");
        error_free(err);
        err = NULL;
        p.high_percent = 101;
        assert_int_equal(image_gc_policy_check(&p, &err), -EINVAL);
        assert_string_equal(err->message, "invalid configuration: imageGCHighThresholdPercent "
                                          "(--image-gc-high-threshold) 101 must be between 0 "
                                          "and 100, inclusive");
        error_free(err);
}

static json_t *images(const char *const *refs)
{
        json_t *a = json_array();

        json_array_append_new(a, json_pack("{s:s, s:b}", "reference", "docker.io/library/busybox:*",
                                           "builtin", 1));
        for (; *refs; refs++)
                json_array_append_new(a, json_pack("{s:s, s:b}", "reference", *refs, "builtin", 0));
        return a;
}

static void test_detect(void **state)
{
        json_t *records = json_object(), *in_use = json_pack("{s:b}", "b:1", 1);
        json_t *list = images((const char *const[]){ "a:1", "b:1", NULL });

        (void) state;
        image_gc_detect(records, list, in_use, 1000);
        assert_int_equal(json_object_size(records), 2);
        assert_null(json_object_get(records, "docker.io/library/busybox:*"));
        assert_int_equal(json_integer_value(
                                 json_object_get(json_object_get(records, "a:1"), "firstDetected")),
                         1000);
        assert_int_equal(
                json_integer_value(json_object_get(json_object_get(records, "a:1"), "lastUsed")),
                0);
        assert_int_equal(
                json_integer_value(json_object_get(json_object_get(records, "b:1"), "lastUsed")),
                1000);
        /* later: a is gone, b no longer in use keeps its last use, c is new */
        json_decref(list);
        list = images((const char *const[]){ "b:1", "c:1", NULL });
        json_object_clear(in_use);
        image_gc_detect(records, list, in_use, 5000);
        assert_null(json_object_get(records, "a:1"));
        assert_int_equal(
                json_integer_value(json_object_get(json_object_get(records, "b:1"), "lastUsed")),
                1000);
        assert_int_equal(json_integer_value(
                                 json_object_get(json_object_get(records, "b:1"), "firstDetected")),
                         1000);
        assert_int_equal(json_integer_value(
                                 json_object_get(json_object_get(records, "c:1"), "firstDetected")),
                         5000);
        json_decref(list);
        json_decref(in_use);
        json_decref(records);
}

static void test_candidates(void **state)
{
        json_t *records = json_pack(
                "{s:{s:I, s:I}, s:{s:I, s:I}, s:{s:I, s:I}, s:{s:I, s:I}, s:{s:I, s:I}}",
                "used-late", "firstDetected", (json_int_t) 0, "lastUsed", (json_int_t) 900,
                "used-early", "firstDetected", (json_int_t) 0, "lastUsed", (json_int_t) 100,
                "never-old", "firstDetected", (json_int_t) 0, "lastUsed", (json_int_t) 0,
                "never-young", "firstDetected", (json_int_t) 950, "lastUsed", (json_int_t) 0,
                "running", "firstDetected", (json_int_t) 0, "lastUsed", (json_int_t) 1000);
        json_t *in_use = json_pack("{s:b}", "running", 1);
        json_t *order = image_gc_candidates(records, in_use, 1000, 100);
        char *text = json_dumps(order, JSON_COMPACT);

        (void) state;
        /* never used first, then by last use; the one seen 50 ms ago and the running one stay */
        assert_string_equal(text, "[\"never-old\",\"used-early\",\"used-late\"]");
        free(text);
        json_decref(order);
        order = image_gc_candidates(records, in_use, 1000, 0);
        text = json_dumps(order, JSON_COMPACT);
        assert_string_equal(text, "[\"never-old\",\"never-young\",\"used-early\",\"used-late\"]");
        free(text);
        json_decref(order);
        json_decref(in_use);
        json_decref(records);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_policy_check),
                cmocka_unit_test(test_detect),
                cmocka_unit_test(test_candidates),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
