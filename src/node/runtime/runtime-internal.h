/* runtime-internal.h: what the runtime's files share and its unit tests reach: state files, the
 * helper-process launch, $(VAR) expansion, the container spec as JSON, CRI log records, image
 * names and the tar reader. Not for use outside src/node/runtime and its tests. */
#ifndef FLEXLET_NODE_RUNTIME_RUNTIME_INTERNAL_H
#define FLEXLET_NODE_RUNTIME_RUNTIME_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <poll.h>
#include <sys/types.h>
#include <time.h>

#include "base/error.h"
#include "base/strbuf.h"
#include "node/runtime/runtime.h"

/* files of a container's state dir */
#define RT_SPEC_FILE            "spec.json"
#define RT_SUPERVISOR_FILE      "supervisor.json"
#define RT_STARTED_FILE         "started.json"
#define RT_TERMINATION_LOG_FILE "termination-log"
#define RT_EXIT_FILE            "exit.json"
#define RT_LOG_FILE             "container.log"
/* files of a sandbox's state dir */
#define RT_SANDBOX_SPEC_FILE  "sandbox-spec.json"
#define RT_SANDBOX_STATE_FILE "sandbox.json"

/* K8S: containerd's default PATH when the image sets none */
#define RT_DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
/* K8S: the exit code the runtime reports for a container that failed to start */
#define RT_START_ERROR_EXIT_CODE 128
/* state files are small; anything larger is not ours */
#define RT_STATE_FILE_MAX (1024 * 1024)

/* ---- strv: NULL-terminated string arrays */
size_t rt_strv_length(const char *const *v);
char **rt_strv_copy(const char *const *v); /* NULL → empty array */
char **rt_strv_free(char **v);
void rt_strv_push(char ***v, size_t *n, char *s); /* takes s */

/* ---- files (util.c) */
/* openat2(dirfd, path, flags | O_CLOEXEC, resolve) ("" and "/" are dirfd itself). */
int rt_open_resolved(int dirfd, const char *path, int flags, uint64_t resolve);
/* Creates path (relative to dirfd, every component resolved with the openat2 flags resolve)
 * and its missing parents, one component at a time in the resolved parent (never a path walk):
 * the last as a directory, or as an empty regular file when is_file. What it creates gets
 * exactly mode (dirs) or mode & 0666 (the file), whatever the umask. Returns an O_PATH fd of
 * it (-errno on failure: RESOLVE_BENEATH gives -EXDEV for a path that leaves dirfd). */
int rt_create_resolved(int dirfd, const char *path, bool is_file, mode_t mode, uint64_t resolve);
/* rt_create_resolved inside the root rootfd (RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS: symbolic
 * links cannot leave it), dirs 0755, the file 0644. */
int rt_create_in_root(int rootfd, const char *path, bool is_file);
/* openat2(rootfd, path, flags, RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS) */
int rt_open_in_root(int rootfd, const char *path, int flags);

/* ---- volume mount sources (subpath.c) */
/* true when sub is a relative path without ".." components (K8S ValidatePathNoBacksteps) */
bool rt_subpath_is_local(const char *sub);
/* What the supervisor bind-mounts for m: an O_PATH fd of the volume directory (opened once,
 * not through a final symbolic link), or of m->sub_path resolved inside it with
 * RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS from the volume's fd, its missing components made
 * there as directories with the volume's mode. */
int rt_mount_source_open(const struct runtime_mount *m, struct error **reterr);

/* ---- processes (util.c) */
/* The kernel's start time of pid (clock ticks since boot), and whether it has ended: a zombie,
 * or a process in its exit (PF_EXITING). */
int rt_proc_start_time(pid_t pid, uint64_t *ret_ticks, bool *ret_ended);
/* A pidfd of pid when it is still the process that started at start_ticks and runs; -ESRCH
 * otherwise, a zombie or a process in its exit included. */
