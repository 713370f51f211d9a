/* pod-security.c: the securityContext of a container as the node applies it: upstream's
 * precedence (container over pod), upstream's checks and messages, and the refusal of every
 * field this node does not implement (never silently ignored). Not how it is applied: the
 * runtime does that (runtime/confine.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api/sysctl.h"
#include "base/alloc.h"
#include "base/json.h"
#include "node/pod-security.h"

bool pod_security_sysctl_safe(const char *name, char **ret_path)
{
        cleanup_free char *dotted = xstrdup(name);
        size_t sep = strcspn(name, "./");

        /* K8S ConvertSysctlVariableToDotsSeparator: when the first separator is '/', '.' and '/'
         * swap */
        if (name[sep] == '/')
                for (char *p = dotted; *p; p++)
                        *p = *p == '.' ? '/' : *p == '/' ? '.' : *p;
        for (size_t i = 0; i < SAFE_SYSCTLS_V1_32; i++)
                if (streq(dotted, safe_sysctls[i])) {
                        if (ret_path) {
                                char *p = xstrdup(dotted);
                                for (char *q = p; *q; q++)
                                        if (*q == '.')
                                                *q = '/';
                                *ret_path = p;
                        }
                        return true;
                }
        return false;
}

/* K8S format.Pod: "name_namespace(uid)" */
static char *format_pod(const json_t *pod)
{
        return xasprintf("%s_%s(%s)", json_path_string_or_empty(pod, "metadata.name"),
                         json_path_string_or_empty(pod, "metadata.namespace"),
                         json_path_string_or_empty(pod, "metadata.uid"));
}

static const json_t *field(const json_t *pod_sc, const json_t *sc, const char *name)
{
        const json_t *v = json_object_get(sc, name);

        if (!v || json_is_null(v))
                v = json_object_get(pod_sc, name);
        return v && !json_is_null(v) ? v : NULL;
}

static int get_id(const json_t *v, const char *what, const char *cname, int64_t *ret,
                  struct error **reterr)
{
        if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 2147483647)
                return error_set(reterr, EINVAL,
                                 "container %s: securityContext.%s must be between 0 and "
                                 "2147483647",
                                 cname, what);
        *ret = json_integer_value(v);
        return 0;
}

/* strings of a JSON array, borrowed, NULL-terminated (caller frees the vector) */
static const char **strings_of(const json_t *a)
{
        const char **v = xcalloc(json_array_size(a) + 1, sizeof(*v));
        size_t i, n = 0;
        json_t *x;

        json_array_foreach(a, i, x)
                if (json_is_string(x))
                        v[n++] = json_string_value(x);
        return v;
}

/* A field this node does not implement must not be accepted and ignored. */
static int refuse(const char *cname, const char *where, const char *fieldname, const char *why,
                  struct error **reterr)
{
        return error_set(reterr, EINVAL, "container %s: %s.%s is not supported by this node: %s",
                         cname, where, fieldname, why);
}

static int check_unsupported(const json_t *pod, const json_t *pod_sc, const json_t *sc,
                             const char *cname, struct error **reterr)
{
        const json_t *v;

        if (!json_is_empty(json_object_get(sc, "seLinuxOptions")))
                return refuse(cname, "securityContext", "seLinuxOptions", "SELinux is not enabled",
                              reterr);
        if (!json_is_empty(json_object_get(pod_sc, "seLinuxOptions")))
                return refuse(cname, "spec.securityContext", "seLinuxOptions",
                              "SELinux is not enabled", reterr);
        if (!json_is_empty(json_object_get(sc, "windowsOptions")) ||
            !json_is_empty(json_object_get(pod_sc, "windowsOptions")))
                return refuse(cname, "securityContext", "windowsOptions", "this is a Linux node",
                              reterr);
        v = field(pod_sc, sc, "appArmorProfile");
        if (v && !streq(json_string_value(json_object_get(v, "type")) ?: "", "Unconfined"))
                /* K8S: the kubelet's AppArmor admission on a host without AppArmor */
                return error_set(reterr, EINVAL,
                                 "container %s: Cannot enforce AppArmor: AppArmor is not enabled "
                                 "on the host",
                                 cname);
        v = json_object_get(sc, "procMount");
        if (v && !json_is_null(v) && !streq(json_string_value(v) ?: "", "Default") &&
            !streq(json_string_value(v) ?: "", "Unmasked"))
                return refuse(cname, "securityContext", "procMount",
                              "only \"Default\" and \"Unmasked\" are implemented", reterr);
        /* K8S validation: `hostUsers` must be false to use `Unmasked` (the API server refuses
         * it too; the node checks again, as it trusts no object it is given) */
        if (v && streq(json_string_value(v) ?: "", "Unmasked") &&
            !json_is_false(json_path(pod, "spec.hostUsers")))
                return error_set(reterr, EINVAL,
                                 "container %s: securityContext.procMount: Invalid value: "
                                 "\"Unmasked\": `hostUsers` must be false to use `Unmasked`",
                                 cname);
        /* K8S validateHostUsers: no user namespace with the host's network, pid or ipc one
         * (refused by the API server's validation too; checked again here) */
        if (json_is_false(json_path(pod, "spec.hostUsers"))) {
                static const char *const host_ns[] = { "hostNetwork", "hostPID", "hostIPC" };
                for (size_t i = 0; i < ARRAY_SIZE(host_ns); i++)
                        if (json_is_true(json_object_get(json_object_get(pod, "spec"), host_ns[i])))
                                return error_set(reterr, EINVAL,
                                                 "container %s: spec.%s: Forbidden: when "
                                                 "`pod.Spec.HostUsers` is false",
                                                 cname, host_ns[i]);
        }
        v = json_object_get(pod_sc, "supplementalGroupsPolicy");
        if (v && !json_is_null(v) && !streq(json_string_value(v) ?: "", "Merge") &&
            !streq(json_string_value(v) ?: "", "Strict"))
                return error_set(reterr, EINVAL,
                                 "container %s: unknown supplementalGroupsPolicy \"%s\"", cname,
                                 json_string_value(v) ?: "");
        return 0;
}

