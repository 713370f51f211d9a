/* validation-config.c: defaults and validation of ConfigMaps, Secrets and ServiceAccounts as
 * kube-apiserver 1.33 does them (K8S: pkg/apis/core/validation ValidateConfigMap(Update),
 * ValidateSecret(Update), ValidateServiceAccount(Update), apimachinery IsConfigMapKey,
 * pkg/apis/core/v1 conversion of Secret.stringData and SetDefaults_Secret). Data values arrive
 * checked by schema_check: strings, and base64 where the Go type is []byte. */
#include <errno.h>
#include <string.h>

#include "api/validation-internal.h"
#include "api/validation.h"
#include "base/alloc.h"
#include "base/base64.h"
#include "base/json.h"

/* K8S: validation.IsConfigMapKey: the messages of MaxLenError, RegexError and hasChDirPrefix. */
static void validate_config_key(const char *key, const char *field, struct field_error_list *errs)
{
        if (strlen(key) > 253)
                verr_str(errs, FIELD_ERROR_INVALID, field, key,
                         "must be no more than 253 characters");
        if (!*key || strspn(key, "-._abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                 "0123456789") != strlen(key))
                verr_str(errs, FIELD_ERROR_INVALID, field, key,
                         "a valid config key must consist of alphanumeric characters, '-', '_' "
                         "or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used "
                         "for validation is '[-._a-zA-Z0-9]+')");
        if (streq(key, "."))
                verr_str(errs, FIELD_ERROR_INVALID, field, key, "must not be '.'");
        else if (streq(key, ".."))
                verr_str(errs, FIELD_ERROR_INVALID, field, key, "must not be '..'");
        else if (strncmp(key, "..", 2) == 0)
                verr_str(errs, FIELD_ERROR_INVALID, field, key, "must not start with '..'");
}

/* The length of a []byte value as Go holds it (decoded); 0 for what schema_check refused. */
static size_t bytes_len(const json_t *v)
{
        size_t n = 0;

        if (!json_is_string(v) ||
            base64_decode(json_string_value(v), json_string_length(v), NULL, &n, NULL) < 0)
                return 0;
        return n;
}

int config_bytes_decode(const json_t *v, char **ret, size_t *ret_len)
{
        if (!json_is_string(v))
                return -EINVAL;
        return base64_decode(json_string_value(v), json_string_length(v), ret, ret_len, NULL);
}

size_t validate_config_map(const json_t *cm, bool meta, struct field_error_list *errs)
{
        size_t before = errs->n, total = 0;
        const json_t *data = vj_obj(cm, "data"), *binary = vj_obj(cm, "binaryData");
        const char *key;
        json_t *v;

        if (meta)
                (void) validate_object_meta_create(cm, true, errs);
        json_object_foreach((json_t *) data, key, v) {
                cleanup_free char *field = xasprintf("data[%s]", key);

                validate_config_key(key, field, errs);
                if (json_object_get(binary, key))
                        verr_str(errs, FIELD_ERROR_INVALID, field, key,
                                 "duplicate of key present in binaryData");
                total += json_string_length(v);
        }
        json_object_foreach((json_t *) binary, key, v) {
                cleanup_free char *field = xasprintf("binaryData[%s]", key);

                validate_config_key(key, field, errs);
                total += bytes_len(v);
        }
        /* K8S: field.TooLong(field.NewPath(""), ...): the empty path prints as "[]" */
        if (total > CONFIG_MAX_SIZE)
                verr_raw(errs, FIELD_ERROR_TOO_LONG, "[]", NULL,
                         "may not be more than 1048576 bytes");
        return errs->n - before;
}

/* K8S: the immutable rule ConfigMaps and Secrets share (ValidateConfigMapUpdate,
 * ValidateSecretUpdate): once immutable is true it stays, and so do the data. */
static void validate_immutable(const json_t *new_obj, const json_t *old_obj,
                               const char *const *fields, struct field_error_list *errs)
{
        static const char msg[] = "field is immutable when `immutable` is set";

        if (!json_is_true(json_object_get(old_obj, "immutable")))
                return;
        if (!json_is_true(json_object_get(new_obj, "immutable")))
                verr_raw(errs, FIELD_ERROR_FORBIDDEN, "immutable", NULL, msg);
        for (const char *const *f = fields; *f; f++) {
                const json_t *a = vj_obj(new_obj, *f), *b = vj_obj(old_obj, *f);

                /* reflect.DeepEqual tells a nil map from an empty one, a difference that
                 * does not survive storage (omitempty): both count as empty here */
                if (json_object_size(a) == 0 && json_object_size(b) == 0)
                        continue;
                if (!a || !b || !json_equal(a, b))
                        verr_raw(errs, FIELD_ERROR_FORBIDDEN, *f, NULL, msg);
        }
}

size_t validate_config_map_update(const json_t *new_cm, const json_t *old_cm,
                                  struct field_error_list *errs)
{
        static const char *const fields[] = { "data", "binaryData", NULL };
        size_t before = errs->n;

        (void) validate_object_meta_update(new_cm, old_cm, errs);
        validate_immutable(new_cm, old_cm, fields, errs);
        (void) validate_config_map(new_cm, false, errs);
        return errs->n - before;
}

void secret_prepare(json_t *secret)
{
        json_t *string_data = json_object_get(secret, "stringData");
        const char *key;
        json_t *v;

        /* K8S: Convert_v1_Secret_To_core_Secret: stringData overwrites data, key by key, and is
         * not kept */
        if (json_is_object(string_data) && json_object_size(string_data)) {
                json_t *data = json_object_get(secret, "data");

                if (!json_is_object(data)) {
                        data = json_object();
                        json_object_set_new(secret, "data", data);
                }
                json_object_foreach(string_data, key, v) {
                        const char *s = json_string_value(v) ?: "";
                        cleanup_free char *enc = base64_encode(s, json_string_length(v));

                        json_object_set_new(data, key, json_string(enc));
                }
        }
        json_object_del(secret, "stringData");
        /* K8S: SetDefaults_Secret */
        if (!*(json_string_value(json_object_get(secret, "type")) ?: ""))
                json_object_set_new(secret, "type", json_string(SECRET_TYPE_OPAQUE));
}

/* K8S: json.Unmarshal(b, &map[string]interface{}{}): Go's message for the common failures
 * (jansson does not say which context the bad character was in; Go's words for one at the
 * start of a value are used). NULL when it is a JSON object or null. */
static char *json_object_error(const char *b, size_t n)
{
        json_error_t jerr;
        cleanup_json json_t *v = json_loadb(b, n, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);

        if (!v) {
                size_t pos = (size_t) jerr.position;
                size_t i = 0;

                while (i < n && strchr(" \t\r\n", b[i]))
                        i++;
                if (i == n || pos >= n)
                        return xstrdup("unexpected end of JSON input");
                /* jansson's position is just past the offending token */
                if (pos > 0)
                        pos--;
                return xasprintf("invalid character '%c' looking for beginning of value",
                                 b[pos > i ? pos : i]);
        }
        if (json_is_object(v) || json_is_null(v))
                return NULL;
        return xasprintf("json: cannot unmarshal %s into Go value of type map[string]interface {}",
                         json_go_kind(v));
}

static void require_json_key(const json_t *data, const char *key, struct field_error_list *errs)
{
        cleanup_free char *field = xasprintf("data[%s]", key);
        cleanup_free char *raw = NULL, *msg = NULL;
        const json_t *v = json_object_get(data, key);
        size_t n = 0;

        if (!v) {
                verr_raw(errs, FIELD_ERROR_REQUIRED, field, NULL, "");
                return;
        }
        if (config_bytes_decode(v, &raw, &n) < 0)
                return;
        msg = json_object_error(raw, n);
        if (msg)
                verr_str(errs, FIELD_ERROR_INVALID, field, "<secret contents redacted>", msg);
}

size_t validate_secret(const json_t *secret, bool meta, struct field_error_list *errs)
{
        size_t before = errs->n, total = 0;
        const json_t *data = vj_obj(secret, "data");
        const char *type = vj_str(secret, "type") ?: "";
        const char *key;
        json_t *v;

        if (meta)
                (void) validate_object_meta_create(secret, true, errs);
        json_object_foreach((json_t *) data, key, v) {
                cleanup_free char *field = xasprintf("data[%s]", key);

                validate_config_key(key, field, errs);
                total += bytes_len(v);
        }
        if (total > CONFIG_MAX_SIZE)
                verr_raw(errs, FIELD_ERROR_TOO_LONG, "data", NULL,
                         "may not be more than 1048576 bytes");

        if (streq(type, SECRET_TYPE_SERVICE_ACCOUNT_TOKEN)) {
                /* K8S: only the annotation is required; a controller adds the token */
                const char *sa = json_string_value(
                        json_object_get(vj_obj(vj_obj(secret, "metadata"), "annotations"),
                                        "kubernetes.io/service-account.name"));
                if (!sa || !*sa)
                        verr_raw(errs, FIELD_ERROR_REQUIRED,
                                 "metadata.annotations[kubernetes.io/service-account.name]", NULL,
                                 "");
        } else if (streq(type, SECRET_TYPE_DOCKERCFG)) {
                require_json_key(data, ".dockercfg", errs);
        } else if (streq(type, SECRET_TYPE_DOCKER_CONFIG_JSON)) {
                require_json_key(data, ".dockerconfigjson", errs);
        } else if (streq(type, SECRET_TYPE_BASIC_AUTH)) {
                /* K8S: either may be empty, but one must be there */
                if (!json_object_get(data, "username") && !json_object_get(data, "password")) {
                        verr_raw(errs, FIELD_ERROR_REQUIRED, "data[username]", NULL, "");
                        verr_raw(errs, FIELD_ERROR_REQUIRED, "data[password]", NULL, "");
                }
        } else if (streq(type, SECRET_TYPE_SSH_AUTH)) {
                if (bytes_len(json_object_get(data, "ssh-privatekey")) == 0)
                        verr_raw(errs, FIELD_ERROR_REQUIRED, "data[ssh-privatekey]", NULL, "");
        } else if (streq(type, SECRET_TYPE_TLS)) {
                if (!json_object_get(data, "tls.crt"))
                        verr_raw(errs, FIELD_ERROR_REQUIRED, "data[tls.crt]", NULL, "");
                if (!json_object_get(data, "tls.key"))
                        verr_raw(errs, FIELD_ERROR_REQUIRED, "data[tls.key]", NULL, "");
        }
        /* Opaque, bootstrap.kubernetes.io/token and any other type: no rule (upstream's
         * ValidateSecret has none for them) */
        return errs->n - before;
}

size_t validate_secret_update(const json_t *new_secret, const json_t *old_secret,
                              struct field_error_list *errs)
{
        static const char *const fields[] = { "data", NULL };
        const char *nt = vj_str(new_secret, "type") ?: "";
        const char *ot = vj_str(old_secret, "type") ?: "";
        size_t before = errs->n;

        (void) validate_object_meta_update(new_secret, old_secret, errs);
        /* K8S: ValidateImmutableField(newSecret.Type, oldSecret.Type, "type") */
        if (!streq(nt, ot))
                verr_str(errs, FIELD_ERROR_INVALID, "type", nt, "field is immutable");
        /* stringData was merged into data before this */
        validate_immutable(new_secret, old_secret, fields, errs);
        (void) validate_secret(new_secret, false, errs);
        return errs->n - before;
}

size_t validate_service_account(const json_t *sa, struct field_error_list *errs)
{
        return validate_object_meta_create(sa, true, errs);
}

size_t validate_service_account_update(const json_t *new_sa, const json_t *old_sa,
                                       struct field_error_list *errs)
{
        return validate_object_meta_update(new_sa, old_sa, errs);
}
