/* pki.c: creates and loads the API server's CA, serving certificate, admin client certificate
 * and admin token under
 * DATA_DIR/pki/, and writes DATA_DIR/kubeconfig (see pki.h for the layout and the rules).
 * Certificates and keys are made with GnuTLS; randomness comes from gnutls_rnd(). This file does
 * not serve TLS: the HTTP server takes the PEM text from the accessors. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#include "apiserver/pki.h"
#include "base/alloc.h"
#include "base/base64.h"
#include "base/fs.h"
#include "base/strbuf.h"

#define PKI_DIR          "pki"
#define CA_KEY_FILE      "ca.key"
#define CA_CERT_FILE     "ca.crt"
#define SERVER_KEY_FILE  "server.key"
#define SERVER_CERT_FILE "server.crt"
#define ADMIN_KEY_FILE   "admin.key"
#define ADMIN_CERT_FILE  "admin.crt"
#define TOKEN_FILE       "admin.token"
#define SA_KEY_FILE      "sa.key"
#define KUBECONFIG_FILE  "kubeconfig"
#define CA_COMMON_NAME   "flexlet-ca"
#define SERVER_CN        "flexlet-apiserver"
#define DAY_SECONDS      ((time_t) 24 * 60 * 60)
#define CA_LIFETIME      (10 * 365 * DAY_SECONDS)
#define LEAF_LIFETIME    (365 * DAY_SECONDS)
#define RENEW_BEFORE     (30 * DAY_SECONDS)
/* Certificates start a little in the past so a client whose clock runs behind still accepts
 * them (kubeadm backdates its certificates by the same five minutes). */
#define BACKDATE      ((time_t) 5 * 60)
#define TOKEN_BYTES   32
#define MAX_TOKEN_LEN 1024
#define MAX_PEM_FILE  (64 * 1024)
#define MAX_DNS_NAME  253
#define SHA256_LEN    32

struct pki {
        char *ca_cert_pem;
        char *ca_key_pem;
        char *server_cert_pem;
        char *server_key_pem;
        char *admin_cert_pem;
        char *admin_key_pem;
        char *sa_key_pem;
        char *token;
        char *kubelet_token;
        unsigned char token_digest[SHA256_LEN];
};

struct ip_san {
        unsigned char addr[16];
        size_t len; /* 4 or 16 */
};

/* A certificate with its private key, both parsed and as PEM text. */
struct credential {
        gnutls_x509_crt_t crt;
        gnutls_x509_privkey_t key;
        char *crt_pem;
        char *key_pem;
};

static void credential_release(struct credential *c)
{
        if (c->crt)
                gnutls_x509_crt_deinit(c->crt);
        if (c->key)
                gnutls_x509_privkey_deinit(c->key);
        free(c->crt_pem);
        if (c->key_pem)
                gnutls_memset(c->key_pem, 0, strlen(c->key_pem));
        free(c->key_pem);
        *c = (struct credential){ 0 };
}

#define cleanup_credential __attribute__((cleanup(credential_release)))

/* ---- files ---- */

/* Reads dfd/name (dir names dfd in messages). A missing file is not an error: *ret = NULL. The
 * text is NUL-terminated; files over MAX_PEM_FILE are refused. A secret file that group or others
 * may read is narrowed to 0600 first. */
static int read_small_file(int dfd, const char *dir, const char *name, bool secret, char **ret,
                           size_t *ret_len, struct error **reterr)
{
        cleanup_close int fd = -1;
        cleanup_free char *buf = NULL;
        struct stat st;
        size_t len = 0;

        fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0) {
                if (errno == ENOENT) {
                        *ret = NULL;
                        if (ret_len)
                                *ret_len = 0;
                        return 0;
                }
                return error_set(reterr, errno, "reading \"%s/%s\": %s", dir, name,
                                 strerror(errno));
        }
        if (fstat(fd, &st) < 0)
                return error_set(reterr, errno, "reading \"%s/%s\": %s", dir, name,
                                 strerror(errno));
        if (!S_ISREG(st.st_mode))
                return error_set(reterr, EINVAL, "reading \"%s/%s\": not a regular file", dir,
                                 name);
        if (secret && (st.st_mode & 077) && fchmod(fd, 0600) < 0)
                return error_set(reterr, errno, "setting the mode of \"%s/%s\": %s", dir, name,
                                 strerror(errno));
        buf = xmalloc(MAX_PEM_FILE + 1);
        for (;;) {
                ssize_t n = read(fd, buf + len, MAX_PEM_FILE + 1 - len);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return error_set(reterr, errno, "reading \"%s/%s\": %s", dir, name,
                                         strerror(errno));
                }
                if (n == 0)
                        break;
                len += (size_t) n;
                if (len > MAX_PEM_FILE)
                        return error_set(reterr, EFBIG, "reading \"%s/%s\": larger than %d bytes",
                                         dir, name, MAX_PEM_FILE);
        }
        buf[len] = '\0';
        *ret = TAKE_PTR(buf);
        if (ret_len)
                *ret_len = len;
        return 0;
}

/* Replaces dfd/name with data: writes ".name.tmp", fsyncs it, renames it over name and fsyncs
 * the directory, so readers and crashes see the old or the new content, never a mix. */
