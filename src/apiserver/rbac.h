/* rbac.h: RBAC's rule resolver over an in-memory copy of the four kinds, as kube-apiserver's
 * RBAC authorizer does it (K8S: plugin/pkg/auth/authorizer/rbac/rbac.go and
 * pkg/registry/rbac/validation/rule.go DefaultRuleResolver).
 *
 * rbac_new loads every Role, ClusterRole, RoleBinding and ClusterRoleBinding from the store and
 * keeps them current from the store's watches on a thread of its own (as upstream's informers
 * do), so a decision reads no store. The rules that apply to a user in a namespace are those of
 * the roles every ClusterRoleBinding, and then every RoleBinding of that namespace, names for a
 * subject matching the user: a User by name, a Group by one of the user's groups, a
 * ServiceAccount as the user system:serviceaccount:NS:NAME (NS defaulting to the RoleBinding's
 * own). A RoleBinding's roleRef names a Role of its namespace or a ClusterRole, a
 * ClusterRoleBinding's a ClusterRole. A binding whose role does not exist contributes an error
 * (`clusterrole.rbac.authorization.k8s.io "x" not found`) instead of rules.
 *
 * Threads: every function may be called from any thread; rbac_free must be the last call, after
 * every user is done, and before the store closes. */
#ifndef FLEXLET_APISERVER_RBAC_H
#define FLEXLET_APISERVER_RBAC_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "apiserver/authz.h"
#include "base/error.h"
#include "base/macro.h"

struct authn_user;
struct store;

struct rbac;

/* Loads the four kinds from store (borrowed; it must outlive the resolver) and starts the
 * thread that follows their changes. -errno with *reterr when the store cannot be read. */
int rbac_new(struct store *store, struct rbac **ret, struct error **reterr);
struct rbac *rbac_free(struct rbac *r);
DEFINE_CLEANUP(struct rbac, rbac_free, rbac)
#define cleanup_rbac cleanup_of(rbac_free)

/* Where a rule comes from (K8S: the visitor's source): the binding (a ClusterRoleBinding when
 * cluster) and the subject of it that matched the user; borrowed for the visitor's call. */
struct rbac_rule_source {
        bool cluster;
        const json_t *binding;
        const json_t *subject;
};

/* K8S: clusterRoleBindingDescriber and roleBindingDescriber: `ClusterRoleBinding "b" of
 * ClusterRole "r" to Group "g"`, `RoleBinding "b/ns" of Role "r" to ServiceAccount "sa/ns"`.
 * Caller frees. */
char *rbac_rule_source_string(const struct rbac_rule_source *src);

/* Called for each rule that applies (err NULL) or each binding whose role cannot be found (rule
 * NULL, err the message), with the binding it comes from; returns false to stop. The rule is
 * borrowed for the call. */
typedef bool (*rbac_rule_visitor)(void *ud, const struct rbac_rule_source *src, const json_t *rule,
                                  const char *err);

/* K8S: DefaultRuleResolver.VisitRulesFor: the rules user holds in ns ("" : the cluster-scoped
 * ones only), in upstream's order. */
void rbac_visit_rules(struct rbac *r, const struct authn_user *user, const char *ns,
                      rbac_rule_visitor visit, void *ud);

/* K8S: RBACAuthorizer.Authorize: ALLOW when a rule user holds in a->ns allows a
 * (authz_rule_allows), with *ret_reason `RBAC: allowed by <source>` (rbac_rule_source_string);
 * else NO_OPINION, with *ret_reason (malloc'd) "RBAC: <errors>" when bindings named missing
 * roles (upstream's aggregate: one error as it is, more as "[a, b]"). */
enum authz_decision rbac_authorize(struct rbac *r, const struct authz_attributes *a,
                                   char **ret_reason);

/* K8S: appliesToUser for one rbac/v1 Subject object and a binding in ns ("" for a
 * ClusterRoleBinding). */
bool rbac_subject_matches(const json_t *subject, const struct authn_user *user, const char *ns);

