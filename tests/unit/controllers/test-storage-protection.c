/* test-storage-protection.c: the decisions of the PVC and PV protection controllers, from
 * upstream's pvc_protection_controller_test and pv_protection_controller_test cases: which pods
 * use a claim (scheduled ones, whatever their phase; ephemeral claims only while the pod is not
 * shut down and owns them), what happens to each claim's and volume's finalizer, and the
 * finalizer edit itself. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "api/validation.h"
#include "base/alloc.h"
#include "base/json.h"
#include "controllers/storage-protection.h"

static json_t *jparse(const char *s)
{
        char *dup = xstrdup(s);
        json_t *v;

        for (char *p = dup; *p; p++)
                if (*p == '\'')
                        *p = '"';
        v = json_loads(dup, 0, NULL);
        if (!v)
                fail_msg("bad JSON: %s", s);
        free(dup);
        return v;
}

#define CLAIM       "{'metadata':{'name':'pvc1','namespace':'default'}}"
#define POD_META    "'metadata':{'name':'pod1','namespace':'default','uid':'uid1'}"
#define POD_VOLUMES "'volumes':[{'name':'v','persistentVolumeClaim':{'claimName':'pvc1'}}]"

static void test_pod_uses_claim(void **state)
{
        static const struct {
                const char *name;
                const char *pod;
                const char *pvc;
                bool want;
        } cases[] = {
                { "scheduled pod with the claim",
                  "{" POD_META ",'spec':{'nodeName':'node1'," POD_VOLUMES "}}", CLAIM, true },
                { "K8S: unscheduled pod: the kubelet would not start it",
                  "{" POD_META ",'spec':{" POD_VOLUMES "}}", CLAIM, false },
                { "empty nodeName is unscheduled",
                  "{" POD_META ",'spec':{'nodeName':''," POD_VOLUMES "}}", CLAIM, false },
                { "another namespace",
                  "{'metadata':{'name':'pod1','namespace':'other'},'spec':{'nodeName':'node1',"
                  "" POD_VOLUMES "}}",
                  CLAIM, false },
                { "K8S: unrelated claim and an emptyDir",
                  "{" POD_META ",'spec':{'nodeName':'node1','volumes':[{'name':'a',"
                  "'persistentVolumeClaim':{'claimName':'unrelatedPVC'}},{'name':'emptyDir',"
                  "'emptyDir':{}}]}}",
                  CLAIM, false },
                { "no volumes", "{" POD_META ",'spec':{'nodeName':'node1'}}", CLAIM, false },
                { "K8S: a Failed pod not yet deleted still uses it",
                  "{" POD_META ",'spec':{'nodeName':'node1'," POD_VOLUMES
                  "},'status':{'phase':'Failed'}}",
                  CLAIM, true },
                { "K8S: a Succeeded pod still uses it",
                  "{" POD_META ",'spec':{'nodeName':'node1'," POD_VOLUMES
                  "},'status':{'phase':'Succeeded'}}",
                  CLAIM, true },
                { "a pod in its grace period",
                  "{'metadata':{'name':'pod1','namespace':'default','deletionTimestamp':'x',"
                  "'deletionGracePeriodSeconds':30},'spec':{'nodeName':'node1'," POD_VOLUMES "}}",
                  CLAIM, true },
                { "K8S: shut down only matters for ephemeral volumes",
                  "{'metadata':{'name':'pod1','namespace':'default','deletionTimestamp':'x',"
                  "'deletionGracePeriodSeconds':0},'spec':{'nodeName':'node1'," POD_VOLUMES "}}",
                  CLAIM, true },
                /* ephemeral volumes: claim "<pod>-<volume>" controlled by the pod */
                { "ephemeral claim of the pod",
                  "{" POD_META ",'spec':{'nodeName':'node1','volumes':[{'name':'cache',"
                  "'ephemeral':{}}]}}",
                  "{'metadata':{'name':'pod1-cache','namespace':'default','ownerReferences':"
                  "[{'kind':'Pod','name':'pod1','uid':'uid1','controller':true}]}}",
                  true },
                { "ephemeral claim of the same name not controlled by the pod",
                  "{" POD_META ",'spec':{'nodeName':'node1','volumes':[{'name':'cache',"
                  "'ephemeral':{}}]}}",
                  "{'metadata':{'name':'pod1-cache','namespace':'default','ownerReferences':"
                  "[{'kind':'Pod','name':'pod1','uid':'uid1'}]}}",
                  false },
                { "ephemeral claim controlled by an older pod of the same name",
                  "{" POD_META ",'spec':{'nodeName':'node1','volumes':[{'name':'cache',"
                  "'ephemeral':{}}]}}",
                  "{'metadata':{'name':'pod1-cache','namespace':'default','ownerReferences':"
                  "[{'kind':'Pod','name':'pod1','uid':'uid0','controller':true}]}}",
                  false },
                { "K8S podIsShutDown: ephemeral claim of a pod deleted with grace 0",
                  "{'metadata':{'name':'pod1','namespace':'default','uid':'uid1',"
                  "'deletionTimestamp':'x','deletionGracePeriodSeconds':0},'spec':{'nodeName':"
                  "'node1','volumes':[{'name':'cache','ephemeral':{}}]}}",
                  "{'metadata':{'name':'pod1-cache','namespace':'default','ownerReferences':"
                  "[{'kind':'Pod','name':'pod1','uid':'uid1','controller':true}]}}",
                  false },
                { "ephemeral claim of a pod in its grace period",
                  "{'metadata':{'name':'pod1','namespace':'default','uid':'uid1',"
                  "'deletionTimestamp':'x','deletionGracePeriodSeconds':30},'spec':{'nodeName':"
                  "'node1','volumes':[{'name':'cache','ephemeral':{}}]}}",
                  "{'metadata':{'name':'pod1-cache','namespace':'default','ownerReferences':"
                  "[{'kind':'Pod','name':'pod1','uid':'uid1','controller':true}]}}",
                  true },
                { "another volume's ephemeral claim",
                  "{" POD_META ",'spec':{'nodeName':'node1','volumes':[{'name':'cach',"
                  "'ephemeral':{}}]}}",
                  "{'metadata':{'name':'pod1-cache','namespace':'default','ownerReferences':"
                  "[{'kind':'Pod','name':'pod1','uid':'uid1','controller':true}]}}",
                  false },
                { "the name splits anywhere: pod1 + a-b",
                  "{" POD_META ",'spec':{'nodeName':'node1','volumes':[{'name':'a-b',"
                  "'ephemeral':{}}]}}",
                  "{'metadata':{'name':'pod1-a-b','namespace':'default','ownerReferences':"
                  "[{'kind':'Pod','name':'pod1','uid':'uid1','controller':true}]}}",
                  true },
                { "a claim named like an ephemeral one, used as a plain claim by another pod",
                  "{'metadata':{'name':'web','namespace':'default','uid':'uid9'},'spec':"
                  "{'nodeName':'node1','volumes':[{'name':'x','persistentVolumeClaim':"
                  "{'claimName':'pod1-cache'}}]}}",
                  "{'metadata':{'name':'pod1-cache','namespace':'default','ownerReferences':"
                  "[{'kind':'Pod','name':'pod1','uid':'uid1','controller':true}]}}",
                  true },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                cleanup_json json_t *pod = jparse(cases[i].pod);
                cleanup_json json_t *pvc = jparse(cases[i].pvc);

                if (storage_protection_pod_uses_claim(pod, pvc) != cases[i].want)
                        fail_msg("%s: want %d", cases[i].name, cases[i].want);
        }
}

