/* pv-provisioner.c: the local-loop provisioner and the PV controller steps it needs (annotate,
 * wait for a consumer, provision, bind both ways, release, delete). Level-based: each pass decides
 * every claim and volume afresh from the cache (pv_claim_next, pv_volume_next), so a crash or a
 * missed event costs a pass. It binds static volumes only back: a Lost claim whose volume returns
 * naming its uid; it does not expand (volume-expander.c does). It makes no file itself: a volume of
 * the node in its own process is made through the pv_driver serve gives it, a volume of another
 * node by that node (node/volume/nodevol.c), which also removes every volume's file when it is
 * reclaimed. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "api/local-volume.h"
#include "api/validation.h"
#include "base/alloc.h"
#include "base/fault.h"
#include "base/json.h"
#include "base/quantity.h"
#include "base/strbuf.h"
#include "base/timeutil.h"
#include "client/event.h"
#include "controllers/controller-loop.h"
#include "controllers/pv-driver.h"
#include "controllers/pv-provisioner.h"
#include "controllers/relevance.h"

/* ---- pure helpers ---- */

int64_t pv_round_up(int64_t bytes)
{
        return (bytes + PV_LOCAL_LOOP_SIZE_ALIGN - 1) / PV_LOCAL_LOOP_SIZE_ALIGN *
               PV_LOCAL_LOOP_SIZE_ALIGN;
}

const char *pv_class_fstype(const json_t *sc)
{
        const json_t *params = json_object_get(sc, "parameters");
        const char *t = json_string_value(json_object_get(params, "csi.storage.k8s.io/fstype"));

        if (!t || !*t)
                t = json_string_value(json_object_get(params, "fsType"));
        return t && *t ? t : "ext4";
}

static const char *const claim_step_names[PV_CLAIM_STEP_MAX] = {
        [PV_CLAIM_NOTHING] = "Nothing",   [PV_CLAIM_CLASS_MISSING] = "ClassMissing",
        [PV_CLAIM_EXTERNAL] = "External", [PV_CLAIM_WAIT_CONSUMER] = "WaitForFirstConsumer",
        [PV_CLAIM_ANNOTATE] = "Annotate", [PV_CLAIM_PROVISION] = "Provision",
        [PV_CLAIM_BIND] = "Bind",         [PV_CLAIM_LOST] = "Lost",
};

const char *pv_claim_step_to_string(enum pv_claim_step s)
{
        return (unsigned) s < PV_CLAIM_STEP_MAX ? claim_step_names[s] : NULL;
}

static const char *const volume_step_names[PV_VOLUME_STEP_MAX] = {
        [PV_VOLUME_NOTHING] = "Nothing",   [PV_VOLUME_BOUND] = "Bound",
        [PV_VOLUME_RELEASE] = "Release",   [PV_VOLUME_DELETE] = "Delete",
        [PV_VOLUME_FINALIZE] = "Finalize",
};

const char *pv_volume_step_to_string(enum pv_volume_step s)
{
        return (unsigned) s < PV_VOLUME_STEP_MAX ? volume_step_names[s] : NULL;
}

static const char *annotation(const json_t *obj, const char *key)
{
        return json_string_value(json_object_get(json_path(obj, "metadata.annotations"), key));
}

/* Made by this provisioner: annotated so, a volume of its driver, named and handled
 * "pvc-<uid of the claim it was made for>" (a volume made by hand is left alone). */
static bool pv_is_ours(const json_t *pv)
{
        const char *name = json_path_string_or_empty(pv, "metadata.name");
        const char *uid = json_path_string_or_empty(pv, "spec.claimRef.uid");

        return streq(annotation(pv, PV_ANN_PROVISIONED_BY) ?: "", PV_LOCAL_LOOP_PROVISIONER) &&
               streq(json_path_string_or_empty(pv, "spec.csi.driver"), PV_LOCAL_LOOP_DRIVER) &&
               streq(json_path_string_or_empty(pv, "spec.csi.volumeHandle"), name) && *uid &&
               strncmp(name, "pvc-", 4) == 0 && streq(name + 4, uid);
}

/* K8S: IsVolumeBoundToClaim: claimRef names the claim, and its uid (when set) is the claim's. */
static bool pv_bound_to(const json_t *pv, const json_t *claim)
{
        const json_t *ref = json_path(pv, "spec.claimRef");
        const char *uid = json_path_string_or_empty(ref, "uid");

        if (!ref)
                return false;
        if (!streq(json_path_string_or_empty(ref, "name"),
                   json_path_string_or_empty(claim, "metadata.name")) ||
            !streq(json_path_string_or_empty(ref, "namespace"),
                   json_path_string_or_empty(claim, "metadata.namespace")))
                return false;
        return !*uid || streq(uid, json_path_string_or_empty(claim, "metadata.uid"));
}

static bool pod_is_terminal(const json_t *pod)
{
        const char *phase = json_path_string_or_empty(pod, "status.phase");
        return streq(phase, "Succeeded") || streq(phase, "Failed");
}

/* K8S findNonScheduledPodsByPVC: live pods of the claim's namespace that use it and have no
 * node yet (by name, in the order of pods). */
