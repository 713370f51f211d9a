/* api.c: the front of the API server: health endpoints, authentication, version, discovery
 * and OpenAPI, and the routing of resource URLs to the registry's verbs. Knows nothing of
 * HTTP libraries (see http/http-server.c) nor of storage details (see registry.c). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "apiserver/admission-pod-security.h"
#include "apiserver/apiserver-internal.h"
#include "apiserver/audit.h"
#include "apiserver/authn.h"
#include "apiserver/authz.h"
#include "apiserver/discovery.h"
#include "apiserver/impersonate.h"
#include "apiserver/negotiate.h"
#include "apiserver/pki.h"
#include "apiserver/status.h"
#include "apiserver/wire.h"
#include "base/alloc.h"
#include "base/metrics.h"
#include "base/strbuf.h"
#include "base/utf8.h"
#include "base/timeutil.h"
#include "base/json.h"

#define NOT_FOUND_MESSAGE "the server could not find the requested resource"

int apiserver_new(struct store *store, const struct pki *pki, const struct apiserver_options *o,
                  struct apiserver **ret)
{
        struct apiserver *s = xcalloc(1, sizeof(*s));

        s->store = store;
        s->pki = pki;
        s->opts = *o;
        atomic_store(&s->ready, false);
        inflight_init(&s->inflight, o->max_requests_inflight, o->max_mutating_requests_inflight);
        if (o->metrics) {
                /* K8S: the labels and buckets of k8s.io/apiserver/pkg/endpoints/metrics */
                static const char *const total[] = { "code",        "component", "dry_run",
                                                     "group",       "resource",  "scope",
                                                     "subresource", "verb",      "version",
                                                     NULL };
                static const double buckets[] = { 0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8,
                                                  1.0,   1.25,  1.5,  2,   3,   4,   5,   6,
                                                  8,     10,    15,   20,  30,  45,  60 };
                s->requests = metrics_counter_new(
                        o->metrics, "apiserver_request_total",
                        "[STABLE] Counter of apiserver requests broken out for each verb, dry run "
                        "value, group, version, resource, scope, component, and HTTP response code.",
                        total, NULL);
                s->request_duration = metrics_histogram_new(
                        o->metrics, "apiserver_request_duration_seconds",
                        "[STABLE] Response latency distribution in seconds for each verb, dry run "
                        "value, group, version, resource, subresource, scope and component.",
                        total + 1, buckets, sizeof(buckets) / sizeof(buckets[0]), NULL);
                if (!s->requests || !s->request_duration ||
                    pod_security_metrics_register(o->metrics, &s->psa_evaluations, &s->psa_errors) <
                            0) {
                        free(s);
                        return -EEXIST;
                }
        }
        *ret = s;
        return 0;
}

struct apiserver *apiserver_free(struct apiserver *s)
{
        free(s);
        return NULL;
}

void apiserver_set_ready(struct apiserver *s, bool ready)
{
        atomic_store(&s->ready, ready);
}

/* K8S: the insecure port's user (kube-apiserver before 1.20), for a server without
 * authentication (require_auth false: tests of the API alone). */
static const char *const unsecured_groups[] = { AUTHN_GROUP_MASTERS, NULL };

/* K8S: the paths anonymous requests may reach (AuthenticationConfiguration's anonymous
 * conditions, AnonymousAuthConfigurableEndpoints): the health endpoints and the version, which
 * the bootstrap policy's system:public-info-viewer then allows to system:unauthenticated, and
 * kube-public's cluster-info, which kubeadm's discovery reads before it trusts the CA (a Role
 * in kube-public lets system:anonymous get it: cmd/node-token.h). Every other request without
 * credentials is refused, as --anonymous-auth=false would. */
static bool anonymous_path(const char *method, const char *p)
{
        return streq(p, "/healthz") || streq(p, "/livez") || streq(p, "/readyz") ||
               streq(p, "/version") ||
               (streq(method, "GET") &&
                streq(p, "/api/v1/namespaces/kube-public/configmaps/cluster-info"));
}

/* K8S: pkg/authentication/request/anonymous: system:anonymous in system:unauthenticated (and
 * not in system:authenticated). */
static struct authn_user *anonymous_user(void)
{
        struct authn_user *u = xcalloc(1, sizeof(*u));

