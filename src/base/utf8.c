/* utf8.c: Go's UTF-8 rules (unicode/utf8: DecodeRune and Valid) and its strconv.Quote, which
 * upstream's messages quote names and values with. Nothing here knows what the text is for. */
#include <string.h>

#include "base/utf8.h"

int32_t utf8_decode(const char *str, size_t n, size_t *ret_len)
{
        const unsigned char *s = (const unsigned char *) str;
        unsigned char lo = 0x80, hi = 0xBF;
        int32_t r;
        size_t len;

        *ret_len = 1;
        if (s[0] < 0x80)
                return s[0];
        if (s[0] >= 0xC2 && s[0] <= 0xDF)
                len = 2, r = s[0] & 0x1F;
        else if (s[0] >= 0xE0 && s[0] <= 0xEF)
                len = 3, r = s[0] & 0x0F;
        else if (s[0] >= 0xF0 && s[0] <= 0xF4)
                len = 4, r = s[0] & 0x07;
        else
                return -1;
        /* the second byte's range rules out overlong forms, surrogates and > U+10FFFF */
        if (s[0] == 0xE0)
                lo = 0xA0;
        else if (s[0] == 0xED)
                hi = 0x9F;
        else if (s[0] == 0xF0)
                lo = 0x90;
        else if (s[0] == 0xF4)
                hi = 0x8F;
        if (n < len || s[1] < lo || s[1] > hi)
                return -1;
        for (size_t i = 1; i < len; i++) {
                if (i > 1 && (s[i] < 0x80 || s[i] > 0xBF))
                        return -1;
                r = r << 6 | (s[i] & 0x3F);
        }
        *ret_len = len;
        return r;
}

bool utf8_valid(const char *s, size_t n)
{
        size_t len;

        for (size_t i = 0; i < n; i += len)
                if (utf8_decode(s + i, n - i, &len) < 0)
                        return false;
        return true;
}

void utf8_append_valid(struct strbuf *sb, const char *s, size_t n)
{
        size_t len;

        for (size_t i = 0; i < n; i += len) {
                if (utf8_decode(s + i, n - i, &len) < 0)
                        strbuf_addstr(sb, "\xef\xbf\xbd"); /* U+FFFD */
                else
                        strbuf_add(sb, s + i, len);
        }
}

bool utf8_go_is_print(int32_t r)
{
        return !((r >= 0x80 && r <= 0xA0) || r == 0xAD || r == 0x61C || r == 0x1680 ||
                 r == 0x180E || (r >= 0x2000 && r <= 0x200F) || (r >= 0x2028 && r <= 0x202F) ||
                 (r >= 0x205F && r <= 0x206F) || r == 0x3000 || (r >= 0xD800 && r <= 0xF8FF) ||
                 r == 0xFEFF || (r >= 0xFDD0 && r <= 0xFDEF) || (r >= 0xFFF9 && r <= 0xFFFB) ||
                 (r & 0xFFFE) == 0xFFFE || (r >= 0x323B0 && r <= 0xE00FF) || r >= 0xE01F0);
}

void utf8_go_quote(struct strbuf *sb, const char *s, size_t n)
{
        static const char controls[] = "\a\b\f\n\r\t\v", letters[] = "abfnrtv";

        strbuf_addch(sb, '"');
        for (size_t i = 0; i < n;) {
                size_t len;
                int32_t r = utf8_decode(s + i, n - i, &len);
                const char *c = r > 0 && r < 0x20 ? strchr(controls, (char) r) : NULL;

                if (r < 0)
                        strbuf_addf(sb, "\\x%02x", (unsigned char) s[i]);
                else if (r == '"' || r == '\\')
                        strbuf_addf(sb, "\\%c", (char) r);
                else if (r >= 0x20 && r < 0x7F)
                        strbuf_addch(sb, (char) r);
                else if (r >= 0x80 && utf8_go_is_print(r))
                        strbuf_add(sb, s + i, len);
                else if (c)
                        strbuf_addf(sb, "\\%c", letters[c - controls]);
                else if (r < 0x20 || r == 0x7F)
                        strbuf_addf(sb, "\\x%02x", (unsigned) r);
                else if (r < 0x10000)
                        strbuf_addf(sb, "\\u%04x", (unsigned) r);
                else
                        strbuf_addf(sb, "\\U%08x", (unsigned) r);
                i += len;
        }
        strbuf_addch(sb, '"');
}
