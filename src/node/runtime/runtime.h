/* runtime.h: flexlet's own container runtime. Pods run as plain Linux processes: no container
 * engine, only namespaces, an overlay mount and a small supervisor per container.
 *
 * The pieces, and who owns what:
 *
 * - Images (DATA/images, docs/images.md). `busybox` with any tag is built in: assembled on
 *   first use from the host's static busybox (Debian's busybox-static). Others are `docker save`
 *   archives and OCI image layouts (runtime_image_import_path: layers unpacked once each, by
 *   diffID, shared) or root filesystem tarballs (runtime_image_import). Layout:
 *     DATA/images/builtin/busybox/{rootfs/,config.json}
 *     DATA/images/<domain>/<path>/<tag | algo+digest>/{rootfs/,config.json} or image.json
 *     DATA/images/blobs/sha256/<hex>, DATA/images/layers/<diffID hex>/fs/
 *   (a ':' in a domain becomes '+'). An imported image wins over the built-in busybox for its
 *   exact reference.
 *
 * - The pod sandbox: one tiny process per pod (this binary, detached in its own session) that
 *   unshares pid, ipc and uts namespaces, and the network namespace unless the pod uses the
 *   host's (the agent wires it with CNI: src/node/network), sets the hostname, and is
 *   pid 1 of the pod: it reaps orphans and lives until killed. With a user namespace
 *   (userns_base, K8S KEP-127) that one is made first and owns the others; the containers then
 *   see the image and their volumes through idmapped mounts and run in it (userns.c). Its root and
 * cwd are an empty read-only tmpfs (every container sees it as /proc/1, so /proc/1/root must not be
 * the host's). Its state file lets an agent that restarted find it again.
 *
 * - One supervisor per container (this binary again: `<exe> supervise DIR`, detached). It
 *   starts the container process in the sandbox's pid/ipc/uts/net namespaces and a private mount
 *   namespace over an overlay of the image, pipes stdout/stderr into a CRI-format log, waits,
 *   and records the exit. Containers and supervisors outlive the agent: the agent learns
 *   everything from the files in the container's state dir, so a new agent process re-adopts
 *   running containers without touching them.
 *
 * What a container sees: the image under an overlay whose writable layer is in its state dir
 * (a restart starts from a fresh one, as upstream), its own /proc of the pod's pid namespace
 * (pid 1 is the sandbox), a tmpfs /dev with null, zero, full, random, urandom, tty, a new
 * devpts and a 64 MiB /dev/shm (none when a volume is mounted there), the host's /sys
 * read-only (without submounts), the volumes bind-mounted (recursively; read-only when asked)
 * parents first, each from an fd of the volume (or of its subPath resolved inside it, see
 * struct runtime_mount), the pod's hostname, IPC and network namespaces. It runs as
 * uid/gid of the spec with the groups of runtime_security, stdin on /dev/null (or its own
 * stdin pipe or terminal: spec stdin_open, tty, and "attach" below), confined as
 * runtime_security says (confine.c, capabilities.c, seccomp.c). No fd of the
 * supervisor's survives into the container's child past pivot_root (a workingDir of
 * /proc/self/fd/N would lead out), and a working dir with no path from the root is refused.
 *
 * The helper processes run `<exe> supervise --notify-fd 3 [--sandbox] DIR`, where <exe> is
 * flexlet-helper when runtime_exe_reexec_sealed found it beside the binary (`flexlet serve`
 * and `flexlet node`: a sealed view of it), else the calling process's own binary
 * (/proc/self/exe); that binary's main must route `supervise` to runtime_helper_main.
 * flexlet's does (cmd_supervise), and flexlet-helper's (src/helper/main.c). A test binary that
 * starts sandboxes or containers must do the same first thing in its main (see
 * tests/unit/node/test-runtime-e2e.c), or it would be re-run, detached, as its own helper.
 *
 * Kernel: Linux >= 5.12 (pidfd_open, setns on a pidfd, openat2, close_range, open_tree,
 * move_mount, mount_setattr), overlayfs, root.
 *
 * Folders (the agent chooses them; these helpers give the conventional ones):
 *   DATA/pods/<uid>/sandbox/                      runtime_sandbox_dir
 *   DATA/pods/<uid>/containers/<name>/<restart>/  runtime_container_dir: spec.json,
 *       supervisor.json, started.json, exit.json, container.log, seccomp.bpf (the compiled
 *       filter, when there is one), termination-log (terminationMessagePath's file), upper/,
 *       work/, rootfs/
 * One container dir per start, so the previous run's log (`kubectl logs --previous`) is the
 * one of restart - 1.
 *
 * Errors: -errno, with a struct error whose message reads "context: cause" for a person. */
