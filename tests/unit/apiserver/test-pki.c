/* test-pki.c: the API server's CA, serving certificate, admin token and kubeconfig.
 * Every test works in its own temporary data directory. Certificates are checked with GnuTLS
 * the way a TLS client would: chain verification against the CA with a host name and the
 * serverAuth purpose, then field by field. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#include "apiserver/pki.h"
#include "base/alloc.h"
#include "base/error.h"

#define URL "https://127.0.0.1:6443"
#define DAY ((time_t) 24 * 60 * 60)

static const char *const default_dns[] = { "localhost", "node-1.example.test", NULL };
static const char *const default_ips[] = { "127.0.0.1", "::1", NULL };

struct fixture {
        char root[64];
        char *data_dir;
};

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
        return remove(path);
}

static int setup(void **state)
{
        struct fixture *fx = xcalloc(1, sizeof(*fx));

        snprintf(fx->root, sizeof(fx->root), "/tmp/flexlet-test-pki-XXXXXX");
        if (!mkdtemp(fx->root))
                return -1;
        /* Not created yet: pki_ensure makes the data directory itself. */
        fx->data_dir = xasprintf("%s/data", fx->root);
        *state = fx;
        return 0;
}

static int teardown(void **state)
{
        struct fixture *fx = *state;

        nftw(fx->root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        free(fx->data_dir);
        free(fx);
        return 0;
}

static char *path_of(const struct fixture *fx, const char *rel)
{
        return xasprintf("%s/%s", fx->data_dir, rel);
}

/* The file's content, or NULL when it does not exist. */
static char *slurp(const struct fixture *fx, const char *rel)
{
        cleanup_free char *path = path_of(fx, rel);
        FILE *f = fopen(path, "re");
        char *buf;
        size_t n;

        if (!f)
                return NULL;
        buf = xcalloc(1, 256 * 1024);
        n = fread(buf, 1, 256 * 1024 - 1, f);
        buf[n] = '\0';
        fclose(f);
        return buf;
}

static void spill(const struct fixture *fx, const char *rel, const char *text, mode_t mode)
{
        cleanup_free char *path = path_of(fx, rel);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

        assert_true(fd >= 0);
        assert_int_equal(write(fd, text, strlen(text)), (ssize_t) strlen(text));
        assert_int_equal(close(fd), 0);
}

static mode_t mode_of(const struct fixture *fx, const char *rel)
{
        cleanup_free char *path = path_of(fx, rel);
        struct stat st;

        assert_int_equal(stat(path, &st), 0);
        return st.st_mode & 07777;
}

static int ensure_with(const struct fixture *fx, const char *const *dns, const char *const *ips,
                       const char *url, struct pki **ret, struct error **reterr)
{
        struct pki_options o = {
                .data_dir = fx->data_dir,
                .dns_names = dns,
                .ip_addresses = ips,
                .server_url = url,
        };
        return pki_ensure(&o, ret, reterr);
}

/* pki_ensure with the default names, which must succeed; returns the change mask. */
static int ensure_ok(const struct fixture *fx, struct pki **ret)
{
        cleanup_error struct error *err = NULL;
        int r = ensure_with(fx, default_dns, default_ips, URL, ret, &err);

        if (r < 0)
                fail_msg("pki_ensure: %s", err ? err->message : "(no message)");
        return r;
}

static gnutls_x509_crt_t cert_from_pem(const char *pem)
{
        gnutls_datum_t d = { .data = (unsigned char *) pem, .size = (unsigned) strlen(pem) };
        gnutls_x509_crt_t crt;

        assert_int_equal(gnutls_x509_crt_init(&crt), 0);
        assert_int_equal(gnutls_x509_crt_import(crt, &d, GNUTLS_X509_FMT_PEM), 0);
        return crt;
}

static gnutls_x509_privkey_t key_from_pem(const char *pem)
{
        gnutls_datum_t d = { .data = (unsigned char *) pem, .size = (unsigned) strlen(pem) };
        gnutls_x509_privkey_t key;

        assert_int_equal(gnutls_x509_privkey_init(&key), 0);
        assert_int_equal(gnutls_x509_privkey_import2(key, &d, GNUTLS_X509_FMT_PEM, NULL, 0), 0);
        return key;
}

/* The certificate's SANs as "DNS:name" / "IP:addr" joined by commas, in certificate order. */
static char *sans_of(gnutls_x509_crt_t crt)
{
        char out[1024] = "";

        for (unsigned seq = 0;; seq++) {
                unsigned char buf[256];
                char ip[INET6_ADDRSTRLEN];
                size_t len = sizeof(buf) - 1;
                unsigned type;
                int r = gnutls_x509_crt_get_subject_alt_name2(crt, seq, buf, &len, &type, NULL);
                if (r == GNUTLS_E_REQUESTED_DATA_NOT_AVAILABLE)
                        break;
                assert_true(r >= 0);
                if (out[0])
                        strcat(out, ",");
                if (type == GNUTLS_SAN_DNSNAME) {
                        buf[len] = '\0';
                        strcat(out, "DNS:");
                        strcat(out, (const char *) buf);
                } else if (type == GNUTLS_SAN_IPADDRESS) {
                        assert_true(len == 4 || len == 16);
                        assert_non_null(
                                inet_ntop(len == 4 ? AF_INET : AF_INET6, buf, ip, sizeof(ip)));
                        strcat(out, "IP:");
                        strcat(out, ip);
                } else {
                        strcat(out, "OTHER");
                }
        }
        return xstrdup(out);
}

/* Verifies server against ca as a TLS client would for host (DNS name or textual IP). */
static unsigned verify_for_host(const char *ca_pem, const char *server_pem, const char *host)
{
        gnutls_x509_trust_list_t tl;
        gnutls_x509_crt_t ca = cert_from_pem(ca_pem);
        gnutls_x509_crt_t srv = cert_from_pem(server_pem);
        gnutls_typed_vdata_st data[] = {
                { .type = GNUTLS_DT_DNS_HOSTNAME, .data = (unsigned char *) host },
                { .type = GNUTLS_DT_KEY_PURPOSE_OID,
                  .data = (unsigned char *) GNUTLS_KP_TLS_WWW_SERVER },
        };
        unsigned status = ~0u;

        assert_int_equal(gnutls_x509_trust_list_init(&tl, 0), 0);
        /* The trust list takes ownership of ca. */
        assert_int_equal(gnutls_x509_trust_list_add_cas(tl, &ca, 1, 0), 1);
        assert_int_equal(gnutls_x509_trust_list_verify_crt2(tl, &srv, 1, data, ARRAY_SIZE(data), 0,
                                                            &status, NULL),
                         0);
        gnutls_x509_trust_list_deinit(tl, 1);
        gnutls_x509_crt_deinit(srv);
        return status;
}

static void test_first_call_creates_everything(void **state)
{
        struct fixture *fx = *state;
        cleanup_pki struct pki *p = NULL;
        cleanup_free char *ca = NULL, *srv = NULL, *key = NULL, *token = NULL;
        static const struct {
                const char *file;
                mode_t mode;
        } files[] = {
                { "pki", 0700 },
                { "pki/ca.key", 0600 },
                { "pki/ca.crt", 0644 },
                { "pki/server.key", 0600 },
                { "pki/server.crt", 0644 },
                { "pki/admin.key", 0600 },
                { "pki/admin.crt", 0644 },
                { "pki/admin.token", 0600 },
                { "pki/kubelet.token", 0600 },
                { "pki/sa.key", 0600 },
                { "pki/" PKI_SCHEDULER_KEY_FILE, 0600 },
                { "pki/" PKI_SCHEDULER_CERT_FILE, 0644 },
                { "pki/" PKI_CONTROLLER_MANAGER_KEY_FILE, 0600 },
                { "pki/" PKI_CONTROLLER_MANAGER_CERT_FILE, 0644 },
                { "kubeconfig", 0600 },
        };
        mode_t old_umask = umask(0);

        /* Modes are promised whatever the umask. */
        assert_int_equal(ensure_ok(fx, &p), PKI_CREATED_CA | PKI_CREATED_TOKEN |
                                                    PKI_ISSUED_SERVER_CERT | PKI_ISSUED_ADMIN_CERT |
                                                    PKI_CREATED_SA_KEY | PKI_CREATED_KUBELET_TOKEN |
                                                    PKI_ISSUED_SCHEDULER_CERT |
                                                    PKI_ISSUED_CONTROLLER_MANAGER_CERT);
        umask(old_umask);
        for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
                if (mode_of(fx, files[i].file) != files[i].mode)
                        fail_msg("%s: mode %o, want %o", files[i].file,
                                 (unsigned) mode_of(fx, files[i].file), (unsigned) files[i].mode);
        }

        ca = slurp(fx, "pki/ca.crt");
        srv = slurp(fx, "pki/server.crt");
        key = slurp(fx, "pki/server.key");
        token = slurp(fx, "pki/admin.token");
        assert_string_equal(pki_ca_cert_pem(p), ca);
        assert_string_equal(pki_server_cert_pem(p), srv);
        assert_string_equal(pki_server_key_pem(p), key);
        assert_non_null(strstr(ca, "-----BEGIN CERTIFICATE-----\n"));
        assert_non_null(strstr(key, "-----BEGIN PRIVATE KEY-----\n"));

        /* 32 random bytes, hex: 64 lower-case hex digits and a newline. */
        assert_int_equal(strlen(pki_admin_token(p)), 64);
        assert_int_equal(strspn(pki_admin_token(p), "0123456789abcdef"), 64);
        assert_int_equal(strlen(token), 65);
        assert_memory_equal(token, pki_admin_token(p), 64);
        assert_int_equal(token[64], '\n');

        /* No temporary file is left behind. */
        cleanup_free char *tmp = slurp(fx, "pki/.ca.crt.tmp");
        assert_null(tmp);
}

