/* fs.c: the helpers of fs.h: mkdir -p, atomic durable writes, whole-file reads, and a tree
 * removal that stays on one file system and never follows a symbolic link. */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "base/macro.h"

int fs_mkdir_p(const char *path, mode_t mode)
{
        cleanup_free char *p = xstrdup(path);

        for (char *s = p + 1; *s; s++) {
                if (*s != '/')
                        continue;
                *s = '\0';
                if (mkdir(p, mode) < 0 && errno != EEXIST)
                        return -errno;
                *s = '/';
        }
        if (mkdir(p, mode) < 0 && errno != EEXIST)
                return -errno;
        return 0;
}

int fs_write_all(int fd, const char *data, size_t len)
{
        while (len > 0) {
                ssize_t n = write(fd, data, len);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                data += n;
                len -= (size_t) n;
        }
        return 0;
}

/* force_mode: the file gets exactly mode (umask aside), else mode less the umask. durable: the
 * file and the folder are fsynced (else the rename alone keeps a reader, and a process killed
 * at any point, from ever seeing a part). */
static int write_atomic(int dirfd, const char *name, const char *data, size_t len, mode_t mode,
                        bool force_mode, bool durable)
{
        char tmp[256];
        int fd, r;

        (void) snprintf(tmp, sizeof(tmp), ".%s.tmp-%d", name, (int) getpid());
        if (force_mode) {
                /* O_EXCL: the mode is the one asked for, never a stale file's */
                (void) unlinkat(dirfd, tmp, 0);
                fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
        } else {
                fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
                            mode);
        }
        if (fd < 0)
                return -errno;
        r = force_mode && fchmod(fd, mode) < 0 ? -errno : 0;
        if (r == 0)
                r = fs_write_all(fd, data, len);
        if (r == 0 && durable && fsync(fd) < 0)
                r = -errno;
        if (close(fd) < 0 && r == 0)
                r = -errno;
        if (r == 0 && renameat(dirfd, tmp, dirfd, name) < 0)
                r = -errno;
        if (r < 0)
                (void) unlinkat(dirfd, tmp, 0);
        else if (durable)
                (void) fsync(dirfd);
        return r;
}

int fs_write_file_atomic(int dirfd, const char *name, const char *data, size_t len)
{
        return write_atomic(dirfd, name, data, len, 0644, false, true);
}

int fs_write_file_atomic_mode(int dirfd, const char *name, const char *data, size_t len,
                              mode_t mode)
{
        return write_atomic(dirfd, name, data, len, mode, true, true);
}

int fs_write_file_replace(int dirfd, const char *name, const char *data, size_t len)
{
        return write_atomic(dirfd, name, data, len, 0644, false, false);
}

int fs_write_json_atomic(int dirfd, const char *name, const json_t *j)
{
        cleanup_free char *s = json_dumps(j, JSON_COMPACT);

        if (!s)
                return -ENOMEM;
        return fs_write_file_atomic(dirfd, name, s, strlen(s));
}

int fs_read_file_at(int dirfd, const char *name, size_t max, char **ret, size_t *ret_len)
{
        cleanup_close int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        cleanup_free char *buf = NULL;
        size_t len = 0, cap = 0;

        if (fd < 0)
                return -errno;
        for (;;) {
                ssize_t n;

                if (cap - len < 4096) {
                        cap = cap ? cap * 2 : 8192;
                        buf = xrealloc(buf, cap);
                }
                n = read(fd, buf + len, cap - len - 1);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (n == 0)
                        break;
                len += (size_t) n;
                if (len > max)
                        return -EFBIG;
        }
        if (!buf)
                buf = xmalloc(1);
        buf[len] = '\0';
        *ret = TAKE_PTR(buf);
        if (ret_len)
                *ret_len = len;
        return 0;
}

int fs_read_json_at(int dirfd, const char *name, json_t **ret)
{
        cleanup_free char *s = NULL;
        size_t len;
        json_t *j;
        int r = fs_read_file_at(dirfd, name, FS_JSON_FILE_MAX, &s, &len);

        if (r < 0)
                return r;
        j = json_loadb(s, len, 0, NULL);
        if (!json_is_object(j)) {
                json_decref(j);
                return -EBADMSG;
        }
        *ret = j;
        return 0;
}

/* Removes the entries of the directory dfd (which it closes), then nothing else. */
static int remove_children(int dfd, dev_t dev, unsigned depth)
{
        DIR *d;
        struct dirent *de;
        int r = 0;

        if (depth > 512) {
                close(dfd);
                return -ELOOP;
        }
        d = fdopendir(dfd);
        if (!d) {
                r = -errno;
                close(dfd);
                return r;
        }
        while ((de = readdir(d))) {
                struct stat st;

                if (streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
                        if (errno != ENOENT && r == 0)
                                r = -errno;
                        continue;
                }
                if (S_ISDIR(st.st_mode)) {
                        int sub;

                        if (st.st_dev != dev) {
                                if (r == 0)
                                        r = -EBUSY;
                                continue;
                        }
                        sub = openat(dirfd(d), de->d_name,
                                     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                        if (sub < 0) {
                                if (r == 0)
                                        r = -errno;
                                continue;
                        }
                        {
                                int q = remove_children(sub, dev, depth + 1);
                                if (q < 0 && r == 0)
                                        r = q;
                        }
                        if (unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR) < 0 && errno != ENOENT &&
                            r == 0)
                                r = -errno;
                } else if (unlinkat(dirfd(d), de->d_name, 0) < 0 && errno != ENOENT && r == 0) {
                        r = -errno;
                }
        }
        closedir(d);
        return r;
}

int fs_remove_tree(const char *path)
{
        struct stat st;
        int fd, r;

        if (lstat(path, &st) < 0)
                return errno == ENOENT ? 0 : -errno;
        if (!S_ISDIR(st.st_mode))
                return unlink(path) < 0 && errno != ENOENT ? -errno : 0;
        fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        r = remove_children(fd, st.st_dev, 0);
        if (r < 0)
                return r;
        if (rmdir(path) < 0 && errno != ENOENT)
                return -errno;
        return 0;
}
