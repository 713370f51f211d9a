/* test-json.c: the JSON helpers of base/json.h that controllers and the node read objects with:
 * dotted paths, their string getters, and string membership of an array; json_memory_size
 * against what jemalloc, flexlet's allocator (linked here as in flexlet), counts a decode
 * took. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "base/alloc.h"
#include "base/json.h"

static json_t *object(void)
{
        return json_pack("{s:{s:s, s:i, s:[s,i,s]}}", "metadata", "name", "web", "generation", 3,
                         "finalizers", "a/one", 7, "kubernetes.io/pvc-protection");
}

static void test_path_strings(void **state)
{
        cleanup_json json_t *o = object();

        (void) state;
        assert_string_equal(json_path_string(o, "metadata.name"), "web");
        assert_null(json_path_string(o, "metadata.generation")); /* not a string */
        assert_null(json_path_string(o, "metadata.missing"));
        assert_null(json_path_string(o, "spec.name"));
        assert_string_equal(json_path_string_or_empty(o, "metadata.name"), "web");
        assert_string_equal(json_path_string_or_empty(o, "metadata.generation"), "");
        assert_string_equal(json_path_string_or_empty(o, "spec.name"), "");
        assert_string_equal(json_path_string_or_empty(NULL, "metadata.name"), "");
}

static void test_array_has_string(void **state)
{
        cleanup_json json_t *o = object();
        json_t *finalizers = json_path(o, "metadata.finalizers");

        (void) state;
        assert_true(json_array_has_string(finalizers, "kubernetes.io/pvc-protection"));
        assert_true(json_array_has_string(finalizers, "a/one"));
        assert_false(json_array_has_string(finalizers, "kubernetes.io/pv-protection"));
        assert_false(json_array_has_string(finalizers, "7")); /* a number is not a string */
        assert_false(json_array_has_string(json_path(o, "metadata.name"), "web"));
        assert_false(json_array_has_string(NULL, "a/one"));
}

/* The bytes this thread holds, allocated less freed, as jemalloc counts them (each block its
 * size class); 0 without jemalloc (the sanitizer build). */
static uint64_t thread_allocated(void)
{
        uint64_t in = 0, out = 0;
        size_t len = sizeof(in);

        if (!mallctl || mallctl("thread.allocated", &in, &len, NULL, 0) != 0 ||
            mallctl("thread.deallocated", &out, &len, NULL, 0) != 0)
                return 0;
        return in - out;
}

/* The watch cache's memory bound counts decoded objects with json_memory_size: it must match
 * what the allocator really handed out for a decoded pod (about 11 times its text) and for a
 * large string (about its length). */
static void test_memory_size(void **state)
{
        static const char *const texts[] = {
                "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"web-0\","
                "\"namespace\":\"default\",\"uid\":\"9bc301de-2776-43f4-8051-f85339a0427a\","
                "\"labels\":{\"app\":\"web\",\"tier\":\"front\"}},\"spec\":{\"containers\":[{"
                "\"name\":\"c\",\"image\":\"busybox\",\"args\":[\"sleep\",\"3600\"],"
                "\"resources\":{\"requests\":{\"cpu\":\"100m\",\"memory\":\"64Mi\"}}}],"
                "\"terminationGracePeriodSeconds\":30,\"enableServiceLinks\":true,"
                "\"tolerations\":[{\"key\":\"node.kubernetes.io/not-ready\",\"operator\":"
                "\"Exists\",\"effect\":\"NoExecute\",\"tolerationSeconds\":300}]},"
                "\"status\":{\"phase\":\"Pending\",\"qosClass\":\"Burstable\"}}",
                "[1,2.5,null,true,\"a string of some length, more than sixteen bytes\",{},[]]",
        };
        enum { COPIES = 64 };

        (void) state;
        for (size_t t = 0; t < sizeof(texts) / sizeof(texts[0]); t++) {
                json_t *copies[COPIES];
                uint64_t before = thread_allocated();
                size_t used, want;

                for (int i = 0; i < COPIES; i++)
                        copies[i] = json_loads(texts[t], 0, NULL);
                used = (size_t) (thread_allocated() - before) / COPIES;
                want = json_memory_size(copies[0]);
                for (int i = 0; i < COPIES; i++)
                        json_decref(copies[i]);
                if (used == 0) {
                        print_message("# SKIP: the allocator is not jemalloc (a sanitizer's)\n");
                        return;
                }
                print_message("# %zu bytes of text: malloc %zu, json_memory_size %zu\n",
                              strlen(texts[t]), used, want);
                assert_true(want * 100 >= used * 95 && want * 100 <= used * 105);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_path_strings),
                cmocka_unit_test(test_array_has_string),
                cmocka_unit_test(test_memory_size),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
