/* test-strategy-storage.c: storage classes, persistent volumes and claims through api_handle()
 * over a real store: discovery of the second API group, the OpenAPI documents kubectl
 * validates with, the strategies (defaults, /status separation, lastPhaseTransitionTime), the
 * admission plugins with their 403s, S22's 422, and upstream's Table cells. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apiserver/api.h"
#include "base/alloc.h"
#include "base/json.h"
#include "store/store.h"

#define AGGREGATED \
 "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"
#define TABLE "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"
#define SMP   "application/strategic-merge-patch+json"
#define MERGE "application/merge-patch+json"
#define PVCS  "/api/v1/namespaces/default/persistentvolumeclaims"
#define SCS   "/apis/storage.k8s.io/v1/storageclasses"

static struct {
        char dir[64];
        struct store *store;
        struct apiserver *api;
} fx;

static int setup(void **state)
{
        struct apiserver_options o = { .node_name = "n1", .listen = "127.0.0.1:6443" };
        cleanup_free char *db = NULL;

        strcpy(fx.dir, "/tmp/flexlet-test-storage.XXXXXX");
        assert_non_null(mkdtemp(fx.dir));
        db = xasprintf("%s/store.db", fx.dir);
        assert_int_equal(store_open_sqlite(db, &fx.store, NULL), 0);
        assert_int_equal(apiserver_new(fx.store, NULL, &o, &fx.api), 0);
        return 0;
}

static int teardown(void **state)
{
        cleanup_free char *cmd = xasprintf("rm -rf '%s'", fx.dir);

        apiserver_free(fx.api);
        store_close(fx.store);
        assert_int_equal(system(cmd), 0);
        return 0;
}

/* One request; body written with single quotes. */
static unsigned call(const char *method, const char *path, const char *accept,
                     const char *content_type, const char *body, json_t **ret_json)
{
        cleanup_free char *b = body ? xstrdup(body) : NULL;
        struct http_request req = {
                .method = method, .path = path, .accept = accept, .content_type = content_type
        };
        struct http_response resp;
        unsigned status;

        for (char *p = b; p && *p; p++)
                if (*p == '\'')
                        *p = '"';
        req.body = b;
        req.body_len = b ? strlen(b) : 0;
        http_response_init(&resp);
        api_handle(fx.api, &req, &resp);
        status = resp.status;
        if (ret_json)
                *ret_json = json_loads(resp.body.buf, 0, NULL);
        http_response_release(&resp);
        return status;
}

static void create_namespace(void)
{
        assert_int_equal(
                call("POST", "/api/v1/namespaces", NULL, "application/json",
                     "{'apiVersion':'v1','kind':'Namespace','metadata':{'name':'default'}}", NULL),
                201);
}

static void create_class(const char *name, bool is_default, bool expand)
{
        cleanup_free char *body = xasprintf(
                "{'apiVersion':'storage.k8s.io/v1','kind':'StorageClass','metadata':{'name':'%s'%s},"
                "'provisioner':'flexlet.io/local-loop','parameters':{'fsType':'ext4'},"
                "'allowVolumeExpansion':%s}",
                name,
                is_default ? ",'annotations':{'storageclass.kubernetes.io/is-default-class':'true'}"
                           : "",
                expand ? "true" : "false");

        assert_int_equal(call("POST", SCS, NULL, "application/json", body, NULL), 201);
}

static unsigned create_claim(const char *name, const char *cls, const char *size, json_t **ret)
{
        cleanup_free char *c = cls ? xasprintf(",'storageClassName':'%s'", cls) : xstrdup("");
        cleanup_free char *body = xasprintf(
                "{'apiVersion':'v1','kind':'PersistentVolumeClaim','metadata':{'name':'%s'},"
                "'spec':{'accessModes':['ReadWriteOnce'],'resources':{'requests':{'storage':"
                "'%s'}}%s}}",
                name, size, c);

        return call("POST", PVCS, NULL, "application/json", body, ret);
}

/* The first cause of a 422, as "field: message". */
static char *cause(const json_t *status)
{
        const json_t *c = json_array_get(json_path(status, "details.causes"), 0);

        return xasprintf("%s: %s", json_string_value(json_object_get(c, "field")),
                         json_string_value(json_object_get(c, "message")));
}

