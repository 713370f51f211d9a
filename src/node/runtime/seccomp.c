/* seccomp.c: the container's seccomp filter, built with libseccomp: RuntimeDefault from our own
 * table (equal in effect to containerd's contrib/seccomp DefaultProfile: an allowlist, EPERM for
 * the rest), Localhost profiles from the OCI/Docker seccomp JSON format. Reading a profile is
 * hostile input: every field is checked and a wrong one named. Not which profile a container
 * gets (the agent, pod-security.c) nor when it is loaded (confine.c). */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <jansson.h>
#include <linux/capability.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "base/alloc.h"
#include "node/runtime/runtime-internal.h"

/* ------------------------------------------------------------------ RuntimeDefault */

/* containerd contrib/seccomp/seccomp_default.go (v2), DefaultProfile: the syscalls every
 * container may make. The rest fail with EPERM (defaultAction SCMP_ACT_ERRNO). Names this
 * libseccomp does not know are skipped, as runc does. */
static const char *const default_allow[] = {
        "accept",
        "accept4",
        "access",
        "adjtimex",
        "alarm",
        "bind",
        "brk",
        "cachestat",
        "capget",
        "capset",
        "chdir",
        "chmod",
        "chown",
        "chown32",
        "clock_adjtime",
        "clock_adjtime64",
        "clock_getres",
        "clock_getres_time64",
        "clock_gettime",
        "clock_gettime64",
        "clock_nanosleep",
        "clock_nanosleep_time64",
        "close",
        "close_range",
        "connect",
        "copy_file_range",
        "creat",
        "dup",
        "dup2",
        "dup3",
        "epoll_create",
        "epoll_create1",
        "epoll_ctl",
        "epoll_ctl_old",
        "epoll_pwait",
        "epoll_pwait2",
        "epoll_wait",
        "epoll_wait_old",
        "eventfd",
        "eventfd2",
        "execve",
        "execveat",
        "exit",
        "exit_group",
        "faccessat",
        "faccessat2",
        "fadvise64",
        "fadvise64_64",
        "fallocate",
        "fanotify_mark",
        "fchdir",
        "fchmod",
        "fchmodat",
        "fchmodat2",
        "fchown",
        "fchown32",
        "fchownat",
        "fcntl",
        "fcntl64",
        "fdatasync",
        "fgetxattr",
        "flistxattr",
        "flock",
        "fork",
        "fremovexattr",
        "fsetxattr",
        "fstat",
        "fstat64",
        "fstatat64",
        "fstatfs",
        "fstatfs64",
        "fsync",
        "ftruncate",
        "ftruncate64",
        "futex",
        "futex_requeue",
        "futex_time64",
        "futex_wait",
        "futex_waitv",
        "futex_wake",
        "futimesat",
        "getcpu",
        "getcwd",
        "getdents",
        "getdents64",
        "getegid",
        "getegid32",
        "geteuid",
        "geteuid32",
        "getgid",
        "getgid32",
        "getgroups",
        "getgroups32",
        "getitimer",
        "getpeername",
        "getpgid",
        "getpgrp",
        "getpid",
        "getppid",
        "getpriority",
        "getrandom",
        "getresgid",
        "getresgid32",
        "getresuid",
        "getresuid32",
        "getrlimit",
        "get_robust_list",
        "getrusage",
        "getsid",
        "getsockname",
        "getsockopt",
        "get_thread_area",
        "gettid",
        "gettimeofday",
        "getuid",
        "getuid32",
        "getxattr",
        "inotify_add_watch",
        "inotify_init",
        "inotify_init1",
        "inotify_rm_watch",
        "io_cancel",
        "ioctl",
        "io_destroy",
        "io_getevents",
        "io_pgetevents",
        "io_pgetevents_time64",
        "ioprio_get",
        "ioprio_set",
        "io_setup",
        "io_submit",
        "ipc",
        "kill",
        "landlock_add_rule",
        "landlock_create_ruleset",
        "landlock_restrict_self",
        "lchown",
        "lchown32",
        "lgetxattr",
        "link",
        "linkat",
        "listen",
        "listxattr",
        "llistxattr",
        "_llseek",
        "lremovexattr",
        "lseek",
        "lsetxattr",
        "lstat",
        "lstat64",
        "madvise",
        "membarrier",
        "memfd_create",
        "memfd_secret",
        "mincore",
        "mkdir",
        "mkdirat",
        "mknod",
        "mknodat",
        "mlock",
        "mlock2",
        "mlockall",
        "map_shadow_stack",
        "mmap",
        "mmap2",
        "mprotect",
        "mq_getsetattr",
        "mq_notify",
        "mq_open",
        "mq_timedreceive",
        "mq_timedreceive_time64",
        "mq_timedsend",
        "mq_timedsend_time64",
        "mq_unlink",
        "mremap",
        "msgctl",
        "msgget",
        "msgrcv",
        "msgsnd",
        "msync",
        "munlock",
        "munlockall",
        "munmap",
        "name_to_handle_at",
        "nanosleep",
        "newfstatat",
        "_newselect",
        "open",
        "openat",
        "openat2",
        "pause",
        "pidfd_open",
        "pidfd_send_signal",
        "pipe",
        "pipe2",
        "pkey_alloc",
        "pkey_free",
        "pkey_mprotect",
        "poll",
        "ppoll",
        "ppoll_time64",
        "prctl",
        "pread64",
        "preadv",
        "preadv2",
        "prlimit64",
        "process_mrelease",
        "pselect6",
        "pselect6_time64",
        "pwrite64",
        "pwritev",
        "pwritev2",
        "read",
        "readahead",
        "readlink",
        "readlinkat",
        "readv",
        "recv",
        "recvfrom",
        "recvmmsg",
        "recvmmsg_time64",
        "recvmsg",
        "remap_file_pages",
        "removexattr",
        "rename",
        "renameat",
        "renameat2",
        "restart_syscall",
        "rmdir",
        "rseq",
        "rt_sigaction",
        "rt_sigpending",
        "rt_sigprocmask",
        "rt_sigqueueinfo",
        "rt_sigreturn",
        "rt_sigsuspend",
        "rt_sigtimedwait",
        "rt_sigtimedwait_time64",
        "rt_tgsigqueueinfo",
        "sched_getaffinity",
        "sched_getattr",
        "sched_getparam",
        "sched_get_priority_max",
        "sched_get_priority_min",
        "sched_getscheduler",
        "sched_rr_get_interval",
        "sched_rr_get_interval_time64",
        "sched_setaffinity",
        "sched_setattr",
        "sched_setparam",
        "sched_setscheduler",
        "sched_yield",
        "seccomp",
        "select",
        "semctl",
        "semget",
        "semop",
        "semtimedop",
        "semtimedop_time64",
        "send",
        "sendfile",
        "sendfile64",
        "sendmmsg",
        "sendmsg",
        "sendto",
        "setfsgid",
        "setfsgid32",
        "setfsuid",
        "setfsuid32",
        "setgid",
        "setgid32",
        "setgroups",
        "setgroups32",
        "setitimer",
        "setpgid",
        "setpriority",
        "setregid",
        "setregid32",
        "setresgid",
        "setresgid32",
        "setresuid",
        "setresuid32",
        "setreuid",
        "setreuid32",
        "setrlimit",
        "set_robust_list",
        "setsid",
        "setsockopt",
        "set_thread_area",
        "set_tid_address",
        "setuid",
        "setuid32",
        "setxattr",
        "shmat",
        "shmctl",
        "shmdt",
        "shmget",
        "shutdown",
        "sigaltstack",
        "signalfd",
        "signalfd4",
        "sigprocmask",
        "sigreturn",
        "socketcall",
        "socketpair",
        "splice",
        "stat",
        "stat64",
        "statfs",
        "statfs64",
        "statx",
        "symlink",
        "symlinkat",
        "sync",
        "sync_file_range",
        "syncfs",
        "sysinfo",
        "tee",
        "tgkill",
        "time",
        "timer_create",
        "timer_delete",
        "timer_getoverrun",
        "timer_gettime",
        "timer_gettime64",
        "timer_settime",
        "timer_settime64",
        "timerfd_create",
        "timerfd_gettime",
        "timerfd_gettime64",
        "timerfd_settime",
        "timerfd_settime64",
        "times",
        "tkill",
        "truncate",
        "truncate64",
        "ugetrlimit",
        "umask",
        "uname",
        "unlink",
        "unlinkat",
        "utime",
        "utimensat",
        "utimensat_time64",
        "utimes",
        "vfork",
        "vmsplice",
        "wait4",
        "waitid",
        "waitpid",
        "write",
        "writev",
        /* kernel >= 4.8 (every kernel this runtime runs on) */
        "process_vm_readv",
        "process_vm_writev",
        "ptrace",
#if defined(__x86_64__) || defined(__i386__)
        "arch_prctl",
        "modify_ldt",
#elif defined(__aarch64__) || defined(__arm__)
        "arm_fadvise64_64",
        "arm_sync_file_range",
        "sync_file_range2",
        "breakpoint",
        "cacheflush",
        "set_tls",
#endif
        NULL,
};