int rt_pidfd_open_checked(pid_t pid, uint64_t start_ticks);
/* A pidfd of pid while it is the process that started at start_ticks, running, in its exit or a
 * zombie: to kill it and wait for its end (rt_pidfd_wait); -ESRCH otherwise. */
int rt_pidfd_open_to_wait(pid_t pid, uint64_t start_ticks);
int rt_pidfd_send_signal(int pidfd, int sig);
/* Waits up to timeout_ms for the process behind pidfd to end: 1 ended, 0 timed out. */
int rt_pidfd_wait(int pidfd, int timeout_ms);
/* Execs the helper binary with argv (async-signal-safe, for a child between fork and exec):
 * the sealed flexlet-helper when runtime_exe_reexec_sealed found one, else /proc/self/exe.
 * Returns only on failure. (exeseal.c) */
void rt_helper_exec(char *const *argv);
/* Starts the helper binary with argv, its fds 0-3 being fds[0..3] (the rest close at its exec),
 * in a child that shares the agent's memory until the exec instead of a fork's copy of it: its
 * pid, or -errno. */
pid_t rt_clone_helper(const char *const *argv, const int fds[4], struct error **reterr);
/* Starts `<helper binary> supervise --detach --notify-fd 3 <args...>` (it detaches itself: a
 * new session, reparented to init; stdio on /dev/null, only fd 3 inherited) and returns the
 * read end of its notify pipe. */
int rt_spawn_helper(const char *const *args, int *ret_notify_fd, struct error **reterr);
/* Reads the helper's one notify message ("OK ..." or "ERR <errno> <message>") until EOF or
 * timeout; the "OK" payload goes to *ret_payload. An ERR becomes the returned error. */
int rt_read_notify(int fd, int timeout_ms, char **ret_payload, struct error **reterr);
/* The helper's side: writes "OK payload" or "ERR errno message" and closes fd (< 0: nothing). */
void rt_notify(int *fd, int err, const char *msg);

/* ---- terminals (util.c) */
/* A terminal made in the devpts of the current root (the container's, after pivot_root or
 * setns): /dev/pts/ptmx resolved inside the root and checked to be the multiplexer (the pod
 * controls its /dev), the slave opened from the master with TIOCGPTPEER (no path walked), both
 * O_CLOEXEC, the master blocking. -1 with err saying why (Go's lower-case words). */
int rt_pty_open(int *ret_master, int *ret_slave, char *err, size_t errlen);
/* One message on a unix socket, with pass_fd (>= 0) as SCM_RIGHTS; errors are the reader's to
 * notice (a missing message). */
void rt_send_fd(int sock, const char *msg, int pass_fd);
/* One message (NUL-terminated in buf) and the fd passed with it into *ret_fd when that is
 * still -1 (a further one is closed). The message's length, 0 at the end, -errno. */
ssize_t rt_recv_fd(int sock, char *buf, size_t size, int *ret_fd);

/* ---- time */
/* RFC 3339 with exactly nine fraction digits, UTC: "2026-01-01T00:00:00.000000000Z" (buf ≥ 40) */
void rt_time_format(const struct timespec *ts, char buf[static 40]);
/* RFC 3339 with any fraction (or none), "Z" or a numeric offset. 0 or -EINVAL. */
int rt_time_parse(const char *s, size_t len, struct timespec *ret);
void rt_now(struct timespec *ret);

/* ---- $(VAR) expansion and the process environment (env.c) */
/* K8S third_party/forked/golang/expansion: $(NAME) is replaced by lookup(NAME) when it knows
 * the name (returns non-NULL), else kept as written; "$$" is one "$"; anything else is kept. */
char *rt_expand(const char *input, const char *(*lookup)(void *ud, const char *name), void *ud);

