/* controller-ref.h: upstream's ControllerRefManager (pkg/controller/controller_ref_manager.go),
 * shared by the ReplicaSet, DaemonSet, StatefulSet and Deployment controllers: an owner claims
 * the objects of its namespace that its selector matches. It keeps the ones it controls, adopts
 * matching orphans (a strategic-merge PATCH adding its controller reference, guarded by the
 * object's uid) and releases the ones it controls that stopped matching (a PATCH deleting that
 * reference). Objects another controller owns are left alone.
 *
 * Runs on the calling controller's pass thread with its loop's client; a failed PATCH leaves the
 * object out (adopt) or as it is (release): the next pass tries again. */
#ifndef FLEXLET_CONTROLLERS_CONTROLLER_REF_H
#define FLEXLET_CONTROLLERS_CONTROLLER_REF_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "controllers/controller-loop.h"

/* K8S: metav1.NewControllerRef with blockOwnerDeletion: owner's controller reference, a new
 * object. */
json_t *controller_ref_new(const char *api_version, const char *kind, const json_t *owner);

struct controller_ref_manager {
        struct controller_loop *loop;   /* the claiming controller's client and informer */
        size_t col;                     /* the informer collection of the claimed objects */
        const json_t *owner;            /* the controller object (borrowed) */
        const char *api_version, *kind; /* the owner's, for its controller reference */
        const char *group_path;         /* of the claimed objects: "/api/v1", "/apis/apps/v1" */
        const char *plural;             /* of the claimed objects: "pods", "replicasets" */
        /* whether obj is the owner's by its selector and anything else the kind asks (a
         * StatefulSet's pods: the name too); NULL: the owner's spec.selector alone */
        bool (*match)(const json_t *obj, void *ctx);
        /* whether obj may be kept or adopted at all (K8S: the ReplicaSet claims active pods
         * only); NULL: all. An owned object this refuses is still released if it stopped
         * matching. */
        bool (*claimable)(const json_t *obj);
        void *ctx;
};

/* K8S: ClaimObject, for every object of objs (the informer's snapshot by key) in the owner's
 * namespace:
 *   - controlled by the owner: kept while it matches or while the owner is being deleted,
 *     released otherwise;
 *   - an orphan: adopted when it matches, neither it nor the owner is being deleted;
 *   - controlled by another: ignored.
 * The answers to the PATCHes go into the informer. Returns the objects the owner controls
 * afterwards (a new array; the adopted ones as the server answered). */
json_t *controller_ref_claim(const struct controller_ref_manager *m, const json_t *objs);

#endif
