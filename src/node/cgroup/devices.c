/* devices.c: which device nodes a container's processes may open or make, as runc sets it for a
 * container: on v1 the devices controller's devices.deny / devices.allow, on v2 a
 * BPF_PROG_TYPE_CGROUP_DEVICE program built here instruction by instruction, loaded and attached
 * to the container's cgroup. The rule table, its v1 text and the program are pure and
 * unit-tested; the writes and bpf(2) calls go through the manager's directory fds. Nothing here
 * knows about pods: the caller says whether the container is privileged. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/alloc.h"
#include "node/cgroup/cgroup-internal.h"

/* runc libcontainer/specconv AllowedDevices (runc 1.x, the list containerd and CRI-O containers
 * get): mknod of any character and block device, then read, write and mknod of /dev/null (1:3),
 * /dev/random (1:8), /dev/full (1:7), /dev/tty (5:0), /dev/zero (1:5), /dev/urandom (1:9),
 * the ptys of /dev/pts (136:*) and /dev/ptmx (5:2); everything else is denied ("a *:* rwm" deny
 * first). */
const struct cg_device_rule cg_default_devices[] = {
        { 'c', CG_DEV_WILDCARD, CG_DEV_WILDCARD, CG_DEV_MKNOD },
        { 'b', CG_DEV_WILDCARD, CG_DEV_WILDCARD, CG_DEV_MKNOD },
        { 'c', 1, 3, CG_DEV_RWM },
        { 'c', 1, 8, CG_DEV_RWM },
        { 'c', 1, 7, CG_DEV_RWM },
        { 'c', 5, 0, CG_DEV_RWM },
        { 'c', 1, 5, CG_DEV_RWM },
        { 'c', 1, 9, CG_DEV_RWM },
        { 'c', 136, CG_DEV_WILDCARD, CG_DEV_RWM },
        { 'c', 5, 2, CG_DEV_RWM },
};
const size_t cg_n_default_devices = ARRAY_SIZE(cg_default_devices);

int cg_device_rule_format(const struct cg_device_rule *r, char *buf, size_t size)
{
        char major[24] = "*", minor[24] = "*", access[4];
        size_t n = 0;
        int len;

        if ((r->type != 'a' && r->type != 'b' && r->type != 'c') || !r->access ||
            (r->access & ~CG_DEV_RWM))
                return -EINVAL;
        if (r->major != CG_DEV_WILDCARD)
                snprintf(major, sizeof(major), "%" PRId64, r->major);
        if (r->minor != CG_DEV_WILDCARD)
                snprintf(minor, sizeof(minor), "%" PRId64, r->minor);
        if (r->access & CG_DEV_READ)
                access[n++] = 'r';
        if (r->access & CG_DEV_WRITE)
                access[n++] = 'w';
        if (r->access & CG_DEV_MKNOD)
                access[n++] = 'm';
        access[n] = '\0';
        /* Documentation/admin-guide/cgroup-v1/devices.rst: "type major:minor access" */
        len = snprintf(buf, size, "%c %s:%s %s", r->type, major, minor, access);
        return len < 0 || (size_t) len >= size ? -ENOSPC : len;
}

/* ---- v2: the program ---- */

#define INSN(c, d, s, o, i) \
 ((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) })

/* K8S/runc: opencontainers/cgroups devices/ebpf (devicefilter.go) builds the same shape: load
 * the type, access, major and minor of struct bpf_cgroup_dev_ctx once, then one block per allow
 * rule that jumps to the next block on a mismatch and returns 1 at its end; 0 after the last.
 * A request is allowed when the access it asks for is a subset of the rule's. */
