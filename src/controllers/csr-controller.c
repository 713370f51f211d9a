/* csr-controller.c: the approver and the signer of CertificateSigningRequests (see
 * csr-controller.h): the pure decisions (approve or not, sign or fail) and the pass that
 * writes them through the approval and status subresources. */
#include <errno.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <stdlib.h>
#include <string.h>

#include "api/csr.h"
#include "base/alloc.h"
#include "base/base64.h"
#include "base/json.h"
#include "base/timeutil.h"
#include "controllers/controller-loop.h"
#include "controllers/csr-controller.h"

#define PASS_PERIOD_MS (60 * 1000)
#define CSR_PATH       "/apis/certificates.k8s.io/v1/certificatesigningrequests"
/* K8S: signer.go backdate, and the shortest duration honoured */
#define BACKDATE_S     (5 * 60)
#define MIN_DURATION_S (10 * 60)

struct csr_controller {
        struct controller_loop loop;
        char *ca_cert_pem, *ca_key_pem;
        long max_duration_s;
};

static bool has_condition(const json_t *csr, const char *type)
{
        size_t i;
        json_t *c;

        json_array_foreach(json_path(csr, "status.conditions"), i, c)
                if (streq(json_string_value(json_object_get(c, "type")) ?: "", type) &&
                    streq(json_string_value(json_object_get(c, "status")) ?: "True", "True"))
                        return true;
        return false;
}

static bool in_group(const json_t *csr, const char *group)
{
        size_t i;
        json_t *g;

        json_array_foreach(json_path(csr, "spec.groups"), i, g)
                if (streq(json_string_value(g) ?: "", group))
                        return true;
        return false;
}

/* The request's PEM, parsed; -EINVAL with *reterr when it does not parse. */
static int parse_request(const json_t *csr, struct csr_info *ret, struct error **reterr)
{
        const char *b64 = json_path_string(csr, "spec.request");
        cleanup_free char *pem = NULL;
        size_t n = 0;

        if (!b64 || base64_decode(b64, strlen(b64), &pem, &n, reterr) < 0)
                return error_set(reterr, EINVAL, "spec.request is not base64");
        return csr_parse(pem, n, ret, reterr);
}

/* Whether value is one of node's addresses of the given types. */
static bool node_has_address(const json_t *node, const char *const *types, const char *value)
{
        size_t i;
        json_t *a;

        json_array_foreach(json_path(node, "status.addresses"), i, a) {
                const char *t = json_string_value(json_object_get(a, "type")) ?: "";
                const char *v = json_string_value(json_object_get(a, "address")) ?: "";

                for (size_t k = 0; types[k]; k++)
                        if (streq(t, types[k]) && strcasecmp(v, value) == 0)
                                return true;
        }
        return false;
}

static bool serving_names_are_own(const struct csr_info *info, const json_t *node)
{
        static const char *const dns_types[] = { "Hostname", "InternalDNS", "ExternalDNS", NULL };
        static const char *const ip_types[] = { "InternalIP", "ExternalIP", NULL };

        for (size_t i = 0; i < info->n_dns; i++)
                if (!node_has_address(node, dns_types, info->dns[i]))
                        return false;
        for (size_t i = 0; i < info->n_ips; i++)
                if (!node_has_address(node, ip_types, info->ips[i]))
                        return false;
        return true;
}