static int write_file_atomic(int dfd, const char *dir, const char *name, const char *data,
                             size_t len, mode_t mode, struct error **reterr)
{
        cleanup_free char *tmp = xasprintf(".%s.tmp", name);
        cleanup_close int fd = -1;
        int r;

        if (unlinkat(dfd, tmp, 0) < 0 && errno != ENOENT)
                return error_set(reterr, errno, "writing \"%s/%s\": %s", dir, tmp, strerror(errno));
        fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
        if (fd < 0)
                return error_set(reterr, errno, "writing \"%s/%s\": %s", dir, tmp, strerror(errno));
        /* The umask must not change the mode we promise. */
        if (fchmod(fd, mode) < 0) {
                r = -errno;
                goto fail;
        }
        r = fs_write_all(fd, data, len);
        if (r < 0)
                goto fail;
        if (fsync(fd) < 0) {
                r = -errno;
                goto fail;
        }
        if (close(TAKE_FD(fd)) < 0) {
                r = -errno;
                goto fail;
        }
        if (renameat(dfd, tmp, dfd, name) < 0) {
                r = -errno;
                goto fail;
        }
        if (fsync(dfd) < 0)
                return error_set(reterr, errno, "syncing \"%s\": %s", dir, strerror(errno));
        return 0;
fail:
        (void) unlinkat(dfd, tmp, 0);
        return error_set(reterr, -r, "writing \"%s/%s\": %s", dir, name, strerror(-r));
}

/* Opens (creating with mode 0700 if absent) the directory path relative to dfd. */
static int open_private_dir(int dfd, const char *path, const char *shown, int *ret,
                            struct error **reterr)
{
        cleanup_close int fd = -1;
        struct stat st;

        if (mkdirat(dfd, path, 0700) < 0 && errno != EEXIST)
                return error_set(reterr, errno, "creating \"%s\": %s", shown, strerror(errno));
        fd = openat(dfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return error_set(reterr, errno, "opening \"%s\": %s", shown, strerror(errno));
        if (fstat(fd, &st) < 0)
                return error_set(reterr, errno, "opening \"%s\": %s", shown, strerror(errno));
        *ret = TAKE_FD(fd);
        return (int) (st.st_mode & 07777);
}

/* ---- GnuTLS helpers ---- */

static int gnutls_fail(struct error **reterr, int errnum, int gr, const char *what)
{
        return error_set(reterr, errnum, "%s: %s", what, gnutls_strerror(gr));
}

static char *datum_to_string(gnutls_datum_t *d)
{
        char *s = xstrndup((const char *) d->data, d->size);
        gnutls_free(d->data);
        d->data = NULL;
        d->size = 0;
        return s;
}

static int import_cert(const char *pem, size_t len, gnutls_x509_crt_t *ret)
{
        gnutls_datum_t d = { .data = (unsigned char *) pem, .size = (unsigned) len };
        gnutls_x509_crt_t crt;
        int gr;

        gr = gnutls_x509_crt_init(&crt);
        if (gr < 0)
                return gr;
        gr = gnutls_x509_crt_import(crt, &d, GNUTLS_X509_FMT_PEM);
        if (gr < 0) {
                gnutls_x509_crt_deinit(crt);
                return gr;
        }
        *ret = crt;
        return 0;
}

static int import_key(const char *pem, size_t len, gnutls_x509_privkey_t *ret)
{
        gnutls_datum_t d = { .data = (unsigned char *) pem, .size = (unsigned) len };
        gnutls_x509_privkey_t key;
        int gr;

        gr = gnutls_x509_privkey_init(&key);
        if (gr < 0)
                return gr;
        gr = gnutls_x509_privkey_import2(key, &d, GNUTLS_X509_FMT_PEM, NULL, GNUTLS_PKCS_PLAIN);
        if (gr < 0) {
                gnutls_x509_privkey_deinit(key);
                return gr;
        }
        *ret = key;
        return 0;
}

/* True when key is the private half of crt's public key. */
static bool key_matches_cert(gnutls_x509_crt_t crt, gnutls_x509_privkey_t key)
{
        unsigned char a[64], b[64];
        size_t alen = sizeof(a), blen = sizeof(b);

        if (gnutls_x509_crt_get_key_id(crt, GNUTLS_KEYID_USE_SHA256, a, &alen) < 0)
                return false;
        if (gnutls_x509_privkey_get_key_id(key, GNUTLS_KEYID_USE_SHA256, b, &blen) < 0)
                return false;
        return alen == blen && memcmp(a, b, alen) == 0;
}

/* Loads a certificate and its key from PEM text; -EINVAL with a message when either does not
 * parse or they do not belong together. */
static int credential_load(struct credential *c, char *crt_pem, size_t crt_len, char *key_pem,
                           size_t key_len, const char *dir, const char *crt_name,
                           const char *key_name, struct error **reterr)
{
        int gr;

        c->crt_pem = crt_pem;
        c->key_pem = key_pem;
        gr = import_cert(crt_pem, crt_len, &c->crt);
        if (gr < 0)
                return error_set(reterr, EINVAL, "parsing \"%s/%s\": %s", dir, crt_name,
                                 gnutls_strerror(gr));
        gr = import_key(key_pem, key_len, &c->key);
        if (gr < 0)
                return error_set(reterr, EINVAL, "parsing \"%s/%s\": %s", dir, key_name,
                                 gnutls_strerror(gr));
        if (!key_matches_cert(c->crt, c->key))
                return error_set(reterr, EINVAL, "\"%s/%s\" is not the key of \"%s/%s\"", dir,
                                 key_name, dir, crt_name);
        return 0;
}

static int generate_key(struct credential *c, struct error **reterr)
{
        gnutls_datum_t out = { 0 };
        int gr;

        gr = gnutls_x509_privkey_init(&c->key);
        if (gr < 0)
                return gnutls_fail(reterr, ENOMEM, gr, "creating a private key");
        gr = gnutls_x509_privkey_generate2(c->key, GNUTLS_PK_ECDSA,
                                           GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1), 0,
                                           NULL, 0);
        if (gr < 0)
                return gnutls_fail(reterr, EIO, gr, "generating an ECDSA P-256 key");
        gr = gnutls_x509_privkey_export2_pkcs8(c->key, GNUTLS_X509_FMT_PEM, NULL, GNUTLS_PKCS_PLAIN,
                                               &out);
        if (gr < 0)
                return gnutls_fail(reterr, EIO, gr, "encoding a private key");
        c->key_pem = datum_to_string(&out);
        return 0;
}

