/* test-pod-security.c: the node's reading of securityContext: upstream's precedence (the
 * container's field over the pod's), the kubelet's refusals and messages, the fields this node
 * refuses rather than ignores, the safe sysctls, and Localhost profiles read from the data dir
 * by safe names only. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/fs.h"
#include "node/pod-security.h"

static json_t *pod_of(const char *pod_sc, const char *c_sc)
{
        char *text = xasprintf("{\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\",\"uid\":\"u1\"},"
                               "\"spec\":{\"securityContext\":%s,\"containers\":[{\"name\":\"c1\","
                               "\"securityContext\":%s}]}}",
                               pod_sc, c_sc);
        json_t *j = json_loads(text, 0, NULL);

        free(text);
        assert_non_null(j);
        return j;
}

static const json_t *container(const json_t *pod)
{
        return json_array_get(json_object_get(json_object_get(pod, "spec"), "containers"), 0);
}

static void test_precedence(void **state)
{
        json_t *pod =
                pod_of("{\"runAsUser\":1000,\"runAsGroup\":3000,\"supplementalGroups\":[4000,"
                       "5000],\"seccompProfile\":{\"type\":\"RuntimeDefault\"},"
                       "\"runAsNonRoot\":true}",
                       "{\"runAsUser\":2000,\"seccompProfile\":{\"type\":\"Unconfined\"},"
                       "\"capabilities\":{\"drop\":[\"ALL\"]},\"readOnlyRootFilesystem\":true,"
                       "\"allowPrivilegeEscalation\":false}");
        struct pod_security ps;

        assert_int_equal(pod_security_resolve(pod, container(pod), NULL, &ps, NULL), 0);
        assert_int_equal(ps.uid, 2000); /* the container's */
        assert_int_equal(ps.gid, 3000); /* the pod's */
        assert_true(ps.sec.gid_set);
        assert_int_equal(ps.sec.n_groups, 2);
        assert_int_equal(ps.sec.groups[1], 5000);
        assert_int_equal(ps.sec.seccomp, RUNTIME_SECCOMP_UNCONFINED);
        assert_true(ps.sec.caps_set);
        assert_int_equal(ps.sec.caps, 0);
        assert_true(ps.sec.read_only_root);
        assert_true(ps.sec.no_new_privs);
        assert_false(ps.sec.privileged);
        pod_security_release(&ps);
        json_decref(pod);

        /* nothing set: the runtime default, Unconfined, root, the image's group */
        pod = pod_of("{}", "null");
        assert_int_equal(pod_security_resolve(pod, container(pod), NULL, &ps, NULL), 0);
        assert_int_equal(ps.uid, 0);
        assert_false(ps.sec.gid_set);
        assert_false(ps.sec.caps_set);
        assert_false(ps.sec.no_new_privs);
        assert_int_equal(ps.sec.seccomp, RUNTIME_SECCOMP_UNCONFINED);
        pod_security_release(&ps);
        json_decref(pod);

        /* the pod's seccomp profile when the container has none; Strict groups */
        pod = pod_of("{\"seccompProfile\":{\"type\":\"RuntimeDefault\"},"
                     "\"supplementalGroupsPolicy\":\"Strict\"}",
                     "{\"allowPrivilegeEscalation\":true}");
        assert_int_equal(pod_security_resolve(pod, container(pod), NULL, &ps, NULL), 0);
        assert_int_equal(ps.sec.seccomp, RUNTIME_SECCOMP_RUNTIME_DEFAULT);
        assert_true(ps.sec.no_image_groups);
        assert_false(ps.sec.no_new_privs);
        pod_security_release(&ps);
        json_decref(pod);

        /* K8S determineEffectiveSecurityContext: fsGroup after supplementalGroups, Strict too */
        pod = pod_of("{\"supplementalGroups\":[4000],\"fsGroup\":2000,"
                     "\"supplementalGroupsPolicy\":\"Strict\"}",
                     "{}");
        assert_int_equal(pod_security_resolve(pod, container(pod), NULL, &ps, NULL), 0);
        assert_int_equal(ps.sec.n_groups, 2);
        assert_int_equal(ps.sec.groups[0], 4000);
        assert_int_equal(ps.sec.groups[1], 2000);
        pod_security_release(&ps);
        json_decref(pod);
}

static void test_fs_group(void **state)
{
        json_t *pod = pod_of("{\"fsGroup\":2000,\"fsGroupChangePolicy\":\"OnRootMismatch\"}", "{}");
        enum volume_fsgroup_policy policy = VOLUME_FSGROUP_ALWAYS;
        gid_t gid = 0;

        assert_int_equal(pod_security_fs_group(pod, &gid, &policy, NULL), 1);
        assert_int_equal(gid, 2000);
        assert_int_equal(policy, VOLUME_FSGROUP_ON_ROOT_MISMATCH);
        json_decref(pod);

        pod = pod_of("{\"fsGroup\":0}", "{}");
        assert_int_equal(pod_security_fs_group(pod, &gid, &policy, NULL), 1);
        assert_int_equal(gid, 0);
        assert_int_equal(policy, VOLUME_FSGROUP_ALWAYS); /* unset is Always */
        json_decref(pod);

        pod = pod_of("{\"fsGroupChangePolicy\":\"Always\"}", "{}");
        assert_int_equal(pod_security_fs_group(pod, &gid, &policy, NULL), 0);
        json_decref(pod);
}

