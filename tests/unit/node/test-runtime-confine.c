/* test-runtime-confine.c: the pure parts of the confinement: capability names and the merge of
 * securityContext.capabilities onto the default set, the seccomp profile loader (what it accepts
 * and how it names what it refuses), the security block of spec.json, and the user's groups read
 * from an image's /etc/passwd and /etc/group. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "node/runtime/runtime-internal.h"

static void test_capability_names(void **state)
{
        static const struct {
                const char *name;
                int cap;
        } cases[] = {
                { "CHOWN", 0 },
                { "CAP_CHOWN", 0 },
                { "net_admin", 12 },
                { "cap_Net_Admin", 12 },
                { "SYS_ADMIN", 21 },
                { "AUDIT_WRITE", 29 },
                { "CHECKPOINT_RESTORE", 40 },
                { "NOPE", -EINVAL },
                { "", -EINVAL },
                { "CAP_", -EINVAL },
                { "ALL", -EINVAL },
                { "CAP_CHOWNX", -EINVAL },
        };
        for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
                assert_int_equal(runtime_capability_from_name(cases[i].name), cases[i].cap);
        assert_string_equal(runtime_capability_name(21), "CAP_SYS_ADMIN");
        assert_null(runtime_capability_name(41));
        assert_null(runtime_capability_name(-1));
}

static void test_default_set(void **state)
{
        /* K8S/containerd: the 14 default capabilities, CapEff 00000000a80425fb */
        static const char *const names[] = {
                "CHOWN",   "DAC_OVERRIDE", "FSETID",           "FOWNER",
                "MKNOD",   "NET_RAW",      "SETGID",           "SETUID",
                "SETFCAP", "SETPCAP",      "NET_BIND_SERVICE", "SYS_CHROOT",
                "KILL",    "AUDIT_WRITE"
        };
        uint64_t set = 0;

        for (size_t i = 0; i < ARRAY_SIZE(names); i++)
                set |= 1ULL << runtime_capability_from_name(names[i]);
        assert_int_equal(set, RUNTIME_DEFAULT_CAPS);
        assert_int_equal(RUNTIME_DEFAULT_CAPS, 0xa80425fbULL);
}

static void test_capability_merge(void **state)
{
        const uint64_t all = (1ULL << 41) - 1, chown = 1, nbs = 1ULL << 10;
        static const char *const none[] = { NULL };
        static const char *const add_all[] = { "ALL", NULL };
        static const char *const drop_all[] = { "all", NULL };
        static const char *const add_nbs[] = { "NET_BIND_SERVICE", NULL };
        static const char *const chown_v[] = { "CAP_CHOWN", NULL };
        static const char *const add_admin[] = { "SYS_ADMIN", NULL };
        static const char *const bad[] = { "CHOWN", "NOPE", NULL };
        const struct {
                const char *const *add, *const *drop;
                uint64_t want;
        } cases[] = {
                { none, none, RUNTIME_DEFAULT_CAPS },
                { NULL, drop_all, 0 },
                { add_all, none, all },
                { add_all, chown_v, all & ~chown },
                { add_nbs, drop_all, nbs },
                { none, chown_v, RUNTIME_DEFAULT_CAPS & ~chown },
                { add_admin, none, RUNTIME_DEFAULT_CAPS | (1ULL << 21) },
                { chown_v, chown_v, RUNTIME_DEFAULT_CAPS & ~chown }, /* drop wins */
        };
        struct error *err = NULL;
        uint64_t got;

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                assert_int_equal(runtime_capabilities_merge(RUNTIME_DEFAULT_CAPS, cases[i].add,
                                                            cases[i].drop, &got, NULL),
                                 0);
                assert_int_equal(got, cases[i].want);
        }
        assert_int_equal(runtime_capabilities_merge(RUNTIME_DEFAULT_CAPS, bad, none, &got, &err),
                         -EINVAL);
        assert_string_equal(err->message, "unknown capability \"NOPE\"");
        error_free(err);
}

