/* pki.h: the API server's credentials: its own CA, the HTTPS serving certificate, the admin's
 * client certificate and bearer token, and the kubeconfig that lets kubectl use them.
 *
 * `flexlet serve` creates all of this on first start and loads it afterwards. Everything lives
 * under the pki folder, pki_options.pki_dir or DATA_DIR/pki/ (mode 0700):
 *
 *   ca.key, ca.crt          self-signed CA, ECDSA P-256, 10 years, CN=flexlet-ca,
 *                           basicConstraints CA:TRUE, keyUsage keyCertSign|cRLSign
 *   server.key, server.crt  serving certificate signed by the CA, ECDSA P-256, 1 year,
 *                           CN=flexlet-apiserver, SANs = the requested DNS names and IP
 *                           addresses, extKeyUsage serverAuth,
 *                           keyUsage digitalSignature|keyEncipherment
 *   admin.key, admin.crt    the admin's client certificate, signed by the CA, ECDSA P-256,
 *                           1 year, CN=kubernetes-admin O=system:masters (the user and group
 *                           the API server reads from it, as kubeadm's and k3s's admin
 *                           certificates), extKeyUsage clientAuth
 *   node.key, node.crt      with pki_options.node_name: this machine's node agent's client
 *                           certificate, signed by the CA, ECDSA P-256, 1 year,
 *                           CN=system:node:NAME O=system:nodes (K8S: the kubelet's client
 *                           certificate, which the Node authorizer and NodeRestriction
 *                           recognise, pkg/auth/nodeidentifier), extKeyUsage clientAuth
 *   scheduler.key, scheduler.crt
 *                           the scheduler's client certificate, signed by the CA, ECDSA P-256,
 *                           1 year, CN=system:kube-scheduler, no O (K8S: kubeadm's
 *                           scheduler.conf), extKeyUsage clientAuth
 *   controller-manager.key, controller-manager.crt
 *                           the controller manager's, the same with
 *                           CN=system:kube-controller-manager (kubeadm's
 *                           controller-manager.conf): it lists and watches for the controllers
 *                           and gets each its own service account token (docs/rbac.md)
 *   admin.token             32 random bytes, hex-encoded (64 characters and a newline): the
 *                           same admin as a bearer token, for people and their scripts (curl);
 *                           no flexlet component uses it
 *   kubelet.token           the same form as admin.token: what the API server presents to the
 *                           nodes' kubelet endpoints (pods/log) and they require; no API
 *                           credential (it authenticates nobody to the API server)
 *   sa.key                  the service account token signing key, ECDSA P-256 (K8S
 *                           --service-account-signing-key-file); made once, never replaced
 *
 * and DATA_DIR/kubeconfig (0600), rewritten on every start, with the admin's client certificate.
 * Private keys and the token are 0600, certificates 0644. PEM files hold one object each; keys are
 * unencrypted PKCS#8. Every write goes to a temporary file that is fsynced and renamed over the
 * target, then the directory is fsynced, so a crash leaves either the old or the new file.
 *
 * Several API servers of one cluster each get a copy of the first's folder (as kubeadm's
 * control-plane join copies /etc/kubernetes/pki): the CA, sa.key and the two tokens are the
 * cluster's; each issues its own serving certificate from the CA when the copied one does not
 * name its addresses. So that an incomplete copy cannot start a server that silently disagrees
 * (tokens that do not verify), the shared files are made before the CA on a first start, and
 * a folder with ca.crt but without ca.key, sa.key, admin.token or kubelet.token is refused.
 *
 * The CA and the tokens are never replaced once they exist. The serving, admin and node
 * certificates are issued again (with a new key) when missing, unreadable, not matching their key,
 * not signed by the CA, naming another subject, not naming every requested DNS name and IP address
 * (serving), or expiring within 30 days. */
#ifndef FLEXLET_APISERVER_PKI_H
#define FLEXLET_APISERVER_PKI_H

#include <stdbool.h>

#include "base/error.h"
#include "base/macro.h"

struct pki_options {
        const char *data_dir; /* required; created (0700) if absent, its parent must exist */
        /* where the files below live; NULL: DATA_DIR/pki. Created (0700) if absent, its parent
         * must exist. */
        const char *pki_dir;
        /* NULL-terminated lists, either may be NULL; together they must name at least one SAN.
         * DNS names are compared case-insensitively; IP addresses are IPv4 or IPv6 literals
         * ("127.0.0.1", "::1") and become iPAddress SANs. */
        const char *const *dns_names;
        const char *const *ip_addresses;
        const char *server_url;   /* required, e.g. "https://127.0.0.1:6443" */
        const char *cluster_name; /* kubeconfig cluster and context name; NULL: "flexlet" */
        /* the node whose agent's client certificate to keep (node.crt); NULL: none */
        const char *node_name;
};

