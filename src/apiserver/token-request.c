/* token-request.c: POST serviceaccounts/{name}/token, a bound service account token (K8S:
 * pkg/registry/core/serviceaccount/storage/token.go, TokenREST.Create, and
 * pkg/apis/authentication/validation ValidateTokenRequest). */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "api/schemas.h"
#include "apiserver/api.h"
#include "apiserver/admission-noderestriction.h"
#include "apiserver/apiserver-internal.h"
#include "apiserver/satoken.h"
#include "apiserver/status.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/timeutil.h"
#include "store/store.h"

const struct api_resource token_request_resource = {
        .group = "authentication.k8s.io",
        .version = "v1",
        .api_version = "authentication.k8s.io/v1",
        .plural = "serviceaccounts",
        .kind = "TokenRequest",
        .namespaced = true,
        .schema = &schema_token_request,
};

/* K8S: ValidateTokenRequest: expirationSeconds within [10 minutes, 2^32 s]. */
static void validate_token_request(const json_t *tr, struct field_error_list *errs)
{
        const json_t *exp = json_path(tr, "spec.expirationSeconds");
        json_int_t v;
        char buf[32];

        if (!json_is_integer(exp))
                return;
        v = json_integer_value(exp);
        snprintf(buf, sizeof(buf), "%lld", (long long) v);
        if (v < SATOKEN_MIN_SECONDS)
                field_error_add(errs, FIELD_ERROR_INVALID, "spec.expirationSeconds", buf,
                                "may not specify a duration less than 10 minutes");
        else if (v > SATOKEN_MAX_SECONDS)
                field_error_add(errs, FIELD_ERROR_INVALID, "spec.expirationSeconds", buf,
                                "may not specify a duration larger than 2^32 seconds");
}

/* The object spec.boundObjectRef names, checked to exist with its uid: 0 and *b filled (kind
 * NULL when there is no reference), or < 0 with the answer written. */
static int bound_object(struct apiserver *s, const struct api_target *t, const json_t *ref,
                        struct satoken_binding *b, json_t **ret_obj, struct http_response *resp)
{
        const char *kind = json_string_value(json_object_get(ref, "kind"));
        const char *api_version = json_string_value(json_object_get(ref, "apiVersion"));
        const char *name = json_string_value(json_object_get(ref, "name"));
        const char *uid = json_string_value(json_object_get(ref, "uid"));
        const struct api_resource *r;
        const char *have;
        int rc;

        *b = (struct satoken_binding){ 0 };
        if (!ref || json_is_null(ref))
                return 0;
        if (api_version && *api_version && strcmp(api_version, "v1") != 0)
                kind = NULL;
        r = kind && (strcmp(kind, "Pod") == 0 || strcmp(kind, "Secret") == 0)
                    ? api_resource_by_kind("", kind)
                    : NULL;
        if (!r) {
                cleanup_free char *msg = xasprintf(
                        "cannot bind token for serviceaccount \"%s\" to object of type %s%s%s",
                        t->name, api_version && *api_version ? api_version : "",
                        api_version && *api_version ? ", Kind=" : "Kind=", kind ? kind : "");
                status_respond(resp, EINVAL, msg, NULL);
                return -EINVAL;
        }
        rc = store_get(s->store, r->plural, t->ns, name ? name : "", ret_obj, NULL);
        if (rc < 0) {
                status_not_found(resp, r, name ? name : "");
                return rc;
        }
        have = json_path_string(*ret_obj, "metadata.uid");
        if (uid && *uid && (!have || strcmp(have, uid) != 0)) {
                cleanup_free char *why = xasprintf(
                        "the UID in the bound object reference (%s) does not match the UID in "
                        "record. The object might have been deleted and then recreated",
                        uid);
                /* K8S: NewConflict(GroupResource{Resource: gvk.Kind}, ...) */
                status_conflict(resp, &(struct api_resource){ .group = "", .plural = kind }, name,
                                why);
                return -EEXIST;
        }
        *b = (struct satoken_binding){ .kind = kind, .name = name, .uid = have };
        return 0;
}

