/* test-audit-policy.c: the audit policy as upstream reads and evaluates it (first match wins,
 * users, groups, verbs, resources with subresources and wildcards, resourceNames, namespaces,
 * non-resource URLs, omitStages joined, omitManagedFields), the refusals with upstream's
 * messages, lumberjack's backup names and rotation, and the events a request writes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apiserver/audit.h"
#include "apiserver/authn.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/metrics.h"

static const char policy_text[] =
        "apiVersion: audit.k8s.io/v1\n"
        "kind: Policy\n"
        "omitStages: [RequestReceived]\n"
        "omitManagedFields: true\n"
        "rules:\n"
        "- level: None\n"
        "  users: [system:kube-proxy]\n"
        "- level: RequestResponse\n"
        "  resources: [{group: '', resources: [pods/resize]}]\n"
        "  omitManagedFields: false\n"
        "- level: Request\n"
        "  verbs: [create, update]\n"
        "  namespaces: [prod]\n"
        "  omitStages: [ResponseStarted]\n"
        "- level: None\n"
        "  resources: [{group: '', resources: [events]}]\n"
        "- level: Request\n"
        "  userGroups: [ops]\n"
        "  resources: [{group: storage.k8s.io, resources: ['*/status']}]\n"
        "- level: Request\n"
        "  resources: [{group: '', resources: [configmaps], resourceNames: [special]}]\n"
        "- level: RequestResponse\n"
        "  resources: [{group: '', resources: ['nodes/*']}]\n"
        "- level: None\n"
        "  nonResourceURLs: [/healthz, '/openapi/*']\n"
        "- level: Metadata\n"
        "  namespaces: ['']\n"
        "- level: Request\n"
        "  resources: [{group: apps}]\n"
        "- level: Metadata\n"
        "  nonResourceURLs: ['*']\n";