static void test_refusals(void **state)
{
        static const struct {
                const char *pod_sc, *c_sc, *message;
        } cases[] = {
                { "{\"runAsNonRoot\":true}", "{}",
                  "container has runAsNonRoot and image will run as root (pod: \"p_ns(u1)\", "
                  "container: c1)" },
                { "{\"runAsNonRoot\":true}", "{\"runAsUser\":0}",
                  "container's runAsUser breaks non-root policy (pod: \"p_ns(u1)\", container: "
                  "c1)" },
                { "{}", "{\"capabilities\":{\"add\":[\"NOPE\"]}}",
                  "container c1: unknown capability \"NOPE\"" },
                { "{\"sysctls\":[{\"name\":\"kernel.msgmax\",\"value\":\"1\"}]}", "{}",
                  "forbidden sysctl: \"kernel.msgmax\" not allowlisted" },
                { "{\"fsGroup\":-1}", "{}",
                  "container c1: spec.securityContext.fsGroup must be between 0 and 2147483647" },
                { "{\"fsGroup\":2000,\"fsGroupChangePolicy\":\"Sometimes\"}", "{}",
                  "container c1: spec.securityContext.fsGroupChangePolicy: unknown policy" },
                { "{}", "{\"procMount\":\"Unmasked\"}",
                  "container c1: securityContext.procMount: Invalid value: \"Unmasked\": "
                  "`hostUsers` must be false to use `Unmasked`" },
                { "{}", "{\"procMount\":\"Other\"}",
                  "container c1: securityContext.procMount is not supported by this node" },
                { "{\"seLinuxOptions\":{\"level\":\"s0\"}}", "{}",
                  "container c1: spec.securityContext.seLinuxOptions is not supported" },
                { "{}", "{\"appArmorProfile\":{\"type\":\"RuntimeDefault\"}}",
                  "container c1: Cannot enforce AppArmor: AppArmor is not enabled on the host" },
                { "{}", "{\"seccompProfile\":{\"type\":\"Bogus\"}}",
                  "container c1: unknown seccomp profile type \"Bogus\"" },
                { "{}", "{\"runAsUser\":-1}", "container c1: securityContext.runAsUser must be" },
        };
        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                json_t *pod = pod_of(cases[i].pod_sc, cases[i].c_sc);
                struct pod_security ps;
                struct error *err = NULL;

                assert_int_equal(pod_security_resolve(pod, container(pod), NULL, &ps, &err),
                                 -EINVAL);
                if (strncmp(err->message, cases[i].message, strlen(cases[i].message)) != 0)
                        fail_msg("case %zu: got \"%s\"", i, err->message);
                error_free(err);
                json_decref(pod);
        }
}

static void test_sysctls(void **state)
{
        char *path = NULL;
        json_t *pod;
        struct pod_security ps;

        assert_true(pod_security_sysctl_safe("kernel.shm_rmid_forced", &path));
        assert_string_equal(path, "kernel/shm_rmid_forced");
        free(path);
        assert_true(pod_security_sysctl_safe("net/ipv4/ip_local_port_range", &path));
        assert_string_equal(path, "net/ipv4/ip_local_port_range");
        free(path);
        assert_false(pod_security_sysctl_safe("kernel.msgmax", NULL));
        assert_false(pod_security_sysctl_safe("net.ipv4.conf.all.forwarding", NULL));
        assert_false(pod_security_sysctl_safe("", NULL));

        pod = pod_of("{\"sysctls\":[{\"name\":\"kernel.shm_rmid_forced\",\"value\":\"1\"},"
                     "{\"name\":\"net.ipv4.tcp_syncookies\",\"value\":\"0\"}]}",
                     "{}");
        assert_int_equal(pod_security_resolve(pod, container(pod), NULL, &ps, NULL), 0);
        assert_int_equal(ps.sec.n_sysctls, 2);
        assert_string_equal(ps.sec.sysctls[1].name, "net/ipv4/tcp_syncookies");
        assert_string_equal(ps.sec.sysctls[1].value, "0");
        pod_security_release(&ps);
        json_decref(pod);
}

