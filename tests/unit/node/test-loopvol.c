/* test-loopvol.c: file-backed loop volumes on real loop devices and real ext4, xfs and btrfs
 * (root only; one TAP plan of zero otherwise): the whole life of a 300Mi volume holding 50MiB of
 * checksummed data grown to 900Mi while mounted (and, where the kernel refuses that for ext4,
 * offline), a crash between growing the device and the filesystem, re-attach after a crash,
 * offline growth, busy unmount and detach, and the error paths. Every test works under its own
 * /tmp/flexlet-loopvol-* folder; the teardown unmounts and detaches whatever is left there
 * without the code under test, even after a failed assertion. Prints (does not assert) the
 * time of each growth beside the raw tool's time for the same growth. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <linux/loop.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "node/volume/loopvol.h"

#define MI          ((int64_t) 1024 * 1024)
#define DIR_PREFIX  "/tmp/flexlet-loopvol-"
#define DATA_BYTES  (50 * MI)
#define SMALL_BYTES (300 * MI)
#define BIG_BYTES   (900 * MI)

extern char **environ;

struct fixture {
        char dir[64];
        char *file; /* DIR/vols/pv-1.img */
        char *mnt;  /* DIR/mnt */
        enum loopvol_fstype fstype;
        int busy_fd; /* an fd a test holds open inside a mount, closed by the teardown */
};

/* The folders this process made: other runs of this test may work beside it. */
static char *made_dirs[32];
static size_t n_made_dirs;

static const enum loopvol_fstype fs_ext4 = LOOPVOL_FS_EXT4, fs_xfs = LOOPVOL_FS_XFS,
                                 fs_btrfs = LOOPVOL_FS_BTRFS;

/* --- cleanup without the code under test --- */

static int rm_entry(const char *p, const struct stat *st, int type, struct FTW *ftw)
{
        return remove(p) < 0 && errno != ENOENT ? -1 : 0;
}

/* Mount points in /proc/self/mountinfo that start with prefix, last mounted first. */
static size_t mounts_under(const char *prefix, char **ret, size_t max)
{
        FILE *f = fopen("/proc/self/mountinfo", "re");
        char *line = NULL;
        size_t cap = 0, n = 0;

        if (!f)
                return 0;
        while (getline(&line, &cap, f) >= 0) {
                char mp[4096];

                if (sscanf(line, "%*s %*s %*s %*s %4095s", mp) == 1 &&
                    strncmp(mp, prefix, strlen(prefix)) == 0 && n < max)
                        ret[n++] = xstrdup(mp);
        }
        free(line);
        fclose(f);
        for (size_t i = 0; i < n / 2; i++) {
                char *t = ret[i];

                ret[i] = ret[n - 1 - i];
                ret[n - 1 - i] = t;
        }
        return n;
}

/* The loop devices whose backing file's path starts with prefix ("/dev/loopN" in ret). */
static size_t loops_under(const char *prefix, char **ret, size_t max)
{
        DIR *d = opendir("/sys/block");
        struct dirent *de;
        size_t n = 0;

        if (!d)
                return 0;
        while ((de = readdir(d))) {
                char path[512], backing[4096];
                FILE *f;

                if (strncmp(de->d_name, "loop", 4) != 0)
                        continue;
                (void) snprintf(path, sizeof(path), "/sys/block/%s/loop/backing_file", de->d_name);
                f = fopen(path, "re");
                if (!f)
                        continue;
                if (fgets(backing, sizeof(backing), f) &&
                    strncmp(backing, prefix, strlen(prefix)) == 0 && n < max)
                        ret[n++] = xasprintf("/dev/%s", de->d_name);
                fclose(f);
        }
        closedir(d);
        return n;
}

static size_t count_loops(const char *prefix)
{
        char *devs[64];
        size_t n = loops_under(prefix, devs, 64);

        for (size_t i = 0; i < n; i++)
                free(devs[i]);
        return n;
}

static size_t count_mounts(const char *prefix)
{
        char *mps[64];
        size_t n = mounts_under(prefix, mps, 64);

        for (size_t i = 0; i < n; i++)
                free(mps[i]);
        return n;
}