static void test_evaluate(void **state)
{
        static const char *const ops_groups[] = { "ops", NULL };
        static const char *const dev_groups[] = { "devs", NULL };
        struct authn_user *admin = authn_user_new("kubernetes-admin", NULL, NULL);
        struct authn_user *proxy = authn_user_new("system:kube-proxy", NULL, NULL);
        struct authn_user *ops = authn_user_new("olga", NULL, ops_groups);
        struct authn_user *dev = authn_user_new("dan", NULL, dev_groups);
        struct audit_policy *p = NULL;
        struct error *err = NULL;
        const unsigned rr = 1u << AUDIT_STAGE_REQUEST_RECEIVED;
        const unsigned rs = 1u << AUDIT_STAGE_RESPONSE_STARTED;
        const struct {
                const char *name;
                const struct authn_user *user;
                struct audit_attributes a;
                enum audit_level level;
                unsigned omit;
                bool omf;
        } cases[] = {
                { "users: kube-proxy is silenced before any resource rule",
                  proxy,
                  { true, "patch", "", "v1", "pods", "resize", "default", "web", NULL },
                  AUDIT_LEVEL_NONE,
                  rr,
                  true },
                { "pods/resize: the subresource named",
                  admin,
                  { true, "patch", "", "v1", "pods", "resize", "default", "web", NULL },
                  AUDIT_LEVEL_REQUEST_RESPONSE,
                  rr,
                  false },
                { "pods/resize does not name pods",
                  admin,
                  { true, "patch", "", "v1", "pods", NULL, "default", "web", NULL },
                  AUDIT_LEVEL_NONE,
                  rr,
                  true },
                { "verbs and namespaces: a create in prod",
                  admin,
                  { true, "create", "", "v1", "pods", NULL, "prod", NULL, NULL },
                  AUDIT_LEVEL_REQUEST,
                  rr | rs,
                  true },
                { "verbs: a get in prod is not a create",
                  admin,
                  { true, "get", "", "v1", "pods", NULL, "prod", "p", NULL },
                  AUDIT_LEVEL_NONE,
                  rr,
                  true },
                { "a None rule silences events",
                  admin,
                  { true, "create", "", "v1", "events", NULL, "default", NULL, NULL },
                  AUDIT_LEVEL_NONE,
                  rr,
                  true },
                { "userGroups and */status in a group",
                  ops,
                  { true, "update", "storage.k8s.io", "v1", "persistentvolumes", "status", NULL,
                    "pv1", NULL },
                  AUDIT_LEVEL_REQUEST,
                  rr,
                  true },
                { "userGroups: another group does not match",
                  dev,
                  { true, "update", "storage.k8s.io", "v1", "persistentvolumes", "status", NULL,
                    "pv1", NULL },
                  AUDIT_LEVEL_METADATA,
                  rr,
                  true },
                { "*/status: the group must match",
                  ops,
                  { true, "update", "", "v1", "pods", "status", "default", "p", NULL },
                  AUDIT_LEVEL_NONE,
                  rr,
                  true },
                { "resourceNames: the name listed",
                  admin,
                  { true, "get", "", "v1", "configmaps", NULL, "default", "special", NULL },
                  AUDIT_LEVEL_REQUEST,
                  rr,
                  true },
                { "resourceNames: another name",
                  admin,
                  { true, "get", "", "v1", "configmaps", NULL, "default", "other", NULL },
                  AUDIT_LEVEL_NONE,
                  rr,
                  true },
                { "resourceNames: a list has no name",
                  admin,
                  { true, "list", "", "v1", "configmaps", NULL, "default", NULL, NULL },
                  AUDIT_LEVEL_NONE,
                  rr,
                  true },
                { "nodes/*: any subresource of nodes",
                  admin,
                  { true, "patch", "", "v1", "nodes", "status", NULL, "n1", NULL },
                  AUDIT_LEVEL_REQUEST_RESPONSE,
                  rr,
                  true },
                { "nodes/* is not nodes itself; '' namespace: cluster scope",
                  admin,
                  { true, "get", "", "v1", "nodes", NULL, NULL, "n1", NULL },
                  AUDIT_LEVEL_METADATA,
                  rr,
                  true },
                { "a group without resources: all of it",
                  admin,
                  { true, "list", "apps", "v1", "deployments", NULL, "default", NULL, NULL },
                  AUDIT_LEVEL_REQUEST,
                  rr,
                  true },
                { "nonResourceURLs: an exact path",
                  admin,
                  { false, "get", NULL, NULL, NULL, NULL, NULL, NULL, "/healthz" },
                  AUDIT_LEVEL_NONE,
                  rr,
                  true },
                { "nonResourceURLs: a prefix",
                  admin,
                  { false, "get", NULL, NULL, NULL, NULL, NULL, NULL, "/openapi/v3/api/v1" },
                  AUDIT_LEVEL_NONE,
                  rr,
                  true },
                { "nonResourceURLs: '*' after the rest",
                  admin,
                  { false, "get", NULL, NULL, NULL, NULL, NULL, NULL, "/version" },
                  AUDIT_LEVEL_METADATA,
                  rr,
                  true },
                { "resource rules do not match a non-resource request",
                  admin,
                  { false, "get", NULL, NULL, NULL, NULL, NULL, NULL, "/healthzz" },
                  AUDIT_LEVEL_METADATA,
                  rr,
                  true },
                { "no user matches no users rule",
                  NULL,
                  { true, "get", "", "v1", "pods", "resize", "default", "web", NULL },
                  AUDIT_LEVEL_REQUEST_RESPONSE,
                  rr,
                  false },
        };

        assert_int_equal(audit_policy_parse(policy_text, strlen(policy_text), &p, &err), 0);
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct audit_decision d = { .level = AUDIT_LEVEL_MAX };

                audit_policy_evaluate(p, cases[i].user, &cases[i].a, &d);
                if (d.level != cases[i].level || d.omit_stages != cases[i].omit ||
                    d.omit_managed_fields != cases[i].omf)
                        fail_msg("%s: level %s omit %#x omf %d", cases[i].name,
                                 audit_level_to_string(d.level), d.omit_stages,
                                 d.omit_managed_fields);
        }
        audit_policy_free(p);
        authn_user_free(admin);
        authn_user_free(proxy);
        authn_user_free(ops);
        authn_user_free(dev);
}

