/* bootstrap.h: a node's TLS bootstrap, as the kubelet's (K8S: pkg/kubelet/certificate/bootstrap
 * LoadClientCert, and kubeadm's token discovery): from a join token (client/join-token.h) to a
 * client certificate of its own, system:node:NAME in system:nodes, and a serving certificate
 * for its kubelet endpoint.
 *
 *   1. discovery: GET /api/v1/namespaces/kube-public/configmaps/cluster-info anonymously from
 *      each server in turn, without trusting its certificate yet; the CA in its kubeconfig is
 *      taken only when its sha256 is the join token's (otherwise nothing more is sent);
 *   2. a fresh ECDSA P-256 key and a CertificateSigningRequest for
 *      kubernetes.io/kube-apiserver-client-kubelet (O=system:nodes, CN=system:node:NAME,
 *      usages digital signature and client auth), created with the bootstrap token over TLS
 *      that CA verifies, then read back until it carries a certificate (the approver and the
 *      signer: csr-controller.h), is denied or failed, or the time runs out;
 *   3. the same for the kubelet endpoint (kubernetes.io/kubelet-serving, the node's own
 *      addresses as SANs, usages digital signature and server auth) with the node's own
 *      client certificate.
 *
 * Files under DATA_DIR/pki (0700): ca.crt (0644), node.key and node.crt (0600), kubelet.key and
 * kubelet.crt (0600), each written atomically. A later start reuses them while they are
 * usable: parse, the key is the certificate's, the CA signed it, the subject is the node's and
 * it is valid for at least another hour. This library never logs; every failure is an error
 * whose message says what to fix. */
#ifndef FLEXLET_NODE_BOOTSTRAP_H
#define FLEXLET_NODE_BOOTSTRAP_H

#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"

#define BOOTSTRAP_CA_FILE           "ca.crt"
#define BOOTSTRAP_CLIENT_CERT_FILE  "node.crt"
#define BOOTSTRAP_CLIENT_KEY_FILE   "node.key"
#define BOOTSTRAP_SERVING_CERT_FILE "kubelet.crt"
#define BOOTSTRAP_SERVING_KEY_FILE  "kubelet.key"

struct bootstrap_options {
        const char *servers;    /* "https://h:p[,https://h2:p2]" */
        const char *token_file; /* the join token; read only when a certificate must be made */
        const char *data_dir;   /* credentials under DATA_DIR/pki */
        const char *node_name;
        long timeout_ms; /* how long to wait for each certificate; 0: 5 minutes */
};

/* Ensures DATA_DIR/pki holds the CA and a usable client certificate for the node, bootstrapping
 * when not. 0 (reused) or 1 (made); -errno with *reterr: -EINVAL a join token that does not
 * parse, -EPERM a CA whose hash is not the token's, -EACCES the token refused (401) or the
 * request denied, -ETIMEDOUT no certificate in time, another -errno from the network or the
 * file system. */
int bootstrap_client_cert(const struct bootstrap_options *o, struct error **reterr);

/* Ensures a usable kubelet serving certificate for the node's addresses (DNS names and IP
 * addresses, NULL-terminated lists, at least one name in all), asked with the client
 * certificate. 0 reused, 1 made, -errno as above. *ret_cert_pem and *ret_key_pem are the
 * certificate and key (caller frees). */
int bootstrap_serving_cert(const struct bootstrap_options *o, const char *const *dns,
                           const char *const *ips, char **ret_cert_pem, char **ret_key_pem,
                           struct error **reterr);

/* Builds a PEM CERTIFICATE REQUEST for key_pem (PKCS#8 PEM) with subject O=org, CN=cn and the
 * given SANs (either list may be NULL). Exposed for tests. */
int bootstrap_make_csr(const char *key_pem, const char *org, const char *cn, const char *const *dns,
                       const char *const *ips, char **ret_pem, struct error **reterr);

#endif
