/* test-exit-watch.c: node/exit-watch.h: a watched process's end wakes with its pod's uid, once;
 * a second watch of the same pod and key is not added while the first waits (its descriptor is
 * closed), one of another key is; what never ended is closed when the watch is freed, and no
 * wake comes after. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "base/timeutil.h"
#include "node/exit-watch.h"

struct woken {
        pthread_mutex_t lock;
        pthread_cond_t cond;
        char uids[4][64];
        int n;
};

static void wake(void *ud, const char *uid)
{
        struct woken *w = ud;

        pthread_mutex_lock(&w->lock);
        if (w->n < 4)
                (void) snprintf(w->uids[w->n], sizeof(w->uids[0]), "%s", uid);
        w->n++;
        pthread_cond_broadcast(&w->cond);
        pthread_mutex_unlock(&w->lock);
}

/* Waits up to 10 s for n wakes; the count seen. */
static int wait_woken(struct woken *w, int n)
{
        struct timespec until = time_after_ms(CLOCK_REALTIME, 10000);
        int seen;

        pthread_mutex_lock(&w->lock);
        while (w->n < n && pthread_cond_timedwait(&w->cond, &w->lock, &until) == 0)
                ;
        seen = w->n;
        pthread_mutex_unlock(&w->lock);
        return seen;
}

/* A child that waits to be killed, and a pidfd of it. */
static pid_t child(int *ret_fd)
{
        pid_t pid = fork();

        assert_true(pid >= 0);
        if (pid == 0) {
                pause();
                _exit(0);
        }
        *ret_fd = (int) syscall(SYS_pidfd_open, pid, 0);
        assert_true(*ret_fd >= 0);
        return pid;
}

static void test_exit_wakes_its_pod(void **state)
{
        struct woken w = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, { { 0 } }, 0 };
        struct exit_watch *x = NULL;
        int fd_a, fd_b;
        pid_t a = child(&fd_a), b = child(&fd_b);

        assert_int_equal(exit_watch_new(wake, &w, &x, NULL), 0);
        int again = dup(fd_a), other = dup(fd_b);

        assert_true(again >= 0 && other >= 0);
        exit_watch_add(x, "pod-a", "c/0", fd_a);
        exit_watch_add(x, "pod-b", "c/0", fd_b);
        /* the same run watched again: its descriptor is closed, not added */
        exit_watch_add(x, "pod-a", "c/0", again);
        assert_int_equal(fcntl(again, F_GETFD), -1);
        /* another key of the same pod is another watch, added */
        exit_watch_add(x, "pod-b", "d/0", other);
        assert_true(fcntl(other, F_GETFD) >= 0);
        /* nothing ended: no wake */
        usleep(100 * 1000);
        assert_int_equal(wait_woken(&w, 0), 0);
        kill(a, SIGKILL);
        assert_int_equal(wait_woken(&w, 1), 1);
        assert_string_equal(w.uids[0], "pod-a");
        assert_int_equal(waitpid(a, NULL, 0), a);
        /* the fired descriptor is closed by the watch */
        assert_int_equal(fcntl(fd_a, F_GETFD), -1);
        /* b never ends while watched: freeing closes both of its watches and wakes nobody */
        exit_watch_free(x);
        assert_int_equal(fcntl(fd_b, F_GETFD), -1);
        assert_int_equal(fcntl(other, F_GETFD), -1);
        kill(b, SIGKILL);
        assert_int_equal(waitpid(b, NULL, 0), b);
        usleep(100 * 1000);
        assert_int_equal(wait_woken(&w, 1), 1);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_exit_wakes_its_pod),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
