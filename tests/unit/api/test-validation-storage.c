/* test-validation-storage.c: StorageClass, PersistentVolume and PersistentVolumeClaim defaults,
 * strategy preparation and validation (create, update, status update), each case a merge patch
 * on a valid object and the exact errors upstream 1.33 reports for it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/patch.h"
#include "api/validation.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/strbuf.h"

#define SUBDOMAIN_MSG                                                                         \
 "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or " \
 "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex "     \
 "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
#define QUALIFIED_NAME_MSG                                                                 \
 "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and " \
 "end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex " \
 "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
#define SPEC_IMMUTABLE                                                              \
 "spec: Forbidden: spec is immutable after creation except resources.requests and " \
 "volumeAttributesClassName for bound claims\n"
#define BELOW_CAPACITY \
 "spec.resources.requests.storage: Forbidden: field can not be less than status.capacity"

/* ---- helpers ---- */

/* Parses test JSON written with single quotes. */
static json_t *jparse(const char *s)
{
        char *dup = xstrdup(s);
        json_error_t e;
        json_t *v;

        for (char *p = dup; *p; p++)
                if (*p == '\'')
                        *p = '"';
        v = json_loads(dup, JSON_DECODE_ANY, &e);
        if (!v)
                fail_msg("bad test json: %s: %s", e.text, dup);
        free(dup);
        return v;
}

/* base with an RFC 7386 merge patch (single-quoted JSON; NULL: none) applied. */
static json_t *with(const char *base, const char *patch)
{
        json_t *b = jparse(base), *out = NULL;

        if (!patch)
                return b;
        {
                cleanup_json json_t *p = jparse(patch);
                assert_int_equal(patch_merge(b, p, &out, NULL), 0);
        }
        json_decref(b);
        return out;
}

/* The errors one per line, as "field: body". */
static char *render(const struct field_error_list *errs)
{
        struct strbuf sb;

        strbuf_init(&sb);
        for (size_t i = 0; i < errs->n; i++) {
                cleanup_free char *e = field_error_string(&errs->items[i]);
                strbuf_addf(&sb, "%s%s", i ? "\n" : "", e);
        }
        return strbuf_detach(&sb);
}

static void expect(const char *name, size_t (*validate)(const json_t *, struct field_error_list *),
                   const json_t *obj, const char *want)
{
        struct field_error_list errs;
        cleanup_free char *got = NULL;
        size_t n;

        field_error_list_init(&errs);
        n = validate(obj, &errs);
        got = render(&errs);
        field_error_list_release(&errs);
        if (!streq(got, want))
                fail_msg("%s:\nwant: %s\ngot:  %s", name, want, got);
        assert_int_equal(n > 0, want[0] != '\0');
}

static void expect_update(const char *name,
                          size_t (*validate)(const json_t *, const json_t *,
                                             struct field_error_list *),
                          const json_t *new_obj, const json_t *old_obj, const char *want)
{
        struct field_error_list errs;
        cleanup_free char *got = NULL;

        field_error_list_init(&errs);
        (void) validate(new_obj, old_obj, &errs);
        got = render(&errs);
        field_error_list_release(&errs);
        if (!streq(got, want))
                fail_msg("%s:\nwant: %s\ngot:  %s", name, want, got);
}

struct create_case {
        const char *name;
        const char *patch; /* merge patch on the base object */
        const char *want;  /* errors, one per line; "" for valid */
};

struct update_case {
        const char *name;
        const char *old_patch; /* on the base: the stored object */
        const char *new_patch; /* on the stored object: the update */
        const char *want;
};

/* ---- StorageClass ---- */

static const char *sc_base =
        "{'apiVersion':'storage.k8s.io/v1','kind':'StorageClass','metadata':{'name':'fast',"
        "'resourceVersion':'1'},'provisioner':'flexlet.io/local-loop','parameters':{'fsType':"
        "'ext4'},'reclaimPolicy':'Delete','volumeBindingMode':'Immediate'}";

static void test_storage_class_defaults(void **state)
{
        cleanup_json json_t *sc = jparse("{'provisioner':'x'}");
        cleanup_json json_t *kept = jparse("{'reclaimPolicy':'Retain','volumeBindingMode':"
                                           "'WaitForFirstConsumer'}");

        storage_class_set_defaults(sc);
        assert_string_equal(json_path_string(sc, "reclaimPolicy"), "Delete");
        assert_string_equal(json_path_string(sc, "volumeBindingMode"), "Immediate");
        storage_class_set_defaults(kept);
        assert_string_equal(json_path_string(kept, "reclaimPolicy"), "Retain");
        assert_string_equal(json_path_string(kept, "volumeBindingMode"), "WaitForFirstConsumer");
}

