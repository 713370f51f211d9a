/* spec.c: the container spec as the JSON file (spec.json) the agent writes and the supervisor
 * reads, and the checks the supervisor relies on. The file is the runtime's own; its field
 * names follow the Kubernetes/OCI words they carry. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/json.h"
#include "node/runtime/runtime-internal.h"

static json_t *strv_to_json(const char *const *v)
{
        json_t *a = json_array();

        for (size_t i = 0; v && v[i]; i++)
                json_array_append_new(a, json_string(v[i]));
        return a;
}

static void set_string(json_t *o, const char *key, const char *v)
{
        if (v)
                json_object_set_new(o, key, json_string(v));
}

static const char *const seccomp_modes[] = {
        [RUNTIME_SECCOMP_UNCONFINED] = "Unconfined",
        [RUNTIME_SECCOMP_RUNTIME_DEFAULT] = "RuntimeDefault",
        [RUNTIME_SECCOMP_LOCALHOST] = "Localhost",
};

static json_t *security_to_json(const struct runtime_security *sec)
{
        json_t *o = json_object(), *groups = json_array(), *sysctls = json_array();
        char caps[24];

        json_object_set_new(o, "privileged", json_boolean(sec->privileged));
        json_object_set_new(o, "readOnlyRootFilesystem", json_boolean(sec->read_only_root));
        json_object_set_new(o, "noNewPrivileges", json_boolean(sec->no_new_privs));
        if (sec->caps_set) {
                /* a string: JSON numbers past 2^53 do not survive every reader */
                (void) snprintf(caps, sizeof(caps), "%016llx", (unsigned long long) sec->caps);
                json_object_set_new(o, "capabilities", json_string(caps));
        }
        json_object_set_new(o, "gidSet", json_boolean(sec->gid_set));
        json_object_set_new(o, "noImageGroups", json_boolean(sec->no_image_groups));
        for (size_t i = 0; i < sec->n_groups; i++)
                json_array_append_new(groups, json_integer(sec->groups[i]));
        json_object_set_new(o, "groups", groups);
        if (sec->seccomp < RUNTIME_SECCOMP_MODE_MAX)
                json_object_set_new(o, "seccomp", json_string(seccomp_modes[sec->seccomp]));
        set_string(o, "seccompProfile", sec->seccomp_profile);
        for (size_t i = 0; i < sec->n_sysctls; i++) {
                json_t *x = json_object();
                set_string(x, "name", sec->sysctls[i].name);
                set_string(x, "value", sec->sysctls[i].value);
                json_array_append_new(sysctls, x);
        }
        json_object_set_new(o, "sysctls", sysctls);
        json_object_set_new(o, "hostPID", json_boolean(sec->host_pid));
        json_object_set_new(o, "hostIPC", json_boolean(sec->host_ipc));
        json_object_set_new(o, "procUnmasked", json_boolean(sec->proc_unmasked));
        return o;
}

