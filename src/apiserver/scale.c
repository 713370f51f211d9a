/* scale.c: the scale subresource of ReplicaSets and Deployments (K8S:
 * pkg/registry/apps/{deployment,replicaset}/storage ScaleREST): GET answers an autoscaling/v1
 * Scale of spec.replicas and the selector; PUT and PATCH take one and write only
 * spec.replicas of the parent, through the parent's own update rules. Not the parent's
 * validation of anything else, nor any other subresource. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api/field-error.h"
#include "api/patch.h"
#include "api/schemas.h"
#include "api/selector.h"
#include "apiserver/apiserver-internal.h"
#include "apiserver/status.h"
#include "base/alloc.h"
#include "base/error.h"
#include "base/json.h"
#include "store/store.h"

const struct api_resource scale_body_resource = {
        .group = "autoscaling",
        .version = "v1",
        .api_version = "autoscaling/v1",
        .plural = "scale",
        .kind = "Scale",
        .namespaced = true,
        .schema = &schema_scale,
};

#define PATCH_RETRIES 5

/* K8S: scaleFromDeployment / scaleFromReplicaSet: the parent's identity, spec.replicas,
 * status.replicas and the selector's String(). */
static json_t *scale_from(const json_t *obj)
{
        const json_t *meta = json_object_get(obj, "metadata");
        cleanup_free char *sel = label_selector_object_to_string(json_path(obj, "spec.selector"));
        json_t *m = json_object();
        static const char *const keep[] = { "name", "namespace", "uid", "resourceVersion",
                                            "creationTimestamp" };
        json_t *scale;

        for (size_t i = 0; i < ARRAY_SIZE(keep); i++) {
                json_t *v = json_object_get(meta, keep[i]);
                if (v)
                        json_object_set(m, keep[i], v);
        }
        scale = json_pack("{s:s, s:s, s:o, s:{s:I}, s:{s:I, s:s}}", "kind", "Scale", "apiVersion",
                          "autoscaling/v1", "metadata", m, "spec", "replicas",
                          json_integer_value(json_path(obj, "spec.replicas")), "status", "replicas",
                          json_integer_value(json_path(obj, "status.replicas")), "selector", sel);
        return scale;
}

static void respond_store_failure(const struct api_target *t, struct http_response *resp, int r,
                                  const struct error *err)
{
        if (r == -ENOENT)
                status_not_found(resp, t->res, t->name);
        else
                status_respond(resp, r, err ? err->message : strerror(-r), NULL);
}

/* K8S: ValidateScale, reported as the Scale's own Invalid ("Scale.autoscaling"). */
static int check_scale(const struct api_target *t, const json_t *scale, struct http_response *resp)
{
        const json_t *r = json_path(scale, "spec.replicas");
        struct field_error_list errs;

        if (!r || json_is_integer(r) == false || json_integer_value(r) >= 0)
                return 0;
        field_error_list_init(&errs);
        field_error_add(&errs, FIELD_ERROR_INVALID, "spec.replicas", NULL,
                        "must be greater than or equal to 0");
        free(errs.items[0].bad_value);
        errs.items[0].bad_value = xasprintf("%lld", (long long) json_integer_value(r));
        status_invalid(resp, &scale_body_resource, t->name, &errs);
        field_error_list_release(&errs);
        return -EINVAL;
}

/* Writes replicas into the stored parent old (at its resourceVersion) through the resource's
 * update rules; -ESTALE when the store moved, else 0 with the answer written. */