/* Starts a v3 certificate for c->key: random serial, subject CN, validity, subject key id. */
static int cert_begin(struct credential *c, const char *cn, time_t not_before, time_t not_after,
                      struct error **reterr)
{
        /* RFC 5280 4.1.2.2: a positive serial of at most 20 octets; 16 random octets with the
         * top bit cleared and the next one set stay positive and minimally encoded. */
        unsigned char serial[16], keyid[64];
        size_t keyid_len = sizeof(keyid);
        int gr;

        gr = gnutls_rnd(GNUTLS_RND_NONCE, serial, sizeof(serial));
        if (gr < 0)
                return gnutls_fail(reterr, EIO, gr, "generating a serial number");
        serial[0] = (unsigned char) ((serial[0] & 0x7f) | 0x40);

        gr = gnutls_x509_crt_init(&c->crt);
        if (gr < 0)
                return gnutls_fail(reterr, ENOMEM, gr, "creating a certificate");
        if ((gr = gnutls_x509_crt_set_version(c->crt, 3)) < 0 ||
            (gr = gnutls_x509_crt_set_serial(c->crt, serial, sizeof(serial))) < 0 ||
            (gr = gnutls_x509_crt_set_dn_by_oid(c->crt, GNUTLS_OID_X520_COMMON_NAME, 0, cn,
                                                (unsigned) strlen(cn))) < 0 ||
            (gr = gnutls_x509_crt_set_activation_time(c->crt, not_before)) < 0 ||
            (gr = gnutls_x509_crt_set_expiration_time(c->crt, not_after)) < 0 ||
            (gr = gnutls_x509_crt_set_key(c->crt, c->key)) < 0 ||
            (gr = gnutls_x509_crt_get_key_id(c->crt, 0, keyid, &keyid_len)) < 0 ||
            (gr = gnutls_x509_crt_set_subject_key_id(c->crt, keyid, keyid_len)) < 0)
                return gnutls_fail(reterr, EIO, gr, "building a certificate");
        return 0;
}

static int cert_finish(struct credential *c, const struct credential *issuer, struct error **reterr)
{
        gnutls_datum_t out = { 0 };
        int gr;

        gr = gnutls_x509_crt_sign2(c->crt, issuer->crt, issuer->key, GNUTLS_DIG_SHA256, 0);
        if (gr < 0)
                return gnutls_fail(reterr, EIO, gr, "signing a certificate");
        gr = gnutls_x509_crt_export2(c->crt, GNUTLS_X509_FMT_PEM, &out);
        if (gr < 0)
                return gnutls_fail(reterr, EIO, gr, "encoding a certificate");
        c->crt_pem = datum_to_string(&out);
        return 0;
}

static int issue_ca(struct credential *ca, time_t now, struct error **reterr)
{
        int r, gr;

        r = generate_key(ca, reterr);
        if (r < 0)
                return r;
        r = cert_begin(ca, CA_COMMON_NAME, now - BACKDATE, now + CA_LIFETIME, reterr);
        if (r < 0)
                return r;
        if ((gr = gnutls_x509_crt_set_basic_constraints(ca->crt, 1, -1)) < 0 ||
            (gr = gnutls_x509_crt_set_key_usage(ca->crt, GNUTLS_KEY_KEY_CERT_SIGN |
                                                                 GNUTLS_KEY_CRL_SIGN)) < 0)
                return gnutls_fail(reterr, EIO, gr, "building the CA certificate");
        /* Self-signed: the CA is its own issuer. */
        return cert_finish(ca, ca, reterr);
}

/* A certificate the CA signs for an end entity: the serving certificate (DNS names and IP
 * addresses, serverAuth) or the admin's client certificate (subject O, clientAuth). */
struct leaf_spec {
        const char *cert_file, *key_file;
        const char *cn;
        const char *org;     /* NULL: none */
        const char *purpose; /* GNUTLS_KP_TLS_WWW_SERVER or _CLIENT */
        const char *const *dns;
        const struct ip_san *ips;
        size_t n_ips;
        enum pki_change change; /* what issuing it reports */
};

static int issue_leaf(struct credential *c, const struct credential *ca, time_t now,
                      const struct leaf_spec *l, struct error **reterr)
{
        unsigned char akid[64];
        size_t akid_len = sizeof(akid);
        time_t not_after = now + LEAF_LIFETIME, ca_not_after;
        int r, gr;

        /* A certificate must not outlive its issuer. */
        ca_not_after = gnutls_x509_crt_get_expiration_time(ca->crt);
        if (ca_not_after != (time_t) -1 && ca_not_after < not_after)
                not_after = ca_not_after;

        r = generate_key(c, reterr);
        if (r < 0)
                return r;
        r = cert_begin(c, l->cn, now - BACKDATE, not_after, reterr);
        if (r < 0)
                return r;
        if ((l->org &&
             (gr = gnutls_x509_crt_set_dn_by_oid(c->crt, GNUTLS_OID_X520_ORGANIZATION_NAME, 0,
                                                 l->org, (unsigned) strlen(l->org))) < 0) ||
            (gr = gnutls_x509_crt_set_basic_constraints(c->crt, 0, -1)) < 0 ||
            (gr = gnutls_x509_crt_set_key_usage(c->crt, GNUTLS_KEY_DIGITAL_SIGNATURE |
                                                                GNUTLS_KEY_KEY_ENCIPHERMENT)) < 0 ||
            (gr = gnutls_x509_crt_set_key_purpose_oid(c->crt, l->purpose, 0)) < 0)
                return gnutls_fail(reterr, EIO, gr, "building a certificate");
        if (gnutls_x509_crt_get_subject_key_id(ca->crt, akid, &akid_len, NULL) >= 0) {
                gr = gnutls_x509_crt_set_authority_key_id(c->crt, akid, akid_len);
                if (gr < 0)
                        return gnutls_fail(reterr, EIO, gr, "building a certificate");
        }
        for (size_t i = 0; l->dns && l->dns[i]; i++) {
                gr = gnutls_x509_crt_set_subject_alt_name(c->crt, GNUTLS_SAN_DNSNAME, l->dns[i],
                                                          (unsigned) strlen(l->dns[i]),
                                                          GNUTLS_FSAN_APPEND);
                if (gr < 0)
                        return gnutls_fail(reterr, EIO, gr, "adding a DNS name");
        }
        for (size_t i = 0; i < l->n_ips; i++) {
                gr = gnutls_x509_crt_set_subject_alt_name(c->crt, GNUTLS_SAN_IPADDRESS,
                                                          l->ips[i].addr, (unsigned) l->ips[i].len,
                                                          GNUTLS_FSAN_APPEND);
                if (gr < 0)
                        return gnutls_fail(reterr, EIO, gr, "adding an IP address");
        }
        return cert_finish(c, ca, reterr);
}

