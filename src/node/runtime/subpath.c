/* subpath.c: a volume mount's source, resolved inside its volume. The agent's side checks a
 * subPath before a container starts (K8S makeMounts: SafeMakeDir, PrepareSafeSubpath,
 * subPathExpr expansion) with openat2 RESOLVE_BENEATH, so an escape is refused; the supervisor's
 * side opens the source it bind-mounts with RESOLVE_IN_ROOT, so a symbolic link swapped in after
 * the check stays inside the volume. Nothing here walks a pod-controlled path on the host, and
 * nothing here mounts (supervisor.c does). */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/strbuf.h"
#include "node/runtime/runtime-internal.h"

#define BENEATH (RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)
#define IN_ROOT (RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS)

bool rt_subpath_is_local(const char *sub)
{
        const char *p = sub;

        if (!sub || sub[0] == '/')
                return false;
        /* K8S ValidatePathNoBacksteps: no ".." component */
        while (*p) {
                size_t n = strcspn(p, "/");

                if (n == 2 && p[0] == '.' && p[1] == '.')
                        return false;
                p += n;
                while (*p == '/')
                        p++;
        }
        return true;
}

/* The volume directory, O_PATH, opened once: not through a final symbolic link. */
static int open_volume(const char *volume_dir, struct error **reterr)
{
        int fd;

        if (!volume_dir || volume_dir[0] != '/')
                return error_set(reterr, EINVAL, "volume \"%s\": not an absolute path",
                                 volume_dir ? volume_dir : "");
        fd = open(volume_dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return error_set(reterr, errno, "open volume \"%s\": %s", volume_dir,
                                 strerror(errno));
        return fd;
}

static const char *resolve_error(int e)
{
        return e == EXDEV ? "it leaves the volume" : strerror(e);
}

int runtime_subpath_check(const char *volume_dir, const char *sub_path, struct error **reterr)
{
        cleanup_close int vfd = -1;
        int fd;

        if (!rt_subpath_is_local(sub_path))
                return error_set(reterr, EINVAL,
                                 "subPath \"%s\": not a relative path without \"..\"",
                                 sub_path ? sub_path : "");
        vfd = open_volume(volume_dir, reterr);
        if (vfd < 0)
                return vfd;
        fd = rt_open_resolved(vfd, sub_path, O_PATH, BENEATH);
        if (fd < 0)
                return error_set(reterr, -fd, "subPath \"%s\" of volume \"%s\": %s", sub_path,
                                 volume_dir, resolve_error(-fd));
        close(fd);
        return 0;
}

int runtime_subpath_mkdir(const char *volume_dir, const char *sub_path, struct error **reterr)
{
        cleanup_close int vfd = -1;
        struct stat st;
        int fd;

        if (!rt_subpath_is_local(sub_path))
                return error_set(reterr, EINVAL,
                                 "subPath \"%s\": not a relative path without \"..\"",
                                 sub_path ? sub_path : "");
        vfd = open_volume(volume_dir, reterr);
        if (vfd < 0)
                return vfd;
        if (fstat(vfd, &st) < 0)
                return error_set(reterr, errno, "stat volume \"%s\": %s", volume_dir,
                                 strerror(errno));
        /* K8S: SafeMakeDir with the volume's mode (GetMode(volumePath)), chmod past the umask */
        fd = rt_create_resolved(vfd, sub_path, false, st.st_mode & 07777, BENEATH);
        if (fd < 0)
                return error_set(reterr, -fd, "create subPath \"%s\" in volume \"%s\": %s",
                                 sub_path, volume_dir, resolve_error(-fd));
        close(fd);
        return 0;
}

int rt_mount_source_open(const struct runtime_mount *m, struct error **reterr)
{
        cleanup_close int vfd = -1;
        struct stat st;
        int fd;

        vfd = open_volume(m->source, reterr);
        if (vfd < 0)
                return vfd;
        if (!m->sub_path || !*m->sub_path)
                return TAKE_FD(vfd);
        if (!rt_subpath_is_local(m->sub_path))
                return error_set(reterr, EINVAL,
                                 "subPath \"%s\": not a relative path without \"..\"", m->sub_path);
        /* the volume is the root: an absolute link or a ".." chain ends inside it */
        fd = rt_open_resolved(vfd, m->sub_path, O_PATH, IN_ROOT);
        if (fd == -ENOENT) {
                if (fstat(vfd, &st) < 0)
                        return error_set(reterr, errno, "stat volume \"%s\": %s", m->source,
                                         strerror(errno));
                fd = rt_create_resolved(vfd, m->sub_path, false, st.st_mode & 07777, IN_ROOT);
        }
        if (fd < 0)
                return error_set(reterr, -fd, "subPath \"%s\" of volume \"%s\": %s", m->sub_path,
                                 m->source, strerror(-fd));
        return fd;
}

/* ------------------------------------------------------------------ subPathExpr */

struct expand_ctx {
        const struct rt_env *env;
        char **missing;
        size_t n_missing;
};

static const char *expand_lookup(void *ud, const char *name)
{
        struct expand_ctx *x = ud;
        const char *v = rt_env_get(x->env, name);

        /* K8S: a missing or empty variable is an error; the expansion goes on to find them all */
        if (!v || !*v) {
                for (size_t i = 0; i < x->n_missing; i++)
                        if (streq(x->missing[i], name))
                                return "";
                rt_strv_push(&x->missing, &x->n_missing, xstrdup(name));
                return "";
        }
        return v;
}

static int cmp_str(const void *a, const void *b)
{
        return strcmp(*(const char *const *) a, *(const char *const *) b);
}

int runtime_subpath_expand(const char *expr, const struct runtime_env_var *env, size_t n_env,
                           char **ret, struct error **reterr)
{
        struct runtime_container_spec s = { .env = env, .n_env = n_env };
        struct rt_env e;
        struct expand_ctx x = { .env = &e };
        char *out;
        int r = 0;

        rt_pod_env(&s, &e);
        out = rt_expand(expr ? expr : "", expand_lookup, &x);
        if (x.n_missing) {
                struct strbuf sb;

                strbuf_init(&sb);
                qsort(x.missing, x.n_missing, sizeof(*x.missing), cmp_str);
                for (size_t i = 0; i < x.n_missing; i++)
                        strbuf_addf(&sb, "%s%s", i ? ", " : "", x.missing[i]);
                r = error_set(reterr, EINVAL, "missing value for %s", sb.buf);
                strbuf_release(&sb);
                free(out);
        } else {
                *ret = out;
        }
        rt_strv_free(x.missing);
        rt_env_release(&e);
        return r;
}
