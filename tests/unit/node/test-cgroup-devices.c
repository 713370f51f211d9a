/* test-cgroup-devices.c: the device allowlist (devices.c): runc's default rules in the v1
 * devices.allow syntax, and the v2 BPF_PROG_TYPE_CGROUP_DEVICE program run by a small
 * interpreter of the instructions it uses over a table of requests (what a default container may
 * open and make), then given to the kernel's verifier when root (loading needs no cgroup v2). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <linux/bpf.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/alloc.h"
#include "node/cgroup/cgroup-internal.h"

static void test_v1_lines(void **state)
{
        static const char *const want[] = {
                "c *:* m",   "b *:* m",   "c 1:3 rwm", "c 1:8 rwm",   "c 1:7 rwm",
                "c 5:0 rwm", "c 1:5 rwm", "c 1:9 rwm", "c 136:* rwm", "c 5:2 rwm",
        };
        struct cg_device_rule bad = { 'x', 1, 1, CG_DEV_RWM };
        char buf[64];

        assert_int_equal(cg_n_default_devices, ARRAY_SIZE(want));
        for (size_t i = 0; i < cg_n_default_devices; i++) {
                assert_true(cg_device_rule_format(&cg_default_devices[i], buf, sizeof(buf)) > 0);
                assert_string_equal(buf, want[i]);
        }
        assert_int_equal(cg_device_rule_format(&bad, buf, sizeof(buf)), -EINVAL);
        bad = (struct cg_device_rule){ 'a', CG_DEV_WILDCARD, CG_DEV_WILDCARD, CG_DEV_RWM };
        assert_int_equal(cg_device_rule_format(&bad, buf, 4), -ENOSPC);
        assert_true(cg_device_rule_format(&bad, buf, sizeof(buf)) > 0);
        assert_string_equal(buf, "a *:* rwm");
}

/* Runs the program on one request: the subset of eBPF the builder emits (32-bit loads from the
 * context, ALU32 and/rsh/mov, JNE, EXIT); any other instruction fails the test. */
static int run(const struct bpf_insn *p, size_t n, const struct bpf_cgroup_dev_ctx *ctx)
{
        uint64_t reg[11] = { 0 };
        size_t pc = 0;

        for (int steps = 0; steps < 10000 && pc < n; steps++) {
                const struct bpf_insn *i = &p[pc++];

                switch (i->code) {
                case BPF_LDX | BPF_W | BPF_MEM: {
                        uint32_t v;
                        assert_int_equal(i->src_reg, BPF_REG_1);
                        assert_true(i->off >= 0 && (size_t) i->off + 4 <= sizeof(*ctx));
                        memcpy(&v, (const char *) ctx + i->off, 4);
                        reg[i->dst_reg] = v;
                        break;
                }
                case BPF_ALU | BPF_AND | BPF_K:
                        reg[i->dst_reg] = (uint32_t) (reg[i->dst_reg] & (uint32_t) i->imm);
                        break;
                case BPF_ALU | BPF_RSH | BPF_K:
                        reg[i->dst_reg] = (uint32_t) reg[i->dst_reg] >> i->imm;
                        break;
                case BPF_ALU | BPF_MOV | BPF_K:
                        reg[i->dst_reg] = (uint32_t) i->imm;
                        break;
                case BPF_ALU | BPF_MOV | BPF_X:
                        reg[i->dst_reg] = (uint32_t) reg[i->src_reg];
                        break;
                case BPF_JMP | BPF_JNE | BPF_K:
                        if (reg[i->dst_reg] != (uint64_t) (int64_t) i->imm)
                                pc += i->off;
                        break;
                case BPF_JMP | BPF_JNE | BPF_X:
                        if (reg[i->dst_reg] != reg[i->src_reg])
                                pc += i->off;
                        break;
                case BPF_JMP | BPF_EXIT:
                        return (int) reg[BPF_REG_0];
                default:
                        fail_msg("instruction %zu: unexpected code 0x%x", pc - 1, i->code);
                }
        }
        fail_msg("the program ran off its end");
        return -1;
}

static struct bpf_cgroup_dev_ctx req(unsigned type, unsigned access, unsigned major, unsigned minor)
{
        return (struct bpf_cgroup_dev_ctx){ .access_type = type | (access << 16),
                                            .major = major,
                                            .minor = minor };
}

