/* test-atomic-writer.c: the kubelet's AtomicWriter over a temporary directory: upstream's path
 * validation and its messages (a table), the layout (a timestamped directory, "..data", the
 * top-level symlinks), modes, an unchanged payload written again is no write, a changed one
 * swaps "..data" and removes the old data and the paths no longer there, nested paths, the
 * setPerms hook running before the swap, a failed write leaving the old payload, and what a
 * crash between two steps leaves (a timestamped directory not pointed to, "..data_tmp")
 * removed by the next write, and a file with an owner (a projected token's FsUser). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "node/volume/atomic-writer.h"

struct fixture {
        char dir[64];
        int fd;
};

static int rm_entry(const char *p, const struct stat *st, int type, struct FTW *ftw)
{
        return remove(p) < 0 && errno != ENOENT ? -1 : 0;
}

static int fixture_setup(void **state)
{
        struct fixture *f = xcalloc(1, sizeof(*f));

        snprintf(f->dir, sizeof(f->dir), "/tmp/test-atomic-writer-XXXXXX");
        assert_non_null(mkdtemp(f->dir));
        f->fd = open(f->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(f->fd >= 0);
        *state = f;
        return 0;
}

static int fixture_teardown(void **state)
{
        struct fixture *f = *state;

        close(f->fd);
        (void) nftw(f->dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        free(f);
        return 0;
}

/* The content of the file at rel below the fixture's directory (followed through the links),
 * or NULL. */
static char *read_at(const struct fixture *f, const char *rel)
{
        cleanup_free char *path = xasprintf("%s/%s", f->dir, rel);
        char buf[256];
        ssize_t n;
        int fd = open(path, O_RDONLY | O_CLOEXEC);

        if (fd < 0)
                return NULL;
        n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        if (n < 0)
                return NULL;
        buf[n] = '\0';
        return xstrdup(buf);
}

static char *link_at(const struct fixture *f, const char *rel)
{
        char buf[256];
        ssize_t n = readlinkat(f->fd, rel, buf, sizeof(buf) - 1);

        if (n < 0)
                return NULL;
        buf[n] = '\0';
        return xstrdup(buf);
}

/* The names in the fixture's directory starting with "..2" (timestamped directories). */
static int count_timestamped(const struct fixture *f)
{
        DIR *d = opendir(f->dir);
        struct dirent *e;
        int n = 0;

        assert_non_null(d);
        while ((e = readdir(d)))
                n += strncmp(e->d_name, "..2", 3) == 0;
        closedir(d);
        return n;
}

static void add(struct atomic_payload *p, const char *path, const char *data, mode_t mode)
{
        assert_int_equal(atomic_payload_add(p, path, data, strlen(data), mode, NULL), 0);
}

static void test_validate(void **state)
{
        static const struct {
                const char *path;
                const char *message; /* NULL: valid */
        } cases[] = {
                { "key", NULL },
                { "a/b/c", NULL },
                { "a..b", NULL },
                { "..", "invalid path: must not contain '..': .." },
                { "a/../b", "invalid path: must not contain '..': a/../b" },
                { "../x", "invalid path: must not contain '..': ../x" },
                { "/etc/passwd", "invalid path: must be relative path: /etc/passwd" },
                { "", "invalid path: must not be empty: \"\"" },
                { "..data", "invalid path: must not start with '..': ..data" },
                { "..data/x", "invalid path: must not start with '..': ..data/x" },
                { "..2026_11_26_05_00_00.1/k",
                  "invalid path: must not start with '..': ..2026_11_26_05_00_00.1/k" },
                { "x/..data", NULL },
        };
        char long_name[300];

        (void) state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct error *err = NULL;
                int r = atomic_writer_validate_path(cases[i].path, &err);

                if (!cases[i].message) {
                        assert_int_equal(r, 0);
                        continue;
                }
                assert_int_equal(r, -EINVAL);
                assert_string_equal(err->message, cases[i].message);
                error_free(err);
        }
        memset(long_name, 'a', sizeof(long_name) - 1);
        long_name[sizeof(long_name) - 1] = '\0';
        {
                struct error *err = NULL;
                assert_int_equal(atomic_writer_validate_path(long_name, &err), -EINVAL);
                assert_string_equal(err->message, "invalid path: filenames must be less than or "
                                                  "equal to 255 characters");
                error_free(err);
        }
}

