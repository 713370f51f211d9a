/* test-runtime-attach.c: the attach socket between the kubelet endpoint and a container's
 * supervisor (runtime.h "attach"): the frames both ways and what a hostile or broken peer
 * can send (long frames refused from the header, unknown types, a session that does not
 * start with its hello), and the supervisor's side over a real socket in a temporary state
 * dir with a pipe as the container's stdin: stdin from sessions that asked for it only,
 * output to every session, stdinOnce closing the stdin at the first session's end, a session
 * ending with its stdin otherwise, a session too far behind dropped without holding the
 * others back. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "base/strbuf.h"
#include "node/runtime/runtime-internal.h"

static char dir[64];

static int setup(void **state)
{
        strcpy(dir, "/tmp/test-runtime-attach-XXXXXX");
        return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
        return fs_remove_tree(dir);
}

/* ------------------------------------------------------------------ frames */

static void test_frame_round_trip(void **state)
{
        struct strbuf sb;
        const char *data;
        size_t len, used;
        uint8_t type;

        strbuf_init(&sb);
        runtime_attach_frame_append(&sb, RUNTIME_ATTACH_STDIN, "hello", 5);
        runtime_attach_frame_append(&sb, RUNTIME_ATTACH_STDIN_END, NULL, 0);
        assert_int_equal(sb.len, 5 + 5 + 5);
        assert_int_equal(runtime_attach_frame_next(&sb, &type, &data, &len, &used), 1);
        assert_int_equal(type, RUNTIME_ATTACH_STDIN);
        assert_int_equal(len, 5);
        assert_memory_equal(data, "hello", 5);
        assert_int_equal(used, 10);
        memmove(sb.buf, sb.buf + used, sb.len - used);
        sb.len -= used;
        assert_int_equal(runtime_attach_frame_next(&sb, &type, &data, &len, &used), 1);
        assert_int_equal(type, RUNTIME_ATTACH_STDIN_END);
        assert_int_equal(len, 0);
        strbuf_release(&sb);
}

static void test_frame_split(void **state)
{
        size_t big = 2 * RUNTIME_ATTACH_FRAME_MAX + 100, total = 0, frames = 0;
        cleanup_free char *payload = xmalloc(big);
        struct strbuf sb;
        const char *data;
        size_t len, used, off = 0;
        uint8_t type;

        memset(payload, 'x', big);
        strbuf_init(&sb);
        runtime_attach_frame_append(&sb, RUNTIME_ATTACH_STDOUT, payload, big);
        while (off < sb.len) {
                struct strbuf view = { .buf = sb.buf + off, .len = sb.len - off };
                assert_int_equal(runtime_attach_frame_next(&view, &type, &data, &len, &used), 1);
                assert_int_equal(type, RUNTIME_ATTACH_STDOUT);
                assert_true(len <= RUNTIME_ATTACH_FRAME_MAX);
                total += len;
                frames++;
                off += used;
        }
        assert_int_equal(total, big);
        assert_int_equal(frames, 3);
        strbuf_release(&sb);
}

static void test_frame_hostile(void **state)
{
        static const struct {
                const char *bytes;
                size_t len;
                int want;
        } cases[] = {
                { "\x00\x00\x00", 3, 0 },               /* half a header: more is needed */
                { "\x00\x00\x00\x00\x05hel", 8, 0 },    /* half a payload */
                { "\x00\x00\x01\x00\x01", 5, -EPROTO }, /* 64 KiB + 1: refused at once */
                { "\x01\xff\xff\xff\xff", 5, -EPROTO }, /* 4 GiB */
                { "\x06\x00\x00\x00\x00", 5, -EPROTO }, /* an unknown type */
                { "\xff\x00\x00\x00\x00", 5, -EPROTO },
                { "\x04\x00\x00\x00\x04\x00\x50\x00\x18", 9, 1 },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct strbuf sb = { .buf = (char *) cases[i].bytes, .len = cases[i].len };
                const char *data;
                size_t len, used;
                uint8_t type;

                assert_int_equal(runtime_attach_frame_next(&sb, &type, &data, &len, &used),
                                 cases[i].want);
        }
}

