/* hash.h: the one non-cryptographic hash of the code base (FNV-1a, 64 bits) and the process's
 * random seed for hash tables keyed by what a client or a pod chooses (so nobody can prepare
 * keys that collide): the YAML anchors, the strategic merge patch's key index, the JSON
 * interner, the payload digests of the node's volumes. */
#ifndef FLEXLET_BASE_HASH_H
#define FLEXLET_BASE_HASH_H

#include <stddef.h>
#include <stdint.h>

/* FNV-1a's 64-bit offset basis: where a hash starts (xored with hash_seed() for a table) */
#define HASH_FNV_OFFSET 0xcbf29ce484222325ULL

/* FNV-1a of n bytes at data, continuing from h. */
uint64_t hash_fnv1a(uint64_t h, const void *data, size_t n);

/* One random odd number per process (getrandom; the time and an address when it has none),
 * the same from every thread. */
uint64_t hash_seed(void);

#endif
