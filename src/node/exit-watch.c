/* exit-watch.c: the thread behind exit-watch.h: an epoll set of the runs' supervisor pidfds and
 * an eventfd that stops it. Each watched descriptor's entry is the epoll event's data; the list
 * of them is kept only so that exit_watch_free closes what never fired. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "base/alloc.h"
#include "node/exit-watch.h"

#define EVENTS_PER_WAIT 32

struct watched {
        struct watched *prev, *next;
        int fd;
        const char *key; /* after uid's NUL, in the same allocation */
        char uid[];
};

struct exit_watch {
        int epfd, stop_fd;
        pthread_t thread;
        exit_watch_fn wake;
        void *ud;
        pthread_mutex_t lock; /* the list */
        struct watched *list;
};

static void unlink_watched(struct exit_watch *w, struct watched *e)
{
        if (e->prev)
                e->prev->next = e->next;
        else
                w->list = e->next;
        if (e->next)
                e->next->prev = e->prev;
}

static void *watch_main(void *arg)
{
        struct exit_watch *w = arg;
        struct epoll_event evs[EVENTS_PER_WAIT];

        (void) pthread_setname_np(pthread_self(), "exit-watch");
        for (;;) {
                int n = epoll_wait(w->epfd, evs, EVENTS_PER_WAIT, -1);

                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return NULL;
                for (int i = 0; i < n; i++) {
                        struct watched *e = evs[i].data.ptr;

                        if (!e)
                                return NULL; /* the stop descriptor */
                        (void) epoll_ctl(w->epfd, EPOLL_CTL_DEL, e->fd, NULL);
                        pthread_mutex_lock(&w->lock);
                        unlink_watched(w, e);
                        pthread_mutex_unlock(&w->lock);
                        close(e->fd);
                        w->wake(w->ud, e->uid);
                        free(e);
                }
        }
}

int exit_watch_new(exit_watch_fn wake, void *ud, struct exit_watch **ret, struct error **reterr)
{
        struct exit_watch *w = xcalloc(1, sizeof(*w));
        struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
        int r;

        w->wake = wake;
        w->ud = ud;
        pthread_mutex_init(&w->lock, NULL);
        w->epfd = epoll_create1(EPOLL_CLOEXEC);
        w->stop_fd = eventfd(0, EFD_CLOEXEC);
        if (w->epfd < 0 || w->stop_fd < 0 ||
            epoll_ctl(w->epfd, EPOLL_CTL_ADD, w->stop_fd, &ev) < 0) {
                r = errno;
                goto fail;
        }
        r = pthread_create(&w->thread, NULL, watch_main, w);
        if (r != 0)
                goto fail;
        *ret = w;
        return 0;
fail:
        if (w->epfd >= 0)
                close(w->epfd);
        if (w->stop_fd >= 0)
                close(w->stop_fd);
        pthread_mutex_destroy(&w->lock);
        free(w);
        return error_set(reterr, r, "container exit watch: %s", strerror(r));
}

void exit_watch_add(struct exit_watch *w, const char *pod_uid, const char *key, int fd)
{
        size_t n = strlen(pod_uid), k = strlen(key);
        struct watched *e = xmalloc(sizeof(*e) + n + 1 + k + 1);
        struct epoll_event ev = { .events = EPOLLIN, .data.ptr = e };

        e->fd = fd;
        memcpy(e->uid, pod_uid, n + 1);
        memcpy(e->uid + n + 1, key, k + 1);
        e->key = e->uid + n + 1;
        e->prev = NULL;
        /* listed before the thread can see it fire and unlink it */
        pthread_mutex_lock(&w->lock);
        for (struct watched *x = w->list; x; x = x->next)
                if (streq(x->uid, pod_uid) && streq(x->key, key)) {
                        pthread_mutex_unlock(&w->lock);
                        close(fd);
                        free(e);
                        return;
                }
        e->next = w->list;
        if (w->list)
                w->list->prev = e;
        w->list = e;
        pthread_mutex_unlock(&w->lock);
        if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
                /* cannot happen for a fresh pidfd; the periodic pass still sees the exit */
                pthread_mutex_lock(&w->lock);
                unlink_watched(w, e);
                pthread_mutex_unlock(&w->lock);
                close(fd);
                free(e);
        }
}

struct exit_watch *exit_watch_free(struct exit_watch *w)
{
        if (!w)
                return NULL;
        (void) eventfd_write(w->stop_fd, 1);
        pthread_join(w->thread, NULL);
        while (w->list) {
                struct watched *e = w->list;

                w->list = e->next;
                close(e->fd);
                free(e);
        }
        close(w->epfd);
        close(w->stop_fd);
        pthread_mutex_destroy(&w->lock);
        free(w);
        return NULL;
}
