/* audit.c: the audit of requests: one audit.k8s.io/v1 Event JSON line per stage of a request the
 * policy gives a level other than None, as kube-apiserver's audit filters write them
 * (K8S staging/src/k8s.io/apiserver pkg/endpoints/filters/audit.go, audit_init.go,
 * authn_audit.go, pkg/audit/request.go). Deciding the level is audit-policy.c's, writing and
 * rotating the file audit-log.c's; what a request asks for comes from the caller (api.c). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/yaml.h"
#include "apiserver/apiserver-internal.h"
#include "apiserver/audit.h"
#include "apiserver/wire.h"
#include "apiserver/authn.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/metrics.h"
#include "base/strbuf.h"
#include "base/timeutil.h"
#include "base/uuid.h"

/* K8S pkg/endpoints/filters/audit.go: maxUserAgentLength and userAgentTruncateSuffix */
#define MAX_USER_AGENT_LENGTH 1024
#define USER_AGENT_TRUNCATED  "...TRUNCATED"
/* an Audit-ID a client sends is taken as it is (upstream), up to this length */
#define MAX_AUDIT_ID_LENGTH 256

struct audit {
        struct audit_policy *policy;
        struct audit_log *log;
        struct metric *events; /* apiserver_audit_event_total */
        struct metric *errors; /* apiserver_audit_error_total{plugin} */
        struct metric *levels; /* apiserver_audit_level_total{level} */
        atomic_llong last_report_ms;
        atomic_llong unreported;
};

struct audit_request {
        const struct audit *a;
        char *id;
        struct timespec received;
        struct audit_decision d;
        bool anonymous; /* nobody authenticated: written once the answer is known */
        json_t *user;
        json_t *impersonated_user; /* NULL: no impersonation */
        const char *verb;
        char *verb_owned;
        json_t *request_uri;
        json_t *source_ips;
        json_t *user_agent;
        json_t *object_ref;
        json_t *request_object;
        json_t *response_status;
        json_t *response_object;
        json_t *annotations;
        /* what the request names, for decoding a protobuf body */
        char *api_group, *resource, *subresource;
        /* the encoded fields every stage shares: auditID, a NUL, requestURI to userAgent */
        char *head;
        size_t head_len;
        struct http_stream inner;    /* a streamed answer's own stream */
        struct http_pending pending; /* a pending answer's own pending */
};

