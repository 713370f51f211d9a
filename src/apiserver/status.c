/* status.c: the errno → HTTP code / Status.reason table and the Status builders. */
#include <errno.h>

#include "base/alloc.h"
#include "base/json.h"
#include "apiserver/status.h"

static const struct {
        int errnum;
        unsigned code;
        const char *reason;
} codes[] = {
        { ENOENT, 404, "NotFound" },
        { EEXIST, 409, "AlreadyExists" },
        { ESTALE, 409, "Conflict" },
        { EINVAL, 400, "BadRequest" },
        { EPERM, 403, "Forbidden" },
        { EKEYREJECTED, 401, "Unauthorized" },
        { E2BIG, 413, "RequestEntityTooLarge" },
        { EPROTONOSUPPORT, 415, "UnsupportedMediaType" },
        { EOPNOTSUPP, 405, "MethodNotAllowed" },
        { ENOMSG, 406, "NotAcceptable" },
        { ERANGE, 410, "Expired" },
        { EBADMSG, 422, "Invalid" },
        { ETIMEDOUT, 504, "Timeout" },
        { EAGAIN, 429, "TooManyRequests" },
};

static int find(int errnum)
{
        if (errnum < 0)
                errnum = -errnum;
        for (size_t i = 0; i < ARRAY_SIZE(codes); i++)
                if (codes[i].errnum == errnum)
                        return (int) i;
        return -1;
}

unsigned status_code(int errnum)
{
        int i = find(errnum);
        return i < 0 ? 500 : codes[i].code;
}

json_t *status_build(int errnum, const char *message, json_t *details)
{
        int i = find(errnum);
        json_t *st = json_pack("{s:s, s:s, s:{}, s:s, s:s, s:s, s:i}", "kind", "Status",
                               "apiVersion", "v1", "metadata", "status", "Failure", "message",
                               message, "reason", i < 0 ? "InternalError" : codes[i].reason, "code",
                               (int) status_code(errnum));
        if (details)
                json_object_set_new(st, "details", details);
        return st;
}

void status_respond(struct http_response *resp, int errnum, const char *message, json_t *details)
{
        json_t *st = status_build(errnum, message, details);

        http_response_json(resp, status_code(errnum), st);
        json_decref(st);
}

static json_t *details_for(const struct api_resource *r, const char *name)
{
        json_t *d = json_pack("{s:s, s:s}", "name", name ? name : "", "kind", r->plural);

        if (r->group[0])
                json_object_set_new(d, "group", json_string(r->group));
        return d;
}

void status_not_found(struct http_response *resp, const struct api_resource *r, const char *name)
{
        cleanup_free char *msg = xasprintf("%s \"%s\" not found", r->plural, name);

        status_respond(resp, ENOENT, msg, details_for(r, name));
}

void status_already_exists(struct http_response *resp, const struct api_resource *r,
                           const char *name)
{
        cleanup_free char *msg = xasprintf("%s \"%s\" already exists", r->plural, name);

        status_respond(resp, EEXIST, msg, details_for(r, name));
}

void status_conflict(struct http_response *resp, const struct api_resource *r, const char *name,
                     const char *why)
{
        cleanup_free char *msg =
                xasprintf("Operation cannot be fulfilled on %s \"%s\": %s", r->plural, name, why);

        status_respond(resp, ESTALE, msg, details_for(r, name));
}

void status_forbidden(struct http_response *resp, const struct api_resource *r, const char *name,
                      const char *why)
{
        /* K8S: NewForbidden names the resource qualified by its group (GroupResource.String()) */
        cleanup_free char *msg = xasprintf("%s%s%s \"%s\" is forbidden: %s", r->plural,
                                           r->group[0] ? "." : "", r->group, name, why);

        status_respond(resp, EPERM, msg, details_for(r, name));
}

void status_invalid(struct http_response *resp, const struct api_resource *r, const char *name,
                    const struct field_error_list *errs)
{
        cleanup_free char *agg = field_error_list_string(errs);
        /* K8S: NewInvalid names the kind qualified by its group (GroupKind.String()) */
        cleanup_free char *msg = xasprintf("%s%s%s \"%s\" is invalid: %s", r->kind,
                                           r->group[0] ? "." : "", r->group, name, agg);
        json_t *causes = json_array();
        json_t *details;

        for (size_t i = 0; i < errs->n; i++) {
                cleanup_free char *body = field_error_body(&errs->items[i]);
                json_array_append_new(causes,
                                      json_pack("{s:s, s:s, s:s}", "reason",
                                                field_error_type_reason(errs->items[i].type),
                                                "message", body, "field", errs->items[i].field));
        }
        details = json_pack("{s:s, s:s, s:o}", "name", name, "kind", r->kind, "causes", causes);
        if (r->group[0])
                json_object_set_new(details, "group", json_string(r->group));
        status_respond(resp, EBADMSG, msg, details);
}
