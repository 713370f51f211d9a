/* fuzz-http-request.c: the part of request parsing that is flexlet's own (the HTTP library
 * splits the request line and headers): the percent-decoding of the path and of every query
 * key and value (http_unescape), the UTF-8 check that follows it, and the query lookup. The
 * input is a request target, "path?k=v&k2=v2...". Checked: the decoding never grows a string,
 * never leaves a NUL inside it, agrees with a straightforward reference decoder, and an escaped
 * NUL always makes the text invalid UTF-8 (so it is refused, not cut short); every parameter
 * is found by its key, the first of a repeated key winning. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/utf8.h"
#include "http/http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int hexval(unsigned char c)
{
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
                return c - 'A' + 10;
        return -1;
}

/* The reference: a fresh buffer, byte by byte. */
static char *reference(const char *s, size_t *ret_len, int *ret_nul)
{
        size_t n = strlen(s), w = 0;
        char *out = xmalloc(2 * n + 1);

        *ret_nul = 0;
        for (size_t i = 0; i < n; i++) {
                int hi, lo;

                if (s[i] == '%' && i + 2 < n && (hi = hexval((unsigned char) s[i + 1])) >= 0 &&
                    (lo = hexval((unsigned char) s[i + 2])) >= 0) {
                        int v = hi * 16 + lo;

                        if (v == 0) {
                                out[w++] = (char) 0xC0;
                                out[w++] = (char) 0x80;
                                *ret_nul = 1;
                        } else {
                                out[w++] = (char) v;
                        }
                        i += 2;
                } else {
                        out[w++] = s[i];
                }
        }
        out[w] = '\0';
        *ret_len = w;
        return out;
}

static void check_decoding(const char *in)
{
        size_t in_len = strlen(in), ref_len, len;
        int had_nul;
        char *ref = reference(in, &ref_len, &had_nul);
        char *s = xstrdup(in);

        len = http_unescape(s);
        if (len > in_len || strlen(s) != len || len != ref_len || memcmp(s, ref, len) != 0)
                abort();
        if (had_nul && utf8_valid(s, len))
                abort();
        free(ref);
        free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char *target = xmalloc(size + 1), *query, *save = NULL;
        struct http_query_param *params = NULL;
        size_t n = 0;

        memcpy(target, data, size);
        target[size] = '\0'; /* the library hands over C strings: up to the first NUL */
        query = strchr(target, '?');
        if (query)
                *query++ = '\0';
        check_decoding(target);
        params = xcalloc(size + 1, sizeof(*params));
        for (char *kv = query ? strtok_r(query, "&", &save) : NULL; kv;
             kv = strtok_r(NULL, "&", &save)) {
                char *eq = strchr(kv, '=');

                if (eq)
                        *eq++ = '\0';
                check_decoding(kv);
                if (eq)
                        check_decoding(eq);
                (void) http_unescape(kv);
                if (eq)
                        (void) http_unescape(eq);
                params[n].key = kv;
                params[n].value = eq ? eq : "";
                n++;
        }
        {
                struct http_request req = { .query = params, .n_query = n };

                for (size_t i = 0; i < n; i++) {
                        const char *v = http_request_query(&req, params[i].key);
                        size_t first = 0;

                        while (strcmp(params[first].key, params[i].key) != 0)
                                first++;
                        if (!v || v != params[first].value)
                                abort();
                }
        }
        free(params);
        free(target);
        return 0;
}