static int64_t now_ms(void)
{
        struct timespec ts;

        (void) clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int audit_new(const struct audit_options *o, struct audit **ret, struct error **reterr)
{
        static const char *const plugin_label[] = { "plugin", NULL };
        static const char *const level_label[] = { "level", NULL };
        cleanup_audit struct audit *a = NULL;
        const struct {
                const char *flag;
                int v;
        } counts[] = {
                { "--audit-log-maxage", o->log.max_age_days },
                { "--audit-log-maxbackup", o->log.max_backups },
                { "--audit-log-maxsize", o->log.max_size_mb },
        };

        /* K8S AuditLogOptions.Validate */
        for (size_t i = 0; i < ARRAY_SIZE(counts); i++)
                if (counts[i].v < 0)
                        return error_set(reterr, EINVAL, "%s %d can't be a negative number",
                                         counts[i].flag, counts[i].v);
        if (!o->log.path || !o->log.path[0])
                return error_set(reterr, EINVAL, "--audit-log-path: required for an audit log");
        if (!o->policy_file || !o->policy_file[0])
                return error_set(reterr, EINVAL,
                                 "--audit-log-path \"%s\": no audit policy file provided, no "
                                 "events will be recorded for log backend; give "
                                 "--audit-policy-file",
                                 o->log.path);
        a = xcalloc(1, sizeof(*a));
        if (audit_policy_load(o->policy_file, &a->policy, reterr) < 0)
                return -EINVAL;
        if (audit_log_open(&o->log, &a->log, reterr) < 0)
                return -EIO;
        if (o->metrics) {
                /* K8S: pkg/audit/metrics.go */
                a->events = metrics_counter_new(
                        o->metrics, "apiserver_audit_event_total",
                        "[ALPHA] Counter of audit events generated and sent to the audit backend.",
                        NULL, reterr);
                a->errors = a->events ? metrics_counter_new(
                                                o->metrics, "apiserver_audit_error_total",
                                                "[ALPHA] Counter of audit events that failed to "
                                                "be audited properly. Plugin identifies the "
                                                "plugin affected by the error.",
                                                plugin_label, reterr)
                                      : NULL;
                a->levels =
                        a->errors
                                ? metrics_counter_new(o->metrics, "apiserver_audit_level_total",
                                                      "[ALPHA] Counter of policy levels for audit "
                                                      "events (1 per request).",
                                                      level_label, reterr)
                                : NULL;
                if (!a->levels)
                        return -EEXIST;
        }
        atomic_store(&a->last_report_ms, 0);
        atomic_store(&a->unreported, 0);
        *ret = TAKE_PTR(a);
        return 0;
}

struct audit *audit_free(struct audit *a)
{
        if (!a)
                return NULL;
        audit_policy_free(a->policy);
        audit_log_free(a->log);
        free(a);
        return NULL;
}

static struct audit_request *audit_request_free(struct audit_request *ar)
{
        if (!ar)
                return NULL;
        free(ar->id);
        free(ar->verb_owned);
        free(ar->api_group);
        free(ar->resource);
        free(ar->subresource);
        free(ar->head);
        json_decref(ar->impersonated_user);
        json_decref(ar->user);
        json_decref(ar->request_uri);
        json_decref(ar->source_ips);
        json_decref(ar->user_agent);
        json_decref(ar->object_ref);
        json_decref(ar->request_object);
        json_decref(ar->response_status);
        json_decref(ar->response_object);
        json_decref(ar->annotations);
        free(ar);
        return NULL;
}

/* A write that failed: counted, and told on standard error at most once a minute (a full disk
 * would otherwise fill the other log too). */
static void report_error(const struct audit *a, const char *message)
{
        struct audit *m = (struct audit *) a; /* the counters are the only mutable part */
        long long now = now_ms(), last = atomic_load(&m->last_report_ms);
        static const char *const plugin[] = { "log", NULL };

        if (a->errors)
                (void) metrics_add(a->errors, plugin, 1);
        if (last && now - last < 60000) {
                atomic_fetch_add(&m->unreported, 1);
                return;
        }
        if (!atomic_compare_exchange_strong(&m->last_report_ms, &last, now)) {
                atomic_fetch_add(&m->unreported, 1);
                return;
        }
        (void) fprintf(stderr, "flexlet: audit log: %s (%lld more failed writes since last told)\n",
                       message, (long long) atomic_exchange(&m->unreported, 0));
}

/* ---- what goes into the event ---- */

/* Go's url.EscapedPath: everything but the unreserved characters and those a path may hold
 * as they are is %XX-escaped. */
static void escape_path(struct strbuf *sb, const char *s)
{
        for (const unsigned char *p = (const unsigned char *) s; *p; p++) {
                if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                    (*p >= '0' && *p <= '9') || strchr("-_.~$&+,/:;=@", *p))
                        strbuf_add(sb, p, 1);
                else
                        strbuf_addf(sb, "%%%02X", *p);
        }
}

/* Go's url.QueryEscape, as clients encode query values: space as '+'. */
static void escape_query(struct strbuf *sb, const char *s)
{
        for (const unsigned char *p = (const unsigned char *) s; *p; p++) {
                if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                    (*p >= '0' && *p <= '9') || strchr("-_.~", *p))
                        strbuf_add(sb, p, 1);
                else if (*p == ' ')
                        strbuf_addstr(sb, "+");
                else
                        strbuf_addf(sb, "%%%02X", *p);
        }
}

/* K8S: Event.requestURI is req.URL.RequestURI(). The HTTP library hands over the decoded path
 * and parameters, so they are escaped again as Go's clients escape them. */
static json_t *request_uri(const struct http_request *req)
{
        struct strbuf sb;
        json_t *v;

        strbuf_init(&sb);
        escape_path(&sb, req->path ? req->path : "/");
        for (size_t i = 0; i < req->n_query; i++) {
                strbuf_addstr(&sb, i ? "&" : "?");
                escape_query(&sb, req->query[i].key);
                if (req->query[i].value[0]) {
                        strbuf_addstr(&sb, "=");
                        escape_query(&sb, req->query[i].value);
                }
        }
        v = json_stringn(sb.buf ? sb.buf : "", sb.len);
        strbuf_release(&sb);
        return v ? v : json_string("");
}