int csr_approver_decide(const json_t *csr, const json_t *nodes, const char **ret_message)
{
        const char *signer = json_path_string(csr, "spec.signerName") ?: "";
        const char *user = json_path_string(csr, "spec.username") ?: "";
        const json_t *usages = json_path(csr, "spec.usages");
        struct csr_info info;
        int decision = 0;

        /* K8S: handle: nothing to do for a request already decided or issued */
        if (*(json_path_string(csr, "status.certificate") ?: "") ||
            has_condition(csr, "Approved") || has_condition(csr, "Denied"))
                return 0;
        if (parse_request(csr, &info, NULL) < 0)
                return 0;
        if (streq(signer, CSR_SIGNER_KUBE_APISERVER_CLIENT_KUBELET) &&
            csr_check_kubelet_client(&info, usages, NULL) == 0) {
                /* K8S: isSelfNodeClientCert before isNodeClientCert, each with its role */
                if (streq(user, info.cn) && in_group(csr, "system:nodes")) {
                        *ret_message = "Auto approving self kubelet client certificate for a "
                                       "member of system:nodes.";
                        decision = 1;
                } else if (in_group(csr, "system:bootstrappers")) {
                        *ret_message = "Auto approving kubelet client certificate for a member "
                                       "of system:bootstrappers.";
                        decision = 1;
                }
        } else if (streq(signer, CSR_SIGNER_KUBELET_SERVING) &&
                   csr_check_kubelet_serving(&info, usages, NULL) == 0 && streq(user, info.cn) &&
                   in_group(csr, "system:nodes")) {
                const json_t *node = json_object_get(nodes, info.cn + strlen("system:node:"));

                if (node && serving_names_are_own(&info, node)) {
                        *ret_message = "Auto approving kubelet serving certificate for the "
                                       "node's own addresses.";
                        decision = 1;
                }
        }
        csr_info_release(&info);
        return decision;
}

/* K8S: signer.go isRequestForSignerFn for kube-apiserver-client: only client usages. */
static int check_apiserver_client(const json_t *usages, struct error **reterr)
{
        size_t i;
        json_t *u;

        json_array_foreach(usages, i, u) {
                const char *s = json_string_value(u) ?: "";
                if (!streq(s, "digital signature") && !streq(s, "key encipherment") &&
                    !streq(s, "client auth"))
                        return error_set(reterr, EINVAL, "invalid usage for client certificate: %s",
                                         s);
        }
        return 0;
}

/* K8S: certificates/v1 KeyUsage to x509 (pkg/apis/certificates/helpers.go keyUsageDict and
 * extKeyUsageDict) */
static int apply_usages(gnutls_x509_crt_t crt, const json_t *usages)
{
        static const struct {
                const char *name;
                unsigned bit;
        } key[] = {
                { "signing", GNUTLS_KEY_DIGITAL_SIGNATURE },
                { "digital signature", GNUTLS_KEY_DIGITAL_SIGNATURE },
                { "content commitment", GNUTLS_KEY_NON_REPUDIATION },
                { "key encipherment", GNUTLS_KEY_KEY_ENCIPHERMENT },
                { "key agreement", GNUTLS_KEY_KEY_AGREEMENT },
                { "data encipherment", GNUTLS_KEY_DATA_ENCIPHERMENT },
                { "cert sign", GNUTLS_KEY_KEY_CERT_SIGN },
                { "crl sign", GNUTLS_KEY_CRL_SIGN },
                { "encipher only", GNUTLS_KEY_ENCIPHER_ONLY },
                { "decipher only", GNUTLS_KEY_DECIPHER_ONLY },
        };
        static const struct {
                const char *name, *oid;
        } ext[] = {
                { "any", GNUTLS_KP_ANY },
                { "server auth", GNUTLS_KP_TLS_WWW_SERVER },
                { "client auth", GNUTLS_KP_TLS_WWW_CLIENT },
                { "code signing", GNUTLS_KP_CODE_SIGNING },
                { "email protection", GNUTLS_KP_EMAIL_PROTECTION },
                { "s/mime", GNUTLS_KP_EMAIL_PROTECTION },
                { "ipsec end system", "1.3.6.1.5.5.7.3.5" },
                { "ipsec tunnel", "1.3.6.1.5.5.7.3.6" },
                { "ipsec user", "1.3.6.1.5.5.7.3.7" },
                { "timestamping", GNUTLS_KP_TIME_STAMPING },
                { "ocsp signing", GNUTLS_KP_OCSP_SIGNING },
                { "microsoft sgc", "1.3.6.1.4.1.311.10.3.3" },
                { "netscape sgc", "2.16.840.1.113730.4.1" },
        };
        unsigned bits = 0;
        size_t i;
        json_t *u;
        int gr;

        json_array_foreach(usages, i, u) {
                const char *s = json_string_value(u) ?: "";

                for (size_t k = 0; k < ARRAY_SIZE(key); k++)
                        if (streq(s, key[k].name))
                                bits |= key[k].bit;
                for (size_t k = 0; k < ARRAY_SIZE(ext); k++)
                        if (streq(s, ext[k].name) &&
                            (gr = gnutls_x509_crt_set_key_purpose_oid(crt, ext[k].oid, 0)) < 0)
                                return gr;
        }
        if (bits && (gr = gnutls_x509_crt_set_key_usage(crt, bits)) < 0)
                return gr;
        return 0;
}

