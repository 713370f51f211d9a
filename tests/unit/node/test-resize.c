/* test-resize.c: the pure decisions of an in-place resize: the allocation shape and its value
 * equality, admission (upstream's TestHandlePodResourcesResize table and messages, KEP-6030's
 * cgroup v1 rule), the ordered actuation plan (TestComputePodActionsForPodResize's cases, the
 * doPodResizeAction ordering, KEP-6030's volume ordering, S16/S17/S18), recording steps in the
 * actuated state, and the retry-queue order (TestSortPendingResizes, S19). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/pod-resources.h"
#include "api/validation.h"
#include "base/alloc.h"
#include "base/json.h"
#include "unit/json-literal.h"
#include "node/resize.h"
#include "node/volume/emptydir.h"

#include "resize-json.h"

#define MI ((int64_t) 1024 * 1024)
#define GI (MI * 1024)

/* ---- building pods from a table ---- */

enum ctr_kind { REGULAR, SIDECAR, INIT };

struct ctr {
        const char *name;
        const char *req_cpu, *req_mem, *lim_cpu, *lim_mem; /* NULL: not set */
        const char *cpu_policy, *mem_policy;               /* resizePolicy; NULL: none */
        enum ctr_kind kind;
};

struct vol {
        const char *name;
        const char *size_limit; /* medium Memory; NULL: no sizeLimit */
};

#define C(n, rc, rm)                      \
 {                                        \
  .name = n, .req_cpu = rc, .req_mem = rm \
 }
#define CL(n, rc, rm, lc, lm)                                           \
 {                                                                      \
  .name = n, .req_cpu = rc, .req_mem = rm, .lim_cpu = lc, .lim_mem = lm \
 }
#define G(n, c, m) CL(n, c, m, c, m) /* Guaranteed */
#define GP(n, c, m, cp, mp)                                                            \
 {                                                                                     \
  .name = n, .req_cpu = c, .req_mem = m, .lim_cpu = c, .lim_mem = m, .cpu_policy = cp, \
  .mem_policy = mp                                                                     \
 }
#define GK(n, c, m, k)                                                         \
 {                                                                             \
  .name = n, .req_cpu = c, .req_mem = m, .lim_cpu = c, .lim_mem = m, .kind = k \
 }

#define MAXC 3
#define MAXV 2

static void set_if(json_t *obj, const char *key, const char *value)
{
        if (value)
                json_object_set_new(obj, key, json_string(value));
}

static json_t *make_pod(const struct ctr *ctrs, const struct vol *vols)
{
        json_t *pod = J("{'metadata':{'name':'p','namespace':'default'},"
                        "'spec':{'containers':[],'volumes':[]},'status':{}}");
        json_t *spec = json_object_get(pod, "spec");

        for (size_t i = 0; i < MAXC && ctrs[i].name; i++) {
                const struct ctr *c = &ctrs[i];
                json_t *ctr = json_object(), *res = json_object(), *req = json_object(),
                       *lim = json_object(), *pol = json_array();
                json_object_set_new(ctr, "name", json_string(c->name));
                set_if(req, "cpu", c->req_cpu);
                set_if(req, "memory", c->req_mem);
                set_if(lim, "cpu", c->lim_cpu);
                set_if(lim, "memory", c->lim_mem);
                if (json_object_size(req))
                        json_object_set(res, "requests", req);
                if (json_object_size(lim))
                        json_object_set(res, "limits", lim);
                json_object_set_new(ctr, "resources", res);
                if (c->cpu_policy)
                        json_array_append_new(pol, json_pack("{s:s,s:s}", "resourceName", "cpu",
                                                             "restartPolicy", c->cpu_policy));
                if (c->mem_policy)
                        json_array_append_new(pol, json_pack("{s:s,s:s}", "resourceName", "memory",
                                                             "restartPolicy", c->mem_policy));
                json_object_set_new(ctr, "resizePolicy", pol);
                json_decref(req);
                json_decref(lim);
                if (c->kind == REGULAR) {
                        json_array_append_new(json_object_get(spec, "containers"), ctr);
                } else {
                        if (c->kind == SIDECAR)
                                json_object_set_new(ctr, "restartPolicy", json_string("Always"));
                        if (!json_object_get(spec, "initContainers"))
                                json_object_set_new(spec, "initContainers", json_array());
                        json_array_append_new(json_object_get(spec, "initContainers"), ctr);
                }
        }
        for (size_t i = 0; i < MAXV && vols[i].name; i++) {
                json_t *ed = json_pack("{s:s}", "medium", "Memory");
                set_if(ed, "sizeLimit", vols[i].size_limit);
                json_array_append_new(json_object_get(spec, "volumes"),
                                      json_pack("{s:s,s:o}", "name", vols[i].name, "emptyDir", ed));
        }
        return pod;
}

static json_t *cfg_json(const struct pod_cgroup_config *c)
{
        return json_pack("{s:I,s:I,s:I,s:I}", "cpuShares", (json_int_t) c->cpu_shares, "cpuQuota",
                         (json_int_t) c->cpu_quota_us, "cpuPeriod", (json_int_t) c->cpu_period_us,
                         "memoryLimit", (json_int_t) c->memory_limit_bytes);
}

/* The actuated state a pod's values leave in the kernel (what the agent wrote at start). */
static json_t *actuated_of(const json_t *pod, int64_t allocatable, bool enforce)
{
        static const char *const lists[] = { "spec.initContainers", "spec.containers" };
        json_t *act = json_object(), *ctrs = json_object(), *vols = json_object();
        struct pod_cgroup_config c;
        int64_t lim;
        size_t i;
        json_t *v;

        assert_int_equal(pod_cgroup_config(pod, NULL, enforce, &c), 0);
        json_object_set_new(act, "pod", cfg_json(&c));
        for (size_t l = 0; l < 2; l++) {
                json_array_foreach(json_path(pod, lists[l]), i, v) {
                        const char *name = json_string_value(json_object_get(v, "name"));
                        assert_int_equal(container_cgroup_config(pod, name, NULL, enforce, &c), 0);
                        json_object_set_new(ctrs, name, cfg_json(&c));
                }
        }
        assert_int_equal(pod_memory_limit(pod, NULL, &lim), 0);
        json_array_foreach(json_path(pod, "spec.volumes"), i, v) {
                const char *sl = json_string_value(json_path(v, "emptyDir.sizeLimit"));
                json_object_set_new(vols, json_string_value(json_object_get(v, "name")),
                                    json_integer(emptydir_memory_size(allocatable, lim, sl)));
        }
        json_object_set_new(act, "containers", ctrs);
        json_object_set_new(act, "volumes", vols);
        return act;
}