/* True when crt's subjectAltName lists every requested DNS name and IP address. */
static bool cert_covers(gnutls_x509_crt_t crt, const char *const *dns, const struct ip_san *ips,
                        size_t n_ips)
{
        for (size_t i = 0; dns && dns[i]; i++) {
                size_t want = strlen(dns[i]);
                bool found = false;
                for (unsigned seq = 0; !found; seq++) {
                        char buf[MAX_DNS_NAME + 2];
                        size_t len = sizeof(buf);
                        unsigned type;
                        int gr = gnutls_x509_crt_get_subject_alt_name2(crt, seq, buf, &len, &type,
                                                                       NULL);
                        if (gr == GNUTLS_E_SHORT_MEMORY_BUFFER)
                                continue;
                        if (gr < 0)
                                break;
                        /* RFC 4343: DNS names compare case-insensitively. */
                        found = type == GNUTLS_SAN_DNSNAME && len == want &&
                                strncasecmp(buf, dns[i], want) == 0;
                }
                if (!found)
                        return false;
        }
        for (size_t i = 0; i < n_ips; i++) {
                bool found = false;
                for (unsigned seq = 0; !found; seq++) {
                        unsigned char buf[MAX_DNS_NAME + 2];
                        size_t len = sizeof(buf);
                        unsigned type;
                        int gr = gnutls_x509_crt_get_subject_alt_name2(crt, seq, buf, &len, &type,
                                                                       NULL);
                        if (gr == GNUTLS_E_SHORT_MEMORY_BUFFER)
                                continue;
                        if (gr < 0)
                                break;
                        found = type == GNUTLS_SAN_IPADDRESS && len == ips[i].len &&
                                memcmp(buf, ips[i].addr, len) == 0;
                }
                if (!found)
                        return false;
        }
        return true;
}

/* Whether crt's first subject attribute oid is want (NULL: crt has none). */
static bool dn_is(gnutls_x509_crt_t crt, const char *oid, const char *want)
{
        char buf[256];
        size_t len = sizeof(buf);
        int gr = gnutls_x509_crt_get_dn_by_oid(crt, oid, 0, 0, buf, &len);

        if (!want)
                return gr == GNUTLS_E_REQUESTED_DATA_NOT_AVAILABLE;
        return gr >= 0 && len == strlen(want) && memcmp(buf, want, len) == 0;
}

/* Why the stored certificate cannot be kept, or NULL when it can. */
static const char *leaf_problem(const struct credential *c, const struct credential *ca, time_t now,
                                const struct leaf_spec *l)
{
        unsigned status = 0;
        time_t expires;

        if (gnutls_x509_crt_verify(c->crt, &ca->crt, 1, 0, &status) < 0 || status != 0)
                return "not valid under the CA";
        expires = gnutls_x509_crt_get_expiration_time(c->crt);
        if (expires == (time_t) -1 || expires - now < RENEW_BEFORE)
                return "expires within 30 days";
        if (!cert_covers(c->crt, l->dns, l->ips, l->n_ips))
                return "does not name every requested host";
        if (!dn_is(c->crt, GNUTLS_OID_X520_COMMON_NAME, l->cn) ||
            !dn_is(c->crt, GNUTLS_OID_X520_ORGANIZATION_NAME, l->org))
                return "names another subject";
        return NULL;
}

/* ---- options ---- */

bool pki_dns_name_valid(const char *s)
{
        size_t len = s ? strlen(s) : 0;

        return len > 0 && len <= MAX_DNS_NAME &&
               strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._") ==
                       len;
}

static int parse_options(const struct pki_options *o, struct ip_san **ret_ips, size_t *ret_n,
                         struct error **reterr)
{
        cleanup_free struct ip_san *ips = NULL;
        size_t n_dns = 0, n_ips = 0;

        if (!o || !o->data_dir || !*o->data_dir)
                return error_set(reterr, EINVAL, "pki: no data directory given");
        if (!o->server_url || !*o->server_url)
                return error_set(reterr, EINVAL, "pki: no server URL given");
        for (size_t i = 0; o->dns_names && o->dns_names[i]; i++) {
                const char *s = o->dns_names[i];
                if (!pki_dns_name_valid(s))
                        return error_set(reterr, EINVAL, "pki: invalid DNS name \"%s\"", s);
                n_dns++;
        }
        for (size_t i = 0; o->ip_addresses && o->ip_addresses[i]; i++)
                n_ips++;
        if (n_dns + n_ips == 0)
                return error_set(reterr, EINVAL,
                                 "pki: the serving certificate needs a DNS name or an IP address");
        ips = xcalloc(n_ips ? n_ips : 1, sizeof(*ips));
        for (size_t i = 0; i < n_ips; i++) {
                const char *s = o->ip_addresses[i];
                if (inet_pton(AF_INET, s, ips[i].addr) == 1)
                        ips[i].len = 4;
                else if (inet_pton(AF_INET6, s, ips[i].addr) == 1)
                        ips[i].len = 16;
                else
                        return error_set(reterr, EINVAL, "pki: invalid IP address \"%s\"", s);
        }
        *ret_ips = TAKE_PTR(ips);
        *ret_n = n_ips;
        return 0;
}

