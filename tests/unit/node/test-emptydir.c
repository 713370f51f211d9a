/* test-emptydir.c: emptyDir volumes without tmpfs: the KEP-1967 size rule (upstream's
 * TestCalculateEmptyDirMemorySize), the mountinfo reader, disk directories (mode, disk usage as
 * the kubelet's du, removal that never follows a symlink) and, as root, that disk usage and
 * removal stop at mount points inside a volume. Real tmpfs mounts: test-emptydir-mount.c. */
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
#include <unistd.h>

#include "base/alloc.h"
#include "node/volume/emptydir.h"
#include "node/volume/volume-internal.h"

#define KI ((int64_t) 1024)
#define MI (KI * 1024)
#define GI (MI * 1024)

/* ---- KEP-1967 sizing ---- */

struct size_case {
        const char *name;
        int64_t node_allocatable;
        int64_t pod_limit; /* -1: no memory limit */
        const char *size_limit;
        int64_t want;
};

static const struct size_case size_cases[] = {
        /* upstream TestCalculateEmptyDirMemorySize */
        { "EmptyDirLocalLimit", 16 * GI, 10 * GI, "1Gi", 1073741824 },
        { "PodLocalLimit", 16 * GI, 10 * GI, "0", 10737418240 },
        { "NodeAllocatableLimit", 16 * GI, -1, "0", 17179869184 },
        /* the same rule around its edges */
        { "no sizeLimit at all", 16 * GI, 10 * GI, NULL, 10 * GI },
        { "requests only, no sizeLimit", 16 * GI, -1, NULL, 16 * GI },
        { "sizeLimit above the pod limit", 16 * GI, 10 * GI, "12Gi", 10 * GI },
        { "sizeLimit equal to the pod limit", 16 * GI, 10 * GI, "10Gi", 10 * GI },
        { "sizeLimit above node allocatable", 16 * GI, -1, "32Gi", 16 * GI },
        { "sizeLimit below, no pod limit", 16 * GI, -1, "100Mi", 100 * MI },
        { "pod limit above node allocatable", 16 * GI, 32 * GI, NULL, 16 * GI },
        { "pod limit zero is no limit", 16 * GI, 0, NULL, 16 * GI },
        { "negative sizeLimit ignored", 16 * GI, 10 * GI, "-1Gi", 10 * GI },
        { "decimal SI sizeLimit", 16 * GI, 10 * GI, "1G", 1000000000 },
        { "fractional sizeLimit rounds up", 16 * GI, 10 * GI, "0.5", 1 },
        { "milli sizeLimit rounds up", 16 * GI, 10 * GI, "1500m", 2 },
        { "unparsable sizeLimit ignored", 16 * GI, 10 * GI, "lots", 10 * GI },
        { "sizeLimit beyond int64 ignored", 16 * GI, 10 * GI, "100E", 10 * GI },
        { "zero node allocatable: no size=", 0, 10 * GI, "1Gi", 0 },
};

static void test_memory_size(void **state)
{
        for (size_t i = 0; i < sizeof(size_cases) / sizeof(size_cases[0]); i++) {
                const struct size_case *c = &size_cases[i];
                int64_t got =
                        emptydir_memory_size(c->node_allocatable, c->pod_limit, c->size_limit);

                if (got != c->want)
                        fail_msg("%s: got %lld, want %lld", c->name, (long long) got,
                                 (long long) c->want);
        }
}

static void test_medium_strings(void **state)
{
        enum emptydir_medium m = EMPTYDIR_MEDIUM_MAX;

        assert_int_equal(emptydir_medium_from_string("", &m), 0);
        assert_int_equal(m, EMPTYDIR_MEDIUM_DISK);
        assert_int_equal(emptydir_medium_from_string(NULL, &m), 0);
        assert_int_equal(m, EMPTYDIR_MEDIUM_DISK);
        assert_int_equal(emptydir_medium_from_string("Memory", &m), 0);
        assert_int_equal(m, EMPTYDIR_MEDIUM_MEMORY);
        assert_int_equal(emptydir_medium_from_string("memory", &m), -EINVAL);
        assert_int_equal(emptydir_medium_from_string("HugePages", &m), -EOPNOTSUPP);
        assert_int_equal(emptydir_medium_from_string("HugePages-2Mi", &m), -EOPNOTSUPP);
        assert_string_equal(emptydir_medium_to_string(EMPTYDIR_MEDIUM_MEMORY), "Memory");
        assert_string_equal(emptydir_medium_to_string(EMPTYDIR_MEDIUM_DISK), "");
        assert_null(emptydir_medium_to_string(EMPTYDIR_MEDIUM_MAX));
}