static void test_ca_certificate_fields(void **state)
{
        struct fixture *fx = *state;
        cleanup_pki struct pki *p = NULL;
        gnutls_x509_crt_t ca;
        unsigned usage = 0, critical = 0, bits = 0;
        char dn[256];
        size_t dn_len = sizeof(dn);
        unsigned status = ~0u;
        time_t now = time(NULL), lifetime;

        ensure_ok(fx, &p);
        ca = cert_from_pem(pki_ca_cert_pem(p));

        assert_int_equal(gnutls_x509_crt_get_version(ca), 3);
        assert_int_equal(gnutls_x509_crt_get_dn(ca, dn, &dn_len), 0);
        assert_string_equal(dn, "CN=flexlet-ca");
        dn_len = sizeof(dn);
        assert_int_equal(gnutls_x509_crt_get_issuer_dn(ca, dn, &dn_len), 0);
        assert_string_equal(dn, "CN=flexlet-ca");
        assert_int_equal(gnutls_x509_crt_get_basic_constraints(ca, &critical, NULL, NULL), 1);
        assert_int_equal(gnutls_x509_crt_get_key_usage(ca, &usage, &critical), 0);
        assert_int_equal(usage, GNUTLS_KEY_KEY_CERT_SIGN | GNUTLS_KEY_CRL_SIGN);
        assert_int_equal(gnutls_x509_crt_get_pk_algorithm(ca, &bits), GNUTLS_PK_ECDSA);
        assert_int_equal(bits, 256);
        /* Ten years (365-day years), starting five minutes in the past. */
        lifetime =
                gnutls_x509_crt_get_expiration_time(ca) - gnutls_x509_crt_get_activation_time(ca);
        assert_true(lifetime >= 10 * 365 * DAY && lifetime <= 10 * 365 * DAY + 600);
        assert_true(gnutls_x509_crt_get_activation_time(ca) <= now);
        /* Self-signed: verifies against itself. */
        assert_int_equal(gnutls_x509_crt_verify(ca, &ca, 1, 0, &status), 0);
        assert_int_equal(status, 0);
        gnutls_x509_crt_deinit(ca);
}

static void test_server_certificate_fields(void **state)
{
        struct fixture *fx = *state;
        cleanup_pki struct pki *p = NULL;
        cleanup_free char *sans = NULL;
        gnutls_x509_crt_t srv;
        gnutls_x509_privkey_t key;
        unsigned usage = 0, critical = 0, bits = 0;
        char oid[128], dn[256];
        size_t oid_len = sizeof(oid), dn_len = sizeof(dn);
        unsigned char a[64], b[64];
        size_t alen = sizeof(a), blen = sizeof(b);
        time_t lifetime;

        ensure_ok(fx, &p);
        srv = cert_from_pem(pki_server_cert_pem(p));

        sans = sans_of(srv);
        assert_string_equal(sans, "DNS:localhost,DNS:node-1.example.test,IP:127.0.0.1,IP:::1");
        assert_int_equal(gnutls_x509_crt_get_issuer_dn(srv, dn, &dn_len), 0);
        assert_string_equal(dn, "CN=flexlet-ca");
        assert_int_equal(gnutls_x509_crt_get_basic_constraints(srv, &critical, NULL, NULL), 0);
        assert_int_equal(gnutls_x509_crt_get_key_usage(srv, &usage, &critical), 0);
        assert_int_equal(usage, GNUTLS_KEY_DIGITAL_SIGNATURE | GNUTLS_KEY_KEY_ENCIPHERMENT);
        assert_int_equal(gnutls_x509_crt_get_key_purpose_oid(srv, 0, oid, &oid_len, NULL), 0);
        assert_string_equal(oid, GNUTLS_KP_TLS_WWW_SERVER);
        oid_len = sizeof(oid);
        assert_int_equal(gnutls_x509_crt_get_key_purpose_oid(srv, 1, oid, &oid_len, NULL),
                         GNUTLS_E_REQUESTED_DATA_NOT_AVAILABLE);
        assert_int_equal(gnutls_x509_crt_get_pk_algorithm(srv, &bits), GNUTLS_PK_ECDSA);
        lifetime =
                gnutls_x509_crt_get_expiration_time(srv) - gnutls_x509_crt_get_activation_time(srv);
        assert_true(lifetime >= 365 * DAY && lifetime <= 365 * DAY + 600);

        /* The key handed out is the certificate's key. */
        key = key_from_pem(pki_server_key_pem(p));
        assert_int_equal(gnutls_x509_crt_get_key_id(srv, GNUTLS_KEYID_USE_SHA256, a, &alen), 0);
        assert_int_equal(gnutls_x509_privkey_get_key_id(key, GNUTLS_KEYID_USE_SHA256, b, &blen), 0);
        assert_memory_equal(a, b, alen);
        gnutls_x509_privkey_deinit(key);
        gnutls_x509_crt_deinit(srv);
}

