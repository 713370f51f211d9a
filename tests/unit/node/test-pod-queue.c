/* test-pod-queue.c: the pod workers' queue: marks coalesce and come out in the order first
 * marked, the urgent ones before the periodic resync's; a pod a worker has is not handed out
 * again until done, and a mark meanwhile hands it out once more after; timers fire at their time,
 * the earliest of a pod counting; stop wakes a blocked taker; and many threads marking and taking
 * never step one pod twice at once. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/timeutil.h"
#include "node/pod-queue.h"

/* Takes the next pod: want, marked urgently (urgent) or only by the resync. */
static void expect_take_urgent(struct pod_queue *q, const char *want, bool urgent)
{
        bool got = !urgent;
        char *uid = pod_queue_take(q, &got);

        assert_non_null(uid);
        assert_string_equal(uid, want);
        assert_int_equal(got, urgent);
        free(uid);
}

static void expect_take(struct pod_queue *q, const char *want)
{
        char *uid = pod_queue_take(q, NULL);

        assert_non_null(uid);
        assert_string_equal(uid, want);
        free(uid);
}

static void test_coalesce_and_order(void **state)
{
        struct pod_queue *q = pod_queue_new();
        size_t dirty, running;

        (void) state;
        pod_queue_mark(q, "b");
        pod_queue_mark(q, "a");
        pod_queue_mark(q, "b");
        pod_queue_mark(q, "c");
        pod_queue_counts(q, &dirty, &running);
        assert_int_equal(dirty, 3);
        assert_int_equal(running, 0);
        expect_take(q, "b");
        expect_take(q, "a");
        expect_take(q, "c");
        pod_queue_counts(q, &dirty, &running);
        assert_int_equal(dirty, 0);
        assert_int_equal(running, 3);
        pod_queue_done(q, "a");
        pod_queue_done(q, "b");
        pod_queue_done(q, "c");
        pod_queue_counts(q, &dirty, &running);
        assert_int_equal(dirty, 0);
        assert_int_equal(running, 0);
        pod_queue_free(q);
}

/* A pod whose spec just changed does not wait behind the resync's pass over every pod: urgent
 * marks come out first, an urgent mark moves a pod the resync queued ahead, a resync mark of a
 * pod queued urgent leaves it there, and an urgent mark while a worker has it hands it out
 * ahead of the resync's after done. */
static void test_urgent_before_resync(void **state)
{
        struct pod_queue *q = pod_queue_new();
        size_t dirty;

        (void) state;
        pod_queue_mark_resync(q, "r1");
        pod_queue_mark_resync(q, "r2");
        pod_queue_mark_resync(q, "r3");
        pod_queue_mark(q, "u1");
        pod_queue_mark(q, "r2");        /* moves ahead of r1 and r3 */
        pod_queue_mark_resync(q, "u1"); /* stays urgent */
        pod_queue_counts(q, &dirty, NULL);
        assert_int_equal(dirty, 4);
        /* the taker learns which were marked by more than the resync (the light step of a
         * steady pod is for the others, pod-worker.h) */
        expect_take_urgent(q, "u1", true);
        expect_take_urgent(q, "r2", true);
        expect_take_urgent(q, "r1", false);
        /* u1, being stepped, is changed again; r1 is marked by the resync again */
        pod_queue_mark(q, "u1");
        pod_queue_mark_resync(q, "r1");
        pod_queue_done(q, "u1");
        pod_queue_done(q, "r1");
        expect_take_urgent(q, "u1", true);
        expect_take_urgent(q, "r3", false);
        expect_take_urgent(q, "r1", false);
        pod_queue_done(q, "u1");
        pod_queue_done(q, "r2");
        pod_queue_done(q, "r3");
        pod_queue_done(q, "r1");
        pod_queue_counts(q, &dirty, NULL);
        assert_int_equal(dirty, 0);
        pod_queue_free(q);
}

static void test_mark_while_running(void **state)
{
        struct pod_queue *q = pod_queue_new();
        size_t dirty;

        (void) state;
        pod_queue_mark(q, "a");
        expect_take(q, "a");
        /* marked twice while stepped: not handed out before done, and then once */
        pod_queue_mark(q, "a");
        pod_queue_mark(q, "a");
        pod_queue_mark(q, "b");
        expect_take(q, "b");
        pod_queue_counts(q, &dirty, NULL);
        assert_int_equal(dirty, 0);
        pod_queue_done(q, "a");
        pod_queue_counts(q, &dirty, NULL);
        assert_int_equal(dirty, 1);
        expect_take(q, "a");
        pod_queue_done(q, "a");
        pod_queue_done(q, "b");
        pod_queue_counts(q, &dirty, NULL);
        assert_int_equal(dirty, 0);
        /* done of a pod nobody took is ignored */
        pod_queue_done(q, "zzz");
        pod_queue_free(q);
}