/* An ordered list of unique names; a later set replaces the value in place. */
struct rt_env {
        char **names;
        char **values;
        size_t n;
};
void rt_env_release(struct rt_env *e);
void rt_env_set(struct rt_env *e, const char *name, const char *value);
const char *rt_env_get(const struct rt_env *e, const char *name);
char **rt_env_to_strv(const struct rt_env *e); /* "NAME=value" */

/* K8S makeEnvironmentVariables: the pod's env list expanded in order (each value against the
 * ones before it). */
void rt_pod_env(const struct runtime_container_spec *s, struct rt_env *ret);
/* The process environment: PATH (default), HOSTNAME, the image's env, the pod's env, HOME when
 * still missing (home: the user's from the image's /etc/passwd, or "/"). */
char **rt_process_env(const struct runtime_container_spec *s, const struct rt_env *pod_env,
                      const char *hostname, const char *home);
/* envp (from rt_process_env) with TERM=xterm added when it has no TERM (a terminal's). */
char **rt_env_default_term(char **envp);
/* K8S: command/args against the image's entrypoint/cmd, then $(VAR) expansion of each word
 * against the pod's env. -EINVAL "no command specified" when nothing is left. */
int rt_process_argv(const struct runtime_container_spec *s, const struct rt_env *pod_env,
                    char ***ret, struct error **reterr);

/* ---- the container spec as JSON (spec.c) */
json_t *rt_spec_to_json(const struct runtime_container_spec *s);
/* A spec read back: every pointer in spec borrows from this holder. */
struct rt_spec_holder {
        json_t *json;
        struct runtime_container_spec spec;
        char **strv[7];
        struct runtime_env_var *env;
        struct runtime_mount *mounts;
        gid_t *groups;
        struct runtime_sysctl *sysctls;
};
int rt_spec_from_json(json_t *j, struct rt_spec_holder *ret, struct error **reterr);
void rt_spec_holder_release(struct rt_spec_holder *h);
/* Checks what the supervisor will rely on (absolute state dir, a command, mount paths). */
int rt_spec_check(const struct runtime_container_spec *s, struct error **reterr);

/* ---- confinement (confine.c, capabilities.c, seccomp.c) */
/* Drops every capability but keep from the bounding set (-errno). */
int rt_caps_drop_bounding(uint64_t keep);
/* Sets the effective and permitted sets to caps, inheritable empty, clears the ambient set. */
int rt_caps_set(uint64_t caps);
/* Every capability the running kernel knows. */
uint64_t rt_caps_all(void);
/* The seccomp filter of mode (RuntimeDefault for the bounding set caps, Localhost from the
 * profile text), not yet loaded; NULL for Unconfined. set_nnp: whether loading it may set
 * no_new_privs (false: it is loaded with CAP_SYS_ADMIN, as runc). Release with
 * rt_seccomp_release. */
int rt_seccomp_build(enum runtime_seccomp_mode mode, const char *profile, uint64_t caps,
                     bool set_nnp, void **ret, struct error **reterr);
int rt_seccomp_load(void *ctx); /* NULL: nothing, 0 */
void *rt_seccomp_release(void *ctx);
/* A filter as the kernel takes it: BPF instructions and seccomp(2) flags. */
struct rt_seccomp_bpf {
        void *prog; /* owned; len bytes of struct sock_filter */
        size_t len;
        unsigned flags; /* SECCOMP_FILTER_FLAG_LOG, _SPEC_ALLOW */
};
/* The compiled filter of mode for the bounding set caps, from a per-process cache (thread-safe;
 * the agent compiles each distinct filter once). Unconfined: len 0. Free ret->prog. */
int rt_seccomp_compile(enum runtime_seccomp_mode mode, const char *profile, uint64_t caps,
                       struct rt_seccomp_bpf *ret, struct error **reterr);
/* seccomp(SECCOMP_SET_MODE_FILTER): needs no_new_privs or CAP_SYS_ADMIN. len 0: nothing. */
int rt_seccomp_load_bpf(const struct rt_seccomp_bpf *bpf);
/* The state dir's compiled filter (written by runtime_container_start, read by the supervisor):
 * a 4-byte flags word, then the instructions. */
