/* expectations.c: ControllerExpectations (expectations.h) over a JSON object: the pod keys one
 * sync of an owner created and deleted, checked against the informer's next snapshot. It decides
 * nothing about which pods to make; the ReplicaSet and DaemonSet controllers do. */
#include "controllers/expectations.h"

#include "base/json.h"

bool expectations_met(json_t *set, const char *key, const json_t *pods, time_t now)
{
        json_t *e = json_object_get(set, key), *v;
        size_t i;

        if (!e)
                return true;
        if (now >= (time_t) json_integer_value(json_object_get(e, "until"))) {
                json_object_del(set, key);
                return true;
        }
        json_array_foreach(json_object_get(e, "add"), i, v) {
                if (!json_object_get(pods, json_string_value(v)))
                        return false;
        }
        json_array_foreach(json_object_get(e, "del"), i, v) {
                const json_t *pod = json_object_get(pods, json_string_value(v));
                if (pod && !json_path(pod, "metadata.deletionTimestamp"))
                        return false;
        }
        json_object_del(set, key);
        return true;
}

static json_t *entry(json_t *set, const char *key, time_t now)
{
        json_t *e = json_object_get(set, key);

        if (e)
                return e;
        e = json_pack("{s:[], s:[], s:I}", "add", "del", "until",
                      (json_int_t) (now + EXPECTATIONS_TIMEOUT_S));
        json_object_set_new(set, key, e);
        return e;
}

void expectations_expect_add(json_t *set, const char *key, const char *pod_key, time_t now)
{
        json_array_append_new(json_object_get(entry(set, key, now), "add"), json_string(pod_key));
}

void expectations_expect_del(json_t *set, const char *key, const char *pod_key, time_t now)
{
        json_array_append_new(json_object_get(entry(set, key, now), "del"), json_string(pod_key));
}

void expectations_forget_gone(json_t *set, const json_t *owners)
{
        const char *key;
        void *tmp;
        json_t *e;

        json_object_foreach_safe(set, tmp, key, e)
        {
                if (!json_object_get(owners, key))
                        json_object_del(set, key);
        }
}
