/* cgroup.c: the version-independent half of the cgroup manager: opening and detection, path
 * checks, creating and removing cgroup trees, placing and listing processes, killing a subtree,
 * and the file helpers both backends use. What a limit means in files lives in cgroup-v1.c and
 * cgroup-v2.c, reached through m->ops. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/strbuf.h"
#include "node/cgroup/cgroup-internal.h"

/* Deepest tree cgroup_destroy and cgroup_kill walk below the cgroup they are given. */
#define CG_MAX_DEPTH 64
/* cgroup.procs of one cgroup: 4 MiB is ~500k pids. */
#define CG_PROCS_MAX (4u << 20)
/* cgroup_kill: rounds of 10 ms. */
#define CG_KILL_ROUNDS 200

static const char *const version_names[CGROUP_VERSION_MAX] = {
        [CGROUP_V1] = "v1",
        [CGROUP_V2] = "v2",
};

const char *cgroup_version_to_string(enum cgroup_version v)
{
        return (unsigned) v < CGROUP_VERSION_MAX ? version_names[v] : NULL;
}

int cgroup_version_from_string(const char *s, enum cgroup_version *ret)
{
        for (int i = 0; s && i < CGROUP_VERSION_MAX; i++) {
                if (streq(s, version_names[i])) {
                        *ret = (enum cgroup_version) i;
                        return 0;
                }
        }
        return -EINVAL;
}

/* ---- file helpers ---- */

ssize_t cg_read_file(int dirfd, const char *name, size_t max, char **ret)
{
        cleanup_close int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        struct strbuf sb;
        char buf[4096];

        if (fd < 0)
                return -errno;
        strbuf_init(&sb);
        for (;;) {
                ssize_t n = read(fd, buf, sizeof(buf));
                if (n < 0) {
                        int e = errno;
                        if (e == EINTR)
                                continue;
                        strbuf_release(&sb);
                        return -e;
                }
                if (n == 0)
                        break;
                if (sb.len + (size_t) n > max) {
                        strbuf_release(&sb);
                        return -EFBIG;
                }
                strbuf_add(&sb, buf, (size_t) n);
        }
        *ret = strbuf_detach(&sb);
        return (ssize_t) strlen(*ret);
}

static int parse_int64(const char *s, int64_t *ret)
{
        char *end;
        long long v;

        while (*s == ' ' || *s == '\t')
                s++;
        if (strncmp(s, "max", 3) == 0 && (s[3] == '\0' || s[3] == '\n' || s[3] == ' ')) {
                *ret = -1;
                return 0;
        }
        errno = 0;
        v = strtoll(s, &end, 10);
        if (errno == ERANGE)
                return -ERANGE;
        if (end == s || (*end != '\0' && *end != '\n' && *end != ' '))
                return -EINVAL;
        *ret = v;
        return 0;
}

int cg_read_int64(int dirfd, const char *name, int64_t *ret)
{
        cleanup_free char *text = NULL;
        ssize_t n = cg_read_file(dirfd, name, 4096, &text);

        if (n < 0)
                return (int) n;
        return parse_int64(text, ret);
}

int cg_read_keyed(int dirfd, const char *name, const char *key, uint64_t *ret)
{
        cleanup_free char *text = NULL;
        ssize_t n = cg_read_file(dirfd, name, 65536, &text);
        size_t klen = strlen(key);

        if (n < 0)
                return (int) n;
        for (char *line = text; *line;) {
                char *nl = strchr(line, '\n');
                if (strncmp(line, key, klen) == 0 && line[klen] == ' ') {
                        char *end;
                        unsigned long long v;
                        errno = 0;
                        v = strtoull(line + klen + 1, &end, 10);
                        if (errno == ERANGE)
                                return -ERANGE;
                        if (end == line + klen + 1 || (*end != '\n' && *end != '\0'))
                                return -EINVAL;
                        *ret = v;
                        return 0;
                }
                if (!nl)
                        break;
                line = nl + 1;
        }
        return -ENOKEY;
}

int cg_write_file(int dirfd, const char *name, const char *value)
{
        cleanup_close int fd = openat(dirfd, name, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);
        size_t len = strlen(value);
        ssize_t n;

        if (fd < 0)
                return -errno;
        do {
                n = write(fd, value, len);
        } while (n < 0 && errno == EINTR);
        if (n < 0)
                return -errno;
        if ((size_t) n != len)
                return -EIO;
        return 0;
}

