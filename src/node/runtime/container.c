/* container.c: the agent's side of a container: write its spec and launch its supervisor, read
 * its state back from the state dir (and nothing else, so a restarted agent sees the same),
 * signal it, wait for it, remove it. The supervisor itself is supervisor.c. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/timeutil.h"
#include "node/runtime/runtime-internal.h"

#define SUPERVISOR_START_TIMEOUT_MS 30000
/* a spec without a supervisor after this long: the launch died (an agent killed mid-start) */
#define SUPERVISOR_LOST_AFTER_S 60
#define REMOVE_TIMEOUT_MS       10000

static const char *const phase_names[RUNTIME_CONTAINER_PHASE_MAX] = {
        [RUNTIME_CONTAINER_CREATED] = "created",
        [RUNTIME_CONTAINER_RUNNING] = "running",
        [RUNTIME_CONTAINER_EXITED] = "exited",
};

const char *runtime_container_phase_to_string(enum runtime_container_phase p)
{
        return p < RUNTIME_CONTAINER_PHASE_MAX ? phase_names[p] : NULL;
}

char *runtime_container_dir(const char *data_dir, const char *pod_uid, const char *name,
                            unsigned restart_count)
{
        return xasprintf("%s/pods/%s/containers/%s/%u", data_dir, pod_uid, name, restart_count);
}

char *runtime_container_log_path(const char *state_dir)
{
        return xasprintf("%s/" RT_LOG_FILE, state_dir);
}

void runtime_container_spec_use_image(struct runtime_container_spec *s,
                                      const struct runtime_image *img)
{
        s->rootfs = img->rootfs;
        s->image_lowerdirs = img->lowerdirs && img->lowerdirs[0] && img->lowerdirs[1]
                                     ? (const char *const *) img->lowerdirs
                                     : NULL;
        s->image_entrypoint = (const char *const *) img->entrypoint;
        s->image_cmd = (const char *const *) img->cmd;
        s->image_env = (const char *const *) img->env;
        s->image_working_dir = img->working_dir;
        s->image_reference = img->reference;
}

