/* http.c: the request and response values every HTTP handler shares: percent-decoding, query
 * lookup, warnings and the response's construction and release. No I/O here; http-server.c does
 * the network. */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/json.h"
#include "http/http.h"

static int hex_digit(char c)
{
        if (c >= '0' && c <= '9')
                return c - '0';
        c = (char) (c | 0x20);
        return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* `pods/victim%00x` was once a DELETE of pod "victim": hence the overlong NUL. */
bool http_header_list_has(const char *value, const char *token)
{
        size_t n = strlen(token);

        for (const char *p = value; p && *p;) {
                while (*p == ' ' || *p == ',')
                        p++;
                if (strncasecmp(p, token, n) == 0 && (p[n] == '\0' || p[n] == ',' || p[n] == ' '))
                        return true;
                p = strchr(p, ',');
        }
        return false;
}

size_t http_unescape(char *s)
{
        char *w = s;

        for (const char *r = s; *r;) {
                int hi = r[0] == '%' ? hex_digit(r[1]) : -1, lo = hi >= 0 ? hex_digit(r[2]) : -1;

                if (lo < 0) {
                        *w++ = *r++;
                        continue;
                }
                if (hi == 0 && lo == 0) {
                        *w++ = (char) 0xC0;
                        *w++ = (char) 0x80;
                } else {
                        *w++ = (char) (hi << 4 | lo);
                }
                r += 3;
        }
        *w = '\0';
        return (size_t) (w - s);
}

int http_unescape_strict(char *s)
{
        for (const char *r = strchr(s, '%'); r; r = strchr(r + 3, '%')) {
                int hi = hex_digit(r[1]), lo = hi >= 0 ? hex_digit(r[2]) : -1;

                if (lo < 0 || (hi == 0 && lo == 0))
                        return -EINVAL;
        }
        (void) http_unescape(s);
        return 0;
}

const char *http_request_query(const struct http_request *r, const char *key)
{
        for (size_t i = 0; i < r->n_query; i++)
                if (streq(r->query[i].key, key))
                        return r->query[i].value ? r->query[i].value : "";
        return NULL;
}

void http_response_init(struct http_response *r)
{
        r->status = 0;
        r->content_type = "application/json";
        r->retry_after_s = 0;
        r->etag = NULL;
        r->audit_id = NULL;
        strbuf_init(&r->body);
        r->object = NULL;
        r->defer_json = false;
        strbuf_init(&r->warnings);
        r->warning_written = 0;
        r->warning_truncating = false;
        r->stream = (struct http_stream){ 0 };
        r->pending = (struct http_pending){ 0 };
        r->upgrade = (struct http_upgrade){ 0 };
        strbuf_init(&r->headers);
}

void http_response_release(struct http_response *r)
{
        strbuf_release(&r->body);
        json_decref(r->object);
        r->object = NULL;
        strbuf_release(&r->warnings);
        free(r->audit_id);
        r->audit_id = NULL;
        if (r->stream.free)
                r->stream.free(r->stream.ctx);
        r->stream = (struct http_stream){ 0 };
        if (r->pending.free)
                r->pending.free(r->pending.ctx);
        r->pending = (struct http_pending){ 0 };
        if (r->upgrade.free)
                r->upgrade.free(r->upgrade.ctx);
        r->upgrade = (struct http_upgrade){ 0 };
        strbuf_release(&r->headers);
}

void http_response_add_header(struct http_response *r, const char *name, const char *value)
{
        strbuf_addf(&r->headers, "%s: %s\n", name, value);
}

void http_response_wait(struct http_response *r)
{
        struct http_pending p = r->pending;

        if (!p.poll)
                return;
        r->pending = (struct http_pending){ 0 };
        while (!p.poll(p.ctx, r)) {
                struct pollfd pfd = { .fd = p.wake_fd ? p.wake_fd(p.ctx) : -1, .events = POLLIN };

                if (pfd.fd < 0 || poll(&pfd, 1, 1000) < 0)
                        (void) usleep(100000);
        }
        if (p.free)
                p.free(p.ctx);
}

void http_response_json(struct http_response *r, unsigned status, const json_t *obj)
{
        r->status = status;
        r->content_type = "application/json";
        strbuf_reset(&r->body);
        json_decref(r->object);
        r->object = json_incref((json_t *) obj);
        if (!r->defer_json) {
                cleanup_free char *text = json_dump_compact(obj);
                strbuf_addstr(&r->body, text);
        }
}

void http_response_json_materialize(struct http_response *r)
{
        if (r->defer_json && r->object && r->body.len == 0) {
                cleanup_free char *text = json_dump_compact(r->object);
                strbuf_addstr(&r->body, text);
        }
        r->defer_json = false;
}

void http_response_text(struct http_response *r, unsigned status, const char *text)
{
        r->status = status;
        r->content_type = "text/plain; charset=utf-8";
        json_decref(r->object);
        r->object = NULL;
        strbuf_reset(&r->body);
        strbuf_addstr(&r->body, text);
}

/* K8S: the limits of the warning recorder (apiserver/pkg/endpoints/filters/warning.go). */
#define WARNING_TOTAL_RUNES 4096
#define WARNING_ITEM_RUNES  256

/* Decodes one UTF-8 sequence at s (n bytes left) as Go's utf8.DecodeRuneInString accepts it
 * (no overlong forms, no surrogates, nothing above U+10FFFF). Returns its length, or 0 when
 * the bytes are not valid UTF-8. */
static size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *ret_rune)
{
        size_t len;
        uint32_t r, min;

        if (s[0] < 0x80) {
                *ret_rune = s[0];
                return 1;
        }
        if ((s[0] & 0xe0) == 0xc0) {
                len = 2, r = s[0] & 0x1f, min = 0x80;
        } else if ((s[0] & 0xf0) == 0xe0) {
                len = 3, r = s[0] & 0x0f, min = 0x800;
        } else if ((s[0] & 0xf8) == 0xf0) {
                len = 4, r = s[0] & 0x07, min = 0x10000;
        } else {
                return 0;
        }
        if (n < len)
                return 0;
        for (size_t i = 1; i < len; i++) {
                if ((s[i] & 0xc0) != 0x80)
                        return 0;
                r = (r << 6) | (s[i] & 0x3f);
        }
        if (r < min || r > 0x10ffff || (r >= 0xd800 && r <= 0xdfff))
                return 0;
        *ret_rune = r;
        return len;
}