/* A step as "<kind> [<name>] <bits> <shares>/<quota>/<period>/<memory>" or "volume <name> <size>".
 */
static char *render(const struct resize_step *s)
{
        char bits[32] = "";
        const char *cfg_fmt = "%lld/%lld/%lld/%lld";
        char cfg[96];

        if (s->kind == RESIZE_STEP_VOLUME)
                return xasprintf("volume %s %lld", s->name, (long long) s->size_bytes);
        snprintf(cfg, sizeof(cfg), cfg_fmt, (long long) s->cfg.cpu_shares,
                 (long long) s->cfg.cpu_quota_us, (long long) s->cfg.cpu_period_us,
                 (long long) s->cfg.memory_limit_bytes);
        if (s->kind == RESIZE_STEP_RESTART_CONTAINER) {
                assert_int_equal(s->which, RESIZE_CPU_SHARES | RESIZE_CPU_QUOTA | RESIZE_MEMORY);
                return xasprintf("restart %s %s", s->name, cfg);
        }
        if (s->which & RESIZE_CPU_SHARES)
                strcat(bits, "shares");
        if (s->which & RESIZE_CPU_QUOTA)
                strcat(bits, *bits ? "+quota" : "quota");
        if (s->which & RESIZE_MEMORY)
                strcat(bits, *bits ? "+mem" : "mem");
        if (s->kind == RESIZE_STEP_POD_CGROUP) {
                assert_null(s->name);
                return xasprintf("pod %s %s", bits, cfg);
        }
        return xasprintf("container %s %s %s", s->name, bits, cfg);
}

/* "a,b" -> {"a","b",NULL}; NULL -> NULL. The caller frees the array and its first string. */
static const char **split_running(const char *list)
{
        const char **v;
        char *s, *save = NULL;
        size_t n = 0;

        if (!list)
                return NULL;
        v = xcalloc(MAXC + 2, sizeof(*v));
        s = xstrdup(list);
        v[MAXC + 1] = s; /* kept for free */
        for (char *t = strtok_r(s, ",", &save); t && n < MAXC; t = strtok_r(NULL, ",", &save))
                v[n++] = t;
        return v;
}

static const char **all_running(const struct ctr *ctrs)
{
        const char **v = xcalloc(MAXC + 2, sizeof(*v));

        for (size_t i = 0; i < MAXC && ctrs[i].name; i++)
                v[i] = ctrs[i].name;
        return v;
}

static void free_running(const char **v)
{
        if (v)
                free((char *) v[MAXC + 1]);
        free(v);
}

/* ---- allocation ---- */

static void test_allocation_from_pod(void **state)
{
        json_t *pod = J(
                "{'spec':{'containers':[{'name':'c1','resources':{'requests':{'cpu':'1'},"
                "'limits':{'memory':'1Gi'}}},{'name':'c2'}],"
                "'initContainers':[{'name':'init','resources':{'requests':{'cpu':'1'}}},"
                "{'name':'side','restartPolicy':'Always','resources':{'requests':{'memory':'64Mi'},"
                "'claims':[{'name':'x'}]}}],"
                "'volumes':[{'name':'mem','emptyDir':{'medium':'Memory','sizeLimit':'128Mi'}},"
                "{'name':'memnolimit','emptyDir':{'medium':'Memory'}},"
                "{'name':'disk','emptyDir':{'sizeLimit':'1Gi'}},"
                "{'name':'zero','emptyDir':{'medium':'Memory','sizeLimit':'0'}},"
                "{'name':'cm','configMap':{'name':'x'}}]}}");
        json_t *want = J("{'ContainerResources':{'c1':{'requests':{'cpu':'1'},"
                         "'limits':{'memory':'1Gi'}},'c2':{},"
                         "'side':{'requests':{'memory':'64Mi'}}},"
                         "'EmptyDirVolumeLimits':{'mem':'128Mi'}}");
        json_t *got = resize_allocation_from_pod(pod);

        if (!json_equal(got, want)) {
                char *s = json_dumps(got, JSON_SORT_KEYS);
                fail_msg("allocation: %s", s);
        }
        json_decref(pod);
        json_decref(want);
        json_decref(got);
}

struct equal_case {
        const char *name, *a, *b;
        bool want;
};

static const struct equal_case equal_cases[] = {
        { "same", "{'ContainerResources':{'c':{'requests':{'cpu':'1'}}}}",
          "{'ContainerResources':{'c':{'requests':{'cpu':'1'}}}}", true },
        { "1 equals 1000m", "{'ContainerResources':{'c':{'requests':{'cpu':'1'}}}}",
          "{'ContainerResources':{'c':{'requests':{'cpu':'1000m'}}}}", true },
        { "1Gi equals 1073741824", "{'ContainerResources':{'c':{'limits':{'memory':'1Gi'}}}}",
          "{'ContainerResources':{'c':{'limits':{'memory':'1073741824'}}}}", true },
        { "a JSON number equals its string", "{'ContainerResources':{'c':{'limits':{'cpu':2}}}}",
          "{'ContainerResources':{'c':{'limits':{'cpu':'2'}}}}", true },
        { "absent requests equal empty ones", "{'ContainerResources':{'c':{}}}",
          "{'ContainerResources':{'c':{'requests':{}}}}", true },
        { "absent maps equal empty ones", "{}",
          "{'ContainerResources':{},'EmptyDirVolumeLimits':{}}", true },
        { "cpu differs", "{'ContainerResources':{'c':{'requests':{'cpu':'1'}}}}",
          "{'ContainerResources':{'c':{'requests':{'cpu':'1500m'}}}}", false },
        { "request vs limit", "{'ContainerResources':{'c':{'requests':{'cpu':'1'}}}}",
          "{'ContainerResources':{'c':{'limits':{'cpu':'1'}}}}", false },
        { "a zero entry is not an absent one",
          "{'ContainerResources':{'c':{'requests':{'cpu':'0'}}}}",
          "{'ContainerResources':{'c':{'requests':{}}}}", false },
        { "another container", "{'ContainerResources':{'c':{}}}",
          "{'ContainerResources':{'c':{},'d':{}}}", false },
        { "volume by value", "{'EmptyDirVolumeLimits':{'v':'1Gi'}}",
          "{'EmptyDirVolumeLimits':{'v':'1024Mi'}}", true },
        { "volume differs", "{'EmptyDirVolumeLimits':{'v':'100Mi'}}",
          "{'EmptyDirVolumeLimits':{'v':'200Mi'}}", false },
        { "volume added", "{'EmptyDirVolumeLimits':{}}", "{'EmptyDirVolumeLimits':{'v':'1Gi'}}",
          false },
};

