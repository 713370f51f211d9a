/* csr.h: PKCS#10 certificate signing requests as certificates.k8s.io/v1 carries them
 * (spec.request: one PEM block "CERTIFICATE REQUEST"), and upstream's rules about their shape.
 *
 * csr_parse() is what kube-apiserver's validation does with a client's request (K8S:
 * pkg/apis/certificates ParseCSR, then x509.CertificateRequest.CheckSignature): the first PEM
 * block must be a CERTIFICATE REQUEST whose self-signature checks. The two shape checks are
 * K8S pkg/apis/certificates/helpers.go ValidateKubeletClientCSR and ValidateKubeletServingCSR,
 * used by the approver and the signer. Everything here is a pure function of its input (GnuTLS
 * parses; nothing is logged). Input is hostile: sizes are capped before anything is decoded. */
#ifndef FLEXLET_API_CSR_H
#define FLEXLET_API_CSR_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

/* K8S: the signer names of the in-tree signers (certificates/v1 types.go) */
#define CSR_SIGNER_KUBE_APISERVER_CLIENT         "kubernetes.io/kube-apiserver-client"
#define CSR_SIGNER_KUBE_APISERVER_CLIENT_KUBELET "kubernetes.io/kube-apiserver-client-kubelet"
#define CSR_SIGNER_KUBELET_SERVING               "kubernetes.io/kubelet-serving"
#define CSR_SIGNER_LEGACY_UNKNOWN                "kubernetes.io/legacy-unknown"

/* The largest request taken (a PEM CSR is well under 4 KiB; RSA 8192 with many SANs fits). */
#define CSR_MAX_PEM_BYTES (64 * 1024)
/* Entries of one kind (organizations, DNS names, ...) kept at most; more is refused. */
#define CSR_MAX_NAMES 64

/* What a parsed request asks for. Strings are NUL-free (a name with a NUL is refused). */
struct csr_info {
        char *cn;    /* subject commonName ("" when none) */
        char **orgs; /* subject organization values, in order */
        size_t n_orgs;
        char **dns; /* DNS subjectAltNames */
        size_t n_dns;
        char **ips; /* IP subjectAltNames as text ("10.0.0.1", "::1") */
        size_t n_ips;
        size_t n_emails, n_uris; /* other subjectAltNames, counted */
        char *der;               /* the request's DER */
        size_t der_len;
};

/* Parses pem (len bytes, not NUL-terminated necessarily) as Go's pem.Decode and
 * x509.ParseCertificateRequest then CheckSignature. 0 with *ret filled (release it), or
 * -EINVAL with *reterr carrying upstream's words: "PEM block type must be CERTIFICATE REQUEST"
 * (no PEM block, or another type), "x509: ..." (a body that does not parse, a signature that
 * does not verify: GnuTLS's reason). */
int csr_parse(const char *pem, size_t len, struct csr_info *ret, struct error **reterr);
void csr_info_release(struct csr_info *c);

/* K8S ValidateKubeletClientCSR: O exactly [system:nodes], no SAN of any kind, CN starting
 * "system:node:", usages (a JSON array of strings) exactly {digital signature, key
 * encipherment, client auth} or {digital signature, client auth}. 0, or -EINVAL with
 * upstream's message ("subject organization is not system:nodes", "DNS subjectAltNames are not
 * allowed", ..., "usages did not match [client auth digital signature key encipherment]"). */
int csr_check_kubelet_client(const struct csr_info *c, const json_t *usages, struct error **reterr);
/* K8S ValidateKubeletServingCSR: O exactly [system:nodes], at least one DNS or IP SAN, no
 * email or URI SAN, usages {digital signature, key encipherment, server auth} or {digital
 * signature, server auth}, CN starting "system:node:". 0 or -EINVAL as above. */
int csr_check_kubelet_serving(const struct csr_info *c, const json_t *usages,
                              struct error **reterr);

/* K8S: validateCertificate: pem (len bytes) holds at least one PEM block, every block a
 * CERTIFICATE without headers whose body parses. -EINVAL with upstream's words ("must contain at
 * least one CERTIFICATE PEM block", "only CERTIFICATE PEM blocks are allowed, found \"X\"",
 * "x509: ..."). */
int csr_certificate_check(const char *pem, size_t len, struct error **reterr);

/* K8S: certificates/v1 KeyUsage values (allValidUsages), NULL-terminated, in upstream's order. */
extern const char *const csr_key_usages[];
bool csr_key_usage_valid(const char *usage);

#endif
