/* openapi-v2.c: GET /openapi/v2, the Swagger 2.0 document kubectl validates `kind: List` files
 * and builds apply patches with, generated once from the resource table and the schemas (as
 * /openapi/v3 in openapi.c) and cached in both forms it is served in: JSON, and the gnostic
 * OpenAPI v2 `Document` protobuf message (github.com/google/gnostic-models
 * openapiv2/OpenAPIv2.proto; field numbers below are that file's).
 *
 * The JSON document is the one source: the protobuf form is encoded from it, for the subset of
 * Swagger this file writes (definitions, paths with a patch operation, query parameters,
 * responses, vendor extensions). Each form has its ETag; a matching If-None-Match is 304. */
#include <errno.h>
#include <gnutls/crypto.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "apiserver/apiserver-internal.h"
#include "apiserver/discovery.h"
#include "apiserver/negotiate.h"
#include "apiserver/resources.h"
#include "apiserver/status.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/protowire.h"

#define MAX_SCHEMA_DEPTH 32

/* K8S: kube-openapi pkg/handler (OpenAPIService.ServeHTTP): the media types /openapi/v2 serves,
 * in its order, and the Content-Type each is answered with (the `@` spelling kubectl asks for
 * is answered with the `.` one). */
#define OPENAPI_V2_PROTOBUF_ASKED "com.github.proto-openapi.spec.v2@v1.0+protobuf"
#define OPENAPI_V2_PROTOBUF       "com.github.proto-openapi.spec.v2.v1.0+protobuf"

/* gnostic openapi.v2 field numbers. */
enum {
        DOC_SWAGGER = 1,
        DOC_INFO = 2,
        DOC_PATHS = 8,
        DOC_DEFINITIONS = 9,
        INFO_TITLE = 1,
        INFO_VERSION = 2,
        PATHS_PATH = 2,
        NAMED_NAME = 1, /* NamedAny, NamedSchema, NamedPathItem, NamedResponseValue */
        NAMED_VALUE = 2,
        ANY_YAML = 2,
        DEFINITIONS_ADDITIONAL_PROPERTIES = 1,
        PATHITEM_GET = 2,
        PATHITEM_PUT = 3,
        PATHITEM_POST = 4,
        PATHITEM_DELETE = 5,
        PATHITEM_PATCH = 8,
        PATHITEM_VENDOR_EXTENSION = 10,
        OP_DESCRIPTION = 3,
        OP_OPERATION_ID = 5,
        OP_PRODUCES = 6,
        OP_CONSUMES = 7,
        OP_PARAMETERS = 8,
        OP_RESPONSES = 9,
        OP_VENDOR_EXTENSION = 13,
        PARAMETERSITEM_PARAMETER = 1,
        PARAMETER_NON_BODY = 2,
        NONBODY_QUERY = 3,
        QUERY_REQUIRED = 1,
        QUERY_IN = 2,
        QUERY_DESCRIPTION = 3,
        QUERY_NAME = 4,
        QUERY_TYPE = 6,
        RESPONSES_RESPONSE_CODE = 1,
        RESPONSEVALUE_RESPONSE = 1,
        RESPONSE_DESCRIPTION = 1,
        SCHEMA_FORMAT = 2,
        SCHEMA_DESCRIPTION = 4,
        SCHEMA_REQUIRED = 19,
        SCHEMA_ADDITIONAL_PROPERTIES = 21,
        SCHEMA_TYPE = 22,
        SCHEMA_ITEMS = 23,
        SCHEMA_PROPERTIES = 25,
        SCHEMA_VENDOR_EXTENSION = 31,
        ADDITIONALPROPERTIESITEM_SCHEMA = 1,
        ADDITIONALPROPERTIESITEM_BOOLEAN = 2,
        TYPEITEM_VALUE = 1,
        ITEMSITEM_SCHEMA = 1,
        PROPERTIES_ADDITIONAL_PROPERTIES = 1,
};

/* ---- the JSON document ---- */

static json_t *v2_schema(const struct schema *s, int depth);

