/* statefulset.c: the identity rules of a StatefulSet's pods and claims (statefulset.h): names,
 * labels, claims, revision data and the claims' ownerReferences. The controller that acts on
 * them is controllers/statefulset.c. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/statefulset.h"
#include "api/workload.h"
#include "base/alloc.h"
#include "base/json.h"

int statefulset_parse_pod_name(const char *name, char **ret_parent, int *ret_ordinal)
{
        const char *dash = name ? strrchr(name, '-') : NULL;
        long long v = 0;

        /* K8S: statefulPodRegex "(.*)-([0-9]+)$", the ordinal parsed as an int32 */
        if (!dash || !dash[1])
                return -EINVAL;
        for (const char *p = dash + 1; *p; p++) {
                if (*p < '0' || *p > '9')
                        return -EINVAL;
                v = v * 10 + (*p - '0');
                if (v > INT32_MAX)
                        return -EINVAL;
        }
        *ret_parent = xstrndup(name, (size_t) (dash - name));
        *ret_ordinal = (int) v;
        return 0;
}

int statefulset_pod_ordinal(const json_t *sts, const json_t *pod)
{
        cleanup_free char *parent = NULL;
        int ordinal;

        if (statefulset_parse_pod_name(json_path_string(pod, "metadata.name"), &parent, &ordinal) <
            0)
                return -1;
        /* K8S: isMemberOf: the parent's name is the set's */
        if (!streq(parent, json_path_string_or_empty(sts, "metadata.name")))
                return -1;
        return ordinal;
}

int statefulset_start_ordinal(const json_t *sts)
{
        const json_t *s = json_path(sts, "spec.ordinals.start");

        return json_is_integer(s) ? (int) json_integer_value(s) : 0;
}

bool statefulset_ordinal_in_range(const json_t *sts, int ordinal)
{
        const json_t *r = json_path(sts, "spec.replicas");
        long long replicas = json_is_integer(r) ? json_integer_value(r) : 1;
        int start = statefulset_start_ordinal(sts);

        return ordinal >= start && (long long) ordinal < (long long) start + replicas;
}

char *statefulset_pod_name(const char *set, int ordinal)
{
        return xasprintf("%s-%d", set, ordinal);
}

char *statefulset_claim_name(const char *tmpl, const char *set, int ordinal)
{
        return xasprintf("%s-%s-%d", tmpl, set, ordinal);
}

bool statefulset_identity_matches(const json_t *sts, const json_t *pod)
{
        const char *set = json_path_string_or_empty(sts, "metadata.name");
        const char *name = json_path_string_or_empty(pod, "metadata.name");
        const json_t *labels = json_path(pod, "metadata.labels");
        int ordinal = statefulset_pod_ordinal(sts, pod);
        cleanup_free char *want = NULL;

        if (ordinal < 0)
                return false;
        want = statefulset_pod_name(set, ordinal);
        return streq(name, want) &&
               streq(json_path_string_or_empty(pod, "metadata.namespace"),
                     json_path_string_or_empty(sts, "metadata.namespace")) &&
               streq(json_string_value(json_object_get(labels, STS_POD_NAME_LABEL)) ?: "", name);
}

static const json_t *volume_named(const json_t *pod, const char *name)
{
        size_t i;
        json_t *v;

        json_array_foreach(json_path(pod, "spec.volumes"), i, v) {
                if (streq(json_string_value(json_object_get(v, "name")) ?: "", name))
                        return v;
        }
        return NULL;
}

bool statefulset_storage_matches(const json_t *sts, const json_t *pod)
{
        const char *set = json_path_string_or_empty(sts, "metadata.name");
        int ordinal = statefulset_pod_ordinal(sts, pod);
        size_t i;
        json_t *tpl;

        if (ordinal < 0)
                return false;
        json_array_foreach(json_path(sts, "spec.volumeClaimTemplates"), i, tpl) {
                const char *tn = json_path_string_or_empty(tpl, "metadata.name");
                const json_t *vol = volume_named(pod, tn);
                cleanup_free char *want = statefulset_claim_name(tn, set, ordinal);

                if (!vol ||
                    !streq(json_path_string_or_empty(vol, "persistentVolumeClaim.claimName"), want))
                        return false;
        }
        return true;
}

