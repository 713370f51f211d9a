/* defaults-storage.c: defaults and the registry strategies' object preparation for the storage
 * kinds (StorageClass, PersistentVolume, PersistentVolumeClaim) as kube-apiserver 1.33 applies
 * them: what decoding defaults, what PrepareForCreate/PrepareForUpdate keep or drop, and the
 * class lookups (annotation first) the printers and admission share. Validation is in
 * validation-storage.c. */
#include <string.h>

#include "api/validation-internal.h"
#include "api/validation.h"
#include "base/alloc.h"
#include "base/json.h"

/* True when obj has key with a value other than null (a Go pointer or slice that is set). */
static bool has(const json_t *obj, const char *key)
{
        json_t *v = json_is_object(obj) ? json_object_get(obj, key) : NULL;

        return v && !json_is_null(v);
}

static void default_string(json_t *obj, const char *key, const char *value)
{
        const char *cur = vj_str(obj, key);

        if (!cur || !cur[0])
                json_object_set_new(obj, key, json_string(value));
}

/* A pointer field: set only when absent or null ("" stays, as a set empty pointer). */
static void default_pointer(json_t *obj, const char *key, const char *value)
{
        if (!has(obj, key))
                json_object_set_new(obj, key, json_string(value));
}

/* K8S: SetDefaults_ResourceList rounds every quantity up to milli precision. */
static void round_resource_list(json_t *list)
{
        const char *name;
        json_t *v;

        json_object_foreach(list, name, v) {
                struct quantity q, r;
                int64_t m;
                if (vq_parse(v, &q) < 0 || quantity_milli_value(&q, &m) < 0)
                        continue;
                quantity_from_milli(m, q.format, &r);
                if (quantity_cmp(&q, &r) != 0) {
                        cleanup_free char *s = quantity_format(&r);
                        json_object_set_new(list, name, json_string(s));
                }
        }
}

void storage_class_set_defaults(json_t *sc)
{
        default_pointer(sc, "reclaimPolicy", "Delete");
        default_pointer(sc, "volumeBindingMode", "Immediate");
}

bool storage_class_is_default(const json_t *sc)
{
        const json_t *ann = vj_obj(vj_obj(sc, "metadata"), "annotations");
        const char *v = vj_str(ann, STORAGE_CLASS_DEFAULT_ANNOTATION);
        const char *beta = vj_str(ann, STORAGE_CLASS_BETA_DEFAULT_ANNOTATION);

        return (v && streq(v, "true")) || (beta && streq(beta, "true"));
}

/* ---- PersistentVolume ---- */

void pv_set_defaults(json_t *pv)
{
        json_t *spec = json_object_ensure(pv, "spec");
        json_t *status = json_object_ensure(pv, "status");
        json_t *host_path = vj_obj(spec, "hostPath");

        default_string(status, "phase", "Pending");
        default_string(spec, "persistentVolumeReclaimPolicy", "Retain");
        default_pointer(spec, "volumeMode", "Filesystem");
        /* K8S: SetDefaults_HostPathVolumeSource: HostPathUnset */
        if (host_path)
                default_pointer(host_path, "type", "");
        round_resource_list(vj_obj(spec, "capacity"));
}

void pv_prepare_for_create(json_t *pv, const char *now)
{
        json_object_set_new(
                pv, "status",
                json_pack("{s:s, s:s}", "phase", "Pending", "lastPhaseTransitionTime", now));
        /* K8S: DropDisabledSpecFields: VolumeAttributesClass is off by default in 1.33. */
        json_object_del(json_object_ensure(pv, "spec"), "volumeAttributesClassName");
}

static void keep_old(json_t *new_obj, const json_t *old_obj, const char *key)
{
        json_t *v = json_is_object(old_obj) ? json_object_get(old_obj, key) : NULL;

        if (v)
                json_object_set_new(new_obj, key, json_deep_copy(v));
        else
                json_object_del(new_obj, key);
}

void pv_prepare_for_update(json_t *new_pv, const json_t *old_pv)
{
        keep_old(new_pv, old_pv, "status");
        if (!has(vj_obj(old_pv, "spec"), "volumeAttributesClassName"))
                json_object_del(json_object_ensure(new_pv, "spec"), "volumeAttributesClassName");
}

void pv_prepare_for_status_update(json_t *new_pv, const json_t *old_pv, const char *now)
{
        json_t *status = json_object_ensure(new_pv, "status");
        const json_t *old_status = vj_obj(old_pv, "status");
        const char *np = vj_str(status, "phase"), *op = vj_str(old_status, "phase");
        const char *nt = vj_str(status, "lastPhaseTransitionTime");
        const char *ot = vj_str(old_status, "lastPhaseTransitionTime");

        keep_old(new_pv, old_pv, "spec");
        if (streq(np ? np : "", op ? op : "")) {
                /* K8S: the phase stays: an unset time keeps the old one */
                if (!nt && ot)
                        json_object_set_new(status, "lastPhaseTransitionTime", json_string(ot));
        } else if (!nt || (ot && streq(nt, ot))) {
                /* K8S: the phase moves and the writer did not say when: now */
                json_object_set_new(status, "lastPhaseTransitionTime", json_string(now));
        }
}