static void test_claim_user(void **state)
{
        cleanup_json json_t *pvc = jparse(CLAIM);
        cleanup_json json_t *idle = jparse("{'metadata':{'name':'idle','namespace':'default'},"
                                           "'spec':{'nodeName':'node1'}}");
        cleanup_json json_t *user =
                jparse("{" POD_META ",'spec':{'nodeName':'node1'," POD_VOLUMES "}}");
        cleanup_json json_t *array = json_pack("[O, O]", idle, user);
        cleanup_json json_t *map =
                json_pack("{s:O, s:O}", "default/idle", idle, "default/pod1", user);
        cleanup_json json_t *none = json_pack("[O]", idle);
        cleanup_json json_t *empty = json_array();

        assert_ptr_equal(storage_protection_claim_user(pvc, array), user);
        assert_ptr_equal(storage_protection_claim_user(pvc, map), user);
        assert_null(storage_protection_claim_user(pvc, none));
        assert_null(storage_protection_claim_user(pvc, empty));
        assert_null(storage_protection_claim_user(pvc, NULL));
}

#define DELETED "'deletionTimestamp':'2025-01-01T00:00:00Z','deletionGracePeriodSeconds':0"
#define PROT    "'finalizers':['kubernetes.io/pvc-protection']"

static void test_claim_next(void **state)
{
        static const struct {
                const char *name;
                const char *pvc;
                bool pod_uses_it;
                enum storage_protection_step want;
        } cases[] = {
                { "K8S: PVC without finalizer -> finalizer is added",
                  "{'metadata':{'name':'pvc1','namespace':'default'}}", false,
                  STORAGE_PROTECTION_ADD },
                { "only other finalizers -> ours is added",
                  "{'metadata':{'name':'pvc1','namespace':'default','finalizers':['a.io/x']}}",
                  false, STORAGE_PROTECTION_ADD },
                { "K8S: PVC with finalizer -> no action",
                  "{'metadata':{'name':'pvc1','namespace':'default'," PROT "}}", true,
                  STORAGE_PROTECTION_NOTHING },
                { "K8S: deleted PVC with finalizer -> finalizer is removed",
                  "{'metadata':{'name':'pvc1','namespace':'default'," DELETED "," PROT "}}", false,
                  STORAGE_PROTECTION_REMOVE },
                { "K8S: deleted PVC with finalizer + pod with the PVC -> not removed",
                  "{'metadata':{'name':'pvc1','namespace':'default'," DELETED "," PROT "}}", true,
                  STORAGE_PROTECTION_KEEP },
                { "K8S: deleted PVC without our finalizer -> nothing (not added while deleting)",
                  "{'metadata':{'name':'pvc1','namespace':'default'," DELETED
                  ",'finalizers':['a.io/x']}}",
                  false, STORAGE_PROTECTION_NOTHING },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                cleanup_json json_t *pvc = jparse(cases[i].pvc);
                cleanup_json json_t *pods = jparse(
                        cases[i].pod_uses_it ? "[{" POD_META
                                               ",'spec':{'nodeName':'node1'," POD_VOLUMES "}}]"
                                             : "[{" POD_META ",'spec':{" POD_VOLUMES "}}]");
                enum storage_protection_step got = storage_protection_claim_next(pvc, pods);

                if (got != cases[i].want)
                        fail_msg("%s: want %s, got %s", cases[i].name,
                                 storage_protection_step_to_string(cases[i].want),
                                 storage_protection_step_to_string(got));
        }
}

