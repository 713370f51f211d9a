/* negotiate.h: which media type a resource request is answered in, and which request bodies
 * are read, as kube-apiserver negotiates them (k8s.io/apiserver pkg/endpoints/handlers/
 * negotiation: NegotiateOutputMediaType, NegotiateOutputStreamSerializer,
 * NegotiateInputSerializerForMediaType).
 *
 * The server's media types, in upstream's order (the codec factory's: JSON, YAML, protobuf; CBOR
 * is behind a feature gate upstream and not served here): application/json, application/yaml,
 * application/vnd.kubernetes.protobuf. Watches stream JSON or protobuf (YAML has no stream
 * serializer upstream). Pure functions over the header strings; nothing allocates. */
#ifndef FLEXLET_APISERVER_NEGOTIATE_H
#define FLEXLET_APISERVER_NEGOTIATE_H

#include <stdbool.h>
#include <stddef.h>

#define MEDIA_JSON     "application/json"
#define MEDIA_YAML     "application/yaml"
#define MEDIA_PROTOBUF "application/vnd.kubernetes.protobuf"

enum api_media {
        API_MEDIA_JSON,
        API_MEDIA_YAML,
        API_MEDIA_PROTOBUF,
        API_MEDIA_MAX,
};

/* What the response is encoded as. */
struct api_output {
        enum api_media media;
        bool table; /* as=Table;g=meta.k8s.io;v=v1 (or v1beta1): a metav1.Table (JSON or YAML) */
};

/* K8S: NegotiateMediaTypeOptions over the Accept header (may be NULL). An empty or missing
 * header is JSON. Otherwise the clauses are taken by q-value (highest first; among equal q a
 * concrete type before a wildcard one, else in the order written), and each clause against the
 * server's types in order (exact, type/ *, or * / *); the first pair whose parameters the
 * endpoint allows wins:
 * - as/g/v: only a Table of meta.k8s.io v1 or v1beta1, and only for JSON and YAML (a
 *   PartialObjectMetadata conversion is not served here, so such clauses are passed over);
 * - stream: only "watch", and only for a type with a stream serializer, on a watch request;
 * - sv: only "v1"; other parameters are ignored.
 * Returns -ENOMSG (406 NotAcceptable, negotiate_not_acceptable_message) when no clause is
 * acceptable, or, on a watch, when the chosen type cannot stream (YAML). */
int negotiate_output(const char *accept, bool watch, struct api_output *ret);

/* The first of types[0..n) ("type/subtype" strings) the Accept header takes, in goautoneg's
 * clause order, parameters ignored (kube-openapi's handlers negotiate so): *ret_index, or
 * -ENOMSG when none. */
int negotiate_accept_pick(const char *accept, const char *const *types, size_t n,
                          size_t *ret_index);

/* K8S: "only the following media types are accepted: ..." listing the server's types, for a
 * watch the stream types ("application/json;stream=watch, ..."). Static storage. */
const char *negotiate_not_acceptable_message(bool watch);

/* K8S: NegotiateInputSerializerForMediaType for a create or update body: the media type of
 * Content-Type (parameters dropped, case-insensitive as mime.ParseMediaType lower-cases it).
 * A missing Content-Type counts as application/octet-stream (Go's handler), so it is -ENOENT
 * like any unknown type; *ret is set on success. */
int negotiate_input(const char *content_type, enum api_media *ret);

/* K8S: "the body of the request was in an unknown format - accepted media types include: ..."
 * (415 UnsupportedMediaType). Static storage. */
const char *negotiate_unsupported_message(void);

/* The Content-Type of a response in media (no parameters); for a watch stream with
 * ";stream=watch". */
const char *negotiate_content_type(enum api_media media, bool watch);

#endif
