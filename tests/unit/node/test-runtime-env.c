/* test-runtime-env.c: $(VAR) expansion as Kubernetes defines it (the cases of upstream's
 * third_party/forked/golang/expansion tests), the pod's env expanded in order, the process
 * environment's defaults and precedence, and command/args against the image's entrypoint/cmd. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "base/alloc.h"
#include "node/runtime/runtime-internal.h"

static const char *ctx_lookup(void *ud, const char *name)
{
        static const char *const vars[][2] = {
                { "VAR_A", "A" },          { "VAR_B", "B" },    { "VAR_C", "C" },
                { "VAR_REF", "$(VAR_A)" }, { "VAR_EMPTY", "" },
        };
        (void) ud;
        for (size_t i = 0; i < ARRAY_SIZE(vars); i++)
                if (streq(vars[i][0], name))
                        return vars[i][1];
        return NULL;
}

/* K8S: expand_test.go doExpansionTest */
static void test_expand_table(void **state)
{
        static const struct {
                const char *name, *in, *want;
        } cases[] = {
                { "whole string", "$(VAR_A)", "A" },
                { "repeat", "$(VAR_A)-$(VAR_A)", "A-A" },
                { "beginning", "$(VAR_A)-1", "A-1" },
                { "middle", "___$(VAR_B)___", "___B___" },
                { "end", "___$(VAR_C)", "___C" },
                { "compound", "$(VAR_A)_$(VAR_B)_$(VAR_C)", "A_B_C" },
                { "escape & expand", "$$(VAR_B)_$(VAR_A)", "$(VAR_B)_A" },
                { "compound escape", "$$(VAR_A)_$$(VAR_B)", "$(VAR_A)_$(VAR_B)" },
                { "mixed in escapes", "f000-$$VAR_A", "f000-$VAR_A" },
                { "backslash escape ignored", "foo\\$(VAR_C)bar", "foo\\Cbar" },
                { "backslash escape ignored 2", "foo\\\\$(VAR_C)bar", "foo\\\\Cbar" },
                { "lots of backslashes", "foo\\\\\\\\$(VAR_A)bar", "foo\\\\\\\\Abar" },
                { "nested var references", "$(VAR_A$(VAR_B))", "$(VAR_A$(VAR_B))" },
                { "nested var references second type", "$(VAR_A$(VAR_B)", "$(VAR_A$(VAR_B)" },
                { "value is a reference", "$(VAR_REF)", "$(VAR_A)" },
                { "value is a reference x 2", "%%$(VAR_REF)--$(VAR_REF)%%",
                  "%%$(VAR_A)--$(VAR_A)%%" },
                { "empty var", "foo$(VAR_EMPTY)bar", "foobar" },
                { "unterminated expression", "foo$(VAR_Awhoops!", "foo$(VAR_Awhoops!" },
                { "expression without operator", "f00__(VAR_A)__", "f00__(VAR_A)__" },
                { "shell special vars pass through", "$?_boo_$!", "$?_boo_$!" },
                { "bare operators are ignored", "$VAR_A", "$VAR_A" },
                { "undefined vars are passed through", "$(VAR_DNE)", "$(VAR_DNE)" },
                { "multiple (even) operators, var undefined", "$$$$$$(BIG_MONEY)",
                  "$$$(BIG_MONEY)" },
                { "multiple (even) operators, var defined", "$$$$$$(VAR_A)", "$$$(VAR_A)" },
                { "multiple (odd) operators, var undefined", "$$$$$$$(GOOD_ODDS)",
                  "$$$$(GOOD_ODDS)" },
                { "multiple (odd) operators, var defined", "$$$$$$$(VAR_A)", "$$$A" },
                { "missing open expression", "$VAR_A)", "$VAR_A)" },
                { "shell syntax ignored", "${VAR_A}", "${VAR_A}" },
                { "trailing incomplete expression not consumed", "$(VAR_B)_______$(A",
                  "B_______$(A" },
                { "trailing incomplete expression, no content", "$(VAR_C)_______$(", "C_______$(" },
                { "operator at end of input string is preserved", "$(VAR_A)foobarzab$",
                  "Afoobarzab$" },
                { "shell escaped incomplete expr", "foo-\\$(VAR_A", "foo-\\$(VAR_A" },
                { "lots of $( in middle", "--$($($($($--", "--$($($($($--" },
                { "lots of $( in beginning", "$($($($($--foo$(", "$($($($($--foo$(" },
                { "lots of $( at end", "foo0--$($($($(", "foo0--$($($($(" },
                { "escaped operators in variable names are not escaped", "$(foo$$var)",
                  "$(foo$$var)" },
                { "newline not expanded", "\n", "\n" },
                { "empty", "", "" },
                { "lone operator", "$", "$" },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                cleanup_free char *got = rt_expand(cases[i].in, ctx_lookup, NULL);
                if (!streq(got, cases[i].want))
                        fail_msg("%s: expand(\"%s\") = \"%s\", want \"%s\"", cases[i].name,
                                 cases[i].in, got, cases[i].want);
        }
}

