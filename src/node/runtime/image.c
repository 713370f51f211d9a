/* image.c: the local image store under DATA/images: image names read as Docker references,
 * the built-in busybox assembled from the host's static busybox, imported root filesystem
 * tarballs (tar.c extracts them) and their small config.json. There is no registry client:
 * an image is in the store or it is missing. */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/spawn.h"
#include "node/runtime/runtime-internal.h"

extern char **environ;

/* where Debian's busybox-static puts it, then other common places */
static const char *const host_busybox[] = { "/bin/busybox", "/usr/bin/busybox", "/usr/sbin/busybox",
                                            "/sbin/busybox" };

/* ------------------------------------------------------------------ names */

void rt_image_name_release(struct rt_image_name *n)
{
        free(n->domain);
        free(n->path);
        free(n->tag);
        free(n->digest);
        free(n->reference);
        *n = (struct rt_image_name){ 0 };
}

static bool is_lower_alnum(char c)
{
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static bool is_alnum(char c)
{
        return is_lower_alnum(c) || (c >= 'A' && c <= 'Z');
}

/* distribution/reference: path-component = [a-z0-9]+ (separator [a-z0-9]+)*, separator =
 * "." | "_" | "__" | "-"+ */
static bool valid_path_component(const char *s, size_t n)
{
        size_t i = 0;

        if (n == 0 || !is_lower_alnum(s[0]) || !is_lower_alnum(s[n - 1]))
                return false;
        while (i < n) {
                if (is_lower_alnum(s[i])) {
                        i++;
                        continue;
                }
                if (s[i] == '.' || (s[i] == '_' && (i + 1 >= n || s[i + 1] != '_'))) {
                        i++;
                } else if (s[i] == '_') {
                        i += 2;
                } else if (s[i] == '-') {
                        while (i < n && s[i] == '-')
                                i++;
                } else {
                        return false;
                }
                if (i >= n || !is_lower_alnum(s[i]))
                        return false;
        }
        return true;
}

/* domain = host-component ("." host-component)* (":" port)? */
static bool valid_domain(const char *s, size_t n)
{
        const char *colon = memchr(s, ':', n);
        size_t host = colon ? (size_t) (colon - s) : n;
        size_t i = 0;

        if (colon) {
                if (colon + 1 == s + n)
                        return false;
                for (const char *p = colon + 1; p < s + n; p++)
                        if (*p < '0' || *p > '9')
                                return false;
        }
        if (host == 0)
                return false;
        while (i < host) {
                size_t start = i;
                while (i < host && s[i] != '.') {
                        if (!is_alnum(s[i]) && s[i] != '-')
                                return false;
                        i++;
                }
                if (i == start || s[start] == '-' || s[i - 1] == '-')
                        return false;
                if (i < host)
                        i++; /* the dot */
                if (i == host && s[host - 1] == '.')
                        return false;
        }
        return true;
}

static bool valid_tag(const char *s)
{
        size_t n = strlen(s);

        if (n == 0 || n > 128)
                return false;
        for (size_t i = 0; i < n; i++) {
                char c = s[i];
                bool word = is_alnum(c) || c == '_';
                if (!(word || (i > 0 && (c == '.' || c == '-'))))
                        return false;
        }
        return true;
}

static bool valid_digest(const char *s)
{
        const char *colon = strchr(s, ':');
        size_t enc;

        if (!colon || colon == s)
                return false;
        for (const char *p = s; p < colon; p++)
                if (!is_lower_alnum(*p) && *p != '+' && *p != '.' && *p != '_' && *p != '-')
                        return false;
        enc = strlen(colon + 1);
        if (enc < 32)
                return false;
        for (const char *p = colon + 1; *p; p++)
                if (!is_alnum(*p) && *p != '=' && *p != '_' && *p != '-')
                        return false;
        if (strncmp(s, "sha256:", 7) == 0) {
                if (enc != 64)
                        return false;
                for (const char *p = colon + 1; *p; p++)
                        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
                                return false;
        }
        return true;
}

static int bad_reference(struct error **reterr, const char *name, const char *detail)
{
        /* K8S: the kubelet's InvalidImageName message ends with this (the caller prefixes
         * `Failed to apply default image tag "X": `) */
        return error_set(reterr, EINVAL,
                         "couldn't parse image name \"%s\": invalid reference format%s", name,
                         detail ? detail : "");
}

int rt_image_name_parse(const char *name, struct rt_image_name *ret, struct error **reterr)
{
        struct rt_image_name n = { 0 };
        cleanup_free char *rest = NULL;
        char *at, *slash, *colon, *p;
        bool lower = true;
        struct strbuf ref;

        if (!name || !*name || strlen(name) > 1024)
                return bad_reference(reterr, name ? name : "", NULL);
        rest = xstrdup(name);
        at = strchr(rest, '@');
        if (at) {
                *at = '\0';
                if (!valid_digest(at + 1))
                        return bad_reference(reterr, name, NULL);
                n.digest = xstrdup(at + 1);
        }
        slash = strrchr(rest, '/');
        colon = strrchr(rest, ':');
        if (colon && (!slash || colon > slash)) {
                *colon = '\0';
                if (!valid_tag(colon + 1)) {
                        rt_image_name_release(&n);
                        return bad_reference(reterr, name, NULL);
                }
                n.tag = xstrdup(colon + 1);
        }
        /* the first component is a registry when it looks like a host: a dot, a port, or
         * "localhost" (and no capitals) */
        slash = strchr(rest, '/');
        if (slash) {
                size_t dl = (size_t) (slash - rest);
                bool upper = false;
                for (size_t i = 0; i < dl; i++)
                        upper |= rest[i] >= 'A' && rest[i] <= 'Z';
                if (memchr(rest, '.', dl) || memchr(rest, ':', dl) ||
                    (dl == 9 && memcmp(rest, "localhost", 9) == 0) || upper) {
                        if (!valid_domain(rest, dl)) {
                                rt_image_name_release(&n);
                                return bad_reference(reterr, name, NULL);
                        }
                        n.domain = xstrndup(rest, dl);
                        p = slash + 1;
                } else {
                        p = rest;
                }
        } else {
                p = rest;
        }
        if (!n.domain)
                n.domain = xstrdup("docker.io");
        if (streq(n.domain, "index.docker.io")) {
                free(n.domain);
                n.domain = xstrdup("docker.io");
        }
        if (streq(n.domain, "docker.io") && !strchr(p, '/'))
                n.path = xasprintf("library/%s", p);
        else
                n.path = xstrdup(p);
        for (const char *q = n.path; *q; q++)
                lower &= !(*q >= 'A' && *q <= 'Z');
        if (!lower) {
                cleanup_free char *detail =
                        xasprintf(": repository name (%s) must be lowercase", n.path);
                rt_image_name_release(&n);
                return bad_reference(reterr, name, detail);
        }
        if (strlen(n.domain) + 1 + strlen(n.path) > 255) {
                rt_image_name_release(&n);
                return bad_reference(reterr, name, NULL);
        }
        for (const char *q = n.path;;) {
                const char *e = strchr(q, '/');
                size_t len = e ? (size_t) (e - q) : strlen(q);
                if (!valid_path_component(q, len)) {
                        rt_image_name_release(&n);
                        return bad_reference(reterr, name, NULL);
                }
                if (!e)
                        break;
                q = e + 1;
        }
        if (!n.tag && !n.digest)
                n.tag = xstrdup("latest");
        strbuf_init(&ref);
        strbuf_addf(&ref, "%s/%s", n.domain, n.path);
        if (n.tag)
                strbuf_addf(&ref, ":%s", n.tag);
        if (n.digest)
                strbuf_addf(&ref, "@%s", n.digest);
        n.reference = strbuf_detach(&ref);
        *ret = n;
        return 0;
}

int runtime_image_parse(const char *name, char **ret_reference, struct error **reterr)
{
        struct rt_image_name n;
        int r = rt_image_name_parse(name, &n, reterr);

        if (r < 0)
                return r;
        *ret_reference = TAKE_PTR(n.reference);
        rt_image_name_release(&n);
        return 0;
}

char *rt_image_store_subdir(const struct rt_image_name *n)
{
        cleanup_free char *domain = xstrdup(n->domain);

        /* ':' cannot sit in an overlayfs lowerdir; '+' never appears in a domain, tag or path */
        for (char *p = domain; *p; p++)
                if (*p == ':')
                        *p = '+';
        if (n->digest) {
                cleanup_free char *d = xstrdup(n->digest);
                for (char *p = d; *p; p++)
                        if (*p == ':')
                                *p = '+';
                return xasprintf("%s/%s/%s", domain, n->path, d);
        }
        return xasprintf("%s/%s/%s", domain, n->path, n->tag);
}

static bool is_busybox(const struct rt_image_name *n)
{
        return streq(n->domain, "docker.io") && streq(n->path, "library/busybox");
}

/* ------------------------------------------------------------------ config.json */

static json_t *config_json(const char *reference, const struct runtime_image_config *c)
{
        json_t *o = json_object();
        json_t *ep = json_array(), *cmd = json_array(), *env = json_array();

        json_object_set_new(o, "reference", json_string(reference));
        for (size_t i = 0; c && c->entrypoint && c->entrypoint[i]; i++)
                json_array_append_new(ep, json_string(c->entrypoint[i]));
        for (size_t i = 0; c && c->cmd && c->cmd[i]; i++)
                json_array_append_new(cmd, json_string(c->cmd[i]));
        for (size_t i = 0; c && c->env && c->env[i]; i++)
                json_array_append_new(env, json_string(c->env[i]));
        json_object_set_new(o, "Entrypoint", ep);
        json_object_set_new(o, "Cmd", cmd);
        json_object_set_new(o, "Env", env);
        json_object_set_new(o, "WorkingDir",
                            json_string(c && c->working_dir ? c->working_dir : ""));
        return o;
}

static char **config_strv(const json_t *o, const char *key)
{
        const json_t *a = json_object_get(o, key), *v;
        size_t i, n = 0;
        char **out = xcalloc(1, sizeof(*out));

        json_array_foreach(a, i, v) {
                if (json_is_string(v))
                        rt_strv_push(&out, &n, xstrdup(json_string_value(v)));
        }
        return out;
}

/* An image of the content-addressed store: DIR/image.json names its config blob and layers
 * (image-store.c); the config's Entrypoint, Cmd, Env, WorkingDir and User are the image's. */
static int image_load_layered(const char *images, int dfd, struct runtime_image *img)
{
        cleanup_free char *cpath = NULL;
        cleanup_close int blobs = -1;
        json_t *rec = NULL, *cfg = NULL, *layers, *c;
        const char *config;
        size_t n, n_low = 0;
        char **low;
        int r;

        r = fs_read_json_at(dfd, "image.json", &rec);
        if (r < 0)
                return r;
        config = json_string_value(json_object_get(rec, "config"));
        layers = json_object_get(rec, "layers");
        if (!config || strncmp(config, "sha256:", 7) != 0 || strlen(config) != 71 ||
            strchr(config + 7, '/') || !json_is_array(layers) || json_array_size(layers) == 0) {
                json_decref(rec);
                return -EINVAL;
        }
        cpath = xasprintf("%s/blobs/sha256", images);
        blobs = open(cpath, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (blobs < 0 || (r = fs_read_json_at(blobs, config + 7, &cfg)) < 0) {
                r = blobs < 0 ? -errno : r;
                json_decref(rec);
                return r == -ENOENT ? -ENOENT : r;
        }
        n = json_array_size(layers);
        low = xcalloc(n + 1, sizeof(*low));
        for (size_t i = n; i-- > 0;) {
                const char *d = json_string_value(json_array_get(layers, i));
                char *path;
                if (!d || strncmp(d, "sha256:", 7) != 0 || strlen(d) != 71 || strchr(d + 7, '/')) {
                        rt_strv_free(low);
                        json_decref(rec);
                        json_decref(cfg);
                        return -EINVAL;
                }
                path = xasprintf("%s/layers/%s/fs", images, d + 7);
                if (access(path, F_OK) < 0) {
                        free(path);
                        rt_strv_free(low);
                        json_decref(rec);
                        json_decref(cfg);
                        return -ENOENT;
                }
                rt_strv_push(&low, &n_low, path);
        }
        c = json_object_get(cfg, "config");
        *img = (struct runtime_image){
                .reference = xstrdup(json_string_value(json_object_get(rec, "reference")) ?: ""),
                .rootfs = xstrdup(low[0]),
                .lowerdirs = low,
                .entrypoint = config_strv(c, "Entrypoint"),
                .cmd = config_strv(c, "Cmd"),
                .env = config_strv(c, "Env"),
                .working_dir = xstrdup(json_string_value(json_object_get(c, "WorkingDir")) ?: ""),
                .user = xstrdup(json_string_value(json_object_get(c, "User")) ?: ""),
                .id = xstrdup(config),
        };
        json_decref(rec);
        json_decref(cfg);
        return 0;
}

/* Fills img from DIR/{config.json,rootfs} or DIR/image.json (images: DATA/images): -ENOENT when the
 * image is not (completely) there. */
static int image_load(const char *images, const char *dir, bool builtin, struct runtime_image *img)
{
        cleanup_close int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        json_t *cfg = NULL;
        struct stat st;
        int r;

        if (dfd < 0)
                return -errno;
        if (faccessat(dfd, "image.json", F_OK, AT_SYMLINK_NOFOLLOW) == 0)
                return image_load_layered(images, dfd, img);
        if (fstatat(dfd, "rootfs", &st, AT_SYMLINK_NOFOLLOW) < 0)
                return -errno;
        if (!S_ISDIR(st.st_mode))
                return -ENOENT;
        r = fs_read_json_at(dfd, "config.json", &cfg);
        if (r < 0)
                return r;
        *img = (struct runtime_image){
                .reference = xstrdup(json_string_value(json_object_get(cfg, "reference")) ?: ""),
                .rootfs = xasprintf("%s/rootfs", dir),
                .entrypoint = config_strv(cfg, "Entrypoint"),
                .cmd = config_strv(cfg, "Cmd"),
                .env = config_strv(cfg, "Env"),
                .working_dir = xstrdup(json_string_value(json_object_get(cfg, "WorkingDir")) ?: ""),
                .user = xstrdup(""),
                .builtin = builtin,
        };
        img->lowerdirs = xcalloc(2, sizeof(char *));
        img->lowerdirs[0] = xstrdup(img->rootfs);
        json_decref(cfg);
        return 0;
}

void runtime_image_release(struct runtime_image *img)
{
        free(img->reference);
        free(img->rootfs);
        rt_strv_free(img->entrypoint);
        rt_strv_free(img->cmd);
        rt_strv_free(img->env);
        free(img->working_dir);
        rt_strv_free(img->lowerdirs);
        free(img->user);
        free(img->id);
        *img = (struct runtime_image){ 0 };
}

/* ------------------------------------------------------------------ the built-in busybox */

int rt_elf_is_static(int fd, struct error **reterr)
{
        unsigned char ident[EI_NIDENT];
        uint64_t phoff;
        uint16_t phnum, phentsize;

        if (pread(fd, ident, sizeof(ident), 0) != (ssize_t) sizeof(ident) ||
            memcmp(ident, ELFMAG, SELFMAG) != 0)
                return error_set(reterr, ENOEXEC, "not an ELF file");
        if (ident[EI_CLASS] == ELFCLASS64) {
                Elf64_Ehdr eh;
                if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t) sizeof(eh))
                        return error_set(reterr, ENOEXEC, "short ELF header");
                phoff = eh.e_phoff;
                phnum = eh.e_phnum;
                phentsize = eh.e_phentsize;
                if (phentsize < sizeof(Elf64_Phdr))
                        return error_set(reterr, ENOEXEC, "bad ELF program headers");
                for (uint16_t i = 0; i < phnum; i++) {
                        Elf64_Phdr ph;
                        if (pread(fd, &ph, sizeof(ph),
                                  (off_t) (phoff + (uint64_t) i * phentsize)) !=
                            (ssize_t) sizeof(ph))
                                return error_set(reterr, ENOEXEC, "short ELF program header");
                        if (ph.p_type == PT_INTERP)
                                return error_set(reterr, ENOEXEC, "dynamically linked");
                }
                return 0;
        }
        if (ident[EI_CLASS] == ELFCLASS32) {
                Elf32_Ehdr eh;
                if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t) sizeof(eh))
                        return error_set(reterr, ENOEXEC, "short ELF header");
                phoff = eh.e_phoff;
                phnum = eh.e_phnum;
                phentsize = eh.e_phentsize;
                if (phentsize < sizeof(Elf32_Phdr))
                        return error_set(reterr, ENOEXEC, "bad ELF program headers");
                for (uint16_t i = 0; i < phnum; i++) {
                        Elf32_Phdr ph;
                        if (pread(fd, &ph, sizeof(ph),
                                  (off_t) (phoff + (uint64_t) i * phentsize)) !=
                            (ssize_t) sizeof(ph))
                                return error_set(reterr, ENOEXEC, "short ELF program header");
                        if (ph.p_type == PT_INTERP)
                                return error_set(reterr, ENOEXEC, "dynamically linked");
                }
                return 0;
        }
        return error_set(reterr, ENOEXEC, "unknown ELF class");
}