static void test_server_certificate_verifies_for_hosts(void **state)
{
        struct fixture *fx = *state;
        cleanup_pki struct pki *p = NULL;
        static const struct {
                const char *host;
                bool ok;
        } cases[] = {
                { "localhost", true },
                { "node-1.example.test", true },
                { "NODE-1.Example.Test", true },
                { "127.0.0.1", true },
                { "::1", true },
                { "other.example.test", false },
                { "10.0.0.1", false },
                { "127.0.0.2", false },
                { "flexlet-apiserver", false },
        };

        ensure_ok(fx, &p);
        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                unsigned status =
                        verify_for_host(pki_ca_cert_pem(p), pki_server_cert_pem(p), cases[i].host);
                if ((status == 0) != cases[i].ok)
                        fail_msg("%s: verification status 0x%x, want %s", cases[i].host, status,
                                 cases[i].ok ? "valid" : "invalid");
        }
}

static void test_second_call_loads_the_same(void **state)
{
        struct fixture *fx = *state;
        cleanup_pki struct pki *first = NULL;
        cleanup_pki struct pki *second = NULL;

        ensure_ok(fx, &first);
        assert_int_equal(ensure_ok(fx, &second), 0);
        assert_string_equal(pki_ca_cert_pem(first), pki_ca_cert_pem(second));
        assert_string_equal(pki_server_cert_pem(first), pki_server_cert_pem(second));
        assert_string_equal(pki_server_key_pem(first), pki_server_key_pem(second));
        assert_string_equal(pki_admin_token(first), pki_admin_token(second));
        assert_true(pki_token_equal(second, pki_admin_token(first)));
}

static void test_new_name_reissues_server_cert_only(void **state)
{
        struct fixture *fx = *state;
        static const char *const more_dns[] = { "localhost", "node-1.example.test",
                                                "api.example.test", NULL };
        static const char *const more_ips[] = { "127.0.0.1", "::1", "10.1.2.3", NULL };
        static const char *const fewer_dns[] = { "LOCALHOST", NULL };
        static const char *const fewer_ips[] = { "::1", NULL };
        cleanup_pki struct pki *first = NULL;
        cleanup_pki struct pki *second = NULL;
        cleanup_pki struct pki *third = NULL;
        cleanup_pki struct pki *fourth = NULL;
        cleanup_error struct error *err = NULL;
        cleanup_free char *sans = NULL;
        gnutls_x509_crt_t srv;

        ensure_ok(fx, &first);

        /* A new DNS name. */
        assert_int_equal(ensure_with(fx, more_dns, default_ips, URL, &second, &err),
                         PKI_ISSUED_SERVER_CERT);
        assert_string_equal(pki_ca_cert_pem(first), pki_ca_cert_pem(second));
        assert_string_equal(pki_admin_token(first), pki_admin_token(second));
        assert_string_not_equal(pki_server_cert_pem(first), pki_server_cert_pem(second));
        assert_string_not_equal(pki_server_key_pem(first), pki_server_key_pem(second));
        assert_int_equal(verify_for_host(pki_ca_cert_pem(second), pki_server_cert_pem(second),
                                         "api.example.test"),
                         0);

        /* A new IP address. */
        assert_int_equal(ensure_with(fx, more_dns, more_ips, URL, &third, &err),
                         PKI_ISSUED_SERVER_CERT);
        assert_string_equal(pki_ca_cert_pem(first), pki_ca_cert_pem(third));
        srv = cert_from_pem(pki_server_cert_pem(third));
        sans = sans_of(srv);
        gnutls_x509_crt_deinit(srv);
        assert_string_equal(sans, "DNS:localhost,DNS:node-1.example.test,DNS:api.example.test,"
                                  "IP:127.0.0.1,IP:::1,IP:10.1.2.3");

        /* A subset (names compare case-insensitively) is already covered: nothing changes. */
        assert_int_equal(ensure_with(fx, fewer_dns, fewer_ips, URL, &fourth, &err), 0);
        assert_string_equal(pki_server_cert_pem(third), pki_server_cert_pem(fourth));
}

/* Replaces the serving pair with one signed by the real CA that expires in `days`. */
static void plant_server_cert(const struct fixture *fx, time_t days)
{
        cleanup_free char *ca_pem = slurp(fx, "pki/ca.crt");
        cleanup_free char *ca_key_pem = slurp(fx, "pki/ca.key");
        gnutls_x509_crt_t ca = cert_from_pem(ca_pem), crt;
        gnutls_x509_privkey_t ca_key = key_from_pem(ca_key_pem), key;
        gnutls_datum_t out;
        unsigned char serial[] = { 0x42 };
        time_t now = time(NULL);
        char *text;

        assert_int_equal(gnutls_x509_privkey_init(&key), 0);
        assert_int_equal(
                gnutls_x509_privkey_generate(key, GNUTLS_PK_ECDSA,
                                             GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1), 0),
                0);
        assert_int_equal(gnutls_x509_crt_init(&crt), 0);
        assert_int_equal(gnutls_x509_crt_set_version(crt, 3), 0);
        assert_int_equal(gnutls_x509_crt_set_serial(crt, serial, sizeof(serial)), 0);
        assert_int_equal(gnutls_x509_crt_set_dn_by_oid(crt, GNUTLS_OID_X520_COMMON_NAME, 0,
                                                       "flexlet-apiserver", 17),
                         0);
        assert_int_equal(gnutls_x509_crt_set_activation_time(crt, now - 300 * DAY), 0);
        assert_int_equal(gnutls_x509_crt_set_expiration_time(crt, now + days * DAY), 0);
        assert_int_equal(gnutls_x509_crt_set_key(crt, key), 0);
        for (size_t i = 0; default_dns[i]; i++)
                assert_int_equal(gnutls_x509_crt_set_subject_alt_name(
                                         crt, GNUTLS_SAN_DNSNAME, default_dns[i],
                                         (unsigned) strlen(default_dns[i]), GNUTLS_FSAN_APPEND),
                                 0);
        static const unsigned char v4[4] = { 127, 0, 0, 1 };
        static const unsigned char v6[16] = { [15] = 1 };
        assert_int_equal(gnutls_x509_crt_set_subject_alt_name(crt, GNUTLS_SAN_IPADDRESS, v4, 4,
                                                              GNUTLS_FSAN_APPEND),
                         0);
        assert_int_equal(gnutls_x509_crt_set_subject_alt_name(crt, GNUTLS_SAN_IPADDRESS, v6, 16,
                                                              GNUTLS_FSAN_APPEND),
                         0);
        assert_int_equal(gnutls_x509_crt_sign2(crt, ca, ca_key, GNUTLS_DIG_SHA256, 0), 0);

        assert_int_equal(gnutls_x509_crt_export2(crt, GNUTLS_X509_FMT_PEM, &out), 0);
        text = xstrndup((const char *) out.data, out.size);
        gnutls_free(out.data);
        spill(fx, "pki/server.crt", text, 0644);
        free(text);
        assert_int_equal(gnutls_x509_privkey_export2_pkcs8(key, GNUTLS_X509_FMT_PEM, NULL,
                                                           GNUTLS_PKCS_PLAIN, &out),
                         0);
        text = xstrndup((const char *) out.data, out.size);
        gnutls_free(out.data);
        spill(fx, "pki/server.key", text, 0600);
        free(text);

        gnutls_x509_crt_deinit(crt);
        gnutls_x509_crt_deinit(ca);
        gnutls_x509_privkey_deinit(key);
        gnutls_x509_privkey_deinit(ca_key);
}

