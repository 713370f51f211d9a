/* token-source.h: a service account's bearer token, kept fresh, for a component that runs as
 * that account (K8S: kube-controller-manager --use-service-account-credentials, the dynamic
 * client builder of k8s.io/controller-manager pkg/clientbuilder).
 *
 * A source holds the credentials of the one who asks (the controller manager's client
 * certificate): with them it makes sure the service account NAMESPACE/NAME exists (creating it
 * when it does not) and asks for a token (TokenRequest, bound to the account alone, for the API
 * server, API_TOKEN_SOURCE_SECONDS long). A thread of its own asks again once 80% of the
 * token's life has passed (upstream's 20% leeway), and 10 s after a failure; a token whose
 * account was deleted or made again stops authenticating at once, so the thread also looks at
 * the account every 30 s and asks for a new token (making the account again) when it changed.
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

/* Starts the thread that asks for service account ns/name's tokens with manager's credentials
 * (copied), the first at once (so that many sources started together ask at the same time).
 * -errno with *reterr when the client cannot be made (a CA file that cannot be read). */
int api_token_source_start(const struct api_client_options *manager, const char *ns,
                           const char *name, struct api_token_source **ret, struct error **reterr);
/* Waits up to timeout_ms for the first token: 0 once there is one; the first attempt's error
 * (the request and the server's answer named) when it failed (the thread tries again every
 * TOKEN_RETRY_S seconds), -ETIMEDOUT when nothing came. */
int api_token_source_wait(struct api_token_source *s, long timeout_ms, struct error **reterr);
/* The current token (a copy the caller frees and should wipe); "" before the first. */
char *api_token_source_token(struct api_token_source *s);
/* The account's user name, system:serviceaccount:NS:NAME; borrowed. */
const char *api_token_source_user(const struct api_token_source *s);
/* Stops the refresh thread (at once) and frees the source. Every client using it must be gone.
 * NULL-safe; returns NULL. */
struct api_token_source *api_token_source_stop(struct api_token_source *s);

#endif
