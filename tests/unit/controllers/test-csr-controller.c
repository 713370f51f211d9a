/* test-csr-controller.c: CertificateSigningRequests: csr_parse (PEM block, signature), the
 * kubelet client and serving shape rules (api/csr.h), the approver's decisions and the signer's
 * certificates (csr-controller.h), over requests made with node/bootstrap.h. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <stdlib.h>
#include <string.h>

#include "api/csr.h"
#include "base/base64.h"
#include "base/error.h"
#include "base/json.h"
#include "controllers/csr-controller.h"
#include "node/bootstrap.h"

static char *new_key(void)
{
        gnutls_x509_privkey_t key;
        gnutls_datum_t out = { 0 };
        char *pem;

        assert_int_equal(gnutls_x509_privkey_init(&key), 0);
        assert_int_equal(gnutls_x509_privkey_generate2(
                                 key, GNUTLS_PK_ECDSA,
                                 GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1), 0, NULL, 0),
                         0);
        assert_int_equal(gnutls_x509_privkey_export2_pkcs8(key, GNUTLS_X509_FMT_PEM, NULL,
                                                           GNUTLS_PKCS_PLAIN, &out),
                         0);
        pem = strndup((const char *) out.data, out.size);
        gnutls_free(out.data);
        gnutls_x509_privkey_deinit(key);
        return pem;
}

static char *make_csr(const char *org, const char *cn, const char *const *dns,
                      const char *const *ips)
{
        char *key = new_key(), *pem = NULL;

        assert_int_equal(bootstrap_make_csr(key, org, cn, dns, ips, &pem, NULL), 0);
        free(key);
        return pem;
}

/* A CSR object as the API stores it. */
static json_t *csr_object(const char *pem, const char *signer, const char *usages_csv,
                          const char *user, const char *group)
{
        char *b64 = base64_encode(pem, strlen(pem));
        json_t *o = json_pack("{s:{s:s}, s:{s:s, s:s, s:s, s:[s], s:[]}}", "metadata", "name", "c",
                              "spec", "request", b64, "signerName", signer, "username", user,
                              "groups", group, "usages");
        char *copy = strdup(usages_csv), *save = NULL;

        for (char *u = strtok_r(copy, ",", &save); u; u = strtok_r(NULL, ",", &save))
                json_array_append_new(json_path(o, "spec.usages"), json_string(u));
        free(copy);
        free(b64);
        return o;
}

static void test_parse(void **state)
{
        const char *dns[] = { "n1.example", NULL };
        const char *ips[] = { "192.0.2.7", "::1", NULL };
        char *pem = make_csr("system:nodes", "system:node:n1", dns, ips);
        struct csr_info info;

        assert_int_equal(csr_parse(pem, strlen(pem), &info, NULL), 0);
        assert_string_equal(info.cn, "system:node:n1");
        assert_int_equal(info.n_orgs, 1);
        assert_string_equal(info.orgs[0], "system:nodes");
        assert_int_equal(info.n_dns, 1);
        assert_string_equal(info.dns[0], "n1.example");
        assert_int_equal(info.n_ips, 2);
        assert_string_equal(info.ips[0], "192.0.2.7");
        assert_string_equal(info.ips[1], "::1");
        csr_info_release(&info);
        free(pem);
}

static void test_parse_refusals(void **state)
{
        char *pem = make_csr("system:nodes", "system:node:n1", NULL, NULL);
        char *renamed, *tampered, *p;
        struct error *err = NULL;
        struct csr_info info;

        /* K8S: ParseCSR: the first block must be a CERTIFICATE REQUEST */
        assert_int_equal(csr_parse("hello", 5, &info, &err), -EINVAL);
        assert_string_equal(err->message, "PEM block type must be CERTIFICATE REQUEST");
        error_free(err);
        err = NULL;
        /* GnuTLS's own spelling, "NEW CERTIFICATE REQUEST", is another type for Go */
        renamed = strdup("-----BEGIN NEW CERTIFICATE REQUEST-----\nMIIBAA==\n"
                         "-----END NEW CERTIFICATE REQUEST-----\n");
        assert_int_equal(csr_parse(renamed, strlen(renamed), &info, &err), -EINVAL);
        assert_string_equal(err->message, "PEM block type must be CERTIFICATE REQUEST");
        error_free(err);
        err = NULL;
        /* a body that does not parse, or whose signature does not check */
        tampered = strdup(pem);
        p = strstr(tampered, "\n") + 30;
        *p = *p == 'A' ? 'B' : 'A';
        assert_int_equal(csr_parse(tampered, strlen(tampered), &info, &err), -EINVAL);
        assert_non_null(strstr(err->message, "x509: "));
        error_free(err);
        free(tampered);
        free(renamed);
        free(pem);
}

