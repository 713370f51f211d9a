/* test-emptydir-mount.c: memory emptyDir volumes on real tmpfs mounts (root only; skipped
 * otherwise): setup with the KEP-1967 size, KEP-6030 resize by remount keeping the files, the
 * refusal of a shrink below usage, and teardown, including a busy and a stacked mount. Every test
 * works in its own temporary folder, which the fixture unmounts and removes even on failure. */
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
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "base/alloc.h"
#include "node/volume/emptydir.h"
#include "node/volume/ownership.h"

#define MI      ((int64_t) 1024 * 1024)
#define N_FILES 40

struct fixture {
        char dir[64];
        char *vol;      /* a volume folder whose name has a space: mountinfo escapes it as \040 */
        char *extra[4]; /* more mount points a test made */
        size_t n_extra;
};

static int rm_entry(const char *p, const struct stat *st, int type, struct FTW *ftw)
{
        return remove(p) < 0 && errno != ENOENT ? -1 : 0;
}

/* Unmounts everything at p, however many are stacked, without the code under test. */
static void unmount_all(const char *p)
{
        for (int i = 0; i < 16; i++) {
                if (umount2(p, MNT_DETACH) < 0)
                        break;
        }
}

static int fixture_setup(void **state)
{
        struct fixture *f;

        if (geteuid() != 0) {
                *state = NULL;
                return 0;
        }
        f = xcalloc(1, sizeof(*f));
        strcpy(f->dir, "/tmp/flexlet-emptydir-mount-XXXXXX");
        if (!mkdtemp(f->dir)) {
                free(f);
                return -1;
        }
        f->vol = xasprintf("%s/pods/u1/volumes/kubernetes.io~empty-dir/cache vol", f->dir);
        *state = f;
        return 0;
}