json_t *statefulset_claims(const json_t *sts, int ordinal)
{
        const char *set = json_path_string_or_empty(sts, "metadata.name");
        const json_t *match = json_path(sts, "spec.selector.matchLabels");
        json_t *out = json_object(), *tpl;
        size_t i;

        json_array_foreach(json_path(sts, "spec.volumeClaimTemplates"), i, tpl) {
                const char *tn = json_path_string_or_empty(tpl, "metadata.name");
                cleanup_free char *name = statefulset_claim_name(tn, set, ordinal);
                json_t *claim = json_deep_copy(tpl);
                json_t *meta = json_object_ensure(claim, "metadata");
                json_t *labels = json_object_ensure(meta, "labels");

                json_object_del(claim, "status");
                json_object_set_new(claim, "apiVersion", json_string("v1"));
                json_object_set_new(claim, "kind", json_string("PersistentVolumeClaim"));
                json_object_set_new(meta, "name", json_string(name));
                json_object_set(meta, "namespace", json_path(sts, "metadata.namespace"));
                if (json_is_object(match))
                        json_object_update(labels, (json_t *) match);
                json_object_set_new(out, tn, claim);
        }
        return out;
}

static json_t *controller_ref(const char *api_version, const char *kind, const json_t *owner)
{
        return json_pack("{s:s, s:s, s:s, s:s, s:b, s:b}", "apiVersion", api_version, "kind", kind,
                         "name", json_path_string_or_empty(owner, "metadata.name"), "uid",
                         json_path_string_or_empty(owner, "metadata.uid"), "controller", 1,
                         "blockOwnerDeletion", 1);
}

json_t *statefulset_new_pod(const json_t *sts, const json_t *tmpl, int ordinal,
                            const char *revision)
{
        const char *set = json_path_string_or_empty(sts, "metadata.name");
        const char *service = json_path_string(sts, "spec.serviceName");
        cleanup_free char *name = statefulset_pod_name(set, ordinal);
        cleanup_json json_t *claims = statefulset_claims(sts, ordinal);
        json_t *meta, *labels, *spec, *volumes, *pod, *v, *claim;
        const char *tn;
        size_t i;

        /* K8S: GetPodFromTemplate: the template's labels, annotations and finalizers, its spec,
         * the controller reference */
        meta = json_pack("{s:s, s:O, s:[o]}", "name", name, "namespace",
                         json_path(sts, "metadata.namespace") ?: json_string(""), "ownerReferences",
                         controller_ref("apps/v1", "StatefulSet", sts));
        labels = json_deep_copy(json_path(tmpl, "metadata.labels") ?: json_object());
        if (json_path(tmpl, "metadata.annotations"))
                json_object_set(meta, "annotations", json_path(tmpl, "metadata.annotations"));
        if (json_path(tmpl, "metadata.finalizers"))
                json_object_set(meta, "finalizers", json_path(tmpl, "metadata.finalizers"));
        /* K8S: initIdentity / updateIdentity (PodIndexLabel is on since 1.32), setPodRevision */
        json_object_set_new(labels, STS_POD_NAME_LABEL, json_string(name));
        json_object_set_new(labels, STS_POD_INDEX_LABEL, json_sprintf("%d", ordinal));
        if (revision)
                json_object_set_new(labels, STS_REVISION_LABEL, json_string(revision));
        json_object_set_new(meta, "labels", labels);
        spec = json_deep_copy(json_path(tmpl, "spec") ?: json_object());
        json_object_set_new(spec, "hostname", json_string(name));
        if (service && service[0])
                json_object_set_new(spec, "subdomain", json_string(service));
        /* K8S: updateStorage: the claims' volumes, then the template's others */
        volumes = json_array();
        json_object_foreach(claims, tn, claim) {
                json_array_append_new(volumes,
                                      json_pack("{s:s, s:{s:s}}", "name", tn,
                                                "persistentVolumeClaim", "claimName",
                                                json_path_string_or_empty(claim, "metadata.name")));
        }
        json_array_foreach(json_object_get(spec, "volumes"), i, v) {
                if (!json_object_get(claims, json_string_value(json_object_get(v, "name")) ?: ""))
                        json_array_append(volumes, v);
        }
        if (json_array_size(volumes))
                json_object_set_new(spec, "volumes", volumes);
        else
                json_decref(volumes);
        pod = json_pack("{s:s, s:s, s:o, s:o}", "apiVersion", "v1", "kind", "Pod", "metadata", meta,
                        "spec", spec);
        return pod;
}

