/* apiserver-internal.h: what the API server's files share and nothing outside apiserver/ sees:
 * the server context, the parsed request target, and the registry/watch entry points. */
#ifndef FLEXLET_APISERVER_INTERNAL_H
#define FLEXLET_APISERVER_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>

#include "api/schema.h"
#include "apiserver/api.h"
#include "apiserver/inflight.h"
#include "apiserver/resources.h"

struct label_selector;
struct field_selector;

struct apiserver {
        struct store *store;
        const struct pki *pki;
        struct apiserver_options opts;
        atomic_bool ready;
        struct metric *requests;         /* apiserver_request_total */
        struct metric *request_duration; /* apiserver_request_duration_seconds */
        struct metric *psa_evaluations;  /* pod_security_evaluations_total */
        struct metric *psa_errors;       /* pod_security_errors_total */
        struct inflight inflight;        /* --max-(mutating-)requests-inflight */
};

/* What a resource URL names. */
struct api_target {
        const struct api_resource *res;
        const char *ns;   /* namespace from the URL; NULL for cluster scope or all namespaces */
        const char *name; /* NULL for a collection */
        enum api_subresource sub;
        const struct authn_user *user; /* who asks (authn.h) */
};

/* A resource path as the router reads it (api.c): "/api/v1/..." or "/apis/G/V/..." with
 * "/namespaces/NS/..." and a name and subresource where given, parsed in place in buf (the
 * target's strings point into it; no query). *ret_version (if non-NULL): "v1" or V. -ENOENT
 * for any other path. */
int api_target_parse_path(char *buf, struct api_target *t, const char **ret_version);

/* OpenAPI (openapi.c), shared by the v3 and v2 (openapi-v2.c) documents: the list-type and
 * patch-strategy vendor extensions of list schema s, added to l; a kind's definition name
 * ("io.k8s.api.core.v1.Pod"), malloc'd. */
void openapi_list_extensions(json_t *l, const struct schema *s);
char *openapi_definition_name(const struct api_resource *r);

/* Verb handlers (registry.c). Each writes a complete response. */
void registry_get(struct apiserver *s, const struct api_target *t, const struct http_request *req,
                  struct http_response *resp);
void registry_list(struct apiserver *s, const struct api_target *t, const struct http_request *req,
                   struct http_response *resp);
/* A create of a resource with a review hook stores nothing: the hook's object is the answer. */
void registry_create(struct apiserver *s, const struct api_target *t,
                     const struct http_request *req, struct http_response *resp);
void registry_update(struct apiserver *s, const struct api_target *t,
                     const struct http_request *req, struct http_response *resp);
void registry_patch(struct apiserver *s, const struct api_target *t, const struct http_request *req,
                    struct http_response *resp);
void registry_delete(struct apiserver *s, const struct api_target *t,
                     const struct http_request *req, struct http_response *resp);
/* K8S: POST pods/{name}/binding: sets spec.nodeName once and marks PodScheduled. */
void registry_bind(struct apiserver *s, const struct api_target *t, const struct http_request *req,
                   struct http_response *resp);
/* K8S: GET pods/{name}/log (pod-log.c): validates PodLogOptions, picks the container and
 * streams the log from the kubelet of the pod's node. */
void pod_log_get(struct apiserver *s, const struct api_target *t, const struct http_request *req,
                 struct http_response *resp);
/* K8S strategy.go validateContainer: the container a pods/log, exec or attach request names
 * (without a name, a pod's only container); writes the 400 and returns NULL otherwise
 * (pod-log.c). */
const char *pod_choose_container(const json_t *pod, const char *name, const char *pod_name,
                                 struct http_response *resp);
/* "https://HOST:PORT" of node_name's kubelet (its preferred address and published port), or
 * NULL with the error written (pod-log.c). Caller frees. */
char *pod_kubelet_url(struct apiserver *s, const char *node_name, struct http_response *resp);
/* K8S: pods/exec, pods/attach (GET with a WebSocket upgrade, POST) and pods/portforward
 * (pod-stream.c): validated, authorized as upstream, and proxied to the pod's kubelet. */
void pod_stream_handle(struct apiserver *s, const struct api_target *t,
                       const struct http_request *req, struct http_response *resp);
void registry_delete_collection(struct apiserver *s, const struct api_target *t,
                                const struct http_request *req, struct http_response *resp);

/* DeleteOptions from a body (optional) or the query: gracePeriodSeconds, preconditions and the
 * propagation policy. */
struct delete_options {
        long long grace; /* -1: not given */
        const char *uid;
        const char *rv;
        /* "Orphan", "Background", "Foreground" or NULL (not given); the deprecated
         * orphanDependents true is "Orphan", false "Background" (K8S: store.go
         * shouldOrphanDependents and shouldDeleteDependents read them alike) */
        const char *propagation;
};
/* Deletes (or, for a pod with a grace period, marks) old, the stored object t names, as DELETE
 * does, dryRun from req's query: -ESTALE when old is no longer the stored version (the caller
 * retries); otherwise 0, with a failure (a precondition's 409, a store error) written to resp
 * and nothing written on success. */
int registry_delete_object(struct apiserver *s, const struct api_target *t,
                           const struct http_request *req, struct http_response *resp,
                           const json_t *old, const struct delete_options *o);
/* A request body as JSON (or YAML by its Content-Type); NULL with a 400 written to resp, whose
 * parse error message opens with what. New reference. */
json_t *registry_parse_body(const struct http_request *req, struct http_response *resp,
                            const char *what);

/* K8S: POST pods/{name}/eviction (eviction.c): policy/v1 (and v1beta1) Eviction, checked against
 * the pod's PodDisruptionBudget (EvictionREST.Create). */
void registry_evict(struct apiserver *s, const struct api_target *t, const struct http_request *req,
                    struct http_response *resp);
/* What a pods/eviction body is (kind Eviction, policy/v1), for the protobuf decoder. */
extern const struct api_resource eviction_body_resource;
/* K8S: POST serviceaccounts/{name}/token (token-request.c): a bound service account token, in
 * an authentication/v1 TokenRequest. */
void registry_token_request(struct apiserver *s, const struct api_target *t,
                            const struct http_request *req, struct http_response *resp);
extern const struct api_resource token_request_resource;
/* K8S: GET, PUT and PATCH {deployments,replicasets}/{name}/scale (scale.c): an autoscaling/v1
 * Scale of the object's spec.replicas (ScaleREST). */
void scale_handle(struct apiserver *s, const struct api_target *t, const struct http_request *req,
                  struct http_response *resp);
extern const struct api_resource scale_body_resource;

/* Parses labelSelector and fieldSelector from the query; on a bad selector writes a 400 and
 * returns < 0. */
int request_selectors(const struct api_target *t, const struct http_request *req,
                      struct http_response *resp, struct label_selector **ret_labels,
                      struct field_selector **ret_fields);
bool object_matches(const json_t *obj, const struct label_selector *ls,
                    const struct field_selector *fs);
/* True when Accept asks for a metav1.Table. */
bool request_wants_table(const struct http_request *req);

/* Streams a watch (watch.c); takes ownership of the selectors. */
void watch_serve(struct apiserver *s, const struct api_target *t, const struct http_request *req,
                 struct http_response *resp, struct label_selector *ls, struct field_selector *fs);

#endif
