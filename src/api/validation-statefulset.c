/* validation-statefulset.c: defaults and validation of apps/v1 StatefulSets and
 * ControllerRevisions as kube-apiserver 1.33 does them (K8S: pkg/apis/apps/v1/defaults.go
 * SetDefaults_StatefulSet; pkg/apis/apps/validation ValidateStatefulSet*,
 * ValidateControllerRevision*). The object arrives checked by schema_check (field types); what
 * the controller does with it lives in controllers/statefulset.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/selector.h"
#include "api/validation-internal.h"
#include "api/validation.h"
#include "base/alloc.h"
#include "base/json.h"

static void default_int(json_t *obj, const char *key, json_int_t v)
{
        json_t *cur = json_object_get(obj, key);

        if (!cur || json_is_null(cur))
                json_object_set_new(obj, key, json_integer(v));
}

static void default_str(json_t *obj, const char *key, const char *v)
{
        const char *cur = vj_str(obj, key);

        if (!cur || !cur[0])
                json_object_set_new(obj, key, json_string(v));
}

void stateful_set_set_defaults(json_t *sts)
{
        json_t *spec = json_object_ensure(sts, "spec");
        json_t *strategy = json_object_ensure(spec, "updateStrategy");
        json_t *policy = json_object_ensure(spec, "persistentVolumeClaimRetentionPolicy");
        json_t *tpl;
        size_t i;

        /* K8S: SetDefaults_StatefulSet (apps/v1): rollingUpdate is made only with the type; an
         * explicit RollingUpdate without one stays without (kubectl rollout status reads the
         * difference) */
        default_str(spec, "podManagementPolicy", "OrderedReady");
        if (!vj_str(strategy, "type") || !vj_str(strategy, "type")[0]) {
                json_object_set_new(strategy, "type", json_string("RollingUpdate"));
                (void) json_object_ensure(strategy, "rollingUpdate");
        }
        if (streq(vj_str(strategy, "type"), "RollingUpdate") && vj_obj(strategy, "rollingUpdate"))
                default_int(vj_obj(strategy, "rollingUpdate"), "partition", 0);
        default_str(policy, "whenDeleted", "Retain");
        default_str(policy, "whenScaled", "Retain");
        default_int(spec, "replicas", 1);
        default_int(spec, "revisionHistoryLimit", 10);
        pod_template_set_defaults(json_object_ensure(spec, "template"));
        /* K8S: the generated defaulter runs SetDefaults_PersistentVolumeClaim on each claim
         * template too (volumeMode Filesystem, status.phase Pending) */
        json_array_foreach(vj_arr(spec, "volumeClaimTemplates"), i, tpl) {
                if (json_is_object(tpl))
                        pvc_set_defaults(tpl);
        }
}

static void validate_nonnegative(const json_t *obj, const char *key, const char *field,
                                 struct field_error_list *errs)
{
        json_t *v = json_object_get(obj, key);

        /* K8S: ValidateNonnegativeField */
        if (json_is_integer(v) && json_integer_value(v) < 0)
                verr_int(errs, FIELD_ERROR_INVALID, field, (long long) json_integer_value(v),
                         "must be greater than or equal to 0");
}

/* Go's %#v of the *apps.RollingUpdateStatefulSetStrategy field.Invalid prints (a pointer inside
 * it prints as an address in Go; a fixed one stands for it here). */
static char *render_rolling_update(const json_t *ru)
{
        const json_t *mu = json_object_get(ru, "maxUnavailable");
        cleanup_free char *mus = NULL;

        if (!ru)
                return xstrdup("(*apps.RollingUpdateStatefulSetStrategy)(nil)");
        if (mu && !json_is_null(mu))
                mus = xstrdup("(*intstr.IntOrString)(0xc000000000)");
        else
                mus = xstrdup("(*intstr.IntOrString)(nil)");
        return xasprintf(
                "&apps.RollingUpdateStatefulSetStrategy{Partition:%lld, MaxUnavailable:%s}",
                (long long) json_integer_value(json_object_get(ru, "partition")), mus);
}

/* K8S: ValidateStatefulSetSpec's updateStrategy switch and validateRollingUpdateStatefulSet */
static void validate_update_strategy(const json_t *strategy, struct field_error_list *errs)
{
        const char *type = vj_str(strategy, "type") ?: "";
        const json_t *ru = vj_obj(strategy, "rollingUpdate");

        if (!type[0]) {
                verr_raw(errs, FIELD_ERROR_REQUIRED, "spec.updateStrategy", NULL, "");
        } else if (streq(type, "OnDelete")) {
                if (ru) {
                        cleanup_free char *rendered = render_rolling_update(ru);
                        verr_raw(errs, FIELD_ERROR_INVALID, "spec.updateStrategy.rollingUpdate",
                                 rendered, "only allowed for updateStrategy 'RollingUpdate'");
                }
        } else if (streq(type, "RollingUpdate")) {
                const json_t *mu = json_object_get(ru, "maxUnavailable");

                validate_nonnegative(ru, "partition", "spec.updateStrategy.rollingUpdate.partition",
                                     errs);
                if (mu && !json_is_null(mu))
                        v_validate_int_or_percent(
                                mu, "spec.updateStrategy.rollingUpdate.maxUnavailable", errs);
        } else {
                cleanup_free char *q = field_value_quote(type);
                cleanup_free char *rendered =
                        xasprintf("apps.StatefulSetUpdateStrategy{Type:%s, RollingUpdate:%s}", q,
                                  ru ? "(*apps.RollingUpdateStatefulSetStrategy)(0xc000000000)"
                                     : "(*apps.RollingUpdateStatefulSetStrategy)(nil)");
                verr_raw(errs, FIELD_ERROR_INVALID, "spec.updateStrategy", rendered,
                         "must be 'RollingUpdate' or 'OnDelete'");
        }
}

