/* api.h: the API server's request and response, independent of the HTTP library.
 *
 * http-server.c turns each HTTP request into a struct api_request, calls api_handle(), and
 * writes the struct api_response back (streaming it when it carries a stream). Everything
 * between, routing, authentication, decoding, patching, validation, storage, is plain C over
 * these two structs, so unit tests and benchmarks can call api_handle() directly. */
#ifndef FLEXLET_APISERVER_API_H
#define FLEXLET_APISERVER_API_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/strbuf.h"

struct store;
struct pki;

/* K8S: kube-apiserver refuses request bodies over 3 MiB with 413. */
#define API_MAX_BODY_BYTES (3 * 1024 * 1024)

struct api_query_param {
        const char *key;
        const char *value;
};

struct api_request {
        const char *method; /* "GET", "POST", ... */
        const char *path;   /* decoded path, no query */
        const struct api_query_param *query;
        size_t n_query;
        const char *accept;        /* may be NULL */
        const char *content_type;  /* may be NULL */
        const char *authorization; /* may be NULL */
        const char *body;
        size_t body_len;
};

const char *api_request_query(const struct api_request *r, const char *key);

/* A response body produced piece by piece (watch, follow logs). read() fills buf with up to
 * max bytes and returns the count, 0 when nothing is ready yet (it may block up to about a
 * second first), or -1 at the end. free() releases ctx; it runs exactly once. */
struct api_stream {
        ssize_t (*read)(void *ctx, char *buf, size_t max);
        void (*free)(void *ctx);
        void *ctx;
};

struct api_response {
        unsigned status;
        const char *content_type; /* static string */
        struct strbuf body;
        struct strbuf warnings;   /* Warning header values, one per line */
        struct api_stream stream; /* stream.read != NULL: body follows from the stream */
};

void api_response_init(struct api_response *r);
void api_response_release(struct api_response *r);
/* Serialises obj as the JSON body (consumes no reference). */
void api_response_json(struct api_response *r, unsigned status, const json_t *obj);

struct apiserver_options {
        const char *node_name;
        const char *listen; /* "127.0.0.1:6443", for discovery's serverAddressByClientCIDRs */
        bool require_auth;
};

struct apiserver;

int apiserver_new(struct store *store, const struct pki *pki, const struct apiserver_options *o,
                  struct apiserver **ret);
struct apiserver *apiserver_free(struct apiserver *s);
/* Marks the server ready (GET /readyz answers 200 from then on). */
void apiserver_set_ready(struct apiserver *s, bool ready);

/* Handles one request. Never fails: every error becomes a Status response. */
void api_handle(struct apiserver *s, const struct api_request *req, struct api_response *resp);

#endif