static void test_server_cert_renewed_30_days_before_expiry(void **state)
{
        struct fixture *fx = *state;
        static const struct {
                time_t days_left;
                bool reissue;
        } cases[] = {
                { 1, true },
                { 29, true },
                { 31, false },
                { 200, false },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                cleanup_pki struct pki *first = NULL;
                cleanup_pki struct pki *second = NULL;
                cleanup_free char *planted = NULL;
                time_t expires;

                ensure_ok(fx, &first);
                plant_server_cert(fx, cases[i].days_left);
                planted = slurp(fx, "pki/server.crt");
                assert_int_equal(ensure_ok(fx, &second),
                                 cases[i].reissue ? PKI_ISSUED_SERVER_CERT : 0);
                assert_string_equal(pki_ca_cert_pem(first), pki_ca_cert_pem(second));
                assert_string_equal(pki_admin_token(first), pki_admin_token(second));
                if (!cases[i].reissue) {
                        assert_string_equal(pki_server_cert_pem(second), planted);
                        continue;
                }
                gnutls_x509_crt_t srv = cert_from_pem(pki_server_cert_pem(second));
                expires = gnutls_x509_crt_get_expiration_time(srv);
                gnutls_x509_crt_deinit(srv);
                assert_true(expires > time(NULL) + 364 * DAY);
        }
}

static void test_damaged_server_pair_is_reissued(void **state)
{
        struct fixture *fx = *state;
        static const char *const damage[] = { "garbage cert", "garbage key", "missing cert",
                                              "missing key",  "other key",   "other CA" };

        for (size_t i = 0; i < ARRAY_SIZE(damage); i++) {
                cleanup_pki struct pki *first = NULL;
                cleanup_pki struct pki *second = NULL;
                cleanup_free char *crt_path = path_of(fx, "pki/server.crt");
                cleanup_free char *key_path = path_of(fx, "pki/server.key");

                ensure_ok(fx, &first);
                if (streq(damage[i], "garbage cert")) {
                        spill(fx, "pki/server.crt", "-----BEGIN CERTIFICATE-----\nAAAA\n", 0644);
                } else if (streq(damage[i], "garbage key")) {
                        spill(fx, "pki/server.key", "not a key\n", 0600);
                } else if (streq(damage[i], "missing cert")) {
                        assert_int_equal(unlink(crt_path), 0);
                } else if (streq(damage[i], "missing key")) {
                        assert_int_equal(unlink(key_path), 0);
                } else if (streq(damage[i], "other key")) {
                        /* The CA key is a valid key, just not this certificate's. */
                        cleanup_free char *ca_key = slurp(fx, "pki/ca.key");
                        spill(fx, "pki/server.key", ca_key, 0600);
                } else {
                        /* A certificate signed by the CA of another data directory. */
                        struct fixture other = { .data_dir = xasprintf("%s/other", fx->root) };
                        cleanup_pki struct pki *o = NULL;
                        ensure_ok(&other, &o);
                        spill(fx, "pki/server.crt", pki_server_cert_pem(o), 0644);
                        spill(fx, "pki/server.key", pki_server_key_pem(o), 0600);
                        free(other.data_dir);
                }
                if (ensure_ok(fx, &second) != PKI_ISSUED_SERVER_CERT)
                        fail_msg("%s: serving certificate not reissued", damage[i]);
                assert_string_equal(pki_ca_cert_pem(first), pki_ca_cert_pem(second));
                assert_string_equal(pki_admin_token(first), pki_admin_token(second));
                assert_int_equal(verify_for_host(pki_ca_cert_pem(second),
                                                 pki_server_cert_pem(second), "localhost"),
                                 0);
        }
}

static void test_ca_problems(void **state)
{
        struct fixture *fx = *state;
        cleanup_pki struct pki *first = NULL;
        cleanup_pki struct pki *again = NULL;
        cleanup_pki struct pki *fresh = NULL;
        cleanup_pki struct pki *none = NULL;
        cleanup_error struct error *err = NULL;
        cleanup_free char *ca_key = path_of(fx, "pki/ca.key");
        cleanup_free char *ca_crt = path_of(fx, "pki/ca.crt");
        cleanup_free char *srv_key = NULL;

        ensure_ok(fx, &first);

        /* ca.crt without ca.key: clients may trust this CA, so it is not replaced. */
        assert_int_equal(unlink(ca_key), 0);
        assert_int_equal(ensure_with(fx, default_dns, default_ips, URL, &none, &err), -EINVAL);
        assert_null(none);
        assert_non_null(strstr(err->message, "ca.key"));
        assert_non_null(strstr(err->message, "does not"));
        err = error_free(err);

        /* A CA key that does not belong to ca.crt. */
        srv_key = slurp(fx, "pki/server.key");
        spill(fx, "pki/ca.key", srv_key, 0600);
        assert_int_equal(ensure_with(fx, default_dns, default_ips, URL, &none, &err), -EINVAL);
        assert_non_null(strstr(err->message, "is not the key of"));
        err = error_free(err);

        /* An unreadable ca.crt. */
        spill(fx, "pki/ca.crt", "junk\n", 0644);
        assert_int_equal(ensure_with(fx, default_dns, default_ips, URL, &none, &err), -EINVAL);
        assert_non_null(strstr(err->message, "parsing"));
        assert_non_null(strstr(err->message, "ca.crt"));
        err = error_free(err);

        /* ca.key without ca.crt (a crash between the two writes): a new CA, same token. */
        assert_int_equal(unlink(ca_crt), 0);
        assert_int_equal(ensure_ok(fx, &fresh),
                         PKI_CREATED_CA | PKI_ISSUED_SERVER_CERT | PKI_ISSUED_ADMIN_CERT |
                                 PKI_ISSUED_SCHEDULER_CERT | PKI_ISSUED_CONTROLLER_MANAGER_CERT);
        assert_string_not_equal(pki_ca_cert_pem(first), pki_ca_cert_pem(fresh));
        assert_string_equal(pki_admin_token(first), pki_admin_token(fresh));
        assert_int_equal(
                verify_for_host(pki_ca_cert_pem(fresh), pki_server_cert_pem(fresh), "localhost"),
                0);
        assert_int_equal(ensure_ok(fx, &again), 0);
}

