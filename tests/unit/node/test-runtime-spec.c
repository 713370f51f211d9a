/* test-runtime-spec.c: the container spec the agent writes (spec.json) and the supervisor reads
 * back: a full round trip, the checks made before anything starts, and malformed files. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "base/alloc.h"
#include "node/runtime/runtime-internal.h"

static const char *const entrypoint[] = { "/entry", NULL };
static const char *const cmd[] = { "a", "b", NULL };
static const char *const image_env[] = { "PATH=/x", NULL };
static const char *const command[] = { "sh", "-c", "echo $(A)", NULL };
static const char *const args[] = { "--flag", NULL };
static const char *const procs[] = { "/sys/fs/cgroup/memory/x/cgroup.procs",
                                     "/sys/fs/cgroup/cpu/x/cgroup.procs", NULL };
static const struct runtime_env_var env[] = { { "A", "1", false }, { "B", "$(A)", true } };
static const struct runtime_mount mounts[] = {
        { .source = "/var/lib/v1", .target = "/data" },
        { .source = "/var/lib/v2",
          .target = "/etc/app.cfg",
          .read_only = true,
          .sub_path = "a/b.cfg" },
};

static struct runtime_container_spec full(void)
{
        return (struct runtime_container_spec){
                .state_dir = "/d/pods/u/containers/c/0",
                .sandbox_dir = "/d/pods/u/sandbox",
                .rootfs = "/d/images/builtin/busybox/rootfs",
                .image_entrypoint = entrypoint,
                .image_cmd = cmd,
                .image_env = image_env,
                .image_working_dir = "/w",
                .command = command,
                .args = args,
                .working_dir = "/work",
                .env = env,
                .n_env = ARRAY_SIZE(env),
                .mounts = mounts,
                .n_mounts = ARRAY_SIZE(mounts),
                .cgroup_procs = procs,
                .uid = 1000,
                .gid = 2000,
                .oom_score_adj = -997,
                .oom_score_adj_set = true,
                .termination_message_path = "/dev/termination-log",
                .termination_message_fallback = true,
        };
}

static void assert_strv_equal(const char *const *a, const char *const *b)
{
        size_t i;

        for (i = 0; a[i] && b[i]; i++)
                assert_string_equal(a[i], b[i]);
        assert_null(a[i]);
        assert_null(b[i]);
}

static void test_round_trip(void **state)
{
        struct runtime_container_spec in = full();
        struct rt_spec_holder h;
        struct error *err = NULL;
        json_t *j = rt_spec_to_json(&in);
        char *text = json_dumps(j, JSON_COMPACT);
        json_t *back = json_loads(text, 0, NULL);
        const struct runtime_container_spec *out;

        free(text);
        json_decref(j);
        if (rt_spec_from_json(back, &h, &err) < 0)
                fail_msg("%s", err->message);
        json_decref(back); /* the holder keeps its own reference */
        out = &h.spec;
        assert_string_equal(out->state_dir, in.state_dir);
        assert_string_equal(out->sandbox_dir, in.sandbox_dir);
        assert_string_equal(out->rootfs, in.rootfs);
        assert_strv_equal(out->image_entrypoint, in.image_entrypoint);
        assert_strv_equal(out->image_cmd, in.image_cmd);
        assert_strv_equal(out->image_env, in.image_env);
        assert_string_equal(out->image_working_dir, "/w");
        assert_strv_equal(out->command, in.command);
        assert_strv_equal(out->args, in.args);
        assert_string_equal(out->working_dir, "/work");
        assert_int_equal(out->n_env, 2);
        for (size_t i = 0; i < 2; i++) {
                assert_string_equal(out->env[i].name, env[i].name);
                assert_string_equal(out->env[i].value, env[i].value);
                assert_int_equal(out->env[i].literal, env[i].literal);
        }
        assert_int_equal(out->n_mounts, 2);
        for (size_t i = 0; i < 2; i++) {
                assert_string_equal(out->mounts[i].source, mounts[i].source);
                assert_string_equal(out->mounts[i].target, mounts[i].target);
                assert_int_equal(out->mounts[i].read_only, mounts[i].read_only);
        }
        assert_null(out->mounts[0].sub_path);
        assert_string_equal(out->mounts[1].sub_path, "a/b.cfg");
        assert_strv_equal(out->cgroup_procs, in.cgroup_procs);
        assert_int_equal(out->uid, 1000);
        assert_int_equal(out->gid, 2000);
        assert_true(out->oom_score_adj_set);
        assert_int_equal(out->oom_score_adj, -997);
        assert_string_equal(out->termination_message_path, "/dev/termination-log");
        assert_true(out->termination_message_fallback);
        assert_int_equal(rt_spec_check(out, NULL), 0);
        rt_spec_holder_release(&h);
}

