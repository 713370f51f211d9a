/* csr.c: certificate signing requests from clients (csr.h): Go's pem.Decode of the first
 * block, GnuTLS for the PKCS#10 body and its self-signature, and upstream's kubelet client and
 * serving shape rules. It only reads; signing is the certificates controller's. */
#include <arpa/inet.h>
#include <errno.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <stdlib.h>
#include <string.h>

#include "api/csr.h"
#include "base/alloc.h"
#include "base/base64.h"
#include "base/macro.h"

#define PEM_TYPE_CSR "CERTIFICATE REQUEST"

const char *const csr_key_usages[] = {
        "signing",
        "digital signature",
        "content commitment",
        "key encipherment",
        "key agreement",
        "data encipherment",
        "cert sign",
        "crl sign",
        "encipher only",
        "decipher only",
        "any",
        "server auth",
        "client auth",
        "code signing",
        "email protection",
        "s/mime",
        "ipsec end system",
        "ipsec tunnel",
        "ipsec user",
        "timestamping",
        "ocsp signing",
        "microsoft sgc",
        "netscape sgc",
        NULL,
};

bool csr_key_usage_valid(const char *usage)
{
        for (size_t i = 0; csr_key_usages[i]; i++)
                if (streq(usage, csr_key_usages[i]))
                        return true;
        return false;
}

static const char *find_mem(const char *hay, size_t n, const char *needle)
{
        size_t m = strlen(needle);

        for (size_t i = 0; m <= n && i <= n - m; i++)
                if (memcmp(hay + i, needle, m) == 0)
                        return hay + i;
        return NULL;
}

/* Go pem.Decode, reduced to what matters here: the first "-----BEGIN TYPE-----" line (at the
 * start or after a newline) through its "-----END TYPE-----"; no headers. 0 with the type and
 * the decoded body, -EINVAL when there is no such block. */
static int pem_first_block(const char *pem, size_t len, char **ret_type, char **ret_der,
                           size_t *ret_der_len, size_t *ret_end)
{
        const char *p = pem, *end = pem + len;

        for (;;) {
                const char *b = find_mem(p, (size_t) (end - p), "-----BEGIN ");
                const char *t, *te, *body, *e;
                cleanup_free char *type = NULL, *endline = NULL, *b64 = NULL;
                size_t n = 0;

                if (!b)
                        return -EINVAL;
                if (b != pem && b[-1] != '\n') {
                        p = b + 1;
                        continue;
                }
                t = b + strlen("-----BEGIN ");
                te = find_mem(t, (size_t) (end - t), "-----");
                if (!te || memchr(t, '\n', (size_t) (te - t))) {
                        p = b + 1;
                        continue;
                }
                type = xstrndup(t, (size_t) (te - t));
                body = te + 5;
                while (body < end && (*body == '\r' || *body == ' ' || *body == '\t'))
                        body++;
                if (body >= end || *body != '\n') {
                        p = b + 1;
                        continue;
                }
                endline = xasprintf("\n-----END %s-----", type);
                e = find_mem(body, (size_t) (end - body), endline);
                if (!e) {
                        p = b + 1;
                        continue;
                }
                /* the body without white space, base64 */
                b64 = xmalloc((size_t) (e - body) + 1);
                for (const char *q = body; q < e; q++)
                        if (*q != '\n' && *q != '\r' && *q != ' ' && *q != '\t')
                                b64[n++] = *q;
                b64[n] = '\0';
                if (base64_decode(b64, n, ret_der, ret_der_len, NULL) < 0) {
                        p = b + 1;
                        continue;
                }
                *ret_type = TAKE_PTR(type);
                if (ret_end)
                        *ret_end = (size_t) (e - pem) + strlen(endline);
                return 0;
        }
}

static void push(char ***list, size_t *n, char *s)
{
        *list = xrealloc(*list, (*n + 1) * sizeof(**list));
        (*list)[(*n)++] = s;
}

void csr_info_release(struct csr_info *c)
{
        if (!c)
                return;
        free(c->cn);
        for (size_t i = 0; i < c->n_orgs; i++)
                free(c->orgs[i]);
        free(c->orgs);
        for (size_t i = 0; i < c->n_dns; i++)
                free(c->dns[i]);
        free(c->dns);
        for (size_t i = 0; i < c->n_ips; i++)
                free(c->ips[i]);
        free(c->ips);
        free(c->der);
        memset(c, 0, sizeof(*c));
}

static int bad(struct error **reterr, int gr)
{
        return error_set(reterr, EINVAL, "x509: %s", gnutls_strerror(gr));
}

