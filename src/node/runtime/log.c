/* log.c: container logs in the CRI format ("TIME STREAM TAG CONTENT", tag F for a full line
 * and P for a piece of a longer one), written by the supervisor and read back as the kubelet
 * serves pods/log: tail, since, limitBytes, timestamps and follow. Rotation is not done. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "node/runtime/runtime-internal.h"

/* a line of a log file longer than this is not ours: it is skipped, as a parse error would be */
#define LOG_READ_LINE_MAX (4 * RUNTIME_LOG_MAX_LINE)

static const char *const stream_names[] = { [RT_STDOUT] = "stdout", [RT_STDERR] = "stderr" };

void rt_log_format(struct strbuf *sb, const struct timespec *ts, enum rt_stream stream,
                   bool partial, const char *content, size_t len)
{
        char t[40];

        rt_time_format(ts, t);
        strbuf_addf(sb, "%s %s %c ", t, stream_names[stream], partial ? 'P' : 'F');
        strbuf_add(sb, content, len);
        strbuf_addch(sb, '\n');
}

/* K8S pkg/kubelet/kuberuntime/logs parseCRILog: time, stream, tags (the first one counts, more
 * may follow after ':'), content; a partial record's own '\n' is not part of the content. */
int rt_log_parse(const char *line, size_t len, struct rt_log_record *ret)
{
        const char *end = line + len, *p = line, *sp;
        struct rt_log_record r = { 0 };

        sp = memchr(p, ' ', (size_t) (end - p));
        if (!sp || rt_time_parse(p, (size_t) (sp - p), &r.time) < 0)
                return -EINVAL;
        p = sp + 1;
        sp = memchr(p, ' ', (size_t) (end - p));
        if (!sp)
                return -EINVAL;
        if (sp - p == 6 && memcmp(p, "stdout", 6) == 0)
                r.stream = RT_STDOUT;
        else if (sp - p == 6 && memcmp(p, "stderr", 6) == 0)
                r.stream = RT_STDERR;
        else
                return -EINVAL;
        p = sp + 1;
        sp = memchr(p, ' ', (size_t) (end - p));
        if (!sp)
                return -EINVAL;
        {
                const char *colon = memchr(p, ':', (size_t) (sp - p));
                size_t tag_len = (size_t) ((colon ? colon : sp) - p);
                r.partial = tag_len == 1 && p[0] == 'P';
        }
        if (r.partial && end > sp + 1 && end[-1] == '\n')
                end--;
        r.content = sp + 1;
        r.len = (size_t) (end - r.content);
        *ret = r;
        return 0;
}

int rt_log_tail_offset(int fd, int64_t n, off_t *ret)
{
        char buf[8192];
        off_t size, pos;
        int64_t count = 0;

        if (n < 0) {
                *ret = 0;
                return 0;
        }
        size = lseek(fd, 0, SEEK_END);
        if (size < 0)
                return -errno;
        /* the start of the last n lines is just after the (n+1)-th '\n' from the end */
        pos = size;
        while (pos > 0) {
                size_t chunk = pos > (off_t) sizeof(buf) ? sizeof(buf) : (size_t) pos;
                ssize_t got;

                pos -= (off_t) chunk;
                got = pread(fd, buf, chunk, pos);
                if (got < 0)
                        return -errno;
                if ((size_t) got != chunk)
                        return -EIO;
                for (size_t i = chunk; i-- > 0;) {
                        if (buf[i] != '\n')
                                continue;
                        if (++count == n + 1) {
                                *ret = pos + (off_t) i + 1;
                                return 0;
                        }
                }
        }
        *ret = 0;
        return 0;
}

/* ------------------------------------------------------------------ writing */

void rt_log_writer_init(struct rt_log_writer *w, int fd)
{
        w->fd = fd;
        strbuf_init(&w->pending[0]);
        strbuf_init(&w->pending[1]);
        strbuf_init(&w->out);
        w->clock = rt_now;
}

void rt_log_writer_release(struct rt_log_writer *w)
{
        strbuf_release(&w->pending[0]);
        strbuf_release(&w->pending[1]);
        strbuf_release(&w->out);
}

static int log_emit(struct rt_log_writer *w)
{
        const char *p = w->out.buf;
        size_t left = w->out.len;
        int r = 0;

        while (left > 0) {
                ssize_t n = write(w->fd, p, left);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        r = -errno;
                        break;
                }
                p += n;
                left -= (size_t) n;
        }
        strbuf_reset(&w->out);
        return r;
}

