/* test-runtime-subpath.c: a volume subPath resolved inside its volume, in a temporary tree with
 * the links a pod could write (absolute, a "../.." chain, to a host file, dangling): the agent's
 * check (RESOLVE_BENEATH) refuses every escape and makes missing dirs only inside, with the
 * volume's mode; the supervisor's open (RESOLVE_IN_ROOT) ends inside the volume even through a
 * link to "/" (what a link swapped in after the check gets); subPathExpr expands as upstream's
 * ExpandContainerVolumeMounts; the ".." rule. Needs no root. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "node/runtime/runtime-internal.h"

static char tmp[64];
static char *vol;
static char host_name[64]; /* a name that must never appear in the host's /tmp */

static void must(int r, const char *what)
{
        if (r < 0)
                fail_msg("%s: %s", what, strerror(errno));
}

static int setup(void **state)
{
        cleanup_free char *p = NULL;

        (void) snprintf(tmp, sizeof(tmp), "/tmp/test-subpath.XXXXXX");
        if (!mkdtemp(tmp))
                return -1;
        (void) snprintf(host_name, sizeof(host_name), "test-subpath-escape-%d", (int) getpid());
        vol = xasprintf("%s/vol", tmp);
        must(mkdir(vol, 0777), "mkdir vol");
        must(chmod(vol, 0777), "chmod vol");
        p = xasprintf("%s/data", vol);
        must(mkdir(p, 0755), "mkdir data");
        free(p);
        p = xasprintf("%s/data/f", vol);
        {
                int fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
                must(fd, "create data/f");
                close(fd);
        }
        free(p);
        /* what a pod writes into its volume */
        p = xasprintf("%s/abs", vol);
        must(symlink("/", p), "abs");
        free(p);
        p = xasprintf("%s/up", vol);
        must(symlink("../../../../../../..", p), "up");
        free(p);
        p = xasprintf("%s/hostfile", vol);
        must(symlink("/etc/hostname", p), "hostfile");
        free(p);
        p = xasprintf("%s/dangling", vol);
        must(symlink("/nonexistent-test-subpath", p), "dangling");
        free(p);
        p = xasprintf("%s/in", vol);
        must(symlink("data", p), "in");
        return 0;
}

static int teardown(void **state)
{
        int r = fs_remove_tree(tmp);

        free(vol);
        return r < 0 ? -1 : 0;
}

static bool host_tmp_untouched(void)
{
        cleanup_free char *p = xasprintf("/tmp/%s", host_name);
        return access(p, F_OK) < 0 && access("/nonexistent-test-subpath", F_OK) < 0;
}