static void test_profile_accepts(void **state)
{
        static const char *const ok[] = {
                "{\"defaultAction\":\"SCMP_ACT_ALLOW\"}",
                "{\"defaultAction\":\"SCMP_ACT_ERRNO\",\"syscalls\":[{\"names\":[\"read\"],"
                "\"action\":\"SCMP_ACT_ALLOW\"}]}",
                /* unknown syscall names are skipped, as runc */
                "{\"defaultAction\":\"SCMP_ACT_ERRNO\",\"syscalls\":[{\"names\":[\"nope_nope\"],"
                "\"action\":\"SCMP_ACT_ALLOW\"}]}",
                /* a rule with the default action is a no-op, as runc */
                "{\"defaultAction\":\"SCMP_ACT_ALLOW\",\"syscalls\":[{\"names\":[\"read\"],"
                "\"action\":\"SCMP_ACT_ALLOW\"}]}",
                "{\"defaultAction\":\"SCMP_ACT_ALLOW\",\"architectures\":[\"SCMP_ARCH_X86_64\","
                "\"SCMP_ARCH_X86\"],\"syscalls\":[{\"names\":[\"socket\"],\"action\":"
                "\"SCMP_ACT_ERRNO\",\"errnoRet\":97,\"args\":[{\"index\":0,\"value\":40,\"op\":"
                "\"SCMP_CMP_EQ\"},{\"index\":0,\"value\":38,\"op\":\"SCMP_CMP_EQ\"}]}]}",
                "{\"defaultAction\":\"SCMP_ACT_ERRNO\",\"syscalls\":[{\"names\":[\"bpf\"],\"action\":"
                "\"SCMP_ACT_ALLOW\",\"includes\":{\"caps\":[\"CAP_SYS_ADMIN\"]},\"comment\":\"x\"}]}",
        };
        for (size_t i = 0; i < ARRAY_SIZE(ok); i++)
                assert_int_equal(runtime_seccomp_profile_check(ok[i], strlen(ok[i]), NULL), 0);
}

static void test_profile_refuses(void **state)
{
        static const struct {
                const char *text, *message;
        } bad[] = {
                { "", "seccomp profile: not JSON" },
                { "[]", "seccomp profile: not a JSON object" },
                { "{}", "seccomp profile: defaultAction: the action is missing" },
                { "{\"defaultAction\":\"SCMP_ACT_BOOM\"}",
                  "seccomp profile: defaultAction: unknown action \"SCMP_ACT_BOOM\"" },
                { "{\"defaultAction\":\"SCMP_ACT_NOTIFY\"}",
                  "seccomp profile: defaultAction: SCMP_ACT_NOTIFY is not supported" },
                { "{\"defaultAction\":\"SCMP_ACT_ALLOW\",\"listenerPath\":\"/x\"}",
                  "seccomp profile: unknown field \"listenerPath\"" },
                { "{\"defaultAction\":\"SCMP_ACT_ALLOW\",\"architectures\":[\"SCMP_ARCH_VAX\"]}",
                  "seccomp profile: unknown architecture \"SCMP_ARCH_VAX\"" },
                { "{\"defaultAction\":\"SCMP_ACT_ALLOW\",\"syscalls\":[{\"names\":[\"read\"],"
                  "\"action\":\"SCMP_ACT_ERRNO\",\"args\":[{\"index\":6,\"op\":\"SCMP_CMP_EQ\"}]}]}",
                  "seccomp profile: syscalls[0]: args[0]: index is not 0-5" },
                { "{\"defaultAction\":\"SCMP_ACT_ALLOW\",\"syscalls\":[{\"names\":[\"read\"],"
                  "\"action\":\"SCMP_ACT_ERRNO\",\"args\":[{\"index\":0,\"op\":\"SCMP_CMP_XX\"}]}]}",
                  "seccomp profile: syscalls[0]: args[0]: unknown op \"SCMP_CMP_XX\"" },
                { "{\"defaultAction\":\"SCMP_ACT_ALLOW\",\"syscalls\":[{\"action\":"
                  "\"SCMP_ACT_ERRNO\"}]}",
                  "seccomp profile: syscalls[0]: names is not a non-empty array of strings" },
                { "{\"defaultAction\":\"SCMP_ACT_ALLOW\",\"syscalls\":[{\"names\":[\"read\"],"
                  "\"action\":\"SCMP_ACT_ERRNO\",\"errnoRet\":70000}]}",
                  "seccomp profile: syscalls[0]: errnoRet is not a number 0-65535" },
                { "{\"defaultAction\":\"SCMP_ACT_ALLOW\",\"syscalls\":[{\"names\":[\"read\"],"
                  "\"action\":\"SCMP_ACT_ERRNO\",\"includes\":{\"caps\":[\"CAP_NOPE\"]}}]}",
                  "seccomp profile: syscalls[0]: unknown capability \"CAP_NOPE\"" },
                { "{\"defaultAction\":\"SCMP_ACT_ALLOW\",\"syscalls\":[{\"names\":[\"read\"],"
                  "\"action\":\"SCMP_ACT_ERRNO\",\"when\":1}]}",
                  "seccomp profile: syscalls[0]: unknown field \"when\"" },
                { "{\"defaultAction\":\"SCMP_ACT_ALLOW\",\"defaultAction\":\"SCMP_ACT_ALLOW\"}",
                  "seccomp profile: not JSON" },
        };
        for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
                struct error *err = NULL;

                assert_true(runtime_seccomp_profile_check(bad[i].text, strlen(bad[i].text), &err) <
                            0);
                if (strncmp(err->message, bad[i].message, strlen(bad[i].message)) != 0)
                        fail_msg("case %zu: got \"%s\", want \"%s\"", i, err->message,
                                 bad[i].message);
                error_free(err);
        }
}

