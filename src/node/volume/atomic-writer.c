/* atomic-writer.c: the kubelet's AtomicWriter over a directory fd (see atomic-writer.h for the
 * layout and the steps, numbered as upstream's Write). It writes what it is given; what the
 * payload holds (a ConfigMap's keys, the downward API's fields) is the pod worker's business,
 * and so is the tmpfs the directory is. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/strbuf.h"
#include "node/volume/atomic-writer.h"

/* K8S atomic_writer.go: dataDirName, newDataDirName */
#define DATA_DIR     "..data"
#define NEW_DATA_DIR "..data_tmp"
/* Directory levels a walk or a removal descends: a payload path of ATOMIC_WRITER_MAX_PATH
 * characters has at most half as many elements. */
#define MAX_DEPTH (ATOMIC_WRITER_MAX_PATH / 2 + 1)
/* Go's os.MkdirTemp tries this many random names before giving up. */
#define TEMP_TRIES 10000

void atomic_payload_release(struct atomic_payload *p)
{
        if (!p)
                return;
        for (size_t i = 0; i < p->n; i++) {
                free(p->files[i].path);
                free(p->files[i].data);
        }
        free(p->files);
        p->files = NULL;
        p->n = 0;
}

int atomic_writer_validate_path(const char *path, struct error **reterr)
{
        size_t len = path ? strlen(path) : 0;
        const char *p;

        if (!len)
                return error_set(reterr, EINVAL, "invalid path: must not be empty: \"\"");
        if (path[0] == '/')
                return error_set(reterr, EINVAL, "invalid path: must be relative path: %s", path);
        if (len > ATOMIC_WRITER_MAX_PATH)
                return error_set(reterr, EINVAL,
                                 "invalid path: must be less than or equal to %d characters",
                                 ATOMIC_WRITER_MAX_PATH);
        for (p = path;;) {
                size_t n = strcspn(p, "/");

                if (n == 2 && p[0] == '.' && p[1] == '.')
                        return error_set(reterr, EINVAL, "invalid path: must not contain '..': %s",
                                         path);
                if (n > ATOMIC_WRITER_MAX_NAME)
                        return error_set(reterr, EINVAL,
                                         "invalid path: filenames must be less than or equal to "
                                         "%d characters",
                                         ATOMIC_WRITER_MAX_NAME);
                if (!p[n])
                        break;
                p += n + 1;
        }
        /* K8S: "..data" and the timestamped directories live at the top: a payload path must
         * not be able to name them */
        if (strncmp(path, "..", 2) == 0 && strcspn(path, "/") > 2)
                return error_set(reterr, EINVAL, "invalid path: must not start with '..': %s",
                                 path);
        return 0;
}

/* Go's filepath.Clean of a validated relative path: empty and "." elements dropped. NULL when
 * nothing is left. */
static char *clean_path(const char *path)
{
        struct strbuf sb;

        strbuf_init(&sb);
        for (const char *p = path; *p;) {
                size_t n = strcspn(p, "/");

                if (n && !(n == 1 && p[0] == '.')) {
                        if (sb.len)
                                strbuf_addch(&sb, '/');
                        strbuf_add(&sb, p, n);
                }
                p += n;
                p += strspn(p, "/");
        }
        if (!sb.len) {
                strbuf_release(&sb);
                return NULL;
        }
        return strbuf_detach(&sb);
}

int atomic_payload_add(struct atomic_payload *p, const char *path, const char *data, size_t len,
                       mode_t mode, struct error **reterr)
{
        cleanup_free char *clean = NULL;
        struct atomic_file *f = NULL;
        int r;

        r = atomic_writer_validate_path(path, reterr);
        if (r < 0)
                return r;
        clean = clean_path(path);
        if (!clean)
                return error_set(reterr, EINVAL, "invalid path: must not be empty: \"%s\"", path);
        for (size_t i = 0; i < p->n; i++)
                if (streq(p->files[i].path, clean)) {
                        f = &p->files[i];
                        free(f->data);
                        break;
                }
        if (!f) {
                p->files = xrealloc(p->files, (p->n + 1) * sizeof(*p->files));
                f = &p->files[p->n++];
                f->path = TAKE_PTR(clean);
        }
        f->data = xmalloc(len + 1);
        if (len)
                memcpy(f->data, data, len);
        f->data[len] = '\0';
        f->len = len;
        f->mode = mode & 0777;
        f->owned = false;
        return 0;
}