static json_t *v2_list(const struct schema *s, int depth)
{
        json_t *l =
                json_pack("{s:s, s:o}", "type", "array", "items", v2_schema(s->items, depth + 1));

        /* K8S: the patch strategy kubectl apply reads from the v2 document
         * (strategicpatch.NewPatchMetaFromOpenAPI) when it builds a patch */
        openapi_list_extensions(l, s);
        return l;
}

/* K8S: the types upstream's v2 document gives (Quantity and IntOrString are strings, the
 * latter with format int-or-string); kubectl's validator accepts any value where a string is
 * declared, and anything at all where no type is (proto.Arbitrary). */
static json_t *v2_schema(const struct schema *s, int depth)
{
        json_t *props;

        if (!s || depth > MAX_SCHEMA_DEPTH)
                return json_object();
        switch (s->kind) {
        case SCHEMA_STRING:
        case SCHEMA_QUANTITY:
                return json_pack("{s:s}", "type", "string");
        case SCHEMA_TIME:
                return json_pack("{s:s, s:s}", "type", "string", "format", "date-time");
        case SCHEMA_INT_OR_STRING:
                return json_pack("{s:s, s:s}", "type", "string", "format", "int-or-string");
        case SCHEMA_INTEGER:
                return json_pack("{s:s, s:s}", "type", "integer", "format",
                                 s->go_type && strstr(s->go_type, "int32") ? "int32" : "int64");
        case SCHEMA_NUMBER:
                return json_pack("{s:s, s:s}", "type", "number", "format", "double");
        case SCHEMA_BOOLEAN:
                return json_pack("{s:s}", "type", "boolean");
        case SCHEMA_OBJECT:
                props = json_object();
                for (const struct schema_field *f = s->fields; f && f->name; f++)
                        json_object_set_new(props, f->name, v2_schema(f->schema, depth + 1));
                return json_pack("{s:s, s:o}", "type", "object", "properties", props);
        case SCHEMA_MAP:
                return json_pack("{s:s, s:o}", "type", "object", "additionalProperties",
                                 v2_schema(s->items, depth + 1));
        case SCHEMA_LIST:
                return v2_list(s, depth);
        case SCHEMA_ANY:
        case SCHEMA_KIND_MAX:
                break;
        }
        return json_object();
}

static json_t *gvk(const struct api_resource *r)
{
        return json_pack("{s:s, s:s, s:s}", "group", r->group, "kind", r->kind, "version",
                         r->version);
}

static json_t *query_param(const char *name, const char *description)
{
        return json_pack("{s:s, s:s, s:s, s:s}", "name", name, "in", "query", "type", "string",
                         "description", description);
}

/* K8S: the patch operation kube-apiserver's document declares for every resource, with the
 * parameters kubectl looks for and its x-kubernetes-group-version-kind (a map here, a list on
 * definitions). */
static json_t *patch_operation(const struct api_resource *r)
{
        cleanup_free char *id = xasprintf("patch%s", r->kind);

        return json_pack(
                "{s:s, s:s, s:[s, s, s, s], s:[s, s], s:[o, o, o, o], s:{s:{s:s}}, s:o, s:s}",
                "description", "partially update the specified object", "operationId", id,
                "consumes", "application/json-patch+json", "application/merge-patch+json",
                "application/strategic-merge-patch+json", "application/apply-patch+yaml",
                "produces", "application/json", "application/vnd.kubernetes.protobuf", "parameters",
                query_param("dryRun", "When present, indicates that modifications should not be "
                                      "persisted."),
                query_param("fieldManager", "fieldManager is a name associated with the actor or "
                                            "entity that is making these changes."),
                query_param("fieldValidation",
                            "fieldValidation instructs the server on how to handle objects in "
                            "the request containing unknown or duplicate fields."),
                query_param("force", "Force is going to \"force\" Apply requests."), "responses",
                "200", "description", "OK", "x-kubernetes-group-version-kind", gvk(r),
                "x-kubernetes-action", "patch");
}

