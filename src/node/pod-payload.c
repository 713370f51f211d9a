/* pod-payload.c: the files of a pod's configMap, secret, downwardAPI and projected volumes, as
 * the kubelet's plugins make their payloads (K8S 1.33 MakePayload, CollectData, collectData;
 * fieldpath.ExtractFieldPathAsString and FormatMap; resource.ExtractContainerResourceValue).
 * Writing them is the AtomicWriter's (node/volume/atomic-writer.c) and deciding when is the
 * pod worker's. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/validation.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/quantity.h"
#include "base/strbuf.h"
#include "base/utf8.h"
#include "node/pod-payload.h"

bool pod_payload_volume(const json_t *v)
{
        return json_object_get(v, "configMap") || json_object_get(v, "secret") ||
               json_object_get(v, "downwardAPI") || json_object_get(v, "projected");
}

/* A mode field (defaultMode, items[].mode): its value, or def when absent. The API server
 * checks 0..0777; anything else is masked. */
static mode_t mode_of(const json_t *v, mode_t def)
{
        return json_is_integer(v) ? (mode_t) (json_integer_value(v) & 0777) : def;
}

/* Upstream's errors gathered (utilerrors.NewAggregate): distinct messages in order. */
struct errlist {
        json_t *messages; /* array of strings */
        int first;        /* -errno of the first */
};

static void errlist_add(struct errlist *l, int r, const char *message)
{
        size_t i;
        json_t *m;

        if (!l->first)
                l->first = r;
        json_array_foreach(l->messages, i, m)
                if (streq(json_string_value(m), message))
                        return;
        json_array_append_new(l->messages, json_string(message));
}

/* K8S aggregate.Error(): one error is its message, several "[a, b]". */
static int errlist_finish(struct errlist *l, struct error **reterr)
{
        struct strbuf sb;
        size_t i, n = json_array_size(l->messages);
        json_t *m;
        int r = l->first;

        if (!n) {
                json_decref(l->messages);
                return 0;
        }
        strbuf_init(&sb);
        if (n > 1)
                strbuf_addch(&sb, '[');
        json_array_foreach(l->messages, i, m) {
                if (i)
                        strbuf_addstr(&sb, ", ");
                strbuf_addstr(&sb, json_string_value(m));
        }
        if (n > 1)
                strbuf_addch(&sb, ']');
        json_decref(l->messages);
        error_set(reterr, -r, "%s", sb.buf);
        strbuf_release(&sb);
        return r;
}

/* ------------------------------------------------------------------ configMap, secret */

/* One value of the object's key: a ConfigMap's data string or binaryData bytes, a Secret's
 * data bytes. 1 found, 0 not there, -EINVAL not decodable. *ret malloc'd. */
static int object_value(const json_t *obj, bool secret, const char *key, char **ret,
                        size_t *ret_len)
{
        const json_t *v = json_object_get(json_object_get(obj, "data"), key);

        if (v && !secret) {
                *ret = xstrdup(json_string_value(v) ?: "");
                *ret_len = strlen(*ret);
                return 1;
        }
        if (!v && !secret)
                v = json_object_get(json_object_get(obj, "binaryData"), key);
        if (!v)
                return 0;
        return config_bytes_decode(v, ret, ret_len) < 0 ? -EINVAL : 1;
}

/* K8S configmap.MakePayload / secret.MakePayload for the object named by ref (a volume's
 * configMap or secret, or a projected source's), into p. */
static int object_payload(const json_t *pod, const json_t *ref, bool secret, mode_t default_mode,
                          pod_object_lookup_fn lookup, void *ud, struct atomic_payload *p,
                          struct error **reterr)
{
        const char *ns = json_path_string_or_empty(pod, "metadata.namespace");
        /* K8S: a secret volume names its object by secretName, everything else by name */
        const char *name = json_string_value(json_object_get(ref, "name"))
                                   ?: json_string_value(json_object_get(ref, "secretName")) ?: "";
        bool optional = json_is_true(json_object_get(ref, "optional"));
        const json_t *items = json_object_get(ref, "items");
        cleanup_json json_t *obj = NULL;
        size_t i;
        json_t *item;
        int r;