/* containerd: syscalls allowed when the bounding set holds a capability */
static const struct {
        int cap;
        const char *const names[24];
} default_by_cap[] = {
        { CAP_DAC_READ_SEARCH, { "open_by_handle_at" } },
        { CAP_SYS_ADMIN,
          { "bpf",           "clone",         "clone3",      "fanotify_init",   "fsconfig",
            "fsmount",       "fsopen",        "fspick",      "lookup_dcookie",  "mount",
            "mount_setattr", "move_mount",    "open_tree",   "perf_event_open", "quotactl",
            "quotactl_fd",   "setdomainname", "sethostname", "setns",           "syslog",
            "umount",        "umount2",       "unshare" } },
        { CAP_SYS_BOOT, { "reboot" } },
        { CAP_SYS_CHROOT, { "chroot" } },
        { CAP_SYS_MODULE, { "delete_module", "init_module", "finit_module" } },
        { CAP_SYS_PACCT, { "acct" } },
        { CAP_SYS_PTRACE,
          { "kcmp", "pidfd_getfd", "process_madvise", "process_vm_readv", "process_vm_writev",
            "ptrace" } },
        { CAP_SYS_RAWIO, { "iopl", "ioperm" } },
        { CAP_SYS_TIME, { "settimeofday", "stime", "clock_settime", "clock_settime64" } },
        { CAP_SYS_TTY_CONFIG, { "vhangup" } },
        { CAP_SYS_NICE, { "get_mempolicy", "mbind", "set_mempolicy", "set_mempolicy_home_node" } },
        { CAP_SYSLOG, { "syslog" } },
        { CAP_BPF, { "bpf" } },
        { CAP_PERFMON, { "perf_event_open" } },
};