static void test_storage_class_is_default(void **state)
{
        static const struct {
                const char *annotations;
                bool want;
        } cases[] = {
                { "{}", false },
                { "{'storageclass.kubernetes.io/is-default-class':'true'}", true },
                { "{'storageclass.beta.kubernetes.io/is-default-class':'true'}", true },
                { "{'storageclass.kubernetes.io/is-default-class':'True'}", false },
                { "{'storageclass.kubernetes.io/is-default-class':'false'}", false },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                cleanup_free char *patch =
                        xasprintf("{'metadata':{'annotations':%s}}", cases[i].annotations);
                cleanup_json json_t *sc = with(sc_base, patch);
                assert_int_equal(storage_class_is_default(sc), cases[i].want);
        }
}

static void test_storage_class_create(void **state)
{
        static const struct create_case cases[] = {
                { "valid", NULL, "" },
                { "expandable with mount options",
                  "{'allowVolumeExpansion':true,'mountOptions':['discard']}", "" },
                { "no provisioner", "{'provisioner':null}", "provisioner: Required value" },
                { "bad provisioner", "{'provisioner':'-bad'}",
                  "provisioner: Invalid value: \"-bad\": " QUALIFIED_NAME_MSG },
                { "upper case provisioner is checked lower case",
                  "{'provisioner':'Example.com/Fast'}", "" },
                { "reclaim policy Recycle", "{'reclaimPolicy':'Recycle'}",
                  "reclaimPolicy: Unsupported value: \"Recycle\": supported values: "
                  "\"Delete\", \"Retain\"" },
                { "binding mode", "{'volumeBindingMode':'Later'}",
                  "volumeBindingMode: Unsupported value: \"Later\": supported values: "
                  "\"Immediate\", \"WaitForFirstConsumer\"" },
                { "no binding mode (not defaulted)", "{'volumeBindingMode':null}",
                  "volumeBindingMode: Required value" },
                { "empty parameter key", "{'parameters':{'':'x'}}",
                  "parameters: Invalid value: \"\": field can not be empty." },
                { "topology without values",
                  "{'allowedTopologies':[{'matchLabelExpressions':[{'key':'zone'}]}]}",
                  "allowedTopologies[0].matchLabelExpressions[0].values: Required value" },
                { "duplicate topology terms",
                  "{'allowedTopologies':[{'matchLabelExpressions':[{'key':'zone','values':['a']}]},"
                  "{'matchLabelExpressions':[{'key':'zone','values':['a']}]}]}",
                  "allowedTopologies[1].matchLabelExpressions: Duplicate value: \"\"" },
                { "bad name", "{'metadata':{'name':'Fast'}}",
                  "metadata.name: Invalid value: \"Fast\": " SUBDOMAIN_MSG },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                cleanup_json json_t *sc = with(sc_base, cases[i].patch);
                expect(cases[i].name, validate_storage_class_create, sc, cases[i].want);
        }
}

static void test_storage_class_update(void **state)
{
        static const struct update_case cases[] = {
                { "no change", NULL, NULL, "" },
                { "allowVolumeExpansion is mutable", NULL, "{'allowVolumeExpansion':true}", "" },
                { "mountOptions are mutable", NULL, "{'mountOptions':['noatime']}", "" },
                { "annotations are mutable", NULL,
                  "{'metadata':{'annotations':{'storageclass.kubernetes.io/is-default-class':"
                  "'true'}}}",
                  "" },
                { "parameters", NULL, "{'parameters':{'fsType':'xfs'}}",
                  "parameters: Forbidden: updates to parameters are forbidden." },
                { "provisioner", NULL, "{'provisioner':'example.com/other'}",
                  "provisioner: Forbidden: updates to provisioner are forbidden." },
                { "reclaimPolicy", NULL, "{'reclaimPolicy':'Retain'}",
                  "reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden." },
                { "volumeBindingMode", NULL, "{'volumeBindingMode':'WaitForFirstConsumer'}",
                  "volumeBindingMode: Invalid value: \"WaitForFirstConsumer\": field is "
                  "immutable" },
                { "all at once", NULL,
                  "{'parameters':null,'provisioner':'x.io/y','reclaimPolicy':'Retain'}",
                  "parameters: Forbidden: updates to parameters are forbidden.\n"
                  "provisioner: Forbidden: updates to provisioner are forbidden.\n"
                  "reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden." },
                { "the new class is validated too", NULL, "{'volumeBindingMode':'Later'}",
                  "volumeBindingMode: Unsupported value: \"Later\": supported values: "
                  "\"Immediate\", \"WaitForFirstConsumer\"\n"
                  "volumeBindingMode: Invalid value: \"Later\": field is immutable" },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                cleanup_json json_t *old = with(sc_base, cases[i].old_patch);
                cleanup_json json_t *new_sc = with(sc_base, cases[i].new_patch);
                expect_update(cases[i].name, validate_storage_class_update, new_sc, old,
                              cases[i].want);
        }
}

/* ---- PersistentVolume ---- */

