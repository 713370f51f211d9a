/* test-runtime-e2e.c: the runtime for real, as root: a pod sandbox and busybox containers with a
 * bind-mounted host dir in a test cgroup; what the container sees (its own pid namespace with
 * the sandbox as pid 1, the pod's hostname, the volume, read-only mounts, env expansion), the
 * CRI log as `kubectl logs` shows it, kill and exit records, start errors, an imported image,
 * state read back by a process that did not start anything, and a cleanup that leaves no
 * mount, process, cgroup or folder. Skips when not root. This binary is also the runtime's
 * helper: the runtime starts /proc/self/exe, so main routes `supervise` as flexlet's does. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "base/strbuf.h"
#include "base/timeutil.h"
#include "node/runtime/runtime-internal.h"
#include "node/runtime/runtime.h"

#define HOSTNAME "rt-e2e-pod"

static struct {
        bool ready;
        const char *skip;
        char data[64];
        char *cgroup_dir;   /* a limit-free cgroup made for this run, or NULL */
        char *cgroup_procs; /* its cgroup.procs */
        char *sandbox_dir;
        pid_t sandbox_pid;
        struct runtime_image busybox;
        char *vol_ro, *vol_rw;
} g;

/* ------------------------------------------------------------------ helpers */

static char *slurp(const char *path)
{
        char *s = NULL;
        size_t len;
        cleanup_close int dfd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        if (fs_read_file_at(dfd, path + 1, 64 << 20, &s, &len) < 0)
                return NULL;
        return s;
}

static bool comm_is(pid_t pid, const char *name)
{
        cleanup_free char *path = xasprintf("/proc/%d/comm", (int) pid);
        cleanup_free char *comm = slurp(path);

        return comm && !strncmp(comm, name, strlen(name)) && comm[strlen(name)] == '\n';
}

static int collect(void *ud, const char *buf, size_t n)
{
        strbuf_add(ud, buf, n);
        return 0;
}

static char *logs(const char *state_dir, const struct runtime_log_options *o)
{
        cleanup_free char *path = runtime_container_log_path(state_dir);
        struct error *err = NULL;
        struct strbuf sb;
        int r;

        strbuf_init(&sb);
        r = runtime_log_read(path, o, collect, &sb, &err);
        if (r < 0)
                fail_msg("read log: %s", err->message);
        return strbuf_detach(&sb);
}

static char *all_logs(const char *state_dir)
{
        struct runtime_log_options o = RUNTIME_LOG_OPTIONS_INIT;
        return logs(state_dir, &o);
}

/* Waits until the container's log holds want (or it exited), up to 15 s. */
static bool wait_log(const char *state_dir, const char *want)
{
        for (int i = 0; i < 750; i++) {
                cleanup_free char *path = runtime_container_log_path(state_dir);
                cleanup_free char *s = slurp(path);
                if (s && strstr(s, want))
                        return true;
                usleep(20000);
        }
        return false;
}

static char *container_dir(const char *name, unsigned restart)
{
        return runtime_container_dir(g.data, "uid-e2e", name, restart);
}

static void base_spec(struct runtime_container_spec *s, const char *state_dir)
{
        static const char *procs[2];

        *s = (struct runtime_container_spec){ 0 };
        s->state_dir = state_dir;
        s->sandbox_dir = g.sandbox_dir;
        runtime_container_spec_use_image(s, &g.busybox);
        procs[0] = g.cgroup_procs;
        procs[1] = NULL;
        s->cgroup_procs = g.cgroup_procs ? procs : NULL;
}

static void start(const struct runtime_container_spec *s)
{
        struct error *err = NULL;

        if (runtime_container_start(s, &err) < 0)
                fail_msg("start container: %s", err->message);
}

static void get_state(const char *dir, struct runtime_container_status *st)
{
        struct error *err = NULL;

        if (runtime_container_state(dir, st, &err) < 0)
                fail_msg("container state: %s", err->message);
}

static void wait_exit(const char *dir)
{
        struct error *err = NULL;
        int r = runtime_container_wait(dir, 15000, &err);

        if (r < 0)
                fail_msg("wait: %s", err->message);
        assert_int_equal(r, 1);
}

static char *ns_link(pid_t pid, const char *ns)
{
        char path[64], buf[128];
        ssize_t n;

        (void) snprintf(path, sizeof(path), "/proc/%d/ns/%s", (int) pid, ns);
        n = readlink(path, buf, sizeof(buf) - 1);
        if (n < 0)
                return xstrdup("?");
        buf[n] = '\0';
        return xstrdup(buf);
}

/* Processes whose command line mentions s (our helpers carry their state dir in argv); with
 * kill, they are killed too (only ever ours: s is this run's data dir). */
static int processes_mentioning_kill(const char *s, bool kill_them)
{
        DIR *d = opendir("/proc");
        struct dirent *de;
        int count = 0;

        while (d && (de = readdir(d))) {
                char path[300];
                char buf[4096];
                ssize_t n;
                int fd;

                if (de->d_name[0] < '0' || de->d_name[0] > '9')
                        continue;
                (void) snprintf(path, sizeof(path), "/proc/%s/cmdline", de->d_name);
                fd = open(path, O_RDONLY | O_CLOEXEC);
                if (fd < 0)
                        continue;
                n = read(fd, buf, sizeof(buf) - 1);
                close(fd);
                if (n <= 0)
                        continue;
                for (ssize_t i = 0; i < n; i++)
                        if (buf[i] == '\0')
                                buf[i] = ' ';
                buf[n] = '\0';
                if (strstr(buf, s)) {
                        count++;
                        if (kill_them)
                                (void) kill((pid_t) atoi(de->d_name), SIGKILL);
                }
        }
        if (d)
                closedir(d);
        return count;
}

