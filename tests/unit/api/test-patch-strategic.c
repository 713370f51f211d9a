/* test-patch-strategic.c: strategic merge patch and minimal server-side apply.
 * Driven by the exact patches kubectl sends (kubectl-wire.md §4.4, §4.9, §4.10), every
 * directive and its upstream error text, upstream strategicpatch's own test cases
 * (k8s.io/apimachinery patch_test.go, applied as the apiserver applies them) and hostile
 * inputs: wrong types, deep nesting, large lists. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "api/patch.h"
#include "api/schemas.h"
#include "base/json.h"

/* ---- a pod-like schema ------------------------------------------------------------------ */

static const struct schema s_string = { .kind = SCHEMA_STRING };
static const struct schema s_int = { .kind = SCHEMA_INTEGER, .go_type = "int32" };
static const struct schema s_quantity = { .kind = SCHEMA_QUANTITY };
static const struct schema s_any = { .kind = SCHEMA_ANY };
static const struct schema s_string_map = { .kind = SCHEMA_MAP, .items = &s_string };
static const struct schema s_resource_list = { .kind = SCHEMA_MAP, .items = &s_quantity };
static const struct schema s_string_atomic = { .kind = SCHEMA_LIST, .items = &s_string };
static const struct schema s_string_set = { .kind = SCHEMA_LIST,
                                            .items = &s_string,
                                            .list_type = SCHEMA_LIST_SET };

static const struct schema_field env_fields[] = {
        { "name", &s_string, 0, 0 },
        { "value", &s_string, 0, 0 },
        { .name = NULL },
};
static const struct schema s_env_var = { .kind = SCHEMA_OBJECT,
                                         .go_type = "EnvVar",
                                         .fields = env_fields };
static const struct schema s_env = {
        .kind = SCHEMA_LIST, .items = &s_env_var, .list_type = SCHEMA_LIST_MAP, .merge_key = "name"
};

static const struct schema_field port_fields[] = {
        { "name", &s_string, 0, 0 },
        { "containerPort", &s_int, 0, 0 },
        { "protocol", &s_string, 0, 0 },
        { .name = NULL },
};
static const struct schema s_port = { .kind = SCHEMA_OBJECT,
                                      .go_type = "ContainerPort",
                                      .fields = port_fields };
static const struct schema s_ports = { .kind = SCHEMA_LIST,
                                       .items = &s_port,
                                       .list_type = SCHEMA_LIST_MAP,
                                       .merge_key = "containerPort" };

static const struct schema_field resources_fields[] = {
        { "limits", &s_resource_list, 0, 0 },
        { "requests", &s_resource_list, 0, 0 },
        { .name = NULL },
};
static const struct schema s_resources = { .kind = SCHEMA_OBJECT,
                                           .go_type = "ResourceRequirements",
                                           .fields = resources_fields };

static const struct schema_field container_fields[] = {
        { "name", &s_string, 0, 0 },
        { "image", &s_string, 0, 0 },
        { "command", &s_string_atomic, 0, 0 },
        { "env", &s_env, 0, 0 },
        { "ports", &s_ports, 0, 0 },
        { "resources", &s_resources, 0, 0 },
        { .name = NULL },
};
static const struct schema s_container = { .kind = SCHEMA_OBJECT,
                                           .go_type = "Container",
                                           .fields = container_fields };
static const struct schema s_containers = { .kind = SCHEMA_LIST,
                                            .items = &s_container,
                                            .list_type = SCHEMA_LIST_MAP,
                                            .merge_key = "name" };

static const struct schema_field empty_dir_fields[] = {
        { "medium", &s_string, 0, 0 },
        { "sizeLimit", &s_quantity, 0, 0 },
        { .name = NULL },
};
static const struct schema s_empty_dir = { .kind = SCHEMA_OBJECT,
                                           .go_type = "EmptyDirVolumeSource",
                                           .fields = empty_dir_fields };
static const struct schema_field host_path_fields[] = {
        { "path", &s_string, 0, 0 },
        { "type", &s_string, 0, 0 },
        { .name = NULL },
};
static const struct schema s_host_path = { .kind = SCHEMA_OBJECT,
                                           .go_type = "HostPathVolumeSource",
                                           .fields = host_path_fields };
static const struct schema_field volume_fields[] = {
        { "name", &s_string, 0, 0 },
        { "emptyDir", &s_empty_dir, 0, 0 },
        { "hostPath", &s_host_path, 0, 0 },
        { .name = NULL },
};
static const struct schema s_volume = { .kind = SCHEMA_OBJECT,
                                        .go_type = "Volume",
                                        .fields = volume_fields };
static const struct schema s_volumes = { .kind = SCHEMA_LIST,
                                         .items = &s_volume,
                                         .list_type = SCHEMA_LIST_MAP,
                                         .merge_key = "name",
                                         .retain_keys = true };

static const struct schema_field toleration_fields[] = {
        { "key", &s_string, 0, 0 },
        { "operator", &s_string, 0, 0 },
        { "value", &s_string, 0, 0 },
        { "effect", &s_string, 0, 0 },
        { .name = NULL },
};
static const struct schema s_toleration = { .kind = SCHEMA_OBJECT,
                                            .go_type = "Toleration",
                                            .fields = toleration_fields };
static const struct schema s_tolerations = { .kind = SCHEMA_LIST, .items = &s_toleration };

static const struct schema_field spec_fields[] = {
        { "containers", &s_containers, 0, 0 },   { "volumes", &s_volumes, 0, 0 },
        { "tolerations", &s_tolerations, 0, 0 }, { "nodeSelector", &s_string_map, 0, 0 },
        { "nodeName", &s_string, 0, 0 },         { .name = NULL },
};
static const struct schema s_spec = { .kind = SCHEMA_OBJECT,
                                      .go_type = "PodSpec",
                                      .fields = spec_fields };

static const struct schema_field owner_fields[] = {
        { "uid", &s_string, 0, 0 },
        { "name", &s_string, 0, 0 },
        { "kind", &s_string, 0, 0 },
        { .name = NULL },
};
static const struct schema s_owner = { .kind = SCHEMA_OBJECT,
                                       .go_type = "OwnerReference",
                                       .fields = owner_fields };
static const struct schema s_owners = {
        .kind = SCHEMA_LIST, .items = &s_owner, .list_type = SCHEMA_LIST_MAP, .merge_key = "uid"
};

static const struct schema_field meta_fields[] = {
        { "name", &s_string, 0, 0 },
        { "namespace", &s_string, 0, 0 },
        { "labels", &s_string_map, 0, 0 },
        { "annotations", &s_string_map, 0, 0 },
        { "finalizers", &s_string_set, 0, 0 },
        { "ownerReferences", &s_owners, 0, 0 },
        { .name = NULL },
};
static const struct schema s_meta = { .kind = SCHEMA_OBJECT,
                                      .go_type = "ObjectMeta",
                                      .fields = meta_fields };

static const struct schema_field pod_fields[] = {
        { "apiVersion", &s_string, 0, 0 }, { "kind", &s_string, 0, 0 },
        { "metadata", &s_meta, 0, 0 },     { "spec", &s_spec, 0, 0 },
        { "status", &s_any, 0, 0 },        { .name = NULL },
};
static const struct schema s_pod = { .kind = SCHEMA_OBJECT,
                                     .go_type = "Pod",
                                     .fields = pod_fields };

/* ---- upstream's MergeItem test schema (patch_test.go) ----------------------------------- */

static const struct schema s_merge_item;
static const struct schema s_merging_list = { .kind = SCHEMA_LIST,
                                              .items = &s_merge_item,
                                              .list_type = SCHEMA_LIST_MAP,
                                              .merge_key = "name" };
static const struct schema s_nonmerging_list = { .kind = SCHEMA_LIST, .items = &s_merge_item };
static const struct schema s_merging_int_list = { .kind = SCHEMA_LIST,
                                                  .items = &s_int,
                                                  .list_type = SCHEMA_LIST_SET };
static const struct schema s_nonmerging_int_list = { .kind = SCHEMA_LIST, .items = &s_int };
static const struct schema s_retain_list = { .kind = SCHEMA_LIST,
                                             .items = &s_merge_item,
                                             .list_type = SCHEMA_LIST_MAP,
                                             .merge_key = "name",
                                             .retain_keys = true };
static const struct schema_field retain_item_fields[] = {
        { "name", &s_string, 0, 0 },
        { "value", &s_string, 0, 0 },
        { "other", &s_string, 0, 0 },
        { "simpleMap", &s_string_map, 0, 0 },
        { "mergingIntList", &s_merging_int_list, 0, 0 },
        { "mergingList", &s_merging_list, 0, 0 },
        { "nonMergingList", &s_nonmerging_list, 0, 0 },
        { .name = NULL },
};
static const struct schema s_retain_item = { .kind = SCHEMA_OBJECT,
                                             .go_type = "RetainKeysMergeItem",
                                             .fields = retain_item_fields,
                                             .retain_keys = true };
static const struct schema_field merge_item_fields[] = {
        { "name", &s_string, 0, 0 },
        { "value", &s_string, 0, 0 },
        { "other", &s_string, 0, 0 },
        { "mergingList", &s_merging_list, 0, 0 },
        { "nonMergingList", &s_nonmerging_list, 0, 0 },
        { "mergingIntList", &s_merging_int_list, 0, 0 },
        { "nonMergingIntList", &s_nonmerging_int_list, 0, 0 },
        { "mergeItemPtr", &s_merging_list, 0, 0 },
        { "simpleMap", &s_string_map, 0, 0 },
        { "retainKeysMap", &s_retain_item, 0, 0 },
        { "retainKeysMergingList", &s_retain_list, 0, 0 },
        { .name = NULL },
};
static const struct schema s_merge_item = { .kind = SCHEMA_OBJECT,
                                            .go_type = "MergeItem",
                                            .fields = merge_item_fields };

/* ---- helpers ------------------------------------------------------------------------------ */

struct patch_case {
        const char *name;
        const char *original; /* NULL: absent (apply creates) */
        const char *patch;
        const char *expected; /* NULL when an error is expected */
        const char *error;    /* the exact message, or a substring for upstream's cases */
};

static json_t *parse(const char *text)
{
        json_error_t jerr;
        json_t *v;

        if (!text)
                return NULL;
        v = json_loads(text, JSON_DECODE_ANY, &jerr);
        if (!v) {
                print_error("bad test JSON (%s): %s\n", jerr.text, text);
                fail();
        }
        return v;
}

enum engine {
        ENGINE_STRATEGIC,
        ENGINE_APPLY,
};

