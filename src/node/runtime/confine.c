/* confine.c: what the container process does, between building its root and exec, to be
 * confined as containerd and runc confine an unprivileged container: masked and read-only
 * /proc and /sys paths, the host's devices for a privileged one, namespaced sysctls, a
 * read-only root, the user's groups from the image, and in the last steps the capability
 * sets, no_new_privs and the seccomp filter in runc's order. Runs in the forked child only
 * (one thread): it may allocate, and fails with a message for the StartError. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/alloc.h"
#include "node/runtime/runtime-internal.h"

/* containerd oci/spec.go populateDefaultUnixSpec: MaskedPaths and ReadonlyPaths of every
 * unprivileged container (K8S: procMount Default). */
static const char *const masked_paths[] = {
        "proc/acpi",
        "proc/asound",
        "proc/kcore",
        "proc/keys",
        "proc/latency_stats",
        "proc/timer_list",
        "proc/timer_stats",
        "proc/sched_debug",
        "proc/scsi",
        "sys/firmware",
        "sys/devices/virtual/powercap",
};
static const char *const readonly_paths[] = {
        "proc/bus", "proc/fs", "proc/irq", "proc/sys", "proc/sysrq-trigger",
};

static void fd_path(int fd, char buf[static 32])
{
        (void) snprintf(buf, 32, "/proc/self/fd/%d", fd);
}

/* runc maskPath: /dev/null over a file, an empty read-only tmpfs over a directory; a path the
 * kernel does not have is left alone. */
static int mask_path(int rootfd, const char *path, struct error **reterr)
{
        cleanup_close int fd = rt_open_in_root(rootfd, path, O_PATH | O_NOFOLLOW);
        struct stat st;
        char p[32];
        int r;

        if (fd == -ENOENT)
                return 0;
        if (fd < 0)
                return error_set(reterr, -fd, "mask /%s: %s", path, strerror(-fd));
        if (fstat(fd, &st) < 0)
                return error_set(reterr, errno, "mask /%s: %s", path, strerror(errno));
        fd_path(fd, p);
        if (S_ISDIR(st.st_mode))
                r = mount("tmpfs", p, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                          "size=0");
        else
                r = mount("/dev/null", p, NULL, MS_BIND, NULL);
        if (r < 0)
                return error_set(reterr, errno, "mask /%s: %s", path, strerror(errno));
        return 0;
}