static int copy_fd(int from, int to)
{
        for (;;) {
                ssize_t n = sendfile(to, from, NULL, 1 << 20);
                if (n == 0)
                        return 0;
                if (n < 0) {
                        char buf[65536];
                        ssize_t got;
                        if (errno != EINVAL && errno != ENOSYS)
                                return -errno;
                        while ((got = read(from, buf, sizeof(buf))) > 0)
                                if (write(to, buf, (size_t) got) != got)
                                        return -EIO;
                        return got < 0 ? -errno : 0;
                }
        }
}

/* The applet names `busybox --list` prints (one a line), as a NUL-separated list. */
static int busybox_applets(const char *busybox, char **ret, size_t *ret_len, struct error **reterr)
{
        static const struct spawn_options options = { .output_max = 256 * 1024 };
        char *argv[] = { (char *) busybox, (char *) "--list", NULL };
        struct spawn_result o;
        int r;

        r = spawn_run(busybox, argv, environ, &options, &o, reterr);
        strbuf_release(&o.err);
        if (r < 0) {
                strbuf_release(&o.out);
                return r;
        }
        if (o.status != 0 || o.out.len == 0 || o.out.len > options.output_max) {
                strbuf_release(&o.out);
                return error_set(reterr, EIO, "run \"%s --list\": it failed", busybox);
        }
        *ret_len = o.out.len;
        *ret = strbuf_detach(&o.out);
        return 0;
}