static void test_allocation_equal(void **state)
{
        for (size_t i = 0; i < ARRAY_SIZE(equal_cases); i++) {
                const struct equal_case *c = &equal_cases[i];
                json_t *a = J(c->a), *b = J(c->b);
                if (resize_allocation_equal(a, b) != c->want ||
                    resize_allocation_equal(b, a) != c->want)
                        fail_msg("%s: want %d", c->name, c->want);
                json_decref(a);
                json_decref(b);
        }
}

static void test_pod_with_allocation(void **state)
{
        json_t *pod = J("{'spec':{'containers':[{'name':'c1','image':'i','resources':{"
                        "'requests':{'cpu':'1'},'limits':{'cpu':'2','memory':'1Gi'}}},"
                        "{'name':'c2','resources':{'requests':{'cpu':'1'}}}],"
                        "'initContainers':[{'name':'side','restartPolicy':'Always'}],"
                        "'volumes':[{'name':'mem','emptyDir':{'medium':'Memory',"
                        "'sizeLimit':'128Mi'}},{'name':'other','emptyDir':{'medium':'Memory'}}]}}");
        json_t *alloc = J("{'ContainerResources':{'c1':{'requests':{'cpu':'500m'}},"
                          "'side':{'requests':{'memory':'32Mi'},'limits':{'memory':'64Mi'}}},"
                          "'EmptyDirVolumeLimits':{'mem':'256Mi'}}");
        json_t *want =
                J("{'spec':{'containers':[{'name':'c1','image':'i','resources':{"
                  "'requests':{'cpu':'500m'}}},"
                  "{'name':'c2','resources':{'requests':{'cpu':'1'}}}],"
                  "'initContainers':[{'name':'side','restartPolicy':'Always',"
                  "'resources':{'requests':{'memory':'32Mi'},'limits':{'memory':'64Mi'}}}],"
                  "'volumes':[{'name':'mem','emptyDir':{'medium':'Memory',"
                  "'sizeLimit':'256Mi'}},{'name':'other','emptyDir':{'medium':'Memory'}}]}}");
        json_t *before = json_deep_copy(pod);
        json_t *got = resize_pod_with_allocation(pod, alloc);

        assert_true(json_equal(got, want));
        assert_true(json_equal(pod, before)); /* the input is not touched */
        json_decref(got);
        got = resize_pod_with_allocation(pod, NULL);
        assert_true(json_equal(got, pod));
        json_decref(got);
        json_decref(pod);
        json_decref(alloc);
        json_decref(want);
        json_decref(before);
}

/* ---- admission ---- */

struct admit_case {
        const char *name;
        const char *orig_cpu, *orig_mem, *orig_lim_cpu;
        const char *new_cpu, *new_mem, *new_lim_cpu;
        enum resize_verdict want;
        const char *message;
};

/* K8S: allocation_manager_test.go TestHandlePodResourcesResize: allocatable 4 CPU / 4Gi, the
 * other pods (pod2, pod3) at 1 CPU / 1Gi each; each case also as a sidecar. */
static const struct admit_case admit_cases[] = {
        { "Request CPU and memory decrease", "1", "1Gi", NULL, "500m", "500Mi", NULL, RESIZE_ACCEPT,
          NULL },
        { "Request CPU increase, memory decrease", "1", "1Gi", NULL, "1500m", "500Mi", NULL,
          RESIZE_ACCEPT, NULL },
        { "Request CPU decrease, memory increase", "1", "1Gi", NULL, "500m", "1500Mi", NULL,
          RESIZE_ACCEPT, NULL },
        { "Request CPU and memory increase beyond current capacity", "1", "1Gi", NULL, "2500m",
          "2500Mi", NULL, RESIZE_DEFERRED,
          "Node didn't have enough resource: cpu, requested: 2500, used: 2000, capacity: 4000" },
        { "Request CPU decrease and memory increase beyond current capacity", "1", "1Gi", NULL,
          "500m", "2500Mi", NULL, RESIZE_DEFERRED,
          "Node didn't have enough resource: memory, requested: 2621440000, used: 2147483648, "
          "capacity: 4294967296" },
        { "Request memory increase beyond node capacity", "1", "1Gi", NULL, "1", "4500Mi", NULL,
          RESIZE_INFEASIBLE,
          "Node didn't have enough capacity: memory, requested: 4718592000, capacity: "
          "4294967296" },
        { "Request CPU increase beyond node capacity", "1", "1Gi", NULL, "5000m", "1Gi", NULL,
          RESIZE_INFEASIBLE,
          "Node didn't have enough capacity: cpu, requested: 5000, capacity: 4000" },
        { "CPU and memory beyond node capacity: memory reported", "1", "1Gi", NULL, "5", "5Gi",
          NULL, RESIZE_INFEASIBLE,
          "Node didn't have enough capacity: memory, requested: 5368709120, capacity: "
          "4294967296" },
        { "No resize", "1", "1Gi", NULL, "1", "1Gi", NULL, RESIZE_ACCEPT, NULL },
        { "Increase CPU from min shares", "2m", NULL, NULL, "1", NULL, NULL, RESIZE_ACCEPT, NULL },
        { "Decrease CPU to min shares", "1", NULL, NULL, "2m", NULL, NULL, RESIZE_ACCEPT, NULL },
        { "Increase CPU from min limit", "10m", NULL, "10m", "10m", NULL, "20m", RESIZE_ACCEPT,
          NULL },
        { "Decrease CPU to min limit", "10m", NULL, "20m", "10m", NULL, "10m", RESIZE_ACCEPT,
          NULL },
        { "Exactly the free memory fits", "1", "1Gi", NULL, "1", "2Gi", NULL, RESIZE_ACCEPT, NULL },
        { "Exactly the free cpu fits", "1", "1Gi", NULL, "2", "1Gi", NULL, RESIZE_ACCEPT, NULL },
};

