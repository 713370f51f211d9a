/* test-userns.c: the node's user namespace ranges (K8S userns_manager.go): slots of 65536 IDs
 * from 65536 up, handed out lowest first without overlap, a recorded range never handed out
 * again, freed ranges reused; the pod's `userns` record written and read back as upstream's
 * JSON, and records this node never writes refused. */
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
#include <unistd.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "node/userns.h"

static void test_take_in_order(void **state)
{
        struct userns_ranges r = { 0 };
        uint32_t a, b, c;

        (void) state;
        assert_int_equal(userns_ranges_take(&r, &a), 0);
        assert_int_equal(userns_ranges_take(&r, &b), 0);
        /* K8S: the first range is above the host's own IDs, each a multiple of 65536 */
        assert_int_equal(a, 65536);
        assert_int_equal(b, 2 * 65536);
        assert_true(userns_ranges_taken(&r, a));
        userns_ranges_release(&r, a);
        assert_false(userns_ranges_taken(&r, a));
        assert_int_equal(userns_ranges_take(&r, &c), 0);
        assert_int_equal(c, a); /* the lowest free one again */
        assert_true(userns_ranges_taken(&r, b));
}

static void test_record(void **state)
{
        struct userns_ranges r = { 0 };
        uint32_t got;

        (void) state;
        /* what a restarted agent reads back is never handed out again */
        assert_int_equal(userns_ranges_record(&r, 65536), 0);
        assert_int_equal(userns_ranges_record(&r, 3 * 65536), 0);
        assert_int_equal(userns_ranges_record(&r, 3 * 65536), -EEXIST);
        assert_int_equal(userns_ranges_take(&r, &got), 0);
        assert_int_equal(got, 2 * 65536);
        assert_int_equal(userns_ranges_take(&r, &got), 0);
        assert_int_equal(got, 4 * 65536);
        /* not a slot's start, the host's own slot, past the last slot */
        assert_int_equal(userns_ranges_record(&r, 65537), -EINVAL);
        assert_int_equal(userns_ranges_record(&r, 0), -EINVAL);
        assert_int_equal(userns_ranges_record(&r, 65535U * 65536U), -EINVAL);
        assert_int_equal(userns_ranges_record(&r, 65534U * 65536U), 0);
        /* releasing what is no range changes nothing */
        userns_ranges_release(&r, 12345);
        assert_true(userns_ranges_taken(&r, 65536));
}

static void test_exhausted(void **state)
{
        struct userns_ranges *r = xcalloc(1, sizeof(*r));
        uint32_t got = 0, last = 0;

        (void) state;
        for (uint32_t i = 0; i < USERNS_SLOTS; i++) {
                assert_int_equal(userns_ranges_take(r, &got), 0);
                assert_true(got > last);
                last = got;
        }
        assert_int_equal(last, 65534U * 65536U);
        assert_int_equal(userns_ranges_take(r, &got), -ENOSPC);
        userns_ranges_release(r, 7 * 65536);
        assert_int_equal(userns_ranges_take(r, &got), 0);
        assert_int_equal(got, 7 * 65536);
        free(r);
}

static int tmpdir(char buf[static 64])
{
        (void) snprintf(buf, 64, "/tmp/test-userns-XXXXXX");
        assert_non_null(mkdtemp(buf));
        return open(buf, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

static void test_record_file(void **state)
{
        char dir[64], *text = NULL;
        struct error *err = NULL;
        uint32_t base = 0;
        size_t len;
        int dfd = tmpdir(dir);

        (void) state;
        assert_int_equal(userns_record_read(dfd, &base, &err), 0); /* none yet */
        assert_int_equal(userns_record_write(dfd, 5 * 65536, &err), 0);
        assert_int_equal(userns_record_read(dfd, &base, &err), 1);
        assert_int_equal(base, 5 * 65536);
        /* upstream's format, so a record reads the same to anyone who knows the kubelet's */
        assert_int_equal(fs_read_file_at(dfd, USERNS_FILE, 4096, &text, &len), 0);
        assert_non_null(strstr(text, "\"uidMappings\":[{\"hostId\":327680,\"containerId\":0,"
                                     "\"length\":65536}]"));
        assert_non_null(strstr(text, "\"gidMappings\""));
        free(text);
        (void) fs_remove_tree(dir);
        close(dfd);
}

static void test_record_refused(void **state)
{
        static const struct {
                const char *text, *message;
        } cases[] = {
                { "{\"uidMappings\":[],\"gidMappings\":[]}",
                  "user namespace: invalid user namespace mappings file" },
                { "not json", NULL },
                { "{\"uidMappings\":[{\"hostId\":65536,\"containerId\":0,\"length\":65536}],"
                  "\"gidMappings\":[{\"hostId\":131072,\"containerId\":0,\"length\":65536}]}",
                  "user namespace: invalid user namespace configuration: GID and UID mapping "
                  "should be identical" },
                { "{\"uidMappings\":[{\"hostId\":65536,\"containerId\":1,\"length\":65536}],"
                  "\"gidMappings\":[{\"hostId\":65536,\"containerId\":1,\"length\":65536}]}",
                  "user namespace: invalid user namespace configuration: UID 0 must be mapped" },
                { "{\"uidMappings\":[{\"hostId\":65536,\"containerId\":0,\"length\":1000}],"
                  "\"gidMappings\":[{\"hostId\":65536,\"containerId\":0,\"length\":1000}]}",
                  "user namespace: wrong user namespace length 1000" },
                { "{\"uidMappings\":[{\"hostId\":0,\"containerId\":0,\"length\":65536}],"
                  "\"gidMappings\":[{\"hostId\":0,\"containerId\":0,\"length\":65536}]}",
                  "user namespace: wrong user namespace offset specified 0" },
        };
        char dir[64];
        int dfd = tmpdir(dir);

        (void) state;
        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                struct error *err = NULL;
                uint32_t base = 0;

                assert_int_equal(fs_write_file_atomic(dfd, USERNS_FILE, cases[i].text,
                                                      strlen(cases[i].text)),
                                 0);
                assert_int_equal(userns_record_read(dfd, &base, &err), -EBADMSG);
                assert_int_equal(base, 0);
                if (cases[i].message)
                        assert_string_equal(err->message, cases[i].message);
                error_free(err);
        }
        (void) fs_remove_tree(dir);
        close(dfd);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_take_in_order),  cmocka_unit_test(test_record),
                cmocka_unit_test(test_exhausted),      cmocka_unit_test(test_record_file),
                cmocka_unit_test(test_record_refused),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
