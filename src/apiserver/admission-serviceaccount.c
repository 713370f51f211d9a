/* admission-serviceaccount.c: the ServiceAccount admission plugin on pod creation (K8S:
 * plugin/pkg/admission/serviceaccount/admission.go, Admit, Validate, getServiceAccount,
 * shouldAutomount, mountServiceAccountToken, TokenVolumeSource): the account defaulted and
 * looked up in the store, the kube-api-access volume and mounts added. The token itself is the
 * node's (a TokenRequest per pod); nothing here issues one. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "apiserver/admission-serviceaccount.h"
#include "base/json.h"
#include "base/macro.h"
#include "base/names.h"
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

bool pod_service_account_automount(const json_t *pod, const json_t *sa)
{
        const json_t *v = json_path(pod, "spec.automountServiceAccountToken");

        /* K8S shouldAutomount: the pod's preference wins, then the account's, else true */
        if (json_is_boolean(v))
                return json_is_true(v);
        v = json_object_get(sa, "automountServiceAccountToken");
        if (json_is_boolean(v))
                return json_is_true(v);
        return true;
}

/* K8S TokenVolumeSource: the projected source of the kube-api-access volume, every default
 * written out (kubernetes/kubernetes#104464). */
static json_t *token_volume_source(void)
{
        return json_pack("{s:i, s:[{s:{s:s, s:I}}, {s:{s:s, s:[{s:s, s:s}]}},"
                         " {s:{s:[{s:s, s:{s:s, s:s}}]}}]}",
                         "defaultMode", SA_TOKEN_VOLUME_MODE, "sources", "serviceAccountToken",
                         "path", "token", "expirationSeconds",
                         (json_int_t) SA_TOKEN_VOLUME_EXPIRATION_SECONDS, "configMap", "name",
                         ROOT_CA_CONFIG_MAP, "items", "key", "ca.crt", "path", "ca.crt",
                         "downwardAPI", "items", "path", "namespace", "fieldRef", "apiVersion",
                         "v1", "fieldPath", "metadata.namespace");
}

/* Adds the mount to every container of list that has none at SA_TOKEN_MOUNT_PATH; whether one
 * was added. */
static bool mount_in(json_t *spec, const char *list, const char *volume)
{
        bool added = false;
        size_t i;
        json_t *c;

        json_array_foreach(json_object_get(spec, list), i, c) {
                json_t *mounts = json_object_get(c, "volumeMounts");
                bool present = false;
                size_t k;
                json_t *m;

                json_array_foreach(mounts, k, m)
                        if (streq(json_string_value(json_object_get(m, "mountPath")) ?: "",
                                  SA_TOKEN_MOUNT_PATH)) {
                                present = true;
                                break;
                        }
                if (present)
                        continue;
                if (!json_is_array(mounts)) {
                        mounts = json_array();
                        json_object_set_new(c, "volumeMounts", mounts);
                }
                json_array_append_new(mounts,
                                      json_pack("{s:s, s:b, s:s}", "name", volume, "readOnly", 1,
                                                "mountPath", SA_TOKEN_MOUNT_PATH));
                added = true;
        }
        return added;
}

void pod_service_account_mount(json_t *pod, const char *new_volume)
{
        json_t *spec = json_object_ensure(pod, "spec");
        json_t *volumes = json_object_get(spec, "volumes");
        const char *name = NULL;
        bool needed;
        size_t i;
        json_t *v;

        /* K8S mountServiceAccountToken: a volume already named kube-api-access-* is the one */
        json_array_foreach(volumes, i, v) {
                const char *n = json_string_value(json_object_get(v, "name"));

                if (n && strncmp(n, SA_TOKEN_VOLUME_PREFIX, strlen(SA_TOKEN_VOLUME_PREFIX)) == 0) {
                        name = n;
                        break;
                }
        }
        /* init containers first, as upstream; ephemeral containers get nothing */
        needed = mount_in(spec, "initContainers", name ?: new_volume);
        needed |= mount_in(spec, "containers", name ?: new_volume);
        if (name || !needed)
                return;
        if (!json_is_array(volumes)) {
                volumes = json_array();
                json_object_set_new(spec, "volumes", volumes);
        }
        json_array_append_new(volumes, json_pack("{s:s, s:o}", "name", new_volume, "projected",
                                                 token_volume_source()));
}

static void pause_ms(long ms)
{
        struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

/* K8S getServiceAccount: the account ns/name into *ret, the lookup of "default" tried up to 10
 * times, one random 100-200 ms interval apart; else -EPERM with upstream's message. */
static int service_account_get(struct store *store, const char *ns, const char *name, json_t **ret,
                               struct error **reterr)
{
        int attempts = streq(name, DEFAULT_ACCOUNT) ? DEFAULT_ATTEMPTS : 1;
        long interval = 100 + (long) (random() % 100);

        for (int i = 0; i < attempts; i++) {
                cleanup_error struct error *err = NULL;
                int r;

                if (i)
                        pause_ms(interval);
                /* K8S: from the informer's cache, else a live lookup */
                r = store_get_cached(store, "serviceaccounts", ns, name, ret, NULL);
                if (r < 0)
                        r = store_get(store, "serviceaccounts", ns, name, ret, &err);
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

int pod_admit(struct store *store, enum api_subresource sub, json_t *pod, const json_t *old,
              struct error **reterr)
{
        const char *ns = json_path_string_or_empty(pod, "metadata.namespace");
        cleanup_json json_t *sa = NULL;
        json_t *spec;
        int r;

        if (old || sub != API_SUB_NONE || is_mirror_pod(pod))
                return 0;
        r = pod_service_account_default(pod);
        if (r < 0)
                return r;
        r = service_account_get(
                store, ns, json_path_string_or_empty(pod, "spec.serviceAccountName"), &sa, reterr);
        if (r < 0)
                return r;
        if (pod_service_account_automount(pod, sa)) {
                cleanup_free char *volume = name_generate(SA_TOKEN_VOLUME_PREFIX);

                pod_service_account_mount(pod, volume);
        }
        /* K8S: a pod without imagePullSecrets gets the account's */
        spec = json_object_get(pod, "spec");
        if (!json_array_size(json_object_get(spec, "imagePullSecrets")) &&
            json_array_size(json_object_get(sa, "imagePullSecrets"))) {
                json_t *copy = json_array();
                size_t i;
                json_t *ref;

                json_array_foreach(json_object_get(sa, "imagePullSecrets"), i, ref)
                        json_array_append_new(
                                copy,
                                json_pack("{s:s}", "name",
                                          json_string_value(json_object_get(ref, "name")) ?: ""));
                json_object_set_new(spec, "imagePullSecrets", copy);
        }
        return 0;
}

int pod_admit_validate(struct store *store, enum api_subresource sub, const json_t *pod,
                       const json_t *old, struct error **reterr)
{
        const char *ns = json_path_string_or_empty(pod, "metadata.namespace");
        const char *name = json_path_string_or_empty(pod, "spec.serviceAccountName");
        cleanup_json json_t *sa = NULL;

        if (old || sub != API_SUB_NONE || is_mirror_pod(pod) || !*name)
                return 0;
        return service_account_get(store, ns, name, &sa, reterr);
}
