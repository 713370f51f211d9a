/* rbac.c: RBAC's rule resolver and authorizer over an in-memory copy of Roles, ClusterRoles and
 * their bindings, loaded from the store and kept current by a thread following its watches.
 * Whether a rule allows a request is authz.c's (authz_rule_allows); who may write roles and
 * bindings is rbac-escalation.c's; the bootstrap policy is rbac-bootstrap.c's. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "apiserver/authn.h"
#include "apiserver/rbac.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/strbuf.h"
#include "base/utf8.h"
#include "store/store.h"

enum rbac_kind {
        RBAC_ROLES,
        RBAC_CLUSTER_ROLES,
        RBAC_ROLE_BINDINGS,
        RBAC_CLUSTER_ROLE_BINDINGS,
        RBAC_KIND_MAX,
};

/* The store's resource names (the plurals). */
static const char *const kind_resource[RBAC_KIND_MAX] = {
        [RBAC_ROLES] = "roles",
        [RBAC_CLUSTER_ROLES] = "clusterroles",
        [RBAC_ROLE_BINDINGS] = "rolebindings",
        [RBAC_CLUSTER_ROLE_BINDINGS] = "clusterrolebindings",
};

struct rbac {
        struct store *store;
        /* Under lock: for each kind, namespace ("" for the cluster-scoped kinds) → name →
         * object. */
        pthread_rwlock_t lock;
        json_t *objects[RBAC_KIND_MAX];
        /* the follower */
        struct store_watch *watch[RBAC_KIND_MAX];
        int stop_fd; /* eventfd: rbac_free asks the thread to end */
        pthread_t thread;
        bool started;
};

/* ---- the copy ---- */

static void put(struct rbac *r, enum rbac_kind k, const json_t *obj)
{
        const char *ns = json_path_string_or_empty(obj, "metadata.namespace");
        const char *name = json_path_string_or_empty(obj, "metadata.name");
        json_t *by_ns = json_object_get(r->objects[k], ns);

        if (!by_ns) {
                by_ns = json_object();
                json_object_set_new(r->objects[k], ns, by_ns);
        }
        json_object_set(by_ns, name, (json_t *) obj);
}

static void drop(struct rbac *r, enum rbac_kind k, const json_t *obj)
{
        const char *ns = json_path_string_or_empty(obj, "metadata.namespace");
        const char *name = json_path_string_or_empty(obj, "metadata.name");
        json_t *by_ns = json_object_get(r->objects[k], ns);

        if (!by_ns)
                return;
        json_object_del(by_ns, name);
        if (json_object_size(by_ns) == 0)
                json_object_del(r->objects[k], ns);
}

/* Lists kind k into the copy (replacing what it held) and watches it from there. */
static int load(struct rbac *r, enum rbac_kind k, struct error **reterr)
{
        cleanup_json json_t *items = NULL;
        uint64_t rv = 0;
        size_t i;
        json_t *obj;
        int ret;

        r->watch[k] = store_watch_stop(r->watch[k]);
        ret = store_list(r->store, kind_resource[k], NULL, &items, &rv, reterr);
        if (ret < 0)
                return ret;
        (void) pthread_rwlock_wrlock(&r->lock);
        json_decref(r->objects[k]);
        r->objects[k] = json_object();
        json_array_foreach(items, i, obj)
                put(r, k, obj);
        (void) pthread_rwlock_unlock(&r->lock);
        return store_watch_start(r->store, kind_resource[k], NULL, rv, &r->watch[k], reterr);
}

/* Applies every event kind k's watch has ready: 0, or -ECANCELED when the watch ended (the
 * store is closing, or the thread fell behind and must list again). */
static int drain(struct rbac *r, enum rbac_kind k)
{
        struct store_event ev;
        int ret;

        while ((ret = store_watch_next(r->watch[k], 0, &ev)) > 0) {
                (void) pthread_rwlock_wrlock(&r->lock);
                if (ev.type == STORE_EVENT_DELETED)
                        drop(r, k, ev.object);
                else
                        put(r, k, ev.object);
                (void) pthread_rwlock_unlock(&r->lock);
                store_event_release(&ev);
        }
        return ret;
}