static void test_refusals(void **state)
{
        static const struct {
                const char *text, *message;
        } cases[] = {
                { "{\"apiVersion\":\"audit.k8s.io/v1\",\"kind\":\"Policy\",\"rules\":[]}",
                  "loaded illegal policy with 0 rules" },
                { "apiVersion: audit.k8s.io/v1\nkind: Policy\n",
                  "loaded illegal policy with 0 rules" },
                { "apiVersion: audit.k8s.io/v1\nrules: [{level: None}]\n",
                  "failed decoding: Object 'Kind' is missing in "
                  "'{\"apiVersion\":\"audit.k8s.io/v1\",\"rules\":[{\"level\":\"None\"}]}'" },
                { "apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules: [{level: None}]\n",
                  "failed decoding: no kind \"Policy\" is registered for version "
                  "\"audit.k8s.io/v1beta1\" in scheme \"k8s.io/apiserver/pkg/audit/scheme.go\"" },
                { "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{}]\n",
                  "rules[0].level: Required value" },
                { "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: All}]\n",
                  "rules[0].level: Unsupported value: \"All\": supported values: \"None\", "
                  "\"Metadata\", \"Request\", \"RequestResponse\"" },
                { "apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [Done]\n"
                  "rules: [{level: None, omitStages: [Begun]}]\n",
                  "[omitStages[0]: Invalid value: \"Done\": allowed stages are "
                  "RequestReceived,ResponseStarted,ResponseComplete,Panic, "
                  "rules[0].omitStages[0]: Invalid value: \"Begun\": allowed stages are "
                  "RequestReceived,ResponseStarted,ResponseComplete,Panic]" },
                { "apiVersion: audit.k8s.io/v1\nkind: Policy\n"
                  "rules: [{level: None, nonResourceURLs: [healthz, '/a*b']}]\n",
                  "[rules[0].nonResourceURLs[0]: Invalid value: \"healthz\": non-resource URL "
                  "rules must begin with a '/' character, rules[0].nonResourceURLs[1]: Invalid "
                  "value: \"/a*b\": non-resource URL wildcards '*' must be the final character "
                  "of the rule]" },
                { "apiVersion: audit.k8s.io/v1\nkind: Policy\n"
                  "rules: [{level: None, nonResourceURLs: [/x], namespaces: [a]}]\n",
                  "rules[0].nonResourceURLs: Invalid value: []string{\"/x\"}: rules cannot "
                  "apply to both regular resources and non-resource URLs" },
                { "apiVersion: audit.k8s.io/v1\nkind: Policy\n"
                  "rules: [{level: None, resources: [{group: '', resourceNames: [a]}]}]\n",
                  "rules[0].resources.resourceNames: Invalid value: []string{\"a\"}: using "
                  "resourceNames requires at least one resource" },
                { "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: None, verbs: get}]\n",
                  "failed decoding: json: cannot unmarshal string into Go struct field "
                  "PolicyRule.rules.verbs of type []string" },
                { "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: None, users: [1]}]\n",
                  "failed decoding: json: cannot unmarshal number into Go struct field "
                  "PolicyRule.rules.users of type string" },
                { "{", NULL },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct audit_policy *p = NULL;
                struct error *err = NULL;

                if (audit_policy_parse(cases[i].text, strlen(cases[i].text), &p, &err) == 0)
                        fail_msg("case %zu parsed", i);
                assert_null(p);
                if (cases[i].message && strcmp(err->message, cases[i].message) != 0)
                        fail_msg("case %zu: %s", i, err->message);
                if (!cases[i].message && strncmp(err->message, "failed decoding: ", 17) != 0)
                        fail_msg("case %zu: %s", i, err->message);
                error_free(err);
        }
}

