/* pod-queue.c: the dirty set of pods the node agent's workers take from: one entry per pod that
 * is dirty, being stepped, or has a timer, in a search tree by uid; two FIFOs of the dirty ones
 * no worker has (the urgent ones, taken first, and the periodic resync's); a list of the ones
 * with a timer. What a step does is not here (node/agent.c). */
#include <pthread.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/alloc.h"
#include "base/macro.h"
#include "base/timeutil.h"
#include "node/pod-queue.h"

struct pod_entry {
        char *uid;
        bool dirty;              /* to be stepped (again) */
        bool running;            /* a worker has it */
        bool queued;             /* in a FIFO (dirty and not running) */
        bool urgent;             /* marked by pod_queue_mark or a timer since it was taken */
        int64_t due_ms;          /* monotonic; 0: no timer */
        struct pod_entry *next;  /* FIFO link */
        struct pod_entry *tnext; /* timer list link, valid while due_ms */
};

struct pod_queue {
        pthread_mutex_t lock; /* everything below */
        pthread_cond_t ready; /* signalled when the FIFO gains an entry, a timer is set, or stop */
        void *by_uid;         /* tsearch tree of struct pod_entry, by uid */
        struct fifo {
                struct pod_entry *head, *tail;
        } urgent, resync;
        struct pod_entry *timers;
        size_t n_queued, n_running;
        bool stopped;
};

static int entry_compare(const void *a, const void *b)
{
        return strcmp(((const struct pod_entry *) a)->uid, ((const struct pod_entry *) b)->uid);
}

static struct pod_entry *entry_find(struct pod_queue *q, const char *uid)
{
        struct pod_entry key = { .uid = (char *) uid };
        struct pod_entry **found = tfind(&key, &q->by_uid, entry_compare);

        return found ? *found : NULL;
}

static struct pod_entry *entry_get(struct pod_queue *q, const char *uid)
{
        struct pod_entry *e = entry_find(q, uid);

        if (e)
                return e;
        e = xcalloc(1, sizeof(*e));
        e->uid = xstrdup(uid);
        if (!tsearch(e, &q->by_uid, entry_compare))
                abort(); /* tsearch fails only out of memory, which aborts everywhere else */
        return e;
}

/* Drops e when nothing refers to it any more. */
static void entry_maybe_drop(struct pod_queue *q, struct pod_entry *e)
{
        if (e->dirty || e->running || e->queued || e->due_ms)
                return;
        (void) tdelete(e, &q->by_uid, entry_compare);
        free(e->uid);
        free(e);
}

static void fifo_push(struct fifo *f, struct pod_entry *e)
{
        e->next = NULL;
        if (f->tail)
                f->tail->next = e;
        else
                f->head = e;
        f->tail = e;
}

static struct pod_entry *fifo_pop(struct fifo *f)
{
        struct pod_entry *e = f->head;

        if (e) {
                f->head = e->next;
                if (!f->head)
                        f->tail = NULL;
                e->next = NULL;
        }
        return e;
}

static void fifo_remove(struct fifo *f, struct pod_entry *e)
{
        struct pod_entry *prev = NULL;

        for (struct pod_entry *x = f->head; x; prev = x, x = x->next) {
                if (x != e)
                        continue;
                if (prev)
                        prev->next = e->next;
                else
                        f->head = e->next;
                if (f->tail == e)
                        f->tail = prev;
                e->next = NULL;
                return;
        }
}

/* Marks e dirty and queues it unless a worker has it (pod_queue_done queues it then): urgent
 * into the urgent FIFO, moving it there from the resync's when it waits in that one. */
static void enqueue(struct pod_queue *q, struct pod_entry *e, bool urgent)
{
        e->dirty = true;
        if (urgent && e->queued && !e->urgent) {
                fifo_remove(&q->resync, e);
                fifo_push(&q->urgent, e);
        }
        e->urgent |= urgent;
        if (e->running || e->queued)
                return;
        e->queued = true;
        fifo_push(e->urgent ? &q->urgent : &q->resync, e);
        q->n_queued++;
        pthread_cond_signal(&q->ready);
}

/* Moves the pods whose timer is due into the FIFO; returns the earliest timer left (0: none). */
static int64_t timers_fire(struct pod_queue *q, int64_t now)
{
        int64_t next = 0;
        struct pod_entry **pp = &q->timers;

        while (*pp) {
                struct pod_entry *e = *pp;

                if (e->due_ms <= now) {
                        *pp = e->tnext;
                        e->tnext = NULL;
                        e->due_ms = 0;
                        enqueue(q, e, true);
                        continue;
                }
                if (!next || e->due_ms < next)
                        next = e->due_ms;
                pp = &e->tnext;
        }
        return next;
}