/* Runs one case; exact_error says whether c->error must match whole. */
static void run_case(enum engine engine, const struct schema *schema, const struct patch_case *c,
                     bool exact_error)
{
        cleanup_json json_t *original = parse(c->original), *patch = parse(c->patch);
        cleanup_json json_t *expected = parse(c->expected), *result = NULL;
        cleanup_free char *before =
                original ? json_dumps(original, JSON_SORT_KEYS | JSON_ENCODE_ANY) : NULL;
        cleanup_free char *after = NULL;
        struct error *err = NULL;
        int r;

        if (engine == ENGINE_STRATEGIC)
                r = patch_strategic_merge(original, patch, schema, &result, &err);
        else
                r = patch_apply(original, patch, schema, &result, &err);

        /* The original is borrowed: never modified. */
        if (original) {
                after = json_dumps(original, JSON_SORT_KEYS | JSON_ENCODE_ANY);
                if (!streq(before, after)) {
                        print_error("%s: original modified:\n%s\n", c->name, after);
                        fail();
                }
        }
        if (c->error) {
                if (r >= 0) {
                        cleanup_free char *got = json_dump_compact(result);

                        print_error("%s: expected error \"%s\", got %s\n", c->name, c->error, got);
                        fail();
                }
                assert_int_equal(r, -EINVAL);
                assert_non_null(err);
                if (exact_error ? !streq(err->message, c->error)
                                : !strstr(err->message, c->error)) {
                        print_error("%s: error\n  got:  %s\n  want: %s\n", c->name, err->message,
                                    c->error);
                        error_free(err);
                        fail();
                }
                error_free(err);
                return;
        }
        if (r < 0) {
                print_error("%s: unexpected error: %s\n", c->name, err ? err->message : "?");
                error_free(err);
                fail();
        }
        if (!json_equal(result, expected)) {
                cleanup_free char *got = json_dump_compact(result);
                cleanup_free char *want = json_dump_compact(expected);

                print_error("%s:\n  got:  %s\n  want: %s\n", c->name, got, want);
                fail();
        }
        /* The result shares nothing with the patch: changing it leaves the patch intact. */
        if (json_is_object(result)) {
                cleanup_free char *p1 = json_dumps(patch, JSON_SORT_KEYS | JSON_ENCODE_ANY);
                cleanup_free char *p2 = NULL;
                const char *key;
                json_t *v;

                json_object_foreach(result, key, v)
                        if (json_is_object(v))
                                json_object_set_new(v, "zzz-mutated", json_true());
                p2 = json_dumps(patch, JSON_SORT_KEYS | JSON_ENCODE_ANY);
                assert_string_equal(p1, p2);
        }
}

/* ---- kubectl's own patches, and each directive ------------------------------------------ */

