/* client.h: the HTTP client of the Kubernetes API that every flexlet component other than the
 * apiserver uses (controllers, node agents, benchmarks, tests). It speaks what kubectl speaks:
 * JSON over HTTP/1.1 (HTTPS with the cluster's CA), a bearer token, watch streams of one JSON
 * event per line. It is the only module that includes libcurl.
 *
 * Threads: a struct api_client owns one libcurl easy handle and therefore one keep-alive
 * connection that successive requests reuse. A client may be used by only one thread at a time
 * (it keeps no lock); give each thread its own client. Different clients are independent and
 * may run concurrently; api_client_new() initialises libcurl once for the process, safely from
 * any thread.
 *
 * Errors: functions return >= 0 on success and -errno on failure, with *reterr (when reterr is
 * not NULL) saying what failed: "request \"GET /api/v1/pods\": cause". An HTTP status such as
 * 404 or 409 is not a failure of api_client_request(): the caller reads *ret_status and the
 * Status object in the body. Transport failures map to errno values:
 *   -ECONNREFUSED  nothing listens at the address       -ETIMEDOUT  connect or idle timeout
 *   -EHOSTUNREACH  name not resolved, host unreachable   -EPROTO     TLS failure (including an
 *   -EFBIG         response or watch line over the cap               untrusted certificate)
 *   -EBADMSG       a body or event that is not valid JSON / not a watch event
 *   -EIO           any other transport failure
 *
 * Limits: a response body is capped at API_CLIENT_MAX_RESPONSE_BYTES and one watch event line
 * at API_CLIENT_MAX_EVENT_BYTES; connecting is given API_CLIENT_CONNECT_TIMEOUT_MS; a request
 * or watch that receives no byte for idle_timeout_ms fails with -ETIMEDOUT (the apiserver
 * sends a watch heartbeat every 10 s, so a healthy idle watch never trips it). */
#ifndef FLEXLET_CLIENT_CLIENT_H
#define FLEXLET_CLIENT_CLIENT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/error.h"
#include "base/macro.h"

#define API_CLIENT_MAX_RESPONSE_BYTES   (64 * 1024 * 1024)
#define API_CLIENT_MAX_EVENT_BYTES      (16 * 1024 * 1024)
#define API_CLIENT_CONNECT_TIMEOUT_MS   10000
#define API_CLIENT_DEFAULT_IDLE_TIMEOUT 60000
#define API_CLIENT_USER_AGENT           "flexlet-client/1"

struct informer_feed;

/* One request as api_client_request would send it, with the client's credentials. */
struct api_loopback_request {
        const char *method;
        const char *path_and_query; /* escaped, as sent over HTTP */
        const char *content_type;   /* NULL: no body */
        const char *body;
        size_t body_len;
        const char *authorization; /* "Bearer <token>", or NULL */
        /* the client certificate (DER) the client would present in its handshake, or NULL */
        const unsigned char *client_cert_der;
        size_t client_cert_len;
        const char *user_agent;
};

/* A way to the API server for a component in the server's own process (K8S: kube-apiserver's
 * loopback client, minus the wire): each request is answered by the server's own handler on
 * the caller's thread, authenticated, authorized and admitted as over HTTPS with the same
 * credentials, without TLS, sockets or the server's connection threads. */
struct api_loopback {
        /* Answers req: 0 with *ret_status and, when ret_json is not NULL, *ret_json (the
         * answer, the caller's own; NULL for an empty body); or -errno with *reterr when the
         * request cannot be answered this way (a streamed or upgraded answer). */
        int (*request)(void *ud, const struct api_loopback_request *req, long *ret_status,
                       json_t **ret_json, struct error **reterr);
        void *ud;
};