static void test_kubelet_client_shape(void **state)
{
        static const struct {
                const char *org, *cn, *dns, *usages, *message;
        } cases[] = {
                { "system:nodes", "system:node:n1", NULL, "digital signature,client auth", NULL },
                { "system:nodes", "system:node:n1", NULL,
                  "digital signature,key encipherment,client auth", NULL },
                { "system:masters", "system:node:n1", NULL, "digital signature,client auth",
                  "subject organization is not system:nodes" },
                { "system:nodes", "n1", NULL, "digital signature,client auth",
                  "subject common name does not begin with system:node:" },
                { "system:nodes", "system:node:n1", "n1", "digital signature,client auth",
                  "DNS subjectAltNames are not allowed" },
                { "system:nodes", "system:node:n1", NULL, "digital signature,server auth",
                  "usages did not match [client auth digital signature key encipherment]" },
                { "system:nodes", "system:node:n1", NULL, "client auth",
                  "usages did not match [client auth digital signature key encipherment]" },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                const char *dns[] = { cases[i].dns, NULL };
                char *pem = make_csr(cases[i].org, cases[i].cn, dns, NULL);
                json_t *o = csr_object(pem, CSR_SIGNER_KUBE_APISERVER_CLIENT_KUBELET,
                                       cases[i].usages, "u", "g");
                struct error *err = NULL;
                struct csr_info info;
                int r;

                assert_int_equal(csr_parse(pem, strlen(pem), &info, NULL), 0);
                r = csr_check_kubelet_client(&info, json_path(o, "spec.usages"), &err);
                if (cases[i].message) {
                        assert_int_equal(r, -EINVAL);
                        assert_string_equal(err->message, cases[i].message);
                } else {
                        assert_int_equal(r, 0);
                }
                error_free(err);
                csr_info_release(&info);
                json_decref(o);
                free(pem);
        }
}

static json_t *nodes_with(const char *name, const char *ip, const char *host)
{
        return json_pack("{s:{s:{s:[{s:s, s:s}, {s:s, s:s}]}}}", name, "status", "addresses",
                         "type", "InternalIP", "address", ip, "type", "Hostname", "address", host);
}