static json_t *build_json(void)
{
        json_t *paths = json_object(), *defs = json_object();

        for (size_t i = 0; i < n_api_resources; i++) {
                const struct api_resource *r = api_resources[i];
                cleanup_free char *prefix = r->group[0]
                                                    ? xasprintf("/apis/%s/%s", r->group, r->version)
                                                    : xasprintf("/api/%s", r->version);
                cleanup_free char *path = r->namespaced
                                                  ? xasprintf("%s/namespaces/{namespace}/%s/{name}",
                                                              prefix, r->plural)
                                                  : xasprintf("%s/%s/{name}", prefix, r->plural);
                cleanup_free char *name = openapi_definition_name(r);
                json_t *def = v2_schema(r->schema, 0);

                json_object_set_new(paths, path, json_pack("{s:o}", "patch", patch_operation(r)));
                json_object_set_new(def, "x-kubernetes-group-version-kind",
                                    json_pack("[o]", gvk(r)));
                json_object_set_new(defs, name, def);
        }
        return json_pack("{s:s, s:{s:s, s:s}, s:o, s:o}", "swagger", "2.0", "info", "title",
                         "Kubernetes", "version", "v1.33.0", "paths", paths, "definitions", defs);
}

/* ---- the protobuf document ---- */

static bool is_extension(const char *key)
{
        return strncmp(key, "x-", 2) == 0;
}

/* NamedAny{name, value: Any{yaml}}: K8S: kube-openapi reads vendor extensions by unmarshalling
 * Any.yaml with YAML; the compact JSON text of the value is a YAML flow document. */
static void pb_extension(struct pbw *w, uint32_t field, const char *key, const json_t *value)
{
        cleanup_free char *text = json_dumps(value, JSON_COMPACT | JSON_ENCODE_ANY);
        cleanup_free char *yaml = xasprintf("%s\n", text);

        (void) pbw_begin(w, field);
        pbw_string(w, NAMED_NAME, key);
        (void) pbw_begin(w, NAMED_VALUE);
        pbw_string(w, ANY_YAML, yaml);
        pbw_end(w);
        pbw_end(w);
}

static void pb_schema(struct pbw *w, const json_t *s)
{
        const char *key;
        const json_t *v;

        json_object_foreach((json_t *) s, key, v) {
                if (streq(key, "format")) {
                        pbw_string(w, SCHEMA_FORMAT, json_string_value(v));
                } else if (streq(key, "description")) {
                        pbw_string(w, SCHEMA_DESCRIPTION, json_string_value(v));
                } else if (streq(key, "type")) {
                        (void) pbw_begin(w, SCHEMA_TYPE);
                        pbw_string(w, TYPEITEM_VALUE, json_string_value(v));
                        pbw_end(w);
                } else if (streq(key, "items")) {
                        (void) pbw_begin(w, SCHEMA_ITEMS);
                        (void) pbw_begin(w, ITEMSITEM_SCHEMA);
                        pb_schema(w, v);
                        pbw_end(w);
                        pbw_end(w);
                } else if (streq(key, "additionalProperties")) {
                        (void) pbw_begin(w, SCHEMA_ADDITIONAL_PROPERTIES);
                        (void) pbw_begin(w, ADDITIONALPROPERTIESITEM_SCHEMA);
                        pb_schema(w, v);
                        pbw_end(w);
                        pbw_end(w);
                } else if (streq(key, "properties")) {
                        const char *pk;
                        const json_t *pv;

                        (void) pbw_begin(w, SCHEMA_PROPERTIES);
                        json_object_foreach((json_t *) v, pk, pv) {
                                (void) pbw_begin(w, PROPERTIES_ADDITIONAL_PROPERTIES);
                                pbw_string(w, NAMED_NAME, pk);
                                (void) pbw_begin(w, NAMED_VALUE);
                                pb_schema(w, pv);
                                pbw_end(w);
                                pbw_end(w);
                        }
                        pbw_end(w);
                } else if (is_extension(key)) {
                        pb_extension(w, SCHEMA_VENDOR_EXTENSION, key, v);
                }
        }
}

static void pb_strings(struct pbw *w, uint32_t field, const json_t *list)
{
        size_t i;
        const json_t *v;

        json_array_foreach(list, i, v)
                pbw_string(w, field, json_string_value(v));
}

