/* bootstrap.c: the node's TLS bootstrap (bootstrap.h): discovery of the CA pinned by the join
 * token, the key and the CertificateSigningRequest, the wait for its certificate, and the
 * credential files. The API calls go through client/; GnuTLS makes keys and requests. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "api/yaml.h"
#include "base/alloc.h"
#include "base/base64.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/timeutil.h"
#include "client/client.h"
#include "client/join-token.h"
#include "node/bootstrap.h"

#define PKI_DIR            "pki"
#define CLUSTER_INFO_PATH  "/api/v1/namespaces/kube-public/configmaps/cluster-info"
#define CSR_PATH           "/apis/certificates.k8s.io/v1/certificatesigningrequests"
#define DEFAULT_TIMEOUT_MS (5 * 60 * 1000)
#define POLL_MS            250
#define MIN_VALIDITY_S     3600
#define MAX_PEM_BYTES      (64 * 1024)

static int gfail(struct error **reterr, int gr, const char *what)
{
        return error_set(reterr, EIO, "%s: %s", what, gnutls_strerror(gr));
}

static char *pki_path(const struct bootstrap_options *o, const char *name)
{
        return xasprintf("%s/" PKI_DIR "/%s", o->data_dir, name);
}

/* DATA_DIR/pki, made 0700 when absent; its descriptor. */
static int open_pki(const struct bootstrap_options *o, struct error **reterr)
{
        cleanup_free char *dir = xasprintf("%s/" PKI_DIR, o->data_dir);
        int fd;

        if (fs_mkdir_p(dir, 0700) < 0)
                return error_set(reterr, errno, "creating \"%s\": %s", dir, strerror(errno));
        fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return error_set(reterr, errno, "opening \"%s\": %s", dir, strerror(errno));
        return fd;
}

static char *read_pki(int dfd, const char *name)
{
        char *text = NULL;
        size_t len = 0;

        return fs_read_file_at(dfd, name, MAX_PEM_BYTES, &text, &len) < 0 ? NULL : text;
}

static int write_pki(const struct bootstrap_options *o, int dfd, const char *name, const char *text,
                     mode_t mode, struct error **reterr)
{
        int r = fs_write_file_atomic_mode(dfd, name, text, strlen(text), mode);

        if (r < 0)
                return error_set(reterr, -r, "writing \"%s/" PKI_DIR "/%s\": %s", o->data_dir, name,
                                 strerror(-r));
        return 0;
}

/* Whether cert_pem (with key_pem) is a certificate ca_pem signed for cn, valid for at least
 * another MIN_VALIDITY_S. */
static bool cert_usable(const char *cert_pem, const char *key_pem, const char *ca_pem,
                        const char *cn)
{
        gnutls_x509_crt_t crt = NULL, ca = NULL;
        gnutls_x509_privkey_t key = NULL;
        gnutls_datum_t dc, dk, da;
        unsigned char a[64], b[64];
        size_t alen = sizeof(a), blen = sizeof(b);
        char got[256];
        size_t got_len = sizeof(got);
        unsigned status = 0;
        bool ok = false;

        if (!cert_pem || !key_pem || !ca_pem)
                return false;
        dc = (gnutls_datum_t){ (unsigned char *) cert_pem, (unsigned) strlen(cert_pem) };
        dk = (gnutls_datum_t){ (unsigned char *) key_pem, (unsigned) strlen(key_pem) };
        da = (gnutls_datum_t){ (unsigned char *) ca_pem, (unsigned) strlen(ca_pem) };
        if (gnutls_x509_crt_init(&crt) < 0 || gnutls_x509_crt_init(&ca) < 0 ||
            gnutls_x509_privkey_init(&key) < 0)
                goto out;
        if (gnutls_x509_crt_import(crt, &dc, GNUTLS_X509_FMT_PEM) < 0 ||
            gnutls_x509_crt_import(ca, &da, GNUTLS_X509_FMT_PEM) < 0 ||
            gnutls_x509_privkey_import2(key, &dk, GNUTLS_X509_FMT_PEM, NULL, GNUTLS_PKCS_PLAIN) < 0)
                goto out;
        if (gnutls_x509_crt_get_key_id(crt, GNUTLS_KEYID_USE_SHA256, a, &alen) < 0 ||
            gnutls_x509_privkey_get_key_id(key, GNUTLS_KEYID_USE_SHA256, b, &blen) < 0 ||
            alen != blen || memcmp(a, b, alen) != 0)
                goto out;
        if (gnutls_x509_crt_verify(crt, &ca, 1, 0, &status) < 0 || status != 0)
                goto out;
        if (gnutls_x509_crt_get_expiration_time(crt) < time(NULL) + MIN_VALIDITY_S)
                goto out;
        if (gnutls_x509_crt_get_dn_by_oid(crt, GNUTLS_OID_X520_COMMON_NAME, 0, 0, got, &got_len) <
                    0 ||
            got_len != strlen(cn) || memcmp(got, cn, got_len) != 0)
                goto out;
        ok = true;
out:
        if (crt)
                gnutls_x509_crt_deinit(crt);
        if (ca)
                gnutls_x509_crt_deinit(ca);
        if (key)
                gnutls_x509_privkey_deinit(key);
        return ok;
}