/* K8S: the informers behind upstream's listers: follow every change; a watch that ends is
 * listed and watched again, at most once a second while it keeps failing. */
static void *follow(void *arg)
{
        struct rbac *r = arg;
        struct pollfd p[RBAC_KIND_MAX + 1];
        int backoff_ms = -1;

        (void) pthread_setname_np(pthread_self(), "rbac-follow");
        for (;;) {
                p[RBAC_KIND_MAX] = (struct pollfd){ .fd = r->stop_fd, .events = POLLIN };
                for (int k = 0; k < RBAC_KIND_MAX; k++)
                        p[k] = (struct pollfd){ .fd = r->watch[k] ? store_watch_fd(r->watch[k])
                                                                  : -1,
                                                .events = POLLIN };
                if (poll(p, RBAC_KIND_MAX + 1, backoff_ms) < 0 && errno != EINTR)
                        break;
                if (p[RBAC_KIND_MAX].revents)
                        break;
                backoff_ms = -1;
                for (int k = 0; k < RBAC_KIND_MAX; k++) {
                        if (r->watch[k] && drain(r, (enum rbac_kind) k) == 0)
                                continue;
                        /* ended, or never started: list again */
                        if (load(r, (enum rbac_kind) k, NULL) < 0 || drain(r, k) < 0) {
                                r->watch[k] = store_watch_stop(r->watch[k]);
                                backoff_ms = 1000;
                        }
                }
        }
        return NULL;
}

int rbac_new(struct store *store, struct rbac **ret, struct error **reterr)
{
        cleanup_rbac struct rbac *r = xcalloc(1, sizeof(*r));
        int ret_code;

        r->store = store;
        r->stop_fd = -1;
        (void) pthread_rwlock_init(&r->lock, NULL);
        for (int k = 0; k < RBAC_KIND_MAX; k++) {
                r->objects[k] = json_object();
                ret_code = load(r, (enum rbac_kind) k, reterr);
                if (ret_code < 0)
                        return error_wrap(reterr, "rbac: %s", kind_resource[k]);
        }
        r->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (r->stop_fd < 0)
                return error_set(reterr, errno, "rbac: eventfd: %s", strerror(errno));
        if (pthread_create(&r->thread, NULL, follow, r) != 0)
                return error_set(reterr, EAGAIN, "rbac: cannot start the watch thread");
        r->started = true;
        *ret = TAKE_PTR(r);
        return 0;
}

struct rbac *rbac_free(struct rbac *r)
{
        if (!r)
                return NULL;
        if (r->started) {
                (void) eventfd_write(r->stop_fd, 1);
                (void) pthread_join(r->thread, NULL);
        }
        if (r->stop_fd >= 0)
                (void) close(r->stop_fd);
        for (int k = 0; k < RBAC_KIND_MAX; k++) {
                store_watch_stop(r->watch[k]);
                json_decref(r->objects[k]);
        }
        (void) pthread_rwlock_destroy(&r->lock);
        free(r);
        return NULL;
}

/* ---- the resolver ---- */

static const char *str(const json_t *o, const char *key)
{
        const char *s = json_string_value(json_object_get(o, key));
        return s ? s : "";
}

/* K8S: serviceaccount.MatchesUsername: user is system:serviceaccount:NS:NAME. */
static bool sa_matches(const char *ns, const char *name, const char *user)
{
        static const char prefix[] = "system:serviceaccount:";
        size_t pl = sizeof(prefix) - 1, nl = strlen(ns);

        return strncmp(user, prefix, pl) == 0 && strncmp(user + pl, ns, nl) == 0 &&
               user[pl + nl] == ':' && streq(user + pl + nl + 1, name);
}

bool rbac_subject_matches(const json_t *subject, const struct authn_user *user, const char *ns)
{
        const char *kind = str(subject, "kind"), *name = str(subject, "name");

        if (streq(kind, "User"))
                return streq(user->name, name);
        if (streq(kind, "Group")) {
                for (size_t i = 0; user->groups && user->groups[i]; i++)
                        if (streq(user->groups[i], name))
                                return true;
                return false;
        }
        if (streq(kind, "ServiceAccount")) {
                /* K8S: the subject's namespace, else the binding's */
                const char *sa_ns = str(subject, "namespace")[0] ? str(subject, "namespace") : ns;

                return sa_ns[0] && sa_matches(sa_ns, name, user->name);
        }
        return false;
}

