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
        SCHEMA_ANY,           /* free-form JSON: maps merge, lists replace */
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

struct schema {
        enum schema_kind kind;
        const char *go_type;                /* "PodSpec": for decode error messages and OpenAPI */
        const struct schema_field *fields;  /* SCHEMA_OBJECT: terminated by { NULL } */
        const struct schema *items;         /* SCHEMA_LIST element / SCHEMA_MAP value */
        enum schema_list_type list_type;    /* SCHEMA_LIST */
        const char *merge_key;              /* SCHEMA_LIST_MAP */
        bool retain_keys;                   /* patchStrategy includes retainKeys */
};

struct schema_field {
        const char *name;
        const struct schema *schema;
};

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
int field_validation_from_string(const char *s, enum field_validation *ret);

/* Checks v against s in place, as kube-apiserver's decoder does:
 * - a value of the wrong JSON type fails with -EINVAL and upstream's decode message
 *   ("json: cannot unmarshal number into Go struct field PodSpec.spec.containers.name of type
 *   string");
 * - an invalid quantity fails with -EINVAL and QUANTITY_REGEXP_MESSAGE;
 * - numeric quantities are rewritten as canonical strings (upstream's stored form);
 * - unknown fields are removed from v and each is appended to unknown as
 *   `unknown field "spec.foo"` followed by '\n'. The caller decides (by field validation mode)
 *   whether that is an error or a warning.
 * `path` is the JSON path prefix of v ("" for the root). */
int schema_check(const struct schema *s, json_t *v, const char *path, struct strbuf *unknown,
                 struct error **reterr);

#endif