static const struct resize_node admit_node = {
        .allocatable_milli_cpu = 4000,
        .allocatable_memory = 4 * GI,
        .others_milli_cpu = 2000,
        .others_memory = 2 * GI,
};

static void test_admit(void **state)
{
        for (size_t i = 0; i < ARRAY_SIZE(admit_cases); i++) {
                for (int sidecar = 0; sidecar <= 1; sidecar++) {
                        const struct admit_case *c = &admit_cases[i];
                        enum ctr_kind kind = sidecar ? SIDECAR : REGULAR;
                        struct ctr orig[MAXC] = { { "c1", c->orig_cpu, c->orig_mem, c->orig_lim_cpu,
                                                    NULL, NULL, NULL, kind } };
                        struct ctr upd[MAXC] = { { "c1", c->new_cpu, c->new_mem, c->new_lim_cpu,
                                                   NULL, NULL, NULL, kind } };
                        struct vol none[MAXV] = { { 0 } };
                        json_t *opod = make_pod(orig, none), *npod = make_pod(upd, none);
                        json_t *allocated = resize_allocation_from_pod(opod);
                        json_t *desired = resize_allocation_from_pod(npod);
                        char *msg = (char *) "unset";
                        enum resize_verdict v =
                                admit_json(npod, allocated, desired, &admit_node, &msg);

                        if (v != c->want)
                                fail_msg("%s (sidecar %d): verdict %d, want %d (%s)", c->name,
                                         sidecar, v, c->want, msg ? msg : "");
                        if (c->message) {
                                assert_non_null(msg);
                                if (!streq(msg, c->message))
                                        fail_msg("%s: message \"%s\"", c->name, msg);
                        } else {
                                assert_null(msg);
                        }
                        free(msg);
                        json_decref(opod);
                        json_decref(npod);
                        json_decref(allocated);
                        json_decref(desired);
                }
        }
}

struct admit_volume_case {
        const char *name;
        const char *orig_limit, *new_limit;
        const char *new_mem; /* c1's new memory request */
        bool v1, gate;
        enum resize_verdict want;
        const char *message;
};

#define V1_MESSAGE                                                     \
 "Resizing memory-backed volume \"cache\" requires cgroup v2 (or the " \
 "MemoryBackedVolumeResizeCgroupV1 feature gate)"

/* KEP-6030: a sizeLimit change is Infeasible on cgroup v1 (flexlet: unless the gate is on);
 * the size does not count in the fit check. */
static const struct admit_volume_case admit_volume_cases[] = {
        { "cgroup v2: volume grows", "100Mi", "200Mi", "1Gi", false, false, RESIZE_ACCEPT, NULL },
        { "cgroup v1: volume grows", "100Mi", "200Mi", "1Gi", true, false, RESIZE_INFEASIBLE,
          V1_MESSAGE },
        { "cgroup v1: volume shrinks", "200Mi", "100Mi", "1Gi", true, false, RESIZE_INFEASIBLE,
          V1_MESSAGE },
        { "cgroup v1 with the gate", "100Mi", "200Mi", "1Gi", true, true, RESIZE_ACCEPT, NULL },
        { "cgroup v1: same size by value", "1Gi", "1024Mi", "1Gi", true, false, RESIZE_ACCEPT,
          NULL },
        { "cgroup v1: the volume rule comes before capacity", "100Mi", "200Mi", "4500Mi", true,
          false, RESIZE_INFEASIBLE, V1_MESSAGE },
        { "a volume beyond allocatable does not count in the fit", "100Mi", "64Gi", "1Gi", false,
          false, RESIZE_ACCEPT, NULL },
        { "cgroup v1: container change only", "100Mi", "100Mi", "1500Mi", true, false,
          RESIZE_ACCEPT, NULL },
};

static void test_admit_volumes(void **state)
{
        for (size_t i = 0; i < ARRAY_SIZE(admit_volume_cases); i++) {
                const struct admit_volume_case *c = &admit_volume_cases[i];
                struct ctr orig[MAXC] = { C("c1", "1", "1Gi") };
                struct ctr upd[MAXC] = { C("c1", "1", c->new_mem) };
                struct vol ov[MAXV] = { { "scratch", NULL }, { "cache", c->orig_limit } };
                struct vol nv[MAXV] = { { "scratch", NULL }, { "cache", c->new_limit } };
                json_t *opod = make_pod(orig, ov), *npod = make_pod(upd, nv);
                json_t *allocated = resize_allocation_from_pod(opod);
                json_t *desired = resize_allocation_from_pod(npod);
                struct resize_node node = admit_node;
                char *msg = NULL;
                enum resize_verdict v;

                node.cgroup_v1 = c->v1;
                node.volume_resize_on_v1 = c->gate;
                v = admit_json(npod, allocated, desired, &node, &msg);
                if (v != c->want || (c->message && (!msg || !streq(msg, c->message))) ||
                    (!c->message && msg))
                        fail_msg("%s: verdict %d, message %s", c->name, v, msg ? msg : "(null)");
                free(msg);
                json_decref(opod);
                json_decref(npod);
                json_decref(allocated);
                json_decref(desired);
        }
}

/* ---- the actuation plan ---- */

struct plan_case {
        const char *name;
        struct ctr old_c[MAXC], new_c[MAXC];
        struct vol old_v[MAXV], new_v[MAXV];
        const char *running;  /* comma-separated; NULL: every container */
        const char *actuated; /* instead of the old pod's values */
        bool no_enforce;      /* --cpu-cfs-quota=false */
        const char *want[12];
};

#define RC "RestartContainer"