static void validate_retention(const json_t *policy, struct field_error_list *errs)
{
        static const char *const kinds[] = { "Retain", "Delete", NULL };
        static const char *const keys[] = { "whenDeleted", "whenScaled" };

        if (!policy)
                return;
        /* K8S: ValidatePersistentVolumeClaimRetentionPolicyType */
        for (size_t i = 0; i < 2; i++) {
                const char *v = vj_str(policy, keys[i]) ?: "";
                if (!streq(v, "Retain") && !streq(v, "Delete")) {
                        cleanup_free char *f =
                                xasprintf("spec.persistentVolumeClaimRetentionPolicy.%s", keys[i]);
                        verr_not_supported(errs, f, v, kinds);
                }
        }
}

/* K8S: ValidatePodTemplateSpecForStatefulSet: the labels against the selector, the labels and
 * annotations; upstream leaves the pod spec itself unvalidated (its volumes would lack the
 * claim templates' volumes), so the pods' own validation judges it at create. */
static void validate_template(const json_t *tmpl, const json_t *sel, struct field_error_list *errs)
{
        const json_t *labels = vj_obj(vj_obj(tmpl, "metadata"), "labels");
        const json_t *spec = vj_obj(tmpl, "spec");
        const char *restart = vj_str(spec, "restartPolicy");
        static const char *const always[] = { "Always", NULL };

        if (sel && !label_selector_object_is_empty(sel) &&
            label_selector_object_matches(sel, labels) != 1) {
                cleanup_free char *rendered = v_render_string_map(labels);
                verr_raw(errs, FIELD_ERROR_INVALID, "spec.template.metadata.labels", rendered,
                         "`selector` does not match template `labels`");
        }
        (void) validate_labels(labels, "spec.template.labels", errs);
        if (!restart || !streq(restart, "Always"))
                verr_not_supported(errs, "spec.template.spec.restartPolicy", restart ?: "", always);
        if (json_object_get(spec, "activeDeadlineSeconds") &&
            !json_is_null(json_object_get(spec, "activeDeadlineSeconds")))
                verr_raw(errs, FIELD_ERROR_FORBIDDEN, "spec.template.spec.activeDeadlineSeconds",
                         NULL, "activeDeadlineSeconds in StatefulSet is not Supported");
}

static void validate_spec(const json_t *spec, struct field_error_list *errs)
{
        const char *pmp = vj_str(spec, "podManagementPolicy") ?: "";
        const json_t *sel = json_object_get(spec, "selector");
        const json_t *ordinals = vj_obj(spec, "ordinals");

        /* K8S: ValidateStatefulSetSpec, in its order */
        if (!pmp[0])
                verr_raw(errs, FIELD_ERROR_REQUIRED, "spec.podManagementPolicy", NULL, "");
        else if (!streq(pmp, "OrderedReady") && !streq(pmp, "Parallel"))
                verr_str(errs, FIELD_ERROR_INVALID, "spec.podManagementPolicy", pmp,
                         "must be 'OrderedReady' or 'Parallel'");
        validate_update_strategy(vj_obj(spec, "updateStrategy"), errs);
        validate_retention(vj_obj(spec, "persistentVolumeClaimRetentionPolicy"), errs);
        validate_nonnegative(spec, "replicas", "spec.replicas", errs);
        validate_nonnegative(spec, "minReadySeconds", "spec.minReadySeconds", errs);
        if (ordinals)
                validate_nonnegative(ordinals, "start", "spec.ordinals.start", errs);
        if (!json_is_object(sel)) {
                verr_raw(errs, FIELD_ERROR_REQUIRED, "spec.selector", NULL, "");
                sel = NULL;
        } else {
                v_validate_label_selector(sel, "spec.selector", errs);
                if (label_selector_object_is_empty(sel)) {
                        cleanup_free char *rendered = v_render_selector(sel);
                        verr_raw(errs, FIELD_ERROR_INVALID, "spec.selector", rendered,
                                 "empty selector is invalid for statefulset");
                }
                if (label_selector_object_matches(sel, NULL) < 0) {
                        cleanup_free char *rendered = v_render_selector(sel);
                        verr_raw(errs, FIELD_ERROR_INVALID, "spec.selector", rendered, "");
                        sel = NULL;
                }
        }
        validate_template(vj_obj(spec, "template"), sel, errs);
}