static void test_load_names_the_file(void **state)
{
        char path[] = "/tmp/flexlet-audit-policy-XXXXXX";
        int fd = mkstemp(path);
        struct audit_policy *p = NULL;
        struct error *err = NULL;
        cleanup_free char *want = NULL;

        assert_true(fd >= 0);
        assert_int_equal(write(fd, "kind: Policy\napiVersion: audit.k8s.io/v1\n", 41), 41);
        close(fd);
        assert_int_equal(audit_policy_load(path, &p, &err), -EINVAL);
        want = xasprintf("loading audit policy file: loaded illegal policy with 0 rules: from "
                         "file %s",
                         path);
        assert_string_equal(err->message, want);
        error_free(err);
        err = NULL;
        unlink(path);
        assert_true(audit_policy_load(path, &p, &err) < 0);
        assert_non_null(
                strstr(err->message, "loading audit policy file: failed to read file path"));
        error_free(err);
}

static void test_backup_name(void **state)
{
        /* 2026-11-26T08:15:02.123 UTC */
        struct timespec t = { .tv_sec = 1795680902, .tv_nsec = 123456789 };
        cleanup_free char *a = audit_log_backup_name("/var/log/audit.log", &t);
        cleanup_free char *b = audit_log_backup_name("audit", &t);
        cleanup_free char *c = audit_log_backup_name("/x/a.b.json", &t);

        assert_string_equal(a, "/var/log/audit-2026-11-26T08-15-02.123.log");
        assert_string_equal(b, "audit-2026-11-26T08-15-02.123");
        assert_string_equal(c, "/x/a.b-2026-11-26T08-15-02.123.json");
}

static struct timespec fake_now;
static void fake_clock(struct timespec *ret)
{
        *ret = fake_now;
}

static size_t count_files(const char *dir)
{
        DIR *d = opendir(dir);
        struct dirent *de;
        size_t n = 0;

        while (d && (de = readdir(d)))
                n += de->d_name[0] != '.';
        if (d)
                closedir(d);
        return n;
}

static void test_rotation(void **state)
{
        char dir[] = "/tmp/flexlet-audit-log-XXXXXX";
        cleanup_free char *path = NULL, *cmd = NULL, *line = NULL, *kept = NULL, *gone = NULL;
        struct audit_log *l = NULL;
        struct error *err = NULL;
        const size_t len = 400 * 1024;

        assert_non_null(mkdtemp(dir));
        path = xasprintf("%s/sub/audit.log", dir);
        line = xmalloc(len);
        memset(line, 'x', len - 1);
        line[len - 1] = '\n';
        struct audit_log_options o = {
                .path = path, .max_size_mb = 1, .max_backups = 2, .now = fake_clock
        };
        fake_now = (struct timespec){ .tv_sec = 1795680902, .tv_nsec = 0 };
        assert_int_equal(audit_log_open(&o, &l, &err), 0);
        /* two lines fit in 1 MiB, the third rotates: 7 lines make 3 backups, 2 kept */
        for (int i = 0; i < 7; i++) {
                fake_now.tv_nsec += 1000000;
                assert_int_equal(audit_log_write(l, line, len, &err), 0);
        }
        cmd = xasprintf("%s/sub", dir);
        assert_int_equal(count_files(cmd), 3);
        kept = xasprintf("%s/sub/audit-2026-11-26T08-15-02.007.log", dir);
        gone = xasprintf("%s/sub/audit-2026-11-26T08-15-02.003.log", dir);
        assert_int_equal(access(kept, F_OK), 0);
        assert_int_equal(access(gone, F_OK), -1);
        /* one line larger than the whole file */
        {
                char *big = xmalloc(1024 * 1024 + 1);
                memset(big, 'y', 1024 * 1024 + 1);
                assert_int_equal(audit_log_write(l, big, 1024 * 1024 + 1, &err), -EFBIG);
                assert_string_equal(err->message,
                                    "write length 1048577 exceeds maximum file size 1048576");
                error_free(err);
                free(big);
        }
        audit_log_free(l);
        free(cmd);
        cmd = xasprintf("rm -rf '%s'", dir);
        assert_int_equal(system(cmd), 0);
}

