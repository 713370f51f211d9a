/* image-store.c: the content-addressed part of the image store: `docker save` archives and OCI
 * image layouts imported into DATA/images/{blobs,layers}, each layer unpacked once (keyed by
 * its diffID, OCI whiteouts made overlayfs ones) and shared by every image that has it, image
 * names recorded as image.json beside the older root filesystem images (image.c), and their
 * removal. Everything read from an archive is hostile: its files are opened inside its own root,
 * every blob is checked against its digest and every layer against its diffID. No registry. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gnutls/crypto.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "base/json.h"
#include "node/runtime/runtime-internal.h"
#include "node/runtime/runtime.h"

/* caps on what an archive may make us hold in memory */
#define META_MAX   (4 * 1024 * 1024) /* a manifest, index or config */
#define LAYERS_MAX 128               /* overlayfs stacks up to 500; mount options hold ~40 */

/* ------------------------------------------------------------------ digests */

static void hex(const unsigned char *d, size_t n, char *out)
{
        for (size_t i = 0; i < n; i++)
                (void) snprintf(out + 2 * i, 3, "%02x", d[i]);
}

int rt_sha256_fd(int fd, char ret[static 65])
{
        gnutls_hash_hd_t h;
        unsigned char d[32], buf[65536];
        ssize_t n;

        if (lseek(fd, 0, SEEK_SET) < 0)
                return -errno;
        if (gnutls_hash_init(&h, GNUTLS_DIG_SHA256) < 0)
                return -ENOMEM;
        while ((n = read(fd, buf, sizeof(buf))) != 0) {
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        int e = errno;
                        gnutls_hash_deinit(h, NULL);
                        return -e;
                }
                (void) gnutls_hash(h, buf, (size_t) n);
        }
        gnutls_hash_deinit(h, d);
        hex(d, sizeof(d), ret);
        return lseek(fd, 0, SEEK_SET) < 0 ? -errno : 0;
}

static void sha256_mem(const void *p, size_t n, char ret[static 65])
{
        unsigned char d[32];

        (void) gnutls_hash_fast(GNUTLS_DIG_SHA256, p, n, d);
        hex(d, sizeof(d), ret);
}

/* "sha256:<64 lower hex>" → the hex part, else NULL */
static const char *sha256_hex(const char *digest)
{
        if (!digest || strncmp(digest, "sha256:", 7) != 0 || strlen(digest) != 71)
                return NULL;
        for (const char *p = digest + 7; *p; p++)
                if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
                        return NULL;
        return digest + 7;
}

/* ------------------------------------------------------------------ reading the archive */

/* Reads the regular file at path inside rootfd (at most META_MAX bytes). */
static int read_in_root(int rootfd, const char *path, char **ret, size_t *ret_len,
                        struct error **reterr)
{
        cleanup_close int fd = rt_open_in_root(rootfd, path, O_RDONLY | O_NOFOLLOW);
        struct stat st;
        char *buf;
        size_t got = 0;

        if (fd < 0)
                return error_set(reterr, -fd, "\"%s\": %s", path, strerror(-fd));
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
                return error_set(reterr, EINVAL, "\"%s\": not a regular file", path);
        if (st.st_size > META_MAX)
                return error_set(reterr, EFBIG, "\"%s\": larger than %d bytes", path, META_MAX);
        buf = xmalloc((size_t) st.st_size + 1);
        while (got < (size_t) st.st_size) {
                ssize_t n = read(fd, buf + got, (size_t) st.st_size - got);
                if (n <= 0) {
                        free(buf);
                        return error_set(reterr, n < 0 ? errno : EIO, "\"%s\": read: %s", path,
                                         strerror(n < 0 ? errno : EIO));
                }
                got += (size_t) n;
        }
        buf[got] = '\0';
        *ret = buf;
        *ret_len = got;
        return 0;
}

/* Reads a JSON object at path; when digest is given, the bytes must have it. */
static int json_in_root(int rootfd, const char *path, const char *digest, json_t **ret,
                        struct error **reterr)
{
        cleanup_free char *buf = NULL;
        json_error_t jerr;
        size_t len;
        json_t *j;
        int r = read_in_root(rootfd, path, &buf, &len, reterr);