static const json_t *find_by(const json_t *list, const char *key, const char *value)
{
        size_t i;
        json_t *v;

        json_array_foreach(list, i, v) {
                if (streq(json_string_value(json_object_get(v, key)) ?: "", value))
                        return v;
        }
        return NULL;
}

static void test_discovery(void **state)
{
        cleanup_json json_t *apis = NULL, *api = NULL, *groups = NULL, *rl = NULL;
        const json_t *g, *res, *pvc;

        assert_int_equal(call("GET", "/apis", AGGREGATED, NULL, NULL, &apis), 200);
        g = json_array_get(json_object_get(apis, "items"), 0);
        assert_string_equal(json_path_string(g, "metadata.name"), "storage.k8s.io");
        res = find_by(
                json_object_get(json_array_get(json_object_get(g, "versions"), 0), "resources"),
                "resource", "storageclasses");
        assert_non_null(res);
        assert_string_equal(json_string_value(json_object_get(res, "scope")), "Cluster");
        assert_string_equal(json_path_string(res, "responseKind.group"), "storage.k8s.io");
        assert_string_equal(
                json_string_value(json_array_get(json_object_get(res, "shortNames"), 0)), "sc");

        assert_int_equal(call("GET", "/api", AGGREGATED, NULL, NULL, &api), 200);
        pvc = find_by(
                json_object_get(
                        json_array_get(
                                json_object_get(json_array_get(json_object_get(api, "items"), 0),
                                                "versions"),
                                0),
                        "resources"),
                "resource", "persistentvolumeclaims");
        assert_non_null(pvc);
        assert_string_equal(json_string_value(json_object_get(pvc, "scope")), "Namespaced");
        assert_string_equal(
                json_path_string(json_array_get(json_object_get(pvc, "subresources"), 0),
                                 "subresource"),
                "status");

        /* legacy discovery: the group list and the group-version's resources */
        assert_int_equal(call("GET", "/apis", "application/json", NULL, NULL, &groups), 200);
        assert_string_equal(json_string_value(json_object_get(
                                    json_array_get(json_object_get(groups, "groups"), 0), "name")),
                            "storage.k8s.io");
        assert_int_equal(call("GET", "/apis/storage.k8s.io/v1", NULL, NULL, NULL, &rl), 200);
        assert_string_equal(json_string_value(json_object_get(rl, "groupVersion")),
                            "storage.k8s.io/v1");
        assert_non_null(find_by(json_object_get(rl, "resources"), "name", "storageclasses"));
}

/* kubectl validates create/apply/edit against the group-version's OpenAPI document. */
static void test_openapi(void **state)
{
        cleanup_json json_t *root = NULL, *doc = NULL, *core = NULL;
        const char *url;
        char path[256];

        assert_int_equal(call("GET", "/openapi/v3", NULL, NULL, NULL, &root), 200);
        url = json_string_value(json_object_get(
                json_object_get(json_object_get(root, "paths"), "apis/storage.k8s.io/v1"),
                "serverRelativeURL"));
        assert_non_null(url);
        (void) snprintf(path, sizeof(path), "%.*s", (int) strcspn(url, "?"), url);
        assert_int_equal(call("GET", path, NULL, NULL, NULL, &doc), 200);
        assert_string_equal(
                json_string_value(
                        json_path(json_object_get(json_object_get(doc, "paths"),
                                                  "/apis/storage.k8s.io/v1/storageclasses/{name}"),
                                  "patch.x-kubernetes-group-version-kind.kind")),
                "StorageClass");
        assert_int_equal(call("GET", "/openapi/v3/api/v1", NULL, NULL, NULL, &core), 200);
        assert_non_null(
                json_object_get(json_object_get(core, "paths"),
                                "/api/v1/namespaces/{namespace}/persistentvolumeclaims/{name}"));
        assert_non_null(json_object_get(json_object_get(core, "paths"),
                                        "/api/v1/persistentvolumes/{name}"));
}