/* ------------------------------------------------------------------ building */

#define NS_FLAGS                                                         \
 (0x00020000ULL /* CLONE_NEWNS */ | 0x04000000ULL /* CLONE_NEWUTS */ |   \
  0x08000000ULL /* CLONE_NEWIPC */ | 0x10000000ULL /* CLONE_NEWUSER */ | \
  0x20000000ULL /* CLONE_NEWPID */ | 0x40000000ULL /* CLONE_NEWNET */ |  \
  0x02000000ULL /* CLONE_NEWCGROUP */)

/* Adds one rule; a name this libseccomp does not know is skipped and a rule whose action is the
 * default is a no-op (both as runc). Conditions on one argument index more than once become
 * one rule each (runc: they are ORed). */
static int add_rule(scmp_filter_ctx ctx, uint32_t def, const char *name, uint32_t action,
                    const struct scmp_arg_cmp *args, unsigned n_args, struct error **reterr)
{
        bool repeated = false;
        int nr, r;

        if (action == def)
                return 0;
        nr = seccomp_syscall_resolve_name(name);
        if (nr == __NR_SCMP_ERROR)
                return 0;
        for (unsigned i = 0; i < n_args; i++)
                for (unsigned j = i + 1; j < n_args; j++)
                        repeated |= args[i].arg == args[j].arg;
        if (!repeated) {
                r = seccomp_rule_add_array(ctx, action, nr, n_args, args);
        } else {
                r = 0;
                for (unsigned i = 0; i < n_args && r >= 0; i++)
                        r = seccomp_rule_add_array(ctx, action, nr, 1, &args[i]);
        }
        if (r < 0)
                return error_set(reterr, -r, "seccomp profile: add the rule for \"%s\": %s", name,
                                 strerror(-r));
        return 0;
}

static int add_native_arches(scmp_filter_ctx ctx)
{
        /* containerd arches(): the native one and the compat ABIs */
        static const uint32_t arches[] = {
#if defined(__x86_64__)
                SCMP_ARCH_X86,
                SCMP_ARCH_X32,
#elif defined(__aarch64__)
                SCMP_ARCH_ARM,
#endif
                0,
        };

        for (size_t i = 0; arches[i]; i++) {
                int r = seccomp_arch_add(ctx, arches[i]);
                if (r < 0 && r != -EEXIST)
                        return r;
        }
        return 0;
}

static struct scmp_arg_cmp arg0(enum scmp_compare op, uint64_t a, uint64_t b)
{
        return (struct scmp_arg_cmp){ .arg = 0, .op = op, .datum_a = a, .datum_b = b };
}

static int build_default(uint64_t caps, scmp_filter_ctx ctx, struct error **reterr)
{
        const uint32_t def = SCMP_ACT_ERRNO(EPERM);
        static const uint64_t personalities[] = { 0x0, 0x0008, 0x20000, 0x20008, 0xffffffff };
        int r;

        for (size_t i = 0; default_allow[i]; i++)
                if ((r = add_rule(ctx, def, default_allow[i], SCMP_ACT_ALLOW, NULL, 0, reterr)) < 0)
                        return r;
        for (size_t i = 0; i < ARRAY_SIZE(personalities); i++) {
                struct scmp_arg_cmp a = arg0(SCMP_CMP_EQ, personalities[i], 0);
                if ((r = add_rule(ctx, def, "personality", SCMP_ACT_ALLOW, &a, 1, reterr)) < 0)
                        return r;
        }
        {
                /* containerd: socket(2) for every family but AF_ALG and AF_VSOCK */
                struct scmp_arg_cmp a[] = { arg0(SCMP_CMP_LT, AF_ALG, 0),
                                            arg0(SCMP_CMP_EQ, AF_ALG + 1, 0),
                                            arg0(SCMP_CMP_GT, AF_VSOCK, 0) };
                for (size_t i = 0; i < ARRAY_SIZE(a); i++)
                        if ((r = add_rule(ctx, def, "socket", SCMP_ACT_ALLOW, &a[i], 1, reterr)) <
                            0)
                                return r;
        }
        for (size_t i = 0; i < ARRAY_SIZE(default_by_cap); i++) {
                if (!(caps & (1ULL << default_by_cap[i].cap)))
                        continue;
                for (size_t j = 0;
                     j < ARRAY_SIZE(default_by_cap[i].names) && default_by_cap[i].names[j]; j++)
                        if ((r = add_rule(ctx, def, default_by_cap[i].names[j], SCMP_ACT_ALLOW,
                                          NULL, 0, reterr)) < 0)
                                return r;
        }
        if (!(caps & (1ULL << CAP_SYS_ADMIN))) {
                /* containerd: clone without namespace flags; clone3 (whose flags a filter cannot
                 * see) fails with ENOSYS so that libcs fall back to clone */
                struct scmp_arg_cmp a = arg0(SCMP_CMP_MASKED_EQ, NS_FLAGS, 0);
                if ((r = add_rule(ctx, def, "clone", SCMP_ACT_ALLOW, &a, 1, reterr)) < 0 ||
                    (r = add_rule(ctx, def, "clone3", SCMP_ACT_ERRNO(ENOSYS), NULL, 0, reterr)) < 0)
                        return r;
        }
        return 0;
}