size_t validate_stateful_set(const json_t *sts, bool meta, struct field_error_list *errs)
{
        size_t before = errs->n;

        /* K8S: ValidateStatefulSetName is NameIsDNSLabel: the pods are named <set>-<ordinal> */
        if (meta)
                (void) validate_object_meta_create_named(sts, true, OBJECT_NAME_DNS1123_LABEL,
                                                         errs);
        validate_spec(vj_obj(sts, "spec"), errs);
        return errs->n - before;
}

size_t validate_stateful_set_update(const json_t *new_sts, const json_t *old_sts,
                                    struct field_error_list *errs)
{
        static const char *const mutable_keys[] = { "replicas",
                                                    "template",
                                                    "updateStrategy",
                                                    "minReadySeconds",
                                                    "ordinals",
                                                    "persistentVolumeClaimRetentionPolicy",
                                                    NULL };
        size_t before = errs->n;
        cleanup_json json_t *a = json_deep_copy(vj_obj(new_sts, "spec") ?: json_object());
        cleanup_json json_t *b = json_deep_copy(vj_obj(old_sts, "spec") ?: json_object());

        (void) validate_object_meta_update(new_sts, old_sts, errs);
        validate_spec(vj_obj(new_sts, "spec"), errs);
        /* K8S: ValidateStatefulSetUpdate: everything else of the spec is immutable */
        for (size_t i = 0; mutable_keys[i]; i++) {
                (void) json_object_del(a, mutable_keys[i]);
                (void) json_object_del(b, mutable_keys[i]);
        }
        if (!vj_equal(a, b))
                verr_raw(errs, FIELD_ERROR_FORBIDDEN, "spec", NULL,
                         "updates to statefulset spec for fields other than 'replicas', "
                         "'ordinals', 'template', 'updateStrategy', "
                         "'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are "
                         "forbidden");
        return errs->n - before;
}

size_t validate_stateful_set_status_update(const json_t *new_sts, const json_t *old_sts,
                                           struct field_error_list *errs)
{
        static const char *const keys[] = { "replicas", "readyReplicas", "currentReplicas",
                                            "updatedReplicas", "availableReplicas" };
        size_t before = errs->n;
        const json_t *st = vj_obj(new_sts, "status");
        long long replicas = json_integer_value(json_object_get(st, "replicas"));
        long long ready = json_integer_value(json_object_get(st, "readyReplicas"));
        long long avail = json_integer_value(json_object_get(st, "availableReplicas"));
        const json_t *cc = json_object_get(st, "collisionCount");
        const json_t *old_cc = json_path(old_sts, "status.collisionCount");

        /* K8S: ValidateStatefulSetStatus */
        for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
                cleanup_free char *f = xasprintf("status.%s", keys[i]);
                validate_nonnegative(st, keys[i], f, errs);
        }
        validate_nonnegative(st, "observedGeneration", "status.observedGeneration", errs);
        validate_nonnegative(st, "collisionCount", "status.collisionCount", errs);
        for (size_t i = 1; i < ARRAY_SIZE(keys); i++) {
                cleanup_free char *f = xasprintf("status.%s", keys[i]);
                long long n = json_integer_value(json_object_get(st, keys[i]));
                if (n > replicas)
                        verr_int(errs, FIELD_ERROR_INVALID, f, n,
                                 "cannot be greater than status.replicas");
        }
        if (avail > ready)
                verr_int(errs, FIELD_ERROR_INVALID, "status.availableReplicas", avail,
                         "cannot be greater than status.readyReplicas");
        (void) validate_object_meta_update(new_sts, old_sts, errs);
        /* K8S: IsDecremented(collisionCount) */
        if (json_is_integer(old_cc) &&
            (!json_is_integer(cc) || json_integer_value(cc) < json_integer_value(old_cc)))
                verr_int(errs, FIELD_ERROR_INVALID, "status.collisionCount",
                         (long long) json_integer_value(cc), "cannot be decremented");
        return errs->n - before;
}

size_t validate_controller_revision(const json_t *cr, bool meta, struct field_error_list *errs)
{
        size_t before = errs->n;
        const json_t *data = json_object_get(cr, "data");

        /* K8S: ValidateControllerRevision */
        if (meta)
                (void) validate_object_meta_create(cr, true, errs);
        if (!data || json_is_null(data))
                verr_raw(errs, FIELD_ERROR_REQUIRED, "data", NULL, "data is mandatory");
        validate_nonnegative(cr, "revision", "revision", errs);
        return errs->n - before;
}

size_t validate_controller_revision_update(const json_t *new_cr, const json_t *old_cr,
                                           struct field_error_list *errs)
{
        size_t before = errs->n;

        /* K8S: ValidateControllerRevisionUpdate: data is immutable */
        (void) validate_object_meta_update(new_cr, old_cr, errs);
        (void) validate_controller_revision(new_cr, false, errs);
        if (!vj_equal(json_object_get(new_cr, "data"), json_object_get(old_cr, "data")))
                verr_raw(errs, FIELD_ERROR_INVALID, "data", NULL, "field is immutable");
        return errs->n - before;
}
