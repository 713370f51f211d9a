/* volume-binding.c: the VolumeBinding plugin's decisions (PreFilter, Filter, the claims PreBind
 * annotates, the binding check PreBind waits on) over borrowed maps of claims, volumes and
 * classes. No I/O and no state: the scheduler (scheduler.c) owns the watch, the API writes and
 * the record of the pods it waits for. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/validation.h"
#include "base/alloc.h"
#include "base/json.h"
#include "controllers/node-affinity.h"
#include "client/informer.h"
#include "controllers/pv-provisioner.h"
#include "controllers/volume-binding.h"

static const char *const conflict_text[] = {
        "node(s) had volume node affinity conflict",
        "node(s) didn't find available persistent volumes to bind",
        "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)",
};

const char *vb_conflict_to_string(unsigned bit)
{
        for (size_t i = 0; i < ARRAY_SIZE(conflict_text); i++)
                if (bit == 1u << i)
                        return conflict_text[i];
        return NULL;
}

static const char *annotation(const json_t *obj, const char *key)
{
        return json_string_value(json_object_get(json_path(obj, "metadata.annotations"), key));
}

char *vb_volume_claim_name(const json_t *pod, const json_t *volume, bool *ret_ephemeral)
{
        const char *claim = json_path_string(volume, "persistentVolumeClaim.claimName");

        *ret_ephemeral = false;
        if (claim)
                return xstrdup(claim);
        if (!json_is_object(json_object_get(volume, "ephemeral")))
                return NULL;
        /* K8S: ephemeral.VolumeClaimName: "<pod name>-<volume name>" */
        *ret_ephemeral = true;
        return xasprintf("%s-%s", json_path_string_or_empty(pod, "metadata.name"),
                         json_path_string_or_empty(volume, "name"));
}

bool vb_claim_fully_bound(const json_t *claim)
{
        return *json_path_string_or_empty(claim, "spec.volumeName") &&
               annotation(claim, PV_ANN_BIND_COMPLETED) != NULL;
}

static const json_t *find_claim(const json_t *pod, const char *name, const struct vb_objects *o)
{
        cleanup_free char *key =
                xasprintf("%s/%s", json_path_string_or_empty(pod, "metadata.namespace"), name);
        return json_object_get(o->claims, key);
}

/* K8S: metav1.IsControlledBy(pvc, pod): an owner reference with controller true and the pod's
 * uid. */
static bool controlled_by(const json_t *claim, const json_t *pod)
{
        const char *uid = json_path_string_or_empty(pod, "metadata.uid");
        size_t i;
        json_t *ref;

        json_array_foreach(json_path(claim, "metadata.ownerReferences"), i, ref) {
                if (json_is_true(json_object_get(ref, "controller")) &&
                    streq(json_string_value(json_object_get(ref, "uid")) ?: "", uid))
                        return *uid != '\0';
        }
        return false;
}

/* K8S: volume.IsDelayBindingMode: the claim's class exists and says WaitForFirstConsumer. */
static bool delay_binding(const json_t *claim, const struct vb_objects *o)
{
        const char *cls = pvc_storage_class(claim) ?: "";
        const json_t *sc = *cls ? json_object_get(o->classes, cls) : NULL;

        return sc &&
               streq(json_path_string_or_empty(sc, "volumeBindingMode"), "WaitForFirstConsumer");
}

/* A claim of the pod that binding must still act on: unbound, delayed, not pre-bound. */
static bool unbound_delayed(const json_t *claim, const struct vb_objects *o)
{
        return !vb_claim_fully_bound(claim) && delay_binding(claim, o) &&
               !*json_path_string_or_empty(claim, "spec.volumeName");
}