static const struct patch_case pod_cases[] = {
        /* kubectl-wire.md §4.4: client-side apply changing an image and a label. */
        { "kubectl apply: image and label",
          "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"app\",\"namespace\":"
          "\"default\",\"labels\":{\"app\":\"web\",\"tier\":\"y\"},\"annotations\":{\"kubectl."
          "kubernetes.io/last-applied-configuration\":\"{\\\"old\\\":1}\\n\"}},\"spec\":{"
          "\"containers\":[{\"name\":\"main\",\"image\":\"nginx:1.25\"},{\"name\":\"side\","
          "\"image\":\"busybox\"}],\"nodeName\":\"n1\"}}",
          "{\"metadata\":{\"annotations\":{\"kubectl.kubernetes.io/last-applied-configuration\":"
          "\"{\\\"new\\\":1}\\n\"},\"labels\":{\"tier\":\"z\"}},\"spec\":{\"$setElementOrder/"
          "containers\":[{\"name\":\"main\"},{\"name\":\"side\"}],\"containers\":[{\"image\":"
          "\"nginx:1.26\",\"name\":\"main\"}]}}",
          "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"app\",\"namespace\":"
          "\"default\",\"labels\":{\"app\":\"web\",\"tier\":\"z\"},\"annotations\":{\"kubectl."
          "kubernetes.io/last-applied-configuration\":\"{\\\"new\\\":1}\\n\"}},\"spec\":{"
          "\"containers\":[{\"name\":\"main\",\"image\":\"nginx:1.26\"},{\"name\":\"side\","
          "\"image\":\"busybox\"}],\"nodeName\":\"n1\"}}",
          NULL },
        /* kubectl-wire.md §4.4: removing a container, a label, an env var and a finalizer,
         * switching a volume from emptyDir to hostPath and replacing tolerations. */
        { "kubectl apply: every directive at once",
          "{\"metadata\":{\"name\":\"app\",\"labels\":{\"app\":\"web\",\"tier\":\"y\"},"
          "\"finalizers\":[\"example.com/a\",\"example.com/b\"]},\"spec\":{\"containers\":[{"
          "\"name\":\"c\",\"image\":\"nginx\",\"env\":[{\"name\":\"A\",\"value\":\"1\"},{\"name\":"
          "\"B\",\"value\":\"2\"}]},{\"name\":\"side\",\"image\":\"busybox\"}],\"tolerations\":[{"
          "\"key\":\"k1\",\"operator\":\"Exists\"}],\"volumes\":[{\"name\":\"v1\",\"emptyDir\":{}}"
          "]}}",
          "{\"metadata\":{\"$deleteFromPrimitiveList/finalizers\":[\"example.com/b\"],"
          "\"$setElementOrder/finalizers\":[\"example.com/a\"],\"labels\":{\"tier\":null}},"
          "\"spec\":{\"$setElementOrder/containers\":[{\"name\":\"c\"}],\"$setElementOrder/"
          "volumes\":[{\"name\":\"v1\"}],\"containers\":[{\"name\":\"c\",\"$setElementOrder/env\":"
          "[{\"name\":\"B\"}],\"env\":[{\"name\":\"B\",\"value\":\"3\"},{\"$patch\":\"delete\","
          "\"name\":\"A\"}]},{\"$patch\":\"delete\",\"name\":\"side\"}],\"tolerations\":[{\"key\":"
          "\"k2\",\"operator\":\"Exists\"}],\"volumes\":[{\"name\":\"v1\",\"$retainKeys\":["
          "\"hostPath\",\"name\"],\"emptyDir\":null,\"hostPath\":{\"path\":\"/tmp\"}}]}}",
          "{\"metadata\":{\"name\":\"app\",\"labels\":{\"app\":\"web\"},\"finalizers\":["
          "\"example.com/a\"]},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"nginx\","
          "\"env\":[{\"name\":\"B\",\"value\":\"3\"}]}],\"tolerations\":[{\"key\":\"k2\","
          "\"operator\":\"Exists\"}],\"volumes\":[{\"name\":\"v1\",\"hostPath\":{\"path\":\"/tmp\""
          "}}]}}",
          NULL },
        /* kubectl-wire.md §4.9: kubectl patch --subresource resize. */
        { "kubectl patch: resize one container",
          "{\"spec\":{\"containers\":[{\"name\":\"c0\",\"image\":\"a\"},{\"name\":\"c1\","
          "\"image\":\"b\",\"resources\":{\"requests\":{\"cpu\":\"100m\",\"memory\":\"64Mi\"}}}]}}",
          "{\"spec\":{\"containers\":[{\"name\":\"c1\",\"resources\":{\"requests\":{\"cpu\":"
          "\"150m\"},\"limits\":{\"cpu\":\"300m\"}}}]}}",
          "{\"spec\":{\"containers\":[{\"name\":\"c0\",\"image\":\"a\"},{\"name\":\"c1\","
          "\"image\":\"b\",\"resources\":{\"requests\":{\"cpu\":\"150m\",\"memory\":\"64Mi\"},"
          "\"limits\":{\"cpu\":\"300m\"}}}]}}",
          NULL },
        /* kubectl-wire.md §4.10: kubectl edit pvc (a schema-free subtree merges as maps). */
        { "kubectl edit: free-form nested maps merge",
          "{\"spec\":{\"nodeName\":\"n\"},\"status\":{\"capacity\":{\"storage\":\"1Gi\"},"
          "\"phase\":\"Bound\"}}",
          "{\"status\":{\"capacity\":{\"storage\":\"2Gi\"}}}",
          "{\"spec\":{\"nodeName\":\"n\"},\"status\":{\"capacity\":{\"storage\":\"2Gi\"},"
          "\"phase\":\"Bound\"}}",
          NULL },
        { "free-form lists are replaced, not merged",
          "{\"status\":{\"conditions\":[{\"type\":\"A\"},{\"type\":\"B\"}]}}",
          "{\"status\":{\"conditions\":[{\"type\":\"C\"}]}}",
          "{\"status\":{\"conditions\":[{\"type\":\"C\"}]}}", NULL },
        { "unknown fields merge as maps",
          "{\"metadata\":{\"name\":\"a\"},\"extra\":{\"x\":1,\"y\":[1]}}",
          "{\"extra\":{\"y\":[2],\"z\":true}}",
          "{\"metadata\":{\"name\":\"a\"},\"extra\":{\"x\":1,\"y\":[2],\"z\":true}}", NULL },
        { "null deletes a key, and a missing one is ignored",
          "{\"metadata\":{\"labels\":{\"a\":\"1\",\"b\":\"2\"}}}",
          "{\"metadata\":{\"labels\":{\"a\":null,\"zz\":null}}}",
          "{\"metadata\":{\"labels\":{\"b\":\"2\"}}}", NULL },
        { "a value of another type replaces",
          "{\"spec\":{\"nodeSelector\":\"oops\",\"tolerations\":{\"a\":1}}}",
          "{\"spec\":{\"nodeSelector\":{\"disk\":\"ssd\"},\"tolerations\":[{\"key\":\"k\"}]}}",
          "{\"spec\":{\"nodeSelector\":{\"disk\":\"ssd\"},\"tolerations\":[{\"key\":\"k\"}]}}",
          NULL },
        { "$patch: replace in a map",
          "{\"spec\":{\"nodeSelector\":{\"zone\":\"a\",\"disk\":\"hdd\"}}}",
          "{\"spec\":{\"nodeSelector\":{\"$patch\":\"replace\",\"disk\":\"ssd\"}}}",
          "{\"spec\":{\"nodeSelector\":{\"disk\":\"ssd\"}}}", NULL },
        { "$patch: replace where the original has nothing keeps the map", "{\"spec\":{}}",
          "{\"spec\":{\"nodeSelector\":{\"$patch\":\"replace\",\"disk\":\"ssd\"}}}",
          "{\"spec\":{\"nodeSelector\":{\"disk\":\"ssd\"}}}", NULL },
        /* K8S: upstream's handleDirectiveInMergeMap returns an empty map. */
        { "$patch: delete in a map leaves an empty map",
          "{\"spec\":{\"nodeSelector\":{\"zone\":\"a\"},\"nodeName\":\"n\"}}",
          "{\"spec\":{\"nodeSelector\":{\"$patch\":\"delete\"}}}",
          "{\"spec\":{\"nodeSelector\":{},\"nodeName\":\"n\"}}", NULL },
        { "$patch: delete in a map the original lacks adds nothing", "{\"spec\":{}}",
          "{\"spec\":{\"nodeSelector\":{\"$patch\":\"delete\",\"a\":\"b\"}}}", "{\"spec\":{}}",
          NULL },
        { "$patch: merge in a map is the default", "{\"spec\":{\"nodeSelector\":{\"zone\":\"a\"}}}",
          "{\"spec\":{\"nodeSelector\":{\"$patch\":\"merge\",\"disk\":\"ssd\"}}}",
          "{\"spec\":{\"nodeSelector\":{\"zone\":\"a\",\"disk\":\"ssd\"}}}", NULL },
        { "$patch at the root: replace", "{\"metadata\":{\"name\":\"a\"},\"spec\":{}}",
          "{\"$patch\":\"replace\",\"spec\":{\"nodeName\":\"n\",\"nodeSelector\":{\"a\":null}}}",
          "{\"spec\":{\"nodeName\":\"n\",\"nodeSelector\":{}}}", NULL },
        { "$patch at the root: delete", "{\"metadata\":{\"name\":\"a\"}}",
          "{\"$patch\":\"delete\"}", "{}", NULL },
        { "unknown $patch in a map", "{\"spec\":{\"nodeSelector\":{\"a\":\"b\"}}}",
          "{\"spec\":{\"nodeSelector\":{\"$patch\":\"remove\",\"a\":\"b\"}}}", NULL,
          "unknown patch type: remove in map: map[$patch:remove a:b]" },
        { "non-string $patch in a map", "{\"spec\":{}}", "{\"$patch\":7,\"spec\":{}}", NULL,
          "unknown patch type: %!s(float64=7) in map: map[$patch:7 spec:map[]]" },
        { "list element $patch: replace replaces the whole list",
          "{\"spec\":{\"containers\":[{\"name\":\"a\",\"image\":\"1\"},{\"name\":\"b\"}]}}",
          "{\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"3\",\"env\":[{\"name\":\"E\","
          "\"value\":null}]},{\"$patch\":\"replace\"}]}}",
          "{\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"3\",\"env\":[{\"name\":\"E\"}]}"
          "]}}",
          NULL },
        { "list element $patch: replace alone empties the list",
          "{\"spec\":{\"containers\":[{\"name\":\"a\"}]}}",
          "{\"spec\":{\"containers\":[{\"$patch\":\"replace\"}]}}",
          "{\"spec\":{\"containers\":[]}}", NULL },
        { "list element $patch: delete removes every element with that key",
          "{\"spec\":{\"containers\":[{\"name\":\"a\"},{\"name\":\"b\"},{\"name\":\"a\",\"x\":1}]}}",
          "{\"spec\":{\"containers\":[{\"$patch\":\"delete\",\"name\":\"a\"},{\"$patch\":"
          "\"delete\",\"name\":\"zz\"}]}}",
          "{\"spec\":{\"containers\":[{\"name\":\"b\"}]}}", NULL },
        { "list element $patch: delete without the merge key",
          "{\"spec\":{\"containers\":[{\"name\":\"a\"}]}}",
          "{\"spec\":{\"containers\":[{\"$patch\":\"delete\"}]}}", NULL,
          "map: map[$patch:delete] does not contain declared merge key: name" },
        { "list element $patch: merge is refused", "{\"spec\":{\"containers\":[{\"name\":\"a\"}]}}",
          "{\"spec\":{\"containers\":[{\"$patch\":\"merge\",\"name\":\"a\"}]}}", NULL,
          "merging lists cannot yet be specified in the patch" },
        { "list element with an unknown $patch", "{\"spec\":{\"containers\":[{\"name\":\"a\"}]}}",
          "{\"spec\":{\"containers\":[{\"$patch\":\"foo\",\"name\":\"a\"}]}}", NULL,
          "unknown patch type: foo in map: map[$patch:foo name:a]" },
        { "patch element without the merge key", "{\"spec\":{\"containers\":[{\"name\":\"a\"}]}}",
          "{\"spec\":{\"containers\":[{\"image\":\"x\"}]}}", NULL,
          "map: map[image:x] does not contain declared merge key: name" },
        { "values print as Go prints them", "{\"spec\":{\"containers\":[{\"name\":\"a\"}]}}",
          "{\"spec\":{\"containers\":[{\"$patch\":\"delete\",\"x\":1000000,\"y\":0.5,\"z\":[1,"
          "true,null,123456,1e-7],\"m\":{\"b\":1,\"a\":2}}]}}",
          NULL,
          "map: map[$patch:delete m:map[a:2 b:1] x:1e+06 y:0.5 z:[1 true <nil> 123456 1e-07]] "
          "does not contain declared merge key: name" },
        { "merge keys compare as JSON values (80 is 80.0)",
          "{\"spec\":{\"containers\":[{\"name\":\"a\",\"ports\":[{\"containerPort\":80,"
          "\"protocol\":\"TCP\"},{\"containerPort\":443}]}]}}",
          "{\"spec\":{\"containers\":[{\"name\":\"a\",\"ports\":[{\"containerPort\":80.0,\"name\":"
          "\"http\"}]}]}}",
          "{\"spec\":{\"containers\":[{\"name\":\"a\",\"ports\":[{\"containerPort\":80.0,"
          "\"protocol\":\"TCP\",\"name\":\"http\"},{\"containerPort\":443}]}]}}",
          NULL },
        { "new map-list elements go after the server's",
          "{\"metadata\":{\"ownerReferences\":[{\"uid\":\"1\",\"name\":\"a\"}]}}",
          "{\"metadata\":{\"ownerReferences\":[{\"uid\":\"2\",\"name\":\"b\"},{\"uid\":\"1\","
          "\"kind\":\"K\"}]}}",
          "{\"metadata\":{\"ownerReferences\":[{\"uid\":\"2\",\"name\":\"b\"},{\"uid\":\"1\","
          "\"name\":\"a\",\"kind\":\"K\"}]}}",
          NULL },
        /* K8S: without $setElementOrder, mergeSortedSlice puts patch elements the server does not
         * know before the server-only ones. */
        { "a new element loses its nulls and directives, and goes first",
          "{\"spec\":{\"containers\":[{\"name\":\"a\"}]}}",
          "{\"spec\":{\"containers\":[{\"name\":\"n\",\"image\":\"i\",\"command\":null,"
          "\"$setElementOrder/env\":[{\"name\":\"A\"}],\"$retainKeys\":[\"name\"],\"env\":[{"
          "\"name\":\"A\",\"value\":null},{\"$patch\":\"delete\",\"name\":\"Z\"}]}]}}",
          "{\"spec\":{\"containers\":[{\"name\":\"n\",\"image\":\"i\",\"env\":[{\"name\":\"A\"}]},{"
          "\"name\":\"a\"}]}}",
          NULL },
        { "a new list loses its directive elements", "{\"spec\":{}}",
          "{\"spec\":{\"containers\":[{\"name\":\"a\",\"x\":null},{\"$patch\":\"replace\"}],"
          "\"tolerations\":[null,{\"key\":\"k\",\"value\":null}]}}",
          "{\"spec\":{\"containers\":[{\"name\":\"a\"}],\"tolerations\":[null,{\"key\":\"k\"}]}}",
          NULL },
        { "atomic lists replace and drop directive elements",
          "{\"spec\":{\"tolerations\":[{\"key\":\"a\"},{\"key\":\"b\"}]}}",
          "{\"spec\":{\"tolerations\":[{\"$patch\":\"delete\",\"key\":\"a\"},{\"key\":\"c\"}]}}",
          "{\"spec\":{\"tolerations\":[{\"key\":\"c\"}]}}", NULL },
        { "atomic string lists replace",
          "{\"spec\":{\"containers\":[{\"name\":\"a\",\"command\":[\"sh\",\"-c\"]}]}}",
          "{\"spec\":{\"containers\":[{\"name\":\"a\",\"command\":[\"true\"]}]}}",
          "{\"spec\":{\"containers\":[{\"name\":\"a\",\"command\":[\"true\"]}]}}", NULL },
        { "sets union, server values first", "{\"metadata\":{\"finalizers\":[\"a\",\"b\"]}}",
          "{\"metadata\":{\"finalizers\":[\"b\",\"c\",\"c\"]}}",
          "{\"metadata\":{\"finalizers\":[\"a\",\"b\",\"c\"]}}", NULL },
        { "$deleteFromPrimitiveList removes values",
          "{\"metadata\":{\"finalizers\":[\"a\",\"b\",\"c\",\"b\"]}}",
          "{\"metadata\":{\"$deleteFromPrimitiveList/finalizers\":[\"b\",\"zz\"]}}",
          "{\"metadata\":{\"finalizers\":[\"a\",\"c\"]}}", NULL },
        { "$deleteFromPrimitiveList never adds a list", "{\"metadata\":{}}",
          "{\"metadata\":{\"$deleteFromPrimitiveList/finalizers\":[\"b\"]}}", "{\"metadata\":{}}",
          NULL },
        { "$deleteFromPrimitiveList with a bad prefix", "{\"metadata\":{}}",
          "{\"metadata\":{\"$deleteFromPrimitiveListfinalizers\":[\"b\"]}}", NULL,
          "invalid patch format of primitive list" },
        { "$setElementOrder alone reorders, server-only elements keep their place",
          "{\"spec\":{\"containers\":[{\"name\":\"a\"},{\"name\":\"s\"},{\"name\":\"b\"},{"
          "\"name\":\"c\"}]}}",
          "{\"spec\":{\"$setElementOrder/containers\":[{\"name\":\"c\"},{\"name\":\"b\"},{\"name\""
          ":\"a\"}]}}",
          "{\"spec\":{\"containers\":[{\"name\":\"s\"},{\"name\":\"c\"},{\"name\":\"b\"},{\"name\""
          ":\"a\"}]}}",
          NULL },
        { "$setElementOrder with new elements",
          "{\"spec\":{\"containers\":[{\"name\":\"a\",\"image\":\"1\"},{\"name\":\"b\"}]}}",
          "{\"spec\":{\"$setElementOrder/containers\":[{\"name\":\"n\"},{\"name\":\"b\"},{\"name\""
          ":\"a\"}],\"containers\":[{\"name\":\"n\",\"image\":\"2\"}]}}",
          "{\"spec\":{\"containers\":[{\"name\":\"n\",\"image\":\"2\"},{\"name\":\"b\"},{\"name\":"
          "\"a\",\"image\":\"1\"}]}}",
          NULL },
        { "$setElementOrder for a list the original lacks", "{\"spec\":{}}",
          "{\"spec\":{\"$setElementOrder/containers\":[{\"name\":\"b\"},{\"name\":\"a\"}],"
          "\"containers\":[{\"name\":\"b\"},{\"name\":\"a\",\"x\":null}]}}",
          "{\"spec\":{\"containers\":[{\"name\":\"b\"},{\"name\":\"a\"}]}}", NULL },
        { "$setElementOrder for a list nobody has", "{\"spec\":{}}",
          "{\"spec\":{\"$setElementOrder/containers\":[{\"name\":\"b\"}]}}", "{\"spec\":{}}",
          NULL },
        { "$setElementOrder of primitives", "{\"metadata\":{\"finalizers\":[\"a\",\"b\",\"c\"]}}",
          "{\"metadata\":{\"$setElementOrder/finalizers\":[\"c\",\"a\"]}}",
          "{\"metadata\":{\"finalizers\":[\"b\",\"c\",\"a\"]}}", NULL },
        { "$setElementOrder that contradicts the patch list",
          "{\"spec\":{\"containers\":[{\"name\":\"a\"},{\"name\":\"b\"}]}}",
          "{\"spec\":{\"$setElementOrder/containers\":[{\"name\":\"a\"},{\"name\":\"b\"}],"
          "\"containers\":[{\"name\":\"b\",\"image\":\"x\"},{\"name\":\"a\"}]}}",
          NULL,
          "The order in patch list:\n[map[image:x name:b] map[name:a]]\n doesn't match "
          "$setElementOrder list:\n[map[name:a] map[name:b]]\n" },
        { "$setElementOrder that is not a list", "{\"spec\":{}}",
          "{\"spec\":{\"$setElementOrder/containers\":\"a\"}}", NULL,
          "expected a []interface {}, but received a string" },
        { "$setElementOrder with a bad prefix", "{\"spec\":{}}",
          "{\"spec\":{\"$setElementOrdercontainers\":[]}}", NULL,
          "invalid patch format of setElementOrder list" },
        { "$setElementOrder on a list that is not a list",
          "{\"spec\":{\"containers\":{\"name\":\"a\"}}}",
          "{\"spec\":{\"$setElementOrder/containers\":[{\"name\":\"a\"}]}}", NULL,
          "expected a []interface {}, but received a map[string]interface {}" },
        { "$setElementOrder element without the merge key",
          "{\"spec\":{\"containers\":[{\"name\":\"a\"}]}}",
          "{\"spec\":{\"$setElementOrder/containers\":[{\"image\":\"a\"}]}}", NULL,
          "map: map[image:a] does not contain declared merge key: name" },
        { "$retainKeys drops the keys it does not name",
          "{\"spec\":{\"volumes\":[{\"name\":\"v\",\"emptyDir\":{\"medium\":\"Memory\"}},{"
          "\"name\":\"w\",\"emptyDir\":{}}]}}",
          "{\"spec\":{\"volumes\":[{\"name\":\"v\",\"$retainKeys\":[\"hostPath\",\"name\"],"
          "\"hostPath\":{\"path\":\"/x\"}}]}}",
          "{\"spec\":{\"volumes\":[{\"name\":\"v\",\"hostPath\":{\"path\":\"/x\"}},{\"name\":"
          "\"w\",\"emptyDir\":{}}]}}",
          NULL },
        { "$retainKeys refuses a patch key it does not name",
          "{\"spec\":{\"volumes\":[{\"name\":\"v\"}]}}",
          "{\"spec\":{\"volumes\":[{\"name\":\"v\",\"$retainKeys\":[\"name\"],\"hostPath\":{}}]}}",
          NULL, "invalid patch format of retainKeys" },
        { "$retainKeys that is not a list", "{\"spec\":{}}", "{\"spec\":{\"$retainKeys\":\"x\"}}",
          NULL, "invalid patch format of retainKeys" },
        { "lists of lists", "{\"spec\":{\"containers\":[[1]]}}",
          "{\"spec\":{\"containers\":[[2]]}}", NULL, "lists of lists are not supported" },
        { "mixed element types", "{\"spec\":{\"containers\":[{\"name\":\"a\"}]}}",
          "{\"spec\":{\"containers\":[\"b\"]}}", NULL,
          "list element types are not identical: [[map[name:a]] [b]]" },
        { "maps in a primitive set", "{\"metadata\":{\"finalizers\":[{\"a\":1}]}}",
          "{\"metadata\":{\"finalizers\":[{\"b\":1}]}}", NULL,
          "cannot merge lists without merge key for string" },
        { "primitives in a keyed list", "{\"spec\":{\"containers\":[\"a\"]}}",
          "{\"spec\":{\"containers\":[\"b\"]}}", NULL,
          "expected a map[string]interface {}, but received a string" },
        { "server element without the merge key", "{\"spec\":{\"containers\":[{\"image\":\"x\"}]}}",
          "{\"spec\":{\"containers\":[{\"name\":\"a\"}]}}", NULL,
          "map: map[image:x] does not contain declared merge key: name" },
        { "empty lists merge to the original", "{\"spec\":{\"containers\":[]}}",
          "{\"spec\":{\"containers\":[]}}", "{\"spec\":{\"containers\":[]}}", NULL },
        { "a null patch changes nothing", "{\"a\":1}", "null", "{\"a\":1}", NULL },
        { "a patch that is not an object", "{\"a\":1}", "[1]", NULL, "invalid JSON document" },
        { "an original that is not an object", "[1]", "{}", NULL, "invalid JSON document" },
};