static json_t *unscheduled_users(const json_t *claim, const json_t *pods)
{
        const char *ns = json_path_string_or_empty(claim, "metadata.namespace");
        const char *name = json_path_string_or_empty(claim, "metadata.name");
        json_t *names = json_array();
        size_t i, j;
        json_t *pod, *v;

        json_array_foreach(pods, i, pod) {
                if (*json_path_string_or_empty(pod, "spec.nodeName") || pod_is_terminal(pod) ||
                    !streq(json_path_string_or_empty(pod, "metadata.namespace"), ns))
                        continue;
                json_array_foreach(json_path(pod, "spec.volumes"), j, v) {
                        if (streq(json_path_string_or_empty(v, "persistentVolumeClaim.claimName"),
                                  name)) {
                                json_array_append_new(names, json_string(json_path_string_or_empty(
                                                                     pod, "metadata.name")));
                                break;
                        }
                }
        }
        return names;
}

char *pv_claim_wait_event(const json_t *claim, const json_t *pods, const char **ret_reason)
{
        cleanup_json json_t *names = unscheduled_users(claim, pods);
        struct strbuf sb;
        size_t i;
        json_t *n;

        if (!json_array_size(names)) {
                *ret_reason = "WaitForFirstConsumer";
                return xstrdup("waiting for first consumer to be created before binding");
        }
        *ret_reason = "WaitForPodScheduled";
        strbuf_init(&sb);
        strbuf_addstr(&sb, json_array_size(names) > 1 ? "waiting for pods " : "waiting for pod ");
        json_array_foreach(names, i, n) {
                strbuf_addf(&sb, "%s%s", i ? "," : "", json_string_value(n));
        }
        strbuf_addstr(&sb, " to be scheduled");
        return strbuf_detach(&sb);
}

bool pv_provisioning_reschedules(const json_t *claim, int errnum)
{
        if (!annotation(claim, PV_ANN_SELECTED_NODE))
                return false;
        return errnum == ENOSPC || errnum == EDQUOT;
}

/* The claim still lacks something binding gives it. */
static bool bind_incomplete(const json_t *claim, const json_t *pv)
{
        return !streq(json_path_string_or_empty(claim, "status.phase"), "Bound") ||
               !streq(json_path_string_or_empty(pv, "status.phase"), "Bound") ||
               !annotation(claim, PV_ANN_BIND_COMPLETED) ||
               !json_object_get(json_path(claim, "status.capacity"), "storage");
}

enum pv_claim_step pv_claim_next(const json_t *claim, const json_t *sc, const json_t *pv)
{
        const char *volume = json_path_string_or_empty(claim, "spec.volumeName");
        const char *provisioner;

        if (json_path(claim, "metadata.deletionTimestamp"))
                return PV_CLAIM_NOTHING;
        if (*volume) {
                if (!pv) {
                        /* K8S syncBoundClaim: "Bound claim has lost its PersistentVolume" */
                        if (annotation(claim, PV_ANN_BIND_COMPLETED) &&
                            !streq(json_path_string_or_empty(claim, "status.phase"), "Lost"))
                                return PV_CLAIM_LOST;
                        return PV_CLAIM_NOTHING;
                }
                if (!streq(json_path_string_or_empty(pv, "metadata.name"), volume) ||
                    !pv_bound_to(pv, claim))
                        return PV_CLAIM_NOTHING;
                /* K8S syncBoundClaim: a volume back under the claim's name and uid is "all is
                 * well" and bound again, a Lost claim too, whoever made the volume (one naming
                 * no uid is ClaimMisbound there: it stays Lost) */
                if (!pv_is_ours(pv))
                        return streq(json_path_string_or_empty(claim, "status.phase"), "Lost") &&
                                               streq(json_path_string_or_empty(pv,
                                                                               "spec.claimRef.uid"),
                                                     json_path_string_or_empty(claim,
                                                                               "metadata.uid"))
                                       ? PV_CLAIM_BIND
                                       : PV_CLAIM_NOTHING;
                return bind_incomplete(claim, pv) ? PV_CLAIM_BIND : PV_CLAIM_NOTHING;
        }
        /* provisioned before (a crash between creating the volume and binding) */
        if (pv && pv_is_ours(pv) && pv_bound_to(pv, claim) &&
            !json_path(pv, "metadata.deletionTimestamp"))
                return PV_CLAIM_BIND;
        if (!*(pvc_storage_class(claim) ?: ""))
                return PV_CLAIM_NOTHING;
        if (!sc)
                return PV_CLAIM_CLASS_MISSING;
        provisioner = json_path_string_or_empty(sc, "provisioner");
        /* K8S: a delayed claim waits for the scheduler's selected-node (set in its PreBind
         * for the node it chose for a pod using the claim), which the provisioner then uses */
        if (streq(json_path_string_or_empty(sc, "volumeBindingMode"), "WaitForFirstConsumer") &&
            !annotation(claim, PV_ANN_SELECTED_NODE))
                return PV_CLAIM_WAIT_CONSUMER;
        if (streq(provisioner, PV_NO_PROVISIONER))
                return PV_CLAIM_NOTHING;
        if (!streq(annotation(claim, PV_ANN_STORAGE_PROVISIONER) ?: "", provisioner))
                return streq(provisioner, PV_LOCAL_LOOP_PROVISIONER) ? PV_CLAIM_ANNOTATE
                                                                     : PV_CLAIM_EXTERNAL;
        if (!streq(provisioner, PV_LOCAL_LOOP_PROVISIONER))
                return PV_CLAIM_NOTHING;
        return PV_CLAIM_PROVISION;
}

