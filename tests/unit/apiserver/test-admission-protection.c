/* test-admission-protection.c: StorageObjectInUseProtection (upstream's admission_test cases): a
 * claim or volume created through the main resource gets its finalizer once, after any it has;
 * updates and subresource writes are left alone; and through the API the deletion of a protected
 * claim only marks it until the finalizer goes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "api/validation.h"
#include "apiserver/admission-storage.h"
#include "apiserver/api.h"
#include "base/alloc.h"
#include "base/json.h"
#include "http/http.h"
#include "store/store.h"

static json_t *jparse(const char *s)
{
        char *dup = xstrdup(s);
        json_t *v;

        for (char *p = dup; *p; p++)
                if (*p == '\'')
                        *p = '"';
        v = json_loads(dup, 0, NULL);
        assert_non_null(v);
        free(dup);
        return v;
}

static void assert_finalizers(const json_t *obj, const char *want)
{
        cleanup_free char *got = json_dump_compact(json_path(obj, "metadata.finalizers"));
        cleanup_json json_t *w = jparse(want);
        cleanup_free char *wanted = json_dump_compact(w);

        if (!streq(got, wanted))
                fail_msg("finalizers: want %s, got %s", wanted, got);
}

static void test_protect(void **state)
{
        static const struct {
                const char *obj;
                const char *want;
                bool added;
        } cases[] = {
                /* K8S: "create -> add finalizer" */
                { "{'metadata':{'name':'a'}}", "['kubernetes.io/pvc-protection']", true },
                { "{}", "['kubernetes.io/pvc-protection']", true },
                { "{'metadata':{'finalizers':[]}}", "['kubernetes.io/pvc-protection']", true },
                /* K8S: "existing finalizers -> add finalizer" (appended, order kept) */
                { "{'metadata':{'finalizers':['a.io/x','b.io/y']}}",
                  "['a.io/x','b.io/y','kubernetes.io/pvc-protection']", true },
                /* K8S: "finalizer already exists -> no new finalizer" */
                { "{'metadata':{'finalizers':['kubernetes.io/pvc-protection','a.io/x']}}",
                  "['kubernetes.io/pvc-protection','a.io/x']", false },
                { "{'metadata':{'finalizers':null}}", "['kubernetes.io/pvc-protection']", true },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                cleanup_json json_t *obj = jparse(cases[i].obj);

                assert_int_equal(storage_object_protect(obj, PVC_PROTECTION_FINALIZER),
                                 cases[i].added);
                assert_finalizers(obj, cases[i].want);
        }
}

/* The hooks: creates of the object itself only (K8S: the plugin's handler is Create, and it
 * skips subresources). */
static void test_hooks(void **state)
{
        cleanup_json json_t *pvc = jparse("{'metadata':{'name':'c'},'spec':{}}");
        cleanup_json json_t *pv = jparse("{'metadata':{'name':'v','finalizers':['a.io/x']}}");
        cleanup_json json_t *old = jparse("{'metadata':{'name':'v'}}");
        cleanup_json json_t *upd = jparse("{'metadata':{'name':'v'}}");
        cleanup_json json_t *status = jparse("{'metadata':{'name':'v'}}");

        /* no store: the claim's DefaultStorageClass needs one only when it has no class */
        json_object_set_new(json_object_get(pvc, "spec"), "storageClassName", json_string(""));
        assert_int_equal(pvc_admit(NULL, API_SUB_NONE, pvc, NULL, NULL), 0);
        assert_finalizers(pvc, "['kubernetes.io/pvc-protection']");
        assert_int_equal(pv_admit(NULL, API_SUB_NONE, pv, NULL, NULL), 0);
        assert_finalizers(pv, "['a.io/x','kubernetes.io/pv-protection']");

        /* an update may drop the finalizer (a PUT replaces metadata.finalizers) */
        assert_int_equal(pv_admit(NULL, API_SUB_NONE, upd, old, NULL), 0);
        assert_null(json_path(upd, "metadata.finalizers"));
        assert_int_equal(pvc_admit(NULL, API_SUB_NONE, upd, old, NULL), 0);
        assert_null(json_path(upd, "metadata.finalizers"));
        assert_int_equal(pv_admit(NULL, API_SUB_STATUS, status, NULL, NULL), 0);
        assert_null(json_path(status, "metadata.finalizers"));
}

/* ---- through the API: create, delete marks, removing the finalizer removes ---- */

