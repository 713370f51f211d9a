/* protobuf.h: the Kubernetes protobuf form of objects (application/vnd.kubernetes.protobuf),
 * driven by the same schema tables as JSON (api/schema.h: each field's pb number and Go kind).
 *
 * Objects stay jansson values. pb_encode writes the protobuf message of a JSON object shaped by
 * its schema; pb_decode reads one back into JSON as Go's JSON encoder would print the decoded Go
 * struct. The type mapping (K8S: k8s.io/api and k8s.io/apimachinery generated.proto, v0.33):
 * - SCHEMA_STRING: string, or bytes for a []byte (go_type SCHEMA_GO_BYTES, schema_bytes: base64
 *   in JSON, Go's StdEncoding; what Secret data and ConfigMap binaryData use); SCHEMA_INTEGER:
 * varint (int32 sign-extended to 10 bytes when negative, int64 as is; no zigzag); SCHEMA_NUMBER:
 * double (fixed64); SCHEMA_BOOLEAN: varint 0/1;
 * - SCHEMA_QUANTITY: resource.Quantity {string string = 1};
 * - SCHEMA_TIME: metav1.Time / MicroTime {int64 seconds = 1; int32 nanos = 2}; a zero time (no
 *   seconds, no nanos) is how Go writes an unset Time and decodes as absent; Time prints as
 *   RFC 3339 in whole seconds, MicroTime with exactly six fractional digits, both in UTC;
 * - SCHEMA_INT_OR_STRING: intstr.IntOrString {int64 type = 1 (0 int, 1 string); int32 intVal = 2;
 *   string strVal = 3};
 * - SCHEMA_OBJECT: a nested message; fields of an embedded Go struct (SCHEMA_GO_EMBED) go in
 *   their own nested message; SCHEMA_MAP: one repeated entry message {key = 1; value = 2} per
 *   key, keys sorted as Go writes them; SCHEMA_LIST: the field repeated once per element
 *   (proto2: primitives are not packed; packed ones are accepted on input, as Go does);
 * - SCHEMA_ANY: only managedFields[].fieldsV1, metav1.FieldsV1 {bytes Raw = 1} holding the
 *   JSON text.
 * Encoding writes every JSON field present with a non-zero pb (JSON null: absent), fields in
 * ascending number as Go's marshalers do; it does not write the zero-valued fields Go would
 * write for fields the JSON lacks (a Go decoder reads both the same). Decoding applies the Go
 * declaration of each field (api/schema.h): a SCHEMA_GO_VALUE scalar that is zero is left out,
 * a SCHEMA_GO_POINTER one is kept when on the wire, a SCHEMA_GO_ALWAYS scalar is present even
 * when absent from the wire; a nested message on the wire is kept even when empty (Go prints
 * `{}` for a struct). Unknown field numbers are skipped, as Go does. An empty JSON list or map
 * has no protobuf form (Go's nil and empty are the same on the wire) and decodes as absent.
 *
 * Decoding is for hostile input: every malformed message is -EBADMSG with a message, nothing
 * is read past the end (base/protowire.h), nesting is capped at SCHEMA_MAX_DEPTH, strings must
 * be UTF-8 without NUL (as JSON bodies must), quantities must parse, times must lie in years
 * 1..9999, numbers must be finite. The caller still runs schema_check and validation on the
 * decoded JSON, as for a JSON body. Memory: a decoded object costs at most a few dozen times
 * the bytes of its message, as a JSON body does; the caller caps the body size.
 *
 * The envelope of a whole object (K8S: apimachinery pkg/runtime/serializer/protobuf
 * Serializer): the 4 bytes "k8s\0", then runtime.Unknown {TypeMeta typeMeta = 1 {apiVersion =
 * 1; kind = 2}; bytes raw = 2 (the object's message); string contentEncoding = 3; string
 * contentType = 4}, both strings empty.
 *
 * Watch streams (K8S: apiserver pkg/endpoints/handlers/watch.go serveWatchHandler; apimachinery
 * pkg/runtime/serializer/codec_factory.go, protobuf.LengthDelimitedFramer and
 * NewRawSerializer; pkg/util/framer): the response is `application/vnd.kubernetes.protobuf;
 * stream=watch`, a sequence of frames, each a 4-byte big-endian length followed by that many
 * bytes of a metav1.WatchEvent message {string type = 1; runtime.RawExtension object = 2 {bytes
 * raw = 1}} written by the raw serializer, so WITHOUT the "k8s\0" envelope; the object inside
 * (raw) is written by the embedded encoder, the ordinary protobuf serializer, so it IS a whole
 * enveloped object ("k8s\0" + runtime.Unknown, as pb_encode_object writes). An ERROR event's
 * object is a meta/v1 Status, enveloped the same way.
 *
 * Ownership: inputs are borrowed; *ret and the strings returned are the caller's. Nothing here
 * keeps state between calls except schema_list_for_kind's table of list schemas (built once per
 * kind, never freed, safe from any thread). */
