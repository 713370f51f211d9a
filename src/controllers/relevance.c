/* relevance.c: the informer predicates of relevance.h. They run under the informers' lock for
 * every event: they compare members in place (json_path, json_equal) and allocate nothing. */
#include "controllers/relevance.h"

#include "api/pdb.h"
#include "base/json.h"

/* Whether the member at dotted path differs between old and new (absent on one side only
 * differs). */
static bool differs(const json_t *old, const json_t *new, const char *path)
{
        const json_t *a = json_path(old, path), *b = json_path(new, path);

        return a || b ? !a || !b || !json_equal(a, b) : false;
}

/* Whether any of the NULL-terminated paths differs. */
static bool any_differs(const json_t *old, const json_t *new, const char *const *paths)
{
        for (; *paths; paths++)
                if (differs(old, new, *paths))
                        return true;
        return false;
}

bool relevance_ownership(const json_t *old, const json_t *new)
{
        static const char *const paths[] = { "metadata.ownerReferences", "metadata.finalizers",
                                             "metadata.deletionTimestamp", NULL };

        return !old || !new || any_differs(old, new, paths);
}

bool relevance_pod_placement(const json_t *old, const json_t *new)
{
        static const char *const paths[] = { "spec.nodeName",
                                             "spec.volumes",
                                             "spec.tolerations",
                                             "status.phase",
                                             "metadata.deletionTimestamp",
                                             "metadata.deletionGracePeriodSeconds",
                                             NULL };

        return !old || !new || any_differs(old, new, paths);
}

/* The conditions an in-place resize sets and clears (K8S: PodResizePending,
 * PodResizeInProgress). */
static bool resize_condition(const json_t *c)
{
        const char *type = json_string_value(json_object_get(c, "type")) ?: "";

        return streq(type, "PodResizePending") || streq(type, "PodResizeInProgress");
}

/* The next condition of conds at or after *i that is not a resize's (NULL: none left). */
static const json_t *next_condition(const json_t *conds, size_t *i)
{
        for (; *i < json_array_size(conds); (*i)++)
                if (!resize_condition(json_array_get(conds, *i)))
                        return json_array_get(conds, (*i)++);
        return NULL;
}

/* Whether the conditions of old and new differ in anything but a resize's. */
static bool conditions_differ_but_resize(const json_t *old, const json_t *new)
{
        const json_t *a = json_path(old, "status.conditions"),
                     *b = json_path(new, "status.conditions");
        size_t i = 0, j = 0;

        for (;;) {
                const json_t *ca = next_condition(a, &i), *cb = next_condition(b, &j);

                if (!ca || !cb)
                        return ca || cb;
                if (!json_equal(ca, cb))
                        return true;
        }
}

/* Whether the container statuses at path differ in their number or, status by status, in one
 * of members (NULL-terminated). */
static bool container_members_differ(const json_t *old, const json_t *new, const char *path,
                                     const char *const *members)
{
        const json_t *a = json_path(old, path), *b = json_path(new, path);

        if (json_array_size(a) != json_array_size(b))
                return true;
        for (size_t i = 0; i < json_array_size(a); i++)
                if (any_differs(json_array_get(a, i), json_array_get(b, i), members))
                        return true;
        return false;
}

bool relevance_pod_job(const json_t *old, const json_t *new)
{
        static const char *const paths[] = { "metadata.labels",
                                             "metadata.annotations",
                                             "metadata.finalizers",
                                             "metadata.ownerReferences",
                                             "metadata.deletionTimestamp",
                                             "status.phase",
                                             NULL };
        /* the containers' exit codes are their states' */
        static const char *const progress[] = { "name", "restartCount", "state", NULL };

        if (!old || !new || any_differs(old, new, paths))
                return true;
        if (streq(json_path_string_or_empty(new, "status.phase"), "Failed")
                    ? differs(old, new, "status.conditions")
                    : conditions_differ_but_resize(old, new))
                return true;
        return container_members_differ(old, new, "status.containerStatuses", progress) ||
               container_members_differ(old, new, "status.initContainerStatuses", progress);
}

/* Whether a and b (objects, or anything else compared whole) differ in a member not named in
 * skip (NULL-terminated). */