/* ------------------------------------------------------------------ the OCI/Docker format */

static int parse_action(const json_t *v, const json_t *errno_ret, const char *where, uint32_t *ret,
                        struct error **reterr)
{
        const char *s = json_string_value(v);
        json_int_t e = 1; /* OCI: EPERM when errnoRet is not given */

        if (!s)
                return error_set(reterr, EINVAL, "seccomp profile: %s: the action is missing",
                                 where);
        if (errno_ret && !json_is_null(errno_ret)) {
                if (!json_is_integer(errno_ret) || json_integer_value(errno_ret) < 0 ||
                    json_integer_value(errno_ret) > 0xffff)
                        return error_set(reterr, EINVAL,
                                         "seccomp profile: %s: errnoRet is not a number 0-65535",
                                         where);
                e = json_integer_value(errno_ret);
        }
        if (streq(s, "SCMP_ACT_ALLOW"))
                *ret = SCMP_ACT_ALLOW;
        else if (streq(s, "SCMP_ACT_ERRNO"))
                *ret = SCMP_ACT_ERRNO((uint16_t) e);
        else if (streq(s, "SCMP_ACT_KILL") || streq(s, "SCMP_ACT_KILL_THREAD"))
                *ret = SCMP_ACT_KILL_THREAD;
        else if (streq(s, "SCMP_ACT_KILL_PROCESS"))
                *ret = SCMP_ACT_KILL_PROCESS;
        else if (streq(s, "SCMP_ACT_TRAP"))
                *ret = SCMP_ACT_TRAP;
        else if (streq(s, "SCMP_ACT_TRACE"))
                *ret = SCMP_ACT_TRACE((uint16_t) e);
        else if (streq(s, "SCMP_ACT_LOG"))
                *ret = SCMP_ACT_LOG;
        else if (streq(s, "SCMP_ACT_NOTIFY"))
                return error_set(reterr, EINVAL,
                                 "seccomp profile: %s: SCMP_ACT_NOTIFY is not supported (no "
                                 "seccomp agent listens)",
                                 where);
        else
                return error_set(reterr, EINVAL, "seccomp profile: %s: unknown action \"%s\"",
                                 where, s);
        return 0;
}

