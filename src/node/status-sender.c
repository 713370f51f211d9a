/* status-sender.c: the node agent's status, event and delete writes, sent by a few threads of
 * their own (status-sender.h). One entry per pod (a tsearch tree by uid) holds what is still
 * to send, in two lanes: its status (and final delete), and its events. A lane with work is in
 * its own FIFO of ready entries, and a thread takes one lane of one entry at a time, so a pod's
 * statuses are never sent by two threads at once nor reordered, nor are its events, while the
 * other threads go on with its other lane and with other pods. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <search.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/alloc.h"
#include "base/json.h"
#include "base/timeutil.h"
#include "client/client.h"
#include "client/event.h"
#include "node/status-sender.h"

/* Back-off after a failed write: doubled per failure up to the cap. K8S: the status manager
 * retries a failed update at its next sync (syncPeriod 10 s); the event recorder sleeps 10 s
 * between tries (defaultSleepDuration). Shorter here, as flexlet's API server is near. */
#define BACKOFF_FIRST_MS 100
#define BACKOFF_MAX_MS   5000

struct queued_event {
        json_t *object;
        char *type, *reason, *message;
        int count;
        unsigned tries;
};

/* A pod's writes in two lanes, each sent by one thread at a time: its status (K8S: the status
 * manager) and its events (the event recorder), so that neither waits for the other's retries.
 * The final delete goes in the status lane, once no event is left to send. */
enum lane {
        LANE_STATUS,
        LANE_EVENTS,
        LANES,
};

struct pod_entry {
        char *uid;
        json_t *pod;    /* as last handed in: its namespace, name and status.resize */
        json_t *queued; /* the status to send next, or NULL */
        json_t *latest; /* the status last handed in (queued, being sent or sent), or NULL */
        uint64_t sent_rv;
        struct queued_event *events;
        size_t n_events, cap_events;
        bool delete_queued;
        struct {
                bool busy;  /* a thread is sending this lane's writes */
                bool ready; /* in the lane's ready list */
                unsigned failures;
                int64_t not_before_ms;
                struct pod_entry *next; /* the lane's ready list */
        } lane[LANES];
};

struct ready_list {
        struct pod_entry *head, *tail;
};

struct status_sender {
        pthread_mutex_t lock;
        pthread_cond_t wake, idle;
        void *tree; /* struct pod_entry *, by uid */
        struct ready_list ready[LANES];
        unsigned statuses_sending; /* status lanes a thread has */
        size_t n_events;
        unsigned long dropped;
        struct event_rate rate;
        double tokens;     /* events that may go now, at most rate.burst (rate.qps > 0) */
        int64_t tokens_ms; /* when tokens was last refilled */
        bool stopping;
        int64_t deadline_ms;
        unsigned running;
        char *component, *host;
        unsigned n_threads;
        struct api_client **clients;
        pthread_t *threads;
};

static int entry_cmp(const void *a, const void *b)
{
        return strcmp(((const struct pod_entry *) a)->uid, ((const struct pod_entry *) b)->uid);
}

static void event_release(struct queued_event *e)
{
        json_decref(e->object);
        free(e->type);
        free(e->reason);
        free(e->message);
}

static void entry_free(void *p)
{
        struct pod_entry *e = p;

        for (size_t i = 0; i < e->n_events; i++)
                event_release(&e->events[i]);
        free(e->events);
        json_decref(e->pod);
        json_decref(e->queued);
        json_decref(e->latest);
        free(e->uid);
        free(e);
}

static struct pod_entry *entry_find(struct status_sender *s, const char *uid)
{
        struct pod_entry key = { .uid = (char *) uid };
        void *found = tfind(&key, &s->tree, entry_cmp);

        return found ? *(struct pod_entry **) found : NULL;
}

static struct pod_entry *entry_get(struct status_sender *s, const json_t *pod)
{
        const char *uid = json_path_string(pod, "metadata.uid");
        struct pod_entry *e = entry_find(s, uid);

        if (!e) {
                e = xcalloc(1, sizeof(*e));
                e->uid = xstrdup(uid);
                (void) tsearch(e, &s->tree, entry_cmp);
        }
        json_decref(e->pod);
        e->pod = json_incref((json_t *) pod);
        return e;
}

/* Whether lane l of e has something to send: the status lane a status, or the delete once
 * every event went out; the events lane an event. */