/* ---- mountinfo ---- */

struct unescape_case {
        const char *in;
        const char *want; /* NULL: -EINVAL */
};

static const struct unescape_case unescape_cases[] = {
        { "/plain", "/plain" },
        { "/var/lib/my\\040vol", "/var/lib/my vol" },
        { "/a\\011b\\012c\\134d", "/a\tb\nc\\d" },
        { "\\040\\040", "  " },
        { "/trailing\\", NULL },
        { "/short\\04", NULL },
        { "/not\\089octal", NULL },
        { "/nul\\000", NULL },
        { "/big\\777", NULL },
};

static void test_mountinfo_unescape(void **state)
{
        for (size_t i = 0; i < sizeof(unescape_cases) / sizeof(unescape_cases[0]); i++) {
                const struct unescape_case *c = &unescape_cases[i];
                char *out = NULL;
                int r = emptydir_mountinfo_unescape(c->in, strlen(c->in), &out);

                if (!c->want) {
                        if (r != -EINVAL)
                                fail_msg("\"%s\": got %d, want -EINVAL", c->in, r);
                        assert_null(out);
                        continue;
                }
                if (r != 0 || !streq(out, c->want))
                        fail_msg("\"%s\": got %d \"%s\", want \"%s\"", c->in, r, out ? out : "",
                                 c->want);
                free(out);
        }
}

static void test_mountinfo_parse_line(void **state)
{
        struct emptydir_mountinfo m;
        static const char *const bad[] = {
                "",
                "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 ext3 /dev/root rw",
                "36 35 98:0 /mnt1 /mnt2 rw - ext3 /dev/root",
                "36 35 980 /mnt1 /mnt2 rw - ext3 /dev/root rw",
                "x 35 98:0 /mnt1 /mnt2 rw - ext3 /dev/root rw",
                "-1 35 98:0 /mnt1 /mnt2 rw - ext3 /dev/root rw",
                "36 35 98:0 /mnt1 /mnt\\9 rw - ext3 /dev/root rw",
                "36 35 98:0 /mnt1 /mnt2 rw - ext3 /dev/root rw extra",
        };

        /* proc(5)'s example, with two optional fields */
        assert_int_equal(emptydir_mountinfo_parse_line("36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 "
                                                       "shared:7 - ext3 /dev/root "
                                                       "rw,errors=continue\n",
                                                       &m),
                         0);
        assert_int_equal(m.mount_id, 36);
        assert_int_equal(m.parent_id, 35);
        assert_int_equal(m.major, 98);
        assert_int_equal(m.minor, 0);
        assert_string_equal(m.root, "/mnt1");
        assert_string_equal(m.mount_point, "/mnt2");
        assert_string_equal(m.mount_options, "rw,noatime");
        assert_string_equal(m.fstype, "ext3");
        assert_string_equal(m.source, "/dev/root");
        assert_string_equal(m.super_options, "rw,errors=continue");
        emptydir_mountinfo_release(&m);

        /* no optional field; a volume folder with a space in its name */
        assert_int_equal(emptydir_mountinfo_parse_line(
                                 "1201 27 0:77 / /var/lib/flexlet/pods/u1/volumes/"
                                 "kubernetes.io~empty-dir/my\\040cache rw,nosuid,nodev,relatime - "
                                 "tmpfs tmpfs rw,size=65536k,mode=777",
                                 &m),
                         0);
        assert_string_equal(m.mount_point,
                            "/var/lib/flexlet/pods/u1/volumes/kubernetes.io~empty-dir/my cache");
        assert_string_equal(m.fstype, "tmpfs");
        assert_string_equal(m.super_options, "rw,size=65536k,mode=777");
        emptydir_mountinfo_release(&m);

        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                if (emptydir_mountinfo_parse_line(bad[i], &m) != -EINVAL)
                        fail_msg("accepted \"%s\"", bad[i]);
        }
}

static const char mountinfo_text[] =
        "22 27 0:21 / /proc rw,relatime - proc proc rw\n"
        "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
        "this line is not mountinfo\n"
        "40 27 0:40 / /v/my\\040vol rw,nosuid,nodev - tmpfs tmpfs rw,size=65536k,mode=777\n"
        "41 40 0:41 / /v/my\\040vol rw,nosuid,nodev - tmpfs tmpfs rw,size=131072k\n"
        "42 27 254:0 /data /v/bound rw - ext4 /dev/vda rw\n"
        "43 40 0:43 / /v/my\\040vol/sub rw - tmpfs tmpfs rw\n";