static int fixture_teardown(void **state)
{
        struct fixture *f = *state;

        if (!f)
                return 0;
        for (size_t i = f->n_extra; i-- > 0;) {
                unmount_all(f->extra[i]);
                free(f->extra[i]);
        }
        unmount_all(f->vol);
        (void) nftw(f->dir, rm_entry, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
        free(f->vol);
        free(f);
        return 0;
}

#define REQUIRE_ROOT(f)                                                                   \
 do {                                                                                     \
  if (!(f)) {                                                                             \
   print_message("skipped: mounting tmpfs needs root (euid %u)\n", (unsigned) geteuid()); \
   skip();                                                                                \
  }                                                                                       \
 } while (0)

static uint64_t mount_id_of(const char *p)
{
        struct statx stx;

        assert_int_equal(statx(AT_FDCWD, p, AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &stx), 0);
        assert_true(stx.stx_mask & STATX_MNT_ID);
        return stx.stx_mnt_id;
}

/* How many mounts /proc/self/mountinfo lists at the escaped mount point. */
static int mounts_listed(const char *escaped)
{
        FILE *m = fopen("/proc/self/mountinfo", "re");
        char *line = NULL;
        size_t cap = 0;
        int n = 0;

        assert_non_null(m);
        while (getline(&line, &cap, m) >= 0) {
                char field[4096];

                /* the fifth field is the mount point */
                if (sscanf(line, "%*s %*s %*s %*s %4095s", field) == 1 && streq(field, escaped))
                        n++;
        }
        free(line);
        fclose(m);
        return n;
}

static char *escaped_vol(const struct fixture *f)
{
        return xasprintf("%s/pods/u1/volumes/kubernetes.io~empty-dir/cache\\040vol", f->dir);
}

/* File i of the test's data: 1 MiB of bytes from a generator seeded by i. */
static void fill(unsigned int i, unsigned char *buf, size_t n)
{
        uint32_t x = 2654435761u * (i + 1);

        for (size_t k = 0; k < n; k++) {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                buf[k] = (unsigned char) x;
        }
}

static uint64_t fnv1a(const unsigned char *p, size_t n)
{
        uint64_t h = 14695981039346656037ULL;

        for (size_t k = 0; k < n; k++) {
                h ^= p[k];
                h *= 1099511628211ULL;
        }
        return h;
}

static char *file_path(const struct fixture *f, unsigned int i)
{
        return xasprintf("%s/file-%02u", f->vol, i);
}

static uint64_t write_data(const struct fixture *f, unsigned int i)
{
        unsigned char *buf = xmalloc(MI);
        char *p = file_path(f, i);
        int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        uint64_t h;

        assert_true(fd >= 0);
        fill(i, buf, MI);
        assert_int_equal(write(fd, buf, MI), MI);
        close(fd);
        h = fnv1a(buf, MI);
        free(buf);
        free(p);
        return h;
}

static uint64_t read_sum(const struct fixture *f, unsigned int i)
{
        unsigned char *buf = xmalloc(MI + 1);
        char *p = file_path(f, i);
        int fd = open(p, O_RDONLY | O_CLOEXEC);
        ssize_t n;
        uint64_t h;

        assert_true(fd >= 0);
        n = read(fd, buf, MI + 1);
        assert_int_equal(n, MI);
        close(fd);
        h = fnv1a(buf, MI);
        free(buf);
        free(p);
        return h;
}

static void check_files(const struct fixture *f, const uint64_t *sums, unsigned int from,
                        unsigned int to)
{
        for (unsigned int i = from; i < to; i++) {
                if (read_sum(f, i) != sums[i])
                        fail_msg("file %u changed", i);
        }
}

static void check_size(const char *vol, int64_t want_size, int64_t want_used)
{
        struct error *err = NULL;
        int64_t size = -1, used = -1;

        assert_int_equal(emptydir_size(vol, &size, &used, &err), 0);
        assert_int_equal(size, want_size);
        assert_int_equal(used, want_used);
}

static void check_flags(const char *vol)
{
        struct statvfs sv;

        assert_int_equal(statvfs(vol, &sv), 0);
        assert_true(sv.f_flag & ST_NOSUID);
        assert_true(sv.f_flag & ST_NODEV);
        assert_false(sv.f_flag & ST_RDONLY);
}

/* The scenario of KEP-6030's test plan on one volume. */
static void test_lifecycle(void **state)
{
        struct fixture *f = *state;
        cleanup_free char *esc = NULL, *want = NULL;
        struct error *err = NULL;
        uint64_t sums[N_FILES], id;
        struct stat st;

        REQUIRE_ROOT(f);
        esc = escaped_vol(f);

        /* KEP-1967: node 16Gi, pod limit 64Mi, no sizeLimit */
        assert_int_equal(emptydir_setup(f->vol, EMPTYDIR_MEDIUM_MEMORY,
                                        emptydir_memory_size(16384 * MI, 64 * MI, NULL), &err),
                         0);
        assert_true(emptydir_is_tmpfs_mount(f->vol));
        assert_int_equal(mounts_listed(esc), 1);
        check_size(f->vol, 67108864, 0);
        check_flags(f->vol);
        assert_int_equal(stat(f->vol, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0777);
        id = mount_id_of(f->vol);

        /* idempotent: the same mount, not a second one */
        assert_int_equal(emptydir_setup(f->vol, EMPTYDIR_MEDIUM_MEMORY, 64 * MI, &err), 0);
        assert_int_equal(mounts_listed(esc), 1);
        assert_int_equal(mount_id_of(f->vol), id);

        for (unsigned int i = 0; i < N_FILES; i++)
                sums[i] = write_data(f, i);
        check_size(f->vol, 64 * MI, 40 * MI);

        /* KEP-6030: grow, files kept, same mount, same flags */
        assert_int_equal(emptydir_resize(f->vol, 128 * MI, &err), 0);
        check_size(f->vol, 134217728, 40 * MI);
        check_files(f, sums, 0, N_FILES);
        assert_int_equal(mount_id_of(f->vol), id);
        assert_int_equal(mounts_listed(esc), 1);
        check_flags(f->vol);

        /* shrink below usage: refused with what is in use, nothing changed */
        assert_int_equal(emptydir_resize(f->vol, 32 * MI, &err), -ENOSPC);
        want = xasprintf("resize emptyDir volume \"%s\" to 33554432 bytes: 41943040 bytes in use",
                         f->vol);
        assert_string_equal(err->message, want);
        assert_int_equal(err->errnum, ENOSPC);
        err = error_free(err);
        check_size(f->vol, 128 * MI, 40 * MI);
        check_files(f, sums, 0, N_FILES);

        /* after deleting files the shrink fits; what is left stays intact */
        for (unsigned int i = 10; i < N_FILES; i++) {
                char *p = file_path(f, i);
                assert_int_equal(unlink(p), 0);
                free(p);
        }
        assert_int_equal(emptydir_resize(f->vol, 32 * MI, &err), 0);
        check_size(f->vol, 33554432, 10 * MI);
        check_files(f, sums, 0, 10);
        assert_int_equal(mount_id_of(f->vol), id);

        /* setup with another size resizes (the KEP-6030 path after an agent restart) */
        assert_int_equal(emptydir_setup(f->vol, EMPTYDIR_MEDIUM_MEMORY, 48 * MI, &err), 0);
        check_size(f->vol, 50331648, 10 * MI);
        assert_int_equal(mount_id_of(f->vol), id);
        /* ...and a setup below usage fails as the resize does */
        assert_int_equal(emptydir_setup(f->vol, EMPTYDIR_MEDIUM_MEMORY, 5 * MI, &err), -ENOSPC);
        assert_non_null(strstr(err->message, ": 10485760 bytes in use"));
        err = error_free(err);
        /* size 0 (no size=) accepts the mount as it is */
        assert_int_equal(emptydir_setup(f->vol, EMPTYDIR_MEDIUM_MEMORY, 0, &err), 0);
        check_size(f->vol, 48 * MI, 10 * MI);

        assert_int_equal(emptydir_teardown(f->vol, &err), 0);
        assert_false(emptydir_is_tmpfs_mount(f->vol));
        assert_int_equal(mounts_listed(esc), 0);
        assert_int_equal(lstat(f->vol, &st), -1);
        assert_int_equal(errno, ENOENT);
        assert_int_equal(emptydir_teardown(f->vol, &err), 0);
}

/* fsGroup ownership (volume/ownership.h) survives the KEP-6030 remount: tmpfs takes the root's
 * mode, uid and gid from the options of the first mount only, and a remount passes size= only */
static void test_resize_keeps_ownership(void **state)
{
        struct fixture *f = *state;
        cleanup_free char *file = NULL;
        struct error *err = NULL;
        struct stat st;
        int fd;

        REQUIRE_ROOT(f);
        assert_int_equal(emptydir_setup(f->vol, EMPTYDIR_MEDIUM_MEMORY, 8 * MI, &err), 0);
        file = xasprintf("%s/f", f->vol);
        fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        assert_true(fd >= 0);
        close(fd);
        assert_int_equal(volume_ownership_set(f->vol, 2000, VOLUME_FSGROUP_ALWAYS, false, &err), 1);
        assert_int_equal(emptydir_resize(f->vol, 16 * MI, &err), 0);
        assert_int_equal(emptydir_resize(f->vol, 4 * MI, &err), 0);
        assert_int_equal(emptydir_setup(f->vol, EMPTYDIR_MEDIUM_MEMORY, 12 * MI, &err), 0);
        check_size(f->vol, 12 * MI, 0);
        assert_int_equal(stat(f->vol, &st), 0);
        assert_int_equal(st.st_gid, 2000);
        assert_int_equal(st.st_mode & 07777, 02777);
        assert_int_equal(stat(file, &st), 0);
        assert_int_equal(st.st_gid, 2000);
        assert_int_equal(st.st_mode & 07777, 0660);
        assert_false(volume_ownership_needed(f->vol, 2000, false));
        assert_int_equal(emptydir_teardown(f->vol, &err), 0);
}

static void test_unaligned_size(void **state)
{
        struct fixture *f = *state;
        struct error *err = NULL;

        REQUIRE_ROOT(f);
        /* the kernel rounds size= up to whole pages; the same request is still "the same" */
        assert_int_equal(emptydir_setup(f->vol, EMPTYDIR_MEDIUM_MEMORY, 1000, &err), 0);
        check_size(f->vol, sysconf(_SC_PAGESIZE), 0);
        assert_int_equal(emptydir_setup(f->vol, EMPTYDIR_MEDIUM_MEMORY, 1000, &err), 0);
        assert_int_equal(emptydir_resize(f->vol, 3 * MI + 1, &err), 0);
        check_size(f->vol, 3 * MI + sysconf(_SC_PAGESIZE), 0);
}

static void test_default_and_unlimited_size(void **state)
{
        struct fixture *f = *state;
        cleanup_free char *want = NULL;
        struct error *err = NULL;
        struct sysinfo si;
        int64_t page = sysconf(_SC_PAGESIZE), pages;

        REQUIRE_ROOT(f);
        /* no size= (size <= 0, as upstream): the kernel's default, half of RAM */
        assert_int_equal(emptydir_setup(f->vol, EMPTYDIR_MEDIUM_MEMORY, 0, &err), 0);
        assert_true(emptydir_is_tmpfs_mount(f->vol));
        assert_int_equal(sysinfo(&si), 0);
        pages = (int64_t) si.totalram * si.mem_unit / page;
        check_size(f->vol, pages / 2 * page, 0);
        assert_int_equal(emptydir_teardown(f->vol, &err), 0);

        /* a tmpfs someone mounted with size=0 has no limit and counts no blocks */
        assert_int_equal(emptydir_setup(f->vol, EMPTYDIR_MEDIUM_DISK, 0, &err), 0);
        assert_int_equal(mount("tmpfs", f->vol, "tmpfs", MS_NOSUID | MS_NODEV, "size=0"), 0);
        check_size(f->vol, 0, 0);
        /* the kernel refuses to limit it afterwards: its errno comes back */
        assert_int_equal(emptydir_resize(f->vol, 32 * MI, &err), -EINVAL);
        want = xasprintf("resize emptyDir volume \"%s\" to 33554432 bytes: remount: %s", f->vol,
                         strerror(EINVAL));
        assert_string_equal(err->message, want);
        err = error_free(err);
}

static void test_not_a_mount_point(void **state)
{
        struct fixture *f = *state;
        cleanup_free char *sub = NULL, *esc = NULL, *esc_sub = NULL;
        struct error *err = NULL;
        int64_t size, used;

        REQUIRE_ROOT(f);
        esc = escaped_vol(f);
        esc_sub = xasprintf("%s/sub", esc);
        assert_int_equal(emptydir_setup(f->vol, EMPTYDIR_MEDIUM_MEMORY, 8 * MI, &err), 0);
        /* a folder inside the tmpfs is on tmpfs but is not a tmpfs mount */
        sub = xasprintf("%s/sub", f->vol);
        assert_int_equal(mkdir(sub, 0755), 0);
        assert_false(emptydir_is_tmpfs_mount(sub));
        assert_int_equal(emptydir_size(sub, &size, &used, &err), -ENOENT);
        err = error_free(err);
        assert_int_equal(emptydir_resize(sub, 4 * MI, &err), -ENOENT);
        err = error_free(err);
        /* so a memory volume inside it gets a tmpfs of its own */
        assert_int_equal(emptydir_setup(sub, EMPTYDIR_MEDIUM_MEMORY, 4 * MI, &err), 0);
        f->extra[f->n_extra++] = xstrdup(sub);
        assert_true(emptydir_is_tmpfs_mount(sub));
        check_size(sub, 4 * MI, 0);
        check_size(f->vol, 8 * MI, 0);
        /* the outer volume's unmount is busy with the inner mount: the detach takes both */
        assert_int_equal(emptydir_teardown(f->vol, &err), 0);
        assert_false(emptydir_is_tmpfs_mount(f->vol));
        assert_int_equal(mounts_listed(esc), 0);
        assert_int_equal(mounts_listed(esc_sub), 0);
        assert_int_equal(access(f->vol, F_OK), -1);
}

static void test_teardown_busy(void **state)
{
        struct fixture *f = *state;
        cleanup_free char *p = NULL;
        struct error *err = NULL;
        char buf[6] = { 0 };
        int fd;

        REQUIRE_ROOT(f);
        assert_int_equal(emptydir_setup(f->vol, EMPTYDIR_MEDIUM_MEMORY, 8 * MI, &err), 0);
        p = xasprintf("%s/held", f->vol);
        fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, "hello", 5), 5);
        /* the open file keeps the mount busy: retried, then detached */
        assert_int_equal(emptydir_teardown(f->vol, &err), 0);
        assert_false(emptydir_is_tmpfs_mount(f->vol));
        assert_int_equal(access(f->vol, F_OK), -1);
        /* the holder still reads its file from the detached tmpfs */
        assert_int_equal(pread(fd, buf, 5, 0), 5);
        assert_string_equal(buf, "hello");
        close(fd);
}