static int processes_mentioning(const char *s)
{
        return processes_mentioning_kill(s, false);
}

static int mounts_mentioning(const char *s)
{
        cleanup_free char *mi = slurp("/proc/self/mountinfo");
        int count = 0;

        for (const char *p = mi; p && (p = strstr(p, s)); p++)
                count++;
        return count;
}

static void kill_cgroup(void)
{
        for (int round = 0; g.cgroup_procs && round < 100; round++) {
                FILE *f = fopen(g.cgroup_procs, "r");
                long pid;
                bool any = false;

                if (!f)
                        return;
                while (fscanf(f, "%ld", &pid) == 1) {
                        any = true;
                        kill((pid_t) pid, SIGKILL);
                }
                fclose(f);
                if (!any)
                        return;
                usleep(10000);
        }
}

/* ------------------------------------------------------------------ setup / teardown */

static void make_cgroup(void)
{
        static const char *const candidates[] = { "/sys/fs/cgroup/pids", "/sys/fs/cgroup/memory",
                                                  "/sys/fs/cgroup/cpu" };
        struct stat st;

        if (stat("/sys/fs/cgroup/cgroup.controllers", &st) == 0) {
                g.cgroup_dir = xasprintf("/sys/fs/cgroup/flexlet-rt-e2e-%d", (int) getpid());
        } else {
                for (size_t i = 0; i < ARRAY_SIZE(candidates) && !g.cgroup_dir; i++)
                        if (stat(candidates[i], &st) == 0)
                                g.cgroup_dir = xasprintf("%s/flexlet-rt-e2e-%d", candidates[i],
                                                         (int) getpid());
        }
        if (!g.cgroup_dir)
                return;
        if (mkdir(g.cgroup_dir, 0755) < 0) {
                free(g.cgroup_dir);
                g.cgroup_dir = NULL;
                return;
        }
        g.cgroup_procs = xasprintf("%s/cgroup.procs", g.cgroup_dir);
}

static int group_setup(void **state)
{
        struct runtime_sandbox_spec sb = { 0 };
        struct error *err = NULL;
        cleanup_free char *hello = NULL;
        FILE *f;

        if (geteuid() != 0) {
                g.skip = "needs root (namespaces, mounts, cgroups)";
                return 0;
        }
        if (access("/bin/busybox", X_OK) != 0 && access("/usr/bin/busybox", X_OK) != 0) {
                print_error(
                        "no busybox on this host: install busybox-static (scripts/install-deps.sh)\n");
                return -1;
        }
        strcpy(g.data, "/tmp/flexlet-rt-e2e-XXXXXX");
        if (!mkdtemp(g.data))
                return -1;
        make_cgroup();
        if (runtime_image_ensure(g.data, "busybox:1.36", &g.busybox, &err) < 0) {
                print_error("busybox image: %s\n", err->message);
                error_free(err);
                return -1;
        }
        g.vol_ro = xasprintf("%s/host-ro", g.data);
        g.vol_rw = xasprintf("%s/host-rw", g.data);
        mkdir(g.vol_ro, 0755);
        mkdir(g.vol_rw, 0777);
        hello = xasprintf("%s/hello.txt", g.vol_ro);
        f = fopen(hello, "w");
        if (!f)
                return -1;
        fputs("from-the-host\n", f);
        fclose(f);
        g.sandbox_dir = runtime_sandbox_dir(g.data, "uid-e2e");
        sb.state_dir = g.sandbox_dir;
        sb.hostname = HOSTNAME;
        if (runtime_sandbox_start(&sb, &g.sandbox_pid, &err) < 0) {
                print_error("sandbox: %s\n", err->message);
                error_free(err);
                return -1;
        }
        g.ready = true;
        return 0;
}

static void remove_containers(void)
{
        cleanup_free char *root = xasprintf("%s/pods/uid-e2e/containers", g.data);
        DIR *d = opendir(root);
        struct dirent *de;

        while (d && (de = readdir(d))) {
                cleanup_free char *sub = NULL;
                DIR *d2;
                struct dirent *de2;

                if (de->d_name[0] == '.')
                        continue;
                sub = xasprintf("%s/%s", root, de->d_name);
                d2 = opendir(sub);
                while (d2 && (de2 = readdir(d2))) {
                        cleanup_free char *dir = NULL;
                        if (de2->d_name[0] == '.')
                                continue;
                        dir = xasprintf("%s/%s", sub, de2->d_name);
                        (void) runtime_container_remove(dir, NULL);
                }
                if (d2)
                        closedir(d2);
        }
        if (d)
                closedir(d);
}

static int group_teardown(void **state)
{
        if (g.data[0]) {
                remove_containers();
                if (g.sandbox_dir)
                        (void) runtime_sandbox_stop(g.sandbox_dir, NULL);
                /* whatever a failed test left: helpers carry the data dir in their argv */
                if (processes_mentioning_kill(g.data, true) > 0)
                        usleep(200000);
                kill_cgroup();
                if (g.cgroup_dir && rmdir(g.cgroup_dir) < 0)
                        print_error("# could not remove cgroup %s: %s\n", g.cgroup_dir,
                                    strerror(errno));
                (void) fs_remove_tree(g.data);
        }
        runtime_image_release(&g.busybox);
        free(g.cgroup_dir);
        free(g.cgroup_procs);
        free(g.sandbox_dir);
        free(g.vol_ro);
        free(g.vol_rw);
        return 0;
}