static void cleanup_dir(const char *dir)
{
        cleanup_free char *prefix = xasprintf("%s/", dir);
        char *list[64];
        size_t n;

        for (int pass = 0; pass < 4; pass++) {
                n = mounts_under(prefix, list, 64);
                for (size_t i = 0; i < n; i++) {
                        (void) umount2(list[i], MNT_DETACH);
                        free(list[i]);
                }
        }
        n = loops_under(prefix, list, 64);
        for (size_t i = 0; i < n; i++) {
                int fd = open(list[i], O_RDONLY | O_CLOEXEC);

                if (fd >= 0) {
                        (void) ioctl(fd, LOOP_CLR_FD, 0);
                        close(fd);
                }
                free(list[i]);
        }
        (void) nftw(dir, rm_entry, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

static int fixture_setup(void **state)
{
        struct fixture *f = xcalloc(1, sizeof(*f));

        f->fstype = *state ? *(const enum loopvol_fstype *) *state : LOOPVOL_FS_EXT4;
        f->busy_fd = -1;
        strcpy(f->dir, DIR_PREFIX "XXXXXX");
        if (!mkdtemp(f->dir)) {
                free(f);
                return -1;
        }
        if (n_made_dirs < ARRAY_SIZE(made_dirs))
                made_dirs[n_made_dirs++] = xasprintf("%s/", f->dir);
        f->file = xasprintf("%s/vols/pv-1.img", f->dir);
        f->mnt = xasprintf("%s/mnt", f->dir);
        *state = f;
        return 0;
}

static int fixture_teardown(void **state)
{
        struct fixture *f = *state;

        if (f->busy_fd >= 0)
                close(f->busy_fd);
        cleanup_dir(f->dir);
        free(f->file);
        free(f->mnt);
        free(f);
        return 0;
}

/* --- data with a checksum --- */

/* FNV-1a over data. */
static uint64_t fnv(uint64_t h, const unsigned char *p, size_t n)
{
        for (size_t i = 0; i < n; i++) {
                h ^= p[i];
                h *= 0x100000001b3ULL;
        }
        return h;
}

/* Writes bytes of pseudo-random data to path (fsync'ed) and returns their checksum. */
static uint64_t write_data(const char *path, int64_t bytes, uint64_t seed)
{
        unsigned char *buf = xmalloc(MI);
        uint64_t h = 0xcbf29ce484222325ULL, x = seed | 1;
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

        assert_true(fd >= 0);
        for (int64_t done = 0; done < bytes; done += MI) {
                for (size_t i = 0; i < (size_t) MI; i += 8) {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        memcpy(buf + i, &x, 8);
                }
                assert_int_equal(write(fd, buf, MI), MI);
                h = fnv(h, buf, MI);
        }
        assert_int_equal(fsync(fd), 0);
        close(fd);
        free(buf);
        return h;
}

static uint64_t checksum(const char *path)
{
        unsigned char *buf = xmalloc(MI);
        uint64_t h = 0xcbf29ce484222325ULL;
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t n;

        assert_true(fd >= 0);
        while ((n = read(fd, buf, MI)) > 0)
                h = fnv(h, buf, (size_t) n);
        assert_int_equal(n, 0);
        close(fd);
        free(buf);
        return h;
}

/* --- timing and the raw tools --- */

static double now_ms(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec * 1e3 + (double) ts.tv_nsec / 1e6;
}

/* Runs argv quietly; its exit status. */
static int run_quiet(const char *const *argv)
{
        posix_spawn_file_actions_t fa;
        pid_t pid;
        int status;

        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
        assert_int_equal(posix_spawnp(&pid, argv[0], &fa, NULL, (char *const *) argv, environ), 0);
        posix_spawn_file_actions_destroy(&fa);
        assert_int_equal(waitpid(pid, &status, 0), pid);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static void expect_error(int r, int errnum, struct error **err, const char *needle)
{
        assert_int_equal(r, -errnum);
        assert_non_null(*err);
        assert_int_equal((*err)->errnum, errnum);
        if (needle && !strstr((*err)->message, needle)) {
                print_message("# message: %s\n", (*err)->message);
                fail_msg("the message does not contain \"%s\"", needle);
        }
        *err = error_free(*err);
}

static bool is_mounted_at(const char *path)
{
        FILE *f = fopen("/proc/self/mountinfo", "re");
        char *line = NULL;
        size_t cap = 0;
        bool found = false;

        assert_non_null(f);
        while (getline(&line, &cap, f) >= 0) {
                char mp[4096];

                if (sscanf(line, "%*s %*s %*s %*s %4095s", mp) == 1 && streq(mp, path))
                        found = true;
        }
        free(line);
        fclose(f);
        return found;
}

/* --- the life of a volume --- */

/* The same growth done by the raw tool on a twin volume, for the timings. */
static double raw_grow_ms(struct fixture *f, const char **ret_how)
{
        cleanup_free char *file = xasprintf("%s/vols/raw.img", f->dir);
        cleanup_free char *mnt = xasprintf("%s/raw-mnt", f->dir);
        cleanup_free char *data = xasprintf("%s/data", mnt);
        cleanup_free char *dev = NULL;
        struct error *err = NULL;
        double t0, ms;

        assert_int_equal(loopvol_create(file, SMALL_BYTES, f->fstype, &err), 0);
        assert_int_equal(loopvol_attach(file, &dev, &err), 1);
        assert_int_equal(loopvol_mount(file, mnt, f->fstype, &err), 0);
        (void) write_data(data, DATA_BYTES, 7);
        assert_int_equal(loopvol_grow_device(file, BIG_BYTES, &err), 0);
        if (f->fstype == LOOPVOL_FS_XFS) {
                const char *argv[] = { "xfs_growfs", "-d", mnt, NULL };

                t0 = now_ms();
                assert_int_equal(run_quiet(argv), 0);
                ms = now_ms() - t0;
                *ret_how = "xfs_growfs -d (online)";
        } else if (f->fstype == LOOPVOL_FS_BTRFS) {
                const char *argv[] = { "btrfs", "filesystem", "resize", "max", mnt, NULL };

                t0 = now_ms();
                assert_int_equal(run_quiet(argv), 0);
                ms = now_ms() - t0;
                *ret_how = "btrfs filesystem resize max (online)";
        } else {
                const char *resize[] = { "resize2fs", dev, NULL };
                int code;

                t0 = now_ms();
                code = run_quiet(resize);
                ms = now_ms() - t0;
                *ret_how = "resize2fs (online)";
                if (code != 0) {
                        const char *fsck[] = { "e2fsck", "-f", "-p", dev, NULL };

                        assert_int_equal(loopvol_unmount(mnt, false, &err), 0);
                        t0 = now_ms();
                        assert_true(run_quiet(fsck) <= 1);
                        assert_int_equal(run_quiet(resize), 0);
                        ms = now_ms() - t0;
                        *ret_how = "e2fsck -f -p + resize2fs (offline)";
                }
        }
        assert_int_equal(loopvol_unmount(mnt, false, &err), 0);
        assert_int_equal(loopvol_remove(file, &err), 0);
        return ms;
}

static void test_lifecycle(void **state)
{
        struct fixture *f = *state;
        const char *fs = loopvol_fstype_to_string(f->fstype);
        cleanup_free char *data = xasprintf("%s/data", f->mnt);
        cleanup_free char *dev = NULL, *dev2 = NULL, *dev3 = NULL;
        struct error *err = NULL;
        struct loopvol_sizes sz, grown;
        struct loopvol_stats before, after, again;
        struct statvfs sv;
        uint64_t sum;
        double t0, dev_ms, fs_ms, offline_ms = 0, raw_ms;
        const char *raw_how = "";
        const char *fs_how = "online";
        int r;

        /* create: sparse, formatted, idempotent */
        assert_int_equal(loopvol_create(f->file, SMALL_BYTES, f->fstype, &err), 0);
        assert_int_equal(loopvol_create(f->file, SMALL_BYTES, f->fstype, &err), 0);
        expect_error(loopvol_create(f->file, SMALL_BYTES,
                                    f->fstype == LOOPVOL_FS_EXT4 ? LOOPVOL_FS_XFS : LOOPVOL_FS_EXT4,
                                    &err),
                     EEXIST, &err, "not \"");
        {
                struct stat st;

                assert_int_equal(stat(f->file, &st), 0);
                assert_int_equal(st.st_size, SMALL_BYTES);
                assert_true(st.st_blocks * 512 < SMALL_BYTES); /* sparse */
        }
        assert_int_equal(loopvol_sizes(f->file, &sz, &err), 0);
        assert_int_equal(sz.fstype, f->fstype);
        assert_int_equal(sz.file_bytes, SMALL_BYTES);
        assert_int_equal(sz.device_bytes, -1);
        assert_int_equal(sz.fs_bytes, SMALL_BYTES);
        assert_false(sz.mounted);
        assert_false(loopvol_fs_grow_pending(&sz));

        /* attach; after a crash that lost the device's name, attach finds the same device */
        assert_int_equal(loopvol_attach(f->file, &dev, &err), 1);
        assert_int_equal(loopvol_attach(f->file, &dev2, &err), 0);
        assert_string_equal(dev, dev2);
        assert_int_equal(count_loops(f->dir), 1);
        assert_int_equal(loopvol_find_device(f->file, &dev3, &err), 1);
        assert_string_equal(dev, dev3);

        /* mount nodev,nosuid; idempotent */
        assert_int_equal(loopvol_mount(f->file, f->mnt, f->fstype, &err), 0);
        assert_int_equal(loopvol_mount(f->file, f->mnt, f->fstype, &err), 0);
        assert_int_equal(statvfs(f->mnt, &sv), 0);
        assert_true(sv.f_flag & ST_NODEV);
        assert_true(sv.f_flag & ST_NOSUID);
        sum = write_data(data, DATA_BYTES, 42);
        assert_int_equal(loopvol_stats(f->mnt, &before, &err), 0);
        assert_true(before.used_bytes >= DATA_BYTES);
        assert_true(before.capacity_bytes <= SMALL_BYTES);
        assert_true(before.capacity_bytes > SMALL_BYTES / 2);
        /* btrfs allocates inodes dynamically and statfs reports f_files = 0 */
        if (f->fstype == LOOPVOL_FS_BTRFS)
                assert_int_equal(before.inodes, 0);
        else
                assert_true(before.inodes_used > 0 && before.inodes_used < before.inodes);

        /* the controller's half: file and device grow, the filesystem not yet (what a crash
         * between the two leaves) */
        t0 = now_ms();
        assert_int_equal(loopvol_grow_device(f->file, BIG_BYTES, &err), 0);
        dev_ms = now_ms() - t0;
        assert_int_equal(loopvol_sizes(f->file, &sz, &err), 0);
        assert_int_equal(sz.file_bytes, BIG_BYTES);
        assert_int_equal(sz.device_bytes, BIG_BYTES);
        assert_int_equal(sz.fs_bytes, SMALL_BYTES);
        assert_true(sz.mounted);
        assert_true(loopvol_fs_grow_pending(&sz));

        /* the node's half: online */
        t0 = now_ms();
        r = loopvol_grow_fs(f->file, &err);
        fs_ms = now_ms() - t0;
        if (f->fstype == LOOPVOL_FS_EXT4 && r == -EOPNOTSUPP) {
                /* the kernel refuses online ext4 growth: offline at the next mount */
                print_message("# ext4 online grow refused (-EOPNOTSUPP): %s\n", err->message);
                assert_non_null(strstr(err->message, f->file));
                assert_non_null(strstr(err->message, "resize2fs"));
                err = error_free(err);
                assert_int_equal(loopvol_sizes(f->file, &sz, &err), 0);
                assert_true(loopvol_fs_grow_pending(&sz));
                assert_int_equal(loopvol_unmount(f->mnt, false, &err), 0);
                t0 = now_ms();
                assert_int_equal(loopvol_grow_fs(f->file, &err), LOOPVOL_GROW_OFFLINE);
                offline_ms = now_ms() - t0;
                fs_how = "offline after a refused online attempt";
                assert_int_equal(loopvol_mount(f->file, f->mnt, f->fstype, &err), 0);
        } else {
                if (r < 0)
                        print_message("# %s\n", err->message);
                assert_int_equal(r, LOOPVOL_GROW_ONLINE);
        }
        assert_int_equal(loopvol_sizes(f->file, &grown, &err), 0);
        assert_false(loopvol_fs_grow_pending(&grown));
        assert_true(grown.fs_bytes <= BIG_BYTES);
        assert_true(grown.fs_bytes >= BIG_BYTES - grown.fs_slack_bytes);
        assert_int_equal(loopvol_stats(f->mnt, &after, &err), 0);
        assert_true(after.capacity_bytes >= before.capacity_bytes + 500 * MI);
        assert_true(after.capacity_bytes <= BIG_BYTES);
        assert_true(after.used_bytes >= DATA_BYTES);
        assert_int_equal(checksum(data), sum);

        /* level-based: the same size again does nothing; a smaller one is refused */
        assert_int_equal(loopvol_grow(f->file, BIG_BYTES, &err), LOOPVOL_GROW_NONE);
        assert_int_equal(loopvol_grow(f->file, BIG_BYTES - 1000, &err), LOOPVOL_GROW_NONE);
        expect_error(loopvol_grow(f->file, 600 * MI, &err), EINVAL, &err, f->file);

        /* busy: refused with the kernel's words, nothing detached under a mount */
        f->busy_fd = open(data, O_RDONLY | O_CLOEXEC);
        assert_true(f->busy_fd >= 0);
        expect_error(loopvol_unmount(f->mnt, false, &err), EBUSY, &err, "busy");
        expect_error(loopvol_detach(f->file, &err), EBUSY, &err, dev);
        close(f->busy_fd);
        f->busy_fd = -1;
        assert_int_equal(loopvol_unmount(f->mnt, false, &err), 0);
        assert_int_equal(loopvol_unmount(f->mnt, false, &err), 0);
        assert_false(is_mounted_at(f->mnt));

        /* detach, idempotent */
        assert_int_equal(loopvol_detach(f->file, &err), 0);
        free(dev3);
        assert_int_equal(loopvol_find_device(f->file, &dev3, &err), 0);
        assert_null(dev3);
        assert_int_equal(count_loops(f->dir), 0);
        assert_int_equal(loopvol_detach(f->file, &err), 0);
        assert_int_equal(loopvol_sizes(f->file, &sz, &err), 0);
        assert_int_equal(sz.device_bytes, -1);
        assert_false(sz.mounted);
        /* read from the superblock on disk now: what the mounted filesystem said */
        assert_int_equal(sz.fs_bytes, grown.fs_bytes);
        assert_false(loopvol_fs_grow_pending(&sz));

        /* back again, through the pre-5.8 path this time; the data is there */
        free(dev2);
        dev2 = NULL;
        assert_int_equal(loopvol_attach_legacy(f->file, &dev2, &err), 1);
        free(dev3);
        dev3 = NULL;
        assert_int_equal(loopvol_attach(f->file, &dev3, &err), 0);
        assert_string_equal(dev2, dev3);
        assert_int_equal(count_loops(f->dir), 1);
        assert_int_equal(loopvol_mount(f->file, f->mnt, f->fstype, &err), 0);
        assert_int_equal(checksum(data), sum);
        assert_int_equal(loopvol_stats(f->mnt, &again, &err), 0);
        assert_int_equal(again.capacity_bytes, after.capacity_bytes);
        assert_int_equal(loopvol_unmount(f->mnt, false, &err), 0);

        /* remove: detached and gone; idempotent */
        assert_int_equal(loopvol_remove(f->file, &err), 0);
        assert_int_equal(access(f->file, F_OK), -1);
        assert_int_equal(count_loops(f->dir), 0);
        assert_int_equal(loopvol_remove(f->file, &err), 0);

        raw_ms = raw_grow_ms(f, &raw_how);
        print_message("# bench %s 300Mi->900Mi with 50MiB: loopvol_grow_device %.2f ms, "
                      "loopvol_grow_fs %.2f ms (%s); raw %s %.2f ms\n",
                      fs, dev_ms, offline_ms > 0 ? offline_ms : fs_ms, fs_how, raw_how, raw_ms);
        if (offline_ms > 0)
                print_message("# bench %s the refused online attempt took %.2f ms\n", fs, fs_ms);
        assert_int_equal(count_loops(f->dir), 0);
        assert_int_equal(count_mounts(f->dir), 0);
}

/* Grown while not mounted: ext4 by e2fsck + resize2fs, xfs and btrfs on a private mount; also
 * after a crash that left that private mount behind. */
static void test_offline_grow(void **state)
{
        struct fixture *f = *state;
        cleanup_free char *data = xasprintf("%s/data", f->mnt);
        cleanup_free char *grow_mnt = xasprintf("%s.grow", f->file);
        cleanup_free char *dev = NULL;
        struct error *err = NULL;
        struct loopvol_stats before, after;
        struct loopvol_sizes sz;
        uint64_t sum;
        double t0;

        assert_int_equal(loopvol_create(f->file, SMALL_BYTES, f->fstype, &err), 0);
        assert_int_equal(loopvol_attach(f->file, &dev, &err), 1);
        assert_int_equal(loopvol_mount(f->file, f->mnt, f->fstype, &err), 0);
        sum = write_data(data, DATA_BYTES, 9);
        assert_int_equal(loopvol_stats(f->mnt, &before, &err), 0);
        assert_int_equal(loopvol_unmount(f->mnt, false, &err), 0);

        t0 = now_ms();
        assert_int_equal(loopvol_grow(f->file, 600 * MI, &err), LOOPVOL_GROW_OFFLINE);
        print_message("# bench %s offline loopvol_grow 300Mi->600Mi: %.2f ms\n",
                      loopvol_fstype_to_string(f->fstype), now_ms() - t0);
        assert_int_equal(access(grow_mnt, F_OK), -1);
        assert_int_equal(count_mounts(f->dir), 0);
        assert_int_equal(loopvol_sizes(f->file, &sz, &err), 0);
        assert_false(sz.mounted);
        assert_false(loopvol_fs_grow_pending(&sz));
        assert_true(sz.fs_bytes >= 600 * MI - sz.fs_slack_bytes);

        /* a crash in the middle of an offline grow left "<file>.grow" mounted */
        assert_int_equal(loopvol_grow_device(f->file, BIG_BYTES, &err), 0);
        if (f->fstype != LOOPVOL_FS_EXT4) {
                assert_int_equal(mkdir(grow_mnt, 0700), 0);
                assert_int_equal(mount(dev, grow_mnt, loopvol_fstype_to_string(f->fstype), 0, NULL),
                                 0);
        }
        assert_int_equal(loopvol_grow_fs(f->file, &err), LOOPVOL_GROW_OFFLINE);
        assert_int_equal(access(grow_mnt, F_OK), -1);
        assert_int_equal(count_mounts(f->dir), 0);
        assert_int_equal(loopvol_grow_fs(f->file, &err), LOOPVOL_GROW_NONE);

        assert_int_equal(loopvol_mount(f->file, f->mnt, f->fstype, &err), 0);
        assert_int_equal(loopvol_stats(f->mnt, &after, &err), 0);
        assert_true(after.capacity_bytes >= before.capacity_bytes + 500 * MI);
        assert_int_equal(checksum(data), sum);
        assert_int_equal(loopvol_unmount(f->mnt, false, &err), 0);
        assert_int_equal(loopvol_remove(f->file, &err), 0);
        assert_int_equal(count_loops(f->dir), 0);
}

/* A crash during create leaves "<file>.tmp"; a crash between grow and mount leaves the
 * volume attached; remove clears a grow mount a crash left. */
static void test_crash_leftovers(void **state)
{
        struct fixture *f = *state;
        cleanup_free char *tmp = xasprintf("%s.tmp", f->file);
        cleanup_free char *grow_mnt = xasprintf("%s.grow", f->file);
        cleanup_free char *dir = xasprintf("%s/vols", f->dir);
        cleanup_free char *dev = NULL;
        struct error *err = NULL;
        int fd;

        assert_int_equal(mkdir(dir, 0700), 0);
        fd = open(tmp, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, "half", 4), 4);
        close(fd);
        assert_int_equal(loopvol_create(f->file, SMALL_BYTES, LOOPVOL_FS_BTRFS, &err), 0);
        assert_int_equal(access(tmp, F_OK), -1);

        assert_int_equal(loopvol_attach(f->file, &dev, &err), 1);
        assert_int_equal(mkdir(grow_mnt, 0700), 0);
        assert_int_equal(mount(dev, grow_mnt, "btrfs", 0, NULL), 0);
        fd = open(tmp, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        assert_true(fd >= 0);
        close(fd);
        assert_int_equal(loopvol_remove(f->file, &err), 0);
        assert_int_equal(access(f->file, F_OK), -1);
        assert_int_equal(access(tmp, F_OK), -1);
        assert_int_equal(access(grow_mnt, F_OK), -1);
        assert_int_equal(count_loops(f->dir), 0);
        assert_int_equal(count_mounts(f->dir), 0);
}

static void test_errors(void **state)
{
        struct fixture *f = *state;
        cleanup_free char *dir = xasprintf("%s/vols", f->dir);
        cleanup_free char *junk = xasprintf("%s/vols/junk.img", f->dir);
        cleanup_free char *small = xasprintf("%s/vols/small.img", f->dir);
        cleanup_free char *dev = NULL;
        struct error *err = NULL;
        struct loopvol_sizes sz;
        struct loopvol_stats st;
        enum loopvol_fstype t;
        int fd;

        /* fsType names */
        for (int i = 0; i < LOOPVOL_FS_MAX; i++) {
                assert_int_equal(loopvol_fstype_from_string(
                                         loopvol_fstype_to_string((enum loopvol_fstype) i), &t),
                                 0);
                assert_int_equal(t, i);
        }
        assert_string_equal(loopvol_fstype_to_string(LOOPVOL_FS_BTRFS), "btrfs");
        assert_null(loopvol_fstype_to_string(LOOPVOL_FS_MAX));
        assert_int_equal(loopvol_fstype_from_string("vfat", &t), -EINVAL);
        assert_int_equal(loopvol_fstype_from_string("EXT4", &t), -EINVAL);
        assert_int_equal(loopvol_fstype_from_string("", &t), -EINVAL);
        assert_int_equal(loopvol_fstype_from_string(NULL, &t), -EINVAL);

        /* bad arguments */
        expect_error(loopvol_create(f->file, SMALL_BYTES, (enum loopvol_fstype) 7, &err), EINVAL,
                     &err, "fsType");
        expect_error(loopvol_create(f->file, 0, LOOPVOL_FS_EXT4, &err), EINVAL, &err, f->file);
        expect_error(loopvol_create(f->file, LOOPVOL_SIZE_MAX + 1, LOOPVOL_FS_EXT4, &err), EINVAL,
                     &err, "invalid size");
        assert_int_equal(access(f->file, F_OK), -1);

        /* a missing file */
        expect_error(loopvol_attach(f->file, &dev, &err), ENOENT, &err, f->file);
        expect_error(loopvol_find_device(f->file, &dev, &err), ENOENT, &err, f->file);
        expect_error(loopvol_grow_device(f->file, BIG_BYTES, &err), ENOENT, &err, f->file);
        expect_error(loopvol_grow(f->file, BIG_BYTES, &err), ENOENT, &err, f->file);
        expect_error(loopvol_grow_fs(f->file, &err), ENOENT, &err, f->file);
        expect_error(loopvol_mount(f->file, f->mnt, LOOPVOL_FS_EXT4, &err), ENOENT, &err, f->file);
        expect_error(loopvol_sizes(f->file, &sz, &err), ENOENT, &err, f->file);
        assert_int_equal(loopvol_detach(f->file, &err), 0);
        assert_int_equal(loopvol_remove(f->file, &err), 0);
        assert_null(dev);

        /* the tool's words: xfs needs 300MB */
        expect_error(loopvol_create(small, 16 * MI, LOOPVOL_FS_XFS, &err), EIO, &err,
                     "mkfs.xfs exited with status 1: Filesystem must be larger than 300MB.");
        assert_int_equal(access(small, F_OK), -1);

        /* a file that is no volume */
        fd = open(junk, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
        assert_true(fd >= 0);
        assert_int_equal(ftruncate(fd, 10 * MI), 0);
        close(fd);
        expect_error(loopvol_create(junk, 10 * MI, LOOPVOL_FS_EXT4, &err), EEXIST, &err,
                     "holds no filesystem");
        expect_error(loopvol_sizes(junk, &sz, &err), EMEDIUMTYPE, &err, junk);
        expect_error(loopvol_attach(dir, &dev, &err), EINVAL, &err, "not a regular file");

        /* not attached */
        assert_int_equal(loopvol_create(f->file, SMALL_BYTES, LOOPVOL_FS_EXT4, &err), 0);
        expect_error(loopvol_grow_fs(f->file, &err), ENXIO, &err, "not attached");
        expect_error(loopvol_mount(f->file, f->mnt, LOOPVOL_FS_EXT4, &err), ENXIO, &err,
                     "not attached");
        /* grown while detached: the file only; the filesystem follows once attached */
        assert_int_equal(loopvol_grow(f->file, 400 * MI, &err), LOOPVOL_GROW_NONE);
        assert_int_equal(loopvol_sizes(f->file, &sz, &err), 0);
        assert_int_equal(sz.file_bytes, 400 * MI);
        assert_true(loopvol_fs_grow_pending(&sz));
        expect_error(loopvol_grow_device(f->file, SMALL_BYTES, &err), EINVAL, &err, "never shrink");

        /* the wrong fsType, a foreign mount at the target, statfs of no mount */
        assert_int_equal(loopvol_attach(f->file, &dev, &err), 1);
        expect_error(loopvol_mount(f->file, f->mnt, LOOPVOL_FS_XFS, &err), EINVAL, &err,
                     "holds \"ext4\", not \"xfs\"");
        expect_error(loopvol_stats(f->mnt, &st, &err), ENOENT, &err, "nothing is mounted");
        assert_int_equal(mkdir(f->mnt, 0700), 0);
        assert_int_equal(mount("tmpfs", f->mnt, "tmpfs", 0, "size=1m"), 0);
        expect_error(loopvol_mount(f->file, f->mnt, LOOPVOL_FS_EXT4, &err), EBUSY, &err, "tmpfs");
        assert_int_equal(umount2(f->mnt, 0), 0);
        assert_int_equal(loopvol_grow_fs(f->file, &err), LOOPVOL_GROW_OFFLINE);
        assert_int_equal(loopvol_remove(f->file, &err), 0);
        assert_int_equal(count_loops(f->dir), 0);
}

/* A forced unmount of a busy volume detaches the mount lazily. */
static void test_forced_unmount(void **state)
{
        struct fixture *f = *state;
        cleanup_free char *data = xasprintf("%s/data", f->mnt);
        cleanup_free char *dev = NULL;
        struct error *err = NULL;

        assert_int_equal(loopvol_create(f->file, SMALL_BYTES, LOOPVOL_FS_EXT4, &err), 0);
        assert_int_equal(loopvol_attach(f->file, &dev, &err), 1);
        assert_int_equal(loopvol_mount(f->file, f->mnt, LOOPVOL_FS_EXT4, &err), 0);
        (void) write_data(data, MI, 1);
        f->busy_fd = open(data, O_RDONLY | O_CLOEXEC);
        assert_true(f->busy_fd >= 0);
        expect_error(loopvol_unmount(f->mnt, false, &err), EBUSY, &err, f->mnt);
        assert_int_equal(loopvol_unmount(f->mnt, true, &err), 0);
        assert_false(is_mounted_at(f->mnt));
        /* the filesystem lives on until the last file closes: the device is still busy */
        expect_error(loopvol_detach(f->file, &err), EBUSY, &err, "in use");
        close(f->busy_fd);
        f->busy_fd = -1;
        assert_int_equal(loopvol_remove(f->file, &err), 0);
        assert_int_equal(count_loops(f->dir), 0);
}

/* Last: nothing of ours is left on the machine. */
static void test_nothing_left(void **state)
{
        assert_true(n_made_dirs > 0);
        for (size_t i = 0; i < n_made_dirs; i++) {
                assert_int_equal(count_loops(made_dirs[i]), 0);
                assert_int_equal(count_mounts(made_dirs[i]), 0);
                assert_int_equal(access(made_dirs[i], F_OK), -1);
                free(made_dirs[i]);
        }
        n_made_dirs = 0;
}

#define FS_TEST(fn, fs) \
 cmocka_unit_test_prestate_setup_teardown(fn, fixture_setup, fixture_teardown, (void *) &(fs))

int main(void)
{
        const struct CMUnitTest tests[] = {
                FS_TEST(test_lifecycle, fs_ext4),
                FS_TEST(test_lifecycle, fs_xfs),
                FS_TEST(test_lifecycle, fs_btrfs),
                FS_TEST(test_offline_grow, fs_ext4),
                FS_TEST(test_offline_grow, fs_xfs),
                FS_TEST(test_offline_grow, fs_btrfs),
                cmocka_unit_test_setup_teardown(test_crash_leftovers, fixture_setup,
                                                fixture_teardown),
                cmocka_unit_test_setup_teardown(test_errors, fixture_setup, fixture_teardown),
                cmocka_unit_test_setup_teardown(test_forced_unmount, fixture_setup,
                                                fixture_teardown),
                cmocka_unit_test(test_nothing_left),
        };

        /* cmocka reports a skipped test as "not ok N # SKIP", which tests/run-all.sh counts as
         * a failure: when the whole binary cannot run, say so as a TAP plan of zero tests */
        if (geteuid() != 0) {
                (void) printf("1..0 # SKIP needs root (loop devices, mount)\n");
                return 0;
        }
        return cmocka_run_group_tests(tests, NULL, NULL);
}