#ifndef FLEXLET_API_PROTOBUF_H
#define FLEXLET_API_PROTOBUF_H

#include <jansson.h>
#include <stddef.h>
#include "api/schema.h"
#include "base/error.h"
#include "base/strbuf.h"

/* "k8s\0": the 4-byte magic that starts every application/vnd.kubernetes.protobuf body. */
#define PB_K8S_MAGIC     "k8s\x00"
#define PB_K8S_MAGIC_LEN 4
/* The content type of a protobuf body, and of a protobuf watch stream. */
#define PB_CONTENT_TYPE       "application/vnd.kubernetes.protobuf"
#define PB_CONTENT_TYPE_WATCH "application/vnd.kubernetes.protobuf;stream=watch"
/* Bytes of a watch frame's length prefix (big-endian uint32). */
#define PB_WATCH_FRAME_PREFIX 4

/* Encodes obj (JSON shaped by s, an object schema) as the protobuf message of s, appended to
 * out (no envelope). -EINVAL with a message when a value does not have its schema's JSON type
 * or does not parse (a time, an int32 out of range); out is then truncated back to its length
 * on entry. */
int pb_encode(const struct schema *s, const json_t *obj, struct strbuf *out, struct error **reterr);
/* Decodes one message of shape s (an object schema) from buf[0..len); *ret is a new JSON
 * object as Go's JSON encoder would print the Go struct (see above). -EBADMSG with a message on
 * malformed input. */
int pb_decode(const struct schema *s, const void *buf, size_t len, json_t **ret,
              struct error **reterr);
/* The envelope: PB_K8S_MAGIC + runtime.Unknown{typeMeta{apiVersion=1,kind=2}=1, raw=2,
 * contentEncoding=3, contentType=4}, taking apiVersion and kind from obj (-EINVAL when either
 * is missing or not a string), appended to out. */
int pb_encode_object(const struct schema *s, const json_t *obj, struct strbuf *out,
                     struct error **reterr);
/* Parses an envelope: *api_version, *kind (malloc'd, set only on success), *raw and *raw_len (a
 * slice of buf). -EBADMSG without the magic (upstream's "provided data does not appear to be a
 * protobuf message, expected prefix [107 56 115 0]"), on a malformed Unknown, or when
 * contentEncoding is set or contentType is neither empty nor PB_CONTENT_TYPE. */
int pb_decode_envelope(const void *buf, size_t len, char **api_version, char **kind,
                       const void **raw, size_t *raw_len, struct error **reterr);
/* Decodes an enveloped object whose kind schema_for_kind knows, a "<Kind>List" of one of those
 * (schema_list_for_kind) or a "Status"; *ret gets apiVersion and kind from the envelope.
 * -EBADMSG as pb_decode_envelope and pb_decode; -ENOENT (with upstream's wording "no kind
 * \"X\" is registered for version \"V\"") for any other kind. */
int pb_decode_object(const void *buf, size_t len, json_t **ret, struct error **reterr);
/* The schema pb_decode_object uses for a kind ("Pod", "PodList", "Status"); NULL when none. */
const struct schema *pb_schema_for_kind(const char *kind);
/* Appends one whole watch frame to out: the 4-byte big-endian length, then metav1.WatchEvent
 * {type = 1: type ("ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"); object = 2:
 * RawExtension{raw = 1: pb_encode_object(obj_schema, obj)}}. Errors as pb_encode_object; out is
 * then truncated back to its length on entry. */
int pb_encode_watch_event(const char *type, const struct schema *obj_schema, const json_t *obj,
                          struct strbuf *out, struct error **reterr);

#endif
