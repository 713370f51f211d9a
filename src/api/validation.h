/* validation.h: defaulting, QoS and validation of objects as kube-apiserver 1.33 does them, with
 * upstream's field paths and messages word for word (pkg/apis/core/v1/defaults.go,
 * pkg/apis/core/validation/validation.go, pkg/registry/core/pod/strategy.go, apimachinery's
 * object-meta and name rules).
 *
 * Objects are borrowed jansson values in their v1 wire shape. Validators never fail: they append
 * what is wrong to a struct field_error_list (api/field-error.h) and return the number of errors
 * they added; an empty list means valid. Where upstream iterates a Go map (resource lists,
 * labels), errors come in the object's key order.
 *
 * Quantities must already be canonical strings or JSON numbers (schema_check); an unparsable one
 * is reported with QUANTITY_REGEXP_MESSAGE. */
#ifndef FLEXLET_API_VALIDATION_H
#define FLEXLET_API_VALIDATION_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "api/field-error.h"

/* ---- names (apimachinery util/validation) ---- */

/* K8S: IsDNS1123Subdomain / IsDNS1123Label / IsDNS1035Label / IsQualifiedName /
 * IsValidLabelValue. Each appends one Invalid error per failed rule at `field`, with value as the
 * bad value; returns how many it added. */
size_t validate_dns1123_subdomain(const char *value, const char *field,
                                  struct field_error_list *errs);
size_t validate_dns1123_label(const char *value, const char *field, struct field_error_list *errs);
size_t validate_dns1035_label(const char *value, const char *field, struct field_error_list *errs);
size_t validate_qualified_name(const char *value, const char *field, struct field_error_list *errs);
size_t validate_label_value(const char *value, const char *field, struct field_error_list *errs);
/* K8S: ValidateLabels: every key a qualified name, every value a label value, all reported at
 * `field` itself (upstream does not add the key to the path). labels may be NULL. */
size_t validate_labels(const json_t *labels, const char *field, struct field_error_list *errs);

/* ---- object metadata ---- */

/* Which rule metadata.name follows (upstream's ValidateNameFunc for the kind). */
enum object_name_rule {
        OBJECT_NAME_DNS1123_SUBDOMAIN, /* pods, PVCs, PVs, storage classes, most kinds */
        OBJECT_NAME_DNS1123_LABEL,     /* namespaces */
        OBJECT_NAME_DNS1035_LABEL,     /* services */
        OBJECT_NAME_RULE_MAX,
};

/* K8S: ValidateObjectMeta on create, with the core finalizer rule: name (or "name or
 * generateName is required"), generateName, namespace (required and a DNS label when namespaced,
 * Forbidden "not allowed on this type" otherwise), generation >= 0, labels, annotations (keys and
 * the 256 kB total), ownerReferences, finalizers. The name follows DNS-1123 subdomain rules. */
size_t validate_object_meta_create(const json_t *obj, bool namespaced,
                                   struct field_error_list *errs);
size_t validate_object_meta_create_named(const json_t *obj, bool namespaced,
                                         enum object_name_rule rule, struct field_error_list *errs);
/* K8S: ValidateObjectMetaUpdate: resourceVersion must be set ("must be specified for an
 * update"; the caller copies the stored one in for unconditional updates, as upstream's registry
 * does), generation may not decrease, name/namespace/uid/creationTimestamp/deletionTimestamp/
 * deletionGracePeriodSeconds are immutable ("field is immutable"), no new finalizers while
 * deleting, then labels/annotations/ownerReferences/finalizer names of the new object. */
size_t validate_object_meta_update(const json_t *new_obj, const json_t *old_obj,
                                   struct field_error_list *errs);

/* ---- pods: defaults and QoS ---- */

/* K8S: SetDefaults_Pod/PodSpec/Container/Volume/Probe/... of v1 1.33, plus what the Priority
 * admission plugin sets when no class applies (spec.priority 0, preemptionPolicy
 * PreemptLowerPriority). Every resource list is rounded up to milli precision, requests are
 * defaulted from limits, an unset volume source becomes emptyDir {} (medium stays unset), ports
 * get protocol TCP, hostNetwork pods get hostPort = containerPort. status.phase (Pending) and
 * status.qosClass are filled when absent. resizePolicy is not defaulted (removed upstream in 1.33,
 * kubernetes#128920). Idempotent; pod must be an object. */
void pod_set_defaults(json_t *pod);
/* K8S: podStrategy.PrepareForCreate: status replaced by {phase: Pending, qosClass} and
 * metadata.generation set to 1; call after pod_set_defaults. */
void pod_prepare_for_create(json_t *pod);

/* K8S: ComputePodQOS: "Guaranteed", "Burstable" or "BestEffort". Only cpu and memory count, and
 * only quantities > 0; init containers count like regular ones; pod-level spec.resources, when it
 * has cpu or memory, decides instead of the containers. */
const char *pod_qos_class(const json_t *pod);
/* K8S: GetPodQOS: status.qosClass when set, else pod_qos_class(). */
const char *pod_qos_class_stored(const json_t *pod);

/* ---- pods: validation ---- */

/* K8S: ValidatePodCreate: metadata, pod annotations, the whole spec (volumes, containers, init
 * containers, resources, resize policies, restart/DNS/preemption policies, tolerations, ...),
 * ephemeralContainers forbidden on create. */
size_t validate_pod_create(const json_t *pod, struct field_error_list *errs);
/* K8S: ValidatePodUpdate: metadata update, the new spec, then the immutability rule: only
 * images, activeDeadlineSeconds, added tolerations, removed scheduling gates and a negative
 * terminationGracePeriodSeconds set to 1 may change. Anything else is one Forbidden on "spec":
 * "pod updates may not change fields other than ...\n<diff>" (the diff lists the changed JSON
 * paths; upstream prints Go's cmp.Diff there). */
size_t validate_pod_update(const json_t *new_pod, const json_t *old_pod,
                           struct field_error_list *errs);

/* K8S: dropNonResizeUpdates (pods/resize). Returns a new object (caller owns) to validate with
 * validate_pod_resize and then store: the old spec and status, with containers[*] and
 * initContainers[*] resources and resizePolicy taken from new_pod, and (KEP-6030) every emptyDir
 * volume's sizeLimit taken from new_pod when the volume list keeps its names; metadata is
 * new_pod's except labels, annotations, finalizers, ownerReferences, generation and
 * deletionTimestamp, which stay old_pod's (ResetObjectMetaForStatus). If a container list
 * changed length, a copy of new_pod is returned unchanged; if one was renamed or reordered, that
 * list is new_pod's; either way validation then rejects the request. */
json_t *pod_drop_non_resize_updates(const json_t *new_pod, const json_t *old_pod);
/* K8S: ValidatePodResize, upstream's order, with 1.34+ semantics (memory limits may decrease).
 * new_pod is the result of pod_drop_non_resize_updates. Adds KEP-6030's rules for emptyDir
 * sizeLimit (see validation-pod.c for the messages). */
size_t validate_pod_resize(const json_t *new_pod, const json_t *old_pod,
                           struct field_error_list *errs);

/* K8S: updatePodGeneration: true when the specs differ semantically (quantities by value, absent
 * equal to empty), i.e. when metadata.generation must be bumped. */
bool pod_spec_changed(const json_t *new_pod, const json_t *old_pod);

#endif
