/* yaml.h: YAML request bodies read the way kube-apiserver reads them.
 *
 * kube-apiserver turns an application/yaml body (create, update) and an
 * application/apply-patch+yaml body (server-side apply) into JSON with sigs.k8s.io/yaml, which
 * decodes with go-yaml v2 into Go values and marshals those as JSON. yaml_to_json does the same
 * on libyaml, value for value, so a YAML body decodes to what its JSON twin decodes to:
 *
 * - Only the first document of a stream is read; later documents are ignored without being
 *   parsed (go-yaml's Unmarshal parses one document). An empty stream, or one holding only
 *   comments, is JSON null.
 * - Mappings become objects, sequences arrays. Keys are converted to strings as YAMLToJSON does:
 *   ints in decimal, floats as Go's FormatFloat(k, 'g', -1, 32) (".inf", "-.inf", ".nan"), bools
 *   "true"/"false"; a null or uint64 key is an error; a sequence or mapping key is an error. When
 *   two keys end up equal, the later one wins (upstream: Go map order, so either may win).
 * - Plain untagged scalars resolve per YAML 1.1 as go-yaml v2 does: y/Y/yes/Yes/YES/true/True/
 *   TRUE/on/On/ON are true, n/N/no/No/NO/false/False/FALSE/off/Off/OFF false, ""/~/null/Null/NULL
 *   null; integers as Go's ParseInt(s, 0, 64) after removing every "_" (0x, 0o, 0b, and a leading
 *   0 for octal), then ParseUint, then decimal floats; anything else is a string (timestamps
 *   too). Quoted and block scalars are strings.
 * - Tags !!str, !!int, !!float, !!bool, !!null and !!timestamp resolve the text as that type
 *   ("yaml: cannot decode !!str `x` as a !!int" when it is not one; !!float accepts an int),
 *   !!binary is base64-decoded; any other tag (!foo, !!map on a scalar) leaves a string.
 * - Anchors and aliases are expanded; merge keys "<<" follow go-yaml v2: entries are applied in
 *   document order, so a merge overrides keys written before it, and in a sequence of maps the
 *   earlier maps win.
 * - Numbers: a value whose JSON text (Go's json.Marshal) is an integer literal within int64
 *   becomes a JSON integer (so 1.0 and 1e3 are the integers 1 and 1000), other finite numbers a
 *   real; integers beyond int64 become reals, as Kubernetes' unstructured JSON decoding makes them
 *   float64. .inf and .nan fail: "json: unsupported value: +Inf".
 *
 * Limits, checked before the work they bound: at most YAML_MAX_INPUT_BYTES of input (else -E2BIG,
 * kube-apiserver's request body limit and words), collections nested at most YAML_MAX_DEPTH deep
 * (in the text and after alias expansion), at most YAML_MAX_NODES values decoded, go-yaml's alias
 * ratio check ("yaml: document contains excessive aliasing", which stops billion-laughs inputs
 * after about a thousand values), and a bounded recursion.
 *
 * Known differences from upstream, all on unusual input (Debian's libyaml 0.2.5 scans a few
 * things differently from go-yaml v2's older port of libyaml):
 * - a tag may not contain ',', '[' or ']' here (go-yaml takes them into the tag);
 * - in flow collections, '?' inside a plain scalar is part of it here (go-yaml: an error), and
 *   "x:" right before ',', '[', ']', '{' or '}' is an error here (go-yaml: the scalar "x:");
 * - on malformed input the two scanners may stop at different places, so the message differs;
 * - nesting deeper than YAML_MAX_DEPTH is refused (go-yaml allows 10000);
 * - messages that print Go maps order keys of mixed types by type name (bool, float64, int,
 *   string, uint64), as upstream's binary does but Go does not promise.
 *
 * Errors carry upstream's YAMLToJSON text: "yaml: line 3: mapping values are not allowed in this
 * context" (line numbers as go-yaml prints them: 1-based for scanner errors, libyaml's 0-based
 * line for parser errors, none for reader errors). kube-apiserver wraps that text per endpoint:
 * create/update answer "the object provided is unrecognized (must be of type Pod): <text>
 * (<first 30 bytes of the body> ...)", server-side apply answers "error decoding YAML: error
 * converting YAML to JSON: <text>". Both are 400 BadRequest. */
#ifndef FLEXLET_API_YAML_H
#define FLEXLET_API_YAML_H

#include <jansson.h>
#include <stddef.h>
#include "base/error.h"

/* K8S: the apiserver's request body limit (3 MiB); larger input is refused unparsed. */
#define YAML_MAX_INPUT_BYTES (3u * 1024 * 1024)
/* Deepest nesting of sequences and mappings, counting the outermost as 1. */
#define YAML_MAX_DEPTH 100
/* Most values (go-yaml's decode operations, aliases expanded) one document may produce. */
#define YAML_MAX_NODES 1000000

/* Converts the first YAML document in data[0..len) to a jansson value. data need not be
 * NUL-terminated and is only read. On success *ret receives a new value owned by the caller (any
 * JSON type; JSON null for an empty document) and 0 comes back. On failure *ret is untouched and:
 *   -E2BIG   len > YAML_MAX_INPUT_BYTES ("Request entity too large: limit is 3145728");
 *   -EINVAL  the text is not YAML, or cannot be JSON (messages above).
 * *reterr (when reterr is not NULL) then holds the message. Thread-safe; keeps no state. */
int yaml_to_json(const char *data, size_t len, json_t **ret, struct error **reterr);

#endif