struct pod_queue *pod_queue_new(void)
{
        struct pod_queue *q = xcalloc(1, sizeof(*q));
        pthread_condattr_t ca;

        pthread_mutex_init(&q->lock, NULL);
        pthread_condattr_init(&ca);
        /* timers are monotonic: a clock step neither fires nor holds them */
        pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
        pthread_cond_init(&q->ready, &ca);
        pthread_condattr_destroy(&ca);
        return q;
}

static void entry_free(void *p)
{
        struct pod_entry *e = p;

        free(e->uid);
        free(e);
}

struct pod_queue *pod_queue_free(struct pod_queue *q)
{
        if (!q)
                return NULL;
        tdestroy(q->by_uid, entry_free);
        pthread_cond_destroy(&q->ready);
        pthread_mutex_destroy(&q->lock);
        free(q);
        return NULL;
}

static void mark(struct pod_queue *q, const char *uid, bool urgent)
{
        pthread_mutex_lock(&q->lock);
        if (!q->stopped)
                enqueue(q, entry_get(q, uid), urgent);
        pthread_mutex_unlock(&q->lock);
}

void pod_queue_mark(struct pod_queue *q, const char *uid)
{
        mark(q, uid, true);
}

void pod_queue_mark_resync(struct pod_queue *q, const char *uid)
{
        mark(q, uid, false);
}

void pod_queue_mark_at(struct pod_queue *q, const char *uid, int64_t due_ms)
{
        struct pod_entry *e;

        if (due_ms <= 0)
                due_ms = 1;
        pthread_mutex_lock(&q->lock);
        if (q->stopped) {
                pthread_mutex_unlock(&q->lock);
                return;
        }
        e = entry_get(q, uid);
        if (!e->due_ms || due_ms < e->due_ms) {
                if (!e->due_ms) {
                        e->tnext = q->timers;
                        q->timers = e;
                }
                e->due_ms = due_ms;
                /* a sleeping taker recomputes its deadline */
                pthread_cond_broadcast(&q->ready);
        }
        pthread_mutex_unlock(&q->lock);
}

char *pod_queue_take(struct pod_queue *q, bool *ret_urgent)
{
        char *uid = NULL;

        pthread_mutex_lock(&q->lock);
        while (!q->stopped) {
                int64_t next = timers_fire(q, time_monotonic_ms());
                struct pod_entry *e = fifo_pop(&q->urgent) ?: fifo_pop(&q->resync);

                if (e) {
                        if (ret_urgent)
                                *ret_urgent = e->urgent;
                        e->queued = false;
                        e->dirty = false;
                        e->urgent = false;
                        e->running = true;
                        q->n_queued--;
                        q->n_running++;
                        uid = xstrdup(e->uid);
                        break;
                }
                if (next) {
                        struct timespec until = { .tv_sec = next / 1000,
                                                  .tv_nsec = (next % 1000) * 1000000L };
                        (void) pthread_cond_timedwait(&q->ready, &q->lock, &until);
                } else {
                        pthread_cond_wait(&q->ready, &q->lock);
                }
        }
        pthread_mutex_unlock(&q->lock);
        return uid;
}

void pod_queue_done(struct pod_queue *q, const char *uid)
{
        struct pod_entry *e;

        pthread_mutex_lock(&q->lock);
        e = entry_find(q, uid);
        if (e && e->running) {
                e->running = false;
                q->n_running--;
                if (e->dirty) {
                        /* marked while it was stepped: once more */
                        enqueue(q, e, e->urgent);
                } else {
                        entry_maybe_drop(q, e);
                }
        }
        pthread_mutex_unlock(&q->lock);
}

void pod_queue_stop(struct pod_queue *q)
{
        pthread_mutex_lock(&q->lock);
        q->stopped = true;
        pthread_cond_broadcast(&q->ready);
        pthread_mutex_unlock(&q->lock);
}

void pod_queue_counts(struct pod_queue *q, size_t *ret_dirty, size_t *ret_running)
{
        pthread_mutex_lock(&q->lock);
        if (ret_dirty)
                *ret_dirty = q->n_queued;
        if (ret_running)
                *ret_running = q->n_running;
        pthread_mutex_unlock(&q->lock);
}
