/* admission-noderestriction.h: the NodeRestriction admission plugin (K8S:
 * plugin/pkg/admission/noderestriction), on as kubeadm turns it on: a node (system:node:NAME
 * in system:nodes, node-graph.h) may write only its own Node (without the labels upstream
 * keeps from kubelets, without changing its taints), the status of the pods bound to it (not
 * their labels), delete and evict only those pods, create only mirror pods bound to itself that
 * refer to nothing else, update only the status fields of a claim the node grows, update a
 * volume pinned to it only to record its backing file and drop the provisioner's finalizer
 * (flexlet's node-local volumes, docs/storage.md), and request tokens only bound to its own
 * pods. Every other user passes untouched.
 *
 * The decision (node_restriction_decide) is a pure function over the request and the objects it
 * needs; node_restriction_admit reads those from the store and answers the refusal. */
#ifndef FLEXLET_APISERVER_ADMISSION_NODERESTRICTION_H
#define FLEXLET_APISERVER_ADMISSION_NODERESTRICTION_H

#include <jansson.h>

#include "base/error.h"
#include "http/http.h"

struct store;
struct api_target;

/* flexlet: what a node may change in a volume pinned to it: the annotation recording that it
 * made the backing file (its own name), and the provisioner's finalizer it drops once it removed
 * the file. */
#define NODE_PV_ANN_PROVISIONED_ON "local-loop.flexlet.io/provisioned-on"
#define NODE_PV_FINALIZER          "external-provisioner.volume.kubernetes.io/finalizer"

/* K8S: admission.Operation (CONNECT is not admitted by this plugin). */
enum node_restriction_op {
        NODE_RESTRICTION_CREATE,
        NODE_RESTRICTION_UPDATE,
        NODE_RESTRICTION_DELETE,
        NODE_RESTRICTION_OP_MAX,
};

/* "CREATE", "UPDATE", "DELETE" */
const char *node_restriction_op_to_string(enum node_restriction_op op);

/* One request of a node, as the plugin's admission.Attributes carry it. Borrowed. */
struct node_restriction_request {
        const char *node; /* the node's name from node_identity(); "" when the user names none */
        const char *user; /* the user name, for the refusal of an unnamed node */
        enum node_restriction_op op;
        const char *group, *resource, *subresource; /* "" for none */
        const char *ns, *name; /* the URL's; "" when none (a create names no object) */
        /* the new object on create and update (the Eviction of pods/eviction, the
         * TokenRequest of serviceaccounts/token); NULL on delete */
        const json_t *obj;
        const json_t *old; /* the stored object on update, else NULL */
        /* the stored pod a delete, an eviction or a token request names (NULL: none exists) */
        const json_t *pod;
        /* on the create of a mirror pod, the stored Node of the requesting node (NULL: none) */
        const json_t *node_obj;
};

/* K8S: Plugin.Admit for a request of a node: 0 when admitted; -EPERM with the reason (the text
 * upstream's admission.NewForbidden puts after `<resource> "<name>" is forbidden: `), or
 * -ENOENT with upstream's lister message (`pod "x" not found`) when the pod or Node it needs
 * does not exist. */
int node_restriction_decide(const struct node_restriction_request *r, struct error **reterr);

/* The name NewForbidden names in its refusal (extractResourceName): the URL's name, else the
 * object's name, else its generateName, else "Unknown". Borrowed. */
const char *node_restriction_subject_name(const struct node_restriction_request *r);

/* The plugin in the admission chain: a request of t->user (t's resource, subresource and names)
 * with the new object obj and the stored old one (either NULL as the operation has none). For a
 * user who is no node, 0 at once. Otherwise reads what the decision needs from store, and when
 * it refuses writes the 403 (`pods "x" is forbidden: <reason>`) or 404 to resp and returns the
 * negative errno; -errno with a 500 when the store fails. */
int node_restriction_admit(struct store *store, const struct api_target *t,
                           enum node_restriction_op op, const json_t *obj, const json_t *old,
                           struct http_response *resp);

#endif