/* The events of a request, end to end through audit_new and a real log file. */
static void test_request_events(void **state)
{
        char dir[] = "/tmp/flexlet-audit-req-XXXXXX";
        cleanup_free char *policy = NULL, *log = NULL, *cmd = NULL, *text = NULL;
        struct audit *a = NULL;
        struct error *err = NULL;
        struct audit_request *ar;
        struct authn_user *u = authn_user_new("kubernetes-admin", NULL, NULL);
        struct http_query_param q[] = { { "fieldManager", "kubectl-patch" } };
        const char *body = "{\"spec\":{\"containers\":[{\"name\":\"c1\"}]}}";
        struct http_request req = { .method = "PATCH",
                                    .path = "/api/v1/namespaces/default/pods/web/resize",
                                    .query = q,
                                    .n_query = 1,
                                    .content_type = "application/strategic-merge-patch+json",
                                    .body = body,
                                    .body_len = strlen(body),
                                    .remote_addr = "127.0.0.1",
                                    .forwarded_for = "10.0.0.1, junk",
                                    .user_agent = "kubectl/v1.33.1",
                                    .audit_id = "my-id" };
        struct audit_attributes attrs = { true,     "patch",   "",    "v1",    "pods",
                                          "resize", "default", "web", req.path };
        struct http_response resp;
        json_t *obj, *ev;
        json_error_t jerr;
        FILE *f;

        assert_non_null(mkdtemp(dir));
        policy = xasprintf("%s/policy.json", dir);
        log = xasprintf("%s/audit.log", dir);
        f = fopen(policy, "w");
        fputs("{\"apiVersion\":\"audit.k8s.io/v1\",\"kind\":\"Policy\",\"rules\":[{\"level\":"
              "\"RequestResponse\"}]}",
              f);
        fclose(f);
        struct audit_options o = { .policy_file = policy, .log = { .path = log } };
        struct audit_options bad = { .policy_file = NULL, .log = { .path = log } };
        assert_int_equal(audit_new(&bad, &a, &err), -EINVAL);
        assert_non_null(strstr(err->message, "no audit policy file provided"));
        error_free(err);
        err = NULL;
        bad = (struct audit_options){ .policy_file = policy,
                                      .log = { .path = log, .max_backups = -1 } };
        assert_int_equal(audit_new(&bad, &a, &err), -EINVAL);
        assert_string_equal(err->message, "--audit-log-maxbackup -1 can't be a negative number");
        error_free(err);
        err = NULL;
        assert_int_equal(audit_new(&o, &a, &err), 0);

        http_response_init(&resp);
        ar = audit_request_begin(a, &req, &resp);
        assert_string_equal(resp.audit_id, "my-id");
        audit_request_received(ar, u, &attrs, &req);
        obj = json_pack("{s:s, s:{s:s, s:s, s:[]}}", "kind", "Pod", "metadata", "name", "web",
                        "uid", "u1", "managedFields");
        http_response_json(&resp, 200, obj);
        json_decref(obj);
        audit_request_end(ar, &req, &resp);
        http_response_release(&resp);
        audit_free(a);

        f = fopen(log, "r");
        assert_non_null(f);
        {
                char buf[8192];
                assert_non_null(fgets(buf, sizeof(buf), f));
                ev = json_loads(buf, 0, &jerr);
                assert_non_null(ev);
                assert_string_equal(json_path_string(ev, "stage"), "RequestReceived");
                assert_null(json_object_get(ev, "responseStatus"));
                json_decref(ev);
                assert_non_null(fgets(buf, sizeof(buf), f));
                ev = json_loads(buf, 0, &jerr);
                assert_null(fgets(buf, sizeof(buf), f));
        }
        fclose(f);
        text = json_dumps(json_object_get(ev, "objectRef"), JSON_COMPACT);
        assert_string_equal(text, "{\"resource\":\"pods\",\"namespace\":\"default\",\"name\":"
                                  "\"web\",\"apiVersion\":\"v1\",\"subresource\":\"resize\"}");
        free(text);
        text = json_dumps(ev, JSON_COMPACT);
        assert_string_equal(json_path_string(ev, "auditID"), "my-id");
        assert_string_equal(json_path_string(ev, "stage"), "ResponseComplete");
        assert_string_equal(json_path_string(ev, "level"), "RequestResponse");
        assert_string_equal(json_path_string(ev, "verb"), "patch");
        assert_string_equal(json_path_string(ev, "user.username"), "kubernetes-admin");
        assert_string_equal(json_path_string(ev, "requestURI"),
                            "/api/v1/namespaces/default/pods/web/resize?fieldManager=kubectl-"
                            "patch");
        assert_string_equal(json_path_string(ev, "userAgent"), "kubectl/v1.33.1");
        assert_int_equal(json_array_size(json_object_get(ev, "sourceIPs")), 2);
        assert_string_equal(json_string_value(json_array_get(json_object_get(ev, "sourceIPs"), 0)),
                            "10.0.0.1");
        assert_int_equal(json_integer_value(json_path(ev, "responseStatus.code")), 200);
        assert_string_equal(
                json_string_value(json_object_get(
                        json_array_get(json_path(ev, "requestObject.spec.containers"), 0), "name")),
                "c1");
        assert_string_equal(json_path_string(ev, "responseObject.metadata.uid"), "u1");
        /* RequestResponse from a rule without omitManagedFields: kept */
        assert_non_null(json_path(ev, "responseObject.metadata.managedFields"));
        json_decref(ev);
        authn_user_free(u);
        cmd = xasprintf("rm -rf '%s'", dir);
        assert_int_equal(system(cmd), 0);
}