static struct apiserver *api;
static struct store *store;
static char dir[] = "/tmp/flexlet-test-protection.XXXXXX";

static int call(const char *method, const char *path, const char *content_type, const char *body,
                json_t **ret);

static int setup(void **state)
{
        struct apiserver_options o = { .node_name = "n1", .listen = "127.0.0.1:6443" };
        cleanup_free char *db = NULL;

        assert_non_null(mkdtemp(dir));
        db = xasprintf("%s/store.db", dir);
        assert_int_equal(store_open_sqlite(db, &store, NULL), 0);
        assert_int_equal(apiserver_new(store, NULL, &o, &api), 0);
        assert_int_equal(
                call("POST", "/api/v1/namespaces", "application/json",
                     "{'apiVersion':'v1','kind':'Namespace','metadata':{'name':'default'}}", NULL),
                201);
        return 0;
}

static int teardown(void **state)
{
        cleanup_free char *cmd = xasprintf("rm -rf '%s'", dir);

        apiserver_free(api);
        store_close(store);
        assert_int_equal(system(cmd), 0);
        return 0;
}

static int call(const char *method, const char *path, const char *content_type, const char *body,
                json_t **ret)
{
        cleanup_free char *b = body ? xstrdup(body) : NULL;
        struct http_request req = { .method = method, .path = path };
        struct http_response resp;
        int status;

        if (b)
                for (char *p = b; *p; p++)
                        if (*p == '\'')
                                *p = '"';
        req.content_type = content_type;
        req.body = b;
        req.body_len = b ? strlen(b) : 0;
        http_response_init(&resp);
        api_handle(api, &req, &resp);
        status = resp.status;
        if (ret)
                *ret = resp.body.len ? json_loads(resp.body.buf, 0, NULL) : NULL;
        http_response_release(&resp);
        return status;
}

#define PVCS "/api/v1/namespaces/default/persistentvolumeclaims"

static void test_api(void **state)
{
        cleanup_json json_t *created = NULL, *marked = NULL, *got = NULL, *pv = NULL, *last = NULL,
                            *status = NULL;

        assert_int_equal(
                call("POST", PVCS, "application/json",
                     "{'apiVersion':'v1','kind':'PersistentVolumeClaim','metadata':{'name':'c'},"
                     "'spec':{'storageClassName':'','accessModes':['ReadWriteOnce'],"
                     "'resources':{'requests':{'storage':'1Gi'}}}}",
                     &created),
                201);
        assert_finalizers(created, "['kubernetes.io/pvc-protection']");
        assert_int_equal(
                call("POST", "/api/v1/persistentvolumes", "application/json",
                     "{'apiVersion':'v1','kind':'PersistentVolume','metadata':{'name':'v'},"
                     "'spec':{'capacity':{'storage':'1Gi'},'accessModes':['ReadWriteOnce'],"
                     "'hostPath':{'path':'/tmp/v'}}}",
                     &pv),
                201);
        assert_finalizers(pv, "['kubernetes.io/pv-protection']");

        /* K8S: a /status write of the claim neither adds nor drops it */
        assert_int_equal(call("PATCH", PVCS "/c/status", "application/merge-patch+json",
                              "{'status':{'phase':'Bound'}}", &status),
                         200);
        assert_finalizers(status, "['kubernetes.io/pvc-protection']");

        /* a DELETE of a protected claim marks it (deletionTimestamp, grace 0) and keeps it */
        assert_int_equal(call("DELETE", PVCS "/c", NULL, NULL, &marked), 200);
        assert_non_null(json_path(marked, "metadata.deletionTimestamp"));
        assert_int_equal(
                json_integer_value(json_path(marked, "metadata.deletionGracePeriodSeconds")), 0);
        assert_int_equal(call("GET", PVCS "/c", NULL, NULL, &got), 200);
        assert_finalizers(got, "['kubernetes.io/pvc-protection']");
        /* what the controller does: remove the finalizer; the write removes the claim */
        assert_int_equal(call("PATCH", PVCS "/c", "application/json-patch+json",
                              "[{'op':'remove','path':'/metadata/finalizers/0'}]", &last),
                         200);
        assert_int_equal(call("GET", PVCS "/c", NULL, NULL, NULL), 404);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_protect),
                cmocka_unit_test(test_hooks),
                cmocka_unit_test_setup_teardown(test_api, setup, teardown),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
