/* validation-storage.c: validation of StorageClass, PersistentVolume and PersistentVolumeClaim
 * on create, update and status update, as kube-apiserver 1.33 does it (K8S:
 * pkg/apis/core/validation ValidatePersistentVolume*, ValidatePersistentVolumeClaim*,
 * pkg/apis/storage/validation ValidateStorageClass*, pkg/volume/validation checkMountOption),
 * with upstream's paths and messages, quirks included ("spec.resources[storage]",
 * "status.allocatedResourceStatus", "Spec.accessModes", the bare "volumeMode" and "nodeAffinity"
 * of immutability errors). Go's cmp.Diff in the immutability messages is rendered as the
 * changed JSON paths, as the pod rules do. */
#include <ctype.h>
#include <string.h>

#include "api/validation-internal.h"
#include "api/validation.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/strbuf.h"

#define IMMUTABLE_MSG "field is immutable"

/* sets.List order (sorted), as field.NotSupported prints them */
static const char *const access_modes[] = { "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce",
                                            "ReadWriteOncePod", NULL };
static const char *const pv_reclaim_policies[] = { "Delete", "Recycle", "Retain", NULL };
static const char *const sc_reclaim_policies[] = { "Delete", "Retain", NULL };
static const char *const volume_modes[] = { "Block", "Filesystem", NULL };
static const char *const binding_modes[] = { "Immediate", "WaitForFirstConsumer", NULL };
static const char *const host_path_types[] = {
        "",     "BlockDevice",  "CharDevice", "Directory", "DirectoryOrCreate",
        "File", "FileOrCreate", "Socket",     NULL
};
static const char *const resize_statuses[] = {
        "ControllerResizeInProgress", "ControllerResizeInfeasible", "NodeResizeInProgress",
        "NodeResizeInfeasible",       "NodeResizePending",          NULL
};
static const char *const storage_only[] = { "storage", NULL };

static bool in_list(const char *s, const char *const *list)
{
        for (; *list; list++)
                if (streq(s, *list))
                        return true;
        return false;
}

static bool has(const json_t *obj, const char *key)
{
        json_t *v = json_is_object(obj) ? json_object_get(obj, key) : NULL;

        return v && !json_is_null(v);
}

static const char *str(const json_t *obj, const char *key)
{
        const char *s = vj_str(obj, key);

        return s ? s : "";
}

/* Runs a name check on the lower-cased value and reports the value as written (K8S:
 * ValidateCSIDriverName and validateProvisioner check strings.ToLower(name)). */
static void validate_lowered(size_t (*check)(const char *, const char *, struct field_error_list *),
                             const char *value, const char *field, struct field_error_list *errs)
{
        cleanup_free char *lower = xstrdup(value);
        struct field_error_list tmp;

        for (char *c = lower; *c; c++)
                *c = (char) tolower((unsigned char) *c);
        field_error_list_init(&tmp);
        check(lower, field, &tmp);
        for (size_t i = 0; i < tmp.n; i++)
                verr_str(errs, tmp.items[i].type, tmp.items[i].field, value, tmp.items[i].detail);
        field_error_list_release(&tmp);
}

/* K8S: validatePathNoBacksteps */
static void validate_no_backsteps(const char *p, const char *field, struct field_error_list *errs)
{
        for (const char *s = p; s;) {
                const char *slash = strchr(s, '/');
                size_t n = slash ? (size_t) (slash - s) : strlen(s);
                if (n == 2 && s[0] == '.' && s[1] == '.') {
                        verr_str(errs, FIELD_ERROR_INVALID, field, p, "must not contain '..'");
                        return;
                }
                s = slash ? slash + 1 : NULL;
        }
}

/* K8S: the access mode loop of ValidatePersistentVolumeSpec/ClaimSpec (after the caller's
 * required check). */
static void validate_access_modes(const json_t *modes, const char *field,
                                  struct field_error_list *errs)
{
        bool rwop = false, other = false;
        size_t i;
        json_t *m;

        json_array_foreach(modes, i, m) {
                const char *s = json_is_string(m) ? json_string_value(m) : "";
                if (!in_list(s, access_modes))
                        verr_not_supported(errs, field, s, access_modes);
                if (streq(s, "ReadWriteOncePod"))
                        rwop = true;
                else if (in_list(s, access_modes))
                        other = true;
        }
        if (rwop && other)
                verr_raw(errs, FIELD_ERROR_FORBIDDEN, field, NULL,
                         "may not use ReadWriteOncePod with other access modes");
}

/* K8S: validateBasicResource: "must be a valid resource quantity" for a negative Value(). */
static bool validate_basic_resource(const json_t *v, const char *field,
                                    struct field_error_list *errs)
{
        struct quantity q;
        int64_t value;

        if (vq_parse(v, &q) < 0) {
                verr_raw(errs, FIELD_ERROR_INVALID, field, NULL, QUANTITY_REGEXP_MESSAGE);
                return false;
        }
        if (q.negative && !quantity_is_zero(&q)) {
                if (quantity_value(&q, &value) < 0)
                        value = INT64_MIN;
                verr_int(errs, FIELD_ERROR_INVALID, field, (long long) value,
                         "must be a valid resource quantity");
                return false;
        }
        return true;
}