/* K8S: NewWarningHeader refuses text that is not valid UTF-8 or has a control character. */
static bool warning_text_valid(const char *text)
{
        const unsigned char *s = (const unsigned char *) text;
        size_t n = strlen(text);

        while (n) {
                uint32_t r;
                size_t len = utf8_decode(s, n, &r);

                if (len == 0 || r < 0x20 || (r >= 0x7f && r <= 0x9f))
                        return false;
                s += len;
                n -= len;
        }
        return true;
}

/* The number of UTF-8 runes in s[0..n) (the texts are valid UTF-8). */
static size_t rune_count(const char *s, size_t n)
{
        size_t runes = 0;

        for (size_t i = 0; i < n; i++)
                if (((unsigned char) s[i] & 0xc0) != 0x80)
                        runes++;
        return runes;
}

/* The byte length of the first max runes of s[0..n). */
static size_t rune_prefix(const char *s, size_t n, size_t max)
{
        size_t runes = 0, i;

        for (i = 0; i < n; i++)
                if (((unsigned char) s[i] & 0xc0) != 0x80 && runes++ == max)
                        break;
        return i;
}

void http_response_add_warning(struct http_response *r, const char *text)
{
        size_t n = strlen(text), runes;

        /* K8S: once truncating with 4096 runes written, the recorder takes nothing more. */
        if (r->warning_truncating && r->warning_written >= WARNING_TOTAL_RUNES)
                return;
        if (n == 0 || !warning_text_valid(text))
                return;
        /* K8S: the recorder dedupes: a text already warned about is not repeated. */
        for (const char *line = r->warnings.buf, *nl; (nl = strchr(line, '\n')); line = nl + 1)
                if ((size_t) (nl - line) == n && memcmp(line, text, n) == 0)
                        return;
        strbuf_add(&r->warnings, text, n);
        strbuf_addch(&r->warnings, '\n');
        runes = rune_count(text, n);
        if (r->warning_truncating) {
                r->warning_written += runes < WARNING_ITEM_RUNES ? runes : WARNING_ITEM_RUNES;
        } else if (r->warning_written + runes <= WARNING_TOTAL_RUNES) {
                r->warning_written += runes;
        } else {
                /* K8S: past the limit every recorded text is replayed cut to 256 runes */
                r->warning_truncating = true;
                r->warning_written = 0;
                for (const char *line = r->warnings.buf, *nl; (nl = strchr(line, '\n'));
                     line = nl + 1) {
                        size_t k = rune_count(line, (size_t) (nl - line));
                        r->warning_written += k < WARNING_ITEM_RUNES ? k : WARNING_ITEM_RUNES;
                }
        }
}

static void add_header(struct strbuf *out, const char *text, size_t n)
{
        strbuf_addstr(out, "299 - \"");
        for (size_t i = 0; i < n; i++) {
                if (text[i] == '"' || text[i] == '\\')
                        strbuf_addch(out, '\\');
                strbuf_addch(out, text[i]);
        }
        strbuf_addstr(out, "\"\n");
}

size_t http_warning_headers(const struct strbuf *warnings, struct strbuf *out)
{
        size_t total = 0, written = 0, count = 0;
        bool truncating;
        const char *line, *nl;

        for (line = warnings->buf; (nl = strchr(line, '\n')); line = nl + 1)
                total += rune_count(line, (size_t) (nl - line));
        truncating = total > WARNING_TOTAL_RUNES;
        /* Without truncation every text goes out whole. With it, upstream replays the texts
         * recorded so far (up to the one that crossed the limit) cut to 256 runes each, then
         * keeps adding cut texts while it has written fewer than 4096 runes. */
        total = 0;
        for (line = warnings->buf; (nl = strchr(line, '\n')); line = nl + 1) {
                size_t n = (size_t) (nl - line), runes = rune_count(line, n);
                bool replayed = total <= WARNING_TOTAL_RUNES;

                total += runes;
                if (truncating) {
                        if (!replayed && written >= WARNING_TOTAL_RUNES)
                                break;
                        if (runes > WARNING_ITEM_RUNES) {
                                n = rune_prefix(line, n, WARNING_ITEM_RUNES);
                                runes = WARNING_ITEM_RUNES;
                        }
                }
                add_header(out, line, n);
                written += runes;
                count++;
        }
        return count;
}