static int import_ca(const char *cert_pem, const char *key_pem, gnutls_x509_crt_t *ret_crt,
                     gnutls_x509_privkey_t *ret_key)
{
        gnutls_datum_t c = { .data = (unsigned char *) cert_pem,
                             .size = (unsigned) strlen(cert_pem) };
        gnutls_datum_t k = { .data = (unsigned char *) key_pem,
                             .size = (unsigned) strlen(key_pem) };
        int gr;

        if ((gr = gnutls_x509_crt_init(ret_crt)) < 0)
                return gr;
        if ((gr = gnutls_x509_privkey_init(ret_key)) < 0) {
                gnutls_x509_crt_deinit(*ret_crt);
                return gr;
        }
        if ((gr = gnutls_x509_crt_import(*ret_crt, &c, GNUTLS_X509_FMT_PEM)) < 0 ||
            (gr = gnutls_x509_privkey_import2(*ret_key, &k, GNUTLS_X509_FMT_PEM, NULL,
                                              GNUTLS_PKCS_PLAIN)) < 0) {
                gnutls_x509_crt_deinit(*ret_crt);
                gnutls_x509_privkey_deinit(*ret_key);
                return gr;
        }
        return 0;
}

int csr_signer_sign(const char *ca_cert_pem, const char *ca_key_pem, const json_t *csr, time_t now,
                    long max_duration_s, char **ret_pem, struct error **reterr)
{
        const char *signer = json_path_string(csr, "spec.signerName") ?: "";
        const json_t *usages = json_path(csr, "spec.usages");
        const json_t *es = json_path(csr, "spec.expirationSeconds");
        long duration = max_duration_s > 0 ? max_duration_s : CSR_SIGNING_DURATION_DEFAULT_S;
        gnutls_x509_crt_t ca = NULL, crt = NULL;
        gnutls_x509_privkey_t ca_key = NULL;
        gnutls_x509_crq_t crq = NULL;
        gnutls_datum_t d, out = { 0 };
        unsigned char serial[16], id[64];
        size_t id_len = sizeof(id);
        time_t not_after, ca_not_after;
        struct csr_info info;
        int r, gr;

        r = parse_request(csr, &info, reterr);
        if (r < 0)
                return r;
        if (streq(signer, CSR_SIGNER_KUBE_APISERVER_CLIENT_KUBELET))
                r = csr_check_kubelet_client(&info, usages, reterr);
        else if (streq(signer, CSR_SIGNER_KUBELET_SERVING))
                r = csr_check_kubelet_serving(&info, usages, reterr);
        else if (streq(signer, CSR_SIGNER_KUBE_APISERVER_CLIENT))
                r = check_apiserver_client(usages, reterr);
        else
                r = error_set(reterr, EINVAL, "signer \"%s\" is not one this cluster runs", signer);
        if (r < 0) {
                csr_info_release(&info);
                return r;
        }
        /* K8S: signer.duration: the requested seconds within [10 min, the signer's maximum] */
        if (json_is_integer(es) && json_integer_value(es) < duration)
                duration = json_integer_value(es) < MIN_DURATION_S ? MIN_DURATION_S
                                                                   : (long) json_integer_value(es);
        d = (gnutls_datum_t){ .data = (unsigned char *) info.der, .size = (unsigned) info.der_len };
        if ((gr = import_ca(ca_cert_pem, ca_key_pem, &ca, &ca_key)) < 0) {
                csr_info_release(&info);
                return error_set(reterr, EIO, "loading the CA: %s", gnutls_strerror(gr));
        }
        not_after = now + duration;
        /* K8S: authority.go: a certificate never outlives the CA */
        ca_not_after = gnutls_x509_crt_get_expiration_time(ca);
        if (ca_not_after != (time_t) -1 && ca_not_after < not_after)
                not_after = ca_not_after;
        if ((gr = gnutls_rnd(GNUTLS_RND_NONCE, serial, sizeof(serial))) < 0)
                goto fail;
        serial[0] = (unsigned char) ((serial[0] & 0x7f) | 0x40);
        if ((gr = gnutls_x509_crq_init(&crq)) < 0 ||
            (gr = gnutls_x509_crq_import(crq, &d, GNUTLS_X509_FMT_DER)) < 0 ||
            (gr = gnutls_x509_crt_init(&crt)) < 0 ||
            /* subject and public key of the request (its signature checked again) */
            (gr = gnutls_x509_crt_set_crq(crt, crq)) < 0 ||
            (gr = gnutls_x509_crt_set_version(crt, 3)) < 0 ||
            (gr = gnutls_x509_crt_set_serial(crt, serial, sizeof(serial))) < 0 ||
            (gr = gnutls_x509_crt_set_activation_time(crt, now - BACKDATE_S)) < 0 ||
            (gr = gnutls_x509_crt_set_expiration_time(crt, not_after)) < 0 ||
            (gr = gnutls_x509_crt_set_basic_constraints(crt, 0, -1)) < 0 ||
            (gr = apply_usages(crt, usages)) < 0 ||
            (gr = gnutls_x509_crt_get_key_id(crt, 0, id, &id_len)) < 0 ||
            (gr = gnutls_x509_crt_set_subject_key_id(crt, id, id_len)) < 0)
                goto fail;
        /* the request's SANs, which the shape checks above allowed */
        gr = gnutls_x509_crt_set_crq_extension_by_oid(crt, crq, "2.5.29.17", 0);
        if (gr < 0 && gr != GNUTLS_E_REQUESTED_DATA_NOT_AVAILABLE)
                goto fail;
        id_len = sizeof(id);
        if (gnutls_x509_crt_get_subject_key_id(ca, id, &id_len, NULL) >= 0 &&
            (gr = gnutls_x509_crt_set_authority_key_id(crt, id, id_len)) < 0)
                goto fail;
        if ((gr = gnutls_x509_crt_sign2(crt, ca, ca_key, GNUTLS_DIG_SHA256, 0)) < 0 ||
            (gr = gnutls_x509_crt_export2(crt, GNUTLS_X509_FMT_PEM, &out)) < 0)
                goto fail;
        *ret_pem = xstrndup((const char *) out.data, out.size);
        gnutls_free(out.data);
        r = 0;
        goto done;
fail:
        r = error_set(reterr, EIO, "signing: %s", gnutls_strerror(gr));
done:
        if (crt)
                gnutls_x509_crt_deinit(crt);
        if (crq)
                gnutls_x509_crq_deinit(crq);
        gnutls_x509_crt_deinit(ca);
        gnutls_x509_privkey_deinit(ca_key);
        csr_info_release(&info);
        return r;
}