int atomic_payload_add_owned(struct atomic_payload *p, const char *path, const char *data,
                             size_t len, mode_t mode, uid_t owner, struct error **reterr)
{
        int r = atomic_payload_add(p, path, data, len, mode, reterr);

        if (r < 0)
                return r;
        /* the file just added or replaced: the one with its cleaned path */
        for (size_t i = 0; i < p->n; i++) {
                cleanup_free char *clean = clean_path(path);

                if (clean && streq(p->files[i].path, clean)) {
                        p->files[i].owned = true;
                        p->files[i].owner = owner;
                }
        }
        return 0;
}

/* ------------------------------------------------------------------ by fd */

static int open_beneath(int dirfd, const char *path, int flags)
{
        struct open_how how = {
                .flags = (uint64_t) (flags | O_CLOEXEC | O_NOFOLLOW),
                .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
        };
        long fd;

        do {
                fd = syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
        } while (fd < 0 && errno == EAGAIN);
        return fd < 0 ? -errno : (int) fd;
}

/* Removes name in dirfd and, for a directory, everything below it; never follows a symbolic
 * link. A missing name is success. */
static int remove_tree_at(int dirfd, const char *name, unsigned depth)
{
        struct stat st;
        DIR *d;
        struct dirent *e;
        int fd, r = 0;

        if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return errno == ENOENT ? 0 : -errno;
        if (!S_ISDIR(st.st_mode))
                return unlinkat(dirfd, name, 0) < 0 && errno != ENOENT ? -errno : 0;
        if (depth > MAX_DEPTH)
                return -ELOOP;
        fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return errno == ENOENT ? 0 : -errno;
        d = fdopendir(fd);
        if (!d) {
                r = -errno;
                close(fd);
                return r;
        }
        while ((e = readdir(d))) {
                int q;

                if (streq(e->d_name, ".") || streq(e->d_name, ".."))
                        continue;
                q = remove_tree_at(fd, e->d_name, depth + 1);
                if (q < 0 && !r)
                        r = q;
        }
        closedir(d);
        if (r < 0)
                return r;
        return unlinkat(dirfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT ? -errno : 0;
}

/* Adds the path of every entry below the directory fd (borrowed) to paths, as upstream's
 * filepath.Walk of the old data directory does (directories and files, relative). */
static int collect_paths(int fd, const char *prefix, json_t *paths, unsigned depth)
{
        /* a new open file of the directory: a dup would share (and move) fd's position */
        int dup_fd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        DIR *d;
        struct dirent *e;
        int r = 0;

        if (dup_fd < 0)
                return -errno;
        d = fdopendir(dup_fd);
        if (!d) {
                r = -errno;
                close(dup_fd);
                return r;
        }
        while ((e = readdir(d)) && r >= 0) {
                cleanup_free char *rel = NULL;

                if (streq(e->d_name, ".") || streq(e->d_name, ".."))
                        continue;
                rel = *prefix ? xasprintf("%s/%s", prefix, e->d_name) : xstrdup(e->d_name);
                json_object_set_new(paths, rel, json_true());
                if (e->d_type == DT_DIR) {
                        cleanup_close int sub = -1;

                        if (depth >= MAX_DEPTH) {
                                r = -ELOOP;
                                break;
                        }
                        sub = open_beneath(fd, e->d_name, O_RDONLY | O_DIRECTORY);
                        if (sub < 0) {
                                r = sub;
                                break;
                        }
                        r = collect_paths(sub, rel, paths, depth + 1);
                }
        }
        closedir(d);
        return r;
}

/* K8S shouldWriteFile: whether path below the directory fd lacks exactly f's bytes. */
static int file_differs(int fd, const struct atomic_file *f)
{
        cleanup_close int ffd = open_beneath(fd, f->path, O_RDONLY);
        cleanup_free char *buf = NULL;
        size_t got = 0;
        struct stat st;

        if (ffd == -ENOENT || ffd == -ENOTDIR || ffd == -ELOOP)
                return 1;
        if (ffd < 0)
                return ffd;
        if (fstat(ffd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode) || (size_t) st.st_size != f->len)
                return 1;
        buf = xmalloc(f->len + 1);
        while (got <= f->len) {
                ssize_t n = read(ffd, buf + got, f->len + 1 - got);

                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0)
                        break;
                got += (size_t) n;
        }
        return got != f->len || memcmp(buf, f->data, f->len) != 0;
}