/* A second API server with a copy of the first's pki folder elsewhere (--pki-dir): the same CA,
 * service account key and tokens; its own serving certificate for its own addresses. */
static void test_copied_pki_dir_serves_the_same_cluster(void **state)
{
        struct fixture *fx = *state;
        static const char *const other_ips[] = { "10.0.0.2", NULL };
        cleanup_pki struct pki *first = NULL;
        cleanup_pki struct pki *second = NULL;
        cleanup_error struct error *err = NULL;
        cleanup_free char *copy = xasprintf("%s/copied-pki", fx->root);
        cleanup_free char *cmd = NULL;
        cleanup_free char *data2 = xasprintf("%s/data2", fx->root);
        struct pki_options o = { .data_dir = data2,
                                 .pki_dir = copy,
                                 .dns_names = default_dns,
                                 .ip_addresses = other_ips,
                                 .server_url = "https://10.0.0.2:6443" };
        int r;

        ensure_ok(fx, &first);
        cmd = xasprintf("cp -a %s/pki %s", fx->data_dir, copy);
        assert_int_equal(system(cmd), 0);
        r = pki_ensure(&o, &second, &err);
        if (r < 0)
                fail_msg("pki_ensure: %s", err->message);
        assert_int_equal(r, PKI_ISSUED_SERVER_CERT);
        assert_string_equal(pki_ca_cert_pem(first), pki_ca_cert_pem(second));
        assert_string_equal(pki_sa_key_pem(first), pki_sa_key_pem(second));
        assert_string_equal(pki_admin_token(first), pki_admin_token(second));
        assert_string_equal(pki_kubelet_token(first), pki_kubelet_token(second));
        assert_string_not_equal(pki_server_cert_pem(first), pki_server_cert_pem(second));
        assert_int_equal(
                verify_for_host(pki_ca_cert_pem(second), pki_server_cert_pem(second), "10.0.0.2"),
                0);
        /* nothing was made in the second data dir's default pki folder */
        free(cmd);
        cmd = xasprintf("%s/pki", data2);
        assert_int_equal(access(cmd, F_OK), -1);
}

/* A copy without a shared file is refused, naming the file and why; nothing is made in its
 * place. */
static void test_incomplete_copy_is_refused(void **state)
{
        static const char *const files[] = { "sa.key", "admin.token", "kubelet.token" };
        struct fixture *fx = *state;

        for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
                cleanup_pki struct pki *first = NULL;
                cleanup_pki struct pki *none = NULL;
                cleanup_error struct error *err = NULL;
                cleanup_free char *path = xasprintf("pki/%s", files[i]);
                cleanup_free char *full = path_of(fx, path);
                cleanup_free char *saved = NULL;

                ensure_ok(fx, &first);
                saved = slurp(fx, path);
                assert_int_equal(unlink(full), 0);
                assert_int_equal(ensure_with(fx, default_dns, default_ips, URL, &none, &err),
                                 -EINVAL);
                assert_null(none);
                assert_non_null(strstr(err->message, files[i]));
                assert_non_null(strstr(err->message, "copy the whole pki folder"));
                assert_int_equal(access(full, F_OK), -1);
                spill(fx, path, saved, 0600);
        }
}

static void test_modes_are_tightened(void **state)
{
        struct fixture *fx = *state;
        cleanup_pki struct pki *first = NULL;
        cleanup_pki struct pki *second = NULL;
        cleanup_free char *dir = path_of(fx, "pki");
        cleanup_free char *ca_key = path_of(fx, "pki/ca.key");
        cleanup_free char *token = path_of(fx, "pki/admin.token");

        ensure_ok(fx, &first);
        assert_int_equal(chmod(dir, 0755), 0);
        assert_int_equal(chmod(ca_key, 0644), 0);
        assert_int_equal(chmod(token, 0640), 0);
        assert_int_equal(ensure_ok(fx, &second), 0);
        assert_int_equal(mode_of(fx, "pki"), 0700);
        assert_int_equal(mode_of(fx, "pki/ca.key"), 0600);
        assert_int_equal(mode_of(fx, "pki/admin.token"), 0600);
        assert_int_equal(mode_of(fx, "pki/ca.crt"), 0644);
}

static void test_existing_token_file(void **state)
{
        struct fixture *fx = *state;
        static const struct {
                const char *content;
                const char *token; /* NULL: refused */
        } cases[] = {
                { "operator-chosen.token\n", "operator-chosen.token" },
                { "abc123\r\n\n", "abc123" },
                { "", NULL },
                { "\n", NULL },
                { "two words\n", NULL },
                { "tab\there\n", NULL },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                cleanup_pki struct pki *p = NULL;
                cleanup_error struct error *err = NULL;
                cleanup_free char *pki_dir = path_of(fx, "pki");
                int r;

                assert_int_equal(mkdir(fx->data_dir, 0700) == 0 || errno == EEXIST, 1);
                assert_int_equal(mkdir(pki_dir, 0700) == 0 || errno == EEXIST, 1);
                spill(fx, "pki/admin.token", cases[i].content, 0600);
                r = ensure_with(fx, default_dns, default_ips, URL, &p, &err);
                if (!cases[i].token) {
                        assert_int_equal(r, -EINVAL);
                        assert_non_null(strstr(err->message, "admin.token"));
                        continue;
                }
                assert_true(r >= 0);
                assert_false(r & PKI_CREATED_TOKEN);
                assert_string_equal(pki_admin_token(p), cases[i].token);
                assert_true(pki_token_equal(p, cases[i].token));
        }
}

