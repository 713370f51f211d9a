/* tar.c: extracts one image layer or root filesystem tarball below a root directory and nothing
 * else. libarchive reads the stream (ustar, GNU, pax; gzip or zstd compressed, told apart by
 * their bytes) and hands us each entry's metadata and data; we create every file ourselves after
 * checking its name: ".." components refuse the tarball, everything is created through openat2
 * RESOLVE_IN_ROOT so symbolic links in the tree resolve inside the root, device nodes are
 * skipped. With whiteouts on, OCI whiteouts become overlayfs ones (image-spec layer.md). */
#include <archive.h>
#include <archive_entry.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gnutls/crypto.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/macro.h"
#include "node/runtime/runtime-internal.h"

/* image-spec layer.md: ".wh.NAME" hides NAME of the layers below, ".wh..wh..opq" every entry of
 * its directory below; other ".wh..wh." names are aufs metadata, never applied (containerd's
 * archive/tar.go skips them too). */
#define WH_PREFIX ".wh."
#define WH_META   ".wh..wh."
#define WH_OPAQUE ".wh..wh..opq"

/* libarchive is loaded the first time a tarball is read, not when flexlet starts: with what it
 * links (libxml2, ICU, lzma, lz4, bzip2, libacl) it is 1.2 MiB of an idle `flexlet serve`'s
 * resident memory, and most processes never unpack a layer (an API server; a node agent between
 * pulls). systemd loads its optional libraries the same way (its dlopen-util). */
#define LIBARCHIVE_SONAME "libarchive.so.13"

/* the functions tar.c calls, each through sym_NAME once libarchive_load succeeded */
/* clang-format off */
#define LIBARCHIVE_SYMS(X) \
        X(archive_errno) \
        X(archive_error_string) \
        X(archive_filter_count) \
        X(archive_read_new) \
        X(archive_read_free) \
        X(archive_read_support_filter_gzip) \
        X(archive_read_support_filter_zstd) \
        X(archive_read_support_format_tar) \
        X(archive_read_support_format_gnutar) \
        X(archive_read_support_format_raw) \
        X(archive_read_open_fd) \
        X(archive_read_next_header) \
        X(archive_read_data) \
        X(archive_entry_pathname) \
        X(archive_entry_hardlink) \
        X(archive_entry_symlink) \
        X(archive_entry_filetype) \
        X(archive_entry_size) \
        X(archive_entry_perm) \
        X(archive_entry_uid) \
        X(archive_entry_gid) \
        X(archive_entry_mtime)
/* clang-format on */
#define DECLARE_SYM(f) static typeof(f) *sym_##f;
LIBARCHIVE_SYMS(DECLARE_SYM)
#undef DECLARE_SYM

static pthread_once_t libarchive_once = PTHREAD_ONCE_INIT;
static char libarchive_error[256]; /* empty once every symbol is found */

static void libarchive_open(void)
{
/* clang-format off */
#define SYM_ENTRY(f) { #f, (void **) &sym_##f },
        /* clang-format on */
        const struct {
                const char *name;
                void **sym;
        } syms[] = { LIBARCHIVE_SYMS(SYM_ENTRY) };
#undef SYM_ENTRY
        void *dl = dlopen(LIBARCHIVE_SONAME, RTLD_NOW | RTLD_LOCAL);

        if (!dl) {
                (void) snprintf(libarchive_error, sizeof(libarchive_error), "%s", dlerror());
                return;
        }
        for (size_t i = 0; i < ARRAY_SIZE(syms); i++) {
                *syms[i].sym = dlsym(dl, syms[i].name);
                if (!*syms[i].sym) {
                        (void) snprintf(libarchive_error, sizeof(libarchive_error), "%s: no %s",
                                        LIBARCHIVE_SONAME, syms[i].name);
                        return; /* the library stays loaded: a failed dlclose gains nothing */
                }
        }
}

/* libarchive's functions, loaded once; an error when the library cannot be. */
static int libarchive_load(struct error **reterr)
{
        (void) pthread_once(&libarchive_once, libarchive_open);
        if (libarchive_error[0])
                return error_set(reterr, ELIBACC, "reading image tarballs needs libarchive: %s",
                                 libarchive_error);
        return 0;
}

