/* pod-fixtures.h: what test-validation-pod.c and test-validation-resize.c share to build pods
 * and check results: JSON written with single quotes, path edits ("spec.containers[0].image"),
 * tables of edits, and assertions on field errors and JSON that print both sides on a mismatch.
 * Include after <cmocka.h>: the helpers fail the running test. */
#ifndef FLEXLET_TESTS_UNIT_API_POD_FIXTURES_H
#define FLEXLET_TESTS_UNIT_API_POD_FIXTURES_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "api/field-error.h"
#include "base/alloc.h"
#include "base/json.h"

/* Parses test JSON written with single quotes. */
static inline json_t *jparse(const char *s)
{
        char *dup = xstrdup(s);
        json_error_t e;
        json_t *v;

        for (char *p = dup; *p; p++)
                if (*p == '\'')
                        *p = '"';
        v = json_loads(dup, JSON_DECODE_ANY, &e);
        if (!v)
                fail_msg("bad test json: %s: %s", e.text, dup);
        free(dup);
        return v;
}

/* Sets (or, with value NULL, deletes) the member at a path like "spec.containers[0].image". */
static inline void jset(json_t *root, const char *path, const char *value)
{
        char *dup = xstrdup(path);
        json_t *cur = root;
        char *seg = dup;

        for (;;) {
                char *dot = strchr(seg, '.');
                char *br = strchr(seg, '[');
                bool last;
                if (dot)
                        *dot = '\0';
                last = !dot;
                if (br && (!dot || br < dot)) {
                        size_t idx = strtoul(br + 1, NULL, 10);
                        json_t *arr;
                        *br = '\0';
                        arr = json_object_get(cur, seg);
                        if (!json_is_array(arr)) {
                                arr = json_array();
                                json_object_set_new(cur, seg, arr);
                        }
                        if (last) {
                                if (!value)
                                        json_array_remove(arr, idx);
                                else if (idx >= json_array_size(arr))
                                        json_array_append_new(arr, jparse(value));
                                else
                                        json_array_set_new(arr, idx, jparse(value));
                                break;
                        }
                        if (idx >= json_array_size(arr))
                                json_array_append_new(arr, json_object());
                        cur = json_array_get(arr, idx);
                } else if (last) {
                        if (value)
                                json_object_set_new(cur, seg, jparse(value));
                        else
                                json_object_del(cur, seg);
                        break;
                } else {
                        cur = json_object_ensure(cur, seg);
                }
                seg = dot + 1;
        }
        free(dup);
}

struct edit {
        const char *path;
        const char *value; /* JSON with single quotes, or NULL to delete */
};

/* Applies edits up to the first one without a path; edits may be NULL. */
static inline void apply(json_t *root, const struct edit *edits)
{
        for (size_t i = 0; edits && edits[i].path; i++)
                jset(root, edits[i].path, edits[i].value);
}

/* Compares the rendered errors with a NULL-terminated list, printing both on mismatch. */
static inline void assert_errors(const char *name, const struct field_error_list *l,
                                 const char *const *want)
{
        size_t n = 0;
        bool ok;

        while (want[n])
                n++;
        ok = n == l->n;
        for (size_t i = 0; ok && i < n; i++) {
                char *got = field_error_string(&l->items[i]);
                ok = strcmp(got, want[i]) == 0;
                free(got);
        }
        if (!ok) {
                print_message("case %s\n", name);
                for (size_t i = 0; i < l->n; i++) {
                        char *got = field_error_string(&l->items[i]);
                        print_message("got[%zu]:  %s\n", i, got);
                        free(got);
                }
                for (size_t i = 0; i < n; i++)
                        print_message("want[%zu]: %s\n", i, want[i]);
                fail();
        }
}

/* Fails unless got equals want (any JSON value), printing both, after the case name when one
 * is given. */
static inline void assert_json_equal(const char *name, const json_t *got, const json_t *want)
{
        if (!json_equal((json_t *) got, (json_t *) want)) {
                char *g = json_dumps(got, JSON_SORT_KEYS | JSON_COMPACT | JSON_ENCODE_ANY);
                char *w = json_dumps(want, JSON_SORT_KEYS | JSON_COMPACT | JSON_ENCODE_ANY);

                if (name)
                        print_message("case %s\n", name);
                print_message("got:  %s\nwant: %s\n", g, w);
                free(g);
                free(w);
                fail();
        }
}

/* assert_json_equal against JSON written with single quotes. */
static inline void assert_json(const char *name, const json_t *got, const char *want_text)
{
        json_t *want = jparse(want_text);

        assert_json_equal(name, got, want);
        json_decref(want);
}

#endif