static const char *pv_base =
        "{'apiVersion':'v1','kind':'PersistentVolume','metadata':{'name':'pv1',"
        "'resourceVersion':'1'},'spec':{'capacity':{'storage':'1Gi'},'accessModes':"
        "['ReadWriteOnce'],'persistentVolumeReclaimPolicy':'Delete','storageClassName':"
        "'local-loop','volumeMode':'Filesystem','csi':{'driver':'local-loop.flexlet.io',"
        "'volumeHandle':'h','fsType':'ext4'}},'status':{'phase':'Available'}}";

#define NODE_AFFINITY                                                            \
 "'nodeAffinity':{'required':{'nodeSelectorTerms':[{'matchExpressions':[{'key':" \
 "'kubernetes.io/hostname','operator':'In','values':['node1']}]}]}}"

static void test_pv_defaults(void **state)
{
        cleanup_json json_t *pv =
                jparse("{'spec':{'hostPath':{'path':'/srv'},'capacity':{'storage':'1Gi'}}}");
        cleanup_json json_t *kept = jparse("{'spec':{'persistentVolumeReclaimPolicy':'Delete',"
                                           "'volumeMode':'Block'},'status':{'phase':'Bound'}}");

        pv_set_defaults(pv);
        assert_string_equal(json_path_string(pv, "spec.persistentVolumeReclaimPolicy"), "Retain");
        assert_string_equal(json_path_string(pv, "spec.volumeMode"), "Filesystem");
        assert_string_equal(json_path_string(pv, "spec.hostPath.type"), "");
        assert_string_equal(json_path_string(pv, "status.phase"), "Pending");
        pv_set_defaults(kept);
        assert_string_equal(json_path_string(kept, "spec.persistentVolumeReclaimPolicy"), "Delete");
        assert_string_equal(json_path_string(kept, "spec.volumeMode"), "Block");
        assert_string_equal(json_path_string(kept, "status.phase"), "Bound");
}

static void test_pv_prepare(void **state)
{
        cleanup_json json_t *pv = with(pv_base, "{'spec':{'volumeAttributesClassName':'gold'}}");
        cleanup_json json_t *old =
                with(pv_base, "{'status':{'phase':'Available',"
                              "'lastPhaseTransitionTime':'2025-01-01T00:00:00Z'}}");
        cleanup_json json_t *same = with(pv_base, "{'spec':{'capacity':{'storage':'9Gi'}},"
                                                  "'status':{'lastPhaseTransitionTime':null}}");
        cleanup_json json_t *moved = with(pv_base, "{'status':{'phase':'Bound'}}");
        cleanup_json json_t *told =
                with(pv_base, "{'status':{'phase':'Bound','lastPhaseTransitionTime':"
                              "'2025-06-01T00:00:00Z'}}");
        cleanup_json json_t *upd = with(pv_base, "{'status':{'phase':'Failed'}}");

        /* K8S: PrepareForCreate resets status to Pending now, drops VolumeAttributesClass */
        pv_prepare_for_create(pv, "2026-01-02T03:04:05Z");
        assert_string_equal(json_path_string(pv, "status.phase"), "Pending");
        assert_string_equal(json_path_string(pv, "status.lastPhaseTransitionTime"),
                            "2026-01-02T03:04:05Z");
        assert_null(json_path(pv, "spec.volumeAttributesClassName"));
        /* the same phase keeps the stored time; the spec stays the stored one */
        pv_prepare_for_status_update(same, old, "2026-01-02T03:04:05Z");
        assert_string_equal(json_path_string(same, "status.lastPhaseTransitionTime"),
                            "2025-01-01T00:00:00Z");
        assert_string_equal(json_path_string(same, "spec.capacity.storage"), "1Gi");
        /* a new phase without a new time is stamped now */
        pv_prepare_for_status_update(moved, old, "2026-01-02T03:04:05Z");
        assert_string_equal(json_path_string(moved, "status.lastPhaseTransitionTime"),
                            "2026-01-02T03:04:05Z");
        /* a writer's own time is kept */
        pv_prepare_for_status_update(told, old, "2026-01-02T03:04:05Z");
        assert_string_equal(json_path_string(told, "status.lastPhaseTransitionTime"),
                            "2025-06-01T00:00:00Z");
        /* the main resource keeps the stored status */
        pv_prepare_for_update(upd, old);
        assert_string_equal(json_path_string(upd, "status.phase"), "Available");
        assert_string_equal(pv_storage_class(upd), "local-loop");
}