json_t *rt_spec_to_json(const struct runtime_container_spec *s)
{
        json_t *o = json_object(), *image = json_object(), *env = json_array(),
               *mounts = json_array();

        set_string(o, "stateDir", s->state_dir);
        set_string(o, "sandboxDir", s->sandbox_dir);
        set_string(image, "rootfs", s->rootfs);
        if (s->image_lowerdirs)
                json_object_set_new(image, "lowerdirs", strv_to_json(s->image_lowerdirs));
        json_object_set_new(image, "entrypoint", strv_to_json(s->image_entrypoint));
        json_object_set_new(image, "cmd", strv_to_json(s->image_cmd));
        json_object_set_new(image, "env", strv_to_json(s->image_env));
        set_string(image, "workingDir", s->image_working_dir);
        set_string(image, "reference", s->image_reference);
        json_object_set_new(o, "image", image);
        json_object_set_new(o, "command", strv_to_json(s->command));
        json_object_set_new(o, "args", strv_to_json(s->args));
        set_string(o, "workingDir", s->working_dir);
        set_string(o, "terminationMessagePath", s->termination_message_path);
        if (s->termination_message_fallback)
                json_object_set_new(o, "terminationMessageFallbackToLogs", json_true());
        /* K8S stdin, stdinOnce, tty; runtime_container_io reads them back too */
        if (s->stdin_open)
                json_object_set_new(o, "stdin", json_true());
        if (s->stdin_once)
                json_object_set_new(o, "stdinOnce", json_true());
        if (s->tty)
                json_object_set_new(o, "tty", json_true());
        for (size_t i = 0; i < s->n_env; i++) {
                json_t *e = json_object();
                set_string(e, "name", s->env[i].name);
                set_string(e, "value", s->env[i].value ? s->env[i].value : "");
                if (s->env[i].literal)
                        json_object_set_new(e, "literal", json_true());
                json_array_append_new(env, e);
        }
        json_object_set_new(o, "env", env);
        for (size_t i = 0; i < s->n_mounts; i++) {
                json_t *m = json_object();
                set_string(m, "source", s->mounts[i].source);
                if (s->mounts[i].sub_path && *s->mounts[i].sub_path)
                        set_string(m, "subPath", s->mounts[i].sub_path);
                set_string(m, "target", s->mounts[i].target);
                json_object_set_new(m, "readOnly", json_boolean(s->mounts[i].read_only));
                json_array_append_new(mounts, m);
        }
        json_object_set_new(o, "mounts", mounts);
        json_object_set_new(o, "cgroupProcs", strv_to_json(s->cgroup_procs));
        json_object_set_new(o, "uid", json_integer(s->uid));
        json_object_set_new(o, "gid", json_integer(s->gid));
        json_object_set_new(o, "security", security_to_json(&s->security));
        if (s->oom_score_adj_set)
                json_object_set_new(o, "oomScoreAdj", json_integer(s->oom_score_adj));
        return o;
}

/* A string array borrowed from the JSON (the strings) into a new NULL-terminated vector. */
static int json_to_strv(const json_t *a, const char *what, char ***ret, struct error **reterr)
{
        size_t i;
        json_t *v;
        char **out;

        if (!a || json_is_null(a)) {
                *ret = xcalloc(1, sizeof(char *));
                return 0;
        }
        if (!json_is_array(a))
                return error_set(reterr, EINVAL, "container spec: \"%s\" is not an array", what);
        out = xcalloc(json_array_size(a) + 1, sizeof(*out));
        json_array_foreach(a, i, v) {
                if (!json_is_string(v)) {
                        free(out);
                        return error_set(reterr, EINVAL,
                                         "container spec: \"%s\" holds a non-string", what);
                }
                out[i] = (char *) json_string_value(v);
        }
        *ret = out;
        return 0;
}

static int get_string(const json_t *o, const char *key, bool required, const char **ret,
                      struct error **reterr)
{
        const json_t *v = json_object_get(o, key);

        if (!v || json_is_null(v)) {
                if (required)
                        return error_set(reterr, EINVAL, "container spec: \"%s\" is missing", key);
                *ret = NULL;
                return 0;
        }
        if (!json_is_string(v))
                return error_set(reterr, EINVAL, "container spec: \"%s\" is not a string", key);
        *ret = json_string_value(v);
        return 0;
}

