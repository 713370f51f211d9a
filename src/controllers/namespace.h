/* namespace.h: the namespace controller (K8S: pkg/controller/namespace). A namespace being
 * deleted (deletionTimestamp set, "kubernetes" in spec.finalizers) is emptied: every namespaced
 * resource that discovery lists as deletable is deleted in it, collection by collection, until
 * nothing is left (pods leave when their node has stopped them); then the controller takes its
 * finalizer off through namespaces/finalize and deletes the namespace, which the API server then
 * removes. */
#ifndef FLEXLET_CONTROLLERS_NAMESPACE_H
#define FLEXLET_CONTROLLERS_NAMESPACE_H

#include <jansson.h>
#include <stdbool.h>

#include "base/error.h"
#include "client/client.h"

/* K8S: the finalizer token of the namespace controller (FinalizerKubernetes). */
#define NAMESPACE_FINALIZER "kubernetes"

/* True when ns is being deleted and still carries NAMESPACE_FINALIZER: the controller's work. */
bool namespace_needs_emptying(const json_t *ns);

/* From one discovery APIResourceList (GET /api/v1 or /apis/G/V), the collection paths of the
 * namespaced resources that can be deleted in namespace ns, appended to out as
 * {"path": "/api/v1/namespaces/NS/pods", "collection": true} (deletecollection) or "collection":
 * false (list, then delete one by one). Subresources ("pods/log") are skipped. prefix is
 * "/api/v1" or "/apis/G/V". */
void namespace_deletable_collections(const json_t *resource_list, const char *prefix,
                                     const char *ns, json_t *out);

struct namespace_controller;

/* Starts the controller (a watch of namespaces, and a pass thread). */
int namespace_controller_start(const struct api_client_options *o,
                               struct namespace_controller **ret, struct error **reterr);
/* Stops it (the pass thread ends after the step it is in and frees it); NULL-safe, returns
 * NULL. */
struct namespace_controller *namespace_controller_stop(struct namespace_controller *x);

#endif
