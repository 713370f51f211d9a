/* wire.c: protobuf request bodies decoded to the JSON the registry reads, JSON responses
 * re-encoded in protobuf, and protobuf watch frames, for the resources of the resource table.
 * The codec is api/protobuf.c; negotiation is negotiate.c; this file only joins them to HTTP. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/protobuf.h"
#include "apiserver/status.h"
#include "apiserver/wire.h"
#include "base/alloc.h"
#include "base/json.h"

/* K8S: summarizeData(body, 30) in apiserver pkg/endpoints/handlers/rest.go: the first 30 bytes
 * in hex, " ..." when there were more, "<empty>" for none (a body opening with '{' is printed
 * as text, but a protobuf body never reaches here with one that parses as an envelope). */
static char *summarize(const char *body, size_t len)
{
        size_t n = len > 30 ? 30 : len;
        char *out;

        if (len == 0)
                return xstrdup("<empty>");
        if (body[0] == '{')
                return len > 30 ? xasprintf("%.30s ...", body) : xasprintf("%.*s", (int) len, body);
        out = xmalloc(n * 2 + 5);
        for (size_t i = 0; i < n; i++)
                (void) snprintf(out + i * 2, 3, "%02x", (unsigned char) body[i]);
        strcpy(out + n * 2, len > 30 ? " ..." : "");
        return out;
}

static const char *version_of(const char *api_version)
{
        const char *slash = strrchr(api_version, '/');
        return slash ? slash + 1 : api_version;
}

/* K8S: EvictionREST.AcceptsGroupVersion: pods/eviction takes policy/v1beta1 Evictions too (the
 * same fields and numbers). */
static bool also_accepted(const struct api_resource *r, const char *api_version)
{
        return streq(r->kind, "Eviction") && streq(r->api_version, "policy/v1") &&
               streq(api_version, "policy/v1beta1");
}

int wire_body_to_json(const struct api_resource *r, const char *body, size_t len, char **ret_json,
                      struct error **reterr)
{
        cleanup_error struct error *err = NULL;
        cleanup_free char *api_version = NULL, *kind = NULL;
        cleanup_json json_t *obj = NULL;
        const void *raw;
        size_t raw_len;
        int ret;

        ret = pb_decode_envelope(body, len, &api_version, &kind, &raw, &raw_len, &err);
        if (ret < 0) {
                cleanup_free char *summary = summarize(body, len);
                /* K8S: transformDecodeError without a kind */
                return error_set(
                        reterr, EINVAL,
                        "the object provided is unrecognized (must be of type %s): %s (%s)",
                        r->kind, err ? err->message : "malformed protobuf", summary);
        }
        /* K8S: copyKindDefaults: the endpoint's kind and version fill in empty ones */
        if (!*kind) {
                free(kind);
                kind = xstrdup(r->kind);
        }
        if (!*api_version) {
                free(api_version);
                api_version = xstrdup(r->api_version);
        }
        if (!streq(kind, r->kind) ||
            (!streq(api_version, r->api_version) && !also_accepted(r, api_version))) {
                /* the JSON path's check_type_meta answers with upstream's words */
                obj = json_pack("{s:s, s:s}", "apiVersion", api_version, "kind", kind);
                *ret_json = json_dump_compact(obj);
                return 0;
        }
        ret = pb_decode(r->schema, raw, raw_len, &obj, &err);
        if (ret < 0)
                /* K8S: transformDecodeError with the envelope's kind */
                return error_set(reterr, EINVAL,
                                 "%s in version \"%s\" cannot be handled as a %s: %s", kind,
                                 version_of(api_version), r->kind,
                                 err ? err->message : "malformed protobuf");
        json_object_set_new(obj, "apiVersion", json_string(api_version));
        json_object_set_new(obj, "kind", json_string(kind));
        *ret_json = json_dump_compact(obj);
        return 0;
}

static const struct schema *schema_of(const struct api_resource *r, const char *kind)
{
        if (streq(kind, r->kind))
                return r->schema;
        return pb_schema_for_kind(kind);
}

void wire_response_to_protobuf(const struct api_resource *r, struct http_response *resp)
{
        cleanup_error struct error *err = NULL;
        cleanup_json json_t *obj = NULL;
        const struct schema *s;
        const char *kind;
        struct strbuf out;
        json_error_t jerr;

        if (resp->stream.read || resp->pending.poll || !resp->content_type ||
            !streq(resp->content_type, "application/json")) {
                http_response_json_materialize(resp);
                return;
        }
        obj = resp->object ? json_incref(resp->object)
                           : json_loadb(resp->body.buf, resp->body.len, 0, &jerr);
        resp->defer_json = false;
        kind = json_string_value(json_object_get(obj, "kind"));
        s = kind ? schema_of(r, kind) : NULL;
        if (!s) {
                cleanup_free char *msg =
                        xasprintf("no protobuf form for the response of kind \"%s\"", kind ?: "");
                status_respond(resp, EIO, msg, NULL);
                return;
        }
        strbuf_init(&out);
        if (pb_encode_object(s, obj, &out, &err) < 0) {
                cleanup_free char *msg =
                        xasprintf("encoding %s as protobuf: %s", kind, err->message);
                strbuf_release(&out);
                status_respond(resp, EIO, msg, NULL);
                return;
        }
        strbuf_release(&resp->body);
        resp->body = out;
        /* the JSON the body encodes stays, for those who read the answer (the audit log) */
        if (!resp->object)
                resp->object = json_incref(obj);
        resp->content_type = PB_CONTENT_TYPE;
}

int wire_watch_frame(const struct api_resource *r, const char *type, const json_t *obj,
                     struct strbuf *out, struct error **reterr)
{
        const char *kind = json_string_value(json_object_get(obj, "kind"));
        const struct schema *s = streq(type, "ERROR") ? pb_schema_for_kind("Status") : r->schema;
        cleanup_json json_t *typed = NULL;

        /* objects from the store may lack TypeMeta; the envelope needs it */
        if (!kind) {
                typed = json_deep_copy(obj);
                json_object_set_new(typed, "apiVersion", json_string(r->api_version));
                json_object_set_new(typed, "kind", json_string(r->kind));
                obj = typed;
        }
        return pb_encode_watch_event(type, s, obj, out, reterr);
}
