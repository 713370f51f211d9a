/* cgroup-internal.h: what cgroup.c, cgroup-v1.c and cgroup-v2.c share: the manager's layout, the
 * per-version operations table (as crun's cgroup-*.c), small file helpers working on directory
 * fds, and the filesystem seam the unit tests use to play the kernel's part in a temporary tree.
 * Not for use outside src/node/cgroup/ and its tests. */
#ifndef FLEXLET_NODE_CGROUP_INTERNAL_H
#define FLEXLET_NODE_CGROUP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "node/cgroup/cgroup.h"

/* How the manager makes and removes cgroup directories. The kernel fills a new cgroup with its
 * interface files and removes them with the directory; a test tree has nobody doing that, so
 * tests pass functions that do it (see tests/unit/node/test-cgroup-v2.c). Both return 0 or
 * -errno (EEXIST from mkdir_at is reported as such; the caller tolerates it). */
struct cgroup_fs {
        int (*mkdir_at)(int dirfd, const char *name, void *userdata);
        int (*rmdir_at)(int dirfd, const char *name, void *userdata);
        void *userdata;
};

/* Controller bits. */
#define CG_CTRL_CPU     (1u << 0)
#define CG_CTRL_MEMORY  (1u << 1)
#define CG_CTRL_PIDS    (1u << 2)
#define CG_CTRL_CPUACCT (1u << 3)
#define CG_CTRL_DEVICES (1u << 4) /* v1 only: v2 has no devices controller (a BPF program) */

/* One hierarchy: v2 has one holding every controller; v1 one per mounted controller dir. */
struct cg_hierarchy {
        char *name;     /* v1 the controller dir below sysfs_root ("cpu,cpuacct"); v2 "" */
        unsigned ctrls; /* CG_CTRL_* the hierarchy carries */
        char *root_abs; /* absolute path of the flexlet root in this hierarchy */
        int root_fd;    /* O_DIRECTORY fd of the flexlet root in this hierarchy */
};

#define CG_MAX_HIERARCHIES 5

struct cgroup_ops;

struct cgroup_manager {
        const struct cgroup_ops *ops;
        struct cgroup_fs fs;
        char *sysfs_root;   /* absolute, no trailing '/' (unless it is "/") */
        char *flexlet_root; /* relative to each hierarchy's mount */
        int sysfs_fd;       /* O_DIRECTORY fd of sysfs_root */
        struct cg_hierarchy h[CG_MAX_HIERARCHIES];
        size_t n_h;
        unsigned v2_ctrls; /* v2: the controllers enabled down the tree (CG_CTRL_*) */
};

/* One backend. Every member is required. */
struct cgroup_ops {
        enum cgroup_version version;
        /* Finds the hierarchies below m->sysfs_fd and fills m->h (root_abs/root_fd left for the
         * caller) and, on v2, m->v2_ctrls. */
        int (*detect)(struct cgroup_manager *m, struct error **reterr);
        /* Called on an existing cgroup (dirfd, absolute path abs) before a child is created in
         * it, and on every cgroup from sysfs_root down to the flexlet root at open. */
        int (*prepare_parent)(struct cgroup_manager *m, int dirfd, const char *abs,
                              struct error **reterr);
        int (*set_limits)(struct cgroup_manager *m, const char *relpath,
                          const struct cgroup_limits *l, unsigned which, struct error **reterr);
        int (*get_limits)(struct cgroup_manager *m, const char *relpath, struct cgroup_limits *ret,
                          struct error **reterr);
        int (*memory_limit)(struct cgroup_manager *m, const char *relpath, int64_t *ret,
                            struct error **reterr);
        int (*memory_usage)(struct cgroup_manager *m, const char *relpath, uint64_t *ret,
                            struct error **reterr);
        int (*oom_kills)(struct cgroup_manager *m, const char *relpath, uint64_t *ret,
                         struct error **reterr);
        /* The usage counters of cgroup_stats (memory_limit left for the caller). */
        int (*stats)(struct cgroup_manager *m, const char *relpath, struct cgroup_stats *ret,
                     struct error **reterr);
        /* Asks the kernel to kill the subtree in one step: 1 done (the caller still waits for
         * the processes to leave), 0 not available (the caller signals each process), or
         * -errno. */
        int (*kill_fast)(struct cgroup_manager *m, const char *relpath, struct error **reterr);
        /* Writes the soft limit (v2 memory.high; -1 is "max"): 0, -EOPNOTSUPP where the version
         * or the cgroup has none (v1), or -errno. */
        int (*set_memory_high)(struct cgroup_manager *m, const char *relpath, int64_t high,
                               struct error **reterr);
};

