/* registry.c: the generic verbs over the store for every resource: get, list, create, update,
 * patch, delete. Kind-specific rules come from each descriptor's strategy; this file owns the
 * rules all kinds share: decoding and field validation, server-owned metadata (uid,
 * creationTimestamp, generation, deletion fields), resourceVersion preconditions, dry run,
 * graceful deletion and finalizers, Table output. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/field-error.h"
#include "api/owner.h"
#include "api/patch.h"
#include "api/selector.h"
#include "api/yaml.h"
#include "apiserver/admission-noderestriction.h"
#include "apiserver/admission-pod-security.h"
#include "apiserver/admission-quota.h"
#include "apiserver/apiserver-internal.h"
#include "apiserver/status.h"
#include "apiserver/negotiate.h"
#include "apiserver/table.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/names.h"
#include "base/timeutil.h"
#include "base/uuid.h"
#include "store/store.h"

/* K8S: the patch handler retries a patch whose write raced another writer: one that carries a
 * resourceVersion precondition a few times (it may have been overtaken for good), one without
 * until it applies (GuaranteedUpdate), within the request timeout (--request-timeout, 60 s,
 * then 504 Timeout). */
#define PATCH_CONFLICT_RETRIES 5
#define PATCH_TIMEOUT_MS       60000

bool request_wants_table(const struct http_request *req)
{
        const char *w = http_request_query(req, "watch");
        struct api_output out;

        return negotiate_output(req->accept, w && (streq(w, "true") || streq(w, "1")), &out) == 0 &&
               out.table;
}

static bool dry_run(const struct http_request *req)
{
        const char *v = http_request_query(req, "dryRun");
        return v && streq(v, "All");
}

static const char *obj_name(const json_t *obj)
{
        const char *n = json_path_string(obj, "metadata.name");
        return n ? n : "";
}

static uint64_t obj_rv(const json_t *obj)
{
        const char *rv = json_path_string(obj, "metadata.resourceVersion");
        return rv ? strtoull(rv, NULL, 10) : 0;
}

static const char *store_ns(const struct api_target *t)
{
        return t->res->namespaced ? t->ns : "";
}

int request_selectors(const struct api_target *t, const struct http_request *req,
                      struct http_response *resp, struct label_selector **ret_labels,
                      struct field_selector **ret_fields)
{
        cleanup_error struct error *err = NULL;
        struct label_selector *ls = NULL;
        struct field_selector *fs = NULL;
        const char *l = http_request_query(req, "labelSelector");
        const char *f = http_request_query(req, "fieldSelector");

        if (label_selector_parse(l ? l : "", &ls, &err) < 0) {
                status_respond(resp, EINVAL, err->message, NULL);
                return -EINVAL;
        }
        if (field_selector_parse(f ? f : "", t->res->field_labels, &fs, &err) < 0) {
                label_selector_free(ls);
                status_respond(resp, EINVAL, err->message, NULL);
                return -EINVAL;
        }
        *ret_labels = ls;
        *ret_fields = fs;
        return 0;
}

bool object_matches(const json_t *obj, const struct label_selector *ls,
                    const struct field_selector *fs)
{
        return label_selector_matches(ls, json_path(obj, "metadata.labels")) &&
               field_selector_matches(fs, obj);
}

/* Writes obj (or a one-row Table when asked for) with the given status code. */
static void respond_object(const struct api_target *t, const struct http_request *req,
                           struct http_response *resp, unsigned code, const json_t *obj)
{
        enum table_include include;
        json_t *items, *table;

        if (!request_wants_table(req)) {
                http_response_json(resp, code, obj);
                return;
        }
        if (table_include_from_string(http_request_query(req, "includeObject"), &include) < 0)
                include = TABLE_INCLUDE_METADATA;
        items = json_pack("[O]", obj);
        table = table_build(t->res, items, true, include,
                            json_path_string(obj, "metadata.resourceVersion"));
        http_response_json(resp, code, table);
        resp->content_type = "application/json;as=Table;v=v1;g=meta.k8s.io";
        json_decref(table);
        json_decref(items);
}

static void respond_store_error(const struct api_target *t, const char *name,
                                struct http_response *resp, int r, const struct error *err)
{
        if (r == -ENOENT)
                status_not_found(resp, t->res, name);
        else if (r == -EEXIST)
                status_already_exists(resp, t->res, name);
        else if (r == -ESTALE)
                status_conflict(resp, t->res, name, CONFLICT_MODIFIED);
        else
                status_respond(resp, r, err ? err->message : strerror(-r), NULL);
}

void registry_get(struct apiserver *s, const struct api_target *t, const struct http_request *req,
                  struct http_response *resp)
{
        cleanup_error struct error *err = NULL;
        cleanup_json json_t *obj = NULL;
        int r = store_get(s->store, t->res->plural, store_ns(t), t->name, &obj, &err);

        if (r < 0) {
                respond_store_error(t, t->name, resp, r, err);
                return;
        }
        respond_object(t, req, resp, 200, obj);
}

/* The objects of t's collection that match the selectors; writes the error response. */
static int list_matching(struct apiserver *s, const struct api_target *t,
                         const struct label_selector *ls, const struct field_selector *fs,
                         json_t **ret_items, uint64_t *ret_rv, struct http_response *resp)
{
        cleanup_error struct error *err = NULL;
        cleanup_json json_t *items = NULL;
        json_t *out, *obj;
        size_t i;
        int r = store_list(s->store, t->res->plural, t->res->namespaced ? t->ns : NULL, &items,
                           ret_rv, &err);

        if (r < 0) {
                status_respond(resp, r, err ? err->message : "list failed", NULL);
                return r;
        }
        out = json_array();
        json_array_foreach(items, i, obj) {
                if (object_matches(obj, ls, fs))
                        json_array_append(out, obj);
        }
        *ret_items = out;
        return 0;
}

void registry_list(struct apiserver *s, const struct api_target *t, const struct http_request *req,
                   struct http_response *resp)
{
        cleanup_json json_t *out = NULL, *doc = NULL;
        struct label_selector *ls = NULL;
        struct field_selector *fs = NULL;
        const char *watch = http_request_query(req, "watch");
        uint64_t rv;
        char rvbuf[32];
        int r;

        if (request_selectors(t, req, resp, &ls, &fs) < 0)
                return;
        if (watch && (streq(watch, "true") || streq(watch, "1"))) {
                watch_serve(s, t, req, resp, ls, fs);
                return;
        }
        r = list_matching(s, t, ls, fs, &out, &rv, resp);
        label_selector_free(ls);
        field_selector_free(fs);
        if (r < 0)
                return;
        (void) snprintf(rvbuf, sizeof(rvbuf), "%llu", (unsigned long long) rv);
        if (request_wants_table(req)) {
                enum table_include include;
                if (table_include_from_string(http_request_query(req, "includeObject"), &include) <
                    0)
                        include = TABLE_INCLUDE_METADATA;
                doc = table_build(t->res, out, true, include, rvbuf);
                http_response_json(resp, 200, doc);
                resp->content_type = "application/json;as=Table;v=v1;g=meta.k8s.io";
                return;
        }
        doc = json_pack("{s:s, s:s, s:{s:s}, s:O}", "kind", t->res->list_kind, "apiVersion",
                        t->res->api_version, "metadata", "resourceVersion", rvbuf, "items", out);
        http_response_json(resp, 200, doc);
}

/* Reads fieldValidation (default Warn, as kube-apiserver). */
static int request_field_validation(const struct http_request *req, struct http_response *resp,
                                    enum field_validation *ret)
{
        const char *v = http_request_query(req, "fieldValidation");
        cleanup_free char *msg = NULL;

