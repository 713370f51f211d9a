/* authz.h: whether the user a request comes from may do what it asks, as kube-apiserver's
 * authorization decides it.
 *
 * Every request, once authenticated (authn.h), is described by its attributes (K8S: k8s.io/
 * apiserver pkg/endpoints/request/requestinfo.go RequestInfoFactory) and put to the chain of
 * authorizers --authorization-mode names, behind upstream's privileged-group authorizer
 * (system:masters is always allowed; K8S: pkg/kubeapiserver/authorizer/config.go). Each
 * authorizer answers ALLOW, DENY or NO_OPINION; the first ALLOW or DENY decides; when all have
 * no opinion the request is refused (K8S: authorizer/union). A refusal is upstream's 403 Status
 * (authz_respond_forbidden).
 *
 * The modes live in one table in authz.c, one entry each with its constructor, decision and
 * destructor: AlwaysAllow, AlwaysDeny, RBAC (authz-rbac.c), and room for Node.
 *
 * Threads: authz_authorize may be called from any thread at once; the chain is built before
 * the server serves and freed after it stops. */
#ifndef FLEXLET_APISERVER_AUTHZ_H
#define FLEXLET_APISERVER_AUTHZ_H

#include <jansson.h>
#include <stdbool.h>

#include "base/error.h"
#include "base/macro.h"
#include "http/http.h"

struct authn_user;
struct rbac;
struct store;

enum authz_decision { AUTHZ_NO_OPINION, AUTHZ_ALLOW, AUTHZ_DENY };

/* K8S: authorizer.Attributes as RequestInfoFactory fills them. Every string is "" (never NULL)
 * for "none". verb is one of get, list, watch, create, update, patch, delete, deletecollection
 * (or proxy) for a resource request, the lowercase HTTP method for a non-resource request. path
 * is the request's path either way. */
struct authz_attributes {
        const struct authn_user *user;
        const char *verb;
        bool resource_request;
        const char *api_group, *api_version, *resource, *subresource, *ns, *name, *path;
        /* K8S: GetFieldSelector (AuthorizeWithSelectors): the request's fieldSelector as the
         * query gave it, "" for none (the Node mode reads spec.nodeName from it) */
        const char *field_selector;
};

/* The attributes of req from user (borrowed; must outlive *ret), as upstream's
 * RequestInfoFactory: /api/VERSION/... and /apis/GROUP/VERSION/... with at least one part after
 * the version are resource requests (namespaces/NS/RESOURCE[/NAME[/SUBRESOURCE]], a leading
 * watch/ or proxy/ naming the verb), everything else a non-resource request. A GET of a
 * collection is list, or watch with watch=true or 1 (what the server serves as a watch); a
 * fieldSelector requiring metadata.name=N names N; a DELETE of a collection is
 * deletecollection. The strings point into req and into *ret_storage, which the caller frees
 * after the attributes. -EINVAL with upstream's message for a resource path that names nothing
 * (/api/v1/watch). */
int authz_attributes_from_request(const struct http_request *req, const struct authn_user *user,
                                  struct authz_attributes *ret, char **ret_storage,
                                  struct error **reterr);

/* K8S: pkg/apis/rbac/v1 helpers and plugin/pkg/auth/authorizer/rbac RuleAllows: whether one
 * rbac/v1 PolicyRule object (verbs, apiGroups, resources, resourceNames, nonResourceURLs)
 * allows a. A resource request needs its verb (or "*"), its group (or "*"), its resource (or
 * "*"; "pods/status" names a subresource, "*" followed by "/status" that subresource of any
 * resource) and, when the rule names any, its name among resourceNames. A non-resource request
 * needs its verb and its path among nonResourceURLs ("*" any; a trailing "*" a prefix). A
 * malformed rule (a field not an array of strings) allows nothing it does not spell out. */
bool authz_rule_allows(const json_t *rule, const struct authz_attributes *a);

/* What a mode's constructor may use (borrowed, outliving the chain). */
struct authz_context {
        struct store *store; /* the objects (Node's graph) */
        struct rbac *rbac;   /* RBAC's rule resolver (rbac.h), for the RBAC mode */
};

