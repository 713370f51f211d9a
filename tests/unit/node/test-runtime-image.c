/* test-runtime-image.c: the local image store: image names read as Docker references (and the
 * kubelet's InvalidImageName words), the store layout, the built-in busybox assembled from the
 * host's static busybox, imports, a missing image's message, and the tar reader's safety:
 * tarballs built here byte by byte try to leave the root through "..", absolute names,
 * symbolic links and hard links, and carry device nodes. */
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

#define SHA "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static char tmp[64];

static int setup(void **state)
{
        strcpy(tmp, "/tmp/test-runtime-image-XXXXXX");
        return mkdtemp(tmp) ? 0 : -1;
}

static int teardown(void **state)
{
        return fs_remove_tree(tmp);
}

/* ------------------------------------------------------------------ names */

static void test_names(void **state)
{
        static const struct {
                const char *in, *reference, *subdir;
        } ok[] = {
                { "busybox", "docker.io/library/busybox:latest",
                  "docker.io/library/busybox/latest" },
                { "busybox:1.36", "docker.io/library/busybox:1.36",
                  "docker.io/library/busybox/1.36" },
                { "docker.io/library/busybox:1.36", "docker.io/library/busybox:1.36", NULL },
                { "library/busybox", "docker.io/library/busybox:latest", NULL },
                { "index.docker.io/busybox", "docker.io/library/busybox:latest", NULL },
                { "user/app", "docker.io/user/app:latest", NULL },
                { "quay.io/org/app:v1.2_3-rc", "quay.io/org/app:v1.2_3-rc",
                  "quay.io/org/app/v1.2_3-rc" },
                { "localhost:5000/app", "localhost:5000/app:latest", "localhost+5000/app/latest" },
                { "localhost/app", "localhost/app:latest", NULL },
                { "registry.example.com/a/b/c@" SHA, "registry.example.com/a/b/c@" SHA,
                  "registry.example.com/a/b/c/sha256+0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" },
                { "busybox:1.36@" SHA, "docker.io/library/busybox:1.36@" SHA, NULL },
                { "a.b/c__d/e-f--g/h.i:T", "a.b/c__d/e-f--g/h.i:T", NULL },
        };
        static const struct {
                const char *in, *message;
        } bad[] = {
                { "Busybox",
                  "couldn't parse image name \"Busybox\": invalid reference format: repository name (library/Busybox) must be lowercase" },
                { "busybox:", "couldn't parse image name \"busybox:\": invalid reference format" },
                { ":tag", "couldn't parse image name \":tag\": invalid reference format" },
                { "a//b", "couldn't parse image name \"a//b\": invalid reference format" },
                { "-bad", "couldn't parse image name \"-bad\": invalid reference format" },
                { "bad-", "couldn't parse image name \"bad-\": invalid reference format" },
                { "a___b", "couldn't parse image name \"a___b\": invalid reference format" },
                { "busybox@sha256:123",
                  "couldn't parse image name \"busybox@sha256:123\": invalid reference format" },
                { "busybox:-x",
                  "couldn't parse image name \"busybox:-x\": invalid reference format" },
                { "host:port/x",
                  "couldn't parse image name \"host:port/x\": invalid reference format" },
                { "", "couldn't parse image name \"\": invalid reference format" },
        };

        for (size_t i = 0; i < ARRAY_SIZE(ok); i++) {
                struct rt_image_name n;
                struct error *err = NULL;

                if (rt_image_name_parse(ok[i].in, &n, &err) < 0)
                        fail_msg("\"%s\": %s", ok[i].in, err->message);
                assert_string_equal(n.reference, ok[i].reference);
                if (ok[i].subdir) {
                        cleanup_free char *sub = rt_image_store_subdir(&n);
                        assert_string_equal(sub, ok[i].subdir);
                }
                rt_image_name_release(&n);
        }
        for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
                struct rt_image_name n;
                struct error *err = NULL;

                if (rt_image_name_parse(bad[i].in, &n, &err) == 0)
                        fail_msg("\"%s\" parsed as \"%s\"", bad[i].in, n.reference);
                assert_int_equal(err->errnum, EINVAL);
                assert_string_equal(err->message, bad[i].message);
                error_free(err);
        }
}

