/* json-intern.c: the interner of json-intern.h: an open-addressing hash set (linear probing,
 * backward-shift deletion) of the values it made, each holding one reference. A value is
 * found by its shape: a string's or number's content; an array's elements and an object's
 * key/value pairs in order, the elements being interned first so that equal ones are the
 * same pointer and a container compares its elements by address. The hash is seeded at
 * random and a lookup probes at most MAX_PROBE slots (a value that finds no free slot within
 * them is made but not kept), so input crafted to collide costs bounded time. */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "base/json-intern.h"

#define MIN_SLOTS      1024
#define MAX_PROBE      128
#define LOCAL_PARTS    16 /* a container's parts kept on the stack up to this many */
#define LOAD_PERCENT   70 /* grows beyond */
#define SHRINK_PERCENT 30 /* halves below (the half is then below 60 %) */

struct slot {
        uint64_t hash;
        json_t *v; /* NULL: free */
};

struct json_interner {
        pthread_mutex_t lock;
        struct slot *slots;
        size_t mask; /* slots - 1, a power of two minus one */
        size_t count;
        uint64_t seed;
};

/* What a value to intern looks like, its parts already interned (addresses compared). */
struct shape {
        json_type type;
        const char *text; /* a string's bytes */
        size_t len;       /* a string's length; an array's or object's size */
        json_int_t integer;
        double real;
        const char *const *keys; /* an object's, in order */
        json_t *const *parts;    /* an array's elements, an object's values, in order */
};

/* splitmix64's finaliser */
static uint64_t mix(uint64_t x)
{
        x ^= x >> 30;
        x *= 0xbf58476d1ce4e5b9ULL;
        x ^= x >> 27;
        x *= 0x94d049bb133111ebULL;
        return x ^ (x >> 31);
}

static uint64_t shape_hash(const struct json_interner *in, const struct shape *s)
{
        uint64_t h = mix(in->seed ^ (uint64_t) s->type);

        switch (s->type) {
        case JSON_STRING:
                return mix(hash_fnv1a(h, s->text, s->len));
        case JSON_INTEGER:
                return mix(h ^ (uint64_t) s->integer);
        case JSON_REAL: {
                uint64_t bits;

                memcpy(&bits, &s->real, sizeof(bits));
                return mix(h ^ bits);
        }
        default:
                for (size_t i = 0; i < s->len; i++) {
                        if (s->keys)
                                h = hash_fnv1a(h, s->keys[i], strlen(s->keys[i]) + 1);
                        h = mix(h ^ (uint64_t) (uintptr_t) s->parts[i]);
                }
                return mix(h ^ s->len);
        }
}

static bool shape_is(const json_t *v, const struct shape *s)
{
        const char *key;
        json_t *value;
        size_t i = 0;

        if (json_typeof(v) != s->type)
                return false;
        switch (s->type) {
        case JSON_STRING:
                return json_string_length(v) == s->len &&
                       memcmp(json_string_value(v), s->text, s->len) == 0;
        case JSON_INTEGER:
                return json_integer_value(v) == s->integer;
        case JSON_REAL: {
                double d = json_real_value(v);

                return memcmp(&d, &s->real, sizeof(d)) == 0;
        }
        case JSON_ARRAY:
                if (json_array_size(v) != s->len)
                        return false;
                for (i = 0; i < s->len; i++)
                        if (json_array_get(v, i) != s->parts[i])
                                return false;
                return true;
        default:
                if (json_object_size(v) != s->len)
                        return false;
                json_object_foreach((json_t *) v, key, value) {
                        if (value != s->parts[i] || !streq(key, s->keys[i]))
                                return false;
                        i++;
                }
                return true;
        }
}

static size_t refs(const json_t *v)
{
        return __atomic_load_n(&v->refcount, __ATOMIC_ACQUIRE);
}

/* Moves the values to a table of n slots (a power of two). */
static void rehash(struct json_interner *in, size_t n)
{
        struct slot *old = in->slots;
        size_t old_n = in->mask + 1;

        in->slots = xcalloc(n, sizeof(*in->slots));
        in->mask = n - 1;
        in->count = 0;
        for (size_t i = 0; i < old_n; i++) {
                if (!old[i].v)
                        continue;
                for (size_t p = 0; p < MAX_PROBE; p++) {
                        struct slot *s = &in->slots[(old[i].hash + p) & in->mask];

                        if (!s->v) {
                                *s = old[i];
                                in->count++;
                                break;
                        }
                        if (p == MAX_PROBE - 1)
                                json_decref(old[i].v); /* no room near home: no longer kept */
                }
        }
        free(old);
}

/* The value of shape s, found or made (a new reference); takes over the references s->parts
 * hold. */
static json_t *find_or_make(struct json_interner *in, const struct shape *s)
{
        uint64_t h = shape_hash(in, s);
        struct slot *free_slot = NULL;
        json_t *v;

        for (size_t p = 0; p < MAX_PROBE; p++) {
                struct slot *t = &in->slots[(h + p) & in->mask];

                if (!t->v) {
                        free_slot = t;
                        break;
                }
                if (t->hash == h && shape_is(t->v, s)) {
                        for (size_t i = 0; s->parts && i < s->len; i++)
                                json_decref(s->parts[i]);
                        return json_incref(t->v);
                }
        }
        switch (s->type) {
        case JSON_STRING:
                v = json_stringn_nocheck(s->text, s->len);
                break;
        case JSON_INTEGER:
                v = json_integer(s->integer);
                break;
        case JSON_REAL:
                v = json_real(s->real);
                break;
        case JSON_ARRAY:
                v = json_array();
                for (size_t i = 0; v && i < s->len; i++)
                        (void) json_array_append_new(v, s->parts[i]);
                break;
        default:
                v = json_object();
                for (size_t i = 0; v && i < s->len; i++)
                        (void) json_object_set_new_nocheck(v, s->keys[i], s->parts[i]);
                break;
        }
        if (!v)
                abort(); /* out of memory, as xmalloc */
        if (free_slot) {
                *free_slot = (struct slot){ h, json_incref(v) };
                in->count++;
                if (in->count * 100 > (in->mask + 1) * LOAD_PERCENT)
                        rehash(in, (in->mask + 1) * 2);
        }
        return v;
}