/* K8S: authorizer.RuleResolver.RulesFor's answer, gathered over the chain (union's
 * NewRuleResolvers): authorization/v1 ResourceRule and NonResourceRule objects in the order the
 * modes give them, whether some mode could not list everything it allows, and the errors met
 * (flattened, each message once, as utilerrors' aggregate prints them). */
struct authz_rules {
        json_t *resource_rules;     /* array of {verbs, apiGroups, resources, resourceNames} */
        json_t *non_resource_rules; /* array of {verbs, nonResourceURLs} */
        bool incomplete;
        char **errors;
        size_t n_errors;
};

void authz_rules_init(struct authz_rules *r);
void authz_rules_release(struct authz_rules *r);
/* Adds one error message (copied) unless it is there already. */
void authz_rules_add_error(struct authz_rules *r, const char *msg);
/* K8S: utilerrors.NewAggregate(errs).Error(): "" for none, the message for one, "[a, b]" for
 * more. Caller frees. */
char *authz_rules_error_string(const struct authz_rules *r);
/* K8S: RBACAuthorizer.RulesFor: each rbac/v1 PolicyRule naming resources becomes a
 * ResourceRule, each naming nonResourceURLs a NonResourceRule (a rule naming both, both). */
void authz_rules_add_policy_rule(struct authz_rules *r, const json_t *rule);

/* One authorization mode (an entry of authz.c's table). */
struct authz_mode {
        const char *name; /* as --authorization-mode spells it */
        /* Builds the authorizer's state; -errno with *reterr. */
        int (*new)(const struct authz_context *ctx, void **ret, struct error **reterr);
        /* The decision on a; *ret_reason (malloc'd, may be left NULL) says why, for the
         * refusal's message. Called from any thread. */
        enum authz_decision (*authorize)(void *self, const struct authz_attributes *a,
                                         char **ret_reason);
        /* K8S: the mode's RuleResolver.RulesFor: adds what user may do in ns to out (NULL:
         * the mode lists nothing). Called from any thread. */
        void (*rules_for)(void *self, const struct authn_user *user, const char *ns,
                          struct authz_rules *out);
        void (*free)(void *self);
};

struct authz;

/* The chain for modes, a comma-separated list of upstream's mode names (K8S
 * --authorization-mode), each at most once. -EINVAL with upstream's message for an empty
 * list, an unknown or repeated mode, and for upstream's ABAC and Webhook, which flexlet does
 * not have; a constructor's error otherwise. */
int authz_new(const char *modes, const struct authz_context *ctx, struct authz **ret,
              struct error **reterr);
struct authz *authz_free(struct authz *z);
DEFINE_CLEANUP(struct authz, authz_free, authz)
#define cleanup_authz cleanup_of(authz_free)

/* K8S --authorization-mode's default in flexlet. */
#define AUTHZ_DEFAULT_MODES "Node,RBAC"

/* The chain's decision on a (z NULL: no authorization configured, everything allowed). On a
 * refusal *ret_reason (malloc'd, or left NULL) holds the authorizers' reasons, one per line
 * (K8S: union.go joins them with "\n"). */
enum authz_decision authz_authorize(const struct authz *z, const struct authz_attributes *a,
                                    char **ret_reason);

/* K8S: the union RuleResolver of the modes (pkg/kubeapiserver/authorizer: system:masters' own
 * authorizer is no rule resolver): what user may do in namespace ns, into *ret (initialised
 * here; the caller releases it). z NULL: as AlwaysAllow, everything. */
void authz_rules_for(const struct authz *z, const struct authn_user *user, const char *ns,
                     struct authz_rules *ret);

/* K8S: responsewriters forbiddenMessage: `User "u" cannot VERB resource "R[/SUB]" in API group
 * "G" in the namespace "NS"` (or `at the cluster scope`), `User "u" cannot VERB path "/p"` for
 * a non-resource request. Caller frees. */
char *authz_forbidden_message(const struct authz_attributes *a);

/* K8S: responsewriters.Forbidden with apierrors.NewForbidden: 403, reason Forbidden, details
 * {name, group, kind: the resource}, message `R[.G] ["name"] is forbidden: <forbiddenMessage>`
 * (`forbidden: ...` for a non-resource request), `: reason` appended when there is one. */
void authz_respond_forbidden(struct http_response *resp, const struct authz_attributes *a,
                             const char *reason);

#endif