/* K8S podHasPVCs: the first volume whose claim cannot be used, in upstream's words. */
static char *claim_problem(const json_t *pod, const json_t *volume, const struct vb_objects *o)
{
        bool ephemeral = false;
        cleanup_free char *name = vb_volume_claim_name(pod, volume, &ephemeral);
        const json_t *claim;

        if (!name)
                return NULL;
        claim = find_claim(pod, name, o);
        if (!claim) {
                if (ephemeral)
                        return xasprintf("waiting for ephemeral volume controller to create the "
                                         "persistentvolumeclaim \"%s\"",
                                         name);
                return xasprintf("persistentvolumeclaim \"%s\" not found", name);
        }
        if (streq(json_path_string_or_empty(claim, "status.phase"), "Lost"))
                return xasprintf("persistentvolumeclaim \"%s\" bound to non-existent "
                                 "persistentvolume \"%s\"",
                                 name, json_path_string_or_empty(claim, "spec.volumeName"));
        if (json_path(claim, "metadata.deletionTimestamp"))
                return xasprintf("persistentvolumeclaim \"%s\" is being deleted", name);
        if (ephemeral && !controlled_by(claim, pod))
                return xasprintf("PVC %s/%s was not created for pod %s/%s (pod is not owner)",
                                 json_path_string_or_empty(claim, "metadata.namespace"), name,
                                 json_path_string_or_empty(pod, "metadata.namespace"),
                                 json_path_string_or_empty(pod, "metadata.name"));
        return NULL;
}

/* Calls fn for each claim of the pod's volumes that exists; stops when it returns non-zero. */
typedef int (*claim_fn)(const json_t *claim, void *ud);
static int foreach_claim(const json_t *pod, const struct vb_objects *o, claim_fn fn, void *ud)
{
        size_t i;
        json_t *v;

        json_array_foreach(json_path(pod, "spec.volumes"), i, v) {
                bool ephemeral;
                cleanup_free char *name = vb_volume_claim_name(pod, v, &ephemeral);
                const json_t *claim = name ? find_claim(pod, name, o) : NULL;
                int r;

                if (!claim)
                        continue;
                r = fn(claim, ud);
                if (r)
                        return r;
        }
        return 0;
}

struct prefilter_ctx {
        const struct vb_objects *o;
};

static int immediate_unbound(const json_t *claim, void *ud)
{
        const struct prefilter_ctx *c = ud;

        /* K8S GetPodVolumeClaims: pre-bound claims count as unbound immediate ones */
        return !vb_claim_fully_bound(claim) && !unbound_delayed(claim, c->o);
}

char *volume_binding_prefilter(const json_t *pod, const struct vb_objects *o)
{
        struct prefilter_ctx c = { .o = o };
        size_t i;
        json_t *v;

        json_array_foreach(json_path(pod, "spec.volumes"), i, v) {
                char *why = claim_problem(pod, v, o);
                if (why)
                        return why;
        }
        if (foreach_claim(pod, o, immediate_unbound, &c))
                return xstrdup("pod has unbound immediate PersistentVolumeClaims");
        return NULL;
}

struct filter_ctx {
        const json_t *node;
        const struct vb_objects *o;
        const char *node_name;
        unsigned conflicts;
        bool bound_done, selected_mismatch;
};

/* K8S checkBoundClaims: stops at the first missing volume or affinity mismatch. */
static int check_bound(const json_t *claim, void *ud)
{
        struct filter_ctx *c = ud;
        const json_t *pv;

        if (!vb_claim_fully_bound(claim))
                return 0;
        pv = json_object_get(c->o->volumes, json_path_string_or_empty(claim, "spec.volumeName"));
        if (!pv) {
                c->conflicts |= VB_PV_NOT_EXIST;
                return 1;
        }
        if (!pv_node_affinity_matches(pv, c->node)) {
                c->conflicts |= VB_NODE_CONFLICT;
                return 1;
        }
        return 0;
}

/* K8S FindPodVolumes' fast path: a claim provisioned for another node. */
static int check_selected(const json_t *claim, void *ud)
{
        struct filter_ctx *c = ud;
        const char *selected;

        if (!unbound_delayed(claim, c->o))
                return 0;
        selected = annotation(claim, PV_ANN_SELECTED_NODE);
        return selected && !streq(selected, c->node_name);
}

