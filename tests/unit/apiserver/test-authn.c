/* test-authn.c: the static token file as upstream's tokenfile reads it, the user a client
 * certificate names, and the order of the authenticators on a request. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#include "apiserver/authn.h"
#include "base/alloc.h"
#include "base/error.h"

static int parse(const char *text, struct authn_token_entry **e, size_t *n, struct error **err)
{
        return authn_token_file_parse("/etc/tokens.csv", text, strlen(text), e, n, err);
}

static void assert_groups(const struct authn_user *u, const char *const *want)
{
        size_t i = 0;

        for (; want[i]; i++) {
                assert_non_null(u->groups[i]);
                assert_string_equal(u->groups[i], want[i]);
        }
        assert_null(u->groups[i]);
}

static void test_token_file(void **state)
{
        struct authn_token_entry *e = NULL;
        struct error *err = NULL;
        size_t n = 0;
        static const char *const alice_groups[] = { "devs", "ops", NULL };
        static const char *const none[] = { NULL };
        static const char *const quoted_groups[] = { "a \"b\"", "", NULL };

        (void) state;
        /* quoted group lists, CRLF, blank lines, a record with an empty token skipped */
        assert_int_equal(parse("tok1,alice,uid-1,\"devs,ops\"\r\n\n,nobody,0\n"
                               "tok2,bob,2\ntok3,\"carol, c\",3,\"a \"\"b\"\",\"\n",
                               &e, &n, &err),
                         0);
        assert_int_equal(n, 3);
        assert_string_equal(e[0].user.name, "alice");
        assert_string_equal(e[0].user.uid, "uid-1");
        assert_groups(&e[0].user, alice_groups);
        assert_string_equal(e[1].user.name, "bob");
        assert_groups(&e[1].user, none);
        assert_string_equal(e[2].user.name, "carol, c");
        assert_groups(&e[2].user, quoted_groups);
        authn_token_entries_free(e, n);

        /* upstream's words for too few columns and Go's CSV errors */
        assert_int_equal(parse("tok1,alice\n", &e, &n, &err), -EINVAL);
        assert_string_equal(err->message, "token file '/etc/tokens.csv' must have at least 3 "
                                          "columns (token, user name, user uid), found 2");
        err = error_free(err);
        assert_int_equal(parse("tok1,al\"ice,1\n", &e, &n, &err), -EINVAL);
        assert_string_equal(err->message,
                            "parse error on line 1, column 8: bare \" in non-quoted-field");
        err = error_free(err);
        assert_int_equal(parse("tok0,a,0\ntok1,\"alice,1\n", &e, &n, &err), -EINVAL);
        assert_string_equal(err->message, "record on line 2; parse error on line 3, column 1: "
                                          "extraneous or missing \" in quoted-field");
        err = error_free(err);

        /* an empty file has no tokens */
        assert_int_equal(parse("", &e, &n, &err), 0);
        assert_int_equal(n, 0);
        authn_token_entries_free(e, n);
}

/* A DER certificate with the given subject, self-signed (authn_user_from_cert reads names only;
 * the HTTP server verified the chain). */
static gnutls_datum_t make_cert(const char *cn, const char *const *orgs)
{
        gnutls_x509_privkey_t key;
        gnutls_x509_crt_t crt;
        gnutls_datum_t der = { 0 };
        unsigned char serial[] = { 1 };

        assert_int_equal(gnutls_x509_privkey_init(&key), 0);
        assert_int_equal(
                gnutls_x509_privkey_generate(key, GNUTLS_PK_ECDSA,
                                             GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1), 0),
                0);
        assert_int_equal(gnutls_x509_crt_init(&crt), 0);
        assert_int_equal(gnutls_x509_crt_set_version(crt, 3), 0);
        assert_int_equal(gnutls_x509_crt_set_serial(crt, serial, 1), 0);
        if (cn)
                assert_int_equal(gnutls_x509_crt_set_dn_by_oid(crt, GNUTLS_OID_X520_COMMON_NAME, 0,
                                                               cn, (unsigned) strlen(cn)),
                                 0);
        for (size_t i = 0; orgs && orgs[i]; i++)
                assert_int_equal(gnutls_x509_crt_set_dn_by_oid(crt,
                                                               GNUTLS_OID_X520_ORGANIZATION_NAME, 0,
                                                               orgs[i], (unsigned) strlen(orgs[i])),
                                 0);
        assert_int_equal(gnutls_x509_crt_set_activation_time(crt, time(NULL) - 60), 0);
        assert_int_equal(gnutls_x509_crt_set_expiration_time(crt, time(NULL) + 3600), 0);
        assert_int_equal(gnutls_x509_crt_set_key(crt, key), 0);
        assert_int_equal(gnutls_x509_crt_sign2(crt, crt, key, GNUTLS_DIG_SHA256, 0), 0);
        assert_int_equal(gnutls_x509_crt_export2(crt, GNUTLS_X509_FMT_DER, &der), 0);
        gnutls_x509_crt_deinit(crt);
        gnutls_x509_privkey_deinit(key);
        return der;
}