/* Writes f below the directory fd, making its parent directories (0755). */
static int write_file(int fd, const struct atomic_file *f)
{
        cleanup_free char *copy = xstrdup(f->path);
        char *slash = strrchr(copy, '/');
        const char *base = copy;
        cleanup_close int dir = -1, out = -1;
        int r;

        dir = dup(fd);
        if (dir < 0)
                return -errno;
        if (slash) {
                *slash = '\0';
                base = slash + 1;
                for (char *comp = copy; comp;) {
                        char *next = strchr(comp, '/');
                        int sub;

                        if (next)
                                *next++ = '\0';
                        if (mkdirat(dir, comp, 0755) < 0 && errno != EEXIST)
                                return -errno;
                        sub = open_beneath(dir, comp, O_RDONLY | O_DIRECTORY);
                        if (sub < 0)
                                return sub;
                        /* the umask may have taken bits away */
                        if (fchmod(sub, 0755) < 0) {
                                r = -errno;
                                close(sub);
                                return r;
                        }
                        close(dir);
                        dir = sub;
                        comp = next;
                }
        }
        out = openat(dir, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, f->mode);
        if (out < 0)
                return -errno;
        r = fs_write_all(out, f->data, f->len);
        if (r < 0)
                return r;
        /* K8S writePayloadToDir: chmod, as the umask took bits from the create's mode; then
         * the owner of a file that has one (FsUser) */
        if (fchmod(out, f->mode) < 0)
                return -errno;
        return f->owned && fchown(out, f->owner, (gid_t) -1) < 0 ? -errno : 0;
}

/* Whether name is one of the timestamped directories this module makes. */
static bool is_timestamp_name(const char *name)
{
        /* "..YYYY_MM_DD_HH_MM_SS." and digits */
        static const char shape[] = "..dddd_dd_dd_dd_dd_dd.";

        for (size_t i = 0; i < sizeof(shape) - 1; i++) {
                if (!name[i])
                        return false;
                if (shape[i] == 'd' ? (name[i] < '0' || name[i] > '9') : name[i] != shape[i])
                        return false;
        }
        return true;
}

/* K8S newTimestampDir: os.MkdirTemp(dir, "..2006_01_02_15_04_05.") with mode 0755. */
static int make_timestamp_dir(int dirfd, char *ret_name, size_t size)
{
        char prefix[32];
        struct tm tm;
        time_t now = time(NULL);

        gmtime_r(&now, &tm);
        strftime(prefix, sizeof(prefix), "..%Y_%m_%d_%H_%M_%S.", &tm);
        for (int i = 0; i < TEMP_TRIES; i++) {
                uint32_t rnd = 0;
                cleanup_close int fd = -1;

                if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
                        rnd = (uint32_t) random();
                snprintf(ret_name, size, "%s%u", prefix, rnd);
                if (mkdirat(dirfd, ret_name, 0700) < 0) {
                        if (errno == EEXIST)
                                continue;
                        return -errno;
                }
                fd = openat(dirfd, ret_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (fd < 0)
                        return -errno;
                /* K8S: 0755 so group and other can go through, whatever the umask */
                if (fchmod(fd, 0755) < 0)
                        return -errno;
                return TAKE_FD(fd);
        }
        return -EEXIST;
}

/* The old timestamped directory "..data" points to (its name into ret_name, "" when none). */
static int read_data_link(int dirfd, char *ret_name, size_t size)
{
        ssize_t n = readlinkat(dirfd, DATA_DIR, ret_name, size - 1);

        if (n < 0) {
                ret_name[0] = '\0';
                return errno == ENOENT ? 0 : -errno;
        }
        ret_name[n] = '\0';
        /* written by this module: a plain timestamped name in the same directory */
        if (strchr(ret_name, '/') || !is_timestamp_name(ret_name))
                return -EUCLEAN;
        return 0;
}

/* What an interrupted write left: timestamped directories "..data" does not point to, and
 * "..data_tmp". */
static int remove_leftovers(int dirfd, const char *current)
{
        int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), r = 0;
        DIR *d;
        struct dirent *e;

        if (fd < 0)
                return -errno;
        d = fdopendir(fd);
        if (!d) {
                r = -errno;
                close(fd);
                return r;
        }
        while ((e = readdir(d))) {
                int q = 0;

                if (streq(e->d_name, NEW_DATA_DIR))
                        q = unlinkat(dirfd, e->d_name, 0) < 0 && errno != ENOENT ? -errno : 0;
                else if (is_timestamp_name(e->d_name) && !streq(e->d_name, current))
                        q = remove_tree_at(dirfd, e->d_name, 0);
                if (q < 0 && !r)
                        r = q;
        }
        closedir(d);
        return r;
}

/* The first element of path: its length. */
static size_t first_len(const char *path)
{
        return strcspn(path, "/");
}

/* Whether rel (a path of the old data directory) is a file of the payload or one of their
 * parent directories (K8S pathsToRemove's newPaths). */
static bool kept(const struct atomic_payload *p, const char *rel)
{
        size_t n = strlen(rel);

        for (size_t i = 0; i < p->n; i++) {
                const char *f = p->files[i].path;
                if (strncmp(f, rel, n) == 0 && (f[n] == '\0' || f[n] == '/'))
                        return true;
        }
        return false;
}