/* ------------------------------------------------------------------ the supervisor's side */

struct fixture {
        struct rt_attach_server srv;
        int dfd;
        int in[2]; /* the container's stdin */
};

static void fixture_start(struct fixture *f, bool stdin_once)
{
        f->dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(f->dfd >= 0);
        assert_int_equal(pipe2(f->in, O_CLOEXEC | O_NONBLOCK), 0);
        rt_attach_server_init(&f->srv);
        f->srv.stdin_fd = f->in[1];
        f->srv.stdin_once = stdin_once;
        assert_int_equal(rt_attach_server_listen(&f->srv, f->dfd), 0);
}

static void fixture_stop(struct fixture *f)
{
        rt_attach_server_finish(&f->srv);
        assert_int_equal(faccessat(f->dfd, RUNTIME_ATTACH_SOCKET, F_OK, 0), -1);
        close(f->in[0]);
        close(f->dfd);
}

/* The supervisor's loop, for a few rounds. */
static void serve(struct fixture *f)
{
        for (int i = 0; i < 5; i++) {
                struct pollfd p[RT_ATTACH_CLIENTS_MAX + 2];
                size_t n = rt_attach_server_pollfds(&f->srv, p);

                (void) poll(p, n, 20);
                rt_attach_server_handle(&f->srv, p, n);
        }
}

static int client(bool want_stdin)
{
        cleanup_error struct error *err = NULL;
        int fd = -1;

        assert_int_equal(runtime_attach_connect(dir, want_stdin, &fd, &err), 0);
        return fd;
}

static void send_frame(int fd, enum runtime_attach_frame type, const char *data)
{
        struct strbuf sb;

        strbuf_init(&sb);
        runtime_attach_frame_append(&sb, type, data, data ? strlen(data) : 0);
        assert_int_equal(send(fd, sb.buf, sb.len, MSG_NOSIGNAL), (ssize_t) sb.len);
        strbuf_release(&sb);
}

/* What the container read from its stdin so far ("" when nothing; "EOF" appended at its end). */
static char *container_stdin(struct fixture *f)
{
        struct strbuf sb;
        char buf[256];
        ssize_t n;

        strbuf_init(&sb);
        while ((n = read(f->in[0], buf, sizeof(buf))) > 0)
                strbuf_add(&sb, buf, (size_t) n);
        if (n == 0)
                strbuf_addstr(&sb, "EOF");
        return strbuf_detach(&sb);
}

static void test_server_stdin_and_output(void **state)
{
        struct fixture f;
        int a, b;
        char buf[64];

        fixture_start(&f, false);
        a = client(true);
        b = client(false);
        serve(&f);
        assert_int_equal(f.srv.n_clients, 2);
        send_frame(a, RUNTIME_ATTACH_STDIN, "from-a\n");
        send_frame(b, RUNTIME_ATTACH_STDIN, "from-b\n"); /* b did not ask for stdin */
        serve(&f);
        {
                cleanup_free char *got = container_stdin(&f);
                assert_string_equal(got, "from-a\n");
        }
        /* the output goes to both, framed */
        rt_attach_server_output(&f.srv, RT_STDERR, "oops", 4);
        for (int *fd = (int[]){ a, b }, i = 0; i < 2; i++) {
                assert_int_equal(recv(fd[i], buf, sizeof(buf), 0), 9);
                assert_memory_equal(buf, "\x02\x00\x00\x00\x04oops", 9);
        }
        /* without stdinOnce a session's end of stdin ends that session, not the stdin */
        send_frame(a, RUNTIME_ATTACH_STDIN_END, NULL);
        serve(&f);
        assert_int_equal(f.srv.n_clients, 1);
        assert_int_equal(recv(a, buf, sizeof(buf), 0), 0);
        {
                cleanup_free char *got = container_stdin(&f);
                assert_string_equal(got, "");
        }
        close(a);
        close(b);
        fixture_stop(&f);
}

