/* audit-log.c: the audit log's file, written line by line and rotated by size as
 * gopkg.in/natefinch/lumberjack.v2 (the writer of kube-apiserver's log backend,
 * staging/src/k8s.io/apiserver/pkg/server/options/audit.go getWriter) does it: when a write would
 * take the file past its maximum size, the file is renamed to NAME-<UTC time>.EXT and a new one
 * begun, then backups beyond the count to keep or older than the age to keep are removed.
 * Not responsible for what the lines say (audit.c). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apiserver/audit.h"
#include "base/alloc.h"
#include "base/fs.h"

/* lumberjack: megabyte = 1024 * 1024; MaxSize 0 means defaultMaxSize, 100 */
#define MEGABYTE         (1024L * 1024L)
#define DEFAULT_MAX_SIZE 100

struct audit_log {
        pthread_mutex_t lock;
        char *path; /* NULL: standard output */
        int fd;
        size_t size;
        size_t max;
        int max_backups;
        int max_age_days;
        void (*now)(struct timespec *ret);
};

static void real_now(struct timespec *ret)
{
        (void) clock_gettime(CLOCK_REALTIME, ret);
}

/* The directory, the name without its extension and the extension (from the last '.') of
 * path's base name, each malloc'd. */
static void split_name(const char *path, char **dir, char **stem, char **ext)
{
        const char *slash = strrchr(path, '/');
        const char *base = slash ? slash + 1 : path;
        const char *dot = strrchr(base, '.');

        *dir = slash ? xstrndup(path, (size_t) (slash - path + (slash == path))) : xstrdup(".");
        *stem = dot ? xstrndup(base, (size_t) (dot - base)) : xstrdup(base);
        *ext = xstrdup(dot ? dot : "");
}

/* lumberjack backupTimeFormat "2006-01-02T15-04-05.000", in UTC (LocalTime false) */
static void format_time(const struct timespec *t, char buf[static 64])
{
        struct tm tm;
        char head[40];

        gmtime_r(&t->tv_sec, &tm);
        (void) strftime(head, sizeof(head), "%Y-%m-%dT%H-%M-%S", &tm);
        (void) snprintf(buf, 64, "%s.%03d", head, (int) (t->tv_nsec / 1000000 % 1000));
}

char *audit_log_backup_name(const char *path, const struct timespec *t)
{
        cleanup_free char *dir = NULL, *stem = NULL, *ext = NULL;
        char when[64];
        const char *slash = strrchr(path, '/');

        split_name(path, &dir, &stem, &ext);
        format_time(t, when);
        if (!slash)
                return xasprintf("%s-%s%s", stem, when, ext);
        return xasprintf("%s%s%s-%s%s", dir, streq(dir, "/") ? "" : "/", stem, when, ext);
}

static int open_file(struct audit_log *l, bool truncate, struct error **reterr)
{
        struct stat st;
        int flags = O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | (truncate ? O_TRUNC : 0);

        l->fd = open(l->path, flags, 0600);
        if (l->fd < 0 || fstat(l->fd, &st) < 0) {
                int r = -errno;
                if (l->fd >= 0)
                        (void) close(l->fd);
                l->fd = -1;
                return error_set(reterr, -r, "audit log \"%s\": %s", l->path, strerror(-r));
        }
        l->size = (size_t) st.st_size;
        return 0;
}

int audit_log_open(const struct audit_log_options *o, struct audit_log **ret, struct error **reterr)
{
        struct audit_log *l = xcalloc(1, sizeof(*l));

        pthread_mutex_init(&l->lock, NULL);
        l->fd = -1;
        l->max = (size_t) (o->max_size_mb > 0 ? o->max_size_mb : DEFAULT_MAX_SIZE) * MEGABYTE;
        l->max_backups = o->max_backups;
        l->max_age_days = o->max_age_days;
        l->now = o->now ? o->now : real_now;
        if (streq(o->path, "-")) {
                l->fd = STDOUT_FILENO;
                *ret = l;
                return 0;
        }
        l->path = xstrdup(o->path);
        {
                /* K8S ensureLogFile: the folder is made (0700) and the file (0600) */
                cleanup_free char *dir = NULL, *stem = NULL, *ext = NULL;
                int r;

                split_name(l->path, &dir, &stem, &ext);
                r = fs_mkdir_p(dir, 0700);
                if (r < 0) {
                        (void) audit_log_free(l);
                        return error_set(reterr, -r, "audit log folder \"%s\": %s", dir,
                                         strerror(-r));
                }
        }
        if (open_file(l, false, reterr) < 0) {
                (void) audit_log_free(l);
                return -EIO;
        }
        *ret = l;
        return 0;
}

struct audit_log *audit_log_free(struct audit_log *l)
{
        if (!l)
                return NULL;
        if (l->path && l->fd >= 0)
                (void) close(l->fd);
        pthread_mutex_destroy(&l->lock);
        free(l->path);
        free(l);
        return NULL;
}

