/* http-server.h: an HTTP/1.1 server (libmicrohttpd, HTTPS through GnuTLS) that hands every
 * request to one handler callback: the API server's api_handle, the node's kubelet endpoint.
 *
 * An event loop (epoll) on a small, fixed pool of threads serves every connection: an idle
 * connection, one in its TLS handshake or one sending its request head costs a socket and a
 * little memory, never a thread. The handler runs on a pool thread and must fill the response
 * completely without waiting long (a pool thread it holds serves nobody else meanwhile). A
 * response with a stream is sent chunked; when the stream has nothing to say the connection is
 * parked off the pool until the stream's wake descriptor fires, the client hangs up or a second
 * passes (see struct http_stream); the stream's free() runs on a pool thread (or in
 * http_server_stop). A response the handler left pending (struct http_pending) is parked the
 * same way until it is ready.
 *
 * Limits against exhaustion: at most max_connections connections in all and
 * max_connections_per_client from one address (past them a new connection is closed at once or
 * waits in the listen queue); the TLS handshake must end within tls_handshake_timeout_ms of the
 * accept and the request head (request line and headers) within request_head_timeout_ms of the
 * handshake (of the accept for plain HTTP), however slowly the client trickles bytes in; a
 * keep-alive connection may wait idle_timeout_s for its next request, which then has
 * request_head_timeout_ms more to arrive whole; and a connection silent for idle_timeout_s in
 * the middle of a request or response is closed too. */
#ifndef FLEXLET_HTTP_HTTP_SERVER_H
#define FLEXLET_HTTP_HTTP_SERVER_H

#include <stddef.h>

#include "base/error.h"
#include "http/http.h"

/* Request bodies over this are dropped and flagged (kube-apiserver's limit is 3 MiB). */
#define HTTP_SERVER_DEFAULT_MAX_BODY (3 * 1024 * 1024)
/* Each connection's libmicrohttpd memory pool, which holds its request line and headers: a head
 * longer than about this is answered by the library itself, 414 (request line) or 431 (headers)
 * with a small HTML page, before the handler sees it. kube-apiserver (Go's net/http) accepts
 * 1 MiB (http.DefaultMaxHeaderBytes) plus 4096 bytes and answers past it a plain-text 431. A pool
 * that size was measured (docs/api.md, "Connections and load"): libmicrohttpd 0.9.75 mmaps a pool
 * over 32 KiB lazily, so a connection that never completes a request costs only what it sent, but
 * it clears the whole pool with memset after every request of a keep-alive connection
 * (MHD_pool_reset in memorypool.c), so each connection that has served a request keeps the whole
 * pool resident: 1,102 KiB each with a 1 MiB pool, 41 KiB with the library's default 32 KiB, and
 * the pool is one size for every connection. 128 KiB lets a 100 KB URL through (about 126 KiB of
 * head in all) for about 136 KiB per kept-alive connection. */
#define HTTP_SERVER_CONNECTION_MEMORY (128 * 1024)
/* Connections in all, and from one client address (IPv4 address or IPv6 address). */
#define HTTP_SERVER_DEFAULT_MAX_CONNECTIONS            4096
#define HTTP_SERVER_DEFAULT_MAX_CONNECTIONS_PER_CLIENT 1024
/* Go's http.Server, as kube-apiserver configures it (k8s.io/apiserver secure_serving.go):
 * ReadHeaderTimeout 32 s, IdleTimeout 90 s; Go bounds the TLS handshake by the same header
 * timeout, flexlet by a shorter one of its own. */
#define HTTP_SERVER_DEFAULT_TLS_HANDSHAKE_TIMEOUT_MS 10000
#define HTTP_SERVER_DEFAULT_REQUEST_HEAD_TIMEOUT_MS  32000
#define HTTP_SERVER_DEFAULT_IDLE_TIMEOUT_S           90

/* Answers one request. req is borrowed for the call; resp arrives initialised
 * (http_response_init) and the server releases it after sending. */
typedef void (*http_handler_fn)(void *ud, const struct http_request *req,
                                struct http_response *resp);

struct http_server_options {
        const char *listen;   /* "HOST:PORT", "[V6]:PORT"; port 0 picks a free one */
        const char *cert_pem; /* serving certificate; NULL serves plain HTTP (tests only) */
        const char *key_pem;
        /* With cert_pem: the CA (PEM) whose client certificates the server asks for and
         * verifies (K8S --client-ca-file; optional for the client, as Go's
         * VerifyClientCertIfGiven). A request on a connection whose client presented a chain
         * valid under it for client authentication carries the leaf in client_cert_der; any
         * other chain is as none. NULL: no client certificates. */
        const char *client_ca_pem;
        http_handler_fn handler; /* required */
        void *ud;                /* handed to handler; must outlive the server */
        size_t max_body_bytes;   /* 0: HTTP_SERVER_DEFAULT_MAX_BODY */
        /* Each 0: its HTTP_SERVER_DEFAULT_* below. */
        unsigned max_connections;
        unsigned max_connections_per_client;
        unsigned tls_handshake_timeout_ms;
        unsigned request_head_timeout_ms;
        unsigned idle_timeout_s;
        unsigned worker_threads; /* 0: four per CPU, between 4 and 32 */
};

struct http_server;

/* Binds and starts serving; the options' strings are copied. -EINVAL for a malformed listen
 * address, a missing handler or a client CA that does not parse, -EADDRINUSE when the address
 * cannot be bound or TLS cannot start, with *reterr saying which. */
int http_server_start(const struct http_server_options *o, struct http_server **ret,
                      struct error **reterr);
/* The port actually bound (useful with port 0). */
unsigned http_server_port(const struct http_server *h);
/* Stops accepting, ends every connection (streams are freed) and frees h. NULL-safe. */
struct http_server *http_server_stop(struct http_server *h);

#endif