static void test_runtime_default_builds(void **state)
{
        void *ctx = NULL;

        /* with and without CAP_SYS_ADMIN (clone's namespace flags filtered without it) */
        assert_int_equal(rt_seccomp_build(RUNTIME_SECCOMP_RUNTIME_DEFAULT, NULL,
                                          RUNTIME_DEFAULT_CAPS, false, &ctx, NULL),
                         0);
        assert_non_null(ctx);
        ctx = rt_seccomp_release(ctx);
        assert_int_equal(
                rt_seccomp_build(RUNTIME_SECCOMP_RUNTIME_DEFAULT, NULL, ~0ULL, true, &ctx, NULL),
                0);
        ctx = rt_seccomp_release(ctx);
        assert_int_equal(rt_seccomp_build(RUNTIME_SECCOMP_UNCONFINED, NULL, 0, false, &ctx, NULL),
                         0);
        assert_null(ctx);
        assert_int_equal(rt_seccomp_build(RUNTIME_SECCOMP_LOCALHOST, NULL, 0, false, &ctx, NULL),
                         -EINVAL);
}

static void test_security_round_trip(void **state)
{
        static const gid_t groups[] = { 4000, 5000 };
        static const struct runtime_sysctl sysctls[] = { { "kernel/shm_rmid_forced", "1" } };
        static const char *const cmd[] = { "true", NULL };
        struct runtime_container_spec s = {
                .state_dir = "/d/c",
                .sandbox_dir = "/d/s",
                .rootfs = "/d/r",
                .command = cmd,
                .uid = 1000,
                .gid = 3000,
                .security = { .privileged = false,
                              .read_only_root = true,
                              .no_new_privs = true,
                              .caps_set = true,
                              .caps = 0x8000000000000401ULL,
                              .gid_set = true,
                              .no_image_groups = true,
                              .groups = groups,
                              .n_groups = 2,
                              .seccomp = RUNTIME_SECCOMP_LOCALHOST,
                              .seccomp_profile = "{\"defaultAction\":\"SCMP_ACT_ALLOW\"}",
                              .sysctls = sysctls,
                              .n_sysctls = 1,
                              .host_pid = true },
        };
        struct rt_spec_holder h;
        json_t *j = rt_spec_to_json(&s);
        const struct runtime_security *r;

        assert_int_equal(rt_spec_from_json(j, &h, NULL), 0);
        json_decref(j);
        r = &h.spec.security;
        assert_true(r->read_only_root && r->no_new_privs && r->caps_set && r->gid_set &&
                    r->no_image_groups && r->host_pid && !r->host_ipc && !r->privileged);
        assert_int_equal(r->caps, 0x8000000000000401ULL);
        assert_int_equal(r->n_groups, 2);
        assert_int_equal(r->groups[1], 5000);
        assert_int_equal(r->seccomp, RUNTIME_SECCOMP_LOCALHOST);
        assert_string_equal(r->seccomp_profile, s.security.seccomp_profile);
        assert_int_equal(r->n_sysctls, 1);
        assert_string_equal(r->sysctls[0].name, "kernel/shm_rmid_forced");
        assert_int_equal(rt_spec_check(&h.spec, NULL), 0);
        rt_spec_holder_release(&h);

        /* a zero spec is the runtime default */
        s.security = (struct runtime_security){ 0 };
        j = rt_spec_to_json(&s);
        assert_int_equal(rt_spec_from_json(j, &h, NULL), 0);
        json_decref(j);
        assert_false(h.spec.security.caps_set);
        assert_int_equal(h.spec.security.seccomp, RUNTIME_SECCOMP_UNCONFINED);
        rt_spec_holder_release(&h);

        assert_false(rt_sysctl_name_ok("../etc"));
        assert_false(rt_sysctl_name_ok("kernel//x"));
        assert_false(rt_sysctl_name_ok("/kernel/x"));
        assert_false(rt_sysctl_name_ok("kernel/x/"));
        assert_true(rt_sysctl_name_ok("net/ipv4/ip_local_port_range"));
}