#ifndef FLEXLET_NODE_RUNTIME_RUNTIME_H
#define FLEXLET_NODE_RUNTIME_RUNTIME_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "base/error.h"

/* ------------------------------------------------------------------ images */

struct runtime_image {
        char *reference;   /* canonical: "docker.io/library/busybox:1.36" */
        char *rootfs;      /* absolute path of the read-only root filesystem (the top layer) */
        char **lowerdirs;  /* its layers, top first, NULL-terminated: the overlay's lowerdir */
        char *user;        /* the config's User ("" when none) */
        char *id;          /* the config's digest; NULL for root filesystem images */
        char **entrypoint; /* NULL-terminated, never NULL (may be empty) */
        char **cmd;        /* NULL-terminated, never NULL */
        char **env;        /* "NAME=value", NULL-terminated, never NULL */
        char *working_dir; /* "" when the image sets none */
        bool builtin;      /* the busybox assembled from the host */
};

/* What `flexlet image import` records beside an imported root filesystem (an image config's
 * Entrypoint, Cmd, Env, WorkingDir). NULL arrays mean none. */
struct runtime_image_config {
        const char *const *entrypoint;
        const char *const *cmd;
        const char *const *env;
        const char *working_dir;
};

/* Parses an image name as Docker references read ("busybox" → "docker.io/library/busybox:latest").
 * K8S: an unparsable name is the waiting reason InvalidImageName; the message here is the
 * kubelet's tail: `couldn't parse image name "X": invalid reference format` (-EINVAL). */
int runtime_image_parse(const char *name, char **ret_reference, struct error **reterr);

/* Finds image `name` in the store under data_dir, assembling the built-in busybox on first use,
 * and fills *ret (release with runtime_image_release). A missing image is -ENOENT with the
 * message `image "foo" not found in the local image store; import it with: flexlet image
 * import foo FILE.tar` (K8S: the agent shows it as ErrImagePull, then ImagePullBackOff). Safe to
 * call from several threads and processes at once. */
int runtime_image_ensure(const char *data_dir, const char *name, struct runtime_image *ret,
                         struct error **reterr);
void runtime_image_release(struct runtime_image *img);

/* Imports the root filesystem tarball read from tar_fd (uncompressed ustar, GNU or pax) as
 * image `name`, replacing an earlier import of the same reference. Extraction is our own
 * reader, so nothing lands outside the root: absolute names are taken relative to it, ".."
 * components and hard links out of it refuse the whole tarball, symbolic links are resolved
 * inside the root (openat2 RESOLVE_IN_ROOT), device nodes are skipped. Owners and modes are
 * kept (as `tar --same-owner` does for root). cfg may be NULL. */
int runtime_image_import(const char *data_dir, const char *name, int tar_fd,
                         const struct runtime_image_config *cfg, struct error **reterr);

/* Imports the file or directory at path ("-": stdin): a `docker save` archive (manifest.json
 * and layer tars) or an OCI image layout (oci-layout, index.json, blobs/sha256; a directory or
 * a tar), their layers plain, gzip or zstd, into the content-addressed store: every blob checked
 * against its digest, every layer against its diffID and unpacked once into
 * DATA/images/layers/<diffID>/fs (shared by every image that has it; OCI whiteouts made
 * overlayfs ones), each image recorded under its names (RepoTags, the containerd or full OCI ref
 * name annotation; `name` instead when not NULL). A tarball that is neither is a root filesystem,
 * imported as runtime_image_import does (name required; cfg applies only to it). *ret_refs:
 * the references recorded (a JSON array). */
int runtime_image_import_path(const char *data_dir, const char *path, const char *name,
                              const struct runtime_image_config *cfg, json_t **ret_refs,
                              struct error **reterr);

struct runtime_image_prune {
        unsigned layers, blobs;
};
/* Removes image `name` from the store, then the layers and blobs that no image names any more
 * and no container of this node stands on (*ret_pruned counts them; may be NULL). -ENOENT when
 * the name is not in the store; the built-in busybox cannot be removed (-EPERM). */
int runtime_image_remove(const char *data_dir, const char *name,
                         struct runtime_image_prune *ret_pruned, struct error **reterr);

/* The references of the images that the containers of this node (running or ended, until
 * their pod is deleted) were started on: a JSON object used as a set (new reference). */
json_t *runtime_images_in_use(const char *data_dir);

/* The images in the store: a JSON array of {"reference", "builtin", "rootfs", "id" (the config
 * digest or null), "layers" (how many)} (new reference). */