/* K8S checkVolumeProvisions: a class that provisions, on a node of its allowedTopologies. (No
 * CSIStorageCapacity here: the local-loop driver publishes none, so capacity is not checked.) */
static int check_provision(const json_t *claim, void *ud)
{
        struct filter_ctx *c = ud;
        const json_t *sc;
        const char *provisioner;

        if (!unbound_delayed(claim, c->o))
                return 0;
        sc = json_object_get(c->o->classes, pvc_storage_class(claim) ?: "");
        provisioner = json_path_string_or_empty(sc, "provisioner");
        if (!*provisioner || streq(provisioner, PV_NO_PROVISIONER))
                return 1;
        return !topology_terms_match(json_object_get(sc, "allowedTopologies"), c->node);
}

unsigned volume_binding_filter(const json_t *pod, const json_t *node, const struct vb_objects *o)
{
        struct filter_ctx c = {
                .node = node,
                .o = o,
                .node_name = json_path_string_or_empty(node, "metadata.name"),
        };

        (void) foreach_claim(pod, o, check_bound, &c);
        if (foreach_claim(pod, o, check_selected, &c) || foreach_claim(pod, o, check_provision, &c))
                c.conflicts |= VB_BIND_CONFLICT;
        return c.conflicts;
}

struct provision_ctx {
        const struct vb_objects *o;
        json_t *names;
};

static int add_to_provision(const json_t *claim, void *ud)
{
        struct provision_ctx *c = ud;

        if (unbound_delayed(claim, c->o))
                json_array_append_new(
                        c->names, json_string(json_path_string_or_empty(claim, "metadata.name")));
        return 0;
}

json_t *volume_binding_claims_to_provision(const json_t *pod, const struct vb_objects *o)
{
        struct provision_ctx c = { .o = o, .names = json_array() };

        (void) foreach_claim(pod, o, add_to_provision, &c);
        return c.names;
}

int volume_binding_check(const json_t *pod, const char *node_name, const json_t *node,
                         const json_t *claims, const struct vb_objects *o, char **ret_error)
{
        const char *name;
        json_t *rv;

        if (!node) {
                *ret_error = xasprintf("failed to get node \"%s\": node \"%s\" not found",
                                       node_name, node_name);
                return -1;
        }
        json_object_foreach((json_t *) claims, name, rv) {
                const json_t *claim = find_claim(pod, name, o);
                const char *volume;
                const json_t *pv;

                if (!claim) {
                        *ret_error = xasprintf("failed to check provisioning pvc: could not find "
                                               "v1.PersistentVolumeClaim \"%s/%s\"",
                                               json_path_string_or_empty(pod, "metadata.namespace"),
                                               name);
                        return -1;
                }
                if (informer_object_version(claim) < (unsigned long long) json_integer_value(rv))
                        return 0;
                /* K8S: the provisioner removes selected-node to ask for another node */
                if (!streq(annotation(claim, PV_ANN_SELECTED_NODE) ?: "", node_name)) {
                        *ret_error = xasprintf("provisioning failed for PVC \"%s\"", name);
                        return -1;
                }
                volume = json_path_string_or_empty(claim, "spec.volumeName");
                if (*volume) {
                        pv = json_object_get(o->volumes, volume);
                        if (!pv)
                                return 0; /* not seen yet, or unbound soon */
                        if (!pv_node_affinity_matches(pv, node)) {
                                *ret_error = xasprintf("pv \"%s\" node affinity doesn't match "
                                                       "node \"%s\": no matching "
                                                       "NodeSelectorTerms",
                                                       volume, node_name);
                                return -1;
                        }
                }
                if (!vb_claim_fully_bound(claim))
                        return 0;
        }
        return 1;
}
