/* validation-batch.c: batch/v1 Job's defaults and validation as kube-apiserver 1.32 does them
 * (K8S: pkg/apis/batch/v1/defaults.go SetDefaults_Job, pkg/registry/batch/job/strategy.go
 * generateSelector, pkg/apis/batch/validation ValidateJob, validateJobSpec,
 * validatePodFailurePolicy, validateSuccessPolicy, ValidateJobSpecUpdate,
 * ValidateJobStatusUpdate), Indexed completion with backoffLimitPerIndex, maxFailedIndexes and
 * successPolicy included. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/job-index.h"
#include "api/job.h"
#include "api/selector.h"
#include "api/validation-internal.h"
#include "api/validation.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/strbuf.h"

static int cmp_str(const void *a, const void *b)
{
        return strcmp(*(const char *const *) a, *(const char *const *) b);
}

static void set_default(json_t *obj, const char *key, json_t *v)
{
        if (!json_object_get(obj, key) || json_is_null(json_object_get(obj, key)))
                json_object_set_new(obj, key, v);
        else
                json_decref(v);
}

void job_set_defaults(json_t *job)
{
        json_t *spec, *meta, *tmpl_labels;
        size_t i, j;
        json_t *rule, *pattern;

        if (!json_is_object(job))
                return;
        spec = json_object_ensure(job, "spec");
        /* K8S: both unset: a non-parallel job of one completion */
        if (!json_is_integer(json_object_get(spec, "completions")) &&
            !json_is_integer(json_object_get(spec, "parallelism")))
                json_object_set_new(spec, "completions", json_integer(1));
        set_default(spec, "parallelism", json_integer(1));
        set_default(spec, "backoffLimit",
                    json_integer(json_is_integer(json_object_get(spec, "backoffLimitPerIndex"))
                                         ? 2147483647
                                         : JOB_DEFAULT_BACKOFF_LIMIT));
        /* K8S: the Job takes its template's labels when it has none of its own */
        meta = json_object_ensure(job, "metadata");
        tmpl_labels = json_path(spec, "template.metadata.labels");
        if (json_is_object(tmpl_labels) && json_object_size(tmpl_labels) &&
            !json_object_size(json_object_get(meta, "labels")))
                json_object_set_new(meta, "labels", json_deep_copy(tmpl_labels));
        set_default(spec, "completionMode", json_string("NonIndexed"));
        set_default(spec, "suspend", json_false());
        json_array_foreach(json_path(spec, "podFailurePolicy.rules"), i, rule) {
                json_array_foreach(json_object_get(rule, "onPodConditions"), j, pattern) {
                        if (!*json_path_string_or_empty(pattern, "status"))
                                json_object_set_new(pattern, "status", json_string("True"));
                }
        }
        set_default(spec, "podReplacementPolicy",
                    json_string(json_object_get(spec, "podFailurePolicy") ? "Failed"
                                                                          : "TerminatingOrFailed"));
        pod_template_set_defaults(json_object_ensure(spec, "template"));
}

void job_generate_selector(json_t *job)
{
        json_t *spec = json_object_ensure(job, "spec");
        json_t *tmpl = json_object_ensure(spec, "template");
        json_t *labels = json_object_ensure(json_object_ensure(tmpl, "metadata"), "labels");
        json_t *sel, *match;
        const char *name = json_path_string_or_empty(job, "metadata.name");
        const char *uid = json_path_string_or_empty(job, "metadata.uid");

        if (json_is_true(json_object_get(spec, "manualSelector")))
                return;
        /* K8S: labels the user set are kept; a conflict is validation's to refuse */
        set_default(labels, JOB_LEGACY_NAME_LABEL, json_string(name));
        set_default(labels, JOB_NAME_LABEL, json_string(name));
        set_default(labels, JOB_LEGACY_CONTROLLER_UID, json_string(uid));
        set_default(labels, JOB_CONTROLLER_UID_LABEL, json_string(uid));
        sel = json_object_ensure(spec, "selector");
        match = json_object_ensure(sel, "matchLabels");
        set_default(match, JOB_CONTROLLER_UID_LABEL, json_string(uid));
}