/* ---- token ---- */

static void token_generate(char out[static 2 * TOKEN_BYTES + 1])
{
        static const char hex[] = "0123456789abcdef";
        unsigned char raw[TOKEN_BYTES];

        /* gnutls_rnd only fails when the library's self-tests failed; no token is better than a
         * guessable one. */
        if (gnutls_rnd(GNUTLS_RND_KEY, raw, sizeof(raw)) < 0)
                abort();
        for (size_t i = 0; i < sizeof(raw); i++) {
                out[2 * i] = hex[raw[i] >> 4];
                out[2 * i + 1] = hex[raw[i] & 0xf];
        }
        out[2 * TOKEN_BYTES] = '\0';
        gnutls_memset(raw, 0, sizeof(raw));
}

/* Takes the token out of the file text: trailing whitespace dropped; what remains must be
 * printable ASCII without spaces, as an Authorization header can carry it. */
static int token_parse(char *text, const char *dir, struct error **reterr)
{
        size_t len = strlen(text);

        while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r' || text[len - 1] == ' ' ||
                           text[len - 1] == '\t'))
                text[--len] = '\0';
        if (len == 0)
                return error_set(reterr, EINVAL, "reading \"%s/%s\": the token is empty", dir,
                                 TOKEN_FILE);
        if (len > MAX_TOKEN_LEN)
                return error_set(reterr, EINVAL, "reading \"%s/%s\": the token is too long", dir,
                                 TOKEN_FILE);
        for (size_t i = 0; i < len; i++)
                if ((unsigned char) text[i] <= 0x20 || (unsigned char) text[i] >= 0x7f)
                        return error_set(
                                reterr, EINVAL,
                                "reading \"%s/%s\": the token has a character a bearer token cannot carry",
                                dir, TOKEN_FILE);
        return 0;
}

static void sha256(const char *s, unsigned char out[static SHA256_LEN])
{
        if (gnutls_hash_fast(GNUTLS_DIG_SHA256, s, strlen(s), out) < 0)
                abort();
}

bool pki_token_equal(const struct pki *p, const char *token)
{
        unsigned char digest[SHA256_LEN];
        volatile unsigned char diff = 0;

        if (!p || !p->token || !token)
                return false;
        /* Comparing digests makes the time depend only on the presented token's length, never
         * on how many leading characters match. */
        sha256(token, digest);
        for (size_t i = 0; i < SHA256_LEN; i++)
                diff |= digest[i] ^ p->token_digest[i];
        return diff == 0;
}

/* ---- kubeconfig ---- */

/* Adds s as a YAML scalar: plain when it is unmistakably a string, double-quoted otherwise
 * (values that YAML would read as a number, boolean or null, or that hold special characters). */
