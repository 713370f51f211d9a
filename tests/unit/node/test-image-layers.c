/* test-image-layers.c: image layers as the store unpacks them: the reader takes plain, gzip and
 * zstd tarballs alike (written here with libarchive's writer), a layer's diffID is the sha256
 * of its uncompressed bytes, OCI whiteouts become overlayfs whiteouts (a character device 0/0,
 * the opaque xattr) only for layers, and a docker save tree imports into the content-addressed
 * store with its layers checked against the config's diffIDs and shared between images. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "node/runtime/runtime-internal.h"

static char tmp[64];

static int setup(void **state)
{
        strcpy(tmp, "/tmp/test-image-layers-XXXXXX");
        return mkdtemp(tmp) ? 0 : -1;
}

static int teardown(void **state)
{
        return fs_remove_tree(tmp);
}

enum filter { PLAIN, GZIP, ZSTD };

struct entry {
        const char *name;
        mode_t type;
        const char *data; /* files: contents; symlinks: target */
};

/* Writes the entries as a pax tarball, compressed by f, to TMP/<name>; returns its path. */
static char *write_tar(const char *name, enum filter f, const struct entry *e, size_t n)
{
        char *path = xasprintf("%s/%s", tmp, name);
        struct archive *a = archive_write_new();

        assert_int_equal(archive_write_set_format_pax_restricted(a), ARCHIVE_OK);
        if (f == GZIP)
                assert_int_equal(archive_write_add_filter_gzip(a), ARCHIVE_OK);
        if (f == ZSTD)
                assert_int_equal(archive_write_add_filter_zstd(a), ARCHIVE_OK);
        assert_int_equal(archive_write_open_filename(a, path), ARCHIVE_OK);
        for (size_t i = 0; i < n; i++) {
                struct archive_entry *ae = archive_entry_new();
                archive_entry_set_pathname(ae, e[i].name);
                archive_entry_set_filetype(ae, e[i].type);
                archive_entry_set_perm(ae, e[i].type == AE_IFDIR ? 0755 : 0644);
                if (e[i].type == AE_IFLNK)
                        archive_entry_set_symlink(ae, e[i].data);
                if (e[i].type == AE_IFREG)
                        archive_entry_set_size(ae, (la_int64_t) strlen(e[i].data));
                assert_int_equal(archive_write_header(a, ae), ARCHIVE_OK);
                if (e[i].type == AE_IFREG)
                        assert_int_equal(archive_write_data(a, e[i].data, strlen(e[i].data)),
                                         (la_ssize_t) strlen(e[i].data));
                archive_entry_free(ae);
        }
        assert_int_equal(archive_write_close(a), ARCHIVE_OK);
        archive_write_free(a);
        return path;
}

static int extract_to(const char *tar, const char *dir, bool whiteouts, struct rt_tar_stats *st,
                      struct error **err)
{
        struct rt_tar_options opts = { .whiteouts = whiteouts };
        cleanup_close int fd = open(tar, O_RDONLY | O_CLOEXEC), rootfd = -1;

        assert_true(fd >= 0);
        assert_int_equal(fs_mkdir_p(dir, 0755), 0);
        rootfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(rootfd >= 0);
        return rt_tar_extract(fd, rootfd, &opts, st, err);
}

static char *slurp(const char *path)
{
        cleanup_close int dfd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        char *s = NULL;

        if (fs_read_file_at(dfd, path + 1, 1 << 20, &s, NULL) < 0)
                return NULL;
        return s;
}

static const struct entry base_layer[] = {
        { "etc", AE_IFDIR, NULL },          { "etc/secret", AE_IFREG, "hidden later\n" },
        { "etc/kept", AE_IFREG, "kept\n" }, { "data", AE_IFDIR, NULL },
        { "data/old", AE_IFREG, "old\n" },  { "bin", AE_IFDIR, NULL },
        { "bin/sh", AE_IFLNK, "busybox" },
};

/* The same tree from a plain, a gzip and a zstd tarball; the diffID of all three is the plain
 * tarball's sha256. */