static void test_storage_class(void **state)
{
        cleanup_json json_t *sc = NULL, *table = NULL, *bad = NULL, *st = NULL;
        const json_t *cells;

        create_class("local-loop", true, true);
        assert_int_equal(call("GET", SCS "/local-loop", NULL, NULL, NULL, &sc), 200);
        assert_string_equal(json_string_value(json_object_get(sc, "reclaimPolicy")), "Delete");
        assert_string_equal(json_string_value(json_object_get(sc, "volumeBindingMode")),
                            "Immediate");
        assert_string_equal(json_string_value(json_object_get(sc, "apiVersion")),
                            "storage.k8s.io/v1");

        assert_int_equal(call("GET", SCS, TABLE, NULL, NULL, &table), 200);
        assert_string_equal(
                json_string_value(json_object_get(
                        json_array_get(json_object_get(table, "columnDefinitions"), 4), "name")),
                "AllowVolumeExpansion");
        cells = json_object_get(json_array_get(json_object_get(table, "rows"), 0), "cells");
        assert_string_equal(json_string_value(json_array_get(cells, 0)), "local-loop (default)");
        assert_string_equal(json_string_value(json_array_get(cells, 1)), "flexlet.io/local-loop");
        assert_string_equal(json_string_value(json_array_get(cells, 2)), "Delete");
        assert_string_equal(json_string_value(json_array_get(cells, 3)), "Immediate");
        assert_true(json_is_true(json_array_get(cells, 4)));

        /* K8S: parameters, provisioner, reclaimPolicy and the binding mode are fixed */
        assert_int_equal(call("PATCH", SCS "/local-loop", NULL, SMP,
                              "{'parameters':{'fsType':'xfs'}}", &bad),
                         422);
        {
                cleanup_free char *c = cause(bad);
                assert_string_equal(c, "parameters: Forbidden: updates to parameters are "
                                       "forbidden.");
        }
        assert_int_equal(
                call("PATCH", SCS "/local-loop", NULL, SMP, "{'allowVolumeExpansion':false}", &st),
                200);
        assert_false(json_is_true(json_object_get(st, "allowVolumeExpansion")));
}