static int parse_arch(const char *name, uint32_t *ret, struct error **reterr)
{
        char lower[32];
        size_t n;

        if (strncmp(name, "SCMP_ARCH_", 10) != 0 || (n = strlen(name + 10)) == 0 ||
            n >= sizeof(lower))
                return error_set(reterr, EINVAL, "seccomp profile: unknown architecture \"%s\"",
                                 name);
        for (size_t i = 0; i <= n; i++) {
                char c = name[10 + i];
                lower[i] = (char) (c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
        }
        *ret = seccomp_arch_resolve_name(lower);
        if (!*ret)
                return error_set(reterr, EINVAL, "seccomp profile: unknown architecture \"%s\"",
                                 name);
        return 0;
}

static int add_arch(scmp_filter_ctx ctx, const json_t *v, struct error **reterr)
{
        uint32_t a;
        int r;

        if (!json_is_string(v))
                return error_set(reterr, EINVAL,
                                 "seccomp profile: an architecture is not a string");
        if ((r = parse_arch(json_string_value(v), &a, reterr)) < 0)
                return r;
        r = seccomp_arch_add(ctx, a);
        if (r < 0 && r != -EEXIST)
                return error_set(reterr, -r, "seccomp profile: add architecture \"%s\": %s",
                                 json_string_value(v), strerror(-r));
        return 0;
}

static const struct {
        const char *name;
        enum scmp_compare op;
} ops[] = {
        { "SCMP_CMP_NE", SCMP_CMP_NE },
        { "SCMP_CMP_LT", SCMP_CMP_LT },
        { "SCMP_CMP_LE", SCMP_CMP_LE },
        { "SCMP_CMP_EQ", SCMP_CMP_EQ },
        { "SCMP_CMP_GE", SCMP_CMP_GE },
        { "SCMP_CMP_GT", SCMP_CMP_GT },
        { "SCMP_CMP_MASKED_EQ", SCMP_CMP_MASKED_EQ },
};

static int get_u64(const json_t *o, const char *key, bool required, uint64_t *ret)
{
        const json_t *v = json_object_get(o, key);

        if (!v || json_is_null(v)) {
                *ret = 0;
                return required ? -EINVAL : 0;
        }
        if (!json_is_integer(v) || json_integer_value(v) < 0)
                return -EINVAL;
        *ret = (uint64_t) json_integer_value(v);
        return 0;
}

static int parse_args(const json_t *a, const char *where, struct scmp_arg_cmp *ret, unsigned *ret_n,
                      struct error **reterr)
{
        size_t i;
        json_t *v;

        *ret_n = 0;
        if (!a || json_is_null(a))
                return 0;
        if (!json_is_array(a) || json_array_size(a) > 6)
                return error_set(reterr, EINVAL,
                                 "seccomp profile: %s: args is not an array of at most 6", where);
        json_array_foreach(a, i, v) {
                const char *key, *op;
                uint64_t index, value, two;
                json_t *x;
                size_t k;

                if (!json_is_object(v))
                        return error_set(reterr, EINVAL,
                                         "seccomp profile: %s: args[%zu] is not an object", where,
                                         i);
                json_object_foreach(v, key, x)
                        if (!streq(key, "index") && !streq(key, "value") &&
                            !streq(key, "valueTwo") && !streq(key, "op"))
                                return error_set(reterr, EINVAL,
                                                 "seccomp profile: %s: args[%zu]: unknown field "
                                                 "\"%s\"",
                                                 where, i, key);
                if (get_u64(v, "index", true, &index) < 0 || index > 5)
                        return error_set(reterr, EINVAL,
                                         "seccomp profile: %s: args[%zu]: index is not 0-5", where,
                                         i);
                if (get_u64(v, "value", false, &value) < 0 ||
                    get_u64(v, "valueTwo", false, &two) < 0)
                        return error_set(
                                reterr, EINVAL,
                                "seccomp profile: %s: args[%zu]: value and valueTwo must be non-negative numbers",
                                where, i);
                op = json_string_value(json_object_get(v, "op"));
                for (k = 0; op && k < ARRAY_SIZE(ops); k++)
                        if (streq(op, ops[k].name))
                                break;
                if (!op || k == ARRAY_SIZE(ops))
                        return error_set(reterr, EINVAL,
                                         "seccomp profile: %s: args[%zu]: unknown op \"%s\"", where,
                                         i, op ? op : "");
                ret[i] = (struct scmp_arg_cmp){
                        .arg = (unsigned) index, .op = ops[k].op, .datum_a = value, .datum_b = two
                };
        }
        *ret_n = (unsigned) json_array_size(a);
        return 0;
}

/* Docker's includes/excludes: a rule that applies only with (or without) some capabilities,
 * on some architectures, from a kernel version. */
static int kernel_at_least(const char *min)
{
        struct utsname u;
        unsigned a = 0, b = 0, x = 0, y = 0;

        if (sscanf(min, "%u.%u", &a, &b) < 1)
                return -EINVAL;
        if (uname(&u) < 0 || sscanf(u.release, "%u.%u", &x, &y) < 1)
                return -EINVAL;
        return x > a || (x == a && y >= b);
}

static int condition_holds(json_t *c, bool include, uint64_t caps, const char *where, bool *ret,
                           struct error **reterr)
{
        const char *key;
        json_t *v, *x;
        size_t i;

        *ret = true;
        if (!c || json_is_null(c))
                return 0;
        if (!json_is_object(c))
                return error_set(reterr, EINVAL, "seccomp profile: %s: %s is not an object", where,
                                 include ? "includes" : "excludes");
        json_object_foreach(c, key, v) {
                if (streq(key, "caps") || streq(key, "arches")) {
                        bool caps_key = streq(key, "caps"), all = true, any = false;

                        if (!json_is_array(v))
                                return error_set(reterr, EINVAL,
                                                 "seccomp profile: %s: %s is not an array", where,
                                                 key);
                        json_array_foreach(v, i, x) {
                                bool has;
                                if (!json_is_string(x))
                                        return error_set(reterr, EINVAL,
                                                         "seccomp profile: %s: %s holds a "
                                                         "non-string",
                                                         where, key);
                                if (caps_key) {
                                        int cap =
                                                runtime_capability_from_name(json_string_value(x));
                                        if (cap < 0)
                                                return error_set(reterr, EINVAL,
                                                                 "seccomp profile: %s: unknown "
                                                                 "capability \"%s\"",
                                                                 where, json_string_value(x));
                                        has = caps & (1ULL << cap);
                                } else {
                                        /* Docker's names: amd64, arm64, s390x, ... */
                                        static const char *native =
#if defined(__x86_64__)
                                                "amd64";
#elif defined(__aarch64__)
                                                "arm64";
#else
                                                "";
#endif
                                        has = streq(json_string_value(x), native);
                                }
                                all &= has;
                                any |= has;
                        }
                        /* includes: every cap, any arch; excludes: any of either */
                        if (include ? (caps_key ? !all : (json_array_size(v) && !any)) : any)
                                *ret = false;
                } else if (include && streq(key, "minKernel")) {
                        int r = json_is_string(v) ? kernel_at_least(json_string_value(v)) : -1;
                        if (r < 0)
                                return error_set(reterr, EINVAL,
                                                 "seccomp profile: %s: minKernel is not a kernel "
                                                 "version",
                                                 where);
                        if (!r)
                                *ret = false;
                } else {
                        return error_set(reterr, EINVAL,
                                         "seccomp profile: %s: %s: unknown field \"%s\"", where,
                                         include ? "includes" : "excludes", key);
                }
        }
        return 0;
}

static int build_rule(scmp_filter_ctx ctx, uint32_t def, const json_t *rule, size_t idx,
                      uint64_t caps, struct error **reterr)
{
        struct scmp_arg_cmp args[6];
        const json_t *names, *name;
        const char *key;
        char where[48];
        unsigned n_args;
        uint32_t action;
        bool in = true, ex = true;
        json_t *v;
        size_t i;
        int r;

        (void) snprintf(where, sizeof(where), "syscalls[%zu]", idx);
        if (!json_is_object(rule))
                return error_set(reterr, EINVAL, "seccomp profile: %s is not an object", where);
        json_object_foreach((json_t *) rule, key, v)
                if (!streq(key, "names") && !streq(key, "name") && !streq(key, "action") &&
                    !streq(key, "errnoRet") && !streq(key, "args") && !streq(key, "comment") &&
                    !streq(key, "includes") && !streq(key, "excludes"))
                        return error_set(reterr, EINVAL,
                                         "seccomp profile: %s: unknown field \"%s\"", where, key);
        if ((r = parse_action(json_object_get(rule, "action"), json_object_get(rule, "errnoRet"),
                              where, &action, reterr)) < 0 ||
            (r = parse_args(json_object_get(rule, "args"), where, args, &n_args, reterr)) < 0 ||
            (r = condition_holds(json_object_get(rule, "includes"), true, caps, where, &in,
                                 reterr)) < 0 ||
            (r = condition_holds(json_object_get(rule, "excludes"), false, caps, where, &ex,
                                 reterr)) < 0)
                return r;
        names = json_object_get(rule, "names");
        name = json_object_get(rule, "name");
        if ((names && !json_is_array(names)) || (name && !json_is_string(name)) ||
            (!json_array_size(names) && !name))
                return error_set(reterr, EINVAL,
                                 "seccomp profile: %s: names is not a non-empty array of strings",
                                 where);
        json_array_foreach(names, i, v)
                if (!json_is_string(v) || json_string_length(v) > 64)
                        return error_set(reterr, EINVAL,
                                         "seccomp profile: %s: names[%zu] is not a syscall name",
                                         where, i);
        if (!in || !ex)
                return 0;
        json_array_foreach(names, i, v)
                if ((r = add_rule(ctx, def, json_string_value(v), action, args, n_args, reterr)) <
                    0)
                        return r;
        if (name)
                return add_rule(ctx, def, json_string_value(name), action, args, n_args, reterr);
        return 0;
}

static int build_profile(const char *text, size_t len, uint64_t caps, scmp_filter_ctx *ret,
                         struct error **reterr)
{
        json_error_t jerr;
        json_t *j = NULL, *v, *x;
        const char *key;
        scmp_filter_ctx ctx = NULL;
        uint32_t def;
        size_t i;
        int r;

        if (len > RUNTIME_SECCOMP_PROFILE_MAX)
                return error_set(reterr, EFBIG, "seccomp profile: larger than %d bytes",
                                 RUNTIME_SECCOMP_PROFILE_MAX);
        j = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
        if (!j)
                return error_set(reterr, EINVAL, "seccomp profile: not JSON: %s", jerr.text);
        if (!json_is_object(j)) {
                r = error_set(reterr, EINVAL, "seccomp profile: not a JSON object");
                goto out;
        }
        json_object_foreach(j, key, v)
                if (!streq(key, "defaultAction") && !streq(key, "defaultErrnoRet") &&
                    !streq(key, "architectures") && !streq(key, "archMap") &&
                    !streq(key, "syscalls") && !streq(key, "flags")) {
                        r = error_set(
                                reterr, EINVAL, "seccomp profile: unknown field \"%s\"%s", key,
                                streq(key, "listenerPath") ? " (no seccomp agent is supported)"
                                                           : "");
                        goto out;
                }
        if ((r = parse_action(json_object_get(j, "defaultAction"),
                              json_object_get(j, "defaultErrnoRet"), "defaultAction", &def,
                              reterr)) < 0)
                goto out;
        ctx = seccomp_init(def);
        if (!ctx) {
                r = error_set(reterr, ENOMEM, "seccomp profile: seccomp_init failed");
                goto out;
        }
        v = json_object_get(j, "architectures");
        if (v && !json_is_array(v) && !json_is_null(v)) {
                r = error_set(reterr, EINVAL, "seccomp profile: architectures is not an array");
                goto out;
        }
        json_array_foreach(v, i, x)
                if ((r = add_arch(ctx, x, reterr)) < 0)
                        goto out;
        v = json_object_get(j, "archMap");
        if (v && !json_is_array(v) && !json_is_null(v)) {
                r = error_set(reterr, EINVAL, "seccomp profile: archMap is not an array");
                goto out;
        }
        json_array_foreach(v, i, x) {
                /* Docker: the native architecture's entry names the ones it also runs */
                const json_t *a = json_object_get(x, "architecture"),
                             *subs = json_object_get(x, "subArchitectures"), *sub;
                uint32_t arch;
                size_t k;

                if (!json_is_string(a) || (subs && !json_is_array(subs) && !json_is_null(subs))) {
                        r = error_set(reterr, EINVAL, "seccomp profile: archMap[%zu] is malformed",
                                      i);
                        goto out;
                }
                if ((r = parse_arch(json_string_value(a), &arch, reterr)) < 0)
                        goto out;
                if (arch != seccomp_arch_native())
                        continue;
                json_array_foreach(subs, k, sub)
                        if ((r = add_arch(ctx, sub, reterr)) < 0)
                                goto out;
        }
        v = json_object_get(j, "flags");
        if (v && !json_is_array(v) && !json_is_null(v)) {
                r = error_set(reterr, EINVAL, "seccomp profile: flags is not an array");
                goto out;
        }
        json_array_foreach(v, i, x) {
                const char *f = json_string_value(x);
                if (f && streq(f, "SECCOMP_FILTER_FLAG_LOG"))
                        r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_LOG, 1);
                else if (f && streq(f, "SECCOMP_FILTER_FLAG_SPEC_ALLOW"))
                        r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_SSB, 1);
                else if (f && streq(f, "SECCOMP_FILTER_FLAG_TSYNC"))
                        r = 0; /* the container process has one thread when it loads */
                else {
                        r = error_set(reterr, EINVAL, "seccomp profile: unknown flag \"%s\"",
                                      f ? f : "");
                        goto out;
                }
                if (r < 0) {
                        r = error_set(reterr, -r, "seccomp profile: flag \"%s\": %s", f,
                                      strerror(-r));
                        goto out;
                }
        }
        v = json_object_get(j, "syscalls");
        if (v && !json_is_array(v) && !json_is_null(v)) {
                r = error_set(reterr, EINVAL, "seccomp profile: syscalls is not an array");
                goto out;
        }
        json_array_foreach(v, i, x)
                if ((r = build_rule(ctx, def, x, i, caps, reterr)) < 0)
                        goto out;
        *ret = TAKE_PTR(ctx);
        r = 0;
