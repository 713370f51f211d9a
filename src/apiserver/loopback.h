/* loopback.h: the loopback (client/client.h, struct api_loopback) that components in the API
 * server's own process (`flexlet serve`'s node agent and controllers) send their requests
 * through instead of loopback HTTPS: each request becomes a struct http_request handed to
 * api_handle on the caller's thread, with the credentials the client would have presented (its
 * certificate, its bearer token), so it is authenticated, authorized, admitted and audited as
 * over the wire. K8S: kube-apiserver's loopback client, minus the wire. */
#ifndef FLEXLET_APISERVER_LOOPBACK_H
#define FLEXLET_APISERVER_LOOPBACK_H

#include "client/client.h"

struct apiserver;

/* A loopback on s (borrowed: it must outlive every client made with the loopback). */
struct api_loopback *api_loopback_new(struct apiserver *s);
/* NULL-safe; returns NULL. */
struct api_loopback *api_loopback_free(struct api_loopback *l);

#endif
