/* field-error.c: building and rendering field error lists (apimachinery field.Error rules). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/field-error.h"
#include "base/alloc.h"
#include "base/strbuf.h"

static const struct {
        const char *text;
        const char *reason;
        int shows_value; /* K8S: Required, Forbidden, TooLong, Internal never print the value */
} types[FIELD_ERROR_TYPE_MAX] = {
        [FIELD_ERROR_NOT_FOUND] = { "Not found", "FieldValueNotFound", 1 },
        [FIELD_ERROR_REQUIRED] = { "Required value", "FieldValueRequired", 0 },
        [FIELD_ERROR_DUPLICATE] = { "Duplicate value", "FieldValueDuplicate", 1 },
        [FIELD_ERROR_INVALID] = { "Invalid value", "FieldValueInvalid", 1 },
        [FIELD_ERROR_NOT_SUPPORTED] = { "Unsupported value", "FieldValueNotSupported", 1 },
        [FIELD_ERROR_FORBIDDEN] = { "Forbidden", "FieldValueForbidden", 0 },
        [FIELD_ERROR_TOO_LONG] = { "Too long", "FieldValueTooLong", 0 },
        [FIELD_ERROR_TOO_MANY] = { "Too many", "FieldValueTooMany", 1 },
        [FIELD_ERROR_INTERNAL] = { "Internal error", "InternalError", 0 },
        [FIELD_ERROR_TYPE_INVALID] = { "Invalid value", "FieldValueTypeInvalid", 1 },
};

void field_error_list_init(struct field_error_list *l)
{
        l->items = NULL;
        l->n = l->alloc = 0;
}

void field_error_list_release(struct field_error_list *l)
{
        for (size_t i = 0; i < l->n; i++) {
                free(l->items[i].field);
                free(l->items[i].bad_value);
                free(l->items[i].detail);
        }
        free(l->items);
        field_error_list_init(l);
}

void field_error_add(struct field_error_list *l, enum field_error_type type, const char *field,
                     const char *bad_value, const char *detail_fmt, ...)
{
        struct field_error *e;
        va_list ap;

        if (l->n == l->alloc) {
                l->alloc = l->alloc ? l->alloc * 2 : 4;
                l->items = xrealloc(l->items, l->alloc * sizeof(*l->items));
        }
        e = &l->items[l->n++];
        e->type = type;
        e->field = xstrdup(field);
        e->bad_value = bad_value ? xstrdup(bad_value) : NULL;
        va_start(ap, detail_fmt);
        if (vasprintf(&e->detail, detail_fmt, ap) < 0)
                abort();
        va_end(ap);
}

char *field_value_quote(const char *s)
{
        struct strbuf sb;

        strbuf_init(&sb);
        strbuf_addch(&sb, '"');
        for (; *s; s++) {
                if (*s == '"' || *s == '\\')
                        strbuf_addch(&sb, '\\');
                strbuf_addch(&sb, *s);
        }
        strbuf_addch(&sb, '"');
        return strbuf_detach(&sb);
}

char *field_error_body(const struct field_error *e)
{
        struct strbuf sb;

        strbuf_init(&sb);
        strbuf_addstr(&sb, types[e->type].text);
        if (types[e->type].shows_value && e->bad_value)
                strbuf_addf(&sb, ": %s", e->bad_value);
        if (e->detail[0])
                strbuf_addf(&sb, ": %s", e->detail);
        return strbuf_detach(&sb);
}

char *field_error_string(const struct field_error *e)
{
        cleanup_free char *body = field_error_body(e);

        if (!e->field[0])
                return TAKE_PTR(body);
        return xasprintf("%s: %s", e->field, body);
}

const char *field_error_type_reason(enum field_error_type t)
{
        return types[t].reason;
}

/* K8S: utilerrors.NewAggregate: duplicates dropped, one error bare, several in brackets. */
char *field_error_list_string(const struct field_error_list *l)
{
        struct strbuf sb;
        char **seen = xcalloc(l->n ? l->n : 1, sizeof(char *));
        size_t nseen = 0;

        for (size_t i = 0; i < l->n; i++) {
                char *s = field_error_string(&l->items[i]);
                int dup = 0;
                for (size_t j = 0; j < nseen; j++)
                        dup |= streq(seen[j], s);
                if (dup)
                        free(s);
                else
                        seen[nseen++] = s;
        }
        strbuf_init(&sb);
        if (nseen > 1)
                strbuf_addch(&sb, '[');
        for (size_t i = 0; i < nseen; i++) {
                if (i)
                        strbuf_addstr(&sb, ", ");
                strbuf_addstr(&sb, seen[i]);
                free(seen[i]);
        }
        if (nseen > 1)
                strbuf_addch(&sb, ']');
        free(seen);
        return strbuf_detach(&sb);
}
