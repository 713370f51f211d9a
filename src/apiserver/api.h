/* api.h: the API server: its options and its one entry point, api_handle().
 *
 * api_handle() is the handler http-server.c calls for each request (http/http.h). Everything
 * behind it, routing, authentication, decoding, patching, validation, storage, is plain C over
 * struct http_request and struct http_response, so unit tests and benchmarks can call
 * api_handle() directly. */
#ifndef FLEXLET_APISERVER_API_H
#define FLEXLET_APISERVER_API_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "http/http.h"

struct store;
struct pki;

/* K8S: kube-apiserver refuses request bodies over 3 MiB with 413. */
#define API_MAX_BODY_BYTES (3 * 1024 * 1024)

/* The strings are borrowed: they must outlive the server. */
struct apiserver_options {
        const char *node_name;
        const char *listen; /* "127.0.0.1:6443", for discovery's serverAddressByClientCIDRs */
        bool require_auth;
        /* Who requests come from (authn.h; borrowed); required with require_auth. */
        const struct authn *authn;
        /* What the users may do (authz.h; borrowed): every request passes it after
         * authentication. NULL: no authorization, every request is allowed. */
        const struct authz *authz;
        /* RBAC's rules (rbac.h; borrowed), for the escalation checks of role and binding
         * writes; NULL: nobody but system:masters and holders of escalate/bind writes them. */
        struct rbac *rbac;
        /* Signs the tokens serviceaccounts/token issues (jws.h; borrowed); NULL: none are. */
        const struct jws_signer *sa_signer;
        /* How pods/log reaches a node's kubelet (K8S --kubelet-certificate-authority and the
         * client credentials): the PEM CA that signed the kubelets' serving certificates
         * (NULL: the system's trust store) and the bearer token sent to them (NULL: none). */
        const char *kubelet_ca_file;
        const char *kubelet_token;
        /* and the client certificate and key (PEM files) presented to them, which a node that
         * joined (`flexlet node`, not knowing the token) takes when the cluster CA signed it
         * for system:masters (K8S --kubelet-client-certificate/--kubelet-client-key); NULL:
         * none */
        const char *kubelet_client_cert_file;
        const char *kubelet_client_key_file;
        /* The process's metrics registry, rendered at GET /metrics (the apiserver registers its
         * request families in it); NULL: no /metrics. */
        struct metrics_registry *metrics;
        /* K8S --max-requests-inflight and --max-mutating-requests-inflight (0: no limit;
         * apiserver_options from flags default them to 400 and 200, see inflight.h). */
        unsigned max_requests_inflight;
        unsigned max_mutating_requests_inflight;
        /* K8S --audit-log-path and --audit-policy-file: the audit log (audit.h; borrowed);
         * NULL: none (every response still carries an Audit-Id). */
        const struct audit *audit;
};

struct apiserver;
struct audit;
struct authn;
struct authz;
struct rbac;
struct jws_signer;
struct metrics_registry;

int apiserver_new(struct store *store, const struct pki *pki, const struct apiserver_options *o,
                  struct apiserver **ret);
struct apiserver *apiserver_free(struct apiserver *s);
/* Marks the server ready (GET /readyz answers 200 from then on). */
void apiserver_set_ready(struct apiserver *s, bool ready);

/* Handles one request; apiserver is the struct apiserver (so that api_handle is the HTTP
 * server's handler as is). Never fails: every error becomes a Status response. */
void api_handle(void *apiserver, const struct http_request *req, struct http_response *resp);

#endif