static FILE *memfile(const char *text)
{
        return fmemopen((void *) text, strlen(text), "r");
}

static void test_user_groups(void **state)
{
        static const char passwd[] = "root:x:0:0:root:/root:/bin/sh\n"
                                     "bad\n"
                                     "app:x:1000:1500:app:/home/app:/bin/sh\n";
        static const char group[] = "root:x:0:\n"
                                    "wheel:x:10:root,app\n"
                                    "x:y\n"
                                    "video:x:44:app\n"
                                    "other:x:45:bob\n";
        FILE *p, *g;
        gid_t gid = 0, *out;
        size_t n;

        p = memfile(passwd);
        g = memfile(group);
        rt_user_groups(p, g, 1000, false, &gid, true, &out, &n);
        assert_int_equal(gid, 1500);
        assert_int_equal(n, 3);
        assert_int_equal(out[0], 1500);
        assert_int_equal(out[1], 10);
        assert_int_equal(out[2], 44);
        free(out);
        fclose(p);
        fclose(g);

        /* runAsGroup given; Strict: no image groups */
        p = memfile(passwd);
        g = memfile(group);
        gid = 3000;
        rt_user_groups(p, g, 1000, true, &gid, false, &out, &n);
        assert_int_equal(gid, 3000);
        assert_int_equal(n, 1);
        assert_int_equal(out[0], 3000);
        free(out);
        fclose(p);
        fclose(g);

        /* a user without an entry: group 0, no image groups */
        p = memfile(passwd);
        g = memfile(group);
        gid = 77;
        rt_user_groups(p, g, 4242, false, &gid, true, &out, &n);
        assert_int_equal(gid, 0);
        assert_int_equal(n, 1);
        free(out);
        fclose(p);
        fclose(g);

        rt_user_groups(NULL, NULL, 0, false, &gid, true, &out, &n);
        assert_int_equal(gid, 0);
        assert_int_equal(n, 1);
        free(out);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_capability_names),
                cmocka_unit_test(test_default_set),
                cmocka_unit_test(test_capability_merge),
                cmocka_unit_test(test_profile_accepts),
                cmocka_unit_test(test_profile_refuses),
                cmocka_unit_test(test_runtime_default_builds),
                cmocka_unit_test(test_security_round_trip),
                cmocka_unit_test(test_user_groups),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