static void test_bad_options(void **state)
{
        struct fixture *fx = *state;
        static const char *const no_names[] = { NULL };
        static const char *const bad_ip[] = { "300.1.1.1", NULL };
        static const char *const ip_with_port[] = { "127.0.0.1:6443", NULL };
        static const char *const bad_dns[] = { "has space.example", NULL };
        static const char *const empty_dns[] = { "", NULL };
        static const struct {
                const char *const *dns;
                const char *const *ips;
                const char *url;
                const char *message;
        } cases[] = {
                { NULL, NULL, URL, "needs a DNS name or an IP address" },
                { no_names, no_names, URL, "needs a DNS name or an IP address" },
                { default_dns, bad_ip, URL, "invalid IP address \"300.1.1.1\"" },
                { default_dns, ip_with_port, URL, "invalid IP address \"127.0.0.1:6443\"" },
                { bad_dns, default_ips, URL, "invalid DNS name \"has space.example\"" },
                { empty_dns, default_ips, URL, "invalid DNS name \"\"" },
                { default_dns, default_ips, NULL, "no server URL" },
                { default_dns, default_ips, "", "no server URL" },
        };
        struct pki_options no_dir = { .dns_names = default_dns, .server_url = URL };
        cleanup_error struct error *err = NULL;
        struct pki *p = NULL;
        struct stat st;

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                assert_int_equal(
                        ensure_with(fx, cases[i].dns, cases[i].ips, cases[i].url, &p, &err),
                        -EINVAL);
                assert_null(p);
                if (!strstr(err->message, cases[i].message))
                        fail_msg("case %zu: message \"%s\" lacks \"%s\"", i, err->message,
                                 cases[i].message);
                err = error_free(err);
        }
        assert_int_equal(pki_ensure(&no_dir, &p, &err), -EINVAL);
        assert_int_equal(pki_ensure(NULL, &p, NULL), -EINVAL);
        /* Nothing was created for options that were refused. */
        assert_int_equal(stat(fx->data_dir, &st), -1);
}

static void test_missing_parent_directory(void **state)
{
        struct fixture *fx = *state;
        struct fixture deep = { .data_dir = xasprintf("%s/no/such/dir", fx->root) };
        cleanup_error struct error *err = NULL;
        struct pki *p = NULL;

        assert_int_equal(ensure_with(&deep, default_dns, default_ips, URL, &p, &err), -ENOENT);
        assert_null(p);
        assert_non_null(strstr(err->message, deep.data_dir));
        free(deep.data_dir);
}

/* The value of the first "key: value" line whose key (after indentation) is key. */
static char *yaml_value(const char *doc, const char *key)
{
        size_t klen = strlen(key);

        for (const char *line = doc; line && *line;) {
                const char *end = strchr(line, '\n');
                const char *k = line + strspn(line, " -");
                size_t n = end ? (size_t) (end - line) : strlen(line);
                if (strncmp(k, key, klen) == 0 && k[klen] == ':' && k[klen + 1] == ' ')
                        return xstrndup(k + klen + 2, n - (size_t) (k + klen + 2 - line));
                line = end ? end + 1 : NULL;
        }
        return NULL;
}

/* The admin's certificate: valid under the CA, CN and O the admin's user and group, for client
 * authentication only. */
static void check_admin_cert(const char *ca_pem, const char *crt_pem)
{
        gnutls_x509_crt_t ca, crt;
        gnutls_datum_t d;
        char buf[256], oid[128];
        size_t len = sizeof(buf), oid_len = sizeof(oid);
        unsigned status = 1;

        assert_int_equal(gnutls_x509_crt_init(&ca), 0);
        assert_int_equal(gnutls_x509_crt_init(&crt), 0);
        d = (gnutls_datum_t){ .data = (unsigned char *) ca_pem, .size = (unsigned) strlen(ca_pem) };
        assert_int_equal(gnutls_x509_crt_import(ca, &d, GNUTLS_X509_FMT_PEM), 0);
        d = (gnutls_datum_t){ .data = (unsigned char *) crt_pem,
                              .size = (unsigned) strlen(crt_pem) };
        assert_int_equal(gnutls_x509_crt_import(crt, &d, GNUTLS_X509_FMT_PEM), 0);
        assert_int_equal(gnutls_x509_crt_verify(crt, &ca, 1, 0, &status), 0);
        assert_int_equal(status, 0);
        assert_int_equal(
                gnutls_x509_crt_get_dn_by_oid(crt, GNUTLS_OID_X520_COMMON_NAME, 0, 0, buf, &len),
                0);
        assert_string_equal(buf, PKI_ADMIN_USER);
        len = sizeof(buf);
        assert_int_equal(gnutls_x509_crt_get_dn_by_oid(crt, GNUTLS_OID_X520_ORGANIZATION_NAME, 0, 0,
                                                       buf, &len),
                         0);
        assert_string_equal(buf, PKI_ADMIN_GROUP);
        assert_int_equal(gnutls_x509_crt_get_key_purpose_oid(crt, 0, oid, &oid_len, NULL), 0);
        assert_string_equal(oid, GNUTLS_KP_TLS_WWW_CLIENT);
        oid_len = sizeof(oid);
        assert_true(gnutls_x509_crt_get_key_purpose_oid(crt, 1, oid, &oid_len, NULL) < 0);
        gnutls_x509_crt_deinit(crt);
        gnutls_x509_crt_deinit(ca);
}

/* The node agent's certificate: system:node:NAME in system:nodes, clientAuth, under the CA;
 * issued only when a node is named, kept while the name stays, issued again for another. */
/* The scheduler's and the controller manager's client certificates: their user as the CN, no
 * group (K8S: kubeadm's scheduler.conf and controller-manager.conf), kept across starts. */
static void test_component_certificates(void **state)
{
        static const struct {
                const char *file, *cn;
                int change;
        } certs[] = {
                { "pki/" PKI_SCHEDULER_CERT_FILE, "system:kube-scheduler",
                  PKI_ISSUED_SCHEDULER_CERT },
                { "pki/" PKI_CONTROLLER_MANAGER_CERT_FILE, "system:kube-controller-manager",
                  PKI_ISSUED_CONTROLLER_MANAGER_CERT },
        };
        struct fixture *fx = *state;
        cleanup_pki struct pki *p = NULL;
        int r = ensure_ok(fx, &p);

        for (size_t i = 0; i < ARRAY_SIZE(certs); i++) {
                cleanup_free char *crt = slurp(fx, certs[i].file);
                gnutls_x509_crt_t c = cert_from_pem(crt);
                char buf[256];
                size_t len = sizeof(buf);

                assert_true(r & certs[i].change);
                assert_int_equal(gnutls_x509_crt_get_dn_by_oid(c, GNUTLS_OID_X520_COMMON_NAME, 0, 0,
                                                               buf, &len),
                                 0);
                assert_string_equal(buf, certs[i].cn);
                len = sizeof(buf);
                assert_int_equal(gnutls_x509_crt_get_dn_by_oid(c, GNUTLS_OID_X520_ORGANIZATION_NAME,
                                                               0, 0, buf, &len),
                                 GNUTLS_E_REQUESTED_DATA_NOT_AVAILABLE);
                gnutls_x509_crt_deinit(c);
        }
        p = pki_free(p);
        r = ensure_ok(fx, &p);
        for (size_t i = 0; i < ARRAY_SIZE(certs); i++)
                assert_false(r & certs[i].change);
}

