/* expectations.h: upstream's ControllerExpectations (pkg/controller/controller_utils.go) for the
 * controllers that create and delete pods by generated name (ReplicaSet, DaemonSet): what a sync
 * of one owner asked for and the informer has not shown yet, so the next sync does not act on a
 * stale snapshot and create or delete twice.
 *
 * The set is a JSON object the controller owns and frees (json_decref), used from its pass
 * thread only: owner key ("ns/name") -> {"add": [pod keys], "del": [pod keys], "until": epoch s}.
 * None of these functions fail. */
#ifndef FLEXLET_CONTROLLERS_EXPECTATIONS_H
#define FLEXLET_CONTROLLERS_EXPECTATIONS_H

#include <jansson.h>
#include <stdbool.h>
#include <time.h>

/* K8S: controller.ExpectationsTimeout: expectations older than this are given up */
#define EXPECTATIONS_TIMEOUT_S 300

/* K8S: SatisfiedExpectations: whether every create of key's last sync shows in pods (the
 * informer's pods by key) and every delete shows as gone or terminating, or the expectations
 * have expired. A satisfied (or expired) entry is dropped: the next sync starts afresh. */
bool expectations_met(json_t *set, const char *key, const json_t *pods, time_t now);

/* K8S: ExpectCreations / ExpectDeletions, one pod at a time: the pod with informer key pod_key
 * is expected to appear (add) or to go (del). The entry of key is made on first use; it expires
 * EXPECTATIONS_TIMEOUT_S after that. */
void expectations_expect_add(json_t *set, const char *key, const char *pod_key, time_t now);
void expectations_expect_del(json_t *set, const char *key, const char *pod_key, time_t now);

/* K8S: DeleteExpectations for every owner key that is not in owners (the informer's owners by
 * key): the owner is gone. */
void expectations_forget_gone(json_t *set, const json_t *owners);

#endif