static int make_key(char **ret_pem, struct error **reterr)
{
        gnutls_x509_privkey_t key;
        gnutls_datum_t out = { 0 };
        int gr;

        if ((gr = gnutls_x509_privkey_init(&key)) < 0)
                return gfail(reterr, gr, "creating a key");
        gr = gnutls_x509_privkey_generate2(
                key, GNUTLS_PK_ECDSA, GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1), 0, NULL, 0);
        if (gr >= 0)
                gr = gnutls_x509_privkey_export2_pkcs8(key, GNUTLS_X509_FMT_PEM, NULL,
                                                       GNUTLS_PKCS_PLAIN, &out);
        gnutls_x509_privkey_deinit(key);
        if (gr < 0)
                return gfail(reterr, gr, "generating an ECDSA P-256 key");
        *ret_pem = xstrndup((const char *) out.data, out.size);
        gnutls_free(out.data);
        return 0;
}

int bootstrap_make_csr(const char *key_pem, const char *org, const char *cn, const char *const *dns,
                       const char *const *ips, char **ret_pem, struct error **reterr)
{
        gnutls_datum_t dk = { (unsigned char *) key_pem, (unsigned) strlen(key_pem) };
        gnutls_x509_privkey_t key = NULL;
        gnutls_x509_crq_t crq = NULL;
        gnutls_datum_t out = { 0 }, der = { 0 };
        int gr, r = 0;

        if ((gr = gnutls_x509_privkey_init(&key)) < 0 || (gr = gnutls_x509_crq_init(&crq)) < 0 ||
            (gr = gnutls_x509_privkey_import2(key, &dk, GNUTLS_X509_FMT_PEM, NULL,
                                              GNUTLS_PKCS_PLAIN)) < 0 ||
            (gr = gnutls_x509_crq_set_version(crq, 1)) < 0 ||
            (gr = gnutls_x509_crq_set_dn_by_oid(crq, GNUTLS_OID_X520_ORGANIZATION_NAME, 0, org,
                                                (unsigned) strlen(org))) < 0 ||
            (gr = gnutls_x509_crq_set_dn_by_oid(crq, GNUTLS_OID_X520_COMMON_NAME, 0, cn,
                                                (unsigned) strlen(cn))) < 0)
                goto fail;
        for (size_t i = 0; dns && dns[i]; i++)
                if ((gr = gnutls_x509_crq_set_subject_alt_name(crq, GNUTLS_SAN_DNSNAME, dns[i],
                                                               (unsigned) strlen(dns[i]),
                                                               GNUTLS_FSAN_APPEND)) < 0)
                        goto fail;
        for (size_t i = 0; ips && ips[i]; i++) {
                unsigned char addr[16];
                unsigned n = inet_pton(AF_INET, ips[i], addr) == 1    ? 4
                             : inet_pton(AF_INET6, ips[i], addr) == 1 ? 16
                                                                      : 0;
                if (!n) {
                        r = error_set(reterr, EINVAL, "\"%s\" is not an IP address", ips[i]);
                        goto out;
                }
                if ((gr = gnutls_x509_crq_set_subject_alt_name(crq, GNUTLS_SAN_IPADDRESS, addr, n,
                                                               GNUTLS_FSAN_APPEND)) < 0)
                        goto fail;
        }
        if ((gr = gnutls_x509_crq_set_key(crq, key)) < 0 ||
            (gr = gnutls_x509_crq_sign2(crq, key, GNUTLS_DIG_SHA256, 0)) < 0 ||
            (gr = gnutls_x509_crq_export2(crq, GNUTLS_X509_FMT_DER, &der)) < 0)
                goto fail;
        /* K8S: the block type is "CERTIFICATE REQUEST" (GnuTLS's PEM says "NEW ...") */
        gr = gnutls_pem_base64_encode2("CERTIFICATE REQUEST", &der, &out);
        gnutls_free(der.data);
        if (gr < 0)
                goto fail;
        *ret_pem = xstrndup((const char *) out.data, out.size);
        gnutls_free(out.data);
        goto out;
fail:
        r = gfail(reterr, gr, "building the certificate request");
out:
        if (crq)
                gnutls_x509_crq_deinit(crq);
        if (key)
                gnutls_x509_privkey_deinit(key);
        return r;
}