static void test_teardown_stacked(void **state)
{
        struct fixture *f = *state;
        cleanup_free char *esc = NULL;
        struct error *err = NULL;

        REQUIRE_ROOT(f);
        esc = escaped_vol(f);
        assert_int_equal(emptydir_setup(f->vol, EMPTYDIR_MEDIUM_MEMORY, 8 * MI, &err), 0);
        assert_int_equal(mount("tmpfs", f->vol, "tmpfs", MS_NOSUID | MS_NODEV, "size=4m"), 0);
        assert_int_equal(mounts_listed(esc), 2);
        /* the top one is the one looked at */
        check_size(f->vol, 4 * MI, 0);
        assert_int_equal(emptydir_teardown(f->vol, &err), 0);
        assert_int_equal(mounts_listed(esc), 0);
        assert_int_equal(access(f->vol, F_OK), -1);
}

static void test_other_filesystem_at_path(void **state)
{
        struct fixture *f = *state;
        cleanup_free char *src = NULL, *keep = NULL;
        struct error *err = NULL;
        int fd;

        REQUIRE_ROOT(f);
        src = xasprintf("%s/src", f->dir);
        keep = xasprintf("%s/src/keep", f->dir);
        assert_int_equal(mkdir(src, 0755), 0);
        fd = open(keep, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        assert_true(fd >= 0);
        close(fd);
        assert_int_equal(emptydir_setup(f->vol, EMPTYDIR_MEDIUM_DISK, 0, &err), 0);
        assert_int_equal(mount(src, f->vol, NULL, MS_BIND, NULL), 0);
        /* a bind mount of the host's disk is neither hidden under a tmpfs nor emptied */
        assert_int_equal(emptydir_setup(f->vol, EMPTYDIR_MEDIUM_MEMORY, 8 * MI, &err), -EBUSY);
        assert_non_null(strstr(err->message, "filesystem is already mounted there"));
        err = error_free(err);
        assert_false(emptydir_is_tmpfs_mount(f->vol));
        assert_int_equal(emptydir_teardown(f->vol, &err), -EBUSY);
        err = error_free(err);
        assert_int_equal(access(keep, F_OK), 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_lifecycle, fixture_setup, fixture_teardown),
                cmocka_unit_test_setup_teardown(test_resize_keeps_ownership, fixture_setup,
                                                fixture_teardown),
                cmocka_unit_test_setup_teardown(test_unaligned_size, fixture_setup,
                                                fixture_teardown),
                cmocka_unit_test_setup_teardown(test_default_and_unlimited_size, fixture_setup,
                                                fixture_teardown),
                cmocka_unit_test_setup_teardown(test_not_a_mount_point, fixture_setup,
                                                fixture_teardown),
                cmocka_unit_test_setup_teardown(test_teardown_busy, fixture_setup,
                                                fixture_teardown),
                cmocka_unit_test_setup_teardown(test_teardown_stacked, fixture_setup,
                                                fixture_teardown),
                cmocka_unit_test_setup_teardown(test_other_filesystem_at_path, fixture_setup,
                                                fixture_teardown),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