int cg_devices_program(const struct cg_device_rule *rules, size_t n, struct bpf_insn **ret,
                       size_t *ret_n)
{
        size_t cap = 6 + n * 9 + 2, len = 0;
        struct bpf_insn *p = xcalloc(cap, sizeof(*p));

        /* r2 = type (access_type & 0xffff), r3 = access (access_type >> 16), r4 = major,
         * r5 = minor; the context in r1 is not needed after this */
        p[len++] = INSN(BPF_LDX | BPF_W | BPF_MEM, BPF_REG_2, BPF_REG_1,
                        offsetof(struct bpf_cgroup_dev_ctx, access_type), 0);
        p[len++] = INSN(BPF_ALU | BPF_AND | BPF_K, BPF_REG_2, 0, 0, 0xffff);
        p[len++] = INSN(BPF_LDX | BPF_W | BPF_MEM, BPF_REG_3, BPF_REG_1,
                        offsetof(struct bpf_cgroup_dev_ctx, access_type), 0);
        p[len++] = INSN(BPF_ALU | BPF_RSH | BPF_K, BPF_REG_3, 0, 0, 16);
        p[len++] = INSN(BPF_LDX | BPF_W | BPF_MEM, BPF_REG_4, BPF_REG_1,
                        offsetof(struct bpf_cgroup_dev_ctx, major), 0);
        p[len++] = INSN(BPF_LDX | BPF_W | BPF_MEM, BPF_REG_5, BPF_REG_1,
                        offsetof(struct bpf_cgroup_dev_ctx, minor), 0);
        for (size_t i = 0; i < n; i++) {
                const struct cg_device_rule *r = &rules[i];
                struct bpf_insn block[9];
                size_t b = 0, jumps[4], n_jumps = 0;
                unsigned access = 0;

                /* an immediate is a signed 32-bit value compared with the zero-extended u32 */
                if ((r->type != 'a' && r->type != 'b' && r->type != 'c') || !r->access ||
                    (r->access & ~CG_DEV_RWM) || r->major < CG_DEV_WILDCARD ||
                    r->major > INT32_MAX || r->minor < CG_DEV_WILDCARD || r->minor > INT32_MAX) {
                        free(p);
                        return -EINVAL;
                }
                if (r->access & CG_DEV_MKNOD)
                        access |= BPF_DEVCG_ACC_MKNOD;
                if (r->access & CG_DEV_READ)
                        access |= BPF_DEVCG_ACC_READ;
                if (r->access & CG_DEV_WRITE)
                        access |= BPF_DEVCG_ACC_WRITE;
                if (r->type != 'a') {
                        jumps[n_jumps++] = b;
                        block[b++] =
                                INSN(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_2, 0, 0,
                                     r->type == 'b' ? BPF_DEVCG_DEV_BLOCK : BPF_DEVCG_DEV_CHAR);
                }
                if (r->access != CG_DEV_RWM) {
                        /* r1 = access & rule's; a bit outside the rule's makes them differ */
                        block[b++] = INSN(BPF_ALU | BPF_MOV | BPF_X, BPF_REG_1, BPF_REG_3, 0, 0);
                        block[b++] =
                                INSN(BPF_ALU | BPF_AND | BPF_K, BPF_REG_1, 0, 0, (int32_t) access);
                        jumps[n_jumps++] = b;
                        block[b++] = INSN(BPF_JMP | BPF_JNE | BPF_X, BPF_REG_1, BPF_REG_3, 0, 0);
                }
                if (r->major != CG_DEV_WILDCARD) {
                        jumps[n_jumps++] = b;
                        block[b++] = INSN(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_4, 0, 0,
                                          (int32_t) r->major);
                }
                if (r->minor != CG_DEV_WILDCARD) {
                        jumps[n_jumps++] = b;
                        block[b++] = INSN(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_5, 0, 0,
                                          (int32_t) r->minor);
                }
                block[b++] = INSN(BPF_ALU | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 1);
                block[b++] = INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
                /* a mismatch jumps past the block's end: to the next rule */
                for (size_t j = 0; j < n_jumps; j++)
                        block[jumps[j]].off = (int16_t) (b - jumps[j] - 1);
                memcpy(p + len, block, b * sizeof(*block));
                len += b;
        }
        p[len++] = INSN(BPF_ALU | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0);
        p[len++] = INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
        *ret = p;
        *ret_n = len;
        return 0;
}

/* ---- writes ---- */

int cg_devices_set_v1(struct cgroup_manager *m, const char *relpath, bool allow_all,
                      struct error **reterr)
{
        struct cg_hierarchy *h = cg_hierarchy_for(m, CG_CTRL_DEVICES);
        cleanup_close int fd = -1;
        char line[64];
        int r;