static bool lane_has_work(const struct pod_entry *e, enum lane l)
{
        if (l == LANE_EVENTS)
                return e->n_events > 0;
        return e->queued || (e->delete_queued && e->n_events == 0 && !e->lane[LANE_EVENTS].busy);
}

static bool entry_idle(const struct pod_entry *e)
{
        for (enum lane l = 0; l < LANES; l++)
                if (e->lane[l].busy || e->lane[l].ready || lane_has_work(e, l))
                        return false;
        return true;
}

/* Under lock: puts each lane of e with work in its ready list, unless a thread has it (that
 * one re-queues it). */
static void entry_schedule(struct status_sender *s, struct pod_entry *e)
{
        for (enum lane l = 0; l < LANES; l++) {
                struct ready_list *list = &s->ready[l];

                if (e->lane[l].busy || e->lane[l].ready || !lane_has_work(e, l))
                        continue;
                e->lane[l].ready = true;
                e->lane[l].next = NULL;
                if (list->tail)
                        list->tail->lane[l].next = e;
                else
                        list->head = e;
                list->tail = e;
                pthread_cond_signal(&s->wake);
        }
}

/* Under lock: the first entry of lane l's ready list whose back-off has passed, taken off the
 * list; else NULL, *wait_ms lowered to how long until one is due. */
static struct pod_entry *list_take(struct status_sender *s, enum lane l, int64_t now,
                                   int64_t *wait_ms)
{
        struct ready_list *list = &s->ready[l];

        for (struct pod_entry *e = list->head, *prev = NULL; e; prev = e, e = e->lane[l].next) {
                if (e->lane[l].not_before_ms > now) {
                        if (e->lane[l].not_before_ms - now < *wait_ms)
                                *wait_ms = e->lane[l].not_before_ms - now;
                        continue;
                }
                if (prev)
                        prev->lane[l].next = e->lane[l].next;
                else
                        list->head = e->lane[l].next;
                if (list->tail == e)
                        list->tail = prev;
                e->lane[l].next = NULL;
                e->lane[l].ready = false;
                return e;
        }
        return NULL;
}

/* Under lock: refills the events' token bucket to now and returns how many events may go (all
 * of them without a limit). K8S: the kubelet's event client waits on client-go's token bucket
 * (eventRecordQPS a second, eventBurst at once); here the events lane waits instead of a
 * thread, which stays free for statuses. */
static size_t event_tokens(struct status_sender *s, int64_t now)
{
        if (s->rate.qps == 0)
                return SIZE_MAX;
        s->tokens += (double) (now - s->tokens_ms) * s->rate.qps / 1000.0;
        if (s->tokens > s->rate.burst)
                s->tokens = s->rate.burst;
        s->tokens_ms = now;
        return (size_t) s->tokens;
}

/* Under lock: a lane of an entry to send, statuses first: they are what clients wait for, and
 * a burst's statuses then go out before the events that explain them (K8S: the status manager
 * and the event recorder are apart). NULL when none is due, *wait_ms until one is. */
static struct pod_entry *entry_take(struct status_sender *s, int64_t now, enum lane *ret_lane,
                                    int64_t *wait_ms)
{
        *wait_ms = 1000;
        for (enum lane l = 0; l < LANES; l++) {
                struct pod_entry *e;

                /* events wait while any status is being sent, the pod's own included: what a
                 * client waits for gets the CPU first (status_turn wakes the threads after) */
                if (l == LANE_EVENTS && s->statuses_sending > 0)
                        break;
                if (l == LANE_EVENTS && s->ready[l].head && event_tokens(s, now) == 0) {
                        /* until the bucket holds one */
                        int64_t ms = (int64_t) ((1.0 - s->tokens) * 1000.0 / s->rate.qps) + 1;
                        if (ms < *wait_ms)
                                *wait_ms = ms;
                        break;
                }
                e = list_take(s, l, now, wait_ms);

                if (e) {
                        *ret_lane = l;
                        return e;
                }
        }
        return NULL;
}

enum outcome { SENT, RETRY, DROP };

static enum outcome classify(int r, long code)
{
        if (r < 0 || code == 429 || code >= 500)
                return RETRY;
        return code >= 200 && code < 300 ? SENT : DROP;
}

static uint64_t rv_number(const char *rv)
{
        char *end = NULL;
        uint64_t n;

        if (!rv || !*rv)
                return 0;
        errno = 0;
        n = strtoull(rv, &end, 10);
        return errno || *end ? 0 : n;
}

