/* test-http-pipe.c: a producer thread's writes read back through the pipe's stream in order
 * and to their end (more than a socket buffer holds, so the producer blocks on the reader),
 * "nothing yet" while the producer is quiet, and cancellation: freeing the pipe wakes a
 * producer blocked in a write, stops one that waits and checks http_pipe_cancelled(), joins
 * it and frees its data exactly once. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/strbuf.h"
#include "base/timeutil.h"
#include "http/http-pipe.h"

#define BIG (3 * 1024 * 1024 + 17)

struct job {
        int mode; /* 0: write BIG bytes then end; 1: write forever; 2: wait, checking cancel */
        int pause_ms;
        atomic_int last_write; /* the last http_pipe_write result */
        atomic_bool returned;
        atomic_int *freed;
};

static void byte_pattern(char *buf, size_t off, size_t n)
{
        for (size_t i = 0; i < n; i++)
                buf[i] = (char) ('a' + (off + i) % 23);
}

static void produce(struct http_pipe *p, void *ud)
{
        struct job *j = ud;
        char buf[10000];
        size_t off = 0;

        if (j->pause_ms)
                usleep((useconds_t) j->pause_ms * 1000);
        switch (j->mode) {
        case 0:
                while (off < BIG) {
                        size_t n = BIG - off < 7919 ? BIG - off : 7919;
                        byte_pattern(buf, off, n);
                        atomic_store(&j->last_write, http_pipe_write(p, buf, n));
                        off += n;
                }
                break;
        case 1:
                memset(buf, 'x', sizeof(buf));
                for (;;) {
                        int r = http_pipe_write(p, buf, sizeof(buf));
                        atomic_store(&j->last_write, r);
                        if (r < 0)
                                break;
                }
                break;
        case 2:
                while (!http_pipe_cancelled(p))
                        usleep(20000);
                atomic_store(&j->last_write, http_pipe_write(p, "late", 4));
                break;
        }
        atomic_store(&j->returned, true);
}

static atomic_int n_freed;

static void job_free(void *ud)
{
        struct job *j = ud;

        /* the producer has returned before its data goes */
        assert_true(atomic_load(&j->returned));
        atomic_fetch_add(&n_freed, 1);
        free(j);
}

static struct http_pipe *start(int mode, int pause_ms, struct job **ret_job)
{
        struct job *j = xcalloc(1, sizeof(*j));
        struct http_pipe *p = NULL;

        j->mode = mode;
        j->pause_ms = pause_ms;
        atomic_init(&j->last_write, 1);
        assert_int_equal(http_pipe_start(produce, j, job_free, &p, NULL), 0);
        *ret_job = j;
        return p;
}

static void test_everything_arrives_in_order(void **state)
{
        struct job *j;
        struct http_pipe *p;
        struct http_stream st;
        struct strbuf got;
        char *want = xmalloc(BIG);
        char buf[65536];
        ssize_t n;
        int zeros = 0;

        atomic_store(&n_freed, 0);
        p = start(0, 1500, &j);
        http_pipe_stream(p, &st);
        strbuf_init(&got);
        /* the producer sleeps first: the reader hears "nothing yet", not the end */
        while ((n = st.read(st.ctx, buf, sizeof(buf))) >= 0) {
                if (n == 0)
                        zeros++;
                strbuf_add(&got, buf, (size_t) n);
                if (got.len == 0)
                        usleep(1000);
        }
        assert_true(zeros >= 1);
        assert_int_equal(got.len, BIG);
        byte_pattern(want, 0, BIG);
        assert_memory_equal(got.buf, want, BIG);
        assert_int_equal(atomic_load(&j->last_write), 0);
        /* after the end, the end again */
        assert_int_equal(st.read(st.ctx, buf, sizeof(buf)), -1);
        st.free(st.ctx);
        assert_int_equal(atomic_load(&n_freed), 1);
        strbuf_release(&got);
        free(want);
}

static void test_free_wakes_a_blocked_writer(void **state)
{
        struct job *j;
        struct http_pipe *p;
        int64_t t0;

        atomic_store(&n_freed, 0);
        p = start(1, 0, &j);
        usleep(200000); /* long enough to fill the socket buffer and block */
        t0 = time_monotonic_ms();
        http_pipe_free(p);
        assert_true(time_monotonic_ms() - t0 < 1000);
        assert_int_equal(atomic_load(&n_freed), 1);
}

static void test_free_stops_a_waiting_producer(void **state)
{
        struct job *j;
        struct http_pipe *p;
        struct http_stream st;
        char buf[16];

        atomic_store(&n_freed, 0);
        p = start(2, 0, &j);
        http_pipe_stream(p, &st);
        assert_int_equal(st.read(st.ctx, buf, sizeof(buf)), 0); /* nothing, for a second */
        st.free(st.ctx);
        assert_int_equal(atomic_load(&n_freed), 1);
}

static void test_cancelled_write_fails(void **state)
{
        struct job *j;
        struct http_pipe *p;

        /* the job is freed with the pipe: look at its result from the free callback's view */
        atomic_store(&n_freed, 0);
        p = start(2, 0, &j);
        usleep(50000);
        assert_false(atomic_load(&j->returned));
        http_pipe_free(p);
        assert_int_equal(atomic_load(&n_freed), 1);
        assert_null(http_pipe_free(NULL));
}

/* A producer that records its write result where the test can still see it after the
 * pipe (and its ud) are gone. */
static atomic_int seen_result;

static void produce_after_cancel(struct http_pipe *p, void *ud)
{
        while (!http_pipe_cancelled(p))
                usleep(10000);
        atomic_store(&seen_result, http_pipe_write(p, "x", 1));
}

static void test_write_after_cancel_is_epipe(void **state)
{
        struct http_pipe *p = NULL;

        atomic_store(&seen_result, 1);
        assert_int_equal(http_pipe_start(produce_after_cancel, NULL, NULL, &p, NULL), 0);
        http_pipe_free(p);
        assert_int_equal(atomic_load(&seen_result), -EPIPE);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_everything_arrives_in_order),
                cmocka_unit_test(test_free_wakes_a_blocked_writer),
                cmocka_unit_test(test_free_stops_a_waiting_producer),
                cmocka_unit_test(test_cancelled_write_fails),
                cmocka_unit_test(test_write_after_cancel_is_epipe),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