        if (!v || !*v) {
                *ret = FIELD_VALIDATION_WARN;
                return 0;
        }
        if (field_validation_from_string(v, ret) == 0)
                return 0;
        msg = xasprintf("fieldValidation: Unsupported value: \"%s\": supported values: "
                        "\"Ignore\", \"Strict\", \"Warn\"",
                        v);
        status_respond(resp, EINVAL, msg, NULL);
        return -EINVAL;
}

/* Checks obj against the kind's schema. Unknown fields: Strict fails, Warn adds Warning
 * headers, Ignore drops them. On failure the 400 is written and < 0 returned. */
static int check_fields(const struct api_target *t, json_t *obj, enum field_validation mode,
                        struct http_response *resp)
{
        cleanup_error struct error *err = NULL;
        struct strbuf unknown;
        cleanup_free char *msg = NULL;
        int r;

        strbuf_init(&unknown);
        r = schema_check(t->res->schema, obj, "", &unknown, &err);
        if (r < 0) {
                msg = xasprintf("%s in version \"%s\" cannot be handled as a %s: %s", t->res->kind,
                                t->res->version, t->res->kind, err->message);
                status_respond(resp, EINVAL, msg, NULL);
                strbuf_release(&unknown);
                return r;
        }
        if (unknown.len && mode == FIELD_VALIDATION_STRICT) {
                /* K8S: the unknown fields, comma-separated, after "strict decoding error: ". */
                struct strbuf joined;

                strbuf_init(&joined);
                for (char *line = unknown.buf, *nl; (nl = strchr(line, '\n')); line = nl + 1)
                        strbuf_addf(&joined, "%s%.*s", joined.len ? ", " : "", (int) (nl - line),
                                    line);
                msg = xasprintf("%s in version \"%s\" cannot be handled as a %s: strict decoding "
                                "error: %s",
                                t->res->kind, t->res->version, t->res->kind, joined.buf);
                status_respond(resp, EINVAL, msg, NULL);
                strbuf_release(&joined);
                strbuf_release(&unknown);
                return -EINVAL;
        }
        /* Warn: one Warning header per unknown field. */
        if (mode == FIELD_VALIDATION_WARN)
                for (char *line = unknown.buf, *nl; (nl = strchr(line, '\n')); line = nl + 1) {
                        *nl = '\0';
                        http_response_add_warning(resp, line);
                }
        strbuf_release(&unknown);
        return 0;
}

/* Parses a JSON request body; writes a 400 on failure. */
/* True for the YAML media types kube-apiserver decodes: application/yaml bodies and
 * server-side apply's application/apply-patch+yaml. */
static bool is_yaml(const char *content_type)
{
        size_t n = content_type ? strcspn(content_type, "; ") : 0;

        return (n == 16 && strncmp(content_type, "application/yaml", n) == 0) ||
               (n == 28 && strncmp(content_type, "application/apply-patch+yaml", n) == 0);
}

/* Decodes a request body: JSON, or YAML when the Content-Type says so (JSON is YAML too, and
 * what kubectl sends, so a body that opens with '{' or '[' takes the JSON parser). */
static json_t *parse_body(const struct http_request *req, struct http_response *resp,
                          const char *what)
{
        size_t skip = 0;
        json_error_t jerr;
        json_t *obj;
        cleanup_free char *msg = NULL;

        if (req->body_len == 0) {
                status_respond(resp, EINVAL, "the body of the request was empty", NULL);
                return NULL;
        }
        while (skip < req->body_len && strchr(" \t\r\n", req->body[skip]))
                skip++;
        if (is_yaml(req->content_type) && skip < req->body_len && req->body[skip] != '{' &&
            req->body[skip] != '[') {
                cleanup_error struct error *err = NULL;
                if (yaml_to_json(req->body, req->body_len, &obj, &err) < 0) {
                        status_respond(resp, EINVAL, err->message, NULL);
                        return NULL;
                }
                return obj;
        }
        obj = json_loadb(req->body, req->body_len, JSON_DECODE_ANY, &jerr);
        if (!obj) {
                msg = xasprintf("%s: json parse error: %s (line %d, column %d)", what, jerr.text,
                                jerr.line, jerr.column);
                status_respond(resp, EINVAL, msg, NULL);
        }
        return obj;
}

/* Checks apiVersion and kind of a decoded object against the resource. With defaults (a create
 * or update body), K8S: the decoder is given the endpoint's kind as its default
 * (gvkWithDefaults in apimachinery's json serializer): a missing kind, and a missing apiVersion,
 * are the resource's, as client libraries that leave TypeMeta out expect (client-node). */
static int check_type_meta_defaults(const struct api_target *t, json_t *obj,
                                    struct http_response *resp, bool defaults)
{
        const char *kind = json_string_value(json_object_get(obj, "kind"));
        const char *api_version = json_string_value(json_object_get(obj, "apiVersion"));
        cleanup_free char *text = NULL, *msg = NULL;

        if (!json_is_object(obj)) {
                status_respond(
                        resp, EINVAL,
                        "couldn't get version/kind; json parse error: the body is not a JSON object",
                        NULL);
                return -EINVAL;
        }
        if (defaults && (!kind || !*kind)) {
                json_object_set_new(obj, "kind", json_string(t->res->kind));
                kind = t->res->kind;
                if (!api_version || !*api_version) {
                        json_object_set_new(obj, "apiVersion", json_string(t->res->api_version));
                        api_version = t->res->api_version;
                }
        }
        if (!kind || !*kind) {
                text = json_dump_compact(obj);
                msg = xasprintf("Object 'Kind' is missing in '%.1024s'", text);
                status_respond(resp, EINVAL, msg, NULL);
                return -EINVAL;
        }
        if (api_version && *api_version && !streq(api_version, t->res->api_version)) {
                msg = xasprintf("the API version in the data (%s) does not match the expected "
                                "API version (%s)",
                                api_version, t->res->api_version);
                status_respond(resp, EINVAL, msg, NULL);
                return -EINVAL;
        }
        if (!streq(kind, t->res->kind)) {
                msg = xasprintf("%s in version \"%s\" cannot be handled as a %s: no kind \"%s\" "
                                "is registered for version \"%s\"",
                                kind, t->res->version, t->res->kind, kind, t->res->api_version);
                status_respond(resp, EINVAL, msg, NULL);
                return -EINVAL;
        }
        return 0;
}

static int check_type_meta(const struct api_target *t, json_t *obj, struct http_response *resp)
{
        return check_type_meta_defaults(t, obj, resp, false);
}

/* K8S: the namespace in the body must match the URL; empty takes the URL's. */
static int check_namespace(const struct api_target *t, json_t *obj, struct http_response *resp)
{
        json_t *meta = json_object_ensure(obj, "metadata");
        const char *ns = json_string_value(json_object_get(meta, "namespace"));

        if (!t->res->namespaced) {
                json_object_del(meta, "namespace");
                return 0;
        }
        if (ns && *ns && !streq(ns, t->ns)) {
                status_respond(
                        resp, EINVAL,
                        "the namespace of the provided object does not match the namespace sent on the request",
                        NULL);
                return -EINVAL;
        }
        json_object_set_new(meta, "namespace", json_string(t->ns));
        return 0;
}

static void set_now(json_t *meta, const char *key)
{
        char ts[32];

        time_format_rfc3339(time(NULL), ts);
        json_object_set_new(meta, key, json_string(ts));
}

