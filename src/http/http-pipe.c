/* http-pipe.c: a producer thread joined to a pulled response stream by a local socket pair.
 * A socket pair rather than a pipe: cancelling shuts the reading end down, which wakes a
 * producer blocked in send() with EPIPE, and MSG_NOSIGNAL spares the process a SIGPIPE. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/alloc.h"
#include "http/http-pipe.h"

struct http_pipe {
        pthread_t thread;
        int rfd; /* the owner's end */
        int wfd; /* the producer's end; closed by the thread when fn returns */
        atomic_bool cancelled;
        http_pipe_fn fn;
        void *ud;
        void (*ud_free)(void *ud);
};

static void *pipe_thread(void *arg)
{
        struct http_pipe *p = arg;

        (void) pthread_setname_np(pthread_self(), "http-pipe");
        p->fn(p, p->ud);
        /* the end of the body: the reader drains what is left, then sees EOF */
        (void) close(p->wfd);
        p->wfd = -1;
        return NULL;
}

int http_pipe_start(http_pipe_fn fn, void *ud, void (*ud_free)(void *ud), struct http_pipe **ret,
                    struct error **reterr)
{
        struct http_pipe *p;
        int fds[2], r;

        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) < 0) {
                r = errno;
                if (ud_free)
                        ud_free(ud);
                return error_set(reterr, r, "response pipe: socketpair: %s", strerror(r));
        }
        /* the producer only writes, the owner only reads */
        (void) shutdown(fds[0], SHUT_WR);
        (void) shutdown(fds[1], SHUT_RD);
        p = xcalloc(1, sizeof(*p));
        p->rfd = fds[0];
        p->wfd = fds[1];
        p->fn = fn;
        p->ud = ud;
        p->ud_free = ud_free;
        atomic_init(&p->cancelled, false);
        r = pthread_create(&p->thread, NULL, pipe_thread, p);
        if (r != 0) {
                (void) close(p->rfd);
                (void) close(p->wfd);
                if (ud_free)
                        ud_free(ud);
                free(p);
                return error_set(reterr, r, "response pipe: start its thread: %s", strerror(r));
        }
        *ret = p;
        return 0;
}

int http_pipe_write(struct http_pipe *p, const void *buf, size_t n)
{
        const char *b = buf;

        while (n > 0) {
                ssize_t w;

                if (atomic_load(&p->cancelled))
                        return -EPIPE;
                w = send(p->wfd, b, n, MSG_NOSIGNAL);
                if (w < 0) {
                        if (errno == EINTR)
                                continue;
                        return -EPIPE;
                }
                b += w;
                n -= (size_t) w;
        }
        return 0;
}

bool http_pipe_cancelled(const struct http_pipe *p)
{
        return atomic_load(&p->cancelled);
}

struct http_pipe *http_pipe_free(struct http_pipe *p)
{
        if (!p)
                return NULL;
        atomic_store(&p->cancelled, true);
        /* wakes a producer blocked in send(): its peer can no longer receive */
        (void) shutdown(p->rfd, SHUT_RDWR);
        (void) pthread_join(p->thread, NULL);
        (void) close(p->rfd);
        if (p->ud_free)
                p->ud_free(p->ud);
        free(p);
        return NULL;
}

/* Never waits: the HTTP layer polls the socket pair (pipe_stream_wake_fd) for more. */
static ssize_t pipe_stream_read(void *ctx, char *buf, size_t max)
{
        struct http_pipe *p = ctx;
        ssize_t n = recv(p->rfd, buf, max, MSG_DONTWAIT);

        if (n < 0)
                return (errno == EAGAIN || errno == EINTR) ? 0 : -1;
        return n == 0 ? -1 : n;
}

/* Readable while the producer has written something unread, and at its end (EOF). */
static int pipe_stream_wake_fd(void *ctx)
{
        const struct http_pipe *p = ctx;

        return p->rfd;
}

static void pipe_stream_free(void *ctx)
{
        http_pipe_free(ctx);
}

void http_pipe_stream(struct http_pipe *p, struct http_stream *ret)
{
        *ret = (struct http_stream){
                .read = pipe_stream_read,
                .free = pipe_stream_free,
                .ctx = p,
                .wake_fd = pipe_stream_wake_fd,
        };
}