static int security_from_json(const json_t *o, struct rt_spec_holder *h, struct error **reterr)
{
        struct runtime_security *sec = &h->spec.security;
        const json_t *groups, *sysctls, *v;
        const char *mode = NULL;
        size_t i;
        int r;

        if (!o || json_is_null(o))
                return 0;
        if (!json_is_object(o))
                return error_set(reterr, EINVAL, "container spec: \"security\" is not an object");
        sec->privileged = json_is_true(json_object_get(o, "privileged"));
        sec->read_only_root = json_is_true(json_object_get(o, "readOnlyRootFilesystem"));
        sec->no_new_privs = json_is_true(json_object_get(o, "noNewPrivileges"));
        sec->gid_set = json_is_true(json_object_get(o, "gidSet"));
        sec->no_image_groups = json_is_true(json_object_get(o, "noImageGroups"));
        sec->host_pid = json_is_true(json_object_get(o, "hostPID"));
        sec->host_ipc = json_is_true(json_object_get(o, "hostIPC"));
        sec->proc_unmasked = json_is_true(json_object_get(o, "procUnmasked"));
        v = json_object_get(o, "capabilities");
        if (v) {
                const char *c = json_string_value(v);
                char *end;

                if (!c || !*c || strlen(c) > 16)
                        return error_set(reterr, EINVAL, "container spec: bad \"capabilities\"");
                sec->caps = strtoull(c, &end, 16);
                if (*end)
                        return error_set(reterr, EINVAL, "container spec: bad \"capabilities\"");
                sec->caps_set = true;
        }
        groups = json_object_get(o, "groups");
        if (groups && !json_is_array(groups))
                return error_set(reterr, EINVAL, "container spec: \"groups\" is not an array");
        h->groups = xcalloc(json_array_size(groups) + 1, sizeof(*h->groups));
        json_array_foreach(groups, i, v) {
                if (!json_is_integer(v) || json_integer_value(v) < 0 ||
                    json_integer_value(v) > 0xfffffffe)
                        return error_set(reterr, EINVAL, "container spec: bad group");
                h->groups[i] = (gid_t) json_integer_value(v);
        }
        sec->groups = h->groups;
        sec->n_groups = json_array_size(groups);
        if ((r = get_string(o, "seccomp", false, &mode, reterr)) < 0 ||
            (r = get_string(o, "seccompProfile", false, &sec->seccomp_profile, reterr)) < 0)
                return r;
        sec->seccomp = RUNTIME_SECCOMP_UNCONFINED;
        for (i = 0; mode && i < ARRAY_SIZE(seccomp_modes); i++)
                if (streq(mode, seccomp_modes[i]))
                        sec->seccomp = (enum runtime_seccomp_mode) i;
        if (mode && !streq(mode, seccomp_modes[sec->seccomp]))
                return error_set(reterr, EINVAL, "container spec: unknown seccomp mode \"%s\"",
                                 mode);
        sysctls = json_object_get(o, "sysctls");
        if (sysctls && !json_is_array(sysctls))
                return error_set(reterr, EINVAL, "container spec: \"sysctls\" is not an array");
        h->sysctls = xcalloc(json_array_size(sysctls) + 1, sizeof(*h->sysctls));
        json_array_foreach(sysctls, i, v) {
                if (!json_is_object(v) ||
                    (r = get_string(v, "name", true, &h->sysctls[i].name, reterr)) < 0 ||
                    (r = get_string(v, "value", true, &h->sysctls[i].value, reterr)) < 0)
                        return error_set(reterr, EINVAL, "container spec: bad sysctl");
        }
        sec->sysctls = h->sysctls;
        sec->n_sysctls = json_array_size(sysctls);
        return 0;
}

void rt_spec_holder_release(struct rt_spec_holder *h)
{
        for (size_t i = 0; i < ARRAY_SIZE(h->strv); i++)
                free(h->strv[i]); /* the strings belong to the JSON */
        free(h->env);
        free(h->mounts);
        free(h->groups);
        free(h->sysctls);
        json_decref(h->json);
        *h = (struct rt_spec_holder){ 0 };
}

