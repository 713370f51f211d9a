/* test-garbage-collector.c: the garbage collector's graph and plan, as tables of objects and
 * the actions planned for them: owners gone (background), references checked by uid, kind, name
 * and namespace, a live owner keeping its dependent, Foreground (waiting owners, blocking
 * dependents, dependents with dependents of their own) and Orphan. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "base/alloc.h"
#include "base/json.h"
#include "base/strbuf.h"
#include "controllers/garbage-collector.h"

/* A ConfigMap (or the kind given in x) named name with uid name, in namespace default, with
 * the extra metadata x (a JSON object text, merged into metadata). */
static json_t *object(const char *name, const char *x)
{
        json_t *o =
                json_pack("{s:s, s:s, s:{s:s, s:s, s:s}}", "apiVersion", "v1", "kind", "ConfigMap",
                          "metadata", "name", name, "uid", name, "namespace", "default");
        json_t *extra = json_loads(x, 0, NULL);
        json_t *kind = json_object_get(extra, "kind");

        assert_non_null(extra);
        if (kind) {
                json_object_set(o, "kind", kind);
                json_object_set(o, "apiVersion", json_object_get(extra, "apiVersion"));
                json_object_del(extra, "kind");
                json_object_del(extra, "apiVersion");
        }
        json_object_update(json_object_get(o, "metadata"), extra);
        json_decref(extra);
        return o;
}

/* "verb name [arg]" per action, joined by "; " */
static char *plan_string(const char *const *specs, size_t n)
{
        struct gc_item items[8];
        json_t *objs[8], *plan, *a;
        struct strbuf sb;
        size_t i;

        assert_true(n <= 8);
        for (i = 0; i < n; i++) {
                objs[i] = object(specs[2 * i], specs[2 * i + 1]);
                items[i] = (struct gc_item){ .obj = objs[i], .resource = 0 };
        }
        plan = gc_plan(items, n);
        strbuf_init(&sb);
        json_array_foreach(plan, i, a) {
                const json_t *obj = objs[json_integer_value(json_object_get(a, "item"))];
                cleanup_free char *uids = json_dump_compact(json_object_get(a, "uids"));
                const json_t *ab = json_object_get(a, "absent");
                size_t k;
                json_t *r;

                if (i)
                        strbuf_addstr(&sb, "; ");
                strbuf_addf(&sb, "%s %s", json_path_string_or_empty(a, "verb"),
                            json_path_string_or_empty(obj, "metadata.name"));
                if (json_object_get(a, "propagationPolicy"))
                        strbuf_addf(&sb, " %s", json_path_string_or_empty(a, "propagationPolicy"));
                if (json_object_get(a, "uids"))
                        strbuf_addf(&sb, " %s", uids);
                if (json_object_get(a, "finalizer"))
                        strbuf_addf(&sb, " %s", json_path_string_or_empty(a, "finalizer"));
                json_array_foreach(ab, k, r)
                        strbuf_addf(&sb, " ?%s", json_path_string_or_empty(r, "name"));
        }
        json_decref(plan);
        for (i = 0; i < n; i++)
                json_decref(objs[i]);
        return strbuf_detach(&sb);
}

#define REF(name) \
 "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"name\":\"" name "\",\"uid\":\"" name "\"}"
#define REF_BLOCK(name)                                                                \
 "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"name\":\"" name "\",\"uid\":\"" name \
 "\",\"blockOwnerDeletion\":true}"
#define DELETING "\"deletionTimestamp\":\"2026-01-01T00:00:00Z\""

struct plan_case {
        const char *name;
        const char *objects[16]; /* name, extra metadata; NULL-terminated */
        const char *want;
};