out:
        if (ctx)
                seccomp_release(ctx);
        json_decref(j);
        return r;
}

/* ------------------------------------------------------------------ the interface */

int rt_seccomp_build(enum runtime_seccomp_mode mode, const char *profile, uint64_t caps,
                     bool set_nnp, void **ret, struct error **reterr)
{
        scmp_filter_ctx ctx = NULL;
        int r;

        *ret = NULL;
        switch (mode) {
        case RUNTIME_SECCOMP_UNCONFINED:
                return 0;
        case RUNTIME_SECCOMP_RUNTIME_DEFAULT:
                ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
                if (!ctx)
                        return error_set(reterr, ENOMEM, "seccomp: seccomp_init failed");
                r = add_native_arches(ctx);
                if (r < 0)
                        r = error_set(reterr, -r, "seccomp: add architectures: %s", strerror(-r));
                else
                        r = build_default(caps, ctx, reterr);
                break;
        case RUNTIME_SECCOMP_LOCALHOST:
                if (!profile)
                        return error_set(reterr, EINVAL, "seccomp: a Localhost profile is missing");
                r = build_profile(profile, strlen(profile), caps, &ctx, reterr);
                break;
        case RUNTIME_SECCOMP_MODE_MAX:
        default:
                return error_set(reterr, EINVAL, "seccomp: unknown mode %d", (int) mode);
        }
        if (r >= 0) {
                /* without no_new_privs the filter is loaded while the process still has
                 * CAP_SYS_ADMIN; libseccomp must not set the flag itself (as runc) */
                r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, set_nnp ? 1 : 0);
                if (r < 0)
                        r = error_set(reterr, -r, "seccomp: %s", strerror(-r));
        }
        if (r < 0) {
                if (ctx)
                        seccomp_release(ctx);
                return r;
        }
        *ret = ctx;
        return 0;
}