static void test_node_certificate(void **state)
{
        struct fixture *fx = *state;
        cleanup_error struct error *err = NULL;
        cleanup_pki struct pki *p = NULL;
        cleanup_free char *crt = NULL, *again = NULL, *other = NULL;
        gnutls_x509_crt_t c;
        char buf[256];
        size_t len = sizeof(buf);
        struct pki_options o = { .data_dir = fx->data_dir,
                                 .dns_names = default_dns,
                                 .ip_addresses = default_ips,
                                 .server_url = URL };
        int r;

        r = ensure_ok(fx, &p);
        assert_false(r & PKI_ISSUED_NODE_CERT);
        p = pki_free(p);
        o.node_name = "n1";
        r = pki_ensure(&o, &p, &err);
        assert_true(r >= 0);
        assert_true(r & PKI_ISSUED_NODE_CERT);
        assert_int_equal(mode_of(fx, "pki/" PKI_NODE_KEY_FILE), 0600);
        crt = slurp(fx, "pki/" PKI_NODE_CERT_FILE);
        c = cert_from_pem(crt);
        assert_int_equal(
                gnutls_x509_crt_get_dn_by_oid(c, GNUTLS_OID_X520_COMMON_NAME, 0, 0, buf, &len), 0);
        assert_string_equal(buf, "system:node:n1");
        len = sizeof(buf);
        assert_int_equal(gnutls_x509_crt_get_dn_by_oid(c, GNUTLS_OID_X520_ORGANIZATION_NAME, 0, 0,
                                                       buf, &len),
                         0);
        assert_string_equal(buf, PKI_NODES_GROUP);
        gnutls_x509_crt_deinit(c);
        p = pki_free(p);
        r = pki_ensure(&o, &p, &err);
        assert_true(r >= 0);
        assert_false(r & PKI_ISSUED_NODE_CERT);
        again = slurp(fx, "pki/" PKI_NODE_CERT_FILE);
        assert_string_equal(again, crt);
        p = pki_free(p);
        o.node_name = "n2";
        r = pki_ensure(&o, &p, &err);
        assert_true(r >= 0 && (r & PKI_ISSUED_NODE_CERT));
        other = slurp(fx, "pki/" PKI_NODE_CERT_FILE);
        assert_string_not_equal(other, crt);
}

static void test_kubeconfig(void **state)
{
        struct fixture *fx = *state;
        cleanup_pki struct pki *p = NULL;
        cleanup_pki struct pki *again = NULL;
        cleanup_free char *doc = NULL, *doc2 = NULL, *ca_data = NULL, *token = NULL;
        cleanup_free char *ca_file = NULL, *server = NULL, *ctx = NULL, *ns = NULL, *user = NULL;
        cleanup_free char *quoted = NULL;
        cleanup_error struct error *err = NULL;
        gnutls_datum_t b64, raw = { 0 };

        ensure_ok(fx, &p);
        doc = slurp(fx, "kubeconfig");
        assert_non_null(doc);

        ca_data = yaml_value(doc, "certificate-authority-data");
        assert_non_null(ca_data);
        b64 = (gnutls_datum_t){ .data = (unsigned char *) ca_data,
                                .size = (unsigned) strlen(ca_data) };
        assert_int_equal(gnutls_base64_decode2(&b64, &raw), 0);
        ca_file = slurp(fx, "pki/ca.crt");
        assert_int_equal(raw.size, strlen(ca_file));
        assert_memory_equal(raw.data, ca_file, raw.size);
        gnutls_free(raw.data);

        /* the admin's client certificate and key, as written to pki/ */
        token = yaml_value(doc, "client-certificate-data");
        assert_non_null(token);
        b64 = (gnutls_datum_t){ .data = (unsigned char *) token, .size = (unsigned) strlen(token) };
        assert_int_equal(gnutls_base64_decode2(&b64, &raw), 0);
        quoted = slurp(fx, "pki/admin.crt");
        assert_int_equal(raw.size, strlen(quoted));
        assert_memory_equal(raw.data, quoted, raw.size);
        gnutls_free(raw.data);
        check_admin_cert(ca_file, quoted);
        assert_null(yaml_value(doc, "token"));
        free(token);
        token = yaml_value(doc, "client-key-data");
        assert_non_null(token);
        free(quoted);
        quoted = slurp(fx, "pki/admin.key");
        b64 = (gnutls_datum_t){ .data = (unsigned char *) token, .size = (unsigned) strlen(token) };
        assert_int_equal(gnutls_base64_decode2(&b64, &raw), 0);
        assert_int_equal(raw.size, strlen(quoted));
        assert_memory_equal(raw.data, quoted, raw.size);
        gnutls_free(raw.data);

        server = yaml_value(doc, "server");
        assert_string_equal(server, URL);
        ctx = yaml_value(doc, "current-context");
        assert_string_equal(ctx, "flexlet");
        ns = yaml_value(doc, "namespace");
        assert_string_equal(ns, "default");
        user = yaml_value(doc, "user");
        assert_string_equal(user, "admin");
        assert_non_null(strstr(doc, "apiVersion: v1\nkind: Config\n"));
        assert_non_null(strstr(doc, "\n  name: flexlet\ncontexts:\n"));
        assert_non_null(
                strstr(doc, "\nusers:\n- name: admin\n  user:\n    client-certificate-data: "));

        /* Written on every start: a new server URL shows up without any other change. */
        assert_int_equal(
                ensure_with(fx, default_dns, default_ips, "https://[::1]:7443", &again, &err), 0);
        doc2 = slurp(fx, "kubeconfig");
        free(server);
        server = yaml_value(doc2, "server");
        assert_string_equal(server, "https://[::1]:7443");
}

static void test_kubeconfig_quoting(void **state)
{
        struct fixture *fx = *state;
        cleanup_pki struct pki *p = NULL;
        static const struct {
                const char *name;
                const char *yaml;
        } cases[] = {
                { "flexlet", "flexlet" },
                { "prod-east.1", "prod-east.1" },
                { "true", "\"true\"" },
                { "No", "\"No\"" },
                { "null", "\"null\"" },
                { "123", "\"123\"" },
                { "1e3", "\"1e3\"" },
                { "a b", "\"a b\"" },
                { "say \"hi\"\\", "\"say \\\"hi\\\"\\\\\"" },
                { "x: y", "\"x: y\"" },
                { "#c", "\"#c\"" },
                { "line\nbreak", "\"line\\x0abreak\"" },
        };

        ensure_ok(fx, &p);
        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                cleanup_free char *doc = pki_kubeconfig_format(p, URL, cases[i].name);
                cleanup_free char *ctx = yaml_value(doc, "current-context");
                cleanup_free char *cluster = yaml_value(doc, "cluster");
                assert_string_equal(ctx, cases[i].yaml);
                assert_string_equal(cluster, cases[i].yaml);
        }
}

