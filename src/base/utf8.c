/* utf8.c: Go's UTF-8 decoding rules (unicode/utf8: DecodeRune and Valid). Nothing here
 * allocates or knows what the text is for. */
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