int rt_seccomp_load(void *ctx)
{
        return ctx ? seccomp_load(ctx) : 0;
}

/* ------------------------------------------------------------------ compiled, cached */

/* Building RuntimeDefault with libseccomp (three ABIs on x86-64) and generating its BPF costs
 * milliseconds, more than the rest of a container's confinement together; every container of a
 * node asks for one of a few filters. So the long-lived agent compiles each once and the
 * container loads the program with seccomp(2). */
struct cached_filter {
        struct cached_filter *next;
        enum runtime_seccomp_mode mode;
        uint64_t caps;
        char *profile;
        struct rt_seccomp_bpf bpf;
};
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cached_filter *cache;
static size_t cache_n;
#define CACHE_MAX 64

static int export_bpf(void *ctx, struct rt_seccomp_bpf *ret)
{
        cleanup_close int fd = memfd_create("seccomp-bpf", MFD_CLOEXEC);
        struct stat st;
        uint32_t v = 0;
        int r;

        if (fd < 0)
                return -errno;
        if ((r = seccomp_export_bpf(ctx, fd)) < 0)
                return r;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (st.st_size <= 0 || st.st_size % sizeof(struct sock_filter) ||
            st.st_size > (off_t) (BPF_MAXINSNS * sizeof(struct sock_filter)))
                return -E2BIG;
        ret->len = (size_t) st.st_size;
        ret->prog = xmalloc(ret->len);
        if (pread(fd, ret->prog, ret->len, 0) != (ssize_t) ret->len) {
                free(ret->prog);
                return -EIO;
        }
        ret->flags = 0;
        if (seccomp_attr_get(ctx, SCMP_FLTATR_CTL_LOG, &v) == 0 && v)
                ret->flags |= SECCOMP_FILTER_FLAG_LOG;
        if (seccomp_attr_get(ctx, SCMP_FLTATR_CTL_SSB, &v) == 0 && v)
                ret->flags |= SECCOMP_FILTER_FLAG_SPEC_ALLOW;
        return 0;
}

int rt_seccomp_compile(enum runtime_seccomp_mode mode, const char *profile, uint64_t caps,
                       struct rt_seccomp_bpf *ret, struct error **reterr)
{
        struct cached_filter *c;
        void *ctx = NULL;
        int r;