        u->name = xstrdup(AUTHN_USER_ANONYMOUS);
        u->uid = xstrdup("");
        u->groups = xcalloc(2, sizeof(*u->groups));
        u->groups[0] = xstrdup(AUTHN_GROUP_UNAUTHENTICATED);
        return u;
}

/* Who sent req: 0 with *ret, or -EACCES (401). */
static int authenticate(const struct apiserver *s, const struct http_request *req,
                        struct authn_user **ret)
{
        if (!s->opts.require_auth) {
                *ret = authn_user_new("system:unsecured", NULL, unsecured_groups);
                return 0;
        }
        if (!req->authorization && !req->client_cert_der &&
            anonymous_path(req->method, req->path)) {
                *ret = anonymous_user();
                return 0;
        }
        if (!s->opts.authn)
                return -EACCES;
        return authn_request(s->opts.authn, req, ret);
}

/* K8S: filters/authorization.go WithAuthorization, after authentication and before any
 * handler: true when the chain allows req; otherwise the 403 (or, when req names no
 * resource it could, the 500) is written. */
static bool authorize(const struct apiserver *s, const struct authn_user *user,
                      const struct http_request *req, struct http_response *resp,
                      struct audit_request *ar)
{
        cleanup_error struct error *err = NULL;
        cleanup_free char *storage = NULL, *reason = NULL;
        struct authz_attributes a;

        if (authz_attributes_from_request(req, user, &a, &storage, &err) < 0) {
                /* K8S: WithRequestInfo answers InternalError */
                cleanup_free char *msg =
                        xasprintf("failed to create RequestInfo: %s", err->message);
                status_respond(resp, EIO, msg, NULL);
                return false;
        }
        if (authz_authorize(s->opts.authz, &a, &reason) == AUTHZ_ALLOW) {
                /* K8S: WithAuthorization annotates the audit event with the decision and the
                 * deciding authorizer's reason ("" when it gave none) */
                audit_request_annotate(ar, AUDIT_DECISION_ANNOTATION, "allow");
                audit_request_annotate(ar, AUDIT_REASON_ANNOTATION, reason ? reason : "");
                return true;
        }
        audit_request_annotate(ar, AUDIT_DECISION_ANNOTATION, "forbid");
        audit_request_annotate(ar, AUDIT_REASON_ANNOTATION, reason ? reason : "");
        authz_respond_forbidden(resp, &a, reason);
        /* K8S: responsewriters.Forbidden answers with the negotiated serializer (ErrorNegotiated):
         * a client that asks for protobuf gets the Status in protobuf */
        {
                struct api_output out = { .media = API_MEDIA_JSON };

                if (negotiate_output(req->accept, false, &out) == 0 &&
                    out.media == API_MEDIA_PROTOBUF)
                        wire_response_to_protobuf(api_resources[0], resp);
        }
        return false;
}

/* K8S: responsewriters.InternalError: a plain-text 500, `Internal Server Error: "URI": err`,
 * with &, < and > escaped as HTML. */
static void respond_internal_error(const struct http_request *req, struct http_response *resp,
                                   const char *err)
{
        struct strbuf uri, msg, body;

        strbuf_init(&uri);
        strbuf_addstr(&uri, req->path);
        for (size_t i = 0; i < req->n_query; i++)
                strbuf_addf(&uri, "%c%s%s%s", i ? '&' : '?', req->query[i].key,
                            req->query[i].value[0] ? "=" : "", req->query[i].value);
        strbuf_init(&msg);
        strbuf_addstr(&msg, "Internal Server Error: ");
        utf8_go_quote(&msg, uri.buf, uri.len);
        strbuf_addf(&msg, ": %s\n", err);
        strbuf_init(&body);
        for (const char *p = msg.buf; *p; p++) {
                if (*p == '&')
                        strbuf_addstr(&body, "&amp;");
                else if (*p == '<')
                        strbuf_addstr(&body, "&lt;");
                else if (*p == '>')
                        strbuf_addstr(&body, "&gt;");
                else
                        strbuf_addch(&body, *p);
        }
        http_response_text(resp, 500, body.buf);
        strbuf_release(&uri);
        strbuf_release(&msg);
        strbuf_release(&body);
}

/* K8S: filters/impersonation.go WithImpersonation, after authentication and audit, before
 * authorization: 0 with *ret_user the user req acts as (NULL when it asks for no one), or -1
 * with the answer written: a 500 for groups, extras or a uid without a user, a 400 for a header
 * that is not UTF-8, upstream's 403 for the first thing user may not impersonate. */
