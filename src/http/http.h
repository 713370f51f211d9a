/* http.h: one HTTP request and its response, independent of the HTTP library.
 *
 * http-server.c turns each HTTP request into a struct http_request, calls the handler it was
 * given, and writes the struct http_response back (streaming it when it carries a stream).
 * Handlers (the API server's api_handle, the node's kubelet endpoint) are plain C over these
 * two structs, so unit tests and benchmarks can call them directly. */
#ifndef FLEXLET_HTTP_HTTP_H
#define FLEXLET_HTTP_HTTP_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "base/strbuf.h"

struct http_query_param {
        const char *key;
        const char *value; /* "" for a key without '=' */
};

/* One request header, name as the client spelled it. */
struct http_header {
        const char *name;
        const char *value;
};

/* K8S: authenticationv1.ImpersonateUserHeader and its kin all begin so (compared without
 * regard to case, as HTTP header names are). */
#define HTTP_IMPERSONATE_PREFIX "Impersonate-"

/* Everything borrowed for the handler's call. */
struct http_request {
        const char *method; /* "GET", "POST", ... */
        const char *path;   /* decoded path, no query */
        /* Why the path or query cannot be taken as written (a segment or parameter that is not
         * valid UTF-8, an escaped NUL among them), or NULL. The handler refuses such a request
         * with a 400 in its own format. */
        const char *malformed;
        const struct http_query_param *query; /* all of them, in order */
        size_t n_query;
        const char *accept;        /* may be NULL */
        const char *content_type;  /* may be NULL */
        const char *authorization; /* may be NULL */
        const char *if_none_match; /* may be NULL */
        /* The client's certificate (DER), verified by the server against its client CA; NULL
         * when the client sent none, or one that is not valid (http-server.h). */
        const unsigned char *client_cert_der;
        size_t client_cert_len;
        const char *body;
        size_t body_len;
        /* The body was longer than the server's max_body_bytes and was dropped (body_len 0);
         * the handler answers (kube-apiserver: 413). */
        bool body_too_large;
        /* Who sent it, for the audit log: the peer's address as text ("127.0.0.1", "::1") and
         * the User-Agent, X-Forwarded-For, X-Real-Ip and Audit-ID headers; each may be NULL. */
        const char *remote_addr;
        const char *user_agent;
        const char *forwarded_for;
        const char *real_ip;
        const char *audit_id;
        /* Every header whose name begins with HTTP_IMPERSONATE_PREFIX, in the order sent (a
         * repeated header once per line; the server keeps no more than its header memory
         * holds). */
        const struct http_header *impersonate;
        size_t n_impersonate;
        /* The HTTP library's connection, for http_request_header; NULL for a request built by
         * hand (tests), which then has no other header. */
        const void *lib_conn;
        /* The caller reads a JSON answer from the response's object (an in-process caller):
         * a handler may leave its text unwritten (http_response.defer_json). */
        bool wants_object;
};

/* The value of request header name (case-insensitive), or NULL: for the headers the fields
 * above do not carry (Connection, Upgrade, Sec-WebSocket-*). */
const char *http_request_header(const struct http_request *r, const char *name);

/* Whether a comma-separated header value list (Connection, Sec-WebSocket-Protocol, …) holds
 * token, compared case-insensitively; value NULL: false. */
bool http_header_list_has(const char *value, const char *token);

/* Decodes the percent escapes of s in place (the path, each query key and value, as the server
 * reads them) and returns the new length. A malformed escape is kept as written. An escaped NUL
 * becomes the overlong pair 0xC0 0x80, never valid UTF-8, so the request arrives whole and is
 * refused as not UTF-8 instead of being cut short at the NUL. */
size_t http_unescape(char *s);
/* Decodes the percent escapes of s in place as Go's url.PathUnescape does, refusing what it
 * cannot hold: -EINVAL, s unchanged, when an escape is malformed or is %00 (a C string ends
 * there); 0 otherwise. */
int http_unescape_strict(char *s);

/* The value of the first parameter named key ("" for "?key"), or NULL when absent. */
const char *http_request_query(const struct http_request *r, const char *key);

/* A response body produced piece by piece (watch, follow logs). The server serves many
 * connections from a few threads, so read() must never block: it fills buf with up to max bytes
 * and returns the count, 0 when nothing is ready yet, or -1 at the end. After a 0 the server
 * parks the connection (no thread waits on it) and calls read() again once wake_fd() is
 * readable, once the client hangs up (the stream is then freed), or after at most about a
 * second, so a stream can send heartbeats and honour its own deadlines; a stream without
 * wake_fd is polled every 100 ms. wake_fd (may be NULL) returns a descriptor the stream owns and
 * keeps readable while it has something to say or has ended (an eventfd the producer signals,
 * the read end of a socket pair); read() clears it when it has drained everything. free()
 * releases ctx; it runs exactly once, also when the client went away before the end. */
struct http_stream {
        ssize_t (*read)(void *ctx, char *buf, size_t max);
        void (*free)(void *ctx);
        void *ctx;
        int (*wake_fd)(void *ctx);
};

struct http_response;