        if (!h)
                return error_set(reterr, ENOENT,
                                 "cgroup controller \"devices\" not found under \"%s\": the "
                                 "device allowlist cannot be applied",
                                 m->sysfs_root);
        fd = cg_open_dir(h, relpath, "set device access", reterr);
        if (fd < 0)
                return fd;
        /* runc's v1 devices emulator: a privileged container's "a *:* rwm" is one write to
         * devices.allow; otherwise deny everything, then allow each rule */
        if (allow_all) {
                r = cg_write_file(fd, "devices.allow", "a");
                goto out;
        }
        if ((r = cg_write_file(fd, "devices.deny", "a")) < 0)
                goto out;
        for (size_t i = 0; i < cg_n_default_devices; i++) {
                if ((r = cg_device_rule_format(&cg_default_devices[i], line, sizeof(line))) < 0 ||
                    (r = cg_write_file(fd, "devices.allow", line)) < 0)
                        goto out;
        }
out:
        if (r < 0) {
                cleanup_free char *abs = cg_abs(h, relpath);
                return error_set(reterr, -r, "set device access of \"%s\": %s", abs, strerror(-r));
        }
        return 0;
}

static long sys_bpf(int cmd, union bpf_attr *attr)
{
        return syscall(SYS_bpf, cmd, attr, sizeof(*attr));
}

static int prog_load(const struct bpf_insn *prog, size_t n, char *log, size_t log_size)
{
        union bpf_attr attr;

        memset(&attr, 0, sizeof(attr));
        attr.prog_type = BPF_PROG_TYPE_CGROUP_DEVICE;
        attr.insns = (uint64_t) (uintptr_t) prog;
        attr.insn_cnt = (uint32_t) n;
        /* no helper is called: the license is only recorded */
        attr.license = (uint64_t) (uintptr_t) "Apache";
        if (log) {
                attr.log_buf = (uint64_t) (uintptr_t) log;
                attr.log_size = (uint32_t) log_size;
                attr.log_level = 1;
        }
        return (int) sys_bpf(BPF_PROG_LOAD, &attr);
}

int cg_devices_load(const struct bpf_insn *prog, size_t n, char **ret_log)
{
        /* without a log first: a verbose log that overflows its buffer fails the load (ENOSPC) */
        int fd = prog_load(prog, n, NULL, 0), e;
        char *log;

        if (fd >= 0)
                return fd;
        e = errno;
        if (ret_log) {
                /* again for the verifier's words */
                log = xcalloc(1, CG_DEVICES_LOG_MAX);
                if (prog_load(prog, n, log, CG_DEVICES_LOG_MAX) >= 0 || !log[0]) {
                        free(log);
                        log = NULL;
                }
                *ret_log = log;
        }
        return -e;
}

int cg_devices_set_v2(struct cgroup_manager *m, const char *relpath, bool allow_all,
                      struct error **reterr)
{
        cleanup_free struct bpf_insn *prog = NULL;
        cleanup_close int fd = -1, prog_fd = -1;
        cleanup_free char *abs = NULL, *log = NULL;
        union bpf_attr attr;
        size_t n;
        int r;

        /* no program is no restriction: a privileged container's "a *:* rwm" needs none (and the
         * pod's cgroups above it have none) */
        if (allow_all)
                return 0;
        fd = cg_open_dir(&m->h[0], relpath, "set device access", reterr);
        if (fd < 0)
                return fd;
        abs = cg_abs(&m->h[0], relpath);
        if ((r = cg_devices_program(cg_default_devices, cg_n_default_devices, &prog, &n)) < 0)
                return error_set(reterr, -r, "set device access of \"%s\": bad rule", abs);
        prog_fd = cg_devices_load(prog, n, &log);
        if (prog_fd < 0) {
                const char *tail = log ? log : "";

                /* the verifier's last lines say why */
                if (strlen(tail) > 512)
                        tail += strlen(tail) - 512;
                return error_set(reterr, -prog_fd, "load the device program for \"%s\": %s%s%s",
                                 abs, strerror(-prog_fd), log ? ": " : "", tail);
        }
        /* runc attaches with BPF_F_ALLOW_MULTI so that programs of the cgroups above still run;
         * the kernel detaches and frees it when the cgroup is removed */
        memset(&attr, 0, sizeof(attr));
        attr.target_fd = (uint32_t) fd;
        attr.attach_bpf_fd = (uint32_t) prog_fd;
        attr.attach_type = BPF_CGROUP_DEVICE;
        attr.attach_flags = BPF_F_ALLOW_MULTI;
        if (sys_bpf(BPF_PROG_ATTACH, &attr) < 0) {
                r = errno;
                return error_set(reterr, r, "attach the device program to \"%s\": %s", abs,
                                 strerror(r));
        }
        return 0;
}