/* ------------------------------------------------------------------ tarballs */

struct tarball {
        struct strbuf sb;
};

static void octal(char *field, size_t n, uint64_t v)
{
        (void) snprintf(field, n, "%0*llo", (int) n - 1, (unsigned long long) v);
}

/* One member; data may be NULL. Writes ustar (POSIX magic). */
static void member(struct tarball *t, const char *name, char type, unsigned mode, const char *data,
                   size_t len, const char *link)
{
        char h[512];
        unsigned sum = 0;

        memset(h, 0, sizeof(h));
        strncpy(h, name, 100);
        octal(h + 100, 8, mode);
        octal(h + 108, 8, 0);
        octal(h + 116, 8, 0);
        octal(h + 124, 12, len);
        octal(h + 136, 12, 1700000000);
        memset(h + 148, ' ', 8);
        h[156] = type;
        if (link)
                strncpy(h + 157, link, 100);
        memcpy(h + 257,
               "ustar\0"
               "00",
               8);
        for (size_t i = 0; i < 512; i++)
                sum += (unsigned char) h[i];
        (void) snprintf(h + 148, 8, "%06o", sum);
        strbuf_add(&t->sb, h, 512);
        if (len) {
                char zero[512] = { 0 };
                strbuf_add(&t->sb, data, len);
                strbuf_add(&t->sb, zero, (512 - len % 512) % 512);
        }
}

static void file(struct tarball *t, const char *name, const char *text)
{
        member(t, name, '0', 0644, text, strlen(text), NULL);
}

static void finish(struct tarball *t)
{
        char zero[1024] = { 0 };

        strbuf_add(&t->sb, zero, sizeof(zero));
}

/* Extracts t into a fresh TMP/<name>/root; returns the result and leaves *ret_root. */
static int extract(struct tarball *t, const char *name, char **ret_root, struct rt_tar_stats *st,
                   struct error **err)
{
        cleanup_free char *base = xasprintf("%s/%s", tmp, name);
        cleanup_free char *tarpath = xasprintf("%s/%s.tar", tmp, name);
        char *root = xasprintf("%s/root", base);
        cleanup_close int rootfd = -1, fd = -1;
        FILE *f;

        assert_int_equal(mkdir(base, 0755), 0);
        assert_int_equal(mkdir(root, 0755), 0);
        f = fopen(tarpath, "w");
        assert_non_null(f);
        fwrite(t->sb.buf, 1, t->sb.len, f);
        fclose(f);
        fd = open(tarpath, O_RDONLY | O_CLOEXEC);
        rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        *ret_root = root;
        return rt_tar_extract(fd, rootfd, NULL, st, err);
}

static char *read_text(const char *dir, const char *name)
{
        cleanup_free char *p = xasprintf("%s/%s", dir, name);
        cleanup_close int dfd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        char *s = NULL;

        if (fs_read_file_at(dfd, p + 1, 1 << 20, &s, NULL) < 0)
                return NULL;
        return s;
}