/* runc readonlyPath: a bind of the path onto itself, remounted read-only. */
static int readonly_path(int rootfd, const char *path, struct error **reterr)
{
        cleanup_close int fd = rt_open_in_root(rootfd, path, O_PATH | O_NOFOLLOW);
        cleanup_close int top = -1;
        char p[32];

        if (fd == -ENOENT)
                return 0;
        if (fd < 0)
                return error_set(reterr, -fd, "make /%s read-only: %s", path, strerror(-fd));
        fd_path(fd, p);
        if (mount(p, p, NULL, MS_BIND | MS_REC, NULL) < 0)
                return error_set(reterr, errno, "make /%s read-only: %s", path, strerror(errno));
        /* the bind is on top now: reopen to reach it */
        top = rt_open_in_root(rootfd, path, O_PATH | O_NOFOLLOW);
        if (top < 0)
                return error_set(reterr, -top, "make /%s read-only: %s", path, strerror(-top));
        fd_path(top, p);
        if (mount(NULL, p, NULL,
                  MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
                return error_set(reterr, errno, "make /%s read-only: %s", path, strerror(errno));
        return 0;
}

int rt_confine_paths(int rootfd, const struct runtime_security *sec, struct error **reterr)
{
        int r;

        if (sec->privileged || sec->proc_unmasked)
                return 0; /* K8S: a privileged container sees /proc and /sys unmasked */
        for (size_t i = 0; i < ARRAY_SIZE(masked_paths); i++)
                if ((r = mask_path(rootfd, masked_paths[i], reterr)) < 0)
                        return r;
        for (size_t i = 0; i < ARRAY_SIZE(readonly_paths); i++)
                if ((r = readonly_path(rootfd, readonly_paths[i], reterr)) < 0)
                        return r;
        return 0;
}

/* One level of the host's /dev: its character and block devices recreated (same numbers,
 * mode and owner) in the container's /dev, as containerd's WithDevices("/dev") for a privileged
 * container. Names the container's /dev already has are kept. */
static int copy_devices(int hostfd, int dstfd, const char *where, int depth, struct error **reterr)
{
        DIR *d = fdopendir(dup(hostfd));
        struct dirent *e;
        int r = 0;

        if (!d)
                return error_set(reterr, errno, "read the host's %s: %s", where, strerror(errno));
        while (r >= 0 && (e = readdir(d))) {
                struct stat st;

                if (e->d_name[0] == '.' || fstatat(hostfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                        continue;
                if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {
                        if (mknodat(dstfd, e->d_name, st.st_mode, st.st_rdev) < 0) {
                                if (errno != EEXIST)
                                        r = error_set(reterr, errno, "mknod %s/%s: %s", where,
                                                      e->d_name, strerror(errno));
                                continue;
                        }
                        (void) fchownat(dstfd, e->d_name, st.st_uid, st.st_gid,
                                        AT_SYMLINK_NOFOLLOW);
                } else if (S_ISDIR(st.st_mode) && depth == 0 && !streq(e->d_name, "pts") &&
                           !streq(e->d_name, "shm") && !streq(e->d_name, "mqueue")) {
                        cleanup_close int sub = -1, dsub = -1;
                        cleanup_free char *w = xasprintf("%s/%s", where, e->d_name);

                        sub = openat(hostfd, e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                        if (sub < 0)
                                continue;
                        if (mkdirat(dstfd, e->d_name, 0755) < 0 && errno != EEXIST)
                                continue;
                        dsub = openat(dstfd, e->d_name,
                                      O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                        if (dsub >= 0)
                                r = copy_devices(sub, dsub, w, depth + 1, reterr);
                }
        }
        closedir(d);
        return r;
}

int rt_confine_devices(int rootfd, const struct runtime_security *sec, struct error **reterr)
{
        cleanup_close int host = -1, dev = -1;

        if (!sec->privileged)
                return 0;
        host = open("/dev", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (host < 0)
                return error_set(reterr, errno, "open the host's /dev: %s", strerror(errno));
        dev = rt_open_in_root(rootfd, "dev", O_RDONLY | O_DIRECTORY);
        if (dev < 0)
                return error_set(reterr, -dev, "open /dev: %s", strerror(-dev));
        return copy_devices(host, dev, "/dev", 0, reterr);
}

static bool same_netns_as_host(void)
{
        struct stat self, init;

        /* the host's /proc is still in sight: pid 1 there is the host's init */
        if (stat("/proc/self/ns/net", &self) < 0 || stat("/proc/1/ns/net", &init) < 0)
                return true;
        return self.st_ino == init.st_ino && self.st_dev == init.st_dev;
}

bool rt_sysctl_name_ok(const char *name)
{
        /* a path under /proc/sys: lower-case words, digits, '_', '-' and '/' between them */
        if (!*name || name[0] == '/' || strlen(name) > 256)
                return false;
        for (const char *p = name; *p; p++) {
                bool ok = (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_' ||
                          *p == '-' || (*p == '/' && p[1] && p[1] != '/');
                if (!ok)
                        return false;
        }
        return true;
}

int rt_confine_sysctls(const struct runtime_security *sec, struct error **reterr)
{
        for (size_t i = 0; i < sec->n_sysctls; i++) {
                const struct runtime_sysctl *s = &sec->sysctls[i];
                cleanup_free char *path = NULL;
                cleanup_close int fd = -1;
                size_t n;

                if (!rt_sysctl_name_ok(s->name))
                        return error_set(reterr, EINVAL, "sysctl \"%s\": not a sysctl name",
                                         s->name);
                if (strncmp(s->name, "net/", 4) == 0 && same_netns_as_host())
                        return error_set(reterr, EINVAL,
                                         "sysctl \"%s\": needs the pod's own network namespace; "
                                         "this pod shares the host's",
                                         s->name);
                path = xasprintf("/proc/sys/%s", s->name);
                fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
                n = strlen(s->value);
                if (fd < 0 || write(fd, s->value, n) != (ssize_t) n)
                        return error_set(reterr, errno, "write sysctl \"%s\" = \"%s\": %s", s->name,
                                         s->value, strerror(errno));
        }
        return 0;
}

int rt_confine_root_readonly(const struct runtime_security *sec, struct error **reterr)
{
        /* runc: after pivot_root, the root remounted read-only (its other flags kept) */
        if (sec->read_only_root &&
            mount(NULL, "/", NULL, MS_BIND | MS_REMOUNT | MS_RDONLY, NULL) < 0)
                return error_set(reterr, errno, "make the root filesystem read-only: %s",
                                 strerror(errno));
        return 0;
}

/* ------------------------------------------------------------------ user and groups */

/* Splits a colon-separated line into at most n fields (in place). */
static size_t split_fields(char *line, char **fields, size_t n)
{
        size_t k = 0;

        line[strcspn(line, "\n")] = '\0';
        while (k < n) {
                fields[k++] = line;
                line = strchr(line, ':');
                if (!line)
                        break;
                *line++ = '\0';
        }
        return k;
}

static bool parse_id(const char *s, unsigned long *ret)
{
        char *end;

        if (!*s || *s < '0' || *s > '9')
                return false;
        errno = 0;
        *ret = strtoul(s, &end, 10);
        return !*end && !errno && *ret <= 0xffffffffUL;
}

void rt_user_groups(FILE *passwd, FILE *group, uid_t uid, bool gid_set, gid_t *gid,
                    bool image_groups, gid_t **ret, size_t *ret_n)
{
        cleanup_free char *name = NULL, *line = NULL;
        size_t cap = 0, n = 0;
        gid_t *out = NULL;

        /* containerd WithUserID: the primary group from the image's /etc/passwd (0 if absent) */
        while (passwd && getline(&line, &cap, passwd) > 0) {
                char *f[7];
                unsigned long u, g;

                if (split_fields(line, f, 7) >= 4 && parse_id(f[2], &u) && u == uid) {
                        name = xstrdup(f[0]);
                        if (!gid_set && parse_id(f[3], &g))
                                *gid = (gid_t) g;
                        break;
                }
        }
        if (!name && !gid_set)
                *gid = 0;
        /* containerd ensureAdditionalGids: the primary group is one of the groups */
        out = xcalloc(1, sizeof(*out));
        out[n++] = *gid;
        /* containerd WithAdditionalGIDs: the groups of /etc/group listing the user by name */
        while (image_groups && name && group && getline(&line, &cap, group) > 0) {
                char *f[4];
                unsigned long g;

                if (split_fields(line, f, 4) < 4 || !parse_id(f[2], &g))
                        continue;
                for (char *m = f[3], *next; m && *m; m = next) {
                        next = strchr(m, ',');
                        if (next)
                                *next++ = '\0';
                        if (streq(m, name)) {
                                out = xrealloc(out, (n + 1) * sizeof(*out));
                                out[n++] = (gid_t) g;
                                break;
                        }
                }
                if (n >= 1024)
                        break;
        }
        *ret = out;
        *ret_n = n;
}

/* ------------------------------------------------------------------ the last steps */

/* The image's file at path (after pivot_root: inside the container), when it is a regular file
 * (a FIFO or device there must not block or feed us). */
static FILE *open_regular(const char *path)
{
        int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        struct stat st;
        FILE *f;

        if (fd < 0)
                return NULL;
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || !(f = fdopen(fd, "re"))) {
                close(fd);
                return NULL;
        }
        return f;
}

static uint64_t effective_caps(const struct runtime_security *sec)
{
        return sec->privileged ? rt_caps_all() : sec->caps_set ? sec->caps : RUNTIME_DEFAULT_CAPS;
}

int rt_confine_seccomp(const struct runtime_container_spec *s, struct rt_seccomp_bpf *ret,
                       struct error **reterr)
{
        const struct runtime_security *sec = &s->security;

        /* K8S/containerd: a privileged container runs without a seccomp filter */
        return rt_seccomp_compile(sec->privileged ? RUNTIME_SECCOMP_UNCONFINED : sec->seccomp,
                                  sec->seccomp_profile, effective_caps(sec), ret, reterr);
}

int rt_confine_prepare(const struct runtime_container_spec *s, const struct rt_seccomp_bpf *bpf,
                       struct rt_confine *ret, struct error **reterr)
{
        const struct runtime_security *sec = &s->security;
        struct rt_confine c = { .uid = s->uid, .gid = s->gid };
        FILE *passwd = open_regular("/etc/passwd"), *group = open_regular("/etc/group");
        gid_t *image = NULL;
        size_t n_image = 0;

        rt_user_groups(passwd, group, s->uid, sec->gid_set, &c.gid, !sec->no_image_groups, &image,
                       &n_image);
        if (passwd)
                fclose(passwd);
        if (group)
                fclose(group);
        c.groups = xcalloc(n_image + sec->n_groups + 1, sizeof(*c.groups));
        memcpy(c.groups, image, n_image * sizeof(*image));
        c.n_groups = n_image;
        free(image);
        for (size_t i = 0; i < sec->n_groups; i++)
                c.groups[c.n_groups++] = sec->groups[i];
        c.caps = effective_caps(sec);
        c.no_new_privs = sec->no_new_privs;
        if (!sec->privileged && sec->seccomp != RUNTIME_SECCOMP_UNCONFINED && (!bpf || !bpf->len)) {
                free(c.groups);
                return error_set(reterr, EINVAL, "seccomp: the compiled filter is missing");
        }
        c.seccomp = sec->privileged ? NULL : bpf;
        *ret = c;
        (void) reterr;
        return 0;
}

int rt_confine_finish(struct rt_confine *c, struct error **reterr)
{
        int r;

        /* runc finalizeNamespace: the bounding set first, while CAP_SETPCAP is ours */
        if ((r = rt_caps_drop_bounding(c->caps)) < 0)
                return error_set(reterr, -r, "drop capabilities from the bounding set: %s",
                                 strerror(-r));
        /* runc: without no_new_privs the filter goes in before the user changes (it needs
         * CAP_SYS_ADMIN); it must then allow what follows, as RuntimeDefault does */
        if (!c->no_new_privs && (r = rt_seccomp_load_bpf(c->seccomp)) < 0)
                return error_set(reterr, -r, "load the seccomp filter: %s", strerror(-r));
        if (setgroups(c->n_groups, c->groups) < 0 || setgid(c->gid) < 0 || setuid(c->uid) < 0)
                return error_set(reterr, errno, "set user %u, group %u: %s", (unsigned) c->uid,
                                 (unsigned) c->gid, strerror(errno));
        /* root keeps the set (and gains the bounding set again at exec); any other user had its
         * permitted set cleared by setuid and has none after exec, as with runc */
        if ((r = rt_caps_set(c->uid == 0 ? c->caps : 0)) < 0)
                return error_set(reterr, -r, "set capabilities: %s", strerror(-r));
        if (c->no_new_privs) {
                if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                        return error_set(reterr, errno, "set no_new_privs: %s", strerror(errno));
                if ((r = rt_seccomp_load_bpf(c->seccomp)) < 0)
                        return error_set(reterr, -r, "load the seccomp filter: %s", strerror(-r));
        }
        return 0;
}