/* First in every test: skip (cmocka counts a skip in a setup function as a failure). */
static void require_ready(void)
{
        if (g.skip) {
                print_message("# skipped: %s\n", g.skip);
                skip();
        }
        if (!g.ready)
                fail_msg("the group setup failed");
}

/* ------------------------------------------------------------------ tests */

static void test_sandbox(void **state)
{
        require_ready();
        struct runtime_sandbox_spec sb = { .state_dir = g.sandbox_dir, .hostname = HOSTNAME };
        cleanup_free char *comm_path = xasprintf("/proc/%d/comm", (int) g.sandbox_pid);
        cleanup_free char *comm = slurp(comm_path);
        cleanup_free char *ours = ns_link(getpid(), "pid"), *theirs = ns_link(g.sandbox_pid, "pid");
        struct error *err = NULL;
        pid_t pid = 0;

        assert_int_equal(runtime_sandbox_running(g.sandbox_dir, &pid), 1);
        assert_int_equal(pid, g.sandbox_pid);
        assert_non_null(comm);
        assert_string_equal(comm, "pause\n");
        assert_string_not_equal(ours, theirs);
        /* starting again is a no-op that finds the same process */
        assert_int_equal(runtime_sandbox_start(&sb, &pid, &err), 0);
        assert_int_equal(pid, g.sandbox_pid);
        /* detached: not our child */
        assert_int_equal(waitpid(g.sandbox_pid, NULL, WNOHANG), -1);
        assert_int_equal(errno, ECHILD);
}