/* K8S NamespaceLifecycle admission: nothing is created in a namespace that does not exist (404)
 * or is being deleted (403). Writes the answer and returns -errno when the create must stop. */
static int namespace_admits_create(struct apiserver *s, const struct api_target *t,
                                   const json_t *obj, struct http_response *resp)
{
        const struct api_resource *nsr = api_resource_by_plural("", "namespaces");
        cleanup_json json_t *ns = NULL;

        if (!t->res->namespaced)
                return 0;
        /* K8S: from the namespace informer's cache, and from the store itself when the cache
         * does not have it (a namespace just made through another server) */
        if (store_get_cached(s->store, "namespaces", "", t->ns, &ns, NULL) < 0 &&
            store_get(s->store, "namespaces", "", t->ns, &ns, NULL) < 0) {
                status_not_found(resp, nsr, t->ns);
                return -ENOENT;
        }
        if (json_path(ns, "metadata.deletionTimestamp")) {
                cleanup_free char *why = xasprintf(
                        "unable to create new content in namespace %s because it is being terminated",
                        t->ns);
                status_forbidden(resp, t->res, obj_name(obj), why);
                return -EPERM;
        }
        return 0;
}

/* Validation failures from a strategy hook become a 422. */
static int respond_if_invalid(const struct api_target *t, const char *name,
                              struct field_error_list *errs, struct http_response *resp)
{
        if (!errs->n)
                return 0;
        status_invalid(resp, t->res, name, errs);
        return -EBADMSG;
}

/* Whether old (NULL on create) already has a blocking reference with ref's uid. */
static bool was_blocking(const json_t *old, const json_t *ref)
{
        size_t i;
        json_t *r;

        json_array_foreach(json_path(old, "metadata.ownerReferences"), i, r) {
                if (json_is_true(json_object_get(r, "blockOwnerDeletion")) &&
                    json_equal(json_object_get(r, "uid"), json_object_get(ref, "uid")))
                        return true;
        }
        return false;
}

/* K8S: the OwnerReferencesPermissionEnforcement admission plugin
 * (plugin/pkg/admission/gc/gc_admission.go). A reference that newly sets blockOwnerDeletion
 * must name an owner the server knows (its RESTMapping), since the right to block an owner's
 * deletion is the right to update that owner's finalizers. Once an authorizer lands, this is
 * where it asks: "delete" on the object itself when its ownerReferences change, and "update"
 * on <owner's resource>/finalizers for each newly blocking reference ("cannot set
 * blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on:
 * ..."); with no authorizer every authenticated user may, as everything else. */
static int owner_references_admit(const json_t *obj, const json_t *old, struct error **reterr)
{
        size_t i;
        json_t *ref;

        json_array_foreach(json_path(obj, "metadata.ownerReferences"), i, ref) {
                const char *av = json_string_value(json_object_get(ref, "apiVersion")) ?: "";
                const char *kind = json_string_value(json_object_get(ref, "kind")) ?: "";
                cleanup_free char *group = owner_api_group(av);
                const struct api_resource *r;

                if (!json_is_true(json_object_get(ref, "blockOwnerDeletion")) ||
                    was_blocking(old, ref))
                        continue;
                r = api_resource_by_kind(group, kind);
                if (!r || !streq(r->api_version, av))
                        return error_set(
                                reterr, EPERM,
                                "cannot set blockOwnerDeletion in this case because cannot find "
                                "RESTMapping for APIVersion %s Kind %s: no matches for kind "
                                "\"%s\" in version \"%s\"",
                                av, kind, kind, av);
        }
        return 0;
}

/* K8S: admission: a plugin's refusal is answered here (403 Forbidden for -EPERM). The
 * validating chain is the resource's own plugins, PodSecurity, then ResourceQuota last, as
 * kube-apiserver orders them, so a request is charged to quotas only once everything else
 * admitted it (and with LimitRange's defaults applied by the mutating chain before it). */
static int admit(struct apiserver *s, const struct api_target *t, bool validating, json_t *obj,
                 const json_t *old, bool dry, struct http_response *resp)
{
        const struct resource_strategy *st = t->res->strategy;
        cleanup_error struct error *err = NULL;
        int r = 0;

        if (validating && st->admit_validate)
                r = st->admit_validate(s->store, t->sub, obj, old, &err);
        else if (!validating && st->admit)
                r = st->admit(s->store, t->sub, obj, old, &err);
        if (r >= 0 && validating)
                r = owner_references_admit(obj, old, &err);
        if (r >= 0 && validating) {
                /* K8S: PodSecurity, a validating plugin over pods and namespaces */
                r = pod_security_validate(s, t, obj, old, resp);
                if (r < 0)
                        return r;
                r = resource_quota_admit(s->store, t->res, t->ns, t->sub, obj, old, dry, &err);
        }
        if (r >= 0)
                return 0;
        if (r == -EPERM)
                status_forbidden(resp, t->res, obj_name(obj), err ? err->message : "");
        else
                status_respond(resp, r, err ? err->message : strerror(-r), NULL);
        return r;
}

/* K8S: the RBAC registries' escalation checks (resources.h authorize_write): writes the
 * refusal and returns -errno when the user may not write obj. */
static int authorize_write(struct apiserver *s, const struct api_target *t, const json_t *obj,
                           const json_t *old, struct http_response *resp)
{
        const struct resource_strategy *st = t->res->strategy;
        cleanup_error struct error *err = NULL;
        const struct write_check c = { .user = t->user,
                                       .ns = t->ns ? t->ns : "",
                                       .name = t->name ? t->name : "",
                                       .res = t->res,
                                       .sub = t->sub,
                                       .store = s->store,
                                       .rbac = s->opts.rbac,
                                       .authz = s->opts.authz };
        int r;

        if (!st->authorize_write || !t->user)
                return 0;
        r = st->authorize_write(&c, obj, old, &err);
        if (r == -EPERM)
                status_forbidden(resp, t->res, obj_name(obj), err->message);
        else if (r == -ENOENT)
                status_respond(resp, ENOENT, err->message, NULL);
        else if (r < 0)
                status_respond(resp, r, err ? err->message : strerror(-r), NULL);
        return r < 0 ? r : 0;
}

