/* validation-certificates.c: validation of CertificateSigningRequests as kube-apiserver 1.33
 * does it for certificates.k8s.io/v1 (K8S: pkg/apis/certificates/validation
 * validateCertificateSigningRequest, validateConditions, validateCertificate, the update rules
 * of approval and denial conditions; pkg/apis/core/validation ValidateSignerName). The object
 * arrives checked by schema_check: request and certificate are base64 strings when present. */
#include <string.h>

#include "api/csr.h"
#include "api/validation-internal.h"
#include "api/validation.h"
#include "base/alloc.h"
#include "base/base64.h"
#include "base/json.h"
#include "base/strbuf.h"

/* K8S: sets.List(allValidUsages): sorted */
static const char *const usages_sorted[] = {
        "any",
        "cert sign",
        "client auth",
        "code signing",
        "content commitment",
        "crl sign",
        "data encipherment",
        "decipher only",
        "digital signature",
        "email protection",
        "encipher only",
        "ipsec end system",
        "ipsec tunnel",
        "ipsec user",
        "key agreement",
        "key encipherment",
        "microsoft sgc",
        "netscape sgc",
        "ocsp signing",
        "s/mime",
        "server auth",
        "signing",
        "timestamping",
        NULL,
};

static const char *const true_false_unknown[] = { "True", "False", "Unknown", NULL };

/* Go's %#v of a []byte: []byte{0x2d, 0x2d, ...} */
static char *go_bytes(const char *b, size_t n)
{
        struct strbuf sb;

        strbuf_init(&sb);
        strbuf_addstr(&sb, "[]byte{");
        for (size_t i = 0; i < n; i++)
                strbuf_addf(&sb, "%s0x%x", i ? ", " : "", (unsigned char) b[i]);
        strbuf_addstr(&sb, "}");
        return strbuf_detach(&sb);
}

/* The decoded bytes of a []byte field ("" when absent). */
static char *field_bytes(const json_t *obj, const char *path, size_t *ret_len)
{
        const char *b64 = json_path_string(obj, path);
        char *out = NULL;

        *ret_len = 0;
        if (!b64 || base64_decode(b64, strlen(b64), &out, ret_len, NULL) < 0)
                return xstrdup("");
        return out;
}

/* K8S: ValidateSignerName */
static void validate_signer_name(const char *name, struct field_error_list *errs)
{
        const char *slash = strchr(name, '/');
        cleanup_free char *domain = NULL;
        const char *path;
        size_t labels = 0;

        if (!*name) {
                verr_str(errs, FIELD_ERROR_REQUIRED, "spec.signerName", NULL, "");
                return;
        }
        if (!slash || strchr(slash + 1, '/')) {
                verr_str(errs, FIELD_ERROR_INVALID, "spec.signerName", name,
                         "must be a fully qualified domain and path of the form "
                         "'example.com/signer-name'");
                return;
        }
        domain = xstrndup(name, (size_t) (slash - name));
        path = slash + 1;
        if (strlen(domain) > 253)
                verr_str(errs, FIELD_ERROR_TOO_LONG, "spec.signerName", domain,
                         "may not be more than 253 bytes");
        {
                cleanup_free char *copy = xstrdup(domain);
                char *save = NULL, *p = copy;

                for (;;) {
                        char *dot = strchr(p, '.');
                        struct field_error_list one;

                        if (dot)
                                *dot = '\0';
                        labels++;
                        field_error_list_init(&one);
                        if (validate_dns1123_label(p, "x", &one) > 0) {
                                cleanup_free char *detail = xasprintf("validating label \"%s\": %s",
                                                                      p, one.items[0].detail);
                                verr_str(errs, FIELD_ERROR_INVALID, "spec.signerName", domain,
                                         detail);
                                field_error_list_release(&one);
                                break;
                        }
                        field_error_list_release(&one);
                        if (!dot)
                                break;
                        p = dot + 1;
                }
                (void) save;
        }
        if (!strchr(domain, '.'))
                verr_str(errs, FIELD_ERROR_INVALID, "spec.signerName", domain,
                         "should be a domain with at least two segments separated by dots");
        if (strlen(path) > 253)
                verr_str(errs, FIELD_ERROR_TOO_LONG, "spec.signerName", path,
                         "may not be more than 253 bytes");
        else
                (void) validate_dns1123_subdomain(path, "spec.signerName", errs);
}

static void validate_conditions(const json_t *csr, struct field_error_list *errs)
{
        const json_t *conds = json_path(csr, "status.conditions");
        bool approved = false, denied = false;
        cleanup_json json_t *seen = json_object();
        size_t i;
        json_t *c;

        json_array_foreach(conds, i, c) {
                const char *type = json_string_value(json_object_get(c, "type")) ?: "";
                const char *status = json_string_value(json_object_get(c, "status")) ?: "";
                cleanup_free char *ftype = xasprintf("status.conditions[%zu].type", i);
                cleanup_free char *fstatus = xasprintf("status.conditions[%zu].status", i);

                if (!*type)
                        verr_str(errs, FIELD_ERROR_REQUIRED, ftype, NULL, "");
                if (!*status)
                        verr_str(errs, FIELD_ERROR_REQUIRED, fstatus, NULL, "");
                else if (!streq(status, "True") && !streq(status, "False") &&
                         !streq(status, "Unknown"))
                        verr_not_supported(errs, fstatus, status, true_false_unknown);
                if (*type && json_object_get(seen, type))
                        verr_str(errs, FIELD_ERROR_DUPLICATE, ftype, type, NULL);
                json_object_set_new(seen, type, json_true());
                /* K8S: approval and denial conditions are only ever True */
                if ((streq(type, "Approved") || streq(type, "Denied")) && *status &&
                    !streq(status, "True"))
                        verr_not_supported(errs, fstatus, status,
                                           (const char *const[]){ "True", NULL });
                approved = approved || streq(type, "Approved");
                denied = denied || streq(type, "Denied");
        }
        if (approved && denied)
                verr_raw(errs, FIELD_ERROR_INVALID, "status.conditions", "null",
                         "Approved and Denied conditions are mutually exclusive");
}

