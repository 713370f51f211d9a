/* test-spawn.c: spawn_run, the one way the node runs a helper program: stdin from a buffer or
 * /dev/null, both streams collected with their cap (head or tail), exit codes and signals, the
 * deadline, and a program that cannot be run. Uses the host's /bin/sh. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "base/spawn.h"

static char *const envp[] = { "PATH=/usr/bin:/bin", "LC_ALL=C", NULL };

/* Runs `sh -c script` with options; returns spawn_run's result, ret filled. */
static int sh(const char *script, const struct spawn_options *o, struct spawn_result *ret,
              struct error **err)
{
        char *argv[] = { (char *) "sh", (char *) "-c", (char *) script, NULL };

        return spawn_run("/bin/sh", argv, envp, o, ret, err);
}

static void release(struct spawn_result *r)
{
        strbuf_release(&r->out);
        strbuf_release(&r->err);
}

static void test_streams_and_status(void **state)
{
        const char input[] = "from stdin\n";
        struct spawn_options o = { .input = input, .input_len = strlen(input) };
        struct spawn_result r;

        (void) state;
        assert_int_equal(sh("cat; echo oops >&2; exit 3", &o, &r, NULL), 0);
        assert_string_equal(r.out.buf, "from stdin\n");
        assert_string_equal(r.err.buf, "oops\n");
        assert_int_equal(r.status, 3);
        release(&r);

        /* no input: stdin is /dev/null, so cat ends at once */
        o = (struct spawn_options){ 0 };
        assert_int_equal(sh("cat; echo done", &o, &r, NULL), 0);
        assert_string_equal(r.out.buf, "done\n");
        assert_int_equal(r.status, 0);
        release(&r);

        /* killed by a signal: 128 + the signal */
        assert_int_equal(sh("kill -9 $$", &o, &r, NULL), 0);
        assert_int_equal(r.status, 128 + 9);
        release(&r);

        /* only 0-2 are open in the child */
        assert_int_equal(sh("ls /proc/self/fd | wc -l", &o, &r, NULL), 0);
        assert_string_equal(r.out.buf, "4\n"); /* 0, 1, 2 and ls's own directory fd */
        release(&r);
}

static void test_caps(void **state)
{
        struct spawn_options head = { .output_max = 4 };
        struct spawn_options tail = { .output_max = 4, .keep_tail = true };
        struct spawn_result r;

        (void) state;
        /* head: the first output_max + 1 bytes, so the caller sees it ran over */
        assert_int_equal(sh("echo 0123456789", &head, &r, NULL), 0);
        assert_string_equal(r.out.buf, "01234");
        release(&r);
        /* tail: at least the last output_max bytes, at most twice that */
        assert_int_equal(sh("i=0; while [ $i -lt 100 ]; do echo line$i >&2; i=$((i+1)); done",
                            &tail, &r, NULL),
                         0);
        assert_true(r.err.len >= 4 && r.err.len <= 8);
        assert_string_equal(r.err.buf + r.err.len - 4, "e99\n");
        release(&r);
}

static void test_deadline_and_missing(void **state)
{
        struct spawn_options o = { .timeout_ms = 200 };
        struct spawn_result r;
        struct error *err = NULL;
        char *argv[] = { (char *) "nope", NULL };

        (void) state;
        assert_int_equal(sh("exec sleep 30", &o, &r, &err), -ETIMEDOUT);
        assert_non_null(strstr(err->message, "no answer within"));
        error_free(err);
        err = NULL;
        release(&r);

        assert_int_equal(spawn_run("/nonexistent/nope", argv, envp, &o, &r, &err), -ENOENT);
        assert_non_null(strstr(err->message, "run \"/nonexistent/nope\""));
        error_free(err);
        release(&r);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_streams_and_status),
                cmocka_unit_test(test_caps),
                cmocka_unit_test(test_deadline_and_missing),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