/* The create path shared by POST and apply-to-absent. Consumes nothing; obj is modified. */
static void create_object(struct apiserver *s, const struct api_target *t,
                          const struct http_request *req, struct http_response *resp, json_t *obj)
{
        cleanup_error struct error *err = NULL;
        struct field_error_list errs;
        json_t *meta;
        const char *name;
        char uid[UUID_STRING_LEN + 1];
        int r;

        if (check_namespace(t, obj, resp) < 0)
                return;
        meta = json_object_ensure(obj, "metadata");
        if (namespace_admits_create(s, t, obj, resp) < 0)
                return;
        if (json_path_string(obj, "metadata.resourceVersion")) {
                status_respond(resp, EIO,
                               "resourceVersion should not be set on objects to be created", NULL);
                return;
        }
        name = json_string_value(json_object_get(meta, "name"));
        if ((!name || !*name) && json_string_value(json_object_get(meta, "generateName"))) {
                cleanup_free char *generated =
                        name_generate(json_string_value(json_object_get(meta, "generateName")));
                json_object_set_new(meta, "name", json_string(generated));
        }
        uuid_random(uid);
        json_object_set_new(meta, "uid", json_string(uid));
        set_now(meta, "creationTimestamp");
        json_object_del(meta, "deletionTimestamp");
        json_object_del(meta, "deletionGracePeriodSeconds");
        if (t->res->strategy->spec_changed)
                json_object_set_new(meta, "generation", json_integer(1));
        else
                json_object_del(meta, "generation");
        json_object_set_new(obj, "apiVersion", json_string(t->res->api_version));
        json_object_set_new(obj, "kind", json_string(t->res->kind));

        /* K8S: NodeRestriction, a mutating plugin, sees the object before PrepareForCreate */
        if (node_restriction_admit(s->store, t, NODE_RESTRICTION_CREATE, obj, NULL, resp) < 0)
                return;
        if (t->res->strategy->prepare_create)
                t->res->strategy->prepare_create(obj);
        if (t->res->strategy->set_creator)
                t->res->strategy->set_creator(obj, t->user);
        if (admit(s, t, false, obj, NULL, dry_run(req), resp) < 0 ||
            authorize_write(s, t, obj, NULL, resp) < 0)
                return;
        field_error_list_init(&errs);
        t->res->strategy->validate_create(obj, &errs);
        r = respond_if_invalid(t, obj_name(obj), &errs, resp);
        field_error_list_release(&errs);
        if (r < 0 || admit(s, t, true, obj, NULL, dry_run(req), resp) < 0)
                return;
        if (dry_run(req)) {
                respond_object(t, req, resp, 201, obj);
                return;
        }
        r = store_create(s->store, t->res->plural, store_ns(t), obj_name(obj), obj, &err);
        if (r < 0) {
                respond_store_error(t, obj_name(obj), resp, r, err);
                return;
        }
        respond_object(t, req, resp, 201, obj);
}

void registry_create(struct apiserver *s, const struct api_target *t,
                     const struct http_request *req, struct http_response *resp)
{
        cleanup_json json_t *obj = NULL;
        enum field_validation mode;

        if (request_field_validation(req, resp, &mode) < 0)
                return;
        obj = parse_body(req, resp, "couldn't get version/kind");
        if (!obj || check_type_meta_defaults(t, obj, resp, true) < 0 ||
            check_fields(t, obj, mode, resp) < 0)
                return;
        if (t->res->review) {
                cleanup_json json_t *answer = NULL;
                cleanup_error struct error *err = NULL;
                const struct review_context c = { .authn = s->opts.authn,
                                                  .authz = s->opts.authz,
                                                  .user = t->user,
                                                  .ns = t->ns ? t->ns : "" };
                int r;

                /* K8S: the create handler's EnsureObjectNamespaceMatchesRequestNamespace, then
                 * the REST storage's own validation (NewInvalid) */
                if (check_namespace(t, obj, resp) < 0)
                        return;
                if (t->res->strategy && t->res->strategy->validate_create) {
                        struct field_error_list errs;

                        field_error_list_init(&errs);
                        t->res->strategy->validate_create(obj, &errs);
                        r = respond_if_invalid(t, obj_name(obj), &errs, resp);
                        field_error_list_release(&errs);
                        if (r < 0)
                                return;
                }
                r = t->res->review(&c, obj, &answer, &err);
                if (r < 0) {
                        status_respond(resp, r, err ? err->message : "review failed", NULL);
                        return;
                }
                respond_object(t, req, resp, 201, answer);
                return;
        }
        create_object(s, t, req, resp, obj);
}

/* Copies the metadata the server owns from old to new: what a client may not change by
 * writing it (uid, creationTimestamp, deletion fields, generation). */
static void keep_server_metadata(json_t *new_obj, const json_t *old)
{
        static const char *const owned[] = { "uid",
                                             "creationTimestamp",
                                             "deletionTimestamp",
                                             "deletionGracePeriodSeconds",
                                             "generation",
                                             "selfLink" };
        json_t *meta = json_object_ensure(new_obj, "metadata");
        const json_t *old_meta = json_object_get(old, "metadata");

        for (size_t i = 0; i < ARRAY_SIZE(owned); i++) {
                json_t *v = json_object_get(old_meta, owned[i]);
                if (v)
                        json_object_set(meta, owned[i], v);
                else
                        json_object_del(meta, owned[i]);
        }
}

/* K8S: an object being deleted whose last finalizer is gone and whose grace period is over
 * is removed by the write that removed the finalizer. Not a namespace: it goes only through
 * its own Delete, which the namespace controller sends after finalizing it (a label written
 * on a Terminating namespace must not remove it with its content still there). */
static bool should_delete_on_update(const struct api_target *t, const json_t *obj)
{
        const json_t *grace = json_path(obj, "metadata.deletionGracePeriodSeconds");

        return t->res->strategy != &namespace_strategy &&
               json_path(obj, "metadata.deletionTimestamp") &&
               json_array_size(json_path(obj, "metadata.finalizers")) == 0 &&
               (!grace || json_integer_value(grace) == 0);
}

/* The update path shared by PUT and PATCH: new_obj is the full requested object, old the
 * stored one it was computed against. Returns -ESTALE (without responding) when the store
 * moved under us and the caller may retry, with *ret_current the object the write lost to when
 * the store returned it; otherwise writes the response and returns 0. */
static int update_object(struct apiserver *s, const struct api_target *t,
                         const struct http_request *req, struct http_response *resp,
                         json_t *new_obj, const json_t *old, bool caller_precondition,
                         json_t **ret_current)
{
        cleanup_error struct error *err = NULL;
        cleanup_json json_t *to_store = NULL;
        struct field_error_list errs;
        uint64_t old_rv = obj_rv(old);
        const char *name = obj_name(old);
        int r;

        if (caller_precondition && obj_rv(new_obj) != old_rv) {
                status_conflict(resp, t->res, name, CONFLICT_MODIFIED);
                return 0;
        }
        keep_server_metadata(new_obj, old);
        json_object_set_new(new_obj, "apiVersion", json_string(t->res->api_version));
        json_object_set_new(new_obj, "kind", json_string(t->res->kind));
        /* K8S: NodeRestriction, a mutating plugin, sees the requested object before
         * PrepareForUpdate resets what the subresource may not change (a label written through
         * pods/status is refused, not dropped) */
        if (node_restriction_admit(s->store, t, NODE_RESTRICTION_UPDATE, new_obj, old, resp) < 0)
                return 0;
        to_store = t->res->strategy->prepare_update(t->sub, new_obj, old);
        if (t->res->strategy->spec_changed && t->res->strategy->spec_changed(to_store, old)) {
                json_t *meta = json_object_ensure(to_store, "metadata");
                json_int_t gen = json_integer_value(json_object_get(meta, "generation"));
                json_object_set_new(meta, "generation", json_integer(gen + 1));
        }
        if (admit(s, t, false, to_store, old, dry_run(req), resp) < 0 ||
            authorize_write(s, t, to_store, old, resp) < 0)
                return 0;
        field_error_list_init(&errs);
        t->res->strategy->validate_update(t->sub, to_store, old, &errs);
        r = respond_if_invalid(t, name, &errs, resp);
        field_error_list_release(&errs);
        if (r < 0 || admit(s, t, true, to_store, old, dry_run(req), resp) < 0)
                return 0;
        if (dry_run(req)) {
                respond_object(t, req, resp, 200, to_store);
                return 0;
        }
        if (should_delete_on_update(t, to_store)) {
                cleanup_json json_t *last = NULL;
                r = store_delete(s->store, t->res->plural, store_ns(t), name, old_rv, &last, &err);
                if (r == -ESTALE && !caller_precondition)
                        return r;
                if (r < 0)
                        respond_store_error(t, name, resp, r, err);
                else
                        respond_object(t, req, resp, 200, last);
                return 0;
        }
        /* old is what the store returned: no second read before the write (store.h) */
        r = store_update_from(s->store, t->res->plural, store_ns(t), name, to_store, old,
                              ret_current, &err);
        if (r == -ESTALE && !caller_precondition)
                return r;
        if (r < 0) {
                respond_store_error(t, name, resp, r, err);
                return 0;
        }
        respond_object(t, req, resp, 200, to_store);
        return 0;
}