static void test_pod_cases(void **state)
{
        for (size_t i = 0; i < ARRAY_SIZE(pod_cases); i++)
                run_case(ENGINE_STRATEGIC, &s_pod, &pod_cases[i], true);
}

/* The same kubectl patches against flexlet's real Pod schema (api/schemas.h): its merge keys,
 * retainKeys and atomic lists must be the ones kubectl computed the patch with. */
static void test_real_pod_schema(void **state)
{
        run_case(ENGINE_STRATEGIC, &schema_pod, &pod_cases[0], true);
        run_case(ENGINE_STRATEGIC, &schema_pod, &pod_cases[1], true);
        run_case(ENGINE_STRATEGIC, &schema_pod, &pod_cases[2], true);
}

/* ---- upstream's own cases ----------------------------------------------------------------- */

/* From k8s.io/apimachinery/pkg/util/strategicpatch/patch_test.go: the raw (order-exact) cases
 * whose expected documents upstream compares byte for byte, each patch applied to its original
 * (two-way) or current (three-way) document against the MergeItem schema above. Errors are
 * substrings, as upstream's test checks them. */
static const struct patch_case upstream_cases[] = {
        { "$setElementOrder contains item that is not present in the list to be merged (two-way)",
          "{\"mergingList\":[{\"name\":1},{\"name\":3}]}",
          "{\"$setElementOrder/mergingList\":[{\"name\":3},{\"name\":2},{\"name\":1}],\"mergingList\":[{\"name\":3,\"value\":3},{\"name\":1,\"value\":1}]}",
          "{\"mergingList\":[{\"name\":3,\"value\":3},{\"name\":1,\"value\":1}]}", NULL },
        { "$setElementOrder contains item that is not present in the int list to be merged (two-way)",
          "{\"mergingIntList\":[1,3]}", "{\"$setElementOrder/mergingIntList\":[3,2,1]}",
          "{\"mergingIntList\":[3,1]}", NULL },
        { "should check if order in $setElementOrder and patch list match (two-way)",
          "{\"mergingList\":[{\"name\":1},{\"name\":3},{\"name\":2}]}",
          "{\"$setElementOrder/mergingList\":[{\"name\":1},{\"name\":2},{\"name\":3}],\"mergingList\":[{\"name\":3,\"value\":3},{\"name\":1,\"value\":1}]}",
          NULL, "doesn't match" },
        { "$setElementOrder contains item that is not present in the int list to be merged (two-way)",
          "{\"mergingIntList\":[1,3,2]}",
          "{\"$setElementOrder/mergingIntList\":[1,2,3],\"mergingIntList\":[3,1]}", NULL,
          "doesn't match" },
        { "missing merge key should error out (two-way)",
          "{\"mergingList\":[{\"name\":1,\"value\":\"a\"}]}",
          "{\"mergingList\":[{\"value\":\"b\"}]}", NULL, "does not contain declared merge key" },
        { "$deleteFromPrimitiveList of nonexistent item in primitive list should not add the item to the list (two-way)",
          "{\"mergingIntList\":[1,2]}", "{\"$deleteFromPrimitiveList/mergingIntList\":[3]}",
          "{\"mergingIntList\":[1,2]}", NULL },
        { "$deleteFromPrimitiveList on empty primitive list should not add the item to the list (two-way)",
          "{\"mergingIntList\":null}", "{\"$deleteFromPrimitiveList/mergingIntList\":[3]}",
          "{\"mergingIntList\":null}", NULL },
        { "$deleteFromPrimitiveList on nonexistent primitive list should not add the primitive list (two-way)",
          "{\"foo\":[\"bar\"]}", "{\"$deleteFromPrimitiveList/mergingIntList\":[3]}",
          "{\"foo\":[\"bar\"]}", NULL },
        { "$deleteFromPrimitiveList should delete item from a list with merge patch strategy (two-way)",
          "{\"mergingIntList\":[1,2,3]}", "{\"$deleteFromPrimitiveList/mergingIntList\":[2]}",
          "{\"mergingIntList\":[1,3]}", NULL },
        { "$deleteFromPrimitiveList should delete item from a list without merge patch strategy (two-way)",
          "{\"nonMergingIntList\":[1,2,3]}", "{\"$deleteFromPrimitiveList/nonMergingIntList\":[2]}",
          "{\"nonMergingIntList\":[1,3]}", NULL },
        { "nested patch merge with empty list (three-way)",
          "{\"name\":\"hi\",\"mergingList\":[{\"name\":\"hello2\"}]}",
          "{\"$setElementOrder/mergingList\":[{\"name\":\"hello\"},{\"name\":\"doesntexist\"}],\"mergingList\":[{\"name\":\"hello\"}]}",
          "{\"name\":\"hi\",\"mergingList\":[{\"name\":\"hello\"},{\"name\":\"hello2\"}]}", NULL },
        { "delete items in lists of scalars (three-way)", "{\"mergingIntList\":[1,2,3,4]}",
          "{\"$setElementOrder/mergingIntList\":[1,2],\"$deleteFromPrimitiveList/mergingIntList\":[3]}",
          "{\"mergingIntList\":[1,2,4]}", NULL },
        { "delete all duplicate items in lists of scalars (three-way)",
          "{\"mergingIntList\":[1,2,3,3,4]}",
          "{\"$setElementOrder/mergingIntList\":[1,2],\"$deleteFromPrimitiveList/mergingIntList\":[3]}",
          "{\"mergingIntList\":[1,2,4]}", NULL },
        { "add and delete items in lists of scalars (three-way)", "{\"mergingIntList\":[1,2,3,4]}",
          "{\"$setElementOrder/mergingIntList\":[1,2,4],\"$deleteFromPrimitiveList/mergingIntList\":[3]}",
          "{\"mergingIntList\":[1,2,4]}", NULL },
        { "merge lists of maps (three-way)",
          "{\"mergingList\":[{\"name\":1,\"other\":\"a\"},{\"name\":2,\"value\":2,\"other\":\"b\"}]}",
          "{\"$setElementOrder/mergingList\":[{\"name\":4},{\"name\":1},{\"name\":2},{\"name\":3}],\"mergingList\":[{\"name\":4,\"value\":4},{\"name\":3,\"value\":3}]}",
          "{\"mergingList\":[{\"name\":4,\"value\":4},{\"name\":1,\"other\":\"a\"},{\"name\":2,\"value\":2,\"other\":\"b\"},{\"name\":3,\"value\":3}]}",
          NULL },
        { "add field to map in merging list (three-way)",
          "{\"mergingList\":[{\"name\":1,\"other\":\"a\"},{\"name\":2,\"value\":2,\"other\":\"b\"}]}",
          "{\"$setElementOrder/mergingList\":[{\"name\":1},{\"name\":2}],\"mergingList\":[{\"name\":1,\"value\":1}]}",
          "{\"mergingList\":[{\"name\":1,\"value\":1,\"other\":\"a\"},{\"name\":2,\"value\":2,\"other\":\"b\"}]}",
          NULL },
        { "add duplicate field to map in merging list (three-way)",
          "{\"mergingList\":[{\"name\":1,\"value\":1,\"other\":\"a\"},{\"name\":2,\"value\":2,\"other\":\"b\"}]}",
          "{}",
          "{\"mergingList\":[{\"name\":1,\"value\":1,\"other\":\"a\"},{\"name\":2,\"value\":2,\"other\":\"b\"}]}",
          NULL },
        { "add an item that already exists in current object in merging list (three-way)",
          "{\"mergingList\":[{\"name\":1,\"value\":\"a\",\"other\":\"x\"},{\"name\":2},{\"name\":3}]}",
          "{}",
          "{\"mergingList\":[{\"name\":1,\"value\":\"a\",\"other\":\"x\"},{\"name\":2},{\"name\":3}]}",
          NULL },
        { "replace map field value in merging list (three-way)",
          "{\"mergingList\":[{\"name\":1,\"value\":1,\"other\":\"a\"},{\"name\":2,\"value\":2,\"other\":\"b\"}]}",
          "{\"$setElementOrder/mergingList\":[{\"name\":1},{\"name\":2}],\"mergingList\":[{\"name\":1,\"value\":\"a\"}]}",
          "{\"mergingList\":[{\"name\":1,\"value\":\"a\",\"other\":\"a\"},{\"name\":2,\"value\":2,\"other\":\"b\"}]}",
          NULL },
        { "delete map from merging list (three-way)",
          "{\"mergingList\":[{\"name\":1},{\"name\":2,\"other\":\"b\"}]}",
          "{\"$setElementOrder/mergingList\":[{\"name\":2}],\"mergingList\":[{\"name\":1,\"$patch\":\"delete\"}]}",
          "{\"mergingList\":[{\"name\":2,\"other\":\"b\"}]}", NULL },
        { "delete missing map from merging list (three-way)",
          "{\"mergingList\":[{\"name\":2,\"other\":\"b\"}]}",
          "{\"$setElementOrder/mergingList\":[{\"name\":2}],\"mergingList\":[{\"name\":1,\"$patch\":\"delete\"}]}",
          "{\"mergingList\":[{\"name\":2,\"other\":\"b\"}]}", NULL },
        { "add map and delete map from merging list (three-way)",
          "{\"mergingList\":[{\"name\":1},{\"name\":2,\"other\":\"b\"},{\"name\":4,\"other\":\"c\"}]}",
          "{\"$setElementOrder/mergingList\":[{\"name\":2},{\"name\":3}],\"mergingList\":[{\"name\":3},{\"name\":1,\"$patch\":\"delete\"}]}",
          "{\"mergingList\":[{\"name\":2,\"other\":\"b\"},{\"name\":4,\"other\":\"c\"},{\"name\":3}]}",
          NULL },
        { "add map and delete map from merging list with conflict (three-way)",
          "{\"mergingList\":[{\"name\":1,\"other\":\"a\"},{\"name\":4,\"other\":\"c\"}]}",
          "{\"$setElementOrder/mergingList\":[{\"name\":2},{\"name\":3}],\"mergingList\":[{\"name\":2},{\"name\":3},{\"name\":1,\"$patch\":\"delete\"}]}",
          "{\"mergingList\":[{\"name\":4,\"other\":\"c\"},{\"name\":2},{\"name\":3}]}", NULL },
        { "delete field from map in merging list (three-way)",
          "{\"mergingList\":[{\"name\":1,\"value\":1,\"other\":\"a\"},{\"name\":2,\"value\":2,\"other\":\"b\"}]}",
          "{\"$setElementOrder/mergingList\":[{\"name\":1},{\"name\":2}],\"mergingList\":[{\"name\":1,\"value\":null}]}",
          "{\"mergingList\":[{\"name\":1,\"other\":\"a\"},{\"name\":2,\"value\":2,\"other\":\"b\"}]}",
          NULL },
        { "delete missing field from map in merging list (three-way)",
          "{\"mergingList\":[{\"name\":1,\"other\":\"a\"},{\"name\":2,\"value\":2,\"other\":\"b\"}]}",
          "{\"$setElementOrder/mergingList\":[{\"name\":1},{\"name\":2}],\"mergingList\":[{\"name\":1,\"value\":null}]}",
          "{\"mergingList\":[{\"name\":1,\"other\":\"a\"},{\"name\":2,\"value\":2,\"other\":\"b\"}]}",
          NULL },
        { "replace non merging list nested in merging list (three-way)",
          "{\"mergingList\":[{\"name\":1,\"other\":\"a\",\"nonMergingList\":[{\"name\":1},{\"name\":2,\"value\":2}]},{\"name\":2,\"other\":\"b\"}]}",
          "{\"$setElementOrder/mergingList\":[{\"name\":1},{\"name\":2}],\"mergingList\":[{\"name\":1,\"nonMergingList\":[{\"name\":1,\"value\":1}]}]}",
          "{\"mergingList\":[{\"name\":1,\"other\":\"a\",\"nonMergingList\":[{\"name\":1,\"value\":1}]},{\"name\":2,\"other\":\"b\"}]}",
          NULL },
        { "add field to map in merging list nested in merging list (three-way)",
          "{\"mergingList\":[{\"name\":1,\"other\":\"a\",\"mergingList\":[{\"name\":1},{\"name\":2,\"value\":2}]},{\"name\":2,\"other\":\"b\"}]}",
          "{\"$setElementOrder/mergingList\":[{\"name\":1},{\"name\":2}],\"mergingList\":[{\"$setElementOrder/mergingList\":[{\"name\":1},{\"name\":2}],\"name\":1,\"mergingList\":[{\"name\":1,\"value\":1}]}]}",
          "{\"mergingList\":[{\"name\":1,\"other\":\"a\",\"mergingList\":[{\"name\":1,\"value\":1},{\"name\":2,\"value\":2}]},{\"name\":2,\"other\":\"b\"}]}",
          NULL },
        { "add map to merging list by pointer (three-way)",
          "{\"mergeItemPtr\":[{\"name\":1,\"other\":\"a\"},{\"name\":3}]}",
          "{\"$setElementOrder/mergeItemPtr\":[{\"name\":1},{\"name\":2}],\"mergeItemPtr\":[{\"name\":2}]}",
          "{\"mergeItemPtr\":[{\"name\":1,\"other\":\"a\"},{\"name\":2},{\"name\":3}]}", NULL },
        { "add field to map in merging list by pointer (three-way)",
          "{\"mergeItemPtr\":[{\"name\":1,\"other\":\"a\",\"mergeItemPtr\":[{\"name\":1,\"other\":\"a\"},{\"name\":2,\"value\":2,\"other\":\"b\"}]},{\"name\":2,\"other\":\"b\"}]}",
          "{\"$setElementOrder/mergeItemPtr\":[{\"name\":1},{\"name\":2}],\"mergeItemPtr\":[{\"$setElementOrder/mergeItemPtr\":[{\"name\":1},{\"name\":2}],\"name\":1,\"mergeItemPtr\":[{\"name\":1,\"value\":1}]}]}",
          "{\"mergeItemPtr\":[{\"name\":1,\"other\":\"a\",\"mergeItemPtr\":[{\"name\":1,\"value\":1,\"other\":\"a\"},{\"name\":2,\"value\":2,\"other\":\"b\"}]},{\"name\":2,\"other\":\"b\"}]}",
          NULL },
        { "merge lists of scalars (three-way)", "{\"mergingIntList\":[1,2,4]}",
          "{\"$setElementOrder/mergingIntList\":[1,2,3],\"mergingIntList\":[3]}",
          "{\"mergingIntList\":[1,2,3,4]}", NULL },
        { "add duplicate field to map in merging int list (three-way)",
          "{\"mergingIntList\":[1,2,3]}", "{}", "{\"mergingIntList\":[1,2,3]}", NULL },
        { "add an item in a list of primitives and preserve order (three-way)",
          "{\"mergingIntList\":[1,4,2]}",
          "{\"$setElementOrder/mergingIntList\":[3,1,2],\"mergingIntList\":[3]}",
          "{\"mergingIntList\":[3,1,4,2]}", NULL },
        { "delete an item in a list of primitives and preserve order (three-way)",
          "{\"mergingIntList\":[1,2,3]}",
          "{\"$setElementOrder/mergingIntList\":[2,1],\"$deleteFromPrimitiveList/mergingIntList\":[3]}",
          "{\"mergingIntList\":[2,1]}", NULL },
        { "add an item in a list and preserve order (three-way)",
          "{\"mergingList\":[{\"name\":1,\"other\":\"a\"},{\"name\":2,\"value\":2,\"other\":\"b\"}]}",
          "{\"$setElementOrder/mergingList\":[{\"name\":3},{\"name\":1},{\"name\":2}],\"mergingList\":[{\"name\":3,\"value\":3}]}",
          "{\"mergingList\":[{\"name\":3,\"value\":3},{\"name\":1,\"other\":\"a\"},{\"name\":2,\"value\":2,\"other\":\"b\"}]}",
          NULL },
        { "add multiple items in a list and preserve order (three-way)",
          "{\"mergingList\":[{\"name\":1,\"other\":\"a\"},{\"name\":2,\"value\":2,\"other\":\"b\"}]}",
          "{\"$setElementOrder/mergingList\":[{\"name\":1},{\"name\":4},{\"name\":2},{\"name\":3}],\"mergingList\":[{\"name\":4,\"value\":4},{\"name\":3,\"value\":3}]}",
          "{\"mergingList\":[{\"name\":1,\"other\":\"a\"},{\"name\":4,\"value\":4},{\"name\":2,\"value\":2,\"other\":\"b\"},{\"name\":3,\"value\":3}]}",
          NULL },
        { "delete an item in a list and preserve order (three-way)",
          "{\"mergingList\":[{\"name\":1,\"other\":\"a\"},{\"name\":2,\"value\":2,\"other\":\"b\"},{\"name\":3,\"value\":3}]}",
          "{\"$setElementOrder/mergingList\":[{\"name\":2},{\"name\":1}],\"mergingList\":[{\"name\":3,\"$patch\":\"delete\"}]}",
          "{\"mergingList\":[{\"name\":2,\"value\":2,\"other\":\"b\"},{\"name\":1,\"other\":\"a\"}]}",
          NULL },
        { "change an item in a list and preserve order (three-way)",
          "{\"mergingList\":[{\"name\":1,\"other\":\"a\"},{\"name\":2,\"value\":2,\"other\":\"b\"},{\"name\":3,\"value\":3}]}",
          "{\"$setElementOrder/mergingList\":[{\"name\":2},{\"name\":3},{\"name\":1}],\"mergingList\":[{\"name\":3,\"value\":\"x\"}]}",
          "{\"mergingList\":[{\"name\":2,\"value\":2,\"other\":\"b\"},{\"name\":3,\"value\":\"x\"},{\"name\":1,\"other\":\"a\"}]}",
          NULL },
        { "add and delete an item in a list and preserve order (three-way)",
          "{\"mergingList\":[{\"name\":1,\"other\":\"a\"},{\"name\":2,\"value\":2,\"other\":\"b\"},{\"name\":3,\"value\":3}]}",
          "{\"$setElementOrder/mergingList\":[{\"name\":4},{\"name\":2},{\"name\":1}],\"mergingList\":[{\"name\":4,\"value\":4},{\"name\":3,\"$patch\":\"delete\"}]}",
          "{\"mergingList\":[{\"name\":4,\"value\":4},{\"name\":2,\"value\":2,\"other\":\"b\"},{\"name\":1,\"other\":\"a\"}]}",
          NULL },
        { "set elements order in a list (three-way)",
          "{\"mergingList\":[{\"name\":1,\"other\":\"a\"},{\"name\":3,\"value\":3},{\"name\":4,\"value\":4},{\"name\":2,\"value\":2}]}",
          "{\"$setElementOrder/mergingList\":[{\"name\":4},{\"name\":2},{\"name\":3},{\"name\":1}]}",
          "{\"mergingList\":[{\"name\":4,\"value\":4},{\"name\":2,\"value\":2},{\"name\":3,\"value\":3},{\"name\":1,\"other\":\"a\"}]}",
          NULL },
        { "set elements order in a list with server-only items (three-way)",
          "{\"mergingList\":[{\"name\":1,\"other\":\"a\"},{\"name\":3,\"value\":3},{\"name\":4,\"value\":4},{\"name\":2,\"value\":2},{\"name\":9}]}",
          "{\"$setElementOrder/mergingList\":[{\"name\":4},{\"name\":2},{\"name\":3},{\"name\":1}]}",
          "{\"mergingList\":[{\"name\":4,\"value\":4},{\"name\":2,\"value\":2},{\"name\":3,\"value\":3},{\"name\":1,\"other\":\"a\"},{\"name\":9}]}",
          NULL },
        { "set elements order in a list with server-only items 2 (three-way)",
          "{\"mergingList\":[{\"name\":1,\"other\":\"a\"},{\"name\":2,\"value\":2},{\"name\":9},{\"name\":3,\"value\":3},{\"name\":4,\"value\":4}]}",
          "{\"$setElementOrder/mergingList\":[{\"name\":2},{\"name\":1},{\"name\":4},{\"name\":3}]}",
          "{\"mergingList\":[{\"name\":2,\"value\":2},{\"name\":1,\"other\":\"a\"},{\"name\":9},{\"name\":4,\"value\":4},{\"name\":3,\"value\":3}]}",
          NULL },
        { "set elements order in a list with server-only items 3 (three-way)",
          "{\"mergingList\":[{\"name\":1,\"other\":\"a\"},{\"name\":2,\"value\":2},{\"name\":7},{\"name\":9},{\"name\":8},{\"name\":3,\"value\":3},{\"name\":4,\"value\":4}]}", "{\"$setElementOrder/mergingList\":[{\"name\":2},{\"name\":1},{\"name\":4},{\"name\":3}]}",
          "{\"mergingList\":[{\"name\":2,\"value\":2},{\"name\":1,\"other\":\"a\"},{\"name\":7},{\"name\":9},{\"name\":8},{\"name\":4,\"value\":4},{\"name\":3,\"value\":3}]}",
          NULL },
        { "add an item in a int list and preserve order (three-way)", "{\"mergingIntList\":[1,2]}",
          "{\"$setElementOrder/mergingIntList\":[3,1,2],\"mergingIntList\":[3]}",
          "{\"mergingIntList\":[3,1,2]}", NULL },
        { "add multiple items in a int list and preserve order (three-way)",
          "{\"mergingIntList\":[1,2]}",
          "{\"$setElementOrder/mergingIntList\":[1,4,2,3],\"mergingIntList\":[4,3]}",
          "{\"mergingIntList\":[1,4,2,3]}", NULL },
        { "add and delete an item in a int list and preserve order (three-way)",
          "{\"mergingIntList\":[1,2,3]}",
          "{\"$setElementOrder/mergingIntList\":[4,2,1],\"mergingIntList\":[4],\"$deleteFromPrimitiveList/mergingIntList\":[3]}",
          "{\"mergingIntList\":[4,2,1]}", NULL },
        { "set elements order in a int list (three-way)", "{\"mergingIntList\":[1,3,4,2]}",
          "{\"$setElementOrder/mergingIntList\":[4,2,3,1]}", "{\"mergingIntList\":[4,2,3,1]}",
          NULL },
        { "set elements order in a int list with server-only items (three-way)",
          "{\"mergingIntList\":[1,3,4,2,9]}", "{\"$setElementOrder/mergingIntList\":[4,2,3,1]}",
          "{\"mergingIntList\":[4,2,3,1,9]}", NULL },
        { "set elements order in a int list with server-only items 2 (three-way)",
          "{\"mergingIntList\":[1,2,9,3,4]}", "{\"$setElementOrder/mergingIntList\":[2,1,4,3]}",
          "{\"mergingIntList\":[2,1,9,4,3]}", NULL },
        { "set elements order in a int list with server-only items 3 (three-way)",
          "{\"mergingIntList\":[1,2,7,9,8,3,4]}", "{\"$setElementOrder/mergingIntList\":[2,1,4,3]}",
          "{\"mergingIntList\":[2,1,7,9,8,4,3]}", NULL },
        { "retainKeys map should clear defaulted field (three-way)",
          "{\"retainKeysMap\":{\"value\":\"foo\"}}",
          "{\"retainKeysMap\":{\"$retainKeys\":[\"other\"],\"other\":\"bar\"}}",
          "{\"retainKeysMap\":{\"other\":\"bar\"}}", NULL },
        { "retainKeys map adds a field (three-way)", "{\"retainKeysMap\":{\"name\":\"foo\"}}",
          "{\"retainKeysMap\":{\"$retainKeys\":[\"name\",\"value\"],\"value\":\"bar\"}}",
          "{\"retainKeysMap\":{\"name\":\"foo\",\"value\":\"bar\"}}", NULL },
        { "retainKeys map adds a field and clear a field (three-way)",
          "{\"retainKeysMap\":{\"name\":\"foo\",\"other\":\"a\"}}",
          "{\"retainKeysMap\":{\"$retainKeys\":[\"name\",\"value\"],\"value\":\"bar\"}}",
          "{\"retainKeysMap\":{\"name\":\"foo\",\"value\":\"bar\"}}", NULL },
        { "retainKeys map deletes a field (three-way)",
          "{\"retainKeysMap\":{\"name\":\"foo\",\"value\":\"bar\"}}",
          "{\"retainKeysMap\":{\"$retainKeys\":[\"name\"],\"value\":null}}",
          "{\"retainKeysMap\":{\"name\":\"foo\"}}", NULL },
        { "retainKeys map deletes a field and clears a field (three-way)",
          "{\"retainKeysMap\":{\"name\":\"foo\",\"value\":\"bar\",\"other\":\"a\"}}",
          "{\"retainKeysMap\":{\"$retainKeys\":[\"name\"],\"value\":null}}",
          "{\"retainKeysMap\":{\"name\":\"foo\"}}", NULL },
        { "retainKeys map clears a field (three-way)",
          "{\"retainKeysMap\":{\"name\":\"foo\",\"value\":\"bar\",\"other\":\"a\"}}",
          "{\"retainKeysMap\":{\"$retainKeys\":[\"name\",\"value\"]}}",
          "{\"retainKeysMap\":{\"name\":\"foo\",\"value\":\"bar\"}}", NULL },
        { "retainKeys map nested map with no change (three-way)",
          "{\"retainKeysMap\":{\"name\":\"foo\",\"simpleMap\":{\"key1\":\"a\"}}}",
          "{\"retainKeysMap\":{\"$retainKeys\":[\"name\",\"simpleMap\",\"value\"],\"value\":\"bar\"}}",
          "{\"retainKeysMap\":{\"name\":\"foo\",\"value\":\"bar\",\"simpleMap\":{\"key1\":\"a\"}}}",
          NULL },
        { "retainKeys map adds a field in a nested map (three-way)",
          "{\"retainKeysMap\":{\"name\":\"foo\",\"value\":\"bar\",\"simpleMap\":{\"key1\":\"a\",\"key3\":\"c\"}}}",
          "{\"retainKeysMap\":{\"$retainKeys\":[\"name\",\"simpleMap\",\"value\"],\"simpleMap\":{\"key2\":\"b\"}}}",
          "{\"retainKeysMap\":{\"name\":\"foo\",\"value\":\"bar\",\"simpleMap\":{\"key1\":\"a\",\"key2\":\"b\",\"key3\":\"c\"}}}",
          NULL },
        { "retainKeys map deletes a field in a nested map (three-way)",
          "{\"retainKeysMap\":{\"name\":\"foo\",\"value\":\"bar\",\"simpleMap\":{\"key1\":\"a\",\"key2\":\"b\",\"key3\":\"c\"}}}",
          "{\"retainKeysMap\":{\"$retainKeys\":[\"name\",\"simpleMap\",\"value\"],\"simpleMap\":{\"key2\":null}}}",
          "{\"retainKeysMap\":{\"name\":\"foo\",\"value\":\"bar\",\"simpleMap\":{\"key1\":\"a\",\"key3\":\"c\"}}}",
          NULL },
        { "retainKeys map changes a field in a nested map (three-way)",
          "{\"retainKeysMap\":{\"name\":\"foo\",\"value\":\"bar\",\"simpleMap\":{\"key1\":\"a\",\"key2\":\"b\",\"key3\":\"c\"}}}",
          "{\"retainKeysMap\":{\"$retainKeys\":[\"name\",\"simpleMap\",\"value\"],\"simpleMap\":{\"key1\":\"x\"}}}",
          "{\"retainKeysMap\":{\"name\":\"foo\",\"value\":\"bar\",\"simpleMap\":{\"key1\":\"x\",\"key2\":\"b\",\"key3\":\"c\"}}}",
          NULL },
        { "retainKeys map replaces non-merging list (three-way)",
          "{\"retainKeysMap\":{\"name\":\"foo\",\"value\":\"bar\",\"nonMergingList\":[{\"name\":\"a\"},{\"name\":\"b\"}]}}",
          "{\"retainKeysMap\":{\"$retainKeys\":[\"name\",\"nonMergingList\",\"value\"],\"nonMergingList\":[{\"name\":\"a\"},{\"name\":\"c\"},{\"name\":\"b\"}]}}",
          "{\"retainKeysMap\":{\"name\":\"foo\",\"value\":\"bar\",\"nonMergingList\":[{\"name\":\"a\"},{\"name\":\"c\"},{\"name\":\"b\"}]}}",
          NULL },
        { "retainKeys map nested non-merging list with no change (three-way)",
          "{\"retainKeysMap\":{\"name\":\"foo\",\"nonMergingList\":[{\"name\":\"a\"},{\"name\":\"b\"}]}}",
          "{\"retainKeysMap\":{\"$retainKeys\":[\"name\",\"nonMergingList\",\"value\"],\"value\":\"bar\"}}",
          "{\"retainKeysMap\":{\"name\":\"foo\",\"value\":\"bar\",\"nonMergingList\":[{\"name\":\"a\"},{\"name\":\"b\"}]}}",
          NULL },
        { "retainKeys map deletes nested non-merging list (three-way)",
          "{\"retainKeysMap\":{\"name\":\"foo\",\"nonMergingList\":[{\"name\":\"a\"},{\"name\":\"b\"}]}}",
          "{\"retainKeysMap\":{\"$retainKeys\":[\"name\",\"value\"],\"value\":\"bar\",\"nonMergingList\":null}}",
          "{\"retainKeysMap\":{\"name\":\"foo\",\"value\":\"bar\"}}", NULL },
        { "retainKeys map nested merging int list with no change (three-way)",
          "{\"retainKeysMap\":{\"name\":\"foo\",\"mergingIntList\":[1,2,3]}}",
          "{\"retainKeysMap\":{\"$retainKeys\":[\"mergingIntList\",\"name\",\"value\"],\"$setElementOrder/mergingIntList\":[1,2],\"value\":\"bar\"}}",
          "{\"retainKeysMap\":{\"name\":\"foo\",\"value\":\"bar\",\"mergingIntList\":[1,2,3]}}",
          NULL },
        { "retainKeys map adds an item in nested merging int list (three-way)",
          "{\"retainKeysMap\":{\"name\":\"foo\",\"mergingIntList\":[1,2,3]}}",
          "{\"retainKeysMap\":{\"$setElementOrder/mergingIntList\":[1,2,4],\"$retainKeys\":[\"mergingIntList\",\"name\"],\"mergingIntList\":[4]}}",
          "{\"retainKeysMap\":{\"name\":\"foo\",\"mergingIntList\":[1,2,4,3]}}", NULL },
        { "retainKeys map deletes an item in nested merging int list (three-way)",
          "{\"retainKeysMap\":{\"name\":\"foo\",\"mergingIntList\":[1,2,3,4]}}",
          "{\"retainKeysMap\":{\"$retainKeys\":[\"mergingIntList\",\"name\"],\"$deleteFromPrimitiveList/mergingIntList\":[2],\"$setElementOrder/mergingIntList\":[1,3]}}",
          "{\"retainKeysMap\":{\"name\":\"foo\",\"mergingIntList\":[1,3,4]}}", NULL },
        { "retainKeys map adds an item and deletes an item in nested merging int list (three-way)",
          "{\"retainKeysMap\":{\"name\":\"foo\",\"mergingIntList\":[1,2,3,4]}}",
          "{\"retainKeysMap\":{\"$retainKeys\":[\"mergingIntList\",\"name\"],\"mergingIntList\":[5],\"$deleteFromPrimitiveList/mergingIntList\":[2],\"$setElementOrder/mergingIntList\":[1,3,5]}}",
          "{\"retainKeysMap\":{\"name\":\"foo\",\"mergingIntList\":[1,3,5,4]}}", NULL },
        { "retainKeys map deletes nested merging int list (three-way)",
          "{\"retainKeysMap\":{\"name\":\"foo\",\"mergingIntList\":[1,2,3]}}",
          "{\"retainKeysMap\":{\"$retainKeys\":[\"name\"],\"mergingIntList\":null}}",
          "{\"retainKeysMap\":{\"name\":\"foo\"}}", NULL },
        { "retainKeys map nested merging list with no change (three-way)",
          "{\"retainKeysMap\":{\"name\":\"foo\",\"mergingList\":[{\"name\":\"a\"},{\"name\":\"b\"},{\"name\":\"c\"}]}}",
          "{\"retainKeysMap\":{\"$retainKeys\":[\"mergingList\",\"name\",\"value\"],\"$setElementOrder/mergingList\":[{\"name\":\"a\"},{\"name\":\"b\"}],\"value\":\"bar\"}}",
          "{\"retainKeysMap\":{\"name\":\"foo\",\"value\":\"bar\",\"mergingList\":[{\"name\":\"a\"},{\"name\":\"b\"},{\"name\":\"c\"}]}}",
          NULL },
        { "retainKeys map adds an item in nested merging list (three-way)",
          "{\"retainKeysMap\":{\"name\":\"foo\",\"mergingList\":[{\"name\":\"a\"},{\"name\":\"b\"},{\"name\":\"x\"}]}}",
          "{\"retainKeysMap\":{\"$retainKeys\":[\"mergingList\",\"name\"],\"$setElementOrder/mergingList\":[{\"name\":\"a\"},{\"name\":\"b\"},{\"name\":\"c\"}],\"mergingList\":[{\"name\":\"c\"}]}}",
          "{\"retainKeysMap\":{\"name\":\"foo\",\"mergingList\":[{\"name\":\"a\"},{\"name\":\"b\"},{\"name\":\"c\"},{\"name\":\"x\"}]}}",
          NULL },
        { "retainKeys map changes an item in nested merging list (three-way)",
          "{\"retainKeysMap\":{\"name\":\"foo\",\"mergingList\":[{\"name\":\"a\"},{\"name\":\"b\",\"value\":\"foo\"},{\"name\":\"x\"}]}}",
          "{\"retainKeysMap\":{\"$retainKeys\":[\"mergingList\",\"name\"],\"$setElementOrder/mergingList\":[{\"name\":\"a\"},{\"name\":\"b\"}],\"mergingList\":[{\"name\":\"b\",\"value\":\"bar\"}]}}",
          "{\"retainKeysMap\":{\"name\":\"foo\",\"mergingList\":[{\"name\":\"a\"},{\"name\":\"b\",\"value\":\"bar\"},{\"name\":\"x\"}]}}",
          NULL },
        { "retainKeys map deletes nested merging list (three-way)",
          "{\"retainKeysMap\":{\"name\":\"foo\",\"mergingList\":[{\"name\":\"a\"},{\"name\":\"b\"}]}}",
          "{\"retainKeysMap\":{\"$retainKeys\":[\"name\",\"value\"],\"value\":\"bar\",\"mergingList\":null}}",
          "{\"retainKeysMap\":{\"name\":\"foo\",\"value\":\"bar\"}}", NULL },
        { "retainKeys map deletes an item in nested merging list (three-way)",
          "{\"retainKeysMap\":{\"name\":\"foo\",\"mergingList\":[{\"name\":\"a\"},{\"name\":\"b\"},{\"name\":\"x\"}]}}",
          "{\"retainKeysMap\":{\"$retainKeys\":[\"mergingList\",\"name\"],\"$setElementOrder/mergingList\":[{\"name\":\"a\"}],\"mergingList\":[{\"name\":\"b\",\"$patch\":\"delete\"}]}}",
          "{\"retainKeysMap\":{\"name\":\"foo\",\"mergingList\":[{\"name\":\"a\"},{\"name\":\"x\"}]}}",
          NULL },
        { "retainKeys list of maps clears a field (three-way)",
          "{\"retainKeysMergingList\":[{\"name\":\"bar\"},{\"name\":\"foo\",\"value\":\"a\",\"other\":\"x\"}]}",
          "{\"$setElementOrder/retainKeysMergingList\":[{\"name\":\"bar\"},{\"name\":\"foo\"}],\"retainKeysMergingList\":[{\"$retainKeys\":[\"name\",\"value\"],\"name\":\"foo\"}]}",
          "{\"retainKeysMergingList\":[{\"name\":\"bar\"},{\"name\":\"foo\",\"value\":\"a\"}]}",
          NULL },
        { "retainKeys list of maps changes a field and clear a field (three-way)",
          "{\"retainKeysMergingList\":[{\"name\":\"bar\"},{\"name\":\"foo\",\"value\":\"old\",\"other\":\"x\"}]}",
          "{\"$setElementOrder/retainKeysMergingList\":[{\"name\":\"bar\"},{\"name\":\"foo\"}],\"retainKeysMergingList\":[{\"$retainKeys\":[\"name\",\"value\"],\"name\":\"foo\",\"value\":\"new\"}]}",
          "{\"retainKeysMergingList\":[{\"name\":\"bar\"},{\"name\":\"foo\",\"value\":\"new\"}]}",
          NULL },
        { "retainKeys list of maps adds a field (three-way)",
          "{\"retainKeysMergingList\":[{\"name\":\"bar\"},{\"name\":\"foo\"}]}",
          "{\"$setElementOrder/retainKeysMergingList\":[{\"name\":\"bar\"},{\"name\":\"foo\"}],\"retainKeysMergingList\":[{\"$retainKeys\":[\"name\",\"value\"],\"name\":\"foo\",\"value\":\"a\"}]}",
          "{\"retainKeysMergingList\":[{\"name\":\"bar\"},{\"name\":\"foo\",\"value\":\"a\"}]}",
          NULL },
        { "retainKeys list of maps adds a field and clear a field (three-way)",
          "{\"retainKeysMergingList\":[{\"name\":\"bar\"},{\"name\":\"foo\",\"other\":\"x\"}]}",
          "{\"$setElementOrder/retainKeysMergingList\":[{\"name\":\"bar\"},{\"name\":\"foo\"}],\"retainKeysMergingList\":[{\"$retainKeys\":[\"name\",\"value\"],\"name\":\"foo\",\"value\":\"a\"}]}",
          "{\"retainKeysMergingList\":[{\"name\":\"bar\"},{\"name\":\"foo\",\"value\":\"a\"}]}",
          NULL },
        { "retainKeys list of maps deletes a field (three-way)",
          "{\"retainKeysMergingList\":[{\"name\":\"bar\"},{\"name\":\"foo\",\"value\":\"a\"}]}",
          "{\"$setElementOrder/retainKeysMergingList\":[{\"name\":\"bar\"},{\"name\":\"foo\"}],\"retainKeysMergingList\":[{\"$retainKeys\":[\"name\"],\"name\":\"foo\",\"value\":null}]}",
          "{\"retainKeysMergingList\":[{\"name\":\"bar\"},{\"name\":\"foo\"}]}", NULL },
        { "retainKeys list of maps deletes a field and clear a field (three-way)",
          "{\"retainKeysMergingList\":[{\"name\":\"bar\"},{\"name\":\"foo\",\"value\":\"a\",\"other\":\"x\"}]}",
          "{\"$setElementOrder/retainKeysMergingList\":[{\"name\":\"bar\"},{\"name\":\"foo\"}],\"retainKeysMergingList\":[{\"$retainKeys\":[\"name\"],\"name\":\"foo\",\"value\":null}]}",
          "{\"retainKeysMergingList\":[{\"name\":\"bar\"},{\"name\":\"foo\"}]}", NULL },
        { "delete and reorder in one list, reorder in another (three-way)",
          "{\"mergingList\":[{\"name\":\"a\",\"value\":\"a\"},{\"name\":\"b\",\"value\":\"b\"}],\"mergeItemPtr\":[{\"name\":\"c\",\"value\":\"c\"},{\"name\":\"d\",\"value\":\"d\"}]}", "{\"$setElementOrder/mergingList\":[{\"name\":\"b\"}],\"$setElementOrder/mergeItemPtr\":[{\"name\":\"d\"},{\"name\":\"c\"}],\"mergingList\":[{\"$patch\":\"delete\",\"name\":\"a\"}]}",
          "{\"mergingList\":[{\"name\":\"b\",\"value\":\"b\"}],\"mergeItemPtr\":[{\"name\":\"d\",\"value\":\"d\"},{\"name\":\"c\",\"value\":\"c\"}]}",
          NULL },
};