char *pv_claim_refusal(const json_t *claim, const json_t *sc, int64_t *ret_bytes)
{
        const char *request = json_string_value(
                json_object_get(json_path(claim, "spec.resources.requests"), "storage"));
        const char *fstype = pv_class_fstype(sc);
        struct quantity q;
        int64_t bytes = 0;
        size_t i;
        json_t *m;

        json_array_foreach(json_path(claim, "spec.accessModes"), i, m) {
                const char *mode = json_string_value(m) ?: "";
                if (!streq(mode, "ReadWriteOnce") && !streq(mode, "ReadWriteOncePod"))
                        return xasprintf("access mode %s is not supported by %s (a volume of "
                                         "one node: ReadWriteOnce, ReadWriteOncePod)",
                                         mode, PV_LOCAL_LOOP_PROVISIONER);
        }
        if (streq(json_path_string_or_empty(claim, "spec.volumeMode"), "Block"))
                return xasprintf("volumeMode Block is not supported by %s",
                                 PV_LOCAL_LOOP_PROVISIONER);
        if (json_path(claim, "spec.dataSource") || json_path(claim, "spec.dataSourceRef"))
                return xasprintf("data sources are not supported by %s", PV_LOCAL_LOOP_PROVISIONER);
        if (!streq(fstype, "ext4") && !streq(fstype, "xfs") && !streq(fstype, "btrfs"))
                return xasprintf("fsType \"%s\" is not supported by %s (ext4, xfs, btrfs)", fstype,
                                 PV_LOCAL_LOOP_PROVISIONER);
        if (!request || quantity_parse(request, &q, NULL) < 0 || quantity_value(&q, &bytes) < 0 ||
            bytes <= 0)
                return xasprintf("invalid storage request \"%s\"", request ?: "");
        if (bytes > PV_LOCAL_LOOP_SIZE_MAX)
                return xasprintf("requested size %" PRId64
                                 " bytes is more than the largest volume, 16Ti",
                                 bytes);
        *ret_bytes = bytes;
        return NULL;
}

json_t *pv_build_volume(const json_t *claim, const json_t *sc, int64_t capacity_bytes,
                        const char *node)
{
        cleanup_free char *name =
                xasprintf("pvc-%s", json_path_string_or_empty(claim, "metadata.uid"));
        cleanup_free char *capacity = NULL;
        const json_t *modes = json_path(claim, "spec.accessModes");
        const json_t *mount_options = json_object_get(sc, "mountOptions");
        const char *policy = json_string_value(json_object_get(sc, "reclaimPolicy"));
        cleanup_json json_t *rwo = json_pack("[s]", "ReadWriteOnce");
        struct quantity q;
        json_t *pv, *spec;

        quantity_from_int64(capacity_bytes, QUANTITY_BINARY_SI, &q);
        capacity = quantity_format(&q);
        pv = json_pack("{s:s, s:s, s:{s:s, s:{s:s}, s:[s]}}", "apiVersion", "v1", "kind",
                       "PersistentVolume", "metadata", "name", name, "annotations",
                       PV_ANN_PROVISIONED_BY, PV_LOCAL_LOOP_PROVISIONER, "finalizers",
                       PV_FINALIZER_EXTERNAL_PROVISIONER);
        spec = json_pack(
                "{s:O, s:{s:s}, s:{s:s, s:s, s:s, s:s, s:s, s:s}, s:{s:s, s:s, s:s}, s:s, s:s, "
                "s:s}",
                "accessModes", modes ? modes : rwo, "capacity", "storage", capacity, "claimRef",
                "apiVersion", "v1", "kind", "PersistentVolumeClaim", "namespace",
                json_path_string_or_empty(claim, "metadata.namespace"), "name",
                json_path_string_or_empty(claim, "metadata.name"), "uid",
                json_path_string_or_empty(claim, "metadata.uid"), "resourceVersion",
                json_path_string_or_empty(claim, "metadata.resourceVersion"), "csi", "driver",
                PV_LOCAL_LOOP_DRIVER, "volumeHandle", name, "fsType", pv_class_fstype(sc),
                "persistentVolumeReclaimPolicy", policy && *policy ? policy : "Delete",
                "storageClassName", json_path_string_or_empty(sc, "metadata.name"), "volumeMode",
                json_path_string(claim, "spec.volumeMode") ?: "Filesystem");
        if (json_array_size(mount_options))
                json_object_set(spec, "mountOptions", (json_t *) mount_options);
        if (node)
                json_object_set_new(spec, "nodeAffinity",
                                    json_pack("{s:{s:[{s:[{s:s, s:s, s:[s]}]}]}}", "required",
                                              "nodeSelectorTerms", "matchExpressions", "key",
                                              "kubernetes.io/hostname", "operator", "In", "values",
                                              node));
        json_object_set_new(pv, "spec", spec);
        return pv;
}

