/* controller-loop.c: the pass thread and the rate limiter behind controller-loop.h. */
#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/json.h"
#include "base/timeutil.h"
#include "controllers/controller-loop.h"

struct loop_thread {
        struct controller_loop_def def;
        void *ctx;
        struct controller_loop *loop;
};

/* Passes start at least this far apart: under a stream of changes (hundreds of writes a second)
 * one pass takes in every change since the last, instead of one pass over every object per
 * change (K8S: a workqueue coalesces the adds of one key until a worker takes it). */
#define MIN_PASS_GAP_MS 20

static void *loop_main(void *arg)
{
        struct loop_thread *t = arg;
        struct controller_loop *loop = t->loop;
        int64_t started = 0;
        long wait_ms;

        (void) pthread_setname_np(pthread_self(), t->def.name);
        do {
                int64_t since = time_monotonic_ms() - started;

                if (since < MIN_PASS_GAP_MS)
                        (void) usleep((useconds_t) (MIN_PASS_GAP_MS - since) * 1000);
                started = time_monotonic_ms();
                loop->next_pass_ms = 0;
                if (informer_synced(loop->watch))
                        t->def.pass(t->ctx);
                wait_ms = t->def.period_ms;
                if (loop->next_pass_ms > 0 && loop->next_pass_ms < wait_ms)
                        wait_ms = loop->next_pass_ms;
        } while (informer_wait(loop->watch, wait_ms) != INFORMER_STOPPED);
        informer_stop(loop->watch);
        api_client_free(loop->client);
        t->def.release(t->ctx);
        free(t);
        return NULL;
}

void controller_loop_pass_within(struct controller_loop *loop, long ms)
{
        if (ms > 0 && (loop->next_pass_ms == 0 || ms < loop->next_pass_ms))
                loop->next_pass_ms = ms;
}

void controller_loop_pass_after_backoff(struct controller_loop *loop, const json_t *backoff)
{
        int64_t now = time_monotonic_ms();
        const char *key;
        json_t *b;

        json_object_foreach((json_t *) backoff, key, b) {
                json_int_t next = json_integer_value(json_array_get(b, 0));

                if (next > now)
                        controller_loop_pass_within(loop, (long) (next - now));
        }
}

int controller_loop_request(struct controller_loop *loop, const char *method, const char *path,
                            const char *ct, const json_t *body, json_t **ret)
{
        cleanup_error struct error *err = NULL;
        cleanup_free char *text = body ? json_dump_compact(body) : NULL;
        long status = 0;
        int r = api_client_request(loop->client, method, path, ct, text, text ? strlen(text) : 0,
                                   &status, ret, &err);

        if (r < 0)
                return r;
        if (status >= 200 && status < 300)
                return 0;
        return status == 404 ? -ENOENT : status == 409 ? -EEXIST : -EIO;
}

int controller_loop_start(const struct api_client_options *o, const struct controller_loop_def *def,
                          void *ctx, struct controller_loop *loop, struct error **reterr)
{
        struct loop_thread *t;
        int r;

        assert(def->name && strlen(def->name) <= 15);
        *loop = (struct controller_loop){ 0 };
        r = api_client_new(o, &loop->client, reterr);
        if (r >= 0)
                r = informer_start(o,
                                   &(struct informer_options){ .paths = def->paths,
                                                               .relevant = def->relevant },
                                   &loop->watch, reterr);
        if (r < 0) {
                loop->client = api_client_free(loop->client);
                return r;
        }
        t = xcalloc(1, sizeof(*t));
        *t = (struct loop_thread){ .def = *def, .ctx = ctx, .loop = loop };
        if (pthread_create(&loop->thread, NULL, loop_main, t) != 0)
                abort(); /* only when the process is out of resources */
        return 0;
}

void controller_loop_stop(struct controller_loop *loop)
{
        /* The pass thread may free loop (with its controller) as soon as the informer is
         * stopped: what we need of it is copied first, and a reference of our own keeps the
         * informer alive while we stop it. */
        struct informer *w = loop->watch;
        pthread_t thread = loop->thread;

        api_client_cancel(loop->client);
        informer_ref(w);
        informer_stop(w);
        (void) pthread_join(thread, NULL);
}

bool controller_backoff_waiting(const json_t *backoff, const char *key, const char *tag)
{
        const json_t *b = json_object_get(backoff, key);

        return b && streq(json_string_value(json_array_get(b, 2)) ?: "", tag ?: "") &&
               time_monotonic_ms() < json_integer_value(json_array_get(b, 0));
}

void controller_backoff_failed(json_t *backoff, const char *key, const char *tag, long min_ms,
                               long max_ms)
{
        const json_t *b = json_object_get(backoff, key);
        json_int_t delay = b ? json_integer_value(json_array_get(b, 1)) * 2 : min_ms;

        if (delay > max_ms)
                delay = max_ms;
        json_object_set_new(
                backoff, key,
                json_pack("[I, I, s]", (json_int_t) time_monotonic_ms() + delay, delay, tag ?: ""));
}