static void test_volume_next(void **state)
{
        static const struct {
                const char *name;
                const char *pv;
                enum storage_protection_step want;
        } cases[] = {
                { "K8S: PV without finalizer -> finalizer is added", "{'metadata':{'name':'pv1'}}",
                  STORAGE_PROTECTION_ADD },
                { "K8S: PV with finalizer -> no action",
                  "{'metadata':{'name':'pv1','finalizers':['kubernetes.io/pv-protection']},"
                  "'status':{'phase':'Available'}}",
                  STORAGE_PROTECTION_NOTHING },
                { "K8S: deleted PV with finalizer, Available -> finalizer is removed",
                  "{'metadata':{'name':'pv1'," DELETED
                  ",'finalizers':['kubernetes.io/pv-protection']},'status':{'phase':'Available'}}",
                  STORAGE_PROTECTION_REMOVE },
                { "K8S: deleted PV with finalizer, Bound -> not removed",
                  "{'metadata':{'name':'pv1'," DELETED
                  ",'finalizers':['kubernetes.io/pv-protection']},'status':{'phase':'Bound'}}",
                  STORAGE_PROTECTION_KEEP },
                { "deleted, Released -> removed",
                  "{'metadata':{'name':'pv1'," DELETED
                  ",'finalizers':['a.io/x','kubernetes.io/pv-protection']},'status':{'phase':"
                  "'Released'}}",
                  STORAGE_PROTECTION_REMOVE },
                { "deleted, no status yet -> removed",
                  "{'metadata':{'name':'pv1'," DELETED
                  ",'finalizers':['kubernetes.io/pv-protection']}}",
                  STORAGE_PROTECTION_REMOVE },
                { "a claim's finalizer is not a volume's",
                  "{'metadata':{'name':'pv1','finalizers':['kubernetes.io/pvc-protection']}}",
                  STORAGE_PROTECTION_ADD },
                { "deleted without our finalizer -> nothing",
                  "{'metadata':{'name':'pv1'," DELETED
                  ",'finalizers':['a.io/x']},'status':{'phase':'Released'}}",
                  STORAGE_PROTECTION_NOTHING },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                cleanup_json json_t *pv = jparse(cases[i].pv);
                enum storage_protection_step got = storage_protection_volume_next(pv);

                if (got != cases[i].want)
                        fail_msg("%s: want %s, got %s", cases[i].name,
                                 storage_protection_step_to_string(cases[i].want),
                                 storage_protection_step_to_string(got));
        }
}

