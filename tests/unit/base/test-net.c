/* test-net.c: net_dial on loopback: a listening port connects (a non-blocking, close-on-exec
 * socket), a port nobody listens on is refused at the connect step, and a port that is not a
 * number fails at the lookup step with getaddrinfo's code. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/net.h"

/* A loopback socket bound to a free port, listening or not; its port in port[8]. */
static int bound(bool listening, char port[8])
{
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        socklen_t len = sizeof(a);
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

        assert_true(fd >= 0);
        assert_int_equal(bind(fd, (struct sockaddr *) &a, sizeof(a)), 0);
        if (listening)
                assert_int_equal(listen(fd, 1), 0);
        assert_int_equal(getsockname(fd, (struct sockaddr *) &a, &len), 0);
        (void) snprintf(port, 8, "%u", (unsigned) ntohs(a.sin_port));
        return fd;
}

static void test_dial_listening(void **state)
{
        struct net_dial_failure why;
        char port[8];
        int srv = bound(true, port), fd;

        (void) state;
        fd = net_dial("127.0.0.1", port, 5000, &why);
        assert_true(fd >= 0);
        assert_true(fcntl(fd, F_GETFL) & O_NONBLOCK);
        assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
        close(fd);
        close(srv);
}

static void test_dial_refused(void **state)
{
        struct net_dial_failure why;
        char port[8];
        int srv = bound(false, port);

        (void) state;
        assert_int_equal(net_dial("127.0.0.1", port, 5000, &why), -ECONNREFUSED);
        assert_string_equal(why.op, "connect");
        assert_int_equal(why.gai_error, 0);
        close(srv);
}

static void test_dial_bad_port(void **state)
{
        struct net_dial_failure why;

        (void) state;
        assert_int_equal(net_dial("127.0.0.1", "http", 5000, &why), -EHOSTUNREACH);
        assert_string_equal(why.op, "lookup");
        assert_int_not_equal(why.gai_error, 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_dial_listening),
                cmocka_unit_test(test_dial_refused),
                cmocka_unit_test(test_dial_bad_port),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
