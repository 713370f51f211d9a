/* test-runtime-log.c: CRI container logs: the records the supervisor writes (F lines, P pieces
 * of lines over 16 KiB, the unterminated rest at the end), their parsing, and what a read
 * returns for kubectl logs' options as the kubelet renders them: --tail counted in records,
 * --timestamps at the start of each line only, --since, --limit-bytes, --follow on an exited
 * container. Files live in a temporary folder. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "node/runtime/runtime-internal.h"

static char dir[64];

static int setup(void **state)
{
        strcpy(dir, "/tmp/test-runtime-log-XXXXXX");
        return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
        return fs_remove_tree(dir);
}

static char *path_of(const char *name)
{
        return xasprintf("%s/%s", dir, name);
}

static void put(const char *name, const char *text)
{
        cleanup_free char *p = path_of(name);
        FILE *f = fopen(p, "w");

        assert_non_null(f);
        fputs(text, f);
        fclose(f);
}

static char *get(const char *name)
{
        cleanup_free char *p = path_of(name);
        cleanup_close int dfd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        char *s = NULL;

        assert_int_equal(fs_read_file_at(dfd, p + 1, 1 << 24, &s, NULL), 0);
        return s;
}

struct sink {
        struct strbuf sb;
        int calls;
        int stop_after; /* 0: never */
        int stop_with;
};

static int sink_write(void *ud, const char *buf, size_t n)
{
        struct sink *s = ud;

        strbuf_add(&s->sb, buf, n);
        if (s->stop_after && ++s->calls >= s->stop_after)
                return s->stop_with;
        return 0;
}

static char *read_log(const char *name, const struct runtime_log_options *o, int *ret)
{
        cleanup_free char *p = path_of(name);
        struct sink s = { 0 };
        int r;

        strbuf_init(&s.sb);
        r = runtime_log_read(p, o, sink_write, &s, NULL);
        if (ret)
                *ret = r;
        else
                assert_int_equal(r, 0);
        return strbuf_detach(&s.sb);
}

/* ------------------------------------------------------------------ records */

static void test_format(void **state)
{
        struct timespec ts = { .tv_sec = 1767225600, .tv_nsec = 5 }; /* 2026-01-01 */
        struct strbuf sb;

        strbuf_init(&sb);
        rt_log_format(&sb, &ts, RT_STDOUT, false, "hello", 5);
        rt_log_format(&sb, &ts, RT_STDERR, true, "", 0);
        assert_string_equal(sb.buf, "2026-01-01T00:00:00.000000005Z stdout F hello\n"
                                    "2026-01-01T00:00:00.000000005Z stderr P \n");
        strbuf_release(&sb);
}

static void test_parse(void **state)
{
        static const struct {
                const char *line;
                int ok;
                long long sec;
                long nsec;
                enum rt_stream stream;
                bool partial;
                const char *content;
        } cases[] = {
                /* K8S: logs_test.go's CRI examples */
                { "2016-10-06T00:17:09.669794202Z stdout F log content 1\n", 0, 1475713029,
                  669794202, RT_STDOUT, false, "log content 1\n" },
                { "2016-10-06T00:17:09.669794203Z stderr F log content 2\n", 0, 1475713029,
                  669794203, RT_STDERR, false, "log content 2\n" },
                { "2016-10-06T00:17:10.113242941Z stderr P log content 3\n", 0, 1475713030,
                  113242941, RT_STDERR, true, "log content 3" },
                { "2016-10-06T00:17:09Z stdout F no fraction\n", 0, 1475713029, 0, RT_STDOUT, false,
                  "no fraction\n" },
                { "2016-10-06T02:17:09.5+02:00 stdout F offset\n", 0, 1475713029, 500000000,
                  RT_STDOUT, false, "offset\n" },
                { "2016-10-06T00:17:09.1Z stdout F:x future tags\n", 0, 1475713029, 100000000,
                  RT_STDOUT, false, "future tags\n" },
                { "2016-10-06T00:17:09.1Z stdout P:x\n", -EINVAL, 0, 0, RT_STDOUT, false, NULL },
                { "2016-10-06T00:17:09.1Z stdin F what\n", -EINVAL, 0, 0, RT_STDOUT, false, NULL },
                { "not-a-time stdout F x\n", -EINVAL, 0, 0, RT_STDOUT, false, NULL },
                { "2016-10-06T00:17:09.1Z stdout\n", -EINVAL, 0, 0, RT_STDOUT, false, NULL },
                { "", -EINVAL, 0, 0, RT_STDOUT, false, NULL },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                struct rt_log_record rec;
                int r = rt_log_parse(cases[i].line, strlen(cases[i].line), &rec);

                if (r != cases[i].ok)
                        fail_msg("case %zu \"%s\": %d, want %d", i, cases[i].line, r, cases[i].ok);
                if (r < 0)
                        continue;
                assert_int_equal(rec.time.tv_sec, cases[i].sec);
                assert_int_equal(rec.time.tv_nsec, cases[i].nsec);
                assert_int_equal(rec.stream, cases[i].stream);
                assert_int_equal(rec.partial, cases[i].partial);
                assert_int_equal(rec.len, strlen(cases[i].content));
                assert_memory_equal(rec.content, cases[i].content, rec.len);
        }
}