static void test_container_runs(void **state)
{
        require_ready();
        static const char *script =
                "echo \"hostname=$(hostname)\"; echo \"msg=$MSG esc=$ESC\"; echo \"expanded=$(GREETING)\"; "
                "cat /data/hello.txt; echo \"pid1=$(cat /proc/1/comm)\"; "
                "echo \"nprocs=$(ls -d /proc/[0-9]* | wc -l)\"; echo \"self=$$$$\"; " /* K8S: $$ is
                                                                                         an escaped
                                                                                         $ */
                "touch /data/x 2>/dev/null || echo read-only-ok; echo written > /out/from-container; "
                "echo to-stderr >&2; sleep 0.3; echo \"cwd=$(pwd) home=$HOME path=$PATH\"; echo ready; exec sleep 1000";
        const char *command[] = { "sh", "-c", script, NULL };
        const struct runtime_env_var env[] = {
                { "GREETING", "hello", false },
                { "MSG", "$(GREETING)-world", false },
                { "ESC", "$$(GREETING)", false },
                { "RAW", "$(GREETING)", true },
        };
        const struct runtime_mount mounts[] = {
                { .source = g.vol_ro, .target = "/data", .read_only = true },
                { .source = g.vol_rw, .target = "/out" },
        };
        cleanup_free char *dir = container_dir("c1", 0), *out = NULL, *tail = NULL, *ts = NULL,
                          *written_path = NULL, *written = NULL, *cg_path = NULL, *cg = NULL,
                          *pidns = NULL, *sandbox_pidns = NULL, *mntns = NULL, *our_mntns = NULL,
                          *environ_path = NULL;
        struct runtime_container_spec s;
        struct runtime_container_status st;
        struct runtime_log_options o = RUNTIME_LOG_OPTIONS_INIT;
        struct error *err = NULL;
        int xfd;
        const char *np, *self;

        base_spec(&s, dir);
        s.command = command;
        s.env = env;
        s.n_env = ARRAY_SIZE(env);
        s.mounts = mounts;
        s.n_mounts = ARRAY_SIZE(mounts);
        start(&s);
        if (!wait_log(dir, "ready")) {
                cleanup_free char *l = all_logs(dir);
                fail_msg("no \"ready\" in the log: %s", l);
        }
        get_state(dir, &st);
        assert_int_equal(st.phase, RUNTIME_CONTAINER_RUNNING);
        assert_true(st.pid > 0);
        assert_true(st.started_at.tv_sec > 0);
        runtime_container_status_release(&st);

        out = all_logs(dir);
        assert_non_null(strstr(out, "hostname=" HOSTNAME "\n"));
        /* K8S: $(VAR) expands against earlier env entries, $$ escapes, command words too */
        assert_non_null(strstr(out, "msg=hello-world esc=$(GREETING)\n"));
        assert_non_null(strstr(out, "expanded=hello\n"));
        assert_non_null(strstr(out, "from-the-host\n"));
        assert_non_null(strstr(out, "pid1=pause\n"));
        assert_non_null(strstr(out, "read-only-ok\n"));
        assert_non_null(strstr(out, "to-stderr\n"));
        assert_non_null(strstr(out, "cwd=/ home=/root path=" RT_DEFAULT_PATH "\n"));
        /* its own pid namespace: a handful of processes, and a small pid for itself */
        np = strstr(out, "nprocs=");
        assert_non_null(np);
        assert_true(atoi(np + 7) >= 2 && atoi(np + 7) <= 6);
        self = strstr(out, "self=");
        assert_non_null(self);
        if (!(atoi(self + 5) > 1 && atoi(self + 5) < 10))
                fail_msg("the container's own pid is not small: %s", out);

        /* the container wrote through the read-write volume */
        written_path = xasprintf("%s/from-container", g.vol_rw);
        written = slurp(written_path);
        assert_non_null(written);
        assert_string_equal(written, "written\n");

        /* namespaces and cgroup as seen from the host */
        get_state(dir, &st);
        pidns = ns_link(st.pid, "pid");
        sandbox_pidns = ns_link(g.sandbox_pid, "pid");
        assert_string_equal(pidns, sandbox_pidns);
        mntns = ns_link(st.pid, "mnt");
        our_mntns = ns_link(getpid(), "mnt");
        assert_string_not_equal(mntns, our_mntns);
        if (g.cgroup_dir) {
                cg_path = xasprintf("/proc/%d/cgroup", (int) st.pid);
                cg = slurp(cg_path);
                assert_non_null(cg);
                assert_non_null(strstr(cg, strrchr(g.cgroup_dir, '/')));
        }
        environ_path = xasprintf("/proc/%d/environ", (int) st.pid);
        {
                cleanup_free char *envs = NULL;
                size_t n = 0;
                cleanup_close int dfd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

                /* the script's last step is exec sleep: read the environment once it has run
                 * (a process inside execve shows an empty one) */
                for (int i = 0; i < 500 && !comm_is(st.pid, "sleep"); i++)
                        usleep(10 * 1000);
                assert_true(comm_is(st.pid, "sleep"));
                assert_int_equal(fs_read_file_at(dfd, environ_path + 1, 1 << 20, &envs, &n), 0);
                /* a literal value is not expanded; HOSTNAME is the pod's */
                assert_non_null(memmem(envs, n, "RAW=$(GREETING)", 15));
                assert_non_null(
                        memmem(envs, n, "HOSTNAME=" HOSTNAME, strlen("HOSTNAME=" HOSTNAME)));
        }
        runtime_container_status_release(&st);

        /* kubectl logs --tail=2, --timestamps */
        o.tail_lines = 2;
        tail = logs(dir, &o);
        assert_string_equal(tail, "cwd=/ home=/root path=" RT_DEFAULT_PATH "\nready\n");
        o = (struct runtime_log_options) RUNTIME_LOG_OPTIONS_INIT;
        o.timestamps = true;
        o.tail_lines = 1;
        ts = logs(dir, &o);
        assert_int_equal(strlen(ts), 30 + 1 + 6);
        assert_int_equal(ts[4], '-');
        assert_int_equal(ts[10], 'T');
        assert_int_equal(ts[19], '.');
        assert_memory_equal(ts + 29, "Z ready\n", 8);

        /* kill -9: exit 137, signal 9; the exit descriptor fires once the exit is recorded */
        xfd = runtime_container_exit_fd(dir, &err);
        assert_true(xfd >= 0);
        assert_int_equal(poll(&(struct pollfd){ .fd = xfd, .events = POLLIN }, 1, 0), 0);
        assert_int_equal(runtime_container_kill(dir, SIGKILL, &err), 0);
        assert_int_equal(poll(&(struct pollfd){ .fd = xfd, .events = POLLIN }, 1, 15000), 1);
        close(xfd);
        get_state(dir, &st);
        assert_int_equal(st.phase, RUNTIME_CONTAINER_EXITED);
        assert_int_equal(st.exit_code, 137);
        assert_int_equal(st.signal, 9);
        assert_true(WIFSIGNALED(st.wait_status) && WTERMSIG(st.wait_status) == SIGKILL);
        assert_null(st.reason);
        assert_true(st.finished_at.tv_sec >= st.started_at.tv_sec);
        runtime_container_status_release(&st);
        assert_int_equal(runtime_container_kill(dir, SIGKILL, &err), -ESRCH);
        error_free(TAKE_PTR(err));
        assert_int_equal(runtime_container_exit_fd(dir, &err), -ESRCH);
        error_free(TAKE_PTR(err));
}

/* What an agent killed with SIGKILL and started again sees: the process that started the
 * container is gone, the container runs on, and a process that started nothing reads its
 * state (same pid, same start time) and can still stop it. */
static void test_readopt(void **state)
{
        require_ready();
        const char *command[] = { "sh", "-c",
                                  "i=0; while true; do echo tick $i; i=$((i+1)); sleep 0.1; done",
                                  NULL };
        cleanup_free char *dir = container_dir("readopt", 0), *log1 = NULL, *log2 = NULL;
        struct runtime_container_spec s;
        struct runtime_container_status st, again;
        int status;
        pid_t agent;

        base_spec(&s, dir);
        s.command = command;
        agent = fork();
        assert_true(agent >= 0);
        if (agent == 0) {
                if (runtime_container_start(&s, NULL) < 0)
                        _exit(1);
                raise(SIGKILL);
                _exit(2);
        }
        assert_int_equal(waitpid(agent, &status, 0), agent);
        assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

        assert_true(wait_log(dir, "tick 3\n"));
        get_state(dir, &st);
        assert_int_equal(st.phase, RUNTIME_CONTAINER_RUNNING);
        log1 = all_logs(dir);
        usleep(500000);
        log2 = all_logs(dir);
        /* it kept running and logging on its own */
        assert_true(strlen(log2) > strlen(log1));
        get_state(dir, &again);
        assert_int_equal(again.phase, RUNTIME_CONTAINER_RUNNING);
        assert_int_equal(again.pid, st.pid);
        assert_int_equal(again.started_at.tv_sec, st.started_at.tv_sec);
        assert_int_equal(again.started_at.tv_nsec, st.started_at.tv_nsec);
        runtime_container_status_release(&st);
        runtime_container_status_release(&again);

        /* removing a running container kills it and leaves nothing */
        assert_int_equal(runtime_container_remove(dir, NULL), 0);
        assert_int_equal(access(dir, F_OK), -1);
        assert_int_equal(processes_mentioning(dir), 0);
}