static int impersonate(const struct apiserver *s, const struct authn_user *user,
                       const struct http_request *req, struct audit_request *ar,
                       struct http_response *resp, struct authn_user **ret_user)
{
        cleanup_error struct error *err = NULL;
        cleanup_free char *reason = NULL;
        struct impersonation imp;
        size_t refused = 0;
        int r;

        *ret_user = NULL;
        if (!req->n_impersonate)
                return 0;
        r = impersonation_parse(req->impersonate, req->n_impersonate, &imp, &err);
        if (r == -EILSEQ) {
                cleanup_free char *msg = xasprintf("invalid request: %s", err->message);
                status_respond(resp, EINVAL, msg, NULL);
                return -1;
        }
        if (r < 0) {
                respond_internal_error(req, resp, err->message);
                return -1;
        }
        if (imp.n == 0)
                return 0;
        if (impersonation_authorize(s->opts.authz, user, &imp, &refused, &reason) < 0) {
                struct authz_attributes a;
                struct api_output out = { .media = API_MEDIA_JSON };

                impersonation_attributes(&imp.items[refused], user, &a);
                authz_respond_forbidden(resp, &a, reason);
                if (negotiate_output(req->accept, false, &out) == 0 &&
                    out.media == API_MEDIA_PROTOBUF)
                        wire_response_to_protobuf(api_resources[0], resp);
                impersonation_release(&imp);
                return -1;
        }
        *ret_user = impersonation_user(&imp);
        impersonation_release(&imp);
        audit_request_impersonated(ar, *ret_user);
        return 0;
}

static void respond_version(struct http_response *resp)
{
        json_t *v =
                json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "major", "1", "minor",
                          "33", "gitVersion", "v1.33.0+flexlet", "gitCommit", "flexlet",
                          "gitTreeState", "clean", "buildDate", "2026-01-01T00:00:00Z", "goVersion",
                          "none", "compiler", "gcc", "platform", "linux/amd64");
        http_response_json(resp, 200, v);
        json_decref(v);
}

/* Splits path into at most max segments (in place in buf); returns the count or -1. */
static int split_path(char *buf, char **seg, int max)
{
        char *save = NULL;
        int n = 0;

        for (char *p = strtok_r(buf, "/", &save); p; p = strtok_r(NULL, "/", &save)) {
                if (n == max)
                        return -1;
                seg[n++] = p;
        }
        return n;
}

static int subresource_from_string(const struct api_resource *r, const char *s,
                                   enum api_subresource *ret)
{
        if (!api_resource_has_subresource(r, s))
                return -ENOENT;
        return api_subresource_parse(s, ret);
}

/* Parses the part after /api/v1 or /apis/G/V into a target. */
static int parse_target(const char *group, char **seg, int n, struct api_target *t)
{
        const struct api_resource *r;
        int i = 0;

        *t = (struct api_target){ .sub = API_SUB_NONE };
        /* /namespaces/{ns}/{plural}... names a namespaced resource, unless {plural} is a
         * subresource of the namespace itself. */
        if (n >= 3 && streq(seg[0], "namespaces") && (r = api_resource_by_plural(group, seg[2])) &&
            r->namespaced) {
                t->ns = seg[1];
                i = 2;
        }
        if (i >= n)
                return -ENOENT;
        t->res = api_resource_by_plural(group, seg[i]);
        if (!t->res)
                return -ENOENT;
        if (t->ns == NULL && t->res->namespaced && n - i > 1)
                return -ENOENT; /* a namespaced item needs its namespace */
        if (n - i >= 2)
                t->name = seg[i + 1];
        if (n - i == 3 && subresource_from_string(t->res, seg[i + 2], &t->sub) < 0)
                return -ENOENT;
        if (n - i > 3)
                return -ENOENT;
        return 0;
}

int api_target_parse_path(char *buf, struct api_target *t, const char **ret_version)
{
        char *seg[8];
        int n = split_path(buf, seg, (int) ARRAY_SIZE(seg));

        if (n >= 3 && streq(seg[0], "api") && streq(seg[1], "v1") &&
            parse_target("", seg + 2, n - 2, t) == 0) {
                if (ret_version)
                        *ret_version = "v1";
                return 0;
        }
        if (n >= 4 && streq(seg[0], "apis") && parse_target(seg[1], seg + 3, n - 3, t) == 0) {
                if (ret_version)
                        *ret_version = seg[2];
                return 0;
        }
        return -ENOENT;
}