int runtime_image_list(const char *data_dir, json_t **ret, struct error **reterr);

/* ------------------------------------------------------------------ pod sandbox */

struct runtime_sandbox_spec {
        const char *state_dir;           /* absolute; created if missing */
        const char *hostname;            /* K8S: spec.hostname, else the pod name */
        const char *const *cgroup_procs; /* absolute cgroup.procs paths (NULL-terminated) the
                                          * sandbox process joins, or NULL */
        bool own_network; /* a network namespace of its own; false: the host's (hostNetwork) */
        /* K8S KEP-127 hostUsers: false: the host ID the pod's 0 maps to in a user namespace of
         * its own (RUNTIME_USERNS_LENGTH IDs), made before the pid, ipc, uts and net ones,
         * which it owns; 0: the host's user namespace */
        uint32_t userns_base;
};
#define RUNTIME_USERNS_LENGTH 65536U

/* Starts the pod's sandbox unless it already runs, and returns its host pid. Idempotent. */
int runtime_sandbox_start(const struct runtime_sandbox_spec *s, pid_t *ret_pid,
                          struct error **reterr);
/* 1 and *ret_pid when the sandbox of state_dir runs (the same process that was started: its
 * start time is checked), 0 when it does not, -errno when its state cannot be read. */
int runtime_sandbox_running(const char *state_dir, pid_t *ret_pid);
/* A pidfd (O_CLOEXEC) of the running sandbox of state_dir, checked to be the process that was
 * started, for the caller to poll (readable once it ended) and close; -ESRCH when it does not
 * run, -errno when its state cannot be read. */
int runtime_sandbox_exit_fd(const char *state_dir);
/* An fd (O_RDONLY, O_CLOEXEC) of the network namespace of the running sandbox of state_dir,
 * checked to belong to the process that was started. -ESRCH when it does not run. */
int runtime_sandbox_netns_fd(const char *state_dir, int *ret_fd, struct error **reterr);
/* K8S KEP-127: whether the volume folder at path can be mounted idmapped for the user
 * namespace of the running sandbox of sandbox_dir (0 also when the sandbox has none): what a
 * container of the pod needs before it starts, so a filesystem that refuses (tmpfs before Linux
 * 6.3) is the container's CreateContainerConfigError, never a mount left unmapped. */
int runtime_userns_check_volume(const char *sandbox_dir, const char *path, struct error **reterr);
/* Kills the sandbox (and with it every process of the pod's pid namespace) and waits until it
 * is gone. 0 when it was not running. The state dir stays for the caller to remove. */
int runtime_sandbox_stop(const char *state_dir, struct error **reterr);

/* ------------------------------------------------------------------ containers */

/* A volume mount. The source is the volume's directory and the subPath stays apart from it: the
 * supervisor opens the volume's directory once and resolves the subPath inside it (openat2
 * RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS from the volume's fd: a symbolic link the pod wrote,
 * absolute or "../..", cannot leave the volume), creates what is missing of it there, and
 * bind-mounts the fd it resolved (open_tree + move_mount), never a host path walked again. */
struct runtime_mount {
        const char *source;   /* the volume: an absolute host path of a directory */
        const char *target;   /* mountPath inside the container; created when missing (inside
                               * the container's root); never inside its /proc */
        bool read_only;       /* applied before the mount is attached */
        const char *sub_path; /* NULL or "": the whole volume; else relative to it, without ".."
                               * components (a directory or a file, created as a directory when
                               * missing, with the volume directory's mode) */
};

struct runtime_env_var {
        const char *name;
        const char *value;
        /* K8S: `value` strings are expanded ($(VAR), $$ escapes) against the variables before
         * them; values the agent resolved from valueFrom/envFrom are used as they are. */
        bool literal;
};

/* ------------------------------------------------------------------ confinement */

/* K8S/containerd: the capabilities an unprivileged container gets by default (containerd's
 * oci.populateDefaultUnixSpec, CRI-O's default_capabilities): CHOWN, DAC_OVERRIDE, FSETID,
 * FOWNER, MKNOD, NET_RAW, SETGID, SETUID, SETFCAP, SETPCAP, NET_BIND_SERVICE, SYS_CHROOT, KILL,
 * AUDIT_WRITE. As a bit mask (bit n = capability n) it is what /proc/self/status shows as
 * CapEff for root: 00000000a80425fb. */
#define RUNTIME_DEFAULT_CAPS 0xa80425fbULL
/* The highest capability number this runtime knows (CAP_CHECKPOINT_RESTORE). */
#define RUNTIME_CAP_LAST 40

