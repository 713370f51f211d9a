/* controller-loop.h: the shape every flexlet controller shares (scheduler, pv-provisioner,
 * volume-expander, storage-protection): an informer over the collections it decides from, an API
 * client for its writes, and a thread that runs its level-based pass once every collection is
 * listed, then again after every relevant change and at least every period, until stopped. A missed
 * event therefore costs a pass, and a restarted controller picks up where it stopped. */
#ifndef FLEXLET_CONTROLLERS_CONTROLLER_LOOP_H
#define FLEXLET_CONTROLLERS_CONTROLLER_LOOP_H

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>

#include "base/error.h"
#include "client/client.h"
#include "client/informer.h"

/* Embedded in each controller's own struct, which the pass reads it from. */
struct controller_loop {
        struct informer *watch;    /* the collections, in the order of the paths given */
        struct api_client *client; /* the pass thread's requests */
        /* a pass may set this to have the next pass in at most that many ms (a deadline it
         * knows of, as upstream's queue.AddAfter); 0: the period. Reset before every pass. */
        long next_pass_ms;
        pthread_t thread; /* the pass thread, joined by controller_loop_stop */
};

struct controller_loop_def {
        /* the pass thread's name, as ps and perf show it (at most 15 characters) */
        const char *name;
        const char *const *paths; /* informer collections, NULL-terminated */
        /* NULL, or parallel to paths (ARRAY_SIZE(paths) - 1 entries, designated by the
         * collections' indices): the changes of each collection that call a pass
         * (informer_options.relevant; a NULL entry: every change). A pass reads every change
         * either way: a predicate must say yes to a change of anything the pass decides from. */
        const informer_relevant_fn *relevant;
        long period_ms; /* the longest time between two passes */
        void (*pass)(void *ctx);
        /* frees ctx (and the loop embedded in it is gone with it), on the pass thread after the
         * last pass, once the informer and the client are released */
        void (*release)(void *ctx);
};

/* K8S: the workqueue's per-item exponential rate limiter, kept in a JSON object the controller
 * owns: key -> [next attempt ms, delay ms, tag]. A failure doubles the key's delay from min_ms
 * up to max_ms; a success deletes the key. tag says what the failed attempt was for (a claim's
 * request, say; NULL: ""): an attempt for another tag is not held back, as an update event
 * requeues an object past its rate limit. */
bool controller_backoff_waiting(const json_t *backoff, const char *key, const char *tag);
void controller_backoff_failed(json_t *backoff, const char *key, const char *tag, long min_ms,
                               long max_ms);
/* How soon a pass comes again after one of its writes met a newer version of its object (409):
 * the change that beat it may be one the controller's predicates ignore, which calls no pass
 * (K8S: a conflict requeues the key, rate-limited). */
#define CONTROLLER_CONFLICT_RETRY_MS 100

/* Has the next pass come in at most ms (K8S: queue.AddAfter), whatever else asked for sooner. */
void controller_loop_pass_within(struct controller_loop *loop, long ms);
/* Has the next pass come when the first of backoff's keys still waiting may be tried again. */
void controller_loop_pass_after_backoff(struct controller_loop *loop, const json_t *backoff);

/* The pass thread's request: method on path with body (NULL: none) sent as content type ct,
 * the answer's decoded body in *ret when ret is not NULL (even on an error status, for its
 * message). Returns 0 on a 2xx, -ENOENT on 404, -EEXIST on 409 (AlreadyExists on a create,
 * Conflict on an update), -EIO on any other status, or the client's -errno. */
int controller_loop_request(struct controller_loop *loop, const char *method, const char *path,
                            const char *ct, const json_t *body, json_t **ret);

/* Starts the informer and the pass thread of ctx, whose struct embeds loop. On failure nothing
 * runs, loop is left empty, and ctx is the caller's to free. def is copied. */
int controller_loop_start(const struct api_client_options *o, const struct controller_loop_def *def,
                          void *ctx, struct controller_loop *loop, struct error **reterr);
/* Stops the loop and returns once its pass thread has ended: the pass it is in sees its
 * requests cancelled (-ECANCELED), the thread releases ctx (and loop with it), and the
 * informer's threads are joined. Nothing of the loop runs afterwards, so what its requests go
 * through (a server's loopback) may be freed. Not from the pass thread. */
void controller_loop_stop(struct controller_loop *loop);

#endif