static void test_is_local(void **state)
{
        static const struct {
                const char *sub;
                bool ok;
        } cases[] = {
                { "a", true },        { "a/b/c", true },   { "a//b/", true }, { "..a", true },
                { "a..", true },      { "a/..b/c", true }, { ".", true },     { "/a", false },
                { "..", false },      { "a/..", false },   { "../a", false }, { "a/../b", false },
                { "a//../b", false }, { "a/b/..", false },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
                if (rt_subpath_is_local(cases[i].sub) != cases[i].ok)
                        fail_msg("\"%s\": want %s", cases[i].sub,
                                 cases[i].ok ? "local" : "refused");
        assert_false(rt_subpath_is_local(NULL));
}

/* K8S PrepareSafeSubpath's verdicts, from inside the volume only */
static void test_check(void **state)
{
        static const struct {
                const char *sub;
                int want;
        } cases[] = {
                { "data", 0 },
                { "data/f", 0 },
                { "in", 0 }, /* a link that stays inside */
                { "in/f", 0 },
                { "abs", -EXDEV }, /* abs -> / */
                { "abs/etc", -EXDEV },
                { "up", -EXDEV }, /* up -> ../../.. */
                { "up/tmp", -EXDEV },
                { "hostfile", -EXDEV },
                { "dangling", -EXDEV },
                { "missing", -ENOENT },
                { "data/f/x", -ENOTDIR },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                struct error *err = NULL;
                int r = runtime_subpath_check(vol, cases[i].sub, &err);

                if (r != cases[i].want)
                        fail_msg("\"%s\": %d, want %d (%s)", cases[i].sub, r, cases[i].want,
                                 err ? err->message : "");
                if (r == -EXDEV && !strstr(err->message, "it leaves the volume"))
                        fail_msg("\"%s\": %s", cases[i].sub, err->message);
                error_free(err);
        }
        assert_int_equal(runtime_subpath_check(vol, "../x", NULL), -EINVAL);
        assert_int_equal(runtime_subpath_check(vol, "/etc", NULL), -EINVAL);
        assert_int_equal(runtime_subpath_check("relative", "x", NULL), -EINVAL);
}

/* K8S SafeMakeDir: made inside, with the volume's mode past the umask; never through a link */
static void test_mkdir(void **state)
{
        cleanup_free char *made = xasprintf("%s/new/a/b", vol), *via = xasprintf("%s/data/n", vol),
                          *through_abs = xasprintf("abs/tmp/%s", host_name),
                          *through_up = xasprintf("up/tmp/%s", host_name);
        mode_t old = umask(022);
        struct stat st;

        assert_int_equal(runtime_subpath_mkdir(vol, "new/a/b", NULL), 0);
        assert_int_equal(stat(made, &st), 0);
        assert_true(S_ISDIR(st.st_mode));
        assert_int_equal(st.st_mode & 07777, 0777);
        assert_int_equal(runtime_subpath_check(vol, "new/a/b", NULL), 0);
        /* existing: nothing to do */
        assert_int_equal(runtime_subpath_mkdir(vol, "new/a/b", NULL), 0);
        assert_int_equal(runtime_subpath_mkdir(vol, "in/n", NULL), 0);
        assert_int_equal(stat(via, &st), 0);

        assert_int_equal(runtime_subpath_mkdir(vol, through_abs, NULL), -EXDEV);
        assert_int_equal(runtime_subpath_mkdir(vol, through_up, NULL), -EXDEV);
        assert_int_equal(runtime_subpath_mkdir(vol, "dangling/x", NULL), -EXDEV);
        assert_int_equal(runtime_subpath_mkdir(vol, "a/../../x", NULL), -EINVAL);
        assert_true(host_tmp_untouched());
        umask(old);
}

static void assert_same_file(int fd, const char *path)
{
        struct stat a, b;

        assert_int_equal(fstat(fd, &a), 0);
        if (stat(path, &b) < 0)
                fail_msg("stat %s: %s", path, strerror(errno));
        if (a.st_dev != b.st_dev || a.st_ino != b.st_ino)
                fail_msg("the fd is not %s", path);
}

/* The supervisor's open: whatever the links say, it ends inside the volume */
static void test_mount_source_open(void **state)
{
        cleanup_free char *data = xasprintf("%s/data", vol), *f = xasprintf("%s/data/f", vol),
                          *vol_tmp = xasprintf("%s/tmp", vol),
                          *sub = xasprintf("abs/tmp/%s", host_name),
                          *made = xasprintf("%s/tmp/%s", vol, host_name);
        struct runtime_mount m = { .source = vol, .target = "/x" };
        struct error *err = NULL;
        int fd;

        fd = rt_mount_source_open(&m, NULL);
        assert_true(fd >= 0);
        assert_same_file(fd, vol);
        close(fd);

        m.sub_path = "in/f";
        fd = rt_mount_source_open(&m, NULL);
        assert_true(fd >= 0);
        assert_same_file(fd, f);
        close(fd);

        /* a link to "/" swapped in after the agent's check: the volume itself */
        m.sub_path = "abs";
        fd = rt_mount_source_open(&m, NULL);
        assert_true(fd >= 0);
        assert_same_file(fd, vol);
        close(fd);
        m.sub_path = "up/data";
        fd = rt_mount_source_open(&m, NULL);
        assert_true(fd >= 0);
        assert_same_file(fd, data);
        close(fd);

        /* missing below a link: made inside the volume, not in the host's /tmp */
        m.sub_path = sub;
        fd = rt_mount_source_open(&m, NULL);
        assert_true(fd >= 0);
        assert_same_file(fd, made);
        close(fd);
        assert_true(host_tmp_untouched());
        assert_int_equal(access(vol_tmp, F_OK), 0);

        /* a link to a host file ends at nothing inside: an error, not the host's file */
        m.sub_path = "hostfile";
        fd = rt_mount_source_open(&m, &err);
        assert_int_equal(fd, -ENOENT);
        assert_non_null(strstr(err->message, "subPath \"hostfile\""));
        error_free(err);

        m.sub_path = "a/../b";
        assert_int_equal(rt_mount_source_open(&m, NULL), -EINVAL);
        /* the volume itself is never reached through a link */
        m.source = vol;
        m.sub_path = NULL;
        {
                cleanup_free char *link = xasprintf("%s/vol-link", tmp);
                must(symlink(vol, link), "vol-link");
                m.source = link;
                assert_int_equal(rt_mount_source_open(&m, NULL), -ENOTDIR);
        }
}

/* K8S ExpandContainerVolumeMounts */
static void test_expand(void **state)
{
        static const struct runtime_env_var env[] = {
                { "A", "1", false },
                { "B", "$(A)-b", false },
                { "L", "$(A)", true },
                { "E", "", false },
        };
        static const struct {
                const char *expr, *want;
        } cases[] = {
                { "$(A)/x", "1/x" }, { "$(B)", "1-b" },    { "$(L)", "$(A)" },
                { "$$(A)", "$(A)" }, { "plain", "plain" }, { "$(A", "$(A" },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                char *out = NULL;
                assert_int_equal(
                        runtime_subpath_expand(cases[i].expr, env, ARRAY_SIZE(env), &out, NULL), 0);
                assert_string_equal(out, cases[i].want);
                free(out);
        }
        {
                struct error *err = NULL;
                char *out = NULL;

                assert_int_equal(runtime_subpath_expand("$(Z)/$(E)/$(Z)/$(A)", env, ARRAY_SIZE(env),
                                                        &out, &err),
                                 -EINVAL);
                assert_null(out);
                assert_string_equal(err->message, "missing value for E, Z");
                error_free(err);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_is_local), cmocka_unit_test(test_check),
                cmocka_unit_test(test_mkdir),    cmocka_unit_test(test_mount_source_open),
                cmocka_unit_test(test_expand),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