enum pv_volume_step pv_volume_next(const json_t *pv, const json_t *claim)
{
        const char *phase = json_path_string_or_empty(pv, "status.phase");
        bool delete = streq(json_path_string_or_empty(pv, "spec.persistentVolumeReclaimPolicy"),
                            "Delete");

        /* K8S external-provisioner shouldDelete: a deleted volume is reclaimed once no claim
         * holds it (Released, Failed, or never bound); while bound it stays as it is (its
         * kubernetes.io/pv-protection finalizer keeps it until then) */
        if (json_path(pv, "metadata.deletionTimestamp") &&
            (streq(phase, "Released") || streq(phase, "Failed") ||
             !*json_path_string_or_empty(pv, "spec.claimRef.uid")))
                return json_array_has_string(json_path(pv, "metadata.finalizers"),
                                             PV_FINALIZER_EXTERNAL_PROVISIONER)
                               ? PV_VOLUME_FINALIZE
                               : PV_VOLUME_NOTHING;
        /* K8S: no claim, or pre-bound to one not bound yet (no uid): the binder's business */
        if (!*json_path_string_or_empty(pv, "spec.claimRef.uid"))
                return PV_VOLUME_NOTHING;
        if (claim && !streq(json_path_string_or_empty(claim, "metadata.uid"),
                            json_path_string_or_empty(pv, "spec.claimRef.uid")))
                claim = NULL; /* deleted, and another made under the same name */
        if (claim) {
                const char *volume = json_path_string_or_empty(claim, "spec.volumeName");

                if (streq(volume, json_path_string_or_empty(pv, "metadata.name")))
                        return streq(phase, "Bound") ? PV_VOLUME_NOTHING : PV_VOLUME_BOUND;
                if (!*volume)
                        return PV_VOLUME_NOTHING; /* the claim's pass binds it */
                /* K8S: bound elsewhere: a provisioned volume with Delete is not needed */
                if (!delete)
                        return PV_VOLUME_NOTHING;
        }
        /* K8S syncVolume: the claim is gone: Released (a Failed phase stays), then reclaim */
        if (!streq(phase, "Released") && !streq(phase, "Failed"))
                return PV_VOLUME_RELEASE;
        return delete ? PV_VOLUME_DELETE : PV_VOLUME_NOTHING;
}

/* ---- the controller ---- */

enum { COLL_CLAIMS, COLL_VOLUMES, COLL_CLASSES, COLL_PODS };

#define PASS_PERIOD_MS  2000
#define BACKOFF_MIN_MS  1000
#define BACKOFF_MAX_MS  (5 * 60 * 1000)
#define PV_CONTROLLER   "persistentvolume-controller"
#define ORPHAN_AGE_S    60
#define ORPHAN_SWEEP_MS (30 * 1000)

struct pv_provisioner {
        struct pv_driver driver; /* .node NULL: no node in this process */
        struct controller_loop loop;
        /* pass thread only: "<uid>/<reason>" -> message of the last event sent, so a state that
         * lasts is told once; "<uid>" -> controller_backoff_* state after a failure */
        json_t *told, *backoff;
        int64_t last_sweep_ms;
};

static void tell(struct pv_provisioner *p, const json_t *obj, const char *type, const char *reason,
                 const char *message, const char *component)
{
        cleanup_free char *key =
                xasprintf("%s/%s", json_path_string_or_empty(obj, "metadata.uid"), reason);

        if (streq(json_string_value(json_object_get(p->told, key)) ?: "\001", message))
                return;
        json_object_set_new(p->told, key, json_string(message));
        (void) api_client_event(p->loop.client, obj, type, reason, message, component, NULL, NULL);
}

static bool backing_off(struct pv_provisioner *p, const json_t *obj)
{
        return controller_backoff_waiting(p->backoff,
                                          json_path_string_or_empty(obj, "metadata.uid"), NULL);
}

static void back_off(struct pv_provisioner *p, const json_t *obj)
{
        controller_backoff_failed(p->backoff, json_path_string_or_empty(obj, "metadata.uid"), NULL,
                                  BACKOFF_MIN_MS, BACKOFF_MAX_MS);
}

static void log_failure(const char *what, const json_t *obj, const char *message)
{
        cleanup_free char *key = informer_key(obj);
        (void) fprintf(stderr, "flexlet: pv-provisioner: %s \"%s\": %s\n", what, key, message);
}

static char *object_path(const json_t *obj, bool status)
{
        const char *kind = json_path_string_or_empty(obj, "kind");
        const char *name = json_path_string_or_empty(obj, "metadata.name");

        if (streq(kind, "PersistentVolume"))
                return xasprintf("/api/v1/persistentvolumes/%s%s", name, status ? "/status" : "");
        return xasprintf("/api/v1/namespaces/%s/persistentvolumeclaims/%s%s",
                         json_path_string_or_empty(obj, "metadata.namespace"), name,
                         status ? "/status" : "");
}

/* PUTs obj (to /status when status); on 200 the answer goes into the cache of coll and, when
 * ret is not NULL, to the caller. -EAGAIN on 409 (the next pass sees the newer object). */