struct api_client_options {
        /* "https://127.0.0.1:6443" or "http://..." (tests); a trailing '/' is ignored. Required.
         * Several, comma-separated ("https://a:6443,https://b:6443"), are one cluster's API
         * servers: requests go to one until it stops answering (connection refused, reset or
         * timed out, host unreachable), then to the next. A refused connection is retried at
         * once on the next server (each once); any other such failure is returned and the
         * next request goes to the next server. */
        const char *server_url;
        /* PEM file of the CA that signed the server's certificate (DATA_DIR/pki/ca.crt), then
         * the only CA trusted; NULL: the system's trust store. The peer and host name are
         * verified unless insecure_skip_verify. */
        const char *ca_file;
        /* Bearer token sent as "Authorization: Bearer <token>"; NULL: no Authorization. */
        const char *token;
        /* A token that changes (token-source.h): each request sends the one current then,
         * instead of token. Borrowed: it must outlive every client made with these options. */
        struct api_token_source *token_source;
        /* The credentials informers (informer.h) list and watch with instead of these; NULL:
         * these. K8S: kube-controller-manager's shared informers run as the manager itself
         * (system:kube-controller-manager may list and watch everything), each controller's
         * own requests as its service account. Borrowed, as token_source. */
        const struct api_client_options *list_watch_as;
        /* Informers (informer.h) with these options list and watch through this feed instead
         * of HTTP (a component in the API server's process); the client ignores it. Borrowed:
         * it must outlive every informer started with these options. */
        const struct informer_feed *feed;
        /* api_client_request goes through this instead of HTTP (watches, streams and raw
         * connections still go over HTTP). Borrowed, as feed. */
        const struct api_loopback *loopback;
        /* PEM files of a client certificate and its key presented in the TLS handshake (the
         * API server takes its CN as the user and its O's as the groups, authn.h); both or
         * neither; NULL: none. Read at each new connection. */
        const char *cert_file;
        const char *key_file;
        /* Milliseconds without receiving a byte after which a request or watch fails with
         * -ETIMEDOUT; 0: API_CLIENT_DEFAULT_IDLE_TIMEOUT. */
        long idle_timeout_ms;
        /* Skip verifying the server's certificate and host name (K8S PodLogOptions
         * insecureSkipTLSVerifyBackend); ca_file is then ignored. */
        bool insecure_skip_verify;
};

struct api_client;

/* Creates a client; the options' strings are copied. Fails with -EINVAL for a missing or
 * non-http(s) server_url, -errno (with the file named) when ca_file cannot be read. */
int api_client_new(const struct api_client_options *o, struct api_client **ret,
                   struct error **reterr);
/* Closes the connection and frees the client. NULL-safe; returns NULL. */
struct api_client *api_client_free(struct api_client *c);
DEFINE_CLEANUP(struct api_client, api_client_free, api_client)
#define cleanup_api_client cleanup_of(api_client_free)

/* Ends the transfer running on c in another thread (a watch blocked waiting for events, a
 * request) within about a second, with -ECANCELED, and makes every later request on c fail
 * the same way. The one call on a client that is safe from another thread: it is how an owner
 * stops a thread blocked in a watch before freeing the client. */
void api_client_cancel(struct api_client *c);

/* Sends one request and reads the whole response over the client's keep-alive connection.
 *
 * method: "GET", "POST", "PUT", "PATCH", "DELETE", ...; path_and_query starts with '/' and is
 * sent as given (the caller escapes it). body (NULL: none) of body_len bytes is sent with
 * content_type (NULL with a body: "application/json"); kubectl's patch types are
 * "application/strategic-merge-patch+json", "application/merge-patch+json" and
 * "application/json-patch+json". Every request sends "Accept: application/json".
 *
 * On success (any HTTP status) returns 0, sets *ret_status (if not NULL) to the status code
 * and, when ret_json is not NULL, *ret_json to the decoded body (a new reference, owned by the
 * caller) or to NULL when the body is empty. A body that is not valid JSON fails with -EBADMSG
 * when ret_json is not NULL and is ignored otherwise. */
int api_client_request(struct api_client *c, const char *method, const char *path_and_query,
                       const char *content_type, const char *body, size_t body_len,
                       long *ret_status, json_t **ret_json, struct error **reterr);

/* GET path_and_query: 0 with *ret (the decoded body, a new reference) when the answer is 200;
 * any other status is -EIO "GET <path>: HTTP <status>". */
int api_client_get_json(struct api_client *c, const char *path_and_query, json_t **ret,
                        struct error **reterr);

/* Called once per resource list that api_client_preferred_resources reads: list is the
 * APIResourceList served at prefix ("/api/v1" or "/apis/<group>/<version>"), group its group
 * ("" for the core group). */
typedef void (*api_client_resource_list_fn)(void *ctx, const json_t *list, const char *prefix,
                                            const char *group);
/* K8S: discovery's ServerPreferredResources: calls each for the core group's /api/v1, then for
 * the preferred version of every group /apis lists, in the server's order. Fails with the
 * first request that fails. */