static void test_claim_defaults_and_admission(void **state)
{
        cleanup_json json_t *pvc = NULL, *explicit_none = NULL, *grow = NULL, *bound = NULL;
        cleanup_json json_t *forbidden = NULL, *shrink = NULL, *ok = NULL, *table = NULL;
        cleanup_json json_t *fixed = NULL, *fixed_bound = NULL;
        const json_t *cells;

        create_namespace();
        /* no default class yet: the claim stays without one */
        assert_int_equal(create_claim("early", NULL, "1Gi", &pvc), 201);
        assert_null(json_path(pvc, "spec.storageClassName"));
        json_decref(pvc);
        create_class("local-loop", true, true);
        create_class("fixed", false, false);

        /* K8S: DefaultStorageClass names the default class; "" keeps no class */
        assert_int_equal(create_claim("data", NULL, "3Gi", &pvc), 201);
        assert_string_equal(json_path_string(pvc, "spec.storageClassName"), "local-loop");
        assert_string_equal(json_path_string(pvc, "spec.volumeMode"), "Filesystem");
        assert_string_equal(json_path_string(pvc, "status.phase"), "Pending");
        assert_int_equal(create_claim("none", "", "1Gi", &explicit_none), 201);
        assert_string_equal(json_path_string(explicit_none, "spec.storageClassName"), "");

        /* an unbound claim's request is part of its immutable spec (upstream's 422) */
        assert_int_equal(call("PATCH", PVCS "/data", NULL, SMP,
                              "{'spec':{'resources':{'requests':{'storage':'4Gi'}}}}", &grow),
                         422);
        assert_string_equal(json_path_string(grow, "details.kind"), "PersistentVolumeClaim");
        assert_string_equal(json_string_value(json_object_get(
                                    json_array_get(json_path(grow, "details.causes"), 0), "field")),
                            "spec");

        /* status is written through /status only */
        assert_int_equal(call("PATCH", PVCS "/data/status", NULL, MERGE,
                              "{'spec':{'accessModes':['ReadWriteMany']},'status':{'phase':"
                              "'Bound','accessModes':['ReadWriteOnce'],'capacity':{'storage':"
                              "'2Gi'}}}",
                              &bound),
                         200);
        assert_string_equal(json_path_string(bound, "status.phase"), "Bound");
        assert_string_equal(
                json_string_value(json_array_get(json_path(bound, "spec.accessModes"), 0)),
                "ReadWriteOnce");
        json_decref(grow);
        grow = NULL;
        assert_int_equal(call("PATCH", PVCS "/data", NULL, MERGE,
                              "{'status':{'phase':'Lost'},'metadata':{'labels':{'a':'b'}}}", &grow),
                         200);
        assert_string_equal(json_path_string(grow, "status.phase"), "Bound");

        /* S22: 3Gi with 2Gi in status: 2Gi is below what exists (422), 2500Mi recovers */
        assert_int_equal(call("PATCH", PVCS "/data", NULL, SMP,
                              "{'spec':{'resources':{'requests':{'storage':'2Gi'}}}}", &shrink),
                         422);
        {
                cleanup_free char *c = cause(shrink);
                assert_string_equal(c, "spec.resources.requests.storage: Forbidden: field can not "
                                       "be less than status.capacity");
        }
        assert_int_equal(call("PATCH", PVCS "/data", NULL, SMP,
                              "{'spec':{'resources':{'requests':{'storage':'2500Mi'}}}}", &ok),
                         200);
        assert_string_equal(json_path_string(ok, "spec.resources.requests.storage"), "2500Mi");
        json_decref(ok);
        ok = NULL;
        assert_int_equal(call("PATCH", PVCS "/data", NULL, SMP,
                              "{'spec':{'resources':{'requests':{'storage':'5Gi'}}}}", &ok),
                         200);

        /* K8S: strategic merge: claim conditions merge by type, accessModes are atomic */
        {
                cleanup_json json_t *c1 = NULL, *c2 = NULL;
                const json_t *conds;
                assert_int_equal(call("PATCH", PVCS "/data/status", NULL, SMP,
                                      "{'status':{'conditions':[{'type':'Resizing','status':"
                                      "'True'}],'accessModes':['ReadWriteOnce','ReadOnlyMany']}}",
                                      &c1),
                                 200);
                assert_int_equal(call("PATCH", PVCS "/data/status", NULL, SMP,
                                      "{'status':{'conditions':[{'type':'FileSystemResizePending',"
                                      "'status':'True'}],'accessModes':['ReadWriteOnce']}}",
                                      &c2),
                                 200);
                conds = json_path(c2, "status.conditions");
                assert_int_equal(json_array_size(conds), 2);
                assert_non_null(find_by(conds, "type", "Resizing"));
                assert_non_null(find_by(conds, "type", "FileSystemResizePending"));
                assert_int_equal(json_array_size(json_path(c2, "status.accessModes")), 1);
        }

        /* S22: a bound claim of a class without allowVolumeExpansion: 403 */
        assert_int_equal(create_claim("fixed", "fixed", "1Gi", &fixed), 201);
        assert_int_equal(call("PATCH", PVCS "/fixed/status", NULL, MERGE,
                              "{'status':{'phase':'Bound','capacity':{'storage':'1Gi'}}}",
                              &fixed_bound),
                         200);
        assert_int_equal(call("PATCH", PVCS "/fixed", NULL, SMP,
                              "{'spec':{'resources':{'requests':{'storage':'2Gi'}}}}", &forbidden),
                         403);
        assert_string_equal(json_string_value(json_object_get(forbidden, "message")),
                            "persistentvolumeclaims \"fixed\" is forbidden: only dynamically "
                            "provisioned pvc can be resized and the storageclass that "
                            "provisions the pvc must support resize");
        assert_string_equal(json_string_value(json_object_get(forbidden, "reason")), "Forbidden");
        assert_string_equal(json_path_string(forbidden, "details.kind"), "persistentvolumeclaims");

        /* upstream's columns; capacity and access modes once a volume is named */
        assert_int_equal(
                call("PATCH", PVCS "/fixed", NULL, SMP, "{'spec':{'volumeName':'pv-1'}}", NULL),
                200);
        assert_int_equal(call("GET", PVCS "/fixed", TABLE, NULL, NULL, &table), 200);
        assert_int_equal(json_array_size(json_object_get(table, "columnDefinitions")), 9);
        cells = json_object_get(json_array_get(json_object_get(table, "rows"), 0), "cells");
        assert_string_equal(json_string_value(json_array_get(cells, 1)), "Bound");
        assert_string_equal(json_string_value(json_array_get(cells, 2)), "pv-1");
        assert_string_equal(json_string_value(json_array_get(cells, 3)), "1Gi");
        assert_string_equal(json_string_value(json_array_get(cells, 4)), "");
        assert_string_equal(json_string_value(json_array_get(cells, 5)), "fixed");
        assert_string_equal(json_string_value(json_array_get(cells, 6)), "<unset>");
        assert_string_equal(json_string_value(json_array_get(cells, 8)), "Filesystem");
}

