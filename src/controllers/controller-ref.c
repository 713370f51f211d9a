/* controller-ref.c: claiming objects by controller reference (controller-ref.h): the decision
 * per object, as ClaimObject, and the adopt and release PATCHes. Which objects a controller
 * lists and what it does with the ones it owns are each controller's own. */
#include "controllers/controller-ref.h"

#include <string.h>

#include "api/owner.h"
#include "api/selector.h"
#include "base/alloc.h"
#include "base/json.h"

#define STRATEGIC_MERGE "application/strategic-merge-patch+json"

json_t *controller_ref_new(const char *api_version, const char *kind, const json_t *owner)
{
        return json_pack("{s:s, s:s, s:s, s:s, s:b, s:b}", "apiVersion", api_version, "kind", kind,
                         "name", json_path_string_or_empty(owner, "metadata.name"), "uid",
                         json_path_string_or_empty(owner, "metadata.uid"), "controller", 1,
                         "blockOwnerDeletion", 1);
}

/* PATCHes obj with patch (K8S: the patch is guarded by obj's uid, so a recreated object of the
 * same name is not touched); the server's answer, stored in the informer, or NULL. */
static json_t *patch_object(const struct controller_ref_manager *m, const json_t *obj,
                            json_t *patch)
{
        cleanup_error struct error *err = NULL;
        cleanup_free char *path =
                xasprintf("%s/namespaces/%s/%s/%s", m->group_path,
                          json_path_string_or_empty(obj, "metadata.namespace"), m->plural,
                          json_path_string_or_empty(obj, "metadata.name"));
        cleanup_free char *text = NULL;
        json_t *answer = NULL;
        long status = 0;

        json_object_set_new(json_object_get(patch, "metadata"), "uid",
                            json_string(json_path_string_or_empty(obj, "metadata.uid")));
        text = json_dump_compact(patch);
        json_decref(patch);
        if (api_client_request(m->loop->client, "PATCH", path, STRATEGIC_MERGE, text, strlen(text),
                               &status, &answer, &err) < 0 ||
            status < 200 || status >= 300 || !answer) {
                json_decref(answer);
                return NULL;
        }
        informer_store(m->loop->watch, m->col, answer);
        return answer;
}

json_t *controller_ref_claim(const struct controller_ref_manager *m, const json_t *objs)
{
        const char *ns = json_path_string_or_empty(m->owner, "metadata.namespace");
        const char *uid = json_path_string_or_empty(m->owner, "metadata.uid");
        const json_t *sel = json_path(m->owner, "spec.selector");
        bool deleting = json_path(m->owner, "metadata.deletionTimestamp") != NULL;
        json_t *owned = json_array(), *obj;
        const char *key;

        json_object_foreach((json_t *) objs, key, obj) {
                const json_t *ref = owner_controller_of(obj);
                bool matches, claimable;

                if (!streq(json_path_string_or_empty(obj, "metadata.namespace"), ns))
                        continue;
                if (ref && !streq(json_string_value(json_object_get(ref, "uid")) ?: "", uid))
                        continue;
                matches = m->match ? m->match(obj, m->ctx)
                                   : label_selector_object_matches(
                                             sel, json_path(obj, "metadata.labels")) == 1;
                claimable = !m->claimable || m->claimable(obj);
                if (ref) {
                        if (matches || deleting) {
                                if (claimable)
                                        json_array_append(owned, obj);
                                continue;
                        }
                        /* K8S: ReleasePod / ReleaseReplicaSet / ReleaseControllerRevision:
                         * the deleteOwnerRefStrategicMergePatch */
                        json_decref(patch_object(m, obj,
                                                 json_pack("{s:{s:[{s:s, s:s}]}}", "metadata",
                                                           "ownerReferences", "$patch", "delete",
                                                           "uid", uid)));
                        continue;
                }
                /* K8S: AdoptPod and its kin: orphans that match, not being deleted, and never
                 * by an owner being deleted */
                if (!matches || deleting || !claimable ||
                    json_path(obj, "metadata.deletionTimestamp"))
                        continue;
                {
                        json_t *answer = patch_object(
                                m, obj,
                                json_pack("{s:{s:[o]}}", "metadata", "ownerReferences",
                                          controller_ref_new(m->api_version, m->kind, m->owner)));
                        if (answer)
                                json_array_append_new(owned, answer);
                }
        }
        return owned;
}