/* PUTs csr (modified) to its subresource; a conflict or a failure waits for the next pass. */
static void put_subresource(struct api_client *c, json_t *csr, const char *sub)
{
        cleanup_free char *path =
                xasprintf(CSR_PATH "/%s/%s", json_path_string_or_empty(csr, "metadata.name"), sub);
        cleanup_free char *body = json_dump_compact(csr);
        long status = 0;

        (void) api_client_request(c, "PUT", path, "application/json", body, strlen(body), &status,
                                  NULL, NULL);
}

static void append_condition(json_t *csr, const char *type, const char *reason, const char *message)
{
        json_t *status = json_object_ensure(csr, "status");
        json_t *conds = json_object_get(status, "conditions");
        char now[32];

        if (!json_is_array(conds)) {
                conds = json_array();
                json_object_set_new(status, "conditions", conds);
        }
        time_format_rfc3339(time(NULL), now);
        json_array_append_new(conds,
                              json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "type", type, "status",
                                        "True", "reason", reason, "message", message,
                                        "lastUpdateTime", now, "lastTransitionTime", now));
}

static void csr_pass(void *ctx)
{
        struct csr_controller *x = ctx;
        cleanup_json json_t *csrs = informer_snapshot(x->loop.watch, 0);
        cleanup_json json_t *nodes = informer_snapshot(x->loop.watch, 1);
        const char *key;
        json_t *csr;

        json_object_foreach(csrs, key, csr) {
                const char *message = NULL;
                cleanup_json json_t *copy = NULL;
                cleanup_error struct error *err = NULL;
                cleanup_free char *pem = NULL;
                int r;

                if (csr_approver_decide(csr, nodes, &message) == 1) {
                        copy = json_deep_copy(csr);
                        append_condition(copy, "Approved", "AutoApproved", message);
                        put_subresource(x->loop.client, copy, "approval");
                        /* signed at the next pass, on the approved object's event */
                        continue;
                }
                /* K8S: signer.handle: approved, not failed, not yet issued */
                if (!has_condition(csr, "Approved") || has_condition(csr, "Failed") ||
                    *(json_path_string(csr, "status.certificate") ?: ""))
                        continue;
                r = csr_signer_sign(x->ca_cert_pem, x->ca_key_pem, csr, time(NULL),
                                    x->max_duration_s, &pem, &err);
                copy = json_deep_copy(csr);
                if (r == -EINVAL) {
                        /* K8S: an unknown signer is another controller's business */
                        const char *signer = json_path_string_or_empty(csr, "spec.signerName");
                        if (!streq(signer, CSR_SIGNER_KUBE_APISERVER_CLIENT_KUBELET) &&
                            !streq(signer, CSR_SIGNER_KUBELET_SERVING) &&
                            !streq(signer, CSR_SIGNER_KUBE_APISERVER_CLIENT))
                                continue;
                        append_condition(copy, "Failed", "SignerValidationFailure", err->message);
                } else if (r < 0) {
                        continue;
                } else {
                        cleanup_free char *b64 = base64_encode(pem, strlen(pem));
                        json_object_set_new(json_object_ensure(copy, "status"), "certificate",
                                            json_string(b64));
                }
                put_subresource(x->loop.client, copy, "status");
        }
}