static void test_cert_user(void **state)
{
        static const char *const orgs[] = { "team-a", "team-b", NULL };
        static const char *const want[] = { "team-a", "team-b", AUTHN_GROUP_AUTHENTICATED, NULL };
        gnutls_datum_t der = make_cert("carol", orgs);
        struct authn_user *u = NULL;

        (void) state;
        assert_int_equal(authn_user_from_cert(der.data, der.size, &u), 0);
        assert_string_equal(u->name, "carol");
        assert_string_equal(u->uid, "");
        assert_groups(u, want);
        authn_user_free(u);
        gnutls_free(der.data);

        /* K8S: no CN, no user */
        der = make_cert(NULL, orgs);
        assert_int_equal(authn_user_from_cert(der.data, der.size, &u), -EACCES);
        gnutls_free(der.data);
        assert_int_equal(authn_user_from_cert((const unsigned char *) "junk", 4, &u), -EINVAL);
}

static void test_request_order(void **state)
{
        static const char *const orgs[] = { "team-a", NULL };
        gnutls_datum_t der = make_cert("carol", orgs);
        struct authn *a = NULL;
        struct authn_user *u = NULL;
        struct http_request req = { .method = "GET", .path = "/api" };
        struct error *err = NULL;
        char path[] = "/tmp/flexlet-authn-XXXXXX";
        int fd = mkstemp(path);
        static const char tokens[] = "tok1,alice,1,devs\ntok1,alice2,2\n";

        (void) state;
        assert_true(fd >= 0);
        assert_int_equal(write(fd, tokens, sizeof(tokens) - 1), (ssize_t) sizeof(tokens) - 1);
        close(fd);
        assert_int_equal(authn_new(NULL, path, NULL, NULL, &a, &err), 0);
        unlink(path);

        /* nothing offered, a token that matches nothing: 401 */
        assert_int_equal(authn_request(a, &req, &u), -EACCES);
        req.authorization = "Bearer nope";
        assert_int_equal(authn_request(a, &req, &u), -EACCES);
        req.authorization = "Basic dG9rMQ==";
        assert_int_equal(authn_request(a, &req, &u), -EACCES);
        /* the later line for a token wins; "bearer" in any case, the token up to a space */
        req.authorization = "bEaReR tok1 trailing";
        assert_int_equal(authn_request(a, &req, &u), 0);
        assert_string_equal(u->name, "alice2");
        assert_string_equal(u->uid, "2");
        u = authn_user_free(u);
        /* a verified certificate comes first, whatever the token says */
        req.client_cert_der = der.data;
        req.client_cert_len = der.size;
        req.authorization = "Bearer nope";
        assert_int_equal(authn_request(a, &req, &u), 0);
        assert_string_equal(u->name, "carol");
        u = authn_user_free(u);
        authn_free(a);
        gnutls_free(der.data);

        /* a file that is not there */
        assert_int_equal(authn_new(NULL, "/nonexistent/tokens.csv", NULL, NULL, &a, &err), -ENOENT);
        assert_non_null(strstr(err->message, "/nonexistent/tokens.csv"));
        error_free(err);
}

/* The users of certificates seen before are kept (authn.c's cert_users): every request still
 * gets its own certificate's user, with more certificates in turn than are kept, and a
 * certificate without a CN never yields one. */
static void test_request_cert_users(void **state)
{
        enum { N = 20 }; /* more than CERT_USERS_KEPT */
        static const char *const orgs[] = { "team-a", NULL };
        static const char *const want[] = { "team-a", AUTHN_GROUP_AUTHENTICATED, NULL };
        gnutls_datum_t ders[N], nameless = make_cert(NULL, orgs);
        struct http_request req = { .method = "GET", .path = "/api" };
        struct authn *a = NULL;
        struct authn_user *u = NULL;
        struct error *err = NULL;
        char name[16];

        (void) state;
        assert_int_equal(authn_new(NULL, NULL, NULL, NULL, &a, &err), 0);
        for (int i = 0; i < N; i++) {
                (void) snprintf(name, sizeof(name), "user-%d", i);
                ders[i] = make_cert(name, orgs);
        }
        for (int round = 0; round < 3; round++) {
                for (int i = 0; i < N; i++) {
                        int k = round == 1 ? N - 1 - i : i;

                        (void) snprintf(name, sizeof(name), "user-%d", k);
                        req.client_cert_der = ders[k].data;
                        req.client_cert_len = ders[k].size;
                        assert_int_equal(authn_request(a, &req, &u), 0);
                        assert_string_equal(u->name, name);
                        assert_groups(u, want);
                        u = authn_user_free(u);
                }
                req.client_cert_der = nameless.data;
                req.client_cert_len = nameless.size;
                assert_int_equal(authn_request(a, &req, &u), -EACCES);
        }
        for (int i = 0; i < N; i++)
                gnutls_free(ders[i].data);
        gnutls_free(nameless.data);
        authn_free(a);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_token_file),
                cmocka_unit_test(test_cert_user),
                cmocka_unit_test(test_request_order),
                cmocka_unit_test(test_request_cert_users),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