static const struct plan_case plan_cases[] = {
        /* S18: Guaranteed 500m/256Mi to 1 CPU: cpu.max 50000 -> 100000, weight from 512 -> 1024
         * shares; the pod cgroup grows before the container */
        { "S18 cpu increase",
          { G("c1", "500m", "256Mi") },
          { G("c1", "1", "256Mi") },
          .want = { "pod quota 512/100000/100000/268435456",
                    "pod shares 1024/100000/100000/268435456",
                    "container c1 shares+quota 1024/100000/100000/268435456" } },
        { "cpu decrease: the container first, then pod shares, then pod quota",
          { G("c1", "1", "256Mi") },
          { G("c1", "500m", "256Mi") },
          .want = { "container c1 shares+quota 512/50000/100000/268435456",
                    "pod shares 512/100000/100000/268435456",
                    "pod quota 512/50000/100000/268435456" } },
        { "memory increase: pod limit first",
          { G("c1", "500m", "256Mi") },
          { G("c1", "500m", "512Mi") },
          .want = { "pod mem 512/50000/100000/536870912",
                    "container c1 mem 512/50000/100000/536870912" } },
        { "memory decrease: pod limit last",
          { G("c1", "500m", "512Mi") },
          { G("c1", "500m", "256Mi") },
          .want = { "container c1 mem 512/50000/100000/268435456",
                    "pod mem 512/50000/100000/268435456" } },
        { "cpu and memory increase: memory before cpu, configs carry earlier steps",
          { G("c1", "500m", "256Mi") },
          { G("c1", "1", "512Mi") },
          .want = { "pod mem 512/50000/100000/536870912", "pod quota 512/100000/100000/536870912",
                    "pod shares 1024/100000/100000/536870912",
                    "container c1 mem 512/50000/100000/536870912",
                    "container c1 shares+quota 1024/100000/100000/536870912" } },
        { "cpu increase, memory decrease in one container",
          { G("c1", "500m", "512Mi") },
          { G("c1", "1", "256Mi") },
          .want = { "pod quota 512/100000/100000/536870912",
                    "pod shares 1024/100000/100000/536870912",
                    "container c1 mem 512/50000/100000/268435456",
                    "container c1 shares+quota 1024/100000/100000/268435456",
                    "pod mem 1024/100000/100000/268435456" } },
        { "one container grows, one shrinks: the shrink first, the pod unchanged",
          { G("c1", "500m", "256Mi"), G("c2", "1", "512Mi") },
          { G("c1", "1", "512Mi"), G("c2", "500m", "256Mi") },
          .want = { "container c2 mem 1024/100000/100000/268435456",
                    "container c2 shares+quota 512/50000/100000/268435456",
                    "container c1 mem 512/50000/100000/536870912",
                    "container c1 shares+quota 1024/100000/100000/536870912" } },
        { "two shrinks: decreases are prepended (the last container first)",
          { G("c1", "1", "512Mi"), G("c2", "1", "512Mi") },
          { G("c1", "500m", "256Mi"), G("c2", "500m", "256Mi") },
          .want = { "container c2 mem 1024/100000/100000/268435456",
                    "container c1 mem 1024/100000/100000/268435456",
                    "container c2 shares+quota 512/50000/100000/268435456",
                    "container c1 shares+quota 512/50000/100000/268435456",
                    "pod mem 2048/200000/100000/536870912",
                    "pod shares 1024/200000/100000/536870912",
                    "pod quota 1024/100000/100000/536870912" } },
        { "two grows: increases are appended (container order)",
          { G("c1", "500m", "256Mi"), G("c2", "500m", "256Mi") },
          { G("c1", "1", "512Mi"), G("c2", "1", "512Mi") },
          .want = { "pod mem 1024/100000/100000/1073741824",
                    "pod quota 1024/200000/100000/1073741824",
                    "pod shares 2048/200000/100000/1073741824",
                    "container c1 mem 512/50000/100000/536870912",
                    "container c2 mem 512/50000/100000/536870912",
                    "container c1 shares+quota 1024/100000/100000/536870912",
                    "container c2 shares+quota 1024/100000/100000/536870912" } },
        { "Burstable requests only: shares alone",
          { C("c1", "500m", "256Mi") },
          { C("c1", "1", "256Mi") },
          .want = { "pod shares 1024/-1/100000/-1", "container c1 shares 1024/-1/100000/-1" } },
        { "memory request only: nothing is written (cgroups hold no memory request)",
          { C("c1", "500m", "256Mi") },
          { C("c1", "500m", "512Mi") },
          .want = { NULL } },
        { "equal: nothing to do",
          { G("c1", "500m", "256Mi") },
          { G("c1", "500m", "256Mi") },
          .want = { NULL } },
        /* K8S TestComputePodActionsForPodResize "Update container CPU resources to equivalent
         * value" (S17): desired 1m/1m, running 2m/10m */
        { "equivalent cpu: 1m request and limit against 2m and 10m",
          { CL("c1", "2m", NULL, "10m", NULL) },
          { CL("c1", "1m", NULL, "1m", NULL) },
          .want = { NULL } },
        { "tolerance: cpu limit 10m to 5m",
          { CL("c1", "1m", NULL, "10m", NULL) },
          { CL("c1", "1m", NULL, "5m", NULL) },
          .want = { NULL } },
        { "tolerance: actuated 1 share and 5m quota equal 2 shares and 10m",
          { { 0 } },
          { CL("c1", "1m", NULL, "1m", NULL) },
          .actuated = "{'pod':{'cpuShares':2,'cpuQuota':1000,'cpuPeriod':100000,'memoryLimit':-1},"
                      "'containers':{'c1':{'cpuShares':1,'cpuQuota':500,'cpuPeriod':100000,"
                      "'memoryLimit':-1}},'volumes':{}}",
          .want = { NULL } },
        { "tolerance ends above the minimums: 3 shares and 11m are shrunk",
          { { 0 } },
          { CL("c1", "1m", NULL, "1m", NULL) },
          .actuated = "{'pod':{'cpuShares':2,'cpuQuota':1000,'cpuPeriod':100000,'memoryLimit':-1},"
                      "'containers':{'c1':{'cpuShares':3,'cpuQuota':1100,'cpuPeriod':100000,"
                      "'memoryLimit':-1}}}",
          .want = { "container c1 shares+quota 2/1000/100000/-1" } },
        /* K8S TestComputePodActionsForPodResize restart cases (S16) */
        { "RestartContainer for cpu: a restart instead of updates",
          { GP("c1", "100m", "100Mi", RC, "NotRequired") },
          { GP("c1", "200m", "200Mi", RC, "NotRequired") },
          .want = { "pod mem 102/10000/100000/209715200", "pod quota 102/20000/100000/209715200",
                    "pod shares 204/20000/100000/209715200",
                    "restart c1 204/20000/100000/209715200" } },
        { "RestartContainer for memory",
          { GP("c1", "100m", "100Mi", "NotRequired", RC) },
          { GP("c1", "200m", "200Mi", "NotRequired", RC) },
          .want = { "pod mem 102/10000/100000/209715200", "pod quota 102/20000/100000/209715200",
                    "pod shares 204/20000/100000/209715200",
                    "restart c1 204/20000/100000/209715200" } },
        { "memory change with a cpu RestartContainer policy: in place",
          { GP("c1", "100m", "100Mi", RC, "NotRequired") },
          { GP("c1", "100m", "200Mi", RC, "NotRequired") },
          .want = { "pod mem 102/10000/100000/209715200",
                    "container c1 mem 102/10000/100000/209715200" } },
        { "cpu change with a memory RestartContainer policy: in place",
          { GP("c1", "100m", "100Mi", "NotRequired", RC) },
          { GP("c1", "200m", "100Mi", "NotRequired", RC) },
          .want = { "pod quota 102/20000/100000/104857600", "pod shares 204/20000/100000/104857600",
                    "container c1 shares+quota 204/20000/100000/104857600" } },
        { "a restart comes before the other containers' updates",
          { GP("c1", "100m", "100Mi", RC, NULL), G("c2", "200m", "200Mi") },
          { GP("c1", "200m", "100Mi", RC, NULL), G("c2", "100m", "100Mi") },
          .want = { "restart c1 204/20000/100000/104857600",
                    "container c2 mem 204/20000/100000/104857600",
                    "container c2 shares+quota 102/10000/100000/104857600",
                    "pod mem 307/30000/100000/209715200" } },
        { "a container that does not run is skipped",
          { G("c1", "500m", "256Mi"), G("c2", "500m", "256Mi") },
          { G("c1", "500m", "512Mi"), G("c2", "500m", "512Mi") },
          .running = "c1",
          .want = { "pod mem 1024/100000/100000/1073741824",
                    "container c1 mem 512/50000/100000/536870912" } },
        { "no container runs: the pod cgroup only",
          { G("c1", "500m", "256Mi") },
          { G("c1", "500m", "512Mi") },
          .running = "",
          .want = { "pod mem 512/50000/100000/536870912" } },
        { "sidecars first; a non-sidecar init container is never resized",
          { G("c1", "500m", "256Mi"), GK("s1", "500m", "256Mi", SIDECAR),
            GK("init", "100m", "64Mi", INIT) },
          { G("c1", "500m", "512Mi"), GK("s1", "500m", "512Mi", SIDECAR),
            GK("init", "200m", "128Mi", INIT) },
          .want = { "pod mem 1024/100000/100000/1073741824",
                    "container s1 mem 512/50000/100000/536870912",
                    "container c1 mem 512/50000/100000/536870912" } },
        { "--cpu-cfs-quota=false: shares only",
          { G("c1", "500m", "256Mi") },
          { G("c1", "1", "256Mi") },
          .no_enforce = true,
          .want = { "pod shares 1024/-1/100000/268435456",
                    "container c1 shares 1024/-1/100000/268435456" } },
        /* KEP-6030 ordering */
        { "volume only, grows",
          { C("c1", "100m", "100Mi") },
          { C("c1", "100m", "100Mi") },
          { { "cache", "128Mi" } },
          { { "cache", "384Mi" } },
          .want = { "volume cache 402653184" } },
        { "volume only, shrinks",
          { C("c1", "100m", "100Mi") },
          { C("c1", "100m", "100Mi") },
          { { "cache", "384Mi" } },
          { { "cache", "128Mi" } },
          .want = { "volume cache 134217728" } },
        { "memory 256Mi->512Mi and volume 128Mi->384Mi: pod, container, then volume",
          { G("c1", "500m", "256Mi") },
          { G("c1", "500m", "512Mi") },
          { { "cache", "128Mi" } },
          { { "cache", "384Mi" } },
          .want = { "pod mem 512/50000/100000/536870912",
                    "container c1 mem 512/50000/100000/536870912", "volume cache 402653184" } },
        { "and back: volume, container, then pod",
          { G("c1", "500m", "512Mi") },
          { G("c1", "500m", "256Mi") },
          { { "cache", "384Mi" } },
          { { "cache", "128Mi" } },
          .want = { "volume cache 134217728", "container c1 mem 512/50000/100000/268435456",
                    "pod mem 512/50000/100000/268435456" } },
        { "several volumes: every shrink first, every grow last",
          { C("c1", "100m", "100Mi") },
          { C("c1", "100m", "100Mi") },
          { { "a", "128Mi" }, { "b", "256Mi" } },
          { { "a", "256Mi" }, { "b", "128Mi" } },
          .want = { "volume b 134217728", "volume a 268435456" } },
        { "opposite directions, volume up: cgroups first",
          { G("c1", "500m", "512Mi") },
          { G("c1", "500m", "256Mi") },
          { { "cache", "128Mi" } },
          { { "cache", "192Mi" } },
          .want = { "container c1 mem 512/50000/100000/268435456",
                    "pod mem 512/50000/100000/268435456", "volume cache 201326592" } },
        { "opposite directions, volume down: volume first",
          { G("c1", "500m", "256Mi") },
          { G("c1", "500m", "512Mi") },
          { { "cache", "192Mi" } },
          { { "cache", "128Mi" } },
          .want = { "volume cache 134217728", "pod mem 512/50000/100000/536870912",
                    "container c1 mem 512/50000/100000/536870912" } },
        { "a volume without sizeLimit follows the pod memory limit (KEP-1967)",
          { G("c1", "500m", "256Mi") },
          { G("c1", "500m", "512Mi") },
          { { "scratch", NULL } },
          { { "scratch", NULL } },
          .want = { "pod mem 512/50000/100000/536870912",
                    "container c1 mem 512/50000/100000/536870912", "volume scratch 536870912" } },
        { "unknown actuated values: written where grows go",
          { { 0 } },
          { G("c1", "1", "256Mi") },
          { { 0 } },
          { { "cache", "128Mi" } },
          .actuated = "{}",
          .want = { "pod mem 1024/100000/100000/268435456",
                    "pod quota 1024/100000/100000/268435456",
                    "pod shares 1024/100000/100000/268435456",
                    "container c1 mem 1024/100000/100000/268435456",
                    "container c1 shares+quota 1024/100000/100000/268435456",
                    "volume cache 134217728" } },
        { "unknown values never restart a container",
          { { 0 } },
          { GP("c1", "1", "256Mi", RC, RC) },
          .actuated = "{'pod':{'cpuShares':1024,'cpuQuota':100000,'cpuPeriod':100000,"
                      "'memoryLimit':268435456}}",
          .want = { "container c1 mem 1024/100000/100000/268435456",
                    "container c1 shares+quota 1024/100000/100000/268435456" } },
        { "partly known: only the unknown value",
          { { 0 } },
          { G("c1", "1", "256Mi") },
          .actuated = "{'pod':{'cpuShares':1024,'cpuQuota':100000,'cpuPeriod':100000,"
                      "'memoryLimit':268435456},'containers':{'c1':{'cpuShares':1024,"
                      "'cpuQuota':100000,'cpuPeriod':100000}}}",
          .want = { "container c1 mem 1024/100000/100000/268435456" } },
        { "a limit the allocation removes is a grow",
          { { 0 } },
          { C("c1", "500m", "256Mi") },
          .actuated = "{'pod':{'cpuShares':512,'cpuQuota':-1,'cpuPeriod':100000,"
                      "'memoryLimit':268435456},'containers':{'c1':{'cpuShares':512,"
                      "'cpuQuota':50000,'cpuPeriod':100000,'memoryLimit':268435456}}}",
          .want = { "pod mem 512/-1/100000/-1", "container c1 mem 512/50000/100000/-1",
                    "container c1 quota 512/-1/100000/-1" } },
};