/* K8S: appliesTo: the first subject of binding that matches user, or NULL. */
static const json_t *applies(const json_t *binding, const struct authn_user *user, const char *ns)
{
        size_t i;
        json_t *s;

        json_array_foreach(json_object_get(binding, "subjects"), i, s)
                if (rbac_subject_matches(s, user, ns))
                        return s;
        return NULL;
}

static void add_go_quoted(struct strbuf *sb, const char *s)
{
        utf8_go_quote(sb, s, strlen(s));
}

char *rbac_rule_source_string(const struct rbac_rule_source *src)
{
        const char *name = json_path_string_or_empty(src->binding, "metadata.name");
        const char *bns = json_path_string_or_empty(src->binding, "metadata.namespace");
        const char *kind = str(src->subject, "kind");
        struct strbuf sb;
        cleanup_free char *binding_name =
                src->cluster ? xstrdup(name) : xasprintf("%s/%s", name, bns);

        strbuf_init(&sb);
        strbuf_addstr(&sb, src->cluster ? "ClusterRoleBinding " : "RoleBinding ");
        add_go_quoted(&sb, binding_name);
        strbuf_addf(&sb, " of %s ", json_path_string_or_empty(src->binding, "roleRef.kind"));
        add_go_quoted(&sb, json_path_string_or_empty(src->binding, "roleRef.name"));
        /* K8S: describeSubject: a service account as "name/namespace" (the binding's namespace
         * when the subject names none) */
        strbuf_addf(&sb, " to %s ", kind);
        if (streq(kind, "ServiceAccount")) {
                const char *sns = str(src->subject, "namespace");
                cleanup_free char *who =
                        xasprintf("%s/%s", str(src->subject, "name"), sns[0] ? sns : bns);
                add_go_quoted(&sb, who);
        } else {
                add_go_quoted(&sb, str(src->subject, "name"));
        }
        return strbuf_detach(&sb);
}

/* K8S: GetRoleReferenceRules: the role's rules, or NULL with *ret_err (malloc'd). Under the
 * read lock. */
static const json_t *role_rules(struct rbac *r, const json_t *ref, const char *ns, char **ret_err)
{
        const char *kind = str(ref, "kind"), *name = str(ref, "name");
        const json_t *role;

        if (streq(kind, "Role"))
                role = json_object_get(json_object_get(r->objects[RBAC_ROLES], ns), name);
        else if (streq(kind, "ClusterRole"))
                role = json_object_get(json_object_get(r->objects[RBAC_CLUSTER_ROLES], ""), name);
        else {
                *ret_err = xasprintf("unsupported role reference kind: \"%s\"", kind);
                return NULL;
        }
        if (!role) {
                /* K8S: the listers' NewNotFound(v1.Resource("role"|"clusterrole"), name) */
                *ret_err = xasprintf("%s.rbac.authorization.k8s.io \"%s\" not found",
                                     streq(kind, "Role") ? "role" : "clusterrole", name);
                return NULL;
        }
        return json_object_get(role, "rules");
}

/* Visits the rules of the bindings of kind k in namespace bns that apply; false when the
 * visitor stopped. Under the read lock. */
static bool visit_bindings(struct rbac *r, enum rbac_kind k, const char *bns,
                           const struct authn_user *user, rbac_rule_visitor visit, void *ud)
{
        const char *name;
        json_t *b;

        json_object_foreach(json_object_get(r->objects[k], bns), name, b) {
                char *err = NULL;
                const json_t *rules;
                size_t i;
                json_t *rule;
                struct rbac_rule_source src = { .cluster = k == RBAC_CLUSTER_ROLE_BINDINGS,
                                                .binding = b };

                src.subject = applies(b, user, bns);
                if (!src.subject)
                        continue;
                rules = role_rules(r, json_object_get(b, "roleRef"), bns, &err);
                if (!rules && err) {
                        bool more = visit(ud, &src, NULL, err);
                        free(err);
                        if (!more)
                                return false;
                        continue;
                }
                json_array_foreach(rules, i, rule)
                        if (!visit(ud, &src, rule, NULL))
                                return false;
        }
        return true;
}