/* The capability number of `name`, written as Kubernetes and containerd accept it: with or
 * without the "CAP_" prefix, any case ("NET_ADMIN", "cap_net_admin"). -EINVAL for a name that is
 * no capability (and for "ALL", which only runtime_capabilities_merge understands). */
int runtime_capability_from_name(const char *name);
/* The canonical name of capability cap ("CAP_NET_ADMIN"), NULL when unknown. */
const char *runtime_capability_name(int cap);

/* K8S/containerd CRI WithCapabilities: the set a container gets from `base` (the default set)
 * and securityContext.capabilities: "ALL" in add means every capability, "ALL" in drop none,
 * then each named add, then each named drop (a name in both is dropped). Names as
 * runtime_capability_from_name reads them. -EINVAL with `unknown capability "X"` otherwise. */
int runtime_capabilities_merge(uint64_t base, const char *const *add, const char *const *drop,
                               uint64_t *ret, struct error **reterr);

enum runtime_seccomp_mode {
        RUNTIME_SECCOMP_UNCONFINED,
        RUNTIME_SECCOMP_RUNTIME_DEFAULT, /* our table, equal in effect to containerd's default */
        RUNTIME_SECCOMP_LOCALHOST,       /* a profile in the OCI seccomp JSON format */
        RUNTIME_SECCOMP_MODE_MAX,
};

/* Checks a seccomp profile in the OCI/Docker JSON format (defaultAction, defaultErrnoRet,
 * architectures, archMap, syscalls[{names, action, errnoRet, args[{index, value, valueTwo,
 * op}]}]) as the container will load it: -EINVAL with "seccomp profile: ..." naming the field
 * that is wrong. `len` bytes of text, at most RUNTIME_SECCOMP_PROFILE_MAX. */
#define RUNTIME_SECCOMP_PROFILE_MAX (1024 * 1024)
int runtime_seccomp_profile_check(const char *text, size_t len, struct error **reterr);

/* K8S: the Localhost profile `name` (securityContext.seccompProfile.localhostProfile) read from
 * DATA/seccomp/<name>: a relative name without ".." components, resolved inside that folder
 * (no symbolic link leaves it), a regular file of at most RUNTIME_SECCOMP_PROFILE_MAX bytes,
 * checked with runtime_seccomp_profile_check. *ret is the text (caller frees). */
int runtime_seccomp_profile_read(const char *data_dir, const char *name, char **ret,
                                 struct error **reterr);

/* A namespaced sysctl (K8S spec.securityContext.sysctls): `name` as a path under /proc/sys
 * ("kernel/shm_rmid_forced"). net/ ones need the pod's own network namespace: the container
 * refuses to start when it shares the host's. */
struct runtime_sysctl {
        const char *name;
        const char *value;
};

/* How the container is confined. Zero-initialised it is the runtime default an unprivileged
 * container gets from containerd: RUNTIME_DEFAULT_CAPS as the bounding set (and effective,
 * permitted for root; a non-root user has none after exec, as with runc), inheritable and
 * ambient empty, masked and read-only /proc and /sys paths, /sys read-only, no seccomp filter
 * (K8S: Unconfined is the kubelet's default), the user's groups from the image. */
struct runtime_security {
        bool privileged;     /* every capability, no masked or read-only paths, /sys writable,
                              * the host's devices, no seccomp filter */
        bool read_only_root; /* readOnlyRootFilesystem: the root remounted read-only */
        bool no_new_privs;   /* allowPrivilegeEscalation false: PR_SET_NO_NEW_PRIVS */
        bool caps_set;       /* use caps, else RUNTIME_DEFAULT_CAPS */
        uint64_t caps;
        bool gid_set;         /* the spec's gid; else the user's in the image's /etc/passwd */
        bool no_image_groups; /* supplementalGroupsPolicy Strict: not the image's /etc/group */
        const gid_t *groups;  /* supplementalGroups (and fsGroup) */
        size_t n_groups;
        enum runtime_seccomp_mode seccomp;
        const char *seccomp_profile; /* RUNTIME_SECCOMP_LOCALHOST: the profile's JSON text */
        const struct runtime_sysctl *sysctls;
        size_t n_sysctls;
        bool host_pid; /* K8S hostPID: the host's pid namespace, not the sandbox's */
        bool host_ipc; /* K8S hostIPC */
        /* K8S procMount: Unmasked (only with hostUsers: false): no masked nor read-only paths,
         * as containerd clears MaskedPaths and ReadonlyPaths for it */
        bool proc_unmasked;
};