#define RT_SECCOMP_FILE "seccomp.bpf"

/* Masked and read-only /proc and /sys paths (not for a privileged container), in the root
 * being built (rootfd), after /proc and /sys are mounted. */
int rt_confine_paths(int rootfd, const struct runtime_security *sec, struct error **reterr);
/* A privileged container's /dev gets the host's devices (nothing otherwise). */
int rt_confine_devices(int rootfd, const struct runtime_security *sec, struct error **reterr);
/* Writes the namespaced sysctls, with the host's /proc still in sight (before pivot_root). */
int rt_confine_sysctls(const struct runtime_security *sec, struct error **reterr);
/* A path under /proc/sys made of lower-case words, digits, '_', '-', single '/'. */
bool rt_sysctl_name_ok(const char *name);
/* readOnlyRootFilesystem, after pivot_root. */
int rt_confine_root_readonly(const struct runtime_security *sec, struct error **reterr);
/* containerd WithUserID/WithAdditionalGIDs: the user's primary group from passwd (when not
 * gid_set; 0 when the user has no entry), and the groups: that one first, then the groups of
 * `group` that list the user's name (when image_groups). Either file may be NULL. */
void rt_user_groups(FILE *passwd, FILE *group, uid_t uid, bool gid_set, gid_t *gid,
                    bool image_groups, gid_t **ret, size_t *ret_n);

/* What the last steps before exec need, computed after pivot_root (the image's /etc). */
struct rt_confine {
        uid_t uid;
        gid_t gid;
        gid_t *groups;
        size_t n_groups;
        uint64_t caps;
        bool no_new_privs;
        const struct rt_seccomp_bpf *seccomp; /* borrowed; NULL or len 0: none */
};
int rt_confine_prepare(const struct runtime_container_spec *s, const struct rt_seccomp_bpf *bpf,
                       struct rt_confine *ret, struct error **reterr);
/* The filter the container of spec gets (none for Unconfined or privileged), compiled. */
int rt_confine_seccomp(const struct runtime_container_spec *s, struct rt_seccomp_bpf *ret,
                       struct error **reterr);
/* runc's order: bounding set, seccomp (without no_new_privs), groups, gid, uid, capability
 * sets, no_new_privs, seccomp (with it). The caller execs next. */
int rt_confine_finish(struct rt_confine *c, struct error **reterr);

/* The home of uid in /etc/passwd of the current root (the container's), or NULL. */
char *rt_passwd_home(uid_t uid);
/* The compiled filter runtime_container_start left in the state dir dfd (RT_SECCOMP_FILE);
 * len 0 when there is none. Free ret->prog. */
int rt_seccomp_read_file(int dfd, struct rt_seccomp_bpf *ret, struct error **reterr);
/* `supervise --exec ...`: the exec helper (exec.c); returns its exit status. */
int rt_exec_helper_main(int argc, char **argv, struct error **reterr);

/* ---- CRI log records (log.c) */
enum rt_stream { RT_STDOUT, RT_STDERR };
struct rt_log_record {
        struct timespec time;
        enum rt_stream stream;
        bool partial;
        const char *content; /* borrowed from the parsed line: for "F", ends with its '\n' */
        size_t len;
};
/* Appends one record "TIME STREAM TAG CONTENT\n". */
void rt_log_format(struct strbuf *sb, const struct timespec *ts, enum rt_stream stream,
                   bool partial, const char *content, size_t len);
/* Parses one line of a log file (with or without its trailing '\n'): 0 or -EINVAL. */
int rt_log_parse(const char *line, size_t len, struct rt_log_record *ret);
/* The offset where the last n lines of fd start (K8S pkg/util/tail: an unterminated last line
 * does not count); n < 0: 0. */
