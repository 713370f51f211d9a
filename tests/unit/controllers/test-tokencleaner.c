/* test-tokencleaner.c: the token cleaner's decision: which bootstrap token Secrets have expired
 * (or carry an expiration that does not parse), and when the next one does. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "base/base64.h"
#include "base/json.h"
#include "controllers/tokencleaner.h"

/* A Secret in ns of type with data expiration exp (NULL: none). */
static json_t *secret(const char *ns, const char *name, const char *type, const char *exp)
{
        json_t *s = json_pack("{s:s, s:{s:s, s:s, s:s}, s:{}}", "type", type, "metadata", "name",
                              name, "namespace", ns, "uid", name, "data");
        if (exp) {
                char *b64 = base64_encode(exp, strlen(exp));
                json_object_set_new(json_object_get(s, "data"), "expiration", json_string(b64));
                free(b64);
        }
        return s;
}

static void test_expired(void **state)
{
        const char *t = "bootstrap.kubernetes.io/token";
        const time_t now = 1767225600; /* 2026-01-01T00:00:00Z */
        cleanup_json json_t *secrets = json_object();
        long next = -1;

        json_object_set_new(secrets, "kube-system/a",
                            secret("kube-system", "a", t, "2025-12-31T23:59:59Z"));
        json_object_set_new(secrets, "kube-system/b",
                            secret("kube-system", "b", t, "2026-01-01T00:00:00Z"));
        json_object_set_new(secrets, "kube-system/c",
                            secret("kube-system", "c", t, "2026-01-01T00:01:00Z"));
        json_object_set_new(secrets, "kube-system/d", secret("kube-system", "d", t, NULL));
        json_object_set_new(secrets, "kube-system/e", secret("kube-system", "e", t, "soon"));
        json_object_set_new(secrets, "kube-system/f",
                            secret("kube-system", "f", "Opaque", "2020-01-01T00:00:00Z"));
        json_object_set_new(secrets, "other/g", secret("other", "g", t, "2020-01-01T00:00:00Z"));
        json_t *h = secret("kube-system", "h", t, "2020-01-01T00:00:00Z");
        json_object_set_new(json_object_get(h, "metadata"), "deletionTimestamp",
                            json_string("2026-01-01T00:00:00Z"));
        json_object_set_new(secrets, "kube-system/h", h);

        cleanup_json json_t *out = tokencleaner_expired(secrets, now, &next);
        cleanup_free char *text = json_dumps(out, JSON_COMPACT);
        /* a: past; b: not yet (now is not after it); c: later; d: never; e: does not parse,
         * expired as upstream; f, g: not bootstrap tokens; h: being deleted */
        assert_string_equal(text,
                            "[{\"name\":\"a\",\"uid\":\"a\"},{\"name\":\"e\",\"uid\":\"e\"}]");
        assert_int_equal(next, 1); /* b expires one second on */

        json_object_del(secrets, "kube-system/b");
        json_decref(tokencleaner_expired(secrets, now, &next));
        assert_int_equal(next, 61);
        json_object_clear(secrets);
        json_decref(tokencleaner_expired(secrets, now, &next));
        assert_int_equal(next, 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_expired),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