static void assert_json(const json_t *got, const char *want)
{
        cleanup_json json_t *w = jparse(want);

        if (!json_equal((json_t *) got, w)) {
                cleanup_free char *g = json_dump_compact(got);
                fail_msg("want %s, got %s", want, g);
        }
}

static void test_set_finalizer(void **state)
{
        cleanup_json json_t *pvc =
                jparse("{'metadata':{'name':'pvc1','resourceVersion':'7','finalizers':['a.io/x',"
                       "'kubernetes.io/pvc-protection','b.io/y','kubernetes.io/pvc-protection']},"
                       "'spec':{'volumeName':'v'}}");
        cleanup_json json_t *bare = jparse("{'metadata':{'name':'pv1','resourceVersion':'3'}}");
        cleanup_json json_t *removed = NULL, *added = NULL;

        /* K8S slice.RemoveString: every occurrence, the others in order; the copy keeps the
         * resourceVersion, so a stale cache meets a 409 */
        removed = storage_protection_set_finalizer(pvc, PVC_PROTECTION_FINALIZER, false);
        assert_json(removed, "{'metadata':{'name':'pvc1','resourceVersion':'7','finalizers':"
                             "['a.io/x','b.io/y']},'spec':{'volumeName':'v'}}");
        added = storage_protection_set_finalizer(bare, PV_PROTECTION_FINALIZER, true);
        assert_json(added, "{'metadata':{'name':'pv1','resourceVersion':'3','finalizers':"
                           "['kubernetes.io/pv-protection']}}");
        /* the originals (shared with the cache) are untouched */
        assert_int_equal(json_array_size(json_path(pvc, "metadata.finalizers")), 4);
        assert_null(json_path(bare, "metadata.finalizers"));
}

static void test_step_names(void **state)
{
        assert_string_equal(storage_protection_step_to_string(STORAGE_PROTECTION_NOTHING),
                            "Nothing");
        assert_string_equal(storage_protection_step_to_string(STORAGE_PROTECTION_REMOVE), "Remove");
        assert_null(storage_protection_step_to_string(STORAGE_PROTECTION_STEP_MAX));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_pod_uses_claim), cmocka_unit_test(test_claim_user),
                cmocka_unit_test(test_claim_next),     cmocka_unit_test(test_volume_next),
                cmocka_unit_test(test_set_finalizer),  cmocka_unit_test(test_step_names),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
