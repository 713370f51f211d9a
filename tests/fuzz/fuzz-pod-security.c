/* fuzz-pod-security.c: arbitrary bytes, parsed as JSON, as a pod (or a JSON array [new, old]
 * of pods): its metadata.labels read as a namespace's Pod Security labels, the pod evaluated
 * at every level for a spread of policy versions, the request decision, the update
 * significance, the namespace dry run over the pods, and the warnings through the warning
 * recorder: no crash, no leak. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "apiserver/admission-pod-security.h"
#include "base/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void evaluate(const json_t *pod)
{
        static const long long versions[] = {
                PSA_VERSION_LATEST, 0, 8, 18, 19, 22, 23, 25, 31, 32, 99
        };
        const json_t *meta = json_object_get(pod, "metadata"), *spec = json_object_get(pod, "spec");

        for (int l = 0; l < PSA_LEVEL_MAX; l++)
                for (size_t v = 0; v < sizeof(versions) / sizeof(versions[0]); v++) {
                        struct psa_level_version lv = { (enum psa_level) l, versions[v] };
                        struct psa_result r;
                        char *a, *b;

                        psa_evaluate(&lv, meta, spec, &r);
                        a = psa_result_forbidden_detail(&r);
                        b = psa_result_forbidden_reason(&r);
                        free(a);
                        free(b);
                        psa_result_release(&r);
                }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        json_t *v = json_loadb((const char *) data, size, JSON_DECODE_ANY, NULL);
        const json_t *pod = json_is_array(v) ? json_array_get(v, 0) : v;
        const json_t *old = json_is_array(v) ? json_array_get(v, 1) : NULL;
        struct psa_level_version check;
        struct field_error_list errs;
        struct psa_policy policy;
        struct psa_decision d;
        json_t *pods, *warnings;
        struct http_response resp;
        size_t i;
        json_t *w;

        if (!v)
                return 0;
        field_error_list_init(&errs);
        (void) psa_policy_from_labels(json_path(pod, "metadata.labels"), &policy, &errs);
        evaluate(pod);
        psa_evaluate_pod(&policy, &errs, pod, &d);
        http_response_init(&resp);
        json_array_foreach(d.warnings, i, w) {
                http_response_add_warning(&resp, json_string_value(w));
        }
        http_response_release(&resp);
        psa_decision_release(&d);
        field_error_list_release(&errs);
        if (old) {
                (void) psa_pod_update_significant(pod, old);
                field_error_list_init(&errs);
                (void) psa_namespace_admit(pod, old, &errs, &check);
                field_error_list_release(&errs);
        }
        pods = json_is_array(v) ? json_incref(v) : json_pack("[O]", v);
        warnings = psa_namespace_pods_warnings("fuzz", &policy.modes[PSA_MODE_ENFORCE], pods, 0);
        json_decref(warnings);
        json_decref(pods);
        json_decref(v);
        return 0;
}
