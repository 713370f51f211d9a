/* pod-claims.c: persistentVolumeClaim volumes of a pod on this host: the bound PersistentVolume
 * of flexlet's local-loop provisioner (docs/storage.md) attached as a loop device and mounted
 * at the pod's volume folder, and both undone when the pod goes. Which file backs which volume
 * is recorded in the pod's folder (claims.json) before anything is attached, so a teardown after
 * a crash, or of a pod the API no longer has, finds it. Also the node's part of a volume
 * expansion (docs/storage.md, "The hand-off to the node"): growing the filesystem, online while
 * mounted or offline before the mount, and finishing the claim's status. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/fault.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/metrics.h"
#include "base/quantity.h"
#include "base/timeutil.h"
#include "node/node-metrics.h"
#include "node/pod-worker-internal.h"
#include "node/volume/loopvol.h"
#include "node/volume/storage-metrics.h"

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

static int64_t bytes_of(const char *q)
{
        struct quantity v;
        int64_t b = -1;

        if (!q || quantity_parse(q, &v, NULL) < 0 || quantity_value(&v, &b) < 0)
                return -1;
        return b;
}

static bool is_resize_condition(const char *type)
{
        return type && (streq(type, "Resizing") || streq(type, "FileSystemResizePending") ||
                        streq(type, "ControllerResizeError") || streq(type, "NodeResizeError"));
}

/* K8S NodeExpander / MarkFSResizeFinished: grows the filesystem of a claim's volume when the
 * expander handed it over, then finishes the claim's status. A kernel that refuses online
 * growth leaves FileSystemResizePending for the next mount (offline). */
static void claim_expand(struct pod_host *h, const json_t *pvc, const json_t *pv, const char *file,
                         struct pod_events *ev)
{
        const char *state = json_path_string(pvc, "status.allocatedResourceStatuses.storage");
        const char *want = json_path_string(pv, "spec.capacity.storage");
        const char *have = json_path_string(pvc, "status.capacity.storage");
        int64_t want_bytes = bytes_of(want);
        cleanup_error struct error *err = NULL;
        cleanup_json json_t *patch = NULL, *conds = NULL;
        const char *reason;
        char *message;
        json_t *statuses, *c;
        int64_t start_ms;
        size_t i;
        int r;

        if (!state || (!streq(state, "NodeResizePending") && !streq(state, "NodeResizeInProgress")))
                return;
        if (want_bytes <= 0 || want_bytes <= bytes_of(have) || !h->claim_patch_status)
                return;
        start_ms = time_monotonic_ms();
        r = loopvol_grow(file, want_bytes, &err);
        if (r == -EOPNOTSUPP)
                return; /* K8S: FileSystemResizePending stays; grown offline at the next mount */
        storage_operation_observe(storage_operations(h), STORAGE_PLUGIN_LOCAL_LOOP,
                                  "volume_fs_resize", r, start_ms);
        if (r >= 0)
                fault_point("node-volume-grown");
        conds = json_array();
        json_array_foreach(json_path(pvc, "status.conditions"), i, c) {
                const char *type = json_string_value(json_object_get(c, "type"));
                /* success drops every resize condition; a failure replaces NodeResizeError */
                if (!is_resize_condition(type) || (r < 0 && !streq(type, "NodeResizeError")))
                        json_array_append(conds, c);
        }
        if (r < 0) {
                char now[32];

                time_format_rfc3339(time(NULL), now);
                json_array_append_new(conds,
                                      json_pack("{s:s, s:s, s:s, s:s}", "type", "NodeResizeError",
                                                "status", "True", "lastTransitionTime", now,
                                                "message", err ? err->message : strerror(-r)));
                patch = json_pack("{s:{s:O}}", "status", "conditions", conds);
                message = xasprintf("MountVolume.NodeExpandVolume failed for volume \"%s\" : %s",
                                    json_path_string(pv, "metadata.name") ?: "",
                                    err ? err->message : strerror(-r));
                reason = "VolumeResizeFailed";
        } else {
                statuses = json_deep_copy(json_path(pvc, "status.allocatedResourceStatuses"));
                json_object_del(statuses, "storage");
                if (!json_object_size(statuses)) {
                        json_decref(statuses);
                        statuses = json_null();
                }
                patch = json_pack("{s:{s:{s:s}, s:o, s:O}}", "status", "capacity", "storage", want,
                                  "allocatedResourceStatuses", statuses, "conditions", conds);
                message = xasprintf("MountVolume.NodeExpandVolume succeeded for volume \"%s\" %s",
                                    json_path_string(pv, "metadata.name") ?: "", h->node_name);
                reason = "FileSystemResizeSuccessful";
        }
        json_object_set_new(patch, "metadata",
                            json_pack("{s:s}", "resourceVersion",
                                      json_path_string(pvc, "metadata.resourceVersion") ?: ""));
        (void) h->claim_patch_status(h->claim_ud, json_path_string(pvc, "metadata.namespace"),
                                     json_path_string(pvc, "metadata.name"), patch, NULL);
        /* K8S: the kubelet tells both the pod and the claim */
        add_event_about(ev, pvc, r < 0 ? "Warning" : "Normal", reason, xstrdup(message));
        add_event(ev, r < 0 ? "Warning" : "Normal", reason, message);
}