static void test_pv_create(void **state)
{
        static const struct create_case cases[] = {
                { "valid csi", NULL, "" },
                { "valid local with node affinity",
                  "{'spec':{'csi':null,'local':{'path':'/mnt/disk'}," NODE_AFFINITY "}}", "" },
                { "valid hostPath",
                  "{'spec':{'csi':null,'hostPath':{'path':'/srv','type':"
                  "'DirectoryOrCreate'}}}",
                  "" },
                { "no access modes", "{'spec':{'accessModes':null}}",
                  "spec.accessModes: Required value" },
                { "unknown access mode", "{'spec':{'accessModes':['Bogus']}}",
                  "spec.accessModes: Unsupported value: \"Bogus\": supported values: "
                  "\"ReadOnlyMany\", \"ReadWriteMany\", \"ReadWriteOnce\", "
                  "\"ReadWriteOncePod\"" },
                { "ReadWriteOncePod with another mode",
                  "{'spec':{'accessModes':['ReadWriteOncePod','ReadWriteOnce']}}",
                  "spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access "
                  "modes" },
                { "no capacity", "{'spec':{'capacity':null}}",
                  "spec.capacity: Required value\n"
                  "spec.capacity: Unsupported value: {}: supported values: \"storage\"" },
                { "capacity other than storage", "{'spec':{'capacity':{'cpu':'1'}}}",
                  "spec.capacity: Unsupported value: {\"storage\":\"1Gi\",\"cpu\":\"1\"}: "
                  "supported values: \"storage\"" },
                { "zero capacity", "{'spec':{'capacity':{'storage':'0'}}}",
                  "spec.capacity[storage]: Invalid value: \"0\": must be greater than zero" },
                { "negative capacity", "{'spec':{'capacity':{'storage':'-1Gi'}}}",
                  "spec.capacity[storage]: Invalid value: -1073741824: must be a valid resource "
                  "quantity" },
                { "reclaim policy", "{'spec':{'persistentVolumeReclaimPolicy':'Keep'}}",
                  "spec.persistentVolumeReclaimPolicy: Unsupported value: \"Keep\": supported "
                  "values: \"Delete\", \"Recycle\", \"Retain\"" },
                { "no source", "{'spec':{'csi':null}}",
                  "spec: Required value: must specify a volume type" },
                { "two sources", "{'spec':{'hostPath':{'path':'/srv'}}}",
                  "spec.csi: Forbidden: may not specify more than 1 volume type" },
                { "local without node affinity", "{'spec':{'csi':null,'local':{'path':'/mnt'}}}",
                  "spec.nodeAffinity: Required value: Local volume requires node affinity" },
                { "local without path", "{'spec':{'csi':null,'local':{}," NODE_AFFINITY "}}",
                  "spec.local.path: Required value" },
                { "hostPath with ..", "{'spec':{'csi':null,'hostPath':{'path':'/a/../b'}}}",
                  "spec.hostPath.path: Invalid value: \"/a/../b\": must not contain '..'" },
                { "hostPath type", "{'spec':{'csi':null,'hostPath':{'path':'/a','type':'Bad'}}}",
                  "spec.hostPath.type: Unsupported value: \"Bad\": supported values: \"\", "
                  "\"BlockDevice\", \"CharDevice\", \"Directory\", \"DirectoryOrCreate\", "
                  "\"File\", \"FileOrCreate\", \"Socket\"" },
                { "recycling a hostPath of /",
                  "{'spec':{'csi':null,'hostPath':{'path':'/./'},'persistentVolumeReclaimPolicy':"
                  "'Recycle'}}",
                  "spec.persistentVolumeReclaimPolicy: Forbidden: may not be 'recycle' for a "
                  "hostPath mount of '/'" },
                { "a provisioner name is no CSI driver name",
                  "{'spec':{'csi':{'driver':'flexlet.io/local-loop'}}}",
                  "spec.csi.driver: Invalid value: \"flexlet.io/local-loop\": " SUBDOMAIN_MSG },
                { "csi without handle", "{'spec':{'csi':{'volumeHandle':null}}}",
                  "spec.csi.volumeHandle: Required value" },
                { "csi secret reference", "{'spec':{'csi':{'nodeExpandSecretRef':{'name':'s'}}}}",
                  "spec.csi.nodeExpandSecretRef.namespace: Required value" },
                { "mount options on csi", "{'spec':{'mountOptions':['discard']}}", "" },
                { "mount options on hostPath",
                  "{'spec':{'csi':null,'hostPath':{'path':'/a'},'mountOptions':['ro']}}",
                  "spec.mountOptions: Forbidden: may not specify mount options for this volume "
                  "type" },
                { "node selector operator",
                  "{'spec':{'nodeAffinity':{'required':{'nodeSelectorTerms':[{'matchExpressions':"
                  "[{'key':'k','operator':'Maybe'}]}]}}}}",
                  "spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].operator: "
                  "Invalid value: \"Maybe\": not a valid selector operator" },
                { "node selector without terms",
                  "{'spec':{'nodeAffinity':{'required':{'nodeSelectorTerms':[]}}}}",
                  "spec.nodeAffinity.required.nodeSelectorTerms: Required value: must have at "
                  "least one node selector term" },
                { "node affinity without required", "{'spec':{'nodeAffinity':{}}}",
                  "spec.nodeAffinity.required: Required value: must specify required node "
                  "constraints" },
                { "volume mode", "{'spec':{'volumeMode':'Raw'}}",
                  "spec.volumeMode: Unsupported value: \"Raw\": supported values: \"Block\", "
                  "\"Filesystem\"" },
                { "class name", "{'spec':{'storageClassName':'Bad_Name'}}",
                  "spec.storageClassName: Invalid value: \"Bad_Name\": " SUBDOMAIN_MSG },
                { "namespace on a cluster-scoped kind", "{'metadata':{'namespace':'default'}}",
                  "metadata.namespace: Forbidden: not allowed on this type" },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                cleanup_json json_t *pv = with(pv_base, cases[i].patch);
                expect(cases[i].name, validate_pv_create, pv, cases[i].want);
        }
}

