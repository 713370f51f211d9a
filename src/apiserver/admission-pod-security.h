/* admission-pod-security.h: Pod Security Admission, the PodSecurity plugin kube-apiserver 1.33
 * runs by default (K8S: k8s.io/pod-security-admission v0.33: api/, policy/, admission/).
 *
 * A namespace chooses a level (privileged, baseline, restricted) and a policy version
 * ("latest" or "v1.X") for each of three modes with its labels
 * pod-security.kubernetes.io/{enforce,audit,warn}[-version]; unlabelled modes are
 * privileged:latest (upstream's default configuration, no exemptions). A pod created or
 * significantly updated in that namespace is refused when it violates the enforce level (403
 * `pods "x" is forbidden: violates PodSecurity "restricted:latest": ...`) and admitted with a
 * `would violate PodSecurity ...` warning when it violates the warn level. Namespace labels
 * that do not parse are refused (422), and raising a namespace's enforce level warns about
 * the pods already in it that the new level would refuse.
 *
 * The decisions are pure functions over JSON objects (borrowed for the call) and are
 * unit-tested by tables; pod_security_validate is the glue the registry calls, which reads the
 * namespace and its pods from the store, writes refusals and warnings into the response and
 * counts evaluations in pod_security_evaluations_total / pod_security_errors_total.
 *
 * Audit mode: the audit level is evaluated and its violations are counted in
 * pod_security_evaluations_total{mode="audit",decision="deny"}; the audit annotations upstream
 * attaches to the audit event (pod-security.kubernetes.io/audit-violations, enforce-policy,
 * error) are computed in struct psa_decision but go nowhere yet: flexlet has no audit log. */
#ifndef FLEXLET_APISERVER_ADMISSION_POD_SECURITY_H
#define FLEXLET_APISERVER_ADMISSION_POD_SECURITY_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "api/field-error.h"
#include "http/http.h"

struct apiserver;
struct api_target;
struct metrics_registry;
struct metric;

#define PSA_LABEL_PREFIX "pod-security.kubernetes.io/"

enum psa_level {
        PSA_LEVEL_PRIVILEGED,
        PSA_LEVEL_BASELINE,
        PSA_LEVEL_RESTRICTED,
        PSA_LEVEL_MAX,
};

enum psa_mode {
        PSA_MODE_ENFORCE,
        PSA_MODE_AUDIT,
        PSA_MODE_WARN,
        PSA_MODE_MAX,
};

const char *psa_level_to_string(enum psa_level l);
const char *psa_mode_to_string(enum psa_mode m);

/* The policy version: "latest", or v1.<minor> (any minor; versions past the newest check
 * evaluate as the newest, as upstream's registry caps them). */
#define PSA_VERSION_LATEST (-1LL)
/* K8S: the newest MinimumVersion among v0.33's checks (sysctls v1.32). */
#define PSA_VERSION_MAX_MINOR 32
/* K8S: metrics label policy_version: versions newer than the server's (1.33) are "future". */
#define PSA_SERVER_MINOR 33

struct psa_level_version {
        enum psa_level level;
        long long minor; /* PSA_VERSION_LATEST or >= 0 */
};

struct psa_policy {
        struct psa_level_version modes[PSA_MODE_MAX];
};

/* "restricted:latest", "baseline:v1.25": the form upstream quotes in its messages. */
#define PSA_LEVEL_VERSION_STRING_MAX 48
const char *psa_level_version_string(const struct psa_level_version *lv,
                                     char buf[static PSA_LEVEL_VERSION_STRING_MAX]);

/* K8S: api.PolicyToEvaluate over the default policy (privileged:latest in every mode):
 * labels is the namespace's metadata.labels (NULL: none). A label that does not parse adds an
 * Invalid field error at metadata.labels[<key>] (`must be one of privileged, baseline,
 * restricted`, `must be "latest" or "v1.x"`) and falls back as upstream does: an enforce level
 * to restricted, an audit or warn level to privileged, a version to latest. A warn level not
 * set follows an enforce level set stricter than it (and its version, when warn-version is
 * not set). Returns the number of errors added. */
size_t psa_policy_from_labels(const json_t *labels, struct psa_policy *ret,
                              struct field_error_list *errs);

