/* test-join-token.c: the K10 join token: what parses, what is refused and why, the CA hash,
 * formatting and fresh tokens. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "client/join-token.h"

#define HASH "23ab338261ec101e798d361f558762d795a3b424432f0ba82482bb76c128affa"

static void test_parse_ok(void **state)
{
        const char *text = "  K10" HASH "::abc123.0123456789abcdef\n";
        struct join_token t;

        assert_int_equal(join_token_parse(text, strlen(text), &t, NULL), 0);
        assert_string_equal(t.ca_hash, HASH);
        assert_string_equal(t.id, "abc123");
        assert_string_equal(t.secret, "0123456789abcdef");
}

static void test_parse_upper_hash(void **state)
{
        const char *text = "K1023AB338261EC101E798D361F558762D795A3B424432F0BA82482BB76C128AFFA"
                           "::abc123.0123456789abcdef";
        struct join_token t;

        assert_int_equal(join_token_parse(text, strlen(text), &t, NULL), 0);
        assert_string_equal(t.ca_hash, HASH);
}

static void test_parse_refusals(void **state)
{
        static const struct {
                const char *text, *message;
        } cases[] = {
                { "", "the join token does not start with K10" },
                { "garbage", "the join token does not start with K10" },
                { "K11" HASH "::abc123.0123456789abcdef", "does not start with K10" },
                { "K10" HASH ":abc123.0123456789abcdef", "64 hex digits followed by ::" },
                { "K10abc::abc123.0123456789abcdef", "64 hex digits followed by ::" },
                { "K10"
                  "g3ab338261ec101e798d361f558762d795a3b424432f0ba82482bb76c128affa"
                  "::abc123.0123456789abcdef",
                  "64 hex digits followed by ::" },
                { "K10" HASH "::", "[a-z0-9]{6}.[a-z0-9]{16}" },
                { "K10" HASH "::ABC123.0123456789abcdef", "[a-z0-9]{6}.[a-z0-9]{16}" },
                { "K10" HASH "::abc12.0123456789abcdef", "[a-z0-9]{6}.[a-z0-9]{16}" },
                { "K10" HASH "::abc123-0123456789abcdef", "[a-z0-9]{6}.[a-z0-9]{16}" },
                { "K10" HASH "::abc123.0123456789abcdefa", "[a-z0-9]{6}.[a-z0-9]{16}" },
                { "K10" HASH "::abc123.0123456789abcde ", "[a-z0-9]{6}.[a-z0-9]{16}" },
                { "K10" HASH "::node:password", "[a-z0-9]{6}.[a-z0-9]{16}" },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct error *err = NULL;
                struct join_token t;

                assert_int_equal(join_token_parse(cases[i].text, strlen(cases[i].text), &t, &err),
                                 -EINVAL);
                assert_non_null(strstr(err->message, cases[i].message));
                /* the secret never shows in a message */
                assert_null(strstr(err->message, "0123456789abcdef"));
                error_free(err);
        }
}

static void test_hash_and_format(void **state)
{
        const char *pem = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
        char hash[JOIN_TOKEN_HASH_LEN + 1];
        char *text;
        struct join_token t;

        join_token_ca_hash(pem, strlen(pem), hash);
        assert_int_equal(strlen(hash), 64);
        text = join_token_format(pem, "abc123", "0123456789abcdef");
        assert_int_equal(join_token_parse(text, strlen(text), &t, NULL), 0);
        assert_string_equal(t.ca_hash, hash);
        free(text);
        /* the hash of "" is SHA-256's well-known empty digest */
        join_token_ca_hash("", 0, hash);
        assert_string_equal(hash,
                            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

static void test_generate(void **state)
{
        char id[JOIN_TOKEN_ID_LEN + 1], secret[JOIN_TOKEN_SECRET_LEN + 1], id2[7], s2[17];
        char *text;
        struct join_token t;

        assert_int_equal(join_token_generate(id, secret), 0);
        assert_int_equal(join_token_generate(id2, s2), 0);
        assert_string_not_equal(secret, s2);
        text = join_token_format("x", id, secret);
        assert_int_equal(join_token_parse(text, strlen(text), &t, NULL), 0);
        assert_string_equal(t.id, id);
        assert_string_equal(t.secret, secret);
        free(text);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse_ok),       cmocka_unit_test(test_parse_upper_hash),
                cmocka_unit_test(test_parse_refusals), cmocka_unit_test(test_hash_and_format),
                cmocka_unit_test(test_generate),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