/* K8S: kubeadm's token discovery: the CA of cluster-info, taken only when its hash is the
 * token's. Each server is asked in turn until one answers. */
static int discover_ca(const struct bootstrap_options *o, const struct join_token *tok,
                       char **ret_ca, struct error **reterr)
{
        cleanup_free char *list = xstrdup(o->servers);
        cleanup_error struct error *last = NULL;
        char *save = NULL;

        for (char *url = strtok_r(list, ",", &save); url; url = strtok_r(NULL, ",", &save)) {
                /* no credential goes out: the server is not trusted yet */
                const struct api_client_options co = { .server_url = url,
                                                       .insecure_skip_verify = true,
                                                       .idle_timeout_ms = 10000 };
                cleanup_api_client struct api_client *c = NULL;
                cleanup_json json_t *cm = NULL, *kc = NULL;
                cleanup_free char *ca = NULL;
                const char *yaml, *b64;
                char hash[JOIN_TOKEN_HASH_LEN + 1];
                size_t n = 0;
                long status = 0;

                error_free(last);
                last = NULL;
                if (api_client_new(&co, &c, &last) < 0 ||
                    api_client_request(c, "GET", CLUSTER_INFO_PATH, NULL, NULL, 0, &status, &cm,
                                       &last) < 0)
                        continue;
                if (status != 200) {
                        error_set(&last, EIO, "%s: GET cluster-info: HTTP %ld", url, status);
                        continue;
                }
                yaml = json_path_string(cm, "data.kubeconfig");
                if (!yaml || yaml_to_json(yaml, strlen(yaml), &kc, NULL) < 0 ||
                    !(b64 = json_path_string(json_array_get(json_object_get(kc, "clusters"), 0),
                                             "cluster.certificate-authority-data")) ||
                    base64_decode(b64, strlen(b64), &ca, &n, NULL) < 0 || n != strlen(ca)) {
                        error_set(&last, EIO, "%s: cluster-info holds no CA certificate", url);
                        continue;
                }
                join_token_ca_hash(ca, n, hash);
                if (!streq(hash, tok->ca_hash))
                        return error_set(reterr, EPERM,
                                         "the cluster's CA certificate at %s (sha256 %s) is not "
                                         "the one the join token names (sha256 %s): not joining",
                                         url, hash, tok->ca_hash);
                *ret_ca = TAKE_PTR(ca);
                return 0;
        }
        return error_set(reterr, last ? last->errnum : EHOSTUNREACH,
                         "no server answered for cluster-info: %s",
                         last ? last->message : "no server given");
}

static const char *condition_message(const json_t *csr, const char *type)
{
        size_t i;
        json_t *c;

        json_array_foreach(json_path(csr, "status.conditions"), i, c)
                if (streq(json_string_value(json_object_get(c, "type")) ?: "", type))
                        return json_string_value(json_object_get(c, "message")) ?: "";
        return NULL;
}

/* Creates the CSR and reads it back until it is issued: 0 with *ret_cert (PEM). */
static int request_certificate(struct api_client *c, const char *signer, const char *csr_pem,
                               const char *const *usages, long timeout_ms, char **ret_cert,
                               struct error **reterr)
{
        cleanup_free char *b64 = base64_encode(csr_pem, strlen(csr_pem));
        cleanup_json json_t *body = json_pack(
                "{s:s, s:s, s:{s:s}, s:{s:s, s:s, s:[]}}", "apiVersion", "certificates.k8s.io/v1",
                "kind", "CertificateSigningRequest", "metadata", "generateName", "node-csr-",
                "spec", "request", b64, "signerName", signer, "usages");
        cleanup_json json_t *created = NULL;
        cleanup_free char *text = NULL, *path = NULL;
        int64_t deadline = time_monotonic_ms() + (timeout_ms ? timeout_ms : DEFAULT_TIMEOUT_MS);
        long status = 0;
        int r;

