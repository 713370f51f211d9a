/* resources.h: the one table of API resources.
 *
 * Each resource is a const descriptor (like tmux's cmd_entry): names, scope, schema, the field
 * selectors it supports, its Table columns and its strategy hooks. Routing, discovery, OpenAPI,
 * Tables and the generic registry all read this table; adding a kind means adding a
 * descriptor, a schema and (if it has rules) a strategy. */
#ifndef FLEXLET_APISERVER_RESOURCES_H
#define FLEXLET_APISERVER_RESOURCES_H

#include <jansson.h>
#include <stdbool.h>
#include <time.h>

#include "api/field-error.h"
#include "api/schema.h"

struct store;
struct error;
struct authn;
struct authn_user;
struct apiserver;
struct api_target;
struct http_request;
struct http_response;

struct table_column {
        const char *name;
        const char *type;   /* "string", "integer", "date" */
        const char *format; /* "name" for the name column, else "" */
        const char *description;
        int priority; /* 0 shown by default, 1 with -o wide */
};

/* Subresource a write arrives through; each strategy decides what it may change. */
enum api_subresource {
        API_SUB_NONE,
        API_SUB_STATUS,
        API_SUB_RESIZE,
        API_SUB_BINDING,  /* POST only: assigns the pod to a node */
        API_SUB_LOG,      /* GET only: the container's log, from its node's kubelet */
        API_SUB_FINALIZE, /* PUT only: a namespace's spec.finalizers */
        API_SUB_EVICTION, /* POST only: a policy/v1 Eviction of the pod (eviction.c) */
        API_SUB_TOKEN,    /* POST only: a service account's TokenRequest (token-request.c) */
        API_SUB_SCALE,    /* GET, PUT, PATCH: an autoscaling/v1 Scale of spec.replicas (scale.c) */
        API_SUB_APPROVAL, /* GET, PUT, PATCH: a CertificateSigningRequest's approval conditions */
        API_SUB_EXEC,     /* GET (WebSocket), POST: a command in a container (pod-stream.c) */
        API_SUB_ATTACH,   /* GET (WebSocket), POST: a running container's stdio (pod-stream.c) */
        API_SUB_PORTFORWARD, /* GET, POST: refused, not implemented (pod-stream.c) */
        API_SUB_MAX,
};

struct rbac;
struct authz;

/* What a review hook (api_resource.review) is given besides the object; all borrowed. */
struct review_context {
        const struct authn *authn;     /* the server's authenticators; NULL: none */
        const struct authz *authz;     /* the authorization chain; NULL: none (all allowed) */
        const struct authn_user *user; /* who asks */
        const char *ns;                /* the URL's namespace; "" at the cluster scope */
};

/* Who writes what, for a strategy's authorize_write (RBAC's escalation checks). */
struct write_check {
        const struct authn_user *user;
        const char *ns;   /* the request's namespace; "" at the cluster scope */
        const char *name; /* the name the request's URL carries; "" on a create */
        const struct api_resource *res;
        enum api_subresource sub; /* what the write arrives through */
        struct store *store;
        struct rbac *rbac;         /* the rules users hold (rbac.h); NULL: none */
        const struct authz *authz; /* the authorization chain (authz.h); NULL: none */
};

struct resource_strategy {
        /* Fills defaults and server-owned fields of a new object (not meta: the registry does
         * uid, creationTimestamp, generation). */
        void (*prepare_create)(json_t *obj);
        /* After prepare_create: records who creates obj (the authenticated user, NULL for a
         * server without authentication), as a CertificateSigningRequest's requestor (NULL:
         * nothing to record). */
        void (*set_creator)(json_t *obj, const struct authn_user *user);
        void (*validate_create)(const json_t *obj, struct field_error_list *errs);
        /* Turns the requested new object into the one to store, given the stored old one and
         * the subresource (e.g. keeps old status on a main-resource update). Returns a new
         * reference; may change new_obj (the request's own) and return a reference to it. What
         * it takes from old it copies: the object to store shares nothing with the stored one
         * (store.h's update from a known object compares the two). */
        json_t *(*prepare_update)(enum api_subresource sub, json_t *new_obj, const json_t *old);
        void (*validate_update)(enum api_subresource sub, const json_t *new_obj, const json_t *old,
                                struct field_error_list *errs);
        /* Whether a change from old to new bumps metadata.generation. */
        bool (*spec_changed)(const json_t *new_obj, const json_t *old);
        /* K8S: the resource's admission plugins, which may read other objects from the store
         * (NULL: none). admit (mutating) runs after prepare_create or prepare_update and before
         * validation, and may change obj; admit_validate (validating) runs after validation.
         * old is NULL on create. A negative errno refuses the request with
         * (*reterr)->message: -EPERM is a 403 `<plural> "<name>" is forbidden: <message>`, any
         * other errno its status.c code. */
        int (*admit)(struct store *store, enum api_subresource sub, json_t *obj, const json_t *old,
                     struct error **reterr);
        int (*admit_validate)(struct store *store, enum api_subresource sub, const json_t *obj,
                              const json_t *old, struct error **reterr);
        /* K8S: the RBAC registries' policy-based storage (rbac-escalation.c): whether c->user
         * may write obj (old NULL on create), asked after the mutating admission and before
         * validation. -EPERM with (*reterr)->message is a 403 `<plural>.<group> "<name>" is
         * forbidden: <message>`, -ENOENT a 404 with the message as it is (NULL: no check). */
        int (*authorize_write)(const struct write_check *c, const json_t *obj, const json_t *old,
                               struct error **reterr);
        /* K8S: DefaultGarbageCollectionPolicy: a delete that names no propagation policy orphans
         * the dependents (batch/v1 Job's, kept for backward compatibility) instead of the
         * default, deleting them in the background. */
        bool orphan_dependents_by_default;
        const char *orphan_default_warning; /* the Warning such a delete answers with, or NULL */
};

