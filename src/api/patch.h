/* patch.h: the three PATCH engines of kube-apiserver and the merge behind server-side apply.
 *
 * Each engine takes the current object and a decoded patch as jansson values and computes the
 * patched object. Ownership: `original`/`live` and `patch`/`applied` are borrowed and never
 * modified; on success *ret receives a new value owned by the caller that shares nothing with
 * the inputs. On failure *ret is untouched, a negative errno comes back and *reterr (when reterr
 * is not NULL) carries upstream's words, so the apiserver can put them in the Status message:
 *
 *   -EINVAL  the patch cannot be used as such (400 BadRequest): wrong shape, bad directive,
 *            missing merge key, nesting deeper than PATCH_MAX_DEPTH;
 *   -E2BIG   a JSON patch with more than PATCH_JSON_MAX_OPS operations, or whose copies grow the
 *            document by more than PATCH_JSON_MAX_COPY_BYTES (413 RequestEntityTooLarge);
 *   -EBADMSG a well-formed JSON patch that does not apply: missing path, failed test, bad index
 *            (422, as kube-apiserver answers).
 *
 * Inputs may be hostile: every function checks JSON types before use, caps nesting depth (both
 * documents) and does hashed look-ups, so time stays near-linear in the size of the inputs.
 * Nothing here logs, allocates outside jansson/xmalloc, or keeps state between calls. */
#ifndef FLEXLET_API_PATCH_H
#define FLEXLET_API_PATCH_H

#include <jansson.h>
#include "api/schema.h"
#include "base/error.h"

/* Deepest nesting of objects/arrays accepted in an original or a patch. */
#define PATCH_MAX_DEPTH 100
/* K8S: apiserver maxJSONPatchOperations. */
#define PATCH_JSON_MAX_OPS 10000
/* Cap on the bytes "copy" operations may add (evanphx AccumulatedCopySizeLimit). */
#define PATCH_JSON_MAX_COPY_BYTES (4u * 1024 * 1024)

/* application/strategic-merge-patch+json, as strategicpatch.StrategicMergePatch applies it on
 * the server. `schema` is the kind's root schema (NULL: everything free-form). original and
 * patch must be objects (a JSON null patch is a no-op).
 * - maps merge recursively; a null value deletes the key;
 * - SCHEMA_LIST_MAP lists merge by merge_key (matches merged, new elements appended), the
 *   result ordered as upstream orders it: patch order first, server-only elements interleaved at
 *   their old relative places; SCHEMA_LIST_SET primitive lists are unioned; atomic lists, and
 *   lists and maps with no schema (SCHEMA_ANY or unknown fields), are replaced / merged as in
 *   JSON merge patch;
 * - directives: "$patch": "replace" | "delete" | "merge" in a map, list elements
 *   {"$patch":"replace"} and {"$patch":"delete", <key>: v}, "$setElementOrder/<field>",
 *   "$deleteFromPrimitiveList/<field>", "$retainKeys" (honoured wherever it appears, as upstream
 *   does). No directive ever appears in the result.
 * Upstream behaviours kept on purpose: "$patch":"delete" in a map leaves {} in place of that map;
 * "$patch":"merge" as a list element is an error. Deviations: "$patch":"merge" in a map is the
 * default rather than an error; a map carrying "$patch":"replace" where the original has nothing
 * becomes the rest of that map (upstream drops it); merge keys compare by JSON value (numbers
 * numerically) where upstream would panic on non-scalar keys. */
int patch_strategic_merge(const json_t *original, const json_t *patch, const struct schema *schema,
                          json_t **ret, struct error **reterr);

/* application/merge-patch+json, RFC 7386: a non-object patch replaces the target; an object
 * merges key by key, null deletes. As evanphx/json-patch (kube's engine), nulls are also pruned
 * from objects inside newly inserted arrays. */
int patch_merge(const json_t *original, const json_t *patch, json_t **ret, struct error **reterr);

/* application/json-patch+json, RFC 6902 with evanphx/json-patch v4 semantics and messages (kube
 * 1.33): add/remove/replace/move/copy/test, JSON Pointer with ~0/~1, "-" appends, negative
 * array indices count from the end. Kube quirks kept: "replace" of a missing object member adds
 * it; "add" without "value" adds null; the root path "" works for replace and test only; "test"
 * of a missing member against null succeeds. The patch must be an array of objects (null: no
 * operations); more than PATCH_JSON_MAX_OPS operations is -E2BIG. */
int patch_json(const json_t *original, const json_t *patch, json_t **ret, struct error **reterr);

/* application/apply-patch+yaml, minimal server-side apply (kubectl-wire.md §4.5): `applied` is
 * merged onto `live` as a strategic merge patch without directives: maps merge, map-lists merge
 * by key (every applied element must carry the key, once; messages as structured-merge-diff's,
 * e.g. `.spec.containers: element 1: associative list with keys has an element that omits key
 * field "name" (and doesn't have default value)`), sets union, atomic lists replace. Merged
 * lists are ordered as structured-merge-diff orders them: live-only items stay in place, applied
 * items follow the applied order. Nulls in the applied configuration are ignored; keys starting
 * with '$' are plain data. No field ownership: fields the manager stops applying are not pruned
 * and there are no conflicts. live NULL (object absent) gives the applied object, nulls
 * dropped. */
int patch_apply(const json_t *live, const json_t *applied, const struct schema *schema,
                json_t **ret, struct error **reterr);

#endif
