/* exec-bench.c: run-exec-bench.sh's measuring half: exec round trips, interleaved round by
 * round so every way sees the same machine. Each round: one raw exec of `true` over the
 * WebSocket API (a new TLS connection to the API server, the v5.channel.k8s.io upgrade of
 * GET pods/P/exec, frames read until the Status on channel 3, which must be Success: what
 * kubectl's exec does on the wire, without kubectl's own start; "upgrade" is its share until
 * the 101, when the API server and the kubelet endpoint are reached and the process is about
 * to start), then each --cmd once (a
 * process started and waited for, e.g. `kubectl exec P -- true` or `nsenter ... true`). All
 * timed from the start to the end with CLOCK_MONOTONIC; each way's milliseconds are printed as
 * "<label>.p50 <ms>" lines (bench_print_stats). Dies on any failure: a number it prints was
 * measured. */
#include <errno.h>
#include <gnutls/gnutls.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/strbuf.h"
#include "bench-util.h"
#include "http/websocket.h"

#define MAX_CMDS 4

struct cmd {
        char *label;
        char **argv;
        double *ms;
};

static gnutls_certificate_credentials_t cred;

static void tls_write_all(gnutls_session_t s, const char *p, size_t n)
{
        while (n) {
                ssize_t w = gnutls_record_send(s, p, n);
                if (w == GNUTLS_E_AGAIN || w == GNUTLS_E_INTERRUPTED)
                        continue;
                if (w < 0)
                        die("tls send: %s", gnutls_strerror((int) w));
                p += w;
                n -= (size_t) w;
        }
}

/* One exec of `true` over the WebSocket API; returns when its Success status arrived, with
 * *ret_upgrade_ns the moment the 101 came (now_ns). */
static void ws_exec(const char *host, int port, const char *token, const char *ns, const char *pod,
                    int64_t *ret_upgrade_ns)
{
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t) port) };
        static const uint8_t mask[4] = { 1, 2, 3, 4 };
        gnutls_session_t s;
        struct ws_reader rd;
        struct strbuf req, head;
        char buf[16384];
        bool upgraded = false;
        int fd, r;

        if (inet_pton(AF_INET, host, &a.sin_addr) != 1)
                die("bad server address \"%s\"", host);
        fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0 || connect(fd, (struct sockaddr *) &a, sizeof(a)) < 0)
                die("connect %s:%d: %s", host, port, strerror(errno));
        gnutls_init(&s, GNUTLS_CLIENT);
        gnutls_set_default_priority(s);
        gnutls_credentials_set(s, GNUTLS_CRD_CERTIFICATE, cred);
        gnutls_session_set_verify_cert(s, host, 0);
        gnutls_transport_set_int(s, fd);
        do
                r = gnutls_handshake(s);
        while (r < 0 && !gnutls_error_is_fatal(r));
        if (r < 0)
                die("tls handshake: %s", gnutls_strerror(r));
        strbuf_init(&req);
        strbuf_addf(
                &req,
                "GET /api/v1/namespaces/%s/pods/%s/exec?command=true&stdout=true&stderr=true "
                "HTTP/1.1\r\nHost: %s:%d\r\nAuthorization: Bearer %s\r\nUpgrade: websocket\r\n"
                "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: v5.channel.k8s.io\r\n\r\n",
                ns, pod, host, port, token);
        tls_write_all(s, req.buf, req.len);
        strbuf_release(&req);
        strbuf_init(&head);
        ws_reader_init(&rd, false, 1 << 20);
        for (;;) {
                struct ws_message m;
                unsigned code;
                ssize_t n = gnutls_record_recv(s, buf, sizeof(buf));

                if (n == GNUTLS_E_AGAIN || n == GNUTLS_E_INTERRUPTED)
                        continue;
                if (n <= 0)
                        die("the exec ended before its status (%s)",
                            n < 0 ? gnutls_strerror((int) n) : "EOF");
                if (!upgraded) {
                        char *end;

                        strbuf_add(&head, buf, (size_t) n);
                        end = strstr(head.buf, "\r\n\r\n");
                        if (!end)
                                continue;
                        if (strncmp(head.buf, "HTTP/1.1 101", 12) != 0)
                                die("no upgrade: %.200s", head.buf);
                        upgraded = true;
                        *ret_upgrade_ns = now_ns();
                        ws_reader_push(&rd, end + 4, head.len - (size_t) (end + 4 - head.buf));
                } else {
                        ws_reader_push(&rd, buf, (size_t) n);
                }
                while ((r = ws_reader_next(&rd, &m, &code)) == 1) {
                        if (m.opcode == WS_OP_BINARY && m.len > 1 && m.data[0] == 3) {
                                struct strbuf close;

                                if (!memmem(m.data, m.len, "\"Success\"", 9))
                                        die("the exec failed: %.*s", (int) m.len - 1,
                                            (const char *) m.data + 1);
                                /* the server may have closed already: no matter */
                                strbuf_init(&close);
                                ws_frame_append(&close, WS_OP_CLOSE, "\x03\xe8", 2, mask);
                                (void) gnutls_record_send(s, close.buf, close.len);
                                strbuf_release(&close);
                                goto done;
                        }
                }
                if (r < 0)
                        die("a broken WebSocket stream");
        }