/* The merge patch of the pod's status: our fields replace the stored ones (lists whole), the
 * others stay; the deprecated resize string goes when no resize is pending or in progress.
 * Kept whole under its symbol: the resize benchmark's uprobes time each status PATCH at it
 * (bench/resize-bench.c). */
_probed_ static enum outcome send_status(struct api_client *c, const json_t *pod,
                                         const json_t *status, uint64_t *ret_rv)
{
        cleanup_json json_t *patch = NULL, *resp = NULL;
        cleanup_free char *body = NULL, *path = NULL;
        cleanup_error struct error *err = NULL;
        enum outcome o;
        long code = 0;
        int r;

        /* A shallow copy: status is also the entry's latest, which a worker compares its next
         * status with (status_sender_latest); a "resize": null added to it would make every
         * status differ from the next one, and be sent twice. */
        patch = json_pack("{s:o}", "status", json_copy((json_t *) status));
        if (!json_object_get(status, "resize"))
                json_object_set_new(json_object_get(patch, "status"), "resize", json_null());
        body = json_dump_compact(patch);
        path = xasprintf("/api/v1/namespaces/%s/pods/%s/status",
                         json_path_string(pod, "metadata.namespace"),
                         json_path_string(pod, "metadata.name"));
        r = api_client_request(c, "PATCH", path, "application/merge-patch+json", body, strlen(body),
                               &code, &resp, &err);
        o = classify(r, code);
        if (o == SENT)
                *ret_rv = rv_number(json_path_string(resp, "metadata.resourceVersion"));
        else if (o == DROP && code != 404)
                /* K8S: the status manager drops an update the API refuses (404: the pod is
                 * gone, nothing to say) */
                (void) fprintf(stderr, "flexlet node: pod %s/%s status: HTTP %ld: %s\n",
                               json_path_string(pod, "metadata.namespace"),
                               json_path_string(pod, "metadata.name"), code,
                               json_string_value(json_object_get(resp, "message")) ?: "");
        return o;
}

/* K8S: the kubelet finishes a graceful deletion with a zero-grace delete guarded by the uid. */
static enum outcome send_delete(struct api_client *c, const json_t *pod)
{
        cleanup_json json_t *opts = NULL, *resp = NULL;
        cleanup_free char *body = NULL, *path = NULL;
        long code = 0;
        int r;

        opts = json_pack("{s:s, s:s, s:i, s:{s:s}}", "kind", "DeleteOptions", "apiVersion", "v1",
                         "gracePeriodSeconds", 0, "preconditions", "uid",
                         json_path_string(pod, "metadata.uid"));
        body = json_dump_compact(opts);
        path = xasprintf("/api/v1/namespaces/%s/pods/%s",
                         json_path_string(pod, "metadata.namespace"),
                         json_path_string(pod, "metadata.name"));
        r = api_client_request(c, "DELETE", path, "application/json", body, strlen(body), &code,
                               &resp, NULL);
        /* 404: already gone; 409: the uid is another pod's now */
        return classify(r, code);
}

struct sender_thread {
        struct status_sender *s;
        struct api_client *client;
};

/* Under lock: lane l of e after a turn that failed (retry) or not: the back-off doubles per
 * failure, and is cleared by a turn that did not fail. */
static void lane_backoff(struct pod_entry *e, enum lane l, bool retry)
{
        if (retry) {
                int64_t backoff = BACKOFF_FIRST_MS
                                  << (e->lane[l].failures < 6 ? e->lane[l].failures : 6);
                e->lane[l].failures++;
                e->lane[l].not_before_ms =
                        time_monotonic_ms() + (backoff > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : backoff);
        } else {
                e->lane[l].failures = 0;
                e->lane[l].not_before_ms = 0;
        }
}

/* A turn of the status lane: the pod's status, or else its delete; what failed goes back to it
 * (a status handed in meanwhile wins over a failed one). Frees the entry once the delete went
 * out and nothing else is left. */