int cg_parse_pids(const char *text, pid_t **ret, size_t *ret_n)
{
        cleanup_free pid_t *pids = NULL;
        size_t n = 0, alloc = 0;
        const char *p = text;

        while (*p) {
                char *end;
                long v;
                if (*p == '\n') {
                        p++;
                        continue;
                }
                errno = 0;
                v = strtol(p, &end, 10);
                /* never hand 0 or a negative number to kill(2): those mean process groups */
                if (errno || end == p || v <= 0 || v > INT32_MAX || (*end != '\n' && *end != '\0'))
                        return -EINVAL;
                if (n == alloc) {
                        alloc = alloc ? alloc * 2 : 16;
                        pids = xrealloc(pids, alloc * sizeof(*pids));
                }
                pids[n++] = (pid_t) v;
                p = end;
        }
        *ret = TAKE_PTR(pids);
        *ret_n = n;
        return 0;
}

/* ---- paths ---- */

/* A relpath: "" (when allowed) or '/'-separated components, none empty, ".", ".." or holding
 * control characters. */
static bool relpath_ok(const char *p, bool allow_empty)
{
        size_t len = strlen(p);
        const char *c = p;

        if (len == 0)
                return allow_empty;
        if (len > CGROUP_PATH_MAX)
                return false;
        while (*c) {
                const char *slash = strchr(c, '/');
                size_t clen = slash ? (size_t) (slash - c) : strlen(c);
                if (clen == 0 || (clen == 1 && c[0] == '.') ||
                    (clen == 2 && c[0] == '.' && c[1] == '.'))
                        return false;
                for (size_t i = 0; i < clen; i++) {
                        if ((unsigned char) c[i] < 0x20 || c[i] == 0x7f)
                                return false;
                }
                if (!slash)
                        break;
                c = slash + 1;
                if (!*c)
                        return false; /* trailing '/' */
        }
        return true;
}

static int check_relpath(const char *relpath, bool allow_empty, struct error **reterr)
{
        if (!relpath || !relpath_ok(relpath, allow_empty))
                return error_set(reterr, EINVAL, "invalid cgroup path \"%s\"",
                                 relpath ? relpath : "(null)");
        return 0;
}

/* a + "/" + b without doubling the '/' of a root "/"; b "" gives a. */
static char *path_join(const char *a, const char *b)
{
        if (!b[0])
                return xstrdup(a);
        return xasprintf("%s%s%s", a, streq(a, "/") ? "" : "/", b);
}

char *cg_abs(const struct cg_hierarchy *h, const char *relpath)
{
        return path_join(h->root_abs, relpath);
}

struct cg_hierarchy *cg_hierarchy_for(struct cgroup_manager *m, unsigned ctrl)
{
        for (size_t i = 0; i < m->n_h; i++) {
                if (m->h[i].ctrls & ctrl)
                        return &m->h[i];
        }
        return NULL;
}

int cg_open_dir(struct cg_hierarchy *h, const char *relpath, const char *context,
                struct error **reterr)
{
        int fd;

        if (!relpath[0])
                fd = fcntl(h->root_fd, F_DUPFD_CLOEXEC, 3);
        else
                fd = openat(h->root_fd, relpath, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0) {
                int e = errno;
                cleanup_free char *abs = cg_abs(h, relpath);
                return error_set(reterr, e, "%s of \"%s\": %s", context, abs, strerror(e));
        }
        return fd;
}

/* ---- the default filesystem: the kernel does the rest ---- */

static int real_mkdir_at(int dirfd, const char *name, void *userdata)
{
        return mkdirat(dirfd, name, 0755) < 0 ? -errno : 0;
}

static int real_rmdir_at(int dirfd, const char *name, void *userdata)
{
        return unlinkat(dirfd, name, AT_REMOVEDIR) < 0 ? -errno : 0;
}

static const struct cgroup_fs real_fs = {
        .mkdir_at = real_mkdir_at,
        .rmdir_at = real_rmdir_at,
};

/* ---- open ---- */