static void check_plan(const char *name, const struct resize_plan *plan, const char *const *want)
{
        size_t n = 0;
        bool ok;

        while (n < 12 && want[n])
                n++;
        ok = plan->n == n;
        for (size_t i = 0; ok && i < n; i++) {
                char *got = render(&plan->steps[i]);
                ok = streq(got, want[i]);
                free(got);
        }
        if (!ok) {
                print_error("%s: got %zu steps:\n", name, plan->n);
                for (size_t i = 0; i < plan->n; i++) {
                        char *got = render(&plan->steps[i]);
                        print_error("  %s\n", got);
                        free(got);
                }
                fail_msg("%s: plan differs", name);
        }
}

static void test_plan(void **state)
{
        for (size_t i = 0; i < ARRAY_SIZE(plan_cases); i++) {
                const struct plan_case *c = &plan_cases[i];
                json_t *npod = make_pod(c->new_c, c->new_v), *actuated, *alloc;
                const char **running =
                        c->running ? split_running(c->running) : all_running(c->new_c);
                struct resize_plan plan = { 0 }, again = { 0 };
                struct error *err = NULL;

                if (c->actuated) {
                        actuated = J(c->actuated);
                } else {
                        json_t *opod = make_pod(c->old_c, c->old_v);
                        /* a resize keeps the QoS class: stored as the kubelet's GetPodQOS reads */
                        json_object_set_new(json_object_get(opod, "status"), "qosClass",
                                            json_string(pod_qos_class(opod)));
                        actuated = actuated_of(opod, 16 * GI, !c->no_enforce);
                        json_decref(opod);
                }
                json_object_set_new(json_object_get(npod, "status"), "qosClass",
                                    json_string(pod_qos_class(npod)));
                alloc = resize_allocation_from_pod(npod);

                if (plan_json(npod, alloc, actuated, running, 16 * GI, !c->no_enforce, &plan,
                              &err) < 0)
                        fail_msg("%s: %s", c->name, err->message);
                check_plan(c->name, &plan, c->want);

                /* the steps recorded, the kernel holds the allocation: nothing is left to do */
                for (size_t k = 0; k < plan.n; k++)
                        resize_actuated_record(actuated, &plan.steps[k]);
                assert_int_equal(plan_json(npod, alloc, actuated, running, 16 * GI, !c->no_enforce,
                                           &again, &err),
                                 0);
                if (again.n)
                        fail_msg("%s: %zu steps after recording the plan", c->name, again.n);

                resize_plan_release(&plan);
                resize_plan_release(&again);
                resize_plan_release(&again); /* idempotent */
                free_running(running);
                json_decref(alloc);
                json_decref(actuated);
                json_decref(npod);
        }
}

