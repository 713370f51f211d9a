/* tar.c: a small tar reader that extracts an image's root filesystem and nothing else:
 * ustar, GNU (long names 'L'/'K', base-256 numbers) and pax ('x' path, linkpath, size, uid,
 * gid, mtime) headers; regular files, directories, symbolic and hard links, FIFOs. We read the
 * format ourselves rather than run tar(1) so that every name is checked before anything is
 * created: ".." components refuse the tarball, everything is created through openat2
 * RESOLVE_IN_ROOT so symbolic links in the tree resolve inside the root, device nodes are
 * skipped. Compressed tarballs are refused with a hint. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "node/runtime/runtime-internal.h"

#define BLOCK          512
#define PAX_HEADER_MAX (1024 * 1024)

struct tar_header {
        char name[100];
        char mode[8];
        char uid[8];
        char gid[8];
        char size[12];
        char mtime[12];
        char chksum[8];
        char typeflag;
        char linkname[100];
        char magic[6];
        char version[2];
        char uname[32];
        char gname[32];
        char devmajor[8];
        char devminor[8];
        char prefix[155];
        char pad[12];
};

_Static_assert(sizeof(struct tar_header) == BLOCK, "a tar header is one block");

struct tar_in {
        int fd;
        uint64_t offset;
};

/* Reads exactly n bytes; -EPIPE at a premature end. */
static int read_full(struct tar_in *in, void *buf, size_t n)
{
        char *p = buf;

        while (n > 0) {
                ssize_t got = read(in->fd, p, n);
                if (got < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (got == 0)
                        return -EPIPE;
                p += got;
                n -= (size_t) got;
                in->offset += (uint64_t) got;
        }
        return 0;
}

static int skip_bytes(struct tar_in *in, uint64_t n)
{
        char buf[65536];

        while (n > 0) {
                size_t chunk = n > sizeof(buf) ? sizeof(buf) : (size_t) n;
                int r = read_full(in, buf, chunk);
                if (r < 0)
                        return r;
                n -= chunk;
        }
        return 0;
}

static uint64_t padded(uint64_t size)
{
        return (size + BLOCK - 1) / BLOCK * BLOCK;
}

/* An octal field (spaces or NULs around it), or GNU base-256 when the high bit is set. */
static int parse_number(const char *f, size_t n, uint64_t *ret)
{
        uint64_t v = 0;
        size_t i = 0;

        if ((unsigned char) f[0] & 0x80) {
                if ((unsigned char) f[0] & 0x40)
                        return -EINVAL; /* negative */
                v = (unsigned char) f[0] & 0x3f;
                for (i = 1; i < n; i++) {
                        if (v >> 56)
                                return -EOVERFLOW;
                        v = (v << 8) | (unsigned char) f[i];
                }
                *ret = v;
                return 0;
        }
        while (i < n && (f[i] == ' ' || f[i] == '\0'))
                i++;
        for (; i < n && f[i] >= '0' && f[i] <= '7'; i++) {
                if (v >> 61)
                        return -EOVERFLOW;
                v = v * 8 + (uint64_t) (f[i] - '0');
        }
        for (; i < n; i++)
                if (f[i] != ' ' && f[i] != '\0')
                        return -EINVAL;
        *ret = v;
        return 0;
}

static bool checksum_ok(const struct tar_header *h)
{
        const unsigned char *b = (const unsigned char *) h;
        uint64_t want;
        long sum_u = 0, sum_s = 0;

        if (parse_number(h->chksum, sizeof(h->chksum), &want) < 0)
                return false;
        for (size_t i = 0; i < BLOCK; i++) {
                bool in_field = i >= offsetof(struct tar_header, chksum) &&
                                i < offsetof(struct tar_header, chksum) + sizeof(h->chksum);
                sum_u += in_field ? ' ' : b[i];
                sum_s += in_field ? ' ' : (signed char) b[i];
        }
        return (uint64_t) sum_u == want || (uint64_t) sum_s == want;
}

static bool all_zero(const void *p, size_t n)
{
        const unsigned char *b = p;

        for (size_t i = 0; i < n; i++)
                if (b[i])
                        return false;
        return true;
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

struct pax {
        char *path;
        char *linkpath;
        bool has_size, has_uid, has_gid, has_mtime;
        uint64_t size, uid, gid;
        int64_t mtime;
};

static void pax_release(struct pax *p)
{
        free(p->path);
        free(p->linkpath);
        *p = (struct pax){ 0 };
}

static int parse_dec(const char *s, size_t n, uint64_t *ret)
{
        uint64_t v = 0;

        if (n == 0)
                return -EINVAL;
        for (size_t i = 0; i < n; i++) {
                if (s[i] < '0' || s[i] > '9' || v > (UINT64_MAX - 9) / 10)
                        return -EINVAL;
                v = v * 10 + (uint64_t) (s[i] - '0');
        }
        *ret = v;
        return 0;
}

/* pax records: "LEN KEY=VALUE\n", LEN counting the whole record */
static int pax_parse(const char *buf, size_t len, struct pax *p)
{
        size_t pos = 0;

        while (pos < len) {
                const char *rec = buf + pos, *sp, *eq;
                uint64_t rlen;

                sp = memchr(rec, ' ', len - pos);
                if (!sp || parse_dec(rec, (size_t) (sp - rec), &rlen) < 0 || rlen > len - pos ||
                    rlen < (uint64_t) (sp - rec) + 3 || rec[rlen - 1] != '\n')
                        return -EINVAL;
                eq = memchr(sp + 1, '=', (size_t) (rec + rlen - 1 - (sp + 1)));
                if (!eq)
                        return -EINVAL;
                {
                        size_t klen = (size_t) (eq - (sp + 1));
                        const char *val = eq + 1;
                        size_t vlen = (size_t) (rec + rlen - 1 - val);
                        const char *key = sp + 1;

                        if (klen == 4 && memcmp(key, "path", 4) == 0) {
                                free(p->path);
                                p->path = xstrndup(val, vlen);
                        } else if (klen == 8 && memcmp(key, "linkpath", 8) == 0) {
                                free(p->linkpath);
                                p->linkpath = xstrndup(val, vlen);
                        } else if (klen == 4 && memcmp(key, "size", 4) == 0) {
                                if (parse_dec(val, vlen, &p->size) < 0)
                                        return -EINVAL;
                                p->has_size = true;
                        } else if (klen == 3 && memcmp(key, "uid", 3) == 0) {
                                if (parse_dec(val, vlen, &p->uid) < 0)
                                        return -EINVAL;
                                p->has_uid = true;
                        } else if (klen == 3 && memcmp(key, "gid", 3) == 0) {
                                if (parse_dec(val, vlen, &p->gid) < 0)
                                        return -EINVAL;
                                p->has_gid = true;
                        } else if (klen == 5 && memcmp(key, "mtime", 5) == 0) {
                                const char *dot = memchr(val, '.', vlen);
                                uint64_t t;
                                if (parse_dec(val, dot ? (size_t) (dot - val) : vlen, &t) == 0 &&
                                    t <= INT64_MAX) {
                                        p->mtime = (int64_t) t;
                                        p->has_mtime = true;
                                }
                        }
                }
                pos += rlen;
        }
        return 0;
}

/* Reads a member's data (a long name or pax header) of at most max bytes. */
static int read_small(struct tar_in *in, uint64_t size, size_t max, char **ret)
{
        char *buf;
        int r;

        if (size > max)
                return -EFBIG;
        buf = xmalloc((size_t) size + 1);
        r = read_full(in, buf, (size_t) size);
        if (r == 0)
                r = skip_bytes(in, padded(size) - size);
        if (r < 0) {
                free(buf);
                return r;
        }
        buf[size] = '\0';
        *ret = buf;
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
        char type;
        char *name;     /* normalised */
        char *linkname; /* raw, for symlinks; normalised for hard links */
        uint64_t size, uid, gid;
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

static int extract_member(struct tar_in *in, int rootfd, const struct member *m,
                          struct rt_tar_stats *st, struct error **reterr)
{
        cleanup_close int dirfd = -1;
        const char *base;
        int r;

        if (!*m->name) {
                /* the root itself: nothing to create */
                return skip_bytes(in, padded(m->size));
        }
        dirfd = open_parent(rootfd, m->name, &base);
        if (dirfd < 0)
                return error_set(reterr, -dirfd, "\"%s\": parent directory: %s", m->name,
                                 strerror(-dirfd));
        switch (m->type) {
        case '5':
                r = clear_entry(dirfd, base, true);
                if (r == 0 && mkdirat(dirfd, base, 0700) < 0)
                        r = -errno;
                if (r < 0)
                        return error_set(reterr, -r, "\"%s\": mkdir: %s", m->name, strerror(-r));
                set_owner_times(dirfd, base, m, false);
                (void) fchmodat(dirfd, base, m->mode & 07777, 0);
                st->dirs++;
                return skip_bytes(in, padded(m->size));
        case '2':
                r = clear_entry(dirfd, base, false);
                if (r == 0 && symlinkat(m->linkname, dirfd, base) < 0)
                        r = -errno;
                if (r < 0)
                        return error_set(reterr, -r, "\"%s\": symlink: %s", m->name, strerror(-r));
                set_owner_times(dirfd, base, m, true);
                st->symlinks++;
                return skip_bytes(in, padded(m->size));
        case '1': {
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
                return skip_bytes(in, padded(m->size));
        }
        case '3':
        case '4':
                /* device nodes: never from an image; /dev is the runtime's */
                st->skipped_devices++;
                return skip_bytes(in, padded(m->size));
        case '6':
                r = clear_entry(dirfd, base, false);
                if (r == 0 && mknodat(dirfd, base, S_IFIFO | (m->mode & 0777), 0) < 0)
                        r = -errno;
                if (r < 0)
                        return error_set(reterr, -r, "\"%s\": mkfifo: %s", m->name, strerror(-r));
                set_owner_times(dirfd, base, m, true);
                (void) fchmodat(dirfd, base, m->mode & 07777, 0);
                st->fifos++;
                return skip_bytes(in, padded(m->size));
        default: {
                /* '0', '\0', '7' and, as POSIX asks, any unknown type: a regular file */
                cleanup_close int fd = -1;
                char buf[65536];
                uint64_t left = m->size;

                r = clear_entry(dirfd, base, false);
                if (r < 0)
                        return error_set(reterr, -r, "\"%s\": %s", m->name, strerror(-r));
                fd = openat(dirfd, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                            0600);
                if (fd < 0)
                        return error_set(reterr, errno, "\"%s\": create: %s", m->name,
                                         strerror(errno));
                while (left > 0) {
                        size_t chunk = left > sizeof(buf) ? sizeof(buf) : (size_t) left;
                        r = read_full(in, buf, chunk);
                        if (r < 0)
                                return error_set(reterr, -r, "\"%s\": %s", m->name,
                                                 r == -EPIPE ? "the tarball ends inside it"
                                                             : strerror(-r));
                        errno = 0;
                        if (write(fd, buf, chunk) != (ssize_t) chunk) {
                                int e = errno ? errno : EIO;
                                return error_set(reterr, e, "\"%s\": write: %s", m->name,
                                                 strerror(e));
                        }
                        left -= chunk;
                }
                /* chown first: it clears set-id bits that fchmod then sets */
                if (geteuid() == 0)
                        (void) fchown(fd, (uid_t) m->uid, (gid_t) m->gid);
                (void) fchmod(fd, m->mode & 07777);
                {
                        struct timespec ts[2] = { { .tv_sec = m->mtime }, { .tv_sec = m->mtime } };
                        (void) futimens(fd, ts);
                }
                st->files++;
                st->bytes += m->size;
                return skip_bytes(in, padded(m->size) - m->size);
        }
        }
}

static void member_release(struct member *m)
{
        free(m->name);
        free(m->linkname);
        *m = (struct member){ 0 };
}

int rt_tar_extract(int fd, int rootfd, struct rt_tar_stats *ret_stats, struct error **reterr)
{
        struct tar_in in = { .fd = fd };
        struct rt_tar_stats st = { 0 };
        struct pax pax = { 0 };
        cleanup_free char *long_name = NULL, *long_link = NULL;
        struct tar_header h;
        int r = 0;
        bool first = true;

        for (;;) {
                struct member m = { 0 };
                uint64_t size, v;
                cleanup_free char *raw_name = NULL, *raw_link = NULL;
                bool ustar, posix;

                r = read_full(&in, &h, sizeof(h));
                if (r == -EPIPE && !first)
                        break; /* no end-of-archive blocks: tolerated, as GNU tar does */
                if (r < 0) {
                        r = error_set(reterr, -r, "read the tarball: %s",
                                      r == -EPIPE ? "it is empty" : strerror(-r));
                        break;
                }
                if (first) {
                        const unsigned char *b = (const unsigned char *) &h;
                        if ((b[0] == 0x1f && b[1] == 0x8b) || (b[0] == 'B' && b[1] == 'Z') ||
                            (b[0] == 0xfd && b[1] == '7') || (b[0] == 0x28 && b[1] == 0xb5)) {
                                r = error_set(
                                        reterr, EINVAL,
                                        "the tarball is compressed; decompress it first (for example with gunzip, xz -d or zstd -d)");
                                break;
                        }
                }
                first = false;
                if (all_zero(&h, sizeof(h)))
                        break; /* end of archive */
                if (!checksum_ok(&h)) {
                        r = error_set(
                                reterr, EINVAL,
                                "not a tar archive, or corrupt at byte %llu (bad header checksum)",
                                (unsigned long long) (in.offset - BLOCK));
                        break;
                }
                if (parse_number(h.size, sizeof(h.size), &size) < 0) {
                        r = error_set(reterr, EINVAL, "bad size field at byte %llu",
                                      (unsigned long long) (in.offset - BLOCK));
                        break;
                }
                ustar = memcmp(h.magic, "ustar", 5) == 0;
                posix = ustar && h.magic[5] == '\0';

                /* extension headers describe the next member */
                if (h.typeflag == 'x' || h.typeflag == 'g' || h.typeflag == 'L' ||
                    h.typeflag == 'K') {
                        cleanup_free char *data = NULL;
                        size_t max =
                                h.typeflag == 'L' || h.typeflag == 'K' ? PATH_MAX : PAX_HEADER_MAX;
                        r = read_small(&in, size, max, &data);
                        if (r < 0) {
                                r = error_set(reterr, -r, "read an extended header: %s",
                                              r == -EFBIG ? "too large" : strerror(-r));
                                break;
                        }
                        if (h.typeflag == 'x') {
                                if (pax_parse(data, (size_t) size, &pax) < 0) {
                                        r = error_set(reterr, EINVAL, "bad pax header at byte %llu",
                                                      (unsigned long long) in.offset);
                                        break;
                                }
                        } else if (h.typeflag == 'L') {
                                free(long_name);
                                long_name = TAKE_PTR(data);
                        } else if (h.typeflag == 'K') {
                                free(long_link);
                                long_link = TAKE_PTR(data);
                        }
                        continue;
                }
                if (h.typeflag == 'S' || h.typeflag == 'M' || h.typeflag == 'V') {
                        r = error_set(
                                reterr, ENOTSUP,
                                "GNU sparse, multi-volume and volume members are not supported");
                        break;
                }

                if (pax.path)
                        raw_name = TAKE_PTR(pax.path);
                else if (long_name)
                        raw_name = TAKE_PTR(long_name);
                else if (posix && h.prefix[0])
                        raw_name = xasprintf("%.155s/%.100s", h.prefix, h.name);
                else
                        raw_name = xstrndup(h.name, sizeof(h.name));
                if (pax.linkpath)
                        raw_link = TAKE_PTR(pax.linkpath);
                else if (long_link)
                        raw_link = TAKE_PTR(long_link);
                else
                        raw_link = xstrndup(h.linkname, sizeof(h.linkname));

                m.type = h.typeflag;
                m.size = pax.has_size ? pax.size : size;
                if (parse_number(h.mode, sizeof(h.mode), &v) < 0)
                        v = 0644;
                m.mode = (mode_t) (v & 07777);
                m.uid = pax.has_uid ? pax.uid
                                    : (parse_number(h.uid, sizeof(h.uid), &v) < 0 ? 0 : v);
                m.gid = pax.has_gid ? pax.gid
                                    : (parse_number(h.gid, sizeof(h.gid), &v) < 0 ? 0 : v);
                if (pax.has_mtime)
                        m.mtime = pax.mtime;
                else
                        m.mtime = parse_number(h.mtime, sizeof(h.mtime), &v) < 0 ? 0 : (int64_t) v;
                if (m.uid > UINT32_MAX - 1 || m.gid > UINT32_MAX - 1)
                        m.uid = m.gid = 0;
                if (m.type == 'D')
                        m.type = '5'; /* GNU dumpdir: a directory with a listing as data */
                pax_release(&pax);

                if (normalize(raw_name, &m.name) < 0) {
                        r = error_set(reterr, EPERM, "\"%s\": the name leads out of the root",
                                      raw_name);
                        break;
                }
                if (m.type == '1') {
                        if (normalize(raw_link, &m.linkname) < 0 || !*m.linkname) {
                                r = error_set(reterr, EPERM,
                                              "\"%s\": hard link to \"%s\" leads out of the root",
                                              raw_name, raw_link);
                                member_release(&m);
                                break;
                        }
                } else {
                        m.linkname = TAKE_PTR(raw_link);
                }
                if (m.type == '2' && !*m.linkname) {
                        r = error_set(reterr, EINVAL, "\"%s\": symbolic link without a target",
                                      raw_name);
                        member_release(&m);
                        break;
                }
                r = extract_member(&in, rootfd, &m, &st, reterr);
                member_release(&m);
                if (r < 0)
                        break;
        }
        pax_release(&pax);
        if (r < 0)
                return r;
        if (ret_stats)
                *ret_stats = st;
        return 0;
}
