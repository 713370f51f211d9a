/* base64.c: Go's base64.StdEncoding encoder and decoder (see base64.h). */
#include <errno.h>

#include <stdbool.h>

#include "base/base64.h"

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void base64_encode(struct strbuf *sb, const void *data, size_t len)
{
        const unsigned char *in = data;
        size_t i;

        strbuf_grow(sb, (len + 2) / 3 * 4);
        for (i = 0; i + 3 <= len; i += 3) {
                unsigned v = (unsigned) in[i] << 16 | (unsigned) in[i + 1] << 8 | in[i + 2];
                char q[4] = { alphabet[v >> 18], alphabet[(v >> 12) & 63], alphabet[(v >> 6) & 63],
                              alphabet[v & 63] };
                strbuf_add(sb, q, 4);
        }
        if (i < len) {
                unsigned v = (unsigned) in[i] << 16 | (i + 1 < len ? (unsigned) in[i + 1] << 8 : 0);
                char q[4] = { alphabet[v >> 18], alphabet[(v >> 12) & 63],
                              i + 1 < len ? alphabet[(v >> 6) & 63] : '=', '=' };
                strbuf_add(sb, q, 4);
        }
}

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

static bool is_break(char c)
{
        return c == '\n' || c == '\r';
}

int base64_decode(const char *s, size_t len, struct strbuf *out)
{
        size_t start = out->len, i = 0;

        for (;;) {
                unsigned v[4] = { 0 };
                int j = 0, have = 4;
                char b[3];

                while (j < 4) {
                        unsigned char c;
                        int d;

                        if (i == len) {
                                if (j == 0)
                                        return 0;
                                goto bad;
                        }
                        c = (unsigned char) s[i++];
                        if (is_break((char) c))
                                continue;
                        d = digit(c);
                        if (d >= 0) {
                                v[j++] = (unsigned) d;
                                continue;
                        }
                        if (c != '=' || j < 2)
                                goto bad;
                        if (j == 2) {
                                while (i < len && is_break(s[i]))
                                        i++;
                                if (i == len || s[i] != '=')
                                        goto bad;
                                i++;
                        }
                        while (i < len && is_break(s[i]))
                                i++;
                        if (i < len)
                                goto bad;
                        have = j;
                        break;
                }
                b[0] = (char) (v[0] << 2 | v[1] >> 4);
                b[1] = (char) (v[1] << 4 | v[2] >> 2);
                b[2] = (char) (v[2] << 6 | v[3]);
                strbuf_add(out, b, (size_t) have - 1);
                if (have < 4)
                        return 0;
        }
bad:
        out->len = start;
        out->buf[start] = '\0';
        return -EINVAL;
}