static void test_pv_update(void **state)
{
        static const struct update_case cases[] = {
                { "no change", NULL, NULL, "" },
                { "capacity grows (the expander's write)", NULL,
                  "{'spec':{'capacity':{'storage':'2Gi'}}}", "" },
                { "binding sets claimRef", NULL,
                  "{'spec':{'claimRef':{'kind':'PersistentVolumeClaim','namespace':'default',"
                  "'name':'data','uid':'u1'}}}",
                  "" },
                { "reclaim policy may change", NULL,
                  "{'spec':{'persistentVolumeReclaimPolicy':'Retain'}}", "" },
                { "a controllerExpandSecretRef may be added", NULL,
                  "{'spec':{'csi':{'controllerExpandSecretRef':{'name':'s','namespace':'n'}}}}",
                  "" },
                { "the source is immutable", NULL, "{'spec':{'csi':{'volumeHandle':'h2'}}}",
                  "spec.persistentvolumesource: Forbidden: spec.persistentvolumesource is "
                  "immutable after creation\n- spec.csi.volumeHandle: \"h\"\n"
                  "+ spec.csi.volumeHandle: \"h2\"" },
                { "volume mode is immutable", NULL, "{'spec':{'volumeMode':'Block'}}",
                  "volumeMode: Invalid value: \"Block\": field is immutable" },
                { "node affinity may be set once", NULL, "{'spec':{" NODE_AFFINITY "}}", "" },
                { "then it is immutable", "{'spec':{" NODE_AFFINITY "}}",
                  "{'spec':{'nodeAffinity':null}}",
                  "nodeAffinity: Invalid value: \"null\": field is immutable" },
                { "the name is immutable", NULL, "{'metadata':{'name':'pv2'}}",
                  "metadata.name: Invalid value: \"pv2\": field is immutable" },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                cleanup_json json_t *old = with(pv_base, cases[i].old_patch);
                cleanup_json json_t *new_pv = NULL;
                cleanup_json json_t *p = cases[i].new_patch ? jparse(cases[i].new_patch) : NULL;
                if (p)
                        assert_int_equal(patch_merge(old, p, &new_pv, NULL), 0);
                else
                        new_pv = json_deep_copy(old);
                expect_update(cases[i].name, validate_pv_update, new_pv, old, cases[i].want);
        }
}

static void test_pv_status_update(void **state)
{
        cleanup_json json_t *old = with(pv_base, NULL);
        cleanup_json json_t *ok = with(pv_base, "{'status':{'phase':'Released','reason':'x'}}");
        cleanup_json json_t *no_rv = with(pv_base, "{'metadata':{'resourceVersion':null}}");

        expect_update("status may change", validate_pv_status_update, ok, old, "");
        expect_update("an update names its version", validate_pv_status_update, no_rv, old,
                      "metadata.resourceVersion: Invalid value: \"\": must be specified for an "
                      "update");
}

/* ---- PersistentVolumeClaim ---- */

static const char *pvc_base =
        "{'apiVersion':'v1','kind':'PersistentVolumeClaim','metadata':{'name':'data',"
        "'namespace':'default','resourceVersion':'1'},'spec':{'accessModes':['ReadWriteOnce'],"
        "'resources':{'requests':{'storage':'1Gi'}},'storageClassName':'local-loop',"
        "'volumeMode':'Filesystem'},'status':{'phase':'Pending'}}";

