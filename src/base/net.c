/* net.c: net_dial (net.h). */
#include "base/net.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdint.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/timeutil.h"

/* Connects fd to a, waiting until the deadline: 0 or -errno. */
static int connect_by(int fd, const struct addrinfo *a, int64_t deadline)
{
        struct pollfd p = { .fd = fd, .events = POLLOUT };
        socklen_t len;
        int r, err = 0;

        if (connect(fd, a->ai_addr, a->ai_addrlen) == 0)
                return 0;
        if (errno != EINPROGRESS)
                return -errno;
        do {
                int64_t left = deadline - time_monotonic_ms();

                r = poll(&p, 1, left < 0 ? 0 : left > INT32_MAX ? INT32_MAX : (int) left);
        } while (r < 0 && errno == EINTR);
        if (r < 0)
                return -errno;
        if (r == 0)
                return -ETIMEDOUT;
        len = sizeof(err);
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
                return -errno;
        return -err;
}

int net_dial(const char *host, const char *port, int timeout_ms, struct net_dial_failure *ret)
{
        struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV };
        int64_t deadline = time_monotonic_ms() + timeout_ms;
        struct addrinfo *ai = NULL;
        int r;

        *ret = (struct net_dial_failure){ .op = "lookup" };
        r = getaddrinfo(host, port, &hints, &ai);
        if (r != 0) {
                ret->gai_error = r;
                return -EHOSTUNREACH;
        }
        r = -EHOSTUNREACH;
        for (const struct addrinfo *a = ai; a && r != -ETIMEDOUT; a = a->ai_next) {
                int fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                                a->ai_protocol);

                if (fd < 0) {
                        ret->op = "socket";
                        r = -errno;
                        continue;
                }
                ret->op = "connect";
                r = connect_by(fd, a, deadline);
                if (r == 0) {
                        r = fd;
                        break;
                }
                (void) close(fd);
        }
        freeaddrinfo(ai);
        return r;
}