static int find_in_text(const char *mount_point, int mount_id, struct emptydir_mountinfo *ret)
{
        FILE *f = fmemopen((void *) mountinfo_text, sizeof(mountinfo_text) - 1, "r");
        int r;

        assert_non_null(f);
        r = emptydir_mountinfo_find(f, mount_point, mount_id, ret);
        fclose(f);
        return r;
}

static void test_mountinfo_find(void **state)
{
        struct emptydir_mountinfo m;

        /* stacked: the last one is on top */
        assert_int_equal(find_in_text("/v/my vol", -1, &m), 0);
        assert_int_equal(m.mount_id, 41);
        assert_string_equal(m.super_options, "rw,size=131072k");
        emptydir_mountinfo_release(&m);
        /* with the path's mount id, exactly that one */
        assert_int_equal(find_in_text("/v/my vol", 40, &m), 0);
        assert_int_equal(m.mount_id, 40);
        emptydir_mountinfo_release(&m);
        /* the escaped form is not a path */
        assert_int_equal(find_in_text("/v/my\\040vol", -1, &m), -ENOENT);
        /* a path below a mount is not a mount point, whatever its mount id says */
        assert_int_equal(find_in_text("/v/my vol/other", -1, &m), -ENOENT);
        assert_int_equal(find_in_text("/v/my vol/other", 41, &m), -ENOENT);
        assert_int_equal(find_in_text("/v/my", -1, &m), -ENOENT);
        assert_int_equal(find_in_text("/v/bound", -1, &m), 0);
        assert_string_equal(m.fstype, "ext4");
        assert_string_equal(m.root, "/data");
        emptydir_mountinfo_release(&m);
        assert_int_equal(find_in_text("/", -1, &m), 0);
        assert_int_equal(m.mount_id, 27);
        emptydir_mountinfo_release(&m);
}

static void test_is_tmpfs_mount_plain_paths(void **state)
{
        assert_false(emptydir_is_tmpfs_mount("/"));
        assert_false(emptydir_is_tmpfs_mount("/nonexistent/flexlet/path"));
        assert_false(emptydir_is_tmpfs_mount(NULL));
}

/* ---- disk volumes ---- */

struct tmp {
        char dir[64];
        char outside[64]; /* a sibling the volume's symlinks point into */
        char *mounts[4];  /* mounted by a root test; unmounted by the fixture */
        size_t n_mounts;
};

static int rm_entry(const char *p, const struct stat *st, int type, struct FTW *ftw)
{
        return remove(p) < 0 && errno != ENOENT ? -1 : 0;
}

