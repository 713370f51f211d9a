/* http.c: the request and response values every HTTP handler shares: percent-decoding, query
 * lookup and the response's construction and release. No I/O here; http-server.c does the network.
 */
#include <poll.h>
#include <string.h>
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
        strbuf_init(&r->body);
        strbuf_init(&r->warnings);
        r->stream = (struct http_stream){ 0 };
        r->pending = (struct http_pending){ 0 };
}

void http_response_release(struct http_response *r)
{
        strbuf_release(&r->body);
        strbuf_release(&r->warnings);
        if (r->stream.free)
                r->stream.free(r->stream.ctx);
        r->stream = (struct http_stream){ 0 };
        if (r->pending.free)
                r->pending.free(r->pending.ctx);
        r->pending = (struct http_pending){ 0 };
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
        cleanup_free char *text = json_dump_compact(obj);

        r->status = status;
        r->content_type = "application/json";
        strbuf_reset(&r->body);
        strbuf_addstr(&r->body, text);
}

void http_response_text(struct http_response *r, unsigned status, const char *text)
{
        r->status = status;
        r->content_type = "text/plain; charset=utf-8";
        strbuf_reset(&r->body);
        strbuf_addstr(&r->body, text);
}
