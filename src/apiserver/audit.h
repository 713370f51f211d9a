/* audit.h: kube-apiserver's audit log (k8s.io/apiserver pkg/audit, plugin/pkg/audit/log).
 *
 * Three parts, each usable alone:
 *
 * - The policy (audit-policy.c): an audit.k8s.io/v1 Policy read from YAML or JSON and checked as
 *   upstream's policy reader and validation do; audit_policy_evaluate picks, for one request's
 *   attributes, the first rule that matches (K8S pkg/audit/policy/checker.go) and gives its
 *   level, omitted stages and omitManagedFields. A pure function of its inputs.
 * - The log writer (audit-log.c): one line at a time to a file (or standard output for "-"),
 *   rotated by size as gopkg.in/natefinch/lumberjack.v2, which kube-apiserver's log backend
 *   writes through: the full file is renamed NAME-2006-01-02T15-04-05.000.EXT (UTC) and a new
 *   one begun; backups past --audit-log-maxbackup or older than --audit-log-maxage days are
 *   removed. Writes are synchronous under a mutex, as upstream's default "blocking" mode of
 *   the log backend: a request waits for its events' write(2), never for more.
 * - The request events (audit.c): audit.k8s.io/v1 Event JSON lines for each stage of a request
 *   (K8S pkg/endpoints/filters/audit.go, audit_init.go, authn_audit.go), with the Audit-ID
 *   response header.
 *
 * Threads: an audit and its policy are read-only after audit_new, and may be used by every
 * request thread at once; one audit_request belongs to one request (and, for a streamed
 * response, to the stream that ends it).
 *
 * Errors: a write that fails is counted in apiserver_audit_error_total{plugin="log"} and
 * reported on standard error (at most once a minute), never returned to a request: the request
 * goes on, as upstream's blocking backend ignores the errors of its writes. */
#ifndef FLEXLET_APISERVER_AUDIT_H
#define FLEXLET_APISERVER_AUDIT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "base/error.h"
#include "base/macro.h"
#include "http/http.h"

struct authn_user;
struct metrics_registry;

/* K8S: audit.k8s.io Level, in increasing order of detail. */
enum audit_level {
        AUDIT_LEVEL_NONE,
        AUDIT_LEVEL_METADATA,
        AUDIT_LEVEL_REQUEST,
        AUDIT_LEVEL_REQUEST_RESPONSE,
        AUDIT_LEVEL_MAX,
};

/* K8S: audit.k8s.io Stage. flexlet has no panic recovery (a crash ends the process), so it
 * never writes Panic; a policy may still name it. */
enum audit_stage {
        AUDIT_STAGE_REQUEST_RECEIVED,
        AUDIT_STAGE_RESPONSE_STARTED,
        AUDIT_STAGE_RESPONSE_COMPLETE,
        AUDIT_STAGE_PANIC,
        AUDIT_STAGE_MAX,
};

const char *audit_level_to_string(enum audit_level l);
int audit_level_from_string(const char *s, enum audit_level *ret);
const char *audit_stage_to_string(enum audit_stage s);
int audit_stage_from_string(const char *s, enum audit_stage *ret);

/* What a request asks for, as upstream's RequestInfo and authorizer attributes name it. All
 * strings borrowed; NULL or "" when absent. For a resource request verb is get, list, watch,
 * create, update, patch, delete or deletecollection; for any other, the lower-case method. */
struct audit_attributes {
        bool resource_request;
        const char *verb;
        const char *api_group; /* "" for the core group */
        const char *api_version;
        const char *resource;    /* "pods" */
        const char *subresource; /* "resize" */
        const char *ns;
        const char *name;
        const char *path; /* the request's path, for nonResourceURLs */
};

/* ---- the policy ---- */

struct audit_policy;

/* What the policy decides for one request. omit_stages has bit (1 << stage) set for each stage
 * not to write. */
struct audit_decision {
        enum audit_level level;
        unsigned omit_stages;
        bool omit_managed_fields;
};

/* Parses a Policy (YAML or JSON: a JSON document is YAML) as upstream's LoadPolicyFromBytes:
 * kind Policy of audit.k8s.io/v1, upstream's validation (levels, stages, non-resource URLs,
 * groups, resourceNames, resources and non-resource URLs not in one rule), at least one rule.
 * -EINVAL with upstream's message ("failed decoding: ...", "rules[0].level: Required value",
 * "loaded illegal policy with 0 rules"). */
int audit_policy_parse(const char *text, size_t len, struct audit_policy **ret,
                       struct error **reterr);
/* Reads and parses the file at path; the message is upstream's ("loading audit policy file:
 * ...: from file PATH"). */
int audit_policy_load(const char *path, struct audit_policy **ret, struct error **reterr);
struct audit_policy *audit_policy_free(struct audit_policy *p);
DEFINE_CLEANUP(struct audit_policy, audit_policy_free, audit_policy)
#define cleanup_audit_policy cleanup_of(audit_policy_free)