struct api_resource {
        const char *group;       /* "" for the core group */
        const char *version;     /* "v1" */
        const char *api_version; /* "v1", "storage.k8s.io/v1": what objects carry */
        const char *plural;
        const char *singular;
        const char *kind;
        const char *list_kind;
        bool namespaced;
        const char *const *short_names;  /* NULL-terminated */
        const char *const *categories;   /* NULL-terminated, may be NULL */
        const char *const *verbs;        /* NULL-terminated */
        const char *const *subresources; /* NULL-terminated: "status", "resize", "log" */
        const struct schema *schema;
        const char *const *field_labels; /* field selectors supported, NULL-terminated */
        const struct table_column *columns;
        size_t n_columns;
        /* Fills one Table row's cells (json array) for obj. */
        void (*table_row)(const json_t *obj, time_t now, json_t *cells);
        const struct resource_strategy *strategy;
        /* A resource that is never stored, only created (SelfSubjectReview, TokenReview, the
         * authorization.k8s.io reviews): 0 with *ret the object that answers a create of obj
         * (its namespace already set from the URL, or cleared at the cluster scope; checked by
         * strategy->validate_create when it has a strategy), or -errno with *reterr (the
         * Status: EINVAL 400 BadRequest, ...); NULL for a stored resource. */
        int (*review)(const struct review_context *c, const json_t *obj, json_t **ret,
                      struct error **reterr);
        /* A resource that is never stored, only read, its objects made on request
         * (metrics.k8s.io's NodeMetrics and PodMetrics: resource-metrics.h): a GET of one or of
         * the collection (the verbs say which) is answered by it, in JSON; NULL for a stored
         * resource. */
        void (*serve_read)(struct apiserver *s, const struct api_target *t,
                           const struct http_request *req, struct http_response *resp);
};

extern const struct api_resource *const api_resources[];
extern const size_t n_api_resources;

/* Lookups by group and plural, and by group + kind. NULL when unknown. */
/* K8S: the spec-and-status kinds' PrepareForUpdate: the main resource keeps the stored status,
 * the status subresource the stored spec (new_obj, a new reference, with a copy of old's half;
 * apiserver/strategy-core.c). */
json_t *strategy_keep_other_half(enum api_subresource sub, json_t *new_obj, const json_t *old);
/* Whether the spec differs (JSON equality; one side missing counts as a change): what bumps
 * metadata.generation. */
bool strategy_spec_changed(const json_t *new_obj, const json_t *old);

const struct api_resource *api_resource_by_plural(const char *group, const char *plural);
const struct api_resource *api_resource_by_kind(const char *group, const char *kind);
bool api_resource_has_subresource(const struct api_resource *r, const char *sub);
/* The subresource's name in URLs and RBAC ("" for none). */
const char *api_subresource_name(enum api_subresource sub);
/* The subresource named s: 0 with *ret, or -ENOENT. */
int api_subresource_parse(const char *s, enum api_subresource *ret);

/* Strategies defined beside each kind's rules. */
extern const struct resource_strategy pod_strategy;
extern const struct resource_strategy namespace_strategy;
extern const struct resource_strategy node_strategy;
extern const struct resource_strategy event_strategy;
/* apiserver/strategy-config.c */
extern const struct resource_strategy config_map_strategy;
extern const struct resource_strategy secret_strategy;
extern const struct resource_strategy service_account_strategy;
/* apiserver/strategy-batch.c */
extern const struct resource_strategy job_strategy;
/* apiserver/strategy-limitrange.c */
extern const struct resource_strategy limit_range_strategy;
/* apiserver/strategy-quota.c */
extern const struct resource_strategy resource_quota_strategy;
/* apiserver/strategy-policy.c */
extern const struct resource_strategy pod_disruption_budget_strategy;
extern const struct resource_strategy lease_strategy;
extern const struct resource_strategy certificate_signing_request_strategy;
/* apiserver/strategy-apps.c */
extern const struct resource_strategy replica_set_strategy, deployment_strategy;
/* apiserver/strategy-statefulset.c */
extern const struct resource_strategy stateful_set_strategy, controller_revision_strategy;
extern const struct resource_strategy daemon_set_strategy;
/* apiserver/strategy-rbac.c */
extern const struct resource_strategy role_strategy;
extern const struct resource_strategy cluster_role_strategy;
extern const struct resource_strategy role_binding_strategy;
extern const struct resource_strategy cluster_role_binding_strategy;
/* apiserver/strategy-storage.c */
extern const struct resource_strategy storage_class_strategy;
extern const struct resource_strategy persistent_volume_strategy;
extern const struct resource_strategy persistent_volume_claim_strategy;
/* apiserver/authz-review.c */
extern const struct resource_strategy subject_access_review_strategy,
        self_subject_access_review_strategy, local_subject_access_review_strategy;

#endif