static int put(struct pv_provisioner *p, size_t coll, json_t *obj, bool status, json_t **ret)
{
        cleanup_free char *path = object_path(obj, status), *body = json_dump_compact(obj);
        cleanup_json json_t *resp = NULL;
        long code = 0;
        int r;

        r = api_client_request(p->loop.client, "PUT", path, "application/json", body, strlen(body),
                               &code, &resp, NULL);
        if (r < 0)
                return r;
        if (code != 200) {
                if (code != 409 && code != 404) /* 404: deleted meanwhile, as the cache will say */
                        log_failure("update", obj,
                                    json_string_value(json_object_get(resp, "message")) ?: "");
                return code == 409 ? -EAGAIN : -EIO;
        }
        informer_store(p->loop.watch, coll, resp);
        if (ret)
                *ret = TAKE_PTR(resp);
        return 0;
}

static void set_annotation(json_t *obj, const char *key, const char *value)
{
        json_object_set_new(json_object_ensure(json_object_ensure(obj, "metadata"), "annotations"),
                            key, json_string(value));
}

/* K8S setClaimProvisioner: both storage-provisioner annotations, then ExternalProvisioning
 * (the CSI provisioner is "external" to the PV controller, also flexlet's own). */
static void annotate_provisioner(struct pv_provisioner *p, const json_t *claim, const char *prov)
{
        cleanup_json json_t *copy = json_deep_copy(claim);
        cleanup_free char *msg = NULL;

        set_annotation(copy, PV_ANN_STORAGE_PROVISIONER, prov);
        set_annotation(copy, PV_ANN_BETA_STORAGE_PROVISIONER, prov);
        if (put(p, COLL_CLAIMS, copy, false, NULL) < 0)
                return;
        msg = xasprintf("Waiting for a volume to be created either by the external provisioner "
                        "'%s' or manually by the system administrator. If volume creation is "
                        "delayed, please verify that the provisioner is running and correctly "
                        "registered.",
                        prov);
        tell(p, claim, "Normal", "ExternalProvisioning", msg, PV_CONTROLLER);
}

/* K8S provisionVolumeErrorHandling with ProvisioningReschedule: the failure told, then the
 * selected node removed so that the scheduler picks one again (with a back-off here, so that a
 * node picked again is not retried at once). */
static void reschedule(struct pv_provisioner *p, const json_t *claim, const char *message)
{
        cleanup_json json_t *copy = json_deep_copy(claim);

        log_failure("provision", claim, message);
        (void) api_client_event(p->loop.client, claim, "Warning", "ProvisioningFailed", message,
                                PV_LOCAL_LOOP_PROVISIONER, NULL, NULL);
        back_off(p, claim);
        json_object_del(json_path(copy, "metadata.annotations"), PV_ANN_SELECTED_NODE);
        (void) put(p, COLL_CLAIMS, copy, false, NULL);
}

/* K8S provisionClaimOperation: the selected node must exist. 1 when it does, 0 when it does
 * not, -EIO (told, backed off) when the server cannot say. */
static int selected_node_exists(struct pv_provisioner *p, const json_t *claim, const char *node)
{
        cleanup_error struct error *err = NULL;
        cleanup_free char *path = xasprintf("/api/v1/nodes/%s", node), *msg = NULL;
        cleanup_json json_t *resp = NULL;
        long code = 0;
        int r;

        r = api_client_request(p->loop.client, "GET", path, NULL, NULL, 0, &code, &resp, &err);
        if (r >= 0 && (code == 200 || code == 404))
                return code == 200;
        msg = xasprintf("failed to get target node: %s",
                        r < 0 ? err->message
                              : json_string_value(json_object_get(resp, "message")) ?: "");
        tell(p, claim, "Warning", "ProvisioningFailed", msg, PV_LOCAL_LOOP_PROVISIONER);
        back_off(p, claim);
        return -EIO;
}

