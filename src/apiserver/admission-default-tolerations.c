/* admission-default-tolerations.c: the DefaultTolerationSeconds admission plugin
 * (admission-default-tolerations.h). */
#include "api/taints.h"
#include "apiserver/admission-default-tolerations.h"
#include "base/json.h"

/* K8S: the plugin's check: the toleration's key is the taint's or empty, and its effect
 * NoExecute or empty (operator and value are not looked at). */
static bool tolerates_key(const json_t *tolerations, const char *key)
{
        size_t i;
        json_t *t;

        json_array_foreach(tolerations, i, t) {
                const char *k = json_string_value(json_object_get(t, "key")) ?: "";
                const char *e = json_string_value(json_object_get(t, "effect")) ?: "";

                if ((!*k || streq(k, key)) && (!*e || streq(e, "NoExecute")))
                        return true;
        }
        return false;
}

int default_tolerations_pod_admit(enum api_subresource sub, json_t *pod)
{
        static const char *const keys[] = { TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE };
        json_t *spec = json_object_get(pod, "spec"), *tolerations;

        if (sub != API_SUB_NONE || !json_is_object(spec))
                return 0;
        tolerations = json_object_get(spec, "tolerations");
        for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
                if (tolerates_key(tolerations, keys[i]))
                        continue;
                if (!json_is_array(tolerations)) {
                        tolerations = json_array();
                        json_object_set_new(spec, "tolerations", tolerations);
                }
                json_array_append_new(tolerations,
                                      json_pack("{s:s, s:s, s:s, s:i}", "key", keys[i], "operator",
                                                "Exists", "effect", "NoExecute",
                                                "tolerationSeconds", DEFAULT_TOLERATION_SECONDS));
        }
        return 0;
}