static int check_url_name(const struct api_target *t, const json_t *obj, struct http_response *resp)
{
        const char *name = json_path_string(obj, "metadata.name");
        cleanup_free char *msg = NULL;

        if (name && *name && !streq(name, t->name)) {
                msg = xasprintf(
                        "the name of the object (%s) does not match the name on the URL (%s)", name,
                        t->name);
                status_respond(resp, EINVAL, msg, NULL);
                return -EINVAL;
        }
        json_object_set_new(json_object_ensure((json_t *) obj, "metadata"), "name",
                            json_string(t->name));
        return 0;
}

/* The object a PUT or PATCH starts from: the watch cache's own (K8S: the cacher's
 * GuaranteedUpdate passes its cached object; the write's resourceVersion compare catches a
 * stale one), read from the store itself when the cache does not hold it or holds another
 * version than want_rv (the caller's precondition; 0 none). *ret_cached says which. Either way
 * the update only reads it (the cache's is shared with every reader). */
static int read_for_update(struct apiserver *s, const struct api_target *t, uint64_t want_rv,
                           json_t **ret_obj, bool *ret_cached, struct error **reterr)
{
        json_t *obj = NULL;
        int r = store_get_shared(s->store, t->res->plural, store_ns(t), t->name, &obj, NULL);

        if (r >= 0 && (!want_rv || obj_rv(obj) == want_rv)) {
                *ret_obj = obj;
                *ret_cached = true;
                return 0;
        }
        json_decref(obj);
        *ret_cached = false;
        return store_get(s->store, t->res->plural, store_ns(t), t->name, ret_obj, reterr);
}

void registry_update(struct apiserver *s, const struct api_target *t,
                     const struct http_request *req, struct http_response *resp)
{
        cleanup_error struct error *err = NULL;
        cleanup_json json_t *obj = NULL, *old = NULL, *again = NULL;
        enum field_validation mode;
        struct field_error_list errs;
        bool cached;
        int r;

        if (request_field_validation(req, resp, &mode) < 0)
                return;
        obj = parse_body(req, resp, "couldn't get version/kind");
        if (!obj || check_type_meta_defaults(t, obj, resp, true) < 0 ||
            check_fields(t, obj, mode, resp) < 0 || check_url_name(t, obj, resp) < 0 ||
            check_namespace(t, obj, resp) < 0)
                return;
        if (!json_path_string(obj, "metadata.resourceVersion")) {
                /* K8S: an update must say which version it replaces. */
                field_error_list_init(&errs);
                field_error_add(&errs, FIELD_ERROR_INVALID, "metadata.resourceVersion", "0x0",
                                "must be specified for an update");
                status_invalid(resp, t->res, t->name, &errs);
                field_error_list_release(&errs);
                return;
        }
        r = read_for_update(s, t, obj_rv(obj), &old, &cached, &err);
        if (r < 0) {
                respond_store_error(t, t->name, resp, r, err);
                return;
        }
        /* update_object fills obj's server fields in from old: a second try starts over */
        again = cached ? json_deep_copy(obj) : NULL;
        (void) update_object(s, t, req, resp, obj, old, true, NULL);
        if (cached && resp->status >= 400) {
                /* K8S (GuaranteedUpdate): a refusal computed from the cached copy is made again
                 * from the stored object */
                cleanup_json json_t *cur = NULL;

                err = error_free(err);
                r = store_get(s->store, t->res->plural, store_ns(t), t->name, &cur, &err);
                http_response_release(resp);
                http_response_init(resp);
                if (r < 0)
                        respond_store_error(t, t->name, resp, r, err);
                else
                        (void) update_object(s, t, req, resp, again, cur, true, NULL);
        }
}

enum patch_type {
        PATCH_STRATEGIC,
        PATCH_MERGE,
        PATCH_JSON,
        PATCH_APPLY,
        PATCH_TYPE_MAX,
};

static int patch_type_from_content_type(const char *ct, enum patch_type *ret)
{
        static const char *const names[PATCH_TYPE_MAX] = {
                [PATCH_STRATEGIC] = "application/strategic-merge-patch+json",
                [PATCH_MERGE] = "application/merge-patch+json",
                [PATCH_JSON] = "application/json-patch+json",
                [PATCH_APPLY] = "application/apply-patch+yaml",
        };
        size_t n;

        if (!ct)
                return -EPROTONOSUPPORT;
        n = strcspn(ct, "; ");
        for (int i = 0; i < PATCH_TYPE_MAX; i++)
                if (strlen(names[i]) == n && strncmp(ct, names[i], n) == 0) {
                        *ret = (enum patch_type) i;
                        return 0;
                }
        return -EPROTONOSUPPORT;
}

static int compute_patch(const struct api_target *t, enum patch_type type, const json_t *old,
                         const json_t *patch, json_t **ret, struct error **reterr)
{
        switch (type) {
        case PATCH_STRATEGIC:
                return patch_strategic_merge(old, patch, t->res->schema, ret, reterr);
        case PATCH_MERGE:
                return patch_merge(old, patch, ret, reterr);
        case PATCH_JSON:
                return patch_json(old, patch, ret, reterr);
        case PATCH_APPLY:
                return patch_apply(old, patch, t->res->schema, ret, reterr);
        case PATCH_TYPE_MAX:
                break;
        }
        return -EINVAL;
}

void registry_patch(struct apiserver *s, const struct api_target *t, const struct http_request *req,
                    struct http_response *resp)
{
        cleanup_json json_t *patch = NULL, *next = NULL;
        enum field_validation mode;
        enum patch_type type;
        uint64_t want_rv = 0;
        bool precondition;
        int64_t deadline;

        if (patch_type_from_content_type(req->content_type, &type) < 0) {
                status_respond(
                        resp, EPROTONOSUPPORT,
                        "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json",
                        NULL);
                return;
        }
        if (request_field_validation(req, resp, &mode) < 0)
                return;
        if (type == PATCH_APPLY && !http_request_query(req, "fieldManager")) {
                status_respond(
                        resp, EINVAL,
                        "PATCH, application/apply-patch+yaml: fieldManager is required for apply requests",
                        NULL);
                return;
        }
        patch = parse_body(req, resp, "error decoding patch");
        if (!patch)
                return;
        if (type == PATCH_JSON ? !json_is_array(patch) : !json_is_object(patch)) {
                status_respond(resp, EINVAL,
                               type == PATCH_JSON ? "json patch must be an array of operations"
                                                  : "patch body must be a JSON object",
                               NULL);
                return;
        }
        precondition = type != PATCH_JSON && json_path_string(patch, "metadata.resourceVersion");
        if (precondition)
                (void) store_rv_parse(json_path_string(patch, "metadata.resourceVersion"),
                                      &want_rv);
        deadline = time_monotonic_ms() + PATCH_TIMEOUT_MS;