/* K8S: the verb label of apiserver_request_total (CleanVerb): LIST and WATCH for collection
 * reads, DELETECOLLECTION, else the method. */
static const char *metric_verb(const struct api_target *t, const struct http_request *req)
{
        const char *m = req->method, *w = http_request_query(req, "watch");

        if (streq(m, "GET") && w && (streq(w, "true") || streq(w, "1")))
                return "WATCH";
        if (streq(m, "GET") && !t->name)
                return "LIST";
        if (streq(m, "DELETE") && !t->name)
                return "DELETECOLLECTION";
        return m;
}

/* K8S: apiserver_request_total and apiserver_request_duration_seconds (long-running requests,
 * watches and followed logs, are counted but not timed, as upstream). */
static void count_request(struct apiserver *s, const struct api_target *t,
                          const struct http_request *req, const struct http_response *resp,
                          int64_t t0_ms)
{
        char code[8];
        const char *verb = metric_verb(t, req);
        const char *scope = t->name ? "resource" : t->ns ? "namespace" : "cluster";
        const char *total_labels[] = { code,
                                       "apiserver",
                                       "",
                                       t->res->group,
                                       t->res->plural,
                                       scope,
                                       api_subresource_name(t->sub),
                                       verb,
                                       t->res->version,
                                       NULL };
        const char *duration_labels[] = { "apiserver",   "",
                                          t->res->group, t->res->plural,
                                          scope,         api_subresource_name(t->sub),
                                          verb,          t->res->version,
                                          NULL };

        if (!s->requests)
                return;
        (void) snprintf(code, sizeof(code), "%u", resp->status);
        (void) metrics_add(s->requests, total_labels, 1);
        if (!resp->stream.read)
                (void) metrics_observe(s->request_duration, duration_labels,
                                       (double) (time_monotonic_ms() - t0_ms) / 1000.0);
}

#define METHOD_NOT_ALLOWED "the server does not allow this method on the requested resource"

/* The subresources that are one action each, with the one method that reaches it. */
static const struct {
        enum api_subresource sub;
        const char *method;
        void (*handle)(struct apiserver *s, const struct api_target *t,
                       const struct http_request *req, struct http_response *resp);
} actions[] = {
        { API_SUB_LOG, "GET", pod_log_get },
        { API_SUB_BINDING, "POST", registry_bind },
        { API_SUB_EVICTION, "POST", registry_evict },
        { API_SUB_TOKEN, "POST", registry_token_request },
};

static void dispatch_resource(struct apiserver *s, const struct api_target *target,
                              const struct http_request *req, struct http_response *resp);

static bool is_watch(const struct http_request *req)
{
        const char *w = http_request_query(req, "watch");
        return w && (streq(w, "true") || streq(w, "1"));
}

/* K8S: the create and update handlers decode the body by its Content-Type
 * (NegotiateInputSerializer): JSON and YAML go to the registry as they are; a protobuf body is
 * decoded here into the JSON the registry reads, so the rest is one path. Writes the answer and
 * returns < 0 when the body cannot be taken; *ret_json is the transcoded body, if any. */
/* The kind a request on t reads and answers: pods/eviction takes a policy/v1 Eviction and
 * serviceaccounts/token an authentication/v1 TokenRequest, not the resource's own kind. */
static const struct api_resource *body_resource(const struct api_target *t)
{
        if (t->sub == API_SUB_EVICTION)
                return &eviction_body_resource;
        if (t->sub == API_SUB_TOKEN)
                return &token_request_resource;
        if (t->sub == API_SUB_SCALE)
                return &scale_body_resource;
        return t->res;
}

static int decode_body(const struct api_target *t, const struct http_request *req,
                       struct http_response *resp, char **ret_json)
{
        cleanup_error struct error *err = NULL;
        enum api_media media;