/* The violations of one pod against one level and version, in upstream's order (the
 * baseline checks, then the restricted ones, each set by check ID). */
#define PSA_CHECKS_MAX 20
struct psa_result {
        size_t n;
        char *reasons[PSA_CHECKS_MAX]; /* "allowPrivilegeEscalation != false" */
        char *details[PSA_CHECKS_MAX]; /* "container \"c\" must set ...", may be "" */
};

/* K8S: Evaluator.EvaluatePod + AggregateCheckResults: checks the pod (its metadata and spec
 * objects; either may be NULL) against lv. ret is filled (release it). */
void psa_evaluate(const struct psa_level_version *lv, const json_t *pod_metadata,
                  const json_t *pod_spec, struct psa_result *ret);
void psa_result_release(struct psa_result *r);
/* K8S: AggregateCheckResult.ForbiddenDetail: "reason (detail), reason, ..."; caller frees. */
char *psa_result_forbidden_detail(const struct psa_result *r);
/* K8S: AggregateCheckResult.ForbiddenReason: "reason, reason"; caller frees. */
char *psa_result_forbidden_reason(const struct psa_result *r);

/* K8S: isSignificantPodUpdate: an update is evaluated only when it changes the number of
 * containers or init containers, a container's image, or adds or changes an ephemeral
 * container's image; resizes, metadata and status changes are not re-checked. */
bool psa_pod_update_significant(const json_t *new_pod, const json_t *old_pod);

/* One evaluation as pod_security_evaluations_total counts it. */
struct psa_evaluation {
        bool deny;
        enum psa_mode mode;
        struct psa_level_version lv;
};

/* What PodSecurity decided about one pod request. */
struct psa_decision {
        char *forbidden;           /* NULL: allowed; else "violates PodSecurity ...: ..." */
        json_t *warnings;          /* array of strings */
        json_t *audit_annotations; /* object: "enforce-policy", "audit-violations", "error" */
        struct psa_evaluation evaluations[PSA_MODE_MAX];
        size_t n_evaluations;
};

/* K8S: Admission.EvaluatePod with enforce: the pod (the whole object) against policy, whose
 * parse errors (policy_errs, may be NULL or empty) become the "error" audit annotation. Fills
 * ret (release it). */
void psa_evaluate_pod(const struct psa_policy *policy, const struct field_error_list *policy_errs,
                      const json_t *pod, struct psa_decision *ret);
void psa_decision_release(struct psa_decision *d);

/* K8S: Admission.EvaluatePodsInNamespace: the warnings for raising namespace ns's enforce
 * level to lv, over its pods (a JSON array): at most the first 3000 checked (pods of one
 * controller after the others), for at most deadline_ms of the monotonic clock (0: none).
 * Returns a new array of strings (empty when every pod passes). */
json_t *psa_namespace_pods_warnings(const char *ns, const struct psa_level_version *lv,
                                    const json_t *pods, long long deadline_ms);

/* K8S: Admission.ValidateNamespace: on create (old_ns NULL) the labels must parse; on update
 * they must parse unless they failed the same way before. Returns -EBADMSG with errs filled
 * when refused. Otherwise returns 1 and sets *ret_check when the namespace's existing pods
 * must be checked against a new enforce level (it changed, is not privileged, and is not the
 * same version at a level no stricter), else 0. */
int psa_namespace_admit(const json_t *ns, const json_t *old_ns, struct field_error_list *errs,
                        struct psa_level_version *ret_check);

/* Registers pod_security_evaluations_total and pod_security_errors_total in reg (NULL: no
 * metrics; the returned families stay NULL). Returns -EEXIST when already registered. */
int pod_security_metrics_register(struct metrics_registry *reg, struct metric **ret_evaluations,
                                  struct metric **ret_errors);

/* The validating admission hook for every resource (registry.c): acts on pods and
 * namespaces, lets everything else through. obj is the object about to be stored, old the
 * stored one (NULL on create). Returns 0 to admit (warnings added to resp), or < 0 after
 * writing the refusal into resp: 403 Forbidden for a violation of the enforce level, 422
 * Invalid for namespace labels that do not parse, 500 when the pod's namespace cannot be
 * read. */
int pod_security_validate(struct apiserver *s, const struct api_target *t, const json_t *obj,
                          const json_t *old, struct http_response *resp);

#endif