static void csr_release(void *ctx)
{
        struct csr_controller *x = ctx;

        free(x->ca_cert_pem);
        if (x->ca_key_pem)
                explicit_bzero(x->ca_key_pem, strlen(x->ca_key_pem));
        free(x->ca_key_pem);
        free(x);
}

int csr_controller_start(const struct api_client_options *o,
                         const struct csr_controller_options *co, struct csr_controller **ret,
                         struct error **reterr)
{
        static const char *const paths[] = { CSR_PATH, "/api/v1/nodes", NULL };
        const struct controller_loop_def def = { .name = "csr",
                                                 .paths = paths,
                                                 .period_ms = PASS_PERIOD_MS,
                                                 .pass = csr_pass,
                                                 .release = csr_release };
        struct csr_controller *x;
        int r;

        if (!co->ca_cert_pem || !co->ca_key_pem)
                return error_set(reterr, EINVAL, "certificate signer: no CA");
        x = xcalloc(1, sizeof(*x));
        x->ca_cert_pem = xstrdup(co->ca_cert_pem);
        x->ca_key_pem = xstrdup(co->ca_key_pem);
        x->max_duration_s = co->max_duration_s;
        r = controller_loop_start(o, &def, x, &x->loop, reterr);
        if (r < 0) {
                csr_release(x);
                return r;
        }
        *ret = x;
        return 0;
}

struct csr_controller *csr_controller_stop(struct csr_controller *x)
{
        if (x)
                controller_loop_stop(&x->loop);
        return NULL;
}