        if (r < 0)
                return r;
        if (digest) {
                char got[65];
                sha256_mem(buf, len, got);
                if (!sha256_hex(digest) || !streq(got, sha256_hex(digest)))
                        return error_set(reterr, EBADMSG, "\"%s\": digest sha256:%s, not %s", path,
                                         got, digest);
        }
        j = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
        if (!j || !json_is_object(j)) {
                json_decref(j);
                return error_set(reterr, EINVAL, "\"%s\": not a JSON object", path);
        }
        *ret = j;
        return 0;
}

static char *blob_path(const char *digest)
{
        return xasprintf("blobs/sha256/%s", sha256_hex(digest));
}

/* ------------------------------------------------------------------ the store */

/* Puts the bytes of a verified blob into DATA/images/blobs/sha256/<hex> (once). */
static int store_blob(const char *images, const char *text, size_t len, const char *digest_hex,
                      struct error **reterr)
{
        cleanup_free char *dir = xasprintf("%s/blobs/sha256", images);
        cleanup_close int dfd = -1, fd = -1;
        cleanup_free char *tmp = xasprintf(".tmp-%s", digest_hex);
        int r;

        if ((r = fs_mkdir_p(dir, 0755)) < 0)
                return error_set(reterr, -r, "create \"%s\": %s", dir, strerror(-r));
        dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return error_set(reterr, errno, "open \"%s\": %s", dir, strerror(errno));
        if (faccessat(dfd, digest_hex, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
                return 0;
        (void) unlinkat(dfd, tmp, 0);
        fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0 || write(fd, text, len) != (ssize_t) len || fsync(fd) < 0 ||
            renameat(dfd, tmp, dfd, digest_hex) < 0)
                return error_set(reterr, errno ? errno : EIO, "write blob %s: %s", digest_hex,
                                 strerror(errno ? errno : EIO));
        return 0;
}

/* Unpacks the layer at path (inside the archive's rootfd) into DATA/images/layers/<diffID>/fs
 * unless it is there already. blob_digest (may be NULL: docker save's older layer paths have
 * none) is checked against the file's bytes, diff_id against its uncompressed bytes. */
static int layer_unpack(const char *images, int rootfd, const char *path, const char *blob_digest,
                        const char *diff_id, struct rt_image_import_stats *stats,
                        struct error **reterr)
{
        cleanup_free char *layers = xasprintf("%s/layers", images);
        cleanup_free char *final = NULL, *tmp = NULL, *fs = NULL;
        cleanup_close int fd = -1, fsfd = -1;
        struct rt_tar_options opts = { .whiteouts = true };
        struct rt_tar_stats st;
        char got[65];
        int r;

