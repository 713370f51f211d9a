/* test-admission-storage.c: DefaultStorageClass (which class is the default, when a claim gets
 * it) and PersistentVolumeClaimResize (upstream's admission_test cases and S22), as pure
 * decisions and through the hooks over a real store. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "apiserver/admission-storage.h"
#include "base/alloc.h"
#include "base/json.h"
#include "store/store.h"

#define ONLY_BOUND "Only bound persistent volume claims can be expanded"
#define NO_RESIZE                                                                        \
 "only dynamically provisioned pvc can be resized and the storageclass that provisions " \
 "the pvc must support resize"

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

/* A class; annotation NULL for none. */
static json_t *sc(const char *name, const char *created, const char *annotation, bool expand)
{
        json_t *c = json_pack("{s:{s:s, s:s}, s:s, s:b}", "metadata", "name", name,
                              "creationTimestamp", created, "provisioner", "flexlet.io/local-loop",
                              "allowVolumeExpansion", expand);

        if (annotation)
                json_object_set_new(json_object_get(c, "metadata"), "annotations",
                                    json_pack("{s:s}", annotation, "true"));
        return c;
}

#define DEFAULT "storageclass.kubernetes.io/is-default-class"
#define BETA    "storageclass.beta.kubernetes.io/is-default-class"

static void test_default_class(void **state)
{
        cleanup_json json_t *none = json_pack("[o]", sc("a", "2025-01-01T00:00:00Z", NULL, true));
        cleanup_json json_t *one = json_pack("[o, o]", sc("a", "2025-01-01T00:00:00Z", NULL, true),
                                             sc("b", "2025-01-01T00:00:00Z", BETA, false));
        cleanup_json json_t *newest =
                json_pack("[o, o, o]", sc("old", "2025-01-01T00:00:00Z", DEFAULT, true),
                          sc("new", "2025-03-01T00:00:00Z", DEFAULT, true),
                          sc("mid", "2025-02-01T00:00:00Z", BETA, true));
        cleanup_json json_t *tie =
                json_pack("[o, o]", sc("zeta", "2025-01-01T00:00:00Z", DEFAULT, true),
                          sc("alpha", "2025-01-01T00:00:00Z", DEFAULT, true));

        assert_null(storage_class_default(none));
        assert_string_equal(json_path_string(storage_class_default(one), "metadata.name"), "b");
        /* K8S: several defaults: the newest wins, then the name in ascending order */
        assert_string_equal(json_path_string(storage_class_default(newest), "metadata.name"),
                            "new");
        assert_string_equal(json_path_string(storage_class_default(tie), "metadata.name"), "alpha");
}

static void test_default_class_assignment(void **state)
{
        cleanup_json json_t *classes =
                json_pack("[o]", sc("fast", "2025-01-01T00:00:00Z", DEFAULT, true));
        cleanup_json json_t *no_default =
                json_pack("[o]", sc("fast", "2025-01-01T00:00:00Z", NULL, true));
        cleanup_json json_t *bare = jparse("{'spec':{'accessModes':['ReadWriteOnce']}}");
        cleanup_json json_t *empty = jparse("{'spec':{'storageClassName':''}}");
        cleanup_json json_t *named = jparse("{'spec':{'storageClassName':'slow'}}");
        cleanup_json json_t *beta = jparse(
                "{'metadata':{'annotations':{'volume.beta.kubernetes.io/storage-class':'x'}},"
                "'spec':{}}");
        cleanup_json json_t *lone = jparse("{'spec':{}}");

        assert_true(pvc_default_storage_class(bare, classes));
        assert_string_equal(json_path_string(bare, "spec.storageClassName"), "fast");
        /* K8S: "" and the beta annotation both say which class: no default */
        assert_false(pvc_default_storage_class(empty, classes));
        assert_string_equal(json_path_string(empty, "spec.storageClassName"), "");
        assert_false(pvc_default_storage_class(named, classes));
        assert_string_equal(json_path_string(named, "spec.storageClassName"), "slow");
        assert_false(pvc_default_storage_class(beta, classes));
        assert_null(json_path(beta, "spec.storageClassName"));
        assert_false(pvc_default_storage_class(lone, no_default));
        assert_null(json_path(lone, "spec.storageClassName"));
}

static json_t *claim(const char *size, const char *phase, const char *cls)
{
        json_t *c = json_pack("{s:{s:{s:{s:s}}}, s:{s:s}}", "spec", "resources", "requests",
                              "storage", size, "status", "phase", phase);

        if (cls)
                json_object_set_new(json_object_get(c, "spec"), "storageClassName",
                                    json_string(cls));
        return c;
}

