/* token-source.h: a service account's bearer token, kept fresh, for a component that runs as
 * that account (K8S: kube-controller-manager --use-service-account-credentials, the dynamic
 * client builder of k8s.io/controller-manager pkg/clientbuilder).
 *
 * A refresher holds the credentials of the one who asks (the controller manager's client
 * certificate) and one thread for all its sources: with them it makes sure each service account
 * NAMESPACE/NAME exists (creating it when it does not) and asks for a token (TokenRequest, bound
 * to the account alone, for the API server, API_TOKEN_SOURCE_SECONDS long), the first as soon as
 * the source is made, the next once 80% of the token's life has passed (upstream's 20% leeway),
 * and 10 s after a failure; a token whose account was deleted or made again stops
 * authenticating at once, so the thread also looks at each account every 30 s and asks for a
 * new token (making the account again) when it changed. One thread, one connection: a
 * controller manager's twenty accounts need a few requests a minute between them.
 *
 * Clients use a source through api_client_options.token_source (client.h): each request
 * carries the token current when it is sent. A source may be read from any thread. */
#ifndef FLEXLET_CLIENT_TOKEN_SOURCE_H
#define FLEXLET_CLIENT_TOKEN_SOURCE_H

#include "base/error.h"
#include "client/client.h"

/* K8S: clientbuilder's defaultExpirationSeconds */
#define API_TOKEN_SOURCE_SECONDS 3600

struct api_token_source;

struct api_token_refresher;

/* Starts the thread that asks for its sources' tokens with manager's credentials (copied).
 * -errno with *reterr when the client cannot be made (a CA file that cannot be read). */
int api_token_refresher_start(const struct api_client_options *manager,
                              struct api_token_refresher **ret, struct error **reterr);
/* Stops the thread (at once) and frees it with the sources still made with it. Every client
 * using one of them must be gone. NULL-safe; returns NULL. */
struct api_token_refresher *api_token_refresher_stop(struct api_token_refresher *rf);

/* A source of service account ns/name's tokens, refreshed by rf's thread; its first token is
 * asked for at once. */
struct api_token_source *api_token_source_start(struct api_token_refresher *rf, const char *ns,
                                                const char *name);
/* Waits up to timeout_ms for the first token: 0 once there is one; the first attempt's error
 * (the request and the server's answer named) when it failed (the thread tries again every 10
 * seconds), -ETIMEDOUT when nothing came. */
int api_token_source_wait(struct api_token_source *s, long timeout_ms, struct error **reterr);
/* The current token (a copy the caller frees and should wipe); "" before the first. */
char *api_token_source_token(struct api_token_source *s);
/* The account's user name, system:serviceaccount:NS:NAME; borrowed. */
const char *api_token_source_user(const struct api_token_source *s);
/* Takes the source off its refresher's thread (waiting for a request it makes for it) and frees
 * it. Every client using it must be gone. NULL-safe; returns NULL. */
struct api_token_source *api_token_source_stop(struct api_token_source *s);

#endif