static bool valid_applet(const char *s, size_t n)
{
        if (n == 0 || n > 64 || (n <= 2 && s[0] == '.' && (n == 1 || s[1] == '.')))
                return false;
        for (size_t i = 0; i < n; i++)
                if (s[i] == '/' || (unsigned char) s[i] <= ' ')
                        return false;
        return true;
}

static int put_file(int dfd, const char *name, const char *text, mode_t mode)
{
        cleanup_close int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
        size_t len = strlen(text);

        if (fd < 0)
                return -errno;
        if (write(fd, text, len) != (ssize_t) len)
                return -EIO;
        return 0;
}

static int assemble_busybox(const char *dir, struct error **reterr)
{
        static const char *const dirs[] = { "rootfs",          "rootfs/bin",  "rootfs/etc",
                                            "rootfs/tmp",      "rootfs/proc", "rootfs/sys",
                                            "rootfs/dev",      "rootfs/root", "rootfs/home",
                                            "rootfs/var",      "rootfs/usr",  "rootfs/usr/bin",
                                            "rootfs/usr/sbin", "rootfs/sbin" };
        static const char *const busybox_cmd[] = { "sh", NULL };
        static const char *const busybox_env[] = { "PATH=" RT_DEFAULT_PATH, NULL };
        const struct runtime_image_config cfg = { .cmd = busybox_cmd, .env = busybox_env };
        const char *busybox = NULL;
        cleanup_close int src = -1, dst = -1, dfd = -1, bin = -1;
        cleanup_free char *applets = NULL;
        json_t *config;
        size_t len = 0;
        int r;

        for (size_t i = 0; i < ARRAY_SIZE(host_busybox) && !busybox; i++)
                if (access(host_busybox[i], X_OK) == 0)
                        busybox = host_busybox[i];
        if (!busybox)
                return error_set(
                        reterr, ENOENT,
                        "build the busybox image: no busybox on this host (install the Debian package busybox-static)");
        src = open(busybox, O_RDONLY | O_CLOEXEC);
        if (src < 0)
                return error_set(reterr, errno, "build the busybox image: open \"%s\": %s", busybox,
                                 strerror(errno));
        r = rt_elf_is_static(src, reterr);
        if (r < 0)
                return error_wrap(
                        reterr,
                        "build the busybox image: \"%s\" cannot run alone in a container (install the Debian package busybox-static)",
                        busybox);
        dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return error_set(reterr, errno, "build the busybox image: %s", strerror(errno));
        for (size_t i = 0; i < ARRAY_SIZE(dirs); i++)
                if (mkdirat(dfd, dirs[i], 0755) < 0 && errno != EEXIST)
                        return error_set(reterr, errno, "build the busybox image: mkdir \"%s\": %s",
                                         dirs[i], strerror(errno));
        /* K8S (the busybox image): /tmp is world-writable and sticky, /root private */
        if (fchmodat(dfd, "rootfs/tmp", 01777, 0) < 0 || fchmodat(dfd, "rootfs/root", 0700, 0) < 0)
                return error_set(reterr, errno, "build the busybox image: chmod: %s",
                                 strerror(errno));
        dst = openat(dfd, "rootfs/bin/busybox", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
        if (dst < 0 || (r = copy_fd(src, dst)) < 0)
                return error_set(reterr, dst < 0 ? errno : -r,
                                 "build the busybox image: copy \"%s\": %s", busybox,
                                 strerror(dst < 0 ? errno : -r));
        r = busybox_applets(busybox, &applets, &len, reterr);
        if (r < 0)
                return error_wrap(reterr, "build the busybox image");
        bin = openat(dfd, "rootfs/bin", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (bin < 0)
                return error_set(reterr, errno, "build the busybox image: %s", strerror(errno));
        for (char *line = applets, *end = applets + len; line < end;) {
                char *nl = memchr(line, '\n', (size_t) (end - line));
                size_t n = nl ? (size_t) (nl - line) : (size_t) (end - line);

                /* K8S (the busybox image, `busybox --install`): each applet a hard link of
                 * /bin/busybox, which also costs the filesystem no inode per applet (a symlink
                 * takes one: ~400 of them made the first pod's start wait on ext4's inode
                 * allocator) */
                if (valid_applet(line, n) && !(n == 7 && memcmp(line, "busybox", 7) == 0)) {
                        line[n] = '\0';
                        if (linkat(bin, "busybox", bin, line, 0) < 0 && errno != EEXIST)
                                return error_set(reterr, errno,
                                                 "build the busybox image: link \"%s\": %s", line,
                                                 strerror(errno));
                }
                line += n + 1;
        }
        if ((r = put_file(dfd, "rootfs/etc/passwd",
                          "root:x:0:0:root:/root:/bin/sh\n"
                          "daemon:x:1:1:daemon:/usr/sbin:/bin/false\n"
                          "nobody:x:65534:65534:nobody:/home:/bin/false\n",
                          0644)) < 0 ||
            (r = put_file(dfd, "rootfs/etc/group",
                          "root:x:0:\ndaemon:x:1:\ntty:x:5:\nusers:x:100:\nnogroup:x:65534:\n",
                          0644)) < 0 ||
            (r = put_file(dfd, "rootfs/etc/hosts",
                          "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n",
                          0644)) < 0)
                return error_set(reterr, -r, "build the busybox image: write /etc: %s",
                                 strerror(-r));
        config = config_json("docker.io/library/busybox", &cfg);
        r = fs_write_json_atomic(dfd, "config.json", config);
        json_decref(config);
        if (r < 0)
                return error_set(reterr, -r, "build the busybox image: write config.json: %s",
                                 strerror(-r));
        return 0;
}

/* Makes DATA/images/<sub> from a temporary dir filled by fill(): all or nothing, and the first
 * of several concurrent builders wins. */
static int build_once(const char *images, const char *sub,
                      int (*fill)(const char *dir, struct error **reterr), struct error **reterr)
{
        cleanup_free char *final = xasprintf("%s/%s", images, sub);
        cleanup_free char *tmp = xasprintf("%s/.tmp-build-XXXXXX", images);
        cleanup_free char *parent = NULL;
        int r;

        if (!mkdtemp(tmp))
                return error_set(reterr, errno, "create \"%s\": %s", tmp, strerror(errno));
        (void) chmod(tmp, 0755);
        r = fill(tmp, reterr);
        if (r < 0) {
                (void) fs_remove_tree(tmp);
                return r;
        }
        parent = xstrdup(final);
        *strrchr(parent, '/') = '\0';
        if ((r = fs_mkdir_p(parent, 0755)) < 0) {
                (void) fs_remove_tree(tmp);
                return error_set(reterr, -r, "create \"%s\": %s", parent, strerror(-r));
        }
        if (rename(tmp, final) < 0) {
                int e = errno;
                (void) fs_remove_tree(tmp);
                if (e == EEXIST || e == ENOTEMPTY)
                        return 0; /* another builder was first */
                return error_set(reterr, e, "rename \"%s\": %s", final, strerror(e));
        }
        return 0;
}

int runtime_image_ensure(const char *data_dir, const char *name, struct runtime_image *ret,
                         struct error **reterr)
{
        struct rt_image_name n;
        cleanup_free char *images = xasprintf("%s/images", data_dir);
        cleanup_free char *sub = NULL, *dir = NULL, *builtin = NULL;
        int r;

        r = rt_image_name_parse(name, &n, reterr);
        if (r < 0)
                return r;
        sub = rt_image_store_subdir(&n);
        dir = xasprintf("%s/%s", images, sub);
        r = image_load(images, dir, false, ret);
        if (r == 0) {
                rt_image_name_release(&n);
                return 0;
        }
        if ((r != -ENOENT && r != -ENOTDIR) || !is_busybox(&n)) {
                rt_image_name_release(&n);
                if (r == -ENOENT || r == -ENOTDIR)
                        return error_set(
                                reterr, ENOENT,
                                "image \"%s\" not found in the local image store; import it with: flexlet image import %s FILE.tar",
                                name, name);
                return error_set(reterr, -r, "image \"%s\": read \"%s\": %s", name, dir,
                                 strerror(-r));
        }
        /* K8S: busybox, any tag: the one assembled from the host */
        builtin = xasprintf("%s/builtin/busybox", images);
        r = image_load(images, builtin, true, ret);
        if (r == -ENOENT) {
                if ((r = fs_mkdir_p(images, 0755)) < 0) {
                        rt_image_name_release(&n);
                        return error_set(reterr, -r, "create \"%s\": %s", images, strerror(-r));
                }
                r = build_once(images, "builtin/busybox", assemble_busybox, reterr);
                if (r < 0) {
                        rt_image_name_release(&n);
                        return r;
                }
                r = image_load(images, builtin, true, ret);
        }
        if (r < 0) {
                rt_image_name_release(&n);
                return error_set(reterr, -r, "image \"%s\": read \"%s\": %s", name, builtin,
                                 strerror(-r));
        }
        free(ret->reference);
        ret->reference = TAKE_PTR(n.reference);
        rt_image_name_release(&n);
        return 0;
}

/* ------------------------------------------------------------------ import */

static bool config_empty(const struct runtime_image_config *c)
{
        return !c || ((!c->entrypoint || !c->entrypoint[0]) && (!c->cmd || !c->cmd[0]) &&
                      (!c->env || !c->env[0]) && (!c->working_dir || !*c->working_dir));
}

int rt_image_publish(const char *images, const char *tmp, const char *final, struct error **reterr)
{
        cleanup_free char *parent = xstrdup(final), *old = NULL;
        int r;

        *strrchr(parent, '/') = '\0';
        if ((r = fs_mkdir_p(parent, 0755)) < 0)
                return error_set(reterr, -r, "create \"%s\": %s", parent, strerror(-r));
        /* replace an earlier one: move it aside first, so the new one appears in one step */
        old = xasprintf("%s/.tmp-old-XXXXXX", images);
        if (!mkdtemp(old))
                return error_set(reterr, errno, "create \"%s\": %s", old, strerror(errno));
        if (rename(final, old) < 0 && errno != ENOENT) {
                r = error_set(reterr, errno, "replace \"%s\": %s", final, strerror(errno));
                (void) rmdir(old);
                return r;
        }
        if (rename(tmp, final) < 0) {
                r = error_set(reterr, errno, "rename into \"%s\": %s", final, strerror(errno));
                (void) rename(old, final);
                return r;
        }
        (void) fs_remove_tree(old);
        return 0;
}

/* The tarball on tar_fd: a docker save or OCI archive goes into the content-addressed store;
 * anything else is a root filesystem, imported as image `name`. */
static int import_fd(const char *data_dir, const char *name, int tar_fd,
                     const struct runtime_image_config *cfg, json_t **ret_refs,
                     struct error **reterr)
{
        struct rt_image_name n = { 0 };
        cleanup_free char *images = xasprintf("%s/images", data_dir);
        cleanup_free char *sub = NULL, *final = NULL, *tmp = NULL;
        cleanup_close int dfd = -1, rootfd = -1;
        struct rt_tar_stats st;
        json_t *config, *refs = NULL;
        int r;

        if (name && (r = rt_image_name_parse(name, &n, reterr)) < 0)
                return r;
        if ((r = fs_mkdir_p(images, 0755)) < 0) {
                rt_image_name_release(&n);
                return error_set(reterr, -r, "create \"%s\": %s", images, strerror(-r));
        }
        tmp = xasprintf("%s/.tmp-import-XXXXXX", images);
        if (!mkdtemp(tmp)) {
                rt_image_name_release(&n);
                return error_set(reterr, errno, "create \"%s\": %s", tmp, strerror(errno));
        }
        (void) chmod(tmp, 0755);
        dfd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0 || mkdirat(dfd, "rootfs", 0755) < 0 ||
            (rootfd = openat(dfd, "rootfs", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
                r = error_set(reterr, errno, "create \"%s/rootfs\": %s", tmp, strerror(errno));
                goto fail;
        }
        r = rt_tar_extract(tar_fd, rootfd, NULL, &st, reterr);
        if (r < 0) {
                if (name)
                        error_wrap(reterr, "import \"%s\"", name);
                else
                        error_wrap(reterr, "import");
                goto fail;
        }
        r = rt_image_import_tree(data_dir, rootfd, name, NULL, &refs, reterr);
        if (r == 0) {
                if (!config_empty(cfg)) {
                        json_decref(refs);
                        r = error_set(
                                reterr, EINVAL,
                                "import: --entrypoint, --cmd, --env and --workdir are for root filesystem tarballs; this archive's image config has them");
                        goto fail;
                }
                (void) fs_remove_tree(tmp);
                rt_image_name_release(&n);
                *ret_refs = refs;
                return 0;
        }
        if (r != -ENOMEDIUM) {
                if (name)
                        error_wrap(reterr, "import \"%s\"", name);
                else
                        error_wrap(reterr, "import");
                goto fail;
        }
        if (!name) {
                r = error_set(
                        reterr, EINVAL,
                        "import: the tarball is a root filesystem (no manifest.json nor oci-layout); give it a name: flexlet image import FILE NAME");
                goto fail;
        }
        if (st.files + st.dirs + st.symlinks + st.hardlinks == 0) {
                r = error_set(reterr, EINVAL, "import \"%s\": the tarball holds no files", name);
                goto fail;
        }
        sub = rt_image_store_subdir(&n);
        final = xasprintf("%s/%s", images, sub);
        config = config_json(n.reference, cfg);
        r = fs_write_json_atomic(dfd, "config.json", config);
        json_decref(config);
        if (r < 0) {
                r = error_set(reterr, -r, "import \"%s\": write config.json: %s", name,
                              strerror(-r));
                goto fail;
        }
        if ((r = rt_image_publish(images, tmp, final, reterr)) < 0)
                goto fail;
        *ret_refs = json_pack("[s]", n.reference);
        rt_image_name_release(&n);
        return 0;
fail:
        rt_image_name_release(&n);
        (void) fs_remove_tree(tmp);
        return r;
}

int runtime_image_import(const char *data_dir, const char *name, int tar_fd,
                         const struct runtime_image_config *cfg, struct error **reterr)
{
        json_t *refs = NULL;
        int r = import_fd(data_dir, name, tar_fd, cfg, &refs, reterr);

        json_decref(refs);
        return r;
}

int runtime_image_import_path(const char *data_dir, const char *path, const char *name,
                              const struct runtime_image_config *cfg, json_t **ret_refs,
                              struct error **reterr)
{
        cleanup_close int fd = -1;
        struct stat st;
        int r;

        fd = streq(path, "-") ? fcntl(0, F_DUPFD_CLOEXEC, 3) : open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0 || fstat(fd, &st) < 0)
                return error_set(reterr, errno, "open \"%s\": %s", path, strerror(errno));
        if (!S_ISDIR(st.st_mode))
                return import_fd(data_dir, name, fd, cfg, ret_refs, reterr);
        if (!config_empty(cfg))
                return error_set(
                        reterr, EINVAL,
                        "import: --entrypoint, --cmd, --env and --workdir are for root filesystem tarballs");
        r = rt_image_import_tree(data_dir, fd, name, NULL, ret_refs, reterr);
        if (r == -ENOMEDIUM)
                return error_set(reterr, EINVAL,
                                 "import \"%s\": not an OCI image layout (no oci-layout file)",
                                 path);
        return r < 0 ? error_wrap(reterr, "import \"%s\"", path) : 0;
}

/* ------------------------------------------------------------------ list */

static void list_walk(const char *images, const char *rel, unsigned depth, json_t *out)
{
        cleanup_free char *path = *rel ? xasprintf("%s/%s", images, rel) : xstrdup(images);
        DIR *d;
        struct dirent *de;
        struct runtime_image img;

        if (depth > 16 || (depth == 1 && (streq(rel, "blobs") || streq(rel, "layers"))))
                return;
        if (depth > 0 && image_load(images, path, streq(rel, "builtin/busybox"), &img) == 0) {
                json_t *o = json_object();
                json_object_set_new(
                        o, "reference",
                        json_string(img.builtin ? "docker.io/library/busybox:*" : img.reference));
                json_object_set_new(o, "builtin", json_boolean(img.builtin));
                json_object_set_new(o, "rootfs", json_string(img.rootfs));
                json_object_set_new(o, "id", img.id ? json_string(img.id) : json_null());
                json_object_set_new(o, "layers",
                                    json_integer((json_int_t) rt_strv_length(
                                            (const char *const *) img.lowerdirs)));
                json_array_append_new(out, o);
                runtime_image_release(&img);
                return;
        }
        d = opendir(path);
        if (!d)
                return;
        while ((de = readdir(d))) {
                cleanup_free char *sub = NULL;
                struct stat st;

                if (de->d_name[0] == '.' ||
                    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
                    !S_ISDIR(st.st_mode))
                        continue;
                sub = *rel ? xasprintf("%s/%s", rel, de->d_name) : xstrdup(de->d_name);
                list_walk(images, sub, depth + 1, out);
        }
        closedir(d);
}

int runtime_image_list(const char *data_dir, json_t **ret, struct error **reterr)
{
        cleanup_free char *images = xasprintf("%s/images", data_dir);
        json_t *out = json_array();

        list_walk(images, "", 0, out);
        *ret = out;
        return 0;
}

/* ------------------------------------------------------------------ remove */

/* Every image.json below DATA/images (by path, broken ones too) into recs. */
static void records_walk(const char *images, const char *rel, unsigned depth, json_t *recs)
{
        cleanup_free char *path = *rel ? xasprintf("%s/%s", images, rel) : xstrdup(images);
        cleanup_close int dfd = -1;
        json_t *rec = NULL;
        DIR *d;
        struct dirent *de;

        if (depth > 16 || (depth == 1 && (streq(rel, "blobs") || streq(rel, "layers"))))
                return;
        dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (dfd < 0)
                return;
        if (fs_read_json_at(dfd, "image.json", &rec) == 0) {
                json_array_append_new(recs, rec);
                return;
        }
        if (faccessat(dfd, "rootfs", F_OK, AT_SYMLINK_NOFOLLOW) == 0)
                return;
        d = fdopendir(TAKE_FD(dfd));
        if (!d)
                return;
        while ((de = readdir(d))) {
                cleanup_free char *sub = NULL;
                if (de->d_name[0] == '.' || de->d_type != DT_DIR)
                        continue;
                sub = *rel ? xasprintf("%s/%s", rel, de->d_name) : xstrdup(de->d_name);
                records_walk(images, sub, depth + 1, recs);
        }
        closedir(d);
}

/* What the containers on this node were started on (DATA/pods/<uid>/containers/<name>/<run>/
 * spec.json): their layer dirs into layers and their image references into refs (either may
 * be NULL), each a JSON object used as a set. Their layers are kept even when no image names
 * them any more. */
static void container_images(const char *data_dir, json_t *layers, json_t *refs)
{
        cleanup_free char *pattern =
                xasprintf("%s/pods/*/containers/*/*/%s", data_dir, RT_SPEC_FILE);
        glob_t g;

        if (glob(pattern, 0, NULL, &g) != 0)
                return;
        for (size_t k = 0; k < g.gl_pathc; k++) {
                json_t *spec = NULL, *image, *v;
                const char *ref;
                size_t i;

                if (fs_read_json_at(AT_FDCWD, g.gl_pathv[k], &spec) < 0)
                        continue;
                image = json_object_get(spec, "image");
                json_array_foreach(json_object_get(image, "lowerdirs"), i, v) {
                        if (layers && json_is_string(v))
                                json_object_set_new(layers, json_string_value(v), json_true());
                }
                ref = json_string_value(json_object_get(image, "reference"));
                if (refs && ref)
                        json_object_set_new(refs, ref, json_true());
                json_decref(spec);
        }
        globfree(&g);
}

json_t *runtime_images_in_use(const char *data_dir)
{
        json_t *refs = json_object();

        container_images(data_dir, NULL, refs);
        return refs;
}

/* Removes the layers and blobs no image names and no container stands on. */
static int prune(const char *data_dir, const char *images, struct runtime_image_prune *ret,
                 struct error **reterr)
{
        json_t *recs = json_array(), *keep = json_object(), *used = json_object(), *rec;
        static const char *const kinds[] = { "layers", "blobs/sha256" };
        size_t i;

        records_walk(images, "", 0, recs);
        container_images(data_dir, used, NULL);
        json_array_foreach(recs, i, rec) {
                const json_t *layers = json_object_get(rec, "layers"), *v;
                size_t j;
                const char *c = json_string_value(json_object_get(rec, "config"));
                const char *m = json_string_value(json_object_get(rec, "manifest"));
                if (c && strlen(c) > 7)
                        json_object_set_new(keep, c + 7, json_true());
                if (m && strlen(m) > 7)
                        json_object_set_new(keep, m + 7, json_true());
                json_array_foreach(layers, j, v) {
                        const char *d = json_string_value(v);
                        if (d && strlen(d) > 7)
                                json_object_set_new(keep, d + 7, json_true());
                }
        }
        for (size_t k = 0; k < ARRAY_SIZE(kinds); k++) {
                cleanup_free char *dir = xasprintf("%s/%s", images, kinds[k]);
                DIR *d = opendir(dir);
                struct dirent *de;

                while (d && (de = readdir(d))) {
                        cleanup_free char *p = NULL, *fs = NULL;
                        if (de->d_name[0] == '.' || json_object_get(keep, de->d_name))
                                continue;
                        p = xasprintf("%s/%s", dir, de->d_name);
                        fs = xasprintf("%s/fs", p);
                        if (k == 0 && json_object_get(used, fs))
                                continue;
                        if (fs_remove_tree(p) == 0) {
                                if (k == 0)
                                        ret->layers++;
                                else
                                        ret->blobs++;
                        }
                }
                if (d)
                        closedir(d);
        }
        json_decref(recs);
        json_decref(keep);
        json_decref(used);
        (void) reterr;
        return 0;
}

int runtime_image_remove(const char *data_dir, const char *name,
                         struct runtime_image_prune *ret_pruned, struct error **reterr)
{
        struct rt_image_name n;
        struct runtime_image_prune pr = { 0 };
        cleanup_free char *images = xasprintf("%s/images", data_dir);
        cleanup_free char *sub = NULL, *dir = NULL, *old = NULL;
        int r;

        r = rt_image_name_parse(name, &n, reterr);
        if (r < 0)
                return r;
        sub = rt_image_store_subdir(&n);
        dir = xasprintf("%s/%s", images, sub);
        if (access(dir, F_OK) < 0) {
                bool bb = is_busybox(&n);
                rt_image_name_release(&n);
                if (bb)
                        return error_set(
                                reterr, EPERM,
                                "image \"%s\" is built in (from the host's busybox); it cannot be removed",
                                name);
                return error_set(reterr, ENOENT, "image \"%s\" not found in the local image store",
                                 name);
        }
        rt_image_name_release(&n);
        /* out of sight in one step, then deleted */
        old = xasprintf("%s/.tmp-rm-XXXXXX", images);
        if (!mkdtemp(old))
                return error_set(reterr, errno, "create \"%s\": %s", old, strerror(errno));
        if (rename(dir, old) < 0 && errno != ENOENT) {
                r = errno;
                (void) rmdir(old);
                return error_set(reterr, r, "remove \"%s\": %s", dir, strerror(r));
        }
        (void) fs_remove_tree(old);
        r = prune(data_dir, images, &pr, reterr);
        if (r < 0)
                return r;
        if (ret_pruned)
                *ret_pruned = pr;
        return 0;
}