/* K8S: ValidatePositiveQuantityValue: Invalid(value.String(), "must be greater than zero"). */
static bool validate_positive_quantity(const json_t *v, const char *field,
                                       struct field_error_list *errs)
{
        struct quantity q;

        if (vq_parse(v, &q) < 0) {
                verr_raw(errs, FIELD_ERROR_INVALID, field, NULL, QUANTITY_REGEXP_MESSAGE);
                return false;
        }
        if (q.negative || quantity_is_zero(&q)) {
                cleanup_free char *s = vq_string(v);
                verr_str(errs, FIELD_ERROR_INVALID, field, s, "must be greater than zero");
                return false;
        }
        return true;
}

/* K8S: ValidateNonnegativeQuantity. */
static void validate_nonnegative_quantity(const json_t *v, const char *field,
                                          struct field_error_list *errs)
{
        struct quantity q;

        if (vq_parse(v, &q) == 0 && q.negative && !quantity_is_zero(&q)) {
                cleanup_free char *s = vq_string(v);
                verr_str(errs, FIELD_ERROR_INVALID, field, s, "must be greater than or equal to 0");
        }
}

/* ---- selectors ---- */

enum requirement_kind {
        REQUIREMENT_LABEL,      /* metav1.LabelSelectorRequirement */
        REQUIREMENT_NODE,       /* core NodeSelectorRequirement (matchExpressions) */
        REQUIREMENT_NODE_FIELD, /* core NodeSelectorRequirement (matchFields) */
};

/* K8S: ValidateLabelSelectorRequirement, ValidateNodeSelectorRequirement and
 * ValidateNodeFieldSelectorRequirement. */
static void validate_requirement(const json_t *rq, const char *path, enum requirement_kind kind,
                                 struct field_error_list *errs)
{
        const char *op = str(rq, "operator"), *key = str(rq, "key");
        const json_t *values = vj_arr(rq, "values");
        size_t n = json_array_size(values), i;
        cleanup_free char *vpath = xasprintf("%s.values", path);
        cleanup_free char *opath = xasprintf("%s.operator", path);
        cleanup_free char *kpath = xasprintf("%s.key", path);
        json_t *v;

        if (kind == REQUIREMENT_NODE_FIELD) {
                if (streq(op, "In") || streq(op, "NotIn")) {
                        if (n != 1)
                                verr_raw(errs, FIELD_ERROR_REQUIRED, vpath, NULL,
                                         "must be only one value when `operator` is 'In' or "
                                         "'NotIn' for node field selector");
                } else {
                        verr_str(errs, FIELD_ERROR_INVALID, opath, op,
                                 "not a valid selector operator");
                }
                if (!streq(key, "metadata.name")) {
                        verr_str(errs, FIELD_ERROR_INVALID, kpath, key,
                                 "not a valid field selector key");
                        return;
                }
                json_array_foreach(values, i, v) {
                        cleanup_free char *p = xasprintf("%s[%zu]", vpath, i);
                        validate_dns1123_subdomain(json_is_string(v) ? json_string_value(v) : "", p,
                                                   errs);
                }
                return;
        }
        if (streq(op, "In") || streq(op, "NotIn")) {
                if (n == 0)
                        verr_raw(errs, FIELD_ERROR_REQUIRED, vpath, NULL,
                                 "must be specified when `operator` is 'In' or 'NotIn'");
        } else if (streq(op, "Exists") || streq(op, "DoesNotExist")) {
                if (n > 0)
                        verr_raw(errs, FIELD_ERROR_FORBIDDEN, vpath, NULL,
                                 "may not be specified when `operator` is 'Exists' or "
                                 "'DoesNotExist'");
        } else if (kind == REQUIREMENT_NODE && (streq(op, "Gt") || streq(op, "Lt"))) {
                if (n != 1)
                        verr_raw(errs, FIELD_ERROR_REQUIRED, vpath, NULL,
                                 "must be specified single value when `operator` is 'Lt' or "
                                 "'Gt'");
        } else {
                verr_str(errs, FIELD_ERROR_INVALID, opath, op, "not a valid selector operator");
        }
        validate_qualified_name(key, kpath, errs);
        json_array_foreach(values, i, v) {
                cleanup_free char *p = xasprintf("%s[%zu]", vpath, i);
                validate_label_value(json_is_string(v) ? json_string_value(v) : "", p, errs);
        }
}

/* K8S: metav1 ValidateLabelSelector. */
void v_validate_label_selector(const json_t *sel, const char *path, struct field_error_list *errs)
{
        cleanup_free char *lpath = xasprintf("%s.matchLabels", path);
        size_t i;
        json_t *rq;

        validate_labels(vj_obj(sel, "matchLabels"), lpath, errs);
        json_array_foreach(vj_arr(sel, "matchExpressions"), i, rq) {
                cleanup_free char *p = xasprintf("%s.matchExpressions[%zu]", path, i);
                validate_requirement(rq, p, REQUIREMENT_LABEL, errs);
        }
}