/* K8S containerd's log redirection: lines as F records; a run that fills the 16 KiB buffer
 * without a newline as a P record of exactly that size. One write per batch of records, on an
 * O_APPEND file, so a reader never sees half a record from us but at its very end. */
int rt_log_writer_feed(struct rt_log_writer *w, enum rt_stream s, const char *buf, size_t n)
{
        struct strbuf *pend = &w->pending[s];
        struct timespec now;

        w->clock(&now);
        while (n > 0) {
                const char *nl = memchr(buf, '\n', n);
                size_t room = RUNTIME_LOG_MAX_LINE - pend->len;
                size_t take = nl ? (size_t) (nl - buf) : n;

                if (take >= room) {
                        /* the line (so far) does not fit: a piece of exactly the maximum */
                        strbuf_add(pend, buf, room);
                        rt_log_format(&w->out, &now, s, true, pend->buf, pend->len);
                        strbuf_reset(pend);
                        buf += room;
                        n -= room;
                        continue;
                }
                if (!nl) {
                        strbuf_add(pend, buf, n);
                        break;
                }
                strbuf_add(pend, buf, take);
                rt_log_format(&w->out, &now, s, false, pend->buf, pend->len);
                strbuf_reset(pend);
                buf += take + 1;
                n -= take + 1;
        }
        return log_emit(w);
}

int rt_log_writer_flush(struct rt_log_writer *w, enum rt_stream s)
{
        struct strbuf *pend = &w->pending[s];
        struct timespec now;

        if (pend->len == 0)
                return 0;
        w->clock(&now);
        rt_log_format(&w->out, &now, s, false, pend->buf, pend->len);
        strbuf_reset(pend);
        return log_emit(w);
}

/* ------------------------------------------------------------------ reading */

struct log_reader {
        int fd;
        char *buf; /* unconsumed bytes: [start, end) */
        size_t start, end, cap;
        bool skipping; /* inside an over-long line, dropping until its '\n' */
};

/* The next complete line (with its '\n'), or NULL at the current end of the file. *at_eof
 * says whether bytes of an unterminated line are left. */
static int reader_next(struct log_reader *r, const char **ret, size_t *ret_len, bool *ret_partial)
{
        for (;;) {
                char *nl = r->start < r->end ? memchr(r->buf + r->start, '\n', r->end - r->start)
                                             : NULL;
                ssize_t n;

                if (nl) {
                        size_t len = (size_t) (nl - (r->buf + r->start)) + 1;
                        const char *line = r->buf + r->start;

                        r->start += len;
                        if (r->skipping) {
                                r->skipping = false;
                                continue;
                        }
                        *ret = line;
                        *ret_len = len;
                        return 1;
                }
                if (r->end - r->start >= LOG_READ_LINE_MAX) {
                        r->skipping = true;
                        r->start = r->end = 0;
                }
                if (r->start > 0) {
                        memmove(r->buf, r->buf + r->start, r->end - r->start);
                        r->end -= r->start;
                        r->start = 0;
                }
                if (r->cap - r->end < 4096) {
                        r->cap = r->cap ? r->cap * 2 : 65536;
                        r->buf = xrealloc(r->buf, r->cap);
                }
                n = read(r->fd, r->buf + r->end, r->cap - r->end);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (n == 0) {
                        *ret_partial = r->end > r->start && !r->skipping;
                        return 0;
                }
                r->end += (size_t) n;
        }
}

struct log_output {
        const struct runtime_log_options *o;
        runtime_log_write_fn write;
        void *ud;
        int64_t remain; /* limitBytes left */
        bool new_line;  /* the next record starts a line: it gets the timestamp */
        int64_t lines_left;
        bool done;
        int result;
};