static void test_minimal_round_trip(void **state)
{
        struct runtime_container_spec in = {
                .state_dir = "/s", .sandbox_dir = "/b", .rootfs = "/r", .command = command
        };
        struct rt_spec_holder h;
        json_t *j = rt_spec_to_json(&in);

        assert_int_equal(rt_spec_from_json(j, &h, NULL), 0);
        json_decref(j);
        assert_null(h.spec.working_dir);
        assert_null(h.spec.image_entrypoint[0]);
        assert_null(h.spec.args[0]);
        assert_null(h.spec.cgroup_procs[0]);
        assert_int_equal(h.spec.n_env, 0);
        assert_int_equal(h.spec.n_mounts, 0);
        assert_false(h.spec.oom_score_adj_set); /* the process keeps the supervisor's score */
        assert_null(h.spec.termination_message_path);
        assert_false(h.spec.termination_message_fallback);
        rt_spec_holder_release(&h);
}

static void test_check(void **state)
{
        static const char *const empty[] = { NULL };
        static const struct runtime_env_var bad_env[] = { { "A=B", "x", false } };
        static const struct runtime_mount rel[] = { { .source = "relative", .target = "/x" } };
        static const struct runtime_mount up[] = {
                { .source = "/v", .target = "/x", .sub_path = "a/../../b" }
        };
        static const struct runtime_mount abs[] = {
                { .source = "/v", .target = "/x", .sub_path = "/etc" }
        };
        static const struct {
                const char *name, *message;
        } cases[] = {
                { "relative state dir", "container spec: the state dir must be an absolute path" },
                { "no sandbox", "container spec: the sandbox dir must be an absolute path" },
                { "comma",
                  "container spec: \"/r,x\" or \"/s\" holds ',', ':' or '\\', which overlayfs options cannot carry" },
                { "no command", "no command specified" },
                { "relative mount",
                  "container spec: mount source \"relative\" is not an absolute path" },
                { "subPath ..",
                  "container spec: subPath \"a/../../b\" is not a relative path without \"..\"" },
                { "absolute subPath",
                  "container spec: subPath \"/etc\" is not a relative path without \"..\"" },
                { "env name", "container spec: bad environment variable name \"A=B\"" },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                struct runtime_container_spec s = {
                        .state_dir = "/s", .sandbox_dir = "/b", .rootfs = "/r", .command = command
                };
                struct error *err = NULL;

                switch (i) {
                case 0:
                        s.state_dir = "s";
                        break;
                case 1:
                        s.sandbox_dir = NULL;
                        break;
                case 2:
                        s.rootfs = "/r,x";
                        break;
                case 3:
                        s.command = empty;
                        break;
                case 4:
                        s.mounts = rel;
                        s.n_mounts = 1;
                        break;
                case 5:
                        s.mounts = up;
                        s.n_mounts = 1;
                        break;
                case 6:
                        s.mounts = abs;
                        s.n_mounts = 1;
                        break;
                default:
                        s.env = bad_env;
                        s.n_env = 1;
                }
                assert_int_equal(rt_spec_check(&s, &err), -EINVAL);
                if (!streq(err->message, cases[i].message))
                        fail_msg("%s: \"%s\"", cases[i].name, err->message);
                error_free(err);
        }
}

static void test_malformed(void **state)
{
        static const struct {
                const char *json, *message;
        } cases[] = {
                { "[]", "container spec: not a JSON object" },
                { "{}", "container spec: \"image\" is not an object" },
                { "{\"image\":{}}", "container spec: \"stateDir\" is missing" },
                { "{\"stateDir\":1,\"image\":{}}", "container spec: \"stateDir\" is not a string" },
                { "{\"stateDir\":\"/s\",\"image\":{\"rootfs\":\"/r\"},\"command\":\"sh\"}",
                  "container spec: \"command\" is not an array" },
                { "{\"stateDir\":\"/s\",\"image\":{\"rootfs\":\"/r\"},\"args\":[1]}",
                  "container spec: \"args\" holds a non-string" },
                { "{\"stateDir\":\"/s\",\"image\":{\"rootfs\":\"/r\"},\"env\":[{\"value\":\"x\"}]}",
                  "container spec: \"name\" is missing" },
                { "{\"stateDir\":\"/s\",\"image\":{\"rootfs\":\"/r\"},\"mounts\":[{\"source\":\"/a\"}]}",
                  "container spec: \"target\" is missing" },
                { "{\"stateDir\":\"/s\",\"image\":{\"rootfs\":\"/r\"},\"oomScoreAdj\":1001}",
                  "container spec: \"oomScoreAdj\" is not in -1000..1000" },
                { "{\"stateDir\":\"/s\",\"image\":{\"rootfs\":\"/r\"},\"oomScoreAdj\":\"1\"}",
                  "container spec: \"oomScoreAdj\" is not in -1000..1000" },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                json_t *j = json_loads(cases[i].json, JSON_DECODE_ANY, NULL);
                struct rt_spec_holder h;
                struct error *err = NULL;

                assert_non_null(j);
                assert_int_equal(rt_spec_from_json(j, &h, &err), -EINVAL);
                if (!streq(err->message, cases[i].message))
                        fail_msg("%s: \"%s\"", cases[i].json, err->message);
                error_free(err);
                json_decref(j);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_round_trip),
                cmocka_unit_test(test_minimal_round_trip),
                cmocka_unit_test(test_check),
                cmocka_unit_test(test_malformed),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