static void test_server_stdin_once(void **state)
{
        struct fixture f;
        int a, c;

        fixture_start(&f, true);
        a = client(true);
        serve(&f);
        send_frame(a, RUNTIME_ATTACH_STDIN, "line\n");
        close(a); /* the session goes: with stdinOnce the container's stdin closes */
        serve(&f);
        {
                cleanup_free char *got = container_stdin(&f);
                assert_string_equal(got, "line\nEOF");
        }
        assert_int_equal(f.srv.stdin_fd, -1);
        /* a later session still gets the output */
        c = client(true);
        serve(&f);
        assert_int_equal(f.srv.n_clients, 1);
        close(c);
        fixture_stop(&f);
}

static void test_server_hostile_session(void **state)
{
        struct fixture f;
        int a, b;
        char buf[16];

        fixture_start(&f, false);
        /* a session that does not start with its hello is dropped */
        {
                cleanup_close int dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
                struct sockaddr_un addr = { .sun_family = AF_UNIX };

                a = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
                (void) snprintf(addr.sun_path, sizeof(addr.sun_path), "/proc/self/fd/%d/%s", dfd,
                                RUNTIME_ATTACH_SOCKET);
                assert_int_equal(connect(a, (struct sockaddr *) &addr, sizeof(addr)), 0);
        }
        send_frame(a, RUNTIME_ATTACH_STDIN, "sneaky");
        /* and one that announces a frame over the limit */
        b = client(true);
        assert_int_equal(send(b, "\x00\x7f\xff\xff\xff", 5, MSG_NOSIGNAL), 5);
        serve(&f);
        assert_int_equal(f.srv.n_clients, 0);
        assert_int_equal(recv(a, buf, sizeof(buf), 0), 0);
        assert_int_equal(recv(b, buf, sizeof(buf), 0), 0);
        {
                cleanup_free char *got = container_stdin(&f);
                assert_string_equal(got, "");
        }
        close(a);
        close(b);
        fixture_stop(&f);
}

static void test_server_slow_session_dropped(void **state)
{
        static char chunk[65536];
        struct pollfd p[RT_ATTACH_CLIENTS_MAX + 2];
        struct fixture f;
        char buf[65536];
        size_t n;
        int a, b;

        fixture_start(&f, false);
        a = client(false); /* never reads */
        b = client(false);
        serve(&f);
        assert_int_equal(f.srv.n_clients, 2);
        /* the supervisor's loop polled its sessions, then the container wrote a lot */
        n = rt_attach_server_pollfds(&f.srv, p);
        (void) poll(p, n, 20);
        memset(chunk, 'o', sizeof(chunk));
        for (int i = 0; i < 48; i++) {
                rt_attach_server_output(&f.srv, RT_STDOUT, chunk, sizeof(chunk));
                while (recv(b, buf, sizeof(buf), MSG_DONTWAIT) > 0)
                        ;
        }
        /* the one more than RUNTIME_ATTACH_QUEUE_MAX behind is gone, the other is not */
        assert_int_equal(f.srv.n_clients, 1);
        /* what the poll said of the dropped session is not taken for another */
        rt_attach_server_handle(&f.srv, p, n);
        assert_int_equal(f.srv.n_clients, 1);
        rt_attach_server_output(&f.srv, RT_STDOUT, "x", 1);
        while (recv(b, buf, sizeof(buf), MSG_DONTWAIT) > 0)
                ;
        close(a);
        close(b);
        fixture_stop(&f);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_frame_round_trip),
                cmocka_unit_test(test_frame_split),
                cmocka_unit_test(test_frame_hostile),
                cmocka_unit_test_setup_teardown(test_server_stdin_and_output, setup, teardown),
                cmocka_unit_test_setup_teardown(test_server_stdin_once, setup, teardown),
                cmocka_unit_test_setup_teardown(test_server_hostile_session, setup, teardown),
                cmocka_unit_test_setup_teardown(test_server_slow_session_dropped, setup, teardown),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