static void test_write_kubeconfig_elsewhere(void **state)
{
        struct fixture *fx = *state;
        cleanup_pki struct pki *p = NULL;
        cleanup_error struct error *err = NULL;
        cleanup_free char *path = xasprintf("%s/alt.kubeconfig", fx->root);
        cleanup_free char *expected = NULL;
        cleanup_free char *got = NULL;
        struct stat st;
        FILE *f;

        ensure_ok(fx, &p);
        assert_int_equal(pki_write_kubeconfig(p, path, "https://10.0.0.5:6443", "lab", &err), 0);
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0600);
        expected = pki_kubeconfig_format(p, "https://10.0.0.5:6443", "lab");
        got = xcalloc(1, 64 * 1024);
        f = fopen(path, "re");
        assert_non_null(f);
        assert_int_equal(fread(got, 1, 64 * 1024 - 1, f), strlen(expected));
        fclose(f);
        assert_string_equal(got, expected);
        assert_non_null(strstr(got, "current-context: lab\n"));

        assert_int_equal(pki_write_kubeconfig(p, "/nonexistent-dir/kubeconfig", URL, NULL, &err),
                         -ENOENT);
}

static void test_token_equal(void **state)
{
        struct fixture *fx = *state;
        cleanup_pki struct pki *p = NULL;
        char token[80], variant[96];
        size_t n;

        ensure_ok(fx, &p);
        snprintf(token, sizeof(token), "%s", pki_admin_token(p));
        n = strlen(token);

        assert_true(pki_token_equal(p, token));
        assert_false(pki_token_equal(p, NULL));
        assert_false(pki_token_equal(p, ""));
        assert_false(pki_token_equal(NULL, token));

        /* Every proper prefix is refused. */
        for (size_t len = 0; len < n; len++) {
                snprintf(variant, sizeof(variant), "%.*s", (int) len, token);
                if (pki_token_equal(p, variant))
                        fail_msg("prefix of length %zu accepted", len);
        }
        /* Longer, changed last or first character, upper case, with a newline or a space. */
        snprintf(variant, sizeof(variant), "%s0", token);
        assert_false(pki_token_equal(p, variant));
        snprintf(variant, sizeof(variant), "%s", token);
        variant[n - 1] = variant[n - 1] == 'a' ? 'b' : 'a';
        assert_false(pki_token_equal(p, variant));
        snprintf(variant, sizeof(variant), "%s", token);
        variant[0] = variant[0] == '0' ? '1' : '0';
        assert_false(pki_token_equal(p, variant));
        snprintf(variant, sizeof(variant), "%s\n", token);
        assert_false(pki_token_equal(p, variant));
        snprintf(variant, sizeof(variant), " %s", token);
        assert_false(pki_token_equal(p, variant));
        snprintf(variant, sizeof(variant), "%s", token);
        for (size_t i = 0; i < n; i++)
                if (variant[i] >= 'a' && variant[i] <= 'f')
                        variant[i] = (char) (variant[i] - 'a' + 'A');
        if (!streq(variant, token))
                assert_false(pki_token_equal(p, variant));
}

static void test_tokens_differ_between_data_dirs(void **state)
{
        struct fixture *fx = *state;
        struct fixture other = { .data_dir = xasprintf("%s/other", fx->root) };
        cleanup_pki struct pki *a = NULL;
        cleanup_pki struct pki *b = NULL;

        ensure_ok(fx, &a);
        ensure_ok(&other, &b);
        assert_string_not_equal(pki_admin_token(a), pki_admin_token(b));
        assert_string_not_equal(pki_ca_cert_pem(a), pki_ca_cert_pem(b));
        assert_false(pki_token_equal(a, pki_admin_token(b)));
        /* The other CA does not vouch for this server. */
        assert_int_not_equal(
                verify_for_host(pki_ca_cert_pem(b), pki_server_cert_pem(a), "localhost"), 0);
        free(other.data_dir);
}

static void test_free_null(void **state)
{
        assert_null(pki_free(NULL));
}

/* What serve checks before offering the host name: "(none)" (a bare VM) is left out. */
static void test_dns_name_valid(void **state)
{
        char long_name[300];

        (void) state;
        assert_true(pki_dns_name_valid("localhost"));
        assert_true(pki_dns_name_valid("node-1.example.com"));
        assert_true(pki_dns_name_valid("My_Host"));
        assert_false(pki_dns_name_valid("(none)"));
        assert_false(pki_dns_name_valid("has space"));
        assert_false(pki_dns_name_valid(""));
        assert_false(pki_dns_name_valid(NULL));
        memset(long_name, 'a', sizeof(long_name) - 1);
        long_name[sizeof(long_name) - 1] = '\0';
        assert_false(pki_dns_name_valid(long_name));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_first_call_creates_everything, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_ca_certificate_fields, setup, teardown),
                cmocka_unit_test_setup_teardown(test_server_certificate_fields, setup, teardown),
                cmocka_unit_test_setup_teardown(test_server_certificate_verifies_for_hosts, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_second_call_loads_the_same, setup, teardown),
                cmocka_unit_test_setup_teardown(test_new_name_reissues_server_cert_only, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_server_cert_renewed_30_days_before_expiry,
                                                setup, teardown),
                cmocka_unit_test_setup_teardown(test_damaged_server_pair_is_reissued, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_ca_problems, setup, teardown),
                cmocka_unit_test_setup_teardown(test_copied_pki_dir_serves_the_same_cluster, setup,
                                                teardown),
                cmocka_unit_test_setup_teardown(test_incomplete_copy_is_refused, setup, teardown),
                cmocka_unit_test_setup_teardown(test_modes_are_tightened, setup, teardown),
                cmocka_unit_test_setup_teardown(test_existing_token_file, setup, teardown),
                cmocka_unit_test_setup_teardown(test_bad_options, setup, teardown),
                cmocka_unit_test_setup_teardown(test_missing_parent_directory, setup, teardown),
                cmocka_unit_test_setup_teardown(test_node_certificate, setup, teardown),
                cmocka_unit_test_setup_teardown(test_component_certificates, setup, teardown),
                cmocka_unit_test_setup_teardown(test_kubeconfig, setup, teardown),
                cmocka_unit_test_setup_teardown(test_kubeconfig_quoting, setup, teardown),
                cmocka_unit_test_setup_teardown(test_write_kubeconfig_elsewhere, setup, teardown),
                cmocka_unit_test_setup_teardown(test_token_equal, setup, teardown),
                cmocka_unit_test_setup_teardown(test_tokens_differ_between_data_dirs, setup,
                                                teardown),
                cmocka_unit_test(test_free_null),
                cmocka_unit_test(test_dns_name_valid),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
