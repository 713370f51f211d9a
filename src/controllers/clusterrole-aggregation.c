/* clusterrole-aggregation.c: the ClusterRole aggregation controller: the pure computation of an
 * aggregated role's rules and the pass that writes them through the API (an update with the
 * role's resourceVersion; a conflict waits for the next pass, which the change triggers). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api/selector.h"
#include "base/alloc.h"
#include "base/json.h"
#include "controllers/clusterrole-aggregation.h"
#include "controllers/controller-loop.h"

#define PASS_PERIOD_MS 30000
#define BACKOFF_MIN_MS 1000
#define BACKOFF_MAX_MS (60 * 1000)

struct clusterrole_aggregation {
        struct controller_loop loop;
        json_t *backoff; /* role name -> controller_backoff entry */
};

static int by_name(const void *a, const void *b)
{
        const json_t *x = *(json_t *const *) a, *y = *(json_t *const *) b;

        return strcmp(json_path_string_or_empty(x, "metadata.name"),
                      json_path_string_or_empty(y, "metadata.name"));
}

/* The roles (values of an object, or items of an array) as a name-sorted C array. */
static json_t **sorted_roles(const json_t *roles, size_t *ret_n)
{
        size_t n = json_is_array(roles) ? json_array_size(roles) : json_object_size(roles), i = 0;
        json_t **out = xcalloc(n ? n : 1, sizeof(*out));
        const char *key;
        size_t k;
        json_t *v;

        if (json_is_array(roles))
                json_array_foreach(roles, k, v)
                        out[i++] = v;
        else
                json_object_foreach((json_t *) roles, key, v)
                        out[i++] = v;
        qsort(out, i, sizeof(*out), by_name);
        *ret_n = i;
        return out;
}

static bool has_rule(const json_t *rules, const json_t *rule)
{
        size_t i;
        json_t *r;

        json_array_foreach(rules, i, r)
                if (json_equal(r, rule))
                        return true;
        return false;
}

json_t *clusterrole_aggregated_rules(const json_t *role, const json_t *roles)
{
        const json_t *sels = json_path(role, "aggregationRule.clusterRoleSelectors");
        const char *self = json_path_string_or_empty(role, "metadata.name");
        cleanup_free json_t **sorted = NULL;
        json_t *out;
        size_t n, i, j, k;
        json_t *sel, *rule;

        if (!json_is_object(json_object_get(role, "aggregationRule")))
                return NULL;
        out = json_array();
        sorted = sorted_roles(roles, &n);
        /* K8S: syncClusterRole: for each selector, the matching roles by name, each new rule */
        json_array_foreach(sels, i, sel) {
                for (j = 0; j < n; j++) {
                        const char *name = json_path_string_or_empty(sorted[j], "metadata.name");

                        if (streq(name, self) ||
                            label_selector_object_matches(
                                    sel, json_path(sorted[j], "metadata.labels")) != 1)
                                continue;
                        json_array_foreach(json_object_get(sorted[j], "rules"), k, rule)
                                if (!has_rule(out, rule))
                                        json_array_append(out, rule);
                }
        }
        return out;
}

/* K8S: equality.Semantic.DeepEqual: no rules and an empty list are the same. */
static bool same_rules(const json_t *a, const json_t *b)
{
        if (json_array_size(a) == 0 && json_array_size(b) == 0)
                return true;
        return json_equal(a, b);
}

static int write_rules(struct api_client *c, const json_t *role, json_t *rules,
                       struct error **reterr)
{
        cleanup_json json_t *body = json_deep_copy(role);
        cleanup_free char *path = xasprintf("/apis/rbac.authorization.k8s.io/v1/clusterroles/%s",
                                            json_path_string_or_empty(role, "metadata.name"));
        cleanup_free char *text = NULL;
        long status = 0;
        int r;

        json_object_set(body, "rules", rules);
        text = json_dump_compact(body);
        r = api_client_request(c, "PUT", path, "application/json", text, strlen(text), &status,
                               NULL, reterr);
        if (r < 0)
                return r;
        /* 409: changed meanwhile, 404: deleted; the change brings the next pass */
        if (status != 200 && status != 409 && status != 404)
                return error_set(reterr, EIO, "PUT %s: HTTP %ld", path, status);
        return 0;
}

static void aggregation_pass(void *ctx)
{
        struct clusterrole_aggregation *x = ctx;
        cleanup_json json_t *roles = informer_snapshot(x->loop.watch, 0);
        const char *key;
        json_t *role, *tmp;

        json_object_foreach(roles, key, role) {
                cleanup_json json_t *want = clusterrole_aggregated_rules(role, roles);
                cleanup_error struct error *err = NULL;

                if (!want || same_rules(want, json_object_get(role, "rules")) ||
                    controller_backoff_waiting(x->backoff, key, NULL))
                        continue;
                if (write_rules(x->loop.client, role, want, &err) < 0)
                        controller_backoff_failed(x->backoff, key, NULL, BACKOFF_MIN_MS,
                                                  BACKOFF_MAX_MS);
                else
                        json_object_del(x->backoff, key);
        }
        json_object_foreach_safe(x->backoff, tmp, key, role) if (!json_object_get(roles, key))
                json_object_del(x->backoff, key);
}

static void aggregation_release(void *ctx)
{
        struct clusterrole_aggregation *x = ctx;

        json_decref(x->backoff);
        free(x);
}

int clusterrole_aggregation_start(const struct api_client_options *o,
                                  struct clusterrole_aggregation **ret, struct error **reterr)
{
        static const char *const paths[] = { "/apis/rbac.authorization.k8s.io/v1/clusterroles",
                                             NULL };
        const struct controller_loop_def def = { .name = "clusterrole-agg",
                                                 .paths = paths,
                                                 .period_ms = PASS_PERIOD_MS,
                                                 .pass = aggregation_pass,
                                                 .release = aggregation_release };
        struct clusterrole_aggregation *x = xcalloc(1, sizeof(*x));
        int r;

        x->backoff = json_object();
        r = controller_loop_start(o, &def, x, &x->loop, reterr);
        if (r < 0) {
                aggregation_release(x);
                return r;
        }
        *ret = x;
        return 0;
}

struct clusterrole_aggregation *clusterrole_aggregation_stop(struct clusterrole_aggregation *x)
{
        if (x)
                controller_loop_stop(&x->loop);
        return NULL;
}