        *ret_json = NULL;
        if (!streq(req->method, "POST") && !streq(req->method, "PUT"))
                return 0;
        /* K8S: the streaming subresources are connecters: a POST upgrades, it has no body */
        if (t->sub == API_SUB_EXEC || t->sub == API_SUB_ATTACH || t->sub == API_SUB_PORTFORWARD)
                return 0;
        if (negotiate_input(req->content_type, &media) < 0) {
                status_respond(resp, EPROTONOSUPPORT, negotiate_unsupported_message(), NULL);
                return -EPROTONOSUPPORT;
        }
        if (media != API_MEDIA_PROTOBUF || t->sub == API_SUB_LOG)
                return 0;
        if (req->body_len == 0) {
                status_respond(resp, EINVAL, "the body of the request was empty", NULL);
                return -EINVAL;
        }
        if (wire_body_to_json(body_resource(t), req->body, req->body_len, ret_json, &err) < 0) {
                status_respond(resp, EINVAL, err->message, NULL);
                return -EINVAL;
        }
        return 0;
}

static void route_resource(struct apiserver *s, const char *group, char **seg, int n,
                           const struct authn_user *user, const struct http_request *req,
                           struct http_response *resp)
{
        struct api_target t;
        struct api_output out = { .media = API_MEDIA_JSON };
        int64_t t0 = time_monotonic_ms();
        cleanup_free char *json_body = NULL;
        struct http_request jreq;

        if (parse_target(group, seg, n, &t) < 0) {
                status_respond(resp, ENOENT, NOT_FOUND_MESSAGE, NULL);
                return;
        }
        t.user = user;
        /* K8S: every resource response is negotiated (NegotiateOutputMediaType; watches
         * NegotiateOutputStreamSerializer); the log subresource writes text of its own */
        if (t.sub != API_SUB_LOG && t.sub != API_SUB_EXEC && t.sub != API_SUB_ATTACH &&
            t.sub != API_SUB_PORTFORWARD && !t.res->serve_read &&
            negotiate_output(req->accept, is_watch(req), &out) < 0) {
                status_respond(resp, ENOMSG, negotiate_not_acceptable_message(is_watch(req)), NULL);
                count_request(s, &t, req, resp, t0);
                return;
        }
        if (decode_body(&t, req, resp, &json_body) == 0) {
                jreq = *req;
                if (json_body) {
                        jreq.body = json_body;
                        jreq.body_len = strlen(json_body);
                        jreq.content_type = MEDIA_JSON;
                }
                /* the JSON text of the answer would be thrown away */
                resp->defer_json = out.media == API_MEDIA_PROTOBUF || req->wants_object;
                dispatch_resource(s, &t, &jreq, resp);
        }
        if (out.media == API_MEDIA_PROTOBUF)
                wire_response_to_protobuf(body_resource(&t), resp);
        else if (out.media == API_MEDIA_YAML && resp->content_type &&
                 streq(resp->content_type, MEDIA_JSON))
                /* JSON is a YAML document (YAML 1.2 is a superset of it); no YAML emitter */
                resp->content_type = MEDIA_YAML;
        count_request(s, &t, req, resp, t0);
}

/* K8S: the verb a request on the resource itself asks for, as RBAC and the descriptor's verbs
 * name it; NULL for a method no verb serves. */
static const char *resource_verb(const struct api_target *t, const struct http_request *req)
{
        const char *m = req->method, *w = http_request_query(req, "watch");

        if (streq(m, "GET"))
                return w && (streq(w, "true") || streq(w, "1")) ? "watch"
                       : t->name                                ? "get"
                                                                : "list";
        if (streq(m, "POST"))
                return t->name ? NULL : "create";
        if (streq(m, "PUT"))
                return t->name ? "update" : NULL;
        if (streq(m, "PATCH"))
                return t->name ? "patch" : NULL;
        if (streq(m, "DELETE"))
                return t->name ? "delete" : "deletecollection";
        return NULL;
}

static bool resource_allows(const struct api_resource *res, const char *verb)
{
        for (size_t i = 0; verb && res->verbs[i]; i++)
                if (streq(res->verbs[i], verb))
                        return true;
        return false;
}