static void test_tar_extracts(void **state)
{
        struct tarball t;
        struct rt_tar_stats st;
        struct error *err = NULL;
        cleanup_free char *root = NULL, *passwd = NULL, *abs = NULL, *longf = NULL, *paxf = NULL;
        char link[64], longname[200], pax[300];
        struct stat a, b;
        size_t plen;

        strbuf_init(&t.sb);
        member(&t, "./", '5', 0755, NULL, 0, NULL);
        member(&t, "./etc/", '5', 0750, NULL, 0, NULL);
        member(&t, "./etc/passwd", '0', 0640, "root:x:0:0::/root:/bin/sh\n", 26, NULL);
        file(&t, "bin/busybox", "#!elf");
        member(&t, "bin/sh", '2', 0777, NULL, 0, "busybox");
        member(&t, "bin/ls", '1', 0644, NULL, 0, "./bin/busybox");
        member(&t, "dev/null", '3', 0666, NULL, 0, NULL);
        member(&t, "dev/sda", '4', 0660, NULL, 0, NULL);
        member(&t, "run/fifo", '6', 0600, NULL, 0, NULL);
        file(&t, "/abs/file", "absolute names are taken as relative\n");
        /* GNU long name */
        memset(longname, 'n', 150);
        longname[150] = '\0';
        member(&t, "././@LongLink", 'L', 0644, longname, 151, NULL);
        file(&t, "truncated-name", "long\n");
        /* pax path */
        /* a record's length counts its own digits: " path=pax/from-pax.txt\n" is 23, +2 */
        plen = (size_t) snprintf(pax, sizeof(pax), "%d path=pax/%s\n", 25, "from-pax.txt");
        assert_int_equal(plen, 25);
        member(&t, "PaxHeaders/x", 'x', 0644, pax, plen, NULL);
        file(&t, "ignored-name", "pax\n");
        finish(&t);

        if (extract(&t, "ok", &root, &st, &err) < 0)
                fail_msg("extract: %s", err->message);
        strbuf_release(&t.sb);

        passwd = read_text(root, "etc/passwd");
        assert_string_equal(passwd, "root:x:0:0::/root:/bin/sh\n");
        {
                cleanup_free char *p = xasprintf("%s/etc/passwd", root);
                cleanup_free char *d = xasprintf("%s/etc", root);
                assert_int_equal(stat(p, &a), 0);
                assert_int_equal(a.st_mode & 07777, 0640);
                assert_int_equal(stat(d, &a), 0);
                assert_int_equal(a.st_mode & 07777, 0750);
        }
        {
                cleanup_free char *sh = xasprintf("%s/bin/sh", root);
                cleanup_free char *ls = xasprintf("%s/bin/ls", root);
                cleanup_free char *bb = xasprintf("%s/bin/busybox", root);
                ssize_t n = readlink(sh, link, sizeof(link) - 1);
                assert_true(n > 0);
                link[n] = '\0';
                assert_string_equal(link, "busybox");
                assert_int_equal(stat(ls, &a), 0);
                assert_int_equal(stat(bb, &b), 0);
                assert_int_equal(a.st_ino, b.st_ino);
                assert_int_equal(b.st_mtime, 1700000000);
        }
        {
                cleanup_free char *null = xasprintf("%s/dev/null", root);
                cleanup_free char *fifo = xasprintf("%s/run/fifo", root);
                assert_int_equal(lstat(null, &a), -1);
                assert_int_equal(lstat(fifo, &a), 0);
                assert_true(S_ISFIFO(a.st_mode));
        }
        abs = read_text(root, "abs/file");
        assert_string_equal(abs, "absolute names are taken as relative\n");
        {
                cleanup_free char *rel = xasprintf("%s", longname);
                longf = read_text(root, rel);
                assert_non_null(longf);
                assert_string_equal(longf, "long\n");
        }
        paxf = read_text(root, "pax/from-pax.txt");
        assert_string_equal(paxf, "pax\n");
        assert_int_equal(st.skipped_devices, 2);
        assert_int_equal(st.symlinks, 1);
        assert_int_equal(st.hardlinks, 1);
        assert_int_equal(st.fifos, 1);
        assert_int_equal(st.files, 5);
}

static void test_tar_refuses_escapes(void **state)
{
        static const struct {
                const char *name;
                const char *message;
        } cases[] = {
                { "dotdot", "\"../outside/evil\": the name leads out of the root" },
                { "dotdot-inner", "\"a/../../outside/evil\": the name leads out of the root" },
                { "hardlink",
                  "\"bin/passwd\": hard link to \"../../../../etc/passwd\" leads out of the root" },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                struct tarball t;
                struct rt_tar_stats st;
                struct error *err = NULL;
                cleanup_free char *root = NULL, *outside = NULL;

                strbuf_init(&t.sb);
                file(&t, "fine", "ok\n");
                if (i == 0)
                        file(&t, "../outside/evil", "x");
                else if (i == 1)
                        file(&t, "a/../../outside/evil", "x");
                else
                        member(&t, "bin/passwd", '1', 0644, NULL, 0, "../../../../etc/passwd");
                finish(&t);
                assert_int_equal(extract(&t, cases[i].name, &root, &st, &err), -EPERM);
                assert_string_equal(err->message, cases[i].message);
                error_free(err);
                strbuf_release(&t.sb);
                outside = xasprintf("%s/%s/outside", tmp, cases[i].name);
                assert_int_equal(access(outside, F_OK), -1);
        }
}