static void test_upstream_cases(void **state)
{
        for (size_t i = 0; i < ARRAY_SIZE(upstream_cases); i++)
                run_case(ENGINE_STRATEGIC, &s_merge_item, &upstream_cases[i], false);
}

/* ---- server-side apply -------------------------------------------------------------------- */

static const struct patch_case apply_cases[] = {
        { "apply creates: a copy without nulls", NULL,
          "{\"metadata\":{\"name\":\"a\",\"labels\":{\"x\":null}},\"spec\":{\"containers\":[{"
          "\"name\":\"c\",\"image\":null}]}}",
          "{\"metadata\":{\"name\":\"a\",\"labels\":{}},\"spec\":{\"containers\":[{\"name\":"
          "\"c\"}]}}",
          NULL },
        { "apply merges by merge key, unions sets, replaces atomic lists",
          "{\"metadata\":{\"name\":\"a\",\"labels\":{\"x\":\"1\"},\"finalizers\":[\"f1\"]},"
          "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"1\",\"env\":[{\"name\":\"A\","
          "\"value\":\"1\"}]},{\"name\":\"s\",\"image\":\"s\"}],\"tolerations\":[{\"key\":\"k1\"}],"
          "\"nodeName\":\"n\"}}",
          "{\"metadata\":{\"name\":\"a\",\"labels\":{\"y\":\"2\",\"x\":null},\"finalizers\":["
          "\"f2\"]},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"2\",\"env\":[{\"name\":"
          "\"B\",\"value\":\"2\"}]}],\"tolerations\":[{\"key\":\"k2\"}]}}",
          "{\"metadata\":{\"name\":\"a\",\"labels\":{\"x\":\"1\",\"y\":\"2\"},\"finalizers\":["
          "\"f1\",\"f2\"]},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"2\",\"env\":[{"
          "\"name\":\"A\",\"value\":\"1\"},{\"name\":\"B\",\"value\":\"2\"}]},{\"name\":\"s\","
          "\"image\":\"s\"}],\"tolerations\":[{\"key\":\"k2\"}],\"nodeName\":\"n\"}}",
          NULL },
        /* kubectl-wire.md §4.5: the kubectl-last-applied request carries only metadata. */
        { "apply of the last-applied annotation keeps everything else",
          "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"ssa\",\"namespace\":"
          "\"default\",\"annotations\":{\"a\":\"b\"}},\"spec\":{\"containers\":[{\"name\":\"c\"}]}}",
          "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"annotations\":{\"kubectl."
          "kubernetes.io/last-applied-configuration\":\"{}\\n\"},\"name\":\"ssa\",\"namespace\":"
          "\"default\"}}",
          "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"ssa\",\"namespace\":"
          "\"default\",\"annotations\":{\"a\":\"b\",\"kubectl.kubernetes.io/last-applied-"
          "configuration\":\"{}\\n\"}},\"spec\":{\"containers\":[{\"name\":\"c\"}]}}",
          NULL },
        { "apply treats $-keys as data", "{\"spec\":{\"nodeSelector\":{\"a\":\"b\"}}}",
          "{\"spec\":{\"nodeSelector\":{\"$patch\":\"delete\"}}}",
          "{\"spec\":{\"nodeSelector\":{\"a\":\"b\",\"$patch\":\"delete\"}}}", NULL },
        { "apply: element without its key", "{\"spec\":{}}",
          "{\"spec\":{\"containers\":[{\"name\":\"a\"},{\"image\":\"x\"}]}}", NULL,
          ".spec.containers: element 1: associative list with keys has an element that omits key "
          "field \"name\" (and doesn't have default value)" },
        { "apply: duplicate keys", "{\"spec\":{\"containers\":[{\"name\":\"a\"}]}}",
          "{\"spec\":{\"containers\":[{\"name\":\"a\"},{\"name\":\"a\"}]}}", NULL,
          ".spec.containers: duplicate entries for key [name=\"a\"]" },
        { "apply: nested path in messages", "{\"spec\":{\"containers\":[{\"name\":\"a\"}]}}",
          "{\"spec\":{\"containers\":[{\"name\":\"a\",\"env\":[\"x\"]}]}}", NULL,
          ".spec.containers[name=\"a\"].env: element 0: associative list with keys may not have "
          "non-map elements" },
        { "apply: an object is required", "{}", "[]", NULL,
          "apply patch: the applied configuration must be an object" },
};