static void test_plan_uses_allocation_not_spec(void **state)
{
        /* the spec asks for 1Gi (desired) but the node allocated 512Mi: the plan goes to 512Mi */
        struct ctr spec[MAXC] = { G("c1", "500m", "1Gi") };
        struct ctr old[MAXC] = { G("c1", "500m", "256Mi") };
        struct ctr allocated[MAXC] = { G("c1", "500m", "512Mi") };
        struct vol none[MAXV] = { { 0 } };
        json_t *pod = make_pod(spec, none), *opod = make_pod(old, none),
               *apod = make_pod(allocated, none);
        json_t *alloc = resize_allocation_from_pod(apod), *actuated;
        const char *running[] = { "c1", NULL };
        const char *want[] = { "pod mem 512/50000/100000/536870912",
                               "container c1 mem 512/50000/100000/536870912", NULL };
        struct resize_plan plan = { 0 };

        json_object_set_new(json_object_get(opod, "status"), "qosClass", json_string("Guaranteed"));
        json_object_set_new(json_object_get(pod, "status"), "qosClass", json_string("Guaranteed"));
        actuated = actuated_of(opod, 16 * GI, true);
        assert_int_equal(plan_json(pod, alloc, actuated, running, 16 * GI, true, &plan, NULL), 0);
        check_plan("allocation, not spec", &plan, want);
        /* names are borrowed from the caller's pod */
        assert_ptr_equal(plan.steps[1].name,
                         json_string_value(json_path(
                                 json_array_get(json_path(pod, "spec.containers"), 0), "name")));
        resize_plan_release(&plan);
        json_decref(pod);
        json_decref(opod);
        json_decref(apod);
        json_decref(alloc);
        json_decref(actuated);
}