        for (size_t i = 0; usages[i]; i++)
                json_array_append_new(json_path(body, "spec.usages"), json_string(usages[i]));
        text = json_dump_compact(body);
        r = api_client_request(c, "POST", CSR_PATH, "application/json", text, strlen(text), &status,
                               &created, reterr);
        if (r < 0)
                return r;
        if (status == 401)
                return error_set(reterr, EACCES,
                                 "the API server refused the join token (401 Unauthorized): it "
                                 "is not a valid bootstrap token of this cluster");
        if (status != 201)
                return error_set(reterr, status == 403 ? EACCES : EIO,
                                 "creating the certificate request: HTTP %ld: %s", status,
                                 json_path_string(created, "message") ?: "");
        path = xasprintf(CSR_PATH "/%s", json_path_string_or_empty(created, "metadata.name"));
        for (;;) {
                cleanup_json json_t *csr = NULL;
                const char *cert, *why;

                status = 0;
                if (api_client_request(c, "GET", path, NULL, NULL, 0, &status, &csr, NULL) >= 0 &&
                    status == 200) {
                        if ((why = condition_message(csr, "Denied")))
                                return error_set(reterr, EACCES,
                                                 "the certificate request \"%s\" was denied: %s",
                                                 json_path_string_or_empty(csr, "metadata.name"),
                                                 why);
                        if ((why = condition_message(csr, "Failed")))
                                return error_set(
                                        reterr, EIO, "the certificate request \"%s\" failed: %s",
                                        json_path_string_or_empty(csr, "metadata.name"), why);
                        cert = json_path_string(csr, "status.certificate");
                        if (cert && *cert) {
                                size_t n = 0;

                                if (base64_decode(cert, strlen(cert), ret_cert, &n, reterr) < 0)
                                        return -EIO;
                                return 0;
                        }
                }
                if (time_monotonic_ms() > deadline)
                        return error_set(reterr, ETIMEDOUT,
                                         "the certificate request \"%s\" was not approved and "
                                         "signed in time (kubectl certificate approve)",
                                         json_path_string_or_empty(created, "metadata.name"));
                (void) usleep(POLL_MS * 1000);
        }
}

/* The join token file, at most JOIN_TOKEN_MAX_BYTES (symbolic links followed: the admin's
 * file, not a pod's). */
static int read_token_file(const char *path, char **ret, size_t *ret_len, struct error **reterr)
{
        cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC);
        char *buf = xmalloc(JOIN_TOKEN_MAX_BYTES + 2);
        size_t len = 0;

        if (fd < 0) {
                free(buf);
                return error_set(reterr, errno, "--token-file \"%s\": %s", path, strerror(errno));
        }
        for (;;) {
                ssize_t n = read(fd, buf + len, JOIN_TOKEN_MAX_BYTES + 1 - len);

                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0) {
                        int e = errno;
                        free(buf);
                        return error_set(reterr, e, "--token-file \"%s\": %s", path, strerror(e));
                }
                if (n == 0)
                        break;
                len += (size_t) n;
                if (len > JOIN_TOKEN_MAX_BYTES) {
                        free(buf);
                        return error_set(reterr, EFBIG,
                                         "--token-file \"%s\": too long for a join token", path);
                }
        }
        buf[len] = '\0';
        *ret = buf;
        *ret_len = len;
        return 0;
}