/* Borrowed for the call. Zero-initialise, then fill. */
struct runtime_container_spec {
        const char *state_dir;   /* absolute, runtime_container_dir; created if missing */
        const char *sandbox_dir; /* the pod's runtime_sandbox_spec.state_dir */
        /* the image (runtime_container_spec_use_image fills these from a runtime_image) */
        const char *rootfs;
        /* the overlay's lower dirs, top layer first (NULL: rootfs alone); rootfs is the first */
        const char *const *image_lowerdirs;
        const char *const *image_entrypoint;
        const char *const *image_cmd;
        const char *const *image_env;
        const char *image_working_dir;
        /* the image's canonical reference, kept in the spec so that the image garbage
         * collection knows which images containers of this node were started on */
        const char *image_reference;
        /* K8S: command replaces the image's entrypoint, args its cmd (NULL or empty: not set) */
        const char *const *command;
        const char *const *args;
        const char *working_dir; /* NULL or "": the image's, else "/" */
        const struct runtime_env_var *env;
        size_t n_env;
        const struct runtime_mount *mounts;
        size_t n_mounts;
        /* absolute cgroup.procs paths of the container's OWN cgroups, one per controller
         * hierarchy (NULL-terminated, or NULL): the container process joins each before it
         * execs, and once its main process has exited the supervisor kills whatever is still in
         * them (K8S: a container's processes end with it). Never pass the pod's cgroups here. */
        const char *const *cgroup_procs;
        uid_t uid; /* K8S: securityContext.runAsUser/runAsGroup; 0 is root */
        gid_t gid; /* used when security.gid_set */
        struct runtime_security security;
        /* OCI process.oomScoreAdj (-1000..1000), written to the process's oom_score_adj before
         * it execs when oom_score_adj_set. A value below what the supervisor itself has, which
         * the kernel refuses without CAP_SYS_RESOURCE, is raised to it, as containerd's
         * restrict_oom_score_adj does. */
        int oom_score_adj;
        bool oom_score_adj_set;
        /* K8S terminationMessagePath (NULL or "": none): the file "termination-log" of the state
         * dir (mode 0666, so the container's user writes it, as the kubelet's) is bind-mounted
         * there, the target made inside the root (a link the image or a volume planted there
         * cannot lead out); when the process exits the supervisor reads the file's last
         * RUNTIME_TERMINATION_MESSAGE_MAX bytes, through its own fd, into the exit's message */
        const char *termination_message_path;
        /* K8S terminationMessagePolicy FallbackToLogsOnError: when the file is empty and the
         * exit code is not 0, the log's last RUNTIME_TERMINATION_LOG_LINES lines, at most
         * RUNTIME_TERMINATION_LOG_MAX bytes (their end), instead */
        bool termination_message_fallback;
        /* K8S stdin, stdinOnce, tty (the CRI's ContainerConfig): with stdin_open the process's
         * stdin is a pipe whose write end its supervisor keeps for attach sessions (else
         * /dev/null); with tty its stdin, stdout and stderr are a terminal made in the
         * container's own devpts, its controlling terminal, whose master the supervisor keeps
         * (what comes out is logged as stdout). stdin_once: the stdin closes when the first
         * attach session that wrote to it ends (not with tty: containerd's rule). */
        bool stdin_open;
        bool stdin_once;
        bool tty;
};

/* K8S pkg/kubelet/container: MaxContainerTerminationMessageLength,
 * MaxContainerTerminationMessageLogLines, MaxContainerTerminationMessageLogLength, and
 * MaxPodTerminationMessageLogLength (the status manager's share per container of a pod) */
#define RUNTIME_TERMINATION_MESSAGE_MAX     4096
#define RUNTIME_TERMINATION_LOG_LINES       80
#define RUNTIME_TERMINATION_LOG_MAX         2048
#define RUNTIME_POD_TERMINATION_MESSAGE_MAX (12 * 1024)

/* Points the image fields of s at img's (borrowed: img must outlive s's use). */
void runtime_container_spec_use_image(struct runtime_container_spec *s,
                                      const struct runtime_image *img);

/* Writes the spec to its state dir and launches the container's supervisor, detached. Returns
 * once the supervisor has either started the process or recorded why it could not: a failure
 * before exec (K8S: StartError, e.g. `exec: "foo": executable file not found in $PATH`) is
 * success here and shows in runtime_container_state as an exit. -EEXIST when the state dir
 * was already used; -EINVAL ("no command specified", bad paths) before anything starts. */
int runtime_container_start(const struct runtime_container_spec *spec, struct error **reterr);

