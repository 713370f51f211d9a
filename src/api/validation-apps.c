/* validation-apps.c: defaults and validation of apps/v1 ReplicaSets and Deployments as
 * kube-apiserver 1.33 does them (K8S: pkg/apis/apps/v1/defaults.go SetDefaults_ReplicaSet,
 * SetDefaults_Deployment; pkg/apis/apps/validation ValidateReplicaSet*, ValidateDeployment*).
 * The object arrives checked by schema_check (field types); what a controller does with it
 * lives in controllers/. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/selector.h"
#include "api/validation-internal.h"
#include "api/validation.h"
#include "api/workload.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/strbuf.h"

/* ---- defaults ---- */

static void default_int(json_t *obj, const char *key, json_int_t v)
{
        json_t *cur = json_object_get(obj, key);

        if (!cur || json_is_null(cur))
                json_object_set_new(obj, key, json_integer(v));
}

void replica_set_set_defaults(json_t *rs)
{
        json_t *spec = json_object_ensure(rs, "spec");

        /* K8S: SetDefaults_ReplicaSet: replicas 1 (apps/v1 has no selector or label defaults) */
        default_int(spec, "replicas", 1);
        pod_template_set_defaults(json_object_ensure(spec, "template"));
}

void deployment_set_defaults(json_t *d)
{
        json_t *spec = json_object_ensure(d, "spec");
        json_t *strategy = json_object_ensure(spec, "strategy");
        const char *type = vj_str(strategy, "type");

        /* K8S: SetDefaults_Deployment (apps/v1) */
        default_int(spec, "replicas", 1);
        if (!type || !type[0]) {
                type = "RollingUpdate";
                json_object_set_new(strategy, "type", json_string(type));
        }
        if (streq(type, "RollingUpdate")) {
                json_t *ru = json_object_ensure(strategy, "rollingUpdate");
                json_t *mu = json_object_get(ru, "maxUnavailable");
                json_t *ms = json_object_get(ru, "maxSurge");

                if (!mu || json_is_null(mu))
                        json_object_set_new(ru, "maxUnavailable", json_string("25%"));
                if (!ms || json_is_null(ms))
                        json_object_set_new(ru, "maxSurge", json_string("25%"));
        }
        default_int(spec, "revisionHistoryLimit", 10);
        default_int(spec, "progressDeadlineSeconds", 600);
        pod_template_set_defaults(json_object_ensure(spec, "template"));
}

/* ---- validation ---- */