static void test_apply_cases(void **state)
{
        for (size_t i = 0; i < ARRAY_SIZE(apply_cases); i++)
                run_case(ENGINE_APPLY, &s_pod, &apply_cases[i], true);
}

/* ---- hostile inputs ------------------------------------------------------------------------- */

static json_t *nest(int depth)
{
        json_t *v = json_object();

        while (depth-- > 1) {
                json_t *outer = json_object();

                json_object_set_new(outer, "a", v);
                v = outer;
        }
        return v;
}

static void test_depth_cap(void **state)
{
        cleanup_json json_t *deep = nest(PATCH_MAX_DEPTH + 1), *ok = nest(PATCH_MAX_DEPTH);
        cleanup_json json_t *empty = json_object(), *result = NULL;
        struct error *err = NULL;

        assert_int_equal(patch_strategic_merge(empty, deep, &s_pod, &result, &err), -EINVAL);
        assert_string_equal(err->message,
                            "strategic merge patch: patch nesting exceeds the maximum depth 100");
        err = error_free(err);
        assert_int_equal(patch_strategic_merge(deep, empty, &s_pod, &result, &err), -EINVAL);
        assert_string_equal(err->message,
                            "strategic merge patch: object nesting exceeds the maximum depth 100");
        err = error_free(err);
        assert_int_equal(patch_apply(NULL, deep, &s_pod, &result, &err), -EINVAL);
        err = error_free(err);
        assert_int_equal(patch_strategic_merge(empty, ok, &s_pod, &result, &err), 0);
        assert_true(json_equal(result, ok));
}