/* A stream (a watch) and a pending answer (a log from a kubelet) end their audit later. */
static int stream_frees;
static ssize_t fake_read(void *ctx, char *buf, size_t max)
{
        return -1;
}
static void fake_free(void *ctx)
{
        stream_frees++;
}
static bool fake_poll(void *ctx, struct http_response *resp)
{
        int *polls = ctx;

        if (++*polls < 2)
                return false;
        http_response_text(resp, 200, "log line\n");
        return true;
}

static size_t lines_with(const char *path, const char *needle)
{
        FILE *f = fopen(path, "r");
        char buf[8192];
        size_t n = 0;

        while (f && fgets(buf, sizeof(buf), f))
                n += strstr(buf, needle) != NULL;
        if (f)
                fclose(f);
        return n;
}

static void test_stream_and_pending(void **state)
{
        char dir[] = "/tmp/flexlet-audit-stream-XXXXXX";
        cleanup_free char *policy = NULL, *log = NULL, *cmd = NULL;
        struct audit *a = NULL;
        struct error *err = NULL;
        struct authn_user *u = authn_user_new("kubernetes-admin", NULL, NULL);
        struct http_query_param q[] = { { "watch", "true" } };
        struct http_request watch = {
                .method = "GET", .path = "/api/v1/pods", .query = q, .n_query = 1
        };
        struct http_request logs = { .method = "GET",
                                     .path = "/api/v1/namespaces/default/pods/web/log" };
        struct audit_attributes wa = {
                true, "watch", "", "v1", "pods", NULL, NULL, NULL, watch.path
        };
        struct audit_attributes la = { true,  "get",     "",    "v1",     "pods",
                                       "log", "default", "web", logs.path };
        struct http_response resp;
        struct audit_request *ar;
        int polls = 0;
        FILE *f;

        assert_non_null(mkdtemp(dir));
        policy = xasprintf("%s/policy.yaml", dir);
        log = xasprintf("%s/audit.log", dir);
        f = fopen(policy, "w");
        fputs("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: Metadata}]\n", f);
        fclose(f);
        struct audit_options o = { .policy_file = policy, .log = { .path = log } };
        assert_int_equal(audit_new(&o, &a, &err), 0);

        /* the watch: ResponseStarted at once, ResponseComplete when its stream is freed */
        http_response_init(&resp);
        ar = audit_request_begin(a, &watch, &resp);
        audit_request_received(ar, u, &wa, &watch);
        resp.status = 200;
        resp.stream = (struct http_stream){ .read = fake_read, .free = fake_free };
        audit_request_end(ar, &watch, &resp);
        assert_int_equal(lines_with(log, "\"stage\":\"ResponseStarted\""), 1);
        assert_int_equal(lines_with(log, "\"stage\":\"ResponseComplete\""), 0);
        assert_int_equal(resp.stream.read(resp.stream.ctx, NULL, 0), -1);
        http_response_release(&resp); /* frees the stream */
        assert_int_equal(stream_frees, 1);
        assert_int_equal(lines_with(log, "\"stage\":\"ResponseComplete\""), 1);

        /* the pending log: its answer completes it when the poll gives one */
        http_response_init(&resp);
        ar = audit_request_begin(a, &logs, &resp);
        audit_request_received(ar, u, &la, &logs);
        resp.pending = (struct http_pending){ .poll = fake_poll, .free = fake_free, .ctx = &polls };
        audit_request_end(ar, &logs, &resp);
        assert_false(resp.pending.poll(resp.pending.ctx, &resp));
        assert_int_equal(lines_with(log, "\"subresource\":\"log\""), 1);
        {
                struct http_response answer;

                http_response_init(&answer);
                assert_true(resp.pending.poll(resp.pending.ctx, &answer));
                http_response_release(&answer);
        }
        http_response_release(&resp); /* frees the pending */
        assert_int_equal(stream_frees, 2);
        assert_int_equal(lines_with(log, "\"subresource\":\"log\""), 2);
        assert_int_equal(lines_with(log, "\"stage\":\"ResponseComplete\""), 2);

        audit_free(a);
        authn_user_free(u);
        cmd = xasprintf("rm -rf '%s'", dir);
        assert_int_equal(system(cmd), 0);
}