struct backup {
        char *name;
        struct timespec t;
};

static int backup_newer_first(const void *a, const void *b)
{
        const struct backup *x = a, *y = b;

        if (x->t.tv_sec != y->t.tv_sec)
                return x->t.tv_sec < y->t.tv_sec ? 1 : -1;
        return x->t.tv_nsec < y->t.tv_nsec ? 1 : x->t.tv_nsec > y->t.tv_nsec ? -1 : 0;
}

/* The time in a backup's name "STEM-2006-01-02T15-04-05.000EXT", or -1 for another file. */
static int backup_time(const char *name, const char *stem, const char *ext, struct timespec *ret)
{
        size_t ls = strlen(stem), le = strlen(ext), ln = strlen(name);
        struct tm tm = { 0 };
        int ms, consumed = 0;
        char tail[2];

        if (ln != ls + 1 + 23 + le || strncmp(name, stem, ls) != 0 || name[ls] != '-' ||
            strcmp(name + ln - le, ext) != 0)
                return -1;
        if (sscanf(name + ls + 1, "%4d-%2d-%2dT%2d-%2d-%2d.%3d%n%1s", &tm.tm_year, &tm.tm_mon,
                   &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &ms, &consumed, tail) < 7 ||
            consumed != 23)
                return -1;
        tm.tm_year -= 1900;
        tm.tm_mon -= 1;
        ret->tv_sec = timegm(&tm);
        ret->tv_nsec = (long) ms * 1000000;
        return 0;
}

/* lumberjack millRunOnce (without compression): keeps the max_backups newest backups and none
 * older than max_age_days. Best effort, as upstream's: a backup that cannot be removed stays. */
static void remove_old_backups(struct audit_log *l, const struct timespec *now)
{
        cleanup_free char *dir = NULL, *stem = NULL, *ext = NULL;
        struct backup *list = NULL;
        size_t n = 0, cap = 0;
        struct dirent *de;
        DIR *d;
        int dfd;

        if (l->max_backups == 0 && l->max_age_days == 0)
                return;
        split_name(l->path, &dir, &stem, &ext);
        d = opendir(dir);
        if (!d)
                return;
        dfd = dirfd(d);
        while ((de = readdir(d))) {
                struct timespec t;

                if (backup_time(de->d_name, stem, ext, &t) < 0)
                        continue;
                if (n == cap) {
                        cap = cap ? cap * 2 : 16;
                        list = xrealloc(list, cap * sizeof(*list));
                }
                list[n++] = (struct backup){ .name = xstrdup(de->d_name), .t = t };
        }
        qsort(list, n, sizeof(*list), backup_newer_first);
        for (size_t i = 0; i < n; i++) {
                bool old = l->max_age_days > 0 &&
                           list[i].t.tv_sec < now->tv_sec - (time_t) l->max_age_days * 86400;

                if ((l->max_backups > 0 && i >= (size_t) l->max_backups) || old)
                        (void) unlinkat(dfd, list[i].name, 0);
                free(list[i].name);
        }
        free(list);
        (void) closedir(d);
}

/* lumberjack rotate: the full file becomes a backup, a new one (the old one's mode) begins. */
static int rotate(struct audit_log *l, struct error **reterr)
{
        struct timespec now;
        cleanup_free char *backup = NULL;
        int r;

        l->now(&now);
        backup = audit_log_backup_name(l->path, &now);
        if (rename(l->path, backup) < 0) {
                r = -errno;
                return error_set(reterr, -r, "can't rename log file: rename %s %s: %s", l->path,
                                 backup, strerror(-r));
        }
        (void) close(l->fd);
        l->fd = -1;
        r = open_file(l, true, reterr);
        if (r < 0)
                return r;
        remove_old_backups(l, &now);
        return 0;
}

int audit_log_write(struct audit_log *l, const char *line, size_t len, struct error **reterr)
{
        int r = 0;

        pthread_mutex_lock(&l->lock);
        if (!l->path) {
                r = fs_write_all(l->fd, line, len);
                if (r < 0)
                        (void) error_set(reterr, -r, "audit log: standard output: %s",
                                         strerror(-r));
                goto out;
        }
        if (len > l->max) {
                r = error_set(reterr, EFBIG, "write length %zu exceeds maximum file size %zu", len,
                              l->max);
                goto out;
        }
        if (l->fd < 0)
                r = open_file(l, false, reterr);
        if (r == 0 && l->size + len > l->max)
                r = rotate(l, reterr);
        if (r < 0)
                goto out;
        r = fs_write_all(l->fd, line, len);
        if (r < 0) {
                (void) error_set(reterr, -r, "audit log \"%s\": %s", l->path, strerror(-r));
                goto out;
        }
        l->size += len;
out:
        pthread_mutex_unlock(&l->lock);
        return r;
}