        for (int attempt = 0; !precondition || attempt <= PATCH_CONFLICT_RETRIES; attempt++) {
                cleanup_error struct error *err = NULL;
                cleanup_json json_t *old = TAKE_PTR(next), *patched = NULL;
                bool cached = false;
                int r = 0;

                /* the first attempt from the watch cache, a retry from what the failed write
                 * read, or else from the store */
                if (!old && attempt == 0)
                        r = read_for_update(s, t, want_rv, &old, &cached, &err);
                else if (!old)
                        r = store_get(s->store, t->res->plural, store_ns(t), t->name, &old, &err);

                if (r == -ENOENT && type == PATCH_APPLY && t->sub == API_SUB_NONE) {
                        /* K8S: server-side apply creates what is absent. */
                        cleanup_json json_t *obj = json_deep_copy(patch);
                        if (check_type_meta(t, obj, resp) < 0 || check_url_name(t, obj, resp) < 0 ||
                            check_fields(t, obj, mode, resp) < 0)
                                return;
                        create_object(s, t, req, resp, obj);
                        return;
                }
                if (r < 0) {
                        respond_store_error(t, t->name, resp, r, err);
                        return;
                }
                if (type == PATCH_APPLY &&
                    (check_type_meta(t, patch, resp) < 0 || check_url_name(t, patch, resp) < 0))
                        return;
                r = compute_patch(t, type, old, patch, &patched, &err);
                if (r < 0 && cached)
                        continue; /* maybe the stale copy's doing: again from the store */
                if (r < 0) {
                        /* The engines' errno says which code: EINVAL an unusable patch (400),
                         * EBADMSG one that does not apply (422), E2BIG one too big (413). */
                        cleanup_free char *msg =
                                type == PATCH_APPLY
                                        ? xasprintf(
                                                  "failed to create typed patch object (/%s, Kind=%s): %s",
                                                  t->res->api_version, t->res->kind,
                                                  err ? err->message : "invalid")
                                        : xstrdup(err ? err->message
                                                      : "the patch could not be applied");
                        status_respond(resp, r, msg, NULL);
                        return;
                }
                if (!json_is_object(patched) || check_fields(t, patched, mode, resp) < 0 ||
                    check_url_name(t, patched, resp) < 0 || check_namespace(t, patched, resp) < 0) {
                        if (cached) {
                                http_response_release(resp);
                                http_response_init(resp);
                                continue;
                        }
                        if (!json_is_object(patched))
                                status_respond(resp, EBADMSG, "the patch did not produce an object",
                                               NULL);
                        return;
                }
                if (!precondition)
                        json_object_set(json_object_ensure(patched, "metadata"), "resourceVersion",
                                        json_path(old, "metadata.resourceVersion"));
                r = update_object(s, t, req, resp, patched, old, precondition, &next);
                if (r != -ESTALE && !(cached && resp->status >= 400))
                        return;
                /* The store moved between our read and our write: patch again over what the
                 * write lost to. K8S (GuaranteedUpdate): a refusal computed from the cached copy
                 * is made again from the stored object. */
                if (!precondition && time_monotonic_ms() >= deadline) {
                        http_response_release(resp);
                        http_response_init(resp);
                        status_respond(resp, ETIMEDOUT,
                                       "the server was unable to return a response in the time "
                                       "allotted, but may still be processing the request",
                                       NULL);
                        return;
                }
                http_response_release(resp);
                http_response_init(resp);
        }
        status_conflict(resp, t->res, t->name, CONFLICT_MODIFIED);
}

/* K8S: ValidateDeleteOptions' propagation rules: orphanDependents and propagationPolicy are
 * exclusive, and the policy is one of three. 422 DeleteOptions.meta.k8s.io "" is invalid. */
static int check_propagation(const char *policy, bool orphan_given, struct http_response *resp)
{
        static const struct api_resource delete_options_kind = { .kind = "DeleteOptions",
                                                                 .group = "meta.k8s.io" };
        struct field_error_list errs;
        int r;

        field_error_list_init(&errs);
        if (policy && orphan_given)
                field_error_add(&errs, FIELD_ERROR_INVALID, "propagationPolicy", "\"\"",
                                "orphanDependents and deletionPropagation cannot be both set");
        else if (policy && !streq(policy, "Foreground") && !streq(policy, "Background") &&
                 !streq(policy, "Orphan")) {
                cleanup_free char *q = field_value_quote(policy);
                field_error_add(&errs, FIELD_ERROR_NOT_SUPPORTED, "propagationPolicy", q,
                                "supported values: \"Foreground\", \"Background\", "
                                "\"Orphan\", \"nil\"");
        }
        r = errs.n ? -EBADMSG : 0;
        if (r < 0)
                status_invalid(resp, &delete_options_kind, "", &errs);
        field_error_list_release(&errs);
        return r;
}

static int parse_delete_options(const struct http_request *req, struct http_response *resp,
                                json_t **ret_body, struct delete_options *o)
{
        json_t *body = NULL;
        const char *q = http_request_query(req, "gracePeriodSeconds");
        const char *orphan = http_request_query(req, "orphanDependents");
        const json_t *v;

        o->grace = q ? strtoll(q, NULL, 10) : -1;
        o->uid = o->rv = NULL;
        /* K8S: DeleteOptions may come as query parameters as well as a body */
        o->propagation = http_request_query(req, "propagationPolicy");
        if (req->body_len) {
                body = parse_body(req, resp, "couldn't decode DeleteOptions");
                if (!body)
                        return -EINVAL;
                if (json_is_integer(json_object_get(body, "gracePeriodSeconds")))
                        o->grace = json_integer_value(json_object_get(body, "gracePeriodSeconds"));
                o->uid = json_path_string(body, "preconditions.uid");
                o->rv = json_path_string(body, "preconditions.resourceVersion");
                if (json_is_string(json_object_get(body, "propagationPolicy")))
                        o->propagation =
                                json_string_value(json_object_get(body, "propagationPolicy"));
                v = json_object_get(body, "orphanDependents");
                if (json_is_boolean(v))
                        orphan = json_is_true(v) ? "true" : "false";
        }
        if (check_propagation(o->propagation, orphan != NULL, resp) < 0) {
                json_decref(body);
                return -EINVAL;
        }
        if (orphan)
                o->propagation = streq(orphan, "true") ? "Orphan" : "Background";
        *ret_body = body;
        return 0;
}

/* K8S: store.go deletionFinalizersForGarbageCollection (with shouldOrphanDependents and
 * shouldDeleteDependents): the finalizers old should carry once this delete is through. The
 * request's policy wins, then a GC finalizer already on the object, then the resource's
 * default; "orphan" and "foregroundDeletion" are taken off and put back as that decides.
 * Returns a new array and sets *ret_changed when it differs (as a set) from old's. */
static json_t *gc_finalizers(const struct api_target *t, const json_t *old,
                             const struct delete_options *o, bool *ret_changed)
{
        const json_t *fins = json_path(old, "metadata.finalizers");
        bool orphan = t->res->strategy->orphan_dependents_by_default, foreground = false, changed;
        json_t *out = json_array(), *f;
        size_t i;

        if (o->propagation) {
                orphan = streq(o->propagation, "Orphan");
                foreground = streq(o->propagation, "Foreground");
        } else if (json_array_has_string(fins, GC_FINALIZER_ORPHAN)) {
                orphan = true;
        } else if (json_array_has_string(fins, GC_FINALIZER_FOREGROUND)) {
                orphan = false;
                foreground = true;
        }
        json_array_foreach(fins, i, f) {
                const char *name = json_string_value(f) ?: "";

                if (!streq(name, GC_FINALIZER_ORPHAN) && !streq(name, GC_FINALIZER_FOREGROUND))
                        json_array_append(out, f);
        }
        if (orphan)
                json_array_append_new(out, json_string(GC_FINALIZER_ORPHAN));
        if (foreground)
                json_array_append_new(out, json_string(GC_FINALIZER_FOREGROUND));
        /* K8S: compared as sets */
        changed = false;
        json_array_foreach(out, i, f)
                changed |= !json_array_has_string(fins, json_string_value(f) ?: "");
        json_array_foreach(fins, i, f)
                changed |= !json_array_has_string(out, json_string_value(f) ?: "");
        *ret_changed = changed;
        return out;
}