void v_validate_node_selector_term(const json_t *term, const char *path,
                                   struct field_error_list *errs)
{
        size_t j;
        json_t *rq;

        json_array_foreach(vj_arr(term, "matchExpressions"), j, rq) {
                cleanup_free char *p = xasprintf("%s.matchExpressions[%zu]", path, j);
                validate_requirement(rq, p, REQUIREMENT_NODE, errs);
        }
        json_array_foreach(vj_arr(term, "matchFields"), j, rq) {
                cleanup_free char *p = xasprintf("%s.matchFields[%zu]", path, j);
                validate_requirement(rq, p, REQUIREMENT_NODE_FIELD, errs);
        }
}

/* K8S: validateVolumeNodeAffinity + ValidateNodeSelector(Term). Returns whether it is set. */
static bool validate_volume_node_affinity(const json_t *spec, struct field_error_list *errs)
{
        const json_t *na = vj_obj(spec, "nodeAffinity");
        const json_t *required = vj_obj(na, "required");
        const json_t *terms = vj_arr(required, "nodeSelectorTerms");
        size_t i;
        json_t *term;

        if (!has(spec, "nodeAffinity"))
                return false;
        if (!required) {
                verr_raw(errs, FIELD_ERROR_REQUIRED, "spec.nodeAffinity.required", NULL,
                         "must specify required node constraints");
                return true;
        }
        if (json_array_size(terms) == 0) {
                verr_raw(errs, FIELD_ERROR_REQUIRED, "spec.nodeAffinity.required.nodeSelectorTerms",
                         NULL, "must have at least one node selector term");
                return true;
        }
        json_array_foreach(terms, i, term) {
                cleanup_free char *p =
                        xasprintf("spec.nodeAffinity.required.nodeSelectorTerms[%zu]", i);
                v_validate_node_selector_term(term, p, errs);
        }
        return true;
}

/* ---- StorageClass ---- */

/* K8S: ValidateTopologySelectorTerm, and validateAllowedTopologies' duplicate check (whose
 * list starts with one empty term per entry, so a term without expressions is a duplicate). */
static void validate_allowed_topologies(const json_t *terms, struct field_error_list *errs)
{
        json_t *seen = json_array();
        size_t i, j, k;
        json_t *term, *rq, *v;

        json_array_foreach(terms, i, term) {
                json_t *exprs = json_object();
                bool dup = false;
                json_array_foreach(vj_arr(term, "matchLabelExpressions"), j, rq) {
                        cleanup_free char *p = xasprintf(
                                "allowedTopologies[%zu].matchLabelExpressions[%zu]", i, j);
                        cleanup_free char *vp = xasprintf("%s.values", p);
                        cleanup_free char *kp = xasprintf("%s.key", p);
                        const char *key = str(rq, "key");
                        json_t *set = json_object();
                        if (json_array_size(vj_arr(rq, "values")) == 0)
                                verr_raw(errs, FIELD_ERROR_REQUIRED, vp, NULL, "");
                        json_array_foreach(vj_arr(rq, "values"), k, v) {
                                const char *s = json_is_string(v) ? json_string_value(v) : "";
                                if (json_object_get(set, s)) {
                                        cleanup_free char *ip = xasprintf("%s[%zu]", vp, k);
                                        verr_str(errs, FIELD_ERROR_DUPLICATE, ip, s, "");
                                }
                                json_object_set_new(set, s, json_true());
                        }
                        validate_qualified_name(key, kp, errs);
                        if (json_object_get(exprs, key))
                                verr_str(errs, FIELD_ERROR_DUPLICATE, kp, key, "");
                        json_object_set_new(exprs, key, set);
                }
                dup = json_object_size(exprs) == 0;
                json_array_foreach(seen, j, v) {
                        dup |= json_equal(v, exprs);
                }
                if (dup) {
                        cleanup_free char *p =
                                xasprintf("allowedTopologies[%zu].matchLabelExpressions", i);
                        verr_str(errs, FIELD_ERROR_DUPLICATE, p, "", "");
                }
                json_array_append_new(seen, exprs);
        }
        json_decref(seen);
}