static void test_approver(void **state)
{
        const char *own_ip[] = { "192.0.2.7", NULL }, *other_ip[] = { "192.0.2.8", NULL };
        const char *own_dns[] = { "host1", NULL };
        char *client = make_csr("system:nodes", "system:node:n1", NULL, NULL);
        char *serving = make_csr("system:nodes", "system:node:n1", own_dns, own_ip);
        char *foreign = make_csr("system:nodes", "system:node:n1", NULL, other_ip);
        json_t *nodes = nodes_with("n1", "192.0.2.7", "host1");
        static const char *const cu = "digital signature,client auth";
        static const char *const su = "digital signature,server auth";
        const struct {
                const char *pem, *signer, *usages, *user, *group;
                int want;
        } cases[] = {
                /* nodeclient: any bootstrapper may ask for a node's client certificate */
                { client, CSR_SIGNER_KUBE_APISERVER_CLIENT_KUBELET, cu, "system:bootstrap:abc123",
                  "system:bootstrappers", 1 },
                /* selfnodeclient: a node renewing its own */
                { client, CSR_SIGNER_KUBE_APISERVER_CLIENT_KUBELET, cu, "system:node:n1",
                  "system:nodes", 1 },
                /* another node asking for n1's: neither */
                { client, CSR_SIGNER_KUBE_APISERVER_CLIENT_KUBELET, cu, "system:node:n2",
                  "system:nodes", 0 },
                /* anybody else */
                { client, CSR_SIGNER_KUBE_APISERVER_CLIENT_KUBELET, cu, "alice",
                  "system:authenticated", 0 },
                /* the right requester, the wrong shape */
                { client, CSR_SIGNER_KUBE_APISERVER_CLIENT_KUBELET, su, "system:bootstrap:abc123",
                  "system:bootstrappers", 0 },
                /* a client certificate of another signer is never auto-approved */
                { client, CSR_SIGNER_KUBE_APISERVER_CLIENT, cu, "system:bootstrap:abc123",
                  "system:bootstrappers", 0 },
                /* serving: the node itself, for its own addresses */
                { serving, CSR_SIGNER_KUBELET_SERVING, su, "system:node:n1", "system:nodes", 1 },
                { serving, CSR_SIGNER_KUBELET_SERVING, su, "system:bootstrap:abc123",
                  "system:bootstrappers", 0 },
                { foreign, CSR_SIGNER_KUBELET_SERVING, su, "system:node:n1", "system:nodes", 0 },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                json_t *o = csr_object(cases[i].pem, cases[i].signer, cases[i].usages,
                                       cases[i].user, cases[i].group);
                const char *message = NULL;

                assert_int_equal(csr_approver_decide(o, nodes, &message), cases[i].want);
                if (cases[i].want)
                        assert_non_null(message);
                json_decref(o);
        }
        {
                /* decided once: an approved or denied request is left alone */
                json_t *o = csr_object(client, CSR_SIGNER_KUBE_APISERVER_CLIENT_KUBELET, cu,
                                       "system:bootstrap:abc123", "system:bootstrappers");
                const char *message = NULL;

                json_object_set_new(o, "status",
                                    json_pack("{s:[{s:s, s:s}]}", "conditions", "type", "Denied",
                                              "status", "True"));
                assert_int_equal(csr_approver_decide(o, nodes, &message), 0);
                json_decref(o);
        }
        /* serving without the Node known: not approved */
        {
                json_t *o = csr_object(serving, CSR_SIGNER_KUBELET_SERVING, su, "system:node:n1",
                                       "system:nodes");
                const char *message = NULL;

                assert_int_equal(csr_approver_decide(o, NULL, &message), 0);
                json_decref(o);
        }
        json_decref(nodes);
        free(client);
        free(serving);
        free(foreign);
}

/* A self-signed CA for the signer. */
static void make_ca(char **ret_cert, char **ret_key)
{
        gnutls_x509_crt_t crt;
        gnutls_x509_privkey_t key;
        gnutls_datum_t out = { 0 };
        char *key_pem = new_key();
        gnutls_datum_t k = { (unsigned char *) key_pem, (unsigned) strlen(key_pem) };
        unsigned char serial[] = { 1 };
        time_t now = time(NULL);

        assert_int_equal(gnutls_x509_privkey_init(&key), 0);
        assert_int_equal(
                gnutls_x509_privkey_import2(key, &k, GNUTLS_X509_FMT_PEM, NULL, GNUTLS_PKCS_PLAIN),
                0);
        assert_int_equal(gnutls_x509_crt_init(&crt), 0);
        assert_int_equal(gnutls_x509_crt_set_version(crt, 3), 0);
        assert_int_equal(gnutls_x509_crt_set_serial(crt, serial, 1), 0);
        assert_int_equal(
                gnutls_x509_crt_set_dn_by_oid(crt, GNUTLS_OID_X520_COMMON_NAME, 0, "ca", 2), 0);
        assert_int_equal(gnutls_x509_crt_set_activation_time(crt, now - 60), 0);
        /* the CA expires in 30 days: certificates stop there */
        assert_int_equal(gnutls_x509_crt_set_expiration_time(crt, now + 30 * 86400), 0);
        assert_int_equal(gnutls_x509_crt_set_key(crt, key), 0);
        assert_int_equal(gnutls_x509_crt_set_basic_constraints(crt, 1, -1), 0);
        assert_int_equal(gnutls_x509_crt_set_key_usage(crt, GNUTLS_KEY_KEY_CERT_SIGN), 0);
        assert_int_equal(gnutls_x509_crt_sign2(crt, crt, key, GNUTLS_DIG_SHA256, 0), 0);
        assert_int_equal(gnutls_x509_crt_export2(crt, GNUTLS_X509_FMT_PEM, &out), 0);
        *ret_cert = strndup((const char *) out.data, out.size);
        *ret_key = key_pem;
        gnutls_free(out.data);
        gnutls_x509_crt_deinit(crt);
        gnutls_x509_privkey_deinit(key);
}

