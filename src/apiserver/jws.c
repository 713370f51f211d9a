/* jws.c: ES256 JSON Web Tokens with GnuTLS (see jws.h). */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include <gnutls/abstract.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>

#include "apiserver/jws.h"
#include "base/alloc.h"
#include "base/base64.h"
#include "base/strbuf.h"

/* RFC 7518 §3.4: R and S, each the curve's 32 bytes. */
#define ES256_HALF 32
/* A token longer than this is no token flexlet issued (theirs are under 2 KiB). */
#define MAX_TOKEN 16384

struct jws_signer {
        gnutls_privkey_t priv;
        gnutls_pubkey_t pub;
        char *kid;
};

struct jws_signer *jws_signer_free(struct jws_signer *s)
{
        if (!s)
                return NULL;
        if (s->priv)
                gnutls_privkey_deinit(s->priv);
        if (s->pub)
                gnutls_pubkey_deinit(s->pub);
        free(s->kid);
        free(s);
        return NULL;
}

int jws_signer_new(const char *key_pem, struct jws_signer **ret, struct error **reterr)
{
        cleanup_jws_signer struct jws_signer *s = xcalloc(1, sizeof(*s));
        gnutls_datum_t pem = { .data = (unsigned char *) key_pem,
                               .size = (unsigned) strlen(key_pem) };
        gnutls_datum_t der = { 0 };
        gnutls_ecc_curve_t curve = GNUTLS_ECC_CURVE_INVALID;
        unsigned char digest[32];

        if (gnutls_privkey_init(&s->priv) < 0 || gnutls_pubkey_init(&s->pub) < 0)
                return error_set(reterr, ENOMEM, "service account key: out of memory");
        if (gnutls_privkey_import_x509_raw(s->priv, &pem, GNUTLS_X509_FMT_PEM, NULL, 0) < 0 ||
            gnutls_privkey_get_pk_algorithm(s->priv, NULL) != GNUTLS_PK_ECDSA ||
            gnutls_privkey_export_ecc_raw(s->priv, &curve, NULL, NULL, NULL) < 0 ||
            curve != GNUTLS_ECC_CURVE_SECP256R1)
                return error_set(reterr, EINVAL,
                                 "service account key: not an ECDSA P-256 private key");
        if (gnutls_pubkey_import_privkey(s->pub, s->priv, 0, 0) < 0 ||
            gnutls_pubkey_export2(s->pub, GNUTLS_X509_FMT_DER, &der) < 0)
                return error_set(reterr, EINVAL, "service account key: no public key");
        if (gnutls_hash_fast(GNUTLS_DIG_SHA256, der.data, der.size, digest) < 0) {
                gnutls_free(der.data);
                return error_set(reterr, EIO, "service account key: SHA-256 failed");
        }
        gnutls_free(der.data);
        s->kid = base64url_encode(digest, sizeof(digest));
        *ret = TAKE_PTR(s);
        return 0;
}

const char *jws_signer_kid(const struct jws_signer *s)
{
        return s->kid;
}

/* Appends the base64url of the compact JSON of v. */
static void add_json_segment(struct strbuf *sb, const json_t *v)
{
        cleanup_free char *text = json_dumps(v, JSON_COMPACT);
        cleanup_free char *seg = base64url_encode(text, strlen(text));

        strbuf_addstr(sb, seg);
}

/* Copies the big-endian integer d into out (len bytes), left-padded with zeros; false when it
 * does not fit. */
static bool fixed_width(const gnutls_datum_t *d, unsigned char *out, size_t len)
{
        size_t skip = 0;

        while (skip < d->size && d->data[skip] == 0)
                skip++;
        if (d->size - skip > len)
                return false;
        memset(out, 0, len);
        memcpy(out + len - (d->size - skip), d->data + skip, d->size - skip);
        return true;
}

