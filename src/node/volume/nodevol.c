/* nodevol.c: the owning node's part of local-loop volumes (nodevol.h): making a volume's file
 * before its first mount, recording it in the PersistentVolume, removing it once the volume is
 * reclaimed, and the file operations serve's controllers call for serve's own node. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "api/local-volume.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/quantity.h"
#include "base/timeutil.h"
#include "client/client.h"
#include "client/event.h"
#include "node/volume/loopvol.h"
#include "node/volume/nodevol.h"
#include "node/volume/storage-metrics.h"

#define COMPONENT "local-loop.flexlet.io-node"

struct nodevol {
        char *node, *data_dir;
        struct api_client *client;
        json_t *told; /* "<pv uid>" -> the last failure told, so a lasting one is told once */
};

struct nodevol *nodevol_new(const char *node, const char *data_dir, struct api_client *client)
{
        struct nodevol *nv = xcalloc(1, sizeof(*nv));

        nv->node = xstrdup(node);
        nv->data_dir = xstrdup(data_dir);
        nv->client = client;
        nv->told = json_object();
        return nv;
}

void nodevol_free(struct nodevol *nv)
{
        if (!nv)
                return;
        json_decref(nv->told);
        free(nv->node);
        free(nv->data_dir);
        free(nv);
}

static const char *recorded_by(const json_t *pv)
{
        return json_string_value(
                json_object_get(json_path(pv, "metadata.annotations"), NODEVOL_ANN_PROVISIONED_ON));
}

/* A merge patch of the volume guarded by its resourceVersion; the answer in *ret (may be
 * NULL). -ESTALE on 409. */
static int patch_pv(struct nodevol *nv, const json_t *pv, json_t *meta, json_t **ret,
                    struct error **reterr)
{
        cleanup_free char *path = xasprintf("/api/v1/persistentvolumes/%s",
                                            json_path_string(pv, "metadata.name") ?: "");
        cleanup_json json_t *patch = NULL, *resp = NULL;
        cleanup_free char *body = NULL;
        long code = 0;
        int r;

        json_object_set_new(meta, "resourceVersion",
                            json_string(json_path_string(pv, "metadata.resourceVersion") ?: ""));
        patch = json_pack("{s:o}", "metadata", meta);
        body = json_dump_compact(patch);
        r = api_client_request(nv->client, "PATCH", path, "application/merge-patch+json", body,
                               strlen(body), &code, &resp, reterr);
        if (r < 0)
                return r;
        if (code == 409)
                return error_set(reterr, ESTALE, "persistentvolume \"%s\": changed meanwhile",
                                 json_path_string(pv, "metadata.name") ?: "");
        if (code != 200)
                return error_set(reterr, code == 403 ? EACCES : EIO,
                                 "persistentvolume \"%s\": HTTP %ld: %s",
                                 json_path_string(pv, "metadata.name") ?: "", code,
                                 json_path_string(resp, "message") ?: "");
        if (ret)
                *ret = TAKE_PTR(resp);
        return 0;
}