static void test_pvc_defaults_and_prepare(void **state)
{
        cleanup_json json_t *pvc = jparse(
                "{'spec':{'resources':{'requests':{'storage':'1Gi'}}},'status':{'phase':'Bound',"
                "'capacity':{'storage':'1Gi'}}}");
        cleanup_json json_t *vac = with(pvc_base, "{'spec':{'volumeAttributesClassName':'gold',"
                                                  "'dataSource':{'kind':'Foo','name':'x'}}}");
        cleanup_json json_t *clone = with(pvc_base, "{'spec':{'dataSource':{'kind':"
                                                    "'PersistentVolumeClaim','name':'src'}}}");
        cleanup_json json_t *snap =
                with(pvc_base, "{'spec':{'dataSourceRef':{'apiGroup':'snapshot.storage.k8s.io',"
                               "'kind':'VolumeSnapshot','name':'s1'}}}");
        cleanup_json json_t *old = with(pvc_base, "{'status':{'phase':'Bound','capacity':{"
                                                  "'storage':'1Gi'}}}");
        cleanup_json json_t *upd = with(pvc_base, "{'status':{'phase':'Lost'}}");
        cleanup_json json_t *st = with(pvc_base, "{'spec':{'accessModes':['ReadWriteMany']},"
                                                 "'status':{'phase':'Bound',"
                                                 "'currentVolumeAttributesClassName':'gold'}}");

        pvc_set_defaults(pvc);
        assert_string_equal(json_path_string(pvc, "spec.volumeMode"), "Filesystem");
        assert_string_equal(json_path_string(pvc, "status.phase"), "Bound");
        /* K8S: PrepareForCreate: a fresh status, no VolumeAttributesClass, no unserved source */
        pvc_prepare_for_create(pvc);
        {
                cleanup_free char *status = json_dump_compact(json_object_get(pvc, "status"));
                assert_string_equal(status, "{\"phase\":\"Pending\"}");
        }
        pvc_prepare_for_create(vac);
        assert_null(json_path(vac, "spec.volumeAttributesClassName"));
        assert_null(json_path(vac, "spec.dataSource"));
        assert_null(json_path(vac, "spec.dataSourceRef"));
        /* K8S: NormalizeDataSources fills each from the other */
        pvc_prepare_for_create(clone);
        assert_string_equal(json_path_string(clone, "spec.dataSourceRef.name"), "src");
        assert_string_equal(json_path_string(clone, "spec.dataSourceRef.kind"),
                            "PersistentVolumeClaim");
        pvc_prepare_for_create(snap);
        assert_string_equal(json_path_string(snap, "spec.dataSource.apiGroup"),
                            "snapshot.storage.k8s.io");
        assert_string_equal(json_path_string(snap, "spec.dataSource.name"), "s1");
        /* the main resource keeps the stored status, /status the stored spec */
        pvc_prepare_for_update(upd, old);
        assert_string_equal(json_path_string(upd, "status.phase"), "Bound");
        pvc_prepare_for_status_update(st, old);
        assert_string_equal(json_string_value(json_array_get(json_path(st, "spec.accessModes"), 0)),
                            "ReadWriteOnce");
        assert_null(json_path(st, "status.currentVolumeAttributesClassName"));
        assert_string_equal(json_path_string(st, "status.phase"), "Bound");
}

static void test_pvc_storage_class(void **state)
{
        cleanup_json json_t *plain = with(pvc_base, NULL);
        cleanup_json json_t *beta = with(
                pvc_base,
                "{'metadata':{'annotations':{'volume.beta.kubernetes.io/storage-class':'gold'}}}");
        cleanup_json json_t *none = with(pvc_base, "{'spec':{'storageClassName':null}}");
        cleanup_json json_t *empty = with(pvc_base, "{'spec':{'storageClassName':''}}");

        assert_string_equal(pvc_storage_class(plain), "local-loop");
        assert_string_equal(pvc_storage_class(beta), "gold");
        assert_string_equal(pvc_storage_class(none), "");
        assert_true(pvc_has_storage_class(plain));
        assert_true(pvc_has_storage_class(beta));
        assert_false(pvc_has_storage_class(none));
        /* K8S: "" asks for no class at all: the default class is not applied */
        assert_true(pvc_has_storage_class(empty));
}

