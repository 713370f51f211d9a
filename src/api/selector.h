/* selector.h: Kubernetes label selectors (labelSelector=) and field selectors (fieldSelector=),
 * parsed and matched as kube-apiserver does for lists and watches (apimachinery v0.33
 * pkg/labels/selector.go Parse and pkg/fields/selector.go ParseSelector).
 *
 * Contract:
 * - Parsers take a NUL-terminated string; "" parses to a selector that matches everything.
 *   Memory is linear in strlen(s): the HTTP layer bounds the query string.
 * - On success *ret gets a new selector owned by the caller (free with *_selector_free) and 0 is
 *   returned. On failure *ret is untouched, -EINVAL is returned and *reterr (when reterr is not
 *   NULL) carries upstream's message verbatim, which the API server returns as the message of a
 *   400 BadRequest Status, e.g.
 *     unable to parse requirement: found 'y', expected: in, notin, =, ==, !=, gt, lt
 *     found ',', expected: !, identifier, or 'end of string'
 *     invalid selector: 'x=a,b'; can't understand 'b'
 *     field label not supported: spec.foo
 * - Selectors are immutable after parsing; matching only reads them, so one selector may be
 *   shared by threads. Objects and label maps passed to the matchers are borrowed. */
#ifndef FLEXLET_API_SELECTOR_H
#define FLEXLET_API_SELECTOR_H

#include <jansson.h>
#include <stdbool.h>

#include "base/error.h"
#include "base/macro.h"

struct label_selector;
struct field_selector;

/* Parses a label selector: requirements joined by ',', each one of `k=v`, `k==v`, `k!=v`,
 * `k in (a,b)`, `k notin (a,b)`, `k>N`, `k<N`, `k` (exists) or `!k` (does not exist); blanks
 * (space, tab, CR, LF) separate tokens. Keys must be qualified names (`[prefix/]name`, prefix a
 * DNS-1123 subdomain of at most 253 characters, name at most 63), values valid label values (at
 * most 63 characters, empty allowed); `>`/`<` need a decimal int64. */
int label_selector_parse(const char *s, struct label_selector **ret, struct error **reterr);

/* True when every requirement holds for labels, the metadata.labels object (NULL or a non-object
 * counts as no labels). K8S: `!=` and `notin` match a missing key; `>`/`<` never match a missing
 * or non-integer value. A non-string label value is compared in its JSON scalar form. */
bool label_selector_matches(const struct label_selector *sel, const json_t *labels);

/* True when the selector has no requirement (it matches everything). */
bool label_selector_is_empty(const struct label_selector *sel);

/* Upstream's canonical String(): requirements sorted by key, set values sorted and deduplicated,
 * blanks dropped ("x in (a,b),y!=c,!z"); "" for an empty selector. Caller frees. */
char *label_selector_to_string(const struct label_selector *sel);

/* NULL-safe; returns NULL. */
struct label_selector *label_selector_free(struct label_selector *sel);
DEFINE_CLEANUP(struct label_selector, label_selector_free, label_selector)
#define cleanup_label_selector cleanup_of(label_selector_free)

/* Parses a field selector: terms joined by ',', each `field=value`, `field==value` or
 * `field!=value`; in a value `\,`, `\=` and `\\` stand for `,`, `=` and `\` (an unescaped `,`
 * or `=` or any other `\x` in a value fails). Empty terms are skipped.
 *
 * supported_fields is the NULL-terminated list of field labels the resource supports (its
 * fieldLabelConversionFunc); any other field fails with `field label not supported: <field>`.
 * Pass NULL for a kind that registers no conversion function: then upstream's
 * DefaultMetaV1FieldSelectorConversion applies, supporting metadata.name and metadata.namespace
 * with the message `"<field>" is not a known field selector: only "metadata.name",
 * "metadata.namespace"`. Syntax errors are reported before unsupported fields. */
int field_selector_parse(const char *s, const char *const *supported_fields,
                         struct field_selector **ret, struct error **reterr);

/* True when every term holds for obj. A field's value is the string at that dotted path of obj;
 * integers, reals and booleans count in their string form ("3", "true"); a missing field, null,
 * an object or an array counts as "". */
bool field_selector_matches(const struct field_selector *sel, const json_t *obj);

/* True when the selector has no term (it matches everything). */
bool field_selector_is_empty(const struct field_selector *sel);

/* True when the selector holds `field=value` (or `==`) for this field: *ret_value (if not NULL)
 * then points at the first such value, borrowed from sel. `!=` terms do not count. Used to narrow
 * lookups (metadata.name, metadata.namespace) before matching. */
bool field_selector_requires_exact(const struct field_selector *sel, const char *field,
                                   const char **ret_value);

/* Upstream's String(): terms in parse order (sorted), values escaped ("a=x\,y,b!=z"). Caller
 * frees. */
char *field_selector_to_string(const struct field_selector *sel);

/* NULL-safe; returns NULL. */
struct field_selector *field_selector_free(struct field_selector *sel);
DEFINE_CLEANUP(struct field_selector, field_selector_free, field_selector)
#define cleanup_field_selector cleanup_of(field_selector_free)

/* K8S: a metav1.LabelSelector object (matchLabels, matchExpressions) as
 * LabelSelectorAsSelector makes it, matched against labels (the metadata.labels object; NULL
 * counts as none): 1 when it matches, 0 when not, -EINVAL when sel cannot be a selector (an
 * operator other than In, NotIn, Exists, DoesNotExist; In or NotIn without values; a value of
 * the wrong type). A NULL or non-object sel matches nothing; {} matches everything. */
int label_selector_object_matches(const json_t *sel, const json_t *labels);
/* True for an object selector without requirements ({}: it matches everything). */
bool label_selector_object_is_empty(const json_t *sel);
/* The selector's text form as LabelSelectorAsSelector(sel).String() prints it ("a=b,c in
 * (x,y)", requirements sorted by key); "" for {} or NULL. Caller frees. */
char *label_selector_object_to_string(const json_t *sel);

#endif