const char *pv_storage_class(const json_t *pv)
{
        const json_t *ann = vj_obj(vj_obj(pv, "metadata"), "annotations");
        const char *beta = vj_str(ann, STORAGE_CLASS_BETA_ANNOTATION);
        const char *name = vj_str(vj_obj(pv, "spec"), "storageClassName");

        if (beta)
                return beta;
        return name ? name : "";
}

/* ---- PersistentVolumeClaim ---- */

void pvc_set_defaults(json_t *pvc)
{
        json_t *spec = json_object_ensure(pvc, "spec");
        json_t *status = json_object_ensure(pvc, "status");
        json_t *res = vj_obj(spec, "resources");

        default_string(status, "phase", "Pending");
        default_pointer(spec, "volumeMode", "Filesystem");
        round_resource_list(vj_obj(res, "requests"));
        round_resource_list(vj_obj(res, "limits"));
        round_resource_list(vj_obj(status, "capacity"));
        round_resource_list(vj_obj(status, "allocatedResources"));
}

/* K8S: dataSourceIsEnabled: a claim may be cloned from a claim or restored from a snapshot. */
static bool data_source_enabled(const json_t *spec)
{
        const json_t *ds = vj_obj(spec, "dataSource");
        const char *group = vj_str(ds, "apiGroup"), *kind = vj_str(ds, "kind");

        if (!ds)
                return false;
        group = group ? group : "";
        kind = kind ? kind : "";
        return (!group[0] && streq(kind, "PersistentVolumeClaim")) ||
               (streq(group, "snapshot.storage.k8s.io") && streq(kind, "VolumeSnapshot"));
}

/* K8S: EnforceDataSourceBackwardsCompatibility + NormalizeDataSources (AnyVolumeDataSource is
 * on): drop a dataSource nothing serves unless the old claim had one, then fill dataSource and
 * dataSourceRef from each other. */
static void normalize_data_sources(json_t *spec, const json_t *old_spec)
{
        bool old_in_use = has(old_spec, "dataSource") || has(old_spec, "dataSourceRef");
        json_t *ds, *ref;

        if (!old_in_use && !data_source_enabled(spec))
                json_object_del(spec, "dataSource");
        ds = vj_obj(spec, "dataSource");
        ref = vj_obj(spec, "dataSourceRef");
        if (ds && !ref) {
                json_t *r = json_pack("{s:s, s:s}", "kind", vj_str(ds, "kind") ?: "", "name",
                                      vj_str(ds, "name") ?: "");
                if (has(ds, "apiGroup"))
                        json_object_set(r, "apiGroup", json_object_get(ds, "apiGroup"));
                json_object_set_new(spec, "dataSourceRef", r);
        } else if (ref && !ds) {
                const char *ns = vj_str(ref, "namespace");
                if (!ns || !ns[0]) {
                        json_t *d = json_pack("{s:s, s:s}", "kind", vj_str(ref, "kind") ?: "",
                                              "name", vj_str(ref, "name") ?: "");
                        if (has(ref, "apiGroup"))
                                json_object_set(d, "apiGroup", json_object_get(ref, "apiGroup"));
                        json_object_set_new(spec, "dataSource", d);
                }
        }
}

void pvc_prepare_for_create(json_t *pvc)
{
        json_t *spec = json_object_ensure(pvc, "spec");

        json_object_set_new(pvc, "status", json_pack("{s:s}", "phase", "Pending"));
        /* K8S: DropDisabledSpecFields: VolumeAttributesClass is off by default in 1.33. */
        json_object_del(spec, "volumeAttributesClassName");
        normalize_data_sources(spec, NULL);
}

void pvc_prepare_for_update(json_t *new_pvc, const json_t *old_pvc)
{
        json_t *spec = json_object_ensure(new_pvc, "spec");
        const json_t *old_spec = vj_obj(old_pvc, "spec");

        keep_old(new_pvc, old_pvc, "status");
        if (!has(old_spec, "volumeAttributesClassName"))
                json_object_del(spec, "volumeAttributesClassName");
        normalize_data_sources(spec, old_spec);
}

void pvc_prepare_for_status_update(json_t *new_pvc, const json_t *old_pvc)
{
        json_t *status = json_object_ensure(new_pvc, "status");
        const json_t *old_status = vj_obj(old_pvc, "status");

        keep_old(new_pvc, old_pvc, "spec");
        /* K8S: DropDisabledFieldsFromStatus with VolumeAttributesClass off */
        if (!has(vj_obj(old_pvc, "spec"), "volumeAttributesClassName") &&
            !has(old_status, "currentVolumeAttributesClassName") &&
            !has(old_status, "modifyVolumeStatus")) {
                json_object_del(status, "currentVolumeAttributesClassName");
                json_object_del(status, "modifyVolumeStatus");
        }
}

const char *pvc_storage_class(const json_t *pvc)
{
        const json_t *ann = vj_obj(vj_obj(pvc, "metadata"), "annotations");
        const char *beta = vj_str(ann, STORAGE_CLASS_BETA_ANNOTATION);
        const char *name = vj_str(vj_obj(pvc, "spec"), "storageClassName");

        if (beta)
                return beta;
        return name ? name : "";
}

bool pvc_has_storage_class(const json_t *pvc)
{
        const json_t *ann = vj_obj(vj_obj(pvc, "metadata"), "annotations");

        return vj_str(ann, STORAGE_CLASS_BETA_ANNOTATION) ||
               has(vj_obj(pvc, "spec"), "storageClassName");
}
