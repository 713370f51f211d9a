/* fake-cgroupfs.h: what test-cgroup-v1.c and test-cgroup-v2.c share to play the kernel on a
 * temporary tree: writing, reading and checking interface files, the directory a mkdirat hook
 * is asked for, the kernel's rmdir rule (EBUSY while a cgroup holds children or processes) and
 * removing the tree afterwards. Include after <cmocka.h>: the helpers fail the running test. */
#ifndef FLEXLET_TESTS_UNIT_NODE_FAKE_CGROUPFS_H
#define FLEXLET_TESTS_UNIT_NODE_FAKE_CGROUPFS_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/macro.h"

/* Joins dir/name into path[4096]; a longer path fails the test rather than being cut short. */
static inline void fake_path(char *path, const char *dir, const char *name)
{
        if (snprintf(path, 4096, "%s/%s", dir, name) >= 4096)
                fail_msg("path too long: %s/%s", dir, name);
}

/* Writes text to dir/name, creating or truncating it. */
static inline void put(const char *dir, const char *name, const char *text)
{
        char path[4096];
        FILE *f;

        fake_path(path, dir, name);
        f = fopen(path, "w");
        if (!f)
                fail_msg("create %s: %s", path, strerror(errno));
        fputs(text, f);
        fclose(f);
}

/* The whole of dir/name ("" when empty), NULL when it cannot be opened. Caller frees. */
static inline char *get(const char *dir, const char *name)
{
        char path[4096];
        char *text = NULL;
        size_t cap = 0;
        ssize_t n;
        FILE *f;

        fake_path(path, dir, name);
        f = fopen(path, "r");
        if (!f)
                return NULL;
        n = getdelim(&text, &cap, '\0', f);
        fclose(f);
        if (n < 0) {
                free(text);
                return xstrdup("");
        }
        return text;
}

/* Fails the test unless dir/name exists and holds exactly want. */
static inline void assert_file(const char *dir, const char *name, const char *want)
{
        char *got = get(dir, name);

        if (!got)
                fail_msg("%s/%s: missing", dir, name);
        if (!streq(got, want))
                fail_msg("%s/%s: got \"%s\", want \"%s\"", dir, name, got, want);
        free(got);
}

static inline bool exists(const char *dir, const char *name)
{
        char path[4096];

        fake_path(path, dir, name);
        return access(path, F_OK) == 0;
}

/* The first half of a fake mkdirat hook: makes name under dirfd and stores the parent's path
 * (from /proc/self/fd) in parent[size]. Returns the new directory's path (caller frees), or
 * NULL with errno set when mkdirat fails. */
static inline char *fake_mkdir(int dirfd, const char *name, char *parent, size_t size)
{
        char link[64];
        ssize_t n;

        if (mkdirat(dirfd, name, 0755) < 0)
                return NULL;
        snprintf(link, sizeof(link), "/proc/self/fd/%d", dirfd);
        n = readlink(link, parent, size - 1);
        assert_true(n > 0);
        parent[n] = '\0';
        return xasprintf("%s/%s", parent, name);
}

/* The kernel refuses to remove a cgroup with children or processes (EBUSY) and takes its
 * interface files with it. */
static inline int fake_rmdir_at(int parent, const char *name, void *userdata)
{
        int fd = openat(parent, name, O_RDONLY | O_DIRECTORY);
        struct dirent *de;
        char procs[64] = "";
        DIR *d;
        int pfd;

        if (fd < 0)
                return -errno;
        pfd = openat(fd, "cgroup.procs", O_RDONLY);
        if (pfd >= 0) {
                ssize_t n = read(pfd, procs, sizeof(procs) - 1);
                procs[n > 0 ? n : 0] = '\0';
                close(pfd);
        }
        d = fdopendir(fd);
        while ((de = readdir(d))) {
                if (de->d_type == DT_DIR && !streq(de->d_name, ".") && !streq(de->d_name, "..")) {
                        closedir(d);
                        return -EBUSY;
                }
        }
        if (procs[0]) {
                closedir(d);
                return -EBUSY;
        }
        rewinddir(d);
        while ((de = readdir(d))) {
                if (de->d_type == DT_REG)
                        unlinkat(dirfd(d), de->d_name, 0);
        }
        closedir(d);
        return unlinkat(parent, name, AT_REMOVEDIR) < 0 ? -errno : 0;
}

static inline void rm_rf(const char *path)
{
        char cmd[256];

        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
        assert_int_equal(system(cmd), 0);
}

#endif