static bool differs_but(const json_t *a, const json_t *b, const char *const *skip)
{
        const char *key;
        json_t *v;

        if (!json_is_object(a) || !json_is_object(b))
                return a || b ? !a || !b || !json_equal(a, b) : false;
        json_object_foreach((json_t *) a, key, v) {
                const json_t *w = json_object_get(b, key);
                const char *const *s;

                for (s = skip; *s && !streq(*s, key); s++)
                        ;
                if (!*s && (!w || !json_equal(v, w)))
                        return true;
        }
        json_object_foreach((json_t *) b, key, v) {
                const char *const *s;

                for (s = skip; *s && !streq(*s, key); s++)
                        ;
                if (!*s && !json_object_get(a, key))
                        return true;
        }
        return false;
}

/* Whether the arrays at path differ in their length or, item by item, in a member not named in
 * skip. */
static bool items_differ_but(const json_t *old, const json_t *new, const char *path,
                             const char *const *skip)
{
        const json_t *a = json_path(old, path), *b = json_path(new, path);

        if (!json_is_array(a) || !json_is_array(b))
                return differs(old, new, path);
        if (json_array_size(a) != json_array_size(b))
                return true;
        for (size_t i = 0; i < json_array_size(a); i++)
                if (differs_but(json_array_get(a, i), json_array_get(b, i), skip))
                        return true;
        return false;
}

bool relevance_pod_workload(const json_t *old, const json_t *new)
{
        static const char *const top[] = { "metadata", "spec", "status", NULL };
        static const char *const meta[] = { "resourceVersion", "generation", "managedFields",
                                            NULL };
        static const char *const spec[] = { "containers", "initContainers", NULL };
        static const char *const container[] = { "resources", NULL };
        static const char *const status[] = { "resize",
                                              "observedGeneration",
                                              "conditions",
                                              "containerStatuses",
                                              "initContainerStatuses",
                                              NULL };
        static const char *const container_status[] = { "allocatedResources", NULL };

        return !old || !new || differs_but(old, new, top) ||
               differs_but(json_object_get(old, "metadata"), json_object_get(new, "metadata"),
                           meta) ||
               differs_but(json_object_get(old, "spec"), json_object_get(new, "spec"), spec) ||
               items_differ_but(old, new, "spec.containers", container) ||
               items_differ_but(old, new, "spec.initContainers", container) ||
               differs_but(json_object_get(old, "status"), json_object_get(new, "status"),
                           status) ||
               conditions_differ_but_resize(old, new) ||
               items_differ_but(old, new, "status.containerStatuses", container_status) ||
               items_differ_but(old, new, "status.initContainerStatuses", container_status);
}

bool relevance_pod_scheduling(const json_t *old, const json_t *new)
{
        static const char *const top[] = { "metadata", "status", NULL };
        static const char *const meta[] = { "resourceVersion", "generation", "managedFields",
                                            NULL };
        static const char *const status[] = { "conditions",
                                              "resize",
                                              "observedGeneration",
                                              "containerStatuses",
                                              "initContainerStatuses",
                                              NULL };
        static const char *const container_status[] = { "name", "allocatedResources", NULL };

        if (!old || !new || !*json_path_string_or_empty(old, "spec.nodeName") ||
            !*json_path_string_or_empty(new, "spec.nodeName"))
                return true;
        return differs_but(old, new, top) ||
               differs_but(json_object_get(old, "metadata"), json_object_get(new, "metadata"),
                           meta) ||
               differs_but(json_object_get(old, "status"), json_object_get(new, "status"),
                           status) ||
               container_members_differ(old, new, "status.containerStatuses", container_status) ||
               container_members_differ(old, new, "status.initContainerStatuses", container_status);
}

bool relevance_scale(const json_t *old, const json_t *new)
{
        static const char *const paths[] = { "spec.replicas", "metadata.ownerReferences", NULL };

        return !old || !new || any_differs(old, new, paths);
}

bool relevance_pod_disruption(const json_t *old, const json_t *new)
{
        static const char *const paths[] = { "metadata.labels", "metadata.ownerReferences",
                                             "metadata.deletionTimestamp", NULL };

        return !old || !new || any_differs(old, new, paths) ||
               pdb_pod_ready(old) != pdb_pod_ready(new);
}
