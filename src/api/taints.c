/* taints.c: how tolerations meet taints (taints.h). */
#include "api/taints.h"
#include "base/json.h"

static const char *field(const json_t *o, const char *key)
{
        return json_string_value(json_object_get(o, key)) ?: "";
}

bool toleration_tolerates(const json_t *toleration, const json_t *taint)
{
        const char *effect = field(toleration, "effect"), *key = field(toleration, "key");
        const char *op = field(toleration, "operator");

        if (*effect && !streq(effect, field(taint, "effect")))
                return false;
        if (*key && !streq(key, field(taint, "key")))
                return false;
        /* K8S: an empty key with Exists matches every key; with Equal validation forbids it */
        if (streq(op, "Exists"))
                return true;
        if (!*op || streq(op, "Equal"))
                return streq(field(toleration, "value"), field(taint, "value"));
        return false;
}

const json_t *taint_toleration(const json_t *taint, const json_t *tolerations)
{
        size_t i;
        json_t *t;

        json_array_foreach(tolerations, i, t) {
                if (toleration_tolerates(t, taint))
                        return t;
        }
        return NULL;
}

const json_t *taint_untolerated(const json_t *taints, const json_t *tolerations)
{
        size_t i;
        json_t *t;

        json_array_foreach(taints, i, t) {
                const char *effect = field(t, "effect");

                if ((streq(effect, "NoSchedule") || streq(effect, "NoExecute")) &&
                    !taint_toleration(t, tolerations))
                        return t;
        }
        return NULL;
}