static bool is_ip(const char *s)
{
        unsigned char buf[16];

        return inet_pton(AF_INET, s, buf) == 1 || inet_pton(AF_INET6, s, buf) == 1;
}

/* K8S: utilnet.SourceIPs: the X-Forwarded-For addresses, then X-Real-Ip, then the peer unless
 * it is the last already (invalid entries skipped). */
static json_t *source_ips(const struct http_request *req)
{
        json_t *ips = json_array();
        size_t n;

        if (req->forwarded_for) {
                cleanup_free char *copy = xstrdup(req->forwarded_for);
                char *save = NULL;

                for (char *p = strtok_r(copy, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
                        char *end;

                        p += strspn(p, " \t");
                        end = p + strlen(p);
                        while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
                                *--end = '\0';
                        if (is_ip(p))
                                json_array_append_new(ips, json_string(p));
                }
        }
        if (req->real_ip && is_ip(req->real_ip) && !json_array_has_string(ips, req->real_ip))
                json_array_append_new(ips, json_string(req->real_ip));
        n = json_array_size(ips);
        if (req->remote_addr &&
            (n == 0 || !streq(json_string_value(json_array_get(ips, n - 1)), req->remote_addr)))
                json_array_append_new(ips, json_string(req->remote_addr));
        return ips;
}

static json_t *user_agent(const struct http_request *req)
{
        const char *ua = req->user_agent;
        json_t *v;

        if (!ua || !ua[0])
                return NULL;
        if (strlen(ua) <= MAX_USER_AGENT_LENGTH)
                return json_string(ua);
        {
                cleanup_free char *cut =
                        xasprintf("%.*s%s", MAX_USER_AGENT_LENGTH, ua, USER_AGENT_TRUNCATED);
                v = json_string(cut);
        }
        return v;
}

/* Event.user: UserInfo {username, uid, groups, extra}. */
static json_t *user_json(const struct authn_user *u)
{
        json_t *j = json_object(), *groups = json_array();

        json_object_set_new(j, "username", json_string(u->name));
        if (u->uid && u->uid[0])
                json_object_set_new(j, "uid", json_string(u->uid));
        for (size_t i = 0; u->groups && u->groups[i]; i++)
                json_array_append_new(groups, json_string(u->groups[i]));
        json_object_set_new(j, "groups", groups);
        if (json_object_size(u->extra))
                json_object_set_new(j, "extra", json_deep_copy(u->extra));
        return j;
}

static void set_string(json_t *obj, const char *key, const char *value)
{
        if (value && value[0])
                json_object_set_new(obj, key, json_string(value));
}

/* K8S: the filter's ObjectReference from the RequestInfo (resource requests only). */
static json_t *object_ref(const struct audit_attributes *a)
{
        json_t *ref = json_object();

        set_string(ref, "resource", a->resource);
        set_string(ref, "namespace", a->ns);
        set_string(ref, "name", a->name);
        set_string(ref, "apiGroup", a->api_group);
        set_string(ref, "apiVersion", a->api_version);
        set_string(ref, "subresource", a->subresource);
        return ref;
}

/* Inserts key into ref in ObjectReference's field order (resource, namespace, name, uid,
 * apiGroup, apiVersion, resourceVersion, subresource) when ref lacks it and value is set. */
static void ref_complete(json_t **ref, const char *key, const char *value)
{
        static const char *const order[] = {
                "resource",   "namespace",       "name",       "uid", "apiGroup",
                "apiVersion", "resourceVersion", "subresource"
        };
        json_t *out;

        if (!value || !value[0] || json_object_get(*ref, key))
                return;
        out = json_object();
        for (size_t i = 0; i < ARRAY_SIZE(order); i++) {
                if (streq(order[i], key))
                        json_object_set_new(out, key, json_string(value));
                else if (json_object_get(*ref, order[i]))
                        json_object_set(out, order[i], json_object_get(*ref, order[i]));
        }
        json_decref(*ref);
        *ref = out;
}

/* The request body as JSON (JSON and YAML as sent; protobuf decoded as the resource's kind, or
 * the body kind of pods/eviction and serviceaccounts/token), or NULL. */
static json_t *body_json(const struct audit_request *ar, const struct http_request *req)
{
        const char *ct = req->content_type ? req->content_type : "";
        json_t *v = NULL;

        if (!req->body || req->body_len == 0)
                return NULL;
        if (strncasecmp(ct, "application/yaml", 16) == 0 ||
            strncasecmp(ct, "application/apply-patch+yaml", 28) == 0) {
                if (yaml_to_json(req->body, req->body_len, &v, NULL) < 0)
                        return NULL;
                return v;
        }
        if (strcasestr(ct, "protobuf")) {
                const struct api_resource *r =
                        ar->resource ? api_resource_by_plural(ar->api_group, ar->resource) : NULL;
                cleanup_free char *text = NULL;

                if (r && streq(ar->subresource, "eviction"))
                        r = &eviction_body_resource;
                else if (r && streq(ar->subresource, "token"))
                        r = &token_request_resource;
                if (!r || wire_body_to_json(r, req->body, req->body_len, &text, NULL) < 0)
                        return NULL;
                return json_loads(text, 0, NULL);
        }
        return json_loadb(req->body, req->body_len, 0, NULL);
}

/* K8S omitManagedFields: metadata.managedFields of an object and of a list's items. */
static void strip_managed_fields(json_t *obj)
{
        json_t *items = json_object_get(obj, "items"), *item;
        size_t i;

        (void) json_object_del(json_object_get(obj, "metadata"), "managedFields");
        json_array_foreach(items, i, item)
                (void) json_object_del(json_object_get(item, "metadata"), "managedFields");
}

/* ---- writing ---- */

/* ,"key":<v as compact JSON> */
static void add_json(struct strbuf *sb, const char *key, const json_t *v)
{
        char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);

        strbuf_addf(sb, ",\"%s\":%s", key, text ? text : "null");
        free(text);
}