/* A container confined as a PSA "restricted" one: RuntimeDefault seccomp (unshare -U denied),
 * drop ALL, no_new_privs, a non-root user with groups, a read-only root; and one with the
 * runtime default. The process reports what it sees in its log. */
static void test_confinement(void **state)
{
        require_ready();
        static const gid_t groups[] = { 4000 };
        const char *command[] = {
                "sh", "-c",
                "grep -E '^(CapEff|CapBnd|NoNewPrivs|Seccomp):' /proc/self/status; id; "
                "unshare -U true 2>/dev/null || echo unshare-denied; "
                "touch /x 2>/dev/null || echo root-readonly; "
                "[ -c /proc/keys ] && echo keys-masked",
                NULL
        };
        cleanup_free char *dir = container_dir("restricted", 0), *dir2 = container_dir("plain", 0);
        cleanup_free char *log = NULL, *log2 = NULL;
        struct runtime_container_spec s;

        base_spec(&s, dir);
        s.command = command;
        s.uid = 1000;
        s.gid = 3000;
        s.security.gid_set = true;
        s.security.groups = groups;
        s.security.n_groups = 1;
        s.security.caps_set = true;
        s.security.caps = 0;
        s.security.no_new_privs = true;
        s.security.read_only_root = true;
        s.security.seccomp = RUNTIME_SECCOMP_RUNTIME_DEFAULT;
        start(&s);
        wait_exit(dir);
        log = all_logs(dir);
        assert_non_null(strstr(log, "CapEff:\t0000000000000000"));
        assert_non_null(strstr(log, "CapBnd:\t0000000000000000"));
        assert_non_null(strstr(log, "NoNewPrivs:\t1"));
        assert_non_null(strstr(log, "Seccomp:\t2"));
        assert_non_null(strstr(log, "uid=1000 gid=3000 groups=3000,4000"));
        assert_non_null(strstr(log, "unshare-denied"));
        assert_non_null(strstr(log, "root-readonly"));
        assert_int_equal(access(dir, F_OK), 0);

        base_spec(&s, dir2);
        s.command = command;
        start(&s);
        wait_exit(dir2);
        log2 = all_logs(dir2);
        assert_non_null(strstr(log2, "CapEff:\t00000000a80425fb"));
        assert_non_null(strstr(log2, "Seccomp:\t0"));
        assert_non_null(strstr(log2, "keys-masked"));
        assert_null(strstr(log2, "unshare-denied"));
        assert_int_equal(runtime_container_remove(dir, NULL), 0);
        assert_int_equal(runtime_container_remove(dir2, NULL), 0);
}

static void expect_start_error(const char *name, const struct runtime_container_spec *s,
                               const char *message)
{
        struct runtime_container_status st;

        start(s);
        wait_exit(s->state_dir);
        get_state(s->state_dir, &st);
        assert_int_equal(st.phase, RUNTIME_CONTAINER_EXITED);
        assert_non_null(st.reason);
        assert_string_equal(st.reason, "StartError");
        assert_int_equal(st.exit_code, 128);
        assert_non_null(st.message);
        if (!strstr(st.message, message))
                fail_msg("%s: message \"%s\" lacks \"%s\"", name, st.message, message);
        runtime_container_status_release(&st);
}

static void test_start_errors(void **state)
{
        require_ready();
        const char *missing[] = { "no-such-binary", NULL };
        const char *abs_missing[] = { "/bin/nope", NULL };
        const char *sh[] = { "sh", "-c", "true", NULL };
        cleanup_free char *d1 = container_dir("missing", 0), *d2 = container_dir("missing-abs", 0),
                          *d3 = container_dir("bad-cwd", 0);
        struct runtime_container_spec s;

        base_spec(&s, d1);
        s.command = missing;
        expect_start_error("not in PATH", &s,
                           "exec: \"no-such-binary\": executable file not found in $PATH");
        base_spec(&s, d2);
        s.command = abs_missing;
        expect_start_error("absolute", &s,
                           "exec: \"/bin/nope\": stat /bin/nope: no such file or directory");
        base_spec(&s, d3);
        s.command = sh;
        s.working_dir = "/etc/passwd";
        expect_start_error(
                "cwd", &s,
                "chdir to cwd (\"/etc/passwd\") set in config.json failed: not a directory");
}

/* subPaths as the supervisor mounts them: resolved inside the volume whatever the links in it
 * say (a link to "/" is what a pod swaps in after the agent's check), read-only before the
 * mount is attached; a volume over a file of /proc is refused; the pod's pid 1 shows no root. */