bool job_has_condition(const json_t *job, const char *type)
{
        size_t i;
        json_t *c;

        json_array_foreach(json_path(job, "status.conditions"), i, c) {
                if (streq(json_path_string_or_empty(c, "type"), type) &&
                    streq(json_path_string_or_empty(c, "status"), "True"))
                        return true;
        }
        return false;
}

bool job_finished(const json_t *job)
{
        return job_has_condition(job, "Complete") || job_has_condition(job, "Failed");
}

static void nonnegative(const json_t *spec, const char *key, struct field_error_list *errs)
{
        const json_t *v = json_object_get(spec, key);
        cleanup_free char *path = xasprintf("spec.%s", key);

        /* K8S: ValidateNonnegativeField */
        if (json_is_integer(v) && json_integer_value(v) < 0)
                verr_int(errs, FIELD_ERROR_INVALID, path, (long long) json_integer_value(v),
                         "must be greater than or equal to 0");
}

/* K8S: validatePodFailurePolicyRuleOnExitCodes */
static void validate_on_exit_codes(const json_t *req, const char *path, const json_t *tmpl_spec,
                                   struct field_error_list *errs)
{
        static const char *const operators[] = { "In", "NotIn", NULL };
        const char *op = json_path_string_or_empty(req, "operator");
        const json_t *values = json_object_get(req, "values");
        const json_t *name = json_object_get(req, "containerName");
        cleanup_free char *op_path = xasprintf("%s.operator", path);
        cleanup_free char *values_path = xasprintf("%s.values", path);
        size_t i;
        json_t *v;
        long long prev = 0;

        if (json_is_string(name)) {
                bool found = false;
                const char *lists[] = { "containers", "initContainers" };

                for (size_t l = 0; l < 2; l++) {
                        json_array_foreach(json_object_get(tmpl_spec, lists[l]), i, v)
                                found |= streq(json_path_string_or_empty(v, "name"),
                                               json_string_value(name));
                }
                if (!found) {
                        cleanup_free char *p = xasprintf("%s.containerName", path);
                        verr_str(errs, FIELD_ERROR_INVALID, p, json_string_value(name),
                                 "must be one of the container or initContainer names in the pod "
                                 "template");
                }
        }
        if (!streq(op, "In") && !streq(op, "NotIn"))
                verr_not_supported(errs, op_path, op, operators);
        if (!json_array_size(values)) {
                verr_raw(errs, FIELD_ERROR_INVALID, values_path, "[]int32(nil)",
                         "at least one value is required");
                return;
        }
        if (json_array_size(values) > 255) {
                cleanup_free char *d = xasprintf("must have at most %d items", 255);
                verr_int(errs, FIELD_ERROR_TOO_MANY, values_path,
                         (long long) json_array_size(values), d);
        }
        json_array_foreach(values, i, v) {
                long long n = json_integer_value(v);
                cleanup_free char *vp = xasprintf("%s[%zu]", values_path, i);

                if (streq(op, "In") && n == 0)
                        verr_int(errs, FIELD_ERROR_INVALID, vp, n,
                                 "must not be 0 for the In operator");
                if (i > 0 && n == prev)
                        verr_int(errs, FIELD_ERROR_DUPLICATE, vp, n, "");
                else if (i > 0 && n < prev)
                        verr_int(errs, FIELD_ERROR_INVALID, vp, n, "must be ordered");
                prev = n;
        }
}

