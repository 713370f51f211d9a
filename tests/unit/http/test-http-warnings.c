/* test-http-warnings.c: the Warning headers as kube-apiserver's warning recorder writes them:
 * what is recorded (dedupe, UTF-8 and control characters), the `299 - "text"` escaping, and
 * the truncation past 4096 runes (upstream's TestTruncation shape at the real limits). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "http/http.h"

static char *headers_of(struct http_response *r, size_t *ret_count)
{
        struct strbuf out;

        strbuf_init(&out);
        *ret_count = http_warning_headers(&r->warnings, &out);
        return strbuf_detach(&out);
}

static void test_recorded(void **state)
{
        static const struct {
                const char *text;
                bool kept;
        } cases[] = {
                { "plain", true },
                { "plain", false }, /* duplicate */
                { "", false },
                { "with \"quotes\" and \\", true },
                { "new\nline", false },
                { "tab\there", false },
                { "del\x7f", false },
                { "c1 \xc2\x85", false },       /* U+0085 is a control character */
                { "bad \xff utf8", false },     /* invalid byte */
                { "overlong \xc0\xaf", false }, /* overlong '/' */
                { "surrogate \xed\xa0\x80", false },
                { "I\xc3\xb1t\xc3\xabrn\xc3\xa2ti\xc3\xb4 \xe2\x9c\x93", true },
        };
        struct http_response r;
        cleanup_free char *h = NULL;
        size_t n, want = 0;

        http_response_init(&r);
        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                http_response_add_warning(&r, cases[i].text);
                want += cases[i].kept;
        }
        h = headers_of(&r, &n);
        assert_int_equal(n, want);
        assert_string_equal(h, "299 - \"plain\"\n"
                               "299 - \"with \\\"quotes\\\" and \\\\\"\n"
                               "299 - \"I\xc3\xb1t\xc3\xabrn\xc3\xa2ti\xc3\xb4 \xe2\x9c\x93\"\n");
        http_response_release(&r);
}

/* A text of n runes: 'x' repeated, or a two-byte rune repeated when wide. */
static char *text_of(size_t runes, char c, bool wide)
{
        char *s = xmalloc(runes * 2 + 1), *p = s;

        for (size_t i = 0; i < runes; i++) {
                if (wide) {
                        *p++ = (char) 0xc3;
                        *p++ = (char) 0xb1;
                } else {
                        *p++ = c;
                }
        }
        *p = '\0';
        return s;
}

static size_t header_runes(const char *line, size_t len)
{
        size_t runes = 0;

        for (size_t i = 0; i < len; i++)
                if (((unsigned char) line[i] & 0xc0) != 0x80)
                        runes++;
        return runes - strlen("299 - \"\"");
}

static void test_truncation(void **state)
{
        struct http_response r;
        cleanup_free char *h = NULL;
        size_t n, i = 0;
        /* 3000 + 1000 fit (4000 runes); 300 crosses the limit: the three are replayed cut to
         * 256 (768 written); then 13 more of 256 fit until 4096 are written, the rest dropped. */
        cleanup_free char *a = text_of(3000, 'a', false), *b = text_of(1000, 'b', true),
                          *c = text_of(300, 'c', false);

        http_response_init(&r);
        http_response_add_warning(&r, a);
        http_response_add_warning(&r, b);
        http_response_add_warning(&r, c);
        for (char k = 'd'; k <= 'z'; k++) {
                cleanup_free char *t = text_of(400, k, false);
                http_response_add_warning(&r, t);
        }
        h = headers_of(&r, &n);
        assert_int_equal(n, 3 + 13);
        for (char *line = h, *nl; (nl = strchr(line, '\n')); line = nl + 1, i++) {
                assert_int_equal(header_runes(line, (size_t) (nl - line)), 256);
                assert_int_equal(line[7], i == 1 ? (char) 0xc3 : (char) ('a' + i));
        }
        http_response_release(&r);
}

static void test_no_truncation_at_limit(void **state)
{
        struct http_response r;
        cleanup_free char *h = NULL;
        cleanup_free char *a = text_of(4000, 'a', false), *b = text_of(96, 'b', false);
        size_t n;

        http_response_init(&r);
        http_response_add_warning(&r, a);
        http_response_add_warning(&r, b);
        h = headers_of(&r, &n);
        assert_int_equal(n, 2);
        assert_int_equal(strlen(h), 4096 + 2 * strlen("299 - \"\"\n"));
        http_response_release(&r);
}

/* Past the limit nothing more is recorded: a request cannot grow the list without bound. */
static void test_recording_stops(void **state)
{
        struct http_response r;
        cleanup_free char *h = NULL;
        char text[16];
        size_t n;

        http_response_init(&r);
        /* 409 ten-rune texts fit (4090 runes); the 410th crosses the limit and, all being
         * shorter than 256, fills it: the rest are not recorded. */
        for (int i = 0; i < 100000; i++) {
                (void) snprintf(text, sizeof(text), "%010d", i);
                http_response_add_warning(&r, text);
        }
        assert_int_equal(r.warnings.len, 410 * 11);
        h = headers_of(&r, &n);
        assert_int_equal(n, 410);
        http_response_release(&r);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_recorded),
                cmocka_unit_test(test_truncation),
                cmocka_unit_test(test_no_truncation_at_limit),
                cmocka_unit_test(test_recording_stops),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