static int write_replicas(struct apiserver *s, const struct api_target *t,
                          struct http_response *resp, const json_t *old, json_int_t replicas,
                          bool dry)
{
        cleanup_error struct error *err = NULL;
        cleanup_json json_t *req = json_deep_copy(old), *obj = NULL, *scale = NULL;
        struct field_error_list errs;
        const char *rv = json_path_string(old, "metadata.resourceVersion");
        uint64_t old_rv = 0;
        int r;

        (void) store_rv_parse(rv ? rv : "0", &old_rv);
        json_object_set_new(json_object_ensure(req, "spec"), "replicas", json_integer(replicas));
        obj = t->res->strategy->prepare_update(API_SUB_NONE, req, old);
        if (t->res->strategy->spec_changed(obj, old)) {
                json_t *meta = json_object_ensure(obj, "metadata");
                json_int_t gen = json_integer_value(json_object_get(meta, "generation"));
                json_object_set_new(meta, "generation", json_integer(gen + 1));
        }
        field_error_list_init(&errs);
        t->res->strategy->validate_update(API_SUB_NONE, obj, old, &errs);
        if (errs.n) {
                status_invalid(resp, t->res, t->name, &errs);
                field_error_list_release(&errs);
                return 0;
        }
        field_error_list_release(&errs);
        if (!dry) {
                r = store_update(s->store, t->res->plural, t->ns, t->name, obj, old_rv, &err);
                if (r == -ESTALE)
                        return r;
                if (r < 0) {
                        respond_store_failure(t, resp, r, err);
                        return 0;
                }
        }
        scale = scale_from(obj);
        http_response_json(resp, 200, scale);
        return 0;
}

static bool is_dry_run(const struct http_request *req)
{
        const char *d = http_request_query(req, "dryRun");
        return d && streq(d, "All");
}

static int patch_scale(const struct http_request *req, const json_t *scale, const json_t *patch,
                       json_t **ret, struct error **reterr)
{
        const char *ct = req->content_type ? req->content_type : "";

        if (strncmp(ct, "application/strategic-merge-patch+json", 38) == 0)
                return patch_strategic_merge(scale, patch, &schema_scale, ret, reterr);
        if (strncmp(ct, "application/merge-patch+json", 28) == 0)
                return patch_merge(scale, patch, ret, reterr);
        if (strncmp(ct, "application/json-patch+json", 27) == 0)
                return patch_json(scale, patch, ret, reterr);
        return error_set(reterr, -EPROTONOSUPPORT,
                         "the body of the request was in an unknown format - accepted media "
                         "types include: application/json-patch+json, "
                         "application/merge-patch+json, application/strategic-merge-patch+json");
}

void scale_handle(struct apiserver *s, const struct api_target *t, const struct http_request *req,
                  struct http_response *resp)
{
        const char *m = req->method;
        cleanup_json json_t *body = NULL;

        if (!streq(m, "GET") && !streq(m, "PUT") && !streq(m, "PATCH")) {
                status_respond(resp, EOPNOTSUPP,
                               "the server does not allow this method on the requested resource",
                               NULL);
                return;
        }
        if (!streq(m, "GET")) {
                body = registry_parse_body(req, resp,
                                           streq(m, "PUT") ? "couldn't get version/kind"
                                                           : "error decoding patch");
                if (!body)
                        return;
        }
        for (int attempt = 0; attempt <= PATCH_RETRIES; attempt++) {
                cleanup_error struct error *err = NULL;
                cleanup_json json_t *old = NULL, *scale = NULL, *wanted = NULL;
                const char *want_rv;
                int r = store_get(s->store, t->res->plural, t->ns, t->name, &old, &err);

                if (r < 0) {
                        respond_store_failure(t, resp, r, err);
                        return;
                }
                scale = scale_from(old);
                if (streq(m, "GET")) {
                        http_response_json(resp, 200, scale);
                        return;
                }
                if (streq(m, "PUT")) {
                        wanted = json_incref(body);
                } else if (patch_scale(req, scale, body, &wanted, &err) < 0) {
                        status_respond(resp, err->errnum, err->message, NULL);
                        return;
                }
                if (!json_is_object(wanted) || !json_is_object(json_object_get(wanted, "spec"))) {
                        status_respond(resp, EINVAL, "the scale has no spec", NULL);
                        return;
                }
                if (check_scale(t, wanted, resp) < 0)
                        return;
                /* K8S: a Scale's resourceVersion is a precondition on the parent */
                want_rv = json_path_string(wanted, "metadata.resourceVersion");
                if (want_rv && *want_rv &&
                    !streq(want_rv, json_path_string(old, "metadata.resourceVersion") ?: "")) {
                        status_conflict(resp, t->res, t->name, CONFLICT_MODIFIED);
                        return;
                }
                r = write_replicas(s, t, resp, old,
                                   json_integer_value(json_path(wanted, "spec.replicas")),
                                   is_dry_run(req));
                if (r != -ESTALE)
                        return;
                http_response_release(resp);
                http_response_init(resp);
        }
        status_conflict(resp, t->res, t->name, CONFLICT_MODIFIED);
}
