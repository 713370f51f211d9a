/* pod-claims.c: persistentVolumeClaim volumes of a pod on this host: the bound PersistentVolume
 * of flexlet's local-loop provisioner (docs/storage.md) attached as a loop device and mounted
 * at the pod's volume folder, and both undone when the pod goes. Which file backs which volume
 * is recorded in the pod's folder (claims.json) before anything is attached, so a teardown after
 * a crash, or of a pod the API no longer has, finds it. Filesystem growth is not here yet. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "base/json.h"
#include "node/pod-worker-internal.h"
#include "node/volume/loopvol.h"

#define CLAIMS_FILE       "claims.json"
#define LOCAL_LOOP_DRIVER "local-loop.flexlet.io"

/* A volume handle is one path component under DATA/volumes (the controller's pvc-<uid>). */
static bool safe_handle(const char *h)
{
        return h && *h && !strchr(h, '/') && !streq(h, ".") && !streq(h, "..") && strlen(h) < 200;
}

static int record_claim(const struct pod_memory *p, const char *volume, const char *file,
                        struct error **reterr)
{
        int dfd = open(p->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        cleanup_json json_t *claims = NULL;
        int r;

        if (dfd < 0)
                return error_set(reterr, errno, "open %s: %m", p->dir);
        if (fs_read_json_at(dfd, CLAIMS_FILE, &claims) < 0)
                claims = json_object();
        r = 0;
        if (!json_string_value(json_object_get(claims, volume)) ||
            !streq(json_string_value(json_object_get(claims, volume)), file)) {
                json_object_set_new(claims, volume, json_string(file));
                r = fs_write_json_atomic(dfd, CLAIMS_FILE, claims);
        }
        (void) close(dfd);
        if (r < 0)
                return error_set(reterr, -r, "write %s/%s: %s", p->dir, CLAIMS_FILE, strerror(-r));
        return 0;
}

int pod_claim_setup(struct pod_host *h, struct pod_memory *p, const json_t *pod, const char *volume,
                    const char *claim, struct error **reterr)
{
        cleanup_json json_t *pvc = NULL, *pv = NULL;
        cleanup_free char *file = NULL, *target = NULL, *device = NULL;
        const char *driver, *handle, *fs_name;
        enum loopvol_fstype fstype;
        int r;

        if (!h->claim_lookup)
                return error_set(reterr, ENOTSUP,
                                 "persistentvolumeclaim \"%s\": no API to read "
                                 "it from",
                                 claim);
        r = h->claim_lookup(h->claim_ud, json_path_string(pod, "metadata.namespace"), claim, &pvc,
                            &pv, reterr);
        if (r < 0)
                return r;
        driver = json_path_string(pv, "spec.csi.driver");
        handle = json_path_string(pv, "spec.csi.volumeHandle");
        fs_name = json_path_string(pv, "spec.csi.fsType") ?: "ext4";
        if (!driver || !streq(driver, LOCAL_LOOP_DRIVER) || !safe_handle(handle))
                return error_set(reterr, EINVAL,
                                 "PersistentVolume \"%s\" is not one flexlet can mount (csi "
                                 "driver %s with a volume handle)",
                                 json_path_string(pv, "metadata.name") ?: "", LOCAL_LOOP_DRIVER);
        if (loopvol_fstype_from_string(fs_name, &fstype) < 0)
                return error_set(reterr, EINVAL, "PersistentVolume \"%s\": fsType %s",
                                 json_path_string(pv, "metadata.name") ?: "", fs_name);
        file = xasprintf("%s/volumes/%s.img", h->data_dir, handle);
        target = volume_path(p, volume);
        r = record_claim(p, volume, file, reterr);
        if (r >= 0)
                r = loopvol_attach(file, &device, reterr);
        if (r >= 0)
                r = loopvol_mount(file, target, fstype, reterr);
        return r < 0 ? r : 0;
}

int pod_claims_teardown(struct pod_host *h, const char *pod_dir, struct error **reterr)
{
        int dfd = open(pod_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        cleanup_json json_t *claims = NULL;
        const char *volume;
        json_t *file;
        int r = 0;

        (void) h;
        if (dfd < 0)
                return errno == ENOENT ? 0 : error_set(reterr, errno, "open %s: %m", pod_dir);
        if (fs_read_json_at(dfd, CLAIMS_FILE, &claims) < 0) {
                (void) close(dfd);
                return 0;
        }
        (void) close(dfd);
        json_object_foreach(claims, volume, file) {
                cleanup_free char *target = xasprintf("%s/volumes/%s", pod_dir, volume);
                cleanup_error struct error *derr = NULL;

                r = loopvol_unmount(target, false, reterr);
                if (r < 0)
                        return r;
                /* Another pod of this node may still have it mounted: then it stays attached
                 * (a volume in use is never detached). */
                (void) loopvol_detach(json_string_value(file), &derr);
        }
        return 0;
}