static void status_turn(struct status_sender *s, struct api_client *c, struct pod_entry *e)
{
        cleanup_json json_t *pod = json_incref(e->pod);
        cleanup_json json_t *status = TAKE_PTR(e->queued);
        bool del = !status && e->delete_queued;
        enum outcome o;
        uint64_t rv = 0;

        if (del)
                e->delete_queued = false;
        pthread_mutex_unlock(&s->lock);
        o = status ? send_status(c, pod, status, &rv) : send_delete(c, pod);
        pthread_mutex_lock(&s->lock);
        if (o == SENT && status) {
                e->sent_rv = rv;
        } else if (o == RETRY && status && !e->queued) {
                e->queued = TAKE_PTR(status);
        } else if (o == DROP && status && !e->queued) {
                /* never written: the pod's own status is what the API has */
                json_decref(e->latest);
                e->latest = NULL;
        } else if (o == RETRY && del) {
                e->delete_queued = true;
        }
        lane_backoff(e, LANE_STATUS, o == RETRY);
        e->lane[LANE_STATUS].busy = false;
        if (--s->statuses_sending == 0 && s->ready[LANE_EVENTS].head)
                /* the events held back behind the statuses may go: one more thread for them
                 * (this one takes its next turn too); waking every idle thread for one pod's
                 * events cost a futile wake-up each */
                pthread_cond_signal(&s->wake);
        if (del && o != RETRY && entry_idle(e)) {
                /* the pod object is gone: nothing more to say about it */
                (void) tdelete(e, &s->tree, entry_cmp);
                entry_free(e);
                return;
        }
        entry_schedule(s, e);
}

/* A turn of the events lane: the events queued, in order, as many as the rate limit lets go
 * (entry_take saw one at least); those that failed to reach the API server go back before any
 * queued meanwhile, until their last try. */
static void events_turn(struct status_sender *s, struct api_client *c, struct pod_entry *e)
{
        size_t n_events = e->n_events, tokens = event_tokens(s, time_monotonic_ms());
        struct queued_event *events;
        size_t kept = 0, lost = 0;

        if (n_events > tokens)
                n_events = tokens;
        if (s->rate.qps > 0)
                s->tokens -= (double) n_events;
        events = xmalloc(n_events * sizeof(*events));
        memcpy(events, e->events, n_events * sizeof(*events));
        e->n_events -= n_events;
        memmove(e->events, e->events + n_events, e->n_events * sizeof(*e->events));
        pthread_mutex_unlock(&s->lock);
        for (size_t i = 0; i < n_events; i++) {
                struct queued_event *ev = &events[i];
                cleanup_error struct error *err = NULL;
                int r = api_client_event_count(c, ev->object, ev->type, ev->reason, ev->message,
                                               ev->count, s->component, s->host, &err);

                /* -EIO: the API server answered and refused it; else it may not have heard */
                ev->tries++;
                if (r < 0 && r != -EIO && ev->tries < STATUS_SENDER_EVENT_MAX_TRIES) {
                        events[kept++] = *ev;
                } else {
                        lost += r < 0;
                        event_release(ev);
                }
        }
        pthread_mutex_lock(&s->lock);
        s->n_events -= n_events - kept;
        s->dropped += lost;
        if (kept) {
                struct queued_event *all = xcalloc(kept + e->n_events + 1, sizeof(*all));
                memcpy(all, events, kept * sizeof(*all));
                if (e->n_events)
                        memcpy(all + kept, e->events, e->n_events * sizeof(*all));
                free(e->events);
                e->events = all;
                e->n_events += kept;
                e->cap_events = e->n_events + 1;
        }
        free(events);
        lane_backoff(e, LANE_EVENTS, kept > 0);
        e->lane[LANE_EVENTS].busy = false;
        /* also a delete that waited for these events */
        entry_schedule(s, e);
}

static void *sender_main(void *arg)
{
        struct sender_thread *t = arg;
        struct status_sender *s = t->s;

        (void) pthread_setname_np(pthread_self(), "status-sender");
        /* a turn allocates through the thread's cache, emptied after it (base/alloc.h) */
        alloc_work_begin();
        pthread_mutex_lock(&s->lock);
        for (;;) {
                int64_t now = time_monotonic_ms(), wait_ms;
                struct pod_entry *e;
                enum lane lane;

                if (s->stopping && (now >= s->deadline_ms ||
                                    (!s->ready[LANE_STATUS].head && !s->ready[LANE_EVENTS].head)))
                        break;
                e = entry_take(s, now, &lane, &wait_ms);
                if (!e) {
                        struct timespec until;
                        if (s->stopping && s->deadline_ms - now < wait_ms)
                                wait_ms = s->deadline_ms - now;
                        until = time_after_ms(CLOCK_REALTIME, wait_ms > 0 ? wait_ms : 1);
                        (void) pthread_cond_timedwait(&s->wake, &s->lock, &until);
                        continue;
                }
                e->lane[lane].busy = true;
                s->statuses_sending += lane == LANE_STATUS;
                /* unlock while sending */
                if (lane == LANE_STATUS)
                        status_turn(s, t->client, e);
                else
                        events_turn(s, t->client, e);
                alloc_work_end();
        }
        s->running--;
        pthread_cond_broadcast(&s->idle);
        /* a thread leaving may leave work another would have waited for */
        pthread_cond_broadcast(&s->wake);
        pthread_mutex_unlock(&s->lock);
        free(t);
        return NULL;
}

