/* admission-serviceaccount.c: the ServiceAccount admission plugin's defaulting and existence
 * check on pod creation (K8S: plugin/pkg/admission/serviceaccount/admission.go, Admit, Validate
 * and getServiceAccount), reading ServiceAccounts from the store. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "apiserver/admission-serviceaccount.h"
#include "base/json.h"
#include "base/macro.h"
#include "store/store.h"

#define DEFAULT_ACCOUNT "default"
/* K8S: getServiceAccount: the default account is looked up 10 times */
#define DEFAULT_ATTEMPTS 10

/* K8S: kubetypes.ConfigMirrorAnnotationKey: pods a node mirrors are not admitted here. */
static bool is_mirror_pod(const json_t *pod)
{
        return json_object_get(json_path(pod, "metadata.annotations"),
                               "kubernetes.io/config.mirror");
}

void pod_service_account_convert(json_t *pod)
{
        json_t *spec = json_object_get(pod, "spec");
        const char *name = json_string_value(json_object_get(spec, "serviceAccountName"));
        const char *deprecated = json_string_value(json_object_get(spec, "serviceAccount"));

        if (!json_is_object(spec))
                return;
        if ((!name || !*name) && deprecated && *deprecated)
                json_object_set_new(spec, "serviceAccountName", json_string(deprecated));
        name = json_string_value(json_object_get(spec, "serviceAccountName"));
        if (name && *name)
                json_object_set_new(spec, "serviceAccount", json_string(name));
        else
                json_object_del(spec, "serviceAccount");
}

int pod_service_account_default(json_t *pod)
{
        json_t *spec = json_object_ensure(pod, "spec");
        const char *name;

        pod_service_account_convert(pod);
        name = json_string_value(json_object_get(spec, "serviceAccountName"));
        if (!name || !*name) {
                json_object_set_new(spec, "serviceAccountName", json_string(DEFAULT_ACCOUNT));
                pod_service_account_convert(pod);
        }
        return 0;
}

int pod_admit(struct store *store, enum api_subresource sub, json_t *pod, const json_t *old,
              struct error **reterr)
{
        if (old || sub != API_SUB_NONE || is_mirror_pod(pod))
                return 0;
        return pod_service_account_default(pod);
}

static void pause_ms(long ms)
{
        struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

int pod_admit_validate(struct store *store, enum api_subresource sub, const json_t *pod,
                       const json_t *old, struct error **reterr)
{
        const char *ns = json_path_string_or_empty(pod, "metadata.namespace");
        const char *name = json_path_string_or_empty(pod, "spec.serviceAccountName");
        int attempts = streq(name, DEFAULT_ACCOUNT) ? DEFAULT_ATTEMPTS : 1;
        /* K8S: one random interval of 100-200 ms between attempts */
        long interval = 100 + (long) (random() % 100);

        if (old || sub != API_SUB_NONE || is_mirror_pod(pod) || !*name)
                return 0;
        for (int i = 0; i < attempts; i++) {
                cleanup_json json_t *sa = NULL;
                cleanup_error struct error *err = NULL;
                int r;

                if (i)
                        pause_ms(interval);
                r = store_get(store, "serviceaccounts", ns, name, &sa, &err);
                if (r >= 0)
                        return 0;
                if (r != -ENOENT)
                        return error_set(reterr, EPERM,
                                         "error looking up service account %s/%s: %s", ns, name,
                                         err ? err->message : strerror(-r));
        }
        return error_set(reterr, EPERM,
                         "error looking up service account %s/%s: serviceaccount \"%s\" not found",
                         ns, name, name);
}