static void test_localhost_profiles(void **state)
{
        char tmpl[] = "/tmp/test-pod-security-XXXXXX";
        char *dir = mkdtemp(tmpl), *p;
        static const char profile[] = "{\"defaultAction\":\"SCMP_ACT_ALLOW\"}";
        static const struct {
                const char *name, *message;
        } bad[] = {
                { "../x.json", "seccomp profile \"../x.json\": must be a relative path" },
                { "/etc/passwd", "seccomp profile \"/etc/passwd\": must be a relative path" },
                { "a/../../x", "seccomp profile \"a/../../x\": must be a relative path" },
                { "missing.json", "cannot load seccomp profile" },
                { "escape", "cannot load seccomp profile" }, /* a symlink out: resolved inside */
                { "bad.json", "cannot load seccomp profile" },
        };
        json_t *pod;
        struct pod_security ps;
        struct error *err = NULL;

        assert_non_null(dir);
        p = xasprintf("%s/seccomp/sub", dir);
        assert_int_equal(fs_mkdir_p(p, 0755), 0);
        free(p);
        p = xasprintf("%s/seccomp/sub/ok.json", dir);
        FILE *f = fopen(p, "w");
        assert_non_null(f);
        fputs(profile, f);
        fclose(f);
        free(p);
        p = xasprintf("%s/seccomp/bad.json", dir);
        f = fopen(p, "w");
        fputs("{\"defaultAction\":1}", f);
        fclose(f);
        free(p);
        p = xasprintf("%s/seccomp/escape", dir);
        assert_int_equal(symlink("/etc/hostname", p), 0);
        free(p);

        pod = pod_of("{}", "{\"seccompProfile\":{\"type\":\"Localhost\",\"localhostProfile\":"
                           "\"sub/ok.json\"}}");
        assert_int_equal(pod_security_resolve(pod, container(pod), NULL, &ps, NULL), 0);
        assert_int_equal(ps.sec.seccomp, RUNTIME_SECCOMP_LOCALHOST);
        assert_int_equal(pod_security_load_profile(&ps, dir, NULL), 0);
        assert_string_equal(ps.sec.seccomp_profile, profile);
        pod_security_release(&ps);
        json_decref(pod);

        for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
                char *text = NULL;
                assert_true(runtime_seccomp_profile_read(dir, bad[i].name, &text, &err) < 0);
                if (strncmp(err->message, bad[i].message, strlen(bad[i].message)) != 0)
                        fail_msg("case %zu: got \"%s\"", i, err->message);
                err = error_free(err);
        }
        assert_int_equal(fs_remove_tree(dir), 0);
}

/* The image config's User, as the kubelet's verifyRunAsNonRoot and containerd's WithUser read
 * it: applied when runAsUser is unset; names are refused (not resolved here). */
static void test_image_user(void **state)
{
        static const struct {
                const char *pod_sc, *c_sc, *user;
                int64_t uid, gid;    /* gid -1: not set */
                const char *message; /* NULL: accepted */
        } cases[] = {
                { "{}", "{}", "1000", 1000, -1, NULL },
                { "{}", "{}", "1000:2000", 1000, 2000, NULL },
                { "{}", "{\"runAsGroup\":3000}", "1000:2000", 1000, 3000, NULL },
                { "{}", "{\"runAsUser\":5}", "1000:2000", 5, -1, NULL },
                { "{}", "{\"runAsUser\":5}", "nginx", 5, -1, NULL },
                { "{\"runAsNonRoot\":true}", "{}", "1000", 1000, -1, NULL },
                { "{\"runAsNonRoot\":true}", "{}", "0:0", 0, 0,
                  "container has runAsNonRoot and image will run as root (pod: \"p_ns(u1)\", "
                  "container: c1)" },
                { "{\"runAsNonRoot\":true}", "{}", "", 0, -1,
                  "container has runAsNonRoot and image will run as root" },
                { "{\"runAsNonRoot\":true}", "{}", "nginx:www", 0, -1,
                  "container has runAsNonRoot and image has non-numeric user (nginx), cannot "
                  "verify user is non-root (pod: \"p_ns(u1)\", container: c1)" },
                { "{}", "{}", "nginx", 0, -1,
                  "container c1: the image's user \"nginx\" is a name; only numeric image users "
                  "are applied here (set runAsUser)" },
                { "{}", "{}", "1000:www", 0, -1,
                  "container c1: the image's group \"www\" is not numeric" },
        };
        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                json_t *pod = pod_of(cases[i].pod_sc, cases[i].c_sc);
                struct pod_security ps;
                struct error *err = NULL;
                int r = pod_security_resolve(pod, container(pod), cases[i].user, &ps, &err);

                if (cases[i].message) {
                        assert_int_equal(r, -EINVAL);
                        if (strncmp(err->message, cases[i].message, strlen(cases[i].message)) != 0)
                                fail_msg("case %zu: got \"%s\"", i, err->message);
                        error_free(err);
                } else {
                        if (r < 0)
                                fail_msg("case %zu: %s", i, err->message);
                        assert_int_equal(ps.uid, cases[i].uid);
                        assert_int_equal(ps.sec.gid_set, cases[i].gid >= 0);
                        if (cases[i].gid >= 0)
                                assert_int_equal(ps.gid, cases[i].gid);
                        pod_security_release(&ps);
                }
                json_decref(pod);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_precedence),         cmocka_unit_test(test_refusals),
                cmocka_unit_test(test_fs_group),           cmocka_unit_test(test_sysctls),
                cmocka_unit_test(test_localhost_profiles), cmocka_unit_test(test_image_user),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
