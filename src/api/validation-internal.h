/* validation-internal.h: helpers shared by validation-meta.c, validation-pod.c, defaults-pod.c,
 * qos.c, validation-limitrange.c, limitranger.c, validation-quota.c and quota.c only: error
 * appenders that render bad values as apimachinery's field.Error does, semantic JSON equality
 * (apiequality.Semantic.DeepEqual), and exact quantity arithmetic. */
#ifndef FLEXLET_API_VALIDATION_INTERNAL_H
#define FLEXLET_API_VALIDATION_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "api/field-error.h"
#include "base/quantity.h"
#include "base/strbuf.h"

/* ---- errors ---- */

/* Appends an error whose bad value is the string s, quoted as Go's %q does (NULL: none). */
void verr_str(struct field_error_list *errs, enum field_error_type type, const char *field,
              const char *s, const char *detail);
/* Appends an error whose bad value is an integer (printed bare, as %v of an int64). */
void verr_int(struct field_error_list *errs, enum field_error_type type, const char *field,
              long long v, const char *detail);
/* Appends an error whose bad value is already rendered (or NULL). */
void verr_raw(struct field_error_list *errs, enum field_error_type type, const char *field,
              const char *rendered, const char *detail);
/* K8S: field.NotSupported: detail "supported values: \"a\", \"b\"" from a NULL-terminated list. */
void verr_not_supported(struct field_error_list *errs, const char *field, const char *value,
                        const char *const *supported);
/* Moves every error of from to the end of to; from is left empty. */
void verr_move(struct field_error_list *to, struct field_error_list *from);

/* ---- JSON ---- */

/* String member of an object, or NULL when absent or not a string. */
const char *vj_str(const json_t *obj, const char *key);
/* Object/array member, or NULL when absent or of another type. */
json_t *vj_obj(const json_t *obj, const char *key);
json_t *vj_arr(const json_t *obj, const char *key);
/* Semantic equality: absent, null, {}, [], "", 0 and false are all "unset"; under the keys
 * requests, limits, overhead, capacity and sizeLimit strings compare as quantities. */
bool vj_equal(const json_t *a, const json_t *b);
/* Appends "- path: old\n+ path: new" lines for every leaf where a and b differ semantically. */
void vj_diff(const json_t *a, const json_t *b, const char *path, struct strbuf *out);
/* Go-style rendering of a JSON scalar for a bad value: strings quoted, numbers bare,
 * null/absent "\"null\"", objects and arrays as compact JSON. Caller frees. */
char *vj_render(const json_t *v);

/* ---- quantities ---- */

/* Parses a quantity given as a JSON string or number. 0 or -EINVAL. */
int vq_parse(const json_t *v, struct quantity *ret);
/* The canonical String() of a JSON quantity, or a copy of the raw text when it does not parse. */
char *vq_string(const json_t *v);

/* An exact sum of quantities at milli precision (values are rounded up to milli scale by
 * defaulting, as upstream's SetDefaults_ResourceList does). */
struct vq_sum {
        __int128 milli;
        enum quantity_format format; /* of the first term, as resource.Quantity.Add keeps it */
        bool set;
        bool overflow;
};
void vq_sum_add(struct vq_sum *s, const struct quantity *q);
void vq_sum_max(struct vq_sum *s, const struct vq_sum *other);
void vq_sum_add_sum(struct vq_sum *s, const struct vq_sum *other);
int vq_sum_cmp(const struct vq_sum *a, const struct vq_sum *b);
/* Canonical string of the sum; caller frees. */
char *vq_sum_string(const struct vq_sum *s);

/* A resource list of sums, in first-seen order (names borrowed from the pod). */
struct vres_entry {
        const char *name;
        struct vq_sum sum;
};
struct vres {
        struct vres_entry *items;
        size_t n;
};
struct vres_entry *vres_get(struct vres *r, const char *name);
void vres_add_list(struct vres *r, const json_t *list);
void vres_add(struct vres *r, const struct vres *other);
void vres_max(struct vres *r, const struct vres *other);
void vres_release(struct vres *r);
/* K8S: resourcehelper.AggregateContainerRequests: regular containers and sidecars add up, a
 * plain init container counts with the sidecars started before it, the larger total wins. */
void v_aggregate_container_requests(const json_t *spec, struct vres *reqs);

/* ---- shared rules ---- */

/* Every v1 VolumeSource member in the order upstream's validateVolumeSource checks them; err_key
 * is the child name its "may not specify more than 1 volume type" error uses (upstream spells
 * downwardAPI "downwarAPI" there). NULL-terminated. */
struct v_volume_type {
        const char *key;
        const char *err_key;
};
extern const struct v_volume_type v_volume_types[];

/* True for init containers with restartPolicy Always (sidecars, K8S: isRestartableInitContainer).
 */
bool v_is_sidecar(const json_t *container);
/* K8S: a container resource list value as upstream's ResourceList key iteration sees it. */
bool v_resource_name_is_native(const char *name);
bool v_resource_name_is_hugepages(const char *name);
bool v_resource_name_is_extended(const char *name);
bool v_resource_overcommit_allowed(const char *name);
/* K8S: validateResourceName (a qualified name; without a '/', a standard resource: "must be a
 * standard resource type or fully qualified") and validateContainerResourceName (cpu, memory,
 * ephemeral-storage, hugepages-*, or qualified and native or extended), appending errors at
 * field; the first returns how many it added. */
size_t v_validate_resource_name(const char *name, const char *field, struct field_error_list *errs);
void v_validate_container_resource_name(const char *name, const char *field,
                                        struct field_error_list *errs);
/* K8S: ValidateResourceQuantityValue: not negative, an integer for integer resources (pods,
 * configmaps, ..., extended resources). */
void v_validate_quantity_value(const char *name, const struct quantity *q, const char *field,
                               struct field_error_list *errs);

/* K8S: metav1 ValidateLabelSelector (validation-storage.c): matchLabels as labels, each
 * matchExpressions requirement's operator, key and values. sel may be NULL. */
void v_validate_label_selector(const json_t *sel, const char *path, struct field_error_list *errs);
/* Go's %#v of a map[string]string (keys sorted) and of a *metav1.LabelSelector, as field.Invalid
 * prints them for template labels and selectors (validation-apps.c). Caller frees. */
char *v_render_string_map(const json_t *m);
char *v_render_selector(const json_t *sel);
/* K8S: ValidateNodeSelectorTerm: its matchExpressions and matchFields requirements. */
void v_validate_node_selector_term(const json_t *term, const char *path,
                                   struct field_error_list *errs);
/* K8S: validateAffinity and validateTopologySpreadConstraints over a pod spec, the fields named
 * from "spec." (validation-scheduling.c). */
void v_validate_affinity(const json_t *spec, struct field_error_list *errs);
void v_validate_topology_spread(const json_t *spec, struct field_error_list *errs);
/* K8S: apps ValidatePositiveIntOrPercent then IsNotMoreThan100Percent (validation-policy.c); v
 * is a JSON integer or string. */
void v_validate_int_or_percent(const json_t *v, const char *field, struct field_error_list *errs);

#endif
