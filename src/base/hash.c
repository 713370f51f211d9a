/* hash.c: FNV-1a and the process's hash seed (hash.h). */
#include <stdbool.h>
#include <sys/random.h>
#include <time.h>

#include "base/hash.h"

uint64_t hash_fnv1a(uint64_t h, const void *data, size_t n)
{
        const unsigned char *p = data;

        for (size_t i = 0; i < n; i++)
                h = (h ^ p[i]) * 0x100000001b3ULL;
        return h;
}

uint64_t hash_seed(void)
{
        static uint64_t seed;
        uint64_t s = __atomic_load_n(&seed, __ATOMIC_RELAXED), fresh = 0, expected = 0;

        if (s)
                return s;
        if (getrandom(&fresh, sizeof(fresh), GRND_NONBLOCK) != (ssize_t) sizeof(fresh))
                fresh = (uint64_t) time(NULL) ^ (uint64_t) (uintptr_t) &seed;
        fresh |= 1;
        /* set once: every caller sees the first seed made */
        __atomic_compare_exchange_n(&seed, &expected, fresh, false, __ATOMIC_RELAXED,
                                    __ATOMIC_RELAXED);
        return __atomic_load_n(&seed, __ATOMIC_RELAXED);
}