int rt_spec_from_json(json_t *j, struct rt_spec_holder *ret, struct error **reterr)
{
        struct rt_spec_holder h = { .json = json_incref(j) };
        struct runtime_container_spec *s = &h.spec;
        const json_t *image, *env, *mounts, *v;
        size_t i;
        int r;

        if (!json_is_object(j)) {
                r = error_set(reterr, EINVAL, "container spec: not a JSON object");
                goto fail;
        }
        image = json_object_get(j, "image");
        if (!json_is_object(image)) {
                r = error_set(reterr, EINVAL, "container spec: \"image\" is not an object");
                goto fail;
        }
        if ((r = get_string(j, "stateDir", true, &s->state_dir, reterr)) < 0 ||
            (r = get_string(j, "sandboxDir", false, &s->sandbox_dir, reterr)) < 0 ||
            (r = get_string(image, "rootfs", true, &s->rootfs, reterr)) < 0 ||
            (r = get_string(image, "workingDir", false, &s->image_working_dir, reterr)) < 0 ||
            (r = get_string(image, "reference", false, &s->image_reference, reterr)) < 0 ||
            (r = get_string(j, "workingDir", false, &s->working_dir, reterr)) < 0 ||
            (r = get_string(j, "terminationMessagePath", false, &s->termination_message_path,
                            reterr)) < 0)
                goto fail;
        s->termination_message_fallback =
                json_is_true(json_object_get(j, "terminationMessageFallbackToLogs"));
        s->stdin_open = json_is_true(json_object_get(j, "stdin"));
        s->stdin_once = json_is_true(json_object_get(j, "stdinOnce"));
        s->tty = json_is_true(json_object_get(j, "tty"));
        if ((r = json_to_strv(json_object_get(image, "entrypoint"), "entrypoint", &h.strv[0],
                              reterr)) < 0 ||
            (r = json_to_strv(json_object_get(image, "cmd"), "cmd", &h.strv[1], reterr)) < 0 ||
            (r = json_to_strv(json_object_get(image, "env"), "env", &h.strv[2], reterr)) < 0 ||
            (r = json_to_strv(json_object_get(j, "command"), "command", &h.strv[3], reterr)) < 0 ||
            (r = json_to_strv(json_object_get(j, "args"), "args", &h.strv[4], reterr)) < 0 ||
            (r = json_to_strv(json_object_get(j, "cgroupProcs"), "cgroupProcs", &h.strv[5],
                              reterr)) < 0 ||
            (r = json_to_strv(json_object_get(image, "lowerdirs"), "lowerdirs", &h.strv[6],
                              reterr)) < 0)
                goto fail;
        s->image_lowerdirs = h.strv[6][0] ? (const char *const *) h.strv[6] : NULL;
        s->image_entrypoint = (const char *const *) h.strv[0];
        s->image_cmd = (const char *const *) h.strv[1];
        s->image_env = (const char *const *) h.strv[2];
        s->command = (const char *const *) h.strv[3];
        s->args = (const char *const *) h.strv[4];
        s->cgroup_procs = (const char *const *) h.strv[5];

        env = json_object_get(j, "env");
        if (env && !json_is_array(env)) {
                r = error_set(reterr, EINVAL, "container spec: \"env\" is not an array");
                goto fail;
        }
        h.env = xcalloc(json_array_size(env) + 1, sizeof(*h.env));
        json_array_foreach(env, i, v) {
                if (!json_is_object(v) ||
                    (r = get_string(v, "name", true, &h.env[i].name, reterr)) < 0 ||
                    (r = get_string(v, "value", false, &h.env[i].value, reterr)) < 0) {
                        r = r < 0 ? r : error_set(reterr, EINVAL, "container spec: bad env entry");
                        goto fail;
                }
                h.env[i].literal = json_is_true(json_object_get(v, "literal"));
        }
        s->env = h.env;
        s->n_env = json_array_size(env);

        mounts = json_object_get(j, "mounts");
        if (mounts && !json_is_array(mounts)) {
                r = error_set(reterr, EINVAL, "container spec: \"mounts\" is not an array");
                goto fail;
        }
        h.mounts = xcalloc(json_array_size(mounts) + 1, sizeof(*h.mounts));
        json_array_foreach(mounts, i, v) {
                if (!json_is_object(v) ||
                    (r = get_string(v, "source", true, &h.mounts[i].source, reterr)) < 0 ||
                    (r = get_string(v, "subPath", false, &h.mounts[i].sub_path, reterr)) < 0 ||
                    (r = get_string(v, "target", true, &h.mounts[i].target, reterr)) < 0) {
                        r = r < 0 ? r : error_set(reterr, EINVAL, "container spec: bad mount");
                        goto fail;
                }
                h.mounts[i].read_only = json_is_true(json_object_get(v, "readOnly"));
        }
        s->mounts = h.mounts;
        s->n_mounts = json_array_size(mounts);

        v = json_object_get(j, "uid");
        s->uid = json_is_integer(v) ? (uid_t) json_integer_value(v) : 0;
        v = json_object_get(j, "gid");
        s->gid = json_is_integer(v) ? (gid_t) json_integer_value(v) : 0;
        if ((r = security_from_json(json_object_get(j, "security"), &h, reterr)) < 0)
                goto fail;
        v = json_object_get(j, "oomScoreAdj");
        if (v) {
                if (!json_is_integer(v) || json_integer_value(v) < -1000 ||
                    json_integer_value(v) > 1000) {
                        r = error_set(reterr, EINVAL,
                                      "container spec: \"oomScoreAdj\" is not in -1000..1000");
                        goto fail;
                }
                s->oom_score_adj = (int) json_integer_value(v);
                s->oom_score_adj_set = true;
        }
        *ret = h;
        return 0;
fail:
        rt_spec_holder_release(&h);
        return r;
}

