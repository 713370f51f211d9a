/* loopback.c: the in-process loopback of loopback.h: a request's path and query read as the
 * HTTP server reads them (http-server.c: percent escapes decoded, '+' in the query a space,
 * text that is not UTF-8 refused as malformed), handed to api_handle, its answer decoded. */
#include <errno.h>
#include <string.h>

#include "apiserver/api.h"
#include "apiserver/loopback.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/utf8.h"
#include "http/http.h"

struct api_loopback_server {
        struct api_loopback loopback; /* first: the loopback.h pointer is this struct's */
        struct apiserver *server;
};

/* MHD reads a '+' in a query as a space before decoding the escapes. */
static void plus_to_space(char *s)
{
        for (; *s; s++)
                if (*s == '+')
                        *s = ' ';
}

/* The query's parameters, decoded in place in query (a copy the caller owns). *ret_malformed
 * says when one is not UTF-8. */
static struct http_query_param *parse_query(char *query, size_t *ret_n, const char **ret_malformed)
{
        struct http_query_param *params = NULL;
        size_t n = 0;

        for (char *p = query, *next; p && *p; p = next) {
                char *amp = strchr(p, '&'), *eq;

                next = amp ? amp + 1 : NULL;
                if (amp)
                        *amp = '\0';
                if (!*p)
                        continue;
                eq = strchr(p, '=');
                if (eq)
                        *eq = '\0';
                plus_to_space(p);
                if (eq)
                        plus_to_space(eq + 1);
                params = xrealloc(params, (n + 1) * sizeof(*params));
                params[n].key = p;
                params[n].value = eq ? eq + 1 : "";
                if (!utf8_valid(p, http_unescape(p)) ||
                    (eq && !utf8_valid(eq + 1, http_unescape(eq + 1))))
                        *ret_malformed = *ret_malformed ?: "a query parameter is not valid UTF-8";
                n++;
        }
        *ret_n = n;
        return params;
}

/* The answer's body as api_client_request decodes it: the object the handler answered with
 * when it kept one (copied: it may be the server's shared object, the caller's is its own),
 * else the body's text; NULL for an empty body. */
static int answer_json(const struct api_loopback_request *lr, const struct http_response *resp,
                       json_t **ret, struct error **reterr)
{
        json_error_t jerr;

        *ret = NULL;
        if (resp->object)
                *ret = json_deep_copy(resp->object);
        else if (resp->body.len > 0)
                *ret = json_loadb(resp->body.buf, resp->body.len, 0, &jerr);
        else
                return 0;
        if (!*ret)
                return error_set(reterr, EBADMSG,
                                 "request \"%s %s\": invalid JSON in the response: %s", lr->method,
                                 lr->path_and_query, resp->object ? "out of memory" : jerr.text);
        return 0;
}

static int loopback_request(void *ud, const struct api_loopback_request *lr, long *ret_status,
                            json_t **ret_json, struct error **reterr)
{
        struct api_loopback_server *l = ud;
        cleanup_free char *path = xstrdup(lr->path_and_query);
        cleanup_free struct http_query_param *query = NULL;
        char *q = strchr(path, '?');
        struct http_request req = {
                .method = lr->method,
                .path = path,
                .accept = "application/json",
                .content_type = lr->content_type,
                .authorization = lr->authorization,
                .client_cert_der = lr->client_cert_der,
                .client_cert_len = lr->client_cert_len,
                .body = lr->body,
                .body_len = lr->body_len,
                .body_too_large = lr->body_len > API_MAX_BODY_BYTES,
                .remote_addr = "127.0.0.1",
                .user_agent = lr->user_agent,
                .wants_object = true,
        };
        struct http_response resp;
        int r = 0;

        if (q) {
                *q = '\0';
                query = parse_query(q + 1, &req.n_query, &req.malformed);
                req.query = query;
        }
        if (!utf8_valid(path, http_unescape(path)))
                req.malformed = "the path is not valid UTF-8";
        if (req.body_too_large) {
                req.body = NULL;
                req.body_len = 0;
        }
        http_response_init(&resp);
        api_handle(l->server, &req, &resp);
        if (resp.pending.poll)
                http_response_wait(&resp);
        if (resp.stream.read || resp.upgrade.run) {
                r = error_set(reterr, EPROTONOSUPPORT,
                              "request \"%s %s\": a streamed answer does not go through the "
                              "loopback",
                              lr->method, lr->path_and_query);
        } else {
                *ret_status = resp.status ? (long) resp.status : 500;
                if (ret_json)
                        r = answer_json(lr, &resp, ret_json, reterr);
        }
        http_response_release(&resp);
        return r;
}

struct api_loopback *api_loopback_new(struct apiserver *s)
{
        struct api_loopback_server *l = xcalloc(1, sizeof(*l));

        l->server = s;
        l->loopback = (struct api_loopback){ .request = loopback_request, .ud = l };
        return &l->loopback;
}

struct api_loopback *api_loopback_free(struct api_loopback *l)
{
        free(l ? l->ud : NULL);
        return NULL;
}