/* The claim's bound local-loop volume: its file and fsType, or -errno with a message. */
static int claim_volume(struct pod_host *h, const json_t *pv, char **ret_file,
                        enum loopvol_fstype *ret_fstype, struct error **reterr)
{
        const char *driver = json_path_string(pv, "spec.csi.driver");
        const char *handle = json_path_string(pv, "spec.csi.volumeHandle");
        const char *fs_name = json_path_string(pv, "spec.csi.fsType") ?: "ext4";

        if (!driver || !streq(driver, LOCAL_LOOP_DRIVER) || !safe_handle(handle))
                return error_set(reterr, EINVAL,
                                 "PersistentVolume \"%s\" is not one flexlet can mount (csi "
                                 "driver %s with a volume handle)",
                                 json_path_string(pv, "metadata.name") ?: "", LOCAL_LOOP_DRIVER);
        if (loopvol_fstype_from_string(fs_name, ret_fstype) < 0)
                return error_set(reterr, EINVAL, "PersistentVolume \"%s\": fsType %s",
                                 json_path_string(pv, "metadata.name") ?: "", fs_name);
        *ret_file = xasprintf("%s/volumes/%s.img", h->data_dir, handle);
        return 0;
}

void pod_claims_expand(struct step *s)
{
        size_t i;
        json_t *v;

        if (!s->h->claim_lookup)
                return;
        json_array_foreach(json_path(s->pod, "spec.volumes"), i, v) {
                const char *claim = json_path_string(v, "persistentVolumeClaim.claimName");
                cleanup_json json_t *pvc = NULL, *pv = NULL;
                cleanup_free char *file = NULL;
                enum loopvol_fstype fstype;

                if (!claim ||
                    s->h->claim_lookup(s->h->claim_ud,
                                       json_path_string(s->pod, "metadata.namespace"), claim, &pvc,
                                       &pv, NULL) < 0 ||
                    claim_volume(s->h, pv, &file, &fstype, NULL) < 0)
                        continue;
                /* another pod of the claim may be mounting or detaching it (loop_lock) */
                pthread_mutex_lock(&s->h->loop_lock);
                claim_expand(s->h, pvc, pv, file, s->ev);
                pthread_mutex_unlock(&s->h->loop_lock);
        }
}