/* A response not known yet when the handler returns (a proxied request waiting for the far end's
 * status): the handler leaves the rest of the response alone and sets pending. poll() never
 * blocks: it fills resp (status, body or stream) and returns true once it can, false while it
 * cannot yet. The server parks the connection (no thread waits) and polls again when wake_fd()
 * is readable or after at most about a second. free() releases ctx; it runs exactly once, after
 * the poll that answered true or when the request is abandoned (client gone, server stopping). */
struct http_pending {
        bool (*poll)(void *ctx, struct http_response *resp);
        void (*free)(void *ctx);
        void *ctx;
        int (*wake_fd)(void *ctx);
};

/* A connection handed over after a 101 Switching Protocols (a WebSocket, the upgraded stream of
 * exec and attach). The server writes the 101 with the response's headers, then calls run() on
 * a thread of its own (a session may block on its descriptors for as long as it lasts; there
 * are few of them) with fd, a connected, blocking stream socket: the client's socket for plain
 * HTTP, for HTTPS one end of a local socket pair the server relays through the TLS session.
 * extra/extra_len are bytes the client sent past its request head; a WebSocket client waits for
 * the 101, and the server passes none (0). run() must not close fd; the connection is closed
 * once it returns. When the server stops it shuts the connection down (reads see the end) and
 * waits for every run() to return. free() releases ctx; it runs exactly once, after run() or
 * when the upgrade never happens. */
struct http_upgrade {
        void (*run)(void *ctx, int fd, const char *extra, size_t extra_len);
        void (*free)(void *ctx);
        void *ctx;
};

struct http_response {
        unsigned status;
        const char *content_type; /* static string */
        struct strbuf body;
        /* The value http_response_json serialised into body (a reference of the response's),
         * so a caller that re-encodes the answer (the API server's protobuf) need not parse the
         * body again, and after such a re-encoding the value the body encodes; NULL when body
         * was written any other way. */
        json_t *object;
        /* Set by a caller before its handler runs when it will re-encode a JSON answer from
         * object: http_response_json then keeps only the object and leaves body empty until
         * http_response_json_materialize (no text that would be thrown away). */
        bool defer_json;
        struct strbuf warnings; /* warning texts, one per line: http_response_add_warning */
        size_t warning_written; /* runes the recorder has written (its truncation state) */
        bool warning_truncating;
        unsigned retry_after_s;    /* a Retry-After header of this many seconds; 0: none */
        const char *etag;          /* an ETag header (the quoted tag, static storage); NULL: none */
        char *audit_id;            /* an Audit-Id header (owned, freed on release); NULL: none */
        struct http_stream stream; /* stream.read != NULL: body follows from the stream */
        struct http_pending pending; /* pending.poll != NULL: the response is still to come */
        /* upgrade.run != NULL: status 101 and the connection is handed over (the body unsent) */
        struct http_upgrade upgrade;
        /* more response headers, "Name: value" lines each ending in '\n' (http_response_add_header)
         */
        struct strbuf headers;
};

/* Adds a response header; name and value must hold no line break (the caller's text). */
void http_response_add_header(struct http_response *r, const char *name, const char *value);

/* An empty response: status 0 (sent as 500 if left so), JSON content type. */
void http_response_init(struct http_response *r);
/* Frees the body, the warnings and (when still owned) the stream. */
void http_response_release(struct http_response *r);
/* Serialises obj as the JSON body and keeps a reference to it in r->object (consumes no
 * reference; obj must not change afterwards). */
void http_response_json(struct http_response *r, unsigned status, const json_t *obj);
/* Writes the JSON text of a deferred http_response_json into body (nothing when there is no
 * deferred object) and ends the deferral. */
void http_response_json_materialize(struct http_response *r);
/* A text/plain body. */
void http_response_text(struct http_response *r, unsigned status, const char *text);
/* For callers of a handler in the same process (tests, bootstrap): when r is pending, waits
 * (blocking, on its wake descriptor) until it is complete; r is then an ordinary response. */
void http_response_wait(struct http_response *r);

/* Warnings, as kube-apiserver's warning recorder (apiserver/pkg/endpoints/filters/warning.go)
 * and apimachinery's NewWarningHeader handle them, for any handler (admission, deprecations,
 * unknown fields):
 *
 * http_response_add_warning records text unless it is empty, already recorded, not valid
 * UTF-8, or holds a control character (Go's unicode.IsControl: U+0000-U+001F,
 * U+007F-U+009F), all of which upstream drops silently, or unless the truncated warnings
 * already fill 4096 runes (so a request cannot grow the list, or the cost of adding to it,
 * without bound). The order of recording is kept.
 *
 * http_warning_headers renders the recorded texts as the values of `Warning` headers, one per
 * line of out: `299 - "text"` with '"' and '\' escaped by a backslash. When the texts add up
 * to more than 4096 runes, upstream's truncation applies: every text up to and including the
 * one that crossed the limit is cut to its first 256 runes, and later texts are kept (cut to
 * 256) only while fewer than 4096 runes were written. Returns the number of headers. */
void http_response_add_warning(struct http_response *r, const char *text);
size_t http_warning_headers(const struct strbuf *warnings, struct strbuf *out);

#endif