static void dispatch_resource(struct apiserver *s, const struct api_target *target,
                              const struct http_request *req, struct http_response *resp)
{
        struct api_target t = *target;
        const char *m = req->method;

        /* K8S: the descriptor's verbs are the only truth (DELETE of the namespace collection
         * once deleted every namespace; upstream has no such route: 405) */
        if (t.sub == API_SUB_NONE && !resource_allows(t.res, resource_verb(&t, req))) {
                status_respond(resp, EOPNOTSUPP, METHOD_NOT_ALLOWED, NULL);
                return;
        }

        /* made on request, answered in JSON whatever Accept prefers (resource-metrics.h) */
        if (t.res->serve_read) {
                if (t.sub != API_SUB_NONE)
                        status_respond(resp, ENOENT, NOT_FOUND_MESSAGE, NULL);
                else
                        t.res->serve_read(s, &t, req, resp);
                return;
        }
        for (size_t i = 0; i < ARRAY_SIZE(actions); i++) {
                if (t.sub != actions[i].sub)
                        continue;
                if (streq(m, actions[i].method))
                        actions[i].handle(s, &t, req, resp);
                else
                        status_respond(resp, EOPNOTSUPP, METHOD_NOT_ALLOWED, NULL);
                return;
        }
        if (t.sub == API_SUB_SCALE) {
                scale_handle(s, &t, req, resp);
                return;
        }
        if (t.sub == API_SUB_EXEC || t.sub == API_SUB_ATTACH || t.sub == API_SUB_PORTFORWARD) {
                pod_stream_handle(s, &t, req, resp);
                return;
        }
        if (t.sub == API_SUB_FINALIZE && !streq(m, "PUT")) {
                status_respond(resp, EOPNOTSUPP, METHOD_NOT_ALLOWED, NULL);
                return;
        }
        if (streq(m, "GET"))
                (t.name ? registry_get : registry_list)(s, &t, req, resp);
        else if (streq(m, "POST") && !t.name)
                registry_create(s, &t, req, resp);
        else if (streq(m, "PUT") && t.name)
                registry_update(s, &t, req, resp);
        else if (streq(m, "PATCH") && t.name)
                registry_patch(s, &t, req, resp);
        else if (streq(m, "DELETE") && t.name && t.sub == API_SUB_NONE)
                registry_delete(s, &t, req, resp);
        else if (streq(m, "DELETE") && !t.name)
                registry_delete_collection(s, &t, req, resp);
        else
                status_respond(resp, EOPNOTSUPP, METHOD_NOT_ALLOWED, NULL);
}

/* GET /metrics: the process's registry (the apiserver's families, and under serve the node
 * agent's) in the Prometheus text format. */
static void respond_metrics(struct apiserver *s, struct http_response *resp)
{
        cleanup_error struct error *err = NULL;

        if (!s->opts.metrics) {
                status_respond(resp, ENOENT, NOT_FOUND_MESSAGE, NULL);
                return;
        }
        resp->status = 200;
        resp->content_type = METRICS_CONTENT_TYPE;
        if (metrics_render(s->opts.metrics, &resp->body, &err) < 0)
                status_respond(resp, EIO, err->message, NULL);
}

static void handle_request(struct apiserver *s, const struct authn_user *user,
                           const struct http_request *req, struct audit_request *ar,
                           struct http_response *resp);

/* K8S: the RequestInfo of req as the audit policy reads it (RequestInfoFactory): a path under
 * /api/v1 or /apis/G/V naming a resource is a resource request, its verb the resource's
 * (resource_verb; a POST to a named subresource is a create); any other is a non-resource
 * request with the lower-case method as its verb. buf (a copy of the path) holds the strings. */
static void audit_attributes_of(const struct http_request *req, char *buf, char *verb,
                                size_t verb_size, struct audit_attributes *a)
{
        struct api_target t;
        const char *rv;
        size_t i;

        *a = (struct audit_attributes){ .verb = verb, .path = req->path };
        for (i = 0; i + 1 < verb_size && req->method[i]; i++)
                verb[i] = (char) tolower((unsigned char) req->method[i]);
        verb[i] = '\0';
        if (api_target_parse_path(buf, &t, &a->api_version) < 0)
                return;
        rv = resource_verb(&t, req);
        a->resource_request = true;
        a->verb = rv ? rv : streq(req->method, "POST") ? "create" : verb;
        a->api_group = t.res->group;
        a->resource = t.res->plural;
        a->subresource = api_subresource_name(t.sub);
        /* K8S: a namespace's own requests carry it as their namespace */
        a->ns = t.ns ? t.ns : streq(t.res->plural, "namespaces") ? t.name : NULL;
        a->name = t.name;
}

/* K8S: the max-in-flight filter comes after authentication (DefaultBuildHandlerChain), so only
 * authenticated requests take a slot; the rest are refused as before. The audit filter sits
 * between them: every request is audited, a 429 included. */