/* Every value of one subject attribute, in order. */
static int read_dn(gnutls_x509_crq_t crq, const char *oid, char ***list, size_t *n,
                   struct error **reterr)
{
        for (unsigned idx = 0;; idx++) {
                char buf[1024];
                size_t size = sizeof(buf);
                int gr = gnutls_x509_crq_get_dn_by_oid(crq, oid, idx, 0, buf, &size);

                if (gr == GNUTLS_E_REQUESTED_DATA_NOT_AVAILABLE)
                        return 0;
                if (gr < 0)
                        return bad(reterr, gr);
                if (memchr(buf, '\0', size) || *n >= CSR_MAX_NAMES)
                        return error_set(reterr, EINVAL, "x509: malformed subject");
                push(list, n, xstrndup(buf, size));
        }
}

static int read_sans(gnutls_x509_crq_t crq, struct csr_info *c, struct error **reterr)
{
        for (unsigned seq = 0;; seq++) {
                char buf[1024];
                size_t size = sizeof(buf);
                unsigned type = 0, critical = 0;
                int gr = gnutls_x509_crq_get_subject_alt_name(crq, seq, buf, &size, &type,
                                                              &critical);

                if (gr == GNUTLS_E_REQUESTED_DATA_NOT_AVAILABLE)
                        return 0;
                if (gr < 0)
                        return bad(reterr, gr);
                if (c->n_dns + c->n_ips + c->n_emails + c->n_uris >= CSR_MAX_NAMES)
                        return error_set(reterr, EINVAL, "x509: too many subjectAltNames");
                switch (type) {
                case GNUTLS_SAN_DNSNAME:
                        if (memchr(buf, '\0', size))
                                return error_set(reterr, EINVAL, "x509: malformed DNS name");
                        push(&c->dns, &c->n_dns, xstrndup(buf, size));
                        break;
                case GNUTLS_SAN_IPADDRESS: {
                        char text[INET6_ADDRSTRLEN];
                        int af = size == 4 ? AF_INET : size == 16 ? AF_INET6 : 0;

                        /* K8S (Go): parseSANExtension: "x509: cannot parse IP address of
                         * length N" */
                        if (!af || !inet_ntop(af, buf, text, sizeof(text)))
                                return error_set(reterr, EINVAL,
                                                 "x509: cannot parse IP address of length %zu",
                                                 size);
                        push(&c->ips, &c->n_ips, xstrdup(text));
                        break;
                }
                case GNUTLS_SAN_RFC822NAME:
                        c->n_emails++;
                        break;
                case GNUTLS_SAN_URI:
                        c->n_uris++;
                        break;
                default:
                        /* Go keeps other name types out of the four lists */
                        break;
                }
        }
}

int csr_parse(const char *pem, size_t len, struct csr_info *ret, struct error **reterr)
{
        cleanup_free char *type = NULL;
        struct csr_info c = { 0 };
        gnutls_x509_crq_t crq = NULL;
        gnutls_datum_t d;
        int gr, r;

        if (len > CSR_MAX_PEM_BYTES)
                return error_set(reterr, EINVAL, "PEM block type must be " PEM_TYPE_CSR);
        if (pem_first_block(pem, len, &type, &c.der, &c.der_len, NULL) < 0 ||
            !streq(type, PEM_TYPE_CSR)) {
                free(c.der);
                return error_set(reterr, EINVAL, "PEM block type must be " PEM_TYPE_CSR);
        }
        d = (gnutls_datum_t){ .data = (unsigned char *) c.der, .size = (unsigned) c.der_len };
        gr = gnutls_x509_crq_init(&crq);
        if (gr < 0) {
                csr_info_release(&c);
                return error_set(reterr, ENOMEM, "x509: %s", gnutls_strerror(gr));
        }
        gr = gnutls_x509_crq_import(crq, &d, GNUTLS_X509_FMT_DER);
        if (gr < 0) {
                r = bad(reterr, gr);
                goto fail;
        }
        /* K8S: CheckSignature: the request is signed by the key it carries */
        gr = gnutls_x509_crq_verify(crq, 0);
        if (gr < 0) {
                r = error_set(reterr, EINVAL, "x509: signature verification failed: %s",
                              gnutls_strerror(gr));
                goto fail;
        }
        {
                char **cns = NULL;
                size_t n_cns = 0;

                r = read_dn(crq, GNUTLS_OID_X520_COMMON_NAME, &cns, &n_cns, reterr);
                /* K8S (Go): pkix.Name.CommonName is the last CN attribute */
                c.cn = xstrdup(n_cns ? cns[n_cns - 1] : "");
                for (size_t i = 0; i < n_cns; i++)
                        free(cns[i]);
                free(cns);
                if (r < 0)
                        goto fail;
        }
        r = read_dn(crq, GNUTLS_OID_X520_ORGANIZATION_NAME, &c.orgs, &c.n_orgs, reterr);
        if (r >= 0)
                r = read_sans(crq, &c, reterr);
        if (r < 0)
                goto fail;
        gnutls_x509_crq_deinit(crq);
        *ret = c;
        return 0;
fail:
        gnutls_x509_crq_deinit(crq);
        csr_info_release(&c);
        return r;
}