int rt_log_tail_offset(int fd, int64_t n, off_t *ret);

/* Turns a stream of output bytes into records: complete lines as "F", runs longer than
 * RUNTIME_LOG_MAX_LINE as "P" pieces, the unterminated rest as "F" at flush. */
struct rt_log_writer {
        int fd;
        struct strbuf pending[2];
        struct strbuf out;
        void (*clock)(struct timespec *ret); /* rt_now unless a test sets another */
};
void rt_log_writer_init(struct rt_log_writer *w, int fd);
void rt_log_writer_release(struct rt_log_writer *w);
/* 0, or -errno when the log file refused a write (the bytes are dropped). */
int rt_log_writer_feed(struct rt_log_writer *w, enum rt_stream s, const char *buf, size_t n);
int rt_log_writer_flush(struct rt_log_writer *w, enum rt_stream s);

/* ---- images (image.c) */
struct rt_image_name {
        char *domain; /* "docker.io" */
        char *path;   /* "library/busybox" */
        char *tag;    /* "latest" when neither tag nor digest is given; NULL with a digest only */
        char *digest; /* "sha256:…" or NULL */
        char *reference; /* canonical */
};
int rt_image_name_parse(const char *name, struct rt_image_name *ret, struct error **reterr);
void rt_image_name_release(struct rt_image_name *n);
/* Publishes the prepared image folder tmp as final (under the store's images folder, which
 * holds the temporary names): the parent made, an earlier final moved aside and removed, so the
 * new one appears in one rename. 0, or -errno with *reterr (tmp is left to the caller). */
int rt_image_publish(const char *images, const char *tmp, const char *final, struct error **reterr);
/* The store dir of an image name, relative to DATA/images. */
char *rt_image_store_subdir(const struct rt_image_name *n);
/* 0 when the ELF file at fd has no program interpreter (statically linked). */
int rt_elf_is_static(int fd, struct error **reterr);

/* ---- tar (tar.c) */
struct rt_tar_stats {
        uint64_t files, dirs, symlinks, hardlinks, fifos, skipped_devices, bytes;
        uint64_t whiteouts, opaque_dirs;
};
struct rt_tar_options {
        /* an OCI layer: ".wh.NAME" becomes an overlayfs whiteout (a character device 0/0 named
         * NAME), ".wh..wh..opq" the opaque xattr trusted.overlay.opaque=y on its directory,
         * other ".wh..wh." names are dropped. Off: such names are plain files. */
        bool whiteouts;
};
/* Extracts the tar stream on fd (plain, gzip or zstd; ustar, GNU or pax, read by libarchive)
 * below rootfd (see runtime_image_import for the rules). opts may be NULL. */
int rt_tar_extract(int fd, int rootfd, const struct rt_tar_options *opts,
                   struct rt_tar_stats *ret_stats, struct error **reterr);

/* The sha256 (64 hex digits) of the bytes the stream on fd holds once decompressed (gzip, zstd
 * or none): an OCI layer's diffID. Reads from offset 0 and seeks back there. */
int rt_tar_uncompressed_sha256(int fd, char ret[static 65], struct error **reterr);

/* ---- the content-addressed store (image-store.c) */
struct rt_image_import_stats {
        uint64_t layers_unpacked, layers_shared;
};
/* The sha256 of fd's bytes from offset 0 (64 hex digits); seeks back to 0. */
int rt_sha256_fd(int fd, char ret[static 65]);
/* Imports the docker save archive or OCI image layout unpacked at rootfd (its files are opened
 * inside it, never followed out): blobs checked by digest, layers by diffID, unpacked into
 * DATA/images/layers/<diffID hex>/fs once, each image recorded under its names (name, when not
 * NULL, instead of the archive's: then only its first image). *ret_refs: a JSON array of the
 * references recorded. -ENOMEDIUM (no message) when rootfd holds neither layout. */