void api_handle(void *apiserver, const struct http_request *req, struct http_response *resp)
{
        struct apiserver *s = apiserver;
        enum inflight_kind kind = INFLIGHT_LONG_RUNNING;
        cleanup_authn_user struct authn_user *user = NULL;
        struct audit_request *ar = audit_request_begin(s->opts.audit, req, resp);
        bool authenticated = authenticate(s, req, &user) == 0;

        if (ar) {
                cleanup_free char *buf = xstrdup(req->path);
                char verb[16] = "";
                struct audit_attributes attrs;

                audit_attributes_of(req, buf, verb, sizeof(verb), &attrs);
                audit_request_received(ar, user, &attrs, req);
        }
        if (authenticated) {
                kind = inflight_classify(req->method, req->path, http_request_query(req, "watch"));
                if (!inflight_enter(&s->inflight, kind)) {
                        inflight_refuse(resp);
                        audit_request_end(ar, req, resp);
                        return;
                }
        }
        handle_request(s, user, req, ar, resp);
        inflight_leave(&s->inflight, kind);
        audit_request_end(ar, req, resp);
}

static void handle_request(struct apiserver *s, const struct authn_user *user,
                           const struct http_request *req, struct audit_request *ar,
                           struct http_response *resp)
{
        const char *p = req->path;
        cleanup_authn_user struct authn_user *acting = NULL;
        cleanup_free char *buf = NULL;
        char *seg[8];
        int n;

        if (req->malformed) {
                cleanup_free char *msg = xasprintf("invalid request: %s", req->malformed);
                status_respond(resp, EINVAL, msg, NULL);
                return;
        }
        if (!user) {
                status_respond(resp, EKEYREJECTED, "Unauthorized", NULL);
                return;
        }
        if (impersonate(s, user, req, ar, resp, &acting) < 0)
                return;
        if (acting)
                user = acting;
        if (!authorize(s, user, req, resp, ar))
                return;
        /* K8S: kube-apiserver refuses request bodies over 3 MiB with 413. */
        if (req->body_too_large) {
                status_respond(resp, E2BIG, "the request body is too large: limit is 3145728 bytes",
                               NULL);
                return;
        }
        if (streq(p, "/healthz") || streq(p, "/livez")) {
                http_response_text(resp, 200, "ok");
                return;
        }
        if (streq(p, "/readyz")) {
                if (atomic_load(&s->ready))
                        http_response_text(resp, 200, "ok");
                else
                        http_response_text(resp, 500, "[-]flexlet not ready\nreadyz check failed");
                return;
        }
        if (streq(p, "/version")) {
                respond_version(resp);
                return;
        }
        if (streq(p, "/metrics")) {
                respond_metrics(s, resp);
                return;
        }
        if (streq(p, "/api") || streq(p, "/api/")) {
                discovery_api(resp, discovery_wants_aggregated(req->accept), s->opts.listen);
                return;
        }
        if (streq(p, "/apis") || streq(p, "/apis/")) {
                discovery_apis(resp, discovery_wants_aggregated(req->accept));
                return;
        }
        if (streq(p, "/openapi/v2")) {
                openapi_v2(req, resp);
                return;
        }
        if (strncmp(p, "/openapi/v3", 11) == 0 && (p[11] == '\0' || p[11] == '/')) {
                openapi_v3(resp, p + 11);
                return;
        }
        buf = xstrdup(p);
        n = split_path(buf, seg, (int) ARRAY_SIZE(seg));
        if (n >= 2 && streq(seg[0], "api") && streq(seg[1], "v1")) {
                if (n == 2)
                        discovery_resource_list(resp, "", "v1");
                else
                        route_resource(s, "", seg + 2, n - 2, user, req, resp);
                return;
        }
        if (n >= 3 && streq(seg[0], "apis")) {
                if (n == 3)
                        discovery_resource_list(resp, seg[1], seg[2]);
                else if (api_resource_by_plural(seg[1], seg[3]) ||
                         (n >= 6 && streq(seg[3], "namespaces")))
                        route_resource(s, seg[1], seg + 3, n - 3, user, req, resp);
                else
                        status_respond(resp, ENOENT, NOT_FOUND_MESSAGE, NULL);
                return;
        }
        status_respond(resp, ENOENT, NOT_FOUND_MESSAGE, NULL);
}