enum runtime_container_phase {
        RUNTIME_CONTAINER_CREATED, /* the supervisor is setting it up */
        RUNTIME_CONTAINER_RUNNING,
        RUNTIME_CONTAINER_EXITED,
        RUNTIME_CONTAINER_PHASE_MAX,
};
const char *runtime_container_phase_to_string(enum runtime_container_phase p);

struct runtime_container_status {
        enum runtime_container_phase phase;
        pid_t pid;                  /* host pid of the container process; 0 before start */
        struct timespec started_at; /* zero when it never started */
        /* RUNTIME_CONTAINER_EXITED: */
        struct timespec finished_at;
        int exit_code;   /* K8S: 128 + signal when killed by one; 128 for StartError */
        int signal;      /* the killing signal, else 0 */
        int wait_status; /* raw wait(2) status, -1 when there was no process */
        char *reason;    /* NULL; "StartError"; "ContainerStatusUnknown" when the supervisor
                          * died without recording the exit */
        char *message;   /* why, for StartError and ContainerStatusUnknown; else NULL */
};

/* Reads the container's state from its state dir only (files, and /proc to check that the
 * recorded pid is still the same process), so it works the same in a restarted agent.
 * -ENOENT when the container was never started there. */
int runtime_container_state(const char *state_dir, struct runtime_container_status *ret,
                            struct error **reterr);
void runtime_container_status_release(struct runtime_container_status *s);

/* Sends sig to the container's process (checked to be the recorded process). -ESRCH when it
 * does not run. */
int runtime_container_kill(const char *state_dir, int sig, struct error **reterr);

/* A descriptor that becomes readable when the container's supervisor ends, which it does once
 * the exit is recorded (or it failed to start the container): a pidfd of the supervisor, checked
 * to be the recorded process, for the caller to poll and close. -ESRCH when the supervisor has
 * ended already (runtime_container_state then says how). K8S: the event a CRI runtime sends
 * the kubelet's evented PLEG instead of being relisted. */
int runtime_container_exit_fd(const char *state_dir, struct error **reterr);

/* Waits up to timeout_ms for the container to have exited (its exit recorded). 1 exited,
 * 0 timed out. */
int runtime_container_wait(const char *state_dir, int timeout_ms, struct error **reterr);

/* Kills the container if it runs, waits for its supervisor to finish, and removes the state
 * dir with its log and writable layer. The container's mounts lived in its own mount namespace
 * and went with it; nothing is left mounted on the host. Missing dir: 0. */
int runtime_container_remove(const char *state_dir, struct error **reterr);

/* ------------------------------------------------------------------ exec */

/* K8S CRI ExecSync/Exec as runc exec does it (exec.c): a new process in a running container,
 * started by a helper (this binary, `supervise --exec`) that joins the container's cgroups and
 * its mount, pid, ipc, uts, net and cgroup namespaces (setns on a pidfd of the container's
 * process, checked to be the recorded one), then forks the process, which gets what the
 * container's own process got and nothing more: the user namespace (last, as the container),
 * uid, gid and groups, capabilities, no_new_privs and the seccomp filter (confine.c's one
 * way), the environment (the image's and the pod's, HOSTNAME, HOME; TERM=xterm with a
 * terminal when unset, as containerd gives a tty container), the working dir, oom_score_adj;
 * no fd of the helper's but its stdio. With tty, the terminal is made inside the container
 * (its devpts, as runc's console socket): the process gets the slave as its controlling
 * terminal and stdio, the caller the master. */
struct runtime_exec_spec {
        const char *state_dir;   /* the running container's runtime_container_dir */
        const char *const *argv; /* NULL-terminated; argv[0] non-empty */
        bool tty;
        /* without tty: the process's stdin, stdout and stderr (the caller keeps its own fds);
         * -1: /dev/null */
        int stdin_fd, stdout_fd, stderr_fd;
};

struct runtime_exec {
        pid_t helper;
        int ctl_fd; /* the helper's control socket: readable when the process has ended */
        int pty_fd; /* tty: the terminal's master (the caller's), else -1 */
};

/* Starts the process and returns once it runs. -ESRCH when the container does not run; a
 * failure before exec (`exec: "foo": executable file not found in $PATH`) is -ENOEXEC with the
 * message; -errno otherwise, *reterr saying why. */
int runtime_exec_start(const struct runtime_exec_spec *s, struct runtime_exec *ret,
                       struct error **reterr);
/* Waits (blocking; poll ctl_fd to not) until the process ends: 0 and its exit code (K8S: 128 +
 * the signal that killed it). -EIO when the helper went away without saying. */