static void provision(struct pv_provisioner *p, const json_t *claim, const json_t *sc)
{
        cleanup_error struct error *err = NULL;
        cleanup_json json_t *pv = NULL, *resp = NULL;
        cleanup_free char *why = NULL, *msg = NULL, *handle = NULL, *body = NULL,
                          *key = informer_key(claim);
        const char *cls = json_path_string_or_empty(sc, "metadata.name");
        const char *node = annotation(claim, PV_ANN_SELECTED_NODE);
        int64_t bytes = 0, file_bytes = 0;
        bool local;
        long code = 0;
        int r;

        if (backing_off(p, claim))
                return;
        /* flexlet: an Immediate claim's volume goes to the node in this process (upstream's
         * node-local provisioners with immediate binding pick a node of their own) */
        if (!node)
                node = p->driver.node;
        if (!node) {
                msg = xasprintf("failed to provision volume with StorageClass \"%s\": no node to "
                                "make the volume on: the claim has no %s and no node runs with "
                                "the provisioner",
                                cls, PV_ANN_SELECTED_NODE);
                tell(p, claim, "Warning", "ProvisioningFailed", msg, PV_LOCAL_LOOP_PROVISIONER);
                back_off(p, claim);
                return;
        }
        local = p->driver.node && streq(node, p->driver.node);
        if (annotation(claim, PV_ANN_SELECTED_NODE)) {
                r = selected_node_exists(p, claim, node);
                if (r < 0)
                        return;
                if (r == 0) {
                        /* K8S: the node lister's NotFound, always ProvisioningReschedule */
                        msg = xasprintf("node \"%s\" not found", node);
                        reschedule(p, claim, msg);
                        return;
                }
        }
        why = pv_claim_refusal(claim, sc, &bytes);
        if (why) {
                msg = xasprintf("failed to provision volume with StorageClass \"%s\": %s", cls,
                                why);
                tell(p, claim, "Warning", "ProvisioningFailed", msg, PV_LOCAL_LOOP_PROVISIONER);
                back_off(p, claim);
                return;
        }
        msg = xasprintf("External provisioner is provisioning volume for claim \"%s\"", key);
        tell(p, claim, "Normal", "Provisioning", msg, PV_LOCAL_LOOP_PROVISIONER);
        handle = xasprintf("pvc-%s", json_path_string_or_empty(claim, "metadata.uid"));
        /* the node in this process makes the file now; another node makes it before its first
         * mount, of the capacity written here (rounded up as the file will be) */
        r = 0;
        if (local)
                r = p->driver.create(p->driver.ud, handle, bytes, pv_class_fstype(sc), &file_bytes,
                                     &err);
        else
                file_bytes = pv_round_up(bytes);
        if (r < 0) {
                free(msg);
                msg = xasprintf("failed to provision volume with StorageClass \"%s\": %s", cls,
                                err->message);
                if (pv_provisioning_reschedules(claim, err->errnum)) {
                        reschedule(p, claim, msg);
                        return;
                }
                log_failure("provision", claim, msg);
                (void) api_client_event(p->loop.client, claim, "Warning", "ProvisioningFailed", msg,
                                        PV_LOCAL_LOOP_PROVISIONER, NULL, NULL);
                back_off(p, claim);
                return;
        }
        fault_point("pv-provisioner-created");
        pv = pv_build_volume(claim, sc, file_bytes, node);
        if (local) /* the record a remote node writes itself (nodevol_ensure) */
                json_object_set_new(json_path(pv, "metadata.annotations"), PV_ANN_PROVISIONED_ON,
                                    json_string(node));
        body = json_dump_compact(pv);
        r = api_client_request(p->loop.client, "POST", "/api/v1/persistentvolumes",
                               "application/json", body, strlen(body), &code, &resp, NULL);
        if (r < 0 || (code != 201 && code != 409)) {
                free(msg);
                msg = xasprintf("failed to provision volume with StorageClass \"%s\": creating "
                                "PersistentVolume \"%s\": %s",
                                cls, handle,
                                r < 0 ? strerror(-r)
                                      : json_string_value(json_object_get(resp, "message")) ?: "");
                log_failure("provision", claim, msg);
                back_off(p, claim);
                return;
        }
        if (code == 201)
                informer_store(p->loop.watch, COLL_VOLUMES, resp);
        json_object_del(p->backoff, json_path_string_or_empty(claim, "metadata.uid"));
        free(msg);
        msg = xasprintf("Successfully provisioned volume %s", handle);
        tell(p, claim, "Normal", "ProvisioningSucceeded", msg, PV_LOCAL_LOOP_PROVISIONER);
}

/* K8S bind(): the volume's phase, the claim's volumeName and annotations, the claim's status
 * (capacity only when it has none: afterwards expansion owns it). */
static void bind(struct pv_provisioner *p, const json_t *claim, const json_t *pv)
{
        cleanup_json json_t *cur = json_incref((json_t *) claim);
        const char *name = json_path_string_or_empty(pv, "metadata.name");

        if (!streq(json_path_string_or_empty(pv, "status.phase"), "Bound")) {
                cleanup_json json_t *v = json_deep_copy(pv);
                json_object_set_new(json_object_ensure(v, "status"), "phase", json_string("Bound"));
                if (put(p, COLL_VOLUMES, v, true, NULL) < 0)
                        return;
        }
        if (!streq(json_path_string_or_empty(claim, "spec.volumeName"), name) ||
            !annotation(claim, PV_ANN_BIND_COMPLETED)) {
                cleanup_json json_t *c = json_deep_copy(claim);
                json_t *answer = NULL;

                if (!streq(json_path_string_or_empty(claim, "spec.volumeName"), name)) {
                        json_object_set_new(json_object_ensure(c, "spec"), "volumeName",
                                            json_string(name));
                        set_annotation(c, PV_ANN_BOUND_BY_CONTROLLER, "yes");
                }
                set_annotation(c, PV_ANN_BIND_COMPLETED, "yes");
                if (put(p, COLL_CLAIMS, c, false, &answer) < 0)
                        return;
                json_decref(cur);
                cur = answer;
        }
        if (!streq(json_path_string_or_empty(cur, "status.phase"), "Bound") ||
            !json_object_get(json_path(cur, "status.capacity"), "storage")) {
                cleanup_json json_t *c = json_deep_copy(cur);
                json_t *st = json_object_ensure(c, "status");

                json_object_set_new(st, "phase", json_string("Bound"));
                json_object_set(st, "accessModes", json_path(pv, "spec.accessModes"));
                if (!json_object_get(json_object_get(st, "capacity"), "storage"))
                        json_object_set(st, "capacity", json_path(pv, "spec.capacity"));
                (void) put(p, COLL_CLAIMS, c, true, NULL);
        }
}

