/* test-json-intern.c: the interner of base/json-intern.h: an interned copy equals its source
 * and keeps its key order; equal parts of different values are one value; values that differ
 * in type, content or key order stay apart; release lets go of exactly what nothing else
 * holds, through containers to their parts; many values (the table grows and shrinks), deep
 * nesting, and threads interning and releasing at once. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/json-intern.h"

static const char POD[] =
        "{\"metadata\":{\"name\":\"%s\",\"namespace\":\"default\",\"uid\":\"%s\"},"
        "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"busybox\",\"command\":[\"sleep\","
        "\"3600\"],\"resources\":{\"requests\":{\"cpu\":\"100m\"}}}],\"tolerations\":[{\"key\":"
        "\"node.kubernetes.io/not-ready\",\"operator\":\"Exists\",\"effect\":\"NoExecute\","
        "\"tolerationSeconds\":300}],\"priority\":0,\"weight\":0.5,\"hostNetwork\":true,"
        "\"nodeName\":null}}";

static json_t *pod(const char *name, const char *uid)
{
        char text[sizeof(POD) + 64];

        (void) snprintf(text, sizeof(text), POD, name, uid);
        return json_loads(text, 0, NULL);
}

/* the interned copy equals the source, and dumps the same text (key order kept) */
static void assert_same_text(const json_t *a, const json_t *b)
{
        cleanup_free char *ta = json_dumps(a, JSON_COMPACT | JSON_ENCODE_ANY);
        cleanup_free char *tb = json_dumps(b, JSON_COMPACT | JSON_ENCODE_ANY);

        assert_true(json_equal(a, b));
        assert_string_equal(ta, tb);
}

static void test_equal_parts_shared(void **state)
{
        struct json_interner *in = json_interner_new();
        cleanup_json json_t *p1 = pod("one", "u1"), *p2 = pod("two", "u2");
        cleanup_json json_t *i1 = json_intern(in, p1), *i2 = json_intern(in, p2);
        cleanup_json json_t *again = json_intern(in, p1);

        (void) state;
        assert_same_text(p1, i1);
        assert_same_text(p2, i2);
        assert_ptr_not_equal(i1, p1); /* a copy: the source is only read */
        /* the spec is one value; the metadata differ but share their namespace */
        assert_ptr_equal(json_object_get(i1, "spec"), json_object_get(i2, "spec"));
        assert_ptr_not_equal(json_object_get(i1, "metadata"), json_object_get(i2, "metadata"));
        assert_ptr_equal(json_path(i1, "metadata.namespace"), json_path(i2, "metadata.namespace"));
        /* the same value interned again is the same pointer, whole */
        assert_ptr_equal(again, i1);
        /* one string wherever it appears: "c" is a container's name */
        {
                cleanup_json json_t *c = json_string("c");
                cleanup_json json_t *ic = json_intern(in, c);

                assert_ptr_equal(
                        ic, json_path(json_array_get(json_path(i1, "spec.containers"), 0), "name"));
        }
        json_interner_free(in);
}

static void test_different_values_apart(void **state)
{
        struct json_interner *in = json_interner_new();
        cleanup_json json_t *values = json_loads(
                "[\"1\", 1, 1.0, true, null, \"\", [], {}, [1, 2], [2, 1], {\"a\":1,\"b\":2},"
                " {\"b\":2,\"a\":1}, {\"a\":1}, {\"a\":\"1\"}, [[1]], [[1.0]]]",
                0, NULL);
        cleanup_json json_t *interned = json_intern(in, values);
        json_t *nul1 = json_stringn("a\0b", 3), *nul2 = json_stringn("a\0c", 3);
        json_t *i_nul1 = json_intern(in, nul1), *i_nul2 = json_intern(in, nul2);

        (void) state;
        assert_same_text(values, interned);
        for (size_t i = 0; i < json_array_size(interned); i++)
                for (size_t j = 0; j < i; j++)
                        if (json_array_get(interned, i) == json_array_get(interned, j))
                                fail_msg("values %zu and %zu are one", j, i);
        /* the same keys in another order stay apart: each dumps as it was written */
        assert_true(json_equal(json_array_get(interned, 10), json_array_get(interned, 11)));
        /* strings with a NUL inside compare all their bytes */
        assert_ptr_not_equal(i_nul1, i_nul2);
        assert_int_equal(json_string_length(i_nul1), 3);
        assert_memory_equal(json_string_value(i_nul2), "a\0c", 3);
        json_decref(nul1);
        json_decref(nul2);
        json_decref(i_nul1);
        json_decref(i_nul2);
        json_interner_free(in);
}