static void test_pvc_create(void **state)
{
        static const struct create_case cases[] = {
                { "valid", NULL, "" },
                { "no class", "{'spec':{'storageClassName':null}}", "" },
                { "no access modes", "{'spec':{'accessModes':[]}}",
                  "spec.accessModes: Required value: at least 1 access mode is required" },
                { "no storage request", "{'spec':{'resources':{'requests':null}}}",
                  "spec.resources[storage]: Required value" },
                { "zero storage request", "{'spec':{'resources':{'requests':{'storage':'0'}}}}",
                  "spec.resources[storage]: Invalid value: \"0\": must be greater than zero" },
                { "class name", "{'spec':{'storageClassName':'Gold'}}",
                  "spec.storageClassName: Invalid value: \"Gold\": " SUBDOMAIN_MSG },
                { "volume mode", "{'spec':{'volumeMode':'Raw'}}",
                  "spec.volumeMode: Unsupported value: \"Raw\": supported values: \"Block\", "
                  "\"Filesystem\"" },
                { "selector operator",
                  "{'spec':{'selector':{'matchExpressions':[{'key':'a','operator':'Maybe'}]}}}",
                  "spec.selector.matchExpressions[0].operator: Invalid value: \"Maybe\": not a "
                  "valid selector operator" },
                { "selector In without values",
                  "{'spec':{'selector':{'matchExpressions':[{'key':'a','operator':'In'}]}}}",
                  "spec.selector.matchExpressions[0].values: Required value: must be specified "
                  "when `operator` is 'In' or 'NotIn'" },
                { "data source of another kind",
                  "{'spec':{'dataSource':{'kind':'Foo','name':'x'}}}",
                  "spec.dataSource: Invalid value: \"Foo\": must be 'PersistentVolumeClaim' when "
                  "referencing the default apiGroup" },
                { "data source without a name",
                  "{'spec':{'dataSource':{'kind':'PersistentVolumeClaim'}}}",
                  "spec.dataSource.name: Required value" },
                { "data sources that disagree",
                  "{'spec':{'dataSource':{'kind':'PersistentVolumeClaim','name':'a'},"
                  "'dataSourceRef':{'kind':'PersistentVolumeClaim','name':'b'}}}",
                  "spec: Invalid value: spec.dataSource: must match dataSourceRef" },
                { "no namespace", "{'metadata':{'namespace':null}}",
                  "metadata.namespace: Required value" },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                cleanup_json json_t *pvc = with(pvc_base, cases[i].patch);
                expect(cases[i].name, validate_pvc_create, pvc, cases[i].want);
        }
}

#define BOUND                                                               \
 "{'spec':{'volumeName':'pv1','resources':{'requests':{'storage':'3Gi'}}}," \
 "'status':{'phase':'Bound','accessModes':['ReadWriteOnce'],'capacity':{'storage':'2Gi'}}}"

static void test_pvc_update(void **state)
{
        static const struct update_case cases[] = {
                { "no change", NULL, NULL, "" },
                { "labels may change", NULL, "{'metadata':{'labels':{'a':'b'}}}", "" },
                /* K8S: requests of an unbound claim are part of the immutable spec */
                { "a pending claim's request", NULL,
                  "{'spec':{'resources':{'requests':{'storage':'2Gi'}}}}",
                  SPEC_IMMUTABLE "- spec.resources.requests.storage: \"1Gi\"\n"
                                 "+ spec.resources.requests.storage: \"2Gi\"" },
                { "binding sets volumeName once", NULL, "{'spec':{'volumeName':'pv1'}}", "" },
                { "a bound claim grows", BOUND,
                  "{'spec':{'resources':{'requests':{'storage':'4Gi'}}}}", "" },
                /* S22: spec 3Gi, status 2Gi: 2Gi is refused, 2500Mi accepted (KEP-1790) */
                { "lowered to status.capacity", BOUND,
                  "{'spec':{'resources':{'requests':{'storage':'2Gi'}}}}", BELOW_CAPACITY },
                { "lowered below status.capacity", BOUND,
                  "{'spec':{'resources':{'requests':{'storage':'1Gi'}}}}", BELOW_CAPACITY },
                { "lowered but above status.capacity", BOUND,
                  "{'spec':{'resources':{'requests':{'storage':'2500Mi'}}}}", "" },
                { "the same size written otherwise", BOUND,
                  "{'spec':{'resources':{'requests':{'storage':'3072Mi'}}}}", "" },
                { "volumeName may not move", BOUND, "{'spec':{'volumeName':'pv2'}}",
                  SPEC_IMMUTABLE "- spec.volumeName: \"pv1\"\n+ spec.volumeName: \"pv2\"" },
                { "access modes", BOUND, "{'spec':{'accessModes':['ReadWriteMany']}}",
                  SPEC_IMMUTABLE "- spec.accessModes[0]: \"ReadWriteOnce\"\n"
                                 "+ spec.accessModes[0]: \"ReadWriteMany\"" },
                { "limits of a bound claim", BOUND,
                  "{'spec':{'resources':{'limits':{'storage':'5Gi'}}}}",
                  SPEC_IMMUTABLE "+ spec.resources.limits: {\"storage\":\"5Gi\"}" },
                { "volume mode", NULL, "{'spec':{'volumeMode':'Block'}}",
                  SPEC_IMMUTABLE "- spec.volumeMode: \"Filesystem\"\n"
                                 "+ spec.volumeMode: \"Block\"\n"
                                 "volumeMode: Invalid value: \"Block\": field is immutable" },
                { "a class may be set where there was none", "{'spec':{'storageClassName':null}}",
                  "{'spec':{'storageClassName':'gold'}}", "" },
                { "a class may not change", NULL, "{'spec':{'storageClassName':'gold'}}",
                  SPEC_IMMUTABLE "- spec.storageClassName: \"local-loop\"\n"
                                 "+ spec.storageClassName: \"gold\"" },
                { "the beta annotation's class moves to storageClassName",
                  "{'metadata':{'annotations':{'volume.beta.kubernetes.io/storage-class':'gold'}},"
                  "'spec':{'storageClassName':null}}",
                  "{'spec':{'storageClassName':'gold'}}", "" },
                { "the beta annotation is immutable",
                  "{'metadata':{'annotations':{'volume.beta.kubernetes.io/storage-class':'gold'}}}",
                  "{'metadata':{'annotations':{'volume.beta.kubernetes.io/storage-class':"
                  "'silver'}}}",
                  "metadata.annotations.volume.beta.kubernetes.io/storage-class: Invalid value: "
                  "\"silver\": field is immutable" },
                { "the new claim is validated too", NULL, "{'spec':{'accessModes':['Bogus']}}",
                  "spec.accessModes: Unsupported value: \"Bogus\": supported values: "
                  "\"ReadOnlyMany\", \"ReadWriteMany\", \"ReadWriteOnce\", "
                  "\"ReadWriteOncePod\"\n" SPEC_IMMUTABLE
                  "- spec.accessModes[0]: \"ReadWriteOnce\"\n"
                  "+ spec.accessModes[0]: \"Bogus\"" },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                cleanup_json json_t *old = with(pvc_base, cases[i].old_patch);
                cleanup_json json_t *new_pvc = NULL;
                cleanup_json json_t *p = cases[i].new_patch ? jparse(cases[i].new_patch) : NULL;
                if (p)
                        assert_int_equal(patch_merge(old, p, &new_pvc, NULL), 0);
                else
                        new_pvc = json_deep_copy(old);
                expect_update(cases[i].name, validate_pvc_update, new_pvc, old, cases[i].want);
        }
}

