/* serviceaccount.h: the service accounts controller (K8S: pkg/controller/serviceaccount,
 * ServiceAccountsController): every active namespace has a ServiceAccount named "default",
 * created when the namespace appears and again whenever it is deleted. Namespaces that are
 * terminating are left alone. Tokens are not this controller's (nor, yet, flexlet's). */
#ifndef FLEXLET_CONTROLLERS_SERVICEACCOUNT_H
#define FLEXLET_CONTROLLERS_SERVICEACCOUNT_H

#include <jansson.h>

#include "base/error.h"
#include "client/client.h"

/* K8S: the ServiceAccount every namespace gets (serviceaccount.DefaultServiceAccountName). */
#define DEFAULT_SERVICE_ACCOUNT "default"

/* The names of the namespaces (values of the namespaces snapshot, keyed by name) that are
 * active and have no "<ns>/default" in the service accounts snapshot: a new JSON array of
 * strings, in the snapshot's order. */
json_t *serviceaccount_missing(const json_t *namespaces, const json_t *accounts);

struct serviceaccount_controller;

/* Starts the controller (an informer over namespaces and service accounts, and a pass thread). */
int serviceaccount_controller_start(const struct api_client_options *o,
                                    struct serviceaccount_controller **ret, struct error **reterr);
/* Stops it (the pass thread ends after the pass it is in and frees it); NULL-safe, returns
 * NULL. */
struct serviceaccount_controller *
serviceaccount_controller_stop(struct serviceaccount_controller *x);

#endif