int pod_claim_setup(struct pod_host *h, struct pod_memory *p, const json_t *pod, const char *volume,
                    const char *claim, struct pod_events *ev, struct error **reterr)
{
        cleanup_json json_t *pvc = NULL, *pv = NULL;
        cleanup_free char *file = NULL, *target = NULL, *device = NULL;
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
        /* K8S desired_state_of_world_populator: a new mount of a claim being deleted waits */
        if (json_path(pvc, "metadata.deletionTimestamp"))
                return error_set(reterr, EAGAIN, "error processing PVC %s/%s: PVC is being deleted",
                                 json_path_string(pod, "metadata.namespace"), claim);
        r = claim_volume(h, pv, &file, &fstype, reterr);
        if (r < 0)
                return r;
        target = volume_path(p, volume);
        r = record_claim(p, volume, file, reterr);
        /* the attach finds a device another pod's mount of the file uses, or binds one: never
         * two at once for one file, nor while another pod detaches it (loop_lock) */
        pthread_mutex_lock(&h->loop_lock);
        if (r >= 0)
                r = loopvol_attach(file, &device, reterr);
        /* not mounted yet: a pending expansion grows offline here (ext4's way) */
        if (r >= 0)
                claim_expand(h, pvc, pv, file, ev);
        if (r >= 0) {
                int64_t start_ms = time_monotonic_ms();

                r = loopvol_mount(file, target, fstype, reterr);
                storage_operation_observe(storage_operations(h), STORAGE_PLUGIN_LOCAL_LOOP,
                                          "volume_mount", r, start_ms);
        }
        pthread_mutex_unlock(&h->loop_lock);
        if (r < 0)
                return r;
        pthread_mutex_lock(&h->claims_lock);
        json_object_set_new(
                h->mounted_claims, target,
                json_pack("[s,s]", json_path_string(pod, "metadata.namespace") ?: "", claim));
        pthread_mutex_unlock(&h->claims_lock);
        return 0;
}

int pod_claims_teardown(struct pod_host *h, const char *pod_dir, struct error **reterr)
{
        int dfd = open(pod_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        cleanup_json json_t *claims = NULL;
        const char *volume;
        json_t *file;
        int r = 0;

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
                int64_t start_ms = time_monotonic_ms();

                /* as in pod_claim_setup: no other pod attaches or mounts it meanwhile */
                pthread_mutex_lock(&h->loop_lock);
                r = loopvol_unmount(target, false, reterr);
                storage_operation_observe(storage_operations(h), STORAGE_PLUGIN_LOCAL_LOOP,
                                          "volume_unmount", r, start_ms);
                if (r < 0) {
                        pthread_mutex_unlock(&h->loop_lock);
                        return r;
                }
                pthread_mutex_lock(&h->claims_lock);
                json_object_del(h->mounted_claims, target);
                pthread_mutex_unlock(&h->claims_lock);
                /* Another pod of this node may still have it mounted: then it stays attached
                 * (a volume in use is never detached). */
                (void) loopvol_detach(json_string_value(file), &derr);
                pthread_mutex_unlock(&h->loop_lock);
        }
        return 0;
}

int pod_host_collect_volume_stats(struct metrics_scrape *scrape, void *ud, struct error **reterr)
{
        struct pod_host *h = ud;
        cleanup_json json_t *mounted = NULL;
        const char *path;
        json_t *who;

        (void) reterr;
        if (!h->metrics)
                return 0;
        pthread_mutex_lock(&h->claims_lock);
        mounted = json_deep_copy(h->mounted_claims);
        pthread_mutex_unlock(&h->claims_lock);
        json_object_foreach(mounted, path, who) {
                const char *labels[] = { json_string_value(json_array_get(who, 0)),
                                         json_string_value(json_array_get(who, 1)), NULL };
                struct loopvol_stats st;

                /* K8S: a volume that cannot be measured is left out of this scrape */
                if (loopvol_stats(path, &st, NULL) < 0)
                        continue;
                const int64_t values[6] = { st.capacity_bytes, st.available_bytes, st.used_bytes,
                                            st.inodes,         st.inodes_free,     st.inodes_used };
                for (size_t i = 0; i < 6; i++)
                        (void) metrics_scrape_set(scrape, h->metrics->volume_stats[i], labels,
                                                  (double) values[i]);
        }
        return 0;
}