int nodevol_ensure(struct nodevol *nv, const json_t *pv, json_t **ret_pv, struct error **reterr)
{
        const char *name = json_path_string(pv, "metadata.name") ?: "";
        const char *by = recorded_by(pv);
        cleanup_free char *file = NULL;
        enum loopvol_fstype fstype;
        struct quantity q;
        int64_t bytes = 0;
        struct stat st;
        int r;

        if (ret_pv)
                *ret_pv = NULL;
        if (!streq(json_path_string(pv, "spec.csi.driver") ?: "", NODEVOL_DRIVER))
                return 0;
        file = local_volume_file(nv->data_dir, json_path_string(pv, "spec.csi.volumeHandle"));
        if (!file || !json_path(pv, "spec.nodeAffinity"))
                return 0; /* not a volume this node keeps: mounting it says why */
        if (!local_volume_pinned_to(pv, nv->node))
                return error_set(reterr, EINVAL,
                                 "persistentvolume \"%s\" is pinned to another node than \"%s\"",
                                 name, nv->node);
        if (stat(file, &st) == 0) {
                if (by)
                        return 0;
                /* made before a crash kept the record from being written */
        } else if (errno != ENOENT) {
                return error_set(reterr, errno, "stat %s: %m", file);
        } else if (by) {
                return error_set(reterr, EIO,
                                 "the backing file %s of persistentvolume \"%s\", made on node "
                                 "\"%s\", is missing: its data is lost",
                                 file, name, by);
        } else {
                const char *cap = json_path_string(pv, "spec.capacity.storage");
                const char *fs = json_path_string(pv, "spec.csi.fsType") ?: "ext4";

                if (!cap || quantity_parse(cap, &q, NULL) < 0 || quantity_value(&q, &bytes) < 0 ||
                    bytes <= 0)
                        return error_set(reterr, EINVAL,
                                         "persistentvolume \"%s\": capacity \"%s\" is no size",
                                         name, cap ?: "");
                if (loopvol_fstype_from_string(fs, &fstype) < 0)
                        return error_set(reterr, EINVAL, "persistentvolume \"%s\": fsType %s", name,
                                         fs);
                r = loopvol_create(file, bytes, fstype, reterr);
                if (r < 0)
                        return r;
        }
        /* the record: this node made the file (K8S: the provisioner's PV says where it is) */
        return patch_pv(nv, pv,
                        json_pack("{s:{s:s}}", "annotations", NODEVOL_ANN_PROVISIONED_ON, nv->node),
                        ret_pv, reterr);
}

static bool has_finalizer(const json_t *pv)
{
        return json_array_has_string(json_path(pv, "metadata.finalizers"), NODEVOL_FINALIZER);
}

/* Whether the node removes pv's file now (external-provisioner's shouldDelete, for volumes this
 * node recorded). */
static bool reclaim_due(const struct nodevol *nv, const json_t *pv)
{
        const char *phase = json_path_string(pv, "status.phase") ?: "";

        if (!local_volume_pinned_to(pv, nv->node) || !streq(recorded_by(pv) ?: "", nv->node) ||
            !has_finalizer(pv) ||
            !streq(json_path_string(pv, "spec.persistentVolumeReclaimPolicy") ?: "", "Delete"))
                return false;
        if (streq(phase, "Released") || streq(phase, "Failed"))
                return true;
        return json_path(pv, "metadata.deletionTimestamp") && !streq(phase, "Bound");
}

static void tell_failure(struct nodevol *nv, const json_t *pv, const char *message)
{
        const char *uid = json_path_string(pv, "metadata.uid") ?: "";

        (void) fprintf(stderr, "flexlet node: volume %s: %s\n",
                       json_path_string(pv, "metadata.name") ?: "", message);
        if (streq(json_string_value(json_object_get(nv->told, uid)) ?: "", message))
                return;
        json_object_set_new(nv->told, uid, json_string(message));
        (void) api_client_event(nv->client, pv, "Warning", "VolumeFailedDelete", message, COMPONENT,
                                nv->node, NULL);
}

static void reclaim(struct nodevol *nv, const json_t *pv, const char *file)
{
        cleanup_error struct error *err = NULL;
        json_t *kept = json_array();
        size_t i;
        json_t *f;

        if (loopvol_remove(file, &err) < 0) {
                json_decref(kept);
                tell_failure(nv, pv, err->message);
                return;
        }
        json_array_foreach(json_path(pv, "metadata.finalizers"), i, f) {
                if (!streq(json_string_value(f) ?: "", NODEVOL_FINALIZER))
                        json_array_append(kept, f);
        }
        if (patch_pv(nv, pv, json_pack("{s:o}", "finalizers", kept), NULL, &err) < 0 &&
            err->errnum != ESTALE)
                tell_failure(nv, pv, err->message);
}