int api_client_preferred_resources(struct api_client *c, api_client_resource_list_fn each,
                                   void *ctx, struct error **reterr);

/* Called once per watch event in the order the server sent them. type is "ADDED", "MODIFIED",
 * "DELETED", "BOOKMARK" or "ERROR" (an ERROR's object is a Status); both type and object are
 * borrowed for the call (json_incref() the object to keep it). Return 0 to go on, > 0 to stop
 * the watch normally, < 0 (-errno) to stop it with that error. */
typedef int (*api_client_watch_fn)(void *ud, const char *type, json_t *object);

/* GETs path_and_query (which should carry watch=true or watch=1) and feeds every event of the
 * newline-delimited stream to on_event; empty lines (heartbeats) are skipped. Events may arrive
 * split across any number of network reads; each line must be one JSON object
 * {"type": string, "object": object}.
 *
 * Returns 0 when the server ends the stream (timeoutSeconds passed, the server stopped), the
 * callback's positive value when it stopped the watch, and -errno on failure: the callback's
 * negative value, -EBADMSG for a line that is not an event, -EPROTO for a stream that ends
 * inside an event, -EFBIG for a line over API_CLIENT_MAX_EVENT_BYTES, a transport error as
 * above, or, when the server answers with a status other than 200, -EINVAL (400, 422),
 * -EACCES (401, 403), -ENOENT (404), -ESTALE (410), -EAGAIN (429) or -EIO (other), with the
 * status code and the Status message in *reterr. After any return the client can be used
 * again; a watch stopped early closes the connection and the next request opens a new one. */
int api_client_watch(struct api_client *c, const char *path_and_query, api_client_watch_fn on_event,
                     void *ud, struct error **reterr);

/* The receiver of a streamed GET (api_client_get_stream). Each callback returns 0 to go on,
 * > 0 to stop the transfer normally, < 0 (-errno) to stop it with that error. */
struct api_client_stream_ops {
        /* Once, as soon as the status line and headers are in (before any body byte, also for
         * an empty body): the HTTP status code. Required. */
        int (*status)(void *ud, long status);
        /* Each piece of the body as it arrives, whatever the status; pieces may split the body
         * anywhere (inside a line, inside a UTF-8 sequence). Required. */
        int (*data)(void *ud, const char *buf, size_t n);
        /* Called about once a second while the transfer runs, so a caller can give up on a
         * quiet stream (its reader went away). May be NULL. */
        int (*idle)(void *ud);
};

/* GETs path_and_query and hands the response over as it arrives, without buffering it: the
 * status first, then the body piece by piece (a kubelet's container log, `follow=true`
 * included). Nothing is decoded. There is no idle timeout (a followed log may be quiet for
 * hours); ops->idle decides when to give up. The connect timeout and TLS rules are the
 * client's.
 *
 * Returns 0 when the server ended the body (any status: the caller saw it), the callback's
 * positive value when a callback stopped the transfer, and -errno on failure: the callback's
 * negative value, or a transport error as above (-ECONNREFUSED, -EPROTO, -EIO ...), including
 * a connection that broke mid-body. After any return the client can be used again. */
int api_client_get_stream(struct api_client *c, const char *path_and_query,
                          const struct api_client_stream_ops *ops, void *ud, struct error **reterr);

/* A raw connection to the client's server, for a request whose answer upgrades the connection
 * (K8S exec and attach, which kube-apiserver proxies to the kubelet byte for byte): TCP and,
 * for https, TLS verified as for any request (ca_file, the host name, the client certificate),
 * after which the caller writes the request and reads everything itself. The client serves
 * nothing else afterwards. -errno with *reterr as for requests (-ECONNREFUSED, -EPROTO for
 * TLS). */
int api_client_connect_raw(struct api_client *c, struct error **reterr);
/* The raw connection's socket, for poll (readable: call api_client_raw_recv; TLS may also hold
 * decrypted bytes the socket does not show, so read until -EAGAIN). */
int api_client_raw_fd(struct api_client *c);
/* Sends all n bytes, blocking. 0, or -EPIPE when the connection failed. */
int api_client_raw_send(struct api_client *c, const void *buf, size_t n);
/* Receives up to n bytes: the count, 0 at the end of the connection, -EAGAIN when nothing is
 * there now, -EIO when it failed. */
ssize_t api_client_raw_recv(struct api_client *c, void *buf, size_t n);

#endif
