/* daemonset.h: the DaemonSet controller (K8S: pkg/controller/daemon, DaemonSetsController, as of
 * 1.33): one pod per eligible node. A node is eligible when the template's nodeSelector and
 * required node affinity match it and its NoSchedule/NoExecute taints are tolerated, counting the
 * tolerations the controller adds to every daemon pod; a node whose untolerated taints are only
 * NoSchedule keeps a pod it already runs. Pods are created with generateName "<ds>-", an
 * ownerReference to the DaemonSet, the label controller-revision-hash, and a required node
 * affinity on metadata.name naming their node, and are bound by the default scheduler (as
 * upstream since 1.12, ScheduleDaemonSetPods). RollingUpdate (maxUnavailable, or maxSurge with
 * the new pod started beside the old one) and OnDelete; a ControllerRevision per template
 * ("<ds>-<hash>", data the strategic patch that puts the template back, which `kubectl rollout
 * undo` applies) with revisionHistoryLimit old ones kept; the status counts.
 *
 * flexlet has no pod garbage collector: the pods of a node that is gone are deleted here with
 * grace period 0, as upstream's podgc would force-delete them. */
#ifndef FLEXLET_CONTROLLERS_DAEMONSET_H
#define FLEXLET_CONTROLLERS_DAEMONSET_H

#include <jansson.h>
#include <stdbool.h>
#include <time.h>

#include "base/error.h"
#include "client/client.h"

/* K8S: apps/v1 ControllerRevisionHashLabelKey (DefaultDaemonSetUniqueLabelKey) */
#define DAEMONSET_REVISION_HASH_LABEL "controller-revision-hash"

/* K8S: NodeShouldRunDaemonPod: whether ds should run a pod on node (the return), and whether a
 * pod already there should keep running (*ret_continue: false once an untolerated NoExecute
 * taint is on the node or the node stopped matching). */
bool daemonset_node_should_run(const json_t *ds, const json_t *node, bool *ret_continue);

/* K8S: AddOrUpdateDaemonPodTolerations: adds to the pod spec's tolerations (in place) the
 * not-ready and unreachable NoExecute ones, the disk-pressure, memory-pressure, pid-pressure and
 * unschedulable NoSchedule ones, and with hostNetwork the network-unavailable one, each unless
 * an equal toleration is there. */
void daemonset_add_tolerations(json_t *spec);

/* The pod ds creates for node_name at hash (a new object): the template's labels (with the hash
 * label), annotations and finalizers, generateName, the controller reference, the tolerations
 * above, and spec.affinity.nodeAffinity's required terms replaced by one term of matchFields
 * metadata.name In [node_name] (K8S: ReplaceDaemonSetPodNodeNameNodeAffinity). */
json_t *daemonset_new_pod(const json_t *ds, const char *node_name, const char *hash);

/* K8S: GetTargetNodeName: the pod's spec.nodeName, else the node its required affinity's single
 * matchFields metadata.name In term names; NULL when neither. Borrowed from pod. */
const char *daemonset_pod_node(const json_t *pod);

/* K8S: getPatch: the ControllerRevision data of ds's template, {"spec":{"template":{...,
 * "$patch":"replace"}}} (a new object). */
json_t *daemonset_revision_data(const json_t *ds);

struct daemonset_controller;

int daemonset_controller_start(const struct api_client_options *o,
                               struct daemonset_controller **ret, struct error **reterr);
/* NULL-safe, returns NULL. */
struct daemonset_controller *daemonset_controller_stop(struct daemonset_controller *x);

#endif