static void claim_lost(struct pv_provisioner *p, const json_t *claim)
{
        cleanup_json json_t *c = json_deep_copy(claim);

        json_object_set_new(json_object_ensure(c, "status"), "phase", json_string("Lost"));
        if (put(p, COLL_CLAIMS, c, true, NULL) < 0)
                return;
        (void) api_client_event(p->loop.client, claim, "Warning", "ClaimLost",
                                "Bound claim has lost its PersistentVolume. Data on the volume is "
                                "lost!",
                                PV_CONTROLLER, NULL, NULL);
}

static void sync_claim(struct pv_provisioner *p, const json_t *claim, const json_t *volumes,
                       const json_t *classes, const json_t *pods)
{
        const char *cls = pvc_storage_class(claim) ?: "";
        const json_t *sc = *cls ? json_object_get(classes, cls) : NULL;
        const char *volume = json_path_string_or_empty(claim, "spec.volumeName");
        cleanup_free char *own =
                xasprintf("pvc-%s", json_path_string_or_empty(claim, "metadata.uid"));
        const json_t *pv = json_object_get(volumes, *volume ? volume : own);
        const char *reason = NULL;
        cleanup_free char *msg = NULL;

        switch (pv_claim_next(claim, sc, pv)) {
        case PV_CLAIM_NOTHING:
        case PV_CLAIM_STEP_MAX:
                break;
        case PV_CLAIM_CLASS_MISSING:
                msg = xasprintf("storageclass.storage.k8s.io \"%s\" not found", cls);
                tell(p, claim, "Warning", "ProvisioningFailed", msg, PV_CONTROLLER);
                break;
        case PV_CLAIM_EXTERNAL:
        case PV_CLAIM_ANNOTATE:
                annotate_provisioner(p, claim, json_path_string_or_empty(sc, "provisioner"));
                break;
        case PV_CLAIM_WAIT_CONSUMER:
                msg = pv_claim_wait_event(claim, pods, &reason);
                tell(p, claim, "Normal", reason, msg, PV_CONTROLLER);
                break;
        case PV_CLAIM_PROVISION:
                provision(p, claim, sc);
                break;
        case PV_CLAIM_BIND:
                bind(p, claim, pv);
                break;
        case PV_CLAIM_LOST:
                claim_lost(p, claim);
                break;
        }
}

static int delete_volume_object(struct pv_provisioner *p, const json_t *pv)
{
        cleanup_free char *path = object_path(pv, false);
        cleanup_json json_t *resp = NULL;
        long code = 0;
        int r;

        r = api_client_request(p->loop.client, "DELETE", path, NULL, NULL, 0, &code, &resp, NULL);
        if (r < 0)
                return r;
        return code == 200 || code == 202 || code == 404 ? 0 : -EIO;
}

/* Whether pv's file is still to be removed by the node that recorded it (nodevol_sweep drops
 * the finalizer once it did). A volume no node recorded has no file to wait for: made
 * before volumes were recorded (then its file, if any, is an orphan the sweep removes), or
 * never mounted on its remote node. */
static bool node_removes_file(const json_t *pv)
{
        return annotation(pv, PV_ANN_PROVISIONED_ON) &&
               json_array_has_string(json_path(pv, "metadata.finalizers"),
                                     PV_FINALIZER_EXTERNAL_PROVISIONER);
}

static int drop_finalizer(struct pv_provisioner *p, const json_t *pv)
{
        cleanup_json json_t *copy = json_deep_copy(pv);
        json_t *kept = json_array();
        size_t i;
        json_t *f;

        json_array_foreach(json_path(pv, "metadata.finalizers"), i, f) {
                if (!streq(json_string_value(f) ?: "", PV_FINALIZER_EXTERNAL_PROVISIONER))
                        json_array_append(kept, f);
        }
        json_object_set_new(json_object_get(copy, "metadata"), "finalizers", kept);
        return put(p, COLL_VOLUMES, copy, false, NULL);
}

static void sync_volume(struct pv_provisioner *p, const json_t *pv, const json_t *claims)
{
        cleanup_free char *key =
                xasprintf("%s/%s", json_path_string_or_empty(pv, "spec.claimRef.namespace"),
                          json_path_string_or_empty(pv, "spec.claimRef.name"));
        const json_t *claim = json_object_get(claims, key);
        cleanup_json json_t *copy = NULL;
        enum pv_volume_step step = pv_volume_next(pv, claim);

        switch (step) {
        case PV_VOLUME_NOTHING:
        case PV_VOLUME_STEP_MAX:
                break;
        case PV_VOLUME_BOUND:
        case PV_VOLUME_RELEASE:
                copy = json_deep_copy(pv);
                json_object_set_new(json_object_ensure(copy, "status"), "phase",
                                    json_string(step == PV_VOLUME_BOUND ? "Bound" : "Released"));
                (void) put(p, COLL_VOLUMES, copy, true, NULL);
                break;
        case PV_VOLUME_DELETE:
                /* external-provisioner: the volume (by its node), then the finalizer, then the
                 * object */
                if (node_removes_file(pv))
                        break;
                if (json_array_has_string(json_path(pv, "metadata.finalizers"),
                                          PV_FINALIZER_EXTERNAL_PROVISIONER) &&
                    drop_finalizer(p, pv) < 0)
                        break;
                if (delete_volume_object(p, pv) < 0)
                        log_failure("delete", pv, "the API server refused");
                break;
        case PV_VOLUME_FINALIZE:
                /* K8S (HonorPVReclaimPolicy): a deleted volume's reclaim policy still holds */
                if (streq(json_path_string_or_empty(pv, "spec.persistentVolumeReclaimPolicy"),
                          "Delete") &&
                    node_removes_file(pv))
                        break;
                (void) drop_finalizer(p, pv);
                break;
        }
}