static void test_release(void **state)
{
        struct json_interner *in = json_interner_new();
        cleanup_json json_t *p1 = pod("one", "u1"), *p2 = pod("two", "u2");
        json_t *i1 = json_intern(in, p1), *i2 = json_intern(in, p2);
        size_t held = json_interner_count(in);

        (void) state;
        /* both held: nothing goes */
        assert_int_equal(json_interner_release(in), 0);
        assert_int_equal(json_interner_count(in), held);
        /* the first let go: what only it held goes (its metadata, its name and uid, the pod
         * itself), what the second shares stays, and stays right */
        json_decref(i1);
        assert_int_equal(json_interner_release(in), 4);
        assert_int_equal(json_interner_count(in), held - 4);
        assert_same_text(p2, i2);
        /* the second let go: nothing left */
        json_decref(i2);
        assert_int_equal(json_interner_release(in), held - 4);
        assert_int_equal(json_interner_count(in), 0);
        json_interner_free(in);
}

/* Thousands of distinct values: the table grows, a release shrinks it, the survivors are
 * still found (interning them again makes nothing new). */
static void test_many(void **state)
{
        enum { N = 20000 };
        struct json_interner *in = json_interner_new();
        json_t **kept = calloc(N, sizeof(*kept));
        size_t held;

        (void) state;
        for (int i = 0; i < N; i++) {
                cleanup_json json_t *v = json_pack("{s:i, s:s}", "n", i, "kind", "Pod");

                kept[i] = json_intern(in, v);
        }
        held = json_interner_count(in);
        assert_int_equal(held, 2 * N + 1); /* the objects, the numbers and "Pod" */
        for (int i = 0; i < N; i++)
                if (i % 10) {
                        json_decref(kept[i]);
                        kept[i] = NULL;
                }
        assert_int_equal(json_interner_release(in), 2 * (N - N / 10));
        for (int i = 0; i < N; i += 10) {
                cleanup_json json_t *v = json_pack("{s:i, s:s}", "n", i, "kind", "Pod");
                cleanup_json json_t *again = json_intern(in, v);

                assert_ptr_equal(again, kept[i]);
                json_decref(kept[i]);
        }
        assert_int_equal(json_interner_count(in), 2 * (N / 10) + 1);
        free(kept);
        json_interner_free(in);
}

/* Nesting past JSON_INTERN_MAX_DEPTH is copied: still equal, the shallow parts still shared. */
static void test_deep(void **state)
{
        struct json_interner *in = json_interner_new();
        cleanup_json json_t *deep = json_string("bottom");
        cleanup_json json_t *a = NULL, *b = NULL;

        (void) state;
        for (int i = 0; i < JSON_INTERN_MAX_DEPTH * 2; i++)
                deep = json_pack("[o]", deep);
        a = json_intern(in, deep);
        b = json_intern(in, deep);
        assert_true(json_equal(a, deep));
        assert_true(json_equal(b, deep));
        json_interner_free(in);
}

struct worker {
        struct json_interner *in;
        int id;
        int mismatches;
};

static void *work(void *arg)
{
        struct worker *w = arg;

        for (int round = 0; round < 200; round++) {
                char name[32], uid[32];

                (void) snprintf(name, sizeof(name), "p%d", round % 17);
                (void) snprintf(uid, sizeof(uid), "u%d-%d", w->id, round);
                {
                        cleanup_json json_t *p = pod(name, uid);
                        cleanup_json json_t *i = json_intern(w->in, p);

                        if (!json_equal(p, i))
                                w->mismatches++;
                }
                if (round % 20 == 0)
                        (void) json_interner_release(w->in);
        }
        return NULL;
}

static void test_threads(void **state)
{
        struct json_interner *in = json_interner_new();
        struct worker w[4];
        pthread_t t[4];

        (void) state;
        for (int i = 0; i < 4; i++) {
                w[i] = (struct worker){ .in = in, .id = i };
                assert_int_equal(pthread_create(&t[i], NULL, work, &w[i]), 0);
        }
        for (int i = 0; i < 4; i++) {
                assert_int_equal(pthread_join(t[i], NULL), 0);
                assert_int_equal(w[i].mismatches, 0);
        }
        (void) json_interner_release(in);
        assert_int_equal(json_interner_count(in), 0);
        json_interner_free(in);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_equal_parts_shared),
                cmocka_unit_test(test_different_values_apart),
                cmocka_unit_test(test_release),
                cmocka_unit_test(test_many),
                cmocka_unit_test(test_deep),
                cmocka_unit_test(test_threads),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