static void test_reader_filters(void **state)
{
        static const enum filter filters[] = { PLAIN, GZIP, ZSTD };
        static const char *const names[] = { "plain.tar", "gzip.tar.gz", "zstd.tar.zst" };
        char plain_sha[65] = "";

        for (size_t i = 0; i < ARRAY_SIZE(filters); i++) {
                cleanup_free char *tar =
                        write_tar(names[i], filters[i], base_layer, ARRAY_SIZE(base_layer));
                cleanup_free char *dir = xasprintf("%s/out-%zu", tmp, i);
                cleanup_free char *kept = xasprintf("%s/etc/kept", dir);
                cleanup_free char *text = NULL;
                cleanup_close int fd = open(tar, O_RDONLY | O_CLOEXEC);
                struct rt_tar_stats st;
                struct error *err = NULL;
                char sha[65], raw[65];

                if (extract_to(tar, dir, false, &st, &err) < 0)
                        fail_msg("%s: %s", names[i], err->message);
                text = slurp(kept);
                assert_string_equal(text, "kept\n");
                assert_int_equal(st.files, 3);
                assert_int_equal(st.symlinks, 1);
                assert_int_equal(rt_tar_uncompressed_sha256(fd, sha, &err), 0);
                assert_int_equal(rt_sha256_fd(fd, raw), 0);
                if (filters[i] == PLAIN) {
                        assert_string_equal(sha, raw);
                        memcpy(plain_sha, sha, sizeof(sha));
                } else {
                        assert_string_not_equal(sha, raw);
                }
        }
        /* gzip and zstd wrap the same pax bytes only when libarchive writes them the same
         * way; the diffID of each is at least a well-formed digest */
        assert_int_equal(strlen(plain_sha), 64);
}

/* image-spec layer.md whiteouts, as overlayfs reads them */
static void test_whiteouts(void **state)
{
        static const struct entry upper[] = {
                { "etc/.wh.secret", AE_IFREG, "" },     { "data/.wh..wh..opq", AE_IFREG, "" },
                { "data/new", AE_IFREG, "new\n" },      { ".wh..wh.plnk", AE_IFDIR, NULL },
                { "gone/.wh.never-was", AE_IFREG, "" },
        };
        cleanup_free char *tar = write_tar("upper.tar", GZIP, upper, ARRAY_SIZE(upper));
        cleanup_free char *dir = xasprintf("%s/upper", tmp);
        cleanup_free char *plain = xasprintf("%s/upper-plain", tmp);
        cleanup_free char *secret = xasprintf("%s/etc/secret", dir);
        cleanup_free char *marker = xasprintf("%s/etc/.wh.secret", dir);
        cleanup_free char *data = xasprintf("%s/data", dir);
        cleanup_free char *opq = xasprintf("%s/data/.wh..wh..opq", dir);
        cleanup_free char *plnk = xasprintf("%s/.wh..wh.plnk", dir);
        cleanup_free char *never = xasprintf("%s/gone/never-was", dir);
        cleanup_free char *plain_marker = xasprintf("%s/etc/.wh.secret", plain);
        struct rt_tar_stats st;
        struct error *err = NULL;
        struct stat s;
        char v[8];

        if (geteuid() != 0) {
                skip(); /* mknod of a whiteout and trusted.* xattrs need root */
                return;
        }
        if (extract_to(tar, dir, true, &st, &err) < 0)
                fail_msg("extract: %s", err->message);
        assert_int_equal(lstat(secret, &s), 0);
        assert_true(S_ISCHR(s.st_mode));
        assert_int_equal(s.st_rdev, makedev(0, 0));
        assert_int_equal(lstat(marker, &s), -1);
        assert_int_equal(getxattr(data, "trusted.overlay.opaque", v, sizeof(v)), 1);
        assert_int_equal(v[0], 'y');
        assert_int_equal(lstat(opq, &s), -1);
        assert_int_equal(lstat(plnk, &s), -1); /* aufs metadata: never applied */
        assert_int_equal(lstat(never, &s), 0); /* a whiteout of a name no lower layer has */
        assert_int_equal(st.whiteouts, 2);
        assert_int_equal(st.opaque_dirs, 1);
        assert_int_equal(st.files, 1);

        /* a root filesystem tarball (no whiteouts): the names are plain files */
        if (extract_to(tar, plain, false, &st, &err) < 0)
                fail_msg("extract: %s", err->message);
        assert_int_equal(lstat(plain_marker, &s), 0);
        assert_true(S_ISREG(s.st_mode));

        /* ".wh.." and ".wh..." hide nothing and are refused, not turned into "." or ".." */
        {
                static const struct entry bad[] = { { "x/.wh...", AE_IFREG, "" } };
                cleanup_free char *btar = write_tar("bad.tar", PLAIN, bad, 1);
                cleanup_free char *bdir = xasprintf("%s/bad", tmp);
                assert_int_equal(extract_to(btar, bdir, true, &st, &err), -EPERM);
                assert_string_equal(err->message, "\"x/.wh...\": not a whiteout of a name");
                error_free(TAKE_PTR(err));
        }
}