int runtime_container_start(const struct runtime_container_spec *spec, struct error **reterr)
{
        cleanup_close int dfd = -1, notify = -1;
        cleanup_free char *payload = NULL;
        const char *args[2];
        struct rt_seccomp_bpf bpf;
        struct stat st;
        json_t *j;
        int r;

        r = rt_spec_check(spec, reterr);
        if (r < 0)
                return r;
        if ((r = fs_mkdir_p(spec->state_dir, 0755)) < 0)
                return error_set(reterr, -r, "start container: create \"%s\": %s", spec->state_dir,
                                 strerror(-r));
        dfd = open(spec->state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return error_set(reterr, errno, "start container: open \"%s\": %s", spec->state_dir,
                                 strerror(errno));
        if (fstatat(dfd, RT_SPEC_FILE, &st, 0) == 0)
                return error_set(reterr, EEXIST, "start container: \"%s\" was already used",
                                 spec->state_dir);
        /* the seccomp filter compiled here, in the long-lived caller, once per distinct filter */
        r = rt_confine_seccomp(spec, &bpf, reterr);
        if (r < 0)
                return error_wrap(reterr, "start container");
        if (bpf.len) {
                cleanup_free char *buf = xmalloc(bpf.len + 4);
                uint32_t flags = bpf.flags;

                memcpy(buf, &flags, 4);
                memcpy(buf + 4, bpf.prog, bpf.len);
                r = fs_write_file_atomic(dfd, RT_SECCOMP_FILE, buf, bpf.len + 4);
                free(bpf.prog);
                if (r < 0)
                        return error_set(reterr, -r,
                                         "start container: write its seccomp filter: %s",
                                         strerror(-r));
        }
        j = rt_spec_to_json(spec);
        r = fs_write_json_atomic(dfd, RT_SPEC_FILE, j);
        json_decref(j);
        if (r < 0)
                return error_set(reterr, -r, "start container: write its spec: %s", strerror(-r));
        args[0] = spec->state_dir;
        args[1] = NULL;
        r = rt_spawn_helper(args, &notify, reterr);
        if (r < 0)
                return error_wrap(reterr, "start container");
        r = rt_read_notify(notify, SUPERVISOR_START_TIMEOUT_MS, &payload, reterr);
        if (r < 0)
                return error_wrap(reterr, "start container");
        return 0;
}

void runtime_container_status_release(struct runtime_container_status *s)
{
        free(s->reason);
        free(s->message);
        s->reason = s->message = NULL;
}

struct proc_record {
        pid_t pid;
        uint64_t ticks;
};

static int read_proc_record(int dfd, const char *name, struct proc_record *ret, json_t **ret_json)
{
        json_t *j = NULL, *pid, *ticks;
        int r = fs_read_json_at(dfd, name, &j);

        if (r < 0)
                return r;
        pid = json_object_get(j, "pid");
        ticks = json_object_get(j, "startTime");
        if (!json_is_integer(pid) || !json_is_integer(ticks)) {
                json_decref(j);
                return -EBADMSG;
        }
        ret->pid = (pid_t) json_integer_value(pid);
        ret->ticks = (uint64_t) json_integer_value(ticks);
        if (ret_json)
                *ret_json = j;
        else
                json_decref(j);
        return 0;
}

/* 1 when the recorded process still runs, 0 when not. */
static int record_alive(const struct proc_record *p)
{
        int fd = rt_pidfd_open_checked(p->pid, p->ticks);

        if (fd == -ESRCH)
                return 0;
        if (fd < 0)
                return fd;
        close(fd);
        return 1;
}

static void parse_time(const json_t *o, const char *key, struct timespec *ret)
{
        const char *s = json_string_value(json_object_get(o, key));

        *ret = (struct timespec){ 0 };
        if (s)
                (void) rt_time_parse(s, strlen(s), ret);
}

static int read_exit(int dfd, struct runtime_container_status *st)
{
        json_t *j = NULL;
        const char *s;
        int r = fs_read_json_at(dfd, RT_EXIT_FILE, &j);

        if (r < 0)
                return r;
        st->phase = RUNTIME_CONTAINER_EXITED;
        st->exit_code = (int) json_integer_value(json_object_get(j, "exitCode"));
        st->signal = (int) json_integer_value(json_object_get(j, "signal"));
        st->wait_status = json_is_integer(json_object_get(j, "waitStatus"))
                                  ? (int) json_integer_value(json_object_get(j, "waitStatus"))
                                  : -1;
        parse_time(j, "startedAt", &st->started_at);
        parse_time(j, "finishedAt", &st->finished_at);
        if ((s = json_string_value(json_object_get(j, "reason"))))
                st->reason = xstrdup(s);
        if ((s = json_string_value(json_object_get(j, "message"))))
                st->message = xstrdup(s);
        json_decref(j);
        return 0;
}

static void set_lost(struct runtime_container_status *st, const char *why)
{
        st->phase = RUNTIME_CONTAINER_EXITED;
        /* K8S: the kubelet's words for a container it can no longer find */
        st->exit_code = 137;
        st->signal = 0;
        st->wait_status = -1;
        rt_now(&st->finished_at);
        st->reason = xstrdup("ContainerStatusUnknown");
        st->message = xstrdup(why);
}

int runtime_container_state(const char *state_dir, struct runtime_container_status *ret,
                            struct error **reterr)
{
        struct runtime_container_status st = { .phase = RUNTIME_CONTAINER_CREATED,
                                               .wait_status = -1 };
        cleanup_close int dfd = open(state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        struct proc_record started = { 0 }, sup = { 0 };
        json_t *sj = NULL;
        struct stat spec_st;
        int r, has_started, has_sup;

        if (dfd < 0 || fstatat(dfd, RT_SPEC_FILE, &spec_st, 0) < 0)
                return error_set(reterr, errno, "container state \"%s\": %s", state_dir,
                                 errno == ENOENT ? "never started" : strerror(errno));
        /* started.json is read before exit.json: a container seen without an exit record is
         * then known to have been running, whatever happens between the two reads */
        r = read_proc_record(dfd, RT_STARTED_FILE, &started, &sj);
        has_started = r == 0;
        if (has_started) {
                st.pid = started.pid;
                parse_time(sj, "startedAt", &st.started_at);
                json_decref(sj);
        }
        r = read_exit(dfd, &st);
        if (r == 0)
                goto done;
        if (r != -ENOENT)
                return error_set(reterr, -r, "container state \"%s\": read %s: %s", state_dir,
                                 RT_EXIT_FILE, strerror(-r));
        has_sup = read_proc_record(dfd, RT_SUPERVISOR_FILE, &sup, NULL) == 0;
        if (has_started && record_alive(&started) != 0) {
                st.phase = RUNTIME_CONTAINER_RUNNING;
                goto done;
        }
        if (has_sup && record_alive(&sup) != 0) {
                /* the supervisor is setting up, or about to record the exit */
                st.phase = has_started ? RUNTIME_CONTAINER_RUNNING : RUNTIME_CONTAINER_CREATED;
                goto done;
        }
        /* no one is there: look once more for an exit written meanwhile */
        if (read_exit(dfd, &st) == 0)
                goto done;
        if (has_started)
                set_lost(&st, "the container's supervisor ended without recording its exit");
        else if (has_sup || time(NULL) - spec_st.st_mtime > SUPERVISOR_LOST_AFTER_S)
                set_lost(&st, "the container's supervisor ended before starting it");
done:
        *ret = st;
        return 0;
}

int runtime_container_kill(const char *state_dir, int sig, struct error **reterr)
{
        cleanup_close int dfd = open(state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        struct proc_record p;
        int fd, r;

        if (dfd < 0)
                return error_set(reterr, errno, "kill container \"%s\": %s", state_dir,
                                 strerror(errno));
        if (faccessat(dfd, RT_EXIT_FILE, F_OK, 0) == 0)
                return error_set(reterr, ESRCH, "kill container \"%s\": it has exited", state_dir);
        r = read_proc_record(dfd, RT_STARTED_FILE, &p, NULL);
        if (r == -ENOENT)
                return error_set(reterr, ESRCH, "kill container \"%s\": it is not running",
                                 state_dir);
        if (r < 0)
                return error_set(reterr, -r, "kill container \"%s\": read %s: %s", state_dir,
                                 RT_STARTED_FILE, strerror(-r));
        fd = rt_pidfd_open_checked(p.pid, p.ticks);
        if (fd < 0)
                return error_set(reterr, -fd, "kill container \"%s\": %s", state_dir,
                                 fd == -ESRCH ? "it is not running" : strerror(-fd));
        r = rt_pidfd_send_signal(fd, sig);
        close(fd);
        if (r < 0)
                return error_set(reterr, -r, "kill container \"%s\": %s", state_dir, strerror(-r));
        return 0;
}

int runtime_container_exit_fd(const char *state_dir, struct error **reterr)
{
        cleanup_close int dfd = open(state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        struct proc_record sup;
        int fd, r;

        if (dfd < 0)
                return error_set(reterr, errno, "container \"%s\": %s", state_dir, strerror(errno));
        r = read_proc_record(dfd, RT_SUPERVISOR_FILE, &sup, NULL);
        if (r < 0)
                return error_set(reterr, r == -ENOENT ? ESRCH : -r, "container \"%s\": read %s: %s",
                                 state_dir, RT_SUPERVISOR_FILE,
                                 r == -ENOENT ? "no supervisor" : strerror(-r));
        fd = rt_pidfd_open_checked(sup.pid, sup.ticks);
        if (fd < 0)
                return error_set(reterr, -fd, "container \"%s\": its supervisor: %s", state_dir,
                                 fd == -ESRCH ? "it has ended" : strerror(-fd));
        return fd;
}

int runtime_container_wait(const char *state_dir, int timeout_ms, struct error **reterr)
{
        int64_t deadline = time_monotonic_ms() + timeout_ms;

        for (;;) {
                struct runtime_container_status st;
                int r = runtime_container_state(state_dir, &st, reterr);

                if (r < 0)
                        return r;
                runtime_container_status_release(&st);
                if (st.phase == RUNTIME_CONTAINER_EXITED)
                        return 1;
                if (time_monotonic_ms() >= deadline)
                        return 0;
                (void) usleep(20000);
        }
}

int runtime_container_remove(const char *state_dir, struct error **reterr)
{
        cleanup_close int dfd = open(state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        int64_t deadline = time_monotonic_ms() + REMOVE_TIMEOUT_MS;
        struct proc_record sup;
        int r;

        if (dfd < 0) {
                if (errno == ENOENT)
                        return 0;
                return error_set(reterr, errno, "remove container \"%s\": %s", state_dir,
                                 strerror(errno));
        }
        if (faccessat(dfd, RT_SPEC_FILE, F_OK, 0) == 0) {
                /* kill it, waiting through setup when it is not started yet */
                for (;;) {
                        struct runtime_container_status st;

                        r = runtime_container_state(state_dir, &st, NULL);
                        if (r < 0)
                                break;
                        runtime_container_status_release(&st);
                        if (st.phase == RUNTIME_CONTAINER_EXITED)
                                break;
                        if (st.phase == RUNTIME_CONTAINER_RUNNING)
                                (void) runtime_container_kill(state_dir, SIGKILL, NULL);
                        if (time_monotonic_ms() >= deadline)
                                return error_set(
                                        reterr, ETIMEDOUT,
                                        "remove container \"%s\": it did not stop within %d ms",
                                        state_dir, REMOVE_TIMEOUT_MS);
                        (void) usleep(20000);
                }
        }
        /* the supervisor writes the exit record last; let it leave before the files go */
        if (read_proc_record(dfd, RT_SUPERVISOR_FILE, &sup, NULL) == 0) {
                int fd = rt_pidfd_open_to_wait(sup.pid, sup.ticks);
                if (fd >= 0) {
                        int64_t left = deadline - time_monotonic_ms();
                        (void) rt_pidfd_wait(fd, left > 0 ? (int) left : 0);
                        close(fd);
                }
        }
        r = fs_remove_tree(state_dir);
        if (r < 0)
                return error_set(reterr, -r, "remove container \"%s\": %s", state_dir,
                                 strerror(-r));
        return 0;
}