static int cmp_str(const void *a, const void *b)
{
        return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* Go's %#v of a map[string]string, which field.Invalid prints for template labels:
 * map[string]string{"a":"b"} with the keys sorted (fmt sorts map keys). */
char *v_render_string_map(const json_t *m)
{
        struct strbuf sb;
        const char **keys;
        size_t n = json_object_size(m), i = 0;
        const char *k;
        json_t *v;

        if (!n)
                return xstrdup("map[string]string(nil)");
        keys = xcalloc(n, sizeof(*keys));
        json_object_foreach((json_t *) m, k, v) {
                keys[i++] = k;
        }
        qsort(keys, n, sizeof(*keys), cmp_str);
        strbuf_init(&sb);
        strbuf_addstr(&sb, "map[string]string{");
        for (i = 0; i < n; i++) {
                cleanup_free char *qk = field_value_quote(keys[i]);
                cleanup_free char *qv =
                        field_value_quote(json_string_value(json_object_get(m, keys[i])) ?: "");
                strbuf_addf(&sb, "%s%s:%s", i ? ", " : "", qk, qv);
        }
        strbuf_addstr(&sb, "}");
        free(keys);
        return strbuf_detach(&sb);
}

/* Go's %#v of a *metav1.LabelSelector (field.Invalid of spec.selector). */
char *v_render_selector(const json_t *sel)
{
        cleanup_free char *labels = v_render_string_map(vj_obj(sel, "matchLabels"));
        cleanup_free char *exprs = json_array_size(vj_arr(sel, "matchExpressions"))
                                           ? vj_render(vj_arr(sel, "matchExpressions"))
                                           : xstrdup("[]v1.LabelSelectorRequirement(nil)");

        if (!sel)
                return xstrdup("(*v1.LabelSelector)(nil)");
        return xasprintf("&v1.LabelSelector{MatchLabels:%s, MatchExpressions:%s}", labels, exprs);
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

/* K8S: ValidatePodTemplateSpecForReplicaSet */
static void validate_template_for_rs(const json_t *tmpl, const json_t *selector,
                                     struct field_error_list *errs)
{
        const json_t *labels = vj_obj(vj_obj(tmpl, "metadata"), "labels");
        const json_t *spec = vj_obj(tmpl, "spec");
        const char *restart = vj_str(spec, "restartPolicy");
        static const char *const always[] = { "Always", NULL };

        if (!tmpl) {
                verr_raw(errs, FIELD_ERROR_REQUIRED, "spec.template", NULL, "");
                return;
        }
        if (!label_selector_object_is_empty(selector) &&
            label_selector_object_matches(selector, labels) != 1) {
                cleanup_free char *rendered = v_render_string_map(labels);
                verr_raw(errs, FIELD_ERROR_INVALID, "spec.template.metadata.labels", rendered,
                         "`selector` does not match template `labels`");
        }
        (void) validate_pod_template(tmpl, "spec.template", errs);
        if (!restart || !streq(restart, "Always"))
                verr_not_supported(errs, "spec.template.spec.restartPolicy", restart ?: "", always);
        if (json_object_get(spec, "activeDeadlineSeconds") &&
            !json_is_null(json_object_get(spec, "activeDeadlineSeconds")))
                verr_raw(errs, FIELD_ERROR_FORBIDDEN, "spec.template.spec.activeDeadlineSeconds",
                         NULL, "activeDeadlineSeconds in ReplicaSet is not Supported");
}

/* The selector and template rules ReplicaSetSpec and DeploymentSpec share. */
static void validate_selector_and_template(const json_t *spec, struct field_error_list *errs)
{
        const json_t *sel = json_object_get(spec, "selector");

        if (!json_is_object(sel)) {
                verr_raw(errs, FIELD_ERROR_REQUIRED, "spec.selector", NULL, "");
                return;
        }
        v_validate_label_selector(sel, "spec.selector", errs);
        if (label_selector_object_is_empty(sel)) {
                cleanup_free char *rendered = v_render_selector(sel);
                /* K8S: the ReplicaSet rule shares the Deployment's words */
                verr_raw(errs, FIELD_ERROR_INVALID, "spec.selector", rendered,
                         "empty selector is invalid for deployment");
        }
        if (label_selector_object_matches(sel, NULL) < 0) {
                cleanup_free char *rendered = v_render_selector(sel);
                verr_raw(errs, FIELD_ERROR_INVALID, "spec.selector", rendered,
                         "invalid label selector");
                return;
        }
        validate_template_for_rs(vj_obj(spec, "template"), sel, errs);
}

size_t validate_replica_set(const json_t *rs, bool meta, struct field_error_list *errs)
{
        size_t before = errs->n;
        const json_t *spec = vj_obj(rs, "spec");

        if (meta)
                (void) validate_object_meta_create(rs, true, errs);
        /* K8S: ValidateReplicaSetSpec */
        validate_nonnegative(spec, "replicas", "spec.replicas", errs);
        validate_nonnegative(spec, "minReadySeconds", "spec.minReadySeconds", errs);
        validate_selector_and_template(spec, errs);
        return errs->n - before;
}

/* K8S: apps/v1's selector is immutable (ValidateImmutableField on spec.selector). */
static void validate_selector_immutable(const json_t *new_obj, const json_t *old_obj,
                                        struct field_error_list *errs)
{
        const json_t *ns = json_path(new_obj, "spec.selector");
        const json_t *os = json_path(old_obj, "spec.selector");

        if (!vj_equal(ns, os)) {
                cleanup_free char *rendered = v_render_selector(ns);
                verr_raw(errs, FIELD_ERROR_INVALID, "spec.selector", rendered,
                         "field is immutable");
        }
}

size_t validate_replica_set_update(const json_t *new_rs, const json_t *old_rs,
                                   struct field_error_list *errs)
{
        size_t before = errs->n;

        (void) validate_object_meta_update(new_rs, old_rs, errs);
        (void) validate_replica_set(new_rs, false, errs);
        validate_selector_immutable(new_rs, old_rs, errs);
        return errs->n - before;
}

/* K8S: ValidateReplicaSetStatus / ValidateDeploymentStatus: counts are nonnegative and the
 * partial ones cannot exceed the whole. */
static void validate_counts(const json_t *status, const char *const *keys,
                            struct field_error_list *errs)
{
        long long replicas = json_integer_value(json_object_get(status, "replicas"));

        for (size_t i = 0; keys[i]; i++) {
                cleanup_free char *f = xasprintf("status.%s", keys[i]);
                json_t *v = json_object_get(status, keys[i]);
                long long n = json_integer_value(v);

                validate_nonnegative(status, keys[i], f, errs);
                if (i > 0 && !streq(keys[i], "observedGeneration") &&
                    !streq(keys[i], "unavailableReplicas") && n > replicas)
                        verr_int(errs, FIELD_ERROR_INVALID, f, n,
                                 "cannot be greater than status.replicas");
        }
}

size_t validate_replica_set_status_update(const json_t *new_rs, const json_t *old_rs,
                                          struct field_error_list *errs)
{
        static const char *const keys[] = { "replicas",           "fullyLabeledReplicas",
                                            "readyReplicas",      "availableReplicas",
                                            "observedGeneration", NULL };
        size_t before = errs->n;
        const json_t *status = vj_obj(new_rs, "status");
        long long ready = json_integer_value(json_object_get(status, "readyReplicas"));
        long long avail = json_integer_value(json_object_get(status, "availableReplicas"));

        (void) validate_object_meta_update(new_rs, old_rs, errs);
        validate_counts(status, keys, errs);
        if (avail > ready)
                verr_int(errs, FIELD_ERROR_INVALID, "status.availableReplicas", avail,
                         "cannot be greater than readyReplicas");
        return errs->n - before;
}

/* K8S: ValidateRollingUpdateDeployment */
static void validate_rolling_update(const json_t *ru, struct field_error_list *errs)
{
        const json_t *mu = json_object_get(ru, "maxUnavailable");
        const json_t *ms = json_object_get(ru, "maxSurge");
        int u = 0, s = 0;

        if (mu && !json_is_null(mu)) {
                v_validate_int_or_percent(mu, "spec.strategy.rollingUpdate.maxUnavailable", errs);
                (void) workload_scaled_value(mu, 100, false, &u);
        }
        if (ms && !json_is_null(ms)) {
                v_validate_int_or_percent(ms, "spec.strategy.rollingUpdate.maxSurge", errs);
                (void) workload_scaled_value(ms, 100, true, &s);
        }
        if (u == 0 && s == 0) {
                cleanup_free char *rendered =
                        json_is_integer(mu) ? xasprintf("%lld", (long long) json_integer_value(mu))
                                            : field_value_quote(json_string_value(mu) ?: "");
                /* K8S: both zero would let no rollout progress */
                verr_raw(errs, FIELD_ERROR_INVALID, "spec.strategy.rollingUpdate.maxUnavailable",
                         rendered, "may not be 0 when `maxSurge` is 0");
        }
}

/* K8S: ValidateDeploymentStrategy */
static void validate_strategy(const json_t *strategy, struct field_error_list *errs)
{
        static const char *const types[] = { "Recreate", "RollingUpdate", NULL };
        const char *type = vj_str(strategy, "type") ?: "";
        const json_t *ru = vj_obj(strategy, "rollingUpdate");

        if (streq(type, "Recreate")) {
                if (ru)
                        verr_raw(errs, FIELD_ERROR_FORBIDDEN, "spec.strategy.rollingUpdate", NULL,
                                 "may not be specified when strategy `type` is 'Recreate'");
        } else if (streq(type, "RollingUpdate")) {
                if (!ru)
                        verr_raw(errs, FIELD_ERROR_REQUIRED, "spec.strategy.rollingUpdate", NULL,
                                 "this should be defaulted and never be nil");
                else
                        validate_rolling_update(ru, errs);
        } else {
                /* K8S: upstream names this field with a capital T */
                verr_not_supported(errs, "spec.strategy.Type", type, types);
        }
}

size_t validate_deployment(const json_t *d, bool meta, struct field_error_list *errs)
{
        size_t before = errs->n;
        const json_t *spec = vj_obj(d, "spec");
        const json_t *pds = json_object_get(spec, "progressDeadlineSeconds");

        if (meta)
                (void) validate_object_meta_create(d, true, errs);
        /* K8S: ValidateDeploymentSpec */
        validate_nonnegative(spec, "replicas", "spec.replicas", errs);
        validate_selector_and_template(spec, errs);
        validate_strategy(vj_obj(spec, "strategy"), errs);
        validate_nonnegative(spec, "minReadySeconds", "spec.minReadySeconds", errs);
        validate_nonnegative(spec, "revisionHistoryLimit", "spec.revisionHistoryLimit", errs);
        if (json_is_integer(pds)) {
                validate_nonnegative(spec, "progressDeadlineSeconds",
                                     "spec.progressDeadlineSeconds", errs);
                if (json_integer_value(pds) <=
                    json_integer_value(json_object_get(spec, "minReadySeconds")))
                        verr_int(errs, FIELD_ERROR_INVALID, "spec.progressDeadlineSeconds",
                                 (long long) json_integer_value(pds),
                                 "must be greater than minReadySeconds");
        }
        return errs->n - before;
}

size_t validate_deployment_update(const json_t *new_d, const json_t *old_d,
                                  struct field_error_list *errs)
{
        size_t before = errs->n;

        (void) validate_object_meta_update(new_d, old_d, errs);
        (void) validate_deployment(new_d, false, errs);
        validate_selector_immutable(new_d, old_d, errs);
        return errs->n - before;
}

size_t validate_deployment_status_update(const json_t *new_d, const json_t *old_d,
                                         struct field_error_list *errs)
{
        static const char *const keys[] = { "replicas",
                                            "updatedReplicas",
                                            "readyReplicas",
                                            "availableReplicas",
                                            "unavailableReplicas",
                                            "observedGeneration",
                                            NULL };
        size_t before = errs->n;

        (void) validate_object_meta_update(new_d, old_d, errs);
        validate_counts(vj_obj(new_d, "status"), keys, errs);
        return errs->n - before;
}

/* ---- DaemonSet and ControllerRevision ---- */

void daemon_set_set_defaults(json_t *ds)
{
        json_t *spec = json_object_ensure(ds, "spec");
        json_t *strategy = json_object_ensure(spec, "updateStrategy");
        const char *type = vj_str(strategy, "type");

        /* K8S: SetDefaults_DaemonSet (apps/v1): RollingUpdate with maxUnavailable 1 and
         * maxSurge 0, revisionHistoryLimit 10 */
        if (!type || !type[0]) {
                type = "RollingUpdate";
                json_object_set_new(strategy, "type", json_string(type));
        }
        if (streq(type, "RollingUpdate")) {
                json_t *ru = json_object_ensure(strategy, "rollingUpdate");
                json_t *mu = json_object_get(ru, "maxUnavailable");
                json_t *ms = json_object_get(ru, "maxSurge");

                if (!mu || json_is_null(mu))
                        json_object_set_new(ru, "maxUnavailable", json_integer(1));
                if (!ms || json_is_null(ms))
                        json_object_set_new(ru, "maxSurge", json_integer(0));
        }
        default_int(spec, "revisionHistoryLimit", 10);
        pod_template_set_defaults(json_object_ensure(spec, "template"));
}

static char *render_int_or_percent(const json_t *v)
{
        if (json_is_integer(v))
                return xasprintf("%lld", (long long) json_integer_value(v));
        return field_value_quote(json_string_value(v) ?: "");
}

/* K8S: getIntOrPercentValue: the integer, or the percent's number (0 when unset or bad). */
static int int_or_percent_value(const json_t *v)
{
        if (json_is_integer(v))
                return (int) json_integer_value(v);
        if (json_is_string(v))
                return atoi(json_string_value(v));
        return 0;
}

/* K8S: ValidateRollingUpdateDaemonSet: each a non-negative int or a percent up to 100%, and
 * exactly one of the two non-zero. */
static void validate_ds_rolling_update(const json_t *ru, struct field_error_list *errs)
{
        const json_t *mu = json_object_get(ru, "maxUnavailable");
        const json_t *ms = json_object_get(ru, "maxSurge");
        bool has_unavailable = int_or_percent_value(mu) != 0;
        bool has_surge = int_or_percent_value(ms) != 0;

        if (mu && !json_is_null(mu))
                v_validate_int_or_percent(mu, "spec.updateStrategy.rollingUpdate.maxUnavailable",
                                          errs);
        if (ms && !json_is_null(ms))
                v_validate_int_or_percent(ms, "spec.updateStrategy.rollingUpdate.maxSurge", errs);
        if (has_unavailable && has_surge) {
                cleanup_free char *rendered = render_int_or_percent(ms);
                verr_raw(errs, FIELD_ERROR_INVALID, "spec.updateStrategy.rollingUpdate.maxSurge",
                         rendered, "may not be set when maxUnavailable is non-zero");
        } else if (!has_unavailable && !has_surge) {
                verr_raw(errs, FIELD_ERROR_REQUIRED,
                         "spec.updateStrategy.rollingUpdate.maxUnavailable", NULL,
                         "cannot be 0 when maxSurge is 0");
        }
}

/* K8S: ValidateDaemonSetUpdateStrategy: an unknown type is NotSupported at the strategy itself,
 * whose bad value is the Go struct as %#v prints it. */
static void validate_ds_strategy(const json_t *strategy, struct field_error_list *errs)
{
        static const char *const types[] = { "RollingUpdate", "OnDelete", NULL };
        const char *type = vj_str(strategy, "type") ?: "";
        const json_t *ru = vj_obj(strategy, "rollingUpdate");

        if (streq(type, "OnDelete"))
                return;
        if (streq(type, "RollingUpdate")) {
                if (!ru)
                        verr_raw(errs, FIELD_ERROR_REQUIRED, "spec.updateStrategy.rollingUpdate",
                                 NULL, "");
                else
                        validate_ds_rolling_update(ru, errs);
                return;
        }
        {
                cleanup_free char *qt = field_value_quote(type);
                /* upstream prints a set rollingUpdate as its address, which no two runs share */
                cleanup_free char *rendered =
                        xasprintf("apps.DaemonSetUpdateStrategy{Type:%s, RollingUpdate:%s}", qt,
                                  ru ? "(*apps.RollingUpdateDaemonSet)(set)"
                                     : "(*apps.RollingUpdateDaemonSet)(nil)");

                field_error_add(errs, FIELD_ERROR_NOT_SUPPORTED, "spec.updateStrategy", rendered,
                                "supported values: \"%s\", \"%s\"", types[0], types[1]);
        }
}

size_t validate_daemon_set(const json_t *ds, bool meta, struct field_error_list *errs)
{
        size_t before = errs->n;
        const json_t *spec = vj_obj(ds, "spec");
        const json_t *sel = json_object_get(spec, "selector");
        const json_t *tmpl = vj_obj(spec, "template");

        if (meta)
                (void) validate_object_meta_create(ds, true, errs);
        /* K8S: ValidateDaemonSetSpec */
        if (!json_is_object(sel)) {
                verr_raw(errs, FIELD_ERROR_REQUIRED, "spec.selector", NULL, "");
        } else {
                v_validate_label_selector(sel, "spec.selector", errs);
                if (label_selector_object_is_empty(sel)) {
                        cleanup_free char *rendered = v_render_selector(sel);
                        verr_raw(errs, FIELD_ERROR_INVALID, "spec.selector", rendered,
                                 "empty selector is invalid for daemonset");
                }
        }
        if (json_is_object(sel) && label_selector_object_matches(sel, NULL) >= 0 &&
            !label_selector_object_is_empty(sel) &&
            label_selector_object_matches(sel, vj_obj(vj_obj(tmpl, "metadata"), "labels")) != 1) {
                cleanup_free char *rendered =
                        v_render_string_map(vj_obj(vj_obj(tmpl, "metadata"), "labels"));
                verr_raw(errs, FIELD_ERROR_INVALID, "spec.template.metadata.labels", rendered,
                         "`selector` does not match template `labels`");
        }
        (void) validate_pod_template(tmpl, "spec.template", errs);
        {
                static const char *const always[] = { "Always", NULL };
                const char *restart = vj_str(vj_obj(tmpl, "spec"), "restartPolicy");
                const json_t *ads = json_object_get(vj_obj(tmpl, "spec"), "activeDeadlineSeconds");

                /* K8S: daemons are expected to run forever */
                if (!restart || !streq(restart, "Always"))
                        verr_not_supported(errs, "spec.template.spec.restartPolicy", restart ?: "",
                                           always);
                if (ads && !json_is_null(ads))
                        verr_raw(errs, FIELD_ERROR_FORBIDDEN,
                                 "spec.template.spec.activeDeadlineSeconds", NULL,
                                 "activeDeadlineSeconds in DaemonSet is not Supported");
        }
        validate_nonnegative(spec, "minReadySeconds", "spec.minReadySeconds", errs);
        validate_ds_strategy(vj_obj(spec, "updateStrategy"), errs);
        validate_nonnegative(spec, "revisionHistoryLimit", "spec.revisionHistoryLimit", errs);
        return errs->n - before;
}

size_t validate_daemon_set_update(const json_t *new_ds, const json_t *old_ds,
                                  struct field_error_list *errs)
{
        size_t before = errs->n;

        (void) validate_object_meta_update(new_ds, old_ds, errs);
        (void) validate_daemon_set(new_ds, false, errs);
        validate_selector_immutable(new_ds, old_ds, errs);
        return errs->n - before;
}

size_t validate_daemon_set_status_update(const json_t *new_ds, const json_t *old_ds,
                                         struct field_error_list *errs)
{
        static const char *const keys[] = { "currentNumberScheduled", "numberMisscheduled",
                                            "desiredNumberScheduled", "numberReady",
                                            "observedGeneration",     "updatedNumberScheduled",
                                            "numberAvailable",        "numberUnavailable",
                                            "collisionCount",         NULL };
        size_t before = errs->n;
        const json_t *status = vj_obj(new_ds, "status");

        (void) validate_object_meta_update(new_ds, old_ds, errs);
        /* K8S: ValidateDaemonSetStatus: every count non-negative */
        for (size_t i = 0; keys[i]; i++) {
                cleanup_free char *f = xasprintf("status.%s", keys[i]);
                validate_nonnegative(status, keys[i], f, errs);
        }
        return errs->n - before;
}