int pod_security_fs_group(const json_t *pod, gid_t *ret_gid, enum volume_fsgroup_policy *ret_policy,
                          struct error **reterr)
{
        const json_t *pod_sc = json_path(pod, "spec.securityContext"),
                     *v = json_object_get(pod_sc, "fsGroup"),
                     *p = json_object_get(pod_sc, "fsGroupChangePolicy");
        enum volume_fsgroup_policy policy;

        if (!v || json_is_null(v))
                return 0;
        if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 2147483647)
                return error_set(reterr, EINVAL,
                                 "spec.securityContext.fsGroup must be between 0 and 2147483647");
        if (p && !json_is_null(p) &&
            (!json_is_string(p) ||
             volume_fsgroup_policy_from_string(json_string_value(p), &policy) < 0))
                return error_set(reterr, EINVAL,
                                 "spec.securityContext.fsGroupChangePolicy: unknown policy");
        if (!p || json_is_null(p))
                policy = VOLUME_FSGROUP_ALWAYS;
        *ret_gid = (gid_t) json_integer_value(v);
        if (ret_policy)
                *ret_policy = policy;
        return 1;
}

static int resolve_seccomp(const json_t *pod_sc, const json_t *sc, const char *cname,
                           struct pod_security *ps, struct error **reterr)
{
        const json_t *p = json_object_get(sc, "seccompProfile");
        const char *type;

        if (!p || json_is_null(p))
                p = json_object_get(pod_sc, "seccompProfile");
        /* K8S: Unconfined unless the pod asks (the kubelet's SeccompDefault is off by default) */
        ps->sec.seccomp = RUNTIME_SECCOMP_UNCONFINED;
        if (!p || json_is_null(p))
                return 0;
        type = json_string_value(json_object_get(p, "type")) ?: "";
        if (streq(type, "Unconfined"))
                return 0;
        if (streq(type, "RuntimeDefault")) {
                ps->sec.seccomp = RUNTIME_SECCOMP_RUNTIME_DEFAULT;
                return 0;
        }
        if (streq(type, "Localhost")) {
                ps->localhost_profile = json_string_value(json_object_get(p, "localhostProfile"));
                if (!ps->localhost_profile || !*ps->localhost_profile)
                        return error_set(reterr, EINVAL,
                                         "container %s: seccompProfile: localhostProfile must be "
                                         "set when type is Localhost",
                                         cname);
                ps->sec.seccomp = RUNTIME_SECCOMP_LOCALHOST;
                return 0;
        }
        return error_set(reterr, EINVAL, "container %s: unknown seccomp profile type \"%s\"", cname,
                         type);
}

static int resolve_sysctls(const json_t *pod_sc, const char *cname, struct pod_security *ps,
                           struct error **reterr)
{
        const json_t *a = json_object_get(pod_sc, "sysctls");
        size_t i, n = json_array_size(a);
        json_t *x;