/* ---- comparing rules (rbac-rules.c) ---- */

/* K8S: BreakdownRule: rule as rules of one verb, group, resource (and name), or one verb and
 * URL. New reference. */
json_t *rbac_rule_breakdown(const json_t *rule);
/* K8S: ruleCovers: whether owner holds everything the broken-down rule sub asks. */
bool rbac_rule_covers(const json_t *owner, const json_t *sub);
/* K8S: Covers: whether owner_rules hold every rule of servant_rules; *ret_missing (if not NULL;
 * new reference) the broken-down rules they do not. */
bool rbac_rules_cover(const json_t *owner_rules, const json_t *servant_rules, json_t **ret_missing);
/* K8S: CompactRules: rules of one group and resource (and at most one name) that differ only by
 * verb merged into one. New reference. */
json_t *rbac_rules_compact(const json_t *rules);
/* K8S: CompactString: `{APIGroups:[""], Resources:["pods"], Verbs:["create" "get"]}`. */
char *rbac_rule_compact_string(const json_t *rule);

/* ---- the bootstrap policy (rbac-bootstrap.c) ---- */

/* K8S: bootstrappolicy's ClusterRoles and ClusterRoleBindings flexlet keeps (new arrays). */
json_t *rbac_bootstrap_cluster_roles(void);
json_t *rbac_bootstrap_cluster_role_bindings(void);
/* K8S: bootstrappolicy's NamespaceRoles and NamespaceRoleBindings flexlet keeps: Roles and
 * RoleBindings in kube-system (new arrays). */
json_t *rbac_bootstrap_roles(void);
json_t *rbac_bootstrap_role_bindings(void);
/* K8S: the rbac/bootstrap-roles post-start hook, run at every start before the server serves:
 * each bootstrap object is created when missing; one whose rbac.authorization.kubernetes.io/
 * autoupdate annotation is not "false" gets the labels, annotations, aggregation selectors,
 * rules (broken down) and subjects it lacks, what was added to it kept; a binding whose roleRef
 * differs is made again. -errno with *reterr on a store failure. */
int rbac_bootstrap_reconcile(struct store *store, struct error **reterr);

/* ---- escalation checks (rbac-escalation.c) ---- */

struct write_check;
/* K8S: the Role and ClusterRole storages: system:masters, a change of ownerReferences or
 * finalizers only, or `escalate` on the role pass; otherwise the user must hold (in the
 * request's namespace) every rule obj grants, and for a ClusterRole's aggregationRule
 * everything. -EPERM with upstream's message: `user "u" (groups=["g"]) is attempting to grant
 * RBAC permissions not currently held:\n{APIGroups:[""], Resources:["pods"], Verbs:["create"]}`
 * or "must have cluster-admin privileges to use the aggregationRule". */
int rbac_authorize_role_write(const struct write_check *c, const json_t *obj, const json_t *old,
                              struct error **reterr);
/* K8S: the RoleBinding and ClusterRoleBinding storages: system:masters, GC fields only, or
 * `bind` on the role roleRef names (in the binding's namespace) pass; otherwise the user must
 * hold every rule of that role. -ENOENT `roles.rbac.authorization.k8s.io "x" not found` for a
 * missing role, -EINVAL for an unknown kind, -EPERM as above. */
int rbac_authorize_binding_write(const struct write_check *c, const json_t *obj, const json_t *old,
                                 struct error **reterr);

/* The RBAC mode of authz.c's table; ctx->rbac is the resolver (required). */
int authz_rbac_new(const struct authz_context *ctx, void **ret, struct error **reterr);
enum authz_decision authz_rbac_authorize(void *self, const struct authz_attributes *a,
                                         char **ret_reason);
void authz_rbac_free(void *self);
/* K8S: RBACAuthorizer.RulesFor: the rules user holds in ns as authz_rules_add_policy_rule
 * turns them, the bindings' errors, never incomplete. */
void authz_rbac_rules_for(void *self, const struct authn_user *user, const char *ns,
                          struct authz_rules *out);

#endif