static void test_plan_invalid_quantity(void **state)
{
        json_t *pod = J("{'spec':{'containers':[{'name':'c1','resources':{'requests':"
                        "{'cpu':'lots'}}}]},'status':{'qosClass':'Burstable'}}");
        json_t *alloc = resize_allocation_from_pod(pod), *actuated = json_object();
        const char *running[] = { "c1", NULL };
        struct resize_plan plan = { .n = 99 };
        struct error *err = NULL;

        assert_int_equal(plan_json(pod, alloc, actuated, running, 16 * GI, true, &plan, &err),
                         -EINVAL);
        assert_non_null(err);
        assert_non_null(strstr(err->message, "plan resize"));
        assert_non_null(strstr(err->message, "invalid resources"));
        assert_int_equal(plan.n, 99); /* untouched on failure */
        error_free(err);
        json_decref(pod);
        json_decref(alloc);
        json_decref(actuated);
}

/* ---- recording steps ---- */

static void test_actuated_record(void **state)
{
        json_t *act = json_object();
        json_t *want = J("{'pod':{'memoryLimit':536870912},"
                         "'containers':{'c1':{'cpuShares':1024,'cpuQuota':100000,"
                         "'cpuPeriod':100000},'c2':{'cpuShares':204,'cpuQuota':20000,"
                         "'cpuPeriod':100000,'memoryLimit':209715200}},"
                         "'volumes':{'cache':402653184}}");
        struct resize_step pod_mem = { .kind = RESIZE_STEP_POD_CGROUP,
                                       .which = RESIZE_MEMORY,
                                       .cfg = { 512, 50000, 100000, 536870912 } };
        struct resize_step c1_cpu = { .kind = RESIZE_STEP_CONTAINER_CGROUP,
                                      .name = "c1",
                                      .which = RESIZE_CPU_SHARES | RESIZE_CPU_QUOTA,
                                      .cfg = { 1024, 100000, 100000, 536870912 } };
        struct resize_step c2_restart = { .kind = RESIZE_STEP_RESTART_CONTAINER,
                                          .name = "c2",
                                          .which = RESIZE_CPU_SHARES | RESIZE_CPU_QUOTA |
                                                   RESIZE_MEMORY,
                                          .cfg = { 204, 20000, 100000, 209715200 } };
        struct resize_step vol = { .kind = RESIZE_STEP_VOLUME,
                                   .name = "cache",
                                   .size_bytes = 402653184 };

        resize_actuated_record(act, &pod_mem);
        resize_actuated_record(act, &c1_cpu);
        resize_actuated_record(act, &c2_restart);
        resize_actuated_record(act, &vol);
        if (!json_equal(act, want)) {
                char *s = json_dumps(act, JSON_SORT_KEYS);
                fail_msg("actuated: %s", s);
        }
        /* a later step overwrites only its own bits */
        pod_mem.which = RESIZE_CPU_SHARES;
        pod_mem.cfg.cpu_shares = 2;
        resize_actuated_record(act, &pod_mem);
        assert_int_equal(json_integer_value(json_path(act, "pod.cpuShares")), 2);
        assert_int_equal(json_integer_value(json_path(act, "pod.memoryLimit")), 536870912);
        json_decref(act);
        json_decref(want);
}

/* ---- the retry queue ---- */

static json_t *pending_pod(int priority, const char *qos)
{
        json_t *pod = J("{'spec':{'containers':[{'name':'c','resources':{'requests':"
                        "{'cpu':'1500m','memory':'1500Mi'}}}]},'status':{}}");

        if (priority)
                json_object_set_new(json_object_get(pod, "spec"), "priority",
                                    json_integer(priority));
        if (qos)
                json_object_set_new(json_object_get(pod, "status"), "qosClass", json_string(qos));
        return pod;
}

static void test_pending_order(void **state)
{
        /* K8S: TestSortPendingResizes: [0] does not increase requests, [1] has the highest
         * priority, [2] is the only Guaranteed pod (status.qosClass), [3] has been deferred
         * longer than [4], [5] has no PodResizePending condition yet */
        json_t *pods[6] = { pending_pod(0, NULL),         pending_pod(100, NULL),
                            pending_pod(0, "Guaranteed"), pending_pod(0, NULL),
                            pending_pod(0, NULL),         pending_pod(0, NULL) };
        const struct resize_pending all[6] = {
                { pods[0], false, 0 },   { pods[1], true, 0 },    { pods[2], true, 0 },
                { pods[3], true, 1000 }, { pods[4], true, 1005 }, { pods[5], true, 0 },
        };
        struct resize_pending q[6];

        /* forward, reversed, and rotated inputs all sort the same */
        for (int order = 0; order < 3; order++) {
                for (int i = 0; i < 6; i++)
                        q[i] = all[order == 0 ? i : order == 1 ? 5 - i : (i + 3) % 6];
                qsort(q, 6, sizeof(q[0]), resize_pending_compare);
                for (int i = 0; i < 6; i++) {
                        if (q[i].pod != pods[i])
                                fail_msg("order %d: position %d holds the wrong pod", order, i);
                }
        }
        /* S19: A (priority 0, decreasing) before B (priority 1000, increasing) */
        {
                json_t *b = pending_pod(1000, NULL);
                struct resize_pending pa = { pods[0], false, 2000 }, pb = { b, true, 1 };
                assert_true(resize_pending_compare(&pa, &pb) < 0);
                assert_true(resize_pending_compare(&pb, &pa) > 0);
                assert_int_equal(resize_pending_compare(&pa, &pa), 0);
                json_decref(b);
        }
        for (int i = 0; i < 6; i++)
                json_decref(pods[i]);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_allocation_from_pod),
                cmocka_unit_test(test_allocation_equal),
                cmocka_unit_test(test_pod_with_allocation),
                cmocka_unit_test(test_admit),
                cmocka_unit_test(test_admit_volumes),
                cmocka_unit_test(test_plan),
                cmocka_unit_test(test_plan_uses_allocation_not_spec),
                cmocka_unit_test(test_plan_invalid_quantity),
                cmocka_unit_test(test_actuated_record),
                cmocka_unit_test(test_pending_order),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
