/* openapi.c: the OpenAPI v3 documents, generated once from the resource table and schemas.
 *
 * kubectl needs, per group-version, a `patch` operation with x-kubernetes-group-version-kind
 * and a fieldValidation parameter (then it trusts the server to validate). No requestBody is
 * declared on purpose: kubectl apply then builds its patches from its compiled-in types, which
 * is what upstream clients do against upstream servers (kubectl-wire.md §3). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "apiserver/apiserver-internal.h"
#include "apiserver/discovery.h"
#include "apiserver/resources.h"
#include "apiserver/status.h"
#include "base/alloc.h"
#include "base/hash.h"
#include "base/json.h"
#include "base/strbuf.h"

#define MAX_SCHEMA_DEPTH 32

static json_t *schema_json(const struct schema *s, int depth);

static json_t *object_json(const struct schema *s, int depth)
{
        json_t *props = json_object();

        for (const struct schema_field *f = s->fields; f && f->name; f++)
                json_object_set_new(props, f->name, schema_json(f->schema, depth + 1));
        return json_pack("{s:s, s:o}", "type", "object", "properties", props);
}

void openapi_list_extensions(json_t *l, const struct schema *s)
{
        switch (s->list_type) {
        case SCHEMA_LIST_ATOMIC:
                json_object_set_new(l, "x-kubernetes-list-type", json_string("atomic"));
                break;
        case SCHEMA_LIST_MAP:
                json_object_set_new(l, "x-kubernetes-list-type", json_string("map"));
                json_object_set_new(l, "x-kubernetes-list-map-keys",
                                    json_pack("[s]", s->merge_key));
                json_object_set_new(l, "x-kubernetes-patch-merge-key", json_string(s->merge_key));
                json_object_set_new(l, "x-kubernetes-patch-strategy",
                                    json_string(s->retain_keys ? "merge,retainKeys" : "merge"));
                break;
        case SCHEMA_LIST_SET:
                json_object_set_new(l, "x-kubernetes-list-type", json_string("set"));
                json_object_set_new(l, "x-kubernetes-patch-strategy", json_string("merge"));
                break;
        }
}

char *openapi_definition_name(const struct api_resource *r)
{
        /* K8S: the Go package's path: io.k8s.api.storage.v1 for storage.k8s.io, policy for policy
         */
        if (!r->group[0])
                return xasprintf("io.k8s.api.core.%s.%s", r->version, r->kind);
        return xasprintf("io.k8s.api.%.*s.%s.%s", (int) strcspn(r->group, "."), r->group,
                         r->version, r->kind);
}

static json_t *list_json(const struct schema *s, int depth)
{
        json_t *l =
                json_pack("{s:s, s:o}", "type", "array", "items", schema_json(s->items, depth + 1));

        openapi_list_extensions(l, s);
        return l;
}

static json_t *schema_json(const struct schema *s, int depth)
{
        if (!s || depth > MAX_SCHEMA_DEPTH)
                return json_pack("{s:b}", "x-kubernetes-preserve-unknown-fields", 1);
        switch (s->kind) {
        case SCHEMA_STRING:
                return json_pack("{s:s}", "type", "string");
        case SCHEMA_TIME:
                return json_pack("{s:s, s:s}", "type", "string", "format", "date-time");
        case SCHEMA_INTEGER:
                return json_pack("{s:s, s:s}", "type", "integer", "format", "int64");
        case SCHEMA_NUMBER:
                return json_pack("{s:s, s:s}", "type", "number", "format", "double");
        case SCHEMA_BOOLEAN:
                return json_pack("{s:s}", "type", "boolean");
        case SCHEMA_QUANTITY:
        case SCHEMA_INT_OR_STRING:
                return json_pack("{s:b, s:[{s:s}, {s:s}]}", "x-kubernetes-int-or-string", 1,
                                 "anyOf", "type", "integer", "type", "string");
        case SCHEMA_OBJECT:
                return object_json(s, depth);
        case SCHEMA_MAP:
                return json_pack("{s:s, s:o}", "type", "object", "additionalProperties",
                                 schema_json(s->items, depth + 1));
        case SCHEMA_LIST:
                return list_json(s, depth);
        case SCHEMA_ANY:
        case SCHEMA_KIND_MAX:
                break;
        }
        return json_pack("{s:b}", "x-kubernetes-preserve-unknown-fields", 1);
}

static json_t *patch_operation(const struct api_resource *r)
{
        return json_pack("{s:{s:s, s:s, s:s}, s:[{s:s, s:s, s:{s:s}}, {s:s, s:s, s:{s:s}}, "
                         "{s:s, s:s, s:{s:s}}], s:{}}",
                         "x-kubernetes-group-version-kind", "group", r->group, "version",
                         r->version, "kind", r->kind, "parameters", "name", "fieldValidation", "in",
                         "query", "schema", "type", "string", "name", "dryRun", "in", "query",
                         "schema", "type", "string", "name", "fieldManager", "in", "query",
                         "schema", "type", "string", "responses");
}