int runtime_exec_wait(struct runtime_exec *e, int *ret_exit_code, struct error **reterr);
/* Kills the process if it still runs (the helper does when its control socket closes), reaps
 * the helper, closes the fds. */
void runtime_exec_release(struct runtime_exec *e);

/* ------------------------------------------------------------------ attach */

/* K8S CRI Attach (containerd's ContainerIO.Attach): sessions with the container's own stdio,
 * served by its supervisor (attach.c) on the unix socket "attach.sock" of its state dir (mode
 * 0600, root's). Several sessions at once and over time; the container does not notice one
 * going away. Each gets the output from the moment it connects (stdout and stderr; with a
 * terminal everything is stdout); one that falls RUNTIME_ATTACH_QUEUE_MAX behind is dropped
 * rather than let it hold the container back. Input: the session's stdin bytes go to the
 * container's stdin when it has one (stdin_open) and the session asked for it (else they are
 * dropped, as containerd does); a resize sets the terminal's size. A session's end of stdin
 * closes the container's stdin when stdin_once and not tty; otherwise it ends that session.
 * The socket closes once the container has exited and its last output was sent.
 *
 * Both ways the socket carries frames: a type byte, the payload's length (4 bytes, big
 * endian, at most RUNTIME_ATTACH_FRAME_MAX) and the payload. */
enum runtime_attach_frame {
        RUNTIME_ATTACH_STDIN = 0,     /* to the supervisor: stdin bytes */
        RUNTIME_ATTACH_STDOUT = 1,    /* from it */
        RUNTIME_ATTACH_STDERR = 2,    /* from it */
        RUNTIME_ATTACH_HELLO = 3,     /* to it, first: 1 byte, 1 when the session wants stdin */
        RUNTIME_ATTACH_RESIZE = 4,    /* to it: width, height (2 bytes each, big endian) */
        RUNTIME_ATTACH_STDIN_END = 5, /* to it: the session's stdin ended (no payload) */
};
#define RUNTIME_ATTACH_FRAME_MAX (64 * 1024)
#define RUNTIME_ATTACH_QUEUE_MAX (1024 * 1024)
#define RUNTIME_ATTACH_SOCKET    "attach.sock"

/* What the container's spec says of its stdio (from its state dir). */
struct runtime_container_io {
        bool stdin_open, stdin_once, tty;
};
int runtime_container_io(const char *state_dir, struct runtime_container_io *ret,
                         struct error **reterr);

/* Connects to the supervisor of the container of state_dir and says hello. *ret_fd: the
 * socket (blocking, O_CLOEXEC). -ENOENT when the supervisor serves no attach socket (one
 * started by an older flexlet, or the container has exited). */
int runtime_attach_connect(const char *state_dir, bool want_stdin, int *ret_fd,
                           struct error **reterr);

/* Appends the frames of type carrying data (split into pieces of at most
 * RUNTIME_ATTACH_FRAME_MAX; an empty payload is one empty frame) to out. */
struct strbuf;
void runtime_attach_frame_append(struct strbuf *out, enum runtime_attach_frame type,
                                 const void *data, size_t len);
/* The next complete frame at the front of in: 1 with *ret_type, *ret_data (borrowed from in,
 * valid until in changes) and *ret_len, and *ret_used bytes to drop from in's front; 0 when
 * more bytes are needed; -EPROTO for a frame longer than RUNTIME_ATTACH_FRAME_MAX or of an
 * unknown type (the peer is broken: end the connection). */
int runtime_attach_frame_next(const struct strbuf *in, uint8_t *ret_type, const char **ret_data,
                              size_t *ret_len, size_t *ret_used);

/* ------------------------------------------------------------------ volume subPaths */

/* What the kubelet does with a subPath before it starts a container (K8S makeMounts), on the
 * agent's side, so a subPath that leaves its volume fails the container with
 * CreateContainerConfigError before anything runs. Both resolve sub_path from an fd of
 * volume_dir with openat2 RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS: an absolute symbolic link, or
 * ".." above the volume, anywhere along the way is -EXDEV, and nothing outside the volume is
 * looked at or made. (The supervisor resolves it again at the mount, RESOLVE_IN_ROOT: a link
 * swapped in after this check stays inside the volume.) The messages name the volume's path and
 * are for the log: upstream keeps host paths out of the pod's status. */

/* K8S subpath.SafeMakeDir: creates the missing components of sub_path inside the volume, as
 * directories with the volume directory's mode (whatever the umask). 0 when all exist. */