        if (!n)
                return 0;
        ps->sysctls = xcalloc(n, sizeof(*ps->sysctls));
        ps->sysctl_paths = xcalloc(n + 1, sizeof(*ps->sysctl_paths));
        json_array_foreach(a, i, x) {
                const char *name = json_string_value(json_object_get(x, "name")),
                           *value = json_string_value(json_object_get(x, "value"));

                if (!name || !value)
                        return error_set(reterr, EINVAL, "container %s: sysctls[%zu] is malformed",
                                         cname, i);
                /* K8S: the kubelet's sysctl admission (no --allowed-unsafe-sysctls here) */
                if (!pod_security_sysctl_safe(name, &ps->sysctl_paths[i]))
                        return error_set(reterr, EINVAL, "forbidden sysctl: \"%s\" not allowlisted",
                                         name);
                ps->sysctls[i] =
                        (struct runtime_sysctl){ .name = ps->sysctl_paths[i], .value = value };
        }
        ps->sec.sysctls = ps->sysctls;
        ps->sec.n_sysctls = n;
        return 0;
}

/* containerd's getUserFromImage: the user part of "user[:group]", a uid when numeric */
static bool image_uid(const char *user, int64_t *ret_uid, size_t *ret_len)
{
        size_t n = strcspn(user, ":");
        int64_t v = 0;

        *ret_len = n;
        if (n == 0 || n > 10)
                return false;
        for (size_t i = 0; i < n; i++) {
                if (user[i] < '0' || user[i] > '9')
                        return false;
                v = v * 10 + (user[i] - '0');
        }
        if (v > 2147483647)
                return false;
        *ret_uid = v;
        return true;
}

int pod_security_resolve(const json_t *pod, const json_t *c, const char *image_user,
                         struct pod_security *ret, struct error **reterr)
{
        const json_t *pod_sc = json_path(pod, "spec.securityContext"),
                     *sc = json_object_get(c, "securityContext"), *v, *caps;
        const char *name = json_string_value(json_object_get(c, "name")) ?: "";
        struct pod_security ps = { 0 };
        int64_t id;
        gid_t fs_group;
        size_t i, n_groups;
        json_t *x;
        int r;

        if (!json_is_object(pod_sc))
                pod_sc = NULL;
        if (!json_is_object(sc))
                sc = NULL;
        if ((r = check_unsupported(pod, pod_sc, sc, name, reterr)) < 0)
                goto fail;

        /* K8S: runAsUser, runAsGroup, runAsNonRoot: the container's, else the pod's */
        if ((v = field(pod_sc, sc, "runAsUser"))) {
                if ((r = get_id(v, "runAsUser", name, &id, reterr)) < 0)
                        goto fail;
                ps.uid = (uid_t) id;
        }
        if ((v = field(pod_sc, sc, "runAsGroup"))) {
                if ((r = get_id(v, "runAsGroup", name, &id, reterr)) < 0)
                        goto fail;
                ps.gid = (gid_t) id;
                ps.sec.gid_set = true;
        }
        if (!image_user)
                image_user = "";
        if (json_is_true(field(pod_sc, sc, "runAsNonRoot"))) {
                /* K8S verifyRunAsNonRoot, with the image's user as containerd reports it (an
                 * image without User runs as root) */
                cleanup_free char *fp = format_pod(pod);
                int64_t iu = 0;
                size_t len;
                bool numeric = !*image_user || image_uid(image_user, &iu, &len);
                if (field(pod_sc, sc, "runAsUser") && ps.uid == 0)
                        r = error_set(reterr, EINVAL,
                                      "container's runAsUser breaks non-root policy (pod: \"%s\", "
                                      "container: %s)",
                                      fp, name);
                else if (!field(pod_sc, sc, "runAsUser") && numeric && iu == 0)
                        r = error_set(reterr, EINVAL,
                                      "container has runAsNonRoot and image will run as root "
                                      "(pod: \"%s\", container: %s)",
                                      fp, name);
                else if (!field(pod_sc, sc, "runAsUser") && !numeric)
                        r = error_set(reterr, EINVAL,
                                      "container has runAsNonRoot and image has non-numeric user "
                                      "(%.*s), cannot verify user is non-root (pod: \"%s\", "
                                      "container: %s)",
                                      (int) strcspn(image_user, ":"), image_user, fp, name);
                if (r < 0)
                        goto fail;
        }
        if (!field(pod_sc, sc, "runAsUser") && *image_user) {
                /* containerd WithUser: the image's "uid[:gid]" when runAsUser is unset (a
                 * runAsGroup still wins over the image's group) */
                int64_t iu;
                size_t len;
                const char *group;
                if (!image_uid(image_user, &iu, &len)) {
                        r = error_set(reterr, EINVAL,
                                      "container %s: the image's user \"%s\" is a name; only "
                                      "numeric image users are applied here (set runAsUser)",
                                      name, image_user);
                        goto fail;
                }
                ps.uid = (uid_t) iu;
                group = image_user[len] == ':' ? image_user + len + 1 : NULL;
                if (group && !field(pod_sc, sc, "runAsGroup")) {
                        int64_t ig;
                        size_t glen;
                        if (!image_uid(group, &ig, &glen) || group[glen]) {
                                r = error_set(reterr, EINVAL,
                                              "container %s: the image's group \"%s\" is not "
                                              "numeric; only numeric image groups are applied "
                                              "here (set runAsGroup)",
                                              name, group);
                                goto fail;
                        }
                        ps.gid = (gid_t) ig;
                        ps.sec.gid_set = true;
                }
        }