void rbac_visit_rules(struct rbac *r, const struct authn_user *user, const char *ns,
                      rbac_rule_visitor visit, void *ud)
{
        (void) pthread_rwlock_rdlock(&r->lock);
        /* K8S: VisitRulesFor: every ClusterRoleBinding, then the namespace's RoleBindings */
        if (visit_bindings(r, RBAC_CLUSTER_ROLE_BINDINGS, "", user, visit, ud) && ns && ns[0])
                (void) visit_bindings(r, RBAC_ROLE_BINDINGS, ns, user, visit, ud);
        (void) pthread_rwlock_unlock(&r->lock);
}

/* K8S: authorizingVisitor: stops at the first rule that allows, gathers the errors. */
struct checking {
        const struct authz_attributes *a;
        bool allowed;
        char *reason;
        char **errors;
        size_t n_errors;
};

static bool check_rule(void *ud, const struct rbac_rule_source *src, const json_t *rule,
                       const char *err)
{
        struct checking *c = ud;

        if (rule && authz_rule_allows(rule, c->a)) {
                cleanup_free char *from = rbac_rule_source_string(src);

                c->allowed = true;
                c->reason = xasprintf("RBAC: allowed by %s", from);
                return false;
        }
        if (err) {
                /* K8S: utilerrors' aggregate prints each message once */
                for (size_t i = 0; i < c->n_errors; i++)
                        if (streq(c->errors[i], err))
                                return true;
                c->errors = xrealloc(c->errors, (c->n_errors + 1) * sizeof(*c->errors));
                c->errors[c->n_errors++] = xstrdup(err);
        }
        return true;
}

enum authz_decision rbac_authorize(struct rbac *r, const struct authz_attributes *a,
                                   char **ret_reason)
{
        struct checking c = { .a = a };
        struct strbuf sb;

        *ret_reason = NULL;
        if (!a->user)
                return AUTHZ_NO_OPINION;
        rbac_visit_rules(r, a->user, a->ns, check_rule, &c);
        if (c.allowed)
                *ret_reason = TAKE_PTR(c.reason);
        if (!c.allowed && c.n_errors) {
                strbuf_init(&sb);
                strbuf_addstr(&sb, "RBAC: ");
                if (c.n_errors > 1)
                        strbuf_addch(&sb, '[');
                for (size_t i = 0; i < c.n_errors; i++)
                        strbuf_addf(&sb, "%s%s", i ? ", " : "", c.errors[i]);
                if (c.n_errors > 1)
                        strbuf_addch(&sb, ']');
                *ret_reason = strbuf_detach(&sb);
        }
        for (size_t i = 0; i < c.n_errors; i++)
                free(c.errors[i]);
        free(c.errors);
        return c.allowed ? AUTHZ_ALLOW : AUTHZ_NO_OPINION;
}

/* ---- the mode ---- */

int authz_rbac_new(const struct authz_context *ctx, void **ret, struct error **reterr)
{
        if (!ctx->rbac)
                return error_set(reterr, EINVAL, "no RBAC rule resolver");
        *ret = ctx->rbac;
        return 0;
}

enum authz_decision authz_rbac_authorize(void *self, const struct authz_attributes *a,
                                         char **ret_reason)
{
        return rbac_authorize(self, a, ret_reason);
}

/* K8S: DefaultRuleResolver.RulesFor's visitor: every rule, every error */
static bool gather_rule(void *ud, const struct rbac_rule_source *src, const json_t *rule,
                        const char *err)
{
        struct authz_rules *out = ud;

        if (rule)
                authz_rules_add_policy_rule(out, rule);
        if (err)
                authz_rules_add_error(out, err);
        return true;
}

void authz_rbac_rules_for(void *self, const struct authn_user *user, const char *ns,
                          struct authz_rules *out)
{
        rbac_visit_rules(self, user, ns, gather_rule, out);
}

void authz_rbac_free(void *self)
{
        /* the resolver is its creator's */
}