/* Writes the event of stage in Event's field order. The fields every stage shares (auditID,
 * then requestURI to userAgent) are encoded once per request: at Metadata, encoding is most of
 * an event's cost. */
static void write_event(struct audit_request *ar, enum audit_stage stage)
{
        const struct audit *a = ar->a;
        char received[40], stamp[40];
        struct timespec now;
        struct strbuf sb;
        cleanup_error struct error *err = NULL;

        if (ar->d.level == AUDIT_LEVEL_NONE || (ar->d.omit_stages & (1u << stage)))
                return;
        if (!ar->head) {
                struct strbuf h;
                json_t *id = json_string(ar->id), *verb = json_string(ar->verb);

                strbuf_init(&h);
                add_json(&h, "auditID", id);
                strbuf_add(&h, "", 1); /* the split between auditID and the rest */
                add_json(&h, "requestURI", ar->request_uri);
                add_json(&h, "verb", verb);
                add_json(&h, "user", ar->user);
                if (ar->impersonated_user)
                        add_json(&h, "impersonatedUser", ar->impersonated_user);
                add_json(&h, "sourceIPs", ar->source_ips);
                if (ar->user_agent)
                        add_json(&h, "userAgent", ar->user_agent);
                json_decref(id);
                json_decref(verb);
                ar->head_len = h.len;
                ar->head = strbuf_detach(&h);
        }
        (void) clock_gettime(CLOCK_REALTIME, &now);
        time_format_rfc3339_micro(&ar->received, received);
        time_format_rfc3339_micro(&now, stamp);
        strbuf_init(&sb);
        strbuf_addf(&sb,
                    "{\"kind\":\"Event\",\"apiVersion\":\"audit.k8s.io/v1\",\"level\":\"%s\"%s",
                    audit_level_to_string(ar->d.level), ar->head);
        strbuf_addf(&sb, ",\"stage\":\"%s\"", audit_stage_to_string(stage));
        {
                size_t first = strlen(ar->head) + 1;
                strbuf_add(&sb, ar->head + first, ar->head_len - first);
        }
        if (ar->object_ref)
                add_json(&sb, "objectRef", ar->object_ref);
        if (ar->response_status)
                add_json(&sb, "responseStatus", ar->response_status);
        if (ar->request_object && ar->d.level >= AUDIT_LEVEL_REQUEST)
                add_json(&sb, "requestObject", ar->request_object);
        if (ar->response_object && ar->d.level >= AUDIT_LEVEL_REQUEST_RESPONSE &&
            stage == AUDIT_STAGE_RESPONSE_COMPLETE)
                add_json(&sb, "responseObject", ar->response_object);
        strbuf_addf(&sb, ",\"requestReceivedTimestamp\":\"%s\",\"stageTimestamp\":\"%s\"", received,
                    stamp);
        if (ar->annotations)
                add_json(&sb, "annotations", ar->annotations);
        strbuf_addstr(&sb, "}\n");
        if (a->events)
                (void) metrics_add(a->events, NULL, 1);
        if (audit_log_write(a->log, sb.buf, sb.len, &err) < 0)
                report_error(a, err->message);
        strbuf_release(&sb);
}