        if (!sha256_hex(diff_id))
                return error_set(reterr, EINVAL, "layer \"%s\": diffID \"%s\" is not sha256", path,
                                 diff_id ? diff_id : "");
        final = xasprintf("%s/%s", layers, sha256_hex(diff_id));
        if (access(final, F_OK) == 0) {
                stats->layers_shared++;
                return 0;
        }
        fd = rt_open_in_root(rootfd, path, O_RDONLY | O_NOFOLLOW);
        if (fd < 0)
                return error_set(reterr, -fd, "layer \"%s\": %s", path, strerror(-fd));
        if (blob_digest) {
                if (!sha256_hex(blob_digest))
                        return error_set(reterr, EINVAL,
                                         "layer \"%s\": digest \"%s\" is not sha256", path,
                                         blob_digest);
                if ((r = rt_sha256_fd(fd, got)) < 0)
                        return error_set(reterr, -r, "layer \"%s\": read: %s", path, strerror(-r));
                if (!streq(got, sha256_hex(blob_digest)))
                        return error_set(reterr, EBADMSG, "layer \"%s\": digest sha256:%s, not %s",
                                         path, got, blob_digest);
        }
        r = rt_tar_uncompressed_sha256(fd, got, reterr);
        if (r < 0)
                return error_wrap(reterr, "layer \"%s\"", path);
        if (!streq(got, sha256_hex(diff_id)))
                return error_set(
                        reterr, EBADMSG,
                        "layer \"%s\": its uncompressed digest is sha256:%s, the config says %s",
                        path, got, diff_id);
        if ((r = fs_mkdir_p(layers, 0755)) < 0)
                return error_set(reterr, -r, "create \"%s\": %s", layers, strerror(-r));
        tmp = xasprintf("%s/.tmp-XXXXXX", layers);
        if (!mkdtemp(tmp))
                return error_set(reterr, errno, "create \"%s\": %s", tmp, strerror(errno));
        (void) chmod(tmp, 0755);
        fs = xasprintf("%s/fs", tmp);
        if (mkdir(fs, 0755) < 0 || (fsfd = open(fs, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
                r = error_set(reterr, errno, "create \"%s\": %s", fs, strerror(errno));
                goto fail;
        }
        if (lseek(fd, 0, SEEK_SET) < 0) {
                r = error_set(reterr, errno, "layer \"%s\": %s", path, strerror(errno));
                goto fail;
        }
        r = rt_tar_extract(fd, fsfd, &opts, &st, reterr);
        if (r < 0) {
                error_wrap(reterr, "layer %s", diff_id);
                goto fail;
        }
        if (rename(tmp, final) < 0) {
                if (errno == EEXIST || errno == ENOTEMPTY) { /* another import was first */
                        (void) fs_remove_tree(tmp);
                        stats->layers_shared++;
                        return 0;
                }
                r = error_set(reterr, errno, "rename into \"%s\": %s", final, strerror(errno));
                goto fail;
        }
        stats->layers_unpacked++;
        return 0;
fail:
        (void) fs_remove_tree(tmp);
        return r;
}

/* Records name → image (config digest, manifest digest or NULL, layer diffIDs bottom first) as
 * DATA/images/<name's dir>/image.json, replacing what the name pointed to. */
static int record_name(const char *images, const char *name, const char *config_digest,
                       const char *manifest_digest, const json_t *diff_ids, char **ret_reference,
                       struct error **reterr)
{
        struct rt_image_name n;
        cleanup_free char *sub = NULL, *final = NULL, *tmp = NULL;
        cleanup_close int dfd = -1;
        json_t *rec;
        int r;

        r = rt_image_name_parse(name, &n, reterr);
        if (r < 0)
                return r;
        sub = rt_image_store_subdir(&n);
        final = xasprintf("%s/%s", images, sub);
        tmp = xasprintf("%s/.tmp-name-XXXXXX", images);
        if (!mkdtemp(tmp)) {
                rt_image_name_release(&n);
                return error_set(reterr, errno, "create \"%s\": %s", tmp, strerror(errno));
        }
        (void) chmod(tmp, 0755);
        rec = json_pack("{s:s, s:s, s:O}", "reference", n.reference, "config", config_digest,
                        "layers", diff_ids);
        if (manifest_digest)
                json_object_set_new(rec, "manifest", json_string(manifest_digest));
        dfd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        r = dfd < 0 ? -errno : fs_write_json_atomic(dfd, "image.json", rec);
        json_decref(rec);
        if (r < 0) {
                r = error_set(reterr, -r, "write \"%s/image.json\": %s", tmp, strerror(-r));
                goto fail;
        }
        if ((r = rt_image_publish(images, tmp, final, reterr)) < 0)
                goto fail;
        *ret_reference = TAKE_PTR(n.reference);
        rt_image_name_release(&n);
        return 0;
fail:
        (void) fs_remove_tree(tmp);
        rt_image_name_release(&n);
        return r;
}

/* One image of an archive: its config (verified against config_digest), layers unpacked, then
 * each name recorded. layer_paths and layer_digests (entries may be JSON null) run bottom
 * first. */
static int import_image(const char *images, int rootfd, const char *config_path,
                        const char *config_digest, const char *manifest_digest,
                        const char *const *layer_paths, const char *const *layer_digests,
                        size_t n_layers, const char *const *names, size_t n_names,
                        struct rt_image_import_stats *stats, json_t *refs, struct error **reterr)
{
        cleanup_free char *text = NULL;
        json_t *config = NULL, *diff_ids;
        size_t len;
        int r;

        r = read_in_root(rootfd, config_path, &text, &len, reterr);
        if (r < 0)
                return error_wrap(reterr, "image config");
        {
                char got[65];
                json_error_t jerr;
                sha256_mem(text, len, got);
                if (!streq(got, sha256_hex(config_digest)))
                        return error_set(reterr, EBADMSG,
                                         "image config \"%s\": digest sha256:%s, not %s",
                                         config_path, got, config_digest);
                config = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
        }
        if (!json_is_object(config)) {
                json_decref(config);
                return error_set(reterr, EINVAL, "image config \"%s\": not a JSON object",
                                 config_path);
        }
        diff_ids = json_object_get(json_object_get(config, "rootfs"), "diff_ids");
        if (!json_is_array(diff_ids) || json_array_size(diff_ids) != n_layers) {
                json_decref(config);
                return error_set(
                        reterr, EINVAL,
                        "image config \"%s\": rootfs.diff_ids does not list the %zu layers",
                        config_path, n_layers);
        }
        for (size_t i = 0; i < n_layers; i++) {
                r = layer_unpack(images, rootfd, layer_paths[i], layer_digests[i],
                                 json_string_value(json_array_get(diff_ids, i)), stats, reterr);
                if (r < 0) {
                        json_decref(config);
                        return r;
                }
        }
        r = store_blob(images, text, len, sha256_hex(config_digest), reterr);
        for (size_t i = 0; r >= 0 && i < n_names; i++) {
                cleanup_free char *ref = NULL;
                r = record_name(images, names[i], config_digest, manifest_digest, diff_ids, &ref,
                                reterr);
                if (r >= 0)
                        json_array_append_new(refs, json_string(ref));
        }
        json_decref(config);
        return r;
}

/* docker save: manifest.json = [{"Config", "RepoTags", "Layers"}] */
static void free_owned(char **v, size_t n)
{
        for (size_t i = 0; i < n; i++)
                free(v[i]);
        free(v);
}

static int import_docker(const char *images, int rootfd, const char *name,
                         struct rt_image_import_stats *stats, json_t *refs, struct error **reterr)
{
        json_t *manifest = NULL, *entry;
        cleanup_free char *text = NULL;
        json_error_t jerr;
        size_t len, i;
        int r = read_in_root(rootfd, "manifest.json", &text, &len, reterr);

        if (r < 0)
                return r;
        manifest = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
        if (!json_is_array(manifest) || json_array_size(manifest) == 0) {
                json_decref(manifest);
                return error_set(reterr, EINVAL, "manifest.json: not a list of images");
        }
        json_array_foreach(manifest, i, entry) {
                const char *config = json_string_value(json_object_get(entry, "Config"));
                json_t *layers = json_object_get(entry, "Layers"), *tags;
                const char **paths, **digests, **names;
                char **owned;
                cleanup_free char *config_digest = NULL;
                cleanup_free char *ctext = NULL;
                size_t n_layers, n_names = 0, clen, j;
                char got[65];

                if (!config || !json_is_array(layers) ||
                    (n_layers = json_array_size(layers)) > LAYERS_MAX) {
                        json_decref(manifest);
                        return error_set(
                                reterr, EINVAL,
                                "manifest.json: image %zu has no Config or Layers (or over %d layers)",
                                i, LAYERS_MAX);
                }
                /* docker save names the config by its digest; the bytes decide */
                r = read_in_root(rootfd, config, &ctext, &clen, reterr);
                if (r < 0) {
                        json_decref(manifest);
                        return error_wrap(reterr, "image config");
                }
                sha256_mem(ctext, clen, got);
                config_digest = xasprintf("sha256:%s", got);
                paths = xcalloc(n_layers + 1, sizeof(*paths));
                digests = xcalloc(n_layers + 1, sizeof(*digests));
                owned = xcalloc(n_layers + 1, sizeof(*owned));
                for (j = 0; j < n_layers; j++) {
                        paths[j] = json_string_value(json_array_get(layers, j));
                        /* Docker 25+ names layers blobs/sha256/<hex>: that is their digest */
                        if (paths[j] && strncmp(paths[j], "blobs/sha256/", 13) == 0) {
                                owned[j] = xasprintf("sha256:%s", paths[j] + 13);
                                digests[j] = sha256_hex(owned[j]) ? owned[j] : NULL;
                        }
                        if (!paths[j]) {
                                free(paths);
                                free(digests);
                                free_owned(owned, n_layers);
                                json_decref(manifest);
                                return error_set(reterr, EINVAL,
                                                 "manifest.json: a layer that is not a path");
                        }
                }
                tags = json_object_get(entry, "RepoTags");
                names = xcalloc(json_array_size(tags) + 2, sizeof(*names));
                if (name)
                        names[n_names++] = name;
                else
                        for (j = 0; j < json_array_size(tags); j++)
                                if (json_string_value(json_array_get(tags, j)))
                                        names[n_names++] =
                                                json_string_value(json_array_get(tags, j));
                if (n_names == 0) {
                        free(paths);
                        free(digests);
                        free(names);
                        free_owned(owned, n_layers);
                        json_decref(manifest);
                        return error_set(
                                reterr, EINVAL,
                                "image %zu of the archive has no name (RepoTags); give one: flexlet image import FILE NAME",
                                i);
                }
                r = import_image(images, rootfd, config, config_digest, NULL, paths, digests,
                                 n_layers, names, n_names, stats, refs, reterr);
                free(paths);
                free(digests);
                free(names);
                free_owned(owned, n_layers);
                if (r < 0)
                        break;
                if (name)
                        break; /* one name: the first image */
        }
        json_decref(manifest);
        return r;
}

/* K8S (containerd's platforms.Default): linux on this machine's architecture */
static bool platform_matches(const json_t *desc)
{
        const json_t *p = json_object_get(desc, "platform");
        const char *os, *arch;

        if (!p)
                return true;
        os = json_string_value(json_object_get(p, "os"));
        arch = json_string_value(json_object_get(p, "architecture"));
#if defined(__x86_64__)
        static const char *const me = "amd64";
#elif defined(__aarch64__)
        static const char *const me = "arm64";
#else
        static const char *const me = "";
#endif
        return (!os || streq(os, "linux")) && (!arch || streq(arch, me));
}

static int import_oci_manifest(const char *images, int rootfd, const char *digest, const char *name,
                               struct rt_image_import_stats *stats, json_t *refs,
                               struct error **reterr)
{
        cleanup_free char *path = blob_path(digest);
        json_t *m = NULL, *layers;
        const char *config_digest;
        const char **paths, **digests;
        char **owned;
        size_t n;
        int r;

        r = json_in_root(rootfd, path, digest, &m, reterr);
        if (r < 0)
                return error_wrap(reterr, "manifest");
        config_digest = json_string_value(json_object_get(json_object_get(m, "config"), "digest"));
        layers = json_object_get(m, "layers");
        if (!sha256_hex(config_digest) || !json_is_array(layers) ||
            (n = json_array_size(layers)) > LAYERS_MAX) {
                json_decref(m);
                return error_set(reterr, EINVAL, "manifest %s: no sha256 config or layers", digest);
        }
        paths = xcalloc(n + 1, sizeof(*paths));
        digests = xcalloc(n + 1, sizeof(*digests));
        owned = xcalloc(n + 1, sizeof(*owned));
        r = 0;
        for (size_t i = 0; i < n; i++) {
                digests[i] =
                        json_string_value(json_object_get(json_array_get(layers, i), "digest"));
                if (!sha256_hex(digests[i])) {
                        r = error_set(reterr, EINVAL, "manifest %s: layer %zu has no sha256 digest",
                                      digest, i);
                        break;
                }
                owned[i] = blob_path(digests[i]);
                paths[i] = owned[i];
        }
        if (r == 0) {
                cleanup_free char *cpath = blob_path(config_digest);
                const char *names[1] = { name };
                r = import_image(images, rootfd, cpath, config_digest, digest, paths, digests, n,
                                 names, 1, stats, refs, reterr);
        }
        if (r == 0) {
                cleanup_free char *text = NULL;
                size_t len;
                if (read_in_root(rootfd, path, &text, &len, reterr) == 0)
                        r = store_blob(images, text, len, sha256_hex(digest), reterr);
        }
        rt_strv_free(owned);
        free(paths);
        free(digests);
        json_decref(m);
        return r;
}

/* An image name from an index entry: containerd's full name, else the OCI ref name, which
 * may be a bare tag. */
static char *oci_entry_name(const json_t *desc, const char *name)
{
        const json_t *ann = json_object_get(desc, "annotations");
        const char *full = json_string_value(json_object_get(ann, "io.containerd.image.name"));
        const char *ref =
                json_string_value(json_object_get(ann, "org.opencontainers.image.ref.name"));

        if (name)
                return xstrdup(name);
        if (full)
                return xstrdup(full);
        if (ref && !strchr(ref, '/') && !strchr(ref, ':'))
                return NULL; /* a bare tag names no repository */
        return ref ? xstrdup(ref) : NULL;
}

static int import_oci_index(const char *images, int rootfd, const json_t *index, const char *name,
                            unsigned depth, struct rt_image_import_stats *stats, json_t *refs,
                            struct error **reterr)
{
        const json_t *ms = json_object_get(index, "manifests"), *desc;
        size_t i;
        int r;

        if (depth > 4)
                return error_set(reterr, ELOOP, "index.json: indexes nested too deep");
        json_array_foreach(ms, i, desc) {
                const char *mt = json_string_value(json_object_get(desc, "mediaType"));
                const char *digest = json_string_value(json_object_get(desc, "digest"));
                cleanup_free char *n = NULL;

                if (!sha256_hex(digest))
                        return error_set(reterr, EINVAL, "index: entry %zu has no sha256 digest",
                                         i);
                if (!platform_matches(desc))
                        continue;
                n = oci_entry_name(desc, name);
                if (mt && (strstr(mt, "image.index") || strstr(mt, "manifest.list"))) {
                        cleanup_free char *p = blob_path(digest);
                        json_t *sub = NULL;
                        r = json_in_root(rootfd, p, digest, &sub, reterr);
                        if (r < 0)
                                return error_wrap(reterr, "index");
                        r = import_oci_index(images, rootfd, sub, n, depth + 1, stats, refs,
                                             reterr);
                        json_decref(sub);
                        if (r < 0)
                                return r;
                        continue;
                }
                if (!n)
                        return error_set(
                                reterr, EINVAL,
                                "manifest %s of the layout has no image name (annotation io.containerd.image.name or a full org.opencontainers.image.ref.name); give one: flexlet image import FILE NAME",
                                digest);
                r = import_oci_manifest(images, rootfd, digest, n, stats, refs, reterr);
                if (r < 0)
                        return r;
                if (name)
                        return 0;
        }
        return 0;
}

/* ------------------------------------------------------------------ import */

int rt_image_import_tree(const char *data_dir, int rootfd, const char *name,
                         struct rt_image_import_stats *ret_stats, json_t **ret_refs,
                         struct error **reterr)
{
        cleanup_free char *images = xasprintf("%s/images", data_dir);
        struct rt_image_import_stats stats = { 0 };
        json_t *refs = json_array();
        int r;

        if (faccessat(rootfd, "oci-layout", F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
                json_t *index = NULL;
                r = json_in_root(rootfd, "index.json", NULL, &index, reterr);
                if (r == 0) {
                        r = import_oci_index(images, rootfd, index, name, 0, &stats, refs, reterr);
                        json_decref(index);
                }
        } else if (faccessat(rootfd, "manifest.json", F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
                r = import_docker(images, rootfd, name, &stats, refs, reterr);
        } else {
                r = -ENOMEDIUM; /* not an image archive: the caller takes it as a root fs */
        }
        if (r == 0 && json_array_size(refs) == 0)
                r = error_set(reterr, ENOENT, "no image for this platform in the archive");
        if (r < 0) {
                json_decref(refs);
                return r;
        }
        if (ret_stats)
                *ret_stats = stats;
        *ret_refs = refs;
        return 0;
}
