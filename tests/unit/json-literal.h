/* json-literal.h: JSON literals for the cmocka unit tests, written with single quotes so they
 * read in C strings: J("{'a': 1}"). Include after <cmocka.h> (a bad literal fails the test). */
#ifndef FLEXLET_TESTS_UNIT_JSON_LITERAL_H
#define FLEXLET_TESTS_UNIT_JSON_LITERAL_H

#include <jansson.h>
#include <stdlib.h>

#include "base/alloc.h"

static inline json_t *J(const char *text)
{
        char *s = xstrdup(text);
        json_error_t err;
        json_t *v;

        for (char *p = s; *p; p++) {
                if (*p == '\'')
                        *p = '"';
        }
        v = json_loads(s, 0, &err);
        if (!v)
                fail_msg("bad test JSON: %s: %s", err.text, s);
        free(s);
        return v;
}

#endif