int csr_certificate_check(const char *pem, size_t len, struct error **reterr)
{
        size_t off = 0, blocks = 0;

        if (len > CSR_MAX_PEM_BYTES)
                return error_set(reterr, EINVAL, "x509: certificate data too long");
        for (;;) {
                cleanup_free char *type = NULL, *der = NULL;
                size_t der_len = 0, end = 0;
                gnutls_x509_crt_t crt;
                gnutls_datum_t d;
                int gr;

                if (pem_first_block(pem + off, len - off, &type, &der, &der_len, &end) < 0)
                        break;
                if (!streq(type, "CERTIFICATE"))
                        return error_set(reterr, EINVAL,
                                         "only CERTIFICATE PEM blocks are allowed, found \"%s\"",
                                         type);
                d = (gnutls_datum_t){ .data = (unsigned char *) der, .size = (unsigned) der_len };
                if ((gr = gnutls_x509_crt_init(&crt)) < 0)
                        return bad(reterr, gr);
                gr = gnutls_x509_crt_import(crt, &d, GNUTLS_X509_FMT_DER);
                gnutls_x509_crt_deinit(crt);
                if (gr < 0)
                        return bad(reterr, gr);
                blocks++;
                off += end;
        }
        if (!blocks)
                return error_set(reterr, EINVAL, "must contain at least one CERTIFICATE PEM block");
        return 0;
}

/* Whether usages (a JSON array of strings) is exactly the set of want (NULL-terminated);
 * duplicates count once, as Go's sets.String. */
static bool usages_equal(const json_t *usages, const char *const *want)
{
        size_t i, n_want = 0;
        json_t *u;

        for (; want[n_want]; n_want++) {
                bool found = false;

                json_array_foreach(usages, i, u)
                        found = found || streq(json_string_value(u) ?: "", want[n_want]);
                if (!found)
                        return false;
        }
        json_array_foreach(usages, i, u) {
                bool known = false;

                for (size_t k = 0; k < n_want; k++)
                        known = known || streq(json_string_value(u) ?: "", want[k]);
                if (!known)
                        return false;
        }
        return true;
}

static bool orgs_are_nodes(const struct csr_info *c)
{
        return c->n_orgs == 1 && streq(c->orgs[0], "system:nodes");
}

static bool cn_is_node(const struct csr_info *c)
{
        return strncmp(c->cn, "system:node:", strlen("system:node:")) == 0;
}

int csr_check_kubelet_client(const struct csr_info *c, const json_t *usages, struct error **reterr)
{
        static const char *const full[] = { "digital signature", "key encipherment", "client auth",
                                            NULL };
        static const char *const no_rsa[] = { "digital signature", "client auth", NULL };

        if (!orgs_are_nodes(c))
                return error_set(reterr, EINVAL, "subject organization is not system:nodes");
        if (c->n_dns)
                return error_set(reterr, EINVAL, "DNS subjectAltNames are not allowed");
        if (c->n_emails)
                return error_set(reterr, EINVAL, "Email subjectAltNames are not allowed");
        if (c->n_ips)
                return error_set(reterr, EINVAL, "IP subjectAltNames are not allowed");
        if (c->n_uris)
                return error_set(reterr, EINVAL, "URI subjectAltNames are not allowed");
        if (!cn_is_node(c))
                return error_set(reterr, EINVAL,
                                 "subject common name does not begin with system:node:");
        if (!usages_equal(usages, full) && !usages_equal(usages, no_rsa))
                return error_set(reterr, EINVAL,
                                 "usages did not match [client auth digital signature key "
                                 "encipherment]");
        return 0;
}

int csr_check_kubelet_serving(const struct csr_info *c, const json_t *usages, struct error **reterr)
{
        static const char *const full[] = { "digital signature", "key encipherment", "server auth",
                                            NULL };
        static const char *const no_rsa[] = { "digital signature", "server auth", NULL };

        if (!orgs_are_nodes(c))
                return error_set(reterr, EINVAL, "subject organization is not system:nodes");
        if (!c->n_dns && !c->n_ips)
                return error_set(reterr, EINVAL, "DNS or IP subjectAltName is required");
        if (c->n_emails)
                return error_set(reterr, EINVAL, "Email subjectAltNames are not allowed");
        if (c->n_uris)
                return error_set(reterr, EINVAL, "URI subjectAltNames are not allowed");
        if (!usages_equal(usages, full) && !usages_equal(usages, no_rsa))
                return error_set(reterr, EINVAL,
                                 "usages did not match [digital signature key encipherment "
                                 "server auth]");
        if (!cn_is_node(c))
                return error_set(reterr, EINVAL,
                                 "subject common name does not begin with system:node:");
        return 0;
}