/* K8S: validatePodFailurePolicy and validatePodFailurePolicyRule */
static void validate_pod_failure_policy(const json_t *spec, struct field_error_list *errs)
{
        static const char *const actions[] = { "Count", "FailIndex", "FailJob", "Ignore", NULL };
        static const char *const statuses[] = { "False", "True", "Unknown", NULL };
        const json_t *rules = json_path(spec, "podFailurePolicy.rules");
        const json_t *tmpl_spec = json_path(spec, "template.spec");
        size_t i, j;
        json_t *rule, *pat;

        if (json_array_size(rules) > 20)
                verr_int(errs, FIELD_ERROR_TOO_MANY, "spec.podFailurePolicy.rules",
                         (long long) json_array_size(rules), "must have at most 20 items");
        json_array_foreach(rules, i, rule) {
                cleanup_free char *path = xasprintf("spec.podFailurePolicy.rules[%zu]", i);
                cleanup_free char *action_path = xasprintf("%s.action", path);
                const char *action = json_path_string_or_empty(rule, "action");
                const json_t *codes = json_object_get(rule, "onExitCodes");
                const json_t *conds = json_object_get(rule, "onPodConditions");
                bool has_codes = json_is_object(codes), has_conds = json_array_size(conds) > 0;

                if (streq(action, "FailIndex")) {
                        if (!json_is_integer(json_object_get(spec, "backoffLimitPerIndex")))
                                verr_str(errs, FIELD_ERROR_INVALID, action_path, action,
                                         "requires the backoffLimitPerIndex to be set");
                } else if (!streq(action, "Count") && !streq(action, "FailJob") &&
                           !streq(action, "Ignore")) {
                        verr_not_supported(errs, action_path, action, actions);
                }
                if (has_codes && has_conds)
                        verr_raw(errs, FIELD_ERROR_INVALID, path, NULL,
                                 "specifying both OnExitCodes and OnPodConditions is not "
                                 "supported");
                else if (!has_codes && !has_conds)
                        verr_raw(errs, FIELD_ERROR_INVALID, path, NULL,
                                 "specifying one of OnExitCodes and OnPodConditions is required");
                if (has_codes) {
                        cleanup_free char *p = xasprintf("%s.onExitCodes", path);
                        validate_on_exit_codes(codes, p, tmpl_spec, errs);
                }
                if (json_array_size(conds) > 20) {
                        cleanup_free char *p = xasprintf("%s.onPodConditions", path);
                        verr_int(errs, FIELD_ERROR_TOO_MANY, p, (long long) json_array_size(conds),
                                 "must have at most 20 items");
                }
                json_array_foreach(conds, j, pat) {
                        cleanup_free char *sp =
                                xasprintf("%s.onPodConditions[%zu].status", path, j);
                        cleanup_free char *tp = xasprintf("%s.onPodConditions[%zu].type", path, j);
                        const char *st = json_path_string_or_empty(pat, "status");

                        if (!*json_path_string_or_empty(pat, "type"))
                                verr_raw(errs, FIELD_ERROR_REQUIRED, tp, NULL, "");
                        if (!streq(st, "True") && !streq(st, "False") && !streq(st, "Unknown"))
                                verr_not_supported(errs, sp, st, statuses);
                }
        }
}

/* Go's %#v of a map[string]string, as field.Invalid prints the template's labels:
 * map[string]string{"a":"b", "c":"d"}, keys sorted. */
static char *go_string_map(const json_t *m)
{
        const char **keys = xcalloc(json_object_size(m) + 1, sizeof(*keys));
        struct strbuf sb;
        size_t n = 0;
        const char *k;
        json_t *v;

        json_object_foreach((json_t *) m, k, v)
                keys[n++] = k;
        qsort(keys, n, sizeof(*keys), cmp_str);
        strbuf_init(&sb);
        strbuf_addstr(&sb, "map[string]string{");
        for (size_t i = 0; i < n; i++) {
                cleanup_free char *qk = field_value_quote(keys[i]);
                cleanup_free char *qv =
                        field_value_quote(json_string_value(json_object_get(m, keys[i])) ?: "");
                strbuf_addf(&sb, "%s%s:%s", i ? ", " : "", qk, qv);
        }
        strbuf_addstr(&sb, "}");
        free(keys);
        return strbuf_detach(&sb);
}