/* ---- the stages ---- */

struct audit_request *audit_request_begin(const struct audit *a, const struct http_request *req,
                                          struct http_response *resp)
{
        struct audit_request *ar;
        char id[UUID_STRING_LEN + 1];

        /* K8S WithAuditInit: the client's Audit-ID, else a new one, answered in every case */
        if (req->audit_id && req->audit_id[0] && strlen(req->audit_id) <= MAX_AUDIT_ID_LENGTH) {
                free(resp->audit_id);
                resp->audit_id = xstrdup(req->audit_id);
        } else {
                uuid_random(id);
                free(resp->audit_id);
                resp->audit_id = xstrdup(id);
        }
        if (!a)
                return NULL;
        ar = xcalloc(1, sizeof(*ar));
        ar->a = a;
        ar->id = xstrdup(resp->audit_id);
        (void) clock_gettime(CLOCK_REALTIME, &ar->received);
        return ar;
}

/* K8S: the anonymous user of an unauthenticated request that was answered anyway. */
static const char *const anonymous_groups[] = { "system:unauthenticated", NULL };

void audit_request_received(struct audit_request *ar, const struct authn_user *user,
                            const struct audit_attributes *a, const struct http_request *req)
{
        static const char *const level_names[AUDIT_LEVEL_MAX] = { "None", "Metadata", "Request",
                                                                  "RequestResponse" };
        struct authn_user anonymous = { .name = (char *) "system:anonymous",
                                        .uid = NULL,
                                        .groups = (char **) anonymous_groups };
        const char *lv[2] = { NULL, NULL };

        if (!ar)
                return;
        ar->anonymous = !user;
        audit_policy_evaluate(ar->a->policy, user ? user : &anonymous, a, &ar->d);
        lv[0] = level_names[ar->d.level];
        if (ar->a->levels)
                (void) metrics_add(ar->a->levels, lv, 1);
        if (ar->d.level == AUDIT_LEVEL_NONE)
                return;
        ar->verb_owned = xstrdup(a->verb ? a->verb : "");
        ar->verb = ar->verb_owned;
        ar->user = user_json(user ? user : &anonymous);
        ar->request_uri = request_uri(req);
        ar->source_ips = source_ips(req);
        ar->user_agent = user_agent(req);
        if (a->resource_request) {
                ar->object_ref = object_ref(a);
                ar->api_group = xstrdup(a->api_group ? a->api_group : "");
                ar->resource = xstrdup(a->resource ? a->resource : "");
                ar->subresource = xstrdup(a->subresource ? a->subresource : "");
        }
        if (!ar->anonymous)
                write_event(ar, AUDIT_STAGE_REQUEST_RECEIVED);
}

void audit_request_impersonated(struct audit_request *ar, const struct authn_user *user)
{
        if (!ar || ar->d.level == AUDIT_LEVEL_NONE)
                return;
        json_decref(ar->impersonated_user);
        ar->impersonated_user = user_json(user);
        /* the stages still to come carry it (the head is built again) */
        free(ar->head);
        ar->head = NULL;
        ar->head_len = 0;
}