/* ------------------------------------------------------------------ writing */

static void fixed_clock(struct timespec *ret)
{
        ret->tv_sec = 1767225600;
        ret->tv_nsec = 0;
}

#define T "2026-01-01T00:00:00.000000000Z "

static void test_writer(void **state)
{
        cleanup_free char *p = path_of("w.log"), *got = NULL, *big = NULL, *want = NULL;
        int fd = open(p, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        struct rt_log_writer w;
        size_t n = 2 * RUNTIME_LOG_MAX_LINE + 100;

        assert_true(fd >= 0);
        rt_log_writer_init(&w, fd);
        w.clock = fixed_clock;
        /* lines split across writes and streams kept apart */
        assert_int_equal(rt_log_writer_feed(&w, RT_STDOUT, "one\ntw", 6), 0);
        assert_int_equal(rt_log_writer_feed(&w, RT_STDERR, "err", 3), 0);
        assert_int_equal(rt_log_writer_feed(&w, RT_STDOUT, "o\n\nthree", 8), 0);
        assert_int_equal(rt_log_writer_feed(&w, RT_STDERR, "!\n", 2), 0);
        /* a line over the maximum: pieces of exactly the maximum, then the rest */
        big = xmalloc(n + 1);
        memset(big, 'x', n);
        big[n] = '\n';
        assert_int_equal(rt_log_writer_feed(&w, RT_STDERR, big, n + 1), 0);
        /* exactly the maximum, then a newline: one P and an empty F (as containerd) */
        assert_int_equal(rt_log_writer_feed(&w, RT_STDERR, big, RUNTIME_LOG_MAX_LINE), 0);
        assert_int_equal(rt_log_writer_feed(&w, RT_STDERR, "\n", 1), 0);
        /* the unterminated rest is a full record at the end */
        assert_int_equal(rt_log_writer_flush(&w, RT_STDOUT), 0);
        assert_int_equal(rt_log_writer_flush(&w, RT_STDERR), 0);
        rt_log_writer_release(&w);
        close(fd);

        got = get("w.log");
        {
                struct strbuf sb;
                strbuf_init(&sb);
                strbuf_addstr(&sb, T "stdout F one\n" T "stdout F two\n" T "stdout F \n" T
                                     "stderr F err!\n");
                strbuf_addstr(&sb, T "stderr P ");
                strbuf_add(&sb, big, RUNTIME_LOG_MAX_LINE);
                strbuf_addstr(&sb, "\n" T "stderr P ");
                strbuf_add(&sb, big, RUNTIME_LOG_MAX_LINE);
                strbuf_addstr(&sb, "\n" T "stderr F ");
                strbuf_add(&sb, big, 100);
                strbuf_addstr(&sb, "\n" T "stderr P ");
                strbuf_add(&sb, big, RUNTIME_LOG_MAX_LINE);
                strbuf_addstr(&sb, "\n" T "stderr F \n" T "stdout F three\n");
                want = strbuf_detach(&sb);
        }
        assert_string_equal(got, want);
}

/* ------------------------------------------------------------------ tail */

static void test_tail_offset(void **state)
{
        static const struct {
                const char *text;
                int64_t n;
                off_t want;
        } cases[] = {
                /* K8S pkg/util/tail: the start of the last n lines; an unterminated last line
                 * is not counted */
                { "a\nb\nc\n", -1, 0 }, { "a\nb\nc\n", 0, 6 }, { "a\nb\nc\n", 1, 4 },
                { "a\nb\nc\n", 2, 2 },  { "a\nb\nc\n", 3, 0 }, { "a\nb\nc\n", 10, 0 },
                { "a\nb\nc", 0, 4 },    { "a\nb\nc", 1, 2 },   { "a\nb\nc", 2, 0 },
                { "", 3, 0 },           { "\n\n", 1, 1 },
        };

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                cleanup_free char *p = path_of("tail");
                cleanup_close int fd = -1;
                off_t off = -5;

                put("tail", cases[i].text);
                fd = open(p, O_RDONLY | O_CLOEXEC);
                assert_int_equal(rt_log_tail_offset(fd, cases[i].n, &off), 0);
                if (off != cases[i].want)
                        fail_msg("\"%s\" tail %lld: %lld, want %lld", cases[i].text,
                                 (long long) cases[i].n, (long long) off,
                                 (long long) cases[i].want);
        }
}

/* ------------------------------------------------------------------ reading */

#define L1 "2026-01-01T00:00:01.000000000Z stdout F first\n"
#define L2 "2026-01-01T00:00:02.5Z stderr P sec"
#define L3 "2026-01-01T00:00:03.000000000Z stderr F ond\n"
#define L4 "garbage that is not a record\n"
#define L5 "2026-01-01T00:00:04.000000000Z stdout F third\n"