char *jws_sign(const struct jws_signer *s, const json_t *claims)
{
        json_t *header = json_pack("{s:s, s:s}", "alg", "ES256", "kid", s->kid);
        gnutls_datum_t input, sig = { 0 }, r = { 0 }, sv = { 0 };
        unsigned char raw[2 * ES256_HALF];
        cleanup_free char *sig64 = NULL;
        struct strbuf sb;
        bool ok;

        strbuf_init(&sb);
        add_json_segment(&sb, header);
        json_decref(header);
        strbuf_addch(&sb, '.');
        add_json_segment(&sb, claims);
        input = (gnutls_datum_t){ .data = (unsigned char *) sb.buf, .size = (unsigned) sb.len };
        ok = gnutls_privkey_sign_data2(s->priv, GNUTLS_SIGN_ECDSA_SHA256, 0, &input, &sig) >= 0 &&
             gnutls_decode_rs_value(&sig, &r, &sv) >= 0 && fixed_width(&r, raw, ES256_HALF) &&
             fixed_width(&sv, raw + ES256_HALF, ES256_HALF);
        gnutls_free(sig.data);
        gnutls_free(r.data);
        gnutls_free(sv.data);
        if (!ok) {
                strbuf_release(&sb);
                return NULL;
        }
        sig64 = base64url_encode(raw, sizeof(raw));
        strbuf_addch(&sb, '.');
        strbuf_addstr(&sb, sig64);
        return strbuf_detach(&sb);
}

/* The JSON object in base64url segment [p, p + len). NULL when it is not one. */
static json_t *json_segment(const char *p, size_t len)
{
        cleanup_free char *text = NULL;
        size_t n = 0;
        json_t *v;

        if (base64url_decode(p, len, &text, &n) < 0)
                return NULL;
        v = json_loadb(text, n, JSON_REJECT_DUPLICATES, NULL);
        if (v && !json_is_object(v)) {
                json_decref(v);
                return NULL;
        }
        return v;
}

int jws_verify(const struct jws_signer *s, const char *token, json_t **ret_claims,
               struct error **reterr)
{
        const char *dot1, *dot2;
        size_t len = strnlen(token, MAX_TOKEN + 1);
        json_t *header, *claims;
        const char *alg, *kid;
        cleanup_free char *sig = NULL;
        size_t sig_len = 0;
        gnutls_datum_t input, der = { 0 };
        gnutls_datum_t r = { 0 }, sv = { 0 };
        int gr;

        if (len > MAX_TOKEN)
                return error_set(reterr, EINVAL, "token is too long");
        dot1 = memchr(token, '.', len);
        dot2 = dot1 ? memchr(dot1 + 1, '.', len - (size_t) (dot1 + 1 - token)) : NULL;
        if (!dot2 || memchr(dot2 + 1, '.', len - (size_t) (dot2 + 1 - token)))
                return error_set(reterr, EINVAL, "token is not a compact JWS");
        header = json_segment(token, (size_t) (dot1 - token));
        if (!header)
                return error_set(reterr, EINVAL, "token header is not a JSON object");
        alg = json_string_value(json_object_get(header, "alg"));
        kid = json_string_value(json_object_get(header, "kid"));
        if (!alg || strcmp(alg, "ES256") != 0 || (json_object_get(header, "kid") && !kid) ||
            (kid && strcmp(kid, s->kid) != 0)) {
                json_decref(header);
                return error_set(reterr, EINVAL, "token is not signed by this issuer's key");
        }
        json_decref(header);
        if (base64url_decode(dot2 + 1, len - (size_t) (dot2 + 1 - token), &sig, &sig_len) < 0 ||
            sig_len != 2 * ES256_HALF)
                return error_set(reterr, EINVAL, "token signature is malformed");
        r = (gnutls_datum_t){ .data = (unsigned char *) sig, .size = ES256_HALF };
        sv = (gnutls_datum_t){ .data = (unsigned char *) sig + ES256_HALF, .size = ES256_HALF };
        if (gnutls_encode_rs_value(&der, &r, &sv) < 0)
                return error_set(reterr, EINVAL, "token signature is malformed");
        input = (gnutls_datum_t){ .data = (unsigned char *) token,
                                  .size = (unsigned) (dot2 - token) };
        gr = gnutls_pubkey_verify_data2(s->pub, GNUTLS_SIGN_ECDSA_SHA256, 0, &input, &der);
        gnutls_free(der.data);
        if (gr < 0)
                return error_set(reterr, EINVAL, "token signature does not verify");
        claims = json_segment(dot1 + 1, (size_t) (dot2 - dot1 - 1));
        if (!claims)
                return error_set(reterr, EINVAL, "token claims are not a JSON object");
        *ret_claims = claims;
        return 0;
}