int rt_image_import_tree(const char *data_dir, int rootfd, const char *name,
                         struct rt_image_import_stats *ret_stats, json_t **ret_refs,
                         struct error **reterr);

/* ---- the supervisor's attach sessions (attach.c; see runtime.h "attach") */
#define RT_ATTACH_CLIENTS_MAX 16
struct rt_attach_client {
        int fd;
        struct strbuf in;  /* frames not yet complete */
        struct strbuf out; /* output not yet sent */
        bool hello, want_stdin, stdin_done;
};
struct rt_attach_server {
        int listen_fd; /* -1: none */
        int dfd;       /* the state dir (borrowed) */
        struct rt_attach_client clients[RT_ATTACH_CLIENTS_MAX];
        size_t n_clients;
        int stdin_fd; /* the container's stdin (a pipe's write end, or the terminal); -1 */
        int pty_fd;   /* the terminal's master, for resizes (borrowed); -1 */
        bool stdin_once, tty, stdin_closing;
        struct strbuf stdin_pending; /* written as the container takes it */
};
void rt_attach_server_init(struct rt_attach_server *srv);
/* Serves RUNTIME_ATTACH_SOCKET in dfd (replacing a stale one). -errno. */
int rt_attach_server_listen(struct rt_attach_server *srv, int dfd);
/* The descriptors to poll (at most RT_ATTACH_CLIENTS_MAX + 2 written to p), then, with the
 * same p and count once poll returned, what they are ready for. */
size_t rt_attach_server_pollfds(struct rt_attach_server *srv, struct pollfd *p);
void rt_attach_server_handle(struct rt_attach_server *srv, const struct pollfd *p, size_t n);
/* The container's output, to every session (after the log got it). */
void rt_attach_server_output(struct rt_attach_server *srv, enum rt_stream s, const char *buf,
                             size_t n);
/* The container exited: the socket goes, the sessions get their last output (a second at
 * most) and are closed; stdin_fd is closed (pty_fd stays the caller's). */
void rt_attach_server_finish(struct rt_attach_server *srv);

/* ---- helper processes (sandbox.c, supervisor.c) */
int rt_sandbox_serve(const char *state_dir, int notify_fd, struct error **reterr);
int rt_supervisor_serve(const char *state_dir, int notify_fd, struct error **reterr);
/* Reads a sandbox's state: pid, start time, hostname (caller frees). -ENOENT when absent. */
int rt_sandbox_read_state(const char *state_dir, pid_t *ret_pid, uint64_t *ret_ticks,
                          char **ret_hostname);

/* ---- user namespaces (userns.c) */
/* Moves the calling (single-threaded) process into a new user namespace mapping 0..length-1 to
 * host IDs base.., the maps written by a child left in the host's namespace (setgroups stays
 * "allow"), and makes it root there. Before anything else of the pod is unshared, so the
 * namespaces made after it are owned by it. err: why, for a person. */
int rt_userns_unshare(uint32_t base, uint32_t length, char *err, size_t errlen);
/* The user namespace of process pid (pidfd: the same process, checked after the reads): *ret_fd
 * -1 and *ret_base 0 when it is ours (the host's), else an fd of it and the host ID its 0 maps
 * to. */
int rt_userns_of_pid(pid_t pid, int pidfd, int *ret_fd, uint32_t *ret_base);
/* K8S KEP-127: idmaps the detached mount tree mntfd (open_tree OPEN_TREE_CLONE) with the user
 * namespace userns_fd: a file owned by host ID n is n inside (host 0 is the pod's root), and
 * what the pod writes as n is stored as n. -EINVAL where the filesystem cannot be idmapped. */
int rt_userns_idmap(int mntfd, int userns_fd);
/* An idmapped clone of the mount tree at source attached at target (a directory): for the
 * image's root, the overlay's lower layer. Call in a private mount namespace. */
int rt_userns_bind_idmapped(const char *source, const char *target, int userns_fd);

#endif
