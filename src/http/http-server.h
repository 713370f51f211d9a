/* http-server.h: an HTTP/1.1 server (libmicrohttpd, HTTPS through GnuTLS) that hands every
 * request to one handler callback: the API server's api_handle, the node's kubelet endpoint.
 *
 * One thread per connection, so a handler or a stream may block (a watch waiting for events,
 * a log follow waiting for lines) without stalling other clients. The handler runs on the
 * connection's thread and must fill the response completely; a response with a stream is
 * sent chunked, reading the stream until it ends or the client goes away (a client that
 * hung up is noticed between reads, even while the stream has nothing to say), and the
 * stream's free() then runs on that thread. */
#ifndef FLEXLET_HTTP_HTTP_SERVER_H
#define FLEXLET_HTTP_HTTP_SERVER_H

#include <stddef.h>

#include "base/error.h"
#include "http/http.h"

/* Request bodies over this are dropped and flagged (kube-apiserver's limit is 3 MiB). */
#define HTTP_SERVER_DEFAULT_MAX_BODY (3 * 1024 * 1024)

/* Answers one request. req is borrowed for the call; resp arrives initialised
 * (http_response_init) and the server releases it after sending. */
typedef void (*http_handler_fn)(void *ud, const struct http_request *req,
                                struct http_response *resp);

struct http_server_options {
        const char *listen;   /* "HOST:PORT", "[V6]:PORT"; port 0 picks a free one */
        const char *cert_pem; /* serving certificate; NULL serves plain HTTP (tests only) */
        const char *key_pem;
        http_handler_fn handler; /* required */
        void *ud;                /* handed to handler; must outlive the server */
        size_t max_body_bytes;   /* 0: HTTP_SERVER_DEFAULT_MAX_BODY */
};

struct http_server;

/* Binds and starts serving; the options' strings are copied. -EINVAL for a malformed listen address
 * or a missing handler, -EADDRINUSE when the address cannot be bound or TLS cannot start, with
 * *reterr saying which. */
int http_server_start(const struct http_server_options *o, struct http_server **ret,
                      struct error **reterr);
/* The port actually bound (useful with port 0). */
unsigned http_server_port(const struct http_server *h);
/* Stops accepting, ends every connection (streams are freed) and frees h. NULL-safe. */
struct http_server *http_server_stop(struct http_server *h);

#endif