done:
        ws_reader_release(&rd);
        strbuf_release(&head);
        (void) gnutls_bye(s, GNUTLS_SHUT_WR);
        gnutls_deinit(s);
        close(fd);
}

static void run_cmd(const struct cmd *c)
{
        int status;
        pid_t pid = fork();

        if (pid < 0)
                die("fork: %s", strerror(errno));
        if (pid == 0) {
                execvp(c->argv[0], c->argv);
                _exit(127);
        }
        while (waitpid(pid, &status, 0) < 0)
                if (errno != EINTR)
                        die("waitpid: %s", strerror(errno));
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                die("%s failed (status %d)", c->label, status);
}

/* "label=word word ..." → a command (words split on spaces) */
static void parse_cmd(struct cmd *c, const char *spec, size_t rounds)
{
        const char *eq = strchr(spec, '=');
        char *words, *save = NULL;
        size_t n = 0;

        if (!eq || eq == spec)
                die("--cmd wants LABEL=COMMAND, not \"%s\"", spec);
        c->label = xstrndup(spec, (size_t) (eq - spec));
        words = xstrdup(eq + 1);
        c->argv = xcalloc(strlen(words) / 2 + 2, sizeof(*c->argv));
        for (char *w = strtok_r(words, " ", &save); w; w = strtok_r(NULL, " ", &save))
                c->argv[n++] = w;
        if (!n)
                die("--cmd %s has no command", c->label);
        c->ms = xcalloc(rounds, sizeof(*c->ms));
}

int main(int argc, char **argv)
{
        const char *server = NULL, *ca = NULL, *token_file = NULL, *pod = NULL;
        struct cmd cmds[MAX_CMDS];
        size_t n_cmds = 0, rounds = 100, warmup = 3;
        cleanup_free char *token = NULL, *host = NULL, *ns = NULL;
        double *ws, *up;
        int port;

        for (int i = 1; i < argc; i++) {
                const char *v = i + 1 < argc ? argv[i + 1] : NULL;

                if (!v)
                        die("%s wants a value", argv[i]);
                if (streq(argv[i], "--server"))
                        server = v;
                else if (streq(argv[i], "--ca"))
                        ca = v;
                else if (streq(argv[i], "--token-file"))
                        token_file = v;
                else if (streq(argv[i], "--pod"))
                        pod = v;
                else if (streq(argv[i], "--rounds"))
                        rounds = strtoul(v, NULL, 10);
                else if (streq(argv[i], "--cmd") && n_cmds < MAX_CMDS)
                        parse_cmd(&cmds[n_cmds++], v, rounds);
                else
                        die("unknown argument \"%s\"", argv[i]);
                i++;
        }
        if (!server || !ca || !token_file || !pod || !strchr(pod, '/') || !strchr(server, ':') ||
            rounds == 0)
                die("usage: exec-bench --server IP:PORT --ca FILE --token-file FILE --pod NS/NAME "
                    "[--rounds N] [--cmd LABEL=COMMAND]...");
        host = xstrndup(server, (size_t) (strchr(server, ':') - server));
        port = atoi(strchr(server, ':') + 1);
        ns = xstrndup(pod, (size_t) (strchr(pod, '/') - pod));
        pod = strchr(pod, '/') + 1;
        token = bench_read_token(token_file);
        /* a peer that closed first must not kill the measurement */
        (void) signal(SIGPIPE, SIG_IGN);
        gnutls_global_init();
        gnutls_certificate_allocate_credentials(&cred);
        if (gnutls_certificate_set_x509_trust_file(cred, ca, GNUTLS_X509_FMT_PEM) <= 0)
                die("no CA in \"%s\"", ca);
        ws = xcalloc(rounds, sizeof(*ws));
        up = xcalloc(rounds, sizeof(*up));
        for (size_t i = 0; i < warmup; i++) {
                int64_t t;

                ws_exec(host, port, token, ns, pod, &t);
                for (size_t k = 0; k < n_cmds; k++)
                        run_cmd(&cmds[k]);
        }
        for (size_t i = 0; i < rounds; i++) {
                int64_t t0 = now_ns(), t_up;

                ws_exec(host, port, token, ns, pod, &t_up);
                ws[i] = ms_between(t0, now_ns());
                up[i] = ms_between(t0, t_up);
                for (size_t k = 0; k < n_cmds; k++) {
                        t0 = now_ns();
                        run_cmd(&cmds[k]);
                        cmds[k].ms[i] = ms_between(t0, now_ns());
                }
        }
        bench_print_stats("websocket", ws, rounds, 0);
        bench_print_stats("upgrade", up, rounds, 0);
        for (size_t k = 0; k < n_cmds; k++)
                bench_print_stats(cmds[k].label, cmds[k].ms, rounds, 0);
        return 0;
}