/* A member name made relative to the root: leading '/' and "./" dropped, empty and "."
 * components removed; ".." anywhere is refused. Returns "" for the root itself. */
static int normalize(const char *name, char **ret)
{
        cleanup_free char *copy = xstrdup(name);
        struct strbuf out;
        char *save = NULL;

        strbuf_init(&out);
        for (char *c = strtok_r(copy, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
                if (streq(c, "."))
                        continue;
                if (streq(c, "..")) {
                        strbuf_release(&out);
                        return -EPERM;
                }
                if (out.len)
                        strbuf_addch(&out, '/');
                strbuf_addstr(&out, c);
        }
        if (out.len >= PATH_MAX) {
                strbuf_release(&out);
                return -ENAMETOOLONG;
        }
        *ret = strbuf_detach(&out);
        return 0;
}

/* The parent dir of rel (created as needed, resolved in the root) and rel's last component. */
static int open_parent(int rootfd, const char *rel, const char **ret_base)
{
        const char *slash = strrchr(rel, '/');
        cleanup_free char *dir = NULL;

        if (!slash) {
                *ret_base = rel;
                return rt_open_in_root(rootfd, ".", O_PATH | O_DIRECTORY);
        }
        *ret_base = slash + 1;
        dir = xstrndup(rel, (size_t) (slash - rel));
        return rt_create_in_root(rootfd, dir, false);
}

/* Makes room for a new entry: an existing non-directory goes; an existing directory stays
 * when keep_dir, else goes only when empty. */
static int clear_entry(int dirfd, const char *base, bool keep_dir)
{
        struct stat st;

        if (fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return errno == ENOENT ? 0 : -errno;
        if (S_ISDIR(st.st_mode)) {
                if (keep_dir)
                        return 1;
                return unlinkat(dirfd, base, AT_REMOVEDIR) < 0 ? -errno : 0;
        }
        return unlinkat(dirfd, base, 0) < 0 ? -errno : 0;
}

struct member {
        mode_t type;    /* AE_IF* */
        char *name;     /* normalised */
        char *linkname; /* raw, for symlinks; normalised for hard links; NULL otherwise */
        int64_t size, uid, gid;
        mode_t mode;
        int64_t mtime;
};

static void set_owner_times(int dirfd, const char *base, const struct member *m, bool times)
{
        if (geteuid() == 0)
                (void) fchownat(dirfd, base, (uid_t) m->uid, (gid_t) m->gid, AT_SYMLINK_NOFOLLOW);
        if (times) {
                struct timespec ts[2] = { { .tv_sec = m->mtime }, { .tv_sec = m->mtime } };
                (void) utimensat(dirfd, base, ts, AT_SYMLINK_NOFOLLOW);
        }
}

static int data_error(struct archive *a, const struct member *m, struct error **reterr)
{
        int e = sym_archive_errno(a);
        const char *s = sym_archive_error_string(a);

        if (e <= 0)
                e = EINVAL;
        if (!s || strstr(s, "Truncated") || strstr(s, "truncated") || strstr(s, "Premature"))
                return error_set(reterr, e, "\"%s\": the tarball ends inside it", m->name);
        return error_set(reterr, e, "\"%s\": %s", m->name, s);
}

static int write_file(struct archive *a, int dirfd, const char *base, const struct member *m,
                      struct rt_tar_stats *st, struct error **reterr)
{
        cleanup_close int fd = -1;
        char buf[65536];
        int64_t total = 0;
        int r;

        r = clear_entry(dirfd, base, false);
        if (r < 0)
                return error_set(reterr, -r, "\"%s\": %s", m->name, strerror(-r));
        fd = openat(dirfd, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0)
                return error_set(reterr, errno, "\"%s\": create: %s", m->name, strerror(errno));
        for (;;) {
                la_ssize_t got = sym_archive_read_data(a, buf, sizeof(buf));
                if (got < 0)
                        return data_error(a, m, reterr);
                if (got == 0)
                        break;
                errno = 0;
                if (write(fd, buf, (size_t) got) != (ssize_t) got) {
                        int e = errno ? errno : EIO;
                        return error_set(reterr, e, "\"%s\": write: %s", m->name, strerror(e));
                }
                total += got;
        }
        if (total < m->size)
                return error_set(reterr, EPIPE, "\"%s\": the tarball ends inside it", m->name);
        /* chown first: it clears set-id bits that fchmod then sets */
        if (geteuid() == 0)
                (void) fchown(fd, (uid_t) m->uid, (gid_t) m->gid);
        (void) fchmod(fd, m->mode & 07777);
        {
                struct timespec ts[2] = { { .tv_sec = m->mtime }, { .tv_sec = m->mtime } };
                (void) futimens(fd, ts);
        }
        st->files++;
        st->bytes += (uint64_t) total;
        return 0;
}

/* An OCI whiteout entry: 1 when it was one (and applied), 0 when m is an ordinary entry. */
static int apply_whiteout(int dirfd, const char *base, const struct member *m,
                          struct rt_tar_stats *st, struct error **reterr)
{
        const char *hidden;
        int r;

        if (strncmp(base, WH_PREFIX, strlen(WH_PREFIX)) != 0)
                return 0;
        if (streq(base, WH_OPAQUE)) {
                /* overlayfs: an opaque directory hides the lower layers' entries of it */
                if (fsetxattr(dirfd, "trusted.overlay.opaque", "y", 1, 0) < 0)
                        return error_set(reterr, errno, "\"%s\": mark the directory opaque: %s",
                                         m->name, strerror(errno));
                st->opaque_dirs++;
                return 1;
        }
        if (strncmp(base, WH_META, strlen(WH_META)) == 0)
                return 1;
        hidden = base + strlen(WH_PREFIX);
        if (!*hidden || streq(hidden, ".") || streq(hidden, ".."))
                return error_set(reterr, EPERM, "\"%s\": not a whiteout of a name", m->name);
        /* overlayfs: a character device 0/0 hides the name in the layers below */
        r = clear_entry(dirfd, hidden, false);
        if (r == 1 || (r == 0 && mknodat(dirfd, hidden, S_IFCHR | 0, makedev(0, 0)) < 0))
                r = r == 1 ? -EISDIR : -errno;
        if (r < 0)
                return error_set(reterr, -r, "\"%s\": whiteout: %s", m->name, strerror(-r));
        st->whiteouts++;
        return 1;
}

static int extract_member(struct archive *a, int rootfd, const struct member *m, bool whiteouts,
                          struct rt_tar_stats *st, struct error **reterr)
{
        cleanup_close int dirfd = -1;
        const char *base;
        int r;

        if (!*m->name)
                return 0; /* the root itself: nothing to create */
        dirfd = open_parent(rootfd, m->name, &base);
        if (dirfd < 0)
                return error_set(reterr, -dirfd, "\"%s\": parent directory: %s", m->name,
                                 strerror(-dirfd));
        if (whiteouts && strncmp(base, WH_PREFIX, strlen(WH_PREFIX)) == 0) {
                /* open_parent gives an O_PATH fd; fsetxattr and mknodat need a real one */
                cleanup_close int real = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (real < 0)
                        return error_set(reterr, errno, "\"%s\": parent directory: %s", m->name,
                                         strerror(errno));
                r = apply_whiteout(real, base, m, st, reterr);
                if (r != 0)
                        return r < 0 ? r : 0;
        }
        if (m->linkname && m->type != AE_IFLNK) {
                cleanup_close int tdir = -1;
                const char *tbase;
                struct stat tst;

                tdir = open_parent(rootfd, m->linkname, &tbase);
                if (tdir < 0 || fstatat(tdir, tbase, &tst, AT_SYMLINK_NOFOLLOW) < 0)
                        return error_set(
                                reterr, EINVAL,
                                "\"%s\": hard link to \"%s\", which is not in the tarball before it",
                                m->name, m->linkname);
                if (S_ISDIR(tst.st_mode))
                        return error_set(reterr, EINVAL, "\"%s\": hard link to a directory",
                                         m->name);
                r = clear_entry(dirfd, base, false);
                if (r == 0 && linkat(tdir, tbase, dirfd, base, 0) < 0)
                        r = -errno;
                if (r < 0)
                        return error_set(reterr, -r, "\"%s\": link: %s", m->name, strerror(-r));
                st->hardlinks++;
                return 0;
        }
        switch (m->type) {
        case AE_IFDIR:
                r = clear_entry(dirfd, base, true);
                if (r == 0 && mkdirat(dirfd, base, 0700) < 0)
                        r = -errno;
                if (r < 0)
                        return error_set(reterr, -r, "\"%s\": mkdir: %s", m->name, strerror(-r));
                set_owner_times(dirfd, base, m, false);
                (void) fchmodat(dirfd, base, m->mode & 07777, 0);
                st->dirs++;
                return 0;
        case AE_IFLNK:
                r = clear_entry(dirfd, base, false);
                if (r == 0 && symlinkat(m->linkname, dirfd, base) < 0)
                        r = -errno;
                if (r < 0)
                        return error_set(reterr, -r, "\"%s\": symlink: %s", m->name, strerror(-r));
                set_owner_times(dirfd, base, m, true);
                st->symlinks++;
                return 0;
        case AE_IFCHR:
        case AE_IFBLK:
        case AE_IFSOCK:
                /* device nodes: never from an image; /dev is the runtime's */
                st->skipped_devices++;
                return 0;
        case AE_IFIFO:
                r = clear_entry(dirfd, base, false);
                if (r == 0 && mknodat(dirfd, base, S_IFIFO | (m->mode & 0777), 0) < 0)
                        r = -errno;
                if (r < 0)
                        return error_set(reterr, -r, "\"%s\": mkfifo: %s", m->name, strerror(-r));
                set_owner_times(dirfd, base, m, true);
                (void) fchmodat(dirfd, base, m->mode & 07777, 0);
                st->fifos++;
                return 0;
        default:
                /* a regular file; as POSIX asks, libarchive reads unknown types as one too */
                return write_file(a, dirfd, base, m, st, reterr);
        }
}

static void member_release(struct member *m)
{
        free(m->name);
        free(m->linkname);
        *m = (struct member){ 0 };
}

/* The refusal for a stream libarchive could not open or read as a tar. */
static int header_error(struct archive *a, bool first, uint64_t entries, struct error **reterr)
{
        const char *s = sym_archive_error_string(a);
        int e = sym_archive_errno(a) > 0 ? sym_archive_errno(a) : EINVAL;

        if (first && sym_archive_filter_count(a) <= 1 && s && strstr(s, "Unrecognized archive"))
                return error_set(
                        reterr, EINVAL,
                        "not a tar archive (uncompressed, gzip or zstd; decompress bzip2 or xz first)");
        return error_set(reterr, e, "read the tarball at entry %llu: %s",
                         (unsigned long long) entries + 1, s ? s : "unreadable");
}

int rt_tar_extract(int fd, int rootfd, const struct rt_tar_options *opts,
                   struct rt_tar_stats *ret_stats, struct error **reterr)
{
        struct archive *a;
        struct archive_entry *e;
        struct rt_tar_stats st = { 0 };
        bool whiteouts = opts && opts->whiteouts;
        uint64_t entries = 0;
        struct stat fst;
        int r = libarchive_load(reterr);

        if (r < 0)
                return r;
        a = sym_archive_read_new();

        if (fstat(fd, &fst) == 0 && S_ISREG(fst.st_mode) && fst.st_size == 0) {
                sym_archive_read_free(a);
                return error_set(reterr, EPIPE, "read the tarball: it is empty");
        }
        /* only these: libarchive would otherwise run external programs for other filters
         * (ARCHIVE_WARN says it would for these too, when built without the library) */
        if (sym_archive_read_support_filter_gzip(a) != ARCHIVE_OK ||
            sym_archive_read_support_filter_zstd(a) != ARCHIVE_OK ||
            sym_archive_read_support_format_tar(a) != ARCHIVE_OK ||
            sym_archive_read_support_format_gnutar(a) != ARCHIVE_OK) {
                sym_archive_read_free(a);
                return error_set(reterr, ENOTSUP, "libarchive: gzip, zstd or tar not built in");
        }
        if (sym_archive_read_open_fd(a, fd, 65536) != ARCHIVE_OK) {
                r = header_error(a, true, 0, reterr);
                sym_archive_read_free(a);
                return r;
        }
        for (;;) {
                struct member m = { 0 };
                const char *raw_name, *hard, *sym;
                int h = sym_archive_read_next_header(a, &e);

                if (h == ARCHIVE_EOF)
                        break;
                if (h != ARCHIVE_OK && h != ARCHIVE_WARN) {
                        r = header_error(a, entries == 0, entries, reterr);
                        break;
                }
                raw_name = sym_archive_entry_pathname(e);
                if (!raw_name) {
                        r = error_set(reterr, EINVAL, "entry %llu: a name that is not text",
                                      (unsigned long long) entries + 1);
                        break;
                }
                entries++;
                hard = sym_archive_entry_hardlink(e);
                sym = sym_archive_entry_symlink(e);
                m.type = sym_archive_entry_filetype(e);
                m.size = sym_archive_entry_size(e);
                m.mode = sym_archive_entry_perm(e) & 07777;
                m.uid = sym_archive_entry_uid(e);
                m.gid = sym_archive_entry_gid(e);
                m.mtime = sym_archive_entry_mtime(e);
                if (m.uid < 0 || m.gid < 0 || m.uid > UINT32_MAX - 1 || m.gid > UINT32_MAX - 1)
                        m.uid = m.gid = 0;
                if (m.size < 0)
                        m.size = 0;
                if (normalize(raw_name, &m.name) < 0) {
                        r = error_set(reterr, EPERM, "\"%s\": the name leads out of the root",
                                      raw_name);
                        break;
                }
                if (hard) {
                        if (normalize(hard, &m.linkname) < 0 || !*m.linkname) {
                                r = error_set(reterr, EPERM,
                                              "\"%s\": hard link to \"%s\" leads out of the root",
                                              raw_name, hard);
                                member_release(&m);
                                break;
                        }
                } else if (m.type == AE_IFLNK) {
                        if (!sym || !*sym) {
                                r = error_set(reterr, EINVAL,
                                              "\"%s\": symbolic link without a target", raw_name);
                                member_release(&m);
                                break;
                        }
                        m.linkname = xstrdup(sym);
                }
                r = extract_member(a, rootfd, &m, whiteouts, &st, reterr);
                member_release(&m);
                if (r < 0)
                        break;
        }
        sym_archive_read_free(a);
        if (r < 0)
                return r;
        if (ret_stats)
                *ret_stats = st;
        return 0;
}

int rt_tar_uncompressed_sha256(int fd, char ret[static 65], struct error **reterr)
{
        struct archive *a;
        struct archive_entry *e;
        gnutls_hash_hd_t h;
        unsigned char d[32], buf[65536];
        la_ssize_t n;
        int r = libarchive_load(reterr);

        if (r < 0)
                return r;
        a = sym_archive_read_new();

        if (lseek(fd, 0, SEEK_SET) < 0) {
                sym_archive_read_free(a);
                return error_set(reterr, errno, "seek: %s", strerror(errno));
        }
        /* the raw format: the stream's bytes after gzip or zstd, whatever they hold */
        if (sym_archive_read_support_filter_gzip(a) != ARCHIVE_OK ||
            sym_archive_read_support_filter_zstd(a) != ARCHIVE_OK ||
            sym_archive_read_support_format_raw(a) != ARCHIVE_OK ||
            sym_archive_read_open_fd(a, fd, 65536) != ARCHIVE_OK ||
            sym_archive_read_next_header(a, &e) != ARCHIVE_OK) {
                r = error_set(reterr, EINVAL, "read: %s",
                              sym_archive_error_string(a) ?: "not gzip, zstd or plain");
                sym_archive_read_free(a);
                return r;
        }
        if (gnutls_hash_init(&h, GNUTLS_DIG_SHA256) < 0) {
                sym_archive_read_free(a);
                return error_set(reterr, ENOMEM, "sha256: out of memory");
        }
        while ((n = sym_archive_read_data(a, buf, sizeof(buf))) > 0)
                (void) gnutls_hash(h, buf, (size_t) n);
        gnutls_hash_deinit(h, d);
        if (n < 0)
                r = error_set(reterr, EINVAL, "decompress: %s",
                              sym_archive_error_string(a) ?: "corrupt");
        sym_archive_read_free(a);
        if (r < 0)
                return r;
        for (size_t i = 0; i < sizeof(d); i++)
                (void) snprintf(ret + 2 * i, 3, "%02x", d[i]);
        return lseek(fd, 0, SEEK_SET) < 0 ? -errno : 0;
}
