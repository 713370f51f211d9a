/* base64.c: Go's base64.StdEncoding decoder and encoder (see base64.h). The decoder follows the
 * error offsets of Go's decodeQuantum (src/encoding/base64/base64.go), so that a bad Secret value
 * is refused with the same "illegal base64 data at input byte N" as kube-apiserver's. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "base/alloc.h"
#include "base/base64.h"

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int digit(unsigned char c)
{
        if (c >= 'A' && c <= 'Z')
                return c - 'A';
        if (c >= 'a' && c <= 'z')
                return c - 'a' + 26;
        if (c >= '0' && c <= '9')
                return c - '0' + 52;
        return c == '+' ? 62 : c == '/' ? 63 : -1;
}

static int corrupt(size_t at, struct error **reterr)
{
        return error_set(reterr, EINVAL, "illegal base64 data at input byte %zu", at);
}

static bool is_newline(char c)
{
        return c == '\n' || c == '\r';
}

int base64_decode(const char *s, size_t len, char **ret_out, size_t *ret_len, struct error **reterr)
{
        cleanup_free char *out = xmalloc(len / 4 * 3 + 4);
        size_t si = 0, n = 0;

        for (;;) {
                unsigned v[4] = { 0 };
                size_t dlen = 4;
                bool last = false;

                for (int j = 0; j < 4; j++) {
                        unsigned char c;
                        int d;

                        if (si == len) {
                                if (j == 0)
                                        goto done;
                                /* K8S (Go): padding required: the quantum's start */
                                return corrupt(si - (size_t) j, reterr);
                        }
                        c = (unsigned char) s[si++];
                        d = digit(c);
                        if (d >= 0) {
                                v[j] = (unsigned) d;
                                continue;
                        }
                        if (is_newline((char) c)) {
                                j--;
                                continue;
                        }
                        if (c != '=' || j < 2)
                                return corrupt(si - 1, reterr);
                        if (j == 2) {
                                /* "==" expected; the first '=' is consumed */
                                while (si < len && is_newline(s[si]))
                                        si++;
                                if (si == len)
                                        return corrupt(len, reterr);
                                if (s[si] != '=')
                                        return corrupt(si - 1, reterr);
                                si++;
                        }
                        while (si < len && is_newline(s[si]))
                                si++;
                        if (si < len)
                                return corrupt(si, reterr); /* trailing garbage */
                        dlen = (size_t) j;
                        last = true;
                        break;
                }
                out[n++] = (char) (v[0] << 2 | v[1] >> 4);
                if (dlen >= 3)
                        out[n++] = (char) ((v[1] << 4 | v[2] >> 2) & 0xff);
                if (dlen == 4)
                        out[n++] = (char) ((v[2] << 6 | v[3]) & 0xff);
                if (last)
                        break;
        }
done:
        out[n] = '\0';
        if (ret_len)
                *ret_len = n;
        if (ret_out)
                *ret_out = TAKE_PTR(out);
        return 0;
}

char *base64_encode(const void *data, size_t n)
{
        const unsigned char *p = data;
        char *out = xmalloc((n + 2) / 3 * 4 + 1);
        size_t o = 0, i = 0;

        for (; i + 3 <= n; i += 3) {
                uint32_t v = (uint32_t) p[i] << 16 | (uint32_t) p[i + 1] << 8 | p[i + 2];
                out[o++] = alphabet[v >> 18 & 63];
                out[o++] = alphabet[v >> 12 & 63];
                out[o++] = alphabet[v >> 6 & 63];
                out[o++] = alphabet[v & 63];
        }
        if (n - i == 1) {
                uint32_t v = (uint32_t) p[i] << 16;
                out[o++] = alphabet[v >> 18 & 63];
                out[o++] = alphabet[v >> 12 & 63];
                out[o++] = '=';
                out[o++] = '=';
        } else if (n - i == 2) {
                uint32_t v = (uint32_t) p[i] << 16 | (uint32_t) p[i + 1] << 8;
                out[o++] = alphabet[v >> 18 & 63];
                out[o++] = alphabet[v >> 12 & 63];
                out[o++] = alphabet[v >> 6 & 63];
                out[o++] = '=';
        }
        out[o] = '\0';
        return out;
}

char *base64url_encode(const void *data, size_t n)
{
        char *out = base64_encode(data, n);
        size_t o = 0;

        for (size_t i = 0; out[i] && out[i] != '='; i++)
                out[o++] = out[i] == '+' ? '-' : out[i] == '/' ? '_' : out[i];
        out[o] = '\0';
        return out;
}

int base64url_decode(const char *s, size_t len, char **ret_out, size_t *ret_len)
{
        cleanup_free char *std = NULL;
        size_t o = 0;

        if (len % 4 == 1)
                return -EINVAL;
        std = xmalloc(len + 3);
        for (size_t i = 0; i < len; i++) {
                char c = s[i];
                if (c == '-')
                        c = '+';
                else if (c == '_')
                        c = '/';
                else if (c == '+' || c == '/' || digit((unsigned char) c) < 0)
                        return -EINVAL;
                std[o++] = c;
        }
        while (o % 4)
                std[o++] = '=';
        return base64_decode(std, o, ret_out, ret_len, NULL);
}
