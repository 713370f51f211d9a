/* test-bootstrap-token.c: bootstrap tokens as upstream's bootstrap authenticator reads them: the
 * token's form, the Secret's expiration, and which Secrets name which user. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "apiserver/authn.h"
#include "base/alloc.h"
#include "base/base64.h"
#include "base/json.h"

static void test_token_form(void **state)
{
        char id[BOOTSTRAP_TOKEN_ID_LEN + 1], secret[BOOTSTRAP_TOKEN_SECRET_LEN + 1];

        assert_true(authn_bootstrap_token_parse("abc123.0123456789abcdef", id, secret));
        assert_string_equal(id, "abc123");
        assert_string_equal(secret, "0123456789abcdef");
        assert_false(authn_bootstrap_token_parse("ABC123.0123456789abcdef", id, secret));
        assert_false(authn_bootstrap_token_parse("abc123.0123456789abcdeF", id, secret));
        assert_false(authn_bootstrap_token_parse("abc123.0123456789abcde", id, secret));
        assert_false(authn_bootstrap_token_parse("abc123.0123456789abcdef0", id, secret));
        assert_false(authn_bootstrap_token_parse("abc1234.123456789abcdef", id, secret));
        assert_false(authn_bootstrap_token_parse("abc123-0123456789abcdef", id, secret));
        assert_false(authn_bootstrap_token_parse("abc123.0123456789abcd.f", id, secret));
        assert_false(authn_bootstrap_token_parse("", id, secret));
}

/* A bootstrap token Secret whose data holds the NULL-terminated key, value pairs. */
static json_t *secret_with(const char *type, ...)
{
        json_t *data = json_object();
        va_list ap;
        const char *k;

        va_start(ap, type);
        while ((k = va_arg(ap, const char *))) {
                const char *v = va_arg(ap, const char *);
                char *b64 = base64_encode(v, strlen(v));

                json_object_set_new(data, k, json_string(b64));
                free(b64);
        }
        va_end(ap);
        return json_pack("{s:s, s:{s:s, s:s}, s:o}", "type", type, "metadata", "name",
                         "bootstrap-token-abc123", "namespace", "kube-system", "data", data);
}

static void test_expiry(void **state)
{
        json_t *s;
        time_t t = 1767225600; /* 2026-01-01T00:00:00Z */

        s = secret_with(BOOTSTRAP_TOKEN_SECRET_TYPE, NULL);
        assert_false(authn_bootstrap_secret_expired(s, t)); /* no expiration: never */
        json_decref(s);
        s = secret_with(BOOTSTRAP_TOKEN_SECRET_TYPE, "expiration", "2026-01-01T00:00:00Z", NULL);
        assert_false(authn_bootstrap_secret_expired(s, t));
        assert_true(authn_bootstrap_secret_expired(s, t + 1));
        json_decref(s);
        s = secret_with(BOOTSTRAP_TOKEN_SECRET_TYPE, "expiration", "2026-01-01T01:00:00+02:00",
                        NULL);
        assert_true(authn_bootstrap_secret_expired(s, t - 3600 + 1));
        assert_false(authn_bootstrap_secret_expired(s, t - 3600));
        json_decref(s);
        /* one that does not parse is expired */
        s = secret_with(BOOTSTRAP_TOKEN_SECRET_TYPE, "expiration", "tomorrow", NULL);
        assert_true(authn_bootstrap_secret_expired(s, t));
        json_decref(s);
}

static int user_of(json_t *s, const char *secret, struct authn_user **u)
{
        int r = authn_bootstrap_user("abc123", secret, s, 1767225600, u);
        json_decref(s);
        return r;
}

static void test_user(void **state)
{
        struct authn_user *u = NULL;
        const char *ok[] = { "token-id", "abc123", "token-secret", "0123456789abcdef" };

        assert_int_equal(
                user_of(secret_with(BOOTSTRAP_TOKEN_SECRET_TYPE, ok[0], ok[1], ok[2], ok[3],
                                    "usage-bootstrap-authentication", "true", "auth-extra-groups",
                                    "system:bootstrappers:z,system:bootstrappers:a-1,"
                                    "system:bootstrappers:z",
                                    NULL),
                        "0123456789abcdef", &u),
                0);
        assert_string_equal(u->name, "system:bootstrap:abc123");
        assert_string_equal(u->uid, "");
        assert_string_equal(u->groups[0], "system:bootstrappers");
        assert_string_equal(u->groups[1], "system:bootstrappers:a-1");
        assert_string_equal(u->groups[2], "system:bootstrappers:z");
        assert_string_equal(u->groups[3], AUTHN_GROUP_AUTHENTICATED);
        assert_null(u->groups[4]);
        u = authn_user_free(u);

        /* no Secret, the wrong secret, type, id, usage, groups: no user */
        assert_int_equal(authn_bootstrap_user("abc123", "0123456789abcdef", NULL, 0, &u), -EACCES);
        assert_int_equal(user_of(secret_with(BOOTSTRAP_TOKEN_SECRET_TYPE, ok[0], ok[1], ok[2],
                                             ok[3], "usage-bootstrap-authentication", "true", NULL),
                                 "0123456789abcdee", &u),
                         -EACCES);
        assert_int_equal(user_of(secret_with("Opaque", ok[0], ok[1], ok[2], ok[3],
                                             "usage-bootstrap-authentication", "true", NULL),
                                 "0123456789abcdef", &u),
                         -EACCES);
        assert_int_equal(user_of(secret_with(BOOTSTRAP_TOKEN_SECRET_TYPE, ok[0], "abc124", ok[2],
                                             ok[3], "usage-bootstrap-authentication", "true", NULL),
                                 "0123456789abcdef", &u),
                         -EACCES);
        assert_int_equal(user_of(secret_with(BOOTSTRAP_TOKEN_SECRET_TYPE, ok[0], ok[1], ok[2],
                                             ok[3], "usage-bootstrap-authentication", "True", NULL),
                                 "0123456789abcdef", &u),
                         -EACCES);
        assert_int_equal(user_of(secret_with(BOOTSTRAP_TOKEN_SECRET_TYPE, ok[0], ok[1], ok[2],
                                             ok[3], "usage-bootstrap-authentication", "true",
                                             "expiration", "2025-12-31T23:59:59Z", NULL),
                                 "0123456789abcdef", &u),
                         -EACCES);
        static const char *const bad_groups[] = {
                "devs",
                "system:bootstrappers:",
                "system:bootstrappers:a,",
                "system:bootstrappers:a-",
                "system:bootstrappers:A",
                " system:bootstrappers:a",
        };
        for (size_t i = 0; i < sizeof(bad_groups) / sizeof(*bad_groups); i++)
                assert_int_equal(
                        user_of(secret_with(BOOTSTRAP_TOKEN_SECRET_TYPE, ok[0], ok[1], ok[2], ok[3],
                                            "usage-bootstrap-authentication", "true",
                                            "auth-extra-groups", bad_groups[i], NULL),
                                "0123456789abcdef", &u),
                        -EACCES);

        /* being deleted */
        json_t *s = secret_with(BOOTSTRAP_TOKEN_SECRET_TYPE, ok[0], ok[1], ok[2], ok[3],
                                "usage-bootstrap-authentication", "true", NULL);
        json_object_set_new(json_object_get(s, "metadata"), "deletionTimestamp",
                            json_string("2026-01-01T00:00:00Z"));
        assert_int_equal(user_of(s, "0123456789abcdef", &u), -EACCES);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_token_form),
                cmocka_unit_test(test_expiry),
                cmocka_unit_test(test_user),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
