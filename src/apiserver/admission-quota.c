/* admission-quota.c: the ResourceQuota admission plugin's reads and compare-and-swap writes of
 * the namespace's quotas. What a request charges and whether it fits is decided by api/quota.c;
 * recomputing status.used from scratch is the quota controller's (controllers/resourcequota.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/quota.h"
#include "apiserver/admission-quota.h"
#include "base/alloc.h"
#include "base/json.h"
#include "store/store.h"

/* K8S: the evaluator retries a quota whose status write conflicted; flexlet re-reads and
 * re-checks it up to this many times. */
#define QUOTA_CONFLICT_RETRIES 16

/* K8S: CheckRequest: on an update, a quota that already counted the old object is charged the
 * difference (never negative); one that did not (a scope that now matches) the whole usage. */
static const json_t *delta_for(const json_t *quota, const struct api_resource *r, const json_t *old,
                               const json_t *whole, const json_t *diff)
{
        return old && quota_matches(quota, r->group, r->plural, old) ? diff : whole;
}

/* Checks one quota and, unless dry, charges it. Returns 0 (charged, or nothing to charge),
 * -ESTALE when the quota changed under us, or the refusal. */
static int charge_one(struct store *store, const json_t *quota, const struct api_resource *r,
                      const json_t *obj, const json_t *old, const json_t *whole, const json_t *diff,
                      bool dry_run, struct error **reterr)
{
        const json_t *delta = delta_for(quota, r, old, whole, diff);
        cleanup_json json_t *used = NULL, *next = NULL;
        const char *rv = json_path_string(quota, "metadata.resourceVersion");
        uint64_t expected = 0;
        int ret;

        ret = quota_check(quota, r->group, r->plural, obj, delta, &used, reterr);
        if (ret < 0 || !used || dry_run || quota_list_equal(used, json_path(quota, "status.used")))
                return ret;
        if (!rv || store_rv_parse(rv, &expected) < 0 || expected == 0)
                return error_set(reterr, EIO, "quota %s: no resourceVersion",
                                 json_path_string_or_empty(quota, "metadata.name"));
        next = json_deep_copy(quota);
        json_object_set(json_object_ensure(next, "status"), "used", used);
        return store_update(
                store, "resourcequotas", json_path_string_or_empty(quota, "metadata.namespace"),
                json_path_string_or_empty(quota, "metadata.name"), next, expected, reterr);
}

int resource_quota_admit(struct store *store, const struct api_resource *r, const char *ns,
                         enum api_subresource sub, const json_t *obj, const json_t *old,
                         bool dry_run, struct error **reterr)
{
        cleanup_json json_t *whole = NULL, *diff = NULL, *quotas = NULL;
        int ret;

        /* K8S: Validate: only namespaced objects (a namespace itself is not) */
        if (!r->namespaced || !ns || !*ns ||
            !quota_handles(r->group, r->plural, api_subresource_name(sub), obj, old))
                return 0;
        /* K8S (quotaAccessor): the quotas from the informer's cache; a stale one's charge
         * fails its resourceVersion compare and is read again from the store below. A
         * namespace without any charges nothing: its usage is not computed. */
        ret = store_list_cached(store, "resourcequotas", ns, &quotas, NULL, reterr);
        if (ret < 0 || json_array_size(quotas) == 0)
                return ret;
        whole = quota_delta(r->group, r->plural, obj, NULL, time(NULL));
        diff = old ? quota_delta(r->group, r->plural, obj, old, time(NULL)) : json_incref(whole);
        /* Every quota is checked before any is charged, so a refusal charges none. */
        for (size_t i = 0; i < json_array_size(quotas); i++) {
                cleanup_json json_t *used = NULL;
                const json_t *q = json_array_get(quotas, i);
                ret = quota_check(q, r->group, r->plural, obj, delta_for(q, r, old, whole, diff),
                                  &used, reterr);
                if (ret < 0)
                        return ret;
        }
        for (size_t i = 0; i < json_array_size(quotas); i++) {
                const char *name =
                        json_path_string_or_empty(json_array_get(quotas, i), "metadata.name");
                cleanup_json json_t *q = json_incref(json_array_get(quotas, i));

                for (int attempt = 1;; attempt++) {
                        struct error *e = NULL;
                        ret = charge_one(store, q, r, obj, old, whole, diff, dry_run, &e);
                        if (ret != -ESTALE) {
                                if (ret < 0 && reterr)
                                        *reterr = e;
                                else
                                        error_free(e);
                                break;
                        }
                        error_free(e);
                        if (attempt >= QUOTA_CONFLICT_RETRIES)
                                return error_set(reterr, EPERM,
                                                 "unable to update status of quota %s: too many "
                                                 "concurrent writes",
                                                 name);
                        json_decref(q);
                        q = NULL;
                        ret = store_get(store, "resourcequotas", ns, name, &q, reterr);
                        if (ret == -ENOENT) {
                                /* deleted meanwhile: nothing to charge */
                                if (reterr)
                                        *reterr = error_free(*reterr);
                                ret = 0;
                                break;
                        }
                        if (ret < 0)
                                return ret;
                }
                /* A refusal from a re-read quota (another request took the room) leaves what
                 * was charged to the quotas before it until the quota controller recomputes
                 * them, as upstream. */
                if (ret < 0)
                        return ret;
        }
        return 0;
}