static void test_clean_and_replace(void **state)
{
        struct atomic_payload p = { 0 };
        struct error *err = NULL;

        (void) state;
        add(&p, "a//b/./c", "1", 0644);
        add(&p, "./k", "2", 0644);
        add(&p, "k", "3", 0400);
        assert_int_equal(p.n, 2);
        assert_string_equal(p.files[0].path, "a/b/c");
        assert_string_equal(p.files[1].path, "k");
        assert_string_equal(p.files[1].data, "3");
        assert_int_equal(p.files[1].mode, 0400);
        assert_int_equal(atomic_payload_add(&p, "./", "", 0, 0644, &err), -EINVAL);
        error_free(err);
        atomic_payload_release(&p);
}

static int perms_calls;
static int perms_saw_old; /* the hook ran while "..data" still pointed to the old payload */
static struct fixture *perms_fixture;

static int count_perms(void *ud, struct error **reterr)
{
        cleanup_free char *v = read_at(perms_fixture, "key");

        (void) ud;
        (void) reterr;
        perms_calls++;
        perms_saw_old += v && streq(v, "one");
        return 0;
}

static void test_layout_and_update(void **state)
{
        struct fixture *f = *state;
        struct atomic_payload p = { 0 };
        cleanup_free char *data1 = NULL, *data2 = NULL, *v = NULL, *nested = NULL, *l = NULL;
        struct stat st;
        char path[512];

        perms_fixture = f;
        perms_calls = perms_saw_old = 0;
        add(&p, "key", "one", 0644);
        add(&p, "secret", "s", 0400);
        add(&p, "dir/sub/file", "deep", 0600);
        assert_int_equal(atomic_writer_write(f->fd, &p, count_perms, NULL, NULL), 1);
        assert_int_equal(perms_calls, 1);

        data1 = link_at(f, "..data");
        assert_non_null(data1);
        assert_true(strncmp(data1, "..2", 3) == 0);
        l = link_at(f, "key");
        assert_string_equal(l, "..data/key");
        free(l);
        l = link_at(f, "dir");
        assert_string_equal(l, "..data/dir");
        v = read_at(f, "key");
        assert_string_equal(v, "one");
        nested = read_at(f, "dir/sub/file");
        assert_string_equal(nested, "deep");
        /* modes as given, whatever the umask; the directories 0755 */
        snprintf(path, sizeof(path), "%s/%s/secret", f->dir, data1);
        assert_int_equal(lstat(path, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0400);
        snprintf(path, sizeof(path), "%s/%s", f->dir, data1);
        assert_int_equal(lstat(path, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0755);
        snprintf(path, sizeof(path), "%s/%s/dir/sub", f->dir, data1);
        assert_int_equal(lstat(path, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0755);

        /* the same bytes again: no write, even with another mode (upstream compares content) */
        p.files[0].mode = 0600;
        assert_int_equal(atomic_writer_write(f->fd, &p, count_perms, NULL, NULL), 0);
        assert_int_equal(perms_calls, 1);
        data2 = link_at(f, "..data");
        assert_string_equal(data1, data2);
        free(data2);

        /* a new value and a path gone: a new directory, the old one and the link removed */
        atomic_payload_release(&p);
        add(&p, "key", "two", 0644);
        add(&p, "dir/sub/file", "deep", 0600);
        assert_int_equal(atomic_writer_write(f->fd, &p, count_perms, NULL, NULL), 1);
        assert_int_equal(perms_calls, 2);
        assert_int_equal(perms_saw_old, 1);
        data2 = link_at(f, "..data");
        assert_string_not_equal(data1, data2);
        free(v);
        v = read_at(f, "key");
        assert_string_equal(v, "two");
        assert_int_equal(faccessat(f->fd, "secret", F_OK, AT_SYMLINK_NOFOLLOW), -1);
        assert_int_equal(faccessat(f->fd, data1, F_OK, AT_SYMLINK_NOFOLLOW), -1);
        assert_int_equal(count_timestamped(f), 1);

        /* the only file below "dir" gone: the top-level link goes with it */
        atomic_payload_release(&p);
        add(&p, "key", "two", 0644);
        assert_int_equal(atomic_writer_write(f->fd, &p, NULL, NULL, NULL), 1);
        assert_int_equal(faccessat(f->fd, "dir", F_OK, AT_SYMLINK_NOFOLLOW), -1);
        assert_int_equal(count_timestamped(f), 1);

        /* an empty payload: "..data" to an empty directory, no visible names */
        atomic_payload_release(&p);
        assert_int_equal(atomic_writer_write(f->fd, &p, NULL, NULL, NULL), 1);
        assert_int_equal(faccessat(f->fd, "key", F_OK, AT_SYMLINK_NOFOLLOW), -1);
        assert_int_equal(faccessat(f->fd, "..data", F_OK, 0), 0);
        atomic_payload_release(&p);
}

static int failing_perms(void *ud, struct error **reterr)
{
        (void) ud;
        return error_set(reterr, EPERM, "set fsGroup ownership: refused");
}

static void test_failure_keeps_old(void **state)
{
        struct fixture *f = *state;
        struct atomic_payload p = { 0 };
        struct error *err = NULL;
        cleanup_free char *before = NULL, *after = NULL, *v = NULL;

        add(&p, "key", "one", 0644);
        assert_int_equal(atomic_writer_write(f->fd, &p, NULL, NULL, NULL), 1);
        before = link_at(f, "..data");
        atomic_payload_release(&p);
        add(&p, "key", "two", 0644);
        assert_int_equal(atomic_writer_write(f->fd, &p, failing_perms, NULL, &err), -EPERM);
        assert_string_equal(err->message, "set fsGroup ownership: refused");
        error_free(err);
        err = NULL;
        after = link_at(f, "..data");
        assert_string_equal(before, after);
        v = read_at(f, "key");
        assert_string_equal(v, "one");
        assert_int_equal(count_timestamped(f), 1);

        /* a file that is also a directory of another path cannot be written */
        atomic_payload_release(&p);
        add(&p, "a", "file", 0644);
        add(&p, "a/b", "under a file", 0644);
        assert_true(atomic_writer_write(f->fd, &p, NULL, NULL, &err) < 0);
        assert_non_null(strstr(err->message, "write volume payload: write \"a/b\""));
        error_free(err);
        free(v);
        v = read_at(f, "key");
        assert_string_equal(v, "one");
        assert_int_equal(count_timestamped(f), 1);
        atomic_payload_release(&p);
}

/* A crash after step 6 (the new directory written, "..data" not swapped) and after step 8
 * ("..data_tmp" made): the old payload is what is read, and the next write removes both. */
static void test_crash_leftovers(void **state)
{
        struct fixture *f = *state;
        struct atomic_payload p = { 0 };
        cleanup_free char *v = NULL, *cur = NULL;
        char leftover[] = "..2026_11_26_05_00_00.42";

        add(&p, "key", "one", 0644);
        assert_int_equal(atomic_writer_write(f->fd, &p, NULL, NULL, NULL), 1);
        assert_int_equal(mkdirat(f->fd, leftover, 0755), 0);
        {
                int fd = openat(f->fd, "..2026_11_26_05_00_00.42/key",
                                O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
                assert_true(fd >= 0);
                assert_int_equal(write(fd, "half", 4), 4);
                close(fd);
        }
        assert_int_equal(symlinkat(leftover, f->fd, "..data_tmp"), 0);
        v = read_at(f, "key");
        assert_string_equal(v, "one");
        assert_int_equal(count_timestamped(f), 2);

        /* the next write, even one with nothing new, cleans up */
        assert_int_equal(atomic_writer_write(f->fd, &p, NULL, NULL, NULL), 0);
        assert_int_equal(count_timestamped(f), 1);
        assert_int_equal(faccessat(f->fd, leftover, F_OK, AT_SYMLINK_NOFOLLOW), -1);
        assert_int_equal(faccessat(f->fd, "..data_tmp", F_OK, AT_SYMLINK_NOFOLLOW), -1);

        /* a crash after the swap (step 9) and before the old directory went (step 12) */
        atomic_payload_release(&p);
        add(&p, "key", "two", 0644);
        cur = link_at(f, "..data");
        assert_int_equal(mkdirat(f->fd, "..2026_11_26_05_00_01.7", 0755), 0);
        assert_int_equal(atomic_writer_write(f->fd, &p, NULL, NULL, NULL), 1);
        assert_int_equal(count_timestamped(f), 1);
        free(v);
        v = read_at(f, "key");
        assert_string_equal(v, "two");
        atomic_payload_release(&p);
}

/* "..data" pointing elsewhere than a timestamped directory of its own is refused, not
 * followed. */
static void test_foreign_data_link(void **state)
{
        struct fixture *f = *state;
        struct atomic_payload p = { 0 };
        struct error *err = NULL;

        assert_int_equal(symlinkat("/etc", f->fd, "..data"), 0);
        add(&p, "key", "one", 0644);
        assert_int_equal(atomic_writer_write(f->fd, &p, NULL, NULL, &err), -EUCLEAN);
        assert_non_null(strstr(err->message, "write volume payload: read \"..data\""));
        error_free(err);
        atomic_payload_release(&p);
}

/* K8S writePayloadToDir: a file with an FsUser is chowned to it (as root; otherwise only the
 * payload is checked), the others keep the writer's owner. */
static void test_owned_file(void **state)
{
        struct fixture *f = *state;
        struct atomic_payload p = { 0 };
        struct stat st;
        cleanup_free char *data = NULL;

        assert_int_equal(atomic_payload_add_owned(&p, "./token", "tok", 3, 0600, 1000, NULL), 0);
        add(&p, "ca.crt", "ca", 0644);
        assert_int_equal(p.n, 2);
        assert_true(p.files[0].owned);
        assert_int_equal(p.files[0].owner, 1000);
        assert_false(p.files[1].owned);
        if (geteuid() == 0) {
                assert_int_equal(atomic_writer_write(f->fd, &p, NULL, NULL, NULL), 1);
                assert_int_equal(fstatat(f->fd, "token", &st, 0), 0);
                assert_int_equal(st.st_uid, 1000);
                assert_int_equal(st.st_mode & 07777, 0600);
                assert_int_equal(fstatat(f->fd, "ca.crt", &st, 0), 0);
                assert_int_equal(st.st_uid, 0);
                data = read_at(f, "token");
                assert_string_equal(data, "tok");
        }
        atomic_payload_release(&p);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_validate),
                cmocka_unit_test(test_clean_and_replace),
                cmocka_unit_test_setup_teardown(test_layout_and_update, fixture_setup,
                                                fixture_teardown),
                cmocka_unit_test_setup_teardown(test_failure_keeps_old, fixture_setup,
                                                fixture_teardown),
                cmocka_unit_test_setup_teardown(test_crash_leftovers, fixture_setup,
                                                fixture_teardown),
                cmocka_unit_test_setup_teardown(test_owned_file, fixture_setup, fixture_teardown),
                cmocka_unit_test_setup_teardown(test_foreign_data_link, fixture_setup,
                                                fixture_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
