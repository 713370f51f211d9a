/* schema.h: the declarative shape of every kind.
 *
 * One `struct schema` tree per kind (api/schema-*.c) is the single description that decoding
 * and strict field checks (schema_check), strategic merge patch (api/patch.h), server-side apply,
 * the OpenAPI documents and the Table printers read. Objects themselves stay jansson values.
 * Schemas are static const data; nothing here allocates except schema_check's outputs. */
#ifndef FLEXLET_API_SCHEMA_H
#define FLEXLET_API_SCHEMA_H

#include <jansson.h>
#include <stdbool.h>
#include "base/error.h"
#include "base/strbuf.h"

enum schema_kind {
        SCHEMA_ANY, /* free-form JSON: maps merge, lists replace */
        SCHEMA_STRING,
        SCHEMA_INTEGER,
        SCHEMA_NUMBER,
        SCHEMA_BOOLEAN,
        SCHEMA_QUANTITY,      /* resource.Quantity: string or number on input, string stored */
        SCHEMA_INT_OR_STRING, /* intstr.IntOrString */
        SCHEMA_TIME,          /* metav1.Time, RFC 3339 string */
        SCHEMA_OBJECT,        /* a struct: known fields only */
        SCHEMA_MAP,           /* map[string]<items> */
        SCHEMA_LIST,          /* []<items> */
        SCHEMA_KIND_MAX,
};

/* K8S: patchStrategy / x-kubernetes-list-type. */
enum schema_list_type {
        SCHEMA_LIST_ATOMIC, /* replaced whole by patches */
        SCHEMA_LIST_MAP,    /* patchStrategy=merge with patchMergeKey=merge_key */
        SCHEMA_LIST_SET,    /* patchStrategy=merge on a primitive list: union */
};

struct schema_field;

/* go_type names the Go type for decode error messages and OpenAPI:
 * - SCHEMA_OBJECT: the bare struct name ("PodSpec"); messages print it as "v1.PodSpec" (core/v1
 *   and meta/v1 are both package v1);
 * - SCHEMA_TIME: NULL for metav1.Time, SCHEMA_GO_MICRO_TIME for metav1.MicroTime (RFC 3339 with
 *   exactly six fractional digits);
 * - any other kind: the full type as Go prints it ("v1.RestartPolicy", "types.UID", "int32",
 *   "v1.ResourceList"), or NULL for the default of the kind (string, int64, float64, bool,
 *   resource.Quantity, intstr.IntOrString, map[string]<items>, []<items>, interface {}). An
 *   integer whose go_type is "int32" is range-checked as int32. */
struct schema {
        enum schema_kind kind;
        const char *go_type;
        const struct schema_field *fields; /* SCHEMA_OBJECT: ends with name NULL */
        const struct schema *items;        /* SCHEMA_LIST element / SCHEMA_MAP value */
        enum schema_list_type list_type;   /* SCHEMA_LIST */
        const char *merge_key;             /* SCHEMA_LIST_MAP */
        bool retain_keys;                  /* patchStrategy includes retainKeys */
        /* SCHEMA_LIST: in protobuf a message whose field 1 repeats the items, as k8s.io/api's
         * ExtraValue ({repeated string items = 1}), which a map's value may then be */
        bool pb_wrapped;
};

/* How a Go field of this name is declared, which decides how its zero value travels on the
 * protobuf wire (the JSON form is what the object is stored as):
 * - SCHEMA_GO_VALUE: a value field with `omitempty` (most fields): the Go encoder always writes
 *   it, so a zero value read from the wire is left out of the JSON, as Go's JSON encoder does;
 * - SCHEMA_GO_POINTER: a pointer (`*int64`, `*bool`, `*Quantity`, `*PodSecurityContext`): on the
 *   wire exactly when set, and then kept in the JSON even when zero (`runAsUser: 0`);
 * - SCHEMA_GO_ALWAYS: a value field without `omitempty` (`ready`, `restartCount`): present in
 *   the JSON, zero when absent from the wire. */
enum schema_go_field {
        SCHEMA_GO_VALUE,
        SCHEMA_GO_POINTER,
        SCHEMA_GO_ALWAYS,
};

