/* wire.h: the protobuf side of resource requests, between the HTTP request/response and the
 * JSON the registry works on (the codec itself is api/protobuf.h).
 *
 * A protobuf create or update body is decoded once, at the front, into the JSON the JSON path
 * reads, so validation, admission, dryRun and field managers are one code path; a response is
 * written as JSON by the registry and re-encoded here when the client negotiated protobuf. */
#ifndef FLEXLET_APISERVER_WIRE_H
#define FLEXLET_APISERVER_WIRE_H

#include <jansson.h>

#include "apiserver/resources.h"
#include "base/error.h"
#include "base/strbuf.h"
#include "http/http.h"

/* Decodes body (application/vnd.kubernetes.protobuf: "k8s\0" + runtime.Unknown) sent to resource
 * r into JSON text (*ret_json, to free). An empty kind or apiVersion in the envelope is r's
 * (upstream's copyKindDefaults). An envelope naming another kind or version gives just
 * {"apiVersion", "kind"}, so the JSON path refuses it with its own message. Fails with -EINVAL
 * and kube-apiserver's message (transformDecodeError): "the object provided is unrecognized
 * (must be of type Pod): <cause> (<hex of the first 30 bytes> ...)" for a broken envelope,
 * `Pod in version "v1" cannot be handled as a Pod: <cause>` for a broken object. */
int wire_body_to_json(const struct api_resource *r, const char *body, size_t len, char **ret_json,
                      struct error **reterr);

/* Re-encodes resp, a complete JSON response (an object of r's kind, its list kind, or a Status)
 * in protobuf with its Content-Type; resp->object keeps the JSON value the body encodes. Anything
 * else (a Table, text, a stream) is left alone. A body that cannot be encoded becomes a JSON 500
 * Status naming why. */
void wire_response_to_protobuf(const struct api_resource *r, struct http_response *resp);

/* Appends one protobuf watch frame (4-byte big-endian length, then the "k8s\0" envelope around
 * a metav1.WatchEvent whose object is obj encoded as r's kind, or a Status for "ERROR"). */
int wire_watch_frame(const struct api_resource *r, const char *type, const json_t *obj,
                     struct strbuf *out, struct error **reterr);

#endif
