/* csr-controller.h: kube-controller-manager's csrapproving and csrsigning controllers for the
 * in-tree kubelet signers (K8S: pkg/controller/certificates/approver/sarapprove.go,
 * pkg/controller/certificates/signer/signer.go), one loop over CertificateSigningRequests.
 *
 * Approving (csr_approver_decide): a request with no certificate, not yet approved or denied,
 * whose spec.request parses, is approved (condition Approved, reason AutoApproved) when it is
 *   - nodeclient: signer kubernetes.io/kube-apiserver-client-kubelet, the kubelet client shape
 *     (csr_check_kubelet_client), from a member of system:bootstrappers;
 *   - selfnodeclient: the same shape, requested by the user the subject names (CN =
 *     spec.username) in system:nodes (a node renewing its own certificate);
 *   - flexlet's serving rule: signer kubernetes.io/kubelet-serving, the kubelet serving shape
 *     (csr_check_kubelet_serving), requested by system:node:N in system:nodes for CN
 *     system:node:N, N an existing Node, every DNS SAN one of the Node's Hostname/InternalDNS/
 *     ExternalDNS addresses and every IP SAN one of its InternalIP/ExternalIP addresses.
 *     Upstream never auto-approves serving certificates; flexlet does for a node's own
 *     addresses only (docs/joining-nodes.md).
 * Upstream asks a SubjectAccessReview ("create" on certificatesigningrequests/nodeclient or
 * /selfnodeclient) for the requestor; flexlet has no SubjectAccessReview API yet, so the
 * approver decides by the same groups the bootstrap policy binds those roles to
 * (rbac-bootstrap.c). Everything else is left for a person (`kubectl certificate approve`).
 *
 * Signing (csr_signer_sign): an approved request without certificate and not Failed, for
 * kube-apiserver-client-kubelet, kubelet-serving or kube-apiserver-client, whose shape holds,
 * is signed by the cluster CA: subject, public key and SANs of the request, key usages and
 * extended key usages from spec.usages, valid from 5 minutes ago (upstream's backdate) for
 * expirationSeconds (at least 10 minutes, at most max_duration_s, upstream's
 * --cluster-signing-duration) and never past the CA's own expiry. A shape that does not hold
 * sets condition Failed, reason SignerValidationFailure, with the check's message. */
#ifndef FLEXLET_CONTROLLERS_CSR_CONTROLLER_H
#define FLEXLET_CONTROLLERS_CSR_CONTROLLER_H

#include <jansson.h>
#include <stdbool.h>
#include <time.h>

#include "base/error.h"
#include "client/client.h"

/* K8S: --cluster-signing-duration's default, 8760h */
#define CSR_SIGNING_DURATION_DEFAULT_S (365L * 24 * 3600)

/* Whether to approve csr, given the Nodes (a snapshot keyed by name; NULL: none). 1 with
 * *ret_message (static) to approve, 0 to leave it. */
int csr_approver_decide(const json_t *csr, const json_t *nodes, const char **ret_message);

/* Signs csr (which must be approved; not checked here) with the CA: 0 with *ret_pem (the
 * certificate, PEM, caller frees); -EINVAL with *reterr when the request's shape does not hold
 * for its signer (the Failed condition's message) or the signer is not one of the three;
 * another -errno when signing itself failed (retried). */
int csr_signer_sign(const char *ca_cert_pem, const char *ca_key_pem, const json_t *csr, time_t now,
                    long max_duration_s, char **ret_pem, struct error **reterr);

struct csr_controller_options {
        const char *ca_cert_pem, *ca_key_pem; /* copied */
        long max_duration_s;                  /* 0: CSR_SIGNING_DURATION_DEFAULT_S */
};

struct csr_controller;

int csr_controller_start(const struct api_client_options *o,
                         const struct csr_controller_options *co, struct csr_controller **ret,
                         struct error **reterr);
/* NULL-safe; returns NULL. */
struct csr_controller *csr_controller_stop(struct csr_controller *x);

#endif