#define PKI_DEFAULT_CLUSTER_NAME "flexlet"
#define PKI_KUBECONFIG_USER      "admin"
/* The admin's identity, in its client certificate and for its token. */
#define PKI_ADMIN_USER  "kubernetes-admin"
#define PKI_ADMIN_GROUP "system:masters"
/* A node's identity (K8S: pkg/auth/nodeidentifier): user system:node:NAME in system:nodes. */
#define PKI_NODE_USER_PREFIX "system:node:"
#define PKI_NODES_GROUP      "system:nodes"
/* The node agent's client certificate and key, under DATA_DIR/pki. */
#define PKI_NODE_CERT_FILE     "node.crt"
#define PKI_NODE_KEY_FILE      "node.key"
#define PKI_KUBELET_TOKEN_FILE "kubelet.token"
/* The admin's client certificate and key, under DATA_DIR/pki (also what the API server
 * presents to kubelets that take client certificates: docs/joining-nodes.md). */
#define PKI_ADMIN_CERT_FILE "admin.crt"
#define PKI_ADMIN_KEY_FILE  "admin.key"
/* The scheduler's and the controller manager's identities and files (K8S: kubeadm's
 * scheduler.conf and controller-manager.conf users, bound by the bootstrap policy). */
#define PKI_SCHEDULER_USER               "system:kube-scheduler"
#define PKI_SCHEDULER_CERT_FILE          "scheduler.crt"
#define PKI_SCHEDULER_KEY_FILE           "scheduler.key"
#define PKI_CONTROLLER_MANAGER_USER      "system:kube-controller-manager"
#define PKI_CONTROLLER_MANAGER_CERT_FILE "controller-manager.crt"
#define PKI_CONTROLLER_MANAGER_KEY_FILE  "controller-manager.key"

/* What pki_ensure() had to create; it returns these or'ed together (0: everything loaded). */
enum pki_change {
        PKI_CREATED_CA = 1 << 0,
        PKI_CREATED_TOKEN = 1 << 1,
        PKI_ISSUED_SERVER_CERT = 1 << 2,
        PKI_ISSUED_ADMIN_CERT = 1 << 3,
        PKI_CREATED_SA_KEY = 1 << 4,
        PKI_ISSUED_NODE_CERT = 1 << 5,
        PKI_CREATED_KUBELET_TOKEN = 1 << 6,
        PKI_ISSUED_SCHEDULER_CERT = 1 << 7,
        PKI_ISSUED_CONTROLLER_MANAGER_CERT = 1 << 8,
};

struct pki;

/* Loads or creates the credentials described above and writes DATA_DIR/kubeconfig. On success
 * sets *ret to a new struct pki owned by the caller and returns a mask of enum pki_change
 * (>= 0). Fails with -EINVAL for bad options (no SANs, a malformed IP address or DNS name, no
 * data_dir or server_url) or a CA / token that exists but cannot be used (unreadable PEM, a
 * CA key that does not match ca.crt, ca.crt without ca.key, sa.key or a token, an empty
 * token); -EKEYEXPIRED
 * when the CA has expired; -errno from the file system; *reterr says which file and why. A broken
 * CA is never replaced silently: clients may trust it. */
int pki_ensure(const struct pki_options *o, struct pki **ret, struct error **reterr);

/* True when s (NULL: false) is a name pki_ensure takes as a DNS name: 1 to 253 characters of
 * letters, digits, '-', '.' and '_'. A caller that offers a name it did not choose (the host
 * name, "(none)" in a bare VM) checks it first and leaves it out of the certificate. */
bool pki_dns_name_valid(const char *s);

/* Renders a kubeconfig (YAML) that reaches server_url with the CA and the admin's client
 * certificate. The
 * cluster and context are named cluster_name (NULL: "flexlet"), the user "admin", the context's
 * namespace is "default". Caller frees. */
char *pki_kubeconfig_format(const struct pki *p, const char *server_url, const char *cluster_name);

/* Writes pki_kubeconfig_format() atomically to path with mode 0600. */
int pki_write_kubeconfig(const struct pki *p, const char *path, const char *server_url,
                         const char *cluster_name, struct error **reterr);

/* PEM text exactly as stored on disk; borrowed, valid until pki_free(). */
const char *pki_ca_cert_pem(const struct pki *p);
/* The CA's private key (PKCS#8 PEM), for the certificate signer (csr-controller.h) only. */
const char *pki_ca_key_pem(const struct pki *p);
const char *pki_server_cert_pem(const struct pki *p);
const char *pki_server_key_pem(const struct pki *p);
/* The service account signing key, PEM (PKCS#8); borrowed. */
const char *pki_sa_key_pem(const struct pki *p);
/* The kubelet endpoints' token (kubelet.token) without the newline; borrowed. */
const char *pki_kubelet_token(const struct pki *p);
/* The admin bearer token without the trailing newline; borrowed. */
const char *pki_admin_token(const struct pki *p);

/* True when token (NULL allowed: false) is exactly the admin token. The time taken does not
 * depend on how much of the token matches: both sides are hashed with SHA-256 and the digests
 * compared without early exit. */
bool pki_token_equal(const struct pki *p, const char *token);

struct pki *pki_free(struct pki *p);
DEFINE_CLEANUP(struct pki, pki_free, pki)
#define cleanup_pki cleanup_of(pki_free)

#endif