static void validate_certificate(const json_t *csr, struct field_error_list *errs)
{
        size_t n;
        cleanup_free char *pem = field_bytes(csr, "status.certificate", &n);
        cleanup_error struct error *err = NULL;

        if (n && csr_certificate_check(pem, n, &err) < 0)
                verr_str(errs, FIELD_ERROR_INVALID, "status.certificate", "<certificate data>",
                         err->message);
}

static void validate_csr(const json_t *csr, struct field_error_list *errs)
{
        const json_t *usages = json_path(csr, "spec.usages");
        const json_t *es = json_path(csr, "spec.expirationSeconds");
        const char *signer = json_path_string(csr, "spec.signerName") ?: "";
        cleanup_json json_t *seen = json_object();
        size_t n, i;
        cleanup_free char *req = field_bytes(csr, "spec.request", &n);
        cleanup_error struct error *err = NULL;
        struct csr_info info;
        json_t *u;

        (void) validate_object_meta_create_named(csr, false, OBJECT_NAME_PATH_SEGMENT, errs);
        if (csr_parse(req, n, &info, &err) < 0) {
                cleanup_free char *shown = go_bytes(req, n);
                verr_raw(errs, FIELD_ERROR_INVALID, "spec.request", shown, err->message);
        } else {
                csr_info_release(&info);
        }
        if (json_array_size(usages) == 0)
                verr_str(errs, FIELD_ERROR_REQUIRED, "spec.usages", NULL,
                         "usages must be provided");
        json_array_foreach(usages, i, u) {
                const char *s = json_string_value(u) ?: "";
                cleanup_free char *f = xasprintf("spec.usages[%zu]", i);

                if (!csr_key_usage_valid(s))
                        verr_not_supported(errs, f, s, usages_sorted);
                if (json_object_get(seen, s))
                        verr_str(errs, FIELD_ERROR_DUPLICATE, f, s, NULL);
                json_object_set_new(seen, s, json_true());
        }
        if (streq(signer, CSR_SIGNER_LEGACY_UNKNOWN))
                verr_str(errs, FIELD_ERROR_INVALID, "spec.signerName", signer,
                         "the legacy signerName is not allowed via this API version");
        else
                validate_signer_name(signer, errs);
        if (json_is_integer(es) && json_integer_value(es) < 600)
                verr_int(errs, FIELD_ERROR_INVALID, "spec.expirationSeconds",
                         (long long) json_integer_value(es),
                         "may not specify a duration less than 600 seconds (10 minutes)");
        validate_conditions(csr, errs);
        validate_certificate(csr, errs);
}

size_t validate_certificate_signing_request(const json_t *csr, struct field_error_list *errs)
{
        size_t before = errs->n;

        validate_csr(csr, errs);
        return errs->n - before;
}

/* K8S: once set, approval and denial conditions are neither removed nor changed, and an issued
 * certificate is not replaced. */
static void validate_immutable_status(const json_t *new_csr, const json_t *old_csr,
                                      struct field_error_list *errs)
{
        static const char *const types[] = { "Approved", "Denied" };
        const char *old_cert = json_path_string(old_csr, "status.certificate");

        for (size_t t = 0; t < 2; t++) {
                const json_t *oldc = NULL, *newc = NULL;
                size_t i;
                json_t *c;

                json_array_foreach(json_path(old_csr, "status.conditions"), i, c)
                        if (streq(json_string_value(json_object_get(c, "type")) ?: "", types[t]))
                                oldc = c;
                json_array_foreach(json_path(new_csr, "status.conditions"), i, c)
                        if (streq(json_string_value(json_object_get(c, "type")) ?: "", types[t]))
                                newc = c;
                if (oldc && !newc) {
                        cleanup_free char *d = xasprintf(
                                "updates may not remove a condition of type \"%s\"", types[t]);
                        verr_raw(errs, FIELD_ERROR_FORBIDDEN, "status.conditions", NULL, d);
                } else if (oldc && !json_equal((json_t *) oldc, (json_t *) newc)) {
                        cleanup_free char *d = xasprintf(
                                "updates may not modify a condition of type \"%s\"", types[t]);
                        verr_raw(errs, FIELD_ERROR_FORBIDDEN, "status.conditions", NULL, d);
                }
        }
        if (old_cert && *old_cert &&
            !streq(old_cert, json_path_string(new_csr, "status.certificate") ?: ""))
                verr_str(errs, FIELD_ERROR_INVALID, "status.certificate", "<certificate data>",
                         "updates may not modify existing certificate content");
}

size_t validate_certificate_signing_request_update(const json_t *new_csr, const json_t *old_csr,
                                                   struct field_error_list *errs)
{
        size_t before = errs->n;
        struct field_error_list all;

        /* K8S: the create rules run again (minus the name), then the metadata update */
        field_error_list_init(&all);
        validate_csr(new_csr, &all);
        for (size_t i = 0; i < all.n; i++)
                if (strncmp(all.items[i].field, "metadata.", 9) != 0)
                        field_error_add(errs, all.items[i].type, all.items[i].field,
                                        all.items[i].bad_value, "%s", all.items[i].detail);
        field_error_list_release(&all);
        (void) validate_object_meta_update(new_csr, old_csr, errs);
        validate_immutable_status(new_csr, old_csr, errs);
        return errs->n - before;
}