/* K8S: ValidateGeneratedSelector: a generated selector and the template's labels must carry
 * the Job's own uid. */
static void validate_generated_selector(const json_t *job, struct field_error_list *errs)
{
        const char *uid = json_path_string_or_empty(job, "metadata.uid");
        const json_t *spec = json_object_get(job, "spec");
        const json_t *labels = json_path(spec, "template.metadata.labels");
        const json_t *match = json_path(spec, "selector.matchLabels");
        const char *keys[] = { JOB_CONTROLLER_UID_LABEL, JOB_LEGACY_CONTROLLER_UID };

        if (json_is_true(json_object_get(spec, "manualSelector")) ||
            !json_object_get(spec, "selector") || !*uid)
                return;
        if (!streq(json_string_value(json_object_get(match, JOB_CONTROLLER_UID_LABEL)) ?: uid, uid))
                verr_str(errs, FIELD_ERROR_INVALID,
                         "spec.selector.matchLabels[" JOB_CONTROLLER_UID_LABEL "]",
                         json_string_value(json_object_get(match, JOB_CONTROLLER_UID_LABEL)),
                         "must be the Job's uid");
        for (size_t i = 0; i < 2; i++) {
                const char *v = json_string_value(json_object_get(labels, keys[i]));
                cleanup_free char *p = xasprintf("spec.template.metadata.labels[%s]", keys[i]);
                cleanup_free char *d = xasprintf("must be '%s'", uid);

                if (v && !streq(v, uid))
                        verr_str(errs, FIELD_ERROR_INVALID, p, v, d);
        }
}

/* K8S: validateSuccessPolicy and validateSuccessPolicyRule */
static void validate_success_policy(const json_t *spec, struct field_error_list *errs)
{
        const json_t *rules = json_path(spec, "successPolicy.rules");
        long long completions = json_integer_value(json_object_get(spec, "completions"));
        size_t i;
        json_t *rule;

        if (!json_array_size(rules))
                verr_raw(errs, FIELD_ERROR_REQUIRED, "spec.successPolicy.rules", NULL,
                         "at least one rules must be specified when the successPolicy is "
                         "specified");
        if (json_array_size(rules) > 20)
                verr_int(errs, FIELD_ERROR_TOO_MANY, "spec.successPolicy.rules",
                         (long long) json_array_size(rules), "must have at most 20 items");
        json_array_foreach(rules, i, rule) {
                cleanup_free char *path = xasprintf("spec.successPolicy.rules[%zu]", i);
                const json_t *idx = json_object_get(rule, "succeededIndexes");
                const json_t *count = json_object_get(rule, "succeededCount");
                long long total = 0;

                if (!json_is_string(idx) && !json_is_integer(count))
                        verr_raw(errs, FIELD_ERROR_REQUIRED, path, NULL,
                                 "at least one of succeededCount or succeededIndexes must be "
                                 "specified");
                if (json_is_string(idx)) {
                        cleanup_free char *p = xasprintf("%s.succeededIndexes", path);
                        cleanup_free char *why = NULL;

                        if (job_index_set_validate(json_string_value(idx), (int) completions,
                                                   &total, &why) < 0) {
                                cleanup_free char *d =
                                        xasprintf("error parsing succeededIndexes: %s", why);
                                verr_str(errs, FIELD_ERROR_INVALID, p, json_string_value(idx), d);
                        }
                }
                if (json_is_integer(count)) {
                        cleanup_free char *p = xasprintf("%s.succeededCount", path);
                        long long c = json_integer_value(count);

                        if (c < 0)
                                verr_int(errs, FIELD_ERROR_INVALID, p, c,
                                         "must be greater than or equal to 0");
                        if (c > completions) {
                                cleanup_free char *d = xasprintf(
                                        "must be less than or equal to %lld (the number of specified completions)",
                                        completions);
                                verr_int(errs, FIELD_ERROR_INVALID, p, c, d);
                        }
                        if (json_is_string(idx) && c > total) {
                                cleanup_free char *d = xasprintf(
                                        "must be less than or equal to %lld (the number of indexes in the specified succeededIndexes field)",
                                        total);
                                verr_int(errs, FIELD_ERROR_INVALID, p, c, d);
                        }
                }
        }
}