void nodevol_sweep(struct nodevol *nv)
{
        cleanup_free char *dir_path = xasprintf("%s/volumes", nv->data_dir);
        DIR *dir = opendir(dir_path);
        struct dirent *d;

        if (!dir)
                return;
        while ((d = readdir(dir))) {
                cleanup_free char *handle = NULL, *file = NULL, *path = NULL;
                cleanup_json json_t *pv = NULL;
                size_t n = strlen(d->d_name);
                long code = 0;

                if (strncmp(d->d_name, "pvc-", 4) != 0 || n < 5 ||
                    !streq(d->d_name + n - 4, ".img"))
                        continue;
                handle = xstrndup(d->d_name, n - 4);
                file = local_volume_file(nv->data_dir, handle);
                if (!file)
                        continue;
                path = xasprintf("/api/v1/persistentvolumes/%s", handle);
                /* a volume of another node, or none: the Node authorizer refuses (403) */
                if (api_client_request(nv->client, "GET", path, NULL, NULL, 0, &code, &pv, NULL) <
                            0 ||
                    code != 200)
                        continue;
                if (streq(json_path_string(pv, "spec.csi.volumeHandle") ?: "", handle) &&
                    reclaim_due(nv, pv))
                        reclaim(nv, pv, file);
        }
        closedir(dir);
}

/* ---- serve's own node ---- */

int nodevol_local_create(const char *data_dir, const char *handle, int64_t bytes,
                         const char *fstype, int64_t *ret_file_bytes, struct error **reterr)
{
        cleanup_free char *file = local_volume_file(data_dir, handle);
        struct loopvol_sizes sizes;
        enum loopvol_fstype t;
        int r;

        if (!file)
                return error_set(reterr, EINVAL, "volume name \"%s\" is not a file name",
                                 handle ?: "");
        if (loopvol_fstype_from_string(fstype, &t) < 0)
                return error_set(reterr, EINVAL, "fsType \"%s\" is not supported", fstype ?: "");
        r = loopvol_create(file, bytes, t, reterr);
        if (r >= 0)
                r = loopvol_sizes(file, &sizes, reterr);
        if (r >= 0)
                *ret_file_bytes = sizes.file_bytes;
        return r;
}

int nodevol_local_grow(const char *data_dir, const char *handle, int64_t bytes, struct metric *ops,
                       int64_t *ret_file_bytes, struct error **reterr)
{
        cleanup_free char *file = local_volume_file(data_dir, handle);
        struct loopvol_sizes sizes;
        int64_t start_ms = time_monotonic_ms();
        int r;

        if (!file)
                return error_set(reterr, EINVAL, "volume handle \"%s\" is not a file name",
                                 handle ?: "");
        r = loopvol_grow_device(file, bytes, reterr);
        storage_operation_observe(ops, STORAGE_PLUGIN_LOCAL_LOOP, "expand_volume", r, start_ms);
        if (r >= 0)
                r = loopvol_sizes(file, &sizes, reterr);
        if (r >= 0)
                *ret_file_bytes = sizes.file_bytes;
        return r;
}

int nodevol_local_file_bytes(const char *data_dir, const char *handle, int64_t *ret)
{
        cleanup_free char *file = local_volume_file(data_dir, handle);
        struct stat st;

        if (!file)
                return -EINVAL;
        if (stat(file, &st) < 0)
                return -errno;
        *ret = st.st_size;
        return 0;
}

void nodevol_local_sweep_orphans(const char *data_dir, const json_t *handles, const json_t *uids,
                                 int age_s)
{
        cleanup_free char *dir_path = xasprintf("%s/volumes", data_dir);
        struct dirent *d;
        DIR *dir = opendir(dir_path);

        if (!dir)
                return;
        while ((d = readdir(dir))) {
                cleanup_error struct error *err = NULL;
                cleanup_free char *handle = NULL, *file = NULL;
                const char *dot = strstr(d->d_name, ".img");
                struct stat st;

                if (strncmp(d->d_name, "pvc-", 4) != 0 || !dot ||
                    (!streq(dot, ".img") && !streq(dot, ".img.tmp")))
                        continue;
                handle = xstrndup(d->d_name, (size_t) (dot - d->d_name));
                if (json_object_get(handles, handle) || json_object_get(uids, handle + 4))
                        continue;
                if (fstatat(dirfd(dir), d->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
                    time(NULL) - st.st_mtime < age_s)
                        continue;
                file = local_volume_file(data_dir, handle);
                if (file && loopvol_remove(file, &err) < 0)
                        (void) fprintf(stderr, "flexlet: pv-provisioner: orphan volume: %s\n",
                                       err->message);
        }
        closedir(dir);
}
