/* serviceaccount.c: the service accounts controller: the pure decision (which namespaces lack
 * their default ServiceAccount) and the pass that creates them through the API. A ServiceAccount
 * deleted by hand is created again on the next pass its watch event triggers. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/json.h"
#include "controllers/controller-loop.h"
#include "controllers/serviceaccount.h"

#define PASS_PERIOD_MS 30000
#define BACKOFF_MIN_MS 1000
#define BACKOFF_MAX_MS (60 * 1000)

enum { COL_NAMESPACES, COL_ACCOUNTS };

struct serviceaccount_controller {
        struct controller_loop loop;
        json_t *backoff; /* namespace name -> controller_backoff entry */
};

json_t *serviceaccount_missing(const json_t *namespaces, const json_t *accounts)
{
        json_t *out = json_array();
        const char *key;
        json_t *ns;

        json_object_foreach((json_t *) namespaces, key, ns) {
                const char *name = json_path_string_or_empty(ns, "metadata.name");
                const char *phase = json_path_string(ns, "status.phase");
                cleanup_free char *sa = NULL;

                /* K8S: syncNamespace: only an Active namespace (an unset phase is a namespace
                 * not yet defaulted, which the server makes Active) */
                if (!*name || json_path(ns, "metadata.deletionTimestamp") ||
                    (phase && !streq(phase, "Active")))
                        continue;
                sa = xasprintf("%s/%s", name, DEFAULT_SERVICE_ACCOUNT);
                if (!json_object_get(accounts, sa))
                        json_array_append_new(out, json_string(name));
        }
        return out;
}

static int create_default(struct api_client *c, const char *ns, struct error **reterr)
{
        cleanup_free char *path = xasprintf("/api/v1/namespaces/%s/serviceaccounts", ns);
        cleanup_json json_t *body =
                json_pack("{s:s, s:s, s:{s:s, s:s}}", "apiVersion", "v1", "kind", "ServiceAccount",
                          "metadata", "name", DEFAULT_SERVICE_ACCOUNT, "namespace", ns);
        cleanup_free char *text = json_dump_compact(body);
        long status = 0;
        int r;

        r = api_client_request(c, "POST", path, NULL, text, strlen(text), &status, NULL, reterr);
        if (r < 0)
                return r;
        /* 409: made meanwhile; 403: the namespace is terminating (the next pass skips it) */
        if (status != 201 && status != 409 && status != 403)
                return error_set(reterr, EIO, "POST %s: HTTP %ld", path, status);
        return 0;
}

static void serviceaccount_pass(void *ctx)
{
        struct serviceaccount_controller *x = ctx;
        cleanup_json json_t *namespaces = informer_snapshot(x->loop.watch, COL_NAMESPACES);
        cleanup_json json_t *accounts = informer_snapshot(x->loop.watch, COL_ACCOUNTS);
        cleanup_json json_t *missing = serviceaccount_missing(namespaces, accounts);
        const char *key;
        size_t i;
        json_t *v, *tmp;

        json_array_foreach(missing, i, v) {
                const char *name = json_string_value(v);
                cleanup_error struct error *err = NULL;

                if (controller_backoff_waiting(x->backoff, name, NULL))
                        continue;
                if (create_default(x->loop.client, name, &err) < 0)
                        controller_backoff_failed(x->backoff, name, NULL, BACKOFF_MIN_MS,
                                                  BACKOFF_MAX_MS);
                else
                        json_object_del(x->backoff, name);
        }
        json_object_foreach_safe(x->backoff, tmp, key, v)
        {
                if (!json_object_get(namespaces, key))
                        json_object_del(x->backoff, key);
        }
}

static void serviceaccount_controller_release(void *ctx)
{
        struct serviceaccount_controller *x = ctx;

        json_decref(x->backoff);
        free(x);
}

int serviceaccount_controller_start(const struct api_client_options *o,
                                    struct serviceaccount_controller **ret, struct error **reterr)
{
        static const char *const paths[] = { [COL_NAMESPACES] = "/api/v1/namespaces",
                                             [COL_ACCOUNTS] = "/api/v1/serviceaccounts",
                                             NULL };
        const struct controller_loop_def def = { .name = "serviceaccount",
                                                 .paths = paths,
                                                 .period_ms = PASS_PERIOD_MS,
                                                 .pass = serviceaccount_pass,
                                                 .release = serviceaccount_controller_release };
        struct serviceaccount_controller *x = xcalloc(1, sizeof(*x));
        int r;

        x->backoff = json_object();
        r = controller_loop_start(o, &def, x, &x->loop, reterr);
        if (r < 0) {
                serviceaccount_controller_release(x);
                return r;
        }
        *ret = x;
        return 0;
}

struct serviceaccount_controller *
serviceaccount_controller_stop(struct serviceaccount_controller *x)
{
        if (x)
                controller_loop_stop(&x->loop);
        return NULL;
}