static void test_read(void **state)
{
        struct runtime_log_options o = RUNTIME_LOG_OPTIONS_INIT;
        char *s;
        int r;

        put("r.log", L1 L2 "\n" L3 L4 L5);
        /* P pieces join; a line that does not parse is skipped */
        s = read_log("r.log", &o, NULL);
        assert_string_equal(s, "first\nsecond\nthird\n");
        free(s);

        /* K8S: the timestamp goes at the start of a line only, from its first record */
        o.timestamps = true;
        s = read_log("r.log", &o, NULL);
        assert_string_equal(s, "2026-01-01T00:00:01.000000000Z first\n"
                               "2026-01-01T00:00:02.500000000Z second\n"
                               "2026-01-01T00:00:04.000000000Z third\n");
        free(s);

        /* --tail counts records of the file (the garbage line too, as upstream's) */
        o = (struct runtime_log_options) RUNTIME_LOG_OPTIONS_INIT;
        o.tail_lines = 1;
        s = read_log("r.log", &o, NULL);
        assert_string_equal(s, "third\n");
        free(s);
        o.tail_lines = 3;
        s = read_log("r.log", &o, NULL);
        assert_string_equal(s, "ond\nthird\n");
        free(s);
        o.tail_lines = 0;
        s = read_log("r.log", &o, NULL);
        assert_string_equal(s, "");
        free(s);

        /* --since skips older records */
        o = (struct runtime_log_options) RUNTIME_LOG_OPTIONS_INIT;
        o.since.tv_sec = 1767225602; /* 00:00:02 */
        s = read_log("r.log", &o, NULL);
        assert_string_equal(s, "second\nthird\n");
        free(s);

        /* --limit-bytes cuts mid-record and stops */
        o = (struct runtime_log_options) RUNTIME_LOG_OPTIONS_INIT;
        o.limit_bytes = 9;
        s = read_log("r.log", &o, NULL);
        assert_string_equal(s, "first\nsec");
        free(s);
        o.limit_bytes = 0;
        s = read_log("r.log", &o, NULL);
        assert_string_equal(s, "");
        free(s);

        /* an unterminated last record still shows when not following */
        put("u.log", L1 "2026-01-01T00:00:05Z stdout F cut");
        o = (struct runtime_log_options) RUNTIME_LOG_OPTIONS_INIT;
        s = read_log("u.log", &o, NULL);
        assert_string_equal(s, "first\ncut");
        free(s);

        /* a missing log */
        s = read_log("missing.log", &o, &r);
        assert_int_equal(r, -ENOENT);
        free(s);
}

static void test_writer_stops(void **state)
{
        cleanup_free char *p = path_of("r.log");
        struct runtime_log_options o = RUNTIME_LOG_OPTIONS_INIT;
        struct sink s = { .stop_after = 1, .stop_with = 1 };

        put("r.log", L1 L5);
        strbuf_init(&s.sb);
        assert_int_equal(runtime_log_read(p, &o, sink_write, &s, NULL), 0);
        assert_string_equal(s.sb.buf, "first\n");
        strbuf_reset(&s.sb);
        s.calls = 0;
        s.stop_with = -EPIPE;
        assert_int_equal(runtime_log_read(p, &o, sink_write, &s, NULL), -EPIPE);
        strbuf_release(&s.sb);
}

/* Following the log of a container that has exited returns once the log is drained. */
static void test_follow_exited(void **state)
{
        cleanup_free char *cdir = path_of("c"), *log = NULL, *s = NULL;
        struct runtime_log_options o = RUNTIME_LOG_OPTIONS_INIT;
        cleanup_close int dfd = -1;

        assert_int_equal(mkdir(cdir, 0755), 0);
        dfd = open(cdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_int_equal(fs_write_file_atomic(dfd, RT_SPEC_FILE, "{}", 2), 0);
        assert_int_equal(fs_write_file_atomic(dfd, RT_EXIT_FILE, "{\"exitCode\":0}", 14), 0);
        log = runtime_container_log_path(cdir);
        assert_int_equal(fs_write_file_atomic(dfd, RT_LOG_FILE, L1 L5, strlen(L1 L5)), 0);
        o.follow = true;
        o.state_dir = cdir;
        o.tail_lines = 1; /* with follow, tail only picks the start */
        {
                struct sink sk = { 0 };
                strbuf_init(&sk.sb);
                assert_int_equal(runtime_log_read(log, &o, sink_write, &sk, NULL), 0);
                s = strbuf_detach(&sk.sb);
        }
        assert_string_equal(s, "third\n");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_format),        cmocka_unit_test(test_parse),
                cmocka_unit_test(test_writer),        cmocka_unit_test(test_tail_offset),
                cmocka_unit_test(test_read),          cmocka_unit_test(test_writer_stops),
                cmocka_unit_test(test_follow_exited),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