static void test_timers(void **state)
{
        struct pod_queue *q = pod_queue_new();
        int64_t now = time_monotonic_ms();
        size_t dirty;

        (void) state;
        pod_queue_mark_at(q, "late", now + 60 * 1000);
        pod_queue_mark_at(q, "soon", now + 60 * 1000);
        /* the earlier timer of a pod counts */
        pod_queue_mark_at(q, "soon", now + 20);
        pod_queue_mark_at(q, "past", now - 5);
        expect_take(q, "past");
        expect_take(q, "soon");
        assert_true(time_monotonic_ms() >= now + 20);
        pod_queue_counts(q, &dirty, NULL);
        assert_int_equal(dirty, 0);
        pod_queue_done(q, "past");
        pod_queue_done(q, "soon");
        /* a mark does not wait for the timer of the same pod */
        pod_queue_mark(q, "late");
        expect_take(q, "late");
        pod_queue_done(q, "late");
        pod_queue_free(q);
}

static void *take_one(void *arg)
{
        return pod_queue_take(arg, NULL);
}

static void test_stop_wakes_taker(void **state)
{
        struct pod_queue *q = pod_queue_new();
        pthread_t t;
        void *got = (void *) 1;

        (void) state;
        assert_int_equal(pthread_create(&t, NULL, take_one, q), 0);
        pod_queue_stop(q);
        assert_int_equal(pthread_join(t, &got), 0);
        assert_null(got);
        /* after stop, marks are dropped and take returns at once */
        pod_queue_mark(q, "a");
        assert_null(pod_queue_take(q, NULL));
        pod_queue_free(q);
}

/* Workers and markers at once: a pod is never held by two workers, and every mark made before
 * the markers finish is followed by a step that began after it. */
#define N_PODS    16
#define N_WORKERS 4
#define N_MARKS   4000

struct stress {
        struct pod_queue *q;
        atomic_int holders[N_PODS];
        atomic_int marks_seen[N_PODS]; /* the mark count a step began after */
        atomic_int marks[N_PODS];
        atomic_bool overlap;
};

static void *stress_worker(void *arg)
{
        struct stress *s = arg;
        char *uid;

        while ((uid = pod_queue_take(s->q, NULL))) {
                int i = atoi(uid);

                if (atomic_fetch_add(&s->holders[i], 1) != 0)
                        atomic_store(&s->overlap, true);
                atomic_store(&s->marks_seen[i], atomic_load(&s->marks[i]));
                sched_yield();
                atomic_fetch_sub(&s->holders[i], 1);
                pod_queue_done(s->q, uid);
                free(uid);
        }
        return NULL;
}

static void test_stress(void **state)
{
        struct stress s = { .q = pod_queue_new() };
        pthread_t workers[N_WORKERS];
        size_t dirty, running;

        (void) state;
        for (int i = 0; i < N_WORKERS; i++)
                assert_int_equal(pthread_create(&workers[i], NULL, stress_worker, &s), 0);
        for (int m = 0; m < N_MARKS; m++) {
                char uid[16];
                int i = m % N_PODS;

                (void) snprintf(uid, sizeof(uid), "%d", i);
                atomic_fetch_add(&s.marks[i], 1);
                pod_queue_mark(s.q, uid);
        }
        /* drain: no assertion on time, only that it empties */
        do {
                usleep(1000);
                pod_queue_counts(s.q, &dirty, &running);
        } while (dirty || running);
        pod_queue_stop(s.q);
        for (int i = 0; i < N_WORKERS; i++)
                assert_int_equal(pthread_join(workers[i], NULL), 0);
        assert_false(atomic_load(&s.overlap));
        for (int i = 0; i < N_PODS; i++)
                assert_int_equal(atomic_load(&s.marks_seen[i]), atomic_load(&s.marks[i]));
        pod_queue_free(s.q);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_coalesce_and_order),
                cmocka_unit_test(test_urgent_before_resync),
                cmocka_unit_test(test_mark_while_running),
                cmocka_unit_test(test_timers),
                cmocka_unit_test(test_stop_wakes_taker),
                cmocka_unit_test(test_stress),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