static json_t *intern(struct json_interner *in, const json_t *v, int depth);

/* An array's or object's shape: its parts interned into parts (and keys), then found or made. */
static json_t *intern_container(struct json_interner *in, const json_t *v, int depth)
{
        const char *local_keys[LOCAL_PARTS];
        json_t *local_parts[LOCAL_PARTS];
        struct shape s = { .type = json_typeof(v) };
        const char **keys = local_keys;
        json_t **parts = local_parts;
        const char *key;
        json_t *value, *made;
        size_t i = 0;

        s.len = s.type == JSON_ARRAY ? json_array_size(v) : json_object_size(v);
        if (s.len > LOCAL_PARTS) {
                parts = xmalloc(s.len * sizeof(*parts));
                keys = s.type == JSON_OBJECT ? xmalloc(s.len * sizeof(*keys)) : NULL;
        }
        if (s.type == JSON_ARRAY) {
                json_array_foreach(v, i, value)
                        parts[i] = intern(in, value, depth + 1);
        } else {
                json_object_foreach((json_t *) v, key, value) {
                        keys[i] = key;
                        parts[i++] = intern(in, value, depth + 1);
                }
                s.keys = keys;
        }
        s.parts = parts;
        made = find_or_make(in, &s);
        if (parts != local_parts) {
                free(parts);
                if (keys != local_keys)
                        free(keys);
        }
        return made;
}

static json_t *intern(struct json_interner *in, const json_t *v, int depth)
{
        struct shape s = { .type = json_typeof(v) };

        switch (s.type) {
        case JSON_STRING:
                s.text = json_string_value(v);
                s.len = json_string_length(v);
                return find_or_make(in, &s);
        case JSON_INTEGER:
                s.integer = json_integer_value(v);
                return find_or_make(in, &s);
        case JSON_REAL:
                s.real = json_real_value(v);
                return find_or_make(in, &s);
        case JSON_ARRAY:
        case JSON_OBJECT:
                if (depth >= JSON_INTERN_MAX_DEPTH)
                        return json_deep_copy(v);
                return intern_container(in, v, depth);
        default: /* true, false and null: jansson's singletons */
                return json_incref((json_t *) v);
        }
}

struct json_interner *json_interner_new(void)
{
        struct json_interner *in = xcalloc(1, sizeof(*in));

        pthread_mutex_init(&in->lock, NULL);
        in->slots = xcalloc(MIN_SLOTS, sizeof(*in->slots));
        in->mask = MIN_SLOTS - 1;
        in->seed = hash_seed();
        return in;
}

struct json_interner *json_interner_free(struct json_interner *in)
{
        if (!in)
                return NULL;
        for (size_t i = 0; i <= in->mask; i++)
                json_decref(in->slots[i].v);
        free(in->slots);
        pthread_mutex_destroy(&in->lock);
        free(in);
        return NULL;
}

json_t *json_intern(struct json_interner *in, const json_t *v)
{
        json_t *made;

        if (!v)
                return NULL;
        pthread_mutex_lock(&in->lock);
        made = intern(in, v, 0);
        pthread_mutex_unlock(&in->lock);
        return made;
}

/* Empties slot i and shifts back the values after it that probed past it (linear probing's
 * deletion without tombstones). */
static void remove_slot(struct json_interner *in, size_t i)
{
        size_t j = i;

        in->slots[i].v = NULL;
        in->count--;
        for (;;) {
                size_t home;

                j = (j + 1) & in->mask;
                if (!in->slots[j].v)
                        return;
                home = in->slots[j].hash & in->mask;
                /* the value at j may move to i when its home is not in (i, j], cyclically */
                if (((j - home) & in->mask) >= ((j - i) & in->mask)) {
                        in->slots[i] = in->slots[j];
                        in->slots[j].v = NULL;
                        i = j;
                }
        }
}

size_t json_interner_release(struct json_interner *in)
{
        size_t total = 0, round;

        pthread_mutex_lock(&in->lock);
        /* a container let go releases its parts, which a later round finds held by the
         * interner alone; a round that lets nothing go ends it (a value shifted back over
         * the scan's position waits for that round) */
        do {
                round = 0;
                for (size_t i = 0; i <= in->mask; i++) {
                        json_t *v = in->slots[i].v;

                        while (v && refs(v) == 1) {
                                remove_slot(in, i);
                                json_decref(v);
                                round++;
                                v = in->slots[i].v; /* what shifted into i */
                        }
                }
                total += round;
        } while (round > 0);
        if (in->mask + 1 > MIN_SLOTS && in->count * 100 < (in->mask + 1) * SHRINK_PERCENT)
                rehash(in, (in->mask + 1) / 2);
        pthread_mutex_unlock(&in->lock);
        return total;
}

size_t json_interner_count(struct json_interner *in)
{
        size_t n;

        pthread_mutex_lock(&in->lock);
        n = in->count;
        pthread_mutex_unlock(&in->lock);
        return n;
}
