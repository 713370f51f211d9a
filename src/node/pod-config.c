/* pod-config.c: a container's environment from ConfigMaps and Secrets, as the kubelet's
 * makeEnvironmentVariables resolves it (pkg/kubelet/kubelet_pods.go, 1.33). Secret values are
 * []byte (base64 on the JSON wire) and are decoded here; ConfigMap values are used as stored.
 * The values are never $(VAR)-expanded (only env[].value is). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api/validation.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/strbuf.h"
#include "node/pod-config.h"

bool pod_config_env_name_valid(const char *name)
{
        if (!name || !*name)
                return false;
        for (const unsigned char *p = (const unsigned char *) name; *p; p++)
                if (*p < 32 || *p > 126 || *p == '=')
                        return false;
        return true;
}

static int cmp_str(const void *a, const void *b)
{
        return strcmp(*(char *const *) a, *(char *const *) b);
}

/* The value of one data entry: a ConfigMap's string, a Secret's decoded bytes (malloc'd). */
static char *entry_value(const json_t *v, bool secret)
{
        char *out = NULL;
        size_t n;

        if (!secret)
                return xstrdup(json_string_value(v) ?: "");
        if (config_bytes_decode(v, &out, &n) < 0)
                return xstrdup("");
        return out;
}

int pod_config_env_from(const json_t *pod, const json_t *container, pod_object_lookup_fn lookup,
                        void *ud, json_t **ret_vars, json_t **ret_warnings, struct error **reterr)
{
        const char *ns = json_path_string_or_empty(pod, "metadata.namespace");
        cleanup_json json_t *vars = json_object(), *warnings = json_array();
        size_t i;
        json_t *from;

        json_array_foreach(json_object_get(container, "envFrom"), i, from) {
                const json_t *cm = json_object_get(from, "configMapRef");
                const json_t *sec = json_object_get(from, "secretRef");
                const json_t *ref = cm ? cm : sec;
                const char *name = json_string_value(json_object_get(ref, "name")) ?: "";
                const char *prefix = json_string_value(json_object_get(from, "prefix")) ?: "";
                bool optional = json_is_true(json_object_get(ref, "optional"));
                cleanup_json json_t *obj = NULL;
                cleanup_error struct error *err = NULL;
                const char **invalid;
                size_t n_invalid = 0;
                const char *key;
                json_t *v;
                int r;

                if (!ref)
                        continue;
                r = lookup(ud, cm ? "configmaps" : "secrets", ns, name, &obj, &err);
                if (r == -ENOENT && optional)
                        continue;
                if (r < 0)
                        return error_set(reterr, -r, "%s", err ? err->message : strerror(-r));
                invalid = xcalloc(json_object_size(json_object_get(obj, "data")) + 1,
                                  sizeof(*invalid));
                json_object_foreach(json_object_get(obj, "data"), key, v) {
                        char *full = xasprintf("%s%s", prefix, key);

                        if (!pod_config_env_name_valid(full)) {
                                invalid[n_invalid++] = full;
                                continue;
                        }
                        {
                                cleanup_free char *value = entry_value(v, !cm);

                                /* a value that is not UTF-8 (a Secret's bytes) is kept
                                 * byte for byte */
                                json_object_set_new(vars, full,
                                                    json_stringn_nocheck(value, strlen(value)));
                        }
                        free(full);
                }
                if (n_invalid) {
                        struct strbuf sb;

                        /* K8S: the keys sorted, joined with ", " */
                        qsort(invalid, n_invalid, sizeof(*invalid), cmp_str);
                        strbuf_init(&sb);
                        strbuf_addstr(&sb, "Keys [");
                        for (size_t k = 0; k < n_invalid; k++)
                                strbuf_addf(&sb, "%s%s", k ? ", " : "", invalid[k]);
                        strbuf_addf(&sb,
                                    "] from the EnvFrom %s %s/%s were skipped since they are "
                                    "considered invalid environment variable names.",
                                    cm ? "configMap" : "secret", ns, name);
                        json_array_append_new(warnings, json_string(sb.buf));
                        strbuf_release(&sb);
                }
                for (size_t k = 0; k < n_invalid; k++)
                        free((char *) invalid[k]);
                free(invalid);
        }
        *ret_vars = TAKE_PTR(vars);
        *ret_warnings = TAKE_PTR(warnings);
        return 0;
}

int pod_config_env_value(const json_t *pod, const json_t *from, pod_object_lookup_fn lookup,
                         void *ud, char **ret_value, struct error **reterr)
{
        const char *ns = json_path_string_or_empty(pod, "metadata.namespace");
        const json_t *cm = json_object_get(from, "configMapKeyRef");
        const json_t *sec = json_object_get(from, "secretKeyRef");
        const json_t *ref = cm ? cm : sec;
        const char *name = json_string_value(json_object_get(ref, "name")) ?: "";
        const char *key = json_string_value(json_object_get(ref, "key")) ?: "";
        bool optional = json_is_true(json_object_get(ref, "optional"));
        cleanup_json json_t *obj = NULL;
        cleanup_error struct error *err = NULL;
        const json_t *v;
        int r;

        if (!ref)
                return error_set(reterr, EINVAL, "no configMapKeyRef or secretKeyRef");
        r = lookup(ud, cm ? "configmaps" : "secrets", ns, name, &obj, &err);
        if (r == -ENOENT && optional)
                return 0;
        if (r < 0)
                return error_set(reterr, -r, "%s", err ? err->message : strerror(-r));
        v = json_object_get(json_object_get(obj, "data"), key);
        if (!v) {
                if (optional)
                        return 0;
                return error_set(reterr, ENOENT, "couldn't find key %s in %s %s/%s", key,
                                 cm ? "ConfigMap" : "Secret", ns, name);
        }
        *ret_value = entry_value(v, !cm);
        return 1;
}