static void test_pvc_status_update(void **state)
{
        static const struct update_case cases[] = {
                { "bound", NULL,
                  "{'status':{'phase':'Bound','accessModes':['ReadWriteOnce'],'capacity':{"
                  "'storage':'1Gi'}}}",
                  "" },
                { "resizing (KEP-1790 status)", NULL,
                  "{'status':{'phase':'Bound','capacity':{'storage':'1Gi'},'allocatedResources':{"
                  "'storage':'2Gi'},'allocatedResourceStatuses':{'storage':'NodeResizePending'},"
                  "'conditions':[{'type':'FileSystemResizePending','status':'True'}]}}",
                  "" },
                { "unknown resize status", NULL,
                  "{'status':{'allocatedResourceStatuses':{'storage':'Shrinking'}}}",
                  "status.allocatedResourceStatus: Unsupported value: \"storage\": supported "
                  "values: \"ControllerResizeInProgress\", \"ControllerResizeInfeasible\", "
                  "\"NodeResizeInProgress\", \"NodeResizeInfeasible\", \"NodeResizePending\"" },
                { "resize status of another resource", NULL,
                  "{'status':{'allocatedResourceStatuses':{'cpu':'NodeResizePending'}}}",
                  "status.allocatedResourceStatus: Unsupported value: \"cpu\": supported values: "
                  "\"storage\"" },
                { "negative allocation", NULL,
                  "{'status':{'allocatedResources':{'storage':'-1Gi'}}}",
                  "status.allocatedResources[storage]: Invalid value: -1073741824: must be a "
                  "valid resource quantity" },
                { "negative capacity", NULL, "{'status':{'capacity':{'storage':'-1'}}}",
                  "status.capacity[storage]: Invalid value: -1: must be a valid resource "
                  "quantity" },
                { "a spec without access modes", "{'spec':{'accessModes':null}}", NULL,
                  "Spec.accessModes: Required value" },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                cleanup_json json_t *old = with(pvc_base, cases[i].old_patch);
                cleanup_json json_t *new_pvc = NULL;
                cleanup_json json_t *p = cases[i].new_patch ? jparse(cases[i].new_patch) : NULL;
                if (p)
                        assert_int_equal(patch_merge(old, p, &new_pvc, NULL), 0);
                else
                        new_pvc = json_deep_copy(old);
                expect_update(cases[i].name, validate_pvc_status_update, new_pvc, old,
                              cases[i].want);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_storage_class_defaults),
                cmocka_unit_test(test_storage_class_is_default),
                cmocka_unit_test(test_storage_class_create),
                cmocka_unit_test(test_storage_class_update),
                cmocka_unit_test(test_pv_defaults),
                cmocka_unit_test(test_pv_prepare),
                cmocka_unit_test(test_pv_create),
                cmocka_unit_test(test_pv_update),
                cmocka_unit_test(test_pv_status_update),
                cmocka_unit_test(test_pvc_defaults_and_prepare),
                cmocka_unit_test(test_pvc_storage_class),
                cmocka_unit_test(test_pvc_create),
                cmocka_unit_test(test_pvc_update),
                cmocka_unit_test(test_pvc_status_update),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