static const struct plan_case cases[] = {
        { "no owners: nothing", { "a", "{}", "b", "{}", NULL }, "" },
        { "a live owner keeps its dependent",
          { "a", "{}", "b", "{\"ownerReferences\":[" REF("a") "]}", NULL },
          "" },
        { "an owner the graph lacks: delete in the background once confirmed gone",
          { "b", "{\"ownerReferences\":[" REF("a") "]}", NULL },
          "delete b Background ?a" },
        { "a uid that names another object: dangling",
          { "a", "{}", "b",
            "{\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"name\":\"x\","
            "\"uid\":\"a\"}]}",
            NULL },
          "delete b Background ?x" },
        { "the owner's kind must match too",
          { "a", "{}", "b",
            "{\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"name\":\"a\","
            "\"uid\":\"a\"}]}",
            NULL },
          "delete b Background ?a" },
        { "a namespaced owner in another namespace is not the owner",
          { "a", "{\"namespace\":\"other\"}", "b", "{\"ownerReferences\":[" REF("a") "]}", NULL },
          "delete b Background ?a" },
        { "one live owner: only the dangling reference goes",
          { "a", "{}", "b", "{\"ownerReferences\":[" REF("a") "," REF("z") "]}", NULL },
          "removeOwnerReferences b [\"z\"] ?z" },
        { "a dependent's own orphan finalizer is its policy",
          { "b", "{\"ownerReferences\":[" REF("a") "],\"finalizers\":[\"orphan\"]}", NULL },
          "delete b Orphan ?a" },
        { "an object being deleted is not collected",
          { "b", "{\"ownerReferences\":[" REF("a") "]," DELETING "}", NULL },
          "" },
        { "foreground: the owner's dependents are deleted, the owner waits for the blocking one",
          { "a", "{" DELETING ",\"finalizers\":[\"foregroundDeletion\"]}", "b",
            "{\"ownerReferences\":[" REF_BLOCK("a") "]}", "c",
            "{\"ownerReferences\":[" REF("a") "]}", NULL },
          "delete b Background; delete c Background" },
        { "foreground: a blocking dependent being deleted still blocks",
          { "a", "{" DELETING ",\"finalizers\":[\"foregroundDeletion\"]}", "b",
            "{\"ownerReferences\":[" REF_BLOCK("a") "]," DELETING "}", NULL },
          "" },
        { "foreground: with no blocking dependent left the finalizer goes",
          { "a", "{" DELETING ",\"finalizers\":[\"foregroundDeletion\",\"x/y\"]}", "c",
            "{\"ownerReferences\":[" REF("a") "]," DELETING "}", NULL },
          "removeFinalizer a foregroundDeletion" },
        { "foreground: a dependent with dependents of its own goes in the foreground",
          { "a", "{" DELETING ",\"finalizers\":[\"foregroundDeletion\"]}", "b",
            "{\"ownerReferences\":[" REF_BLOCK("a") "]}", "c",
            "{\"ownerReferences\":[" REF_BLOCK("b") "]}", NULL },
          "delete b Foreground" },
        { "foreground: a dependent with another live owner loses the waiting reference",
          { "a", "{" DELETING ",\"finalizers\":[\"foregroundDeletion\"]}", "k", "{}", "b",
            "{\"ownerReferences\":[" REF_BLOCK("a") "," REF("k") "]}", NULL },
          "removeOwnerReferences b [\"a\"]" },
        { "orphan: every dependent loses its reference first",
          { "a", "{" DELETING ",\"finalizers\":[\"orphan\"]}", "b",
            "{\"ownerReferences\":[" REF("a") "," REF("k") "]}", "k", "{}", NULL },
          "removeOwnerReferences b [\"a\"]" },
        { "orphan: then the finalizer goes",
          { "a", "{" DELETING ",\"finalizers\":[\"orphan\"]}", "b", "{}", NULL },
          "removeFinalizer a orphan" },
        { "an owner being deleted without a GC finalizer is still an owner",
          { "a", "{" DELETING ",\"finalizers\":[\"x/y\"]}", "b",
            "{\"ownerReferences\":[" REF("a") "]}", NULL },
          "" },
        { "a cluster-scoped owner of a namespaced dependent",
          { "n", "{\"namespace\":\"\",\"kind\":\"Node\",\"apiVersion\":\"v1\"}", "b",
            "{\"ownerReferences\":[{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"name\":\"n\","
            "\"uid\":\"n\"}]}",
            NULL },
          "" },
};

static void test_plan(void **state)
{
        (void) state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                size_t n = 0;
                cleanup_free char *got = NULL;

                while (cases[i].objects[2 * n])
                        n++;
                got = plan_string(cases[i].objects, n);
                if (!streq(got, cases[i].want))
                        fail_msg("%s: want \"%s\", got \"%s\"", cases[i].name, cases[i].want, got);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_plan),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
