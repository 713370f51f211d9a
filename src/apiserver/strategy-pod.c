/* strategy-pod.c: how pods are created and updated through each subresource (upstream's
 * podStrategy, podStatusStrategy and podResizeStrategy): the main resource may not touch
 * status, /status may not touch spec, /resize keeps only the resizable fields. The rules
 * themselves live in api/validation.h. */
#include "api/validation.h"
#include "apiserver/admission-default-tolerations.h"
#include "apiserver/admission-limitranger.h"
#include "apiserver/admission-serviceaccount.h"
#include "apiserver/resources.h"
#include "base/json.h"

static void pod_prepare_create(json_t *pod)
{
        pod_set_defaults(pod);
        pod_prepare_for_create(pod);
}

static void pod_validate_create(const json_t *pod, struct field_error_list *errs)
{
        (void) validate_pod_create(pod, errs);
}

/* new_pod is the request's own object: defaulted and trimmed in place, not copied. */
static json_t *pod_prepare_update(enum api_subresource sub, json_t *new_pod, const json_t *old)
{
        switch (sub) {
        case API_SUB_RESIZE:
                /* K8S: the patched object is decoded, and so defaulted, before the strategy sees
                 * it: a container renamed by a strategic-merge patch is a new entry that gets
                 * its defaults, and validation then says what is wrong with the resize rather
                 * than listing defaults it lacks. */
                pod_set_defaults(new_pod);
                return pod_drop_non_resize_updates(new_pod, old);
        case API_SUB_STATUS:
                /* K8S: podStatusStrategy: the spec stays as stored. */
                json_object_set_new(new_pod, "spec", json_deep_copy(json_object_get(old, "spec")));
                return json_incref(new_pod);
        case API_SUB_NONE:
        case API_SUB_BINDING:
        case API_SUB_LOG:
        case API_SUB_FINALIZE:
        case API_SUB_EVICTION:
        case API_SUB_TOKEN:
        case API_SUB_SCALE:
        case API_SUB_APPROVAL:
        case API_SUB_EXEC:
        case API_SUB_ATTACH:
        case API_SUB_PORTFORWARD:
        case API_SUB_MAX:
                break;
        }
        /* K8S: podStrategy.PrepareForUpdate: status is written only through /status. */
        pod_set_defaults(new_pod);
        pod_service_account_convert(new_pod);
        if (json_object_get(old, "status"))
                json_object_set_new(new_pod, "status",
                                    json_deep_copy(json_object_get(old, "status")));
        else
                json_object_del(new_pod, "status");
        return json_incref(new_pod);
}

static void pod_validate_update(enum api_subresource sub, const json_t *new_pod, const json_t *old,
                                struct field_error_list *errs)
{
        switch (sub) {
        case API_SUB_RESIZE:
                (void) validate_pod_resize(new_pod, old, errs);
                return;
        case API_SUB_STATUS:
                (void) validate_object_meta_update(new_pod, old, errs);
                return;
        case API_SUB_NONE:
        case API_SUB_BINDING:
        case API_SUB_LOG:
        case API_SUB_FINALIZE:
        case API_SUB_EVICTION:
        case API_SUB_TOKEN:
        case API_SUB_SCALE:
        case API_SUB_APPROVAL:
        case API_SUB_EXEC:
        case API_SUB_ATTACH:
        case API_SUB_PORTFORWARD:
        case API_SUB_MAX:
                break;
        }
        (void) validate_pod_update(new_pod, old, errs);
}

/* K8S: the default plugin order: LimitRanger, ServiceAccount, then DefaultTolerationSeconds. */
static int pod_admit_all(struct store *store, enum api_subresource sub, json_t *pod,
                         const json_t *old, struct error **reterr)
{
        int r = limit_ranger_pod_admit(store, sub, pod, old, reterr);

        if (r >= 0)
                r = pod_admit(store, sub, pod, old, reterr);
        return r < 0 ? r : default_tolerations_pod_admit(sub, pod);
}

static int pod_admit_validate_all(struct store *store, enum api_subresource sub, const json_t *pod,
                                  const json_t *old, struct error **reterr)
{
        int r = limit_ranger_pod_validate(store, sub, pod, old, reterr);

        return r < 0 ? r : pod_admit_validate(store, sub, pod, old, reterr);
}

const struct resource_strategy pod_strategy = {
        .prepare_create = pod_prepare_create,
        .validate_create = pod_validate_create,
        .prepare_update = pod_prepare_update,
        .validate_update = pod_validate_update,
        .spec_changed = pod_spec_changed,
        /* K8S: the LimitRanger, ServiceAccount and DefaultTolerationSeconds admission plugins */
        .admit = pod_admit_all,
        .admit_validate = pod_admit_validate_all,
};