static void rm_rf(const char *p)
{
        (void) nftw(p, rm_entry, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

static int tmp_setup(void **state)
{
        struct tmp *t = xcalloc(1, sizeof(*t));

        strcpy(t->dir, "/tmp/flexlet-emptydir-XXXXXX");
        strcpy(t->outside, "/tmp/flexlet-outside-XXXXXX");
        if (!mkdtemp(t->dir) || !mkdtemp(t->outside)) {
                free(t);
                return -1;
        }
        *state = t;
        return 0;
}

static int tmp_teardown(void **state)
{
        struct tmp *t = *state;

        for (size_t i = t->n_mounts; i-- > 0;) {
                (void) umount2(t->mounts[i], MNT_DETACH);
                free(t->mounts[i]);
        }
        rm_rf(t->dir);
        rm_rf(t->outside);
        free(t);
        return 0;
}

static char *path_in(const char *dir, const char *name)
{
        return xasprintf("%s/%s", dir, name);
}

/* Writes size bytes of a pattern to path; returns its st_blocks * 512. */
static int64_t write_file(const char *path, size_t size)
{
        char buf[4096];
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        struct stat st;

        assert_true(fd >= 0);
        for (size_t i = 0; i < sizeof(buf); i++)
                buf[i] = (char) (i * 31 + 7);
        for (size_t done = 0; done < size;) {
                size_t n = size - done < sizeof(buf) ? size - done : sizeof(buf);
                assert_int_equal(write(fd, buf, n), (ssize_t) n);
                done += n;
        }
        assert_int_equal(fsync(fd), 0);
        assert_int_equal(fstat(fd, &st), 0);
        close(fd);
        return (int64_t) st.st_blocks * 512;
}

static int64_t blocks_of(const char *path)
{
        struct stat st;

        assert_int_equal(lstat(path, &st), 0);
        return (int64_t) st.st_blocks * 512;
}

static void test_setup_disk(void **state)
{
        struct tmp *t = *state;
        cleanup_free char *vol = path_in(t->dir, "pods/u1/volumes/kubernetes.io~empty-dir/cache");
        cleanup_free char *link = path_in(t->dir, "link");
        cleanup_free char *inside = path_in(vol, "file");
        struct error *err = NULL;
        struct stat st;
        mode_t old = umask(077);

        /* K8S: 0777 despite the umask (setupDir chmods) */
        assert_int_equal(emptydir_setup(vol, EMPTYDIR_MEDIUM_DISK, 0, &err), 0);
        assert_int_equal(stat(vol, &st), 0);
        assert_true(S_ISDIR(st.st_mode));
        assert_int_equal(st.st_mode & 07777, 0777);
        /* idempotent: contents kept, mode put back */
        write_file(inside, 1);
        assert_int_equal(chmod(vol, 0700), 0);
        assert_int_equal(emptydir_setup(vol, EMPTYDIR_MEDIUM_DISK, 0, &err), 0);
        assert_int_equal(stat(vol, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0777);
        assert_int_equal(stat(inside, &st), 0);
        umask(old);

        /* the final component must be a directory, never a symlink */
        assert_int_equal(symlink(t->outside, link), 0);
        assert_int_equal(emptydir_setup(link, EMPTYDIR_MEDIUM_DISK, 0, &err), -ENOTDIR);
        assert_non_null(strstr(err->message, "set up emptyDir volume \""));
        assert_non_null(strstr(err->message, "\": not a directory"));
        err = error_free(err);
        assert_int_equal(emptydir_setup("relative/path", EMPTYDIR_MEDIUM_DISK, 0, &err), -EINVAL);
        err = error_free(err);
}

static void test_not_mounted(void **state)
{
        struct tmp *t = *state;
        cleanup_free char *want = NULL;
        struct error *err = NULL;
        int64_t size = -1, used = -1;

        assert_false(emptydir_is_tmpfs_mount(t->dir));
        assert_int_equal(emptydir_size(t->dir, &size, &used, &err), -ENOENT);
        assert_int_equal(size, -1); /* untouched on failure */
        want = xasprintf("measure emptyDir volume \"%s\": no tmpfs is mounted there", t->dir);
        assert_string_equal(err->message, want);
        err = error_free(err);
        free(want);
        assert_int_equal(emptydir_resize(t->dir, 64 * MI, &err), -ENOENT);
        want = xasprintf("resize emptyDir volume \"%s\": volume is not yet mounted", t->dir);
        assert_string_equal(err->message, want);
        err = error_free(err);
        free(want);
        /* K8S: ResizeEphemeralVolume: a zero size is the removal of the limit */
        assert_int_equal(emptydir_resize(t->dir, 0, &err), -EINVAL);
        want = xasprintf(
                "resize emptyDir volume \"%s\": addition or removal of size limit is not supported",
                t->dir);
        assert_string_equal(err->message, want);
        err = error_free(err);
}

static void test_disk_usage(void **state)
{
        struct tmp *t = *state;
        cleanup_free char *vol = path_in(t->dir, "vol");
        cleanup_free char *file = path_in(vol, "data");
        cleanup_free char *hard = NULL, *sub = NULL, *hard2 = NULL, *lnk = NULL, *big = NULL;
        cleanup_free char *small = NULL;
        struct error *err = NULL;
        int64_t got = -1, want, fblocks;

        assert_int_equal(emptydir_setup(vol, EMPTYDIR_MEDIUM_DISK, 0, &err), 0);
        assert_int_equal(emptydir_disk_usage(vol, &got, &err), 0);
        assert_int_equal(got, blocks_of(vol)); /* the directory itself, as du */

        fblocks = write_file(file, 1024 * 1024);
        assert_true(fblocks >= 1024 * 1024);
        sub = path_in(vol, "sub");
        assert_int_equal(mkdir(sub, 0755), 0);
        hard = path_in(vol, "data-link");
        hard2 = path_in(sub, "data-link-2");
        assert_int_equal(link(file, hard), 0);
        assert_int_equal(link(file, hard2), 0);
        /* a symlink to a big file outside: the link counts as itself only */
        big = path_in(t->outside, "big");
        assert_true(write_file(big, 4 * 1024 * 1024) >= 4 * 1024 * 1024);
        lnk = path_in(vol, "to-big");
        assert_int_equal(symlink(big, lnk), 0);
        small = path_in(sub, "small");
        write_file(small, 10000);

        want = blocks_of(vol) + fblocks + blocks_of(sub) + blocks_of(lnk) + blocks_of(small);
        assert_int_equal(emptydir_disk_usage(vol, &got, &err), 0);
        assert_int_equal(got, want);
        assert_true(got < 2 * fblocks); /* the three links of data counted once */

        /* a symlink as the volume itself is not followed */
        assert_int_equal(emptydir_disk_usage(lnk, &got, &err), -ENOTDIR);
        err = error_free(err);
        got = -1;
        assert_int_equal(emptydir_disk_usage(t->outside, &got, &err), 0);
        assert_int_equal(got, blocks_of(t->outside) + blocks_of(big));
        free(vol);
        vol = path_in(t->dir, "missing");
        assert_int_equal(emptydir_disk_usage(vol, &got, &err), -ENOENT);
        assert_non_null(strstr(err->message, "measure disk usage of emptyDir volume \""));
        err = error_free(err);
}

/* Makes a chain of n nested directories "d/d/d/..." under top with a file at the bottom. */
static void make_chain(const char *top, int n)
{
        int fd = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC), f;

        assert_true(fd >= 0);
        for (int i = 0; i < n; i++) {
                int next;

                assert_int_equal(mkdirat(fd, "d", 0755), 0);
                next = openat(fd, "d", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                assert_true(next >= 0);
                close(fd);
                fd = next;
        }
        f = openat(fd, "bottom", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        assert_true(f >= 0);
        assert_int_equal(write(f, "x", 1), 1);
        close(f);
        close(fd);
}

static void test_disk_usage_depth_cap(void **state)
{
        struct tmp *t = *state;
        cleanup_free char *vol = path_in(t->dir, "deep");
        struct error *err = NULL;
        int64_t shallow = -1, deep = -1;

        assert_int_equal(mkdir(vol, 0755), 0);
        make_chain(vol, EMPTYDIR_DU_MAX_DEPTH - 2);
        assert_int_equal(emptydir_disk_usage(vol, &shallow, &err), 0);
        assert_true(shallow > 0);
        assert_int_equal(emptydir_teardown(vol, &err), 0);
        assert_int_equal(mkdir(vol, 0755), 0);
        make_chain(vol, EMPTYDIR_DU_MAX_DEPTH + 20);
        /* past the cap: a lower bound, said so */
        assert_int_equal(emptydir_disk_usage(vol, &deep, &err), 1);
        assert_true(deep >= shallow);
}

static void test_teardown_disk(void **state)
{
        struct tmp *t = *state;
        cleanup_free char *vol = path_in(t->dir, "vol");
        cleanup_free char *keep = path_in(t->outside, "keep");
        cleanup_free char *keepdir = path_in(t->outside, "keepdir");
        cleanup_free char *keepdir_file = path_in(t->outside, "keepdir/file");
        cleanup_free char *p = NULL;
        struct error *err = NULL;
        struct stat st;

        assert_int_equal(emptydir_setup(vol, EMPTYDIR_MEDIUM_DISK, 0, &err), 0);
        write_file(keep, 100);
        assert_int_equal(mkdir(keepdir, 0755), 0);
        write_file(keepdir_file, 100);
        p = path_in(vol, "a");
        assert_int_equal(mkdir(p, 0755), 0);
        free(p);
        p = path_in(vol, "a/file");
        write_file(p, 5000);
        free(p);
        /* symlinks out of the volume: removed as links, targets untouched */
        p = path_in(vol, "a/to-keep");
        assert_int_equal(symlink(keep, p), 0);
        free(p);
        p = path_in(vol, "to-keepdir");
        assert_int_equal(symlink(keepdir, p), 0);
        free(p);
        p = path_in(vol, "hard");
        assert_int_equal(link(keep, p), 0);
        free(p);
        /* far deeper than the walk's fd budget: moved up, then removed */
        p = path_in(vol, "deep");
        assert_int_equal(mkdir(p, 0755), 0);
        make_chain(p, 300);
        free(p);
        p = path_in(vol, "ro");
        assert_int_equal(mkdir(p, 0555), 0);

        assert_int_equal(emptydir_teardown(vol, &err), 0);
        assert_int_equal(lstat(vol, &st), -1);
        assert_int_equal(errno, ENOENT);
        assert_int_equal(stat(keep, &st), 0);
        assert_int_equal(st.st_size, 100);
        assert_int_equal(st.st_nlink, 1);
        assert_int_equal(stat(keepdir_file, &st), 0);
        /* idempotent */
        assert_int_equal(emptydir_teardown(vol, &err), 0);

        /* a volume path that is a symlink: the link goes, its target stays */
        assert_int_equal(symlink(keepdir, vol), 0);
        assert_int_equal(emptydir_teardown(vol, &err), 0);
        assert_int_equal(lstat(vol, &st), -1);
        assert_int_equal(stat(keepdir_file, &st), 0);
}

/* ---- as root: mount points inside a disk volume ---- */

#define REQUIRE_ROOT()                                                              \
 do {                                                                               \
  if (geteuid() != 0) {                                                             \
   print_message("skipped: needs root to mount (euid %u)\n", (unsigned) geteuid()); \
   skip();                                                                          \
  }                                                                                 \
 } while (0)

static void test_mount_points_inside_disk_volume(void **state)
{
        struct tmp *t = *state;
        cleanup_free char *vol = path_in(t->dir, "vol");
        cleanup_free char *mnt = path_in(vol, "mnt");
        cleanup_free char *bind = path_in(vol, "sub/bind");
        cleanup_free char *src = path_in(t->outside, "src");
        cleanup_free char *src_file = path_in(t->outside, "src/precious");
        cleanup_free char *mnt_file = NULL, *own = NULL, *sub = NULL, *want = NULL;
        struct error *err = NULL;
        int64_t got = -1, expect;
        struct stat st;

        REQUIRE_ROOT();
        assert_int_equal(emptydir_setup(vol, EMPTYDIR_MEDIUM_DISK, 0, &err), 0);
        own = path_in(vol, "own");
        write_file(own, 20000);
        sub = path_in(vol, "sub");
        assert_int_equal(mkdir(sub, 0755), 0);
        assert_int_equal(mkdir(mnt, 0755), 0);
        assert_int_equal(mkdir(bind, 0755), 0);
        assert_int_equal(mkdir(src, 0755), 0);
        write_file(src_file, 300000);
        /* a tmpfs with a file, and a bind mount of a folder of this same filesystem */
        assert_int_equal(mount("tmpfs", mnt, "tmpfs", 0, "size=1m"), 0);
        t->mounts[t->n_mounts++] = xstrdup(mnt);
        mnt_file = path_in(mnt, "f");
        write_file(mnt_file, 100000);
        assert_int_equal(mount(src, bind, NULL, MS_BIND, NULL), 0);
        t->mounts[t->n_mounts++] = xstrdup(bind);

        /* du -x: neither mount is counted, the mount points' own directories neither */
        expect = blocks_of(vol) + blocks_of(own) + blocks_of(sub);
        assert_int_equal(emptydir_disk_usage(vol, &got, &err), 0);
        assert_int_equal(got, expect);

        /* removal stops at both mount points and says so; nothing behind them is touched */
        assert_int_equal(emptydir_teardown(vol, &err), -EBUSY);
        assert_non_null(strstr(err->message, "is a mount point"));
        want = xasprintf("tear down emptyDir volume \"%s\": ", vol);
        assert_memory_equal(err->message, want, strlen(want));
        err = error_free(err);
        assert_int_equal(stat(src_file, &st), 0);
        assert_int_equal(st.st_size, 300000);
        assert_int_equal(stat(mnt_file, &st), 0);
        assert_int_equal(lstat(own, &st), -1); /* the rest is gone */
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_memory_size),
                cmocka_unit_test(test_medium_strings),
                cmocka_unit_test(test_mountinfo_unescape),
                cmocka_unit_test(test_mountinfo_parse_line),
                cmocka_unit_test(test_mountinfo_find),
                cmocka_unit_test(test_is_tmpfs_mount_plain_paths),
                cmocka_unit_test_setup_teardown(test_setup_disk, tmp_setup, tmp_teardown),
                cmocka_unit_test_setup_teardown(test_not_mounted, tmp_setup, tmp_teardown),
                cmocka_unit_test_setup_teardown(test_disk_usage, tmp_setup, tmp_teardown),
                cmocka_unit_test_setup_teardown(test_disk_usage_depth_cap, tmp_setup, tmp_teardown),
                cmocka_unit_test_setup_teardown(test_teardown_disk, tmp_setup, tmp_teardown),
                cmocka_unit_test_setup_teardown(test_mount_points_inside_disk_volume, tmp_setup,
                                                tmp_teardown),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
