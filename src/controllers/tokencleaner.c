/* tokencleaner.c: the bootstrap token cleaner (see tokencleaner.h): the pure decision (which
 * token Secrets have expired, when the next one does) and the pass that deletes them through
 * the API. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/base64.h"
#include "base/json.h"
#include "base/timeutil.h"
#include "controllers/controller-loop.h"
#include "controllers/tokencleaner.h"

/* K8S: the cleaner's informer resyncs; every pass also re-reads the snapshot */
#define PASS_PERIOD_MS  (5 * 60 * 1000)
#define TOKEN_NAMESPACE "kube-system"
#define TOKEN_TYPE      "bootstrap.kubernetes.io/token"

struct tokencleaner {
        struct controller_loop loop;
};

/* K8S: cluster-bootstrap secret GetExpiration: 0 when the Secret has no "expiration", 1 with
 * *ret when it has one, -EINVAL when it does not parse (upstream: expired). */
static int expiration_of(const json_t *secret, time_t *ret)
{
        const char *b64 = json_path_string(secret, "data.expiration");
        cleanup_free char *text = NULL;
        size_t len = 0;

        if (!b64 || !*b64)
                return 0;
        if (base64_decode(b64, strlen(b64), &text, &len, NULL) < 0 || strlen(text) != len)
                return -EINVAL;
        if (!*text)
                return 0;
        if (time_parse_rfc3339(text, ret) < 0)
                return -EINVAL;
        return 1;
}

json_t *tokencleaner_expired(const json_t *secrets, time_t now, long *ret_next)
{
        json_t *out = json_array();
        const char *key;
        json_t *s;
        long next = 0;

        json_object_foreach((json_t *) secrets, key, s) {
                time_t t = 0;
                int r;

                /* the informer's field selector already asks for the type; checked again so the
                 * decision holds on any snapshot */
                if (!streq(json_path_string_or_empty(s, "type"), TOKEN_TYPE) ||
                    !streq(json_path_string_or_empty(s, "metadata.namespace"), TOKEN_NAMESPACE) ||
                    json_path(s, "metadata.deletionTimestamp"))
                        continue;
                r = expiration_of(s, &t);
                if (r == 0)
                        continue;
                /* K8S: GetExpiration: expired once the time is after the expiration */
                if (r < 0 || now > t) {
                        json_array_append_new(
                                out, json_pack("{s:s, s:s}", "name",
                                               json_path_string_or_empty(s, "metadata.name"), "uid",
                                               json_path_string_or_empty(s, "metadata.uid")));
                        continue;
                }
                /* one second past the expiration, when now > t holds */
                if (next == 0 || (long) (t - now) + 1 < next)
                        next = (long) (t - now) + 1;
        }
        *ret_next = next;
        return out;
}

static int delete_secret(struct api_client *c, const char *name, const char *uid,
                         struct error **reterr)
{
        cleanup_free char *path =
                xasprintf("/api/v1/namespaces/%s/secrets/%s", TOKEN_NAMESPACE, name);
        cleanup_json json_t *body =
                *uid ? json_pack("{s:s, s:s, s:{s:s}}", "apiVersion", "v1", "kind", "DeleteOptions",
                                 "preconditions", "uid", uid)
                     : json_pack("{s:s, s:s}", "apiVersion", "v1", "kind", "DeleteOptions");
        cleanup_free char *text = json_dump_compact(body);
        long status = 0;
        int r;

        r = api_client_request(c, "DELETE", path, "application/json", text, strlen(text), &status,
                               NULL, reterr);
        if (r < 0)
                return r;
        /* K8S: NotFound (deleted meanwhile) and Conflict (the UID precondition failed: another
         * Secret of that name) are not errors */
        if (status != 200 && status != 202 && status != 404 && status != 409)
                return error_set(reterr, EIO, "DELETE %s: HTTP %ld", path, status);
        return 0;
}

static void tokencleaner_pass(void *ctx)
{
        struct tokencleaner *x = ctx;
        cleanup_json json_t *secrets = informer_snapshot(x->loop.watch, 0);
        long next = 0;
        cleanup_json json_t *expired = tokencleaner_expired(secrets, time(NULL), &next);
        size_t i;
        json_t *v;

        json_array_foreach(expired, i, v) {
                cleanup_error struct error *err = NULL;

                /* a failure is retried at the next pass (the next event or the period) */
                (void) delete_secret(x->loop.client, json_path_string_or_empty(v, "name"),
                                     json_path_string_or_empty(v, "uid"), &err);
        }
        if (next > 0)
                controller_loop_pass_within(&x->loop, next > PASS_PERIOD_MS / 1000 ? PASS_PERIOD_MS
                                                                                   : next * 1000);
}

static void tokencleaner_release(void *ctx)
{
        free(ctx);
}

int tokencleaner_start(const struct api_client_options *o, struct tokencleaner **ret,
                       struct error **reterr)
{
        /* K8S: the cleaner's informer: kube-system, fieldSelector
         * type=bootstrap.kubernetes.io/token */
        static const char *const paths[] = {
                "/api/v1/namespaces/" TOKEN_NAMESPACE
                "/secrets?fieldSelector=type%3Dbootstrap.kubernetes.io%2Ftoken",
                NULL
        };
        const struct controller_loop_def def = { .name = "tokencleaner",
                                                 .paths = paths,
                                                 .period_ms = PASS_PERIOD_MS,
                                                 .pass = tokencleaner_pass,
                                                 .release = tokencleaner_release };
        struct tokencleaner *x = xcalloc(1, sizeof(*x));
        int r;

        r = controller_loop_start(o, &def, x, &x->loop, reterr);
        if (r < 0) {
                free(x);
                return r;
        }
        *ret = x;
        return 0;
}

struct tokencleaner *tokencleaner_stop(struct tokencleaner *x)
{
        if (x)
                controller_loop_stop(&x->loop);
        return NULL;
}