size_t validate_storage_class_create(const json_t *sc, struct field_error_list *errs)
{
        size_t before = errs->n;
        const char *provisioner = str(sc, "provisioner");
        const json_t *params = vj_obj(sc, "parameters");
        const char *key;
        json_t *v;
        size_t total = 0;

        validate_object_meta_create(sc, false, errs);
        /* K8S: validateProvisioner */
        if (!provisioner[0])
                verr_raw(errs, FIELD_ERROR_REQUIRED, "provisioner", NULL, "");
        else
                validate_lowered(validate_qualified_name, provisioner, "provisioner", errs);
        /* K8S: validateParameters */
        if (json_object_size(params) > 512) {
                verr_raw(errs, FIELD_ERROR_TOO_LONG, "parameters", NULL,
                         "may not be more than 512 bytes");
        } else {
                json_object_foreach((json_t *) params, key, v) {
                        if (!key[0])
                                verr_str(errs, FIELD_ERROR_INVALID, "parameters", key,
                                         "field can not be empty.");
                        total += strlen(key) + (json_is_string(v) ? json_string_length(v) : 0);
                }
                if (total > 256 * 1024)
                        verr_raw(errs, FIELD_ERROR_TOO_LONG, "parameters", NULL,
                                 "may not be more than 262144 bytes");
        }
        /* K8S: validateReclaimPolicy */
        if (str(sc, "reclaimPolicy")[0] && !in_list(str(sc, "reclaimPolicy"), sc_reclaim_policies))
                verr_not_supported(errs, "reclaimPolicy", str(sc, "reclaimPolicy"),
                                   sc_reclaim_policies);
        /* K8S: validateVolumeBindingMode */
        if (!has(sc, "volumeBindingMode"))
                verr_raw(errs, FIELD_ERROR_REQUIRED, "volumeBindingMode", NULL, "");
        else if (!in_list(str(sc, "volumeBindingMode"), binding_modes))
                verr_not_supported(errs, "volumeBindingMode", str(sc, "volumeBindingMode"),
                                   binding_modes);
        validate_allowed_topologies(vj_arr(sc, "allowedTopologies"), errs);
        return errs->n - before;
}

size_t validate_storage_class_update(const json_t *new_sc, const json_t *old_sc,
                                     struct field_error_list *errs)
{
        size_t before = errs->n;
        const char *nb = str(new_sc, "volumeBindingMode"), *ob = str(old_sc, "volumeBindingMode");

        validate_storage_class_create(new_sc, errs);
        validate_object_meta_update(new_sc, old_sc, errs);
        if (!vj_equal(vj_obj(new_sc, "parameters"), vj_obj(old_sc, "parameters")))
                verr_raw(errs, FIELD_ERROR_FORBIDDEN, "parameters", NULL,
                         "updates to parameters are forbidden.");
        if (!streq(str(new_sc, "provisioner"), str(old_sc, "provisioner")))
                verr_raw(errs, FIELD_ERROR_FORBIDDEN, "provisioner", NULL,
                         "updates to provisioner are forbidden.");
        if (!streq(str(new_sc, "reclaimPolicy"), str(old_sc, "reclaimPolicy")))
                verr_raw(errs, FIELD_ERROR_FORBIDDEN, "reclaimPolicy", NULL,
                         "updates to reclaimPolicy are forbidden.");
        if (!streq(nb, ob))
                verr_str(errs, FIELD_ERROR_INVALID, "volumeBindingMode", nb, IMMUTABLE_MSG);
        return errs->n - before;
}

/* ---- PersistentVolume ---- */

/* K8S: validatePVSecretReference */
static void validate_secret_reference(const json_t *ref, const char *path,
                                      struct field_error_list *errs)
{
        cleanup_free char *np = xasprintf("%s.name", path);
        cleanup_free char *nsp = xasprintf("%s.namespace", path);

        if (!str(ref, "name")[0])
                verr_raw(errs, FIELD_ERROR_REQUIRED, np, NULL, "");
        else
                validate_dns1123_subdomain(str(ref, "name"), np, errs);
        if (!str(ref, "namespace")[0])
                verr_raw(errs, FIELD_ERROR_REQUIRED, nsp, NULL, "");
        else
                validate_dns1123_label(str(ref, "namespace"), nsp, errs);
}

/* K8S: validateCSIPersistentVolumeSource with ValidateCSIDriverName */
static void validate_csi_source(const json_t *csi, struct field_error_list *errs)
{
        static const char *const refs[] = { "controllerPublishSecretRef",
                                            "controllerExpandSecretRef", "nodePublishSecretRef",
                                            "nodeExpandSecretRef" };
        const char *driver = str(csi, "driver");

        if (!driver[0])
                verr_raw(errs, FIELD_ERROR_REQUIRED, "spec.csi.driver", NULL, "");
        if (strlen(driver) > 63)
                verr_raw(errs, FIELD_ERROR_TOO_LONG, "spec.csi.driver", NULL,
                         "may not be more than 63 bytes");
        validate_lowered(validate_dns1123_subdomain, driver, "spec.csi.driver", errs);
        if (!str(csi, "volumeHandle")[0])
                verr_raw(errs, FIELD_ERROR_REQUIRED, "spec.csi.volumeHandle", NULL, "");
        for (size_t i = 0; i < ARRAY_SIZE(refs); i++) {
                if (has(csi, refs[i])) {
                        cleanup_free char *p = xasprintf("spec.csi.%s", refs[i]);
                        validate_secret_reference(vj_obj(csi, refs[i]), p, errs);
                }
        }
}

static void validate_pv_sources(const json_t *spec, bool node_affinity,
                                struct field_error_list *errs)
{
        int n = 0;

