/* resize-report.c: the once-per-difference record behind the ResizedPods events
 * (resize-report.h). What differs is workload_pod_resize_diff's; who is told is the caller's. */
#include "controllers/resize-report.h"

#include "api/workload.h"
#include "base/alloc.h"
#include "base/json.h"

char *resize_report_pod(json_t *seen, const json_t *tmpl, const json_t *pod)
{
        const char *uid = json_path_string_or_empty(pod, "metadata.uid");
        cleanup_free char *diff = workload_pod_resize_diff(tmpl, pod);
        const json_t *last = json_object_get(seen, uid);

        if (!diff) {
                json_object_del(seen, uid);
                return NULL;
        }
        if (last && streq(json_string_value(last) ?: "", diff))
                return NULL;
        json_object_set_new(seen, uid, json_string(diff));
        return xasprintf("Pod %s runs resized in place: %s",
                         json_path_string_or_empty(pod, "metadata.name"), diff);
}

void resize_report_forget_gone(json_t *seen, const json_t *pods)
{
        cleanup_json json_t *uids = json_object();
        const char *key;
        void *tmp;
        json_t *p, *v;

        /* most passes have nothing recorded: no set of every pod's uid to build */
        if (json_object_size(seen) == 0)
                return;
        json_object_foreach((json_t *) pods, key, p) {
                json_object_set_new(uids, json_path_string_or_empty(p, "metadata.uid"),
                                    json_true());
        }
        json_object_foreach_safe(seen, tmp, key, v)
        {
                if (!json_object_get(uids, key))
                        json_object_del(seen, key);
        }
}