/* Large lists: merge by key, deletion and reordering stay near-linear (quadratic look-ups
 * would take minutes here). */
static void test_large_lists(void **state)
{
        const size_t n = 40000;
        cleanup_json json_t *orig = json_pack("{s:{s:[]}}", "spec", "containers");
        cleanup_json json_t *patch =
                json_pack("{s:{s:[], s:[]}}", "spec", "containers", "$setElementOrder/containers");
        cleanup_json json_t *result = NULL;
        json_t *oc = json_object_get(json_object_get(orig, "spec"), "containers");
        json_t *pc = json_object_get(json_object_get(patch, "spec"), "containers");
        json_t *order =
                json_object_get(json_object_get(patch, "spec"), "$setElementOrder/containers");
        struct error *err = NULL;
        json_t *rc;
        char name[32];

        for (size_t i = 0; i < n; i++) {
                snprintf(name, sizeof(name), "c%zu", i);
                json_array_append_new(oc, json_pack("{s:s, s:s}", "name", name, "image", "old"));
        }
        /* Reverse order; every even container gets a new image, every 4th is deleted, and n new
         * ones are appended. */
        for (size_t i = n + n; i-- > 0;) {
                snprintf(name, sizeof(name), "c%zu", i);
                if (i < n && i % 4 == 0) {
                        json_array_append_new(
                                pc, json_pack("{s:s, s:s}", "$patch", "delete", "name", name));
                        continue;
                }
                json_array_append_new(order, json_pack("{s:s}", "name", name));
                if (i >= n || i % 2 == 0)
                        json_array_append_new(
                                pc, json_pack("{s:s, s:s}", "name", name, "image", "new"));
        }
        assert_int_equal(patch_strategic_merge(orig, patch, &s_pod, &result, &err), 0);
        rc = json_object_get(json_object_get(result, "spec"), "containers");
        assert_int_equal(json_array_size(rc), n + n - n / 4);
        snprintf(name, sizeof(name), "c%zu", n + n - 1);
        assert_string_equal(json_string_value(json_object_get(json_array_get(rc, 0), "name")),
                            name);
        assert_string_equal(json_string_value(json_object_get(json_array_get(rc, 0), "image")),
                            "new");
        assert_string_equal(json_string_value(json_object_get(
                                    json_array_get(rc, json_array_size(rc) - 1), "name")),
                            "c1");
        assert_string_equal(json_string_value(json_object_get(
                                    json_array_get(rc, json_array_size(rc) - 1), "image")),
                            "old");
}