static void yaml_scalar_add(struct strbuf *sb, const char *s)
{
        static const char *const words[] = { "y",   "n",    "yes",   "no",  "on",
                                             "off", "true", "false", "null" };
        size_t len = strlen(s);
        bool plain = len > 0 && ((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')) &&
                     strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                               "-._/:@+=[]") == len;

        for (size_t i = 0; plain && i < ARRAY_SIZE(words); i++)
                if (strcasecmp(s, words[i]) == 0)
                        plain = false;
        if (plain) {
                strbuf_addstr(sb, s);
                return;
        }
        strbuf_addch(sb, '"');
        for (const unsigned char *c = (const unsigned char *) s; *c; c++) {
                if (*c == '"' || *c == '\\') {
                        strbuf_addch(sb, '\\');
                        strbuf_addch(sb, (char) *c);
                } else if (*c < 0x20 || *c == 0x7f) {
                        strbuf_addf(sb, "\\x%02x", *c);
                } else {
                        strbuf_addch(sb, (char) *c);
                }
        }
        strbuf_addch(sb, '"');
}

char *pki_kubeconfig_format(const struct pki *p, const char *server_url, const char *cluster_name)
{
        const char *name = cluster_name ? cluster_name : PKI_DEFAULT_CLUSTER_NAME;
        cleanup_free char *ca_data = NULL;
        cleanup_free char *cert_data = NULL;
        cleanup_free char *key_data = NULL;
        struct strbuf sb;

        strbuf_init(&sb);
        strbuf_addstr(&sb, "apiVersion: v1\nkind: Config\nclusters:\n- cluster:\n"
                           "    certificate-authority-data: ");
        ca_data = base64_encode(p->ca_cert_pem, strlen(p->ca_cert_pem));
        strbuf_addstr(&sb, ca_data);
        strbuf_addstr(&sb, "\n    server: ");
        yaml_scalar_add(&sb, server_url);
        strbuf_addstr(&sb, "\n  name: ");
        yaml_scalar_add(&sb, name);
        strbuf_addstr(&sb, "\ncontexts:\n- context:\n    cluster: ");
        yaml_scalar_add(&sb, name);
        strbuf_addstr(&sb, "\n    namespace: default\n    user: " PKI_KUBECONFIG_USER "\n  name: ");
        yaml_scalar_add(&sb, name);
        strbuf_addstr(&sb, "\ncurrent-context: ");
        yaml_scalar_add(&sb, name);
        strbuf_addstr(&sb, "\npreferences: {}\nusers:\n- name: " PKI_KUBECONFIG_USER
                           "\n  user:\n    client-certificate-data: ");
        cert_data = base64_encode(p->admin_cert_pem, strlen(p->admin_cert_pem));
        strbuf_addstr(&sb, cert_data);
        strbuf_addstr(&sb, "\n    client-key-data: ");
        key_data = base64_encode(p->admin_key_pem, strlen(p->admin_key_pem));
        strbuf_addstr(&sb, key_data);
        gnutls_memset(key_data, 0, strlen(key_data));
        strbuf_addch(&sb, '\n');
        return strbuf_detach(&sb);
}

int pki_write_kubeconfig(const struct pki *p, const char *path, const char *server_url,
                         const char *cluster_name, struct error **reterr)
{
        cleanup_free char *text = NULL;
        cleanup_free char *dir = NULL;
        cleanup_close int dfd = -1;
        const char *slash = strrchr(path, '/');
        const char *base = slash ? slash + 1 : path;

        if (!*base)
                return error_set(reterr, EINVAL, "writing \"%s\": not a file name", path);
        if (!server_url || !*server_url)
                return error_set(reterr, EINVAL, "writing \"%s\": no server URL given", path);
        dir = slash ? (slash == path ? xstrdup("/") : xstrndup(path, (size_t) (slash - path)))
                    : xstrdup(".");
        dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return error_set(reterr, errno, "writing \"%s\": %s", path, strerror(errno));
        text = pki_kubeconfig_format(p, server_url, cluster_name);
        return write_file_atomic(dfd, dir, base, text, strlen(text), 0600, reterr);
}

/* ---- pki_ensure ---- */

/* Loads the CA, or creates it when ca.crt is absent. ca.key without ca.crt is what a crash
 * between the two writes leaves; no client can trust a CA whose certificate was never written,
 * so it is replaced. ca.crt without a usable ca.key is an error. */
static int ensure_ca(int pfd, const char *dir, time_t now, struct credential *ca, int *changes,
                     struct error **reterr)
{
        cleanup_free char *crt = NULL;
        cleanup_free char *key = NULL;
        size_t crt_len, key_len;
        time_t expires;
        int r;

        r = read_small_file(pfd, dir, CA_CERT_FILE, false, &crt, &crt_len, reterr);
        if (r < 0)
                return r;
        if (!crt) {
                r = issue_ca(ca, now, reterr);
                if (r < 0)
                        return r;
                r = write_file_atomic(pfd, dir, CA_KEY_FILE, ca->key_pem, strlen(ca->key_pem), 0600,
                                      reterr);
                if (r < 0)
                        return r;
                r = write_file_atomic(pfd, dir, CA_CERT_FILE, ca->crt_pem, strlen(ca->crt_pem),
                                      0644, reterr);
                if (r < 0)
                        return r;
                *changes |= PKI_CREATED_CA;
                return 0;
        }
        r = read_small_file(pfd, dir, CA_KEY_FILE, true, &key, &key_len, reterr);
        if (r < 0)
                return r;
        if (!key)
                return error_set(reterr, EINVAL,
                                 "\"%s/%s\" exists but \"%s/%s\" does not: the CA cannot sign", dir,
                                 CA_CERT_FILE, dir, CA_KEY_FILE);
        r = credential_load(ca, TAKE_PTR(crt), crt_len, TAKE_PTR(key), key_len, dir, CA_CERT_FILE,
                            CA_KEY_FILE, reterr);
        if (r < 0)
                return r;
        expires = gnutls_x509_crt_get_expiration_time(ca->crt);
        if (expires == (time_t) -1 || expires <= now)
                return error_set(reterr, EKEYEXPIRED,
                                 "\"%s/%s\" has expired: remove \"%s\" to create a new CA", dir,
                                 CA_CERT_FILE, dir);
        return 0;
}

static int ensure_leaf(int pfd, const char *dir, time_t now, const struct credential *ca,
                       const struct leaf_spec *l, struct credential *c, int *changes,
                       struct error **reterr)
{
        cleanup_free char *crt = NULL;
        cleanup_free char *key = NULL;
        size_t crt_len, key_len;
        int r;

        /* A leaf pair is derived state: anything wrong with it (unreadable, mismatched, from an
         * earlier CA, too old, missing a name) is repaired by issuing a new one. */
        if (!(*changes & PKI_CREATED_CA)) {
                r = read_small_file(pfd, dir, l->cert_file, false, &crt, &crt_len, reterr);
                if (r < 0)
                        return r;
                r = read_small_file(pfd, dir, l->key_file, true, &key, &key_len, reterr);
                if (r < 0)
                        return r;
        }
        if (crt && key) {
                cleanup_error struct error *ignored = NULL;
                r = credential_load(c, TAKE_PTR(crt), crt_len, TAKE_PTR(key), key_len, dir,
                                    l->cert_file, l->key_file, &ignored);
                if (r == 0 && !leaf_problem(c, ca, now, l))
                        return 0;
                credential_release(c);
        }
        r = issue_leaf(c, ca, now, l, reterr);
        if (r < 0)
                return r;
        /* Key first: a crash before the certificate lands leaves a mismatched pair, which the
         * next start repairs. */
        r = write_file_atomic(pfd, dir, l->key_file, c->key_pem, strlen(c->key_pem), 0600, reterr);
        if (r < 0)
                return r;
        r = write_file_atomic(pfd, dir, l->cert_file, c->crt_pem, strlen(c->crt_pem), 0644, reterr);
        if (r < 0)
                return r;
        *changes |= l->change;
        return 0;
}

/* The service account signing key: made once, never replaced (every token it signed would stop
 * verifying). */
static int ensure_sa_key(int pfd, const char *dir, char **ret, int *changes, struct error **reterr)
{
        cleanup_credential struct credential fresh = { 0 };
        cleanup_free char *text = NULL;
        int r;

        r = read_small_file(pfd, dir, SA_KEY_FILE, true, &text, NULL, reterr);
        if (r < 0)
                return r;
        if (text) {
                *ret = TAKE_PTR(text);
                return 0;
        }
        r = generate_key(&fresh, reterr);
        if (r < 0)
                return r;
        r = write_file_atomic(pfd, dir, SA_KEY_FILE, fresh.key_pem, strlen(fresh.key_pem), 0600,
                              reterr);
        if (r < 0)
                return r;
        *ret = xstrdup(fresh.key_pem);
        *changes |= PKI_CREATED_SA_KEY;
        return 0;
}

static int ensure_token(int pfd, const char *dir, const char *file, char **ret, int *changes,
                        int change, struct error **reterr)
{
        cleanup_free char *text = NULL;
        char fresh[2 * TOKEN_BYTES + 2];
        int r;

        r = read_small_file(pfd, dir, file, true, &text, NULL, reterr);
        if (r < 0)
                return r;
        if (text) {
                r = token_parse(text, dir, reterr);
                if (r < 0)
                        return r;
                *ret = TAKE_PTR(text);
                return 0;
        }
        token_generate(fresh);
        strcat(fresh, "\n");
        r = write_file_atomic(pfd, dir, file, fresh, strlen(fresh), 0600, reterr);
        if (r >= 0) {
                fresh[2 * TOKEN_BYTES] = '\0';
                *ret = xstrdup(fresh);
                *changes |= change;
        }
        gnutls_memset(fresh, 0, sizeof(fresh));
        return r;
}

/* K8S: kubeadm's control-plane join checks that the shared certificates and keys were copied
 * (CheckSharedCertificates); here: beside an existing CA, each file every API server must share
 * is present. */
static int check_shared(int pfd, const char *dir, struct error **reterr)
{
        static const struct {
                const char *file, *why;
        } shared[] = {
                { SA_KEY_FILE, "service account tokens one API server issues must verify on the "
                               "others" },
                { TOKEN_FILE, "the admin token is the cluster's" },
                { PKI_KUBELET_TOKEN_FILE, "the nodes' kubelet endpoints take one token from every "
                                          "API server" },
        };

        struct stat st;

        if (fstatat(pfd, CA_CERT_FILE, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return errno == ENOENT ? 0
                                       : error_set(reterr, errno, "reading \"%s/%s\": %s", dir,
                                                   CA_CERT_FILE, strerror(errno));
        for (size_t i = 0; i < ARRAY_SIZE(shared); i++)
                if (fstatat(pfd, shared[i].file, &st, AT_SYMLINK_NOFOLLOW) < 0)
                        return error_set(reterr, EINVAL,
                                         "\"%s/%s\" exists but \"%s/%s\" does not: copy the whole "
                                         "pki folder of the cluster's first API server (%s)",
                                         dir, CA_CERT_FILE, dir, shared[i].file, shared[i].why);
        return 0;
}

int pki_ensure(const struct pki_options *o, struct pki **ret, struct error **reterr)
{
        cleanup_free struct ip_san *ips = NULL;
        cleanup_free char *pki_dir = NULL;
        cleanup_free char *kubeconfig = NULL;
        cleanup_credential struct credential ca = { 0 };
        cleanup_credential struct credential srv = { 0 };
        cleanup_credential struct credential admin = { 0 };
        cleanup_credential struct credential node = { 0 };
        cleanup_credential struct credential sched = { 0 };
        cleanup_credential struct credential manager = { 0 };
        cleanup_free char *node_cn = NULL;
        cleanup_pki struct pki *p = NULL;
        cleanup_close int dfd = -1;
        cleanup_close int pfd = -1;
        size_t n_ips = 0;
        time_t now = time(NULL);
        struct stat st;
        int changes = 0, r;

        r = parse_options(o, &ips, &n_ips, reterr);
        if (r < 0)
                return r;
        r = open_private_dir(AT_FDCWD, o->data_dir, o->data_dir, &dfd, reterr);
        if (r < 0)
                return r;
        if (o->pki_dir) {
                pki_dir = xstrdup(o->pki_dir);
                r = open_private_dir(AT_FDCWD, o->pki_dir, pki_dir, &pfd, reterr);
        } else {
                pki_dir = xasprintf("%s/%s", o->data_dir, PKI_DIR);
                r = open_private_dir(dfd, PKI_DIR, pki_dir, &pfd, reterr);
        }
        if (r < 0)
                return r;
        /* The keys live here: nobody else may list or enter it. */
        if (fstat(pfd, &st) < 0 || ((st.st_mode & 077) && fchmod(pfd, 0700) < 0))
                return error_set(reterr, errno, "setting the mode of \"%s\": %s", pki_dir,
                                 strerror(errno));

        p = xcalloc(1, sizeof(*p));
        /* What every API server of the cluster shares comes before the CA: a folder with a CA
         * has all of it, or was copied incompletely and is refused. */
        r = check_shared(pfd, pki_dir, reterr);
        if (r < 0)
                return r;
        r = ensure_token(pfd, pki_dir, TOKEN_FILE, &p->token, &changes, PKI_CREATED_TOKEN, reterr);
        if (r < 0)
                return r;
        r = ensure_token(pfd, pki_dir, PKI_KUBELET_TOKEN_FILE, &p->kubelet_token, &changes,
                         PKI_CREATED_KUBELET_TOKEN, reterr);
        if (r < 0)
                return r;
        r = ensure_sa_key(pfd, pki_dir, &p->sa_key_pem, &changes, reterr);
        if (r < 0)
                return r;
        r = ensure_ca(pfd, pki_dir, now, &ca, &changes, reterr);
        if (r < 0)
                return r;
        r = ensure_leaf(pfd, pki_dir, now, &ca,
                        &(struct leaf_spec){ .cert_file = SERVER_CERT_FILE,
                                             .key_file = SERVER_KEY_FILE,
                                             .cn = SERVER_CN,
                                             .purpose = GNUTLS_KP_TLS_WWW_SERVER,
                                             .dns = o->dns_names,
                                             .ips = ips,
                                             .n_ips = n_ips,
                                             .change = PKI_ISSUED_SERVER_CERT },
                        &srv, &changes, reterr);
        if (r < 0)
                return r;
        r = ensure_leaf(pfd, pki_dir, now, &ca,
                        &(struct leaf_spec){ .cert_file = ADMIN_CERT_FILE,
                                             .key_file = ADMIN_KEY_FILE,
                                             .cn = PKI_ADMIN_USER,
                                             .org = PKI_ADMIN_GROUP,
                                             .purpose = GNUTLS_KP_TLS_WWW_CLIENT,
                                             .change = PKI_ISSUED_ADMIN_CERT },
                        &admin, &changes, reterr);
        if (r < 0)
                return r;
        /* K8S: kubeadm's scheduler.conf and controller-manager.conf: client certificates with
         * CN system:kube-scheduler and system:kube-controller-manager and no O (kubeadm
         * phases/kubeconfig), which the bootstrap policy binds to their ClusterRoles */
        r = ensure_leaf(pfd, pki_dir, now, &ca,
                        &(struct leaf_spec){ .cert_file = PKI_SCHEDULER_CERT_FILE,
                                             .key_file = PKI_SCHEDULER_KEY_FILE,
                                             .cn = PKI_SCHEDULER_USER,
                                             .purpose = GNUTLS_KP_TLS_WWW_CLIENT,
                                             .change = PKI_ISSUED_SCHEDULER_CERT },
                        &sched, &changes, reterr);
        if (r < 0)
                return r;
        r = ensure_leaf(pfd, pki_dir, now, &ca,
                        &(struct leaf_spec){ .cert_file = PKI_CONTROLLER_MANAGER_CERT_FILE,
                                             .key_file = PKI_CONTROLLER_MANAGER_KEY_FILE,
                                             .cn = PKI_CONTROLLER_MANAGER_USER,
                                             .purpose = GNUTLS_KP_TLS_WWW_CLIENT,
                                             .change = PKI_ISSUED_CONTROLLER_MANAGER_CERT },
                        &manager, &changes, reterr);
        if (r < 0)
                return r;
        if (o->node_name) {
                node_cn = xasprintf("%s%s", PKI_NODE_USER_PREFIX, o->node_name);
                r = ensure_leaf(pfd, pki_dir, now, &ca,
                                &(struct leaf_spec){ .cert_file = PKI_NODE_CERT_FILE,
                                                     .key_file = PKI_NODE_KEY_FILE,
                                                     .cn = node_cn,
                                                     .org = PKI_NODES_GROUP,
                                                     .purpose = GNUTLS_KP_TLS_WWW_CLIENT,
                                                     .change = PKI_ISSUED_NODE_CERT },
                                &node, &changes, reterr);
                if (r < 0)
                        return r;
        }
        sha256(p->token, p->token_digest);
        p->ca_cert_pem = TAKE_PTR(ca.crt_pem);
        p->ca_key_pem = TAKE_PTR(ca.key_pem);
        p->server_cert_pem = TAKE_PTR(srv.crt_pem);
        p->server_key_pem = TAKE_PTR(srv.key_pem);
        p->admin_cert_pem = TAKE_PTR(admin.crt_pem);
        p->admin_key_pem = TAKE_PTR(admin.key_pem);

        kubeconfig = pki_kubeconfig_format(p, o->server_url, o->cluster_name);
        r = write_file_atomic(dfd, o->data_dir, KUBECONFIG_FILE, kubeconfig, strlen(kubeconfig),
                              0600, reterr);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(p);
        return changes;
}

const char *pki_ca_cert_pem(const struct pki *p)
{
        return p->ca_cert_pem;
}

const char *pki_ca_key_pem(const struct pki *p)
{
        return p->ca_key_pem;
}

const char *pki_server_cert_pem(const struct pki *p)
{
        return p->server_cert_pem;
}

const char *pki_server_key_pem(const struct pki *p)
{
        return p->server_key_pem;
}

const char *pki_sa_key_pem(const struct pki *p)
{
        return p->sa_key_pem;
}

const char *pki_kubelet_token(const struct pki *p)
{
        return p->kubelet_token;
}

const char *pki_admin_token(const struct pki *p)
{
        return p->token;
}

struct pki *pki_free(struct pki *p)
{
        if (!p)
                return NULL;
        if (p->server_key_pem)
                gnutls_memset(p->server_key_pem, 0, strlen(p->server_key_pem));
        if (p->admin_key_pem)
                gnutls_memset(p->admin_key_pem, 0, strlen(p->admin_key_pem));
        if (p->sa_key_pem)
                gnutls_memset(p->sa_key_pem, 0, strlen(p->sa_key_pem));
        free(p->sa_key_pem);
        if (p->token)
                gnutls_memset(p->token, 0, strlen(p->token));
        free(p->admin_cert_pem);
        free(p->admin_key_pem);
        free(p->ca_cert_pem);
        if (p->ca_key_pem)
                explicit_bzero(p->ca_key_pem, strlen(p->ca_key_pem));
        free(p->ca_key_pem);
        free(p->server_cert_pem);
        free(p->server_key_pem);
        free(p->token);
        if (p->kubelet_token)
                gnutls_memset(p->kubelet_token, 0, strlen(p->kubelet_token));
        free(p->kubelet_token);
        free(p);
        return NULL;
}