/* K8S isKubeAudiences: the requested audiences (none: the API server's) are all the API
 * server's. */
static bool only_api_audience(const json_t *auds)
{
        size_t i;
        const json_t *a;

        json_array_foreach(auds, i, a)
                if (!streq(json_string_value(a) ?: "", SATOKEN_ISSUER))
                        return false;
        return true;
}

void registry_token_request(struct apiserver *s, const struct api_target *t,
                            const struct http_request *req, struct http_response *resp)
{
        cleanup_json json_t *body = NULL;
        cleanup_json json_t *sa = NULL;
        cleanup_json json_t *bound = NULL;
        cleanup_json json_t *claims = NULL;
        cleanup_json json_t *answer = NULL;
        cleanup_free char *token = NULL;
        struct field_error_list errs;
        struct satoken_binding b;
        const json_t *exp, *auds;
        time_t now = time(NULL);
        int64_t seconds = SATOKEN_DEFAULT_SECONDS, token_seconds, warn_after = 0;
        char expires[32];

        if (!s->opts.sa_signer) {
                status_respond(resp, EOPNOTSUPP,
                               "the server does not allow this method on the requested resource",
                               NULL);
                return;
        }
        body = registry_parse_body(req, resp, "couldn't decode TokenRequest");
        if (!body)
                return;
        /* K8S: the mutating admission chain (NodeRestriction) runs before TokenREST.Create */
        if (node_restriction_admit(s->store, t, NODE_RESTRICTION_CREATE, body, NULL, resp) < 0)
                return;
        field_error_list_init(&errs);
        validate_token_request(body, &errs);
        if (errs.n) {
                status_invalid(resp, &token_request_resource, t->name, &errs);
                field_error_list_release(&errs);
                return;
        }
        field_error_list_release(&errs);
        if (store_get(s->store, "serviceaccounts", t->ns, t->name, &sa, NULL) < 0) {
                status_not_found(resp, t->res, t->name);
                return;
        }
        if (bound_object(s, t, json_path(body, "spec.boundObjectRef"), &b, &bound, resp) < 0)
                return;
        exp = json_path(body, "spec.expirationSeconds");
        if (json_is_integer(exp))
                seconds = json_integer_value(exp);
        token_seconds = seconds;
        auds = json_path(body, "spec.audiences");
        /* K8S --service-account-extend-token-expiration (on by default): a token for a pod's
         * kube-api-access volume (bound to a Pod, 3607 s, for the API server) lives a year with
         * warnafter at 3607 s, so a client that never reloads its file keeps working; the answer
         * still says 3607 s, which is what the kubelet refreshes by. */
        if (b.kind && streq(b.kind, "Pod") && seconds == SATOKEN_WARN_ONLY_SECONDS &&
            only_api_audience(auds)) {
                warn_after = seconds;
                token_seconds = SATOKEN_EXTENSION_SECONDS;
        }
        claims = satoken_claims(t->ns, t->name, json_path_string(sa, "metadata.uid"),
                                json_array_size(auds) ? auds : NULL, &b, now, token_seconds);
        if (warn_after)
                json_object_set_new(json_object_get(claims, "kubernetes.io"), "warnafter",
                                    json_integer((json_int_t) (now + warn_after)));
        token = jws_sign(s->opts.sa_signer, claims);
        if (!token) {
                status_respond(resp, EIO, "failed to sign the token", NULL);
                return;
        }
        time_format_rfc3339(now + (time_t) seconds, expires);
        answer = json_pack("{s:s, s:s, s:{s:s, s:s, s:n}, s:{s:O, s:I, s:O}, s:{s:s, s:s}}", "kind",
                           "TokenRequest", "apiVersion", "authentication.k8s.io/v1", "metadata",
                           "name", t->name, "namespace", t->ns, "creationTimestamp", "spec",
                           "audiences", json_object_get(claims, "aud"), "expirationSeconds",
                           (json_int_t) seconds, "boundObjectRef",
                           json_path(body, "spec.boundObjectRef") ?: json_null(), "status", "token",
                           token, "expirationTimestamp", expires);
        http_response_json(resp, 201, answer);
}