json_t *statefulset_revision_data(const json_t *sts)
{
        json_t *tmpl = json_deep_copy(json_path(sts, "spec.template") ?: json_object());

        json_object_set_new(tmpl, "$patch", json_string("replace"));
        return json_pack("{s:{s:o}}", "spec", "template", tmpl);
}

json_t *statefulset_revision_template(const json_t *data)
{
        const json_t *t = json_path(data, "spec.template");
        json_t *out;

        if (!json_is_object(t))
                return NULL;
        out = json_deep_copy(t);
        json_object_del(out, "$patch");
        return out;
}

char *statefulset_revision_name(const char *set, const json_t *data, const int32_t *collision_count)
{
        cleanup_free char *hash = workload_template_hash(data, collision_count);

        /* K8S: ControllerRevisionName: the prefix cut to 223 so the name stays a subdomain */
        return xasprintf("%.223s-%s", set, hash);
}

/* K8S: matchesRef: the reference names obj by apiVersion, kind and name (any uid). */
static bool ref_names(const json_t *ref, const char *api_version, const char *kind,
                      const json_t *obj)
{
        return streq(json_string_value(json_object_get(ref, "apiVersion")) ?: "", api_version) &&
               streq(json_string_value(json_object_get(ref, "kind")) ?: "", kind) &&
               streq(json_string_value(json_object_get(ref, "name")) ?: "",
                     json_path_string_or_empty(obj, "metadata.name"));
}

static bool ref_is(const json_t *ref, const json_t *obj)
{
        return streq(json_string_value(json_object_get(ref, "uid")) ?: "",
                     json_path_string_or_empty(obj, "metadata.uid"));
}

json_t *statefulset_claim_owner_refs(const json_t *claim, const json_t *sts, const json_t *pod)
{
        const json_t *refs = json_path(claim, "metadata.ownerReferences");
        const char *when_deleted =
                json_path_string(sts, "spec.persistentVolumeClaimRetentionPolicy.whenDeleted");
        const char *when_scaled =
                json_path_string(sts, "spec.persistentVolumeClaimRetentionPolicy.whenScaled");
        bool del_deleted = when_deleted && streq(when_deleted, "Delete");
        bool del_scaled = when_scaled && streq(when_scaled, "Delete");
        bool scaled_down = !statefulset_ordinal_in_range(sts, statefulset_pod_ordinal(sts, pod));
        bool unexpected = false;
        json_t *out = json_array(), *ref;
        size_t i;

        json_array_foreach(refs, i, ref) {
                bool names_set = ref_names(ref, "apps/v1", "StatefulSet", sts);
                bool names_pod = ref_names(ref, "v1", "Pod", pod);

                /* K8S: hasStaleOwnerRef: an earlier set's or pod's claim is not touched */
                if ((names_set && !ref_is(ref, sts)) || (names_pod && !ref_is(ref, pod))) {
                        json_decref(out);
                        return json_deep_copy(refs);
                }
                if (names_set || names_pod)
                        continue; /* scrubbed, added back below as the policy says */
                /* K8S: hasUnexpectedController, which Retain/Retain does not look for */
                if ((del_deleted || del_scaled) && json_is_true(json_object_get(ref, "controller")))
                        unexpected = true;
                json_array_append(out, ref);
        }
        if (unexpected)
                return out;
        if (del_scaled && scaled_down)
                json_array_append_new(out, controller_ref("v1", "Pod", pod));
        else if (del_deleted)
                json_array_append_new(out, controller_ref("apps/v1", "StatefulSet", sts));
        return out;
}