/* Symbolic links in the tree resolve inside the root while extracting. */
static void test_tar_symlinks_stay_inside(void **state)
{
        struct tarball t;
        struct rt_tar_stats st;
        struct error *err = NULL;
        cleanup_free char *root = NULL, *inside = NULL, *outside = NULL, *escape = NULL;

        strbuf_init(&t.sb);
        member(&t, "toroot", '2', 0777, NULL, 0, "/");
        file(&t, "toroot/landed", "inside\n");
        member(&t, "up", '2', 0777, NULL, 0, "../../../..");
        file(&t, "up/also-landed", "inside too\n");
        finish(&t);
        if (extract(&t, "symlinks", &root, &st, &err) < 0)
                fail_msg("extract: %s", err->message);
        strbuf_release(&t.sb);
        inside = read_text(root, "landed");
        assert_string_equal(inside, "inside\n");
        outside = read_text(root, "also-landed");
        assert_string_equal(outside, "inside too\n");
        escape = xasprintf("%s/also-landed", tmp);
        assert_int_equal(access(escape, F_OK), -1);
        assert_int_equal(access("/landed", F_OK), -1);

        /* a link to a place outside that does not exist does not get made either */
        strbuf_init(&t.sb);
        member(&t, "away", '2', 0777, NULL, 0, "../away-target");
        file(&t, "away/x", "x");
        finish(&t);
        {
                cleanup_free char *r2 = NULL, *target = xasprintf("%s/away-target", tmp);
                assert_true(extract(&t, "symlinks2", &r2, &st, &err) < 0);
                error_free(TAKE_PTR(err));
                assert_int_equal(access(target, F_OK), -1);
        }
        strbuf_release(&t.sb);
}

static void test_tar_bad_input(void **state)
{
        static const unsigned char gzip[512] = { 0x1f, 0x8b, 8 };
        static const unsigned char xz[512] = { 0xfd, '7', 'z', 'X', 'Z', 0 };
        struct tarball t;
        struct rt_tar_stats st;
        struct error *err = NULL;
        cleanup_free char *r1 = NULL, *r2 = NULL, *r3 = NULL, *r4 = NULL, *r5 = NULL;

        /* a gzip header over garbage: libarchive's gzip filter reads it and fails */
        strbuf_init(&t.sb);
        strbuf_add(&t.sb, gzip, sizeof(gzip));
        assert_true(extract(&t, "gzip", &r1, &st, &err) < 0);
        assert_non_null(err);
        error_free(TAKE_PTR(err));
        strbuf_release(&t.sb);

        /* xz is not read (only gzip and zstd): refused with a hint, no program run */
        strbuf_init(&t.sb);
        strbuf_add(&t.sb, xz, sizeof(xz));
        assert_int_equal(extract(&t, "xz", &r5, &st, &err), -EINVAL);
        assert_string_equal(
                err->message,
                "not a tar archive (uncompressed, gzip or zstd; decompress bzip2 or xz first)");
        error_free(TAKE_PTR(err));
        strbuf_release(&t.sb);

        strbuf_init(&t.sb);
        file(&t, "a", "data");
        t.sb.buf[0] = 'b'; /* the checksum no longer matches */
        finish(&t);
        assert_true(extract(&t, "checksum", &r2, &st, &err) < 0);
        assert_non_null(err);
        error_free(TAKE_PTR(err));
        strbuf_release(&t.sb);

        strbuf_init(&t.sb);
        member(&t, "big", '0', 0644, "short", 5, NULL);
        t.sb.len = 512 + 3; /* the data ends early */
        {
                /* re-stamp the size as 5000 so the member claims more than there is */
                char *h = t.sb.buf;
                unsigned sum = 0;
                octal(h + 124, 12, 5000);
                memset(h + 148, ' ', 8);
                for (size_t i = 0; i < 512; i++)
                        sum += (unsigned char) h[i];
                (void) snprintf(h + 148, 8, "%06o", sum);
        }
        assert_true(extract(&t, "truncated", &r3, &st, &err) < 0);
        assert_string_equal(err->message, "\"big\": the tarball ends inside it");
        error_free(TAKE_PTR(err));
        strbuf_release(&t.sb);

        strbuf_init(&t.sb);
        assert_int_equal(extract(&t, "empty", &r4, &st, &err), -EPIPE);
        assert_string_equal(err->message, "read the tarball: it is empty");
        error_free(err);
        strbuf_release(&t.sb);
}

