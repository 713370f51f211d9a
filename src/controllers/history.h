/* history.h: the revision history of the workload controllers (K8S: pkg/controller/history and
 * the Deployment's cleanupDeployment): ControllerRevisions ordered by their revision, and the
 * pruning of a history to its revisionHistoryLimit that the DaemonSet, StatefulSet and
 * Deployment controllers share. What counts as a revision (a ControllerRevision, an old
 * ReplicaSet), what keeps one in use and how it is deleted stay each controller's own. */
#ifndef FLEXLET_CONTROLLERS_HISTORY_H
#define FLEXLET_CONTROLLERS_HISTORY_H

#include <jansson.h>
#include <stdbool.h>

/* K8S: history.ByRevision: a json_array_sort comparator of ControllerRevisions, oldest (lowest
 * .revision) first. */
int history_cmp_revision(const void *pa, const void *pb);

struct history_pruner {
        /* whether rev must be kept whatever the limit (a live pod runs it, it is the current
         * revision, it still has replicas); NULL: none */
        bool (*in_use)(const json_t *rev, void *ctx);
        /* deletes rev; returns whether the deletion counts towards the excess (a controller
         * that retries the next one when a DELETE fails says false then) */
        bool (*delete)(const json_t *rev, void *ctx);
        void *ctx;
};

/* Walks revs (a JSON array, sorted oldest first) and deletes the oldest ones not in use until
 * excess deletions have counted; excess <= 0 deletes nothing. Returns how many counted. */
long history_prune(const json_t *revs, long excess, const struct history_pruner *p);

#endif