/* Drops remembered events and back-offs of objects that are gone. */
static void forget_gone(json_t *memory, const json_t *uids)
{
        const char *key;
        json_t *v, *tmp;

        json_object_foreach_safe(memory, tmp, key, v)
        {
                const char *slash = strchr(key, '/');
                cleanup_free char *uid =
                        slash ? xstrndup(key, (size_t) (slash - key)) : xstrdup(key);
                if (!json_object_get(uids, uid))
                        json_object_del(memory, key);
        }
}

/* The files of the node in this process that no claim and no PersistentVolume name any more,
 * older than ORPHAN_AGE_S, are removed (made for a claim deleted before its volume was
 * created, or left by a crash between making the file and the PersistentVolume). */
static void sweep_orphans(struct pv_provisioner *p, const json_t *claim_uids, const json_t *volumes)
{
        cleanup_json json_t *handles = json_object();
        const char *key;
        json_t *pv;

        if (!p->driver.sweep_orphans)
                return;
        json_object_foreach((json_t *) volumes, key, pv) {
                json_object_set_new(handles, json_path_string_or_empty(pv, "spec.csi.volumeHandle"),
                                    json_true());
        }
        p->driver.sweep_orphans(p->driver.ud, handles, claim_uids, ORPHAN_AGE_S);
}

static void provision_pass(void *ctx)
{
        struct pv_provisioner *p = ctx;
        cleanup_json json_t *claims = informer_snapshot(p->loop.watch, COLL_CLAIMS);
        cleanup_json json_t *volumes = informer_snapshot(p->loop.watch, COLL_VOLUMES);
        cleanup_json json_t *classes = informer_snapshot(p->loop.watch, COLL_CLASSES);
        cleanup_json json_t *pod_map = informer_snapshot(p->loop.watch, COLL_PODS);
        cleanup_json json_t *pods = json_array(), *uids = json_object();
        const char *key;
        json_t *obj;

        json_object_foreach(pod_map, key, obj) {
                json_array_append(pods, obj);
        }
        json_object_foreach(claims, key, obj) {
                json_object_set_new(uids, json_path_string_or_empty(obj, "metadata.uid"),
                                    json_true());
                sync_claim(p, obj, volumes, classes, pods);
        }
        json_object_foreach(volumes, key, obj) {
                json_object_set_new(uids, json_path_string_or_empty(obj, "metadata.uid"),
                                    json_true());
                if (pv_is_ours(obj))
                        sync_volume(p, obj, claims);
        }
        forget_gone(p->told, uids);
        forget_gone(p->backoff, uids);
        if (time_monotonic_ms() - p->last_sweep_ms >= ORPHAN_SWEEP_MS) {
                p->last_sweep_ms = time_monotonic_ms();
                sweep_orphans(p, uids, volumes);
        }
}

static void pv_provisioner_release(void *ctx)
{
        struct pv_provisioner *p = ctx;

        json_decref(p->told);
        json_decref(p->backoff);
        free(p);
}

int pv_provisioner_start(const struct api_client_options *o, const struct pv_driver *driver,
                         struct pv_provisioner **ret, struct error **reterr)
{
        static const char *const paths[] = { "/api/v1/persistentvolumeclaims",
                                             "/api/v1/persistentvolumes",
                                             "/apis/storage.k8s.io/v1/storageclasses",
                                             "/api/v1/pods", NULL };
        static const informer_relevant_fn relevant[ARRAY_SIZE(paths) - 1] = {
                [COLL_PODS] = relevance_pod_placement
        };
        const struct controller_loop_def def = { .name = "pv-provisioner",
                                                 .paths = paths,
                                                 .relevant = relevant,
                                                 .period_ms = PASS_PERIOD_MS,
                                                 .pass = provision_pass,
                                                 .release = pv_provisioner_release };
        struct pv_provisioner *p = xcalloc(1, sizeof(*p));
        int r;

        if (driver)
                p->driver = *driver;
        p->told = json_object();
        p->backoff = json_object();
        r = controller_loop_start(o, &def, p, &p->loop, reterr);
        if (r < 0) {
                pv_provisioner_release(p);
                return r;
        }
        *ret = p;
        return 0;
}

struct pv_provisioner *pv_provisioner_stop(struct pv_provisioner *p)
{
        /* the pass thread ends after the pass it is in and frees the controller */
        if (p)
                controller_loop_stop(&p->loop);
        return NULL;
}