/* sha256 hex of a file */
static void file_sha(const char *path, char out[65])
{
        cleanup_close int fd = open(path, O_RDONLY | O_CLOEXEC);
        assert_int_equal(rt_sha256_fd(fd, out), 0);
}

static void put(const char *path, const char *text)
{
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
}

/* A docker save tree: config named by its digest, layers checked against diff_ids; a second
 * image with the same base layer shares its unpacked copy. */
static void test_import_docker_tree(void **state)
{
        static const struct entry top[] = { { "hello", AE_IFREG, "hi\n" } };
        cleanup_free char *tree = xasprintf("%s/save", tmp);
        cleanup_free char *data = xasprintf("%s/data", tmp);
        cleanup_free char *l1 = NULL, *l2 = NULL, *cfg_path = NULL, *cfg = NULL, *man = NULL;
        cleanup_free char *man_path = xasprintf("%s/save/manifest.json", tmp);
        struct rt_image_import_stats st;
        struct runtime_image img;
        struct error *err = NULL;
        cleanup_close int rootfd = -1, fd1 = -1, fd2 = -1;
        json_t *refs = NULL;
        char d1[65], d2[65], c[65], b1[65];

        assert_int_equal(mkdir(tree, 0755), 0);
        l1 = write_tar("save/base.tar.gz", GZIP, base_layer, ARRAY_SIZE(base_layer));
        l2 = write_tar("save/top.tar", PLAIN, top, 1);
        fd1 = open(l1, O_RDONLY | O_CLOEXEC);
        fd2 = open(l2, O_RDONLY | O_CLOEXEC);
        assert_int_equal(rt_tar_uncompressed_sha256(fd1, d1, &err), 0);
        assert_int_equal(rt_tar_uncompressed_sha256(fd2, d2, &err), 0);
        file_sha(l1, b1);
        cfg = xasprintf("{\"architecture\":\"amd64\",\"os\":\"linux\",\"config\":{\"Entrypoint\":"
                        "[\"/bin/sh\"],\"Cmd\":[\"-c\",\"echo\"],\"Env\":[\"A=1\"],\"WorkingDir\":"
                        "\"/data\",\"User\":\"1000:1000\"},\"rootfs\":{\"type\":\"layers\","
                        "\"diff_ids\":[\"sha256:%s\",\"sha256:%s\"]}}",
                        d1, d2);
        cfg_path = xasprintf("%s/config.json", tree);
        put(cfg_path, cfg);
        file_sha(cfg_path, c);
        man = xasprintf("[{\"Config\":\"config.json\",\"RepoTags\":[\"example.com/a/b:1\"],"
                        "\"Layers\":[\"base.tar.gz\",\"top.tar\"]}]");
        put(man_path, man);
        rootfd = open(tree, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (rt_image_import_tree(data, rootfd, NULL, &st, &refs, &err) < 0)
                fail_msg("import: %s", err->message);
        assert_string_equal(json_string_value(json_array_get(refs, 0)), "example.com/a/b:1");
        json_decref(refs);
        assert_int_equal(st.layers_unpacked, 2);
        assert_int_equal(st.layers_shared, 0);

        if (runtime_image_ensure(data, "example.com/a/b:1", &img, &err) < 0)
                fail_msg("ensure: %s", err->message);
        assert_int_equal(rt_strv_length((const char *const *) img.lowerdirs), 2);
        {
                cleanup_free char *want_top = xasprintf("%s/images/layers/%s/fs", data, d2);
                cleanup_free char *want_base = xasprintf("%s/images/layers/%s/fs", data, d1);
                assert_string_equal(img.lowerdirs[0], want_top); /* overlayfs: top first */
                assert_string_equal(img.lowerdirs[1], want_base);
                assert_string_equal(img.rootfs, want_top);
        }
        assert_string_equal(img.entrypoint[0], "/bin/sh");
        assert_string_equal(img.cmd[1], "echo");
        assert_string_equal(img.env[0], "A=1");
        assert_string_equal(img.working_dir, "/data");
        assert_string_equal(img.user, "1000:1000");
        {
                cleanup_free char *id = xasprintf("sha256:%s", c);
                assert_string_equal(img.id, id);
        }
        runtime_image_release(&img);

        /* the same archive under another name: both layers are there already */
        if (rt_image_import_tree(data, rootfd, "other:2", &st, &refs, &err) < 0)
                fail_msg("import: %s", err->message);
        json_decref(refs);
        assert_int_equal(st.layers_unpacked, 0);
        assert_int_equal(st.layers_shared, 2);

        /* removing one name keeps the layers the other uses; removing the last frees them */
        {
                struct runtime_image_prune pr;
                cleanup_free char *layer = xasprintf("%s/images/layers/%s", data, d1);
                assert_int_equal(runtime_image_remove(data, "example.com/a/b:1", &pr, &err), 0);
                assert_int_equal(pr.layers, 0);
                assert_int_equal(access(layer, F_OK), 0);
                assert_int_equal(runtime_image_remove(data, "other:2", &pr, &err), 0);
                assert_int_equal(pr.layers, 2);
                assert_int_equal(pr.blobs, 1);
                assert_int_equal(access(layer, F_OK), -1);
                assert_int_equal(runtime_image_remove(data, "other:2", &pr, &err), -ENOENT);
                assert_string_equal(err->message,
                                    "image \"other:2\" not found in the local image store");
                error_free(TAKE_PTR(err));
        }

        /* a layer a container stands on (its run's spec.json names it) outlives its image */
        {
                struct runtime_image_prune pr;
                cleanup_free char *layer = xasprintf("%s/images/layers/%s", data, d1);
                cleanup_free char *run = xasprintf("%s/pods/u1/containers/c/1", data);
                cleanup_free char *spec =
                        xasprintf("{\"image\":{\"lowerdirs\":[\"%s/fs\"]}}", layer);
                cleanup_close int rfd = -1;

                if (rt_image_import_tree(data, rootfd, "other:2", &st, &refs, &err) < 0)
                        fail_msg("import: %s", err->message);
                json_decref(refs);
                assert_int_equal(fs_mkdir_p(run, 0755), 0);
                rfd = open(run, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                assert_true(rfd >= 0);
                assert_int_equal(fs_write_file_atomic(rfd, RT_SPEC_FILE, spec, strlen(spec)), 0);
                assert_int_equal(runtime_image_remove(data, "other:2", &pr, &err), 0);
                assert_int_equal(pr.layers, 1);
                assert_int_equal(access(layer, F_OK), 0);
        }

        /* a layer whose bytes are not the config's diffID is refused */
        put(l2, "not the layer the config names");
        assert_int_equal(rt_image_import_tree(data, rootfd, NULL, &st, &refs, &err), -EBADMSG);
        assert_non_null(strstr(err->message, "the config says sha256:"));
        error_free(TAKE_PTR(err));

        /* paths in manifest.json stay inside the archive */
        put(man_path, "[{\"Config\":\"../../../../etc/passwd\",\"RepoTags\":[\"x:1\"],"
                      "\"Layers\":[]}]");
        assert_true(rt_image_import_tree(data, rootfd, NULL, &st, &refs, &err) < 0);
        error_free(TAKE_PTR(err));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_reader_filters),
                cmocka_unit_test(test_whiteouts),
                cmocka_unit_test(test_import_docker_tree),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