        *ret = (struct rt_seccomp_bpf){ 0 };
        if (mode == RUNTIME_SECCOMP_UNCONFINED)
                return 0;
        if (mode == RUNTIME_SECCOMP_LOCALHOST && !profile)
                return error_set(reterr, EINVAL, "seccomp: a Localhost profile is missing");
        if (mode != RUNTIME_SECCOMP_LOCALHOST)
                profile = "";
        pthread_mutex_lock(&cache_lock);
        for (c = cache; c; c = c->next)
                if (c->mode == mode && c->caps == caps && streq(c->profile, profile))
                        break;
        if (c) {
                ret->prog = xmalloc(c->bpf.len);
                memcpy(ret->prog, c->bpf.prog, c->bpf.len);
                ret->len = c->bpf.len;
                ret->flags = c->bpf.flags;
                pthread_mutex_unlock(&cache_lock);
                return 0;
        }
        pthread_mutex_unlock(&cache_lock);

        /* the flag no_new_privs is the loader's business (seccomp(2) below), not the filter's */
        r = rt_seccomp_build(mode, *profile ? profile : NULL, caps, false, &ctx, reterr);
        if (r < 0)
                return r;
        r = export_bpf(ctx, ret);
        seccomp_release(ctx);
        if (r < 0)
                return error_set(reterr, -r, "seccomp: generate the filter: %s", strerror(-r));

        pthread_mutex_lock(&cache_lock);
        if (cache_n < CACHE_MAX) {
                c = xcalloc(1, sizeof(*c));
                c->mode = mode;
                c->caps = caps;
                c->profile = xstrdup(profile);
                c->bpf.prog = xmalloc(ret->len);
                memcpy(c->bpf.prog, ret->prog, ret->len);
                c->bpf.len = ret->len;
                c->bpf.flags = ret->flags;
                c->next = cache;
                cache = c;
                cache_n++;
        }
        pthread_mutex_unlock(&cache_lock);
        return 0;
}

int rt_seccomp_load_bpf(const struct rt_seccomp_bpf *bpf)
{
        struct sock_fprog prog;

        if (!bpf || !bpf->len)
                return 0;
        prog.len = (unsigned short) (bpf->len / sizeof(struct sock_filter));
        prog.filter = bpf->prog;
        if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, bpf->flags, &prog) < 0)
                return -errno;
        return 0;
}

void *rt_seccomp_release(void *ctx)
{
        if (ctx)
                seccomp_release(ctx);
        return NULL;
}

int runtime_seccomp_profile_check(const char *text, size_t len, struct error **reterr)
{
        scmp_filter_ctx ctx = NULL;
        int r = build_profile(text, len, RUNTIME_DEFAULT_CAPS, &ctx, reterr);

        if (ctx)
                seccomp_release(ctx);
        return r;
}

/* K8S validation: localhostProfile is a relative path without ".." components. */
static bool safe_profile_name(const char *name)
{
        const char *p = name;

        if (!*name || name[0] == '/' || strlen(name) > 4096)
                return false;
        while (*p) {
                size_t n = strcspn(p, "/");
                if (n == 2 && p[0] == '.' && p[1] == '.')
                        return false;
                p += n;
                while (*p == '/')
                        p++;
        }
        return true;
}

int runtime_seccomp_profile_read(const char *data_dir, const char *name, char **ret,
                                 struct error **reterr)
{
        cleanup_free char *dir = xasprintf("%s/seccomp", data_dir), *buf = NULL;
        cleanup_close int dfd = -1, fd = -1;
        struct stat st;
        size_t len = 0;
        int r;

        if (!safe_profile_name(name))
                return error_set(reterr, EINVAL,
                                 "seccomp profile \"%s\": must be a relative path without \"..\"",
                                 name);
        dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (dfd < 0)
                return error_set(reterr, errno, "cannot load seccomp profile \"%s/%s\": %s", dir,
                                 name, strerror(errno));
        fd = rt_open_in_root(dfd, name, O_RDONLY | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return error_set(reterr, -fd, "cannot load seccomp profile \"%s/%s\": %s", dir,
                                 name, strerror(-fd));
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
                return error_set(reterr, EINVAL,
                                 "cannot load seccomp profile \"%s/%s\": not a regular file", dir,
                                 name);
        if (st.st_size > RUNTIME_SECCOMP_PROFILE_MAX)
                return error_set(reterr, EFBIG,
                                 "cannot load seccomp profile \"%s/%s\": larger than %d bytes", dir,
                                 name, RUNTIME_SECCOMP_PROFILE_MAX);
        buf = xmalloc((size_t) st.st_size + 1);
        while (len < (size_t) st.st_size) {
                ssize_t n = read(fd, buf + len, (size_t) st.st_size - len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        break;
                len += (size_t) n;
        }
        buf[len] = '\0';
        if (strlen(buf) != len)
                return error_set(reterr, EINVAL,
                                 "cannot load seccomp profile \"%s/%s\": holds a NUL byte", dir,
                                 name);
        r = runtime_seccomp_profile_check(buf, len, reterr);
        if (r < 0) {
                error_wrap(reterr, "cannot load seccomp profile \"%s/%s\"", dir, name);
                return r;
        }
        *ret = TAKE_PTR(buf);
        return 0;
}