        r = lookup(ud, secret ? "secrets" : "configmaps", ns, name, &obj, reterr);
        /* K8S: a missing optional object is an empty one */
        if (r == -ENOENT && optional) {
                if (reterr)
                        *reterr = error_free(*reterr);
                return 0;
        }
        if (r < 0)
                return r;
        if (!json_array_size(items)) {
                /* K8S: every key, a ConfigMap's data then its binaryData */
                static const char *const maps[] = { "data", "binaryData" };

                for (size_t m = 0; m < (secret ? 1 : 2); m++) {
                        const char *key;
                        json_t *v;

                        json_object_foreach(json_object_get(obj, maps[m]), key, v) {
                                cleanup_free char *data = NULL;
                                size_t len = 0;

                                if (!secret && m == 0) {
                                        data = xstrdup(json_string_value(v) ?: "");
                                        len = strlen(data);
                                } else if (config_bytes_decode(v, &data, &len) < 0) {
                                        return error_set(reterr, EINVAL,
                                                         "%s \"%s\": key %s cannot be decoded",
                                                         secret ? "secret" : "configmap", name,
                                                         key);
                                }
                                r = atomic_payload_add(p, key, data, len, default_mode, reterr);
                                if (r < 0)
                                        return r;
                        }
                }
                return 0;
        }
        json_array_foreach(items, i, item) {
                const char *key = json_string_value(json_object_get(item, "key")) ?: "";
                const char *path = json_string_value(json_object_get(item, "path")) ?: "";
                cleanup_free char *data = NULL;
                size_t len = 0;

                r = object_value(obj, secret, key, &data, &len);
                if (r < 0)
                        return error_set(reterr, EINVAL, "%s \"%s\": key %s cannot be decoded",
                                         secret ? "secret" : "configmap", name, key);
                if (r == 0) {
                        if (optional)
                                continue;
                        return secret ? error_set(reterr, ENOENT,
                                                  "references non-existent secret key: %s", key)
                                      : error_set(reterr, ENOENT,
                                                  "configmap references non-existent config "
                                                  "key: %s",
                                                  key);
                }
                r = atomic_payload_add(p, path, data, len,
                                       mode_of(json_object_get(item, "mode"), default_mode),
                                       reterr);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* ------------------------------------------------------------------ downwardAPI */

static int cmp_key(const void *a, const void *b)
{
        return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* K8S fieldpath.FormatMap: `key="value"` lines, keys sorted, values as Go's %q. */
static char *format_map(const json_t *m)
{
        const char **keys = xcalloc(json_object_size(m) + 1, sizeof(*keys));
        struct strbuf sb;
        size_t n = 0;
        const char *key;
        json_t *v;

        json_object_foreach((json_t *) m, key, v)
                keys[n++] = key;
        qsort(keys, n, sizeof(*keys), cmp_key);
        strbuf_init(&sb);
        for (size_t i = 0; i < n; i++) {
                const char *value = json_string_value(json_object_get(m, keys[i])) ?: "";

                if (i)
                        strbuf_addch(&sb, '\n');
                strbuf_addf(&sb, "%s=", keys[i]);
                utf8_go_quote(&sb, value, strlen(value));
        }
        free(keys);
        return strbuf_detach(&sb);
}

/* K8S fieldpath.ExtractFieldPathAsString for the paths a downwardAPI volume may name. */
static int field_value(const json_t *pod, const char *path, char **ret, struct error **reterr)
{
        size_t len = strlen(path);
        const char *open = strstr(path, "['");

        /* K8S SplitMaybeSubscriptedPath: "metadata.labels['key']" */
        if (len > 2 && streq(path + len - 2, "']") && open && open > path) {
                cleanup_free char *base = xstrndup(path, (size_t) (open - path));
                cleanup_free char *key = xstrndup(open + 2, (size_t) (path + len - 2 - open - 2));
                const json_t *map;

                if (!streq(base, "metadata.labels") && !streq(base, "metadata.annotations"))
                        return error_set(reterr, EINVAL,
                                         "fieldPath \"%s\" does not support subscript", path);
                map = json_path(pod, base);
                *ret = xstrdup(json_string_value(json_object_get(map, key)) ?: "");
                return 0;
        }
        if (streq(path, "metadata.labels") || streq(path, "metadata.annotations")) {
                *ret = format_map(json_path(pod, path));
                return 0;
        }
        if (streq(path, "metadata.name") || streq(path, "metadata.namespace") ||
            streq(path, "metadata.uid")) {
                *ret = xstrdup(json_path_string(pod, path) ?: "");
                return 0;
        }
        return error_set(reterr, EINVAL, "unsupported fieldPath: %s", path);
}

/* The container named name among spec.containers, then spec.initContainers. */
static const json_t *find_container(const json_t *pod, const char *name)
{
        static const char *const lists[] = { "spec.containers", "spec.initContainers" };

        for (size_t l = 0; l < ARRAY_SIZE(lists); l++) {
                size_t i;
                json_t *c;

                json_array_foreach(json_path(pod, lists[l]), i, c)
                        if (streq(json_string_value(json_object_get(c, "name")) ?: "", name))
                                return c;
        }
        return NULL;
}

/* ceil(a / b) for a >= 0, b > 0, as upstream's math.Ceil of the quotient. */
static int64_t ceil_div(int64_t a, int64_t b)
{
        return a / b + (a % b != 0);
}

/* K8S ExtractResourceValueByContainerNameAndNodeAllocatable. */
static int resource_value(const json_t *pod, const json_t *ref, const struct pod_payload_node *node,
                          char **ret, struct error **reterr)
{
        const char *container = json_string_value(json_object_get(ref, "containerName")) ?: "";
        const char *resource = json_string_value(json_object_get(ref, "resource")) ?: "";
        const char *divisor_text = json_string_value(json_object_get(ref, "divisor"));
        const json_t *c = find_container(pod, container);
        const char *dot = strchr(resource, '.');
        cleanup_free char *which = NULL;
        const char *name, *text;
        struct quantity q, divisor;
        bool cpu, limits;
        int64_t v = 0, d = 0;

        if (!c)
                return error_set(reterr, ENOENT, "container %s not found", container);
        if (!dot)
                return error_set(reterr, EINVAL, "unsupported container resource : %s", resource);
        which = xstrndup(resource, (size_t) (dot - resource));
        name = dot + 1;
        limits = streq(which, "limits");
        if ((!limits && !streq(which, "requests")) ||
            !(streq(name, "cpu") || streq(name, "memory") || streq(name, "ephemeral-storage") ||
              strncmp(name, "hugepages-", strlen("hugepages-")) == 0))
                return error_set(reterr, EINVAL, "unsupported container resource : %s", resource);
        cpu = streq(name, "cpu");
        /* K8S: a zero (or absent) divisor is 1 */
        if (!divisor_text || quantity_parse(divisor_text, &divisor, NULL) < 0 ||
            quantity_is_zero(&divisor))
                quantity_from_int64(1, QUANTITY_DECIMAL_SI, &divisor);
        if ((cpu ? quantity_milli_value(&divisor, &d) : quantity_value(&divisor, &d)) < 0 || d <= 0)
                return error_set(reterr, EINVAL, "resource %s: divisor %s is out of range",
                                 resource, divisor_text ?: "1");

        text = json_string_value(
                json_object_get(json_object_get(json_object_get(c, "resources"), which), name));
        if (text) {
                if (quantity_parse(text, &q, reterr) < 0)
                        return -EINVAL;
                if ((cpu ? quantity_milli_value(&q, &v) : quantity_value(&q, &v)) < 0 || v < 0)
                        return error_set(reterr, ERANGE, "resource %s: %s is out of range",
                                         resource, text);
        } else if (limits && (cpu || streq(name, "memory"))) {
                /* K8S MergeContainerResourceLimits: an unset limit is the node's allocatable */
                v = cpu ? node->allocatable_milli_cpu : node->allocatable_memory;
                if (v <= 0)
                        return error_set(reterr, ENOENT,
                                         "resource %s: the node's allocatable %s is not known",
                                         resource, name);
        } else if (limits && streq(name, "ephemeral-storage")) {
                return error_set(reterr, ENOTSUP,
                                 "resource %s: the container sets no limit and flexlet does not "
                                 "report the node's allocatable ephemeral-storage",
                                 resource);
        }
        *ret = xasprintf("%lld", (long long) ceil_div(v, d));
        return 0;
}

/* K8S downwardapi.CollectData: the items into p; errors gathered into l. */
static void downward_payload(const json_t *pod, const json_t *items, mode_t default_mode,
                             const struct pod_payload_node *node, struct atomic_payload *p,
                             struct errlist *l)
{
        size_t i;
        json_t *item;

        json_array_foreach(items, i, item) {
                const char *path = json_string_value(json_object_get(item, "path")) ?: "";
                const char *field = json_path_string(item, "fieldRef.fieldPath");
                const json_t *res = json_object_get(item, "resourceFieldRef");
                cleanup_error struct error *err = NULL;
                cleanup_free char *value = NULL;
                int r;

                if (field)
                        r = field_value(pod, field, &value, &err);
                else if (res)
                        r = resource_value(pod, res, node, &value, &err);
                else
                        r = error_set(&err, EINVAL,
                                      "downwardAPI item \"%s\": no fieldRef nor resourceFieldRef",
                                      path);
                if (r >= 0)
                        r = atomic_payload_add(p, path, value, strlen(value),
                                               mode_of(json_object_get(item, "mode"), default_mode),
                                               &err);
                if (r < 0)
                        errlist_add(l, r, err->message);
        }
}

/* ------------------------------------------------------------------ serviceAccountToken */

/* K8S securitycontext.DetermineEffectiveRunAsUser: the container's runAsUser, else the pod's;
 * false when neither is set. */
static bool run_as_user(const json_t *pod, const json_t *c, json_int_t *ret)
{
        const json_t *v = json_path(c, "securityContext.runAsUser");

        if (!json_is_integer(v))
                v = json_path(pod, "spec.securityContext.runAsUser");
        if (!json_is_integer(v))
                return false;
        *ret = json_integer_value(v);
        return true;
}

/* K8S volumeutil.FsUserFrom: the one runAsUser every init container and container has; false
 * when one has none or two differ. */
static bool fs_user(const json_t *pod, uid_t *ret)
{
        static const char *const lists[] = { "spec.initContainers", "spec.containers" };
        bool have = false;
        json_int_t user = 0;

        for (size_t l = 0; l < ARRAY_SIZE(lists); l++) {
                size_t i;
                json_t *c;

                json_array_foreach(json_path(pod, lists[l]), i, c) {
                        json_int_t u;

                        if (!run_as_user(pod, c, &u) || (have && u != user))
                                return false;
                        user = u;
                        have = true;
                }
        }
        if (!have || user < 0 || user > (json_int_t) UINT32_MAX - 1)
                return false;
        *ret = (uid_t) user;
        return true;
}

/* K8S projected collectData, the ServiceAccountToken case. */
static int token_payload(const json_t *pod, const json_t *src, mode_t mode,
                         const struct pod_payload_node *node, struct atomic_payload *p,
                         struct error **reterr)
{
        const char *path = json_string_value(json_object_get(src, "path")) ?: "";
        const char *audience = json_string_value(json_object_get(src, "audience"));
        const json_t *exp = json_object_get(src, "expirationSeconds");
        cleanup_free char *token = NULL;
        bool owned;
        uid_t user = 0;
        int r;

        if (!node || !node->token)
                return error_set(reterr, ENOTSUP,
                                 "serviceAccountToken projections need a token manager");
        owned = fs_user(pod, &user);
        /* K8S: with an FsUser or an fsGroup the token starts 0600; SetVolumeOwnership then lets
         * the group read it */
        if (owned || json_is_integer(json_path(pod, "spec.securityContext.fsGroup")))
                mode = 0600;
        r = node->token(node->token_ud, pod, audience && *audience ? audience : NULL,
                        json_is_integer(exp) ? json_integer_value(exp)
                                             : POD_PAYLOAD_TOKEN_DEFAULT_SECONDS,
                        &token, reterr);
        if (r < 0)
                return r;
        if (owned)
                return atomic_payload_add_owned(p, path, token, strlen(token), mode, user, reterr);
        return atomic_payload_add(p, path, token, strlen(token), mode, reterr);
}

/* ------------------------------------------------------------------ the volume */

int pod_payload_build(const json_t *pod, const json_t *volume, pod_object_lookup_fn lookup,
                      void *ud, const struct pod_payload_node *node, struct atomic_payload *ret,
                      struct error **reterr)
{
        const json_t *cm = json_object_get(volume, "configMap");
        const json_t *sec = json_object_get(volume, "secret");
        const json_t *dapi = json_object_get(volume, "downwardAPI");
        const json_t *proj = json_object_get(volume, "projected");
        struct errlist l = { .messages = json_array() };
        mode_t mode;
        size_t i;
        json_t *src;

        if (cm || sec) {
                json_decref(l.messages);
                mode = mode_of(json_object_get(cm ?: sec, "defaultMode"), POD_PAYLOAD_DEFAULT_MODE);
                return object_payload(pod, cm ?: sec, !cm, mode, lookup, ud, ret, reterr);
        }
        if (dapi) {
                mode = mode_of(json_object_get(dapi, "defaultMode"), POD_PAYLOAD_DEFAULT_MODE);
                downward_payload(pod, json_object_get(dapi, "items"), mode, node, ret, &l);
                return errlist_finish(&l, reterr);
        }
        if (!proj) {
                json_decref(l.messages);
                return error_set(reterr, EINVAL,
                                 "not a configMap, secret, downwardAPI or "
                                 "projected volume");
        }
        /* K8S projected collectData: every source, errors gathered */
        mode = mode_of(json_object_get(proj, "defaultMode"), POD_PAYLOAD_DEFAULT_MODE);
        json_array_foreach(json_object_get(proj, "sources"), i, src) {
                cleanup_error struct error *err = NULL;
                const json_t *ref;
                int r = 0;

                if ((ref = json_object_get(src, "configMap")) ||
                    (ref = json_object_get(src, "secret")))
                        r = object_payload(pod, ref, !json_object_get(src, "configMap"), mode,
                                           lookup, ud, ret, &err);
                else if ((ref = json_object_get(src, "downwardAPI")))
                        downward_payload(pod, json_object_get(ref, "items"), mode, node, ret, &l);
                else if ((ref = json_object_get(src, "serviceAccountToken")))
                        r = token_payload(pod, ref, mode, node, ret, &err);
                else if (json_object_get(src, "clusterTrustBundle"))
                        r = error_set(&err, ENOTSUP,
                                      "clusterTrustBundle projections are not supported");
                else
                        r = error_set(&err, ENOTSUP, "projected source %zu: unknown kind", i);
                if (r < 0)
                        errlist_add(&l, r, err ? err->message : strerror(-r));
        }
        return errlist_finish(&l, reterr);
}
