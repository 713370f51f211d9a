/* owner.c: reading ownerReferences (owner.h). The decisions over them (what to delete, what to
 * orphan) are the garbage collector's (controllers/garbage-collector.c). */
#include <string.h>

#include "api/owner.h"
#include "base/alloc.h"
#include "base/json.h"

const json_t *owner_controller_of(const json_t *obj)
{
        size_t i;
        json_t *ref;

        json_array_foreach(json_path(obj, "metadata.ownerReferences"), i, ref) {
                if (json_is_true(json_object_get(ref, "controller")))
                        return ref;
        }
        return NULL;
}

bool owner_references_uid(const json_t *obj, const char *uid)
{
        size_t i;
        json_t *ref;

        json_array_foreach(json_path(obj, "metadata.ownerReferences"), i, ref) {
                if (streq(json_string_value(json_object_get(ref, "uid")) ?: "", uid))
                        return true;
        }
        return false;
}

char *owner_api_group(const char *api_version)
{
        const char *slash = strchr(api_version, '/');

        return slash ? xstrndup(api_version, (size_t) (slash - api_version)) : xstrdup("");
}
