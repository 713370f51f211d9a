/* http-server.h: serves an apiserver over HTTPS (libmicrohttpd + GnuTLS). One thread per
 * connection, so a watch stream may block in its reader without stalling other clients. */
#ifndef FLEXLET_APISERVER_HTTP_SERVER_H
#define FLEXLET_APISERVER_HTTP_SERVER_H

#include "apiserver/api.h"
#include "base/error.h"

struct http_server;

struct http_server_options {
        const char *listen;   /* "HOST:PORT", "[::1]:PORT" */
        const char *cert_pem; /* serving certificate; NULL serves plain HTTP (tests only) */
        const char *key_pem;
};

int http_server_start(struct apiserver *api, const struct http_server_options *o,
                      struct http_server **ret, struct error **reterr);
/* The port actually bound (useful with port 0). */
unsigned http_server_port(const struct http_server *h);
struct http_server *http_server_stop(struct http_server *h);

#endif