        if (has(spec, "hostPath")) {
                /* K8S: validateHostPathVolumeSource */
                const json_t *hp = vj_obj(spec, "hostPath");
                n++;
                if (!str(hp, "path")[0]) {
                        verr_raw(errs, FIELD_ERROR_REQUIRED, "spec.hostPath.path", NULL, "");
                } else {
                        validate_no_backsteps(str(hp, "path"), "spec.hostPath.path", errs);
                        if (has(hp, "type") && !in_list(str(hp, "type"), host_path_types))
                                verr_not_supported(errs, "spec.hostPath.type", str(hp, "type"),
                                                   host_path_types);
                }
        }
        if (has(spec, "local")) {
                if (n > 0) {
                        verr_raw(errs, FIELD_ERROR_FORBIDDEN, "spec.local", NULL,
                                 "may not specify more than 1 volume type");
                } else {
                        /* K8S: validateLocalVolumeSource */
                        const char *p = str(vj_obj(spec, "local"), "path");
                        n++;
                        if (!p[0])
                                verr_raw(errs, FIELD_ERROR_REQUIRED, "spec.local.path", NULL, "");
                        else
                                validate_no_backsteps(p, "spec.local.path", errs);
                        if (!node_affinity)
                                verr_raw(errs, FIELD_ERROR_REQUIRED, "spec.nodeAffinity", NULL,
                                         "Local volume requires node affinity");
                }
        }
        if (has(spec, "csi")) {
                if (n > 0) {
                        verr_raw(errs, FIELD_ERROR_FORBIDDEN, "spec.csi", NULL,
                                 "may not specify more than 1 volume type");
                } else {
                        n++;
                        validate_csi_source(vj_obj(spec, "csi"), errs);
                }
        }
        if (n == 0)
                verr_raw(errs, FIELD_ERROR_REQUIRED, "spec", NULL, "must specify a volume type");
}

