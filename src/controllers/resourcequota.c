/* resourcequota.c: the resource quota controller's pass: the pure recomputation of each quota's
 * status and its write through /status. The arithmetic is api/quota.c's. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/json.h"
#include "base/timeutil.h"
#include "controllers/controller-loop.h"
#include "controllers/resourcequota.h"

#define PASS_PERIOD_MS 2000
/* The admission plugin charges a quota before the object it counts is stored: a quota whose
 * status someone else wrote less than this long ago may count an object this controller's
 * informers have not seen yet, and is recomputed on a later pass rather than undercounted. */
#define SETTLE_MS 1000

/* The collections, in informer order, and the kinds they count. */
static const struct {
        const char *path;
        const char *plural;
} collections[] = {
        { "/api/v1/resourcequotas", "resourcequotas" },
        { "/api/v1/pods", "pods" },
        { "/api/v1/persistentvolumeclaims", "persistentvolumeclaims" },
        { "/api/v1/configmaps", "configmaps" },
        { "/api/v1/secrets", "secrets" },
        { "/api/v1/serviceaccounts", "serviceaccounts" },
};
#define N_COLLECTIONS (sizeof(collections) / sizeof(collections[0]))

struct resourcequota_controller {
        struct controller_loop loop;
        /* quota key -> [resourceVersion, monotonic ms it was first seen, written by us] */
        json_t *seen;
};

json_t *resourcequota_status(const json_t *quota, const struct quota_collection *cols, size_t n,
                             time_t now)
{
        const json_t *hard = json_path(quota, "spec.hard");
        const json_t *status = json_object_get(quota, "status");
        cleanup_json json_t *used = quota_used_compute(quota, cols, n, now);
        cleanup_json json_t *h = json_is_object(hard) ? json_deep_copy(hard) : json_object();

        /* K8S: dirty when status.hard differs from spec.hard, on the first sync, or when the
         * usage changed */
        if (json_object_get(status, "hard") && json_object_get(status, "used") &&
            quota_list_equal(h, json_object_get(status, "hard")) &&
            quota_list_equal(used, json_object_get(status, "used")))
                return NULL;
        return json_pack("{s:O, s:O}", "hard", h, "used", used);
}

static bool settling(struct resourcequota_controller *x, const char *key, const json_t *quota)
{
        const char *rv = json_path_string_or_empty(quota, "metadata.resourceVersion");
        json_t *s = json_object_get(x->seen, key);
        int64_t now = time_monotonic_ms();

        if (!s || !streq(json_string_value(json_array_get(s, 0)) ?: "", rv)) {
                json_object_set_new(x->seen, key, json_pack("[s, I, b]", rv, (json_int_t) now, 0));
                s = json_object_get(x->seen, key);
        }
        return !json_is_true(json_array_get(s, 2)) &&
               now - json_integer_value(json_array_get(s, 1)) < SETTLE_MS;
}

static void write_status(struct resourcequota_controller *x, const char *key, const json_t *quota,
                         json_t *status)
{
        cleanup_free char *path = xasprintf("/api/v1/namespaces/%s/resourcequotas/%s/status",
                                            json_path_string_or_empty(quota, "metadata.namespace"),
                                            json_path_string_or_empty(quota, "metadata.name"));
        cleanup_json json_t *body = json_deep_copy(quota);
        cleanup_json json_t *answer = NULL;
        cleanup_error struct error *err = NULL;
        cleanup_free char *text = NULL;
        long code = 0;

        json_object_set(body, "status", status);
        text = json_dump_compact(body);
        /* 409: the quota moved (an admission charged it); the next pass sees the new one */
        if (api_client_request(x->loop.client, "PUT", path, NULL, text, strlen(text), &code,
                               &answer, &err) < 0 ||
            code != 200 || !answer)
                return;
        informer_store(x->loop.watch, 0, answer);
        json_object_set_new(x->seen, key,
                            json_pack("[s, I, b]",
                                      json_path_string_or_empty(answer, "metadata.resourceVersion"),
                                      (json_int_t) time_monotonic_ms(), 1));
}

static void resourcequota_pass(void *ctx)
{
        struct resourcequota_controller *x = ctx;
        json_t *snaps[N_COLLECTIONS];
        struct quota_collection cols[N_COLLECTIONS];
        const char *key;
        json_t *quota, *tmp;
        time_t now = time(NULL);

        for (size_t i = 0; i < N_COLLECTIONS; i++) {
                snaps[i] = informer_snapshot(x->loop.watch, i);
                cols[i] = (struct quota_collection){ .group = "",
                                                     .plural = collections[i].plural,
                                                     .objects = snaps[i] };
        }
        json_object_foreach(snaps[0], key, quota) {
                cleanup_json json_t *status = resourcequota_status(quota, cols, N_COLLECTIONS, now);
                const json_t *st = json_object_get(quota, "status");
                bool first = !json_object_get(st, "hard") ||
                             !quota_list_equal(json_path(quota, "spec.hard"),
                                               json_object_get(st, "hard"));

                /* a quota's first sync and a change of its spec are written at once */
                if (settling(x, key, quota) && !first)
                        continue;
                if (status)
                        write_status(x, key, quota, status);
        }
        json_object_foreach_safe(x->seen, tmp, key, quota)
        {
                if (!json_object_get(snaps[0], key))
                        json_object_del(x->seen, key);
        }
        for (size_t i = 0; i < N_COLLECTIONS; i++)
                json_decref(snaps[i]);
}

static void resourcequota_controller_release(void *ctx)
{
        struct resourcequota_controller *x = ctx;

        json_decref(x->seen);
        free(x);
}

int resourcequota_controller_start(const struct api_client_options *o,
                                   struct resourcequota_controller **ret, struct error **reterr)
{
        static const char *paths[N_COLLECTIONS + 1];
        const struct controller_loop_def def = { .name = "resourcequota",
                                                 .paths = paths,
                                                 .period_ms = PASS_PERIOD_MS,
                                                 .pass = resourcequota_pass,
                                                 .release = resourcequota_controller_release };
        struct resourcequota_controller *x = xcalloc(1, sizeof(*x));
        int r;

        for (size_t i = 0; i < N_COLLECTIONS; i++)
                paths[i] = collections[i].path;
        x->seen = json_object();
        r = controller_loop_start(o, &def, x, &x->loop, reterr);
        if (r < 0) {
                resourcequota_controller_release(x);
                return r;
        }
        *ret = x;
        return 0;
}

struct resourcequota_controller *resourcequota_controller_stop(struct resourcequota_controller *x)
{
        if (x)
                controller_loop_stop(&x->loop);
        return NULL;
}