/* K8S: validateJobSpec's completion mode rules (the limits of 1.32: 100000 parallel pods and
 * failed indexes, 10000 failed indexes and parallelism above 100000 completions with
 * backoffLimitPerIndex). */
static void validate_indexed(const json_t *spec, const char *mode, struct field_error_list *errs)
{
        static const char *const modes[] = { "NonIndexed", "Indexed", NULL };
        const json_t *completions = json_object_get(spec, "completions");
        const json_t *parallelism = json_object_get(spec, "parallelism");
        const json_t *bpi = json_object_get(spec, "backoffLimitPerIndex");
        const json_t *mfi = json_object_get(spec, "maxFailedIndexes");
        const json_t *policy = json_object_get(spec, "successPolicy");
        bool indexed = mode && streq(mode, "Indexed");

        nonnegative(spec, "backoffLimitPerIndex", errs);
        if (json_is_integer(mfi)) {
                nonnegative(spec, "maxFailedIndexes", errs);
                if (!json_is_integer(bpi))
                        verr_raw(errs, FIELD_ERROR_REQUIRED, "spec.backoffLimitPerIndex", NULL,
                                 "when maxFailedIndexes is specified");
        }
        if (mode && !streq(mode, "NonIndexed") && !indexed)
                verr_not_supported(errs, "spec.completionMode", mode, modes);
        if (indexed) {
                if (!json_is_integer(completions))
                        verr_raw(errs, FIELD_ERROR_REQUIRED, "spec.completions", NULL,
                                 "when completion mode is Indexed");
                if (json_is_integer(parallelism) && json_integer_value(parallelism) > 100000)
                        verr_int(errs, FIELD_ERROR_INVALID, "spec.parallelism",
                                 (long long) json_integer_value(parallelism),
                                 "must be less than or equal to 100000 when completion mode is "
                                 "Indexed");
                if (json_is_integer(completions) && json_is_integer(mfi) &&
                    json_integer_value(mfi) > json_integer_value(completions))
                        verr_int(errs, FIELD_ERROR_INVALID, "spec.maxFailedIndexes",
                                 (long long) json_integer_value(mfi),
                                 "must be less than or equal to completions");
                if (json_is_integer(mfi) && json_integer_value(mfi) > 100000)
                        verr_int(errs, FIELD_ERROR_INVALID, "spec.maxFailedIndexes",
                                 (long long) json_integer_value(mfi),
                                 "must be less than or equal to 100000");
                if (json_is_integer(completions) && json_integer_value(completions) > 100000 &&
                    json_is_integer(bpi)) {
                        if (!json_is_integer(mfi))
                                verr_raw(errs, FIELD_ERROR_REQUIRED, "spec.maxFailedIndexes", NULL,
                                         "must be specified when completions is above 100000");
                        if (json_is_integer(parallelism) && json_integer_value(parallelism) > 10000)
                                verr_int(errs, FIELD_ERROR_INVALID, "spec.parallelism",
                                         (long long) json_integer_value(parallelism),
                                         "must be less than or equal to 10000 when completions "
                                         "are above 100000 and used with backoff limit per "
                                         "index");
                        if (json_is_integer(mfi) && json_integer_value(mfi) > 10000)
                                verr_int(errs, FIELD_ERROR_INVALID, "spec.maxFailedIndexes",
                                         (long long) json_integer_value(mfi),
                                         "must be less than or equal to 10000 when completions "
                                         "are above 100000 and used with backoff limit per "
                                         "index");
                }
        } else {
                if (json_is_integer(bpi))
                        verr_int(errs, FIELD_ERROR_INVALID, "spec.backoffLimitPerIndex",
                                 (long long) json_integer_value(bpi),
                                 "requires indexed completion mode");
                if (json_is_integer(mfi))
                        verr_int(errs, FIELD_ERROR_INVALID, "spec.maxFailedIndexes",
                                 (long long) json_integer_value(mfi),
                                 "requires indexed completion mode");
        }
        if (json_is_object(policy)) {
                /* K8S: upstream prints the Go struct; flexlet the JSON of the policy */
                if (!indexed) {
                        cleanup_free char *rendered = vj_render(policy);
                        verr_raw(errs, FIELD_ERROR_INVALID, "spec.successPolicy", rendered,
                                 "requires indexed completion mode");
                } else if (json_is_integer(completions)) {
                        validate_success_policy(spec, errs);
                }
        }
}