struct cgroup_manager *cgroup_manager_free(struct cgroup_manager *m)
{
        if (!m)
                return NULL;
        for (size_t i = 0; i < m->n_h; i++) {
                free(m->h[i].name);
                free(m->h[i].root_abs);
                if (m->h[i].root_fd >= 0)
                        close(m->h[i].root_fd);
        }
        if (m->sysfs_fd >= 0)
                close(m->sysfs_fd);
        free(m->sysfs_root);
        free(m->flexlet_root);
        free(m);
        return NULL;
}

/* Walks from dirfd (at abs) down relpath, creating what is missing; every cgroup that gets a
 * child is prepared first (v2: controllers enabled), and the last one too when prepare_last.
 * Returns the fd of the last cgroup when want_fd, else 0. */
static int create_below(struct cgroup_manager *m, int dirfd, const char *abs, const char *relpath,
                        bool prepare_last, bool want_fd, struct error **reterr)
{
        cleanup_close int cur = fcntl(dirfd, F_DUPFD_CLOEXEC, 3);
        cleanup_free char *cur_abs = xstrdup(abs);
        cleanup_free char *copy = xstrdup(relpath);
        char *save = NULL;
        int r;

        if (cur < 0)
                return error_set(reterr, errno, "create cgroup \"%s\": %s", abs, strerror(errno));
        for (char *comp = strtok_r(copy, "/", &save); comp; comp = strtok_r(NULL, "/", &save)) {
                cleanup_free char *next_abs = path_join(cur_abs, comp);
                int next;

                if ((r = m->ops->prepare_parent(m, cur, cur_abs, reterr)) < 0)
                        return r;
                r = m->fs.mkdir_at(cur, comp, m->fs.userdata);
                if (r < 0 && r != -EEXIST)
                        return error_set(reterr, -r, "create cgroup \"%s\": %s", next_abs,
                                         strerror(-r));
                next = openat(cur, comp, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
                if (next < 0)
                        return error_set(reterr, errno, "create cgroup \"%s\": %s", next_abs,
                                         strerror(errno));
                close(cur);
                cur = next;
                free(cur_abs);
                cur_abs = TAKE_PTR(next_abs);
        }
        if (prepare_last && (r = m->ops->prepare_parent(m, cur, cur_abs, reterr)) < 0)
                return r;
        return want_fd ? TAKE_FD(cur) : 0;
}

int cg_manager_open_fs(const char *sysfs_root, const char *flexlet_root, const struct cgroup_fs *fs,
                       struct cgroup_manager **ret, struct error **reterr)
{
        cleanup_cgroup_manager struct cgroup_manager *m = NULL;
        size_t len;
        int r;

        if (!sysfs_root || sysfs_root[0] != '/')
                return error_set(reterr, EINVAL, "cgroup filesystem root \"%s\" is not absolute",
                                 sysfs_root ? sysfs_root : "(null)");
        if ((r = check_relpath(flexlet_root, false, reterr)) < 0)
                return r;

        m = xcalloc(1, sizeof(*m));
        m->sysfs_fd = -1;
        m->fs = fs ? *fs : real_fs;
        m->sysfs_root = xstrdup(sysfs_root);
        len = strlen(m->sysfs_root);
        while (len > 1 && m->sysfs_root[len - 1] == '/')
                m->sysfs_root[--len] = '\0';
        m->flexlet_root = xstrdup(flexlet_root);

        m->sysfs_fd = open(m->sysfs_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (m->sysfs_fd < 0)
                return error_set(reterr, errno, "open cgroups at \"%s\": %s", m->sysfs_root,
                                 strerror(errno));
        /* libcontainer's IsCgroup2UnifiedMode (which the kubelet uses) looks at the filesystem
         * type; cgroup.controllers exists only at a cgroup2 root, and a test tree can have it */
        m->ops = faccessat(m->sysfs_fd, "cgroup.controllers", F_OK, 0) == 0 ? &cgroup_ops_v2
                                                                            : &cgroup_ops_v1;
        if ((r = m->ops->detect(m, reterr)) < 0)
                return r;

        for (size_t i = 0; i < m->n_h; i++) {
                struct cg_hierarchy *h = &m->h[i];
                cleanup_free char *mount_abs = NULL;
                cleanup_close int mount_fd = -1;

                mount_abs = path_join(m->sysfs_root, h->name);
                mount_fd = h->name[0] ? openat(m->sysfs_fd, h->name,
                                               O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                                      : fcntl(m->sysfs_fd, F_DUPFD_CLOEXEC, 3);
                if (mount_fd < 0)
                        return error_set(reterr, errno, "open cgroups at \"%s\": %s", mount_abs,
                                         strerror(errno));
                r = create_below(m, mount_fd, mount_abs, m->flexlet_root, true, true, reterr);
                if (r < 0)
                        return r;
                h->root_fd = r;
                h->root_abs = path_join(mount_abs, m->flexlet_root);
        }
        *ret = TAKE_PTR(m);
        return 0;
}

int cgroup_manager_open(const char *sysfs_root, const char *flexlet_root,
                        struct cgroup_manager **ret, struct error **reterr)
{
        return cg_manager_open_fs(sysfs_root, flexlet_root, NULL, ret, reterr);
}

enum cgroup_version cgroup_manager_version(const struct cgroup_manager *m)
{
        return m->ops->version;
}

/* ---- create ---- */

int cgroup_create(struct cgroup_manager *m, const char *relpath, struct error **reterr)
{
        int r;

        if ((r = check_relpath(relpath, true, reterr)) < 0)
                return r;
        for (size_t i = 0; i < m->n_h; i++) {
                r = create_below(m, m->h[i].root_fd, m->h[i].root_abs, relpath, false, false,
                                 reterr);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* ---- limits ---- */

static int check_limits(const struct cgroup_limits *l, unsigned which, struct error **reterr)
{
        if ((which & CGROUP_CPU_SHARES) && (l->cpu_shares < 2 || l->cpu_shares > 262144))
                return error_set(reterr, EINVAL,
                                 "invalid cpu shares %" PRId64 ": must be between 2 and 262144",
                                 l->cpu_shares);
        if ((which & CGROUP_CPU_QUOTA) && (l->cpu_period_us < 1000 || l->cpu_period_us > 1000000))
                return error_set(reterr, EINVAL,
                                 "invalid cpu period %" PRId64 ": must be between 1000 and 1000000",
                                 l->cpu_period_us);
        if ((which & CGROUP_CPU_QUOTA) && l->cpu_quota_us != -1 && l->cpu_quota_us < 1000)
                return error_set(reterr, EINVAL,
                                 "invalid cpu quota %" PRId64
                                 ": must be -1 (unlimited) or at least 1000",
                                 l->cpu_quota_us);
        if ((which & CGROUP_MEMORY) && l->memory_limit_bytes != -1 && l->memory_limit_bytes <= 0)
                return error_set(reterr, EINVAL,
                                 "invalid memory limit %" PRId64
                                 ": must be -1 (unlimited) or positive",
                                 l->memory_limit_bytes);
        return 0;
}

int cgroup_set_limits(struct cgroup_manager *m, const char *relpath, const struct cgroup_limits *l,
                      unsigned which, struct error **reterr)
{
        int r;

        if ((r = check_relpath(relpath, true, reterr)) < 0 ||
            (r = check_limits(l, which, reterr)) < 0)
                return r;
        return m->ops->set_limits(m, relpath, l, which, reterr);
}

int cgroup_lower_memory_limit(struct cgroup_manager *m, const char *relpath,
                              const struct cgroup_limits *l, unsigned flags, unsigned wait_ms,
                              uint64_t *ret_usage, struct error **reterr)
{
        unsigned which = CGROUP_MEMORY | (flags & CGROUP_WEIGHT_OCI);
        struct timespec start, now;
        uint64_t usage = 0;
        int r, rr;

        if ((r = check_relpath(relpath, true, reterr)) < 0 ||
            (r = check_limits(l, CGROUP_MEMORY, reterr)) < 0)
                return r;
        if (l->memory_limit_bytes < 0)
                return error_set(reterr, EINVAL, "lower memory limit: -1 (unlimited) is no lower");
        r = m->ops->set_memory_high(m, relpath, l->memory_limit_bytes, reterr);
        if (r == -EOPNOTSUPP)
                return m->ops->set_limits(m, relpath, l, which, reterr);
        if (r < 0)
                return r;
        clock_gettime(CLOCK_MONOTONIC, &start);
        for (;;) {
                r = m->ops->memory_usage(m, relpath, &usage, reterr);
                if (r < 0 || usage <= (uint64_t) l->memory_limit_bytes)
                        break;
                clock_gettime(CLOCK_MONOTONIC, &now);
                if ((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000 >=
                    (long) wait_ms) {
                        r = error_set(reterr, EBUSY,
                                      "memory usage of \"%s\" (%" PRIu64
                                      ") stays above the new limit (%" PRId64 ")",
                                      relpath, usage, l->memory_limit_bytes);
                        break;
                }
                nanosleep(&(struct timespec){ .tv_nsec = 10 * 1000 * 1000 }, NULL);
        }
        if (r >= 0)
                r = m->ops->set_limits(m, relpath, l, which, reterr);
        /* back to no soft limit: flexlet sets memory.high nowhere else (no MemoryQoS) */
        rr = m->ops->set_memory_high(m, relpath, -1, r < 0 ? NULL : reterr);
        if (r >= 0 && rr < 0)
                r = rr;
        if (ret_usage)
                *ret_usage = usage;
        return r;
}

int cgroup_get_limits(struct cgroup_manager *m, const char *relpath, struct cgroup_limits *ret,
                      struct error **reterr)
{
        int r;

        if ((r = check_relpath(relpath, true, reterr)) < 0)
                return r;
        return m->ops->get_limits(m, relpath, ret, reterr);
}

int cgroup_memory_limit(struct cgroup_manager *m, const char *relpath, int64_t *ret,
                        struct error **reterr)
{
        int r;

        if ((r = check_relpath(relpath, true, reterr)) < 0)
                return r;
        return m->ops->memory_limit(m, relpath, ret, reterr);
}

int cgroup_memory_usage(struct cgroup_manager *m, const char *relpath, uint64_t *ret,
                        struct error **reterr)
{
        int r;

        if ((r = check_relpath(relpath, true, reterr)) < 0)
                return r;
        return m->ops->memory_usage(m, relpath, ret, reterr);
}

int cgroup_stats(struct cgroup_manager *m, const char *relpath, struct cgroup_stats *ret,
                 struct error **reterr)
{
        struct cgroup_stats st = { .memory_limit = -1 };
        struct cgroup_limits l;
        int r;

        if ((r = check_relpath(relpath, true, reterr)) < 0)
                return r;
        if ((r = m->ops->stats(m, relpath, &st, reterr)) < 0)
                return r;
        if ((r = m->ops->get_limits(m, relpath, &l, reterr)) < 0)
                return r;
        st.memory_limit = l.memory_limit_bytes;
        *ret = st;
        return 0;
}

uint64_t cgroup_working_set(const struct cgroup_stats *st)
{
        return st->memory_usage > st->inactive_file ? st->memory_usage - st->inactive_file : 0;
}

int cgroup_oom_kills(struct cgroup_manager *m, const char *relpath, uint64_t *ret,
                     struct error **reterr)
{
        int r;

        if ((r = check_relpath(relpath, true, reterr)) < 0)
                return r;
        return m->ops->oom_kills(m, relpath, ret, reterr);
}

int cgroup_set_devices(struct cgroup_manager *m, const char *relpath, bool allow_all,
                       struct error **reterr)
{
        int r;

        if ((r = check_relpath(relpath, false, reterr)) < 0)
                return r;
        return m->ops->version == CGROUP_V2 ? cg_devices_set_v2(m, relpath, allow_all, reterr)
                                            : cg_devices_set_v1(m, relpath, allow_all, reterr);
}

/* ---- processes ---- */

int cgroup_add_pid(struct cgroup_manager *m, const char *relpath, pid_t pid, struct error **reterr)
{
        char value[32];
        int r;

        if ((r = check_relpath(relpath, true, reterr)) < 0)
                return r;
        if (pid <= 0)
                return error_set(reterr, EINVAL, "invalid process id %d", (int) pid);
        snprintf(value, sizeof(value), "%d", (int) pid);
        for (size_t i = 0; i < m->n_h; i++) {
                cleanup_close int fd = -1;
                char context[64];

                snprintf(context, sizeof(context), "add process %d to cgroup", (int) pid);
                fd = cg_open_dir(&m->h[i], relpath, context, reterr);
                if (fd < 0)
                        return fd;
                /* EINVAL may mean a task still in TASK_NEW: runc retries, so do we */
                for (int attempt = 0;; attempt++) {
                        r = cg_write_file(fd, "cgroup.procs", value);
                        if (r != -EINVAL || attempt == 4)
                                break;
                        nanosleep(&(struct timespec){ .tv_nsec = 30 * 1000 * 1000 }, NULL);
                }
                if (r < 0) {
                        cleanup_free char *abs = cg_abs(&m->h[i], relpath);
                        return error_set(reterr, -r, "add process %d to cgroup \"%s\": %s",
                                         (int) pid, abs, strerror(-r));
                }
        }
        return 0;
}

char **cgroup_strv_free(char **v)
{
        for (size_t i = 0; v && v[i]; i++)
                free(v[i]);
        free(v);
        return NULL;
}

int cgroup_procs_paths(struct cgroup_manager *m, const char *relpath, char ***ret, size_t *ret_n,
                       struct error **reterr)
{
        char **v;
        int r;

        if ((r = check_relpath(relpath, true, reterr)) < 0)
                return r;
        for (size_t i = 0; i < m->n_h; i++) {
                cleanup_close int fd = cg_open_dir(&m->h[i], relpath, "find cgroup.procs", reterr);
                if (fd < 0)
                        return fd;
        }
        v = xcalloc(m->n_h + 1, sizeof(*v));
        for (size_t i = 0; i < m->n_h; i++) {
                cleanup_free char *abs = cg_abs(&m->h[i], relpath);
                v[i] = xasprintf("%s/cgroup.procs", abs);
        }
        *ret = v;
        if (ret_n)
                *ret_n = m->n_h;
        return 0;
}

static int read_pids_at(int dirfd, pid_t **ret, size_t *ret_n)
{
        cleanup_free char *text = NULL;
        ssize_t n = cg_read_file(dirfd, "cgroup.procs", CG_PROCS_MAX, &text);

        if (n < 0)
                return (int) n;
        return cg_parse_pids(text, ret, ret_n);
}

int cgroup_pids(struct cgroup_manager *m, const char *relpath, pid_t **ret, size_t *ret_n,
                struct error **reterr)
{
        struct cg_hierarchy *h;
        cleanup_close int fd = -1;
        int r;

        if ((r = check_relpath(relpath, true, reterr)) < 0)
                return r;
        h = cg_hierarchy_for(m, CG_CTRL_MEMORY);
        fd = cg_open_dir(h, relpath, "list processes", reterr);
        if (fd < 0)
                return fd;
        if ((r = read_pids_at(fd, ret, ret_n)) < 0) {
                cleanup_free char *abs = cg_abs(h, relpath);
                return error_set(reterr, -r, "list processes of \"%s\": %s", abs, strerror(-r));
        }
        return 0;
}

/* The names of the subdirectories (child cgroups) of dirfd; a NULL-terminated array. */
static int list_children(int dirfd, char ***ret)
{
        int fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 3);
        char **names = NULL;
        size_t n = 0;
        struct dirent *de;
        DIR *d;

        if (fd < 0)
                return -errno;
        d = fdopendir(fd);
        if (!d) {
                int e = errno;
                close(fd);
                return -e;
        }
        rewinddir(d);
        names = xcalloc(1, sizeof(*names));
        while ((de = readdir(d))) {
                bool dir = de->d_type == DT_DIR;
                if (streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                if (de->d_type == DT_UNKNOWN) {
                        struct stat st;
                        dir = fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                              S_ISDIR(st.st_mode);
                }
                if (!dir)
                        continue;
                names = xrealloc(names, (n + 2) * sizeof(*names));
                names[n++] = xstrdup(de->d_name);
                names[n] = NULL;
        }
        closedir(d);
        *ret = names;
        return 0;
}

/* SIGKILLs every process listed in dirfd's cgroup and below; counts the ones that existed. */
static int kill_tree(int dirfd, int depth, size_t *alive)
{
        cleanup_free pid_t *pids = NULL;
        char **children = NULL;
        size_t n = 0;
        int r;

        if (depth > CG_MAX_DEPTH)
                return -ELOOP;
        r = read_pids_at(dirfd, &pids, &n);
        if (r < 0 && r != -ENOENT)
                return r;
        for (size_t i = 0; i < n; i++) {
                if (kill(pids[i], SIGKILL) == 0 || errno != ESRCH)
                        (*alive)++;
        }
        if ((r = list_children(dirfd, &children)) < 0)
                return r == -ENOENT ? 0 : r;
        for (size_t i = 0; children[i] && r >= 0; i++) {
                int fd =
                        openat(dirfd, children[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
                if (fd < 0) {
                        if (errno != ENOENT)
                                r = -errno;
                        continue;
                }
                r = kill_tree(fd, depth + 1, alive);
                close(fd);
        }
        cgroup_strv_free(children);
        return r < 0 ? r : 0;
}

int cgroup_kill(struct cgroup_manager *m, const char *relpath, struct error **reterr)
{
        int quiet = 0;
        size_t alive = 0;
        int r;

        if ((r = check_relpath(relpath, true, reterr)) < 0)
                return r;
        if ((r = m->ops->kill_fast(m, relpath, reterr)) < 0)
                return r;
        for (int round = 0; round < CG_KILL_ROUNDS; round++) {
                alive = 0;
                for (size_t i = 0; i < m->n_h; i++) {
                        cleanup_close int fd =
                                openat(m->h[i].root_fd, relpath[0] ? relpath : ".",
                                       O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
                        if (fd < 0) {
                                if (errno == ENOENT)
                                        continue;
                                r = -errno;
                        } else {
                                r = kill_tree(fd, 0, &alive);
                        }
                        if (r < 0) {
                                cleanup_free char *abs = cg_abs(&m->h[i], relpath);
                                return error_set(reterr, -r, "kill cgroup \"%s\": %s", abs,
                                                 strerror(-r));
                        }
                }
                /* a process listed but already gone may have forked first: look twice */
                if (alive == 0 && ++quiet == 2)
                        return 0;
                if (alive > 0)
                        quiet = 0;
                nanosleep(&(struct timespec){ .tv_nsec = alive ? 10 * 1000 * 1000 : 1000 * 1000 },
                          NULL);
        }
        {
                cleanup_free char *abs = cg_abs(&m->h[0], relpath);
                return error_set(reterr, EBUSY, "kill cgroup \"%s\": %zu processes still running",
                                 abs, alive);
        }
}

/* Removes dirfd/name and everything below it, deepest first. */
static int destroy_tree(struct cgroup_manager *m, int dirfd, const char *name, int depth)
{
        char **children = NULL;
        int fd, r;

        if (depth > CG_MAX_DEPTH)
                return -ELOOP;
        fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return errno == ENOENT ? 0 : -errno;
        r = list_children(fd, &children);
        for (size_t i = 0; r >= 0 && children[i]; i++)
                r = destroy_tree(m, fd, children[i], depth + 1);
        cgroup_strv_free(children);
        close(fd);
        if (r < 0)
                return r;
        r = m->fs.rmdir_at(dirfd, name, m->fs.userdata);
        return r == -ENOENT ? 0 : r;
}

int cgroup_destroy(struct cgroup_manager *m, const char *relpath, struct error **reterr)
{
        int r;

        if ((r = check_relpath(relpath, true, reterr)) < 0)
                return r;
        for (size_t i = 0; i < m->n_h; i++) {
                /* relpath "" is the flexlet root: remove it from its parent */
                const char *target = relpath[0] ? relpath : m->flexlet_root;
                const char *slash = strrchr(target, '/');
                cleanup_free char *parent =
                        slash ? xstrndup(target, (size_t) (slash - target)) : NULL;
                cleanup_close int pfd = -1;

                if (relpath[0])
                        pfd = parent ? openat(m->h[i].root_fd, parent,
                                              O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW)
                                     : fcntl(m->h[i].root_fd, F_DUPFD_CLOEXEC, 3);
                else
                        pfd = openat(m->h[i].root_fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (pfd < 0) {
                        if (errno == ENOENT)
                                continue;
                        r = -errno;
                } else {
                        r = destroy_tree(m, pfd, slash ? slash + 1 : target, 0);
                }
                if (r < 0) {
                        cleanup_free char *abs = cg_abs(&m->h[i], relpath);
                        return error_set(reterr, -r, "remove cgroup \"%s\": %s", abs, strerror(-r));
                }
        }
        return 0;
}
