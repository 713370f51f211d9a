/* test-volume-ownership.c: the fsGroup walk (K8S SetVolumeOwnership) on a real temporary tree
 * (root only, to chown; skipped otherwise): group and modes of files, directories and the root,
 * setgid on directories, symbolic links changed themselves and never followed (a link to a file
 * outside the volume leaves that file as it was), a FIFO changed without being opened,
 * OnRootMismatch against Always, read-only masks, the depth bound. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "node/volume/ownership.h"

#define GID 2000

struct fixture {
        char dir[64];
        char *vol;     /* the volume */
        char *outside; /* a file beside it, as the host's files are */
};

static int rm_entry(const char *p, const struct stat *st, int type, struct FTW *ftw)
{
        return remove(p) < 0 && errno != ENOENT ? -1 : 0;
}

static void write_file(const char *path, mode_t mode)
{
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

        assert_true(fd >= 0);
        assert_int_equal(fchmod(fd, mode), 0);
        close(fd);
}

static int fixture_setup(void **state)
{
        struct fixture *f;

        if (geteuid() != 0) {
                *state = NULL;
                return 0;
        }
        f = xcalloc(1, sizeof(*f));
        strcpy(f->dir, "/tmp/flexlet-ownership-XXXXXX");
        if (!mkdtemp(f->dir)) {
                free(f);
                return -1;
        }
        f->vol = xasprintf("%s/vol", f->dir);
        f->outside = xasprintf("%s/host-file", f->dir);
        if (mkdir(f->vol, 0777) < 0 || chmod(f->vol, 0777) < 0)
                return -1;
        *state = f;
        return 0;
}