/* The document of one group-version ("" / "v1" is the core group), or NULL when unknown. */
static json_t *group_version_doc(const char *group, const char *version)
{
        json_t *paths = json_object(), *schemas = json_object();
        bool any = false;

        for (size_t i = 0; i < n_api_resources; i++) {
                const struct api_resource *r = api_resources[i];
                cleanup_free char *path = NULL, *name = NULL;
                json_t *kind;
                cleanup_free char *prefix = r->group[0]
                                                    ? xasprintf("/apis/%s/%s", r->group, r->version)
                                                    : xasprintf("/api/%s", r->version);

                if (!streq(r->group, group) || !streq(r->version, version))
                        continue;
                any = true;
                path = r->namespaced
                               ? xasprintf("%s/namespaces/{namespace}/%s/{name}", prefix, r->plural)
                               : xasprintf("%s/%s/{name}", prefix, r->plural);
                json_object_set_new(paths, path, json_pack("{s:o}", "patch", patch_operation(r)));
                name = openapi_definition_name(r);
                kind = schema_json(r->schema, 0);
                /* K8S: the tag kubectl explain finds a kind's schema by */
                json_object_set_new(kind, "x-kubernetes-group-version-kind",
                                    json_pack("[{s:s, s:s, s:s}]", "group", r->group, "kind",
                                              r->kind, "version", r->version));
                json_object_set_new(schemas, name, kind);
        }
        if (!any) {
                json_decref(paths);
                json_decref(schemas);
                return NULL;
        }
        return json_pack("{s:s, s:{s:s, s:s}, s:o, s:{s:o}}", "openapi", "3.0.0", "info", "title",
                         "Kubernetes", "version", "v1.33.0", "paths", paths, "components",
                         "schemas", schemas);
}

/* Where r's group-version's document is, below /openapi/v3/: "api/v1", "apis/GROUP/VERSION". */
static char *doc_key(const struct api_resource *r)
{
        return r->group[0] ? xasprintf("apis/%s/%s", r->group, r->version)
                           : xasprintf("api/%s", r->version);
}

/* r's group-version's document as served */
static char *doc_text(const struct api_resource *r)
{
        cleanup_json json_t *doc = group_version_doc(r->group, r->version);

        return json_dump_compact(doc);
}

/* The document whose key is key; NULL when no resource has that group-version. */
static char *doc_text_of_key(const char *key)
{
        for (size_t i = 0; i < n_api_resources; i++) {
                cleanup_free char *k = doc_key(api_resources[i]);

                if (streq(k, key))
                        return doc_text(api_resources[i]);
        }
        return NULL;
}

/* The root, made once: each group-version's URL carries the hash of its document (kubectl
 * caches a document by its URL). The documents never change while the process runs, so they
 * are made again for each request instead of kept (0.6 MiB of the server's resident memory
 * for documents asked for rarely: kubectl keeps them on disk by that URL). */
static struct {
        pthread_once_t once;
        json_t *root;
} cache = { .once = PTHREAD_ONCE_INIT };

static void build_root(void)
{
        json_t *paths = json_object();

        for (size_t i = 0; i < n_api_resources; i++) {
                cleanup_free char *key = doc_key(api_resources[i]);
                cleanup_free char *text = NULL, *url = NULL;

                if (json_object_get(paths, key))
                        continue;
                text = doc_text(api_resources[i]);
                url = xasprintf(
                        "/openapi/v3/%s?hash=%016llX", key,
                        (unsigned long long) hash_fnv1a(HASH_FNV_OFFSET, text, strlen(text)));
                json_object_set_new(paths, key, json_pack("{s:s}", "serverRelativeURL", url));
        }
        cache.root = json_pack("{s:o}", "paths", paths);
}

void openapi_v3(struct http_response *resp, const char *rest)
{
        cleanup_free char *text = NULL;

        (void) pthread_once(&cache.once, build_root);
        if (!rest || !*rest || streq(rest, "/")) {
                http_response_json(resp, 200, cache.root);
                return;
        }
        text = doc_text_of_key(rest[0] == '/' ? rest + 1 : rest);
        if (!text) {
                status_respond(resp, ENOENT, "the server could not find the requested resource",
                               NULL);
                return;
        }
        resp->status = 200;
        resp->content_type = "application/json";
        strbuf_reset(&resp->body);
        strbuf_addstr(&resp->body, text);
}