/* Wrong types wherever an object or list is expected never crash: each is either merged,
 * replaced or refused with a message. */
static void test_wrong_types(void **state)
{
        static const char *const values[] = {
                "null",
                "1",
                "\"s\"",
                "true",
                "[]",
                "{}",
                "[null]",
                "[1]",
                "[[]]",
                "[{}]",
                "{\"$patch\":null}",
                "[{\"$patch\":\"delete\"}]",
                "[{\"name\":[]}]",
                "[{\"name\":{}}]",
        };
        static const char *const places[] = {
                "{\"spec\":{\"containers\":%s}}",
                "{\"spec\":{\"containers\":[{\"name\":\"a\",\"env\":%s}]}}",
                "{\"spec\":{\"$setElementOrder/containers\":%s}}",
                "{\"metadata\":{\"$deleteFromPrimitiveList/finalizers\":%s}}",
                "{\"spec\":{\"volumes\":[{\"name\":\"v\",\"$retainKeys\":%s}]}}",
                "{\"metadata\":{\"finalizers\":%s}}",
                "{\"spec\":%s}",
        };
        cleanup_json json_t *orig = parse(
                "{\"metadata\":{\"finalizers\":[\"a\"]},\"spec\":{\"containers\":[{\"name\":\"a\","
                "\"env\":[{\"name\":\"E\"}]}],\"volumes\":[{\"name\":\"v\"}]}}");

        for (size_t p = 0; p < ARRAY_SIZE(places); p++)
                for (size_t v = 0; v < ARRAY_SIZE(values); v++)
                        for (int apply = 0; apply < 2; apply++) {
                                char text[256];
                                cleanup_json json_t *patch = NULL, *result = NULL;
                                struct error *err = NULL;
                                int r;

                                snprintf(text, sizeof(text), places[p], values[v]);
                                patch = parse(text);
                                r = apply ? patch_apply(orig, patch, &s_pod, &result, &err)
                                          : patch_strategic_merge(orig, patch, &s_pod, &result,
                                                                  &err);
                                if (r < 0) {
                                        assert_int_equal(r, -EINVAL);
                                        assert_non_null(err);
                                        assert_true(strlen(err->message) > 0);
                                        error_free(err);
                                } else {
                                        assert_non_null(result);
                                        assert_null(err);
                                }
                        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_pod_cases),      cmocka_unit_test(test_real_pod_schema),
                cmocka_unit_test(test_upstream_cases), cmocka_unit_test(test_apply_cases),
                cmocka_unit_test(test_depth_cap),      cmocka_unit_test(test_large_lists),
                cmocka_unit_test(test_wrong_types),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
