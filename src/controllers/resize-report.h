/* resize-report.h: issue 12's ResizedPods events, shared by the ReplicaSet (and through it the
 * Deployment), DaemonSet and StatefulSet controllers: which owned pods run with resources
 * resized in place (workload_pod_resize_diff against the template they were made from), each
 * difference reported once, so `kubectl describe` of the workload lists it under Events.
 *
 * The record of what was reported is a JSON object the controller owns (pod uid -> the
 * difference last reported), used from its pass thread only. Nothing here fails or makes a
 * request: the controller sends the event with its own component name. */
#ifndef FLEXLET_CONTROLLERS_RESIZE_REPORT_H
#define FLEXLET_CONTROLLERS_RESIZE_REPORT_H

#include <jansson.h>

/* The message of the ResizedPods event to send for pod, made from tmpl (a PodTemplateSpec):
 * "Pod NAME runs resized in place: DIFF" when its difference is new or changed since the last
 * report (recorded in seen), NULL when there is none or it was reported already (a pod that
 * runs as its template again is forgotten). Caller frees. */
char *resize_report_pod(json_t *seen, const json_t *tmpl, const json_t *pod);

/* Forgets the pods of seen that are not among pods (the informer's pods by key). */
void resize_report_forget_gone(json_t *seen, const json_t *pods);

#endif