void audit_request_annotate(struct audit_request *ar, const char *key, const char *value)
{
        if (!ar || ar->d.level == AUDIT_LEVEL_NONE)
                return;
        if (!ar->annotations)
                ar->annotations = json_object();
        json_object_set_new(ar->annotations, key, json_string(value));
}

/* K8S LogRequestObject (create, update: the object fills in the reference's name, namespace,
 * uid and resourceVersion, at Metadata and up; the body itself from Request up), LogRequestPatch
 * (the patch as sent) and the delete handler's DeleteOptions. */
static void take_request(struct audit_request *ar, const struct http_request *req)
{
        bool object = streq(req->method, "POST") || streq(req->method, "PUT");
        bool other = streq(req->method, "PATCH") || streq(req->method, "DELETE");
        json_t *body;

        if (!object && !(other && ar->d.level >= AUDIT_LEVEL_REQUEST))
                return;
        body = body_json(ar, req);
        if (!body)
                return;
        if (object && ar->object_ref) {
                const json_t *meta = json_object_get(body, "metadata");

                ref_complete(&ar->object_ref, "namespace", json_path_string(meta, "namespace"));
                ref_complete(&ar->object_ref, "name", json_path_string(meta, "name"));
                ref_complete(&ar->object_ref, "uid", json_path_string(meta, "uid"));
                ref_complete(&ar->object_ref, "resourceVersion",
                             json_path_string(meta, "resourceVersion"));
        }
        if (ar->d.level >= AUDIT_LEVEL_REQUEST) {
                if (ar->d.omit_managed_fields)
                        strip_managed_fields(body);
                ar->request_object = body;
        } else {
                json_decref(body);
        }
}

/* K8S: the response writer records the code; LogResponseObject copies a returned Status's
 * status, message, reason and details, and from RequestResponse up keeps the object. */
static void take_response(struct audit_request *ar, const struct http_response *resp)
{
        json_t *st = json_object(), *obj = NULL;
        unsigned code = resp->status ? resp->status : 500;
        bool json_body = resp->content_type && strstr(resp->content_type, "json");

        json_object_set_new(st, "metadata", json_object());
        if (resp->object)
                obj = json_incref(resp->object);
        else if (json_body && resp->body.len > 0 && !resp->stream.read &&
                 (code >= 300 || ar->d.level >= AUDIT_LEVEL_REQUEST_RESPONSE))
                obj = json_loadb(resp->body.buf, resp->body.len, 0, NULL);
        if (obj && streq(json_path_string_or_empty(obj, "kind"), "Status")) {
                static const char *const copied[] = { "status", "message", "reason", "details" };
                for (size_t i = 0; i < ARRAY_SIZE(copied); i++)
                        if (json_object_get(obj, copied[i]))
                                json_object_set(st, copied[i], json_object_get(obj, copied[i]));
        }
        json_object_set_new(st, "code", json_integer(code));
        json_decref(ar->response_status);
        ar->response_status = st;
        if (obj && ar->d.level >= AUDIT_LEVEL_REQUEST_RESPONSE) {
                /* the response's object is shared: strip a copy */
                if (ar->d.omit_managed_fields) {
                        json_t *copy = json_deep_copy(obj);
                        json_decref(obj);
                        obj = copy;
                        strip_managed_fields(obj);
                }
                ar->response_object = obj;
                obj = NULL;
        }
        json_decref(obj);
}

/* K8S WithFailedAuthenticationAudit: getAuthMethods. */
static char *auth_methods(const struct http_request *req)
{
        struct strbuf sb;
        const char *auth = req->authorization ? req->authorization : "";

        strbuf_init(&sb);
        auth += strspn(auth, " ");
        if (strncasecmp(auth, "basic ", 6) == 0)
                strbuf_addstr(&sb, "basic");
        if (strncasecmp(auth, "bearer ", 7) == 0)
                strbuf_addstr(&sb, "bearer");
        if (http_request_query(req, "access_token") && http_request_query(req, "access_token")[0])
                strbuf_addf(&sb, "%saccess_token", sb.len ? ", " : "");
        if (req->client_cert_der)
                strbuf_addf(&sb, "%sx509", sb.len ? ", " : "");
        if (sb.len == 0) {
                strbuf_release(&sb);
                return xstrdup("Authentication failed, no credentials provided");
        }
        {
                char *msg = xasprintf("Authentication failed, attempted: %s", sb.buf);
                strbuf_release(&sb);
                return msg;
        }
}