#define FAIL(step, r) error_set(reterr, -(r), "write volume payload: %s: %s", step, strerror(-(r)))

int atomic_writer_write(int dirfd, const struct atomic_payload *payload,
                        atomic_writer_perms_fn set_perms, void *ud, struct error **reterr)
{
        char old[NAME_MAX + 1], ts[NAME_MAX + 1];
        cleanup_json json_t *old_paths = json_object();
        cleanup_close int oldfd = -1, tsfd = -1;
        bool remove_some = false;
        const char *rel;
        json_t *v;
        int r;

        /* (2) the payload "..data" points to now */
        r = read_data_link(dirfd, old, sizeof(old));
        if (r < 0)
                return FAIL("read \"" DATA_DIR "\"", r);
        r = remove_leftovers(dirfd, old);
        if (r < 0)
                return FAIL("remove what an interrupted write left", r);
        if (*old) {
                oldfd = open_beneath(dirfd, old, O_RDONLY | O_DIRECTORY);
                if (oldfd < 0)
                        return FAIL("open the data directory", oldfd);
                /* (3) K8S pathsToRemove: what the old data has that the payload does not */
                r = collect_paths(oldfd, "", old_paths, 0);
                if (r < 0)
                        return FAIL("list the data directory", r);
                json_object_foreach(old_paths, rel, v) {
                        if (kept(payload, rel))
                                json_object_set_new(old_paths, rel, json_false());
                        else
                                remove_some = true;
                }
                /* (4) K8S shouldWritePayload */
                if (!remove_some) {
                        bool differs = false;

                        for (size_t i = 0; i < payload->n && !differs; i++) {
                                r = file_differs(oldfd, &payload->files[i]);
                                if (r < 0)
                                        return FAIL("compare the data directory", r);
                                differs = r > 0;
                        }
                        if (!differs)
                                return 0;
                }
        }

        /* (5) a new timestamped directory, (6) the payload in it */
        tsfd = make_timestamp_dir(dirfd, ts, sizeof(ts));
        if (tsfd < 0)
                return FAIL("make the timestamped directory", tsfd);
        for (size_t i = 0; i < payload->n; i++) {
                r = write_file(tsfd, &payload->files[i]);
                if (r < 0) {
                        (void) remove_tree_at(dirfd, ts, 0);
                        return error_set(reterr, -r, "write volume payload: write \"%s\": %s",
                                         payload->files[i].path, strerror(-r));
                }
        }
        /* (7) K8S setPerms */
        if (set_perms && (r = set_perms(ud, reterr)) < 0) {
                (void) remove_tree_at(dirfd, ts, 0);
                return r;
        }
        /* (8) "..data_tmp" -> the new directory, (9) renamed over "..data": the swap */
        if (symlinkat(ts, dirfd, NEW_DATA_DIR) < 0) {
                r = -errno;
                (void) remove_tree_at(dirfd, ts, 0);
                return FAIL("link \"" NEW_DATA_DIR "\"", r);
        }
        if (renameat(dirfd, NEW_DATA_DIR, dirfd, DATA_DIR) < 0) {
                r = -errno;
                (void) unlinkat(dirfd, NEW_DATA_DIR, 0);
                (void) remove_tree_at(dirfd, ts, 0);
                return FAIL("rename \"" NEW_DATA_DIR "\" to \"" DATA_DIR "\"", r);
        }
        /* (10) K8S createUserVisibleFiles: name -> ..data/name for each first element */
        for (size_t i = 0; i < payload->n; i++) {
                const char *path = payload->files[i].path;
                cleanup_free char *name = xstrndup(path, first_len(path));
                cleanup_free char *target = xasprintf(DATA_DIR "/%s", name);
                char buf[8];

                if (readlinkat(dirfd, name, buf, sizeof(buf)) >= 0 || errno != ENOENT)
                        continue;
                if (symlinkat(target, dirfd, name) < 0 && errno != EEXIST)
                        return error_set(reterr, errno, "write volume payload: link \"%s\": %s",
                                         name, strerror(errno));
        }
        /* (11) K8S removeUserVisiblePaths: only the top-level links */
        json_object_foreach(old_paths, rel, v) {
                if (json_is_true(v) && !strchr(rel, '/') && unlinkat(dirfd, rel, 0) < 0 &&
                    errno != ENOENT)
                        return error_set(reterr, errno, "write volume payload: remove \"%s\": %s",
                                         rel, strerror(errno));
        }
        /* (12) the old data */
        if (*old && (r = remove_tree_at(dirfd, old, 0)) < 0)
                return FAIL("remove the old data directory", r);
        return 1;
}