static void test_subpath_mounts(void **state)
{
        require_ready();
        const char *command[] = {
                "sh", "-c",
                "if [ -e /m/proc/self ]; then echo m=host-root; else echo m=$(ls /m | tr '\\n' ,); fi; "
                "touch /r/x 2>/dev/null || echo r=read-only; cat /f; echo pid1-root=$(ls -A /proc/1/root | wc -l); "
                "echo ready; exec sleep 1000",
                NULL
        };
        const char *sh[] = { "sh", "-c", "true", NULL };
        cleanup_free char *vol = xasprintf("%s/linkvol", g.data), *abs = xasprintf("%s/abs", vol),
                          *ro = xasprintf("%s/ro", vol), *file = xasprintf("%s/file", vol),
                          *made = xasprintf("%s/abs-made/deep", vol),
                          *dir = container_dir("subpath", 0), *d2 = container_dir("procmount", 0),
                          *out = NULL;
        const struct runtime_mount mounts[] = {
                { .source = vol, .target = "/m", .sub_path = "abs" },
                { .source = vol, .target = "/r", .sub_path = "ro", .read_only = true },
                { .source = vol, .target = "/f", .sub_path = "file" },
                { .source = vol, .target = "/n", .sub_path = "abs/abs-made/deep" },
        };
        const struct runtime_mount proc_mount[] = {
                { .source = vol, .target = "/proc/cmdline", .sub_path = "file" },
        };
        struct runtime_container_spec s;
        FILE *f;

        assert_int_equal(mkdir(vol, 0777), 0);
        assert_int_equal(chmod(vol, 0777), 0); /* past the umask: an emptyDir's mode */
        assert_int_equal(symlink("/", abs), 0);
        assert_int_equal(mkdir(ro, 0755), 0);
        f = fopen(file, "w");
        assert_non_null(f);
        fputs("file-in-volume\n", f);
        fclose(f);

        base_spec(&s, dir);
        s.command = command;
        s.mounts = mounts;
        s.n_mounts = ARRAY_SIZE(mounts);
        start(&s);
        if (!wait_log(dir, "ready")) {
                cleanup_free char *l = all_logs(dir);
                fail_msg("no \"ready\" in the log: %s", l);
        }
        out = all_logs(dir);
        if (!strstr(out, "m=abs,abs-made,file,ro,\n"))
                fail_msg("subPath abs -> / is not the volume: %s", out);
        assert_non_null(strstr(out, "r=read-only\n"));
        assert_non_null(strstr(out, "file-in-volume\n"));
        assert_non_null(strstr(out, "pid1-root=0\n"));
        /* made inside the volume through the link, with the volume's mode */
        {
                struct stat st;
                assert_int_equal(stat(made, &st), 0);
                assert_int_equal(st.st_mode & 07777, 0777);
        }
        assert_int_equal(runtime_container_remove(dir, NULL), 0);

        base_spec(&s, d2);
        s.command = sh;
        s.mounts = proc_mount;
        s.n_mounts = 1;
        expect_start_error("proc", &s,
                           "check proc-safety of /proc/cmdline mount: "
                           "\"/proc/cmdline\" cannot be mounted because it is inside /proc");
}

static void test_exit_code_follow_and_long_lines(void **state)
{
        require_ready();
        const char *command[] = { "sh", "-c",
                                  "echo one; sleep 0.5; echo two >&2; printf no-newline; exit 3",
                                  NULL };
        const char *long_cmd[] = { "sh", "-c",
                                   "head -c 40000 /dev/zero | tr '\\0' a; echo; echo end", NULL };
        cleanup_free char *d1 = container_dir("exit3", 0), *d2 = container_dir("long", 0),
                          *followed = NULL, *raw = NULL, *joined = NULL, *last = NULL,
                          *raw_path = NULL, *want = NULL;
        struct runtime_container_spec s;
        struct runtime_container_status st;
        struct runtime_log_options o = RUNTIME_LOG_OPTIONS_INIT;
        int records = 0, partials = 0;

        base_spec(&s, d1);
        s.command = command;
        start(&s);
        /* follow returns once the container has exited and its log is drained */
        o.follow = true;
        o.state_dir = d1;
        followed = logs(d1, &o);
        assert_string_equal(followed, "one\ntwo\nno-newline\n");
        get_state(d1, &st);
        assert_int_equal(st.phase, RUNTIME_CONTAINER_EXITED);
        assert_int_equal(st.exit_code, 3);
        assert_int_equal(st.signal, 0);
        runtime_container_status_release(&st);

        base_spec(&s, d2);
        s.command = long_cmd;
        start(&s);
        wait_exit(d2);
        raw_path = runtime_container_log_path(d2);
        raw = slurp(raw_path);
        assert_non_null(raw);
        for (char *p = raw; (p = strchr(p, '\n')); p++)
                records++;
        for (char *p = raw; (p = strstr(p, " stdout P ")); p++)
                partials++;
        /* 40000 = 16384 + 16384 + 7232: two P records, then the F record, then "end" */
        assert_int_equal(records, 4);
        assert_int_equal(partials, 2);
        joined = all_logs(d2);
        want = xmalloc(40000 + 6);
        memset(want, 'a', 40000);
        memcpy(want + 40000, "\nend\n", 6);
        assert_string_equal(joined, want);
        o = (struct runtime_log_options) RUNTIME_LOG_OPTIONS_INIT;
        o.tail_lines = 2; /* K8S: tail counts records of the file */
        last = logs(d2, &o);
        assert_int_equal(strlen(last), 7232 + 1 + 4);
}

