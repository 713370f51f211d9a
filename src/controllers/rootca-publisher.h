/* rootca-publisher.h: the root CA certificate publisher (K8S:
 * pkg/controller/certificates/rootcacertpublisher, RootCACertConfigMapName): every namespace
 * holds a ConfigMap "kube-root-ca.crt" whose data is exactly {"ca.crt": the cluster CA's PEM},
 * annotated kubernetes.io/description with upstream's words; it is created when missing
 * (deleted by hand included) and put back when its data or the annotation changed. It is what
 * the kube-api-access volume projects as ca.crt (apiserver/admission-serviceaccount.h). A
 * namespace being deleted is left alone (upstream tries and ignores the refusal). */
#ifndef FLEXLET_CONTROLLERS_ROOTCA_PUBLISHER_H
#define FLEXLET_CONTROLLERS_ROOTCA_PUBLISHER_H

#include <jansson.h>

#include "base/error.h"
#include "client/client.h"

#define ROOTCA_CONFIG_MAP_NAME "kube-root-ca.crt"
/* K8S: DescriptionAnnotation and Description */
#define ROOTCA_DESCRIPTION_ANNOTATION "kubernetes.io/description"
#define ROOTCA_DESCRIPTION                                                                 \
 "Contains a CA bundle that can be used to verify the kube-apiserver when using internal " \
 "endpoints such as the internal service IP or kubernetes.default.svc. No other usage is " \
 "guaranteed across distributions of Kubernetes clusters."

/* The writes a pass makes (K8S syncNamespace), from the namespaces snapshot (keyed by name) and
 * the kube-root-ca.crt ConfigMaps' (keyed "ns/name"): a new JSON array of
 * {"namespace": NS, "create": true|false, "object": the ConfigMap to POST (create) or PUT (with
 * the resourceVersion read, so a concurrent change is a conflict and the next pass decides
 * again)}, in the snapshot's order; nothing for a namespace whose ConfigMap is right. */
json_t *rootca_publisher_plan(const json_t *namespaces, const json_t *config_maps,
                              const char *ca_pem);

struct rootca_publisher;

/* Starts the controller (an informer over namespaces and the kube-root-ca.crt ConfigMaps, and a
 * pass thread); ca_pem is copied. */
int rootca_publisher_start(const struct api_client_options *o, const char *ca_pem,
                           struct rootca_publisher **ret, struct error **reterr);
/* Stops it; NULL-safe, returns NULL. */
struct rootca_publisher *rootca_publisher_stop(struct rootca_publisher *x);

#endif