/* A log that cannot be written (a full disk: /dev/full) costs the request nothing: the failed
 * writes are counted in apiserver_audit_error_total{plugin="log"}. */
static void test_write_errors_are_counted(void **state)
{
        char dir[] = "/tmp/flexlet-audit-full-XXXXXX";
        cleanup_free char *policy = NULL, *cmd = NULL;
        struct metrics_registry *reg = metrics_registry_new();
        struct audit *a = NULL;
        struct error *err = NULL;
        struct authn_user *u = authn_user_new("kubernetes-admin", NULL, NULL);
        struct http_request req = { .method = "GET", .path = "/api/v1/namespaces/default/pods" };
        struct audit_attributes attrs = { true, "list",    "",   "v1",    "pods",
                                          NULL, "default", NULL, req.path };
        static const char *const plugin[] = { "log", NULL };
        struct http_response resp;
        struct audit_request *ar;
        double errors = 0, events = 0;
        FILE *f;

        if (access("/dev/full", W_OK) < 0)
                skip();
        assert_non_null(mkdtemp(dir));
        policy = xasprintf("%s/policy.yaml", dir);
        f = fopen(policy, "w");
        fputs("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: Metadata}]\n", f);
        fclose(f);
        struct audit_options o = { .policy_file = policy,
                                   .log = { .path = "/dev/full" },
                                   .metrics = reg };
        assert_int_equal(audit_new(&o, &a, &err), 0);
        http_response_init(&resp);
        ar = audit_request_begin(a, &req, &resp);
        audit_request_received(ar, u, &attrs, &req);
        http_response_text(&resp, 200, "ok");
        audit_request_end(ar, &req, &resp);
        http_response_release(&resp);
        assert_int_equal(
                metrics_get(metrics_find(reg, "apiserver_audit_error_total"), plugin, &errors), 0);
        assert_int_equal(
                metrics_get(metrics_find(reg, "apiserver_audit_event_total"), NULL, &events), 0);
        assert_true(errors == 2 && events == 2);
        audit_free(a);
        metrics_registry_free(reg);
        authn_user_free(u);
        cmd = xasprintf("rm -rf '%s'", dir);
        assert_int_equal(system(cmd), 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_evaluate),
                cmocka_unit_test(test_refusals),
                cmocka_unit_test(test_load_names_the_file),
                cmocka_unit_test(test_backup_name),
                cmocka_unit_test(test_rotation),
                cmocka_unit_test(test_request_events),
                cmocka_unit_test(test_stream_and_pending),
                cmocka_unit_test(test_write_errors_are_counted),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
