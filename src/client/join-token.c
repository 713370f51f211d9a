/* join-token.c: the K10 join token (join-token.h): parsing, the CA hash, formatting and a fresh
 * bootstrap token. It neither reads nor writes files. */
#include <errno.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "client/join-token.h"

static bool is_space(char c)
{
        return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool token_char(char c)
{
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

int join_token_parse(const char *text, size_t len, struct join_token *ret, struct error **reterr)
{
        const char *p = text, *end = text + len, *t;
        struct join_token tok = { 0 };

        if (len > JOIN_TOKEN_MAX_BYTES)
                return error_set(reterr, EINVAL, "the join token is longer than %d bytes",
                                 JOIN_TOKEN_MAX_BYTES);
        while (p < end && is_space(*p))
                p++;
        while (end > p && is_space(end[-1]))
                end--;
        if ((size_t) (end - p) < strlen(JOIN_TOKEN_PREFIX) ||
            memcmp(p, JOIN_TOKEN_PREFIX, strlen(JOIN_TOKEN_PREFIX)) != 0)
                return error_set(reterr, EINVAL,
                                 "the join token does not start with " JOIN_TOKEN_PREFIX);
        p += strlen(JOIN_TOKEN_PREFIX);
        if (end - p < JOIN_TOKEN_HASH_LEN + 2 || memcmp(p + JOIN_TOKEN_HASH_LEN, "::", 2) != 0)
                return error_set(reterr, EINVAL,
                                 "the join token's CA hash is not 64 hex digits followed by ::");
        for (int i = 0; i < JOIN_TOKEN_HASH_LEN; i++) {
                char c = p[i];

                if (c >= 'A' && c <= 'F')
                        c = (char) (c - 'A' + 'a');
                if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
                        return error_set(reterr, EINVAL,
                                         "the join token's CA hash is not 64 hex digits "
                                         "followed by ::");
                tok.ca_hash[i] = c;
        }
        t = p + JOIN_TOKEN_HASH_LEN + 2;
        /* K8S: BootstrapTokenPattern `\A([a-z0-9]{6})\.([a-z0-9]{16})\z` */
        if (end - t != JOIN_TOKEN_ID_LEN + 1 + JOIN_TOKEN_SECRET_LEN || t[JOIN_TOKEN_ID_LEN] != '.')
                goto bad_token;
        for (int i = 0; i < JOIN_TOKEN_ID_LEN; i++) {
                if (!token_char(t[i]))
                        goto bad_token;
                tok.id[i] = t[i];
        }
        for (int i = 0; i < JOIN_TOKEN_SECRET_LEN; i++) {
                if (!token_char(t[JOIN_TOKEN_ID_LEN + 1 + i]))
                        goto bad_token;
                tok.secret[i] = t[JOIN_TOKEN_ID_LEN + 1 + i];
        }
        *ret = tok;
        return 0;
bad_token:
        return error_set(reterr, EINVAL,
                         "the join token's bootstrap token is not of the form "
                         "[a-z0-9]{6}.[a-z0-9]{16}");
}

void join_token_ca_hash(const char *ca_pem, size_t len, char out[static JOIN_TOKEN_HASH_LEN + 1])
{
        unsigned char digest[32];

        (void) gnutls_hash_fast(GNUTLS_DIG_SHA256, ca_pem, len, digest);
        for (int i = 0; i < 32; i++)
                (void) snprintf(out + 2 * i, 3, "%02x", digest[i]);
}

char *join_token_format(const char *ca_pem, const char *id, const char *secret)
{
        char hash[JOIN_TOKEN_HASH_LEN + 1];

        join_token_ca_hash(ca_pem, strlen(ca_pem), hash);
        return xasprintf(JOIN_TOKEN_PREFIX "%s::%s.%s", hash, id, secret);
}

static int random_chars(char *out, size_t n)
{
        static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
        size_t have = 0;

        while (have < n) {
                unsigned char buf[32];
                int gr = gnutls_rnd(GNUTLS_RND_KEY, buf, sizeof(buf));

                if (gr < 0)
                        return -EIO;
                /* 252 = 7 * 36: bytes at or above it would favour the first letters */
                for (size_t i = 0; i < sizeof(buf) && have < n; i++)
                        if (buf[i] < 252)
                                out[have++] = alphabet[buf[i] % 36];
        }
        out[n] = '\0';
        return 0;
}

int join_token_generate(char id[static JOIN_TOKEN_ID_LEN + 1],
                        char secret[static JOIN_TOKEN_SECRET_LEN + 1])
{
        int r = random_chars(id, JOIN_TOKEN_ID_LEN);

        return r < 0 ? r : random_chars(secret, JOIN_TOKEN_SECRET_LEN);
}
