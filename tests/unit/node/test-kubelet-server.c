/* test-kubelet-server.c: the node's kubelet endpoint over a fake agent: find_container reads a
 * temporary tree ROOT/<namespace>/<pod>/<container>/<run>/ of container state dirs holding CRI
 * logs written here (a "waiting" file there names a waiting reason). Checks what kubectl logs
 * gets through it: the log, tailLines, limitBytes, timestamps, sinceTime/sinceSeconds,
 * previous, follow that ends when the container's exit.json appears, a follow whose client
 * goes away (its threads end), the kubelet's error codes and words, the token, HTTPS.
 *
 * Run as `test-kubelet-server serve ROOT TOKEN_FILE [CERT_FILE KEY_FILE]` it is instead a
 * stand-alone kubelet endpoint over ROOT for tests/api/test-logs.sh: it prints its port, then
 * serves until SIGTERM or SIGINT. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "apiserver/pki.h"
#include "base/alloc.h"
#include "base/fs.h"
#include "base/strbuf.h"
#include "base/timeutil.h"
#include "client/client.h"
#include "http/websocket.h"
#include "node/kubelet-server.h"
#include "node/kubelet-stream.h"
#include "node/runtime/runtime-internal.h"

/* ---- the fake agent ---- */

static bool is_dir(const char *path)
{
        struct stat st;

        return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The runs of a container: numeric subfolders, the highest is the current one. */
static int last_runs(const char *dir, long *ret_last, long *ret_before)
{
        DIR *d = opendir(dir);
        struct dirent *e;
        long last = -1, before = -1;

        if (!d)
                return -errno;
        while ((e = readdir(d))) {
                char *end;
                long n = strtol(e->d_name, &end, 10);

                if (*end || end == e->d_name)
                        continue;
                if (n > last) {
                        before = last;
                        last = n;
                } else if (n > before) {
                        before = n;
                }
        }
        closedir(d);
        *ret_last = last;
        *ret_before = before;
        return 0;
}

static int fake_find_container(void *ud, const char *ns, const char *pod, const char *container,
                               bool previous, char **ret_state_dir, struct error **reterr)
{
        const char *root = ud;
        cleanup_free char *pod_dir = xasprintf("%s/%s/%s", root, ns, pod);
        cleanup_free char *c_dir = xasprintf("%s/%s", pod_dir, container);
        cleanup_free char *waiting_file = xasprintf("%s/waiting", c_dir);
        long last = -1, before = -1;

        if (!is_dir(pod_dir))
                return -ESRCH;
        if (!is_dir(c_dir))
                return -ENOENT;
        {
                FILE *f = fopen(waiting_file, "re");
                if (f) {
                        char buf[128] = "";
                        if (fgets(buf, sizeof(buf), f))
                                buf[strcspn(buf, "\n")] = '\0';
                        fclose(f);
                        return kubelet_log_refuse(KUBELET_LOG_WAITING, pod, container, buf, reterr);
                }
        }
        if (last_runs(c_dir, &last, &before) < 0 || last < 0)
                return kubelet_log_refuse(KUBELET_LOG_NO_LOGS_YET, pod, container, NULL, reterr);
        if (previous && before < 0)
                return kubelet_log_refuse(KUBELET_LOG_NO_PREVIOUS, pod, container, NULL, reterr);
        *ret_state_dir = xasprintf("%s/%ld", c_dir, previous ? before : last);
        return 0;
}

/* ---- helper mode ---- */

static char *read_text(const char *path)
{
        cleanup_close int dfd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        char *s = NULL;

        if (fs_read_file_at(dfd, path[0] == '/' ? path + 1 : path, 1 << 20, &s, NULL) < 0) {
                (void) fprintf(stderr, "test-kubelet-server: cannot read \"%s\"\n", path);
                exit(2);
        }
        s[strcspn(s, "\n")] = '\0';
        return s;
}

static int serve_main(int argc, char **argv)
{
        cleanup_free char *token = NULL, *cert = NULL, *key = NULL;
        cleanup_error struct error *err = NULL;
        struct kubelet_server *k = NULL;
        sigset_t sigs;
        int sig;

        if (argc != 4 && argc != 6) {
                (void) fprintf(stderr,
                               "usage: test-kubelet-server serve ROOT TOKEN_FILE [CERT KEY]\n");
                return 2;
        }
        token = read_text(argv[3]);
        if (argc == 6) {
                cleanup_close int dfd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (fs_read_file_at(dfd, argv[4] + (argv[4][0] == '/'), 1 << 20, &cert, NULL) < 0 ||
                    fs_read_file_at(dfd, argv[5] + (argv[5][0] == '/'), 1 << 20, &key, NULL) < 0) {
                        (void) fprintf(stderr, "test-kubelet-server: cannot read cert or key\n");
                        return 2;
                }
        }
        sigemptyset(&sigs);
        sigaddset(&sigs, SIGINT);
        sigaddset(&sigs, SIGTERM);
        (void) pthread_sigmask(SIG_BLOCK, &sigs, NULL);
        {
                struct kubelet_server_options o = { .listen = "127.0.0.1:0",
                                                    .cert_pem = cert,
                                                    .key_pem = key,
                                                    .token = token,
                                                    .find_container = fake_find_container,
                                                    .ud = argv[2] };
                if (kubelet_server_start(&o, &k, &err) < 0) {
                        (void) fprintf(stderr, "test-kubelet-server: %s\n", err->message);
                        return 1;
                }
        }
        (void) printf("%u\n", kubelet_server_port(k));
        (void) fflush(stdout);
        (void) sigwait(&sigs, &sig);
        kubelet_server_stop(k);
        return 0;
}

/* ---- the tree of the unit tests ---- */

#define TOKEN "s3cr3t-token"

static char root[64];
static struct kubelet_server *server;
static char url[64];

/* ROOT/<rel>/<file> with text, creating the folders. */
static void put(const char *rel, const char *file, const char *text, const char *mode)
{
        cleanup_free char *dir = xasprintf("%s/%s", root, rel);
        cleanup_free char *path = xasprintf("%s/%s", dir, file);
        FILE *f;

        assert_int_equal(fs_mkdir_p(dir, 0755), 0);
        f = fopen(path, mode);
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
}

/* Marks the run at rel as a running container (this process), or as exited. */
static void mark_running(const char *rel)
{
        uint64_t ticks;
        cleanup_free char *started = NULL;

        assert_int_equal(rt_proc_start_time(getpid(), &ticks, NULL), 0);
        started = xasprintf("{\"pid\":%d,\"startTime\":%llu,\"startedAt\":"
                            "\"2026-01-01T00:00:00.000000000Z\"}",
                            (int) getpid(), (unsigned long long) ticks);
        put(rel, "spec.json", "{}", "w");
        put(rel, "started.json", started, "w");
}

static void mark_exited(const char *rel)
{
        put(rel, "exit.json", "{\"exitCode\":0,\"finishedAt\":\"2026-01-01T00:00:01.000000000Z\"}",
            "w");
}

#define T1 "2025-01-01T00:00:00.000000001Z"
#define T2 "2025-06-01T12:00:00.500000000Z"
#define T3 "2025-06-01T12:00:01.000000000Z"

/* kubelet_summary_fn: a fixed Summary, or the failure when the root holds "summary-fails". */
static int fake_summary(void *ud, json_t **ret, struct error **reterr)
{
        cleanup_free char *fail = xasprintf("%s/summary-fails", (const char *) ud);

        if (access(fail, F_OK) == 0)
                return error_set(reterr, EIO, "read stats of \"x\": Input/output error");
        *ret = json_pack("{s:{s:s}, s:[]}", "node", "nodeName", "n1", "pods");
        return 0;
}

static int setup(void **state)
{
        struct kubelet_server_options o = { .listen = "127.0.0.1:0",
                                            .token = TOKEN,
                                            .find_container = fake_find_container,
                                            .summary = fake_summary,
                                            .ud = root };
        cleanup_error struct error *err = NULL;

        strcpy(root, "/tmp/flexlet-test-kubelet-XXXXXX");
        if (!mkdtemp(root))
                return -1;
        /* default/web/app: two runs; run 1 is current */
        put("default/web/app/0", "container.log",
            T1 " stdout F previous run\n" T1 " stderr F it crashed\n", "w");
        put("default/web/app/1", "container.log",
            T1 " stdout F one\n" T2 " stderr F two\n" T3 " stdout P thr\n" T3 " stdout F ee\n" T3
               " stdout F four\n",
            "w");
        /* default/web/side: a single run */
        put("default/web/side/0", "container.log", T1 " stdout F side car\n", "w");
        /* default/web/pending: waiting to start */
        put("default/web/pending", "waiting", "ContainerCreating\n", "w");
        put("default/web/pulling", "waiting", "ErrImagePull\n", "w");
        /* default/web/nolog: a run without a log file */
        put("default/web/nolog/0", "spec.json", "{}", "w");
        if (kubelet_server_start(&o, &server, &err) < 0) {
                (void) fprintf(stderr, "%s\n", err->message);
                return -1;
        }
        snprintf(url, sizeof(url), "http://127.0.0.1:%u", kubelet_server_port(server));
        return 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
        return remove(path);
}

static int teardown(void **state)
{
        kubelet_server_stop(server);
        return nftw(root, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* ---- a client ---- */

struct reply {
        long status;
        struct strbuf body;
        int idle_calls;
        int stop_idle_after;
};

static int r_status(void *ud, long status)
{
        ((struct reply *) ud)->status = status;
        return 0;
}

static int r_data(void *ud, const char *buf, size_t n)
{
        strbuf_add(&((struct reply *) ud)->body, buf, n);
        return 0;
}

static int r_idle(void *ud)
{
        struct reply *r = ud;

        r->idle_calls++;
        return r->stop_idle_after && r->idle_calls >= r->stop_idle_after;
}

static const struct api_client_stream_ops reply_ops = { r_status, r_data, r_idle };

/* GETs path with the given token (NULL: none); fills r (release r->body). */
static int fetch_as(const char *token, const char *path, struct reply *r)
{
        struct api_client_options o = { .server_url = url, .token = token };
        cleanup_api_client struct api_client *c = NULL;
        cleanup_error struct error *err = NULL;
        int ret;

        strbuf_init(&r->body);
        assert_int_equal(api_client_new(&o, &c, NULL), 0);
        ret = api_client_get_stream(c, path, &reply_ops, r, &err);
        if (ret < 0)
                print_message("# %s\n", err->message);
        return ret;
}

/* GET with the token: expects code, returns the body (caller frees). */
static char *fetch(const char *path, long code)
{
        struct reply r = { 0 };

        assert_int_equal(fetch_as(TOKEN, path, &r), 0);
        if (r.status != code)
                fail_msg("GET %s: status %ld, want %ld; body: %s", path, r.status, code,
                         r.body.buf);
        return strbuf_detach(&r.body);
}

static void expect(const char *path, long code, const char *want)
{
        cleanup_free char *got = fetch(path, code);

        if (!streq(got, want))
                fail_msg("GET %s:\n got: \"%s\"\nwant: \"%s\"", path, got, want);
}

/* ---- tests ---- */

static void test_log_and_options(void **state)
{
        static const struct {
                const char *query;
                const char *want;
        } cases[] = {
                { "", "one\ntwo\nthree\nfour\n" },
                { "?follow=false&previous=false", "one\ntwo\nthree\nfour\n" },
                /* K8S: tail counts records from the end; "thr" + "ee" is two */
                { "?tailLines=2", "ee\nfour\n" },
                { "?tailLines=3", "three\nfour\n" },
                { "?tailLines=0", "" },
                { "?tailLines=100", "one\ntwo\nthree\nfour\n" },
                { "?limitBytes=6", "one\ntw" },
                { "?limitBytes=1", "o" },
                { "?timestamps=true&tailLines=1", T3 " four\n" },
                /* the timestamp comes once per line, before its first piece */
                { "?timestamps=1&limitBytes=200",
                  T1 " one\n" T2 " two\n" T3 " three\n" T3 " four\n" },
                { "?sinceTime=2025-06-01T12:00:01Z", "three\nfour\n" },
                { "?sinceTime=2025-03-01T00:00:00%2B01:00", "two\nthree\nfour\n" },
                { "?sinceSeconds=60", "" },
                { "?previous=true", "previous run\nit crashed\n" },
                { "?previous=TRUE&timestamps=true", T1 " previous run\n" T1 " it crashed\n" },
                /* unknown parameters are ignored, as the kubelet's decoder does */
                { "?container=x&insecureSkipTLSVerifyBackend=true", "one\ntwo\nthree\nfour\n" },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                cleanup_free char *path =
                        xasprintf("/containerLogs/default/web/app%s", cases[i].query);
                expect(path, 200, cases[i].want);
        }
        expect("/containerLogs/default/web/side", 200, "side car\n");
}

static void test_since_seconds_counts_from_now(void **state)
{
        char now[40];
        struct timespec ts;
        cleanup_free char *line = NULL;

        rt_now(&ts);
        rt_time_format(&ts, now);
        line = xasprintf("%s stdout F fresh\n", now);
        put("default/recent/c/0", "container.log", T1 " stdout F stale\n", "w");
        put("default/recent/c/0", "container.log", line, "a");
        expect("/containerLogs/default/recent/c?sinceSeconds=3600", 200, "fresh\n");
        expect("/containerLogs/default/recent/c", 200, "stale\nfresh\n");
}

static void test_errors(void **state)
{
        static const struct {
                const char *path;
                long code;
                const char *want;
        } cases[] = {
                { "/containerLogs/default/nope/app", 404, "pod \"nope\" does not exist" },
                { "/containerLogs/other/web/app", 404, "pod \"web\" does not exist" },
                { "/containerLogs/default/web/nope", 404,
                  "container \"nope\" not found in pod \"web\"" },
                { "/containerLogs/default/web/pending", 400,
                  "container \"pending\" in pod \"web\" is waiting to start: ContainerCreating" },
                { "/containerLogs/default/web/pulling", 400,
                  "container \"pulling\" in pod \"web\" is waiting to start: image can't be "
                  "pulled" },
                { "/containerLogs/default/web/side?previous=true", 400,
                  "previous terminated container \"side\" in pod \"web\" not found" },
                { "/containerLogs/default/web/app?tailLines=x", 400,
                  "{\"message\": \"Unable to decode query.\"}" },
                { "/containerLogs/default/web/app?limitBytes=1e3", 400,
                  "{\"message\": \"Unable to decode query.\"}" },
                { "/containerLogs/default/web/app?sinceTime=yesterday", 400,
                  "{\"message\": \"Unable to decode query.\"}" },
                { "/containerLogs/default/web/app?tailLines=-1", 422,
                  "{\"message\": \"Invalid request.\"}" },
                { "/containerLogs/default/web/app?limitBytes=0", 422,
                  "{\"message\": \"Invalid request.\"}" },
                { "/containerLogs/default/web/app?sinceSeconds=0", 422,
                  "{\"message\": \"Invalid request.\"}" },
                { "/containerLogs/default/web/app?sinceSeconds=5&sinceTime=2025-01-01T00:00:00Z",
                  422, "{\"message\": \"Invalid request.\"}" },
                { "/containerLogs/default/web", 404, "404 page not found\n" },
                { "/containerLogs/default/web/app/extra", 404, "404 page not found\n" },
                { "/containerLogs/default//app", 404, "404 page not found\n" },
                { "/pods", 404, "404 page not found\n" },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
                expect(cases[i].path, cases[i].code, cases[i].want);
        {
                cleanup_free char *want = xasprintf(
                        "failed to open log file \"%s/default/web/nolog/0/container.log\": open "
                        "%s/default/web/nolog/0/container.log: no such file or directory",
                        root, root);
                expect("/containerLogs/default/web/nolog", 400, want);
        }
}

static void test_token_and_methods(void **state)
{
        struct reply r = { 0 };

        assert_int_equal(fetch_as(NULL, "/containerLogs/default/web/app", &r), 0);
        assert_int_equal(r.status, 401);
        assert_string_equal(r.body.buf, "Unauthorized");
        strbuf_release(&r.body);
        assert_int_equal(fetch_as("s3cr3t-tokeN", "/containerLogs/default/web/app", &r), 0);
        assert_int_equal(r.status, 401);
        strbuf_release(&r.body);
        assert_int_equal(fetch_as(TOKEN "x", "/containerLogs/default/web/app", &r), 0);
        assert_int_equal(r.status, 401);
        strbuf_release(&r.body);
        /* an unknown path needs the token too */
        assert_int_equal(fetch_as(NULL, "/pods", &r), 0);
        assert_int_equal(r.status, 401);
        strbuf_release(&r.body);
        /* healthz does not */
        assert_int_equal(fetch_as(NULL, "/healthz", &r), 0);
        assert_int_equal(r.status, 200);
        assert_string_equal(r.body.buf, "ok");
        strbuf_release(&r.body);
        {
                struct api_client_options o = { .server_url = url, .token = TOKEN };
                cleanup_api_client struct api_client *c = NULL;
                long status = 0;

                assert_int_equal(api_client_new(&o, &c, NULL), 0);
                assert_int_equal(api_client_request(c, "POST", "/containerLogs/default/web/app",
                                                    NULL, "{}", 2, &status, NULL, NULL),
                                 0);
                assert_int_equal(status, 405);
        }
}

/* K8S server/stats handler.go: GET /stats/summary answers the Summary; its failure is a 500
 * "Internal Error: failed to get summary stats: ..." */
static void test_stats_summary(void **state)
{
        struct reply r = { 0 };
        cleanup_free char *fail = xasprintf("%s/summary-fails", root);

        (void) state;
        assert_int_equal(fetch_as(NULL, "/stats/summary", &r), 0);
        assert_int_equal(r.status, 401);
        strbuf_release(&r.body);
        assert_int_equal(fetch_as(TOKEN, "/stats/summary", &r), 0);
        assert_int_equal(r.status, 200);
        assert_non_null(strstr(r.body.buf, "\"nodeName\":\"n1\""));
        strbuf_release(&r.body);
        put("", "summary-fails", "", "w");
        assert_int_equal(fetch_as(TOKEN, "/stats/summary", &r), 0);
        assert_int_equal(r.status, 500);
        assert_string_equal(r.body.buf, "Internal Error: failed to get summary stats: read stats "
                                        "of \"x\": Input/output error");
        strbuf_release(&r.body);
        (void) unlink(fail);
        /* nothing else below /stats/ */
        assert_int_equal(fetch_as(TOKEN, "/stats/summary/x", &r), 0);
        assert_int_equal(r.status, 404);
        strbuf_release(&r.body);
}

struct follower {
        struct reply r;
        const char *path;
        int ret;
};

static void *follow_thread(void *arg)
{
        struct follower *f = arg;

        f->ret = fetch_as(TOKEN, f->path, &f->r);
        return NULL;
}

static void test_follow_ends_when_the_container_exits(void **state)
{
        struct follower f = { .path = "/containerLogs/default/run/c?follow=true&timestamps=true" };
        pthread_t th;
        int64_t t0;

        put("default/run/c/0", "container.log", T1 " stdout F before\n", "w");
        mark_running("default/run/c/0");
        assert_int_equal(pthread_create(&th, NULL, follow_thread, &f), 0);
        usleep(700000);
        put("default/run/c/0", "container.log", T2 " stdout P wri\n", "a");
        usleep(300000);
        put("default/run/c/0", "container.log", T2 " stdout F tten later\n", "a");
        usleep(700000);
        /* still following: the container runs */
        assert_int_equal(pthread_tryjoin_np(th, NULL), EBUSY);
        put("default/run/c/0", "container.log", T3 " stderr F last words\n", "a");
        mark_exited("default/run/c/0");
        t0 = time_monotonic_ms();
        assert_int_equal(pthread_join(th, NULL), 0);
        assert_true(time_monotonic_ms() - t0 < 3000);
        assert_int_equal(f.ret, 0);
        assert_int_equal(f.r.status, 200);
        assert_string_equal(f.r.body.buf, T1 " before\n" T2 " written later\n" T3 " last words\n");
        strbuf_release(&f.r.body);

        /* following an exited container is reading it */
        expect("/containerLogs/default/run/c?follow=true&tailLines=1", 200, "last words\n");
        /* tail and follow: the last line, then what comes */
        put("default/run/d/0", "container.log", T1 " stdout F a\n" T1 " stdout F b\n", "w");
        mark_running("default/run/d/0");
        f = (struct follower){ .path = "/containerLogs/default/run/d?follow=1&tailLines=1" };
        assert_int_equal(pthread_create(&th, NULL, follow_thread, &f), 0);
        usleep(500000);
        put("default/run/d/0", "container.log", T2 " stdout F c\n", "a");
        mark_exited("default/run/d/0");
        assert_int_equal(pthread_join(th, NULL), 0);
        assert_string_equal(f.r.body.buf, "b\nc\n");
        strbuf_release(&f.r.body);
}

static int count_threads(void)
{
        DIR *d = opendir("/proc/self/task");
        struct dirent *e;
        int n = 0;

        assert_non_null(d);
        while ((e = readdir(d)))
                if (e->d_name[0] != '.')
                        n++;
        closedir(d);
        return n;
}

/* The thread count once earlier tests' connection threads have finished leaving. */
static int settled_threads(void)
{
        int64_t deadline = time_monotonic_ms() + 3000;
        int n = count_threads(), stable = 0;

        while (stable < 10 && time_monotonic_ms() < deadline) {
                int m;
                usleep(50000);
                m = count_threads();
                stable = m == n ? stable + 1 : 0;
                n = m;
        }
        return n;
}

static void test_follow_stops_when_the_client_goes(void **state)
{
        struct follower f = { .path = "/containerLogs/default/forever/c?follow=true" };
        int before, during = 0;
        int64_t deadline;
        pthread_t th;

        put("default/forever/c/0", "container.log", T1 " stdout F hello\n", "w");
        mark_running("default/forever/c/0");
        before = settled_threads();
        /* the client gives up after about three quiet seconds */
        f.r.stop_idle_after = 3;
        assert_int_equal(pthread_create(&th, NULL, follow_thread, &f), 0);
        /* the follower thread and the log reader's (the connection is served by the server's
         * pool: no thread of its own) */
        deadline = time_monotonic_ms() + 2500;
        while ((during = count_threads()) < before + 2 && time_monotonic_ms() < deadline)
                usleep(20000);
        assert_true(during >= before + 2);
        assert_int_equal(pthread_join(th, NULL), 0);
        assert_int_equal(f.ret, 1);
        assert_string_equal(f.r.body.buf, "hello\n");
        strbuf_release(&f.r.body);
        /* the server noticed: the log reader is gone */
        deadline = time_monotonic_ms() + 4000;
        while (count_threads() > before && time_monotonic_ms() < deadline)
                usleep(20000);
        assert_int_equal(count_threads(), before);
}

static void test_stop_ends_a_follow(void **state)
{
        struct kubelet_server_options o = { .listen = "127.0.0.1:0",
                                            .token = TOKEN,
                                            .find_container = fake_find_container,
                                            .ud = root };
        struct kubelet_server *k = NULL;
        struct follower f = { .path = "/containerLogs/default/forever/c?follow=true" };
        char saved[64];
        pthread_t th;
        int64_t t0;

        mark_running("default/forever/c/0");
        assert_int_equal(kubelet_server_start(&o, &k, NULL), 0);
        strcpy(saved, url);
        snprintf(url, sizeof(url), "http://127.0.0.1:%u", kubelet_server_port(k));
        assert_int_equal(pthread_create(&th, NULL, follow_thread, &f), 0);
        usleep(500000);
        t0 = time_monotonic_ms();
        kubelet_server_stop(k);
        assert_true(time_monotonic_ms() - t0 < 3000);
        assert_int_equal(pthread_join(th, NULL), 0);
        /* the stream was cut, not ended */
        assert_true(f.ret < 0);
        assert_string_equal(f.r.body.buf, "hello\n");
        strbuf_release(&f.r.body);
        strcpy(url, saved);
}

static void test_refusal_words(void **state)
{
        static const struct {
                enum kubelet_log_refusal why;
                const char *reason;
                const char *want;
        } cases[] = {
                { KUBELET_LOG_NOT_AVAILABLE, NULL,
                  "container \"c\" in pod \"p\" is not available" },
                { KUBELET_LOG_NO_PREVIOUS, NULL,
                  "previous terminated container \"c\" in pod \"p\" not found" },
                { KUBELET_LOG_TERMINATED, NULL, "container \"c\" in pod \"p\" is terminated" },
                { KUBELET_LOG_WAITING, "ContainerCreating",
                  "container \"c\" in pod \"p\" is waiting to start: ContainerCreating" },
                { KUBELET_LOG_WAITING, "PodInitializing",
                  "container \"c\" in pod \"p\" is waiting to start: PodInitializing" },
                { KUBELET_LOG_WAITING, "ErrImagePull",
                  "container \"c\" in pod \"p\" is waiting to start: image can't be pulled" },
                { KUBELET_LOG_WAITING, "ImagePullBackOff",
                  "container \"c\" in pod \"p\" is waiting to start: trying and failing to pull "
                  "image" },
                { KUBELET_LOG_NO_LOGS_YET, NULL,
                  "container \"c\" in pod \"p\" is waiting to start - no logs yet" },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                cleanup_error struct error *err = NULL;

                assert_int_equal(kubelet_log_refuse(cases[i].why, "p", "c", cases[i].reason, &err),
                                 -EAGAIN);
                assert_string_equal(err->message, cases[i].want);
        }
}

static void test_start_errors(void **state)
{
        struct kubelet_server *k = NULL;
        cleanup_error struct error *err = NULL;
        struct kubelet_server_options no_token = { .listen = "127.0.0.1:0",
                                                   .find_container = fake_find_container };
        struct kubelet_server_options no_cb = { .listen = "127.0.0.1:0", .token = "t" };
        struct kubelet_server_options bad = { .listen = "127.0.0.1",
                                              .token = "t",
                                              .find_container = fake_find_container };

        assert_int_equal(kubelet_server_start(&no_token, &k, NULL), -EINVAL);
        assert_int_equal(kubelet_server_start(&no_cb, &k, NULL), -EINVAL);
        assert_int_equal(kubelet_server_start(&bad, &k, &err), -EINVAL);
        assert_non_null(strstr(err->message, "kubelet server: listen address \"127.0.0.1\""));
        assert_null(k);
        assert_null(kubelet_server_stop(NULL));
}

/* ---- attach over a WebSocket (exec needs root: tests/e2e/test-exec.sh) ---- */

static int ws_connect(void)
{
        struct sockaddr_in a = { .sin_family = AF_INET,
                                 .sin_port = htons((uint16_t) kubelet_server_port(server)),
                                 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        struct timeval tv = { .tv_sec = 10 };
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

        assert_true(fd >= 0);
        assert_int_equal(connect(fd, (struct sockaddr *) &a, sizeof(a)), 0);
        /* a bound on a broken server, not a timing check */
        (void) setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        return fd;
}

/* Sends a handshake for path with the given Upgrade and protocol (NULL: the header is left
 * out) and returns the response head; *rest gets what came after it. */
static char *handshake(int fd, const char *path, const char *upgrade, const char *proto,
                       struct strbuf *rest)
{
        struct strbuf req, in;
        char *end, buf[4096];

        strbuf_init(&req);
        strbuf_addf(&req,
                    "GET %s HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " TOKEN "\r\n"
                    "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n",
                    path);
        if (upgrade)
                strbuf_addf(&req, "Upgrade: %s\r\n", upgrade);
        if (proto)
                strbuf_addf(&req, "Sec-WebSocket-Protocol: %s\r\n", proto);
        strbuf_addstr(&req, "\r\n");
        assert_int_equal(write(fd, req.buf, req.len), (ssize_t) req.len);
        strbuf_release(&req);
        strbuf_init(&in);
        while (!(end = strstr(in.buf ? in.buf : "", "\r\n\r\n"))) {
                ssize_t n = read(fd, buf, sizeof(buf));
                assert_true(n > 0);
                strbuf_add(&in, buf, (size_t) n);
        }
        strbuf_add(rest, end + 4, in.len - (size_t) (end + 4 - in.buf));
        *end = '\0';
        return strbuf_detach(&in);
}

/* The next message from the server (unmasked frames). */
static void next_message(int fd, struct ws_reader *r, struct ws_message *m)
{
        unsigned code = 0;
        char buf[4096];
        int got;

        while ((got = ws_reader_next(r, m, &code)) == 0) {
                ssize_t n = read(fd, buf, sizeof(buf));
                assert_true(n > 0);
                ws_reader_push(r, buf, (size_t) n);
        }
        assert_int_equal(got, 1);
}

static void test_attach_websocket(void **state)
{
        struct strbuf rest;
        struct ws_reader r;
        struct ws_message m;
        cleanup_free char *head = NULL;
        bool seen = false;
        int fd;

        put("default/att/c/0", "container.log", T1 " stdout F from before the attach\n", "w");
        mark_running("default/att/c/0");
        strbuf_init(&rest);
        fd = ws_connect();
        head = handshake(fd, "/attach/default/att/c?stdout=true", "websocket",
                         "v5.channel.k8s.io, v4.channel.k8s.io", &rest);
        if (strncmp(head, "HTTP/1.1 101", 12) != 0)
                fail_msg("no 101: %s", head);
        assert_non_null(strstr(head, "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo="));
        assert_non_null(strstr(head, "Sec-WebSocket-Protocol: v5.channel.k8s.io"));
        ws_reader_init(&r, false, 1 << 20);
        ws_reader_push(&r, rest.buf, rest.len);
        /* K8S: an empty message on stdout says the session is up */
        next_message(fd, &r, &m);
        assert_int_equal(m.opcode, WS_OP_BINARY);
        assert_int_equal(m.len, 1);
        assert_int_equal(m.data[0], 1);
        /* what the container writes from now on arrives on stdout (the line written before the
         * attach does not); written until it is seen, the relay starting at its own pace */
        while (!seen) {
                struct pollfd p = { .fd = fd, .events = POLLIN };

                put("default/att/c/0", "container.log", T2 " stdout F live\n", "a");
                if (r.in.len == r.in_off && poll(&p, 1, 500) == 0)
                        continue;
                next_message(fd, &r, &m);
                assert_int_equal(m.opcode, WS_OP_BINARY);
                assert_true(m.len > 1 && m.data[0] == 1);
                for (size_t off = 1; off < m.len; off += 5)
                        if (m.len - off < 5 || memcmp(m.data + off, "live\n", 5) != 0)
                                fail_msg("unexpected output: %.*s", (int) m.len - 1, m.data + 1);
                seen = true;
        }
        /* the container exits: Success on the error channel, then a normal close */
        mark_exited("default/att/c/0");
        do
                next_message(fd, &r, &m);
        while (m.opcode == WS_OP_BINARY && m.data[0] == 1);
        assert_int_equal(m.opcode, WS_OP_BINARY);
        assert_int_equal(m.data[0], 3);
        assert_memory_equal(m.data + 1, "{\"metadata\":{},\"status\":\"Success\"}", m.len - 1);
        next_message(fd, &r, &m);
        assert_int_equal(m.opcode, WS_OP_CLOSE);
        assert_int_equal(m.len, 2);
        assert_int_equal(m.data[0] << 8 | m.data[1], WS_CLOSE_NORMAL);
        ws_reader_release(&r);
        strbuf_release(&rest);
        close(fd);
}

static void test_stream_refusals(void **state)
{
        static const struct {
                const char *path, *upgrade, *proto, *want;
        } cases[] = {
                { "/attach/default/att2/c?stdout=true", NULL, "v5.channel.k8s.io", "HTTP/1.1 400" },
                { "/attach/default/att2/c?stdout=true", "websocket", "v3.channel.k8s.io",
                  "HTTP/1.1 400" },
                /* K8S containerd ContainerIO.Attach: stdin asked of a container without one is
                 * no refusal, the session's stdin is dropped (runtime.h "attach") */
                { "/attach/default/att2/c?stdin=true&stdout=true", "websocket", "v5.channel.k8s.io",
                  "HTTP/1.1 101" },
                { "/attach/default/att2/c", "websocket", "v5.channel.k8s.io", "HTTP/1.1 400" },
                { "/exec/default/att2/c?stdout=true", "websocket", "v5.channel.k8s.io",
                  "HTTP/1.1 400" },
                { "/exec/default/nopod/c?stdout=true&command=ls", "websocket", "v5.channel.k8s.io",
                  "HTTP/1.1 404" },
                { "/exec/default/att2/nope?stdout=true&command=ls", "websocket",
                  "v5.channel.k8s.io", "HTTP/1.1 404" },
        };

        put("default/att2/c/0", "container.log", "", "w");
        mark_running("default/att2/c/0");
        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                struct strbuf rest;
                cleanup_free char *head = NULL;
                int fd = ws_connect();

                strbuf_init(&rest);
                head = handshake(fd, cases[i].path, cases[i].upgrade, cases[i].proto, &rest);
                if (strncmp(head, cases[i].want, strlen(cases[i].want)) != 0)
                        fail_msg("%s: got %s", cases[i].path, head);
                strbuf_release(&rest);
                close(fd);
        }
}

static void test_exit_status(void **state)
{
        const char *argv[] = { "sh", "-c", "exit 3", NULL };
        cleanup_free char *ok = kubelet_stream_exit_status(argv, 0);
        cleanup_free char *three = kubelet_stream_exit_status(argv, 3);

        assert_string_equal(ok, "{\"metadata\":{},\"status\":\"Success\"}");
        /* K8S remotecommand: what kubectl turns into "command terminated with exit code 3" */
        assert_string_equal(
                three,
                "{\"metadata\":{},\"status\":\"Failure\",\"message\":\"command terminated with "
                "non-zero exit code: error executing command [sh -c exit 3], exit code 3\","
                "\"reason\":\"NonZeroExitCode\",\"details\":{\"causes\":[{\"reason\":"
                "\"ExitCode\",\"message\":\"3\"}]}}");
}

static void test_https(void **state)
{
        static const char *const ips[] = { "127.0.0.1", NULL };
        cleanup_free char *data = xasprintf("%s/pki-data", root);
        cleanup_free char *ca = xasprintf("%s/pki/ca.crt", data);
        cleanup_free char *u = NULL;
        cleanup_pki struct pki *p = NULL;
        struct kubelet_server *k = NULL;

        {
                struct pki_options po = { .data_dir = data,
                                          .ip_addresses = ips,
                                          .server_url = "https://127.0.0.1:1" };
                assert_true(pki_ensure(&po, &p, NULL) >= 0);
        }
        {
                struct kubelet_server_options o = { .listen = "127.0.0.1:0",
                                                    .cert_pem = pki_server_cert_pem(p),
                                                    .key_pem = pki_server_key_pem(p),
                                                    .token = TOKEN,
                                                    .find_container = fake_find_container,
                                                    .ud = root };
                assert_int_equal(kubelet_server_start(&o, &k, NULL), 0);
        }
        u = xasprintf("https://127.0.0.1:%u", kubelet_server_port(k));
        {
                struct api_client_options o = { .server_url = u, .ca_file = ca, .token = TOKEN };
                cleanup_api_client struct api_client *c = NULL;
                struct reply r = { 0 };

                strbuf_init(&r.body);
                assert_int_equal(api_client_new(&o, &c, NULL), 0);
                assert_int_equal(api_client_get_stream(c, "/containerLogs/default/web/side",
                                                       &reply_ops, &r, NULL),
                                 0);
                assert_int_equal(r.status, 200);
                assert_string_equal(r.body.buf, "side car\n");
                strbuf_release(&r.body);
        }
        kubelet_server_stop(k);
}

int main(int argc, char **argv)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_log_and_options),
                cmocka_unit_test(test_stats_summary),
                cmocka_unit_test(test_since_seconds_counts_from_now),
                cmocka_unit_test(test_errors),
                cmocka_unit_test(test_token_and_methods),
                cmocka_unit_test(test_follow_ends_when_the_container_exits),
                cmocka_unit_test(test_follow_stops_when_the_client_goes),
                cmocka_unit_test(test_stop_ends_a_follow),
                cmocka_unit_test(test_refusal_words),
                cmocka_unit_test(test_start_errors),
                cmocka_unit_test(test_attach_websocket),
                cmocka_unit_test(test_stream_refusals),
                cmocka_unit_test(test_exit_status),
                cmocka_unit_test(test_https),
        };

        if (argc > 1 && streq(argv[1], "serve"))
                return serve_main(argc, argv);
        return cmocka_run_group_tests(tests, setup, teardown);
}
