/* pdb.c: the DisruptionAllowed condition of a PodDisruptionBudget and pod readiness, as
 * upstream's poddisruptionbudget helpers write and read them. The arithmetic of the budget is
 * the disruption controller's (controllers/disruption.c); the check at eviction is the API
 * server's (apiserver/eviction.c). */
#include <string.h>

#include "api/pdb.h"
#include "base/json.h"
#include "base/macro.h"

void pdb_set_condition(json_t *status, const char *type, const char *cond_status,
                       const char *reason, const char *message, long long observed_generation,
                       const char *now)
{
        json_t *conds = json_object_get(status, "conditions");
        json_t *c = NULL, *it;
        size_t i;

        if (!json_is_array(conds)) {
                conds = json_array();
                json_object_set_new(status, "conditions", conds);
        }
        json_array_foreach(conds, i, it) {
                if (streq(json_string_value(json_object_get(it, "type")) ?: "", type))
                        c = it;
        }
        if (!c) {
                c = json_pack("{s:s}", "type", type);
                json_array_append_new(conds, c);
        }
        if (!streq(json_string_value(json_object_get(c, "status")) ?: "", cond_status) ||
            !json_is_string(json_object_get(c, "lastTransitionTime")))
                json_object_set_new(c, "lastTransitionTime", json_string(now));
        json_object_set_new(c, "status", json_string(cond_status));
        json_object_set_new(c, "reason", json_string(reason));
        json_object_set_new(c, "message", json_string(message));
        if (observed_generation)
                json_object_set_new(c, "observedGeneration", json_integer(observed_generation));
        else
                json_object_del(c, "observedGeneration");
}

void pdb_update_disruption_allowed(json_t *pdb, const char *now)
{
        json_t *status = json_object_get(pdb, "status");
        long long gen = json_integer_value(json_object_get(status, "observedGeneration"));

        if (json_integer_value(json_object_get(status, "disruptionsAllowed")) > 0)
                pdb_set_condition(status, PDB_CONDITION_DISRUPTION_ALLOWED, "True",
                                  PDB_REASON_SUFFICIENT_PODS, "", gen, now);
        else
                pdb_set_condition(status, PDB_CONDITION_DISRUPTION_ALLOWED, "False",
                                  PDB_REASON_INSUFFICIENT_PODS, "", gen, now);
}

bool pdb_conditions_up_to_date(const json_t *pdb)
{
        const json_t *status = json_object_get(pdb, "status");
        const json_t *c = NULL, *it;
        const char *st, *reason;
        size_t i;

        json_array_foreach(json_object_get(status, "conditions"), i, it) {
                if (streq(json_string_value(json_object_get(it, "type")) ?: "",
                          PDB_CONDITION_DISRUPTION_ALLOWED))
                        c = it;
        }
        if (!c || json_integer_value(json_object_get(status, "observedGeneration")) !=
                          json_integer_value(json_path(pdb, "metadata.generation")))
                return false;
        st = json_string_value(json_object_get(c, "status")) ?: "";
        reason = json_string_value(json_object_get(c, "reason")) ?: "";
        if (json_integer_value(json_object_get(status, "disruptionsAllowed")) > 0)
                return streq(st, "True") && streq(reason, PDB_REASON_SUFFICIENT_PODS);
        return streq(st, "False") && streq(reason, PDB_REASON_INSUFFICIENT_PODS);
}

bool pdb_pod_ready(const json_t *pod)
{
        size_t i;
        json_t *c;

        json_array_foreach(json_path(pod, "status.conditions"), i, c) {
                if (streq(json_string_value(json_object_get(c, "type")) ?: "", "Ready"))
                        return streq(json_string_value(json_object_get(c, "status")) ?: "", "True");
        }
        return false;
}
