/* test-jws.c: ES256 tokens: a signed token verifies and gives back its claims; one changed byte,
 * another key, "alg":"none", an HMAC algorithm, another kid and malformed tokens do not. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include <gnutls/abstract.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#include "apiserver/jws.h"
#include "base/alloc.h"
#include "base/base64.h"
#include "base/error.h"

static struct jws_signer *new_signer(void)
{
        gnutls_x509_privkey_t key;
        gnutls_datum_t pem = { 0 };
        struct jws_signer *s = NULL;
        struct error *err = NULL;
        char *text;

        assert_int_equal(gnutls_x509_privkey_init(&key), 0);
        assert_int_equal(
                gnutls_x509_privkey_generate(key, GNUTLS_PK_ECDSA,
                                             GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1), 0),
                0);
        assert_int_equal(gnutls_x509_privkey_export2_pkcs8(key, GNUTLS_X509_FMT_PEM, NULL,
                                                           GNUTLS_PKCS_PLAIN, &pem),
                         0);
        text = xstrndup((const char *) pem.data, pem.size);
        gnutls_free(pem.data);
        gnutls_x509_privkey_deinit(key);
        assert_int_equal(jws_signer_new(text, &s, &err), 0);
        free(text);
        return s;
}

static int verify(const struct jws_signer *s, const char *token)
{
        json_t *claims = NULL;
        struct error *err = NULL;
        int r = jws_verify(s, token, &claims, &err);

        if (r == 0)
                json_decref(claims);
        else
                assert_non_null(err);
        error_free(err);
        return r;
}

/* token with its header replaced by h (JSON text) */
static char *with_header(const char *token, const char *h)
{
        char *seg = base64url_encode(h, strlen(h));
        char *out = xasprintf("%s%s", seg, strchr(token, '.'));

        free(seg);
        return out;
}

static void test_sign_verify(void **state)
{
        struct jws_signer *s = new_signer(), *other = new_signer();
        json_t *claims = json_pack("{s:s, s:I}", "sub", "system:serviceaccount:ns:sa", "exp",
                                   (json_int_t) 2000000000);
        json_t *back = NULL;
        struct error *err = NULL;
        char *tok = jws_sign(s, claims), *bad;
        char kid_header[200];

        (void) state;
        assert_non_null(tok);
        assert_int_equal(jws_verify(s, tok, &back, &err), 0);
        assert_true(json_equal(back, claims));
        json_decref(back);

        /* another key */
        assert_int_equal(verify(other, tok), -EINVAL);
        /* a claim changed after signing */
        bad = xstrdup(tok);
        bad[strchr(bad, '.') - bad + 5] ^= 1;
        assert_int_equal(verify(s, bad), -EINVAL);
        free(bad);
        /* alg none with no signature, HS256, another kid, no alg */
        bad = with_header(tok, "{\"alg\":\"none\"}");
        assert_int_equal(verify(s, bad), -EINVAL);
        free(bad);
        bad = with_header(tok, "{\"alg\":\"HS256\"}");
        assert_int_equal(verify(s, bad), -EINVAL);
        free(bad);
        snprintf(kid_header, sizeof(kid_header), "{\"alg\":\"ES256\",\"kid\":\"%s\"}",
                 jws_signer_kid(other));
        bad = with_header(tok, kid_header);
        assert_int_equal(verify(s, bad), -EINVAL);
        free(bad);
        bad = with_header(tok, "{}");
        assert_int_equal(verify(s, bad), -EINVAL);
        free(bad);
        /* malformed */
        assert_int_equal(verify(s, ""), -EINVAL);
        assert_int_equal(verify(s, "a.b"), -EINVAL);
        assert_int_equal(verify(s, "a.b.c.d"), -EINVAL);
        assert_int_equal(verify(s, "!!!.e30.AAAA"), -EINVAL);
        bad = xasprintf("%s=", tok);
        assert_int_equal(verify(s, bad), -EINVAL);
        free(bad);

        free(tok);
        json_decref(claims);
        jws_signer_free(s);
        jws_signer_free(other);
}

static void test_key_must_be_p256(void **state)
{
        struct jws_signer *s = NULL;
        struct error *err = NULL;

        (void) state;
        assert_int_equal(jws_signer_new("not a key", &s, &err), -EINVAL);
        assert_string_equal(err->message, "service account key: not an ECDSA P-256 private key");
        error_free(err);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_sign_verify),
                cmocka_unit_test(test_key_must_be_p256),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