int bootstrap_client_cert(const struct bootstrap_options *o, struct error **reterr)
{
        cleanup_close int dfd = -1;
        cleanup_free char *cn = xasprintf("system:node:%s", o->node_name);
        cleanup_free char *cert = NULL, *key = NULL, *ca = NULL, *token_text = NULL;
        cleanup_free char *csr = NULL, *bearer = NULL, *ca_file = NULL;
        cleanup_api_client struct api_client *c = NULL;
        static const char *const usages[] = { "digital signature", "client auth", NULL };
        struct join_token tok;
        size_t len = 0;
        int r;

        dfd = open_pki(o, reterr);
        if (dfd < 0)
                return dfd;
        cert = read_pki(dfd, BOOTSTRAP_CLIENT_CERT_FILE);
        key = read_pki(dfd, BOOTSTRAP_CLIENT_KEY_FILE);
        ca = read_pki(dfd, BOOTSTRAP_CA_FILE);
        /* K8S: LoadClientCert: a valid certificate is kept; bootstrap only without one */
        if (cert_usable(cert, key, ca, cn))
                return 0;
        r = read_token_file(o->token_file, &token_text, &len, reterr);
        if (r < 0)
                return r;
        r = join_token_parse(token_text, len, &tok, reterr);
        explicit_bzero(token_text, len);
        if (r < 0)
                return error_wrap(reterr, "--token-file \"%s\"", o->token_file);
        free(ca);
        ca = NULL;
        r = discover_ca(o, &tok, &ca, reterr);
        if (r < 0)
                return r;
        r = write_pki(o, dfd, BOOTSTRAP_CA_FILE, ca, 0644, reterr);
        if (r < 0)
                return r;
        ca_file = pki_path(o, BOOTSTRAP_CA_FILE);
        bearer = xasprintf("%s.%s", tok.id, tok.secret);
        explicit_bzero(tok.secret, sizeof(tok.secret));
        {
                const struct api_client_options co = { .server_url = o->servers,
                                                       .ca_file = ca_file,
                                                       .token = bearer };
                r = api_client_new(&co, &c, reterr);
                explicit_bzero(bearer, strlen(bearer));
                if (r < 0)
                        return r;
        }
        free(key);
        key = NULL;
        r = make_key(&key, reterr);
        if (r >= 0)
                r = bootstrap_make_csr(key, "system:nodes", cn, NULL, NULL, &csr, reterr);
        free(cert);
        cert = NULL;
        if (r >= 0)
                r = request_certificate(c, "kubernetes.io/kube-apiserver-client-kubelet", csr,
                                        usages, o->timeout_ms, &cert, reterr);
        if (r < 0)
                return r;
        /* the key first: a certificate is never on disk without its key */
        r = write_pki(o, dfd, BOOTSTRAP_CLIENT_KEY_FILE, key, 0600, reterr);
        if (r >= 0)
                r = write_pki(o, dfd, BOOTSTRAP_CLIENT_CERT_FILE, cert, 0600, reterr);
        explicit_bzero(key, strlen(key));
        return r < 0 ? r : 1;
}

int bootstrap_serving_cert(const struct bootstrap_options *o, const char *const *dns,
                           const char *const *ips, char **ret_cert_pem, char **ret_key_pem,
                           struct error **reterr)
{
        cleanup_close int dfd = -1;
        cleanup_free char *cn = xasprintf("system:node:%s", o->node_name);
        cleanup_free char *cert = NULL, *key = NULL, *ca = NULL, *csr = NULL;
        cleanup_free char *ca_file = pki_path(o, BOOTSTRAP_CA_FILE);
        cleanup_free char *cert_file = pki_path(o, BOOTSTRAP_CLIENT_CERT_FILE);
        cleanup_free char *key_file = pki_path(o, BOOTSTRAP_CLIENT_KEY_FILE);
        cleanup_api_client struct api_client *c = NULL;
        static const char *const usages[] = { "digital signature", "server auth", NULL };
        int r;

        dfd = open_pki(o, reterr);
        if (dfd < 0)
                return dfd;
        cert = read_pki(dfd, BOOTSTRAP_SERVING_CERT_FILE);
        key = read_pki(dfd, BOOTSTRAP_SERVING_KEY_FILE);
        ca = read_pki(dfd, BOOTSTRAP_CA_FILE);
        if (!cert_usable(cert, key, ca, cn)) {
                const struct api_client_options co = { .server_url = o->servers,
                                                       .ca_file = ca_file,
                                                       .cert_file = cert_file,
                                                       .key_file = key_file };

                free(cert);
                free(key);
                cert = key = NULL;
                r = api_client_new(&co, &c, reterr);
                if (r >= 0)
                        r = make_key(&key, reterr);
                if (r >= 0)
                        r = bootstrap_make_csr(key, "system:nodes", cn, dns, ips, &csr, reterr);
                if (r >= 0)
                        r = request_certificate(c, "kubernetes.io/kubelet-serving", csr, usages,
                                                o->timeout_ms, &cert, reterr);
                if (r >= 0)
                        r = write_pki(o, dfd, BOOTSTRAP_SERVING_KEY_FILE, key, 0600, reterr);
                if (r >= 0)
                        r = write_pki(o, dfd, BOOTSTRAP_SERVING_CERT_FILE, cert, 0600, reterr);
                if (r < 0)
                        return r;
                r = 1;
        } else {
                r = 0;
        }
        *ret_cert_pem = TAKE_PTR(cert);
        *ret_key_pem = TAKE_PTR(key);
        return r;
}