/* K8S: pod strategy CheckGracefulDelete: the grace period a pod deletion gets. Unscheduled
 * and finished pods go at once; otherwise the request's or the spec's period. */
static long long graceful_period(const struct api_target *t, const json_t *obj, long long asked)
{
        const char *phase;
        long long grace;

        if (!streq(t->res->plural, "pods"))
                return 0;
        grace = asked >= 0 ? asked
                           : (json_is_integer(json_path(obj, "spec.terminationGracePeriodSeconds"))
                                      ? json_integer_value(json_path(
                                                obj, "spec.terminationGracePeriodSeconds"))
                                      : 30);
        phase = json_path_string(obj, "status.phase");
        if (!json_path_string(obj, "spec.nodeName") ||
            (phase && (streq(phase, "Succeeded") || streq(phase, "Failed"))))
                return 0;
        return grace < 0 ? 1 : grace;
}

/* Deletes one object (already read as old). Returns -ESTALE to let the caller retry.
 * K8S: store.go Delete with updateForGracefulDeletionAndFinalizers: an object that must wait
 * (a pod's grace period, finalizers, among them the garbage collector's "orphan" and
 * "foregroundDeletion" that the propagation policy puts on) is marked with deletionTimestamp;
 * anything else goes at once, and with the default Background policy the garbage collector
 * then deletes its dependents. */
static int delete_object(struct apiserver *s, const struct api_target *t,
                         const struct http_request *req, struct http_response *resp,
                         const json_t *old, const struct delete_options *o, bool respond)
{
        cleanup_error struct error *err = NULL;
        cleanup_json json_t *last = NULL, *marked = NULL, *fins = NULL;
        const char *name = obj_name(old);
        long long grace = graceful_period(t, old, o->grace);
        bool fins_changed = false, has_finalizers;
        const json_t *deleting = json_path(old, "metadata.deletionTimestamp");
        int r;

        if (o->uid && !streq(o->uid, json_path_string(old, "metadata.uid") ?: "")) {
                cleanup_free char *why = xasprintf(
                        "Precondition failed: UID in precondition: %s, UID in object meta: %s",
                        o->uid, json_path_string(old, "metadata.uid") ?: "");
                status_conflict(resp, t->res, name, why);
                return 0;
        }
        if (o->rv && strtoull(o->rv, NULL, 10) != obj_rv(old)) {
                cleanup_free char *why = xasprintf(
                        "Precondition failed: ResourceVersion in precondition: %s, ResourceVersion in object meta: %s",
                        o->rv, json_path_string(old, "metadata.resourceVersion") ?: "");
                status_conflict(resp, t->res, name, why);
                return 0;
        }
        fins = gc_finalizers(t, old, o, &fins_changed);
        has_finalizers = json_array_size(fins) > 0;
        if (grace > 0 || has_finalizers) {
                const json_t *cur = json_path(old, "metadata.deletionGracePeriodSeconds");
                json_t *meta;
                char ts[32];

                /* K8S: a repeated graceful delete may only shorten the period (BeforeDelete:
                 * gracefulPending leaves the object as it is, finalizers included); one
                 * already marked with no period left may still change its GC finalizers. */
                if (deleting && cur && json_integer_value(cur) <= grace &&
                    (json_integer_value(cur) > 0 || !fins_changed)) {
                        if (respond)
                                respond_object(t, req, resp, 200, old);
                        return 0;
                }
                marked = json_deep_copy(old);
                meta = json_object_get(marked, "metadata");
                /* K8S: markAsDeleting bumps the generation of an object that has one the
                 * first time it is marked */
                if (!deleting && grace == 0 &&
                    json_integer_value(json_object_get(meta, "generation")) > 0)
                        json_object_set_new(meta, "generation",
                                            json_integer(json_integer_value(json_object_get(
                                                                 meta, "generation")) +
                                                         1));
                time_format_rfc3339(time(NULL) + grace, ts);
                json_object_set_new(meta, "deletionTimestamp", json_string(ts));
                json_object_set_new(meta, "deletionGracePeriodSeconds", json_integer(grace));
                if (fins_changed)
                        json_object_set(meta, "finalizers", fins);
                if (dry_run(req)) {
                        if (respond)
                                respond_object(t, req, resp, 200, marked);
                        return 0;
                }
                r = store_update_from(s->store, t->res->plural, store_ns(t), name, marked, old,
                                      NULL, &err);
                if (r == -ESTALE)
                        return r;
                if (r < 0)
                        respond_store_error(t, name, resp, r, err);
                else if (respond)
                        respond_object(t, req, resp, 200, marked);
                return 0;
        }
        if (dry_run(req)) {
                if (respond)
                        respond_object(t, req, resp, 200, old);
                return 0;
        }
        r = store_delete(s->store, t->res->plural, store_ns(t), name, obj_rv(old), &last, &err);
        if (r == -ESTALE)
                return r;
        if (r < 0)
                respond_store_error(t, name, resp, r, err);
        else if (respond)
                respond_object(t, req, resp, 200, last);
        return 0;
}

int registry_delete_object(struct apiserver *s, const struct api_target *t,
                           const struct http_request *req, struct http_response *resp,
                           const json_t *old, const struct delete_options *o)
{
        return delete_object(s, t, req, resp, old, o, false);
}

json_t *registry_parse_body(const struct http_request *req, struct http_response *resp,
                            const char *what)
{
        return parse_body(req, resp, what);
}

/* K8S: the namespace REST's Delete. A namespace with spec.finalizers is not removed but marked
 * (deletionTimestamp, phase Terminating); the namespace controller empties it, takes its
 * finalizer off through namespaces/finalize and deletes it again, and only then does it go. A
 * delete while the content is still being removed is 409. Returns -ESTALE to let the caller
 * retry, like delete_object. */
static int delete_namespace(struct apiserver *s, const struct api_target *t,
                            const struct http_request *req, struct http_response *resp,
                            const json_t *old, const struct delete_options *o)
{
        cleanup_error struct error *err = NULL;
        cleanup_json json_t *marked = NULL;
        char ts[32];
        int r;

        if (json_array_size(json_path(old, "spec.finalizers")) == 0)
                return delete_object(s, t, req, resp, old, o, true);
        if (json_path(old, "metadata.deletionTimestamp")) {
                status_conflict(resp, t->res, t->name,
                                "The system is ensuring all content is removed from this "
                                "namespace.  Upon completion, this namespace will automatically "
                                "be purged by the system.");
                return 0;
        }
        marked = json_deep_copy(old);
        time_format_rfc3339(time(NULL), ts);
        json_object_set_new(json_object_get(marked, "metadata"), "deletionTimestamp",
                            json_string(ts));
        json_object_set_new(json_object_get(marked, "metadata"), "deletionGracePeriodSeconds",
                            json_integer(0));
        json_object_set_new(json_object_ensure(marked, "status"), "phase",
                            json_string("Terminating"));
        if (dry_run(req)) {
                respond_object(t, req, resp, 200, marked);
                return 0;
        }
        r = store_update_from(s->store, t->res->plural, "", t->name, marked, old, NULL, &err);
        if (r == -ESTALE)
                return r;
        if (r < 0)
                respond_store_error(t, t->name, resp, r, err);
        else
                respond_object(t, req, resp, 200, marked);
        return 0;
}