static int fixture_teardown(void **state)
{
        struct fixture *f = *state;

        if (!f)
                return 0;
        (void) nftw(f->dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        free(f->vol);
        free(f->outside);
        free(f);
        return 0;
}

#define SKIP_UNLESS_ROOT(f)                                         \
 do {                                                               \
  if (!(f)) {                                                       \
   print_message("# skipped: chown to another group needs root\n"); \
   skip();                                                          \
  }                                                                 \
 } while (0)

static struct stat lstat_of(const char *dir, const char *rel)
{
        char *p = xasprintf("%s/%s", dir, rel);
        struct stat st;

        assert_int_equal(lstat(p, &st), 0);
        free(p);
        return st;
}

static char *at(const struct fixture *f, const char *rel)
{
        return xasprintf("%s/%s", f->vol, rel);
}

static void test_walk(void **state)
{
        struct fixture *f = *state;
        char *p;
        struct stat st;

        SKIP_UNLESS_ROOT(f);
        write_file(f->outside, 0600);
        p = at(f, "d");
        assert_int_equal(mkdir(p, 0700), 0);
        free(p);
        p = at(f, "d/file");
        write_file(p, 0600);
        free(p);
        p = at(f, "exe");
        write_file(p, 0755);
        free(p);
        p = at(f, "d/link");
        assert_int_equal(symlink(f->outside, p), 0);
        free(p);
        p = at(f, "fifo");
        assert_int_equal(mkfifo(p, 0600), 0);
        free(p);

        assert_int_equal(volume_ownership_set(f->vol, GID, VOLUME_FSGROUP_ALWAYS, false, NULL), 1);

        st = lstat_of(f->vol, ".");
        assert_int_equal(st.st_gid, GID);
        assert_int_equal(st.st_mode & 07777, 02777);
        st = lstat_of(f->vol, "d");
        assert_int_equal(st.st_gid, GID);
        assert_int_equal(st.st_mode & 07777, 02770); /* 0700 | rw | x for the group, setgid */
        st = lstat_of(f->vol, "d/file");
        assert_int_equal(st.st_gid, GID);
        assert_int_equal(st.st_mode & 07777, 0660); /* files get no x (K8S: execMask is dirs') */
        st = lstat_of(f->vol, "exe");
        assert_int_equal(st.st_mode & 07777, 0775);
        st = lstat_of(f->vol, "fifo");
        assert_int_equal(st.st_gid, GID);
        assert_int_equal(st.st_mode & 07777, 0660);
        /* the link itself got the group; what it points at outside the volume did not */
        st = lstat_of(f->vol, "d/link");
        assert_true(S_ISLNK(st.st_mode));
        assert_int_equal(st.st_gid, GID);
        assert_int_equal(lstat(f->outside, &st), 0);
        assert_int_equal(st.st_gid, 0);
        assert_int_equal(st.st_mode & 07777, 0600);
}

static void test_policy(void **state)
{
        struct fixture *f = *state;
        char *file = NULL;
        struct stat st;

        SKIP_UNLESS_ROOT(f);
        file = at(f, "f");
        write_file(file, 0600);
        assert_true(volume_ownership_needed(f->vol, GID, false));
        assert_int_equal(
                volume_ownership_set(f->vol, GID, VOLUME_FSGROUP_ON_ROOT_MISMATCH, false, NULL), 1);
        assert_false(volume_ownership_needed(f->vol, GID, false));
        /* a file changed since: OnRootMismatch looks at the root only and leaves it */
        assert_int_equal(chown(file, (uid_t) -1, 0), 0);
        assert_int_equal(
                volume_ownership_set(f->vol, GID, VOLUME_FSGROUP_ON_ROOT_MISMATCH, false, NULL), 0);
        assert_int_equal(lstat(file, &st), 0);
        assert_int_equal(st.st_gid, 0);
        /* Always walks again */
        assert_int_equal(volume_ownership_set(f->vol, GID, VOLUME_FSGROUP_ALWAYS, false, NULL), 1);
        assert_int_equal(lstat(file, &st), 0);
        assert_int_equal(st.st_gid, GID);
        /* another fsGroup is a root mismatch */
        assert_true(volume_ownership_needed(f->vol, GID + 1, false));
        assert_int_equal(
                volume_ownership_set(f->vol, GID + 1, VOLUME_FSGROUP_ON_ROOT_MISMATCH, false, NULL),
                1);
        assert_int_equal(lstat(file, &st), 0);
        assert_int_equal(st.st_gid, GID + 1);
        free(file);
}

static void test_read_only(void **state)
{
        struct fixture *f = *state;
        char *file = NULL;
        struct stat st;

        SKIP_UNLESS_ROOT(f);
        assert_int_equal(chmod(f->vol, 0700), 0);
        file = at(f, "f");
        write_file(file, 0600);
        assert_int_equal(volume_ownership_set(f->vol, GID, VOLUME_FSGROUP_ALWAYS, true, NULL), 1);
        assert_int_equal(lstat(file, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0640);
        assert_int_equal(lstat(f->vol, &st), 0);
        assert_int_equal(st.st_mode & 07777, 02750);
        assert_false(volume_ownership_needed(f->vol, GID, true));
        assert_true(volume_ownership_needed(f->vol, GID, false)); /* no group w */
        free(file);
}

static void test_refusals(void **state)
{
        struct fixture *f = *state;
        struct error *err = NULL;
        char *link = NULL;
        int fd;

        SKIP_UNLESS_ROOT(f);
        /* the volume itself a symbolic link: not followed */
        link = xasprintf("%s/vol-link", f->dir);
        assert_int_equal(symlink(f->vol, link), 0);
        assert_int_equal(volume_ownership_set(link, GID, VOLUME_FSGROUP_ALWAYS, false, &err),
                         -ENOTDIR);
        assert_non_null(strstr(err->message, "set fsGroup ownership of"));
        error_free(err);
        err = NULL;
        free(link);

        /* deeper than the bound: -ELOOP naming the entry, the rest still changed */
        fd = open(f->vol, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(fd >= 0);
        for (int i = 0; i <= VOLUME_OWNERSHIP_MAX_DEPTH; i++) {
                int sub;

                assert_int_equal(mkdirat(fd, "n", 0755), 0);
                sub = openat(fd, "n", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                assert_true(sub >= 0);
                close(fd);
                fd = sub;
        }
        close(fd);
        assert_int_equal(volume_ownership_set(f->vol, GID, VOLUME_FSGROUP_ALWAYS, false, &err),
                         -ELOOP);
        assert_non_null(strstr(err->message, "\"n\": Too many levels of symbolic links"));
        error_free(err);
        assert_int_equal(lstat_of(f->vol, "n").st_gid, GID);
        assert_int_equal(lstat_of(f->vol, ".").st_gid, GID);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_walk, fixture_setup, fixture_teardown),
                cmocka_unit_test_setup_teardown(test_policy, fixture_setup, fixture_teardown),
                cmocka_unit_test_setup_teardown(test_read_only, fixture_setup, fixture_teardown),
                cmocka_unit_test_setup_teardown(test_refusals, fixture_setup, fixture_teardown),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