/* K8S: path.Clean(p) == "/": an absolute path made only of "", "." and ".." components. */
static bool cleans_to_root(const char *p)
{
        if (p[0] != '/')
                return false;
        for (const char *s = p + 1; s;) {
                const char *slash = strchr(s, '/');
                size_t n = slash ? (size_t) (slash - s) : strlen(s);
                if (!(n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.')))
                        return false;
                s = slash ? slash + 1 : NULL;
        }
        return true;
}

/* K8S: ValidatePersistentVolumeSpec (not inline) */
static void validate_pv_spec(const json_t *spec, struct field_error_list *errs)
{
        const json_t *capacity = vj_obj(spec, "capacity");
        const char *policy = str(spec, "persistentVolumeReclaimPolicy");
        bool node_affinity;
        const char *key;
        json_t *v;

        if (json_array_size(vj_arr(spec, "accessModes")) == 0)
                verr_raw(errs, FIELD_ERROR_REQUIRED, "spec.accessModes", NULL, "");
        validate_access_modes(vj_arr(spec, "accessModes"), "spec.accessModes", errs);
        if (json_object_size(capacity) == 0)
                verr_raw(errs, FIELD_ERROR_REQUIRED, "spec.capacity", NULL, "");
        if (!json_object_get(capacity, "storage") || json_object_size(capacity) > 1) {
                /* K8S: the bad value is the whole ResourceList (Go prints the map) */
                cleanup_free char *r = capacity ? json_dump_compact(capacity) : xstrdup("{}");
                verr_raw(errs, FIELD_ERROR_NOT_SUPPORTED, "spec.capacity", r,
                         "supported values: \"storage\"");
        }
        json_object_foreach((json_t *) capacity, key, v) {
                cleanup_free char *p = xasprintf("spec.capacity[%s]", key);
                if (validate_basic_resource(v, p, errs))
                        validate_positive_quantity(v, p, errs);
        }
        if (policy[0] && !in_list(policy, pv_reclaim_policies))
                verr_not_supported(errs, "spec.persistentVolumeReclaimPolicy", policy,
                                   pv_reclaim_policies);
        node_affinity = validate_volume_node_affinity(spec, errs);
        validate_pv_sources(spec, node_affinity, errs);
        if (has(spec, "hostPath") && streq(policy, "Recycle") &&
            cleans_to_root(str(vj_obj(spec, "hostPath"), "path")))
                verr_raw(errs, FIELD_ERROR_FORBIDDEN, "spec.persistentVolumeReclaimPolicy", NULL,
                         "may not be 'recycle' for a hostPath mount of '/'");
        if (str(spec, "storageClassName")[0])
                validate_dns1123_subdomain(str(spec, "storageClassName"), "spec.storageClassName",
                                           errs);
        if (has(spec, "volumeMode") && !in_list(str(spec, "volumeMode"), volume_modes))
                verr_not_supported(errs, "spec.volumeMode", str(spec, "volumeMode"), volume_modes);
}

/* K8S: pkg/volume/validation checkMountOption: mount options only where the plugin takes them
 * (of flexlet's sources: csi). */
static void validate_mount_options(const json_t *pv, struct field_error_list *errs)
{
        const json_t *spec = vj_obj(pv, "spec");

        if (has(spec, "csi"))
                return;
        if (vj_str(vj_obj(vj_obj(pv, "metadata"), "annotations"), STORAGE_MOUNT_OPTIONS_ANNOTATION))
                verr_raw(errs, FIELD_ERROR_FORBIDDEN,
                         "metadata.annotations.volume.beta.kubernetes.io/mount-options", NULL,
                         "may not specify mount options for this volume type");
        if (json_array_size(vj_arr(spec, "mountOptions")) > 0)
                verr_raw(errs, FIELD_ERROR_FORBIDDEN, "spec.mountOptions", NULL,
                         "may not specify mount options for this volume type");
}

size_t validate_pv_create(const json_t *pv, struct field_error_list *errs)
{
        size_t before = errs->n;

        validate_object_meta_create(pv, false, errs);
        validate_pv_spec(vj_obj(pv, "spec"), errs);
        validate_mount_options(pv, errs);
        return errs->n - before;
}

/* The PersistentVolumeSource members of a spec, as a new object (for comparison). */
static json_t *pv_source(const json_t *spec)
{
        static const char *const sources[] = { "hostPath", "local", "csi" };
        json_t *out = json_object();

        for (size_t i = 0; i < ARRAY_SIZE(sources); i++)
                if (has(spec, sources[i]))
                        json_object_set_new(out, sources[i],
                                            json_deep_copy(json_object_get(spec, sources[i])));
        return out;
}

size_t validate_pv_update(const json_t *new_pv, const json_t *old_pv, struct field_error_list *errs)
{
        size_t before = errs->n;
        const json_t *ns = vj_obj(new_pv, "spec"), *os = vj_obj(old_pv, "spec");
        cleanup_json json_t *nsrc = pv_source(ns), *osrc = pv_source(os);
        json_t *ncsi = vj_obj(nsrc, "csi"), *ocsi = vj_obj(osrc, "csi");

        validate_object_meta_update(new_pv, old_pv, errs);
        validate_pv_create(new_pv, errs);
        /* K8S: a controllerExpandSecretRef may be added to a volume that had none */
        if (ocsi && ncsi && !has(ocsi, "controllerExpandSecretRef"))
                json_object_del(ncsi, "controllerExpandSecretRef");
        if (!vj_equal(nsrc, osrc)) {
                struct strbuf diff;
                strbuf_init(&diff);
                vj_diff(osrc, nsrc, "spec", &diff);
                if (diff.len && diff.buf[diff.len - 1] == '\n')
                        diff.buf[--diff.len] = '\0';
                field_error_add(errs, FIELD_ERROR_FORBIDDEN, "spec.persistentvolumesource", NULL,
                                "spec.persistentvolumesource is immutable after creation\n%s",
                                diff.buf);
                strbuf_release(&diff);
        }
        if (!streq(str(ns, "volumeMode"), str(os, "volumeMode")))
                verr_str(errs, FIELD_ERROR_INVALID, "volumeMode",
                         has(ns, "volumeMode") ? str(ns, "volumeMode") : "null", IMMUTABLE_MSG);
        if (has(os, "nodeAffinity") &&
            !vj_equal(vj_obj(ns, "nodeAffinity"), vj_obj(os, "nodeAffinity"))) {
                cleanup_free char *r = vj_render(vj_obj(ns, "nodeAffinity"));
                verr_raw(errs, FIELD_ERROR_INVALID, "nodeAffinity", r, IMMUTABLE_MSG);
        }
        return errs->n - before;
}

size_t validate_pv_status_update(const json_t *new_pv, const json_t *old_pv,
                                 struct field_error_list *errs)
{
        return validate_object_meta_update(new_pv, old_pv, errs);
}

/* ---- PersistentVolumeClaim ---- */

/* K8S: validateDataSource / validateDataSourceRef */
static void validate_data_source(const json_t *ds, const char *path, bool ref,
                                 struct field_error_list *errs)
{
        const char *group = str(ds, "apiGroup"), *kind = str(ds, "kind");
        cleanup_free char *np = xasprintf("%s.name", path);
        cleanup_free char *kp = xasprintf("%s.kind", path);
        cleanup_free char *gp = xasprintf("%s.apiGroup", path);
        cleanup_free char *nsp = xasprintf("%s.namespace", path);

        if (!str(ds, "name")[0])
                verr_raw(errs, FIELD_ERROR_REQUIRED, np, NULL, "");
        if (!kind[0])
                verr_raw(errs, FIELD_ERROR_REQUIRED, kp, NULL, "");
        if (!group[0] && !streq(kind, "PersistentVolumeClaim"))
                verr_str(errs, FIELD_ERROR_INVALID, path, kind,
                         "must be 'PersistentVolumeClaim' when referencing the default apiGroup");
        if (group[0])
                validate_dns1123_subdomain(group, gp, errs);
        if (ref && str(ds, "namespace")[0])
                validate_dns1123_label(str(ds, "namespace"), nsp, errs);
}

/* K8S: ValidatePersistentVolumeClaimSpec */
static void validate_pvc_spec(const json_t *spec, struct field_error_list *errs)
{
        const json_t *requests = vj_obj(vj_obj(spec, "resources"), "requests");
        const json_t *storage = json_object_get(requests, "storage");
        const json_t *ds = vj_obj(spec, "dataSource"), *ref = vj_obj(spec, "dataSourceRef");

        if (json_array_size(vj_arr(spec, "accessModes")) == 0)
                verr_raw(errs, FIELD_ERROR_REQUIRED, "spec.accessModes", NULL,
                         "at least 1 access mode is required");
        if (has(spec, "selector"))
                v_validate_label_selector(vj_obj(spec, "selector"), "spec.selector", errs);
        validate_access_modes(vj_arr(spec, "accessModes"), "spec.accessModes", errs);
        /* K8S: upstream's path is fldPath.Child("resources").Key("storage") */
        if (!storage)
                verr_raw(errs, FIELD_ERROR_REQUIRED, "spec.resources[storage]", NULL, "");
        else if (validate_positive_quantity(storage, "spec.resources[storage]", errs))
                validate_nonnegative_quantity(storage, "spec.resources[storage]", errs);
        if (str(spec, "storageClassName")[0])
                validate_dns1123_subdomain(str(spec, "storageClassName"), "spec.storageClassName",
                                           errs);
        if (has(spec, "volumeMode") && !in_list(str(spec, "volumeMode"), volume_modes))
                verr_not_supported(errs, "spec.volumeMode", str(spec, "volumeMode"), volume_modes);
        if (ds)
                validate_data_source(ds, "spec.dataSource", false, errs);
        if (ref)
                validate_data_source(ref, "spec.dataSourceRef", true, errs);
        if (ref && str(ref, "namespace")[0]) {
                if (ds)
                        verr_raw(errs, FIELD_ERROR_INVALID, "spec", "spec.dataSource",
                                 "may not be specified when dataSourceRef.namespace is specified");
        } else if (ds && ref) {
                if (!streq(str(ds, "apiGroup"), str(ref, "apiGroup")) ||
                    has(ds, "apiGroup") != has(ref, "apiGroup") ||
                    !streq(str(ds, "kind"), str(ref, "kind")) ||
                    !streq(str(ds, "name"), str(ref, "name")))
                        verr_raw(errs, FIELD_ERROR_INVALID, "spec", "spec.dataSource",
                                 "must match dataSourceRef");
        }
}

size_t validate_pvc_create(const json_t *pvc, struct field_error_list *errs)
{
        size_t before = errs->n;

        validate_object_meta_create(pvc, true, errs);
        validate_pvc_spec(vj_obj(pvc, "spec"), errs);
        return errs->n - before;
}

static const char *beta_class(const json_t *obj, bool *ret_set)
{
        const char *v = vj_str(vj_obj(vj_obj(obj, "metadata"), "annotations"),
                               STORAGE_CLASS_BETA_ANNOTATION);

        *ret_set = v != NULL;
        return v ? v : "";
}

/* Compares two storage quantities; an absent or bad one counts as zero. */
static int storage_cmp(const json_t *a, const json_t *b)
{
        struct quantity qa, qb;

        if (!a || vq_parse(a, &qa) < 0)
                quantity_from_int64(0, QUANTITY_BINARY_SI, &qa);
        if (!b || vq_parse(b, &qb) < 0)
                quantity_from_int64(0, QUANTITY_BINARY_SI, &qb);
        return quantity_cmp(&qa, &qb);
}

size_t validate_pvc_update(const json_t *new_pvc, const json_t *old_pvc,
                           struct field_error_list *errs)
{
        size_t before = errs->n;
        const json_t *ns = vj_obj(new_pvc, "spec"), *os = vj_obj(old_pvc, "spec");
        cleanup_json json_t *nclone = json_deep_copy(ns ? ns : json_object());
        cleanup_json json_t *oclone = json_deep_copy(os ? os : json_object());
        const char *phase = str(vj_obj(new_pvc, "status"), "phase");
        bool old_beta_set, new_beta_set;
        const char *old_beta = beta_class(old_pvc, &old_beta_set);
        const char *new_beta = beta_class(new_pvc, &new_beta_set);
        bool old_sc_set = has(os, "storageClassName"), new_sc_set = has(ns, "storageClassName");
        const char *new_sc = str(ns, "storageClassName");
        const json_t *old_size =
                json_object_get(vj_obj(vj_obj(os, "resources"), "requests"), "storage");
        const json_t *new_size =
                json_object_get(vj_obj(vj_obj(ns, "resources"), "requests"), "storage");
        const json_t *status_size =
                json_object_get(vj_obj(vj_obj(old_pvc, "status"), "capacity"), "storage");

        validate_object_meta_update(new_pvc, old_pvc, errs);
        validate_pvc_spec(ns, errs);

        /* K8S: the PV controller binds a claim by setting volumeName, once */
        if (!str(os, "volumeName")[0]) {
                if (has(ns, "volumeName"))
                        json_object_set(oclone, "volumeName", json_object_get(ns, "volumeName"));
                else
                        json_object_del(oclone, "volumeName");
        }
        if (old_beta_set && !old_sc_set && new_sc_set && streq(new_sc, old_beta) &&
            (!new_beta_set || streq(new_beta, old_beta))) {
                /* K8S: validateStorageClassUpgradeFromAnnotation: the annotation's class moves
                 * into storageClassName */
                json_object_del(nclone, "storageClassName");
        } else {
                /* K8S: the beta class annotation is immutable */
                if (!streq(new_beta, old_beta))
                        verr_str(errs, FIELD_ERROR_INVALID,
                                 "metadata.annotations.volume.beta.kubernetes.io/storage-class",
                                 new_beta, IMMUTABLE_MSG);
                /* K8S: validateStorageClassUpgradeFromNil: a class may be set where none was */
                if (new_sc_set && !old_sc_set && (!old_beta_set || streq(new_sc, old_beta)))
                        json_object_del(nclone, "storageClassName");
        }
        /* K8S: a bound claim's storage request may change (expansion, KEP-1790 recovery) */
        if (streq(phase, "Bound")) {
                json_t *nreq = vj_obj(vj_obj(nclone, "resources"), "requests");
                if (nreq) {
                        if (old_size)
                                json_object_set(nreq, "storage", (json_t *) old_size);
                        else
                                json_object_del(nreq, "storage");
                }
        }
        if (!vj_equal(nclone, oclone)) {
                struct strbuf diff;
                strbuf_init(&diff);
                vj_diff(oclone, nclone, "spec", &diff);
                if (diff.len && diff.buf[diff.len - 1] == '\n')
                        diff.buf[--diff.len] = '\0';
                field_error_add(errs, FIELD_ERROR_FORBIDDEN, "spec", NULL,
                                "spec is immutable after creation except resources.requests and "
                                "volumeAttributesClassName for bound claims\n%s",
                                diff.buf);
                strbuf_release(&diff);
        }
        /* K8S: RecoverVolumeExpansionFailure: lowering the request is allowed while it stays
         * above status.capacity (to retry a failed expansion with a smaller size) */
        if (storage_cmp(new_size, old_size) < 0 && storage_cmp(new_size, status_size) <= 0)
                verr_raw(errs, FIELD_ERROR_FORBIDDEN, "spec.resources.requests.storage", NULL,
                         "field can not be less than status.capacity");
        if (!streq(str(ns, "volumeMode"), str(os, "volumeMode")))
                verr_str(errs, FIELD_ERROR_INVALID, "volumeMode",
                         has(ns, "volumeMode") ? str(ns, "volumeMode") : "null", IMMUTABLE_MSG);
        return errs->n - before;
}

/* K8S: validatePersistentVolumeClaimResourceKey: a qualified name; native names must be
 * storage. */
static bool validate_claim_resource_key(const char *key, const char *path,
                                        struct field_error_list *errs)
{
        if (validate_qualified_name(key, path, errs))
                return false;
        if (!strchr(key, '/') || strstr(key, "kubernetes.io/")) {
                if (!streq(key, "storage")) {
                        verr_not_supported(errs, path, key, storage_only);
                        return false;
                }
        }
        return true;
}

size_t validate_pvc_status_update(const json_t *new_pvc, const json_t *old_pvc,
                                  struct field_error_list *errs)
{
        size_t before = errs->n;
        const json_t *status = vj_obj(new_pvc, "status");
        const char *key;
        json_t *v;

        validate_object_meta_update(new_pvc, old_pvc, errs);
        if (json_array_size(vj_arr(vj_obj(new_pvc, "spec"), "accessModes")) == 0)
                verr_raw(errs, FIELD_ERROR_REQUIRED, "Spec.accessModes", NULL, "");
        json_object_foreach(vj_obj(status, "capacity"), key, v) {
                cleanup_free char *p = xasprintf("status.capacity[%s]", key);
                validate_basic_resource(v, p, errs);
        }
        /* K8S: RecoverVolumeExpansionFailure is on: the resize status map and allocation */
        json_object_foreach(vj_obj(status, "allocatedResourceStatuses"), key, v) {
                validate_claim_resource_key(key, "status.allocatedResourceStatus", errs);
                if (!json_is_string(v) || !in_list(json_string_value(v), resize_statuses))
                        verr_not_supported(errs, "status.allocatedResourceStatus", key,
                                           resize_statuses);
        }
        json_object_foreach(vj_obj(status, "allocatedResources"), key, v) {
                cleanup_free char *p = xasprintf("status.allocatedResources[%s]", key);
                if (!validate_claim_resource_key(key, "status.allocatedResources", errs))
                        continue;
                if (validate_basic_resource(v, p, errs))
                        validate_nonnegative_quantity(v, p, errs);
        }
        return errs->n - before;
}