/* K8S: policy.Checker.EvaluatePolicyRule: the first rule whose users, userGroups, verbs and
 * resources/namespaces or nonResourceURLs all match gives the level, its omitStages joined with
 * the policy's, and its omitManagedFields (else the policy's); no rule matching is level None.
 * user may be NULL (no user: matches no rule that names users or groups). */
void audit_policy_evaluate(const struct audit_policy *p, const struct authn_user *user,
                           const struct audit_attributes *a, struct audit_decision *ret);

/* ---- the log writer ---- */

/* K8S --audit-log-*: max_size_mb 0 is lumberjack's default of 100 MB; max_backups 0 keeps
 * every backup; max_age_days 0 removes none for age. */
struct audit_log_options {
        const char *path; /* "-": standard output, never rotated */
        int max_size_mb;
        int max_backups;
        int max_age_days;
        /* the clock for backup names and ages (NULL: the real one); for tests */
        void (*now)(struct timespec *ret);
};

struct audit_log;

/* Opens (creating with mode 0600, as upstream's ensureLogFile) the log's file. -errno with a
 * message naming the path. */
int audit_log_open(const struct audit_log_options *o, struct audit_log **ret,
                   struct error **reterr);
/* Appends line (len bytes, its newline included) in one write, rotating first when it would take
 * the file past the maximum size. -EFBIG (lumberjack's "write length N exceeds maximum file size
 * M") when the line alone is larger; -errno from the file system. Thread-safe. */
int audit_log_write(struct audit_log *l, const char *line, size_t len, struct error **reterr);
struct audit_log *audit_log_free(struct audit_log *l);

/* lumberjack's backup name of path at time t: dir/NAME-2006-01-02T15-04-05.000.EXT in UTC
 * (EXT the part from the last '.' of the base name, possibly none). Caller frees. */
char *audit_log_backup_name(const char *path, const struct timespec *t);

/* ---- the audit of requests ---- */

struct audit_options {
        const char *policy_file; /* --audit-policy-file */
        struct audit_log_options log;
        struct metrics_registry *metrics; /* NULL: none */
};

struct audit;

/* Loads the policy and opens the log. As upstream, a policy that does not load is refused
 * ("loading audit policy file: ..."). Upstream starts without writing anything when
 * --audit-log-path comes without --audit-policy-file; flexlet refuses that start (-EINVAL), so
 * that a log which would stay empty is not mistaken for a quiet server. Negative sizes, counts
 * and ages are refused with upstream's "--audit-log-maxsize N can't be a negative number". */
int audit_new(const struct audit_options *o, struct audit **ret, struct error **reterr);
struct audit *audit_free(struct audit *a);
DEFINE_CLEANUP(struct audit, audit_free, audit)
#define cleanup_audit cleanup_of(audit_free)

struct audit_request;

/* K8S: endpoints/filters/authorization.go: every authorized or refused request's events carry
 * the decision ("allow" or "forbid") and the deciding authorizer's reason ("" for none). */
#define AUDIT_DECISION_ANNOTATION "authorization.k8s.io/decision"
#define AUDIT_REASON_ANNOTATION   "authorization.k8s.io/reason"

/* Begins the audit of req as it arrives: its Audit-ID (the request's Audit-ID header when it
 * sent one, K8S WithAuditInit, else a new UUID) goes into resp's Audit-Id header in every case,
 * audit or not; the time is its requestReceivedTimestamp. NULL when a is NULL. */
struct audit_request *audit_request_begin(const struct audit *a, const struct http_request *req,
                                          struct http_response *resp);
/* Who asks (NULL: nobody authenticated) and what: evaluates the policy and writes the
 * RequestReceived event unless the level is None or the stage omitted. The attributes are
 * copied. For user NULL the events wait for the answer: a 401 is written as upstream's failed
 * authentication (ResponseStarted only); any other answer (health checks) as the anonymous
 * user's. ar may be NULL. */
void audit_request_received(struct audit_request *ar, const struct authn_user *user,
                            const struct audit_attributes *a, const struct http_request *req);
/* K8S: audit.LogImpersonatedUser: the user the request acts as (copied), the Event's
 * impersonatedUser from the next stage written on (the RequestReceived stage, written before
 * impersonation, has none, as upstream's). ar may be NULL. */
void audit_request_impersonated(struct audit_request *ar, const struct authn_user *user);
/* Adds an annotation (key and value copied) to the events still to be written. */
void audit_request_annotate(struct audit_request *ar, const char *key, const char *value);
/* After the handler: a complete response writes ResponseComplete and frees ar; a streamed one
 * (watch, followed log) writes ResponseStarted now and ResponseComplete when the stream ends (ar
 * then belongs to the stream); a pending one waits for its answer the same way. ar may be NULL.
 * req must be the request given to audit_request_received (its body is read here). */
void audit_request_end(struct audit_request *ar, const struct http_request *req,
                       struct http_response *resp);

#endif
