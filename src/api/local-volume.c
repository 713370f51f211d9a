/* local-volume.c: a local-loop volume's node and backing file (local-volume.h). */
#include <string.h>

#include "api/local-volume.h"
#include "base/alloc.h"
#include "base/json.h"
#include "base/macro.h"

bool local_volume_pinned_to(const json_t *pv, const char *node)
{
        const json_t *terms = json_path(pv, "spec.nodeAffinity.required.nodeSelectorTerms");
        const json_t *term = json_array_get(terms, 0);
        const json_t *exprs = json_object_get(term, "matchExpressions");
        const json_t *e = json_array_get(exprs, 0);
        const json_t *values = json_object_get(e, "values");

        return node && *node && json_array_size(terms) == 1 && json_array_size(exprs) == 1 &&
               json_object_size(term) == 1 &&
               streq(json_path_string(e, "key") ?: "", "kubernetes.io/hostname") &&
               streq(json_path_string(e, "operator") ?: "", "In") && json_array_size(values) == 1 &&
               streq(json_string_value(json_array_get(values, 0)) ?: "", node);
}

char *local_volume_file(const char *data_dir, const char *handle)
{
        size_t n = handle ? strlen(handle) : 0;

        if (n == 0 || n > 253 || handle[0] == '.')
                return NULL;
        for (size_t i = 0; i < n; i++) {
                char ch = handle[i];
                if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-' ||
                      ch == '.'))
                        return NULL;
        }
        return xasprintf("%s/volumes/%s.img", data_dir, handle);
}