size_t validate_job(const json_t *job, bool meta, struct field_error_list *errs)
{
        static const char *const restart[] = { "OnFailure", "Never", NULL };
        static const char *const replacement[] = { "Failed", "TerminatingOrFailed", NULL };
        const json_t *spec = vj_obj(job, "spec");
        const json_t *tmpl = vj_obj(spec, "template");
        const json_t *sel = json_object_get(spec, "selector");
        const char *mode = json_string_value(json_object_get(spec, "completionMode"));
        const char *rp = json_path_string_or_empty(tmpl, "spec.restartPolicy");
        const char *prp = json_string_value(json_object_get(spec, "podReplacementPolicy"));
        size_t before = errs->n;

        validate_generated_selector(job, errs);
        nonnegative(spec, "parallelism", errs);
        nonnegative(spec, "completions", errs);
        nonnegative(spec, "activeDeadlineSeconds", errs);
        nonnegative(spec, "backoffLimit", errs);
        nonnegative(spec, "ttlSecondsAfterFinished", errs);
        validate_indexed(spec, mode, errs);
        if (json_object_get(spec, "podFailurePolicy"))
                validate_pod_failure_policy(spec, errs);
        if (prp) {
                if (!streq(prp, "Failed") && !streq(prp, "TerminatingOrFailed"))
                        verr_not_supported(errs, "spec.podReplacementPolicy", prp, replacement);
                else if (json_object_get(spec, "podFailurePolicy") && !streq(prp, "Failed"))
                        verr_str(errs, FIELD_ERROR_NOT_SUPPORTED, "spec.podReplacementPolicy", prp,
                                 "supported values: \"Failed\"");
        }
        if (!json_is_object(sel)) {
                verr_raw(errs, FIELD_ERROR_REQUIRED, "spec.selector", NULL, "");
        } else {
                v_validate_label_selector(sel, "spec.selector", errs);
                /* K8S: whether manual or generated, the selector must match the pods' labels */
                if (label_selector_object_matches(sel, json_path(tmpl, "metadata.labels")) == 0) {
                        cleanup_free char *rendered =
                                go_string_map(json_path(tmpl, "metadata.labels"));
                        verr_raw(errs, FIELD_ERROR_INVALID, "spec.template.metadata.labels",
                                 rendered, "`selector` does not match template `labels`");
                }
        }
        (void) validate_pod_template(tmpl, "spec.template", errs);
        /* K8S: restartPolicy Always is SetDefaults_PodSpec's default: neither it nor "" will do */
        if (!*rp || streq(rp, "Always")) {
                verr_raw(errs, FIELD_ERROR_REQUIRED, "spec.template.spec.restartPolicy", NULL,
                         "valid values: \"OnFailure\", \"Never\"");
        } else if (!streq(rp, "OnFailure") && !streq(rp, "Never")) {
                verr_not_supported(errs, "spec.template.spec.restartPolicy", rp, restart);
        } else if (json_object_get(spec, "podFailurePolicy") && !streq(rp, "Never")) {
                verr_str(errs, FIELD_ERROR_INVALID, "spec.template.spec.restartPolicy", rp,
                         "only \"Never\" is supported when podFailurePolicy is specified");
        }
        if (meta)
                (void) validate_object_meta_create(job, true, errs);
        /* K8S: ValidateJob: the last index's pod hostname "<job>-<completions-1>" must be a
         * DNS label */
        if (mode && streq(mode, "Indexed") &&
            json_integer_value(json_object_get(spec, "completions")) > 0) {
                struct field_error_list tmp = { 0 };
                cleanup_free char *host = xasprintf(
                        "%s-%lld", json_path_string_or_empty(job, "metadata.name"),
                        (long long) json_integer_value(json_object_get(spec, "completions")) - 1);

                if (validate_dns1123_label(host, "hostname", &tmp) > 0) {
                        cleanup_free char *d = xasprintf(
                                "will not able to create pod with invalid DNS label: %s", host);
                        verr_str(errs, FIELD_ERROR_INVALID, "metadata.name",
                                 json_path_string_or_empty(job, "metadata.name"), d);
                }
                field_error_list_release(&tmp);
        }
        return errs->n - before;
}