static ssize_t stream_read(void *ctx, char *buf, size_t max)
{
        struct audit_request *ar = ctx;
        return ar->inner.read(ar->inner.ctx, buf, max);
}

static int stream_wake_fd(void *ctx)
{
        struct audit_request *ar = ctx;
        return ar->inner.wake_fd(ar->inner.ctx);
}

/* The stream ended (or its client went away): ResponseComplete. */
static void stream_free(void *ctx)
{
        struct audit_request *ar = ctx;

        ar->inner.free(ar->inner.ctx);
        write_event(ar, AUDIT_STAGE_RESPONSE_COMPLETE);
        audit_request_free(ar);
}

/* resp's stream becomes one that writes ResponseComplete when it ends; it owns ar. */
static void wrap_stream(struct audit_request *ar, struct http_response *resp)
{
        ar->inner = resp->stream;
        resp->stream = (struct http_stream){ .read = stream_read,
                                             .free = stream_free,
                                             .ctx = ar,
                                             .wake_fd = ar->inner.wake_fd ? stream_wake_fd : NULL };
}

static bool pending_poll(void *ctx, struct http_response *resp)
{
        struct audit_request *ar = ctx;

        if (!ar->pending.poll(ar->pending.ctx, resp))
                return false;
        /* the answer is known: its stages are written as any other's; the server frees the
         * pending next (pending_free), which leaves ar to the stream when there is one */
        take_response(ar, resp);
        if (resp->stream.read) {
                write_event(ar, AUDIT_STAGE_RESPONSE_STARTED);
                wrap_stream(ar, resp);
        } else {
                write_event(ar, AUDIT_STAGE_RESPONSE_COMPLETE);
        }
        return true;
}

static int pending_wake_fd(void *ctx)
{
        struct audit_request *ar = ctx;
        return ar->pending.wake_fd(ar->pending.ctx);
}

static void pending_free(void *ctx)
{
        struct audit_request *ar = ctx;

        if (ar->pending.free)
                ar->pending.free(ar->pending.ctx);
        ar->pending.free = NULL;
        /* answered with a stream: the stream owns ar now */
        if (!ar->inner.read)
                audit_request_free(ar);
}

static void finish(struct audit_request *ar, struct http_response *resp)
{
        if (resp->pending.poll) {
                ar->pending = resp->pending;
                resp->pending =
                        (struct http_pending){ .poll = pending_poll,
                                               .free = pending_free,
                                               .ctx = ar,
                                               .wake_fd = ar->pending.wake_fd ? pending_wake_fd
                                                                              : NULL };
                return;
        }
        take_response(ar, resp);
        if (resp->stream.read) {
                /* K8S: a long-running request's ResponseStarted, ResponseComplete at its end */
                write_event(ar, AUDIT_STAGE_RESPONSE_STARTED);
                wrap_stream(ar, resp);
                return;
        }
        write_event(ar, AUDIT_STAGE_RESPONSE_COMPLETE);
        audit_request_free(ar);
}

void audit_request_end(struct audit_request *ar, const struct http_request *req,
                       struct http_response *resp)
{
        if (!ar)
                return;
        if (ar->d.level == AUDIT_LEVEL_NONE) {
                audit_request_free(ar);
                return;
        }
        if (ar->anonymous && resp->status == 401) {
                /* K8S WithFailedAuthenticationAudit: one ResponseStarted with the methods tried */
                json_t *st = json_object();
                cleanup_free char *msg = auth_methods(req);

                json_object_set_new(st, "metadata", json_object());
                json_object_set_new(st, "message", json_string(msg));
                json_object_set_new(st, "code", json_integer(401));
                ar->response_status = st;
                write_event(ar, AUDIT_STAGE_RESPONSE_STARTED);
                audit_request_free(ar);
                return;
        }
        if (ar->anonymous)
                write_event(ar, AUDIT_STAGE_REQUEST_RECEIVED);
        take_request(ar, req);
        finish(ar, resp);
}