/* ------------------------------------------------------------------ the store */

static const char *host_busybox(void)
{
        if (access("/bin/busybox", X_OK) == 0)
                return "/bin/busybox";
        if (access("/usr/bin/busybox", X_OK) == 0)
                return "/usr/bin/busybox";
        return NULL;
}

static void test_elf_static(void **state)
{
        const char *bb = host_busybox();
        struct error *err = NULL;
        int fd;

        fd = open("/bin/sh", O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        assert_int_equal(rt_elf_is_static(fd, &err), -ENOEXEC); /* dash: dynamic */
        assert_string_equal(err->message, "dynamically linked");
        error_free(TAKE_PTR(err));
        close(fd);
        fd = open("/etc/passwd", O_RDONLY | O_CLOEXEC);
        assert_int_equal(rt_elf_is_static(fd, &err), -ENOEXEC);
        error_free(TAKE_PTR(err));
        close(fd);
        if (!bb)
                fail_msg(
                        "no busybox on this host: install busybox-static (scripts/install-deps.sh)");
        fd = open(bb, O_RDONLY | O_CLOEXEC);
        assert_int_equal(rt_elf_is_static(fd, NULL), 0);
        close(fd);
}

static void test_busybox_builtin(void **state)
{
        cleanup_free char *data = xasprintf("%s/data", tmp), *sh = NULL, *passwd = NULL;
        struct runtime_image img, again;
        struct error *err = NULL;
        struct stat st;

        if (!host_busybox())
                fail_msg(
                        "no busybox on this host: install busybox-static (scripts/install-deps.sh)");
        if (runtime_image_ensure(data, "busybox", &img, &err) < 0)
                fail_msg("ensure busybox: %s", err->message);
        assert_true(img.builtin);
        assert_string_equal(img.reference, "docker.io/library/busybox:latest");
        assert_null(img.entrypoint[0]);
        assert_string_equal(img.cmd[0], "sh");
        assert_null(img.cmd[1]);
        assert_string_equal(img.env[0], "PATH=" RT_DEFAULT_PATH);
        assert_string_equal(img.working_dir, "");
        {
                /* the applets are hard links of /bin/busybox, as `busybox --install` makes them */
                cleanup_free char *bb = xasprintf("%s/bin/busybox", img.rootfs);
                struct stat a, b;

                sh = xasprintf("%s/bin/sh", img.rootfs);
                assert_int_equal(lstat(sh, &a), 0);
                assert_int_equal(stat(bb, &b), 0);
                assert_true(S_ISREG(a.st_mode));
                assert_int_equal(a.st_ino, b.st_ino);
                assert_true(b.st_nlink > 100);
        }
        passwd = read_text(img.rootfs, "etc/passwd");
        assert_non_null(strstr(passwd, "root:x:0:0:root:/root:/bin/sh\n"));
        {
                cleanup_free char *t = xasprintf("%s/tmp", img.rootfs);
                assert_int_equal(stat(t, &st), 0);
                assert_int_equal(st.st_mode & 07777, 01777);
        }
        /* any tag, any spelling: the same root */
        assert_int_equal(runtime_image_ensure(data, "docker.io/library/busybox:1.36", &again, NULL),
                         0);
        assert_string_equal(again.rootfs, img.rootfs);
        assert_string_equal(again.reference, "docker.io/library/busybox:1.36");
        runtime_image_release(&again);
        runtime_image_release(&img);
}

static void test_import_and_missing(void **state)
{
        cleanup_free char *data = xasprintf("%s/data2", tmp), *tarpath = xasprintf("%s/i.tar", tmp),
                          *motd = NULL;
        static const char *const cmd[] = { "run", NULL };
        const struct runtime_image_config cfg = { .cmd = cmd, .working_dir = "/srv" };
        struct runtime_image img;
        struct error *err = NULL;
        struct tarball t;
        json_t *list = NULL;
        FILE *f;
        int fd;

        strbuf_init(&t.sb);
        file(&t, "etc/motd", "v1\n");
        finish(&t);
        f = fopen(tarpath, "w");
        fwrite(t.sb.buf, 1, t.sb.len, f);
        fclose(f);
        strbuf_release(&t.sb);

        /* missing: the message the agent shows as the waiting reason's */
        assert_int_equal(runtime_image_ensure(data, "busybox:custom-missing-import", &img, &err),
                         host_busybox() ? 0 : -ENOENT);
        if (!err)
                runtime_image_release(&img);
        error_free(TAKE_PTR(err));
        assert_int_equal(runtime_image_ensure(data, "foo", &img, &err), -ENOENT);
        assert_string_equal(
                err->message,
                "image \"foo\" not found in the local image store; import it with: flexlet image import foo FILE.tar");
        error_free(TAKE_PTR(err));
        assert_int_equal(runtime_image_ensure(data, "Foo", &img, &err), -EINVAL);
        error_free(TAKE_PTR(err));

        fd = open(tarpath, O_RDONLY | O_CLOEXEC);
        if (runtime_image_import(data, "foo:1", fd, &cfg, &err) < 0)
                fail_msg("import: %s", err->message);
        close(fd);
        assert_int_equal(runtime_image_ensure(data, "docker.io/library/foo:1", &img, &err), 0);
        assert_false(img.builtin);
        assert_string_equal(img.reference, "docker.io/library/foo:1");
        assert_string_equal(img.cmd[0], "run");
        assert_string_equal(img.working_dir, "/srv");
        motd = read_text(img.rootfs, "etc/motd");
        assert_string_equal(motd, "v1\n");
        runtime_image_release(&img);
        /* another tag is another image */
        assert_int_equal(runtime_image_ensure(data, "foo:2", &img, &err), -ENOENT);
        error_free(TAKE_PTR(err));

        /* re-import replaces */
        strbuf_init(&t.sb);
        file(&t, "etc/motd", "v2\n");
        finish(&t);
        f = fopen(tarpath, "w");
        fwrite(t.sb.buf, 1, t.sb.len, f);
        fclose(f);
        strbuf_release(&t.sb);
        fd = open(tarpath, O_RDONLY | O_CLOEXEC);
        assert_int_equal(runtime_image_import(data, "foo:1", fd, NULL, &err), 0);
        close(fd);
        assert_int_equal(runtime_image_ensure(data, "foo:1", &img, &err), 0);
        free(motd);
        motd = read_text(img.rootfs, "etc/motd");
        assert_string_equal(motd, "v2\n");
        assert_null(img.cmd[0]);
        runtime_image_release(&img);

        assert_int_equal(runtime_image_list(data, &list, NULL), 0);
        {
                bool found = false;
                size_t i;
                json_t *v;
                json_array_foreach(list, i, v) {
                        found |= streq(json_string_value(json_object_get(v, "reference")),
                                       "docker.io/library/foo:1");
                }
                assert_true(found);
        }
        json_decref(list);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_names),
                cmocka_unit_test(test_tar_extracts),
                cmocka_unit_test(test_tar_refuses_escapes),
                cmocka_unit_test(test_tar_symlinks_stay_inside),
                cmocka_unit_test(test_tar_bad_input),
                cmocka_unit_test(test_elf_static),
                cmocka_unit_test(test_busybox_builtin),
                cmocka_unit_test(test_import_and_missing),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