/* K8S: expand_test.go TestMapReference, plus literal (valueFrom) values and redefinition */
static void test_pod_env_in_order(void **state)
{
        const struct runtime_env_var env[] = {
                { "FOO", "bar", false },
                { "ZOO", "$(FOO)-1", false },
                { "BLU", "$(ZOO)-2", false },
                { "LATER", "$(NEXT)", false }, /* refers forward: stays as written */
                { "NEXT", "n", false },
                { "SECRET", "$(FOO)", true }, /* from valueFrom: not expanded */
                { "FOO", "again-$(FOO)", false },
        };
        struct runtime_container_spec s = { .env = env, .n_env = ARRAY_SIZE(env) };
        struct rt_env e;

        rt_pod_env(&s, &e);
        assert_int_equal(e.n, 6);
        assert_string_equal(e.names[0], "FOO");
        assert_string_equal(e.values[0], "again-bar");
        assert_string_equal(rt_env_get(&e, "ZOO"), "bar-1");
        assert_string_equal(rt_env_get(&e, "BLU"), "bar-1-2");
        assert_string_equal(rt_env_get(&e, "LATER"), "$(NEXT)");
        assert_string_equal(rt_env_get(&e, "SECRET"), "$(FOO)");
        rt_env_release(&e);
}

static void test_process_env(void **state)
{
        const char *image_env[] = { "PATH=/image/bin", "LANG=C.UTF-8", "broken", NULL };
        const struct runtime_env_var env[] = { { "LANG", "en", false }, { "X", "1", false } };
        struct runtime_container_spec s = { .image_env = image_env, .env = env, .n_env = 2 };
        struct rt_env pod;
        char **v;

        rt_pod_env(&s, &pod);
        v = rt_process_env(&s, &pod, "mypod", "/root");
        /* PATH and HOSTNAME first, the image's env, the pod's (later names win), HOME last */
        assert_string_equal(v[0], "PATH=/image/bin");
        assert_string_equal(v[1], "HOSTNAME=mypod");
        assert_string_equal(v[2], "LANG=en");
        assert_string_equal(v[3], "X=1");
        assert_string_equal(v[4], "HOME=/root");
        assert_null(v[5]);
        rt_strv_free(v);
        rt_env_release(&pod);

        /* no image env: containerd's default PATH; no passwd entry: HOME=/ */
        s = (struct runtime_container_spec){ 0 };
        rt_pod_env(&s, &pod);
        v = rt_process_env(&s, &pod, "h", NULL);
        assert_string_equal(v[0], "PATH=" RT_DEFAULT_PATH);
        assert_string_equal(v[2], "HOME=/");
        rt_strv_free(v);
        rt_env_release(&pod);
}

static void test_process_argv(void **state)
{
        static const char *const ep[] = { "/entry", "--flag", NULL };
        static const char *const cmd[] = { "default-arg", NULL };
        static const char *const command[] = { "run", "$(WHO)", NULL };
        static const char *const args[] = { "x", "$$(WHO)", "$(PATH)", NULL };
        static const char *const empty[] = { NULL };
        const struct runtime_env_var env[] = { { "WHO", "world", false } };
        static const struct {
                const char *name;
                const char *const *command, *const *args;
                const char *want;
        } cases[] = {
                /* K8S: the four combinations of command and args over entrypoint and cmd */
                { "neither", NULL, NULL, "/entry --flag default-arg" },
                { "empty lists are not set", empty, empty, "/entry --flag default-arg" },
                { "command only", command, NULL, "run world" },
                { "args only", NULL, args, "/entry --flag x $(WHO) $(PATH)" },
                { "both", command, args, "run world x $(WHO) $(PATH)" },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                struct runtime_container_spec s = { .image_entrypoint = ep,
                                                    .image_cmd = cmd,
                                                    .command = cases[i].command,
                                                    .args = cases[i].args,
                                                    .env = env,
                                                    .n_env = 1 };
                struct rt_env pod;
                struct strbuf sb;
                char **argv = NULL;

                rt_pod_env(&s, &pod);
                assert_int_equal(rt_process_argv(&s, &pod, &argv, NULL), 0);
                strbuf_init(&sb);
                for (size_t k = 0; argv[k]; k++)
                        strbuf_addf(&sb, "%s%s", k ? " " : "", argv[k]);
                if (!streq(sb.buf, cases[i].want))
                        fail_msg("%s: got \"%s\", want \"%s\"", cases[i].name, sb.buf,
                                 cases[i].want);
                strbuf_release(&sb);
                rt_strv_free(argv);
                rt_env_release(&pod);
        }
}

static void test_no_command(void **state)
{
        struct runtime_container_spec s = { 0 };
        struct rt_env pod = { 0 };
        struct error *err = NULL;
        char **argv = NULL;

        assert_int_equal(rt_process_argv(&s, &pod, &argv, &err), -EINVAL);
        assert_string_equal(err->message, "no command specified");
        error_free(err);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_expand_table), cmocka_unit_test(test_pod_env_in_order),
                cmocka_unit_test(test_process_env),  cmocka_unit_test(test_process_argv),
                cmocka_unit_test(test_no_command),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