static void test_volume(void **state)
{
        cleanup_json json_t *pv = NULL, *upd = NULL, *st = NULL, *table = NULL, *bad = NULL;
        const json_t *cells;

        assert_int_equal(
                call("POST", "/api/v1/persistentvolumes", NULL, "application/json",
                     "{'apiVersion':'v1','kind':'PersistentVolume','metadata':{'name':'pv-1'},"
                     "'spec':{'capacity':{'storage':'1Gi'},'accessModes':['ReadWriteOnce',"
                     "'ReadWriteMany','ReadWriteOnce'],'storageClassName':'local-loop','csi':{"
                     "'driver':'local-loop.flexlet.io','volumeHandle':'h1','fsType':'ext4'}},"
                     "'status':{'phase':'Bound'}}",
                     &pv),
                201);
        /* K8S: PrepareForCreate: Pending now, whatever the request said; Retain by default */
        assert_string_equal(json_path_string(pv, "status.phase"), "Pending");
        assert_non_null(json_path_string(pv, "status.lastPhaseTransitionTime"));
        assert_string_equal(json_path_string(pv, "spec.persistentVolumeReclaimPolicy"), "Retain");

        assert_int_equal(call("PATCH", "/api/v1/persistentvolumes/pv-1", NULL, MERGE,
                              "{'status':{'phase':'Available'},'spec':{'claimRef':{'namespace':"
                              "'default','name':'data'}}}",
                              &upd),
                         200);
        assert_string_equal(json_path_string(upd, "status.phase"), "Pending");
        assert_string_equal(json_path_string(upd, "spec.claimRef.name"), "data");
        assert_int_equal(call("PATCH", "/api/v1/persistentvolumes/pv-1/status", NULL, MERGE,
                              "{'status':{'phase':'Bound'},'spec':{'capacity':{'storage':'5Gi'}}}",
                              &st),
                         200);
        assert_string_equal(json_path_string(st, "status.phase"), "Bound");
        assert_string_equal(json_path_string(st, "spec.capacity.storage"), "1Gi");

        assert_int_equal(call("PATCH", "/api/v1/persistentvolumes/pv-1", NULL, SMP,
                              "{'spec':{'csi':{'volumeHandle':'h2'}}}", &bad),
                         422);
        assert_string_equal(json_string_value(json_object_get(
                                    json_array_get(json_path(bad, "details.causes"), 0), "field")),
                            "spec.persistentvolumesource");

        assert_int_equal(call("GET", "/api/v1/persistentvolumes", TABLE, NULL, NULL, &table), 200);
        assert_int_equal(json_array_size(json_object_get(table, "columnDefinitions")), 11);
        cells = json_object_get(json_array_get(json_object_get(table, "rows"), 0), "cells");
        assert_string_equal(json_string_value(json_array_get(cells, 0)), "pv-1");
        assert_string_equal(json_string_value(json_array_get(cells, 1)), "1Gi");
        assert_string_equal(json_string_value(json_array_get(cells, 2)), "RWO,RWX");
        assert_string_equal(json_string_value(json_array_get(cells, 3)), "Retain");
        assert_string_equal(json_string_value(json_array_get(cells, 4)), "Bound");
        assert_string_equal(json_string_value(json_array_get(cells, 5)), "default/data");
        assert_string_equal(json_string_value(json_array_get(cells, 6)), "local-loop");
        assert_string_equal(json_string_value(json_array_get(cells, 7)), "<unset>");
        assert_string_equal(json_string_value(json_array_get(cells, 10)), "Filesystem");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_discovery, setup, teardown),
                cmocka_unit_test_setup_teardown(test_openapi, setup, teardown),
                cmocka_unit_test_setup_teardown(test_storage_class, setup, teardown),
                cmocka_unit_test_setup_teardown(test_claim_defaults_and_admission, setup, teardown),
                cmocka_unit_test_setup_teardown(test_volume, setup, teardown),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