static void immutable(const json_t *a, const json_t *b, const char *key, const char *path,
                      struct field_error_list *errs)
{
        const json_t *x = json_object_get(a, key), *y = json_object_get(b, key);

        if (!vj_equal(x, y)) {
                cleanup_free char *rendered = x ? vj_render(x) : xstrdup("null");
                verr_raw(errs, FIELD_ERROR_INVALID, path, rendered, "field is immutable");
        }
}

size_t validate_job_update(const json_t *new_job, const json_t *old_job,
                           struct field_error_list *errs)
{
        const json_t *ns = vj_obj(new_job, "spec"), *os = vj_obj(old_job, "spec");
        size_t before = errs->n;

        (void) validate_object_meta_update(new_job, old_job, errs);
        (void) validate_job(new_job, false, errs);
        /* K8S: ValidateJobSpecUpdate */
        immutable(ns, os, "completions", "spec.completions", errs);
        immutable(ns, os, "selector", "spec.selector", errs);
        immutable(ns, os, "template", "spec.template", errs);
        immutable(ns, os, "completionMode", "spec.completionMode", errs);
        immutable(ns, os, "podFailurePolicy", "spec.podFailurePolicy", errs);
        immutable(ns, os, "backoffLimitPerIndex", "spec.backoffLimitPerIndex", errs);
        immutable(ns, os, "managedBy", "spec.managedBy", errs);
        immutable(ns, os, "successPolicy", "spec.successPolicy", errs);
        return errs->n - before;
}

size_t validate_job_status_update(const json_t *new_job, const json_t *old_job,
                                  struct field_error_list *errs)
{
        static const char *const fields[] = { "active", "succeeded", "failed", "ready",
                                              "terminating" };
        const json_t *status = vj_obj(new_job, "status");
        size_t before = errs->n;

        (void) validate_object_meta_update(new_job, old_job, errs);
        /* K8S: ValidateJobStatus: the counters are non-negative */
        for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
                const json_t *v = json_object_get(status, fields[i]);
                cleanup_free char *path = xasprintf("status.%s", fields[i]);

                if (json_is_integer(v) && json_integer_value(v) < 0)
                        verr_int(errs, FIELD_ERROR_INVALID, path, (long long) json_integer_value(v),
                                 "must be greater than or equal to 0");
        }
        /* K8S: ValidateJobStatusUpdate: a finished Job stays finished */
        if (job_finished(old_job) && !job_finished(new_job))
                verr_raw(errs, FIELD_ERROR_INVALID, "status.conditions", NULL,
                         "cannot add or remove the Complete or Failed condition once set");
        return errs->n - before;
}