static void test_program(void **state)
{
        enum { B = BPF_DEVCG_DEV_BLOCK, C = BPF_DEVCG_DEV_CHAR };
        enum { M = BPF_DEVCG_ACC_MKNOD, R = BPF_DEVCG_ACC_READ, W = BPF_DEVCG_ACC_WRITE };
        static const struct {
                unsigned type, access, major, minor;
                int allowed;
        } cases[] = {
                { C, R | W, 1, 3, 1 },                        /* /dev/null */
                { C, R, 1, 9, 1 },                            /* /dev/urandom */
                { C, R | W | M, 1, 5, 1 },                    /* /dev/zero, mknod too */
                { C, R | W, 136, 7, 1 },                      /* a pty */
                { C, R | W, 5, 2, 1 },                        /* /dev/ptmx */
                { C, R | W, 5, 0, 1 },                        /* /dev/tty */
                { B, M, 8, 0, 1 },                            /* mknod of sda */
                { C, M, 1, 1, 1 },                            /* mknod of /dev/mem */
                { B, R, 8, 0, 0 },                            /* but not open it */
                { B, R | M, 8, 0, 0 },     { C, R, 1, 1, 0 }, /* /dev/mem */
                { C, W, 10, 200, 0 }, /* /dev/net/tun: not in runc's list any more */
                { C, R, 5, 1, 0 },    /* /dev/console */
                { C, R, 4, 0, 0 },    /* /dev/tty0 */
                { B, R, 1, 3, 0 },    /* 1:3 as a block device is not /dev/null */
                { C, R, 3, 1, 0 },    /* minor of null, other major */
        };
        struct bpf_insn *p = NULL;
        size_t n = 0;

        assert_int_equal(cg_devices_program(cg_default_devices, cg_n_default_devices, &p, &n), 0);
        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                struct bpf_cgroup_dev_ctx ctx =
                        req(cases[i].type, cases[i].access, cases[i].major, cases[i].minor);
                if (run(p, n, &ctx) != cases[i].allowed)
                        fail_msg("case %zu (type %u access %u %u:%u): want %d", i, cases[i].type,
                                 cases[i].access, cases[i].major, cases[i].minor, cases[i].allowed);
        }
        free(p);

        /* no rules: everything denied; "a *:* rwm": everything allowed */
        assert_int_equal(cg_devices_program(NULL, 0, &p, &n), 0);
        {
                struct bpf_cgroup_dev_ctx ctx = req(C, R, 1, 3);
                assert_int_equal(run(p, n, &ctx), 0);
        }
        free(p);
        {
                struct cg_device_rule all = { 'a', CG_DEV_WILDCARD, CG_DEV_WILDCARD, CG_DEV_RWM };
                struct bpf_cgroup_dev_ctx ctx = req(B, R | W, 8, 0);

                assert_int_equal(cg_devices_program(&all, 1, &p, &n), 0);
                assert_int_equal(run(p, n, &ctx), 1);
                free(p);
        }
        {
                struct cg_device_rule bad = { 'c', (int64_t) INT32_MAX + 1, 0, CG_DEV_RWM };
                assert_int_equal(cg_devices_program(&bad, 1, &p, &n), -EINVAL);
        }
}

/* The kernel's verifier accepts the program (root; loading does not need cgroup v2). */
static void test_kernel_loads_it(void **state)
{
        struct bpf_insn *p = NULL;
        char *log = NULL;
        size_t n = 0;
        int fd;

        if (geteuid() != 0) {
                print_message("# skipped: BPF_PROG_LOAD needs root\n");
                skip();
        }
        assert_int_equal(cg_devices_program(cg_default_devices, cg_n_default_devices, &p, &n), 0);
        fd = cg_devices_load(p, n, &log);
        free(p);
        if (fd == -ENOSYS || fd == -EPERM) {
                print_message("# skipped: no bpf(2) here (%s)\n", strerror(-fd));
                free(log);
                skip();
        }
        if (fd < 0)
                fail_msg("BPF_PROG_LOAD: %s\n%s", strerror(-fd), log ? log : "");
        close(fd);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_v1_lines),
                cmocka_unit_test(test_program),
                cmocka_unit_test(test_kernel_loads_it),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