static time_t validity_of(const char *pem, time_t *ret_not_before)
{
        gnutls_x509_crt_t crt;
        gnutls_datum_t d = { (unsigned char *) pem, (unsigned) strlen(pem) };
        time_t t;

        assert_int_equal(gnutls_x509_crt_init(&crt), 0);
        assert_int_equal(gnutls_x509_crt_import(crt, &d, GNUTLS_X509_FMT_PEM), 0);
        t = gnutls_x509_crt_get_expiration_time(crt);
        *ret_not_before = gnutls_x509_crt_get_activation_time(crt);
        gnutls_x509_crt_deinit(crt);
        return t;
}

static void test_signer(void **state)
{
        char *ca_cert, *ca_key, *out = NULL;
        char *client = make_csr("system:nodes", "system:node:n1", NULL, NULL);
        char *bad = make_csr("system:masters", "system:node:n1", NULL, NULL);
        time_t now = time(NULL), nb;
        struct error *err = NULL;
        json_t *o;

        make_ca(&ca_cert, &ca_key);
        o = csr_object(client, CSR_SIGNER_KUBE_APISERVER_CLIENT_KUBELET,
                       "digital signature,client auth", "u", "g");
        /* one day asked: one day given, backdated 5 minutes */
        json_object_set_new(json_object_get(o, "spec"), "expirationSeconds", json_integer(86400));
        assert_int_equal(csr_signer_sign(ca_cert, ca_key, o, now, 0, &out, NULL), 0);
        assert_int_equal(validity_of(out, &nb), now + 86400);
        assert_int_equal(nb, now - 300);
        free(out);
        /* less than 10 minutes: 10 minutes */
        json_object_set_new(json_object_get(o, "spec"), "expirationSeconds", json_integer(60));
        assert_int_equal(csr_signer_sign(ca_cert, ca_key, o, now, 0, &out, NULL), 0);
        assert_int_equal(validity_of(out, &nb), now + 600);
        free(out);
        /* more than the signer's maximum: the maximum */
        json_object_set_new(json_object_get(o, "spec"), "expirationSeconds",
                            json_integer(7 * 86400));
        assert_int_equal(csr_signer_sign(ca_cert, ca_key, o, now, 3600, &out, NULL), 0);
        assert_int_equal(validity_of(out, &nb), now + 3600);
        free(out);
        /* never past the CA */
        json_object_del(json_object_get(o, "spec"), "expirationSeconds");
        assert_int_equal(csr_signer_sign(ca_cert, ca_key, o, now, 0, &out, NULL), 0);
        assert_true(validity_of(out, &nb) <= now + 30 * 86400);
        free(out);
        json_decref(o);
        /* a shape the signer refuses: -EINVAL, the Failed condition's message */
        o = csr_object(bad, CSR_SIGNER_KUBE_APISERVER_CLIENT_KUBELET,
                       "digital signature,client auth", "u", "g");
        assert_int_equal(csr_signer_sign(ca_cert, ca_key, o, now, 0, &out, &err), -EINVAL);
        assert_string_equal(err->message, "subject organization is not system:nodes");
        error_free(err);
        json_decref(o);
        free(ca_cert);
        free(ca_key);
        free(client);
        free(bad);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse),
                cmocka_unit_test(test_parse_refusals),
                cmocka_unit_test(test_kubelet_client_shape),
                cmocka_unit_test(test_approver),
                cmocka_unit_test(test_signer),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