/* K8S: the Job REST's Delete and DeleteCollection warn when a delete that names no policy
 * orphans the dependents by default (pkg/registry/batch/job/storage). */
static void warn_orphan_default(const struct api_target *t, const struct delete_options *o,
                                struct http_response *resp)
{
        if (!o->propagation && t->res->strategy->orphan_dependents_by_default &&
            t->res->strategy->orphan_default_warning)
                http_response_add_warning(resp, t->res->strategy->orphan_default_warning);
}

/* K8S NamespaceLifecycle: the namespaces the cluster itself lives in. */
static bool namespace_immortal(const char *name)
{
        static const char *const names[] = { "default", "kube-system", "kube-public",
                                             "kube-node-lease" };

        for (size_t i = 0; i < ARRAY_SIZE(names); i++)
                if (streq(name, names[i]))
                        return true;
        return false;
}

void registry_delete(struct apiserver *s, const struct api_target *t,
                     const struct http_request *req, struct http_response *resp)
{
        cleanup_json json_t *body = NULL;
        bool is_namespace = t->res->strategy == &namespace_strategy;
        struct delete_options o;

        if (parse_delete_options(req, resp, &body, &o) < 0)
                return;
        if (is_namespace && namespace_immortal(t->name)) {
                status_forbidden(resp, t->res, t->name, "this namespace may not be deleted");
                return;
        }
        warn_orphan_default(t, &o, resp);
        for (int attempt = 0; attempt <= PATCH_CONFLICT_RETRIES; attempt++) {
                cleanup_error struct error *err = NULL;
                cleanup_json json_t *old = NULL;
                int r = store_get(s->store, t->res->plural, store_ns(t), t->name, &old, &err);

                if (r < 0) {
                        respond_store_error(t, t->name, resp, r, err);
                        return;
                }
                if (node_restriction_admit(s->store, t, NODE_RESTRICTION_DELETE, NULL, old, resp) <
                    0)
                        return;
                r = is_namespace ? delete_namespace(s, t, req, resp, old, &o)
                                 : delete_object(s, t, req, resp, old, &o, true);
                if (r != -ESTALE)
                        return;
        }
        status_conflict(resp, t->res, t->name, CONFLICT_MODIFIED);
}

void registry_delete_collection(struct apiserver *s, const struct api_target *t,
                                const struct http_request *req, struct http_response *resp)
{
        cleanup_json json_t *items = NULL, *body = NULL, *deleted = NULL, *doc = NULL;
        struct label_selector *ls = NULL;
        struct field_selector *fs = NULL;
        struct delete_options o;
        uint64_t rv;
        size_t i;
        json_t *obj;
        int r;

        if (parse_delete_options(req, resp, &body, &o) < 0)
                return;
        o.uid = o.rv = NULL;
        if (request_selectors(t, req, resp, &ls, &fs) < 0)
                return;
        r = list_matching(s, t, ls, fs, &items, &rv, resp);
        label_selector_free(ls);
        field_selector_free(fs);
        if (r < 0)
                return;
        deleted = json_array();
        json_array_foreach(items, i, obj) {
                struct api_target one = *t;
                one.ns = t->res->namespaced ? json_path_string(obj, "metadata.namespace") : NULL;
                one.name = obj_name(obj);
                /* K8S: deletecollection admits each item as a DELETE */
                if (node_restriction_admit(s->store, &one, NODE_RESTRICTION_DELETE, NULL, obj,
                                           resp) < 0)
                        return;
                if (delete_object(s, &one, req, resp, obj, &o, false) == 0)
                        json_array_append(deleted, obj);
        }
        doc = json_pack("{s:s, s:s, s:{}, s:O}", "kind", t->res->list_kind, "apiVersion",
                        t->res->api_version, "metadata", "items", deleted);
        http_response_release(resp);
        http_response_init(resp);
        warn_orphan_default(t, &o, resp);
        http_response_json(resp, 200, doc);
}

void registry_bind(struct apiserver *s, const struct api_target *t, const struct http_request *req,
                   struct http_response *resp)
{
        cleanup_json json_t *binding = parse_body(req, resp, "couldn't decode Binding");
        const char *node;

        if (!binding)
                return;
        if (node_restriction_admit(s->store, t, NODE_RESTRICTION_CREATE, binding, NULL, resp) < 0)
                return;
        node = json_path_string(binding, "target.name");
        if (!node || !*node) {
                struct field_error_list errs;
                field_error_list_init(&errs);
                field_error_add(&errs, FIELD_ERROR_REQUIRED, "target.name", NULL, "%s", "");
                status_invalid(resp, t->res, t->name, &errs);
                field_error_list_release(&errs);
                return;
        }
        for (int attempt = 0; attempt <= PATCH_CONFLICT_RETRIES; attempt++) {
                cleanup_error struct error *err = NULL;
                cleanup_json json_t *pod = NULL, *st = NULL;
                const char *assigned;
                json_t *status, *conditions;
                char now[32];
                int r = store_get(s->store, t->res->plural, store_ns(t), t->name, &pod, &err);

                if (r < 0) {
                        respond_store_error(t, t->name, resp, r, err);
                        return;
                }
                assigned = json_path_string(pod, "spec.nodeName");
                if (assigned && *assigned) {
                        cleanup_free char *msg = xasprintf(
                                "Operation cannot be fulfilled on pods/binding \"%s\": pod %s is already assigned to node \"%s\"",
                                t->name, t->name, assigned);
                        status_respond(
                                resp, ESTALE, msg,
                                json_pack("{s:s, s:s}", "name", t->name, "kind", "pods/binding"));
                        return;
                }
                if (json_path(pod, "metadata.deletionTimestamp")) {
                        status_conflict(resp, t->res, t->name,
                                        "pod is being deleted, cannot be assigned to a host");
                        return;
                }
                json_object_set_new(json_object_ensure(pod, "spec"), "nodeName", json_string(node));
                status = json_object_ensure(pod, "status");
                conditions = json_object_get(status, "conditions");
                if (!json_is_array(conditions)) {
                        conditions = json_array();
                        json_object_set_new(status, "conditions", conditions);
                }
                for (size_t i = json_array_size(conditions); i-- > 0;)
                        if (streq(json_string_value(
                                          json_object_get(json_array_get(conditions, i), "type"))
                                          ?: "",
                                  "PodScheduled"))
                                json_array_remove(conditions, i);
                time_format_rfc3339(time(NULL), now);
                json_array_append_new(conditions,
                                      json_pack("{s:s, s:s, s:n, s:s}", "type", "PodScheduled",
                                                "status", "True", "lastProbeTime",
                                                "lastTransitionTime", now));
                if (dry_run(req)) {
                        r = 0;
                } else {
                        r = store_update(s->store, t->res->plural, store_ns(t), t->name, pod,
                                         obj_rv(pod), &err);
                        if (r == -ESTALE)
                                continue;
                        if (r < 0) {
                                respond_store_error(t, t->name, resp, r, err);
                                return;
                        }
                }
                st = json_pack("{s:s, s:s, s:{}, s:s, s:i}", "kind", "Status", "apiVersion", "v1",
                               "metadata", "status", "Success", "code", 201);
                http_response_json(resp, 201, st);
                return;
        }
        status_conflict(resp, t->res, t->name, CONFLICT_MODIFIED);
}