/* Frees s with its first n_clients clients (its threads have ended, or never started). */
static void sender_free(struct status_sender *s, unsigned n_clients)
{
        for (unsigned i = 0; i < n_clients; i++)
                api_client_free(s->clients[i]);
        tdestroy(s->tree, entry_free);
        free(s->clients);
        free(s->threads);
        free(s->component);
        free(s->host);
        pthread_mutex_destroy(&s->lock);
        pthread_cond_destroy(&s->wake);
        pthread_cond_destroy(&s->idle);
        free(s);
}

int status_sender_start(const struct api_client_options *copts, unsigned n_threads,
                        const char *component, const char *host, const struct event_rate *rate,
                        struct status_sender **ret, struct error **reterr)
{
        struct status_sender *s = xcalloc(1, sizeof(*s));
        int r;

        s->rate = *rate;
        s->tokens = rate->burst; /* client-go's bucket starts full */
        s->tokens_ms = time_monotonic_ms();
        if (n_threads < 1)
                n_threads = 1;
        pthread_mutex_init(&s->lock, NULL);
        pthread_cond_init(&s->wake, NULL);
        pthread_cond_init(&s->idle, NULL);
        s->component = xstrdup(component);
        s->host = host ? xstrdup(host) : NULL;
        s->clients = xcalloc(n_threads, sizeof(*s->clients));
        s->threads = xcalloc(n_threads, sizeof(*s->threads));
        for (unsigned i = 0; i < n_threads; i++) {
                r = api_client_new(copts, &s->clients[i], reterr);
                if (r < 0) {
                        sender_free(s, i);
                        return r;
                }
        }
        s->n_threads = n_threads;
        s->running = n_threads;
        for (unsigned i = 0; i < n_threads; i++) {
                struct sender_thread *t = xcalloc(1, sizeof(*t));
                t->s = s;
                t->client = s->clients[i];
                if (pthread_create(&s->threads[i], NULL, sender_main, t) != 0)
                        abort(); /* only when the process is out of resources */
        }
        *ret = s;
        return 0;
}

struct status_sender *status_sender_stop(struct status_sender *s, long flush_ms)
{
        struct timespec until;

        if (!s)
                return NULL;
        pthread_mutex_lock(&s->lock);
        s->stopping = true;
        s->deadline_ms = time_monotonic_ms() + flush_ms;
        pthread_cond_broadcast(&s->wake);
        until = time_after_ms(CLOCK_REALTIME, flush_ms);
        while (s->running && pthread_cond_timedwait(&s->idle, &s->lock, &until) == 0)
                ;
        pthread_mutex_unlock(&s->lock);
        /* a write still waiting for its answer past the deadline ends now */
        for (unsigned i = 0; i < s->n_threads; i++)
                api_client_cancel(s->clients[i]);
        for (unsigned i = 0; i < s->n_threads; i++)
                (void) pthread_join(s->threads[i], NULL);
        sender_free(s, s->n_threads);
        return NULL;
}

json_t *status_sender_latest(struct status_sender *s, const json_t *pod)
{
        const char *uid = json_path_string(pod, "metadata.uid");
        json_t *ret = NULL;
        struct pod_entry *e;

        if (!uid)
                return NULL;
        pthread_mutex_lock(&s->lock);
        e = entry_find(s, uid);
        if (e && e->latest) {
                if (e->queued || e->lane[LANE_STATUS].busy ||
                    rv_number(json_path_string(pod, "metadata.resourceVersion")) < e->sent_rv) {
                        ret = json_incref(e->latest);
                } else {
                        /* the API has it (or a newer status from elsewhere) */
                        json_decref(e->latest);
                        e->latest = NULL;
                }
        }
        pthread_mutex_unlock(&s->lock);
        return ret;
}

