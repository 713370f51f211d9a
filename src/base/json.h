/* json.h: jansson helpers used across subsystems: cleanup, path lookup, typed getters.
 * Every object in flexlet is a jansson json_t between decode and encode; the schema
 * (api/schema.h) says what shape each kind has. */
#ifndef FLEXLET_BASE_JSON_H
#define FLEXLET_BASE_JSON_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include "base/macro.h"

/* jansson 2.14 provides json_decrefp. */
#define cleanup_json __attribute__((cleanup(json_decrefp)))

/* Follows a dotted path of object keys ("metadata.name"); NULL when any step is missing. */
json_t *json_path(const json_t *root, const char *dotted);
/* The string at a dotted path, or NULL when absent or not a string. */
const char *json_path_string(const json_t *root, const char *dotted);
/* The same, or "" when absent or not a string. */
const char *json_path_string_or_empty(const json_t *root, const char *dotted);
/* Whether array (NULL or not an array: no) holds the string s. */
bool json_array_has_string(const json_t *array, const char *s);
/* Gets or creates the object at key (replacing a non-object value). Borrowed reference. */
json_t *json_object_ensure(json_t *obj, const char *key);
/* Sorts array in place with qsort's cmp, which is given two json_t *const * (the elements). */
void json_array_sort(json_t *array, int (*cmp)(const void *, const void *));
/* Serialises compactly with sorted keys off (insertion order kept); caller frees. */
char *json_dump_compact(const json_t *v);
/* K8S: the word Go's encoding/json uses for a value's type in "cannot unmarshal X into ...":
 * "object", "array", "string", "number", "bool" or "null". */
const char *json_go_kind(const json_t *v);
/* The text of a JSON string or number: a string as it is, an integer in decimal, a real in the
 * fewest digits that read back the same double (jansson keeps no source text, so "1e3" comes
 * back as "1000" and "0.5" as "0.5"). NULL for anything else. buf (JSON_NUMBER_TEXT_MAX bytes)
 * holds a number's text. */
#define JSON_NUMBER_TEXT_MAX 32
const char *json_scalar_text(const json_t *v, char buf[static JSON_NUMBER_TEXT_MAX]);
struct quantity;
/* A quantity given as a JSON string or number (in json_scalar_text's text): 0 with *ret, or
 * -EINVAL for any other value or text that is no quantity. */
int json_quantity(const json_t *v, struct quantity *ret);
/* True when v is NULL, JSON null, an empty object or an empty array. */
bool json_is_empty(const json_t *v);
/* The heap v holds as jansson 2.14 lays it out (each value's struct, an object's hash buckets
 * and key pairs, an array's table, a string's bytes), each block rounded to jemalloc's size
 * class (base/alloc.h): what a cache of decoded objects really costs. A small object (a pod)
 * takes about 10 times its JSON text, a large string about its length. */
size_t json_memory_size(const json_t *v);

#endif
