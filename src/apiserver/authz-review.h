/* authz-review.h: authorization.k8s.io/v1's create-only kinds, as kube-apiserver's REST
 * storages answer them (K8S: pkg/registry/authorization/{subjectaccessreview,
 * selfsubjectaccessreview,localsubjectaccessreview,selfsubjectrulesreview}/rest.go and
 * pkg/apis/authorization/validation).
 *
 * - SubjectAccessReview (cluster-scoped): may spec.user (with spec.groups and spec.uid, taken as
 *   they are: no system:authenticated is added) do spec.resourceAttributes or
 *   spec.nonResourceAttributes? Asked of the server's authorization chain (authz.h), system:masters
 *   included; the answer is the review with status {allowed, denied, reason, evaluationError}.
 * - LocalSubjectAccessReview: the same in one namespace, which resourceAttributes.namespace must
 *   name; nonResourceAttributes are refused.
 * - SelfSubjectAccessReview: the same for the user who asks (`kubectl auth can-i`).
 * - SelfSubjectRulesReview: what the user who asks may do in spec.namespace (`kubectl auth can-i
 *   --list`): the chain's rule resolvers (authz_rules_for), RBAC's rules as RulesFor gives them.
 *
 * The validation is upstream's, with NewInvalid's 422 (`SubjectAccessReview.authorization.k8s.io
 * "" is invalid: spec.user: Invalid value: "": at least one of user or group must be
 * specified`); the hooks run after it (registry.c), on an object the decoder checked against
 * its schema (api/schema-authz.c). */
#ifndef FLEXLET_APISERVER_AUTHZ_REVIEW_H
#define FLEXLET_APISERVER_AUTHZ_REVIEW_H

#include <jansson.h>

#include "base/error.h"

struct review_context;

/* The review hooks of resources.h: 0 with *ret, the answer (a new object). -EINVAL (400) with
 * upstream's message for a SelfSubjectRulesReview without spec.namespace ("no namespace on
 * request"). */
int authz_subject_access_review(const struct review_context *c, const json_t *obj, json_t **ret,
                                struct error **reterr);
int authz_local_subject_access_review(const struct review_context *c, const json_t *obj,
                                      json_t **ret, struct error **reterr);
int authz_self_subject_access_review(const struct review_context *c, const json_t *obj,
                                     json_t **ret, struct error **reterr);
int authz_self_subject_rules_review(const struct review_context *c, const json_t *obj, json_t **ret,
                                    struct error **reterr);

#endif