bool status_sender_wrote(struct status_sender *s, const json_t *pod)
{
        const char *uid = json_path_string(pod, "metadata.uid");
        uint64_t rv = rv_number(json_path_string(pod, "metadata.resourceVersion"));
        struct pod_entry *e;
        bool wrote;

        if (!uid || rv == 0)
                return false;
        pthread_mutex_lock(&s->lock);
        e = entry_find(s, uid);
        wrote = e && e->sent_rv == rv;
        pthread_mutex_unlock(&s->lock);
        return wrote;
}

void status_sender_status(struct status_sender *s, const json_t *pod, json_t *status)
{
        struct pod_entry *e;

        pthread_mutex_lock(&s->lock);
        e = entry_get(s, pod);
        json_decref(e->queued);
        e->queued = status;
        json_decref(e->latest);
        e->latest = json_incref(status);
        entry_schedule(s, e);
        pthread_mutex_unlock(&s->lock);
}

void status_sender_event(struct status_sender *s, const json_t *pod, const json_t *object,
                         const char *type, const char *reason, const char *message)
{
        const char *object_uid = json_path_string(object, "metadata.uid") ?: "";
        struct pod_entry *e;

        pthread_mutex_lock(&s->lock);
        e = entry_get(s, pod);
        for (size_t i = 0; i < e->n_events; i++) {
                struct queued_event *q = &e->events[i];
                if (streq(json_path_string(q->object, "metadata.uid") ?: "", object_uid) &&
                    streq(q->type, type) && streq(q->reason, reason) &&
                    streq(q->message, message)) {
                        /* K8S: the event correlator aggregates repeats into a count */
                        q->count++;
                        pthread_mutex_unlock(&s->lock);
                        return;
                }
        }
        if (s->n_events >= STATUS_SENDER_MAX_EVENTS) {
                if (s->dropped++ % 100 == 0)
                        (void) fprintf(stderr,
                                       "flexlet node: the event queue is full (%d): event %s "
                                       "dropped (%lu so far)\n",
                                       STATUS_SENDER_MAX_EVENTS, reason, s->dropped);
                pthread_mutex_unlock(&s->lock);
                return;
        }
        if (e->n_events == e->cap_events) {
                e->cap_events = e->cap_events ? 2 * e->cap_events : 4;
                e->events = xrealloc(e->events, e->cap_events * sizeof(*e->events));
        }
        e->events[e->n_events++] = (struct queued_event){ .object = json_incref((json_t *) object),
                                                          .type = xstrdup(type),
                                                          .reason = xstrdup(reason),
                                                          .message = xstrdup(message),
                                                          .count = 1 };
        s->n_events++;
        entry_schedule(s, e);
        pthread_mutex_unlock(&s->lock);
}

void status_sender_delete(struct status_sender *s, const json_t *pod)
{
        struct pod_entry *e;

        pthread_mutex_lock(&s->lock);
        e = entry_get(s, pod);
        e->delete_queued = true;
        entry_schedule(s, e);
        pthread_mutex_unlock(&s->lock);
}

struct prune {
        const json_t *live;
        struct pod_entry **out;
        size_t n, cap;
};

static void prune_visit(const void *node, VISIT which, void *closure)
{
        struct pod_entry *e = *(struct pod_entry *const *) node;
        struct prune *p = closure;

        if (which != postorder && which != leaf)
                return;
        if (!entry_idle(e) || json_object_get(p->live, e->uid))
                return;
        if (p->n == p->cap) {
                p->cap = p->cap ? 2 * p->cap : 16;
                p->out = xrealloc(p->out, p->cap * sizeof(*p->out));
        }
        p->out[p->n++] = e;
}

void status_sender_prune(struct status_sender *s, const json_t *live)
{
        struct prune p = { .live = live };

        pthread_mutex_lock(&s->lock);
        twalk_r(s->tree, prune_visit, &p);
        for (size_t i = 0; i < p.n; i++) {
                (void) tdelete(p.out[i], &s->tree, entry_cmp);
                entry_free(p.out[i]);
        }
        pthread_mutex_unlock(&s->lock);
        free(p.out);
}

unsigned long status_sender_dropped_events(struct status_sender *s)
{
        unsigned long n;

        pthread_mutex_lock(&s->lock);
        n = s->dropped;
        pthread_mutex_unlock(&s->lock);
        return n;
}