        /* pod-level supplementalGroups; the image's groups unless Strict (KEP-3619) */
        v = json_object_get(pod_sc, "supplementalGroups");
        ps.groups = xcalloc(json_array_size(v) + 2, sizeof(*ps.groups));
        json_array_foreach(v, i, x) {
                if (!json_is_integer(x) || json_integer_value(x) < 0 ||
                    json_integer_value(x) > 2147483647) {
                        r = error_set(reterr, EINVAL,
                                      "container %s: supplementalGroups[%zu] must be between 0 "
                                      "and 2147483647",
                                      name, i);
                        goto fail;
                }
                ps.groups[i] = (gid_t) json_integer_value(x);
        }
        n_groups = json_array_size(v);
        /* K8S determineEffectiveSecurityContext: fsGroup joins the supplemental groups after
         * the pod's supplementalGroups, whatever the supplementalGroupsPolicy */
        r = pod_security_fs_group(pod, &fs_group, NULL, reterr);
        if (r < 0) {
                error_wrap(reterr, "container %s", name);
                goto fail;
        }
        if (r > 0)
                ps.groups[n_groups++] = fs_group;
        ps.sec.groups = ps.groups;
        ps.sec.n_groups = n_groups;
        ps.sec.no_image_groups =
                streq(json_string_value(json_object_get(pod_sc, "supplementalGroupsPolicy")) ?: "",
                      "Strict");

        /* container-level only: privileged, capabilities, readOnlyRootFilesystem,
         * allowPrivilegeEscalation */
        ps.sec.privileged = json_is_true(json_object_get(sc, "privileged"));
        ps.sec.read_only_root = json_is_true(json_object_get(sc, "readOnlyRootFilesystem"));
        /* K8S: no_new_privs whenever allowPrivilegeEscalation is false */
        v = json_object_get(sc, "allowPrivilegeEscalation");
        ps.sec.no_new_privs = json_is_false(v);
        caps = json_object_get(sc, "capabilities");
        if (caps && !json_is_null(caps)) {
                cleanup_free const char **add = strings_of(json_object_get(caps, "add"));
                cleanup_free const char **drop = strings_of(json_object_get(caps, "drop"));

                r = runtime_capabilities_merge(RUNTIME_DEFAULT_CAPS, add, drop, &ps.sec.caps,
                                               reterr);
                if (r < 0) {
                        error_wrap(reterr, "container %s", name);
                        goto fail;
                }
                ps.sec.caps_set = true;
        }
        if ((r = resolve_seccomp(pod_sc, sc, name, &ps, reterr)) < 0 ||
            (r = resolve_sysctls(pod_sc, name, &ps, reterr)) < 0)
                goto fail;
        ps.sec.host_pid = json_is_true(json_path(pod, "spec.hostPID"));
        ps.sec.host_ipc = json_is_true(json_path(pod, "spec.hostIPC"));
        ps.sec.proc_unmasked =
                streq(json_string_value(json_object_get(sc, "procMount")) ?: "", "Unmasked");
        *ret = ps;
        return 0;
fail:
        pod_security_release(&ps);
        return r;
}

int pod_security_load_profile(struct pod_security *ps, const char *data_dir, struct error **reterr)
{
        int r;

        if (ps->sec.seccomp != RUNTIME_SECCOMP_LOCALHOST || ps->sec.privileged)
                return 0;
        r = runtime_seccomp_profile_read(data_dir, ps->localhost_profile, &ps->profile_text,
                                         reterr);
        if (r < 0)
                return r;
        ps->sec.seccomp_profile = ps->profile_text;
        return 0;
}

void pod_security_release(struct pod_security *ps)
{
        free(ps->groups);
        free(ps->sysctls);
        for (size_t i = 0; ps->sysctl_paths && ps->sysctl_paths[i]; i++)
                free(ps->sysctl_paths[i]);
        free(ps->sysctl_paths);
        free(ps->profile_text);
        *ps = (struct pod_security){ 0 };
}