static void pb_operation(struct pbw *w, const json_t *op)
{
        const char *key;
        const json_t *v;

        json_object_foreach((json_t *) op, key, v) {
                if (streq(key, "description")) {
                        pbw_string(w, OP_DESCRIPTION, json_string_value(v));
                } else if (streq(key, "operationId")) {
                        pbw_string(w, OP_OPERATION_ID, json_string_value(v));
                } else if (streq(key, "produces")) {
                        pb_strings(w, OP_PRODUCES, v);
                } else if (streq(key, "consumes")) {
                        pb_strings(w, OP_CONSUMES, v);
                } else if (streq(key, "parameters")) {
                        size_t i;
                        const json_t *p;

                        /* ParametersItem{parameter: Parameter{non_body_parameter:
                         * NonBodyParameter{query_parameter_sub_schema}}} */
                        json_array_foreach(v, i, p) {
                                (void) pbw_begin(w, OP_PARAMETERS);
                                (void) pbw_begin(w, PARAMETERSITEM_PARAMETER);
                                (void) pbw_begin(w, PARAMETER_NON_BODY);
                                (void) pbw_begin(w, NONBODY_QUERY);
                                pbw_string(w, QUERY_IN,
                                           json_string_value(json_object_get(p, "in")));
                                pbw_string(w, QUERY_DESCRIPTION,
                                           json_string_value(json_object_get(p, "description")));
                                pbw_string(w, QUERY_NAME,
                                           json_string_value(json_object_get(p, "name")));
                                pbw_string(w, QUERY_TYPE,
                                           json_string_value(json_object_get(p, "type")));
                                pbw_end(w);
                                pbw_end(w);
                                pbw_end(w);
                                pbw_end(w);
                        }
                } else if (streq(key, "responses")) {
                        const char *code;
                        const json_t *resp;

                        (void) pbw_begin(w, OP_RESPONSES);
                        json_object_foreach((json_t *) v, code, resp) {
                                (void) pbw_begin(w, RESPONSES_RESPONSE_CODE);
                                pbw_string(w, NAMED_NAME, code);
                                (void) pbw_begin(w, NAMED_VALUE);
                                (void) pbw_begin(w, RESPONSEVALUE_RESPONSE);
                                pbw_string(w, RESPONSE_DESCRIPTION,
                                           json_string_value(json_object_get(resp, "description")));
                                pbw_end(w);
                                pbw_end(w);
                                pbw_end(w);
                        }
                        pbw_end(w);
                } else if (is_extension(key)) {
                        pb_extension(w, OP_VENDOR_EXTENSION, key, v);
                }
        }
}

static void pb_path_item(struct pbw *w, const json_t *item)
{
        static const struct {
                const char *method;
                uint32_t field;
        } ops[] = { { "get", PATHITEM_GET },
                    { "put", PATHITEM_PUT },
                    { "post", PATHITEM_POST },
                    { "delete", PATHITEM_DELETE },
                    { "patch", PATHITEM_PATCH } };

        for (size_t i = 0; i < ARRAY_SIZE(ops); i++) {
                const json_t *op = json_object_get(item, ops[i].method);

                if (!op)
                        continue;
                (void) pbw_begin(w, ops[i].field);
                pb_operation(w, op);
                pbw_end(w);
        }
}

static void pb_document(const json_t *doc, struct strbuf *out)
{
        struct pbw w;
        const char *key;
        const json_t *v;

        pbw_init(&w, out);
        pbw_string(&w, DOC_SWAGGER, json_string_value(json_object_get(doc, "swagger")));
        (void) pbw_begin(&w, DOC_INFO);
        pbw_string(&w, INFO_TITLE, json_path_string(doc, "info.title"));
        pbw_string(&w, INFO_VERSION, json_path_string(doc, "info.version"));
        pbw_end(&w);
        (void) pbw_begin(&w, DOC_PATHS);
        json_object_foreach(json_object_get(doc, "paths"), key, v) {
                (void) pbw_begin(&w, PATHS_PATH);
                pbw_string(&w, NAMED_NAME, key);
                (void) pbw_begin(&w, NAMED_VALUE);
                pb_path_item(&w, v);
                pbw_end(&w);
                pbw_end(&w);
        }
        pbw_end(&w);
        (void) pbw_begin(&w, DOC_DEFINITIONS);
        json_object_foreach(json_object_get(doc, "definitions"), key, v) {
                (void) pbw_begin(&w, DEFINITIONS_ADDITIONAL_PROPERTIES);
                pbw_string(&w, NAMED_NAME, key);
                (void) pbw_begin(&w, NAMED_VALUE);
                pb_schema(&w, v);
                pbw_end(&w);
                pbw_end(&w);
        }
        pbw_end(&w);
        pbw_finish(&w);
}