int runtime_subpath_mkdir(const char *volume_dir, const char *sub_path, struct error **reterr);
/* K8S subpath.PrepareSafeSubpath's check: 0 when sub_path resolves to something inside the
 * volume; -EXDEV when it leaves it, -ENOENT when it is missing, -ELOOP, -ENOTDIR as openat2. */
int runtime_subpath_check(const char *volume_dir, const char *sub_path, struct error **reterr);
/* K8S ExpandContainerVolumeMounts: subPathExpr with $(VAR) expanded against the container's
 * env (each value expanded against the ones before it, as the process gets them); "$$" is "$".
 * A reference to a variable that is missing or empty is -EINVAL, "missing value for A, B"
 * (sorted). *ret is the caller's. */
int runtime_subpath_expand(const char *expr, const struct runtime_env_var *env, size_t n_env,
                           char **ret, struct error **reterr);

/* Conventional folders and files (caller frees). */
char *runtime_sandbox_dir(const char *data_dir, const char *pod_uid);
char *runtime_container_dir(const char *data_dir, const char *pod_uid, const char *name,
                            unsigned restart_count);
char *runtime_container_log_path(const char *state_dir);

/* ------------------------------------------------------------------ logs */

/* The longest line content one CRI log record holds; longer lines are split into "P" records
 * (containerd's default max_container_log_line_size). */
#define RUNTIME_LOG_MAX_LINE 16384

struct runtime_log_options {
        int64_t tail_lines;    /* K8S tailLines; < 0: all */
        int64_t limit_bytes;   /* K8S limitBytes; < 0: no limit */
        bool timestamps;       /* prefix each line with its RFC 3339 time (9 fraction digits) */
        struct timespec since; /* skip records older than this; zero: none */
        bool follow;
        /* follow: the container whose exit ends the stream (once the log is drained) */
        const char *state_dir;
        /* follow: called about once a second while waiting for more; non-zero stops (e.g. the
         * client went away). May be NULL. */
        int (*idle)(void *ud);
};
#define RUNTIME_LOG_OPTIONS_INIT      \
 {                                    \
  .tail_lines = -1, .limit_bytes = -1 \
 }

/* Receives what `kubectl logs` prints. Non-zero stops the read; a negative value is returned. */
typedef int (*runtime_log_write_fn)(void *ud, const char *buf, size_t n);

/* Renders the CRI log at log_path as the kubelet serves pods/log: records parsed ("P" pieces
 * joined into one line), the tail counted in records from the end of the file, since and
 * limitBytes applied, timestamps prefixed at the start of each line. With follow, waits for
 * more (inotify) until the container of o->state_dir has exited and the log is drained, or
 * the writer or idle callback says stop. -ENOENT when there is no log. */
int runtime_log_read(const char *log_path, const struct runtime_log_options *o,
                     runtime_log_write_fn write, void *ud, struct error **reterr);

/* ------------------------------------------------------------------ helper processes */

/* The entry point of the runtime's helper processes, argv = {"supervise", [--notify-fd N],
 * (--sandbox DIR | DIR)} as runtime_sandbox_start and runtime_container_start build it (argv[0]
 * is the subcommand's name). Runs the sandbox or the container supervisor and returns its exit
 * status; on a failure that could not be recorded in the state dir it also sets *reterr. */
int runtime_helper_main(int argc, char **argv, struct error **reterr);

/* ------------------------------------------------------------------ the sealed binary */

/* runc's CVE-2019-5736 defence (exeseal.c). 1 if the executable open at fd (of /proc/self/exe
 * or /proc/PID/exe) cannot be written by anyone: on a read-only overlayfs, or a memfd sealed
 * against writes and resizes; 0 if it can; -errno. */
int runtime_exe_sealed(int fd);
/* An O_PATH (overlayfs) or read-only (memfd) fd, close-on-exec, of a sealed view of this
 * process's binary; *ret_how (static) says which: "overlayfs", else "memfd". */
int runtime_exe_seal_open(int *ret_fd, const char **ret_how, struct error **reterr);
/* Unless /proc/self/exe is sealed already, re-executes this process from a sealed view of its
 * binary with argv and the environment (plus FLEXLET_EXE_SEALED, removed again on the other
 * side): never returns but with an error. Call it first thing, before any thread. The view
 * of flexlet-helper beside the binary, when there is one, goes along (an fd named by
 * FLEXLET_HELPER_FD, adopted on the other side): the helpers run it from then on. */
int runtime_exe_reexec_sealed(char **argv, struct error **reterr);
/* Whether the helpers run the sealed flexlet-helper (true) or this binary (false). */
bool runtime_helper_binary(void);

#endif