static bool before(const struct timespec *a, const struct timespec *b)
{
        return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/* K8S logWriter.write plus ReadLogs' bookkeeping around it. */
static void output_line(struct log_output *out, const char *line, size_t len)
{
        const struct runtime_log_options *o = out->o;
        struct rt_log_record rec;
        struct strbuf sb;
        size_t n;
        int r;

        if (rt_log_parse(line, len, &rec) < 0)
                return; /* K8S: a line that does not parse is skipped */
        if (!(o->since.tv_sec == 0 && o->since.tv_nsec == 0) && before(&rec.time, &o->since))
                goto account;
        strbuf_init(&sb);
        if (o->timestamps && out->new_line) {
                char t[40];
                rt_time_format(&rec.time, t);
                strbuf_addstr(&sb, t);
                strbuf_addch(&sb, ' ');
        }
        strbuf_add(&sb, rec.content, rec.len);
        n = sb.len;
        if ((int64_t) n > out->remain)
                n = (size_t) out->remain;
        r = n > 0 ? out->write(out->ud, sb.buf, n) : 0;
        strbuf_release(&sb);
        out->remain -= (int64_t) n;
        if (r != 0) {
                out->done = true;
                out->result = r < 0 ? r : 0;
                return;
        }
        if (out->remain <= 0) {
                out->done = true;
                return;
        }
account:
        if (out->lines_left > 0 && --out->lines_left == 0)
                out->done = true;
        out->new_line = rec.len == 0 || rec.content[rec.len - 1] == '\n';
}

/* K8S: follow goes on while the container runs. */
static bool container_running(const char *state_dir)
{
        struct runtime_container_status st;
        bool running;

        if (!state_dir)
                return false;
        if (runtime_container_state(state_dir, &st, NULL) < 0)
                return false;
        running = st.phase != RUNTIME_CONTAINER_EXITED;
        runtime_container_status_release(&st);
        return running;
}

int runtime_log_read(const char *log_path, const struct runtime_log_options *o,
                     runtime_log_write_fn write, void *ud, struct error **reterr)
{
        struct log_reader rd = { .fd = -1 };
        struct log_output out = {
                .o = o,
                .write = write,
                .ud = ud,
                .remain = o->limit_bytes >= 0 ? o->limit_bytes : INT64_MAX,
                .new_line = true,
                .lines_left = o->tail_lines >= 0 && !o->follow ? o->tail_lines : -1,
        };
        cleanup_close int ino = -1;
        bool running = true;
        off_t start;
        int r;

        rd.fd = open(log_path, O_RDONLY | O_CLOEXEC);
        if (rd.fd < 0)
                return error_set(reterr, errno, "open log \"%s\": %s", log_path, strerror(errno));
        r = rt_log_tail_offset(rd.fd, o->tail_lines, &start);
        if (r >= 0 && lseek(rd.fd, start, SEEK_SET) < 0)
                r = -errno;
        if (r < 0) {
                close(rd.fd);
                return error_set(reterr, r, "read log \"%s\": %s", log_path, strerror(-r));
        }
        if (o->tail_lines == 0 && !o->follow)
                out.done = true;
        while (!out.done) {
                const char *line = NULL;
                size_t len = 0;
                bool partial = false;

                r = reader_next(&rd, &line, &len, &partial);
                if (r < 0) {
                        error_set(reterr, r, "read log \"%s\": %s", log_path, strerror(-r));
                        break;
                }
                if (r > 0) {
                        output_line(&out, line, len);
                        continue;
                }
                /* at the end of what is written so far */
                if (!o->follow || !running) {
                        /* K8S: an unterminated last line is still shown when not following */
                        if (!o->follow && partial) {
                                output_line(&out, rd.buf + rd.start, rd.end - rd.start);
                                rd.start = rd.end;
                        }
                        r = 0;
                        break;
                }
                if (ino < 0) {
                        ino = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
                        if (ino < 0 || inotify_add_watch(ino, log_path, IN_MODIFY) < 0) {
                                r = error_set(reterr, errno, "follow log \"%s\": inotify: %s",
                                              log_path, strerror(errno));
                                break;
                        }
                        continue; /* read once more: a write may have come before the watch */
                }
                /* K8S waitLogs: stop waiting once the container no longer runs, after one more
                 * pass over what it wrote last */
                if (!container_running(o->state_dir)) {
                        running = false;
                        continue;
                }
                {
                        struct pollfd pfd = { .fd = ino, .events = POLLIN };
                        int pr = poll(&pfd, 1, 1000);
                        char evbuf[4096];

                        if (pr < 0 && errno != EINTR) {
                                r = error_set(reterr, errno, "follow log: poll: %s",
                                              strerror(errno));
                                break;
                        }
                        if (pr > 0)
                                while (read(ino, evbuf, sizeof(evbuf)) > 0)
                                        ;
                        if (pr == 0 && o->idle && o->idle(ud) != 0) {
                                r = 0;
                                break;
                        }
                }
        }
        close(rd.fd);
        free(rd.buf);
        if (r < 0)
                return r;
        return out.result;
}
