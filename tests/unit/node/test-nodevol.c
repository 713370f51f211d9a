/* test-nodevol.c: the owning node's helpers for local-loop volumes (node/volume/nodevol.h)
 * without a server: a file's size and the orphan sweep of serve's own node (files no volume and no
 * claim names, old enough) on a temporary data dir. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

#include "base/alloc.h"
#include "base/json.h"
#include "node/volume/nodevol.h"

static void touch(const char *dir, const char *name, time_t age_s)
{
        cleanup_free char *path = xasprintf("%s/volumes/%s", dir, name);
        struct utimbuf t = { .actime = time(NULL) - age_s, .modtime = time(NULL) - age_s };
        FILE *f = fopen(path, "w");

        assert_non_null(f);
        assert_int_equal(fputs("x", f) >= 0, 1);
        assert_int_equal(fclose(f), 0);
        assert_int_equal(utime(path, &t), 0);
}

static bool exists(const char *dir, const char *name)
{
        cleanup_free char *path = xasprintf("%s/volumes/%s", dir, name);
        return access(path, F_OK) == 0;
}

static void test_sweep_orphans(void **state)
{
        char dir[] = "/tmp/flexlet-test-nodevol.XXXXXX";
        cleanup_free char *vols = NULL, *cmd = NULL;
        cleanup_json json_t *handles = json_pack("{s:b}", "pvc-b", 1);
        cleanup_json json_t *uids = json_pack("{s:b}", "c", 1);
        int64_t size = 0;

        assert_non_null(mkdtemp(dir));
        vols = xasprintf("%s/volumes", dir);
        assert_int_equal(mkdir(vols, 0700), 0);
        touch(dir, "pvc-a.img", 600);     /* named by nothing, old: removed */
        touch(dir, "pvc-t.img.tmp", 600); /* a crashed create's leftover: removed */
        touch(dir, "pvc-b.img", 600);     /* its volume exists */
        touch(dir, "pvc-c.img", 600);     /* its claim exists */
        touch(dir, "pvc-d.img", 0);       /* too young */
        touch(dir, "other.img", 600);     /* not a volume's file */
        nodevol_local_sweep_orphans(dir, handles, uids, 60);
        assert_false(exists(dir, "pvc-a.img"));
        assert_false(exists(dir, "pvc-t.img.tmp"));
        assert_true(exists(dir, "pvc-b.img"));
        assert_true(exists(dir, "pvc-c.img"));
        assert_true(exists(dir, "pvc-d.img"));
        assert_true(exists(dir, "other.img"));
        assert_int_equal(nodevol_local_file_bytes(dir, "pvc-b", &size), 0);
        assert_int_equal(size, 1);
        assert_int_equal(nodevol_local_file_bytes(dir, "pvc-a", &size), -ENOENT);
        assert_int_equal(nodevol_local_file_bytes(dir, "../x", &size), -EINVAL);
        cmd = xasprintf("rm -rf '%s'", dir);
        assert_int_equal(system(cmd), 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_sweep_orphans),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