static bool has_option_separator(const char *p)
{
        /* overlayfs options: ',' separates options, ':' lower layers, '\\' escapes */
        return strpbrk(p, ",:\\") != NULL;
}

static bool strv_empty(const char *const *v)
{
        return !v || !v[0];
}

static bool strv_empty_command(const struct runtime_container_spec *s)
{
        return strv_empty(s->command) && strv_empty(s->args) && strv_empty(s->image_entrypoint) &&
               strv_empty(s->image_cmd);
}

int rt_spec_check(const struct runtime_container_spec *s, struct error **reterr)
{
        if (!s->state_dir || s->state_dir[0] != '/')
                return error_set(reterr, EINVAL,
                                 "container spec: the state dir must be an absolute path");
        if (!s->sandbox_dir || s->sandbox_dir[0] != '/')
                return error_set(reterr, EINVAL,
                                 "container spec: the sandbox dir must be an absolute path");
        if (!s->rootfs || s->rootfs[0] != '/')
                return error_set(reterr, EINVAL,
                                 "container spec: the image root must be an absolute path");
        if (has_option_separator(s->rootfs) || has_option_separator(s->state_dir))
                return error_set(
                        reterr, EINVAL,
                        "container spec: \"%s\" or \"%s\" holds ',', ':' or '\\', which overlayfs options cannot carry",
                        s->rootfs, s->state_dir);
        {
                size_t total = 0, n = 0;
                for (size_t i = 0; s->image_lowerdirs && s->image_lowerdirs[i]; i++, n++) {
                        if (s->image_lowerdirs[i][0] != '/' ||
                            has_option_separator(s->image_lowerdirs[i]))
                                return error_set(
                                        reterr, EINVAL,
                                        "container spec: the image layer \"%s\" is not an absolute path overlayfs options can carry",
                                        s->image_lowerdirs[i]);
                        total += strlen(s->image_lowerdirs[i]) + 1;
                }
                /* the kernel takes one page of mount options */
                if (total + 2 * strlen(s->state_dir) + 64 > 4000 || n > 128)
                        return error_set(
                                reterr, E2BIG,
                                "container spec: the image's %zu layers do not fit in one overlayfs mount's options",
                                n);
        }
        if (strv_empty_command(s))
                return error_set(reterr, EINVAL, "no command specified");
        for (size_t i = 0; i < s->n_mounts; i++) {
                if (!s->mounts[i].source || s->mounts[i].source[0] != '/')
                        return error_set(
                                reterr, EINVAL,
                                "container spec: mount source \"%s\" is not an absolute path",
                                s->mounts[i].source ? s->mounts[i].source : "");
                if (!s->mounts[i].target || !*s->mounts[i].target)
                        return error_set(reterr, EINVAL, "container spec: a mount has no target");
                /* the supervisor resolves it inside the volume anyway; a ".." is never meant */
                if (s->mounts[i].sub_path && *s->mounts[i].sub_path &&
                    !rt_subpath_is_local(s->mounts[i].sub_path))
                        return error_set(
                                reterr, EINVAL,
                                "container spec: subPath \"%s\" is not a relative path without \"..\"",
                                s->mounts[i].sub_path);
        }
        if (s->security.seccomp >= RUNTIME_SECCOMP_MODE_MAX ||
            (s->security.seccomp == RUNTIME_SECCOMP_LOCALHOST && !s->security.seccomp_profile))
                return error_set(reterr, EINVAL, "container spec: bad seccomp profile");
        for (size_t i = 0; i < s->security.n_sysctls; i++)
                if (!s->security.sysctls[i].name || !s->security.sysctls[i].value ||
                    !rt_sysctl_name_ok(s->security.sysctls[i].name))
                        return error_set(reterr, EINVAL, "container spec: bad sysctl \"%s\"",
                                         s->security.sysctls[i].name ?: "");
        for (size_t i = 0; i < s->n_env; i++)
                if (!s->env[i].name || !*s->env[i].name || strchr(s->env[i].name, '='))
                        return error_set(reterr, EINVAL,
                                         "container spec: bad environment variable name \"%s\"",
                                         s->env[i].name ? s->env[i].name : "");
        return 0;
}