extern const struct cgroup_ops cgroup_ops_v1;
extern const struct cgroup_ops cgroup_ops_v2;

/* cgroup_manager_open with a filesystem seam (NULL: the real mkdirat/unlinkat). */
int cg_manager_open_fs(const char *sysfs_root, const char *flexlet_root, const struct cgroup_fs *fs,
                       struct cgroup_manager **ret, struct error **reterr);

/* The hierarchy carrying ctrl, or NULL. */
struct cg_hierarchy *cg_hierarchy_for(struct cgroup_manager *m, unsigned ctrl);
/* Opens relpath ("" for the root) below h's flexlet root as an O_DIRECTORY fd (>= 0), or
 * -errno with "<context> of \"<abs>\": <cause>" in *reterr. */
int cg_open_dir(struct cg_hierarchy *h, const char *relpath, const char *context,
                struct error **reterr);
/* h->root_abs + "/" + relpath (relpath "" gives root_abs). Caller frees. */
char *cg_abs(const struct cg_hierarchy *h, const char *relpath);

/* Reads a whole small file (at most max bytes; -EFBIG beyond) into a new NUL-terminated
 * buffer; returns its length. */
ssize_t cg_read_file(int dirfd, const char *name, size_t max, char **ret);
/* Reads a file holding one integer, or "max" (v2), returned as -1. */
int cg_read_int64(int dirfd, const char *name, int64_t *ret);
/* Finds "key <uint>" in a flat-keyed file (memory.events, memory.oom_control): 0 and *ret when
 * found, -ENOKEY when the key is absent, other -errno on read or parse errors. */
int cg_read_keyed(int dirfd, const char *name, const char *key, uint64_t *ret);
/* Writes value to an existing file in one write(2), replacing what a regular file held. The
 * kernel's errno comes back as -errno. */
int cg_write_file(int dirfd, const char *name, const char *value);
/* Parses cgroup.procs text into a new array; *ret_n the count. */
int cg_parse_pids(const char *text, pid_t **ret, size_t *ret_n);

/* ---- devices.c ---- */

struct bpf_insn;

#define CG_DEV_WILDCARD (-1) /* a major or minor of "*" */
#define CG_DEV_READ     (1u << 0)
#define CG_DEV_WRITE    (1u << 1)
#define CG_DEV_MKNOD    (1u << 2)
#define CG_DEV_RWM      (CG_DEV_READ | CG_DEV_WRITE | CG_DEV_MKNOD)

/* One allow rule, as the OCI spec's linux.resources.devices has it. */
struct cg_device_rule {
        char type;            /* 'a' (all), 'b' (block), 'c' (character) */
        int64_t major, minor; /* 0..INT32_MAX or CG_DEV_WILDCARD */
        unsigned access;      /* CG_DEV_* bits, not 0 */
};

/* What an unprivileged container may use (runc's AllowedDevices), allow rules after "deny all". */
extern const struct cg_device_rule cg_default_devices[];
extern const size_t cg_n_default_devices;

/* The rule in the v1 devices.allow syntax ("c 136:* rwm") into buf; its length, -EINVAL for a
 * bad rule, -ENOSPC when buf is too small. */
int cg_device_rule_format(const struct cg_device_rule *r, char *buf, size_t size);
/* The BPF_PROG_TYPE_CGROUP_DEVICE program that allows what the rules allow and denies the rest
 * (a new array the caller frees, *ret_n instructions). -EINVAL for a bad rule. */
int cg_devices_program(const struct cg_device_rule *rules, size_t n, struct bpf_insn **ret,
                       size_t *ret_n);
/* Loads a device program: its fd (O_CLOEXEC), or -errno with, when ret_log is not NULL, the
 * verifier's log in *ret_log (caller frees; NULL when there is none). */
#define CG_DEVICES_LOG_MAX (256 * 1024)
int cg_devices_load(const struct bpf_insn *prog, size_t n, char **ret_log);
/* cgroup_set_devices for each version. */
int cg_devices_set_v1(struct cgroup_manager *m, const char *relpath, bool allow_all,
                      struct error **reterr);
int cg_devices_set_v2(struct cgroup_manager *m, const char *relpath, bool allow_all,
                      struct error **reterr);

#endif
