/* strategy-batch.c: create and update rules of batch/v1 Jobs (K8S:
 * pkg/registry/batch/job/strategy.go): defaults, the generated selector and pod labels, an
 * empty status on create that belongs to the status subresource (the Job controller's)
 * afterwards, a spec change bumping the generation, and batch/v1's default of orphaning the
 * pods when a delete names no propagation policy. The rules live in api/validation-batch.c. */
#include "api/job.h"
#include "apiserver/resources.h"
#include "base/json.h"

static void job_prepare_create(json_t *job)
{
        job_set_defaults(job);
        /* K8S: PrepareForCreate: generateSelectorIfNeeded, Status = JobStatus{}; then the
         * defaults once more, as kube-apiserver applies them again when it decodes what it
         * stored: the Job takes its template's (now generated) labels when it has none */
        job_generate_selector(job);
        job_set_defaults(job);
        json_object_set_new(job, "status", json_object());
}

static void job_validate_create(const json_t *job, struct field_error_list *errs)
{
        (void) validate_job(job, true, errs);
}

/* K8S: PrepareForUpdate keeps the stored status; the status strategy keeps the stored spec. */
static json_t *job_prepare_update(enum api_subresource sub, json_t *new_obj, const json_t *old)
{
        json_t *out = strategy_keep_other_half(sub, new_obj, old);

        if (sub != API_SUB_STATUS)
                job_set_defaults(out);
        return out;
}

static void job_validate_update(enum api_subresource sub, const json_t *new_obj, const json_t *old,
                                struct field_error_list *errs)
{
        if (sub == API_SUB_STATUS)
                (void) validate_job_status_update(new_obj, old, errs);
        else
                (void) validate_job_update(new_obj, old, errs);
}

const struct resource_strategy job_strategy = {
        .prepare_create = job_prepare_create,
        .validate_create = job_validate_create,
        .prepare_update = job_prepare_update,
        .validate_update = job_validate_update,
        .spec_changed = strategy_spec_changed,
        /* K8S: DefaultGarbageCollectionPolicy: OrphanDependents for batch/v1 */
        .orphan_dependents_by_default = true,
        .orphan_default_warning =
                "child pods are preserved by default when jobs are deleted; set "
                "propagationPolicy=Background to remove them or set propagationPolicy=Orphan to "
                "suppress this warning",
};
