/* field-error.h: a list of field errors as apimachinery's field.ErrorList, the cause list of a
 * 422 Invalid. Each error renders as "<field>: <Type>: <detail>" (the Status message) and as a
 * cause {reason, field, message} where message omits the field, as kubectl expects. */
#ifndef FLEXLET_API_FIELD_ERROR_H
#define FLEXLET_API_FIELD_ERROR_H

#include <stddef.h>
#include "base/macro.h"

enum field_error_type {
        FIELD_ERROR_NOT_FOUND,     /* "Not found" / FieldValueNotFound */
        FIELD_ERROR_REQUIRED,      /* "Required value" / FieldValueRequired */
        FIELD_ERROR_DUPLICATE,     /* "Duplicate value" / FieldValueDuplicate */
        FIELD_ERROR_INVALID,       /* "Invalid value" / FieldValueInvalid */
        FIELD_ERROR_NOT_SUPPORTED, /* "Unsupported value" / FieldValueNotSupported */
        FIELD_ERROR_FORBIDDEN,     /* "Forbidden" / FieldValueForbidden */
        FIELD_ERROR_TOO_LONG,      /* "Too long" / FieldValueTooLong */
        FIELD_ERROR_TOO_MANY,      /* "Too many" / FieldValueTooMany */
        FIELD_ERROR_INTERNAL,      /* "Internal error" / InternalError */
        FIELD_ERROR_TYPE_INVALID,  /* "Invalid value" / FieldValueTypeInvalid */
        FIELD_ERROR_TYPE_MAX,
};

struct field_error {
        enum field_error_type type;
        char *field;     /* "spec.containers[0].resources.limits" */
        char *bad_value; /* rendered as upstream prints it ("\"abc\"", "5"), or NULL */
        char *detail;    /* may be empty */
};

struct field_error_list {
        struct field_error *items;
        size_t n;
        size_t alloc;
};

void field_error_list_init(struct field_error_list *l);
void field_error_list_release(struct field_error_list *l);
/* Appends an error; bad_value is copied (NULL for none), detail is printf-formatted. */
void field_error_add(struct field_error_list *l, enum field_error_type type, const char *field,
                     const char *bad_value, const char *detail_fmt, ...) _printf_(5, 6);
/* Renders a string value as upstream's bad value ("\"x\""); caller frees. */
char *field_value_quote(const char *s);
/* "Forbidden: detail" / "Invalid value: \"x\": detail": the cause message; caller frees. */
char *field_error_body(const struct field_error *e);
/* "field: body"; caller frees. */
char *field_error_string(const struct field_error *e);
/* "FieldValueForbidden" etc. */
const char *field_error_type_reason(enum field_error_type t);
/* The aggregate as upstream prints it: one error "x: ..." or several "[x: ..., y: ...]". */
char *field_error_list_string(const struct field_error_list *l);

#endif