static void test_imported_image(void **state)
{
        require_ready();
        cleanup_free char *src = xasprintf("%s/imgsrc", g.data),
                          *tar = xasprintf("%s/img.tar", g.data), *cmdline = NULL,
                          *dir = container_dir("imported", 0), *out = NULL;
        static const char *const cmd[] = { "sh", "-c", "echo image-cmd-ran in $PWD; cat /etc/motd",
                                           NULL };
        static const char *const env[] = { "FOO=bar", NULL };
        const struct runtime_image_config cfg = { .cmd = cmd, .env = env, .working_dir = "/work" };
        struct runtime_image img = { 0 };
        struct runtime_container_spec s;
        struct error *err = NULL;
        int fd;

        cmdline = xasprintf(
                "mkdir -p %s/bin %s/etc && cp /bin/busybox %s/bin/ && ln -s busybox %s/bin/sh && "
                "ln -s busybox %s/bin/cat && echo message-of-the-day > %s/etc/motd && "
                "tar -C %s -cf %s .",
                src, src, src, src, src, src, src, tar);
        assert_int_equal(system(cmdline), 0);
        fd = open(tar, O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        if (runtime_image_import(g.data, "example.com/team/tool:v1", fd, &cfg, &err) < 0)
                fail_msg("import: %s", err->message);
        close(fd);
        if (runtime_image_ensure(g.data, "example.com/team/tool:v1", &img, &err) < 0)
                fail_msg("ensure: %s", err->message);
        assert_string_equal(img.reference, "example.com/team/tool:v1");
        assert_false(img.builtin);

        base_spec(&s, dir);
        runtime_container_spec_use_image(&s, &img);
        start(&s); /* neither command nor args: the image's cmd */
        wait_exit(dir);
        out = all_logs(dir);
        assert_string_equal(out, "image-cmd-ran in /work\nmessage-of-the-day\n");
        runtime_image_release(&img);

        /* a missing image is a clear error the agent can show */
        assert_int_equal(runtime_image_ensure(g.data, "example.com/team/other:v1", &img, &err),
                         -ENOENT);
        assert_string_equal(
                err->message,
                "image \"example.com/team/other:v1\" not found in the local image store; import it with: flexlet image import example.com/team/other:v1 FILE.tar");
        error_free(err);
}

static void test_sandbox_stop_kills_the_pod(void **state)
{
        require_ready();
        const char *command[] = { "sh", "-c", "sleep 1000 & echo started; exec sleep 1000", NULL };
        cleanup_free char *dir = container_dir("orphans", 0);
        struct runtime_container_spec s;
        struct runtime_container_status st;
        struct runtime_sandbox_spec sb = { .state_dir = g.sandbox_dir, .hostname = HOSTNAME };
        const char *procs[2] = { NULL, NULL };
        struct error *err = NULL;

        base_spec(&s, dir);
        s.command = command;
        start(&s);
        assert_true(wait_log(dir, "started"));
        assert_int_equal(runtime_sandbox_stop(g.sandbox_dir, &err), 0);
        assert_int_equal(runtime_sandbox_running(g.sandbox_dir, NULL), 0);
        wait_exit(dir);
        get_state(dir, &st);
        assert_int_equal(st.exit_code, 137);
        runtime_container_status_release(&st);
        if (g.cgroup_procs) {
                cleanup_free char *left = slurp(g.cgroup_procs);
                assert_non_null(left);
                assert_string_equal(left, "");
        }
        /* a new sandbox for the tests after this one, in the test cgroup this time */
        procs[0] = g.cgroup_procs;
        sb.cgroup_procs = g.cgroup_procs ? procs : NULL;
        assert_int_equal(runtime_sandbox_start(&sb, &g.sandbox_pid, &err), 0);
        if (g.cgroup_dir) {
                cleanup_free char *cg_path = xasprintf("/proc/%d/cgroup", (int) g.sandbox_pid);
                cleanup_free char *cg = slurp(cg_path);
                assert_non_null(cg);
                assert_non_null(strstr(cg, strrchr(g.cgroup_dir, '/')));
        }
}

/* A pod's pid 1 that was killed stays in its exit until the last process of its namespace is
 * reaped (a container's, by its supervisor outside): the sandbox has ended then already, and a
 * container must not be started into it. Here a process of the test's holds one unreaped. */
static void test_sandbox_in_its_exit_has_ended(void **state)
{
        require_ready();
        struct runtime_sandbox_spec sb = { .state_dir = g.sandbox_dir, .hostname = HOSTNAME };
        const char *procs[2] = { g.cgroup_procs, NULL };
        cleanup_free char *ns = xasprintf("/proc/%d/ns/pid", (int) g.sandbox_pid);
        cleanup_free char *stat_path = xasprintf("/proc/%d/stat", (int) g.sandbox_pid);
        cleanup_free char *stat = NULL;
        struct error *err = NULL;
        int ready[2], go[2], status, r = -1;
        pid_t holder;
        char b = 0;

        assert_int_equal(pipe2(ready, O_CLOEXEC), 0);
        assert_int_equal(pipe2(go, O_CLOEXEC), 0);
        holder = fork();
        assert_true(holder >= 0);
        if (holder == 0) {
                int fd = open(ns, O_RDONLY | O_CLOEXEC);
                pid_t member;

                if (fd < 0 || setns(fd, CLONE_NEWPID) < 0)
                        _exit(1);
                member = fork();
                if (member == 0) {
                        pause();
                        _exit(0);
                }
                /* the member dies with the namespace's pid 1 and waits here, unreaped */
                if (member < 0 || write(ready[1], "r", 1) != 1 || read(go[0], &b, 1) != 1)
                        _exit(1);
                _exit(waitpid(member, NULL, 0) == member ? 0 : 1);
        }
        assert_int_equal(read(ready[0], &b, 1), 1);
        assert_int_equal(kill(g.sandbox_pid, SIGKILL), 0);
        for (int i = 0; i < 100 && (r = runtime_sandbox_running(g.sandbox_dir, NULL)) != 0; i++)
                usleep(50000);
        stat = slurp(stat_path);
        /* the killed pid 1 still exists, not yet a zombie: the case this test is for */
        if (stat)
                assert_null(strstr(stat, ") Z "));
        assert_int_equal(write(go[1], "g", 1), 1);
        assert_int_equal(waitpid(holder, &status, 0), holder);
        close(ready[0]);
        close(ready[1]);
        close(go[0]);
        close(go[1]);
        assert_non_null(stat);
        assert_int_equal(r, 0);
        assert_int_equal(runtime_sandbox_exit_fd(g.sandbox_dir), -ESRCH);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        /* a new sandbox for the tests after this one */
        sb.cgroup_procs = g.cgroup_procs ? procs : NULL;
        assert_int_equal(runtime_sandbox_start(&sb, &g.sandbox_pid, &err), 0);
}

/* K8S KEP-127: a sandbox with a user namespace of its own: the container's uid_map, its root
 * as host ID base, the image's files root's inside through the idmapped lower layer. The
 * sandbox of the other tests comes back afterwards. */
static void test_userns(void **state)
{
        require_ready();
        const char *command[] = { "sh", "-c",
                                  "set -- $(cat /proc/self/uid_map); echo map=$1,$2,$3; "
                                  "echo root=$(stat -c %u /bin/busybox); echo me=$(id -u)",
                                  NULL };
        cleanup_free char *dir = container_dir("userns", 0);
        struct runtime_sandbox_spec sb = { .state_dir = g.sandbox_dir, .hostname = HOSTNAME };
        struct runtime_container_spec s;
        const char *procs[2] = { g.cgroup_procs, NULL };
        struct error *err = NULL;
        cleanup_free char *status_path = NULL, *status = NULL;

        assert_int_equal(runtime_sandbox_stop(g.sandbox_dir, &err), 0);
        sb.cgroup_procs = g.cgroup_procs ? procs : NULL;
        sb.userns_base = 7 * RUNTIME_USERNS_LENGTH;
        assert_int_equal(runtime_sandbox_start(&sb, &g.sandbox_pid, &err), 0);
        status_path = xasprintf("/proc/%d/status", (int) g.sandbox_pid);
        status = slurp(status_path);
        assert_non_null(status);
        assert_non_null(strstr(status, "Uid:\t458752\t458752"));
        base_spec(&s, dir);
        s.command = command;
        start(&s);
        assert_true(wait_log(dir, "me="));
        assert_true(wait_log(dir, "map=0,458752,65536"));
        assert_true(wait_log(dir, "root=0"));
        assert_true(wait_log(dir, "me=0"));
        wait_exit(dir);
        assert_int_equal(runtime_sandbox_stop(g.sandbox_dir, &err), 0);
        sb.userns_base = 0;
        assert_int_equal(runtime_sandbox_start(&sb, &g.sandbox_pid, &err), 0);
}

static void test_nothing_left(void **state)
{
        int left = -1;

        require_ready();
        remove_containers();
        assert_int_equal(runtime_sandbox_stop(g.sandbox_dir, NULL), 0);
        /* A supervisor that recorded its container's end may still be exiting (under ASan its
         * leak check at exit takes a while): give them 10 s to be gone. */
        for (int i = 0; i < 100 && (left = processes_mentioning(g.data)) > 0; i++)
                usleep(100000);
        assert_int_equal(left, 0);
        assert_int_equal(mounts_mentioning(g.data), 0);
        if (g.cgroup_procs) {
                cleanup_free char *procs = slurp(g.cgroup_procs);
                assert_string_equal(procs, "");
        }
}

int main(int argc, char **argv)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_sandbox),
                cmocka_unit_test(test_container_runs),
                cmocka_unit_test(test_readopt),
                cmocka_unit_test(test_confinement),
                cmocka_unit_test(test_start_errors),
                cmocka_unit_test(test_subpath_mounts),
                cmocka_unit_test(test_exit_code_follow_and_long_lines),
                cmocka_unit_test(test_imported_image),
                cmocka_unit_test(test_sandbox_stop_kills_the_pod),
                cmocka_unit_test(test_sandbox_in_its_exit_has_ended),
                cmocka_unit_test(test_userns),
                cmocka_unit_test(test_nothing_left),
        };

        /* the runtime's helper processes are this binary */
        if (argc > 1 && streq(argv[1], "supervise")) {
                struct error *err = NULL;
                int status = runtime_helper_main(argc - 1, argv + 1, &err);
                error_free(err);
                return status;
        }
        /* cmocka reports a skipped test as "not ok N # SKIP", which tests/run-all.sh counts as
         * a failure: when the whole binary cannot run, say so as a TAP plan of zero tests */
        if (geteuid() != 0) {
                (void) printf("1..0 # SKIP needs root (namespaces, mounts, cgroups)\n");
                return 0;
        }
        return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
