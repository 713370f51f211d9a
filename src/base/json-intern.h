/* json-intern.h: hash-consing of immutable JSON values. An interner keeps one instance of each
 * distinct value it has made (a string, a number, an array, an object with its keys in their
 * order), so equal parts of many objects are one shared value: the pods of one template share
 * their containers, tolerations and volume sources, every Event its source and reason. jansson
 * spends ~8 times a value's JSON text on it decoded (json_memory_size), so what many cached
 * objects have in common is most of what they cost.
 *
 * Only for values nobody modifies once made (the watch cache's objects, store/watch-cache.c):
 * a reader that changed a shared value would change every object holding it. */
#ifndef FLEXLET_BASE_JSON_INTERN_H
#define FLEXLET_BASE_JSON_INTERN_H

#include <stddef.h>
#include "base/json.h"

struct json_interner;

struct json_interner *json_interner_new(void);
/* Drops the interner's references (the values live on in whoever holds them). NULL-safe;
 * returns NULL. */
struct json_interner *json_interner_free(struct json_interner *in);

/* A copy of v made of the interner's values: equal to v, with every object's keys in v's
 * order, sharing each part with the equal part of anything interned before that is still
 * held; the parts it had no equal for become its values. A new reference; v is only read.
 * Thread-safe. Nesting deeper than JSON_INTERN_MAX_DEPTH is copied without sharing. */
#define JSON_INTERN_MAX_DEPTH 64
json_t *json_intern(struct json_interner *in, const json_t *v);

/* Lets go of the values only the interner still holds (nothing else references them, so
 * nothing else can: they are freed), and then of those that held only them; the number let
 * go. Each of its values would otherwise live as long as the interner: call it periodically.
 * Thread-safe. */
size_t json_interner_release(struct json_interner *in);

/* The number of values held. */
size_t json_interner_count(struct json_interner *in);

#endif