static void test_resize(void **state)
{
        static const struct {
                const char *name;
                const char *old_size, *new_size, *phase, *old_cls, *new_cls;
                int sc; /* 0: no class object, 1: expandable, 2: not, 3: field absent */
                const char *want;
        } cases[] = {
                { "same size", "1Gi", "1Gi", "Pending", "gold", "gold", 0, NULL },
                { "same size written otherwise", "1Gi", "1024Mi", "Pending", "gold", "gold", 0,
                  NULL },
                { "shrink is validation's business", "2Gi", "1Gi", "Pending", "gold", "gold", 0,
                  NULL },
                { "grow a pending claim", "1Gi", "2Gi", "Pending", "gold", "gold", 1, ONLY_BOUND },
                { "grow a lost claim", "1Gi", "2Gi", "Lost", "gold", "gold", 1, ONLY_BOUND },
                { "grow without a class", "1Gi", "2Gi", "Bound", NULL, NULL, 0, NO_RESIZE },
                { "grow with a missing class", "1Gi", "2Gi", "Bound", "gold", "gold", 0,
                  NO_RESIZE },
                { "grow in a class that does not expand", "1Gi", "2Gi", "Bound", "gold", "gold", 2,
                  NO_RESIZE },
                { "grow in a class that does not say", "1Gi", "2Gi", "Bound", "gold", "gold", 3,
                  NO_RESIZE },
                { "grow while changing class", "1Gi", "2Gi", "Bound", "silver", "gold", 1,
                  NO_RESIZE },
                { "grow in an expandable class", "1Gi", "2Gi", "Bound", "gold", "gold", 1, NULL },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                cleanup_json json_t *old =
                        claim(cases[i].old_size, cases[i].phase, cases[i].old_cls);
                cleanup_json json_t *new_pvc =
                        claim(cases[i].new_size, cases[i].phase, cases[i].new_cls);
                cleanup_json json_t *cls = NULL;
                cleanup_error struct error *err = NULL;
                int r;

                if (cases[i].sc)
                        cls = sc("gold", "2025-01-01T00:00:00Z", NULL, cases[i].sc == 1);
                if (cases[i].sc == 3)
                        json_object_del(cls, "allowVolumeExpansion");
                r = pvc_resize_admit(new_pvc, old, cls, &err);
                if (!cases[i].want) {
                        if (r != 0)
                                fail_msg("%s: refused: %s", cases[i].name, err->message);
                        continue;
                }
                if (r != -EPERM || !err || !streq(err->message, cases[i].want))
                        fail_msg("%s: want %s, got %d %s", cases[i].name, cases[i].want, r,
                                 err ? err->message : "");
        }
}

/* The hooks read the store: the default class at create, the claim's class at update. */
static void test_hooks(void **state)
{
        char dir[] = "/tmp/flexlet-test-admission.XXXXXX";
        cleanup_free char *db = NULL, *cmd = NULL;
        struct store *store = NULL;
        cleanup_json json_t *def = sc("local-loop", "2025-01-01T00:00:00Z", DEFAULT, true);
        cleanup_json json_t *fixed = sc("fixed", "2025-01-01T00:00:00Z", NULL, false);
        cleanup_json json_t *pvc = jparse("{'spec':{}}");
        cleanup_json json_t *old = claim("1Gi", "Bound", "fixed");
        cleanup_json json_t *grown = claim("2Gi", "Bound", "fixed");
        cleanup_json json_t *old2 = claim("1Gi", "Bound", "local-loop");
        cleanup_json json_t *grown2 = claim("2Gi", "Bound", "local-loop");
        cleanup_error struct error *err = NULL;

        assert_non_null(mkdtemp(dir));
        db = xasprintf("%s/store.db", dir);
        assert_int_equal(store_open_sqlite(db, &store, NULL), 0);

        /* no class yet: nothing to default to */
        assert_int_equal(pvc_admit(store, API_SUB_NONE, pvc, NULL, NULL), 0);
        assert_null(json_path(pvc, "spec.storageClassName"));
        assert_int_equal(store_create(store, "storageclasses", "", "local-loop", def, NULL), 0);
        assert_int_equal(store_create(store, "storageclasses", "", "fixed", fixed, NULL), 0);
        /* an update or a subresource write is not a create */
        assert_int_equal(pvc_admit(store, API_SUB_NONE, pvc, old, NULL), 0);
        assert_null(json_path(pvc, "spec.storageClassName"));
        assert_int_equal(pvc_admit(store, API_SUB_NONE, pvc, NULL, NULL), 0);
        assert_string_equal(json_path_string(pvc, "spec.storageClassName"), "local-loop");

        assert_int_equal(pvc_admit_validate(store, API_SUB_NONE, grown, old, &err), -EPERM);
        assert_string_equal(err->message, NO_RESIZE);
        /* K8S: the plugin ignores subresources: /status writes are never refused */
        assert_int_equal(pvc_admit_validate(store, API_SUB_STATUS, grown, old, NULL), 0);
        assert_int_equal(pvc_admit_validate(store, API_SUB_NONE, grown2, old2, NULL), 0);

        store_close(store);
        cmd = xasprintf("rm -rf '%s'", dir);
        assert_int_equal(system(cmd), 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_default_class),
                cmocka_unit_test(test_default_class_assignment),
                cmocka_unit_test(test_resize),
                cmocka_unit_test(test_hooks),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
