/* test-alloc.c: the allocator's policy (base/alloc.h). Linked with jemalloc, as flexlet is: its
 * settings took effect, a thread has a cache only once it asks for one and keeps nothing in it
 * after each unit of work, and freed pages go back to the kernel when asked. The sanitizer
 * build links no jemalloc (its own malloc would not see the sanitizer's): there the controls
 * must do nothing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "base/alloc.h"

#if defined(__has_feature)
# if __has_feature(address_sanitizer)
#  define SANITIZED 1
# endif
#endif
#ifndef SANITIZED
# define SANITIZED 0
#endif

#define BLOCKS 4096

static bool ctl_bool(const char *name)
{
        bool v = false;
        size_t len = sizeof(v);

        assert_int_equal(mallctl(name, &v, &len, NULL, 0), 0);
        return v;
}

static size_t ctl_size(const char *name)
{
        uint64_t epoch = 1;
        size_t v = 0, len = sizeof(v), elen = sizeof(epoch);

        /* statistics are a snapshot taken at each new epoch */
        assert_int_equal(mallctl("epoch", &epoch, &elen, &epoch, elen), 0);
        assert_int_equal(mallctl(name, &v, &len, NULL, 0), 0);
        return v;
}

static void alloc_free_many(size_t size)
{
        void **p = xcalloc(BLOCKS, sizeof(*p));

        for (size_t i = 0; i < BLOCKS; i++)
                p[i] = xmalloc(size);
        for (size_t i = 0; i < BLOCKS; i++)
                free(p[i]);
        free(p);
}

static void test_settings(void **state)
{
        unsigned narenas = 0;
        ssize_t muzzy = -1;
        size_t len = sizeof(narenas), mlen = sizeof(muzzy);

        if (SANITIZED) {
                assert_null(mallctl);
                return;
        }
        assert_non_null(mallctl);
        assert_int_equal(mallctl("opt.narenas", &narenas, &len, NULL, 0), 0);
        assert_int_equal(narenas, 1);
        assert_false(ctl_bool("opt.tcache"));
        assert_int_equal(mallctl("opt.muzzy_decay_ms", &muzzy, &mlen, NULL, 0), 0);
        assert_int_equal(muzzy, 0);
}

/* In a thread of its own: the cache's life is the thread's. */
static void *work_thread(void *arg)
{
        size_t *held = arg;

        held[0] = ctl_bool("thread.tcache.enabled");
        alloc_work_begin();
        held[1] = ctl_bool("thread.tcache.enabled");
        alloc_free_many(64);
        held[2] = ctl_size("stats.arenas.0.tcache_bytes");
        alloc_work_end();
        held[3] = ctl_size("stats.arenas.0.tcache_bytes");
        /* a second unit of work, the cache still on */
        alloc_free_many(64);
        alloc_work_end();
        held[4] = ctl_size("stats.arenas.0.tcache_bytes");
        return NULL;
}

static void test_work_cache(void **state)
{
        size_t held[5] = { 0 };
        pthread_t t;

        if (SANITIZED) {
                alloc_work_begin();
                alloc_free_many(64);
                alloc_work_end();
                assert_null(mallctl);
                return;
        }
        assert_int_equal(pthread_create(&t, NULL, work_thread, held), 0);
        assert_int_equal(pthread_join(t, NULL), 0);
        print_message("# tcache bytes: %zu while working, %zu and %zu after\n", held[2], held[3],
                      held[4]);
        assert_int_equal(held[0], 0); /* no cache before asking */
        assert_int_equal(held[1], 1);
        assert_true(held[2] > 0); /* the freed blocks wait in the cache */
        assert_int_equal(held[3], 0);
        assert_int_equal(held[4], 0);
        /* this thread never asked */
        assert_false(ctl_bool("thread.tcache.enabled"));
}

static void test_release_free(void **state)
{
        size_t dirty, after;

        alloc_free_many(16384); /* 64 MiB of whole pages, freed */
        if (SANITIZED) {
                alloc_release_free();
                assert_null(mallctl);
                return;
        }
        dirty = ctl_size("stats.arenas.0.pdirty");
        alloc_release_free();
        after = ctl_size("stats.arenas.0.pdirty");
        print_message("# dirty pages: %zu before the release, %zu after\n", dirty, after);
        assert_true(dirty >= BLOCKS * 16384 / 4096 / 2);
        assert_int_equal(after, 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_settings),
                cmocka_unit_test(test_work_cache),
                cmocka_unit_test(test_release_free),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