/* pb is the field's number in upstream's generated.proto (k8s.io/api, k8s.io/apimachinery);
 * 0 for a field that has no protobuf form: the TypeMeta fields kind and apiVersion (the
 * protobuf envelope carries them, runtime.Unknown's typeMeta) and flexlet's fields that no
 * upstream release has numbered yet (KEP-6030's emptyDir volume status), which the protobuf form
 * leaves out.
 *
 * `go | SCHEMA_GO_EMBED(n)` marks a field of an embedded Go struct that JSON flattens but
 * protobuf nests (`VolumeSource json:",inline" protobuf:"bytes,2,opt,name=volumeSource"`): the
 * field is number pb inside the embedded message, which is field n of this struct. Embedded
 * structs: Volume.volumeSource (2), PersistentVolumeSpec.persistentVolumeSource (1),
 * Probe.handler (1), EphemeralContainer.ephemeralContainerCommon (1) and every
 * LocalObjectReference (1) of the ConfigMap/Secret selectors, sources and projections.
 *
 * The numbers and Go kinds come from the struct tags in k8s.io/api v0.33.9 (core/v1, storage/v1
 * types.go) and k8s.io/apimachinery v0.33.9 (pkg/apis/meta/v1 types.go); fields flexlet serves
 * that are newer than 1.33 (podCertificate projections, fileKeyRef, restartPolicyRules,
 * hostnameOverride, the user/defaultUser and mode volume fields, ListMeta.shardInfo, …) take
 * theirs from k8s.io/api and k8s.io/apimachinery master as of 2026-07-24, where they first
 * appear. Field numbers never change once released, so the two agree. */
struct schema_field {
        const char *name;
        const struct schema *schema;
        unsigned short pb;
        unsigned char go; /* enum schema_go_field, | SCHEMA_GO_EMBED(n) */
};

/* Bits 2..7 of schema_field.go: the number (1..63) of the embedded message holding the field. */
#define SCHEMA_GO_EMBED(n) ((n) << 2)
/* The enum schema_go_field part of f->go, and the embedded message's number (0: none). */
#define SCHEMA_FIELD_GO(f)    ((enum schema_go_field)((f)->go & 3))
#define SCHEMA_FIELD_EMBED(f) ((unsigned) ((f)->go >> 2))

/* go_type of a []byte (SCHEMA_STRING; Go's own name for it in decode messages): JSON holds it as
 * base64 (Go's StdEncoding), checked by schema_check with Go's "illegal base64 data at input
 * byte N"; the protobuf form is the raw bytes. schema_bytes is the leaf. */
#define SCHEMA_GO_BYTES "[]uint8"
/* go_type of a metav1.MicroTime (SCHEMA_TIME). */
#define SCHEMA_GO_MICRO_TIME "v1.MicroTime"
/* Deepest nesting schema_check walks; deeper values fail with -EINVAL. */
#define SCHEMA_MAX_DEPTH 64
/* K8S: sigs.k8s.io/json keeps at most 100 strict errors; schema_check lists as many. */
#define SCHEMA_MAX_UNKNOWN 100

/* Field of an object schema, or NULL when s is not an object or has no such field. */
const struct schema *schema_field(const struct schema *s, const char *name);
/* Element schema of a list or value schema of a map, or NULL. */
const struct schema *schema_items(const struct schema *s);

enum field_validation {
        FIELD_VALIDATION_STRICT, /* unknown or duplicate fields are a 400 */
        FIELD_VALIDATION_WARN,   /* unknown fields dropped, reported as warnings */
        FIELD_VALIDATION_IGNORE, /* unknown fields dropped silently */
        FIELD_VALIDATION_MAX,
};
/* K8S: the fieldValidation query parameter: "Strict", "Warn" or "Ignore" (case-sensitive); NULL
 * or "" is the server default, Warn. Anything else is -EINVAL. */
int field_validation_from_string(const char *s, enum field_validation *ret);
/* "Strict", "Warn", "Ignore"; NULL when out of range. */
const char *field_validation_to_string(enum field_validation v);

/* Checks v against s in place, as kube-apiserver's decoder (sigs.k8s.io/json) does:
 * - a value of the wrong JSON type fails with -EINVAL and upstream's decode message
 *   ("json: cannot unmarshal number into Go struct field Container.spec.containers.name of type
 *   string": innermost struct, then the path of JSON field names without list indices or map
 *   keys);
 * - an invalid quantity fails with -EINVAL and QUANTITY_REGEXP_MESSAGE (or the other
 *   resource.Quantity parse messages); an invalid time with Go's time.Parse message;
 * - quantities (strings or JSON numbers) are rewritten as upstream's stored String() form, times
 *   as UTC RFC 3339 (upstream re-encodes both);
 * - null object fields are removed; null list elements and map values become the item's zero
 *   value, as Go's decoder leaves them;
 * - unknown fields are removed from v and each is appended to unknown as
 *   `unknown field "spec.containers[0].foo"` followed by '\n' (at most SCHEMA_MAX_UNKNOWN). The
 *   caller decides (by field validation mode) whether that is an error or a warning.
 * Like Go's decoder, a quantity, time or IntOrString error stops the walk at once, while a plain
 * type error is remembered (the first one wins) and the walk goes on. On failure v may be
 * partly rewritten and unknown partly filled. A number at the root itself cannot be rewritten.
 * `path` is the JSON path prefix of v ("" or NULL for the root); unknown may be NULL (unknown
 * fields are still removed). Duplicate keys are the parser's business: jansson keeps the last. */
int schema_check(const struct schema *s, json_t *v, const char *path, struct strbuf *unknown,
                 struct error **reterr);

#endif
