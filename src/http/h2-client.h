/* h2-client.h: a blocking HTTP/2 client connection for gRPC calls (grpc/doc/PROTOCOL-HTTP2.md),
 * the etcd store's transport (store/store-etcd.c): nghttp2 for the framing, GnuTLS for TLS (ALPN
 * "h2", the server's certificate checked against a CA file and its host name, an optional client
 * certificate), plain TCP with prior knowledge otherwise. One call at a time on a connection:
 * the request's HEADERS and DATA leave in one write, and whatever the server sent in between
 * (its SETTINGS, its flow-control PINGs) is answered as it arrives.
 *
 * Outcomes are -errno. -ENOTCONN means that nothing of the call reached the server (the
 * connection was closed or going away before it, or the server refused the stream unprocessed):
 * safe to send again anywhere. Any other failure after the request was written leaves its
 * effect unknown, and the connection is not used again (h2_usable). */
#ifndef FLEXLET_HTTP_H2_CLIENT_H
#define FLEXLET_HTTP_H2_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "base/strbuf.h"
#include "http/grpc.h"

/* What a connection is opened with; NULL options: none of them. */
struct h2_options {
        /* TLS (https only) */
        const char *ca_file;   /* NULL: the system's trust store */
        const char *cert_file; /* client certificate, with key_file; NULL: none */
        const char *key_file;
        const char *user_agent; /* the user-agent header of every call; NULL: none */
};

struct h2_conn;

/* Connects to url ("http://HOST:PORT" or "https://HOST:PORT"; a path is not allowed) within
 * timeout_ms and opens the HTTP/2 session. -ECONNREFUSED and friends from the socket,
 * -ETIMEDOUT, -EPROTO when TLS fails (handshake, certificate, no "h2" by ALPN), -EINVAL for a
 * bad url; *reterr says which. */
int h2_connect(const char *url, const struct h2_options *opts, int timeout_ms, struct h2_conn **ret,
               struct error **reterr);
/* Closes the connection (a GOAWAY first when it is still healthy). NULL-safe. */
void h2_close(struct h2_conn *c);
/* Whether calls can still go out on c: it has not failed and the server has not said GOAWAY.
 * Reads (without waiting) what the server sent since the last call. */
bool h2_usable(struct h2_conn *c);

/* What a call brought back. */
struct h2_answer {
        struct strbuf body;        /* the DATA of the answer: gRPC frames */
        struct grpc_status status; /* from the trailers, or a trailers-only answer */
        int http_status;           /* :status, 0 until it came */
        bool too_big;              /* body would have grown past the call's max_body */
};
void h2_answer_init(struct h2_answer *a);
void h2_answer_release(struct h2_answer *a);

/* One unary call: POSTs body (framed gRPC messages) to path and reads the whole answer into
 * *ans (reset first) within timeout_ms. 0 once the stream ended (the gRPC status is the
 * caller's to read); -E2BIG when the answer passed max_body (ans->too_big); -ENOTCONN (not
 * sent), -ETIMEDOUT, -ECONNRESET (the connection failed after the request went out), -EPROTO. */
int h2_call(struct h2_conn *c, const char *path, const void *body, size_t len, size_t max_body,
            int timeout_ms, struct h2_answer *ans, struct error **reterr);

/* Called with each piece of a stream's DATA as it arrives; false stops the stream. */
typedef bool (*h2_data_fn)(void *ud, const uint8_t *data, size_t len);

/* A server-streaming call (etcd's Watch): POSTs body and ends the request stream, then hands
 * every piece of DATA to on_data until the stream ends (0, *status its gRPC status), on_data
 * returns false (-ECANCELED), cancel_fd becomes readable (-ECANCELED), or the connection fails.
 * A connection silent for idle_timeout_ms gets a PING; silent as long again, it is taken for
 * dead (-ETIMEDOUT). The connection is the stream's alone. */
int h2_stream(struct h2_conn *c, const char *path, const void *body, size_t len, int cancel_fd,
              int idle_timeout_ms, h2_data_fn on_data, void *ud, struct grpc_status *status,
              struct error **reterr);

#endif