/* ---- serving ---- */

/* Generated once: the document only changes with the binary. */
static struct {
        pthread_once_t once;
        char *json;
        struct strbuf pb;
        char *json_etag, *pb_etag;
} cache = { .once = PTHREAD_ONCE_INIT };

/* K8S: kube-openapi's computeETag: the SHA-512 of the served bytes in upper-case hex, sent
 * quoted (strconv.Quote). */
static char *etag_of(const void *data, size_t len)
{
        unsigned char d[64];
        char hex[2 * sizeof(d) + 1];

        if (gnutls_hash_fast(GNUTLS_DIG_SHA512, data, len, d) < 0)
                abort();
        for (size_t i = 0; i < sizeof(d); i++)
                (void) snprintf(hex + 2 * i, 3, "%02X", d[i]);
        return xasprintf("\"%s\"", hex);
}

static void build_cache(void)
{
        cleanup_json json_t *doc = build_json();

        cache.json = json_dump_compact(doc);
        strbuf_init(&cache.pb);
        pb_document(doc, &cache.pb);
        cache.json_etag = etag_of(cache.json, strlen(cache.json));
        cache.pb_etag = etag_of(cache.pb.buf, cache.pb.len);
}

/* K8S: Go's http.ServeContent (checkIfNoneMatch): a comma-separated list of entity tags, each
 * compared weakly (W/ dropped), or "*". */
static bool none_match_hits(const char *header, const char *etag)
{
        size_t etag_len = strlen(etag);

        for (const char *p = header; p && *p;) {
                size_t n;

                p += strspn(p, " \t,");
                if (*p == '*')
                        return true;
                if (strncmp(p, "W/", 2) == 0)
                        p += 2;
                if (*p != '"')
                        return false;
                n = strcspn(p + 1, "\"");
                if (p[1 + n] != '"')
                        return false;
                if (n + 2 == etag_len && memcmp(p, etag, etag_len) == 0)
                        return true;
                p += n + 2;
        }
        return false;
}

/* K8S: kube-openapi's handler (OpenAPIService.ServeHTTP) negotiates with goautoneg's clause
 * order, parameters ignored; no Accept header counts as * / *. */
static int v2_media(const char *accept, bool *ret_protobuf)
{
        static const char *const types[] = { "application/json",
                                             "application/" OPENAPI_V2_PROTOBUF_ASKED,
                                             "application/" OPENAPI_V2_PROTOBUF };
        size_t i;
        int r = negotiate_accept_pick(accept && *accept ? accept : "*/*", types, ARRAY_SIZE(types),
                                      &i);

        if (r < 0)
                return r;
        *ret_protobuf = i > 0;
        return 0;
}

void openapi_v2(const struct http_request *req, struct http_response *resp)
{
        bool protobuf = false;

        (void) pthread_once(&cache.once, build_cache);
        if (v2_media(req->accept, &protobuf) < 0) {
                /* K8S: kube-openapi answers 406 with no body */
                resp->status = 406;
                resp->content_type = "text/plain; charset=utf-8";
                strbuf_reset(&resp->body);
                return;
        }
        resp->status = 200;
        strbuf_reset(&resp->body);
        resp->etag = protobuf ? cache.pb_etag : cache.json_etag;
        if (req->if_none_match && none_match_hits(req->if_none_match, resp->etag)) {
                resp->status = 304;
                resp->content_type =
                        protobuf ? "application/" OPENAPI_V2_PROTOBUF : "application/json";
                return;
        }
        if (protobuf) {
                resp->content_type = "application/" OPENAPI_V2_PROTOBUF;
                strbuf_add(&resp->body, cache.pb.buf, cache.pb.len);
        } else {
                resp->content_type = "application/json";
                strbuf_addstr(&resp->body, cache.json);
        }
}
